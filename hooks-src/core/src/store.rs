//! The signal store: `signals.jsonl` in the data dir, one JSON object per line.
//!
//! **Line kinds.** A line is a v1 signal (`{"id":…,"type":…}`), a v2 signal (`{"ts","sid","type",
//! "context","turn"}`, read as captured/confidence 1), a recurrence record (`{"recur":"<id>",…}`:
//! one more sighting of an earlier signal), some other JSON object (a future record kind: kept
//! verbatim, never listed), or an invalid line (torn by a crash, hand-edited…: skipped and counted).
//!
//! **Lock protocol.** Every append and every rewrite holds an exclusive `flock` on the sidecar
//! `signals.lock`, which is never renamed. Locking `signals.jsonl` itself would be wrong: a rewrite
//! renames a new file over it, and a writer waiting on the old inode would append into the void.
//! Readers take the same lock just long enough to read the bytes. Waits are bounded ([`LockWait`]).
//!
//! **Appends never scan the store.** An append reads a bounded tail ([`TAIL_BYTES`]) for two things:
//! the last id (new ids are made past it, so they stay unique and increasing) and the dedup
//! fingerprints of recent captured signals. A repeat of one of those becomes a small recurrence
//! record instead of a new signal, so counting never rewrites the store on a hook's path.
//!
//! **Rewrites** (update, promote, dismiss, archive, prune, migrate, forget) re-read the file under
//! the lock, write a temp file in the same directory, fsync, hard-link the old file into
//! `backups/`, and rename. A SIGKILL at any point leaves either the old or the new store. Lines a
//! rewrite did not change are written back byte for byte; recurrence records are folded into their
//! signal's `meta.seen`; invalid lines are moved to `signals.invalid.jsonl`, never dropped.
//!
//! **Torn tail.** If the file does not end in a newline (a writer died mid-line), the next append
//! starts with one, so the torn fragment stays a single invalid line and loses nothing after it.

use std::borrow::Cow;
use std::collections::{HashMap, HashSet};
use std::fs::{self, File, OpenOptions};
use std::io::{Read, Seek, SeekFrom, Write};
use std::os::unix::fs::OpenOptionsExt;
use std::path::{Path, PathBuf};

use chrono::{DateTime, Duration, Utc};
use serde::Deserialize;
use serde_json::{Map, Value};

use crate::error::{Error, IoContext, Result};
use crate::fsutil::{self, LockWait, PRIVATE_FILE};
use crate::paths::Paths;
use crate::signal::{self, Kind, Recurrence, Signal, Status, CONFIDENCE_VERIFIED};

/// How much of the store's end an append reads (ids, dedup). About 100–150 signals.
pub const TAIL_BYTES: u64 = 64 * 1024;
/// Unreviewed (`captured`) signals older than this are pruned.
pub const CAPTURED_TTL_DAYS: i64 = 14;
/// `analyzed` signals older than this are flagged for review (`meta.needs_review`).
pub const ANALYZED_REVIEW_DAYS: i64 = 30;
/// Store backups kept in `backups/` (hard links, so they cost little until the store changes).
pub const STORE_BACKUPS_KEPT: usize = 10;

/// What one line of the store holds.
#[derive(Debug, Clone)]
pub enum Record {
    Signal(Box<Signal>),
    /// A v2 line, converted on read; written back unchanged unless modified or migrated.
    Legacy(Box<Signal>),
    Recur(Box<Recurrence>),
    /// Valid JSON that is not a record this version knows (kept verbatim).
    Foreign,
    /// Not a JSON object: torn, truncated, invalid UTF-8…
    Invalid,
}

/// One line: its original bytes (without the newline) and what they mean.
#[derive(Debug, Clone)]
pub struct Entry {
    raw: Vec<u8>,
    pub record: Record,
    dirty: bool,
}

impl Entry {
    pub fn raw(&self) -> &[u8] {
        &self.raw
    }
    pub fn signal(&self) -> Option<&Signal> {
        match &self.record {
            Record::Signal(s) | Record::Legacy(s) => Some(s),
            _ => None,
        }
    }
    /// Mutable access marks the line for re-serialization on rewrite.
    pub fn signal_mut(&mut self) -> Option<&mut Signal> {
        match &mut self.record {
            Record::Signal(s) | Record::Legacy(s) => {
                self.dirty = true;
                Some(s)
            }
            _ => None,
        }
    }
    pub fn is_legacy(&self) -> bool {
        matches!(self.record, Record::Legacy(_))
    }
}

/// Counts a reader reports about the file it read.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Health {
    pub lines: usize,
    pub signals: usize,
    pub legacy: usize,
    pub recurrences: usize,
    pub foreign: usize,
    pub invalid: usize,
    /// The file does not end with a newline (the last write was cut short).
    pub torn_tail: bool,
    /// 1-based line numbers of the first few invalid lines, for error messages.
    pub invalid_lines: Vec<usize>,
}

/// Parse one line (no newline) into a record.
pub fn parse_line(raw: &[u8]) -> Record {
    // The common case first: a well-formed v1 signal deserializes in one pass.
    if let Ok(sig) = serde_json::from_slice::<Signal>(raw) {
        return Record::Signal(Box::new(sig));
    }
    let map: Map<String, Value> = match serde_json::from_slice(raw) {
        Ok(m) => m,
        Err(_) => return Record::Invalid,
    };
    if map.contains_key("recur") {
        return match serde_json::from_value::<Recurrence>(Value::Object(map)) {
            Ok(r) => Record::Recur(Box::new(r)),
            Err(_) => Record::Foreign,
        };
    }
    if !map.contains_key("id")
        && map.contains_key("ts")
        && map.get("type").is_some_and(Value::is_string)
    {
        return match Signal::from_v2(map, raw) {
            Some(s) => Record::Legacy(Box::new(s)),
            None => Record::Foreign,
        };
    }
    Record::Foreign
}

/// A parsed store file.
#[derive(Debug, Clone, Default)]
pub struct Snapshot {
    pub entries: Vec<Entry>,
    pub health: Health,
    /// Signals a rewrite should move to the archive file (set by [`Snapshot::take_to_archive`]).
    archive_out: Vec<Signal>,
}

