//! Wire types of the Claude Code hook payloads we read, and the one JSON object we ever print.
//!
//! Payloads are tolerant: every field is optional, `null` is absent, a field of the wrong type is
//! treated as absent rather than failing the whole payload, unknown fields are ignored. The
//! detectors never see raw JSON; they get the few fields below.
//!
//! **Caps.** Every size a payload controls is capped here, as it is parsed, before anything is
//! stored or logged (a 15 MB `session_id` would otherwise be stored in every signal):
//!
//! | field | cap | over the cap |
//! |---|---|---|
//! | the whole payload | [`MAX_PAYLOAD_BYTES`] (16 MB) | not parsed; logged |
//! | `session_id`, `tool_use_id`, `agent_id` | [`MAX_ID`] bytes | cut, with a hash of the whole id, so two long ids stay apart and one id always maps to the same stand-in |
//! | `cwd`, `transcript_path` | [`MAX_PATH`] bytes (`PATH_MAX`) | dropped: no system call accepts such a path; noted in the error log |
//! | `tool_name`, `hook_event_name`, `source`, `trigger`, `reason` | [`MAX_NAME`] bytes | cut |
//! | `error` | [`MAX_ERROR`] bytes | cut (the failure hook reads 16 KB of it: [`reflect_detect::failure`]) |
//! | `tool_input` | — | the failure hook keeps one field of it, 160 characters ([`reflect_detect::failure::input_summary`]) |
//!
//! A line of the error log is capped too ([`reflect_base::fsutil::LOG_LINE_MAX`]), and a transcript is
//! read at most [`reflect_transcript::READ_MAX`] bytes a run, its lines parsed up to
//! [`reflect_transcript::MAX_LINE`].

use serde::{Deserialize, Deserializer, Serialize};
use serde_json::Value;

use reflect_base::paths;
use reflect_detect::failure::ToolFailure;
use std::path::Path;

/// Largest payload a hook reads from stdin. PostToolUseFailure errors are capped at ~10,000 chars
/// by Claude Code, so anything near this size is not a real payload.
pub const MAX_PAYLOAD_BYTES: usize = 16 * 1024 * 1024;
/// Longest id kept whole (Claude Code's session ids are 36-byte uuids, tool call ids ~30 bytes).
pub const MAX_ID: usize = 128;
/// Longest path kept: the system's `PATH_MAX`; no system call accepts a longer one.
pub const MAX_PATH: usize = libc::PATH_MAX as usize;
/// Longest name kept (a tool, an event, a reason: an MCP tool's name is well under this).
pub const MAX_NAME: usize = 128;
/// Longest error text kept.
pub const MAX_ERROR: usize = 64 * 1024;

/// A string field that may be missing, `null`, or of another type (then treated as missing).
fn lenient_string<'de, D: Deserializer<'de>>(d: D) -> Result<Option<String>, D::Error> {
    Ok(match Value::deserialize(d)? {
        Value::String(s) => Some(s),
        _ => None,
    })
}

fn lenient_bool<'de, D: Deserializer<'de>>(d: D) -> Result<Option<bool>, D::Error> {
    Ok(match Value::deserialize(d)? {
        Value::Bool(b) => Some(b),
        _ => None,
    })
}

/// The fields of any hook payload that reflect uses.
#[derive(Debug, Default, Clone, Deserialize)]
#[serde(default)]
pub struct Payload {
    #[serde(deserialize_with = "lenient_string")]
    pub session_id: Option<String>,
    #[serde(deserialize_with = "lenient_string")]
    pub transcript_path: Option<String>,
    #[serde(deserialize_with = "lenient_string")]
    pub cwd: Option<String>,
    #[serde(deserialize_with = "lenient_string")]
    pub hook_event_name: Option<String>,
    /// SessionStart: startup | resume | clear | compact | fork.
    #[serde(deserialize_with = "lenient_string")]
    pub source: Option<String>,
    /// PreCompact: manual | auto.
    #[serde(deserialize_with = "lenient_string")]
    pub trigger: Option<String>,
    /// SessionEnd: clear | resume | logout | prompt_input_exit | other.
    #[serde(deserialize_with = "lenient_string")]
    pub reason: Option<String>,
    #[serde(deserialize_with = "lenient_string")]
    pub tool_name: Option<String>,
    pub tool_input: Option<Value>,
    #[serde(deserialize_with = "lenient_string")]
    pub tool_use_id: Option<String>,
    #[serde(deserialize_with = "lenient_string")]
    pub error: Option<String>,
    #[serde(deserialize_with = "lenient_bool")]
    pub is_interrupt: Option<bool>,
    /// Set inside sub-agents; their failures belong to the parent session.
    #[serde(deserialize_with = "lenient_string")]
    pub agent_id: Option<String>,
    /// Fields dropped for being over their cap, as notes for the error log.
    #[serde(skip)]
    pub dropped: Vec<String>,
}

