//! What one line of the store holds, as the full parser reads it.

use serde_json::{Map, Value};

use crate::signal::{Recurrence, Signal};

/// What one line of the store holds.
#[derive(Debug, Clone)]
pub enum Record {
    Signal(Box<Signal>),
    /// A v2 line, converted on read; written back unchanged unless modified or migrated.
    Legacy(Box<Signal>),
    Recur(Box<Recurrence>),
    /// Valid JSON that is not a record this version knows (kept verbatim).
    Foreign,
    /// Not a JSON object: torn, truncated, invalid UTF-8…
    Invalid,
}

/// Parse one line (no newline) into a record: the full parser, which decides what a line is.
pub fn parse_line(raw: &[u8]) -> Record {
    // The common case first: a well-formed v1 signal deserializes in one pass.
    if let Ok(sig) = serde_json::from_slice::<Signal>(raw) {
        return Record::Signal(Box::new(sig));
    }
    let map: Map<String, Value> = match serde_json::from_slice(raw) {
        Ok(m) => m,
        Err(_) => return Record::Invalid,
    };
    if map.contains_key("recur") {
        return match serde_json::from_value::<Recurrence>(Value::Object(map)) {
            Ok(r) => Record::Recur(Box::new(r)),
            Err(_) => Record::Foreign,
        };
    }
    if !map.contains_key("id")
        && map.contains_key("ts")
        && map.get("type").is_some_and(Value::is_string)
    {
        return match Signal::from_v2(map, raw) {
            Some(s) => Record::Legacy(Box::new(s)),
            None => Record::Foreign,
        };
    }
    Record::Foreign
}
