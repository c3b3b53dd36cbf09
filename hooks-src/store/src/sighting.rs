//! What a sighting of an already-stored signal adds to it, beyond a count (the store's
//! recurrence records, [`Recurrence`]): each later sighting's evidence, a failure's resolution
//! found after it was stored, a newer version of a resumed session's summary; and the rule of
//! what is a new sighting at all ([`same_episode`]). The store reads and folds these; the rules
//! live here, apart from the line format.
//!
//! * **Evidence**: every recurrence keeps its own session, transcript line, prompt line and
//!   words (redacted as the signal was); a signal shows its later sightings newest first in
//!   `meta.sightings`, at most [`SIGHTINGS_KEPT`] (a rewrite writes them there when it folds the
//!   records away).
//! * **Episodes**: `seen` counts episodes, not retries. A sighting in the same session and the
//!   same turn (the same prompt line, else the same transcript line) as the latest one is a
//!   retry: nothing is recorded. The failure hook's reports, which know neither, are one
//!   episode of their session. A sighting of the latest one's transcript entry (its uuid) in
//!   another session is that entry copied (a resumed or forked session's file): nothing either.
//! * **Completion and update**: a record marked `completes` is no sighting; it brings a
//!   failure's `resolution`, or (`update`) a newer `content`, `context` and `meta`. The newest
//!   wins.

use serde_json::{Map, Value};

use crate::keyindex::{prompt_line, PROMPT_LINE};
use crate::signal::{Recurrence, Signal, Source};

/// How many later sightings a signal keeps as evidence (`meta.sightings`, newest first).
pub const SIGHTINGS_KEPT: usize = 8;

/// What later records add to one signal besides their count.
#[derive(Debug, Default, Clone)]
pub struct Later {
    /// The newest resolution a record brought, with its time.
    resolution: Option<(String, String)>,
    /// The newest update of its fields a record brought, with its time.
    update: Option<(String, Value)>,
    /// The evidence of the last [`SIGHTINGS_KEPT`] sightings, oldest first.
    evidence: Vec<Value>,
}

impl Later {
    /// What record `r`, read whole, adds.
    pub fn add(&mut self, r: &Recurrence) {
        let at = &r.timestamp;
        if let Some(update) = r.update.as_ref().filter(|u| u.is_object()) {
            newest(&mut self.update, at, update.clone());
        }
        if let Some(how) = r.resolution.as_ref().filter(|h| !h.is_empty()) {
            newest(&mut self.resolution, at, how.clone());
        }
        if !r.completes {
            self.evidence.push(evidence(r));
            let over = self.evidence.len().saturating_sub(SIGHTINGS_KEPT);
            self.evidence.drain(..over);
        }
    }

    /// Add what the records of a later part of the store added.
    pub fn merge(&mut self, later: Later) {
        if let Some((at, how)) = later.resolution {
            newest(&mut self.resolution, &at, how);
        }
        if let Some((at, update)) = later.update {
            newest(&mut self.update, &at, update);
        }
        self.evidence.extend(later.evidence);
        let over = self.evidence.len().saturating_sub(SIGHTINGS_KEPT);
        self.evidence.drain(..over);
    }

    /// The evidence of the later sightings, oldest first.
    pub fn evidence(&self) -> &[Value] {
        &self.evidence
    }

    /// Fold the resolution (into a signal without one) and the update into `sig`.
    pub fn apply(&self, sig: &mut Signal) {
        if sig.resolution.is_none() {
            sig.resolution = self.resolution.as_ref().map(|(_, how)| how.clone());
        }
        let Some((_, Value::Object(update))) = &self.update else {
            return;
        };
        for (field, value) in update {
            match (field.as_str(), value) {
                ("content", Value::String(text)) => sig.content = text.clone(),
                ("context", Value::String(text)) => sig.context = text.clone(),
                ("meta", Value::Object(meta)) => sig.meta.extend(meta.clone()),
                _ => {}
            }
        }
    }
}

fn newest<T>(slot: &mut Option<(String, T)>, at: &str, value: T) {
    if slot.as_ref().is_none_or(|(mine, _)| at >= mine.as_str()) {
        *slot = Some((at.to_string(), value));
    }
}

