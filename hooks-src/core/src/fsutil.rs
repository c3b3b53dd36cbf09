//! Careful file handling shared by every writer: reading a user's file safely, atomic replace,
//! backups, the sidecar lock with a bounded wait, private directories and the bounded error log.
//!
//! The rules for a file that belongs to the user (settings.json, a CLAUDE.md, a rules file):
//! - it is rewritten only when it is a regular file once links are followed, and of the kind the
//!   caller expects (the caller judges the kind: [`crate::settings`] wants a JSON object,
//!   [`crate::promote`] a Markdown file outside `.git/`). [`open_regular`] opens it with
//!   `O_NONBLOCK` and checks `fstat` before a byte is read, so a FIFO, a device or a directory in its
//!   place is refused at once instead of hanging or being replaced by a copy of our output;
//! - atomic replace follows zoxide's recipe: a unique temp file in the target's own directory, write
//!   everything, `sync_all`, keep the mode, rename over the target, sync the directory. A symlinked
//!   target is followed (the link stays a link, the file it names is replaced) and the temp file is
//!   removed on every error path;
//! - ownership stays the file's owner's: the temp file is given the original's uid and gid before the
//!   rename. Run as root (`sudo` with `HOME` kept), a file or directory reflect creates takes the owner
//!   of the directory it is created in, so the user's own `reflect-toggle off` and the hooks (which run
//!   as the user) can still write everything reflect made.

use std::fs::{self, File, Metadata, OpenOptions};
use std::io::{self, Read, Write};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};
use std::thread;
use std::time::{Duration, Instant};

use chrono::{SecondsFormat, Utc};

use crate::error::{Error, IoContext, Result};
use crate::platform::modes::{self, CreateMode};
use crate::platform::{file_id, lock, owner, replace, special, writer};

/// Mode of every file reflect creates for itself (the store, cursors, logs, backups).
pub const PRIVATE_FILE: u32 = 0o600;
/// Mode of the data dir and its subdirectories.
pub const PRIVATE_DIR: u32 = 0o700;
/// Mode of a user file we create from nothing (a CLAUDE.md, a rules file): readable like the user's.
pub const USER_FILE: u32 = 0o644;

/// The current time as `2026-11-22T10:23:00Z`.
pub fn now_rfc3339() -> String {
    Utc::now().to_rfc3339_opts(SecondsFormat::Secs, true)
}

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
    modes::dir_builder(mode)
        .recursive(true)
        .create(dir)
        .ctx("cannot create directory", dir)?;
    if let Some(owner) = existing
        .filter(|_| as_root())
        .and_then(|a| fs::metadata(a).ok())
    {
        let created: Vec<&Path> = dir
            .ancestors()
            .take_while(|a| Some(*a) != existing)
            .collect();
        owner::give_dirs(&created, &owner);
    }
    Ok(())
}

/// Whether this process runs as root, the one case in which what it creates can end up owned by
/// someone other than the user whose files these are.
fn as_root() -> bool {
    owner::as_root()
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
    if let Ok(dir) = fs::metadata(dir) {
        owner::give_file(file, &dir);
    }
}

/// Why `meta` is not a file we read or replace: "… is a FIFO, not a regular file".
pub fn not_regular(path: &Path, meta: &Metadata) -> Error {
    not_regular_as(path, special::kind(meta))
}

/// Why the file at `path`, which is `kind` ("a FIFO"), is not one we read or replace.
fn not_regular_as(path: &Path, kind: &str) -> Error {
    Error::msg(format!(
        "{} is {kind}, not a regular file (nothing was read or changed)",
        path.display()
    ))
}

