//! `answered-secret`: a password, PIN or token typed as the answer to the assistant's question.
//!
//! "1. What is the DB user? 2. What is its password?" answered "1. admin 2. xK9#mq2!vL", or
//! "postgres / s3cr3tPass", or the value alone: the answer names no secret, so no other rule can
//! tell its password from any other word; only the question can. So this rule runs only when the
//! caller hands the redactor what the text answered ([`Asked`], through `redact_after`): capture
//! and the digest do for a prompt; nothing else answers a question (a failed tool call's error
//! never reaches this rule, nor pays for it).
//!
//! **What asks** ([`Asked::of`]): in the end of the assistant's text ([`ASKED_BYTES`]), a word
//! naming a secret (password, passphrase, PIN, token, API key, secret, credentials, in the
//! languages of the sessions reflect reads) in a sentence that asks for it: the sentence ends
//! with `?` or `:` (full-width too) or holds a request ("please provide", "paste", "请输入"), and
//! forbids nothing ("never share your token"). A sentence in a numbered item (`2.`, `2)`, at a
//! line's start or after another sentence) ties the secret to that number.
//!
//! **What is redacted** ([`find`]), in the answer, never a plain answer (a word of prose,
//! `yes`, `2`, a path, a URL, an e-mail address, a version, a date, a file name, a name in code,
//! a placeholder):
//! - the value of the answer's item whose number names a secret (`2. xK9#mq2!vL`,
//!   `2) swordfish`), when the item is one token: a password there may be any token, a PIN 4 to 12
//!   digits, a token 16 bytes or more of letters and digits;
//! - a line that is one token, or the password of a `user / password` pair, when it looks like the
//!   secret asked for: a password 6 to 64 bytes of letters with a digit or a symbol, a PIN 4 to 12
//!   digits, a token or key 16 bytes or more of letters and digits;
//! - anywhere in the answer, a token that looks generated: 8 bytes or more, letters, digits and a
//!   symbol or both cases, its classes switching often (`West11berg1!`, `xK9#mq2!vL`).
//!
//! Speed: the question is read once a prompt, a search for the secret words in its last
//! [`ASKED_BYTES`]; the answer is scanned only when the question asks.

use std::ops::Range;
use std::sync::LazyLock;

use reflect_base::text::tail;

use super::needles::Needles;
use super::rules::entropy;
use super::scan::run;
use super::value::{is_path, is_placeholder, is_version, PLACEHOLDER_PREFIX};

/// How much of the end of the assistant's text is read for a question: a few numbered questions.
pub const ASKED_BYTES: usize = 1500;

/// Most tokens in a line of an answer searched for a generated one: more is a paste.
const ANSWER_TOKENS: usize = 16;

/// A password (or passphrase, passcode, credentials) was asked for.
const PASSWORD: u8 = 1;
/// A PIN.
const PIN: u8 = 2;
/// A token, an API key, a secret.
const KEY: u8 = 4;

/// What the text before an answer asks for: which secrets, and under which item numbers.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Asked {
    /// Every secret asked for ([`PASSWORD`] | [`PIN`] | [`KEY`]).
    any: u8,
    /// The numbered items that ask for a secret, with what they ask.
    items: Vec<(u32, u8)>,
}

