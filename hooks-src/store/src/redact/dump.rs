//! Dumps (`hexdump -C`, `hd`, `xxd`, `od -c`, `hexdump -c`, `od -t x1`, `hexdump`, `od -x`): a
//! file pasted as a dump has its secrets split over 16-byte lines, written twice (as hex bytes and
//! in the ASCII column) or a character a field, where no rule sees them.
//!
//! A dump is a run of consecutive lines of the exact shape those tools print, whose offsets
//! follow on from line to line:
//! - an offset of eight hex digits, then `  ` and hex pairs and `|ASCII|` (hexdump -C), or `: `
//!   and hex groups and the ASCII (xxd), each line's ASCII column agreeing with its hex bytes;
//! - an offset of six or seven digits (octal, decimal or hex: `od -A o|d|x`, `hexdump -c`), then
//!   a field of four for each byte (`   c`, `  \n`, ` 303`; a UTF-8 character printed whole,
//!   `   é`, has a `  **` field for each of its other bytes), as `od -c` and `hexdump -c` print;
//! - the same offset, then ` hh` for each byte and, with `z`, `  >ASCII<` agreeing with them
//!   (`od -t x1`, `od -t x1z`);
//! - or the same offset, then ` hhhh` for each two bytes, a little-endian word (`hexdump`,
//!   `od -x`: the machines Claude Code runs on are little-endian).
//!
//! A `*` line (repeated lines left out) belongs to it, and the closing offset alone ends it (and
//! cuts the padding of a last line: blank fields, the zero after an odd byte). A line of fields
//! alone is no dump without its closing offset: a row of a table has that shape. Which radix the
//! offsets are in is learnt from how they follow on. The bytes are read from the hex or the
//! fields (exact; the ASCII column shows `.` for a newline) into one text, the rules run on it,
//! and every byte of a secret found is masked in the dump as written: its hex pair becomes `**`
//! and its ASCII character `*` (a field becomes ` ***`), so the dump keeps its lines and columns
//! and nothing of the secret stays in either column. A masked byte reads back as `*` (a
//! placeholder to the rules), so redacting a redacted dump changes nothing. The rules that read
//! the text as written see the dump's lines blanked: an ASCII column read as prose only misleads
//! them.
//!
//! Not read: `od -A n` (no offsets: a grid of single characters has its shape, with nothing to
//! tell them apart) and `xxd -p` (no offsets nor ASCII column: a secret written in hex has its
//! shape, and blanking its lines would hide it from the rules).
//!
//! Cheap when there is no dump: nothing is parsed unless a line starts like a dump's line: eight
//! hex digits then two spaces or `: `, or six or seven lowercase hex digits then a field.

use std::ops::Range;

use super::{find_all, Asked};

/// How many bytes a `*` line may stand for in the joined text: a longer run of repeated lines
/// (a zeroed region) ends the dump's text there instead.
const MAX_REPEAT: u64 = 4096;

/// A secret found in a dump: its kind, its text as read, and the cells that show it.
pub(super) struct Secret {
    pub kind: &'static str,
    pub text: String,
    /// Where the dump shows each of its bytes.
    cells: Vec<Cell>,
}

/// Where a dump shows one byte.
#[derive(Clone, Copy)]
enum Cell {
    /// A hex pair's first digit, and the byte's character in the ASCII column if there is one.
    Pair { hex: usize, ascii: Option<usize> },
    /// A field of `od -c` or `hexdump -c` and its length in bytes (more than four for a
    /// character printed whole): masked as ` ***`.
    Field { at: usize, len: usize },
}

/// The dumps of a text: the secrets in them, and the lines they take.
pub(super) struct Dumps {
    pub secrets: Vec<Secret>,
    lines: Vec<Range<usize>>,
}

/// The dumps of `text`; `None` when it holds none.
pub(super) fn find(text: &str, asked: Option<&Asked>) -> Option<Dumps> {
    if !may_hold(text.as_bytes()) {
        return None;
    }
    let found = dumps(text.as_bytes());
    if found.is_empty() {
        return None;
    }
    let mut secrets = Vec::new();
    for dump in &found {
        let joined = as_text(&dump.bytes);
        for f in find_all(&joined, asked) {
            secrets.push(Secret {
                kind: f.kind,
                text: joined[f.span.clone()].to_string(),
                cells: dump.cells[f.span].to_vec(),
            });
        }
    }
    let lines = found.into_iter().flat_map(|d| d.lines).collect();
    Some(Dumps { secrets, lines })
}

impl Dumps {
    /// `text` with every cell of a secret masked: `**` for a hex pair, `*` in the ASCII column,
    /// ` ***` for a field. A character printed whole is longer than its mask, so the dump's
    /// lines may move: find them again in the text returned.
    pub fn mask(&self, text: &str) -> String {
        let mut out = text.as_bytes().to_vec();
        let mut fields = Vec::new();
        for cell in self.secrets.iter().flat_map(|s| &s.cells) {
            match *cell {
                Cell::Pair { hex, ascii } => {
                    out[hex..hex + 2].copy_from_slice(b"**");
                    if let Some(ascii) = ascii {
                        out[ascii] = b'*';
                    }
                }
                Cell::Field { at, len } => fields.push(at..at + len),
            }
        }
        if !fields.is_empty() {
            fields.sort_unstable_by_key(|f| f.start);
            fields.dedup_by_key(|f| f.start);
            let mut masked = Vec::with_capacity(out.len());
            let mut kept = 0;
            for field in fields {
                masked.extend_from_slice(&out[kept..field.start]);
                masked.extend_from_slice(b" ***");
                kept = field.end;
            }
            masked.extend_from_slice(&out[kept..]);
            out = masked;
        }
        // Only hex digits, ASCII-column characters and whole fields were replaced, by ASCII.
        String::from_utf8(out).expect("cells are whole characters")
    }

