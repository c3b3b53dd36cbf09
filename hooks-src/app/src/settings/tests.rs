use super::document::*;
use super::ours::*;
use super::status::*;
use super::*;
use serde_json::{json, Map};

fn doc(v: Value) -> Document {
    let text = serde_json::to_string_pretty(&v).unwrap() + "\n";
    Document::parse(Path::new("/s.json"), Some(text.into_bytes())).unwrap()
}

/// A command, and what recognition says of it: `(index into HOOKS, legacy)`, or not ours.
type RecognitionCase = (&'static str, Option<(Option<usize>, bool)>);

#[test]
fn recognizes_ours_and_legacy_but_not_lookalikes() {
    let cases: &[RecognitionCase] = &[
        (
            r#""/h o/.claude/reflections/bin/capture-signals""#,
            Some((Some(0), false)),
        ),
        ("capture-failure", Some((Some(1), false))),
        ("'/x/it'\\''s/bin/inject-signals'", Some((Some(3), false))),
        (
            "python3 ~/.claude/skills/x/capture-signals.py",
            Some((Some(0), true)),
        ),
        (
            "bash $HOME/hooks/capture-failure.sh --x",
            Some((Some(1), true)),
        ),
        (
            "python3 /a/capture-session-summary.py",
            Some((Some(2), true)),
        ),
        ("/a/inject-signals.sh", Some((Some(3), true))),
        (
            "bash ~/.claude/skills/self-reflect/hooks/other.sh",
            Some((None, true)),
        ),
        ("cd /tmp && /a/b/capture-signals", Some((Some(0), false))),
        ("my-capture-failure", None),
        ("/a/capture-failure-v9", None),
        ("/a/self-reflect-toggle/x.sh", None),
        ("echo capture-signals-like", None),
    ];
    for (command, want) in cases {
        let got =
            recognize(&json!({"type":"command","command":command})).map(|r| (r.hook, r.legacy));
        assert_eq!(&got, want, "{command}");
    }
    let exec = json!({"type":"command","command":"python3","args":["/o/capture-signals.py"]});
    assert_eq!(recognize(&exec).map(|r| r.legacy), Some(true));
}

#[test]
fn shell_quote_survives_sh() {
    for p in ["/home/a b/bin/x", "/h/it's/x", "/h/$HOME\"`/x"] {
        let words = shell_words(&shell_quote(Path::new(p)));
        assert_eq!(words, [p], "{p}");
    }
}

#[test]
fn enable_keeps_current_and_replaces_the_rest() {
    let bin = Path::new("/d/bin");
    let mut d = doc(json!({"hooks":{"PreCompact":[
        {"hooks":[{"type":"command","command":"python3 /x/capture-signals.py"}]},
        {"matcher":"auto","hooks":[{"type":"command","command":"mine"}]}
    ]}}));
    let changes = d.enable(bin);
    assert_eq!(changes.len(), 5, "{changes:?}");
    let once = d.render();
    assert!(d.enable(bin).is_empty());
    assert_eq!(d.render(), once);
    let pre = d.root()["hooks"]["PreCompact"].as_array().unwrap();
    assert_eq!(
        pre.len(),
        2,
        "legacy group dropped, user's kept, ours appended"
    );
    assert_eq!(pre[0]["hooks"][0]["command"], "mine");
    assert_eq!(
        d.status(bin)
            .hooks
            .iter()
            .filter(|h| h.current.is_some())
            .count(),
        4
    );
}

#[test]
fn replacing_legacy_keeps_the_place_of_hooks() {
    let mut d = doc(json!({"a":1,"hooks":{"PreCompact":[
            {"hooks":[{"type":"command","command":"python3 /x/self-reflect/capture-signals.py"}]}
        ],"Stop":[{"hooks":[{"type":"command","command":"/x/self-reflect/stop.sh"}]}]},"z":2}));
    d.enable(Path::new("/b"));
    let keys: Vec<&String> = d.root().keys().collect();
    assert_eq!(keys, ["a", "hooks", "z"]);
    let events: Vec<&String> = d.root()["hooks"].as_object().unwrap().keys().collect();
    assert_eq!(
        events,
        [
            "PreCompact",
            "PostToolUseFailure",
            "SessionEnd",
            "SessionStart"
        ]
    );
}

#[test]
fn disable_drops_only_what_it_emptied() {
    let mut d = doc(json!({"hooks":{
        "Stop":[],
        "PreCompact":[{"hooks":[]},{"hooks":[{"type":"command","command":"/b/capture-signals"},{"type":"command","command":"mine"}]}],
        "SessionEnd":[{"hooks":[{"type":"command","command":"/b/capture-session-summary"}]}]
    }}));
    assert_eq!(d.disable().len(), 2);
    assert_eq!(
        Value::Object(d.root().clone()),
        json!({"hooks":{"Stop":[],"PreCompact":[{"hooks":[]},{"hooks":[{"type":"command","command":"mine"}]}]}})
    );
    let mut only_ours = doc(
        json!({"a":1,"hooks":{"SessionEnd":[{"hooks":[{"type":"command","command":"/b/capture-session-summary"}]}]},"z":2}),
    );
    only_ours.disable();
    assert_eq!(
        Value::Object(only_ours.root().clone()),
        json!({"a":1,"z":2})
    );
    let mut empty_hooks = doc(json!({"hooks":{}}));
    assert!(empty_hooks.disable().is_empty());
    assert!(empty_hooks.root().contains_key("hooks"));
}

#[test]
fn shape_errors_name_the_place() {
    let cases = [
        (r#"[]"#, "the top level is not a JSON object"),
        (r#"{"hooks":[]}"#, "hooks is not an object"),
        (
            r#"{"hooks":{"PreCompact":{}}}"#,
            "hooks.PreCompact is not an array",
        ),
        (
            r#"{"hooks":{"Stop":[1]}}"#,
            "hooks.Stop[0] is not an object",
        ),
        (
            r#"{"hooks":{"Stop":[{"matcher":""}]}}"#,
            "hooks.Stop[0] has no hooks array",
        ),
        (
            r#"{"hooks":{"Stop":[{"hooks":{}}]}}"#,
            "hooks.Stop[0].hooks is not an array",
        ),
        (
            r#"{"hooks":{"Stop":[{"hooks":["x"]}]}}"#,
            "hooks.Stop[0].hooks[0] is not an object",
        ),
        (r#"{"a":1,}"#, "not valid JSON"),
        (r#"{"a":1} // mine"#, "not valid JSON"),
        (r#"{"hooks":{},"hooks":{}}"#, "hooks appears twice"),
        (
            r#"{"hooks":{"Stop":[],"Stop":[]}}"#,
            "hooks.Stop appears twice",
        ),
        (
            r#"{"hooks":{"Stop":[{"hooks":[],"hooks":[]}]}}"#,
            "hooks.Stop[0].hooks appears twice",
        ),
    ];
    for (text, want) in cases {
        let err = Document::parse(Path::new("/s.json"), Some(text.into())).unwrap_err();
        assert_eq!(
            err.to_string().split(" (").next().unwrap(),
            format!("/s.json: {want}"),
            "{text}"
        );
    }
}

/// The real-world-shaped files of `tests/fixtures/settings/` (two-space indents, LF) in every
/// layout people keep: two or four spaces or tabs, LF or CRLF, with or without a final newline.
fn real_world_files() -> Vec<(String, String)> {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../tests/fixtures/settings");
    let mut out = Vec::new();
    for entry in fs::read_dir(dir).unwrap().flatten() {
        let name = entry.file_name().to_string_lossy().into_owned();
        let text = fs::read_to_string(entry.path()).unwrap();
        for unit in ["  ", "    ", "\t"] {
            for newline in ["\n", "\r\n"] {
                for final_newline in [true, false] {
                    let lines: Vec<String> = text
                        .lines()
                        .map(|l| {
                            let body = l.trim_start_matches(' ');
                            unit.repeat((l.len() - body.len()) / 2) + body
                        })
                        .collect();
                    let mut t = lines.join(newline);
                    if final_newline && text.ends_with('\n') {
                        t.push_str(newline);
                    }
                    let layout = format!("{unit:?} {newline:?} final newline {final_newline}");
                    out.push((format!("{name} ({layout})"), t));
                }
            }
        }
    }
    assert!(out.len() >= 10 * 12, "fixtures found: {}", out.len() / 12);
    out
}

/// Whether `on` fills a container the user already had empty (`{}` as the whole file, an empty
/// `hooks`, or an empty array of one of our events): `off` can restore that only from the backup.
fn on_fills_an_empty_container(doc: &Document) -> bool {
    let hooks = doc.root().get("hooks");
    doc.root().is_empty()
        || hooks.and_then(Value::as_object).is_some_and(Map::is_empty)
        || HOOKS.iter().any(|h| {
            hooks
                .and_then(|v| v.get(h.event))
                .and_then(Value::as_array)
                .is_some_and(Vec::is_empty)
        })
}

#[test]
fn regression_on_then_off_is_byte_identical_in_every_layout() {
    let bin = Path::new("/home/u/.claude/reflections/bin");
    let at = Path::new("/s.json");
    // A file saved with a byte order mark (Claude Code accepts it) was refused.
    let with_bom: Vec<(String, String)> = real_world_files()
        .into_iter()
        .map(|(name, text)| (format!("{name} with a BOM"), format!("{BOM}{text}")))
        .collect();
    for (name, text) in real_world_files().into_iter().chain(with_bom) {
        let before = Document::parse(at, Some(text.clone().into_bytes())).unwrap();
        let mut on = before.clone();
        assert_eq!(on.enable(bin).len(), 4, "{name}");
        let on_text = String::from_utf8(on.render()).unwrap();
        assert_eq!(on_text.starts_with(BOM), text.starts_with(BOM), "{name}");
        if text.contains("\r\n") {
            assert!(!on_text.replace("\r\n", "").contains('\n'), "{name}: CRLF");
        }
        let spread = text.trim().contains('\n');
        if spread && name.contains("\"\\t\"") {
            assert!(!on_text.contains("\n "), "{name}: tabs: {on_text}");
        }
        if spread && name.contains("\"    \"") {
            assert!(
                !on_text.contains("\n  \"hooks\""),
                "{name}: 4 spaces: {on_text}"
            );
        }
        let reread = || Document::parse(at, Some(on_text.clone().into_bytes())).unwrap();
        assert_eq!(reread().status(bin).overall(), Overall::Partial, "{name}");

        // `off` right after `on`, with the backup `on` made: the same bytes, always.
        let mut off = reread();
        assert_eq!(off.disable_after(Some(&before), bin).len(), 4, "{name}");
        assert_eq!(String::from_utf8(off.render()).unwrap(), text, "{name}");

        if on_fills_an_empty_container(&before) {
            continue;
        }
        // Without the backup, and after an edit of the user's, `off` still takes out exactly
        // what `on` put in.
        let mut off = reread();
        off.disable();
        assert_eq!(String::from_utf8(off.render()).unwrap(), text, "{name}");
        let edited = on_text.replacen("\"opus\"", "\"haiku\"", 1);
        let mut off = Document::parse(at, Some(edited.into_bytes())).unwrap();
        off.disable_after(Some(&before), bin);
        assert_eq!(
            String::from_utf8(off.render()).unwrap(),
            text.replacen("\"opus\"", "\"haiku\"", 1),
            "{name}: edited between on and off"
        );
    }
}

/// Windows' exec form: each handler names the binary in `command` (its backslashes escaped
/// in the file) with `"args": []`, no shell; `on` then `off` gives back the very bytes in every
/// layout, CRLF included; `off` finds exactly those entries; a second `on` changes nothing.
#[test]
fn exec_form_on_then_off_is_byte_identical_and_recognized() {
    let bin = Path::new(r"C:\Users\Me\.claude\reflections\bin");
    let at = Path::new("/s.json");
    let exec = |text: &str| {
        Document::parse(at, Some(text.as_bytes().to_vec()))
            .unwrap()
            .with_form(HookForm::Exec)
    };
    // A Windows path in the exec form is one word, its backslashes no escapes.
    let win = r"C:\Users\Me\.claude\reflections\bin\capture-failure.exe";
    let handler = serde_json::json!({"type": "command", "command": win, "args": []});
    assert_eq!(recognize(&handler).and_then(|r| r.hook), Some(1));
    for (name, text) in real_world_files() {
        let before = exec(&text);
        let mut on = before.clone();
        assert_eq!(on.enable(bin).len(), 4, "{name}");
        let on_text = String::from_utf8(on.render()).unwrap();
        let want = bin.join(reflect_base::paths::binary_file("capture-failure"));
        let want = serde_json::to_string(&want.to_string_lossy()).unwrap();
        assert!(
            on_text.contains(&format!("\"command\": {want}"))
                || on_text.contains(&format!("\"command\":{want}")),
            "{name}: {on_text}"
        );
        assert!(want.contains(r"\\reflections\\bin"), "{want}: JSON-escaped");
        let handlers = on.found();
        assert_eq!(
            handlers.len(),
            4,
            "{name}: every entry is recognized as ours"
        );
        assert!(handlers
            .iter()
            .all(|f| f.handler["args"] == serde_json::json!([])));
        assert!(
            exec(&on_text).enable(bin).is_empty(),
            "{name}: a second on changes nothing"
        );
        assert_eq!(
            exec(&on_text).status(bin).overall(),
            Overall::Partial,
            "{name}"
        );
        let mut off = exec(&on_text);
        assert_eq!(off.disable_after(Some(&before), bin).len(), 4, "{name}");
        assert_eq!(String::from_utf8(off.render()).unwrap(), text, "{name}");
        let mut off = exec(&on_text);
        off.disable();
        if !on_fills_an_empty_container(&before) {
            assert_eq!(String::from_utf8(off.render()).unwrap(), text, "{name}");
        }
    }
}

#[test]
fn layout_is_kept() {
    for text in [
        "{\n    \"a\": 1\n}",
        "{\"a\":1}\n",
        "{\r\n\t\"a\": [\r\n\t\t1\r\n\t]\r\n}\r\n",
    ] {
        let d = Document::parse(Path::new("/s.json"), Some(text.into())).unwrap();
        assert_eq!(String::from_utf8(d.render()).unwrap(), text);
    }
}
