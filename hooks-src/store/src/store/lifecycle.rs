//! A signal's life after capture, as rewrites of the store: review (update, dismiss), the TTL
//! rules (prune, flag, archive), the move to the archive file, and the v2 migration.
//!
//! **The review clock.** A signal's TTL counts from when it was last put before the user: its
//! capture, its last sighting (`meta.last_seen`), or its migration from v2 (`meta.migrated_at`),
//! whichever is latest ([`review_since`]). A migrated v2 signal keeps its old `timestamp` as
//! history but gets a full review window (else the first prune, which /reflect runs last,
//! deleted every migrated signal unreviewed). A v2 line not migrated yet has no clock (it is
//! never pruned); one an older version migrated undated is dated at the next prune or migration.

use chrono::{DateTime, Duration, Utc};
use serde_json::Value;

use super::snapshot::Snapshot;
use super::Store;
use crate::signal::{self, Signal, Status, CONFIDENCE_VERIFIED};
use reflect_base::error::{Error, Result};

/// Unreviewed (`captured`) signals older than this are pruned.
pub const CAPTURED_TTL_DAYS: i64 = 14;
/// `analyzed` signals older than this are flagged for review (`meta.needs_review`).
pub const ANALYZED_REVIEW_DAYS: i64 = 30;

/// What `update` changes in a signal; tags are added to its own.
#[derive(Debug, Clone, Default)]
pub struct Changes {
    pub status: Option<Status>,
    pub confidence: Option<u8>,
    pub category: Option<String>,
    pub tags: Vec<String>,
}

impl Store {
    /// Change signals (redacting what the change brings in): all, or none when one is missing.
    pub fn update(
        &self,
        ids: &[String],
        changes: Changes,
        on_wait: &mut dyn FnMut(),
    ) -> Result<()> {
        self.rewrite(on_wait, |snap| {
            self.all_present(snap, ids, "updated")?;
            for id in ids {
                let sig = snap.get_mut(id).expect("checked above");
                sig.status = changes.status.clone().unwrap_or_else(|| sig.status.clone());
                sig.confidence = changes.confidence.unwrap_or(sig.confidence);
                sig.category = changes.category.clone().or_else(|| sig.category.clone());
                for t in &changes.tags {
                    if !sig.tags.contains(t) {
                        sig.tags.push(t.clone());
                    }
                }
                crate::sanitize::clean_signal(sig);
                crate::redact::redact_signal(sig);
            }
            Ok(((), true))
        })
    }

    /// An error naming the ids the store does not hold, when one is missing.
    fn all_present(&self, snap: &Snapshot, ids: &[String], done: &str) -> Result<()> {
        let absent = |id: &&String| snap.get(id).is_none();
        let missing: Vec<&str> = ids.iter().filter(absent).map(String::as_str).collect();
        if missing.is_empty() {
            return Ok(());
        }
        let missing = self.not_found(&missing.join(", "));
        Err(Error::msg(format!("{missing}; nothing {done}")))
    }

    /// Mark signals dismissed: all of them, or (when one is missing) none.
    pub fn dismiss(&self, ids: &[String], on_wait: &mut dyn FnMut()) -> Result<()> {
        self.rewrite(on_wait, |snap| {
            self.all_present(snap, ids, "dismissed")?;
            for id in ids {
                snap.get_mut(id).expect("checked above").status = Status::Dismissed;
            }
            Ok(((), true))
        })
    }

    /// Move the signals of `statuses` (promoted and dismissed when none are given), older than
    /// `days` when given, to the archive file; returns how many moved.
    pub fn archive(
        &self,
        statuses: &[Status],
        days: Option<u32>,
        on_wait: &mut dyn FnMut(),
    ) -> Result<usize> {
        let statuses = match statuses {
            [] => &[Status::Promoted, Status::Dismissed][..],
            given => given,
        };
        let cutoff = days.map(|d| Utc::now() - Duration::days(i64::from(d)));
        self.rewrite(on_wait, |snap| {
            let n = snap.take_to_archive(|s| {
                statuses.contains(&s.status)
                    && cutoff.is_none_or(|c| s.time().is_some_and(|t| t < c))
            });
            Ok((n, n > 0))
        })
    }

