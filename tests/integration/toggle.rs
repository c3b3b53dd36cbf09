//! `reflect-toggle` (and the migration half of `memory-store migrate`): real binaries, a private HOME
//! per test (with a space in it), settings.json fixtures from empty to hostile.
//!
//! What the settings lock can and cannot protect, as these tests show it: every reflect process (and
//! any tool that takes `settings.json.lock` the same way) serializes its read-modify-write and re-reads
//! the file under the lock, so an edit made before we hold the lock is kept and concurrent lock-takers
//! lose no update (`lock_serializes_toggles_and_a_locking_writer`, `an_edit_made_while_we_wait_is_kept`).
//! A user's editor and Claude Code itself take no lock: their save can still land between our last
//! look at the file and our rename. The window is the time of one comparison and one rename; it is
//! narrowed (the file is compared with what we read right before writing, and the edit redone if it
//! moved), not closed, and the backup in `<data dir>/backups/` keeps the version we replaced.

use std::fs;
use std::io::{BufRead, BufReader};
#[cfg(unix)]
use std::os::unix::fs::{FileTypeExt, MetadataExt, PermissionsExt};
use std::path::{Path, PathBuf};
use std::process::{Command as StdCommand, Stdio};

use predicates::prelude::*;
use reflect_base::fsutil::{self, LockWait};
use serde_json::{json, Value};

#[cfg(unix)]
use crate::util::{mkfifo, mknod_null};
use crate::util::{stdout, Env};

const HOOK_EVENTS: [(&str, &str); 4] = [
    ("PreCompact", "capture-signals"),
    ("PostToolUseFailure", "capture-failure"),
    ("SessionEnd", "capture-session-summary"),
    ("SessionStart", "inject-signals"),
];

/// The file name of binary `name` on this platform.
fn exe(name: &str) -> String {
    format!("{name}{}", std::env::consts::EXE_SUFFIX)
}

fn settings(env: &Env) -> PathBuf {
    env.config.join("settings.json")
}

fn toggle(env: &Env, args: &[&str]) -> std::process::Output {
    env.cmd("reflect-toggle").args(args).output().unwrap()
}

