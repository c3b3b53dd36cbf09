//! The sidecar lock: an exclusive `flock` on a file that is never renamed, with a bounded wait.

use std::fs::{self, File, OpenOptions};
use std::io;
use std::os::unix::fs::{MetadataExt, OpenOptionsExt};
use std::path::{Path, PathBuf};
use std::thread;
use std::time::{Duration, Instant};

use super::log::log_error;
use super::owner::{ensure_private_dir, give_to_dir_owner};
use super::PRIVATE_FILE;
use crate::error::{Error, IoContext, Result};

/// How long a writer waits for the sidecar lock before giving up.
#[derive(Debug, Clone, Copy)]
pub struct LockWait {
    pub timeout: Duration,
}

impl LockWait {
    /// Hooks: short, because Claude is waiting on us (SessionEnd gives all its hooks 1.5 s). A
    /// hook that times out on the store lock spools its signals instead (`reflect_store::store`).
    pub const HOOK: LockWait = LockWait {
        timeout: Duration::from_millis(500),
    };
    /// CLIs: long enough to outlast any rewrite, short enough that a stuck process is reported.
    pub const CLI: LockWait = LockWait {
        timeout: Duration::from_secs(30),
    };
}

/// Run `f` while holding an exclusive lock on the sidecar file `lock_path` (created if missing,
/// never renamed, never written). Waits at most `wait.timeout`; `on_wait` is called once if the
/// lock is busy, so a CLI can say that it is waiting. On a file system that cannot lock at all
/// (flock fails with ENOTSUP/EOPNOTSUPP or ENOSYS: some network and FUSE mounts) `f` runs without
/// the lock, as cargo does there, and the error log says so once.
pub fn with_lock<T>(
    lock_path: &Path,
    wait: LockWait,
    on_wait: &mut dyn FnMut(),
    f: impl FnOnce() -> Result<T>,
) -> Result<T> {
    // The environment's error log, looked up only on a file system that cannot lock.
    let error_log = || crate::paths::Paths::from_env().ok().map(|p| p.error_log());
    locked_by(
        lock_path,
        wait,
        on_wait,
        error_log,
        fd_lock::RwLock::try_write,
        f,
    )
}

/// [`with_lock`] with the lock attempt and the error log given (tests inject flock's errors).
pub(super) fn locked_by<T>(
    lock_path: &Path,
    wait: LockWait,
    on_wait: &mut dyn FnMut(),
    error_log: impl FnOnce() -> Option<PathBuf>,
    try_lock: impl for<'a> Fn(
        &'a mut fd_lock::RwLock<File>,
    ) -> io::Result<fd_lock::RwLockWriteGuard<'a, File>>,
    f: impl FnOnce() -> Result<T>,
) -> Result<T> {
    if let Some(dir) = lock_path.parent() {
        ensure_private_dir(dir)?;
    }
    let start = Instant::now();
    let mut pause = Duration::from_micros(200);
    let mut told = false;
    // Each turn opens the file at the path: the one locked before was removed while we waited.
    'open: loop {
        let file = OpenOptions::new()
            .read(true)
            .write(true)
            .create(true)
            .truncate(false)
            .mode(PRIVATE_FILE)
            .open(lock_path)
            .ctx("cannot open lock", lock_path)?;
        give_to_dir_owner(&file, lock_path);
        let mut lock = fd_lock::RwLock::new(file);
        loop {
            match try_lock(&mut lock) {
                Ok(guard) => {
                    if !still_at(&guard, lock_path) {
                        continue 'open;
                    }
                    return f();
                }
                Err(e) if e.kind() == io::ErrorKind::WouldBlock => {
                    if start.elapsed() >= wait.timeout {
                        let verb = format!(
                            "timed out after {:.1}s waiting for lock",
                            wait.timeout.as_secs_f32()
                        );
                        let cause = io::Error::new(
                            io::ErrorKind::TimedOut,
                            "another reflect process holds it",
                        );
                        return Err(Error::io(&verb, lock_path, cause));
                    }
                    if !told {
                        told = true;
                        on_wait();
                    }
                    thread::sleep(pause);
                    pause = (pause * 2).min(Duration::from_millis(20));
                }
                Err(e) if locking_unsupported(&e) => {
                    if let Some(log) = error_log() {
                        note_no_locking(&log, lock_path, &e);
                    }
                    return f();
                }
                Err(e) => return Err(Error::io("cannot lock", lock_path, e)),
            }
        }
    }
}

/// Whether the file `held` is still the one at `path`. A lock file may be removed by a process
/// holding it ([`remove_lock_file`]); a waiter that then gets the lock of the removed file must
/// lock the file now at the path instead, or two processes would each hold "the" lock.
fn still_at(held: &File, path: &Path) -> bool {
    match (held.metadata(), fs::metadata(path)) {
        (Ok(a), Ok(b)) => (a.dev(), a.ino()) == (b.dev(), b.ino()),
        _ => false,
    }
}

/// Remove the lock file at `path` unless a process holds it: it is locked without waiting, `then`
/// runs while it is held (to remove what the lock guards), and the file is unlinked before it is
/// released; a process that was waiting on it then takes the lock of a new file (see
/// [`with_lock`]). `None` when the file is held or cannot be opened, else what `then` said.
pub fn remove_lock_file(path: &Path, then: impl FnOnce() -> bool) -> Option<bool> {
    let file = OpenOptions::new().read(true).write(true).open(path).ok()?;
    let mut lock = fd_lock::RwLock::new(file);
    let guard = lock.try_write().ok()?;
    if !still_at(&guard, path) {
        return None;
    }
    let done = then();
    let unlinked = fs::remove_file(path).is_ok();
    drop(guard);
    Some(done && unlinked)
}

/// flock's answers for "this file system does not lock" (the errno values differ between
/// platforms: ENOTSUP and EOPNOTSUPP are one on Linux, two on macOS).
fn locking_unsupported(e: &io::Error) -> bool {
    e.raw_os_error()
        .is_some_and(|c| c == libc::ENOTSUP || c == libc::EOPNOTSUPP || c == libc::ENOSYS)
}

/// Marker beside the error log: the lock-less file system has been noted already.
const NO_LOCKING_MARKER: &str = "lock-unsupported";

/// Note once in `log` that locks are skipped: the first writer to create the marker beside the log
/// writes the line, every later one (in any process) stays quiet.
fn note_no_locking(log: &Path, lock_path: &Path, e: &io::Error) {
    let marker = log.with_file_name(NO_LOCKING_MARKER);
    if let Some(dir) = marker.parent() {
        let _ = ensure_private_dir(dir);
    }
    let first = OpenOptions::new()
        .write(true)
        .create_new(true)
        .mode(PRIVATE_FILE)
        .open(&marker)
        .is_ok();
    if first {
        log_error(
            log,
            "reflect",
            &format!(
                "cannot lock {} ({e}): this file system does not support locks, so reflect writes \
                 without them (noted once; remove {} to be told again)",
                lock_path.display(),
                marker.display()
            ),
        );
    }
}
