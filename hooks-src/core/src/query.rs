//! Selecting signals: the filters of `memory-store query` (and of `forget`, `archive`, inject).

use std::path::{Path, PathBuf};

use chrono::{DateTime, Duration, Utc};

use crate::error::{Error, Result};
use crate::signal::{self, Kind, Signal, Status};

/// Every condition is optional; a signal matches when it meets all the given ones. Within one
/// repeated flag (`--status a --status b`) any value matches.
#[derive(Debug, Clone, Default)]
pub struct Filter {
    pub statuses: Vec<Status>,
    pub kinds: Vec<Kind>,
    pub session: Option<String>,
    pub project: Option<PathBuf>,
    pub tags: Vec<String>,
    pub since: Option<DateTime<Utc>>,
}

impl Filter {
    pub fn matches(&self, s: &Signal) -> bool {
        (self.statuses.is_empty() || self.statuses.contains(&s.status))
            && (self.kinds.is_empty() || self.kinds.contains(&s.kind))
            && self
                .session
                .as_ref()
                .is_none_or(|sid| s.session_id.as_deref() == Some(sid))
            && self.project.as_ref().is_none_or(|dir| {
                s.project
                    .as_deref()
                    .is_some_and(|p| within(Path::new(p), dir))
            })
            && (self.tags.is_empty() || s.tags.iter().any(|t| self.tags.contains(t)))
            && self
                .since
                .is_none_or(|since| s.time().is_some_and(|t| t >= since))
    }
}

/// `path` is `dir` or lies under it (component-wise, so `/a/bc` is not under `/a/b`).
pub fn within(path: &Path, dir: &Path) -> bool {
    path.starts_with(dir)
}

/// Parse `--since`: a duration back from `now` (`30m`, `12h`, `7d`, `2w`) or a date/time
/// (`2026-11-01`, RFC 3339).
pub fn parse_since(text: &str, now: DateTime<Utc>) -> Result<DateTime<Utc>> {
    let text = text.trim();
    let bad = || {
        Error::usage(format!(
            "invalid --since '{text}': use 30m, 12h, 7d, 2w or a date such as 2026-11-01"
        ))
    };
    if let Some(unit) = text.chars().last().filter(|c| c.is_ascii_alphabetic()) {
        let number: i64 = text[..text.len() - 1].parse().map_err(|_| bad())?;
        let span = match unit {
            'm' => Duration::minutes(number),
            'h' => Duration::hours(number),
            'd' => Duration::days(number),
            'w' => Duration::weeks(number),
            _ => return Err(bad()),
        };
        return Ok(now - span);
    }
    signal::parse_time(text).ok_or_else(bad)
}

/// [`parse_since`] from the current time.
pub fn parse_since_now(text: &str) -> Result<DateTime<Utc>> {
    parse_since(text, Utc::now())
}

/// Parse a status given on the command line (only known values).
pub fn parse_status(text: &str) -> Result<Status> {
    let status = Status::parse(text);
    if status.is_known() {
        Ok(status)
    } else {
        Err(Error::usage(format!(
            "unknown status '{text}' (one of: {})",
            Status::KNOWN.join(", ")
        )))
    }
}

/// Parse a type given on the command line (only known values).
pub fn parse_kind(text: &str) -> Result<Kind> {
    let kind = Kind::parse(text);
    if kind.is_known() {
        Ok(kind)
    } else {
        Err(Error::usage(format!(
            "unknown type '{text}' (one of: {})",
            Kind::KNOWN.join(", ")
        )))
    }
}

/// An absolute form of a `--project` argument (relative paths are taken from the current dir).
pub fn absolute_project(dir: &Path) -> PathBuf {
    let abs = std::path::absolute(dir).unwrap_or_else(|_| dir.to_path_buf());
    // Claude Code reports the real cwd; resolve symlinks when the dir exists.
    abs.canonicalize().unwrap_or(abs)
}

// ---------------------------------------------------------------------------------------------
// The fast path: select and count over raw store bytes with the scanner, parsing fully only the
// lines the scanner cannot vouch for and the signals a caller needs whole.

use std::borrow::Cow;
use std::collections::HashMap;

use crate::scan::{self, Fields, Key, Shape};
use crate::store::{parse_line, Record};
use foldhash::fast::FixedState;

/// One line of the store as the fast path sees it.
// A view lives for one closure call on the stack; boxing the scanned fields would put an
// allocation per line on the hot path to save stack bytes nobody misses.
#[allow(clippy::large_enum_variant)]
pub enum View<'a> {
    /// Scanned: a v1 signal, a recurrence or a foreign record, with its top-level fields.
    Fast(Shape, Fields<'a>),
    /// Everything else went through the full parser.
    Full(Record),
}

/// Visit every non-empty line of a store's bytes once.
pub fn visit<'a>(bytes: &'a [u8], f: impl FnMut(&'a [u8], View<'a>)) {
    visit_unless(bytes, |_| false, f)
}

