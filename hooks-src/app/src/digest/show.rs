//! `memory-store digest --show SESSION:LINE`: one prompt the digest listed (cut to its likeliest
//! sentence), in full up to [`SHOW_MAX_BYTES`] (a longer one by its start and end: a pasted log
//! or a file would fill the model's context), after the end of the assistant's turn it answers
//! (with the tools it called after its last words, and the last call's command) and before the
//! start of the assistant's answer, the lines of its turn's failed, refused and stopped calls
//! (the index places a failure at its turn's prompt) and the user's next prompt (where a
//! correction taken back or a fix that worked shows), redacted like everything the digest
//! prints, the secrets the user typed in this prompt or the one before (and earlier, as the
//! answer to a question asking for one) included wherever the assistant's words repeat them.
//! At a failed, refused or stopped tool call's line it shows that call and what followed it
//! instead (`show_calls`). A call's line a signal holds (its own place or a sighting's) is
//! named with that signal's id, in both views.
//! SESSION may be a unique prefix of the id (the index prints 8 characters). The session's
//! transcript is found as the digest finds it: through capture's cursor, else under
//! `<config dir>/projects/`.

use std::collections::{BTreeSet, HashMap, HashSet};
use std::fmt::Write as _;
use std::fs;
use std::path::{Path, PathBuf};

use reflect_base::error::{Error, IoContext, Result};
use reflect_base::fsutil;
use reflect_base::paths::Paths;
use reflect_base::text;
use reflect_store::redact;
use reflect_store::sanitize;
use reflect_store::sighting;
use reflect_store::store::Store;
use reflect_transcript::{self as transcript, EventKind, Position};

use super::data::SELF_CONTAINED_CHARS;
use super::find::{find_transcript, load_cursor, transcript_of};
use super::noise;
use super::output::ended_with;
use super::secrets::{project_secrets, KnownReader};
use super::show_calls::{call_line, Answer, Ended, Failed};
use reflect_detect::excerpt::{ends, excerpt};
use reflect_detect::model;
use reflect_detect::text::{Reading, Situation};

/// What `--show` was given: a session and a 1-based line, as the digest names them
/// (`## session SID` and `L<line>`), or a session alone (its failed and refused calls,
/// [`super::calls`]; a session id holds no `:`).
pub fn parse(arg: &str) -> Result<(String, Option<u64>)> {
    let bad = || {
        Error::usage(format!(
            "invalid --show '{arg}': expected SESSION:LINE (the session of a digest heading, the line of its L<line>) or SESSION"
        ))
    };
    let Some((session, line)) = arg.rsplit_once(':') else {
        return match arg.trim() {
            "" => Err(bad()),
            session => Ok((session.to_string(), None)),
        };
    };
    let line = line.trim_start_matches('L');
    let line: u64 = line.parse().ok().filter(|&l| l > 0).ok_or_else(bad)?;
    if session.is_empty() {
        return Err(bad());
    }
    Ok((session.to_string(), Some(line)))
}

/// The end of the assistant's turn `--show` prints before the prompt, in characters.
pub const TURN_CHARS: usize = 600;
/// The same before a prompt that does not say what it means by itself ("put that in CLAUDE.md",
/// "why?"): what it points at may be a whole list the assistant gave.
pub const TURN_CHARS_SHORT_PROMPT: usize = 2000;
/// How much of the turn is kept while reading: [`TURN_CHARS_SHORT_PROMPT`] characters of any
/// script.
const TURN_BYTES: usize = 8 << 10;
/// Longest prompt `--show` prints whole, in bytes (about 4,000 tokens of the model's context); a
/// longer one (a pasted log, a file, an image's base64) is shown by its start and its end.
pub const SHOW_MAX_BYTES: usize = 16 << 10;
/// Of a longer prompt, the bytes shown from its end.
const SHOW_TAIL_BYTES: usize = 4 << 10;
/// Longest prompt that is mostly paste (a log, a file: [`noise::is_paste`]) `--show` prints
/// whole unless asked for `--whole`: the user's words are at its start or end, and a few
/// thousand tokens of a log cost the user's session more than they tell.
pub const SHOW_PASTE_BYTES: usize = 4 << 10;
/// Of a longer one, the bytes shown from its end.
const SHOW_PASTE_TAIL_BYTES: usize = 1 << 10;

