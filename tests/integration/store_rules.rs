//! What capture stores, rule by rule, on real transcripts of the corpora (read in place from
//! ../shared, never copied into the repository; what a test compares with is read from the
//! transcript at run time). The rules are written in `detect/mod.rs` and `failure.rs`.

use std::collections::{HashMap, HashSet};
use std::fs;
use std::path::{Path, PathBuf};

use serde_json::{json, Value};

use crate::hooks::{assert_silent_success, run_hook, signals};
use crate::util::{shared, stdout, Env};

const DEV: &str = "corpus/transcripts";
const TRAIN: &str = "corpus/train/transcripts";

fn transcript(dir: &str, name: &str) -> PathBuf {
    let path = shared(&format!("{dir}/{name}"));
    assert!(
        path.exists(),
        "{} is missing from ../shared",
        path.display()
    );
    path
}

/// The transcript's entries, by 1-based line.
fn entries(path: &Path) -> Vec<Value> {
    fs::read_to_string(path)
        .unwrap()
        .lines()
        .map(|l| serde_json::from_str(l).unwrap_or(Value::Null))
        .collect()
}

/// A tool result of a transcript.
struct Result_ {
    line: u64,
    id: String,
    is_error: bool,
    text: String,
}

/// Every tool result, and every tool call's name and input by id, of the main conversation
/// (sub-agent traffic is not the session's, and capture skips it).
fn traffic(path: &Path) -> (Vec<Result_>, HashMap<String, (String, Value)>) {
    let mut results = Vec::new();
    let mut calls = HashMap::new();
    for (i, entry) in entries(path).iter().enumerate() {
        let Some(blocks) = entry["message"]["content"].as_array() else {
            continue;
        };
        if entry["isSidechain"] == true {
            continue;
        }
        for b in blocks {
            match b["type"].as_str() {
                Some("tool_use") => {
                    let id = b["id"].as_str().unwrap_or_default().to_string();
                    let name = b["name"].as_str().unwrap_or_default().to_string();
                    calls.insert(id, (name, b["input"].clone()));
                }
                Some("tool_result") => {
                    let text = match &b["content"] {
                        Value::String(s) => s.clone(),
                        Value::Array(parts) => parts
                            .iter()
                            .filter_map(|p| p["text"].as_str())
                            .collect::<Vec<_>>()
                            .join("\n"),
                        _ => String::new(),
                    };
                    results.push(Result_ {
                        line: i as u64 + 1,
                        id: b["tool_use_id"].as_str().unwrap_or_default().to_string(),
                        is_error: b["is_error"] == true,
                        text,
                    });
                }
                _ => {}
            }
        }
    }
    (results, calls)
}

/// Capture `file` offline into `env` as one session (SessionEnd: signals and the summary).
fn capture(env: &Env, file: &Path, session: &str) {
    let out = env
        .cmd("capture-session-summary")
        .arg("--transcript")
        .arg(file)
        .args(["--session", session, "--project", "/corpus/project"])
        .output()
        .unwrap();
    assert!(out.status.success(), "{out:?}");
}

fn at_line(stored: &[Value], line: u64) -> Vec<&Value> {
    stored
        .iter()
        .filter(|s| s["source"]["line"] == line)
        .collect()
}

fn summary(stored: &[Value]) -> &Value {
    stored
        .iter()
        .find(|s| s["type"] == "summary")
        .expect("a summary")
}

/// Words separated by single spaces (a signal's content is flattened to one line).
fn flat(text: &str) -> String {
    text.split_whitespace().collect::<Vec<_>>().join(" ")
}

