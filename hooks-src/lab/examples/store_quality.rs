//! How much of what capture stores is worth a reviewer's attention, on a labelled corpus.
//!
//! `cargo run --release -p reflect-lab --example store_quality -- [--verbose] [--shipped] [--corpus ROOT] [LABELS [TRANSCRIPTS]]`
//! (default: the training corpus, `../shared/corpus/train`). `scripts/store-quality` wraps this,
//! and with `--rev REV` runs this same program against the capture of another revision.
//!
//! **Whose model.** The shipped classifier was trained on every labelled prompt of the corpora,
//! these too, so each repository is captured with one trained on every other repository of
//! `ROOT` (default `../shared/corpus`; `eval::model_without`): what a stranger's capture stores. `--shipped`
//! captures with the shipped weights, as rows measured before this was so were.
//!
//! **What is run.** Each repository of the corpus (one person or team, from `SOURCES.json` beside
//! the labels, else the file name's `owner__repo__` prefix) gets a store of its own, as one user
//! would have. Its sessions are captured in the order they started, as the hooks would: a
//! PreCompact capture of the transcript as it stood before each compaction, then the SessionEnd
//! capture of the whole file (with the summary). The store is then read as written: signals, with
//! their recurrence records counted as sightings.
//!
//! **How a stored signal counts.** Summaries are left out (one per session, a record of it, not a
//! candidate lesson). A stored signal is *useful* when
//! * it is a failure of category `tool-failure` whose quoted error (its content after
//!   `<tool> failed: `, without a trailing ``(on `…`)``) holds a word of failure from
//!   [`ERROR_WORDS`], is not a protocol message of Claude Code's tools from [`PROTOCOL`], and is
//!   more than an exit code. The check is this file's own, fixed, and applied the same to every
//!   revision; a failing test run counts as useful here (it has an error line), which is generous
//!   to a capture that stores them;
//! * or it is any other signal whose `source.line` is a prompt labelled a learning moment
//!   (correction, convention, preference or remember) in the labels.
//!
//! Refused tool calls (category `tool-rejection`) point at a tool result, which the labels do not
//! cover: they count as not useful, and are reported on their own line.

use std::collections::{BTreeMap, HashMap, HashSet};
use std::fs;
use std::io::{BufRead, BufReader, Write};
use std::path::{Path, PathBuf};
use std::process::ExitCode;

use serde_json::Value;

use reflect_app::capture::{capture, Request};
use reflect_base::paths::Paths;
use reflect_detect::model::Model;
use reflect_lab::eval;

/// Words of failure (lowercased) a quoted error must hold to count as an error line.
const ERROR_WORDS: &[&str] = &[
    "error",
    "err!",
    "fatal",
    "fail",
    "exception",
    "traceback",
    "panic",
    "denied",
    "not found",
    "no such",
    "cannot",
    "can't",
    "could not",
    "couldn't",
    "unable",
    "invalid",
    "unknown",
    "missing",
    "does not exist",
    "doesn't exist",
    "not recognized",
    "refused",
    "timed out",
    "no module",
    "not allowed",
    "forbidden",
    "unauthorized",
    "conflict",
    "undefined",
    "requires",
    "is required",
    "erro",
    "错误",
    "失败",
    "ошибк",
];

/// Protocol messages of Claude Code's tools (lowercased): never an error line of the work.
const PROTOCOL: &[&str] = &[
    "file has not been read yet",
    "string to replace not found",
    "string not found in file",
    "matches of the string to replace",
    "no changes to make",
    "file has been modified since read",
    "file has been unexpectedly modified",
    "file does not exist",
    "directory does not exist",
    "path does not exist",
    "exceeds maximum allowed",
    "inputvalidationerror",
    "sibling tool call errored",
    "doesn't want to",
    "eisdir",
    "interrupted by user",
    "warmup",
];