/// The session `--show` names: the id itself when capture recorded it or Claude Code keeps its
/// transcript, else the one session whose id starts with it (the index and the digest print
/// 8-character prefixes).
pub fn resolve(paths: &Paths, session: &str, cwd: &Path) -> Result<String> {
    if load_cursor(paths, session).is_some() || find_transcript(paths, session, cwd).is_some() {
        return Ok(session.to_string());
    }
    let known = known_sessions(paths);
    let mut matching = known.iter().filter(|s| s.starts_with(session));
    match (matching.next(), matching.next()) {
        (Some(one), None) => Ok(one.clone()),
        (Some(a), Some(b)) => Err(Error::msg(format!(
            "session '{}' is ambiguous: {a}, {b}{}; give more of the id",
            sanitize::visible(session),
            if matching.next().is_some() { ", …" } else { "" }
        ))),
        _ => Err(Error::msg(format!(
            "no session '{}' (capture has not recorded one by that id or prefix, and Claude Code's projects folder holds none)",
            sanitize::visible(session)
        ))),
    }
}

/// Every session id capture recorded (its cursor files) or Claude Code keeps a transcript of.
fn known_sessions(paths: &Paths) -> BTreeSet<String> {
    let stems = |dir: &Path, ext: &str| -> Vec<String> {
        let Ok(entries) = fs::read_dir(dir) else {
            return Vec::new();
        };
        entries
            .flatten()
            .filter_map(|e| {
                let path = e.path();
                let stem = path.file_stem()?.to_str()?;
                (path.extension()? == ext).then(|| stem.to_string())
            })
            .collect()
    };
    let mut all: BTreeSet<String> = stems(&paths.cursors(), "json").into_iter().collect();
    if let Ok(projects) = fs::read_dir(paths.config_dir.join("projects")) {
        for folder in projects.flatten() {
            all.extend(stems(&folder.path(), "jsonl"));
        }
    }
    all
}

/// The secrets with no shape of their own that Bash commands held, read once for all the
/// `--show`s of one run: a password piped to `sudo -S` in one session may be typed alone as a
/// prompt in another.
#[derive(Default)]
pub struct Commands {
    /// Of the project's sessions, and the transcripts read for them.
    project: Option<(Known, HashSet<PathBuf>)>,
    /// Of each session shown that is not the project's (listed with `all`), by transcript.
    other: HashMap<PathBuf, Known>,
}

