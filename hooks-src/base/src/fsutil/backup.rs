//! Backups of a file before it is rewritten, the newest few kept per file.

use std::fs::{self, File};
use std::path::{Path, PathBuf};

use chrono::Utc;

use super::open::resolve_symlinks;
use super::owner::{ensure_private_dir, give_to_dir_owner};
use crate::error::{IoContext, Result};

/// A file name for `path` inside the backups dir: the full path flattened, so two projects'
/// `CLAUDE.md` never share a name, kept short enough for any filesystem.
pub fn backup_stem(path: &Path) -> String {
    let full = path.to_string_lossy();
    let flat: String = full
        .chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || c == '.' || c == '_' || c == '-' {
                c
            } else {
                '-'
            }
        })
        .collect();
    let flat = flat.trim_start_matches('-');
    let start = flat.len().saturating_sub(120);
    let start = (start..=flat.len())
        .find(|&i| flat.is_char_boundary(i))
        .unwrap_or(0);
    flat[start..].to_string()
}

/// Copy `path` into `backups_dir` before it is rewritten, keeping the newest `keep` copies of that
/// file. Returns the backup's path, or `None` when there was nothing to back up. With `link`, a hard
/// link is tried first (the store is replaced by rename, so its old inode can simply stay linked).
pub fn backup(path: &Path, backups_dir: &Path, keep: usize, link: bool) -> Result<Option<PathBuf>> {
    let source = resolve_symlinks(path).ctx("cannot resolve", path)?;
    if !source.is_file() {
        return Ok(None);
    }
    ensure_private_dir(backups_dir)?;
    // A rewrite of a backup (`forget` scrubs them) killed midway left a temp copy here.
    super::temp::remove_stale_temps(backups_dir);
    let stem = backup_stem(&source);
    let stamp = Utc::now().format("%Y%m%dT%H%M%S%.6fZ");
    let mut dest = backups_dir.join(format!("{stem}.{stamp}"));
    let mut n = 1;
    while dest.exists() {
        dest = backups_dir.join(format!("{stem}.{stamp}-{n}"));
        n += 1;
    }
    let linked = link && fs::hard_link(&source, &dest).is_ok();
    if !linked {
        fs::copy(&source, &dest).ctx("cannot back up", &source)?;
        if let Ok(copy) = File::open(&dest) {
            give_to_dir_owner(&copy, &dest);
        }
    }
    prune_backups(backups_dir, &stem, keep);
    Ok(Some(dest))
}

/// The newest copy of `path` in `backups_dir` (made by [`backup`]), if any.
pub fn newest_backup(path: &Path, backups_dir: &Path) -> Option<PathBuf> {
    let source = resolve_symlinks(path).ok()?;
    // The timestamp sorts by time (a `-N` suffix after a same-instant copy sorts after it).
    let newest = backup_names(backups_dir, &backup_stem(&source)).pop()?;
    Some(backups_dir.join(newest))
}

/// Every copy of `path` in `backups_dir` (made by [`backup`]), oldest first.
pub fn backups_of(path: &Path, backups_dir: &Path) -> Vec<PathBuf> {
    let source = resolve_symlinks(path).unwrap_or_else(|_| path.to_path_buf());
    backup_names(backups_dir, &backup_stem(&source))
        .into_iter()
        .map(|n| backups_dir.join(n))
        .collect()
}

/// The names of the backups of the file whose stem is `stem`, oldest first.
fn backup_names(dir: &Path, stem: &str) -> Vec<String> {
    let prefix = format!("{stem}.");
    let Ok(entries) = fs::read_dir(dir) else {
        return Vec::new();
    };
    let mut names: Vec<String> = entries
        .filter_map(|e| e.ok())
        .map(|e| e.file_name().to_string_lossy().into_owned())
        .filter(|n| {
            // Only this file's backups: the rest of the name is the timestamp.
            n.strip_prefix(&prefix)
                .is_some_and(|rest| rest.starts_with(|c: char| c.is_ascii_digit()))
        })
        .collect();
    names.sort();
    names
}

fn prune_backups(dir: &Path, stem: &str, keep: usize) {
    let names = backup_names(dir, stem);
    if names.len() <= keep {
        return;
    }
    for old in &names[..names.len() - keep] {
        let _ = fs::remove_file(dir.join(old));
    }
}
