//! The scanner: the top-level fields of a JSON line, without building it (the reader's fast path).
//!
//! `query` and `stats` run over every line of a store that may hold 100,000 signals; a full,
//! allocating parse of each costs as much as Python. [`Scanner::scan`] walks one line once,
//! validates its JSON syntax as it goes (balanced structure, string escapes, literal tokens,
//! UTF-8), and returns the byte spans of the schema's top-level fields. It is strict: whenever it
//! is unsure (a key with an escape, a duplicate schema key, anything malformed) it answers `None`
//! and the reader falls back to the full parser, so the two agree on what a line is.
//!
//! The walk is its own, not `reflect_base::json`'s trusting one: it validates as it goes and skips
//! strings by stepping through an index of every `"` and `\` built in one SIMD pass per line. The
//! grammar of an escape (and whitespace) it takes from `reflect_base::json`, as the transcript
//! reader does.

use reflect_base::json::{escape, skip_ws};

macro_rules! keys {
    ($($key:ident $name:literal)*) => {
        /// A top-level key the scanner reports: a v1 signal's in schema order, then the others.
        #[derive(Debug, Clone, Copy, PartialEq, Eq)]
        pub enum Key {
            $($key),*
        }

        impl Key {
            pub const ALL: [Key; [$(Key::$key),*].len()] = [$(Key::$key),*];
        }

        /// Position in [`Key::ALL`] of the key spelled `name` in a line.
        fn key_index(name: &[u8]) -> Option<usize> {
            match name {
                $($name => Some(Key::$key as usize),)*
                _ => None,
            }
        }
    };
}

keys! {
    Id b"id" Version b"version" Timestamp b"timestamp" SessionId b"session_id"
    Project b"project" Type b"type" Status b"status" Confidence b"confidence" Source b"source"
    Content b"content" Context b"context" Category b"category" Tags b"tags" Related b"related"
    PromotedTo b"promoted_to" Meta b"meta" Recur b"recur" Ts b"ts" Sid b"sid"
    ToolUseId b"tool_use_id" Resolution b"resolution" Update b"update"
}

/// The raw value spans (as written, strings with their quotes) of the [`Key`]s a line holds.
#[derive(Debug, Clone, Copy, Default)]
pub struct Fields<'a> {
    spans: [Option<&'a [u8]>; Key::ALL.len()],
    /// Bit `k` set: the value of key `k` is a string with an escape (as the walk found it).
    escaped: u32,
    /// The whole line was walked ([`Scanner::scan`]): it is UTF-8 and every field is here. Not
    /// so for [`leading_fields`], where a field not among them may still come later.
    pub(super) whole: bool,
}

/// What [`Walk::object`] found: where the object ends, the value spans of the keys it was
/// asked for, and which of them are strings with escapes (bit per key).
type Walked<'b, const N: usize> = (usize, [Option<&'b [u8]>; N], u32);

impl<'a> Fields<'a> {
    pub fn raw(&self, key: Key) -> Option<&'a [u8]> {
        self.spans[key as usize]
    }

    pub(crate) fn has(&self, key: Key) -> bool {
        self.raw(key).is_some()
    }

    /// A string field without escapes, borrowed; `None` when absent, not a string, or escaped
    /// (callers treat an escaped value through the full parser).
    pub fn str(&self, key: Key) -> Option<&'a str> {
        let raw = self.raw(key)?;
        let inner = raw.strip_prefix(b"\"")?.strip_suffix(b"\"")?;
        if self.is_escaped_str(key) {
            return None;
        }
        if self.whole {
            // SAFETY: `scan` checked the whole line to be UTF-8, and `inner` is cut from it at
            // two `"` bytes, which are ASCII and so never inside a multi-byte character.
            Some(unsafe { std::str::from_utf8_unchecked(inner) })
        } else {
            std::str::from_utf8(inner).ok()
        }
    }

    /// Whether a field is present and a JSON string with escapes (needs the full parser).
    pub(crate) fn is_escaped_str(&self, key: Key) -> bool {
        self.escaped & (1 << key as u32) != 0
    }

    /// A small non-negative integer field.
    pub(crate) fn uint(&self, key: Key) -> Option<u64> {
        self.raw(key).and_then(uint)
    }

    /// The JSON type of a field's value, by its first byte.
    pub fn kind(&self, key: Key) -> Option<u8> {
        self.raw(key).and_then(|r| r.first().copied())
    }
}