/// Words naming a secret one may be asked for (lowercase; matched in any ASCII case), with what
/// they name. Words that name other things as often (`key`, `키`, `clé`) are left out.
const WORDS: &[(&str, u8)] = &[
    ("password", PASSWORD),
    ("passwort", PASSWORD),
    ("passwd", PASSWORD),
    ("passphrase", PASSWORD),
    ("passcode", PASSWORD),
    ("kennwort", PASSWORD),
    ("contraseña", PASSWORD),
    ("contrasena", PASSWORD),
    ("senha", PASSWORD),
    ("mot de passe", PASSWORD),
    ("пароль", PASSWORD),
    ("密码", PASSWORD),
    ("密碼", PASSWORD),
    ("口令", PASSWORD),
    ("비밀번호", PASSWORD),
    ("암호", PASSWORD),
    ("パスワード", PASSWORD),
    ("パスコード", PASSWORD),
    ("credentials", PASSWORD),
    ("credenziali", PASSWORD),
    ("credenciales", PASSWORD),
    ("credenciais", PASSWORD),
    ("identifiants", PASSWORD),
    ("zugangsdaten", PASSWORD),
    ("anmeldedaten", PASSWORD),
    ("учетные данные", PASSWORD),
    ("учётные данные", PASSWORD),
    ("凭据", PASSWORD),
    ("凭证", PASSWORD),
    ("憑證", PASSWORD),
    ("認証情報", PASSWORD),
    ("자격 증명", PASSWORD),
    ("pin", PIN),
    ("pin code", PIN),
    ("pin-код", PIN),
    ("пин-код", PIN),
    ("暗証番号", PIN),
    ("pin码", PIN),
    ("token", KEY),
    ("secret", KEY),
    ("api key", KEY),
    ("api-key", KEY),
    ("apikey", KEY),
    ("api_key", KEY),
    ("access key", KEY),
    ("secret key", KEY),
    ("токен", KEY),
    ("ключ api", KEY),
    ("api ключ", KEY),
    ("密钥", KEY),
    ("秘钥", KEY),
    ("令牌", KEY),
    ("토큰", KEY),
    ("トークン", KEY),
    ("apiキー", KEY),
    ("api키", KEY),
    ("chave de api", KEY),
    ("chave da api", KEY),
    ("clave de api", KEY),
    ("clé api", KEY),
    ("clé d'api", KEY),
];

static WORD_SEARCH: LazyLock<Needles<'static>> =
    LazyLock::new(|| Needles::new(WORDS.iter().map(|(w, _)| *w)));

/// Requests that ask for a value without a question mark (lowercase; any ASCII case).
const REQUESTS: &[&str] = &[
    "please provide",
    "provide",
    "paste",
    "enter ",
    "send me",
    "share",
    "give me",
    "tell me",
    "type ",
    "bitte gib",
    "gib mir",
    "schick",
    "nenne",
    "envie",
    "informe",
    "me passe",
    "mande",
    "proporciona",
    "dame",
    "indique",
    "donne",
    "fournis",
    "请提供",
    "请告诉",
    "请输入",
    "告诉我",
    "提供",
    "输入",
    "入力して",
    "教えて",
    "알려",
    "입력해",
    "введи",
    "пришли",
    "укажи",
    "скинь",
    "дай ",
];

/// What forbids rather than asks ("never share your token", "不要发送密码").
const FORBIDS: &[&str] = &[
    "don't",
    "do not",
    "never",
    "avoid",
    "nunca",
    "niemals",
    "ne partage",
    "不要",
    "请勿",
    "しないで",
    "마세요",
    "никогда",
    "не отправ",
    "не дели",
    "не присыл",
];

static REQUEST_SEARCH: LazyLock<Needles<'static>> =
    LazyLock::new(|| Needles::new(REQUESTS.iter().copied()));
static FORBID_SEARCH: LazyLock<Needles<'static>> =
    LazyLock::new(|| Needles::new(FORBIDS.iter().copied()));

impl Asked {
    /// What `before` (what the assistant said before the answer; its last [`ASKED_BYTES`] are
    /// read) asks for; `None` when it asks for no secret.
    pub fn of(before: &str) -> Option<Asked> {
        let tail = tail(before, ASKED_BYTES);
        let bytes = tail.as_bytes();
        let words = secret_words(bytes);
        if words.is_empty() {
            return None;
        }
        let mut asked = Asked::default();
        for (item, sentence) in sentences(tail) {
            let named = words
                .iter()
                .filter(|(at, _)| sentence.contains(at))
                .fold(0, |m, (_, w)| m | w);
            if named == 0 || !asks(&bytes[sentence]) {
                continue;
            }
            asked.any |= named;
            if let Some(n) = item {
                match asked.items.iter_mut().find(|(i, _)| *i == n) {
                    Some((_, m)) => *m |= named,
                    None => asked.items.push((n, named)),
                }
            }
        }
        (asked.any != 0).then_some(asked)
    }