    /// Apply the TTL rules now; returns (pruned, flagged for review, archived).
    pub fn prune(&self, on_wait: &mut dyn FnMut()) -> Result<(usize, usize, usize)> {
        self.rewrite(on_wait, |snap| {
            let now = Utc::now();
            let dated = date_migrations(snap, now);
            let counts = apply_ttl(snap, now);
            Ok((counts, dated > 0 || counts != (0, 0, 0)))
        })
    }

    /// Convert every v2 line to schema v1 in place, dated `meta.migrated_at` (see the module docs).
    pub fn migrate_legacy(&self, on_wait: &mut dyn FnMut()) -> Result<usize> {
        self.rewrite(on_wait, |snap| {
            let n = snap.migrate_legacy();
            let dated = date_migrations(snap, Utc::now());
            Ok((n, n > 0 || dated > 0))
        })
    }

    /// Every signal of the store (and of the archive, with `archive`), cleaned and redacted again.
    pub fn export(&self, archive: bool) -> Result<Vec<Signal>> {
        let mut all: Vec<Signal> = self.load()?.signals().cloned().collect();
        if archive {
            all.extend(self.load_archive()?.signals().cloned());
        }
        for s in &mut all {
            crate::sanitize::clean_signal(s);
            crate::redact::redact_signal(s);
        }
        Ok(all)
    }

    /// The error for a signal the store does not hold.
    pub fn not_found(&self, id: &str) -> Error {
        let store = self.paths.store();
        Error::msg(format!("no signal {id} in {}", store.display()))
    }
}

/// When `s`'s review window opened (see the module docs); `None` for a v2 signal not migrated
/// yet, and for one without any readable time.
pub fn review_since(s: &Signal) -> Option<DateTime<Utc>> {
    let text = |key: &str| s.meta.get(key).and_then(Value::as_str);
    let time_of = |key| text(key).and_then(signal::parse_time);
    let migrated = time_of("migrated_at");
    if s.meta.contains_key("migrated_from") && migrated.is_none() {
        return None;
    }
    let times = [s.time(), time_of("last_seen"), migrated];
    times.into_iter().flatten().max()
}

/// Date the migration of every converted v2 signal that has no date yet (`meta.migrated_at`);
/// returns how many were dated. Lines still in v2 form are left for the migration to date.
fn date_migrations(snap: &mut Snapshot, now: DateTime<Utc>) -> usize {
    let undated =
        |s: &Signal| s.meta.contains_key("migrated_from") && !s.meta.contains_key("migrated_at");
    let now = Value::from(signal::format_time(now));
    snap.mark_where(undated, "migrated_at", now)
}

/// Apply the TTL rules at `now`; returns (pruned, flagged for review, archived).
pub(super) fn apply_ttl(snap: &mut Snapshot, now: DateTime<Utc>) -> (usize, usize, usize) {
    let captured_cutoff = now - Duration::days(CAPTURED_TTL_DAYS);
    let review_cutoff = now - Duration::days(ANALYZED_REVIEW_DAYS);
    let stale = |s: &Signal| {
        s.status == Status::Captured
            && s.confidence < CONFIDENCE_VERIFIED
            && review_since(s).is_some_and(|t| t < captured_cutoff)
    };
    let pruned = snap.remove_where(stale).len();
    let due = |s: &Signal| {
        s.status == Status::Analyzed
            && review_since(s).is_some_and(|t| t < review_cutoff)
            && s.meta.get("needs_review") != Some(&Value::Bool(true))
    };
    let flagged = snap.mark_where(due, "needs_review", Value::Bool(true));
    let archived =
        snap.take_to_archive(|s| matches!(s.status, Status::Promoted | Status::Dismissed));
    (pruned, flagged, archived)
}
