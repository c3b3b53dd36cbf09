//! Detectors: learning signals from a stream of transcript [`Event`]s.
//!
//! Pure and deterministic: no I/O. The hook feeds every event of the unread part of a
//! transcript, takes the signals from [`Detector::finish`], fills in session, project and hook
//! name, and redacts. What is detected:
//!
//! * from what the user types ([`text`]): corrections, conventions, preferences, explicit
//!   remember-requests, commands shared to run, and praise after a substantive action (`pattern`);
//! * from tool traffic: each tool error (`failure`, carrying `meta.tool_use_id` so the same call
//!   reported by PostToolUseFailure dedups), a tool failing twice or more in a row, the same file
//!   edited three or more times in sequence and three or more searches that find nothing
//!   (`project_friction`), and tool calls the user refused (`correction`).
//!
//! Each signal's `source.line`/`source.uuid` name the transcript entry that triggered it.

pub mod eval;
pub mod text;

use foldhash::fast::FixedState;
use std::borrow::Cow;
use std::collections::{HashMap, HashSet};
use std::sync::Arc;

use serde_json::Value;

use crate::failure::{error_head, input_summary, SCAN_BYTES};
use crate::render::one_line;
use crate::signal::{Kind, Signal};
use crate::transcript::{Event, EventKind, ToolInput};

use text::Situation;

/// Longest user text kept in a signal's content.
const CONTENT_CHARS: usize = 300;
/// Longest quote in a signal's context.
const CONTEXT_CHARS: usize = 600;
/// Consecutive failures of one tool that make a "repeated failure".
const REPEATED_FAILURES: u32 = 2;
/// Consecutive edits of one file that make a "multi-attempt edit".
const REPEATED_EDITS: u32 = 3;
/// Consecutive empty searches that make "search thrashing".
const EMPTY_SEARCHES: u32 = 3;

/// Streaming detector state.
#[derive(Default)]
pub struct Detector {
    signals: Vec<Signal>,
    /// Tool calls of the current turn, by id; results follow their call within the turn.
    calls: CallMap,
    /// The previous turn's calls, for a result written after the user's next message. Older
    /// calls are dropped, so a long transcript never grows this state.
    earlier_calls: CallMap,
    /// Every tool name seen, shared by the calls and turns that name it: a transcript calls a
    /// few dozen tools thousands of times.
    tool_names: HashSet<Arc<str>, FixedState>,
    /// What the assistant did since the user last spoke.
    turn: Turn,
    failures: Streak,
    edits: Streak,
    searches: Streak,
    /// Line and uuid of the event being fed, for signals raised by a streak.
    at: (u64, Option<Arc<str>>),
}

/// Calls by their `tool_use_id`.
type CallMap = HashMap<String, Call, FixedState>;

#[derive(Clone, Default)]
struct Call {
    name: Arc<str>,
    /// The call's input; summarized (and redacted) only when a signal quotes it, which is rare.
    input: ToolInput,
}

impl Call {
    /// One redacted line saying what the call was asked to do (command, path, pattern).
    fn summary(&self) -> String {
        if self.name.is_empty() {
            return String::new();
        }
        input_summary(&self.name, &self.input.to_value())
    }
}

#[derive(Default)]
struct Turn {
    situation: Situation,
    /// Tools called, in order.
    tools: Vec<Arc<str>>,
    /// The last line of the assistant's last text, cut to what [`quote`] reads of it: quoted
    /// only when a signal needs it.
    last_text: Option<String>,
    /// Tool calls that changed something (edits, commands), as opposed to reads and searches.
    substantive: bool,
}

/// A run of one thing (a tool name, a file) and the index of the signal it raised, if any.
#[derive(Default)]
struct Streak {
    key: String,
    count: u32,
    signal: Option<usize>,
}

