//! Reading each session's unread part into the prompts a digest may list, on a few threads.

use std::collections::HashMap;
use std::io;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;

use chrono::{DateTime, Utc};

use reflect_base::fsutil;
use reflect_base::text;
use reflect_detect::copies::{place, repeat_key, Copies};
use reflect_detect::excerpt::head_and_tail;
use reflect_detect::model::{self, Model};
use reflect_detect::text::{Reading, Situation};
use reflect_store::redact;
use reflect_store::signal;
use reflect_transcript::{self as transcript, Event, EventKind, Position};

use super::data::{Candidate, Outcome, SessionRead, Typed};
use super::data::{CALLS_KEPT, MAX_THREADS, SAID_BYTES, TAIL_BYTES, TEXT_CHARS};
use super::output::ended_with;
use super::secrets::{add_once, answered_secrets, call_secrets};
use super::{approval, noise, question, refusals};

/// Read every candidate's unread part, on a few threads; the outcomes in the candidates' order.
pub(super) fn read_all(
    candidates: &[Candidate],
    since: Option<DateTime<Utc>>,
    model: &'static Model,
) -> Vec<Outcome> {
    let threads = std::thread::available_parallelism()
        .map_or(1, |n| n.get())
        .clamp(1, MAX_THREADS)
        .min(candidates.len().max(1));
    let next = AtomicUsize::new(0);
    let mut done: Vec<(usize, Outcome)> = std::thread::scope(|scope| {
        let workers: Vec<_> = (0..threads)
            .map(|_| {
                scope.spawn(|| {
                    let mut mine = Vec::new();
                    loop {
                        let i = next.fetch_add(1, Ordering::Relaxed);
                        let Some(c) = candidates.get(i) else {
                            return mine;
                        };
                        mine.push((i, read_session(c, since, model)));
                    }
                })
            })
            .collect();
        workers
            .into_iter()
            .flat_map(|w| w.join().unwrap_or_else(|e| std::panic::resume_unwind(e)))
            .collect()
    });
    done.sort_by_key(|(i, _)| *i);
    done.into_iter().map(|(_, o)| o).collect()
}

fn read_session(c: &Candidate, since: Option<DateTime<Utc>>, model: &'static Model) -> Outcome {
    let Some(path) = &c.transcript else {
        return match c.live {
            true => Outcome::Old,
            false => Outcome::Failed(
                "no transcript found (capture has not recorded the session, and Claude Code's projects folder holds none of that name)".into(),
            ),
        };
    };
    let mut file = match fsutil::open_regular(path) {
        Ok(Some(file)) => file,
        Ok(None) if c.live => return Outcome::Old,
        Ok(None) => return Outcome::Gone,
        Err(e) => return Outcome::Failed(e.to_string()),
    };
    let modified = file.metadata().and_then(|m| m.modified()).ok();
    if let (Some(since), Some(modified)) = (since, modified) {
        if DateTime::<Utc>::from(modified) < since {
            return Outcome::Old;
        }
    }
    let failed = |e: io::Error| Outcome::Failed(format!("cannot read {}: {e}", path.display()));
    let (from, through, seen) = match &c.reviewed {
        Some(r) => match r.fits(&file) {
            Ok(true) => (
                Position {
                    offset: r.offset,
                    line: r.line,
                },
                r.through,
                r.seen.clone(),
            ),
            Ok(false) => (Position::default(), 0, Vec::new()),
            Err(e) => return failed(e),
        },
        None => (Position::default(), 0, Vec::new()),
    };
    let mut reader = PromptReader {
        model: Some(model),
        ..PromptReader::default()
    };
    let end = match transcript::read(&mut file, from, |event| reader.feed(event)) {
        Ok(end) => end,
        Err(e) => return failed(e),
    };
    let turn = match reader.prompts.last() {
        Some(p) => p.line,
        None if from.offset > 0 => from.line + 1,
        None => end.line + 1,
    };
    let prompt_lines: Vec<u64> = reader.prompts.iter().map(|p| p.line).collect();
    let last_typed = reader
        .prompts
        .iter()
        .filter_map(|p| p.timestamp.as_deref().and_then(signal::parse_time))
        .max();
    let mut prompts = reader.prompts;
    prompts.retain(|p| p.line > through && !seen.contains(&p.line));
    let dirs = reader.dirs;
    let mut known_secrets = reader.command_secrets;
    for (value, kind) in &reader.typed_secrets {
        add_once(&mut known_secrets, value, kind);
    }
    let mut refusals = reader.refusals;
    refusals.retain(|r| r.line > through && !seen.contains(&r.line));
    Outcome::Read(Box::new(SessionRead {
        modified,
        last_typed,
        prompts,
        end,
        from,
        through,
        turn,
        seen,
        prompt_lines,
        dirs,
        known_secrets,
        refusals,
    }))
}

