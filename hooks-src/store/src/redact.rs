//! Secret redaction: what keeps credentials out of everything reflect writes or prints.
//!
//! Every signal passes through [`redact_signal`] inside `Store::append`, so no capture path can
//! store a secret by forgetting to call it; promotion redacts the text it writes into a memory
//! file, and `export` redacts again on the way out (for stores written before a rule existed).
//! A text is redacted before it is cut ([`redact_prefix`]): a cut token no longer matches its
//! rule and would leak its start.
//!
//! Each secret is replaced by `[REDACTED:<kind>]`; for assignments, URLs, headers and
//! command-line flags only the secret part goes, so `DATABASE_PASSWORD=[REDACTED:env-secret]`
//! still says what was set. Four layers find secrets, each on what the one before left, and a
//! fifth when the caller says what the text answered:
//! - the hand-written rules ([`KINDS`], the `kinds` module): the shapes that need care (keys in
//!   assignments, flags, URLs, headers, PEM blocks) and the commonest tokens;
//! - the rule sets kept as data (the `rules` module): gitleaks' maintained rules and reflect's
//!   own in the same format, each kind named by its rule's id (`huggingface-access-token`);
//! - the generic rules (the `generic` module): `prose-secret` ("my token is X", "API키는 X"),
//!   `prose-password` ("the password is swordfish", "my PIN is 4821"), `license-key`,
//!   `key-shaped-token` (a prefix and a random base62 body) and `discord-bot-token`;
//! - the `table` module's `table-password`: the cells of a Markdown table's password column
//!   (`| Role | Email | Password |`), which no word next to them names;
//! - for a prompt, given what the assistant asked before it ([`Asked`], [`redact_after`]), the
//!   `answered-secret` rule (the `answer` module): a password, PIN or token typed as the answer
//!   to a question asking for it ("2. xK9#mq2!vL", "postgres / s3cr3tPass"), which no word in the
//!   answer names. Only capture and the digest have a question to give; no other path pays for
//!   it (a failed tool call's error answers none).
//!
//! `<private>…</private>` spans (any case, across lines; an unclosed one runs to the end of the
//! text) are dropped entirely, tags included.
//!
//! No secret hides behind an encoding: the rules read the text as written and, when it holds
//! escapes, its normalized view too (the `view` module: backslash and percent escapes decoded),
//! and what they find in the view is replaced in the text as written, the escapes it came from
//! included. The stored text stays as it was but for its secrets, and nothing of a secret is
//! kept, encoded or not. A pasted hex dump (`hexdump -C`, `xxd`; the `dump` module) is read
//! from its hex bytes, and each byte of a secret found is masked in both of its columns. An `_`,
//! a literal `\n` or a `%xx` before a token is a separator like a blank. Known secret-bearing
//! command-line flags are redacted by flag (the `flags` module).
//!
//! What is deliberately left alone: empty values and placeholders (`password=`,
//! `password=${PASSWORD}`, `<your-password>`, `{{ token }}`, `****`, `null`), because they are not
//! secrets and a learning such as "put `API_KEY=${API_KEY}` in .env.example" must stay readable;
//! code on the right of an assignment (`token = os.environ["TOKEN"]`, `password = self.password`,
//! `token = get_token()`); prose (`the password field is validated`, `invalid token: expired`);
//! file paths, commit hashes, UUIDs and base64 that no rule ties to a credential.
//!
//! Speed: `capture-failure` redacts on every failed tool call and must stay close to the cost
//! of starting a process. Every hand-written rule has a literal pre-check (a substring, or a
//! short scan for `keyword=`) that decides whether it can match at all, and is a byte scan, not
//! a regex (see [`Rule`] for why). The data rules run behind one search for all their keywords
//! and compile a regex only for a rule whose keyword the text holds; the generic rules are byte
//! scans. Text without a trigger costs a few substring searches and comes back as
//! `Cow::Borrowed`; only text holding a `\` or a `%` builds a view, only a line starting like a
//! dump's is parsed as one, and only a `-` that starts a flag-like word runs the flag scan.

use std::borrow::Cow;
use std::ops::Range;

use serde_json::{Map, Value};

use crate::signal::Signal;

