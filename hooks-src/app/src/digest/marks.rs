//! Marking what a digest listed as looked at: the marks, saved under a short name, and moving
//! each session's cursor to them.

use std::collections::HashSet;
use std::fs;
use std::io;
use std::path::{Path, PathBuf};

use serde_json::Value;

use crate::cursor::{self, Reviewed};
use reflect_base::error::{Error, IoContext, Result};
use reflect_base::fsutil::{self, LockWait};
use reflect_base::paths::Paths;

use super::data::Mark;
use super::find::find_transcript;

/// Saved marks nobody used are removed after this many days (a digest can always be made again).
pub const SAVED_MARKS_DAYS: u64 = 7;

pub(super) fn saved_marks_dir(paths: &Paths) -> PathBuf {
    paths.data_dir.join("digests")
}

pub(super) fn prune_saved_marks(dir: &Path) {
    let max_age = std::time::Duration::from_secs(SAVED_MARKS_DAYS * 24 * 3600);
    let Ok(entries) = fs::read_dir(dir) else {
        return;
    };
    for e in entries.flatten() {
        let old = e
            .metadata()
            .and_then(|m| m.modified())
            .ok()
            .and_then(|t| t.elapsed().ok())
            .is_some_and(|age| age > max_age);
        if old {
            let _ = fs::remove_file(e.path());
        }
    }
}

/// What `--mark` was given: saved marks by name (`d…`, as a digest prints it), or marks spelled
/// out (`SESSION:LINE:TURN`). Returns the marks and the saved file to remove once they are set.
pub fn marks_named(paths: &Paths, arg: &str) -> Result<(Vec<Mark>, Option<PathBuf>)> {
    if arg.contains(':') {
        return Ok((vec![arg.parse()?], None));
    }
    let plain = arg.len() <= 32 && arg.bytes().all(|b| b.is_ascii_alphanumeric());
    let path = saved_marks_dir(paths).join(format!("{arg}.json"));
    let bytes = match plain {
        true => fsutil::read_regular(&path)?,
        false => None,
    };
    let Some(bytes) = bytes else {
        return Err(Error::msg(format!(
            "no saved marks named '{arg}' in {}: marked already, or older than {SAVED_MARKS_DAYS} days; run the digest again",
            saved_marks_dir(paths).display()
        )));
    };
    let saved: Value = serde_json::from_slice(&bytes)
        .map_err(|e| Error::msg(format!("invalid saved marks {}: {e}", path.display())))?;
    let bad = || Error::msg(format!("invalid saved marks {}", path.display()));
    let mut marks = Vec::new();
    for m in saved["marks"].as_array().ok_or_else(bad)? {
        let number = |key: &str| m[key].as_u64().ok_or_else(bad);
        marks.push(Mark {
            session: m["session"].as_str().ok_or_else(bad)?.to_string(),
            line: number("line")?,
            turn: number("turn")?.max(1),
            seen: m["seen"]
                .as_array()
                .into_iter()
                .flatten()
                .filter_map(Value::as_u64)
                .collect(),
        });
    }
    Ok((marks, Some(path)))
}

/// Forget the saved marks that name a session whose cursor file is called one of `stems`
/// ([`cursor::file_stem`]; for `forget`).
pub(crate) fn forget_saved_marks(paths: &Paths, stems: &HashSet<String>) -> usize {
    let Ok(entries) = fs::read_dir(saved_marks_dir(paths)) else {
        return 0;
    };
    let mut removed = 0;
    for e in entries.flatten() {
        let saved: Option<Value> = fsutil::read_regular(&e.path())
            .ok()
            .flatten()
            .and_then(|b| serde_json::from_slice(&b).ok());
        // A file that cannot be read as marks is no use to anyone: it goes too.
        let names = saved
            .as_ref()
            .and_then(|v| v["marks"].as_array())
            .is_none_or(|marks| {
                marks.iter().any(|m| {
                    m["session"]
                        .as_str()
                        .is_none_or(|s| stems.contains(&cursor::file_stem(s)))
                })
            });
        if names && fs::remove_file(e.path()).is_ok() {
            removed += 1;
        }
    }
    removed
}

/// What marking one session did.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Marked {
    /// The mark moved to this line.
    To(u64),
    /// A later mark was already there (another `/reflect` read further): kept.
    Kept(u64),
}

