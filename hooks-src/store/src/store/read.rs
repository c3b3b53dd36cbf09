//! The one reader of a store's bytes: every pass over a store (snapshot, select, stats, find,
//! session, the append's tail) goes through [`Reader::view`], most through [`visit`].
//!
//! A pass's triage says what each of the [`lines`] needs ([`Read`]): nothing (decided from the
//! raw bytes, say by a literal search), its top-level fields (the scanner walks the line once
//! without building it; a line it cannot vouch for is parsed instead), or the whole record. The
//! pass gets a [`View`] of each line it did not skip; blank lines never reach it. Recurrence
//! records are counted into [`Sightings`], the one place that folds them into their signals.
//!
//! A large store is read in parts, one thread each ([`each_part`]): a part is a run of whole
//! lines, and what a pass gathers per part merges in store order.

use std::collections::HashMap;

use foldhash::fast::FixedState;

use super::filter::Selectable;
use super::line::{parse_line, Record};
use super::scan::{self, Fields, Key, Shape};
use serde_json::Value;

use crate::sighting::Later;
use crate::signal::{self, Recurrence, Signal};

/// What a pass wants of one line.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Read {
    /// Nothing: the line cannot matter to this pass.
    Skip,
    /// Its top-level fields, through the scanner where it can vouch for the line.
    Scan,
    /// The whole record, through the full parser.
    Parse,
}

/// One line as a pass sees it: scanned fields, or the record the full parser made of it.
pub struct View<'a> {
    raw: &'a [u8],
    pub(super) seen: Seen<'a>,
}

// Boxing the scanned fields would put an allocation per line on the hot path.
#[allow(clippy::large_enum_variant)]
pub(super) enum Seen<'a> {
    /// A v1 signal, a recurrence or a foreign record, with its top-level fields.
    Scanned(Shape, Fields<'a>),
    Parsed(Record),
}

impl<'a> View<'a> {
    /// The line's bytes, without the newline.
    pub fn raw(&self) -> &'a [u8] {
        self.raw
    }

    /// What the line is; `None` for an invalid line.
    pub fn shape(&self) -> Option<Shape> {
        match &self.seen {
            Seen::Scanned(shape, _) => Some(*shape),
            Seen::Parsed(Record::Signal(_)) => Some(Shape::Signal),
            Seen::Parsed(Record::Legacy(_)) => Some(Shape::Legacy),
            Seen::Parsed(Record::Recur(_)) => Some(Shape::Recur),
            Seen::Parsed(Record::Foreign) => Some(Shape::Foreign),
            Seen::Parsed(Record::Invalid) => None,
        }
    }

    /// Whether the line took the fast path: the scanner vouched for it.
    pub fn is_scanned(&self) -> bool {
        matches!(self.seen, Seen::Scanned(..))
    }

    /// The record the line holds, parsed now if it was only scanned.
    pub fn into_record(self) -> Record {
        match self.seen {
            Seen::Parsed(record) => record,
            Seen::Scanned(..) => parse_line(self.raw),
        }
    }

    /// The signal the line holds, if it holds one.
    pub(crate) fn into_signal(self) -> Option<Signal> {
        match self.into_record() {
            Record::Signal(s) | Record::Legacy(s) => Some(*s),
            _ => None,
        }
    }

    /// Count the line into `sightings` if it is a recurrence record; says whether it was one.
    pub fn count_recurrence(&self, sightings: &mut Sightings) -> bool {
        match &self.seen {
            // A record with a resolution or an update is read whole (it may complete or update
            // its target rather than count).
            Seen::Scanned(Shape::Recur, f) if f.has(Key::Resolution) || f.has(Key::Update) => {
                if let Record::Recur(r) = parse_line(self.raw) {
                    sightings.add_record(&r);
                }
            }
            Seen::Scanned(Shape::Recur, f) => match (
                f.text(Key::Recur),
                f.text(Key::Timestamp),
                f.text(Key::SessionId),
            ) {
                (Some(Some(target)), Some(at), Some(session)) => {
                    sightings.add(target, at.unwrap_or(""), session)
                }
                // An escaped target, time or session: the parser spells it out.
                _ => {
                    if let Record::Recur(r) = parse_line(self.raw) {
                        sightings.add(&r.recur, &r.timestamp, r.session_id.as_deref());
                    }
                }
            },
            Seen::Parsed(Record::Recur(r)) => sightings.add_record(r),
            _ => return false,
        }
        true
    }
}

