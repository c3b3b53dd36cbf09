//! Wire types of the Claude Code hook payloads we read, and the one JSON object we ever print.
//!
//! Payloads are tolerant: every field is optional, `null` is absent, a field of the wrong type is
//! treated as absent rather than failing the whole payload, unknown fields are ignored. The
//! detectors never see raw JSON; they get the few fields below.

use serde::{Deserialize, Deserializer, Serialize};
use serde_json::Value;

/// Largest payload a hook reads from stdin. PostToolUseFailure errors are capped at ~10,000 chars
/// by Claude Code, so anything near this size is not a real payload.
pub const MAX_PAYLOAD_BYTES: usize = 16 * 1024 * 1024;

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
    Payload::deserialize(value).map_err(|e| PayloadError::NotJson(e.to_string()))
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

    #[test]
    fn output_shape() {
        assert_eq!(
            session_start_json("a\"b"),
            r#"{"hookSpecificOutput":{"hookEventName":"SessionStart","additionalContext":"a\"b"}}"#
        );
    }
}
