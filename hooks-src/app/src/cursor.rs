//! Per-session transcript cursors: how far the capture hooks have read each session's transcript.
//!
//! PreCompact fires 2–4 times for one compaction and SessionEnd follows, all on the same growing
//! transcript. A cursor (`<data dir>/cursors/<session>.json`) remembers the byte offset and line
//! number of the first unread line, so every run reads only what is new and no transcript line is
//! mined twice. It also carries the session's running [`Tally`], so the SessionEnd summary covers
//! the whole session while reading only the unseen tail.
//!
//! **Replaced transcripts.** A cursor keeps a fingerprint of the transcript's first line. If the
//! file now starts differently, or is shorter than the offset, it is another file (a replaced or
//! truncated transcript) and reading restarts from the top with a fresh tally.
//!
//! **Races.** Two runs for one session serialize on `<session>.lock` beside the cursor, held across
//! read → detect → store append → cursor write, and the cursor is re-read under that lock; so a
//! second run starts where the first one ended. The lock file is never renamed (the cursor is, by
//! its atomic write). Lock order is always cursor lock, then store lock.
//!
//! **Cleanup.** A cursor is what keeps a resumed session from being mined again from the top, so
//! it is kept as long as its transcript can be read again: each SessionEnd removes only the
//! cursors idle for [`STALE_AFTER`] whose transcript is gone (Claude Code deletes transcripts
//! after its `cleanupPeriodDays`), or that do not say which transcript they read (written by an
//! older version). A lock file goes with its cursor, and only when no process holds it: it is
//! taken without waiting and unlinked while held, and [`fsutil::with_lock`] checks after locking
//! that the file it locked is still the one at its path. Should a cursor be lost anyway, the
//! capture does not bring back what the store or the archive already holds of the session
//! ([`crate::capture`]).

use std::fs::File;
use std::io;
use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};

use crate::summary::Tally;
use reflect_base::error::Result;
use reflect_base::fsutil::{self, LockWait, PRIVATE_FILE};
use reflect_base::paths::Paths;
use reflect_detect::copies::{Copies, Saved};
use reflect_store::signal::fnv1a;
use reflect_transcript::Position;

/// How much of the transcript's first line the fingerprint covers (first lines carry a uuid and
/// a timestamp, so this is plenty to tell two transcripts apart).
const FINGERPRINT_BYTES: usize = 4096;

/// Longest session id used verbatim as a file name.
const MAX_NAME: usize = 100;

/// Where reading a session's transcript resumes.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct Cursor {
    /// Byte offset of the first unread line.
    pub offset: u64,
    /// Lines before `offset` (the 1-based number of the last line read).
    pub line: u64,
    /// Hash of the transcript's first line; `None` until a line has been read.
    #[serde(default)]
    pub fingerprint: Option<String>,
    /// What the session did in the lines read so far.
    #[serde(default)]
    pub tally: Tally,
    /// The line of the last user prompt read: where the turn in progress at the cursor began.
    #[serde(default)]
    pub turn_line: Option<u64>,
    /// The transcript this session's hooks read (absolute, as the hook payload named it): how
    /// `memory-store digest` finds the session again; the cursor is kept while this file exists.
    #[serde(default)]
    pub transcript: Option<PathBuf>,
    /// The session's project (its cwd, as the hook payload named it).
    #[serde(default)]
    pub project: Option<String>,
    /// How far `/reflect` has looked at the session's prompts (`memory-store digest --mark`).
    #[serde(default)]
    pub reviewed: Option<Reviewed>,
    /// The session's prompts read so far, as hashes: a copy of one (the same words answering the
    /// same assistant words, [`reflect_detect::copies`]) read in a later run stores nothing.
    #[serde(default, skip_serializing_if = "Prompts::is_empty")]
    pub prompts: Prompts,
}

/// What capture remembers of a session's prompts ([`reflect_detect::copies::Copies`], saved).
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct Prompts {
    /// The hash of the assistant's last text read.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub said: Option<u64>,
    /// The hash of the last prompt's words, when it was remembered.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub last: Option<u64>,
    /// Whether the user interrupted the answer to the last prompt.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub interrupted: bool,
    /// The prompts' hashes, oldest first.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub seen: Vec<u64>,
}