#[test]
fn a_failure_quotes_its_error_line_not_the_first_line_of_output() {
    // A command run in a container that logs the container starting before it fails: the error
    // is a few lines down. The assistant then made the file it looked for with another command
    // of the same job, which is kept as what resolved it.
    let file = transcript(
        TRAIN,
        "Eduardodmb__ClaudeHome__projects.bak-20260511-072525_X--02-JZS-08-ContactInfo_0035b67a-7fb8-40b9-b396-259a58d23d86.jsonl",
    );
    let (results, calls) = traffic(&file);
    let failed = results
        .iter()
        .find(|r| r.line == 101 && r.is_error)
        .unwrap();
    let env = Env::new();
    capture(&env, &file, "s1");
    let stored = signals(&env);
    let here = at_line(&stored, 101);
    assert_eq!(here.len(), 1, "{here:?}");
    let content = here[0]["content"].as_str().unwrap();
    let quoted = content.strip_prefix("Bash failed: ").unwrap();
    let lines: Vec<String> = failed
        .text
        .lines()
        .map(flat)
        .filter(|l| !l.is_empty())
        .collect();
    assert!(lines[0].starts_with("Exit code"), "{}", lines[0]);
    let at = lines
        .iter()
        .position(|l| quoted.starts_with(l.as_str()))
        .expect("the quoted line is a line of the output");
    assert!(at > 2, "not one of the first lines of output: {quoted}");
    assert!(quoted.starts_with("cat: can't open"), "{quoted}");
    let resolution = here[0]["resolution"].as_str().unwrap();
    assert!(
        resolution.contains("composer create-project"),
        "{resolution}"
    );

    // The failure hook, given the same error, stores nothing: whether it was resolved is known
    // only to the miner, and it is no fact of the environment to keep unresolved.
    let (tool, input) = &calls[&failed.id];
    let payload = json!({"session_id": "s2", "cwd": "/corpus/project",
        "hook_event_name": "PostToolUseFailure", "tool_name": tool, "tool_input": input,
        "tool_use_id": "toolu_hook", "error": failed.text, "is_interrupt": false});
    let hook_env = Env::new();
    let (out, _) = run_hook(&hook_env, "capture-failure", payload.to_string().as_bytes());
    assert_silent_success("capture-failure", &out, "real error");
    assert_eq!(signals(&hook_env).len(), 0);
}

#[test]
fn protocol_errors_are_counted_in_the_summary_not_stored() {
    let file = transcript(
        TRAIN,
        "DaniloTito01__zfull__.claude_projects_-root-projetobarbearia-_dc73d393-88b4-4a57-98ff-4c4880cc84a7.jsonl",
    );
    let (results, _) = traffic(&file);
    let protocol: Vec<&Result_> = results
        .iter()
        .filter(|r| r.is_error && r.text.trim_start().starts_with("<tool_use_error>"))
        .collect();
    assert!(protocol.len() >= 5, "{}", protocol.len());
    let env = Env::new();
    capture(&env, &file, "s1");
    let stored = signals(&env);
    for r in &protocol {
        assert!(at_line(&stored, r.line).is_empty(), "line {}", r.line);
    }
    for s in &stored {
        let content = s["content"].as_str().unwrap().to_lowercase();
        for words in [
            "has not been read yet",
            "string to replace not found",
            "matches of the string to replace",
            "no changes to make",
        ] {
            assert!(!content.contains(words), "{s}");
        }
    }
    let counted: u64 = summary(&stored)["meta"]["protocol_errors"]
        .as_object()
        .expect("protocol errors counted")
        .values()
        .map(|n| n.as_u64().unwrap())
        .sum();
    assert_eq!(counted, protocol.len() as u64);
}

#[test]
fn a_test_run_failing_its_assertions_is_counted_not_stored() {
    // A session that writes a React component's tests and runs them until they pass.
    let file = transcript(
        TRAIN,
        "nickhoffman__dotfiles__home_.claude_projects_-Users-nick-src-xyz-src-react-chrome-extension_007e707e-2467-4848-80b2-308546a65fb6.jsonl",
    );
    let (results, _) = traffic(&file);
    let failing: Vec<&Result_> = results
        .iter()
        .filter(|r| {
            r.is_error
                && r.text.lines().any(|l| {
                    let l = l.trim_start();
                    l.starts_with("FAIL ") && l.contains(".test.")
                })
        })
        .collect();
    assert!(failing.len() >= 10, "{}", failing.len());
    let env = Env::new();
    capture(&env, &file, "s1");
    let stored = signals(&env);
    for r in &failing {
        assert!(
            at_line(&stored, r.line).is_empty(),
            "line {}: {:?}",
            r.line,
            at_line(&stored, r.line)
        );
    }
    let counted = summary(&stored)["meta"]["failing_tests"].as_u64().unwrap();
    assert!(counted >= failing.len() as u64, "{counted}");
}

#[test]
fn a_failure_that_repeats_in_another_session_is_one_signal_seen_again() {
    // Two sessions of one project; a linter the project does not have fails in both.
    let env = Env::new();
    let first = "2950e920-f03e-4da5-a9df-de8673290c7f";
    let second = "3fcb4e4d-9b67-4b2f-b501-dd1bf8f6693d";
    for session in [first, second] {
        let name = format!(
            "hoanglefintechai__my-ai-agents__projects_-Users-lee-Documents-src-bep-oms-broker_{session}.jsonl"
        );
        capture(&env, &transcript(TRAIN, &name), session);
    }
    let lines = env.store_lines();
    let stored = signals(&env);
    let failures: HashMap<&str, &Value> = stored
        .iter()
        .filter(|s| s["type"] == "failure")
        .map(|s| (s["id"].as_str().unwrap(), s))
        .collect();
    let keys: HashSet<&str> = failures
        .values()
        .map(|s| s["meta"]["dedup_key"].as_str().unwrap())
        .collect();
    assert_eq!(keys.len(), failures.len(), "one signal per failure");
    let across = lines.iter().any(|l| {
        l["session_id"] == second
            && l["recur"]
                .as_str()
                .and_then(|id| failures.get(id))
                .is_some_and(|s| s["session_id"] == first)
    });
    assert!(
        across,
        "a failure of the first session recurs in the second"
    );
}

