//! What a user message means for future work: a correction of what the assistant just did, a
//! durable convention or preference, an explicit request to remember — or nothing.
//!
//! Two layers. The hand-written rules ([`rules`]) weigh cue phrases with the conversation's
//! structure: a correction needs an assistant action to correct (and counts for more right
//! after the user refused a tool call); only the user's own prose is read, not logs or code
//! they paste below it; a cue inside a question that merely asks ("should we always…?") counts
//! for less than one in an imperative or a statement. Cues are phrases over normalized words
//! (lowercase, apostrophes dropped: "don't" = "dont"), so they match on word boundaries, plus
//! raw substrings for languages written without spaces. The rules were written against the
//! development corpus and alone do not hold on other people; their verdict is one feature of
//! the learned model ([`super::model`]) that makes the decision in
//! [`super::model::Model::classify`], over the features of [`super::features`].
//!
//! One rule stays absolute: a `#` memory shortcut (`<user-memory-input>`) is a remember-request.

use std::sync::LazyLock;

use reflect_store::signal::Kind;
use reflect_transcript::{self as transcript, Event, EventKind};

mod cues;
#[cfg(test)]
mod tests;

use cues::{
    CONVENTION, CONVENTION_CJK, CORRECTION, CORRECTION_CJK, CORRECTION_OPENERS,
    NO_FOLLOWERS_NOT_CORRECTING, PREFERENCE, PREFERENCE_CJK, REMEMBER, REMEMBER_CJK,
};

/// What the assistant did between the previous user message and this one.
#[derive(Debug, Default, Clone, PartialEq)]
pub struct Situation {
    /// Tool calls and text blocks the assistant produced.
    pub actions: usize,
    /// Tool calls among them.
    pub calls: usize,
    /// The user refused one of those tool calls.
    pub rejected: bool,
    /// A call edited or wrote a file.
    pub edited: bool,
    /// A call ran a shell command.
    pub ran: bool,
    /// A call came back with an error.
    pub failed: bool,
    /// The assistant's last text ends with a question.
    pub asked: bool,
}

impl Situation {
    /// Account for one event of the assistant's turn. A user message and a compaction start a
    /// new turn: whoever feeds the events resets the situation then (after classifying the
    /// message), so this ignores them.
    pub fn observe(&mut self, event: &Event) {
        match &event.kind {
            EventKind::AssistantText { text } => {
                self.actions += 1;
                let end = text.trim_end();
                self.asked = end.ends_with('?') || end.ends_with('？');
            }
            EventKind::ToolUse { name, .. } => self.called(name),
            EventKind::ToolResult { is_error, .. } => self.failed |= *is_error,
            EventKind::Rejection { .. } => self.rejected = true,
            EventKind::UserText { .. } | EventKind::CompactBoundary | EventKind::Interrupt => {}
        }
    }

    /// Account for a call of the tool `name` ([`Situation::observe`] of a tool call).
    pub fn called(&mut self, name: &str) {
        self.actions += 1;
        self.calls += 1;
        self.edited |= transcript::edits_a_file(name);
        self.ran |= name == "Bash";
    }
}

/// The classification of one user message.
#[derive(Debug, Clone, PartialEq)]
pub struct Verdict {
    pub kind: Kind,
    pub confidence: u8,
}

/// Cue strengths: a message is a learning moment from [`THRESHOLD`] on.
const STRONG: i32 = 2;
const WEAK: i32 = 1;
const THRESHOLD: i32 = 2;

/// Longest stretch of a message read for cues: the user's words come first, pastes after.
const PROSE_MAX: usize = 600;

/// One user message, its [`prose`] and the prose's [`normalize`]d words, read once for
/// [`super::model::Model::classify`], [`is_praise`] and [`shared_command`].
pub struct Reading<'a> {
    pub text: &'a str,
    pub prose: &'a str,
    pub words: String,
}

