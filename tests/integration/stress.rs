//! The store and settings.json under the load of issue #15's trials: hook runs racing rewrites and
//! toggle pairs, and SIGKILLs of rewrites and toggles. Nothing may be lost or torn.
//!
//! The counts are scaled for CI (a few minutes on two cores, debug binaries); `REFLECT_STRESS=full`
//! runs the figures (16 × 500 hook runs racing 360 rewrites and 196 toggle pairs; 306
//! SIGKILLs), best on release binaries: `REFLECT_TEST_BIN_DIR=target/release`.
//! (`memory_store::concurrent_appends_and_rewrites_lose_nothing` runs its 16 × 500 appends at
//! full scale always.)

use std::collections::HashMap;
use std::fs;
use std::process::{Command as Std, Stdio};
use std::time::Duration;

use serde_json::{json, Value};

use crate::util::{read_jsonl, spawn_fed, Env};

/// `ci` normally, `full` with `REFLECT_STRESS=full`.
fn scale(ci: usize, full: usize) -> usize {
    match std::env::var("REFLECT_STRESS").as_deref() {
        Ok("full") => full,
        _ => ci,
    }
}

/// One of our binaries, in `env`, with its output dropped.
fn cmd(env: &Env, bin: &str) -> Std {
    let mut c = env.std_cmd(bin);
    c.stdout(Stdio::null()).stderr(Stdio::null());
    c
}

fn run_ok(env: &Env, bin: &str, args: &[&str]) {
    let status = cmd(env, bin).args(args).status().unwrap();
    assert!(status.success(), "{bin} {args:?} failed");
}

/// A word for `n` without digits: the dedup key ignores numbers, and these must stay apart.
fn word(mut n: usize) -> String {
    let mut w = String::new();
    loop {
        w.push((b'a' + (n % 26) as u8) as char);
        n /= 26;
        if n == 0 {
            return w;
        }
    }
}

/// A store of `n` signals, so that a rewrite holds the lock long enough for hooks to wait on it.
fn seed(env: &Env, n: usize) -> String {
    let batch: String = (0..n)
        .map(|i| format!("{{\"type\":\"gotcha\",\"content\":\"seeded signal {i} with some text to make the line longer\"}}\n"))
        .collect();
    let mut child = spawn_fed(
        cmd(env, "memory-store").args(["append", "-"]),
        batch.as_bytes(),
    );
    assert!(child.wait().unwrap().success());
    read_jsonl(&env.store())[0]["id"]
        .as_str()
        .unwrap()
        .to_string()
}

fn settings(env: &Env) -> std::path::PathBuf {
    env.config.join("settings.json")
}

/// The settings parse, keep the user's key, and have our four hooks registered or none of them.
fn assert_settings_whole(env: &Env) -> bool {
    let text = fs::read_to_string(settings(env)).unwrap();
    let v: Value = serde_json::from_str(&text).unwrap_or_else(|e| panic!("{e}: {text}"));
    assert_eq!(v["model"], "opus", "the user's key is kept: {text}");
    // The bin dir as the file spells it (JSON-escaped: Windows' backslashes doubled).
    let bin = serde_json::to_string(&env.data.join("bin")).unwrap();
    let ours = text.matches(bin.trim_matches('"')).count();
    assert!(ours == 0 || ours == 4, "all four hooks or none: {text}");
    ours == 4
}

