//! Capture sessions as the hooks would, and list what `/reflect`'s digest would, with the
//! classifier trained without their repository.
//!
//! `cargo run --release -p reflect-lab --example capture_held_out -- [--shipped] [--digest SID] CORPUS PROJECT SESSION=TRANSCRIPT...`
//!
//! The shipped weights were trained on every labelled session of `CORPUS` (`../shared/corpus`),
//! so capture run on those sessions with them is capture on people it has seen. This runs what
//! `capture-signals` (PreCompact) and then `capture-session-summary` (SessionEnd) run, for each
//! transcript in the order given, with a model trained on every repository but the ones the
//! transcripts come from: `scripts/review-eval prepare` measures the review on that, the capture a
//! stranger gets. `--digest SID` then prints what `memory-store digest --current SID` prints in
//! `PROJECT` (and saves its marks), weighing the prompts with the same model: the digest ranks
//! and cuts them by it. The data and config dirs come from the environment, as the hooks read
//! them (`REFLECT_HOME`, `CLAUDE_CONFIG_DIR`); each signal's project is `PROJECT`. Prints the
//! repositories left out, on stderr. `--shipped` weighs with the shipped model instead: the
//! store and the digest are then the binaries' own but for ids and times, which checks this
//! program against them.

use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::ExitCode;

use reflect_app::capture::{self, capture};
use reflect_app::digest::{self, DEFAULT_BUDGET_TOKENS};
use reflect_app::scope::Scope;
use reflect_base::fsutil::LockWait;
use reflect_base::paths::Paths;
use reflect_detect::model::{Model, SHIPPED};
use reflect_lab::eval;
use reflect_store::input;
use reflect_store::store::Store;

const USAGE: &str =
    "usage: capture_held_out [--shipped] [--digest SID] CORPUS PROJECT SESSION=TRANSCRIPT...";

fn main() -> ExitCode {
    match run(std::env::args().skip(1).collect()) {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("capture_held_out: {e}");
            ExitCode::from(1)
        }
    }
}

fn run(mut args: Vec<String>) -> Result<(), String> {
    let (mut shipped, mut current) = (false, None);
    loop {
        match args.first().map(String::as_str) {
            Some("--shipped") => shipped = true,
            Some("--digest") if args.len() > 1 => current = Some(args.remove(1)),
            _ => break,
        }
        args.remove(0);
    }
    let [corpus, project, sessions @ ..] = args.as_slice() else {
        return Err(USAGE.into());
    };
    let sessions: Vec<(&str, &Path)> = sessions
        .iter()
        .map(|a| {
            a.split_once('=')
                .map(|(s, t)| (s, Path::new(t)))
                .ok_or(format!("{a}: not SESSION=TRANSCRIPT"))
        })
        .collect::<Result<_, _>>()?;
    let model: &'static Model = if shipped {
        &SHIPPED
    } else {
        let prompts = eval::load(Path::new(corpus)).map_err(|e| format!("{corpus}: {e}"))?;
        let names: Vec<&str> = sessions
            .iter()
            .filter_map(|(_, t)| t.file_name().and_then(|n| n.to_str()))
            .collect();
        let (model, left_out) = eval::model_without(&prompts, &names);
        // A transcript not named as in the corpus (a link under its session id) leaves out
        // nothing: that would be the shipped model again.
        if left_out.is_empty() {
            return Err(
                "no transcript is named as a corpus file: no repository to leave out".into(),
            );
        }
        eprintln!("capture_held_out: trained without {left_out:?}");
        // Every capture and the digest of this process weigh prompts with this one model.
        Box::leak(Box::new(model))
    };
    let paths = Paths::from_env().map_err(|e| e.to_string())?;
    for (session, transcript) in sessions {
        for (hook, summary) in [("PreCompact", false), ("SessionEnd", true)] {
            let req = capture::Request {
                transcript: PathBuf::from(transcript),
                session: Some(session.to_string()),
                project: Some(project.clone()),
                hook: hook.into(),
                summary,
                end_reason: summary.then(|| "other".into()),
                dry_run: false,
                model: Some(model),
            };
            capture(&paths, &req).map_err(|e| format!("{}: {e}", transcript.display()))?;
        }
    }
    if let Some(current) = current {
        let store = Store::new(&paths, LockWait::CLI);
        let cwd = PathBuf::from(project);
        let req = digest::Request {
            scope: Some(Scope::of(&input::project(&cwd))),
            session: None,
            current: Some(current).filter(|s| !s.is_empty()),
            cwd,
            since: None,
            transcripts: Vec::new(),
            budget_tokens: DEFAULT_BUDGET_TOKENS,
            model: Some(model),
        };
        let mut found = digest::digest(&store, &req).map_err(|e| e.to_string())?;
        found.save_marks(&paths).map_err(|e| e.to_string())?;
        let mut out = std::io::stdout().lock();
        out.write_all(found.text("memory-store").as_bytes())
            .map_err(|e| e.to_string())?;
    }
    Ok(())
}
