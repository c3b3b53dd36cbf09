//! What of a prompt the user pasted rather than wrote ([`pasted_lines`]), never the excerpt when
//! the prompt has a sentence of the user's own (see the parent module): the lines of a fenced
//! block, quoted lines (`>`), table rows, lines that read as code, a log or a trace (a stack frame,
//! a timestamp or log level first, a line ending as code does (`;`, `{`, `},`, …), one dense with
//! code's symbols), a log's line whose timestamp follows its tags (`[I 2026-…]`) or led by a level
//! in brackets in any case or a Unix time (`[Warning]`, `[1750000000.1]`), a terminal's (a shell's
//! prompt and what ran up to the next one, or after the last one up to a blank line or the user's
//! words, its banner, tree and box glyphs, a spinner's frames; a box's sides only frame what is
//! judged, but a box copied beside words the user typed outside it is paste, [`copied_box`]), a
//! bare path, a tool's version line, a program's output that reads like prose (a package manager's
//! `npm warn` lines, a login banner's update notice, `systemctl status` and journal lines, a
//! compiler's, a linter's or a browser console's line led by a place in a source file and the
//! console's stack frames `f @ app.js:10`, a status glyph's line `●` and Claude Code's own steps
//! `Bash(…)`; each its own small rule, kept narrow so a sentence of the user's with the same words
//! stays theirs), runs of three or more lines indented as code is, the lines a terminal wrapped a
//! pasted line onto where it split a word too long for a line ([`wrapped_paste`]), a few lines of
//! words with pasted lines right above and below them (a comment in a pasted file), the blocks an
//! IDE attaches (`<context ref="…">`, `<attached_files>`, `<ide_selection>`: [`ATTACHED`]),
//! whatever their lines say, a chat's thread copied from Slack, Discord, Teams or WhatsApp (its
//! messages between the lines that head them with an author and a time: [`threads`]), Claude Code's
//! own text from a pasted transcript or export (its words to the model: a rejected tool call, an
//! interruption, a summary's start, [`CLAUDE_HARNESS`]; its reminder and command blocks; its
//! terminal's answers with the lines indented under them; `Human:`/`Assistant:` turns and an IDE's
//! `IN`/`OUT` tool calls), a Markdown document (a README's section, a spec, a plan another model
//! wrote) from its first heading on, after a line that hands it over or none ([`pasted_document`];
//! a structured request in the user's own voice stays theirs), and lines the assistant had just
//! written (its answer quoted back: "can you check this?" and its own lines, found by their letters
//! and digits, so a terminal's wrapping and Markdown's marks do not hide them), or a sentence of it
//! after the user's words on their line ([`super::pieces`]). A line where the user typed a few
//! words and pasted a log or a document right after them is split where the paste begins
//! ([`split_lines`]; a shell's prompt naming its host and directory too, [`prompt_inside`]).

use std::collections::HashSet;

use super::lines::{
    host_path_prompt, is_number, key_value, reads_as_code_or_log, shell_prompt, status_step,
    tagged_log, terminal_glyph, BOX_SIDES, MONTHS,
};

/// The shortest start of a pasted line that, found inside the line above, shows where the user's
/// words end and the paste begins on that line.
const SHARED_START: usize = 8;

/// The lines of `text`, a line split in two where a paste begins inside it: the user typed a
/// few words and pasted a log right after them, so the line holds the start of a log line like
/// the one below it (found by its first [`SHARED_START`] characters, which hold a digit or a
/// symbol), a spinner's glyph a terminal prints before its output ([`terminal_glyph`]), a
/// log's line led by a tag ([`tagged_log`]), or on the first line a document's heading
/// ([`glued_heading`]).
pub(super) fn split_lines(text: &str) -> Vec<&str> {
    let lines: Vec<&str> = text.lines().collect();
    let mut out = Vec::with_capacity(lines.len());
    let first = lines.iter().position(|l| !l.trim().is_empty());
    for (i, &line) in lines.iter().enumerate() {
        let next = lines.get(i + 1).map_or("", |l| l.trim_start());
        let start: String = next.chars().take(SHARED_START).collect();
        let by_next = (start.chars().count() == SHARED_START
            && start.chars().any(|c| !c.is_alphabetic() && c != ' ')
            && reads_as_code_or_log(next))
        .then(|| line.find(start.as_str()))
        .flatten();
        let by_glyph = line.find(terminal_glyph).or_else(|| status_step(line));
        let by_tag = tagged_log(line);
        let by_prompt = prompt_inside(line);
        let by_heading = (Some(i) == first)
            .then(|| glued_heading(line, &lines[i + 1..]))
            .flatten();
        let cut = [by_next, by_glyph, by_tag, by_heading, by_prompt]
            .into_iter()
            .flatten()
            .filter(|&at| line[..at].chars().any(char::is_alphabetic))
            .min();
        match cut {
            Some(at) => out.extend([&line[..at], &line[at..]]),
            None => out.push(line),
        }
    }
    out
}

