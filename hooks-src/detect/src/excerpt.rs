//! The part of a long prompt the digest shows: the sentence most likely to be the lesson, with
//! as much around it as fits, not the prompt's first characters. A rule often comes after the
//! task it is attached to ("… and from now on, never push to main").
//!
//! **The user's own words first.** What the user pasted into a prompt (a stack trace, a file, a
//! log, another assistant's answer) is full of words a lesson is made of ("error", "always",
//! "must") and is never the lesson: its lines are never the excerpt when the prompt has a
//! sentence of the user's own, nor shown around it. Pasted are ([`pasted_lines`]): the lines of
//! a fenced block, quoted lines (`>`), table rows, lines that read as code, a log or a trace
//! (a stack frame, a timestamp or log level first, a line ending as code does (`;`, `{`, `},`, …), one dense with
//! code's symbols), a log's line whose timestamp follows its tags (`[I 2026-…]`) or led by a
//! level in brackets in any case or a Unix time (`[Warning]`, `[1750000000.1]`), a terminal's
//! (a shell's prompt and what ran up to the next one, or after the last one up to a blank line
//! or the user's words, its banner, tree and box glyphs, a spinner's frames; a box's sides
//! only frame what is judged, but a box copied beside words the user typed outside it is
//! paste, [`copied_box`]), a bare path, a tool's version
//! line, a program's output that reads like prose (a package manager's `npm warn` lines, a login
//! banner's update notice, `systemctl status` and journal lines, a compiler's, a linter's or a
//! browser console's line led by a place in a source file and the console's stack frames
//! `f @ app.js:10`, a status glyph's line `●` and Claude Code's own steps `Bash(…)`; each its
//! own small rule, kept narrow so a sentence of the user's with the same words stays theirs),
//! runs of three or more lines indented as code is, the lines a terminal wrapped a pasted line
//! onto where it split a word too long for a line ([`wrapped_paste`]), a few lines of words
//! with pasted lines right above and below them (a comment in a pasted file), the blocks an IDE
//! attaches (`<context ref="…">`, `<attached_files>`, `<ide_selection>`: [`ATTACHED`]), whatever
//! their lines say, a chat's thread copied from Slack, Discord, Teams or WhatsApp (its messages
//! between the lines that head them with an author and a time: [`threads`]), Claude Code's own
//! text from a pasted transcript or export (its words to the model: a rejected tool call, an
//! interruption, a summary's start, [`CLAUDE_HARNESS`]; its reminder and command blocks; its
//! terminal's answers with the lines indented under them; `Human:`/`Assistant:` turns and an
//! IDE's `IN`/`OUT` tool calls), a Markdown document (a README's section, a spec, a plan
//! another model wrote) from its first heading on, after a line that hands it over or none
//! ([`pasted_document`]; a structured request in the user's own voice stays theirs), and lines
//! the assistant had just written (its answer quoted back: "can you check this?" and its own
//! lines, found by their letters and digits, so a terminal's wrapping and Markdown's marks do
//! not hide them), or a sentence of it after the user's words on their line ([`pieces`]). A line where the user typed a few words and pasted a log or a document right
//! after them is split where the paste begins ([`split_lines`]; a shell's prompt naming its
//! host and directory too, [`prompt_inside`]). A prompt that is all paste is shown from its
//! start and marked as a paste ([`Excerpt::pasted`]); so is one whose own words are a line or
//! two around a long paste, showing those words.
//!
//! The prompt is redacted whole before it is cut ([`redact::redact_prefix`]), so a cut never
//! splits a secret into pieces no rule knows. Sentences end at a line break or at `.`, `!`, `?`
//! (and their full-width forms) before a space; only the first [`MAX_SENTENCES`] of the user's
//! own are weighed.

use std::collections::HashSet;

use reflect_base::text::{self, one_line};
use reflect_store::redact;

/// Sentences of the user's own weighed at most.
const MAX_SENTENCES: usize = 120;
/// Bytes of a prompt read for its excerpt ([`head_and_tail`]).
pub const EXCERPT_BYTES: usize = 8 << 10;
/// Of those, the bytes from the prompt's end: what the user wrote after a long paste.
const TAIL_BYTES: usize = 2 << 10;
/// What stands for the middle of a prompt left out between its head and its tail.
const GAP: &str = "\n…\n";

/// What the digest shows of a prompt.
#[derive(Debug, Clone, PartialEq)]
pub struct Excerpt {
    pub text: String,
    /// The prompt was cut and holds no sentence of the user's own, or a line or two of theirs
    /// ([`OWN_SHARE_MAX`]): all or most of it was pasted.
    pub pasted: bool,
    /// `text` is the user's own words and leaves out a paste the prompt holds.
    pub paste_cut: bool,
}

/// What of a long `text` the excerpt is cut from: its first [`EXCERPT_BYTES`] less
/// [`TAIL_BYTES`] and its last [`TAIL_BYTES`], joined by a line `…`; `text` itself when it is
/// short enough.
pub fn head_and_tail(text: &str) -> String {
    match ends(
        text,
        EXCERPT_BYTES,
        EXCERPT_BYTES - TAIL_BYTES - GAP.len(),
        TAIL_BYTES,
    ) {
        Some((head, tail)) => format!("{head}{GAP}{tail}"),
        None => text.to_string(),
    }
}

/// The start and the end of a `text` longer than `max` bytes: at most `head` bytes from its
/// start and `tail` from its end, each cut back to whitespace (no token, so no secret, is
/// split); `None` when `text` fits.
pub fn ends(text: &str, max: usize, head: usize, tail: usize) -> Option<(&str, &str)> {
    // `head` and `tail` are below `max`: a text past it is cut at both ends, each cut
    // dropping the word it falls in.
    (text.len() > max).then(|| (text::head(text, head), text::tail(text, tail)))
}

/// `raw` redacted, on one line, at most `max` characters: whole when it fits, else the
/// likeliest sentence of the user's own by `score` (the first among equals) and what of the
/// user's own fits around it, `…` marking what was cut on either side. `said`: what the
/// assistant wrote just before the prompt (its lines quoted back are no words of the user's);
/// `asked`: the secrets it asked for (a value typed as their answer is redacted).
pub fn excerpt(
    raw: &str,
    said: &str,
    asked: Option<&redact::Asked>,
    max: usize,
    score: impl Fn(&str) -> f64,
) -> Excerpt {
    let redacted = redact::redact_prefix_after(raw, EXCERPT_BYTES, asked);
    let whole = one_line(&redacted, max);
    let plain = |text: String| Excerpt {
        text,
        pasted: false,
        paste_cut: false,
    };
    if !whole.ends_with('…') || max < 8 {
        return plain(whole);
    }
    let lines = split_lines(&redacted);
    let pasted = pasted_lines(&lines, said);
    let (pieces, more) = pieces(&lines, &pasted, &letters(said));
    let any_paste = pieces.iter().any(|p| p.is_none());
    // A few words of the user's around a long paste: theirs are shown, the paste is marked.
    let mostly_paste = mostly_pasted(&lines, &pasted);
    let plain = |text: String| Excerpt {
        text,
        pasted: mostly_paste,
        paste_cut: any_paste,
    };
    let Some(best) = pieces
        .iter()
        .enumerate()
        // A sentence needs a word to be a lesson (not a list's `2.`).
        .filter_map(|(i, s)| s.as_ref().map(|s| (i, s)))
        .filter(|(_, s)| s.chars().any(char::is_alphabetic))
        .map(|(i, s)| (i, score(s)))
        .fold(None, |best: Option<(usize, f64)>, (i, p)| match best {
            Some((_, q)) if q >= p => best,
            _ => Some((i, p)),
        })
        .map(|(i, _)| i)
    else {
        return Excerpt {
            text: whole,
            pasted: any_paste,
            paste_cut: false,
        };
    };
    if best == 0 && !any_paste {
        return Excerpt {
            text: whole,
            pasted: false,
            paste_cut: false,
        };
    }
    let own = |i: usize| pieces[i].as_deref();
    let len = |s: &str| s.chars().count();
    let sentence = own(best).expect("the best is the user's");
    // Room for the two marks.
    let room = max - 2;
    if len(sentence) >= room {
        let (mark, width) = if best > 0 {
            ("…", max - 1)
        } else {
            ("", max)
        };
        return plain(format!("{mark}{}", one_line(sentence, width)));
    }
    let (mut from, mut to) = (best, best + 1);
    let mut used = len(sentence);
    while let Some(next) = pieces.get(to).and_then(Option::as_deref) {
        if used + 1 + len(next) > room {
            break;
        }
        used += 1 + len(next);
        to += 1;
    }
    while let Some(before) = from.checked_sub(1).and_then(own) {
        if used + 1 + len(before) > room {
            break;
        }
        from -= 1;
        used += 1 + len(before);
    }
    let mut out = String::new();
    if from > 0 {
        out.push('…');
    }
    let shown: Vec<&str> = (from..to).filter_map(own).collect();
    out.push_str(&shown.join(" "));
    if to < pieces.len() || more {
        out.push('…');
    }
    plain(out)
}

/// The sentences of `lines` in order, each on one line, `None` standing for a run of `pasted`
/// lines or of sentences the assistant had just written (`said`, as [`letters`]: a quote of its
/// answer after the user's words on one line, "check this: <its sentence>"); the first
/// [`MAX_SENTENCES`] of the user's own, and whether there is more.
fn pieces(lines: &[&str], pasted: &[bool], said: &str) -> (Vec<Option<String>>, bool) {
    let mut out: Vec<Option<String>> = Vec::new();
    let mut own = 0;
    let quoted = |s: &str| {
        let l = letters(s);
        l.chars().count() >= QUOTE_MIN && said.contains(l.as_str())
    };
    for (line, &pasted) in lines.iter().zip(pasted) {
        if pasted {
            if out.last().is_none_or(Option::is_some) {
                out.push(None);
            }
            continue;
        }
        for s in sentences(line) {
            if quoted(&s) {
                if out.last().is_none_or(Option::is_some) {
                    out.push(None);
                }
                continue;
            }
            if own == MAX_SENTENCES {
                return (out, true);
            }
            own += 1;
            out.push(Some(s));
        }
    }
    (out, false)
}

