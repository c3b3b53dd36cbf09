//! Day one: the sessions of a project that capture never recorded (it was off, or just turned
//! on), found in Claude Code's own transcripts, so the first `/reflect` has something to review.
//!
//! Claude Code keeps a session's transcript at `<config dir>/projects/<slug>/<session>.jsonl`,
//! the slug being the session's cwd with every character but ASCII letters and digits replaced
//! by `-`, for `cleanupPeriodDays` (30 by default). A project's sessions are in the folder of its
//! root's slug, and those started in a subdirectory in folders whose name goes on from it
//! (`-home-me-app-src`). Such a folder may also be another project's (`-home-me-app-2`): a
//! session there counts only when the cwd its transcript records lies in the project
//! ([`Scope::holds`]); the root's own folder is taken as the project's. Only the newest
//! [`HISTORY_MAX`] files (by modification time) are read, and only read; a session whose cwd
//! opted out (`reflect.off`) is left alone like any other. A sub-agent's file is no session.

use std::collections::HashSet;
use std::fs;
use std::io::Read as _;
use std::path::{Path, PathBuf};
use std::time::SystemTime;

use crate::cursor;
use crate::scope::Scope;
use reflect_base::paths::Paths;

/// Most sessions read from before capture was on: the newest, enough for a first review whose
/// budget lists a few dozen prompts, and what keeps a heavy user's month within the digest's
/// time (each session costs a full read).
pub const HISTORY_MAX: usize = 60;

/// Claude Code 2.0 to 2.1.1 kept each sub-agent's run beside the session that started it, as
/// `agent-<id>.jsonl`: no session of the user's, and as many as the session's Task calls, so
/// they would crowd the newest sessions out of [`HISTORY_MAX`].
const SUB_AGENT_PREFIX: &str = "agent-";

/// Bytes of a transcript's start searched for the cwd it records.
const CWD_BYTES: usize = 64 << 10;
/// The longest slug Claude Code writes whole; longer ones are cut and hashed.
const SLUG_MAX: usize = 200;

/// A session of the project found in Claude Code's transcripts.
#[derive(Debug, Clone)]
pub struct Found {
    pub session: String,
    pub transcript: PathBuf,
    /// The cwd the transcript records (the root for the root's own folder, when it records none).
    pub project: String,
}

/// Claude Code's name for the folder of `dir`'s transcripts.
pub fn slug(dir: &Path) -> String {
    dir.to_string_lossy()
        .chars()
        .map(|c| if c.is_ascii_alphanumeric() { c } else { '-' })
        .collect()
}

/// The sessions of `scope`'s project under `<config dir>/projects/` that are not in `known`,
/// newest first, at most [`HISTORY_MAX`].
pub fn sessions(paths: &Paths, scope: &Scope, known: &HashSet<String>) -> Vec<Found> {
    let root_slug = slug(scope.root());
    if root_slug.len() > SLUG_MAX {
        return Vec::new();
    }
    let projects = paths.config_dir.join("projects");
    let Ok(folders) = fs::read_dir(&projects) else {
        return Vec::new();
    };
    let mut files: Vec<(SystemTime, String, PathBuf, bool)> = Vec::new();
    for folder in folders.flatten() {
        let name = folder.file_name();
        let Some(name) = name.to_str() else { continue };
        let own = name == root_slug;
        let below = name
            .strip_prefix(root_slug.as_str())
            .is_some_and(|rest| rest.starts_with('-'));
        if !(own || below) {
            continue;
        }
        let Ok(entries) = fs::read_dir(folder.path()) else {
            continue;
        };
        for e in entries.flatten() {
            let file_name = e.file_name();
            let Some(session) = file_name.to_str().and_then(|n| n.strip_suffix(".jsonl")) else {
                continue;
            };
            if cursor::file_stem(session) != session
                || known.contains(session)
                || session.starts_with(SUB_AGENT_PREFIX)
            {
                continue;
            }
            let Ok(meta) = e.metadata() else { continue };
            if !meta.is_file() {
                continue;
            }
            let modified = meta.modified().unwrap_or(SystemTime::UNIX_EPOCH);
            files.push((modified, session.to_string(), e.path(), own));
        }
    }
    // Newest first; among equals by name, for a stable order.
    files.sort_by(|a, b| b.0.cmp(&a.0).then(a.1.cmp(&b.1)));
    let mut seen: HashSet<String> = HashSet::new();
    let mut out = Vec::new();
    for (_, session, transcript, own) in files {
        if out.len() == HISTORY_MAX {
            break;
        }
        if seen.contains(&session) {
            // The same session in two folders: the newest file stands for it.
            continue;
        }
        // The root's own folder is the project's; a folder named on from it may be another's.
        let project = if own {
            scope.root().display().to_string()
        } else {
            match recorded_cwd(&transcript) {
                Some(cwd) if scope.holds(&cwd) => cwd,
                _ => continue,
            }
        };
        seen.insert(session.clone());
        out.push(Found {
            session,
            transcript,
            project,
        });
    }
    out
}