/// Where a shell's prompt and its command begin inside a line of words, as a terminal's copy
/// joins them to what the user typed before it: `am I in the right groups? box:~/app> id`.
/// Only a prompt that names its host and directory (`box:~/app>`, `dev@box:~/app$`): a bare `$`
/// or `%` is as often a word of prose.
pub(super) fn prompt_inside(line: &str) -> Option<usize> {
    line.match_indices(' ').map(|(at, _)| at + 1).find(|&at| {
        let rest = &line[at..];
        let word = rest.split_whitespace().next().unwrap_or("");
        let named = host_path_prompt(word)
            || (word.contains('@') && word.contains(':') && word.ends_with(['$', '#']));
        named && shell_prompt(rest)
    })
}

/// Lines indented this much (or by a tab) are code when [`INDENTED_RUN`] of them follow each
/// other.
const CODE_INDENT: &str = "    ";
const INDENTED_RUN: usize = 3;
/// Lines of words between pasted lines, with no blank line around them, are taken as part of
/// the paste when there are at most this many.
const SANDWICH_MAX: usize = 3;

/// The blocks an IDE attaches to a prompt (the file open, the selection, files picked as
/// context), by tag name: Claude Code's own integrations, and the ones seen in typed prompts of
/// other tools' (`<context ref="file://…">`, `<attached_files>`).
const ATTACHED: &[&str] = &[
    "ide_selection",
    "ide_opened_file",
    "ide_diagnostics",
    "context",
    "attached_files",
];
/// The blocks Claude Code itself wraps around text it adds to a conversation, by tag name: its
/// reminders to the model and a slash command's name and output. In a prompt they come from a
/// transcript the user pasted; handled as [`ATTACHED`] blocks are.
const HARNESS_BLOCKS: &[&str] = &[
    "system-reminder",
    "command-name",
    "command-message",
    "command-args",
    "local-command-stdout",
    "local-command-stderr",
];
/// Claude Code's own words to the model, which only a pasted transcript or export puts inside
/// a prompt: a tool call the user turned down, an interruption, the caveat before a local
/// command's output and the start of a compacted session's summary. Each long and worded as
/// only the harness words it, so a user's sentence about them ("the tool use was rejected
/// again") stays theirs.
const CLAUDE_HARNESS: &[&str] = &[
    "The user doesn't want to proceed with this tool use.",
    "The tool use was rejected (eg. if it was a file edit",
    "[Request interrupted by user",
    "Caveat: The messages below were generated by the user while running local commands",
    "This session is being continued from a previous conversation",
];
/// A line quoted back from the assistant's words has at least this many letters and digits: a
/// shorter one ("ok", "yes, do it") is as likely the user's own.
pub(super) const QUOTE_MIN: usize = 24;

