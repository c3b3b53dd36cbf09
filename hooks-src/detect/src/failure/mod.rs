//! Tool failures: which are worth a reviewer's attention, the line that says what went wrong, and
//! the PostToolUseFailure signal. The transcript miner ([`crate::Detector`]) and the failure hook
//! share [`assess`], so a failure is judged the same whichever path sees it first.
//!
//! **What makes a failure worth a reviewer's attention**: it says something about the project or
//! its environment that the next session could use (`No module named 'yaml'`, `fatal: could
//! not read Username for 'https://github.com'`, `psql: database "db" does not exist`). So a failure
//! is stored only when
//!
//! * it is not an error of Claude Code's own tool protocol ([`Assessment::Protocol`]): an edit of
//!   a file not read yet, a string to replace that is not found or found several times, a no-op
//!   edit, a file changed since it was read, a path that does not exist (the assistant guessed
//!   it; the error does not say where the thing is), a read too large, invalid tool input, a
//!   sibling call that failed, a blocked `cd`. Those teach nothing one by one; the session
//!   summary counts them by kind. Claude Code wraps most of them in `<tool_use_error>`; the rest
//!   (older versions, the PostToolUseFailure payload) are known by their words;
//! * it is not a test run failing its assertions ([`Assessment::FailingTests`]): while tests are
//!   being written they fail, and that is the work, not a lesson. A test run that cannot start
//!   (a missing module, a missing script) is an ordinary failure;
//! * some line of its output says what went wrong ([`error_line`]); a bare exit code, a grep that
//!   found nothing or `git commit` with nothing to commit is no error a reviewer can act on.
//!
//! A stored failure's content is `<tool> failed: <error line>`; what was tried goes in the
//! context. Failures that repeat (same tool, same error line) share a dedup key that ignores
//! numbers and ids and reads a path as its last part (see [`reflect_store::signal::dedup_key`]),
//! so the store counts them as recurrences of one signal whose confidence rises with them.
//!
//! [`assess`] and the signal are here; finding the line that says what went wrong is
//! [`line`](mod@line)'s.

use serde_json::Value;

use reflect_base::text::one_line;
use reflect_store::signal::{Kind, Origin, Signal};
use reflect_transcript as transcript;

mod line;
#[cfg(test)]
mod tests;

pub(crate) use line::error_line;
use line::{is_failing_test, tier, Tier};

/// Longest error text kept in a signal's context (Claude Code already caps errors at ~10,000).
const ERROR_CONTEXT_CHARS: usize = 1500;
/// How much of an error or a tool input a hook reads at all: enough for every headline and
/// excerpt we keep, and a bound on redaction's cost when a payload carries megabytes.
pub(crate) const SCAN_BYTES: usize = 16 * 1024;
/// Longest error line quoted in a signal's content.
const ERROR_LINE_CHARS: usize = 200;
/// Lines of output looked at for the error line (a 16 KB error has a few hundred).
const MAX_LINES: usize = 400;

/// What a failed tool call is, for the store.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Assessment {
    /// Not a failure of the work: the user interrupted, or Claude Code's warm-up ran.
    NotAFailure,
    /// An error of Claude Code's own tool protocol, by kind ("File has not been read yet").
    Protocol(String),
    /// A test run whose tests failed: work in progress.
    FailingTests,
    /// No line of the output says what went wrong.
    Silent,
    /// Worth storing: the line that says what went wrong.
    Error(String),
}

/// Messages of Claude Code's tool protocol that arrive without the `<tool_use_error>` wrapper
/// (older versions, and the PostToolUseFailure payload), matched at the start of the error.
const PROTOCOL_STARTS: &[&str] = &[
    "File has not been read yet",
    "File has been modified since read",
    "File has been unexpectedly modified",
    "String to replace not found",
    "String not found in file",
    "No changes to make",
    "File does not exist",
    "Directory does not exist",
    "Path does not exist",
    "EISDIR: illegal operation on a directory",
    "File content (",
    "InputValidationError",
    "Sibling tool call errored",
    "Cancelled: parallel tool call",
    "This tool cannot read binary files",
    "Claude requested permissions to",
    "No such tool available",
    "Streaming fallback triggered",
    "This operation was aborted",
    "No task found with ID",
    "Unknown slash command",
    "Permission to use ",
    // Claude Code's permission prompts, denied or not answered: not the project's failures.
    "This command requires approval",
    "This tool requires approval",
    "Permission for this tool use was denied",
    "The user denied",
    // Another hook's verdict on the call (a PreToolUse hook that blocks it).
    "BLOCKED",
    "PreToolUse:",
    "PreToolUse hook",
];