    /// `text` with its dumps' lines blanked, for the rules that read the text as written: the
    /// dumps were read whole, and an ASCII column (a newline shown as `.`, a line cut at 16
    /// bytes) read as prose only misleads them (`KEY=.PORT=80|` is no secret).
    pub fn blank(&self, text: &str) -> String {
        let mut out = text.as_bytes().to_vec();
        for line in &self.lines {
            out[line.clone()].fill(b' ');
        }
        // Whole lines became blanks.
        String::from_utf8(out).expect("dump lines are whole lines")
    }
}

/// Whether some line starts like a dump's.
fn may_hold(bytes: &[u8]) -> bool {
    let starts = std::iter::once(0).chain(memchr::memchr_iter(b'\n', bytes).map(|i| i + 1));
    starts.into_iter().any(|s| starts_line(&bytes[s..]))
}

/// Where to cut `text`, at or before `cut`, so that no dump is cut: a secret split by the cut
/// would no longer match its rule, and the lines before would keep its start. A dump the cut
/// falls in goes whole: the cut moves back to the end of the line before it.
pub(super) fn cut_before(text: &str, cut: usize) -> usize {
    let bytes = text.as_bytes();
    let mut line = memchr::memrchr(b'\n', &bytes[..cut]).map_or(0, |nl| nl + 1);
    if !starts_line(&bytes[line..]) {
        return cut;
    }
    while line > 0 {
        let before = memchr::memrchr(b'\n', &bytes[..line - 1]).map_or(0, |nl| nl + 1);
        let above = &bytes[before..line - 1];
        if !(starts_line(above) || above == b"*" || above == b"*\r") {
            break;
        }
        line = before;
    }
    line.saturating_sub(1)
}

/// Whether `bytes` start like a dump's line: eight hex digits then `  ` or `: `, or six or seven
/// lowercase hex digits then a field of `od -c` or of `od -t x1`.
pub(super) fn starts_line(bytes: &[u8]) -> bool {
    // Most lines fail on their first byte.
    if !bytes.first().is_some_and(u8::is_ascii_hexdigit) {
        return false;
    }
    let digits = bytes
        .iter()
        .take(9)
        .take_while(|b| b.is_ascii_hexdigit())
        .count();
    let rest = &bytes[digits..];
    match digits {
        8 => rest.starts_with(b"  ") || rest.starts_with(b": "),
        6 | 7 => {
            bytes[..digits].iter().all(is_lower_hex)
                && (field(rest).is_some() || hex_field(rest, 1) || hex_field(rest, 2))
        }
        _ => false,
    }
}

/// Most bytes a dump line shows.
const LINE_BYTES: usize = 16;

fn is_lower_hex(b: &u8) -> bool {
    matches!(b, b'0'..=b'9' | b'a'..=b'f')
}

fn is_octal(b: &u8) -> bool {
    matches!(b, b'0'..=b'7')
}

/// The radixes an offset may be written in: octal (`od`'s default), hex, decimal.
const RADIXES: [u32; 3] = [8, 16, 10];

/// An offset's value in each of [`RADIXES`]; `None` where its digits are not of that radix.
type Offsets = [Option<u64>; 3];

/// The shape of a dump's lines: each of its lines has the same.
#[derive(Clone, Copy, PartialEq)]
enum Shape {
    /// `hexdump -C` or `xxd`.
    Hex,
    /// `od -c` or `hexdump -c` with offsets of so many digits.
    Chars(usize),
    /// `od -t x1` with offsets of so many digits.
    Bytes(usize),
    /// `hexdump` or `od -x` (two-byte words) with offsets of so many digits.
    Words(usize),
}

/// A line of a dump.
enum Line {
    Data(Data),
    /// `*`: lines equal to the one before are left out.
    Repeat,
    /// The offset alone, after the last line: where the bytes end.
    End(Offsets),
}

/// A line of a dump that shows bytes.
struct Data {
    shape: Shape,
    offset: Offsets,
    /// The `  **` fields the line starts with: the other bytes of a character printed whole at
    /// the end of the line before.
    rest: Vec<Cell>,
    /// Each byte the line shows, after `rest`, with its cell.
    cells: Vec<(u8, Cell)>,
    /// The other bytes of a character printed whole at the end of the line: their `  **`
    /// fields start the next line.
    open: Vec<u8>,
}

impl Data {
    /// How many bytes the line shows.
    fn len(&self) -> u64 {
        (self.rest.len() + self.cells.len()) as u64
    }
}

/// The bytes of one dump, and where each is shown.
struct Dump {
    bytes: Vec<u8>,
    cells: Vec<Cell>,
    /// The lines it takes in the text, newlines left out.
    lines: Vec<Range<usize>>,
    shape: Shape,
    /// The offset the next line starts at, in each radix the offsets so far may be in.
    next: Offsets,
    /// The last line's bytes, which a `*` repeats.
    last: Vec<(u8, Cell)>,
    /// The other bytes of a character the last line ends in.
    open: Vec<u8>,
    /// Whether its closing offset followed it.
    closed: bool,
}

impl Dump {
    fn new(line: &Data) -> Dump {
        Dump {
            bytes: Vec::new(),
            cells: Vec::new(),
            lines: Vec::new(),
            shape: line.shape,
            next: line.offset.map(|o| o.map(|o| o + line.len())),
            last: Vec::new(),
            open: Vec::new(),
            closed: false,
        }
    }

    /// How many bytes before `line` a `*` left out, if `line` follows on (after a `*` when
    /// `repeated`) in some radix; and the radixes it follows on in.
    fn follows(&self, line: &Data, repeated: bool) -> Option<(u64, [bool; 3])> {
        if line.shape != self.shape || line.rest.len() != self.open.len() {
            return None;
        }
        let last = self.last.len() as u64;
        let gaps = std::array::from_fn::<_, 3, _>(|r| {
            let gap = line.offset[r]?.checked_sub(self.next[r]?)?;
            // A `*` stands for at least one line equal to the last.
            let fits = match repeated {
                false => gap == 0,
                true => gap > 0 && gap <= MAX_REPEAT && gap % last.max(1) == 0,
            };
            fits.then_some(gap)
        });
        // Of two readings, the one that makes up fewer bytes.
        let gap = gaps.iter().flatten().min().copied()?;
        if gap > 0 && !self.open.is_empty() {
            return None;
        }
        Some((gap, gaps.map(|g| g == Some(gap))))
    }

