//! JSON over raw bytes, without building a value: the primitives both line readers share (the
//! transcript reader and the store's scanner), so the grammar of a string's escapes is written
//! once, as serde_json reads it.
//!
//! - [`escape`] reads one escape (`\n`, `\u00e9`, a surrogate pair) by serde_json's rules: a lone
//!   surrogate, a short `\u` or an unknown letter is `None`. [`unescape`] decodes a string's
//!   inside with it; [`hex4`] and [`skip_ws`] are the small pieces under both.
//! - [`skip_string`] and [`skip_value`] are the fast, *trusting* walk: they find where a string
//!   or value ends in JSON that is known or assumed to be well formed (a transcript line Claude
//!   Code wrote), searching for quotes and brackets with memchr rather than looking at each byte,
//!   and validate nothing. On malformed input they return some index or `None`, never panic.
//!
//! Two walks, and why: the store's scanner (`reflect_store`'s `store::scan`) must *validate* each
//! line as it walks it, answering only where serde_json would agree, and it skips strings by
//! stepping through an index of every `"` and `\` built in one SIMD pass per line. That walk is
//! specific to the store's lines (it records the spans of the schema's keys as it goes) and
//! stays there, using [`escape`], [`hex4`] and [`skip_ws`] from here; the trusting walk here is
//! several times faster where nothing needs validating (a transcript's tool output).

/// Index of the first byte at or after `i` that is not JSON whitespace (or `b.len()`).
#[inline]
pub fn skip_ws(b: &[u8], mut i: usize) -> usize {
    while matches!(b.get(i), Some(b' ' | b'\t' | b'\n' | b'\r')) {
        i += 1;
    }
    i
}

/// The value of the four hex digits at the start of `raw`; `None` when fewer or not hex.
#[inline]
pub(crate) fn hex4(raw: &[u8]) -> Option<u16> {
    raw.get(..4)?.iter().try_fold(0u16, |n, &d| {
        Some(n << 4 | char::from(d).to_digit(16)? as u16)
    })
}

/// The escape whose backslash is at `at` in `b`: the character it spells and the index just past
/// it; `None` where serde_json refuses it (an unknown letter, a short `\u`, a lone surrogate:
/// a high one must be followed at once by an escaped low one, and a low one may not stand alone).
#[inline]
pub fn escape(b: &[u8], at: usize) -> Option<(char, usize)> {
    let simple = match *b.get(at + 1)? {
        b'"' => '"',
        b'\\' => '\\',
        b'/' => '/',
        b'b' => '\u{8}',
        b'f' => '\u{c}',
        b'n' => '\n',
        b'r' => '\r',
        b't' => '\t',
        b'u' => {
            let first = hex4(b.get(at + 2..)?)?;
            return match first {
                0xD800..=0xDBFF => {
                    let low = b.get(at + 6..)?.strip_prefix(b"\\u").and_then(hex4)?;
                    if !(0xDC00..=0xDFFF).contains(&low) {
                        return None;
                    }
                    let code =
                        0x10000 + ((u32::from(first) - 0xD800) << 10) + (u32::from(low) - 0xDC00);
                    Some((char::from_u32(code)?, at + 12))
                }
                0xDC00..=0xDFFF => None,
                _ => Some((char::from_u32(u32::from(first))?, at + 6)),
            };
        }
        _ => return None,
    };
    Some((simple, at + 2))
}

/// The inside of a JSON string (without its quotes) with its escapes decoded, as serde_json
/// decodes it; `None` for anything unusual (a bad escape, a lone surrogate, a control character,
/// invalid UTF-8), which a caller leaves to serde_json. Copies the runs between backslashes whole.
pub fn unescape(inner: &[u8]) -> Option<String> {
    let mut out = Vec::with_capacity(inner.len());
    let mut rest = inner;
    // A min over the run (vectorized) instead of an early exit per byte.
    let plain = |run: &[u8]| run.iter().fold(u8::MAX, |low, &b| low.min(b)) >= 0x20;
    while let Some(at) = memchr::memchr(b'\\', rest) {
        if !plain(&rest[..at]) {
            return None;
        }
        out.extend_from_slice(&rest[..at]);
        let (c, end) = escape(rest, at)?;
        rest = &rest[end..];
        if c.is_ascii() {
            out.push(c as u8);
        } else {
            out.extend_from_slice(c.encode_utf8(&mut [0u8; 4]).as_bytes());
        }
    }
    if !plain(rest) {
        return None;
    }
    out.extend_from_slice(rest);
    String::from_utf8(out).ok()
}

/// Whether `raw` starts with a `\uD800`–`\uDBFF` escape followed by another escape (the first
/// half of a pair, which a cut must not separate from the second).
pub fn is_high_surrogate(raw: &[u8]) -> bool {
    raw.len() >= 8
        && matches!(raw[2], b'd' | b'D')
        && matches!(raw[3], b'8' | b'9' | b'a' | b'b' | b'A' | b'B')
        && raw[6] == b'\\'
        && raw[7] == b'u'
}

/// The index just past the string that starts (with its quote) at `i`, trusting the input.
/// Searching for quotes alone and counting the backslashes before one is faster than stopping at
/// every escape: tool output is full of `\n`.
#[inline]
pub fn skip_string(raw: &[u8], i: usize) -> Option<usize> {
    let mut at = i + 1;
    loop {
        at += memchr::memchr(b'"', raw.get(at..)?)?;
        let backslashes = raw[..at].iter().rev().take_while(|&&b| b == b'\\').count();
        if backslashes % 2 == 0 {
            return Some(at + 1);
        }
        at += 1;
    }
}

