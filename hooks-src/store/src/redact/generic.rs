//! The generic rules: secrets no named rule knows, found by what surrounds them or by their shape.
//!
//! - `prose-secret`: a value after a word that names a secret and a link, in the languages of
//!   the sessions reflect reads: "my token is X", "the api key is X", "API키는 X", "密码是X",
//!   "пароль: X", "Passwort ist X", "パスワードは X". The value must look generated (letters
//!   and digits mixed, or a symbol), so "the password is incorrect" stays.
//! - `key-shaped-token`: a lowercase prefix and `_` or `-` before a long run of random base62
//!   (`abc_Xy7…`): the shape most services' keys share. Random means mixed case and digits,
//!   classes switching as often as chance makes them, and high entropy, so camelCase names,
//!   hex hashes, UUIDs and base64 blobs stay; ids with a known prefix (`toolu_`, `msg_`, `req_`)
//!   stay too.
//! - `discord-bot-token`: `<base64 of a numeric id>.<6>.<27+>`, Discord's bot token.
//!
//! Speed: one literal search for the words (the `needles` module), one pass over the bytes for
//! the key shape, one `memchr` for the dots of a Discord token. No regex.

use std::ops::Range;
use std::sync::LazyLock;

use super::needles::Needles;
use super::rules::entropy;
use super::{is_code, is_path, is_placeholder, PLACEHOLDER_PREFIX};