/// Open `path` (links followed) for reading, without blocking: `O_NONBLOCK` so a FIFO with no
/// writer does not wait, then `fstat` on the open file, so what is checked is what is read (on
/// Windows, `GetFileType` on the handle: a named pipe, `CON` or `NUL` is refused the same way).
/// See [`crate::platform::special`].
/// `Ok(None)` when there is no such file; an error naming the kind when it is not a regular file.
pub fn open_regular(path: &Path) -> Result<Option<File>> {
    let opened = special::open_read(path);
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
    if let Some(kind) = special::not_regular_kind(&file).ctx("cannot read", path)? {
        return Err(not_regular_as(path, kind));
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
            let mode = modes::mode_of(meta)
                .map(|m| format!(" (mode {m:o})"))
                .unwrap_or_default();
            return Err(Error::msg(format!(
                "{} is read-only{mode}; make it writable first",
                target.display(),
            )));
        }
        Some(meta) => modes::mode_of(meta),
        None => Some(new_mode),
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
            .create_mode(mode.unwrap_or(PRIVATE_FILE))
            .open(&tmp)?;
        file.write_all(bytes)?;
        match &existing {
            Some(meta) => owner::keep(&file, meta)?,
            None => give_to_dir_owner(&file, &target),
        }
        // umask may have narrowed the mode at creation (and chown may clear set-id bits); the
        // target's own mode wins.
        modes::set(&file, mode, existing.as_ref())?;
        file.sync_all()?;
        // Still open: on Windows an open temp file is a live writer's (platform::writer), and
        // std opens files with share-delete, which lets them be renamed.
        replace::rename_over(&tmp, &target)
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

/// Age past which a temp file of [`atomic_write`] is taken as left by a crash even though a
/// process of the id in its name is alive (ids are reused): no write takes this long.
pub const TEMP_STALE_AFTER: Duration = Duration::from_secs(10 * 60);

/// Whether `name` (in `dir`) is a temp file of [`atomic_write`] whose writer is gone: a SIGKILL
/// between its creation and its rename left it. Its name carries the writer's process id; the
/// file is stale when its writer is gone ([`crate::platform::writer`]: no such process on Unix,
/// no handle open on Windows), or when it is older than [`TEMP_STALE_AFTER`].
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
    let Some(pid) = pid.parse::<u32>().ok().filter(|&p| p > 0) else {
        return false;
    };
    if !(number(counter) && number(nanos)) {
        return false;
    }
    let gone = writer::gone(&dir.join(name), pid) == Some(true);
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

/// A file name for `path` inside the backups dir: the full path flattened, so two projects'
/// `CLAUDE.md` never share a name, kept short enough for any filesystem.
pub(crate) fn backup_stem(path: &Path) -> String {
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

/// How long a writer waits for the sidecar lock before giving up.
#[derive(Debug, Clone, Copy)]
pub struct LockWait {
    pub timeout: Duration,
}

impl LockWait {
    /// Hooks: short, because Claude is waiting on us (SessionEnd gives all its hooks 1.5 s). A
    /// hook that times out on the store lock spools its signals instead ([`crate::store`]).
    pub const HOOK: LockWait = LockWait {
        timeout: Duration::from_millis(500),
    };
    /// CLIs: long enough to outlast any rewrite, short enough that a stuck process is reported.
    pub const CLI: LockWait = LockWait {
        timeout: Duration::from_secs(30),
    };
}

/// Run `f` while holding an exclusive lock on the sidecar file `lock_path` (created if missing,
/// never renamed, never written). Waits at most `wait.timeout`; `on_wait` is called once if the
/// lock is busy, so a CLI can say that it is waiting. On a file system that cannot lock at all
/// (flock fails with ENOTSUP/EOPNOTSUPP or ENOSYS: some network and FUSE mounts) `f` runs without
/// the lock, as cargo does there, and the error log says so once.
pub fn with_lock<T>(
    lock_path: &Path,
    wait: LockWait,
    on_wait: &mut dyn FnMut(),
    f: impl FnOnce() -> Result<T>,
) -> Result<T> {
    // The environment's error log, looked up only on a file system that cannot lock.
    let error_log = || crate::paths::Paths::from_env().ok().map(|p| p.error_log());
    locked_by(
        lock_path,
        wait,
        on_wait,
        error_log,
        fd_lock::RwLock::try_write,
        f,
    )
}

/// [`with_lock`] with the lock attempt and the error log given (tests inject flock's errors).
fn locked_by<T>(
    lock_path: &Path,
    wait: LockWait,
    on_wait: &mut dyn FnMut(),
    error_log: impl FnOnce() -> Option<PathBuf>,
    try_lock: impl for<'a> Fn(
        &'a mut fd_lock::RwLock<File>,
    ) -> io::Result<fd_lock::RwLockWriteGuard<'a, File>>,
    f: impl FnOnce() -> Result<T>,
) -> Result<T> {
    if let Some(dir) = lock_path.parent() {
        ensure_private_dir(dir)?;
    }
    let start = Instant::now();
    let mut pause = Duration::from_micros(200);
    let mut told = false;
    // Each turn opens the file at the path: the one locked before was removed while we waited.
    'open: loop {
        let file = OpenOptions::new()
            .read(true)
            .write(true)
            .create(true)
            .truncate(false)
            .create_mode(PRIVATE_FILE)
            .open(lock_path)
            .ctx("cannot open lock", lock_path)?;
        give_to_dir_owner(&file, lock_path);
        let mut lock = fd_lock::RwLock::new(file);
        loop {
            match try_lock(&mut lock) {
                Ok(guard) => {
                    if !still_at(&guard, lock_path) {
                        continue 'open;
                    }
                    return f();
                }
                Err(e) if e.kind() == io::ErrorKind::WouldBlock => {
                    if start.elapsed() >= wait.timeout {
                        let verb = format!(
                            "timed out after {:.1}s waiting for lock",
                            wait.timeout.as_secs_f32()
                        );
                        let cause = io::Error::new(
                            io::ErrorKind::TimedOut,
                            "another reflect process holds it",
                        );
                        return Err(Error::io(&verb, lock_path, cause));
                    }
                    if !told {
                        told = true;
                        on_wait();
                    }
                    thread::sleep(pause);
                    pause = (pause * 2).min(Duration::from_millis(20));
                }
                Err(e) if locking_unsupported(&e) => {
                    if let Some(log) = error_log() {
                        note_no_locking(&log, lock_path, &e);
                    }
                    return f();
                }
                Err(e) => return Err(Error::io("cannot lock", lock_path, e)),
            }
        }
    }
}

