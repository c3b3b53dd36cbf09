//! The bounded error log: one line a problem, rotated past a size, never failing.

use std::fs::{self, OpenOptions};
use std::io::{self, Write};
use std::os::unix::fs::OpenOptionsExt;
use std::path::{Path, PathBuf};

use super::owner::{create_dirs, give_to_dir_owner};
use super::{now_rfc3339, PRIVATE_DIR, PRIVATE_FILE};

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
/// cannot even log still exits 0. The message is written as given: hooks log through
/// `hook::log` (hooks-src/bins), which redacts it first.
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
            .mode(PRIVATE_FILE)
            .open(log_path)?;
        give_to_dir_owner(&file, log_path);
        let kept = crate::text::truncate(message, LOG_LINE_MAX);
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
