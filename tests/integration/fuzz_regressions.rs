//! Inputs the fuzz targets (`fuzz/`, run by `scripts/fuzz`) found, kept as regression tests. Each
//! vector is minimized or written by hand after the finding; none is corpus text. They test the
//! core library directly and live here so that `cargo test` at the root runs them.

use reflect_store::store::read::{lines, Reader};
use reflect_store::store::{self, parse_line, Filter, Pass, Read, Record, Shape, Snapshot};

/// What the reader's fast path says a line is (`None`: the scanner does not vouch for it, the
/// full parser decides).
fn fast(line: &[u8]) -> Option<Shape> {
    let view = Reader::default().view(line, Read::Scan)?;
    view.shape().filter(|_| view.is_scanned())
}

/// What the full parser says a line is (`None`: invalid).
fn full(line: &[u8]) -> Option<Shape> {
    Reader::default().view(line, Read::Parse)?.shape()
}

/// store_line, first finding: the scanner took any `\uXXXX` escape, serde_json refuses a lone
/// surrogate, so a v2-looking line with one was "foreign" to the fast path and invalid to the
/// parser (and a signal with one would have been printed by `query` but skipped by `get`).
#[test]
fn lone_surrogate_escapes_are_invalid_on_both_paths() {
    let minimized = br#"{"ts":"0\ud83dcorrectior","consext":"m","tUrn":4}"#;
    assert_eq!(full(minimized), None);
    assert_eq!(fast(minimized), None);

    let signal = |content: &str| {
        format!(r#"{{"id":"SIG-20261122-0000000001","type":"correction","content":"{content}"}}"#)
    };
    for lone in [
        r"\ud83d",
        r"\ude00",
        r"x\ud83dy",
        r"\ud83d\u0041",
        r"\ud83d\ud83d",
        r"\ude00\ud83d",
        r"\ud83d\",
    ] {
        let line = signal(lone);
        assert_eq!(full(line.as_bytes()), None, "{line}");
        assert_eq!(fast(line.as_bytes()), None, "{line}");
    }
    for fine in [
        r"\ud83d\ude00",
        r"\u00e9\ud83d\ude00\u0041",
        r"\uD83D\uDE00",
        r"\\ud83d",
    ] {
        let line = signal(fine);
        assert_eq!(full(line.as_bytes()), Some(Shape::Signal), "{line}");
        assert_eq!(fast(line.as_bytes()), Some(Shape::Signal), "{line}");
    }
}

/// The same finding seen from the CLI's fast paths: a stored signal with a lone surrogate is an
/// unreadable line to `query` and `stats`, as it is to every full-parse reader.
#[test]
fn fast_query_and_stats_skip_a_line_the_parser_rejects() {
    let bytes = concat!(
        r#"{"id":"SIG-20261122-0000000001","version":1,"timestamp":"2026-11-22T10:23:00Z","session_id":"s","project":"/p","type":"correction","status":"captured","confidence":1,"source":{"hook":"PreCompact","line":1,"uuid":"u","turn":null,"file":null},"content":"bad \ud83d","context":"","category":null,"tags":[],"related":[],"promoted_to":null,"meta":{}}"#,
        "\n",
        r#"{"id":"SIG-20261122-0000000002","version":1,"timestamp":"2026-11-22T10:24:00Z","session_id":"s","project":"/p","type":"correction","status":"captured","confidence":1,"source":{"hook":"PreCompact","line":2,"uuid":"v","turn":null,"file":null},"content":"good \ud83d\ude00","context":"","category":null,"tags":[],"related":[],"promoted_to":null,"meta":{}}"#,
        "\n",
    )
    .as_bytes();
    let snap = Snapshot::parse(bytes);
    assert_eq!((snap.health.signals, snap.health.invalid), (1, 1));
    let selected = store::select(bytes, &Filter::default()).into_signals();
    let ids: Vec<&str> = selected.iter().map(|s| s.id.as_str()).collect();
    assert_eq!(ids, ["SIG-20261122-0000000002"]);
    let fast = store::stats(bytes);
    assert_eq!((fast.total, fast.invalid_lines), (1, 1));
    let slow = store::stats_with(bytes, Pass::PARSED);
    assert_eq!(
        serde_json::to_value(fast).unwrap(),
        serde_json::to_value(slow).unwrap()
    );
}

/// store_line, second finding: `1e4004` is a JSON number by the grammar but out of range for
/// serde_json's `f64`, so the parser rejected a line the scanner vouched for.
#[test]
fn out_of_range_numbers_agree_on_both_paths() {
    let minimized = br#"{"ts":"2026-02-1----------------1T10:23:00Z","sid":"a'bc","type":"cornpm","turn":1e4004}"#;
    assert_eq!(full(minimized), None);
    assert_eq!(fast(minimized), None);
    let many_digits = "9".repeat(400);
    for number in [
        "1e400",
        "-1e400",
        "1E+309",
        many_digits.as_str(),
        "1e308",
        "1e-400",
        "123456789012345678901234567890",
        "0.5e-3",
        "18446744073709551616",
    ] {
        let line = format!(r#"{{"id":"SIG-1","type":"x","meta":{{"n":{number}}},"x":[{number}]}}"#);
        let (fast, full) = (fast(line.as_bytes()), full(line.as_bytes()));
        assert!(
            fast.is_none() || fast == full,
            "{line}: scanner {fast:?}, parser {full:?}"
        );
    }
}

/// store_query, first finding: a v2 line whose leftover fields are named like v1 fields (`tags`,
/// `meta`, `status` …) became a signal with those names in `extra` too, so writing it (`query`,
/// `migrate`) produced duplicate keys and a line no reader takes for a signal.
#[test]
fn v2_leftovers_named_like_v1_fields_are_written_once() {
    let v2 = br#"{"ts":1739269380,"sid":"abc","type":"remember","coool":"Read","category":"workflow","tags":["cargo"],"related":[],"promoted_to":null,"status":"weird","meta":{"dedup_key":"0f858cf6db3f8c1b"}}"#;
    let Record::Legacy(sig) = parse_line(v2) else {
        panic!("not read as a v2 line")
    };
    let written = serde_json::to_vec(&sig).unwrap();
    let Record::Signal(back) = parse_line(&written) else {
        panic!(
            "written v2 signal is not readable: {}",
            String::from_utf8_lossy(&written)
        )
    };
    assert_eq!(*back, *sig);
    let kept = &sig.meta["v2"];
    assert_eq!(kept["tags"], serde_json::json!(["cargo"]));
    assert_eq!(kept["status"], "weird");
    assert_eq!(kept["meta"]["dedup_key"], "0f858cf6db3f8c1b");
    assert_eq!(sig.extra["coool"], "Read");

    let mut store = v2.to_vec();
    store.push(b'\n');
    let selection = store::select(&store, &Filter::default());
    let printed = selection.jsonl();
    let lines: Vec<_> = lines(&printed).collect();
    assert_eq!(lines.len(), 1);
    assert!(matches!(parse_line(lines[0]), Record::Signal(_)));
}

/// store_query, second finding: `--since` compared timestamps of the canonical shape as text, so
/// `a026-10-15T14:23:27Z` (no time at all) was "newer" than any date on the fast path and matched
/// nothing on the full one.
#[test]
fn since_never_matches_a_timestamp_that_is_no_time() {
    let line = |id: &str, ts: &str| {
        format!(
            r#"{{"id":"{id}","version":1,"timestamp":"{ts}","session_id":"s","project":"/p","type":"summary","status":"analyzed","confidence":2,"source":{{"hook":"SessionEnd","line":167,"uuid":"u","turn":23,"file":null}},"content":"c","context":"","category":null,"tags":[],"related":[],"promoted_to":null,"meta":{{}}}}"#
        )
    };
    let store = [
        line("SIG-20261015-0000000001", "a026-10-15T14:23:27Z"),
        line("SIG-20261015-0000000002", "2026-13-45T99:99:99Z"),
        line("SIG-20261015-0000000003", "2026-10-15T14:23:27Z"),
        line("SIG-20261015-0000000004", "2025-10-15T14:23:27Z"),
    ]
    .join("\n");
    let filter = Filter {
        since: reflect_store::signal::parse_time("2026-01-01T00:00:00Z"),
        ..Filter::default()
    };
    let snap = Snapshot::parse(store.as_bytes());
    let expected: Vec<_> = snap
        .signals()
        .filter(|s| filter.matches(s))
        .cloned()
        .collect();
    let selected = store::select(store.as_bytes(), &filter).into_signals();
    assert_eq!(selected, expected);
    let ids: Vec<&str> = selected.iter().map(|s| s.id.as_str()).collect();
    assert_eq!(ids, ["SIG-20261015-0000000003"]);
}

/// transcript, fifth finding (a mutated corpus line): the reader skipped a line unwalked when a
/// `"uuid":"` near its end named an already seen record, but that one was nested in the line's
/// tool output; the line's own uuid was new. A resumed read (which had not seen the earlier
/// record) yielded the line, the whole read did not. Only the top-level uuid counts now.
#[test]
fn a_record_whose_tail_names_an_earlier_uuid_is_still_read() {
    use reflect_transcript::{self as transcript, EventKind, Position};
    let first = r#"{"type":"user","message":{"role":"user","content":"run the tests"},"uuid":"u-1","timestamp":"2026-01-01T00:00:00Z"}"#;
    let second = r#"{"type":"user","message":{"role":"user","content":[{"type":"tool_result","tool_use_id":"t1","content":"boom","is_error":true}]},"uuid":"u-2","timestamp":"2026-01-01T00:00:01Z","toolUseResult":{"parent":{"uuid":"u-1"}}}"#;
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("t.jsonl");
    std::fs::write(&path, format!("{first}\n{second}\n")).unwrap();
    let mut file = std::fs::File::open(&path).unwrap();
    let mut results = Vec::new();
    transcript::read(&mut file, Position::default(), |e| {
        if let EventKind::ToolResult { text, .. } = e.kind {
            results.push((e.line, e.uuid.as_deref().map(str::to_string), text));
        }
    })
    .unwrap();
    assert_eq!(
        results,
        vec![(2, Some("u-2".to_string()), "boom".to_string())]
    );
}
