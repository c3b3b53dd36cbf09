//! Secret redaction: what keeps credentials out of everything reflect writes or prints.
//!
//! Every signal passes through [`redact_signal`] inside `Store::append`, so no capture path can
//! store a secret by forgetting to call it; promotion redacts the text it writes into a memory
//! file, and `export` redacts again on the way out (for stores written before a rule existed).
//!
//! Each secret is replaced by `[REDACTED:<kind>]` (the kinds are [`KINDS`]); for assignments,
//! URLs and headers only the secret part goes, so `DATABASE_PASSWORD=[REDACTED:env-secret]` still
//! says what was set. `<private>…</private>` spans (any case, across lines; an unclosed one runs
//! to the end of the text) are dropped entirely, tags included.
//!
//! What is deliberately left alone: empty values and placeholders (`password=`,
//! `password=${PASSWORD}`, `<your-password>`, `{{ token }}`, `****`, `null`), because they are not
//! secrets and a learning such as "put `API_KEY=${API_KEY}` in .env.example" must stay readable;
//! code on the right of an assignment (`token = os.environ["TOKEN"]`, `password = self.password`,
//! `token = get_token()`); prose (`the password field is validated`, `invalid token: expired`);
//! file paths, commit hashes, UUIDs and base64 that no rule ties to a credential.
//!
//! Speed: `capture-failure` redacts on every failed tool call, so compiling regexes must not be
//! the common path. Every rule has a literal pre-check (a substring, or a short scan for
//! `keyword=`) that decides whether its regex can match at all; the regexes are compiled lazily,
//! one per kind, so a hit compiles only the rules it needs. Text without a trigger costs a few
//! substring searches and comes back as `Cow::Borrowed`.

use std::borrow::Cow;
use std::cell::OnceCell;
use std::sync::LazyLock;

use memchr::memmem;
use regex::{Captures, Match, Regex};
use serde_json::{Map, Value};

use crate::signal::Signal;

/// How every placeholder starts; a value that already starts with it is never redacted again.
pub const PLACEHOLDER_PREFIX: &str = "[REDACTED:";

/// The kind names, in the order the rules run (a more specific kind first).
pub const KINDS: &[&str] = &[
    "private-key",
    "jwt",
    "slack-webhook",
    "url-password",
    "anthropic-key",
    "openai-key",
    "github-token",
    "gitlab-token",
    "slack-token",
    "stripe-key",
    "google-api-key",
    "npm-token",
    "pypi-token",
    "aws-access-key",
    "aws-secret-key",
    "bearer-token",
    "basic-auth",
    "env-secret",
    "secret-assignment",
];

/// `[REDACTED:<kind>]`.
pub fn placeholder(kind: &str) -> String {
    format!("{PLACEHOLDER_PREFIX}{kind}]")
}

/// `text` with `<private>` spans dropped and every secret replaced by its placeholder. Borrowed
/// when nothing changed.
pub fn redact(text: &str) -> Cow<'_, str> {
    let mut out = drop_private(text);
    let probe = Probe::new(&out);
    let due: Vec<&Rule> = RULES.iter().filter(|r| (r.may_match)(&probe)).collect();
    drop(probe);
    for rule in due {
        let replaced = match rule
            .regex
            .replace_all(&out, |caps: &Captures| rule.apply(caps))
        {
            Cow::Owned(s) => Some(s),
            Cow::Borrowed(_) => None,
        };
        if let Some(s) = replaced {
            out = Cow::Owned(s);
        }
    }
    match out {
        Cow::Owned(s) if s == text => Cow::Borrowed(text),
        other => other,
    }
}

/// Redact every free-text part of a signal: content, context, category, tags, and every string
/// in `meta`, `source` and unknown fields (a string under a secret-looking key such as
/// `"api_key"` is replaced whole). Ids, timestamps, session ids and paths are left as they are.
pub fn redact_signal(sig: &mut Signal) {
    redact_in_place(&mut sig.content);
    redact_in_place(&mut sig.context);
    if let Some(category) = &mut sig.category {
        redact_in_place(category);
    }
    for tag in &mut sig.tags {
        redact_in_place(tag);
    }
    redact_map(&mut sig.meta);
    redact_map(&mut sig.source.extra);
    redact_map(&mut sig.extra);
}

/// Redact a string where it is, allocating only when something changes.
pub fn redact_in_place(text: &mut String) {
    if let Cow::Owned(s) = redact(text) {
        *text = s;
    }
}

/// Redact every string in a JSON value, recursively.
pub fn redact_value(value: &mut Value) {
    match value {
        Value::String(s) => redact_in_place(s),
        Value::Array(items) => items.iter_mut().for_each(redact_value),
        Value::Object(map) => redact_map(map),
        _ => {}
    }
}

fn redact_map(map: &mut Map<String, Value>) {
    for (key, value) in map.iter_mut() {
        match value {
            Value::String(s) if is_secret_name(key) && !is_placeholder(s) => {
                *s = placeholder("secret-assignment");
            }
            other => redact_value(other),
        }
    }
}

/// Drop `<private>…</private>` spans (ASCII case-insensitive); an unclosed one drops to the end.
fn drop_private(text: &str) -> Cow<'_, str> {
    const OPEN: &[u8] = b"<private>";
    const CLOSE: &[u8] = b"</private>";
    let bytes = text.as_bytes();
    let find = |tag: &[u8], from: usize| {
        memchr::memchr_iter(b'<', &bytes[from..])
            .map(|i| from + i)
            .find(|&i| {
                bytes[i..].len() >= tag.len() && bytes[i..i + tag.len()].eq_ignore_ascii_case(tag)
            })
    };
    let Some(mut open) = find(OPEN, 0) else {
        return Cow::Borrowed(text);
    };
    let mut out = String::with_capacity(text.len());
    let mut kept_from = 0;
    loop {
        out.push_str(&text[kept_from..open]);
        let Some(close) = find(CLOSE, open + OPEN.len()) else {
            return Cow::Owned(out);
        };
        kept_from = close + CLOSE.len();
        match find(OPEN, kept_from) {
            Some(next) => open = next,
            None => break,
        }
    }
    out.push_str(&text[kept_from..]);
    Cow::Owned(out)
}