impl Selectable for View<'_> {
    fn text(&self, key: Key) -> Option<Option<&str>> {
        match &self.seen {
            Seen::Scanned(_, f) => f.text(key),
            Seen::Parsed(Record::Signal(s) | Record::Legacy(s)) => s.text(key),
            Seen::Parsed(_) => Some(None),
        }
    }

    fn any_tag(&self, wanted: &[String]) -> Option<bool> {
        match &self.seen {
            Seen::Scanned(_, f) => f.any_tag(wanted),
            Seen::Parsed(Record::Signal(s) | Record::Legacy(s)) => s.any_tag(wanted),
            Seen::Parsed(_) => Some(false),
        }
    }
}

/// The reader's state from line to line (the scanner's scratch space).
#[derive(Default)]
pub struct Reader {
    scanner: scan::Scanner,
}

impl Reader {
    /// The view of one line read as `how` says; `None` for a blank line or [`Read::Skip`].
    pub fn view<'a>(&mut self, raw: &'a [u8], how: Read) -> Option<View<'a>> {
        let blank = raw
            .first()
            .is_none_or(|c| c.is_ascii_whitespace() && raw.iter().all(u8::is_ascii_whitespace));
        if blank || how == Read::Skip {
            return None;
        }
        let seen = match (how == Read::Scan)
            .then(|| self.scanner.scan(raw))
            .flatten()
        {
            // A v2 line is converted by the parser.
            Some((shape, fields)) if shape != Shape::Legacy => Seen::Scanned(shape, fields),
            _ => Seen::Parsed(parse_line(raw)),
        };
        Some(View { raw, seen })
    }
}

/// Pass over every line of `bytes` once, in order: `triage` says what each line needs, and `f`
/// gets the view of each line not skipped, with its 1-based line number.
pub(crate) fn visit<'a>(
    bytes: &'a [u8],
    mut triage: impl FnMut(&'a [u8]) -> Read,
    mut f: impl FnMut(usize, View<'a>),
) {
    let mut reader = Reader::default();
    for (n, raw) in lines(bytes).enumerate() {
        if let Some(view) = reader.view(raw, triage(raw)) {
            f(n + 1, view);
        }
    }
}

/// A triage that parses the lines `holds` says may matter and skips the others.
pub(crate) fn parse_if(holds: impl Fn(&[u8]) -> bool) -> impl FnMut(&[u8]) -> Read {
    move |line| if holds(line) { Read::Parse } else { Read::Skip }
}

/// The lines of `bytes` (without their newlines), split with memchr. A last line without a
/// newline is a line; nothing after a final newline is.
pub fn lines(bytes: &[u8]) -> impl Iterator<Item = &[u8]> {
    let mut rest = bytes;
    std::iter::from_fn(move || {
        if rest.is_empty() {
            return None;
        }
        let (line, after) = match memchr::memchr(b'\n', rest) {
            Some(nl) => (&rest[..nl], &rest[nl + 1..]),
            None => (rest, &[][..]),
        };
        rest = after;
        Some(line)
    })
}

/// How a pass reads a store: in how many parts (threads), and whether through the scanner (the
/// fast path) or every line through the full parser (the reference the fast path is held to).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Pass {
    pub parts: usize,
    pub scan: bool,
}

impl Pass {
    /// The fast path, in as many parts as a store of `len` bytes is worth: one per core (at
    /// most 4), or one below [`PARALLEL_MIN_BYTES`], where a thread costs more than it saves.
    pub(crate) fn for_len(len: usize) -> Pass {
        let cores = || std::thread::available_parallelism().map_or(1, |n| n.get().min(4));
        Pass {
            parts: if len < PARALLEL_MIN_BYTES { 1 } else { cores() },
            scan: true,
        }
    }

    /// Every line through the full parser, in one part.
    pub const PARSED: Pass = Pass {
        parts: 1,
        scan: false,
    };
}