impl Snapshot {
    /// Parse file bytes. Recurrence records are folded into their signals (`meta.seen`, confidence).
    pub fn parse(bytes: &[u8]) -> Snapshot {
        let mut snap = Snapshot::default();
        snap.health.torn_tail = !bytes.is_empty() && !bytes.ends_with(b"\n");
        for (n, line) in bytes.split(|&b| b == b'\n').enumerate() {
            if line.is_empty() || line.iter().all(u8::is_ascii_whitespace) {
                continue;
            }
            snap.health.lines += 1;
            let record = parse_line(line);
            match &record {
                Record::Signal(_) => snap.health.signals += 1,
                Record::Legacy(_) => snap.health.legacy += 1,
                Record::Recur(_) => snap.health.recurrences += 1,
                Record::Foreign => snap.health.foreign += 1,
                Record::Invalid => {
                    snap.health.invalid += 1;
                    if snap.health.invalid_lines.len() < 5 {
                        snap.health.invalid_lines.push(n + 1);
                    }
                }
            }
            snap.entries.push(Entry {
                raw: line.to_vec(),
                record,
                dirty: false,
            });
        }
        snap.fold_recurrences();
        snap
    }

    fn fold_recurrences(&mut self) {
        let mut sightings: HashMap<String, (u64, String)> = HashMap::new();
        for entry in &self.entries {
            if let Record::Recur(r) = &entry.record {
                let slot = sightings.entry(r.recur.clone()).or_default();
                slot.0 += 1;
                if r.timestamp > slot.1 {
                    slot.1 = r.timestamp.clone();
                }
            }
        }
        if sightings.is_empty() {
            return;
        }
        for entry in &mut self.entries {
            let id = match entry.signal() {
                Some(s) => s.id.clone(),
                None => continue,
            };
            if let Some((n, last)) = sightings.get(&id) {
                entry
                    .signal_mut()
                    .expect("checked above")
                    .fold_recurrences(*n, last);
            }
        }
    }

    /// Every signal (v1 and v2), in file order.
    pub fn signals(&self) -> impl Iterator<Item = &Signal> {
        self.entries.iter().filter_map(Entry::signal)
    }

    pub fn get(&self, id: &str) -> Option<&Signal> {
        self.signals().find(|s| s.id == id)
    }

    /// The signal `id`, marked for rewrite.
    pub fn get_mut(&mut self, id: &str) -> Option<&mut Signal> {
        self.entries
            .iter_mut()
            .find(|e| e.signal().is_some_and(|s| s.id == id))
            .and_then(Entry::signal_mut)
    }

    /// Drop the signals for which `remove` says yes; returns them.
    pub fn remove_where(&mut self, mut remove: impl FnMut(&Signal) -> bool) -> Vec<Signal> {
        let mut removed = Vec::new();
        self.entries.retain(|e| match e.signal() {
            Some(s) if remove(s) => {
                removed.push(s.clone());
                false
            }
            _ => true,
        });
        removed
    }

    /// Remove the matching signals and queue them for the archive file.
    pub fn take_to_archive(&mut self, mut select: impl FnMut(&Signal) -> bool) -> usize {
        let moved = self.remove_where(|s| select(s));
        let n = moved.len();
        self.archive_out.extend(moved);
        n
    }

    /// The bytes a rewrite writes: unchanged lines verbatim, changed signals re-serialized,
    /// recurrences folded away. Invalid lines are returned apart (they go to the quarantine file).
    fn render(&self) -> (Vec<u8>, Vec<u8>) {
        let mut out = Vec::with_capacity(self.entries.iter().map(|e| e.raw.len() + 1).sum());
        let mut invalid = Vec::new();
        for entry in &self.entries {
            match &entry.record {
                Record::Recur(_) => {}
                Record::Invalid => {
                    invalid.extend_from_slice(&entry.raw);
                    invalid.push(b'\n');
                }
                Record::Signal(s) | Record::Legacy(s) if entry.dirty => {
                    serde_json::to_writer(&mut out, s).expect("a signal always serializes");
                    out.push(b'\n');
                }
                _ => {
                    out.extend_from_slice(&entry.raw);
                    out.push(b'\n');
                }
            }
        }
        (out, invalid)
    }
}

/// What an append did with each signal it was given.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct AppendOutcome {
    /// Ids of the new signals written.
    pub written: Vec<String>,
    /// Ids of earlier signals that were seen again (a recurrence record was appended).
    pub recurred: Vec<String>,
    /// Signals dropped because the very same sighting was already stored (a replayed capture).
    pub duplicates: usize,
}

/// The fields of a stored line that an append's dedup needs, read without allocating.
#[derive(Deserialize)]
struct TailProbe<'a> {
    #[serde(borrow, default)]
    id: Option<Cow<'a, str>>,
    #[serde(borrow, default)]
    recur: Option<Cow<'a, str>>,
    #[serde(borrow, default)]
    tool_use_id: Option<Cow<'a, str>>,
    #[serde(borrow, default)]
    timestamp: Option<Cow<'a, str>>,
    #[serde(borrow, default)]
    session_id: Option<Cow<'a, str>>,
    #[serde(borrow, default)]
    status: Option<Cow<'a, str>>,
    #[serde(borrow, default)]
    source: Option<ProbeSource<'a>>,
    #[serde(borrow, default)]
    meta: Option<ProbeMeta<'a>>,
}

#[derive(Deserialize)]
struct ProbeSource<'a> {
    #[serde(default)]
    line: Option<u64>,
    #[serde(borrow, default)]
    uuid: Option<Cow<'a, str>>,
}

#[derive(Deserialize)]
struct ProbeMeta<'a> {
    #[serde(borrow, default)]
    dedup_key: Option<Cow<'a, str>>,
    #[serde(borrow, default)]
    tool_use_id: Option<Cow<'a, str>>,
}

/// A recent captured signal an incoming one may repeat.
struct Recent {
    id: String,
    session_id: Option<String>,
    line: Option<u64>,
    uuid: Option<String>,
}

/// What an append learns from the end of the store.
struct Tail {
    /// The last signal id (new ids are made past it).
    last_id: Option<String>,
    /// Recent captured signals by fingerprint.
    recent: HashMap<String, Recent>,
    /// Tool calls already reported by a recent failure signal or recurrence record.
    calls: HashSet<String>,
}

/// The store in one data dir.
#[derive(Debug, Clone)]
pub struct Store {
    paths: Paths,
    wait: LockWait,
}

impl Store {
    pub fn new(paths: &Paths, wait: LockWait) -> Store {
        Store {
            paths: paths.clone(),
            wait,
        }
    }

    pub fn paths(&self) -> &Paths {
        &self.paths
    }

