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

use serde_json::Value;

use reflect_base::text::one_line;
use reflect_store::signal::{Kind, Origin, Signal};
use reflect_transcript as transcript;

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

/// How strongly a line of output says that something went wrong.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
enum Tier {
    /// Context, not the error: warnings, notes, info logs, stack frames, source excerpts.
    Noise,
    Plain,
    /// Words of failure ("No such file or directory", "permission denied", "timed out").
    Words,
    /// An error marker: `error:`, `fatal:`, `FAILED`, `npm ERR!`, `error[E0425]`, an exception
    /// (`ModuleNotFoundError: …`), a log line at level ERROR.
    Marker,
}

/// The line of an error output that says what went wrong, `None` when none does.
///
/// The rule, general across tools: skip a leading `Exit code N` (it says only that something
/// failed) and noise (warnings, notes, hints, info/debug logs, stack frames, source excerpts);
/// take the first line carrying an error marker, else the first line with words of failure.
/// The first marker is the cause (a compiler's later errors follow from it); a Python
/// traceback's frames are noise, so its exception line is the first marker. A marker line that
/// says little by itself ("ERROR:", "regex parse error:") is joined with the line after it.
pub(crate) fn error_line(error: &str) -> Option<String> {
    let mut lines = error
        .lines()
        .map(str::trim)
        .filter(|l| !l.is_empty())
        .take(MAX_LINES)
        .peekable();
    if lines.peek().is_some_and(|l| is_exit_code(l)) {
        lines.next();
    }
    let lines: Vec<&str> = lines.collect();
    let mut best: Option<(usize, Tier)> = None;
    for (i, line) in lines.iter().enumerate() {
        // A line a caret line points into is the program's source, quoted (Node's and Python's
        // excerpt of the line that failed), not its error.
        let quoted = lines.get(i + 1).is_some_and(|next| is_caret_line(next));
        let tier = if quoted { Tier::Noise } else { tier(line) };
        if tier >= Tier::Words && best.is_none_or(|(_, t)| tier > t) {
            best = Some((i, tier));
            if tier == Tier::Marker {
                break;
            }
        }
    }
    let (at, _) = best?;
    let mut line = pytest_detail(lines[at]).to_string();
    // An exception named alone on its line (PHP, Java) has its message on the next.
    if message_letters(&line) < 12 || (is_exception(&line) && !line.contains(':')) {
        match lines.get(at + 1).filter(|next| tier(next) != Tier::Noise) {
            Some(next) => {
                line.push(' ');
                line.push_str(next);
            }
            // "Error" alone says nothing.
            None if message_letters(&line) < 4 => return None,
            None => {}
        }
    }
    Some(one_line(&line, ERROR_LINE_CHARS))
}

/// A line of carets (`^^^^`, with `~` or blanks) marking a place in the line above it.
fn is_caret_line(line: &str) -> bool {
    line.contains('^') && line.chars().all(|c| matches!(c, '^' | '~' | ' ' | '\t'))
}

/// `Exit code 1`, alone on its line.
fn is_exit_code(line: &str) -> bool {
    line.strip_prefix("Exit code ")
        .is_some_and(|n| !n.is_empty() && n.bytes().all(|b| b.is_ascii_digit()))
}

/// Letters in a line after its first word (the marker, in "ERROR: x").
fn message_letters(line: &str) -> usize {
    let rest = line
        .trim_start_matches(|c: char| !c.is_alphanumeric())
        .trim_start_matches(|c: char| c.is_alphanumeric());
    rest.chars().filter(|c| c.is_alphabetic()).count()
}

/// Lines that open with these (in any ASCII case) are context around an error, not the error.
const NOISE_STARTS: &[&str] = &[
    "warning",
    "warn ",
    "warn:",
    "warn[",
    "[warn",
    "npm warn",
    "(node:",
    "hint:",
    "note:",
    "help:",
    "info",
    "[info",
    "debug",
    "[debug",
    "at ",
    "file \"",
    "|",
    "-->",
    "^",
    "~",
    "traceback (most recent call last)",
    "during handling of the above exception",
    "the above exception was the direct cause",
    "deprecat",
    "npm error code",
    "npm err! code",
    "npm error a complete log",
    "npm err! a complete log",
    "npm error log files",
    "npm error errno",
    "npm err! errno",
    "npm error syscall",
    "npm err! syscall",
    "npm error path",
    "npm err! path",
    // PowerShell's excerpt and record lines under its message.
    "+ ",
    "at line:",
    // Source code printed by the program (a file shown, a snippet echoed): not its error.
    "except ",
    "except:",
    "raise ",
    "catch ",
    "catch(",
    "} catch",
    "throw ",
    "try:",
    "def ",
    "class ",
    "if err",
    "return err",
    "// ",
    "# ",
    "/* ",
    "* ",
];