/// [`visit`], passing over the lines `skip` says cannot matter before they are scanned.
fn visit_unless<'a>(
    bytes: &'a [u8],
    skip: impl Fn(&'a [u8]) -> bool,
    mut f: impl FnMut(&'a [u8], View<'a>),
) {
    let mut scanner = scan::Scanner::default();
    for line in lines(bytes) {
        if line.is_empty()
            || (line[0].is_ascii_whitespace() && line.iter().all(u8::is_ascii_whitespace))
            || skip(line)
        {
            continue;
        }
        let fast = scanner
            .scan(line)
            .and_then(|fields| match scan::shape(&fields) {
                Some(Shape::Legacy) | None => None,
                Some(shape) => Some(View::Fast(shape, fields)),
            });
        f(line, fast.unwrap_or_else(|| View::Full(parse_line(line))));
    }
}

/// The lines of `bytes` (without their newlines), split with SIMD.
pub fn lines(bytes: &[u8]) -> impl Iterator<Item = &[u8]> {
    let mut start = 0;
    let mut ends = memchr::memchr_iter(b'\n', bytes);
    std::iter::from_fn(move || {
        let end = match ends.next() {
            Some(end) => end,
            None if start < bytes.len() => bytes.len(),
            None => return None,
        };
        let line = &bytes[start..end];
        start = end + 1;
        Some(line)
    })
}

/// Recurrence counts by target id, with the newest sighting's time.
pub type Recurrences = HashMap<String, (u64, String), FixedState>;

/// Add the recurrences counted over a later part of the store to those of an earlier one: the
/// counts add up and the newest time wins, as if one pass had seen both parts.
fn merge_recurrences(into: &mut Recurrences, from: Recurrences) {
    for (target, (n, at)) in from {
        let slot = into.entry(target).or_default();
        slot.0 += n;
        if at > slot.1 {
            slot.1 = at;
        }
    }
}

/// Below this size a store is read on one thread: a thread costs more than it would save.
const PARALLEL_MIN_BYTES: usize = 1 << 20;

/// How many parts to cut a store of `len` bytes into: one per core (at most 4), or 1 when small.
pub(crate) fn part_count(len: usize) -> usize {
    if len < PARALLEL_MIN_BYTES {
        return 1;
    }
    // Asked once per process: the answer reads cgroup files, and the store is read and then
    // scanned in parts.
    static CORES: std::sync::OnceLock<usize> = std::sync::OnceLock::new();
    *CORES.get_or_init(|| std::thread::available_parallelism().map_or(1, |n| n.get().min(4)))
}

/// `bytes` cut into at most `n` runs of whole lines, in order; together they are `bytes`, so the
/// lines of the parts, one part after the other, are the lines of the whole.
fn split_lines(bytes: &[u8], n: usize) -> Vec<&[u8]> {
    let mut parts = Vec::with_capacity(n);
    let mut start = 0;
    for k in 1..n {
        let aim = (bytes.len() * k / n).max(start);
        let end = match memchr::memchr(b'\n', &bytes[aim..]) {
            Some(nl) => aim + nl + 1,
            None => bytes.len(),
        };
        if end > start {
            parts.push(&bytes[start..end]);
        }
        start = end;
    }
    if start < bytes.len() || parts.is_empty() {
        parts.push(&bytes[start..]);
    }
    parts
}

/// `work` applied to each part of `bytes` (see [`split_lines`]), the parts after the first on
/// threads of their own; the results in store order.
fn each_part<'a, R: Send>(
    bytes: &'a [u8],
    n: usize,
    work: impl Fn(&'a [u8]) -> R + Sync,
) -> Vec<R> {
    let parts = split_lines(bytes, n);
    if parts.len() == 1 {
        return vec![work(parts[0])];
    }
    let work = &work;
    std::thread::scope(|scope| {
        let rest: Vec<_> = parts[1..]
            .iter()
            .map(|part| scope.spawn(move || work(part)))
            .collect();
        let mut out = Vec::with_capacity(parts.len());
        out.push(work(parts[0]));
        // A panic in a part is a bug in the scanner: pass it on rather than lose that part.
        out.extend(
            rest.into_iter()
                .map(|h| h.join().unwrap_or_else(|e| std::panic::resume_unwind(e))),
        );
        out
    })
}

fn count_recurrence(recurrences: &mut Recurrences, target: &str, at: &str) {
    let slot = recurrences.entry(target.to_string()).or_default();
    slot.0 += 1;
    if at > slot.1.as_str() {
        slot.1 = at.to_string();
    }
}

/// The recurrence a view records, if it is one.
fn recurrence_of(line: &[u8], view: &View) -> Option<(String, String)> {
    match view {
        View::Fast(Shape::Recur, f) => match (
            f.str(Key::Recur),
            f.raw(Key::Timestamp).map(|_| f.str(Key::Timestamp)),
        ) {
            (Some(target), None) => Some((target.to_string(), String::new())),
            (Some(target), Some(Some(at))) => Some((target.to_string(), at.to_string())),
            _ => match parse_line(line) {
                Record::Recur(r) => Some((r.recur, r.timestamp)),
                _ => None,
            },
        },
        View::Full(Record::Recur(r)) => Some((r.recur.clone(), r.timestamp.clone())),
        _ => None,
    }
}