/// For each line, whether it was pasted rather than written by the user (see the module doc).
/// `said`: what the assistant wrote just before.
pub fn pasted_lines(lines: &[&str], said: &str) -> Vec<bool> {
    let mut pasted = vec![false; lines.len()];
    let mut fence: Option<char> = None;
    // The attached block open, by its closing tag; where the text was cut (`head_and_tail`).
    let mut attached: Option<String> = None;
    let mut gap: Option<usize> = None;
    for (i, line) in lines.iter().enumerate() {
        let t = line.trim_start();
        if t.trim_end() == GAP.trim() {
            // The cut's gap ends a block whose end was left out.
            attached = None;
            gap = Some(i);
        }
        if let Some(close) = &attached {
            pasted[i] = true;
            if t.contains(close.as_str()) {
                attached = None;
            }
            continue;
        }
        if let Some(close) = opens_attached(t) {
            pasted[i] = true;
            if !t.contains(close.as_str()) {
                attached = Some(close);
            }
            continue;
        }
        // The end of a block whose start was left out by the cut.
        if let Some(g) = gap.filter(|_| closes_attached(t)) {
            pasted[g + 1..=i].iter_mut().for_each(|p| *p = true);
            fence = None;
            continue;
        }
        let opens = ["```", "~~~"].iter().find(|f| t.starts_with(**f));
        if let Some(f) = fence {
            pasted[i] = true;
            if t.starts_with(if f == '`' { "```" } else { "~~~" }) {
                fence = None;
            }
            continue;
        }
        if let Some(f) = opens {
            fence = f.chars().next();
            pasted[i] = true;
            continue;
        }
        let framed = t.trim_matches(|c: char| c.is_whitespace() || BOX_SIDES.contains(c));
        pasted[i] = t.starts_with('>')
            || t.starts_with('|')
            || reads_as_code_or_log(framed)
            || key_value(line)
            || CLAUDE_HARNESS.iter().any(|h| t.contains(h));
    }
    // Runs of lines indented as code.
    let indented = |l: &str| l.starts_with('\t') || l.starts_with(CODE_INDENT);
    let mut i = 0;
    while i < lines.len() {
        let run = lines[i..]
            .iter()
            .take_while(|l| indented(l) && !l.trim().is_empty())
            .count();
        if run >= INDENTED_RUN {
            pasted[i..i + run].iter_mut().for_each(|p| *p = true);
        }
        i += run.max(1);
    }
    // A command's output: the lines between two of a shell's prompts.
    let prompts: Vec<usize> = (0..lines.len())
        .filter(|&k| shell_prompt(lines[k].trim_start()))
        .collect();
    for pair in prompts.windows(2) {
        pasted[pair[0]..pair[1]].iter_mut().for_each(|p| *p = true);
    }
    // And the last one's command and the output below it, up to a blank line or a line that
    // may be the user's (they may type right after what they pasted, on the same line): one
    // that speaks as the user, or holds letters of a language [`speaks`] does not read.
    if let Some(&last) = prompts.last() {
        pasted[last] = true;
        let maybe_theirs =
            |l: &str| speaks(l) || l.chars().any(|c| c.is_alphabetic() && !c.is_ascii());
        for k in last + 1..lines.len() {
            if lines[k].trim().is_empty() || maybe_theirs(lines[k]) {
                break;
            }
            pasted[k] = true;
        }
    }
    claude_answers(lines, &mut pasted);
    threads(lines, &mut pasted);
    pasted_document(lines, &mut pasted);
    wrapped_paste(lines, &mut pasted);
    copied_box(lines, &mut pasted);
    // A few lines of words inside a paste, no blank line between; or any number that start
    // with a glyph (a program's status line: `✅ done`, `📊 3 trades`).
    let glyph_first = |k: usize| {
        lines[k]
            .trim_start()
            .chars()
            .next()
            .is_some_and(|c| !c.is_alphanumeric() && !c.is_ascii())
    };
    let blank = |k: usize| lines[k].trim().is_empty();
    let mut i = 0;
    while i < lines.len() {
        if pasted[i] || blank(i) {
            i += 1;
            continue;
        }
        let run = (i..lines.len())
            .take_while(|&k| !pasted[k] && !blank(k))
            .count();
        let above = i > 0 && pasted[i - 1] && !blank(i - 1);
        let below = i + run < lines.len() && pasted[i + run];
        if above && below && (run <= SANDWICH_MAX || (i..i + run).all(glyph_first)) {
            pasted[i..i + run].iter_mut().for_each(|p| *p = true);
        }
        i += run;
    }
    quoted_back(lines, said, &mut pasted);
    pasted
}

/// The closing tag of the attached block the line `t` opens (`<context ref="…">` opens
/// `</context>`).
fn opens_attached(t: &str) -> Option<String> {
    let name = t.strip_prefix('<')?;
    ATTACHED.iter().chain(HARNESS_BLOCKS).find_map(|tag| {
        let rest = name.strip_prefix(tag)?;
        rest.starts_with(['>', ' ', '\t'])
            .then(|| format!("</{tag}>"))
    })
}