/// Every secret of `text` the generic rules find, with its kind.
pub(super) fn find(text: &[u8]) -> Vec<(Range<usize>, &'static str)> {
    let mut found: Vec<(Range<usize>, &'static str)> = prose_secrets(text)
        .into_iter()
        .map(|r| (r, "prose-secret"))
        .collect();
    found.extend(
        key_shaped(text)
            .into_iter()
            .map(|r| (r, "key-shaped-token")),
    );
    found.extend(
        discord_bot_tokens(text)
            .into_iter()
            .map(|r| (r, "discord-bot-token")),
    );
    found
}

/// How strong a word's claim is that the value after it is a secret.
#[derive(Clone, Copy, PartialEq)]
enum Word {
    /// A password: a short value counts (6 bytes).
    Password,
    /// A token or key: the value must be long (16 bytes).
    Key,
}

/// Words naming a secret (lowercase; matched in any ASCII case).
const WORDS: &[(&str, Word)] = &[
    ("password", Word::Password),
    ("passwort", Word::Password),
    ("passwd", Word::Password),
    ("passphrase", Word::Password),
    ("kennwort", Word::Password),
    ("contraseña", Word::Password),
    ("contrasena", Word::Password),
    ("senha", Word::Password),
    ("mot de passe", Word::Password),
    ("пароль", Word::Password),
    ("密码", Word::Password),
    ("口令", Word::Password),
    ("비밀번호", Word::Password),
    ("암호", Word::Password),
    ("パスワード", Word::Password),
    ("token", Word::Key),
    ("secret", Word::Key),
    ("api key", Word::Key),
    ("api-key", Word::Key),
    ("apikey", Word::Key),
    ("access key", Word::Key),
    ("secret key", Word::Key),
    ("private key", Word::Key),
    ("clé", Word::Key),
    ("clave", Word::Key),
    ("chave", Word::Key),
    ("schlüssel", Word::Key),
    ("ключ", Word::Key),
    ("токен", Word::Key),
    ("密钥", Word::Key),
    ("秘钥", Word::Key),
    ("令牌", Word::Key),
    ("키", Word::Key),
    ("토큰", Word::Key),
    ("トークン", Word::Key),
    ("シークレット", Word::Key),
    ("キー", Word::Key),
];

/// What links a word to its value, after optional blanks (the longer first).
const LINKS: &[&str] = &[
    "is:", "is", "was", "are", "ist", "est", "es", "é", "=>", "->", ":=", ":", "=", "：", "＝",
    "—", "–", "は", "는", "은", "是", "为", "為", "это",
];

/// A non-ASCII word or link percent-encoded (`%ED%82%A4`) and `\u`-escaped (`\ud0a4`): the
/// view decodes only ASCII escapes, so a text holding a `%` or a `\` is searched for these
/// spellings too. An ASCII word has none.
fn encodings(word: &str) -> Vec<String> {
    if word.is_ascii() {
        return Vec::new();
    }
    let spell = |escape: &dyn Fn(char) -> String| -> String {
        word.chars()
            .map(|c| {
                if c.is_ascii() {
                    c.to_string()
                } else {
                    escape(c)
                }
            })
            .collect()
    };
    let percent = spell(&|c| c.to_string().bytes().map(|b| format!("%{b:02X}")).collect());
    let unicode = spell(&|c| {
        c.encode_utf16(&mut [0; 2])
            .iter()
            .map(|u| format!("\\u{u:04x}"))
            .collect()
    });
    vec![percent, unicode]
}

/// The words as written: searched in every text.
static WORD_SEARCH: LazyLock<Needles<'static>> =
    LazyLock::new(|| Needles::new(WORDS.iter().map(|(w, _)| *w)));

/// The encoded spellings of the non-ASCII words and links, with the strength of each word's.
struct Encoded {
    words: Vec<(String, Word)>,
    links: Vec<String>,
}

static ENCODED: LazyLock<Encoded> = LazyLock::new(|| Encoded {
    words: WORDS
        .iter()
        .flat_map(|&(w, strength)| encodings(w).into_iter().map(move |e| (e, strength)))
        .collect(),
    links: LINKS.iter().flat_map(|l| encodings(l)).collect(),
});

static ENCODED_WORD_SEARCH: LazyLock<Needles<'static>> =
    LazyLock::new(|| Needles::new(ENCODED.words.iter().map(|(w, _)| w.as_str())));

/// `prose-secret`: each value linked to a secret-naming word.
fn prose_secrets(text: &[u8]) -> Vec<Range<usize>> {
    let mut found = Vec::new();
    let encoded = memchr::memchr2(b'%', b'\\', text).is_some();
    // Every occurrence, overlapping ones too: in "secret key is X" both `secret` and
    // `secret key` are tried, and only the second has a link after it.
    let written = WORD_SEARCH
        .find_all(text)
        .into_iter()
        .map(|(_, end, i)| (end, WORDS[i].0.is_ascii(), WORDS[i].1));
    let spelled: Vec<(usize, bool, Word)> = if encoded {
        ENCODED_WORD_SEARCH
            .find_all(text)
            .into_iter()
            .map(|(_, end, i)| (end, false, ENCODED.words[i].1))
            .collect()
    } else {
        Vec::new()
    };
    for (end, ascii, strength) in written.chain(spelled) {
        // An ASCII word stands alone (`tokens`, `tokenizer`, `mytoken` are other words), but a
        // name may end with it (`api_token is`); a CJK word has no blanks around it.
        if ascii && text.get(end).is_some_and(|b| b.is_ascii_alphanumeric()) {
            continue;
        }
        if let Some(value) = linked_value(text, end, ascii, encoded) {
            if looks_secret(&text[value.clone()], strength) {
                found.push(value);
            }
        }
    }
    super::ordered(found)
}

/// The value after a link at `at` (blanks around the link, an optional quote before the value).
/// An ASCII word linked by `:` or `=` is an assignment, which `secret-assignment` and
/// `env-secret` judge with more context: only a word's link (`is`, `ist`, `est`, `—`) counts here.
fn linked_value(text: &[u8], at: usize, ascii_word: bool, encoded: bool) -> Option<Range<usize>> {
    let blanks = |from: usize| super::run(text, from, |b| b == b' ' || b == b'\t');
    let mut i = at + blanks(at);
    // A closing quote of a quoted key (`"token" is`).
    i += usize::from(matches!(text.get(i), Some(b'"' | b'\'' | b'`')));
    i += blanks(i);
    let rest = &text[i..];
    let written = LINKS
        .iter()
        .copied()
        .find(|l| rest.starts_with(l.as_bytes()));
    let link = match written {
        Some(link) => link,
        None if encoded => ENCODED
            .links
            .iter()
            .find(|l| rest.starts_with(l.as_bytes()))?
            .as_str(),
        None => return None,
    };
    let ascii_word_link = link.bytes().all(|b| b.is_ascii_alphabetic());
    if ascii_word && link.is_ascii() && !ascii_word_link {
        return None;
    }
    i += link.len();
    if ascii_word_link && text.get(i).is_some_and(|b| b.is_ascii_alphanumeric()) {
        return None;
    }
    // `is:` / `: ` / `は ` …
    i += blanks(i);
    if matches!(text.get(i), Some(b':')) && !link.ends_with(':') {
        i += 1 + blanks(i + 1);
    }
    for quote in ["\"", "'", "`", "«", "“", "「", "‘"] {
        if text[i..].starts_with(quote.as_bytes()) {
            i += quote.len();
            break;
        }
    }
    let len = super::run(text, i, |b| {
        b.is_ascii_graphic() && !matches!(b, b'"' | b'\'' | b'`' | b'<' | b'>')
    });
    let mut end = i + len;
    while end > i
        && matches!(
            text[end - 1],
            b'.' | b',' | b';' | b':' | b'!' | b'?' | b')' | b']' | b'}'
        )
    {
        end -= 1;
    }
    (end > i).then_some(i..end)
}

/// Whether a value after a secret-naming word looks like the secret itself, not prose or code.
fn looks_secret(value: &[u8], strength: Word) -> bool {
    let Ok(text) = std::str::from_utf8(value) else {
        return false;
    };
    if is_placeholder(text)
        || is_path(text)
        || is_code(text)
        || text.contains(['(', ')', '{', '}', '[', ']', '='])
        || text.contains("://")
        || text.contains(PLACEHOLDER_PREFIX)
        || value.len() > 200
    {
        return false;
    }
    let letters = value.iter().filter(|b| b.is_ascii_alphabetic()).count();
    let digits = value.iter().filter(|b| b.is_ascii_digit()).count();
    match strength {
        // Letters with a digit or a symbol (`hunter2`, `P@ss`), or six digits and more.
        Word::Password => {
            let symbol = value
                .iter()
                .any(|b| !b.is_ascii_alphanumeric() && !b"-_.".contains(b));
            value.len() >= 6 && ((letters > 0 && (digits > 0 || symbol)) || digits == value.len())
        }
        Word::Key => value.len() >= 16 && letters > 0 && digits > 0 && entropy(value) >= 3.0,
    }
}

/// Prefixes of ids, not keys: the ids of Claude's tools, messages and requests, and of common
/// APIs' objects.
const ID_PREFIXES: &[&str] = &[
    "toolu", "srvtoolu", "msg", "req", "call", "chatcmpl", "run", "thread", "asst", "file", "evt",
    "cus", "ch", "pi", "sub", "acct", "sess", "session", "user", "org", "resp", "batch", "ft",
    "txn", "in", "price", "prod", "seti", "src", "pm", "job", "task", "trace", "span", "img",
    "doc", "id", "node", "item", "step", "conv", "chat", "cmpl", "vs", "fc", "rs", "agent", "tool",
    "block", "att", "sha", "sha1", "sha256", "sha384", "sha512", "md5",
];

/// `key-shaped-token`: in each run of `[A-Za-z0-9_-]` that stands alone, a lowercase prefix of
/// one to three `_`/`-`-ended segments, then a random base62 body of 20 to 200 bytes.
fn key_shaped(text: &[u8]) -> Vec<Range<usize>> {
    let token_byte = |b: u8| b.is_ascii_alphanumeric() || b == b'_' || b == b'-';
    let mut found = Vec::new();
    let mut i = 0;
    while i < text.len() {
        if !token_byte(text[i]) {
            i += 1;
            continue;
        }
        let start = i;
        let end = start + super::run(text, start, token_byte);
        i = end;
        if end - start < 24 {
            continue;
        }
        // Part of a path, a base64 blob, a file name or a dotted name: no key of its own.
        let before = start.checked_sub(1).map(|p| text[p]);
        let after = text.get(end).copied();
        let after2 = text.get(end + 1).copied();
        if matches!(before, Some(b'/' | b'+' | b'.' | b'\\' | b'@'))
            || matches!(after, Some(b'/' | b'+' | b'\\' | b'@'))
            || (after == Some(b'.') && after2.is_some_and(|b| b.is_ascii_alphanumeric()))
            || (after == Some(b'=')
                && after2.is_some_and(|b| b == b'=' || b.is_ascii_alphanumeric()))
        {
            continue;
        }
        if let Some(body_at) = key_body_start(&text[start..end]) {
            if random_base62(&text[start + body_at..end]) {
                found.push(start..end);
            }
        }
    }
    found
}

/// Where the body of a key-shaped token starts: after one to three lowercase segments, each
/// ended by `_` or `-`, the first starting with a letter and not an id's prefix.
fn key_body_start(token: &[u8]) -> Option<usize> {
    let segment = |from: usize| {
        let len = super::run(token, from, |b| {
            b.is_ascii_lowercase() || b.is_ascii_digit()
        });
        ((1..=12).contains(&len) && matches!(token.get(from + len), Some(b'_' | b'-')))
            .then_some(from + len + 1)
    };
    if !token[0].is_ascii_lowercase() {
        return None;
    }
    let first_end = segment(0)?;
    let first = std::str::from_utf8(&token[..first_end - 1]).ok()?;
    if ID_PREFIXES.contains(&first) {
        return None;
    }
    let mut at = first_end;
    for _ in 0..2 {
        // A further short segment (`proj-`, `v1_`, `live_`) when the body goes on after it.
        match segment(at) {
            Some(next) if next - at <= 9 && token.len() - next >= 20 => at = next,
            _ => break,
        }
    }
    Some(at)
}

/// 20 to 200 bytes of base62 that look drawn at random: all three classes, classes switching at
/// least 45% of the time (chance: 62%; a camelCase name: about 30%), entropy at least 4 bits.
fn random_base62(body: &[u8]) -> bool {
    if !(20..=200).contains(&body.len()) || !body.iter().all(u8::is_ascii_alphanumeric) {
        return false;
    }
    let class = |b: u8| match b {
        b'a'..=b'z' => 0,
        b'A'..=b'Z' => 1,
        _ => 2,
    };
    let mut seen = [0usize; 3];
    for &b in body {
        seen[class(b)] += 1;
    }
    if seen.contains(&0) {
        return false;
    }
    let switches = body
        .windows(2)
        .filter(|w| class(w[0]) != class(w[1]))
        .count();
    switches * 100 >= (body.len() - 1) * 45 && entropy(body) >= 4.0
}

/// `discord-bot-token`: `<24-28 base64url: a numeric id>.<6 base64url>.<27-40 base64url>`.
fn discord_bot_tokens(text: &[u8]) -> Vec<Range<usize>> {
    let b64 = |b: u8| b.is_ascii_alphanumeric() || b == b'_' || b == b'-';
    let mut found = Vec::new();
    for dot in memchr::memchr_iter(b'.', text) {
        if text.get(dot + 7) != Some(&b'.') || !text[dot + 1..dot + 7].iter().all(|&b| b64(b)) {
            continue;
        }
        // A numeric id's base64 holds letters and digits only: an `_` before it separates.
        let id_len = super::run_back(text, dot, |b| b.is_ascii_alphanumeric());
        let mac_len = super::run(text, dot + 8, b64);
        let start = dot - id_len;
        if !(24..=28).contains(&id_len)
            || !(27..=40).contains(&mac_len)
            || !matches!(text[start], b'M' | b'N' | b'O')
            || !super::separated(text, start)
            || text.get(dot + 8 + mac_len).is_some_and(|&b| b == b'.')
            || !decodes_to_digits(&text[start..start + 20])
        {
            continue;
        }
        found.push(start..dot + 8 + mac_len);
    }
    super::ordered(found)
}

/// Whether 4-byte groups of base64 decode to ASCII digits (a Discord id is a decimal number).
fn decodes_to_digits(b64: &[u8]) -> bool {
    let value = |b: u8| match b {
        b'A'..=b'Z' => Some(b - b'A'),
        b'a'..=b'z' => Some(b - b'a' + 26),
        b'0'..=b'9' => Some(b - b'0' + 52),
        b'-' | b'+' => Some(62),
        b'_' | b'/' => Some(63),
        _ => None,
    };
    b64.chunks_exact(4).all(|c| {
        let Some(v) = c.iter().map(|&b| value(b)).collect::<Option<Vec<u8>>>() else {
            return false;
        };
        let n = (u32::from(v[0]) << 18)
            | (u32::from(v[1]) << 12)
            | (u32::from(v[2]) << 6)
            | u32::from(v[3]);
        [(n >> 16) as u8, (n >> 8) as u8, n as u8]
            .iter()
            .all(u8::is_ascii_digit)
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn random_bodies_pass_and_names_hashes_and_blobs_do_not() {
        assert!(random_base62(b"Xy7Qm2Lk9Pz4Wn8Rt3Vb6Jh1"));
        for body in [
            &b"UserAccountSettingsFromCache2"[..],
            b"9fceb02d0ae598e95dc970b74767f19372d61af8",
            b"abcdefghijklmnopqrstuvwxyz",
            b"ABCDEFGHIJKLMNOPQRSTUVWX12",
        ] {
            assert!(!random_base62(body), "{}", String::from_utf8_lossy(body));
        }
    }
}
