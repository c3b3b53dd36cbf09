//! Whether a large store file is read through a memory map. On Unix it is: a rewrite renames a new
//! file over the mapped one, which the map keeps. On Windows a file with a mapped view cannot be
//! replaced by rename (access denied for as long as any process maps it), so a reader there would
//! block every rewrite: the store is read into memory instead.

/// Whether large store files are mapped rather than read.
pub const MAP_LARGE_FILES: bool = imp::MAP_LARGE_FILES;

#[cfg(unix)]
mod imp {
    pub const MAP_LARGE_FILES: bool = true;
}

#[cfg(windows)]
mod imp {
    pub const MAP_LARGE_FILES: bool = false;
}