/// The sentences of one line: ending at `.`, `!`, `?` before a space, or at a full-width stop.
fn sentences(line: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut start = 0;
    let push = |piece: &str, out: &mut Vec<String>| {
        let flat = piece.split_whitespace().collect::<Vec<_>>().join(" ");
        if !flat.is_empty() {
            out.push(flat);
        }
    };
    let mut chars = line.char_indices().peekable();
    while let Some((at, c)) = chars.next() {
        let end = match c {
            '.' | '!' | '?' => chars
                .peek()
                .is_none_or(|&(_, next)| next.is_whitespace())
                .then_some(at + 1),
            '。' | '！' | '？' => Some(at + c.len_utf8()),
            _ => None,
        };
        if let Some(end) = end {
            push(&line[start..end], &mut out);
            start = end;
        }
    }
    push(&line[start..], &mut out);
    out
}

/// The share of a cut prompt's characters the user's own words may take at most for it to be
/// marked a paste ([`Excerpt::pasted`]): a line or two of theirs around a long log or file.
const OWN_SHARE_MAX: f64 = 0.1;

/// Whether the user's own lines are at most [`OWN_SHARE_MAX`] of the characters of `lines`.
fn mostly_pasted(lines: &[&str], pasted: &[bool]) -> bool {
    let (mut own, mut all) = (0usize, 0usize);
    for (line, &p) in lines.iter().zip(pasted) {
        let n = line.trim().chars().count();
        all += n;
        if !p {
            own += n;
        }
    }
    (own as f64) <= OWN_SHARE_MAX * all as f64
}

/// The shortest start of a pasted line that, found inside the line above, shows where the user's
/// words end and the paste begins on that line.
const SHARED_START: usize = 8;

/// The lines of `text`, a line split in two where a paste begins inside it: the user typed a
/// few words and pasted a log right after them, so the line holds the start of a log line like
/// the one below it (found by its first [`SHARED_START`] characters, which hold a digit or a
/// symbol), a spinner's glyph a terminal prints before its output ([`terminal_glyph`]), a
/// log's line led by a tag ([`tagged_log`]), or on the first line a document's heading
/// ([`glued_heading`]).
fn split_lines(text: &str) -> Vec<&str> {
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
fn prompt_inside(line: &str) -> Option<usize> {
    line.match_indices(' ').map(|(at, _)| at + 1).find(|&at| {
        let rest = &line[at..];
        let word = rest.split_whitespace().next().unwrap_or("");
        let named = host_path_prompt(word)
            || (word.contains('@') && word.contains(':') && word.ends_with(['$', '#']));
        named && shell_prompt(rest)
    })
}

/// Where a log's line led by a bracketed tag ([`bracketed_tag`]) begins inside a line of words:
/// `it fails again [1750000000.1] Loading store`.
fn tagged_log(line: &str) -> Option<usize> {
    line.match_indices(" [").map(|(at, _)| at + 1).find(|&at| {
        let rest = &line[at..];
        bracketed_tag(rest.split_whitespace().next().unwrap_or("")) && reads_as_code_or_log(rest)
    })
}

/// A character only a terminal's output holds: box drawing (`└ ├ ╭ ─`), block elements and a
/// braille spinner's frames (`⠋ ⠹`). Not a box's sides (`│`): a terminal draws them around any
/// text, the user's own prompt too, so a framed line is judged by what it frames.
fn terminal_glyph(c: char) -> bool {
    matches!(c, '\u{2500}'..='\u{259F}' | '\u{2800}'..='\u{28FF}') && !BOX_SIDES.contains(c)
}

/// Where a program's status line begins inside a line of words: a [`STATUS_GLYPHS`] glyph, a
/// space and a capital (`… once more ● Running the checks`), as a terminal prints a step
/// pasted after the user's words.
fn status_step(line: &str) -> Option<usize> {
    line.match_indices(STATUS_GLYPHS)
        .find(|(at, g)| {
            let mut after = line[at + g.len()..].chars();
            after.next() == Some(' ') && after.next().is_some_and(char::is_uppercase)
        })
        .map(|(at, _)| at)
}

/// The glyphs a program's status line starts with, none a person types: systemd's unit
/// (`● nginx.service - …`) and Claude Code's own steps (`● Update(src/app.ts)`, `⏺ Done.`,
/// `⎿ Read 3 lines`), which a user copies from the terminal.
const STATUS_GLYPHS: [char; 3] = ['●', '⏺', '⎿'];

/// How Claude Code's terminal shows one of its own steps, when the copy lost the glyph before
/// it: the tool's name and its arguments (`Bash(npm test)`, `Update(src/app.ts)`).
const CLAUDE_STEPS: &[&str] = &[
    "Bash(",
    "Read(",
    "Write(",
    "Edit(",
    "MultiEdit(",
    "Update(",
    "Search(",
    "Grep(",
    "Glob(",
    "Task(",
    "Fetch(",
    "WebFetch(",
    "WebSearch(",
];

/// The sides of a terminal's box.
const BOX_SIDES: &str = "│┃║";

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
const QUOTE_MIN: usize = 24;

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
/// `❯` first, with their indented lines. The cut's gap ([`head_and_tail`])
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
/// model wrote, an issue's body): from its first heading to its end, when at most a lead-in
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
    let lead: Vec<usize> = (0..start).filter(|&k| !pasted[k] && !blank(k)).collect();
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
        pasted[start..end].iter_mut().for_each(|p| *p = true);
    }
}

/// The letters and digits of `text`, lowercased: what is left of a line copied from a terminal
/// after its wrapping, indentation and Markdown's marks.
fn letters(text: &str) -> String {
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

/// Words that open a line of a log.
const LOG_LEVELS: &[&str] = &[
    "ERROR", "ERR!", "WARN", "WARNING", "INFO", "DEBUG", "TRACE", "FATAL", "CRITICAL", "PANIC",
];
/// How a line of a stack trace starts, across languages.
const TRACE_STARTS: &[&str] = &[
    "File \"",
    "Traceback (most recent call last)",
    "Caused by:",
    "Stack trace:",
    "Exception in thread",
    "goroutine ",
    "thread '",
    "--> ",
    // A terminal's banner.
    "Last login: ",
];

/// A line of a config or a dump, `key: value` with a short value or none: with a key no word
/// is (`max_size: 10`, `app.name:`), or indented with a value (`  driver: local`). Not
/// `Note: …`, nor an indented word and a colon alone: a terminal indents the user's own
/// wrapped prompt too ("… tell me if you\n  need:").
fn key_value(line: &str) -> bool {
    let t = line.trim().trim_start_matches("- ");
    let Some((key, value)) = t.split_once(':') else {
        return false;
    };
    !key.is_empty()
        && key
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || "_.-".contains(c))
        && (value.is_empty() || value.starts_with(' ') && value.split_whitespace().count() <= 3)
        && (key.contains(['_', '.', '-']) || line.starts_with([' ', '\t']) && !value.is_empty())
}

/// A shell's prompt and the command typed after it: `$ npm test`, `❯ ls`, `dev@box:~/app$ make`,
/// `[dev@box ~]$ exit`, tcsh's `box:~/app> make`, macOS zsh's `dev@box app % make`, PowerShell's
/// `PS C:\app> dir`, each maybe after a virtualenv's name (`(venv) dev@box:~$`); not words of
/// the user's typed after a prompt left empty (five or more, no flag, path or operator among them).
fn shell_prompt(t: &str) -> bool {
    // A virtualenv's or conda's name, one word in parentheses, comes before the prompt.
    let t = match t.strip_prefix('(').and_then(|r| r.split_once(") ")) {
        Some((env, rest)) if !env.is_empty() && !env.contains(char::is_whitespace) => rest,
        _ => t,
    };
    let words: Vec<&str> = t.split_whitespace().collect();
    let first = words.first().copied().unwrap_or("");
    let closes = |w: &str| w.ends_with("]$") || w.ends_with("]#");
    // How many words the prompt takes.
    let bracketed = first.starts_with('[') && first.contains('@');
    let taken = if matches!(first, "$" | "❯" | "➜" | "%")
        || (first.contains('@') && first.ends_with(['$', '#']) && first.len() > 2)
        || host_path_prompt(first)
        || (bracketed && closes(first))
    {
        1
    } else if bracketed && words.get(1).is_some_and(|w| closes(w)) {
        2
    } else if first.contains('@') && words.get(2) == Some(&"%") {
        3
    } else if first == "PS" && words.get(1).is_some_and(|w| drive(w)) {
        match words.iter().position(|w| w.ends_with('>')) {
            Some(k) => k + 1,
            None => return false,
        }
    } else {
        return false;
    };
    let rest = &words[taken..];
    let prose = rest.len() >= 5
        && rest
            .iter()
            .all(|w| !w.starts_with('-') && !w.contains(['/', '=', '|', '$', '~', ':', '@', '>']));
    !prose
}

/// tcsh's and SUSE's prompt: a host, `:`, a path from `~` or `/`, and `>` (`box:~/app>`).
fn host_path_prompt(word: &str) -> bool {
    let Some(path) = word.strip_suffix('>') else {
        return false;
    };
    path.split_once(':').is_some_and(|(host, dir)| {
        !host.is_empty()
            && host
                .chars()
                .all(|c| c.is_ascii_alphanumeric() || "._-".contains(c))
            && dir.starts_with(['~', '/'])
    })
}

/// A Windows drive's path: `C:\`, `D:\work`.
fn drive(word: &str) -> bool {
    let b = word.as_bytes();
    b.len() >= 3 && b[0].is_ascii_alphabetic() && b[1] == b':' && b[2] == b'\\'
}

/// A path and nothing else, maybe as a list's item or a quoted string: `/opt/tool/bin/x`,
/// `- /srv/app/dist/index.js`, `node:internal/modules/loader:12`.
fn lone_path(t: &str) -> bool {
    let t = t.trim_start_matches(['-', '*', ' ']);
    // A line's end `\` is how some terminals show a line break typed in a prompt.
    let t = t.trim_end_matches(['\\', ',']).trim_matches(['\'', '"']);
    !t.is_empty()
        && !t.contains(char::is_whitespace)
        && t.chars().filter(|&c| c == '/' || c == '\\').count() >= 2
}

