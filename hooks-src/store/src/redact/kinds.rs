//! The hand-written rules ([`super::KINDS`]): the shapes that need care (keys in assignments,
//! flags, URLs, headers, PEM blocks) and the commonest tokens, each a cheap pre-check on a
//! [`Probe`] of the text and a byte scan ([`Rule`]).

use std::cell::OnceCell;
use std::ops::Range;
use std::sync::LazyLock;

use memchr::memmem;

use super::flags;
use super::names::{env_name, EnvName, SECRET_WORDS};
use super::scan::{
    boundary_before, is_blank, is_word, ordered, run, run_back, separated, shell_expansion_len,
    text_of, value_at,
};
use super::value::{
    credential_like, is_code, is_path, is_placeholder, random_looking, MIN_BARE_SECRET,
};

/// The text the pre-checks look at, with its ASCII-lowercase copy made on first use.
///
/// It also knows which byte values occur in the text (one pass): a needle with a byte the text
/// lacks cannot occur in it, so most of the pre-checks' ~45 substring searches on a text with
/// nothing secret-looking are skipped without a search.
pub(super) struct Probe<'a> {
    pub(super) text: &'a str,
    pub(super) lower: OnceCell<String>,
    pub(super) bytes: ByteSet,
}

/// Which of the 256 byte values occur in a text.
#[derive(Clone, Copy, PartialEq, Debug)]
pub(super) struct ByteSet(pub(super) [u64; 4]);

impl ByteSet {
    pub(super) fn of(text: &[u8]) -> ByteSet {
        // A flag a byte value: independent stores, where or-ing bits into four words makes
        // every byte wait for the one before (a 4 KB error took 5 µs, now about 1).
        let mut seen = [false; 256];
        for &b in text {
            seen[usize::from(b)] = true;
        }
        let mut set = [0u64; 4];
        for (b, _) in seen.iter().enumerate().filter(|(_, &s)| s) {
            set[b >> 6] |= 1 << (b & 63);
        }
        ByteSet(set)
    }

    /// The set of the text's ASCII-lowercase copy: `A`..=`Z` (bits 1..=26 of the second word)
    /// become `a`..=`z` (bits 33..=58), nothing else changes.
    pub(super) fn ascii_lowercase(self) -> ByteSet {
        const UPPER: u64 = ((1 << 26) - 1) << 1;
        let [a, b, c, d] = self.0;
        ByteSet([a, (b & !UPPER) | ((b & UPPER) << 32), c, d])
    }

    fn contains(self, b: u8) -> bool {
        self.0[usize::from(b >> 6)] & (1 << (b & 63)) != 0
    }

    /// Every byte of `needle` occurs (a necessary condition for `needle` to occur).
    fn may_hold(self, needle: &[u8]) -> bool {
        needle.iter().all(|&b| self.contains(b))
    }
}