/// Protocol messages matched anywhere in the error's first line.
const PROTOCOL_CONTAINS: &[&str] = &[
    "matches of the string to replace",
    "exceeds maximum allowed tokens",
    "is not running, so cannot be killed",
    "was blocked. For security, Claude Code",
    "requires approval",
    "haven't granted it yet",
    "hook error:",
    "blocked by hook",
    "blocked by a hook",
];

/// Judge a tool error (redacted, as the tool returned it).
pub(crate) fn assess(error: &str) -> Assessment {
    let error = reflect_base::text::truncate(error, SCAN_BYTES);
    let trimmed = error.trim();
    // A timeout is the lesson (the command outlives the tool's limit), not what it printed.
    if let Some(after) = trimmed.strip_prefix(TIMED_OUT) {
        // "Command timed out after 2m 0.0s", and nothing of the output that may follow it.
        let took: Vec<&str> = after
            .split_whitespace()
            .take_while(|w| w.starts_with(|c: char| c.is_ascii_digit()))
            .collect();
        return Assessment::Error(format!("{TIMED_OUT} {}", took.join(" ")));
    }
    if trimmed == "Warmup" || transcript::stopped_by_user(trimmed).is_some() {
        return Assessment::NotAFailure;
    }
    let unwrapped = trimmed
        .strip_prefix("<tool_use_error>")
        .map(|rest| rest.trim_end().trim_end_matches("</tool_use_error>"));
    let text = unwrapped.unwrap_or(trimmed);
    // Some protocol messages come as "Error: <message>".
    let first = text.strip_prefix("Error: ").unwrap_or(text);
    let first = first.lines().next().unwrap_or("").trim();
    if unwrapped.is_some()
        || PROTOCOL_STARTS.iter().any(|p| first.starts_with(p))
        || PROTOCOL_CONTAINS.iter().any(|p| first.contains(p))
    {
        return Assessment::Protocol(protocol_kind(first));
    }
    match error_line(text) {
        None => Assessment::Silent,
        Some(line) if is_failing_test(&line, text) => Assessment::FailingTests,
        Some(line) => Assessment::Error(line),
    }
}

/// How Claude Code's Bash tool says a command outlived its timeout.
const TIMED_OUT: &str = "Command timed out after";

/// Programs that print files or matches: their output is the file's text, so a line of it that
/// reads like an error (`except ValueError:` in a `cat` of Python) is not theirs to report.
const PRINTERS: &[&str] = &[
    "cat", "head", "tail", "sed", "less", "more", "grep", "rg", "awk", "bat", "nl", "diff",
];

/// A tool's error on one line as a failure's content names it (a timeout, Claude Code's own
/// message by kind, or the line that says what went wrong), else its start: for a view of a
/// failed call beside the index. `error` is redacted already.
pub fn error_summary(error: &str) -> String {
    let error = strip_ansi(error);
    match assess(&error) {
        Assessment::Error(line) | Assessment::Protocol(line) => line,
        _ => error_line(&error).unwrap_or_else(|| one_line(error.trim(), ERROR_LINE_CHARS)),
    }
}

/// [`assess`] for a call of `tool` running `command` (a Bash command; empty for other tools):
/// a program that prints files reports an error only in its own name (`cat: x: No such file`)
/// or as a fact of the environment.
pub fn assess_call(tool: &str, command: &str, error: &str) -> Assessment {
    let assessed = assess(error);
    if let (Assessment::Error(line), "Bash") = (&assessed, tool) {
        let program = crate::episode::Job::of("Bash", command)
            .program()
            .to_string();
        let own = line.starts_with(&format!("{program}:"));
        if PRINTERS.contains(&program.as_str())
            && !own
            && !line.starts_with(TIMED_OUT)
            && !crate::episode::environment_fact(line)
        {
            return Assessment::Silent;
        }
    }
    assessed
}

