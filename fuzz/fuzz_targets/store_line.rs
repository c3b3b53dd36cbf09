//! One store line: the full parser never panics, and wherever the fast scanner vouches for a line
//! it agrees with the full parser on what the line is and on the fields it reports.
#![no_main]

use libfuzzer_sys::fuzz_target;
use reflect_core::scan::{self, Key, Shape};
use reflect_core::store::{parse_line, Record};

fuzz_target!(|line: &[u8]| {
    let full = parse_line(line);
    let Some(fields) = scan::scan(line) else {
        return;
    };
    let Some(shape) = scan::shape(&fields) else {
        return;
    };
    match (&full, shape) {
        (Record::Signal(s), Shape::Signal) => {
            if let Some(id) = fields.str(Key::Id) {
                assert_eq!(id, s.id);
            }
            if let Some(kind) = fields.str(Key::Type) {
                assert_eq!(kind, s.kind.as_str());
            }
            match fields.str(Key::Status) {
                Some(status) => assert_eq!(status, s.status.as_str()),
                None if !fields.has(Key::Status) => assert_eq!(s.status.as_str(), "captured"),
                None => {}
            }
            if let Some(ts) = fields.str(Key::Timestamp) {
                assert_eq!(ts, s.timestamp);
            }
            if let Some(sid) = fields.str(Key::SessionId) {
                assert_eq!(Some(sid), s.session_id.as_deref());
            }
            match fields.uint(Key::Confidence) {
                Some(c) => assert_eq!(c, u64::from(s.confidence)),
                None => assert!(
                    !fields.has(Key::Confidence),
                    "confidence the scanner cannot read"
                ),
            }
        }
        (Record::Legacy(_), Shape::Legacy) | (Record::Foreign, Shape::Foreign) => {}
        (Record::Recur(r), Shape::Recur) => {
            if let Some(target) = fields.str(Key::Recur) {
                assert_eq!(target, r.recur);
            }
        }
        (Record::Invalid, _) => panic!("the scanner vouched for a line the parser rejects"),
        (full, fast) => panic!("scanner says {fast:?}, parser says {full:?}"),
    }
});