fn main() -> ExitCode {
    let mut verbose = false;
    let mut shipped = false;
    let mut root = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../../shared/corpus");
    let mut args = Vec::new();
    let mut argv = std::env::args().skip(1);
    while let Some(arg) = argv.next() {
        match arg.as_str() {
            "--corpus" => match argv.next() {
                Some(dir) => root = PathBuf::from(dir),
                None => {
                    eprintln!("store_quality: --corpus needs a directory");
                    return ExitCode::from(2);
                }
            },
            "-v" | "--verbose" => verbose = true,
            "--shipped" => shipped = true,
            "-h" | "--help" => {
                println!(
                    "usage: store_quality [--verbose] [--shipped] [--corpus ROOT] [LABELS [TRANSCRIPTS]]"
                );
                return ExitCode::SUCCESS;
            }
            _ => args.push(PathBuf::from(arg)),
        }
    }
    let corpus = root.join("train");
    let labels = args
        .first()
        .cloned()
        .unwrap_or_else(|| corpus.join("labels.jsonl"));
    let transcripts = args.get(1).cloned().unwrap_or_else(|| {
        labels
            .parent()
            .map(|p| p.join("transcripts"))
            .unwrap_or_default()
    });
    let held_out = match shipped {
        true => None,
        false => match eval::load(&root) {
            Ok(prompts) => Some(prompts),
            Err(e) => {
                eprintln!("store_quality: {}: {e}", root.display());
                return ExitCode::from(1);
            }
        },
    };
    match run(&labels, &transcripts, verbose, held_out.as_deref()) {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("store_quality: {e}");
            ExitCode::from(1)
        }
    }
}

/// One stored signal, as the count needs it.
struct Stored {
    file: String,
    kind: String,
    category: String,
    content: String,
    /// What fixed a failure, when one was recorded.
    resolution: String,
    useful: bool,
    seen: u64,
}

/// `held_out`: every labelled prompt, to train each repository's model without it; `None`
/// captures with the shipped model.
fn run(
    labels: &Path,
    transcripts: &Path,
    verbose: bool,
    held_out: Option<&[eval::Prompt]>,
) -> Result<(), String> {
    let moments = learning_moments(labels)?;
    let repos = repositories(labels, transcripts)?;
    let mut stored: Vec<Stored> = Vec::new();
    let mut sessions = 0usize;
    for (repo, files) in &repos {
        sessions += files.len();
        let model = held_out.map(|prompts| -> &'static Model {
            let names: Vec<&str> = files
                .iter()
                .filter_map(|f| f.file_name().and_then(|n| n.to_str()))
                .collect();
            Box::leak(Box::new(eval::model_without(prompts, &names).0))
        });
        stored.extend(capture_repository(repo, files, &moments, model)?);
    }

    let mut by_kind: BTreeMap<String, (usize, usize)> = BTreeMap::new();
    for s in &stored {
        let kind = match s.category.as_str() {
            "" => s.kind.clone(),
            c => format!("{} ({c})", s.kind),
        };
        let slot = by_kind.entry(kind).or_default();
        slot.0 += 1;
        slot.1 += usize::from(s.useful);
    }
    println!("{:<40} {:>7} {:>7}", "kind (category)", "stored", "useful");
    for (kind, (n, useful)) in &by_kind {
        println!("{kind:<40} {n:>7} {useful:>7}");
    }
    let total = stored.len();
    let useful = stored.iter().filter(|s| s.useful).count();
    let mut per_session: HashMap<&str, (usize, usize)> = HashMap::new();
    for s in &stored {
        let slot = per_session.entry(&s.file).or_default();
        slot.0 += 1;
        slot.1 += usize::from(s.useful);
    }
    let shares: Vec<f64> = per_session
        .values()
        .map(|(n, u)| *u as f64 / *n as f64)
        .collect();
    let mean_share = shares.iter().sum::<f64>() / shares.len().max(1) as f64;
    let sightings: u64 = stored.iter().map(|s| s.seen).sum();
    println!(
        "\n{sessions} sessions in {} repositories; {total} signals stored (summaries aside), {sightings} sightings",
        repos.len()
    );
    println!(
        "useful: {useful} of {total} = {:.1}%  |  per session: {:.2} stored, {:.2} useful  |  mean share over the {} sessions that stored something: {:.1}%",
        100.0 * useful as f64 / total.max(1) as f64,
        total as f64 / sessions.max(1) as f64,
        useful as f64 / sessions.max(1) as f64,
        shares.len(),
        100.0 * mean_share
    );
    if verbose {
        for s in &stored {
            println!(
                "{} {:<11} {:<18} x{} {}",
                if s.useful { "+" } else { "-" },
                s.kind,
                s.category,
                s.seen,
                one_line(&s.content, 160)
            );
            if !s.resolution.is_empty() {
                println!("      → {}", one_line(&s.resolution, 200));
            }
        }
    }
    Ok(())
}

