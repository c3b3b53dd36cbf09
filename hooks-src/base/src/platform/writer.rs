//! Whether the writer of a temp file of [`crate::fsutil::atomic_write`] is gone, so that a file a
//! crash left behind can be removed while one being written stays. Nothing is sent to any process.
//!
//! Unix: the writer's process id is in the file's name; signal 0 asks whether it lives. Windows: a
//! writer holds its temp file open until the file is renamed into place, so the file is opened
//! with no sharing allowed: that fails while any process still holds it (the writer is alive),
//! and succeeds once every handle is closed (the writer is gone, or has just failed and is about
//! to remove it itself).

use std::path::Path;

/// `Some(true)` when the writer of the temp file `path` (process `pid`) is gone, `Some(false)`
/// when it is still at work, `None` when that cannot be told.
pub fn gone(path: &Path, pid: u32) -> Option<bool> {
    imp::gone(path, pid)
}

/// The id of a process that has just ended (this test binary, run once to list its tests).
#[cfg(all(test, unix))]
pub(crate) fn dead_pid() -> u32 {
    let mut child = std::process::Command::new(std::env::current_exe().unwrap())
        .arg("--list")
        .stdout(std::process::Stdio::null())
        .spawn()
        .unwrap();
    let pid = child.id();
    child.wait().unwrap();
    pid
}

#[cfg(unix)]
mod imp {
    use std::path::Path;

    pub fn gone(_path: &Path, pid: u32) -> Option<bool> {
        let pid = rustix::process::Pid::from_raw(i32::try_from(pid).ok()?)?;
        // Signal 0 only asks whether the process exists.
        Some(rustix::process::test_kill_process(pid) == Err(rustix::io::Errno::SRCH))
    }
}

#[cfg(windows)]
mod imp {
    use std::fs::OpenOptions;
    use std::os::windows::fs::OpenOptionsExt;
    use std::path::Path;

    use windows_sys::Win32::Foundation::ERROR_SHARING_VIOLATION;

    pub fn gone(path: &Path, _pid: u32) -> Option<bool> {
        match OpenOptions::new().read(true).share_mode(0).open(path) {
            Ok(_) => Some(true),
            Err(e) if e.raw_os_error() == Some(ERROR_SHARING_VIOLATION as i32) => Some(false),
            Err(_) => None,
        }
    }
}