/// Escape sequences of terminals (colours, cursor moves) taken out of a text: `ESC [` … a
/// final letter, `ESC ]` … BEL or `ESC \\`, and any other `ESC` with the character after it.
pub fn strip_ansi(text: &str) -> std::borrow::Cow<'_, str> {
    if !text.contains('\u{1b}') {
        return std::borrow::Cow::Borrowed(text);
    }
    let mut out = String::with_capacity(text.len());
    let mut chars = text.chars().peekable();
    while let Some(c) = chars.next() {
        if c != '\u{1b}' {
            out.push(c);
            continue;
        }
        match chars.next() {
            Some('[') => {
                for c in chars.by_ref() {
                    if ('@'..='~').contains(&c) {
                        break;
                    }
                }
            }
            Some(']') => {
                while let Some(c) = chars.next() {
                    if c == '\u{7}' || (c == '\u{1b}' && chars.next_if_eq(&'\\').is_some()) {
                        break;
                    }
                }
            }
            _ => {}
        }
    }
    std::borrow::Cow::Owned(out)
}

/// Whether a tool error (as [`assess`]ed) is the reason a user typed when refusing the call:
/// some Claude Code versions (2.0.x) wrote it as the error of the refused edit or plan, with no
/// refusal words around it.
pub(crate) fn refusal_as_error(tool: &str, error: &str, assessed: &Assessment) -> bool {
    (transcript::edits_a_file(tool) || transcript::presents_a_plan(tool))
        && matches!(assessed, Assessment::Silent | Assessment::Error(_))
        && reads_like_user_words(error)
}

/// Whether an edit's error reads like words the user typed rather than an error: not a protocol
/// message, no line with an error marker, no errno (`EACCES: …`). Claude Code 2.0.x wrote the
/// reason a user gave for refusing an edit as the edit's error, with nothing around it.
/// Call it on an error [`assess`] found neither a protocol message nor failing tests in.
fn reads_like_user_words(error: &str) -> bool {
    let text = error.trim();
    if text.is_empty() || text.starts_with('<') {
        return false;
    }
    let first_word = text.split([':', ' ']).next().unwrap_or("");
    let errno = first_word.len() > 1
        && first_word.starts_with('E')
        && first_word.bytes().all(|b| b.is_ascii_uppercase());
    !errno
        && text
            .lines()
            .take(MAX_LINES)
            .all(|l| tier(l.trim()) < Tier::Marker)
}

/// The kind of a protocol error, for the session summary: its first clause, numbers as `N`
/// ("Found N matches of the string to replace", "Shell N is not running").
fn protocol_kind(first: &str) -> String {
    let clause = first
        .split(['.', ':', ',', '('])
        .next()
        .unwrap_or(first)
        .trim();
    let words: Vec<&str> = clause
        .split_whitespace()
        .map(|w| {
            if w.bytes().any(|b| b.is_ascii_digit()) {
                "N"
            } else {
                w
            }
        })
        .collect();
    let kind = one_line(&words.join(" "), 60);
    if kind.is_empty() {
        "tool error".into()
    } else {
        kind
    }
}

/// What the tool was asked to do, in one short line.
pub fn input_summary(tool: &str, input: &Value) -> String {
    let field = |name: &str| input.get(name).and_then(Value::as_str).map(str::to_string);
    let summary = match tool {
        "Bash" | "BashOutput" => field("command"),
        "Read" | "Write" | "Edit" | "MultiEdit" | "NotebookEdit" => {
            field("file_path").or_else(|| field("notebook_path"))
        }
        "Glob" => field("pattern"),
        "Grep" => field("pattern").map(|p| match field("path") {
            Some(path) => format!("{p} in {path}"),
            None => p,
        }),
        "WebFetch" => field("url"),
        "WebSearch" => field("query"),
        "Task" | "Agent" => field("description").or_else(|| field("subagent_type")),
        _ => None,
    };
    let summary = summary.unwrap_or_else(|| match input {
        // Unknown tools (MCP and the like): the first string argument says most.
        Value::Object(map) => map
            .values()
            .find_map(Value::as_str)
            .unwrap_or_default()
            .to_string(),
        Value::Null => String::new(),
        other => other.to_string(),
    });
    // Redact before cutting: a cut token no longer matches its rule and would leak its start.
    one_line(
        &reflect_store::redact::redact_prefix(&summary, SCAN_BYTES),
        160,
    )
}

