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

use std::borrow::Cow;

use serde::de::{IgnoredAny, MapAccess, SeqAccess, Visitor};
use serde::{Deserialize, Deserializer, Serialize};
use serde_json::Value;

use reflect_base::paths;
use reflect_detect::failure::ToolFailure;
use std::path::Path;

/// Largest payload a hook reads from stdin. PostToolUseFailure errors are capped at ~10,000 chars
/// by Claude Code, so anything near this size is not a real payload.
pub const MAX_PAYLOAD_BYTES: usize = 16 * 1024 * 1024;
/// Longest id kept whole (Claude Code's session ids are 36-byte uuids, tool call ids ~30 bytes).
pub(crate) const MAX_ID: usize = 128;
/// Longest path kept: the system's `PATH_MAX`; no system call accepts a longer one.
pub(crate) const MAX_PATH: usize = reflect_base::platform::limits::MAX_PATH_BYTES;
/// Longest name kept (a tool, an event, a reason: an MCP tool's name is well under this).
pub(crate) const MAX_NAME: usize = 128;
/// Longest error text kept.
pub(crate) const MAX_ERROR: usize = 64 * 1024;

/// A string field of the payload as read: borrowed from the input when JSON spells it without
/// escapes (a 10 MB `error` is then never copied whole), `None` when it is missing, `null` or of
/// another type.
struct Lenient<'a>(Option<Cow<'a, str>>);

impl<'de> Deserialize<'de> for Lenient<'de> {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        d.deserialize_any(LenientVisitor).map(Lenient)
    }
}

struct LenientVisitor;

impl<'de> Visitor<'de> for LenientVisitor {
    type Value = Option<Cow<'de, str>>;

    fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
        f.write_str("any JSON value")
    }
    fn visit_borrowed_str<E>(self, v: &'de str) -> Result<Self::Value, E> {
        Ok(Some(Cow::Borrowed(v)))
    }
    fn visit_str<E>(self, v: &str) -> Result<Self::Value, E> {
        Ok(Some(Cow::Owned(v.to_string())))
    }
    fn visit_string<E>(self, v: String) -> Result<Self::Value, E> {
        Ok(Some(Cow::Owned(v)))
    }
    fn visit_bool<E>(self, _: bool) -> Result<Self::Value, E> {
        Ok(None)
    }
    fn visit_i64<E>(self, _: i64) -> Result<Self::Value, E> {
        Ok(None)
    }
    fn visit_u64<E>(self, _: u64) -> Result<Self::Value, E> {
        Ok(None)
    }
    fn visit_f64<E>(self, _: f64) -> Result<Self::Value, E> {
        Ok(None)
    }
    fn visit_unit<E>(self) -> Result<Self::Value, E> {
        Ok(None)
    }
    fn visit_none<E>(self) -> Result<Self::Value, E> {
        Ok(None)
    }
    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Self::Value, A::Error> {
        while seq.next_element::<IgnoredAny>()?.is_some() {}
        Ok(None)
    }
    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Self::Value, A::Error> {
        while map.next_entry::<IgnoredAny, IgnoredAny>()?.is_some() {}
        Ok(None)
    }
}

/// The fields of a payload as read (see [`Lenient`]), before [`Payload::from_raw`] caps them.
#[derive(Default)]
struct Raw<'a> {
    text: [Option<Cow<'a, str>>; TEXT_FIELDS.len()],
    tool_input: Option<Value>,
    is_interrupt: Option<bool>,
}

/// The string fields, in the order of [`Raw::text`].
const TEXT_FIELDS: [&str; 11] = [
    "session_id",
    "transcript_path",
    "cwd",
    "hook_event_name",
    "source",
    "trigger",
    "reason",
    "tool_name",
    "tool_use_id",
    "error",
    "agent_id",
];

impl<'de> Deserialize<'de> for Raw<'de> {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        d.deserialize_map(RawVisitor)
    }
}

struct RawVisitor;

impl<'de> Visitor<'de> for RawVisitor {
    type Value = Raw<'de>;

    fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
        f.write_str("a JSON object")
    }
    /// Unknown fields are skipped; a field given twice keeps its last value.
    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Raw<'de>, A::Error> {
        let mut raw = Raw::default();
        while let Some(key) = map.next_key::<Cow<'de, str>>()? {
            match key.as_ref() {
                "tool_input" => raw.tool_input = map.next_value::<Option<Value>>()?,
                "is_interrupt" => {
                    raw.is_interrupt = match map.next_value::<Value>()? {
                        Value::Bool(b) => Some(b),
                        _ => None,
                    }
                }
                name => match TEXT_FIELDS.iter().position(|f| *f == name) {
                    Some(i) => raw.text[i] = map.next_value::<Lenient>()?.0,
                    None => drop(map.next_value::<IgnoredAny>()?),
                },
            }
        }
        Ok(raw)
    }
}

