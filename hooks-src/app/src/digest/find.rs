//! Finding the sessions a digest reads: those capture recorded (by their cursors), the current
//! one, the project's sessions capture never saw ([`super::history`]), or given transcripts.

use std::collections::{HashMap, HashSet};
use std::fs;
use std::io;
use std::path::{Path, PathBuf};

use crate::cursor::{self, Cursor};
use reflect_base::error::{Error, Result};
use reflect_base::fsutil;
use reflect_base::paths::{self, Paths};
use reflect_store::store::Store;
use reflect_transcript::{self as transcript, EventKind, Position};

use super::data::{Candidate, Request};
use super::history;

pub(super) fn candidates(paths: &Paths, req: &Request) -> Result<Vec<Candidate>> {
    if !req.transcripts.is_empty() {
        return Ok(req
            .transcripts
            .iter()
            .map(|t| {
                let session = t
                    .file_stem()
                    .map(|s| s.to_string_lossy().into_owned())
                    .unwrap_or_default();
                let cursor = load_cursor(paths, &session).unwrap_or_default();
                Candidate {
                    session,
                    transcript: Some(t.clone()),
                    project: cursor.project,
                    reviewed: cursor.reviewed,
                    live: false,
                    history: false,
                }
            })
            .collect());
    }
    let mut out: Vec<Candidate> = Vec::new();
    let entries = match fs::read_dir(paths.cursors()) {
        Ok(entries) => entries.flatten().collect(),
        Err(e) if e.kind() == io::ErrorKind::NotFound => Vec::new(),
        Err(e) => return Err(Error::io("cannot read", &paths.cursors(), e)),
    };
    for entry in entries {
        let name = entry.file_name();
        let Some(stem) = name.to_str().and_then(|n| n.strip_suffix(".json")) else {
            continue;
        };
        // A cursor that cannot be read is capture's business (it logs and starts over).
        let Ok(Some(cursor)) = cursor::load(&entry.path()) else {
            continue;
        };
        let Some(transcript) = cursor.transcript.clone() else {
            continue;
        };
        let Some(session) = session_of(stem, &transcript) else {
            continue;
        };
        let wanted = match (&req.session, &req.scope) {
            (Some(only), _) => *only == session,
            (None, None) => true,
            (None, Some(scope)) => {
                cursor.project.as_deref().is_some_and(|p| scope.holds(p))
                    || req.current.as_deref() == Some(session.as_str())
            }
        };
        if wanted {
            out.push(Candidate {
                live: req.current.as_deref() == Some(session.as_str()),
                session,
                transcript: Some(transcript),
                project: cursor.project,
                reviewed: cursor.reviewed,
                history: false,
            });
        }
    }
    // The session asked for, or the one /reflect runs in, when capture has not recorded it yet.
    let extra = req.session.as_ref().or(req.current.as_ref());
    if let Some(session) = extra.filter(|s| !out.iter().any(|c| &c.session == *s)) {
        let cursor = load_cursor(paths, session).unwrap_or_default();
        out.push(Candidate {
            session: session.clone(),
            transcript: cursor
                .transcript
                .or_else(|| find_transcript(paths, session, &req.cwd)),
            project: cursor
                .project
                .or_else(|| Some(req.cwd.display().to_string())),
            reviewed: cursor.reviewed,
            live: req.current.as_ref() == Some(session),
            history: false,
        });
    }
    // Day one: the project's sessions capture never recorded, from Claude Code's transcripts.
    if let (Some(scope), None) = (&req.scope, &req.session) {
        let known: HashSet<String> = out.iter().map(|c| c.session.clone()).collect();
        for found in history::sessions(paths, scope, &known) {
            let cursor = load_cursor(paths, &found.session).unwrap_or_default();
            out.push(Candidate {
                session: found.session,
                transcript: Some(found.transcript),
                project: Some(found.project),
                reviewed: cursor.reviewed,
                live: false,
                history: true,
            });
        }
    }
    // Sorted for a stable order among sessions last active at the same time.
    out.sort_by(|a, b| a.session.cmp(&b.session));
    out.retain(|c| {
        c.project
            .as_deref()
            .is_none_or(|p| !paths::project_opted_out(Path::new(p)))
    });
    Ok(out)
}