/// The text the pre-checks look at, with its ASCII-lowercase copy made on first use.
struct Probe<'a> {
    text: &'a str,
    lower: OnceCell<String>,
}

impl<'a> Probe<'a> {
    fn new(text: &'a str) -> Probe<'a> {
        Probe {
            text,
            lower: OnceCell::new(),
        }
    }

    fn has(&self, needle: &str) -> bool {
        memmem::find(self.text.as_bytes(), needle.as_bytes()).is_some()
    }

    fn has_any(&self, needles: &[&str]) -> bool {
        needles.iter().any(|n| self.has(n))
    }

    fn lower(&self) -> &str {
        self.lower.get_or_init(|| self.text.to_ascii_lowercase())
    }

    fn lower_has(&self, needle: &str) -> bool {
        memmem::find(self.lower().as_bytes(), needle.as_bytes()).is_some()
    }
}

/// One kind of secret: a cheap pre-check, a lazily compiled regex, and the part of a match that
/// is the secret (`None`: this match is a near-miss and stays).
struct Rule {
    kind: &'static str,
    may_match: fn(&Probe) -> bool,
    regex: LazyLock<Regex>,
    secret: for<'h> fn(&Captures<'h>) -> Option<Match<'h>>,
}

impl Rule {
    fn apply(&self, caps: &Captures) -> String {
        let whole = caps.get(0).expect("group 0 always matches");
        let Some(secret) = (self.secret)(caps) else {
            return whole.as_str().to_string();
        };
        let text = whole.as_str();
        let (from, to) = (secret.start() - whole.start(), secret.end() - whole.start());
        format!("{}{}{}", &text[..from], placeholder(self.kind), &text[to..])
    }
}

fn compile(pattern: &str) -> Regex {
    Regex::new(pattern).expect("redaction patterns are valid")
}

fn whole<'h>(caps: &Captures<'h>) -> Option<Match<'h>> {
    caps.get(0)
}

/// The group named `s`, unless it is a placeholder.
fn group_s<'h>(caps: &Captures<'h>) -> Option<Match<'h>> {
    caps.name("s").filter(|m| !is_placeholder(m.as_str()))
}

/// The value of an assignment: the quoted group or the bare one, if it is worth redacting.
fn assigned_value<'h>(caps: &Captures<'h>) -> Option<Match<'h>> {
    if let Some(quoted) = caps.name("q1").or_else(|| caps.name("q2")) {
        return Some(quoted).filter(|m| !is_placeholder(m.as_str()));
    }
    let bare = caps.name("bare")?;
    let value = bare.as_str();
    if value.len() < MIN_BARE_SECRET || is_placeholder(value) || is_code(value) {
        return None;
    }
    let sep = caps.name("sep").map_or("", |m| m.as_str());
    let blank = |group| caps.name(group).is_some_and(|m| !m.as_str().is_empty());
    // `KEY= cmd` assigns nothing (the shell runs `cmd`); `KEY = value` is a spaced assignment.
    if sep == "=" && !blank("b1") && blank("b2") {
        return None;
    }
    // `key: value` in prose ("invalid token: expired") is not a secret; in YAML (the key starts
    // the line) it is, and so is anything that looks generated.
    if sep == ":" && caps.name("lead").is_none() && !credential_like(value) {
        return None;
    }
    Some(bare)
}

/// Unquoted values shorter than this are left (`withCredentials=!0`, `token: 5`): too short to be
/// a credential worth hiding, and too often code.
const MIN_BARE_SECRET: usize = 4;

/// Placeholders, empty values, template syntax and values that are never secrets (types,
/// versions, modes): nothing to hide.
fn is_placeholder(value: &str) -> bool {
    let v = value.trim();
    if v.is_empty()
        || v.starts_with(['$', '<', '{', '%', '[', '*'])
        || v.starts_with("REDACTED")
        || v.chars()
            .all(|c| matches!(c, '*' | 'x' | 'X' | '.' | '…' | '•' | '-' | '_'))
        || is_version(v)
    {
        return true;
    }
    let lower = v.to_ascii_lowercase();
    NOT_SECRETS.contains(&lower.as_str())
        || lower.starts_with("your_")
        || lower.starts_with("your-")
}

/// Values an assignment to a secret-named key takes that are not secrets: placeholders, type
/// names (`token: string;`), fetch credential modes, workflow permissions, code keywords.
const NOT_SECRETS: &[&str] = &[
    "null",
    "none",
    "nil",
    "true",
    "false",
    "undefined",
    "redacted",
    "hidden",
    "placeholder",
    "example",
    "password",
    "secret",
    "token",
    "changeme",
    "string",
    "number",
    "boolean",
    "bool",
    "str",
    "int",
    "any",
    "unknown",
    "object",
    "bytes",
    "float",
    "void",
    "include",
    "omit",
    "same-origin",
    "read",
    "write",
    "required",
    "optional",
    "await",
    "new",
    "this",
    "self",
    "function",
    "async",
    "lambda",
    "return",
    "typeof",
    "yield",
];

/// `9.0.2`, `^1.4`, `~2.0.0-beta.1`, `>=3.10`: a dependency version.
fn is_version(v: &str) -> bool {
    let v = v.trim_start_matches(['^', '~', '>', '<', '=', 'v']);
    let mut parts = v.split('.');
    parts.clone().count() >= 2
        && parts
            .next()
            .is_some_and(|p| !p.is_empty() && p.bytes().all(|b| b.is_ascii_digit()))
        && parts
            .next()
            .is_some_and(|p| p.starts_with(|c: char| c.is_ascii_digit()))
}

