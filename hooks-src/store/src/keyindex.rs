//! The store's key index, `signals.keys` beside it (a sidecar of [`crate::store`]): the dedup key of every recent captured signal
//! with its id and its latest sighting, so an append recognises a repeat however far back in the
//! store its first sighting lies, without reading more of the store than its tail.
//!
//! **Format.** One JSON object a line. The first names the store file it indexes (`{"store":
//! [dev, inode]}`): a rewrite renames a new store into place and writes a new index for it, so an
//! index that names another file (written before a rewrite by a version without the index, or
//! by hand) is stale and ignored. Each other line is an entry `{"k":key,"id":…,"t":captured,
//! "s":session,"p":prompt line,"l":line,"u":uuid}`; the last line of a key wins.
//!
//! **Bounds.** An append reads the whole index once (at most [`MAX_BYTES`]) and parses only the
//! line that last holds each of its batch's keys (a literal search over the whole index). When an append would grow the index past
//! that size, it is compacted: the newest entry of each key, the newest [`KEPT`] keys, written
//! to a temporary file and renamed over it (under the store lock; the store itself is untouched).
//! A rewrite of the store writes a new index from the signals it keeps captured.

use std::collections::HashMap;
use std::fs::{self, OpenOptions};
use std::io::{Read as _, Write};
use std::path::{Path, PathBuf};

use memchr::memmem::Finder;
use serde::{Deserialize, Serialize};

use crate::signal::{Signal, Source, Status};
use reflect_base::fsutil::{self, PRIVATE_FILE};
use reflect_base::platform::modes::CreateMode;

/// Largest index an append reads; past it the index is compacted.
pub const MAX_BYTES: u64 = 512 * 1024;
/// Keys a compacted index keeps (about a quarter of [`MAX_BYTES`]).
pub const KEPT: usize = 1024;

/// One key's entry: the signal it belongs to and its latest sighting.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Entry {
    pub k: String,
    pub id: String,
    /// When the signal was captured (its freshness decides whether it is still a candidate).
    pub t: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub s: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub p: Option<u64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub l: Option<u64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub u: Option<String>,
}

impl Entry {
    /// The entry of `sig` (captured at `captured`, its id `id`) as last seen in `seen`.
    pub fn of(key: &str, id: &str, captured: &str, seen: &Signal) -> Entry {
        Entry {
            k: key.to_string(),
            id: id.to_string(),
            t: captured.to_string(),
            s: seen.session_id.clone(),
            p: prompt_line(&seen.source),
            l: seen.source.line,
            u: seen.source.uuid.clone(),
        }
    }

    /// The signal the entry stands for, as the append's dedup needs it: id, capture time,
    /// and the session and source of its latest sighting.
    pub fn to_signal(&self) -> Signal {
        let mut sig = Signal::new(crate::signal::Kind::Other(String::new()), "");
        sig.id = self.id.clone();
        sig.timestamp = self.t.clone();
        sig.status = Status::Captured;
        sig.session_id = self.s.clone();
        sig.source.line = self.l;
        sig.source.uuid = self.u.clone();
        if let Some(p) = self.p {
            sig.source.extra.insert(PROMPT_LINE.into(), p.into());
        }
        sig
    }
}

/// `source.prompt_line`: the transcript line of the user prompt that opened the turn a sighting
/// came from, which tells one episode of a session from another.
pub const PROMPT_LINE: &str = "prompt_line";

pub fn prompt_line(source: &Source) -> Option<u64> {
    source
        .extra
        .get(PROMPT_LINE)
        .and_then(serde_json::Value::as_u64)
}

#[derive(Serialize, Deserialize)]
struct Header {
    store: (u64, u64),
}

pub fn path(store: &Path) -> PathBuf {
    store.with_extension("keys")
}

/// The identity of the store file (device, inode), `None` when it cannot be read.
fn identity(store: &Path) -> Option<(u64, u64)> {
    reflect_base::platform::file_id::of_path(store)
}

/// The index of a store as an append read it: read once, under the store lock, for both the
/// lookup of its batch's keys and the entries it then records.
pub struct Index {
    /// Its bytes, when it is the index of the store as it is now.
    bytes: Option<Vec<u8>>,
}

impl Index {
    /// Read the index of `store` (none when there is no index or it names another store file).
    pub fn read(store: &Path) -> Index {
        Index {
            bytes: read_index(store),
        }
    }

    /// The entries of `keys` (the last of each). Each key is searched for in the whole index at
    /// once; only the lines holding one are parsed.
    pub fn lookup(&self, keys: &[String]) -> HashMap<String, Entry> {
        let mut found = HashMap::new();
        let Some(bytes) = &self.bytes else {
            return found;
        };
        let entries = memchr::memchr(b'\n', bytes).map_or(bytes.len(), |end| end + 1);
        for key in keys {
            // Found forwards (SIMD), parsed from the end: the last line of a key wins.
            let hits: Vec<usize> = Finder::new(key.as_bytes())
                .find_iter(&bytes[entries..])
                .collect();
            for at in hits.into_iter().rev().map(|at| entries + at) {
                let start = memchr::memrchr(b'\n', &bytes[..at]).map_or(0, |nl| nl + 1);
                let end = memchr::memchr(b'\n', &bytes[at..]).map_or(bytes.len(), |nl| at + nl);
                match serde_json::from_slice::<Entry>(&bytes[start..end]) {
                    Ok(e) if e.k == *key => {
                        found.insert(e.k.clone(), e);
                        break;
                    }
                    _ => {}
                }
            }
        }
        found
    }

