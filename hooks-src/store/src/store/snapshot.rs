//! A whole store file parsed, as rewrites and the full-parse readers hold it: every line with its
//! bytes and its record, recurrences folded into their signals, and the file's health.

use std::collections::HashMap;

use serde_json::Value;

use super::line::Record;
use super::read::{self, Read, Sightings};
use crate::signal::Signal;

/// One line: its original bytes (without the newline) and what they mean.
#[derive(Debug, Clone)]
pub struct Entry {
    raw: Vec<u8>,
    pub record: Record,
    dirty: bool,
}

impl Entry {
    /// The line as read (what forget searches for a name).
    pub fn raw(&self) -> &[u8] {
        &self.raw
    }
    pub fn signal(&self) -> Option<&Signal> {
        match &self.record {
            Record::Signal(s) | Record::Legacy(s) => Some(s),
            _ => None,
        }
    }
    /// Mutable access marks the line for re-serialization on rewrite.
    pub(crate) fn signal_mut(&mut self) -> Option<&mut Signal> {
        match &mut self.record {
            Record::Signal(s) | Record::Legacy(s) => {
                self.dirty = true;
                Some(s)
            }
            _ => None,
        }
    }
}

/// Counts a reader reports about the file it read.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Health {
    pub lines: usize,
    pub signals: usize,
    pub legacy: usize,
    pub recurrences: usize,
    pub foreign: usize,
    pub invalid: usize,
    /// The file does not end with a newline (the last write was cut short).
    pub torn_tail: bool,
    /// 1-based line numbers of the first few invalid lines, for error messages.
    pub invalid_lines: Vec<usize>,
}

/// A parsed store file.
#[derive(Debug, Clone, Default)]
pub struct Snapshot {
    pub entries: Vec<Entry>,
    pub health: Health,
    /// Signals a rewrite should move to the archive file (set by [`Snapshot::take_to_archive`]).
    pub(super) archive_out: Vec<Signal>,
    /// The evidence of later sightings the recurrence records hold, by signal id (oldest first):
    /// a rewrite, which drops the records, keeps it in the signal's `meta.sightings`.
    pub(super) evidence: HashMap<String, Vec<Value>>,
}

impl Snapshot {
    /// Parse file bytes. Recurrence records are folded into their signals (`meta.seen`, confidence).
    pub fn parse(bytes: &[u8]) -> Snapshot {
        let mut snap = Snapshot::default();
        let health = &mut snap.health;
        health.torn_tail = !bytes.is_empty() && !bytes.ends_with(b"\n");
        let mut sightings = Sightings::default();
        let parse = |_: &[u8]| Read::Parse;
        read::visit(bytes, parse, |n, view| {
            health.lines += 1;
            view.count_recurrence(&mut sightings);
            let raw = view.raw().to_vec();
            let record = view.into_record();
            match &record {
                Record::Signal(_) => health.signals += 1,
                Record::Legacy(_) => health.legacy += 1,
                Record::Recur(_) => health.recurrences += 1,
                Record::Foreign => health.foreign += 1,
                Record::Invalid => {
                    health.invalid += 1;
                    if health.invalid_lines.len() < 5 {
                        health.invalid_lines.push(n);
                    }
                }
            }
            snap.entries.push(Entry {
                raw,
                record,
                dirty: false,
            });
        });
        for entry in &mut snap.entries {
            if entry.signal().is_some_and(|s| sightings.contains(&s.id)) {
                let sig = entry.signal_mut().expect("a signal");
                sightings.fold(sig);
                let evidence = sightings.evidence(&sig.id);
                if !evidence.is_empty() {
                    snap.evidence.insert(sig.id.clone(), evidence.to_vec());
                }
            }
        }
        snap
    }

    /// Every signal (v1 and v2), in file order.
    pub fn signals(&self) -> impl Iterator<Item = &Signal> {
        self.entries.iter().filter_map(Entry::signal)
    }

    pub fn get(&self, id: &str) -> Option<&Signal> {
        self.signals().find(|s| s.id == id)
    }

    /// The signal `id` as `memory-store get` shows it: with the evidence of its later sightings
    /// in `meta.sightings` (see [`crate::sighting::add_evidence`]).
    pub fn get_shown(&self, id: &str) -> Option<Signal> {
        let mut sig = self.get(id)?.clone();
        if let Some(evidence) = self.evidence.get(id) {
            crate::sighting::add_evidence(&mut sig, evidence);
        }
        Some(sig)
    }

