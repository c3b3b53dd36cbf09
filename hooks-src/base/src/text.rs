//! Plain text helpers every layer cuts text with: a byte-bounded prefix, a word-bounded end and a
//! one-line form, from the start or from the end.

/// The first `max` bytes of `text`, cut on a character boundary.
pub fn truncate(text: &str, max: usize) -> &str {
    if text.len() <= max {
        return text;
    }
    let mut end = max;
    while !text.is_char_boundary(end) {
        end -= 1;
    }
    &text[..end]
}

/// The first `max` bytes of `text` or so, up to the last blank before the cut (the blank
/// dropped): the word the cut falls in is dropped whole, as [`tail`] drops it. `text` itself when
/// it fits; empty when no blank comes before the cut.
pub fn head(text: &str, max: usize) -> &str {
    let cut = truncate(text, max);
    if cut.len() == text.len() {
        return text;
    }
    cut.rfind(char::is_whitespace).map_or("", |at| &cut[..at])
}

/// The last `max` bytes of `text` or so, from the first blank after the cut (the blank kept):
/// the word the cut falls in is dropped whole, so no part of a token slips past the redaction
/// rules, which know only whole ones. `text` itself when it fits; empty when no blank follows.
pub fn tail(text: &str, max: usize) -> &str {
    if text.len() <= max {
        return text;
    }
    let mut start = text.len() - max;
    while !text.is_char_boundary(start) {
        start += 1;
    }
    let rest = &text[start..];
    rest.find(char::is_whitespace).map_or("", |at| &rest[at..])
}

/// [`tail`], starting at the word after the cut (not at the blank before it); `text` itself
/// when it fits.
pub fn tail_words(text: &str, max: usize) -> &str {
    if text.len() <= max {
        return text;
    }
    tail(text, max).trim_start()
}

/// One line, at most `max` characters, newlines and tabs flattened, escapes, controls and
/// invisible characters removed ([`crate::sanitize::clean`]); `…` marks a cut.
pub fn one_line(text: &str, max: usize) -> String {
    let text = &*crate::sanitize::clean(text);
    let mut flat = String::with_capacity(text.len().min(max.saturating_mul(4) + 8));
    let mut chars = 0;
    for word in text.split_whitespace() {
        if !flat.is_empty() {
            flat.push(' ');
            chars += 1;
        }
        flat.push_str(word);
        chars += word.chars().count();
        if chars > max {
            // The rest would be cut: a long text is flattened only as far as it is kept.
            break;
        }
    }
    if chars > max {
        // More than `max` characters: keep `max - 1` and the ellipsis.
        let keep = flat
            .char_indices()
            .nth(max.saturating_sub(1))
            .map_or(0, |(at, _)| at);
        flat.truncate(keep);
        flat.push('…');
    }
    flat
}

/// The end of `text` on one line (as [`one_line`] flattens it), at most `max` characters with the
/// `…` that marks a cut, starting at a word: the word the cut falls in is dropped whole, as
/// [`tail`] drops it. The whole line when it fits.
pub fn one_line_end(text: &str, max: usize) -> String {
    let flat = one_line(text, text.len());
    let count = flat.chars().count();
    if count <= max {
        return flat;
    }
    let skip = count - max.saturating_sub(1);
    let (at, _) = flat.char_indices().nth(skip).expect("within the text");
    let rest = &flat[at..];
    let rest = match rest.find(' ') {
        Some(space) if space + 1 < rest.len() => &rest[space + 1..],
        _ => rest,
    };
    format!("…{rest}")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn one_line_end_keeps_whole_words_within_the_bound() {
        assert_eq!(one_line_end("one\ntwo", 20), "one two");
        // 9 characters with the mark: the cut falls in "three", which goes whole.
        assert_eq!(one_line_end("one two three four", 9), "…four");
        assert_eq!(one_line_end("one two three four", 11), "…four");
        assert_eq!(one_line_end("one two three four", 12), "…three four");
        for max in 2..30 {
            let end = one_line_end("alpha beta gamma delta epsilon zeta", max);
            assert!(end.chars().count() <= max, "{max}: {end}");
        }
    }

    #[test]
    fn head_drops_the_word_the_cut_falls_in() {
        assert_eq!(head("abc", 5), "abc");
        assert_eq!(head("abc def ghi", 5), "abc");
        assert_eq!(head("abcdefghi", 5), "");
        assert_eq!(head("é é é", 4), "é");
    }

    #[test]
    fn tail_drops_the_word_the_cut_falls_in() {
        assert_eq!(tail("abc", 5), "abc");
        assert_eq!(tail("abc def ghi", 5), " ghi");
        assert_eq!(tail("abcdefghi", 5), "");
        // A cut inside a character moves to its end.
        assert_eq!(tail("é é é", 4), " é");
    }

    #[test]
    fn tail_words_starts_at_the_word_after_the_cut() {
        assert_eq!(tail_words("abc def ghi", 5), "ghi");
        assert_eq!(
            tail_words(" abc", 5),
            " abc",
            "a text that fits is kept as it is"
        );
    }

    /// The plain way to one line: flatten all, then cut (what the bounded flattening must give).
    fn one_line_flattening_all(text: &str, max: usize) -> String {
        let flat = text.split_whitespace().collect::<Vec<_>>().join(" ");
        match flat.char_indices().nth(max) {
            Some(_) => {
                let keep: String = flat.chars().take(max.saturating_sub(1)).collect();
                keep + "…"
            }
            None => flat,
        }
    }

    #[test]
    fn one_line_cuts_where_flattening_everything_would() {
        let texts = [
            "",
            "   \n\t ",
            "one",
            "one two",
            "  one \n two\tthree  ",
            "héllo wörld ünïcode — dash\u{3000}ideographic space",
            "日本語のテキスト です とても 長い",
            "exactly ten",
            "a b c d e f g h i j k l m n o p",
            "averyveryverylongsingletokenwithoutanyspacesatall and more",
        ];
        for text in texts {
            for max in 0..=14 {
                let expected = one_line_flattening_all(text, max);
                assert_eq!(one_line(text, max), expected, "{text:?} at {max}");
            }
        }
        let long = "word\n".repeat(10_000);
        assert_eq!(one_line(&long, 100), one_line_flattening_all(&long, 100));
        assert_eq!(one_line(&long, 100).chars().count(), 100);
    }

    #[test]
    fn truncate_cuts_on_a_character_boundary() {
        assert_eq!(truncate("héllo", 2), "h");
        assert_eq!(truncate("héllo", 3), "hé");
        assert_eq!(truncate("abc", 10), "abc");
        assert_eq!(truncate("", 0), "");
    }
}
