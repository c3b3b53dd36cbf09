//! Opening a file that must be a regular file, without ever blocking on something that is not one:
//! a FIFO or a terminal on Unix, a named pipe or a console (`CON`) on Windows. What is checked is
//! the open handle, so what is checked is what is read.

pub use imp::*;

#[cfg(unix)]
mod imp {
    use std::fs::{File, Metadata, OpenOptions};
    use std::io;
    use std::os::unix::fs::{FileTypeExt, OpenOptionsExt};
    use std::path::Path;

    /// Open `path` for reading with `O_NONBLOCK` (a FIFO with no writer does not wait) and
    /// `O_NOCTTY` (a terminal does not become ours).
    pub fn open_read(path: &Path) -> io::Result<File> {
        OpenOptions::new()
            .read(true)
            .custom_flags(libc::O_NONBLOCK | libc::O_NOCTTY)
            .open(path)
    }

    /// What the open `file` is when it is not a regular file: "a FIFO", "a device", ... (`fstat`).
    pub fn not_regular_kind(file: &File) -> io::Result<Option<&'static str>> {
        let meta = file.metadata()?;
        Ok((!meta.is_file()).then(|| kind(&meta)))
    }

    /// What `meta` is, in words, when it is not a regular file.
    pub fn kind(meta: &Metadata) -> &'static str {
        let t = meta.file_type();
        if t.is_dir() {
            "a directory"
        } else if t.is_fifo() {
            "a FIFO"
        } else if t.is_char_device() || t.is_block_device() {
            "a device"
        } else if t.is_socket() {
            "a socket"
        } else {
            "a special file"
        }
    }
}

#[cfg(windows)]
mod imp {
    use std::fs::{File, Metadata, OpenOptions};
    use std::io;
    use std::path::Path;

    /// Open `path` for reading. Opening never blocks on Windows (reading a console or a pipe
    /// would), and nothing is read before [`not_regular_kind`] has looked at the handle.
    pub fn open_read(path: &Path) -> io::Result<File> {
        OpenOptions::new().read(true).open(path)
    }

    /// What the open `file` is when it is not a regular file: `GetFileType` tells a disk file from
    /// a character device (`CON`, `NUL`, `COM1`) and a pipe, which metadata cannot.
    pub fn not_regular_kind(file: &File) -> io::Result<Option<&'static str>> {
        let typ = winapi_util::file::typ(file)?;
        Ok(if typ.is_disk() {
            let meta = file.metadata()?;
            (!meta.is_file()).then(|| kind(&meta))
        } else if typ.is_char() {
            Some("a device")
        } else if typ.is_pipe() {
            Some("a pipe")
        } else {
            Some("a special file")
        })
    }

    /// What `meta` is, in words, when it is not a regular file.
    pub fn kind(meta: &Metadata) -> &'static str {
        if meta.is_dir() {
            "a directory"
        } else {
            "a special file"
        }
    }
}
