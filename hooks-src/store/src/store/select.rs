//! Selecting the signals of a store's bytes that match a [`Filter`] (`memory-store query`), in
//! one pass of the reader, split over the cores for a large store.
//!
//! A line whose leading fields fail the filter is passed over unscanned; a scanned signal is
//! decided on its fields and printed as stored when it holds every field reflect writes and has
//! nothing to fold in. Only lines the scanner cannot vouch for and hits needed whole are parsed.

use super::filter::Filter;
use super::line::{parse_line, Record};
use super::read::{self, Pass, Read, Seen, Sightings, View};
use super::scan::{Key, Shape};
use crate::signal::{self, Signal, V1_FIELDS};

/// A selected signal: the stored line itself while it can be printed as it is.
enum Hit<'a> {
    Raw { line: &'a [u8], id: &'a str },
    Parsed(Box<Signal>),
}

/// What [`select`] found, in store order.
pub struct Selection<'a> {
    hits: Vec<Hit<'a>>,
    sightings: Sightings,
}

/// The signals of `bytes` that match `filter`, in store order, with their recurrences.
pub fn select<'a>(bytes: &'a [u8], filter: &Filter) -> Selection<'a> {
    select_with(bytes, filter, Pass::for_len(bytes.len()))
}

/// [`select`] read as `pass` says.
pub fn select_with<'a>(bytes: &'a [u8], filter: &Filter, pass: Pass) -> Selection<'a> {
    let since_text = filter.since.map(signal::format_time);
    let since_text = since_text.as_deref();
    let work = |part| select_part(part, filter, since_text, pass.scan);
    read::each_part(bytes, pass.parts, work, |all, part| {
        all.hits.extend(part.hits);
        all.sightings.merge(part.sightings);
    })
}

fn select_part<'a>(
    bytes: &'a [u8],
    filter: &Filter,
    since_text: Option<&str>,
    scan: bool,
) -> Selection<'a> {
    let mut hits = Vec::new();
    let mut sightings = Sightings::default();
    let triage = |line| match scan {
        true if filter.rejects_early(line, since_text) => Read::Skip,
        true => Read::Scan,
        false => Read::Parse,
    };
    read::visit(bytes, triage, |_, view| {
        let signal = matches!(view.shape(), Some(Shape::Signal | Shape::Legacy));
        if view.count_recurrence(&mut sightings) || !signal {
            return;
        }
        match (filter.test(&view, since_text), complete(&view)) {
            (Some(false), _) => {}
            (Some(true), Some(id)) => hits.push(Hit::Raw {
                line: view.raw(),
                id,
            }),
            _ => {
                if let Some(s) = view.into_signal().filter(|s| filter.matches(s)) {
                    hits.push(Hit::Parsed(Box::new(s)));
                }
            }
        }
    });
    Selection { hits, sightings }
}

/// The id of a scanned signal that holds every field reflect writes (so it prints as stored).
pub(super) fn complete<'a>(view: &View<'a>) -> Option<&'a str> {
    match &view.seen {
        Seen::Scanned(Shape::Signal, f)
            if Key::ALL[..V1_FIELDS.len()].iter().all(|k| f.has(*k)) =>
        {
            f.str(Key::Id)
        }
        _ => None,
    }
}

impl Selection<'_> {
    /// Keep only the `n` newest hits.
    pub fn keep_newest(&mut self, n: usize) {
        let drop = self.hits.len().saturating_sub(n);
        self.hits.drain(..drop);
    }

    fn whole(&self, hit: &Hit) -> Option<Signal> {
        let mut sig = match hit {
            Hit::Raw { line, .. } => match parse_line(line) {
                Record::Signal(s) => *s,
                _ => return None,
            },
            Hit::Parsed(s) => (**s).clone(),
        };
        self.sightings.fold(&mut sig);
        crate::sanitize::clean_signal(&mut sig); // whatever an older version stored
        Some(sig)
    }

    /// The hits as whole signals (recurrences folded in).
    pub fn into_signals(self) -> Vec<Signal> {
        self.hits.iter().filter_map(|h| self.whole(h)).collect()
    }

    /// The hits as JSON lines: stored lines verbatim where nothing needs filling or folding.
    pub fn jsonl(&self) -> Vec<u8> {
        let size = |hit: &Hit| match hit {
            Hit::Raw { line, .. } => line.len() + 1,
            Hit::Parsed(_) => 512,
        };
        let mut out = Vec::with_capacity(self.hits.iter().map(size).sum());
        for hit in &self.hits {
            match hit {
                Hit::Raw { line, id }
                    if !self.sightings.contains(id) && crate::sanitize::is_clean_json(line) =>
                {
                    out.extend_from_slice(line)
                }
                _ => match self.whole(hit) {
                    Some(sig) => serde_json::to_writer(&mut out, &sig).expect("serializes"),
                    None => continue,
                },
            }
            out.push(b'\n');
        }
        out
    }
}
