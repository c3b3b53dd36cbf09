//! The capture hooks on every real transcript (read in place from ../shared, never copied into
//! the repository): no panic, exit 0, silent; no learning signal points at an entry that is not
//! something the user typed (a tool result, a system reminder, slash-command output, a
//! compaction summary); and a second run stores nothing new.

use std::fs;
use std::path::Path;

use serde_json::{json, Value};

use reflect_transcript::{self as transcript, Event, Position};

use crate::hooks::{assert_silent_success, run_hook, signals};
use crate::util::{real_transcripts, Env};

/// Signal types mined from tool results rather than from what the user said.
const TOOL_KINDS: &[&str] = &["failure", "project_friction"];

/// The user-visible text of a transcript entry's message (string content or text blocks).
fn entry_text(entry: &Value) -> String {
    match &entry["message"]["content"] {
        Value::String(s) => s.clone(),
        Value::Array(blocks) => blocks
            .iter()
            .filter_map(|b| b["text"].as_str())
            .collect::<Vec<_>>()
            .join("\n"),
        _ => String::new(),
    }
}

/// Text with every `<system-reminder>…</system-reminder>` span removed.
fn without_reminders(text: &str) -> String {
    let mut out = String::new();
    let mut rest = text;
    while let Some(start) = rest.find("<system-reminder>") {
        out.push_str(&rest[..start]);
        match rest[start..].find("</system-reminder>") {
            Some(end) => rest = &rest[start + end + "</system-reminder>".len()..],
            None => {
                rest = "";
            }
        }
    }
    out.push_str(rest);
    out
}

/// Why `entry` cannot be the source of a learning signal, if it cannot.
pub fn noise(entry: &Value, kind: &str) -> Option<&'static str> {
    let text = entry_text(entry);
    let trimmed = text.trim_start();
    if entry["isCompactSummary"] == true
        || trimmed.starts_with("This session is being continued from a previous conversation")
    {
        return Some("a compaction summary");
    }
    if [
        "<local-command-stdout>",
        "<local-command-stderr>",
        "<local-command-caveat>",
        "<command-name>",
        "<command-message>",
        "<bash-stdout>",
        "<bash-stderr>",
    ]
    .iter()
    .any(|tag| trimmed.starts_with(tag))
    {
        return Some("command output");
    }
    if text.contains("<system-reminder>") && without_reminders(&text).trim().is_empty() {
        return Some("a system reminder");
    }
    if entry["isMeta"] == true {
        return Some("a meta entry");
    }
    let results: Vec<&Value> = entry["message"]["content"]
        .as_array()
        .map(|blocks| {
            blocks
                .iter()
                .filter(|b| b["type"] == "tool_result")
                .collect()
        })
        .unwrap_or_default();
    // The user refusing a tool call is the user acting (Claude Code records it as a tool result).
    let rejection = results.iter().any(|b| {
        let content = b["content"].to_string();
        content.contains("doesn't want to proceed with this tool use")
            || content.contains("doesn't want to take this action right now")
    });
    // Signals about how tools behaved (a failure, search thrashing) come from tool results; only
    // signals about what the user said must come from the user's own words.
    if !results.is_empty() && !rejection && !TOOL_KINDS.contains(&kind) {
        return Some("a tool result");
    }
    None
}

/// Whether `signal` is the reason a user gave for refusing a call that Claude Code 2.0.x wrote as
/// the call's whole error (no refusal words around it): the user acting, at a tool result.
fn refusal_reason_as_error(entry: &Value, signal: &Value) -> bool {
    let content = signal["content"].as_str().unwrap_or_default();
    signal["category"] == "tool-rejection"
        && entry["message"]["content"]
            .as_array()
            .is_some_and(|blocks| {
                blocks.iter().any(|b| {
                    b["is_error"] == true
                        && b["content"].as_str().is_some_and(|text| {
                            one_spaced(text).starts_with(&one_spaced(content.trim_end_matches('…')))
                        })
                })
            })
}

/// Words separated by single spaces (a signal's content is flattened to one line).
fn one_spaced(text: &str) -> String {
    text.split_whitespace().collect::<Vec<_>>().join(" ")
}