/// The index just past the value that starts at `i`, trusting the input.
pub fn skip_value(raw: &[u8], i: usize) -> Option<usize> {
    match raw.get(i)? {
        b'"' => skip_string(raw, i),
        &open @ (b'{' | b'[') => {
            // In well-formed JSON the other kind of bracket nests evenly inside, so counting
            // one kind (and skipping strings) finds the end with one memchr3 per stop.
            let close = if open == b'{' { b'}' } else { b']' };
            let mut depth = 0usize;
            let mut at = i;
            loop {
                at += memchr::memchr3(b'"', open, close, raw.get(at..)?)?;
                match raw[at] {
                    b'"' => {
                        at = skip_string(raw, at)?;
                        continue;
                    }
                    b if b == open => depth += 1,
                    _ => {
                        depth -= 1;
                        if depth == 0 {
                            return Some(at + 1);
                        }
                    }
                }
                at += 1;
            }
        }
        _ => {
            // A number or a literal: up to the next delimiter.
            let len = raw[i..]
                .iter()
                .position(|b| matches!(b, b',' | b'}' | b']' | b' ' | b'\n' | b'\r' | b'\t'))
                .unwrap_or(raw.len() - i);
            (len > 0).then_some(i + len)
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Strings that exercise every escape, surrogate pairs and lone halves, short `\u`s, control
    /// bytes, quotes and brackets inside strings, and non-ASCII text.
    const TRICKY: &[&str] = &[
        r#""""#,
        r#""plain""#,
        r#""a\"b\\c\/d\be\ff\ng\rh\ti""#,
        r#""\u00e9\u00E9 caf\u00e9""#,
        r#""\ud83d\ude00 pair""#,
        r#""\uD83D\uDE00""#,
        r#""\ud83d lone high""#,
        r#""\ud83d\u0041 high then not low""#,
        r#""\ude00 lone low""#,
        r#""\u12""#,
        r#""\u12g4""#,
        r#""\x41""#,
        r#""\""#,
        r#""trailing \\""#,
        r#""\\\"""#,
        "\"raw \u{1} control\"",
        "\"tab\tinside\"",
        "\"héllo wörld ✓ 😀\"",
        r#""{[brackets]} \"quoted\" in a string""#,
        r#""\u0000 nul""#,
        r#""\uDBFF\uDFFF max""#,
        r#""\ud800\udc00 min""#,
    ];

    #[test]
    fn unescape_agrees_with_serde_json_on_tricky_strings() {
        for raw in TRICKY {
            let ours = raw
                .as_bytes()
                .strip_prefix(b"\"")
                .and_then(|r| r.strip_suffix(b"\""))
                .and_then(unescape);
            let theirs = serde_json::from_str::<String>(raw).ok();
            match &ours {
                // Where we decode, serde_json decodes the same text.
                Some(text) => assert_eq!(Some(text), theirs.as_ref(), "{raw}"),
                // We may decline only what serde_json refuses too, or raw control bytes it
                // also refuses: nothing serde_json accepts with plain escapes is declined.
                None => assert_eq!(theirs, None, "{raw}"),
            }
        }
    }

    #[test]
    fn escape_accepts_exactly_what_serde_json_accepts() {
        for raw in TRICKY {
            let b = raw.as_bytes();
            let mut i = 1;
            let mut ours = true;
            while i < b.len() - 1 {
                if b[i] == b'\\' {
                    match escape(b, i) {
                        Some((_, end)) => i = end,
                        None => {
                            ours = false;
                            break;
                        }
                    }
                } else {
                    i += 1;
                }
            }
            // An escape that swallowed the closing quote leaves the string open.
            ours &= i == b.len() - 1;
            let theirs = serde_json::from_str::<String>(raw).is_ok();
            let controls = raw.bytes().any(|c| c < 0x20);
            if !controls {
                assert_eq!(ours, theirs, "{raw}");
            }
        }
    }

    #[test]
    fn the_trusting_walk_ends_values_where_serde_json_does() {
        let values = [
            r#"{"a":"}\"]","b":[1,{"c":"\\"}],"d":null}"#,
            r#"[["]"],{"k":"[{"},[],{}]"#,
            r#""\ud83d\ude00\\\"""#,
            "12.5e3",
            "true",
            r#"{"nested":{"deep":[{"x":"\u00e9"}]}}"#,
        ];
        for v in values {
            let text = format!("{v}, \"after\"");
            let end = skip_value(text.as_bytes(), 0).unwrap();
            assert_eq!(&text[..end], v);
            let parsed: serde_json::Value = serde_json::from_str(&text[..end]).unwrap();
            assert_eq!(
                parsed,
                serde_json::from_str::<serde_json::Value>(v).unwrap()
            );
        }
        for raw in TRICKY
            .iter()
            .filter(|r| serde_json::from_str::<String>(r).is_ok())
        {
            assert_eq!(skip_string(raw.as_bytes(), 0), Some(raw.len()), "{raw}");
        }
    }

    #[test]
    fn hex4_reads_four_digits_of_either_case() {
        assert_eq!(hex4(b"00e9"), Some(0xe9));
        assert_eq!(hex4(b"D83Dxx"), Some(0xD83D));
        assert_eq!(hex4(b"12"), None);
        assert_eq!(hex4(b"12g4"), None);
        assert_eq!(skip_ws(b" \t\r\nx", 0), 4);
    }
}