impl<'a> Probe<'a> {
    pub(super) fn new(text: &'a str) -> Probe<'a> {
        Probe {
            text,
            lower: OnceCell::new(),
            bytes: ByteSet::of(text.as_bytes()),
        }
    }

    pub(super) fn has(&self, needle: &memmem::Finder) -> bool {
        self.bytes.may_hold(needle.needle()) && needle.find(self.text.as_bytes()).is_some()
    }

    fn has_any(&self, needles: &[&memmem::Finder]) -> bool {
        needles.iter().any(|n| self.has(n))
    }

    fn lower(&self) -> &str {
        self.lower.get_or_init(|| self.text.to_ascii_lowercase())
    }

    /// Whether the lowercase copy may hold `needle` (no copy is made to tell).
    fn lower_may_hold(&self, needle: &[u8]) -> bool {
        self.bytes.ascii_lowercase().may_hold(needle)
    }

    pub(super) fn lower_has(&self, needle: &memmem::Finder) -> bool {
        self.lower_may_hold(needle.needle()) && needle.find(self.lower().as_bytes()).is_some()
    }
}

/// A substring searcher built on first use: building one costs more than searching a short
/// text with it, and every redacted string is searched for every trigger.
macro_rules! finder {
    ($needle:literal) => {{
        static FINDER: LazyLock<memmem::Finder<'static>> =
            LazyLock::new(|| memmem::Finder::new($needle));
        &*FINDER
    }};
}

/// One searcher per [`SECRET_WORDS`] entry.
static SECRET_WORD_FINDERS: LazyLock<Vec<memmem::Finder<'static>>> =
    LazyLock::new(|| SECRET_WORDS.iter().map(memmem::Finder::new).collect());

/// One kind of secret: a cheap pre-check, and the scan that finds its secrets once the check
/// fired (their byte ranges, in order, not overlapping).
///
/// The scans are hand-written rather than regexes: compiling the patterns a hit needs cost up to a
/// few milliseconds, more than a hook's whole budget, and these rules fire on common text
/// (`password=`, `Bearer`, `://`). (The data rules link `regex` without its Unicode tables, which
/// cost ~35 page faults at every start, and compile only the rare rule whose keyword occurs.)
pub(super) struct Rule {
    pub(super) kind: &'static str,
    pub(super) may_match: fn(&Probe) -> bool,
    pub(super) scan: fn(&[u8]) -> Vec<Range<usize>>,
}

/// A token with a fixed prefix: `prefix` + at least `min` bytes of `body` (exactly `min` when
/// `exact`), starting at a word boundary; `end_boundary` demands a non-word byte after it.
struct Token {
    prefixes: &'static [&'static str],
    body: fn(u8) -> bool,
    min: usize,
    exact: bool,
    end_boundary: bool,
}

fn alnum(b: u8) -> bool {
    b.is_ascii_alphanumeric()
}

fn alnum_dash(b: u8) -> bool {
    b.is_ascii_alphanumeric() || matches!(b, b'_' | b'-')
}

fn upper_digit(b: u8) -> bool {
    b.is_ascii_uppercase() || b.is_ascii_digit()
}

/// Every token of `spec` in `text` that `accept` (given the whole token) agrees with.
fn tokens(text: &[u8], spec: &Token, accept: fn(&[u8]) -> bool) -> Vec<Range<usize>> {
    let mut found = Vec::new();
    for prefix in spec.prefixes {
        for at in memmem::find_iter(text, prefix.as_bytes()) {
            if !separated(text, at) {
                continue;
            }
            let body_at = at + prefix.len();
            let len = run(text, body_at, spec.body);
            let len = match (spec.exact, len >= spec.min) {
                (_, false) => continue,
                (true, true) => spec.min,
                (false, true) => len,
            };
            let end = body_at + len;
            if spec.end_boundary && text.get(end).is_some_and(|&b| is_word(b)) {
                continue;
            }
            if accept(&text[at..end]) {
                found.push(at..end);
            }
        }
    }
    ordered(found)
}

fn any_token(_: &[u8]) -> bool {
    true
}

/// `-----BEGIN … PRIVATE KEY-----` through its `-----END … PRIVATE KEY-----`, or to the end of
/// the text when the end is missing (a cut key is still a key).
fn private_keys(text: &[u8]) -> Vec<Range<usize>> {
    // `[ A-Z0-9]*` then `PRIVATE KEY` or `PRIVATE KEY BLOCK`, then `-----`; the end of the label.
    let label_end = |from: usize| {
        let end = from + run(text, from, |b| b == b' ' || upper_digit(b));
        let label = &text[from..end];
        let ok = (label.ends_with(b"PRIVATE KEY") || label.ends_with(b"PRIVATE KEY BLOCK"))
            && text[end..].starts_with(b"-----");
        ok.then_some(end + 5)
    };
    let mut found = Vec::new();
    for at in memmem::find_iter(text, b"-----BEGIN") {
        let Some(body) = label_end(at + 10) else {
            continue;
        };
        let end = memmem::find_iter(&text[body..], b"-----END")
            .find_map(|e| label_end(body + e + 8))
            .unwrap_or(text.len());
        found.push(at..end);
    }
    ordered(found)
}

