//! Mining a transcript into the store: what `capture-signals` (PreCompact) and
//! `capture-session-summary` (SessionEnd) do, in hook mode and offline.
//!
//! One run: open the transcript (regular files only), take the session's cursor lock, re-read the
//! cursor, read the lines it has not seen ([`transcript::read`] stops before a torn last line),
//! feed them to the detectors and the session [`Tally`], hand the signals to
//! [`Store::append_or_spool`] (which redacts and dedups, or spools them when the store lock stays
//! busy), and only then move the cursor. A run that fails before the append leaves the cursor
//! where it was, so the next run retries those lines; a replay of lines already stored is caught
//! by the store's same-sighting dedup.
//!
//! **A transcript mined from the start again** (its cursor was lost, or unreadable) must not bring
//! back what the user already reviewed: the append's dedup only sees the captured signals of the
//! store's tail, not a signal dismissed or promoted, nor one moved to the archive. So a run with
//! no cursor first looks up what the store and the archive hold of this session (a literal search
//! for the session id picks the few lines worth parsing) and drops the signals mined from a line
//! or entry already held, or repeating one of the session's signals (a rewrite folds sightings
//! into their signal's count, so that is all that is left of them). A new session pays that
//! search once, on its first run.
//!
//! A dry run reads the cursor without the lock, writes nothing, and returns the signals as they
//! would be stored (redacted, with ids).

use std::collections::{HashMap, HashSet};
use std::io;
use std::path::PathBuf;

use serde_json::Value;

use crate::cursor::{self, Cursor};
use crate::hookio::Payload;
use crate::summary::{self, Tally};
use reflect_base::error::{Error, IoContext, Result};
use reflect_base::fsutil::{self, LockWait};
use reflect_base::paths::Paths;
use reflect_detect::model::Model;
use reflect_detect::Detector;
use reflect_store::signal::{self, Signal};
use reflect_store::store::{AppendOutcome, Sightings, Store};
use reflect_transcript::{self as transcript, EventKind, Position};

/// What to mine and how to label it.
#[derive(Debug, Clone, Default)]
pub struct Request {
    pub transcript: PathBuf,
    /// The session the cursor and the signals belong to (default: the transcript's file stem,
    /// which is the session id for transcripts Claude Code writes).
    pub session: Option<String>,
    /// The project (cwd) the signals belong to.
    pub project: Option<String>,
    /// `source.hook` of the signals: the hook event, or `cli` offline.
    pub hook: String,
    /// Also write the session's `summary` signal (SessionEnd).
    pub summary: bool,
    /// SessionEnd's `reason`, kept in the summary's meta.
    pub end_reason: Option<String>,
    pub dry_run: bool,
    /// The classifier prompts are weighed with, when not the shipped one: the lab's
    /// leave-one-repository-out capture passes one trained without the session's repository.
    pub model: Option<&'static Model>,
}

/// What a run did.
#[derive(Debug, Default)]
pub struct Outcome {
    /// The signals mined (a dry run: as they would be stored, redacted and with ids).
    pub signals: Vec<Signal>,
    /// What the store did with them (empty for a dry run).
    pub stored: AppendOutcome,
    /// Transcript lines read by this run.
    pub lines_read: u64,
    /// Problems that did not stop the run (an unreadable cursor…), for the error log.
    pub warnings: Vec<String>,
}

/// The signals and the cursor after reading the unseen part of a transcript.
struct Mined {
    signals: Vec<Signal>,
    cursor: Cursor,
    lines_read: u64,
}

impl Request {
    fn session_key(&self) -> String {
        self.session
            .clone()
            .filter(|s| !s.is_empty())
            .or_else(|| {
                self.transcript
                    .file_stem()
                    .map(|s| s.to_string_lossy().into_owned())
            })
            .filter(|s| !s.is_empty())
            .unwrap_or_else(|| "unknown".into())
    }
}