fn toggle_ok(env: &Env, args: &[&str]) -> String {
    let out = toggle(env, args);
    assert!(
        out.status.success(),
        "reflect-toggle {args:?} failed: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    stdout(&out)
}

fn read_json(path: &Path) -> Value {
    serde_json::from_slice(&fs::read(path).unwrap()).unwrap()
}

/// Order-sensitive equality (serde_json's map equality ignores order; the serialization does not).
fn same(a: &Value, b: &Value) -> bool {
    serde_json::to_string(a).unwrap() == serde_json::to_string(b).unwrap()
}

fn bin_dir(env: &Env) -> PathBuf {
    env.data.join("bin")
}

/// Every handler command in `v`, per event.
fn commands(v: &Value, event: &str) -> Vec<String> {
    v["hooks"][event]
        .as_array()
        .into_iter()
        .flatten()
        .flat_map(|g| g["hooks"].as_array().cloned().unwrap_or_default())
        .filter_map(|h| h["command"].as_str().map(str::to_string))
        .collect()
}

/// The four hooks are registered exactly once each, as the contract wants them.
fn assert_registered(env: &Env, v: &Value) {
    for (event, binary) in HOOK_EVENTS {
        // Shell form (a quoted path) on Unix; exec form (the .exe itself, `args: []`) on Windows.
        let path = bin_dir(env).join(exe(binary)).display().to_string();
        let want = if cfg!(windows) {
            path
        } else {
            format!("\"{path}\"")
        };
        let groups: Vec<&Value> = v["hooks"][event]
            .as_array()
            .unwrap_or_else(|| panic!("no {event} in {v}"))
            .iter()
            .filter(|g| {
                g["hooks"]
                    .as_array()
                    .unwrap()
                    .iter()
                    .any(|h| h["command"] == want.as_str())
            })
            .collect();
        assert_eq!(groups.len(), 1, "{event} registered once: {v}");
        let group = groups[0];
        let handler = &group["hooks"][0];
        assert_eq!(handler["type"], "command");
        if cfg!(windows) {
            assert_eq!(handler["args"], json!([]), "exec form: no shell");
        } else {
            assert!(handler.get("args").is_none(), "shell form");
        }
        assert!(handler.get("async").is_none(), "synchronous");
        assert!(handler["timeout"]
            .as_u64()
            .is_some_and(|t| (1..=60).contains(&t)));
        match event {
            "SessionStart" => assert_eq!(group["matcher"], "compact"),
            // No matcher: PreCompact fires for manual and auto, the others for every tool and reason.
            _ => assert!(group.get("matcher").is_none(), "{event}: {group}"),
        }
        let ours = commands(v, event)
            .iter()
            .filter(|c| c.contains(binary))
            .count();
        assert_eq!(ours, 1, "{event}: exactly one entry of ours: {v}");
    }
}

fn settings_backups(env: &Env) -> usize {
    fs::read_dir(env.data.join("backups"))
        .map(|d| {
            d.flatten()
                .filter(|e| e.file_name().to_string_lossy().contains("settings.json"))
                .count()
        })
        .unwrap_or(0)
}

/// (file id, mtime in ns, bytes): a file that was not written keeps all three.
fn fingerprint(path: &Path) -> ((u128, u128), Vec<u8>) {
    (crate::util::file_stamp(path), fs::read(path).unwrap())
}

const LEGACY_PRECOMPACT: &str = "python3 ~/.claude/skills/self-reflect/hooks/capture-signals.py";

/// (name, file content or None for absent, the file expected after `on` then `off`: `None` when
/// that is the very bytes the file held before `on`).
fn fixtures() -> Vec<(&'static str, Option<String>, Option<Value>)> {
    let other_hooks = json!({
        "hooks": {
            "PreCompact": [
                {"matcher": "manual", "hooks": [{"type": "command", "command": "echo pre-manual"}]},
                {"hooks": [{"type": "command", "command": "/usr/local/bin/backup-transcript", "timeout": 5}]}
            ],
            "PostToolUseFailure": [{"matcher": "Bash", "hooks": [{"type": "command", "command": "notify-send failed"}]}],
            "SessionEnd": [{"hooks": [{"type": "command", "command": "echo bye", "async": true}]}],
            "SessionStart": [
                {"matcher": "compact", "hooks": [{"type": "command", "command": "cat ~/notes.md"}]},
                {"matcher": "startup", "hooks": [{"type": "command", "command": "date"}]}
            ],
            "Stop": [{"hooks": [{"type": "command", "command": "say done"}]}]
        }
    });
    let unrelated = json!({
        "$schema": "https://json.schemastore.org/claude-code-settings.json",
        "permissions": {"allow": ["Bash(git status)"], "deny": [], "defaultMode": "acceptEdits"},
        "model": "opus",
        "env": {"Z_LAST": "1", "A_FIRST": "2"},
        "hooks": {"Stop": [{"hooks": [{"type": "command", "command": "say done"}]}]},
        "enabledPlugins": {"other@market": true},
        "statusLine": {"type": "command", "command": "memory-store stats --format statusline"},
        "zzz": null,
        "aaa": [1, 2.5, "x", {"b": 1, "a": 2}]
    });
    let legacy = json!({
        "model": "sonnet",
        "hooks": {
            "PreCompact": [{"hooks": [
                {"type": "command", "command": LEGACY_PRECOMPACT},
                {"type": "command", "command": "echo mine"}
            ]}],
            "SessionStart": [{"matcher": "compact", "hooks": [
                {"type": "command", "command": "bash ~/.claude/skills/self-reflect/hooks/inject-signals.sh"}
            ]}],
            "PostToolUseFailure": [{"hooks": [{"type": "command", "command": "\"$HOME/old/capture-failure.sh\""}]}],
            "SessionEnd": [{"hooks": [{"type": "command", "command": "python3 /opt/x/capture-session-summary.py"}]}],
            "UserPromptSubmit": [{"hooks": [{"type": "command", "command": "python3 ~/.claude/skills/self-reflect/hooks/prompt.py"}]}]
        },
        "env": {}
    });
    let legacy_after = json!({
        "model": "sonnet",
        "hooks": {"PreCompact": [{"hooks": [{"type": "command", "command": "echo mine"}]}]},
        "env": {}
    });
    let pretty = |v: &Value| serde_json::to_string_pretty(v).unwrap() + "\n";
    vec![
        ("absent", None, Some(json!({}))),
        ("empty file", Some(String::new()), None),
        ("empty object", Some("{}\n".into()), None),
        (
            "other hooks on our events",
            Some(pretty(&other_hooks)),
            None,
        ),
        ("unrelated keys", Some(pretty(&unrelated)), None),
        (
            "legacy python entries",
            Some(pretty(&legacy)),
            Some(legacy_after),
        ),
        // `off` right after `on` gives back the containers `on` filled, as they were.
        ("empty hooks", Some("{\"hooks\": {}}".into()), None),
        (
            "an empty group of the user's stays",
            Some(r#"{"hooks":{"PreCompact":[{"hooks":[]}],"SessionEnd":[]}}"#.into()),
            None,
        ),
    ]
}

#[test]
fn on_then_off_keeps_everything_that_is_not_ours() {
    for (name, content, after_off) in fixtures() {
        let env = Env::new();
        let path = settings(&env);
        if let Some(c) = &content {
            fs::write(&path, c).unwrap();
        }
        let before: Value = content
            .as_deref()
            .filter(|c| !c.trim().is_empty())
            .map(|c| serde_json::from_str(c).unwrap())
            .unwrap_or(json!({}));

        toggle_ok(&env, &["on"]);
        let on = read_json(&path);
        assert_registered(&env, &on);
        // Every key that is not `hooks` is equal and in the same place.
        let keys = |v: &Value| v.as_object().unwrap().keys().cloned().collect::<Vec<_>>();
        let mut want_keys = keys(&before);
        if !want_keys.contains(&"hooks".to_string()) {
            want_keys.push("hooks".into());
        }
        assert_eq!(keys(&on), want_keys, "{name}: key order after on");
        for (k, v) in before.as_object().unwrap() {
            if k != "hooks" {
                assert!(same(v, &on[k]), "{name}: {k} changed by on");
            }
        }

        let once = fs::read(&path).unwrap();
        let backups = settings_backups(&env);
        toggle_ok(&env, &["on"]);
        assert_eq!(
            fs::read(&path).unwrap(),
            once,
            "{name}: on twice equals on once"
        );
        assert_eq!(settings_backups(&env), backups, "{name}: no second backup");

        toggle_ok(&env, &["off"]);
        match &after_off {
            None => assert_eq!(
                fs::read_to_string(&path).unwrap(),
                content.clone().unwrap(),
                "{name}: off after on gives the same bytes back"
            ),
            Some(want) => {
                let off = read_json(&path);
                assert!(
                    same(&off, want),
                    "{name}: after off\n got {off}\nwant {want}"
                );
            }
        }

        let quiet = fingerprint(&path);
        let backups = settings_backups(&env);
        let out = toggle_ok(&env, &["off"]);
        assert!(out.contains("nothing to change"), "{out}");
        assert_eq!(
            fingerprint(&path),
            quiet,
            "{name}: off when off writes nothing"
        );
        assert_eq!(settings_backups(&env), backups);
    }
}

#[test]
fn off_alone_leaves_empty_containers() {
    for text in [
        "{\"hooks\": {}}",
        r#"{"hooks":{"PreCompact":[{"hooks":[]}],"SessionEnd":[],"Stop":[{"hooks":[{"type":"command","command":"x"}]}]}}"#,
    ] {
        let env = Env::new();
        fs::write(settings(&env), text).unwrap();
        let before = fingerprint(&settings(&env));
        toggle_ok(&env, &["off"]);
        assert_eq!(fingerprint(&settings(&env)), before, "{text}");
    }
}

#[test]
fn layout_is_kept_byte_for_byte() {
    // Four-space indent without a trailing newline, tabs with CRLF: on + off gives the same bytes back.
    let four = "{\n    \"model\": \"opus\",\n    \"env\": {\n        \"A\": \"1\"\n    }\n}";
    let tabs = "{\r\n\t\"model\": \"opus\",\r\n\t\"list\": [\r\n\t\t1\r\n\t]\r\n}\r\n";
    let compact = "{\"model\":\"opus\"}\n";
    for text in [four, tabs, compact] {
        let env = Env::new();
        fs::write(settings(&env), text).unwrap();
        toggle_ok(&env, &["on"]);
        let on = fs::read_to_string(settings(&env)).unwrap();
        if text.contains('\t') {
            assert!(on.contains("\r\n\t\t\"PreCompact\": ["), "{on:?}");
        }
        toggle_ok(&env, &["off"]);
        assert_eq!(fs::read_to_string(settings(&env)).unwrap(), text);
    }
    // A new file gets Claude Code's own layout: two spaces and a trailing newline.
    let env = Env::new();
    toggle_ok(&env, &["on"]);
    let text = fs::read_to_string(settings(&env)).unwrap();
    assert!(
        text.starts_with("{\n  \"hooks\": {\n    \"PreCompact\""),
        "{text}"
    );
    assert!(text.ends_with("}\n"));
    let mode = crate::util::mode_of(&settings(&env));
    assert!(
        mode.is_none_or(|m| m == 0o600),
        "a new settings file is private: {mode:?}"
    );
}

/// The settings files shaped like real ones in `tests/fixtures/settings/` (two-space indents, LF):
/// (name, text). The unit tests of the settings module run each in every layout; here each runs as
/// it is and with tabs, CRLF and no final newline, through the real binary.
fn real_world_settings() -> Vec<(String, String)> {
    let dir = crate::util::repo().join("tests/fixtures/settings");
    let mut files: Vec<(String, String)> = fs::read_dir(dir)
        .unwrap()
        .flatten()
        .map(|e| {
            let name = e.file_name().to_string_lossy().into_owned();
            (name, fs::read_to_string(e.path()).unwrap())
        })
        .collect();
    files.sort();
    assert!(files.len() >= 10, "fixtures found: {}", files.len());
    let tabs_crlf: Vec<(String, String)> = files
        .iter()
        .map(|(name, text)| {
            let lines: Vec<String> = text
                .lines()
                .map(|l| {
                    let body = l.trim_start_matches(' ');
                    "\t".repeat((l.len() - body.len()) / 2) + body
                })
                .collect();
            (format!("{name} (tabs, CRLF)"), lines.join("\r\n"))
        })
        .collect();
    files.extend(tabs_crlf);
    files
}

#[test]
fn regression_on_then_off_is_byte_identical_on_real_world_files() {
    // One HOME for all: the binaries are installed once and reused.
    let env = Env::new();
    let path = settings(&env);
    for (name, text) in real_world_settings() {
        fs::write(&path, &text).unwrap();
        toggle_ok(&env, &["on"]);
        let on = fs::read_to_string(&path).unwrap();
        assert_registered(&env, &serde_json::from_str(&on).unwrap());
        if name.ends_with("(tabs, CRLF)") && text.contains('\n') {
            assert!(!on.replace("\r\n", "").contains('\n'), "{name}: CRLF kept");
            assert!(!on.contains("\n "), "{name}: tabs kept: {on}");
        }
        toggle_ok(&env, &["off"]);
        assert_eq!(
            fs::read_to_string(&path).unwrap(),
            text,
            "{name}: off after on gives the same bytes back"
        );
    }
}

#[test]
fn regression_an_empty_hooks_object_of_the_users_survives_on_and_off() {
    let env = Env::new();
    let text = "{\n  \"hooks\": {},\n  \"model\": \"opus\"\n}\n";
    fs::write(settings(&env), text).unwrap();
    toggle_ok(&env, &["on"]);
    let on = fs::read_to_string(settings(&env)).unwrap();
    assert!(
        on.starts_with("{\n  \"hooks\": {\n    \"PreCompact\": ["),
        "{on}"
    );
    toggle_ok(&env, &["off"]);
    assert_eq!(fs::read_to_string(settings(&env)).unwrap(), text);
}

#[test]
// Unix only: Wine 8 cannot stat the symlinks it makes.
#[cfg(unix)]
fn a_symlinked_settings_file_is_followed() {
    let env = Env::new();
    let dotfiles = env.home.join("dotfiles");
    fs::create_dir_all(&dotfiles).unwrap();
    let real = dotfiles.join("settings.json");
    fs::write(&real, "{\n  \"model\": \"opus\"\n}\n").unwrap();
    std::os::unix::fs::symlink("../dotfiles/settings.json", settings(&env)).unwrap();
    toggle_ok(&env, &["on"]);
    assert!(fs::symlink_metadata(settings(&env))
        .unwrap()
        .file_type()
        .is_symlink());
    assert_registered(&env, &read_json(&real));
    toggle_ok(&env, &["off"]);
    assert!(fs::symlink_metadata(settings(&env))
        .unwrap()
        .file_type()
        .is_symlink());
    assert_eq!(
        fs::read_to_string(&real).unwrap(),
        "{\n  \"model\": \"opus\"\n}\n"
    );
}

#[test]
fn bad_files_exit_1_untouched_with_the_exact_reason() {
    let cases = [
        ("{\"model\": \"opus\",}", "not valid JSON"),
        ("{\"hooks\": []}", "settings.json: hooks is not an object"),
        (
            "{\"hooks\": {\"PreCompact\": {}}}",
            "settings.json: hooks.PreCompact is not an array",
        ),
        (
            "{\"hooks\": {\"SessionEnd\": [{\"matcher\": \"\"}]}}",
            "settings.json: hooks.SessionEnd[0] has no hooks array",
        ),
        (
            "[1, 2]",
            "settings.json: the top level is not a JSON object",
        ),
    ];
    for (text, reason) in cases {
        for action in ["on", "off", "status", "on --dry-run"] {
            let env = Env::new();
            fs::write(settings(&env), text).unwrap();
            let before = fingerprint(&settings(&env));
            let args: Vec<&str> = action.split(' ').collect();
            env.cmd("reflect-toggle")
                .args(&args)
                .assert()
                .code(1)
                .stdout("")
                .stderr(predicate::str::starts_with("reflect-toggle: "))
                .stderr(predicate::str::contains(reason))
                .stderr(predicate::str::contains(
                    settings(&env).display().to_string(),
                ));
            assert_eq!(fingerprint(&settings(&env)), before, "{text} / {action}");
            assert!(
                !bin_dir(&env).exists(),
                "{action}: nothing installed for a bad file"
            );
        }
    }
}

#[test]
// Unix only: FIFOs and device nodes; Windows' devices are refused in regression_windows_devices_as_settings_are_refused.
#[cfg(unix)]
fn regression_a_fifo_or_device_as_settings_is_refused_at_once() {
    let env = Env::new();
    let fifo = env.home.join("settings.fifo");
    mkfifo(&fifo);
    let device = env.home.join("settings.dev");
    let mut targets = vec![(fifo.clone(), "is a FIFO, not a regular file")];
    if mknod_null(&device) {
        targets.push((device.clone(), "is a device, not a regular file"));
    }
    for (target, why) in targets {
        let _ = fs::remove_file(settings(&env));
        std::os::unix::fs::symlink(&target, settings(&env)).unwrap();
        let flag = ["--settings", target.to_str().unwrap()];
        for args in [
            vec!["on"],
            vec!["off"],
            vec!["status"],
            vec![],
            [&["on"][..], &flag[..]].concat(),
            [&["off"][..], &flag[..]].concat(),
        ] {
            env.cmd("reflect-toggle")
                .args(&args)
                .timeout(std::time::Duration::from_secs(10))
                .assert()
                .code(1)
                .stderr(predicate::str::contains(why));
            let kind = fs::symlink_metadata(&target).unwrap().file_type();
            assert!(
                kind.is_fifo() || kind.is_char_device(),
                "{args:?}: {} was replaced",
                target.display()
            );
        }
        assert!(!bin_dir(&env).exists(), "nothing installed");
    }
}

/// Windows' counterpart of the FIFO and device above: the null device (in any directory) and the
/// console as the settings file are refused at once, nothing read, installed or replaced.
#[test]
#[cfg(windows)]
fn regression_windows_devices_as_settings_are_refused() {
    let env = Env::new();
    // The console's error depends on whether there is one (none under a test runner); the null
    // device is named.
    for (target, why) in [
        ("NUL", "is a device, not a regular file"),
        (r"C:\Windows\NUL", "is a device, not a regular file"),
        ("CON", ""),
    ] {
        for action in ["on", "off", "status"] {
            env.cmd("reflect-toggle")
                .args([action, "--settings", target])
                .timeout(std::time::Duration::from_secs(10))
                .assert()
                .code(1)
                .stderr(predicate::str::contains(why));
        }
    }
    assert!(!bin_dir(&env).exists(), "nothing installed");
    assert!(!settings(&env).exists(), "no settings file made");
}

/// A settings path beside which nothing can be made is refused before anything is installed or
/// written: a file where its directory would be, Linux's /proc, and on Windows a named pipe nobody
/// serves (it opens as no file at all). `on` installed the binaries, then failed to make the lock.
#[test]
fn regression_on_refuses_a_settings_path_it_cannot_lock_before_installing() {
    let env = Env::new();
    let file = env.home.join("a file");
    fs::write(&file, "").unwrap();
    let mut targets = vec![file.join("settings.json")];
    if cfg!(target_os = "linux") {
        targets.push("/proc/reflect-no-such-dir/settings.json".into());
    }
    if cfg!(windows) {
        targets.push(r"\\.\pipe\reflect-no-such-pipe".into());
    }
    for target in targets {
        env.cmd("reflect-toggle")
            .arg("on")
            .arg("--settings")
            .arg(&target)
            .timeout(std::time::Duration::from_secs(10))
            .assert()
            .code(1)
            .stderr(predicate::str::starts_with("reflect-toggle: cannot "));
        assert!(!env.data.exists(), "{}: data dir made", target.display());
        assert_eq!(fs::read(&file).unwrap(), b"", "{}", target.display());
    }
}

/// Every file and directory under `dir` (itself included) with an owner other than `uid`.
// Unix only: uids are Unix's.
#[cfg(unix)]
fn not_owned_by(dir: &Path, uid: u32) -> Vec<String> {
    let mut out = Vec::new();
    let meta = fs::symlink_metadata(dir).unwrap();
    if meta.uid() != uid {
        out.push(format!("{} ({})", dir.display(), meta.uid()));
    }
    if meta.is_dir() {
        for e in fs::read_dir(dir).unwrap().flatten() {
            out.extend(not_owned_by(&e.path(), uid));
        }
    }
    out
}

#[test]
// Unix only: root and uids are Unix's; nothing stands for this on Windows.
#[cfg(unix)]
fn regression_toggle_run_as_root_keeps_the_users_files_the_users() {
    let probe = tempfile::NamedTempFile::new().unwrap();
    if fs::metadata(probe.path()).unwrap().uid() != 0 {
        eprintln!("skipped: needs root (the bug is sudo with HOME kept)");
        return;
    }
    let user = 4242;
    let env = Env::new();
    fs::write(settings(&env), "{\n  \"model\": \"opus\"\n}\n").unwrap();
    fs::write(env.config.join("CLAUDE.md"), format!("# Me\n{SECTION}")).unwrap();
    fs::create_dir_all(&env.data).unwrap();
    let v2 = r#"{"ts":"2026-02-11T10:23:00Z","sid":"abc","type":"correction","context":"No, use pnpm not npm","turn":42}"#;
    fs::write(env.store(), format!("{v2}\n")).unwrap();
    let chown = StdCommand::new("chown")
        .args(["-R", &format!("{user}:{user}")])
        .arg(&env.home)
        .status()
        .unwrap();
    assert!(chown.success());
    for action in ["on", "off", "on"] {
        let out = toggle_ok(&env, &[action]);
        assert!(out.starts_with("reflect: "), "{out}");
        assert_eq!(
            not_owned_by(&env.home, user),
            Vec::<String>::new(),
            "after {action} as root, everything under the user's HOME is still the user's"
        );
    }
    assert!(
        env.data.join("backups").is_dir() && settings(&env).with_extension("json.lock").exists()
    );
    // The CLI and a hook run as root create the store and the error log as the user's too.
    fs::remove_file(env.store()).unwrap();
    env.cmd("memory-store")
        .args(["append", r#"{"type": "correction", "content": "x"}"#])
        .assert()
        .success();
    env.cmd("capture-failure")
        .write_stdin("not json")
        .assert()
        .success();
    assert!(env.store().exists() && env.data.join("errors.log").exists());
    assert_eq!(not_owned_by(&env.home, user), Vec::<String>::new());
}

#[test]
// Unix only: a read-only directory stops file creation only on Unix; a read-only file is refused
// on every platform in a_read_only_settings_file_is_refused.
#[cfg(unix)]
fn a_read_only_settings_dir_is_refused() {
    let env = Env::new();
    let dir = env.home.join("ro");
    fs::create_dir_all(&dir).unwrap();
    let file = dir.join("settings.json");
    fs::write(&file, "{\"model\": \"opus\"}\n").unwrap();
    fs::set_permissions(&dir, fs::Permissions::from_mode(0o555)).unwrap();
    let before = fingerprint(&file);
    let out = toggle(&env, &["on", "--settings", file.to_str().unwrap()]);
    fs::set_permissions(&dir, fs::Permissions::from_mode(0o755)).unwrap();
    assert_eq!(
        out.status.code(),
        Some(1),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(String::from_utf8_lossy(&out.stderr).contains("read-only directory"));
    assert_eq!(fingerprint(&file), before);
    assert_eq!(
        fs::read_dir(&dir).unwrap().count(),
        1,
        "no temp or lock file left"
    );
}

/// A read-only settings file (mode 0444 on Unix, the read-only attribute on Windows): `on`
/// refuses it, the file untouched and nothing installed.
#[test]
fn a_read_only_settings_file_is_refused() {
    let env = Env::new();
    fs::write(settings(&env), "{\"model\": \"opus\"}\n").unwrap();
    let mut read_only = fs::metadata(settings(&env)).unwrap().permissions();
    read_only.set_readonly(true);
    fs::set_permissions(settings(&env), read_only).unwrap();
    let before = fingerprint(&settings(&env));
    env.cmd("reflect-toggle")
        .arg("on")
        .assert()
        .code(1)
        .stderr(predicate::str::contains("read-only"));
    assert_eq!(fingerprint(&settings(&env)), before);
    assert!(
        !bin_dir(&env).exists(),
        "refused before installing anything"
    );
}

#[test]
fn a_non_default_data_dir_is_pointed_out() {
    let env = Env::new();
    let out = toggle_ok(&env, &["on"]);
    assert!(!out.contains("note:"), "default data dir: {out}");
    let elsewhere = env.home.join("elsewhere");
    let out = env
        .cmd("reflect-toggle")
        .arg("on")
        .env("REFLECT_HOME", &elsewhere)
        .output()
        .unwrap();
    let text = stdout(&out);
    assert!(
        text.contains("Claude Code must run with the same REFLECT_HOME"),
        "{text}"
    );
    assert!(
        text.contains(&elsewhere.join("bin").display().to_string()),
        "{text}"
    );
}

#[test]
fn settings_flag_edits_that_file_only() {
    let env = Env::new();
    let other = env.home.join("project settings.json");
    toggle_ok(&env, &["on", "--settings", other.to_str().unwrap()]);
    assert_registered(&env, &read_json(&other));
    assert!(!settings(&env).exists());
    let out = toggle_ok(&env, &["status", "--settings", other.to_str().unwrap()]);
    assert!(out.starts_with("reflect: on"), "{out}");
}

#[test]
fn no_argument_toggles() {
    let env = Env::new();
    assert!(toggle_ok(&env, &[]).starts_with("reflect: on"));
    assert_registered(&env, &read_json(&settings(&env)));
    assert!(toggle_ok(&env, &[]).starts_with("reflect: off"));
    assert_eq!(read_json(&settings(&env)), json!({}));
    // A partial install is repaired, not removed.
    toggle_ok(&env, &["on"]);
    remove_event(&env, "SessionEnd");
    assert!(toggle_ok(&env, &[]).starts_with("reflect: on"));
    assert_registered(&env, &read_json(&settings(&env)));
}

fn remove_event(env: &Env, event: &str) {
    let mut v = read_json(&settings(env));
    v["hooks"].as_object_mut().unwrap().shift_remove(event);
    fs::write(settings(env), serde_json::to_string_pretty(&v).unwrap()).unwrap();
}

#[test]
fn status_reports_on_off_and_partial() {
    let env = Env::new();
    let off = toggle_ok(&env, &["status"]);
    assert!(off.starts_with("reflect: off"), "{off}");
    assert!(!settings(&env).exists(), "status writes nothing");

    toggle_ok(&env, &["on"]);
    let on = toggle_ok(&env, &["status"]);
    assert!(on.starts_with("reflect: on"), "{on}");
    for (_, binary) in HOOK_EVENTS {
        assert!(
            on.contains(&bin_dir(&env).join(binary).display().to_string()),
            "{on}"
        );
    }
    assert!(!on.contains("problem"), "{on}");

    remove_event(&env, "SessionEnd");
    let partial = toggle_ok(&env, &["status"]);
    assert!(partial.starts_with("reflect: partial"), "{partial}");
    assert!(partial.contains("SessionEnd hook missing"), "{partial}");

    toggle_ok(&env, &["on"]);
    fs::remove_file(bin_dir(&env).join(exe("capture-failure"))).unwrap();
    let missing = toggle_ok(&env, &["status"]);
    assert!(missing.starts_with("reflect: partial"), "{missing}");
    assert!(
        missing.contains(&format!("{}, which is missing", exe("capture-failure"))),
        "{missing}"
    );

    toggle_ok(&env, &["on"]);
    let mut v = read_json(&settings(&env));
    v["hooks"]["PreCompact"]
        .as_array_mut()
        .unwrap()
        .push(json!({"hooks": [{"type": "command", "command": LEGACY_PRECOMPACT}]}));
    fs::write(settings(&env), serde_json::to_string_pretty(&v).unwrap()).unwrap();
    let stale = toggle_ok(&env, &["status"]);
    assert!(stale.starts_with("reflect: partial"), "{stale}");
    assert!(
        stale.contains("(legacy): stale entry under PreCompact"),
        "{stale}"
    );
}

#[test]
fn dry_run_writes_nothing() {
    let env = Env::new();
    fs::write(env.config.join("CLAUDE.md"), format!("# Me\n{SECTION}")).unwrap();
    let out = toggle_ok(&env, &["on", "--dry-run"]);
    assert!(out.contains("would install 6"), "{out}");
    assert!(out.contains("would remove the v1"), "{out}");
    assert!(out.contains("add    SessionStart"), "{out}");
    assert!(!settings(&env).exists());
    assert!(!env.data.exists(), "no data dir, no binaries, no backups");
    assert_eq!(
        fs::read_to_string(env.config.join("CLAUDE.md")).unwrap(),
        format!("# Me\n{SECTION}")
    );

    toggle_ok(&env, &["on"]);
    let before = fingerprint(&settings(&env));
    let out = toggle_ok(&env, &["off", "--dry-run"]);
    assert!(out.contains("remove PreCompact"), "{out}");
    assert_eq!(fingerprint(&settings(&env)), before);
}

#[test]
fn installed_binaries_run_and_are_reused() {
    let env = Env::new();
    toggle_ok(&env, &["on"]);
    let bin = bin_dir(&env);
    let mode = crate::util::mode_of(&env.data);
    assert!(mode.is_none_or(|m| m == 0o700), "{mode:?}");
    for name in [
        "capture-signals",
        "capture-failure",
        "capture-session-summary",
        "inject-signals",
        "memory-store",
        "reflect-toggle",
    ] {
        let mode = crate::util::mode_of(&bin.join(exe(name)));
        assert!(mode.is_none_or(|m| m == 0o755), "{name}: {mode:?}");
    }
    let installed = |name: &str| {
        let mut c = StdCommand::new(bin.join(exe(name)));
        c.env_clear()
            .env("HOME", &env.home)
            .env("CLAUDE_CONFIG_DIR", &env.config)
            .env("REFLECT_HOME", &env.data)
            .current_dir(env.dir.path());
        c
    };
    let out = installed("memory-store").arg("--version").output().unwrap();
    assert!(stdout(&out).starts_with("memory-store "), "{out:?}");
    let out = installed("reflect-toggle").arg("status").output().unwrap();
    assert!(stdout(&out).starts_with("reflect: on"), "{out:?}");
    // The installed toggle copies from its own directory: nothing to copy, nothing to change.
    let out = installed("reflect-toggle").arg("on").output().unwrap();
    assert!(stdout(&out).contains("installed 0"), "{}", stdout(&out));
    // A registered hook runs as Claude Code would run it (sh -c with the quoted path, a space in
    // it; on Windows the exec form, the .exe itself).
    let handler = read_json(&settings(&env))["hooks"]["PostToolUseFailure"][0]["hooks"][0].clone();
    let payload = json!({"session_id": "s1", "transcript_path": "/nonexistent", "cwd": env.dir.path(),
        "hook_event_name": "PostToolUseFailure", "tool_name": "Bash", "tool_input": {"command": "false"},
        "tool_use_id": "t1", "error": "Exit code 1\nerror: the build failed: permission denied", "is_interrupt": false});
    let mut child = crate::util::as_claude_starts(&handler)
        .env_clear()
        .env("HOME", &env.home)
        .env("CLAUDE_CONFIG_DIR", &env.config)
        .env("REFLECT_HOME", &env.data)
        .current_dir(env.dir.path())
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .spawn()
        .unwrap();
    std::io::Write::write_all(
        &mut child.stdin.take().unwrap(),
        payload.to_string().as_bytes(),
    )
    .unwrap();
    let out = child.wait_with_output().unwrap();
    assert!(out.status.success());
    assert!(out.stdout.is_empty());
    let lines = env.store_lines();
    assert_eq!(lines.len(), 1, "the installed hook captured the failure");
    assert_eq!(lines[0]["type"], "failure");
}

/// A hook that `on` registered, started as Claude Code starts it (on Windows the exec form: the
/// .exe itself, no shell between), with a payload of Windows paths (a `C:\\Users\\...` cwd, a
/// transcript_path with backslashes), stores its signal.
#[test]
fn a_registered_hook_stores_the_signal_of_a_payload_with_windows_paths() {
    let env = Env::new();
    toggle_ok(&env, &["on"]);
    let handler = read_json(&settings(&env))["hooks"]["PostToolUseFailure"][0]["hooks"][0].clone();
    assert_eq!(handler.get("args").is_some(), cfg!(windows), "{handler}");
    let fixture =
        crate::util::repo().join("tests/fixtures/payloads/PostToolUseFailure-windows.json");
    let payload = fs::read_to_string(fixture).unwrap();
    let sent: Value = serde_json::from_str(&payload).unwrap();
    let mut child = crate::util::as_claude_starts(&handler)
        .env_clear()
        .env("HOME", &env.home)
        .env("CLAUDE_CONFIG_DIR", &env.config)
        .env("REFLECT_HOME", &env.data)
        .current_dir(env.dir.path())
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .spawn()
        .unwrap();
    std::io::Write::write_all(&mut child.stdin.take().unwrap(), payload.as_bytes()).unwrap();
    let out = child.wait_with_output().unwrap();
    assert!(out.status.success() && out.stdout.is_empty(), "{out:?}");
    let lines = env.store_lines();
    assert_eq!(lines.len(), 1, "the hook stored the failure");
    assert_eq!(lines[0]["type"], "failure");
    assert_eq!(lines[0]["session_id"], sent["session_id"]);
    if cfg!(windows) {
        assert_eq!(
            lines[0]["project"], sent["cwd"],
            "the Windows project path, as given"
        );
    }
}

/// A `reflect-toggle` process as a plain std command (the lock tests need to spawn and watch it).
fn spawn_toggle(env: &Env, args: &[&str]) -> StdCommand {
    let mut c = StdCommand::new(crate::util::bin_path("reflect-toggle"));
    c.args(args)
        .env_clear()
        .env("HOME", &env.home)
        .env("CLAUDE_CONFIG_DIR", &env.config)
        .env("REFLECT_HOME", &env.data)
        .current_dir(env.dir.path());
    c
}

#[test]
fn an_edit_made_while_we_wait_is_kept() {
    let env = Env::new();
    let path = settings(&env);
    fs::write(&path, "{\n  \"model\": \"opus\"\n}\n").unwrap();
    let lock = path.with_file_name("settings.json.lock");
    let out = fsutil::with_lock(&lock, LockWait::CLI, &mut || {}, || {
        let mut child = spawn_toggle(&env, &["on"])
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap();
        // The toggle has read the file and planned its edit; it now waits for the lock.
        let mut stderr = BufReader::new(child.stderr.take().unwrap());
        let mut line = String::new();
        stderr.read_line(&mut line).unwrap();
        assert!(line.contains("waiting for the settings lock"), "{line}");
        // Someone holding the lock edits the file after the toggle's first read.
        fs::write(&path, "{\n  \"model\": \"opus\",\n  \"edited\": true\n}\n").unwrap();
        Ok(child)
    })
    .unwrap()
    .wait_with_output()
    .unwrap();
    assert!(out.status.success());
    let v = read_json(&path);
    assert_eq!(
        v["edited"], true,
        "re-read under the lock: the edit survives: {v}"
    );
    assert_registered(&env, &v);
}

#[test]
fn two_concurrent_ons_register_each_hook_once() {
    let env = Env::new();
    fs::write(settings(&env), "{\n  \"model\": \"opus\"\n}\n").unwrap();
    let children: Vec<_> = (0..2)
        .map(|_| {
            spawn_toggle(&env, &["on"])
                .stdout(Stdio::null())
                .spawn()
                .unwrap()
        })
        .collect();
    for mut c in children {
        assert!(c.wait().unwrap().success());
    }
    let v = read_json(&settings(&env));
    assert_eq!(v["model"], "opus");
    assert_registered(&env, &v);
    // Both copied the binaries at once (unique temp names, rename): the result is whole and runs.
    let out = StdCommand::new(bin_dir(&env).join(exe("memory-store")))
        .arg("--version")
        .output()
        .unwrap();
    assert!(stdout(&out).starts_with("memory-store "));
    let leftovers: Vec<_> = fs::read_dir(bin_dir(&env))
        .unwrap()
        .flatten()
        .filter(|e| e.file_name().to_string_lossy().ends_with(".tmp"))
        .collect();
    assert!(leftovers.is_empty(), "{leftovers:?}");
}

#[test]
fn lock_serializes_toggles_and_a_locking_writer() {
    let env = Env::new();
    let path = settings(&env);
    fs::write(&path, "{}\n").unwrap();
    toggle_ok(&env, &["on"]); // install once, so the racing processes only edit
    let lock = path.with_file_name("settings.json.lock");
    const WRITES: usize = 40;
    // Two togglers, each `off` then `on` five times.
    let toggle_pairs = || {
        (0..5).all(|_| {
            ["off", "on"].iter().all(|arg| {
                StdCommand::new(crate::util::bin_path("reflect-toggle"))
                    .arg(arg)
                    .env_clear()
                    .env("HOME", &env.home)
                    .env("CLAUDE_CONFIG_DIR", &env.config)
                    .env("REFLECT_HOME", &env.data)
                    .stdout(Stdio::null())
                    .status()
                    .is_ok_and(|s| s.success())
            })
        })
    };
    std::thread::scope(|scope| {
        let togglers: Vec<_> = (0..2).map(|_| scope.spawn(toggle_pairs)).collect();
        for i in 0..WRITES {
            fsutil::with_lock(&lock, LockWait::CLI, &mut || {}, || {
                let mut v = read_json(&path);
                v.as_object_mut()
                    .unwrap()
                    .insert(format!("writer{i}"), json!(i));
                fsutil::atomic_write(
                    &path,
                    serde_json::to_string_pretty(&v).unwrap().as_bytes(),
                    0o644,
                )
            })
            .unwrap();
        }
        for t in togglers {
            assert!(t.join().unwrap());
        }
    });
    let v = read_json(&path);
    for i in 0..WRITES {
        assert_eq!(v[format!("writer{i}")], i, "writer's update {i} lost: {v}");
    }
    // Each toggler's last step was `on`, so whichever finished last left the hooks on, once each.
    assert_registered(&env, &v);
}

#[test]
fn help_version_and_usage_errors() {
    let env = Env::new();
    env.cmd("reflect-toggle")
        .arg("--help")
        .assert()
        .success()
        .stdout(predicate::str::contains("Usage: reflect-toggle"))
        .stdout(predicate::str::contains("--dry-run"));
    env.cmd("reflect-toggle")
        .arg("--version")
        .assert()
        .success()
        .stdout(predicate::str::starts_with("reflect-toggle "));
    env.cmd("reflect-toggle").arg("sideways").assert().code(2);
    env.cmd("reflect-toggle")
        .args(["on", "--frob"])
        .assert()
        .code(2);
}

// ---------------------------------------------------------------------------------------------
// Migration

/// A v1 section: v1's heading and a few lines of v1's template, as v1 wrote them.
const SECTION: &str = "## Self-Improvement\n\n### Cadence\n\n- One proposal at a time\n- Never interrupt the user's flow\n";

#[test]
fn v1_section_is_cut_and_nothing_else_changes() {
    let fence = "```md\n## Self-Improvement\ninside a fence\n```\n";
    let cases: Vec<(&str, String, String)> = vec![
        (
            "first",
            format!("{SECTION}## Style\nx  \n"),
            "## Style\nx  \n".into(),
        ),
        (
            "last",
            format!("# Me\n\nintro \n\n{SECTION}"),
            "# Me\n\nintro \n\n".into(),
        ),
        ("alone", SECTION.into(), String::new()),
        (
            "absent",
            "# Me\n## Style\n".into(),
            "# Me\n## Style\n".into(),
        ),
        (
            "similar headings stay",
            "## Self-Improvement Notes\na\n## Work\n### Self-Improvement\nb\n#Self-Improvement\n"
                .into(),
            "## Self-Improvement Notes\na\n## Work\n### Self-Improvement\nb\n#Self-Improvement\n"
                .into(),
        ),
        (
            "v1's subsections go with it",
            format!("# Me\n{SECTION}### How to propose\n\n### Cadence\n# Next\nkeep\n"),
            "# Me\n# Next\nkeep\n".into(),
        ),
        (
            "a fenced heading does not end it; the user's lines stay under its heading",
            format!("# Me\n{SECTION}### How to propose\n{fence}more\n# Next\nkeep\n"),
            format!("# Me\n## Self-Improvement\n\n{fence}more\n# Next\nkeep\n"),
        ),
        (
            "a fenced heading is not the section",
            format!("# Me\n{fence}"),
            format!("# Me\n{fence}"),
        ),
        (
            "CRLF",
            "# Me\r\n\r\n## Self-Improvement\r\n### Cadence \r\n\r\n## Other\r\nkeep\r\n".into(),
            "# Me\r\n\r\n## Other\r\nkeep\r\n".into(),
        ),
    ];
    for (name, before, after) in cases {
        let env = Env::new();
        let md = env.config.join("CLAUDE.md");
        fs::write(&md, &before).unwrap();
        let out = env.cmd("memory-store").arg("migrate").output().unwrap();
        assert!(out.status.success(), "{name}: {out:?}");
        assert_eq!(fs::read_to_string(&md).unwrap(), after, "{name}");
        let backups = || {
            fs::read_dir(env.data.join("backups"))
                .map(|d| {
                    d.flatten()
                        .filter(|e| e.file_name().to_string_lossy().contains("CLAUDE.md"))
                        .count()
                })
                .unwrap_or(0)
        };
        if before == after {
            assert!(!stdout(&out).contains("Self-Improvement"), "{name}");
            assert_eq!(backups(), 0, "{name}: no change, no backup");
        } else {
            let report = stdout(&out);
            assert!(
                report.contains("removed the v1 `## Self-Improvement` section")
                    || report.contains("removed v1's lines from the `## Self-Improvement` section"),
                "{report}"
            );
            assert!(report.contains("  - removed: ### Cadence"), "{report}");
            let backup_count = backups();
            assert_eq!(backup_count, 1, "{name}");
            let backup = fs::read_dir(env.data.join("backups"))
                .unwrap()
                .flatten()
                .next()
                .unwrap()
                .path();
            assert_eq!(
                fs::read_to_string(backup).unwrap(),
                before,
                "{name}: the backup is the old file"
            );
        }
        // A second run changes nothing.
        let quiet = fingerprint(&md);
        env.cmd("memory-store").arg("migrate").assert().success();
        assert_eq!(fingerprint(&md), quiet, "{name}: second run");
    }
}

#[test]
fn regression_v1_section_keeps_the_users_lines_and_shows_what_went() {
    let env = Env::new();
    let md = env.config.join("CLAUDE.md");
    fs::write(
        &md,
        format!("# Me\n\n{SECTION}- Always run `make fmt` before committing\n\n## Style\ntabs\n"),
    )
    .unwrap();
    let out = toggle_ok(&env, &["on"]);
    assert_eq!(
        fs::read_to_string(&md).unwrap(),
        "# Me\n\n## Self-Improvement\n\n- Always run `make fmt` before committing\n\n## Style\ntabs\n",
        "{out}"
    );
    for line in [
        "CLAUDE.md: removed v1's lines from the `## Self-Improvement` section (lines 3-10) of ",
        "  - removed: ### Cadence",
        "  - removed: - One proposal at a time",
        "  - removed: - Never interrupt the user's flow",
        "  1 line(s) you wrote there stay, under the heading:",
        "  - kept:    - Always run `make fmt` before committing",
    ] {
        assert!(out.contains(line), "{line:?} in:\n{out}");
    }
    // The user's lines are not v1's: a second `on` finds nothing to remove.
    let out = toggle_ok(&env, &["on"]);
    assert!(!out.contains("CLAUDE.md"), "{out}");
}

#[test]
fn on_migrates_claude_md_store_and_legacy_hooks() {
    let env = Env::new();
    fs::write(
        env.config.join("CLAUDE.md"),
        format!("# Me\n{SECTION}# Keep\n"),
    )
    .unwrap();
    fs::create_dir_all(&env.data).unwrap();
    let v2 = r#"{"ts":"2026-02-11T10:23:00Z","sid":"abc","type":"correction","context":"No, use pnpm not npm","turn":42}"#;
    fs::write(env.store(), format!("{v2}\n")).unwrap();
    fs::write(
        settings(&env),
        serde_json::to_string_pretty(&json!({"hooks": {"PreCompact": [{"hooks": [{"type": "command", "command": LEGACY_PRECOMPACT}]}]}})).unwrap(),
    )
    .unwrap();
    let out = toggle_ok(&env, &["on"]);
    assert!(out.contains("migrated 1 v2 signal"), "{out}");
    assert!(out.contains("removed the v1"), "{out}");
    assert!(
        out.contains(&format!("remove PreCompact: {LEGACY_PRECOMPACT}")),
        "{out}"
    );
    assert_eq!(
        fs::read_to_string(env.config.join("CLAUDE.md")).unwrap(),
        "# Me\n# Keep\n"
    );
    assert_eq!(env.store_lines()[0]["version"], 1);
    let v = read_json(&settings(&env));
    assert_registered(&env, &v);
    assert!(!commands(&v, "PreCompact").contains(&LEGACY_PRECOMPACT.to_string()));
    let out = toggle_ok(&env, &["on"]);
    assert!(
        !out.contains("migrated") && !out.contains("removed"),
        "{out}"
    );
}

#[test]
fn mixed_store_migrates_v2_lines_and_keeps_v1_lines_verbatim() {
    let env = Env::new();
    env.cmd("memory-store")
        .args([
            "append",
            r#"{"type":"correction","content":"Use pnpm, not npm","project":"/p"}"#,
        ])
        .assert()
        .success();
    env.cmd("memory-store")
        .args([
            "append",
            r#"{"type":"command","content":"Run make check before pushing","project":"/p"}"#,
        ])
        .assert()
        .success();
    let v1: Vec<String> = fs::read_to_string(env.store())
        .unwrap()
        .lines()
        .map(str::to_string)
        .collect();
    let v2a = r#"{"ts":"2026-02-11T10:23:00Z","sid":"abc","type":"correction","context":"No, use yarn","turn":4}"#;
    let v2b = r#"{"ts":"2026-02-12T08:00:00Z","sid":"def","type":"failure","context":"cargo test failed","turn":9}"#;
    fs::write(env.store(), format!("{v2a}\n{}\n{v2b}\n{}\n", v1[0], v1[1])).unwrap();
    env.cmd("memory-store")
        .arg("migrate")
        .assert()
        .success()
        .stdout(predicate::str::contains("migrated 2"));
    let text = fs::read_to_string(env.store()).unwrap();
    let lines: Vec<&str> = text.lines().collect();
    assert_eq!(lines.len(), 4);
    assert_eq!(lines[1], v1[0], "v1 lines are not rewritten");
    assert_eq!(lines[3], v1[1]);
    for l in [lines[0], lines[2]] {
        let v: Value = serde_json::from_str(l).unwrap();
        assert_eq!(v["version"], 1, "{l}");
        assert_eq!(v["status"], "captured");
    }
    let first = fingerprint(&env.store());
    env.cmd("memory-store")
        .arg("migrate")
        .assert()
        .success()
        .stdout(predicate::str::contains("migrated 0"));
    assert_eq!(
        fingerprint(&env.store()),
        first,
        "a second run writes nothing"
    );
}

#[test]
fn memory_store_migrate_replaces_legacy_hooks_only_with_installed_binaries() {
    let env = Env::new();
    let legacy = json!({"model": "opus", "hooks": {"PreCompact": [{"hooks": [{"type": "command", "command": LEGACY_PRECOMPACT}]}]}});
    fs::write(
        settings(&env),
        serde_json::to_string_pretty(&legacy).unwrap(),
    )
    .unwrap();
    let before = fingerprint(&settings(&env));
    let out = env.cmd("memory-store").arg("migrate").output().unwrap();
    assert!(out.status.success());
    assert!(
        stdout(&out).contains("1 legacy hook entry"),
        "{}",
        stdout(&out)
    );
    assert!(stdout(&out).contains("reflect-toggle on"));
    assert_eq!(
        fingerprint(&settings(&env)),
        before,
        "no binaries installed: settings untouched"
    );

    toggle_ok(&env, &["on"]);
    let mut v = read_json(&settings(&env));
    v["hooks"]["PreCompact"].as_array_mut().unwrap().insert(
        0,
        json!({"hooks": [{"type": "command", "command": LEGACY_PRECOMPACT}]}),
    );
    fs::write(settings(&env), serde_json::to_string_pretty(&v).unwrap()).unwrap();
    let out = env.cmd("memory-store").arg("migrate").output().unwrap();
    assert!(
        stdout(&out).contains("replaced 1 legacy hook entry"),
        "{}",
        stdout(&out)
    );
    let v = read_json(&settings(&env));
    assert_registered(&env, &v);
    assert_eq!(commands(&v, "PreCompact").len(), 1);
}

#[test]
fn doctor_judges_hooks_like_toggle_status() {
    let env = Env::new();
    let out = env.cmd("memory-store").arg("doctor").output().unwrap();
    assert!(stdout(&out).contains("capture is off"), "{}", stdout(&out));
    toggle_ok(&env, &["on"]);
    let out = env.cmd("memory-store").arg("doctor").output().unwrap();
    assert!(
        stdout(&out).contains("ok    hooks registered in"),
        "{}",
        stdout(&out)
    );
    remove_event(&env, "SessionStart");
    let out = env.cmd("memory-store").arg("doctor").output().unwrap();
    assert!(
        stdout(&out).contains("SessionStart hook missing"),
        "{}",
        stdout(&out)
    );
    fs::write(settings(&env), "{\"hooks\": {\"Stop\": 3}}").unwrap();
    let out = env.cmd("memory-store").arg("doctor").output().unwrap();
    assert_eq!(out.status.code(), Some(1));
    assert!(
        stdout(&out).contains("hooks.Stop is not an array"),
        "{}",
        stdout(&out)
    );
}