impl Reading<'_> {
    pub fn of(text: &str) -> Reading<'_> {
        let prose = prose(text);
        Reading {
            text,
            prose,
            words: normalize(prose),
        }
    }

    /// Whether the user's own words end as a question.
    pub fn asks(&self) -> bool {
        let prose = self.prose.trim_end();
        prose.ends_with('?') || prose.ends_with('？')
    }
}

/// The hand-written rules' reading of a message typed after `situation` (`raw`: its prose
/// lower-cased), one feature of the model.
pub fn rules(read: &Reading, raw: &str, situation: &Situation) -> Option<Verdict> {
    let prose = read.prose;
    let words = read.words.as_str();
    if words.trim().is_empty() {
        return None;
    }
    let after_action = situation.actions > 0;

    let found = scores(words, raw);
    // The checks that only lower a score are skipped for a score already under the threshold:
    // it cannot win either way, and most messages have no cue at all.
    let mut correction = 0;
    if after_action {
        correction = (found[Cue::Correction as usize] + opener(words) + challenge(prose, words))
            .min(2 * STRONG);
        if situation.rejected {
            correction += WEAK;
        }
        if correction >= THRESHOLD && is_hedged_or_for_now(words) {
            // "we may want X instead?", "don't commit yet": a suggestion or a one-off hold.
            correction -= STRONG;
        }
    }
    // Without an action before it there is nothing a correction could correct.
    let mut convention = found[Cue::Convention as usize];
    if convention >= THRESHOLD && describes_behaviour(words) {
        // "the spinner never disappears" reports what happens; it sets no rule.
        convention -= STRONG;
    }
    let preference = found[Cue::Preference as usize];
    let remember = found[Cue::Remember as usize];
    if convention >= THRESHOLD && is_question(prose) && !words.starts_with(" no ") {
        // "Should we always …?" asks; it does not state a rule.
        convention -= WEAK;
    }
    // On a tie the more specific reading wins: a correction of what was just done ("no,
    // remember we deploy with docker") over a remember-request over a personal preference over
    // a general rule (`max_by_key` keeps the last maximum).
    let best = [
        (Kind::Convention, convention),
        (Kind::Preference, preference),
        (Kind::Remember, remember),
        (Kind::Correction, correction),
    ]
    .into_iter()
    .max_by_key(|(_, s)| *s)?;
    if best.1 < THRESHOLD {
        return None;
    }
    let confidence = match best.0 {
        Kind::Correction if is_replacement(words, raw) => 3,
        Kind::Remember => 2,
        _ if best.1 >= 2 * STRONG => 2,
        _ => 1,
    };
    Some(Verdict {
        kind: best.0,
        confidence,
    })
}

/// Every "always"/"never" in the message describes what something does ("it never updates",
/// "always failed") rather than prescribing: the next word is a third-person or past verb.
fn describes_behaviour(words: &str) -> bool {
    let mut found = false;
    for adverb in [" always ", " never "] {
        let mut rest = words;
        while let Some(at) = rest.find(adverb) {
            found = true;
            rest = &rest[at + adverb.len() - 1..];
            let next = rest.split(' ').nth(1).unwrap_or("");
            let descriptive = (next.len() > 3 && next.ends_with('s') && !next.ends_with("ss"))
                || next.ends_with("ed")
                || matches!(
                    next,
                    "was" | "were" | "been" | "had" | "did" | "got" | "is" | "are"
                );
            if !descriptive {
                return false;
            }
        }
    }
    found
}

/// "use X instead of Y", "X, not Y": the user names the right thing and the wrong one.
fn is_replacement(words: &str, raw: &str) -> bool {
    [
        " instead of ",
        " rather than ",
        " statt ",
        " stattdessen ",
        " au lieu de ",
        " en lugar de ",
    ]
    .iter()
    .any(|p| words.contains(p))
        || ["ではなく", "じゃなくて", "代わりに", "而不是"]
            .iter()
            .any(|p| raw.contains(p))
}

/// The kinds of cue tables, in the order of [`Scores`].
#[derive(Clone, Copy)]
enum Cue {
    Correction,
    Convention,
    Preference,
    Remember,
}

