//! The runtime every hook binary shares: never hurt Claude.
//!
//! A hook exits 0 on every path (exit 2 would block compaction or feed stderr to Claude), prints
//! nothing but what its event needs, and notes problems in `<data dir>/errors.log`. A panic is
//! caught by a panic hook that logs it and exits 0 (the release profile aborts on panic, so this
//! hook runs before the abort would).

use std::io::{self, IsTerminal, Read};
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