/// A plain non-negative integer of at most 19 digits (below 10^19, so it fits a u64).
fn uint(raw: &[u8]) -> Option<u64> {
    let plain = !raw.is_empty() && raw.len() < 20 && raw.iter().all(u8::is_ascii_digit);
    plain.then(|| raw.iter().fold(0, |n, d| n * 10 + u64::from(d - b'0')))
}

/// Past the byte `c` at `i`; `None` when another byte (or none) is there.
fn after(b: &[u8], i: usize, c: u8) -> Option<usize> {
    (b.get(i) == Some(&c)).then_some(i + 1)
}

/// Append the position of every `"` and `\` in `b` (shorter than 4 GiB) to `marks`. In JSON
/// these bytes are dense (a quote every few bytes), where a search that restarts after each match
/// spends more on the restarts than it saves: one SIMD pass turns each block of bytes into a bit
/// mask of the marks instead (elsewhere than x86_64, memchr's search). The same pass says whether
/// every byte is printable ASCII (0x20..0x80), the common case: no UTF-8 or control-byte check.
#[cfg(not(target_arch = "x86_64"))]
fn index_marks(b: &[u8], marks: &mut Vec<u32>) -> bool {
    marks.extend(memchr::memchr2_iter(b'"', b'\\', b).map(|at| at as u32));
    b.iter().all(|c| (0x20..0x80).contains(c))
}

/// [`index_marks`] 32 bytes at a time with SSE2 (part of every x86_64 CPU).
#[cfg(target_arch = "x86_64")]
fn index_marks(b: &[u8], marks: &mut Vec<u32>) -> bool {
    use std::arch::x86_64::{
        __m128i, _mm_cmpeq_epi8, _mm_cmplt_epi8, _mm_loadu_si128, _mm_movemask_epi8, _mm_or_si128,
        _mm_set1_epi8,
    };
    let chunks = b.chunks_exact(32);
    // The last partial block, padded with a byte that is neither a mark nor unprintable.
    let mut last = [b'x'; 32];
    last[..chunks.remainder().len()].copy_from_slice(chunks.remainder());
    let last = (!chunks.remainder().is_empty()).then_some(&last[..]);
    let mut base = 0u32;
    // Room for every mark plus one block's worth of scratch: see the writes below.
    marks.reserve(b.len() + 32);
    let mut unusual = 0u32;
    // SAFETY: SSE2 is part of the x86_64 baseline (every x86_64 CPU has it and the target enables
    // it), so its intrinsics may be called; each chunk holds 32 readable bytes, so both 16-byte
    // loads stay inside it, and `_mm_loadu_si128` needs no alignment. The writes: before a chunk,
    // `marks` holds at most `start + base` entries (`start` = its length on entry), and the
    // reserve above left capacity for `start + b.len() + 32 >= start + base + 32`, so writing up
    // to 32 entries past the current length stays inside the allocation; `set_len` then covers
    // only the `count` entries written with real positions (`u32` needs no drop).
    unsafe {
        let quote = _mm_set1_epi8(b'"' as i8);
        let backslash = _mm_set1_epi8(b'\\' as i8);
        let space = _mm_set1_epi8(b' ' as i8);
        // Bit i is set when byte i of the 16 is below 0x20 or from 0x80 up (negative as `i8`).
        let unprintable = |v: __m128i| _mm_movemask_epi8(_mm_cmplt_epi8(v, space)) as u32;
        // Bit i of the result is set when byte i of the 16 is a mark.
        let mask = |v: __m128i| {
            _mm_movemask_epi8(_mm_or_si128(
                _mm_cmpeq_epi8(v, quote),
                _mm_cmpeq_epi8(v, backslash),
            )) as u32
        };
        for chunk in chunks.chain(last) {
            let at = chunk.as_ptr().cast::<__m128i>();
            let (low, high) = (_mm_loadu_si128(at), _mm_loadu_si128(at.add(1)));
            unusual |= unprintable(low) | unprintable(high);
            let mut hits = mask(low) | (mask(high) << 16);
            // Write eight positions at a time whether or not that many bits are set, and count
            // only the real ones: a loop that stops at the last bit mispredicts on every block.
            let count = hits.count_ones() as usize;
            let len = marks.len();
            let out = marks.as_mut_ptr().add(len);
            let mut written = 0;
            while written < count {
                for k in 0..8 {
                    out.add(written + k).write(base + hits.trailing_zeros());
                    hits &= hits.wrapping_sub(1);
                }
                written += 8;
            }
            marks.set_len(len + count);
            base += 32;
        }
    }
    unusual == 0
}

