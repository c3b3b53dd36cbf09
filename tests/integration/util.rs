//! The tiny harness the integration tests share.

#![allow(dead_code)]

use std::fs;
use std::path::{Path, PathBuf};

use assert_cmd::Command;
use serde_json::Value;
use tempfile::TempDir;

/// A transcript line of `kind` (`user` or `assistant`) with `content`, numbered `n`, of `session`.
pub fn transcript_entry(kind: &str, n: usize, content: Value, session: &str) -> String {
    let line = serde_json::json!({
        "type": kind,
        "message": {"role": kind, "content": content},
        "uuid": format!("00000000-0000-4000-8000-{n:012}"),
        "timestamp": format!("2026-11-20T09:{:02}:{:02}.000Z", n / 60 % 60, n % 60),
        "sessionId": session,
    });
    format!("{line}\n")
}

/// Start `cmd` with `stdin` written to it and closed: one of several runs going at once.
pub fn spawn_fed(cmd: &mut std::process::Command, stdin: &[u8]) -> std::process::Child {
    use std::io::Write;
    let mut child = cmd.stdin(std::process::Stdio::piped()).spawn().unwrap();
    child.stdin.take().unwrap().write_all(stdin).unwrap();
    child
}

/// A private HOME with `.claude` and a data dir, and commands that run inside it.
pub struct Env {
    pub dir: TempDir,
    pub home: PathBuf,
    pub config: PathBuf,
    pub data: PathBuf,
}

impl Env {
    pub fn new() -> Env {
        let dir = tempfile::tempdir().expect("temp dir");
        let home = dir.path().join("home user"); // a space, as some real home dirs have
        let config = home.join(".claude");
        let data = config.join("reflections");
        fs::create_dir_all(&config).unwrap();
        Env {
            dir,
            home,
            config,
            data,
        }
    }

    /// Make `sessions` real ones, as evidence given to `append` must name: each gets a (empty)
    /// transcript in Claude Code's projects folder.
    pub fn known_sessions(&self, sessions: &[&str]) {
        let dir = self.config.join("projects").join("-known");
        fs::create_dir_all(&dir).unwrap();
        for s in sessions {
            fs::write(dir.join(format!("{s}.jsonl")), "").unwrap();
        }
    }

    /// `memory-store append` of `signal`, which must succeed; its id.
    pub fn append(&self, signal: &serde_json::Value) -> String {
        let out = self
            .cmd("memory-store")
            .args(["append", &signal.to_string()])
            .output()
            .unwrap();
        assert!(out.status.success(), "{out:?}");
        stdout(&out).trim().to_string()
    }

    /// A command for one of our binaries, with the environment pointing into this Env only. The
    /// binaries are this build's, or those in `REFLECT_TEST_BIN_DIR` when it is set (scripts/test
    /// runs the hook tests again on the release build in dist/, the binaries users install).
    pub fn cmd(&self, bin: &str) -> Command {
        let mut cmd = Command::new(bin_path(bin));
        cmd.env_clear()
            .env("PATH", std::env::var_os("PATH").unwrap_or_default())
            .env("HOME", &self.home)
            .env("CLAUDE_CONFIG_DIR", &self.config)
            .env("REFLECT_HOME", &self.data)
            .current_dir(self.dir.path())
            .timeout(std::time::Duration::from_secs(60));
        cmd
    }

    /// [`Env::cmd`] as a plain `std` command (no timeout), for runs a test spawns side by side.
    pub fn std_cmd(&self, bin: &str) -> std::process::Command {
        let mut cmd = std::process::Command::new(bin_path(bin));
        cmd.env_clear()
            .env("PATH", std::env::var_os("PATH").unwrap_or_default())
            .env("HOME", &self.home)
            .env("CLAUDE_CONFIG_DIR", &self.config)
            .env("REFLECT_HOME", &self.data)
            .current_dir(self.dir.path());
        cmd
    }

    pub fn store(&self) -> PathBuf {
        self.data.join("signals.jsonl")
    }

    /// Every line of the store parsed as JSON (panics on an invalid line: tests expect none).
    pub fn store_lines(&self) -> Vec<Value> {
        read_jsonl(&self.store())
    }

    /// Every file under the data dir, concatenated (for "no secret anywhere" checks).
    pub fn all_data_bytes(&self) -> Vec<u8> {
        let mut out = Vec::new();
        collect(&self.data, &mut out);
        out
    }
}

/// Where one of our binaries is: this build's, or the one in `REFLECT_TEST_BIN_DIR` when set.
pub fn bin_path(bin: &str) -> PathBuf {
    match std::env::var_os("REFLECT_TEST_BIN_DIR") {
        Some(dir) => Path::new(&dir).join(format!("{bin}{}", std::env::consts::EXE_SUFFIX)),
        None => assert_cmd::cargo::cargo_bin(bin),
    }
}

fn collect(dir: &Path, out: &mut Vec<u8>) {
    let Ok(entries) = fs::read_dir(dir) else {
        return;
    };
    for e in entries.flatten() {
        let p = e.path();
        if p.is_dir() {
            collect(&p, out);
        } else if let Ok(b) = fs::read(&p) {
            out.extend_from_slice(&b);
        }
    }
}

