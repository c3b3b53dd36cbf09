//! `forget`: a hard delete. The rule: **forget removes every byte that names what it forgets**,
//! wherever reflect keeps it, including in files or lines it cannot parse. A user forgetting a
//! session that held something private must not find it in a copy, a log or a leftover.
//!
//! What names what is forgotten: a signal the selector matches, and any line holding, as a whole
//! token (raw or as JSON escapes it), the session id, the project's path (or a path under it), or
//! the id of a signal forgotten. One pass per file, each file read once:
//!
//! - the store and the archive (rewrites under the store lock): the signals the selector matches,
//!   then every line that names one of them, the session or the project: recurrence records,
//!   lines of a kind this version does not know, torn and invalid lines (not quarantined);
//! - under the store lock too: the quarantine of invalid lines, reflect's backups of the store, the
//!   archive and the learnings, the spool (`pending/`) and temp files left by killed writers;
//! - the learnings index and topic files: the entries of the forgotten signals;
//! - the error log and its old copy: the lines that name it;
//! - the cursor of a forgotten session, and of each session of a forgotten project: its tally,
//!   transcript path and project go, its place is kept under a name that is a hash
//!   ([`cursor::forget`]), so that a session still going on does not mine again what was
//!   forgotten; its lock file goes, and so does any file under the data dir named after the
//!   session. A session whose signals are forgotten by id keeps its cursor without its tally.
//!
//! Backups of the user's own files (CLAUDE.md…) are not touched (promoted text is theirs), except
//! with `--project`: the backups of the files inside the project that its forgotten signals were
//! promoted to go, as their names spell the project's path.

use std::collections::HashSet;
use std::fs;
use std::path::{Path, PathBuf};

use memchr::memmem::{self, Finder};

use crate::cursor;
use crate::promote::forget_learnings;
use reflect_base::error::{Error, Result};
use reflect_base::fsutil::{self, PRIVATE_FILE};
use reflect_base::paths::Paths;
use reflect_store::signal::Signal;
use reflect_store::store::{within, Snapshot, Store};

/// Which signals to forget: any listed id, every signal of a session, or of a project (and its
/// subdirectories).
#[derive(Debug, Clone, Default)]
pub struct Selector {
    pub ids: Vec<String>,
    pub session: Option<String>,
    pub project: Option<PathBuf>,
}

impl Selector {
    pub fn is_empty(&self) -> bool {
        self.ids.is_empty() && self.session.is_none() && self.project.is_none()
    }

    pub fn matches(&self, s: &Signal) -> bool {
        self.ids.contains(&s.id)
            || self
                .session
                .as_ref()
                .is_some_and(|sid| s.session_id.as_deref() == Some(sid))
            || self.project.as_ref().is_some_and(|dir| {
                s.project
                    .as_deref()
                    .is_some_and(|p| within(Path::new(p), dir))
            })
    }
}

#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct ForgetReport {
    pub ids: Vec<String>,
    pub from_store: usize,
    pub from_archive: usize,
    pub learnings_files: usize,
    /// Backups, the quarantine, the spool, leftovers and error logs that lost lines (or went).
    pub files_scrubbed: usize,
    /// Cursors of forgotten sessions (and of a forgotten project's sessions) that went.
    pub cursors_forgotten: usize,
    /// Cursors of sessions whose signals were forgotten by id that lost their tally.
    pub cursors_scrubbed: usize,
}

