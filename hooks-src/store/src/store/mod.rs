//! The signal store: `signals.jsonl` in the data dir, one JSON object per line. This module owns
//! the line format end to end: what a line is ([`line`](mod@line)), the one reader every pass over the
//! store goes through ([`read`], with the scanner as its fast path), and the writers.
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
//! **The spool.** A hook that cannot get the lock in time spools its batch to `pending/`; every
//! append and rewrite folds the spool in first, under the lock ([`pending`]). Rewrites also
//! remove the temp files of writers killed mid-write.
//!
//! **Torn tail.** If the file does not end in a newline (a writer died mid-line), the next append
//! starts with one, so the torn fragment stays a single invalid line and loses nothing after it.

mod append;
mod filter;
mod lifecycle;
mod line;
mod pending;
pub mod read;
mod scan;
mod select;
mod snapshot;
mod stats;
#[cfg(test)]
mod tests;

use reflect_base::platform::modes::CreateMode;
use std::collections::HashSet;
use std::fs::{File, OpenOptions};
use std::io::{Read as _, Write};
use std::path::{Path, PathBuf};

use memchr::memmem::Finder;
use serde_json::Value;

use crate::signal::{Signal, Status};
use reflect_base::error::{Error, IoContext, Result};
use reflect_base::fsutil::{self, LockWait, PRIVATE_FILE};
use reflect_base::paths::Paths;

pub use append::{prepare, AppendOutcome, Appended, Sighted, TAIL_BYTES};
pub use filter::{within, Filter, Selectable};
pub use lifecycle::{review_since, Changes, CAPTURED_TTL_DAYS};
pub use line::{parse_line, Record};
pub use pending::spooled;
pub use read::{Pass, Read, Sightings, View};
pub use scan::{Key, Shape};
pub use select::{select, select_with, Selection};
pub use snapshot::{Entry, Health, Snapshot};
pub use stats::{stats, stats_with, Stats};

/// Store backups kept in `backups/` (hard links, so they cost little until the store changes).
pub(crate) const STORE_BACKUPS_KEPT: usize = 10;

/// The store in one data dir.
#[derive(Debug, Clone)]
pub struct Store {
    paths: Paths,
    wait: LockWait,
}

impl Store {
    pub fn new(paths: &Paths, wait: LockWait) -> Store {
        let paths = paths.clone();
        Store { paths, wait }
    }

    pub fn paths(&self) -> &Paths {
        &self.paths
    }

    /// Run `f` under the store lock. `on_wait` is told once if another process holds it.
    pub fn locked<T>(&self, on_wait: &mut dyn FnMut(), f: impl FnOnce() -> Result<T>) -> Result<T> {
        fsutil::ensure_private_dir(&self.paths.data_dir)?;
        fsutil::with_lock(&self.paths.lock(), self.wait, on_wait, f)
    }

    /// The store's bytes, read under the lock (a consistent view between two writes).
    pub fn view_bytes(&self) -> Result<StoreBytes> {
        if !self.paths.data_dir.is_dir() {
            return Ok(StoreBytes::Read(Vec::new()));
        }
        self.locked(&mut || {}, || view_unlocked(&self.paths.store()))
    }

    /// Read and parse the whole store (parsing after the lock is released).
    pub fn load(&self) -> Result<Snapshot> {
        Ok(Snapshot::parse(&self.view_bytes()?))
    }

    /// Read the archive file (no lock needed for a consistent view: it only changes by rename).
    pub(crate) fn load_archive(&self) -> Result<Snapshot> {
        Ok(Snapshot::parse(&view_unlocked(&self.paths.archive())?))
    }

