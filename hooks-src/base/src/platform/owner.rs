//! Ownership. On Unix a rewritten file keeps its uid and gid, and a process running as root (`sudo`
//! with `HOME` kept) gives what it creates to the owner of the directory it creates it in, so the
//! user's own hooks can still write it. Windows has no root in that sense and no owner std can set;
//! a file replaced by rename inside the user's profile gets the same inherited ACL as the one it
//! replaces, so every function here does nothing there.

pub use imp::*;

#[cfg(unix)]
mod imp {
    use std::fs::{File, Metadata};
    use std::io;
    use std::os::unix::fs::MetadataExt;
    use std::path::Path;

    /// Whether this process runs as root, the one case in which what it creates can end up owned by
    /// someone other than the user whose files these are.
    pub fn as_root() -> bool {
        rustix::process::geteuid().is_root()
    }

    /// Whether the file of `meta` is owned by the user this process runs as.
    pub fn mine(meta: &Metadata) -> bool {
        meta.uid() == rustix::process::geteuid().as_raw()
    }

    /// Give the directories in `created` (just made, by root) the owner of `existing`. Best effort.
    pub fn give_dirs(created: &[&Path], existing: &Metadata) {
        for dir in created {
            let _ = std::os::unix::fs::lchown(dir, Some(existing.uid()), Some(existing.gid()));
        }
    }

    /// Run as root, give `file` (just created, so owned by root) to the owner of `dir` when that
    /// is someone else. Best effort.
    pub fn give_file(file: &File, dir: &Metadata) {
        if let Ok(own) = file.metadata() {
            if own.uid() == 0 && dir.uid() != 0 {
                let _ = std::os::unix::fs::fchown(file, Some(dir.uid()), Some(dir.gid()));
            }
        }
    }

    /// Give the temp file that replaces a file the original's uid and gid. Root must manage it
    /// (else the user's file would become root's); anyone else keeps what the system allows, as an
    /// editor saving by rename would.
    pub fn keep(tmp: &File, original: &Metadata) -> io::Result<()> {
        let own = tmp.metadata()?;
        if (own.uid(), own.gid()) == (original.uid(), original.gid()) {
            return Ok(());
        }
        match std::os::unix::fs::fchown(tmp, Some(original.uid()), Some(original.gid())) {
            Err(e) if as_root() => Err(e),
            _ => Ok(()),
        }
    }
}

#[cfg(windows)]
mod imp {
    use std::fs::{File, Metadata};
    use std::io;
    use std::path::Path;

    /// No process is "root" for the user's files on Windows.
    pub fn as_root() -> bool {
        false
    }

    /// Every file in the user's profile is the user's: its ACL, not an owner id, keeps others out.
    pub fn mine(_meta: &Metadata) -> bool {
        true
    }

    pub fn give_dirs(_created: &[&Path], _existing: &Metadata) {}

    pub fn give_file(_file: &File, _dir: &Metadata) {}

    pub fn keep(_tmp: &File, _original: &Metadata) -> io::Result<()> {
        Ok(())
    }
}
