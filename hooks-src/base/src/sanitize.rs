//! Sanitising untrusted text: what keeps terminal escapes and invisible characters out of
//! everything reflect stores or prints.
//!
//! Signals quote tool output, web pages a tool fetched, MCP errors and pasted logs. Such text may
//! carry characters that act on whoever displays it rather than saying anything: ANSI/OSC escape
//! sequences (OSC 52 writes the clipboard, others retitle the window or move the cursor), C0 and
//! C1 controls (BEL, backspace, carriage return over a line already printed), bidi controls that
//! reorder what a reader sees, zero-width characters and Unicode tag characters that a model reads
//! and a person does not see. [`clean`] removes them:
//!
//! * a whole escape sequence goes, not only its ESC: CSI (`ESC [` … final byte), OSC, DCS, SOS,
//!   PM and APC (`ESC ]`, `ESC P`, `ESC X`, `ESC ^`, `ESC _` … up to BEL or ST, or to the end of
//!   the text when unterminated), two- and three-byte escapes (`ESC 7`, `ESC ( B`), and their
//!   one-character C1 forms (U+009B CSI, U+009D OSC, …);
//! * C0 controls but newline and tab, DEL and C1 controls; a carriage return ends a line (`\r\n`
//!   and a lone `\r` become `\n`), NEL, U+2028 and U+2029 too; vertical tab and form feed
//!   become a blank;
//! * bidi controls (U+061C, U+200E/F, U+202A–202E, U+2066–2069), zero-width and invisible
//!   format characters (U+180E, U+200B–200D, U+2060–2064, U+206A–206F, U+FEFF) and tag
//!   characters (U+E0000–E007F).
//!
//! Newline and tab stay in what is stored; every printer that shows one item per line flattens
//! them ([`crate::text::one_line`] cleans too). [`visible`] is for names shown on one line
//! that must stay recognisable (a project path whose directory name holds a newline): it shows
//! what it would remove as escapes (`\n`, `\u{202e}`) instead.
//!
//! Speed: the hooks clean every signal they store. Text with nothing to remove costs one byte
//! scan (ASCII bytes are judged by a range test; of the others only the lead bytes that can
//! start a removed character are decoded) and comes back as `Cow::Borrowed`.

use std::borrow::Cow;

/// What becomes of one character.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Fate {
    Keep,
    Drop,
    /// Ends a line.
    Newline,
    /// A blank (vertical tab, form feed).
    Blank,
    /// Starts an escape sequence (ESC, or a C1 introducer).
    Escape,
}

/// The fate of a character in stored text.
fn fate(c: char) -> Fate {
    match c {
        '\n' | '\t' => Fate::Keep,
        '\r' | '\u{85}' | '\u{2028}' | '\u{2029}' => Fate::Newline,
        '\u{0b}' | '\u{0c}' => Fate::Blank,
        '\u{1b}' | '\u{90}' | '\u{98}' | '\u{9b}' | '\u{9d}' | '\u{9e}' | '\u{9f}' => Fate::Escape,
        '\0'..='\u{1f}' | '\u{7f}'..='\u{9f}' => Fate::Drop,
        '\u{61c}' | '\u{180e}' | '\u{feff}' => Fate::Drop,
        '\u{200b}'..='\u{200f}' | '\u{202a}'..='\u{202e}' => Fate::Drop,
        '\u{2060}'..='\u{2064}' | '\u{2066}'..='\u{206f}' => Fate::Drop,
        '\u{e0000}'..='\u{e007f}' => Fate::Drop,
        _ => Fate::Keep,
    }
}

/// Whether a UTF-8 lead byte can start a character [`fate`] does not keep: C1 controls (`C2`),
/// U+061C (`D8`), U+180E (`E1`), U+200B–206F (`E2`), U+FEFF (`EF`), tags (`F3`).
fn suspect_lead(b: u8) -> bool {
    matches!(b, 0xc2 | 0xd8 | 0xe1 | 0xe2 | 0xef | 0xf3)
}