/// Markers at the start of a line (in any ASCII case), each followed by a non-letter.
const MARKER_STARTS: &[&str] = &[
    "error",
    "fatal",
    "panic",
    "failed",
    "fail",
    "--- fail",
    "npm err!",
    "npm error",
    "err!",
    "uncaught",
    "[error]",
    "critical",
    "exception",
    "usage error",
];

/// Markers anywhere in a line (as written: case matters, "Error:" is not "error:" in prose).
const MARKERS_WITHIN: &[&str] = &[
    ": error",
    " error:",
    " error[",
    " error TS",
    " error CS",
    "] error",
    " ERROR ",
    " ERROR:",
    "ERROR:",
    " - ERROR - ",
    "[ERROR]",
    "fatal:",
    "fatal error",
    "FATAL",
    "panicked at",
    "npm ERR!",
    "Error:",
    "Exception:",
    // make's own errors: "make: *** No rule to make target 'x'.  Stop."
    ": *** ",
];

/// Words of failure (in lower case; matched in any ASCII case), anywhere in a line.
const FAILURE_WORDS: &[&str] = &[
    "error",
    "fail",
    "cannot",
    "can't",
    "could not",
    "couldn't",
    "unable to",
    "not found",
    "no such",
    "denied",
    "refused",
    "not recognized",
    "unrecognized",
    "unrecognised",
    "not permitted",
    "unsupported",
    "unknown",
    "invalid",
    "missing",
    "does not exist",
    "doesn't exist",
    "not allowed",
    "timed out",
    "timeout",
    "unexpected",
    "illegal",
    "not supported",
    "forbidden",
    "unauthorized",
    "exception",
    "aborted",
    "conflict",
    "undefined",
    "not defined",
    "is required",
    "requires",
    "no module",
    "exceeded",
    "erro",
    "fehler",
    "错误",
    "失败",
    "ошибк",
    "Ошибк",
    "エラー",
    "오류",
    "실패",
];

/// Log levels: a line logged below ERROR is noise, however it reads.
const LOW_LEVELS: &[&str] = &["INFO", "DEBUG", "WARN", "WARNING", "TRACE"];
const HIGH_LEVELS: &[&str] = &["ERROR", "FATAL", "CRITICAL"];
/// Claude Code's shell snapshot glitch, which precedes the real output of every command in some
/// sessions.
const SNAPSHOT_GLITCH: &str = "claude-shell-snapshot";

// Plain substring searches, no automaton: a hook judges one error of a few lines and exits, and
// building an automaton would cost it more than the search (the transcript miner meets an error
// every hundred kilobytes or so).
fn tier(line: &str) -> Tier {
    if NOISE_STARTS
        .iter()
        .any(|p| starts_with_ignore_case(line, p))
        || is_source_excerpt(line)
        || is_usage_options(line)
        || line.contains(SNAPSHOT_GLITCH)
    {
        return Tier::Noise;
    }
    let (mut low, mut high) = (false, false);
    for (at, word) in upper_words(line) {
        // A level is written near the start of a log line.
        low |= at < 64 && LOW_LEVELS.contains(&word);
        high |= HIGH_LEVELS.contains(&word);
    }
    if low && !high {
        return Tier::Noise;
    }
    let body = pytest_detail(line);
    let marker_start = MARKER_STARTS.iter().any(|m| {
        starts_with_ignore_case(body, m)
            && !body[m.len()..]
                .chars()
                .next()
                .is_some_and(char::is_alphabetic)
    });
    if marker_start || is_exception(body) || MARKERS_WITHIN.iter().any(|m| has_marker(line, m)) {
        return Tier::Marker;
    }
    let lower = line.to_ascii_lowercase();
    if FAILURE_WORDS.iter().any(|w| lower.contains(w)) {
        return Tier::Words;
    }
    Tier::Plain
}

