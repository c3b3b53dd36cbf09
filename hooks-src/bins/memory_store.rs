//! memory-store: the signal store's CLI. Every subcommand wires its arguments to reflect-core.

#[path = "cli_support.rs"]
mod cli_support;

use std::io::Read;
use std::path::PathBuf;
use std::process::ExitCode;

use clap::{Parser, Subcommand, ValueEnum};
use reflect_core::error::{Error, Result};
use reflect_core::fsutil::LockWait;
use reflect_core::paths::Paths;
use reflect_core::query::{self, Filter};
use reflect_core::render::{self, ListFormat};
use reflect_core::signal::{Signal, Status};
use reflect_core::store::{self, Store};
use reflect_core::{doctor, forget, install, migrate, promote, settings};
use serde_json::{Map, Value};

use cli_support::{emit, emit_bytes, finish};

const PROGRAM: &str = "memory-store";

#[derive(Parser)]
#[command(
    name = PROGRAM,
    version,
    about = "Read and manage reflect's learning signals",
    long_about = "Read and manage reflect's learning signals.\n\n\
        Signals live in <data dir>/signals.jsonl; the data dir is $REFLECT_HOME, else \
        $CLAUDE_CONFIG_DIR/reflections, else ~/.claude/reflections.\n\
        Exit codes: 0 success, 1 operational error, 2 usage error."
)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Clone, Copy, ValueEnum)]
enum QueryFormat {
    Jsonl,
    Json,
    Table,
    Index,
}

#[derive(Clone, Copy, ValueEnum)]
enum StatsFormat {
    Text,
    Json,
    Statusline,
}

#[derive(Clone, Copy, ValueEnum)]
enum ExportFormat {
    Jsonl,
    Csv,
}

#[derive(Subcommand)]
enum Command {
    /// Add signals: one JSON object, or `-` to read objects (JSON lines or an array) from stdin.
    /// Missing fields are filled, secrets redacted, repeats counted instead of stored twice; the
    /// store assigns the id. Prints the id of each stored (or recurring) signal.
    Append {
        /// A JSON object such as '{"type":"correction","content":"Use pnpm, not npm"}', or -
        json: String,
    },
    /// Print one signal (from the store, else the archive) as JSON.
    Get { id: String },
    /// List signals matching every given filter (oldest first).
    Query {
        /// captured, analyzed, promoted, dismissed or archived (repeatable: any of them)
        #[arg(long = "status", value_name = "S")]
        statuses: Vec<String>,
        /// Signal type, e.g. correction (repeatable: any of them)
        #[arg(long = "type", value_name = "T")]
        kinds: Vec<String>,
        #[arg(long, value_name = "SID")]
        session: Option<String>,
        /// Signals captured in DIR or below it
        #[arg(long, value_name = "DIR")]
        project: Option<PathBuf>,
        /// Signals carrying this tag (repeatable: any of them)
        #[arg(long = "tag", value_name = "T")]
        tags: Vec<String>,
        /// Newer than a span (30m, 12h, 7d, 2w) or a date (2026-11-01)
        #[arg(long)]
        since: Option<String>,
        /// Keep only the N newest matches
        #[arg(long, value_name = "N")]
        limit: Option<usize>,
        /// index: one short line per signal (id, type, confidence, first 80 chars)
        #[arg(long, value_enum, default_value = "jsonl")]
        format: QueryFormat,
    },
    /// Change a signal's status, confidence, category or tags.
    Update {
        id: String,
        #[arg(long)]
        status: Option<String>,
        /// 1 low, 2 medium, 3 high, 4 verified by the user
        #[arg(long, value_parser = clap::value_parser!(u8).range(1..=4))]
        confidence: Option<u8>,
        #[arg(long)]
        category: Option<String>,
        /// Add a tag (repeatable)
        #[arg(long = "tag", value_name = "T")]
        tags: Vec<String>,
    },
    /// Write an approved learning into FILE under "## NAME" (file backed up first, created from a
    /// minimal template if missing), mark the signal promoted and add it to the learnings index.
    Promote {
        id: String,
        #[arg(long, value_name = "FILE")]
        target: PathBuf,
        #[arg(long, value_name = "TEXT")]
        content: String,
        /// Section heading (default from the type: Conventions, Preferences, Commands, Gotchas…)
        #[arg(long, value_name = "NAME")]
        section: Option<String>,
    },
    /// Mark signals dismissed (all ids must exist; otherwise nothing changes).
    Dismiss {
        #[arg(required = true)]
        ids: Vec<String>,
    },
    /// Delete signals for good: from the store, the archive, the learnings index and reflect's backups.
    Forget {
        ids: Vec<String>,
        #[arg(long, value_name = "SID")]
        session: Option<String>,
        #[arg(long, value_name = "DIR")]
        project: Option<PathBuf>,
    },
    /// Move signals to signals.archive.jsonl (default: promoted and dismissed ones).
    Archive {
        /// Only signals older than N days
        #[arg(long, value_name = "N")]
        days: Option<u32>,
        #[arg(long = "status", value_name = "S")]
        statuses: Vec<String>,
    },
    /// Apply the TTL rules: drop captured signals older than 14 days (never verified ones), flag
    /// analyzed ones older than 30 days for review, archive promoted and dismissed ones.
    Prune,
    /// Counts by status, type and confidence. statusline: "reflect: N pending", or nothing.
    Stats {
        #[arg(long, value_enum, default_value = "text")]
        format: StatsFormat,
    },
    /// Print every signal of the store (redacted again) as JSON lines or CSV.
    Export {
        #[arg(long, value_enum, default_value = "jsonl")]
        format: ExportFormat,
        /// Include the archive
        #[arg(long)]
        archive: bool,
    },
    /// Convert v2 lines to schema v1 in place and remove v1's `## Self-Improvement` section from
    /// <config dir>/CLAUDE.md (idempotent, backed up); replace legacy hook entries in settings.json
    /// with ours when the binaries are installed in <data dir>/bin (else say to run reflect-toggle on).
    Migrate,
    /// Check the install, the hooks and the store; say what is wrong and how to fix it.
    Doctor,
}

