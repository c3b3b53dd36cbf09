//! memory-store: every subcommand and format, the error paths, and the store's guarantees under
//! concurrency, crashes and hostile input.

use std::collections::HashSet;
use std::fs;
#[cfg(unix)]
use std::os::unix::fs::PermissionsExt;
use std::process::{Command as Std, Stdio};
use std::time::Duration;

use predicates::prelude::*;
use serde_json::{json, Value};

use crate::util::{abs, read_jsonl, stdout, Env};
#[cfg(unix)]
use crate::util::{mkfifo, mknod_null};

/// Append `signal`, its session made a real one first.
fn append(env: &Env, signal: Value) -> String {
    if let Some(session) = signal["session_id"].as_str() {
        env.known_sessions(&[session]);
    }
    let out = env
        .cmd("memory-store")
        .args(["append", &signal.to_string()])
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "append failed: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    stdout(&out).trim().to_string()
}

/// Three signals of different kinds; returns their ids.
fn seed(env: &Env) -> Vec<String> {
    vec![
        append(
            env,
            json!({"type": "correction", "content": "Use pnpm, not npm", "session_id": "s1", "project": abs("/work/app"), "tags": ["pnpm"]}),
        ),
        append(
            env,
            json!({"type": "failure", "content": "Bash failed: Exit code 1", "session_id": "s1", "project": abs("/work/app")}),
        ),
        append(
            env,
            json!({"type": "convention", "content": "Tests go in tests/unit", "session_id": "s2", "project": abs("/other")}),
        ),
    ]
}

fn ids_of(lines: &[Value]) -> Vec<String> {
    lines
        .iter()
        .filter_map(|v| v["id"].as_str().map(str::to_string))
        .collect()
}

fn query(env: &Env, args: &[&str]) -> Vec<Value> {
    let out = env
        .cmd("memory-store")
        .arg("query")
        .args(args)
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    stdout(&out)
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect()
}

#[test]
fn append_fills_fields_and_assigns_ids() {
    let env = Env::new();
    let ids = seed(&env);
    assert_eq!(ids.iter().collect::<HashSet<_>>().len(), 3);
    assert!(ids
        .iter()
        .all(|id| id.starts_with("SIG-") && id.len() == "SIG-20261122-0123456789".len()));
    let lines = env.store_lines();
    assert_eq!(ids_of(&lines), ids);
    let first = &lines[0];
    assert_eq!(first["version"], 1);
    assert_eq!(first["status"], "captured");
    assert_eq!(first["confidence"], 1);
    assert_eq!(first["source"]["hook"], "cli");
    assert!(first["timestamp"].as_str().unwrap().ends_with('Z'));
    for key in ["category", "related", "promoted_to", "meta", "context"] {
        assert!(first.get(key).is_some(), "missing {key}");
    }
}

#[test]
fn append_reads_json_lines_and_arrays_from_stdin() {
    let env = Env::new();
    env.cmd("memory-store")
        .args(["append", "-"])
        .write_stdin(
            "{\"type\":\"gotcha\",\"content\":\"a\"}\n\n{\"type\":\"gotcha\",\"content\":\"b\"}\n",
        )
        .assert()
        .success()
        .stdout(predicate::str::is_match("^SIG-\\S+\nSIG-\\S+\n$").unwrap());
    env.cmd("memory-store")
        .args(["append", "-"])
        .write_stdin("[{\"type\":\"gotcha\",\"content\":\"c\"}]")
        .assert()
        .success();
    assert_eq!(env.store_lines().len(), 3);
}

/// Cleaning takes the invisible characters out of every key too; one that then names a field
/// (`conte\u200bxt`) was written beside that field, and a line with a key twice could not be
/// read back: the signal was lost. Such a key is dropped, from what `append` stores and from
/// what `query` prints of a line an older version wrote.
#[test]
fn a_key_that_cleaning_makes_a_fields_name_is_dropped_not_written_twice() {
    let env = Env::new();
    env.cmd("memory-store")
        .args(["append", "-"])
        .write_stdin(
            "{\"type\":\"correction\",\"content\":\"use pnpm\",\"context\":\"said\",\"conte\\u200bxt\":\"sneaky\",\"source\":{\"li\\u200bne\":9,\"col\":2}}\n",
        )
        .assert()
        .success();
    let stored = fs::read_to_string(env.store()).unwrap();
    assert_eq!(stored.matches("\"context\":").count(), 1, "{stored}");
    assert_eq!(stored.matches("\"line\":").count(), 1, "{stored}");
    assert!(
        stored.contains("\"col\":2"),
        "an unknown key is kept: {stored}"
    );
    let query = |env: &Env| -> Vec<Value> {
        let out = env
            .cmd("memory-store")
            .args(["query", "--format", "jsonl"])
            .output()
            .unwrap();
        assert!(out.status.success(), "{out:?}");
        stdout(&out)
            .lines()
            .map(|l| {
                assert_eq!(l.matches("\"context\":").count(), 1, "{l}");
                serde_json::from_str(l).unwrap()
            })
            .collect()
    };
    let printed = query(&env);
    assert_eq!(printed.len(), 1);
    assert_eq!(printed[0]["context"], "said");
    // A line an older version wrote with such a key prints as one readable signal.
    let old = Env::new();
    fs::create_dir_all(old.store().parent().unwrap()).unwrap();
    fs::write(
        old.store(),
        "{\"id\":\"SIG-20261023-0000000001\",\"version\":1,\"timestamp\":\"2026-10-23T14:55:45Z\",\"type\":\"correction\",\"status\":\"captured\",\"confidence\":1,\"content\":\"Stop running npm test\",\"context\":\"\",\"conte\\u0000xt\":\"User said so\"}\n",
    )
    .unwrap();
    let printed = query(&old);
    assert_eq!(printed.len(), 1);
    assert_eq!(printed[0]["content"], "Stop running npm test");
}

#[test]
fn append_counts_a_repeat_instead_of_storing_it_twice() {
    let env = Env::new();
    let a = append(
        &env,
        json!({"type": "correction", "content": "No, use pnpm!", "project": "/p", "session_id": "s1"}),
    );
    let b = append(
        &env,
        json!({"type": "correction", "content": "no use PNPM", "project": "/p", "session_id": "s2"}),
    );
    assert_eq!(a, b);
    let c = append(
        &env,
        json!({"type": "correction", "content": "No, use pnpm.", "project": "/p", "session_id": "s3"}),
    );
    assert_eq!(a, c);
    let got: Value = serde_json::from_str(&stdout(
        &env.cmd("memory-store").args(["get", &a]).output().unwrap(),
    ))
    .unwrap();
    assert_eq!(got["meta"]["seen"], 3);
    assert_eq!(got["confidence"], 3);
    let listed = query(&env, &[]);
    assert_eq!(listed.len(), 1);
    assert_eq!(listed[0]["meta"]["seen"], 3);
    // Another project is another signal.
    let d = append(
        &env,
        json!({"type": "correction", "content": "No, use pnpm!", "project": "/q"}),
    );
    assert_ne!(a, d);
}

/// `append -` prints one line per object, in input order: a new id, or the id a repeat was
/// counted for, wherever it falls in the batch.
#[test]
fn append_prints_one_line_per_object_in_input_order() {
    let env = Env::new();
    env.known_sessions(&["s2"]);
    let first = append(
        &env,
        json!({"type": "correction", "content": "Use pnpm, not npm", "project": "/p", "session_id": "s1"}),
    );
    let batch = [
        json!({"type": "gotcha", "content": "The e2e tests need Node 20", "project": "/p", "session_id": "s2"}),
        json!({"type": "correction", "content": "Use pnpm, not npm", "project": "/p", "session_id": "s2"}),
        json!({"type": "convention", "content": "Tests go in tests/unit", "project": "/p", "session_id": "s2"}),
    ];
    let stdin: String = batch.iter().map(|v| format!("{v}\n")).collect();
    let out = env
        .cmd("memory-store")
        .args(["append", "-"])
        .write_stdin(stdin)
        .output()
        .unwrap();
    assert!(out.status.success());
    let lines: Vec<String> = stdout(&out).lines().map(str::to_string).collect();
    assert_eq!(lines.len(), 3, "{lines:?}");
    assert_eq!(
        lines[1], first,
        "the repeat answers on its own line: {lines:?}"
    );
    assert!(lines[0] != first && lines[2] != first && lines[0] != lines[2]);
    let get = |id: &str| -> Value {
        serde_json::from_str(&stdout(
            &env.cmd("memory-store").args(["get", id]).output().unwrap(),
        ))
        .unwrap()
    };
    assert_eq!(get(&lines[0])["type"], "gotcha");
    assert_eq!(get(&lines[2])["type"], "convention");
}