/// Add `evidence` (oldest first) to the front of `sig`'s `meta.sightings`, newest first, bounded.
pub fn add_evidence(sig: &mut Signal, evidence: &[Value]) {
    if evidence.is_empty() {
        return;
    }
    let mut all: Vec<Value> = evidence.iter().rev().cloned().collect();
    if let Some(Value::Array(kept)) = sig.meta.get("sightings") {
        all.extend(kept.iter().cloned());
    }
    all.truncate(SIGHTINGS_KEPT);
    sig.meta.insert("sightings".into(), Value::Array(all));
}

/// The sightings `sig` keeps in `meta.sightings` (newest first), each as its session and a source
/// holding its hook, transcript line and prompt line.
pub fn kept(sig: &Signal) -> impl Iterator<Item = (&str, Source)> {
    let kept = sig.meta.get("sightings").and_then(Value::as_array);
    kept.into_iter().flatten().filter_map(|e| {
        let session = e.get("session_id")?.as_str()?;
        let mut source = Source {
            hook: e.get("hook").and_then(Value::as_str).map(str::to_string),
            line: e.get("line").and_then(Value::as_u64),
            ..Default::default()
        };
        if let Some(at) = e.get(PROMPT_LINE).filter(|v| v.is_u64()) {
            source.extra.insert(PROMPT_LINE.into(), at.clone());
        }
        Some((session, source))
    })
}

/// What one sighting shows a reviewer: when, in which session, from which transcript line (and
/// the prompt of its turn), in which words, and what resolved it.
fn evidence(r: &Recurrence) -> Value {
    let mut e = Map::new();
    e.insert("at".into(), Value::from(r.timestamp.as_str()));
    let mut put = |k: &str, v: Option<Value>| drop(v.map(|v| e.insert(k.into(), v)));
    put("session_id", r.session_id.as_deref().map(Value::from));
    put("line", r.source.line.map(Value::from));
    put(PROMPT_LINE, prompt_line(&r.source).map(Value::from));
    put("hook", r.source.hook.as_deref().map(Value::from));
    put("said", r.said.as_deref().map(Value::from));
    put("resolution", r.resolution.as_deref().map(Value::from));
    Value::Object(e)
}

/// A record of `sig` seen again as a sighting of signal `target`, with its words as evidence.
pub fn recurrence(target: &str, sig: &Signal) -> Recurrence {
    Recurrence {
        recur: target.to_string(),
        timestamp: sig.timestamp.clone(),
        session_id: sig.session_id.clone(),
        source: sig.source.clone(),
        tool_use_id: sig.tool_use_id().map(str::to_string),
        said: Some(sig.content.clone()),
        resolution: sig.resolution.clone(),
        completes: false,
        update: None,
    }
}

/// A record that completes `target` with what `sig` knows: its resolution, or (`update`) its
/// newer fields; no sighting.
pub fn completion(target: &str, sig: &Signal, update: bool) -> Recurrence {
    let fields =
        serde_json::json!({"content": sig.content, "context": sig.context, "meta": sig.meta});
    Recurrence {
        said: None,
        resolution: (!update).then(|| sig.resolution.clone()).flatten(),
        completes: true,
        update: update.then_some(fields),
        ..recurrence(target, sig)
    }
}

/// The failure hook's `source.hook`.
const HOOK: &str = "PostToolUseFailure";

/// Whether `sig` is a sighting of the same episode as `prev`'s latest one (see the module doc).
pub fn same_episode(prev: &Signal, sig: &Signal) -> bool {
    let (a, b) = (&prev.source, &sig.source);
    // The same transcript entry, in whichever session: a resumed or forked session's file
    // repeats the conversation it continues under the entries' own uuids.
    if a.uuid.is_some() && a.uuid == b.uuid {
        return true;
    }
    if prev.session_id.is_none() || prev.session_id != sig.session_id {
        return false;
    }
    if a.line.is_some() && a.line == b.line {
        return true;
    }
    match (prompt_line(a), prompt_line(b)) {
        (Some(x), Some(y)) => x == y,
        _ => match (a.line, b.line) {
            (Some(x), Some(y)) => x == y,
            // The failure hook knows no turn: its reports in one session are one episode.
            _ => a.hook.as_deref() == Some(HOOK) && b.hook.as_deref() == Some(HOOK),
        },
    }
}