/// Where the first character of `text` that [`clean`] would change starts, if any.
fn first_change(text: &str) -> Option<usize> {
    let bytes = text.as_bytes();
    let mut i = 0;
    while i < bytes.len() {
        let b = bytes[i];
        if (0x20..0x7f).contains(&b) || b == b'\n' || b == b'\t' {
            i += 1;
            continue;
        }
        if b < 0x80 {
            return Some(i);
        }
        if suspect_lead(b) {
            let c = text[i..].chars().next().expect("a char boundary");
            if fate(c) != Fate::Keep {
                return Some(i);
            }
            i += c.len_utf8();
        } else {
            i += 1;
        }
    }
    None
}

/// `text` without escape sequences, controls (but newline and tab) and invisible characters
/// (see the module docs); borrowed when there is nothing to remove.
pub fn clean(text: &str) -> Cow<'_, str> {
    let Some(first) = first_change(text) else {
        return Cow::Borrowed(text);
    };
    let mut out = String::with_capacity(text.len());
    out.push_str(&text[..first]);
    let mut chars = text[first..].chars().peekable();
    while let Some(c) = chars.next() {
        match fate(c) {
            Fate::Keep => out.push(c),
            Fate::Drop => {}
            Fate::Blank => out.push(' '),
            Fate::Newline => {
                if c == '\r' && chars.peek() == Some(&'\n') {
                    continue;
                }
                out.push('\n');
            }
            Fate::Escape => skip_sequence(c, &mut chars),
        }
    }
    Cow::Owned(out)
}

/// Skip the rest of the escape sequence `intro` starts (its first character already taken).
fn skip_sequence(intro: char, chars: &mut std::iter::Peekable<std::str::Chars<'_>>) {
    // An ESC names the sequence by the character after it; a C1 introducer is that name itself.
    let kind = match intro {
        '\u{1b}' => match chars.peek() {
            Some(&c @ ('[' | ']' | 'P' | 'X' | '^' | '_')) => {
                chars.next();
                c
            }
            Some(&c) if (' '..='/').contains(&c) || ('0'..='~').contains(&c) => '2',
            _ => return,
        },
        '\u{9b}' => '[',
        '\u{9d}' => ']',
        '\u{90}' => 'P',
        '\u{98}' => 'X',
        '\u{9e}' => '^',
        _ => '_',
    };
    match kind {
        '[' => {
            // Parameters and intermediates, then one final byte; anything else ends it early.
            while let Some(&c) = chars.peek() {
                match c {
                    '0'..='?' | ' '..='/' => {
                        chars.next();
                    }
                    '@'..='~' => {
                        chars.next();
                        return;
                    }
                    _ => return,
                }
            }
        }
        '2' => {
            // `ESC ( B`, `ESC 7`: intermediates, then one final character.
            while let Some(&c) = chars.peek() {
                chars.next();
                if !(' '..='/').contains(&c) {
                    return;
                }
            }
        }
        _ => {
            // A string sequence runs to BEL (OSC), ST (`ESC \` or U+009C), or the end.
            while let Some(c) = chars.next() {
                match c {
                    '\u{07}' | '\u{9c}' => return,
                    '\u{1b}' if chars.peek() == Some(&'\\') => {
                        chars.next();
                        return;
                    }
                    _ => {}
                }
            }
        }
    }
}

/// [`clean`] a string where it is, allocating only when something changes.
pub fn clean_in_place(text: &mut String) {
    if let Cow::Owned(s) = clean(text) {
        *text = s;
    }
}

/// Whether [`clean`] would change `text`.
pub fn is_clean(text: &str) -> bool {
    first_change(text).is_none()
}