/// `eyJ…` header (7+ base64url bytes after `eyJ`), `.`, a payload of 2+, `.`, a signature.
fn jwts(text: &[u8]) -> Vec<Range<usize>> {
    let mut found = Vec::new();
    for at in memmem::find_iter(text, b"eyJ") {
        if !separated(text, at) {
            continue;
        }
        let header = run(text, at + 3, alnum_dash);
        let mut i = at + 3 + header;
        if header < 7 || text.get(i) != Some(&b'.') {
            continue;
        }
        let payload = run(text, i + 1, alnum_dash);
        i += 1 + payload;
        if payload < 2 || text.get(i) != Some(&b'.') {
            continue;
        }
        i += 1 + run(text, i + 1, alnum_dash);
        found.push(at..i);
    }
    ordered(found)
}

/// `[https://]hooks.slack.com/{services,workflows,triggers}/T…/…/…`, the whole URL.
fn slack_webhooks(text: &[u8]) -> Vec<Range<usize>> {
    let mut found = Vec::new();
    for at in memmem::find_iter(text, b"hooks.slack.com/") {
        let start = ["https://", "http://"]
            .iter()
            .find(|s| text[..at].ends_with(s.as_bytes()))
            .map_or(at, |s| at - s.len());
        let mut i = at + 16;
        let Some(kind) = ["services/", "workflows/", "triggers/"]
            .iter()
            .find(|k| text[i..].starts_with(k.as_bytes()))
        else {
            continue;
        };
        i += kind.len();
        if text.get(i) != Some(&b'T') {
            continue;
        }
        let team = run(text, i + 1, upper_digit);
        i += 1 + team;
        if team < 6 || text.get(i) != Some(&b'/') {
            continue;
        }
        let channel = run(text, i + 1, upper_digit);
        i += 1 + channel;
        if channel < 6 || text.get(i) != Some(&b'/') {
            continue;
        }
        let secret = run(text, i + 1, alnum);
        if secret < 12 {
            continue;
        }
        found.push(start..i + 1 + secret);
    }
    ordered(found)
}

/// The password of `scheme://user:password@host`: up to the last `@` of the authority. A
/// password may hold a `/`, `?` or `#` its user did not encode (`redis://u:pa#ss@host`): when no
/// `@` comes before the first of them and what follows `user:` is not a port, the password runs
/// to the first `@` that a host name follows.
fn url_passwords(text: &[u8]) -> Vec<Range<usize>> {
    let mut found = Vec::new();
    for at in memmem::find_iter(text, b"://") {
        let scheme = run_back(text, at, |b| {
            b.is_ascii_alphanumeric() || b"+.-".contains(&b)
        });
        let has_scheme =
            (at - scheme..at).any(|p| text[p].is_ascii_alphabetic() && separated(text, p));
        if !has_scheme {
            continue;
        }
        let user_at = at + 3;
        // A user written as a shell expansion (`${DB_USER:-app}`) holds a `:` of its own.
        let expansion = shell_expansion_len(text, user_at);
        let user = expansion
            + run(text, user_at + expansion, |b| {
                !(b.is_ascii_whitespace() || b":/?#@\"'<>[]".contains(&b))
            });
        // The user may be empty (`redis://:password@host`).
        if text.get(user_at + user) != Some(&b':') {
            continue;
        }
        let pass_at = user_at + user + 1;
        let region = run(text, pass_at, |b| {
            !(b.is_ascii_whitespace() || b"/?#\"'<>".contains(&b))
        });
        let end = match memchr::memrchr(b'@', &text[pass_at..pass_at + region]) {
            Some(last_at) => pass_at + last_at,
            None if region > 0
                && text[pass_at..pass_at + region]
                    .iter()
                    .all(u8::is_ascii_digit) =>
            {
                continue;
            }
            None => match unencoded_password_end(text, pass_at) {
                Some(end) => end,
                None => continue,
            },
        };
        let password = pass_at..end;
        if end > pass_at && !is_placeholder(text_of(&text[password.clone()])) {
            found.push(password);
        }
    }
    ordered(found)
}