/// `(file, line)` of every prompt labelled a learning moment.
fn learning_moments(labels: &Path) -> Result<HashSet<(String, u64)>, String> {
    let text = fs::read_to_string(labels).map_err(|e| format!("{}: {e}", labels.display()))?;
    let mut out = HashSet::new();
    for line in text.lines().filter(|l| !l.trim().is_empty()) {
        let v: Value = serde_json::from_str(line).map_err(|e| format!("labels: {e}"))?;
        if v["label"].as_str().is_some_and(|l| l != "none") {
            if let (Some(file), Some(at)) = (v["file"].as_str(), v["line"].as_u64()) {
                out.insert((file.to_string(), at));
            }
        }
    }
    Ok(out)
}

/// The transcripts by repository, each repository's in the order its sessions started.
fn repositories(
    labels: &Path,
    transcripts: &Path,
) -> Result<BTreeMap<String, Vec<PathBuf>>, String> {
    let mut repo_of: HashMap<String, String> = HashMap::new();
    let sources = labels.with_file_name("SOURCES.json");
    if let Ok(text) = fs::read_to_string(&sources) {
        let list: Vec<Value> = serde_json::from_str(&text).map_err(|e| format!("SOURCES: {e}"))?;
        for v in list {
            if let (Some(f), Some(r)) = (v["file"].as_str(), v["repo"].as_str()) {
                repo_of.insert(f.to_string(), r.to_string());
            }
        }
    }
    let mut repos: BTreeMap<String, Vec<(String, PathBuf)>> = BTreeMap::new();
    let entries =
        fs::read_dir(transcripts).map_err(|e| format!("{}: {e}", transcripts.display()))?;
    for entry in entries.flatten() {
        let path = entry.path();
        if path.extension().is_none_or(|x| x != "jsonl") {
            continue;
        }
        let name = path.file_name().unwrap().to_string_lossy().into_owned();
        let repo = repo_of.get(&name).cloned().unwrap_or_else(|| {
            let mut parts = name.splitn(3, "__");
            format!(
                "{}/{}",
                parts.next().unwrap_or(""),
                parts.next().unwrap_or("")
            )
        });
        let started = first_timestamp(&path);
        repos.entry(repo).or_default().push((started, path));
    }
    Ok(repos
        .into_iter()
        .map(|(repo, mut files)| {
            files.sort();
            (repo, files.into_iter().map(|(_, p)| p).collect())
        })
        .collect())
}

/// The first `timestamp` in a transcript ("" when none).
fn first_timestamp(path: &Path) -> String {
    let Ok(file) = fs::File::open(path) else {
        return String::new();
    };
    for line in BufReader::new(file).lines().map_while(Result::ok) {
        if let Ok(v) = serde_json::from_str::<Value>(&line) {
            if let Some(t) = v["timestamp"].as_str() {
                return t.to_string();
            }
        }
    }
    String::new()
}