    /// Run `f` under the store lock. `on_wait` is told once if another process holds it.
    pub fn locked<T>(&self, on_wait: &mut dyn FnMut(), f: impl FnOnce() -> Result<T>) -> Result<T> {
        fsutil::ensure_private_dir(&self.paths.data_dir)?;
        fsutil::with_lock(&self.paths.lock(), self.wait, on_wait, f)
    }

    /// Append signals: fill and redact them, dedup against the recent tail, write them in one
    /// `write` under the lock. Never reads more than [`TAIL_BYTES`] of the store.
    pub fn append(&self, batch: Vec<Signal>) -> Result<AppendOutcome> {
        if batch.is_empty() {
            return Ok(AppendOutcome::default());
        }
        let path = self.paths.store();
        self.locked(&mut || {}, || {
            let mut file = OpenOptions::new()
                .read(true)
                .append(true)
                .create(true)
                .mode(PRIVATE_FILE)
                .open(&path)
                .ctx("cannot open", &path)?;
            let (tail, at_start) = read_tail(&mut file, TAIL_BYTES).ctx("cannot read", &path)?;
            let now = Utc::now();
            let mut out = Vec::new();
            if !tail.is_empty() && !tail.ends_with(b"\n") {
                out.push(b'\n');
            }
            let mut batch = batch;
            for sig in &mut batch {
                prepare(sig, now);
            }
            // Parsing every tail line is most of a hook's own work; when no line can repeat any
            // of these signals, the last id is all the tail has to give.
            let Tail {
                mut last_id,
                mut recent,
                mut calls,
            } = if tail_may_repeat(&tail, &batch) {
                scan_tail(&tail, at_start, now)
            } else {
                Tail {
                    last_id: last_signal_id(&tail, at_start),
                    recent: HashMap::new(),
                    calls: HashSet::new(),
                }
            };
            let mut outcome = AppendOutcome::default();
            for mut sig in batch {
                let call = sig.tool_use_id().map(str::to_string);
                if let Some(call) = &call {
                    // The failure hook and the transcript miner both report a failed tool call.
                    if !calls.insert(call.clone()) {
                        outcome.duplicates += 1;
                        continue;
                    }
                }
                let key = sig.dedup_key();
                if let Some(prev) = recent.get_mut(&key) {
                    // A replayed capture of the very same transcript line is not a recurrence.
                    let same_sighting = prev.session_id == sig.session_id
                        && ((prev.line.is_some() && prev.line == sig.source.line)
                            || (prev.uuid.is_some() && prev.uuid == sig.source.uuid));
                    if same_sighting {
                        outcome.duplicates += 1;
                        continue;
                    }
                    let rec = Recurrence {
                        recur: prev.id.clone(),
                        timestamp: sig.timestamp.clone(),
                        session_id: sig.session_id.clone(),
                        source: sig.source.clone(),
                        tool_use_id: call,
                    };
                    serde_json::to_writer(&mut out, &rec).expect("serializes");
                    out.push(b'\n');
                    outcome.recurred.push(prev.id.clone());
                    prev.session_id = sig.session_id.clone();
                    prev.line = sig.source.line;
                    prev.uuid = sig.source.uuid.clone();
                    continue;
                }
                sig.id = signal::make_id(now, last_id.as_deref());
                sig.meta
                    .insert("dedup_key".into(), Value::from(key.clone()));
                serde_json::to_writer(&mut out, &sig).expect("serializes");
                out.push(b'\n');
                if sig.status == Status::Captured {
                    let recent_sig = Recent {
                        id: sig.id.clone(),
                        session_id: sig.session_id.clone(),
                        line: sig.source.line,
                        uuid: sig.source.uuid.clone(),
                    };
                    recent.insert(key, recent_sig);
                }
                last_id = Some(sig.id.clone());
                outcome.written.push(sig.id);
            }
            if out.iter().any(|&b| b != b'\n') {
                file.write_all(&out).ctx("cannot append to", &path)?;
            }
            Ok(outcome)
        })
    }

    /// The store's bytes, read under the lock (a consistent view between two writes).
    pub fn read_bytes(&self) -> Result<Vec<u8>> {
        let path = self.paths.store();
        if !self.paths.data_dir.is_dir() {
            return Ok(Vec::new());
        }
        self.locked(&mut || {}, || read_or_empty(&path))
    }

    /// The store's bytes for a reader that passes over them once (query, stats): a large store
    /// is mapped from the page cache rather than copied (see [`StoreBytes`]), a small one read.
    pub fn view_bytes(&self) -> Result<StoreBytes> {
        let path = self.paths.store();
        if !self.paths.data_dir.is_dir() {
            return Ok(StoreBytes::Read(Vec::new()));
        }
        self.locked(&mut || {}, || match map_or_read(&path) {
            Ok(bytes) => Ok(bytes),
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(StoreBytes::Read(Vec::new())),
            Err(e) => Err(Error::io("cannot read", &path, e)),
        })
    }

    /// Read and parse the whole store (parsing after the lock is released).
    pub fn load(&self) -> Result<Snapshot> {
        Ok(Snapshot::parse(&self.read_bytes()?))
    }

    /// The signals of one session (captured in it, or seen again in it), with their recurrences
    /// folded in, read without the lock and without parsing unrelated lines: a literal search for
    /// the session id selects the few lines worth parsing. For `inject-signals`, which must stay
    /// cheap on a store of thousands of signals. A line half-written by a concurrent append fails
    /// to parse and is skipped.
    pub fn session_signals(&self, session_id: &str) -> Result<Vec<Signal>> {
        let bytes = read_or_empty(&self.paths.store())?;
        let needle = format!(
            "\"session_id\":{}",
            serde_json::to_string(session_id).expect("a string serializes")
        );
        let finder = memchr::memmem::Finder::new(needle.as_bytes());
        let mut signals: Vec<Signal> = Vec::new();
        let mut sightings: HashMap<String, u64> = HashMap::new();
        let mut seen_here: HashSet<String> = HashSet::new();
        // memchr-based line splitting: a byte-by-byte split costs more than everything else here.
        for line in crate::query::lines(&bytes) {
            let is_recur = line.starts_with(b"{\"recur\"");
            if !is_recur && finder.find(line).is_none() {
                continue;
            }
            match parse_line(line) {
                Record::Signal(s) | Record::Legacy(s)
                    if s.session_id.as_deref() == Some(session_id) =>
                {
                    signals.push(*s)
                }
                Record::Recur(r) => {
                    *sightings.entry(r.recur.clone()).or_default() += 1;
                    if r.session_id.as_deref() == Some(session_id) {
                        seen_here.insert(r.recur);
                    }
                }
                _ => {}
            }
        }
        seen_here.retain(|id| !signals.iter().any(|s| &s.id == id));
        if !seen_here.is_empty() {
            // Signals first captured in another session and seen again in this one.
            // One searcher per id, built once (`memmem::find` builds one on every call).
            let finders: Vec<_> = seen_here
                .iter()
                .map(|id| memchr::memmem::Finder::new(id.as_bytes()))
                .collect();
            for line in crate::query::lines(&bytes) {
                if finders.iter().any(|f| f.find(line).is_some()) {
                    if let Record::Signal(s) = parse_line(line) {
                        if seen_here.contains(&s.id) {
                            signals.push(*s);
                        }
                    }
                }
            }
        }
        for s in &mut signals {
            if let Some(n) = sightings.get(&s.id) {
                s.add_sightings(*n);
            }
        }
        Ok(signals)
    }