/// Where a password holding `/`, `?` or `#` ends: at the first `@` (before any blank or quote)
/// followed by a host name and then the end of the authority.
fn unencoded_password_end(text: &[u8], pass_at: usize) -> Option<usize> {
    let wide = run(text, pass_at, |b| {
        !(b.is_ascii_whitespace() || b"\"'<>".contains(&b))
    });
    let rest = &text[pass_at..pass_at + wide];
    memchr::memchr_iter(b'@', rest).find_map(|at| {
        let host = run(rest, at + 1, |b| {
            b.is_ascii_alphanumeric() || b".-_".contains(&b)
        });
        let ends = rest.get(at + 1 + host).is_none_or(|b| b":/?#".contains(b));
        (host > 0 && ends).then_some(pass_at + at)
    })
}

/// The 40-character value of `[aws_]secret_access_key` (any case, `_` optional) `=` or `:`.
fn aws_secret_keys(text: &[u8]) -> Vec<Range<usize>> {
    let lower = text.to_ascii_lowercase();
    let mut found = Vec::new();
    for at in memmem::find_iter(&lower, b"secret") {
        let aws_before = ["aws_", "aws"]
            .iter()
            .any(|p| lower[..at].ends_with(p.as_bytes()) && boundary_before(text, at - p.len()));
        if !boundary_before(text, at) && !aws_before {
            continue;
        }
        let mut i = at + 6;
        for part in ["access", "key"] {
            i += usize::from(lower.get(i) == Some(&b'_'));
            if !lower[i..].starts_with(part.as_bytes()) {
                i = usize::MAX;
                break;
            }
            i += part.len();
        }
        if i == usize::MAX {
            continue;
        }
        i += usize::from(matches!(text.get(i), Some(b'"' | b'\'')));
        i += run(text, i, |b| b.is_ascii_whitespace());
        if !matches!(text.get(i), Some(b':' | b'=')) {
            continue;
        }
        i += 1 + run(text, i + 1, |b| b.is_ascii_whitespace());
        i += usize::from(matches!(text.get(i), Some(b'"' | b'\'')));
        let len = run(text, i, |b| {
            b.is_ascii_alphanumeric() || b == b'/' || b == b'+'
        });
        if len == 40 && text.get(i + 40) != Some(&b'=') {
            found.push(i..i + 40);
        }
    }
    ordered(found)
}

/// Whether `authorization`, a separator and an optional quote stand right before `at`.
fn after_authorization(text: &[u8], lower: &[u8], at: usize) -> bool {
    let ws = |b: u8| b.is_ascii_whitespace();
    let mut j = at - run_back(text, at, ws);
    if j > 0 && matches!(text[j - 1], b'"' | b'\'') {
        j -= 1;
    }
    j -= run_back(text, j, ws);
    if j == 0 || !matches!(text[j - 1], b':' | b'=') {
        return false;
    }
    j -= 1;
    j -= run_back(text, j, ws);
    lower[..j].ends_with(b"authorization") && separated(text, j - 13)
}

fn token68(b: u8) -> bool {
    b.is_ascii_alphanumeric() || b"._~+/-".contains(&b)
}

/// The token after `Bearer`: any length after an `Authorization` header, otherwise only what
/// looks generated (`a Bearer token` is prose).
fn bearer_tokens(text: &[u8]) -> Vec<Range<usize>> {
    let lower = text.to_ascii_lowercase();
    let mut found = Vec::new();
    for at in memmem::find_iter(&lower, b"bearer") {
        if !boundary_before(text, at) {
            continue;
        }
        let blank = run(text, at + 6, |b| b.is_ascii_whitespace());
        let start = at + 6 + blank;
        let len = run(text, start, token68);
        if blank == 0 || len == 0 {
            continue;
        }
        let end = start + len + run(text, start + len, |b| b == b'=');
        let token = &text[start..end];
        let digits = token.iter().any(u8::is_ascii_digit);
        let ok = if after_authorization(text, &lower, at) {
            token.len() >= 6
        } else {
            (token.len() >= 16 && digits) || token.len() >= 24
        };
        if ok && !is_placeholder(text_of(token)) {
            found.push(start..end);
        }
    }
    ordered(found)
}