/// A sighting at the place the index shows for a signal (the prompt that opened its turn, where
/// a failure's own line is its call's) is the signal's own episode: it adds nothing.
#[test]
fn a_sighting_at_a_signals_own_turn_is_no_new_episode() {
    let env = Env::new();
    let id = append(
        &env,
        json!({"type": "gotcha", "content": "jq is not installed here", "project": "/p", "session_id": "s1",
               "source": {"hook": "PreCompact", "line": 40, "prompt_line": 34}}),
    );
    let at = |line: u64| {
        json!({"same_as": id, "context": "User: no jq here", "session_id": "s1",
               "source": {"hook": "reflect", "line": line, "origin": "user"}})
    };
    let seen = |env: &Env| {
        let got: Value = serde_json::from_str(&stdout(
            &env.cmd("memory-store").args(["get", &id]).output().unwrap(),
        ))
        .unwrap();
        got["meta"]["seen"].as_u64().unwrap_or(1)
    };
    assert_eq!(append(&env, at(34)), id);
    assert_eq!(seen(&env), 1, "the prompt of its own turn");
    assert_eq!(append(&env, at(52)), id);
    assert_eq!(seen(&env), 2, "another turn is another episode");
}

/// `"same_as": ID` records one more sighting of a stored signal, with its own session, line
/// and words (shown by `get`), instead of a second signal; the same sighting again adds
/// nothing, and an unknown id is refused before anything is stored.
#[test]
fn append_same_as_adds_a_sighting_with_its_own_evidence() {
    let env = Env::new();
    let id = append(
        &env,
        json!({"type": "correction", "content": "Use pnpm, not npm", "project": "/p", "session_id": "s1",
               "source": {"hook": "reflect", "line": 4}}),
    );
    let sighting = json!({"same_as": id, "context": "User: pnpm please, like I said last week",
                          "session_id": "s2", "source": {"hook": "reflect", "line": 17, "origin": "user"}});
    // Each sighting says whose it is, so one given the wrong id shows at once.
    env.known_sessions(&["s2"]);
    env.cmd("memory-store")
        .args(["append", &sighting.to_string()])
        .assert()
        .success()
        .stdout(format!("{id}\n"))
        .stderr(predicate::str::contains(format!(
            "{id} (\"Use pnpm, not npm\") seen again"
        )));
    // A sighting where another signal came from says so: one rule would count twice.
    let other = append(
        &env,
        json!({"type": "convention", "content": "Tests go in tests/unit", "project": "/p",
               "session_id": "s3", "source": {"hook": "reflect", "line": 9}}),
    );
    let at_other = json!({"same_as": id, "context": "User: tests in tests/unit, and pnpm",
                          "session_id": "s3", "source": {"hook": "reflect", "line": 9, "origin": "user"}});
    env.cmd("memory-store")
        .args(["append", &at_other.to_string()])
        .assert()
        .success()
        .stderr(predicate::str::contains(format!(
            "note: s3:L9 is also where {other} was seen"
        )));
    env.cmd("memory-store")
        .args(["append", &sighting.to_string()])
        .assert()
        .success()
        .stderr(predicate::str::contains("note:").not());
    assert_eq!(append(&env, sighting.clone()), id);
    assert_eq!(append(&env, sighting), id, "the same sighting again");
    let got: Value = serde_json::from_str(&stdout(
        &env.cmd("memory-store").args(["get", &id]).output().unwrap(),
    ))
    .unwrap();
    assert_eq!(got["meta"]["seen"], 3, "{got}");
    let seen = &got["meta"]["sightings"][1];
    assert_eq!(
        (seen["session_id"].as_str(), seen["line"].as_u64()),
        (Some("s2"), Some(17))
    );
    assert!(
        seen["said"]
            .as_str()
            .unwrap()
            .contains("like I said last week"),
        "{got}"
    );
    assert_eq!(query(&env, &[]).len(), 2);
    let before = env.store_lines().len();
    env.cmd("memory-store")
        .args(["append", "-"])
        .write_stdin(format!(
            "{}\n{}\n",
            json!({"type": "gotcha", "content": "new"}),
            json!({"same_as": "SIG-20260101-0000000000", "context": "User: x"})
        ))
        .assert()
        .code(2)
        .stderr(predicate::str::contains("no stored signal"));
    assert_eq!(env.store_lines().len(), before, "nothing stored");
}

/// Evidence must name a real place: a line from 1 on, and a session the store or Claude Code's
/// transcripts know. Anything else refuses the whole input with exit 2 and a reason naming the
/// field; an object that names no session stays valid.
#[test]
fn append_refuses_evidence_that_points_nowhere() {
    let env = Env::new();
    env.known_sessions(&["s-transcript"]);
    let cursors = env.data.join("cursors");
    fs::create_dir_all(&cursors).unwrap();
    fs::write(cursors.join("s-captured.json"), "{}").unwrap();
    let stored = json!({"id": "SIG-20261122-00000000aa", "version": 1, "timestamp": "2026-11-22T10:00:00Z",
        "session_id": "s-stored", "project": "/p", "type": "gotcha", "status": "captured", "confidence": 1,
        "source": {"hook": "cli"}, "content": "stored before", "context": "", "category": null,
        "tags": [], "related": [], "promoted_to": null, "meta": {}});
    fs::write(env.store(), format!("{stored}\n")).unwrap();
    let evidence = |session: Option<&str>, line: u64, content: &str| {
        let mut v = json!({"type": "correction", "content": content, "project": "/p",
            "context": "User: no, use pnpm", "source": {"hook": "reflect", "line": line, "origin": "user"}});
        if let Some(s) = session {
            v["session_id"] = json!(s);
        }
        v
    };
    let run = |objects: &[Value]| {
        let stdin: String = objects.iter().map(|v| format!("{v}\n")).collect();
        env.cmd("memory-store")
            .args(["append", "-"])
            .write_stdin(stdin)
            .output()
            .unwrap()
    };
    let refused = |objects: &[Value], field: &str| {
        let before = env.store_lines().len();
        let out = run(objects);
        let err = String::from_utf8_lossy(&out.stderr).to_string();
        assert_eq!(out.status.code(), Some(2), "{objects:?}: {err}");
        assert_eq!(err.lines().count(), 1, "{err}");
        assert!(err.contains(&format!("\"{field}\"")), "{err}");
        assert_eq!(
            env.store_lines().len(),
            before,
            "nothing stored: {objects:?}"
        );
    };
    refused(
        &[evidence(Some("s-transcript"), 0, "Use pnpm")],
        "source.line",
    );
    refused(&[evidence(None, 0, "Use pnpm")], "source.line");
    refused(&[evidence(Some("x"), 3, "Use pnpm")], "session_id");
    // The whole batch: a valid object before the bad one is not stored either.
    refused(
        &[
            evidence(Some("s-transcript"), 2, "Use yarn"),
            evidence(Some("x"), 3, "Use pnpm"),
        ],
        "session_id",
    );
    let sighting = |session: &str, line: u64| {
        json!({"same_as": "SIG-20261122-00000000aa", "context": "User: again", "session_id": session,
            "source": {"hook": "reflect", "line": line, "origin": "user"}})
    };
    refused(&[sighting("x", 4)], "session_id");
    refused(&[sighting("s-transcript", 0)], "source.line");

    // Known: by its transcript, by capture's cursor, by a signal in the store; or no session.
    for (k, session) in [
        Some("s-transcript"),
        Some("s-captured"),
        Some("s-stored"),
        None,
    ]
    .into_iter()
    .enumerate()
    {
        let out = run(&[evidence(
            session,
            1 + k as u64,
            &format!("Rule number {k} holds"),
        )]);
        assert!(out.status.success(), "{session:?}: {out:?}");
    }
    let out = run(&[sighting("s-captured", 9)]);
    assert!(out.status.success(), "{out:?}");
    assert_eq!(env.store_lines().len(), 6, "four signals and a sighting");
}

#[test]
fn append_stores_a_failure_the_second_look_found_with_its_fix() {
    // The skill's shape for a failed call capture never stored: the call's own line, the
    // tool's words, what fixed it.
    let env = Env::new();
    let id = append(
        &env,
        json!({"type": "failure", "content": "Bash failed: Error HH19: an ESM project",
            "resolution": "`mv hardhat.config.js hardhat.config.cjs`", "session_id": "s-old",
            "project": abs("/work/app"), "source": {"hook": "reflect", "line": 545, "origin": "tool"}}),
    );
    let stored = &query(&env, &[])[0];
    assert_eq!(stored["id"], json!(id));
    assert_eq!(stored["source"]["line"], json!(545));
    assert_eq!(stored["source"]["origin"], json!("tool"));
    let out = env
        .cmd("memory-store")
        .args(["query", "--format", "index"])
        .output()
        .unwrap();
    let index = stdout(&out);
    assert!(
        index.contains("s-old:545  Bash failed: Error HH19: an ESM project → `mv hardhat.config.js hardhat.config.cjs`"),
        "{index}"
    );
}

