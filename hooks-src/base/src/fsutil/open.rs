//! Opening a user's file safely: only a regular file once links are followed, checked on the
//! open file before a byte is read.

use std::fs::{self, File, Metadata, OpenOptions};
use std::io::{self, Read};
use std::os::unix::fs::{FileTypeExt, OpenOptionsExt};
use std::path::{Path, PathBuf};

use crate::error::{Error, IoContext, Result};

/// Why `meta` is not a file we read or replace: "… is a FIFO, not a regular file".
pub fn not_regular(path: &Path, meta: &Metadata) -> Error {
    let t = meta.file_type();
    let kind = if t.is_dir() {
        "a directory"
    } else if t.is_fifo() {
        "a FIFO"
    } else if t.is_char_device() || t.is_block_device() {
        "a device"
    } else if t.is_socket() {
        "a socket"
    } else {
        "a special file"
    };
    Error::msg(format!(
        "{} is {kind}, not a regular file (nothing was read or changed)",
        path.display()
    ))
}

/// Open `path` (links followed) for reading, without blocking: `O_NONBLOCK` so a FIFO with no
/// writer does not wait, then `fstat` on the open file, so what is checked is what is read.
/// `Ok(None)` when there is no such file; an error naming the kind when it is not a regular file.
pub fn open_regular(path: &Path) -> Result<Option<File>> {
    let opened = OpenOptions::new()
        .read(true)
        .custom_flags(libc::O_NONBLOCK | libc::O_NOCTTY)
        .open(path);
    let file = match opened {
        Ok(f) => f,
        Err(e) if e.kind() == io::ErrorKind::NotFound => return Ok(None),
        Err(e) => {
            // A socket cannot be opened at all; say what it is rather than "no such device".
            return Err(match fs::metadata(path) {
                Ok(meta) if !meta.is_file() => not_regular(path, &meta),
                _ => Error::io("cannot read", path, e),
            });
        }
    };
    let meta = file.metadata().ctx("cannot read", path)?;
    if !meta.is_file() {
        return Err(not_regular(path, &meta));
    }
    Ok(Some(file))
}

/// The bytes of the regular file at `path` (see [`open_regular`]), `Ok(None)` when it is absent.
pub fn read_regular(path: &Path) -> Result<Option<Vec<u8>>> {
    let Some(mut file) = open_regular(path)? else {
        return Ok(None);
    };
    let mut bytes = Vec::new();
    file.read_to_end(&mut bytes).ctx("cannot read", path)?;
    Ok(Some(bytes))
}

/// Follow a chain of symlinks to the file that is really written. Relative link targets are read
/// relative to the link's directory. A dangling link resolves to the (missing) file it names.
pub fn resolve_symlinks(path: &Path) -> io::Result<PathBuf> {
    let mut current = path.to_path_buf();
    for _ in 0..40 {
        match fs::symlink_metadata(&current) {
            Ok(meta) if meta.file_type().is_symlink() => {
                let target = fs::read_link(&current)?;
                current = match current.parent() {
                    Some(parent) if target.is_relative() => parent.join(target),
                    _ => target,
                };
            }
            _ => return Ok(current),
        }
    }
    Err(io::Error::other(format!(
        "too many levels of symbolic links at {}",
        path.display()
    )))
}