/// The credentials of `Authorization: Basic <base64>`.
fn basic_auths(text: &[u8]) -> Vec<Range<usize>> {
    let lower = text.to_ascii_lowercase();
    let mut found = Vec::new();
    for at in memmem::find_iter(&lower, b"basic") {
        if !boundary_before(text, at) || !after_authorization(text, &lower, at) {
            continue;
        }
        let blank = run(text, at + 5, |b| b.is_ascii_whitespace());
        let start = at + 5 + blank;
        let len = run(text, start, |b| {
            b.is_ascii_alphanumeric() || b == b'+' || b == b'/'
        });
        if blank == 0 || len < 6 {
            continue;
        }
        found.push(start..start + len + run(text, start + len, |b| b == b'='));
    }
    ordered(found)
}

/// `NAME=value` where `NAME` is an `UPPER_SNAKE` secret name (see [`env_name`]).
fn env_secrets(text: &[u8]) -> Vec<Range<usize>> {
    let mut found = Vec::new();
    for eq in memchr::memchr_iter(b'=', text) {
        let before = run_back(text, eq, is_blank);
        let name_end = eq - before;
        let name_start = name_end - run_back(text, name_end, |b| upper_digit(b) || b == b'_');
        // `x_DB_PASSWORD=`: the name starts after the `_`s.
        let name_start = name_start + run(&text[..name_end], name_start, |b| b == b'_');
        if name_start == name_end
            || !text[name_start].is_ascii_uppercase()
            || !separated(text, name_start)
        {
            continue;
        }
        let after = run(text, eq + 1, is_blank);
        let Some((value, quoted)) = value_at(text, eq + 1 + after) else {
            continue;
        };
        let rhs = Rhs {
            value: text_of(&text[value.clone()]),
            quoted,
            sep: b'=',
            blank_before_sep: before > 0,
            blank_after_sep: after > 0,
            key_starts_line: false,
        };
        let secret = rhs_is_secret(&rhs)
            && match env_name(text_of(&text[name_start..name_end])) {
                EnvName::Secret => true,
                EnvName::MaybeKey => credential_like(rhs.value),
                EnvName::Other => false,
            };
        if secret {
            found.push(value);
        }
    }
    ordered(found)
}

/// The right-hand side of an assignment to a secret-named key, and what surrounds it.
struct Rhs<'h> {
    value: &'h str,
    quoted: bool,
    sep: u8,
    blank_before_sep: bool,
    blank_after_sep: bool,
    /// The key starts its line (YAML), as opposed to sitting in prose.
    key_starts_line: bool,
}

/// Whether the value is worth redacting.
fn rhs_is_secret(rhs: &Rhs) -> bool {
    let value = rhs.value;
    if is_placeholder(value) || is_path(value) {
        return false;
    }
    if rhs.quoted {
        return true;
    }
    if value.len() < MIN_BARE_SECRET || is_code(value) {
        return false;
    }
    // `KEY= cmd` assigns nothing (the shell runs `cmd`); `KEY = value` is a spaced assignment.
    if rhs.sep == b'=' && !rhs.blank_before_sep && rhs.blank_after_sep {
        return false;
    }
    // `key: value` in prose ("invalid token: expired") is not a secret; in YAML (the key starts
    // the line) it is, and so is anything that looks generated.
    rhs.sep != b':' || rhs.key_starts_line || credential_like(value)
}

/// `secret-assignment`, scanned by hand: each secret word in the lowercased text that ends a key
/// (`[A-Za-z0-9_.-]*word`) followed by an optional quote, blanks, `=` or `:`, blanks and a value
/// (`"…"`, `'…'` or bare).
fn secret_assignments(text: &[u8]) -> Vec<Range<usize>> {
    let lower = text.to_ascii_lowercase();
    let found = SECRET_WORD_FINDERS
        .iter()
        .flat_map(|word| {
            let len = word.needle().len();
            word.find_iter(&lower)
                .filter_map(|at| assignment_after(text, at, at + len))
                .collect::<Vec<_>>()
        })
        .collect();
    ordered(found)
}