#[test]
fn append_rejects_bad_input_with_exit_2_and_writes_nothing() {
    let env = Env::new();
    for bad in [
        "not json",
        "[1]",
        "\"str\"",
        r#"{"content":"no type"}"#,
        r#"{"type":"bogus","content":"x"}"#,
        r#"{"type":"failure","content":"   "}"#,
        r#"{"type":"failure","content":"x","confidence":9}"#,
        // Verified is only ever the user's word (update --confidence 4), never a writer's claim.
        r#"{"type":"correction","content":"x","confidence":4}"#,
        r#"{"type":"failure","content":"x","status":"bogus"}"#,
        r#"{"same_as":"not-an-id","context":"User: x"}"#,
        r#"{"same_as":"SIG-20260101-0000000000"}"#,
    ] {
        env.cmd("memory-store")
            .args(["append", bad])
            .assert()
            .code(2)
            .stderr(predicate::str::starts_with("memory-store: "));
    }
    assert!(!env.store().exists() || env.store_lines().is_empty());
}

#[test]
fn get_prints_one_signal_and_fails_on_unknown_ids() {
    let env = Env::new();
    let ids = seed(&env);
    let out = env
        .cmd("memory-store")
        .args(["get", &ids[1]])
        .output()
        .unwrap();
    assert!(out.status.success());
    let v: Value = serde_json::from_str(&stdout(&out)).unwrap();
    assert_eq!(v["id"], ids[1].as_str());
    assert_eq!(v["type"], "failure");
    env.cmd("memory-store")
        .args(["get", "SIG-20990101-0000000000"])
        .assert()
        .code(1)
        .stderr(
            predicate::str::contains("no signal SIG-20990101-0000000000")
                .and(predicate::str::contains("signals.jsonl")),
        );
}

#[test]
fn query_filters_combine() {
    let env = Env::new();
    let ids = seed(&env);
    assert_eq!(
        ids_of(&query(&env, &["--type", "correction"])),
        [ids[0].clone()]
    );
    assert_eq!(
        ids_of(&query(
            &env,
            &["--type", "correction", "--type", "convention"]
        )),
        [ids[0].clone(), ids[2].clone()]
    );
    assert_eq!(
        ids_of(&query(&env, &["--session", "s1"])),
        ids[..2].to_vec()
    );
    assert_eq!(
        ids_of(&query(&env, &["--project", &abs("/work")])),
        ids[..2].to_vec()
    );
    assert!(query(&env, &["--project", "/wor"]).is_empty());
    assert_eq!(ids_of(&query(&env, &["--tag", "pnpm"])), [ids[0].clone()]);
    assert_eq!(query(&env, &["--since", "1h"]).len(), 3);
    assert!(query(&env, &["--since", "2099-01-01"]).is_empty());
    assert_eq!(ids_of(&query(&env, &["--limit", "2"])), ids[1..].to_vec());
    assert_eq!(query(&env, &["--status", "captured"]).len(), 3);
    assert!(query(&env, &["--status", "promoted"]).is_empty());
}

#[test]
fn query_formats() {
    let env = Env::new();
    let ids = seed(&env);
    let run = |fmt: &str| {
        stdout(
            &env.cmd("memory-store")
                .args(["query", "--format", fmt])
                .output()
                .unwrap(),
        )
    };
    let json: Value = serde_json::from_str(&run("json")).unwrap();
    assert_eq!(json.as_array().unwrap().len(), 3);
    // What the user said first; seen as often and as sure, the newest first.
    let index = run("index");
    assert_eq!(index.lines().count(), 3);
    for (line, id) in index.lines().zip([&ids[2], &ids[0], &ids[1]]) {
        assert!(line.starts_with(id.as_str()), "{line}");
    }
    assert!(
        index
            .lines()
            .nth(1)
            .unwrap()
            .contains("correction       seen 1  conf 1")
            && index.contains("Use pnpm, not npm")
    );
    // Seen again in another session, a signal goes first and says so; a budget of one line
    // says what it left out.
    append(
        &env,
        json!({"type": "correction", "content": "Use pnpm, not npm", "session_id": "s3", "project": abs("/work/app")}),
    );
    let index = run("index");
    assert!(
        index.starts_with(&format!(
            "{}  correction       seen 2  in 2 sessions conf 2",
            ids[0]
        )),
        "{index}"
    );
    // A rewrite folds the sighting into the signal and keeps the count.
    env.cmd("memory-store")
        .args(["update", &ids[0], "--category", "tooling"])
        .assert()
        .success();
    let store = std::fs::read_to_string(env.data.join("signals.jsonl")).unwrap();
    assert!(!store.contains("\"recur\""), "{store}");
    assert!(store.contains("\"sessions\":2"), "{store}");
    assert!(
        run("index").starts_with(&format!(
            "{}  correction       seen 2  in 2 sessions conf 2",
            ids[0]
        )),
        "{index}"
    );
    let one = stdout(
        &env.cmd("memory-store")
            .args(["query", "--format", "index", "--budget-tokens", "40"])
            .output()
            .unwrap(),
    );
    assert_eq!(one.lines().count(), 2, "{one}");
    assert!(
        one.lines()
            .nth(1)
            .unwrap()
            .starts_with("… 2 more signal(s) not shown"),
        "{one}"
    );
    env.cmd("memory-store")
        .args(["query", "--budget-tokens", "40"])
        .assert()
        .code(2);
    let table = run("table");
    assert!(table.starts_with("ID "), "{table}");
    assert!(table.contains("3 signals"));
    assert!(table
        .lines()
        .nth(1)
        .unwrap()
        .contains("correction       captured"));
    env.cmd("memory-store")
        .args(["query", "--format", "xml"])
        .assert()
        .code(2);
}

#[test]
fn query_rejects_bad_filters() {
    let env = Env::new();
    for args in [
        &["--status", "nope"][..],
        &["--type", "nope"],
        &["--since", "yesterday"],
        &["--limit", "x"],
        &["--bogus"],
    ] {
        env.cmd("memory-store")
            .arg("query")
            .args(args)
            .assert()
            .code(2);
    }
}

#[test]
fn update_changes_only_what_it_is_asked() {
    let env = Env::new();
    let ids = seed(&env);
    let before = env.store_lines();
    env.cmd("memory-store")
        .args([
            "update",
            &ids[0],
            "--status",
            "analyzed",
            "--confidence",
            "4",
            "--category",
            "tooling",
            "--tag",
            "js",
            "--tag",
            "pnpm",
        ])
        .assert()
        .success();
    let after = env.store_lines();
    assert_eq!(after[0]["status"], "analyzed");
    assert_eq!(after[0]["confidence"], 4);
    assert_eq!(after[0]["category"], "tooling");
    assert_eq!(after[0]["tags"], json!(["pnpm", "js"]));
    assert_eq!(after[1..], before[1..]);
    assert!(
        fs::read_dir(env.data.join("backups")).unwrap().count() >= 1,
        "a rewrite leaves a backup"
    );
    env.cmd("memory-store")
        .args(["update", &ids[0]])
        .assert()
        .code(2);
    env.cmd("memory-store")
        .args(["update", &ids[0], "--confidence", "5"])
        .assert()
        .code(2);
    env.cmd("memory-store")
        .args(["update", &ids[0], "--status", "nope"])
        .assert()
        .code(2);
    env.cmd("memory-store")
        .args(["update", "SIG-20990101-0000000000", "--status", "analyzed"])
        .assert()
        .code(1);
    // Several ids: all of them, or none when one is unknown.
    env.cmd("memory-store")
        .args([
            "update",
            &ids[1],
            "SIG-20990101-0000000000",
            "--status",
            "analyzed",
        ])
        .assert()
        .code(1)
        .stderr(predicate::str::contains("nothing updated"));
    assert_eq!(env.store_lines(), after);
    env.cmd("memory-store")
        .args(["update", &ids[1], &ids[2], "--status", "analyzed"])
        .assert()
        .success()
        .stdout(format!("updated {} {}\n", ids[1], ids[2]));
    assert!(env.store_lines().iter().all(|s| s["status"] == "analyzed"));
}

#[test]
fn dismiss_is_all_or_nothing() {
    let env = Env::new();
    let ids = seed(&env);
    env.cmd("memory-store")
        .args(["dismiss", &ids[0], "SIG-20990101-0000000000"])
        .assert()
        .code(1)
        .stderr(predicate::str::contains("nothing dismissed"));
    assert!(env.store_lines().iter().all(|l| l["status"] == "captured"));
    env.cmd("memory-store")
        .args(["dismiss", &ids[0], &ids[1]])
        .assert()
        .success();
    let statuses: Vec<Value> = env
        .store_lines()
        .iter()
        .map(|l| l["status"].clone())
        .collect();
    assert_eq!(
        statuses,
        [json!("dismissed"), json!("dismissed"), json!("captured")]
    );
    env.cmd("memory-store").arg("dismiss").assert().code(2);
}