/// An unquoted right-hand side that is code, not a value: a call, an index, a generic, a
/// negation, a dotted path (`os.environ["X"]`, `get_token()`, `self.password`), or a variable
/// whose own name says it holds the secret (`token = accessToken`).
fn is_code(value: &str) -> bool {
    if value.contains(['(', '[', '<']) || value.starts_with('!') {
        return true;
    }
    let ident = |s: &str| {
        s.starts_with(|c: char| c.is_ascii_alphabetic() || c == '_')
            && s.chars().all(|c| c.is_ascii_alphanumeric() || c == '_')
    };
    (value.contains('.') && value.split('.').all(ident)) || (ident(value) && is_secret_name(value))
}

/// At least 8 characters mixing letters and digits: what a generated secret looks like, and a
/// prose word does not.
fn credential_like(value: &str) -> bool {
    value.len() >= 8
        && value.chars().any(|c| c.is_ascii_digit())
        && value.chars().any(|c| c.is_ascii_alphabetic())
}

/// An OpenAI key body: mixed case and digits, or one unbroken run with digits. Keeps kebab-case
/// names that happen to start with `sk-` (`sk-learn-tutorial-part-2024`).
fn random_looking(body: &str) -> bool {
    let digits = body.chars().filter(char::is_ascii_digit).count();
    let upper = body.chars().any(|c| c.is_ascii_uppercase());
    let lower = body.chars().any(|c| c.is_ascii_lowercase());
    digits >= 2 && (upper || lower) && (upper || !body.contains('-'))
}

/// What an `UPPER_SNAKE` name says about its value.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum EnvName {
    /// `DB_PASSWORD`, `GH_TOKEN`, `API_KEY`, `SECRET_KEY_BASE`: the value is a secret.
    Secret,
    /// `…_KEY` after a word that does not make it one (`STRIPE_KEY`, but also `STORAGE_KEY`):
    /// a secret only if the value looks generated.
    MaybeKey,
    /// Anything else (`BYPASS_CACHE`, `TOKEN_URL`, `PASSWORD_FILE`, `KEYBOARD`).
    Other,
}

/// Classify a name by its last `_`-separated part: what it ends with is what it holds, so
/// `TOKEN_STORAGE_KEY` and `PASSWORD_FILE` are not secrets while `GITHUB_TOKEN` is.
fn env_name(name: &str) -> EnvName {
    const ENDINGS: &[&str] = &[
        "SECRET",
        "SECRETS",
        "TOKEN",
        "PASSWORD",
        "PASSWD",
        "PASSPHRASE",
        "APIKEY",
    ];
    const WHOLE: &[&str] = &["PASS", "PWD", "CREDENTIAL", "CREDENTIALS"];
    const KEY_OF: &[&str] = &[
        "API",
        "SECRET",
        "PRIVATE",
        "ACCESS",
        "MASTER",
        "SIGNING",
        "ENCRYPTION",
        "AUTH",
        "CLIENT",
        "LICENSE",
        "SERVICE",
        "WEBHOOK",
        "JWT",
        "HMAC",
        "ADMIN",
        "DEPLOY",
    ];
    const ANYWHERE: &[&str] = &[
        "SECRET_KEY",
        "PRIVATE_KEY",
        "API_KEY",
        "ACCESS_KEY",
        "MASTER_KEY",
    ];
    let mut parts = name.rsplit('_').filter(|p| !p.is_empty());
    let last = parts.next().unwrap_or("");
    if ENDINGS.iter().any(|w| last.ends_with(w)) || WHOLE.contains(&last) {
        return EnvName::Secret;
    }
    if ANYWHERE.iter().any(|w| name.contains(w)) {
        return EnvName::Secret;
    }
    if last == "KEY" {
        return match parts.next() {
            Some(before) if KEY_OF.contains(&before) => EnvName::Secret,
            _ => EnvName::MaybeKey,
        };
    }
    EnvName::Other
}

/// A key naming a secret in any case or style (`password`, `dbPassword`, `api-key`,
/// `SecretAccessKey`, `auth_token`): it ends with one of [`SECRET_WORDS`].
pub fn is_secret_name(key: &str) -> bool {
    let lower = key.to_ascii_lowercase();
    let lower = lower.trim_matches(|c: char| !c.is_ascii_alphanumeric());
    SECRET_WORDS.iter().any(|w| lower.ends_with(w)) || env_name(key) == EnvName::Secret
}

/// Key endings that name a secret in an assignment (lowercase).
const SECRET_WORDS: &[&str] = &[
    "password",
    "passwd",
    "passphrase",
    "secret",
    "token",
    "api_key",
    "api-key",
    "apikey",
    "access_key",
    "access-key",
    "accesskey",
    "secret_key",
    "secret-key",
    "secretkey",
    "private_key",
    "private-key",
    "privatekey",
    "auth_key",
    "authkey",
    "credential",
    "credentials",
];

/// Pre-check for `secret-assignment`: some secret word directly followed by an optional quote,
/// blanks and `=` or `:`.
fn has_secret_assignment(p: &Probe) -> bool {
    let lower = p.lower().as_bytes();
    SECRET_WORDS.iter().any(|word| {
        memmem::find_iter(lower, word.as_bytes()).any(|at| {
            let rest = &lower[at + word.len()..];
            let rest = rest
                .strip_prefix(b"\"")
                .or(rest.strip_prefix(b"'"))
                .unwrap_or(rest);
            let skip = rest
                .iter()
                .take_while(|b| matches!(b, b' ' | b'\t'))
                .count();
            matches!(rest.get(skip), Some(b':' | b'='))
        })
    })
}

/// Pre-check for `env-secret`: some `=` right after an `UPPER_SNAKE` secret name.
fn has_env_secret(p: &Probe) -> bool {
    let bytes = p.text.as_bytes();
    memchr::memchr_iter(b'=', bytes).any(|eq| {
        let before = bytes[..eq].trim_ascii_end();
        let start = before
            .iter()
            .rposition(|b| !(b.is_ascii_uppercase() || b.is_ascii_digit() || *b == b'_'))
            .map_or(0, |i| i + 1);
        let name = &before[start..];
        !name.is_empty() && env_name(std::str::from_utf8(name).unwrap_or("")) != EnvName::Other
    })
}