/// A program's name and version, as a tool prints it: `Node.js v25.2.1`, `Python 3.12.1`.
fn version_banner(t: &str) -> bool {
    let words: Vec<&str> = t.split_whitespace().collect();
    words.len() == 2 && {
        let v = words[1].trim_start_matches('v');
        v.split('.').count() >= 3 && v.split('.').all(|n| n.parse::<u32>().is_ok())
    }
}

/// A package manager's own log line: `npm warn deprecated …`, `npm ERR! …`, `pnpm WARN …`,
/// `yarn warn …`. Not `npm info`, `npm http`: commands a user types too.
fn package_manager_line(t: &str) -> bool {
    let mut words = t.split_whitespace();
    matches!(words.next(), Some("npm" | "yarn" | "pnpm"))
        && matches!(
            words.next(),
            Some(
                "warn"
                    | "WARN"
                    | "notice"
                    | "ERR!"
                    | "error"
                    | "ERROR"
                    | "verb"
                    | "timing"
                    | "sill"
            )
        )
}

/// How a line of a Linux distribution's login banner (motd) or update notice starts.
const MOTD_STARTS: &[&str] = &[
    "Welcome to Ubuntu ",
    "System information as of ",
    "* Documentation:",
    "* Management:",
    "* Support:",
    "Expanded Security Maintenance for ",
    "To see these additional updates run:",
    "Learn more about enabling ESM ",
    "Enable ESM Apps to receive ",
    "*** System restart required ***",
    "New release '",
    "Run 'do-release-upgrade'",
    "A newer release of \"",
    "Run \"/usr/bin/dnf check-release-update\"",
    "The programs included with the Debian GNU/Linux system",
    "Debian GNU/Linux comes with ABSOLUTELY NO WARRANTY",
];
/// What follows the count in a banner's update notice (`12 updates can be applied immediately.`).
const MOTD_COUNTED: &[&str] = &[
    "update can be applied",
    "updates can be applied",
    "of these updates ",
    "additional security update",
    "package can be updated",
    "packages can be updated",
    "update is a security update",
    "updates are security updates",
];

/// A line of a login banner or an update notice ([`MOTD_STARTS`], [`MOTD_COUNTED`]).
fn motd_line(t: &str) -> bool {
    let counted = t
        .split_once(' ')
        .is_some_and(|(n, rest)| is_number(n) && MOTD_COUNTED.iter().any(|s| rest.starts_with(s)));
    counted || MOTD_STARTS.iter().any(|s| t.starts_with(s))
}

/// A field of `systemctl status`, known by its name and the shape of its value:
/// `Loaded: loaded (…)`, `Active: active (running) since …`, `Main PID: 42 (nginx)`,
/// `CGroup: /system.slice/…`, `Memory: 5.1M`. Not "Active: yes, …" nor "Status: done":
/// a person's own notes use those names too.
fn systemd_status(t: &str) -> bool {
    let Some((key, value)) = t.split_once(": ") else {
        return false;
    };
    let value = value.trim_start();
    let first = value.split_whitespace().next().unwrap_or("");
    // A size or a time as systemd prints it: `5.1M`, `30ms`, `1min 2.5s`.
    let measure = || {
        let unit = first.trim_start_matches(|c: char| c.is_ascii_digit() || c == '.');
        unit.len() < first.len()
            && !unit.is_empty()
            && unit.chars().all(|c| c.is_ascii_alphabetic())
    };
    match key {
        "Loaded" => matches!(
            first,
            "loaded" | "not-found" | "masked" | "error" | "bad-setting"
        ),
        "Active" => matches!(
            first,
            "active" | "inactive" | "failed" | "activating" | "deactivating" | "reloading"
        ),
        "Main PID" => is_number(first),
        "Tasks" => is_number(first) && value.contains("(limit:"),
        "CGroup" => first.starts_with('/'),
        "Docs" => first.starts_with("man:"),
        "Memory" | "CPU" => measure(),
        _ => false,
    }
}

/// Month names as syslog writes them.
const MONTHS: [&str; 12] = [
    "Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec",
];

/// A line of syslog or the journal: `Nov 20 10:00:01 host nginx[42]: …` (a month, a day, a
/// time, a host and the program with a colon).
fn syslog_line(t: &str) -> bool {
    let mut words = t.split_whitespace();
    let (Some(month), Some(day), Some(time), Some(_host), Some(program)) = (
        words.next(),
        words.next(),
        words.next(),
        words.next(),
        words.next(),
    ) else {
        return false;
    };
    MONTHS.contains(&month)
        && day.len() <= 2
        && is_number(day)
        && time.len() == 8
        && time.split(':').count() == 3
        && time.split(':').all(is_number)
        && program.ends_with(':')
}

/// Whether `s` is digits only (and some).
fn is_number(s: &str) -> bool {
    !s.is_empty() && s.bytes().all(|b| b.is_ascii_digit())
}

/// Whether `file` ends in a file's name with an extension (`app.ts`, `chunk-9F.js?v=3`).
fn has_extension(file: &str) -> bool {
    let name = file.rsplit(['/', '\\']).next().unwrap_or(file);
    let name = name.split('?').next().unwrap_or(name);
    name.rsplit_once('.').is_some_and(|(stem, ext)| {
        !stem.is_empty()
            && (1..=5).contains(&ext.len())
            && ext.chars().all(|c| c.is_ascii_alphanumeric())
            && ext.chars().any(|c| c.is_ascii_alphabetic())
    })
}

/// A word that is a place in a source file: `src/app.ts:10:5`, `bundle-3F9A.js:38`,
/// `Form.cs(10,5):`. Its count of numbers (line, column) and what follows them in the word.
fn source_location(word: &str) -> Option<(usize, &str)> {
    if let Some((file, rest)) = word.split_once('(') {
        let (inside, after) = rest.split_once(')')?;
        let numbers = inside.split(',').filter(|n| is_number(n)).count();
        return (has_extension(file) && numbers == inside.split(',').count())
            .then_some((numbers, after));
    }
    // The first colon a digit follows: a Windows drive's (`C:\`) and a URL's (`https:`) come
    // before it.
    let colon = word
        .match_indices(':')
        .map(|(at, _)| at)
        .find(|&at| word[at + 1..].starts_with(|c: char| c.is_ascii_digit()))?;
    if !has_extension(&word[..colon]) {
        return None;
    }
    let mut rest = &word[colon + 1..];
    let mut numbers = 0;
    loop {
        let digits = rest.bytes().take_while(u8::is_ascii_digit).count();
        numbers += 1;
        rest = &rest[digits..];
        match rest.strip_prefix(':') {
            Some(more) if more.starts_with(|c: char| c.is_ascii_digit()) => rest = more,
            _ => return Some((numbers, rest)),
        }
    }
}

/// A compiler's, a linter's or a browser console's line, a place in a source file first:
/// `src/app.ts:10:5 - error …`, `main.go:12: undefined: x`, `Form.cs(10,5): error …`, an ESLint
/// row (`10:5  error  …`), a console's `store.js:41 Store ready`. A file's line alone before
/// words is the console's only when they do not read as the user's own sentence about it
/// ("app.py:42 should log this", "app.py:42 Why is it null?").
fn diagnostic(t: &str) -> bool {
    let t = t.trim_start();
    let mut words = t.split_whitespace();
    let first = words.next().unwrap_or("");
    let second = words.next();
    if let Some((line, col)) = first.split_once(':') {
        if is_number(line) && is_number(col) && matches!(second, Some("error" | "warning")) {
            return true;
        }
    }
    let Some((numbers, after)) = source_location(first) else {
        return false;
    };
    let rest = t[first.len()..].trim();
    match after {
        ":" => true,
        "" if numbers >= 2 => true,
        "" => {
            numbers == 1
                && rest.chars().next().is_some_and(|c| !c.is_lowercase())
                && !rest.ends_with('?')
        }
        _ => false,
    }
}

/// A stack frame as a browser's console prints it: `fetchAll @ bundle-3F9A.js:120`,
/// `(anonymous) @ store.js:41`.
fn console_frame(t: &str) -> bool {
    t.split_once(" @ ").is_some_and(|(name, at)| {
        name.split_whitespace().count() <= 3
            && at
                .split_whitespace()
                .next()
                .and_then(source_location)
                .is_some()
    })
}

/// A log's tag in brackets that no sentence starts with: a level in any case, as a browser's
/// console prints it (`[Warning]`, `[Log]`), or a Unix time (`[2034567890.125]`).
fn bracketed_tag(word: &str) -> bool {
    let Some(inner) = word.strip_prefix('[').and_then(|w| w.strip_suffix(']')) else {
        return false;
    };
    let upper = inner.to_ascii_uppercase();
    let (secs, fraction) = inner.split_once('.').unwrap_or((inner, "0"));
    LOG_LEVELS.contains(&upper.as_str())
        || upper == "LOG"
        || (secs.len() >= 10 && is_number(secs) && is_number(fraction))
}