#[test]
fn promote_writes_the_target_records_it_and_is_idempotent() {
    let env = Env::new();
    let ids = seed(&env);
    let project = env.dir.path().join("proj");
    fs::create_dir_all(&project).unwrap();
    let target = project.join("CLAUDE.md");
    fs::write(
        &target,
        "# My project\n\n## Conventions\n\n- tabs\n\n## Notes\n\nkeep\n",
    )
    .unwrap();
    env.cmd("memory-store")
        .args([
            "promote",
            &ids[0],
            "--target",
            target.to_str().unwrap(),
            "--content",
            "Use pnpm, not npm",
        ])
        .assert()
        .success()
        .stdout(
            predicate::str::contains("added to").and(predicate::str::contains("## Conventions")),
        );
    assert_eq!(
        fs::read_to_string(&target).unwrap(),
        "# My project\n\n## Conventions\n\n- tabs\n- Use pnpm, not npm\n\n## Notes\n\nkeep\n"
    );
    let sig = &env.store_lines()[0];
    assert_eq!(sig["status"], "promoted");
    assert_eq!(sig["promoted_to"], target.to_str().unwrap());
    let index = fs::read_to_string(env.data.join("learnings/LEARNINGS.md")).unwrap();
    assert!(
        index.contains(&ids[0]) && index.contains("Use pnpm, not npm"),
        "{index}"
    );
    let topic = fs::read_to_string(env.data.join("learnings/correction.md")).unwrap();
    assert!(topic.contains(&format!("## {}", ids[0])));
    let backups: Vec<String> = fs::read_dir(env.data.join("backups"))
        .unwrap()
        .map(|e| fs::read_to_string(e.unwrap().path()).unwrap_or_default())
        .collect();
    assert!(
        backups
            .iter()
            .any(|b| b == "# My project\n\n## Conventions\n\n- tabs\n\n## Notes\n\nkeep\n"),
        "target backed up"
    );
    // Again: the file does not get the line twice, the index keeps one line.
    env.cmd("memory-store")
        .args([
            "promote",
            &ids[0],
            "--target",
            target.to_str().unwrap(),
            "--content",
            "Use pnpm, not npm",
        ])
        .assert()
        .success()
        .stdout(predicate::str::contains("nothing changed"));
    assert_eq!(
        fs::read_to_string(&target)
            .unwrap()
            .matches("Use pnpm")
            .count(),
        1
    );
    let index = fs::read_to_string(env.data.join("learnings/LEARNINGS.md")).unwrap();
    assert_eq!(index.matches(ids[0].as_str()).count(), 1);
}

#[test]
fn promote_says_when_the_line_was_there_but_the_signal_is_new_to_it() {
    let env = Env::new();
    let ids = seed(&env);
    let target = env.dir.path().join("CLAUDE.md");
    fs::write(&target, "# P\n\n## Conventions\n\n- Use pnpm, not npm\n").unwrap();
    let out = promote_to(&env, &ids[0], &target);
    assert!(out.status.success(), "{out:?}");
    let said = stdout(&out);
    assert!(
        said.contains("already in") && !said.contains("nothing changed"),
        "{said}"
    );
    assert_eq!(env.store_lines()[0]["status"], "promoted");
}

#[test]
fn regression_a_signal_promoted_to_two_targets_keeps_both_in_the_learnings() {
    let env = Env::new();
    let ids = seed(&env);
    let claude_md = env.dir.path().join("CLAUDE.md");
    let memory = env.dir.path().join("MEMORY.md");
    for target in [&claude_md, &memory] {
        let out = promote_to(&env, &ids[0], target);
        assert!(out.status.success(), "{out:?}");
    }
    let index = fs::read_to_string(env.data.join("learnings/LEARNINGS.md")).unwrap();
    let lines: Vec<&str> = index.lines().filter(|l| l.contains(&ids[0])).collect();
    assert_eq!(lines.len(), 2, "{index}");
    assert!(
        lines[0].contains(&format!("→ {} (", claude_md.display())),
        "{index}"
    );
    assert!(
        lines[1].contains(&format!("→ {} (", memory.display())),
        "{index}"
    );
    let topic = fs::read_to_string(env.data.join("learnings/correction.md")).unwrap();
    assert_eq!(
        topic.matches(&format!("## {}", ids[0])).count(),
        1,
        "{topic}"
    );
    for target in [&claude_md, &memory] {
        assert!(
            topic.contains(&format!("to {} (## ", target.display())),
            "{topic}"
        );
    }
    // Again into the first: nothing changes, both stay.
    let out = promote_to(&env, &ids[0], &claude_md);
    assert!(stdout(&out).contains("promoted") && out.status.success());
    let again = fs::read_to_string(env.data.join("learnings/LEARNINGS.md")).unwrap();
    assert_eq!(
        again.lines().filter(|l| l.contains(&ids[0])).count(),
        2,
        "{again}"
    );
}

#[test]
fn promote_creates_a_missing_target_and_section() {
    let env = Env::new();
    let ids = seed(&env);
    let target = env.dir.path().join("proj/.claude/rules/testing.md");
    let args = [
        "promote",
        &ids[2],
        "--target",
        target.to_str().unwrap(),
        "--content",
        "Tests go in tests/unit",
        "--section",
        "Layout",
    ];
    // A directory that does not exist is a mistyped path until the caller says otherwise.
    env.cmd("memory-store").args(args).assert().code(1).stderr(
        predicate::str::contains("does not exist").and(predicate::str::contains("--mkdir")),
    );
    assert!(!env.dir.path().join("proj").exists(), "nothing created");
    assert_eq!(env.store_lines()[2]["status"], "captured");
    env.cmd("memory-store")
        .args(args)
        .arg("--mkdir")
        .assert()
        .success()
        .stdout(predicate::str::contains("(created)"));
    assert_eq!(
        fs::read_to_string(&target).unwrap(),
        "# Testing\n\n## Layout\n\n- Tests go in tests/unit\n"
    );
}

fn promote_to(env: &Env, id: &str, target: &std::path::Path) -> std::process::Output {
    env.cmd("memory-store")
        .args(["promote", id, "--target", target.to_str().unwrap()])
        .args(["--content", "Use pnpm, not npm"])
        .timeout(Duration::from_secs(10))
        .output()
        .unwrap()
}

/// `promote` wrote into an executable `.md` that did not start with `#!`: a shell runs such a file
/// as a script, so a learning written there could be run. It is refused, the fix named, nothing
/// changed; once the bit is cleared the promotion goes through.
#[test]
// Unix only: the execute bit is Unix's; Windows has none, so nothing stands for this there.
#[cfg(unix)]
fn regression_promote_refuses_an_executable_markdown_file_without_a_shebang() {
    let env = Env::new();
    let ids = seed(&env);
    let repo = env.dir.path().join("wsl-repo");
    fs::create_dir_all(&repo).unwrap();
    let claude_md = repo.join("CLAUDE.md");
    fs::write(&claude_md, "# Project\n").unwrap();
    fs::set_permissions(&claude_md, fs::Permissions::from_mode(0o777)).unwrap();
    let store = fs::read(env.store()).unwrap();
    let out = promote_to(&env, &ids[0], &claude_md);
    assert_eq!(out.status.code(), Some(1), "{out:?}");
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(err.lines().count(), 1, "{err}");
    assert!(
        err.contains("is executable (mode 777)") && err.contains("chmod -x"),
        "{err}"
    );
    assert_eq!(fs::read_to_string(&claude_md).unwrap(), "# Project\n");
    assert_eq!(fs::read(env.store()).unwrap(), store, "nothing marked");
    fs::set_permissions(&claude_md, fs::Permissions::from_mode(0o644)).unwrap();
    let out = promote_to(&env, &ids[0], &claude_md);
    assert!(out.status.success(), "{out:?}");
    let text = fs::read_to_string(&claude_md).unwrap();
    assert!(text.contains("Use pnpm, not npm"), "{text}");
}

/// What is no Markdown note is refused on every platform, Windows' devices included: a git
/// config or hook, a note inside `.git/`, a directory named like a note, and on Windows the
/// console, the null device and a named pipe. Nothing is written and the signal stays unpromoted.
#[test]
fn promote_refuses_what_is_not_a_markdown_note() {
    let env = Env::new();
    let ids = seed(&env);
    let repo = env.dir.path().join("repo");
    let git = repo.join(".git");
    fs::create_dir_all(git.join("hooks")).unwrap();
    fs::write(git.join("config"), "[core]\n\tbare = false\n").unwrap();
    fs::write(git.join("hooks/pre-commit"), "#!/bin/sh\nexit 0\n").unwrap();
    fs::write(git.join("notes.md"), "# git's\n").unwrap();
    let dir_md = repo.join("docs.md");
    fs::create_dir_all(&dir_md).unwrap();
    let mut cases = vec![
        (git.join("config"), "not a Markdown file"),
        (git.join("hooks/pre-commit"), "not a Markdown file"),
        (git.join("notes.md"), "inside a .git directory"),
        (dir_md.clone(), "is a directory, not a regular file"),
    ];
    if cfg!(windows) {
        cases.push((std::path::PathBuf::from("CON"), "not a Markdown file"));
        cases.push((
            std::path::PathBuf::from(r"C:\Windows\NUL"),
            "not a Markdown file",
        ));
        // A named pipe with a note's name: nobody serves it, so it is no file to write into.
        cases.push((
            std::path::PathBuf::from(r"\\.\pipe\reflect-no-such-pipe\CLAUDE.md"),
            "does not exist",
        ));
    }
    let store = fs::read(env.store()).unwrap();
    let files = [
        git.join("config"),
        git.join("hooks/pre-commit"),
        git.join("notes.md"),
    ];
    let before: Vec<Vec<u8>> = files.iter().map(|p| fs::read(p).unwrap()).collect();
    for (target, why) in cases {
        let out = promote_to(&env, &ids[0], &target);
        assert_eq!(out.status.code(), Some(1), "{}: {out:?}", target.display());
        let err = String::from_utf8_lossy(&out.stderr);
        assert!(err.contains(why), "{}: {err}", target.display());
        let after: Vec<Vec<u8>> = files.iter().map(|p| fs::read(p).unwrap()).collect();
        assert_eq!(after, before, "{}: a file changed", target.display());
        assert!(dir_md.is_dir());
        assert_eq!(
            fs::read(env.store()).unwrap(),
            store,
            "the signal is not marked promoted"
        );
    }
}

