//! Counts of a store for `memory-store stats`, in one pass of the reader, split over the cores
//! for a large store. A signal is counted from its scanned fields when they are plain, else parsed.

use std::borrow::Cow;
use std::collections::BTreeMap;
use std::sync::LazyLock;

use memchr::memmem::Finder;
use serde::Serialize;
use serde_json::Value;

use super::filter::canonical_time;
use super::line::Record;
use super::read::{self, Pass, Read, Seen, Sightings};
use super::scan::{Fields, Key, Shape};
use crate::signal::Signal;

/// Counts for `memory-store stats` (its JSON format, field for field).
#[derive(Debug, Clone, Default, Serialize)]
pub struct Stats {
    pub total: usize,
    /// Unreviewed signals (`captured`): what `/reflect` has to look at.
    pub pending: usize,
    pub by_status: BTreeMap<String, usize>,
    pub by_type: BTreeMap<String, usize>,
    pub by_confidence: BTreeMap<String, usize>,
    pub needs_review: usize,
    pub oldest_captured: Option<String>,
    pub newest: Option<String>,
    pub invalid_lines: usize,
    pub legacy_lines: usize,
    pub store_bytes: u64,
}

/// The counts of a store's bytes.
pub fn stats(bytes: &[u8]) -> Stats {
    stats_with(bytes, Pass::for_len(bytes.len()))
}

/// [`stats`] read as `pass` says.
pub fn stats_with(bytes: &[u8], pass: Pass) -> Stats {
    let work = |part| tally(part, pass.scan);
    let t = read::each_part(bytes, pass.parts, work, Tally::merge);
    let owned = |counts: BTreeMap<Cow<str>, usize>| {
        counts
            .into_iter()
            .map(|(k, v)| (k.into_owned(), v))
            .collect()
    };
    let mut by_confidence = [0usize; 256];
    for (id, confidence, seen) in &t.confidence {
        by_confidence[usize::from(t.sightings.confidence(id, *confidence, *seen))] += 1;
    }
    Stats {
        total: t.total,
        pending: t.pending,
        by_status: owned(t.by_status),
        by_type: owned(t.by_type),
        by_confidence: (0..256)
            .filter(|&c| by_confidence[c] > 0)
            .map(|c| (c.to_string(), by_confidence[c]))
            .collect(),
        needs_review: t.needs_review,
        oldest_captured: t.oldest_captured.map(Cow::into_owned),
        newest: t.newest.map(Cow::into_owned),
        invalid_lines: t.invalid,
        legacy_lines: t.legacy,
        store_bytes: bytes.len() as u64,
    }
}

/// What `stats` counts over one part of a store, before recurrences are folded in.
#[derive(Default)]
struct Tally<'a> {
    total: usize,
    pending: usize,
    needs_review: usize,
    by_status: BTreeMap<Cow<'a, str>, usize>,
    by_type: BTreeMap<Cow<'a, str>, usize>,
    oldest_captured: Option<Cow<'a, str>>,
    newest: Option<Cow<'a, str>>,
    /// Id, confidence and prior sightings of each signal, to fold recurrences in at the end.
    confidence: Vec<(Cow<'a, str>, u8, u64)>,
    invalid: usize,
    legacy: usize,
    sightings: Sightings,
}

/// The fields of one signal that `stats` counts.
pub(super) struct Counted<'a> {
    id: Cow<'a, str>,
    status: Cow<'a, str>,
    kind: Cow<'a, str>,
    timestamp: Cow<'a, str>,
    confidence: u8,
    seen: u64,
    needs_review: bool,
}

impl<'a> Tally<'a> {
    fn add(&mut self, c: Counted<'a>) {
        self.total += 1;
        if c.status == "captured" {
            self.pending += 1;
            self.oldest_captured = earliest(self.oldest_captured.take(), Some(c.timestamp.clone()));
        }
        self.newest = self.newest.take().max(Some(c.timestamp));
        self.needs_review += usize::from(c.needs_review);
        *self.by_status.entry(c.status).or_default() += 1;
        *self.by_type.entry(c.kind).or_default() += 1;
        self.confidence.push((c.id, c.confidence, c.seen));
    }

