//! `forget`: a hard delete. The signals go from the store, the archive, the learnings index and
//! topic files, the quarantine of invalid lines, and from reflect's own backups of those files —
//! a user forgetting a signal that held something private must not find it in a copy.
//! Backups of the user's own files (CLAUDE.md…) are not touched: promoted text is theirs.

use std::fs;
use std::path::{Path, PathBuf};

use crate::error::Result;
use crate::fsutil::{self, PRIVATE_FILE};
use crate::promote::forget_learnings;

use crate::signal::Signal;
use crate::store::{within, Snapshot, Store};

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
    pub backups_scrubbed: usize,
    /// Whether a forgotten session's cursor (or a forgotten project's) lost what it kept of the
    /// session: its tally (the files it touched, its tools), its transcript and project, and
    /// /reflect's review mark.
    pub cursor_scrubbed: bool,
}

pub fn forget(store: &Store, selector: &Selector) -> Result<ForgetReport> {
    let mut report = ForgetReport::default();
    let removed = store.rewrite(&mut || {}, |snap| {
        let gone = snap.remove_where(|s| selector.matches(s));
        let changed = !gone.is_empty();
        Ok((gone, changed))
    })?;
    report.from_store = removed.len();
    report.ids.extend(removed.into_iter().map(|s| s.id));
    let archived = store.rewrite_archive(|snap| {
        let gone = snap.remove_where(|s| selector.matches(s));
        let changed = !gone.is_empty();
        Ok((gone, changed))
    })?;
    report.from_archive = archived.len();
    report.ids.extend(archived.into_iter().map(|s| s.id));
    report.ids.extend(selector.ids.iter().cloned());
    report.ids.sort();
    report.ids.dedup();
    report.learnings_files = forget_learnings(store.paths(), &report.ids)?;
    report.backups_scrubbed = scrub_backups(store, selector, &report.ids)?;
    let mut sessions = Vec::new();
    if let Some(session) = &selector.session {
        report.cursor_scrubbed = scrub_cursor(store.paths(), session, |_| true)?;
        sessions.push(session.clone());
    }
    if let Some(dir) = &selector.project {
        for session in cursor_names(store.paths()) {
            let of_project = |c: &crate::cursor::Cursor| {
                c.project
                    .as_deref()
                    .is_some_and(|p| within(Path::new(p), dir))
            };
            if scrub_cursor(store.paths(), &session, of_project)? {
                report.cursor_scrubbed = true;
                sessions.push(session);
            }
        }
    }
    // A digest's saved marks name the sessions it read.
    crate::digest::forget_saved_marks(store.paths(), &sessions);
    Ok(report)
}

/// The names of the cursor files (a session id, or the safe name made of one).
fn cursor_names(paths: &crate::paths::Paths) -> Vec<String> {
    let Ok(entries) = fs::read_dir(paths.cursors()) else {
        return Vec::new();
    };
    entries
        .flatten()
        .filter_map(|e| {
            let name = e.file_name();
            name.to_str()?.strip_suffix(".json").map(str::to_string)
        })
        .collect()
}

/// Drop what a session's cursor remembers of it (file paths, tool counts, where its transcript
/// is and whose it was, how far /reflect looked at it) when `which` says so, but keep its
/// position: deleting the cursor would make the next hook of a session still running mine it
/// all again. The digest no longer finds the session.
fn scrub_cursor(
    paths: &crate::paths::Paths,
    session: &str,
    which: impl Fn(&crate::cursor::Cursor) -> bool,
) -> Result<bool> {
    let path = crate::cursor::path(paths, session);
    if !path.exists() {
        return Ok(false);
    }
    crate::cursor::with_session_lock(paths, session, fsutil::LockWait::CLI, || {
        let Some(cursor) = crate::cursor::load(&path)? else {
            return Ok(false);
        };
        if !which(&cursor) {
            return Ok(false);
        }
        let scrubbed = crate::cursor::Cursor {
            tally: Default::default(),
            turn_line: None,
            transcript: None,
            project: None,
            reviewed: None,
            ..cursor
        };
        crate::cursor::save(&path, &scrubbed)?;
        Ok(true)
    })
}

/// Rewrite reflect's own backups (and the quarantine) without the forgotten signals.
fn scrub_backups(store: &Store, selector: &Selector, ids: &[String]) -> Result<usize> {
    let paths = store.paths();
    let store_stems = [
        fsutil::backup_stem(&paths.store()),
        fsutil::backup_stem(&paths.archive()),
    ];
    let learnings_stem = fsutil::backup_stem(&paths.learnings_dir());
    let mut files: Vec<PathBuf> = match fs::read_dir(paths.backups()) {
        Ok(entries) => entries.flatten().map(|e| e.path()).collect(),
        Err(_) => Vec::new(),
    };
    files.push(crate::store::invalid_lines_path(paths));
    let mut scrubbed = 0;
    for path in files {
        let name = path
            .file_name()
            .map(|n| n.to_string_lossy().into_owned())
            .unwrap_or_default();
        let is_store_copy = store_stems
            .iter()
            .any(|stem| name.starts_with(&format!("{stem}.")));
        let is_ours =
            is_store_copy || name.starts_with(&learnings_stem) || name == "signals.invalid.jsonl";
        if !is_ours {
            continue;
        }
        let Ok(old) = fs::read(&path) else { continue };
        let new: Vec<u8> = old
            .split_inclusive(|&b| b == b'\n')
            .filter(|line| {
                let text = String::from_utf8_lossy(line);
                let by_id = ids.iter().any(|id| text.contains(id.as_str()));
                let by_selector =
                    is_store_copy && Snapshot::parse(line).signals().any(|s| selector.matches(s));
                !(by_id || by_selector)
            })
            .flatten()
            .copied()
            .collect();
        if new != old {
            // Backups may be hard links to older stores: replace the name, never edit in place.
            fsutil::atomic_write(&path, &new, PRIVATE_FILE)?;
            scrubbed += 1;
        }
    }
    Ok(scrubbed)
}
