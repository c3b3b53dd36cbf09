//! reflect-detect: the detectors, learning signals from a stream of transcript [`Event`]s.
//!
//! It imports `reflect-base`, `reflect-transcript` and `reflect-store` (for the signal schema and
//! redaction), never the application, the hooks' wire types (a failed tool call arrives as a
//! [`failure::ToolFailure`]) or `reflect-lab`: evaluation and training are development tools
//! the hooks do not link. Pure and deterministic: no I/O. The hook feeds every event of the unread part of a
//! transcript, takes the signals from [`Detector::finish`], fills in session, project and hook
//! name, and redacts. Each signal's `source.line`/`source.uuid` name the transcript entry that
//! triggered it.
//!
//! What is stored is reviewed by the user in `/reflect`, re-injected after a compaction and
//! counted in the status line, so every kind is held to what makes one worth a reviewer's
//! attention:
//!
//! * **correction, convention, preference, remember** ([`text`], decided by a learned [`model`]
//!   over [`features`]): what the user typed, when it tells the assistant how to work. The content is the user's words; what they answered is
//!   context. Paraphrases of one instruction fold into one signal with a count (the store's
//!   dedup, [`reflect_store::signal::same_instruction`]).
//! * **correction from a refused tool call**: the reason the user typed when refusing it is
//!   the strongest correction there is, so it is stored with confidence 2, its content the
//!   reason, its context what was refused. A refusal without a reason (or with a one-word
//!   "cancel") says only "not now": no signal, the session summary counts it by tool. A refused
//!   plan never stores the plan's text. A refusal is known by where Claude Code writes it (the
//!   transcript reader's `refusal_reason`), for a call the assistant was seen to make, and not
//!   for an MCP tool, whose server writes its error text whole and so could write those
//!   sentences.
//! * **failure**: a tool error that says something about the project or its environment; see
//!   [`crate::failure`] for the rules (the error line, protocol errors, failing tests). A run of
//!   the same failure is one signal seen several times, not a streak signal of its own.
//! * **pattern** (praise): only the user's words, and only when they name the approach they
//!   approve ("great, keep the parser table-driven like this"), not a "great, now do X" that
//!   only moves on. The assistant's text is never the content.
//! * **command**: a command the user shares for the assistant to run.
//!
//! Streaks of edits of one file or of empty searches are not signals: they say the assistant
//! worked step by step, not what to change, and no reviewer could act on them.
//!
//! What a user signal quotes is the user's own words: a prompt's paste (a log, a file) is left
//! out as the digest's cut leaves it out ([`excerpt`], which the digest imports from here).

pub mod copies;
mod cues;
pub mod episode;
pub mod excerpt;
pub mod failure;
pub mod features;
pub mod model;
pub mod text;
mod weights;

use foldhash::fast::FixedState;
use std::borrow::Cow;
use std::collections::{BTreeMap, HashMap, HashSet};
use std::sync::Arc;

use serde_json::Value;

use crate::failure::{input_summary, Assessment, SCAN_BYTES};
use reflect_base::text::{one_line, tail};
use reflect_store::redact;
use reflect_store::signal::{Kind, Origin, Signal};
use reflect_transcript::{self as transcript, Event, EventKind, ToolInput};

use copies::Copies;
use episode::{Episodes, Job};
use model::Model;
use text::Situation;

/// Longest user text kept in a signal's content.
const CONTENT_CHARS: usize = 300;
/// Longest quote in a signal's context.
const CONTEXT_CHARS: usize = 600;
/// Confidence of a correction the user typed as the reason for refusing a tool call.
const REFUSAL_CONFIDENCE: u8 = 2;

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
    /// What was seen and not stored, counted for the session summary.
    counted: Counted,
    /// Only events after this line are counted (a run re-reads the last turn before its cursor).
    count_after: u64,
    /// Failures waiting for what resolves them, and those closed, with the line that closed them.
    episodes: Episodes,
    closed: episode::Closed,
    /// The line of the user prompt that opened the current turn (see
    /// [`reflect_store::keyindex::PROMPT_LINE`]).
    prompt_line: Option<u64>,
    /// The session's prompts so far, when a copy of one is to store nothing ([`copies`]): what
    /// capture counts. Without, every prompt is judged alone (what the lab's evaluation scores).
    copies: Option<Copies>,
    /// The classifier prompts are weighed with, when not the shipped one (the lab's
    /// leave-one-repository-out capture: a model trained without the session's repository).
    model: Option<&'static Model>,
}