    /// Add the tally of the part of the store that follows this one.
    fn merge(&mut self, later: Tally<'a>) {
        self.total += later.total;
        self.pending += later.pending;
        self.needs_review += later.needs_review;
        for (status, n) in later.by_status {
            *self.by_status.entry(status).or_default() += n;
        }
        for (kind, n) in later.by_type {
            *self.by_type.entry(kind).or_default() += n;
        }
        self.oldest_captured = earliest(self.oldest_captured.take(), later.oldest_captured);
        self.newest = self.newest.take().max(later.newest);
        self.confidence.extend(later.confidence);
        self.invalid += later.invalid;
        self.legacy += later.legacy;
        self.sightings.merge(later.sightings);
    }
}

fn earliest<'a>(a: Option<Cow<'a, str>>, b: Option<Cow<'a, str>>) -> Option<Cow<'a, str>> {
    a.into_iter().chain(b).min()
}

impl<'a> Counted<'a> {
    fn of(s: &Signal) -> Counted<'a> {
        let owned = |t: &str| Cow::Owned(t.to_string());
        Counted {
            id: owned(&s.id),
            status: owned(s.status.as_str()),
            kind: owned(s.kind.as_str()),
            timestamp: owned(&s.timestamp),
            confidence: s.confidence,
            seen: s.seen(),
            needs_review: s.meta.get("needs_review") == Some(&Value::Bool(true)),
        }
    }

    /// The counted fields of a scanned signal, borrowed from the line; `None` when one of them
    /// needs the parser (an escape, a timestamp not as reflect writes it).
    pub(super) fn scanned(f: &Fields<'a>) -> Option<Counted<'a>> {
        static NEEDS_REVIEW: LazyLock<Finder<'static>> =
            LazyLock::new(|| Finder::new(b"\"needs_review\":true"));
        static SEEN: LazyLock<Finder<'static>> = LazyLock::new(|| Finder::new(b"\"seen\""));
        let plain = |key| (!f.is_escaped_str(key)).then(|| f.str(key));
        let timestamp = plain(Key::Timestamp)??;
        if !canonical_time(timestamp) {
            return None;
        }
        let meta = f.raw(Key::Meta).unwrap_or(b"{}");
        let seen = SEEN.find(meta).map_or(1, |_| {
            serde_json::from_slice::<serde_json::Map<String, Value>>(meta)
                .ok()
                .and_then(|m| m.get("seen").and_then(Value::as_u64))
                .unwrap_or(1)
        });
        Some(Counted {
            id: Cow::Borrowed(plain(Key::Id)?.unwrap_or("")),
            status: Cow::Borrowed(plain(Key::Status)?.unwrap_or("captured")),
            kind: Cow::Borrowed(plain(Key::Type)?.unwrap_or("")),
            timestamp: Cow::Borrowed(timestamp),
            confidence: f.uint(Key::Confidence).map_or(1, |c| c.min(255) as u8),
            seen,
            needs_review: NEEDS_REVIEW.find(meta).is_some(),
        })
    }
}

/// The [`Tally`] of one part of a store.
fn tally(bytes: &[u8], scan: bool) -> Tally<'_> {
    let mut t = Tally::default();
    let how = if scan { Read::Scan } else { Read::Parse };
    let triage = |_: &[u8]| how;
    read::visit(bytes, triage, |_, view| {
        if view.count_recurrence(&mut t.sightings) {
            return;
        }
        match &view.seen {
            Seen::Scanned(Shape::Signal, f) => {
                if let Some(counted) = Counted::scanned(f) {
                    return t.add(counted);
                }
            }
            Seen::Scanned(..) => return,
            Seen::Parsed(_) => {}
        }
        match view.into_record() {
            Record::Signal(s) => t.add(Counted::of(&s)),
            Record::Legacy(s) => {
                t.legacy += 1;
                t.add(Counted::of(&s));
            }
            Record::Invalid => t.invalid += 1,
            Record::Recur(_) | Record::Foreign => {}
        }
    });
    t
}