/// The words of `line` written in capitals (4 to 8 ASCII letters, as levels are), with their
/// byte offsets.
fn upper_words(line: &str) -> impl Iterator<Item = (usize, &str)> {
    line.split(|c: char| !c.is_alphanumeric())
        .filter(|w| (4..=8).contains(&w.len()) && w.bytes().all(|b| b.is_ascii_uppercase()))
        .map(move |w| (w.as_ptr() as usize - line.as_ptr() as usize, w))
}

/// `line` starts with the ASCII `prefix`, in any case.
fn starts_with_ignore_case(line: &str, prefix: &str) -> bool {
    line.as_bytes()
        .get(..prefix.len())
        .is_some_and(|head| head.eq_ignore_ascii_case(prefix.as_bytes()))
}

/// `marker` in `line`; one that ends in a colon must not be followed by another (`Error:`, not
/// the `Exception::class` of a source excerpt).
fn has_marker(line: &str, marker: &str) -> bool {
    if !marker.ends_with(':') {
        return line.contains(marker);
    }
    line.match_indices(marker)
        .any(|(at, m)| !line[at + m.len()..].starts_with(':'))
}

/// pytest's assertion detail lines start with `E` and spaces: the rest is what to read.
fn pytest_detail(line: &str) -> &str {
    match line.strip_prefix('E') {
        Some(rest) if rest.starts_with("  ") => rest.trim_start(),
        _ => line,
    }
}

/// A source excerpt under an error: `12 |     let x = …` (rustc), `➜ 841▕ $e = …` (PHP).
fn is_source_excerpt(line: &str) -> bool {
    let line = line.trim_start_matches(|c: char| !c.is_alphanumeric() && c != '|');
    let rest = line.trim_start_matches(|c: char| c.is_ascii_digit());
    rest.len() < line.len() && rest.trim_start().starts_with(['|', '▕', '│'])
}

/// A usage synopsis's option list (`[--compress-level=NUM] [--contimeout]`, `[-v]`), printed
/// after the error that called for it: its words are option names. Not a tool's `[-] Error`.
fn is_usage_options(line: &str) -> bool {
    line.strip_prefix("[-")
        .and_then(|rest| rest.chars().next())
        .is_some_and(|c| c == '-' || c.is_ascii_alphanumeric())
}

/// An exception line: a dotted name ending in `Error`/`Exception`/`Fault`, capitalised, then a
/// colon or the end (`ModuleNotFoundError: No module named 'yaml'`, `java.io.IOException: x`).
fn is_exception(line: &str) -> bool {
    let name_end = line
        .find(|c: char| !(c.is_alphanumeric() || matches!(c, '_' | '.' | '$' | '\\')))
        .unwrap_or(line.len());
    let name = &line[..name_end];
    let last = name.rsplit(['.', '\\']).next().unwrap_or(name);
    let rest = &line[name_end..];
    last.chars().next().is_some_and(|c| c.is_ascii_uppercase())
        && ["Error", "Exception", "Fault"]
            .iter()
            .any(|s| last.ends_with(s))
        && (rest.is_empty() || rest.starts_with(':'))
}