#[test]
// Unix only: FIFOs, device nodes and the execute bit; Windows' devices and pipes are in
// promote_refuses_what_is_not_a_markdown_note. Its links would mean something on Windows, but Wine 8
// cannot stat the links it makes (scripts/test-windows names it).
#[cfg(unix)]
fn regression_promote_writes_only_into_markdown_notes() {
    let env = Env::new();
    let ids = seed(&env);
    let repo = env.dir.path().join("repo");
    let git = repo.join(".git");
    fs::create_dir_all(git.join("hooks")).unwrap();
    fs::create_dir_all(repo.join("tools")).unwrap();
    fs::create_dir_all(&env.home).unwrap();
    let bashrc = env.home.join(".bashrc");
    fs::write(&bashrc, "export PATH=$HOME/bin:$PATH\n").unwrap();
    fs::write(git.join("config"), "[core]\n\tbare = false\n").unwrap();
    fs::write(git.join("hooks/pre-commit"), "#!/bin/sh\nexit 0\n").unwrap();
    fs::write(git.join("notes.md"), "# git's\n").unwrap();
    let run_md = repo.join("tools/run.md");
    fs::write(&run_md, "#!/bin/sh\necho hi\n").unwrap();
    fs::set_permissions(&run_md, fs::Permissions::from_mode(0o755)).unwrap();
    std::os::unix::fs::symlink(&git, repo.join("gitdir")).unwrap();
    let fifo = repo.join("pipe.md");
    mkfifo(&fifo);
    let device = repo.join("null.md");
    let have_device = mknod_null(&device);

    let link = |name: &str, to: &std::path::Path| {
        let at = repo.join(name);
        std::os::unix::fs::symlink(to, &at).unwrap();
        at
    };
    let mut cases = vec![
        (link("CLAUDE.md", &bashrc), "not a Markdown file"),
        (git.join("config"), "not a Markdown file"),
        (git.join("hooks/pre-commit"), "not a Markdown file"),
        (git.join("notes.md"), "inside a .git directory"),
        (
            link("AGENTS.md", &git.join("notes.md")),
            "inside a .git directory",
        ),
        (repo.join("gitdir/notes.md"), "inside a .git directory"),
        (run_md.clone(), "is an executable program"),
        (fifo.clone(), "is a FIFO, not a regular file"),
        (link("LINKED.md", &fifo), "is a FIFO, not a regular file"),
    ];
    if have_device {
        cases.push((device.clone(), "is a device, not a regular file"));
        cases.push((link("DEV.md", &device), "is a device, not a regular file"));
    }
    let store = fs::read(env.store()).unwrap();
    for (target, why) in cases {
        let before: Vec<(std::path::PathBuf, Option<Vec<u8>>)> = [&bashrc, &run_md]
            .into_iter()
            .chain(
                [
                    git.join("config"),
                    git.join("hooks/pre-commit"),
                    git.join("notes.md"),
                ]
                .iter(),
            )
            .map(|p| (p.clone(), fs::read(p).ok()))
            .collect();
        let out = promote_to(&env, &ids[0], &target);
        assert_eq!(out.status.code(), Some(1), "{}: {out:?}", target.display());
        let err = String::from_utf8_lossy(&out.stderr);
        assert!(err.contains(why), "{}: {err}", target.display());
        for (p, bytes) in before {
            assert_eq!(fs::read(&p).ok(), bytes, "{} changed", p.display());
        }
        let kind = fs::symlink_metadata(&fifo).unwrap().file_type();
        assert!(
            std::os::unix::fs::FileTypeExt::is_fifo(&kind),
            "the FIFO stays a FIFO"
        );
        if have_device {
            let kind = fs::symlink_metadata(&device).unwrap().file_type();
            assert!(
                std::os::unix::fs::FileTypeExt::is_char_device(&kind),
                "the device stays"
            );
        }
        assert_eq!(
            fs::read(env.store()).unwrap(),
            store,
            "the signal is not marked promoted"
        );
    }
}

#[test]
// Unix only: Wine 8 cannot stat the symlinks and junctions it makes.
#[cfg(unix)]
fn promote_follows_a_claude_md_linked_into_a_dotfiles_repo() {
    let env = Env::new();
    let ids = seed(&env);
    let dotfiles = env.home.join("dotfiles/claude");
    fs::create_dir_all(&dotfiles).unwrap();
    let real = dotfiles.join("CLAUDE.md");
    fs::write(&real, "# Me\n").unwrap();
    fs::set_permissions(&real, fs::Permissions::from_mode(0o640)).unwrap();
    let link = env.config.join("CLAUDE.md");
    std::os::unix::fs::symlink("../dotfiles/claude/CLAUDE.md", &link).unwrap();
    let out = promote_to(&env, &ids[0], &link);
    assert!(out.status.success(), "{out:?}");
    assert!(fs::symlink_metadata(&link)
        .unwrap()
        .file_type()
        .is_symlink());
    assert_eq!(
        fs::read_to_string(&real).unwrap(),
        "# Me\n\n## Conventions\n\n- Use pnpm, not npm\n"
    );
    assert_eq!(
        fs::metadata(&real).unwrap().permissions().mode() & 0o777,
        0o640
    );
}

#[test]
fn promote_of_an_unknown_id_changes_nothing() {
    let env = Env::new();
    seed(&env);
    let before = fs::read(env.store()).unwrap();
    let target = env.dir.path().join("CLAUDE.md");
    fs::write(&target, "# keep\n").unwrap();
    env.cmd("memory-store")
        .args([
            "promote",
            "SIG-20990101-0000000000",
            "--target",
            target.to_str().unwrap(),
            "--content",
            "x",
        ])
        .assert()
        .code(1)
        .stderr(predicate::str::contains("no signal"));
    assert_eq!(fs::read_to_string(&target).unwrap(), "# keep\n");
    assert_eq!(fs::read(env.store()).unwrap(), before);
    assert!(!env.data.join("learnings").exists());
    env.cmd("memory-store")
        .args(["promote", "SIG-1", "--content", "x"])
        .assert()
        .code(2);
}

#[test]
fn forget_deletes_everywhere_including_backups() {
    let env = Env::new();
    let ids = seed(&env);
    let target = env.dir.path().join("CLAUDE.md");
    env.cmd("memory-store")
        .args([
            "promote",
            &ids[0],
            "--target",
            target.to_str().unwrap(),
            "--content",
            "Use pnpm, not npm",
        ])
        .assert()
        .success();
    env.cmd("memory-store").args(["archive"]).assert().success();
    env.cmd("memory-store")
        .args(["update", &ids[1], "--tag", "x"])
        .assert()
        .success();
    // ids[0] is now in the archive, the learnings and several store backups.
    let secret_marker = ids[0].as_str();
    assert!(String::from_utf8_lossy(&env.all_data_bytes()).contains(secret_marker));
    env.cmd("memory-store")
        .args(["forget", &ids[0]])
        .assert()
        .success()
        .stdout(predicate::str::contains("forgot 1 signal(s)"));
    assert!(
        !String::from_utf8_lossy(&env.all_data_bytes()).contains(secret_marker),
        "no trace left under the data dir"
    );
    assert_eq!(ids_of(&env.store_lines()), ids[1..].to_vec());
    // By session and by project.
    env.cmd("memory-store")
        .args(["forget", "--session", "s1"])
        .assert()
        .success();
    assert_eq!(ids_of(&env.store_lines()), [ids[2].clone()]);
    env.cmd("memory-store")
        .args(["forget", "--project", &abs("/other")])
        .assert()
        .success();
    assert!(env.store_lines().is_empty());
    env.cmd("memory-store").arg("forget").assert().code(2);
}

#[test]
fn forget_of_an_unknown_id_fails_and_forgets_nothing() {
    let env = Env::new();
    let ids = seed(&env);
    let before = fs::read(env.store()).unwrap();
    env.cmd("memory-store")
        .args(["forget", &ids[0], "SIG-20990101-0000000000"])
        .assert()
        .code(1)
        .stderr(
            predicate::str::contains("no signal SIG-20990101-0000000000")
                .and(predicate::str::contains("nothing forgotten")),
        );
    assert_eq!(fs::read(env.store()).unwrap(), before);
    // Forgotten once, an id is unknown the second time.
    env.cmd("memory-store")
        .args(["forget", &ids[0]])
        .assert()
        .success();
    env.cmd("memory-store")
        .args(["forget", &ids[0]])
        .assert()
        .code(1);
}