    /// Adds `line` (at `at` in the text), which follows on after `gap` bytes left out in the
    /// radixes `kept` (a new dump: `None`).
    fn add(&mut self, line: Data, at: Range<usize>, follows: Option<(u64, [bool; 3])>) {
        let mut shown = Vec::with_capacity(line.rest.len() + line.cells.len());
        if let Some((gap, kept)) = follows {
            let gap = usize::try_from(gap).unwrap_or(0);
            let left_out: Vec<_> = self.last.iter().copied().cycle().take(gap).collect();
            self.push(&left_out);
            shown.extend(self.open.drain(..).zip(line.rest.iter().copied()));
            let len = line.len();
            self.next =
                std::array::from_fn(|r| line.offset[r].filter(|_| kept[r]).map(|o| o + len));
        }
        shown.extend(line.cells);
        self.push(&shown);
        self.lines.push(at);
        self.last = shown;
        self.open = line.open;
    }

    /// Ends the dump at offset `end` (its closing offset, if it is that): `hexdump -c` pads
    /// its last line with blank fields, which read as blanks past the end.
    fn end(&mut self, end: Offsets) {
        let past = (0..3)
            .filter_map(|r| self.next[r]?.checked_sub(end[r]?))
            .min();
        let Some(past) = past.and_then(|p| usize::try_from(p).ok()) else {
            return;
        };
        let from = self.bytes.len().saturating_sub(past);
        // What pads a last line: blank fields, or the byte after an odd last byte in its word.
        let pad = match self.shape {
            Shape::Chars(_) => b' ',
            Shape::Words(_) => 0,
            _ => return self.closed = past == 0,
        };
        if past < self.last.len().max(1) && self.bytes[from..].iter().all(|&b| b == pad) {
            self.bytes.truncate(from);
            self.cells.truncate(from);
            self.closed = true;
        }
    }

    /// Whether the dump is one: a line of fields alone (a row of a table) is not, unless the
    /// closing offset follows it.
    fn stands(&self) -> bool {
        let shown = self.lines.iter().filter(|line| line.len() > 1).count();
        self.shape == Shape::Hex || self.closed || shown > 1
    }

    fn push(&mut self, cells: &[(u8, Cell)]) {
        for &(byte, cell) in cells {
            self.bytes.push(byte);
            self.cells.push(cell);
        }
    }
}

/// The dumps of `bytes`: runs of consecutive dump lines whose offsets follow on.
fn dumps(bytes: &[u8]) -> Vec<Dump> {
    let mut dumps = Vec::new();
    let mut current: Option<Dump> = None;
    let mut repeated = false;
    let mut start = 0;
    while start < bytes.len() {
        let end = memchr::memchr(b'\n', &bytes[start..]).map_or(bytes.len(), |i| start + i);
        let mut line = &bytes[start..end];
        if let Some(body) = line.strip_suffix(b"\r") {
            line = body;
        }
        match parse(line, start) {
            Some(Line::Data(data)) => {
                let follows = current.as_ref().and_then(|d| d.follows(&data, repeated));
                if follows.is_none() {
                    dumps.extend(current.take().filter(Dump::stands));
                }
                let dump = current.get_or_insert_with(|| Dump::new(&data));
                dump.add(data, start..start + line.len(), follows);
                repeated = false;
            }
            Some(Line::Repeat) => {
                if let Some(dump) = current.as_mut() {
                    dump.lines.push(start..start + 1);
                    repeated = true;
                }
            }
            Some(Line::End(end)) => {
                if let Some(dump) = current.as_mut() {
                    dump.end(end);
                }
                dumps.extend(current.take().filter(Dump::stands));
            }
            None => dumps.extend(current.take().filter(Dump::stands)),
        }
        start = end + 1;
    }
    dumps.extend(current.filter(Dump::stands));
    dumps
}

/// `line` (starting at `at` in the text) read as a line of a dump; `None` when it is not one.
fn parse(line: &[u8], at: usize) -> Option<Line> {
    if line == b"*" {
        return Some(Line::Repeat);
    }
    let digits = line
        .iter()
        .take(9)
        .take_while(|b| b.is_ascii_hexdigit())
        .count();
    let data = match digits {
        6..=8 if digits == line.len() => return Some(Line::End(offsets(line, digits))),
        8 => parse_hex(line, at)?,
        6 | 7 if line[..digits].iter().all(is_lower_hex) => {
            // ` 2023` is both an octal field and a word: the line's shape is the one that reads.
            parse_chars(line, at, digits)
                .or_else(|| parse_bytes(line, at, digits))
                .or_else(|| parse_words(line, at, digits))?
        }
        _ => return None,
    };
    Some(Line::Data(data))
}

/// `line`'s offset of `digits` digits, in each radix.
fn offsets(line: &[u8], digits: usize) -> Offsets {
    let text = std::str::from_utf8(&line[..digits]).unwrap_or("");
    RADIXES.map(|radix| u64::from_str_radix(text, radix).ok())
}

/// `line` (at `at`) read as a line of `hexdump -C` or `xxd`.
fn parse_hex(line: &[u8], at: usize) -> Option<Data> {
    let offset = offsets(line, 8);
    let mut hex = Vec::new();
    let ascii = match line.get(8..10)? {
        b"  " => {
            // hexdump -C: `hh ` pairs, an extra blank after the eighth, then `|ASCII|`.
            let mut p = 10;
            loop {
                if hex.len() == 8 && line.get(p) == Some(&b' ') {
                    p += 1;
                }
                match pair(line, p) {
                    Some(byte) if line.get(p + 2) == Some(&b' ') => {
                        hex.push((byte, p));
                        p += 3;
                    }
                    _ => break,
                }
            }
            let inner = line.strip_suffix(b"|")?;
            let from = inner.len().checked_sub(hex.len())?;
            let bar = from
                .checked_sub(1)
                .filter(|&bar| bar >= p && inner[bar] == b'|')?;
            if !inner[p..bar].iter().all(|&b| b == b' ') {
                return None;
            }
            from
        }
        b": " => {
            // xxd: groups of hex pairs parted by a blank, then at least one more blank, then
            // the ASCII to the end of the line.
            let mut p = 10;
            loop {
                let group = hex.len();
                while let Some(byte) = pair(line, p) {
                    hex.push((byte, p));
                    p += 2;
                }
                if hex.len() == group || line.get(p) != Some(&b' ') {
                    break;
                }
                p += 1;
            }
            let from = line.len().checked_sub(hex.len())?;
            if from <= p || !line[p..from].iter().all(|&b| b == b' ') {
                return None;
            }
            from
        }
        _ => return None,
    };
    let cells = with_ascii(line, at, hex, ascii)?;
    Some(Data {
        shape: Shape::Hex,
        offset: [None, offset[1], None],
        rest: Vec::new(),
        cells,
        open: Vec::new(),
    })
}