/// Forget what `selector` names. An id found in neither the store nor the archive is a typo:
/// that is an error, and nothing is forgotten.
pub fn forget(store: &Store, selector: &Selector) -> Result<ForgetReport> {
    let paths = store.paths();
    let mut unknown = Vec::new();
    for id in &selector.ids {
        if store.find(id)?.is_none() {
            unknown.push(id.as_str());
        }
    }
    if !unknown.is_empty() {
        return Err(Error::msg(format!(
            "no signal {} in {} or its archive; nothing forgotten",
            unknown.join(", "),
            paths.store().display()
        )));
    }
    let mut report = ForgetReport::default();
    let mut names = Names::new(selector);
    let mut sessions: HashSet<String> = HashSet::new();
    let mut promoted_in_project: HashSet<PathBuf> = HashSet::new();
    for (from_archive, found) in [
        (false, &mut report.from_store),
        (true, &mut report.from_archive),
    ] {
        let pass = |snap: &mut Snapshot| {
            let gone = snap.remove_where(|s| selector.matches(s));
            names.add_ids(gone.iter().map(|s| s.id.as_str()));
            snap.drop_evidence_naming(|bytes| names.name(bytes));
            let before = snap.entries.len();
            snap.entries.retain(|e| !names.name(e.raw()));
            let changed = !gone.is_empty() || snap.entries.len() != before;
            Ok((gone, changed))
        };
        let gone = match from_archive {
            false => store.rewrite(&mut || {}, pass)?,
            true => store.rewrite_archive(pass)?,
        };
        *found = gone.len();
        promoted_in_project.extend(promoted_within(&gone, selector.project.as_deref()));
        sessions.extend(gone.iter().filter_map(|s| s.session_id.clone()));
        report.ids.extend(gone.into_iter().map(|s| s.id));
    }
    report.ids.extend(selector.ids.iter().cloned());
    report.ids.sort();
    report.ids.dedup();

    report.learnings_files = forget_learnings(paths, &report.ids)?;
    report.files_scrubbed = store.locked(&mut || {}, || scrub_files(paths, &names))?;
    report.files_scrubbed += remove_backups_of(&paths.backups(), &promoted_in_project);
    for log in [paths.error_log(), fsutil::rotated_log(&paths.error_log())] {
        report.files_scrubbed += usize::from(scrub(&log, &names)?);
    }

    let (forgotten, scrubbed) = forget_cursors(paths, selector, &names, &sessions)?;
    report.cursors_forgotten = forgotten.len();
    report.cursors_scrubbed = scrubbed;
    // A digest's saved marks name the sessions it read.
    let mut stems = forgotten;
    stems.extend(selector.session.as_deref().map(cursor::file_stem));
    crate::digest::forget_saved_marks(paths, &stems);
    if let Some(session) = &selector.session {
        remove_named_after(&paths.data_dir, &cursor::file_stem(session), 0);
    }
    Ok(report)
}

/// The files inside the forgotten `project` that the forgotten signals `gone` were promoted to:
/// reflect's backups of them are named after their path, so they name the project.
fn promoted_within(gone: &[Signal], project: Option<&Path>) -> Vec<PathBuf> {
    let Some(project) = project else {
        return Vec::new();
    };
    gone.iter()
        .filter_map(|s| s.promoted_to.as_deref())
        .map(PathBuf::from)
        .filter(|target| within(target, project))
        .collect()
}

/// Remove reflect's backups (in `backups`) of each of `files`; returns how many went. The user's
/// files themselves, in the project, are theirs and stay.
fn remove_backups_of(backups: &Path, files: &HashSet<PathBuf>) -> usize {
    files
        .iter()
        .flat_map(|f| fsutil::backups_of(f, backups))
        .filter(|b| fs::remove_file(b).is_ok())
        .count()
}

/// What names the forgotten things in a line of bytes.
struct Names {
    /// The session id, raw and as JSON escapes it.
    session: Vec<Finder<'static>>,
    /// The project's path, raw and as JSON escapes it.
    project: Vec<Finder<'static>>,
    /// The project is `/`: every absolute path names it.
    root: bool,
    /// Forgotten signal ids of reflect's own shape (`SIG-…`), found by their prefix.
    ids: HashSet<Vec<u8>>,
    /// Forgotten ids of another shape (written by another tool), looked for one by one.
    odd_ids: Vec<Finder<'static>>,
}

/// Bytes that continue an id: a match followed or preceded by one is part of a longer id.
fn continues_id(b: u8) -> bool {
    b.is_ascii_alphanumeric() || matches!(b, b'-' | b'_') || b >= 0x80
}

