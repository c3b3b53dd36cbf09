//! The filter of `memory-store query`: one predicate over [`Selectable`] (a parsed signal, a
//! scanned line, a line's leading fields), so the fast path selects what the full parser does.

use std::borrow::Cow;
use std::path::{Path, PathBuf};
use std::sync::LazyLock;

use chrono::{DateTime, Utc};
use memchr::memmem::Finder;

use super::scan::{self, Fields, Key};
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

/// What a [`Filter`] reads of a signal. A parsed signal knows every answer; scanned fields may
/// not (a string with an escape needs the parser to spell it out), and say `None`.
pub trait Selectable {
    /// A top-level string field: `Some(None)` when absent or not a string, `None` when unknown.
    fn text(&self, key: Key) -> Option<Option<&str>>;
    /// Whether one of the signal's tags is in `wanted`; `None` when unknown.
    fn any_tag(&self, wanted: &[String]) -> Option<bool>;
}

impl Filter {
    pub fn matches(&self, s: &Signal) -> bool {
        self.test(s, None) == Some(true)
    }

    /// Whether `s` matches: `None` when it cannot be told without the full parser (no condition
    /// fails for sure, and one cannot be decided). `since_text` is `since` as reflect writes
    /// times, for a cheaper comparison of timestamps of that shape.
    pub(super) fn test(&self, s: &impl Selectable, since_text: Option<&str>) -> Option<bool> {
        let given: [(bool, &dyn Fn() -> Option<bool>); 6] = [
            (!self.statuses.is_empty(), &|| {
                let status = s.text(Key::Status)?.unwrap_or("captured");
                Some(self.statuses.iter().any(|x| x.as_str() == status))
            }),
            (!self.kinds.is_empty(), &|| {
                let kind = s.text(Key::Type)?.unwrap_or("");
                Some(self.kinds.iter().any(|x| x.as_str() == kind))
            }),
            (self.session.is_some(), &|| {
                Some(s.text(Key::SessionId)? == self.session.as_deref())
            }),
            (self.project.is_some(), &|| {
                let (dir, project) = (self.project.as_deref()?, s.text(Key::Project)?);
                Some(project.is_some_and(|p| within(Path::new(p), dir)))
            }),
            (!self.tags.is_empty(), &|| s.any_tag(&self.tags)),
            (self.since.is_some(), &|| {
                let since = self.since?;
                Some(s.text(Key::Timestamp)?.is_some_and(|ts| match since_text {
                    // Text order is time order for valid timestamps of this shape; a newer-looking
                    // one must still be a time ("a026-…" is not).
                    Some(text) if canonical_time(ts) => {
                        ts >= text && signal::parse_time(ts).is_some()
                    }
                    _ => signal::parse_time(ts).is_some_and(|t| t >= since),
                }))
            }),
        ];
        // The first condition that fails for sure decides; an unknown one leaves `None`.
        let mut verdict = Some(true);
        for (_, condition) in given.iter().filter(|(given, _)| *given) {
            match condition() {
                Some(false) => return Some(false),
                answer => verdict = verdict.and(answer),
            }
        }
        verdict
    }

    /// Whether a line can be passed over on its leading fields alone: it holds a top-level `id`
    /// (so it is a v1 signal, a recurrence, a foreign record or invalid: never a v2 line), no
    /// `"recur"` anywhere and no `\u` escape that could spell one (a recurrence must be
    /// counted), and a leading field that fails the filter. Such a line is a signal that does
    /// not match (a signal has no duplicate keys, so the value seen is its value) or no signal
    /// at all: the full parser would not select it either.
    pub(super) fn rejects_early(&self, line: &[u8], since_text: Option<&str>) -> bool {
        static RECUR: LazyLock<Finder<'static>> = LazyLock::new(|| Finder::new(b"\"recur\""));
        static ESCAPE: LazyLock<Finder<'static>> = LazyLock::new(|| Finder::new(b"\\u"));
        let leading = scan::leading_fields(line);
        leading.has(Key::Id)
            && self.test(&leading, since_text) == Some(false)
            && RECUR.find(line).is_none()
            && ESCAPE.find(line).is_none()
    }
}

/// `path` is `dir` or lies under it (component-wise, so `/a/bc` is not under `/a/b`).
pub fn within(path: &Path, dir: &Path) -> bool {
    path.starts_with(dir)
}

/// A timestamp as written by reflect (`2026-11-22T10:23:00Z`) compares as text.
pub(super) fn canonical_time(ts: &str) -> bool {
    ts.len() == 20 && ts.as_bytes()[10] == b'T' && ts.ends_with('Z')
}

impl Selectable for Signal {
    fn text(&self, key: Key) -> Option<Option<&str>> {
        Some(match key {
            Key::Id => Some(self.id.as_str()),
            Key::Timestamp => Some(self.timestamp.as_str()),
            Key::SessionId => self.session_id.as_deref(),
            Key::Project => self.project.as_deref(),
            Key::Type => Some(self.kind.as_str()),
            Key::Status => Some(self.status.as_str()),
            Key::Content => Some(self.content.as_str()),
            Key::Context => Some(self.context.as_str()),
            Key::Category => self.category.as_deref(),
            Key::PromotedTo => self.promoted_to.as_deref(),
            _ => return None,
        })
    }

    fn any_tag(&self, wanted: &[String]) -> Option<bool> {
        Some(self.tags.iter().any(|t| wanted.contains(t)))
    }
}

/// Of a line's leading fields only a plain string value is known.
impl Selectable for Fields<'_> {
    fn text(&self, key: Key) -> Option<Option<&str>> {
        match self.whole {
            true => (!self.is_escaped_str(key)).then(|| self.str(key)),
            false => self.str(key).map(Some),
        }
    }

    fn any_tag(&self, wanted: &[String]) -> Option<bool> {
        if !self.whole {
            return None;
        }
        let tags: Vec<Cow<str>> = match self.raw(Key::Tags) {
            Some(raw) => serde_json::from_slice(raw).ok()?,
            None => Vec::new(),
        };
        Some(tags.iter().any(|t| wanted.iter().any(|w| w == t)))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_condition_that_fails_for_sure_decides_before_one_that_cannot_be_told() {
        let line = br#"{"id":"SIG-1","type":"gotcha","status":"analyzed","session_id":"s\u0031"}"#;
        let (_, fields) = scan::scan(line).unwrap();
        let session = Filter {
            session: Some("s1".into()),
            ..Filter::default()
        };
        assert_eq!(session.test(&fields, None), None, "an escaped session id");
        let both = Filter {
            statuses: vec![Status::Captured],
            ..session.clone()
        };
        assert_eq!(both.test(&fields, None), Some(false));
        let kind = Filter {
            kinds: vec![Kind::Gotcha],
            ..Filter::default()
        };
        assert_eq!(kind.test(&fields, None), Some(true));
    }
}
