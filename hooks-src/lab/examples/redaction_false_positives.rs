//! How often each redaction rule fires on real sessions, with a masked sample of each find, so a
//! human can judge its false positives (issue 22: ids, hashes, paths, UUIDs must survive).
//!
//! `cargo run -p reflect-lab --example redaction_false_positives -- [DIR…]` (default: the dev
//! and training corpora next to the worktree). Reads every user prompt, tool result, tool input
//! (each string of a call's input: a command, a file written) and assistant text of every
//! `*.jsonl` transcript in the directories, runs the redactor on each,
//! and prints, by kind, how many replacements it made and in how many texts, with up to
//! `SAMPLES` samples a kind shown as their first and last 4 characters and their length. A user
//! prompt is read as the answer to the assistant's text before it (`answered-secret`). Last, how
//! many finds the same text writes again that redacting it left in clear (a value that is a
//! word, which stays where it is a word), masked the same way. Nothing else of the corpora is
//! printed: they may not be copied.

use std::collections::BTreeMap;
use std::fs;
use std::path::PathBuf;

use reflect_store::redact::Asked;
use serde_json::Value;

/// Samples shown a kind.
const SAMPLES: usize = 12;

fn main() {
    let dirs: Vec<PathBuf> = match std::env::args()
        .skip(1)
        .map(PathBuf::from)
        .collect::<Vec<_>>()
    {
        d if !d.is_empty() => d,
        _ => {
            let shared = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../../shared/corpus");
            vec![shared.join("transcripts"), shared.join("train/transcripts")]
        }
    };
    let mut texts = 0usize;
    let mut bytes = 0usize;
    let mut by_kind: BTreeMap<&str, (usize, Vec<String>)> = BTreeMap::new();
    let mut by_source: BTreeMap<(&str, &str), usize> = BTreeMap::new();
    // Secrets a text writes again elsewhere that redacting it left in clear.
    let mut left: Vec<String> = Vec::new();
    for dir in &dirs {
        let mut files: Vec<PathBuf> = fs::read_dir(dir)
            .unwrap_or_else(|e| panic!("{}: {e}", dir.display()))
            .flatten()
            .map(|e| e.path())
            .filter(|p| p.extension().is_some_and(|x| x == "jsonl"))
            .collect();
        files.sort();
        for file in files {
            let Ok(text) = fs::read_to_string(&file) else {
                continue;
            };
            // What the assistant last said: a prompt is redacted as the answer to it, as the
            // digest and capture redact it (the `answered-secret` rule).
            let mut said = String::new();
            for line in text.lines() {
                let Ok(entry) = serde_json::from_str::<Value>(line) else {
                    continue;
                };
                for (source, t) in texts_of(&entry) {
                    texts += 1;
                    bytes += t.len();
                    let asked = match source {
                        "assistant" => {
                            said = t.clone();
                            None
                        }
                        "user" => Asked::of(&std::mem::take(&mut said)),
                        _ => None,
                    };
                    let finds = reflect_store::redact::findings(&t, asked.as_ref());
                    if !finds.is_empty() {
                        let out = reflect_store::redact::redact_after(&t, asked.as_ref());
                        for (secret, kind) in &finds {
                            if secret.len() >= 6 && out.contains(secret.as_str()) {
                                left.push(format!("{kind}: {}", mask(secret)));
                            }
                        }
                    }
                    for (secret, kind) in finds {
                        let (n, samples) = by_kind.entry(kind).or_default();
                        *n += 1;
                        *by_source.entry((kind, source)).or_default() += 1;
                        if samples.len() < SAMPLES {
                            samples.push(mask(&secret));
                        }
                    }
                }
            }
        }
    }
    println!("texts read: {texts} ({} MB)", bytes / 1_000_000);
    println!(
        "{:<34} {:>6}  {:>5} {:>5} {:>5} {:>5}  samples (first 4 … last 4, length)",
        "kind", "finds", "user", "tool", "input", "asst"
    );
    for (kind, (n, samples)) in &by_kind {
        let of = |s| by_source.get(&(*kind, s)).copied().unwrap_or(0);
        println!(
            "{kind:<34} {n:>6}  {:>5} {:>5} {:>5} {:>5}  {}",
            of("user"),
            of("tool"),
            of("input"),
            of("assistant"),
            samples.join("  ")
        );
    }
    println!(
        "left in clear where the same text writes them again: {} {}",
        left.len(),
        left.iter()
            .take(SAMPLES)
            .cloned()
            .collect::<Vec<_>>()
            .join("  ")
    );
}

/// `abcd…wxyz (n)`: enough to tell an id or a hash from a key, not enough to use it.
fn mask(secret: &str) -> String {
    let chars: Vec<char> = secret.chars().collect();
    let n = chars.len();
    if n <= 10 {
        return format!("{}…({n})", chars.iter().take(2).collect::<String>());
    }
    let head: String = chars[..4].iter().collect();
    let tail: String = chars[n - 4..].iter().collect();
    format!("{head}…{tail}({n})").replace(['\n', '\t'], " ")
}

/// The user prompts, tool results, tool inputs and assistant texts of a transcript entry.
fn texts_of(entry: &Value) -> Vec<(&'static str, String)> {
    let mut out = Vec::new();
    let role = entry["type"].as_str().unwrap_or("");
    let content = &entry["message"]["content"];
    match content {
        Value::String(s) if role == "user" => out.push(("user", s.clone())),
        Value::Array(blocks) => {
            for b in blocks {
                match b["type"].as_str() {
                    Some("text") => {
                        let source = if role == "assistant" {
                            "assistant"
                        } else {
                            "user"
                        };
                        out.push((source, b["text"].as_str().unwrap_or("").to_string()));
                    }
                    Some("tool_result") => match &b["content"] {
                        Value::String(s) => out.push(("tool", s.clone())),
                        Value::Array(parts) => out.extend(
                            parts
                                .iter()
                                .filter_map(|p| p["text"].as_str())
                                .map(|t| ("tool", t.to_string())),
                        ),
                        _ => {}
                    },
                    Some("tool_use") => strings(&b["input"], &mut out),
                    _ => {}
                }
            }
        }
        _ => {}
    }
    out
}

/// Every string in a tool's input, as an `input` text.
fn strings(value: &Value, out: &mut Vec<(&'static str, String)>) {
    match value {
        Value::String(s) => out.push(("input", s.clone())),
        Value::Array(items) => items.iter().for_each(|v| strings(v, out)),
        Value::Object(map) => map.values().for_each(|v| strings(v, out)),
        _ => {}
    }
}
