//! Reading at an offset without moving the file's cursor, which the transcript reader relies on
//! between reads. Unix has `pread(2)`; Windows' `seek_read` moves the cursor, so it is put back.

use std::fs::File;
use std::io;

/// Read into `buf` from `offset`; the file's cursor is where it was.
pub fn read_at(file: &File, buf: &mut [u8], offset: u64) -> io::Result<usize> {
    imp::read_at(file, buf, offset)
}

/// Fill `buf` from `offset`, failing with `UnexpectedEof` when the file ends first.
pub fn read_exact_at(file: &File, mut buf: &mut [u8], mut offset: u64) -> io::Result<()> {
    while !buf.is_empty() {
        match read_at(file, buf, offset) {
            Ok(0) => return Err(io::ErrorKind::UnexpectedEof.into()),
            Ok(n) => {
                buf = &mut buf[n..];
                offset += n as u64;
            }
            Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
            Err(e) => return Err(e),
        }
    }
    Ok(())
}

#[cfg(unix)]
mod imp {
    use std::fs::File;
    use std::io;
    use std::os::unix::fs::FileExt;

    pub fn read_at(file: &File, buf: &mut [u8], offset: u64) -> io::Result<usize> {
        file.read_at(buf, offset)
    }
}

#[cfg(windows)]
mod imp {
    use std::fs::File;
    use std::io::{self, Seek, SeekFrom};
    use std::os::windows::fs::FileExt;

    pub fn read_at(file: &File, buf: &mut [u8], offset: u64) -> io::Result<usize> {
        let mut f = file;
        let cursor = f.stream_position()?;
        let read = file.seek_read(buf, offset);
        f.seek(SeekFrom::Start(cursor))?;
        read
    }
}