pub(super) fn load_cursor(paths: &Paths, session: &str) -> Option<Cursor> {
    cursor::load(&cursor::path(paths, session)).ok().flatten()
}

/// The session a cursor file belongs to: its name, when the session id is a plain token (Claude
/// Code's are uuids); else the transcript's name, when it maps to this cursor file.
fn session_of(stem: &str, transcript: &Path) -> Option<String> {
    if cursor::file_stem(stem) == stem {
        return Some(stem.to_string());
    }
    let named = transcript.file_stem()?.to_str()?;
    (cursor::file_stem(named) == stem).then(|| named.to_string())
}

/// The transcript of `session` under `<config dir>/projects/`: in the folder of `cwd` first
/// ([`history::slug`]), else in any.
pub(crate) fn find_transcript(paths: &Paths, session: &str, cwd: &Path) -> Option<PathBuf> {
    if cursor::file_stem(session) != session {
        return None;
    }
    let projects = paths.config_dir.join("projects");
    let file = format!("{session}.jsonl");
    let first = projects.join(history::slug(cwd)).join(&file);
    if first.is_file() {
        return Some(first);
    }
    fs::read_dir(&projects)
        .ok()?
        .flatten()
        .map(|e| e.path().join(&file))
        .find(|p| p.is_file())
}

/// The transcript of `session`: the one capture recorded (its cursor), else Claude Code's
/// ([`find_transcript`], in `cwd`'s folder first).
pub(crate) fn transcript_of(paths: &Paths, session: &str, cwd: &Path) -> Option<PathBuf> {
    load_cursor(paths, session)
        .and_then(|c| c.transcript)
        .or_else(|| find_transcript(paths, session, cwd))
}

/// Whether `session` is one the store or Claude Code's transcripts know (what evidence given to
/// `append` must name): capture recorded it (its cursor), Claude Code keeps its transcript
/// (looked for as [`find_transcript`] does, in `dir`'s folder first), or a signal or sighting in
/// the store or the archive names it.
pub fn session_known(store: &Store, session: &str, dir: &Path) -> Result<bool> {
    let paths = store.paths();
    if session.is_empty() {
        return Ok(false);
    }
    if cursor::path(paths, session).is_file() || find_transcript(paths, session, dir).is_some() {
        return Ok(true);
    }
    let mut named = false;
    reflect_store::store::sightings_of(paths, &HashSet::from([session]), |_, _, _| named = true)?;
    Ok(named)
}

/// For each of `lines` of `session`'s transcript, the line of the user message that opened
/// its turn, when that is another line (a failed or refused call's result): the place capture
/// gives what it stores there (`source.prompt_line`), so evidence the second look appends at a
/// call is one incident with what capture stored of that turn. Empty when the transcript
/// cannot be found or read.
pub fn turn_prompts(store: &Store, session: &str, lines: &[u64], dir: &Path) -> HashMap<u64, u64> {
    let paths = store.paths();
    let mut found = HashMap::new();
    let Some(last) = lines.iter().max().copied() else {
        return found;
    };
    let transcript = transcript_of(paths, session, dir);
    let Some(mut file) = transcript.and_then(|t| fsutil::open_regular(&t).ok().flatten()) else {
        return found;
    };
    // As capture reads it: every user message opens a turn.
    let mut prompt = None;
    let _ = transcript::read(&mut file, Position::default(), |event| {
        if event.line > last {
            return;
        }
        if let EventKind::UserText { .. } = event.kind {
            prompt = Some(event.line);
        }
        if let Some(p) = prompt.filter(|&p| p != event.line && lines.contains(&event.line)) {
            found.insert(event.line, p);
        }
    });
    found
}