fn hook_payload(session: &str, transcript: &Path, cwd: &Path, event: &str) -> String {
    json!({"session_id": session, "transcript_path": transcript, "cwd": cwd,
        "hook_event_name": event, "trigger": "auto", "reason": "other"})
    .to_string()
}

#[test]
fn every_real_transcript_is_captured_without_panic_noise_or_repeats() {
    let mut total = 0;
    for (n, file) in real_transcripts().into_iter().enumerate() {
        let env = Env::new();
        let proj = env.dir.path().join("project");
        fs::create_dir_all(&proj).unwrap();
        let name = file.file_name().unwrap().to_string_lossy().into_owned();
        let session = format!("corpus-{n}");
        let pre = hook_payload(&session, &file, &proj, "PreCompact");
        let end = hook_payload(&session, &file, &proj, "SessionEnd");

        let (out, _) = run_hook(&env, "capture-signals", pre.as_bytes());
        assert_silent_success("capture-signals", &out, &name);
        let (out, _) = run_hook(&env, "capture-session-summary", end.as_bytes());
        assert_silent_success("capture-session-summary", &out, &name);
        let log = fs::read_to_string(env.data.join("errors.log")).unwrap_or_default();
        assert_eq!(log, "", "{name}: problems logged");

        let lines: Vec<Value> = fs::read_to_string(&file)
            .unwrap()
            .lines()
            .map(|l| serde_json::from_str(l).unwrap_or(Value::Null))
            .collect();
        let stored = if env.store().exists() {
            signals(&env)
        } else {
            Vec::new()
        };
        for s in &stored {
            let kind = s["type"].as_str().unwrap();
            let Some(line) = s["source"]["line"].as_u64() else {
                assert_eq!(
                    kind, "summary",
                    "{name}: a mined signal without a line: {s}"
                );
                continue;
            };
            let entry = lines
                .get(line as usize - 1)
                .unwrap_or_else(|| panic!("{name}: line {line} is past the end"));
            if refusal_reason_as_error(entry, s) {
                continue;
            }
            if let Some(why) = noise(entry, kind) {
                panic!("{name}: {kind} signal points at line {line}, {why}: {s}");
            }
            if let Some(uuid) = s["source"]["uuid"].as_str() {
                assert_eq!(entry["uuid"], uuid, "{name}: uuid of line {line}");
            }
        }
        total += stored.len();

        // Both hooks again on the same session: nothing new at all.
        let before = fs::read(env.store()).unwrap_or_default();
        let (out, _) = run_hook(&env, "capture-signals", pre.as_bytes());
        assert_silent_success("capture-signals", &out, &name);
        let (out, _) = run_hook(&env, "capture-session-summary", end.as_bytes());
        assert_silent_success("capture-session-summary", &out, &name);
        assert_eq!(
            fs::read(env.store()).unwrap_or_default(),
            before,
            "{name}: a repeat run stored something"
        );
    }
    assert!(total > 0, "the corpus yields signals");
}

#[test]
fn the_noise_check_recognises_each_kind_of_noise() {
    // The check above is only as good as this classifier: pin it on hand-made entries.
    let user =
        |content: Value| json!({"type": "user", "message": {"role": "user", "content": content}});
    assert_eq!(
        noise(
            &user(json!([{"type": "tool_result", "content": "x", "tool_use_id": "t"}])),
            "correction"
        ),
        Some("a tool result")
    );
    assert_eq!(
        noise(
            &user(json!([{"type": "tool_result", "content": "x", "tool_use_id": "t"}])),
            "failure"
        ),
        None
    );
    assert_eq!(
        noise(
            &user(json!("<system-reminder>be brief</system-reminder>\n")),
            "correction"
        ),
        Some("a system reminder")
    );
    assert_eq!(
        noise(
            &user(json!("<system-reminder>x</system-reminder> No, use pnpm")),
            "correction"
        ),
        None
    );
    assert_eq!(
        noise(
            &user(json!(
                "<local-command-stdout>No, never</local-command-stdout>"
            )),
            "correction"
        ),
        Some("command output")
    );
    let mut summary = user(json!(
        "This session is being continued from a previous conversation ..."
    ));
    assert_eq!(noise(&summary, "correction"), Some("a compaction summary"));
    summary["message"]["content"] = json!("Summary: x");
    summary["isCompactSummary"] = json!(true);
    assert_eq!(noise(&summary, "correction"), Some("a compaction summary"));
    assert_eq!(noise(&user(json!("No, use pnpm")), "correction"), None);
    let rejected = json!([{"type": "tool_result", "is_error": true, "tool_use_id": "t",
        "content": "The user doesn't want to proceed with this tool use. The tool use was rejected"}]);
    assert_eq!(noise(&user(rejected), "correction"), None);
}

