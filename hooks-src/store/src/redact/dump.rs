//! Dumps (`hexdump -C`, `hd`, `xxd`, `od -c`): a file pasted as a dump has its secrets split over
//! 16-byte lines, written twice (as hex bytes and in the ASCII column) or a character a field,
//! where no rule sees them.
//!
//! A dump is a run of consecutive lines of the exact shape those tools print (an offset of eight
//! hex digits, then `  ` and hex pairs and `|ASCII|` for hexdump, `: ` and hex groups and the
//! ASCII for xxd), each line's ASCII column agreeing with its hex bytes; or an offset of seven
//! octal digits, then a field of four for each byte (`   c`, `  \n`, ` 303`) for `od -c`. A `*`
//! line (repeated lines left out) belongs to it, and the closing offset alone ends it. The bytes are read
//! from the hex (exact; the ASCII column shows `.` for a newline) into one text, the rules run on
//! it, and every byte of a secret found is masked in the dump as written: its hex pair becomes
//! `**` and its ASCII character `*` (an `od -c` field becomes ` ***`), so the dump keeps its lines
//! and columns and nothing of the secret stays in either column. A masked byte reads back as `*` (a placeholder to the rules),
//! so redacting a redacted dump changes nothing. The rules that read the text as written see the
//! dump's lines blanked: an ASCII column read as prose only misleads them.
//!
//! Cheap when there is no dump: nothing is parsed unless a line starts with eight hex digits then
//! two spaces or `: `, or with seven octal digits and an `od -c` field.

use std::ops::Range;

use super::{find_all, Asked};

/// How many bytes a `*` line may stand for in the joined text: a longer run of repeated lines
/// (a zeroed region) ends the dump's text there instead.
const MAX_REPEAT: u64 = 4096;

/// A secret found in a dump: its kind, its text as read, and the cells that show it.
pub(super) struct Secret {
    pub kind: &'static str,
    pub text: String,
    /// Each byte's hex pair start and ASCII character, in the text.
    cells: Vec<Cell>,
}

/// Where a dump shows one byte: its hex pair's first digit and its ASCII-column character.
#[derive(Clone, Copy)]
struct Cell {
    hex: usize,
    ascii: usize,
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
    /// `text` with every cell of a secret masked: `**` for a hex pair, `*` in the ASCII column.
    pub fn mask(&self, text: &str) -> String {
        let mut out = text.as_bytes().to_vec();
        for cell in self.secrets.iter().flat_map(|s| &s.cells) {
            out[cell.hex..cell.hex + 2].copy_from_slice(b"**");
            out[cell.ascii] = b'*';
        }
        // Only hex digits and ASCII-column characters were replaced, each by an ASCII byte.
        String::from_utf8(out).expect("cells are ASCII")
    }

