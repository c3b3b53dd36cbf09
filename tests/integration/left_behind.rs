//! Nothing left behind (issue #22, part 5): what a killed writer, a `forget` or the toggle's
//! runner could leave under the config dir or the data dir, and what `doctor` says of it.

use std::fs;
use std::path::Path;

use crate::util::{dead_pid, stdout, Env};

fn doctor(env: &Env) -> String {
    stdout(&env.cmd("memory-store").arg("doctor").output().unwrap())
}

/// A SIGKILL of `reflect-toggle` between creating its temp file and renaming it left
/// `.settings.json.<pid>.<ns>.N.tmp` (a full copy of settings.json, `env` tokens included) in
/// the config dir forever, and doctor said nothing of it.
#[test]
fn regression_a_killed_settings_rewrite_leaves_no_copy_of_settings() {
    let env = Env::new();
    let settings = env.config.join("settings.json");
    let secret = "sk-ant-api03-leftbehindleftbehindleftbehind";
    fs::write(&settings, format!("{{\"env\":{{\"KEY\":\"{secret}\"}}}}\n")).unwrap();
    let dead = dead_pid();
    let live = std::process::id();
    let left = env
        .config
        .join(format!(".settings.json.{dead}.123456789.0.tmp"));
    // A live writer's temp, another file's temp and a name of another shape stay.
    let keep = [
        env.config.join(format!(".settings.json.{live}.5.0.tmp")),
        env.config.join(format!(".other.json.{dead}.5.0.tmp")),
        env.config.join(format!(".settings.json.{dead}.tmp")),
    ];
    for f in std::iter::once(&left).chain(&keep) {
        fs::copy(&settings, f).unwrap();
    }
    // A live writer holds its temp file open: what tells it alive on Windows, where a pid is not
    // asked (the platform's writer module).
    let _writing = fs::File::open(&keep[0]).unwrap();

    let report = doctor(&env);
    assert!(
        report.contains("interrupted rewrite of settings.json")
            && report.contains(&left.display().to_string()),
        "{report}"
    );
    for f in &keep {
        assert!(!report.contains(&f.display().to_string()), "{report}");
    }
    assert!(left.exists(), "doctor changes nothing");

    let out = env.cmd("reflect-toggle").arg("on").output().unwrap();
    assert!(out.status.success(), "{out:?}");
    assert!(!left.exists(), "the next toggle removes it");
    assert!(
        keep.iter().all(|f| f.exists()),
        "only stale temps of settings.json go"
    );
    assert!(!doctor(&env).contains("interrupted rewrite of settings.json"));
}

/// A `forget` killed while it rewrote a backup left the temp copy in `backups/`, never removed
/// and not reported.
#[test]
fn regression_a_killed_backup_rewrite_is_reported_and_swept() {
    let env = Env::new();
    let out = env.cmd("reflect-toggle").arg("on").output().unwrap();
    assert!(out.status.success(), "{out:?}");
    let backups = env.data.join("backups");
    let left = backups.join(format!(
        ".home-signals.jsonl.20260101T000000.000000Z.{}.9.0.tmp",
        dead_pid()
    ));
    fs::create_dir_all(&backups).unwrap();
    fs::write(&left, "{\"content\":\"forgotten text\"}\n").unwrap();
    let report = doctor(&env);
    assert!(report.contains(&left.display().to_string()), "{report}");
    // The next backup (here: of settings.json, by `off`) sweeps the dir it writes into.
    let out = env.cmd("reflect-toggle").arg("off").output().unwrap();
    assert!(out.status.success(), "{out:?}");
    assert!(!left.exists());
}

/// Claude Code's name for a project's transcript directory: the path with `/` and `.` as `-`.
fn claude_project_dir(project: &Path) -> String {
    flat(project, "")
}

/// `path` with every character but ASCII letters, digits and those of `keep` made a `-`: how
/// Claude Code names a project's transcript dir (`keep` empty) and reflect a backup (`._-`).
fn flat(path: &Path, keep: &str) -> String {
    path.display()
        .to_string()
        .chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || keep.contains(c) {
                c
            } else {
                '-'
            }
        })
        .collect()
}

/// Every file under `dir` (names and bytes) that holds `needle`.
fn holding(dir: &Path, needle: &str) -> Vec<String> {
    let mut found = Vec::new();
    let mut stack = vec![dir.to_path_buf()];
    while let Some(d) = stack.pop() {
        for e in fs::read_dir(&d).into_iter().flatten().flatten() {
            let p = e.path();
            if p.is_dir() {
                stack.push(p);
            } else {
                let bytes = fs::read(&p).unwrap_or_default();
                if p.display().to_string().contains(needle)
                    || String::from_utf8_lossy(&bytes).contains(needle)
                {
                    found.push(p.display().to_string());
                }
            }
        }
    }
    found.sort();
    found
}