/// A line (trimmed at its start) that reads as code, a log or a stack trace.
fn reads_as_code_or_log(t: &str) -> bool {
    let t = t.trim_end();
    if t.is_empty() {
        return false;
    }
    // A service's line as `docker compose` prints it: `db-1  | LOG: ready`.
    if let Some((name, rest)) = t.split_once(" |") {
        let name = name.trim();
        if !name.is_empty()
            && name.contains(['-', '_'])
            && name
                .chars()
                .all(|c| c.is_ascii_alphanumeric() || "-_.".contains(c))
            && (rest.trim().is_empty() || reads_as_code_or_log(rest.trim_start()))
        {
            return true;
        }
    }
    // A frame `at f (file:1:2)` or `at pkg.Class.f(File.java:10)`, not "at least …".
    let frame = t.strip_prefix("at ").is_some_and(|rest| {
        t.ends_with(')')
            || rest
                .split_whitespace()
                .next()
                .is_some_and(|w| w.contains([':', '/']))
    });
    if frame
        || TRACE_STARTS.iter().any(|s| t.starts_with(s))
        || t.contains(terminal_glyph)
        || shell_prompt(t)
        || lone_path(t)
        || version_banner(t)
        || t.starts_with(STATUS_GLYPHS)
        || CLAUDE_STEPS.iter().any(|s| t.starts_with(s))
        || package_manager_line(t)
        || motd_line(t)
        || systemd_status(t)
        || syslog_line(t)
        || diagnostic(t)
        || console_frame(t)
    {
        return true;
    }
    // A timestamp after a log's tags: `[I 2026-11-20 10:00:01,120]`, `[Nest] 42  - 11/20/2026, …`.
    let stamped = t
        .split_whitespace()
        .take(4)
        .take_while(|w| !w.chars().all(char::is_alphabetic))
        .any(|w| {
            let w = w.trim_matches(|c: char| !c.is_ascii_digit());
            w.bytes().filter(u8::is_ascii_digit).count() >= 4
                && w.contains(['-', '/', ':'])
                && w.chars()
                    .all(|c| c.is_ascii_digit() || "-/:.,TZ".contains(c))
        });
    if stamped {
        return true;
    }
    // A timestamp or a log level first: `2026-11-20 10:00:01 …`, `[INFO] …`, `E1120 10:00 …`.
    let first = t.split_whitespace().next().unwrap_or("");
    let bare = first.trim_matches(|c: char| matches!(c, '[' | ']' | ':' | '(' | ')'));
    if LOG_LEVELS.contains(&bare) || LOG_LEVELS.contains(&bare.split('[').next().unwrap_or("")) {
        return true;
    }
    // With words after it, not a sentence of the user's that names one ("[Warning] is what it
    // should say", "… not [Error]").
    let next = t.trim_start()[first.len()..].trim_start().chars().next();
    if bracketed_tag(first) && next.is_some_and(|c| !c.is_lowercase()) {
        return true;
    }
    // An error's own first line: `TypeError: …`, `error[E0308]: …`, `java.io.IOException: …`.
    let kind = first.split('[').next().unwrap_or("").trim_end_matches(':');
    if first.ends_with(':')
        && ["Error", "error", "Exception", "Warning", "warning"]
            .iter()
            .any(|e| kind.ends_with(e))
        && kind
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || c == '.' || c == '_')
    {
        return true;
    }
    let digits = first.bytes().filter(u8::is_ascii_digit).count();
    if digits >= 4 && first.bytes().any(|b| matches!(b, b'-' | b':' | b'/')) {
        return true;
    }
    if t.ends_with([';', '{', '}'])
        || ["*/", "=>", "',", "\",", "),", "],", "},"]
            .iter()
            .any(|end| t.ends_with(end))
    {
        return true;
    }
    // Dense with code's symbols.
    let (mut symbols, mut all) = (0usize, 0usize);
    for c in t.chars().filter(|c| !c.is_whitespace()) {
        all += 1;
        if "{}[]()<>;=_/\\|$#*`\"&%~^+:".contains(c) {
            symbols += 1;
        }
    }
    symbols >= 4 && symbols * 100 >= all * 18
}

#[cfg(test)]
mod tests {
    use super::*;

    fn by_cue(s: &str) -> f64 {
        if s.contains("always") {
            1.0
        } else {
            0.1
        }
    }

    #[test]
    fn a_short_prompt_is_shown_whole() {
        assert_eq!(
            excerpt("Use pnpm,\nnot npm.", "", None, 200, by_cue).text,
            "Use pnpm, not npm."
        );
    }

    #[test]
    fn a_long_prompt_shows_its_likeliest_sentence_with_marks() {
        let task =
            "Please add the export button to the report page and wire it to the API. ".repeat(5);
        let text = format!("{task}And always run the linter before you commit. {task}");
        let shown = excerpt(&text, "", None, 200, by_cue).text;
        assert!(
            shown.contains("And always run the linter before you commit."),
            "{shown}"
        );
        assert!(shown.starts_with('…') && shown.ends_with('…'), "{shown}");
        assert!(shown.chars().count() <= 200, "{shown}");
        // The first 200 characters would have missed it.
        assert!(!one_line(&text, 200).contains("always"));
    }

    #[test]
    fn the_first_sentence_when_it_is_the_likeliest_and_a_long_one_is_cut() {
        let text = format!(
            "We always deploy from main. {}",
            "More words here. ".repeat(30)
        );
        let shown = excerpt(&text, "", None, 100, by_cue).text;
        assert!(shown.starts_with("We always deploy from main."), "{shown}");
        let long = format!("{} And always {}", "Intro. ".repeat(3), "word ".repeat(80));
        let shown = excerpt(&long, "", None, 100, by_cue).text;
        assert!(shown.starts_with("…And always"), "{shown}");
        assert!(
            shown.ends_with('…') && shown.chars().count() <= 100,
            "{shown}"
        );
    }

    #[test]
    fn a_secret_is_redacted_before_the_cut() {
        let key = format!("sk-ant-api03-{}", "Zx9Cv8Bn7Mq6Lw5Ke4Jr3Hs2Gd1Fa0PoIuYt");
        let text = format!(
            "{} Always use the key {key} for staging.",
            "Filler sentence here. ".repeat(20)
        );
        let text = text.replace("Always", "always");
        let shown = excerpt(&text, "", None, 120, by_cue).text;
        assert!(shown.contains("[REDACTED:"), "{shown}");
        assert!(!shown.contains("Zx9Cv8Bn"), "{shown}");
    }

    #[test]
    fn sentences_end_at_lines_and_stops() {
        let lines = ["One. Two!", "three? v1.2 stays 四。五"];
        let (s, more) = pieces(&lines, &[false, false], "");
        assert_eq!(
            s.into_iter().flatten().collect::<Vec<_>>(),
            ["One.", "Two!", "three?", "v1.2 stays 四。", "五"]
        );
        assert!(!more);
    }

    /// A stack trace of the fixture's own making.
    fn trace() -> String {
        let mut t = String::from("Error: Cannot find module 'left-pad'\nRequire stack:\n");
        for k in 0..12 {
            t.push_str(&format!(
                "    at Module._load (/home/dev/app/node_modules/loader{k}.js:{}:17)\n",
                100 + k
            ));
        }
        t
    }

    /// The likelihood of a lesson by its words, as the classifier would weigh a trace's.
    fn by_lesson_words(s: &str) -> f64 {
        let lower = s.to_lowercase();
        ["error", "cannot", "always", "must", "not"]
            .iter()
            .filter(|w| lower.contains(*w))
            .count() as f64
    }

    #[test]
    fn the_users_sentence_is_chosen_over_a_pasted_trace() {
        let own = "Why does the build fail again? I told you we never vendor node modules here.";
        for text in [
            format!("{}\n{own}", trace()),
            format!("{own}\n\n{}", trace()),
        ] {
            let shown = excerpt(&text, "", None, 200, by_lesson_words);
            assert!(
                shown.text.contains("we never vendor node modules"),
                "{shown:?}"
            );
            assert!(!shown.text.contains("Module._load"), "{shown:?}");
            // A sentence of the user's and a long trace: theirs is shown, the paste is marked.
            assert!(shown.pasted, "{shown:?}");
        }
    }

    #[test]
    fn a_pasted_file_fenced_or_not_hides_no_sentence_of_the_users() {
        let file = "import os\nfrom typing import List\n\nPROMPTS = {\n    \"system\": \"You must always answer in JSON.\",\n    \"user\": \"Summarise the error log.\",\n}\n\ndef build(names: List[str]) -> dict:\n    # Always cache the result.\n    return {n: PROMPTS[n] for n in names}\n";
        let own = "I am always read only in this repo, so never write files.";
        let cues = |s: &str| if s.contains("always") { 1.0 } else { 0.1 };
        for text in [
            format!("{own}\n```python\n{file}```\nthanks"),
            format!("{file}\n{own}"),
            format!("here it is:\n{file}{}\n\n{own}", file.repeat(3)),
        ] {
            let shown = excerpt(&text, "", None, 120, cues);
            assert!(shown.text.contains(own), "{text}\n=> {shown:?}");
        }
    }

    #[test]
    fn a_quoted_answer_and_a_log_are_pastes() {
        let answer = "> You should always pin the versions in the lockfile.\n".repeat(6);
        let log = "2026-11-20T10:00:01Z ERROR [worker-3] job failed: must retry\n".repeat(6);
        let own = "Compare the two and tell me which one is right.";
        for paste in [answer, log] {
            let shown = excerpt(&format!("{paste}{own}"), "", None, 100, by_lesson_words);
            assert_eq!(shown.text, format!("…{own}"));
        }
    }

    #[test]
    fn a_prompt_that_is_only_a_paste_is_marked() {
        let shown = excerpt(&trace(), "", None, 200, by_lesson_words);
        assert!(shown.pasted, "{shown:?}");
        assert!(
            shown.text.starts_with("Error: Cannot find module"),
            "{shown:?}"
        );
        // A short one is shown whole, unmarked: the reader sees all of it.
        let short = excerpt(
            "at Module._load (/x.js:1:2)",
            "",
            None,
            200,
            by_lesson_words,
        );
        assert!(!short.pasted);
    }

    #[test]
    fn lines_of_words_are_the_users_and_code_logs_traces_are_not() {
        for line in [
            "at least use pnpm here",
            "no, the API runs on port 8080",
            "the file src/app/main.rs is generated, do not edit it",
            "use `pnpm install --frozen-lockfile` in CI",
            "[Image #1] the header overlaps the menu",
        ] {
            assert_eq!(pasted_lines(&[line], ""), [false], "{line}");
        }
        for line in [
            "at Object.<anonymous> (/srv/app/index.js:3:9)",
            "  File \"/srv/app/main.py\", line 4, in <module>",
            "[ERROR] connection refused",
            "2026-11-20 10:00:01,120 retrying",
            "const total = items.reduce((a, b) => a + b, 0);",
            "if (!user) {",
            "| name | value |",
            "    title: 'Which one is right?',",
            "TypeError: x.map is not a function",
            "error[E0308]: mismatched types",
        ] {
            assert_eq!(pasted_lines(&[line], ""), [true], "{line}");
        }
        // Three indented lines are code; a comment between code lines is code too.
        let lines = ["see:", "    a = 1", "    b = 2", "    c = a + b", "", "ok?"];
        assert_eq!(
            pasted_lines(&lines, ""),
            [false, true, true, true, false, false]
        );
        let lines = ["x = load();", "// always load first", "y = x.run();"];
        assert_eq!(pasted_lines(&lines, ""), [true, true, true]);
    }

