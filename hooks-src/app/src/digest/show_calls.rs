//! `--show`'s tool calls: a call as it names one ([`call_line`]), and the view at a failed,
//! refused or stopped call's line (a `failure` signal's own line, [`Failed`]): its turn's
//! prompt as the digest lists it (what the call was for; a refusal after a question asked for
//! no edit), the call, its error (the user's reason for refusing it, or what it printed before
//! the user stopped it), and what the assistant did after it in the same turn, each later call
//! ok or failed (an edit with what it changed), up to the user's next prompt. There shows what
//! the index cannot: a fix capture did not record, a later success of the same command, or a
//! failure the session undid. The prompt view and this one end alike: the start of what the
//! assistant said next and the user's next prompt ([`Answer`]). Everything it prints is
//! redacted, the turn's prompt's secrets too (`known`).

use std::fmt::Write as _;

use reflect_base::text;
use reflect_detect::episode::Job;
use reflect_detect::failure::{error_summary, input_summary, resolution_from_change, TRIED};
use reflect_store::{redact, sanitize};
use reflect_transcript::{self as transcript, Event, EventKind, ToolInput};

use super::data::TAIL_BYTES;
use super::noise;

/// The start of the assistant's answer, and of the user's next prompt, `--show` prints after
/// what it shows.
const AFTER_CHARS: usize = 300;
/// Longest command of a call ([`call_line`]).
const CALL_CHARS: usize = 200;
/// Most later calls listed; the rest are counted.
const AFTER_CALLS: usize = 12;
/// Longest error, or reason, printed.
const ERROR_CHARS: usize = 300;
/// Longest side of what an edit changed ([`edit_change`]).
const EDIT_CHARS: usize = 160;

/// How a call that did not complete ended.
#[derive(Clone, Copy, PartialEq, Eq)]
pub(super) enum Ended {
    /// The tool failed; its text is the error.
    Failed,
    /// The user refused the call; its text is their reason.
    Refused,
    /// The user stopped the call while it ran; its text is what it had printed.
    Stopped,
}

impl Ended {
    /// How a failed result (`is_error`) ended its call, and the text that goes with it: the
    /// error, or what the call printed before the user stopped it.
    pub(super) fn of_error(result: &str) -> (Ended, &str) {
        match transcript::stopped_by_user(result) {
            Some(printed) => (Ended::Stopped, printed),
            None => (Ended::Failed, result),
        }
    }
}

/// A failed, refused or stopped call and what followed it in its turn.
pub(super) struct Failed {
    /// The call (its tool and input), when its `tool_use` came before the result.
    call: Option<(String, ToolInput)>,
    ended: Ended,
    /// The error, the user's reason, or what a stopped call printed.
    error: String,
    pub(super) timestamp: Option<String>,
    after: Vec<After>,
    /// Later calls past [`AFTER_CALLS`].
    more: usize,
    /// What the assistant said next.
    then: Answer,
    /// The user's next prompt and its line: where the view ends.
    pub(super) next: Option<(u64, String)>,
}

struct After {
    id: String,
    tool: String,
    input: ToolInput,
    outcome: Outcome,
}

enum Outcome {
    /// No result read (the turn was stopped, or the transcript ends).
    Open,
    Ok,
    Failed(String),
    Refused(String),
    Stopped,
}

impl Failed {
    pub(super) fn new(
        call: Option<(&str, &ToolInput)>,
        ended: Ended,
        error: &str,
        timestamp: Option<String>,
    ) -> Failed {
        Failed {
            call: call.map(|(tool, input)| (tool.to_string(), input.clone())),
            ended,
            error: error.to_string(),
            timestamp,
            after: Vec::new(),
            more: 0,
            then: Answer::default(),
            next: None,
        }
    }