/// Whether the line `t` holds the closing tag of an attached block.
fn closes_attached(t: &str) -> bool {
    ATTACHED
        .iter()
        .chain(HARNESS_BLOCKS)
        .any(|tag| t.contains(&format!("</{tag}>")))
}

/// Marks Claude Code's terminal copied into a prompt: an answer or a step, led by its glyph
/// (`⏺`; `●` where a step's output `⎿` shows it is Claude Code's, not a list's bullet) at a
/// line's start, and the lines under it its terminal indents by two spaces (the answer's other
/// lines, a step's output); in a copy that holds one, the user's earlier prompts too, `>` or
/// `❯` first, with their indented lines. The cut's gap ([`super::head_and_tail`])
/// and the piece of a line right after it end no block: what follows is still the terminal's.
fn claude_answers(lines: &[&str], pasted: &mut [bool]) {
    let steps = lines.iter().any(|l| l.contains('⎿'));
    let answer = |l: &str| l.starts_with('⏺') || steps && l.starts_with('●');
    if !lines.iter().any(|l| answer(l)) {
        return;
    }
    let gap = |k: usize| lines[k] == GAP.trim();
    let mut block = false;
    for (i, line) in lines.iter().enumerate() {
        if answer(line) || line.starts_with("> ") || line.starts_with("❯ ") {
            block = true;
        } else if !(line.trim().is_empty()
            || line.starts_with("  ")
            || gap(i)
            || i > 0 && gap(i - 1))
        {
            block = false;
        }
        pasted[i] |= block;
    }
}

/// The narrowest a terminal is taken to wrap at: a block of lines narrower was not wrapped.
const WRAP_MIN: usize = 40;

/// Marks the lines a terminal wrapped off a pasted line, as a copy of its screen holds them
/// (Claude Code's indents each by two spaces): a log's record too long for a line goes on
/// below it in words that read as prose. The wrap width is the widest line of the block (no
/// blank line between, at least [`WRAP_MIN`]); the lines of a wrap all start as far in (a
/// prompt's `> ` as its two spaces). A record is known wrapped where the terminal broke a word
/// too long for any line ([`split_word`]); from there each line goes on with it while the line
/// above was full: the first word of the next would not have fitted on it.
/// A line that speaks as the user ([`speaks`]) stays theirs and ends the record: they may type
/// right after what they pasted, on the same line.
fn wrapped_paste(lines: &[&str], pasted: &mut [bool]) {
    let width = |l: &str| l.trim_end().chars().count();
    let lead = |l: &str| {
        l.chars()
            .take_while(|&c| c == ' ' || c == '>' || c == '❯')
            .count()
    };
    let mut wrap = vec![0; lines.len()];
    let mut start = 0;
    for end in 0..=lines.len() {
        if end == lines.len() || lines[end].trim().is_empty() {
            let widest = lines[start..end].iter().map(|l| width(l)).max();
            wrap[start..end].fill(widest.unwrap_or(0));
            start = end + 1;
        }
    }
    let mut record = false;
    for i in 1..lines.len() {
        let (above, line) = (lines[i - 1], lines[i]);
        let word = line.split_whitespace().next().unwrap_or("");
        let full = || width(above) + 1 + word.chars().count() > wrap[i];
        record = pasted[i - 1]
            && !word.is_empty()
            && wrap[i] >= WRAP_MIN
            && lead(above) == lead(line)
            && (split_word(above, line, wrap[i]) || record && full())
            && !speaks(line);
        pasted[i] |= record;
    }
}

/// A terminal's box copied beside words the user typed outside it: its framed lines (a line
/// led or ended by a box's side, [`BOX_SIDES`]) are paste. The user types a prompt unframed; a
/// box comes from a copy of the screen (a command Claude Code asked to run, a dialog, a tool's
/// output). A prompt that is all framed stays judged by what it frames: that copy may be of the
/// user's own prompt in Claude Code's input box, often begun inside it (a first line that only
/// ends with a side).
fn copied_box(lines: &[&str], pasted: &mut [bool]) {
    let side = |c| BOX_SIDES.contains(c);
    let framed = |l: &str| l.trim_start().starts_with(side) || l.trim_end().ends_with(side);
    let typed_outside = (0..lines.len())
        .any(|k| !pasted[k] && !framed(lines[k]) && lines[k].chars().any(char::is_alphanumeric));
    if typed_outside {
        (0..lines.len())
            .filter(|&k| framed(lines[k]))
            .for_each(|k| pasted[k] = true);
    }
}