/// Bytes that continue a path's name (`/home/u/proj.bak` is not `/home/u/proj`).
fn continues_name(b: u8) -> bool {
    continues_id(b) || b == b'.'
}

impl Names {
    fn new(selector: &Selector) -> Names {
        let forms = |text: &str| -> Vec<Finder<'static>> {
            let escaped = serde_json::to_string(text).expect("a string serializes");
            let escaped = &escaped[1..escaped.len() - 1];
            let mut forms = vec![text.to_string()];
            if escaped != text {
                forms.push(escaped.to_string());
            }
            forms
                .iter()
                .filter(|f| !f.is_empty())
                .map(|f| Finder::new(f.as_bytes()).into_owned())
                .collect()
        };
        let project = selector
            .project
            .as_ref()
            .map(|p| p.to_string_lossy().trim_end_matches('/').to_string());
        let mut names = Names {
            session: selector.session.as_deref().map(forms).unwrap_or_default(),
            project: project.as_deref().map(forms).unwrap_or_default(),
            root: project.as_deref() == Some(""),
            ids: HashSet::new(),
            odd_ids: Vec::new(),
        };
        names.add_ids(selector.ids.iter().map(String::as_str));
        names
    }

    fn add_ids<'a>(&mut self, ids: impl IntoIterator<Item = &'a str>) {
        for id in ids {
            let own = id.starts_with("SIG-")
                && id[4..]
                    .bytes()
                    .all(|b| b.is_ascii_alphanumeric() || b == b'-');
            if own {
                self.ids.insert(id.as_bytes().to_vec());
            } else if !id.is_empty() && !self.odd_ids.iter().any(|f| f.needle() == id.as_bytes()) {
                self.odd_ids.push(Finder::new(id.as_bytes()).into_owned());
            }
        }
    }

    /// Whether `line` names something forgotten.
    fn name(&self, line: &[u8]) -> bool {
        let whole = |f: &Finder, after_ok: &dyn Fn(u8) -> bool, before_ok: &dyn Fn(u8) -> bool| {
            f.find_iter(line).any(|at| {
                let end = at + f.needle().len();
                (at == 0 || before_ok(line[at - 1])) && line.get(end).is_none_or(|&b| after_ok(b))
            })
        };
        let token = |b: u8| !continues_id(b);
        // A path names the project when it is the project or under it: `/` may follow it, and
        // nothing of a longer path may precede it.
        let path_end = |b: u8| b == b'/' || !continues_name(b);
        let path_start = |b: u8| b != b'/' && !continues_name(b);
        let root = Finder::new(b"/");
        self.session.iter().any(|f| whole(f, &token, &token))
            || self
                .project
                .iter()
                .any(|f| whole(f, &path_end, &path_start))
            || (self.root && whole(&root, &|_| true, &path_start))
            || self.odd_ids.iter().any(|f| whole(f, &token, &token))
            || (!self.ids.is_empty()
                && memmem::find_iter(line, b"SIG-").any(|at| {
                    let len = line[at + 4..]
                        .iter()
                        .take_while(|&&b| b.is_ascii_alphanumeric() || b == b'-')
                        .count();
                    self.ids.contains(&line[at..at + 4 + len])
                }))
    }
}

