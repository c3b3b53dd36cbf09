//! Whether two open files are the same file: device and inode on Unix, volume serial number and
//! file index on Windows (what `GetFileInformationByHandle` gives; std keeps its own accessor
//! unstable).

use std::fs::File;
use std::path::Path;

/// Whether the open file `held` is the file now at `path`. `false` when either cannot be asked.
pub fn is_at(held: &File, path: &Path) -> bool {
    match (imp::id(held), imp::id_at(path)) {
        (Some(x), Some(y)) => x == y,
        _ => false,
    }
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
    use std::os::windows::io::AsRawHandle;
    use std::path::Path;

    use windows_sys::Win32::Storage::FileSystem::{
        GetFileInformationByHandle, BY_HANDLE_FILE_INFORMATION,
    };

    pub fn id(f: &File) -> Option<(u64, u64)> {
        // SAFETY: a zeroed BY_HANDLE_FILE_INFORMATION is valid (plain integers), and the handle
        // is the open file's own.
        let mut info: BY_HANDLE_FILE_INFORMATION = unsafe { std::mem::zeroed() };
        let ok = unsafe { GetFileInformationByHandle(f.as_raw_handle(), &mut info) };
        (ok != 0).then(|| {
            let index = (u64::from(info.nFileIndexHigh) << 32) | u64::from(info.nFileIndexLow);
            (u64::from(info.dwVolumeSerialNumber), index)
        })
    }

    /// The file is opened (for no access beyond its attributes' worth) to be asked.
    pub fn id_at(path: &Path) -> Option<(u64, u64)> {
        id(&File::open(path).ok()?)
    }
}
