//! Byte scanning the rules share: words, blanks and runs of a class of bytes, and the value
//! after a key.

use std::ops::Range;

/// Sorted, and of two overlapping spans the earlier one kept.
pub(super) fn ordered(mut found: Vec<Range<usize>>) -> Vec<Range<usize>> {
    found.sort_by_key(|r| (r.start, r.end));
    let mut spans: Vec<Range<usize>> = Vec::with_capacity(found.len());
    for span in found {
        if spans.last().is_none_or(|last| span.start >= last.end) {
            spans.push(span);
        }
    }
    spans
}

pub(super) fn is_word(b: u8) -> bool {
    b.is_ascii_alphanumeric() || b == b'_'
}

pub(super) fn is_blank(b: u8) -> bool {
    matches!(b, b' ' | b'\t')
}

/// A word boundary right before `at` (`\b` in front of a word byte).
pub(super) fn boundary_before(text: &[u8], at: usize) -> bool {
    at == 0 || !is_word(text[at - 1])
}

/// Where a token or a header name may start: after anything but a letter or a digit. An `_`
/// separates too (`ERR_ghp_…`, `HTTP_AUTHORIZATION`), while `risk-` never holds an `sk-` key.
pub(super) fn separated(text: &[u8], at: usize) -> bool {
    at == 0 || !text[at - 1].is_ascii_alphanumeric()
}

/// How many bytes from `from` on are in `class`.
pub(super) fn run(text: &[u8], from: usize, class: impl Fn(u8) -> bool) -> usize {
    text.get(from..)
        .map_or(0, |rest| rest.iter().take_while(|&&b| class(b)).count())
}

/// Each maximal run of bytes in `class`, in order.
pub(super) fn runs<'a>(
    text: &'a [u8],
    class: impl Fn(u8) -> bool + 'a,
) -> impl Iterator<Item = Range<usize>> + 'a {
    let mut i = 0;
    std::iter::from_fn(move || {
        i += text.get(i..)?.iter().take_while(|&&b| !class(b)).count();
        let start = i;
        i += run(text, start, &class);
        (i > start).then_some(start..i)
    })
}

/// How many bytes right before `to` are in `class`.
pub(super) fn run_back(text: &[u8], to: usize, class: impl Fn(u8) -> bool) -> usize {
    text[..to].iter().rev().take_while(|&&b| class(b)).count()
}

pub(super) fn text_of(bytes: &[u8]) -> &str {
    std::str::from_utf8(bytes).unwrap_or("")
}

/// The value at `i`: `"…"` or `'…'` (closed on the same line), or a bare run that does not start
/// with `=` (`==` is a comparison). Returns the value's range and whether it was quoted.
pub(super) fn value_at(text: &[u8], i: usize) -> Option<(Range<usize>, bool)> {
    match *text.get(i)? {
        quote @ (b'"' | b'\'') => {
            let len = text[i + 1..]
                .iter()
                .position(|&b| b == quote || b == b'\n')?;
            (text[i + 1 + len] == quote).then_some((i + 1..i + 1 + len, true))
        }
        b if b == b'=' || ends_bare_value(b) => None,
        _ => {
            // `${PW:-default}` is one value, its closing brace included.
            let expansion = shell_expansion_len(text, i);
            let bare = run(text, i + expansion, |b| !ends_bare_value(b));
            Some((i..i + expansion + bare, false))
        }
    }
}

/// The length of the `${…}` at `at` (to its closing brace, blanks and quotes ending it
/// unclosed), or 0.
pub(super) fn shell_expansion_len(text: &[u8], at: usize) -> usize {
    if !text[at..].starts_with(b"${") {
        return 0;
    }
    let body = run(text, at + 2, |b| {
        !(b.is_ascii_whitespace() || b"}\"'<>".contains(&b))
    });
    match text.get(at + 2 + body) {
        Some(b'}') => body + 3,
        _ => 0,
    }
}

/// Where an unquoted value ends (and what it cannot start with, besides `=`): a blank, a quote,
/// a separator, a closing bracket, a backslash (a JSON-escaped newline).
pub(super) fn ends_bare_value(b: u8) -> bool {
    b.is_ascii_whitespace() || b"\"'`,;&|)]}>\\".contains(&b)
}
