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

use std::collections::HashMap;

use serde_json::Value;

use crate::failure::{error_head, input_summary};
use crate::render::one_line;
use crate::signal::{Kind, Signal};
use crate::transcript::{Event, EventKind};

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
    /// Tool calls seen so far, by id.
    calls: HashMap<String, Call>,
    /// What the assistant did since the user last spoke.
    turn: Turn,
    failures: Streak,
    edits: Streak,
    searches: Streak,
    /// Line and uuid of the event being fed, for signals raised by a streak.
    at: (u64, Option<String>),
}

#[derive(Clone, Default)]
struct Call {
    name: String,
    /// One-line summary of the input (command, path, pattern).
    summary: String,
}

#[derive(Default)]
struct Turn {
    situation: Situation,
    /// Tools called, in order.
    tools: Vec<String>,
    /// The last line of the assistant's last text.
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
            *self = Streak {
                key: key.to_string(),
                ..Streak::default()
            };
        }
        self.count += 1;
        self.count
    }
    fn reset(&mut self) {
        *self = Streak::default();
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
                self.turn.last_text = last.map(|l| one_line(l, 200));
            }
            EventKind::ToolUse { id, name, input } => self.tool_use(id, name, input),
            EventKind::ToolResult {
                tool_use_id,
                is_error,
                text,
            } => self.tool_result(tool_use_id, *is_error, text, event),
            EventKind::Rejection { tool_use_id, text } => self.rejection(tool_use_id, text, event),
            EventKind::CompactBoundary => {
                self.turn = Turn::default();
                self.failures.reset();
                self.edits.reset();
                self.searches.reset();
            }
        }
    }

    pub fn finish(self) -> Vec<Signal> {
        self.signals
    }

    fn user_text(&mut self, text: &str, event: &Event) {
        let answered = self.answered();
        if let Some(verdict) = text::classify(text, &self.turn.situation) {
            let content = match verdict.kind {
                Kind::Remember => one_line(&strip_memory_tags(text), CONTENT_CHARS),
                _ => one_line(text, CONTENT_CHARS),
            };
            let mut sig = Signal::new(verdict.kind, content);
            sig.confidence = verdict.confidence;
            sig.context = user_context(text, &answered);
            sig.tags = self.turn_tags();
            set_source(&mut sig, event);
            self.signals.push(sig);
        } else if self.turn.substantive && text::is_praise(text) {
            let mut sig = Signal::new(
                Kind::Pattern,
                format!("User approved: {}", one_line(&answered, 200)),
            );
            sig.context = user_context(text, &answered);
            sig.tags = self.turn_tags();
            set_source(&mut sig, event);
            self.signals.push(sig);
        }
        if let Some(command) = text::shared_command(text) {
            let mut sig = Signal::new(Kind::Command, command);
            sig.context = user_context(text, &answered);
            sig.category = Some("command".into());
            set_source(&mut sig, event);
            self.signals.push(sig);
        }
        self.turn = Turn::default();
        // A user message ends a run of attempts: what follows is a new try.
        self.failures.reset();
        self.edits.reset();
        self.searches.reset();
    }

    fn tool_use(&mut self, id: &str, name: &str, input: &Value) {
        self.turn.situation.actions += 1;
        self.turn.tools.push(name.to_string());
        if !matches!(
            name,
            "Read" | "Glob" | "Grep" | "LS" | "TodoWrite" | "WebFetch" | "WebSearch" | "Task"
        ) {
            self.turn.substantive = true;
        }
        let edited_file = match name {
            "Edit" | "MultiEdit" | "Write" | "NotebookEdit" => input
                .get("file_path")
                .or_else(|| input.get("notebook_path"))
                .and_then(Value::as_str)
                .map(str::to_string),
            _ => None,
        };
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
        self.calls.insert(
            id.to_string(),
            Call {
                name: name.to_string(),
                summary: input_summary(name, input),
            },
        );
    }

    fn tool_result(&mut self, tool_use_id: &str, is_error: bool, text: &str, event: &Event) {
        let call = self.calls.get(tool_use_id).cloned().unwrap_or_default();
        if matches!(call.name.as_str(), "Glob" | "Grep") {
            if !is_error && is_empty_search(text) {
                let count = self.searches.bump("search");
                if count >= EMPTY_SEARCHES {
                    let content = format!("{count} searches in a row found nothing");
                    let context = format!("Last search: {} `{}`", call.name, call.summary);
                    self.streak_signal(StreakKind::Searches, content, context, count);
                }
            } else {
                self.searches.reset();
            }
        }
        if !is_error {
            if !call.name.is_empty() && call.name == self.failures.key {
                self.failures.reset();
            }
            return;
        }
        if is_fake_error(text) {
            return;
        }
        let tool = if call.name.is_empty() {
            "tool"
        } else {
            call.name.as_str()
        };
        let error = strip_error_tags(text);
        let mut content = format!("{tool} failed: {}", error_head(&error));
        if !call.summary.is_empty() {
            content.push_str(&format!(" (on `{}`)", one_line(&call.summary, 100)));
        }
        let mut sig = Signal::new(Kind::Failure, content);
        sig.context = if call.summary.is_empty() {
            format!("Error: {}", one_line(&error, CONTEXT_CHARS))
        } else {
            format!(
                "Tried: {}\nError: {}",
                call.summary,
                one_line(&error, CONTEXT_CHARS)
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
            let content = format!("{tool} failed {count} times in a row");
            let context = format!(
                "Last attempt: {}\nError: {}",
                call.summary,
                error_head(&error)
            );
            self.streak_signal(StreakKind::Failures, content, context, count);
        }
    }

    fn rejection(&mut self, tool_use_id: &str, reason: &str, event: &Event) {
        self.turn.situation.rejected = true;
        let call = self.calls.get(tool_use_id).cloned().unwrap_or_default();
        let tool = if call.name.is_empty() {
            "a tool call"
        } else {
            call.name.as_str()
        };
        let content = if reason.is_empty() {
            format!("User refused {tool}: {}", one_line(&call.summary, 160))
        } else {
            one_line(reason, CONTENT_CHARS)
        };
        let mut sig = Signal::new(Kind::Correction, content);
        sig.confidence = if reason.is_empty() { 1 } else { 2 };
        sig.context = format!(
            "User refused {tool} `{}`{}",
            one_line(&call.summary, 160),
            if reason.is_empty() {
                String::new()
            } else {
                format!(", saying: '{}'", one_line(reason, CONTEXT_CHARS))
            }
        );
        sig.category = Some("tool-rejection".into());
        if !call.name.is_empty() {
            sig.tags = vec![call.name.to_ascii_lowercase()];
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
        sig.source.uuid = self.at.1.clone();
        streak.signal = Some(self.signals.len());
        self.signals.push(sig);
    }

    /// What the user's message answered: the assistant's last line, or else its last tool.
    fn answered(&self) -> String {
        self.turn
            .last_text
            .clone()
            .or_else(|| self.turn.tools.last().map(|t| format!("a {t} call")))
            .unwrap_or_default()
    }

    /// Up to three distinct tools the assistant used in the turn being answered.
    fn turn_tags(&self) -> Vec<String> {
        let mut tags: Vec<String> = Vec::new();
        for tool in self.turn.tools.iter().rev() {
            let tag = tool.to_ascii_lowercase();
            if !tags.contains(&tag) && !tool.starts_with("mcp__") && tool != "TodoWrite" {
                tags.push(tag);
            }
            if tags.len() == 3 {
                break;
            }
        }
        tags
    }
}

#[derive(Clone, Copy)]
enum StreakKind {
    Failures,
    Edits,
    Searches,
}

fn set_source(sig: &mut Signal, event: &Event) {
    sig.source.line = Some(event.line);
    sig.source.uuid = event.uuid.clone();
}

fn user_context(text: &str, answered: &str) -> String {
    let said = one_line(text, CONTEXT_CHARS);
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