    /// The signals of one session (captured in it, or seen again in it), recurrences folded in,
    /// for `inject-signals`, which must stay cheap on a large store: read without the lock, and
    /// only the lines a literal search for the session id selects are parsed.
    pub fn session_signals(&self, session_id: &str) -> Result<Vec<Signal>> {
        let bytes = view_unlocked(&self.paths.store())?;
        let quoted = serde_json::to_string(session_id).expect("a string serializes");
        let needle = format!("\"session_id\":{quoted}");
        let finder = Finder::new(needle.as_bytes());
        let mut signals: Vec<Signal> = Vec::new();
        let mut sightings = Sightings::default();
        let mut seen_here: HashSet<String> = HashSet::new();
        let holds_session =
            |line: &[u8]| line.starts_with(b"{\"recur\"") || finder.find(line).is_some();
        let (triage, session) = (read::parse_if(holds_session), Some(session_id.to_string()));
        read::visit(&bytes, triage, |_, view| match view.into_record() {
            Record::Signal(s) | Record::Legacy(s) if s.session_id == session => signals.push(*s),
            Record::Recur(r) => {
                sightings.add(&r.recur, &r.timestamp, r.session_id.as_deref());
                if r.session_id == session {
                    seen_here.insert(r.recur);
                }
            }
            _ => {}
        });
        seen_here.retain(|id| !signals.iter().any(|s| &s.id == id));
        if !seen_here.is_empty() {
            // Signals first captured in another session and seen again in this one.
            let finders: Vec<_> = seen_here.iter().map(Finder::new).collect();
            let holds_one = |line: &[u8]| finders.iter().any(|f| f.find(line).is_some());
            read::visit(&bytes, read::parse_if(holds_one), |_, view| {
                match view.into_record() {
                    Record::Signal(s) if seen_here.contains(&s.id) => signals.push(*s),
                    _ => {}
                }
            });
        }
        for s in &mut signals {
            sightings.fold(s);
        }
        Ok(signals)
    }

