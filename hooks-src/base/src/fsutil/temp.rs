//! Cleaning up after a writer killed mid-write: the temp files of [`super::atomic_write`] whose
//! writer is gone.

use std::fs;
use std::path::Path;
use std::time::Duration;

/// Age past which a temp file of [`super::atomic_write`] is taken as left by a crash even though a
/// process of the id in its name is alive (ids are reused): no write takes this long.
pub const TEMP_STALE_AFTER: Duration = Duration::from_secs(10 * 60);

/// Whether `name` (in `dir`) is a temp file of [`super::atomic_write`] whose writer is gone: a SIGKILL
/// between its creation and its rename left it. Its name carries the writer's process id; the
/// file is stale when no such process is alive, or when it is older than [`TEMP_STALE_AFTER`].
pub fn stale_temp(dir: &Path, name: &str) -> bool {
    let Some(rest) = name.strip_prefix('.').and_then(|n| n.strip_suffix(".tmp")) else {
        return false;
    };
    // `.{name}.{pid}.{nanos}.{counter}.tmp`, the name itself possibly holding dots.
    let mut parts = rest.rsplitn(4, '.');
    let (Some(counter), Some(nanos), Some(pid), Some(_)) =
        (parts.next(), parts.next(), parts.next(), parts.next())
    else {
        return false;
    };
    let number = |s: &str| !s.is_empty() && s.bytes().all(|b| b.is_ascii_digit());
    let Some(pid) = pid.parse().ok().and_then(rustix::process::Pid::from_raw) else {
        return false;
    };
    if !(number(counter) && number(nanos)) {
        return false;
    }
    // Signal 0 only asks whether the process exists; nothing is sent.
    let gone = rustix::process::test_kill_process(pid) == Err(rustix::io::Errno::SRCH);
    gone || fs::symlink_metadata(dir.join(name))
        .and_then(|m| m.modified())
        .ok()
        .and_then(|t| t.elapsed().ok())
        .is_some_and(|age| age > TEMP_STALE_AFTER)
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