/// Mine `req.transcript` from the session's cursor and store (or, dry, return) the signals.
pub fn capture(paths: &Paths, req: &Request) -> Result<Outcome> {
    let mut file = fsutil::open_regular(&req.transcript)?.ok_or_else(|| {
        Error::io(
            "cannot read transcript",
            &req.transcript,
            io::ErrorKind::NotFound.into(),
        )
    })?;
    let session = req.session_key();
    let cursor_path = cursor::path(paths, &session);
    let mut warnings = Vec::new();
    let load_cursor = |warnings: &mut Vec<String>| match cursor::load_for(paths, &session) {
        Ok(c) => c.unwrap_or_default(),
        Err(e) => {
            warnings.push(format!("{e}; reading the transcript from the start"));
            Cursor::default()
        }
    };

    if req.dry_run {
        let saved = load_cursor(&mut warnings);
        let mined = mine(&mut file, saved, req, &session)?;
        return Ok(Outcome {
            signals: preview(mined.signals),
            stored: AppendOutcome::default(),
            lines_read: mined.lines_read,
            warnings,
        });
    }

    let outcome = cursor::with_session_lock(paths, &session, LockWait::HOOK, || {
        // Re-read under the lock: a run that held it before us has moved the cursor.
        let saved = load_cursor(&mut warnings);
        let mut mined = mine(&mut file, saved.clone(), req, &session)?;
        let store = Store::new(paths, LockWait::HOOK);
        // No cursor: a new session, or its cursor was lost. (A cursor that no longer fits its
        // file means another transcript, whose lines are all new.)
        if saved.offset == 0 && !mined.signals.is_empty() {
            let stored = Stored::of_session(&store, &session)?;
            mined.signals.retain(|s| !stored.holds(s));
        }
        let stored = store.append_or_spool(mined.signals.clone())?;
        if mined.cursor != saved {
            cursor::save(&cursor_path, &mined.cursor)?;
        }
        Ok(Outcome {
            signals: mined.signals,
            stored,
            lines_read: mined.lines_read,
            warnings: std::mem::take(&mut warnings),
        })
    })?;
    if req.summary {
        // Once per session end: the cursors of sessions long over go.
        cursor::prune_stale(paths, cursor::STALE_AFTER);
    }
    Ok(outcome)
}

/// Read what the cursor has not seen: detect, tally, label. The detectors also get the last turn
/// before the cursor again (bounded), so a correction right after the cursor still sees the
/// assistant action it corrects; only signals from unseen lines are kept.
fn mine(file: &mut std::fs::File, saved: Cursor, req: &Request, session: &str) -> Result<Mined> {
    let path = &req.transcript;
    // What the cursor records of the session besides the read position: where its transcript is
    // and whose it is (for `memory-store digest`), and how far /reflect has looked (its own).
    let transcript = std::path::absolute(path)
        .ok()
        .filter(|p| p.to_str().is_some())
        .or(saved.transcript.clone());
    let project = req.project.clone().or(saved.project.clone());
    let reviewed = saved.reviewed.clone();
    let Cursor {
        offset,
        line,
        tally,
        turn_line,
        prompts,
        ..
    } = saved.resume_for(file).ctx("cannot read transcript", path)?;
    let mut tally: Tally = tally;
    let mut detector = Detector::counting_after(line).with_copies(prompts.copies());
    if let Some(model) = req.model {
        detector = detector.with_model(model);
    }
    // The turn in progress began at its prompt, or with the session when none was read yet (a
    // session opened by a slash command).
    let start = cursor::line_start(file, Position { offset, line }, turn_line.unwrap_or(1))
        .ctx("cannot read transcript", path)?
        .unwrap_or(Position { offset, line });
    let mut last_turn = turn_line;
    let end = transcript::read(file, start, |event| {
        if matches!(event.kind, EventKind::UserText { .. }) {
            last_turn = Some(event.line);
        }
        if event.line > line {
            tally.observe(&event);
        }
        detector.feed_owned(event);
    })
    .ctx("cannot read transcript", path)?;

    tally.add(detector.take_counted());
    let prompts = detector
        .copies()
        .map(cursor::Prompts::of)
        .unwrap_or_default();
    // A PreCompact run leaves a failure still waiting for its resolution to the next run, which
    // re-reads its turn, when that run can (the turn began close enough before where it will
    // resume); the session's end, an offline run, or a turn too long ends it unresolved.
    let defer = req.hook == "PreCompact"
        && detector.waiting()
        && cursor::line_start(file, end, last_turn.unwrap_or(1))
            .ctx("cannot read transcript", path)?
            .is_some();
    let mut signals = detector.finish_after(line, defer);
    for s in &mut signals {
        s.session_id = Some(session.to_string());
        s.project = req.project.clone();
        s.source.hook = Some(req.hook.clone());
    }
    if req.summary && tally.summarized_at != Some(end.line) {
        if let Some(mut s) = summary::summary_signal(
            &tally,
            session,
            req.project.as_deref(),
            req.end_reason.as_deref(),
        ) {
            s.source.hook = Some(req.hook.clone());
            s.meta
                .insert("transcript_lines".into(), Value::from(end.line));
            signals.push(s);
            tally.summarized_at = Some(end.line);
        }
    }
    let fingerprint = if end.offset > 0 {
        cursor::fingerprint(file).ctx("cannot read transcript", path)?
    } else {
        None
    };
    Ok(Mined {
        signals,
        cursor: Cursor {
            offset: end.offset,
            line: end.line,
            fingerprint,
            tally,
            turn_line: last_turn,
            transcript,
            project,
            reviewed,
            prompts,
        },
        lines_read: end.line.saturating_sub(line),
    })
}