/// Whether the file `held` is still the one at `path`. A lock file may be removed by a process
/// holding it ([`remove_lock_file`]); a waiter that then gets the lock of the removed file must
/// lock the file now at the path instead, or two processes would each hold "the" lock.
fn still_at(held: &File, path: &Path) -> bool {
    file_id::is_at(held, path)
}

/// Remove the lock file at `path` unless a process holds it: it is locked without waiting, `then`
/// runs while it is held (to remove what the lock guards), and the file is unlinked before it is
/// released; a process that was waiting on it then takes the lock of a new file (see
/// [`with_lock`]). `None` when the file is held or cannot be opened, else what `then` said.
pub fn remove_lock_file(path: &Path, then: impl FnOnce() -> bool) -> Option<bool> {
    let file = OpenOptions::new().read(true).write(true).open(path).ok()?;
    let mut lock = fd_lock::RwLock::new(file);
    let guard = lock.try_write().ok()?;
    if !still_at(&guard, path) {
        return None;
    }
    let done = then();
    let unlinked = replace::remove_open(path).is_ok();
    drop(guard);
    Some(done && unlinked)
}

/// flock's answers for "this file system does not lock" (the errno values differ between
/// platforms: ENOTSUP and EOPNOTSUPP are one on Linux, two on macOS).
fn locking_unsupported(e: &io::Error) -> bool {
    lock::unsupported(e)
}

/// Marker beside the error log: the lock-less file system has been noted already.
const NO_LOCKING_MARKER: &str = "lock-unsupported";