    /// The signal `id` as the store and then the archive hold it, recurrences folded in, as
    /// [`Snapshot::get`] gives it, without parsing every line (`memory-store get`, which the
    /// /reflect skill runs once per signal it looks at).
    pub fn find(&self, id: &str) -> Result<Option<Signal>> {
        if let Some(s) = find_in(&self.view_bytes()?, id) {
            return Ok(Some(s));
        }
        Ok(find_in(&view_unlocked(&self.paths.archive())?, id))
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
            self.sweep_leftovers();
            self.fold_pending()?;
            let mut snap = Snapshot::parse(&view_unlocked(&path)?);
            let (result, changed) = f(&mut snap)?;
            if !changed {
                return Ok(result);
            }
            if !snap.archive_out.is_empty() {
                self.append_archive(std::mem::take(&mut snap.archive_out))?;
            }
            let (bytes, invalid) = snap.render();
            append_bytes(&invalid_lines_path(&self.paths), &invalid)?;
            self.replace(&path, &bytes)?;
            // The key index follows the new file: what it keeps captured, fresh.
            let window = chrono::Utc::now() - chrono::Duration::days(CAPTURED_TTL_DAYS);
            crate::keyindex::rebuild(&path, snap.signals(), &crate::signal::format_time(window));
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
            let mut snap = Snapshot::parse(&view_unlocked(&path)?);
            let (result, changed) = f(&mut snap)?;
            if changed {
                let (mut bytes, invalid) = snap.render();
                bytes.extend_from_slice(&invalid);
                self.replace(&path, &bytes)?;
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
        let bytes = view_unlocked(&path)?;
        let existing = Snapshot::parse(&bytes);
        let known: HashSet<&str> = existing.signals().map(|s| s.id.as_str()).collect();
        let mut out = Vec::new();
        if !bytes.is_empty() && !bytes.ends_with(b"\n") {
            out.push(b'\n');
        }
        let unknown = |s: &Signal| !known.contains(s.id.as_str());
        for mut sig in signals.into_iter().filter(unknown) {
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

/// Every sighting of `sessions` that the store and the archive hold, as `each(session, source,
/// dedup_key)`: each signal (any status, v2 too) and recurrence record whose `session_id` is one
/// of them, and each sighting a signal keeps in `meta.sightings` (where a rewrite folds its
/// records; with no dedup key, as a record has none). Only lines holding one of the ids as a
/// JSON string are parsed, without the lock (a long rewrite must not hold up a hook).
pub fn sightings_of(
    paths: &Paths,
    sessions: &HashSet<&str>,
    mut each: impl FnMut(&str, &crate::signal::Source, Option<&str>),
) -> Result<()> {
    if sessions.is_empty() {
        return Ok(());
    }
    let quoted = |s: &&str| serde_json::to_string(s).expect("a string serializes");
    let needles: Vec<String> = sessions.iter().map(quoted).collect();
    let finder = aho_corasick::AhoCorasick::new(&needles).map_err(|e| Error::msg(e.to_string()))?;
    for file in [paths.store(), paths.archive()] {
        let bytes = view_unlocked(&file)?;
        let triage = read::parse_if(|line| finder.is_match(line));
        read::visit(&bytes, triage, |_, view| {
            let (session, source, key) = match view.into_record() {
                Record::Signal(s) | Record::Legacy(s) => {
                    for (session, source) in crate::sighting::kept(&s) {
                        if sessions.contains(session) {
                            each(session, &source, None);
                        }
                    }
                    let key = s.meta.get("dedup_key").and_then(Value::as_str);
                    (s.session_id, s.source, key.map(str::to_string))
                }
                Record::Recur(r) => (r.session_id, r.source, None),
                _ => return,
            };
            if let Some(session) = session.filter(|s| sessions.contains(s.as_str())) {
                each(&session, &source, key.as_deref());
            }
        });
    }
    Ok(())
}

/// Where the quarantine of invalid lines lives.
pub fn invalid_lines_path(paths: &Paths) -> PathBuf {
    paths.data_dir.join("signals.invalid.jsonl")
}

/// [`Snapshot::parse`] then [`Snapshot::get`], parsing only the lines that hold `id` or a `\u`
/// escape when that is how every line naming `id` spells it ([`spelled_as_is`]; a v2 line's id
/// is derived from the line, which does not hold it).
pub(super) fn find_in(bytes: &[u8], id: &str) -> Option<Signal> {
    let verbatim = !id.is_empty() && !id.contains("-v2") && spelled_as_is(id);
    let finder = Finder::new(id.as_bytes());
    let escape = Finder::new(b"\\u");
    let mut found: Option<Signal> = None;
    let mut sightings = Sightings::default();
    let holds_id =
        |line: &[u8]| !verbatim || finder.find(line).is_some() || escape.find(line).is_some();
    let triage = read::parse_if(holds_id);
    read::visit(bytes, triage, |_, view| match view.into_record() {
        Record::Signal(s) | Record::Legacy(s) if found.is_none() && s.id == id => found = Some(*s),
        Record::Recur(r) if r.recur == id => sightings.add_record(&r),
        _ => {}
    });
    let mut signal = found?;
    sightings.fold(&mut signal);
    crate::sighting::add_evidence(&mut signal, sightings.evidence(id));
    Some(signal)
}

pub(super) fn append_bytes(path: &Path, bytes: &[u8]) -> Result<()> {
    if bytes.is_empty() {
        return Ok(());
    }
    let mut f = OpenOptions::new()
        .create(true)
        .append(true)
        .create_mode(PRIVATE_FILE)
        .open(path)
        .ctx("cannot open", path)?;
    fsutil::give_to_dir_owner(&f, path);
    f.write_all(bytes).ctx("cannot append to", path)
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

/// Whether a JSON string holding `s` spells each of its characters as itself or as a `\u`
/// escape, never otherwise (as `\/` spells `/`), so a literal search for `s` and `\u` finds it.
fn spelled_as_is(s: &str) -> bool {
    s.bytes()
        .all(|b| b.is_ascii_alphanumeric() || matches!(b, b'-' | b'_' | b'.' | b':'))
}

/// The bytes of the store file at `path`, mapped when large; empty when there is no such file, an
/// error at once when it is not a regular file ([`fsutil::open_regular`]). Without the lock, a
/// line half-written by a concurrent append fails to parse and is skipped.
pub(crate) fn view_unlocked(path: &Path) -> Result<StoreBytes> {
    match fsutil::open_regular(path)? {
        Some(file) => map_file(file).map_err(|e| Error::io("cannot read", path, e)),
        None => Ok(StoreBytes::Read(Vec::new())),
    }
}

/// The file's bytes, mapped when it is large.
fn map_file(mut file: File) -> std::io::Result<StoreBytes> {
    if !reflect_base::platform::map::MAP_LARGE_FILES || file.metadata()?.len() < MAP_MIN_BYTES {
        let mut bytes = Vec::new();
        file.read_to_end(&mut bytes)?;
        return Ok(StoreBytes::Read(bytes));
    }
    // SAFETY: the map is read-only and private, and reflect never writes a store file's bytes
    // in place (see `StoreBytes`), so the mapped bytes do not change while they are borrowed.
    unsafe { memmap2::Mmap::map(&file) }.map(StoreBytes::Mapped)
}