    #[test]
    fn a_lists_numbers_stay_with_their_items() {
        let text = format!(
            "{}\n1. Use tabs.\n2. Then always run the linter first.",
            "Some background on the task here. ".repeat(8)
        );
        let shown = excerpt(&text, "", None, 100, by_cue).text;
        assert!(
            shown.contains("2. Then always run the linter first."),
            "{shown}"
        );
    }

    /// A project's rules file as an IDE attaches it, in words a lesson is made of.
    const RULES_FILE: &str = "# Team rules\n\n- Never push to the release branch by hand.\n- Always prefer small commits over large ones.\n- You must never skip the review, not even for typos.\n";

    #[test]
    fn an_attached_file_is_a_paste_whatever_its_lines_say() {
        let own = "Could you tidy the intro of this doc so it reads better for newcomers?";
        for text in [
            format!("{own}\n<context ref=\"file:///home/dev/site/RULES.md\">\n{RULES_FILE}</context>"),
            format!("{own}\n<attached_files>\n    <file>\n        <text>{RULES_FILE}</text>\n        <type>text</type>\n    </file>\n</attached_files>"),
            format!("<ide_selection>The user selected these lines:\n{RULES_FILE}</ide_selection>\n{own}"),
        ] {
            let shown = excerpt(&text, "", None, 100, by_lesson_words);
            assert!(shown.text.contains(own), "{text}\n=> {shown:?}");
            assert!(!shown.text.contains("never"), "{shown:?}");
        }
        // The block is pasted line by line, its tags too; an unclosed one runs to the end.
        let lines = [
            "why?",
            "<context ref=\"a.md\">",
            "- Always do it.",
            "</context>",
            "ok",
        ];
        assert_eq!(pasted_lines(&lines, ""), [false, true, true, true, false]);
        let lines = ["<attached_files>", "- Always do it.", "- Never stop."];
        assert_eq!(pasted_lines(&lines, ""), [true, true, true]);
        // A tag a user types for their own words is no attachment.
        let lines = ["<contextual>", "- Always do it.", "</contextual>"];
        assert!(!pasted_lines(&lines, "")[1]);
    }

    #[test]
    fn an_attached_file_cut_in_its_middle_is_still_a_paste() {
        let own = "please only fix the typos in the intro and keep the rest";
        let text = format!(
            "<context ref=\"file:///home/dev/site/RULES.md\">\n{}</context>\n{own}",
            RULES_FILE.repeat(60)
        );
        let kept = head_and_tail(&text);
        assert!(!kept[kept.find(GAP).unwrap()..].contains("<context"));
        let shown = excerpt(&kept, "", None, 100, by_lesson_words);
        assert_eq!(shown.text, format!("…{own}"), "{shown:?}");
    }

    /// An answer of the assistant's, as it wrote it (Markdown, long lines).
    const ANSWER: &str = "I checked the deploy script.\n\n**The cause:** the cache key never includes the lockfile, so a stale cache is always restored after a dependency bump.\n- You must clear the cache by hand until the key is fixed.\n\nShall I change the key?";

    #[test]
    fn the_assistants_answer_quoted_back_is_a_paste() {
        // Copied from a terminal: indented, Markdown's marks gone, a long line wrapped.
        let text = "can you double check this before I merge?\n\n  The cause: the cache key never includes the lockfile, so a stale\n  cache is always restored after a dependency bump.\n  - You must clear the cache by hand until the key is\n  fixed.\n";
        let lines: Vec<&str> = text.lines().collect();
        assert_eq!(
            pasted_lines(&lines, ANSWER),
            [false, false, true, true, true, true]
        );
        let shown = excerpt(text, ANSWER, None, 100, by_lesson_words);
        assert_eq!(
            shown.text, "can you double check this before I merge?…",
            "{shown:?}"
        );
        // Without the answer, its lines read as the user's.
        let shown = excerpt(text, "", None, 100, by_lesson_words);
        assert!(shown.text.starts_with("…cache is always"), "{shown:?}");
        // A sentence of the answer after the user's words on their line is no more theirs.
        let text = format!(
            "can you check this before I merge? You must clear the cache by hand until the key is fixed.\n{}",
            "  and more of it here, the way it was pasted from the terminal window\n".repeat(2)
        );
        let shown = excerpt(&text, ANSWER, None, 60, by_lesson_words);
        assert_eq!(
            shown.text, "can you check this before I merge?…",
            "{shown:?}"
        );
        // A short line is the user's even when the assistant said it, and so is a line of
        // their own.
        let lines = [
            "Shall I change the key?",
            "no, the cache key must never hold the date",
        ];
        assert_eq!(pasted_lines(&lines, ANSWER), [false, false]);
        // Beside a quote, a short line that is a whole line of the answer is quoted too.
        let lines = [
            "I checked the deploy script.",
            "",
            "- You must clear the cache by hand until the key is fixed.",
            "",
            "Shall I change the key?",
            "why by hand?",
        ];
        assert_eq!(
            pasted_lines(&lines, ANSWER),
            [true, false, true, false, true, false]
        );
    }

    /// A program's log of the fixture's own making: tags, then a timestamp.
    fn tagged_log() -> String {
        (0..20)
            .map(|k| {
                format!(
                    "[W 2031-02-03 11:22:{k:02},500] step {k} must not retry: error in worker\n"
                )
            })
            .collect()
    }

    #[test]
    fn words_typed_before_a_log_on_its_first_line_are_the_users() {
        let text = format!("is this too noisy? ⠼ Loading model...{}", tagged_log());
        let lines = split_lines(&text);
        assert_eq!(lines[0], "is this too noisy? ");
        assert!(lines[1].starts_with("⠼ Loading model...[W 2031"));
        assert_eq!(pasted_lines(&lines, "")[..2], [false, true]);
        let shown = excerpt(&text, "", None, 120, by_lesson_words);
        assert_eq!(shown.text, "is this too noisy?…", "{shown:?}");
        // A few words of the user's around a long paste: the paste is marked.
        assert!(shown.pasted, "{shown:?}");
        let text = format!(
            "is this too noisy? {}",
            tagged_log().replace("[W ", "<Srv> 7 - ")
        );
        let shown = excerpt(&text, "", None, 120, by_lesson_words);
        assert_eq!(shown.text, "is this too noisy?…", "{shown:?}");
    }

    #[test]
    fn a_terminal_session_pasted_after_the_users_words_is_a_paste() {
        let own = "here is what it prints. i installed it with the package manager and want to keep it so";
        let session = "Last login: Mon Mar 3 08:01:02 on ttys004\n$ ~  tool check\n\n Checks\n └ Version: 4.1.0\n └ Path: /usr/local/bin/tool\n Warning: the install method is not known\n Hint: must reinstall to fix it\n\n Press Enter to continue…\n$ ~  which tool\n/usr/local/bin/tool\nNode.js v21.4.0\n$ ~";
        let text = format!("{own}\n\n{session}");
        let shown = excerpt(&text, "", None, 200, by_lesson_words);
        assert_eq!(shown.text, format!("{own}…"), "{shown:?}");
        let lines: Vec<&str> = session.lines().collect();
        let pasted = pasted_lines(&lines, "");
        let own_lines: Vec<&str> = lines
            .iter()
            .zip(&pasted)
            .filter(|(l, p)| !**p && !l.trim().is_empty())
            .map(|(l, _)| *l)
            .collect();
        assert!(own_lines.is_empty(), "{own_lines:?}");
        for line in [
            "- /home/someone/work/company/project/packages/mail/dist/templates/parts/Layout.js",
            "Node.js v21.4.0",
            "    driver: local",
            "max_pool_size: 12",
            "db-main-1  | 2031-02-03 10:00:00.120 UTC [7] LOG:  ready",
            "db-main-1  | ",
            "WARN[0000] The \"API_URL\" variable is not set.",
            "node:internal/modules/loader:1423",
            "dev@box:~/app$ make test",
            "box7:~/src/app> make build",
            "dev@laptop app % npm run dev",
            "(venv) dev@box:~/app$ pytest -x",
            "(base) dev@laptop app % python3 main.py",
            "PS C:\\Users\\someone> wsl --list",
            "   ╰─────╯",
        ] {
            assert_eq!(pasted_lines(&[line], ""), [true], "{line}");
        }
    }

    #[test]
    fn each_shells_prompt_is_known_and_words_after_an_empty_one_are_not() {
        for line in [
            "$ npm test",
            "dev@box:~/app$ make",
            "[dev@box app]$ exit",
            "box7:~/src/app> make build",
            "box7:/srv> ls",
            "dev@laptop app % npm run dev",
            "(venv) dev@box:~/app$ pytest -x",
            "(base) dev@laptop app % python3 main.py",
            "PS C:\\Users\\someone> wsl --list",
            "PS D:\\work\\my app> dir",
        ] {
            assert!(shell_prompt(line), "{line}");
        }
        for line in [
            "box7:~/app> I also do not see the rules in the directory",
            "PS C:\\app> I also do not see the rules in the directory",
            "PS the rules are in C:\\app now",
            "(optional) use pnpm here",
            "todo: ~/notes> is where the notes go",
            "ratio:3> is not a prompt",
            "mail me@example.com % of the time",
        ] {
            assert!(!shell_prompt(line), "{line}");
        }
    }

    #[test]
    fn a_tcsh_or_powershell_session_pasted_after_the_users_words_is_a_paste() {
        let own = "am I in the right groups? the vm should run as my own account, never as root";
        for session in [
            "box7:~/src/app> id\nuid=1000(dev) gid=1000(dev) groups=1000(dev),27(sudo)\nbox7:~/src/app> make vm\nCreating the vm now, this may take a while\nbox7:~/src/app>",
            "PS C:\\Users\\dev> whoami\nlaptop\\dev\nPS C:\\Users\\dev> wsl --status\nDefault Distribution: Debian\nPS C:\\Users\\dev>",
        ] {
            let lines: Vec<&str> = session.lines().collect();
            assert!(pasted_lines(&lines, "").iter().all(|&p| p), "{session}");
            let text = format!("{own}\n{session}");
            let shown = excerpt(&text, "", None, 120, by_lesson_words);
            assert!(shown.text.starts_with("am I in the right groups?"), "{shown:?}");
            assert!(!shown.text.contains("uid=") && !shown.text.contains("Distribution"), "{shown:?}");
        }
    }