fn main() -> ExitCode {
    let cli = Cli::parse();
    finish(PROGRAM, run(cli.command))
}

fn waiting() {
    eprintln!("{PROGRAM}: waiting for the store lock (another reflect process is writing)…");
}

fn run(command: Command) -> Result<()> {
    let paths = Paths::from_env()?;
    let store = Store::new(&paths, LockWait::CLI);
    match command {
        Command::Append { json } => append(&store, &json),
        Command::Get { id } => {
            let sig = store.find(&id)?.ok_or_else(|| not_found(&paths, &id))?;
            emit(&(serde_json::to_string_pretty(&sig).expect("serializes") + "\n"));
            Ok(())
        }
        Command::Query {
            statuses,
            kinds,
            session,
            project,
            tags,
            since,
            limit,
            format,
        } => {
            let filter = Filter {
                statuses: statuses
                    .iter()
                    .map(|s| query::parse_status(s))
                    .collect::<Result<_>>()?,
                kinds: kinds
                    .iter()
                    .map(|k| query::parse_kind(k))
                    .collect::<Result<_>>()?,
                session,
                project: project.map(|p| query::absolute_project(&p)),
                tags,
                since: since.as_deref().map(query::parse_since_now).transpose()?,
            };
            let bytes = store.view_bytes()?;
            let mut selection = query::select(&bytes, &filter);
            if let Some(n) = limit {
                selection.keep_newest(n);
            }
            let format = match format {
                QueryFormat::Jsonl => {
                    emit_bytes(&selection.jsonl());
                    return Ok(());
                }
                QueryFormat::Json => ListFormat::Json,
                QueryFormat::Table => ListFormat::Table,
                QueryFormat::Index => ListFormat::Index,
            };
            let signals = selection.into_signals();
            emit(&render::list(&signals.iter().collect::<Vec<_>>(), format));
            Ok(())
        }
        Command::Update {
            id,
            status,
            confidence,
            category,
            tags,
        } => {
            if status.is_none() && confidence.is_none() && category.is_none() && tags.is_empty() {
                return Err(Error::usage(
                    "nothing to update: give --status, --confidence, --category or --tag",
                ));
            }
            let status = status.map(|s| query::parse_status(&s)).transpose()?;
            store.rewrite(&mut waiting, |snap| {
                let sig = snap.get_mut(&id).ok_or_else(|| not_found(&paths, &id))?;
                if let Some(s) = status {
                    sig.status = s;
                }
                if let Some(c) = confidence {
                    sig.confidence = c;
                }
                if let Some(c) = category {
                    sig.category = Some(c);
                }
                for t in tags {
                    if !sig.tags.contains(&t) {
                        sig.tags.push(t);
                    }
                }
                reflect_core::redact::redact_signal(sig);
                Ok(((), true))
            })?;
            emit(&format!("updated {id}\n"));
            Ok(())
        }
        Command::Promote {
            id,
            target,
            content,
            section,
        } => {
            let target = std::path::absolute(&target).unwrap_or(target);
            let done = promote::promote(&store, &id, &target, &content, section.as_deref())?;
            let what = if done.added { "added to" } else { "already in" };
            let created = if done.created { " (created)" } else { "" };
            let backup = done
                .backup
                .map(|b| format!("; backup {}", b.display()))
                .unwrap_or_default();
            emit(&format!(
                "promoted {id}: {what} {}{created} under ## {}{backup}\n",
                done.target.display(),
                done.section
            ));
            Ok(())
        }
        Command::Dismiss { ids } => {
            store.rewrite(&mut waiting, |snap| {
                let missing: Vec<&str> = ids
                    .iter()
                    .filter(|id| snap.get(id).is_none())
                    .map(String::as_str)
                    .collect();
                if !missing.is_empty() {
                    return Err(Error::msg(format!(
                        "no signal {} in {}; nothing dismissed",
                        missing.join(", "),
                        paths.store().display()
                    )));
                }
                for id in &ids {
                    snap.get_mut(id).expect("checked above").status = Status::Dismissed;
                }
                Ok(((), true))
            })?;
            emit(&format!("dismissed {}\n", ids.join(" ")));
            Ok(())
        }
        Command::Forget {
            ids,
            session,
            project,
        } => {
            let selector = forget::Selector {
                ids,
                session,
                project: project.map(|p| query::absolute_project(&p)),
            };
            if selector.is_empty() {
                return Err(Error::usage(
                    "forget what? give signal ids, --session SID or --project DIR",
                ));
            }
            let r = forget::forget(&store, &selector)?;
            emit(&format!(
                "forgot {} signal(s): {} from the store, {} from the archive; {} learnings file(s) and {} backup(s) cleaned\n",
                r.from_store + r.from_archive,
                r.from_store,
                r.from_archive,
                r.learnings_files,
                r.backups_scrubbed
            ));
            if r.cursor_scrubbed {
                emit("the session's capture cursor no longer lists its files and tools\n");
            }
            Ok(())
        }
        Command::Archive { days, statuses } => {
            let statuses: Vec<Status> = if statuses.is_empty() {
                vec![Status::Promoted, Status::Dismissed]
            } else {
                statuses
                    .iter()
                    .map(|s| query::parse_status(s))
                    .collect::<Result<_>>()?
            };
            let moved = store.rewrite(&mut waiting, |snap| {
                let n = store::archive_where(snap, &statuses, days);
                Ok((n, n > 0))
            })?;
            emit(&format!(
                "archived {moved} signal(s) to {}\n",
                paths.archive().display()
            ));
            Ok(())
        }
        Command::Prune => {
            let (pruned, flagged, archived) = store.rewrite(&mut waiting, |snap| {
                let counts = store::apply_ttl(snap, store::now());
                Ok((counts, counts != (0, 0, 0)))
            })?;
            emit(&format!(
                "pruned {pruned} unreviewed signal(s) older than {} days; flagged {flagged} for review; archived {archived}\n",
                store::CAPTURED_TTL_DAYS
            ));
            Ok(())
        }
        Command::Stats { format } => {
            let stats = query::stats(&store.view_bytes()?);
            emit(&match format {
                StatsFormat::Text => stats.text(),
                StatsFormat::Json => {
                    serde_json::to_string_pretty(&stats).expect("serializes") + "\n"
                }
                StatsFormat::Statusline => stats.statusline(),
            });
            Ok(())
        }
        Command::Export { format, archive } => {
            let mut all: Vec<Signal> = store.load()?.signals().cloned().collect();
            if archive {
                all.extend(store.load_archive()?.signals().cloned());
            }
            for s in &mut all {
                reflect_core::redact::redact_signal(s);
            }
            let refs: Vec<&Signal> = all.iter().collect();
            let format = match format {
                ExportFormat::Jsonl => ListFormat::Jsonl,
                ExportFormat::Csv => ListFormat::Csv,
            };
            emit(&render::list(&refs, format));
            Ok(())
        }
        Command::Migrate => {
            let report = migrate::run(&paths, &store, false, &mut waiting)?;
            emit(&format!(
                "migrated {} v2 signal(s) to schema v1 in {}\n",
                report.store_converted,
                paths.store().display()
            ));
            if let Some(line) = report.claude_md {
                emit(&(line + "\n"));
            }
            let settings = paths.settings();
            let status = settings::status(&settings, &install::bin_dir(&paths)?)?;
            let legacy = status
                .hooks
                .iter()
                .flat_map(|h| &h.stale)
                .chain(&status.other)
                .filter(|f| f.recognized.legacy)
                .count();
            if legacy > 0 {
                let bin = install::bin_dir(&paths)?;
                if status.hooks.iter().all(|h| h.binary_ok) {
                    let outcome = settings::edit_file(
                        &settings,
                        &paths.backups(),
                        false,
                        &mut waiting,
                        |doc| doc.enable(&bin),
                    )?;
                    emit(&format!(
                        "replaced {legacy} legacy hook entr{} in {} with the current hooks{}\n",
                        if legacy == 1 { "y" } else { "ies" },
                        settings.display(),
                        outcome
                            .backup
                            .map(|b| format!(" (backup: {})", b.display()))
                            .unwrap_or_default()
                    ));
                } else {
                    // Registering ours needs the installed binaries, which only reflect-toggle copies.
                    emit(&format!(
                        "{legacy} legacy hook entr{} in {}: run `reflect-toggle on` to replace {} with the current hooks\n",
                        if legacy == 1 { "y" } else { "ies" },
                        settings.display(),
                        if legacy == 1 { "it" } else { "them" }
                    ));
                }
            }
            Ok(())
        }
        Command::Doctor => {
            let report = doctor::run(&paths);
            emit(&report.text());
            if report.failed() {
                Err(Error::msg("problems found (see above)"))
            } else {
                Ok(())
            }
        }
    }
}