/// Whether a terminal wrapping at `wrap` columns broke a word across `above` and `line`: the
/// word is longer than a line holds, `above` fills the width to its last character, and the
/// word goes on with a digit or a symbol, not a new word's letters (`…[build.sh:1` /
/// `482:install_category]`).
fn split_word(above: &str, line: &str, wrap: usize) -> bool {
    let rest = line.trim_start();
    let indent = line.chars().count() - rest.chars().count();
    let head = above.rsplit(char::is_whitespace).next().unwrap_or("");
    let tail = rest.split_whitespace().next().unwrap_or("");
    above.chars().count() == wrap
        && tail
            .trim_end_matches(['.', ',', ';', ':', '!', '?'])
            .chars()
            .any(|c| !c.is_alphabetic())
        && head.chars().count() + tail.chars().count() > wrap.saturating_sub(indent)
}

/// Whether the line `t` holds words its writer says, anywhere in it: the first person, a
/// question or a rule's word ([`DIRECTIVES`]).
fn speaks(t: &str) -> bool {
    let lower = t.to_lowercase();
    first_person(t) || t.contains('?') || DIRECTIVES.iter().any(|d| lower.contains(d))
}

/// The time a chat app heads a message with: a clock (`9:14`, `12:37 PM`), after a day
/// (`Today at`, `Yesterday at`, `Monday at`, `Jun 10th at`) or a date (`03/03/2031`,
/// `3/3/31,`); `dated` when it names a day or a date, not the clock alone.
fn chat_time(t: &str) -> Option<bool> {
    let words: Vec<&str> = t.split_whitespace().collect();
    let (clock, day) = match words.as_slice() {
        [rest @ .., c, ampm] if ["AM", "PM", "am", "pm"].contains(ampm) => (*c, rest),
        [rest @ .., c] => (*c, rest),
        [] => return None,
    };
    let (h, m) = clock.split_once(':')?;
    let m = m.split(':').next().unwrap_or(m);
    if !(is_number(h) && h.len() <= 2 && is_number(m) && m.len() == 2) {
        return None;
    }
    const DAYS: [&str; 9] = [
        "Today",
        "Yesterday",
        "Monday",
        "Tuesday",
        "Wednesday",
        "Thursday",
        "Friday",
        "Saturday",
        "Sunday",
    ];
    let dated = match day {
        [] => false,
        [date] => {
            let date = date.trim_end_matches(',');
            date.split('/').count() == 3 && date.split('/').all(is_number)
        }
        [first, .., "at"] => DAYS.contains(first) || MONTHS.iter().any(|m| first.starts_with(m)),
        _ => return None,
    };
    (dated || day.is_empty()).then_some(dated)
}

/// A line that heads a message in a chat app's copy of a thread: the author's name and the
/// time, apart (`Dana Whitfield  Jun 10th at 9:14 AM`, Slack; `Dana — Today at 3:04 PM`,
/// Discord), the time alone under the name or for a reply, or the time first in brackets and
/// the author before a colon (`[10:32] Dana: …`, Teams; `[03/03/2031, 10:32:07] Dana: …`,
/// WhatsApp). `Some(true)` when it names a day, a date or an author: one of those, not a bare
/// clock, starts a thread. Not the user's "Standup Today at 9:30 AM": one space apart.
fn chat_header(t: &str) -> Option<bool> {
    let t = t.trim();
    if let Some(rest) = t.strip_prefix('[') {
        let (time, after) = rest.split_once("] ")?;
        let (author, _) = after.split_once(": ")?;
        return (chat_time(time).is_some() && author.split_whitespace().count() <= 4)
            .then_some(true);
    }
    if let Some(dated) = chat_time(t) {
        return Some(dated);
    }
    let (author, time) = [" — ", " – ", " - ", "  "]
        .iter()
        .find_map(|sep| t.split_once(sep))?;
    let words = author.split_whitespace().count();
    ((1..=4).contains(&words)
        && !author.ends_with(['.', ',', ':', '?', '!'])
        && chat_time(time.trim()).is_some())
    .then_some(true)
}