/// Longest text quoted of each side of an edit ([`edit_summary`]).
const EDIT_SIDE_CHARS: usize = 80;

/// One redacted line saying what an edit of a file did, for a resolution: ``edited
/// tests/conftest.py: `old` → `new` `` (an Edit, or a MultiEdit's first change), `wrote
/// src/app.py`. The path is its last two parts: the failure's call says where the work was.
pub fn edit_summary(tool: &str, input: &Value) -> String {
    let field =
        |value: &Value, name: &str| value.get(name).and_then(Value::as_str).map(str::to_string);
    let path = field(input, "file_path")
        .or_else(|| field(input, "notebook_path"))
        .unwrap_or_default();
    let mut parts: Vec<&str> = path.rsplit(['/', '\\']).take(2).collect();
    parts.reverse();
    let path = one_line(
        &reflect_store::redact::redact_prefix(&parts.join("/"), SCAN_BYTES),
        160,
    );
    let whole = |text: &str| {
        let text = reflect_store::redact::redact_prefix(text, SCAN_BYTES);
        one_line(&text, text.len())
    };
    let change = match tool {
        "Edit" => Some(input),
        "MultiEdit" => input.get("edits").and_then(|e| e.get(0)),
        _ => None,
    };
    match change.map(|c| (field(c, "old_string"), field(c, "new_string"))) {
        Some((Some(old), Some(new))) => {
            let (old, new) = where_they_differ(&whole(&old), &whole(&new));
            let side = |text: &str| one_line(text, EDIT_SIDE_CHARS);
            format!("edited {path}: `{}` → `{}`", side(&old), side(&new))
        }
        _ if tool == "Write" => format!("wrote {path}"),
        _ => format!("edited {path}"),
    }
}

/// The two sides of an edit from the word where they start to differ to the word after the
/// last difference, each with a `…` where a shared start or end of
/// [`SAME_START_CHARS`] or more was left out: a cut of a long block would show the same text
/// twice.
fn where_they_differ(old: &str, new: &str) -> (String, String) {
    let (same, at) = shared_start(old, new);
    let room = old.chars().count().min(new.chars().count()) - same;
    let (same_end, end_bytes) = old
        .chars()
        .rev()
        .zip(new.chars().rev())
        .take(room)
        .take_while(|(a, b)| a == b)
        .fold((0, 0), |(n, bytes), (c, _)| (n + 1, bytes + c.len_utf8()));
    let from = if same < SAME_START_CHARS {
        0
    } else {
        word_start(old, at)
    };
    let shown = |text: &str| {
        let until = if same_end < SAME_START_CHARS {
            text.len()
        } else {
            word_end(text, text.len() - end_bytes)
        };
        let until = until.max(from);
        let mut out = String::new();
        if from > 0 {
            out.push('…');
        }
        out.push_str(&text[from..until]);
        if until < text.len() {
            out.push('…');
        }
        out
    };
    (shown(old), shown(new))
}

/// How many characters `a` and `b` share at their start, and the byte where they part.
fn shared_start(a: &str, b: &str) -> (usize, usize) {
    a.chars()
        .zip(b.char_indices())
        .take_while(|(x, (_, y))| x == y)
        .fold((0, 0), |(n, _), (_, (i, c))| (n + 1, i + c.len_utf8()))
}

/// The start of the word `text` holds at byte `at`, looking back [`WORD_BACK_CHARS`] at most.
fn word_start(text: &str, at: usize) -> usize {
    text[..at]
        .char_indices()
        .rev()
        .take(WORD_BACK_CHARS)
        .find(|(_, c)| c.is_whitespace())
        .map_or(at, |(i, c)| i + c.len_utf8())
}

/// The end of the word `text` holds at byte `at`, looking on [`WORD_BACK_CHARS`] at most.
fn word_end(text: &str, at: usize) -> usize {
    text[at..]
        .char_indices()
        .take(WORD_BACK_CHARS)
        .find(|(_, c)| c.is_whitespace())
        .map_or(at, |(i, _)| at + i)
}

/// How a failure's context starts: the call that failed ([`signal`]).
pub const TRIED: &str = "Tried: ";

