//! Careful file handling shared by every writer: reading a user's file safely, atomic replace,
//! backups, the sidecar lock with a bounded wait, private directories and the bounded error log.
//!
//! The rules for a file that belongs to the user (settings.json, a CLAUDE.md, a rules file):
//! - it is rewritten only when it is a regular file once links are followed, and of the kind the
//!   caller expects (the caller judges the kind: `reflect_app::settings` wants a JSON object,
//!   `reflect_app::promote` a Markdown file outside `.git/`). [`open_regular`] opens it with
//!   `O_NONBLOCK` and checks `fstat` before a byte is read, so a FIFO, a device or a directory in its
//!   place is refused at once instead of hanging or being replaced by a copy of our output;
//! - atomic replace follows zoxide's recipe: a unique temp file in the target's own directory, write
//!   everything, `sync_all`, keep the mode, rename over the target, sync the directory. A symlinked
//!   target is followed (the link stays a link, the file it names is replaced) and the temp file is
//!   removed on every error path;
//! - ownership stays the file's owner's: the temp file is given the original's uid and gid before the
//!   rename. Run as root (`sudo` with `HOME` kept), a file or directory reflect creates takes the owner
//!   of the directory it is created in, so the user's own `reflect-toggle off` and the hooks (which run
//!   as the user) can still write everything reflect made.
//!
//! One file a job: [`open`] (safe open), [`atomic`] (atomic replace), [`owner`] (private dirs and
//! ownership), [`temp`] (stale temp files), [`backup`](mod@backup), [`lock`] (the sidecar lock)
//! and [`log`] (the error log). Their functions are re-exported here, so callers say
//! `fsutil::atomic_write`.

use chrono::{SecondsFormat, Utc};

pub mod atomic;
pub mod backup;
pub mod lock;
pub mod log;
pub mod open;
pub mod owner;
pub mod temp;

pub use atomic::atomic_write;
pub use backup::{backup, backup_stem, backups_of, newest_backup};
pub use lock::{remove_lock_file, with_lock, LockWait};
#[cfg(test)]
use log::ERROR_LOG_MAX;
pub use log::{log_error, rotated_log, LOG_LINE_MAX};
pub use open::{not_regular, open_regular, read_regular, resolve_symlinks};
pub use owner::{create_dirs, ensure_private_dir, give_to_dir_owner};
#[cfg(all(test, unix))]
use temp::TEMP_STALE_AFTER;
pub use temp::{
    remove_stale_temps, remove_stale_temps_of, stale_temp, stale_temps, stale_temps_of,
};

/// Mode of every file reflect creates for itself (the store, cursors, logs, backups).
pub const PRIVATE_FILE: u32 = 0o600;
/// Mode of the data dir and its subdirectories.
pub(crate) const PRIVATE_DIR: u32 = 0o700;
/// Mode of a user file we create from nothing (a CLAUDE.md, a rules file): readable like the user's.
pub const USER_FILE: u32 = 0o644;

/// The current time as `2026-11-22T10:23:00Z`.
pub fn now_rfc3339() -> String {
    Utc::now().to_rfc3339_opts(SecondsFormat::Secs, true)
}

#[cfg(test)]
mod tests;
