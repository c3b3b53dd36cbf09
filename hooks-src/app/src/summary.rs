//! The SessionEnd `summary` signal: what a session did, in one line and a few counts.
//!
//! The summary is also where what is not worth a signal of its own is counted, so a reviewer
//! still sees how the session went: tool calls the user refused without a reason (by tool),
//! protocol errors of Claude Code's tools (by kind, see [`reflect_detect::failure`]) and failing test
//! runs.
//!
//! SessionEnd hooks share a 1.5 s budget, so the summary cannot read a long transcript from the
//! top. Instead every capture run adds the events it reads to a running [`Tally`] kept in the
//! session's cursor, and SessionEnd only reads the lines no run has seen yet.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

use reflect_detect::Counted;
use reflect_store::signal::{parse_time, Kind, Origin, Signal};
use reflect_transcript::{self as transcript, Event, EventKind};

/// Files remembered by name (a summary lists them; more are only counted).
const MAX_FILES: usize = 200;
/// Distinct tool names counted (MCP servers can bring many; the rest go under "other").
const MAX_TOOLS: usize = 100;
/// Tools and files named in the one-line content.
const CONTENT_TOOLS: usize = 5;
/// Distinct kinds of protocol error counted (the rest go under "other").
const MAX_PROTOCOL_KINDS: usize = 20;

/// `slot = Some(text)`, reusing the slot's buffer.
fn set_string(slot: &mut Option<String>, text: &str) {
    match slot {
        Some(old) => {
            old.clear();
            old.push_str(text);
        }
        None => *slot = Some(text.to_string()),
    }
}

/// Running counts of one session, built from transcript events.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct Tally {
    /// User prompts.
    pub turns: u64,
    /// Tool calls by tool name.
    pub tools: BTreeMap<String, u64>,
    /// Files changed by an editing tool, first seen first (absolute as the tool got them).
    pub files: Vec<String>,
    /// Changed files beyond [`MAX_FILES`] (counted, not named).
    pub files_unlisted: u64,
    /// Tool calls that returned an error.
    pub failures: u64,
    /// Tool calls the user rejected.
    pub rejections: u64,
    /// Refused tool calls by tool name ("tool" when the call was not seen).
    pub refused: BTreeMap<String, u64>,
    /// The transcript lines of the first refused calls ([`reflect_detect::REFUSED_LINES`]).
    pub refused_at: Vec<u64>,
    /// The tool and transcript line of the first failed calls ([`reflect_detect::FAILED_LINES`],
    /// and one more when there are more).
    pub failed_at: Vec<(String, u64)>,
    /// Protocol errors of Claude Code's tools, by kind ("File has not been read yet").
    pub protocol_errors: BTreeMap<String, u64>,
    /// Test runs whose tests failed.
    pub failing_tests: u64,
    pub first_timestamp: Option<String>,
    pub last_timestamp: Option<String>,
    /// The transcript line the last summary was written at (a repeat SessionEnd with nothing new
    /// writes no second summary).
    pub summarized_at: Option<u64>,
}

impl Tally {
    /// Count one transcript event.
    pub fn observe(&mut self, event: &Event) {
        if let Some(ts) = event.timestamp.as_deref() {
            // Most events share the last timestamp: the parse check runs only for a new bound.
            let earlier = self.first_timestamp.as_deref().is_none_or(|f| ts < f);
            let later = self.last_timestamp.as_deref().is_none_or(|l| ts > l);
            if (earlier || later) && parse_time(ts).is_some() {
                if earlier {
                    set_string(&mut self.first_timestamp, ts);
                }
                if later {
                    set_string(&mut self.last_timestamp, ts);
                }
            }
        }
        match &event.kind {
            EventKind::UserText { .. } => self.turns += 1,
            EventKind::ToolUse { name, input, .. } => {
                // One look-up for a tool already counted (nearly every call).
                let room = self.tools.len() < MAX_TOOLS;
                let name = match self.tools.get_mut(name.as_str()) {
                    Some(count) => {
                        *count += 1;
                        name.as_str()
                    }
                    None if room => {
                        self.tools.insert(name.clone(), 1);
                        name.as_str()
                    }
                    None => {
                        *self.tools.entry("other".into()).or_default() += 1;
                        "other"
                    }
                };
                if transcript::edits_a_file(name) {
                    let path = input
                        .str_field("file_path")
                        .or_else(|| input.str_field("notebook_path"))
                        .filter(|p| !p.is_empty());
                    if let Some(path) = path {
                        self.touch(&path);
                    }
                }
            }
            // A call the user stopped did not fail.
            EventKind::ToolResult {
                is_error: true,
                text,
                ..
            } if transcript::stopped_by_user(text).is_none() => self.failures += 1,
            _ => {}
        }
    }

