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
//! them ([`crate::render::one_line`] cleans too). [`visible`] is for names shown on one line
//! that must stay recognisable (a project path whose directory name holds a newline): it shows
//! what it would remove as escapes (`\n`, `\u{202e}`) instead.
//!
//! Speed: the hooks clean every signal they store. Text with nothing to remove costs one byte
//! scan (ASCII bytes are judged by a range test; of the others only the lead bytes that can
//! start a removed character are decoded) and comes back as `Cow::Borrowed`.

use std::borrow::Cow;

use serde_json::{Map, Value};

use crate::signal::Signal;

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

/// [`clean`] every string of a JSON value (keys too), recursively.
pub fn clean_value(value: &mut Value) {
    match value {
        Value::String(s) => clean_in_place(s),
        Value::Array(items) => items.iter_mut().for_each(clean_value),
        Value::Object(map) => clean_map(map),
        _ => {}
    }
}

fn clean_map(map: &mut Map<String, Value>) {
    if map.keys().any(|k| first_change(k).is_some()) {
        let old = std::mem::take(map);
        for (k, mut v) in old {
            clean_value(&mut v);
            map.insert(clean(&k).into_owned(), v);
        }
        return;
    }
    map.values_mut().for_each(clean_value);
}

/// [`clean`] every text of a signal: what it says, where it came from, its tags and meta.
pub fn clean_signal(sig: &mut Signal) {
    use crate::signal::{Kind, Status};
    if let Kind::Other(kind) = &mut sig.kind {
        clean_in_place(kind);
    }
    if let Status::Other(status) = &mut sig.status {
        clean_in_place(status);
    }
    for text in [
        &mut sig.id,
        &mut sig.timestamp,
        &mut sig.content,
        &mut sig.context,
    ] {
        clean_in_place(text);
    }
    let optional = [
        &mut sig.session_id,
        &mut sig.project,
        &mut sig.category,
        &mut sig.promoted_to,
        &mut sig.source.hook,
        &mut sig.source.uuid,
        &mut sig.source.file,
    ];
    for text in optional.into_iter().flatten() {
        clean_in_place(text);
    }
    sig.tags
        .iter_mut()
        .chain(&mut sig.related)
        .for_each(clean_in_place);
    clean_map(&mut sig.meta);
    clean_map(&mut sig.source.extra);
    clean_map(&mut sig.extra);
}

/// Whether [`clean`] would change `text`.
pub fn is_clean(text: &str) -> bool {
    first_change(text).is_none()
}

/// Whether a JSON line may be printed as it is: UTF-8 with nothing [`clean`] would remove, and
/// no escape that may spell a control character (`\u…`, `\b`, `\f`, `\r`; serde_json writes
/// none but for those, so a clean store holds them only in text quoting a backslash, which then
/// takes the slower way: parsed and cleaned).
pub fn is_clean_json(line: &[u8]) -> bool {
    let escapes = memchr::memchr_iter(b'\\', line)
        .any(|at| matches!(line.get(at + 1), Some(b'u' | b'b' | b'f' | b'r')));
    !escapes && std::str::from_utf8(line).is_ok_and(is_clean)
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

#[cfg(test)]
pub(crate) mod tests {
    use super::*;

    /// One sample per class of character removed, each inside ordinary words.
    pub(crate) const SAMPLES: &[(&str, &str)] = &[
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

    #[test]
    fn a_signal_is_cleaned_everywhere() {
        let mut sig = Signal::new(crate::signal::Kind::Correction, "a\u{1b}[2Jb");
        sig.context = "c\u{202e}d".into();
        sig.project = Some("/p\u{200b}q".into());
        sig.tags = vec!["t\u{e0041}".into()];
        sig.meta
            .insert("k\u{7}".into(), Value::from(vec!["v\u{9b}1m"]));
        clean_signal(&mut sig);
        let json = serde_json::to_string(&sig).unwrap();
        assert_eq!(sig.content, "ab");
        assert_eq!(sig.context, "cd");
        assert_eq!(sig.project.as_deref(), Some("/pq"));
        assert_eq!(sig.tags, ["t"]);
        assert_eq!(sig.meta.get("k"), Some(&Value::from(vec!["v"])));
        assert!(is_clean(&json), "{json}");
    }
}