/// 16 workers × N PostToolUseFailure hook runs (each a distinct failure) race back-to-back
/// rewrites of a 20,000-signal store and `off`/`on` toggle pairs (whose migration takes the store
/// lock too). Every failure is stored exactly once, no line is torn, and the settings stay whole.
#[test]
fn hook_runs_racing_rewrites_and_toggle_pairs_lose_and_tear_nothing() {
    let env = Env::new();
    let (workers, runs) = (16, scale(40, 500));
    let (rewrites, toggle_pairs) = (scale(40, 360), scale(10, 196));
    fs::write(settings(&env), "{\n  \"model\": \"opus\"\n}\n").unwrap();
    run_ok(&env, "reflect-toggle", &["on"]); // installs the binaries once
    let first = seed(&env, 20_000);
    let project = env.dir.path().join("project");
    fs::create_dir_all(&project).unwrap();

    std::thread::scope(|scope| {
        for w in 0..workers {
            let (env, project) = (&env, &project);
            scope.spawn(move || {
                for i in 0..runs {
                    let payload = json!({
                        "session_id": format!("stress-{w}"),
                        "cwd": project,
                        "hook_event_name": "PostToolUseFailure",
                        "tool_name": "Bash",
                        "tool_input": {"command": "make"},
                        "tool_use_id": format!("toolu_{w}_{i}"),
                        "error": format!("Exit code 2\nerror: {} broke: permission denied", word(w * runs + i)),
                    });
                    let bytes = payload.to_string();
                    let mut child = spawn_fed(&mut cmd(env, "capture-failure"), bytes.as_bytes());
                    assert!(child.wait().unwrap().success(), "a hook exits 0");
                }
            });
        }
        let env = &env;
        let first = &first;
        scope.spawn(move || {
            for k in 0..rewrites {
                match k % 2 {
                    0 => run_ok(env, "memory-store", &["update", first, "--tag", &word(k)]),
                    _ => run_ok(env, "memory-store", &["prune"]),
                }
            }
        });
        scope.spawn(move || {
            for _ in 0..toggle_pairs {
                run_ok(env, "reflect-toggle", &["off"]);
                run_ok(env, "reflect-toggle", &["on"]);
            }
        });
    });
    // The next write folds in whatever a hook had to spool.
    run_ok(&env, "memory-store", &["prune"]);

    let lines = read_jsonl(&env.store()); // panics on a torn or invalid line
    let mut seen: HashMap<String, usize> = HashMap::new();
    for l in &lines {
        if let Some(c) = l["content"].as_str() {
            *seen.entry(c.to_string()).or_default() += 1;
        }
    }
    let mut lost = Vec::new();
    for n in 0..workers * runs {
        match seen.get(&format!(
            "Bash failed: error: {} broke: permission denied",
            word(n)
        )) {
            Some(1) => {}
            Some(k) => panic!("failure {n} stored {k} times"),
            None => lost.push(n),
        }
    }
    let log = fs::read_to_string(env.data.join("errors.log")).unwrap_or_default();
    assert!(
        lost.is_empty(),
        "lost {} of {}: {log}",
        lost.len(),
        workers * runs
    );
    assert_eq!(
        lines.len(),
        20_000 + workers * runs,
        "nothing else was added"
    );
    assert_eq!(
        fs::read_dir(env.data.join("pending")).map_or(0, |d| d.count()),
        0,
        "the spool is folded"
    );
    assert!(assert_settings_whole(&env), "the last toggle was on");
}

/// Rewrites and toggles killed with SIGKILL at random points: the store always parses and holds
/// every signal acknowledged before, settings.json is always whole (ours all there or none, the
/// user's key kept), and the temp files the kills leave are removed by the next rewrite.
#[test]
fn killed_rewrites_and_toggles_lose_nothing_and_leave_no_partial_settings() {
    let env = Env::new();
    let rounds = scale(40, 306);
    fs::write(settings(&env), "{\n  \"model\": \"opus\"\n}\n").unwrap();
    run_ok(&env, "reflect-toggle", &["on"]);
    let target = seed(&env, 20_000);
    let ids = |env: &Env| -> Vec<String> {
        read_jsonl(&env.store())
            .iter()
            .filter_map(|l| l["id"].as_str().map(str::to_string))
            .collect()
    };
    let mut acknowledged: std::collections::HashSet<String> = ids(&env).into_iter().collect();
    let mut rng: u64 = 0x2545_f491_4f6c_dd1d;
    let mut killed_mid_run = 0;
    for round in 0..rounds {
        let content = format!("acknowledged in round {}", word(round));
        let out = cmd(&env, "memory-store")
            .args([
                "append",
                &json!({"type": "gotcha", "content": content}).to_string(),
            ])
            .stdout(Stdio::piped())
            .output()
            .unwrap();
        assert!(out.status.success());
        let id = String::from_utf8_lossy(&out.stdout)
            .split_whitespace()
            .find(|w| w.starts_with("SIG-"))
            .map(str::to_string)
            .expect("append prints the new id");
        acknowledged.insert(id);
        rng ^= rng << 13;
        rng ^= rng >> 7;
        rng ^= rng << 17;
        let (bin, args): (&str, Vec<String>) = match round % 4 {
            0 => (
                "memory-store",
                vec!["update".into(), target.clone(), "--tag".into(), word(round)],
            ),
            1 => ("memory-store", vec!["prune".into()]),
            2 => ("reflect-toggle", vec!["off".into()]),
            _ => ("reflect-toggle", vec!["on".into()]),
        };
        let mut child = cmd(&env, bin).args(&args).spawn().unwrap();
        std::thread::sleep(Duration::from_micros(rng % 80_000));
        if child.try_wait().unwrap().is_none() {
            killed_mid_run += 1;
        }
        let _ = child.kill(); // SIGKILL
        let _ = child.wait();
        let present: std::collections::HashSet<String> = ids(&env).into_iter().collect(); // every line parses
        let missing = acknowledged.difference(&present).count();
        assert_eq!(
            missing, 0,
            "round {round} ({bin} {args:?}): lost {missing} signals"
        );
        assert_settings_whole(&env);
    }
    assert!(
        killed_mid_run >= rounds / 4,
        "the kills must land mid-run (got {killed_mid_run} of {rounds})"
    );
    // The next rewrite clears what the kills left in the data dir.
    run_ok(&env, "memory-store", &["prune"]);
    let leftovers: Vec<String> = fs::read_dir(&env.data)
        .unwrap()
        .flatten()
        .map(|e| e.file_name().to_string_lossy().into_owned())
        .filter(|n| n.starts_with(".signals") && n.ends_with(".tmp"))
        .collect();
    assert!(leftovers.is_empty(), "{leftovers:?}");
}