impl Prompts {
    fn is_empty(&self) -> bool {
        *self == Prompts::default()
    }

    pub(crate) fn of(copies: &Copies) -> Prompts {
        let saved = copies.save();
        Prompts {
            said: saved.said,
            last: saved.last,
            interrupted: saved.interrupted,
            seen: saved.prompts,
        }
    }

    pub(crate) fn copies(&self) -> Copies {
        Copies::resume(&Saved {
            said: self.said,
            last: self.last,
            interrupted: self.interrupted,
            prompts: self.seen.clone(),
        })
    }
}

/// How far `/reflect`'s digest has looked at a session's prompts, and where it resumes: at the
/// turn in progress there, so the first new prompt is read with what it answered.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct Reviewed {
    /// The last line looked at: prompts up to it are not listed again.
    pub through: u64,
    /// Byte offset where reading resumes (the start of the turn in progress at `through`).
    pub offset: u64,
    /// Lines before `offset`.
    pub line: u64,
    /// The transcript's [`fingerprint`] when it was marked (`None` when it could not be read).
    #[serde(default)]
    pub fingerprint: Option<String>,
    /// Lines after `through` whose prompts were looked at too (a prompt left out for a digest's
    /// budget stops `through` before it).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub seen: Vec<u64>,
}

impl Reviewed {
    /// Whether this mark still fits `file`: as long, a line starting at the offset, the same
    /// first line. A transcript replaced since is read from the top.
    pub(crate) fn fits(&self, file: &File) -> io::Result<bool> {
        if self.offset == 0 {
            return Ok(true);
        }
        if file.metadata()?.len() < self.offset {
            return Ok(false);
        }
        let mut before = [0u8; 1];
        reflect_base::platform::pread::read_exact_at(file, &mut before, self.offset - 1)?;
        Ok(before[0] == b'\n'
            && (self.fingerprint.is_none() || fingerprint(file)? == self.fingerprint))
    }
}

impl Cursor {
    /// This cursor if it still fits `file`, else a fresh one (another or a truncated transcript).
    pub(crate) fn resume_for(self, file: &File) -> io::Result<Cursor> {
        if self.offset == 0 {
            return Ok(Cursor::default());
        }
        let len = file.metadata()?.len();
        if len < self.offset || fingerprint(file)? != self.fingerprint {
            return Ok(Cursor::default());
        }
        Ok(self)
    }
}

/// The fingerprint of a transcript: a hash of its first line (bounded), `None` when it is empty.
pub(crate) fn fingerprint(file: &File) -> io::Result<Option<String>> {
    let mut buf = vec![0u8; FINGERPRINT_BYTES];
    let mut filled = 0;
    // Positional reads leave the file's cursor where the transcript reader expects it.
    while filled < buf.len() {
        match reflect_base::platform::pread::read_at(file, &mut buf[filled..], filled as u64) {
            Ok(0) => break,
            Ok(n) => filled += n,
            Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
            Err(e) => return Err(e),
        }
    }
    let head = &buf[..filled];
    if head.is_empty() {
        return Ok(None);
    }
    let first_line = match memchr::memchr(b'\n', head) {
        Some(end) => &head[..=end],
        None => head,
    };
    Ok(Some(format!("{:016x}", fnv1a(first_line))))
}

/// How far back before the cursor the turn in progress is looked for: the lines after its
/// prompt.
const TURN_CONTEXT_BYTES: u64 = 256 * 1024;
/// The longest prompt line a turn is gone back to (an image pasted into the prompt makes it
/// long): the reader's longest line.
const PROMPT_LINE_BYTES: u64 = reflect_transcript::MAX_LINE as u64;
/// Bytes read at a time going back over a long prompt line.
const BACK_CHUNK: u64 = 64 * 1024;