/// The secret value of the assignment whose key ends with the word at `word..key_end`, if any.
fn assignment_after(text: &[u8], word: usize, key_end: usize) -> Option<Range<usize>> {
    let blanks = |from: usize| {
        text[from..]
            .iter()
            .take_while(|b| matches!(b, b' ' | b'\t'))
            .count()
    };
    let key_start = word
        - text[..word]
            .iter()
            .rev()
            .take_while(|b| b.is_ascii_alphanumeric() || matches!(b, b'_' | b'.' | b'-'))
            .count();
    let mut i = key_end;
    let closing = text.get(i).copied().filter(|b| matches!(b, b'"' | b'\''));
    i += usize::from(closing.is_some());
    let before = blanks(i);
    i += before;
    let sep = match *text.get(i)? {
        sep @ (b':' | b'=') => sep,
        b',' if closing.is_some_and(|q| opens_call(text, key_start, q)) => {
            let at = i + 1 + blanks(i + 1);
            return call_argument(text, at);
        }
        _ => return None,
    };
    i += 1;
    let after = blanks(i);
    i += after;
    let (value, quoted) = value_at(text, i)?;
    let rhs = Rhs {
        value: std::str::from_utf8(&text[value.clone()]).ok()?,
        quoted,
        sep,
        blank_before_sep: before > 0,
        blank_after_sep: after > 0,
        key_starts_line: starts_line(text, key_start),
    };
    rhs_is_secret(&rhs).then_some(value)
}

/// Whether the key at `key_start` is a string, quoted with `quote`, that opens a call's
/// arguments: `define('DB_PASSWORD', …)`, `setenv("API_TOKEN", …)`.
fn opens_call(text: &[u8], key_start: usize, quote: u8) -> bool {
    let Some(open) = key_start.checked_sub(1).filter(|&q| text[q] == quote) else {
        return false;
    };
    let before = open - run_back(text, open, is_blank);
    before > 0 && text[before - 1] == b'('
}

/// The secret in the argument at `at` after a secret-named one: a quoted string that is not a
/// placeholder or a label (`'Your password'`), or a bare run that looks generated (a
/// `define()` whose quotes a shell ate: the value runs to the blank, since such keys hold `)`
/// and `;`).
fn call_argument(text: &[u8], at: usize) -> Option<Range<usize>> {
    if let Some((value, true)) = value_at(text, at) {
        let v = text_of(&text[value.clone()]);
        return (!is_placeholder(v) && !v.contains(' ')).then_some(value);
    }
    let mut end = at + run(text, at, |b| !b.is_ascii_whitespace());
    end -= run_back(&text[..end], end, |b| b == b';');
    let opened = text[at..end].iter().filter(|&&b| b == b'(').count();
    let mut closed = text[at..end].iter().filter(|&&b| b == b')').count();
    while closed > opened && end > at && text[end - 1] == b')' {
        end -= 1;
        closed -= 1;
    }
    let v = text_of(&text[at..end]);
    (credential_like(v) && !is_placeholder(v)).then_some(at..end)
}

/// Whether only blanks, an optional `- ` list marker and an optional quote stand between the
/// start of the line and `at`.
fn starts_line(text: &[u8], at: usize) -> bool {
    let blanks_back = |to: usize| {
        text[..to]
            .iter()
            .rev()
            .take_while(|b| matches!(b, b' ' | b'\t'))
            .count()
    };
    let line_start = |at: usize| at == 0 || text[at - 1] == b'\n';
    let mut at = at;
    if at > 0 && matches!(text[at - 1], b'"' | b'\'') {
        at -= 1;
    }
    let blank = blanks_back(at);
    let start = at - blank;
    if line_start(start) {
        return true;
    }
    blank > 0 && text[start - 1] == b'-' && line_start(start - 1 - blanks_back(start - 1))
}