    fn item(&self, n: u32) -> u8 {
        self.items
            .iter()
            .find(|(i, _)| *i == n)
            .map_or(0, |(_, m)| *m)
    }
}

/// Where each secret word starts in `text`, with what it names. An ASCII word stands alone
/// (`tokens` and `tokenizer` are other words, `api_token` names one).
fn secret_words(text: &[u8]) -> Vec<(usize, u8)> {
    WORD_SEARCH
        .find_all(text)
        .into_iter()
        .filter(|&(start, end, i)| {
            let word = WORDS[i].0;
            let alnum = |at: Option<&u8>| at.is_some_and(u8::is_ascii_alphanumeric);
            !(word.is_ascii()
                && (alnum(text.get(end))
                    || (WORDS[i].1 == PIN
                        && alnum(start.checked_sub(1).and_then(|p| text.get(p))))))
        })
        .map(|(start, _, i)| (start, WORDS[i].1))
        .collect()
}

/// Whether a sentence naming a secret asks for it.
fn asks(sentence: &[u8]) -> bool {
    if !FORBID_SEARCH.find_all(sentence).is_empty() {
        return false;
    }
    let end = sentence
        .iter()
        .rposition(|b| !b" \t\r\n*_`".contains(b))
        .map_or(&b""[..], |e| &sentence[..=e]);
    ["?", ":", "？", "："]
        .iter()
        .any(|m| end.ends_with(m.as_bytes()))
        || !REQUEST_SEARCH.find_all(sentence).is_empty()
}

/// The sentences of `text`, each with the number of the item it is in: a line starting with
/// `N.`, `N)` or `N:` begins item N, and so does such a marker after a sentence's end on a line;
/// the lines after it stay in the item up to a blank line.
fn sentences(text: &str) -> Vec<(Option<u32>, Range<usize>)> {
    let bytes = text.as_bytes();
    let mut out = Vec::new();
    let mut item = None;
    let mut line_start = 0;
    for line in text.split_inclusive('\n') {
        let range = line_start..line_start + line.len();
        line_start = range.end;
        if line.trim().is_empty() {
            item = None;
            continue;
        }
        let mut from = range.start;
        for at in range.clone() {
            let b = bytes[at];
            let ends = matches!(b, b'?' | b'!' | b'.' | b';')
                && bytes.get(at + 1).is_none_or(|n| n.is_ascii_whitespace());
            let cjk_end = ["？", "！", "。", "；"]
                .iter()
                .any(|m| bytes[at..].starts_with(m.as_bytes()));
            if at == from {
                if let Some(n) = marker(bytes, at, at == range.start).map(|(n, _)| n) {
                    item = Some(n);
                }
            }
            if ends || cjk_end {
                let end = at + if cjk_end { 3 } else { 1 };
                out.push((item, from..end));
                from = end + run(bytes, end, |b| b == b' ' || b == b'\t');
            }
        }
        if from < range.end {
            out.push((item, from..range.end));
        }
    }
    out
}

