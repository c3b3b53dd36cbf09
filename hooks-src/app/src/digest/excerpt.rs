//! The part of a long prompt the digest shows: the sentence most likely to be the lesson, with
//! as much around it as fits, not the prompt's first characters. A rule often comes after the
//! task it is attached to ("… and from now on, never push to main").
//!
//! The prompt is redacted whole before it is cut ([`redact::redact_prefix`]), so a cut never
//! splits a secret into pieces no rule knows. Sentences end at a line break or at `.`, `!`, `?`
//! (and their full-width forms) before a space; only the first [`MAX_SENTENCES`] are weighed.

use reflect_base::text::one_line;
use reflect_store::redact;

/// Sentences weighed at most (a long paste is mostly not read for its rule).
const MAX_SENTENCES: usize = 120;
/// Bytes of a prompt read for its excerpt.
pub const EXCERPT_BYTES: usize = 8 << 10;

/// `raw` redacted, on one line, at most `max` characters: whole when it fits, else the
/// likeliest sentence by `score` (the first among equals) and what fits around it, `…` marking
/// what was cut on either side.
pub fn excerpt(raw: &str, max: usize, score: impl Fn(&str) -> f64) -> String {
    let redacted = redact::redact_prefix(raw, EXCERPT_BYTES);
    let whole = one_line(&redacted, max);
    if !whole.ends_with('…') || max < 8 {
        return whole;
    }
    let (sentences, more) = sentences(&redacted);
    let Some(best) = sentences
        .iter()
        .enumerate()
        .map(|(i, s)| (i, score(s)))
        .fold(None, |best: Option<(usize, f64)>, (i, p)| match best {
            Some((_, q)) if q >= p => best,
            _ => Some((i, p)),
        })
        .map(|(i, _)| i)
    else {
        return whole;
    };
    if best == 0 {
        return whole;
    }
    let len = |s: &String| s.chars().count();
    // Room for the two marks.
    let room = max - 2;
    if len(&sentences[best]) >= room {
        return format!("…{}", one_line(&sentences[best], max - 1));
    }
    let (mut from, mut to) = (best, best + 1);
    let mut used = len(&sentences[best]);
    while to < sentences.len() && used + 1 + len(&sentences[to]) <= room {
        used += 1 + len(&sentences[to]);
        to += 1;
    }
    while from > 0 && used + 1 + len(&sentences[from - 1]) <= room {
        from -= 1;
        used += 1 + len(&sentences[from]);
    }
    let mut out = String::new();
    if from > 0 {
        out.push('…');
    }
    out.push_str(&sentences[from..to].join(" "));
    if to < sentences.len() || more {
        out.push('…');
    }
    out
}

/// The first [`MAX_SENTENCES`] sentences of `text`, each on one line, and whether there is more.
fn sentences(text: &str) -> (Vec<String>, bool) {
    let mut out = Vec::new();
    let mut start = 0;
    let push = |piece: &str, out: &mut Vec<String>| {
        let flat = piece.split_whitespace().collect::<Vec<_>>().join(" ");
        if !flat.is_empty() {
            out.push(flat);
        }
    };
    let mut chars = text.char_indices().peekable();
    while let Some((at, c)) = chars.next() {
        let end = match c {
            '\n' => Some(at),
            '.' | '!' | '?' => chars
                .peek()
                .is_none_or(|&(_, next)| next.is_whitespace())
                .then_some(at + 1),
            '。' | '！' | '？' => Some(at + c.len_utf8()),
            _ => None,
        };
        if let Some(end) = end {
            push(&text[start..end], &mut out);
            start = end;
            if out.len() == MAX_SENTENCES {
                return (out, !text[start..].trim().is_empty());
            }
        }
    }
    push(&text[start..], &mut out);
    (out, false)
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
            excerpt("Use pnpm,\nnot npm.", 200, by_cue),
            "Use pnpm, not npm."
        );
    }

    #[test]
    fn a_long_prompt_shows_its_likeliest_sentence_with_marks() {
        let task =
            "Please add the export button to the report page and wire it to the API. ".repeat(5);
        let text = format!("{task}And always run the linter before you commit. {task}");
        let shown = excerpt(&text, 200, by_cue);
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
        let shown = excerpt(&text, 100, by_cue);
        assert!(shown.starts_with("We always deploy from main."), "{shown}");
        let long = format!("{} And always {}", "Intro. ".repeat(3), "word ".repeat(80));
        let shown = excerpt(&long, 100, by_cue);
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
        let shown = excerpt(&text, 120, by_cue);
        assert!(shown.contains("[REDACTED:"), "{shown}");
        assert!(!shown.contains("Zx9Cv8Bn"), "{shown}");
    }

    #[test]
    fn sentences_end_at_lines_and_stops() {
        let (s, more) = sentences("One. Two!\nthree? v1.2 stays 四。五");
        assert_eq!(s, ["One.", "Two!", "three?", "v1.2 stays 四。", "五"]);
        assert!(!more);
    }
}
