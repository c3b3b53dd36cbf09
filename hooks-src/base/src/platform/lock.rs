//! The answers of the lock call (flock on Unix, `LockFileEx` on Windows, both taken through
//! fd-lock) that mean "this file system cannot lock at all", as some network and FUSE mounts say.

use std::io;

/// The raw OS errors of a lock attempt that mean "not supported here".
pub use imp::UNSUPPORTED;

/// Whether `e`, from a lock attempt, means the file system does not lock.
pub fn unsupported(e: &io::Error) -> bool {
    e.raw_os_error().is_some_and(|c| UNSUPPORTED.contains(&c))
}

#[cfg(unix)]
mod imp {
    /// ENOTSUP and EOPNOTSUPP are one on Linux, two on macOS.
    pub const UNSUPPORTED: [i32; 3] = [libc::ENOTSUP, libc::EOPNOTSUPP, libc::ENOSYS];
}

#[cfg(windows)]
mod imp {
    use windows_sys::Win32::Foundation::{ERROR_INVALID_FUNCTION, ERROR_NOT_SUPPORTED};

    pub const UNSUPPORTED: [i32; 2] = [ERROR_NOT_SUPPORTED as i32, ERROR_INVALID_FUNCTION as i32];
}