    #[test]
    fn the_output_after_a_last_shell_prompt_is_paste_up_to_the_users_words() {
        // The prompt copied onto the end of the user's question, its output below.
        let text = "am I in the right groups? box7:~/src/app> id\nuid=1000(dev) gid=1000(dev) groups=1000(dev),27(sudo),983(docker)";
        let shown = excerpt(text, "", None, 60, by_lesson_words);
        assert!(
            shown.text.starts_with("am I in the right groups?"),
            "{shown:?}"
        );
        assert!(!shown.text.contains("uid="), "{shown:?}");
        assert_eq!(
            split_lines("am I in the right groups? box7:~/src/app> id"),
            ["am I in the right groups? ", "box7:~/src/app> id"]
        );
        // Output runs to a blank line, or to a line the user may have typed: one that speaks as
        // them, or in a language that rule does not read.
        let lines = [
            "dev@box:~/app$ make test",
            "FAIL src/parser.test.ts",
            "Tests: 1 failed, 12 passed",
            "please always run the tests with pnpm here",
            "dev@box:~/app$ make lint",
            "lint: 3 warnings",
            "我用的是 pnpm，不要用 npm",
        ];
        let pasted = pasted_lines(&lines, "");
        assert_eq!(
            pasted,
            [true, true, true, true, true, true, false],
            "{lines:?}"
        );
        let lines = [
            "$ make lint",
            "lint: 3 warnings",
            "",
            "use pnpm in this repo",
        ];
        assert_eq!(pasted_lines(&lines, ""), [true, true, false, false]);
        // A bare `$` inside a sentence is no prompt.
        assert_eq!(prompt_inside("it costs $ 5 a month"), None);
    }

    #[test]
    fn a_box_copied_beside_the_users_words_is_paste_their_own_framed_prompt_is_not() {
        let pad = |t: &str| format!("│   {t:<90}│");
        let boxed = [
            pad("git commit -m \"fix: resolve the missing attribute error in the adapter\""),
            pad(""),
            pad("- Change the adapter to return the raw dictionary instead of the model"),
            pad("- Fix the test to use the complete data object with every field"),
        ]
        .join("\n");
        let own = "Drop the signature from every commit, the message is only what changed";
        let text = format!("@agent-python-pro\n{own}\n{boxed}");
        let lines: Vec<&str> = text.lines().collect();
        let pasted = pasted_lines(&lines, "");
        assert_eq!(pasted, [false, false, true, true, true, true], "{text}");
        let shown = excerpt(&text, "", None, 120, by_lesson_words);
        assert!(shown.text.contains(own), "{shown:?}");
        assert!(!shown.text.contains("adapter"), "{shown:?}");
        // The user's own prompt copied from Claude Code's input box, the copy begun inside it.
        let copied = format!(
            "{}  │\n{}\n{}",
            "I need test data I can count on, it must keep working after the refactor",
            pad("so always build it from the runbook, never by hand"),
            pad("and keep it in tests/data"),
        );
        let lines: Vec<&str> = copied.lines().collect();
        assert_eq!(pasted_lines(&lines, ""), [false; 3], "{copied}");
    }

    #[test]
    fn the_users_own_lines_stay_theirs_framed_listed_or_after_a_prompt() {
        for line in [
            "│  I need a reference I can count on, it must keep working after the refactor  │",
            "dev@box:~/app$ I also do not see the rules in the directory",
            "box7:~/app> I also do not see the rules in the directory",
            "PS C:\\app> I also do not see the rules in the directory",
            "(optional) use pnpm here, not npm, in every package",
            "todo: ~/notes> is where the notes go",
            "this area is new to me, so I need a reference I can count on │",
            "1. Use tabs, not spaces.",
            "Note: use pnpm here, not npm",
            "- keep it short: two lines at most",
            "  need:",
            "docs\\setup.md\\",
            "the date 2031-02-03 is when the cert expires",
            "see src/app/main.rs for the entry point",
            "% of users who opt in must stay above half",
        ] {
            assert_eq!(pasted_lines(&[line], ""), [false], "{line}");
            assert_eq!(split_lines(line), [line], "{line}");
        }
        // Lines of the user's own prose around a short log are not marked a paste.
        let text = format!(
            "{}\n{}",
            "We never retry a failed step here, we stop and page someone. ".repeat(4),
            tagged_log().lines().next().unwrap()
        );
        assert!(!excerpt(&text, "", None, 120, by_lesson_words).pasted);
    }

    /// Whether each of `lines`, alone, is taken for a paste.
    fn each_pasted(lines: &[&str]) {
        for line in lines {
            assert_eq!(pasted_lines(&[line], ""), [true], "{line}");
        }
    }

    #[test]
    fn a_package_managers_log_lines_are_paste() {
        each_pasted(&[
            "npm warn deprecated left-pad@1.3.0: use String.prototype.padStart()",
            "npm notice New minor version of npm available! 11.0.0 -> 11.2.0",
            "npm ERR! code ERESOLVE",
            "pnpm WARN 2 deprecated subdependencies found",
            "yarn warn The lockfile would have been modified by this install",
        ]);
    }

    #[test]
    fn a_login_banners_update_notice_is_paste() {
        each_pasted(&[
            "12 updates can be applied immediately.",
            "3 of these updates are standard security updates.",
            "To see these additional updates run: apt list --upgradable",
            "Expanded Security Maintenance for Applications is not enabled.",
            " * Documentation:  https://help.example.org",
            "*** System restart required ***",
        ]);
    }

    #[test]
    fn systemds_status_fields_are_paste() {
        each_pasted(&[
            "     Loaded: loaded (/lib/systemd/system/exampled.service; enabled; preset: enabled)",
            "     Active: active (running) since Tue 2031-02-04 09:00:00 UTC; 2h 5min ago",
            "     Active: failed (Result: exit-code) since Tue 2031-02-04 09:00:00 UTC; 3s ago",
            "   Main PID: 4242 (exampled)",
            "      Tasks: 7 (limit: 9313)",
            "     Memory: 12.5M",
            "     CGroup: /system.slice/exampled.service",
            "       Docs: man:exampled(8)",
        ]);
    }

    #[test]
    fn a_status_glyphs_line_and_claude_codes_steps_are_paste() {
        each_pasted(&[
            "● exampled.service - Example queue daemon",
            "● Update(src/lib/store.ts)",
            "⏺ Done. The store now keeps its cache between runs.",
            "  ⎿  Listed 12 paths",
            "  Bash(make check)",
        ]);
        // Words typed before a step copied onto the same line are the user's.
        let lines = split_lines("try it once more ● Running the checks");
        assert_eq!(lines, ["try it once more ", "● Running the checks"]);
        assert_eq!(pasted_lines(&lines, ""), [false, true]);
    }

    #[test]
    fn syslog_and_journal_lines_are_paste() {
        each_pasted(&[
            "Feb 04 09:00:01 box exampled[4242]: listening on port 8080",
            "Feb  4 09:00:02 box systemd[1]: Started exampled.service - Example queue daemon.",
        ]);
    }

    #[test]
    fn a_compilers_linters_and_consoles_located_lines_are_paste() {
        each_pasted(&[
            "src/lib/store.ts:41:7 - error TS2339: Property 'size' does not exist on type 'Cache'.",
            "pkg/run/main.go:12: undefined: helper",
            "Store.cs(41,7): error CS1002: ; expected",
            "  41:7  error  'size' is assigned a value but never used  no-unused-vars",
            "store-9F2A.js:41 Store ready, 3 items loaded",
            "store.js:88 [Store] cache miss for user 7",
        ]);
    }

    #[test]
    fn a_browser_consoles_stack_frames_are_paste() {
        each_pasted(&[
            "fetchAll @ bundle-3F9A.js:120",
            "(anonymous) @ store.js:41",
            "invoke @ chunk-7Q.js?v=5d1e:2290",
        ]);
    }

    #[test]
    fn a_logs_bracketed_level_in_any_case_or_unix_time_is_paste() {
        each_pasted(&[
            "[Warning] [Auth]: init() ran twice, the second call is ignored.",
            "[Log] Store ready, 3 items",
            "[2034567890.125] Shortcut triggered: next item (y)",
        ]);
        // Typed on the user's own line, the log is split from their words.
        let lines = split_lines("it fails again. [2034567890.125] Loading store");
        assert_eq!(
            lines,
            ["it fails again. ", "[2034567890.125] Loading store"]
        );
        assert_eq!(pasted_lines(&lines, ""), [false, true]);
    }

    #[test]
    fn program_output_already_known_stays_paste() {
        // A framework's log, a terminal's bracketed prompt, a trace's frames.
        each_pasted(&[
            "[Nest] 4242  - 02/04/2031, 9:00:01 AM     LOG [RoutesResolver] ItemsController {/api/items}:",
            "[dev@box ~]$ exit",
            "[root@box etc]# ls -l",
            "    at loadItems (/srv/app/src/items.js:10:5)",
            "  File \"/srv/app/items.py\", line 3, in load",
        ]);
    }

    #[test]
    fn the_users_own_words_like_program_outputs_stay_theirs() {
        for line in [
            "the service is active now, update the banner",
            "Active: yes, keep the old banner until Monday",
            "Status: done, ship it",
            "Memory: the cache must stay small",
            "2 updates are pending, apply them after the release",
            "npm install fails on my machine, why?",
            "app.py:42 should log the error instead of printing it",
            "app.py:42 Why is this still null?",
            "Feb 04 09:00:00 is when the certificate expires, renew it",
            "the status dot ● is red on the dashboard",
            "[dev@box] is the account to use here",
            "ping me @ standup about store.js:41",
            "[Warning] is what the banner should say, not [Error]",
            "[1234] is the ticket for this",
            "the level [Warning] is fine for this one",
        ] {
            assert_eq!(pasted_lines(&[line], ""), [false], "{line}");
            assert_eq!(split_lines(line), [line], "{line}");
        }
        // A systemd status pasted after the user's question: theirs is shown, the paste marked.
        let status = "● exampled.service - Example queue daemon\n     Loaded: loaded (/lib/systemd/system/exampled.service; enabled; preset: enabled)\n     Active: failed (Result: exit-code) since Tue 2031-02-04 09:00:00 UTC; 3s ago\n   Main PID: 4242 (code=exited, status=1/FAILURE)\nFeb 04 09:00:01 box exampled[4242]: must not start: the queue is not reachable\nFeb 04 09:00:01 box systemd[1]: exampled.service: giving up after 5 tries.\n";
        let own = "why does it not start after the update?";
        let shown = excerpt(
            &format!("{own}\n{}", status.repeat(3)),
            "",
            None,
            120,
            by_lesson_words,
        );
        assert_eq!(shown.text, format!("{own}…"), "{shown:?}");
        assert!(shown.pasted, "{shown:?}");
    }

