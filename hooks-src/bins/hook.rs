//! The runtime every hook binary shares: never hurt Claude.
//!
//! A hook exits 0 on every path (exit 2 would block compaction or feed stderr to Claude), prints
//! nothing but what its event needs, and notes problems in `<data dir>/errors.log`. A panic is
//! caught by a panic hook that logs it and exits 0 (the release profile aborts on panic, so this
//! hook runs before the abort would).

use std::io::{self, IsTerminal, Read};
use std::path::Path;
use std::process;

use reflect_app::hookio::{self, Payload, MAX_PAYLOAD_BYTES};
use reflect_base::fsutil;
use reflect_base::paths::Paths;

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

/// Log to the error log of the environment's data dir (best effort), redacted: a message quotes
/// paths, payload fields and errors, any of which can carry a secret.
pub fn log(program: &str, message: &str) {
    if let Ok(paths) = Paths::from_env() {
        // Redacted before the log cuts it to one line (a cut token would leak its start).
        let message = reflect_store::redact::redact_prefix(message, 2 * fsutil::LOG_LINE_MAX);
        fsutil::log_error(&paths.error_log(), program, &message);
    }
}

/// [`log`] a problem with the capture of `transcript`, whose path is shown only by its file name
/// (`…/<session id>.jsonl`): Claude Code keeps transcripts under a directory named after the
/// project's path, and the error log must not keep what `forget --project` is asked to remove.
pub fn log_about_transcript(program: &str, transcript: Option<&str>, message: &str) {
    log(program, &hide_transcript_path(message, transcript));
}

/// `message` with every occurrence of `transcript` replaced by `…/<its file name>`. A path is one
/// with a directory in it, in this platform's terms (on Windows `\` and `/` both separate).
pub fn hide_transcript_path(message: &str, transcript: Option<&str>) -> String {
    let in_a_dir = |t: &&str| {
        Path::new(t)
            .parent()
            .is_some_and(|dir| !dir.as_os_str().is_empty())
    };
    let Some(path) = transcript.filter(in_a_dir) else {
        return message.to_string();
    };
    let name = Path::new(path)
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default();
    message.replace(path, &format!("…/{name}"))
}

/// Whether capture was just turned off because the plugin it was turned on from is uninstalled
/// (see [`reflect_app::plugin`]): then the hook does nothing more. Two `stat`s while nothing changed.
pub fn plugin_uninstalled(program: &str) -> bool {
    let Ok(paths) = Paths::from_env() else {
        return false;
    };
    let Some((marker, why)) = reflect_app::plugin::uninstalled(&paths) else {
        return false;
    };
    let message = match turn_off(&paths, &marker) {
        Ok(()) => format!(
            "the plugin {} was uninstalled ({why}): capture turned off (reflect-toggle off). \
             Reinstall it and run /reflect-toggle on to capture again",
            marker.id
        ),
        Err(e) => format!(
            "the plugin {} was uninstalled ({why}), but turning capture off failed: {e}; \
             run reflect-toggle off",
            marker.id
        ),
    };
    log(program, &message);
    let _ = reflect_app::plugin::note_turned_off(&paths, marker, &why);
    true
}

/// Run the installed `reflect-toggle off` on the settings file the marker names: the very code a
/// user runs, in its own process (linking the settings editor into every hook would double its size).
fn turn_off(
    paths: &Paths,
    marker: &reflect_app::plugin::Marker,
) -> reflect_base::error::Result<()> {
    let toggle = paths.bin_dir().join("reflect-toggle");
    let out = process::Command::new(&toggle)
        .arg("off")
        .arg("--settings")
        .arg(&marker.settings)
        .env_remove("REFLECT_PLUGIN_ROOT")
        .stdin(process::Stdio::null())
        .stdout(process::Stdio::null())
        .stderr(process::Stdio::piped())
        .output()
        .map_err(|e| reflect_base::error::Error::io("cannot run", &toggle, e))?;
    if out.status.success() {
        return Ok(());
    }
    let said = String::from_utf8_lossy(&out.stderr);
    Err(reflect_base::error::Error::msg(said.trim().to_string()))
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
    if let Err(e) = read_bounded(&mut stdin.lock(), &mut bytes) {
        log(program, &format!("cannot read stdin: {e}"));
        return None;
    }
    match hookio::parse_payload(&bytes) {
        Ok(p) => {
            for note in &p.dropped {
                log(program, note);
            }
            Some(p)
        }
        Err(e) => {
            log(program, &e.to_string());
            None
        }
    }
}

/// Read at most [`MAX_PAYLOAD_BYTES`] + 1 bytes (one more says it is too large). A payload is
/// a few hundred bytes; one that fills the first read gets room for the rest at once: growing
/// a buffer by doubling touches and copies about three times its final size, and under the
/// transcript miners' allocator (transparent huge pages) each new stretch is a fault that
/// zeroes 2 MB.
fn read_bounded(input: &mut impl Read, bytes: &mut Vec<u8>) -> io::Result<()> {
    const FIRST: usize = 64 * 1024;
    let limit = MAX_PAYLOAD_BYTES + 1;
    bytes.reserve_exact(FIRST);
    input.take(FIRST as u64).read_to_end(bytes)?;
    if bytes.len() == FIRST {
        bytes.reserve_exact(limit - FIRST);
        input.take((limit - FIRST) as u64).read_to_end(bytes)?;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn stdin_is_read_whole_up_to_one_byte_past_the_limit() {
        for n in [
            0,
            300,
            64 * 1024 - 1,
            64 * 1024,
            64 * 1024 + 1,
            3 << 20,
            MAX_PAYLOAD_BYTES + 1,
        ] {
            let input: Vec<u8> = (0..n).map(|i| (i % 251) as u8).collect();
            let mut bytes = Vec::new();
            read_bounded(&mut input.as_slice(), &mut bytes).unwrap();
            assert!(bytes == input, "{n} bytes in, {} read", bytes.len());
        }
        let over = vec![b'x'; MAX_PAYLOAD_BYTES + 4096];
        let mut bytes = Vec::new();
        read_bounded(&mut over.as_slice(), &mut bytes).unwrap();
        assert_eq!(bytes.len(), MAX_PAYLOAD_BYTES + 1);
    }

    #[test]
    fn a_transcript_path_is_logged_by_its_file_name_only() {
        let path = "/home/u/.claude/projects/-home-u-secret-client/0b7d6f1e.jsonl";
        let said =
            hide_transcript_path(&format!("cannot read transcript {path}: gone"), Some(path));
        assert_eq!(said, "cannot read transcript …/0b7d6f1e.jsonl: gone");
        assert_eq!(hide_transcript_path("other", None), "other");
        let bare = "cannot read transcript 0b7d6f1e.jsonl: gone";
        assert_eq!(hide_transcript_path(bare, Some("0b7d6f1e.jsonl")), bare);
        if cfg!(windows) {
            let path = r"C:\Users\u\.claude\projects\C--Users-u-secret-client\0b7d6f1e.jsonl";
            let said =
                hide_transcript_path(&format!("cannot read transcript {path}: gone"), Some(path));
            assert_eq!(said, "cannot read transcript …/0b7d6f1e.jsonl: gone");
        }
    }
}
