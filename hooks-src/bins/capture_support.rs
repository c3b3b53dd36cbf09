//! The shared `main` of the two transcript-mining hooks: hook mode (payload on stdin, exit 0 on
//! every path, silent) or offline mode (`--transcript FILE`, a CLI with exit codes 0/1/2).

use std::ffi::OsString;
use std::io::Write;
use std::path::PathBuf;
use std::process::ExitCode;

use crate::hook;
use reflect_app::capture::{self, Request};
use reflect_app::render::{self, ListFormat};
use reflect_base::error::{Error, Result};
use reflect_base::paths::Paths;

/// How a dry run prints what it finds.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Format {
    /// One JSON signal a line, as the store would hold it.
    Jsonl,
    /// One line a signal for a person: type, confidence, line, content.
    Table,
}

/// The `main` of a transcript-mining hook: `hook_event` names the hook event it runs for and
/// `summary` adds the session summary.
pub fn main(program: &'static str, help: &str, hook_event: &str, summary: bool) -> ExitCode {
    hook::install_panic_guard(program);
    if hook::answer_help_or_version(program, help) {
        return ExitCode::SUCCESS;
    }
    let args: Vec<_> = std::env::args_os().skip(1).collect();
    // Offline mode needs flags. Anything else is hook mode, which must exit 0: a registration
    // that passes words (`capture-signals PreCompact`) must not turn into a usage error that
    // blocks compaction.
    if !args.iter().any(|a| a.to_string_lossy().starts_with('-')) {
        if !args.is_empty() {
            hook::log(
                program,
                &format!("ignoring arguments {args:?} in hook mode"),
            );
        }
        run_hook(program, hook_event, summary);
        return ExitCode::SUCCESS;
    }
    let (code, message) = match offline_request(&args, summary) {
        Err(e) => (2, e.to_string()),
        Ok((req, format)) => match run_offline(&req, format) {
            Ok(()) => return ExitCode::SUCCESS,
            Err(e) => (if e.is_usage() { 2 } else { 1 }, e.to_string()),
        },
    };
    eprintln!("{program}: {message}");
    ExitCode::from(code)
}

fn run_hook(program: &str, hook_event: &str, summary: bool) {
    let Some(payload) = hook::read_payload(program) else {
        return;
    };
    if hook::plugin_uninstalled(program) {
        return;
    }
    let outcome =
        capture::request_from_payload(&payload, hook_event, summary).and_then(|req| match req {
            Some(req) => Paths::from_env()
                .and_then(|p| capture::capture(&p, &req))
                .map(Some),
            None => Ok(None),
        });
    let transcript = payload.transcript_path.as_deref();
    match outcome {
        Ok(Some(done)) => {
            for w in done.warnings {
                hook::log_about_transcript(program, transcript, &w);
            }
        }
        Ok(None) => {}
        Err(e) => hook::log_about_transcript(program, transcript, &e.to_string()),
    }
}

fn run_offline(req: &Request, format: Format) -> Result<()> {
    let paths = Paths::from_env()?;
    let done = capture::capture(&paths, req)?;
    for w in &done.warnings {
        eprintln!("warning: {w}");
    }
    if req.dry_run {
        let mut out = std::io::stdout().lock();
        // A closed pipe (`| head`) is not an error.
        let signals: Vec<_> = done.signals.iter().collect();
        let text = match format {
            Format::Jsonl => render::list(&signals, ListFormat::Jsonl),
            Format::Table => render::capture_table(&signals),
        };
        let _ = out.write_all(text.as_bytes()).and_then(|()| out.flush());
    } else {
        eprintln!(
            "stored {} new signal(s), {} recurrence(s), {} already stored; read {} new line(s) of {}",
            done.stored.written.len(),
            done.stored.recurred.len(),
            done.stored.duplicates,
            done.lines_read,
            req.transcript.display()
        );
        if done.stored.spooled > 0 {
            eprintln!(
                "the store was busy: {} signal(s) wait in the spool for the next write",
                done.stored.spooled
            );
        }
    }
    Ok(())
}

