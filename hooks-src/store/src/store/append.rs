//! Appending signals: fill, clean and redact them, dedup them against the store's tail, and write them
//! in one `write` under the lock. An append never reads more than [`TAIL_BYTES`] of the store.
//!
//! A signal repeats a recent captured one of the tail when their dedup keys match, or when it is
//! an instruction (correction, convention, preference, remember) that paraphrases a recent one of
//! the same project ([`signal::same_instruction`]): a batch holding an instruction parses every
//! instruction of the tail, since any of them may be its paraphrase.

use reflect_base::platform::modes::CreateMode;
use std::collections::{HashMap, HashSet};
use std::fs::{File, OpenOptions};
use std::io::{Read as _, Seek, SeekFrom, Write};

use chrono::{DateTime, Duration, Utc};
use memchr::memmem::{self, Finder};
use serde_json::Value;

use super::filter::Selectable;
use super::lifecycle::CAPTURED_TTL_DAYS;
use super::line::Record;
use super::read::{self, Read, Reader};
use super::scan::{Key, Shape};
use super::Store;
use crate::keyindex as keys;
use crate::sighting;
use crate::signal::{self, Kind, Signal, Status, CONFIDENCE_VERIFIED};
use reflect_base::error::{IoContext, Result};
use reflect_base::fsutil::{self, PRIVATE_FILE};

/// How much of the store's end an append reads (ids, dedup). About 100–150 signals.
pub const TAIL_BYTES: u64 = 64 * 1024;

/// What an append did with each signal it was given.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct AppendOutcome {
    /// Ids of the new signals written.
    pub written: Vec<String>,
    /// Ids of earlier signals that were seen again (a recurrence record was appended).
    pub recurred: Vec<String>,
    /// Ids of earlier failures a later report of the same call completed with its resolution.
    pub completed: Vec<String>,
    /// Signals dropped because the very same sighting was already stored (a replayed capture).
    pub duplicates: usize,
    /// What became of each signal of the batch, in its order.
    pub each: Vec<Appended>,
    /// Signals spooled to `pending/` because the lock stayed busy (see [`Store::append_or_spool`]).
    pub spooled: usize,
}

/// What became of one appended signal.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Appended {
    /// Stored as a new signal with this id.
    Written(String),
    /// Counted as one more sighting of this signal.
    Recurred(String),
    /// Completed this earlier failure with what resolved it (or updated this summary).
    Completed(String),
    /// Dropped: the same sighting of this signal (when known) was already stored.
    Duplicate(Option<String>),
}

/// What an append learns from the end of the store about the signals it appends.
#[derive(Default)]
struct Tail {
    /// Recent captured signals by fingerprint (an incoming one may repeat one of them), each with
    /// the session and source of its last sighting.
    recent: HashMap<String, Signal>,
    /// Tool calls already reported by a recent failure signal or recurrence record, with the
    /// signal that holds them.
    calls: HashMap<String, String>,
    /// Signals a record of the tail already gave a resolution.
    resolved: HashSet<String>,
    /// Recent captured instructions, for a paraphrase of one to count as its recurrence.
    said: signal::Instructions,
}

impl Store {
    /// Append signals (see the module doc).
    pub fn append(&self, batch: Vec<Signal>) -> Result<AppendOutcome> {
        if batch.is_empty() {
            return Ok(AppendOutcome::default());
        }
        self.locked(&mut || {}, || {
            self.fold_pending()?;
            self.append_locked(batch)
        })
    }