/// A line that opens a turn in a transcript's export: `Human:` and `Assistant:`, or the `IN`
/// and `OUT` of a tool call as an IDE's panel copies them.
fn turn_header(t: &str) -> bool {
    t.starts_with("Human:") || t.starts_with("Assistant:") || matches!(t.trim_end(), "IN" | "OUT")
}

/// Marks a thread pasted into a prompt, a chat's ([`chat_header`]) or a transcript's
/// ([`turn_header`]), once it has two headers of a day, a date, an author or a turn: from its
/// first header (and an author's name on the line above it) to its last, and the last
/// message's lines up to a blank line, with the blocks right after it that open with a paste
/// (its code). What the user writes after a blank line stays theirs.
fn threads(lines: &[&str], pasted: &mut [bool]) {
    let headers: Vec<(usize, bool)> = lines
        .iter()
        .enumerate()
        .filter_map(|(i, l)| {
            let t = l.trim_start();
            if turn_header(t) {
                return Some((i, true));
            }
            chat_header(t).map(|named| (i, named))
        })
        .collect();
    let mut named = headers.iter().filter(|(_, n)| *n).map(|(i, _)| *i);
    let (Some(first), Some(_)) = (named.next(), named.next()) else {
        return;
    };
    let last = headers.last().map_or(first, |(i, _)| *i);
    let blank = |k: usize| lines[k].trim().is_empty();
    // The author's name above a time on its own line: a few words, no sentence's marks.
    let mut start = first;
    let name = |k: usize| {
        let t = lines[k].trim();
        !t.is_empty() && t.split_whitespace().count() <= 4 && !t.contains(['.', ',', ':', '?', '!'])
    };
    if chat_time(lines[first].trim()).is_some() && first > 0 && name(first - 1) {
        start = first - 1;
    }
    let mut end = last + 1;
    loop {
        while end < lines.len() && !blank(end) {
            end += 1;
        }
        let next = (end..lines.len()).find(|&k| !blank(k));
        match next {
            Some(k) if pasted[k] => end = k,
            _ => break,
        }
    }
    pasted[start..end].iter_mut().for_each(|p| *p = true);
}

/// A pasted document has at least this many headings ([`heading`]) and non-blank lines, when
/// no words of the user's hand it over.
const DOC_HEADINGS: usize = 3;
const DOC_LINES: usize = 20;
/// A document handed over ("add this to the README:", [`hands_over`]) has at least this many
/// non-blank lines.
const HANDED_LINES: usize = 8;
/// The user's own lines before a pasted document: a lead-in of at most this many.
const LEAD_IN_MAX: usize = 2;
/// A line of a document's prose has at least this many words.
const PROSE_WORDS: usize = 10;

/// A Markdown heading at a line's start: `#` to `######`, a space and a title with a letter
/// (`## Installation`, `## 🎯 Goals`); not a comment's rule (`# ====`).
fn heading(line: &str) -> bool {
    let title = line.trim_start_matches('#');
    (1..=6).contains(&(line.len() - title.len()))
        && title.starts_with(' ')
        && title
            .trim_start()
            .starts_with(|c: char| !matches!(c, '#' | '=' | '-'))
        && title.chars().any(char::is_alphabetic)
}

/// Where a document pasted onto the end of the user's first line begins: a heading after their
/// words ("use this spec: # Sync service"), a document's worth of lines and headings below it.
/// Not "put it under the ## Usage section": nothing follows it.
fn glued_heading(line: &str, below: &[&str]) -> Option<usize> {
    let at = line
        .match_indices('#')
        .map(|(at, _)| at)
        .find(|&at| line[..at].ends_with([' ', '"', '“']) && heading(&line[at..]))?;
    let headings = below.iter().filter(|l| heading(l)).count();
    let filled = below.iter().filter(|l| !l.trim().is_empty()).count();
    (headings + 1 >= DOC_HEADINGS && filled >= HANDED_LINES).then_some(at)
}

