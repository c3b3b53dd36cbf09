//! What a user types into memory-store: the values of its flags and the JSON objects `append`
//! takes, checked (a bad value is a usage error naming what would do) and completed.

use std::path::{Path, PathBuf};

use chrono::{DateTime, Duration, Utc};
use serde_json::{Map, Value};

use crate::signal::{self, Kind, Signal, Status, CONFIDENCE_VERIFIED};
use reflect_base::error::{Error, Result};

/// A status given by a user (only known values).
pub fn status(text: &str) -> Result<Status> {
    let status = Status::parse(text);
    if status.is_known() {
        Ok(status)
    } else {
        Err(Error::usage(format!(
            "unknown status (one of: {})",
            Status::KNOWN.join(", ")
        )))
    }
}

/// A type given by a user (only known values).
pub fn kind(text: &str) -> Result<Kind> {
    let kind = Kind::parse(text);
    if kind.is_known() {
        Ok(kind)
    } else {
        Err(Error::usage(format!(
            "unknown type (one of: {})",
            Kind::KNOWN.join(", ")
        )))
    }
}

/// `--since`: a span back from `now` (`30m`, `12h`, `7d`, `2w`) or a date/time (`2026-11-01`,
/// RFC 3339).
pub fn since(text: &str, now: DateTime<Utc>) -> Result<DateTime<Utc>> {
    let text = text.trim();
    let bad = || Error::usage("invalid --since: use 30m, 12h, 7d, 2w or a date such as 2026-11-01");
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

/// [`since`] from the current time.
pub fn since_now(text: &str) -> Result<DateTime<Utc>> {
    since(text, Utc::now())
}

/// A `--project` directory as Claude Code reports a cwd: absolute (taken from the current dir),
/// symlinks resolved when it exists (on Windows without the `\\?\` prefix canonicalizing adds,
/// which no cwd Claude Code reports has).
pub fn project(dir: &Path) -> PathBuf {
    let abs = std::path::absolute(dir).unwrap_or_else(|_| dir.to_path_buf());
    dunce::canonicalize(&abs).unwrap_or(abs)
}

/// Longest `content` `append` takes, in characters: a learning is a sentence or two (capture
/// stores at most a few hundred).
pub(crate) const APPEND_CONTENT_MAX: usize = 2_000;
/// Longest `context` `append` takes, in characters (capture keeps at most 1,500 of an error).
pub(crate) const APPEND_CONTEXT_MAX: usize = 4_000;
/// Largest signal `append` takes, in bytes of JSON, whatever its fields (tags, meta…).
pub(crate) const APPEND_SIGNAL_MAX_BYTES: usize = 16 * 1024;
/// Largest input `append -` reads: many signals at once, never a file dumped by mistake.
pub const APPEND_INPUT_MAX_BYTES: usize = 4 << 20;

/// One object `append` is given: a new signal, or (`"same_as": ID`) one more sighting of the
/// stored signal ID, with its own session, source and words.
#[derive(Debug)]
pub enum Item {
    New(Signal),
    SameAs(String, Signal),
}

impl Item {
    /// The new signal, or the sighting's evidence.
    pub fn signal(&self) -> &Signal {
        match self {
            Item::New(s) | Item::SameAs(_, s) => s,
        }
    }

    pub fn signal_mut(&mut self) -> &mut Signal {
        match self {
            Item::New(s) | Item::SameAs(_, s) => s,
        }
    }
}

/// The objects `append` is given: one object, an array of objects, or JSON lines; each checked
/// and completed ([`signal_from`]). Input larger than the bounds above is refused, not cut: the
/// caller meant to store something else, and nothing of it is stored.
///
/// Evidence must name a real place ([`names_a_real_place`]): `known(session, project)` says
/// whether a `session_id` an object gives is a session the store or Claude Code's transcripts
/// know. One object refused refuses the whole input.
pub fn items(text: &str, known: impl Fn(&str, Option<&str>) -> Result<bool>) -> Result<Vec<Item>> {
    if text.len() > APPEND_INPUT_MAX_BYTES {
        return Err(Error::usage(format!(
            "append: the input is {} bytes; at most {APPEND_INPUT_MAX_BYTES} (nothing stored)",
            text.len()
        )));
    }
    objects(text)?
        .into_iter()
        .map(|fields| {
            within_bounds(&fields)?;
            // Only a session the object names is checked: one filled in from the environment
            // (the session `append` runs in) is real, and an object with none stays valid.
            let given = fields
                .get("session_id")
                .and_then(Value::as_str)
                .map(str::to_string);
            let item = item_from(fields)?;
            names_a_real_place(&item, given.as_deref(), &known)?;
            Ok(item)
        })
        .collect()
}

/// Refuse evidence that points nowhere: a `source.line` below 1 (lines count from 1, as the
/// digest's `L<line>`), or a `session_id` that `known` does not know (the store has no such
/// session and Claude Code no such transcript).
fn names_a_real_place(
    item: &Item,
    session: Option<&str>,
    known: &impl Fn(&str, Option<&str>) -> Result<bool>,
) -> Result<()> {
    let (Item::New(sig) | Item::SameAs(_, sig)) = item;
    if sig.source.line == Some(0) {
        return Err(Error::usage(
            "append: \"source.line\" must be 1 or more: the transcript line, as the digest's L<line> gives it (nothing stored)",
        ));
    }
    if let Some(session) = session {
        if !known(session, sig.project.as_deref())? {
            return Err(Error::usage(
                "append: \"session_id\" is no session the store or Claude Code's transcripts know: give the id of a digest's \"## session\" heading (nothing stored)",
            ));
        }
    }
    Ok(())
}

fn item_from(mut fields: Map<String, Value>) -> Result<Item> {
    let Some(target) = fields.remove("same_as") else {
        return signal_from(fields).map(Item::New);
    };
    let target = target
        .as_str()
        .filter(|id| id.starts_with("SIG-") && id.len() <= 64)
        .filter(|id| id.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'-'))
        .ok_or_else(|| Error::usage("append: \"same_as\" must be a signal id (SIG-…)"))?
        .to_string();
    // A sighting's words are its `content`, else its evidence (`context`); its type is its
    // signal's, so none need be given.
    let words = ["content", "context"]
        .iter()
        .find_map(|f| {
            fields
                .get(*f)
                .and_then(Value::as_str)
                .filter(|t| !t.trim().is_empty())
        })
        .map(str::to_string)
        .ok_or_else(|| {
            Error::usage("append: a \"same_as\" sighting needs its words in \"context\"")
        })?;
    fields.insert("content".into(), Value::from(words));
    fields.insert("type".into(), Value::from("discovery"));
    signal_from(fields).map(|sig| Item::SameAs(target, sig))
}