    /// Add `entries` to the index of `store` (under the store lock), compacting it when it
    /// would grow past [`MAX_BYTES`]. Best effort: a failure only costs later appends a repeat
    /// they could have recognised.
    pub fn record(self, store: &Path, entries: &[Entry]) {
        if entries.is_empty() {
            return;
        }
        let Some(id) = identity(store) else { return };
        let index = path(store);
        let mut out = Vec::new();
        for e in entries {
            serde_json::to_writer(&mut out, e).expect("serializes");
            out.push(b'\n');
        }
        let len = self.bytes.as_ref().map_or(0, |b| b.len() as u64);
        if self.bytes.is_none() || len + out.len() as u64 > MAX_BYTES {
            let mut all: Vec<Entry> = self
                .bytes
                .iter()
                .flat_map(|b| b.split(|&c| c == b'\n').skip(1))
                .filter_map(|l| serde_json::from_slice(l).ok())
                .collect();
            all.extend(entries.iter().cloned());
            write_whole(&index, id, all);
            return;
        }
        let appended = OpenOptions::new()
            .append(true)
            .create_mode(PRIVATE_FILE)
            .open(&index)
            .and_then(|mut f| f.write_all(&out));
        if appended.is_err() {
            let _ = fs::remove_file(&index);
        }
    }
}

/// The index's bytes when it is the index of `store` as it is now.
fn read_index(store: &Path) -> Option<Vec<u8>> {
    let mut file = fsutil::open_regular(&path(store)).ok()??;
    let len = file.metadata().ok()?.len();
    if len > MAX_BYTES * 2 {
        return None;
    }
    let mut bytes = Vec::with_capacity(len as usize);
    file.read_to_end(&mut bytes).ok()?;
    let first = bytes.split(|&b| b == b'\n').next()?;
    let header: Header = serde_json::from_slice(first).ok()?;
    (Some(header.store) == identity(store)).then_some(bytes)
}

/// Replace the index of the store with identity `id` by `entries` (the last of each key wins;
/// the newest [`KEPT`] keys are kept).
fn write_whole(index: &Path, id: (u64, u64), entries: Vec<Entry>) {
    let mut last: HashMap<&str, usize> = HashMap::new();
    for (i, e) in entries.iter().enumerate() {
        last.insert(&e.k, i);
    }
    let mut order: Vec<usize> = last.into_values().collect();
    order.sort_unstable();
    let skip = order.len().saturating_sub(KEPT);
    let mut out = serde_json::to_vec(&Header { store: id }).expect("serializes");
    out.push(b'\n');
    for &i in &order[skip..] {
        serde_json::to_writer(&mut out, &entries[i]).expect("serializes");
        out.push(b'\n');
    }
    if fsutil::atomic_write(index, &out, PRIVATE_FILE).is_err() {
        let _ = fs::remove_file(index);
    }
}

/// Write the index of `store` anew from the captured signals a rewrite kept (in store order),
/// those captured at or after `fresh_from`.
pub fn rebuild<'a>(store: &Path, signals: impl Iterator<Item = &'a Signal>, fresh_from: &str) {
    let Some(id) = identity(store) else { return };
    let entries: Vec<Entry> = signals
        .filter(|s| s.status == Status::Captured && s.timestamp.as_str() >= fresh_from)
        .filter_map(|s| {
            let key = s.meta.get("dedup_key")?.as_str()?;
            Some(Entry::of(key, &s.id, &s.timestamp, s))
        })
        .collect();
    write_whole(&path(store), id, entries);
}

#[cfg(test)]
mod tests {
    use super::*;

    fn entry(k: &str, id: &str, s: &str) -> Entry {
        Entry {
            k: k.into(),
            id: id.into(),
            t: "2026-11-28T00:00:00Z".into(),
            s: Some(s.into()),
            p: None,
            l: None,
            u: None,
        }
    }

    /// The lookup finds the last entry of each key, and only lines that hold it as their key.
    #[test]
    fn lookup_finds_the_last_entry_of_each_key() {
        let dir = tempfile::tempdir().unwrap();
        let store = dir.path().join("signals.jsonl");
        fs::write(&store, "{}\n").unwrap();
        let a = "aaaaaaaaaaaaaaaa";
        Index::read(&store).record(
            &store,
            &[
                entry(a, "SIG-1", "s1"),
                entry("bbbbbbbbbbbbbbbb", "SIG-2", "s1"),
            ],
        );
        // Appended: two lines of one key, the later one the latest sighting.
        Index::read(&store).record(&store, &[entry(a, "SIG-1", "s2")]);
        let text = fs::read_to_string(path(&store)).unwrap();
        assert_eq!(text.matches(a).count(), 2, "{text}");
        // A later line that names the key in another field is not its entry.
        Index::read(&store).record(
            &store,
            &[entry("cccccccccccccccc", "SIG-3", "aaaaaaaaaaaaaaaa")],
        );
        let keys = ["aaaaaaaaaaaaaaaa", "bbbbbbbbbbbbbbbb", "dddddddddddddddd"].map(String::from);
        let found = Index::read(&store).lookup(&keys);
        assert_eq!(found.len(), 2, "{found:?}");
        assert_eq!(found["aaaaaaaaaaaaaaaa"].s.as_deref(), Some("s2"));
        assert_eq!(found["bbbbbbbbbbbbbbbb"].id, "SIG-2");
        // An index of another store file (a rewrite renamed a new one into place) is no index.
        let new = dir.path().join("new.jsonl");
        fs::write(&new, "{}\n").unwrap();
        fs::rename(&new, &store).unwrap();
        assert!(Index::read(&store).lookup(&keys).is_empty());
    }
}