impl Streak {
    /// Count one more occurrence of `key`; returns the new length of the run.
    fn bump(&mut self, key: &str) -> u32 {
        if self.key != key {
            self.reset();
            self.key.push_str(key);
        }
        self.count += 1;
        self.count
    }
    /// Back to no run (the key's buffer is kept for the next one).
    fn reset(&mut self) {
        self.key.clear();
        self.count = 0;
        self.signal = None;
    }
}

impl Detector {
    pub fn new() -> Detector {
        Detector::default()
    }

    pub fn feed(&mut self, event: &Event) {
        self.at = (event.line, event.uuid.clone());
        match &event.kind {
            EventKind::UserText { text } => self.user_text(text, event),
            EventKind::AssistantText { text } => {
                self.turn.situation.actions += 1;
                let last = text.lines().rev().find(|l| !l.trim().is_empty());
                match last {
                    Some(whole) => {
                        let mut line = crate::transcript::truncate(whole, 200 * 4 + 64);
                        if line.len() < whole.len() {
                            // Back to a blank, as `quote` cuts: a token cut in two would no
                            // longer be redacted when the line is quoted.
                            line = &line[..line.rfind(char::is_whitespace).unwrap_or(0)];
                        }
                        let kept = self.turn.last_text.get_or_insert_with(String::new);
                        kept.clear();
                        kept.push_str(line);
                    }
                    None => self.turn.last_text = None,
                }
            }
            EventKind::ToolUse { id, name, input } => {
                self.tool_use(id.clone(), name, Cow::Borrowed(input))
            }
            EventKind::ToolResult {
                tool_use_id,
                is_error,
                text,
            } => self.tool_result(tool_use_id, *is_error, text, event),
            EventKind::Rejection { tool_use_id, text } => self.rejection(tool_use_id, text, event),
            EventKind::CompactBoundary => {
                self.turn.reset();
                self.failures.reset();
                self.edits.reset();
                self.searches.reset();
            }
        }
    }

    /// [`Detector::feed`] for an event the caller is done with: a tool call's input is kept
    /// without a copy.
    pub fn feed_owned(&mut self, event: Event) {
        match event.kind {
            EventKind::ToolUse { id, name, input } => {
                self.at = (event.line, event.uuid);
                self.tool_use(id, &name, Cow::Owned(input));
            }
            _ => self.feed(&event),
        }
    }

    pub fn finish(self) -> Vec<Signal> {
        self.signals
    }

    fn user_text(&mut self, text: &str, event: &Event) {
        let read = text::Reading::of(text);
        let verdict = text::classify(&read, &self.turn.situation);
        let praise = verdict.is_none() && self.turn.substantive && text::is_praise(&read);
        let command = text::shared_command(&read);
        // Most messages raise nothing: what they answered is quoted only for a signal.
        let answered = if verdict.is_some() || praise || command.is_some() {
            self.answered()
        } else {
            String::new()
        };
        if let Some(verdict) = verdict {
            let content = match verdict.kind {
                Kind::Remember => quote(&strip_memory_tags(text), CONTENT_CHARS),
                _ => quote(text, CONTENT_CHARS),
            };
            let mut sig = Signal::new(verdict.kind, content);
            sig.confidence = verdict.confidence;
            sig.context = user_context(text, &answered);
            sig.tags = self.turn_tags();
            set_source(&mut sig, event);
            self.signals.push(sig);
        } else if praise {
            let mut sig = Signal::new(
                Kind::Pattern,
                format!("User approved: {}", one_line(&answered, 200)),
            );
            sig.context = user_context(text, &answered);
            sig.tags = self.turn_tags();
            set_source(&mut sig, event);
            self.signals.push(sig);
        }
        if let Some(command) = command {
            let mut sig = Signal::new(Kind::Command, command);
            sig.context = user_context(text, &answered);
            sig.category = Some("command".into());
            set_source(&mut sig, event);
            self.signals.push(sig);
        }
        self.turn.reset();
        // The maps trade places, so neither is rebuilt turn after turn.
        std::mem::swap(&mut self.earlier_calls, &mut self.calls);
        self.calls.clear();
        // A user message ends a run of attempts: what follows is a new try.
        self.failures.reset();
        self.edits.reset();
        self.searches.reset();
    }

