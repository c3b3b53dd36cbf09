//! `memory-store digest --show SESSION` (a session with no line): every tool call of one session
//! that failed or that the user refused or stopped, a line each in the order they came: its
//! line, the prompt of its turn, the call and its error, the user's reason, or what it had
//! printed when the user stopped it. A summary names only the first few failed calls and
//! `--show SESSION:LINE` one turn's, so without it a second look finds the failures capture did
//! not store (no fix seen, capture off) only by showing every turn. Redacted as everything
//! `--show` prints (the rules, the secrets the session's prompts, answers and commands hold,
//! and the project's commands'); a line the store holds is named with its signal's id. At most
//! [`CALLS_LISTED`] calls, then how many more. Calls of one turn that failed one after another
//! with the same error (a broken shell fails every command alike) take one more line after the
//! first: their lines, and the other calls among them.

use std::fmt::Write as _;
use std::path::Path;

use reflect_base::error::{IoContext, Result};
use reflect_base::text;
use reflect_store::store::Store;
use reflect_store::{redact, sanitize};
use reflect_transcript::{self as transcript, EventKind, Position, ToolInput};

use super::noise;
use super::secrets::KnownReader;
use super::show::{called, open, stored_lines, Commands};
use super::show_calls::{call_named, shown_error, Ended};

/// Most calls listed; the rest are counted.
pub const CALLS_LISTED: usize = 200;
/// Longest call, and error or reason, on a line.
const CALL_CHARS: usize = 100;
const ERROR_CHARS: usize = 160;
/// Most other calls named on the line of a run that failed with the same error.
const SAME_CALLS_NAMED: usize = 3;

/// One failed, refused or stopped call, as listed (already redacted with what was known at its
/// line).
struct Row {
    line: u64,
    prompt: Option<u64>,
    ended: Ended,
    call: String,
    error: String,
}

/// The failed, refused and stopped calls of `session` (the id or a unique prefix), one line
/// each.
pub fn calls(store: &Store, session: &str, cwd: &Path, commands: &mut Commands) -> Result<String> {
    let paths = store.paths();
    let mut opened = open(paths, session, cwd)?;
    let (session, named, short) = (&opened.session, &opened.named, &opened.short);
    let mut known = commands.of_project(paths, cwd).clone();
    let mut reader = KnownReader::default();
    let mut prompt = None;
    // The calls of the turn so far, by id: a result names its call only by id.
    let mut turn: Vec<(String, String, ToolInput)> = Vec::new();
    let (mut rows, mut more) = (Vec::new(), 0usize);
    transcript::read(&mut opened.file, Position::default(), |event| {
        reader.feed(&event.kind, &mut known);
        let (id, ended, error) = match &event.kind {
            EventKind::UserText { text } if !noise::is_not_a_prompt(text) => {
                known.extend(redact::findings(&sanitize::clean(text), None));
                prompt = Some(event.line);
                turn.clear();
                return;
            }
            EventKind::ToolUse { id, name, input } => {
                turn.push((id.clone(), name.clone(), input.clone()));
                return;
            }
            EventKind::ToolResult {
                tool_use_id,
                is_error: true,
                text,
            } => {
                let (ended, text) = Ended::of_error(text);
                (tool_use_id, ended, text)
            }
            EventKind::Rejection { tool_use_id, text } => {
                (tool_use_id, Ended::Refused, text.as_str())
            }
            _ => return,
        };
        if rows.len() == CALLS_LISTED {
            more += 1;
            return;
        }
        let called = called(&turn, id);
        // The call's own secrets (a password in its command) are hidden in its error too, and
        // wherever else the session shows them.
        if let Some(command) = called.and_then(|(_, input)| input.str_field("command")) {
            known.extend(redact::findings(&sanitize::clean(&command), None));
        }
        let call = call_named(called, &known);
        rows.push(Row {
            line: event.line,
            prompt,
            ended,
            call: text::one_line(&call, CALL_CHARS),
            error: text::one_line(&shown_error(error, &known), ERROR_CHARS),
        });
    })
    .ctx("cannot read", &opened.transcript)?;
    let stored = match rows.is_empty() {
        true => Default::default(),
        false => stored_lines(store, session),
    };
    let count = |ended| rows.iter().filter(|r| r.ended == ended).count();
    let mut out = format!("## session {named} · calls that failed or were refused: ");
    if rows.is_empty() {
        out.push_str("none\n");
        return Ok(out);
    }
    let _ = write!(
        out,
        "{} failed, {} refused",
        count(Ended::Failed),
        count(Ended::Refused)
    );
    match count(Ended::Stopped) {
        0 => out.push('\n'),
        stopped => {
            let _ = writeln!(out, ", {stopped} stopped by the user");
        }
    }
    let mut rows = rows.iter().peekable();
    while let Some(row) = rows.next() {
        let _ = write!(out, "L{}", row.line);
        if let Some(p) = row.prompt {
            let _ = write!(out, " (turn of L{p})");
        }
        let outcome = match (row.ended, row.error.is_empty()) {
            (Ended::Refused, true) => "refused, no reason given".to_string(),
            (Ended::Refused, false) => format!("refused: {}", row.error),
            (Ended::Stopped, true) => "stopped by the user".to_string(),
            (Ended::Stopped, false) => {
                format!("stopped by the user, it had printed: {}", row.error)
            }
            (Ended::Failed, _) => format!("failed: {}", row.error),
        };
        let _ = write!(out, " {} → {outcome}", row.call);
        if let Some(id) = stored.get(&row.line) {
            let _ = write!(out, " (stored as {id})");
        }
        out.push('\n');
        // The same error again in the same turn (a broken shell fails every command alike): the
        // lines and calls of the run on one line.
        let mut same: Vec<&Row> = Vec::new();
        while let Some(next) = rows.next_if(|next| {
            row.ended == Ended::Failed
                && next.ended == Ended::Failed
                && next.prompt == row.prompt
                && next.error == row.error
                && !stored.contains_key(&next.line)
        }) {
            same.push(next);
        }
        if !same.is_empty() {
            let lines: Vec<String> = same.iter().map(|r| format!("L{}", r.line)).collect();
            let mut calls: Vec<&str> = Vec::new();
            for r in &same {
                if r.call != row.call && !calls.contains(&r.call.as_str()) {
                    calls.push(&r.call);
                }
            }
            let _ = write!(out, "  and {} the same way", lines.join(", "));
            match calls.len() {
                0 => out.push_str(" (the same call)\n"),
                n if n <= SAME_CALLS_NAMED => {
                    let _ = writeln!(out, " (also {})", calls.join(", "));
                }
                n => {
                    let named = calls[..SAME_CALLS_NAMED].join(", ");
                    let _ = writeln!(out, " (also {named}, +{} more)", n - SAME_CALLS_NAMED);
                }
            }
        }
    }
    if more > 0 {
        let _ = writeln!(out, "… {more} more (the first {CALLS_LISTED} listed)");
    }
    let _ = writeln!(
        out,
        "--show {short}:LINE shows one with what followed it in its turn"
    );
    // A secret the session held later than a line listed before it is hidden there too.
    Ok(redact::replace_known(&out, &known).into_owned())
}