/// `text` for one line of output, every character [`clean`] would change shown as an escape
/// (`\n`, `\r`, `\t`, `\u{1b}`, `\u{202e}`) so that a name stays recognisable and cannot break
/// the line it is printed on. Borrowed when there is nothing to show.
pub fn visible(text: &str) -> Cow<'_, str> {
    let bytes = text.as_bytes();
    let plain = bytes.iter().all(|&b| (0x20..0x7f).contains(&b));
    if plain || (first_change(text).is_none() && !bytes.contains(&b'\n') && !bytes.contains(&b'\t'))
    {
        return Cow::Borrowed(text);
    }
    let mut out = String::with_capacity(text.len() + 8);
    for c in text.chars() {
        match c {
            '\n' => out.push_str("\\n"),
            '\r' => out.push_str("\\r"),
            '\t' => out.push_str("\\t"),
            c if fate(c) == Fate::Keep => out.push(c),
            c => out.push_str(&format!("\\u{{{:x}}}", c as u32)),
        }
    }
    Cow::Owned(out)
}

/// One sample of each class of character [`clean`] removes, inside ordinary words (`a…b`), for
/// the tests of every printer.
#[doc(hidden)]
pub const SAMPLES: &[(&str, &str)] = &[
    ("bell", "a\u{07}b"),
    ("backspace", "a\u{08}b"),
    ("nul", "a\0b"),
    ("delete", "a\u{7f}b"),
    ("c1", "a\u{85}\u{8d}\u{9c}b"),
    ("csi", "a\u{1b}[31;1mb\u{1b}[0m"),
    ("osc52", "a\u{1b}]52;c;Y3VybCBldmlsIHwgc2g=\u{07}b"),
    ("osc-st", "a\u{1b}]0;title\u{1b}\\b"),
    ("c1-csi", "a\u{9b}2Jb"),
    ("dcs", "a\u{1b}Pq#0;2;0;0;0\u{1b}\\b"),
    ("bidi", "a\u{202e}\u{2066}\u{200f}\u{61c}b"),
    ("zero-width", "a\u{200b}\u{200d}\u{2060}\u{feff}\u{180e}b"),
    ("tags", "a\u{e0041}\u{e0042}\u{e007f}b"),
];

#[cfg(test)]
#[cfg(test)]
mod tests {
    use super::*;

    use super::SAMPLES;

    #[test]
    fn every_class_is_removed_whole() {
        for (name, text) in SAMPLES {
            let cleaned = clean(text);
            let expected = if *name == "c1" { "a\nb" } else { "ab" };
            assert_eq!(cleaned, expected, "{name}");
            assert!(is_clean(&cleaned), "{name}");
        }
    }

    #[test]
    fn plain_text_is_borrowed_and_kept() {
        let texts = [
            "",
            "use pnpm, not npm\n\tindented",
            "héllo — “quoted” … naïve © 日本語 한국어 пароль 🎉",
            "ZWJ-free emoji 👍 and NBSP\u{a0}here",
        ];
        for text in texts {
            assert!(matches!(clean(text), Cow::Borrowed(_)), "{text}");
            assert!(matches!(
                visible(text.lines().next().unwrap_or("")),
                Cow::Borrowed(_)
            ));
        }
    }

    #[test]
    fn line_ends_and_blanks_are_normalised() {
        assert_eq!(clean("a\r\nb\rc\u{2028}d"), "a\nb\nc\nd");
        assert_eq!(clean("a\u{0b}b\u{0c}c"), "a b c");
    }

    #[test]
    fn an_unterminated_string_sequence_runs_to_the_end() {
        assert_eq!(clean("keep\u{1b}]52;c;aGVsbG8="), "keep");
        assert_eq!(clean("keep\u{1b}[31"), "keep");
        assert_eq!(clean("a\u{1b}(Bb\u{1b}7c"), "abc");
        // A CSI cut short by a character that cannot be in it ends there.
        assert_eq!(clean("a\u{1b}[3é"), "aé");
    }

    #[test]
    fn visible_shows_what_clean_removes() {
        assert_eq!(visible("/src/a\nb"), "/src/a\\nb");
        assert_eq!(visible("x\u{202e}y\u{1b}z"), "x\\u{202e}y\\u{1b}z");
        assert!(!visible("/p\n\nOnce judged").contains('\n'));
    }
}
