//! Private directories, and who owns what reflect creates: run as root, a file or directory
//! takes the owner of the directory it is created in; a replaced file keeps its owner.

use std::fs::{self, File, Metadata};
use std::io;
use std::os::unix::fs::{DirBuilderExt, MetadataExt};
use std::path::Path;

use super::PRIVATE_DIR;
use crate::error::{IoContext, Result};

/// Create `dir` (and parents) with mode 0700 when missing. An existing dir keeps its mode.
pub fn ensure_private_dir(dir: &Path) -> Result<()> {
    create_dirs(dir, PRIVATE_DIR)
}

/// Create `dir` and its missing parents with `mode` (narrowed by the umask). Run as root, each
/// directory created takes the owner of the nearest one that already existed.
pub fn create_dirs(dir: &Path, mode: u32) -> Result<()> {
    if dir.is_dir() {
        return Ok(());
    }
    let existing = dir.ancestors().skip(1).find(|a| a.is_dir());
    fs::DirBuilder::new()
        .recursive(true)
        .mode(mode)
        .create(dir)
        .ctx("cannot create directory", dir)?;
    if let Some(owner) = existing
        .filter(|_| as_root())
        .and_then(|a| fs::metadata(a).ok())
    {
        for created in dir.ancestors().take_while(|a| Some(*a) != existing) {
            let _ = std::os::unix::fs::lchown(created, Some(owner.uid()), Some(owner.gid()));
        }
    }
    Ok(())
}

/// Whether this process runs as root, the one case in which what it creates can end up owned by
/// someone other than the user whose files these are.
pub(super) fn as_root() -> bool {
    rustix::process::geteuid().is_root()
}

/// Run as root, give `file` (just created at `path`, so owned by root) to the owner of its
/// directory when that is someone else: the data dir of a user stays the user's. Best effort.
pub fn give_to_dir_owner(file: &File, path: &Path) {
    if !as_root() {
        return;
    }
    let dir = match path.parent() {
        Some(d) if !d.as_os_str().is_empty() => d,
        _ => Path::new("."),
    };
    let (Ok(dir), Ok(own)) = (fs::metadata(dir), file.metadata()) else {
        return;
    };
    if own.uid() == 0 && dir.uid() != 0 {
        let _ = std::os::unix::fs::fchown(file, Some(dir.uid()), Some(dir.gid()));
    }
}

/// Give the temp file that replaces a file the original's uid and gid. Root must manage it (else
/// the user's file would become root's); anyone else keeps what the system allows, as an editor
/// saving by rename would.
pub(super) fn keep_owner(tmp: &File, original: &Metadata) -> io::Result<()> {
    let own = tmp.metadata()?;
    if (own.uid(), own.gid()) == (original.uid(), original.gid()) {
        return Ok(());
    }
    match std::os::unix::fs::fchown(tmp, Some(original.uid()), Some(original.gid())) {
        Err(e) if as_root() => Err(e),
        _ => Ok(()),
    }
}
