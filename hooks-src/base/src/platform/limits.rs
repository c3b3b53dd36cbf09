//! The longest path the system accepts, in bytes of UTF-8: a payload path longer than this cannot
//! name a file.

/// The longest path, in bytes.
pub const MAX_PATH_BYTES: usize = imp::MAX_PATH_BYTES;

#[cfg(unix)]
mod imp {
    pub const MAX_PATH_BYTES: usize = libc::PATH_MAX as usize;
}

#[cfg(windows)]
mod imp {
    /// Windows takes paths of up to 32,767 UTF-16 units (a `UNICODE_STRING` counts its length in
    /// bytes in a `u16`), and one unit is at most 3 bytes of UTF-8.
    pub const MAX_PATH_BYTES: usize = (u16::MAX as usize / 2) * 3;
}