impl SessionRead {
    /// The session's own time: when the user last typed in it, by its transcript's timestamps
    /// (a transcript copied or imported later keeps them; its file's time is the copy's), else
    /// when its file last changed.
    pub(super) fn time(&self) -> Option<DateTime<Utc>> {
        self.last_typed
            .or_else(|| self.modified.map(DateTime::<Utc>::from))
    }
}

/// A tool call of the assistant's turn, by id: what a refusal names.
struct Call {
    id: String,
    tool: String,
    /// A Bash call's input.
    command: Option<transcript::ToolInput>,
}

/// The prompts of a stream of events, each with what it answered.
#[derive(Default)]
pub(super) struct PromptReader {
    situation: Situation,
    /// The assistant's last line of text in this turn (bounded).
    last_line: Option<String>,
    /// What the assistant wrote in this turn (its end kept, about 2 × [`SAID_BYTES`] at most).
    said: String,
    /// Tools it called since its last text, each once, and the last calls' ids with their
    /// tool (a refusal names the call's id).
    tools: Vec<String>,
    calls: Vec<Call>,
    /// Of `tools`, those the user refused a call of.
    refused: Vec<String>,
    /// Of `tools`, those the user stopped a call of while it ran.
    stopped: Vec<String>,
    /// Each shell command's program, or [`refusals::FILE_EDITS`], the user refused without a
    /// reason, and each shell command's program they stopped while it ran.
    refusals: Vec<refusals::Refusal>,
    pub(super) prompts: Vec<Typed>,
    /// The directories the entries were in, with how many entries each.
    dirs: HashMap<Arc<str>, usize>,
    /// The line of the last event whose directory was counted (an entry may yield several).
    counted_line: u64,
    /// The prompts so far, to tell one sent again.
    copies: Copies,
    /// Whether the assistant wrote any text since the last prompt: a prompt it did not answer
    /// may be a draft the next one completes ([`drafted`]).
    answered: bool,
    /// The secrets typed so far as answers to a question asking for one ([`Typed::typed_before`]
    /// of the next prompt).
    typed_secrets: Vec<(String, &'static str)>,
    /// The secrets the session's commands hold ([`SessionRead::known_secrets`]).
    command_secrets: Vec<(String, &'static str)>,
    /// The classifier that weighs each prompt (the shipped one when `None`).
    model: Option<&'static Model>,
}

/// Whether a prompt keyed `earlier` ([`repeat_key`]) is a draft of the next one, keyed `key`:
/// its words, whole (a key of a long text is cut and hashed), start the longer next one (Enter
/// pressed too early, an interrupt, the prompt typed again in full).
fn drafted(earlier: &str, key: &str) -> bool {
    const MIN_DRAFT_CHARS: usize = 8;
    let words = key.split('#').next().unwrap_or(key);
    !earlier.contains('#')
        && earlier.len() >= MIN_DRAFT_CHARS
        && words.len() > earlier.len()
        && words.starts_with(earlier)
}

impl PromptReader {
    pub(super) fn feed(&mut self, event: Event) {
        if event.line != self.counted_line {
            if let Some(cwd) = &event.cwd {
                self.counted_line = event.line;
                *self.dirs.entry(cwd.clone()).or_default() += 1;
            }
        }
        match &event.kind {
            EventKind::UserText { text } => {
                // Harness output and wrappers are not listed, and what the next prompt answers
                // is still what the assistant said before them.
                if !noise::is_not_a_prompt(text) {
                    let key = repeat_key(text);
                    // Sent before it was finished, then typed whole: the whole one stands for
                    // both.
                    if let Some(draft) = self.prompts.last_mut().filter(|_| !self.answered) {
                        draft.copy |= drafted(&draft.key, &key);
                    }
                    self.answered = false;
                    let copy = self.copies.is_copy(&key, place(text, event.parent));
                    let mut typed = self.typed(&event, text, key, copy);
                    let secrets =
                        answered_secrets(self.last_line.as_deref(), &self.said, &typed.head);
                    // Before this prompt's own: its `[after: …]` is what came before it.
                    typed.typed_before = self.typed_secrets.clone();
                    self.typed_secrets.extend(secrets);
                    self.prompts.push(typed);
                    self.reset();
                } else {
                    // As capture, which remembers only prompts that raise a signal, counts it.
                    self.copies.other_prompt();
                }
            }
            EventKind::Interrupt => self.copies.interrupted(),
            // What Claude Code wrote in the model's place is not what the prompt answered.
            EventKind::AssistantText { text } if noise::is_harness_reply(text) => {}
            EventKind::CompactBoundary => self.reset(),
            EventKind::AssistantText { text } => {
                self.answered = true;
                self.copies.assistant_said(text);
                self.situation.observe(&event);
                self.clear_calls();
                self.last_line =
                    redact::last_line(text).map(|l| text::tail_words(&l, TAIL_BYTES).to_string());
                if self.said.len() + text.len() > 2 * SAID_BYTES {
                    self.said = text::tail_words(&self.said, SAID_BYTES.saturating_sub(text.len()))
                        .to_string();
                }
                self.said.push('\n');
                self.said.push_str(text::tail_words(text, SAID_BYTES));
            }
            EventKind::ToolUse { id, name, input } => {
                self.copies.assistant_called();
                call_secrets(&event.kind, &mut self.command_secrets);
                self.situation.observe(&event);
                if !self.tools.contains(name) {
                    self.tools.push(name.clone());
                }
                // A refusal answers one of the last calls: a few are enough to name it.
                if self.calls.len() == CALLS_KEPT {
                    self.calls.remove(0);
                }
                self.calls.push(Call {
                    id: id.clone(),
                    tool: name.clone(),
                    command: (name == "Bash").then(|| input.clone()),
                });
            }
            EventKind::Rejection { tool_use_id, text } => {
                self.situation.observe(&event);
                let Some(call) = self.calls.iter().find(|c| &c.id == tool_use_id) else {
                    return;
                };
                if !self.refused.contains(&call.tool) {
                    self.refused.push(call.tool.clone());
                }
                // Refused without a word: the program may be one the user keeps to themselves,
                // or they edit the files themselves (or only asked a question).
                if !text.trim().is_empty() {
                    return;
                }
                let (what, subject) =
                    match call.command.as_ref().and_then(|i| i.str_field("command")) {
                        Some(command) => refusals::named(&command),
                        None if transcript::edits_a_file(&call.tool) => {
                            (refusals::FILE_EDITS.into(), String::new())
                        }
                        None => return,
                    };
                self.vetoed(what, subject, event.line, false);
            }
            EventKind::ToolResult {
                tool_use_id,
                is_error: true,
                text,
            } if transcript::stopped_by_user(text).is_some() => {
                self.situation.observe(&event);
                let Some(call) = self.calls.iter().find(|c| &c.id == tool_use_id) else {
                    return;
                };
                if !self.stopped.contains(&call.tool) {
                    self.stopped.push(call.tool.clone());
                }
                if let Some(command) = call.command.as_ref().and_then(|i| i.str_field("command")) {
                    let (what, subject) = refusals::named(&command);
                    self.vetoed(what, subject, event.line, true);
                }
            }
            _ => self.situation.observe(&event),
        }
    }

    /// Note a call of `program` at `line` the user refused without a word or `stopped` while it
    /// ran. Calls refused at once (a refusal stops the calls made beside it) are one; so are a
    /// stop and any call stopped or refused beside it (one keypress ends the turn).
    fn vetoed(&mut self, program: String, subject: String, line: u64, stopped: bool) {
        let (turn, asked) = self.prompts.last().map_or((0, false), |p| (p.line, p.asks));
        let again = self
            .refusals
            .iter()
            .rev()
            .take_while(|r| r.line > turn)
            .any(|r| stopped || r.program == program);
        if !program.is_empty() && !again {
            self.refusals.push(refusals::Refusal {
                program,
                subject,
                line,
                asked,
                stopped,
            });
        }
    }

    fn reset(&mut self) {
        self.situation = Situation::default();
        self.last_line = None;
        self.said.clear();
        self.clear_calls();
    }

    fn clear_calls(&mut self) {
        self.tools.clear();
        self.calls.clear();
        self.refused.clear();
        self.stopped.clear();
    }

    fn typed(&self, event: &Event, text: &str, key: String, copy: bool) -> Typed {
        let read = Reading::of(text);
        let model = self.model.unwrap_or(&model::SHIPPED);
        let probability = model.likelihood(&read, &self.situation);
        let words = self.last_line.clone().unwrap_or_default();
        let tools: Vec<&str> = self.tools.iter().map(String::as_str).collect();
        let refused: Vec<&str> = self.refused.iter().map(String::as_str).collect();
        let stopped: Vec<&str> = self.stopped.iter().map(String::as_str).collect();
        let answering = ended_with(words, &tools, &refused, &stopped);
        Typed {
            line: event.line,
            uuid: event.uuid.as_deref().map(str::to_string),
            session: event.session.clone(),
            timestamp: event.timestamp.as_deref().map(str::to_string),
            head: head_and_tail(text),
            situation: self.situation.clone(),
            paste: noise::is_paste(text),
            answering,
            typed_before: Vec::new(),
            // Only a prompt longer than its listed line is cut ([`TEXT_CHARS`], half of it:
            // redaction may lengthen a prompt).
            said: if text.len() > TEXT_CHARS / 2 {
                text::tail_words(&self.said, SAID_BYTES).to_string()
            } else {
                text::tail_words(&self.said, redact::ASKED_BYTES).to_string()
            },
            probability,
            prose_chars: read.prose.chars().count(),
            key,
            copy,
            bare: approval::is_bare(text),
            asks: question::asks(&read),
        }
    }
}