    /// [`Store::append`] for a caller that holds the lock.
    pub(super) fn append_locked(&self, mut batch: Vec<Signal>) -> Result<AppendOutcome> {
        let path = self.paths.store();
        let mut file = OpenOptions::new()
            .read(true)
            .append(true)
            .create(true)
            .create_mode(PRIVATE_FILE)
            .open(&path)
            .ctx("cannot open", &path)?;
        fsutil::give_to_dir_owner(&file, &path);
        let (tail, whole) = read_tail(&mut file).ctx("cannot read", &path)?;
        let now = Utc::now();
        let mut out = Vec::new();
        if !tail.is_empty() && !tail.ends_with(b"\n") {
            out.push(b'\n');
        }
        for sig in &mut batch {
            prepare(sig, now);
        }
        let lines = &tail[whole..];
        let mut last_id = last_signal_id(lines);
        let mut tail = Tail::read(lines, &batch, now);
        // Repeats of signals first seen before the tail: the key index.
        let fresh_from = signal::format_time(now - Duration::days(CAPTURED_TTL_DAYS));
        let older: Vec<String> = batch.iter().map(Signal::dedup_key).collect();
        let index = keys::Index::read(&path);
        for (key, entry) in index.lookup(&older) {
            if entry.t >= fresh_from && !tail.recent.contains_key(&key) {
                tail.recent.insert(key, entry.to_signal());
            }
        }
        let (mut indexed, mut outcome) = (Vec::new(), AppendOutcome::default());
        for mut sig in batch {
            let calls = sig.tool_use_ids();
            if let Some(target) = calls.iter().find_map(|c| tail.calls.get(c)).cloned() {
                // The failure hook and the transcript miner both report a failed tool call: the
                // miner's report completes the hook's with what resolved it, once.
                if sig.resolution.is_some() && tail.resolved.insert(target.clone()) {
                    put(&mut out, &sighting::completion(&target, &sig, false));
                    outcome.each.push(Appended::Completed(target.clone()));
                    outcome.completed.push(target);
                } else {
                    outcome.duplicates += 1;
                    outcome.each.push(Appended::Duplicate(Some(target)));
                }
                continue;
            }
            let key = sig.dedup_key();
            let instruction = sig.kind.is_learning();
            // An instruction said again in other words is the same instruction.
            let paraphrased = match tail.recent.contains_key(&key) || !instruction {
                true => None,
                false => tail.said.paraphrased(sig.project.as_deref(), &sig.content),
            };
            let target = paraphrased.map_or_else(|| key.clone(), str::to_string);
            if let Some(prev) = tail.recent.get_mut(&target) {
                if sig.kind == Kind::Summary {
                    // A resumed session ends again: its one summary is updated, not repeated.
                    put(&mut out, &sighting::completion(&prev.id, &sig, true));
                    outcome.each.push(Appended::Completed(prev.id.clone()));
                    outcome.completed.push(prev.id.clone());
                } else if sighting::same_episode(prev, &sig) {
                    // A replay of the same sighting, or a retry within one episode.
                    outcome.duplicates += 1;
                    outcome
                        .each
                        .push(Appended::Duplicate(Some(prev.id.clone())));
                } else {
                    put(&mut out, &sighting::recurrence(&prev.id, &sig));
                    outcome.each.push(Appended::Recurred(prev.id.clone()));
                    outcome.recurred.push(prev.id.clone());
                    tail.calls
                        .extend(calls.into_iter().map(|c| (c, prev.id.clone())));
                    indexed.push(keys::Entry::of(&target, &prev.id, &prev.timestamp, &sig));
                    (prev.session_id, prev.source) = (sig.session_id, sig.source);
                }
                continue;
            }
            sig.id = signal::make_id(now, last_id.as_deref());
            sig.meta
                .insert("dedup_key".into(), Value::from(key.clone()));
            put(&mut out, &sig);
            tail.calls
                .extend(calls.into_iter().map(|c| (c, sig.id.clone())));
            if sig.status == Status::Captured {
                if instruction {
                    tail.said
                        .remember(sig.project.as_deref(), &sig.content, &key);
                }
                indexed.push(keys::Entry::of(&key, &sig.id, &sig.timestamp, &sig));
                tail.recent.insert(key, sig.clone());
            }
            last_id = Some(sig.id.clone());
            outcome.each.push(Appended::Written(sig.id.clone()));
            outcome.written.push(sig.id);
        }
        if out.iter().any(|&b| b != b'\n') {
            file.write_all(&out).ctx("cannot append to", &path)?;
            index.record(&path, &indexed);
        }
        Ok(outcome)
    }
}