/// Pre-check for `url-password`: a `scheme://` whose authority has `:` before `@`.
fn has_url_password(p: &Probe) -> bool {
    let bytes = p.text.as_bytes();
    memmem::find_iter(bytes, b"://").any(|at| {
        let authority = &bytes[at + 3..];
        let end = authority
            .iter()
            .position(|b| matches!(b, b'/' | b'?' | b'#') || b.is_ascii_whitespace())
            .unwrap_or(authority.len());
        let authority = &authority[..end];
        match (
            memchr::memchr(b':', authority),
            memchr::memrchr(b'@', authority),
        ) {
            (Some(colon), Some(at)) => colon < at,
            _ => false,
        }
    })
}

/// `\b` that also works next to non-ASCII text (the regexes run with Unicode on for `&str`).
macro_rules! wb {
    () => {
        r"(?-u:\b)"
    };
}

// An unquoted value: no blank, quote or separator, and not starting with `=` (`==` is a comparison).
macro_rules! value {
    () => {
        r#"(?:"(?P<q1>[^"\n]*)"|'(?P<q2>[^'\n]*)'|(?P<bare>[^\s"'`=,;&|)\]}>][^\s"'`,;&|)\]}>]*))"#
    };
}

static RULES: [Rule; 19] = [
    Rule {
        kind: "private-key",
        may_match: |p| p.has("PRIVATE KEY"),
        regex: LazyLock::new(|| {
            compile(
                r"(?s)-----BEGIN[ A-Z0-9]*PRIVATE KEY(?: BLOCK)?-----.*?(?:-----END[ A-Z0-9]*PRIVATE KEY(?: BLOCK)?-----|\z)",
            )
        }),
        secret: whole,
    },
    Rule {
        kind: "jwt",
        may_match: |p| p.has("eyJ"),
        regex: LazyLock::new(|| {
            compile(concat!(
                wb!(),
                r"eyJ[A-Za-z0-9_-]{7,}\.[A-Za-z0-9_-]{2,}\.[A-Za-z0-9_-]*"
            ))
        }),
        secret: whole,
    },
    Rule {
        kind: "slack-webhook",
        may_match: |p| p.has("hooks.slack.com/"),
        regex: LazyLock::new(|| {
            compile(
                r"(?:https?://)?hooks\.slack\.com/(?:services|workflows|triggers)/T[A-Z0-9]{6,}/[A-Z0-9]{6,}/[A-Za-z0-9]{12,}",
            )
        }),
        secret: whole,
    },
    Rule {
        kind: "url-password",
        may_match: has_url_password,
        regex: LazyLock::new(|| {
            compile(concat!(
                wb!(),
                r#"[A-Za-z][A-Za-z0-9+.-]*://[^\s:/?#@"'<>\[\]]+:(?P<s>[^\s/?#"'<>]+)@"#
            ))
        }),
        secret: group_s,
    },
    Rule {
        kind: "anthropic-key",
        may_match: |p| p.has("sk-ant-"),
        regex: LazyLock::new(|| compile(concat!(wb!(), r"sk-ant-[A-Za-z0-9_-]{20,}"))),
        secret: whole,
    },
    Rule {
        kind: "openai-key",
        may_match: |p| p.has("sk-"),
        regex: LazyLock::new(|| {
            compile(concat!(
                wb!(),
                r"sk-(?:proj-|svcacct-|admin-)?(?P<s>[A-Za-z0-9_-]{20,})"
            ))
        }),
        secret: |caps| {
            let body = caps.name("s")?;
            random_looking(body.as_str()).then(|| caps.get(0)).flatten()
        },
    },
    Rule {
        kind: "github-token",
        may_match: |p| p.has_any(&["ghp_", "gho_", "ghu_", "ghs_", "ghr_", "github_pat_"]),
        regex: LazyLock::new(|| {
            compile(concat!(
                wb!(),
                r"(?:gh[pousr]_[A-Za-z0-9]{30,}|github_pat_[A-Za-z0-9_]{30,})"
            ))
        }),
        secret: whole,
    },
    Rule {
        kind: "gitlab-token",
        may_match: |p| p.has("glpat-"),
        regex: LazyLock::new(|| compile(concat!(wb!(), r"glpat-[A-Za-z0-9_-]{20,}"))),
        secret: whole,
    },
    Rule {
        kind: "slack-token",
        may_match: |p| p.has("xox"),
        regex: LazyLock::new(|| compile(concat!(wb!(), r"xox[abprs]-[A-Za-z0-9-]{10,}"))),
        secret: |caps| {
            let m = caps.get(0)?;
            m.as_str().bytes().any(|b| b.is_ascii_digit()).then_some(m)
        },
    },
    Rule {
        kind: "stripe-key",
        may_match: |p| p.has_any(&["_live_", "_test_"]),
        regex: LazyLock::new(|| {
            compile(concat!(
                wb!(),
                r"(?:sk|rk|pk)_(?:live|test)_[A-Za-z0-9]{16,}"
            ))
        }),
        secret: whole,
    },
    Rule {
        kind: "google-api-key",
        may_match: |p| p.has("AIza"),
        regex: LazyLock::new(|| compile(concat!(wb!(), r"AIza[0-9A-Za-z_-]{35}"))),
        secret: whole,
    },
    Rule {
        kind: "npm-token",
        may_match: |p| p.has("npm_"),
        regex: LazyLock::new(|| compile(concat!(wb!(), r"npm_[A-Za-z0-9]{36}", wb!()))),
        secret: whole,
    },
    Rule {
        kind: "pypi-token",
        may_match: |p| p.has("pypi-AgEI"),
        regex: LazyLock::new(|| compile(concat!(wb!(), r"pypi-AgEI[A-Za-z0-9_-]{50,}"))),
        secret: whole,
    },
    Rule {
        kind: "aws-access-key",
        may_match: |p| p.has_any(&["AKIA", "ASIA", "ABIA", "ACCA"]),
        regex: LazyLock::new(|| {
            compile(concat!(
                wb!(),
                r"(?:AKIA|ASIA|ABIA|ACCA)[A-Z0-9]{16}",
                wb!()
            ))
        }),
        secret: whole,
    },
    Rule {
        kind: "aws-secret-key",
        may_match: |p| p.lower_has("secret") && p.lower_has("access"),
        regex: LazyLock::new(|| {
            compile(concat!(
                wb!(),
                r#"(?i:aws_?)?(?i:secret_?access_?key)["']?\s*[:=]\s*["']?(?P<s>[A-Za-z0-9/+]{40})(?:[^A-Za-z0-9/+=]|\z)"#
            ))
        }),
        secret: group_s,
    },
    Rule {
        kind: "bearer-token",
        may_match: |p| p.lower_has("bearer"),
        regex: LazyLock::new(|| {
            compile(concat!(
                wb!(),
                r"(?P<header>(?i:authorization)\s*[:=]\s*[\x22']?\s*)?(?i:bearer)\s+(?P<s>[A-Za-z0-9._~+/-]+=*)"
            ))
        }),
        secret: |caps| {
            let token = group_s(caps)?;
            let t = token.as_str();
            // Without the header, "a Bearer token" is prose: demand something generated.
            let ok = if caps.name("header").is_some() {
                t.len() >= 6
            } else {
                (t.len() >= 16 && t.bytes().any(|b| b.is_ascii_digit())) || t.len() >= 24
            };
            ok.then_some(token)
        },
    },
    Rule {
        kind: "basic-auth",
        may_match: |p| p.lower_has("basic") && p.lower_has("authorization"),
        regex: LazyLock::new(|| {
            compile(concat!(
                wb!(),
                r"(?i:authorization)\s*[:=]\s*[\x22']?\s*(?i:basic)\s+(?P<s>[A-Za-z0-9+/]{6,}=*)"
            ))
        }),
        secret: group_s,
    },
    Rule {
        kind: "env-secret",
        may_match: has_env_secret,
        regex: LazyLock::new(|| {
            compile(concat!(
                wb!(),
                r"(?P<name>[A-Z][A-Z0-9_]*)(?P<b1>[ \t]*)(?P<sep>=)(?P<b2>[ \t]*)",
                value!()
            ))
        }),
        secret: |caps| {
            let value = assigned_value(caps).filter(|v| !is_path(v.as_str()))?;
            match env_name(caps.name("name")?.as_str()) {
                EnvName::Secret => Some(value),
                EnvName::MaybeKey => credential_like(value.as_str()).then_some(value),
                EnvName::Other => None,
            }
        },
    },
    Rule {
        kind: "secret-assignment",
        may_match: has_secret_assignment,
        regex: LazyLock::new(|| {
            compile(concat!(
                r#"(?m)(?P<lead>^[ \t]*(?:-[ \t]+)?["']?)?"#,
                r"(?P<key>[A-Za-z0-9_.-]*(?i:password|passwd|passphrase|secret|token|api[_-]?key|access[_-]?key|secret[_-]?key|private[_-]?key|auth[_-]?key|credentials?))",
                r#"["']?(?P<b1>[ \t]*)(?P<sep>[:=])(?P<b2>[ \t]*)"#,
                value!()
            ))
        }),
        secret: |caps| assigned_value(caps).filter(|v| !is_path(v.as_str())),
    },
];