#[test]
fn a_refusal_with_a_reason_is_a_strong_correction_in_every_wording() {
    // "following reason for the rejection:" (2.1.x) and "the user said:" (2.0.5x on), found by
    // their words; in 2.0.2 the reason is the whole error of the refused edit (lines named).
    let cases: [(&str, &str, &[u64]); 4] = [
        (DEV, "Yael-Peretz__jgive-campaign-donation__transcript.jsonl", &[]),
        // A refused plan, with a reason.
        (
            TRAIN,
            "aroldzmitry__claude-config__projects_-Users-dmitry-WebstormProjects-zephyr-budget-app-client_c3c472c3-b39d-4ec6-8bb6-1ed7f4d3de1d.jsonl",
            &[],
        ),
        (
            TRAIN,
            "aroldzmitry__claude-config__projects_-Users-dmitry-WebstormProjects-zephyr-budget-app-client_80e50f3a-40c4-4e12-a1e5-ed1f365e387b.jsonl",
            &[],
        ),
        (
            DEV,
            "bradymholt__dotfiles__354b2588-2a5c-43d7-b678-e95a4a87bd2a.jsonl",
            &[378, 429],
        ),
    ];
    for (dir, name, bare) in cases {
        let file = transcript(dir, name);
        let (results, calls) = traffic(&file);
        let env = Env::new();
        capture(&env, &file, "s1");
        let stored = signals(&env);
        let everything = fs::read_to_string(env.store()).unwrap();
        for (tool, input) in calls.values() {
            if let (true, Some(plan)) = (tool == "ExitPlanMode", input["plan"].as_str()) {
                let head: String = flat(plan).chars().take(60).collect();
                assert!(
                    !everything.contains(&head),
                    "{name}: plan text stored: {head}"
                );
            }
        }
        let mut checked = 0;
        for r in results.iter().filter(|r| r.is_error) {
            let reason = ["reason for the rejection:", "the user said:"]
                .iter()
                .find_map(|m| r.text.split_once(m).map(|(_, rest)| flat(rest)))
                .or_else(|| bare.contains(&r.line).then(|| flat(&r.text)));
            let Some(reason) = reason.filter(|r| r.split_whitespace().count() >= 2) else {
                continue;
            };
            let here = at_line(&stored, r.line);
            assert_eq!(here.len(), 1, "{name}:{}: {here:?}", r.line);
            let s = here[0];
            assert_eq!(s["type"], "correction", "{name}:{}", r.line);
            assert_eq!(s["category"], "tool-rejection");
            assert_eq!(s["confidence"], 2);
            let content = s["content"].as_str().unwrap().trim_end_matches('…');
            assert!(reason.starts_with(content), "{name}:{}: {content}", r.line);
            assert!(s["context"].as_str().unwrap().starts_with("User refused "));
            checked += 1;
        }
        assert!(
            checked >= 1.max(bare.len()),
            "{name}: refusals with a reason"
        );
    }
}

#[test]
fn a_refusal_without_a_reason_is_counted_and_a_plan_is_never_quoted() {
    let file = transcript(
        DEV,
        "Tmeister__dotfiles__c330aa16-e1c5-4c08-aebf-65f0f73aec14.jsonl",
    );
    let (results, calls) = traffic(&file);
    let refusals: Vec<&Result_> = results
        .iter()
        .filter(|r| r.is_error && r.text.contains("doesn't want to"))
        .collect();
    assert!(refusals.len() >= 10, "{}", refusals.len());
    let env = Env::new();
    capture(&env, &file, "s1");
    let stored = signals(&env);
    for r in &refusals {
        assert!(at_line(&stored, r.line).is_empty(), "line {}", r.line);
    }
    let s = summary(&stored);
    assert_eq!(s["meta"]["rejections"], refusals.len() as u64);
    let content = s["content"].as_str().unwrap();
    assert!(
        content.contains(&format!("refused {} tool calls (", refusals.len())),
        "{content}"
    );
    // The plans the user refused: not a word of them is stored.
    let plans: Vec<String> = calls
        .values()
        .filter(|(name, _)| name == "exit_plan_mode" || name == "ExitPlanMode")
        .filter_map(|(_, input)| input["plan"].as_str())
        .map(|p| flat(p).chars().take(60).collect())
        .collect();
    assert!(plans.len() >= 3, "{}", plans.len());
    let everything = fs::read_to_string(env.store()).unwrap();
    for plan in &plans {
        assert!(
            !everything.contains(plan.as_str()),
            "plan text stored: {plan}"
        );
    }
}

