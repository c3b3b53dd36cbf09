//! What the store keeps of each sighting, through the core's public API: seen counts episodes,
//! each sighting keeps its evidence, a failure is completed by its resolution, a repeat is
//! recognised however far back its first sighting is, and a session has one summary.

use std::fs;

use reflect_base::fsutil::LockWait;
use reflect_base::paths::Paths;
use reflect_store::keyindex;
use reflect_store::signal::{Kind, Signal};
use reflect_store::store::{select, stats, Filter, Store, TAIL_BYTES};
use serde_json::Value;

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

/// `s` from the turn opened by the prompt on line `prompt`.
fn in_turn(mut s: Signal, prompt: u64) -> Signal {
    s.source
        .extra
        .insert(keyindex::PROMPT_LINE.into(), Value::from(prompt));
    s
}

/// Seen counts episodes: a retry loop within one turn is one sighting, the same thing in
/// another turn or another session is another.
#[test]
fn seen_counts_episodes_not_retries() {
    let (_d, store) = store();
    let append = |s: Signal| store.append(vec![s]).unwrap();
    let failed = |session, line, prompt| {
        in_turn(
            sig(
                Kind::Failure,
                "Bash failed: jq: command not found",
                session,
                line,
            ),
            prompt,
        )
    };
    let first = append(failed("s1", 10, 9)).written;
    for line in 11..20 {
        assert_eq!(
            append(failed("s1", line, 9)).duplicates,
            1,
            "retry on line {line}"
        );
    }
    assert_eq!(append(failed("s1", 40, 39)).recurred, first, "a later turn");
    assert_eq!(append(failed("s1", 41, 39)).duplicates, 1);
    assert_eq!(
        append(failed("s2", 3, 2)).recurred,
        first,
        "another session"
    );
    assert_eq!(store.find(&first[0]).unwrap().unwrap().seen(), 3);
}

/// A sighting is found by its session before and after a rewrite folds its record into its
/// signal's `meta.sightings` (what keeps the digest from listing its prompt again).
#[test]
fn sightings_of_a_session_are_found_through_rewrites() {
    let (_d, store) = store();
    let append = |s: Signal| store.append(vec![s]).unwrap();
    let said = |content, session, line| sig(Kind::Correction, content, session, line);
    append(said("Please do not commit until I say so", "s1", 4));
    append(said("do not comit untill I said so", "s2", 7));
    let found = |store: &Store| {
        let mut seen = Vec::new();
        let sessions = std::collections::HashSet::from(["s2"]);
        reflect_store::store::sightings_of(store.paths(), &sessions, |session, source, _| {
            seen.push((session.to_string(), source.line))
        })
        .unwrap();
        seen
    };
    let expected = vec![("s2".to_string(), Some(7))];
    assert_eq!(found(&store), expected);
    store.rewrite(&mut || {}, |_| Ok(((), true))).unwrap();
    assert_eq!(found(&store), expected, "after a rewrite");
}

/// Every sighting keeps its own session, line and words; `get` shows them newest first, and a
/// rewrite keeps them when it folds the records away.
#[test]
fn sightings_keep_their_evidence_through_get_and_rewrites() {
    let (_d, store) = store();
    let append = |s: Signal| store.append(vec![s]).unwrap();
    let said = |content, session, line| sig(Kind::Correction, content, session, line);
    let id = append(said("Please do not commit until I say so", "s1", 4)).written[0].clone();
    append(said("do not comit untill I said so", "s2", 7));
    append(said("Do not commit until I said so please", "s3", 12));
    let shown = |store: &Store| {
        let got = store.find(&id).unwrap().unwrap();
        let sightings = got.meta["sightings"].as_array().unwrap().clone();
        let of = |k: &str| -> Vec<Value> { sightings.iter().map(|e| e[k].clone()).collect() };
        (got.seen(), of("session_id"), of("line"), of("said"))
    };
    let expected = (
        3,
        vec![Value::from("s3"), Value::from("s2")],
        vec![Value::from(12), Value::from(7)],
        vec![
            Value::from("Do not commit until I said so please"),
            Value::from("do not comit untill I said so"),
        ],
    );
    assert_eq!(shown(&store), expected);
    store.rewrite(&mut || {}, |_| Ok(((), true))).unwrap();
    assert_eq!(shown(&store), expected, "after a rewrite");
    append(said("do not commit until i say so", "s4", 1));
    let after = shown(&store);
    assert_eq!(
        (after.0, &after.1[..2]),
        (4, &[Value::from("s4"), Value::from("s3")][..])
    );
}