/// Below this size a store is read on one thread.
const PARALLEL_MIN_BYTES: usize = 1 << 20;

/// `bytes` cut into at most `n` runs of whole lines, in order; together they are `bytes`.
fn split_lines(bytes: &[u8], n: usize) -> Vec<&[u8]> {
    let mut parts = Vec::with_capacity(n);
    let mut start = 0;
    for k in 1..n {
        let aim = (bytes.len() * k / n).max(start);
        let end = memchr::memchr(b'\n', &bytes[aim..]).map_or(bytes.len(), |nl| aim + nl + 1);
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

/// `work` applied to each of `n` parts of `bytes` (see [`split_lines`]), the parts after the
/// first on threads of their own; each result `merge`d into the first, in store order.
pub(super) fn each_part<'a, R: Send>(
    bytes: &'a [u8],
    n: usize,
    work: impl Fn(&'a [u8]) -> R + Sync,
    merge: impl Fn(&mut R, R),
) -> R {
    let parts = split_lines(bytes, n);
    let work = &work;
    std::thread::scope(|scope| {
        let rest: Vec<_> = parts[1..]
            .iter()
            .map(|part| scope.spawn(move || work(part)))
            .collect();
        let mut all = work(parts[0]);
        for part in rest {
            // A panic in a part is a bug: pass it on rather than lose that part.
            let part = part.join().unwrap_or_else(|e| std::panic::resume_unwind(e));
            merge(&mut all, part);
        }
        all
    })
}

/// The sightings recurrence records add to their signals: by target id, how many, the newest
/// one's time, the sessions they were in, and what records read whole add besides ([`Later`]),
/// folded in by [`Sightings::fold`] (a rewrite then drops the records).
#[derive(Debug, Default)]
pub struct Sightings(HashMap<String, Slot, FixedState>);

/// What the records of one target add.
#[derive(Debug, Default)]
struct Slot {
    n: u64,
    last: String,
    /// The sessions of its sightings, each once (at most [`SESSIONS_KEPT`]).
    sessions: Vec<String>,
    later: Later,
}

/// Sessions a target's records are told apart by, at most: past it, a signal is plainly seen
/// across sessions, and a store of one rule retried for years stays small in memory.
const SESSIONS_KEPT: usize = 64;

impl Slot {
    fn add_session(&mut self, session: &str) {
        if self.sessions.len() < SESSIONS_KEPT && !self.sessions.iter().any(|s| s == session) {
            self.sessions.push(session.to_string());
        }
    }
}

impl Sightings {
    /// One more sighting of `target`, at `at` (empty when unknown), in `session` (when known).
    pub fn add(&mut self, target: &str, at: &str, session: Option<&str>) {
        self.add_n(target, 1, at, session);
    }

    /// A record read whole: a sighting with its evidence, or a completion (no sighting).
    pub fn add_record(&mut self, r: &Recurrence) {
        let session = (!r.completes).then_some(r.session_id.as_deref()).flatten();
        self.add_n(&r.recur, u64::from(!r.completes), &r.timestamp, session);
        self.0.get_mut(&r.recur).expect("just added").later.add(r);
    }

    fn add_n(&mut self, target: &str, n: u64, at: &str, session: Option<&str>) {
        let slot = self.0.entry(target.to_string()).or_default();
        slot.n += n;
        if n > 0 && at > slot.last.as_str() {
            slot.last = at.to_string();
        }
        if let Some(session) = session.filter(|s| !s.is_empty()) {
            slot.add_session(session);
        }
    }

    /// Add the sightings counted over a later part of the store, as if one pass had seen both.
    pub fn merge(&mut self, later: Sightings) {
        for (target, more) in later.0 {
            self.add_n(&target, more.n, &more.last, None);
            let slot = self.0.get_mut(&target).expect("just added");
            more.sessions.iter().for_each(|s| slot.add_session(s));
            slot.later.merge(more.later);
        }
    }

    pub fn contains(&self, id: &str) -> bool {
        self.0.contains_key(id)
    }

    /// Fold the sightings of `sig` into it: `meta.seen` and confidence grow, `meta.last_seen` is
    /// the newest sighting's time, `meta.sessions` counts the sessions it was seen in
    /// ([`Signal::sessions`]), and a resolution or an update is applied ([`Later::apply`]).
    /// Says whether there was anything. (Evidence is not folded here: every reader's fast path
    /// would have to read every record whole; see [`Sightings::evidence`].)
    pub fn fold(&self, sig: &mut Signal) -> bool {
        let Some(slot) = self.0.get(&sig.id) else {
            return false;
        };
        if slot.n > 0 {
            sig.fold_recurrences(slot.n, &slot.last);
        }
        sig.add_sessions(&slot.sessions);
        slot.later.apply(sig);
        true
    }

    /// The evidence of the later sightings of `id` that records read whole brought, oldest first.
    pub fn evidence(&self, id: &str) -> &[Value] {
        self.0.get(id).map_or(&[], |slot| slot.later.evidence())
    }

    /// The confidence of signal `id` (confidence `confidence`, seen `seen` times) once folded.
    pub fn confidence(&self, id: &str, confidence: u8, seen: u64) -> u8 {
        let folded = |slot: &Slot| signal::confidence_after(confidence, seen + slot.n);
        self.0.get(id).map_or(confidence, folded)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sightings_count_keep_the_newest_time_and_merge_in_order() {
        let mut early = Sightings::default();
        early.add("SIG-1", "2026-11-02T00:00:00Z", Some("s2"));
        early.add("SIG-1", "2026-11-01T00:00:00Z", Some("s2"));
        let mut late = Sightings::default();
        late.add("SIG-1", "", Some("s3"));
        late.add("SIG-2", "2026-11-03T00:00:00Z", None);
        early.merge(late);
        let mut sig = Signal::new(signal::Kind::Gotcha, "x");
        sig.id = "SIG-1".into();
        assert!(early.fold(&mut sig));
        assert_eq!((sig.seen(), sig.confidence), (4, 3));
        assert_eq!(sig.meta["last_seen"], "2026-11-02T00:00:00Z");
        assert_eq!(early.confidence("SIG-2", 1, 1), 2);
        assert_eq!(early.confidence("SIG-3", 1, 1), 1);
        sig.id = "SIG-3".into();
        assert!(!early.fold(&mut sig));
    }

    #[test]
    fn sessions_count_each_session_once_across_folds_and_rewrites() {
        let mut sig = Signal::new(signal::Kind::Convention, "x");
        sig.id = "SIG-1".into();
        sig.session_id = Some("s1".into());
        assert_eq!(sig.sessions(), 1);
        let mut records = Sightings::default();
        for session in ["s1", "s2", "s2", "s3"] {
            records.add("SIG-1", "", Some(session));
        }
        assert!(records.fold(&mut sig));
        assert_eq!((sig.seen(), sig.sessions()), (5, 3));
        // A rewrite keeps the count and some sightings; later records add only new sessions.
        sig.meta.insert(
            "sightings".into(),
            serde_json::json!([{"session_id": "s3"}, {"session_id": "s2"}]),
        );
        let mut later = Sightings::default();
        later.add("SIG-1", "", Some("s2"));
        later.add("SIG-1", "", Some("s4"));
        later.fold(&mut sig);
        assert_eq!(sig.sessions(), 4);
        // A signal stored with no session, seen in one: one session.
        let mut finding = Signal::new(signal::Kind::Gotcha, "y");
        finding.id = "SIG-2".into();
        records.add("SIG-2", "", Some("s5"));
        records.fold(&mut finding);
        assert_eq!((finding.seen(), finding.sessions()), (2, 1));
        // Parts of a store read apart count a session once.
        let (mut a, mut b) = (Sightings::default(), Sightings::default());
        a.add("SIG-3", "", Some("s6"));
        b.add("SIG-3", "", Some("s6"));
        b.add("SIG-3", "", Some("s7"));
        a.merge(b);
        let mut third = Signal::new(signal::Kind::Gotcha, "z");
        third.id = "SIG-3".into();
        third.session_id = Some("s6".into());
        a.fold(&mut third);
        assert_eq!(third.sessions(), 2);
    }
}