/// Note once in `log` that locks are skipped: the first writer to create the marker beside the log
/// writes the line, every later one (in any process) stays quiet.
fn note_no_locking(log: &Path, lock_path: &Path, e: &io::Error) {
    let marker = log.with_file_name(NO_LOCKING_MARKER);
    if let Some(dir) = marker.parent() {
        let _ = ensure_private_dir(dir);
    }
    let first = OpenOptions::new()
        .write(true)
        .create_new(true)
        .create_mode(PRIVATE_FILE)
        .open(&marker)
        .is_ok();
    if first {
        log_error(
            log,
            "reflect",
            &format!(
                "cannot lock {} ({e}): this file system does not support locks, so reflect writes \
                 without them (noted once; remove {} to be told again)",
                lock_path.display(),
                marker.display()
            ),
        );
    }
}

/// Where [`log_error`] keeps the log's one old copy: `errors.log.1`.
pub fn rotated_log(log_path: &Path) -> PathBuf {
    let mut old = log_path.as_os_str().to_owned();
    old.push(".1");
    PathBuf::from(old)
}

/// Largest size of `errors.log` before it is rotated to `errors.log.1` (one old copy is kept).
pub const ERROR_LOG_MAX: u64 = 256 * 1024;
/// Longest message one line of the error log keeps. With it the log and its old copy each stay
/// within [`ERROR_LOG_MAX`] plus one line, whatever a message quotes (a 10 MB path once made a
/// single 10 MB line, which rotation then kept whole).
pub const LOG_LINE_MAX: usize = 2048;

/// Append one line to the error log, its message cut at [`LOG_LINE_MAX`]. Never fails: a hook that
/// cannot even log still exits 0.
pub fn log_error(log_path: &Path, program: &str, message: &str) {
    let _ = (|| -> io::Result<()> {
        if let Some(dir) = log_path.parent() {
            create_dirs(dir, PRIVATE_DIR).map_err(io::Error::other)?;
        }
        if fs::metadata(log_path)
            .map(|m| m.len() > ERROR_LOG_MAX)
            .unwrap_or(false)
        {
            fs::rename(log_path, rotated_log(log_path))?;
        }
        let mut file = OpenOptions::new()
            .create(true)
            .append(true)
            .create_mode(PRIVATE_FILE)
            .open(log_path)?;
        give_to_dir_owner(&file, log_path);
        let kept = crate::transcript::truncate(message, LOG_LINE_MAX);
        let mut one_line: String = kept
            .chars()
            .map(|c| if c == '\n' { ' ' } else { c })
            .collect();
        if kept.len() < message.len() {
            one_line.push_str(&format!("… ({} bytes)", message.len()));
        }
        file.write_all(format!("{} {program}: {one_line}\n", now_rfc3339()).as_bytes())
    })();
}

#[cfg(test)]
mod tests {
    use super::*;
    #[cfg(unix)]
    use std::os::unix::fs::{FileTypeExt, MetadataExt, PermissionsExt};

    /// Windows has no modes, and making a symlink there takes a privilege a user lacks.
    #[cfg(unix)]
    #[test]
    fn atomic_write_keeps_mode_and_follows_symlink() {
        let dir = tempfile::tempdir().unwrap();
        let real = dir.path().join("real.json");
        fs::write(&real, "old").unwrap();
        fs::set_permissions(&real, fs::Permissions::from_mode(0o640)).unwrap();
        let link = dir.path().join("link.json");
        std::os::unix::fs::symlink("real.json", &link).unwrap();
        atomic_write(&link, b"new", PRIVATE_FILE).unwrap();
        assert!(fs::symlink_metadata(&link)
            .unwrap()
            .file_type()
            .is_symlink());
        assert_eq!(fs::read_to_string(&real).unwrap(), "new");
        assert_eq!(
            fs::metadata(&real).unwrap().permissions().mode() & 0o777,
            0o640
        );
        let leftovers: Vec<_> = fs::read_dir(dir.path())
            .unwrap()
            .filter_map(|e| e.ok())
            .filter(|e| e.file_name().to_string_lossy().ends_with(".tmp"))
            .collect();
        assert!(leftovers.is_empty());
    }

