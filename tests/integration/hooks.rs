//! The four hooks as Claude Code runs them: every bad payload and hostile transcript ends in a
//! quick, silent exit 0 with the problem in errors.log; cursors make the capture hooks read each
//! line once, even when many run at once; the per-project opt-out silences all of them.

use std::collections::HashSet;
use std::fs;
use std::io::Write;
use std::path::{Path, PathBuf};
#[cfg(unix)]
use std::process::Command as Std;
use std::process::{Output, Stdio};
use std::time::{Duration, Instant};

use serde_json::{json, Value};

#[cfg(unix)]
use crate::util::mkfifo;
use crate::util::{abs, read_jsonl, shared, spawn_fed, stdout, transcript_entry, Env};

pub const HOOKS: [&str; 4] = [
    "capture-signals",
    "capture-session-summary",
    "capture-failure",
    "inject-signals",
];

/// Wall-time bound of one hook run. The contract is 50 ms for the release binaries; the tests run
/// debug builds (unoptimized serde/regex, ~10x slower) on a shared 2-core machine, so they allow
/// ten times that. A hang (FIFO, /dev/zero) would blow either bound by far.
pub fn hook_bound() -> Duration {
    if debug_binaries() {
        Duration::from_millis(500)
    } else {
        Duration::from_millis(50)
    }
}

/// Whether the binaries under test are unoptimized: this build's in a debug build, unless
/// `REFLECT_TEST_BIN_DIR` points at release binaries (scripts/test runs the suite on dist/ too).
fn debug_binaries() -> bool {
    cfg!(debug_assertions) && std::env::var_os("REFLECT_TEST_BIN_DIR").is_none()
}

pub fn demo_transcript() -> PathBuf {
    crate::util::repo().join("examples/demo-transcript.jsonl")
}

/// Run a hook binary with `stdin`, timing the whole process.
pub fn run_hook(env: &Env, bin: &str, stdin: &[u8]) -> (Output, Duration) {
    let mut cmd = env.cmd(bin);
    cmd.write_stdin(stdin.to_vec());
    let start = Instant::now();
    let out = cmd.output().expect("hook runs");
    (out, start.elapsed())
}

/// Wall time of `bin --version` now: the cost of starting a process on this machine at this load.
fn startup_cost(env: &Env, bin: &str) -> Duration {
    let start = Instant::now();
    let out = env.cmd(bin).arg("--version").output().unwrap();
    assert!(out.status.success());
    start.elapsed()
}

/// The hook exited 0 and printed nothing (inject-signals: nothing or one JSON object).
pub fn assert_silent_success(bin: &str, out: &Output, case: &str) {
    assert!(
        out.status.success(),
        "{bin} [{case}]: exit {:?}, stderr {}",
        out.status.code(),
        String::from_utf8_lossy(&out.stderr)
    );
    let text = stdout(out);
    if bin == "inject-signals" && !text.is_empty() {
        let v: Value = serde_json::from_str(text.trim_end())
            .unwrap_or_else(|e| panic!("{bin} [{case}]: stdout is not one JSON object: {e}"));
        assert!(v["hookSpecificOutput"]["additionalContext"].is_string());
        assert_eq!(text.trim_end().lines().count(), 1);
    } else {
        assert!(text.is_empty(), "{bin} [{case}]: printed {text:?}");
    }
}

fn error_log(env: &Env) -> String {
    fs::read_to_string(env.data.join("errors.log")).unwrap_or_default()
}

/// Lines of the store that are signals (not recurrence records).
pub fn signals(env: &Env) -> Vec<Value> {
    env.store_lines()
        .into_iter()
        .filter(|v| v.get("id").is_some() && v.get("recur").is_none())
        .collect()
}

fn payload(session: &str, transcript: &Path, cwd: &Path, event: &str) -> Value {
    json!({
        "session_id": session,
        "transcript_path": transcript,
        "cwd": cwd,
        "hook_event_name": event,
        "trigger": "auto",
        "reason": "other",
        "source": "compact",
        "tool_name": "Bash",
        "tool_input": {"command": "false"},
        "tool_use_id": format!("toolu_{session}"),
        "error": "Exit code 1",
        "is_interrupt": false
    })
}

fn project(env: &Env) -> PathBuf {
    let p = env.dir.path().join("project");
    fs::create_dir_all(&p).unwrap();
    p
}

/// A transcript in the env's temp dir with `text`.
fn transcript_with(env: &Env, name: &str, text: &[u8]) -> PathBuf {
    let p = env.dir.path().join(name);
    fs::write(&p, text).unwrap();
    p
}

fn demo_text() -> String {
    fs::read_to_string(demo_transcript()).unwrap()
}

/// The 1-based line of the demo transcript whose user prompt starts with `prefix`.
fn demo_line_of(prefix: &str) -> u64 {
    demo_text()
        .lines()
        .position(|l| {
            let v: Value = serde_json::from_str(l).unwrap();
            v["message"]["content"]
                .as_str()
                .is_some_and(|c| c.starts_with(prefix))
        })
        .map(|i| i as u64 + 1)
        .unwrap_or_else(|| panic!("demo has a prompt starting {prefix:?}"))
}

// ---------------------------------------------------------------------------------------------
// Bad payloads and hostile transcripts

/// Whether a case must leave a note in errors.log for a given hook.
#[derive(Clone, Copy)]
enum Log {
    /// Every hook notes it (the payload cannot be read at all).
    All,
    /// The transcript hooks note it (they need a readable transcript_path).
    Capture,
    /// A transcript that does not exist: PreCompact notes it; SessionEnd ends quietly (Claude
    /// Code ends sessions that never wrote one, `claude plugin update` does).
    Compaction,
    /// No note required.
    No,
}

struct Case {
    name: &'static str,
    stdin: Vec<u8>,
    log: Log,
}

/// Special files as the transcript, Unix's: a FIFO that never ends, a device, a file without read
/// permission.
#[cfg(unix)]
fn unix_special_transcripts(env: &Env, with: &dyn Fn(&Path) -> String, cases: &mut Vec<Case>) {
    use std::os::unix::fs::PermissionsExt;
    let fifo = env.dir.path().join("fifo.jsonl");
    let made = Std::new("mkfifo").arg(&fifo).status().expect("mkfifo runs");
    assert!(made.success());
    cases.push(Case {
        name: "transcript is a FIFO that never ends",
        stdin: with(&fifo).into_bytes(),
        log: Log::Capture,
    });
    cases.push(Case {
        name: "transcript is /dev/zero",
        stdin: with(Path::new("/dev/zero")).into_bytes(),
        log: Log::Capture,
    });
    let locked = transcript_with(env, "locked.jsonl", demo_text().as_bytes());
    fs::set_permissions(&locked, fs::Permissions::from_mode(0o000)).unwrap();
    // As root, mode 000 does not stop reads: then the hook reads it and has nothing to report.
    let readable_anyway = fs::File::open(&locked).is_ok();
    cases.push(Case {
        name: "transcript unreadable (mode 000)",
        stdin: with(&locked).into_bytes(),
        log: if readable_anyway {
            Log::No
        } else {
            Log::Capture
        },
    });
}

#[cfg(not(unix))]
fn unix_special_transcripts(_: &Env, _: &dyn Fn(&Path) -> String, _: &mut Vec<Case>) {}

/// Special files as the transcript, Windows': the console, the null device and a named pipe, which
/// a read would wait on or which are no file at all.
#[cfg(windows)]
fn windows_special_transcripts(with: &dyn Fn(&Path) -> String, cases: &mut Vec<Case>) {
    // A pipe nobody serves does not exist: SessionEnd ends quietly on it, as on any missing file.
    for (name, path, log) in [
        ("transcript is CON (the console)", r"CON", Log::Capture),
        ("transcript is NUL", r"NUL", Log::Capture),
        (
            "transcript is NUL in a directory",
            r"C:\Windows\NUL",
            Log::Capture,
        ),
        (
            "transcript is a named pipe",
            r"\\.\pipe\reflect-no-such-pipe",
            Log::Compaction,
        ),
    ] {
        cases.push(Case {
            name,
            stdin: with(Path::new(path)).into_bytes(),
            log,
        });
    }
}

#[cfg(not(windows))]
fn windows_special_transcripts(_: &dyn Fn(&Path) -> String, _: &mut Vec<Case>) {}

