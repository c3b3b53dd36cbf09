//! The store's tests: the writers, and the reader's fast path held to the full parser.

use std::fs;
use std::path::Path;

use chrono::{Duration, Utc};
use serde_json::Value;

use super::append::{last_signal_id, Needles};
use super::lifecycle::apply_ttl;
use super::read::lines;
use super::*;
use crate::signal::{self, Kind, Signal, Status};
use reflect_base::platform::{map::MAP_LARGE_FILES as MAP, modes};

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

/// `s` as reported by the tool call `call`.
fn on_call(mut s: Signal, call: &str) -> Signal {
    s.meta.insert("tool_use_id".into(), Value::from(call));
    s
}

/// A store of every kind of line the fast path must agree with the full parser on.
fn mixed_store() -> Vec<u8> {
    let mut out = String::new();
    let kinds = ["correction", "convention", "failure", "summary"];
    let statuses = ["captured", "analyzed", "promoted", "dismissed"];
    for i in 0..400u32 {
        let day = 1 + i % 28;
        let kind = Kind::parse(kinds[i as usize % 4]);
        let mut s = Signal::new(kind, format!("content {i} \"é"));
        s.id = format!("SIG-202611{day:02}-{i:010x}");
        s.timestamp = format!("2026-11-{day:02}T10:{:02}:00Z", i % 60);
        s.status = Status::parse(statuses[(i / 4) as usize % 4]);
        s.confidence = (i % 4 + 1) as u8;
        s.session_id = Some(format!("s{}", i % 5));
        s.project = Some(["/work/app", "/other/\"odd\""][usize::from(i % 3 != 0)].into());
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

/// [`mixed_store`] with recurrences before and after their signals, blank lines and a torn last
/// line, so that split points fall between a signal and its recurrences and next to bad lines.
fn store_to_split() -> Vec<u8> {
    let mixed = mixed_store();
    let mut out = Vec::new();
    for i in (0..400u32).step_by(9) {
        let day = 1 + i % 28;
        let recur = format!("{{\"recur\":\"SIG-202611{day:02}-{i:010x}\",\"timestamp\":\"2026-11-{:02}T00:00:00Z\"}}\n", 1 + i % 9);
        out.extend_from_slice(recur.as_bytes());
    }
    out.extend_from_slice(b"\n   \n");
    out.extend_from_slice(&mixed);
    out.extend_from_slice(b"\n\nnot json either\n");
    out.extend_from_slice(&mixed);
    out.extend_from_slice(b"{\"id\":\"SIG-torn\",\"type\":\"fa");
    out
}

/// A filter as the CLI flags would give it: `status=captured type=gotcha since=<time>`...
fn filter(spec: &str) -> Filter {
    let mut f = Filter::default();
    for (key, value) in spec.split_whitespace().filter_map(|kv| kv.split_once('=')) {
        match key {
            "status" => f.statuses.push(Status::parse(value)),
            "type" => f.kinds.push(Kind::parse(value)),
            "session" => f.session = Some(value.into()),
            "project" => f.project = Some(value.into()),
            "tag" => f.tags.push(value.into()),
            _ => f.since = signal::parse_time(value),
        }
    }
    f
}

const FILTERS: [&str; 9] = [
    "",
    "status=captured since=2026-11-15T00:00:00Z",
    "type=correction type=failure",
    "session=s1",
    "project=/work",
    "project=/other/\"odd\"",
    "type=correction tag=t2 tag=t3",
    "since=2026-11-20T10:30:00Z",
    "status=analyzed status=dismissed type=summary",
];

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
            // A session has one summary: each summary here is another session's.
            let session = match *kind {
                "summary" => format!("s1-{n}"),
                _ => "s1".to_string(),
            };
            let s = sig(
                Kind::parse(kind),
                &format!("{content} {n}"),
                &session,
                n + 1,
            );
            let mut s = on_call(s, &format!("toolu_{n}"));
            s.status = Status::parse(Status::KNOWN[n as usize % 4]);
            s.confidence = (n % 4 + 1) as u8;
            s.context = format!("User said: {content}");
            s.category = (c % 2 == 0).then(|| "tool-failure".into());
            s.tags = vec!["pnpm".into(), "ü-tag".into()];
            s.related = vec!["SIG-20261122-0000000001".into()];
            s.source.uuid = Some(format!("uuid-{n}"));
            s.source.turn = Some(n);
            s.source.file = Some("/work/app/src/main.rs".into());
            s.meta.insert("tool".into(), Value::from("Bash"));
            batch.push(s);
        }
    }
    let first = store.append(batch.clone()).unwrap().written;
    // Seen again in other sessions, with and without a tool call: recurrence records, before
    // and after the rewrites of review (archive, update, promote, dismiss, migrate).
    let again = |session: &str, s: &Signal, call: Option<String>| {
        let mut s = s.clone();
        s.session_id = Some(session.into());
        // Typed anew there: another transcript entry (the same one would be a resumed copy).
        s.source.uuid = s.source.uuid.map(|u| format!("{u}-{session}"));
        s.meta.remove("tool_use_id");
        call.map_or(s.clone(), |call| on_call(s, &call))
    };
    let calls = batch.iter().enumerate();
    let seen = calls.map(|(i, s)| again("s2", s, Some(format!("t{i}"))));
    assert!(!store.append(seen.collect()).unwrap().recurred.is_empty());
    assert!(store.archive(&[], None, &mut || {}).unwrap() > 0);
    let changes = Changes {
        status: Some(Status::Analyzed),
        confidence: Some(4),
        category: Some("reviewed \"by hand\"".into()),
        tags: vec!["review".into()],
    };
    store.update(&first[..1], changes, &mut || {}).unwrap();
    // A promotion's rewrite, as the app's `promote` makes it.
    let target = dir.path().join("CLAUDE.md").display().to_string();
    store
        .rewrite(&mut || {}, |snap| {
            let sig = snap.get_mut(&first[4]).unwrap();
            sig.status = Status::Promoted;
            sig.promoted_to = Some(target);
            for (key, value) in [
                ("promoted_section", "## Learned"),
                ("promoted_at", "2026-11-22T10:00:00Z"),
                ("promoted_content", "Use \"pnpm\""),
            ] {
                sig.meta.insert(key.into(), Value::from(value));
            }
            Ok(((), true))
        })
        .unwrap();
    store.dismiss(&first[5..6], &mut || {}).unwrap();
    let path = store.paths().store();
    let v2 = "{\"ts\":\"2026-02-11T10:23:00Z\",\"sid\":\"abc\",\"type\":\"correction\",\"context\":\"No, use pnpm\",\"turn\":4,\"x\":1}\n";
    append_bytes(&path, v2.as_bytes()).unwrap();
    assert_eq!(store.migrate_legacy(&mut || {}).unwrap(), 1);
    let captured = batch
        .iter()
        .rev()
        .filter(|s| s.status == Status::Captured && s.kind != Kind::Summary);
    let repeat = captured.take(3).map(|s| again("s3", s, None)).collect();
    assert_eq!(store.append(repeat).unwrap().recurred.len(), 3);
    // A resumed session's summary updates it; a failure is completed by its resolution.
    let summary = batch
        .iter()
        .rev()
        .find(|s| s.kind == Kind::Summary && s.status == Status::Captured);
    let mut resumed = summary.unwrap().clone();
    resumed.content = "resumed \"again\" é".into();
    resumed.meta.remove("tool_use_id");
    let failure = batch
        .iter()
        .rev()
        .find(|s| s.kind == Kind::Failure && s.status == Status::Captured);
    let mut resolved = failure.unwrap().clone();
    resolved.resolution = Some("`pnpm install` \"quoted\"".into());
    let done = store.append(vec![resumed, resolved]).unwrap();
    assert_eq!(done.completed.len(), 2, "{done:?}");

    let mut kinds = std::collections::BTreeSet::new();
    for file in [path, store.paths().archive()] {
        let bytes = fs::read(&file).unwrap();
        let mut reader = read::Reader::default();
        for raw in lines(&bytes) {
            let line = String::from_utf8_lossy(raw);
            let view = reader.view(raw, Read::Scan).unwrap();
            assert!(view.is_scanned(), "the scanner declined: {line}");
            let full = reader.view(raw, Read::Parse).unwrap();
            assert_eq!(view.shape(), full.shape(), "{line}");
            kinds.insert(format!("{:?} {:?}", view.shape(), full.text(Key::Status)));
            if let read::Seen::Scanned(Shape::Signal, f) = &view.seen {
                let fast =
                    select::complete(&view).is_some() && stats::Counted::scanned(f).is_some();
                assert!(fast, "query or stats would parse it: {line}");
            }
        }
    }
    // Every kind of line the writers make was there to be checked.
    let statuses = Status::KNOWN
        .iter()
        .map(|s| format!("Some(Signal) Some(Some({s:?}))"));
    for expected in statuses.chain(["Some(Recur) Some(None)".to_string()]) {
        assert!(kinds.contains(&expected), "no {expected} among {kinds:?}");
    }
}