    // Unix only: a writer is told alive by its pid there; the Windows twin follows.
    #[cfg(unix)]
    #[test]
    fn temp_files_of_dead_writers_are_stale_and_live_ones_are_not() {
        let dir = tempfile::tempdir().unwrap();
        let dead = crate::platform::writer::dead_pid();
        let live = std::process::id();
        let names = [
            format!(".signals.jsonl.{dead}.123.0.tmp"),
            format!(".signals.jsonl.{live}.123.0.tmp"),
            format!(".x.{live}.5.1.tmp"),
            format!(".cursor.json.{dead}.7.2.tmp"),
            format!("signals.jsonl.{dead}.123.0.tmp"),
            format!(".signals.jsonl.{dead}.tmp"),
            ".notes.tmp".to_string(),
        ];
        for n in &names {
            fs::write(dir.path().join(n), "x").unwrap();
        }
        // An old one of a live id: the id was reused.
        File::options()
            .write(true)
            .open(dir.path().join(&names[2]))
            .unwrap()
            .set_modified(std::time::SystemTime::now() - TEMP_STALE_AFTER * 2)
            .unwrap();
        let mut expected = vec![names[0].clone(), names[2].clone(), names[3].clone()];
        expected.sort();
        assert_eq!(stale_temps(dir.path()), expected);
        assert_eq!(remove_stale_temps(dir.path()), 3);
        assert!(stale_temps(dir.path()).is_empty());
        assert!(
            dir.path().join(&names[1]).exists(),
            "a live writer's temp stays"
        );
    }

    /// On Windows a temp file is a live writer's while a handle holds it: it stays until closed.
    #[cfg(windows)]
    #[test]
    fn temp_files_held_open_are_not_stale_and_closed_ones_are() {
        let dir = tempfile::tempdir().unwrap();
        let pid = std::process::id();
        let held = format!(".signals.jsonl.{pid}.123.0.tmp");
        let left = format!(".cursor.json.{pid}.7.2.tmp");
        let handle = File::create(dir.path().join(&held)).unwrap();
        fs::write(dir.path().join(&left), "x").unwrap();
        fs::write(dir.path().join(".notes.tmp"), "x").unwrap();
        assert_eq!(stale_temps(dir.path()), [left]);
        assert_eq!(remove_stale_temps(dir.path()), 1);
        drop(handle);
        assert_eq!(stale_temps(dir.path()), [held]);
    }

    #[test]
    fn atomic_write_refuses_read_only_target() {
        let dir = tempfile::tempdir().unwrap();
        let file = dir.path().join("ro.json");
        fs::write(&file, "keep").unwrap();
        let mut read_only = fs::metadata(&file).unwrap().permissions();
        read_only.set_readonly(true);
        fs::set_permissions(&file, read_only).unwrap();
        let err = atomic_write(&file, b"new", PRIVATE_FILE).unwrap_err();
        assert!(err.to_string().contains("read-only"), "{err}");
        assert_eq!(fs::read_to_string(&file).unwrap(), "keep");
    }

    #[cfg(unix)] // FIFOs, device nodes and uids are Unix's; see the Windows twin below
    fn mkfifo(path: &Path) {
        use rustix::fs::{mknodat, FileType, Mode, CWD};
        mknodat(CWD, path, FileType::Fifo, Mode::from_raw_mode(0o600), 0).unwrap();
    }

    /// A character device node like /dev/null (1, 3), made in a temp dir so that replacing it by
    /// mistake harms nothing. Needs root; `None` otherwise.
    #[cfg(unix)] // FIFOs, device nodes and uids are Unix's; see the Windows twin below
    fn mknod_null(path: &Path) -> Option<()> {
        use rustix::fs::{makedev, mknodat, FileType, Mode, CWD};
        let mode = Mode::from_raw_mode(0o666);
        mknodat(CWD, path, FileType::CharacterDevice, mode, makedev(1, 3)).ok()
    }

