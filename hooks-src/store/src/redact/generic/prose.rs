//! The word rules, `prose-secret`, `prose-password` and `license-key`: a value after a word that
//! names a secret (the module above says what each takes).

use std::ops::Range;
use std::sync::LazyLock;

use crate::redact::needles::Needles;
use crate::redact::rules::entropy;
use crate::redact::scan::run;
use crate::redact::value::{is_code, is_path, is_placeholder, PLACEHOLDER_PREFIX};

/// What a word says the value after it is.
#[derive(Clone, Copy, PartialEq)]
enum Word {
    /// A password: a short value counts (6 bytes), and one a person made up (any token that is
    /// no word and no code, 4 bytes) too.
    Password,
    /// A token or key: the value must be long (16 bytes).
    Key,
    /// A PIN: 4 to 12 digits.
    Pin,
    /// A licence or product key: a grouped key, or 8 bytes and more of letters and digits.
    Licence,
    /// A word that names a licence only sometimes (`license: MIT`, `serial: 0x1F`): a grouped
    /// key only.
    MaybeLicence,
    /// Credentials: a `user/password` or `user:password` pair, whose password looks generated.
    Credentials,
}

/// Words naming a secret (lowercase; matched in any ASCII case).
const WORDS: &[(&str, Word)] = &[
    ("password", Word::Password),
    ("passwort", Word::Password),
    ("passwd", Word::Password),
    ("passphrase", Word::Password),
    ("passcode", Word::Password),
    ("kennwort", Word::Password),
    ("contraseña", Word::Password),
    ("contrasena", Word::Password),
    ("senha", Word::Password),
    ("mot de passe", Word::Password),
    ("пароль", Word::Password),
    ("密码", Word::Password),
    ("密碼", Word::Password),
    ("口令", Word::Password),
    ("비밀번호", Word::Password),
    ("암호", Word::Password),
    ("パスワード", Word::Password),
    ("パスコード", Word::Password),
    ("pin", Word::Pin),
    ("pin code", Word::Pin),
    ("pin-code", Word::Pin),
    ("code pin", Word::Pin),
    ("pin-код", Word::Pin),
    ("пин-код", Word::Pin),
    ("пин", Word::Pin),
    ("暗証番号", Word::Pin),
    ("pin码", Word::Pin),
    ("pin碼", Word::Pin),
    ("pin 번호", Word::Pin),
    ("license key", Word::Licence),
    ("licence key", Word::Licence),
    ("license-key", Word::Licence),
    ("licence-key", Word::Licence),
    ("product key", Word::Licence),
    ("serial key", Word::Licence),
    ("activation key", Word::Licence),
    ("activation code", Word::Licence),
    ("registration key", Word::Licence),
    ("registration code", Word::Licence),
    ("lizenzschlüssel", Word::Licence),
    ("produktschlüssel", Word::Licence),
    ("clé de licence", Word::Licence),
    ("clé de produit", Word::Licence),
    ("clave de licencia", Word::Licence),
    ("clave de producto", Word::Licence),
    ("chave de licença", Word::Licence),
    ("chave do produto", Word::Licence),
    ("лицензионный ключ", Word::Licence),
    ("ключ лицензии", Word::Licence),
    ("ключ активации", Word::Licence),
    ("ключ продукта", Word::Licence),
    ("许可证密钥", Word::Licence),
    ("许可密钥", Word::Licence),
    ("产品密钥", Word::Licence),
    ("激活码", Word::Licence),
    ("注册码", Word::Licence),
    ("序列号", Word::Licence),
    ("授權碼", Word::Licence),
    ("序號", Word::Licence),
    ("ライセンスキー", Word::Licence),
    ("プロダクトキー", Word::Licence),
    ("シリアル番号", Word::Licence),
    ("シリアルキー", Word::Licence),
    ("라이선스 키", Word::Licence),
    ("라이센스 키", Word::Licence),
    ("제품 키", Word::Licence),
    ("시리얼 번호", Word::Licence),
    ("license", Word::MaybeLicence),
    ("licence", Word::MaybeLicence),
    ("serial", Word::MaybeLicence),
    ("serial number", Word::MaybeLicence),
    ("seriennummer", Word::MaybeLicence),
    ("numéro de série", Word::MaybeLicence),
    ("número de serie", Word::MaybeLicence),
    ("número de série", Word::MaybeLicence),
    ("серийный номер", Word::MaybeLicence),
    ("credentials", Word::Credentials),
    ("credenziali", Word::Credentials),
    ("credenciales", Word::Credentials),
    ("credenciais", Word::Credentials),
    ("identifiants", Word::Credentials),
    ("zugangsdaten", Word::Credentials),
    ("anmeldedaten", Word::Credentials),
    ("учетные данные", Word::Credentials),
    ("учётные данные", Word::Credentials),
    ("凭据", Word::Credentials),
    ("凭证", Word::Credentials),
    ("憑證", Word::Credentials),
    ("認証情報", Word::Credentials),
    ("자격 증명", Word::Credentials),
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

/// Words that name a variable or a field in code as often as a secret in prose: after them an
/// ASCII `:` or `=` starts code or a label (`password: str`, `pin = None`), so a lone word there
/// is not taken for a password.
const CODE_NAMES: &[&str] = &["password", "passwd", "passphrase", "passcode", "pin"];

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

/// A secret-naming word found in the text.
struct Hit {
    start: usize,
    end: usize,
    /// Written in ASCII (an encoded spelling of a non-ASCII word is not).
    ascii: bool,
    strength: Word,
    /// One of [`CODE_NAMES`].
    code_name: bool,
    /// Words apart (`api key`, `secret key`): no name in code, so a `:` after it is a label's.
    spaced: bool,
}

/// `prose-secret`, `prose-password` and `license-key`: each value linked to a secret-naming
/// word.
pub(super) fn prose_secrets(text: &[u8]) -> Vec<(Range<usize>, &'static str)> {
    let mut found = Vec::new();
    let encoded = memchr::memchr2(b'%', b'\\', text).is_some();
    // Every occurrence, overlapping ones too: in "secret key is X" both `secret` and
    // `secret key` are tried, and only the second has a link after it.
    let written = WORD_SEARCH
        .find_all(text)
        .into_iter()
        .map(|(start, end, i)| {
            let (word, strength) = WORDS[i];
            Hit {
                start,
                end,
                ascii: word.is_ascii(),
                strength,
                code_name: CODE_NAMES.contains(&word),
                spaced: word.contains(' '),
            }
        });
    let spelled: Vec<Hit> = if encoded {
        ENCODED_WORD_SEARCH
            .find_all(text)
            .into_iter()
            .map(|(start, end, i)| Hit {
                start,
                end,
                ascii: false,
                strength: ENCODED.words[i].1,
                code_name: false,
                spaced: false,
            })
            .collect()
    } else {
        Vec::new()
    };
    for hit in written.chain(spelled) {
        // An ASCII word stands alone (`tokens`, `tokenizer`, `mytoken` are other words), but a
        // name may end with a secret's (`api_token is`); a CJK word has no blanks around it.
        // The words of a PIN or a licence start a word too (`spin`, `sublicense`).
        let alnum = |at: Option<&u8>| at.is_some_and(u8::is_ascii_alphanumeric);
        if hit.ascii && alnum(text.get(hit.end)) {
            continue;
        }
        if !matches!(hit.strength, Word::Password | Word::Key)
            && alnum(hit.start.checked_sub(1).and_then(|p| text.get(p)))
        {
            continue;
        }
        let linked = linked_value(text, hit.end, encoded);
        // CJK prose says more of the secret before its value (`Token格式…以 X 開頭`).
        if matches!(hit.strength, Word::Password | Word::Key)
            && linked
                .as_ref()
                .is_none_or(|(v, _)| !looks_secret(&text[v.clone()], hit.strength))
        {
            if let Some(value) = after_cjk(text, hit.end) {
                let bytes = &text[value.clone()];
                // A token's bytes only: no path (`\AppData\…`) nor code.
                let token = bytes[0].is_ascii_alphanumeric()
                    && bytes
                        .iter()
                        .all(|&b| b.is_ascii_alphanumeric() || b"-_.+/=".contains(&b));
                if token && looks_secret(bytes, Word::Key) && generated(bytes, true) {
                    found.push((value, "prose-secret"));
                    continue;
                }
            }
        }
        let Some((value, link)) = linked else {
            continue;
        };
        if hit.strength == Word::Credentials {
            found.extend(pair_password(text, value).map(|p| (p, "prose-password")));
            continue;
        }
        // An ASCII word linked by `:` or `=` is an assignment, which `secret-assignment` and
        // `env-secret` judge with more context; `prose-secret` takes only a word's link. Words
        // apart name no variable: `API Key: …`, `**Secret Key**: …` are a label's, as in prose.
        let sign = hit.ascii && link == Link::Sign && !hit.spaced;
        let bytes = &text[value.clone()];
        if matches!(hit.strength, Word::Password | Word::Key)
            && !sign
            && link != Link::None
            && looks_secret(bytes, hit.strength)
        {
            found.push((value, "prose-secret"));
            continue;
        }
        // No link, or `to` ("set the password to X", "password X"): a value that looks drawn at
        // random only, both cases and digits or a symbol (a word, a flag, a path and a template's
        // `sk-…-your-key-here` stay).
        if matches!(hit.strength, Word::Password | Word::Key) && hit.ascii && link == Link::None {
            let to = bytes.eq_ignore_ascii_case(b"to");
            let value = match to {
                true => value_at(text, value.end + run(text, value.end, |b| b == b' ')),
                false => Some(value.clone()),
            };
            if let Some(value) = value {
                let v = &text[value.clone()];
                let symbol = v.iter().any(|b| !b.is_ascii_alphanumeric());
                let lower = v.to_ascii_lowercase();
                let template = [&b"your"[..], b"example", b"placeholder"]
                    .iter()
                    .any(|w| memchr::memmem::find(&lower, w).is_some());
                if !template
                    && looks_secret(v, hit.strength)
                    && ends_token(text, value.end)
                    && (generated(v, true) || (symbol && generated(v, false)))
                {
                    found.push((value, "prose-secret"));
                    continue;
                }
            }
        }
        let kind = match hit.strength {
            Word::Password | Word::Pin => "prose-password",
            Word::Licence | Word::MaybeLicence => "license-key",
            Word::Key | Word::Credentials => continue,
        };
        let label = hit.code_name && matches!(link, Link::Sign | Link::Dash);
        if (link != Link::None || grouped_key(bytes))
            && ends_token(text, value.end)
            && looks_made_up(bytes, hit.strength, label)
        {
            found.push((value, kind));
        }
    }
    found
}

/// How a word is linked to its value.
#[derive(Clone, Copy, PartialEq)]
enum Link {
    /// An ASCII word (`is`, `ist`, `est`).
    Word,
    /// An ASCII sign (`:`, `=`, `=>`).
    Sign,
    /// A dash: a value, or a description in a list (`password — the account's password`).
    Dash,
    /// A non-ASCII link (`は`, `是`, `：`, `—`).
    Other,
    /// Only blanks: counts for a grouped licence key alone.
    None,
}

/// The value after a link at `at` (blanks around the link, an optional quote before the value,
/// Markdown bold around the link), and the kind of link. Without a link, the word at `at`
/// followed by blanks gives the next token (`Link::None`).
fn linked_value(text: &[u8], at: usize, encoded: bool) -> Option<(Range<usize>, Link)> {
    let blanks = |from: usize| run(text, from, |b| b == b' ' || b == b'\t');
    let bold = |from: usize| usize::from(text[from..].starts_with(b"**")) * 2;
    let mut i = at + bold(at);
    i += blanks(i);
    // A closing quote of a quoted key (`"token" is`).
    i += usize::from(matches!(text.get(i), Some(b'"' | b'\'' | b'`')));
    i += blanks(i);
    let rest = &text[i..];
    // A word link ends its word (`ist` is not `is` and `t`).
    let written = LINKS.iter().copied().find(|l| {
        rest.starts_with(l.as_bytes())
            && !(l.as_bytes()[0].is_ascii_alphabetic()
                && rest.get(l.len()).is_some_and(u8::is_ascii_alphanumeric))
    });
    let spelled = || {
        ENCODED
            .links
            .iter()
            .find(|l| rest.starts_with(l.as_bytes()))
            .map(String::as_str)
    };
    let link = written.or_else(|| if encoded { spelled() } else { None });
    let kind = match link {
        Some(l) if l.bytes().all(|b| b.is_ascii_alphabetic()) => Link::Word,
        Some(l) if l.is_ascii() => Link::Sign,
        Some("—" | "–") => Link::Dash,
        Some(_) => Link::Other,
        None if i > at => Link::None,
        None => return None,
    };
    i += link.map_or(0, str::len);
    if kind == Link::Word && text.get(i).is_some_and(|b| b.is_ascii_alphanumeric()) {
        return None;
    }
    // `is:` / `: ` / `:** ` / `は ` …
    i += bold(i);
    i += blanks(i);
    if kind != Link::None
        && matches!(text.get(i), Some(b':'))
        && !link.is_some_and(|l| l.ends_with(':'))
    {
        i += 1 + blanks(i + 1);
    }
    value_at(text, i).map(|value| (value, kind))
}

/// The value at `i`: after an optional opening quote, a run of ASCII graphic bytes (no quote or
/// angle bracket), less the punctuation that ends a sentence.
fn value_at(text: &[u8], mut i: usize) -> Option<Range<usize>> {
    for quote in ["\"", "'", "`", "«", "“", "「", "‘"] {
        if text[i..].starts_with(quote.as_bytes()) {
            i += quote.len();
            break;
        }
    }
    let len = run(text, i, |b| {
        b.is_ascii_graphic() && !matches!(b, b'"' | b'\'' | b'`' | b'<' | b'>')
    });
    let mut end = i + len;
    while end > i
        && matches!(
            text[end - 1],
            b'.' | b',' | b';' | b':' | b'!' | b'?' | b')' | b']' | b'}' | b'*'
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
    if not_a_value(text) || value.len() > 200 {
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
            value.len() >= 6
                && ((letters > 0 && (digits > 0 || symbol)) || digits == value.len())
                && !term(text)
        }
        Word::Key => value.len() >= 16 && letters > 0 && digits > 0 && entropy(value) >= 3.0,
        Word::Pin | Word::Licence | Word::MaybeLicence | Word::Credentials => false,
    }
}

/// CJK characters (and their punctuation) that may stand between a secret's word and its value.
const CJK_GAP: usize = 12;

/// Whether `c` is written in a CJK script (Han, kana, Hangul) or is CJK punctuation
/// (`、`, `（`, `：`).
fn cjk(c: char) -> bool {
    matches!(u32::from(c),
        0x3000..=0x30FF | 0x3400..=0x4DBF | 0x4E00..=0x9FFF | 0xAC00..=0xD7AF | 0xFF00..=0xFFEF)
}

/// The value after one to [`CJK_GAP`] CJK characters (blanks between them) at `at`: the
/// `Token格式是正確的（以 X` of CJK prose.
fn after_cjk(text: &[u8], at: usize) -> Option<Range<usize>> {
    // Room for the gap's characters (3 bytes each) and a few blanks; a cut inside a character
    // ends the window before it.
    let window = &text[at..text.len().min(at + 4 * CJK_GAP)];
    let rest = match std::str::from_utf8(window) {
        Ok(rest) => rest,
        Err(e) => std::str::from_utf8(&window[..e.valid_up_to()]).ok()?,
    };
    let mut gap = 0;
    let mut end = 0;
    for (i, c) in rest.char_indices() {
        if cjk(c) {
            gap += 1;
            if gap > CJK_GAP {
                return None;
            }
        } else if c != ' ' && c != '\t' {
            end = i;
            break;
        }
        end = i + c.len_utf8();
    }
    if gap == 0 {
        return None;
    }
    value_at(text, at + end)
}

/// The password of a `user/password` or `user:password` pair `value`, when the user is a name
/// (letters, digits, `_.-@+`) and the password looks generated.
fn pair_password(text: &[u8], value: Range<usize>) -> Option<Range<usize>> {
    let bytes = &text[value.clone()];
    let split = bytes.iter().position(|&b| b == b'/' || b == b':')?;
    let (user, password) = (&bytes[..split], &bytes[split + 1..]);
    let name = |b: &u8| b.is_ascii_alphanumeric() || b"_.-@+".contains(b);
    let ok = (1..=64).contains(&user.len())
        && user.iter().all(name)
        && !password.contains(&b'/')
        && !password.contains(&b':')
        && looks_secret(password, Word::Password)
        && generated(password, false);
    ok.then_some(value.start + split + 1..value.end)
}

/// Whether a value looks drawn at random rather than written: letters and digits, their classes
/// (lower case, upper case, digit, symbol) switching at least every third character (a word
/// with a number, `admin123`, switches once); with `mixed_case`, both cases too (a hex hash or
/// a name in code with a number does not have them).
fn generated(value: &[u8], mixed_case: bool) -> bool {
    let class = |b: u8| match b {
        b'a'..=b'z' => 0,
        b'A'..=b'Z' => 1,
        b'0'..=b'9' => 2,
        _ => 3,
    };
    let has = |c| value.iter().any(|&b| class(b) == c);
    let switches = value
        .windows(2)
        .filter(|w| class(w[0]) != class(w[1]))
        .count();
    value.len() >= 6
        && (has(0) || has(1))
        && has(2)
        && (!mixed_case || (has(0) && has(1)))
        && switches * 3 >= value.len() - 1
}

/// Placeholders, paths, code and URLs: no value of a secret.
fn not_a_value(text: &str) -> bool {
    is_placeholder(text)
        || is_path(text)
        || is_code(text)
        || text.contains(['(', ')', '{', '}', '[', ']', '='])
        || text.contains("://")
        || text.contains(PLACEHOLDER_PREFIX)
}

/// Whether the ASCII token ending at `end` ends there, and is not the start of a longer word in
/// another script (`necess` of `necessária`). CJK text runs on without a blank (`abc123입니다`).
fn ends_token(text: &[u8], end: usize) -> bool {
    let Some(&next) = text.get(end) else {
        return true;
    };
    if next.is_ascii() {
        return true;
    }
    let tail = &text[end..text.len().min(end + 4)];
    let next = String::from_utf8_lossy(tail).chars().next().unwrap_or(' ');
    // Latin, Greek and Cyrillic letters end below U+0530.
    !(next.is_alphabetic() && u32::from(next) < 0x530)
}

/// `prose-password` and `license-key`: whether the value a word gives is a password, a PIN or a
/// licence key a person chose or was handed, whatever its entropy: a token that is no word of
/// prose, no code and no placeholder. `label`: the word is a name code uses, linked by `:`, `=`
/// or a dash, where a lone word is a type, a variable or a field's description.
fn looks_made_up(value: &[u8], strength: Word, label: bool) -> bool {
    let Ok(text) = std::str::from_utf8(value) else {
        return false;
    };
    // Code (`static::$password`, `$$x`), a shell expansion's operator (`${X:?X is required}`),
    // a flag, a path or a list: not a value.
    if not_a_value(text)
        || value.len() > 64
        || text.contains("::")
        || text.contains('$')
        || text.starts_with(['?', '-', '+', ':', '.', ',', '/', '\\', '|', '~', '&'])
    {
        return false;
    }
    let letters = value.iter().filter(|b| b.is_ascii_alphabetic()).count();
    let digits = value.iter().filter(|b| b.is_ascii_digit()).count();
    match strength {
        Word::Pin => (4..=12).contains(&digits) && digits == value.len(),
        Word::MaybeLicence => grouped_key(value),
        Word::Licence => {
            grouped_key(value)
                || (value.len() >= 8 && letters > 0 && digits > 0 && !identifier(text))
        }
        Word::Password => {
            if value.len() < 4 || identifier(text) || term(text) {
                return false;
            }
            if letters == value.len() {
                return !label && !is_word(text);
            }
            // A compound of words (`case-sensitive`, `write-only`).
            !text
                .split('-')
                .all(|part| !part.is_empty() && part.bytes().all(|b| b.is_ascii_alphabetic()))
        }
        Word::Key | Word::Credentials => false,
    }
}

/// 4 or more groups of 4 or 5 letters and digits joined by `-` (`ABCD-1234-EFGH-5678`,
/// `7KD3P-…`): a licence key. Lowercase words joined by `-` are a name, not a key.
fn grouped_key(value: &[u8]) -> bool {
    let groups: Vec<&[u8]> = value.split(|&b| b == b'-').collect();
    groups.len() >= 4
        && groups
            .iter()
            .all(|g| (4..=5).contains(&g.len()) && g.iter().all(u8::is_ascii_alphanumeric))
        && {
            let digit = value.iter().any(u8::is_ascii_digit);
            digit || !value.iter().any(u8::is_ascii_lowercase)
        }
}

/// A name in code: `snake_case` or `SCREAMING_SNAKE` (an `_` between letters and digits), or
/// `camelCase` / `PascalCase` letters (`harborPass`, `NewPassword`).
fn identifier(text: &str) -> bool {
    let b = text.as_bytes();
    if !b[0].is_ascii_alphabetic() && b[0] != b'_' {
        return false;
    }
    if text.contains('_') {
        return b.iter().all(|c| c.is_ascii_alphanumeric() || *c == b'_');
    }
    let humps = b
        .windows(2)
        .filter(|w| w[0].is_ascii_lowercase() && w[1].is_ascii_uppercase())
        .count();
    humps > 0 && b.iter().all(u8::is_ascii_alphabetic)
}

/// An upper-case name with a short number: an algorithm, an encoding or a standard
/// (`SHA-256`, `AES256`, `UTF-8`, `MD5`, `CC0`).
fn term(text: &str) -> bool {
    let b = text.as_bytes();
    let letters = run(b, 0, |c| c.is_ascii_uppercase());
    let dash = usize::from(b.get(letters) == Some(&b'-'));
    let digits = b.len() - letters - dash;
    (2..=6).contains(&letters)
        && (1..=3).contains(&digits)
        && b[letters + dash..].iter().all(u8::is_ascii_digit)
}

/// Whether a letters-only token is a word of prose: upper case (`NOT`), three letters or fewer,
/// one of [`PROSE_WORDS`], or an English word by its ending (`required`, `hashing`, `visible`,
/// `encryption`). Anything else (`swordfish`, `hogehoge`) is taken for a password.
pub(in crate::redact) fn is_word(text: &str) -> bool {
    const ENDINGS: &[&str] = &[
        "ed", "en", "ing", "ly", "ble", "tion", "sion", "ment", "ness", "ous", "ive", "ful",
        "less", "ent", "ant", "al", "ic", "ary", "ory", "ity", "ure", "ate", "ise", "ize", "wn",
        "ct", "ght", "ther", "ere", "ong", "ak", "ire", "ria", "rio", "ido", "ida", "ado", "ada",
        "oso", "osa", "ivo", "iva", "ig", "lich", "isch", "bar", "los", "ert", "tzt", "if",
    ];
    if text.len() <= 3 || text.bytes().all(|b| b.is_ascii_uppercase()) {
        return true;
    }
    let lower = text.to_ascii_lowercase();
    PROSE_WORDS.binary_search(&lower.as_str()).is_ok() || ENDINGS.iter().any(|e| lower.ends_with(e))
}

/// Words of prose that follow "password is" and its kin in the languages the rule reads, and
/// that no ending in [`is_word`] catches. Sorted.
const PROSE_WORDS: &[&str] = &[
    "also",
    "always",
    "anything",
    "bien",
    "blank",
    "case",
    "changeme",
    "chosen",
    "correcta",
    "correcto",
    "correta",
    "correto",
    "does",
    "done",
    "down",
    "each",
    "else",
    "empty",
    "falsch",
    "false",
    "fine",
    "from",
    "gone",
    "good",
    "here",
    "hier",
    "incorrecta",
    "incorrecto",
    "incorreta",
    "incorreto",
    "into",
    "invalid",
    "invalida",
    "invalide",
    "just",
    "kept",
    "korrekt",
    "leer",
    "like",
    "lost",
    "many",
    "mine",
    "more",
    "most",
    "much",
    "must",
    "never",
    "next",
    "none",
    "nothing",
    "null",
    "obligatoire",
    "obligatoria",
    "obligatorio",
    "okay",
    "once",
    "only",
    "open",
    "ours",
    "over",
    "plain",
    "public",
    "requis",
    "reset",
    "richtig",
    "safe",
    "same",
    "sent",
    "sert",
    "should",
    "shown",
    "some",
    "something",
    "still",
    "such",
    "sure",
    "text",
    "that",
    "then",
    "there",
    "these",
    "this",
    "those",
    "true",
    "under",
    "unset",
    "used",
    "valid",
    "valide",
    "very",
    "vide",
    "weak",
    "what",
    "when",
    "where",
    "which",
    "will",
    "with",
    "within",
    "without",
    "wrong",
    "yours",
];

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn prose_words_are_sorted_for_the_binary_search() {
        assert!(PROSE_WORDS.windows(2).all(|w| w[0] < w[1]));
        assert!(is_word("Required") && is_word("NOT") && is_word("falsch"));
        assert!(!is_word("swordfish") && !is_word("hogehoge"));
    }
}
