//! The digest as text and as JSON lines.
//!
//! Every line the digest prints is one line whatever the text in it: names (a session id, a
//! project path, which may hold a newline) are shown escaped ([`sanitize::visible`]), and a
//! prompt's line gives its labels first and the prompt last, so a prompt, a path or what the
//! assistant said cannot forge a heading, an `L<line>`, a count or the command to mark.

use std::fmt::Write as _;
use std::time::SystemTime;

use serde_json::{json, Value};

use reflect_base::error::Result;
use reflect_base::fsutil;
use reflect_base::paths::Paths;
use reflect_store::sanitize;
use reflect_store::signal;

use super::data::{Digest, Shown, AGAIN_PLACES, SELF_CONTAINED_CHARS};
use super::marks::{prune_saved_marks, saved_marks_dir};
use super::refusals;

/// The project a heading names: a session's own when it is not the root listed, which goes
/// without saying.
pub(super) fn other_project<'a>(project: Option<&'a str>, root: Option<&str>) -> Option<&'a str> {
    project.filter(|p| Some(*p) != root)
}

pub(super) fn heading(
    session: &str,
    continues: &[impl AsRef<str>],
    project: Option<&str>,
    worked_in: Option<&str>,
    last_active: Option<&str>,
) -> String {
    let mut out = format!("\n## session {}", sanitize::visible(session));
    for (n, resumed) in continues.iter().enumerate() {
        let sep = if n == 0 {
            " · same conversation as "
        } else {
            ", "
        };
        let _ = write!(out, "{sep}{}", sanitize::visible(resumed.as_ref()));
    }
    if let Some(p) = project {
        let _ = write!(out, " · {}", sanitize::visible(p));
    }
    if let Some(w) = worked_in {
        // Already escaped ([`worked_in`]).
        let _ = write!(out, " · worked in {w}");
    }
    if let Some(t) = last_active {
        let _ = write!(out, " · {}", sanitize::visible(t));
    }
    out.push('\n');
    out
}

/// The `(then called …)` end of an [`ended_with`] text when the user refused or stopped one
/// of those calls.
fn refused_or_stopped(answering: &str) -> Option<&str> {
    if !(answering.ends_with(" refused)") || answering.ends_with(" stopped)")) {
        return None;
    }
    match answering.rfind("(then called ") {
        Some(at) => Some(&answering[at..]),
        // The quote was cut inside a long list of calls: what is left is that list's end.
        None => answering.starts_with('…').then_some(answering),
    }
}

/// How the assistant's turn ended: its last `words`, then the tools it called after them
/// (`tools`, each once) and which of them the user refused (`refused`) or stopped while they
/// ran (`stopped`), as `… (then called Bash, Read)`, `… (then called Read, Edit; Edit
/// refused)`, `… (then called Bash, stopped)`: the digest's `[after: …]` and `--show`. A
/// refusal without a reason is no signal of its own (the session summary counts it), so the
/// prompt right after it, or after a stop, is where the user says what they wanted instead.
pub(super) fn ended_with(
    words: String,
    tools: &[&str],
    refused: &[&str],
    stopped: &[&str],
) -> String {
    if tools.is_empty() {
        return words;
    }
    let ends: Vec<(&[&str], &str)> = [(refused, "refused"), (stopped, "stopped")]
        .into_iter()
        .filter(|(named, _)| !named.is_empty())
        .collect();
    let called = match ends.as_slice() {
        [] => format!("(then called {})", tools.join(", ")),
        [(named, how)] if named.len() == tools.len() => {
            format!("(then called {}, {how})", tools.join(", "))
        }
        _ => {
            let ends: Vec<String> = ends
                .iter()
                .map(|(named, how)| format!("{} {how}", named.join(", ")))
                .collect();
            format!("(then called {}; {})", tools.join(", "), ends.join("; "))
        }
    };
    if words.is_empty() {
        called
    } else {
        format!("{words} {called}")
    }
}