    fn tool_use(&mut self, id: String, name: &str, input: Cow<'_, ToolInput>) {
        let name = self.tool_name(name);
        self.turn.situation.actions += 1;
        self.turn.tools.push(name.clone());
        if !matches!(
            &*name,
            "Read" | "Glob" | "Grep" | "LS" | "TodoWrite" | "WebFetch" | "WebSearch" | "Task"
        ) {
            self.turn.substantive = true;
        }
        let edited_file = match &*name {
            "Edit" | "MultiEdit" | "Write" | "NotebookEdit" => input
                .str_field("file_path")
                .or_else(|| input.str_field("notebook_path")),
            _ => None,
        };
        // Plan files are rewritten as a plan evolves; that is no struggle with the code.
        let edited_file = edited_file.filter(|f| !f.contains("/.claude/plans/"));
        if let Some(file) = &edited_file {
            let count = self.edits.bump(file);
            if count >= REPEATED_EDITS {
                let content = format!("{file} edited {count} times in a row");
                let context = format!(
                    "The assistant needed {count} consecutive edits of {file} to get it right."
                );
                self.streak_signal(StreakKind::Edits, content, context, count);
            }
        }
        drop(edited_file);
        self.calls.insert(
            id,
            Call {
                name,
                input: input.into_owned(),
            },
        );
    }

    /// The shared copy of a tool name.
    fn tool_name(&mut self, name: &str) -> Arc<str> {
        if let Some(known) = self.tool_names.get(name) {
            return known.clone();
        }
        let name: Arc<str> = name.into();
        self.tool_names.insert(name.clone());
        name
    }

    fn tool_result(&mut self, tool_use_id: &str, is_error: bool, text: &str, event: &Event) {
        let name = self.call_name(tool_use_id);
        let is_search = matches!(&*name, "Glob" | "Grep");
        if is_search && !is_error && is_empty_search(text) {
            let count = self.searches.bump("search");
            if count >= EMPTY_SEARCHES {
                let summary = self.call_summary(tool_use_id);
                let content = format!(
                    "{count} searches in a row found nothing (last: {name} `{}`)",
                    one_line(&summary, 100)
                );
                let context = format!("Last search: {name} `{summary}`");
                self.streak_signal(StreakKind::Searches, content, context, count);
            }
        } else if is_search {
            self.searches.reset();
        }
        if !is_error {
            // A tool that worked ends a run of its failures.
            if !name.is_empty() && *name == *self.failures.key {
                self.failures.reset();
            }
            return;
        }
        if is_fake_error(text) {
            return;
        }
        let summary = self.call_summary(tool_use_id);
        let tool = if name.is_empty() { "tool" } else { &*name };
        // Redacted before the headline and the excerpt cut it: a cut token no longer matches
        // its rule and would leak its start.
        let error = crate::redact::redact_prefix(&strip_error_tags(text), SCAN_BYTES).into_owned();
        let mut content = format!("{tool} failed: {}", error_head(&error));
        if !summary.is_empty() {
            content.push_str(&format!(" (on `{}`)", one_line(&summary, 100)));
        }
        let mut sig = Signal::new(Kind::Failure, content);
        sig.context = if summary.is_empty() {
            format!("Error: {}", quote(&error, CONTEXT_CHARS))
        } else {
            format!(
                "Tried: {}\nError: {}",
                summary,
                quote(&error, CONTEXT_CHARS)
            )
        };
        sig.category = Some("tool-failure".into());
        sig.tags = vec![tool.to_ascii_lowercase()];
        sig.meta.insert("tool".into(), Value::from(tool));
        sig.meta
            .insert("tool_use_id".into(), Value::from(tool_use_id));
        set_source(&mut sig, event);
        self.signals.push(sig);

        let count = self.failures.bump(tool);
        if count >= REPEATED_FAILURES {
            let mut content = format!("{tool} failed {count} times in a row");
            if !summary.is_empty() {
                content.push_str(&format!(" (last on `{}`)", one_line(&summary, 100)));
            }
            let context = format!("Last attempt: {}\nError: {}", summary, error_head(&error));
            self.streak_signal(StreakKind::Failures, content, context, count);
        }
    }