mod answer;
mod dump;
mod flags;
mod generic;
mod kinds;
mod names;
mod needles;
mod rules;
mod scan;
mod table;
mod value;
mod view;

pub use answer::{Asked, ASKED_BYTES};
pub(crate) use names::is_secret_name;
pub use value::PLACEHOLDER_PREFIX;

use kinds::{Probe, Rule, RULES};
use value::{is_placeholder, MIN_BARE_SECRET};
use view::View;
/// The kinds of the hand-written rules, in the order they run (a more specific kind first). The
/// data rules' kinds are their ids; the generic rules' are `prose-secret`, `prose-password`,
/// `license-key`, `key-shaped-token` and `discord-bot-token`; the table's, `table-password`;
/// the answer's, `answered-secret`.
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
    "flag-secret",
    "env-secret",
    "secret-assignment",
];

/// `[REDACTED:<kind>]`.
pub fn placeholder(kind: &str) -> String {
    format!("{PLACEHOLDER_PREFIX}{kind}]")
}

/// The last non-blank line of `text`, trimmed, for a quote of what the assistant said last. A
/// table's row comes redacted with its table (only the header above it names a password
/// column, `table-password`); any other line as written, for the caller to redact with the
/// rest of its quote.
pub fn last_line(text: &str) -> Option<Cow<'_, str>> {
    // From the end, lazily: most messages end in a line of prose, read and returned as is.
    let mut lines = text.lines().rev().filter(|l| !l.trim().is_empty());
    let last = lines.next()?.trim();
    if !last.starts_with('|') {
        return Some(Cow::Borrowed(last));
    }
    let above = lines.take_while(|l| l.trim_start().starts_with('|'));
    let mut rows: Vec<&str> = std::iter::once(last).chain(above).collect();
    rows.reverse();
    let table = rows.join("\n");
    let redacted = redact(&table);
    let row = redacted.lines().last().unwrap_or_default().trim();
    Some(Cow::Owned(row.to_string()))
}

/// `text` with `<private>` spans dropped and every secret replaced by its placeholder. Borrowed
/// when nothing changed.
pub fn redact(text: &str) -> Cow<'_, str> {
    redact_after(text, None)
}

/// [`redact`] for a text that answers `asked` (what the assistant asked before a prompt, see
/// [`Asked::of`]): a password, PIN or token typed as the answer is redacted too
/// (`answered-secret`), though no word in the text names it.
pub fn redact_after<'t>(text: &'t str, asked: Option<&Asked>) -> Cow<'t, str> {
    let mut dropped = drop_private(text);
    let found = match dump::find(&dropped, asked) {
        None => find_all(&dropped, asked),
        Some(mut dumps) => {
            if !dumps.secrets.is_empty() {
                dropped = Cow::Owned(dumps.mask(&dropped));
                // Masking a character printed whole shortens its line: find the lines again.
                if let Some(masked) = dump::find(&dropped, asked) {
                    dumps = masked;
                }
            }
            find_all(&dumps.blank(&dropped), asked)
        }
    };
    if found.is_empty() {
        return dropped;
    }
    // A value found once and written again in the same text in a shape no rule knows ("then
    // send X as the header") goes there too, when it looks typed as a secret; a word
    // (`postgres`) would take every mention of it along.
    let again: Vec<(String, &'static str)> = found
        .iter()
        .map(|f| {
            let value = String::from_utf8_lossy(&dropped.as_bytes()[f.span.clone()]);
            (value.into_owned(), f.kind)
        })
        .filter(|(value, _)| value::credential_like(value))
        .collect();
    let out = replace_str(&dropped, found);
    match replace_known(&out, &again) {
        Cow::Borrowed(_) => Cow::Owned(out),
        Cow::Owned(twice) => Cow::Owned(twice),
    }
}