/// An item's number at `at` (after a bullet, Markdown bold or blanks at a line's start): 1 to 99
/// then `.`, `)` or `:` (full-width too) and a blank, or `(N)`; with where its value starts.
fn marker(text: &[u8], at: usize, line_start: bool) -> Option<(u32, usize)> {
    let mut i = at;
    i += run(text, i, |b| b == b' ' || b == b'\t');
    if line_start {
        if matches!(text.get(i), Some(b'-' | b'*' | b'>')) && text.get(i + 1) == Some(&b' ') {
            i += 2;
        }
        i += run(text, i, |b| b == b'*' || b == b'#' || b == b' ');
    }
    let paren = text.get(i) == Some(&b'(');
    i += usize::from(paren);
    let digits = run(text, i, |b| b.is_ascii_digit());
    if !(1..=2).contains(&digits) {
        return None;
    }
    let n: u32 = std::str::from_utf8(&text[i..i + digits])
        .ok()?
        .parse()
        .ok()?;
    i += digits;
    let rest = &text[i..];
    let sign = if paren {
        usize::from(rest.first() == Some(&b')'))
    } else if rest.first().is_some_and(|b| b".):".contains(b)) {
        1
    } else if ["．", "：", "、"]
        .iter()
        .any(|m| rest.starts_with(m.as_bytes()))
    {
        3
    } else {
        0
    };
    if sign == 0 {
        return None;
    }
    i += sign;
    i += run(text, i, |b| b == b'*');
    let blanks = run(text, i, |b| b == b' ' || b == b'\t');
    // A full-width sign needs no blank after it.
    (blanks > 0 || sign == 3 || i == text.len()).then_some((n, i + blanks))
}

/// Where the answered secrets in `text` (an answer to what `asked` asks) lie.
pub(super) fn find(text: &[u8], asked: &Asked) -> Vec<Range<usize>> {
    let mut found = Vec::new();
    let mut line_start = 0;
    for line in text.split_inclusive(|&b| b == b'\n') {
        let range = line_start..line_start + line.len();
        line_start = range.end;
        for (n, part) in items(text, range) {
            let tokens = tokens(text, part.clone());
            let named = n.map_or(0, |n| asked.item(n));
            let wanted = if named != 0 { named } else { asked.any };
            if let Some(password) = pair(text, &tokens) {
                if fits(&text[password.clone()], wanted & PASSWORD, false) {
                    found.push(password);
                    continue;
                }
            }
            // The whole of an item that asks, or a line of its own.
            if tokens.len() == 1 && (named != 0 || n.is_none()) {
                let t = tokens[0].clone();
                if fits(&text[t.clone()], wanted, named != 0) {
                    found.push(t);
                }
                continue;
            }
            // A token or key among a few words ("here it is: …") is long and random enough to
            // tell; a long line is a paste (a log, a command), full of names that look random.
            if tokens.len() > ANSWER_TOKENS {
                continue;
            }
            for (k, t) in tokens.iter().enumerate() {
                let value = &text[t.clone()];
                let named_id = k > 0 && {
                    let before = text[tokens[k - 1].clone()].to_ascii_lowercase();
                    before.ends_with(b"id") || before.ends_with(b"id:")
                };
                if !named_id && (generated(value) || fits(value, wanted & KEY, false)) {
                    found.push(t.clone());
                }
            }
        }
    }
    found.sort_by_key(|r| r.start);
    found.dedup();
    found
}

/// The parts of a line: the numbered items it holds (`1. admin 2. xK9#mq2!vL`), or the line
/// itself with no number.
fn items(text: &[u8], line: Range<usize>) -> Vec<(Option<u32>, Range<usize>)> {
    let mut marks: Vec<(u32, usize, usize)> = Vec::new();
    if let Some((n, value)) = marker(text, line.start, true) {
        marks.push((n, line.start, value));
    }
    for at in line.clone().skip(1) {
        if text[at - 1].is_ascii_whitespace() && text[at].is_ascii_digit() && !marks.is_empty() {
            if let Some((n, value)) = marker(text, at, false) {
                if marks.last().is_some_and(|(last, _, _)| n > *last) {
                    marks.push((n, at, value));
                }
            }
        }
    }
    if marks.is_empty() {
        return vec![(None, line)];
    }
    let mut out = Vec::new();
    for (k, &(n, _, value)) in marks.iter().enumerate() {
        let end = marks.get(k + 1).map_or(line.end, |m| m.1);
        out.push((Some(n), value..end.max(value)));
    }
    out
}

