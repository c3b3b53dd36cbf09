//! Atomic replace: a unique temp file in the target's directory, written, synced and renamed over
//! the target (see the rules in [`super`]).

use std::fs::{self, File, OpenOptions};
use std::io::{self, Write};
use std::os::unix::fs::{OpenOptionsExt, PermissionsExt};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};

use super::open::{not_regular, resolve_symlinks};
use super::owner::{give_to_dir_owner, keep_owner};
use crate::error::{Error, IoContext, Result};

fn unique_suffix() -> String {
    static COUNTER: AtomicU64 = AtomicU64::new(0);
    let nanos = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map(|d| d.subsec_nanos())
        .unwrap_or(0);
    format!(
        "{}.{}.{}",
        std::process::id(),
        nanos,
        COUNTER.fetch_add(1, Ordering::Relaxed)
    )
}

/// Replace `path` with `bytes` atomically. The file keeps its mode and its owner; a new file gets
/// `new_mode` (and, run as root, the owner of its directory). Refuses a target that is not a regular
/// file, and a read-only one: the user made it so on purpose (or a tool such as home-manager owns it).
pub fn atomic_write(path: &Path, bytes: &[u8], new_mode: u32) -> Result<()> {
    let target = resolve_symlinks(path).ctx("cannot resolve", path)?;
    let existing = match fs::metadata(&target) {
        Ok(meta) => Some(meta),
        Err(e) if e.kind() == io::ErrorKind::NotFound => None,
        Err(e) => return Err(Error::io("cannot write", &target, e)),
    };
    let mode = match &existing {
        Some(meta) if !meta.is_file() => return Err(not_regular(&target, meta)),
        Some(meta) if meta.permissions().readonly() => {
            return Err(Error::msg(format!(
                "{} is read-only (mode {:o}); make it writable first",
                target.display(),
                meta.permissions().mode() & 0o7777
            )))
        }
        Some(meta) => meta.permissions().mode() & 0o7777,
        None => new_mode,
    };
    let dir = match target.parent() {
        Some(d) if !d.as_os_str().is_empty() => d.to_path_buf(),
        _ => PathBuf::from("."),
    };
    let name = target
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default();
    let tmp = dir.join(format!(".{name}.{}.tmp", unique_suffix()));
    let written = (|| -> io::Result<()> {
        let mut file = OpenOptions::new()
            .write(true)
            .create_new(true)
            .mode(mode)
            .open(&tmp)?;
        file.write_all(bytes)?;
        match &existing {
            Some(meta) => keep_owner(&file, meta)?,
            None => give_to_dir_owner(&file, &target),
        }
        // umask may have narrowed the mode at creation (and chown may clear set-id bits); the
        // target's own mode wins.
        file.set_permissions(fs::Permissions::from_mode(mode))?;
        file.sync_all()?;
        fs::rename(&tmp, &target)
    })();
    if let Err(e) = written {
        let _ = fs::remove_file(&tmp);
        return Err(Error::io("cannot write", &target, e));
    }
    if let Ok(d) = File::open(&dir) {
        let _ = d.sync_all();
    }
    Ok(())
}