fn hook(env: &Env, bin: &str, payload: &serde_json::Value) {
    let out = env
        .cmd(bin)
        .write_stdin(payload.to_string())
        .output()
        .unwrap();
    assert!(
        out.status.success() && out.stdout.is_empty(),
        "{bin}: {out:?}"
    );
}

/// The trial found `forget --project` left the project in 8 files: torn archive lines,
/// the quarantine, backups, the transcript path in errors.log. The whole data dir is searched for
/// the project's path (as written and as Claude Code names its transcript dir) and for the text
/// of each of its signals.
#[test]
fn regression_forget_project_leaves_no_trace_in_the_data_dir() {
    let env = Env::new();
    let p = env.dir.path().join("private.client-project");
    let q = env.dir.path().join("other-project");
    for d in [&p, &q] {
        fs::create_dir_all(d).unwrap();
    }
    let transcripts = env.config.join("projects").join(claude_project_dir(&p));
    fs::create_dir_all(&transcripts).unwrap();
    let demo = fs::read(crate::hooks::demo_transcript()).unwrap();
    let s = "5e1f0a2b-0000-4000-8000-00000000000a";
    let t = transcripts.join(format!("{s}.jsonl"));
    fs::write(&t, &demo).unwrap();
    let payload = |session: &str, transcript: &Path, cwd: &Path| {
        serde_json::json!({
            "session_id": session, "transcript_path": transcript, "cwd": cwd,
            "hook_event_name": "PreCompact", "trigger": "auto", "reason": "other",
        })
    };
    let failure = |session: &str, cwd: &Path, call: &str, what: &str| {
        let mut v = payload(session, &t, cwd);
        v["hook_event_name"] = "PostToolUseFailure".into();
        v["tool_name"] = "Bash".into();
        v["tool_input"] = serde_json::json!({"command": "make widgets"});
        v["tool_use_id"] = call.into();
        v["error"] = format!("Exit code 1\nerror: {what}: permission denied").into();
        v
    };
    hook(&env, "capture-signals", &payload(s, &t, &p));
    let private = "the zanzibar-widget cache of the client is cold";
    hook(
        &env,
        "capture-failure",
        &failure(s, &p, "toolu_p1", private),
    );
    hook(
        &env,
        "capture-failure",
        &failure("q-keep", &q, "toolu_q1", "the other cache is cold"),
    );
    // A run whose transcript cannot be read: the error log names it.
    let gone = transcripts.join("9f9f9f9f-0000-4000-8000-00000000000b.jsonl");
    hook(&env, "capture-signals", &payload("9f9f9f9f", &gone, &p));

    let store = env.store_lines();
    let of_p: Vec<&serde_json::Value> = store
        .iter()
        .filter(|v| v["project"] == p.display().to_string())
        .collect();
    assert!(of_p.len() >= 2, "{store:?}");
    let texts: Vec<String> = of_p
        .iter()
        .map(|v| v["content"].as_str().unwrap().to_string())
        .collect();
    let ids: Vec<String> = of_p
        .iter()
        .map(|v| v["id"].as_str().unwrap().to_string())
        .collect();
    // Promote one into the project's CLAUDE.md (learnings, a backup of the file).
    fs::write(p.join("CLAUDE.md"), "# Project\n").unwrap();
    let out = env
        .cmd("memory-store")
        .args(["promote", &ids[0], "--target"])
        .arg(p.join("CLAUDE.md"))
        .args(["--content", "Warm the widget cache before the tests"])
        .output()
        .unwrap();
    assert!(out.status.success(), "{out:?}");
    // Review: one to the archive, with torn copies in the archive and the store.
    let out = env
        .cmd("memory-store")
        .args(["dismiss", &ids[1]])
        .output()
        .unwrap();
    assert!(out.status.success(), "{out:?}");
    let out = env.cmd("memory-store").arg("archive").output().unwrap();
    assert!(out.status.success(), "{out:?}");
    let line = fs::read_to_string(env.store())
        .unwrap()
        .lines()
        .find(|l| l.contains(private))
        .unwrap()
        .to_string();
    let torn = &line[..line.find(private).unwrap() + 12];
    let append = |file: &Path, text: &str| {
        use std::io::Write;
        let mut f = fs::OpenOptions::new()
            .append(true)
            .create(true)
            .open(file)
            .unwrap();
        f.write_all(text.as_bytes()).unwrap();
    };
    append(&env.store(), &format!("{torn}\n"));
    let out = env.cmd("memory-store").arg("prune").output().unwrap();
    assert!(out.status.success(), "{out:?}");
    append(&env.data.join("signals.archive.jsonl"), torn);
    // A killed writer's copy of the store.
    fs::copy(
        env.store(),
        env.data
            .join(format!(".signals.jsonl.{}.1.0.tmp", dead_pid())),
    )
    .unwrap();

    // reflect's backups are named after the file's whole path.
    let backup_name = flat(&p, "._-").trim_start_matches('-').to_string();
    let needles: Vec<String> = [p.display().to_string(), claude_project_dir(&p), backup_name]
        .into_iter()
        .chain(texts.iter().cloned())
        .chain([private.to_string()])
        .collect();
    assert!(
        needles.iter().all(|n| !holding(&env.data, n).is_empty()),
        "every needle is there before forget"
    );
    let out = env
        .cmd("memory-store")
        .args(["forget", "--project"])
        .arg(&p)
        .output()
        .unwrap();
    assert!(out.status.success(), "{out:?}");
    for n in &needles {
        assert_eq!(holding(&env.data, n), Vec::<String>::new(), "{n:?} is left");
    }
    assert!(
        !holding(&env.data, "the other cache is cold").is_empty(),
        "another project's signals stay"
    );
}

