//! Replacing a file by renaming another over it, atomically. On Unix `rename(2)` always succeeds
//! over a file that others hold open. On Windows `fs::rename` is `MoveFileExW` with
//! `MOVEFILE_REPLACE_EXISTING` (or its POSIX-semantics equivalent), which fails with a sharing or
//! access error while another process holds the target open without `FILE_SHARE_DELETE` (an
//! editor, a virus scanner, an indexer, usually for milliseconds): it is retried for a short while.
//!
//! Removing a file that is open: on Unix the name goes at once. On Windows (before POSIX delete
//! semantics, and under Wine) the name stays, "delete pending", until the last handle closes, so
//! a process opening the path meanwhile gets the doomed file (or an access error) instead of a new
//! one; the file is therefore renamed to a unique name beside it first, then deleted.

use std::io;
use std::path::Path;

/// Rename `from` over `to`, replacing it.
pub fn rename_over(from: &Path, to: &Path) -> io::Result<()> {
    imp::rename_over(from, to)
}

/// Remove `path`, which others may hold open, so that the path is free at once.
pub fn remove_open(path: &Path) -> io::Result<()> {
    imp::remove_open(path)
}

#[cfg(unix)]
mod imp {
    use std::io;
    use std::path::Path;

    pub fn rename_over(from: &Path, to: &Path) -> io::Result<()> {
        std::fs::rename(from, to)
    }

    pub fn remove_open(path: &Path) -> io::Result<()> {
        std::fs::remove_file(path)
    }
}

#[cfg(windows)]
mod imp {
    use std::io;
    use std::path::Path;
    use std::time::{Duration, Instant};

    use windows_sys::Win32::Foundation::{
        ERROR_ACCESS_DENIED, ERROR_LOCK_VIOLATION, ERROR_SHARING_VIOLATION,
    };

    /// How long another process may hold the target before the rename gives up.
    const RETRY_FOR: Duration = Duration::from_secs(1);

    pub fn rename_over(from: &Path, to: &Path) -> io::Result<()> {
        let start = Instant::now();
        let mut pause = Duration::from_millis(2);
        loop {
            match std::fs::rename(from, to) {
                Err(e) if held(&e) && start.elapsed() < RETRY_FOR => {
                    std::thread::sleep(pause);
                    pause = (pause * 2).min(Duration::from_millis(50));
                }
                other => return other,
            }
        }
    }

    pub fn remove_open(path: &Path) -> io::Result<()> {
        static COUNTER: std::sync::atomic::AtomicU64 = std::sync::atomic::AtomicU64::new(0);
        let n = COUNTER.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
        let mut doomed = path.as_os_str().to_owned();
        doomed.push(format!(".{}.{n}.removed", std::process::id()));
        let doomed = std::path::PathBuf::from(doomed);
        match std::fs::rename(path, &doomed) {
            Ok(()) => std::fs::remove_file(&doomed),
            // Not renamable (another process's handle lacks share-delete): delete in place.
            Err(e) if e.kind() != io::ErrorKind::NotFound => std::fs::remove_file(path),
            Err(e) => Err(e),
        }
    }

    fn held(e: &io::Error) -> bool {
        e.raw_os_error().is_some_and(|c| {
            [
                ERROR_SHARING_VIOLATION,
                ERROR_ACCESS_DENIED,
                ERROR_LOCK_VIOLATION,
            ]
            .iter()
            .any(|&w| w as i32 == c)
        })
    }
}