/// The first `"cwd"` a transcript records, from its first lines.
fn recorded_cwd(path: &Path) -> Option<String> {
    let file = fs::File::open(path).ok()?;
    let mut head = Vec::with_capacity(CWD_BYTES);
    file.take(CWD_BYTES as u64).read_to_end(&mut head).ok()?;
    let at = memchr::memmem::find(&head, b"\"cwd\":\"")? + 7;
    // The value as a JSON string: up to its closing quote, escapes read by serde.
    let mut end = at;
    while end < head.len() {
        match head[end] {
            b'\\' => end += 2,
            b'"' => break,
            _ => end += 1,
        }
    }
    let quoted = head.get(at - 1..=end)?;
    serde_json::from_slice::<String>(quoted).ok()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn slugs_are_claude_codes() {
        assert_eq!(slug(Path::new("/home/me/my_app")), "-home-me-my-app");
        assert_eq!(slug(Path::new("/tmp/a b/c.v2")), "-tmp-a-b-c-v2");
    }

    #[test]
    fn the_projects_folders_are_read_and_another_projects_left_out() {
        let dir = tempfile::tempdir().unwrap();
        let paths = Paths::new(dir.path().join("config"), dir.path().join("data"));
        let root = dir.path().join("app");
        fs::create_dir_all(root.join(".git")).unwrap();
        let scope = Scope::of(&root);
        let projects = paths.config_dir.join("projects");
        let write = |folder: &str, session: &str, cwd: Option<&Path>| {
            let d = projects.join(folder);
            fs::create_dir_all(&d).unwrap();
            let line = match cwd {
                Some(c) => format!(
                    "{{\"type\":\"user\",\"cwd\":{:?}}}\n",
                    c.display().to_string()
                ),
                None => "{\"type\":\"user\"}\n".to_string(),
            };
            fs::write(d.join(format!("{session}.jsonl")), line).unwrap();
        };
        let own = slug(&root);
        write(&own, "s-root", Some(&root));
        write(&own, "s-bare", None);
        write(&format!("{own}-src"), "s-sub", Some(&root.join("src")));
        write(
            &format!("{own}-2"),
            "s-other",
            Some(&dir.path().join("app-2")),
        );
        write(&format!("{own}-x"), "s-nocwd", None);
        write(&own, "s-known", Some(&root));
        write("elsewhere", "s-far", Some(&root));
        let known: HashSet<String> = ["s-known".to_string()].into();
        let mut found: Vec<String> = sessions(&paths, &scope, &known)
            .into_iter()
            .map(|f| f.session)
            .collect();
        found.sort();
        assert_eq!(found, ["s-bare", "s-root", "s-sub"]);
    }

    #[test]
    fn only_the_newest_are_read() {
        let dir = tempfile::tempdir().unwrap();
        let paths = Paths::new(dir.path().join("config"), dir.path().join("data"));
        let root = dir.path().join("app");
        fs::create_dir_all(root.join(".git")).unwrap();
        let folder = paths.config_dir.join("projects").join(slug(&root));
        fs::create_dir_all(&folder).unwrap();
        let now = SystemTime::now();
        for i in 0..HISTORY_MAX + 3 {
            let file = folder.join(format!("s{i:03}.jsonl"));
            fs::write(&file, "{}\n").unwrap();
            let age = std::time::Duration::from_secs(60 * i as u64);
            fs::File::options()
                .write(true)
                .open(&file)
                .unwrap()
                .set_modified(now - age)
                .unwrap();
        }
        let found = sessions(&paths, &Scope::of(&root), &HashSet::new());
        assert_eq!(found.len(), HISTORY_MAX);
        assert_eq!(found[0].session, "s000");
        assert_eq!(
            found[HISTORY_MAX - 1].session,
            format!("s{:03}", HISTORY_MAX - 1)
        );
    }
}