#[test]
fn an_instruction_said_again_in_other_words_is_one_signal_seen_twice() {
    // The user asks twice, some 300 lines apart and in other words, not to commit until told.
    // PreCompact captures the first half, SessionEnd the rest: the store sees the paraphrase.
    let file = transcript(
        DEV,
        "Tmeister__dotfiles__c330aa16-e1c5-4c08-aebf-65f0f73aec14.jsonl",
    );
    let (first, again) = (467, 761);
    let env = Env::new();
    let text = fs::read_to_string(&file).unwrap();
    let copy = env.dir.path().join("s1.jsonl");
    let head: String = text.split_inclusive('\n').take(600).collect();
    fs::write(&copy, head).unwrap();
    let offline = |bin: &str| {
        let out = env
            .cmd(bin)
            .arg("--transcript")
            .arg(&copy)
            .args(["--session", "s1", "--project", "/corpus/project"])
            .output()
            .unwrap();
        assert!(out.status.success(), "{out:?}");
    };
    offline("capture-signals");
    fs::write(&copy, &text).unwrap();
    offline("capture-session-summary");
    let stored = signals(&env);
    let said = at_line(&stored, first);
    assert_eq!(said.len(), 1, "{said:?}");
    assert!(at_line(&stored, again).is_empty(), "stored twice");
    let recurred = env
        .store_lines()
        .iter()
        .any(|l| l["recur"] == said[0]["id"] && l["source"]["line"] == again);
    assert!(
        recurred,
        "the paraphrase is a recurrence of {}",
        said[0]["id"]
    );
}

#[test]
fn after_a_compaction_inject_puts_back_what_the_user_asked_first() {
    let file = transcript(
        DEV,
        "Tmeister__dotfiles__c330aa16-e1c5-4c08-aebf-65f0f73aec14.jsonl",
    );
    let env = Env::new();
    capture(&env, &file, "s1");
    let payload = json!({"session_id": "s1", "cwd": "/corpus/project", "transcript_path": file,
        "hook_event_name": "SessionStart", "source": "compact"});
    let (out, _) = run_hook(&env, "inject-signals", payload.to_string().as_bytes());
    assert_silent_success("inject-signals", &out, "compact");
    let v: Value = serde_json::from_str(stdout(&out).trim_end()).unwrap();
    let context = v["hookSpecificOutput"]["additionalContext"]
        .as_str()
        .unwrap();
    let mut lines = context.lines();
    assert!(lines
        .next()
        .unwrap()
        .starts_with("Learning signals captured"));
    assert_eq!(
        lines.next(),
        Some("What the user asked for (keep following it):")
    );
    assert!(!context.contains("Keep following them"), "{context}");
    // A failure is put back only with the times it was seen.
    for line in context.lines().filter(|l| l.starts_with("- [failure")) {
        assert!(line.contains(" times] "), "{line}");
    }
}

#[test]
fn praise_is_never_the_assistants_words_and_streaks_are_no_signals() {
    // Lines where the user praised and moved on ("Great. Let's move on to the next phase"), which
    // were stored as "User approved: <the assistant's last line>".
    for (dir, name, line) in [
        (DEV, "Tmeister__dotfiles__c330aa16-e1c5-4c08-aebf-65f0f73aec14.jsonl", 380),
        (DEV, "Yael-Peretz__jgive-campaign-donation__transcript.jsonl", 395),
        (
            TRAIN,
            "nickhoffman__dotfiles__home_.claude_projects_-Users-nick-src-xyz-src-react-chrome-extension_007e707e-2467-4848-80b2-308546a65fb6.jsonl",
            222,
        ),
    ] {
        let file = transcript(dir, name);
        let lines = entries(&file);
        let env = Env::new();
        capture(&env, &file, "s1");
        let stored = signals(&env);
        assert!(
            at_line(&stored, line)
                .iter()
                .all(|s| s["type"] != "pattern"),
            "{name}:{line}: {:?}",
            at_line(&stored, line)
        );
        for s in &stored {
            assert_ne!(s["type"], "project_friction", "{name}: a streak: {s}");
            let content = s["content"].as_str().unwrap();
            assert!(!content.starts_with("User approved"), "{name}: {s}");
            if s["type"] == "pattern" {
                // Praise kept is the start of what the user typed on its line.
                let at = s["source"]["line"].as_u64().unwrap() as usize;
                let typed = flat(&lines[at - 1]["message"]["content"].to_string());
                assert!(typed.contains(content.trim_end_matches('…')), "{name}: {s}");
            }
        }
    }
}
