//! The store's tests: the writers, and the reader's fast path held to the full parser.

use std::fs;
use std::io::Write;
use std::path::Path;

use chrono::{Duration, Utc};
use serde_json::Value;

use super::append::{last_signal_id, Needles};
use super::lifecycle::apply_ttl;
use super::read::lines;
use super::*;
use crate::signal::{self, Kind, Signal, Status};

fn store() -> (tempfile::TempDir, Store) {
    let dir = tempfile::tempdir().unwrap();
    let paths = Paths::new(dir.path().join("c"), dir.path().join("d"));
    let store = Store::new(&paths, LockWait::CLI);
    (dir, store)
}

fn sig(kind: Kind, content: &str, session: &str, line: u64) -> Signal {
    let mut s = Signal::new(kind, content);
    s.session_id = Some(session.into());
    s.project = Some("/p".into());
    s.source.line = Some(line);
    s
}

/// A store of every kind of line the fast path must agree with the full parser on.
pub(crate) fn mixed_store() -> Vec<u8> {
    let mut out = String::new();
    let kinds = ["correction", "convention", "failure", "summary"];
    let statuses = ["captured", "analyzed", "promoted", "dismissed"];
    for i in 0..400u32 {
        let day = 1 + i % 28;
        let mut s = Signal::new(
            Kind::parse(kinds[i as usize % 4]),
            format!("content {i} \"quoted\" é"),
        );
        s.id = format!("SIG-202611{day:02}-{i:010x}");
        s.timestamp = format!("2026-11-{day:02}T10:{:02}:00Z", i % 60);
        s.status = Status::parse(statuses[(i / 4) as usize % 4]);
        s.confidence = (i % 4 + 1) as u8;
        s.session_id = Some(format!("s{}", i % 5));
        s.project = Some(if i % 3 == 0 {
            "/work/app".into()
        } else {
            "/other/\"odd\"".into()
        });
        s.tags = vec![format!("t{}", i % 6)];
        if i % 17 == 0 {
            s.meta.insert("needs_review".into(), Value::Bool(true));
        }
        if i % 23 == 0 {
            s.meta.insert("seen".into(), Value::from(2));
        }
        let mut line = serde_json::to_string(&s).unwrap();
        if i % 11 == 0 {
            // Another writer's style: spaces, missing optional fields.
            line = format!(
                r#"{{"id": "{}", "type": "{}", "timestamp": "{}", "status": "{}", "content": "x"}}"#,
                s.id, s.kind, s.timestamp, s.status
            );
        }
        if i % 13 == 0 {
            line = line.replacen("\"timestamp\":\"2026", "\"timestamp\":\"\\u0032026", 1);
        }
        out.push_str(&line);
        out.push('\n');
        if i % 7 == 0 {
            out.push_str(&format!("{{\"recur\":\"{}\",\"timestamp\":\"2026-11-29T00:00:00Z\",\"session_id\":\"s9\"}}\n", s.id));
        }
    }
    out.push_str("{\"ts\":\"2026-11-20T10:00:00Z\",\"sid\":\"s1\",\"type\":\"correction\",\"context\":\"v2 line\"}\n");
    out.push_str("not json\n{\"torn\":\n[1,2]\n{\"other\":1}\n");
    out.into_bytes()
}

/// [`mixed_store`] with recurrences both before and after their signals, blank lines and a
/// torn last line, so that split points fall between a signal and its recurrences and next to
/// bad lines.
fn store_to_split() -> Vec<u8> {
    let mixed = mixed_store();
    let mut out = Vec::new();
    for i in (0..400u32).step_by(9) {
        let day = 1 + i % 28;
        out.extend_from_slice(
            format!("{{\"recur\":\"SIG-202611{day:02}-{i:010x}\",\"timestamp\":\"2026-11-{:02}T00:00:00Z\"}}\n", 1 + i % 9)
                .as_bytes(),
        );
    }
    out.extend_from_slice(b"\n   \n");
    out.extend_from_slice(&mixed);
    out.extend_from_slice(b"\n\nnot json either\n");
    out.extend_from_slice(&mixed);
    out.extend_from_slice(b"{\"id\":\"SIG-torn\",\"type\":\"fa");
    out
}