/// A timestamp as written by reflect (`2026-11-22T10:23:00Z`) compares as text.
fn canonical_time(ts: &str) -> bool {
    ts.len() == 20 && ts.as_bytes()[10] == b'T' && ts.ends_with('Z')
}

impl Filter {
    /// Decide on scanned fields; `None` when a field needs the full parser (an escaped string).
    fn matches_fields(&self, f: &Fields, since_text: Option<&str>) -> Option<bool> {
        let text = |key: Key| -> Option<Option<&str>> {
            if f.is_escaped_str(key) {
                None
            } else {
                Some(f.str(key))
            }
        };
        if !self.statuses.is_empty() {
            let status = text(Key::Status)?.unwrap_or("captured");
            if !self.statuses.iter().any(|s| s.as_str() == status) {
                return Some(false);
            }
        }
        if !self.kinds.is_empty() {
            let kind = text(Key::Type)?.unwrap_or("");
            if !self.kinds.iter().any(|k| k.as_str() == kind) {
                return Some(false);
            }
        }
        if let Some(sid) = &self.session {
            if text(Key::SessionId)? != Some(sid.as_str()) {
                return Some(false);
            }
        }
        if let Some(dir) = &self.project {
            if !text(Key::Project)?.is_some_and(|p| within(Path::new(p), dir)) {
                return Some(false);
            }
        }
        if !self.tags.is_empty() {
            let tags: Vec<Cow<str>> = match f.raw(Key::Tags) {
                Some(raw) => serde_json::from_slice(raw).ok()?,
                None => Vec::new(),
            };
            if !tags.iter().any(|t| self.tags.iter().any(|want| want == t)) {
                return Some(false);
            }
        }
        if let Some(since) = self.since {
            let Some(ts) = text(Key::Timestamp)? else {
                return Some(false);
            };
            let newer = match since_text {
                // Text order is time order for valid timestamps of this shape; a newer-looking one
                // must still be a time ("a026-…" is not), as it must for the full parser.
                Some(s) if canonical_time(ts) => ts >= s && crate::signal::parse_time(ts).is_some(),
                _ => crate::signal::parse_time(ts).is_some_and(|t| t >= since),
            };
            if !newer {
                return Some(false);
            }
        }
        Some(true)
    }
}

impl Filter {
    /// Whether a line can be passed over on its leading fields alone: it holds a top-level `id`
    /// (so it is a v1 signal, a recurrence, a foreign record or invalid: never a v2 line), no
    /// `"recur"` anywhere and no `\u` escape that could spell it (so not a recurrence, which must
    /// be counted), and a leading field that
    /// fails the filter. Such a line is either a signal that does not match (a signal has no
    /// duplicate keys, so the value seen is its value) or not a signal at all: the full parser
    /// would not select it either.
    fn rejects_early(&self, line: &[u8], since_text: Option<&str>) -> bool {
        use std::sync::LazyLock;
        static RECUR: LazyLock<memchr::memmem::Finder<'static>> =
            LazyLock::new(|| memchr::memmem::Finder::new(b"\"recur\""));
        static UNICODE_ESCAPE: LazyLock<memchr::memmem::Finder<'static>> =
            LazyLock::new(|| memchr::memmem::Finder::new(b"\\u"));
        let f = scan::leading_fields(line);
        if !f.has(Key::Id) {
            return false;
        }
        let fails = |key: Key, ok: &dyn Fn(&str) -> bool| f.str(key).is_some_and(|v| !ok(v));
        let rejected = (!self.statuses.is_empty()
            && fails(Key::Status, &|v| {
                self.statuses.iter().any(|s| s.as_str() == v)
            }))
            || (!self.kinds.is_empty()
                && fails(Key::Type, &|v| self.kinds.iter().any(|k| k.as_str() == v)))
            || self
                .session
                .as_ref()
                .is_some_and(|sid| fails(Key::SessionId, &|v| v == sid))
            || self
                .project
                .as_ref()
                .is_some_and(|dir| fails(Key::Project, &|v| within(Path::new(v), dir)))
            || self.since.is_some_and(|since| {
                fails(Key::Timestamp, &|ts| match since_text {
                    Some(s) if canonical_time(ts) => {
                        ts >= s && crate::signal::parse_time(ts).is_some()
                    }
                    _ => crate::signal::parse_time(ts).is_some_and(|t| t >= since),
                })
            });
        rejected && RECUR.find(line).is_none() && UNICODE_ESCAPE.find(line).is_none()
    }
}

/// A selected signal: the stored line itself while it can be printed as is.
pub enum Hit<'a> {
    Raw { line: &'a [u8], id: &'a str },
    Parsed(Box<Signal>),
}

/// What [`select`] found, in store order.
pub struct Selection<'a> {
    pub hits: Vec<Hit<'a>>,
    recurrences: Recurrences,
}