    /// `text` with its dumps' lines blanked, for the rules that read the text as written: the
    /// dumps were read whole, and an ASCII column (a newline shown as `.`, a line cut at 16
    /// bytes) read as prose only misleads them (`KEY=.PORT=80|` is no secret).
    pub fn blank(&self, text: &str) -> String {
        let mut out = text.as_bytes().to_vec();
        for line in &self.lines {
            out[line.clone()].fill(b' ');
        }
        // Whole lines of ASCII (or `*`) became blanks.
        String::from_utf8(out).expect("dump lines are ASCII")
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

/// Whether `bytes` start with eight hex digits then `  ` or `: `, or seven octal digits then an
/// `od -c` field: the start of a dump's line.
pub(super) fn starts_line(bytes: &[u8]) -> bool {
    let hex = bytes.get(..10).is_some_and(|head| {
        head[..8].iter().all(u8::is_ascii_hexdigit) && matches!(&head[8..], b"  " | b": ")
    });
    hex || bytes.get(..OD_OFFSET + 4).is_some_and(|head| {
        head[..OD_OFFSET].iter().all(is_octal) && od_field(&head[OD_OFFSET..]).is_some()
    })
}

/// The digits of an `od -c` line's offset (octal).
const OD_OFFSET: usize = 7;
/// Most bytes a dump line shows.
const LINE_BYTES: usize = 16;

fn is_octal(b: &u8) -> bool {
    matches!(b, b'0'..=b'7')
}

/// The bytes of one dump, and where each is shown.
#[derive(Default)]
struct Dump {
    bytes: Vec<u8>,
    cells: Vec<Cell>,
    /// The lines it takes in the text, newlines left out.
    lines: Vec<Range<usize>>,
}

/// One line of a dump.
enum Line {
    /// Its offset and each byte with its cell.
    Data(u64, Vec<(u8, Cell)>),
    /// `*`: lines equal to the one before are left out.
    Repeat,
}

/// The dumps of `bytes`: runs of consecutive dump lines whose offsets follow on.
fn dumps(bytes: &[u8]) -> Vec<Dump> {
    let mut dumps = Vec::new();
    let mut current: Option<Dump> = None;
    let mut next = 0;
    let mut last: Vec<(u8, Cell)> = Vec::new();
    let mut repeated = false;
    let mut start = 0;
    while start < bytes.len() {
        let end = memchr::memchr(b'\n', &bytes[start..]).map_or(bytes.len(), |i| start + i);
        let mut line = &bytes[start..end];
        if let Some(body) = line.strip_suffix(b"\r") {
            line = body;
        }
        match parse(line, start) {
            Some(Line::Data(offset, cells)) => {
                // A line follows on at the offset after the last, or past lines a `*` left out.
                let follows = current.is_some()
                    && match offset.checked_sub(next) {
                        Some(0) => true,
                        Some(gap) => repeated && gap <= MAX_REPEAT,
                        None => false,
                    };
                if !follows {
                    dumps.extend(current.take());
                }
                let dump = current.get_or_insert_with(Dump::default);
                if follows {
                    // The lines left out repeat the last one shown.
                    let gap = usize::try_from(offset - next).unwrap_or(0);
                    let left_out: Vec<_> = last.iter().copied().cycle().take(gap).collect();
                    push(dump, &left_out);
                }
                push(dump, &cells);
                dump.lines.push(start..start + line.len());
                next = offset + cells.len() as u64;
                last = cells;
                repeated = false;
            }
            Some(Line::Repeat) => {
                if let Some(dump) = current.as_mut() {
                    dump.lines.push(start..start + 1);
                    repeated = true;
                }
            }
            _ => dumps.extend(current.take()),
        }
        start = end + 1;
    }
    dumps.extend(current);
    dumps
}

fn push(dump: &mut Dump, cells: &[(u8, Cell)]) {
    for &(byte, cell) in cells {
        dump.bytes.push(byte);
        dump.cells.push(cell);
    }
}

/// `line` (starting at `at` in the text) read as a line of a dump; `None` when it is not one.
fn parse(line: &[u8], at: usize) -> Option<Line> {
    if line == b"*" {
        return Some(Line::Repeat);
    }
    if line.get(OD_OFFSET) == Some(&b' ') {
        return parse_od(line, at);
    }
    let offset = line.get(..8)?;
    if !offset.iter().all(u8::is_ascii_hexdigit) {
        return None;
    }
    let offset = u64::from_str_radix(std::str::from_utf8(offset).ok()?, 16).ok()?;
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
        let cell = Cell {
            hex: at + p,
            ascii: at + ascii + i,
        };
        cells.push((byte.unwrap_or(b'*'), cell));
    }
    Some(Line::Data(offset, cells))
}

/// `line` (at `at`) read as a line of `od -c`: seven octal digits of offset, then a field of
/// four for each byte ([`od_field`]). A masked field's cells are its last three characters, so
/// it reads ` ***`.
fn parse_od(line: &[u8], at: usize) -> Option<Line> {
    let digits = line.get(..OD_OFFSET)?;
    let fields = &line[OD_OFFSET..];
    if !digits.iter().all(is_octal)
        || fields.is_empty()
        || fields.len() % 4 != 0
        || fields.len() > 4 * LINE_BYTES
    {
        return None;
    }
    let offset = u64::from_str_radix(std::str::from_utf8(digits).ok()?, 8).ok()?;
    let mut cells = Vec::with_capacity(fields.len() / 4);
    for (i, field) in fields.chunks_exact(4).enumerate() {
        let byte = od_field(field)?;
        let p = at + OD_OFFSET + 4 * i;
        let cell = Cell {
            hex: p + 2,
            ascii: p + 1,
        };
        cells.push((byte.unwrap_or(b'*'), cell));
    }
    Some(Line::Data(offset, cells))
}

/// The byte an `od -c` field shows: `   c` a printable character (a blank as four blanks),
/// `  \n` an escape, ` 303` a byte in octal; `Some(None)` for a masked ` ***`.
fn od_field(field: &[u8]) -> Option<Option<u8>> {
    match *field {
        [b' ', b'*', b'*', b'*'] => Some(None),
        [b' ', b' ', b' ', c @ 0x20..=0x7e] => Some(Some(c)),
        [b' ', b' ', b'\\', e] => {
            let byte = match e {
                b'0' => 0,
                b'a' => 7,
                b'b' => 8,
                b't' => b'\t',
                b'n' => b'\n',
                b'v' => 11,
                b'f' => 12,
                b'r' => b'\r',
                _ => return None,
            };
            Some(Some(byte))
        }
        [b' ', a, b, c] if [a, b, c].iter().all(is_octal) => {
            let value = u32::from(a - b'0') * 64 + u32::from(b - b'0') * 8 + u32::from(c - b'0');
            Some(Some(u8::try_from(value).ok()?))
        }
        _ => None,
    }
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
        let lines = starred(bytes, |offset, chunk| {
            let mut out = format!("{offset:07o}");
            for &b in chunk {
                out += &match b {
                    0 => "  \\0".to_string(),
                    b'\t' => "  \\t".to_string(),
                    b'\n' => "  \\n".to_string(),
                    b'\r' => "  \\r".to_string(),
                    0x20..=0x7e => format!("   {}", char::from(b)),
                    _ => format!(" {b:03o}"),
                };
            }
            out + "\n"
        });
        lines + &format!("{:07o}\n", bytes.len())
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

    /// The bytes a dump's hex column shows (a masked pair as `*`) and its ASCII columns joined.
    fn columns(dump: &str) -> (String, String) {
        let found = dumps(dump.as_bytes());
        let hex: Vec<u8> = found.iter().flat_map(|d| d.bytes.clone()).collect();
        let ascii: String = found
            .iter()
            .flat_map(|d| &d.cells)
            .map(|c| char::from(dump.as_bytes()[c.ascii]))
            .collect();
        (String::from_utf8_lossy(&hex).into_owned(), ascii)
    }

    #[test]
    fn a_secret_split_over_dump_lines_is_masked_in_both_columns() {
        for (tool, dump) in [
            ("hexdump", hexdump(ENV.as_bytes())),
            ("xxd", xxd(ENV.as_bytes())),
            ("od -c", od_c(ENV.as_bytes())),
        ] {
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
            "PORT=8000\n"
        );
        let mut texts = vec![
            hexdump(env.as_bytes()),
            xxd(env.as_bytes()),
            od_c(env.as_bytes()),
        ];
        texts.extend([
            "00000000  is where the header starts | then the index\n0000001c  the data |".into(),
            "deadbeef: fix the loader\n0a1b2c3d  refactor: split the parser |".into(),
            // A dump line whose ASCII column disagrees with its bytes is not a dump's.
            "00000000  70 61 73 73  |pass|\n00000000: 7061 7373  word\n".into(),
        ]);
        for text in texts {
            let out = redact(&text);
            assert!(matches!(out, Cow::Borrowed(_)), "{text}\n{out}");
        }
    }

    #[test]
    fn dumps_read_back_the_bytes_dumped_across_repeated_lines() {
        let mut bytes = b"head\x00\xff\n".to_vec();
        bytes.extend([0; 64]);
        bytes.extend(b"TOKEN=value|with a bar\r\n\xc3\xa9 tail");
        let hd = hexdump(&bytes);
        assert!(hd.contains("\n*\n"), "{hd}");
        for dump in [hd, xxd(&bytes), od_c(&bytes)] {
            let found = dumps(dump.as_bytes());
            assert_eq!(found.len(), 1, "{dump}");
            assert_eq!(found[0].bytes, bytes, "{dump}");
            // The same dump pasted twice is two dumps: its offsets start again.
            let twice = format!("{dump}and again\n{dump}");
            assert_eq!(dumps(twice.as_bytes()).len(), 2);
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
        assert!(!may_hold(b"0000000 D B\n2024061 was the build"));
    }
}