/// Where 1-based line `target` starts, given that `at` (just after a newline) starts line
/// `at.line + 1`: found by reading back at most [`TURN_CONTEXT_BYTES`] over the lines after it,
/// and at most [`PROMPT_LINE_BYTES`] over line `target` itself. `None` when it is further back
/// than that, or `target` is not before `at`.
pub(crate) fn line_start(file: &File, at: Position, target: u64) -> io::Result<Option<Position>> {
    if target == 0 || target > at.line {
        return Ok(None);
    }
    let from = at.offset.saturating_sub(TURN_CONTEXT_BYTES);
    let mut buf = vec![0u8; (at.offset - from) as usize];
    reflect_base::platform::pread::read_exact_at(file, &mut buf, from)?;
    if buf.last().is_some_and(|&b| b != b'\n') {
        // Inside an oversized line a read gave up on: no turn to go back to.
        return Ok(None);
    }
    let found = |offset| Position {
        offset,
        line: target - 1,
    };
    // The line ending at `at.offset` is number `at.line`; walk back over newlines.
    let mut line = at.line;
    let mut end = buf.len().saturating_sub(1); // the newline that ends line `at.line`
    loop {
        match memchr::memrchr(b'\n', &buf[..end]) {
            Some(nl) if line > target => {
                line -= 1;
                end = nl;
            }
            Some(nl) => return Ok(Some(found(from + nl as u64 + 1))),
            None if line == target => {
                // Line `target` began before the window: go back over it alone.
                let floor = (from + end as u64).saturating_sub(PROMPT_LINE_BYTES);
                return Ok(start_before(file, from, floor)?.map(found));
            }
            None => return Ok(None),
        }
    }
}

/// The offset just after the last newline before `offset`, not looking below `floor`: the start
/// of the line `offset` is in (0 at the file's start); `None` when it starts below `floor`.
fn start_before(file: &File, offset: u64, floor: u64) -> io::Result<Option<u64>> {
    let mut high = offset;
    let mut buf = Vec::new();
    while high > floor {
        let low = high.saturating_sub(BACK_CHUNK).max(floor);
        buf.resize((high - low) as usize, 0);
        reflect_base::platform::pread::read_exact_at(file, &mut buf, low)?;
        if let Some(nl) = memchr::memrchr(b'\n', &buf) {
            return Ok(Some(low + nl as u64 + 1));
        }
        high = low;
    }
    Ok((high == 0).then_some(0))
}

/// A file name for a session id: the id itself when it is a plain token (Claude's session ids are
/// uuids), otherwise its safe characters plus a hash, so `../x`, `a/b` or an empty id can never
/// leave the cursors dir or collide with another session.
pub(crate) fn file_stem(session: &str) -> String {
    let plain = !session.is_empty()
        && session.len() <= MAX_NAME
        && !session.starts_with('.')
        && session
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || b == b'-' || b == b'_' || b == b'.');
    if plain {
        return session.to_string();
    }
    let safe: String = session
        .chars()
        .filter(|c| c.is_ascii_alphanumeric() || *c == '-' || *c == '_')
        .take(48)
        .collect();
    format!("s_{safe}_{:016x}", fnv1a(session.as_bytes()))
}

/// `<data dir>/cursors/<session>.json`
pub fn path(paths: &Paths, session: &str) -> PathBuf {
    paths.cursors().join(format!("{}.json", file_stem(session)))
}

fn lock_path(paths: &Paths, session: &str) -> PathBuf {
    lock_beside(&path(paths, session))
}

/// The lock file of the cursor at `cursor`.
fn lock_beside(cursor: &Path) -> PathBuf {
    cursor.with_extension("lock")
}

/// Where a forgotten session's place is kept: `<data dir>/cursors/forgotten-<hash>.json`, named by
/// a hash of its cursor's name so that nothing under the data dir names the session any more
/// (see [`forget`]).
pub(crate) fn forgotten_path(paths: &Paths, session: &str) -> PathBuf {
    tombstone_beside(&path(paths, session))
}

fn tombstone_beside(cursor: &Path) -> PathBuf {
    let stem = cursor.file_stem().unwrap_or_default().as_encoded_bytes();
    cursor.with_file_name(format!("forgotten-{:016x}.json", fnv1a(stem)))
}

/// The session's cursor, or, when it has none, the place kept when it was forgotten.
pub(crate) fn load_for(paths: &Paths, session: &str) -> Result<Option<Cursor>> {
    match load(&path(paths, session))? {
        Some(cursor) => Ok(Some(cursor)),
        None => load(&forgotten_path(paths, session)),
    }
}