impl Payload {
    /// The failed tool call a PostToolUseFailure payload reports, for the failure detector.
    pub fn tool_failure(&self) -> ToolFailure<'_> {
        ToolFailure {
            session_id: self.session_id.as_deref(),
            cwd: self.cwd.as_deref(),
            tool_name: self.tool_name.as_deref(),
            tool_input: self.tool_input.as_ref(),
            tool_use_id: self.tool_use_id.as_deref(),
            error: self.error.as_deref(),
            is_interrupt: self.is_interrupt,
            agent_id: self.agent_id.as_deref(),
        }
    }

    /// Whether capture is off for this payload's project (`.claude/reflect.off` in its cwd or
    /// above, up to the repository root: see [`paths::opt_out_marker_for`]).
    pub fn opted_out(&self) -> bool {
        self.cwd
            .as_deref()
            .is_some_and(|cwd| paths::project_opted_out(Path::new(cwd)))
    }

    /// Apply the caps of the module docs.
    fn cap(&mut self) {
        for id in [
            &mut self.session_id,
            &mut self.tool_use_id,
            &mut self.agent_id,
        ]
        .into_iter()
        .flatten()
        {
            if id.len() > MAX_ID {
                *id = capped_id(id);
            }
        }
        for (name, path) in [
            ("cwd", &mut self.cwd),
            ("transcript_path", &mut self.transcript_path),
        ] {
            if path.as_ref().is_some_and(|p| p.len() > MAX_PATH) {
                let len = path.take().map_or(0, |p| p.len());
                self.dropped.push(format!(
                    "payload field {name} of {len} bytes is longer than any path ({MAX_PATH}); ignored"
                ));
            }
        }
        for (field, max) in [
            (&mut self.tool_name, MAX_NAME),
            (&mut self.hook_event_name, MAX_NAME),
            (&mut self.source, MAX_NAME),
            (&mut self.trigger, MAX_NAME),
            (&mut self.reason, MAX_NAME),
            (&mut self.error, MAX_ERROR),
        ] {
            if let Some(text) = field {
                let keep = reflect_base::text::truncate(text, max).len();
                text.truncate(keep);
            }
        }
    }
}

/// An id over [`MAX_ID`] bytes as stored: its head and a hash of all of it.
fn capped_id(id: &str) -> String {
    let head = reflect_base::text::truncate(id, MAX_ID - 18);
    format!(
        "{head}~{:016x}",
        reflect_store::signal::fnv1a(id.as_bytes())
    )
}

/// Why a payload could not be read (for the error log; never shown to Claude).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum PayloadError {
    Empty,
    TooLarge(usize),
    NotJson(String),
    NotAnObject,
}

impl std::fmt::Display for PayloadError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            PayloadError::Empty => f.write_str("empty payload on stdin"),
            PayloadError::TooLarge(n) => write!(
                f,
                "payload of {n} bytes is larger than the {MAX_PAYLOAD_BYTES}-byte limit"
            ),
            PayloadError::NotJson(e) => write!(f, "payload is not JSON: {e}"),
            PayloadError::NotAnObject => f.write_str("payload is JSON but not an object"),
        }
    }
}

/// Parse a payload. Invalid UTF-8 inside strings is replaced rather than rejected.
pub fn parse_payload(bytes: &[u8]) -> Result<Payload, PayloadError> {
    if bytes.len() > MAX_PAYLOAD_BYTES {
        return Err(PayloadError::TooLarge(bytes.len()));
    }
    if bytes.iter().all(u8::is_ascii_whitespace) {
        return Err(PayloadError::Empty);
    }
    let value: Value = match serde_json::from_slice(bytes) {
        Ok(v) => v,
        Err(first) => match std::str::from_utf8(bytes) {
            Ok(_) => return Err(PayloadError::NotJson(first.to_string())),
            Err(_) => serde_json::from_str(&String::from_utf8_lossy(bytes))
                .map_err(|e| PayloadError::NotJson(e.to_string()))?,
        },
    };
    if !value.is_object() {
        return Err(PayloadError::NotAnObject);
    }
    // Every field is lenient, so an object always converts.
    let mut payload =
        Payload::deserialize(value).map_err(|e| PayloadError::NotJson(e.to_string()))?;
    payload.cap();
    Ok(payload)
}