#[test]
fn archive_and_prune_follow_the_ttl_rules() {
    let env = Env::new();
    let old = "2020-01-01T00:00:00Z";
    let store_text: String = [
        json!({"id": "SIG-20200101-0000000001", "timestamp": old, "type": "correction", "status": "captured", "confidence": 1, "content": "old captured"}),
        json!({"id": "SIG-20200101-0000000002", "timestamp": old, "type": "correction", "status": "captured", "confidence": 4, "content": "old verified"}),
        json!({"id": "SIG-20200101-0000000003", "timestamp": old, "type": "correction", "status": "analyzed", "confidence": 2, "content": "old analyzed"}),
        json!({"id": "SIG-20200101-0000000004", "timestamp": old, "type": "correction", "status": "promoted", "confidence": 2, "content": "old promoted"}),
        json!({"id": "SIG-20200101-0000000005", "timestamp": old, "type": "correction", "status": "dismissed", "confidence": 2, "content": "old dismissed"}),
    ]
    .iter()
    .map(|v| v.to_string() + "\n")
    .collect();
    fs::create_dir_all(&env.data).unwrap();
    fs::write(env.store(), store_text).unwrap();
    append(&env, json!({"type": "failure", "content": "fresh"}));
    env.cmd("memory-store")
        .arg("prune")
        .assert()
        .success()
        .stdout(
            predicate::str::contains("pruned 1")
                .and(predicate::str::contains("flagged 1"))
                .and(predicate::str::contains("archived 2")),
        );
    let left = env.store_lines();
    let contents: Vec<&str> = left
        .iter()
        .map(|l| l["content"].as_str().unwrap())
        .collect();
    assert_eq!(contents, ["old verified", "old analyzed", "fresh"]);
    assert_eq!(left[1]["meta"]["needs_review"], true);
    let archived = read_jsonl(&env.data.join("signals.archive.jsonl"));
    assert_eq!(archived.len(), 2);
    assert!(archived.iter().all(|a| a["status"] == "archived"));
    assert_eq!(archived[0]["meta"]["status_before"], "promoted");
    // get finds archived signals too.
    env.cmd("memory-store")
        .args(["get", "SIG-20200101-0000000004"])
        .assert()
        .success();
    // archive --status moves what it is told to.
    env.cmd("memory-store")
        .args(["archive", "--status", "analyzed", "--days", "30"])
        .assert()
        .success()
        .stdout(predicate::str::contains("archived 1"));
    // Asked explicitly, archive moves even a verified signal (only the automatic prune spares it).
    env.cmd("memory-store")
        .args(["archive", "--status", "captured", "--days", "30"])
        .assert()
        .success()
        .stdout(predicate::str::contains("archived 1"));
    let left = env.store_lines();
    assert_eq!(left.len(), 1);
    assert_eq!(left[0]["content"], "fresh");
    env.cmd("memory-store")
        .args(["archive", "--status", "nope"])
        .assert()
        .code(2);
}

#[test]
fn stats_formats() {
    let env = Env::new();
    env.cmd("memory-store")
        .args(["stats", "--format", "statusline"])
        .assert()
        .success()
        .stdout("");
    let ids = seed(&env);
    env.cmd("memory-store")
        .args(["dismiss", &ids[0]])
        .assert()
        .success();
    env.cmd("memory-store")
        .args(["stats", "--format", "statusline"])
        .assert()
        .success()
        .stdout("reflect: 2 pending\n");
    let text = stdout(&env.cmd("memory-store").arg("stats").output().unwrap());
    assert!(text.contains("signals: 3 (2 pending review)"), "{text}");
    assert!(
        text.contains("by type: convention 1, correction 1, failure 1"),
        "{text}"
    );
    let json: Value = serde_json::from_str(&stdout(
        &env.cmd("memory-store")
            .args(["stats", "--format", "json"])
            .output()
            .unwrap(),
    ))
    .unwrap();
    assert_eq!(json["total"], 3);
    assert_eq!(json["pending"], 2);
    assert_eq!(json["by_status"]["dismissed"], 1);
    env.cmd("memory-store")
        .args(["stats", "--format", "yaml"])
        .assert()
        .code(2);
}

#[test]
fn export_formats() {
    let env = Env::new();
    let ids = seed(&env);
    let jsonl = stdout(
        &env.cmd("memory-store")
            .args(["export", "--format", "jsonl"])
            .output()
            .unwrap(),
    );
    let lines: Vec<Value> = jsonl
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    assert_eq!(ids_of(&lines), ids);
    let csv = stdout(
        &env.cmd("memory-store")
            .args(["export", "--format", "csv"])
            .output()
            .unwrap(),
    );
    let rows: Vec<&str> = csv.split("\r\n").filter(|r| !r.is_empty()).collect();
    assert_eq!(rows.len(), 4);
    assert!(rows[0].starts_with("id,timestamp,session_id,project,type,status"));
    assert!(rows[1].contains("\"Use pnpm, not npm\""), "{}", rows[1]);
    env.cmd("memory-store")
        .args(["export", "--format", "xml"])
        .assert()
        .code(2);
}

#[test]
fn migrate_converts_v2_lines_once() {
    let env = Env::new();
    fs::create_dir_all(&env.data).unwrap();
    let v2 = r#"{"ts":"2026-02-11T10:23:00Z","sid":"abc","type":"correction","context":"No, use pnpm not npm","turn":42}"#;
    fs::write(env.store(), format!("{v2}\n")).unwrap();
    // Readable before migration.
    let listed = query(&env, &[]);
    assert_eq!(listed[0]["content"], "No, use pnpm not npm");
    let id = listed[0]["id"].as_str().unwrap().to_string();
    env.cmd("memory-store")
        .arg("migrate")
        .assert()
        .success()
        .stdout(predicate::str::contains("migrated 1"));
    let lines = env.store_lines();
    assert_eq!(
        lines[0]["id"],
        id.as_str(),
        "the id a reader saw is the id after migration"
    );
    assert_eq!(lines[0]["version"], 1);
    assert_eq!(lines[0]["status"], "captured");
    assert_eq!(lines[0]["session_id"], "abc");
    let after_first = fs::read(env.store()).unwrap();
    env.cmd("memory-store")
        .arg("migrate")
        .assert()
        .success()
        .stdout(predicate::str::contains("migrated 0"));
    assert_eq!(fs::read(env.store()).unwrap(), after_first);
}

/// Migrated v2 signals kept their old dates, so the first `prune` (the last step of /reflect)
/// deleted them all, unreviewed.
#[test]
fn regression_migrated_v2_signals_survive_the_first_prune() {
    let env = Env::new();
    fs::create_dir_all(&env.data).unwrap();
    let v2 = |n: u32| {
        format!(
            r#"{{"ts":"2025-03-0{n}T10:00:00Z","sid":"abc","type":"correction","context":"No, use tool {n}","turn":4}}"#
        )
    };
    fs::write(env.store(), format!("{}\n{}\n", v2(1), v2(2))).unwrap();
    env.cmd("memory-store").arg("migrate").assert().success();
    env.cmd("memory-store")
        .arg("prune")
        .assert()
        .success()
        .stdout(predicate::str::contains("pruned 0"));
    let lines = env.store_lines();
    assert_eq!(lines.len(), 2, "both migrated signals wait for review");
    for l in &lines {
        assert_eq!(l["status"], "captured");
        assert!(l["timestamp"].as_str().unwrap().starts_with("2025-03-0"));
        assert!(l["meta"]["migrated_at"].is_string(), "{l}");
    }
}

#[test]
fn doctor_reports_problems_and_fixes() {
    let env = Env::new();
    seed(&env);
    let mut f = fs::OpenOptions::new()
        .append(true)
        .open(env.store())
        .unwrap();
    std::io::Write::write_all(&mut f, b"{\"torn").unwrap();
    let out = env.cmd("memory-store").arg("doctor").output().unwrap();
    let text = stdout(&out);
    assert!(text.contains("1 unreadable line(s)"), "{text}");
    assert!(text.contains("fix: "), "{text}");
    assert!(text.contains("lock") && text.contains("is free"), "{text}");
    assert!(text.contains("missing or not executable"), "{text}");
}