/// Mark each session read up to its [`Mark`], under the session's cursor lock (capture writes the
/// same file). A mark never moves back over one that still fits the transcript. A session capture
/// has not recorded yet gets a cursor that says only this (capture reads it from the top).
pub fn mark(paths: &Paths, marks: &[Mark], cwd: &Path) -> Result<Vec<Marked>> {
    let mut done = Vec::with_capacity(marks.len());
    for m in marks {
        let outcome = cursor::with_session_lock(paths, &m.session, LockWait::CLI, || {
            let path = cursor::path(paths, &m.session);
            let mut c = cursor::load(&path)?.unwrap_or_default();
            let transcript = c
                .transcript
                .clone()
                .or_else(|| find_transcript(paths, &m.session, cwd));
            let file = match &transcript {
                Some(t) => fsutil::open_regular(t)?,
                None => None,
            };
            // Without the transcript the next digest reads from the top, and still lists only
            // what comes after the mark.
            let mut reviewed = Reviewed {
                through: m.line,
                seen: m.seen.iter().copied().filter(|&l| l > m.line).collect(),
                ..Reviewed::default()
            };
            if let (Some(file), Some(t)) = (&file, &transcript) {
                let old = match &c.reviewed {
                    Some(old) if old.fits(file).ctx("cannot read", t)? => Some(old.clone()),
                    _ => None,
                };
                if let Some(mut old) = old.clone().filter(|old| old.through > m.line) {
                    // Another /reflect looked further: keep its mark, add what this one saw.
                    let more: Vec<u64> = reviewed
                        .seen
                        .iter()
                        .copied()
                        .filter(|&l| l > old.through)
                        .collect();
                    let kept = old.through;
                    if more.iter().any(|l| !old.seen.contains(l)) {
                        old.seen.extend(more);
                        old.seen.sort_unstable();
                        old.seen.dedup();
                        c.reviewed = Some(old);
                        cursor::save(&path, &c)?;
                    }
                    return Ok(Marked::Kept(kept));
                }
                if let Some(old) = old.filter(|old| old.through == m.line) {
                    reviewed.seen.extend(old.seen);
                    reviewed.seen.sort_unstable();
                    reviewed.seen.dedup();
                }
                let [turn, end] = line_starts(file, [m.turn - 1, m.line]).ctx("cannot read", t)?;
                let Some(end) = end else {
                    return Err(Error::usage(format!(
                        "mark {m} does not fit {}: it has fewer than {} complete lines; nothing marked",
                        t.display(),
                        m.line
                    )));
                };
                let turn = turn.expect("the turn starts before the end");
                // A turn too long to read again is not: the next prompt goes without context.
                let (offset, line) = if end - turn > TURN_REREAD_MAX {
                    (end, m.line)
                } else {
                    (turn, m.turn - 1)
                };
                reviewed.offset = offset;
                reviewed.line = line;
                reviewed.fingerprint = cursor::fingerprint(file).ctx("cannot read", t)?;
            }
            c.reviewed = Some(reviewed);
            if c.transcript.is_none() {
                c.transcript = transcript.filter(|t| t.to_str().is_some());
            }
            cursor::save(&path, &c)?;
            Ok(Marked::To(m.line))
        })?;
        done.push(outcome);
    }
    Ok(done)
}

/// The longest turn a digest reads again to give the first new prompt its context.
const TURN_REREAD_MAX: u64 = 1 << 20;

/// Where each of the 1-based lines after `after[k]` lines starts (the offset just past the
/// `after[k]`-th newline; 0 for none), `None` when the file has fewer complete lines.
fn line_starts<const N: usize>(
    file: &std::fs::File,
    after: [u64; N],
) -> io::Result<[Option<u64>; N]> {
    use reflect_base::platform::pread::read_at;
    let mut found = after.map(|k| (k == 0).then_some(0));
    let most = after.iter().copied().max().unwrap_or(0);
    let mut buf = vec![0u8; 256 << 10];
    let (mut at, mut lines) = (0u64, 0u64);
    while lines < most {
        let n = read_at(file, &mut buf, at)?;
        if n == 0 {
            break;
        }
        for nl in memchr::memchr_iter(b'\n', &buf[..n]) {
            lines += 1;
            for (k, &want) in after.iter().enumerate() {
                if want == lines {
                    found[k] = Some(at + nl as u64 + 1);
                }
            }
            if lines == most {
                break;
            }
        }
        at += n as u64;
    }
    Ok(found)
}