fn filters() -> Vec<Filter> {
    let t = |s: &str| signal::parse_time(s).unwrap();
    vec![
        Filter::default(),
        Filter {
            statuses: vec![Status::Captured],
            since: Some(t("2026-11-15T00:00:00Z")),
            ..Filter::default()
        },
        Filter {
            kinds: vec![Kind::Correction, Kind::Failure],
            ..Filter::default()
        },
        Filter {
            session: Some("s1".into()),
            ..Filter::default()
        },
        Filter {
            project: Some("/work".into()),
            ..Filter::default()
        },
        Filter {
            project: Some("/other/\"odd\"".into()),
            ..Filter::default()
        },
        Filter {
            kinds: vec![Kind::Correction],
            tags: vec!["t2".into(), "t3".into()],
            ..Filter::default()
        },
        Filter {
            since: Some(t("2026-11-20T10:30:00Z")),
            ..Filter::default()
        },
        Filter {
            statuses: vec![Status::Analyzed, Status::Dismissed],
            kinds: vec![Kind::Summary],
            ..Filter::default()
        },
    ]
}

/// Each signal by what query prints and folds: id, status, confidence, sightings.
fn key(v: &[Signal]) -> Vec<(String, Status, u8, u64)> {
    v.iter()
        .map(|s| (s.id.clone(), s.status.clone(), s.confidence, s.seen()))
        .collect()
}

/// What `filter` selects among the signals the full parser read.
fn selected_in(snap: &Snapshot, filter: &Filter) -> Vec<Signal> {
    snap.signals()
        .filter(|s| filter.matches(s))
        .cloned()
        .collect()
}

/// Every line reflect's own writers produce takes the fast path: the scanner vouches for it as
/// what the full parser reads, `query` prints a signal as stored and `stats` counts it from its
/// scanned fields. (The agreement tests alone would pass with a scanner that vouched for nothing.)
#[test]
fn the_fast_path_accepts_every_line_reflect_writes() {
    let (dir, store) = store();
    let long = "long ".repeat(300);
    let contents = [
        "plain words",
        "quotes \" and \\ backslashes \\\"",
        "new\nline\ttab\r return",
        "unicode é ü ß 日本語 🎉 \u{2028} \u{feff}",
        "control \u{1b}[31m red \u{0} nul \u{7f}",
        "</script> & <b> 'single' `tick` {json: [1]}",
        long.as_str(),
    ];
    let mut batch = Vec::new();
    for (k, kind) in Kind::KNOWN.iter().enumerate() {
        for (c, content) in contents.iter().enumerate() {
            let n = (k * contents.len() + c) as u64;
            let mut s = sig(Kind::parse(kind), &format!("{content} {n}"), "s1", n + 1);
            s.status = Status::parse(Status::KNOWN[n as usize % 4]);
            s.confidence = (n % 4 + 1) as u8;
            s.context = format!("User said: {content}");
            s.category = (c % 2 == 0).then(|| "tool-failure".into());
            s.tags = vec!["pnpm".into(), "ü-tag".into()];
            s.related = vec!["SIG-20261122-0000000001".into()];
            s.source.uuid = Some(format!("uuid-{n}"));
            s.source.turn = Some(n);
            s.source.file = Some("/work/app/src/main.rs".into());
            s.meta
                .insert("tool_use_id".into(), Value::from(format!("toolu_{n}")));
            s.meta.insert("tool".into(), Value::from("Bash"));
            batch.push(s);
        }
    }
    let first = store.append(batch.clone()).unwrap();
    // Seen again in another session: recurrence records, with and without a tool call.
    let again: Vec<Signal> = batch
        .iter()
        .enumerate()
        .map(|(i, s)| {
            let mut s = s.clone();
            s.session_id = Some("s2".into());
            let call = Value::from(format!("toolu_again_{i}"));
            s.meta.insert("tool_use_id".into(), call);
            s
        })
        .collect();
    let outcome = store.append(again).unwrap();
    assert!(!outcome.recurred.is_empty(), "{outcome:?}");
    // Rewritten by review: archived, updated, promoted, dismissed.
    assert!(store.archive(&[], None, &mut || {}).unwrap() > 0);
    let id = |i: usize| first.written[i].as_str();
    let tags = vec!["review".into()];
    let changes = Changes {
        status: Some(Status::Analyzed),
        confidence: Some(4),
        category: Some("reviewed \"by hand\"".into()),
        tags,
    };
    store
        .update(&[id(0).to_string()], changes, &mut || {})
        .unwrap();
    let target = dir.path().join("CLAUDE.md");
    crate::promote::promote(&store, id(4), &target, "Use pnpm, not \"npm\"", None, false).unwrap();
    store.dismiss(&[id(5).to_string()], &mut || {}).unwrap();
    // A v2 line, migrated.
    let path = store.paths().store();
    let v2 = "{\"ts\":\"2026-02-11T10:23:00Z\",\"sid\":\"abc\",\"type\":\"correction\",\"context\":\"No, use pnpm\",\"turn\":4,\"x\":1}\n";
    fs::OpenOptions::new()
        .append(true)
        .open(&path)
        .unwrap()
        .write_all(v2.as_bytes())
        .unwrap();
    assert_eq!(store.migrate_legacy(&mut || {}).unwrap(), 1);
    // More sightings after the rewrite, so the store holds recurrence records again.
    let repeat: Vec<Signal> = batch
        .iter()
        .rev()
        .filter(|s| s.status == Status::Captured)
        .take(3)
        .map(|s| {
            let mut s = s.clone();
            s.session_id = Some("s3".into());
            s.meta.remove("tool_use_id");
            s
        })
        .collect();
    let outcome = store.append(repeat).unwrap();
    assert_eq!(outcome.recurred.len(), 3, "{outcome:?}");

    let mut kinds = std::collections::BTreeSet::new();
    for file in [path, store.paths().archive()] {
        let bytes = fs::read(&file).unwrap();
        let mut reader = read::Reader::default();
        for raw in read::lines(&bytes) {
            let line = String::from_utf8_lossy(raw);
            let view = reader.view(raw, Read::Scan).unwrap();
            assert!(
                view.is_scanned(),
                "the scanner declined a line reflect wrote: {line}"
            );
            let full = reader.view(raw, Read::Parse).unwrap();
            assert_eq!(view.shape(), full.shape(), "{line}");
            kinds.insert(format!("{:?} {:?}", view.shape(), full.text(Key::Status)));
            if let read::Seen::Scanned(Shape::Signal, f) = &view.seen {
                assert!(
                    select::complete(&view).is_some(),
                    "query would not print it as stored: {line}"
                );
                assert!(
                    stats::Counted::scanned(f).is_some(),
                    "stats would parse it: {line}"
                );
            }
        }
    }
    // Every kind of line the writers make was there to be checked.
    let statuses = Status::KNOWN
        .iter()
        .map(|s| format!("Some(Signal) Some(Some({s:?}))"));
    for expected in statuses.chain(["Some(Recur) Some(None)".to_string()]) {
        assert!(
            kinds.contains(&expected),
            "no {expected} line among {kinds:?}"
        );
    }
}

