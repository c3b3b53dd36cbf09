//! Where reflect reads and writes, resolved from the environment only (no config file).
//!
//! | what            | resolution                                              |
//! |-----------------|---------------------------------------------------------|
//! | config dir      | `$CLAUDE_CONFIG_DIR`, else `<home>/.claude`             |
//! | settings file   | `<config dir>/settings.json` (CLIs may override)        |
//! | data dir        | `$REFLECT_HOME`, else `<config dir>/reflections`        |
//!
//! `<home>` is `$HOME`; on Windows `%USERPROFILE%`, else `$HOME`, as Claude Code finds its own
//! config dir there (Node's `os.homedir()`). Empty variables count as unset, so `REFLECT_HOME= cmd`
//! behaves like an unset variable.

use std::env;
use std::path::{Path, PathBuf};

use crate::error::{Error, Result};

/// The file name of binary `name` on this platform (`capture-signals.exe` on Windows).
pub fn binary_file(name: &str) -> String {
    format!("{name}{}", std::env::consts::EXE_SUFFIX)
}

/// The variables naming the user's home, first set wins.
const HOME_VARS: &[&str] = if cfg!(windows) {
    &["USERPROFILE", "HOME"]
} else {
    &["HOME"]
};

/// The resolved locations of everything reflect touches.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Paths {
    pub config_dir: PathBuf,
    pub data_dir: PathBuf,
}

fn var(name: &str) -> Option<PathBuf> {
    env::var_os(name)
        .filter(|v| !v.is_empty())
        .map(PathBuf::from)
}

/// The user's home: `$HOME`; on Windows `%USERPROFILE%`, else `$HOME`.
pub fn home() -> Option<PathBuf> {
    HOME_VARS.iter().find_map(|v| var(v))
}

impl Paths {
    /// Resolve from `CLAUDE_CONFIG_DIR`, `HOME` and `REFLECT_HOME`.
    pub fn from_env() -> Result<Paths> {
        let config_dir = match var("CLAUDE_CONFIG_DIR") {
            Some(dir) => dir,
            None => match home() {
                Some(home) => home.join(".claude"),
                None => return Err(Error::msg("neither CLAUDE_CONFIG_DIR nor HOME is set")),
            },
        };
        let data_dir = var("REFLECT_HOME").unwrap_or_else(|| config_dir.join("reflections"));
        Ok(Paths {
            config_dir,
            data_dir,
        })
    }

    /// Paths rooted at explicit directories (tests, `--settings`-style overrides).
    pub fn new(config_dir: impl Into<PathBuf>, data_dir: impl Into<PathBuf>) -> Paths {
        Paths {
            config_dir: config_dir.into(),
            data_dir: data_dir.into(),
        }
    }

    pub fn settings(&self) -> PathBuf {
        self.config_dir.join("settings.json")
    }
    /// The user's global CLAUDE.md (v1 installs left a `## Self-Improvement` section here).
    pub fn global_claude_md(&self) -> PathBuf {
        self.config_dir.join("CLAUDE.md")
    }
    pub fn store(&self) -> PathBuf {
        self.data_dir.join("signals.jsonl")
    }
    pub fn archive(&self) -> PathBuf {
        self.data_dir.join("signals.archive.jsonl")
    }
    pub fn lock(&self) -> PathBuf {
        self.data_dir.join("signals.lock")
    }
    pub fn learnings_dir(&self) -> PathBuf {
        self.data_dir.join("learnings")
    }
    pub fn learnings_index(&self) -> PathBuf {
        self.learnings_dir().join("LEARNINGS.md")
    }
    pub fn backups(&self) -> PathBuf {
        self.data_dir.join("backups")
    }
    pub fn bin_dir(&self) -> PathBuf {
        self.data_dir.join("bin")
    }
    pub fn error_log(&self) -> PathBuf {
        self.data_dir.join("errors.log")
    }
    pub fn cursors(&self) -> PathBuf {
        self.data_dir.join("cursors")
    }
    /// Signals a hook spooled because the store lock stayed busy (see `reflect_store::store`).
    pub fn pending(&self) -> PathBuf {
        self.data_dir.join("pending")
    }
    /// The directories reflect writes files into atomically (a temp file, then a rename): where a
    /// killed writer can leave a temp file behind.
    pub fn atomic_dirs(&self) -> [PathBuf; 5] {
        [
            self.data_dir.clone(),
            self.pending(),
            self.cursors(),
            self.learnings_dir(),
            self.backups(),
        ]
    }
}

/// The per-project opt-out marker: a project holding `.claude/reflect.off` is never captured.
pub(crate) fn opt_out_marker(project: &Path) -> PathBuf {
    project.join(".claude").join("reflect.off")
}

/// Directories looked at, from the cwd up, for the opt-out marker: a repository root is rarely
/// more than a few levels up, and the bound keeps a pathological cwd cheap.
const OPT_OUT_LEVELS: usize = 64;

