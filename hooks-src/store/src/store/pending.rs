//! The spool (`<data dir>/pending/`): batches a hook could not append because the lock stayed
//! busy, and their folding into the store; and the sweep of what crashed writers left behind.
//!
//! **Why.** A hook waits for the store lock only briefly ([`fsutil::LockWait::HOOK`]): Claude is
//! waiting on it, and a rewrite of a large store can hold the lock longer. So on a timeout a hook
//! writes its batch, prepared (redacted) as an append would, to a file of its own in `pending/`
//! (temp file and rename: no lock needed) rather than lose it.
//!
//! **Folding.** Every writer holding the lock (each append and rewrite) first folds the spool in:
//! the files in name order (a name starts with its time), each appended as an append would, then
//! removed. A crash before the removal folds the file again, and the append's dedup drops what
//! is already there (the same tool call, the same transcript line of the same session). A line
//! that is not a signal goes to the quarantine; a file that cannot be read stays (doctor reports
//! it), never stopping the write at hand. Readers do not fold: a spooled signal is listed from
//! the next write on (the next hook, or the prune /reflect runs).
//!
//! **Leftovers.** A writer killed between creating its temp file and renaming it leaves the temp
//! file; each rewrite removes those of writers that are gone ([`fsutil::stale_temp`]) from every
//! directory reflect writes into.

use std::fs;
use std::sync::atomic::{AtomicU64, Ordering};

use chrono::Utc;

use super::append::{prepare, AppendOutcome};
use super::{append_bytes, invalid_lines_path, Store};
use crate::signal::Signal;
use reflect_base::error::{Error, Result};
use reflect_base::fsutil::{self, PRIVATE_FILE};
use reflect_base::paths::Paths;

impl Store {
    /// [`Store::append`], or, when the lock stays busy longer than this store's wait, the batch
    /// spooled to `pending/` for the next writer to fold in (a long rewrite must not cost a hook).
    pub fn append_or_spool(&self, batch: Vec<Signal>) -> Result<AppendOutcome> {
        let kept = batch.clone();
        match self.append(batch) {
            Err(e) if e.io_kind() == Some(std::io::ErrorKind::TimedOut) => {
                let spooled = kept.len();
                self.spool(kept).map_err(|spool| {
                    Error::msg(format!(
                        "{e}; and the signals could not be spooled: {spool}"
                    ))
                })?;
                Ok(AppendOutcome {
                    spooled,
                    ..AppendOutcome::default()
                })
            }
            other => other,
        }
    }

    /// Write `batch`, prepared, to a new file in `pending/` (no lock).
    fn spool(&self, mut batch: Vec<Signal>) -> Result<()> {
        static COUNTER: AtomicU64 = AtomicU64::new(0);
        let dir = self.paths.pending();
        fsutil::ensure_private_dir(&dir)?;
        let now = Utc::now();
        let mut bytes = Vec::new();
        for sig in &mut batch {
            prepare(sig, now);
            serde_json::to_writer(&mut bytes, sig).expect("a signal serializes");
            bytes.push(b'\n');
        }
        let (pid, n) = (std::process::id(), COUNTER.fetch_add(1, Ordering::Relaxed));
        let name = format!("{}-{pid}-{n}.jsonl", now.format("%Y%m%dT%H%M%S%.9fZ"));
        fsutil::atomic_write(&dir.join(name), &bytes, PRIVATE_FILE)
    }

    /// Fold the spool into the store, oldest file first. Must be called under the lock.
    pub(super) fn fold_pending(&self) -> Result<()> {
        let dir = self.paths.pending();
        for name in spooled(&self.paths) {
            let path = dir.join(&name);
            // A file that cannot be read is left for doctor to report, never stopping this write.
            let Ok(Some(bytes)) = fsutil::read_regular(&path) else {
                continue;
            };
            let mut batch = Vec::new();
            let mut invalid = Vec::new();
            for line in bytes.split(|&b| b == b'\n').filter(|l| !l.is_empty()) {
                match serde_json::from_slice::<Signal>(line) {
                    Ok(sig) => batch.push(sig),
                    Err(_) => invalid.extend(line.iter().chain(b"\n")),
                }
            }
            if !batch.is_empty() {
                self.append_locked(batch)?;
            }
            append_bytes(&invalid_lines_path(&self.paths), &invalid)?;
            // Should the removal fail, the next fold's dedup drops what is already stored.
            let _ = fs::remove_file(&path);
        }
        Ok(())
    }

    /// Remove the temp files crashed writers left (see the module docs). Best effort.
    pub(super) fn sweep_leftovers(&self) {
        for dir in self.paths.atomic_dirs() {
            fsutil::remove_stale_temps(&dir);
        }
    }
}

/// The names of the spooled batches in `pending/`, oldest first (a name starts with its time).
pub fn spooled(paths: &Paths) -> Vec<String> {
    let mut names: Vec<String> = fs::read_dir(paths.pending())
        .into_iter()
        .flatten()
        .flatten()
        .map(|e| e.file_name().to_string_lossy().into_owned())
        .filter(|n| !n.starts_with('.') && n.ends_with(".jsonl"))
        .collect();
    names.sort();
    names
}