fn bad_payload_cases(env: &Env) -> Vec<Case> {
    let proj = project(env);
    let good_transcript = transcript_with(env, "good.jsonl", demo_text().as_bytes());
    let with = |transcript: &Path| payload("s-bad", transcript, &proj, "PreCompact").to_string();
    let mut cases = vec![
        Case {
            name: "empty",
            stdin: vec![],
            log: Log::All,
        },
        Case {
            name: "whitespace",
            stdin: b"  \n".to_vec(),
            log: Log::All,
        },
        Case {
            name: "not JSON",
            stdin: b"this is not json".to_vec(),
            log: Log::All,
        },
        Case {
            name: "truncated JSON",
            stdin: with(&good_transcript).as_bytes()[..40].to_vec(),
            log: Log::All,
        },
        Case {
            name: "JSON array",
            stdin: b"[{\"session_id\":\"s\"}]".to_vec(),
            log: Log::All,
        },
        Case {
            name: "JSON string",
            stdin: b"\"PreCompact\"".to_vec(),
            log: Log::All,
        },
        Case {
            name: "missing fields",
            stdin: b"{}".to_vec(),
            log: Log::Capture,
        },
        Case {
            name: "null fields",
            stdin: json!({"session_id": null, "transcript_path": null, "cwd": null,
                "tool_name": null, "tool_input": null, "error": null, "hook_event_name": null})
            .to_string()
            .into_bytes(),
            log: Log::Capture,
        },
        Case {
            name: "wrong types",
            stdin: json!({"session_id": 7, "transcript_path": ["a"], "cwd": {"x": 1},
                "tool_name": false, "tool_input": "x", "error": 3, "is_interrupt": "no",
                "hook_event_name": 1.5})
            .to_string()
            .into_bytes(),
            log: Log::Capture,
        },
        Case {
            name: "NUL byte raw",
            stdin: format!("{{\"session_id\":\"a\0b\",\"transcript_path\":\"{}\"}}", good_transcript.display()).into_bytes(),
            log: Log::All,
        },
        Case {
            name: "NUL byte escaped in path",
            stdin: json!({"session_id": "s-nul", "transcript_path": "/tmp/a\u{0}b.jsonl", "cwd": proj})
                .to_string()
                .into_bytes(),
            log: Log::Capture,
        },
        Case {
            name: "invalid UTF-8",
            stdin: [
                &b"{\"session_id\":\"s-\xff\xfe\",\"transcript_path\":\"/tmp/\xff.jsonl\",\"cwd\":\""[..],
                proj.to_string_lossy().as_bytes(),
                b"\",\"tool_name\":\"Bash\",\"error\":\"bad \xc3\x28\"}",
            ]
            .concat(),
            log: Log::Compaction,
        },
        Case {
            name: "10 MB payload",
            stdin: {
                let mut v = payload("s-big", &good_transcript, &proj, "PreCompact");
                v["error"] = Value::from("E".repeat(10 << 20));
                v.to_string().into_bytes()
            },
            log: Log::No,
        },
        Case {
            name: "17 MB payload (over the limit)",
            stdin: vec![b' '; 17 << 20],
            log: Log::All,
        },
    ];

    // Hostile transcripts behind an otherwise good payload.
    let missing = env.dir.path().join("no-such.jsonl");
    cases.push(Case {
        name: "transcript missing",
        stdin: with(&missing).into_bytes(),
        log: Log::Compaction,
    });
    cases.push(Case {
        name: "transcript is a directory",
        stdin: with(env.dir.path()).into_bytes(),
        log: Log::Capture,
    });
    unix_special_transcripts(env, &with, &mut cases);
    windows_special_transcripts(&with, &mut cases);
    let mut garbage = Vec::with_capacity(256 * 1024);

    let mut x: u32 = 0x9e37_79b9;
    for _ in 0..256 * 1024 {
        x ^= x << 13;
        x ^= x >> 17;
        x ^= x << 5;
        garbage.push((x >> 24) as u8);
    }
    let garbage = transcript_with(env, "garbage.jsonl", &garbage);
    cases.push(Case {
        name: "transcript is binary garbage",
        stdin: with(&garbage).into_bytes(),
        log: Log::No,
    });
    let text = demo_text();
    let torn = transcript_with(env, "torn.jsonl", &text.as_bytes()[..text.len() * 2 / 3]);
    cases.push(Case {
        name: "transcript truncated mid-line",
        stdin: with(&torn).into_bytes(),
        log: Log::No,
    });
    cases
}

#[test]
fn bad_payloads_and_hostile_transcripts_end_in_a_quick_silent_exit_0_for_every_hook() {
    let bound = hook_bound();
    for bin in HOOKS {
        let env = Env::new();
        for case in bad_payload_cases(&env) {
            let before = error_log(&env);
            let (out, took) = run_hook(&env, bin, &case.stdin);
            assert_silent_success(bin, &out, case.name);
            // A 10 MB payload is parsed whole: unoptimized code needs ~0.3 s for it on an idle
            // machine and was seen taking 18 s while the whole suite ran beside other builds, so
            // on debug binaries this bound only catches a hang (a hang is killed at the harness's
            // 60 s timeout). On release binaries (the run on dist/) the megabytes still cross a
            // pipe from this process, which a loaded machine slows (17 MB once took 64 ms against
            // 55): four times the bound there. What they really cost is scripts/bench's row.
            let allowed = match (case.stdin.len() > 1 << 20, debug_binaries()) {
                (true, true) => Duration::from_secs(45),
                (true, false) => bound * 4,
                (false, _) => bound,
            };
            // A hang exceeds the bound every time; a loaded machine (the tests share 2 cores with
            // builds and with each other) only now and then. So a slow run is retried, the fastest
            // run counts, and the bound grows by what merely starting the binary costs right now.
            let mut fastest = took;
            let mut allowed = allowed;
            for _ in 0..2 {
                if fastest < allowed {
                    break;
                }
                allowed += startup_cost(&env, bin) * 2;
                let (again, took) = run_hook(&env, bin, &case.stdin);
                assert_silent_success(bin, &again, case.name);
                fastest = fastest.min(took);
            }
            assert!(
                fastest < allowed,
                "{bin} [{}]: took {fastest:?} (bound {allowed:?})",
                case.name
            );
            // read_jsonl panics on any invalid line.
            let _ = read_jsonl(&env.store());
            let logged = error_log(&env).len() > before.len();
            let must_log = match case.log {
                Log::All => true,
                Log::Capture => bin.starts_with("capture-") && bin != "capture-failure",
                Log::Compaction => bin == "capture-signals",
                Log::No => false,
            };
            if must_log {
                assert!(logged, "{bin} [{}]: nothing in errors.log", case.name);
            }
            assert!(
                !error_log(&env).contains("internal error"),
                "{bin} [{}] panicked: {}",
                case.name,
                error_log(&env)
            );
        }
    }
}

// ---------------------------------------------------------------------------------------------
// Real payloads

/// Every real payload file: (event, path).
fn real_payloads() -> Vec<(String, PathBuf)> {
    let mut files = Vec::new();
    let mut dirs = vec![shared("corpus/payloads")];
    if let Ok(entries) = fs::read_dir(shared("reference/payloads")) {
        dirs.extend(entries.flatten().map(|e| e.path()).filter(|p| p.is_dir()));
    }
    for dir in dirs {
        for e in fs::read_dir(&dir).unwrap().flatten() {
            let p = e.path();
            if p.extension().is_some_and(|x| x == "json") {
                let v: Value = serde_json::from_slice(&fs::read(&p).unwrap()).unwrap();
                let event = v["hook_event_name"]
                    .as_str()
                    .unwrap_or_default()
                    .to_string();
                files.push((event, p));
            }
        }
    }
    files.sort();
    assert!(
        files.len() >= 15,
        "real payloads under ../shared: {files:?}"
    );
    files
}

fn hook_for(event: &str) -> Option<&'static str> {
    Some(match event {
        "PreCompact" => "capture-signals",
        "SessionEnd" => "capture-session-summary",
        "PostToolUseFailure" => "capture-failure",
        "SessionStart" => "inject-signals",
        _ => return None,
    })
}

#[test]
fn real_payloads_are_accepted_by_their_hooks() {
    let mut ran = HashSet::new();
    for (event, file) in real_payloads() {
        let Some(bin) = hook_for(&event) else {
            continue;
        };
        let env = Env::new();
        let proj = project(&env);
        let mut p: Value = serde_json::from_slice(&fs::read(&file).unwrap()).unwrap();
        let session = p["session_id"].as_str().unwrap().to_string();
        // The payload's own paths are on its author's machine: point them at temp copies.
        let transcript = transcript_with(&env, &format!("{session}.jsonl"), demo_text().as_bytes());
        p["transcript_path"] = json!(transcript);
        p["cwd"] = json!(proj);
        if bin == "inject-signals" {
            // Something to inject: what PreCompact captured in this session.
            let (out, _) = run_hook(&env, "capture-signals", p.to_string().as_bytes());
            assert_silent_success("capture-signals", &out, "seed");
        }
        let (out, _) = run_hook(&env, bin, p.to_string().as_bytes());
        let name = file.display().to_string();
        assert_silent_success(bin, &out, &name);
        assert_eq!(error_log(&env), "", "{bin} [{name}] logged a problem");
        let stored = signals(&env);
        assert!(
            stored.iter().all(|s| s["session_id"] == session.as_str()),
            "{name}: signals belong to the payload's session"
        );
        match bin {
            "capture-signals" => assert!(
                stored.iter().any(|s| s["type"] == "correction"),
                "{name}: the demo's correction was captured"
            ),
            "capture-session-summary" => assert_eq!(
                stored.iter().filter(|s| s["type"] == "summary").count(),
                1,
                "{name}: one summary"
            ),
            // Of the real failures, only the unknown sub-agent type says what went wrong; the
            // others are protocol errors of Claude Code's tools (a missing file, a read too
            // large) or a command whose output holds no error (`ls` printing a link).
            "capture-failure" if name.contains("PostToolUseFailure__Task__") => {
                assert_eq!(stored.len(), 1, "{name}: one failure signal");
                let content = stored[0]["content"].as_str().unwrap();
                assert!(
                    content.starts_with("Task failed: Agent type 'project-architect' not found."),
                    "{name}: the error line: {content}"
                );
            }
            "capture-failure" => assert_eq!(stored.len(), 0, "{name}: no signal: {stored:?}"),
            _ => {
                let text = stdout(&out);
                if p["source"] == "compact" {
                    assert!(
                        text.contains("pnpm"),
                        "{name}: injected the captured correction: {text}"
                    );
                }
            }
        }
        ran.insert(bin);
    }
    assert_eq!(ran.len(), 4, "a real payload for every hook: {ran:?}");
}