/// The fields every line written by reflect holds: such a line prints as it is.
const COMPLETE: &[Key] = Key::ALL.as_slice().split_at(scan::V1_KEY_COUNT).0;

/// Select the signals of a store's bytes that match `filter`, in one pass (split over the cores
/// for a large store).
pub fn select<'a>(bytes: &'a [u8], filter: &Filter) -> Selection<'a> {
    select_in_parts(bytes, filter, part_count(bytes.len()))
}

/// [`select`] over `n` parts of the store, merged in store order.
fn select_in_parts<'a>(bytes: &'a [u8], filter: &Filter, n: usize) -> Selection<'a> {
    let since_text = filter.since.map(crate::signal::format_time);
    let mut parts = each_part(bytes, n, |part| {
        select_part(part, filter, since_text.as_deref())
    })
    .into_iter();
    let mut all = parts.next().expect("at least one part");
    for part in parts {
        all.hits.extend(part.hits);
        merge_recurrences(&mut all.recurrences, part.recurrences);
    }
    all
}

fn select_part<'a>(bytes: &'a [u8], filter: &Filter, since_text: Option<&str>) -> Selection<'a> {
    let mut hits = Vec::new();
    let mut recurrences = Recurrences::default();
    let skip = |line| filter.rejects_early(line, since_text);
    visit_unless(bytes, skip, |line, view| {
        if let Some((target, at)) = recurrence_of(line, &view) {
            count_recurrence(&mut recurrences, &target, &at);
            return;
        }
        match view {
            View::Fast(Shape::Signal, f) => {
                let complete = COMPLETE.iter().all(|k| f.has(*k));
                match (filter.matches_fields(&f, since_text), f.str(Key::Id)) {
                    (Some(false), _) => {}
                    (Some(true), Some(id)) if complete => hits.push(Hit::Raw { line, id }),
                    _ => {
                        if let Record::Signal(s) = parse_line(line) {
                            if filter.matches(&s) {
                                hits.push(Hit::Parsed(s));
                            }
                        }
                    }
                }
            }
            View::Full(Record::Signal(s) | Record::Legacy(s)) if filter.matches(&s) => {
                hits.push(Hit::Parsed(s))
            }
            _ => {}
        }
    });
    Selection { hits, recurrences }
}

impl<'a> Selection<'a> {
    /// Keep only the `n` newest hits.
    pub fn keep_newest(&mut self, n: usize) {
        let drop = self.hits.len().saturating_sub(n);
        self.hits.drain(..drop);
    }

    fn folded(&self, mut sig: Signal) -> Signal {
        if let Some((n, last)) = self.recurrences.get(&sig.id) {
            sig.fold_recurrences(*n, last);
        }
        sig
    }

    /// The hits as whole signals (recurrences folded in).
    pub fn into_signals(self) -> Vec<Signal> {
        let mut out = Vec::with_capacity(self.hits.len());
        for hit in &self.hits {
            let sig = match hit {
                Hit::Raw { line, .. } => match parse_line(line) {
                    Record::Signal(s) => *s,
                    _ => continue, // the scanner vouched for it; unreachable in practice
                },
                Hit::Parsed(s) => (**s).clone(),
            };
            out.push(self.folded(sig));
        }
        out
    }

    /// The hits as JSON lines: stored lines verbatim where nothing needs filling or folding.
    pub fn jsonl(&self) -> Vec<u8> {
        let mut out = Vec::with_capacity(
            self.hits
                .iter()
                .map(|h| {
                    if let Hit::Raw { line, .. } = h {
                        line.len() + 1
                    } else {
                        512
                    }
                })
                .sum(),
        );
        for hit in &self.hits {
            match hit {
                Hit::Raw { line, id } if !self.recurrences.contains_key(*id) => {
                    out.extend_from_slice(line)
                }
                Hit::Raw { line, .. } => {
                    if let Record::Signal(s) = parse_line(line) {
                        serde_json::to_writer(&mut out, &self.folded(*s)).expect("serializes");
                    }
                }
                Hit::Parsed(s) => serde_json::to_writer(&mut out, &self.folded((**s).clone()))
                    .expect("serializes"),
            }
            out.push(b'\n');
        }
        out
    }
}

/// Counts of a store's bytes for `stats`, in one pass (the same numbers as
/// [`crate::render::Stats::collect`] over a parsed store), split over the cores for a large store.
pub fn stats(bytes: &[u8]) -> crate::render::Stats {
    stats_in_parts(bytes, part_count(bytes.len()))
}