/// `select`, in any number of parts, gives what the full parser selects, in the signals and in
/// the printed lines; the parts of a store cut between signals and their recurrences.
#[test]
fn fast_select_in_parts_agrees_with_the_full_parser() {
    for bytes in [mixed_store(), store_to_split()] {
        let snap = Snapshot::parse(&bytes);
        for filter in &filters() {
            let slow = selected_in(&snap, filter);
            assert!(
                !slow.is_empty() || filter.session.is_some(),
                "the test data must exercise {filter:?}"
            );
            let parsed = select_with(&bytes, filter, Pass::PARSED).into_signals();
            assert_eq!(parsed, slow, "{filter:?}");
            // Lines printed as stored are the fast path's own: its passes agree among themselves.
            let mut one_part = None;
            for parts in [1, 2, 3, 7, 33] {
                let selection = select_with(&bytes, filter, Pass { parts, scan: true });
                let printed = selection.jsonl();
                let first = one_part.get_or_insert_with(|| printed.clone());
                assert!(*first == printed, "{filter:?} in {parts} parts");
                let jsonl: Vec<Signal> = lines(&printed)
                    .map(|l| serde_json::from_slice(l).unwrap())
                    .collect();
                assert_eq!(key(&jsonl), key(&slow), "{filter:?} in {parts} parts");
                assert_eq!(
                    selection.into_signals(),
                    slow,
                    "{filter:?} in {parts} parts"
                );
            }
        }
        assert!(snap.signals().any(|s| s.meta.contains_key("last_seen")));
    }
}