/// Forget the session whose cursor is at `cursor`: its place (offset, line, the transcript's
/// fingerprint) moves to a file named by a hash ([`forgotten_path`]), so that the next run of a
/// session still going on resumes there rather than mine again what was forgotten; the cursor
/// (its tally, its transcript's path, its project), its temp files and its lock file go.
/// Returns whether there was a cursor. The lock file stays if another process holds it.
pub fn forget(cursor: &Path) -> Result<bool> {
    let lock = lock_beside(cursor);
    let had = fsutil::with_lock(&lock, LockWait::CLI, &mut || {}, || {
        // Under the lock no run of the session is writing: its temp files are leftovers.
        if let (Some(dir), Some(name)) = (cursor.parent(), cursor.file_name()) {
            let prefix = format!(".{}.", name.to_string_lossy());
            for e in std::fs::read_dir(dir).into_iter().flatten().flatten() {
                if e.file_name().to_string_lossy().starts_with(&prefix) {
                    let _ = std::fs::remove_file(e.path());
                }
            }
        }
        let Some(saved) = load(cursor).ok().flatten() else {
            return Ok(std::fs::remove_file(cursor).is_ok());
        };
        let place = Cursor {
            offset: saved.offset,
            line: saved.line,
            fingerprint: saved.fingerprint,
            ..Cursor::default()
        };
        save(&tombstone_beside(cursor), &place)?;
        std::fs::remove_file(cursor)
            .map_err(|e| reflect_base::error::Error::io("cannot remove", cursor, e))?;
        Ok(true)
    })?;
    fsutil::remove_lock_file(&lock, || true);
    Ok(had)
}

/// The saved cursor, `Ok(None)` when there is none yet. An unreadable or invalid cursor is an error
/// (the caller logs it and starts over: mining twice beats never mining); so is one that is not a
/// regular file, refused without blocking (a FIFO there would hold the hook until killed).
pub fn load(path: &Path) -> Result<Option<Cursor>> {
    let Some(bytes) = fsutil::read_regular(path)? else {
        return Ok(None);
    };
    serde_json::from_slice(&bytes).map(Some).map_err(|e| {
        reflect_base::error::Error::msg(format!("invalid cursor {}: {e}", path.display()))
    })
}

/// Write the cursor atomically (a crash leaves the old or the new one, never half of one).
pub(crate) fn save(path: &Path, cursor: &Cursor) -> Result<()> {
    if let Some(dir) = path.parent() {
        fsutil::ensure_private_dir(dir)?;
    }
    let bytes = serde_json::to_vec(cursor).expect("serializes");
    fsutil::atomic_write(path, &bytes, PRIVATE_FILE)
}

/// How long a cursor must have been idle before it may go (see the module docs: it also needs
/// its transcript gone).
pub(crate) const STALE_AFTER: std::time::Duration = std::time::Duration::from_secs(30 * 24 * 3600);

/// Remove the cursors idle for `max_age` whose transcript is gone or unknown, their lock files,
/// and lock files idle that long with no cursor, none of them while a process holds its lock (see
/// the module docs), so `cursors/` does not grow forever. Best effort; returns how many files went.
pub(crate) fn prune_stale(paths: &Paths, max_age: std::time::Duration) -> usize {
    let dir = paths.cursors();
    let Ok(entries) = std::fs::read_dir(&dir) else {
        return 0;
    };
    let now = std::time::SystemTime::now();
    let idle = |path: &Path| {
        std::fs::symlink_metadata(path)
            .and_then(|m| m.modified())
            .ok()
            .and_then(|t| now.duration_since(t).ok())
            .is_some_and(|age| age > max_age)
    };
    let mut removed = 0;
    for entry in entries.flatten() {
        let path = entry.path();
        let name = entry.file_name();
        let name = name.to_string_lossy();
        if name.starts_with('.') || !idle(&path) {
            continue;
        }
        if name.ends_with(".json") {
            let rereadable = match load(&path) {
                Ok(Some(Cursor {
                    transcript: Some(t),
                    ..
                })) => {
                    !matches!(std::fs::metadata(&t), Err(e) if e.kind() == io::ErrorKind::NotFound)
                }
                _ => false,
            };
            if rereadable {
                continue;
            }
            let lock = lock_beside(&path);
            // Removed while its lock is held, so no run of the session is between its reads.
            let gone = fsutil::remove_lock_file(&lock, || std::fs::remove_file(&path).is_ok());
            match gone {
                Some(true) => removed += 2,
                None if !lock.exists() && std::fs::remove_file(&path).is_ok() => removed += 1,
                _ => {}
            }
        } else if name.ends_with(".lock") {
            let cursor = path.with_extension("json");
            if !cursor.exists() && fsutil::remove_lock_file(&path, || true) == Some(true) {
                removed += 1;
            }
        }
    }
    removed
}