/// The offline flags: `--transcript FILE [--session ID] [--project DIR] [--dry-run [--format
/// jsonl|table]]` (`--flag=value` too). A bad flag is a usage error. The project defaults to the
/// current dir.
fn offline_request(args: &[OsString], summary: bool) -> Result<(Request, Format)> {
    let mut req = Request {
        hook: "cli".into(),
        summary,
        ..Request::default()
    };
    let mut transcript = None;
    let mut project = None;
    let mut format = Format::Jsonl;
    let mut it = args.iter();
    while let Some(arg) = it.next() {
        let text = arg.to_string_lossy();
        let (flag, inline) = match text.split_once('=') {
            Some((f, v)) if f.starts_with("--") => (f.to_string(), Some(OsString::from(v))),
            _ => (text.to_string(), None),
        };
        let mut value = |name: &str| -> Result<OsString> {
            inline
                .clone()
                .or_else(|| it.next().cloned())
                .filter(|v| !v.is_empty())
                .ok_or_else(|| Error::usage(format!("{name} needs a value")))
        };
        match flag.as_str() {
            "--transcript" => transcript = Some(PathBuf::from(value("--transcript")?)),
            "--session" => req.session = Some(value("--session")?.to_string_lossy().into_owned()),
            "--project" => project = Some(PathBuf::from(value("--project")?)),
            "--dry-run" if inline.is_none() => req.dry_run = true,
            "--format" => {
                format = match value("--format")?.to_str() {
                    Some("jsonl") => Format::Jsonl,
                    Some("table") => Format::Table,
                    _ => return Err(Error::usage("--format is jsonl or table")),
                }
            }
            _ => {
                // Named only when it reads as a flag: a value typed by mistake is not shown.
                let shaped = flag.len() <= 32
                    && flag.starts_with("--")
                    && flag[2..]
                        .bytes()
                        .all(|b| b.is_ascii_lowercase() || b == b'-');
                return Err(Error::usage(if shaped {
                    format!("unknown flag {flag} (see --help)")
                } else {
                    "unknown flag or extra argument (see --help)".to_string()
                }));
            }
        }
    }
    req.transcript = transcript.ok_or_else(|| Error::usage("--transcript FILE is required"))?;
    let project = match project {
        Some(p) => std::path::absolute(&p).unwrap_or(p),
        None => std::env::current_dir()
            .map_err(|e| Error::msg(format!("cannot read the current directory: {e}")))?,
    };
    req.project = Some(project.display().to_string());
    if format != Format::Jsonl && !req.dry_run {
        return Err(Error::usage("--format applies to --dry-run"));
    }
    Ok((req, format))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn args(list: &[&str]) -> Vec<OsString> {
        list.iter().map(OsString::from).collect()
    }

    #[test]
    fn offline_flags() {
        let (r, format) = offline_request(
            &args(&[
                "--transcript",
                "t.jsonl",
                "--session=s1",
                "--project",
                "/p",
                "--dry-run",
            ]),
            false,
        )
        .unwrap();
        assert_eq!(r.transcript, PathBuf::from("t.jsonl"));
        assert_eq!(r.session.as_deref(), Some("s1"));
        assert_eq!(r.project.as_deref(), Some("/p"));
        assert!(r.dry_run);
        assert_eq!(r.hook, "cli");
        assert_eq!(format, Format::Jsonl);
        let table = ["--transcript", "t", "--dry-run", "--format=table"];
        assert_eq!(
            offline_request(&args(&table), false).unwrap().1,
            Format::Table
        );

        for bad in [
            &["--dry-run"][..],
            &["--transcript"],
            &["--transcript", "t", "--bogus"],
            &["--transcript", "t", "--dry-run=yes"],
            &["--transcript", "t", "extra"],
            &["--transcript="],
            &["--transcript", "t", "--dry-run", "--format", "csv"],
            &["--transcript", "t", "--format", "table"],
        ] {
            let e = offline_request(&args(bad), false).unwrap_err();
            assert!(e.is_usage(), "{bad:?}: {e}");
        }
    }
}