// ---------------------------------------------------------------------------------------------
// Concurrency

#[test]
fn many_hooks_at_once_leave_an_intact_store_with_no_duplicate_signal() {
    let env = Env::new();
    let proj = project(&env);
    let transcript = transcript_with(&env, "s-race.jsonl", demo_text().as_bytes());
    let capture = payload("s-race", &transcript, &proj, "PreCompact").to_string();

    // The reference: what one run stores.
    let solo = Env::new();
    let solo_transcript = transcript_with(&solo, "s-race.jsonl", demo_text().as_bytes());
    let (out, _) = run_hook(
        &solo,
        "capture-signals",
        payload("s-race", &solo_transcript, &project(&solo), "PreCompact")
            .to_string()
            .as_bytes(),
    );
    assert_silent_success("capture-signals", &out, "solo");
    let key = |s: &Value| format!("{}|{}|{}", s["type"], s["source"]["line"], s["content"]);
    let mut expected: Vec<String> = signals(&solo).iter().map(key).collect();
    expected.sort();
    assert!(!expected.is_empty());

    let mut jobs: Vec<(&str, String)> = (0..16)
        .map(|_| ("capture-signals", capture.clone()))
        .collect();
    for i in 0..4 {
        let mut p = payload("s-race", &transcript, &proj, "PostToolUseFailure");
        p["tool_use_id"] = json!(format!("toolu_race_{i}"));
        p["error"] = json!(format!(
            "Exit code 1\nerror: race {i} lost: permission denied"
        ));
        jobs.push(("capture-failure", p.to_string()));
    }
    let children: Vec<_> = jobs
        .iter()
        .map(|(bin, stdin)| {
            let mut cmd = env.std_cmd(bin);
            cmd.stdout(Stdio::piped()).stderr(Stdio::piped());
            (bin, spawn_fed(&mut cmd, stdin.as_bytes()))
        })
        .collect();
    for (bin, child) in children {
        let out = child.wait_with_output().unwrap();
        assert_silent_success(bin, &out, "concurrent");
    }

    let lines = env.store_lines(); // panics on a torn or invalid line
    let stored = signals(&env);
    let ids: HashSet<_> = stored.iter().map(|s| s["id"].clone()).collect();
    assert_eq!(ids.len(), stored.len(), "ids are unique");
    let mut mined: Vec<String> = stored
        .iter()
        .filter(|s| s["source"]["hook"] == "PreCompact")
        .map(key)
        .collect();
    mined.sort();
    assert_eq!(mined, expected, "16 racing runs store what one run stores");
    let failures = stored
        .iter()
        .filter(|s| s["source"]["hook"] == "PostToolUseFailure")
        .count();
    let recurrences = lines.iter().filter(|l| l.get("recur").is_some()).count();
    // The four failures say the same thing in one session, with no turn to tell them apart: one
    // episode, one signal, whichever run came first.
    assert_eq!(
        (failures, recurrences),
        (1, 0),
        "one episode of the session is one sighting"
    );
    let cursor: Value =
        serde_json::from_slice(&fs::read(env.data.join("cursors/s-race.json")).unwrap()).unwrap();
    assert_eq!(cursor["offset"], json!(demo_text().len()));
}

/// Hold the store lock of `env` as a rewrite does, for `hold`, in a thread; the returned handle
/// ends when the lock is released. Returns once the lock is held.
pub fn hold_store_lock(env: &Env, hold: Duration) -> std::thread::JoinHandle<()> {
    fs::create_dir_all(&env.data).unwrap();
    let lock = fs::OpenOptions::new()
        .create(true)
        .truncate(false)
        .write(true)
        .open(env.data.join("signals.lock"))
        .unwrap();
    let (held, is_held) = std::sync::mpsc::channel();
    let holder = std::thread::spawn(move || {
        let mut lock = fd_lock::RwLock::new(lock);
        let _guard = lock.write().unwrap();
        held.send(()).unwrap();
        std::thread::sleep(hold);
    });
    is_held.recv().unwrap();
    holder
}

/// A hook that waited more than 1 s for the lock dropped its signal (0.5% of failures were lost
/// under back-to-back rewrites of a 50k store). Now it spools them and the next write folds them
/// in: hooks racing a rewrite that holds the lock for longer than they wait lose nothing.
#[test]
fn regression_hooks_racing_a_long_rewrite_lose_nothing() {
    let env = Env::new();
    let proj = project(&env);
    let transcript = transcript_with(&env, "s-spool.jsonl", demo_text().as_bytes());
    let rewrite = hold_store_lock(&env, Duration::from_millis(1500));
    let mut runs = vec![(
        "capture-signals",
        payload("s-spool", &transcript, &proj, "PreCompact"),
    )];
    for i in 0..3 {
        let mut p = payload("s-spool", &transcript, &proj, "PostToolUseFailure");
        p["tool_use_id"] = json!(format!("toolu_spool_{i}"));
        p["error"] = json!(format!(
            "Exit code 1\nerror: {} went wrong: permission denied",
            ["disk", "net", "auth"][i]
        ));
        runs.push(("capture-failure", p));
    }
    let children: Vec<_> = runs
        .iter()
        .map(|(bin, p)| {
            let mut cmd = env.std_cmd(bin);
            cmd.stdout(Stdio::piped()).stderr(Stdio::piped());
            (bin, spawn_fed(&mut cmd, p.to_string().as_bytes()))
        })
        .collect();
    for (bin, child) in children {
        let out = child.wait_with_output().unwrap();
        assert_silent_success(bin, &out, "racing a long rewrite");
    }
    rewrite.join().unwrap();
    let doctor = stdout(&env.cmd("memory-store").arg("doctor").output().unwrap());
    assert!(
        doctor.contains("4 batch(es) of signals wait in"),
        "{doctor}"
    );
    // The next write (here the prune /reflect ends with) folds the spool in.
    env.cmd("memory-store").arg("prune").assert().success();
    let stored = signals(&env);
    for what in ["disk", "net", "auth"] {
        assert!(
            stored.iter().any(|s| s["content"]
                == format!("Bash failed: error: {what} went wrong: permission denied")),
            "lost the {what} failure; log: {}",
            error_log(&env)
        );
    }
    let solo = Env::new();
    let t = transcript_with(&solo, "s-spool.jsonl", demo_text().as_bytes());
    let p = payload("s-spool", &t, &project(&solo), "PreCompact").to_string();
    let (out, _) = run_hook(&solo, "capture-signals", p.as_bytes());
    assert_silent_success("capture-signals", &out, "solo");
    let mined = |env: &Env| -> Vec<String> {
        let mut v: Vec<String> = signals(env)
            .iter()
            .filter(|s| s["source"]["hook"] == "PreCompact")
            .map(|s| format!("{}|{}", s["source"]["line"], s["content"]))
            .collect();
        v.sort();
        v
    };
    assert_eq!(mined(&env), mined(&solo), "the mined signals are all there");
    let cursor: Value =
        serde_json::from_slice(&fs::read(env.data.join("cursors/s-spool.json")).unwrap()).unwrap();
    assert_eq!(
        cursor["offset"],
        json!(demo_text().len()),
        "the cursor moved on"
    );
    assert_eq!(
        fs::read_dir(env.data.join("pending")).unwrap().count(),
        0,
        "the spool is folded"
    );
}

// ---------------------------------------------------------------------------------------------
// Opt-out