/// Words that hand what follows over as something to use, not the user's own: "add this to the
/// README", "here is the plan", "use the following spec", or a line ending in a colon.
const HAND_OVER: &[&str] = &[
    "here is",
    "here's",
    "heres",
    "add this",
    "add to",
    "use this",
    "following",
    "below",
    "this is the",
    "readme",
    "spec",
    "plan",
    "document",
];

/// Whether the user's line `t` hands over the document below it ([`HAND_OVER`]); not when it
/// speaks in the first person ("here is what I want:"): that brings their own words.
fn hands_over(t: &str) -> bool {
    let lower = t.trim().to_lowercase();
    (lower.ends_with(':') || HAND_OVER.iter().any(|w| lower.contains(w))) && !first_person(t)
}

/// Words the user says to the assistant first on a line: a rule or a request.
const DIRECTIVES: &[&str] = &[
    "never",
    "always",
    "don't",
    "dont",
    "do not",
    "please",
    "make sure",
    "you must",
    "you should",
    "remember",
];

/// Whether the line `t` speaks as its writer: "I", "me", "my".
fn first_person(t: &str) -> bool {
    t.split(|c: char| !c.is_alphanumeric() && c != '\'')
        .any(|w| {
            matches!(
                w,
                "I" | "i" | "I'm" | "I've" | "I'd" | "I'll" | "me" | "my" | "My"
            )
        })
}

/// Whether the line `t` is in the user's own voice: in the first person ([`first_person`]), or
/// opening (past a list's mark) with a rule or a request ([`DIRECTIVES`]).
fn users_voice(t: &str) -> bool {
    let opening = t
        .trim_start()
        .trim_start_matches(|c: char| c.is_ascii_digit() || "-*+.) #".contains(c))
        .to_lowercase();
    first_person(t) || DIRECTIVES.iter().any(|d| opening.starts_with(d))
}

/// Marks a Markdown document pasted into a prompt (a README's section, a spec, a plan another
/// model wrote, an issue's body): from its first heading to its end (from its opening when it is
/// another model's answer, "Of course! …": [`opens_as_reply`]), when at most a lead-in
/// ([`LEAD_IN_MAX`] lines) of the user's comes before it, and the document reads as one: handed
/// over ([`hands_over`]) and [`HANDED_LINES`] long, or [`DOC_HEADINGS`] headings and
/// [`DOC_LINES`] lines without it; with two lines of prose ([`PROSE_WORDS`]), and few of its
/// lines in the user's voice ([`users_voice`]: under a fifth when handed over, a twentieth
/// without).
/// A user types structured prompts too ("## What I want", "- never push to main"): those
/// speak as the user and stay theirs. A last short paragraph in the user's voice or asking a
/// question stays theirs too.
fn pasted_document(lines: &[&str], pasted: &mut [bool]) {
    let blank = |k: usize| lines[k].trim().is_empty();
    let Some(start) = (0..lines.len()).find(|&k| !pasted[k] && heading(lines[k])) else {
        return;
    };
    let mut lead: Vec<usize> = (0..start).filter(|&k| !pasted[k] && !blank(k)).collect();
    // Another model's answer pasted whole opens as one: from that line on, the lead-in is its.
    let from = match lead.iter().position(|&k| opens_as_reply(lines[k])) {
        Some(i) => {
            let from = lead[i];
            lead.truncate(i);
            from
        }
        None => start,
    };
    if lead.len() > LEAD_IN_MAX {
        return;
    }
    let mut end = lines.len();
    if let Some(last) = (start..end).rev().find(|&k| !blank(k)) {
        if let Some(gap) = (start..last).rev().find(|&k| blank(k)) {
            let asks = (gap + 1..=last).any(|k| {
                !pasted[k] && (users_voice(lines[k]) || lines[k].trim_end().ends_with('?'))
            });
            if last - gap <= 3 && asks {
                end = gap;
            }
        }
    }
    let own: Vec<&str> = (start..end)
        .filter(|&k| !pasted[k] && !blank(k))
        .map(|k| lines[k])
        .collect();
    let filled = (start..end).filter(|&k| !blank(k)).count();
    let headings = own.iter().filter(|l| heading(l)).count();
    let prose = own
        .iter()
        .filter(|l| l.split_whitespace().count() >= PROSE_WORDS)
        .count();
    let voice = own.iter().filter(|l| users_voice(l)).count();
    let handed = lead.last().is_some_and(|&k| hands_over(lines[k]));
    let document = if handed {
        filled >= HANDED_LINES && voice * 5 < own.len()
    } else {
        headings >= DOC_HEADINGS && filled >= DOC_LINES && voice * 20 < own.len()
    };
    if document && prose >= 2 {
        pasted[from..end].iter_mut().for_each(|p| *p = true);
    }
}