#[test]
fn early_rejection_keeps_what_the_full_parser_would_select_or_count() {
    // Lines that fail the filter on a leading field but that the full parser reads otherwise:
    // a later duplicate, a recurrence spelled late or escaped, a torn tail, v2 and foreign.
    let lines = [
        r#"{"id":"SIG-1","status":"analyzed","type":"failure","status":"captured","timestamp":"2026-11-20T00:00:00Z"}"#,
        r#"{"id":"SIG-2","status":"analyzed","type":"failure","timestamp":"2026-11-20T00:00:00Z"}"#,
        r#"{"id":"SIG-3","status":"captured","type":"failure","timestamp":"2026-11-20T00:00:00Z"}"#,
        r#"{"id":"SIG-4","status":"analyzed","timestamp":"2026-11-20T00:00:00Z","recur":"SIG-3"}"#,
        r#"{"id":"SIG-5","status":"analyzed","timestamp":"2026-11-20T00:00:00Z","rec\u0075r":"SIG-3"}"#,
        r#"{"id":"SIG-6","status":"analyzed","type":"failure","st\u0061tus":"captured","timestamp":"2026-11-20T00:00:00Z"}"#,
        r#"{"id":"SIG-7","status":"captured","type":"failure","timestamp":"2026-01-01T00:00:00Z"}"#,
        r#"{"id":"SIG-8","status":"captured","type":"failure","timestamp":"2026-11-20T00:00:00Z""#,
        r#"{"ts":"2026-11-20T00:00:00Z","status":"analyzed","type":"correction","context":"v2"}"#,
        r#"{"recur":"SIG-3","status":"analyzed","timestamp":"2026-11-21T00:00:00Z"}"#,
        r#"{"id":"SIG-9","timestamp":"2026-01-01T00:00:00Z","status":"captured","timestamp":"2026-11-20T00:00:00Z","type":"x"}"#,
    ];
    let bytes = lines.join("\n").into_bytes();
    let snap = Snapshot::parse(&bytes);
    let filter = Filter {
        statuses: vec![Status::Captured],
        since: Some(signal::parse_time("2026-11-15T00:00:00Z").unwrap()),
        ..Filter::default()
    };
    let slow = selected_in(&snap, &filter);
    assert!(
        slow.iter().any(|s| s.id == "SIG-3" && s.seen() > 1),
        "the data must hold a selected signal with recurrences: {slow:?}"
    );
    assert_eq!(select(&bytes, &filter).into_signals(), slow);
    // And the early test does pass over the plain non-matching line.
    let since = signal::format_time(filter.since.unwrap());
    assert!(filter.rejects_early(lines[1].as_bytes(), Some(&since)));
    assert!(!filter.rejects_early(lines[3].as_bytes(), Some(&since)));
    assert!(!filter.rejects_early(lines[4].as_bytes(), Some(&since)));
    assert!(!filter.rejects_early(lines[8].as_bytes(), Some(&since)));
}

#[test]
fn stats_in_parts_give_what_one_parsed_pass_gives() {
    for bytes in [mixed_store(), store_to_split()] {
        let one = serde_json::to_value(stats_with(&bytes, Pass::PARSED)).unwrap();
        for parts in [1, 2, 3, 4, 7, 16, 33] {
            let fast = stats_with(&bytes, Pass { parts, scan: true });
            assert_eq!(serde_json::to_value(fast).unwrap(), one, "{parts} parts");
        }
        // And the parsed pass counts what the full parser reads.
        let snap = Snapshot::parse(&bytes);
        let by_confidence = |c: u8| snap.signals().filter(|s| s.confidence == c).count();
        assert_eq!(one["total"], snap.signals().count());
        assert_eq!(one["invalid_lines"], snap.health.invalid);
        assert_eq!(one["legacy_lines"], snap.health.legacy);
        for c in 1..=4 {
            assert_eq!(one["by_confidence"][c.to_string()], by_confidence(c), "{c}");
        }
        let review = |s: &&Signal| s.meta.get("needs_review") == Some(&Value::Bool(true));
        assert_eq!(one["needs_review"], snap.signals().filter(review).count());
        assert!(snap.health.invalid > 0 && snap.health.legacy > 0);
    }
}