/// What the store and the archive hold of one session: the transcript lines and entries they
/// hold a sighting of (a signal, or a recurrence record, whatever its status), and the dedup keys
/// of its signals (a rewrite folds recurrence records into their signal's count, so a sighting
/// of a session's own signal may be known only by that).
#[derive(Default)]
struct Stored {
    lines: HashSet<u64>,
    uuids: HashSet<String>,
    keys: HashSet<String>,
}

impl Stored {
    fn of_session(store: &Store, session: &str) -> Result<Stored> {
        let mut stored = Stored::default();
        let sessions = HashSet::from([session]);
        reflect_store::store::sightings_of(store.paths(), &sessions, |_, source, key| {
            stored.lines.extend(source.line);
            stored.uuids.extend(source.uuid.clone());
            stored.keys.extend(key.map(str::to_string));
        })?;
        Ok(stored)
    }

    /// Whether `sig` was mined from a line or an entry already held, or repeats a signal of the
    /// session (a sighting the store counted already). A summary, which has no line, is never held.
    fn holds(&self, sig: &Signal) -> bool {
        let Some(line) = sig.source.line else {
            return false;
        };
        self.lines.contains(&line)
            || self.keys.contains(&sig.dedup_key())
            || sig
                .source
                .uuid
                .as_ref()
                .is_some_and(|u| self.uuids.contains(u))
    }
}