    /// The signal `id` as the store and then the archive hold it, recurrences folded in, as
    /// [`Snapshot::get`] gives it, without parsing every line (`memory-store get`, which the
    /// /reflect skill runs once per signal it looks at).
    pub fn find(&self, id: &str) -> Result<Option<Signal>> {
        if !spelled_verbatim(id) {
            return Ok(match self.load()?.get(id) {
                Some(s) => Some(s.clone()),
                None => self.load_archive()?.get(id).cloned(),
            });
        }
        if let Some(s) = find_in(&self.view_bytes()?, id) {
            return Ok(Some(s));
        }
        Ok(find_in(&read_or_empty(&self.paths.archive())?, id))
    }

    /// Read the archive file (no lock needed for a consistent view: it only changes by rename).
    pub fn load_archive(&self) -> Result<Snapshot> {
        Ok(Snapshot::parse(&read_or_empty(&self.paths.archive())?))
    }

    /// Read-modify-write the store under the lock. `f` returns its result and whether it changed
    /// anything; nothing is written when it did not. Signals it queued with
    /// [`Snapshot::take_to_archive`] are added to the archive file first (an id already there is
    /// not added twice), so a crash between the two writes duplicates nothing and loses nothing.
    pub fn rewrite<T>(
        &self,
        on_wait: &mut dyn FnMut(),
        f: impl FnOnce(&mut Snapshot) -> Result<(T, bool)>,
    ) -> Result<T> {
        let path = self.paths.store();
        self.locked(on_wait, || {
            let mut snap = Snapshot::parse(&read_or_empty(&path)?);
            let (result, changed) = f(&mut snap)?;
            if !changed {
                return Ok(result);
            }
            if !snap.archive_out.is_empty() {
                self.append_archive(std::mem::take(&mut snap.archive_out))?;
            }
            let (bytes, invalid) = snap.render();
            if !invalid.is_empty() {
                let quarantine = self.paths.data_dir.join("signals.invalid.jsonl");
                append_bytes(&quarantine, &invalid)?;
            }
            self.replace(&path, &bytes)?;
            Ok(result)
        })
    }

    /// Read-modify-write the archive file under the store lock (used by `forget`).
    pub fn rewrite_archive<T>(
        &self,
        f: impl FnOnce(&mut Snapshot) -> Result<(T, bool)>,
    ) -> Result<T> {
        let path = self.paths.archive();
        self.locked(&mut || {}, || {
            let mut snap = Snapshot::parse(&read_or_empty(&path)?);
            let (result, changed) = f(&mut snap)?;
            if changed {
                let (bytes, invalid) = snap.render();
                let mut all = bytes;
                all.extend_from_slice(&invalid);
                self.replace(&path, &all)?;
            }
            Ok(result)
        })
    }

    /// Atomic replace with a backup of the old file.
    fn replace(&self, path: &Path, bytes: &[u8]) -> Result<()> {
        fsutil::backup(path, &self.paths.backups(), STORE_BACKUPS_KEPT, true)?;
        fsutil::atomic_write(path, bytes, PRIVATE_FILE)
    }

    /// Must be called under the lock.
    fn append_archive(&self, signals: Vec<Signal>) -> Result<()> {
        let path = self.paths.archive();
        let existing = Snapshot::parse(&read_or_empty(&path)?);
        let known: HashSet<&str> = existing.signals().map(|s| s.id.as_str()).collect();
        let mut out = Vec::new();
        if fs::metadata(&path).map(|m| m.len() > 0).unwrap_or(false)
            && !read_or_empty(&path)?.ends_with(b"\n")
        {
            out.push(b'\n');
        }
        for mut sig in signals {
            if known.contains(sig.id.as_str()) {
                continue;
            }
            if sig.status != Status::Archived {
                sig.meta
                    .insert("status_before".into(), Value::from(sig.status.as_str()));
                sig.status = Status::Archived;
            }
            sig.meta
                .insert("archived_at".into(), Value::from(fsutil::now_rfc3339()));
            serde_json::to_writer(&mut out, &sig).expect("serializes");
            out.push(b'\n');
        }
        append_bytes(&path, &out)?;
        if let Ok(f) = File::open(&path) {
            let _ = f.sync_all();
        }
        Ok(())
    }
}

/// Fill what a writer left out and make the signal safe to store (an append does this to every
/// signal; a dry run calls it to show what an append would write).
pub fn prepare(sig: &mut Signal, now: DateTime<Utc>) {
    sig.version = 1;
    if sig.timestamp.is_empty() || sig.time().is_none() {
        sig.timestamp = signal::format_time(now);
    }
    sig.confidence = sig.confidence.clamp(1, CONFIDENCE_VERIFIED);
    crate::redact::redact_signal(sig);
}

/// The last `max` bytes of `file`, and whether they start at the beginning of the file.
fn read_tail(file: &mut File, max: u64) -> std::io::Result<(Vec<u8>, bool)> {
    let len = file.metadata()?.len();
    let start = len.saturating_sub(max);
    file.seek(SeekFrom::Start(start))?;
    let mut buf = Vec::with_capacity((len - start) as usize);
    file.take(max).read_to_end(&mut buf)?;
    Ok((buf, start == 0))
}

/// The whole lines of a tail (its first line is cut unless the tail starts the file).
fn tail_lines(tail: &[u8], at_start: bool) -> &[u8] {
    if at_start {
        return tail;
    }
    match memchr::memchr(b'\n', tail) {
        Some(end) => &tail[end + 1..],
        None => &[],
    }
}