#[test]
fn view_bytes_are_the_file_bytes_mapped_or_read() {
    let (_dir, store) = store();
    assert!(store.view_bytes().unwrap().is_empty(), "no data dir yet");
    fs::create_dir_all(&store.paths.data_dir).unwrap();
    assert!(store.view_bytes().unwrap().is_empty(), "no store yet");
    for len in [10, (2 << 20) + 3] {
        let bytes: Vec<u8> = (0..len).map(|i| (i * 7 % 253) as u8).collect();
        fs::write(store.paths.store(), &bytes).unwrap();
        let view = store.view_bytes().unwrap();
        assert!(*view == bytes[..], "{len} bytes");
        assert_eq!(matches!(view, StoreBytes::Mapped(_)), len > 1 << 20);
        // A rewrite renames a new file over the mapped one: the view keeps the old bytes.
        let path = store.paths.store();
        fs::write(path.with_extension("new"), b"other").unwrap();
        fs::rename(path.with_extension("new"), &path).unwrap();
        assert!(*view == bytes[..], "{len} bytes after a rename");
    }
}

#[test]
fn find_agrees_with_the_full_parser() {
    let mut bytes = mixed_store();
    // An id and a recurrence spelled with escapes, an id written twice (the first one is
    // found), a recurrence with an earlier time, a torn last line naming an id.
    bytes.extend_from_slice(
        b"{\"id\":\"\\u0053IG-20261130-00000000aa\",\"type\":\"gotcha\",\"content\":\"escaped\"}\n\
          {\"recur\":\"SIG-20261130-00000000a\\u0061\",\"timestamp\":\"2026-11-30T01:00:00Z\"}\n\
          {\"id\":\"SIG-20261101-0000000000\",\"type\":\"gotcha\",\"content\":\"second copy\"}\n\
          {\"recur\":\"SIG-20261101-0000000000\",\"timestamp\":\"2020-01-01T00:00:00Z\"}\n\
          {\"recur\":\"SIG-20261102-0000000001\",\"timest",
    );
    let snap = Snapshot::parse(&bytes);
    let mut ids: Vec<String> = snap.signals().map(|s| s.id.clone()).collect();
    ids.extend(["SIG-20991231-ffffffffff".to_string(), "nope".into()]);
    assert!(
        ids.iter().any(|id| id.contains("-v2")),
        "a v2 line is among them"
    );
    // The data holds what it says it does: the escaped id seen again, the first copy of an id.
    assert_eq!(snap.get("SIG-20261130-00000000aa").unwrap().seen(), 2);
    assert_ne!(
        snap.get("SIG-20261101-0000000000").unwrap().content,
        "second copy"
    );

    // The archive is looked at when the store has no such id; v2 ids take the full parse.
    let (_d, store) = store();
    fs::create_dir_all(&store.paths.data_dir).unwrap();
    fs::write(store.paths.store(), &bytes).unwrap();
    fs::write(
        store.paths.archive(),
        "{\"id\":\"SIG-20261001-00000000bb\",\"type\":\"gotcha\",\"content\":\"archived\"}\n",
    )
    .unwrap();
    let archived = store.find("SIG-20261001-00000000bb").unwrap().unwrap();
    assert_eq!(archived.content, "archived");
    for id in &ids {
        let via_store = store
            .find(id)
            .unwrap()
            .map(|s| serde_json::to_value(&s).unwrap());
        let full = snap.get(id).map(|s| serde_json::to_value(s).unwrap());
        assert_eq!(via_store, full, "{id}");
    }
}

#[test]
fn session_signals_are_those_captured_or_seen_again_in_the_session() {
    let (_d, store) = store();
    let first = store.append(vec![sig(Kind::Gotcha, "a", "s1", 1)]).unwrap();
    store.append(vec![sig(Kind::Gotcha, "b", "s2", 1)]).unwrap();
    let again = store.append(vec![sig(Kind::Gotcha, "a", "s2", 9)]).unwrap();
    assert_eq!(again.recurred, first.written);
    let in_s2: Vec<(String, u64)> = store
        .session_signals("s2")
        .unwrap()
        .iter()
        .map(|s| (s.content.clone(), s.seen()))
        .collect();
    assert_eq!(in_s2, [("b".to_string(), 1), ("a".to_string(), 2)]);
    assert_eq!(store.session_signals("s1").unwrap()[0].seen(), 2);
    assert!(store.session_signals("s3").unwrap().is_empty());
}