/// Pre-check for `secret-assignment`: some secret word directly followed by an optional quote,
/// blanks and `=` or `:`, or by a quote, blanks and `,` (a call's first argument).
fn has_secret_assignment(p: &Probe) -> bool {
    if ![b'=', b':', b','].iter().any(|&b| p.bytes.contains(b)) {
        return false;
    }
    SECRET_WORD_FINDERS.iter().any(|word| {
        if !p.lower_may_hold(word.needle()) {
            return false;
        }
        let lower = p.lower().as_bytes();
        word.find_iter(lower).any(|at| {
            let rest = &lower[at + word.needle().len()..];
            let unquoted = rest.strip_prefix(b"\"").or(rest.strip_prefix(b"'"));
            let quoted = unquoted.is_some();
            let rest = unquoted.unwrap_or(rest);
            let skip = rest
                .iter()
                .take_while(|b| matches!(b, b' ' | b'\t'))
                .count();
            match rest.get(skip) {
                Some(b':' | b'=') => true,
                Some(b',') => quoted,
                _ => false,
            }
        })
    })
}

/// Pre-check for `env-secret`: some `=` right after an `UPPER_SNAKE` secret name.
fn has_env_secret(p: &Probe) -> bool {
    if !p.bytes.contains(b'=') {
        return false;
    }
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

/// Pre-check for `url-password`: a `scheme://` followed by a `:` and then an `@`.
fn has_url_password(p: &Probe) -> bool {
    if !p.bytes.may_hold(b"://") {
        return false;
    }
    let bytes = p.text.as_bytes();
    finder!("://").find_iter(bytes).any(|at| {
        // Up to a blank or a quote, not the first `/`: a password may hold one (see
        // `url_passwords`).
        let authority = &bytes[at + 3..];
        let end = authority
            .iter()
            .position(|b| matches!(b, b'"' | b'\'' | b'<' | b'>') || b.is_ascii_whitespace())
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

fn alnum_hyphen(b: u8) -> bool {
    b.is_ascii_alphanumeric() || b == b'-'
}

pub(super) static RULES: [Rule; 20] = [
    Rule {
        kind: "private-key",
        may_match: |p| p.has(finder!("PRIVATE KEY")),
        scan: private_keys,
    },
    Rule {
        kind: "jwt",
        may_match: |p| p.has(finder!("eyJ")),
        scan: jwts,
    },
    Rule {
        kind: "slack-webhook",
        may_match: |p| p.has(finder!("hooks.slack.com/")),
        scan: slack_webhooks,
    },
    Rule {
        kind: "url-password",
        may_match: has_url_password,
        scan: url_passwords,
    },
    Rule {
        kind: "anthropic-key",
        may_match: |p| p.has(finder!("sk-ant-")),
        scan: |t| {
            let spec = Token {
                prefixes: &["sk-ant-"],
                body: alnum_dash,
                min: 20,
                exact: false,
                end_boundary: false,
            };
            tokens(t, &spec, any_token)
        },
    },
    Rule {
        kind: "openai-key",
        may_match: |p| p.has(finder!("sk-")),
        scan: |t| {
            let spec = Token {
                prefixes: &["sk-"],
                body: alnum_dash,
                min: 20,
                exact: false,
                end_boundary: false,
            };
            tokens(t, &spec, |token| {
                let body = &token[3..];
                let short = ["proj-", "svcacct-", "admin-"]
                    .iter()
                    .find_map(|p| body.strip_prefix(p.as_bytes()))
                    .filter(|rest| rest.len() >= 20);
                random_looking(text_of(short.unwrap_or(body)))
            })
        },
    },
    Rule {
        kind: "github-token",
        may_match: |p| {
            p.has_any(&[
                finder!("ghp_"),
                finder!("gho_"),
                finder!("ghu_"),
                finder!("ghs_"),
                finder!("ghr_"),
                finder!("github_pat_"),
            ])
        },
        scan: |t| {
            let classic = Token {
                prefixes: &["ghp_", "gho_", "ghu_", "ghs_", "ghr_"],
                body: alnum,
                min: 30,
                exact: false,
                end_boundary: false,
            };
            let fine_grained = Token {
                prefixes: &["github_pat_"],
                body: is_word,
                ..classic
            };
            let mut found = tokens(t, &classic, any_token);
            found.extend(tokens(t, &fine_grained, any_token));
            ordered(found)
        },
    },
    Rule {
        kind: "gitlab-token",
        may_match: |p| p.has(finder!("glpat-")),
        scan: |t| {
            let spec = Token {
                prefixes: &["glpat-"],
                body: alnum_dash,
                min: 20,
                exact: false,
                end_boundary: false,
            };
            tokens(t, &spec, any_token)
        },
    },
    Rule {
        kind: "slack-token",
        may_match: |p| p.has(finder!("xox")),
        scan: |t| {
            let spec = Token {
                prefixes: &["xoxa-", "xoxb-", "xoxp-", "xoxr-", "xoxs-"],
                body: alnum_hyphen,
                min: 10,
                exact: false,
                end_boundary: false,
            };
            // `xoxb-your-token-here` is a placeholder: real tokens carry digits.
            tokens(t, &spec, |token| token.iter().any(u8::is_ascii_digit))
        },
    },
    Rule {
        kind: "stripe-key",
        may_match: |p| p.has_any(&[finder!("_live_"), finder!("_test_")]),
        scan: |t| {
            let spec = Token {
                prefixes: &[
                    "sk_live_", "sk_test_", "rk_live_", "rk_test_", "pk_live_", "pk_test_",
                ],
                body: alnum,
                min: 16,
                exact: false,
                end_boundary: false,
            };
            tokens(t, &spec, any_token)
        },
    },
    Rule {
        kind: "google-api-key",
        may_match: |p| p.has(finder!("AIza")),
        scan: |t| {
            let spec = Token {
                prefixes: &["AIza"],
                body: alnum_dash,
                min: 35,
                exact: true,
                end_boundary: false,
            };
            tokens(t, &spec, any_token)
        },
    },
    Rule {
        kind: "npm-token",
        may_match: |p| p.has(finder!("npm_")),
        scan: |t| {
            let spec = Token {
                prefixes: &["npm_"],
                body: alnum,
                min: 36,
                exact: true,
                end_boundary: true,
            };
            tokens(t, &spec, any_token)
        },
    },
    Rule {
        kind: "pypi-token",
        may_match: |p| p.has(finder!("pypi-AgEI")),
        scan: |t| {
            let spec = Token {
                prefixes: &["pypi-AgEI"],
                body: alnum_dash,
                min: 50,
                exact: false,
                end_boundary: false,
            };
            tokens(t, &spec, any_token)
        },
    },
    Rule {
        kind: "aws-access-key",
        may_match: |p| {
            p.has_any(&[
                finder!("AKIA"),
                finder!("ASIA"),
                finder!("ABIA"),
                finder!("ACCA"),
            ])
        },
        scan: |t| {
            let spec = Token {
                prefixes: &["AKIA", "ASIA", "ABIA", "ACCA"],
                body: upper_digit,
                min: 16,
                exact: true,
                end_boundary: true,
            };
            tokens(t, &spec, any_token)
        },
    },
    Rule {
        kind: "aws-secret-key",
        may_match: |p| p.lower_has(finder!("secret")) && p.lower_has(finder!("access")),
        scan: aws_secret_keys,
    },
    Rule {
        kind: "bearer-token",
        may_match: |p| p.lower_has(finder!("bearer")),
        scan: bearer_tokens,
    },
    Rule {
        kind: "basic-auth",
        may_match: |p| p.lower_has(finder!("basic")) && p.lower_has(finder!("authorization")),
        scan: basic_auths,
    },
    Rule {
        kind: "flag-secret",
        may_match: |p| p.bytes.contains(b'-') && flags::has_cue(p.text.as_bytes()),
        scan: flags::flag_secrets,
    },
    Rule {
        kind: "env-secret",
        may_match: has_env_secret,
        scan: env_secrets,
    },
    Rule {
        kind: "secret-assignment",
        may_match: has_secret_assignment,
        scan: secret_assignments,
    },
];
