//! The generic rules: secrets no named rule knows, found by what surrounds them or by their shape.
//!
//! - `prose-secret`: a value after a word that names a secret and a link, in the languages of
//!   the sessions reflect reads: "my token is X", "the api key is X", "API키는 X", "密码是X",
//!   "пароль: X", "Passwort ist X", "パスワードは X". The value must look generated (letters
//!   and digits mixed, or a symbol), so "the password is incorrect" stays. In CJK text, which
//!   names a secret and then says more of it before the value ("Token格式是…（以 `X` 開頭"),
//!   the value may come up to [`CJK_GAP`] CJK characters after the word, and must then look
//!   drawn at random ([`generated`], mixed case and digits). With no link, or with `to` ("set
//!   the password to X", "password X", as an assistant says back a password it was given), the
//!   value must look drawn at random too: both cases and digits, or a symbol.
//! - `prose-password`: a password or PIN a person made up, after the same kind of word and link
//!   ("the password is swordfish", "**Senha:** admin7", "my PIN is 4821", "비밀번호는 dalki"):
//!   any one token, whatever its entropy, unless it is a word of prose (`required`, `stored`,
//!   `falsch`), code (`passwordHash`, `temp_password`, `os.environ[…]`), a variable reference
//!   (`${X}`) or a placeholder (`<password>`, `xxx`, `changeme`). After an English name that code
//!   uses for a field (`password:`, `pin =`), a lone word is a type or a variable: it stays.
//!   A PIN is 4 to 12 digits.
//!   After a word naming credentials ("credentials admin/X", "Credenziali utente/X",
//!   "凭据：admin:X"), the password of the user/password pair, when it looks generated (a
//!   person's `admin123` next to a branch name like `feature/oauth2-login` cannot be told
//!   apart); the user name stays.
//! - `license-key`: a licence key after a word naming one ("license key: …", "product key …",
//!   "ライセンスキーは …"): a grouped key (4 or more groups of 4–5 letters and digits joined by
//!   `-`), or 8 bytes and more of letters and digits. After `license`, `licence` or `serial`
//!   alone (`license: MIT`), a grouped key only.
//! - `key-shaped-token`: a lowercase prefix and `_` or `-` before a long run of random base62
//!   (`abc_Xy7…`): the shape most services' keys share. Random means mixed case and digits,
//!   classes switching as often as chance makes them, and high entropy, so camelCase names,
//!   hex hashes, UUIDs and base64 blobs stay; ids with a known prefix (`toolu_`, `tooluse_`,
//!   `msg_`, `req_`) stay too.
//! - `discord-bot-token`: `<base64 of a numeric id>.<6>.<27+>`, Discord's bot token.
//! - `zhipu-api-key`: `<32 hex>.<16 base62>`, Zhipu's and Z.ai's API key, which holds no literal
//!   for the data rules' keyword pre-check.
//! - `base64-secret`: a base64 blob that looks drawn at random, shortly after a word naming a
//!   secret or just before one (a Bitwarden session key the assistant quoted back to scrub it
//!   from history, and searched for: `grep -r '…==' . && echo "session key still there"`).
//!
//! Speed: one literal search for the words of the three word rules (the `needles` module), one
//! pass over the bytes for the key shape and one for base64 blobs (the bytes before a blob are
//! searched for a word only when it looks random), one `memchr` for the dots of a Discord
//! token. No regex.
//! Text holding none of the words pays nothing for the word rules beyond that search.

use std::ops::Range;
use std::sync::LazyLock;

use super::needles::Needles;
use super::rules::entropy;
use super::scan::{ordered, run, run_back, runs, separated};
use super::value::{is_code, is_path, is_placeholder, PLACEHOLDER_PREFIX};