/// Whether some line of the tail may hold the dedup key or the tool call of a signal in `batch`
/// (false means [`scan_tail`] would find none of them). A JSON string equals such a key only if
/// the key's bytes appear verbatim or the string spells a printable character as a `\u00XX`
/// escape, so a literal search decides, and any such escape (no writer makes one) sends the
/// append to the full scan.
fn tail_may_repeat(tail: &[u8], batch: &[Signal]) -> bool {
    let plain = |key: &str| {
        key.bytes()
            .all(|b| b.is_ascii_alphanumeric() || matches!(b, b'_' | b'-' | b'.' | b':'))
    };
    let escaped_printable = memchr::memmem::find_iter(tail, b"\\u00")
        .any(|at| matches!(tail.get(at + 4), Some(b'2'..=b'7')));
    if escaped_printable {
        return true;
    }
    batch.iter().any(|sig| {
        let key = sig.dedup_key();
        std::iter::once(key.as_str())
            .chain(sig.tool_use_id())
            .any(|needle| !plain(needle) || memchr::memmem::find(tail, needle.as_bytes()).is_some())
    })
}

/// The id of the tail's last signal line: what [`scan_tail`] reports as `last_id`, read backwards.
fn last_signal_id(tail: &[u8], at_start: bool) -> Option<String> {
    tail_lines(tail, at_start)
        .rsplit(|&b| b == b'\n')
        .filter(|l| !l.is_empty())
        .filter_map(|line| serde_json::from_slice::<TailProbe>(line).ok())
        .find_map(|p| {
            p.id.filter(|id| p.recur.is_none() && id.starts_with("SIG-"))
        })
        .map(Cow::into_owned)
}

/// Read the tail an append needs: the last id, recent captured fingerprints, reported calls.
fn scan_tail(tail: &[u8], at_start: bool, now: DateTime<Utc>) -> Tail {
    let lines = tail_lines(tail, at_start).split(|&b| b == b'\n');
    let window = now - Duration::days(CAPTURED_TTL_DAYS);
    let mut found = Tail {
        last_id: None,
        recent: HashMap::new(),
        calls: HashSet::new(),
    };
    for line in lines.filter(|l| !l.is_empty()) {
        let Ok(p) = serde_json::from_slice::<TailProbe>(line) else {
            continue;
        };
        let meta_call = p.meta.as_ref().and_then(|m| m.tool_use_id.clone());
        if let Some(call) = p.tool_use_id.or(meta_call) {
            found.calls.insert(call.into_owned());
        }
        let Some(id) = p.id.filter(|_| p.recur.is_none()) else {
            continue;
        };
        if id.starts_with("SIG-") {
            found.last_id = Some(id.to_string());
        }
        let captured = p.status.as_deref().unwrap_or("captured") == "captured";
        let fresh = p
            .timestamp
            .as_deref()
            .and_then(signal::parse_time)
            .is_some_and(|t| t >= window);
        if let (true, true, Some(key)) = (captured, fresh, p.meta.and_then(|m| m.dedup_key)) {
            let source = p.source;
            let recent = Recent {
                id: id.into_owned(),
                session_id: p.session_id.map(Cow::into_owned),
                line: source.as_ref().and_then(|s| s.line),
                uuid: source.and_then(|s| s.uuid).map(Cow::into_owned),
            };
            found.recent.insert(key.into_owned(), recent);
        }
    }
    found
}

fn read_or_empty(path: &Path) -> Result<Vec<u8>> {
    match fs::read(path) {
        Ok(b) => Ok(b),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(Vec::new()),
        Err(e) => Err(Error::io("cannot read", path, e)),
    }
}

/// Whether every line whose `id` or `recur` is `id` holds `id`'s bytes verbatim. A JSON string
/// spells these characters either as themselves or as a `\u` escape ([`find_in`] parses the lines
/// with one); a v2 line's id is derived from the line, which does not hold it.
fn spelled_verbatim(id: &str) -> bool {
    !id.is_empty()
        && !id.contains("-v2")
        && id
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || matches!(b, b'-' | b'_' | b'.' | b':'))
}

/// [`Snapshot::parse`] then [`Snapshot::get`] for an id that is [`spelled_verbatim`], parsing only
/// the lines that hold it or a `\u` escape: no other line can hold a string equal to it.
fn find_in(bytes: &[u8], id: &str) -> Option<Signal> {
    let finder = memchr::memmem::Finder::new(id.as_bytes());
    let escape = memchr::memmem::Finder::new(b"\\u");
    let mut found: Option<Signal> = None;
    let (mut sightings, mut last_seen) = (0, String::new());
    for line in crate::query::lines(bytes) {
        if finder.find(line).is_none() && escape.find(line).is_none() {
            continue;
        }
        match parse_line(line) {
            Record::Signal(s) | Record::Legacy(s) if found.is_none() && s.id == id => {
                found = Some(*s)
            }
            Record::Recur(r) if r.recur == id => {
                sightings += 1;
                if r.timestamp > last_seen {
                    last_seen = r.timestamp;
                }
            }
            _ => {}
        }
    }
    let mut signal = found?;
    if sightings > 0 {
        signal.fold_recurrences(sightings, &last_seen);
    }
    Some(signal)
}

/// A store's bytes as [`Store::view_bytes`] gives them.
///
/// A map is safe to read here because reflect never changes the bytes of a store file in place:
/// appends add past the mapped length and rewrites rename a new file over the old one, whose
/// inode the map keeps. (A file cut short in place by another program would make reads past its
/// new end fault; no reflect code path does that.) Mapping saves the copy into fresh memory and
/// the zeroing and faulting-in of that memory, most of a 64 MB query's system time.
pub enum StoreBytes {
    Read(Vec<u8>),
    Mapped(memmap2::Mmap),
}

impl std::ops::Deref for StoreBytes {
    type Target = [u8];
    fn deref(&self) -> &[u8] {
        match self {
            StoreBytes::Read(bytes) => bytes,
            StoreBytes::Mapped(map) => map,
        }
    }
}

/// Below this size a file is read rather than mapped: reading it costs less than mapping it.
const MAP_MIN_BYTES: u64 = 1 << 20;

