//! The line of an error output that says what went wrong ([`error_line`]): how strongly each
//! line says it, and what is only context around it.

use reflect_base::text::one_line;

use super::{ERROR_LINE_CHARS, MAX_LINES};

/// How strongly a line of output says that something went wrong.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub(super) enum Tier {
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
        .map(as_shown)
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

/// A line as a terminal leaves it: its last text after a carriage return (a progress bar
/// redraws itself with them), past a progress meter, trimmed.
fn as_shown(line: &str) -> &str {
    let last = line.rsplit('\r').map(str::trim).find(|l| !l.is_empty());
    past_progress_meter(last.unwrap_or_default())
}

/// A line past the progress meter curl draws on its error output (eight sizes, three times,
/// the current speed: `0  18  0  0  0  0  0  0 --:--:-- --:--:-- --:--:--  0`), which a
/// message written after it joins (`…--:--:--     0curl: (6) Could not resolve host`): the
/// message, or nothing for a meter alone. Any other line is returned as it is.
fn past_progress_meter(line: &str) -> &str {
    let is_size = |t: &str| {
        let digits = t.trim_end_matches(['k', 'M', 'G', 'T']);
        !digits.is_empty() && digits.bytes().all(|b| b.is_ascii_digit() || b == b'.')
    };
    let is_time = |t: &str| {
        t == "--:--:--"
            || (t.len() >= 7
                && t.bytes().all(|b| b.is_ascii_digit() || b == b':')
                && t.contains(':'))
    };
    let (mut sizes, mut times) = (0, 0);
    let mut rest = line;
    while times < 3 {
        let end = rest.find(char::is_whitespace).unwrap_or(rest.len());
        let token = &rest[..end];
        if sizes < 8 && is_size(token) {
            sizes += 1;
        } else if sizes == 8 && is_time(token) {
            times += 1;
        } else {
            return line;
        }
        rest = rest[end..].trim_start();
    }
    rest.trim_start_matches(|c: char| c.is_ascii_digit() || c == '.')
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
pub(super) fn tier(line: &str) -> Tier {
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
pub(super) fn is_failing_test(line: &str, text: &str) -> bool {
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
