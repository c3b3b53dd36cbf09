//! Cleaning what the store keeps and prints: every text of a signal through
//! [`reflect_base::sanitize`] (escape sequences, controls and invisible characters removed; see
//! there), beside redaction. The store cleans each signal it appends before redacting it (a
//! zero-width character inside a token would hide it from the rules), and what it prints from
//! a line an older version wrote.

use serde_json::{Map, Value};

pub use reflect_base::sanitize::*;

use crate::signal::{Signal, OPTIONAL_FIELDS, SOURCE_FIELDS, V1_FIELDS};

/// [`clean`] every string of a JSON value (keys too), recursively.
pub(crate) fn clean_value(value: &mut Value) {
    match value {
        Value::String(s) => clean_in_place(s),
        Value::Array(items) => items.iter_mut().for_each(clean_value),
        Value::Object(map) => clean_map(map),
        _ => {}
    }
}

fn clean_map(map: &mut Map<String, Value>) {
    if !map.keys().all(|k| is_clean(k)) {
        let old = std::mem::take(map);
        for (k, mut v) in old {
            clean_value(&mut v);
            map.insert(clean(&k).into_owned(), v);
        }
        return;
    }
    map.values_mut().for_each(clean_value);
}

/// [`clean`] every text of a signal: what it says, where it came from, its tags and meta.
pub fn clean_signal(sig: &mut Signal) {
    use crate::signal::{Kind, Status};
    if let Kind::Other(kind) = &mut sig.kind {
        clean_in_place(kind);
    }
    if let Status::Other(status) = &mut sig.status {
        clean_in_place(status);
    }
    for text in [
        &mut sig.id,
        &mut sig.timestamp,
        &mut sig.content,
        &mut sig.context,
    ] {
        clean_in_place(text);
    }
    let optional = [
        &mut sig.session_id,
        &mut sig.project,
        &mut sig.category,
        &mut sig.promoted_to,
        &mut sig.source.hook,
        &mut sig.source.uuid,
        &mut sig.source.file,
    ];
    for text in optional.into_iter().flatten() {
        clean_in_place(text);
    }
    sig.tags
        .iter_mut()
        .chain(&mut sig.related)
        .for_each(clean_in_place);
    clean_map(&mut sig.meta);
    clean_map(&mut sig.source.extra);
    clean_map(&mut sig.extra);
    // A key that cleaning turned into a field's name (`conte\u200bxt`) would be written beside
    // that field, and a line with a key twice is unreadable: such a key is dropped.
    sig.source
        .extra
        .retain(|k, _| !SOURCE_FIELDS.contains(&k.as_str()));
    sig.extra
        .retain(|k, _| !V1_FIELDS.contains(&k.as_str()) && !OPTIONAL_FIELDS.contains(&k.as_str()));
}

/// Whether a JSON line may be printed as it is: UTF-8 with nothing [`clean`] would remove, and
/// no escape that may spell a control character (`\u…`, `\b`, `\f`, `\r`; serde_json writes
/// none but for those, so a clean store holds them only in text quoting a backslash, which then
/// takes the slower way: parsed and cleaned).
pub(crate) fn is_clean_json(line: &[u8]) -> bool {
    let escapes = memchr::memchr_iter(b'\\', line)
        .any(|at| matches!(line.get(at + 1), Some(b'u' | b'b' | b'f' | b'r')));
    !escapes && std::str::from_utf8(line).is_ok_and(is_clean)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_signal_is_cleaned_everywhere() {
        let mut sig = Signal::new(crate::signal::Kind::Correction, "a\u{1b}[2Jb");
        sig.context = "c\u{202e}d".into();
        sig.project = Some("/p\u{200b}q".into());
        sig.tags = vec!["t\u{e0041}".into()];
        sig.meta
            .insert("k\u{7}".into(), Value::from(vec!["v\u{9b}1m"]));
        clean_signal(&mut sig);
        let json = serde_json::to_string(&sig).unwrap();
        assert_eq!(sig.content, "ab");
        assert_eq!(sig.context, "cd");
        assert_eq!(sig.project.as_deref(), Some("/pq"));
        assert_eq!(sig.tags, ["t"]);
        assert_eq!(sig.meta.get("k"), Some(&Value::from(vec!["v"])));
        assert!(is_clean(&json), "{json}");
    }
}