    /// Takes an event after the failed call's line, until the user's next prompt.
    pub(super) fn take(&mut self, event: &Event) {
        match &event.kind {
            EventKind::UserText { text } if !noise::is_not_a_prompt(text) => {
                self.next = Some((event.line, text.clone()));
            }
            EventKind::ToolUse { id, name, input } if self.after.len() < AFTER_CALLS => {
                self.after.push(After {
                    id: id.clone(),
                    tool: name.clone(),
                    input: input.clone(),
                    outcome: Outcome::Open,
                });
            }
            EventKind::ToolUse { .. } => self.more += 1,
            EventKind::ToolResult {
                tool_use_id,
                is_error,
                text,
            } => {
                if let Some(call) = self.after.iter_mut().find(|c| &c.id == tool_use_id) {
                    call.outcome = match is_error.then(|| Ended::of_error(text)) {
                        None => Outcome::Ok,
                        Some((Ended::Stopped, _)) => Outcome::Stopped,
                        Some((_, error)) => Outcome::Failed(error.to_string()),
                    };
                }
            }
            EventKind::Rejection { tool_use_id, text } => {
                if let Some(call) = self.after.iter_mut().find(|c| &c.id == tool_use_id) {
                    call.outcome = Outcome::Refused(text.clone());
                }
            }
            EventKind::AssistantText { text } if !noise::is_harness_reply(text) => {
                self.then.push(text);
            }
            _ => {}
        }
    }