    #[cfg(unix)] // FIFOs, device nodes and uids are Unix's; see the Windows twin below
    #[test]
    fn regression_symlink_to_a_device_or_fifo_is_not_replaced() {
        let dir = tempfile::tempdir().unwrap();
        let fifo = dir.path().join("fifo");
        mkfifo(&fifo);
        let mut targets = vec![fifo];
        let device = dir.path().join("null");
        if mknod_null(&device).is_some() {
            targets.push(device);
        }
        for target in targets {
            let link = dir.path().join("settings.json");
            let _ = fs::remove_file(&link);
            std::os::unix::fs::symlink(&target, &link).unwrap();
            let err = atomic_write(&link, b"{}", PRIVATE_FILE).unwrap_err();
            assert!(err.to_string().contains("not a regular file"), "{err}");
            let kind = fs::symlink_metadata(&target).unwrap().file_type();
            assert!(kind.is_fifo() || kind.is_char_device(), "{target:?} kept");
            assert!(fs::symlink_metadata(&link)
                .unwrap()
                .file_type()
                .is_symlink());
        }
    }

    #[cfg(unix)] // FIFOs, device nodes and uids are Unix's; see the Windows twin below
    #[test]
    fn regression_a_fifo_is_refused_without_blocking() {
        let dir = tempfile::tempdir().unwrap();
        let fifo = dir.path().join("cursor.json");
        mkfifo(&fifo);
        let link = dir.path().join("link");
        std::os::unix::fs::symlink(&fifo, &link).unwrap();
        for path in [&fifo, &link] {
            let err = read_regular(path).unwrap_err();
            assert!(
                err.to_string().contains("is a FIFO, not a regular file"),
                "{err}"
            );
        }
        let err = read_regular(dir.path()).unwrap_err();
        assert!(err.to_string().contains("is a directory"), "{err}");
        assert!(read_regular(&dir.path().join("missing")).unwrap().is_none());
        fs::write(dir.path().join("f"), "x").unwrap();
        assert_eq!(read_regular(&dir.path().join("f")).unwrap().unwrap(), b"x");
    }

    #[cfg(unix)] // FIFOs, device nodes and uids are Unix's; see the Windows twin below
    #[test]
    fn regression_root_keeps_the_users_ownership() {
        if !as_root() {
            eprintln!("skipped: needs root to create files owned by someone else");
            return;
        }
        let (user, group, other) = (4242, 4343, 4444);
        let dir = tempfile::tempdir().unwrap();
        let home = dir.path().join("home");
        fs::create_dir(&home).unwrap();
        std::os::unix::fs::chown(&home, Some(user), Some(group)).unwrap();
        let owner = |p: &Path| {
            let m = fs::symlink_metadata(p).unwrap();
            (m.uid(), m.gid())
        };
        // A user's file keeps its owner across a rewrite by root, even one unlike its dir's.
        let settings = home.join("settings.json");
        fs::write(&settings, "{}").unwrap();
        std::os::unix::fs::chown(&settings, Some(other), Some(other)).unwrap();
        atomic_write(&settings, b"{\"a\":1}", PRIVATE_FILE).unwrap();
        assert_eq!(owner(&settings), (other, other));
        // What root creates in the user's dir is the user's: dirs, files, locks, backups, logs.
        let data = home.join("reflections/deep");
        ensure_private_dir(&data).unwrap();
        assert_eq!(owner(&home.join("reflections")), (user, group));
        assert_eq!(owner(&data), (user, group));
        let new = home.join("new.json");
        atomic_write(&new, b"{}", PRIVATE_FILE).unwrap();
        assert_eq!(owner(&new), (user, group));
        let lock = home.join("settings.json.lock");
        with_lock(&lock, LockWait::HOOK, &mut || {}, || Ok(())).unwrap();
        assert_eq!(owner(&lock), (user, group));
        let copy = backup(&new, &data, 3, false).unwrap().unwrap();
        assert_eq!(owner(&copy), (user, group));
        log_error(&home.join("logs/errors.log"), "t", "m");
        assert_eq!(owner(&home.join("logs")), (user, group));
        assert_eq!(owner(&home.join("logs/errors.log")), (user, group));
        // A root-owned dir keeps what root makes root's.
        let root_file = dir.path().join("root.json");
        atomic_write(&root_file, b"{}", PRIVATE_FILE).unwrap();
        assert_eq!(owner(&root_file).0, 0);
    }