    /// The user's own question, then a chat thread as `head` and `tail` each message's lines:
    /// each kind of chat's export, the lesson words all in the other people's messages.
    fn chat_thread(head: impl Fn(&str, &str) -> String) -> String {
        let mut t = String::from(
            "The staging login keeps failing on CI. Here is what the platform team said about it, make a plan from it:\n\n",
        );
        for (name, said) in [
            ("Dana Whitfield", "Has anyone got the staging login to work without a manual token?\nEvery run of ours stops at the login page."),
            ("Omar Reyes", "You must never commit the token. Put it in the runner's secrets and always read it in the setup step."),
            ("Dana Whitfield", "That cannot work for forks, their runs do not see the secrets.\nWe always skip the login there."),
        ] {
            t.push_str(&head(name, said));
        }
        t
    }

    #[test]
    fn a_pasted_chat_thread_is_paste() {
        let own = "The staging login keeps failing on CI.";
        let threads = [
            // Slack: the name, then the time on its own line; a reply's time alone.
            chat_thread(|name, said| {
                format!("{name}\n  Mar 3rd at 9:14 AM\n{said}\n\n\n9:16\nok\n\n\n")
            }),
            // Slack on one line, and its replies' count.
            chat_thread(|name, said| {
                format!("{name}  Mar 3rd at 12:37 PM\n{said}\n\n2 replies\n\n")
            }),
            // Discord.
            chat_thread(|name, said| format!("{name} — Today at 3:04 PM\n{said}\n\n")),
            chat_thread(|name, said| format!("{name} — 03/03/2031 3:04 PM\n{said}\n")),
            // Teams and WhatsApp, the time first.
            chat_thread(|name, said| format!("[10:32] {name}: {said}\n")),
            chat_thread(|name, said| format!("[10:32 AM] {name}: {said}\n")),
            chat_thread(|name, said| format!("[03/03/2031, 10:32:07] {name}: {said}\n")),
        ];
        for text in threads {
            let shown = excerpt(&text, "", None, 120, by_lesson_words);
            assert!(shown.text.starts_with(own), "{text}\n{shown:?}");
            assert!(!shown.text.contains("token"), "{text}\n{shown:?}");
        }
    }

    /// Claude Code's terminal, copied: the user's prompt, its answer and its steps.
    const CLAUDE_CODE_TERMINAL: &str = "> make the retry wait before the next try\n\n⏺ I changed the retry loop so it always waits before the next try.\n\n  The limit is read from the environment now, and the tests must pass on CI before you merge.\n  Nothing else changed.\n\n⏺ Update(src/retry.rs)\n  ⎿  Updated src/retry.rs with 3 additions\n\n> no, keep the old limit\n  ⎿  Interrupted by user\n\n⏺ Understood. The old limit stays, it must not change without a ticket.\n  I always keep it in the config file.\n";

    #[test]
    fn claude_codes_own_text_in_a_prompt_is_paste() {
        each_pasted(&[
            "The user doesn't want to proceed with this tool use. The tool use was rejected (eg. if it was a file edit, the new_string was NOT written to the file). STOP what you are doing and wait for the user to tell you how to proceed.",
            "[Request interrupted by user for tool use]",
            "[Request interrupted by user]",
            "Caveat: The messages below were generated by the user while running local commands. DO NOT respond to these messages or otherwise consider them in your response unless the user explicitly asks you to.",
            "This session is being continued from a previous conversation that ran out of context. The conversation is summarized below:",
            "<system-reminder>",
        ]);
        // A reminder's block, whatever its lines say.
        let lines = [
            "<system-reminder>",
            "Always answer in English.",
            "</system-reminder>",
        ];
        assert_eq!(pasted_lines(&lines, ""), [true, true, true]);
        // Its terminal's answers, their lines indented under the glyph.
        let own = "Why did it change the limit? It was not asked to.";
        let shown = excerpt(
            &format!("{own}\n\n{}", CLAUDE_CODE_TERMINAL.repeat(2)),
            "",
            None,
            120,
            by_lesson_words,
        );
        assert_eq!(shown.text, format!("{own}…"), "{shown:?}");
        assert!(shown.pasted, "{shown:?}");
        // A transcript's turns.
        let turns = "Human: make the retry wait before the next try\n\nAssistant: I changed the retry loop so it always waits.\nThe tests must pass on CI.\n\nHuman: no, keep the old limit\n\nAssistant: Understood, it must not change.\n";
        let shown = excerpt(
            &format!("{own}\n\n{}", turns.repeat(3)),
            "",
            None,
            120,
            by_lesson_words,
        );
        assert_eq!(shown.text, format!("{own}…"), "{shown:?}");
        // An IDE's copy of a session, its tool calls as `IN` and `OUT` blocks, a rejection in it.
        let export = "Task:Write the retry docs\nIN\nDescribe the retry loop in docs/retry.md. It must say that it always waits.\n\nThe limit is read from the environment now.\nBash List the docs\nIN\nls docs\n\nOUT\nretry.md\nAskUserQuestion\nOUT\nThe user doesn't want to proceed with this tool use. The tool use was rejected (eg. if it was a file edit, the new_string was NOT written to the file). STOP what you are doing and wait for the user to tell you how to proceed.\nOn it! It must not change without a ticket.\n";
        let shown = excerpt(
            &format!("{own}\n{}", export.repeat(4)),
            "",
            None,
            120,
            by_lesson_words,
        );
        assert!(!shown.text.contains("STOP"), "{shown:?}");
        assert!(!shown.text.contains("must"), "{shown:?}");
        assert!(shown.pasted, "{shown:?}");
    }

    #[test]
    fn the_users_own_words_naming_chats_and_claude_codes_text_stay_theirs() {
        let own = [
            "the tool use was rejected again, why?",
            "Jason said on Slack at 12:37 that the token must never be committed.",
            "Dana Whitfield  is the one to ask about the login",
            "Standup Today at 9:30 AM",
            "Human: is how the old transcripts start each turn",
            "The session is being continued tomorrow, remember the limit.",
            "IN",
        ];
        for line in own {
            assert_eq!(pasted_lines(&[line], ""), [false], "{line}");
        }
        // Two times of the user's own notes are no chat's headers.
        let notes = "Standup Today at 9:30 AM\nwe must always run the linter first.\nDemo Today at 2:00 PM\n";
        assert_eq!(
            pasted_lines(&notes.lines().collect::<Vec<_>>(), ""),
            [false; 3]
        );
        // A bulleted list of the user's own, its lines indented under each bullet.
        let list = [
            "● the retry",
            "  must wait before the next try",
            "",
            "● the limit",
        ];
        assert!(!pasted_lines(&list, "")[1]);
        // The user's own line right above a thread; an author's name above a time is not.
        for thread in [
            "[10:32] Dana: the token must stay out of the repo\n[10:35] Omar: agreed\n",
            "Dana\n  Mar 3rd at 9:14 AM\nthe token must stay out of the repo\n\nOmar\n  Mar 3rd at 9:15 AM\nagreed\n",
        ] {
            let text = format!("see below, and tell me what you think:\n{thread}");
            let lines: Vec<&str> = text.lines().collect();
            let pasted = pasted_lines(&lines, "");
            assert!(!pasted[0] && pasted[1..].iter().all(|&p| p), "{text}");
        }
        // What the user writes after a thread, a blank line between, stays theirs.
        let after = "Can you always keep the token out of the logs?";
        let text = format!(
            "{}\n{after}",
            chat_thread(|name, said| format!("{name} — Today at 3:04 PM\n{said}\n\n"))
        );
        let lines = split_lines(&text);
        let pasted = pasted_lines(&lines, "");
        assert_eq!(pasted.last(), Some(&false), "{text}");
    }

    #[test]
    fn the_end_of_a_long_prompt_is_read_too() {
        let text = format!(
            "{}\nplease always squash before you merge",
            "word ".repeat(4000)
        );
        let kept = head_and_tail(&text);
        assert!(kept.len() <= EXCERPT_BYTES, "{}", kept.len());
        assert!(kept.ends_with("please always squash before you merge"));
        assert!(kept.contains("\n…\n"));
        assert_eq!(head_and_tail("short"), "short");
    }

    /// A README's section as a user pastes it: a heading, prose in the project's voice, steps.
    const README_SECTION: &str = "## Installation\n\nThis project ships as a single binary for Linux and macOS, with no runtime to install first.\nThe installer puts it under the system prefix and writes a default config next to it.\n\n1. Download the archive for your platform from the releases page.\n2. Unpack it and run the installer from the unpacked folder.\n3. Always run the installer as root.\n4. Check the version it prints before you use it.\n\nThe config file is read once at start, so a change needs a restart of the service.\n";

    /// A spec another model wrote, opening with its title: three sections in its own voice.
    fn spec() -> String {
        let mut t = String::from("# Sync service\n\n## Overview\n\nThe sync service copies the records of the main store into the archive every night.\nIt runs as one process and keeps no state between its runs.\n\n## Requirements\n\n");
        for k in 1..=8 {
            t.push_str(&format!(
                "- The job must always finish step {k} before the next one starts.\n"
            ));
        }
        t.push_str("\n## Installation\n\n1. Build the binary with the release profile.\n2. Copy it to the host and enable the unit.\n3. Check the first run in the journal.\n");
        t.push_str("\n## Usage\n\nThe service is started by the scheduler and logs to the journal.\nEach run writes its summary to the status table when it ends.\n");
        t
    }

    #[test]
    fn a_document_handed_over_by_the_users_line_is_paste() {
        for lead in [
            "add this section to the README:",
            "here is the plan, use it",
            "add to the readme and do not commit yet",
        ] {
            let text = format!("{lead}\n{README_SECTION}");
            let shown = excerpt(&text, "", None, 120, by_cue);
            assert_eq!(shown.text, format!("{lead}…"), "{text}\n=> {shown:?}");
            assert!(shown.pasted, "{shown:?}");
        }
    }