pub(super) fn prompt_line(p: &Shown) -> String {
    let mut out = format!("L{}", p.line);
    if p.typed() > 1 {
        let _ = write!(out, " (typed {} times, again at ", p.typed());
        for (n, again) in p.again.iter().take(AGAIN_PLACES).enumerate() {
            let sep = if n == 0 { "" } else { ", " };
            match &again.session {
                // Whole, as `append` takes it: that session may have no heading.
                Some(session) => {
                    let _ = write!(out, "{sep}{}:L{}", sanitize::visible(session), again.line);
                }
                None => {
                    let _ = write!(out, "{sep}L{}", again.line);
                }
            }
        }
        if p.again.len() > AGAIN_PLACES {
            out.push_str(", …");
        }
        out.push(')');
    }
    if p.pasted {
        out.push_str(" (pasted)");
    }
    // A long prompt says what it means by itself, but not that the user had just refused or
    // stopped a call: that it answers one stays.
    let quote = match p.text.chars().count() < SELF_CONTAINED_CHARS {
        true => p.answering.as_str(),
        false => refused_or_stopped(&p.answering).unwrap_or_default(),
    };
    if !quote.is_empty() {
        // The quote is bracketed: a bracket in it would end it early.
        let quote = quote.replace('[', "(").replace(']', ")");
        let _ = write!(out, " [after: {quote}]");
    }
    let _ = write!(out, " {}", p.text);
    out.push('\n');
    out
}

impl Digest {
    /// The digest for the model to read: the prompts by session, what was left out, and the
    /// command that marks what was read.
    pub fn text(&self, program: &str) -> String {
        let mut out = String::new();
        let listed: usize = self.sessions.iter().map(|s| s.prompts.len()).sum();
        if self.sessions_found == 0 {
            out.push_str("No session to look at: capture has recorded none here yet, and Claude Code keeps no transcript of this project.\n");
        } else if self.sessions_read == 0 {
            let _ = writeln!(
                out,
                "Nothing new: no prompt typed since /reflect last looked at the {} session(s) found.",
                self.sessions_found
            );
        } else if listed == 0 {
            let _ = writeln!(
                out,
                "Nothing to look at in the {} session(s) read: every new prompt is stored as a signal, an approval or a repeat.",
                self.sessions_read
            );
        } else {
            let _ = writeln!(
                out,
                "{listed} prompt(s) not yet looked at, in {} session(s), newest first (each dated by its last prompt): L<line> (typed N times, again at …) (pasted) [after: the assistant's last words] prompt",
                self.sessions.len()
            );
        }
        if self.history > 0 {
            let _ = writeln!(
                out,
                "Also looked at {} session(s) from before capture was on (Claude Code's own transcripts of this project).",
                self.history
            );
        }
        for s in &self.sessions {
            out.push_str(&heading(
                &s.session,
                &s.continues,
                other_project(s.project.as_deref(), self.root.as_deref()),
                s.worked_in.as_deref(),
                s.last_active.as_deref(),
            ));
            for p in &s.prompts {
                out.push_str(&prompt_line(p));
            }
        }
        out.push_str(&refusals::text(&self.refused));
        let mut left = Vec::new();
        if self.left_out > 0 {
            left.push(format!(
                "{} prompt(s) less likely to be learning moments (over the budget of {} tokens; --budget-tokens N lists more)",
                self.left_out, self.budget_tokens
            ));
        }
        if self.stored > 0 {
            left.push(format!("{} already stored as signals", self.stored));
        }
        if self.bare > 0 {
            left.push(format!("{} approvals and bare continues", self.bare));
        }
        if self.repeats > 0 {
            left.push(format!(
                "{} typed again (in their first line's `typed N times`)",
                self.repeats
            ));
        }
        if !left.is_empty() {
            let _ = writeln!(out, "\nLeft out: {}.", left.join("; "));
        }
        if !self.gone.is_empty() {
            let _ = writeln!(
                out,
                "Not read: {} session(s) whose transcript is gone (Claude Code deletes transcripts after cleanupPeriodDays, 30 days by default): {}.",
                self.gone.len(),
                sanitize::visible(&self.gone.join(", "))
            );
        }
        for (session, why) in &self.failed {
            let (session, why) = (sanitize::visible(session), sanitize::visible(why));
            let _ = writeln!(out, "Not read: session {session}: {why}.");
        }
        if let Some(mark) = self.mark_arguments() {
            // A session read with nothing to list (a subagent's or a compaction's transcript,
            // one whose prompts are all stored) is marked too: say so, or `--mark` reads as
            // marking more than was shown.
            let quiet = self.marks.len().saturating_sub(self.sessions.len());
            let also = match quiet {
                0 => String::new(),
                n => format!(" (with the {n} other session(s) read, which list nothing)"),
            };
            let _ = writeln!(
                out,
                "\nOnce judged, mark them read{also}:\n{program} digest {mark}"
            );
        }
        out
    }