#[test]
fn a_project_with_reflect_off_is_never_captured_by_any_hook() {
    let env = Env::new();
    let proj = project(&env);
    let transcript = transcript_with(&env, "s-off.jsonl", demo_text().as_bytes());

    // Control: without the marker, every hook does its work.
    for bin in ["capture-signals", "capture-failure", "inject-signals"] {
        let event = match bin {
            "capture-signals" => "PreCompact",
            "capture-failure" => "PostToolUseFailure",
            _ => "SessionStart",
        };
        let (out, _) = run_hook(
            &env,
            bin,
            payload("s-off", &transcript, &proj, event)
                .to_string()
                .as_bytes(),
        );
        assert_silent_success(bin, &out, "control");
        if bin == "inject-signals" {
            assert!(
                !stdout(&out).is_empty(),
                "control: inject prints the signals"
            );
        }
    }
    let before = fs::read(env.store()).unwrap();
    assert!(!before.is_empty());

    fs::create_dir_all(proj.join(".claude")).unwrap();
    fs::write(proj.join(".claude/reflect.off"), "").unwrap();
    fs::write(
        &transcript,
        demo_text().replace("pnpm workspace", "pnpm-only workspace"),
    )
    .unwrap();
    for bin in HOOKS {
        let (event, session) = match bin {
            "capture-signals" => ("PreCompact", "s-off"),
            "capture-session-summary" => ("SessionEnd", "s-off"),
            "capture-failure" => ("PostToolUseFailure", "s-off-2"),
            _ => ("SessionStart", "s-off"),
        };
        let (out, _) = run_hook(
            &env,
            bin,
            payload(session, &transcript, &proj, event)
                .to_string()
                .as_bytes(),
        );
        assert_silent_success(bin, &out, "opted out");
        assert!(
            stdout(&out).is_empty(),
            "{bin}: prints nothing when opted out"
        );
        assert_eq!(
            fs::read(env.store()).unwrap(),
            before,
            "{bin} stored something"
        );
    }

    let out = env
        .cmd("memory-store")
        .arg("doctor")
        .current_dir(&proj)
        .output()
        .unwrap();
    assert!(
        stdout(&out).contains("reflect.off"),
        "doctor reports the opt-out: {}",
        stdout(&out)
    );
}

/// `.claude/reflect.off` at a repository's root was honoured only in that exact directory: a
/// session started in a subdirectory was captured.
#[test]
fn regression_reflect_off_at_the_repository_root_covers_its_subdirectories() {
    let env = Env::new();
    let repo = project(&env);
    fs::create_dir_all(repo.join(".git")).unwrap();
    fs::create_dir_all(repo.join(".claude")).unwrap();
    fs::write(repo.join(".claude/reflect.off"), "").unwrap();
    let sub = repo.join("packages/app/src");
    fs::create_dir_all(&sub).unwrap();
    let transcript = transcript_with(&env, "s-sub.jsonl", demo_text().as_bytes());
    for bin in HOOKS {
        let event = match bin {
            "capture-signals" => "PreCompact",
            "capture-session-summary" => "SessionEnd",
            "capture-failure" => "PostToolUseFailure",
            _ => "SessionStart",
        };
        let mut p = payload("s-sub", &transcript, &sub, event);
        p["error"] = json!("Exit code 1\nerror: something real broke: permission denied");
        let (out, _) = run_hook(&env, bin, p.to_string().as_bytes());
        assert_silent_success(bin, &out, "subdirectory of an opted-out repository");
        assert!(!env.store().exists(), "{bin} captured a session in {sub:?}");
    }
    // Control: the same session in a sibling repository is captured.
    let other = env.dir.path().join("other/src");
    fs::create_dir_all(&other).unwrap();
    fs::create_dir_all(env.dir.path().join("other/.git")).unwrap();
    let (out, _) = run_hook(
        &env,
        "capture-signals",
        payload("s-sub", &transcript, &other, "PreCompact")
            .to_string()
            .as_bytes(),
    );
    assert_silent_success("capture-signals", &out, "control");
    assert!(!signals(&env).is_empty(), "the control is captured");
}

// ---------------------------------------------------------------------------------------------
// Sizes a payload or a transcript controls

/// `claude plugin update` fires SessionEnd with a transcript that was never written: a quiet
/// no-op, nothing in the error log for doctor to warn about. PreCompact, which only fires on a
/// transcript being compacted, still notes a missing one.
#[test]
fn a_session_end_without_a_transcript_is_a_quiet_no_op() {
    let env = Env::new();
    let gone = env.dir.path().join("never-written.jsonl");
    let p = payload("s-gone", &gone, &project(&env), "SessionEnd");
    let (out, _) = run_hook(&env, "capture-session-summary", p.to_string().as_bytes());
    assert_silent_success("capture-session-summary", &out, "no transcript");
    assert_eq!(error_log(&env), "");
    assert!(!env.store().exists());
    let p = payload("s-gone", &gone, &project(&env), "PreCompact");
    let (out, _) = run_hook(&env, "capture-signals", p.to_string().as_bytes());
    assert_silent_success("capture-signals", &out, "no transcript");
    assert!(
        error_log(&env).contains("never-written.jsonl"),
        "{}",
        error_log(&env)
    );
}

/// A 15 MB session_id was stored in every signal (the store grew by 45 MB).
#[test]
fn regression_a_huge_session_id_is_not_stored_whole() {
    let env = Env::new();
    let huge = "s".repeat(15 << 20);
    for (call, what) in ["alpha", "beta"].iter().enumerate() {
        let mut p = payload(&huge, Path::new("/nowhere.jsonl"), &project(&env), "x");
        p["tool_use_id"] = json!(format!("toolu_{call}"));
        p["error"] = json!(format!(
            "Exit code 1\nerror: {what} broke: permission denied"
        ));
        let (out, _) = run_hook(&env, "capture-failure", p.to_string().as_bytes());
        assert_silent_success("capture-failure", &out, "huge session id");
    }
    let len = fs::metadata(env.store()).unwrap().len();
    assert!(len < 8 << 10, "the store holds {len} bytes");
    let stored = signals(&env);
    assert_eq!(stored.len(), 2);
    let sid = stored[0]["session_id"].as_str().unwrap();
    assert!(sid.starts_with("ssss") && sid.len() <= 128, "{sid}");
    assert_eq!(stored[1]["session_id"], sid, "one id, one stand-in");
}

/// A 10 MB transcript_path cost capture-signals up to 240 ms and 80 MB, and went into the error
/// log whole (errors.log.1 reached 15 MB despite its 256 KB bound).
#[test]
fn regression_a_huge_transcript_path_is_dropped_and_the_error_log_stays_small() {
    let env = Env::new();
    let huge = format!("/{}", "p".repeat(10 << 20));
    for bin in ["capture-signals", "capture-session-summary"] {
        let p = payload("s-path", Path::new(&huge), &project(&env), "PreCompact");
        let (out, _) = run_hook(&env, bin, p.to_string().as_bytes());
        assert_silent_success(bin, &out, "huge transcript_path");
    }
    let log = error_log(&env);
    assert!(log.len() < 2048, "{} bytes logged", log.len());
    assert!(log.contains("transcript_path of 10485761 bytes"), "{log}");
}

/// A transcript with no newline kept PreCompact busy 58 s (its timeout is 30 s) and was read
/// from the start again on every run: now each run goes through a bounded part of it and the
/// cursor records how far it got.
#[test]
fn regression_a_transcript_without_a_newline_is_read_in_bounded_steps_once() {
    let env = Env::new();
    let path = env.dir.path().join("s-giant.jsonl");
    let giant: u64 = 300 << 20;
    // Sparse: a 300 MB line of zero bytes costs no disk.
    fs::File::create(&path).unwrap().set_len(giant).unwrap();
    let stdin = payload("s-giant", &path, &project(&env), "PreCompact").to_string();
    let cursor = || -> Value {
        serde_json::from_slice(&fs::read(env.data.join("cursors/s-giant.json")).unwrap()).unwrap()
    };
    let (out, _) = run_hook(&env, "capture-signals", stdin.as_bytes());
    assert_silent_success("capture-signals", &out, "first step");
    let first = cursor()["offset"].as_u64().unwrap();
    assert!(first > 0 && first < giant, "a bounded step: {first}");
    let (out, _) = run_hook(&env, "capture-signals", stdin.as_bytes());
    assert_silent_success("capture-signals", &out, "second step");
    assert_eq!(
        cursor()["offset"],
        json!(giant),
        "the next run goes on from there"
    );
    // The line ends; what follows is read with the right line numbers.
    let mut f = fs::OpenOptions::new().append(true).open(&path).unwrap();
    f.write_all(b"\n").unwrap();
    f.write_all(demo_text().as_bytes()).unwrap();
    drop(f);
    let (out, _) = run_hook(&env, "capture-signals", stdin.as_bytes());
    assert_silent_success("capture-signals", &out, "after the giant line");
    let solo = Env::new();
    let t = transcript_with(&solo, "s-giant.jsonl", demo_text().as_bytes());
    let p = payload("s-giant", &t, &project(&solo), "PreCompact").to_string();
    let (out, _) = run_hook(&solo, "capture-signals", p.as_bytes());
    assert_silent_success("capture-signals", &out, "solo");
    let lines = |env: &Env| -> Vec<u64> {
        signals(env)
            .iter()
            .map(|s| s["source"]["line"].as_u64().unwrap())
            .collect()
    };
    let expected: Vec<u64> = lines(&solo).iter().map(|l| l + 1).collect();
    assert!(!expected.is_empty());
    assert_eq!(lines(&env), expected);
    assert_eq!(error_log(&env), "");
}

// ---------------------------------------------------------------------------------------------
// Offline mode, cursors