/// A file path as a value (`SSH_KEY=~/.ssh/id_ed25519`): a pointer to a secret, not one.
fn is_path(value: &str) -> bool {
    value.starts_with('/')
        || value.starts_with("~/")
        || value.starts_with("./")
        || value.starts_with("../")
}

#[cfg(test)]
mod tests {
    use super::*;

    /// One row of the table: the input, and what it must become (`None`: left alone byte for byte).
    struct Case {
        kind: &'static str,
        input: &'static str,
        expected: Option<&'static str>,
    }

    const fn hit(kind: &'static str, input: &'static str, expected: &'static str) -> Case {
        Case {
            kind,
            input,
            expected: Some(expected),
        }
    }

    const fn miss(kind: &'static str, input: &'static str) -> Case {
        Case {
            kind,
            input,
            expected: None,
        }
    }

    // Samples are split with concat! so secret scanners do not flag this file.
    const CASES: &[Case] = &[
        hit(
            "private-key",
            "key:\n-----BEGIN RSA PRIVATE KEY-----\nMIIEpAIBAAKCAQEA1c7+9z\nabc==\n-----END RSA PRIVATE KEY-----\ndone",
            "key:\n[REDACTED:private-key]\ndone",
        ),
        hit(
            "private-key",
            concat!("{\"private_key\": \"-----BEGIN ", "PRIVATE KEY-----\\nMIIEvQIBADANBgkqhkiG9w0BAQEFAASC\\n-----END PRIVATE KEY-----\\n\"}"),
            "{\"private_key\": \"[REDACTED:private-key]\\n\"}",
        ),
        hit(
            "private-key",
            "cut: -----BEGIN OPENSSH PRIVATE KEY----- b3BlbnNzaC1rZXktdjEAAAAABG5vbmUAAAAEbm9uZQ…",
            "cut: [REDACTED:private-key]",
        ),
        miss(
            "private-key",
            "-----BEGIN PUBLIC KEY-----\nMFkwEwYHKoZIzj0CAQYIKoZIzj0DAQcDQgAE\n-----END PUBLIC KEY-----",
        ),
        miss("private-key", "the PRIVATE KEY file must be chmod 600"),
        hit(
            "jwt",
            concat!("cookie eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9", ".eyJzdWIiOiIxMjM0NTY3ODkwIn0.dozjgNryP4J3jVmNHl0w5N_XgL0n3I9PlFUP0THsR8U; path=/"),
            "cookie [REDACTED:jwt]; path=/",
        ),
        miss("jwt", "eyJhbGciOiJIUzI1NiJ9 is the base64 of a JSON header"),
        miss("jwt", "eyJhbGciOiJIUzI1NiJ9.x"),
        hit(
            "slack-webhook",
            concat!("POST https://hooks.slack", ".com/services/T024BE7LD/B01ABCDEF12/abcDEF123ghiJKL456mnoPQR failed"),
            "POST [REDACTED:slack-webhook] failed",
        ),
        miss("slack-webhook", "see https://hooks.slack.com/services/YOUR/WEBHOOK/URL"),
        hit(
            "url-password",
            "psql postgres://app:s3cr3t-P4ss@db.internal:5432/app",
            "psql postgres://app:[REDACTED:url-password]@db.internal:5432/app",
        ),
        hit(
            "url-password",
            "clone https://user:p@ss@git.example.com/x.git",
            "clone https://user:[REDACTED:url-password]@git.example.com/x.git",
        ),
        miss("url-password", "http://localhost:8080/api?x=1"),
        // A token redacted in the user part must not look like `user:password` the next time.
        hit(
            "github-token",
            concat!("https://ghp_", "aB3dE6gH9jK2mN5pQ8sT1vW4yZ7bC0eF2hJ5@github.com/o/r"),
            "https://[REDACTED:github-token]@github.com/o/r",
        ),
        miss("url-password", "ssh://git@github.com/org/repo.git"),
        miss("url-password", "postgres://app:${DB_PASSWORD}@db:5432/app"),
        hit(
            "anthropic-key",
            concat!("ANTHROPIC_API_KEY=sk-ant-", "api03-AbCdEfGh1234567890_IjKlMnOpQrStUvWx-yz0123456789AA"),
            "ANTHROPIC_API_KEY=[REDACTED:anthropic-key]",
        ),
        miss("anthropic-key", "keys look like sk-ant-api03-…"),
        hit(
            "openai-key",
            concat!("key sk-", "proj-Ab3dEf6hIj9kLm2nOp5qRs8tUv1wXy4z_AbC-dEf used"),
            "key [REDACTED:openai-key] used",
        ),
        hit(
            "openai-key",
            concat!("\"sk-", "9fX2aB7cD4eF1gH6iJ3kL8mN5oP0qR2sT7uV4wX1yZ6aB3c\""),
            "\"[REDACTED:openai-key]\"",
        ),
        miss("openai-key", "read sk-learn-tutorial-part-2024-notes.md"),
        miss("openai-key", "risk-assessment-matrix-2024-final-A1"),
        hit(
            "github-token",
            concat!("git push https://x:", "ghp_", "aB3dE6gH9jK2mN5pQ8sT1vW4yZ7bC0eF2hJ5 origin"),
            "git push https://x:[REDACTED:github-token] origin",
        ),
        hit(
            "github-token",
            concat!("github_", "pat_11ABCDEFG0123456789_abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123"),
            "[REDACTED:github-token]",
        ),
        miss("github-token", "tokens start with ghp_ or github_pat_ (ghp_short123)"),
        hit(
            "gitlab-token",
            concat!("glpat", "-xYz12AbC34dEf56GhI78 ok"),
            "[REDACTED:gitlab-token] ok",
        ),
        miss("gitlab-token", "glpat-xxxx is a placeholder"),
        hit(
            "slack-token",
            concat!("xoxb", "-123456789012-1234567890123-AbCdEfGhIjKlMnOpQrStUvWx"),
            "[REDACTED:slack-token]",
        ),
        miss("slack-token", "set xoxb-your-token-here in the config"),
        hit(
            "stripe-key",
            concat!("stripe.api_key = '", "sk_live_", "51H8abcDEF123ghiJKL456mno'"),
            "stripe.api_key = '[REDACTED:stripe-key]'",
        ),
        hit(
            "stripe-key",
            concat!("pk_", "test_TYooMQauvdEDq54NiTphI7jx"),
            "[REDACTED:stripe-key]",
        ),
        miss("stripe-key", "sk_test_123 is too short to be a key"),
        hit(
            "google-api-key",
            concat!("?key=AIza", "SyA-1234567890abcdefghijklmnopqrstu&q=x"),
            "?key=[REDACTED:google-api-key]&q=x",
        ),
        miss("google-api-key", "AIzaSyShort"),
        hit(
            "npm-token",
            concat!("//registry.npmjs.org/:_authToken=npm_", "aB3dE6gH9jK2mN5pQ8sT1vW4yZ7bC0eF2hJ5"),
            "//registry.npmjs.org/:_authToken=[REDACTED:npm-token]",
        ),
        miss("npm-token", "npm_config_cache=/tmp/npm-cache"),
        hit(
            "pypi-token",
            concat!("password = pypi-", "AgEIcHlwaS5vcmcCJGE4ZjY5ZDA2LTk0NGEtNDU5ZS1hYTk3LWE4NmNjYmVmN2E4ZQ"),
            "password = [REDACTED:pypi-token]",
        ),
        miss("pypi-token", "pypi-AgEI is the prefix of every upload token; see pypi-server"),
        hit(
            "aws-access-key",
            concat!("aws_access_key_id = AKIA", "IOSFODNN7EXAMPLE"),
            "aws_access_key_id = [REDACTED:aws-access-key]",
        ),
        miss("aws-access-key", "AKIAIOSFODNN7EXAMPL is one short; AKIA_DOCS"),
        hit(
            "aws-secret-key",
            concat!("aws_secret_access_key = wJalrXUtnFEMI/", "K7MDENG/bPxRfiCYEXAMPLEKEY"),
            "aws_secret_access_key = [REDACTED:aws-secret-key]",
        ),
        hit(
            "aws-secret-key",
            concat!("{\"SecretAccessKey\": \"wJalrXUtnFEMI/", "K7MDENG/bPxRfiCYEXAMPLEKEY\", \"x\": 1}"),
            "{\"SecretAccessKey\": \"[REDACTED:aws-secret-key]\", \"x\": 1}",
        ),
        miss("aws-secret-key", "the secret access key is 40 characters long"),
        miss("aws-secret-key", "aws_secret_access_key = ${AWS_SECRET_ACCESS_KEY}"),
        hit(
            "bearer-token",
            "curl -H 'Authorization: Bearer abcDEF123456' https://api.example.com",
            "curl -H 'Authorization: Bearer [REDACTED:bearer-token]' https://api.example.com",
        ),
        hit(
            "bearer-token",
            "sent Bearer 0123456789abcdefXYZ to the proxy",
            "sent Bearer [REDACTED:bearer-token] to the proxy",
        ),
        miss("bearer-token", "the API expects a Bearer token in the header"),
        miss("bearer-token", "curl -H \"Authorization: Bearer $TOKEN\""),
        hit(
            "basic-auth",
            "Authorization: Basic dXNlcjpwYXNzd29yZA==",
            "Authorization: Basic [REDACTED:basic-auth]",
        ),
        miss("basic-auth", "the proxy uses Basic authentication (see Authorization docs)"),
        hit(
            "env-secret",
            "DATABASE_PASSWORD=hunter2",
            "DATABASE_PASSWORD=[REDACTED:env-secret]",
        ),
        hit(
            "env-secret",
            "cd app && export SOME_SECRET_KEY=\"s3cr3t value\" && MY_APP_CREDENTIALS='x9y8z7' npm start",
            "cd app && export SOME_SECRET_KEY=\"[REDACTED:env-secret]\" && MY_APP_CREDENTIALS='[REDACTED:env-secret]' npm start",
        ),
        hit("env-secret", "GH_TOKEN = abcd1234", "GH_TOKEN = [REDACTED:env-secret]"),
        hit(
            "env-secret",
            "MAPBOX_KEY=a1b2c3d4e5f6g7 SECRET_KEY_BASE=f00dcafe",
            "MAPBOX_KEY=[REDACTED:env-secret] SECRET_KEY_BASE=[REDACTED:env-secret]",
        ),
        miss(
            "env-secret",
            "const STORAGE_KEY = 'reflect-filters'; const TOKEN_STORAGE_KEY = \"jwt_auth_token\";",
        ),
        miss("env-secret", "TOKEN_URL=https://x.test/t PASSWORD_FILE=secrets.txt SECRET_KEY_BASE_DUMMY=1"),
        miss("env-secret", "BYPASS_CACHE=1 MONKEY_PATCH=yes NODE_ENV=production"),
        miss("env-secret", "API_KEY= and API_KEY=${API_KEY} in .env.example"),
        miss("env-secret", "SSH_KEY_PATH=~/.ssh/id_ed25519"),
        hit(
            "secret-assignment",
            "psql password=hunter2 host=db",
            "psql password=[REDACTED:secret-assignment] host=db",
        ),
        hit(
            "secret-assignment",
            "{\"api_key\": \"abc123xyz\", \"apikey\":\"q\", \"name\": \"x\"}",
            "{\"api_key\": \"[REDACTED:secret-assignment]\", \"apikey\":\"[REDACTED:secret-assignment]\", \"name\": \"x\"}",
        ),
        hit(
            "secret-assignment",
            "db:\n  password: swordfish\n  user: app\n",
            "db:\n  password: [REDACTED:secret-assignment]\n  user: app\n",
        ),
        hit(
            "secret-assignment",
            "login with token: a1b2c3d4e5f6 failed; passwd='pa ss'; client_secret: 'xyz'",
            "login with token: [REDACTED:secret-assignment] failed; passwd='[REDACTED:secret-assignment]'; client_secret: '[REDACTED:secret-assignment]'",
        ),
        hit(
            "secret-assignment",
            "GET /cb?access_token=abc123&state=1",
            "GET /cb?access_token=[REDACTED:secret-assignment]&state=1",
        ),
        miss("secret-assignment", "the password field is validated; rotate the token weekly"),
        miss("secret-assignment", "password= and password=${PASSWORD} and password: <your-password>"),
        miss("secret-assignment", "max_tokens=100 token_count: 5 \"input_tokens\": 12"),
        miss("secret-assignment", "if password == confirm: pass"),
        miss("secret-assignment", "Error: invalid token: signature mismatch"),
        miss("secret-assignment", "token = os.environ[\"TOKEN\"]; password = self.password; token = get_token()"),
        miss(
            "secret-assignment",
            "u.withCredentials=!0; interface R { token: string; refresh_token: string; }",
        ),
        miss(
            "secret-assignment",
            "fetch(u, { credentials: \"include\" }) and \"jsonwebtoken\": \"^9.0.2\"",
        ),
        miss("secret-assignment", "permissions:\n  id-token: write\n"),
        miss(
            "secret-assignment",
            "this.accessToken = accessToken;\nconst token = await getAuthToken();\n\"X-Api-Key\": apiKey,",
        ),
        miss("ordinary", "/home/dev/.config/app/secrets/credentials.json"),
        miss("ordinary", "git show 9fceb02d0ae598e95dc970b74767f19372d61af8"),
        miss("ordinary", "session 3f9394bc-4c1d-4b7e-9a2c-0c0c4e1f2a3b"),
        miss(
            "ordinary",
            "const png = \"iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNkYPhfDwAChwGA60e6kgAAAABJRU5ErkJggg==\";",
        ),
        miss("ordinary", "{\"tool_use_id\":\"toolu_01ABCdefGHIjklMNOpqrSTUv\",\"is_error\":true}"),
        miss("ordinary", "Tests: 5 passed, 1 failed. PASS src/a.test.js KeyError: 'token'"),
    ];