    /// The view, under `heading`; `known`: the turn's prompt's secrets, redacted wherever
    /// repeated, as are those of the view's commands (a password piped to `sudo -S` is the
    /// one the user typed as a refusal's reason before it).
    pub(super) fn render(&self, heading: String, known: &[(String, &'static str)]) -> String {
        // Each call's command read once: its secrets are hidden all through the view, and a
        // rerun is compared with the failed commands before it.
        let shown_command = self.call.as_ref().and_then(|(_, input)| command_of(input));
        let after_commands: Vec<Option<String>> =
            self.after.iter().map(|c| command_of(&c.input)).collect();
        // A Bash call whose status is another program's than its command's (its output piped
        // into a filter, its failure swallowed): its `ok` is no sign it worked.
        let masked: Vec<bool> = self
            .after
            .iter()
            .zip(&after_commands)
            .map(|(c, command)| {
                c.tool == "Bash"
                    && command
                        .as_deref()
                        .is_some_and(|command| Job::of("Bash", command).masks_status())
            })
            .collect();
        let mut known = known.to_vec();
        for command in shown_command.iter().chain(after_commands.iter().flatten()) {
            known.extend(redact::findings(command, None));
        }
        let known = &known[..];
        let redacted = |command: &Option<String>| {
            command
                .as_ref()
                .map(|c| text::one_line(&redact::redact_known(c, known), COMMAND_CHARS))
        };
        let shown_command = redacted(&shown_command);
        let after_commands: Vec<Option<String>> = after_commands.iter().map(redacted).collect();
        let mut out = heading;
        let what = match self.ended {
            Ended::Failed => "a failed call",
            Ended::Refused => "a call the user refused",
            Ended::Stopped => "a call the user stopped",
        };
        let call = call_named(
            self.call
                .as_ref()
                .map(|(tool, input)| (tool.as_str(), input)),
            known,
        );
        let _ = writeln!(out, "{what}: {call}");
        let error = shown_error(&self.error, known);
        match (self.ended, error.is_empty()) {
            (Ended::Refused, true) => out.push_str("their reason: none given\n"),
            (Ended::Refused, false) => {
                let _ = writeln!(out, "their reason: {error}");
            }
            (Ended::Stopped, true) => out.push_str("it had printed: nothing\n"),
            (Ended::Stopped, false) => {
                let _ = writeln!(out, "it had printed: {error}");
            }
            (Ended::Failed, _) => {
                let _ = writeln!(out, "its error: {error}");
            }
        }
        if self.after.is_empty() {
            out.push_str("after it, in the same turn: no other call\n");
        } else {
            out.push_str("after it, in the same turn:\n");
        }
        for (i, call) in self.after.iter().enumerate() {
            let named = self
                .rerun_line(i, shown_command.as_deref(), &after_commands)
                .or_else(|| call_line(&call.tool, &call.input, known))
                .unwrap_or_else(|| sanitize::visible(&call.tool).into_owned());
            let outcome = match &call.outcome {
                Outcome::Open => "no result".to_string(),
                Outcome::Ok if masked[i] => {
                    "ok, by the status of its pipe's end or its `|| true`".to_string()
                }
                Outcome::Ok => match edit_change(&call.tool, &call.input, known) {
                    Some(change) => format!("ok, {change}"),
                    None => "ok".to_string(),
                },
                Outcome::Failed(error) => format!("failed: {}", shown_error(error, known)),
                Outcome::Refused(reason) => match shown_error(reason, known) {
                    reason if reason.is_empty() => "refused by the user".to_string(),
                    reason => format!("refused by the user: {reason}"),
                },
                Outcome::Stopped => "stopped by the user".to_string(),
            };
            let _ = writeln!(out, "  {named} → {outcome}");
        }
        if self.more > 0 {
            let _ = writeln!(out, "  … {} more call(s)", self.more);
        }
        let then = self.then.start(known);
        if !then.is_empty() {
            let _ = writeln!(out, "assistant, then: {then}");
        }
        if let Some((at, said)) = &self.next {
            out.push_str(&self.then.next_prompt(*at, said, known));
        }
        out
    }

    /// The `i`th later call when it reruns a failed command of the view (the one shown, or a
    /// later one that failed too, the latest first) with a change past a long shared start:
    /// from where the two differ, with what it left out, as the index shows a fix
    /// (`` Bash `…--no-cache` (without --pull) ``), since a cut would keep only the shared start.
    /// `shown` and `after`: the calls' commands, redacted ([`Failed::render`]).
    fn rerun_line(
        &self,
        i: usize,
        shown: Option<&str>,
        after: &[Option<String>],
    ) -> Option<String> {
        if self.after[i].tool != "Bash" {
            return None;
        }
        let rerun = format!("`{}`", after[i].as_deref()?);
        let failed_later = self.after[..i]
            .iter()
            .zip(after)
            .rev()
            .filter(|(c, _)| c.tool == "Bash" && matches!(c.outcome, Outcome::Failed(_)))
            .filter_map(|(_, command)| command.as_deref());
        let shown = shown.filter(|_| self.call.as_ref().is_some_and(|(tool, _)| tool == "Bash"));
        let from_change = failed_later.chain(shown).find_map(|failed| {
            resolution_from_change(&format!("{TRIED}{failed}"), &rerun, 2 * CALL_CHARS)
        })?;
        Some(format!("Bash {from_change}"))
    }
}

/// What the assistant said after what `--show` shows, up to the user's next prompt: its start,
/// which the view prints, and the end of its last text, which that prompt answers.
#[derive(Default)]
pub(super) struct Answer {
    start: String,
    end: String,
}

impl Answer {
    pub(super) fn push(&mut self, text: &str) {
        if self.start.len() < TAIL_BYTES {
            self.start.push('\n');
            self.start.push_str(text::head(text, TAIL_BYTES));
        }
        self.end = text::tail_words(text, redact::ASKED_BYTES).to_string();
    }

    /// Its start, redacted (the `known` secrets too), on one line.
    pub(super) fn start(&self, known: &[(String, &'static str)]) -> String {
        shown_line(text::head(&self.start, TAIL_BYTES), known, AFTER_CHARS)
    }

    /// The line for the user's next prompt (line `at`), redacted: read as the digest reads it,
    /// a value typed as the answer to a question asking for a secret is one.
    pub(super) fn next_prompt(
        &self,
        at: u64,
        said: &str,
        known: &[(String, &'static str)],
    ) -> String {
        let asked = redact::Asked::of(&self.end);
        let cleaned = sanitize::clean(text::head(said, TAIL_BYTES));
        let said = redact::redact_after(&cleaned, asked.as_ref());
        let said = text::one_line(&redact::redact_known(&said, known), AFTER_CHARS);
        format!("user, next (L{at}): {said}\n")
    }
}

/// Longest command compared with a rerun of it ([`Failed::rerun_line`]).
const COMMAND_CHARS: usize = 4000;

/// What an edit after the failure changed, the fix the index cannot show: `` changed `old` to
/// `new` `` over the lines where its `old_string` and `new_string` differ (the lines both
/// start and end with left out), each side on one line, redacted, cut to [`EDIT_CHARS`];
/// `added …` or `removed …` when one side is empty. `None` for another tool. A `MultiEdit`
/// shows its first edit.
fn edit_change(tool: &str, input: &ToolInput, known: &[(String, &'static str)]) -> Option<String> {
    let value = input.to_value();
    let edit = match tool {
        "Edit" => &value,
        "MultiEdit" => value.get("edits")?.get(0)?,
        _ => return None,
    };
    let (old, new) = changed_lines(
        edit.get("old_string")?.as_str()?,
        edit.get("new_string")?.as_str()?,
    );
    let shown = |side: &str| shown_line(side, known, EDIT_CHARS);
    Some(match (old.trim().is_empty(), new.trim().is_empty()) {
        (true, true) => return None,
        (true, false) => format!("added `{}`", shown(&new)),
        (false, true) => format!("removed `{}`", shown(&old)),
        (false, false) => format!("changed `{}` to `{}`", shown(&old), shown(&new)),
    })
}

/// The lines of `old` and `new` from the first where they differ to the last.
fn changed_lines(old: &str, new: &str) -> (String, String) {
    let old: Vec<&str> = old.lines().collect();
    let new: Vec<&str> = new.lines().collect();
    let start = old.iter().zip(&new).take_while(|(a, b)| a == b).count();
    let end = old[start..]
        .iter()
        .rev()
        .zip(new[start..].iter().rev())
        .take_while(|(a, b)| a == b)
        .count();
    (
        old[start..old.len() - end].join("\n"),
        new[start..new.len() - end].join("\n"),
    )
}

/// The `command` of a call's input (a Bash call's), cleaned of control characters.
fn command_of(input: &ToolInput) -> Option<String> {
    let value = input.to_value();
    Some(sanitize::clean(value.get("command")?.as_str()?).into_owned())
}

/// An error as the index words one, redacted, on one line.
pub(super) fn shown_error(error: &str, known: &[(String, &'static str)]) -> String {
    // Redacted before its line is picked: a cut could split a secret.
    let cleaned = sanitize::clean(error);
    let redacted = redact::redact_known(&cleaned, known);
    text::one_line(&error_summary(&redacted), ERROR_CHARS)
}

/// A call as the views name the one that failed or was refused: [`call_line`], the tool alone
/// when its input says nothing (a call the tool rejected for a missing parameter), or a note
/// when the result's call is not in the transcript.
pub(super) fn call_named(
    call: Option<(&str, &ToolInput)>,
    known: &[(String, &'static str)],
) -> String {
    match call {
        Some((tool, input)) => {
            call_line(tool, input, known).unwrap_or_else(|| sanitize::visible(tool).into_owned())
        }
        None => "(its call is not in the transcript)".to_string(),
    }
}

/// A tool call as `--show` names it: `Bash \`cargo test\``, what it was asked to do redacted
/// (the prompt's secrets too, `known`) on one line of at most [`CALL_CHARS`]; `None` when the
/// input says nothing.
pub(super) fn call_line(
    tool: &str,
    input: &ToolInput,
    known: &[(String, &'static str)],
) -> Option<String> {
    let asked = shown_line(&input_summary(tool, &input.to_value()), known, CALL_CHARS);
    (!asked.is_empty()).then(|| format!("{} `{asked}`", sanitize::visible(tool)))
}

/// `text` cleaned of control characters, redacted (the `known` secrets too) and on one line of
/// at most `max` characters: what a call was asked to do, a side of an edit, or the start of an
/// answer.
fn shown_line(text: &str, known: &[(String, &'static str)], max: usize) -> String {
    text::one_line(&redact::redact_known(&sanitize::clean(text), known), max)
}