/// The marker that switches capture off for a session in `cwd`, if any. The opt-out covers a
/// repository from its root down: the marker is looked for in `cwd` and each directory above it
/// up to the repository root (the first one holding `.git`, a directory or a worktree's file),
/// or up to `/` outside a repository. Two `stat`s a level, so every hook can afford it.
///
/// A cwd reached through a symlink into an opted-out repository is opted out too: the walk is
/// made on the path as given, then once more on its canonical form when that differs. A marker
/// that is a symlink counts even when it dangles: the user put it there.
pub fn opt_out_marker_for(cwd: &Path) -> Option<PathBuf> {
    if let Some(marker) = marker_above(cwd) {
        return Some(marker);
    }
    let real = cwd.canonicalize().ok().filter(|real| real != cwd)?;
    marker_above(&real)
}

/// [`opt_out_marker_for`] along one spelling of the cwd.
fn marker_above(cwd: &Path) -> Option<PathBuf> {
    for dir in cwd.ancestors().take(OPT_OUT_LEVELS) {
        let marker = opt_out_marker(dir);
        if std::fs::symlink_metadata(&marker).is_ok() {
            return Some(marker);
        }
        if dir.join(".git").exists() {
            return None;
        }
    }
    None
}

/// Whether capture is switched off for a session in `cwd` (checked by every hook before any work).
pub fn project_opted_out(cwd: &Path) -> bool {
    opt_out_marker_for(cwd).is_some()
}

/// The token budget of `inject-signals`: `REFLECT_INJECT_BUDGET_TOKENS`, default 2000.
pub fn inject_budget_tokens() -> usize {
    env::var("REFLECT_INJECT_BUDGET_TOKENS")
        .ok()
        .and_then(|v| v.trim().parse().ok())
        .unwrap_or(2000)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn layout_under_data_dir() {
        let p = Paths::new("/c", "/d");
        assert_eq!(p.settings(), PathBuf::from("/c/settings.json"));
        assert_eq!(p.store(), PathBuf::from("/d/signals.jsonl"));
        assert_eq!(p.archive(), PathBuf::from("/d/signals.archive.jsonl"));
        assert_eq!(p.lock(), PathBuf::from("/d/signals.lock"));
        assert_eq!(
            p.learnings_index(),
            PathBuf::from("/d/learnings/LEARNINGS.md")
        );
        assert_eq!(p.error_log(), PathBuf::from("/d/errors.log"));
    }

    #[test]
    fn opt_out_covers_the_repository_from_its_root_down() {
        let dir = tempfile::tempdir().unwrap();
        let outer = dir.path().join("outer");
        let repo = outer.join("repo");
        let deep = repo.join("src/a/b");
        std::fs::create_dir_all(&deep).unwrap();
        std::fs::create_dir_all(repo.join(".git")).unwrap();
        assert!(!project_opted_out(&deep));
        // A marker above the repository's root is another project's.
        std::fs::create_dir_all(outer.join(".claude")).unwrap();
        std::fs::write(opt_out_marker(&outer), "").unwrap();
        assert!(!project_opted_out(&deep));
        std::fs::create_dir_all(repo.join(".claude")).unwrap();
        std::fs::write(opt_out_marker(&repo), "").unwrap();
        for cwd in [&repo, &repo.join("src"), &deep] {
            assert_eq!(opt_out_marker_for(cwd), Some(opt_out_marker(&repo)));
        }
        // A worktree or submodule marks its root with a `.git` file.
        let sub = repo.join("vendor/lib");
        std::fs::create_dir_all(&sub).unwrap();
        std::fs::write(sub.join(".git"), "gitdir: ../../.git/modules/lib").unwrap();
        assert!(!project_opted_out(&sub));
        // Outside a repository, every directory up to `/` counts.
        assert!(project_opted_out(&outer.join("plain/dir")));
    }

    /// The opt-out was bypassed by a cwd reached through a symlink into the opted-out repository,
    /// and a dangling `reflect.off` symlink was taken as no marker.
    #[test]
    // Unix only: Wine 8 cannot stat the symlinks it makes.
    #[cfg(unix)]
    fn regression_a_symlinked_cwd_and_a_dangling_marker_are_opted_out() {
        let dir = tempfile::tempdir().unwrap();
        let repo = dir.path().join("repo");
        std::fs::create_dir_all(repo.join("src/deep")).unwrap();
        std::fs::create_dir_all(repo.join(".git")).unwrap();
        std::fs::create_dir_all(repo.join(".claude")).unwrap();
        std::fs::write(opt_out_marker(&repo), "").unwrap();
        let link = dir.path().join("shortcut");
        std::os::unix::fs::symlink(repo.join("src"), &link).unwrap();
        assert!(project_opted_out(&link));
        assert!(project_opted_out(&link.join("deep")));

        let other = dir.path().join("other");
        std::fs::create_dir_all(other.join(".git")).unwrap();
        std::fs::create_dir_all(other.join(".claude")).unwrap();
        assert!(!project_opted_out(&other));
        std::os::unix::fs::symlink("/nonexistent/reflect.off", opt_out_marker(&other)).unwrap();
        assert!(project_opted_out(&other));
    }
}
