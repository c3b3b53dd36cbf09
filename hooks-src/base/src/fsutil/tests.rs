use std::fs::{self, File};
use std::io;
use std::os::unix::fs::{FileTypeExt, MetadataExt, PermissionsExt};
use std::path::Path;
use std::thread;
use std::time::Duration;

use super::lock::locked_by;
use super::owner::as_root;
use super::*;

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

#[test]
fn temp_files_of_dead_writers_are_stale_and_live_ones_are_not() {
    let dir = tempfile::tempdir().unwrap();
    let mut child = std::process::Command::new("true").spawn().unwrap();
    let dead = child.id();
    child.wait().unwrap();
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

#[test]
fn atomic_write_refuses_read_only_target() {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("ro.json");
    fs::write(&file, "keep").unwrap();
    fs::set_permissions(&file, fs::Permissions::from_mode(0o444)).unwrap();
    let err = atomic_write(&file, b"new", PRIVATE_FILE).unwrap_err();
    assert!(err.to_string().contains("read-only"), "{err}");
    assert_eq!(fs::read_to_string(&file).unwrap(), "keep");
}

fn mkfifo(path: &Path) {
    use rustix::fs::{mknodat, FileType, Mode, CWD};
    mknodat(CWD, path, FileType::Fifo, Mode::from_raw_mode(0o600), 0).unwrap();
}

/// A character device node like /dev/null (1, 3), made in a temp dir so that replacing it by
/// mistake harms nothing. Needs root; `None` otherwise.
fn mknod_null(path: &Path) -> Option<()> {
    use rustix::fs::{makedev, mknodat, FileType, Mode, CWD};
    let mode = Mode::from_raw_mode(0o666);
    mknodat(CWD, path, FileType::CharacterDevice, mode, makedev(1, 3)).ok()
}

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
        fs::remove_file(&lock).unwrap();
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

fn unsupported(_: &mut fd_lock::RwLock<File>) -> io::Result<fd_lock::RwLockWriteGuard<'_, File>> {
    Err(io::Error::from_raw_os_error(libc::ENOTSUP))
}

fn no_such_call(_: &mut fd_lock::RwLock<File>) -> io::Result<fd_lock::RwLockWriteGuard<'_, File>> {
    Err(io::Error::from_raw_os_error(libc::ENOSYS))
}

fn broken(_: &mut fd_lock::RwLock<File>) -> io::Result<fd_lock::RwLockWriteGuard<'_, File>> {
    Err(io::Error::from_raw_os_error(libc::EIO))
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