/// Write Claude Code's record of installed plugins, listing `ids`, with an mtime of its own.
fn write_record(env: &Env, ids: &[&str], tick: u64) {
    let plugins: serde_json::Map<String, serde_json::Value> = ids
        .iter()
        .map(|id| {
            (
                id.to_string(),
                serde_json::json!([{"scope": "user", "version": "0.1.0"}]),
            )
        })
        .collect();
    let path = env.config.join("plugins/installed_plugins.json");
    fs::create_dir_all(path.parent().unwrap()).unwrap();
    fs::write(
        &path,
        serde_json::json!({"version": 2, "plugins": plugins}).to_string(),
    )
    .unwrap();
    let at =
        std::time::SystemTime::UNIX_EPOCH + std::time::Duration::from_secs(1_800_000_000 + tick);
    fs::File::options()
        .write(true)
        .open(&path)
        .unwrap()
        .set_modified(at)
        .unwrap();
}

/// `call` with its digits as letters.
fn spelled(call: &str) -> String {
    call.chars()
        .map(|c| match c.to_digit(10) {
            Some(d) => char::from(b'a' + d as u8),
            None => c,
        })
        .collect()
}

fn failure_payload(env: &Env, call: &str) -> serde_json::Value {
    serde_json::json!({
        "session_id": "s-plugin", "transcript_path": env.dir.path().join("t.jsonl"),
        "cwd": env.dir.path(), "hook_event_name": "PostToolUseFailure", "tool_name": "Bash",
        "tool_input": {"command": "make"}, "tool_use_id": call,
        // A fact of the environment (the failure hook keeps those), its own per call (a
        // failure's key drops words with digits: the call's are spelled out).
        "error": format!("Exit code 1\nerror: widget {} broke: permission denied", spelled(call)),
    })
}