/// The cells of the hex pairs `hex` (each byte, `None` masked, and where its pair is in `line`)
/// whose ASCII column starts at `ascii` in `line` (at `at`); `None` when a character there does
/// not show its byte.
fn with_ascii(
    line: &[u8],
    at: usize,
    hex: Vec<(Option<u8>, usize)>,
    ascii: usize,
) -> Option<Vec<(u8, Cell)>> {
    if hex.is_empty() {
        return None;
    }
    let mut cells = Vec::with_capacity(hex.len());
    for (i, (byte, p)) in hex.into_iter().enumerate() {
        let shown = line[ascii + i];
        let expected = match byte {
            None => b'*',
            Some(b @ 0x20..=0x7e) => b,
            Some(_) => b'.',
        };
        if shown != expected {
            return None;
        }
        let cell = Cell::Pair {
            hex: at + p,
            ascii: Some(at + ascii + i),
        };
        cells.push((byte.unwrap_or(b'*'), cell));
    }
    Some(cells)
}

/// `line` (at `at`) read as a line of `od -c` or `hexdump -c`: an offset of `digits` digits,
/// then a [`field`] for each byte. A character printed whole is followed by a `  **` field for
/// each of its other bytes, on its line or at the start of the next.
fn parse_chars(line: &[u8], at: usize, digits: usize) -> Option<Data> {
    let mut data = Data {
        shape: Shape::Chars(digits),
        offset: offsets(line, digits),
        rest: Vec::new(),
        cells: Vec::new(),
        open: Vec::new(),
    };
    let mut p = digits;
    while p < line.len() {
        let (shown, len) = field(&line[p..])?;
        let cell = Cell::Field { at: at + p, len };
        match shown {
            Field::Rest if !data.open.is_empty() => data.cells.push((data.open.remove(0), cell)),
            Field::Rest if data.cells.is_empty() => data.rest.push(cell),
            Field::Rest => return None,
            _ if !data.open.is_empty() => return None,
            Field::Byte(byte) => data.cells.push((byte, cell)),
            Field::Char(c) => {
                let mut utf8 = [0; 4];
                let bytes = c.encode_utf8(&mut utf8).as_bytes();
                data.cells.push((bytes[0], cell));
                data.open = bytes[1..].to_vec();
            }
        }
        p += len;
        if data.len() > LINE_BYTES as u64 {
            return None;
        }
    }
    (data.len() > 0).then_some(data)
}

/// What an `od -c` field shows.
enum Field {
    /// One byte (`*` when masked).
    Byte(u8),
    /// A character of more than one byte, printed whole.
    Char(char),
    /// `  **`: another byte of the character printed whole before it.
    Rest,
}

/// The `od -c` field `bytes` start with, and its length: `   c` a printable character (a blank
/// as four blanks), `  \n` an escape, ` 303` a byte in octal, ` ***` a masked byte, `  **`
/// another byte of a character of more than one printed whole as `   é` (or `  中`, two columns
/// wide).
fn field(bytes: &[u8]) -> Option<(Field, usize)> {
    let byte = |b| Some((Field::Byte(b), 4));
    match *bytes.get(..4)? {
        [b' ', b'*', b'*', b'*'] => byte(b'*'),
        [b' ', b' ', b'*', b'*'] => Some((Field::Rest, 4)),
        [b' ', b' ', b' ', c @ 0x20..=0x7e] => byte(c),
        [b' ', b' ', b'\\', e] => byte(match e {
            b'0' => 0,
            b'a' => 7,
            b'b' => 8,
            b't' => b'\t',
            b'n' => b'\n',
            b'v' => 11,
            b'f' => 12,
            b'r' => b'\r',
            _ => return None,
        }),
        [b' ', a, b, c] if [a, b, c].iter().all(is_octal) => {
            let value = u32::from(a - b'0') * 64 + u32::from(b - b'0') * 8 + u32::from(c - b'0');
            byte(u8::try_from(value).ok()?)
        }
        [b' ', b' ', ..] => {
            let blanks = if bytes[2] == b' ' { 3 } else { 2 };
            let head = &bytes[blanks..bytes.len().min(blanks + 4)];
            let c = match head.utf8_chunks().next()?.valid().chars().next() {
                Some(c) if !c.is_ascii() && !c.is_control() => c,
                _ => return None,
            };
            Some((Field::Char(c), blanks + c.len_utf8()))
        }
        _ => None,
    }
}

/// `line` (at `at`) read as a line of `od -t x1`: an offset of `digits` digits, then ` hh` for
/// each byte, then with `z` blanks and `  >ASCII<`, agreeing with the bytes.
fn parse_bytes(line: &[u8], at: usize, digits: usize) -> Option<Data> {
    let mut hex = Vec::new();
    let mut p = digits;
    while line.get(p) == Some(&b' ') && matches!(line.get(p + 3), None | Some(b' ')) {
        match pair(line, p + 1) {
            Some(byte) => hex.push((byte, p + 1)),
            None => break,
        }
        p += 3;
    }
    let cells = if p == line.len() {
        if hex.is_empty() || hex.len() > LINE_BYTES {
            return None;
        }
        hex.into_iter()
            .map(|(byte, p)| {
                let cell = Cell::Pair {
                    hex: at + p,
                    ascii: None,
                };
                (byte.unwrap_or(b'*'), cell)
            })
            .collect()
    } else {
        let inner = line.strip_suffix(b"<")?;
        let from = inner.len().checked_sub(hex.len())?;
        let bar = from
            .checked_sub(1)
            .filter(|&bar| bar >= p + 2 && inner[bar] == b'>')?;
        if !inner[p..bar].iter().all(|&b| b == b' ') {
            return None;
        }
        if hex.len() > LINE_BYTES {
            return None;
        }
        with_ascii(line, at, hex, from)?
    };
    Some(Data {
        shape: Shape::Bytes(digits),
        offset: offsets(line, digits),
        rest: Vec::new(),
        cells,
        open: Vec::new(),
    })
}