/// The signals as the store would write them: prepared (filled, redacted) as an append does, with
/// ids and dedup keys; a repeat within the batch (the same key, or a paraphrase of an
/// instruction) from another turn counts as one more sighting of the first, as the store counts
/// it (a repeat within one turn is a retry of the same episode, not counted).
fn preview(batch: Vec<Signal>) -> Vec<Signal> {
    let now = chrono::Utc::now();
    let mut out: Vec<Signal> = Vec::with_capacity(batch.len());
    let mut by_key: HashMap<String, (usize, Option<u64>)> = HashMap::new();
    let mut sightings = Sightings::default();
    let mut said = signal::Instructions::default();
    for mut sig in batch {
        reflect_store::store::prepare(&mut sig, now);
        let own = sig.dedup_key();
        let instruction = sig.kind.is_learning();
        let key = match by_key.contains_key(&own) || !instruction {
            true => own.as_str(),
            false => said
                .paraphrased(sig.project.as_deref(), &sig.content)
                .unwrap_or(&own),
        };
        if let Some((at, last)) = by_key.get_mut(key) {
            // One session: another turn is another episode, a repeat within one is a retry.
            let prompt = reflect_store::keyindex::prompt_line(&sig.source);
            if prompt.is_some() && last.is_some() && prompt != *last {
                sightings.add(&out[*at].id, "", sig.session_id.as_deref());
                *last = prompt;
            }
            continue;
        }
        if instruction {
            said.remember(sig.project.as_deref(), &sig.content, &own);
        }
        sig.id = signal::make_id(now, out.last().map(|s| s.id.as_str()));
        sig.meta
            .insert("dedup_key".into(), Value::from(own.clone()));
        by_key.insert(
            own,
            (out.len(), reflect_store::keyindex::prompt_line(&sig.source)),
        );
        out.push(sig);
    }
    for sig in &mut out {
        sightings.fold(sig);
    }
    out
}