    /// The arguments that mark what was read: the saved marks' name, else every mark spelled out.
    fn mark_arguments(&self) -> Option<String> {
        if let Some(name) = &self.saved_as {
            return Some(format!("--mark {name}"));
        }
        (!self.marks.is_empty()).then(|| {
            let marks: Vec<String> = self.marks.iter().map(|m| format!("--mark {m}")).collect();
            marks.join(" ")
        })
    }

    /// Keep the marks in `<data dir>/digests/<name>.json` under a short name, so the command that
    /// marks them read stays one short line however many sessions were read (a heavy user's month
    /// is hundreds). Saved marks older than [`super::SAVED_MARKS_DAYS`] are removed on the way.
    pub fn save_marks(&mut self, paths: &Paths) -> Result<()> {
        if self.marks.is_empty() {
            return Ok(());
        }
        let dir = saved_marks_dir(paths);
        fsutil::ensure_private_dir(&dir)?;
        prune_saved_marks(&dir);
        let material: String = self.marks.iter().map(|m| format!("{m}\n")).collect();
        let nanos = SystemTime::now()
            .duration_since(SystemTime::UNIX_EPOCH)
            .map_or(0, |d| d.as_nanos());
        let seed = format!("{nanos}:{}:{material}", std::process::id());
        let name = format!("d{:010x}", signal::fnv1a(seed.as_bytes()) & 0xff_ffff_ffff);
        let marks: Vec<Value> = self
            .marks
            .iter()
            .map(|m| json!({"session": m.session, "line": m.line, "turn": m.turn, "seen": m.seen}))
            .collect();
        let bytes = serde_json::to_vec(&json!({ "marks": marks })).expect("serializes");
        fsutil::atomic_write(
            &dir.join(format!("{name}.json")),
            &bytes,
            fsutil::PRIVATE_FILE,
        )?;
        self.saved_as = Some(name);
        Ok(())
    }

    /// One JSON object per listed prompt.
    pub fn jsonl(&self) -> String {
        let mut out = String::new();
        for s in &self.sessions {
            for p in &s.prompts {
                let object: Value = json!({
                    "session_id": sanitize::clean(&s.session),
                    "project": s.project.as_deref().map(sanitize::clean),
                    "worked_in": s.worked_in,
                    "line": p.line,
                    "uuid": p.uuid,
                    "timestamp": p.timestamp,
                    "text": p.text,
                    "answering": p.answering,
                    "probability": (p.probability * 1000.0).round() / 1000.0,
                    "typed": p.typed(),
                    "again": p.again.iter().map(|a| json!({
                        "session_id": sanitize::clean(a.session.as_deref().unwrap_or(&s.session)),
                        "line": a.line,
                    })).collect::<Vec<_>>(),
                    "pasted": p.pasted,
                });
                out.push_str(&object.to_string());
                out.push('\n');
            }
        }
        out
    }

    /// What [`Digest::text`] says besides the prompts, in one line (for `--format jsonl`, on
    /// stderr).
    pub fn summary(&self, program: &str) -> String {
        let listed: usize = self.sessions.iter().map(|s| s.prompts.len()).sum();
        let mut out = format!(
            "{listed} prompt(s) listed from {} session(s) read; left out: {} over the budget, {} stored, {} approvals, {} repeats; {} session(s) gone",
            self.sessions_read, self.left_out, self.stored, self.bare, self.repeats, self.gone.len()
        );
        if self.history > 0 {
            let _ = write!(
                out,
                "; {} session(s) from before capture was on",
                self.history
            );
        }
        if let Some(mark) = self.mark_arguments() {
            let _ = write!(out, "; mark read: {program} digest {mark}");
        }
        out
    }
}