/// Run `f` holding the session's cursor lock (bounded wait: a hook never blocks Claude for long).
pub(crate) fn with_session_lock<T>(
    paths: &Paths,
    session: &str,
    wait: LockWait,
    f: impl FnOnce() -> Result<T>,
) -> Result<T> {
    fsutil::with_lock(&lock_path(paths, session), wait, &mut || {}, f)
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::io::Write;

    #[test]
    fn session_ids_become_safe_distinct_file_names() {
        let uuid = "3f9394bc-a388-496a-b744-1667ef929002";
        assert_eq!(file_stem(uuid), uuid);
        for hostile in ["../../etc/passwd", "a/b", "", ".", "..", ".hidden", "x\0y"] {
            let stem = file_stem(hostile);
            assert!(!stem.contains('/') && !stem.contains('\0'), "{stem}");
            assert!(!stem.starts_with('.'), "{stem}");
            assert!(!stem.is_empty());
        }
        assert_ne!(file_stem("a/b"), file_stem("a_b"));
        assert_ne!(file_stem("a/b"), file_stem("a:b"));
        let long = "x".repeat(500);
        assert!(file_stem(&long).len() < 80);
        let p = Paths::new("/c", "/d");
        assert_eq!(
            path(&p, "../evil"),
            PathBuf::from(format!("/d/cursors/{}.json", file_stem("../evil")))
        );
    }

    #[test]
    fn a_cursor_resumes_only_on_the_same_untruncated_transcript() {
        let dir = tempfile::tempdir().unwrap();
        let t = dir.path().join("t.jsonl");
        std::fs::write(&t, "{\"uuid\":\"a\"}\n{\"uuid\":\"b\"}\n").unwrap();
        let file = File::open(&t).unwrap();
        let saved = Cursor {
            offset: 13,
            line: 1,
            fingerprint: fingerprint(&file).unwrap(),
            ..Cursor::default()
        };
        assert_eq!(saved.clone().resume_for(&file).unwrap(), saved);

        // Replaced by another transcript of the same length: restart.
        std::fs::write(&t, "{\"uuid\":\"z\"}\n{\"uuid\":\"b\"}\n").unwrap();
        let file = File::open(&t).unwrap();
        assert_eq!(saved.clone().resume_for(&file).unwrap(), Cursor::default());

        // Truncated below the offset: restart.
        std::fs::write(&t, "{\"uuid\":\"a\"}").unwrap();
        let file = File::open(&t).unwrap();
        assert_eq!(saved.clone().resume_for(&file).unwrap(), Cursor::default());

        // Grown: resume.
        let mut f = std::fs::OpenOptions::new().append(true).open(&t).unwrap();
        f.write_all(b"\n{\"uuid\":\"b\"}\n{\"uuid\":\"c\"}\n")
            .unwrap();
        let file = File::open(&t).unwrap();
        assert_eq!(saved.clone().resume_for(&file).unwrap(), saved);
    }

    #[test]
    fn line_start_walks_back_to_the_turn() {
        let dir = tempfile::tempdir().unwrap();
        let t = dir.path().join("t.jsonl");
        std::fs::write(&t, "aa\nbbb\nc\ndddd\n").unwrap();
        let file = File::open(&t).unwrap();
        let at = Position { offset: 9, line: 3 }; // after "c\n"
        let start = |n| line_start(&file, at, n).unwrap();
        assert_eq!(start(3), Some(Position { offset: 7, line: 2 }));
        assert_eq!(start(2), Some(Position { offset: 3, line: 1 }));
        assert_eq!(start(1), Some(Position { offset: 0, line: 0 }));
        assert_eq!(start(4), None);
        assert_eq!(start(0), None);
        // A prompt line longer than the window is gone back over whole: where line `target`
        // of `text` starts, read back from its end (after `lines` lines).
        let start_in = |text: &str, lines: u64, target: u64| {
            std::fs::write(&t, text).unwrap();
            let end = Position {
                offset: text.len() as u64,
                line: lines,
            };
            line_start(&File::open(&t).unwrap(), end, target).unwrap()
        };
        let long = format!("aa\n{}\nok\n", "p".repeat(300 * 1024));
        assert_eq!(start_in(&long, 3, 2), Some(Position { offset: 3, line: 1 }));
        assert_eq!(
            start_in(&long[3..], 2, 1),
            Some(Position { offset: 0, line: 0 })
        );
        // A position inside a line the reader gave up on (oversized) has no turn to go back to.
        std::fs::write(&t, "aa\nbbb\nc\ndddd\n").unwrap();
        let file = File::open(&t).unwrap();
        let inside = Position {
            offset: 12,
            line: 3,
        };
        assert_eq!(line_start(&file, inside, 1).unwrap(), None);
    }

    fn age(files: &[PathBuf]) {
        let long_ago = std::time::SystemTime::now() - STALE_AFTER * 2;
        for f in files {
            File::options()
                .write(true)
                .open(f)
                .unwrap()
                .set_modified(long_ago)
                .unwrap();
        }
    }

    #[test]
    fn stale_cursors_are_pruned_and_fresh_ones_kept() {
        let dir = tempfile::tempdir().unwrap();
        let p = Paths::new(dir.path(), dir.path().join("data"));
        save(&path(&p, "old"), &Cursor::default()).unwrap();
        save(&path(&p, "new"), &Cursor::default()).unwrap();
        with_session_lock(&p, "old", LockWait::HOOK, || Ok(())).unwrap();
        age(&[path(&p, "old"), lock_path(&p, "old")]);
        assert_eq!(prune_stale(&p, STALE_AFTER), 2);
        assert!(!path(&p, "old").exists());
        assert!(path(&p, "new").exists());
    }

    /// After 30 days a session's cursor was deleted even though its transcript was still there,
    /// so resuming the session mined it all again; lock files went by age while in use.
    #[test]
    fn regression_a_cursor_stays_while_its_transcript_can_be_read_and_a_held_lock_stays() {
        let dir = tempfile::tempdir().unwrap();
        let p = Paths::new(dir.path(), dir.path().join("data"));
        let transcript = dir.path().join("t.jsonl");
        std::fs::write(&transcript, "{}\n").unwrap();
        let reading = |t: &Path| Cursor {
            transcript: Some(t.to_path_buf()),
            ..Cursor::default()
        };
        save(&path(&p, "alive"), &reading(&transcript)).unwrap();
        save(
            &path(&p, "gone"),
            &reading(&dir.path().join("deleted.jsonl")),
        )
        .unwrap();
        save(
            &path(&p, "busy"),
            &reading(&dir.path().join("deleted.jsonl")),
        )
        .unwrap();
        for s in ["alive", "gone", "busy"] {
            with_session_lock(&p, s, LockWait::HOOK, || Ok(())).unwrap();
            age(&[path(&p, s), lock_path(&p, s)]);
        }
        let removed = with_session_lock(&p, "busy", LockWait::HOOK, || {
            Ok(prune_stale(&p, STALE_AFTER))
        })
        .unwrap();
        assert_eq!(
            removed, 2,
            "only the cursor of the deleted transcript, and its lock"
        );
        assert!(path(&p, "alive").exists() && lock_path(&p, "alive").exists());
        assert!(!path(&p, "gone").exists() && !lock_path(&p, "gone").exists());
        assert!(path(&p, "busy").exists() && lock_path(&p, "busy").exists());
        // Released, it goes the next time.
        assert_eq!(prune_stale(&p, STALE_AFTER), 2);
        assert!(!path(&p, "busy").exists());
    }

    #[test]
    fn save_then_load_round_trips_and_bad_cursors_are_errors() {
        let dir = tempfile::tempdir().unwrap();
        let p = Paths::new(dir.path(), dir.path().join("data"));
        let at = path(&p, "s1");
        assert!(load(&at).unwrap().is_none());
        let mut c = Cursor {
            offset: 42,
            line: 3,
            fingerprint: Some("00ff".into()),
            ..Cursor::default()
        };
        c.tally.turns = 2;
        save(&at, &c).unwrap();
        assert_eq!(load(&at).unwrap(), Some(c));
        std::fs::write(&at, "{not json").unwrap();
        assert!(load(&at).is_err());
    }
}
