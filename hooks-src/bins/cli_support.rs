//! The one exit-code policy of the user-facing CLIs (memory-store, reflect-toggle):
//! 0 success, 1 operational error, 2 usage error, each error as one line on stderr naming the
//! program, the path and the cause. A closed stdout (`memory-store query | head`) is not an error.

use std::io::{self, Write};
use std::process::ExitCode;

use reflect_base::error::Error;

/// Write `text` to stdout; a reader that went away ends the program quietly with success.
pub fn emit(text: &str) {
    emit_bytes(text.as_bytes());
}

/// [`emit`] for bytes.
pub fn emit_bytes(bytes: &[u8]) {
    let mut out = io::stdout().lock();
    if let Err(e) = out.write_all(bytes).and_then(|()| out.flush()) {
        if e.kind() == io::ErrorKind::BrokenPipe {
            std::process::exit(0);
        }
        eprintln!("cannot write to stdout: {e}");
        std::process::exit(1);
    }
}

/// Map a result to the process exit code, printing the error.
pub fn finish(program: &str, result: Result<(), Error>) -> ExitCode {
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("{program}: {e}");
            ExitCode::from(if e.is_usage() { 2 } else { 1 })
        }
    }
}