/// [`redact`] for a text printed after one whose secrets were found ([`findings`]): each of
/// those written here again, as is, goes too. A value typed as the answer to a question
/// (`answered-secret`) is a secret only by that question; an answer that repeats it
/// ("I'll set the voice to X") names it with no word a rule knows.
pub fn redact_known<'t>(text: &'t str, known: &[(String, &'static str)]) -> Cow<'t, str> {
    match redact(text) {
        Cow::Borrowed(text) => replace_known(text, known),
        Cow::Owned(out) => Cow::Owned(replace_known(&out, known).into_owned()),
    }
}

/// The `known` secrets written in `text` as is replaced by their marks, never inside a mark:
/// [`redact_known`] for a text already redacted.
pub fn replace_known<'t>(out: &'t str, known: &[(String, &'static str)]) -> Cow<'t, str> {
    let mut secrets: Vec<&(String, &'static str)> = known
        .iter()
        // A placeholder a rule took for a value (`user:password@`) is no secret to hide in
        // prose ("set the password").
        .filter(|(s, _)| {
            s.len() >= MIN_BARE_SECRET && !is_placeholder(s) && out.contains(s.as_str())
        })
        .collect();
    if secrets.is_empty() {
        return Cow::Borrowed(out);
    }
    // Longest first, so a secret that holds another goes whole; each value once.
    secrets.sort_by(|a, b| b.0.len().cmp(&a.0.len()).then_with(|| a.0.cmp(&b.0)));
    secrets.dedup_by(|a, b| a.0 == b.0);
    // Never inside a mark: a secret that is a word of one (`password` in
    // `[REDACTED:url-password]`) would garble it.
    let mut taken = marks(out);
    let mut found: Vec<Found> = Vec::new();
    for (secret, kind) in secrets {
        // A word said again inside a name (`tundra` in `tundra-admin@tundra-host`, a path) is
        // that name: marking it there would spell out the password to anyone who reads the
        // name elsewhere in clear. Only where the word stands alone is it the secret again.
        let word = !value::credential_like(secret);
        for (at, _) in out.match_indices(secret.as_str()) {
            let span = at..at + secret.len();
            if word && inside_name(out, &span) {
                continue;
            }
            if taken
                .iter()
                .all(|t| span.end <= t.start || t.end <= span.start)
            {
                taken.push(span.clone());
                found.push(Found { span, kind });
            }
        }
    }
    if found.is_empty() {
        return Cow::Borrowed(out);
    }
    Cow::Owned(replace_str(out, found))
}

/// Whether `span` of `text` is part of a longer name: a letter, digit or `_` touches it, or a
/// joiner of names (`-`, `.`, `/`, `\`, `@`, `:`) with a letter, digit or `_` beyond it.
fn inside_name(text: &str, span: &Range<usize>) -> bool {
    let name_char = |c: char| c.is_alphanumeric() || c == '_';
    let joiner = |c: char| matches!(c, '-' | '.' | '/' | '\\' | '@' | ':');
    let mut before = text[..span.start].chars().rev();
    let mut after = text[span.end..].chars();
    let touches = |first: Option<char>, second: Option<char>| match first {
        Some(c) if name_char(c) => true,
        Some(c) if joiner(c) => second.is_some_and(name_char),
        _ => false,
    };
    touches(before.next(), before.next()) || touches(after.next(), after.next())
}

/// The `[REDACTED:kind]` marks of `text`.
fn marks(text: &str) -> Vec<Range<usize>> {
    let mut found = Vec::new();
    let mut from = 0;
    while let Some(at) = text[from..].find(PLACEHOLDER_PREFIX) {
        let start = from + at;
        let Some(len) = text[start..].find(']') else {
            break;
        };
        found.push(start..start + len + 1);
        from = start + len + 1;
    }
    found
}

/// What [`redact`] replaces in `text` (its `<private>` spans dropped first): each secret as
/// written, with its kind: to measure the rules (the lab's false-positive report), or to
/// redact what repeats them ([`redact_known`]); to redact, call [`redact`].
pub fn findings(text: &str, asked: Option<&Asked>) -> Vec<(String, &'static str)> {
    let dropped = drop_private(text);
    let (found, in_dumps) = match dump::find(&dropped, asked) {
        None => (find_all(&dropped, asked), Vec::new()),
        Some(dumps) => (find_all(&dumps.blank(&dropped), asked), dumps.secrets),
    };
    let bytes = dropped.as_bytes();
    let as_written = found
        .into_iter()
        .map(|f| (String::from_utf8_lossy(&bytes[f.span]).into_owned(), f.kind));
    in_dumps
        .into_iter()
        .map(|s| (s.text, s.kind))
        .chain(as_written)
        .collect()
}

/// The secrets of `text` and of its normalized view, each as a span of `text`. Both readings
/// count: a secret behind an escape is whole only in the view, one holding an escaped blank or
/// quote (`pass%20word`) only in the text as written.
fn find_all(text: &str, asked: Option<&Asked>) -> Vec<Found> {
    let mut found = find(text, asked);
    if let Some(view) = View::of(text) {
        found.extend(find(&view.text, asked).into_iter().map(|f| Found {
            span: view.source(&f.span),
            kind: f.kind,
        }));
    }
    found
}

/// A secret: the bytes it covers in the text searched, and its kind.
struct Found {
    span: Range<usize>,
    kind: &'static str,
}

/// The secrets of `text`. The rules run in [`KINDS`] order, then the rule sets kept as data (the
/// `rules` module) and the generic rules (the `generic` module), each on the text with what the
/// rules before it found already replaced by placeholders (a redacted token is not read again as
/// a password), and last, for an answer to a question asking for a secret, the `answer` module's
/// rule; where each find lies in `text` is tracked through those replacements.
fn find(text: &str, asked: Option<&Asked>) -> Vec<Found> {
    let probe = Probe::new(text);
    let due: Vec<&Rule> = RULES.iter().filter(|r| (r.may_match)(&probe)).collect();
    drop(probe);
    let mut finds = Finds {
        current: Cow::Borrowed(text.as_bytes()),
        origin: None,
        found: Vec::new(),
    };
    for rule in due {
        let spans = (rule.scan)(&finds.current);
        finds.apply(spans.into_iter().map(|s| (s, rule.kind)).collect());
    }
    let data_due = rules::due(&finds.current);
    if !data_due.is_empty() {
        let spans = rules::find(&finds.current, &data_due);
        finds.apply(ordered_kinds(spans));
    }
    let spans = generic::find(&finds.current);
    finds.apply(ordered_kinds(spans));
    let spans = table::find(&finds.current);
    finds.apply(spans.into_iter().map(|s| (s, "table-password")).collect());
    if let Some(asked) = asked {
        let spans = answer::find(&finds.current, asked);
        finds.apply(spans.into_iter().map(|s| (s, "answered-secret")).collect());
    }
    finds.found
}

/// The text as the rules so far left it, and what they found.
struct Finds<'t> {
    current: Cow<'t, [u8]>,
    /// `origin[i]`: the bytes of the text (start, end) that byte `i` of `current` stands for;
    /// built at the first find, as most texts have none.
    origin: Option<Vec<(usize, usize)>>,
    found: Vec<Found>,
}

impl Finds<'_> {
    /// Record `spans` (in order, not overlapping) and replace them by their placeholders.
    fn apply(&mut self, spans: Vec<(Range<usize>, &'static str)>) {
        if spans.is_empty() {
            return;
        }
        let current = &self.current;
        let from = self
            .origin
            .get_or_insert_with(|| (0..current.len()).map(|i| (i, i + 1)).collect());
        let mut next = Vec::with_capacity(current.len() + spans.len() * 24);
        let mut next_origin = Vec::with_capacity(next.capacity());
        let mut kept = 0;
        for (span, kind) in spans.into_iter().filter(|(s, _)| !s.is_empty()) {
            let placeholder = placeholder(kind);
            next.extend_from_slice(&current[kept..span.start]);
            next_origin.extend_from_slice(&from[kept..span.start]);
            let source = (from[span.start].0, from[span.end - 1].1);
            self.found.push(Found {
                span: source.0..source.1,
                kind,
            });
            next.extend_from_slice(placeholder.as_bytes());
            next_origin.extend(std::iter::repeat_n(source, placeholder.len()));
            kept = span.end;
        }
        next.extend_from_slice(&current[kept..]);
        next_origin.extend_from_slice(&from[kept..]);
        self.current = Cow::Owned(next);
        *from = next_origin;
    }
}

/// Sorted by start (the longer first), and of two overlapping finds the earlier kept.
fn ordered_kinds(
    mut found: Vec<(Range<usize>, &'static str)>,
) -> Vec<(Range<usize>, &'static str)> {
    found.sort_by_key(|(r, _)| (r.start, std::cmp::Reverse(r.end)));
    let mut spans: Vec<(Range<usize>, &'static str)> = Vec::with_capacity(found.len());
    for f in found {
        if spans.last().is_none_or(|(last, _)| f.0.start >= last.end) {
            spans.push(f);
        }
    }
    spans
}

/// `text` with each found secret replaced by its placeholder. Finds that overlap become one: a
/// find that covers the placeholder of an earlier one covers that whole secret, so the outer
/// (the first when sorted by start, longest first) names the kind; of two finds of the same
/// bytes (in the text and in its view), the more specific kind (the earlier in [`KINDS`]).
fn replace(text: &[u8], mut found: Vec<Found>) -> Vec<u8> {
    // The hand-written kinds first, in order; the data and generic kinds after them.
    let rank = |kind: &str| KINDS.iter().position(|k| *k == kind).unwrap_or(KINDS.len());
    found.sort_by_key(|f| (f.span.start, std::cmp::Reverse(f.span.end), rank(f.kind)));
    let mut merged: Vec<Found> = Vec::with_capacity(found.len());
    for f in found {
        match merged.last_mut() {
            Some(last) if f.span.start < last.span.end => {
                last.span.end = last.span.end.max(f.span.end);
            }
            _ => merged.push(f),
        }
    }
    let mut out = Vec::with_capacity(text.len());
    let mut kept = 0;
    for f in merged {
        out.extend_from_slice(&text[kept..f.span.start]);
        out.extend_from_slice(placeholder(f.kind).as_bytes());
        kept = f.span.end;
    }
    out.extend_from_slice(&text[kept..]);
    out
}

/// [`replace`] on a string.
fn replace_str(text: &str, found: Vec<Found>) -> String {
    let out = replace(text.as_bytes(), found);
    // Every secret starts and ends next to an ASCII byte or at an end of the text (a known
    // secret: at a match of the string), so splicing keeps the text valid UTF-8; the lossy
    // path is a guard, not an expected case.
    match String::from_utf8(out) {
        Ok(s) => s,
        Err(e) => String::from_utf8_lossy(e.as_bytes()).into_owned(),
    }
}

/// The first `max_bytes` or so of `text`, redacted: [`redact`] costs time in proportion to its
/// input, and a hook handed a 10 MB error must not pay that. The cut goes back to whitespace,
/// so no secret is split: a cut token would no longer match its rule and would leak its start.
/// A token that straddles the cut is dropped whole, and so is a hex dump.
pub fn redact_prefix(text: &str, max_bytes: usize) -> Cow<'_, str> {
    redact_prefix_after(text, max_bytes, None)
}

/// [`redact_prefix`] for a text that answers `asked` (see [`redact_after`]).
pub fn redact_prefix_after<'t>(
    text: &'t str,
    max_bytes: usize,
    asked: Option<&Asked>,
) -> Cow<'t, str> {
    if text.len() <= max_bytes {
        return redact_after(text, asked);
    }
    let mut end = max_bytes;
    while !text.is_char_boundary(end) {
        end -= 1;
    }
    let head = &text[..end];
    let cut = dump::cut_before(head, head.rfind(char::is_whitespace).unwrap_or(0));
    let mut out = redact_after(&text[..cut], asked).into_owned();
    if !out.is_empty() {
        out.push(' ');
    }
    out.push_str("[truncated]");
    Cow::Owned(out)
}

/// Redact every free-text part of a signal: content, context, category, tags, and every string
/// in `meta`, `source` and unknown fields (a string under a secret-looking key such as
/// `"api_key"` is replaced whole). Ids, timestamps, session ids and paths are left as they are.
pub fn redact_signal(sig: &mut Signal) {
    redact_in_place(&mut sig.content);
    redact_in_place(&mut sig.context);
    if let Some(resolution) = &mut sig.resolution {
        redact_in_place(resolution);
    }
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
pub(crate) fn redact_in_place(text: &mut String) {
    if let Cow::Owned(s) = redact(text) {
        *text = s;
    }
}

/// Redact every string in a JSON value, recursively.
pub(crate) fn redact_value(value: &mut Value) {
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

#[cfg(test)]
mod tests;
