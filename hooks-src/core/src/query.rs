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

#[cfg(test)]
mod tests {
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
}