type Known = Vec<(String, &'static str)>;

impl Commands {
    /// The secrets of the project's sessions' commands, read the first time they are asked for.
    pub(super) fn of_project(&mut self, paths: &Paths, cwd: &Path) -> &Known {
        &self
            .project
            .get_or_insert_with(|| project_secrets(paths, cwd))
            .0
    }
}

/// A session `--show` names, and its transcript opened.
pub(super) struct Opened {
    /// The whole id.
    pub session: String,
    /// As printed: a session is named by its file, whose name may hold any character.
    pub named: String,
    /// As the index prints it, for a `--show` line to give.
    pub short: String,
    pub transcript: PathBuf,
    pub file: fs::File,
}

/// The session `session` (the id or a unique prefix of it) names, and its transcript opened.
pub(super) fn open(paths: &Paths, session: &str, cwd: &Path) -> Result<Opened> {
    let session = resolve(paths, session, cwd)?;
    let named = sanitize::visible(&session).into_owned();
    let short = crate::scope::short_session(Some(&named)).to_string();
    let transcript = transcript_of(paths, &session, cwd).ok_or_else(|| {
        Error::msg(format!(
            "no transcript of session {named} (capture has not recorded it, and Claude Code's projects folder holds none of that name)"
        ))
    })?;
    let Some(file) = fsutil::open_regular(&transcript)? else {
        return Err(Error::msg(format!(
            "the transcript of session {named} is gone ({})",
            transcript.display()
        )));
    };
    Ok(Opened {
        session,
        named,
        short,
        transcript,
        file,
    })
}

/// The prompt on `line` of `session`'s transcript (the session or a unique prefix of it), in
/// full (as far as the transcript reader keeps a prompt), after the end of the assistant's turn
/// it answers, both redacted, under a heading that names them; every secret `commands` knows
/// of the project is redacted too.
pub fn show(
    store: &Store,
    session: &str,
    line: u64,
    cwd: &Path,
    commands: &mut Commands,
    whole: bool,
) -> Result<String> {
    let paths = store.paths();
    let Opened {
        session,
        named,
        short,
        transcript,
        mut file,
    } = open(paths, session, cwd)?;
    let session = &session;
    let (project, project_read) = commands
        .project
        .get_or_insert_with(|| project_secrets(paths, cwd));
    let mut known_commands = project.clone();
    // A session of another project (listed with `all`): its own commands count too, read
    // with it the first time it is shown.
    let cached = commands.other.get(&transcript);
    let own = !project_read.contains(&transcript) && cached.is_none();
    let mut own_commands = Known::new();
    known_commands.extend(cached.into_iter().flatten().cloned());
    // Read from the top: the turn the prompt answers may start anywhere before it.
    let mut found = None;
    let mut turn = String::new();
    // The prompt of the turn a line is in: a refusal's or a failure's line (a tool's result, as
    // a signal records it) is not a prompt, but the prompt before it says what was asked.
    let mut prompt_before = None;
    // After it: the start of the assistant's answer and the user's next prompt, where a
    // correction taken back or a fix that worked shows.
    let mut answer = Answer::default();
    let mut next: Option<(u64, String)> = None;
    // The lines of the turn's calls that failed or that the user refused or stopped, after the
    // prompt, with how each ended: the index places a failure at its turn's prompt, and
    // `--show` at its own line shows it.
    let mut turn_ended: Vec<(u64, Ended)> = Vec::new();
    // The prompt before it, and what that answered: the turn it answers may repeat one of its
    // secrets (a value typed as the answer to a question, "I'll use X") in words no rule knows;
    // and, from earlier in the session, the secrets typed as answers to a question asking for one.
    let mut typed_before: Option<(String, Option<redact::Asked>)> = None;
    // What the assistant wrote before that prompt: its lines quoted back are not the user's.
    let mut said_before = String::new();
    let mut answered: Vec<(String, &'static str)> = Vec::new();
    // The calls of the turn so far, by id: the line may be a failed or refused call's result,
    // shown with its call and what followed it (`show_calls`). Those from `after_words` on
    // came after the assistant's last words: a turn that ends in calls, or is only calls, says
    // so, as the digest's `[after: … (then called Bash)]` does, and the last one's command says
    // what a short reply to it is about ("why is docker in here?").
    let mut calls: Vec<(String, String, transcript::ToolInput)> = Vec::new();
    let mut after_words = 0;
    // The ids of the calls the user refused or stopped since the last prompt, with which.
    let mut ended: Vec<(String, Ended)> = Vec::new();
    let mut failed: Option<Failed> = None;
    let mut own_reader = KnownReader::default();
    transcript::read(&mut file, Position::default(), |event| {
        if own {
            own_reader.feed(&event.kind, &mut own_commands);
        }
        if let Some(failed) = &mut failed {
            if failed.next.is_none() {
                failed.take(&event);
            }
            return;
        }
        if next.is_some() || (found.is_none() && event.line > line) {
            return;
        }
        if found.is_some() {
            match &event.kind {
                EventKind::UserText { text } if !noise::is_not_a_prompt(text) => {
                    next = Some((event.line, text.clone()));
                }
                EventKind::AssistantText { text } if !noise::is_harness_reply(text) => {
                    answer.push(text);
                }
                EventKind::ToolResult {
                    is_error: true,
                    text,
                    ..
                } => turn_ended.push((event.line, Ended::of_error(text).0)),
                EventKind::Rejection { .. } => turn_ended.push((event.line, Ended::Refused)),
                _ => {}
            }
            return;
        }
        match &event.kind {
            EventKind::UserText { text } if event.line == line => {
                found = Some((text.clone(), event.timestamp.clone()));
            }
            EventKind::ToolResult {
                tool_use_id,
                is_error: true,
                text,
            } if event.line == line => {
                let call = called(&calls, tool_use_id);
                let (ended, text) = Ended::of_error(text);
                failed = Some(Failed::new(call, ended, text, timestamp(&event)));
            }
            EventKind::Rejection { tool_use_id, text } if event.line == line => {
                let call = called(&calls, tool_use_id);
                failed = Some(Failed::new(call, Ended::Refused, text, timestamp(&event)));
            }
            EventKind::UserText { text } if !noise::is_not_a_prompt(text) => {
                let asked = redact::Asked::of(text::tail_words(&turn, redact::ASKED_BYTES));
                if let Some((before, Some(asked))) = &typed_before {
                    answered.extend(redact::findings(&sanitize::clean(before), Some(asked)));
                }
                typed_before = Some((text.clone(), asked));
                said_before = std::mem::take(&mut turn);
                calls.clear();
                ended.clear();
                after_words = 0;
                prompt_before = Some(event.line);
            }
            EventKind::CompactBoundary => {
                turn.clear();
                calls.clear();
                ended.clear();
                after_words = 0;
            }
            EventKind::ToolUse { id, name, input } => {
                calls.push((id.clone(), name.clone(), input.clone()));
            }
            EventKind::Rejection { tool_use_id, .. } => {
                ended.push((tool_use_id.clone(), Ended::Refused))
            }
            EventKind::ToolResult {
                tool_use_id,
                is_error: true,
                text,
            } if Ended::of_error(text).0 == Ended::Stopped => {
                ended.push((tool_use_id.clone(), Ended::Stopped))
            }
            EventKind::AssistantText { text } if !noise::is_harness_reply(text) => {
                after_words = calls.len();
                turn.push('\n');
                turn.push_str(text);
                // Bounded as it grows, cut at a word (a cut token could slip past redaction).
                if turn.len() > 2 * TURN_BYTES {
                    turn = text::tail_words(&turn, TURN_BYTES).to_string();
                }
            }
            _ => {}
        }
    })
    .ctx("cannot read", &transcript)?;
    if own {
        known_commands.extend(own_commands.iter().cloned());
        commands.other.insert(transcript.clone(), own_commands);
    }
    // A failed, refused or stopped call the store holds (capture's, or a sighting of it) is
    // named by its signal, so a second look merges with it rather than stores it again.
    let calls_named = failed.is_some() || !turn_ended.is_empty();
    let stored = match calls_named {
        true => stored_lines(store, session),
        false => HashMap::new(),
    };
    if let Some(failed) = failed {
        // The turn's prompt's secrets, and those typed earlier as answers, wherever repeated.
        let mut known = answered;
        if let Some((prompt, asked)) = &typed_before {
            known.extend(redact::findings(&sanitize::clean(prompt), asked.as_ref()));
        }
        let mut heading = format!("## session {named} · L{line}");
        if let Some(t) = &failed.timestamp {
            let _ = write!(heading, " · {}", sanitize::visible(t));
        }
        heading.push('\n');
        // What the user had asked for says what the call was for, and whether a refusal
        // answered a question (the user wanted an answer, not an edit): the user's own words,
        // cut as the digest cuts a prompt (a paste is marked, never quoted as theirs).
        if let (Some(p), Some((prompt, asked))) = (prompt_before, &typed_before) {
            let cleaned = sanitize::clean(prompt);
            let cleaned = redact::redact_known(&cleaned, &known);
            let cut = excerpt(&cleaned, &said_before, asked.as_ref(), QUOTE_CHARS, |s| {
                model::lesson_score(&Reading::of(s), &Situation::default())
            });
            let pasted = if cut.pasted { ", pasted" } else { "" };
            let _ = writeln!(
                heading,
                "the prompt of its turn (L{p}{pasted}): {}",
                cut.text
            );
        }
        if let Some(id) = stored.get(&line) {
            let _ = writeln!(heading, "stored as {id}");
        }
        let view = failed.render(heading, &known);
        return Ok(redact::replace_known(&view, &known_commands).into_owned());
    }
    let (text, timestamp) = found.ok_or_else(|| {
        let before = prompt_before.map_or(
            " (no prompt the user typed comes before it: the session began with a command or a continuation)".to_string(),
            |p| format!(" (the prompt of its turn: --show {short}:{p})"),
        );
        Error::msg(format!(
            "line {line} of session {named} is not a prompt the user typed{before}"
        ))
    })?;
    let mut out = format!("## session {named} · L{line}");
    if let Some(t) = timestamp {
        let _ = write!(out, " · {}", sanitize::visible(&t));
    }
    out.push('\n');
    // Cleaned before redaction: a zero-width character inside a token would hide it; redacted
    // before it is cut, so a cut never splits a secret into pieces no rule knows.
    // A value typed as the answer to a question asking for a secret is one too, and so is a
    // secret of this prompt or the one before where the assistant's words repeat it.
    let cleaned = sanitize::clean(&text);
    let asked = redact::Asked::of(text::tail_words(&turn, redact::ASKED_BYTES));
    let mut known = redact::findings(&cleaned, asked.as_ref());
    if let Some((before, asked)) = &typed_before {
        known.extend(redact::findings(&sanitize::clean(before), asked.as_ref()));
    }
    known.extend(answered);
    let called_last = &calls[after_words..];
    let (mut tools, mut refused_tools, mut stopped_tools) = (Vec::new(), Vec::new(), Vec::new());
    for (id, tool, _) in called_last {
        let tool = sanitize::visible(tool).into_owned();
        let named = match ended.iter().find(|(call, _)| call == id) {
            Some((_, Ended::Refused)) => Some(&mut refused_tools),
            Some((_, Ended::Stopped)) => Some(&mut stopped_tools),
            _ => None,
        };
        if let Some(named) = named.filter(|named| !named.contains(&tool)) {
            named.push(tool.clone());
        }
        if !tools.contains(&tool) {
            tools.push(tool);
        }
    }
    let (tools, refused_tools, stopped_tools) = (
        as_strs(&tools),
        as_strs(&refused_tools),
        as_strs(&stopped_tools),
    );
    let chars = match text.chars().count() < SELF_CONTAINED_CHARS {
        true => TURN_CHARS_SHORT_PROMPT,
        false => TURN_CHARS,
    };
    let answered = ended_with(
        turn_end(&turn, &known, chars),
        &tools,
        &refused_tools,
        &stopped_tools,
    );
    if !answered.is_empty() {
        let _ = writeln!(out, "assistant, end of the turn it answers: {answered}");
        let last_call = called_last.last();
        if let Some(call) = last_call.and_then(|(_, tool, input)| call_line(tool, input, &known)) {
            let _ = writeln!(out, "assistant, its last call: {call}");
        }
        out.push_str("user:\n");
    }
    let redacted = redact::redact_after(&cleaned, asked.as_ref());
    let prompt = redacted.trim_end();
    let (max, tail, more) = match !whole && noise::is_paste(prompt) {
        true => (
            SHOW_PASTE_BYTES,
            SHOW_PASTE_TAIL_BYTES,
            "; it is mostly paste: --whole prints up to 16 KB",
        ),
        false => (SHOW_MAX_BYTES, SHOW_TAIL_BYTES, ""),
    };
    match ends(prompt, max, max - tail, tail) {
        Some((head, tail)) => {
            let _ = write!(
                out,
                "{head}\n[… {} bytes of this prompt left out{more} …]\n{}",
                prompt.len() - head.len() - tail.len(),
                tail.trim_start()
            );
        }
        None => out.push_str(prompt),
    }
    out.push('\n');
    let begins = answer.start(&known);
    if !begins.is_empty() {
        let _ = writeln!(out, "assistant, the start of its answer: {begins}");
    }
    let places = [
        ("failed", Ended::Failed),
        ("refused", Ended::Refused),
        ("stopped", Ended::Stopped),
    ]
    .into_iter()
    .filter_map(|(what, how)| {
        let lines: Vec<u64> = turn_ended
            .iter()
            .filter(|(_, ended)| *ended == how)
            .map(|(line, _)| *line)
            .collect();
        (!lines.is_empty()).then(|| format!("{what} at {}", lines_named(&lines, &stored)))
    })
    .collect::<Vec<_>>();
    if !places.is_empty() {
        let _ = writeln!(
            out,
            "calls of its turn: {} (--show {short}:LINE shows one)",
            places.join("; ")
        );
    }
    if let Some((at, said)) = next {
        out.push_str(&answer.next_prompt(at, &said, &known));
    }
    // A secret a command of the project held, in this session or another: the prompt may hold
    // it with no shape a rule knows (a password typed alone).
    Ok(redact::replace_known(&out, &known_commands).into_owned())
}

/// The first [`LINES_NAMED`] of `lines` as `L12, L40 (SIG-…)` (a line a signal holds by its
/// id), and how many more.
fn lines_named(lines: &[u64], stored: &HashMap<u64, String>) -> String {
    let mut named: Vec<String> = lines
        .iter()
        .take(LINES_NAMED)
        .map(|l| match stored.get(l) {
            Some(id) => format!("L{l} ({id})"),
            None => format!("L{l}"),
        })
        .collect();
    if lines.len() > LINES_NAMED {
        named.push(format!("+{} more", lines.len() - LINES_NAMED));
    }
    named.join(", ")
}

/// The places (session, line) of `sessions` a signal of the store, or one of its sightings, was
/// captured at, with its id, from one read of the store. Empty when the store cannot be read:
/// what asks stands without it.
pub fn stored_places(store: &Store, sessions: &HashSet<&str>) -> HashMap<(String, u64), String> {
    let mut at = HashMap::new();
    let Ok(snapshot) = store.load() else {
        return at;
    };
    let shown = snapshot.signals().filter_map(|s| snapshot.get_shown(&s.id));
    for s in shown {
        let own = s.session_id.as_deref().zip(s.source.line);
        let sightings = sighting::kept(&s).filter_map(|(session, at)| Some((session, at.line?)));
        // As printed: an id is the store's text, which a hand edit may have made anything.
        let id = sanitize::visible(&s.id).into_owned();
        for (session, line) in own.into_iter().chain(sightings) {
            if sessions.contains(session) {
                at.entry((session.to_string(), line))
                    .or_insert_with(|| id.clone());
            }
        }
    }
    at
}

/// [`stored_places`] of one session, by line.
pub(super) fn stored_lines(store: &Store, session: &str) -> HashMap<u64, String> {
    let places = stored_places(store, &HashSet::from([session]));
    places
        .into_iter()
        .map(|((_, line), id)| (line, id))
        .collect()
}

/// Longest quote of the prompt of a call's turn.
const QUOTE_CHARS: usize = 300;

/// Lines of a turn's failed, refused or stopped calls `--show` names, of each kind.
const LINES_NAMED: usize = 8;

fn as_strs(names: &[String]) -> Vec<&str> {
    names.iter().map(String::as_str).collect()
}

/// The call `id` names among the turn's `calls`.
pub(super) fn called<'c>(
    calls: &'c [(String, String, transcript::ToolInput)],
    id: &str,
) -> Option<(&'c str, &'c transcript::ToolInput)> {
    calls
        .iter()
        .rev()
        .find(|(call, ..)| call == id)
        .map(|(_, tool, input)| (tool.as_str(), input))
}

fn timestamp(event: &transcript::Event) -> Option<String> {
    event.timestamp.as_deref().map(str::to_string)
}

/// The last `chars` of the assistant's turn with the `…`, redacted (the prompt's secrets too,
/// `known`), on one line, from a word.
fn turn_end(turn: &str, known: &[(String, &'static str)], chars: usize) -> String {
    // Redacted before its end is taken: a table's header, above it, names a password column.
    let redacted = redact::redact_known(&sanitize::clean(turn), known).into_owned();
    text::one_line_end(text::tail_words(&redacted, TURN_BYTES), chars)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn show_arguments_name_a_session_and_a_line_or_a_session() {
        assert_eq!(parse("abc-1:12").unwrap(), ("abc-1".to_string(), Some(12)));
        assert_eq!(parse("abc:L7").unwrap(), ("abc".to_string(), Some(7)));
        assert_eq!(parse("abc").unwrap(), ("abc".to_string(), None));
        for bad in ["", " ", "abc:0", ":3", "abc:x", "abc:-1"] {
            assert!(parse(bad).is_err(), "{bad}");
        }
    }
}