fn not_found(paths: &Paths, id: &str) -> Error {
    Error::msg(format!("no signal {id} in {}", paths.store().display()))
}

/// Parse `append`'s input: one object, an array of objects, or JSON lines.
fn parse_input(text: &str) -> Result<Vec<Map<String, Value>>> {
    let objects = match serde_json::from_str::<Value>(text) {
        Ok(Value::Object(m)) => vec![m],
        Ok(Value::Array(items)) => items
            .into_iter()
            .map(|v| match v {
                Value::Object(m) => Ok(m),
                _ => Err(Error::usage(
                    "append: every array element must be a JSON object",
                )),
            })
            .collect::<Result<_>>()?,
        Ok(_) => return Err(Error::usage("append: expected a JSON object")),
        Err(whole) => {
            let mut out = Vec::new();
            for (n, line) in text
                .lines()
                .enumerate()
                .filter(|(_, l)| !l.trim().is_empty())
            {
                match serde_json::from_str::<Value>(line) {
                    Ok(Value::Object(m)) => out.push(m),
                    Ok(_) => {
                        return Err(Error::usage(format!(
                            "append: line {} is not a JSON object",
                            n + 1
                        )))
                    }
                    Err(_) if out.is_empty() && n == 0 => {
                        return Err(Error::usage(format!("append: not JSON: {whole}")))
                    }
                    Err(e) => {
                        return Err(Error::usage(format!(
                            "append: line {} is not JSON: {e}",
                            n + 1
                        )))
                    }
                }
            }
            out
        }
    };
    if objects.is_empty() {
        return Err(Error::usage("append: no signal given"));
    }
    Ok(objects)
}