/// The files under the store lock that keep copies of forgotten lines: the quarantine, reflect's
/// backups of the store, the archive and the learnings, the spool, and temp files left by killed
/// writers. Returns how many changed.
fn scrub_files(paths: &Paths, names: &Names) -> Result<usize> {
    let ours = [
        fsutil::backup_stem(&paths.store()),
        fsutil::backup_stem(&paths.archive()),
        fsutil::backup_stem(&paths.learnings_dir()),
    ];
    let mut files = vec![reflect_store::store::invalid_lines_path(paths)];
    let listed = |dir: &Path| -> Vec<PathBuf> {
        fs::read_dir(dir)
            .map(|d| d.flatten().map(|e| e.path()).collect())
            .unwrap_or_default()
    };
    // Copies of the store and the archive are known by their names' ends too, so that those made
    // while the data dir was elsewhere are found.
    let store_copy = |name: &str| {
        ["-signals.jsonl.", "-signals.archive.jsonl."]
            .iter()
            .any(|end| {
                name.rsplit_once(end)
                    .is_some_and(|(_, stamp)| stamp.starts_with(|c: char| c.is_ascii_digit()))
            })
    };
    files.extend(listed(&paths.backups()).into_iter().filter(|p| {
        let name = p.file_name().unwrap_or_default().to_string_lossy();
        store_copy(&name) || ours.iter().any(|stem| name.starts_with(stem.as_str()))
    }));
    files.extend(listed(&paths.pending()));
    let mut scrubbed = 0;
    for path in files {
        scrubbed += usize::from(scrub(&path, names)?);
    }
    // Temp files in the data dir are, under the lock, copies of the store or the archive that a
    // killed rewrite left; elsewhere only those of writers that are gone.
    for dir in paths.atomic_dirs() {
        for name in fsutil::stale_temps(&dir) {
            let path = dir.join(name);
            let named = fsutil::read_regular(&path)
                .ok()
                .flatten()
                .is_some_and(|b| b.split(|&c| c == b'\n').any(|l| names.name(l)));
            if named && fs::remove_file(&path).is_ok() {
                scrubbed += 1;
            }
        }
    }
    Ok(scrubbed)
}

/// Drop the lines of `path` that name what is forgotten; a file left empty goes. Returns whether it
/// changed. Backups may be hard links to older stores: the name is replaced, never edited in place.
fn scrub(path: &Path, names: &Names) -> Result<bool> {
    let Ok(Some(old)) = fsutil::read_regular(path) else {
        return Ok(false);
    };
    let new: Vec<u8> = old
        .split_inclusive(|&b| b == b'\n')
        .filter(|line| !names.name(line))
        .flatten()
        .copied()
        .collect();
    if new.len() == old.len() {
        return Ok(false);
    }
    if new.is_empty() {
        fs::remove_file(path)
            .map_err(|e| reflect_base::error::Error::io("cannot remove", path, e))?;
    } else {
        fsutil::atomic_write(path, &new, PRIVATE_FILE)?;
    }
    Ok(true)
}

/// The cursors: a forgotten session's, and those of a forgotten project's sessions (by their
/// `project`, or for a cursor that does not record it, by naming the project), go (their place
/// kept, see [`cursor::forget`]); those of `sessions` (whose signals were forgotten by id) lose
/// their tally. Returns the names of the cursors forgotten ([`stem_of`]) and how many were scrubbed.
fn forget_cursors(
    paths: &Paths,
    selector: &Selector,
    names: &Names,
    sessions: &HashSet<String>,
) -> Result<(HashSet<String>, usize)> {
    let mut forgotten = HashSet::new();
    if let Some(session) = &selector.session {
        let path = cursor::path(paths, session);
        if cursor::forget(&path)? {
            forgotten.insert(stem_of(&path));
        }
    }
    if let Some(dir) = &selector.project {
        let entries = fs::read_dir(paths.cursors())
            .into_iter()
            .flatten()
            .flatten();
        for path in entries.map(|e| e.path()) {
            let name = path.file_name().unwrap_or_default().to_string_lossy();
            if name.starts_with('.') || name.starts_with("forgotten-") || !name.ends_with(".json") {
                continue;
            }
            let of_project = match cursor::load(&path) {
                Ok(Some(c)) => match &c.project {
                    Some(p) => within(Path::new(p), dir),
                    None => names.name(&serde_json::to_vec(&c).expect("serializes")),
                },
                _ => false,
            };
            if of_project && cursor::forget(&path)? {
                forgotten.insert(stem_of(&path));
            }
        }
    }
    let mut scrubbed = 0;
    for session in sessions {
        if selector.session.as_ref() != Some(session) {
            scrubbed += usize::from(scrub_cursor(paths, session)?);
        }
    }
    Ok((forgotten, scrubbed))
}