/// One line being walked: its bytes and the positions of every `"` and `\` in it, found in one
/// SIMD pass, so skipping a string is a step in that index rather than a search.
struct Walk<'b, 'm> {
    b: &'b [u8],
    marks: &'m [u32],
    next: usize,
    /// Set by [`Walk::skip_string`] when it passes an escape.
    escapes: bool,
}

impl<'b> Walk<'b, '_> {
    /// End (exclusive) of the string whose opening quote is at `i`, checking its escapes.
    fn skip_string(&mut self, i: usize) -> Option<usize> {
        let marks = self.marks;
        let mut from = i + 1;
        loop {
            // Past the opening quote, or past what the last escape spelled (a `\"` is a mark).
            while marks.get(self.next).is_some_and(|&m| (m as usize) < from) {
                self.next += 1;
            }
            let m = *marks.get(self.next)? as usize;
            self.next += 1;
            if self.b[m] == b'"' {
                return Some(m + 1);
            }
            self.escapes = true;
            from = escape(self.b, m)?.1;
        }
    }

    /// End of any value starting at `i` (after whitespace), validating nested structure.
    fn skip_value(&mut self, i: usize, depth: usize) -> Option<usize> {
        let b = self.b;
        if depth > 64 {
            return None;
        }
        match *b.get(i)? {
            b'"' => self.skip_string(i),
            b'{' => Some(self.object::<0>(i, |_| None, depth + 1)?.0),
            b'[' => self.array(i, depth + 1, false),
            _ => skip_literal(b, i),
        }
    }

    /// End of the array starting at `i` (its elements at nesting `depth`); with `strings`,
    /// `None` unless every element is a string.
    fn array(&mut self, i: usize, depth: usize, strings: bool) -> Option<usize> {
        let b = self.b;
        let mut j = skip_ws(b, i + 1);
        if b.get(j) == Some(&b']') {
            return Some(j + 1);
        }
        loop {
            if strings && b.get(j) != Some(&b'"') {
                return None;
            }
            j = skip_ws(b, self.skip_value(j, depth)?);
            match b.get(j)? {
                b',' => j = skip_ws(b, j + 1),
                b']' => return Some(j + 1),
                _ => return None,
            }
        }
    }

    /// Walk the object starting at `i` (its values at nesting `depth`), returning where it ends
    /// and the spans of the keys `index` knows (none when `N` is 0: an object only skipped).
    fn object<const N: usize>(
        &mut self,
        i: usize,
        index: impl Fn(&[u8]) -> Option<usize>,
        depth: usize,
    ) -> Option<Walked<'b, N>> {
        let b = self.b;
        let mut spans = [None; N];
        let mut escaped = 0u32;
        let mut i = skip_ws(b, after(b, i, b'{')?);
        if b.get(i) == Some(&b'}') {
            return Some((i + 1, spans, escaped));
        }
        loop {
            if b.get(i) != Some(&b'"') {
                return None;
            }
            self.escapes = false;
            let key_end = self.skip_string(i)?;
            let key = &b[i + 1..key_end - 1];
            if self.escapes && N > 0 {
                return None; // a key with an escape: let the full parser decide what it says
            }
            let start = skip_ws(b, after(b, skip_ws(b, key_end), b':')?);
            let k = index(key);
            self.escapes = false;
            let end = self.skip_value(start, depth)?;
            if let Some(k) = k {
                if spans[k].is_some() {
                    return None; // a duplicate key: let the full parser decide
                }
                spans[k] = Some(&b[start..end]);
                if self.escapes && b[start] == b'"' {
                    escaped |= 1 << k;
                }
            }
            i = skip_ws(b, end);
            match b.get(i) {
                Some(b',') => i = skip_ws(b, i + 1),
                Some(b'}') => return Some((i + 1, spans, escaped)),
                _ => return None,
            }
        }
    }

    /// Start a walk of `span`, a value of the walked line: its position in the line.
    fn at(&mut self, span: &[u8]) -> usize {
        let i = span.as_ptr() as usize - self.b.as_ptr() as usize;
        self.next = self.marks.partition_point(|&m| (m as usize) < i);
        i
    }

    /// `[]` or an array whose elements are all strings (what `tags` and `related` must be).
    fn string_array(&mut self, span: &[u8]) -> bool {
        let at = self.at(span);
        self.array(at, 1, true).is_some()
    }

    /// A `source` the full parser accepts: none, null, a string, or an object whose known fields
    /// have their types (`hook`, `uuid`, `file`: string or null; `line`, `turn`: integer or null).
    fn source_ok(&mut self, f: &Fields) -> bool {
        let Some(span) = f.raw(Key::Source) else {
            return true;
        };
        match span.first() {
            Some(b'"') => true,
            Some(b'n') => span == b"null",
            Some(b'{') => {
                let at = self.at(span);
                let keys: [&[u8]; 5] = [b"hook", b"line", b"uuid", b"turn", b"file"];
                let fields = self.object(at, |key| keys.iter().position(|k| *k == key), 1);
                fields.is_some_and(|(_, [hook, line, uuid, turn, file], _)| {
                    let text = |v: Option<&[u8]>| {
                        v.is_none_or(|v| v == b"null" || v.first() == Some(&b'"'))
                    };
                    let int =
                        |v: Option<&[u8]>| v.is_none_or(|v| v == b"null" || uint(v).is_some());
                    text(hook) && text(uuid) && text(file) && int(line) && int(turn)
                })
            }
            _ => false,
        }
    }

    /// What a line with the fields `f` is; `None` (the full parser decides) when the schema types
    /// are not what the full parser accepts for sure (e.g. a `confidence` of 300).
    fn shape(&mut self, f: &Fields) -> Option<Shape> {
        let string = |key| matches!(f.kind(key), None | Some(b'"'));
        let string_or_null = |key| string(key) || f.kind(key) == Some(b'n');
        if f.has(Key::Recur) {
            let ok = f.kind(Key::Recur) == Some(b'"')
                && string(Key::Timestamp)
                && string_or_null(Key::SessionId)
                && string_or_null(Key::ToolUseId)
                && string_or_null(Key::Resolution)
                && matches!(f.kind(Key::Update), None | Some(b'{'))
                && self.source_ok(f);
            return ok.then_some(Shape::Recur);
        }
        if !f.has(Key::Id) {
            let v2 = f.has(Key::Ts) && f.kind(Key::Type) == Some(b'"');
            return Some(if v2 { Shape::Legacy } else { Shape::Foreign });
        }
        let plain = [Key::Status, Key::Timestamp, Key::Content, Key::Context];
        let nullable = [
            Key::SessionId,
            Key::Project,
            Key::Category,
            Key::PromotedTo,
            Key::Resolution,
        ];
        let strings_ok = f.kind(Key::Id) == Some(b'"')
            && f.kind(Key::Type) == Some(b'"')
            && plain.into_iter().all(string)
            && nullable.into_iter().all(string_or_null);
        let at_most = |key, max| !f.has(key) || f.uint(key).is_some_and(|n| n <= max);
        let numbers_ok =
            at_most(Key::Version, u64::from(u32::MAX)) && at_most(Key::Confidence, 255);
        let mut array_ok = |key| {
            f.raw(key)
                .is_none_or(|r| r.first() == Some(&b'[') && self.string_array(r))
        };
        let nested_ok = array_ok(Key::Tags)
            && array_ok(Key::Related)
            && matches!(f.kind(Key::Meta), None | Some(b'{'))
            && self.source_ok(f);
        (strings_ok && numbers_ok && nested_ok).then_some(Shape::Signal)
    }
}