/// Refuse a signal over [`APPEND_CONTENT_MAX`], [`APPEND_CONTEXT_MAX`] or
/// [`APPEND_SIGNAL_MAX_BYTES`], saying which bound and by how much.
fn within_bounds(fields: &Map<String, Value>) -> Result<()> {
    for (field, max) in [
        ("content", APPEND_CONTENT_MAX),
        ("context", APPEND_CONTEXT_MAX),
    ] {
        let chars = fields
            .get(field)
            .and_then(Value::as_str)
            .map_or(0, |t| t.chars().count());
        if chars > max {
            return Err(Error::usage(format!(
                "append: \"{field}\" is {chars} characters; at most {max} (nothing stored)"
            )));
        }
    }
    let bytes = serde_json::to_string(fields).map_or(0, |j| j.len());
    if bytes > APPEND_SIGNAL_MAX_BYTES {
        return Err(Error::usage(format!(
            "append: a signal is {bytes} bytes of JSON; at most {APPEND_SIGNAL_MAX_BYTES} (nothing stored)"
        )));
    }
    Ok(())
}

fn objects(text: &str) -> Result<Vec<Map<String, Value>>> {
    let objects = match serde_json::from_str::<Value>(text) {
        Ok(Value::Object(m)) => vec![m],
        Ok(Value::Array(items)) => items
            .into_iter()
            .map(|v| match v {
                Value::Object(m) => Ok(m),
                _ => Err(Error::usage(
                    "append: every array element must be a JSON object",
                )),
            })
            .collect::<Result<_>>()?,
        Ok(_) => return Err(Error::usage("append: expected a JSON object")),
        Err(whole) => {
            let mut out = Vec::new();
            for (n, line) in text
                .lines()
                .enumerate()
                .filter(|(_, l)| !l.trim().is_empty())
            {
                match serde_json::from_str::<Value>(line) {
                    Ok(Value::Object(m)) => out.push(m),
                    Ok(_) => {
                        return Err(Error::usage(format!(
                            "append: line {} is not a JSON object",
                            n + 1
                        )))
                    }
                    Err(_) if out.is_empty() && n == 0 => {
                        return Err(Error::usage(format!("append: not JSON: {whole}")))
                    }
                    Err(e) => {
                        return Err(Error::usage(format!(
                            "append: line {} is not JSON: {e}",
                            n + 1
                        )))
                    }
                }
            }
            out
        }
    };
    if objects.is_empty() {
        return Err(Error::usage("append: no signal given"));
    }
    Ok(objects)
}