/// The file's bytes, mapped when it is large.
fn map_or_read(path: &Path) -> std::io::Result<StoreBytes> {
    let file = File::open(path)?;
    if file.metadata()?.len() < MAP_MIN_BYTES {
        let mut bytes = Vec::new();
        (&file).read_to_end(&mut bytes)?;
        return Ok(StoreBytes::Read(bytes));
    }
    // SAFETY: the map is read-only and private, and reflect never writes a store file's bytes
    // in place (see `StoreBytes`), so the mapped bytes do not change while they are borrowed.
    unsafe { memmap2::Mmap::map(&file) }.map(StoreBytes::Mapped)
}

fn append_bytes(path: &Path, bytes: &[u8]) -> Result<()> {
    if bytes.is_empty() {
        return Ok(());
    }
    let mut f = OpenOptions::new()
        .create(true)
        .append(true)
        .mode(PRIVATE_FILE)
        .open(path)
        .ctx("cannot open", path)?;
    f.write_all(bytes).ctx("cannot append to", path)
}

/// The clock the store uses (one place, so the CLIs need no time crate).
pub fn now() -> DateTime<Utc> {
    Utc::now()
}

/// Apply the TTL rules; returns (pruned, flagged for review, archived).
pub fn apply_ttl(snap: &mut Snapshot, now: DateTime<Utc>) -> (usize, usize, usize) {
    let captured_cutoff = now - Duration::days(CAPTURED_TTL_DAYS);
    let review_cutoff = now - Duration::days(ANALYZED_REVIEW_DAYS);
    // A signal seen again recently is alive: its age counts from the last sighting.
    let age_of = |s: &Signal| {
        let last = s
            .meta
            .get("last_seen")
            .and_then(Value::as_str)
            .and_then(signal::parse_time);
        match (s.time(), last) {
            (Some(a), Some(b)) => Some(a.max(b)),
            (a, b) => a.or(b),
        }
    };
    let pruned = snap
        .remove_where(|s| {
            s.status == Status::Captured
                && s.confidence < CONFIDENCE_VERIFIED
                && age_of(s).is_some_and(|t| t < captured_cutoff)
        })
        .len();
    let mut flagged = 0;
    for entry in &mut snap.entries {
        let due = entry.signal().is_some_and(|s| {
            s.status == Status::Analyzed
                && age_of(s).is_some_and(|t| t < review_cutoff)
                && s.meta.get("needs_review") != Some(&Value::Bool(true))
        });
        if due {
            entry
                .signal_mut()
                .expect("a signal")
                .meta
                .insert("needs_review".into(), Value::Bool(true));
            flagged += 1;
        }
    }
    let archived =
        snap.take_to_archive(|s| matches!(s.status, Status::Promoted | Status::Dismissed));
    (pruned, flagged, archived)
}

/// Move signals of the given statuses (older than `days`, when given) to the archive queue.
pub fn archive_where(snap: &mut Snapshot, statuses: &[Status], days: Option<u32>) -> usize {
    let cutoff = days.map(|d| Utc::now() - Duration::days(i64::from(d)));
    snap.take_to_archive(|s| {
        statuses.contains(&s.status) && cutoff.is_none_or(|c| s.time().is_some_and(|t| t < c))
    })
}

/// Whether a kind counts as a "learning moment" (what the skills review first).
pub fn is_learning(kind: &Kind) -> bool {
    matches!(
        kind,
        Kind::Correction | Kind::Convention | Kind::Preference | Kind::Remember
    )
}

/// Where the quarantine of invalid lines lives.
pub fn invalid_lines_path(paths: &Paths) -> PathBuf {
    paths.data_dir.join("signals.invalid.jsonl")
}

