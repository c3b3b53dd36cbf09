//! The runtime every hook binary shares: never hurt Claude.
//!
//! A hook exits 0 on every path (exit 2 would block compaction or feed stderr to Claude), prints
//! nothing but what its event needs, and notes problems in `<data dir>/errors.log`. A panic is
//! caught by a panic hook that logs it and exits 0 (the release profile aborts on panic, so this
//! hook runs before the abort would).

use std::fs::{File, OpenOptions};
use std::io::{self, IsTerminal, Read};
use std::os::unix::fs::{FileTypeExt, OpenOptionsExt};
use std::path::Path;
use std::process;

use crate::fsutil;
use crate::hookio::{self, Payload, MAX_PAYLOAD_BYTES};
use crate::paths::{self, Paths};

/// Flags of every transcript open: O_NONBLOCK, so opening a FIFO never waits for a writer. The value
/// differs between platforms (0o4000 on Linux is O_EXCL on macOS), hence libc's.
const READ_FLAGS: i32 = libc::O_NONBLOCK;

/// `--help`/`-h` print `help`, `--version`/`-V` the version; returns true when one was answered.
/// Hooks take no other arguments in hook mode, so this is all the flag parsing they pay for.
pub fn answer_help_or_version(program: &str, help: &str) -> bool {
    match std::env::args().nth(1).as_deref() {
        Some("-h" | "--help") => println!("{help}"),
        Some("-V" | "--version") => println!("{program} {}", env!("CARGO_PKG_VERSION")),
        _ => return false,
    }
    true
}

/// Log to the error log of the environment's data dir (best effort).
pub fn log(program: &str, message: &str) {
    if let Ok(paths) = Paths::from_env() {
        fsutil::log_error(&paths.error_log(), program, message);
    }
}

/// Make any panic a logged exit 0.
pub fn install_panic_guard(program: &'static str) {
    std::panic::set_hook(Box::new(move |info| {
        log(program, &format!("internal error (please report): {info}"));
        process::exit(0);
    }));
}

/// Read the payload from stdin, bounded. `None` (after logging) when there is nothing usable; a
/// terminal on stdin gets a hint on stderr instead of a hang.
pub fn read_payload(program: &str) -> Option<Payload> {
    let stdin = io::stdin();
    if stdin.is_terminal() {
        eprintln!("{program}: expects a Claude Code hook payload on stdin (see {program} --help)");
        return None;
    }
    let mut bytes = Vec::new();
    let limit = MAX_PAYLOAD_BYTES as u64 + 1;
    if let Err(e) = stdin.lock().take(limit).read_to_end(&mut bytes) {
        log(program, &format!("cannot read stdin: {e}"));
        return None;
    }
    match hookio::parse_payload(&bytes) {
        Ok(p) => Some(p),
        Err(e) => {
            log(program, &e.to_string());
            None
        }
    }
}

/// Whether capture is off for this payload's project (`.claude/reflect.off` in its cwd).
pub fn opted_out(payload: &Payload) -> bool {
    payload
        .cwd
        .as_deref()
        .is_some_and(|cwd| paths::project_opted_out(Path::new(cwd)))
}

/// Open `path` for reading only if it is a regular file: a directory, a FIFO that never ends or
/// a device must not hang or flood a hook.
pub fn open_regular_file(path: &Path) -> io::Result<File> {
    let meta = std::fs::metadata(path)?;
    if !meta.file_type().is_file() {
        return Err(io::Error::new(
            io::ErrorKind::InvalidInput,
            describe_not_regular(&meta),
        ));
    }
    let file = OpenOptions::new()
        .read(true)
        .custom_flags(READ_FLAGS)
        .open(path)?;
    // The path may have been swapped between the check and the open.
    let meta = file.metadata()?;
    if !meta.file_type().is_file() {
        return Err(io::Error::new(
            io::ErrorKind::InvalidInput,
            describe_not_regular(&meta),
        ));
    }
    Ok(file)
}

fn describe_not_regular(meta: &std::fs::Metadata) -> &'static str {
    let t = meta.file_type();
    if t.is_dir() {
        "is a directory"
    } else if t.is_fifo() {
        "is a FIFO, not a regular file"
    } else if t.is_char_device() || t.is_block_device() {
        "is a device, not a regular file"
    } else if t.is_socket() {
        "is a socket, not a regular file"
    } else {
        "is not a regular file"
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn refuses_directories_and_devices() {
        let dir = tempfile::tempdir().unwrap();
        let err = open_regular_file(dir.path()).unwrap_err();
        assert_eq!(err.to_string(), "is a directory");
        let err = open_regular_file(Path::new("/dev/zero")).unwrap_err();
        assert!(err.to_string().contains("device"), "{err}");
        let file = dir.path().join("t.jsonl");
        std::fs::write(&file, "{}\n").unwrap();
        assert!(open_regular_file(&file).is_ok());
    }

    /// The flags were once typed by hand as 0o4000, which is O_NONBLOCK on Linux and O_EXCL on
    /// macOS: there a FIFO swapped in after the type check would hang the hook until a writer came.
    #[test]
    fn fifo_open_with_hand_typed_flag_hung_on_macos() {
        let dir = tempfile::tempdir().unwrap();
        let fifo = dir.path().join("fifo");
        let made = std::process::Command::new("mkfifo")
            .arg(&fifo)
            .status()
            .unwrap();
        assert!(made.success(), "mkfifo failed");
        let (tx, rx) = std::sync::mpsc::channel();
        let path = fifo.clone();
        std::thread::spawn(move || {
            let opened = OpenOptions::new()
                .read(true)
                .custom_flags(READ_FLAGS)
                .open(&path);
            let _ = tx.send(opened.is_ok());
        });
        // A blocking open never returns without a writer; a generous bound turns that hang into a
        // failure (and then a writer releases the thread so the test process can end).
        let result = rx.recv_timeout(std::time::Duration::from_secs(20));
        if result.is_err() {
            let _ = OpenOptions::new()
                .write(true)
                .custom_flags(libc::O_NONBLOCK)
                .open(&fifo);
        }
        assert_eq!(
            result,
            Ok(true),
            "opening a FIFO for reading waited for a writer"
        );
    }
}