/// `select` (its signals and printed lines) and `stats`, in any number of parts, give what the
/// full parser gives; the parts of a store cut between signals and their recurrences.
#[test]
fn fast_passes_in_parts_agree_with_the_full_parser() {
    for bytes in [mixed_store(), store_to_split()] {
        let snap = Snapshot::parse(&bytes);
        assert!(snap.signals().any(|s| s.meta.contains_key("last_seen")));
        assert!(snap.health.invalid > 0 && snap.health.legacy > 0);
        for filter in &FILTERS.map(filter) {
            let slow = selected_in(&snap, filter);
            assert!(!slow.is_empty() || filter.session.is_some(), "{filter:?}");
            let parsed = select_with(&bytes, filter, Pass::PARSED).into_signals();
            assert_eq!(parsed, slow, "{filter:?}");
            // Lines printed as stored are the fast path's own: its passes agree among themselves.
            let mut one_part = None;
            for parts in [1, 2, 3, 7, 33] {
                let what = format!("{filter:?} in {parts} parts");
                let selection = select_with(&bytes, filter, Pass { parts, scan: true });
                let printed = selection.jsonl();
                let first = one_part.get_or_insert_with(|| printed.clone());
                assert!(*first == printed, "{what}");
                let jsonl: Vec<Signal> = lines(&printed)
                    .map(|l| serde_json::from_slice(l).unwrap())
                    .collect();
                assert_eq!(jsonl, slow, "{what}");
                assert_eq!(selection.into_signals(), slow, "{what}");
            }
        }
        let one = serde_json::to_value(stats_with(&bytes, Pass::PARSED)).unwrap();
        for parts in [1, 2, 3, 4, 7, 16, 33] {
            let fast = stats_with(&bytes, Pass { parts, scan: true });
            assert_eq!(serde_json::to_value(fast).unwrap(), one, "{parts} parts");
        }
        // And the parsed pass counts what the full parser reads.
        let by_confidence = |c: u8| snap.signals().filter(|s| s.confidence == c).count();
        assert_eq!(one["total"], snap.signals().count());
        assert_eq!(one["invalid_lines"], snap.health.invalid);
        assert_eq!(one["legacy_lines"], snap.health.legacy);
        for c in 1..=4 {
            assert_eq!(one["by_confidence"][c.to_string()], by_confidence(c), "{c}");
        }
        let review = |s: &&Signal| s.meta.get("needs_review") == Some(&Value::Bool(true));
        assert_eq!(one["needs_review"], snap.signals().filter(review).count());
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
    const SINCE: &str = "2026-11-15T00:00:00Z";
    let filter = filter(&format!("status=captured since={SINCE}"));
    let slow = selected_in(&snap, &filter);
    // The data holds a selected signal with recurrences.
    assert!(slow.iter().any(|s| s.id == "SIG-3" && s.seen() > 1));
    assert_eq!(select(&bytes, &filter).into_signals(), slow);
    // And the early test does pass over the plain non-matching line.
    let early = [1, 3, 4, 8].map(|i| filter.rejects_early(lines[i].as_bytes(), Some(SINCE)));
    assert_eq!(early, [true, false, false, false]);
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
        assert_eq!(matches!(view, StoreBytes::Mapped(_)), MAP && len > 1 << 20);
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
    assert!(ids.iter().any(|id| id.contains("-v2")), "a v2 id");
    // The data holds what it says it does: the escaped id seen again, the first copy of an id.
    assert_eq!(snap.get("SIG-20261130-00000000aa").unwrap().seen(), 2);
    let twice = snap.get("SIG-20261101-0000000000").unwrap();
    assert_ne!(twice.content, "second copy");

    // The archive is looked at when the store has no such id; v2 ids take the full parse.
    let (_d, store) = store();
    fs::create_dir_all(&store.paths.data_dir).unwrap();
    fs::write(store.paths.store(), &bytes).unwrap();
    let archived = r#"{"id":"SIG-20261001-00000000bb","type":"gotcha","content":"archived"}"#;
    fs::write(store.paths.archive(), format!("{archived}\n")).unwrap();
    let archived = store.find("SIG-20261001-00000000bb").unwrap();
    assert_eq!(archived.unwrap().content, "archived");
    for id in &ids {
        assert_eq!(store.find(id).unwrap(), snap.get_shown(id), "{id}");
    }
}

#[test]
fn session_signals_are_those_captured_or_seen_again_in_the_session() {
    let (_d, store) = store();
    let first = store.append(vec![sig(Kind::Gotcha, "a", "s1", 1)]).unwrap();
    store.append(vec![sig(Kind::Gotcha, "b", "s2", 1)]).unwrap();
    let again = store.append(vec![sig(Kind::Gotcha, "a", "s2", 9)]).unwrap();
    assert_eq!(again.recurred, first.written);
    let in_s2 = store.session_signals("s2").unwrap();
    let in_s2: Vec<_> = in_s2
        .iter()
        .map(|s| (s.content.as_str(), s.seen()))
        .collect();
    assert_eq!(in_s2, [("b", 1), ("a", 2)]);
    assert_eq!(store.session_signals("s1").unwrap()[0].seen(), 2);
    assert!(store.session_signals("s3").unwrap().is_empty());
    // What an append creates is private (by mode on Unix; by the profile's ACL on Windows).
    let mode = |p: &Path| modes::mode_of(&fs::metadata(p).unwrap());
    let modes = [mode(&store.paths().store()), mode(&store.paths().data_dir)];
    assert!(cfg!(windows) || modes == [Some(0o600), Some(0o700)]);
}

#[test]
fn a_tail_without_any_key_of_the_batch_is_not_parsed() {
    let failure = on_call(sig(Kind::Failure, "Bash failed: 1", "s", 0), "toolu_01abc");
    let needles = Needles::of(std::slice::from_ref(&failure));
    let key = failure.dedup_key();
    let line = |meta: &str| {
        format!(r#"{{"id":"SIG-20261123-0000000001","type":"failure","meta":{{{meta}}}}}"#)
    };
    let recur = r#"{"recur":"SIG-20261123-0000000001","timestamp":"2026-11-23T05:01:00Z"}"#;
    // Only a line holding the batch's key or call may repeat it, the call perhaps spelled with
    // an escape (a JSON parser reads the same string), but not with a control character's
    // (common in tool errors), which cannot spell a key.
    for (text, may) in [
        (line(r#""dedup_key":"0123456789abcdef""#), false),
        (recur.into(), false),
        ("not json".into(), false),
        ("torn first line\"}".into(), false),
        (line(r#""tool":"\u001b[31m""#), false),
        (r#"{"type":"preference","meta":{}}"#.into(), false),
        (line(&format!(r#""dedup_key":"{key}""#)), true),
        (line(r#""tool_use_id":"toolu_01abc""#), true),
        (line(r#""tool_use_id":"\u0074oolu_01abc""#), true),
    ] {
        assert_eq!(needles.may_repeat(text.as_bytes()), may, "{text}");
    }
    // An instruction may paraphrase any instruction of the tail, and nothing else.
    let rule = sig(Kind::Convention, "Always run the linter", "s", 0);
    let needles = Needles::of(&[failure, rule]);
    for (text, may) in [
        (line(r#""dedup_key":"0123456789abcdef""#), false),
        (line(r#""tool_use_id":"toolu_01abc""#), true),
        (r#"{"type":"preference","meta":{}}"#.into(), true),
        (r#"{"type":"correction","meta":{}}"#.into(), true),
    ] {
        assert_eq!(needles.may_repeat(text.as_bytes()), may, "{text}");
    }
    // The last id, backwards past recurrences and bad lines, escaped or not.
    let tail = format!("{}\n{recur}\nnot json\n", line(""));
    let escaped = r#"{"id":"\u0053IG-20261123-0000000002","type":"x"}"#;
    let escaped = format!("{tail}{escaped}");
    for (lines, id) in [
        (&tail, Some("SIG-20261123-0000000001")),
        (&escaped, Some("SIG-20261123-0000000002")),
        (&"not json\n".into(), None),
    ] {
        assert_eq!(last_signal_id(lines.as_bytes()).as_deref(), id, "{lines}");
    }
}

/// A repeat is a recurrence; a replay of the same sighting (the same transcript line of the same
/// session, or the same tool call whoever reports it) is dropped; a rewrite folds the count in.
#[test]
fn repeats_become_recurrences_and_replays_are_dropped() {
    let (_d, store) = store();
    let append = |s: Signal| store.append(vec![s]).unwrap();
    let said = |content, session, line| sig(Kind::Correction, content, session, line);
    let first = append(said("No, use pnpm!", "s1", 10)).written;
    assert_eq!(append(said("no use pnpm", "s1", 10)).duplicates, 1);
    assert_eq!(append(said("No, use pnpm", "s2", 5)).recurred, first);
    // The failure hook and the transcript miner both report a failed tool call.
    let mut from_hook = sig(Kind::Failure, "Bash failed: Exit code 1", "s", 0);
    from_hook.source.line = None;
    from_hook.source.hook = Some("PostToolUseFailure".into());
    let from_transcript = sig(Kind::Failure, "Bash error: npm ERR! missing", "s", 40);
    let failed = append(on_call(from_hook.clone(), "toolu_1")).written;
    let replayed = append(on_call(from_transcript.clone(), "toolu_1"));
    assert_eq!(replayed.duplicates, 1);
    // The same failure on another call of the session is a retry of its episode; in another
    // session it is a recurrence, and that call is remembered too.
    assert_eq!(append(on_call(from_hook.clone(), "toolu_2")).duplicates, 1);
    let mut elsewhere = on_call(from_hook.clone(), "toolu_3");
    elsewhere.session_id = Some("t".into());
    assert_eq!(append(elsewhere).recurred, failed);
    assert_eq!(append(on_call(from_transcript, "toolu_3")).duplicates, 1);
    store.rewrite(&mut || {}, |_| Ok(((), true))).unwrap();
    let text = fs::read_to_string(store.paths().store()).unwrap();
    assert_eq!(text.lines().count(), 2, "{text}");
    let seen: Vec<u64> = store.load().unwrap().signals().map(Signal::seen).collect();
    assert_eq!(seen, [2, 2]);
}

/// A resumed or forked session's file repeats the conversation it continues, each entry under its
/// own uuid: a signal mined there again is the same sighting, not one more session; the same
/// words typed anew in that session (another uuid) are.
#[test]
fn a_prompt_copied_into_a_resumed_session_is_no_new_sighting() {
    let (_d, store) = store();
    let append = |s: Signal| store.append(vec![s]).unwrap();
    let said = |session, line, uuid: &str| {
        let mut s = sig(Kind::Correction, "No, use pnpm!", session, line);
        s.source.uuid = Some(uuid.into());
        s
    };
    let first = append(said("s1", 12, "u-12")).written;
    assert_eq!(append(said("s2", 11, "u-12")).duplicates, 1);
    assert_eq!(append(said("s2", 40, "u-40")).recurred, first);
    store.rewrite(&mut || {}, |_| Ok(((), true))).unwrap();
    let snap = store.load().unwrap();
    let signal = snap.signals().next().unwrap();
    assert_eq!(signal.seen(), 2);
    assert_eq!(signal.meta["sessions"], 2);
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

/// Migrated v2 signals kept their old dates, so the first prune deleted them all unreviewed (the
/// CLI's regression test). The window closes CAPTURED_TTL_DAYS after the migration; a v2 line
/// not migrated yet has no clock; one an older version migrated undated is dated at a prune.
#[test]
fn regression_migrated_v2_signals_get_a_full_review_window() {
    let (_d, store) = store();
    fs::create_dir_all(&store.paths().data_dir).unwrap();
    let v2 =
        r#"{"ts":"2025-01-01T10:00:00Z","sid":"old","type":"correction","context":"a","turn":3}"#;
    let undated = r#"{"id":"SIG-20250102-0000000001","type":"correction","content":"b","timestamp":"2025-01-02T10:00:00Z","meta":{"migrated_from":"v2"}}"#;
    fs::write(store.paths().store(), format!("{v2}\n{undated}\n")).unwrap();
    let prune_at = |now| store.rewrite(&mut || {}, |snap| Ok((apply_ttl(snap, now), true)));
    let later = Utc::now() + Duration::days(CAPTURED_TTL_DAYS + 1);
    assert_eq!(store.prune(&mut || {}).unwrap(), (0, 0, 0));
    assert_eq!(prune_at(later).unwrap(), (1, 0, 0), "dated at the prune");
    assert_eq!(store.migrate_legacy(&mut || {}).unwrap(), 1);
    assert_eq!(prune_at(later - Duration::days(2)).unwrap(), (0, 0, 0));
    assert_eq!(prune_at(later).unwrap(), (1, 0, 0));
}

/// A hook that waited more than its bound for the lock dropped its signal; now it spools it,
/// and the next writer folds the spool in, in order, deduped.
#[test]
fn regression_a_hook_that_times_out_on_the_lock_spools_its_signals() {
    let (_d, store) = store();
    let timeout = std::time::Duration::from_millis(20);
    let hook = Store::new(store.paths(), LockWait { timeout });
    let failure = |what| {
        let content = format!("Bash failed: {what}");
        on_call(sig(Kind::Failure, &content, "s", 1), what)
    };
    let outcome = store.locked(&mut || {}, || {
        Ok(["first", "second"].map(|what| hook.append_or_spool(vec![failure(what)]).unwrap()))
    });
    let outcome = outcome.unwrap().map(|o| (o.spooled, o.written.len()));
    assert_eq!(outcome, [(1, 0), (1, 0)]);
    let contents = || -> Vec<String> {
        let snap = store.load().unwrap();
        snap.signals().map(|s| s.content.clone()).collect()
    };
    let (names, pending) = (spooled(store.paths()), store.paths().pending());
    assert_eq!((names.len(), contents().len()), (2, 0), "not folded yet");
    let first = fs::read(pending.join(&names[0])).unwrap();
    // The next append folds the spool in first, oldest first.
    store.append(vec![failure("third")]).unwrap();
    let order = ["first", "second", "third"].map(|w| format!("Bash failed: {w}"));
    assert_eq!(contents(), order);
    assert!(spooled(store.paths()).is_empty());
    // A file folded again (a crash before its removal) adds nothing; a rewrite folds too.
    fs::write(pending.join("20260101T000000.000000000Z-1-0.jsonl"), &first).unwrap();
    let torn = pending.join("20260101T000000.000000001Z-1-1.jsonl");
    fs::write(torn, "{torn\n").unwrap();
    store.prune(&mut || {}).unwrap();
    assert_eq!(contents(), order);
    assert!(spooled(store.paths()).is_empty());
    let quarantine = fs::read_to_string(invalid_lines_path(store.paths())).unwrap();
    assert_eq!(quarantine, "{torn\n");
    // A spool entry that cannot be read does not stop the writes.
    fs::create_dir(pending.join("20260101T000000.000000002Z-1-2.jsonl")).unwrap();
    store.append(vec![failure("fourth")]).unwrap();
    assert_eq!(contents().len(), 4);
}

/// Temp files of killed writers (a rewrite's is a whole copy of the store) stayed forever: a
/// rewrite removes them from every directory reflect writes into (live ones stay: fsutil's test).
#[test]
fn regression_a_rewrite_removes_the_temp_files_of_killed_writers() {
    let (_d, store) = store();
    // A process that has just ended: this test binary, run once to list its tests.
    let mut child = std::process::Command::new(std::env::current_exe().unwrap())
        .arg("--list")
        .stdout(std::process::Stdio::null())
        .spawn()
        .unwrap();
    let dead = child.id();
    child.wait().unwrap();
    let dirs = store.paths().atomic_dirs();
    let left = dirs.map(|d| d.join(format!(".s.json.{dead}.1.0.tmp")));
    for f in &left {
        fs::create_dir_all(f.parent().unwrap()).unwrap();
        fs::write(f, "copy").unwrap();
    }
    store.prune(&mut || {}).unwrap();
    assert!(left.iter().all(|f| !f.exists()), "{left:?}");
}
