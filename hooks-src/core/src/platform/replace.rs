//! Replacing a file by renaming another over it, atomically. On Unix `rename(2)` always succeeds
//! over a file that others hold open. On Windows `fs::rename` is `MoveFileExW` with
//! `MOVEFILE_REPLACE_EXISTING` (or its POSIX-semantics equivalent), which fails with a sharing or
//! access error while another process holds the target open without `FILE_SHARE_DELETE` (an
//! editor, a virus scanner, an indexer, usually for milliseconds): it is retried for a short while.

use std::io;
use std::path::Path;

/// Rename `from` over `to`, replacing it.
pub fn rename_over(from: &Path, to: &Path) -> io::Result<()> {
    imp::rename_over(from, to)
}

#[cfg(unix)]
mod imp {
    use std::io;
    use std::path::Path;

    pub fn rename_over(from: &Path, to: &Path) -> io::Result<()> {
        std::fs::rename(from, to)
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