    #[test]
    fn backups_are_bounded_per_file() {
        let dir = tempfile::tempdir().unwrap();
        let file = dir.path().join("CLAUDE.md");
        let backups = dir.path().join("backups");
        for i in 0..5 {
            fs::write(&file, format!("v{i}")).unwrap();
            backup(&file, &backups, 3, false).unwrap().unwrap();
        }
        let mut kept: Vec<String> = fs::read_dir(&backups)
            .unwrap()
            .map(|e| fs::read_to_string(e.unwrap().path()).unwrap())
            .collect();
        kept.sort();
        assert_eq!(kept, ["v2", "v3", "v4"]);
        assert!(backup(&dir.path().join("missing"), &backups, 3, false)
            .unwrap()
            .is_none());
    }

    #[test]
    fn lock_times_out_when_held() {
        let dir = tempfile::tempdir().unwrap();
        let lock = dir.path().join("x.lock");
        let wait = LockWait {
            timeout: Duration::from_millis(50),
        };
        let mut waited = false;
        let inner = with_lock(&lock, wait, &mut || {}, || {
            Ok(with_lock(&lock, wait, &mut || waited = true, || Ok(())).is_err())
        })
        .unwrap();
        assert!(inner, "a second holder must time out");
        assert!(waited, "the waiter is told once");
        let err = with_lock(&lock, wait, &mut || {}, || {
            with_lock(&lock, wait, &mut || {}, || Ok(()))
        })
        .unwrap_err();
        assert_eq!(err.io_kind(), Some(io::ErrorKind::TimedOut), "{err}");
    }

    /// Lock files were deleted by age while in use. A lock file is now removed only by a process
    /// holding it, and a process that was waiting on it then locks the file at the path.
    #[test]
    fn a_lock_file_is_removed_only_while_held_and_a_waiter_moves_to_the_new_one() {
        let dir = tempfile::tempdir().unwrap();
        let lock = dir.path().join("s.lock");
        let held = with_lock(&lock, LockWait::HOOK, &mut || {}, || {
            Ok(remove_lock_file(&lock, || true))
        })
        .unwrap();
        assert_eq!(held, None, "a held lock file stays");
        assert!(lock.exists());
        let (tx, rx) = std::sync::mpsc::channel();
        let waiter = {
            let lock = lock.clone();
            thread::spawn(move || {
                rx.recv().unwrap();
                with_lock(&lock, LockWait::CLI, &mut || {}, || {
                    Ok(fs::metadata(&lock).ok().map(|_| ()))
                })
                .unwrap()
            })
        };
        with_lock(&lock, LockWait::HOOK, &mut || {}, || {
            tx.send(()).unwrap();
            thread::sleep(Duration::from_millis(100));
            replace::remove_open(&lock).unwrap();
            Ok(())
        })
        .unwrap();
        let locked = waiter.join().unwrap();
        assert!(
            locked.is_some(),
            "the waiter locked the file at the path, not the removed one"
        );
        assert_eq!(remove_lock_file(&lock, || true), Some(true));
        assert!(!lock.exists());
    }