/// `/plugin uninstall` while capture was on left the four hooks registered, capturing silently.
/// Capture turned on from an installed plugin is now turned off by the next hook once Claude
/// Code's record no longer lists the plugin, exactly as `reflect-toggle off` would; the hook logs
/// why and `doctor` says so. Capture turned on from a checkout is never touched.
#[test]
fn regression_an_uninstalled_plugin_turns_capture_off_at_the_next_hook() {
    let env = Env::new();
    let settings = env.config.join("settings.json");
    let before = "{\n  \"model\": \"opus\"\n}\n";
    fs::write(&settings, before).unwrap();
    let root = env
        .config
        .join("plugins/cache/reflect-mkt/self-improvement/0.1.0");
    fs::create_dir_all(&root).unwrap();
    write_record(&env, &["self-improvement@reflect-mkt", "other@x"], 1);
    let out = env
        .cmd("reflect-toggle")
        .arg("on")
        .env("REFLECT_PLUGIN_ROOT", &root)
        .output()
        .unwrap();
    assert!(out.status.success(), "{out:?}");
    assert!(env.data.join("plugin.json").exists());
    hook(&env, "capture-failure", &failure_payload(&env, "toolu_1"));
    assert_eq!(env.store_lines().len(), 1, "installed: captured");
    // Claude Code rewrites its record (another plugin installed): still listed, still captured.
    write_record(
        &env,
        &["self-improvement@reflect-mkt", "other@x", "third@y"],
        2,
    );
    hook(&env, "capture-failure", &failure_payload(&env, "toolu_2"));
    assert_eq!(env.store_lines().len(), 2);

    // `/plugin uninstall self-improvement@reflect-mkt`.
    write_record(&env, &["other@x", "third@y"], 3);
    hook(&env, "capture-failure", &failure_payload(&env, "toolu_3"));
    assert_eq!(
        env.store_lines().len(),
        2,
        "nothing captured once uninstalled"
    );
    assert_eq!(
        fs::read_to_string(&settings).unwrap(),
        before,
        "the hooks are gone, as `reflect-toggle off` leaves the file"
    );
    let log = fs::read_to_string(env.data.join("errors.log")).unwrap();
    assert!(
        log.contains("self-improvement@reflect-mkt was uninstalled")
            && log.contains("capture turned off"),
        "{log}"
    );
    let report = doctor(&env);
    assert!(
        report.contains("capture was turned off at")
            && report.contains("self-improvement@reflect-mkt was uninstalled"),
        "{report}"
    );
    // Further hook runs (say, from a settings file left elsewhere) do not repeat it.
    hook(&env, "capture-failure", &failure_payload(&env, "toolu_4"));
    assert_eq!(
        log,
        fs::read_to_string(env.data.join("errors.log")).unwrap()
    );
}

#[test]
fn capture_turned_on_from_a_checkout_is_never_turned_off_by_the_plugin_record() {
    let env = Env::new();
    let checkout = env.dir.path().join("src/reflect");
    fs::create_dir_all(&checkout).unwrap();
    write_record(&env, &["other@x"], 1);
    let out = env
        .cmd("reflect-toggle")
        .arg("on")
        .env("REFLECT_PLUGIN_ROOT", &checkout)
        .output()
        .unwrap();
    assert!(out.status.success(), "{out:?}");
    assert!(!env.data.join("plugin.json").exists());
    write_record(&env, &[], 2);
    hook(&env, "capture-failure", &failure_payload(&env, "toolu_1"));
    assert_eq!(env.store_lines().len(), 1);
    let text = fs::read_to_string(env.config.join("settings.json")).unwrap();
    assert!(text.contains("capture-failure"), "{text}");
}

/// The trial's own case: `reflect-toggle` SIGKILLed mid-rewrite, again and again. What the kills
/// left beside settings.json (full copies of it), the next toggle run removes, and settings.json
/// is whole.
#[test]
fn sigkilled_toggles_leave_no_copy_of_settings_after_the_next_run() {
    let env = Env::new();
    let settings = env.config.join("settings.json");
    // A large file widens the window between the temp file's creation and its rename.
    let big = "x".repeat(4 << 20);
    fs::write(&settings, format!("{{\"env\":{{\"PAD\":\"{big}\"}}}}\n")).unwrap();
    let temps = || -> Vec<String> {
        fs::read_dir(&env.config)
            .unwrap()
            .flatten()
            .map(|e| e.file_name().to_string_lossy().into_owned())
            .filter(|n| n.starts_with(".settings.json.") && n.ends_with(".tmp"))
            .collect()
    };
    // Each run is killed the moment its temp file appears (between its creation and its rename).
    let mut seen = 0;
    for i in 0..6u64 {
        let action = if i % 2 == 0 { "on" } else { "off" };
        let mut child = env.std_cmd("reflect-toggle").arg(action).spawn().unwrap();
        while child.try_wait().unwrap().is_none() {
            if !temps().is_empty() {
                let _ = child.kill();
            }
        }
        // (Each run sweeps what the run before it left: counted here, after each kill.)
        seen += temps().len();
    }
    assert!(seen > 0, "no kill landed in the window");
    let out = env.cmd("reflect-toggle").arg("status").output().unwrap();
    assert!(out.status.success(), "{out:?}");
    let out = env.cmd("reflect-toggle").arg("on").output().unwrap();
    assert!(out.status.success(), "{out:?}");
    assert_eq!(temps(), Vec::<String>::new(), "{seen} left by the kills");
    let v: serde_json::Value = serde_json::from_slice(&fs::read(&settings).unwrap()).unwrap();
    assert_eq!(v["env"]["PAD"].as_str().map(str::len), Some(4 << 20));
}