/// doctor reported an unreadable store (permission denied, or a directory) as "empty (nothing
/// captured yet)", and said nothing of torn archive lines or crash-leftover temp files.
#[test]
fn regression_doctor_reports_an_unreadable_store_torn_archive_lines_and_leftovers() {
    let env = Env::new();
    seed(&env);
    let doctor = |env: &Env| {
        let out = env.cmd("memory-store").arg("doctor").output().unwrap();
        (out.status.code(), stdout(&out))
    };
    // A store that cannot be read is a failure, not an empty store.
    let moved = env.dir.path().join("moved.jsonl");
    fs::rename(env.store(), &moved).unwrap();
    fs::create_dir(env.store()).unwrap();
    let (code, text) = doctor(&env);
    assert_eq!(code, Some(1), "{text}");
    assert!(
        text.contains("FAIL  cannot read the store") && text.contains("is a directory"),
        "{text}"
    );
    assert!(!text.contains("nothing captured yet"), "{text}");
    fs::remove_dir(env.store()).unwrap();
    fs::rename(&moved, env.store()).unwrap();
    // Root reads a file of mode 000: the case needs another user (and Unix's modes).
    #[cfg(unix)]
    if !is_root() {
        use std::os::unix::fs::PermissionsExt;
        fs::set_permissions(env.store(), fs::Permissions::from_mode(0o000)).unwrap();
        let (code, text) = doctor(&env);
        assert_eq!(code, Some(1), "{text}");
        assert!(text.contains("Permission denied"), "{text}");
        fs::set_permissions(env.store(), fs::Permissions::from_mode(0o600)).unwrap();
    }
    // A torn line in the archive, and a temp file a killed rewrite left.
    fs::write(env.data.join("signals.archive.jsonl"), "{\"torn").unwrap();
    let dead = crate::util::dead_pid();
    let leftover = env.data.join(format!(".signals.jsonl.{dead}.5.0.tmp"));
    fs::write(&leftover, fs::read(env.store()).unwrap()).unwrap();
    let (_, text) = doctor(&env);
    assert!(
        text.contains("1 unreadable line(s) in the archive"),
        "{text}"
    );
    assert!(text.contains("the last one torn"), "{text}");
    assert!(
        text.contains("temp file(s) left by an interrupted write"),
        "{text}"
    );
    assert!(text.contains(&leftover.display().to_string()), "{text}");
    // The next rewrite removes the leftover.
    env.cmd("memory-store").arg("prune").assert().success();
    assert!(!leftover.exists(), "the leftover copy of the store is gone");
    let (_, text) = doctor(&env);
    assert!(!text.contains("temp file(s)"), "{text}");
}

/// Whether the tests run as root (who reads a file of mode 000).
#[cfg(unix)]
fn is_root() -> bool {
    Std::new("id")
        .arg("-u")
        .output()
        .is_ok_and(|o| o.stdout.trim_ascii() == b"0")
}

#[test]
fn every_subcommand_has_help() {
    let env = Env::new();
    for sub in [
        "append", "get", "query", "update", "promote", "dismiss", "forget", "archive", "prune",
        "stats", "export", "migrate", "doctor",
    ] {
        env.cmd("memory-store")
            .args([sub, "--help"])
            .assert()
            .success()
            .stdout(predicate::str::contains("Usage: memory-store"));
    }
    env.cmd("memory-store")
        .arg("--version")
        .assert()
        .success()
        .stdout(predicate::str::starts_with("memory-store "));
    env.cmd("memory-store").assert().code(2);
    env.cmd("memory-store").arg("frobnicate").assert().code(2);
}

#[test]
fn errors_name_the_path_and_the_cause() {
    let env = Env::new();
    fs::create_dir_all(&env.data).unwrap();
    fs::create_dir_all(env.store()).unwrap(); // a directory where the store should be
    env.cmd("memory-store")
        .args(["query"])
        .assert()
        .code(1)
        .stderr(
            predicate::str::is_match(
                "^memory-store: .*signals.jsonl is a directory, not a regular file .+\n$",
            )
            .unwrap(),
        );
    let env = Env::new();
    env.cmd("memory-store")
        .env_remove("CLAUDE_CONFIG_DIR")
        .env_remove("HOME")
        .env_remove("REFLECT_HOME")
        .arg("stats")
        .assert()
        .code(1);
}

/// A FIFO in place of the store made `query`, `stats` and `get` wait forever for a writer.
#[test]
// Unix only: a FIFO is Unix's. On Windows the store (always signals.jsonl in the data dir) can be
// no device; a named pipe there would have to be served, and base's fsutil tests refuse pipes and
// devices as open_regular's input, which the store reads through.
#[cfg(unix)]
fn regression_a_fifo_as_the_store_is_refused_without_waiting() {
    let env = Env::new();
    fs::create_dir_all(&env.data).unwrap();
    mkfifo(&env.store());
    for args in [
        &["query"][..],
        &["stats"],
        &["get", "SIG-20261124-0000000001"],
    ] {
        env.cmd("memory-store")
            .args(args)
            .timeout(Duration::from_secs(10))
            .assert()
            .code(1)
            .stderr(predicate::str::contains(
                "signals.jsonl is a FIFO, not a regular file",
            ));
    }
}

/// `memory-store query | head -1`: more output than a pipe holds, into a pipe whose reader takes a
/// little and goes away. memory-store stops quietly with success, whatever the format.
#[test]
fn a_closed_stdout_is_not_an_error() {
    use std::io::Read;
    let env = Env::new();
    let batch: String = (0..3000)
        .map(|i| format!("{{\"type\":\"gotcha\",\"content\":\"item {i}\"}}\n"))
        .collect();
    env.cmd("memory-store")
        .args(["append", "-"])
        .write_stdin(batch)
        .assert()
        .success();
    for format in ["table", "jsonl"] {
        let mut child = Std::new(crate::util::bin_path("memory-store"))
            .args(["query", "--format", format])
            .env("REFLECT_HOME", &env.data)
            .env("HOME", &env.home)
            .env_remove("CLAUDE_CONFIG_DIR")
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap();
        let mut reader = child.stdout.take().unwrap();
        let mut head = [0u8; 64];
        reader.read_exact(&mut head).unwrap();
        drop(reader);
        let done = child.wait_with_output().unwrap();
        assert_eq!(
            (
                done.status.code(),
                String::from_utf8_lossy(&done.stderr).as_ref()
            ),
            (Some(0), ""),
            "--format {format}: memory-store exits 0, silently, when its reader goes away"
        );
    }
}

/// 16 processes × 500 appends at once, with updates and prunes racing: 8,000 intact lines,
/// 8,000 distinct ids, and none lost to a rewrite. (Under Wine, where starting a process costs
/// ~50x more, 8 × 40 with 10 update-and-prune rounds: the same races, fewer turns.)
#[test]
fn concurrent_appends_and_rewrites_lose_nothing() {
    let (writers, items, rounds) = if cfg!(windows) {
        (8, 40, 10)
    } else {
        (16, 500, 40)
    };
    let env = Env::new();
    let first = append(
        &env,
        json!({"type": "gotcha", "content": "the one the updater edits"}),
    );
    let bin = crate::util::bin_path("memory-store");
    let run = |args: &[String]| {
        Std::new(&bin)
            .args(args)
            .env("REFLECT_HOME", &env.data)
            .env("HOME", &env.home)
            .env_remove("CLAUDE_CONFIG_DIR")
            .stdout(Stdio::null())
            .status()
            .unwrap()
            .success()
    };
    std::thread::scope(|scope| {
        let writers: Vec<_> = (0..writers)
            .map(|w| {
                scope.spawn(move || {
                    (0..items).all(|i| {
                        let line =
                            json!({"type": "gotcha", "content": format!("writer {w} item {i}")});
                        run(&["append".into(), line.to_string()])
                    })
                })
            })
            .collect();
        let racer = scope.spawn(|| {
            (0..rounds).all(|i| {
                run(&[
                    "update".into(),
                    first.clone(),
                    "--tag".into(),
                    format!("t{i}"),
                ]) && run(&["prune".into()])
            })
        });
        for w in writers {
            assert!(w.join().unwrap(), "a writer failed");
        }
        assert!(racer.join().unwrap(), "the updater failed");
    });
    let lines = env.store_lines(); // panics on any torn or invalid line
    let ids: HashSet<String> = ids_of(&lines).into_iter().collect();
    assert_eq!(lines.len(), writers * items + 1);
    assert_eq!(ids.len(), writers * items + 1, "ids are unique");
    let contents: HashSet<&str> = lines
        .iter()
        .map(|l| l["content"].as_str().unwrap())
        .collect();
    for w in 0..writers {
        for i in 0..items {
            assert!(
                contents.contains(format!("writer {w} item {i}").as_str()),
                "lost writer {w} item {i}"
            );
        }
    }
    let edited = lines.iter().find(|l| l["id"] == first.as_str()).unwrap();
    assert_eq!(
        edited["tags"].as_array().unwrap().len(),
        rounds,
        "no update lost either"
    );
}

