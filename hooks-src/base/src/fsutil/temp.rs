//! Cleaning up after a writer killed mid-write: the temp files of [`super::atomic_write`] whose
//! writer is gone.

use std::fs;
use std::os::unix::fs::MetadataExt;
use std::path::{Path, PathBuf};
use std::time::Duration;

use super::open::resolve_symlinks;
use super::owner::as_root;

/// Age past which a temp file of [`super::atomic_write`] is taken as left by a crash even though a
/// process of the id in its name is alive (ids are reused): no write takes this long.
pub const TEMP_STALE_AFTER: Duration = Duration::from_secs(10 * 60);

/// Whether `name` (in `dir`) is a temp file of [`super::atomic_write`] whose writer is gone: a SIGKILL
/// between its creation and its rename left it. Its name carries the writer's process id; the
/// file is stale when no such process is alive, or when it is older than [`TEMP_STALE_AFTER`].
/// Only a regular file of ours is: owned by this user (root: by anyone, as root may have written
/// it for the owner of the file it was to replace).
pub fn stale_temp(dir: &Path, name: &str) -> bool {
    let Some((_, pid)) = temp_name_parts(name) else {
        return false;
    };
    let Ok(meta) = fs::symlink_metadata(dir.join(name)) else {
        return false;
    };
    let ours = meta.is_file() && (as_root() || meta.uid() == rustix::process::geteuid().as_raw());
    // Signal 0 only asks whether the process exists; nothing is sent.
    let gone = rustix::process::test_kill_process(pid) == Err(rustix::io::Errno::SRCH);
    let old = meta
        .modified()
        .ok()
        .and_then(|t| t.elapsed().ok())
        .is_some_and(|age| age > TEMP_STALE_AFTER);
    ours && (gone || old)
}

/// The parts of an [`super::atomic_write`] temp name `.{target}.{pid}.{nanos}.{counter}.tmp` (the
/// target's name possibly holding dots): the target's name and the writer's pid. `None` for any
/// other name.
fn temp_name_parts(name: &str) -> Option<(&str, rustix::process::Pid)> {
    let rest = name.strip_prefix('.')?.strip_suffix(".tmp")?;
    let mut parts = rest.rsplitn(4, '.');
    let (counter, nanos, pid, target) =
        (parts.next()?, parts.next()?, parts.next()?, parts.next()?);
    let number = |s: &str| !s.is_empty() && s.bytes().all(|b| b.is_ascii_digit());
    if !(number(counter) && number(nanos) && number(pid)) || target.is_empty() {
        return None;
    }
    Some((target, rustix::process::Pid::from_raw(pid.parse().ok()?)?))
}

/// The [`stale_temp`] files left by an interrupted [`super::atomic_write`] of `file` (links
/// followed, as the write does): in a directory that is not reflect's, such as the config dir of
/// settings.json, only this file's temp names count. A settings.json temp is a full copy of it,
/// `env` secrets and all.
pub fn stale_temps_of(file: &Path) -> Vec<PathBuf> {
    let Ok(target) = resolve_symlinks(file) else {
        return Vec::new();
    };
    let (Some(dir), Some(name)) = (target.parent(), target.file_name()) else {
        return Vec::new();
    };
    let dir = if dir.as_os_str().is_empty() {
        Path::new(".")
    } else {
        dir
    };
    let name = name.to_string_lossy();
    stale_temps(dir)
        .into_iter()
        .filter(|n| temp_name_parts(n).is_some_and(|(t, _)| t == name))
        .map(|n| dir.join(n))
        .collect()
}

/// Remove the [`stale_temps_of`] `file` (best effort); returns how many went.
pub fn remove_stale_temps_of(file: &Path) -> usize {
    stale_temps_of(file)
        .iter()
        .filter(|p| fs::remove_file(p).is_ok())
        .count()
}

/// The [`stale_temp`] files in `dir`, by name.
pub fn stale_temps(dir: &Path) -> Vec<String> {
    let Ok(entries) = fs::read_dir(dir) else {
        return Vec::new();
    };
    let mut names: Vec<String> = entries
        .flatten()
        .map(|e| e.file_name().to_string_lossy().into_owned())
        .filter(|n| stale_temp(dir, n))
        .collect();
    names.sort();
    names
}

/// Remove the [`stale_temp`] files in `dir` (best effort); returns how many went.
pub fn remove_stale_temps(dir: &Path) -> usize {
    stale_temps(dir)
        .iter()
        .filter(|n| fs::remove_file(dir.join(n)).is_ok())
        .count()
}