/// A failure the hook stored before its fix was known is completed by the miner's report of the
/// same call (of any call of its episode): one signal, with the resolution, seen once.
#[test]
fn a_hook_failure_is_completed_by_the_miners_resolution_not_stored_twice() {
    let (_d, store) = store();
    let mut from_hook = sig(
        Kind::Failure,
        "Bash failed: sudo: a password is required",
        "s",
        0,
    );
    from_hook.source.line = None;
    let stored = store
        .append(vec![on_call(from_hook, "toolu_1")])
        .unwrap()
        .written;
    let mut mined = sig(
        Kind::Failure,
        "Bash failed: sudo: a password is required",
        "s",
        40,
    );
    mined
        .meta
        .insert("tool_use_id".into(), Value::from("toolu_0"));
    mined.meta.insert(
        "tool_use_ids".into(),
        serde_json::json!(["toolu_0", "toolu_1"]),
    );
    mined.resolution = Some("`pkexec apt install jq`".into());
    let outcome = store.append(vec![mined.clone()]).unwrap();
    assert_eq!(
        (outcome.written.len(), outcome.completed.clone()),
        (0, stored.clone())
    );
    // Once: a replay of the miner's run adds nothing.
    assert_eq!(store.append(vec![mined]).unwrap().duplicates, 1);
    let got = store.find(&stored[0]).unwrap().unwrap();
    assert_eq!(got.resolution.as_deref(), Some("`pkexec apt install jq`"));
    assert_eq!(got.seen(), 1);
    let listed = store.load().unwrap();
    assert_eq!(listed.signals().count(), 1);
    assert_eq!(listed.get(&stored[0]).unwrap().resolution, got.resolution);
    store.rewrite(&mut || {}, |_| Ok(((), true))).unwrap();
    let text = fs::read_to_string(store.paths().store()).unwrap();
    assert_eq!(text.lines().count(), 1, "{text}");
    assert!(
        text.contains("\"resolution\":\"`pkexec apt install jq`\""),
        "{text}"
    );
}

/// Repeat detection does not depend on how far back the first sighting is: 120 distinct
/// failures (more than the append's tail holds) repeated in another session are 120 signals
/// seen twice each, and a rewrite keeps it so.
#[test]
fn repeats_older_than_the_tail_are_recognised_by_the_key_index() {
    let (_d, store) = store();
    let failure = |i: usize, session: &str| {
        let mut s = sig(
            Kind::Failure,
            &format!(
                "Bash failed: error: missing tool number{} ({})",
                words(i),
                "x".repeat(400)
            ),
            session,
            i as u64 + 1,
        );
        s.context = "y".repeat(300);
        s
    };
    for round in ["s1", "s2"] {
        for i in 0..120 {
            store.append(vec![failure(i, round)]).unwrap();
        }
    }
    assert!(fs::metadata(store.paths().store()).unwrap().len() > 2 * TAIL_BYTES);
    let counts = |store: &Store| {
        let snap = store.load().unwrap();
        let seen: Vec<u64> = snap.signals().map(Signal::seen).collect();
        seen
    };
    assert_eq!(counts(&store), vec![2; 120]);
    // A rewrite writes the index anew: a third round still finds every key.
    store.rewrite(&mut || {}, |_| Ok(((), true))).unwrap();
    for i in 0..120 {
        store.append(vec![failure(i, "s3")]).unwrap();
    }
    assert_eq!(counts(&store), vec![3; 120]);
}

/// Distinct words for `i` (a failure's key ignores digits).
fn words(i: usize) -> String {
    let names = [
        "alpha", "beta", "gamma", "delta", "eps", "zeta", "eta", "theta", "iota", "kappa", "lam",
    ];
    format!("{} {}", names[i % 11], names[(i / 11) % 11])
}