pub fn read_jsonl(path: &Path) -> Vec<Value> {
    let text = fs::read_to_string(path).unwrap_or_default();
    text.lines()
        .filter(|l| !l.trim().is_empty())
        .map(|l| {
            serde_json::from_str(l)
                .unwrap_or_else(|e| panic!("invalid line in {}: {e}: {l}", path.display()))
        })
        .collect()
}

/// The repository's root (the plugin). Absolute in this platform's terms: under Wine the build's
/// `/work/...` is `Z:\work\...`, which the binaries a test starts in another directory need.
pub fn repo() -> PathBuf {
    std::path::absolute(env!("CARGO_MANIFEST_DIR")).unwrap()
}

/// A file under `../shared` (the design material CI keeps beside the clone).
pub fn shared(rel: &str) -> PathBuf {
    repo().join("..").join("shared").join(rel)
}

/// The real transcripts: the corpus and the reference probes.
pub fn real_transcripts() -> Vec<PathBuf> {
    let mut files = Vec::new();
    for dir in ["corpus/transcripts", "reference/transcripts"] {
        if let Ok(entries) = fs::read_dir(shared(dir)) {
            files.extend(
                entries
                    .flatten()
                    .map(|e| e.path())
                    .filter(|p| p.extension().is_some_and(|x| x == "jsonl")),
            );
        }
    }
    files.sort();
    assert!(
        !files.is_empty(),
        "no transcripts under ../shared: CI must keep shared/ beside the clone"
    );
    files
}

/// `stdout` as text.
pub fn stdout(out: &std::process::Output) -> String {
    String::from_utf8_lossy(&out.stdout).into_owned()
}

/// The id of a process that has just ended (one of our binaries, run once).
pub fn dead_pid() -> u32 {
    let mut child = std::process::Command::new(bin_path("memory-store"))
        .arg("--version")
        .stdout(std::process::Stdio::null())
        .spawn()
        .unwrap();
    let pid = child.id();
    child.wait().unwrap();
    pid
}

/// A FIFO at `path` (`mkfifo`).
pub fn mkfifo(path: &Path) {
    let made = std::process::Command::new("mkfifo")
        .arg(path)
        .status()
        .unwrap();
    assert!(made.success(), "mkfifo {}", path.display());
}

/// A character device like /dev/null at `path`, made in a temp dir so that replacing it by
/// mistake harms nothing; false when that needs a root we are not.
pub fn mknod_null(path: &Path) -> bool {
    std::process::Command::new("mknod")
        .arg(path)
        .args(["c", "1", "3"])
        .stderr(std::process::Stdio::null())
        .status()
        .is_ok_and(|s| s.success())
}

/// The permission bits of `path` (`& 0o777`); `None` on Windows, which has no modes.
pub fn mode_of(path: &Path) -> Option<u32> {
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        Some(fs::metadata(path).unwrap().permissions().mode() & 0o777)
    }
    #[cfg(not(unix))]
    {
        let _ = fs::metadata(path).unwrap();
        None
    }
}

/// (file id, mtime in ns) of `path`: a file that was not written keeps both. The inode on Unix; on
/// Windows, where std keeps the file index unstable, the creation time stands in (a file replaced
/// by rename is a new file with a new creation time).
pub fn file_stamp(path: &Path) -> (u128, u128) {
    let m = fs::metadata(path).unwrap();
    let ns = |t: std::time::SystemTime| t.duration_since(std::time::UNIX_EPOCH).unwrap().as_nanos();
    #[cfg(unix)]
    let id = u128::from(std::os::unix::fs::MetadataExt::ino(&m));
    #[cfg(not(unix))]
    let id = ns(m.created().unwrap());
    (id, ns(m.modified().unwrap()))
}

/// A command that starts `handler` (one hook entry of settings.json) the way Claude Code does:
/// with `args` (the exec form) the program itself, directly, no shell; without, its `command`
/// through `sh -c`.
pub fn as_claude_starts(handler: &Value) -> std::process::Command {
    let command = handler["command"].as_str().expect("a command");
    match handler.get("args").and_then(Value::as_array) {
        Some(args) => {
            let mut c = std::process::Command::new(command);
            c.args(args.iter().map(|a| a.as_str().expect("string args")));
            c
        }
        None => {
            let mut c = std::process::Command::new("sh");
            c.args(["-c", command]);
            c
        }
    }
}

/// `dst` naming the file `src`: a symlink on Unix; a copy on Windows, where making a symlink takes
/// a privilege (and Wine 8 cannot stat the links it makes).
pub fn link_file(src: &Path, dst: &Path) {
    #[cfg(unix)]
    std::os::unix::fs::symlink(src, dst).unwrap();
    #[cfg(not(unix))]
    fs::copy(src, dst).map(|_| ()).unwrap();
}

/// The absolute path `unix` names, as this platform spells one: itself on Unix, `C:\work\app`
/// for `/work/app` on Windows (a project path in a payload is the platform's own).
pub fn abs(unix: &str) -> String {
    if cfg!(windows) {
        format!("C:{}", unix.replace('/', "\\"))
    } else {
        unix.to_string()
    }
}