/// Everything a read yields, with the line of each event.
fn read_events(path: &Path, splits: &[u64]) -> (Vec<Event>, Position) {
    let file = fs::File::open(path).unwrap();
    let mut events = Vec::new();
    let end =
        transcript::read_split(&file, Position::default(), splits, |e| events.push(e)).unwrap();
    (events, end)
}

/// Split points spread over a file of `len` bytes: halves, thirds, uneven and clustered cuts,
/// the very first and last bytes.
fn split_sets(len: u64) -> Vec<Vec<u64>> {
    let at = |num: u64, den: u64| len * num / den;
    vec![
        vec![at(1, 2)],
        vec![at(1, 3), at(2, 3)],
        vec![at(1, 7), at(2, 5), at(3, 4)],
        vec![1, len.saturating_sub(1)],
        vec![at(1, 5), at(1, 5) + 1, at(1, 5) + 300, at(4, 5)],
        vec![at(5, 11), at(6, 11), at(7, 11), at(9, 11), at(10, 11)],
    ]
}

/// Asserts every split read of `path` equals the one-thread read; returns its event count.
fn assert_splits_read_alike(path: &Path, sets: &[Vec<u64>]) -> usize {
    let (whole, end) = read_events(path, &[]);
    for splits in sets {
        let (split, split_end) = read_events(path, splits);
        assert_eq!(split_end, end, "{} split at {splits:?}", path.display());
        assert_eq!(
            split.len(),
            whole.len(),
            "{} split at {splits:?}",
            path.display()
        );
        for (a, b) in whole.iter().zip(&split) {
            assert_eq!(a, b, "{} split at {splits:?}", path.display());
        }
    }
    whole.len()
}

/// A read split into segments parsed by several threads yields exactly the events (lines,
/// uuids, order) and end position of a read on one thread: on every real transcript, and on
/// their concatenation followed by a second copy of some of them (every record of the copy is a
/// duplicate of one in an earlier segment) and a torn last line.
#[test]
fn a_read_split_across_threads_equals_the_one_thread_read() {
    let transcripts = real_transcripts();
    let mut events = 0;
    for path in &transcripts {
        let len = fs::metadata(path).unwrap().len();
        events += assert_splits_read_alike(path, &split_sets(len));
    }
    assert!(events > 1000, "only {events} events in the corpus");

    let dir = tempfile::tempdir().unwrap();
    let all = dir.path().join("all.jsonl");
    let mut bytes = Vec::new();
    for path in transcripts.iter().chain(transcripts.iter().take(3)) {
        bytes.extend(fs::read(path).unwrap());
        if bytes.last() != Some(&b'\n') {
            bytes.push(b'\n');
        }
    }
    let complete = bytes.len() as u64;
    let first = fs::read(&transcripts[0]).unwrap();
    bytes.extend(&first[..first.len().min(400) - 1]);
    fs::write(&all, &bytes).unwrap();
    let len = bytes.len() as u64;
    let mut sets = split_sets(len);
    // Cuts inside the duplicated tail and inside the torn line.
    sets.push(vec![complete - 2_000_000.min(complete / 2), len - 100]);
    // Many more segments than the claim window: the calling thread parses some ahead, workers
    // wait for the window, and every segment is handed on in order.
    sets.push((1..64).map(|k| len * k / 64).collect());
    assert!(assert_splits_read_alike(&all, &sets) >= events);
    assert_eq!(read_events(&all, &[len / 2]).1.offset, complete);
}