/// What `stats` counts over one part of a store, before recurrences are folded in.
#[derive(Default)]
struct Tally<'a> {
    total: usize,
    pending: usize,
    needs_review: usize,
    // A handful of distinct values: a linear search beats hashing every line's.
    by_status: Vec<(Cow<'a, str>, usize)>,
    by_type: Vec<(Cow<'a, str>, usize)>,
    oldest_captured: Option<Cow<'a, str>>,
    newest: Option<Cow<'a, str>>,
    /// Confidence and prior sightings of each signal, to fold recurrences in at the end.
    confidence: Vec<(Cow<'a, str>, u8, u64)>,
    invalid: usize,
    legacy: usize,
    recurrences: Recurrences,
}

impl<'a> Tally<'a> {
    #[allow(clippy::too_many_arguments)]
    fn add(
        &mut self,
        id: Cow<'a, str>,
        status: Cow<'a, str>,
        kind: Cow<'a, str>,
        ts: Cow<'a, str>,
        confidence: u8,
        seen: u64,
        review: bool,
    ) {
        self.total += 1;
        if status == "captured" {
            self.pending += 1;
            self.keep_oldest_captured(ts.clone());
        }
        self.keep_newest(ts);
        self.needs_review += usize::from(review);
        tally(&mut self.by_status, status, 1);
        tally(&mut self.by_type, kind, 1);
        self.confidence.push((id, confidence, seen));
    }

    fn keep_oldest_captured(&mut self, ts: Cow<'a, str>) {
        if self.oldest_captured.as_ref().is_none_or(|o| ts < *o) {
            self.oldest_captured = Some(ts);
        }
    }

    fn keep_newest(&mut self, ts: Cow<'a, str>) {
        if self.newest.as_ref().is_none_or(|n| ts > *n) {
            self.newest = Some(ts);
        }
    }

    fn add_signal(&mut self, s: &Signal) {
        let review = s.meta.get("needs_review") == Some(&serde_json::Value::Bool(true));
        let owned = |t: &str| Cow::Owned(t.to_string());
        self.add(
            owned(&s.id),
            owned(s.status.as_str()),
            owned(s.kind.as_str()),
            owned(&s.timestamp),
            s.confidence,
            s.seen(),
            review,
        );
    }

    /// Add the tally of the part of the store that follows this one.
    fn merge(&mut self, later: Tally<'a>) {
        self.total += later.total;
        self.pending += later.pending;
        self.needs_review += later.needs_review;
        for (status, n) in later.by_status {
            tally(&mut self.by_status, status, n);
        }
        for (kind, n) in later.by_type {
            tally(&mut self.by_type, kind, n);
        }
        if let Some(ts) = later.oldest_captured {
            self.keep_oldest_captured(ts);
        }
        if let Some(ts) = later.newest {
            self.keep_newest(ts);
        }
        self.confidence.extend(later.confidence);
        self.invalid += later.invalid;
        self.legacy += later.legacy;
        merge_recurrences(&mut self.recurrences, later.recurrences);
    }
}

fn tally<'a>(counts: &mut Vec<(Cow<'a, str>, usize)>, value: Cow<'a, str>, n: usize) {
    match counts.iter_mut().find(|(v, _)| *v == value) {
        Some((_, count)) => *count += n,
        None => counts.push((value, n)),
    }
}

/// The [`Tally`] of one part of a store.
fn tally_part(bytes: &[u8]) -> Tally<'_> {
    use std::sync::LazyLock;
    static NEEDS_REVIEW: LazyLock<memchr::memmem::Finder<'static>> =
        LazyLock::new(|| memchr::memmem::Finder::new(b"\"needs_review\":true"));
    static SEEN: LazyLock<memchr::memmem::Finder<'static>> =
        LazyLock::new(|| memchr::memmem::Finder::new(b"\"seen\""));

    let mut t = Tally::default();
    visit(bytes, |line, view| {
        if let Some((target, at)) = recurrence_of(line, &view) {
            count_recurrence(&mut t.recurrences, &target, &at);
            return;
        }
        match view {
            View::Fast(Shape::Signal, f) => {
                let plain = [Key::Id, Key::Status, Key::Type, Key::Timestamp]
                    .iter()
                    .all(|k| !f.is_escaped_str(*k));
                match (plain, f.str(Key::Timestamp).filter(|ts| canonical_time(ts))) {
                    (true, Some(ts)) => {
                        let meta = f.raw(Key::Meta).unwrap_or(b"{}");
                        let seen = SEEN.find(meta).map_or(1, |_| {
                            serde_json::from_slice::<serde_json::Map<String, serde_json::Value>>(
                                meta,
                            )
                            .ok()
                            .and_then(|m| m.get("seen").and_then(serde_json::Value::as_u64))
                            .unwrap_or(1)
                        });
                        t.add(
                            Cow::Borrowed(f.str(Key::Id).unwrap_or("")),
                            Cow::Borrowed(f.str(Key::Status).unwrap_or("captured")),
                            Cow::Borrowed(f.str(Key::Type).unwrap_or("")),
                            Cow::Borrowed(ts),
                            f.uint(Key::Confidence).map_or(1, |c| c.min(255) as u8),
                            seen,
                            NEEDS_REVIEW.find(meta).is_some(),
                        );
                    }
                    _ => {
                        if let Record::Signal(s) = parse_line(line) {
                            t.add_signal(&s);
                        }
                    }
                }
            }
            View::Fast(..) | View::Full(Record::Foreign) => {}
            View::Full(Record::Signal(s)) => t.add_signal(&s),
            View::Full(Record::Legacy(s)) => {
                t.legacy += 1;
                t.add_signal(&s);
            }
            View::Full(Record::Invalid) => t.invalid += 1,
            View::Full(Record::Recur(_)) => {}
        }
    });
    t
}