/// End of a literal (number, true, false, null) starting at `i`.
fn skip_literal(b: &[u8], i: usize) -> Option<usize> {
    let ends = |at: usize| {
        b.get(at)
            .is_none_or(|c| matches!(c, b',' | b'}' | b']' | b' ' | b'\t' | b'\r' | b'\n'))
    };
    // The common tokens of a store, `null` and small plain integers, without the general path.
    let digits = b[i..]
        .iter()
        .take(20)
        .take_while(|c| c.is_ascii_digit())
        .count();
    if (digits == 1 || (2..20).contains(&digits) && b[i] != b'0') && ends(i + digits) {
        return Some(i + digits);
    } else if b[i..].starts_with(b"null") && ends(i + 4) {
        return Some(i + 4);
    }
    let end = (i..b.len()).find(|&at| ends(at)).unwrap_or(b.len());
    let tok = &b[i..end];
    let ok = match tok.first()? {
        b't' => tok == b"true",
        b'f' => tok == b"false",
        b'n' => tok == b"null",
        // Rare in a store: serde_json says whether it reads the number (`1e400` it does not).
        b'-' | b'0'..=b'9' => serde_json::from_slice::<serde_json::Value>(tok).is_ok(),
        _ => false,
    };
    ok.then_some(end)
}