    fn rejection(&mut self, tool_use_id: &str, reason: &str, event: &Event) {
        self.turn.situation.rejected = true;
        let name = self.call_name(tool_use_id);
        let summary = self.call_summary(tool_use_id);
        let tool = if name.is_empty() {
            "a tool call"
        } else {
            &*name
        };
        let content = if reason.is_empty() {
            format!("User refused {tool}: {}", one_line(&summary, 160))
        } else {
            quote(reason, CONTENT_CHARS)
        };
        let mut sig = Signal::new(Kind::Correction, content);
        sig.confidence = if reason.is_empty() { 1 } else { 2 };
        sig.context = format!(
            "User refused {tool} `{}`{}",
            one_line(&summary, 160),
            if reason.is_empty() {
                String::new()
            } else {
                format!(", saying: '{}'", quote(reason, CONTEXT_CHARS))
            }
        );
        sig.category = Some("tool-rejection".into());
        if !name.is_empty() {
            sig.tags = vec![name.to_ascii_lowercase()];
        }
        sig.meta
            .insert("tool_use_id".into(), Value::from(tool_use_id));
        set_source(&mut sig, event);
        self.signals.push(sig);
    }

    /// Raise (once per run) or update the signal of a streak that reached its threshold.
    fn streak_signal(&mut self, kind: StreakKind, content: String, context: String, count: u32) {
        let streak = match kind {
            StreakKind::Failures => &mut self.failures,
            StreakKind::Edits => &mut self.edits,
            StreakKind::Searches => &mut self.searches,
        };
        if let Some(index) = streak.signal {
            let sig = &mut self.signals[index];
            sig.content = content;
            sig.context = context;
            sig.meta.insert("count".into(), Value::from(count));
            return;
        }
        let (signal_kind, category) = match kind {
            StreakKind::Failures => (Kind::Failure, "repeated-failure"),
            StreakKind::Edits => (Kind::ProjectFriction, "multi-attempt-edit"),
            StreakKind::Searches => (Kind::ProjectFriction, "search-thrashing"),
        };
        let mut sig = Signal::new(signal_kind, content);
        sig.context = context;
        sig.category = Some(category.into());
        sig.meta.insert("count".into(), Value::from(count));
        sig.source.line = Some(self.at.0);
        sig.source.uuid = self.at.1.as_deref().map(str::to_string);
        streak.signal = Some(self.signals.len());
        self.signals.push(sig);
    }

    /// The call a result or rejection answers.
    fn find_call(&self, id: &str) -> Option<&Call> {
        self.calls.get(id).or_else(|| self.earlier_calls.get(id))
    }

    /// The tool name of a call (empty when it was never seen).
    fn call_name(&self, id: &str) -> Arc<str> {
        self.find_call(id)
            .map(|c| c.name.clone())
            .unwrap_or_else(|| Arc::from(""))
    }

    /// The redacted one-line summary of a call's input (empty when it was never seen).
    fn call_summary(&self, id: &str) -> String {
        self.find_call(id).map(Call::summary).unwrap_or_default()
    }

    /// What the user's message answered: the assistant's last line, or else its last tool.
    fn answered(&self) -> String {
        self.turn
            .last_text
            .as_deref()
            .map(|l| quote(l, 200))
            .or_else(|| self.turn.tools.last().map(|t| format!("a {t} call")))
            .unwrap_or_default()
    }

