//! Registering and removing our hooks in Claude Code's settings.json, and telling whether they are there.
//!
//! The file belongs to the user (and to Claude Code, which rewrites it on `plugin enable`). So an edit:
//! - touches only handlers that are ours: a command naming one of our four hook binaries, or a legacy
//!   v1/v2 script (`capture-signals.py`, `capture-failure.sh`, `capture-session-summary.py`,
//!   `inject-signals.sh`) or anything under a `self-reflect` directory, matched per shell word with
//!   globset ([`ours::recognize`] is the one place that decides, `doctor` asks it too);
//! - drops a matcher group, an event array or `hooks` itself only when removing our handlers emptied it;
//! - keeps every byte it does not edit: the file is never re-printed (serde would turn `1e2` into
//!   `100.0` and lose digits of a long integer); [`crate::jsonedit`] splices our entries in and
//!   out, laid out like their siblings (the file's indent unit, CRLF or LF, one line or spread);
//! - makes `off` right after `on` give back the very bytes `on` started from, containers `on` created
//!   gone and an empty `"hooks": {}` of the user's kept ([`Document::disable_after`], from the backup
//!   `on` made). When the file was edited in between, `off` removes our entries with exactly the text
//!   `on` inserted, and the containers that emptied;
//! - reads the file only when it is a regular file once links are followed ([`fsutil::read_regular`]:
//!   a FIFO or a device in its place is refused at once, never waited on or replaced), follows a
//!   symlinked file (the target is replaced, the link stays) and keeps its owner;
//! - accepts strict JSON with an object at the top, as Claude Code does (it calls a file with comments
//!   or trailing commas a "Settings Error"); refuses, with the exact place ("hooks.PreCompact is not an
//!   array", "hooks.Stop appears twice"), a file it cannot understand, and then writes nothing;
//! - writes nothing when nothing changes, so `on` twice equals `on` once, byte for byte, with one backup.
//!
//! Concurrency: a read-modify-write runs under the sidecar lock `settings.json.lock` (next to the path
//! we were given, never renamed, never written) and re-reads the file under it, so two toggles, or a
//! toggle and any tool using the same protocol, never lose each other's update. Just before the rename
//! the file is compared with what was read, and the edit is redone if it moved. What no lock can do:
//! an editor or Claude Code itself takes no lock, so a save landing between that last comparison and
//! our rename (microseconds) is overwritten; the backup in `<data dir>/backups/` holds the version we
//! replaced.

use std::fs;
use std::path::{Path, PathBuf};

use serde_json::Value;

use reflect_base::error::{Error, IoContext, Result};
use reflect_base::fsutil::{self, LockWait, PRIVATE_FILE};

mod document;
mod ours;
mod status;

pub(crate) use document::last_backup;
use document::shape_error;
pub use document::Document;
pub use ours::{HookForm, HookSpec, Recognized, HOOKS};
pub use status::{Change, Found, HookStatus, Overall, Status};

/// How many backups of settings.json are kept in `<data dir>/backups/`.
pub(crate) const SETTINGS_BACKUPS_KEPT: usize = 20;

/// The sidecar lock of a settings file: `settings.json.lock` next to it.
pub(crate) fn lock_path(settings: &Path) -> PathBuf {
    let mut name = settings
        .file_name()
        .map(|n| n.to_os_string())
        .unwrap_or_else(|| "settings.json".into());
    name.push(".lock");
    settings.with_file_name(name)
}

/// What an edit did (or, in a dry run, would do).
#[derive(Debug, Clone)]
pub struct Outcome {
    pub changes: Vec<Change>,
    pub written: bool,
    pub backup: Option<PathBuf>,
}

/// How many times the edit is redone when the file moves under us between read and write.
const EDIT_ATTEMPTS: usize = 5;

/// Set the member at `keys` of the settings file at `path` to `value` (see
/// [`Document::set_member`]), backed up to `backups`: a setting the user approved in `/reflect`.
pub fn set_member(path: &Path, backups: &Path, keys: &[&str], value: &Value) -> Result<Outcome> {
    let mut problem = None;
    let done = edit_file(path, backups, false, &mut || {}, |doc| {
        doc.set_member(keys, value).unwrap_or_else(|e| {
            problem = Some(e);
            Vec::new()
        })
    })?;
    match problem {
        Some(e) => Err(e),
        None => Ok(done),
    }
}

