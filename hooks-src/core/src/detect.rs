//! Detectors: learning signals from a stream of transcript [`Event`]s.
//!
//! Pure and deterministic: no I/O, no clock reads beyond the signal's capture timestamp. The hook
//! feeds every event of the unread part of a transcript, then takes the signals from
//! [`Detector::finish`] and fills in session, project and hook name, and redacts.

use std::collections::HashMap;

use serde_json::Value;

use crate::failure::{error_head, input_summary};
use crate::render::one_line;
use crate::signal::{Kind, Signal};
use crate::transcript::{Event, EventKind};

/// Longest user text kept in a signal's content.
const CONTENT_CHARS: usize = 300;

/// Streaming detector state.
#[derive(Default)]
pub struct Detector {
    signals: Vec<Signal>,
    /// Tool calls by id: name and one-line summary of the input.
    calls: HashMap<String, (String, String)>,
    /// What the assistant did since the user last spoke.
    turn: Turn,
}

#[derive(Default)]
struct Turn {
    tools: Vec<String>,
    last_text: Option<String>,
}

impl Detector {
    pub fn new() -> Detector {
        Detector::default()
    }

    pub fn feed(&mut self, event: &Event) {
        match &event.kind {
            EventKind::UserText { text } => {
                if let Some(sig) = classify_user_text(text, &self.turn) {
                    self.push(sig, event, text);
                }
                self.turn = Turn::default();
            }
            EventKind::AssistantText { text } => {
                self.turn.last_text = Some(text.clone());
            }
            EventKind::ToolUse { id, name, input } => {
                self.calls
                    .insert(id.clone(), (name.clone(), input_summary(name, input)));
                self.turn.tools.push(name.clone());
            }
            EventKind::ToolResult {
                tool_use_id,
                is_error: true,
                text,
            } if text.trim() != "Warmup" => {
                let (name, tried) = self.calls.get(tool_use_id).cloned().unwrap_or_default();
                let tool = if name.is_empty() { "tool" } else { &name };
                let mut sig = Signal::new(
                    Kind::Failure,
                    format!("{tool} failed: {}", error_head(text)),
                );
                sig.context = format!("Tried: {tried}\nError: {}", one_line(text, 600));
                sig.category = Some("tool-failure".into());
                sig.meta
                    .insert("tool_use_id".into(), Value::from(tool_use_id.as_str()));
                sig.meta.insert("tool".into(), Value::from(tool));
                set_source(&mut sig, event);
                self.signals.push(sig);
            }
            EventKind::Rejection { tool_use_id, text } => {
                let (name, tried) = self.calls.get(tool_use_id).cloned().unwrap_or_default();
                let content = if text.is_empty() {
                    format!("User rejected {name} on `{tried}`")
                } else {
                    one_line(text, CONTENT_CHARS)
                };
                let mut sig = Signal::new(Kind::Correction, content);
                sig.context = format!("User rejected the tool call {name}: {tried}");
                set_source(&mut sig, event);
                self.signals.push(sig);
            }
            _ => {}
        }
    }

    pub fn finish(self) -> Vec<Signal> {
        self.signals
    }

    fn push(&mut self, (kind, confidence): (Kind, u8), event: &Event, text: &str) {
        let mut sig = Signal::new(kind, one_line(text, CONTENT_CHARS));
        sig.confidence = confidence;
        let answered = self
            .turn
            .last_text
            .as_deref()
            .map(|t| one_line(t, 160))
            .or_else(|| self.turn.tools.last().cloned())
            .unwrap_or_default();
        sig.context = format!("User said: '{}' (after: {answered})", one_line(text, 600));
        set_source(&mut sig, event);
        self.signals.push(sig);
    }
}

fn set_source(sig: &mut Signal, event: &Event) {
    sig.source.line = Some(event.line);
    sig.source.uuid = event.uuid.clone();
}

fn classify_user_text(text: &str, _turn: &Turn) -> Option<(Kind, u8)> {
    let lower = text.to_lowercase();
    if lower.contains("<user-memory-input>") || lower.starts_with("remember ") {
        return Some((Kind::Remember, 1));
    }
    if lower.starts_with("no,") || lower.starts_with("no ") {
        return Some((Kind::Correction, 1));
    }
    if lower.contains("always ") || lower.contains("never ") {
        return Some((Kind::Convention, 1));
    }
    None
}