/// Convert every v2 line to schema v1 in place (idempotent: v2 ids are derived from the line).
/// Returns how many lines were converted.
pub fn migrate_legacy(store: &Store, on_wait: &mut dyn FnMut()) -> Result<usize> {
    store.rewrite(on_wait, |snap| {
        let mut n = 0;
        for entry in &mut snap.entries {
            if entry.is_legacy() {
                let sig = entry
                    .signal_mut()
                    .expect("legacy entries hold a signal")
                    .clone();
                entry.record = Record::Signal(Box::new(sig));
                n += 1;
            }
        }
        Ok((n, n > 0))
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn view_bytes_are_the_file_bytes_mapped_or_read() {
        let (_dir, store) = store();
        assert!(store.view_bytes().unwrap().is_empty(), "no data dir yet");
        fs::create_dir_all(&store.paths.data_dir).unwrap();
        assert!(store.view_bytes().unwrap().is_empty(), "no store yet");
        for len in [10, (2 << 20) + 3] {
            let bytes: Vec<u8> = (0..len).map(|i| (i * 7 % 253) as u8).collect();
            fs::write(store.paths.store(), &bytes).unwrap();
            let view = store.view_bytes().unwrap();
            assert!(*view == bytes[..], "{len} bytes");
            assert_eq!(matches!(view, StoreBytes::Mapped(_)), len > 1 << 20);
            // A rewrite renames a new file over the mapped one: the view keeps the old bytes.
            let path = store.paths.store();
            fs::write(path.with_extension("new"), b"other").unwrap();
            fs::rename(path.with_extension("new"), &path).unwrap();
            assert!(*view == bytes[..], "{len} bytes after a rename");
        }
    }

    #[test]
    fn find_agrees_with_the_full_parser() {
        let mut bytes = crate::query::tests::mixed_store();
        // An id and a recurrence spelled with escapes, an id written twice (the first one is
        // found), a recurrence with an earlier time, a torn last line naming an id.
        bytes.extend_from_slice(
            b"{\"id\":\"\\u0053IG-20261130-00000000aa\",\"type\":\"gotcha\",\"content\":\"escaped\"}\n\
              {\"recur\":\"SIG-20261130-00000000a\\u0061\",\"timestamp\":\"2026-11-30T01:00:00Z\"}\n\
              {\"id\":\"SIG-20261101-0000000000\",\"type\":\"gotcha\",\"content\":\"second copy\"}\n\
              {\"recur\":\"SIG-20261101-0000000000\",\"timestamp\":\"2020-01-01T00:00:00Z\"}\n\
              {\"recur\":\"SIG-20261102-0000000001\",\"timest",
        );
        let snap = Snapshot::parse(&bytes);
        let mut ids: Vec<String> = snap.signals().map(|s| s.id.clone()).collect();
        ids.extend(["SIG-20991231-ffffffffff".to_string(), "nope".into()]);
        assert!(
            ids.iter().any(|id| id.contains("-v2")),
            "a v2 line is among them"
        );
        for id in &ids {
            let full = snap.get(id).map(|s| serde_json::to_value(s).unwrap());
            if spelled_verbatim(id) {
                let fast = find_in(&bytes, id).map(|s| serde_json::to_value(&s).unwrap());
                assert_eq!(fast, full, "{id}");
            }
        }
        let found = |id: &str| find_in(&bytes, id).unwrap();
        assert_eq!(found("SIG-20261130-00000000aa").content, "escaped");
        assert_eq!(found("SIG-20261130-00000000aa").seen(), 2);
        assert_ne!(found("SIG-20261101-0000000000").content, "second copy");
        assert!(find_in(&bytes, "SIG-20991231-ffffffffff").is_none());

        // Through the store: the archive is looked at when the store has no such id; v2 ids
        // take the full parse.
        let (_d, store) = store();
        fs::create_dir_all(&store.paths.data_dir).unwrap();
        fs::write(store.paths.store(), &bytes).unwrap();
        fs::write(
            store.paths.archive(),
            "{\"id\":\"SIG-20261001-00000000bb\",\"type\":\"gotcha\",\"content\":\"archived\"}\n",
        )
        .unwrap();
        assert_eq!(
            store
                .find("SIG-20261001-00000000bb")
                .unwrap()
                .unwrap()
                .content,
            "archived"
        );
        for id in &ids {
            let via_store = store
                .find(id)
                .unwrap()
                .map(|s| serde_json::to_value(&s).unwrap());
            let full = snap.get(id).map(|s| serde_json::to_value(s).unwrap());
            assert_eq!(via_store, full, "{id}");
        }
    }

    fn store() -> (tempfile::TempDir, Store) {
        let dir = tempfile::tempdir().unwrap();
        let paths = Paths::new(dir.path().join("c"), dir.path().join("d"));
        let store = Store::new(&paths, LockWait::CLI);
        (dir, store)
    }

    fn sig(kind: Kind, content: &str, session: &str, line: u64) -> Signal {
        let mut s = Signal::new(kind, content);
        s.session_id = Some(session.into());
        s.project = Some("/p".into());
        s.source.line = Some(line);
        s
    }

    #[test]
    fn append_assigns_increasing_ids_and_private_modes() {
        use std::os::unix::fs::PermissionsExt;
        let (_d, store) = store();
        let out = store
            .append(vec![
                sig(Kind::Failure, "a", "s", 1),
                sig(Kind::Failure, "b", "s", 2),
            ])
            .unwrap();
        assert_eq!(out.written.len(), 2);
        assert!(out.written[0] < out.written[1]);
        let mode = |p: &Path| fs::metadata(p).unwrap().permissions().mode() & 0o777;
        assert_eq!(mode(&store.paths().store()), 0o600);
        assert_eq!(mode(&store.paths().data_dir), 0o700);
    }

    #[test]
    fn a_tail_without_any_key_of_the_batch_gives_just_the_last_id() {
        let mut failure = sig(Kind::Failure, "Bash failed: Exit code 1", "s", 0);
        failure
            .meta
            .insert("tool_use_id".into(), Value::from("toolu_01abc"));
        let key = failure.dedup_key();
        let line = |id: &str, extra: &str| {
            format!(
                "{{\"id\":\"{id}\",\"type\":\"failure\",\"status\":\"captured\",\
                 \"timestamp\":\"2026-11-23T05:00:00Z\",\"meta\":{{{extra}}}}}\n"
            )
        };
        let other = line(
            "SIG-20261123-0000000001",
            "\"dedup_key\":\"0123456789abcdef\"",
        );
        let recur =
            "{\"recur\":\"SIG-20261123-0000000001\",\"timestamp\":\"2026-11-23T05:01:00Z\"}\n";
        let batch = [failure];
        let plain_tail = format!("torn first line\"}}\n{other}{recur}not json\n");
        assert!(!tail_may_repeat(plain_tail.as_bytes(), &batch));
        // The fast path's last id is the full scan's, backwards past recurrences and bad lines.
        for at_start in [false, true] {
            let full = scan_tail(plain_tail.as_bytes(), at_start, Utc::now()).last_id;
            assert_eq!(full.as_deref(), Some("SIG-20261123-0000000001"));
            assert_eq!(last_signal_id(plain_tail.as_bytes(), at_start), full);
        }
        assert_eq!(
            last_signal_id(other.as_bytes(), false),
            None,
            "a cut first line is no line"
        );

        let with_key = format!(
            "{other}{}",
            line("SIG-x", &format!("\"dedup_key\":\"{key}\""))
        );
        assert!(tail_may_repeat(with_key.as_bytes(), &batch));
        let with_call = format!(
            "{other}{}",
            line("SIG-x", "\"tool_use_id\":\"toolu_01abc\"")
        );
        assert!(tail_may_repeat(with_call.as_bytes(), &batch));
        // A call id spelled with an escape is the same string to a JSON parser.
        let escaped = format!(
            "{other}{}",
            line("SIG-x", r#""tool_use_id":"\u0074oolu_01abc""#)
        );
        assert!(tail_may_repeat(escaped.as_bytes(), &batch));
        // A control-character escape (common in tool errors) cannot spell a key.
        let control = format!("{other}{}", line("SIG-x", r#""tool":"\u001b[31m""#));
        assert!(!tail_may_repeat(control.as_bytes(), &batch));
    }

    #[test]
    fn a_call_stored_with_escapes_is_still_a_duplicate() {
        let (_d, store) = store();
        fs::create_dir_all(&store.paths().data_dir).unwrap();
        fs::write(
            store.paths().store(),
            "{\"id\":\"SIG-20261123-0000000001\",\"version\":1,\"type\":\"failure\",\
             \"content\":\"Bash failed\",\"meta\":{\"tool_use_id\":\"\\u0074oolu_9\"}}\n",
        )
        .unwrap();
        let mut failure = sig(Kind::Failure, "Read failed: no such file", "s", 0);
        failure
            .meta
            .insert("tool_use_id".into(), Value::from("toolu_9"));
        let out = store.append(vec![failure]).unwrap();
        assert_eq!((out.duplicates, out.written.len()), (1, 0));
    }

    #[test]
    fn repeats_become_recurrences_and_replays_are_dropped() {
        let (_d, store) = store();
        let first = store
            .append(vec![sig(Kind::Correction, "No, use pnpm!", "s1", 10)])
            .unwrap();
        let replay = store
            .append(vec![sig(Kind::Correction, "no use pnpm", "s1", 10)])
            .unwrap();
        assert_eq!(replay.duplicates, 1);
        let again = store
            .append(vec![sig(Kind::Correction, "No, use pnpm", "s2", 5)])
            .unwrap();
        assert_eq!(again.recurred, first.written);
        let third = store
            .append(vec![sig(Kind::Correction, "no, USE pnpm", "s3", 7)])
            .unwrap();
        assert_eq!(third.recurred, first.written);
        let snap = store.load().unwrap();
        assert_eq!(snap.signals().count(), 1);
        let s = snap.get(&first.written[0]).unwrap();
        assert_eq!((s.seen(), s.confidence), (3, 3));
        // A rewrite materializes the count and drops the records.
        store.rewrite(&mut || {}, |_| Ok(((), true))).unwrap();
        let text = fs::read_to_string(store.paths().store()).unwrap();
        assert_eq!(text.lines().count(), 1, "{text}");
        assert_eq!(
            store.load().unwrap().get(&first.written[0]).unwrap().seen(),
            3
        );
    }

    #[test]
    fn one_tool_call_is_one_failure_whoever_reports_it() {
        let (_d, store) = store();
        let call = |s: &Signal, id: &str| {
            let mut s = s.clone();
            s.meta.insert("tool_use_id".into(), Value::from(id));
            s
        };
        let mut from_hook = sig(Kind::Failure, "Bash failed: Exit code 1", "s", 0);
        from_hook.source.line = None;
        let from_transcript = sig(
            Kind::Failure,
            "Bash error: npm ERR! missing script",
            "s",
            40,
        );
        let first = store.append(vec![call(&from_hook, "toolu_1")]).unwrap();
        assert_eq!(first.written.len(), 1);
        assert_eq!(
            store
                .append(vec![call(&from_transcript, "toolu_1")])
                .unwrap()
                .duplicates,
            1
        );
        // The same failure on another call is a recurrence, and that call is remembered too.
        assert_eq!(
            store
                .append(vec![call(&from_hook, "toolu_2")])
                .unwrap()
                .recurred,
            first.written
        );
        assert_eq!(
            store
                .append(vec![call(&from_hook, "toolu_3")])
                .unwrap()
                .recurred,
            first.written
        );
        assert_eq!(
            store
                .append(vec![call(&from_transcript, "toolu_3")])
                .unwrap()
                .duplicates,
            1
        );
        let snap = store.load().unwrap();
        assert_eq!(snap.signals().count(), 1);
        assert_eq!(snap.signals().next().unwrap().seen(), 3);
    }

    #[test]
    fn torn_tail_is_isolated_and_invalid_lines_are_quarantined() {
        let (_d, store) = store();
        store.append(vec![sig(Kind::Failure, "a", "s", 1)]).unwrap();
        let path = store.paths().store();
        let mut f = OpenOptions::new().append(true).open(&path).unwrap();
        f.write_all(b"{\"id\":\"SIG-torn").unwrap();
        store.append(vec![sig(Kind::Failure, "b", "s", 2)]).unwrap();
        let snap = store.load().unwrap();
        assert_eq!((snap.health.signals, snap.health.invalid), (2, 1));
        store.rewrite(&mut || {}, |_| Ok(((), true))).unwrap();
        let snap = store.load().unwrap();
        assert_eq!((snap.health.signals, snap.health.invalid), (2, 0));
        let quarantine = fs::read_to_string(invalid_lines_path(store.paths())).unwrap();
        assert_eq!(quarantine, "{\"id\":\"SIG-torn\n");
    }

    #[test]
    fn unchanged_lines_are_written_back_byte_for_byte() {
        let (_d, store) = store();
        let path = store.paths().store();
        fs::create_dir_all(path.parent().unwrap()).unwrap();
        let foreign = r#"{"kind":"future-record","x":[1,2,3]}"#;
        let v2 = r#"{"ts":"2026-11-20T10:00:00Z","sid":"abc","type":"correction","context":"No, use pnpm","turn":3}"#;
        let spaced =
            r#"{"id": "SIG-20261120-0000000001", "type": "failure", "content": "x", "extra": 1}"#;
        fs::write(&path, format!("{foreign}\n{v2}\n{spaced}\n")).unwrap();
        store
            .append(vec![sig(Kind::Failure, "new", "s", 1)])
            .unwrap();
        let before = store.load().unwrap();
        assert_eq!(
            (
                before.health.foreign,
                before.health.legacy,
                before.health.signals
            ),
            (1, 1, 2)
        );
        store
            .rewrite(&mut || {}, |snap| {
                let id = snap.signals().last().unwrap().id.clone();
                snap.get_mut(&id).unwrap().status = Status::Analyzed;
                Ok(((), true))
            })
            .unwrap();
        let text = fs::read_to_string(&path).unwrap();
        let lines: Vec<&str> = text.lines().collect();
        assert_eq!(&lines[..3], &[foreign, v2, spaced]);
        assert!(lines[3].contains("\"status\":\"analyzed\""));
        assert_eq!(migrate_legacy(&store, &mut || {}).unwrap(), 1);
        assert_eq!(migrate_legacy(&store, &mut || {}).unwrap(), 0);
        let snap = store.load().unwrap();
        assert_eq!((snap.health.legacy, snap.health.signals), (0, 3));
    }

    #[test]
    fn ttl_prunes_flags_and_archives() {
        let (_d, store) = store();
        let now = Utc::now();
        let old = signal::format_time(now - Duration::days(40));
        let mut batch = Vec::new();
        for (status, conf) in [
            (Status::Captured, 1),
            (Status::Captured, 4),
            (Status::Analyzed, 1),
            (Status::Promoted, 1),
            (Status::Dismissed, 1),
        ] {
            let mut s = sig(Kind::Failure, &format!("{status} {conf}"), "s", 1);
            s.timestamp = old.clone();
            s.status = status;
            s.confidence = conf;
            batch.push(s);
        }
        batch.push(sig(Kind::Failure, "fresh", "s", 2));
        store.append(batch).unwrap();
        let counts = store.rewrite(&mut || {}, |snap| {
            let c = apply_ttl(snap, now);
            Ok((c, true))
        });
        assert_eq!(counts.unwrap(), (1, 1, 2));
        let snap = store.load().unwrap();
        let left: Vec<&str> = snap.signals().map(|s| s.content.as_str()).collect();
        assert_eq!(left, ["captured 4", "analyzed 1", "fresh"]);
        let archive = store.load_archive().unwrap();
        assert_eq!(archive.signals().count(), 2);
        assert!(archive.signals().all(|s| s.status == Status::Archived));
    }
}