    /// Up to three distinct tools the assistant used in the turn being answered.
    fn turn_tags(&self) -> Vec<String> {
        let mut tags: Vec<String> = Vec::new();
        for tool in self.turn.tools.iter().rev() {
            let tag = tool.to_ascii_lowercase();
            if !tags.contains(&tag) && !tool.starts_with("mcp__") && &**tool != "TodoWrite" {
                tags.push(tag);
            }
            if tags.len() == 3 {
                break;
            }
        }
        tags
    }
}

impl Turn {
    /// A new turn: every field back to its default (a field added later too), only the tool
    /// list's buffer kept.
    fn reset(&mut self) {
        let mut tools = std::mem::take(&mut self.tools);
        tools.clear();
        *self = Turn {
            tools,
            ..Turn::default()
        };
    }
}

#[derive(Clone, Copy)]
enum StreakKind {
    Failures,
    Edits,
    Searches,
}

/// [`one_line`] of a text's head, redacted before it is cut (a cut token would leak its start):
/// a 60 kB paste is not flattened or redacted whole to quote 600 characters.
fn quote(text: &str, max: usize) -> String {
    one_line(&crate::redact::redact_prefix(text, max * 4 + 64), max)
}

fn set_source(sig: &mut Signal, event: &Event) {
    sig.source.line = Some(event.line);
    sig.source.uuid = event.uuid.as_deref().map(str::to_string);
}

fn user_context(text: &str, answered: &str) -> String {
    let said = quote(text, CONTEXT_CHARS);
    if answered.is_empty() {
        format!("User said: '{said}'")
    } else {
        format!("User said: '{said}' (answering: {answered})")
    }
}

fn strip_memory_tags(text: &str) -> String {
    text.replace("<user-memory-input>", "")
        .replace("</user-memory-input>", "")
        .trim()
        .to_string()
}

fn strip_error_tags(text: &str) -> String {
    text.replace("<tool_use_error>", "")
        .replace("</tool_use_error>", "")
}

/// Errors Claude Code writes itself, not failures of the work: the "Warmup" sub-agent's
/// refused calls and user interrupts.
fn is_fake_error(text: &str) -> bool {
    let t = text.trim();
    t == "Warmup" || t.contains("[Request interrupted by user")
}