    /// Add what the detectors counted and did not store (refusals, protocol errors, failing
    /// tests) over the lines this tally observed.
    pub fn add(&mut self, counted: Counted) {
        let bounded = |map: &mut BTreeMap<String, u64>, bound: usize, key: String, n: u64| {
            let key = if map.len() < bound || map.contains_key(&key) {
                key
            } else {
                "other".to_string()
            };
            *map.entry(key).or_default() += n;
        };
        for (tool, n) in counted.refused {
            self.rejections += n;
            bounded(&mut self.refused, MAX_TOOLS, tool, n);
        }
        let room = reflect_detect::REFUSED_LINES.saturating_sub(self.refused_at.len());
        self.refused_at
            .extend(counted.refused_at.into_iter().take(room));
        let room = (reflect_detect::FAILED_LINES + 1).saturating_sub(self.failed_at.len());
        self.failed_at
            .extend(counted.failed_at.into_iter().take(room));
        for (kind, n) in counted.protocol_errors {
            bounded(&mut self.protocol_errors, MAX_PROTOCOL_KINDS, kind, n);
        }
        self.failing_tests += counted.failing_tests;
    }

    fn touch(&mut self, path: &str) {
        // A file edited again is found as it was kept, before any redaction work.
        if self.files.iter().any(|f| f == path) {
            return;
        }
        // The tally is saved in the session's cursor file: a secret in a path is redacted before
        // it gets there (and a redacted path is compared as kept).
        let path = reflect_store::redact::redact(path);
        if self.files.iter().any(|f| *f == path) {
            return;
        }
        if self.files.len() < MAX_FILES {
            self.files.push(path.into_owned());
        } else {
            self.files_unlisted += 1;
        }
    }

    pub(crate) fn tool_calls(&self) -> u64 {
        self.tools.values().sum()
    }

    /// Seconds between the first and the last timestamped event, when both can be read.
    pub(crate) fn duration_secs(&self) -> Option<i64> {
        let first = parse_time(self.first_timestamp.as_deref()?)?;
        let last = parse_time(self.last_timestamp.as_deref()?)?;
        Some((last - first).num_seconds().max(0))
    }

    /// Nothing happened worth a summary (an empty or a meta-only session).
    pub fn is_empty(&self) -> bool {
        self.turns == 0 && self.tools.is_empty()
    }
}

/// `path` relative to `project` when it lies inside it.
pub(crate) fn relative_to(path: &str, project: Option<&str>) -> String {
    let Some(project) = project
        .map(|p| p.trim_end_matches('/'))
        .filter(|p| !p.is_empty())
    else {
        return path.to_string();
    };
    match path.strip_prefix(project) {
        Some(rest) if rest.starts_with('/') && rest.len() > 1 => rest[1..].to_string(),
        _ => path.to_string(),
    }
}

/// "Bash ×2, Edit": most first, then by name.
fn by_count(counts: &BTreeMap<String, u64>) -> Vec<String> {
    let mut sorted: Vec<(&String, &u64)> = counts.iter().collect();
    sorted.sort_by(|a, b| b.1.cmp(a.1).then(a.0.cmp(b.0)));
    sorted
        .into_iter()
        .map(|(name, &n)| {
            if n == 1 {
                name.clone()
            } else {
                format!("{name} ×{n}")
            }
        })
        .collect()
}

fn plural(n: u64, one: &str, many: &str) -> String {
    format!("{n} {}", if n == 1 { one } else { many })
}

