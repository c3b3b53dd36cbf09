//! A whole store file: the fast query and stats paths (the reader scanning raw bytes, in parts)
//! give what the full parse gives. The first three bytes pick a filter (status, type, since);
//! the rest is the file.
#![no_main]

use libfuzzer_sys::fuzz_target;
use reflect_store::sanitize;
use reflect_store::signal::{parse_time, Kind, Status};
use reflect_store::store::read::lines;
use reflect_store::store::{self, parse_line, Filter, Pass, Record, Snapshot};

const SINCE: [&str; 4] = [
    "2026-11-15T12:00:00Z",
    "2026-01-01T00:00:00Z",
    "2026-11-22T10:23:00Z",
    "1999-12-31T23:59:59Z",
];

fn filter(pick: &[u8]) -> Filter {
    let choose = |b: u8, options: &[&str]| {
        let i = usize::from(b) % (options.len() + 1);
        options.get(i).map(|s| s.to_string())
    };
    Filter {
        statuses: choose(pick[0], Status::KNOWN)
            .map(|s| vec![Status::parse(&s)])
            .unwrap_or_default(),
        kinds: choose(pick[1], Kind::KNOWN)
            .map(|k| vec![Kind::parse(&k)])
            .unwrap_or_default(),
        since: choose(pick[2], &SINCE).and_then(|t| parse_time(&t)),
        ..Filter::default()
    }
}

fuzz_target!(|data: &[u8]| {
    if data.len() < 3 {
        return;
    }
    let (pick, bytes) = data.split_at(3);
    let filter = filter(pick);
    let snap = Snapshot::parse(bytes);
    // The same split into parts as a large store's, on inputs of fuzzing size.
    let parts = 1 + usize::from(pick[0] % 4);

    // What a query prints is cleaned of control characters, whatever an older version stored.
    let expected: Vec<_> = snap
        .signals()
        .filter(|s| filter.matches(s))
        .cloned()
        .map(|mut s| {
            sanitize::clean_signal(&mut s);
            s
        })
        .collect();
    let selection = store::select_with(bytes, &filter, Pass { parts, scan: true });
    let jsonl = selection.jsonl();
    let printed: Vec<_> = lines(&jsonl)
        .map(|line| match parse_line(line) {
            Record::Signal(s) => *s,
            other => panic!("query printed a line that is not a signal: {other:?}"),
        })
        .collect();
    // Printed and read back: a value the cleaning changed reads as what it now says (a status
    // `ca\u0000ptured` stored is printed `captured`).
    let read_back: Vec<_> = expected
        .iter()
        .map(|s| match parse_line(serde_json::to_string(s).unwrap().as_bytes()) {
            Record::Signal(s) => *s,
            other => panic!("a signal printed reads back as {other:?}"),
        })
        .collect();
    assert_eq!(
        printed, read_back,
        "query --format jsonl differs from the full parse"
    );
    assert_eq!(
        selection.into_signals(),
        expected,
        "query signals differ from the full parse"
    );

    let fast = serde_json::to_value(store::stats_with(bytes, Pass { parts, scan: true })).unwrap();
    let full = serde_json::to_value(store::stats_with(bytes, Pass::PARSED)).unwrap();
    assert_eq!(fast, full, "stats fast path differs from the full parse");
    assert_eq!(
        full["total"],
        snap.signals().count(),
        "stats counts other signals"
    );
});