/// `message` with what it quotes (serde names the value it could not take: `invalid type:
/// string "…", expected …`) left out: a usage error never prints back what was typed.
fn without_quoted(message: &str) -> String {
    match (message.find('"'), message.rfind('"')) {
        (Some(a), Some(b)) if a < b => format!("{}\"…\"{}", &message[..a], &message[b + 1..]),
        _ => message.to_string(),
    }
}

/// A signal from one object a user gave: its type, status and confidence checked, and what a
/// person would expect filled in (the current dir as project, the Claude Code session, `cli`).
fn signal_from(mut fields: Map<String, Value>) -> Result<Signal> {
    fields.insert("id".into(), Value::from(""));
    let type_name = fields
        .get("type")
        .and_then(Value::as_str)
        .unwrap_or_default();
    kind(type_name).map_err(|_| {
        Error::usage(format!(
            "append: \"type\" must be one of: {}",
            Kind::KNOWN.join(", ")
        ))
    })?;
    if let Some(text) = fields.get("status").and_then(Value::as_str) {
        status(text)?;
    }
    if let Some(c) = fields.get("confidence") {
        if c.as_u64() == Some(u64::from(CONFIDENCE_VERIFIED)) {
            // Verified is the user's word on a stored signal, never what a writer claims.
            return Err(Error::usage(
                "append: \"confidence\" 4 (verified) comes only from the user: `memory-store update ID --confidence 4`",
            ));
        }
        if !c.as_u64().is_some_and(|c| (1..=3).contains(&c)) {
            return Err(Error::usage("append: \"confidence\" must be 1, 2 or 3"));
        }
    }
    let mut sig: Signal = serde_json::from_value(Value::Object(fields))
        .map_err(|e| Error::usage(format!("append: {}", without_quoted(&e.to_string()))))?;
    if sig.content.trim().is_empty() {
        return Err(Error::usage("append: \"content\" is empty"));
    }
    if sig.project.is_none() {
        sig.project = std::env::current_dir()
            .ok()
            .map(|d| d.display().to_string());
    }
    if sig.session_id.is_none() {
        sig.session_id = std::env::var("CLAUDE_CODE_SESSION_ID")
            .ok()
            .filter(|s| !s.is_empty());
    }
    if sig.source.hook.is_none() {
        sig.source.hook = Some("cli".into());
    }
    Ok(sig)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn since_accepts_spans_and_dates() {
        let now = signal::parse_time("2026-11-22T12:00:00Z").unwrap();
        let at = |t: &str| signal::parse_time(t).unwrap();
        assert_eq!(since("7d", now).unwrap(), at("2026-11-15T12:00:00Z"));
        assert_eq!(since("12h", now).unwrap(), at("2026-11-22T00:00:00Z"));
        assert_eq!(
            since("2026-11-01", now).unwrap(),
            at("2026-11-01T00:00:00Z")
        );
        assert!(since("7x", now).unwrap_err().is_usage());
        assert!(since("soon", now).is_err());
    }

    #[test]
    fn append_refuses_what_is_over_its_bounds() {
        let one = |content: usize, context: usize| {
            let v = serde_json::json!({"type": "correction", "content": "é".repeat(content),
                "context": "x".repeat(context)});
            items(&v.to_string(), |_, _| Ok(true))
        };
        assert!(one(APPEND_CONTENT_MAX, APPEND_CONTEXT_MAX).is_ok());
        let err = one(APPEND_CONTENT_MAX + 1, 0).unwrap_err();
        assert!(err.is_usage() && err.to_string().contains("\"content\" is 2001 characters"));
        let err = one(1, APPEND_CONTEXT_MAX + 1).unwrap_err();
        assert!(
            err.to_string().contains("\"context\" is 4001 characters"),
            "{err}"
        );
        let fat = serde_json::json!({"type": "correction", "content": "x",
            "meta": {"blob": "y".repeat(APPEND_SIGNAL_MAX_BYTES)}});
        assert!(items(&fat.to_string(), |_, _| Ok(true))
            .unwrap_err()
            .to_string()
            .contains("bytes of JSON"));
        let line = format!(
            "{}\n",
            serde_json::json!({"type": "correction", "content": "z"})
        );
        let many = line.repeat(APPEND_INPUT_MAX_BYTES / line.len() + 1);
        let refused = items(&many, |_, _| Ok(true)).err().map(|e| e.to_string());
        assert!(refused.is_some_and(|e| e.contains("the input is")));
    }

    #[test]
    fn statuses_and_types_are_only_known_values() {
        assert_eq!(status("analyzed").unwrap(), Status::Analyzed);
        assert_eq!(kind("gotcha").unwrap(), Kind::Gotcha);
        assert!(status("snoozed").unwrap_err().is_usage());
        assert!(kind("insight").unwrap_err().is_usage());
    }
}