/// A signal from user input: validated, with defaults a person would expect.
fn to_signal(mut fields: Map<String, Value>) -> Result<Signal> {
    fields.insert("id".into(), Value::from(""));
    let kind = fields
        .get("type")
        .and_then(Value::as_str)
        .unwrap_or_default()
        .to_string();
    query::parse_kind(&kind).map_err(|_| {
        Error::usage(format!(
            "append: \"type\" must be one of: {}",
            reflect_core::signal::Kind::KNOWN.join(", ")
        ))
    })?;
    if let Some(status) = fields.get("status").and_then(Value::as_str) {
        query::parse_status(status)?;
    }
    if let Some(c) = fields.get("confidence") {
        if !c.as_u64().is_some_and(|c| (1..=4).contains(&c)) {
            return Err(Error::usage("append: \"confidence\" must be 1, 2, 3 or 4"));
        }
    }
    let mut sig: Signal = serde_json::from_value(Value::Object(fields))
        .map_err(|e| Error::usage(format!("append: {e}")))?;
    if sig.content.trim().is_empty() {
        return Err(Error::usage("append: \"content\" is empty"));
    }
    if sig.project.is_none() {
        sig.project = std::env::current_dir()
            .ok()
            .map(|d| d.display().to_string());
    }
    if sig.session_id.is_none() {
        sig.session_id = std::env::var("CLAUDE_CODE_SESSION_ID")
            .ok()
            .filter(|s| !s.is_empty());
    }
    if sig.source.hook.is_none() {
        sig.source.hook = Some("cli".into());
    }
    Ok(sig)
}

fn append(store: &Store, json: &str) -> Result<()> {
    let text = if json == "-" {
        let mut buf = String::new();
        std::io::stdin()
            .read_to_string(&mut buf)
            .map_err(|e| Error::msg(format!("cannot read stdin: {e}")))?;
        buf
    } else {
        json.to_string()
    };
    let batch = parse_input(&text)?
        .into_iter()
        .map(to_signal)
        .collect::<Result<Vec<_>>>()?;
    let outcome = store.append(batch)?;
    let mut out = String::new();
    for id in &outcome.written {
        out.push_str(id);
        out.push('\n');
    }
    for id in &outcome.recurred {
        out.push_str(id);
        out.push('\n');
        eprintln!("{PROGRAM}: {id} seen again: counted as a recurrence (meta.seen)");
    }
    if outcome.duplicates > 0 {
        eprintln!(
            "{PROGRAM}: {} already stored (same sighting), not added again",
            outcome.duplicates
        );
    }
    emit(&out);
    Ok(())
}