/// A Glob/Grep result that found nothing.
fn is_empty_search(text: &str) -> bool {
    let t = text.trim();
    t.is_empty()
        || t.starts_with("No files found")
        || t.starts_with("No matches found")
        || t.starts_with("Found 0 ")
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    /// Feed `kinds` as events on lines 1, 2, 3 … and return the signals.
    fn run(kinds: Vec<EventKind>) -> Vec<Signal> {
        let mut detector = Detector::new();
        for (i, kind) in kinds.into_iter().enumerate() {
            detector.feed(&Event {
                line: i as u64 + 1,
                uuid: Some(format!("uuid-{}", i + 1).into()),
                timestamp: None,
                kind,
            });
        }
        detector.finish()
    }

    fn user(text: &str) -> EventKind {
        EventKind::UserText { text: text.into() }
    }
    fn says(text: &str) -> EventKind {
        EventKind::AssistantText { text: text.into() }
    }
    fn call(id: &str, name: &str, input: Value) -> EventKind {
        EventKind::ToolUse {
            id: id.into(),
            name: name.into(),
            input: ToolInput::from(&input),
        }
    }
    fn result(id: &str, is_error: bool, text: &str) -> EventKind {
        EventKind::ToolResult {
            tool_use_id: id.into(),
            is_error,
            text: text.into(),
        }
    }
    fn of_kind<'a>(signals: &'a [Signal], kind: &Kind) -> Vec<&'a Signal> {
        signals.iter().filter(|s| &s.kind == kind).collect()
    }

    #[test]
    fn a_correction_quotes_the_user_and_what_it_answered() {
        let signals = run(vec![
            user("set up the project"),
            says("I'll install the dependencies.\nRunning npm install now."),
            call("t1", "Bash", json!({"command": "npm install"})),
            result("t1", false, "added 3 packages"),
            user("No, use pnpm instead of npm"),
        ]);
        let corrections = of_kind(&signals, &Kind::Correction);
        assert_eq!(corrections.len(), 1, "{signals:#?}");
        let c = corrections[0];
        assert_eq!(c.content, "No, use pnpm instead of npm");
        assert_eq!(c.confidence, 3);
        assert_eq!(c.source.line, Some(5));
        assert_eq!(c.source.uuid.as_deref(), Some("uuid-5"));
        assert!(
            c.context.contains("No, use pnpm instead of npm"),
            "{}",
            c.context
        );
        assert!(
            c.context.contains("Running npm install now."),
            "{}",
            c.context
        );
        assert_eq!(c.tags, vec!["bash"]);
    }

    #[test]
    fn a_tool_error_is_a_failure_that_names_its_call() {
        let signals = run(vec![
            call("t1", "Read", json!({"file_path": "/nope.txt"})),
            result(
                "t1",
                true,
                "<tool_use_error>File does not exist.</tool_use_error>",
            ),
        ]);
        let failures = of_kind(&signals, &Kind::Failure);
        assert_eq!(failures.len(), 1);
        let f = failures[0];
        assert_eq!(
            f.content,
            "Read failed: File does not exist. (on `/nope.txt`)"
        );
        assert_eq!(f.tool_use_id(), Some("t1"));
        assert_eq!(f.source.line, Some(2));
    }

    #[test]
    fn warmup_and_interrupt_errors_are_not_failures() {
        let signals = run(vec![
            call("t1", "Glob", json!({"pattern": "**/*"})),
            result("t1", true, "Warmup"),
            call("t2", "Bash", json!({"command": "sleep 100"})),
            result("t2", true, "[Request interrupted by user for tool use]"),
        ]);
        assert!(signals.is_empty(), "{signals:#?}");
    }

    #[test]
    fn feeding_owned_events_finds_what_feeding_borrowed_ones_finds() {
        let mut kinds = Vec::new();
        for i in 0..3 {
            kinds.push(call(
                &format!("t{i}"),
                "Edit",
                json!({"file_path": "/p/a.rs"}),
            ));
            kinds.push(result(
                &format!("t{i}"),
                true,
                "String to replace not found",
            ));
        }
        kinds.push(call("r", "Bash", json!({"command": "rm -rf build"})));
        kinds.push(EventKind::Rejection {
            tool_use_id: "r".into(),
            text: "use make clean instead".into(),
        });
        let borrowed = run(kinds.clone());
        let mut detector = Detector::new();
        for (i, kind) in kinds.into_iter().enumerate() {
            detector.feed_owned(Event {
                line: i as u64 + 1,
                uuid: Some(format!("uuid-{}", i + 1).into()),
                timestamp: None,
                kind,
            });
        }
        let owned = detector.finish();
        // Everything but the creation time, which may tick between the two runs.
        let json = |signals: &[Signal]| {
            let mut signals = signals.to_vec();
            for s in &mut signals {
                s.timestamp.clear();
            }
            serde_json::to_string(&signals).unwrap()
        };
        assert!(borrowed.len() >= 3, "{borrowed:#?}");
        assert!(json(&borrowed).contains("rm -rf build"), "{borrowed:#?}");
        assert_eq!(json(&owned), json(&borrowed));
    }

    #[test]
    fn a_tool_failing_twice_in_a_row_is_a_repeated_failure() {
        let mut events = Vec::new();
        for i in 0..3 {
            events.push(call(&format!("t{i}"), "Bash", json!({"command": "make"})));
            events.push(result(
                &format!("t{i}"),
                true,
                "Exit code 2\nmissing target",
            ));
        }
        let signals = run(events);
        let repeated: Vec<_> = signals
            .iter()
            .filter(|s| s.category.as_deref() == Some("repeated-failure"))
            .collect();
        assert_eq!(repeated.len(), 1, "one signal per run: {signals:#?}");
        assert_eq!(
            repeated[0].content,
            "Bash failed 3 times in a row (last on `make`)"
        );
        assert_eq!(repeated[0].meta.get("count"), Some(&json!(3)));
        assert_eq!(repeated[0].tool_use_id(), None);

        // A success in between breaks the run.
        let signals = run(vec![
            call("a", "Bash", json!({"command": "make"})),
            result("a", true, "Exit code 2"),
            call("b", "Bash", json!({"command": "make"})),
            result("b", false, "ok"),
            call("c", "Bash", json!({"command": "make"})),
            result("c", true, "Exit code 2"),
        ]);
        assert!(signals
            .iter()
            .all(|s| s.category.as_deref() != Some("repeated-failure")));
    }

    #[test]
    fn three_edits_of_one_file_in_sequence_are_friction() {
        let edit = |id: &str, file: &str| call(id, "Edit", json!({"file_path": file}));
        let signals = run(vec![
            edit("1", "/src/a.rs"),
            edit("2", "/src/a.rs"),
            edit("3", "/src/a.rs"),
            edit("4", "/src/a.rs"),
        ]);
        let friction = of_kind(&signals, &Kind::ProjectFriction);
        assert_eq!(friction.len(), 1);
        assert_eq!(friction[0].content, "/src/a.rs edited 4 times in a row");
        assert_eq!(friction[0].source.line, Some(3));

        let signals = run(vec![
            edit("1", "/src/a.rs"),
            edit("2", "/src/b.rs"),
            edit("3", "/src/a.rs"),
        ]);
        assert!(of_kind(&signals, &Kind::ProjectFriction).is_empty());

        let plan = "/home/u/.claude/plans/brave-plan.md";
        let signals = run(vec![edit("1", plan), edit("2", plan), edit("3", plan)]);
        assert!(of_kind(&signals, &Kind::ProjectFriction).is_empty());
    }

    #[test]
    fn three_empty_searches_are_thrashing() {
        let mut events = Vec::new();
        for (i, empty) in ["No files found", "No matches found", ""]
            .iter()
            .enumerate()
        {
            let tool = if i % 2 == 0 { "Glob" } else { "Grep" };
            events.push(call(&i.to_string(), tool, json!({"pattern": "foo"})));
            events.push(result(&i.to_string(), false, empty));
        }
        let signals = run(events);
        let thrash: Vec<_> = signals
            .iter()
            .filter(|s| s.category.as_deref() == Some("search-thrashing"))
            .collect();
        assert_eq!(thrash.len(), 1, "{signals:#?}");

        let signals = run(vec![
            call("1", "Grep", json!({"pattern": "a"})),
            result("1", false, "No matches found"),
            call("2", "Grep", json!({"pattern": "b"})),
            result("2", false, "src/lib.rs:3: b"),
            call("3", "Grep", json!({"pattern": "c"})),
            result("3", false, "No matches found"),
        ]);
        assert!(of_kind(&signals, &Kind::ProjectFriction).is_empty());
    }

    #[test]
    fn a_refused_tool_call_is_a_correction_not_a_failure() {
        let signals = run(vec![
            call("t1", "Write", json!({"file_path": "/src/new.rs"})),
            EventKind::Rejection {
                tool_use_id: "t1".into(),
                text: "put it in lib.rs".into(),
            },
        ]);
        assert!(of_kind(&signals, &Kind::Failure).is_empty());
        let c = of_kind(&signals, &Kind::Correction);
        assert_eq!(c.len(), 1);
        assert_eq!(c[0].content, "put it in lib.rs");
        assert!(c[0].context.contains("/src/new.rs"), "{}", c[0].context);
    }

    #[test]
    fn praise_after_real_work_is_a_pattern_but_not_after_reading() {
        let signals = run(vec![
            says("Refactored the parser."),
            call("1", "Edit", json!({"file_path": "/src/parse.rs"})),
            result("1", false, "ok"),
            user("Perfect, exactly what I wanted"),
        ]);
        let patterns = of_kind(&signals, &Kind::Pattern);
        assert_eq!(patterns.len(), 1);
        assert_eq!(patterns[0].confidence, 1);
        assert!(patterns[0].content.contains("Refactored the parser."));

        let signals = run(vec![
            call("1", "Read", json!({"file_path": "/src/parse.rs"})),
            user("great"),
        ]);
        assert!(of_kind(&signals, &Kind::Pattern).is_empty());
    }

    #[test]
    fn remember_requests_drop_the_memory_wrapper() {
        let signals = run(vec![user(
            "<user-memory-input>staging uses port 8443</user-memory-input>",
        )]);
        assert_eq!(signals.len(), 1);
        assert_eq!(signals[0].kind, Kind::Remember);
        assert_eq!(signals[0].content, "staging uses port 8443");
    }

    #[test]
    fn a_user_message_ends_a_run_of_attempts() {
        let signals = run(vec![
            call("a", "Bash", json!({"command": "make"})),
            result("a", true, "Exit code 2"),
            user("try again please"),
            call("b", "Bash", json!({"command": "make"})),
            result("b", true, "Exit code 2"),
        ]);
        assert!(signals
            .iter()
            .all(|s| s.category.as_deref() != Some("repeated-failure")));
    }

    #[test]
    fn calls_are_found_by_id_across_a_turn_among_many() {
        // Ids that differ in one byte, past their first eight; the maps trade places at every
        // user message.
        let ids: Vec<String> = (0..300)
            .map(|i| format!("toolu_01ABCDEFGH{i:03}"))
            .collect();
        let mut kinds = Vec::new();
        for (i, id) in ids.iter().enumerate() {
            let tool = ["Bash", "Read", "Grep"][i % 3];
            kinds.push(call(id, tool, json!({"command": format!("cmd {i}")})));
        }
        kinds.push(user("go on"));
        kinds.push(result(&ids[7], true, "Exit code 1"));
        kinds.push(result(&ids[299], true, "Exit code 2"));
        kinds.push(call("x", "Write", json!({"file_path": "/a"})));
        kinds.push(user("and on"));
        kinds.push(result("x", true, "denied"));
        kinds.push(result(&ids[10], true, "Exit code 3"));
        let contents: Vec<_> = of_kind(&run(kinds), &Kind::Failure)
            .iter()
            .filter(|s| s.category.as_deref() == Some("tool-failure"))
            .map(|s| s.content.clone())
            .collect();
        assert_eq!(
            contents,
            vec![
                "Read failed: Exit code 1 (on `cmd 7`)",
                "Grep failed: Exit code 2 (on `cmd 299`)",
                "Write failed: denied (on `/a`)",
                "tool failed: Exit code 3",
            ]
        );
    }

    #[test]
    fn calls_are_remembered_for_one_more_turn_only() {
        let signals = run(vec![
            call("t1", "Bash", json!({"command": "make"})),
            user("keep going"),
            result("t1", true, "Exit code 2"),
            call("t2", "Bash", json!({"command": "make"})),
            user("next"),
            user("and next"),
            result("t2", true, "Exit code 2"),
        ]);
        let contents: Vec<_> = of_kind(&signals, &Kind::Failure)
            .iter()
            .map(|s| s.content.clone())
            .collect();
        assert_eq!(
            contents,
            vec![
                "Bash failed: Exit code 2 (on `make`)",
                "tool failed: Exit code 2"
            ]
        );
    }
}