/// How another model's answer opens, before an exclamation mark: "Of course!", "Certainly!",
/// "Claro!", "もちろん！". Users do not open their own words so; their lead-in names the paste.
const REPLY_OPENERS: &[&str] = &[
    "of course",
    "certainly",
    "absolutely",
    "great question",
    "excellent question",
    "claro",
    "certo",
    "bien sûr",
    "natürlich",
    "конечно",
    "当然",
    "もちろん",
    "물론",
];

/// Whether the line `t` opens as another model's answer ([`REPLY_OPENERS`]).
fn opens_as_reply(t: &str) -> bool {
    let lower = t.trim_start().to_lowercase();
    REPLY_OPENERS.iter().any(|o| {
        lower
            .strip_prefix(o)
            .is_some_and(|rest| rest.trim_start().starts_with(['!', '！']))
    })
}

/// The letters and digits of `text`, lowercased: what is left of a line copied from a terminal
/// after its wrapping, indentation and Markdown's marks.
pub(super) fn letters(text: &str) -> String {
    text.chars()
        .filter(|c| c.is_alphanumeric())
        .flat_map(char::to_lowercase)
        .collect()
}

/// Marks the lines of the assistant's words `said` quoted back: a line with [`QUOTE_MIN`]
/// letters and digits that `said` holds; the lines next to one that go on with what it said
/// (a sentence the terminal wrapped, its short last piece); and, in a prompt that quotes, a
/// short line that is a whole line of `said` (a heading, `Python:`) beside a quote or a paste,
/// blank lines between.
fn quoted_back(lines: &[&str], said: &str, pasted: &mut [bool]) {
    if said.is_empty() {
        return;
    }
    let whole = letters(said);
    let own: Vec<String> = lines.iter().map(|l| letters(l)).collect();
    let mut quoted: Vec<bool> = own
        .iter()
        .map(|l| l.chars().count() >= QUOTE_MIN && whole.contains(l.as_str()))
        .collect();
    if !quoted.contains(&true) {
        return;
    }
    let goes_on =
        |a: &str, b: &str| !a.is_empty() && !b.is_empty() && whole.contains(&format!("{a}{b}"));
    for i in 1..lines.len() {
        if quoted[i - 1] && !quoted[i] && goes_on(&own[i - 1], &own[i]) {
            quoted[i] = true;
        }
    }
    for i in (0..lines.len().saturating_sub(1)).rev() {
        if quoted[i + 1] && !quoted[i] && goes_on(&own[i], &own[i + 1]) {
            quoted[i] = true;
        }
    }
    for (p, q) in pasted.iter_mut().zip(&quoted) {
        *p |= q;
    }
    let said_lines: HashSet<String> = said
        .lines()
        .map(letters)
        .filter(|l| !l.is_empty())
        .collect();
    let blank = |k: usize| lines[k].trim().is_empty();
    let beside_paste = |i: usize, pasted: &[bool]| {
        let above = (0..i).rev().find(|&k| !blank(k));
        let below = (i + 1..lines.len()).find(|&k| !blank(k));
        above.is_some_and(|k| pasted[k]) || below.is_some_and(|k| pasted[k])
    };
    // Until nothing changes: a heading marked may make the one beside it a quote too.
    let mut changed = true;
    while changed {
        changed = false;
        for i in 0..lines.len() {
            if !pasted[i]
                && !own[i].is_empty()
                && said_lines.contains(&own[i])
                && beside_paste(i, pasted)
            {
                pasted[i] = true;
                changed = true;
            }
        }
    }
}

/// What stands for the middle of a prompt left out between its head and its tail.
pub(super) const GAP: &str = "\n…\n";