/// Whether the error line reports tests that ran and failed (jest/vitest `FAIL file`, pytest
/// `FAILED a::b` and `AssertionError`, go `--- FAIL:`, rspec `Failed examples:`, cargo
/// `test result: FAILED` and its assertion panics, mocha `N failing`).
fn is_failing_test(line: &str, text: &str) -> bool {
    let body = pytest_detail(line);
    let lower = body.to_lowercase();
    let test_path = |s: &str| {
        s.contains("::")
            || s.contains(".test.")
            || s.contains(".spec.")
            || s.contains("_test.")
            || s.contains("test_")
            || s.contains("_spec.")
            || s.contains("/tests/")
            || s.contains("/test/")
    };
    if (lower.starts_with("fail ") || lower.starts_with("failed ")) && test_path(&lower) {
        return true;
    }
    if [
        "--- fail",
        "failed examples",
        "failure/error",
        "test result: failed",
    ]
    .iter()
    .any(|m| lower.starts_with(m))
    {
        return true;
    }
    if lower.starts_with("assertionerror")
        || lower.contains("assertion failed")
        || lower.contains("assertionfailederror")
        || lower.starts_with("error: expect(")
    {
        return true;
    }
    let words: Vec<&str> = lower.split_whitespace().take(2).collect();
    if let [n, what] = words[..] {
        if n.bytes().all(|b| b.is_ascii_digit()) && (what == "failing" || what == "failed") {
            return true;
        }
    }
    // A Rust test's panic: the run ends with its verdict.
    lower.contains("panicked at") && text.contains("test result: FAILED")
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

/// How a failure's context starts: the call that failed ([`signal`]).
pub const TRIED: &str = "Tried: ";

/// Characters a resolution must share with the start of the command that failed before a
/// listing shows it from where they differ ([`resolution_from_change`]).
const SAME_START_CHARS: usize = 40;
/// How far back from the first difference a listing looks for the start of its word.
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
    let (same, at) = tried
        .chars()
        .zip(command.char_indices())
        .take_while(|(a, (_, b))| a == b)
        .fold((0, 0), |(n, _), (_, (i, c))| (n + 1, i + c.len_utf8()));
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
    let before = &command[..at];
    let word = before
        .char_indices()
        .rev()
        .take(WORD_BACK_CHARS)
        .find(|(_, c)| c.is_whitespace())
        .map_or(at, |(i, c)| i + c.len_utf8());
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_error_summary_reads_as_a_failures_content() {
        let failure = |error: &str| match assess(error) {
            Assessment::Error(line) | Assessment::Protocol(line) => line,
            other => panic!("{other:?}"),
        };
        for error in [
            "Exit code 1\nwarning: unused\nerror: linker `cc` not found",
            "Command timed out after 2m 0.0s\nserver listening on :3000",
            "<tool_use_error>File has not been read yet. Read it first before writing to it.</tool_use_error>",
            "\u{1b}[31mError: connection refused\u{1b}[0m",
        ] {
            assert_eq!(error_summary(error), failure(&strip_ansi(error)), "{error}");
        }
        // Output with no line that says what went wrong: its start, on one line.
        assert_eq!(error_summary("Exit code 1\n"), "Exit code 1");
        assert_eq!(
            error_summary("Exit code 3\n12 files\n"),
            "Exit code 3 12 files"
        );
    }

    #[test]
    fn a_rerun_with_a_change_is_shown_from_the_change_with_what_it_dropped() {
        let start = "cd /home/dev/projects/shop && docker compose -f docker-compose.dev.yml up -d";
        let context = format!("Tried: {start} db cache search queue…\nError: Exit code 1");
        let shown = |resolution: &str| resolution_from_change(&context, resolution, 400);
        assert_eq!(
            shown(&format!("`{start} db cache queue`")).as_deref(),
            Some("`…queue` (without search)")
        );
        assert_eq!(
            shown(&format!("`{start} db cache search queue mail`")).as_deref(),
            Some("`…queue mail`"),
            "the call's quote ended in a cut word: nothing it held is named dropped"
        );
        let remote = r#"ssh -i ~/.ssh/id_deploy deploy@10.0.0.2 "ls -la /srv/releases/*.tar.gz"#;
        assert_eq!(
            resolution_from_change(
                &format!("Tried: {remote}\"\nError: Exit code 2"),
                &format!("`{remote} 2>&1\"`"),
                400
            )
            .as_deref(),
            Some("`…/srv/releases/*.tar.gz 2>&1\"`"),
            "a word kept inside the quotes is not dropped"
        );
        // A pipe into a missing program after each of several commands: named once.
        let probe = "TOKEN=x echo \"== all endpoints ==\" echo \"1. Users:\" curl -s localhost:3001/api/users";
        assert_eq!(
            resolution_from_change(
                &format!("Tried: {probe} | jq '.users' echo \"2. Orders:\" curl -s localhost:3001/api/orders | jq '.orders…\nError: x"),
                &format!("`{probe} echo \"2. Orders:\" curl -s localhost:3001/api/orders`"),
                400
            )
            .as_deref(),
            Some("`…echo \"2. Orders:\" curl -s localhost:3001/api/orders` (without jq '.users')")
        );
        // Cut to fit a listing, the command gives way, never what it left out.
        assert_eq!(
            resolution_from_change(
                &format!("Tried: {probe} | jq '.users' echo \"2. Orders:\" curl -s localhost:3001/api/orders | jq '.orders…\nError: x"),
                &format!("`{probe} echo \"2. Orders:\" curl -s localhost:3001/api/orders`"),
                48
            )
            .as_deref(),
            Some("`…echo \"2. Orders:\" curl…` (without jq '.users')")
        );
        // Another command, several commands, the same command: as stored.
        assert_eq!(shown("`pnpm install`"), None);
        assert_eq!(shown(&format!("`{start} db`, then the same command")), None);
        assert_eq!(shown(&format!("`{start} db` `ls`")), None);
        assert_eq!(resolution_from_change("Error: x", "`npm test`", 400), None);
        // A short command less its last words, or less a first step: whole, with the drop.
        let short = |tried: &str, rerun: &str| {
            resolution_from_change(&format!("Tried: {tried}\nError: x"), rerun, 400)
        };
        assert_eq!(
            short("npm run build -- --watch", "`npm run build`").as_deref(),
            Some("`npm run build` (without --watch)")
        );
        assert_eq!(
            short(
                "cd backend && node test-connection.js",
                "`node test-connection.js`"
            )
            .as_deref(),
            Some("`node test-connection.js` (without cd backend)")
        );
        assert_eq!(
            short("git diff; git status", "`git status`").as_deref(),
            Some("`git status` (without git diff)")
        );
        assert_eq!(
            short("rg TODO src --type rust --max-cou…", "`rg TODO src`").as_deref(),
            Some("`rg TODO src` (without --type rust)")
        );
        // A shorter word, another command ending the same way, a long drop: as stored.
        assert_eq!(short("npm run builds", "`npm run build`"), None);
        assert_eq!(short("make test", "`test`"), None);
        assert_eq!(short("cd a && b c d e && node x.js", "`node x.js`"), None);
    }

    /// A hook payload as JSON (the app's wire types read the real one).
    struct Payload(Value);

    fn parse_payload(json: &[u8]) -> serde_json::Result<Payload> {
        serde_json::from_slice(json).map(Payload)
    }

    /// [`super::failure_signal`] of the failure a payload reports.
    fn failure_signal(p: &Payload) -> Option<Signal> {
        let text = |key: &str| p.0.get(key).and_then(Value::as_str);
        super::failure_signal(&ToolFailure {
            session_id: text("session_id"),
            cwd: text("cwd"),
            tool_name: text("tool_name"),
            tool_input: p.0.get("tool_input").filter(|v| !v.is_null()),
            tool_use_id: text("tool_use_id"),
            error: text("error"),
            is_interrupt: p.0.get("is_interrupt").and_then(Value::as_bool),
            agent_id: text("agent_id"),
        })
    }

    fn line(error: &str) -> Option<String> {
        error_line(error)
    }

    #[test]
    fn a_fetch_failure_names_its_site_so_two_sites_are_two_signals() {
        let fetched = |url: &str, error: &str| {
            let p = Payload(serde_json::json!({"session_id": "s", "cwd": "/w",
                "tool_name": "WebFetch", "tool_input": {"url": url, "prompt": "read"},
                "error": error}));
            failure_signal(&p).unwrap()
        };
        let status = "Request failed with status code 404";
        let docs = fetched("https://docs.example.com/guide/install", status);
        assert_eq!(
            docs.content,
            format!("WebFetch failed: {status} (docs.example.com)")
        );
        let key = |s: &Signal| s.dedup_key();
        // Another page of the same site is the same failure; another site is not.
        assert_eq!(
            key(&docs),
            key(&fetched("https://docs.example.com/api?v=2", status))
        );
        assert_ne!(key(&docs), key(&fetched("https://github.com/o/r", status)));
        // A user part is not the host; an error that names the site already is not told twice.
        let user = fetched("https://me@git.example.org:8443/x", status);
        assert!(
            user.content.ends_with("(git.example.org:8443)"),
            "{}",
            user.content
        );
        let named = "Unable to verify if domain github.com is safe to fetch";
        let s = fetched("https://github.com/o/r", named);
        assert_eq!(s.content, format!("WebFetch failed: {named}"));
    }

    #[test]
    fn bash_failure_quotes_the_error_and_keeps_the_command_in_the_context() {
        let p = parse_payload(br#"{"session_id":"s","cwd":"/w","tool_name":"Bash","tool_input":{"command":"npm test","description":"run"},"tool_use_id":"toolu_1","error":"Exit code 127\n\n> app@1.0.0 test\nsh: 1: jest: command not found\nmore","is_interrupt":false}"#).unwrap();
        let s = failure_signal(&p).unwrap();
        assert_eq!(s.content, "Bash failed: sh: 1: jest: command not found");
        assert!(s
            .context
            .starts_with("Tried: npm test\nError: Exit code 127"));
        assert_eq!(s.tool_use_id(), Some("toolu_1"));
        assert_eq!(s.project.as_deref(), Some("/w"));
        assert_eq!(s.source.hook.as_deref(), Some("PostToolUseFailure"));
    }

    #[test]
    fn the_hook_keeps_only_environment_facts_the_miner_resolves_the_rest() {
        // Whether the next call fixed a missing script is known only later, to the miner.
        let p = parse_payload(br#"{"session_id":"s","tool_name":"Bash","tool_input":{"command":"npm test"},"tool_use_id":"t","error":"Exit code 1\nnpm ERR! missing script: test"}"#).unwrap();
        assert!(failure_signal(&p).is_none());
    }

    #[test]
    fn noise_in_tool_errors_is_not_a_failure() {
        for error in [
            // Claude Code's permission prompt, and another hook's verdict.
            "This command requires approval",
            "Claude requested permissions to write to /w/a.md, but you haven't granted it yet.",
            "Permission to use Bash with command rm -rf build has been denied.",
            "BLOCKED: git push to main is not allowed by the repository policy",
            "PreToolUse:Bash hook error: [./guard.sh]: blocked: no force pushes",
        ] {
            assert!(
                matches!(assess(error), Assessment::Protocol(_)),
                "{error}: {:?}",
                assess(error)
            );
        }
        // A program that prints a file reports only in its own name.
        let shown = "Exit code 1\n    try:\n        run()\n    except ValueError:\n        pass\ncat: b.py: No such file or directory";
        assert_eq!(
            assess_call("Bash", "cat a.py b.py", shown),
            Assessment::Error("cat: b.py: No such file or directory".into())
        );
        let printed = "Exit code 1\nraise ValueError(\"bad\")\nValueError: bad input";
        assert_eq!(
            assess_call("Bash", "head -40 tool.py", printed),
            Assessment::Silent
        );
        assert!(matches!(
            assess_call("Bash", "python tool.py", printed),
            Assessment::Error(_)
        ));
        // A timeout is the timeout of that command, whatever it printed first.
        let timeout =
            "Command timed out after 2m 0.0s #0 building\nFAIL src/a.test.ts\nError: connect ECONNREFUSED";
        let Assessment::Error(line) = assess(timeout) else {
            panic!("{:?}", assess(timeout))
        };
        let sig = signal("Bash", &line, "npm run dev", timeout);
        assert_eq!(sig.content, "Bash timed out after 2m 0.0s: `npm run dev`");
        // Terminal colours are gone before anything is judged or kept.
        assert_eq!(
            strip_ansi("\u{1b}[31mError:\u{1b}[0m bad \u{1b}]8;;http://x\u{7}link\u{1b}]8;;\u{7}"),
            "Error: bad link"
        );
    }

    #[test]
    fn the_error_line_is_the_one_that_says_what_went_wrong() {
        // The first line of output is a log line; the error comes later.
        assert_eq!(
            line("INFO Running migrations.\nINFO Applying 0003\nsqlite3.OperationalError: no such table: users\n").as_deref(),
            Some("sqlite3.OperationalError: no such table: users")
        );
        // A Python traceback: its frames are noise, the exception line says it.
        let traceback = "Traceback (most recent call last):\n  File \"x.py\", line 2, in <module>\n    import yaml\nModuleNotFoundError: No module named 'yaml'";
        assert_eq!(
            line(traceback).as_deref(),
            Some("ModuleNotFoundError: No module named 'yaml'")
        );
        // rustc: the first error, not its excerpt or the summary.
        let rustc = "   Compiling app v0.1.0\nwarning: unused variable: `x`\nerror[E0425]: cannot find value `y` in this scope\n --> src/main.rs:3:5\n  |\n3 |     y\n  |     ^ not found in this scope\nerror: could not compile `app`";
        assert_eq!(
            line(rustc).as_deref(),
            Some("error[E0425]: cannot find value `y` in this scope")
        );
        // git, npm, tsc, a log line at level ERROR, words of failure without a marker.
        assert_eq!(
            line("Exit code 128\nfatal: not a git repository (or any of the parent directories): .git").as_deref(),
            Some("fatal: not a git repository (or any of the parent directories): .git")
        );
        assert_eq!(
            line("npm error code E404\nnpm error 404 Not Found - GET https://registry.npmjs.org/nope").as_deref(),
            Some("npm error 404 Not Found - GET https://registry.npmjs.org/nope")
        );
        assert_eq!(
            line("src/a.ts(3,7): error TS2322: Type 'string' is not assignable to type 'number'.")
                .as_deref(),
            Some("src/a.ts(3,7): error TS2322: Type 'string' is not assignable to type 'number'.")
        );
        assert_eq!(
            line("2026-01-02 10:00:00 - app - INFO - starting\n2026-01-02 10:00:01 - app - ERROR - cannot bind port 8080").as_deref(),
            Some("2026-01-02 10:00:01 - app - ERROR - cannot bind port 8080")
        );
        assert_eq!(
            line("make: Entering directory '/w'\nmake: *** No rule to make target 'x'.  Stop.")
                .as_deref(),
            Some("make: *** No rule to make target 'x'. Stop.")
        );
        assert_eq!(
            line("Exit code 1\nls: cannot access 'build': No such file or directory").as_deref(),
            Some("ls: cannot access 'build': No such file or directory")
        );
        // A marker that says little is joined with what follows it.
        assert_eq!(
            line("ERROR:\n  Code: Unavailable\n  Message: connection refused").as_deref(),
            Some("ERROR: Code: Unavailable")
        );
        // An exception named alone, its message below; a source excerpt naming one is no error.
        assert_eq!(
            line("  migrate ...... 238ms FAIL\n   App\\Db\\QueryException \n  SQLSTATE[42S02]: Table 'users' doesn't exist\n  ➜ 841▕ $e = new QueryException::class;").as_deref(),
            Some("App\\Db\\QueryException SQLSTATE[42S02]: Table 'users' doesn't exist")
        );
        assert_eq!(line("  12 | throw new Error::from(x)\nplain"), None);
        // A level is a whole word in capitals: "WARNINGS" is none.
        assert_eq!(
            line("Loading WARNINGS.md failed").as_deref(),
            Some("Loading WARNINGS.md failed")
        );
        // An option the program does not know, then its usage: the option is the error, not a
        // word of the synopsis (`--contimeout`).
        assert_eq!(
            line("Exit code 1\nrsync: unrecognized option `--no-dereference'\nusage: rsync [-0468BCD] [-e program]\n\t[--compress-level=NUM] [--contimeout] [--copy-dest=dir]").as_deref(),
            Some("rsync: unrecognized option `--no-dereference'")
        );
        assert_eq!(
            line("Exit code 64\nusage: tool [-v] src dst\n\t[--ignore-errors] [--timeout=N]\ntool: missing destination operand").as_deref(),
            Some("tool: missing destination operand")
        );
        assert_eq!(
            line("[*] Connecting\n[-] Error: login failed for admin").as_deref(),
            Some("[-] Error: login failed for admin")
        );
        assert_eq!(
            line("Exit code 1\nchown: changing ownership of 'a': Operation not permitted")
                .as_deref(),
            Some("chown: changing ownership of 'a': Operation not permitted")
        );
        // Node quotes the line of an inline script that failed, a caret under it.
        assert_eq!(
            line("Exit code 1\n[eval]:13\n    console.log('Error:', e.message);\n                                    ^\n\nSyntaxError: missing ) after argument list").as_deref(),
            Some("SyntaxError: missing ) after argument list")
        );
        // A warning that mentions a failure is not the error.
        assert_eq!(
            line("warning: could not open directory 'x/': Permission denied\nfatal: adding files failed").as_deref(),
            Some("fatal: adding files failed")
        );
    }

    #[test]
    fn an_error_prefix_is_kept_in_the_error_line() {
        assert_eq!(
            assess("Error: something broke"),
            Assessment::Error("Error: something broke".into())
        );
    }

    #[test]
    fn output_that_says_nothing_went_wrong_has_no_error_line() {
        for quiet in [
            "Exit code 1",
            "Exit code 1\n=== usages ===",
            "On branch main\nnothing to commit, working tree clean",
            "Exit code 2\n",
            "Error",
            "",
        ] {
            assert_eq!(line(quiet), None, "{quiet:?}");
            assert_eq!(assess(quiet), Assessment::Silent, "{quiet:?}");
        }
    }

    #[test]
    fn protocol_errors_are_known_wrapped_or_not() {
        for (error, kind) in [
            ("<tool_use_error>File has not been read yet. Read it first before writing to it.</tool_use_error>", "File has not been read yet"),
            ("File has not been read yet. Read it first before writing to it.", "File has not been read yet"),
            ("<tool_use_error>String to replace not found in file.\nString: fn main()</tool_use_error>", "String to replace not found in file"),
            ("Found 3 matches of the string to replace, but replace_all is false.", "Found N matches of the string to replace"),
            ("No changes to make: old_string and new_string are exactly the same.", "No changes to make"),
            ("File does not exist. Note: your current working directory is /w.", "File does not exist"),
            ("File content (47613 tokens) exceeds maximum allowed tokens (25000). Please use offset", "File content"),
            ("Error: Shell 3eef53 is not running, so cannot be killed (status: killed)", "Shell N is not running"),
            ("<tool_use_error>Blocked: sleep 25 followed by: docker logs app</tool_use_error>", "Blocked"),
        ] {
            assert_eq!(assess(error), Assessment::Protocol(kind.into()), "{error}");
        }
        assert_eq!(assess("Warmup"), Assessment::NotAFailure);
        assert_eq!(
            assess("[Request interrupted by user for tool use]"),
            Assessment::NotAFailure
        );
    }

    #[test]
    fn failing_tests_are_work_in_progress_but_a_runner_that_cannot_start_is_not() {
        for failing in [
            "Exit code 1\n FAIL  src/App.test.tsx > App > renders\nExpected: 1\nReceived: 2",
            "Exit code 1\n===== FAILURES =====\nE       AssertionError: expected call not found.\nFAILED tests/test_a.py::test_b - AssertionError",
            "--- FAIL: TestParse (0.00s)\n    parse_test.go:12: got 1, want 2",
            "Failures:\n\n  1) User is valid\n     Failure/Error: expect(user).to be_valid",
            "thread 'tests::adds' panicked at src/lib.rs:9:5:\nassertion `left == right` failed\ntest result: FAILED. 3 passed; 1 failed",
            "  2 failing\n\n  1) adds:\n     AssertionError: expected 3 to equal 4",
        ] {
            assert_eq!(assess(failing), Assessment::FailingTests, "{failing}");
        }
        assert_eq!(
            assess("Exit code 4\nImportError while loading conftest '/w/tests/conftest.py'.\nE   ModuleNotFoundError: No module named 'httpx'"),
            Assessment::Error("ModuleNotFoundError: No module named 'httpx'".into())
        );
    }

    #[test]
    fn a_refusal_reason_written_as_an_edit_error_reads_like_user_words() {
        let refusal = |tool: &str, error: &str| refusal_as_error(tool, error, &assess(error));
        let reason =
            "No need to touch the view models. Revert those and read the state from the service.";
        assert!(refusal("Edit", reason));
        assert!(!refusal("Bash", reason), "only an edit or a plan");
        for error in [
            "EACCES: permission denied, open '/etc/hosts'",
            "File has been unexpectedly modified. Read it again before attempting to write it.",
            "<tool_use_error>Settings validation failed after edit</tool_use_error>",
            "Error: something broke",
            "",
        ] {
            assert!(!refusal("Edit", error), "{error}");
        }
    }

    #[test]
    fn protocol_errors_and_quiet_failures_store_nothing_from_the_hook() {
        for error in [
            "File has not been read yet. Read it first before writing to it.",
            "Exit code 1\nlrwxr-xr-x 1 u staff 87 Feb 10 a -> b",
        ] {
            let p = serde_json::json!({"tool_name": "Write", "tool_input": {"file_path": "/a"}, "error": error});
            let p = parse_payload(p.to_string().as_bytes()).unwrap();
            assert!(failure_signal(&p).is_none(), "{error}");
        }
    }

    #[test]
    fn interrupts_and_toolless_payloads_are_not_failures() {
        assert!(failure_signal(
            &parse_payload(
                br#"{"tool_name":"Bash","is_interrupt":true,"error":"error: x failed"}"#
            )
            .unwrap()
        )
        .is_none());
        assert!(
            failure_signal(&parse_payload(br#"{"error":"error: x failed"}"#).unwrap()).is_none()
        );
    }

    #[test]
    fn unknown_tools_use_their_first_string_argument() {
        let input: Value = serde_json::json!({"server": "db", "query": "select 1"});
        assert_eq!(input_summary("mcp__db__run", &input), "db");
        assert_eq!(
            input_summary(
                "Grep",
                &serde_json::json!({"pattern": "fn main", "path": "src"})
            ),
            "fn main in src"
        );
    }
}