/// What [`Store::add_sighting`] did.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Sighted {
    /// A recurrence record was appended: one more episode of the signal.
    Added,
    /// The signal already holds this sighting (same session and line): nothing was written.
    AlreadyHeld,
    /// No signal of the store has that id.
    NoSuchSignal,
}

impl Store {
    /// Record `sig` (its session, source and words) as one more sighting of the stored signal
    /// `target`: what `/reflect` found again for a signal the store holds, in the user's own
    /// words, instead of a second signal that repeats its content. A sighting the signal already
    /// holds (the same session and transcript line as it or one of its sightings) adds nothing.
    pub fn add_sighting(&self, target: &str, mut sig: Signal) -> Result<Sighted> {
        let path = self.paths.store();
        self.locked(&mut || {}, || {
            let Some(found) = super::find_in(&super::view_unlocked(&path)?, target) else {
                return Ok(Sighted::NoSuchSignal);
            };
            prepare(&mut sig, Utc::now());
            if holds_sighting(&found, &sig) {
                return Ok(Sighted::AlreadyHeld);
            }
            let mut out = Vec::new();
            put(&mut out, &sighting::recurrence(&found.id, &sig));
            super::append_bytes(&path, &out)?;
            if let Some(key) = found.meta.get("dedup_key").and_then(Value::as_str) {
                let entry = keys::Entry::of(key, &found.id, &found.timestamp, &sig);
                keys::Index::read(&path).record(&path, &[entry]);
            }
            Ok(Sighted::Added)
        })
    }
}

/// Whether `found` (a signal with its sightings' evidence) already holds the sighting `sig`: the
/// same session, and its line is the signal's or a sighting's own line or the prompt that
/// opened that turn (what the index shows as its place: a failure's own line is its call's).
fn holds_sighting(found: &Signal, sig: &Signal) -> bool {
    let (Some(session), Some(line)) = (sig.session_id.as_deref(), sig.source.line) else {
        return false;
    };
    let own = [found.source.line, keys::prompt_line(&found.source)];
    if found.session_id.as_deref() == Some(session) && own.contains(&Some(line)) {
        return true;
    }
    let sightings = found.meta.get("sightings").and_then(Value::as_array);
    sightings.into_iter().flatten().any(|e| {
        let at = |key: &str| e.get(key).and_then(Value::as_u64);
        e.get("session_id").and_then(Value::as_str) == Some(session)
            && (at("line") == Some(line) || at(keys::PROMPT_LINE) == Some(line))
    })
}

/// Fill what a writer left out and make the signal safe to store (an append does this to every
/// signal; a dry run calls it to show what an append would write).
pub fn prepare(sig: &mut Signal, now: DateTime<Utc>) {
    sig.version = 1;
    if sig.timestamp.is_empty() || sig.time().is_none() {
        sig.timestamp = signal::format_time(now);
    }
    // Verified (4) is only ever the user's word on a stored signal (see signal::confidence_after).
    sig.confidence = sig.confidence.clamp(1, CONFIDENCE_VERIFIED - 1);
    crate::sanitize::clean_signal(sig); // first: a zero-width character could hide a token
    crate::redact::redact_signal(sig);
}

/// The last [`TAIL_BYTES`] of `file`, and where its whole lines start in them (its first line
/// is cut unless the tail starts the file).
fn read_tail(file: &mut File) -> std::io::Result<(Vec<u8>, usize)> {
    let len = file.metadata()?.len();
    let start = len.saturating_sub(TAIL_BYTES);
    file.seek(SeekFrom::Start(start))?;
    let mut tail = Vec::with_capacity((len - start) as usize);
    file.take(TAIL_BYTES).read_to_end(&mut tail)?;
    let lines = match start {
        0 => 0,
        _ => memchr::memchr(b'\n', &tail).map_or(tail.len(), |end| end + 1),
    };
    Ok((tail, lines))
}

/// Write `record` as one line of `out`.
fn put(out: &mut Vec<u8>, record: &impl serde::Serialize) {
    serde_json::to_writer(&mut *out, record).expect("serializes");
    out.push(b'\n');
}