/// "42 min", "1 h 05 min", "30 s".
pub(crate) fn human_duration(secs: i64) -> String {
    match secs {
        s if s < 60 => format!("{s} s"),
        s if s < 3600 => format!("{} min", s / 60),
        s => format!("{} h {:02} min", s / 3600, (s % 3600) / 60),
    }
}

/// The `summary` signal for a session, `None` when the session called no tool.
pub fn summary_signal(
    tally: &Tally,
    session: &str,
    project: Option<&str>,
    end_reason: Option<&str>,
) -> Option<Signal> {
    // A session that called no tool did no work to summarize (a greeting, a question).
    if tally.is_empty() || tally.tool_calls() == 0 {
        return None;
    }
    let mut by_use: Vec<(&String, &u64)> = tally.tools.iter().collect();
    by_use.sort_by(|a, b| b.1.cmp(a.1).then(a.0.cmp(b.0)));
    let mut tools_line: Vec<String> = by_use
        .iter()
        .take(CONTENT_TOOLS)
        .map(|(name, n)| format!("{name} {n}"))
        .collect();
    if by_use.len() > CONTENT_TOOLS {
        tools_line.push(format!("+{} more", by_use.len() - CONTENT_TOOLS));
    }
    let files: Vec<String> = tally
        .files
        .iter()
        .map(|f| relative_to(f, project))
        .collect();
    let files_total = files.len() as u64 + tally.files_unlisted;
    // A uuid is recognisable by its first block; another id (offline: the file name) is kept.
    let is_uuid = session.len() == 36 && session.bytes().filter(|&b| b == b'-').count() == 4;
    let short_session: String = session.chars().take(if is_uuid { 8 } else { 40 }).collect();

    let mut content = format!("Session {short_session}");
    if let Some(secs) = tally.duration_secs() {
        content.push_str(&format!(" ({})", human_duration(secs)));
    }
    content.push_str(&format!(
        ": {}, {}",
        plural(tally.turns, "prompt", "prompts"),
        plural(tally.tool_calls(), "tool call", "tool calls")
    ));
    if !tools_line.is_empty() {
        content.push_str(&format!(" ({})", tools_line.join(", ")));
    }
    content.push_str(&format!(
        ", {} touched, {}",
        plural(files_total, "file", "files"),
        plural(tally.failures, "failure", "failures")
    ));
    let refused = by_count(&tally.refused);
    if tally.rejections > 0 {
        content.push_str(&format!(
            ", refused {}",
            plural(tally.rejections, "tool call", "tool calls")
        ));
        // A cursor written before refusals were counted by tool has the count alone.
        if !refused.is_empty() {
            content.push_str(&format!(" ({})", refused.join(", ")));
        }
    }

    let mut context = String::new();
    if !files.is_empty() {
        context.push_str("Files touched: ");
        context.push_str(&files.join(", "));
        if tally.files_unlisted > 0 {
            context.push_str(&format!(" and {} more", tally.files_unlisted));
        }
        context.push('\n');
    }
    if !by_use.is_empty() {
        let all: Vec<String> = by_use.iter().map(|(n, c)| format!("{n} {c}")).collect();
        context.push_str(&format!("Tools used: {}\n", all.join(", ")));
    }
    if !refused.is_empty() {
        let at = match tally.refused_at.as_slice() {
            [] => String::new(),
            lines => {
                let lines: Vec<String> = lines.iter().map(|l| format!("L{l}")).collect();
                let more = if tally.rejections > lines.len() as u64 {
                    ", …"
                } else {
                    ""
                };
                format!(
                    ", at {}{more} (`memory-store digest --show SESSION:LINE` shows each call)",
                    lines.join(", ")
                )
            }
        };
        context.push_str(&format!(
            "Tool calls refused by the user: {}{at} (a refusal with a reason is also stored as a correction)\n",
            refused.join(", ")
        ));
    }
    if !tally.failed_at.is_empty() {
        let calls: Vec<String> = tally
            .failed_at
            .iter()
            .take(reflect_detect::FAILED_LINES)
            .map(|(tool, line)| format!("{tool} at L{line}"))
            .collect();
        let more = if tally.failed_at.len() > calls.len() {
            ", …"
        } else {
            ""
        };
        context.push_str(&format!(
            "Failed tool calls: {}{more} (`memory-store digest --show SESSION:LINE` shows each call, its error and the calls after it)\n",
            calls.join(", ")
        ));
    }
    if !tally.protocol_errors.is_empty() {
        context.push_str(&format!(
            "Protocol errors of the tools (not stored one by one): {}\n",
            by_count(&tally.protocol_errors).join(", ")
        ));
    }
    if tally.failing_tests > 0 {
        context.push_str(&format!(
            "Test runs with failing tests (not stored one by one): {}\n",
            tally.failing_tests
        ));
    }

    let mut sig = Signal::new(Kind::Summary, content);
    sig.context = context.trim_end().to_string();
    sig.session_id = Some(session.to_string());
    sig.project = project.map(str::to_string);
    sig.category = Some("session".into());
    sig.source.hook = Some("SessionEnd".into());
    sig.source.origin = Some(Origin::Assistant);
    let mut meta = Map::new();
    meta.insert("turns".into(), Value::from(tally.turns));
    let tools: Map<String, Value> = tally
        .tools
        .iter()
        .map(|(k, v)| (k.clone(), Value::from(*v)))
        .collect();
    meta.insert("tools".into(), Value::Object(tools));
    meta.insert("files".into(), Value::from(files));
    meta.insert("files_touched".into(), Value::from(files_total));
    meta.insert("failures".into(), Value::from(tally.failures));
    meta.insert("rejections".into(), Value::from(tally.rejections));
    let counts = |m: &BTreeMap<String, u64>| -> Map<String, Value> {
        m.iter()
            .map(|(k, v)| (k.clone(), Value::from(*v)))
            .collect()
    };
    if !tally.refused.is_empty() {
        meta.insert("refused".into(), Value::Object(counts(&tally.refused)));
    }
    if !tally.protocol_errors.is_empty() {
        meta.insert(
            "protocol_errors".into(),
            Value::Object(counts(&tally.protocol_errors)),
        );
    }
    if tally.failing_tests > 0 {
        meta.insert("failing_tests".into(), Value::from(tally.failing_tests));
    }
    if let Some(secs) = tally.duration_secs() {
        meta.insert("duration_secs".into(), Value::from(secs));
    }
    if let Some(t) = &tally.first_timestamp {
        meta.insert("started".into(), Value::from(t.as_str()));
    }
    if let Some(t) = &tally.last_timestamp {
        meta.insert("ended".into(), Value::from(t.as_str()));
    }
    if let Some(r) = end_reason.filter(|r| !r.is_empty()) {
        meta.insert("end_reason".into(), Value::from(r));
    }
    sig.meta = meta;
    Some(sig)
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn ev(line: u64, ts: Option<&str>, kind: EventKind) -> Event {
        Event {
            line,
            uuid: None,
            timestamp: ts.map(Into::into),
            cwd: None,
            session: None,
            parent: Default::default(),
            kind,
        }
    }

    fn tool(name: &str, input: Value) -> EventKind {
        EventKind::ToolUse {
            id: "t".into(),
            name: name.into(),
            input: reflect_transcript::ToolInput::from(&input),
        }
    }

    #[test]
    fn refusals_protocol_errors_and_failing_tests_are_counted_not_stored() {
        let mut t = Tally::default();
        t.observe(&ev(1, None, EventKind::UserText { text: "go".into() }));
        t.observe(&ev(2, None, tool("Bash", json!({"command": "ls"}))));
        let counted =
            |refused: &[(&str, u64)], protocol: &[(&str, u64)], failing, at: u64| Counted {
                refused: refused.iter().map(|(k, n)| (k.to_string(), *n)).collect(),
                refused_at: (0..refused.iter().map(|(_, n)| n).sum::<u64>())
                    .map(|k| at + k)
                    .collect(),
                failed_at: (0..6).map(|k| ("Bash".to_string(), at + 20 + k)).collect(),
                protocol_errors: protocol.iter().map(|(k, n)| (k.to_string(), *n)).collect(),
                failing_tests: failing,
            };
        // Two capture runs of one session.
        t.add(counted(
            &[("Bash", 1), ("Edit", 2)],
            &[("File has not been read yet", 1)],
            0,
            40,
        ));
        t.add(counted(
            &[("Bash", 1)],
            &[("File has not been read yet", 1)],
            1,
            90,
        ));
        assert_eq!(t.rejections, 4);
        let s = summary_signal(&t, "s", None, None).unwrap();
        assert!(
            s.content
                .ends_with(", refused 4 tool calls (Bash ×2, Edit ×2)"),
            "{}",
            s.content
        );
        assert!(
            s.context.contains(
                "Protocol errors of the tools (not stored one by one): File has not been read yet ×2"
            ),
            "{}",
            s.context
        );
        assert!(s
            .context
            .contains("Test runs with failing tests (not stored one by one): 1"));
        assert_eq!(s.meta["refused"], json!({"Bash": 2, "Edit": 2}));
        // Where each refused call is: the lines of both runs, for `digest --show`.
        assert!(
            s.context.contains(
                "Tool calls refused by the user: Bash ×2, Edit ×2, at L40, L41, L42, L90 (`memory-store digest --show SESSION:LINE` shows each call)"
            ),
            "{}",
            s.context
        );
        assert_eq!(s.meta["failing_tests"], json!(1));
        // Where the first failed calls are, over both runs, and that there are more.
        assert!(
            s.context.contains(
                "Failed tool calls: Bash at L60, Bash at L61, Bash at L62, Bash at L63, Bash at L64, Bash at L65, Bash at L110, Bash at L111, … (`memory-store digest --show SESSION:LINE` shows each call, its error and the calls after it)"
            ),
            "{}",
            s.context
        );
    }

    #[test]
    fn counted_kinds_past_the_bound_go_under_other() {
        let mut t = Tally::default();
        let protocol_errors = (0..MAX_PROTOCOL_KINDS + 3)
            .map(|i| (format!("kind {i}"), 1))
            .collect();
        t.add(Counted {
            protocol_errors,
            ..Counted::default()
        });
        assert_eq!(t.protocol_errors.len(), MAX_PROTOCOL_KINDS + 1);
        assert_eq!(t.protocol_errors["other"], 3);
    }

    #[test]
    fn tally_counts_prompts_tools_files_failures_and_time() {
        let mut t = Tally::default();
        let events = [
            ev(
                1,
                Some("2026-11-22T10:00:00.000Z"),
                EventKind::UserText { text: "fix".into() },
            ),
            ev(
                2,
                Some("2026-11-22T10:01:00.000Z"),
                tool("Edit", json!({"file_path": "/w/app/src/a.rs"})),
            ),
            ev(
                3,
                None,
                tool("Write", json!({"file_path": "/w/app/src/a.rs"})),
            ),
            ev(
                4,
                None,
                tool("NotebookEdit", json!({"notebook_path": "/tmp/n.ipynb"})),
            ),
            ev(5, None, tool("Bash", json!({"command": "cargo test"}))),
            ev(
                6,
                Some("2026-11-22T10:42:30.000Z"),
                EventKind::ToolResult {
                    tool_use_id: "t".into(),
                    is_error: true,
                    text: "boom".into(),
                },
            ),
            ev(
                7,
                Some("not a time"),
                EventKind::UserText {
                    text: "again".into(),
                },
            ),
            // A call the user stopped did not fail.
            ev(
                8,
                None,
                EventKind::ToolResult {
                    tool_use_id: "u".into(),
                    is_error: true,
                    text: "[Request interrupted by user for tool use]\nWaiting for input".into(),
                },
            ),
        ];
        for e in &events {
            t.observe(e);
        }
        assert_eq!(t.turns, 2);
        assert_eq!(t.tool_calls(), 4);
        assert_eq!(t.files, vec!["/w/app/src/a.rs", "/tmp/n.ipynb"]);
        assert_eq!(t.failures, 1);
        assert_eq!(t.duration_secs(), Some(42 * 60 + 30));

        let s = summary_signal(
            &t,
            "3f9394bc-a388-496a-b744-1667ef929002",
            Some("/w/app"),
            Some("other"),
        )
        .unwrap();
        assert_eq!(
            s.content,
            "Session 3f9394bc (42 min): 2 prompts, 4 tool calls (Bash 1, Edit 1, NotebookEdit 1, Write 1), 2 files touched, 1 failure"
        );
        assert_eq!(s.meta["files"], json!(["src/a.rs", "/tmp/n.ipynb"]));
        assert_eq!(s.meta["end_reason"], "other");
        assert_eq!(s.kind, Kind::Summary);
        assert_eq!(s.source.hook.as_deref(), Some("SessionEnd"));
    }

    #[test]
    fn other_session_ids_are_named_whole() {
        let mut t = Tally {
            turns: 1,
            ..Tally::default()
        };
        t.observe(&ev(2, None, tool("Bash", json!({"command": "ls"}))));
        let s = summary_signal(&t, "demo-transcript", None, None).unwrap();
        assert!(
            s.content.starts_with("Session demo-transcript: 1 prompt,"),
            "{}",
            s.content
        );
    }

    #[test]
    fn an_empty_session_or_one_without_work_has_no_summary() {
        assert!(summary_signal(&Tally::default(), "s", None, None).is_none());
        let mut hi = Tally::default();
        hi.observe(&ev(1, None, EventKind::UserText { text: "hi".into() }));
        assert!(summary_signal(&hi, "s", None, None).is_none());
    }

    #[test]
    fn relative_only_inside_the_project() {
        assert_eq!(relative_to("/w/app/x.rs", Some("/w/app/")), "x.rs");
        assert_eq!(
            relative_to("/w/apple/x.rs", Some("/w/app")),
            "/w/apple/x.rs"
        );
        assert_eq!(relative_to("/w/app", Some("/w/app")), "/w/app");
        assert_eq!(relative_to("x.rs", None), "x.rs");
    }

    #[test]
    fn tool_names_past_the_bound_count_as_other() {
        let mut t = Tally::default();
        for i in 0..MAX_TOOLS {
            t.observe(&ev(1, None, tool(&format!("mcp__t{i}"), json!({}))));
        }
        // Counted names go on counting; new ones, editing tools included, go under "other".
        t.observe(&ev(2, None, tool("mcp__t7", json!({}))));
        t.observe(&ev(3, None, tool("Bash", json!({"command": "ls"}))));
        t.observe(&ev(4, None, tool("Write", json!({"file_path": "/a"}))));
        assert_eq!(t.tools.len(), MAX_TOOLS + 1);
        assert_eq!(t.tools["mcp__t7"], 2);
        assert_eq!(t.tools["other"], 2);
        assert!(!t.tools.contains_key("Bash"));
        assert!(t.files.is_empty(), "{:?}", t.files);
        assert_eq!(t.tool_calls(), MAX_TOOLS as u64 + 3);
    }

    #[test]
    fn file_list_is_bounded() {
        let mut t = Tally::default();
        for i in 0..(MAX_FILES + 5) {
            t.observe(&ev(
                1,
                None,
                tool("Write", json!({"file_path": format!("/f{i}")})),
            ));
        }
        assert_eq!(t.files.len(), MAX_FILES);
        assert_eq!(t.files_unlisted, 5);
        let s = summary_signal(&t, "s", None, None).unwrap();
        assert!(s
            .content
            .contains(&format!("{} files touched", MAX_FILES + 5)));
    }

    #[test]
    fn a_secret_in_an_edited_path_never_reaches_the_tally_the_cursor_saves() {
        let token = concat!("ghp_", "R4nd0mT0k3nV4lu3F0rT3st1ngXyZ123456");
        let mut t = Tally::default();
        for name in ["Write", "Edit"] {
            let path = format!("/tmp/deploy-{token}/notes.md");
            t.observe(&ev(1, None, tool(name, json!({"file_path": path}))));
        }
        assert_eq!(t.files, ["/tmp/deploy-[REDACTED:github-token]/notes.md"]);
        assert!(!serde_json::to_string(&t).unwrap().contains(token));
    }
}