/// The fields of any hook payload that reflect uses.
#[derive(Debug, Default, Clone, Deserialize)]
#[serde(default)]
pub struct Payload {
    pub session_id: Option<String>,
    pub transcript_path: Option<String>,
    pub cwd: Option<String>,
    pub hook_event_name: Option<String>,
    /// SessionStart: startup | resume | clear | compact | fork.
    pub source: Option<String>,
    /// PreCompact: manual | auto.
    pub trigger: Option<String>,
    /// SessionEnd: clear | resume | logout | prompt_input_exit | other.
    pub reason: Option<String>,
    pub tool_name: Option<String>,
    pub tool_input: Option<Value>,
    pub tool_use_id: Option<String>,
    pub error: Option<String>,
    pub is_interrupt: Option<bool>,
    /// Set inside sub-agents; their failures belong to the parent session.
    pub agent_id: Option<String>,
    /// Fields dropped for being over their cap, as notes for the error log.
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

    /// The payload of the fields read, with the caps of the module docs applied: only what a
    /// cap keeps is copied.
    fn from_raw(raw: Raw) -> Payload {
        let [session_id, transcript_path, cwd, hook_event_name, source, trigger, reason, tool_name, tool_use_id, error, agent_id] =
            raw.text;
        let mut dropped = Vec::new();
        let id = |v: Option<Cow<str>>| {
            v.map(|id| match id.len() > MAX_ID {
                true => capped_id(&id),
                false => id.into_owned(),
            })
        };
        let mut path = |name: &str, v: Option<Cow<str>>| match v {
            Some(p) if p.len() > MAX_PATH => {
                dropped.push(format!(
                    "payload field {name} of {} bytes is longer than any path ({MAX_PATH}); ignored",
                    p.len()
                ));
                None
            }
            p => p.map(Cow::into_owned),
        };
        let cut = |v: Option<Cow<str>>, max: usize| {
            v.map(|t| reflect_base::text::truncate(&t, max).to_string())
        };
        Payload {
            session_id: id(session_id),
            tool_use_id: id(tool_use_id),
            agent_id: id(agent_id),
            transcript_path: path("transcript_path", transcript_path),
            cwd: path("cwd", cwd),
            hook_event_name: cut(hook_event_name, MAX_NAME),
            source: cut(source, MAX_NAME),
            trigger: cut(trigger, MAX_NAME),
            reason: cut(reason, MAX_NAME),
            tool_name: cut(tool_name, MAX_NAME),
            error: cut(error, MAX_ERROR),
            tool_input: raw.tool_input,
            is_interrupt: raw.is_interrupt,
            dropped,
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
    // Only an object is a payload; anything else is told apart from broken JSON for the log.
    if bytes.iter().find(|b| !b.is_ascii_whitespace()) != Some(&b'{') {
        return match serde_json::from_slice::<IgnoredAny>(bytes) {
            Ok(_) => Err(PayloadError::NotAnObject),
            Err(e) => Err(PayloadError::NotJson(e.to_string())),
        };
    }
    match serde_json::from_slice::<Raw>(bytes) {
        Ok(raw) => Ok(Payload::from_raw(raw)),
        Err(first) => match std::str::from_utf8(bytes) {
            Ok(_) => Err(PayloadError::NotJson(first.to_string())),
            Err(_) => {
                let text = String::from_utf8_lossy(bytes);
                serde_json::from_str::<Raw>(&text)
                    .map(Payload::from_raw)
                    .map_err(|e| PayloadError::NotJson(e.to_string()))
            }
        },
    }
}

/// The SessionStart output that puts text back into the model's context.
#[derive(Debug, Serialize)]
pub(crate) struct SessionStartOutput<'a> {
    #[serde(rename = "hookSpecificOutput")]
    pub hook_specific_output: SessionStartContext<'a>,
}

#[derive(Debug, Serialize)]
pub(crate) struct SessionStartContext<'a> {
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

    /// Read straight from the bytes: a field given twice keeps its last value, as a JSON object
    /// read whole would; a string field given as an array or an object is absent, whatever it
    /// nests; escapes are decoded.
    #[test]
    fn fields_are_read_from_the_bytes_as_an_object_would_give_them() {
        let p = parse_payload(
            br#"{"cwd":"/a","cwd":"/b","session_id":["x",{"y":[1]}],"error":{"e":"\u00e9"},
                "tool_name":"Ba\u0073h","tool_input":{"command":"ls"},"is_interrupt":true}"#,
        )
        .unwrap();
        assert_eq!(p.cwd.as_deref(), Some("/b"));
        assert_eq!((p.session_id, p.error), (None, None));
        assert_eq!(p.tool_name.as_deref(), Some("Bash"));
        assert_eq!(p.tool_input, Some(serde_json::json!({"command": "ls"})));
        assert_eq!(p.is_interrupt, Some(true));
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