/// The name of a cursor file less `.json`: [`cursor::file_stem`] of its session.
fn stem_of(cursor: &Path) -> String {
    cursor
        .file_stem()
        .unwrap_or_default()
        .to_string_lossy()
        .into_owned()
}

/// Drop what a session's cursor remembers of it (file paths, tool counts, its prompts' hashes)
/// but keep its position:
/// deleting the cursor would make the next hook of a session still running mine it all again.
fn scrub_cursor(paths: &Paths, session: &str) -> Result<bool> {
    let path = cursor::path(paths, session);
    if !path.exists() {
        return Ok(false);
    }
    cursor::with_session_lock(paths, session, fsutil::LockWait::CLI, || {
        let Some(saved) = cursor::load(&path)? else {
            return Ok(false);
        };
        let scrubbed = cursor::Cursor {
            tally: Default::default(),
            turn_line: None,
            prompts: Default::default(),
            ..saved
        };
        cursor::save(&path, &scrubbed)?;
        Ok(true)
    })
}

/// Remove every file in the subdirectories of the data dir `dir` named after a forgotten session:
/// its name, less a leading dot, is `stem` up to the first dot (`<stem>.json`, `<stem>.lock`, a
/// read-mark `<stem>.…`). Lock files go only when no process holds them. The data dir's own files,
/// the installed binaries, the backups and the learnings are not looked at (their names are
/// reflect's, whatever a session is called).
fn remove_named_after(dir: &Path, stem: &str, depth: usize) {
    let Ok(entries) = fs::read_dir(dir) else {
        return;
    };
    for entry in entries.flatten() {
        let path = entry.path();
        let name = entry.file_name().to_string_lossy().into_owned();
        let Ok(kind) = entry.file_type() else {
            continue;
        };
        if kind.is_dir() {
            let ours =
                depth == 0 && matches!(name.as_str(), "bin" | "build" | "backups" | "learnings");
            let hidden = name.starts_with('.');
            if !ours && !hidden && depth < 3 {
                remove_named_after(&path, stem, depth + 1);
            }
            continue;
        }
        if depth == 0 {
            continue;
        }
        let bare = name.strip_prefix('.').unwrap_or(&name);
        if bare.split('.').next() != Some(stem) {
            continue;
        }
        if name.ends_with(".lock") {
            fsutil::remove_lock_file(&path, || true);
        } else {
            let _ = fs::remove_file(&path);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_line_names_a_session_project_or_id_only_as_a_whole_token() {
        let mut names = Names::new(&Selector {
            session: Some("s-1".into()),
            project: Some(PathBuf::from("/home/u/proj")),
            ..Selector::default()
        });
        names.add_ids(["SIG-20261124-0000000001", "custom:id"]);
        for line in [
            r#"{"session_id":"s-1"}"#,
            "cannot read /d/cursors/s-1.json",
            r#"{"project":"/home/u/proj"}"#,
            r#"{"context":"cd /home/u/proj/src && make"}"#,
            r#"{"recur":"SIG-20261124-0000000001"}"#,
            "torn {\"id\":\"custom:id",
        ] {
            assert!(names.name(line.as_bytes()), "{line}");
        }
        for line in [
            r#"{"session_id":"s-10"}"#,
            r#"{"session_id":"as-1"}"#,
            r#"{"project":"/home/u/project"}"#,
            r#"{"project":"/x/home/u/proj"}"#,
            r#"{"project":"/home/u/proj.bak"}"#,
            r#"{"recur":"SIG-20261124-00000000012"}"#,
            "custom:identity",
        ] {
            assert!(!names.name(line.as_bytes()), "{line}");
        }
        // A session id JSON escapes is found in its escaped form too.
        let names = Names::new(&Selector {
            session: Some("a\"b".into()),
            ..Selector::default()
        });
        assert!(names.name(br#"{"session_id":"a\"b"}"#));
    }
}
