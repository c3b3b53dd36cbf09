//! One error type for the library: what we were doing, on which path, and why it failed.
//!
//! CLIs print it on one line (`memory-store: cannot read /x/signals.jsonl: Permission denied`); hooks
//! write the same line to the error log.

use std::fmt;
use std::io;
use std::path::Path;

#[derive(Debug)]
pub struct Error {
    what: String,
    cause: Option<io::Error>,
    /// Usage errors (bad id, bad flag value) map to exit code 2 in the CLIs; everything else is 1.
    usage: bool,
}

pub type Result<T, E = Error> = std::result::Result<T, E>;

impl Error {
    /// An operational failure with a message only.
    pub fn msg(what: impl Into<String>) -> Error {
        Error {
            what: what.into(),
            cause: None,
            usage: false,
        }
    }

    /// A failure caused by the user's input (exit code 2 in the CLIs).
    pub fn usage(what: impl Into<String>) -> Error {
        Error {
            what: what.into(),
            cause: None,
            usage: true,
        }
    }

    /// An I/O failure on `path`: `"{verb} {path}: {cause}"`.
    pub fn io(verb: &str, path: &Path, cause: io::Error) -> Error {
        Error {
            what: format!("{verb} {}", path.display()),
            cause: Some(cause),
            usage: false,
        }
    }

    pub fn is_usage(&self) -> bool {
        self.usage
    }

    /// The underlying I/O error kind, when there is one (tests and lock handling look at it).
    pub fn io_kind(&self) -> Option<io::ErrorKind> {
        self.cause.as_ref().map(io::Error::kind)
    }
}

impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match &self.cause {
            Some(cause) => write!(f, "{}: {}", self.what, cause),
            None => f.write_str(&self.what),
        }
    }
}

impl std::error::Error for Error {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        self.cause.as_ref().map(|e| e as _)
    }
}

/// Attach the verb and path to an `io::Result`.
pub trait IoContext<T> {
    fn ctx(self, verb: &str, path: &Path) -> Result<T>;
}

impl<T> IoContext<T> for io::Result<T> {
    fn ctx(self, verb: &str, path: &Path) -> Result<T> {
        self.map_err(|e| Error::io(verb, path, e))
    }
}