    #[test]
    fn error_log_rotates() {
        let dir = tempfile::tempdir().unwrap();
        let log = dir.path().join("d/errors.log");
        fs::create_dir_all(log.parent().unwrap()).unwrap();
        fs::write(&log, vec![b'x'; ERROR_LOG_MAX as usize + 1]).unwrap();
        log_error(&log, "test", "boom\nline");
        let text = fs::read_to_string(&log).unwrap();
        assert!(text.ends_with("test: boom line\n"), "{text}");
        assert!(dir.path().join("d/errors.log.1").exists());
    }

    /// `errors.log.1` reached 15 MB despite the 256 KB bound: one message quoting a huge payload
    /// field made one huge line, and rotation keeps whatever the log holds.
    #[test]
    fn regression_one_huge_message_cannot_outgrow_the_error_log() {
        let dir = tempfile::tempdir().unwrap();
        let log = dir.path().join("errors.log");
        for _ in 0..3 {
            log_error(&log, "test", &"é".repeat(8 << 20));
        }
        for f in [log.clone(), dir.path().join("errors.log.1")] {
            let len = fs::metadata(&f).map(|m| m.len()).unwrap_or(0);
            assert!(
                len <= ERROR_LOG_MAX + 2 * LOG_LINE_MAX as u64,
                "{f:?}: {len}"
            );
        }
        let text = fs::read_to_string(&log).unwrap();
        assert!(
            text.ends_with(&format!("… ({} bytes)\n", 16 << 20)),
            "{text}"
        );
    }

    fn unsupported(
        _: &mut fd_lock::RwLock<File>,
    ) -> io::Result<fd_lock::RwLockWriteGuard<'_, File>> {
        Err(io::Error::from_raw_os_error(lock::UNSUPPORTED[0]))
    }

    fn no_such_call(
        _: &mut fd_lock::RwLock<File>,
    ) -> io::Result<fd_lock::RwLockWriteGuard<'_, File>> {
        Err(io::Error::from_raw_os_error(
            lock::UNSUPPORTED[lock::UNSUPPORTED.len() - 1],
        ))
    }

    fn broken(_: &mut fd_lock::RwLock<File>) -> io::Result<fd_lock::RwLockWriteGuard<'_, File>> {
        Err(io::Error::from(io::ErrorKind::PermissionDenied))
    }

    /// A file system without flock (ENOTSUP) used to fail every append: now the write goes
    /// ahead, and the error log says so once, however many writers follow.
    #[test]
    fn lock_unsupported_failed_every_append() {
        let dir = tempfile::tempdir().unwrap();
        let lock = dir.path().join("signals.lock");
        let log = dir.path().join("errors.log");
        let mut ran = 0;
        for attempt in [unsupported, no_such_call, unsupported] {
            let out = locked_by(
                &lock,
                LockWait::HOOK,
                &mut || {},
                || Some(log.clone()),
                attempt,
                || {
                    ran += 1;
                    Ok(ran)
                },
            );
            assert_eq!(out.unwrap(), ran, "the write runs without the lock");
        }
        assert_eq!(ran, 3);
        let text = fs::read_to_string(&log).unwrap();
        assert_eq!(text.lines().count(), 1, "noted once: {text}");
        assert!(text.contains("does not support locks"), "{text}");
        assert!(text.contains(&lock.display().to_string()), "{text}");
    }

    #[test]
    fn lock_error_other_than_unsupported_still_fails() {
        let dir = tempfile::tempdir().unwrap();
        let lock = dir.path().join("signals.lock");
        let log = dir.path().join("errors.log");
        let mut ran = false;
        let err = locked_by(
            &lock,
            LockWait::HOOK,
            &mut || {},
            || Some(log.clone()),
            broken,
            || {
                ran = true;
                Ok(())
            },
        )
        .unwrap_err();
        assert!(err.to_string().contains("cannot lock"), "{err}");
        assert!(!ran, "an I/O error is not a reason to write unlocked");
        assert!(!log.exists());
    }
}