/// What the detectors saw and did not store one by one, for the session summary to count.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Counted {
    /// Refused tool calls by tool name ("tool" when the call was not seen), with a reason or not.
    pub refused: BTreeMap<String, u64>,
    /// The transcript lines of the first [`REFUSED_LINES`] of them, where `digest --show` shows
    /// each call (a refusal without a reason is no signal of its own).
    pub refused_at: Vec<u64>,
    /// The tool and transcript line of the first failed calls (an error, with a line that says
    /// what went wrong or none; not a protocol message nor failing tests), stored or not,
    /// [`FAILED_LINES`] and one more to say there are more: a failure whose episode keeps no
    /// lesson (fixed by an edit, or left) may still hold one a reviewer sees with `--show`.
    pub failed_at: Vec<(String, u64)>,
    /// Protocol errors of Claude Code's tools, by kind ([`Assessment::Protocol`]).
    pub protocol_errors: BTreeMap<String, u64>,
    /// Test runs whose tests failed.
    pub failing_tests: u64,
}

/// Refused calls a session's count names the lines of, at most.
pub const REFUSED_LINES: usize = 8;
/// Failed calls a session's count names the lines of, at most.
pub const FAILED_LINES: usize = 8;

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
    /// The end of what the assistant wrote in the turn (about [`redact::ASKED_BYTES`]): what a
    /// prompt quoted in a signal is redacted as the answer to (a password typed as the answer to
    /// its question).
    said: String,
    /// Tool calls that changed something (edits, commands), as opposed to reads and searches.
    substantive: bool,
    /// The turn's last call, and whether the user refused it: what a prompt answered when the
    /// turn had calls and no words.
    last_call: Option<String>,
    last_refused: bool,
}

impl Detector {
    pub fn new() -> Detector {
        Detector::default()
    }

    /// A detector that counts (see [`Counted`]) only what it sees after transcript line `line`.
    pub fn counting_after(line: u64) -> Detector {
        Detector {
            count_after: line,
            ..Detector::default()
        }
    }

    /// A detector that stores nothing for a copy of a prompt ([`copies`]), going on from what
    /// an earlier run knew of the session's prompts (capture keeps it in the session's cursor).
    pub fn with_copies(mut self, copies: Copies) -> Detector {
        self.copies = Some(copies);
        self
    }

    /// A detector that weighs prompts with `model` instead of the shipped classifier.
    pub fn with_model(mut self, model: &'static Model) -> Detector {
        self.model = Some(model);
        self
    }

