//! What Claude Code itself writes into a transcript, told apart from what the user typed and
//! what the model said: its replies when the model did not answer, a refused or stopped call,
//! and the wrappers and reminders it puts into a user message.

use std::borrow::Cow;

use crate::EventKind;

/// What Claude Code writes as the assistant's words when the model did not answer.
const HARNESS_REPLY_PREFIXES: &[&str] = &[
    "No response requested",
    "API Error",
    "(no content)",
    "[Request interrupted by user",
    "Request timed out",
    "Prompt is too long",
    "Credit balance is too low",
    "Invalid API key",
    "Claude AI usage limit reached",
    "Claude usage limit reached",
    "Execution error",
    "OAuth token",
    "Please run /login",
    "Not logged in",
];

/// Whether the assistant's `text` was written by Claude Code, not the model (`No response
/// requested.`, `API Error: …`, a login or usage-limit notice): no prompt answers it.
pub fn is_harness_reply(text: &str) -> bool {
    let text = text.trim();
    text.is_empty() || HARNESS_REPLY_PREFIXES.iter().any(|p| text.starts_with(p))
}

/// How Claude Code starts the result of a tool call the user refused, across versions: "The user
/// doesn't want to proceed with this tool use. The tool use was rejected …" (2.x, with the
/// reason right after [`REFUSED_EDIT_NOTE`] when the user typed one), "The user doesn't want to
/// take this action right now. …" (1.0.x), and a refused sub-agent plan (1.0.5x).
///
/// A refusal is known by where these words are, never by the words alone: Claude Code writes
/// the result as an error whose content is one string that *starts* with one of them. The same
/// words anywhere else (inside a command's output, a fetched page's body, an MCP server's error,
/// a content array) are a tool's output quoting them, and what follows them there is not the
/// user's.
const REFUSED: &[&str] = &[
    REFUSED_PROCEED,
    "The user doesn't want to take this action right now.",
    "The agent proposed a plan that was rejected by the user.",
];
const REFUSED_PROCEED: &str =
    "The user doesn't want to proceed with this tool use. The tool use was rejected";
/// What Claude Code writes after [`REFUSED_PROCEED`] (without it in some versions: a full stop).
const REFUSED_EDIT_NOTE: &str =
    " (eg. if it was a file edit, the new_string was NOT written to the file).";
/// What comes right after those sentences when the user typed a reason; the reason follows.
const REASON_MARKS: &[&str] = &[
    "To tell you how to proceed, the user said:",
    "The user provided the following reason for the rejection:",
];
const CLARIFY: &str = "The user wants to clarify these questions";

/// The reason the user gave when `text` is Claude Code's refusal of a tool call (empty when they
/// gave none), `None` when it is not one. `text` is the whole content of an error result that
/// was one string (see [`REFUSED`]).
pub(crate) fn refusal_reason(text: &str) -> Option<&str> {
    let refused = REFUSED.iter().find(|p| text.starts_with(**p))?;
    if *refused != REFUSED_PROCEED {
        return Some("");
    }
    let rest = &text[REFUSED_PROCEED.len()..];
    let rest = rest
        .strip_prefix(REFUSED_EDIT_NOTE)
        .or_else(|| rest.strip_prefix('.'))
        .unwrap_or(rest)
        .trim_start_matches(' ');
    let reason = REASON_MARKS
        .iter()
        .find_map(|mark| rest.strip_prefix(mark))
        .unwrap_or("")
        .trim();
    // AskUserQuestion's "clarify" answer fills the reason slot with Claude Code's own words.
    Some(if reason.starts_with(CLARIFY) {
        ""
    } else {
        reason
    })
}

/// The event of a tool result; `plain` when its content was one string (not an array).
pub(crate) fn tool_result_event(
    tool_use_id: String,
    is_error: bool,
    plain: bool,
    text: String,
) -> EventKind {
    if is_error && plain {
        if let Some(reason) = refusal_reason(&text) {
            return EventKind::Rejection {
                tool_use_id,
                text: reason.to_string(),
            };
        }
    }
    EventKind::ToolResult {
        tool_use_id,
        is_error,
        text,
    }
}

/// How Claude Code writes, as the user's, that the user stopped the assistant.
const INTERRUPTED: &str = "[Request interrupted by user";

/// How Claude Code starts the result of a tool call the user stopped while it ran (Esc), across
/// versions.
const STOPPED: &[&str] = &[INTERRUPTED, "Interrupted by user"];

/// When a failed call's `result` is Claude Code's note that the user stopped the call, what
/// the call had printed before (its output, possibly empty); `None` for a failure of the tool.
/// A stop is the user's act: what stopped the call was neither the tool's error nor their words.
pub fn stopped_by_user(result: &str) -> Option<&str> {
    let result = result.trim_start();
    STOPPED.iter().find(|note| result.starts_with(**note))?;
    // The note is the result's first line; the call's output follows it.
    Some(
        result
            .split_once('\n')
            .map_or("", |(_, printed)| printed)
            .trim(),
    )
}

/// Whether a user entry's `text` is Claude Code's note that the user stopped the assistant.
pub(crate) fn is_interrupt(text: &str) -> bool {
    text.trim_start().starts_with(INTERRUPTED)
}

/// Spans Claude Code or the IDE inject into a user message; the user did not type them.
const INJECTED_SPANS: &[(&str, &str)] = &[
    ("<system-reminder>", "</system-reminder>"),
    ("<ide_selection>", "</ide_selection>"),
    ("<ide_opened_file>", "</ide_opened_file>"),
    ("<ide_diagnostics>", "</ide_diagnostics>"),
];

/// Messages that start like this are wrappers or output of slash commands, local commands and
/// bash mode, or text Claude Code writes itself.
const NOT_TYPED_PREFIXES: &[&str] = &[
    "<command-name>",
    "<command-message>",
    "<command-args>",
    "<local-command-",
    "<bash-stdout>",
    "<bash-stderr>",
    "<task-notification>",
    INTERRUPTED,
    "Caveat: The messages below were generated by the user while running local commands",
    "This session is being continued from a previous conversation",
];

/// The part of a user message the human typed, or `None` when there is none.
pub(crate) fn genuine_user_text(raw: &str) -> Option<String> {
    let mut text = Cow::Borrowed(raw);
    for (open, close) in INJECTED_SPANS {
        if text.contains(open) {
            text = Cow::Owned(strip_spans(&text, open, close));
        }
    }
    let text = text.trim();
    if text.is_empty() || text == "Warmup" {
        return None;
    }
    if NOT_TYPED_PREFIXES.iter().any(|p| text.starts_with(p)) {
        return None;
    }
    Some(text.to_string())
}

/// `text` without the `open … close` spans (an unclosed span runs to the end).
fn strip_spans(text: &str, open: &str, close: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut rest = text;
    while let Some(at) = rest.find(open) {
        out.push_str(&rest[..at]);
        rest = &rest[at + open.len()..];
        match rest.find(close) {
            Some(end) => rest = &rest[end + close.len()..],
            None => rest = "",
        }
    }
    out.push_str(rest);
    out
}