/// Whether `bytes` start with a field of so many hex pairs: ` hh` (`od -t x1`) or ` hhhh`
/// (`hexdump`, `od -x`), then a blank or the end.
fn hex_field(bytes: &[u8], pairs: usize) -> bool {
    bytes.first() == Some(&b' ')
        && matches!(bytes.get(1 + 2 * pairs), None | Some(b' '))
        && (0..pairs).all(|i| pair(bytes, 1 + 2 * i).is_some())
}

/// `line` (at `at`) read as a line of `hexdump` or `od -x`: an offset of `digits` digits, then
/// ` hhhh` for each two bytes, the second one's pair first (the words of a little-endian
/// machine), then blanks (`hexdump` pads its last line). An odd last byte shows as `00hh`.
fn parse_words(line: &[u8], at: usize, digits: usize) -> Option<Data> {
    let mut cells = Vec::new();
    let mut p = digits;
    while hex_field(&line[p..], 2) {
        for hex in [p + 3, p + 1] {
            let byte = pair(line, hex)?.unwrap_or(b'*');
            cells.push((
                byte,
                Cell::Pair {
                    hex: at + hex,
                    ascii: None,
                },
            ));
        }
        p += 5;
    }
    if cells.is_empty() || cells.len() > LINE_BYTES || !line[p..].iter().all(|&b| b == b' ') {
        return None;
    }
    Some(Data {
        shape: Shape::Words(digits),
        offset: offsets(line, digits),
        rest: Vec::new(),
        cells,
        open: Vec::new(),
    })
}

/// The byte the two characters at `p` give: `Some(None)` for a masked `**`.
fn pair(line: &[u8], p: usize) -> Option<Option<u8>> {
    match line.get(p..p + 2)? {
        b"**" => Some(None),
        digits => {
            let digit = |d: u8| char::from(d).to_digit(16);
            let value = digit(digits[0])? * 16 + digit(digits[1])?;
            Some(Some(u8::try_from(value).ok()?))
        }
    }
}

/// `bytes` as a text of as many bytes: each byte that is not part of valid UTF-8 becomes `.`,
/// as the dump's ASCII column shows it.
fn as_text(bytes: &[u8]) -> String {
    let mut text = String::with_capacity(bytes.len());
    for chunk in bytes.utf8_chunks() {
        text.push_str(chunk.valid());
        text.extend(std::iter::repeat_n('.', chunk.invalid().len()));
    }
    text
}

#[cfg(test)]
pub(crate) mod tests {
    use std::borrow::Cow;

    use super::*;
    use crate::redact::redact;

    /// `bytes` in lines of 16, each as `line` prints it from its offset, a `*` for lines equal
    /// to the one before (as hexdump and od leave them out).
    fn starred(bytes: &[u8], line: impl Fn(usize, &[u8]) -> String) -> String {
        let mut out = String::new();
        let mut before: Option<&[u8]> = None;
        let mut starred = false;
        for (n, chunk) in bytes.chunks(16).enumerate() {
            if before == Some(chunk) {
                if !starred {
                    out.push_str("*\n");
                }
                starred = true;
                continue;
            }
            before = Some(chunk);
            starred = false;
            out += &line(n * 16, chunk);
        }
        out
    }

    /// `bytes` as `hexdump -C` prints them.
    pub(crate) fn hexdump(bytes: &[u8]) -> String {
        let lines = starred(bytes, |offset, chunk| {
            let mut out = format!("{offset:08x}  ");
            for i in 0..16 {
                match chunk.get(i) {
                    Some(b) => out += &format!("{b:02x} "),
                    None => out += "   ",
                }
                if i == 7 {
                    out.push(' ');
                }
            }
            out + &format!(" |{}|\n", shown(chunk))
        });
        lines + &format!("{:08x}\n", bytes.len())
    }

    /// `bytes` as `xxd` prints them.
    pub(crate) fn xxd(bytes: &[u8]) -> String {
        let mut out = String::new();
        for (n, chunk) in bytes.chunks(16).enumerate() {
            out += &format!("{:08x}: ", n * 16);
            for i in 0..16 {
                match chunk.get(i) {
                    Some(b) => out += &format!("{b:02x}"),
                    None => out += "  ",
                }
                if i % 2 == 1 {
                    out.push(' ');
                }
            }
            out += &format!(" {}\n", shown(chunk));
        }
        out
    }

    /// `bytes` as `od -c` prints them.
    pub(crate) fn od_c(bytes: &[u8]) -> String {
        chars(bytes, |offset| format!("{offset:07o}"), false, false)
    }

    /// `bytes` as `od -c` or `hexdump -c` print them: each line from its offset as `offset`
    /// writes it; a UTF-8 character printed whole (`   é  **`) when `whole` (the `od` of BSD
    /// and of newer coreutils, in a UTF-8 locale); the last line padded with blanks when `pad`
    /// (`hexdump -c`).
    fn chars(bytes: &[u8], offset: impl Fn(usize) -> String, whole: bool, pad: bool) -> String {
        // The field of each byte: a character printed whole takes the field of its first byte.
        let mut fields = Vec::with_capacity(bytes.len());
        for chunk in bytes.utf8_chunks() {
            for c in chunk.valid().chars() {
                match c.len_utf8() {
                    1 => fields.push(od_field(c as u8)),
                    n if whole => {
                        fields.push(format!("   {c}"));
                        fields.extend(std::iter::repeat_n("  **".to_string(), n - 1));
                    }
                    _ => fields.extend(c.to_string().bytes().map(od_field)),
                }
            }
            fields.extend(chunk.invalid().iter().map(|&b| od_field(b)));
        }
        let lines = starred(bytes, |at, chunk| {
            let mut out = offset(at) + &fields[at..at + chunk.len()].concat();
            if pad {
                out += &" ".repeat(4 * (16 - chunk.len()));
            }
            out + "\n"
        });
        lines + &offset(bytes.len()) + "\n"
    }