/// Every secret of `text` the generic rules find, with its kind.
pub(super) fn find(text: &[u8]) -> Vec<(Range<usize>, &'static str)> {
    let mut found = prose_secrets(text);
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
    found.extend(zhipu_keys(text).into_iter().map(|r| (r, "zhipu-api-key")));
    found.extend(
        base64_secrets(text)
            .into_iter()
            .map(|r| (r, "base64-secret")),
    );
    found
}

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
fn prose_secrets(text: &[u8]) -> Vec<(Range<usize>, &'static str)> {
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
pub(super) fn is_word(text: &str) -> bool {
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

/// Prefixes of ids, not keys: the ids of Claude's tools (on Amazon Bedrock, `tooluse_`),
/// messages and requests, and of common APIs' objects.
const ID_PREFIXES: &[&str] = &[
    "toolu", "tooluse", "srvtoolu", "msg", "req", "call", "chatcmpl", "run", "thread", "asst",
    "file", "evt", "cus", "ch", "pi", "sub", "acct", "sess", "session", "user", "org", "resp",
    "batch", "ft", "txn", "in", "price", "prod", "seti", "src", "pm", "job", "task", "trace",
    "span", "img", "doc", "id", "node", "item", "step", "conv", "chat", "cmpl", "vs", "fc", "rs",
    "agent", "tool", "block", "att", "sha", "sha1", "sha256", "sha384", "sha512", "md5",
];

/// `key-shaped-token`: in each run of `[A-Za-z0-9_-]` that stands alone, a lowercase prefix of
/// one to three `_`/`-`-ended segments, then a random base62 body of 20 to 200 bytes.
fn key_shaped(text: &[u8]) -> Vec<Range<usize>> {
    let token_byte = |b: u8| b.is_ascii_alphanumeric() || b == b'_' || b == b'-';
    let mut found = Vec::new();
    for Range { start, end } in runs(text, token_byte) {
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
        let len = run(token, from, |b| {
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

/// 20 to 200 bytes of base62 that look drawn at random ([`looks_random`]).
fn random_base62(body: &[u8]) -> bool {
    (20..=200).contains(&body.len())
        && body.iter().all(u8::is_ascii_alphanumeric)
        && looks_random(body)
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
        let id_len = run_back(text, dot, |b| b.is_ascii_alphanumeric());
        let mac_len = run(text, dot + 8, b64);
        let start = dot - id_len;
        if !(24..=28).contains(&id_len)
            || !(27..=40).contains(&mac_len)
            || !matches!(text[start], b'M' | b'N' | b'O')
            || !separated(text, start)
            || text.get(dot + 8 + mac_len).is_some_and(|&b| b == b'.')
            || !decodes_to_digits(&text[start..start + 20])
        {
            continue;
        }
        found.push(start..dot + 8 + mac_len);
    }
    ordered(found)
}

/// `zhipu-api-key`: `<32 lowercase hex>.<16 letters and digits, both cases>`, the API key of
/// Zhipu's BigModel and Z.ai (GLM), whole (its id and its secret). It holds no literal for the
/// data rules' keyword pre-check, so it is found from its dot, as a Discord token is.
fn zhipu_keys(text: &[u8]) -> Vec<Range<usize>> {
    let hex = |b: &u8| b.is_ascii_digit() || (b'a'..=b'f').contains(b);
    let mut found = Vec::new();
    for dot in memchr::memchr_iter(b'.', text) {
        let id_len = run_back(text, dot, |b| b.is_ascii_alphanumeric());
        let secret_len = run(text, dot + 1, |b| b.is_ascii_alphanumeric());
        if id_len != 32 || secret_len != 16 {
            continue;
        }
        let (start, end) = (dot - 32, dot + 17);
        let secret = &text[dot + 1..end];
        // Part of a dotted name or a path (`bundle.<hash>.<name>`): no key.
        let joined = |b: Option<&u8>| b.is_some_and(|b| b"./\\_-".contains(b));
        if !text[start..dot].iter().all(hex)
            || joined(start.checked_sub(1).and_then(|p| text.get(p)))
            || joined(text.get(end))
            || !secret.iter().any(u8::is_ascii_uppercase)
            || !secret.iter().any(u8::is_ascii_lowercase)
        {
            continue;
        }
        found.push(start..end);
    }
    found
}

/// Words that name a secret before or after a [`base64_secrets`] blob (lowercase; matched in
/// any case, inside longer words too: `BW_SESSION`, `apiKey`).
const BLOB_WORDS: &[&[u8]] = &[
    b"token",
    b"secret",
    b"session",
    b"passw",
    b"credential",
    b"key",
];

/// How far back a word names a blob (a comment on the line above a command counts).
const BLOB_WORD_REACH: usize = 200;
/// How far on a word names a blob: the rest of its command (`… && echo "key still there"`).
const BLOB_WORD_AFTER: usize = 60;

/// `base64-secret`: a blob of 40 to 400 bytes of base64 (`=`-padded, or holding `+` or `/`)
/// that looks drawn at random, at most [`BLOB_WORD_REACH`] bytes after a word naming a secret
/// (`# replace the session token` above `git filter-repo … '…=='`: a Bitwarden session
/// key) or [`BLOB_WORD_AFTER`] bytes before one (`grep -r '…==' . && echo "session key …"`). The
/// shape alone is no secret (an integrity hash, an image, a public key are blobs too), and
/// `key-shaped-token` leaves blobs alone.
fn base64_secrets(text: &[u8]) -> Vec<Range<usize>> {
    let b64 = |b: u8| b.is_ascii_alphanumeric() || b == b'+' || b == b'/';
    let mut found = Vec::new();
    for Range { start, end } in runs(text, b64) {
        let body = &text[start..end];
        let padding = run(text, end, |b| b == b'=').min(2);
        if !(40..=400).contains(&body.len())
            || !(padding > 0 || body.contains(&b'+') || body.contains(&b'/'))
        {
            continue;
        }
        // A path or a URL's path: slashes between words.
        let slashes = body.iter().filter(|&&b| b == b'/').count();
        if body[0] == b'/' || slashes * 16 > body.len() || body.windows(2).any(|w| w == b"//") {
            continue;
        }
        let alnum: Vec<u8> = body
            .iter()
            .copied()
            .filter(u8::is_ascii_alphanumeric)
            .collect();
        if !looks_random(&alnum) {
            continue;
        }
        let before = &text[start.saturating_sub(BLOB_WORD_REACH)..start];
        let after = &text[end + padding..(end + padding + BLOB_WORD_AFTER).min(text.len())];
        let named = BLOB_WORDS.iter().any(|word| {
            // After the blob a word must end there ("session key still there"), so that a package
            // name (`css-tokenizer`, `eslint-visitor-keys`) or `keyboard` does not count.
            let ends = |i: usize| {
                after
                    .get(i + word.len())
                    .is_none_or(|b| !b.is_ascii_alphabetic())
            };
            starts(before, word).next().is_some() || starts(after, word).any(ends)
        });
        if named {
            found.push(start..end + padding);
        }
    }
    // Said again further on, where no word names it (a second command using it): the same.
    let values: Vec<&[u8]> = found.iter().map(|r| &text[r.clone()]).collect();
    for value in values {
        for at in memchr::memmem::find_iter(text, value) {
            if !found.iter().any(|r| r.start == at) {
                found.push(at..at + value.len());
            }
        }
    }
    ordered(found)
}

/// Where `word` starts in `near`, in any case.
fn starts<'a>(near: &'a [u8], word: &'a [u8]) -> impl Iterator<Item = usize> + 'a {
    near.windows(word.len())
        .enumerate()
        .filter(move |(_, w)| w.eq_ignore_ascii_case(word))
        .map(|(i, _)| i)
}

/// Bytes of base62 that look drawn at random: all three classes, switching at least 45% of the
/// time (chance: 62%; a camelCase name: about 30%), entropy at least 4 bits a byte.
fn looks_random(body: &[u8]) -> bool {
    let class = |b: u8| match b {
        b'a'..=b'z' => 0,
        b'A'..=b'Z' => 1,
        _ => 2,
    };
    let mut seen = [0usize; 3];
    for &b in body {
        seen[class(b)] += 1;
    }
    if body.len() < 2 || seen.contains(&0) {
        return false;
    }
    let switches = body
        .windows(2)
        .filter(|w| class(w[0]) != class(w[1]))
        .count();
    switches * 100 >= (body.len() - 1) * 45 && entropy(body) >= 4.0
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
    fn prose_words_are_sorted_for_the_binary_search() {
        assert!(PROSE_WORDS.windows(2).all(|w| w[0] < w[1]));
        assert!(is_word("Required") && is_word("NOT") && is_word("falsch"));
        assert!(!is_word("swordfish") && !is_word("hogehoge"));
    }

    #[test]
    fn a_random_blob_after_a_word_naming_a_secret_is_one() {
        let blob = "Jj9R8WUeRSHfg2WPVf9T1B3rz0vc2nVsUTqON3Fi69Od0Ikp4Q1hvqNVCb4eioJl9TjCGqlD73DvuK54h8mGLw==";
        let said = format!("# Replace the session token in history\ngit filter-repo --replace-text <(echo '{blob}')");
        let found = base64_secrets(said.as_bytes());
        assert_eq!(found.len(), 1, "{said}");
        assert_eq!(&said[found[0].clone()], blob);
        // Said again further on, with no word before it: the same value.
        let again = format!("{said}\n{}\nor: echo '{blob}'", "x".repeat(300));
        let found = base64_secrets(again.as_bytes());
        assert_eq!(found.len(), 2, "{again}");
        assert!(found.iter().all(|r| &again[r.clone()] == blob));
        // Searched for, the word that names it after it.
        let searched = format!("grep -r '{blob}' . && echo \"session key still there\"");
        let found = base64_secrets(searched.as_bytes());
        assert_eq!(found.len(), 1, "{searched}");
        assert_eq!(&searched[found[0].clone()], blob);
        // The same blob with no word naming a secret before it, and blobs that are no secret.
        for text in [
            format!("the cached image is {blob}"),
            format!(
                "token: none\n{}\nthe cached image is {blob}",
                "x".repeat(200)
            ),
            format!("the cached image is {blob} {} (no token)", "x".repeat(60)),
            format!("\"integrity\": \"sha512-{blob}\", \"css-tokenizer\": \"^3.0\""),
            format!("'data': '{blob}', 'github-keyboard-shortcuts': 'copilot'"),
            "the key is in /home/me/projects/app/src/components/settings/keys/local/file.ts".into(),
            "key \"integrity\": \"sha512-abcdefghijklmnopqrstuvwxyzabcdefghijklmnopqrstuvwxyz==\""
                .into(),
        ] {
            assert!(base64_secrets(text.as_bytes()).is_empty(), "{text}");
        }
    }

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
