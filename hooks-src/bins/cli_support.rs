//! The one exit-code policy of the user-facing CLIs (memory-store, reflect-toggle):
//! 0 success, 1 operational error, 2 usage error, each error as one line on stderr naming the
//! program, the path and the cause. A closed stdout (`memory-store query | head`) is not an error.
//! A usage error is one line too, naming the flag and never its value (a token pasted into the
//! wrong flag must not be printed back): `memory-store: invalid value for --tag (see --help)`.

use std::io::{self, Write};
use std::process::ExitCode;

use clap::error::{ContextKind, ContextValue, ErrorKind};
use reflect_base::error::Error;

/// Parse the command line into `C`. `--help` and `--version` print and exit 0 as clap does; any
/// other error is [`usage_line`] on stderr and exit 2.
pub fn parse<C: clap::Parser>(program: &str) -> C {
    C::try_parse().unwrap_or_else(|e| {
        if matches!(e.kind(), ErrorKind::DisplayHelp | ErrorKind::DisplayVersion) {
            e.exit();
        }
        eprintln!("{program}: {} (see --help)", usage_line(&e));
        std::process::exit(2);
    })
}

/// What is wrong with the command line, in words that name flags but no value the user typed.
pub fn usage_line(e: &clap::Error) -> String {
    // clap names an argument as `--tag <TAG>` or `<ID>`: the flag, or the placeholder.
    let arg = match e.get(ContextKind::InvalidArg) {
        Some(ContextValue::String(a)) => a.split(' ').next().unwrap_or(a).to_string(),
        Some(ContextValue::Strings(a)) => a
            .iter()
            .map(|a| a.split(' ').next().unwrap_or(a))
            .collect::<Vec<_>>()
            .join(", "),
        _ => String::new(),
    };
    let prior = match e.get(ContextKind::PriorArg) {
        Some(ContextValue::String(a)) => a.split(' ').next().unwrap_or(a).to_string(),
        _ => String::new(),
    };
    match e.kind() {
        ErrorKind::InvalidValue | ErrorKind::ValueValidation | ErrorKind::InvalidUtf8
            if !arg.is_empty() =>
        {
            format!("invalid value for {arg}")
        }
        ErrorKind::NoEquals | ErrorKind::WrongNumberOfValues | ErrorKind::TooManyValues
            if !arg.is_empty() =>
        {
            format!("wrong number of values for {arg}")
        }
        ErrorKind::MissingRequiredArgument if !arg.is_empty() => format!("missing {arg}"),
        ErrorKind::ArgumentConflict if !arg.is_empty() && !prior.is_empty() => {
            format!("{arg} cannot be used with {prior}")
        }
        ErrorKind::ArgumentConflict if !arg.is_empty() => format!("{arg} cannot be used here"),
        ErrorKind::UnknownArgument => match flag_name(&arg) {
            Some(flag) => format!("unknown flag {flag}"),
            None => "unknown flag or extra argument".to_string(),
        },
        ErrorKind::InvalidSubcommand => "unknown command".to_string(),
        ErrorKind::MissingSubcommand | ErrorKind::DisplayHelpOnMissingArgumentOrSubcommand => {
            "missing command".to_string()
        }
        _ => "invalid arguments".to_string(),
    }
}

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

/// The flag a user typed, when it reads as a flag name (`--tags`, `-x`, `--tags=…` as `--tags`):
/// lower-case letters, digits and dashes, short. Anything else may be a value, and is not shown.
fn flag_name(typed: &str) -> Option<&str> {
    let name = typed.split('=').next()?;
    let bare = name.trim_start_matches('-');
    let shaped = name.starts_with('-')
        && !bare.is_empty()
        && name.len() <= 32
        && bare
            .bytes()
            .all(|b| b.is_ascii_lowercase() || b.is_ascii_digit() || b == b'-');
    shaped.then_some(name)
}