    #[test]
    fn a_document_that_opens_with_its_title_is_paste() {
        let text = spec();
        let shown = excerpt(&text, "", None, 120, by_cue);
        assert!(shown.text.starts_with("# Sync service"), "{shown:?}");
        assert!(!shown.text.contains("always"), "{shown:?}");
        assert!(shown.pasted, "{shown:?}");
        // After a line of the user's that does not hand it over, too.
        let own = "Why does the service not do what this says?";
        let shown = excerpt(&format!("{own}\n\n{text}"), "", None, 120, by_cue);
        assert_eq!(shown.text, format!("{own}…"), "{shown:?}");
    }

    #[test]
    fn a_document_pasted_onto_the_users_line_is_split_from_it() {
        let text = format!("please review this spec. {}", spec());
        let lines = split_lines(&text);
        assert_eq!(lines[..2], ["please review this spec. ", "# Sync service"]);
        let shown = excerpt(&text, "", None, 120, by_cue);
        assert_eq!(shown.text, "please review this spec.…", "{shown:?}");
        // A heading named in the user's sentence, no document below it.
        let own = "put the new flag under the ## Usage section of the docs";
        assert_eq!(split_lines(own), [own]);
    }

    #[test]
    fn the_users_own_structured_request_stays_theirs() {
        let mut request = String::from("## What I want\n- never push to main\n- always run the tests before you commit\n- keep each commit small enough to review in one sitting\n\n## Context\nThe service is a small queue worker that we deploy twice a week to one box.\nIt reads its jobs from the database and writes the results back to the same table.\n\n## Rules\n");
        for k in 1..=10 {
            request.push_str(&format!(
                "{k}. Don't touch the migration files in step {k}, they are generated.\n"
            ));
        }
        request.push_str(
            "- use pnpm, not npm\n- the linter must pass\n- ask before adding a dependency\n",
        );
        let mine = format!("Here is what I want:\n{request}");
        let handed = format!("use the following rules:\n{request}");
        // Their own plan, in their own words after a line that says so.
        let own_plan = "Here is my plan:\n## Retry queue\n\nThe worker reads the failed jobs from the queue table once a minute.\nEach job is tried again after a wait that doubles with every failure.\nA job that failed five times is moved to the dead letter table for a person.\nThe dashboard shows the dead letter table with a button to try a job again.\nThe metrics count the retries per job kind so we see which kind fails.\nAn alert fires when the dead letter table holds more than ten jobs.\nThe old cron script is removed once the worker has run for a week.\n";
        // Their own words first, a document's headings further down.
        let long_own = format!("We moved the sync job to a new host last week.\nSince then the archive misses some records.\nCompare the spec with what the code does.\n\n{}", spec());
        // Handed over, but a plan of their own: short items, no prose.
        let plan = "Here's the plan:\n## Phase 1\n- add the login page\n- add the logout button\n- store the session\n## Phase 2\n- billing page\n- invoices\n- refunds\n## Phase 3\n- admin view\n- audit log\n";
        for text in [request.as_str(), &mine, &handed, plan, own_plan, &long_own] {
            let lines = split_lines(text);
            let pasted = pasted_lines(&lines, "");
            assert!(pasted.iter().all(|p| !p), "{text}\n{pasted:?}");
        }
        // Their question after a pasted document, a blank line between, stays theirs.
        let text = format!(
            "add this section to the README:\n{README_SECTION}\nshould it always say root?"
        );
        let lines = split_lines(&text);
        let pasted = pasted_lines(&lines, "");
        assert_eq!(pasted.last(), Some(&false), "{text}");
        assert!(pasted[1], "{text}");
    }

    /// `text` as a terminal `width` columns wide shows a prompt, copied from its screen:
    /// `> ` before the first line and two spaces before each other, a line broken before the
    /// word that does not fit on it, a word longer than a line where the line ends.
    fn screen_copy(text: &str, width: usize) -> String {
        let room = width - 2;
        let mut rows: Vec<String> = Vec::new();
        for line in text.lines() {
            let mut row = String::new();
            for word in line.split(' ') {
                let (used, len) = (row.chars().count(), word.chars().count());
                if used > 0 {
                    if len > room || used + 1 + len <= room {
                        row.push(' ');
                    } else {
                        rows.push(std::mem::take(&mut row));
                    }
                }
                for c in word.chars() {
                    if row.chars().count() == room {
                        rows.push(std::mem::take(&mut row));
                    }
                    row.push(c);
                }
            }
            rows.push(row);
        }
        let shown: Vec<String> = rows
            .iter()
            .enumerate()
            .map(|(k, r)| format!("{}{r}", if k == 0 { "> " } else { "  " }))
            .collect();
        shown.join("\n")
    }

    /// A log's record of the fixture's own making, longer than a line, with a word longer
    /// than a line.
    const LONG_RECORD: &str = "[ERROR][2031-01-01 10:00:00.572][assemble-container-image-with-kernel-modules.sh:1482:install_category] ✗ name lookup failed - the packages cannot be fetched without it";

    /// Whether a word of [`LONG_RECORD`] was split across the lines `above` and `line`.
    fn split_by_wrap(above: &str, line: &str) -> bool {
        let head = above.rsplit(' ').next().unwrap_or("");
        let tail = line.split_whitespace().next().unwrap_or("");
        !head.is_empty() && LONG_RECORD.split(' ').any(|w| w == format!("{head}{tail}"))
    }

    /// The lines of `text` split and judged.
    fn judged(text: &str) -> Vec<(bool, &str)> {
        let lines = split_lines(text);
        pasted_lines(&lines, "").into_iter().zip(lines).collect()
    }

    #[test]
    fn a_logs_record_the_terminal_wrapped_is_paste_to_its_end() {
        let own = "and the assembly script runs under sudo ./assemble-container-image.sh";
        let text = screen_copy(
            &format!(
                "a /home/dev/work/logs/assemble-20310101.log\n{LONG_RECORD}\n+ [assemble-container-image.sh:1487:install_category {own}\n also the modules dir, this is the usual container dns issue"
            ),
            72,
        );
        let seen = judged(&text);
        // The record's word was split by the terminal: its rest starts a line.
        let record: Vec<&str> = seen
            .iter()
            .skip_while(|(_, l)| !l.contains("[ERROR]"))
            .take_while(|(_, l)| !l.contains("1487"))
            .map(|(_, l)| *l)
            .collect();
        assert!(record.len() >= 3, "{text}");
        assert!(split_by_wrap(record[0], record[1]), "{text}");
        for (pasted, line) in &seen {
            let wrapped = record.contains(line);
            let users = line.contains("sudo") || line.contains("dns issue");
            assert!(!wrapped || *pasted, "{line}\n{text}");
            assert!(!users || !*pasted, "{line}\n{text}");
        }
        let shown = excerpt(&text, "", None, 160, by_lesson_words);
        assert!(shown.text.contains("runs under sudo"), "{shown:?}");
        assert!(!shown.text.contains("lookup"), "{shown:?}");
    }

    #[test]
    fn the_users_words_after_a_wrapped_record_stay_theirs() {
        // Their own lines after the record, indented as the terminal indents them.
        let own = "so the assembly runs under sudo inside the container, and the resolver it gets from the host is not reachable from there";
        let text = screen_copy(&format!("{LONG_RECORD}\n{own}"), 72);
        let seen = judged(&text);
        assert!(split_by_wrap(seen[0].1, seen[1].1), "{text}");
        assert!(seen[1].0 && seen[2].0, "{seen:?}");
        let users: Vec<&(bool, &str)> = seen
            .iter()
            .filter(|(_, l)| own.contains(l.trim()))
            .collect();
        assert!(users.len() >= 2, "{text}");
        assert!(users.iter().all(|(p, _)| !p), "{seen:?}");
        // Typed right after the record, on its line, in their own voice.
        let text = screen_copy(
            &format!("{LONG_RECORD} and I think we must use the host's resolver here"),
            72,
        );
        let seen = judged(&text);
        let theirs: Vec<&(bool, &str)> = seen
            .iter()
            .filter(|(_, l)| l.contains("think") || l.contains("resolver"))
            .collect();
        assert!(!theirs.is_empty(), "{seen:?}");
        assert!(theirs.iter().all(|(p, _)| !p), "{seen:?}");
    }

    #[test]
    fn a_paragraph_of_the_users_own_hard_wrapped_stays_theirs() {
        // An email's paragraph wrapped at 72 columns, after a path as wide as its lines.
        let path = format!(
            "/srv/releases/2031-01-01/{}/main-3F9A.js",
            "chunk".repeat(6) + "-web"
        );
        let mail = "we ship this bundle from the release folder, and the deploy script\ncopies it over the old one without checking the hash first, so from\nnow on compare the hashes before you replace a bundle on the server,\nand keep the old one next to it until the new one has been checked";
        let text = format!("{path}\n{mail}");
        assert_eq!(path.chars().count(), 72, "{path}");
        assert!(mail.lines().all(|l| l.chars().count() <= 72));
        let seen = judged(&text);
        assert!(seen[0].0, "{seen:?}");
        assert!(seen[1..].iter().all(|(p, _)| !p), "{seen:?}");
    }

    #[test]
    fn the_users_line_after_a_paste_is_no_wrap_but_where_a_word_was_split() {
        let path = format!(
            "/srv/releases/2031-01-01/{}/main-3F9A.js",
            "chunk".repeat(6)
        );
        for text in [
            // The line above is not full: their own line is wider.
            format!("  {path}\n  3F9A-hashed bundles were copied over the old ones and the site was down again"),
            // The word across is short: a line ends there.
            "  [WARN] 2031-01-01 10:00:00 worker-3 retry budget exhausted for job 4711\n  3 retries were enough on the old host, the new one needs more of them".to_string(),
            // A listing's line further in than theirs.
            format!("Files:\n    {path}\n  3F9A builds show it as well, only on the new host"),
            // Too narrow for a terminal.
            "  ERROR:out/web/main-3F9A.js:10\n  2 builds fail".to_string(),
        ] {
            let seen = judged(&text);
            let (last, first) = (seen.last().unwrap(), &seen[seen.len() - 2]);
            assert!(first.0 && !last.0, "{seen:?}");
        }
    }
}