    #[test]
    fn every_kind_has_a_redacted_sample_and_a_near_miss() {
        for kind in KINDS {
            assert!(
                CASES
                    .iter()
                    .any(|c| c.kind == *kind && c.expected.is_some()),
                "{kind}: no sample"
            );
            assert!(
                CASES
                    .iter()
                    .any(|c| c.kind == *kind && c.expected.is_none()),
                "{kind}: no near-miss"
            );
        }
        let kinds: Vec<&str> = RULES.iter().map(|r| r.kind).collect();
        assert_eq!(kinds, KINDS);
    }

    #[test]
    fn samples_are_redacted_exactly_and_near_misses_left_alone() {
        let mut failures = Vec::new();
        for case in CASES {
            let got = redact(case.input);
            let want = case.expected.unwrap_or(case.input);
            if got != want {
                failures.push(format!(
                    "{}:\n  input {:?}\n  want  {:?}\n  got   {:?}",
                    case.kind, case.input, want, got
                ));
            }
            if let Some(expected) = case.expected {
                assert!(
                    expected.contains(&placeholder(case.kind)),
                    "{}: the expectation must show its own placeholder",
                    case.kind
                );
            } else {
                if !matches!(got, Cow::Borrowed(_)) {
                    failures.push(format!(
                        "{}: {:?} must come back borrowed",
                        case.kind, case.input
                    ));
                }
            }
        }
        assert!(failures.is_empty(), "{}", failures.join("\n"));
    }