#[test]
fn dry_run_prints_full_signals_and_writes_nothing() {
    let env = Env::new();
    for bin in ["capture-signals", "capture-session-summary"] {
        let out = env
            .cmd(bin)
            .args(["--transcript"])
            .arg(demo_transcript())
            .args(["--dry-run", "--project", &abs("/home/dev/acme-cli")])
            .output()
            .unwrap();
        assert!(
            out.status.success(),
            "{bin}: {}",
            String::from_utf8_lossy(&out.stderr)
        );
        let printed: Vec<Value> = stdout(&out)
            .lines()
            .map(|l| serde_json::from_str(l).expect("one JSON object a line"))
            .collect();
        assert!(!printed.is_empty(), "{bin} printed signals");
        for s in &printed {
            for field in [
                "id",
                "version",
                "timestamp",
                "session_id",
                "project",
                "type",
                "status",
                "confidence",
                "source",
                "content",
                "context",
                "tags",
                "meta",
            ] {
                assert!(s.get(field).is_some(), "{bin}: {field} missing in {s}");
            }
            assert!(s["id"].as_str().unwrap().starts_with("SIG-"));
            assert_eq!(s["project"], abs("/home/dev/acme-cli"));
        }
        let correction = demo_line_of("No, don't use npm");
        assert!(
            printed
                .iter()
                .any(|s| s["type"] == "correction" && s["source"]["line"] == correction),
            "{bin}: the correction at line {correction}"
        );
        let summaries = printed.iter().filter(|s| s["type"] == "summary").count();
        assert_eq!(summaries, usize::from(bin == "capture-session-summary"));
        assert!(
            !env.data.exists(),
            "{bin} --dry-run wrote into the data dir"
        );
    }
}

#[test]
fn offline_mode_reports_bad_flags_and_missing_files() {
    let env = Env::new();
    for bin in ["capture-signals", "capture-session-summary"] {
        let out = env
            .cmd(bin)
            .args(["--transcript", "x", "--frobnicate"])
            .output()
            .unwrap();
        assert_eq!(out.status.code(), Some(2), "{bin}: usage error");
        let err = String::from_utf8_lossy(&out.stderr);
        assert!(
            err.starts_with(&format!("{bin}: ")) && err.contains("--frobnicate"),
            "{err}"
        );

        let out = env.cmd(bin).arg("--dry-run").output().unwrap();
        assert_eq!(
            out.status.code(),
            Some(2),
            "{bin}: --transcript is required"
        );

        let out = env
            .cmd(bin)
            .args(["--transcript", "/nonexistent/t.jsonl", "--dry-run"])
            .output()
            .unwrap();
        assert_eq!(out.status.code(), Some(1), "{bin}: operational error");
        let err = String::from_utf8_lossy(&out.stderr);
        assert!(err.contains("/nonexistent/t.jsonl"), "{err}");

        // Words are not flags: hook mode, exit 0 whatever the payload.
        let out = env
            .cmd(bin)
            .arg("PreCompact")
            .write_stdin("{}")
            .output()
            .unwrap();
        assert_silent_success(bin, &out, "word argument");

        let out = env.cmd(bin).arg("--help").output().unwrap();
        assert!(out.status.success() && stdout(&out).contains("--dry-run"));
    }
}

/// Run capture-signals offline (storing) for `session` on `transcript`.
fn capture_offline(env: &Env, transcript: &Path, session: &str) {
    let out = env
        .cmd("capture-signals")
        .arg("--transcript")
        .arg(transcript)
        .args(["--session", session, "--project", "/p"])
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
}

#[test]
// Unix only: a FIFO is Unix's; Windows' special files are in the bad-input table.
#[cfg(unix)]
fn regression_a_fifo_cursor_does_not_hang_the_capture_hooks() {
    let env = Env::new();
    let t = transcript_with(&env, "t.jsonl", demo_text().as_bytes());
    let cursors = env.data.join("cursors");
    fs::create_dir_all(&cursors).unwrap();
    let fifo = cursors.join("s-fifo.json");
    mkfifo(&fifo);
    for (bin, event) in [
        ("capture-signals", "PreCompact"),
        ("capture-session-summary", "SessionEnd"),
    ] {
        let p = payload("s-fifo", &t, &project(&env), event);
        let out = env
            .cmd(bin)
            .write_stdin(p.to_string())
            .timeout(Duration::from_secs(10))
            .output()
            .unwrap();
        assert_silent_success(bin, &out, "a FIFO as the cursor");
        let kind = fs::symlink_metadata(&fifo).unwrap().file_type();
        assert!(
            std::os::unix::fs::FileTypeExt::is_fifo(&kind),
            "{bin}: the FIFO is left alone"
        );
    }
    assert!(
        error_log(&env).contains("is a FIFO, not a regular file"),
        "{}",
        error_log(&env)
    );
    assert!(!signals(&env).is_empty(), "the transcript is still mined");
}

#[test]
fn the_cursor_resumes_where_the_last_run_ended() {
    let env = Env::new();
    let text = demo_text();
    let convention = demo_line_of("Yes. We always put") as usize;
    let head: String = text
        .lines()
        .take(convention - 1)
        .map(|l| format!("{l}\n"))
        .collect();
    let t = transcript_with(&env, "t.jsonl", head.as_bytes());

    capture_offline(&env, &t, "s1");
    let first = signals(&env);
    assert!(first.iter().any(|s| s["type"] == "correction"));
    assert!(first.iter().all(|s| s["type"] != "convention"));

    // Nothing new: nothing stored, not even a recurrence.
    let bytes = fs::read(env.store()).unwrap();
    capture_offline(&env, &t, "s1");
    assert_eq!(
        fs::read(env.store()).unwrap(),
        bytes,
        "a repeat run stores nothing"
    );

    // The rest of the session arrives: only its signals are added.
    fs::write(&t, &text).unwrap();
    capture_offline(&env, &t, "s1");
    let all = signals(&env);
    let added: Vec<&Value> = all.iter().skip(first.len()).collect();
    assert!(added.iter().any(|s| s["type"] == "convention"));
    assert!(
        added
            .iter()
            .all(|s| s["source"]["line"].as_u64().unwrap() >= convention as u64),
        "only lines after the cursor were mined: {added:?}"
    );
    // Repeated failures in the new part count as recurrences; none may come from old lines.
    for rec in env
        .store_lines()
        .iter()
        .filter(|l| l.get("recur").is_some())
    {
        assert!(
            rec["source"]["line"].as_u64().unwrap() >= convention as u64,
            "a line before the cursor was mined again: {rec}"
        );
    }
}

#[test]
fn a_torn_last_line_is_read_whole_on_the_next_run() {
    let env = Env::new();
    let text = demo_text();
    let correction = demo_line_of("No, don't use npm") as usize;
    let lines: Vec<&str> = text.lines().collect();
    let mut torn: String = lines[..correction - 1]
        .iter()
        .map(|l| format!("{l}\n"))
        .collect();
    let cut = lines[correction - 1].len() / 2;
    torn.push_str(&lines[correction - 1][..cut]);
    let t = transcript_with(&env, "t.jsonl", torn.as_bytes());

    capture_offline(&env, &t, "s1");
    assert!(signals(&env).iter().all(|s| s["type"] != "correction"));

    // Claude Code finishes writing the line.
    let mut f = fs::OpenOptions::new().append(true).open(&t).unwrap();
    f.write_all(format!("{}\n", &lines[correction - 1][cut..]).as_bytes())
        .unwrap();
    capture_offline(&env, &t, "s1");
    let corrections: Vec<Value> = signals(&env)
        .into_iter()
        .filter(|s| s["type"] == "correction")
        .collect();
    assert_eq!(corrections.len(), 1, "{corrections:?}");
    assert_eq!(corrections[0]["source"]["line"], correction as u64);
    assert!(corrections[0]["content"]
        .as_str()
        .unwrap()
        .contains("pnpm test instead"));
}

#[test]
fn a_replaced_transcript_is_read_from_the_start() {
    let env = Env::new();
    let text = demo_text();
    let t = transcript_with(&env, "t.jsonl", text.as_bytes());
    capture_offline(&env, &t, "s1");
    let n = signals(&env).len();

    // Same path and session, another file (first line differs), longer than the old offset.
    let replaced = format!(
        "{{\"type\":\"summary\",\"summary\":\"other\"}}\n{}",
        text.replace("pnpm test instead", "yarn test instead")
    );
    fs::write(&t, replaced).unwrap();
    capture_offline(&env, &t, "s1");
    let all = signals(&env);
    assert!(all.len() > n, "the new transcript was mined");
    assert!(all
        .iter()
        .any(|s| s["content"].as_str().unwrap().contains("yarn test instead")));
}

