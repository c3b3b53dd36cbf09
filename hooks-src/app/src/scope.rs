//! Which project a signal or a session belongs to, for `/reflect`'s default view: this project's
//! signals and sessions, and the personal preferences that hold everywhere.
//!
//! **The project** of a directory is its repository: the nearest directory at or above it that
//! holds a `.git` (a directory, or the file a worktree or submodule has), else the directory
//! itself. So a session started in `app/src` belongs to `app`, as Claude Code's auto memory does.
//!
//! **Belonging.** A signal records the cwd of its session (`project`). It belongs to a project root
//! when that cwd is the root or lies below it, and no directory between the two holds a `.git` of
//! its own: a nested repository or a submodule is a project of its own, with its own CLAUDE.md, so
//! its conventions are not proposed for the repository around it (run `/reflect` inside it for
//! those). The test reads the file system as it is now; a directory deleted since holds no `.git`,
//! so its signals stay with the repository around it.
//!
//! **Global by nature.** A preference (how the user likes to work: short answers, no emojis) holds
//! in every project, wherever it was said; `--with-global` brings those in from other projects.

use std::cell::RefCell;
use std::collections::HashMap;
use std::path::{Path, PathBuf};

use reflect_store::signal::{Kind, Signal};

/// The kinds that hold in every project, wherever they were said.
pub fn is_global_kind(kind: &Kind) -> bool {
    *kind == Kind::Preference
}

/// Whether `dir` holds a repository of its own (`.git`, a directory or a file).
fn holds_repository(dir: &Path) -> bool {
    dir.join(".git").symlink_metadata().is_ok()
}

/// The repository root of `dir`: the nearest directory at or above it holding a `.git`, else
/// `dir` itself.
pub(crate) fn repo_root(dir: &Path) -> PathBuf {
    dir.ancestors()
        .find(|d| holds_repository(d))
        .unwrap_or(dir)
        .to_path_buf()
}

/// A project to scope a view to, with what it learned about the directories it was asked about.
#[derive(Debug)]
pub struct Scope {
    root: PathBuf,
    /// Per recorded cwd: whether it belongs to `root`.
    belongs: RefCell<HashMap<String, bool>>,
}

impl Scope {
    /// The project of `dir` (an absolute directory, as [`reflect_store::input::project`] gives it).
    pub fn of(dir: &Path) -> Scope {
        Scope::at_root(repo_root(dir))
    }

    /// The project whose root is `root` (no lookup).
    pub(crate) fn at_root(root: PathBuf) -> Scope {
        Scope {
            root,
            belongs: RefCell::default(),
        }
    }

    pub fn root(&self) -> &Path {
        &self.root
    }

    /// Whether a session whose cwd was `project` belongs to this project (see the module docs).
    pub fn holds(&self, project: &str) -> bool {
        if let Some(&known) = self.belongs.borrow().get(project) {
            return known;
        }
        let path = Path::new(project);
        let verdict = path.starts_with(&self.root)
            && !path
                .ancestors()
                .take_while(|d| *d != self.root)
                .any(holds_repository);
        self.belongs
            .borrow_mut()
            .insert(project.to_string(), verdict);
        verdict
    }

    /// Whether signal `s` belongs to this project.
    pub fn holds_signal(&self, s: &Signal) -> bool {
        s.project.as_deref().is_some_and(|p| self.holds(p))
    }
}

/// The last component of `dir`, or the whole path when it has none (`/`).
fn short_dir_name(dir: &Path) -> String {
    dir.file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_else(|| dir.display().to_string())
}

/// Short names of the projects signals and sessions were recorded in: the directory name of each
/// one's repository (looked up once per recorded cwd).
#[derive(Debug, Default)]
pub struct Names(RefCell<HashMap<String, String>>);