/// The id of the last v1 signal among `lines`, read backwards (new ids are made past it).
pub(super) fn last_signal_id(lines: &[u8]) -> Option<String> {
    let mut reader = Reader::default();
    lines.rsplit(|&b| b == b'\n').find_map(|raw| {
        let view = reader.view(raw, Read::Scan)?;
        if view.shape() != Some(Shape::Signal) {
            return None;
        }
        let id = match view.text(Key::Id) {
            Some(id) => id?.to_string(),
            None => view.into_signal()?.id,
        };
        id.starts_with("SIG-").then_some(id)
    })
}

/// What may tell a tail line apart as one an append must parse: only a line holding one of the
/// batch's dedup keys or tool calls can repeat them, or, for a batch holding an instruction, one
/// naming an instruction's kind (it may be paraphrased). A JSON string holds these only verbatim
/// or with a printable character spelled `\u00XX` (no writer makes one): a literal search decides.
pub(super) struct Needles {
    finders: Vec<Finder<'static>>,
    /// A key that JSON may spell another way: every line may hold it.
    every_line: bool,
}

/// The kinds of instructions ([`crate::signal::Kind::is_learning`]).
const INSTRUCTIONS: [&[u8]; 4] = [b"correction", b"convention", b"preference", b"remember"];

impl Needles {
    pub(super) fn of(batch: &[Signal]) -> Needles {
        let keys: Vec<String> = batch.iter().map(Signal::dedup_key).collect();
        let calls: Vec<String> = batch.iter().flat_map(Signal::tool_use_ids).collect();
        let calls = calls.iter().map(String::as_str);
        let needles: Vec<&str> = keys.iter().map(String::as_str).chain(calls).collect();
        let instruction = batch.iter().any(|sig| sig.kind.is_learning());
        let kinds = INSTRUCTIONS.into_iter().filter(|_| instruction);
        let finders = needles.iter().map(|n| n.as_bytes()).chain(kinds);
        Needles {
            finders: finders.map(|n| Finder::new(n).into_owned()).collect(),
            every_line: needles.iter().any(|n| !super::spelled_as_is(n)),
        }
    }

    pub(super) fn may_repeat(&self, line: &[u8]) -> bool {
        self.every_line
            || self.finders.iter().any(|f| f.find(line).is_some())
            || memmem::find_iter(line, b"\\u00")
                .any(|at| matches!(line.get(at + 4), Some(b'2'..=b'7')))
    }
}

impl Tail {
    /// What the `lines` of the tail say about `batch`.
    fn read(lines: &[u8], batch: &[Signal], now: DateTime<Utc>) -> Tail {
        let needles = Needles::of(batch);
        let window = now - Duration::days(CAPTURED_TTL_DAYS);
        let mut tail = Tail::default();
        // Recurrence records too: the latest sighting of a signal tells its episode.
        let triage =
            read::parse_if(|line| line.starts_with(b"{\"recur\"") || needles.may_repeat(line));
        read::visit(lines, triage, |_, view| match view.into_record() {
            Record::Recur(r) => {
                if let Some(call) = r.tool_use_id {
                    tail.calls.insert(call, r.recur.clone());
                }
                if r.resolution.is_some() {
                    tail.resolved.insert(r.recur.clone());
                }
                // The latest sighting of a recent signal decides what is another episode.
                if !r.completes {
                    if let Some(prev) = tail.recent.values_mut().find(|p| p.id == r.recur) {
                        (prev.session_id, prev.source) = (r.session_id, r.source);
                    }
                }
            }
            Record::Signal(s) => {
                for call in s.tool_use_ids() {
                    tail.calls.insert(call, s.id.clone());
                }
                if s.resolution.is_some() {
                    tail.resolved.insert(s.id.clone());
                }
                let key = s.meta.get("dedup_key").and_then(Value::as_str);
                let fresh = s.time().is_some_and(|t| t >= window);
                if let (Some(key), Status::Captured, true) = (key, &s.status, fresh) {
                    if s.kind.is_learning() {
                        tail.said.remember(s.project.as_deref(), &s.content, key);
                    }
                    tail.recent.insert(key.to_string(), *s);
                }
            }
            _ => {}
        });
        tail
    }
}