/// Capture one repository's sessions into a store of its own and read back what it holds.
fn capture_repository(
    repo: &str,
    files: &[PathBuf],
    moments: &HashSet<(String, u64)>,
    model: Option<&'static Model>,
) -> Result<Vec<Stored>, String> {
    let dir = tempfile::tempdir().map_err(|e| e.to_string())?;
    let paths = Paths::new(dir.path().join("config"), dir.path().join("data"));
    let project = format!("/corpus/{repo}");
    let mut session_file: HashMap<String, String> = HashMap::new();
    for file in files {
        let name = file.file_name().unwrap().to_string_lossy().into_owned();
        let session = file.file_stem().unwrap().to_string_lossy().into_owned();
        session_file.insert(session.clone(), name);
        let text = fs::read(file).map_err(|e| format!("{}: {e}", file.display()))?;
        // The transcript as it grows: PreCompact fires before each compaction is written.
        let growing = dir.path().join(format!("{session}.jsonl"));
        let mut out = fs::File::create(&growing).map_err(|e| e.to_string())?;
        let mut written = 0;
        let mut at = 0;
        for line in text.split_inclusive(|&b| b == b'\n') {
            if is_compact_boundary(line) && at > written {
                out.write_all(&text[written..at])
                    .map_err(|e| e.to_string())?;
                written = at;
                run_capture(&paths, &growing, &session, &project, false, model)?;
            }
            at += line.len();
        }
        out.write_all(&text[written..]).map_err(|e| e.to_string())?;
        drop(out);
        run_capture(&paths, &growing, &session, &project, true, model)?;
    }
    let store = fs::read_to_string(paths.data_dir.join("signals.jsonl")).unwrap_or_default();
    let mut sightings: HashMap<String, u64> = HashMap::new();
    let mut resolutions: HashMap<String, String> = HashMap::new();
    let mut signals = Vec::new();
    for line in store.lines() {
        let Ok(v) = serde_json::from_str::<Value>(line) else {
            continue;
        };
        if let Some(id) = v["recur"].as_str() {
            if let Some(r) = v["resolution"].as_str() {
                resolutions.insert(id.to_string(), r.to_string());
            }
            if v["completes"].as_bool() == Some(true) {
                continue;
            }
            *sightings.entry(id.to_string()).or_default() += 1;
        } else if v["type"].is_string() {
            signals.push(v);
        }
    }
    let mut out = Vec::new();
    for v in signals {
        let kind = v["type"].as_str().unwrap_or_default().to_string();
        if kind == "summary" {
            continue;
        }
        let session = v["session_id"].as_str().unwrap_or_default();
        let file = session_file.get(session).cloned().unwrap_or_default();
        let category = v["category"].as_str().unwrap_or_default().to_string();
        let content = v["content"].as_str().unwrap_or_default().to_string();
        let line = v["source"]["line"].as_u64().unwrap_or(0);
        let useful = if kind == "failure" {
            category == "tool-failure" && quotes_an_error(&content)
        } else {
            moments.contains(&(file.clone(), line))
        };
        let id = v["id"].as_str().unwrap_or_default();
        let seen =
            v["meta"]["seen"].as_u64().unwrap_or(1) + sightings.get(id).copied().unwrap_or(0);
        let resolution = resolutions
            .get(id)
            .map(String::as_str)
            .or(v["resolution"].as_str())
            .unwrap_or_default()
            .to_string();
        out.push(Stored {
            file,
            kind,
            category,
            content,
            resolution,
            useful,
            seen,
        });
    }
    Ok(out)
}

fn run_capture(
    paths: &Paths,
    transcript: &Path,
    session: &str,
    project: &str,
    end: bool,
    model: Option<&'static Model>,
) -> Result<(), String> {
    let req = Request {
        transcript: transcript.to_path_buf(),
        session: Some(session.to_string()),
        project: Some(project.to_string()),
        hook: if end { "SessionEnd" } else { "PreCompact" }.into(),
        summary: end,
        model,
        ..Request::default()
    };
    capture(paths, &req)
        .map(|_| ())
        .map_err(|e| format!("{}: {e}", transcript.display()))
}

fn is_compact_boundary(line: &[u8]) -> bool {
    let find = |needle: &[u8]| line.windows(needle.len()).any(|w| w == needle);
    find(b"\"compact_boundary\"") && find(b"\"subtype\"")
}

/// Whether a failure's content quotes an error line (see the module docs).
fn quotes_an_error(content: &str) -> bool {
    let quoted = content
        .split_once(" failed: ")
        .map_or(content, |(_, rest)| rest);
    let quoted = match quoted.rfind(" (on `") {
        Some(at) if quoted.ends_with("`)") => &quoted[..at],
        _ => quoted,
    };
    let lower = quoted.to_lowercase();
    let bare_exit = lower
        .strip_prefix("exit code ")
        .is_some_and(|rest| rest.trim().bytes().all(|b| b.is_ascii_digit()));
    !bare_exit
        && ERROR_WORDS.iter().any(|w| lower.contains(w))
        && !PROTOCOL.iter().any(|p| lower.contains(p))
}

fn one_line(text: &str, max: usize) -> String {
    let flat = text.split_whitespace().collect::<Vec<_>>().join(" ");
    flat.chars().take(max).collect()
}