/// A rewrite killed with SIGKILL at a random point always leaves a store that parses, holding
/// every signal acknowledged before.
#[test]
fn a_killed_rewrite_never_loses_an_acknowledged_signal() {
    let env = Env::new();
    let batch: String = (0..20_000)
        .map(|i| format!("{{\"type\":\"gotcha\",\"content\":\"bulk signal {i} with some text to make the line longer\"}}\n"))
        .collect();
    env.cmd("memory-store")
        .args(["append", "-"])
        .write_stdin(batch)
        .assert()
        .success();
    let mut acknowledged: HashSet<String> = ids_of(&env.store_lines()).into_iter().collect();
    let target = acknowledged.iter().next().unwrap().clone();
    let bin = crate::util::bin_path("memory-store");
    let mut rng: u64 = 0x9e37_79b9_7f4a_7c15;
    let mut killed_mid_write = 0;
    for round in 0..60 {
        let id = append(
            &env,
            json!({"type": "gotcha", "content": format!("acknowledged in round {round}")}),
        );
        acknowledged.insert(id);
        rng ^= rng << 13;
        rng ^= rng >> 7;
        rng ^= rng << 17;
        let delay = Duration::from_micros(rng % 60_000);
        let args: Vec<String> = match round % 3 {
            0 => vec![
                "update".into(),
                target.clone(),
                "--tag".into(),
                format!("r{round}"),
            ],
            1 => vec!["prune".into()],
            _ => vec![
                "update".into(),
                target.clone(),
                "--confidence".into(),
                "2".into(),
            ],
        };
        let mut child = Std::new(&bin)
            .args(&args)
            .env("REFLECT_HOME", &env.data)
            .env("HOME", &env.home)
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .unwrap();
        std::thread::sleep(delay);
        if child.try_wait().unwrap().is_none() {
            killed_mid_write += 1;
        }
        let _ = child.kill(); // SIGKILL
        let _ = child.wait();
        let lines = env.store_lines(); // every line parses
        let present: HashSet<String> = ids_of(&lines).into_iter().collect();
        assert_eq!(
            present.len(),
            lines.len(),
            "no duplicated signal after round {round}"
        );
        let missing: Vec<&String> = acknowledged.difference(&present).collect();
        assert!(
            missing.is_empty(),
            "round {round}: lost {} acknowledged signals",
            missing.len()
        );
    }
    assert!(
        killed_mid_write >= 10,
        "the kills must land while rewrites run (got {killed_mid_write})"
    );
}

/// A store holding torn, invalid, v2 and future-version lines is read, queried and rewritten
/// without losing a valid line or an unknown field.
#[test]
fn a_hostile_store_is_read_and_rewritten_without_loss() {
    let env = Env::new();
    fs::create_dir_all(&env.data).unwrap();
    let v1 = json!({"id": "SIG-20261120-0000000001", "version": 1, "timestamp": "2026-11-20T10:00:00Z", "type": "correction", "status": "captured", "confidence": 2, "content": "keep me", "x_unknown": {"nested": [1, 2]}, "meta": {"custom": "kept"}});
    let future = json!({"id": "SIG-20261120-0000000002", "version": 7, "timestamp": "2026-11-20T10:00:01Z", "type": "insight", "status": "snoozed", "confidence": 2, "content": "from the future", "new_field": true});
    let odd_future = r#"{"id":"SIG-20261120-0000000003","version":9,"type":"correction","confidence":"very high","content":"shape changed"}"#;
    let v2 = r#"{"ts":"2026-11-20T10:00:02Z","sid":"old","type":"correction","context":"No, use yarn","turn":3}"#;
    let text = format!(
        "{v1}\n{{\"torn\": \n\x00\x01 binary \u{fffd}\n{future}\nnot json at all\n{odd_future}\n{v2}\n[1,2,3]\n{{\"id\":\"SIG-20261120-0000000004\",\"type\":\"failure\",\"content\":\"last, torn"
    );
    let mut bytes = text.into_bytes();
    bytes.extend_from_slice(b"\xff\xfe");
    fs::write(env.store(), &bytes).unwrap();

    let listed = query(&env, &[]);
    let contents: Vec<&str> = listed
        .iter()
        .map(|l| l["content"].as_str().unwrap())
        .collect();
    assert_eq!(contents, ["keep me", "from the future", "No, use yarn"]);
    env.cmd("memory-store")
        .args(["get", "SIG-20261120-0000000002"])
        .assert()
        .success()
        .stdout(predicate::str::contains("new_field"));
    let stats = stdout(&env.cmd("memory-store").arg("stats").output().unwrap());
    // torn, binary, "not json", a JSON array (a store line must be an object), the torn last line
    assert!(stats.contains("unreadable lines: 5"), "{stats}");

    // An append after a torn tail starts a new line.
    let new_id = append(
        &env,
        json!({"type": "gotcha", "content": "appended after the torn line"}),
    );
    // A rewrite: update one signal.
    env.cmd("memory-store")
        .args(["update", "SIG-20261120-0000000001", "--tag", "t"])
        .assert()
        .success();
    let after = fs::read(env.store()).unwrap();
    let after_text = String::from_utf8_lossy(&after);
    let lines: Vec<Value> = after_text
        .lines()
        .map(|l| serde_json::from_str(l).expect("the rewritten store is clean"))
        .collect();
    assert_eq!(
        lines[0]["x_unknown"],
        json!({"nested": [1, 2]}),
        "unknown field kept"
    );
    assert_eq!(lines[0]["meta"]["custom"], "kept");
    assert_eq!(lines[0]["tags"], json!(["t"]));
    assert!(
        after_text.contains(&future.to_string()),
        "untouched lines are written back byte for byte"
    );
    assert!(
        after_text.contains(odd_future),
        "a line this version cannot read as a signal is kept"
    );
    assert!(after_text.contains(v2));
    assert!(after_text.contains(&new_id));
    // The invalid lines were moved aside, not lost.
    let quarantine = fs::read(env.data.join("signals.invalid.jsonl")).unwrap();
    let q = String::from_utf8_lossy(&quarantine);
    assert!(
        q.contains("{\"torn\": ")
            && q.contains("not json at all")
            && q.contains("last, torn")
            && q.contains("[1,2,3]"),
        "{q}"
    );
    assert!(
        quarantine.windows(2).any(|w| w == b"\xff\xfe"),
        "bytes kept exactly"
    );
}

#[test]
fn setting_sets_an_approved_claude_code_setting_and_keeps_the_rest() {
    let env = Env::new();
    let settings = env.config.join("settings.json");
    let before =
        "{\n  \"model\": \"opus\",\n  \"hooks\": {},\n  \"includeCoAuthoredBy\": true\n}\n";
    fs::write(&settings, before).unwrap();
    let set = |args: &[&str]| {
        env.cmd("memory-store")
            .arg("setting")
            .args(args)
            .output()
            .unwrap()
    };
    let out = set(&["attribution.commit", "\"\""]);
    assert!(out.status.success(), "{out:?}");
    assert!(
        stdout(&out).starts_with("set attribution.commit to \"\" in "),
        "{out:?}"
    );
    let out = set(&["includeCoAuthoredBy", "false"]);
    assert!(out.status.success(), "{out:?}");
    let text = fs::read_to_string(&settings).unwrap();
    let now: Value = serde_json::from_str(&text).unwrap();
    assert_eq!(now["attribution"], json!({"commit": ""}));
    assert_eq!(now["includeCoAuthoredBy"], json!(false));
    assert_eq!(now["model"], "opus");
    assert!(
        text.starts_with("{\n  \"model\": \"opus\",\n  \"hooks\": {},\n"),
        "{text}"
    );
    // Backed up before each write; a second run changes nothing.
    let backups = fs::read_dir(env.data.join("backups")).unwrap().count();
    assert!(backups >= 1, "no backup");
    let again = set(&["attribution.commit", "\"\""]);
    assert!(stdout(&again).contains("nothing changed"), "{again:?}");
    assert_eq!(fs::read_to_string(&settings).unwrap(), text);
    // What runs commands, grants permissions or turns a safeguard off, a value that is not a
    // scalar, a key under a scalar: refused with exit 2, the file untouched.
    for bad in [
        &["hooks.Stop", "true"][..],
        &["env.TOKEN", "\"x\""],
        &["permissions.defaultMode", "\"bypassPermissions\""],
        &["fileSuggestion.command", "\"~/bin/x.sh\""],
        &["disableAllHooks", "true"],
        &["skipDangerousModePermissionPrompt", "true"],
        &["model", "{\"a\":1}"],
        &["model", "not json"],
        &["includeCoAuthoredBy.x", "true"],
        &["a..b", "true"],
    ] {
        assert_eq!(set(bad).status.code(), Some(2), "{bad:?}");
    }
    assert_eq!(fs::read_to_string(&settings).unwrap(), text);
    // A settings file that is not JSON is refused (exit 1) and left as it was.
    fs::write(&settings, "{ not json").unwrap();
    assert_eq!(set(&["includeCoAuthoredBy", "true"]).status.code(), Some(1));
    assert_eq!(fs::read_to_string(&settings).unwrap(), "{ not json");
    // --settings names a project's file.
    let project = env.dir.path().join("app/.claude/settings.json");
    fs::create_dir_all(project.parent().unwrap()).unwrap();
    let out = set(&[
        "--settings",
        project.to_str().unwrap(),
        "attribution.pr",
        "\"\"",
    ]);
    assert!(out.status.success(), "{out:?}");
    let made: Value = serde_json::from_slice(&fs::read(&project).unwrap()).unwrap();
    assert_eq!(made, json!({"attribution": {"pr": ""}}));
}