/// Apply `edit` to the settings file at `path`: checked and planned on a first read (no lock, no
/// write when nothing would change or in a dry run), then redone under the sidecar lock on a fresh
/// read, backed up to `backups` and written atomically.
pub(crate) fn edit_file(
    path: &Path,
    backups: &Path,
    dry_run: bool,
    on_wait: &mut dyn FnMut(),
    mut edit: impl FnMut(&mut Document) -> Vec<Change>,
) -> Result<Outcome> {
    if !dry_run {
        sweep_leftovers(path);
    }
    let mut planned = Document::load(path)?;
    let changes = edit(&mut planned);
    if changes.is_empty() || dry_run {
        return Ok(Outcome {
            changes,
            written: false,
            backup: None,
        });
    }
    refuse_read_only(path)?;
    fsutil::with_lock(&lock_path(path), LockWait::CLI, on_wait, || {
        for _ in 0..EDIT_ATTEMPTS {
            let mut doc = Document::load(path)?;
            let changes = edit(&mut doc);
            if changes.is_empty() {
                return Ok(Outcome {
                    changes,
                    written: false,
                    backup: None,
                });
            }
            let bytes = doc.render();
            refuse_read_only(path)?;
            // An editor takes no lock: if the file moved since our read, redo the edit on it.
            if fsutil::read_regular(path)? != doc.original {
                continue;
            }
            let backup = fsutil::backup(path, backups, SETTINGS_BACKUPS_KEPT, false)?;
            // A new settings file is private: settings often carry tokens under `env`.
            fsutil::atomic_write(path, &bytes, PRIVATE_FILE)?;
            return Ok(Outcome {
                changes,
                written: true,
                backup,
            });
        }
        Err(shape_error(
            path,
            format!("kept changing while we edited it ({EDIT_ATTEMPTS} attempts); try again"),
        ))
    })
}

/// Remove the temp files a killed rewrite of `path` left beside it (each a full copy of the
/// settings, `env` tokens included): those of writers that are gone ([`fsutil::stale_temps_of`]).
/// No lock is needed: a gone writer renames nothing.
pub(crate) fn sweep_leftovers(path: &Path) -> usize {
    fsutil::remove_stale_temps_of(path)
}

/// A read-only settings file, or one in a read-only directory, was made so on purpose (home-manager,
/// a dotfiles checkout): refuse rather than replace it. Checked on the mode bits, so it holds for root
/// too, who could write anyway.
pub(crate) fn refuse_read_only(path: &Path) -> Result<()> {
    let target = fsutil::resolve_symlinks(path).ctx("cannot resolve", path)?;
    let read_only = |p: &Path| fs::metadata(p).is_ok_and(|m| m.permissions().readonly());
    if read_only(&target) {
        return Err(Error::msg(format!(
            "{} is read-only; make it writable first (nothing was changed)",
            target.display()
        )));
    }
    if let Some(dir) = target.parent().filter(|d| !d.as_os_str().is_empty()) {
        if read_only(dir) {
            return Err(Error::msg(format!(
                "{} is in a read-only directory ({}); make it writable first (nothing was changed)",
                target.display(),
                dir.display()
            )));
        }
    }
    Ok(())
}

/// Refuse a settings path beside which no sidecar lock can be made (its directory cannot be made,
/// a file stands where it would be, or on Windows a named pipe nobody serves, which opens as no
/// file): the lock is taken only when the hooks are edited, and `on` installs before that. Taken
/// once and let go, so it waits while another reflect process holds it.
pub(crate) fn refuse_unlockable(path: &Path, on_wait: &mut dyn FnMut()) -> Result<()> {
    fsutil::with_lock(&lock_path(path), LockWait::CLI, on_wait, || Ok(()))
}

/// Read the file and report where our hooks stand.
pub fn status(path: &Path, bin_dir: &Path) -> Result<Status> {
    Ok(Document::load(path)?.status(bin_dir))
}

#[cfg(test)]
mod tests;
