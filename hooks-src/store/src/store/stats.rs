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

/// Counts for `memory-store stats` (its JSON format, field for field). Texts borrow the store's
/// bytes where it spells them plainly.
#[derive(Debug, Clone, Default, Serialize)]
pub struct Stats<'a> {
    pub total: usize,
    /// Unreviewed signals (`captured`): what `/reflect` has to look at.
    pub pending: usize,
    pub by_status: BTreeMap<Cow<'a, str>, usize>,
    pub by_type: BTreeMap<Cow<'a, str>, usize>,
    pub by_confidence: BTreeMap<Cow<'a, str>, usize>,
    pub needs_review: usize,
    pub oldest_captured: Option<Cow<'a, str>>,
    pub newest: Option<Cow<'a, str>>,
    pub invalid_lines: usize,
    pub legacy_lines: usize,
    pub store_bytes: u64,
}

/// The counts of a store's bytes.
pub fn stats(bytes: &[u8]) -> Stats<'_> {
    stats_with(bytes, Pass::for_len(bytes.len()))
}

/// [`stats`] read as `pass` says.
pub fn stats_with(bytes: &[u8], pass: Pass) -> Stats<'_> {
    let work = |part| tally(part, pass.scan);
    let t = read::each_part(bytes, pass.parts, work, Tally::merge);
    let mut by_confidence = [0usize; 256];
    for (id, confidence, seen) in &t.confidence {
        by_confidence[usize::from(t.sightings.confidence(id, *confidence, *seen))] += 1;
    }
    let counted = (0..256).filter(|&c| by_confidence[c] > 0);
    Stats {
        by_confidence: counted
            .map(|c| (c.to_string().into(), by_confidence[c]))
            .collect(),
        store_bytes: bytes.len() as u64,
        ..t.stats
    }
}

/// What `stats` counts over one part of a store, before recurrences are folded in.
#[derive(Default)]
struct Tally<'a> {
    stats: Stats<'a>,
    /// Id, confidence and prior sightings of each signal, to fold recurrences in at the end.
    confidence: Vec<(Cow<'a, str>, u8, u64)>,
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
        let st = &mut self.stats;
        st.total += 1;
        // A summary is context for a review, not a candidate for one.
        if c.status == "captured" && c.kind != "summary" {
            st.pending += 1;
            st.oldest_captured = earliest(st.oldest_captured.take(), Some(c.timestamp.clone()));
        }
        st.newest = st.newest.take().max(Some(c.timestamp));
        st.needs_review += usize::from(c.needs_review);
        *st.by_status.entry(c.status).or_default() += 1;
        *st.by_type.entry(c.kind).or_default() += 1;
        self.confidence.push((c.id, c.confidence, c.seen));
    }

    /// Add the tally of the part of the store that follows this one.
    fn merge(&mut self, later: Tally<'a>) {
        let (st, more) = (&mut self.stats, later.stats);
        st.total += more.total;
        st.pending += more.pending;
        st.needs_review += more.needs_review;
        for (counts, more) in [
            (&mut st.by_status, more.by_status),
            (&mut st.by_type, more.by_type),
        ] {
            for (key, n) in more {
                *counts.entry(key).or_default() += n;
            }
        }
        st.oldest_captured = earliest(st.oldest_captured.take(), more.oldest_captured);
        st.newest = st.newest.take().max(more.newest);
        st.invalid_lines += more.invalid_lines;
        st.legacy_lines += more.legacy_lines;
        self.confidence.extend(later.confidence);
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
                t.stats.legacy_lines += 1;
                t.add(Counted::of(&s));
            }
            Record::Invalid => t.stats.invalid_lines += 1,
            Record::Recur(_) | Record::Foreign => {}
        }
    });
    t
}