/// Characters a resolution must share with the start of the command that failed before a
/// listing shows it from where they differ ([`resolution_from_change`]).
const SAME_START_CHARS: usize = 40;
/// How far from a difference a listing looks for the start (or end) of its word.
const WORD_BACK_CHARS: usize = 30;
/// Most words of the failed call a rerun left out that a listing names (`without …`); more is
/// another command, not a retry that dropped a part.
const DROPPED_SHOWN: usize = 3;

/// A resolution as a listing shows it when it is one command that reruns the failed one
/// (`context`'s [`TRIED`] line) with a change past a long shared start: from the word where
/// the two differ, after a `…` (`` `…cache queue` ``), since a listing's cut
/// would keep only the shared start and hide what changed (and whether the change only drops
/// the failing part), in about `max` characters. A rerun that is the failed call less its
/// first steps or its last words is shown whole, with what it dropped
/// (`` `node app.js` (without cd backend) ``). `None` when it is shown as stored.
pub fn resolution_from_change(context: &str, resolution: &str, max: usize) -> Option<String> {
    let tried = context.strip_prefix(TRIED)?.lines().next()?;
    let command = resolution.strip_prefix('`')?.strip_suffix('`')?;
    if command.contains('`') || command.is_empty() {
        return None; // several commands ran
    }
    let (same, at) = shared_start(tried, command);
    if tried == command {
        return None;
    }
    if same < SAME_START_CHARS {
        // The last words left out, or a first step (`cd backend && `): both whole words.
        let dropped = match tried.strip_prefix(command) {
            Some(end) if end.starts_with(char::is_whitespace) => end,
            _ => {
                let before = tried.strip_suffix(command)?.trim_end();
                before
                    .strip_suffix("&&")
                    .or_else(|| before.strip_suffix(';'))?
            }
        };
        // A word cut by the call's quote is left out, as below.
        let mut words: Vec<&str> = dropped.split_whitespace().collect();
        if dropped.ends_with('…') {
            words.pop();
        }
        let without = without(words.into_iter(), &[]);
        if without.is_empty() {
            return None;
        }
        let room = max.saturating_sub(without.chars().count() + 2).max(16);
        return Some(format!("`{}`{without}", one_line(command, room)));
    }
    let word = word_start(command, at);
    // What the failed call had there and the rerun has not: a retry that only drops the
    // failing part shows it (a word cut by the call's quote is left out).
    let changed: Vec<&str> = command[word..].split_whitespace().collect();
    let tried_rest = tried.get(word..).unwrap_or_default();
    let cut = tried_rest.ends_with('…');
    let mut tried_words: Vec<&str> = tried_rest.split_whitespace().collect();
    if cut {
        tried_words.pop();
    }
    let without = without(tried_words.into_iter(), &changed);
    // The command is cut, never what it left out: that is what tells a retry that only does
    // less from a fix.
    let room = max.saturating_sub(without.chars().count() + 3).max(16);
    Some(format!("`…{}`{without}", one_line(&command[word..], room)))
}

/// ` (without a b)`: the words of the failed call the rerun's `kept` words lack, up to
/// [`DROPPED_SHOWN`]; empty when none, or more (another command, not a part dropped).
fn without<'a>(tried: impl Iterator<Item = &'a str>, kept: &[&str]) -> String {
    // A word is compared by its letters and digits: one the rerun kept inside its quotes
    // (`x"` before, `x 2>&1"` after) or before another colon is no drop, nor is a pipe or
    // an `&&`; a word left out twice (`| jq` after each of two commands) is named once.
    fn bare(w: &str) -> &str {
        w.trim_matches(|c: char| !c.is_alphanumeric())
    }
    let kept: Vec<&str> = kept.iter().map(|w| bare(w)).collect();
    let mut dropped: Vec<&str> = Vec::new();
    for w in tried {
        let b = bare(w);
        if b.is_empty() || kept.contains(&b) || dropped.iter().any(|d| bare(d) == b) {
            continue;
        }
        dropped.push(w);
        if dropped.len() > DROPPED_SHOWN {
            return String::new();
        }
    }
    if dropped.is_empty() {
        return String::new();
    }
    let words: Vec<String> = dropped.iter().map(|w| one_line(w, 40)).collect();
    format!(" (without {})", words.join(" "))
}

