//! The part of a long prompt the digest shows: the sentence most likely to be the lesson, with
//! as much around it as fits, not the prompt's first characters. A rule often comes after the
//! task it is attached to ("… and from now on, never push to main").
//!
//! **The user's own words first.** What the user pasted into a prompt (a stack trace, a file, a
//! log, another assistant's answer) is full of words a lesson is made of ("error", "always",
//! "must") and is never the lesson: its lines are never the excerpt when the prompt has a sentence
//! of the user's own, nor shown around it. The `pasted` module says which lines were pasted
//! ([`pasted_lines`]), reading each line with the `lines` module (code, a log, a trace, a
//! terminal's output); a sentence the assistant had just written, quoted after the user's words on
//! their line, is left out of the user's own too ([`pieces`]). A prompt that is all paste is shown
//! from its start and marked as a paste ([`Excerpt::pasted`]); so is one whose own words are a line
//! or two around a long paste, showing those words.
//!
//! The prompt is redacted whole before it is cut ([`redact::redact_prefix`]), so a cut never
//! splits a secret into pieces no rule knows. Sentences end at a line break or at `.`, `!`, `?`
//! (and their full-width forms) before a space; only the first [`MAX_SENTENCES`] of the user's
//! own are weighed.

use reflect_base::text::{self, one_line};
use reflect_store::redact;

mod lines;
mod pasted;

pub use pasted::pasted_lines;

use pasted::{letters, split_lines, GAP, QUOTE_MIN};

/// Sentences of the user's own weighed at most.
const MAX_SENTENCES: usize = 120;
/// Bytes of a prompt read for its excerpt ([`head_and_tail`]).
pub const EXCERPT_BYTES: usize = 8 << 10;
/// Of those, the bytes from the prompt's end: what the user wrote after a long paste.
const TAIL_BYTES: usize = 2 << 10;
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
    if !whole.ends_with('…') || max < 8 {
        // Shown whole, but a terminal's lines pasted alone are still no words of the user's.
        return Excerpt {
            text: whole,
            pasted: all_pasted(&redacted, said),
            paste_cut: false,
        };
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

/// Whether every line of a short `text` was pasted ([`pasted_lines`]), [`ALL_PASTED_LINES`]
/// or more: a terminal's prompt and what it printed, a log's lines. A line or two may be a
/// sentence of the user's that reads as code ("use this to test: `{…}`").
fn all_pasted(text: &str, said: &str) -> bool {
    let lines = split_lines(text);
    let pasted = pasted_lines(&lines, said);
    let mut written = lines
        .iter()
        .zip(&pasted)
        .filter(|(l, _)| !l.trim().is_empty());
    let mut n = 0;
    written.all(|(_, &p)| {
        n += 1;
        p
    }) && n >= ALL_PASTED_LINES
}

/// The fewest lines a short prompt is marked pasted by ([`all_pasted`]).
const ALL_PASTED_LINES: usize = 3;

/// The sentences of `lines` in order, each on one line, `None` standing for a run of `pasted`
/// lines or of sentences the assistant had just written (`said`, as [`letters`]: a quote of its
/// answer after the user's words on one line, "check this: `<its sentence>`"); the first
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

#[cfg(test)]
mod tests;