/// One summary per session: a resumed session's end updates it (newest wins for every reader,
/// and a rewrite writes it in); a summary is never pending review.
#[test]
fn a_resumed_sessions_summary_is_updated_not_repeated_and_never_pending() {
    let (_d, store) = store();
    let summary = |content: &str, turns: u64| {
        let mut s = sig(Kind::Summary, content, "s1", 0);
        s.source.line = None;
        s.meta.insert("turns".into(), Value::from(turns));
        s
    };
    let id = store
        .append(vec![summary("Session s1: 2 prompts", 2)])
        .unwrap()
        .written;
    store
        .append(vec![sig(Kind::Correction, "use pnpm, not npm", "s1", 3)])
        .unwrap();
    let outcome = store
        .append(vec![summary("Session s1: 5 prompts", 5)])
        .unwrap();
    assert_eq!(
        (outcome.written.len(), outcome.completed.clone()),
        (0, id.clone())
    );
    let check = |store: &Store| {
        let got = store.find(&id[0]).unwrap().unwrap();
        assert_eq!(
            (got.content.as_str(), &got.meta["turns"]),
            ("Session s1: 5 prompts", &Value::from(5))
        );
        assert_eq!(got.seen(), 1);
        let snap = store.load().unwrap();
        let of_s1 = |s: &&Signal| s.kind == Kind::Summary && s.session_id.as_deref() == Some("s1");
        assert_eq!(snap.signals().filter(of_s1).count(), 1);
        let bytes = store.view_bytes().unwrap();
        let listed = select(&bytes, &Filter::default()).into_signals();
        let summaries: Vec<&str> = listed
            .iter()
            .filter(of_s1)
            .map(|s| s.content.as_str())
            .collect();
        assert_eq!(summaries, ["Session s1: 5 prompts"]);
        assert_eq!(stats(&bytes).pending, 1, "the correction only");
    };
    check(&store);
    // Another session's summary is its own.
    let mut other = summary("Session s2: 1 prompt", 1);
    other.session_id = Some("s2".into());
    assert_eq!(store.append(vec![other]).unwrap().written.len(), 1);
    store.rewrite(&mut || {}, |_| Ok(((), true))).unwrap();
    check(&store);
}

/// The failure hook stores a failure and drops its report of the same failure in a later turn
/// (it knows no turn); the miners (PreCompact, then SessionEnd over the same transcript) each
/// report both calls. The later turn is one more episode: exactly one recurrence, whoever saw it.
#[test]
fn a_hook_failure_and_the_miners_reports_make_one_sighting_per_episode() {
    let (_d, store) = store();
    let text = "Bash failed: reflect-missing-tool: command not found";
    let hook = |call| {
        let mut s = on_call(sig(Kind::Failure, text, "s", 0), call);
        s.source.line = None;
        s.source.hook = Some("PostToolUseFailure".into());
        s
    };
    let stored = store.append(vec![hook("toolu_1")]).unwrap().written;
    assert_eq!(stored.len(), 1);
    let again = store.append(vec![hook("toolu_2")]).unwrap();
    assert_eq!((again.written.len(), again.recurred.len()), (0, 0));
    let mined = |call, line, prompt| {
        let mut s = in_turn(on_call(sig(Kind::Failure, text, "s", line), call), prompt);
        s.source.hook = Some("PreCompact".into());
        s
    };
    for _miner in ["PreCompact", "SessionEnd"] {
        store
            .append(vec![mined("toolu_1", 7, 3), mined("toolu_2", 14, 12)])
            .unwrap();
    }
    let got = store.find(&stored[0]).unwrap().unwrap();
    assert_eq!(got.seen(), 2, "{:?}", got.meta);
    let records = fs::read_to_string(store.paths().store()).unwrap();
    let sightings = records
        .lines()
        .filter(|l| l.starts_with("{\"recur\"") && !l.contains("\"completes\":true"))
        .count();
    assert_eq!(sightings, 1, "{records}");
}