    fn model(&self) -> &'static Model {
        self.model.unwrap_or(&model::SHIPPED)
    }

    /// What this detector knows of the session's prompts, to go on from in the next run.
    pub fn copies(&self) -> Option<&Copies> {
        self.copies.as_ref()
    }

    /// What was counted so far, taken out.
    pub fn take_counted(&mut self) -> Counted {
        std::mem::take(&mut self.counted)
    }

    pub fn feed(&mut self, event: &Event) {
        self.turn.situation.observe(event);
        match &event.kind {
            EventKind::UserText { text } => self.user_text(text, event),
            EventKind::AssistantText { text } => {
                // A turn re-read before the cursor is already in what the cursor carried.
                if let Some(copies) = self
                    .copies
                    .as_mut()
                    .filter(|_| event.line > self.count_after)
                {
                    copies.assistant_said(text);
                }
                let said = &mut self.turn.said;
                said.push('\n');
                said.push_str(tail(text, redact::ASKED_BYTES));
                if said.len() > 2 * redact::ASKED_BYTES {
                    *said = tail(said, redact::ASKED_BYTES).to_string();
                }
                match redact::last_line(text) {
                    // What Claude Code wrote in the model's place (`API Error: …`) answers nothing:
                    // the model's last words before it stay what a prompt answered.
                    _ if transcript::is_harness_reply(text) => {}
                    Some(whole) => {
                        // Back to a blank, as `quote` cuts: a token cut in two would no longer
                        // be redacted when the line is quoted.
                        let line = reflect_base::text::head(&whole, 200 * 4 + 64);
                        let kept = self.turn.last_text.get_or_insert_with(String::new);
                        kept.clear();
                        kept.push_str(line);
                    }
                    None => self.turn.last_text = None,
                }
            }
            EventKind::ToolUse { id, name, input } => {
                self.tool_use(id.clone(), name, Cow::Borrowed(input), event.line)
            }
            EventKind::ToolResult {
                tool_use_id,
                is_error,
                text,
            } => {
                if *is_error {
                    self.tool_error(tool_use_id, text, event)
                } else if !self.episodes.is_empty() {
                    self.tool_success(tool_use_id, event.line)
                }
            }
            EventKind::Rejection { tool_use_id, text } => self.rejection(tool_use_id, text, event),
            EventKind::CompactBoundary => self.turn.reset(),
            EventKind::Interrupt => {
                if let Some(copies) = self
                    .copies
                    .as_mut()
                    .filter(|_| event.line > self.count_after)
                {
                    copies.interrupted();
                }
            }
        }
    }

    /// [`Detector::feed`] for an event the caller is done with: a tool call's input is kept
    /// without a copy.
    pub fn feed_owned(&mut self, event: Event) {
        match event.kind {
            EventKind::ToolUse { id, name, input } => {
                self.turn.situation.called(&name);
                self.tool_use(id, &name, Cow::Owned(input), event.line);
            }
            _ => self.feed(&event),
        }
    }

    /// Whether a failure is still waiting for its resolution ([`Detector::finish_after`] may
    /// leave it to the next run).
    pub fn waiting(&self) -> bool {
        !self.episodes.is_empty()
    }

    /// The signals, in transcript order; failures still waiting for a resolution end unresolved.
    pub fn finish(self) -> Vec<Signal> {
        self.finish_after(0, false)
    }

    /// The signals found after transcript line `line` (a run that re-read the last turn before
    /// its cursor keeps only what is new: a signal from a later line, or a failure episode that
    /// closed after it), in transcript order. With `defer_open`, failures still waiting for a
    /// resolution are left for the next run, which re-reads their turn; otherwise they end
    /// unresolved.
    pub fn finish_after(mut self, line: u64, defer_open: bool) -> Vec<Signal> {
        if !defer_open {
            self.episodes.finish(&mut self.closed);
        }
        let mut signals = self.signals;
        signals.retain(|s| s.source.line.is_none_or(|l| l > line));
        signals.extend(
            self.closed
                .into_iter()
                .filter(|(_, closed_at)| *closed_at > line)
                .map(|(s, _)| s),
        );
        signals.sort_by_key(|s| s.source.line.unwrap_or(u64::MAX));
        signals
    }

    /// What the assistant did since the user last spoke: what the next user message answers.
    pub fn situation(&self) -> &Situation {
        &self.turn.situation
    }

    fn user_text(&mut self, text: &str, event: &Event) {
        self.prompt_line = Some(event.line);
        let read = text::Reading::of(text);
        let verdict = self.model().classify(&read, &self.turn.situation);
        let praise = verdict.is_none()
            && self.turn.substantive
            && text::is_praise(&read)
            && names_an_approach(&read.words);
        let command = match text::is_hook_message(text) {
            true => None,
            false => text::shared_command(&read),
        };
        // A prompt sent again (replayed, or cut off and resent) was said once: no second sighting.
        // Only a prompt that raises a signal is remembered, by its redacted words: the cursor
        // then keeps hashes of no words but those the store holds already, so no secret typed
        // as a prompt (a password alone) can be confirmed from it by guessing.
        let raises = verdict.is_some() || praise || command.is_some();
        let copy = match self.copies.as_mut() {
            Some(known) if event.line > self.count_after => match raises {
                true => known.is_copy(
                    &copies::repeat_key(&redact::redact(text)),
                    copies::place(text, event.parent),
                ),
                false => {
                    known.other_prompt();
                    false
                }
            },
            _ => false,
        };
        let (verdict, praise, command) = match copy {
            true => (None, false, None),
            false => (verdict, praise, command),
        };
        // Most messages raise nothing: what they answered is quoted only for a signal.
        let answered = if verdict.is_some() || praise || command.is_some() {
            self.answered()
        } else {
            String::new()
        };
        // What the prompt answered, for the secrets typed as an answer: read only for a signal.
        let asked = if verdict.is_some() || praise || command.is_some() {
            redact::Asked::of(&self.turn.said)
        } else {
            None
        };
        let asked = asked.as_ref();
        // A failure the user answered with an instruction was resolved by it.
        let redirect = (verdict.is_some() || command.is_some()).then(|| quote(text, 200, asked));
        let context = match verdict.is_some() || praise || command.is_some() {
            true => user_context(&self.own_words(text, CONTEXT_CHARS, asked), &answered),
            false => String::new(),
        };
        if let Some(verdict) = verdict {
            let content = match verdict.kind {
                Kind::Remember => self.own_words(&strip_memory_tags(text), CONTENT_CHARS, asked),
                _ => self.own_words(text, CONTENT_CHARS, asked),
            };
            let mut sig = Signal::new(verdict.kind, content);
            sig.source.origin = Some(Origin::User);
            sig.confidence = verdict.confidence;
            sig.context = context.clone();
            sig.tags = self.turn_tags();
            self.set_source(&mut sig, event);
            self.signals.push(sig);
        } else if praise {
            // The user's words only: what they approved is in them; the assistant's last line
            // (usually "Done! …") goes in the context.
            let mut sig = Signal::new(Kind::Pattern, self.own_words(text, CONTENT_CHARS, asked));
            sig.source.origin = Some(Origin::User);
            sig.context = context.clone();
            sig.tags = self.turn_tags();
            self.set_source(&mut sig, event);
            self.signals.push(sig);
        }
        self.episodes
            .user_spoke(redirect.as_deref(), event.line, &mut self.closed);
        if let Some(command) = command {
            let command = redact::redact_after(&command, asked).into_owned();
            let mut sig = Signal::new(Kind::Command, command);
            sig.source.origin = Some(Origin::User);
            sig.context = context.clone();
            sig.category = Some("command".into());
            self.set_source(&mut sig, event);
            self.signals.push(sig);
        }
        self.turn.reset();
        // The maps trade places, so neither is rebuilt turn after turn.
        std::mem::swap(&mut self.earlier_calls, &mut self.calls);
        self.calls.clear();
    }

    /// A call at transcript line `line`. The copies of prompts place the next prompt after it
    /// (see [`copies`]); a turn re-read before the cursor is already in what the cursor carried.
    fn tool_use(&mut self, id: String, name: &str, input: Cow<'_, ToolInput>, line: u64) {
        if let Some(copies) = self.copies.as_mut().filter(|_| line > self.count_after) {
            copies.assistant_called();
        }
        let name = self.tool_name(name);
        self.turn.tools.push(name.clone());
        self.turn.last_call = Some(id.clone());
        self.turn.last_refused = false;
        if !matches!(
            &*name,
            "Read" | "Glob" | "Grep" | "LS" | "TodoWrite" | "WebFetch" | "WebSearch" | "Task"
        ) {
            self.turn.substantive = true;
        }
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

    fn tool_error(&mut self, tool_use_id: &str, text: &str, event: &Event) {
        let name = self.call_name(tool_use_id);
        // Redacted before the error line and the excerpt cut it: a cut token no longer matches
        // its rule and would leak its start.
        let plain = failure::strip_ansi(text);
        let redacted = reflect_store::redact::redact_prefix(&plain, SCAN_BYTES);
        let text = &*redacted;
        let command = self.call_command(tool_use_id);
        let assessment = failure::assess_call(&name, command.as_deref().unwrap_or(""), text);
        if failure::refusal_as_error(&name, text, &assessment) {
            return self.rejection(tool_use_id, text.trim(), event);
        }
        let counting = event.line > self.count_after;
        let tool = if name.is_empty() { "tool" } else { &*name };
        let line = match assessment {
            Assessment::Error(line) => line,
            Assessment::Protocol(kind) if counting => {
                *self.counted.protocol_errors.entry(kind).or_default() += 1;
                return;
            }
            Assessment::FailingTests if counting => {
                self.counted.failing_tests += 1;
                return;
            }
            // No line says what went wrong: nothing to store, but a reviewer may still read it.
            Assessment::Silent if counting => {
                if self.counted.failed_at.len() <= FAILED_LINES {
                    self.counted.failed_at.push((tool.to_string(), event.line));
                }
                return;
            }
            _ => return,
        };
        if counting && self.counted.failed_at.len() <= FAILED_LINES {
            self.counted.failed_at.push((tool.to_string(), event.line));
        }
        let summary = self.call_summary(tool_use_id);
        let mut sig = failure::signal(tool, &line, &summary, text);
        sig.meta
            .insert("tool_use_id".into(), Value::from(tool_use_id));
        self.set_source(&mut sig, event);
        let job = self.call_job(tool_use_id, tool);
        self.episodes
            .failed(job, sig, tool_use_id, &mut self.closed);
    }

    /// A call succeeded while failures wait: it may be what resolves them, or an edit that
    /// fixed them.
    fn tool_success(&mut self, tool_use_id: &str, line: u64) {
        let Some(call) = self.find_call(tool_use_id) else {
            return;
        };
        if transcript::edits_a_file(&call.name) {
            let shown = self
                .episodes
                .quotes_edits()
                .then(|| failure::edit_summary(&call.name, &call.input.to_value()));
            return self.episodes.edited(shown);
        }
        let job = self.call_job(tool_use_id, &call.name.clone());
        self.episodes.succeeded(&job, line, &mut self.closed);
    }

    /// The command of a Bash call.
    fn call_command(&self, id: &str) -> Option<String> {
        let call = self.find_call(id).filter(|c| &*c.name == "Bash")?;
        call.input.str_field("command").map(|c| c.into_owned())
    }

    /// What a call was doing (see [`episode::Job`]): nothing is redacted or summarized here,
    /// only when a resolution quotes it, which is rare.
    fn call_job(&self, id: &str, tool: &str) -> Job {
        match self.call_command(id) {
            Some(command) => Job::of("Bash", &command),
            None => Job::of(tool, self.find_call(id).map_or("", |c| c.input.json())),
        }
    }

    fn rejection(&mut self, tool_use_id: &str, reason: &str, event: &Event) {
        if self.turn.last_call.as_deref() == Some(tool_use_id) {
            self.turn.last_refused = true;
        }
        let name = self.call_name(tool_use_id);
        if event.line > self.count_after {
            let tool = if name.is_empty() { "tool" } else { &*name };
            *self.counted.refused.entry(tool.to_string()).or_default() += 1;
            if self.counted.refused_at.len() < REFUSED_LINES {
                self.counted.refused_at.push(event.line);
            }
        }
        let hook = text::is_hook_message(reason);
        if !says_something(reason) || name.is_empty() || name.starts_with("mcp__") || hook {
            // "Not now" is no lesson: the session summary counts refusals by tool. Nor is the
            // refusal of a call the assistant was not seen to make: a result is the user's
            // refusal only as the answer to a call. An MCP server writes its error text whole,
            // Claude Code's sentences at its start included: what follows them may be its own.
            // Another hook's verdict is not the user's words.
            return;
        }
        if transcript::presents_a_plan(&name) && !redirects_a_plan(reason) {
            return;
        }
        let tool = &*name;
        let refused = if transcript::presents_a_plan(tool) {
            // A plan is pages of the assistant's text: the reason is what matters.
            "the plan".to_string()
        } else {
            let summary = self.call_summary(tool_use_id);
            if summary.is_empty() {
                tool.to_string()
            } else {
                format!("{tool} `{}`", one_line(&summary, 160))
            }
        };
        let mut sig = Signal::new(Kind::Correction, quote(reason, CONTENT_CHARS, None));
        // Claude Code's refusal, known by its place (see `transcript::refusal_reason`): the
        // reason is what the user typed.
        sig.source.origin = Some(Origin::User);
        sig.confidence = REFUSAL_CONFIDENCE;
        sig.context = format!(
            "User refused {refused}, saying: '{}'",
            quote(reason, CONTEXT_CHARS, None)
        );
        sig.category = Some("tool-rejection".into());
        if !name.is_empty() {
            sig.tags = vec![name.to_ascii_lowercase()];
        }
        sig.meta
            .insert("tool_use_id".into(), Value::from(tool_use_id));
        self.set_source(&mut sig, event);
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

    /// What the user's message answered: the assistant's last line, or else its last call.
    fn answered(&self) -> String {
        self.turn
            .last_text
            .as_deref()
            .map(|l| quote(l, 200, None))
            .or_else(|| {
                self.turn
                    .last_call
                    .as_deref()
                    .map(|id| self.call_answered(id))
            })
            .unwrap_or_default()
    }

    /// "refused Bash `git commit -m …`": the call a prompt answered, with what it was asked to
    /// do ("a Bash call" when its input says nothing). The refusal comes first: the index cuts
    /// what a prompt answered short.
    fn call_answered(&self, id: &str) -> String {
        let name = self.call_name(id);
        let asked = one_line(&self.call_summary(id), CALL_ASKED_CHARS);
        match (self.turn.last_refused, asked.is_empty()) {
            (false, true) => a_call(&name),
            (true, true) => format!("a refused {name} call"),
            (false, false) => format!("{name} `{asked}`"),
            (true, false) => format!("refused {name} `{asked}`"),
        }
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

/// Whether the reason a user gave for refusing a plan redirects it (a few short lines) rather
/// than bringing what comes next: requirements, a text to put somewhere, a list of changes
/// ("update the About section with this text: …"). Those are the next task, not a lesson.
fn redirects_a_plan(reason: &str) -> bool {
    let lines = reason.lines().filter(|l| !l.trim().is_empty()).count();
    let lower = reason.to_lowercase();
    let brings = [
        ":\n",
        "```",
        "\n- ",
        "\n* ",
        "\n1.",
        "this text",
        "the following",
        "as follows",
        "here is",
        "here's",
    ]
    .iter()
    .any(|m| lower.contains(m));
    reason.chars().count() <= 400 && lines <= 3 && !brings
}

/// Whether a refusal's reason says more than "no": two words at least ("use yarn"), or a few
/// characters of a script written without spaces.
fn says_something(reason: &str) -> bool {
    let words = reason.split_whitespace().count();
    let wide = reason
        .chars()
        .filter(|c| !c.is_ascii() && c.is_alphanumeric())
        .count();
    words >= 2 || wide >= 4
}

/// Words by which praise names what it approves, not only that it is done ("great, keep the
/// parser table-driven like this", "perfect, that's exactly how I want errors handled"). As
/// [`text::normalize`] writes them: lower case, apostrophes dropped, padded with spaces.
const APPROACH_CUES: &[&str] = &[
    " this approach ",
    " that approach ",
    " the approach ",
    " this way ",
    " that way ",
    " the way you ",
    " how you ",
    " exactly how ",
    " thats how ",
    " this is how ",
    " keep doing ",
    " keep it like ",
    " keep this ",
    " keep using ",
    " always do ",
    " like this ",
    " like that ",
    " i like how ",
    " i like that ",
    " i love how ",
    " i love that ",
    " good call ",
    " nice touch ",
    " much cleaner ",
    " much better ",
    " from now on ",
];

/// Whether a message of praise names the approach it approves (see [`APPROACH_CUES`]).
fn names_an_approach(words: &str) -> bool {
    APPROACH_CUES.iter().any(|cue| words.contains(cue))
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

/// [`one_line`] of a text's head, redacted before it is cut (a cut token would leak its start):
/// a 60 kB paste is not flattened or redacted whole to quote 600 characters. `asked`: what a
/// prompt answered (see [`redact::redact_after`]).
fn quote(text: &str, max: usize, asked: Option<&redact::Asked>) -> String {
    one_line(&redact::redact_prefix_after(text, max * 4 + 64, asked), max)
}

impl Detector {
    /// What a user signal quotes of the prompt `text`, at most `max` characters, redacted: the
    /// user's own words when a head would quote a paste they sent with them (a log, a file, an
    /// `.env`: [`excerpt`]), the likeliest of them first; else the prompt's head ([`quote`]).
    /// A paste is never the user's words, and a quote of one buries what they said.
    fn own_words(&self, text: &str, max: usize, asked: Option<&redact::Asked>) -> String {
        let (situation, model) = (&self.turn.situation, self.model());
        let cut = excerpt::excerpt(text, &self.turn.said, asked, max, |sentence| {
            model.lesson_score(&text::Reading::of(sentence), situation)
        });
        match cut.paste_cut {
            true => cut.text,
            false => quote(text, max, asked),
        }
    }

    /// The transcript entry a signal comes from, and the prompt of the turn it was in.
    fn set_source(&self, sig: &mut Signal, event: &Event) {
        sig.source.line = Some(event.line);
        sig.source.uuid = event.uuid.as_deref().map(str::to_string);
        if let Some(prompt) = self.prompt_line {
            let key = reflect_store::keyindex::PROMPT_LINE.to_string();
            sig.source.extra.insert(key, Value::from(prompt));
        }
    }
}

/// A user signal's context: what they said (quoted: [`Detector::own_words`]) and what it
/// answered.
fn user_context(said: &str, answered: &str) -> String {
    if answered.is_empty() {
        format!("{SAID}{said}'")
    } else {
        format!("{SAID}{said}{ANSWERING}{answered})")
    }
}

/// How a user signal's context quotes the prompt, and what it answered ([`user_context`]).
const SAID: &str = "User said: '";
const ANSWERING: &str = "' (answering: ";

/// The prompt's words and what they answered (empty when nothing), from a context capture
/// wrote ([`user_context`]); `None` for a context of another shape.
pub fn quoted_prompt(context: &str) -> Option<(&str, &str)> {
    let quoted = context.strip_prefix(SAID)?;
    match quoted.find(ANSWERING) {
        Some(at) => Some((
            &quoted[..at],
            quoted[at + ANSWERING.len()..].strip_suffix(')')?,
        )),
        None => Some((quoted.strip_suffix('\'')?, "")),
    }
}

fn strip_memory_tags(text: &str) -> String {
    text.replace("<user-memory-input>", "")
        .replace("</user-memory-input>", "")
        .trim()
        .to_string()
}

/// How much of a call's input says what a prompt answered ([`Detector::call_answered`]).
const CALL_ASKED_CHARS: usize = 60;

/// "a Bash call", "an Edit call": what a prompt answered when the turn ended in a call whose
/// input says nothing.
fn a_call(tool: &str) -> String {
    let vowel = tool.starts_with(|c: char| "aeiouAEIOU".contains(c));
    format!("{} {tool} call", if vowel { "an" } else { "a" })
}

#[cfg(test)]
mod tests;
