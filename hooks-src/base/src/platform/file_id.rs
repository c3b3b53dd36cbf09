//! Whether two open files are the same file: device and inode on Unix, volume serial number and
//! file index on Windows (what `GetFileInformationByHandle` gives, through winapi-util; std keeps
//! its own accessor unstable).

use std::fs::File;
use std::path::Path;

/// Whether the open file `held` is the file now at `path`. `false` when either cannot be asked.
pub fn is_at(held: &File, path: &Path) -> bool {
    match (imp::id(held), imp::id_at(path)) {
        (Some(x), Some(y)) => x == y,
        _ => false,
    }
}

/// The identity of the file now at `path` (device and inode, or volume and file index), `None`
/// when it cannot be asked.
pub fn of_path(path: &Path) -> Option<(u64, u64)> {
    imp::id_at(path)
}

#[cfg(unix)]
mod imp {
    use std::fs::File;
    use std::os::unix::fs::MetadataExt;
    use std::path::Path;

    pub fn id(f: &File) -> Option<(u64, u64)> {
        f.metadata().ok().map(|m| (m.dev(), m.ino()))
    }

    pub fn id_at(path: &Path) -> Option<(u64, u64)> {
        std::fs::metadata(path).ok().map(|m| (m.dev(), m.ino()))
    }
}

#[cfg(windows)]
mod imp {
    use std::fs::File;
    use std::path::Path;

    pub fn id(f: &File) -> Option<(u64, u64)> {
        let info = winapi_util::file::information(f).ok()?;
        Some((info.volume_serial_number(), info.file_index()))
    }

    /// The file is opened to be asked (std's metadata does not carry the index).
    pub fn id_at(path: &Path) -> Option<(u64, u64)> {
        id(&File::open(path).ok()?)
    }
}