    #[test]
    fn redacting_twice_changes_nothing_more() {
        for case in CASES {
            let once = redact(case.input).into_owned();
            assert_eq!(redact(&once), once.as_str(), "{}", case.kind);
        }
    }

    #[test]
    fn private_spans_are_dropped() {
        assert_eq!(
            redact("keep <private>my salary is 1</private> this"),
            "keep  this"
        );
        assert_eq!(redact("a<private>\nline 1\nline 2\n</private>b"), "ab");
        assert_eq!(
            redact("a <private>x</private> b <PRIVATE>y</Private> c <private>z</private>"),
            "a  b  c "
        );
        assert_eq!(
            redact("before <private>never closed\nstill private"),
            "before "
        );
        assert_eq!(
            redact("</private> stray close and <privateer> stay"),
            "</private> stray close and <privateer> stay"
        );
    }

    #[test]
    fn a_secret_inside_a_private_span_goes_with_it_and_one_outside_is_redacted() {
        let text = concat!(
            "<private>ghp_",
            "aB3dE6gH9jK2mN5pQ8sT1vW4yZ7bC0eF2hJ5</private> password=hunter2"
        );
        assert_eq!(redact(text), " password=[REDACTED:secret-assignment]");
    }

    #[test]
    fn signal_fields_are_redacted_and_secret_named_keys_replaced_whole() {
        let mut sig = Signal::new(crate::signal::Kind::Gotcha, "use password=hunter2");
        sig.context = "DATABASE_PASSWORD=hunter2".into();
        sig.category = Some("AKIAIOSFODNN7EXAMPLE".into());
        sig.tags = vec!["api_key=abc123".into(), "plain".into()];
        sig.meta.insert("api_key".into(), Value::from("abc"));
        sig.meta.insert(
            "tool_use_id".into(),
            Value::from("toolu_01ABCdefGHIjklMNOpqrSTUv"),
        );
        sig.meta.insert(
            "nested".into(),
            serde_json::json!({"list": ["token: a1b2c3d4e5f6"]}),
        );
        sig.meta.insert("empty_token".into(), Value::from(""));
        sig.source
            .extra
            .insert("note".into(), Value::from("secret=s3cr3t"));
        sig.extra
            .insert("future".into(), Value::from("<private>gone</private>kept"));
        sig.session_id = Some("password=not-touched".into());
        redact_signal(&mut sig);
        assert_eq!(sig.content, "use password=[REDACTED:secret-assignment]");
        assert_eq!(sig.context, "DATABASE_PASSWORD=[REDACTED:env-secret]");
        assert_eq!(sig.category.as_deref(), Some("[REDACTED:aws-access-key]"));
        assert_eq!(sig.tags, ["api_key=[REDACTED:secret-assignment]", "plain"]);
        assert_eq!(sig.meta["api_key"], "[REDACTED:secret-assignment]");
        assert_eq!(sig.meta["tool_use_id"], "toolu_01ABCdefGHIjklMNOpqrSTUv");
        assert_eq!(
            sig.meta["nested"]["list"][0],
            "token: [REDACTED:secret-assignment]"
        );
        assert_eq!(sig.meta["empty_token"], "");
        assert_eq!(
            sig.source.extra["note"],
            "secret=[REDACTED:secret-assignment]"
        );
        assert_eq!(sig.extra["future"], "kept");
        assert_eq!(sig.session_id.as_deref(), Some("password=not-touched"));
    }

    #[test]
    fn secret_names_in_every_style() {
        for name in [
            "password",
            "dbPassword",
            "api-key",
            "SecretAccessKey",
            "auth_token",
            "GITHUB_TOKEN",
            "SOME_PASS",
        ] {
            assert!(is_secret_name(name), "{name}");
        }
        for name in [
            "tool_use_id",
            "max_tokens",
            "bypass",
            "monkey",
            "keyboard",
            "promoted_content",
            "seen",
        ] {
            assert!(!is_secret_name(name), "{name}");
        }
    }

    #[test]
    fn text_without_triggers_compiles_no_regex() {
        let text =
            "Exit code 1\nnpm ERR! missing script: test\n5 passed, 1 failed at src/app.ts:12:5";
        let probe = Probe::new(text);
        let due: Vec<&str> = RULES
            .iter()
            .filter(|r| (r.may_match)(&probe))
            .map(|r| r.kind)
            .collect();
        assert!(due.is_empty(), "{due:?}");
        assert!(matches!(redact(text), Cow::Borrowed(_)));
    }
}