    fn od_field(b: u8) -> String {
        match b {
            0 => "  \\0".to_string(),
            b'\t' => "  \\t".to_string(),
            b'\n' => "  \\n".to_string(),
            b'\r' => "  \\r".to_string(),
            0x20..=0x7e => format!("   {}", char::from(b)),
            _ => format!(" {b:03o}"),
        }
    }

    /// `bytes` as `od -t x1` prints them, with the ASCII column when `z` (`od -t x1z`).
    fn od_x1(bytes: &[u8], z: bool) -> String {
        let lines = starred(bytes, |at, chunk| {
            let mut out = format!("{at:07o}");
            for b in chunk {
                out += &format!(" {b:02x}");
            }
            if z {
                out += &" ".repeat(3 * (16 - chunk.len()));
                out += &format!("  >{}<", shown(chunk));
            }
            out + "\n"
        });
        lines + &format!("{:07o}\n", bytes.len())
    }

    /// `bytes` as `hexdump` or `od -x` print them: two-byte words of a little-endian machine,
    /// each line from its offset as `offset` writes it, the last padded with blanks when `pad`.
    fn words(bytes: &[u8], offset: impl Fn(usize) -> String, pad: bool) -> String {
        let lines = starred(bytes, |at, chunk| {
            let mut out = offset(at);
            for word in chunk.chunks(2) {
                out += &format!(" {:02x}{:02x}", word.get(1).copied().unwrap_or(0), word[0]);
            }
            if pad {
                out += &" ".repeat(5 * (8 - chunk.len().div_ceil(2)));
            }
            out + "\n"
        });
        lines + &offset(bytes.len()) + "\n"
    }

    /// Each shape read back, by the name of the tool that prints it.
    fn tools(bytes: &[u8]) -> Vec<(&'static str, String)> {
        vec![
            ("hexdump -C", hexdump(bytes)),
            ("xxd", xxd(bytes)),
            ("od -c", od_c(bytes)),
            (
                "hexdump -c",
                chars(bytes, |o| format!("{o:07x}"), false, true),
            ),
            (
                "od -A x -c",
                chars(bytes, |o| format!("{o:06x}"), false, false),
            ),
            (
                "od -A d -c",
                chars(bytes, |o| format!("{o:07}"), false, false),
            ),
            (
                "od -c, whole",
                chars(bytes, |o| format!("{o:07o}"), true, false),
            ),
            ("od -t x1", od_x1(bytes, false)),
            ("od -t x1z", od_x1(bytes, true)),
            ("hexdump", words(bytes, |o| format!("{o:07x}"), true)),
            ("od -x", words(bytes, |o| format!("{o:07o}"), false)),
        ]
    }

    fn shown(chunk: &[u8]) -> String {
        chunk
            .iter()
            .map(|&b| match b {
                0x20..=0x7e => char::from(b),
                _ => '.',
            })
            .collect()
    }

    /// An invented `.env` holding a secret of each rule family: an assignment (hand-written),
    /// a `ghp_` token (hand-written), a Hugging Face token (the data rules) and a key-shaped
    /// token (the generic rules). Split with concat! so that secret scanners do not flag this
    /// file.
    const ENV: &str = concat!(
        "# ==== production ====\nDEBUG=false\nALLOWED_HOSTS=shop.example.com\n",
        "SECRET_KEY=",
        "q8Zr2Lm5Xv9Kc3Tn7Bw1Hd4Fy6Pj0Sg8Ua2Ne5Rt7Yk9Wq",
        "\nDEPLOY_NOTE=gh ghp_",
        "aB3dE6gH9jK2mN5pQ8sT1vW4yZ7bC0eF2hJ5",
        "\n# mirror: hf_",
        "QwErTyUiOpAsDfGhJkLzXcVbNmQwErTyUi",
        "\n# ci uses sk_live_",
        "Zx8Cv7Bn6Mq5Wl4Ek3Rj2Th1Yg",
        " for billing\nTIME_ZONE=UTC\n",
    );
    const SECRETS: &[&str] = &[
        "q8Zr2Lm5Xv9Kc3Tn7Bw1Hd4Fy6Pj0Sg8Ua2Ne5Rt7Yk9Wq",
        "aB3dE6gH9jK2mN5pQ8sT1vW4yZ7bC0eF2hJ5",
        "QwErTyUiOpAsDfGhJkLzXcVbNmQwErTyUi",
        "Zx8Cv7Bn6Mq5Wl4Ek3Rj2Th1Yg",
    ];
    const KEPT: &[&str] = &[
        "DEBUG=false",
        "SECRET_KEY=",
        "TIME_ZONE=UTC\n",
        " for billing",
    ];

    /// The bytes a dump's hex column or fields show (a masked byte as `*`) and its ASCII
    /// column (or its fields' characters) joined.
    fn columns(dump: &str) -> (String, String) {
        let found = dumps(dump.as_bytes());
        let hex: Vec<u8> = found.iter().flat_map(|d| d.bytes.clone()).collect();
        let ascii: String = found
            .iter()
            .flat_map(|d| &d.cells)
            .filter_map(|c| match *c {
                Cell::Pair { ascii, .. } => ascii.map(|a| &dump[a..=a]),
                Cell::Field { at, len } => Some(dump[at..at + len].trim_start()),
            })
            .collect();
        (String::from_utf8_lossy(&hex).into_owned(), ascii)
    }