    /// The signal `id`, marked for rewrite.
    pub fn get_mut(&mut self, id: &str) -> Option<&mut Signal> {
        self.entries
            .iter_mut()
            .find(|e| e.signal().is_some_and(|s| s.id == id))
            .and_then(Entry::signal_mut)
    }

    /// Drop the evidence of every sighting whose bytes `names` says name something forgotten,
    /// from the signals' `meta.sightings` and from the records' evidence a rewrite would keep
    /// (`forget`: a signal of another session keeps its own sightings, not the forgotten one's).
    pub fn drop_evidence_naming(&mut self, names: impl Fn(&[u8]) -> bool) {
        let named = |e: &Value| names(&serde_json::to_vec(e).expect("serializes"));
        for list in self.evidence.values_mut() {
            list.retain(|e| !named(e));
        }
        for entry in &mut self.entries {
            let Some(Value::Array(kept)) = entry.signal().and_then(|s| s.meta.get("sightings"))
            else {
                continue;
            };
            if !kept.iter().any(named) {
                continue;
            }
            let sig = entry.signal_mut().expect("a signal");
            if let Some(Value::Array(kept)) = sig.meta.get_mut("sightings") {
                kept.retain(|e| !named(e));
            }
            entry.raw = serde_json::to_vec(&*sig).expect("serializes");
        }
    }

    /// Drop the signals for which `remove` says yes; returns them.
    pub fn remove_where(&mut self, mut remove: impl FnMut(&Signal) -> bool) -> Vec<Signal> {
        let mut removed = Vec::new();
        self.entries.retain(|e| match e.signal() {
            Some(s) if remove(s) => {
                removed.push(s.clone());
                false
            }
            _ => true,
        });
        removed
    }

    /// Remove the matching signals and queue them for the archive file.
    pub(crate) fn take_to_archive(&mut self, select: impl FnMut(&Signal) -> bool) -> usize {
        let moved = self.remove_where(select);
        let n = moved.len();
        self.archive_out.extend(moved);
        n
    }

    /// Set `meta.<key>` to `value` in each v1 signal `select` picks (v2 lines wait for migration).
    pub(super) fn mark_where(
        &mut self,
        select: impl Fn(&Signal) -> bool,
        key: &str,
        value: Value,
    ) -> usize {
        let mut n = 0;
        for entry in &mut self.entries {
            if let Record::Signal(s) = &mut entry.record {
                if select(s) {
                    s.meta.insert(key.into(), value.clone());
                    entry.dirty = true;
                    n += 1;
                }
            }
        }
        n
    }

    /// Convert every v2 line to schema v1 (their ids are derived from the line, so this is
    /// idempotent); returns how many were converted.
    pub fn migrate_legacy(&mut self) -> usize {
        let mut n = 0;
        for entry in &mut self.entries {
            if let Record::Legacy(s) = &entry.record {
                entry.record = Record::Signal(s.clone());
                entry.dirty = true;
                n += 1;
            }
        }
        n
    }

    /// The bytes a rewrite writes: unchanged lines verbatim, changed signals re-serialized,
    /// recurrences folded away. Invalid lines are returned apart (they go to the quarantine file).
    pub(super) fn render(&self) -> (Vec<u8>, Vec<u8>) {
        let mut out = Vec::with_capacity(self.entries.iter().map(|e| e.raw.len() + 1).sum());
        let mut invalid = Vec::new();
        for entry in &self.entries {
            match &entry.record {
                Record::Recur(_) => {}
                Record::Invalid => invalid.extend(entry.raw.iter().chain(b"\n")),
                Record::Signal(s) | Record::Legacy(s) if entry.dirty => {
                    match self.evidence.get(&s.id) {
                        Some(evidence) => {
                            let mut s = s.clone();
                            crate::sighting::add_evidence(&mut s, evidence);
                            serde_json::to_writer(&mut out, &s)
                        }
                        None => serde_json::to_writer(&mut out, s),
                    }
                    .expect("a signal always serializes");
                    out.push(b'\n');
                }
                _ => {
                    out.extend_from_slice(&entry.raw);
                    out.push(b'\n');
                }
            }
        }
        (out, invalid)
    }
}