/// The SessionStart output that puts text back into the model's context.
#[derive(Debug, Serialize)]
pub struct SessionStartOutput<'a> {
    #[serde(rename = "hookSpecificOutput")]
    pub hook_specific_output: SessionStartContext<'a>,
}

#[derive(Debug, Serialize)]
pub struct SessionStartContext<'a> {
    #[serde(rename = "hookEventName")]
    pub hook_event_name: &'a str,
    #[serde(rename = "additionalContext")]
    pub additional_context: &'a str,
}

/// `{"hookSpecificOutput":{"hookEventName":"SessionStart","additionalContext":…}}`
pub fn session_start_json(context: &str) -> String {
    let out = SessionStartOutput {
        hook_specific_output: SessionStartContext {
            hook_event_name: "SessionStart",
            additional_context: context,
        },
    };
    serde_json::to_string(&out).expect("serializes")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tolerates_nulls_wrong_types_and_unknown_fields() {
        let p = parse_payload(
            br#"{"session_id":null,"cwd":5,"tool_name":"Bash","is_interrupt":"no","x":{}}"#,
        )
        .unwrap();
        assert_eq!(p.session_id, None);
        assert_eq!(p.cwd, None);
        assert_eq!(p.tool_name.as_deref(), Some("Bash"));
        assert_eq!(p.is_interrupt, None);
    }

    #[test]
    fn rejects_what_is_not_a_payload() {
        assert_eq!(parse_payload(b"").unwrap_err(), PayloadError::Empty);
        assert_eq!(
            parse_payload(b"[1,2]").unwrap_err(),
            PayloadError::NotAnObject
        );
        assert!(matches!(
            parse_payload(b"{\"a\":").unwrap_err(),
            PayloadError::NotJson(_)
        ));
        assert!(matches!(
            parse_payload(b"{\"a\":\"\0\"}").unwrap_err(),
            PayloadError::NotJson(_)
        ));
    }

    #[test]
    fn invalid_utf8_is_replaced() {
        let p = parse_payload(b"{\"error\":\"bad \xff byte\"}").unwrap();
        assert_eq!(p.error.as_deref(), Some("bad \u{fffd} byte"));
    }

    /// A 15 MB session id was stored in every signal, a 10 MB transcript_path went into the
    /// error log whole: every size a payload controls is capped as it is parsed.
    #[test]
    fn regression_payload_sizes_are_capped() {
        let huge = |n: usize| "a/".repeat(n / 2);
        let p = serde_json::json!({
            "session_id": huge(1 << 20),
            "tool_use_id": huge(4096),
            "agent_id": huge(4096),
            "cwd": huge(MAX_PATH + 2),
            "transcript_path": huge(10 << 20),
            "tool_name": huge(4096),
            "hook_event_name": huge(4096),
            "source": huge(4096),
            "trigger": huge(4096),
            "reason": huge(4096),
            "error": huge(1 << 20),
        });
        let p = parse_payload(p.to_string().as_bytes()).unwrap();
        let id = p.session_id.clone().unwrap();
        assert!(id.len() <= MAX_ID && id.starts_with("a/a/"), "{id}");
        for f in [&p.tool_use_id, &p.agent_id] {
            assert!(f.as_ref().unwrap().len() <= MAX_ID);
        }
        assert_eq!((p.cwd.as_ref(), p.transcript_path.as_ref()), (None, None));
        assert_eq!(p.dropped.len(), 2);
        assert!(p.dropped.iter().all(|d| d.len() < 200), "{:?}", p.dropped);
        for f in [
            &p.tool_name,
            &p.hook_event_name,
            &p.source,
            &p.trigger,
            &p.reason,
        ] {
            assert_eq!(f.as_ref().unwrap().len(), MAX_NAME);
        }
        assert_eq!(p.error.as_ref().unwrap().len(), MAX_ERROR);
        // One long id always has the same stand-in; two that share a head do not.
        assert_eq!(capped_id(&huge(1 << 20)), id);
        assert_ne!(capped_id(&(huge(1 << 20) + "b")), id);
        // What fits is kept as it is.
        let p =
            parse_payload(br#"{"session_id":"3f9394bc","cwd":"/w","tool_name":"Bash"}"#).unwrap();
        assert_eq!(p.session_id.as_deref(), Some("3f9394bc"));
        assert_eq!(p.cwd.as_deref(), Some("/w"));
        assert!(p.dropped.is_empty());
    }

    #[test]
    fn output_shape() {
        assert_eq!(
            session_start_json("a\"b"),
            r#"{"hookSpecificOutput":{"hookEventName":"SessionStart","additionalContext":"a\"b"}}"#
        );
    }
}