    #[test]
    fn a_secret_split_over_dump_lines_is_masked_in_both_columns() {
        for (tool, dump) in tools(ENV.as_bytes()) {
            let text = format!("this is what I see:\n{dump}why does it not load?");
            let out = redact(&text);
            assert_eq!(
                out.lines().map(str::len).collect::<Vec<_>>(),
                text.lines().map(str::len).collect::<Vec<_>>(),
                "{tool}: lines kept\n{out}"
            );
            let (hex, ascii) = columns(&out);
            assert_eq!(hex.len(), ENV.len(), "{tool}: still one dump\n{out}");
            for secret in SECRETS {
                for window in secret.as_bytes().windows(6) {
                    let window = std::str::from_utf8(window).unwrap();
                    assert!(!hex.contains(window), "{tool}: {window} in hex\n{out}");
                    assert!(!ascii.contains(window), "{tool}: {window} in ASCII\n{out}");
                    assert!(!out.contains(window), "{tool}: {window}\n{out}");
                }
            }
            for kept in KEPT {
                assert!(hex.contains(kept), "{tool}: {kept:?} kept\n{out}");
            }
            assert!(out.starts_with("this is what I see:\n"), "{out}");
            assert_eq!(redact(&out), out, "{tool}: stable");
        }
    }

    /// What `hexdump -c`, `od -A x -c`, `od -A d -c`, `od -t x1z`, `hexdump` and `od -x` printed
    /// for an invented `.env` of two lines, its token split over the first dump lines.
    const REAL: [&str; 6] = [
        "0000000   A   P   I   _   T   O   K   E   N   =   g   h   p   _   w   Z\n\
         0000010   8   q   L   3   v   N   5   x   R   2   t   K   7   m   P   9\n\
         0000020   s   B   4   c   J   6   y   D   1   f   H   0   e   G  \\n   M\n\
         0000030   O   D   E   =   d   e   v  \\n                                \n\
         0000038\n",
        "000000   A   P   I   _   T   O   K   E   N   =   g   h   p   _   w   Z\n\
         000010   8   q   L   3   v   N   5   x   R   2   t   K   7   m   P   9\n\
         000020   s   B   4   c   J   6   y   D   1   f   H   0   e   G  \\n   M\n\
         000030   O   D   E   =   d   e   v  \\n\n\
         000038\n",
        "0000000   A   P   I   _   T   O   K   E   N   =   g   h   p   _   w   Z\n\
         0000016   8   q   L   3   v   N   5   x   R   2   t   K   7   m   P   9\n\
         0000032   s   B   4   c   J   6   y   D   1   f   H   0   e   G  \\n   M\n\
         0000048   O   D   E   =   d   e   v  \\n\n\
         0000056\n",
        "0000000 41 50 49 5f 54 4f 4b 45 4e 3d 67 68 70 5f 77 5a  >API_TOKEN=ghp_wZ<\n\
         0000020 38 71 4c 33 76 4e 35 78 52 32 74 4b 37 6d 50 39  >8qL3vN5xR2tK7mP9<\n\
         0000040 73 42 34 63 4a 36 79 44 31 66 48 30 65 47 0a 4d  >sB4cJ6yD1fH0eG.M<\n\
         0000060 4f 44 45 3d 64 65 76 0a                          >ODE=dev.<\n\
         0000070\n",
        "0000000 5041 5f49 4f54 454b 3d4e 6867 5f70 5a77\n\
         0000010 7138 334c 4e76 7835 3252 4b74 6d37 3950\n\
         0000020 4273 6334 364a 4479 6631 3048 4765 4d0a\n\
         0000030 444f 3d45 6564 0a76                    \n\
         0000038\n",
        "0000000 5041 5f49 4f54 454b 3d4e 6867 5f70 5a77\n\
         0000020 7138 334c 4e76 7835 3252 4b74 6d37 3950\n\
         0000040 4273 6334 364a 4479 6631 3048 4765 4d0a\n\
         0000060 444f 3d45 6564 0a76\n\
         0000070\n",
    ];

    #[test]
    fn dumps_as_the_tools_print_them_are_read_back_and_masked() {
        let token = concat!("ghp_", "wZ8qL3vN5xR2tK7mP9sB4cJ6yD1fH0eG");
        let env = format!("API_TOKEN={token}\nMODE=dev\n");
        for dump in REAL {
            let found = dumps(dump.as_bytes());
            assert_eq!(found.len(), 1, "{dump}");
            assert_eq!(found[0].bytes, env.as_bytes(), "{dump}");
            let out = redact(dump);
            let (hex, _) = columns(&out);
            assert_eq!(hex, format!("API_TOKEN={}\nMODE=dev\n", "*".repeat(36)));
            assert_eq!(redact(&out), out, "stable");
        }
    }

    #[test]
    fn a_character_printed_whole_is_read_back_and_masked_whole() {
        // A password of accented letters, its characters cut over two lines, one at a line's end.
        let env = "# caf\u{e9} \u{2615}\nDB_PASSWORD=Gr\u{fc}\u{df}e-\u{e9}t\u{e9}-Kx7Qm2Rwz\u{e0}Lp\nX=1\n";
        let dump = chars(env.as_bytes(), |o| format!("{o:07o}"), true, false);
        assert!(dump.contains("   \u{2615}  **  **"), "{dump}");
        assert!(
            dump.contains("\n0000060  **"),
            "a character cut over two lines\n{dump}"
        );
        let found = dumps(dump.as_bytes());
        assert_eq!(found.len(), 1, "{dump}");
        assert_eq!(found[0].bytes, env.as_bytes(), "{dump}");
        let out = redact(&dump);
        let (hex, fields) = columns(&out);
        assert!(
            hex.starts_with("# caf\u{e9} \u{2615}\nDB_PASSWORD=*"),
            "{out}"
        );
        assert!(hex.ends_with("*\nX=1\n"), "{out}");
        for part in ["Kx7", "\u{fc}", "\u{e0}", "t\u{e9}"] {
            assert!(!fields.contains(part), "{part}\n{out}");
        }
        assert_eq!(redact(&out), out, "stable");
        // Masked, the dump is shorter: a secret on the line after it is still seen whole.
        let token = concat!("ghp_", "wZ8qL3vN5xR2tK7mP9sB4cJ6yD1fH0eG");
        // Its lines without the closing offset.
        let lines = &dump[..dump.trim_end().rfind('\n').unwrap_or(0) + 1];
        let text = format!("{lines}{token} failed too\n");
        let out = redact(&text);
        let tail = out.lines().last().unwrap_or_default();
        assert!(tail.starts_with("[REDACTED:"), "{out}");
        assert!(tail.ends_with("] failed too"), "{out}");
        // A field two columns wide has two blanks.
        let field = field("  \u{4e2d}  **  **".as_bytes());
        assert!(matches!(field, Some((Field::Char('\u{4e2d}'), 5))));
    }