impl Names {
    /// The short name of the project of cwd `project` (`-` when none was recorded).
    pub fn of(&self, project: Option<&str>) -> String {
        let Some(project) = project.filter(|p| !p.is_empty()) else {
            return "-".into();
        };
        if let Some(name) = self.0.borrow().get(project) {
            return name.clone();
        }
        let name = short_dir_name(&repo_root(Path::new(project)));
        self.0
            .borrow_mut()
            .insert(project.to_string(), name.clone());
        name
    }
}

/// The first 8 characters of a session id (a uuid's first group), `-` when there is none.
pub(crate) fn short_session(session: Option<&str>) -> &str {
    match session.filter(|s| !s.is_empty()) {
        Some(s) => s.char_indices().nth(8).map_or(s, |(at, _)| &s[..at]),
        None => "-",
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::fs;

    #[test]
    fn the_project_of_a_subdirectory_is_its_repository() {
        let dir = tempfile::tempdir().unwrap();
        let repo = dir.path().join("app");
        fs::create_dir_all(repo.join(".git")).unwrap();
        fs::create_dir_all(repo.join("src/deep")).unwrap();
        assert_eq!(repo_root(&repo.join("src/deep")), repo);
        assert_eq!(repo_root(&repo), repo);
        // Outside any repository: the directory itself.
        let plain = dir.path().join("notes");
        fs::create_dir_all(&plain).unwrap();
        assert_eq!(repo_root(&plain), plain);
        // A worktree or submodule has a .git file.
        let sub = repo.join("vendor/lib");
        fs::create_dir_all(&sub).unwrap();
        fs::write(sub.join(".git"), "gitdir: ../../.git/modules/lib\n").unwrap();
        assert_eq!(repo_root(&sub.join("x")), sub);
    }

    #[test]
    fn a_project_holds_its_subdirectories_but_not_nested_repositories() {
        let dir = tempfile::tempdir().unwrap();
        let repo = dir.path().join("app");
        fs::create_dir_all(repo.join(".git")).unwrap();
        fs::create_dir_all(repo.join("src")).unwrap();
        let sub = repo.join("vendor/lib");
        fs::create_dir_all(sub.join("src")).unwrap();
        fs::write(sub.join(".git"), "gitdir: x\n").unwrap();
        let scope = Scope::of(&repo.join("src"));
        assert_eq!(scope.root(), repo);
        assert_eq!(short_dir_name(scope.root()), "app");
        let s = |p: &Path| p.display().to_string();
        assert!(scope.holds(&s(&repo)));
        assert!(scope.holds(&s(&repo.join("src"))));
        assert!(
            scope.holds(&s(&repo.join("gone/since"))),
            "deleted dirs stay"
        );
        assert!(scope.holds(&s(&repo.join("vendor"))));
        assert!(!scope.holds(&s(&sub)), "a submodule is its own project");
        assert!(!scope.holds(&s(&sub.join("src"))));
        assert!(!scope.holds(&s(&dir.path().join("app2"))), "a sibling");
        assert!(!scope.holds(&s(dir.path())));
        // The submodule's own scope holds it.
        assert!(Scope::of(&sub).holds(&s(&sub.join("src"))));
    }

    #[test]
    fn short_names() {
        let dir = tempfile::tempdir().unwrap();
        let repo = dir.path().join("my-app");
        fs::create_dir_all(repo.join(".git")).unwrap();
        let names = Names::default();
        let sub = repo.join("src").display().to_string();
        assert_eq!(names.of(Some(&sub)), "my-app");
        assert_eq!(names.of(None), "-");
        assert_eq!(names.of(Some("")), "-");
        assert_eq!(
            short_session(Some("3f9394bc-a388-496a-b744-1667ef929002")),
            "3f9394bc"
        );
        assert_eq!(short_session(Some("abc")), "abc");
        assert_eq!(short_session(None), "-");
        assert!(is_global_kind(&Kind::Preference));
        assert!(!is_global_kind(&Kind::Convention));
    }
}