#[test]
fn the_session_summary_covers_the_whole_session_but_reads_only_the_unseen_tail() {
    let env = Env::new();
    let proj = abs("/home/dev/acme-cli");
    let proj = Path::new(&proj);
    // The demo is a Linux session: its project, spelt as JSON spells this platform's path, so
    // that the files it touched lie under the project on Windows too.
    let spelt = serde_json::to_string(proj).unwrap();
    let text = demo_text().replace("/home/dev/acme-cli", spelt.trim_matches('"'));
    let whole_transcript = transcript_with(&env, "s-whole.jsonl", text.as_bytes());
    let half = demo_line_of("Now update the README") as usize;
    let head: String = text
        .lines()
        .take(half - 1)
        .map(|l| format!("{l}\n"))
        .collect();
    let t = transcript_with(&env, "s-sum.jsonl", head.as_bytes());

    // PreCompact read the first part; SessionEnd comes after the rest was written.
    let (out, _) = run_hook(
        &env,
        "capture-signals",
        payload("s-sum", &t, proj, "PreCompact")
            .to_string()
            .as_bytes(),
    );
    assert_silent_success("capture-signals", &out, "first part");
    fs::write(&t, &text).unwrap();
    let end = payload("s-sum", &t, proj, "SessionEnd").to_string();
    let (out, _) = run_hook(&env, "capture-session-summary", end.as_bytes());
    assert_silent_success("capture-session-summary", &out, "end");

    // The same summary as one pass over the whole file (in a fresh data dir: no cursor).
    let whole = Env::new()
        .cmd("capture-session-summary")
        .arg("--transcript")
        .arg(&whole_transcript)
        .args(["--dry-run", "--session", "s-sum", "--project"])
        .arg(proj)
        .output()
        .unwrap();
    let whole: Vec<Value> = stdout(&whole)
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    let whole = whole.iter().find(|s| s["type"] == "summary").unwrap();
    let stored: Vec<Value> = signals(&env)
        .into_iter()
        .filter(|s| s["type"] == "summary")
        .collect();
    assert_eq!(stored.len(), 1);
    let s = &stored[0];
    assert_eq!(s["content"], whole["content"]);
    for k in ["turns", "tools", "files", "failures", "duration_secs"] {
        assert_eq!(s["meta"][k], whole["meta"][k], "meta.{k}");
    }
    assert_eq!(s["meta"]["end_reason"], "other");
    assert_eq!(s["source"]["hook"], "SessionEnd");
    assert!(
        s["meta"]["files"]
            .as_array()
            .unwrap()
            .contains(&json!("README.md")),
        "relative to the project"
    );
    // A repeated SessionEnd with nothing new writes nothing.
    let bytes = fs::read(env.store()).unwrap();
    let (out, _) = run_hook(&env, "capture-session-summary", end.as_bytes());
    assert_silent_success("capture-session-summary", &out, "repeat");
    assert_eq!(fs::read(env.store()).unwrap(), bytes);
}

/// What identifies a mined signal, for comparing runs.
fn mined_view(signals: &[Value]) -> Vec<String> {
    let mut v: Vec<String> = signals
        .iter()
        .filter(|s| s["type"] != "summary")
        .map(|s| {
            format!(
                "{} @{} {} | {}",
                s["type"], s["source"]["line"], s["content"], s["context"]
            )
        })
        .collect();
    v.sort();
    v
}

#[test]
fn a_transcript_read_in_two_runs_gives_what_one_pass_gives_wherever_it_is_split() {
    // The second run re-reads the turn in progress at the cursor for context (the tool call a
    // failure belongs to, the assistant action a correction answers), without re-storing it.
    let text = demo_text();
    let one_pass = Env::new();
    let t = transcript_with(&one_pass, "t.jsonl", text.as_bytes());
    capture_offline(&one_pass, &t, "s1");
    let expected = mined_view(&signals(&one_pass));
    assert!(expected.len() >= 3);

    let lines: Vec<&str> = text.lines().collect();
    for split in 1..lines.len() {
        let env = Env::new();
        let head: String = lines[..split].iter().map(|l| format!("{l}\n")).collect();
        let t = transcript_with(&env, "t.jsonl", head.as_bytes());
        capture_offline(&env, &t, "s1");
        fs::write(&t, &text).unwrap();
        capture_offline(&env, &t, "s1");
        assert_eq!(
            mined_view(&signals(&env)),
            expected,
            "split after line {split}"
        );
    }
}

/// A failure still waiting for its fix when a compaction comes is left to the next run, which
/// re-reads its turn. Turns it could not re-read lost it: one a slash command opened (no prompt
/// typed yet), one whose prompt line is longer than the window a run goes back over (an image
/// pasted into it), and one whose calls after the prompt are longer than that (it now ends
/// unresolved in the run that saw it). Captured as the hooks do, split after the failure, each
/// stores the failure as one run does.
#[test]
fn a_failure_left_to_the_next_run_is_kept_whatever_opened_its_turn() {
    let big = "A".repeat(400 * 1024);
    let prompt = json!("set up the app");
    let cases = [
        (
            "a slash command",
            json!("<command-name>/init</command-name>"),
            "",
        ),
        (
            "a prompt with an image",
            json!([{"type": "text", "text": "set up the app"},
                {"type": "image", "source": {"type": "base64", "media_type": "image/png", "data": big}}]),
            "",
        ),
        ("a long turn", prompt, big.as_str()),
    ];
    for (case, opener, output) in cases {
        let head = [
            transcript_entry("user", 0, opener, "s-turn"),
            transcript_entry(
                "assistant",
                1,
                json!([{"type": "tool_use", "id": "t1", "name": "Bash",
                    "input": {"command": "php artisan --version"}}]),
                "s-turn",
            ),
            transcript_entry(
                "user",
                2,
                json!([{"type": "tool_result", "tool_use_id": "t1", "is_error": true,
                    "content": "Exit code 127\n(eval):1: command not found: php"}]),
                "s-turn",
            ),
            transcript_entry(
                "assistant",
                3,
                json!([{"type": "tool_use", "id": "t2", "name": "Read",
                    "input": {"file_path": "/p/storage/logs/app.log"}}]),
                "s-turn",
            ),
            transcript_entry(
                "user",
                4,
                json!([{"type": "tool_result", "tool_use_id": "t2", "content": output}]),
                "s-turn",
            ),
            transcript_entry(
                "assistant",
                5,
                json!([{"type": "text", "text": "PHP is not installed here."}]),
                "s-turn",
            ),
        ]
        .concat();
        // In the same turn, after the cut: what fixed it.
        let tail = [
            transcript_entry(
                "assistant",
                6,
                json!([{"type": "tool_use", "id": "t3", "name": "Bash",
                    "input": {"command": "brew install php"}}]),
                "s-turn",
            ),
            transcript_entry(
                "user",
                7,
                json!([{"type": "tool_result", "tool_use_id": "t3", "content": "installed"}]),
                "s-turn",
            ),
            transcript_entry(
                "assistant",
                8,
                json!([{"type": "tool_use", "id": "t4", "name": "Bash",
                    "input": {"command": "php artisan --version"}}]),
                "s-turn",
            ),
            transcript_entry(
                "user",
                9,
                json!([{"type": "tool_result", "tool_use_id": "t4", "content": "Laravel 11"}]),
                "s-turn",
            ),
            transcript_entry(
                "user",
                10,
                json!("ok, read the config files instead"),
                "s-turn",
            ),
            transcript_entry(
                "assistant",
                11,
                json!([{"type": "text", "text": "Done."}]),
                "s-turn",
            ),
        ]
        .concat();
        let failures = |env: &Env| -> Vec<(String, Value)> {
            signals(env)
                .iter()
                .filter(|s| s["type"] == "failure")
                .map(|s| {
                    (
                        s["content"].as_str().unwrap().to_string(),
                        s["resolution"].clone(),
                    )
                })
                .collect()
        };
        let run = |env: &Env, t: &Path, hook: &str, event: &str| {
            let (out, _) = run_hook(
                env,
                hook,
                payload("s-turn", t, &project(env), event)
                    .to_string()
                    .as_bytes(),
            );
            assert_silent_success(hook, &out, case);
        };
        let one = Env::new();
        let t = transcript_with(&one, "s-turn.jsonl", (head.clone() + &tail).as_bytes());
        run(&one, &t, "capture-signals", "PreCompact");
        run(&one, &t, "capture-session-summary", "SessionEnd");
        let mut expected = failures(&one);
        assert_eq!(
            expected,
            [(
                "Bash failed: (eval):1: command not found: php".to_string(),
                json!("`brew install php`, then the same command")
            )],
            "{case}"
        );
        if !output.is_empty() {
            // A turn too long to go back over ends its failure unresolved in the run that saw
            // it, rather than losing it.
            expected[0].1 = Value::Null;
        }

        let split = Env::new();
        let t = transcript_with(&split, "s-turn.jsonl", head.as_bytes());
        run(&split, &t, "capture-signals", "PreCompact");
        fs::write(&t, head + &tail).unwrap();
        run(&split, &t, "capture-signals", "PreCompact");
        run(&split, &t, "capture-session-summary", "SessionEnd");
        assert_eq!(failures(&split), expected, "{case}");
    }
}