/// The tokens of `part`: runs between blanks, less the quotes, brackets, Markdown marks and
/// sentence punctuation around them; the placeholders of other rules' finds are no tokens.
fn tokens(text: &[u8], part: Range<usize>) -> Vec<Range<usize>> {
    let mut out = Vec::new();
    let mut i = part.start;
    while i < part.end {
        if text[i].is_ascii_whitespace() {
            i += 1;
            continue;
        }
        let start = i;
        while i < part.end && !text[i].is_ascii_whitespace() {
            i += 1;
        }
        let mut s = start;
        let mut e = i;
        while s < e && b"\"'`*([{<".contains(&text[s]) {
            s += 1;
        }
        while e > s && b"\"'`*)]}>.,;:".contains(&text[e - 1]) {
            e -= 1;
        }
        if s < e {
            out.push(s..e);
        }
    }
    out
}

/// The password of `user / password` (three tokens, the middle one `/`), or of a lone
/// `user:password` or `user/password` token whose user is a name.
fn pair(text: &[u8], tokens: &[Range<usize>]) -> Option<Range<usize>> {
    let name = |r: &Range<usize>| {
        let t = &text[r.clone()];
        (1..=64).contains(&t.len())
            && t.iter()
                .all(|b| b.is_ascii_alphanumeric() || b"_.-@+".contains(b))
    };
    match tokens {
        [user, slash, password] if &text[slash.clone()] == b"/" && name(user) => {
            Some(password.clone())
        }
        [one] => {
            let t = &text[one.clone()];
            let split = t.iter().position(|&b| b == b'/' || b == b':')?;
            let user = one.start..one.start + split;
            let password = one.start + split + 1..one.end;
            (name(&user) && !password.is_empty()).then_some(password)
        }
        _ => None,
    }
}

/// Whether `value` looks like a secret of the kinds `wanted` names. `item`: the value is all of
/// an item that names the secret, so a password may be any token but a plain answer.
fn fits(value: &[u8], wanted: u8, item: bool) -> bool {
    let Ok(text) = std::str::from_utf8(value) else {
        return false;
    };
    if wanted == 0 || plain(text) {
        return false;
    }
    let letters = value.iter().filter(|b| b.is_ascii_alphabetic()).count();
    let digits = value.iter().filter(|b| b.is_ascii_digit()).count();
    let symbols = value.len() - letters - digits;
    let pin = digits == value.len() && (4..=12).contains(&digits);
    let password = if item {
        (digits == value.len() && value.len() >= 4)
            || (letters > 0
                && (value.len() >= 4)
                && (digits + symbols > 0 || !is_answer_word(text)))
    } else {
        (6..=64).contains(&value.len())
            && ((letters > 0 && digits + symbols > 0) || (digits == value.len() && digits >= 6))
    };
    let key = value.len() >= 16 && letters > 0 && digits > 0 && entropy(value) >= 3.0;
    (wanted & PASSWORD != 0 && password)
        || (wanted & PIN != 0 && pin)
        || (wanted & KEY != 0 && (key || (item && pin)))
}

/// A token that looks drawn at random whatever was asked: 8 to 64 bytes, letters and digits
/// and a password's symbol (`!`, `#`, `$`…) or both cases, classes switching at least every
/// third byte.
fn generated(value: &[u8]) -> bool {
    let Ok(text) = std::str::from_utf8(value) else {
        return false;
    };
    if !(8..=64).contains(&value.len()) || plain(text) {
        return false;
    }
    // `-`, `.`, `_`, `:`, `/`, `|` join the parts of names, logs and paths.
    let class = |b: u8| match b {
        b'a'..=b'z' => 0,
        b'A'..=b'Z' => 1,
        b'0'..=b'9' => 2,
        b'-' | b'.' | b'_' | b':' | b'/' | b'|' => 4,
        _ => 3,
    };
    let has = |c| value.iter().any(|&b| class(b) == c);
    let switches = value
        .windows(2)
        .filter(|w| class(w[0]) != class(w[1]))
        .count();
    (has(0) || has(1))
        && has(2)
        && ((has(0) && has(1)) || has(3))
        && switches * 3 >= value.len() - 1
}

