//! The capture hooks on every real transcript (read in place from ../shared, never copied into
//! the repository): no panic, exit 0, silent; no learning signal points at an entry that is not
//! something the user typed (a tool result, a system reminder, slash-command output, a
//! compaction summary); and a second run stores nothing new.

use std::fs;
use std::path::Path;

use serde_json::{json, Value};

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
        b["content"]
            .to_string()
            .contains("doesn't want to proceed with this tool use")
    });
    // Signals about how tools behaved (a failure, search thrashing) come from tool results; only
    // signals about what the user said must come from the user's own words.
    if !results.is_empty() && !rejection && !TOOL_KINDS.contains(&kind) {
        return Some("a tool result");
    }
    None
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