#[test]
fn secrets_in_a_transcript_never_reach_the_store_the_cursor_or_a_dry_run() {
    let secret = "ghp_4f9Qz7LmN2xR8tVb6Yc1Dk3Hs5Jp0Wa9Ue2G";
    let text = demo_text().replace(
        "Run pnpm test instead.",
        &format!("Run pnpm test instead, with GITHUB_TOKEN={secret} set."),
    );
    for bin in ["capture-signals", "capture-session-summary"] {
        let env = Env::new();
        let t = transcript_with(&env, "s-secret.jsonl", text.as_bytes());
        let dry = env
            .cmd(bin)
            .arg("--transcript")
            .arg(&t)
            .arg("--dry-run")
            .output()
            .unwrap();
        let printed = stdout(&dry);
        assert!(printed.contains("pnpm test instead"), "{bin}: {printed}");
        assert!(
            printed.contains("[REDACTED:"),
            "{bin}: redacted in the dry run"
        );
        assert!(!printed.contains(secret), "{bin}: secret printed");

        let p = payload("s-secret", &t, &project(&env), "PreCompact");
        let (out, _) = run_hook(&env, bin, p.to_string().as_bytes());
        assert_silent_success(bin, &out, "secret");
        assert!(signals(&env)
            .iter()
            .any(|s| s["content"].as_str().unwrap().contains("pnpm test instead")));
        let everything = String::from_utf8_lossy(&env.all_data_bytes()).into_owned();
        assert!(
            !everything.contains(secret),
            "{bin}: secret in the data dir"
        );
    }
}