#[test]
fn append_assigns_increasing_ids_and_private_modes() {
    use std::os::unix::fs::PermissionsExt;
    let (_d, store) = store();
    let out = store
        .append(vec![
            sig(Kind::Failure, "a", "s", 1),
            sig(Kind::Failure, "b", "s", 2),
        ])
        .unwrap();
    assert_eq!(out.written.len(), 2);
    assert!(out.written[0] < out.written[1]);
    let mode = |p: &Path| fs::metadata(p).unwrap().permissions().mode() & 0o777;
    assert_eq!(mode(&store.paths().store()), 0o600);
    assert_eq!(mode(&store.paths().data_dir), 0o700);
}

#[test]
fn a_tail_without_any_key_of_the_batch_is_not_parsed() {
    let mut failure = sig(Kind::Failure, "Bash failed: Exit code 1", "s", 0);
    failure
        .meta
        .insert("tool_use_id".into(), Value::from("toolu_01abc"));
    let key = failure.dedup_key();
    let line = |id: &str, extra: &str| {
        format!(
            "{{\"id\":\"{id}\",\"type\":\"failure\",\"status\":\"captured\",\
             \"timestamp\":\"2026-11-23T05:00:00Z\",\"meta\":{{{extra}}}}}"
        )
    };
    let other = line(
        "SIG-20261123-0000000001",
        "\"dedup_key\":\"0123456789abcdef\"",
    );
    let recur = "{\"recur\":\"SIG-20261123-0000000001\",\"timestamp\":\"2026-11-23T05:01:00Z\"}";
    let needles = Needles::of(std::slice::from_ref(&failure));
    for plain in [other.as_str(), recur, "not json", "torn first line\"}"] {
        assert!(!needles.may_repeat(plain.as_bytes()), "{plain}");
    }
    // The last id, backwards past recurrences and bad lines.
    let tail = format!("{other}\n{recur}\nnot json\n");
    assert_eq!(
        last_signal_id(tail.as_bytes()).as_deref(),
        Some("SIG-20261123-0000000001")
    );
    assert_eq!(last_signal_id(b"not json\n"), None);
    let escaped_id = r#"{"id":"\u0053IG-20261123-0000000002","type":"failure"}"#;
    assert_eq!(
        last_signal_id(format!("{tail}{escaped_id}").as_bytes()).as_deref(),
        Some("SIG-20261123-0000000002")
    );

    let with_key = line("SIG-x", &format!("\"dedup_key\":\"{key}\""));
    assert!(needles.may_repeat(with_key.as_bytes()));
    let with_call = line("SIG-x", "\"tool_use_id\":\"toolu_01abc\"");
    assert!(needles.may_repeat(with_call.as_bytes()));
    // A call id spelled with an escape is the same string to a JSON parser.
    let escaped = line("SIG-x", r#""tool_use_id":"\u0074oolu_01abc""#);
    assert!(needles.may_repeat(escaped.as_bytes()));
    // A control-character escape (common in tool errors) cannot spell a key.
    let control = line("SIG-x", r#""tool":"\u001b[31m""#);
    assert!(!needles.may_repeat(control.as_bytes()));
}

#[test]
fn a_call_stored_with_escapes_is_still_a_duplicate() {
    let (_d, store) = store();
    fs::create_dir_all(&store.paths().data_dir).unwrap();
    fs::write(
        store.paths().store(),
        "{\"id\":\"SIG-20261123-0000000001\",\"version\":1,\"type\":\"failure\",\
         \"content\":\"Bash failed\",\"meta\":{\"tool_use_id\":\"\\u0074oolu_9\"}}\n",
    )
    .unwrap();
    let mut failure = sig(Kind::Failure, "Read failed: no such file", "s", 0);
    failure
        .meta
        .insert("tool_use_id".into(), Value::from("toolu_9"));
    let out = store.append(vec![failure]).unwrap();
    assert_eq!((out.duplicates, out.written.len()), (1, 0));
}

#[test]
fn repeats_become_recurrences_and_replays_are_dropped() {
    let (_d, store) = store();
    let append = |content, session, line| {
        let batch = vec![sig(Kind::Correction, content, session, line)];
        store.append(batch).unwrap()
    };
    let first = append("No, use pnpm!", "s1", 10).written;
    assert_eq!(append("no use pnpm", "s1", 10).duplicates, 1);
    assert_eq!(append("No, use pnpm", "s2", 5).recurred, first);
    // A rewrite materializes the count and drops the records.
    store.rewrite(&mut || {}, |_| Ok(((), true))).unwrap();
    let text = fs::read_to_string(store.paths().store()).unwrap();
    assert_eq!(text.lines().count(), 1, "{text}");
    assert_eq!(store.load().unwrap().get(&first[0]).unwrap().seen(), 2);
}

#[test]
fn one_tool_call_is_one_failure_whoever_reports_it() {
    let (_d, store) = store();
    let call = |s: &Signal, id: &str| {
        let mut s = s.clone();
        s.meta.insert("tool_use_id".into(), Value::from(id));
        s
    };
    let mut from_hook = sig(Kind::Failure, "Bash failed: Exit code 1", "s", 0);
    from_hook.source.line = None;
    let from_transcript = sig(
        Kind::Failure,
        "Bash error: npm ERR! missing script",
        "s",
        40,
    );
    let appended = |s: Signal| store.append(vec![s]).unwrap();
    let first = appended(call(&from_hook, "toolu_1")).written;
    assert_eq!(first.len(), 1);
    assert_eq!(appended(call(&from_transcript, "toolu_1")).duplicates, 1);
    // The same failure on another call is a recurrence, and that call is remembered too.
    for id in ["toolu_2", "toolu_3"] {
        assert_eq!(appended(call(&from_hook, id)).recurred, first);
    }
    assert_eq!(appended(call(&from_transcript, "toolu_3")).duplicates, 1);
    let snap = store.load().unwrap();
    assert_eq!(snap.signals().count(), 1);
    assert_eq!(snap.signals().next().unwrap().seen(), 3);
}

#[test]
fn a_snapshot_counts_each_kind_of_line() {
    let bytes = b"{\"id\":\"SIG-1\",\"type\":\"gotcha\"}\n\n{\"recur\":\"SIG-1\"}\nnot json\n\
        {\"ts\":\"2026-11-20T10:00:00Z\",\"type\":\"correction\"}\n{\"other\":1}\n{\"id\":\"SIG-torn";
    let expected = Health {
        lines: 6,
        signals: 1,
        legacy: 1,
        recurrences: 1,
        foreign: 1,
        invalid: 2,
        torn_tail: true,
        invalid_lines: vec![4, 7],
    };
    assert_eq!(Snapshot::parse(bytes).health, expected);
}

/// Migrated v2 signals kept their old dates, so the first prune deleted them all unreviewed.
#[test]
fn regression_migrated_v2_signals_get_a_full_review_window() {
    let (_d, store) = store();
    fs::create_dir_all(&store.paths().data_dir).unwrap();
    let v2 = |n: u32| {
        format!(
            r#"{{"ts":"2025-01-0{n}T10:00:00Z","sid":"old","type":"correction","context":"v2 correction {n}","turn":3}}"#
        )
    };
    // One migrated by an older version, without a date.
    let mut earlier =
        Signal::from_v2(serde_json::from_str(&v2(3)).unwrap(), v2(3).as_bytes()).unwrap();
    earlier.id = "SIG-20250103-000000000001".into();
    let earlier = serde_json::to_string(&earlier).unwrap();
    fs::write(
        store.paths().store(),
        format!("{}\n{}\n{earlier}\n", v2(1), v2(2)),
    )
    .unwrap();
    // Not migrated yet: no clock, never pruned.
    assert_eq!(store.prune(&mut || {}).unwrap(), (0, 0, 0));
    assert_eq!(store.load().unwrap().health.legacy, 2);
    assert_eq!(store.migrate_legacy(&mut || {}).unwrap(), 2);
    assert_eq!(store.prune(&mut || {}).unwrap(), (0, 0, 0));
    let snap = store.load().unwrap();
    assert_eq!(snap.signals().count(), 3);
    for s in snap.signals() {
        assert!(
            s.timestamp.starts_with("2025-01-0"),
            "history kept: {}",
            s.timestamp
        );
        let since = review_since(s).unwrap();
        assert!(Utc::now() - since < Duration::minutes(5), "{s:?}");
    }
    // The window closes CAPTURED_TTL_DAYS after the migration.
    let later = Utc::now() + Duration::days(CAPTURED_TTL_DAYS + 1);
    let counts = store.rewrite(&mut || {}, |snap| Ok((apply_ttl(snap, later), true)));
    assert_eq!(counts.unwrap(), (3, 0, 0));
}

/// A hook that waited more than its bound for the lock dropped its signal; now it spools it,
/// and the next writer folds the spool in, in order, deduped.
#[test]
fn regression_a_hook_that_times_out_on_the_lock_spools_its_signals() {
    let (_d, store) = store();
    let hook = Store::new(
        store.paths(),
        LockWait {
            timeout: std::time::Duration::from_millis(20),
        },
    );
    let failure = |call: &str, what: &str| {
        let mut s = sig(Kind::Failure, &format!("Bash failed: {what}"), "s", 1);
        s.meta.insert("tool_use_id".into(), Value::from(call));
        s
    };
    let outcome = store
        .locked(&mut || {}, || {
            Ok([
                hook.append_or_spool(vec![failure("t1", "first")]).unwrap(),
                hook.append_or_spool(vec![failure("t2", "second")]).unwrap(),
            ])
        })
        .unwrap();
    assert_eq!(
        outcome.map(|o| (o.spooled, o.written.len())),
        [(1, 0), (1, 0)]
    );
    let pending = store.paths().pending();
    let spooled: Vec<_> = fs::read_dir(&pending).unwrap().flatten().collect();
    assert_eq!(spooled.len(), 2);
    let first = fs::read(spooled.iter().map(|e| e.path()).min().unwrap()).unwrap();
    assert!(
        store.load().unwrap().signals().next().is_none(),
        "not folded yet"
    );
    // The next append folds the spool in first, oldest first.
    store.append(vec![failure("t3", "third")]).unwrap();
    let contents = |store: &Store| -> Vec<String> {
        store
            .load()
            .unwrap()
            .signals()
            .map(|s| s.content.clone())
            .collect()
    };
    let order = [
        "Bash failed: first",
        "Bash failed: second",
        "Bash failed: third",
    ];
    assert_eq!(contents(&store), order);
    assert_eq!(fs::read_dir(&pending).unwrap().count(), 0);
    // A file folded again (a crash before its removal) adds nothing; a rewrite folds too.
    fs::write(pending.join("20260101T000000.000000000Z-1-0.jsonl"), &first).unwrap();
    fs::write(
        pending.join("20260101T000000.000000001Z-1-1.jsonl"),
        b"{torn\n",
    )
    .unwrap();
    store.prune(&mut || {}).unwrap();
    assert_eq!(contents(&store), order);
    assert_eq!(fs::read_dir(&pending).unwrap().count(), 0);
    let quarantine = fs::read_to_string(invalid_lines_path(store.paths())).unwrap();
    assert_eq!(quarantine, "{torn\n");
    // A spool entry that cannot be read does not stop the writes.
    fs::create_dir(pending.join("20260101T000000.000000002Z-1-2.jsonl")).unwrap();
    store.append(vec![failure("t4", "fourth")]).unwrap();
    assert_eq!(contents(&store).len(), 4);
}

/// Temp files of killed rewrites (each a full copy of the store) stayed forever.
#[test]
fn regression_a_rewrite_removes_the_temp_files_of_killed_writers() {
    let (_d, store) = store();
    store
        .append(vec![sig(Kind::Gotcha, "kept", "s", 1)])
        .unwrap();
    let mut child = std::process::Command::new("true").spawn().unwrap();
    let dead = child.id();
    child.wait().unwrap();
    let data = &store.paths().data_dir;
    let dead_copy = data.join(format!(".signals.jsonl.{dead}.1.0.tmp"));
    let live_copy = data.join(format!(".signals.jsonl.{}.1.0.tmp", std::process::id()));
    fs::create_dir_all(store.paths().cursors()).unwrap();
    let dead_cursor = store
        .paths()
        .cursors()
        .join(format!(".s.json.{dead}.1.0.tmp"));
    for f in [&dead_copy, &live_copy, &dead_cursor] {
        fs::write(f, "copy").unwrap();
    }
    store.prune(&mut || {}).unwrap();
    assert!(!dead_copy.exists() && !dead_cursor.exists());
    assert!(live_copy.exists(), "a live writer's temp file stays");
}