/// A value no one types as a secret: a placeholder or another rule's, a path, a URL, an e-mail
/// address, a number, a version, a date or a time, a file name, a name in code, a flag, a
/// non-ASCII word.
fn plain(text: &str) -> bool {
    let b = text.as_bytes();
    let dotted = text.rsplit_once('.');
    // `image:v1.2`, `file:328:14`: a name with a tag or a position.
    let tagged = text.rsplit_once(':').is_some_and(|(name, tag)| {
        !name.is_empty()
            && (is_version(tag) || (!tag.is_empty() && tag.bytes().all(|c| c.is_ascii_digit())))
    });
    is_placeholder(text)
        || text.contains(PLACEHOLDER_PREFIX)
        || !text.is_ascii()
        || b.iter().any(|c| !c.is_ascii_graphic())
        || is_path(text)
        || text.contains("://")
        || text.contains('\\')
        || text.matches('/').count() > 1
        || text.starts_with(['-', '+', '#', '@', '=', '&', '|'])
        || text.contains(['(', '=', '[', '{', '<'])
        || is_version(text)
        || tagged
        || dotted_name(text)
        || b.iter()
            .all(|c| c.is_ascii_digit() || b".:-/,_".contains(c))
            && !b.iter().all(u8::is_ascii_digit)
        || text.split_once('@').is_some_and(|(user, host)| {
            !user.is_empty()
                && host.contains('.')
                && host
                    .bytes()
                    .all(|c| c.is_ascii_alphanumeric() || c == b'.' || c == b'-')
        })
        || dotted.is_some_and(|(stem, ext)| {
            !stem.is_empty()
                && (1..=5).contains(&ext.len())
                && ext.bytes().all(|c| c.is_ascii_lowercase())
                && stem
                    .bytes()
                    .all(|c| c.is_ascii_alphanumeric() || b"_-.".contains(&c))
        })
        || (text.contains('_')
            && b.iter().all(|c| c.is_ascii_alphanumeric() || *c == b'_')
            && b.iter().any(u8::is_ascii_alphabetic))
}

/// A dotted name (`Vendor.App.64-bit`, `io.runtime.v2`): parts of two or more letters, digits
/// and `-`, none a long run of letters and digits mixed (a key's part).
fn dotted_name(text: &str) -> bool {
    text.contains('.')
        && text.split('.').all(|part| {
            let mixed = part.bytes().any(|b| b.is_ascii_digit())
                && part.bytes().any(|b| b.is_ascii_alphabetic());
            part.len() >= 2
                && part.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'-')
                && !(mixed && part.len() > 12)
        })
}