#[test]
fn session_end_removes_the_cursors_of_sessions_long_over() {
    let env = Env::new();
    let cursors = env.data.join("cursors");
    fs::create_dir_all(&cursors).unwrap();
    let stale = cursors.join("old-session.json");
    fs::write(&stale, r#"{"offset":0,"line":0}"#).unwrap();
    let year_ago = std::time::SystemTime::now() - Duration::from_secs(365 * 24 * 3600);
    fs::File::options()
        .write(true)
        .open(&stale)
        .unwrap()
        .set_modified(year_ago)
        .unwrap();
    let t = transcript_with(&env, "s-new.jsonl", demo_text().as_bytes());
    let p = payload("s-new", &t, &project(&env), "SessionEnd");
    let (out, _) = run_hook(&env, "capture-session-summary", p.to_string().as_bytes());
    assert_silent_success("capture-session-summary", &out, "prune");
    assert!(!stale.exists(), "the stale cursor is gone");
    assert!(
        cursors.join("s-new.json").exists(),
        "this session's cursor stays"
    );
}

/// After 30 days a session's cursor was deleted; resuming the session mined the whole transcript
/// again, and the signals the user had dismissed or promoted came back as new `captured` ones.
#[test]
fn regression_a_resumed_session_does_not_bring_back_what_the_user_reviewed() {
    let env = Env::new();
    let proj = project(&env);
    let transcript = transcript_with(&env, "s-resume.jsonl", demo_text().as_bytes());
    let stdin = payload("s-resume", &transcript, &proj, "PreCompact").to_string();
    let (out, _) = run_hook(&env, "capture-signals", stdin.as_bytes());
    assert_silent_success("capture-signals", &out, "first run");
    let first = signals(&env);
    assert!(first.len() >= 3, "{first:?}");
    let id = |i: usize| first[i]["id"].as_str().unwrap().to_string();
    env.cmd("memory-store")
        .args(["dismiss", &id(0)])
        .assert()
        .success();
    env.cmd("memory-store")
        .args(["update", &id(1), "--status", "promoted"])
        .assert()
        .success();
    // /reflect ends with a prune: the reviewed signals move to the archive.
    env.cmd("memory-store").arg("prune").assert().success();
    let kept: Vec<Value> = signals(&env);
    assert_eq!(kept.len(), first.len() - 2);

    // A month on, another session ends (which prunes stale cursors); the transcript is still there.
    let cursors = env.data.join("cursors");
    let month_ago = std::time::SystemTime::now() - Duration::from_secs(31 * 24 * 3600);
    for f in ["s-resume.json", "s-resume.lock"] {
        fs::File::options()
            .write(true)
            .open(cursors.join(f))
            .unwrap()
            .set_modified(month_ago)
            .unwrap();
    }
    let other = transcript_with(&env, "s-other.jsonl", b"");
    let (out, _) = run_hook(
        &env,
        "capture-session-summary",
        payload("s-other", &other, &proj, "SessionEnd")
            .to_string()
            .as_bytes(),
    );
    assert_silent_success("capture-session-summary", &out, "another session ends");
    assert!(
        cursors.join("s-resume.json").exists(),
        "the cursor stays while its transcript can be read"
    );
    // The session is resumed: nothing comes back.
    let (out, _) = run_hook(&env, "capture-signals", stdin.as_bytes());
    assert_silent_success("capture-signals", &out, "resumed");
    assert_eq!(signals(&env), kept);
    // Even with the cursor lost, what the store and the archive hold is not mined again, nor
    // counted again.
    let before = fs::read(env.store()).unwrap();
    fs::remove_file(cursors.join("s-resume.json")).unwrap();
    let (out, _) = run_hook(&env, "capture-signals", stdin.as_bytes());
    assert_silent_success("capture-signals", &out, "cursor lost");
    assert_eq!(signals(&env), kept, "no reviewed signal is captured again");
    assert_eq!(
        String::from_utf8_lossy(&fs::read(env.store()).unwrap()),
        String::from_utf8_lossy(&before),
        "nor seen again"
    );
    assert_eq!(error_log(&env), "");
}

#[test]
fn the_demo_transcript_shows_each_signal_kind_and_none_from_its_noise() {
    let env = Env::new();
    let out = env
        .cmd("capture-signals")
        .arg("--transcript")
        .arg(demo_transcript())
        .arg("--dry-run")
        .output()
        .unwrap();
    assert!(out.status.success());
    let printed: Vec<Value> = stdout(&out)
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    let kinds: HashSet<&str> = printed
        .iter()
        .map(|s| s["type"].as_str().unwrap())
        .collect();
    for kind in ["correction", "convention", "failure"] {
        assert!(kinds.contains(kind), "the demo shows a {kind}: {kinds:?}");
    }
    // The lint failure happens three times in one episode: one signal, one sighting of three
    // tries, resolved by what the user said next.
    let lint: Vec<&Value> = printed
        .iter()
        .filter(|s| s["type"] == "failure" && s["context"].as_str().unwrap().contains("lint"))
        .collect();
    assert_eq!(lint.len(), 1, "the repeated lint failure is one signal");
    assert_eq!(
        lint[0]["content"],
        "Bash failed: ESLint couldn't find an eslint.config.(js|mjs|cjs) file."
    );
    assert_eq!(
        (
            lint[0]["meta"]["seen"].as_u64(),
            lint[0]["meta"]["tries"].as_u64(),
            lint[0]["confidence"].as_u64()
        ),
        (None, Some(3), Some(1))
    );
    assert!(
        lint[0]["resolution"]
            .as_str()
            .unwrap()
            .starts_with("the user said: 'The eslint config lives in config/"),
        "{}",
        lint[0]
    );
    let lines: Vec<Value> = demo_text()
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    // The demo holds each kind of noise, with words that would trigger a detector.
    let has = |pred: &dyn Fn(&Value) -> bool| lines.iter().any(pred);
    assert!(has(&|e| e["isCompactSummary"] == true));
    assert!(has(&|e| e["message"]["content"]
        .as_str()
        .is_some_and(|c| c.starts_with("<system-reminder>"))));
    assert!(has(&|e| e["message"]["content"]
        .as_str()
        .is_some_and(|c| c.starts_with("<local-command-stdout>"))));
    for s in &printed {
        let line = s["source"]["line"].as_u64().unwrap();
        let entry = &lines[line as usize - 1];
        let kind = s["type"].as_str().unwrap();
        assert_eq!(
            crate::corpus::noise(entry, kind),
            None,
            "{kind} from noise at line {line}"
        );
    }
}

/// Every file under the data dir: (path relative to it, bytes).
fn data_files(env: &Env) -> Vec<(String, Vec<u8>)> {
    fn walk(dir: &Path, root: &Path, out: &mut Vec<(String, Vec<u8>)>) {
        for e in fs::read_dir(dir).into_iter().flatten().flatten() {
            let p = e.path();
            if p.is_dir() {
                walk(&p, root, out);
            } else {
                let rel = p.strip_prefix(root).unwrap().display().to_string();
                out.push((rel, fs::read(&p).unwrap_or_default()));
            }
        }
    }
    let mut out = Vec::new();
    walk(&env.data, &env.data, &mut out);
    out
}

/// The files under the data dir whose name or bytes hold `needle`.
fn holding(env: &Env, needle: &str) -> Vec<String> {
    // As JSON spells it too (a Windows path's backslashes doubled).
    let json = serde_json::to_string(needle).unwrap();
    let json = json.trim_matches('"');
    data_files(env)
        .into_iter()
        .filter(|(name, bytes)| {
            let text = String::from_utf8_lossy(bytes);
            name.contains(needle) || text.contains(needle) || text.contains(json)
        })
        .map(|(name, _)| name)
        .collect()
}

/// `forget --session S` left S behind in a crash-leftover temp file (a full copy of the store),
/// torn archive lines, the quarantine and backups, recurrence records in backups, errors.log, and
/// the cursor and lock files named after S; with `--project` or ids the cursor kept the files the
/// session touched.
#[test]
fn regression_forget_leaves_no_byte_naming_what_it_forgets() {
    let env = Env::new();
    let s = "0b7d6f1e-5a2c-4e1b-9f3a-7c8d9e0f1a2b";
    let p = env.dir.path().join("private-project");
    let q = env.dir.path().join("other-project");
    for dir in [&p, &q] {
        fs::create_dir_all(dir).unwrap();
    }
    let run = |bin: &str, session: &str, cwd: &Path, edit: &dyn Fn(&mut Value)| {
        let t = env.dir.path().join(format!("{session}.jsonl"));
        if !t.exists() {
            fs::write(&t, demo_text()).unwrap();
        }
        let mut stdin = payload(session, &t, cwd, "PreCompact");
        edit(&mut stdin);
        let (out, _) = run_hook(&env, bin, stdin.to_string().as_bytes());
        assert_silent_success(bin, &out, session);
    };
    let failure = |call: &str, what: &str| {
        let (call, what) = (call.to_string(), what.to_string());
        move |v: &mut Value| {
            v["tool_use_id"] = json!(call);
            v["error"] = json!(format!("Exit code 1\nerror: {what}: permission denied"));
        }
    };
    // S in project P; T in project Q; S also fails once in Q, where T failed the same way first
    // (a recurrence record of T's signal, naming S).
    run("capture-signals", s, &p, &|_| {});
    run("capture-signals", "t-keep", &q, &|_| {});
    run(
        "capture-failure",
        "t-keep",
        &q,
        &failure("toolu_t", "the cache is cold"),
    );
    run(
        "capture-failure",
        s,
        &q,
        &failure("toolu_s", "the cache is cold"),
    );
    let t_ids: Vec<String> = signals(&env)
        .iter()
        .filter(|v| v["session_id"] == "t-keep")
        .map(|v| v["id"].as_str().unwrap().to_string())
        .collect();
    let s_ids: Vec<String> = signals(&env)
        .iter()
        .filter(|v| v["session_id"] == s)
        .map(|v| v["id"].as_str().unwrap().to_string())
        .collect();
    // Review: some go to the archive; every rewrite backs the store up.
    for id in [&s_ids[0], &t_ids[0]] {
        env.cmd("memory-store")
            .args(["dismiss", id])
            .assert()
            .success();
    }
    env.cmd("memory-store").arg("archive").assert().success();
    env.cmd("memory-store")
        .args(["update", &t_ids[1], "--tag", "kept"])
        .assert()
        .success();
    // A torn line in the store (quarantined by the next rewrite) and in the archive.
    let torn = format!("{{\"id\":\"SIG-20260101-torn\",\"session_id\":\"{s}\",\"content\":\"cut");
    let mut f = fs::OpenOptions::new()
        .append(true)
        .open(env.store())
        .unwrap();
    writeln!(f, "{torn}").unwrap();
    drop(f);
    env.cmd("memory-store").arg("prune").assert().success();
    let mut f = fs::OpenOptions::new()
        .append(true)
        .open(env.data.join("signals.archive.jsonl"))
        .unwrap();
    f.write_all(torn.as_bytes()).unwrap();
    drop(f);
    // A signal spooled while a rewrite held the lock.
    let rewrite = hold_store_lock(&env, Duration::from_millis(800));
    run(
        "capture-failure",
        s,
        &p,
        &failure("toolu_s2", "the disk is full"),
    );
    rewrite.join().unwrap();
    // Leftovers of killed writers, the error logs, and a file another part keys by session.
    let dead = crate::util::dead_pid();
    fs::copy(
        env.store(),
        env.data.join(format!(".signals.jsonl.{dead}.1.0.tmp")),
    )
    .unwrap();
    fs::copy(
        env.data.join(format!("cursors/{s}.json")),
        env.data.join(format!("cursors/.{s}.json.{dead}.2.0.tmp")),
    )
    .unwrap();
    let log = format!(
        "2026-11-24T07:00:00Z capture-signals: invalid cursor {}/cursors/{s}.json: x\n",
        env.data.display()
    );
    fs::write(
        env.data.join("errors.log"),
        format!("2026-11-24T06:00:00Z other line\n{log}"),
    )
    .unwrap();
    fs::write(env.data.join("errors.log.1"), &log).unwrap();
    // A backup made while the data dir was somewhere else.
    fs::copy(
        env.store(),
        env.data
            .join("backups/old-home-.claude-reflections-signals.jsonl.20250101T000000.000000Z"),
    )
    .unwrap();
    fs::create_dir_all(env.data.join("digest")).unwrap();
    fs::write(env.data.join(format!("digest/{s}.json")), "{}").unwrap();
    assert!(holding(&env, s).len() >= 10, "{:?}", holding(&env, s));

    env.cmd("memory-store")
        .args(["forget", "--session", s])
        .assert()
        .success();
    assert_eq!(
        holding(&env, s),
        Vec::<String>::new(),
        "the session is named nowhere"
    );
    let left: HashSet<String> = signals(&env)
        .iter()
        .chain(read_jsonl(&env.data.join("signals.archive.jsonl")).iter())
        .map(|v| v["id"].as_str().unwrap_or_default().to_string())
        .collect();
    for id in &t_ids {
        assert!(left.contains(id), "another session's signal {id} is kept");
    }
    assert!(
        error_log(&env).contains("other line"),
        "other log lines stay"
    );

    // By project: nothing names Q any more, the cursor of its session included.
    let q_text = q.display().to_string();
    assert!(!holding(&env, &q_text).is_empty());
    env.cmd("memory-store")
        .args(["forget", "--project", &q_text])
        .assert()
        .success();
    assert_eq!(holding(&env, &q_text), Vec::<String>::new());
    assert!(!env.data.join("cursors/t-keep.json").exists());

    // By id: the session's cursor no longer lists the files it touched.
    run("capture-signals", "u-ids", &p, &|_| {});
    let cursor = env.data.join("cursors/u-ids.json");
    assert!(fs::read_to_string(&cursor).unwrap().contains("export.ts"));
    let one = signals(&env)
        .iter()
        .find(|v| v["session_id"] == "u-ids")
        .map(|v| v["id"].as_str().unwrap().to_string())
        .unwrap();
    env.cmd("memory-store")
        .args(["forget", &one])
        .assert()
        .success();
    assert!(!fs::read_to_string(&cursor).unwrap().contains("export.ts"));
    assert_eq!(holding(&env, &one), Vec::<String>::new());
}

#[test]
fn forgetting_a_session_removes_its_cursor_but_keeps_its_place() {
    let env = Env::new();
    let transcript = demo_transcript();
    let stdin = json!({
        "session_id": "s-forget",
        "transcript_path": transcript,
        "cwd": abs("/home/dev/acme-cli"),
        "hook_event_name": "PreCompact",
        "trigger": "manual"
    })
    .to_string();
    let (out, _) = run_hook(&env, "capture-signals", stdin.as_bytes());
    assert_silent_success("capture-signals", &out, "demo");
    let cursor = env.data.join("cursors/s-forget.json");
    let before = fs::read_to_string(&cursor).unwrap();
    assert!(
        before.contains("export.ts"),
        "the tally lists touched files: {before}"
    );
    assert!(!signals(&env).is_empty());

    env.cmd("memory-store")
        .args(["forget", "--session", "s-forget"])
        .assert()
        .success()
        .stdout(predicates::str::contains("1 capture cursor(s) removed"));
    assert!(!cursor.exists() && !env.data.join("cursors/s-forget.lock").exists());
    let kept: Vec<Value> = fs::read_dir(env.data.join("cursors"))
        .unwrap()
        .map(|e| serde_json::from_slice(&fs::read(e.unwrap().path()).unwrap()).unwrap())
        .collect();
    let before: Value = serde_json::from_str(&before).unwrap();
    assert_eq!(kept.len(), 1, "only the place is kept");
    assert!(!kept[0].to_string().contains("export.ts"), "{}", kept[0]);
    assert_eq!(kept[0]["offset"], before["offset"]);
    assert!(before["transcript"].is_string() && before["project"].is_string());
    for gone in ["transcript", "project", "reviewed"] {
        assert!(kept[0][gone].is_null(), "{gone}: {}", kept[0]);
    }
    // The digest no longer finds the session.
    let digest = env
        .cmd("memory-store")
        .args(["digest", "--all", "--format", "jsonl"])
        .output()
        .unwrap();
    assert!(
        digest.status.success() && digest.stdout.is_empty(),
        "{digest:?}"
    );
    assert!(signals(&env).is_empty());
    // The session goes on: its next hook does not mine what was forgotten again.
    let (out, _) = run_hook(&env, "capture-signals", stdin.as_bytes());
    assert_silent_success("capture-signals", &out, "after forget");
    assert!(signals(&env).is_empty());
}
