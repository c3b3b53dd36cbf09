//! The normalized view of a text: what redaction's rules read when the text holds escapes, so a
//! secret cannot hide behind one.
//!
//! Decoded are backslash escapes (`\n`, `\t`, `\r`, `\"`, `\'`, `\/`, `\b`, `\f`, and `\uXXXX` of
//! an ASCII character), however many backslashes escape them (JSON inside JSON inside an error),
//! and percent escapes of ASCII characters, `%25` included (a URL encoded twice). A backslash
//! before anything else stays as it is (`\!` in a shell line, `\d` in a regex), and so do escapes
//! of non-ASCII bytes: decoding only to ASCII keeps the view valid UTF-8, and every escape the
//! view removes is ASCII, so what the rules find maps back to whole characters of the text.
//!
//! Every byte of the view knows the bytes of the text it came from ([`View::source`]), so a span
//! found in the view covers, in the text, the whole escape of each byte it holds: replacing it
//! leaves nothing of the secret in any encoding.

use std::ops::Range;

/// A text with its escapes decoded, and where each of its bytes came from.
pub(super) struct View {
    pub text: String,
    /// Each decoded escape, in order: (its byte in the view, its start in the text, its length).
    /// Every other view byte is a text byte moved left by what the escapes before it saved.
    escapes: Vec<(usize, usize, usize)>,
}

impl View {
    /// The view of `text`; `None` when it holds no escape to decode (the text is its own view).
    pub fn of(text: &str) -> Option<View> {
        let bytes = text.as_bytes();
        let mut out = Vec::new();
        let mut escapes = Vec::new();
        // `bytes[..kept]` is in the view; the bytes between escapes are copied as runs.
        let mut kept = 0;
        for at in memchr::memchr2_iter(b'\\', b'%', bytes) {
            if at < kept {
                continue;
            }
            let Some((byte, len)) = decode_at(bytes, at) else {
                continue;
            };
            if kept == 0 {
                out.reserve(bytes.len());
            }
            out.extend_from_slice(&bytes[kept..at]);
            escapes.push((out.len(), at, len));
            out.push(byte);
            kept = at + len;
        }
        if kept == 0 {
            return None;
        }
        out.extend_from_slice(&bytes[kept..]);
        // Only ASCII escapes were replaced, each by one ASCII byte: still UTF-8.
        let text = String::from_utf8(out).expect("escapes decode to ASCII");
        Some(View { text, escapes })
    }

    /// The range of the original text that view bytes `span` stand for.
    pub fn source(&self, span: &Range<usize>) -> Range<usize> {
        self.origin(span.start).0..self.origin(span.end - 1).1
    }

    /// The bytes of the text (start, end) that view byte `i` stands for.
    fn origin(&self, i: usize) -> (usize, usize) {
        let before = self.escapes.partition_point(|&(at, _, _)| at <= i);
        match before.checked_sub(1).map(|e| self.escapes[e]) {
            Some((at, start, len)) if at == i => (start, start + len),
            // Past the escape at `at`: as far past its end in the text.
            Some((at, start, len)) => {
                let from = start + len + (i - at - 1);
                (from, from + 1)
            }
            None => (i, i + 1),
        }
    }
}

/// The byte the escape at `at` decodes to and the escape's length; `None` when no escape starts
/// there.
fn decode_at(bytes: &[u8], at: usize) -> Option<(u8, usize)> {
    match bytes[at] {
        b'\\' => {
            // A run of backslashes escapes the byte after it once per level of quoting.
            let run = bytes[at..].iter().take_while(|&&b| b == b'\\').count();
            let after = at + run;
            let byte = match *bytes.get(after)? {
                b'n' => b'\n',
                b't' => b'\t',
                b'r' => b'\r',
                b'b' => 0x08,
                b'f' => 0x0c,
                b @ (b'"' | b'\'' | b'/') => b,
                b'u' => {
                    let digits = bytes.get(after + 1..after + 5)?;
                    let byte = ascii_hex(&digits[2..]).filter(|_| digits[..2] == *b"00")?;
                    return Some((byte, run + 5));
                }
                _ => return None,
            };
            Some((byte, run + 1))
        }
        b'%' => {
            // `%25` is an escaped `%`: `%253D` (encoded twice) is `=` as well.
            let mut hex = at + 1;
            while bytes.get(hex..hex + 2) == Some(b"25")
                && bytes.get(hex + 2..hex + 4).and_then(ascii_hex).is_some()
            {
                hex += 2;
            }
            let byte = ascii_hex(bytes.get(hex..hex + 2)?)?;
            Some((byte, hex + 2 - at))
        }
        _ => None,
    }
}

/// The ASCII character two hex digits encode (`None` for anything else, `80` and up included).
fn ascii_hex(digits: &[u8]) -> Option<u8> {
    let [high, low] = digits else {
        return None;
    };
    let value = char::from(*high).to_digit(16)? * 16 + char::from(*low).to_digit(16)?;
    u8::try_from(value).ok().filter(u8::is_ascii)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn decoded(text: &str) -> Option<String> {
        View::of(text).map(|v| v.text)
    }

    #[test]
    fn escapes_decode_at_any_depth_and_others_stay() {
        assert_eq!(decoded("plain text"), None);
        assert_eq!(decoded("100% sure, C:\\Users\\x \\! \\d+"), None);
        assert_eq!(decoded("a\\nb\\tc\\\"d\\/e"), Some("a\nb\tc\"d/e".into()));
        assert_eq!(decoded("x\\\\\\\"y\\\\nz"), Some("x\"y\nz".into()));
        assert_eq!(
            decoded("\\u003d \\u00e9 \\u00zz"),
            Some("= \\u00e9 \\u00zz".into())
        );
        assert_eq!(
            decoded("a%3Db%20c %C3%A9 %zz 5%"),
            Some("a=b c %C3%A9 %zz 5%".into())
        );
        assert_eq!(decoded("%253D %25%3D %2541 %25"), Some("= %= A %".into()));
        assert_eq!(decoded("end\\"), None);
    }

    #[test]
    fn every_view_byte_maps_to_the_escape_it_came_from() {
        let text = "p%3D\\\\nk é%2541";
        let view = View::of(text).unwrap();
        assert_eq!(view.text, "p=\nk éA");
        let back = |from: usize, to: usize| &text[view.source(&(from..to))];
        assert_eq!(back(1, 2), "%3D");
        assert_eq!(back(2, 3), "\\\\n");
        assert_eq!(back(3, 4), "k");
        assert_eq!(back(4, 7), " é");
        assert_eq!(back(0, view.text.len()), text);
        let last = view.text.len() - 1;
        assert_eq!(back(last, last + 1), "%2541");
    }
}