/// [`stats`] over `n` parts of the store, merged in store order.
fn stats_in_parts(bytes: &[u8], n: usize) -> crate::render::Stats {
    let mut parts = each_part(bytes, n, tally_part).into_iter();
    let mut t = parts.next().expect("at least one part");
    for part in parts {
        t.merge(part);
    }

    let mut st = crate::render::Stats {
        total: t.total,
        pending: t.pending,
        needs_review: t.needs_review,
        oldest_captured: t.oldest_captured.map(Cow::into_owned),
        newest: t.newest.map(Cow::into_owned),
        invalid_lines: t.invalid,
        legacy_lines: t.legacy,
        store_bytes: bytes.len() as u64,
        ..Default::default()
    };
    let owned = |counts: Vec<(Cow<str>, usize)>| {
        counts
            .into_iter()
            .map(|(k, v)| (k.into_owned(), v))
            .collect()
    };
    st.by_status = owned(t.by_status);
    st.by_type = owned(t.by_type);
    let mut by_confidence = [0usize; 256];
    for (id, confidence, seen) in t.confidence {
        let folded = match t.recurrences.get(id.as_ref()) {
            Some((n, _)) => crate::signal::confidence_after(confidence, seen + n),
            None => confidence,
        };
        by_confidence[usize::from(folded)] += 1;
    }
    st.by_confidence = (0..=u8::MAX)
        .filter(|&c| by_confidence[usize::from(c)] > 0)
        .map(|c| (c.to_string(), by_confidence[usize::from(c)]))
        .collect();
    st
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;

    #[test]
    fn since_accepts_spans_and_dates() {
        let now = signal::parse_time("2026-11-22T12:00:00Z").unwrap();
        assert_eq!(
            parse_since("7d", now).unwrap(),
            signal::parse_time("2026-11-15T12:00:00Z").unwrap()
        );
        assert_eq!(
            parse_since("12h", now).unwrap(),
            signal::parse_time("2026-11-22T00:00:00Z").unwrap()
        );
        assert_eq!(
            parse_since("2026-11-01", now).unwrap(),
            signal::parse_time("2026-11-01T00:00:00Z").unwrap()
        );
        assert!(parse_since("7x", now).unwrap_err().is_usage());
        assert!(parse_since("soon", now).is_err());
    }

    #[test]
    fn filter_combines_conditions() {
        let mut s = Signal::new(Kind::Correction, "x");
        s.project = Some("/work/app".into());
        s.tags = vec!["pnpm".into()];
        let f = Filter {
            project: Some("/work".into()),
            tags: vec!["pnpm".into()],
            ..Filter::default()
        };
        assert!(f.matches(&s));
        let f = Filter {
            project: Some("/wo".into()),
            ..Filter::default()
        };
        assert!(!f.matches(&s));
        let f = Filter {
            statuses: vec![Status::Analyzed],
            ..Filter::default()
        };
        assert!(!f.matches(&s));
    }

    /// A store of every kind of line the fast path must agree with the full parser on.
    pub(crate) fn mixed_store() -> Vec<u8> {
        let mut out = String::new();
        let kinds = ["correction", "convention", "failure", "summary"];
        let statuses = ["captured", "analyzed", "promoted", "dismissed"];
        for i in 0..400u32 {
            let day = 1 + i % 28;
            let mut s = Signal::new(
                Kind::parse(kinds[i as usize % 4]),
                format!("content {i} \"quoted\" é"),
            );
            s.id = format!("SIG-202611{day:02}-{i:010x}");
            s.timestamp = format!("2026-11-{day:02}T10:{:02}:00Z", i % 60);
            s.status = Status::parse(statuses[(i / 4) as usize % 4]);
            s.confidence = (i % 4 + 1) as u8;
            s.session_id = Some(format!("s{}", i % 5));
            s.project = Some(if i % 3 == 0 {
                "/work/app".into()
            } else {
                "/other/\"odd\"".into()
            });
            s.tags = vec![format!("t{}", i % 6)];
            if i % 17 == 0 {
                s.meta
                    .insert("needs_review".into(), serde_json::Value::Bool(true));
            }
            if i % 23 == 0 {
                s.meta.insert("seen".into(), serde_json::Value::from(2));
            }
            let mut line = serde_json::to_string(&s).unwrap();
            if i % 11 == 0 {
                // Another writer's style: spaces, missing optional fields.
                line = format!(
                    r#"{{"id": "{}", "type": "{}", "timestamp": "{}", "status": "{}", "content": "x"}}"#,
                    s.id, s.kind, s.timestamp, s.status
                );
            }
            if i % 13 == 0 {
                line = line.replacen("\"timestamp\":\"2026", "\"timestamp\":\"\\u0032026", 1);
            }
            out.push_str(&line);
            out.push('\n');
            if i % 7 == 0 {
                out.push_str(&format!("{{\"recur\":\"{}\",\"timestamp\":\"2026-11-29T00:00:00Z\",\"session_id\":\"s9\"}}\n", s.id));
            }
        }
        out.push_str("{\"ts\":\"2026-11-20T10:00:00Z\",\"sid\":\"s1\",\"type\":\"correction\",\"context\":\"v2 line\"}\n");
        out.push_str("not json\n{\"torn\":\n[1,2]\n{\"other\":1}\n");
        out.into_bytes()
    }

    #[test]
    fn fast_select_agrees_with_the_full_parser() {
        let bytes = mixed_store();
        let snap = crate::store::Snapshot::parse(&bytes);
        let t = |s: &str| crate::signal::parse_time(s).unwrap();
        let filters = [
            Filter::default(),
            Filter {
                statuses: vec![Status::Captured],
                since: Some(t("2026-11-15T00:00:00Z")),
                ..Filter::default()
            },
            Filter {
                kinds: vec![Kind::Correction, Kind::Failure],
                ..Filter::default()
            },
            Filter {
                session: Some("s1".into()),
                ..Filter::default()
            },
            Filter {
                project: Some("/work".into()),
                ..Filter::default()
            },
            Filter {
                project: Some("/other/\"odd\"".into()),
                ..Filter::default()
            },
            Filter {
                tags: vec!["t2".into(), "t3".into()],
                ..Filter::default()
            },
            Filter {
                since: Some(t("2026-11-20T10:30:00Z")),
                ..Filter::default()
            },
            Filter {
                statuses: vec![Status::Analyzed, Status::Dismissed],
                kinds: vec![Kind::Summary],
                ..Filter::default()
            },
        ];
        for filter in &filters {
            let slow: Vec<Signal> = snap
                .signals()
                .filter(|s| filter.matches(s))
                .cloned()
                .collect();
            let selection = select(&bytes, filter);
            let jsonl: Vec<Signal> = String::from_utf8(selection.jsonl())
                .unwrap()
                .lines()
                .map(|l| serde_json::from_str(l).unwrap())
                .collect();
            let fast = select(&bytes, filter).into_signals();
            assert!(
                !slow.is_empty() || filter.session.is_some(),
                "the test data must exercise {filter:?}"
            );
            let key = |v: &[Signal]| {
                v.iter()
                    .map(|s| (s.id.clone(), s.status.clone(), s.confidence, s.seen()))
                    .collect::<Vec<_>>()
            };
            assert_eq!(key(&fast), key(&slow), "{filter:?}");
            assert_eq!(key(&jsonl), key(&slow), "{filter:?}");
            assert_eq!(fast, slow, "{filter:?}");
        }
    }

    #[test]
    fn early_rejection_keeps_what_the_full_parser_would_select_or_count() {
        // Lines that fail the filter on a leading field but that the full parser reads otherwise:
        // a later duplicate, a recurrence spelled late or escaped, a torn tail, v2 and foreign.
        let lines = [
            r#"{"id":"SIG-1","status":"analyzed","type":"failure","status":"captured","timestamp":"2026-11-20T00:00:00Z"}"#,
            r#"{"id":"SIG-2","status":"analyzed","type":"failure","timestamp":"2026-11-20T00:00:00Z"}"#,
            r#"{"id":"SIG-3","status":"captured","type":"failure","timestamp":"2026-11-20T00:00:00Z"}"#,
            r#"{"id":"SIG-4","status":"analyzed","timestamp":"2026-11-20T00:00:00Z","recur":"SIG-3"}"#,
            r#"{"id":"SIG-5","status":"analyzed","timestamp":"2026-11-20T00:00:00Z","rec\u0075r":"SIG-3"}"#,
            r#"{"id":"SIG-6","status":"analyzed","type":"failure","st\u0061tus":"captured","timestamp":"2026-11-20T00:00:00Z"}"#,
            r#"{"id":"SIG-7","status":"captured","type":"failure","timestamp":"2026-01-01T00:00:00Z"}"#,
            r#"{"id":"SIG-8","status":"captured","type":"failure","timestamp":"2026-11-20T00:00:00Z""#,
            r#"{"ts":"2026-11-20T00:00:00Z","status":"analyzed","type":"correction","context":"v2"}"#,
            r#"{"recur":"SIG-3","status":"analyzed","timestamp":"2026-11-21T00:00:00Z"}"#,
            r#"{"id":"SIG-9","timestamp":"2026-01-01T00:00:00Z","status":"captured","timestamp":"2026-11-20T00:00:00Z","type":"x"}"#,
        ];
        let bytes = lines.join("\n").into_bytes();
        let snap = crate::store::Snapshot::parse(&bytes);
        let filter = Filter {
            statuses: vec![Status::Captured],
            since: Some(signal::parse_time("2026-11-15T00:00:00Z").unwrap()),
            ..Filter::default()
        };
        let slow: Vec<Signal> = snap
            .signals()
            .filter(|s| filter.matches(s))
            .cloned()
            .collect();
        assert!(
            slow.iter().any(|s| s.id == "SIG-3" && s.seen() > 1),
            "the data must hold a selected signal with recurrences: {slow:?}"
        );
        assert_eq!(select(&bytes, &filter).into_signals(), slow);
        // And the early test does pass over the plain non-matching line.
        let since = crate::signal::format_time(filter.since.unwrap());
        assert!(filter.rejects_early(lines[1].as_bytes(), Some(&since)));
        assert!(!filter.rejects_early(lines[3].as_bytes(), Some(&since)));
        assert!(!filter.rejects_early(lines[4].as_bytes(), Some(&since)));
        assert!(!filter.rejects_early(lines[8].as_bytes(), Some(&since)));
    }

    /// [`mixed_store`] with recurrences both before and after their signals, blank lines and a
    /// torn last line, so that split points fall between a signal and its recurrences and next to
    /// bad lines.
    fn store_to_split() -> Vec<u8> {
        let mixed = mixed_store();
        let mut out = Vec::new();
        for i in (0..400u32).step_by(9) {
            let day = 1 + i % 28;
            out.extend_from_slice(
                format!("{{\"recur\":\"SIG-202611{day:02}-{i:010x}\",\"timestamp\":\"2026-11-{:02}T00:00:00Z\"}}\n", 1 + i % 9)
                    .as_bytes(),
            );
        }
        out.extend_from_slice(b"\n   \n");
        out.extend_from_slice(&mixed);
        out.extend_from_slice(b"\n\nnot json either\n");
        out.extend_from_slice(&mixed);
        out.extend_from_slice(b"{\"id\":\"SIG-torn\",\"type\":\"fa");
        out
    }

    #[test]
    fn split_lines_cuts_only_after_newlines_and_keeps_every_byte() {
        let bytes = store_to_split();
        for n in 1..40 {
            let parts = split_lines(&bytes, n);
            assert_eq!(
                parts.len(),
                n,
                "a store of this size has room for {n} parts"
            );
            assert_eq!(parts.concat(), bytes);
            for part in &parts[..n - 1] {
                assert!(part.ends_with(b"\n"));
            }
        }
        assert_eq!(split_lines(b"", 4), vec![&b""[..]]);
        assert_eq!(split_lines(b"one line", 4), vec![&b"one line"[..]]);
        assert_eq!(split_lines(b"a\nb\n", 8).concat(), b"a\nb\n");
    }

    #[test]
    fn select_in_parts_gives_what_one_pass_gives() {
        let bytes = store_to_split();
        let t = |s: &str| crate::signal::parse_time(s).unwrap();
        let filters = [
            Filter::default(),
            Filter {
                statuses: vec![Status::Captured],
                since: Some(t("2026-11-15T00:00:00Z")),
                ..Filter::default()
            },
            Filter {
                kinds: vec![Kind::Correction],
                tags: vec!["t2".into(), "t3".into()],
                ..Filter::default()
            },
        ];
        for filter in &filters {
            let one = select_in_parts(&bytes, filter, 1);
            let folded = one.recurrences.values().filter(|(n, _)| *n > 1).count();
            assert!(folded > 0, "recurrences must span the parts");
            let (one_jsonl, one_signals) = (one.jsonl(), one.into_signals());
            assert!(!one_signals.is_empty(), "{filter:?}");
            for n in [2, 3, 4, 7, 16, 33] {
                let many = select_in_parts(&bytes, filter, n);
                assert_eq!(many.jsonl(), one_jsonl, "{filter:?} in {n} parts");
                assert_eq!(many.into_signals(), one_signals, "{filter:?} in {n} parts");
            }
        }
    }

    #[test]
    fn stats_in_parts_give_what_one_pass_gives() {
        let bytes = store_to_split();
        let one = serde_json::to_value(stats_in_parts(&bytes, 1)).unwrap();
        assert!(
            one["invalid_lines"].as_u64() > Some(3) && one["legacy_lines"].as_u64() > Some(1),
            "{one}"
        );
        for n in [2, 3, 4, 7, 16, 33] {
            assert_eq!(
                serde_json::to_value(stats_in_parts(&bytes, n)).unwrap(),
                one,
                "{n} parts"
            );
        }
        // And the one pass still agrees with the full parser on this store.
        let snap = crate::store::Snapshot::parse(&bytes);
        let slow = crate::render::Stats::collect(snap.signals(), &snap.health, bytes.len() as u64);
        assert_eq!(one, serde_json::to_value(&slow).unwrap());
    }

    #[test]
    fn fast_stats_agree_with_the_full_parser() {
        let bytes = mixed_store();
        let snap = crate::store::Snapshot::parse(&bytes);
        let slow = crate::render::Stats::collect(snap.signals(), &snap.health, bytes.len() as u64);
        let fast = stats(&bytes);
        assert_eq!(
            serde_json::to_value(&fast).unwrap(),
            serde_json::to_value(&slow).unwrap()
        );
        assert!(
            fast.invalid_lines == 3 && fast.legacy_lines == 1 && fast.needs_review > 0,
            "{fast:?}"
        );
    }
}