/// A word typed as an answer that is no password: yes, no, skip, none, the same, later…
fn is_answer_word(text: &str) -> bool {
    const WORDS: &[&str] = &[
        "any", "auto", "blank", "default", "empty", "generate", "later", "na", "no", "none",
        "nope", "ok", "okay", "random", "same", "skip", "sure", "tbd", "unknown", "unset",
        "whatever", "yes", "yep",
    ];
    let lower = text.to_ascii_lowercase();
    WORDS.contains(&lower.as_str()) || super::generic::is_word(&lower)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn questions_that_ask_for_a_secret_are_told_from_mentions() {
        let asked =
            Asked::of("Two questions:\n1. What is the DB user?\n2. What is its password?").unwrap();
        assert_eq!(asked.items, vec![(2, PASSWORD)]);
        let inline = Asked::of("1. What is the DB user? 2. What is its password?").unwrap();
        assert_eq!(inline.items, vec![(2, PASSWORD)]);
        assert!(Asked::of("Bitte gib mir deinen **ElevenLabs API Key**:").is_some());
        assert!(Asked::of("请输入数据库密码").is_some());
        for mention in [
            "I stored the token in the keychain. Done.",
            "Never share your password with anyone. Shall I go on?",
            "The password field is validated on submit.",
            "Which tokenizer should we use?",
        ] {
            assert_eq!(Asked::of(mention), None, "{mention}");
        }
    }

    /// `answer` redacted as an answer to `question`.
    fn answered(question: &str, answer: &str) -> String {
        let asked = Asked::of(question);
        assert!(asked.is_some(), "{question}");
        super::super::redact_after(answer, asked.as_ref()).into_owned()
    }

    const R: &str = "[REDACTED:answered-secret]";

    #[test]
    fn each_shape_of_an_answered_secret_is_redacted() {
        let db = "Before I write the config:\n1. What is the DB user?\n2. What is its password?";
        let cases = [
            (db, "1. admin 2. xK9#mq2!vL", format!("1. admin 2. {R}")),
            (db, "1. admin\n2. swordfish", format!("1. admin\n2. {R}")),
            (db, "1) deploy\n2) `Harbor77!x`", format!("1) deploy\n2) `{R}`")),
            (db, "postgres / s3cr3tPass", format!("postgres / {R}")),
            (db, "admin:Qz8vLm2pWx", format!("admin:{R}")),
            (db, "Tr0ub4dor&3", R.to_string()),
            (db, "ok here it is\nTr0ub4dor&3\nthanks", format!("ok here it is\n{R}\nthanks")),
            (db, "the user is admin and use Kp3#wQ9zLm for it", format!("the user is admin and use {R} for it")),
            ("What PIN should the lock screen use?", "4821", R.to_string()),
            (
                "Please paste your deploy token:",
                "here: f3a9c1e7b2d4a6c8e0f1a3b5c7d9e1f2",
                format!("here: {R}"),
            ),
            ("密码是什么？", "Hx7!kd92Lq", R.to_string()),
            (
                "2. **Initial password** — what do you want as a temporary login password? (you can change it later)\n3. **Clock** — 12-hour or 24-hour?",
                "2. Ranger42!\n3. 24 hour",
                format!("2. {R}\n3. 24 hour"),
            ),
        ];
        for (question, answer, want) in cases {
            assert_eq!(answered(question, answer), want, "{question} / {answer}");
            // Only the question tells: the answer alone is left as it is.
            assert_eq!(super::super::redact(answer), answer, "{answer}");
        }
    }

    #[test]
    fn plain_answers_stay() {
        let db = "1. What is the DB user?\n2. What is its password?\n3. Which port?";
        for answer in [
            "2",
            "yes",
            "use the admin account",
            "1. admin 2. skip for now 3. 5432",
            "1. admin\n2. same as the user\n3. default",
            "2. none",
            "/etc/app/db.env",
            "admin",
            "read it from config/db.yaml",
            "the password is in ~/.pgpass",
            "v2.3.1",
            "2024-05-01",
            "ops@example.com",
            "DB_PASSWORD",
            "fowl_prod_user",
            "PascalCase",
        ] {
            assert_eq!(answered(db, answer), answer, "{answer}");
        }
        assert_eq!(answered("What PIN should the lock use?", "2"), "2");
        // Without a question asking for a secret, the same value is no answered secret.
        let asked = Asked::of("The migration ran. Anything else?");
        assert_eq!(asked, None);
        assert_eq!(
            super::super::redact_after("Tr0ub4dor&3", asked.as_ref()),
            "Tr0ub4dor&3"
        );
    }

    #[test]
    fn markers_number_items() {
        let m = |t: &str| marker(t.as_bytes(), 0, true).map(|(n, _)| n);
        assert_eq!(m("2. x"), Some(2));
        assert_eq!(m("- **3)** x"), Some(3));
        assert_eq!(m("(4) x"), Some(4));
        assert_eq!(m("12: x"), Some(12));
        assert_eq!(m("3.14 GHz"), None);
        assert_eq!(m("2024 was"), None);
    }
}