/// Scratch space reused from line to line (the mark index).
#[derive(Default)]
pub(crate) struct Scanner {
    marks: Vec<u32>,
}

impl Scanner {
    /// What one line is, with its top-level fields; `None` when the line is not a JSON object
    /// the scanner can vouch for (the caller then uses the full parser).
    pub fn scan<'b>(&mut self, line: &'b [u8]) -> Option<(Shape, Fields<'b>)> {
        if line.len() > u32::MAX as usize {
            return None;
        }
        self.marks.clear();
        // Plain ASCII without control bytes is the norm; anything else is checked the slow way
        // (raw control bytes are invalid inside JSON strings; tabs between tokens are rare).
        let plain = index_marks(line, &mut self.marks);
        if !plain && (line.iter().any(|&c| c < 0x20) || std::str::from_utf8(line).is_err()) {
            return None;
        }
        let mut walk = Walk {
            b: line,
            marks: &self.marks,
            next: 0,
            escapes: false,
        };
        let (end, spans, escaped) = walk.object(skip_ws(line, 0), key_index, 1)?;
        if skip_ws(line, end) != line.len() {
            return None;
        }
        let fields = Fields {
            spans,
            escaped,
            whole: true,
        };
        Some((walk.shape(&fields)?, fields))
    }
}

/// The top-level fields at the start of a line whose values are plain strings (no escapes) or
/// plain tokens (numbers, literals), up to the first field that is anything else. Nothing is
/// validated beyond that prefix: a caller may only use these spans to decide that a line cannot
/// be something, never that it is (the line may still turn out to be invalid further on).
pub(crate) fn leading_fields(b: &[u8]) -> Fields<'_> {
    // Every string taken here ends at the first `"` or `\` after it opened: none has an escape.
    let mut fields = Fields::default();
    let plain_string_end = |from: usize| -> Option<usize> {
        let at = from + memchr::memchr2(b'"', b'\\', &b[from..])?;
        (b[at] == b'"').then_some(at + 1)
    };
    // One field after another, until one is not plain (`None`): the fields before it stand.
    let mut read = || -> Option<()> {
        let mut i = skip_ws(b, after(b, skip_ws(b, 0), b'{')?);
        loop {
            let key_end = plain_string_end(after(b, i, b'"')?)?;
            let key = &b[i + 1..key_end - 1];
            let start = skip_ws(b, after(b, skip_ws(b, key_end), b':')?);
            let end = match b.get(start)? {
                b'"' => plain_string_end(start + 1)?,
                c if c.is_ascii_alphanumeric() || *c == b'-' => skip_literal(b, start)?,
                _ => return None,
            };
            if let Some(k) = key_index(key) {
                if fields.spans[k].is_some() {
                    return None; // a duplicate key: no conclusion from either value
                }
                fields.spans[k] = Some(&b[start..end]);
            }
            i = skip_ws(b, after(b, skip_ws(b, end), b',')?);
        }
    };
    read();
    fields
}