/// The capture request a hook payload asks for; `Ok(None)` when its project opted out, or the
/// session ends (`summary`) without a transcript on disk (nothing to do, nothing to log).
pub fn request_from_payload(
    payload: &Payload,
    hook_event: &str,
    summary: bool,
) -> Result<Option<Request>> {
    if payload.opted_out() {
        return Ok(None);
    }
    let Some(transcript) = payload.transcript_path.as_deref().filter(|t| !t.is_empty()) else {
        return Err(Error::msg(
            "payload has no transcript_path; nothing to capture",
        ));
    };
    // Claude Code ends sessions that never wrote a transcript (`claude plugin update` does):
    // nothing was said, nothing to summarize, nothing wrong.
    let gone =
        std::fs::symlink_metadata(transcript).is_err_and(|e| e.kind() == io::ErrorKind::NotFound);
    if summary && gone {
        return Ok(None);
    }
    Ok(Some(Request {
        transcript: PathBuf::from(transcript),
        session: payload.session_id.clone().filter(|s| !s.is_empty()),
        project: payload.cwd.clone().filter(|s| !s.is_empty()),
        hook: hook_event.to_string(),
        summary,
        end_reason: payload.reason.clone(),
        dry_run: false,
        model: None,
    }))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn preview_folds_paraphrases_of_an_instruction_as_the_store_does() {
        let turn = std::cell::Cell::new(0);
        let said = |kind, text: &str| {
            let mut s = Signal::new(kind, text);
            s.project = Some("/p".into());
            turn.set(turn.get() + 1);
            in_turn(&mut s, turn.get());
            s
        };
        let out = preview(vec![
            said(
                signal::Kind::Correction,
                "Please do not commit until I say so",
            ),
            said(signal::Kind::Correction, "do not comit untill I said so"),
            said(
                signal::Kind::Convention,
                "Do not commit until I said so please",
            ),
            said(signal::Kind::Correction, "do not push until I say so"),
            // Failures fold by their own key, never as paraphrases.
            said(
                signal::Kind::Failure,
                "Bash failed: do not commit until I say so",
            ),
        ]);
        let contents: Vec<(&str, u64)> =
            out.iter().map(|s| (s.content.as_str(), s.seen())).collect();
        assert_eq!(
            contents,
            [
                ("Please do not commit until I say so", 3),
                ("do not push until I say so", 1),
                ("Bash failed: do not commit until I say so", 1),
            ]
        );
    }

    /// A transcript line: a user prompt or the assistant's text.
    fn entry(kind: &str, uuid: &str, text: &str) -> String {
        let content = match kind {
            "user" => Value::from(text),
            _ => serde_json::json!([{"type": "text", "text": text}]),
        };
        serde_json::json!({"type": kind, "isSidechain": false, "uuid": uuid,
            "timestamp": "2026-11-03T10:00:00Z",
            "message": {"id": uuid, "role": kind, "content": content}})
        .to_string()
    }

    /// A temp dir with a config dir, a data dir and the path of session `s`'s transcript in it.
    fn scratch() -> (tempfile::TempDir, Paths, std::path::PathBuf) {
        let dir = tempfile::tempdir().unwrap();
        let paths = Paths::new(dir.path().join("config"), dir.path().join("data"));
        let transcript = dir.path().join("s.jsonl");
        (dir, paths, transcript)
    }

    /// Capture what `lines` add to `transcript` (as session `s`), storing.
    fn capture_more(paths: &Paths, transcript: &std::path::Path, lines: &[String]) {
        use std::io::Write as _;
        let mut f = std::fs::OpenOptions::new()
            .create(true)
            .append(true)
            .open(transcript)
            .unwrap();
        writeln!(f, "{}", lines.join("\n")).unwrap();
        let req = Request {
            transcript: transcript.to_path_buf(),
            session: Some("s".into()),
            hook: "cli".into(),
            ..Request::default()
        };
        capture(paths, &req).unwrap();
    }

    /// The seen count of every signal stored, by content.
    fn seen_by_content(paths: &Paths) -> Vec<(String, u64)> {
        let store = Store::new(paths, LockWait::CLI);
        let text = std::fs::read_to_string(paths.store()).unwrap();
        text.lines()
            .filter_map(|l| serde_json::from_str::<Value>(l).ok())
            .filter_map(|v| v["id"].as_str().map(str::to_string))
            .map(|id| {
                let s = store.find(&id).unwrap().unwrap();
                (s.content.clone(), s.seen())
            })
            .collect()
    }

    #[test]
    fn a_prompt_sent_again_after_the_same_answer_adds_no_sighting_a_real_repeat_does() {
        let (_dir, paths, transcript) = scratch();
        let said = "No, we always use pnpm here, never npm";
        capture_more(
            &paths,
            &transcript,
            &[
                entry("user", "u1", "start on the parser module"),
                entry("assistant", "a1", "Parser started."),
                entry("user", "u2", said),
                entry("assistant", "a2", "API Error: Connection error."),
                // Sent again after the error: the same prompt, not another episode.
                entry("user", "u3", said),
                entry("assistant", "a3", "Switched to pnpm."),
            ],
        );
        assert_eq!(seen_by_content(&paths), [(said.to_string(), 1)]);
        // A later run reads the conversation written again under new uuids (a resume).
        capture_more(
            &paths,
            &transcript,
            &[
                entry("assistant", "a4", "Parser started."),
                entry("user", "u5", said),
                entry("assistant", "a5", "Switched to pnpm."),
            ],
        );
        assert_eq!(seen_by_content(&paths), [(said.to_string(), 1)]);
        // Said again after another answer: one more episode.
        capture_more(
            &paths,
            &transcript,
            &[
                entry("assistant", "a6", "I ran npm install."),
                entry("user", "u7", said),
            ],
        );
        assert_eq!(seen_by_content(&paths), [(said.to_string(), 2)]);
    }

    /// [`entry`] on `parent` (`None`: a conversation's start).
    fn on(line: String, parent: Option<&str>) -> String {
        let mut entry: Value = serde_json::from_str(&line).unwrap();
        entry["parentUuid"] = Value::from(parent);
        entry.to_string()
    }

    #[test]
    fn a_replays_first_prompt_and_one_resent_after_an_interrupt_add_no_sighting() {
        let (_dir, paths, transcript) = scratch();
        let said = "No, we always use pnpm here, never npm";
        capture_more(
            &paths,
            &transcript,
            &[
                on(entry("user", "u1", "start on the parser module"), None),
                on(entry("assistant", "a1", "I ran npm install."), Some("u1")),
                on(entry("user", "u2", said), Some("a1")),
                on(
                    entry("assistant", "a2", "Switching the lockfile"),
                    Some("u2"),
                ),
                on(
                    entry("user", "i2", "[Request interrupted by user]"),
                    Some("a2"),
                ),
            ],
        );
        assert_eq!(seen_by_content(&paths), [(said.to_string(), 1)]);
        // The next run reads it resent: the same prompt, not another episode.
        capture_more(
            &paths,
            &transcript,
            &[
                on(entry("user", "u3", said), Some("i2")),
                on(entry("assistant", "a3", "Switched to pnpm."), Some("u3")),
            ],
        );
        assert_eq!(seen_by_content(&paths), [(said.to_string(), 1)]);
        // The conversation written again under new uuids from the prompt on: it follows the
        // last turn's words, on the entry its original hung on (past the IDE context).
        let ide = "<ide_opened_file>package.json</ide_opened_file>";
        capture_more(
            &paths,
            &transcript,
            &[
                on(entry("user", "r1", ide), Some("a1")),
                on(entry("user", "r2", said), Some("r1")),
                on(entry("assistant", "r3", "Switched to pnpm."), Some("r2")),
            ],
        );
        assert_eq!(seen_by_content(&paths), [(said.to_string(), 1)]);
        // Said again after another, whole answer: one more episode.
        capture_more(
            &paths,
            &transcript,
            &[
                on(
                    entry("assistant", "a4", "I ran npm ci in the docs."),
                    Some("r3"),
                ),
                on(entry("user", "u5", said), Some("a4")),
            ],
        );
        assert_eq!(seen_by_content(&paths), [(said.to_string(), 2)]);
        // Interrupted, then another prompt between (one that raises nothing): resent no more.
        capture_more(
            &paths,
            &transcript,
            &[
                on(entry("assistant", "a6", "Running npm"), Some("u5")),
                on(
                    entry("user", "i6", "[Request interrupted by user]"),
                    Some("a6"),
                ),
                on(entry("user", "u7", "hm"), Some("i6")),
                on(entry("user", "u8", said), Some("u7")),
            ],
        );
        assert_eq!(seen_by_content(&paths), [(said.to_string(), 3)]);
    }

    #[test]
    fn the_cursor_remembers_only_prompts_that_raised_a_signal() {
        let (_dir, paths, transcript) = scratch();
        capture_more(
            &paths,
            &transcript,
            &[
                entry("assistant", "a1", "What is the sudo password?"),
                // A secret typed alone raises nothing: no hash of it may reach the cursor.
                entry("user", "u2", "xK9mq2vLpw"),
                entry("assistant", "a2", "Installed."),
                entry("user", "u3", "No, we always use pnpm here, never npm"),
            ],
        );
        let cursor = std::fs::read_to_string(paths.cursors().join("s.json")).unwrap();
        let saved: Value = serde_json::from_str(&cursor).unwrap();
        let seen = saved["prompts"]["seen"].as_array().unwrap();
        assert_eq!(seen.len(), 1, "{cursor}");
    }

    fn in_turn(s: &mut Signal, prompt: u64) {
        let key = reflect_store::keyindex::PROMPT_LINE.to_string();
        s.source.extra.insert(key, Value::from(prompt));
    }

    #[test]
    fn preview_gives_ids_and_folds_repeats_of_other_turns_only() {
        let mut a = Signal::new(signal::Kind::Correction, "Use pnpm, not npm");
        let mut b = Signal::new(signal::Kind::Correction, "use PNPM not npm!");
        let mut retry = Signal::new(signal::Kind::Correction, "use pnpm, not npm");
        let c = Signal::new(signal::Kind::Convention, "Tests live in tests/");
        in_turn(&mut a, 1);
        in_turn(&mut b, 5);
        in_turn(&mut retry, 5);
        let out = preview(vec![a, b, retry, c]);
        assert_eq!(out.len(), 2);
        assert!(signal::looks_like_id(&out[0].id));
        assert!(out[1].id > out[0].id, "ids increase");
        assert_eq!(out[0].seen(), 2);
        assert!(out[0].meta.contains_key("dedup_key"));
    }
}