/// A failure signal for `tool`'s error line; `tried` is the call's [`input_summary`], `error`
/// the whole (redacted) error for the context.
pub fn signal(tool: &str, line: &str, tried: &str, error: &str) -> Signal {
    let content = match line.strip_prefix(TIMED_OUT) {
        // The command is the lesson: which one outlives the tool's limit.
        Some(after) if !tried.is_empty() => {
            format!("{tool} timed out after{after}: `{}`", one_line(tried, 120))
        }
        // A fetch's error rarely names the site, and one site's 404 is no other's lesson: the
        // host goes in the content, so two sites' failures are two signals.
        _ => match host(tool, tried) {
            Some(host) if !line.contains(host) => format!("{tool} failed: {line} ({host})"),
            _ => format!("{tool} failed: {line}"),
        },
    };
    let mut sig = Signal::new(Kind::Failure, content);
    // Lines kept: an error's shape (a traceback, a compiler's excerpt) is read by its lines.
    let excerpt: String = error.trim().chars().take(ERROR_CONTEXT_CHARS).collect();
    sig.context = if tried.is_empty() {
        format!("Error: {excerpt}")
    } else {
        format!("{TRIED}{tried}\nError: {excerpt}")
    };
    sig.category = Some("tool-failure".into());
    sig.source.origin = Some(Origin::Tool);
    sig.tags = vec![tool.to_ascii_lowercase()];
    sig.meta.insert("tool".into(), Value::from(tool));
    sig
}

/// The host of a fetch's URL (`tried`, its [`input_summary`]): past the scheme, before the
/// path, without a user part.
fn host<'a>(tool: &str, tried: &'a str) -> Option<&'a str> {
    if tool != "WebFetch" {
        return None;
    }
    let rest = tried.split_once("://")?.1;
    let authority = rest.split(['/', '?', '#']).next()?;
    let host = authority.rsplit('@').next()?;
    (!host.is_empty()).then_some(host)
}

/// A failed tool call, as the PostToolUseFailure hook reports it. The app fills it from the
/// hook's wire payload; the detectors never see the payload itself.
#[derive(Debug, Default, Clone, Copy)]
pub struct ToolFailure<'a> {
    pub session_id: Option<&'a str>,
    pub cwd: Option<&'a str>,
    pub tool_name: Option<&'a str>,
    pub tool_input: Option<&'a Value>,
    pub tool_use_id: Option<&'a str>,
    pub error: Option<&'a str>,
    pub is_interrupt: Option<bool>,
    /// Set inside sub-agents; their failures belong to the parent session.
    pub agent_id: Option<&'a str>,
}

/// The signal for a failed tool call; `None` when [`assess`] finds nothing worth storing, or the
/// call names no tool.
pub fn failure_signal(p: &ToolFailure) -> Option<Signal> {
    if p.is_interrupt == Some(true) {
        return None;
    }
    let tool = p.tool_name.filter(|t| !t.is_empty())?;
    // Redacted before the error line and the excerpt cut it (see `input_summary`).
    let raw = strip_ansi(p.error.unwrap_or(""));
    let error = reflect_store::redact::redact_prefix(&raw, SCAN_BYTES);
    let command = p
        .tool_input
        .and_then(|i| i.get("command"))
        .and_then(Value::as_str)
        .unwrap_or("");
    let Assessment::Error(line) = assess_call(tool, command, &error) else {
        return None;
    };
    // Whether anything resolves it is known only to the transcript miner, later: the hook keeps
    // what is worth a signal unresolved, a fact of the environment (see `detect::episode`).
    if tool == "Bash" && !crate::episode::environment_fact(&line) {
        return None;
    }
    let tried = p
        .tool_input
        .map(|i| input_summary(tool, i))
        .unwrap_or_default();
    let mut sig = signal(tool, &line, &tried, &error);
    sig.session_id = p.session_id.map(str::to_string);
    sig.project = p.cwd.map(str::to_string);
    sig.source.hook = Some("PostToolUseFailure".into());
    if let Some(id) = p.tool_use_id.filter(|id| !id.is_empty()) {
        sig.meta.insert("tool_use_id".into(), Value::from(id));
    }
    if let Some(agent) = p.agent_id {
        sig.meta.insert("agent_id".into(), Value::from(agent));
    }
    Some(sig)
}