/// [`Scanner::scan`] with a scanner of its own.
#[cfg(test)]
pub fn scan(line: &[u8]) -> Option<(Shape, Fields<'_>)> {
    Scanner::default().scan(line)
}

/// What a scanned line is, by the same rules as [`crate::store::parse_line`].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Shape {
    /// Would parse as a v1 signal.
    Signal,
    /// A v2 line (`ts`, `type`, no `id`).
    Legacy,
    Recur,
    /// Valid JSON object of another kind (kept verbatim, never listed).
    Foreign,
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::store::{read::Reader, Read};

    /// Where the scanner vouches for `line`, it says what the full parser says; it never vouches
    /// for a line the parser rejects. What it records of each string field is what its bytes say.
    fn agrees(line: &[u8]) {
        let text = String::from_utf8_lossy(line);
        let parsed = Reader::default().view(line, Read::Parse);
        let Some(expected) = parsed.and_then(|view| view.shape()) else {
            return assert!(scan(line).is_none(), "accepted: {text}");
        };
        let Some((shape, f)) = scan(line) else { return };
        assert_eq!(shape, expected, "{text}");
        for key in Key::ALL {
            let raw = f.raw(key);
            let escaped = raw.is_some_and(|r| r.first() == Some(&b'"') && r.contains(&b'\\'));
            assert_eq!(f.is_escaped_str(key), escaped, "{key:?} of {text}");
            let inner = raw.and_then(|r| r.strip_prefix(b"\"")?.strip_suffix(b"\""));
            let plain = inner
                .filter(|_| !escaped)
                .map(|i| std::str::from_utf8(i).unwrap());
            assert_eq!(f.str(key), plain, "{key:?} of {text}");
        }
    }

    #[test]
    fn mark_index_finds_every_quote_and_backslash_and_tells_plain_lines() {
        // Every length up to 100 with a mark or an unprintable byte at each position in turn, or
        // in every position (the block edges of the SIMD pass and its tail are where bugs hide),
        // and random mixes of them.
        let mut cases = Vec::new();
        for len in 0..100usize {
            for odd in *b"\"\\\x00\x1f\x7f\x80\xc3\xff" {
                cases.push(vec![odd; len]);
                for at in 0..len {
                    let mut bytes = vec![b'x'; len];
                    bytes[at] = odd;
                    cases.push(bytes);
                }
            }
        }
        let mut rng = Rng(0x9e37_79b9_7f4a_7c15);
        let odd = b"\"\\!#[]a\xa2\xdc\x00\xff";
        for len in 0..200 {
            cases.push((0..len).map(|_| rng.pick(odd)).collect());
        }
        for bytes in cases {
            let mut marks = vec![7]; // appended to, not replaced
            let plain = index_marks(&bytes, &mut marks);
            let expected =
                (0..bytes.len() as u32).filter(|&i| b"\"\\".contains(&bytes[i as usize]));
            assert!(marks[1..].iter().copied().eq(expected), "{bytes:?}");
            let printable = bytes.iter().all(|c| (0x20..0x80).contains(c));
            assert_eq!(plain, printable, "{bytes:?}");
        }
    }

    #[test]
    fn literals_are_the_tokens_serde_json_reads() {
        let (digits19, digits20) = ("9".repeat(19), "9".repeat(20));
        let tokens = [
            "0", "00", "01", "7", "42", "-1", "-0", "1.5", "1e5", "1e400", "12x", "null", "nullx",
            "nul", "true", "false", "tru", "x", &digits19, &digits20,
        ];
        for token in tokens {
            for after in ["", ",", "}", "]", " ", "\t", "\r", "\n", "x", "\"", ".0"] {
                let b = format!("{token}{after}");
                let end = b
                    .find([',', '}', ']', ' ', '\t', '\r', '\n'])
                    .unwrap_or(b.len());
                let valid = serde_json::from_str::<serde_json::Value>(&b[..end]).is_ok();
                assert_eq!(skip_literal(b.as_bytes(), 0), valid.then_some(end), "{b:?}");
            }
        }
        assert_eq!(skip_literal(b"[12,", 1), Some(3));
    }

    #[test]
    fn fields_are_the_top_level_values_as_written() {
        let line = br#" { "id" : "SIG-1", "type":"x" , "meta":{"status":"nested"},"status":"analyzed","confidence":3,"tags":[ "a","b" ],"content":"say \"hi\"","context":"\u00e9"}"#;
        agrees(line);
        let (shape, f) = scan(line).unwrap();
        assert_eq!(shape, Shape::Signal);
        assert_eq!(f.str(Key::Status), Some("analyzed"));
        assert_eq!(f.uint(Key::Confidence), Some(3));
        assert_eq!(f.raw(Key::Tags), Some(&br#"[ "a","b" ]"#[..]));
        assert_eq!(f.raw(Key::Meta), Some(&br#"{"status":"nested"}"#[..]));
        assert!(f.is_escaped_str(Key::Content) && f.is_escaped_str(Key::Context));
    }

    #[test]
    fn agrees_with_the_full_parser_where_it_vouches_for_a_line() {
        // Wrong types, nested and repeated fields, escaped or repeated keys, invalid lines.
        for line in [
            &br#"{"id":"SIG-1","type":"correction","content":"x"}"#[..],
            br#"{"id":"SIG-1","type":"correction","confidence":300}"#,
            br#"{"id":"SIG-1","type":"correction","confidence":"high"}"#,
            br#"{"id":"SIG-1","type":"correction","tags":[1]}"#,
            br#"{"id":"SIG-1","type":"correction","tags":"x"}"#,
            br#"{"id":"SIG-1","type":7}"#,
            br#"{"id":"SIG-1","type":"x","session_id":null,"source":"hook","meta":{}}"#,
            br#"{"id":"SIG-1","type":"x","source":{"line":"3"}}"#,
            br#"{"id":"SIG-1","type":"x","source":{"line":3,"uuid":null,"hook":"h","extra":[1]}}"#,
            br#"{"id":"SIG-1","type":"x","tags":["a",1]}"#,
            br#"{"id":"SIG-1","type":"x","meta":[]}"#,
            br#"{"id":"SIG-1","type":"x","version":-1}"#,
            br#"{"ts":"2026-01-01T00:00:00Z","sid":"a","type":"correction","context":"c"}"#,
            br#"{"ts":"2026-01-01T00:00:00Z","type":3}"#,
            br#"{"recur":"SIG-1","timestamp":"t"}"#,
            br#"{"recur":5}"#,
            br#"{"other":"record"}"#,
            br#"{}"#,
            r#"{"id":"SIG-1","type":"x","content":"é \u00e9 \ud83d\ude00"}"#.as_bytes(),
            br#"{"id":"SIG-1","type":"x","content":"\ud83d \ude00 \uDBFF\uDFFF"}"#,
            br#"{"id":"SIG-1","type":"x","x":1.5e3,"y":-0.2,"z":[true,false,null]}"#,
            br#"{"id":"SIG-1" "type":"x"}"#,
            br#"{"id":"SIG-1","type":"x","source":{"hook":"a","hook":"b"}}"#,
            br#"{"id":"SIG-1","type":"x","source":{"hook":"a","x":{"line":"deep"}},"meta":{}}"#,
            br#"{"id":"SIG-1","type":"x","source":{ "line" : 3 , "turn":null }}"#,
            br#"{"id":"SIG-1","type":"x","source":{"line":-3}}"#,
            br#"{"id":"SIG-1","type":"x","source":{"line":3,}}"#,
            br#"{"source":{"hook":"a","hook":"b"},"other":1}"#,
            br#"{"recur":"SIG-1","source":{"line":"x"}}"#,
            br#"{"recur":"SIG-1","source":{"uuid":"u","uuid":null}}"#,
            br#"{"id":"a","id":"b"}"#,
            br#"{"i\u0064":"x","type":"y"}"#,
            br#"{"id":"x","ty\"pe":"y"}"#,
            br#"{"id":"S","type":"x","source":{"line":3,"line":4},"tags":["a"]}"#,
            b"{\"id\":\"x\",}",
            b"{\"id\":tru}",
            b"{\"id\":\"\\q\"}",
            b"{\"id\":\"x\"} trailing",
            b"[1,2]",
            b"{\"a\":[1,}",
            b"{\"a\":\"\xff\"}",
            b"",
            b"{\"id\":1x}",
            b"{\"id\":\"tab\there\"}",
            b"{\"id\":\"x\\\"}",
        ] {
            agrees(line);
        }
        // It vouches for these, nested arrays and objects walked on the line's own index.
        for line in [
            &br#"{"id":"S","type":"x","source":{"hook":"h","line":3,"x":[1]},"tags":[]}"#[..],
            br#"{"id":"x\u0064","type":"y","tags":["\"",  "b"],"related":["c"]}"#,
            br#"{"recur":"S","source":{"line":null,"uuid":"u"},"session_id":null}"#,
        ] {
            agrees(line);
            assert!(scan(line).is_some(), "{}", String::from_utf8_lossy(line));
        }
    }

    /// xorshift64: the same pseudo-random cases on every run.
    struct Rng(u64);

    impl Rng {
        fn next(&mut self) -> usize {
            self.0 ^= self.0 << 13;
            self.0 ^= self.0 >> 7;
            self.0 ^= self.0 << 17;
            self.0 as usize
        }
        fn pick(&mut self, from: &[u8]) -> u8 {
            from[self.next() % from.len()]
        }
    }

    #[test]
    fn never_accepts_a_corrupted_line_the_parser_rejects() {
        let base = [
            r#"{"id":"SIG-20261122-0000000001","version":1,"timestamp":"2026-11-22T10:23:00Z","session_id":"s","project":"/p","type":"correction","status":"captured","confidence":2,"source":{"hook":"PreCompact","line":412,"uuid":"u","turn":null,"file":null},"content":"Use pnpm, not \"npm\"","context":"c","category":null,"tags":["pnpm"],"related":[],"promoted_to":null,"meta":{"seen":2}}"#,
            r#"{"ts":"2026-02-11T10:23:00Z","sid":"abc","type":"correction","context":"No, use pnpm","turn":4}"#,
            r#"{"recur":"SIG-20261122-0000000001","timestamp":"2026-11-22T10:23:00Z","session_id":"s","source":{"line":9},"tool_use_id":"t"}"#,
        ];
        let mut rng = Rng(0x2545_f491_4f6c_dd1d);
        let alphabet = b"{}[]\":,\\ 0123456789-.eEtrufalsn\x7f\xc3\xa9\t\x01u";
        for round in 0..30_000 {
            let mut line = base[round % base.len()].as_bytes().to_vec();
            for _ in 0..=(rng.next() % 3) {
                let at = rng.next() % line.len();
                match rng.next() % 4 {
                    0 => line[at] = rng.pick(alphabet),
                    1 => line.truncate(at.max(1)),
                    2 => drop(line.remove(at)),
                    _ => line.insert(at, rng.pick(alphabet)),
                }
                if line.is_empty() {
                    break;
                }
            }
            // Raw bytes, and a lossy copy (valid UTF-8, so the walk goes on past a bad byte).
            agrees(&line);
            agrees(String::from_utf8_lossy(&line).as_bytes());
        }
    }
}