/// Every cue phrase of the tables, with the kind and weight of each pattern.
type Cues = crate::cues::Cues<(Cue, i32)>;

fn cues(tables: &[(Cue, &[(&'static str, i32)])]) -> Cues {
    Cues::build(tables.iter().flat_map(|(cue, table)| {
        table
            .iter()
            .map(move |(phrase, weight)| (*phrase, (*cue, *weight)))
    }))
}

static SPACED_CUES: LazyLock<Cues> = LazyLock::new(|| {
    cues(&[
        (Cue::Correction, CORRECTION),
        (Cue::Convention, CONVENTION),
        (Cue::Preference, PREFERENCE),
        (Cue::Remember, REMEMBER),
    ])
});

/// Built only when a message is not all ASCII.
static UNSPACED_CUES: LazyLock<Cues> = LazyLock::new(|| {
    cues(&[
        (Cue::Correction, CORRECTION_CJK),
        (Cue::Convention, CONVENTION_CJK),
        (Cue::Preference, PREFERENCE_CJK),
        (Cue::Remember, REMEMBER_CJK),
    ])
});

/// Cue weight per kind, indexed by [`Cue`].
type Scores = [i32; 4];

/// Sum the weights of the distinct cue phrases found in `words` (normalized) and `raw` (for
/// scripts without spaces). Several cues of one kind do not make a message more than certain.
fn scores(words: &str, raw: &str) -> Scores {
    let mut scores = [0; 4];
    let mut add = |cues: &Cues, hay: &str| {
        let mut seen = vec![false; cues.meta.len()];
        for found in cues.automaton.find_overlapping_iter(hay) {
            let id = found.pattern().as_usize();
            if !std::mem::replace(&mut seen[id], true) {
                let (cue, weight) = cues.meta[id];
                scores[cue as usize] += weight;
            }
        }
    };
    add(&SPACED_CUES, words);
    if !raw.is_ascii() {
        add(&UNSPACED_CUES, raw);
    }
    scores.map(|s| s.min(2 * STRONG))
}

/// Structures that push back on what was just done: "are you (really) sure", a "why …
/// not/didn't" question, "X, not Y", a claim closed by "…, right?".
fn challenge(prose: &str, words: &str) -> i32 {
    let mut weight = 0;
    if let Some(at) = words.find(" are you ") {
        let next: Vec<&str> = words[at + 9..].split(' ').take(3).collect();
        if next.contains(&"sure") || next.contains(&"certain") {
            weight += STRONG;
        }
    }
    let body = words.trim_start();
    let why = [
        "why ",
        "warum ",
        "wieso ",
        "weshalb ",
        "pourquoi ",
        "por qué ",
        "porque ",
    ]
    .iter()
    .any(|w| body.starts_with(w))
        || ["なぜ", "どうして", "为什么"]
            .iter()
            .any(|w| prose.trim_start().starts_with(w));
    let negated = [
        " not ", "nt ", " no ", " never ", " kein", " nicht ", " pas ", " didnt ",
    ]
    .iter()
    .any(|n| words.contains(n))
        || ["ない", "なかった", "没有"]
            .iter()
            .any(|n| prose.contains(n));
    if why && negated {
        weight += STRONG;
    }
    if prose.contains(", not ") || prose.contains(", nicht ") {
        weight += STRONG;
    }
    let tail = words.trim_end();
    if tail.ends_with(" right") && prose.trim_end().ends_with('?') {
        weight += WEAK;
    }
    weight
}

/// A message that only suggests ("maybe", "might", "may want") or holds something for now
/// ("not … yet").
pub(crate) fn is_hedged_or_for_now(words: &str) -> bool {
    [
        " maybe ",
        " might ",
        " may want ",
        " perhaps ",
        " vielleicht ",
        " eventuell ",
        " yet ",
        " for now ",
        " erstmal ",
        " noch nicht ",
    ]
    .iter()
    .any(|h| words.contains(h))
}

fn opener(words: &str) -> i32 {
    let body = words.trim_start();
    let body = ["please ", "pls ", "bitte ", "por favor ", "per favore "]
        .iter()
        .find_map(|p| body.strip_prefix(p))
        .unwrap_or(body);
    for (start, weight) in CORRECTION_OPENERS {
        if let Some(rest) = body.strip_prefix(start) {
            let next = rest.split(' ').next().unwrap_or("");
            if start.starts_with("no") && NO_FOLLOWERS_NOT_CORRECTING.contains(&next) {
                return 0;
            }
            return *weight;
        }
    }
    // A one-word "no" / "stop" / "cancel".
    match body.trim() {
        "no" | "nope" | "stop" | "cancel" | "nein" | "wrong" | "undo" | "revert" => STRONG,
        _ => 0,
    }
}

fn is_question(prose: &str) -> bool {
    let t = prose.trim_end();
    t.ends_with('?') || t.ends_with('？')
}

/// The part of a message the user wrote themselves: up to a code fence or to the colon that
/// introduces a paste ("Getting this:\n…"), at most [`PROSE_MAX`] bytes.
pub fn prose(text: &str) -> &str {
    let mut end = text.len().min(PROSE_MAX);
    while !text.is_char_boundary(end) {
        end -= 1;
    }
    let bytes = &text.as_bytes()[..end];
    // Byte searches find what `str::find` finds; every marker is ASCII, so a match starts on a
    // character boundary. The cut is the earliest marker: no marker can straddle the start of
    // another (a paste marker holds `:` only first, and no backtick), so cutting at each in
    // turn, as this once did, comes to the same.
    let mut cut = memchr::memmem::find(bytes, b"```").unwrap_or(end);
    let fenced = &bytes[..cut];
    for colon in memchr::memchr_iter(b':', fenced) {
        let rest = &fenced[colon..];
        if [&b":\n"[..], b":\\\n", b": \\\n", b":\r\n"]
            .iter()
            .any(|paste| rest.starts_with(paste))
        {
            cut = colon;
            break;
        }
    }
    &text[..cut]
}

/// Lowercase words separated by single spaces, with a space at both ends so phrases match on
/// word boundaries; apostrophes vanish ("don't" → "dont").
pub fn normalize(text: &str) -> String {
    let mut out: Vec<u8> = Vec::with_capacity(text.len() + 2);
    out.push(b' ');
    let bytes = text.as_bytes();
    let mut at = 0;
    while at < bytes.len() {
        let b = bytes[at];
        // Most text is ASCII: a byte at a time, its letters lower-cased without a table look-up.
        if b.is_ascii() {
            at += 1;
            if b.is_ascii_alphanumeric() {
                out.push(b.to_ascii_lowercase());
            } else if b != b'\'' && b != b'`' && out.last() != Some(&b' ') {
                out.push(b' ');
            }
            continue;
        }
        let c = text[at..].chars().next().expect("a character starts here");
        at += c.len_utf8();
        if c == '’' {
            continue;
        }
        if c.is_alphanumeric() {
            for lower in c.to_lowercase() {
                out.extend_from_slice(lower.encode_utf8(&mut [0; 4]).as_bytes());
            }
        } else if out.last() != Some(&b' ') {
            out.push(b' ');
        }
    }
    if out.last() != Some(&b' ') {
        out.push(b' ');
    }
    String::from_utf8(out).expect("whole characters of a str")
}

/// Words of approval that open a message ("Great, that works").
const PRAISE_OPENERS: &[&str] = &[
    "great",
    "perfect",
    "excellent",
    "awesome",
    "nice",
    "good job",
    "well done",
    "exactly",
    "that works",
    "works now",
    "it works",
    "love it",
    "brilliant",
    "amazing",
    "super",
    "genau",
    "perfekt",
    "sehr gut",
    "klasse",
    "toll",
    "prima",
    "parfait",
    "genial",
    "perfecto",
];
const PRAISE_CJK: &[&str] = &["完璧", "素晴らしい", "いいね", "ばっちり", "完美", "太好了"];

/// Praise for what the assistant just did, without a "but".
pub(crate) fn is_praise(read: &Reading) -> bool {
    let prose = read.prose;
    let words = read.words.as_str();
    let body = words.trim_start();
    let opens = PRAISE_OPENERS.iter().any(|p| {
        body.strip_prefix(p)
            .is_some_and(|rest| rest.is_empty() || rest.starts_with(' '))
    }) || PRAISE_CJK.iter().any(|p| prose.trim_start().starts_with(p));
    opens && !words.contains(" but ") && !words.contains(" aber ") && !words.contains(" still ")
}

/// Whether a message opens by asking to remember something ("Remember that the staging
/// database listens on 5433", "Please remember to use pnpm", "Keep in mind …"), after at most a
/// couple of filler words: a remember-request whatever follows. (`words` as [`normalize`]
/// writes them.) A "remember" later in a sentence ("I don't remember why") asks nothing.
pub fn asks_to_remember(words: &str) -> bool {
    const FILLERS: &[&str] = &[
        "please", "also", "and", "oh", "btw", "ok", "okay", "so", "pls",
    ];
    const OPENERS: &[&str] = &[
        "remember that ",
        "remember to ",
        "remember ",
        "keep in mind ",
        "dont forget ",
        "do not forget ",
        "never forget ",
    ];
    let mut rest = words.trim_start();
    for _ in 0..2 {
        match FILLERS.iter().find(|f| {
            rest.strip_prefix(**f)
                .is_some_and(|after| after.starts_with(' '))
        }) {
            Some(f) => rest = rest[f.len()..].trim_start(),
            None => break,
        }
    }
    // "remember when …" and "remember?" recall; they do not ask to keep anything.
    OPENERS.iter().any(|o| rest.starts_with(o))
        && !rest.starts_with("remember when ")
        && rest.split(' ').filter(|w| !w.is_empty()).count() >= 4
}

/// Messages that are no instruction whatever their words (they would read as one):
/// * a paste of program output (a stack trace, a log) from its first line on, "No …" or not;
/// * a short pick of an option the assistant offered ("No Just do #1", "option 2");
/// * a pasted document (a prompt template, a spec): many lines under several headings, opening
///   with its title;
/// * another hook's message ([`is_hook_message`]).
pub fn not_an_instruction(read: &Reading) -> bool {
    let text = read.text.trim();
    if is_hook_message(text) {
        return true;
    }
    let few_words = read
        .words
        .split(' ')
        .filter(|w| !w.is_empty())
        .nth(6)
        .is_none();
    let picks = few_words
        && text.split_whitespace().any(|w| {
            let w = w.trim_matches(|c: char| matches!(c, '.' | ',' | '!' | ')' | '('));
            w.strip_prefix('#')
                .is_some_and(|n| !n.is_empty() && n.bytes().all(|b| b.is_ascii_digit()))
        });
    // A paste or a document has lines; most messages have one or two.
    if picks || memchr::memchr_iter(b'\n', text.as_bytes()).nth(1).is_none() {
        return picks;
    }
    let lines: Vec<&str> = text
        .lines()
        .map(str::trim)
        .filter(|l| !l.is_empty())
        .collect();
    // The paste starts at the first line: it says what went wrong, or a stack frame follows it
    // ("No, try harder:" and a log below it is the user's words first).
    let first_is_output = lines.first().is_some_and(|first| {
        crate::failure::error_line(first).is_some()
            || lines
                .get(1)
                .is_some_and(|l| l.starts_with("at ") || l.starts_with("File \""))
    });
    let output = lines.len() >= 3 && first_is_output && {
        let frames = lines
            .iter()
            .filter(|l| {
                l.starts_with("at ")
                    || l.starts_with("File \"")
                    || l.starts_with("Traceback")
                    || l.contains("Error: ")
                    || l.contains("Exception")
            })
            .count();
        frames * 3 >= lines.len()
    };
    // A markdown heading: `#` to `######`, a space, a word (not a `# ====` comment rule).
    let heading = |l: &str| {
        let title = l.trim_start_matches('#');
        (1..=6).contains(&(l.len() - title.len()))
            && title.starts_with(' ')
            && title.trim_start().starts_with(char::is_alphanumeric)
    };
    let headings = lines.iter().filter(|l| heading(l)).count();
    // It opens with its title: the user's own words before a paste are not part of it.
    let document = lines.len() >= 15 && headings >= 3 && lines.first().is_some_and(|l| heading(l));
    output || document
}

/// Another hook's message, which Claude Code shows where the user's words or a refusal's
/// reason would be (`BLOCKED: …` from a PreToolUse hook, a Stop hook's feedback).
pub fn is_hook_message(text: &str) -> bool {
    let text = text.trim_start();
    [
        "BLOCKED",
        "PreToolUse",
        "PostToolUse",
        "Stop hook feedback",
        "Blocked by hook",
    ]
    .iter()
    .any(|p| text.starts_with(p))
        || text
            .lines()
            .next()
            .is_some_and(|l| l.contains("hook error:"))
}

/// A command the user shares for the assistant to run: bash mode (`!cmd`), or an imperative
/// "run `…`" / "use `…`" naming it in backticks. Not a command: one the user ran in bash mode
/// that only looks (`pwd`, `ls`, `git status`), nor a tool's hint in a pasted log ("(Use `node
/// --trace-deprecation …` to show where the warning was created)").
pub(crate) fn shared_command(read: &Reading) -> Option<String> {
    if let Some(rest) = read.text.trim().strip_prefix("<bash-input>") {
        let cmd = rest.split("</bash-input>").next().unwrap_or("").trim();
        let job = super::episode::Job::of("Bash", cmd);
        let looks = job.only_looks() || !cmd.contains(' ') || chore(&job);
        return (!cmd.is_empty() && !looks).then(|| cmd.to_string());
    }
    let prose = read.prose;
    // Every verb below ends in a backtick.
    memchr::memchr(b'`', prose.as_bytes())?;
    let lower = prose.to_lowercase();
    for verb in ["run `", "use `", "execute `", "try `", "with `"] {
        if let Some(at) = lower.find(verb) {
            let start = at + verb.len();
            let end = prose[start..].find('`')? + start;
            let cmd = prose[start..end].trim();
            let line_start = lower[..at].rfind('\n').map_or(0, |n| n + 1);
            let line_end = lower[at..].find('\n').map_or(lower.len(), |n| at + n);
            let line = &lower[line_start..line_end];
            // A tool's own hint, quoted in a pasted log.
            let hint = lower[..at].ends_with('(')
                || line.contains("to show where")
                || line.contains("deprecat")
                || line.trim_start().starts_with("(node:")
                || line.trim_start().starts_with("npm ");
            if hint {
                continue;
            }
            // A command has a program and an argument, and is not a bare file name.
            if cmd.contains(' ') && cmd.len() <= 200 && !cmd.contains('\n') {
                return Some(cmd.to_string());
            }
        }
    }
    None
}

/// What a user runs in bash mode for their own housekeeping (moving about, opening an editor,
/// committing and pushing): it shows what they did, not a command the project needs.
fn chore(job: &super::episode::Job) -> bool {
    const PROGRAMS: &[&str] = &[
        "cd", "pushd", "popd", "clear", "exit", "logout", "open", "xdg-open", "code", "cursor",
        "vim", "nvim", "vi", "nano", "emacs", "ll", "la", "history", "source", "export", "alias",
        "kill", "pkill", "top", "htop", "man", "claude", "mkdir", "touch", "cp", "mv", "rm",
    ];
    const GIT: &[&str] = &[
        "add",
        "commit",
        "push",
        "pull",
        "checkout",
        "switch",
        "stash",
        "fetch",
        "merge",
        "rebase",
        "clone",
        "ls-files",
        "submodule",
        "reset",
        "restore",
        "tag",
        "config",
        "init",
        "rm",
        "mv",
    ];
    let program = job.program();
    PROGRAMS.contains(&program) || (program == "git" && GIT.contains(&job.subject()))
}