    #[test]
    fn a_cut_inside_a_dump_drops_the_dump() {
        let dump = hexdump(ENV.as_bytes());
        let text = format!("see:\n{dump}after the dump");
        // A cut in the line holding the secret's first bytes, in the lines after it, in a `*`.
        let at = text.find("SECRET_KEY=").expect("in the ASCII column");
        for max in [at, at + 40, at + 200, text.len() - 20] {
            let out = crate::redact::redact_prefix(&text, max);
            assert_eq!(out, "see: [truncated]", "cut at {max}");
        }
        // A cut after the dump keeps it, redacted.
        let out = crate::redact::redact_prefix(&text, text.len() - 2);
        assert!(out.starts_with("see:\n00000000  "), "{out}");
        assert!(!out.contains(&SECRETS[0][..8]), "{out}");
    }

    #[test]
    fn findings_name_a_dump_secret_by_its_bytes_and_kind() {
        let found = crate::redact::findings(&xxd(ENV.as_bytes()), None);
        assert!(
            found.contains(&(SECRETS[0].to_string(), "env-secret")),
            "{found:?}"
        );
        assert!(
            found.iter().any(|(text, _)| text.contains(SECRETS[1])),
            "{found:?}"
        );
    }

    #[test]
    fn a_dump_without_a_secret_and_hex_in_text_are_left_alone() {
        let env = concat!(
            "# ==== local ====\nDEBUG=true\nSECRET_KEY=\n",
            "PORT=8000 # caf\u{e9}\n"
        );
        let mut texts: Vec<String> = tools(env.as_bytes()).into_iter().map(|t| t.1).collect();
        texts.extend([
            "00000000  is where the header starts | then the index\n0000001c  the data |".into(),
            "deadbeef: fix the loader\n0a1b2c3d  refactor: split the parser |".into(),
            // A dump line whose ASCII column disagrees with its bytes is not a dump's.
            "00000000  70 61 73 73  |pass|\n00000000: 7061 7373  word\n".into(),
            "0000000 70 61 73 73  >word<\n".into(),
        ]);
        for text in texts {
            let out = redact(&text);
            assert!(matches!(out, Cow::Borrowed(_)), "{text}\n{out}");
        }
    }

    #[test]
    fn text_shaped_like_a_dump_is_not_one() {
        // A token where a dump would read it, so that a false dump would be masked.
        let token = concat!("ghp_", "wZ8qL3vN5xR2tK7mP9sB4cJ6yD1fH0eG");
        let spaced: String = token.chars().map(|c| format!("   {c}")).collect();
        for text in [
            // A git log, its hashes followed by hex-looking words.
            "a1b2c3d de ad be ef\nb2c3d4e add the key\nc3d4e5f  ab cd\nd4e5f60 cafe babe".into(),
            // A table of permissions and a column of numbers.
            "0000644 644 755 600\n0000755 755 700 644\n1000000 100 200 300\n".to_string(),
            "1234567\n2345678\n0000016\n".to_string(),
            // A row of fields alone, even with a `*` after it.
            format!("0000000{}\n*\nthat was all", &spaced[..4 * 16]),
            // A grid of characters (what `od -A n -c` prints) is not read: nothing to check it by.
            format!("{spaced}\n{spaced}\n"),
            // Fields whose offsets do not follow on: each line alone, no closing offset.
            format!(
                "0000000{}\n0000100{}\n",
                &spaced[..4 * 12],
                &spaced[4 * 12..]
            ),
        ] {
            assert!(dumps(text.as_bytes()).is_empty(), "{text}");
            let out = redact(&text);
            assert!(matches!(out, Cow::Borrowed(_)), "{text}\n{out}");
        }
    }

    #[test]
    fn dumps_read_back_the_bytes_dumped_across_repeated_lines() {
        let mut bytes = b"head\x00\xff\n".to_vec();
        bytes.extend([0; 64]);
        bytes.extend(b"TOKEN=value|with a bar\r\n\xc3\xa9 tail  ");
        let hd = hexdump(&bytes);
        assert!(hd.contains("\n*\n"), "{hd}");
        for (tool, dump) in tools(&bytes) {
            let found = dumps(dump.as_bytes());
            assert_eq!(found.len(), 1, "{tool}\n{dump}");
            assert_eq!(found[0].bytes, bytes, "{tool}\n{dump}");
            // The same dump pasted twice is two dumps: its offsets start again.
            let twice = format!("{dump}and again\n{dump}");
            assert_eq!(dumps(twice.as_bytes()).len(), 2, "{tool}");
        }
        assert_eq!(as_text(b"a\xc3\xa9\xffb"), "a\u{e9}.b");
    }

    #[test]
    fn only_text_with_a_dump_shaped_line_is_parsed() {
        assert!(may_hold(b"00000000  23 20"));
        assert!(may_hold(b"x\n0000abcd: 2320"));
        assert!(!may_hold(b"x 00000000  23 20\n"));
        assert!(!may_hold(b"0000000  23 20\n00000000 : 23"));
        assert!(may_hold(b"x\n0000020   D   B"));
        assert!(may_hold(b"0000000  \\n 303"));
        assert!(may_hold(b"00000a0   D"));
        assert!(may_hold(b"000010   D"));
        assert!(may_hold(b"0000020   \xc3\xa9  **"));
        assert!(may_hold(b"0000020 4b 45"));
        assert!(!may_hold(b"0000000 D B\n2024061 was the build"));
        assert!(!may_hold(b"00000A0   D\n00010   D\na1b2c3d fix it"));
    }
}
