use std::collections::{HashMap, HashSet};
use std::fs;
use std::io::Write as _;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::SystemTime;

use chrono::Utc;
use serde_json::{json, Value};

use super::data::*;
use super::list::{answering_quote, dir_name, worked_in};
use super::output::prompt_line;
use super::read::PromptReader;
use super::*;
use crate::cursor::{self, Cursor};
use crate::scope::Scope;
use reflect_base::fsutil::LockWait;
use reflect_base::paths::{self, Paths};
use reflect_detect::excerpt::excerpt;
use reflect_detect::model;
use reflect_detect::text::{Reading, Situation};
use reflect_store::signal::{self, Kind, Signal};
use reflect_store::store::Store;
use reflect_transcript::{Event, EventKind};

/// A data dir, a config dir and a project, in a temp dir.
struct World {
    dir: tempfile::TempDir,
    paths: Paths,
    store: Store,
}

impl World {
    fn new() -> World {
        let dir = tempfile::tempdir().unwrap();
        let paths = Paths::new(dir.path().join("config"), dir.path().join("data"));
        let store = Store::new(&paths, LockWait::CLI);
        World { dir, paths, store }
    }

    /// A git repository at `rel`.
    fn repo(&self, rel: &str) -> PathBuf {
        let root = self.dir.path().join(rel);
        fs::create_dir_all(root.join(".git")).unwrap();
        root
    }

    /// A transcript of `session` (turns of prompt and reply), recorded by capture as a session of
    /// `project`.
    fn session(&self, session: &str, project: &Path, turns: &[(&str, &str)]) -> PathBuf {
        let path = self.transcript(session, turns);
        let cursor = Cursor {
            transcript: Some(path.clone()),
            project: Some(project.display().to_string()),
            ..Cursor::default()
        };
        cursor::save(&cursor::path(&self.paths, session), &cursor).unwrap();
        path
    }

    /// A transcript file only (no cursor), under `<config dir>/projects/x/`.
    fn transcript(&self, session: &str, turns: &[(&str, &str)]) -> PathBuf {
        let dir = self.paths.config_dir.join("projects").join("x");
        fs::create_dir_all(&dir).unwrap();
        let path = dir.join(format!("{session}.jsonl"));
        fs::write(&path, transcript_text(session, 0, turns)).unwrap();
        path
    }

    fn request(&self, scope: Option<Scope>) -> Request {
        Request {
            scope,
            session: None,
            current: None,
            cwd: self.dir.path().to_path_buf(),
            since: None,
            transcripts: Vec::new(),
            budget_tokens: DEFAULT_BUDGET_TOKENS,
            model: None,
        }
    }

    fn digest(&self, req: &Request) -> Digest {
        digest(&self.store, req).unwrap()
    }

    /// A signal of `session` pointing at `line` (and `uuid`).
    fn store_signal(&self, session: &str, line: Option<u64>, uuid: Option<&str>) -> String {
        // Gotchas: distinct contents of a learning kind could be read as paraphrases of one.
        let mut s = Signal::new(Kind::Gotcha, format!("stored {session} {line:?} {uuid:?}"));
        s.session_id = Some(session.into());
        s.source.line = line;
        s.source.uuid = uuid.map(str::to_string);
        self.store.append(vec![s]).unwrap().written[0].clone()
    }
}

/// Turns from turn number `first` on: a user line `u<n>` and an assistant line `a<n>` each.
/// Each session's prompts are typed at times of their own (the same day and second for the
/// same turn, a millisecond apart): the same text at the same time is one prompt written twice.
fn transcript_text(session: &str, first: usize, turns: &[(&str, &str)]) -> String {
    let ms = session
        .bytes()
        .fold(0u32, |h, b| h.wrapping_mul(31).wrapping_add(b.into()))
        % 1000;
    let mut out = String::new();
    for (k, (prompt, reply)) in turns.iter().enumerate() {
        let n = first + k;
        let time = format!("2026-11-{:02}T10:00:00.{ms:03}Z", 1 + n % 28);
        let user = serde_json::json!({"type": "user", "isSidechain": false, "sessionId": session,
            "uuid": format!("{session}-u{n}"), "timestamp": time,
            "message": {"role": "user", "content": prompt}});
        let assistant = serde_json::json!({"type": "assistant", "isSidechain": false,
            "uuid": format!("{session}-a{n}"), "timestamp": "2026-11-01T10:00:01Z",
            "message": {"id": format!("m{n}"), "role": "assistant",
                "content": [{"type": "text", "text": reply}]}});
        out.push_str(&format!("{user}\n{assistant}\n"));
    }
    out
}

fn listed(d: &Digest) -> Vec<(String, u64, String)> {
    d.sessions
        .iter()
        .flat_map(|s| {
            s.prompts
                .iter()
                .map(move |p| (s.session.clone(), p.line, p.text.clone()))
        })
        .collect()
}

/// The first session's prompts as `(line, text, typed)`.
fn typed(d: &Digest) -> Vec<(u64, &str, usize)> {
    d.sessions[0]
        .prompts
        .iter()
        .map(|p| (p.line, p.text.as_str(), p.typed()))
        .collect()
}

fn texts(d: &Digest) -> Vec<String> {
    listed(d).into_iter().map(|(_, _, t)| t).collect()
}

#[test]
fn typed_prompts_are_listed_with_what_they_answered_and_the_rest_is_counted() {
    let w = World::new();
    let app = w.repo("app");
    w.session(
        "s1",
        &app,
        &[
            (
                "No, we always use pnpm here, never npm",
                "Switched to pnpm.",
            ),
            ("ok", "Next I will add the route."),
            (
                "the timeout is per request, not per call",
                "I set the timeout per call.\nShall I run the tests?",
            ),
            ("run the tests again please", "Tests pass."),
            ("Run the tests again, please!", "Tests pass."),
            ("continue", "Done."),
            ("stored by uuid only", "x"),
            ("seen again, a recurrence", "x"),
            ("archived long ago", "x"),
        ],
    );
    w.store_signal("s1", Some(1), None);
    w.store_signal("s1", None, Some("s1-u6"));
    // A sighting of an earlier signal, at line 15 of this session.
    let other = w.store_signal("s0", Some(9), None);
    let recur = format!(
        r#"{{"recur":"{other}","timestamp":"2026-11-02T00:00:00Z","session_id":"s1","source":{{"line":15}}}}"#
    );
    let mut f = fs::OpenOptions::new()
        .append(true)
        .open(w.paths.store())
        .unwrap();
    writeln!(f, "{recur}").unwrap();
    let mut archived = Signal::new(Kind::Preference, "archived");
    archived.id = "SIG-20260101-aaaa".into();
    archived.session_id = Some("s1".into());
    archived.source.line = Some(17);
    fs::write(
        w.paths.archive(),
        serde_json::to_string(&archived).unwrap() + "\n",
    )
    .unwrap();

    let d = w.digest(&w.request(Some(Scope::of(&app))));
    let shown = &d.sessions[0].prompts;
    assert_eq!(
        typed(&d),
        [
            (5, "the timeout is per request, not per call", 1),
            (7, "run the tests again please", 2),
        ]
    );
    // The end of the assistant's last line before each prompt.
    assert_eq!(shown[0].answering, "Next I will add the route.");
    assert_eq!(shown[1].answering, "Shall I run the tests?");
    assert_eq!(shown[0].uuid.as_deref(), Some("s1-u2"));
    assert_eq!((d.stored, d.bare, d.repeats, d.left_out), (4, 2, 1, 0));
    assert_eq!((d.sessions_found, d.sessions_read), (1, 1));
    let text = d.text("memory-store");
    assert!(
        text.contains("L5 [after: Next I will add the route.] the timeout is per request"),
        "{text}"
    );
    // Typed again in another turn: its place is a sighting of its own.
    assert!(
        text.contains("L7 (typed 2 times, again at L9) [after: "),
        "{text}"
    );
    assert!(text.contains("memory-store digest --mark s1:18:"), "{text}");
    let jsonl = d.jsonl();
    let first: Value = serde_json::from_str(jsonl.lines().next().unwrap()).unwrap();
    for key in ["session_id", "line", "uuid", "text", "answering"] {
        assert!(!first[key].is_null(), "{key} in {first}");
    }
    assert_eq!(first["line"], 5);
    let second: Value = serde_json::from_str(jsonl.lines().nth(1).unwrap()).unwrap();
    assert_eq!(second["again"], json!([{"session_id": "s1", "line": 9}]));
}

#[test]
fn a_prompt_typed_again_in_other_sessions_names_each_place() {
    let w = World::new();
    let app = w.repo("app");
    let rule = "did you run the linter before committing?";
    w.session("s-old", &app, &[(rule, "No."), ("thanks", "ok")]);
    w.session(
        "s-new",
        &app,
        &[("add a flag", "Added."), (rule, "Not yet."), (rule, "No.")],
    );
    for n in 0..4 {
        w.session(
            &format!("s-more{n}"),
            &app,
            &[("add a flag", "x"), (rule, "y")],
        );
    }
    let d = w.digest(&w.request(Some(Scope::of(&app))));
    let text = d.text("memory-store");
    let line = text.lines().find(|l| l.contains(rule)).unwrap();
    assert!(line.contains("(typed 7 times, again at "), "{line}");
    // Listed once, in the newest session; the others by their whole id, as `append` takes it.
    assert_eq!(text.matches(rule).count(), 1, "{text}");
    let places = line
        .split("again at ")
        .nth(1)
        .unwrap()
        .split(')')
        .next()
        .unwrap();
    assert_eq!(
        places.split(", ").count(),
        4,
        "three places and `…`: {line}"
    );
    assert!(places.ends_with(", …"), "{line}");
    let jsonl = d.jsonl();
    let listed: Value =
        serde_json::from_str(jsonl.lines().find(|l| l.contains(rule)).unwrap()).unwrap();
    let again = listed["again"].as_array().unwrap();
    assert_eq!(again.len(), 6, "{listed}");
    let sessions: HashSet<&str> = again
        .iter()
        .map(|a| a["session_id"].as_str().unwrap())
        .collect();
    assert!(
        sessions.contains("s-old") && sessions.contains("s-new"),
        "{listed}"
    );
    assert!(
        again
            .iter()
            .any(|a| a["session_id"] == "s-old" && a["line"] == 1),
        "{listed}"
    );
}

#[test]
fn the_budget_keeps_the_likeliest_learning_moments_and_counts_the_rest() {
    let w = World::new();
    let app = w.repo("app");
    let correction = "No, that's wrong: don't edit the generated file, change the template instead";
    w.session(
        "s1",
        &app,
        &[
            ("add a search box to the header", "Added it."),
            (correction, "I edited src/generated/api.ts."),
            ("what does the parser do with tabs", "It keeps them."),
        ],
    );
    let mut req = w.request(Some(Scope::of(&app)));
    let all = w.digest(&req);
    assert_eq!(texts(&all).len(), 3);
    let likeliest = all.sessions[0]
        .prompts
        .iter()
        .max_by(|a, b| a.probability.total_cmp(&b.probability))
        .unwrap();
    assert!(likeliest.text.starts_with("No, that's wrong"), "{all:?}");
    // Room for the heading and the likeliest prompt's line only.
    let heading = all.text("m").lines().nth(2).unwrap().chars().count() + 2;
    req.budget_tokens = (heading + prompt_line(likeliest).chars().count()).div_ceil(4);
    let one = w.digest(&req);
    assert_eq!(texts(&one), std::slice::from_ref(&likeliest.text));
    assert_eq!(one.left_out, 2);
    assert!(one.text("m").contains("2 prompt(s) less likely"));
    // Nothing fits: nothing listed, everything counted, nothing marked (nothing was looked at).
    req.budget_tokens = 1;
    let none = w.digest(&req);
    assert!(none.sessions.is_empty());
    assert_eq!((none.left_out, none.marks.len()), (3, 0));
    // What the budget left out stays unread: marking the one listed brings back the other two,
    // each with what it answered, and never the one looked at.
    // Through the saved marks, as /reflect sets them: the listed prompt after the unread one too.
    let mut one = one;
    one.save_marks(&w.paths).unwrap();
    let (saved, file) = marks_named(&w.paths, one.saved_as.as_deref().unwrap()).unwrap();
    assert_eq!(saved, one.marks);
    assert!(saved[0].seen.contains(&3), "{saved:?}");
    assert!(file.is_some());
    assert_eq!(mark_all(&w, &saved).len(), 1);
    req.budget_tokens = 10_000;
    let rest = w.digest(&req);
    assert_eq!(
        texts(&rest),
        [
            "add a search box to the header",
            "what does the parser do with tabs"
        ]
    );
    assert_eq!(
        rest.sessions[0].prompts[1].answering,
        "I edited src/generated/api.ts."
    );
    assert_eq!(mark_all(&w, &rest.marks).len(), 1);
    let after = w.digest(&req);
    assert!(after.sessions.is_empty(), "{after:?}");
    assert!(after.marks.is_empty());
}

#[test]
fn a_marked_session_lists_only_what_came_after_the_mark() {
    let w = World::new();
    let app = w.repo("app");
    let path = w.session("s1", &app, &[("first look at the parser", "Done.")]);
    let req = w.request(Some(Scope::of(&app)));
    let d = w.digest(&req);
    assert_eq!(texts(&d), ["first look at the parser"]);
    let first = d.marks[0].clone();
    assert_eq!(
        (first.line, first.turn),
        (2, 1),
        "read to line 2, in the turn of line 1"
    );
    // The session goes on between the digest and the mark: the mark covers what was read.
    let later = transcript_text("s1", 1, &[("then fix the lexer", "Done.")]);
    fs::OpenOptions::new()
        .append(true)
        .open(&path)
        .unwrap()
        .write_all(later.as_bytes())
        .unwrap();
    assert_eq!(
        mark_all(&w, std::slice::from_ref(&first)),
        [Marked::To(2)],
        "marked up to where it was read"
    );
    let d = w.digest(&req);
    assert_eq!(texts(&d), ["then fix the lexer"]);
    assert_eq!(
        d.sessions[0].prompts[0].answering, "Done.",
        "read with what it answered, before the mark"
    );
    let next = d.marks[0].clone();
    assert_eq!(mark_all(&w, std::slice::from_ref(&next)), [Marked::To(4)]);
    assert!(w.digest(&req).sessions.is_empty());
    assert!(w.digest(&req).marks.is_empty(), "nothing new was read");
    // An older mark (a /reflect that read less) never moves the mark back.
    assert_eq!(mark_all(&w, &[first]), [Marked::Kept(4)]);
    // The mark is kept in the session's cursor, beside capture's position.
    let saved = cursor::load(&cursor::path(&w.paths, "s1"))
        .unwrap()
        .unwrap();
    let reviewed = saved.reviewed.unwrap();
    assert_eq!((reviewed.through, reviewed.line), (4, 2));
    assert_eq!(saved.transcript.as_deref(), Some(path.as_path()));
    // A mark past the end of the transcript is refused, and changes nothing.
    let bad = Mark {
        line: 40,
        ..next.clone()
    };
    let e = mark(&w.paths, &[bad], w.dir.path()).unwrap_err();
    assert!(
        e.is_usage() && e.to_string().contains("does not fit"),
        "{e}"
    );
    // A replaced transcript (another first line) is read from the top again.
    fs::write(
        &path,
        transcript_text("s1", 7, &[("a new file", "x"), ("and more", "y")]),
    )
    .unwrap();
    assert_eq!(texts(&w.digest(&req)), ["a new file", "and more"]);
}

fn mark_all(w: &World, marks: &[Mark]) -> Vec<Marked> {
    mark(&w.paths, marks, w.dir.path()).unwrap()
}

#[test]
fn sessions_are_found_through_capture_by_project_with_the_current_one() {
    let w = World::new();
    let app = w.repo("app");
    let lib = w.repo("app/vendor/lib");
    let other = w.repo("other");
    w.session("in-root", &app, &[("prompt in the root", "x")]);
    w.session(
        "in-subdir",
        &app.join("src"),
        &[("prompt in a subdir", "x")],
    );
    w.session("in-lib", &lib, &[("prompt in the submodule", "x")]);
    w.session("in-other", &other, &[("prompt in another repo", "x")]);
    // The session /reflect runs in: no cursor yet, its transcript under <config>/projects/.
    w.transcript("live", &[("prompt in the live session", "x")]);

    let in_app = |mut req: Request| {
        req.scope = Some(Scope::of(&app.join("src")));
        let mut t = texts(&w.digest(&req));
        t.sort();
        t
    };
    assert_eq!(
        in_app(w.request(None)),
        ["prompt in a subdir", "prompt in the root"]
    );
    let mut req = w.request(None);
    req.current = Some("live".into());
    req.cwd = app.clone();
    assert_eq!(
        in_app(req),
        [
            "prompt in a subdir",
            "prompt in the live session",
            "prompt in the root"
        ]
    );
    let mut all = texts(&w.digest(&w.request(None)));
    all.sort();
    assert_eq!(all.len(), 4, "{all:?}");
    let mut one = w.request(Some(Scope::of(&app)));
    one.session = Some("in-other".into());
    assert_eq!(texts(&w.digest(&one)), ["prompt in another repo"]);
    let mut live = w.request(None);
    live.session = Some("live".into());
    assert_eq!(texts(&w.digest(&live)), ["prompt in the live session"]);
    // Before Claude Code writes the live session's transcript, there is nothing to say about it;
    // a session asked for by name that has none is named.
    let mut unwritten = w.request(Some(Scope::of(&app)));
    unwritten.current = Some("not-yet".into());
    let d = w.digest(&unwritten);
    assert!(d.gone.is_empty() && d.failed.is_empty(), "{d:?}");
    unwritten.current = None;
    unwritten.session = Some("not-yet".into());
    let d = w.digest(&unwritten);
    assert_eq!(d.failed.len(), 1, "{d:?}");
    assert!(d
        .text("m")
        .contains("Not read: session not-yet: no transcript found"));
    // An opted-out project is never read.
    fs::create_dir_all(other.join(".claude")).unwrap();
    fs::write(other.join(".claude/reflect.off"), "").unwrap();
    assert_eq!(texts(&w.digest(&one)), Vec::<String>::new());
}

#[test]
fn the_mark_line_says_it_marks_sessions_that_list_nothing() {
    let w = World::new();
    let app = w.repo("app");
    w.session(
        "talk",
        &app,
        &[("we always squash before merging here", "ok")],
    );
    let req = w.request(Some(Scope::of(&app)));
    let text = w.digest(&req).text("m");
    assert!(text.contains("\nOnce judged, mark them read:\n"), "{text}");
    // A session whose only prompt is stored already is read, marked, and lists nothing.
    w.session("quiet", &app, &[("use pnpm, not npm", "ok")]);
    w.store_signal("quiet", Some(1), None);
    let d = w.digest(&req);
    assert_eq!(d.sessions.len(), 1, "{d:?}");
    assert_eq!(d.marks.len(), 2, "{d:?}");
    let text = d.text("m");
    assert!(
        text.contains("mark them read (with the 1 other session(s) read, which list nothing):"),
        "{text}"
    );
}

#[test]
fn a_gone_transcript_is_counted_and_a_torn_last_line_left_for_later() {
    let w = World::new();
    let app = w.repo("app");
    let gone = w.session("gone", &app, &[("never seen", "x")]);
    fs::remove_file(gone).unwrap();
    let torn = w.session("torn", &app, &[("complete prompt", "x")]);
    let whole = fs::metadata(&torn).unwrap().len();
    let mut f = fs::OpenOptions::new().append(true).open(&torn).unwrap();
    f.write_all(br#"{"type":"user","uuid":"u9","message":{"role":"user","content":"half wri"#)
        .unwrap();
    let d = w.digest(&w.request(Some(Scope::of(&app))));
    assert_eq!(texts(&d), ["complete prompt"]);
    assert_eq!(d.gone, ["gone"]);
    let lines_before_torn = fs::read(&torn).unwrap()[..whole as usize]
        .iter()
        .filter(|&&b| b == b'\n')
        .count() as u64;
    assert_eq!(
        d.marks[0].line, lines_before_torn,
        "the torn line stays unread"
    );
    let text = d.text("memory-store");
    assert!(
        text.contains("1 session(s) whose transcript is gone"),
        "{text}"
    );
    assert!(text.contains("gone."), "{text}");
}

#[test]
fn an_empty_project_says_so() {
    let w = World::new();
    let app = w.repo("app");
    let d = w.digest(&w.request(Some(Scope::of(&app))));
    assert!(d.sessions.is_empty() && d.marks.is_empty() && d.gone.is_empty());
    assert!(d.text("m").starts_with("No session to look at"));
    assert_eq!(d.jsonl(), "");
}

#[test]
fn since_skips_older_prompts_and_sessions() {
    let w = World::new();
    let app = w.repo("app");
    // Prompt n is dated 2026-11-(n+1).
    w.session("s1", &app, &[("old one", "x"), ("newer one", "y")]);
    let mut req = w.request(Some(Scope::of(&app)));
    req.since = Some(signal::parse_time("2026-11-02").unwrap());
    assert_eq!(texts(&w.digest(&req)), ["newer one"]);
    // A transcript untouched since then is not read at all.
    req.since = Some(Utc::now() + chrono::Duration::days(1));
    let d = w.digest(&req);
    assert_eq!((d.sessions_read, d.marks.len()), (0, 0));
}

#[test]
fn secrets_are_redacted_in_prompts_and_in_what_they_answered() {
    let w = World::new();
    let app = w.repo("app");
    let key = ["ghp_", "a1B2c3D4e5F6g7H8i9J0k1L2m3N4o5P6q7R8"].concat();
    let prompt = format!("no, use the token {key} from the vault instead");
    let reply = format!("I exported GH_TOKEN={key} for you.");
    w.session("s1", &app, &[(&prompt, &reply)]);
    w.session("s2", &app, &[("hello", &reply), ("why that token?", "x")]);
    let d = w.digest(&w.request(Some(Scope::of(&app))));
    let all = format!("{}{}", d.text("m"), d.jsonl());
    assert!(!all.contains(&key[4..]), "{all}");
    assert!(all.contains("[REDACTED:"), "{all}");
}

#[test]
fn a_short_prompt_is_listed_after_what_it_answered_a_long_one_alone() {
    let w = World::new();
    let app = w.repo("app");
    let long = format!(
        "{} and keep the old tables.",
        "Migrate the users table ".repeat(4)
    );
    w.session(
        "s1",
        &app,
        &[
            ("set up the schema", "Shall I drop the old tables first?"),
            ("no, keep them", "Kept them. Next I will migrate the users."),
            (&long, "ok"),
        ],
    );
    let text = w.digest(&w.request(Some(Scope::of(&app)))).text("m");
    assert!(
        text.contains("[after: Shall I drop the old tables first?] no, keep them"),
        "{text}"
    );
    let line = text
        .lines()
        .find(|l| l.contains("Migrate the users"))
        .unwrap();
    assert!(!line.contains("[after:"), "{line}");
}

#[test]
fn what_a_prompt_answered_is_the_end_of_the_assistants_last_line_or_its_tools() {
    let long = format!("{} the very last words.", "word ".repeat(60));
    let q = answering_quote(&long, &[]);
    assert!(
        q.starts_with('…') && q.ends_with("the very last words."),
        "{q}"
    );
    assert!(q.chars().count() <= ANSWERING_CHARS, "{q}");
    assert!(!q[3..].starts_with(' '));

    let mut reader = PromptReader::default();
    let event = |line, kind| Event {
        line,
        uuid: None,
        timestamp: None,
        cwd: None,
        session: None,
        parent: Default::default(),
        kind,
    };
    reader.feed(event(
        1,
        EventKind::AssistantText {
            text: "Let me look.\n\n".into(),
        },
    ));
    reader.feed(event(
        2,
        EventKind::ToolUse {
            id: "t1".into(),
            name: "Edit".into(),
            input: Default::default(),
        },
    ));
    reader.feed(event(
        3,
        EventKind::UserText {
            text: "no, not that file".into(),
        },
    ));
    reader.feed(event(
        4,
        EventKind::UserText {
            text: "and?".into(),
        },
    ));
    assert_eq!(
        reader.prompts[0].answering,
        "Let me look. (then called Edit)"
    );
    assert_eq!(reader.prompts[1].answering, "", "a new turn starts empty");
    assert!(reader.prompts[0].probability > reader.prompts[1].probability);

    // A call the user refused is named so; a refusal of a call not kept names nothing.
    reader.feed(event(
        5,
        EventKind::ToolUse {
            id: "t2".into(),
            name: "Write".into(),
            input: Default::default(),
        },
    ));
    reader.feed(event(
        6,
        EventKind::Rejection {
            tool_use_id: "t2".into(),
            text: String::new(),
        },
    ));
    reader.feed(event(
        7,
        EventKind::UserText {
            text: "put it in docs/".into(),
        },
    ));
    assert_eq!(reader.prompts[2].answering, "(then called Write, refused)");
    reader.feed(event(
        8,
        EventKind::Rejection {
            tool_use_id: "t9".into(),
            text: String::new(),
        },
    ));
    reader.feed(event(
        9,
        EventKind::UserText {
            text: "fine".into(),
        },
    ));
    assert_eq!(reader.prompts[3].answering, "");

    // A call the user stopped while it ran is named so, beside one refused and one that ran.
    let call = |line, id: &str, name: &str| {
        event(
            line,
            EventKind::ToolUse {
                id: id.into(),
                name: name.into(),
                input: Default::default(),
            },
        )
    };
    let result = |line, id: &str, text: &str| {
        event(
            line,
            EventKind::ToolResult {
                tool_use_id: id.into(),
                is_error: true,
                text: text.into(),
            },
        )
    };
    reader.feed(call(10, "t3", "Bash"));
    reader.feed(result(
        11,
        "t3",
        "[Request interrupted by user for tool use]\nwaiting",
    ));
    reader.feed(event(
        12,
        EventKind::UserText {
            text: "it waits for input".into(),
        },
    ));
    assert_eq!(reader.prompts[4].answering, "(then called Bash, stopped)");
    reader.feed(call(13, "t4", "Read"));
    reader.feed(result(14, "t4", "Exit code 1"));
    reader.feed(call(15, "t5", "Edit"));
    reader.feed(event(
        16,
        EventKind::Rejection {
            tool_use_id: "t5".into(),
            text: String::new(),
        },
    ));
    reader.feed(call(17, "t6", "Bash"));
    reader.feed(result(
        18,
        "t6",
        "[Request interrupted by user for tool use]",
    ));
    reader.feed(event(
        19,
        EventKind::UserText {
            text: "stop editing".into(),
        },
    ));
    assert_eq!(
        reader.prompts[5].answering,
        "(then called Read, Edit, Bash; Edit refused; Bash stopped)"
    );
}

#[test]
fn marks_read_back_as_printed() {
    let m: Mark = "3f9394bc-a388:12:7".parse().unwrap();
    assert_eq!(
        (m.session.as_str(), m.line, m.turn),
        ("3f9394bc-a388", 12, 7)
    );
    assert_eq!(m.to_string(), "3f9394bc-a388:12:7");
    let odd: Mark = "a:b:1:2".parse().unwrap();
    assert_eq!(odd.session, "a:b");
    for bad in ["", "s", "s:1", ":1:2", "s:x:2", "s:1:-2", "s:1:0", "s:1:3"] {
        assert!(bad.parse::<Mark>().unwrap_err().is_usage(), "{bad}");
    }
}

#[test]
fn regression_a_prompt_on_the_last_line_read_is_not_listed_again() {
    let w = World::new();
    let app = w.repo("app");
    let path = w.session("s1", &app, &[("earlier", "Done.")]);
    let prompt = serde_json::json!({"type": "user", "uuid": "last",
        "message": {"role": "user", "content": "the prompt /reflect ran in"}});
    let mut f = fs::OpenOptions::new().append(true).open(&path).unwrap();
    writeln!(f, "{prompt}").unwrap();
    let req = w.request(Some(Scope::of(&app)));
    let d = w.digest(&req);
    assert_eq!(texts(&d), ["earlier", "the prompt /reflect ran in"]);
    assert_eq!((d.marks[0].line, d.marks[0].turn), (3, 3));
    mark_all(&w, &d.marks);
    let reply = serde_json::json!({"type": "assistant", "uuid": "r",
        "message": {"id": "m9", "role": "assistant", "content": [{"type": "text", "text": "Reviewed."}]}});
    writeln!(
        f,
        "{reply}\n{}",
        prompt
            .to_string()
            .replace("\"last\"", "\"next\"")
            .replace("/reflect ran in", "after it")
    )
    .unwrap();
    let d = w.digest(&req);
    assert_eq!(texts(&d), ["the prompt after it"]);
    assert_eq!(d.sessions[0].prompts[0].answering, "Reviewed.");
}

/// A user entry of a transcript, with `extra` fields beside `message` (`isMeta`, …).
fn user_entry(uuid: &str, content: Value, extra: Value) -> String {
    let mut entry = json!({"type": "user", "isSidechain": false, "uuid": uuid,
        "timestamp": "2026-11-03T10:00:00Z", "message": {"role": "user", "content": content}});
    if let (Some(entry), Some(extra)) = (entry.as_object_mut(), extra.as_object()) {
        entry.extend(extra.clone());
    }
    entry.to_string()
}

#[test]
fn what_claude_code_writes_as_a_user_message_is_not_listed() {
    let caveat = "Caveat: The messages below were generated by the user while running local commands. DO NOT respond to these messages or otherwise consider them in your response unless the user explicitly asks you to.";
    let kinds: Vec<(&str, Vec<String>)> = vec![
        (
            "a SessionStart hook's output",
            vec![user_entry(
                "n1",
                json!("<session-start-hook>[sync] pulling the shared config\n[sync] done</session-start-hook>"),
                json!({}),
            )],
        ),
        (
            "an unknown skill, after the local-command caveat",
            vec![
                user_entry("n0", json!(caveat), json!({"isMeta": true})),
                user_entry("n1", json!("Unknown skill: ship-it"), json!({})),
            ],
        ),
        (
            "an unknown slash command",
            vec![user_entry(
                "n1",
                json!("Unknown slash command: team:lint"),
                json!({}),
            )],
        ),
        (
            "a local command's output",
            vec![user_entry(
                "n1",
                json!("<local-command-stdout>Set model to a faster one</local-command-stdout>"),
                json!({}),
            )],
        ),
        (
            "a slash command's wrapper",
            vec![user_entry(
                "n1",
                json!("<command-name>/model</command-name>\n            <command-message>model</command-message>\n            <command-args></command-args>"),
                json!({}),
            )],
        ),
        (
            "the caveat, not marked meta",
            vec![user_entry("n1", json!(caveat), json!({}))],
        ),
        (
            "a meta message (a skill's body)",
            vec![user_entry(
                "n1",
                json!([{"type": "text", "text": "Base directory for this skill: /opt/skills/tidy\n\n# Tidy\nAlways sort the imports."}]),
                json!({"isMeta": true}),
            )],
        ),
        (
            "a system reminder alone",
            vec![user_entry(
                "n1",
                json!([{"type": "text", "text": "<system-reminder>\nThe date is now the 4th.\n</system-reminder>"}]),
                json!({}),
            )],
        ),
        (
            "an interrupt marker",
            vec![user_entry(
                "n1",
                json!([{"type": "text", "text": "[Request interrupted by user]"}]),
                json!({}),
            )],
        ),
        (
            "a tool result and its interrupt note",
            vec![user_entry(
                "n1",
                json!([{"type": "tool_result", "tool_use_id": "t1", "content": "never mind this output", "is_error": true},
                       {"type": "text", "text": "[Request interrupted by user for tool use]"}]),
                json!({"toolUseResult": "Error: interrupted"}),
            )],
        ),
        (
            "a pasted image with no words",
            vec![user_entry(
                "n1",
                json!([{"type": "text", "text": "[Image #1]"},
                       {"type": "image", "source": {"type": "base64", "media_type": "image/png", "data": "iVBORw0K"}}]),
                json!({}),
            )],
        ),
        (
            "a sub-agent's prompt",
            vec![user_entry(
                "n1",
                json!("Explore the repository and list every config file."),
                json!({"isSidechain": true}),
            )],
        ),
    ];
    for (kind, entries) in kinds {
        let w = World::new();
        let mut text = transcript_text("s1", 0, &[("please add the export button", "Added.")]);
        for e in entries {
            text.push_str(&e);
            text.push('\n');
        }
        text.push_str(&transcript_text(
            "s1",
            1,
            &[("now wire it to the API", "Wired.")],
        ));
        let path = w.dir.path().join("s1.jsonl");
        fs::write(&path, text).unwrap();
        let mut req = w.request(None);
        req.transcripts = vec![path];
        let d = w.digest(&req);
        assert_eq!(
            texts(&d),
            ["please add the export button", "now wire it to the API"],
            "{kind}"
        );
        // What the next prompt answered is still the assistant's last words.
        assert_eq!(d.sessions[0].prompts[1].answering, "Added.", "{kind}");
    }
}

#[test]
fn sessions_are_dated_and_ordered_by_their_prompts_not_their_files() {
    let w = World::new();
    let app = w.repo("app");
    // Captured (copied, imported) in the opposite order to when they were typed: the file of the
    // older session is the newer one.
    let dated = |session: &str, day: u32| {
        let (first, second) = (
            format!("read {session}.md"),
            format!("use tabs in {session}"),
        );
        transcript_text(session, 0, &[(&first, "ok"), (&second, "ok")])
            .replace("2026-11-01T10:00:00", &format!("2026-03-{day:02}T08:00:00"))
            .replace("2026-11-02T10:00:00", &format!("2026-03-{day:02}T09:30:00"))
    };
    let now = SystemTime::now();
    for (session, day, age_hours) in [("early", 2, 0), ("late", 20, 5)] {
        let path = w.session(session, &app, &[]);
        fs::write(&path, dated(session, day)).unwrap();
        let age = std::time::Duration::from_secs(3600 * age_hours);
        fs::File::options()
            .write(true)
            .open(&path)
            .unwrap()
            .set_modified(now - age)
            .unwrap();
    }
    let d = w.digest(&w.request(Some(Scope::of(&app))));
    let order: Vec<(&str, Option<&str>)> = d
        .sessions
        .iter()
        .map(|s| (s.session.as_str(), s.last_active.as_deref()))
        .collect();
    assert_eq!(
        order,
        [
            ("late", Some("2026-03-20 09:30")),
            ("early", Some("2026-03-02 09:30"))
        ]
    );
    let text = d.text("m");
    assert!(text.contains("## session late · "), "{text}");
    assert!(
        text.find("2026-03-20 09:30") < text.find("2026-03-02 09:30"),
        "{text}"
    );
    // Without timestamps, the file's time stands in.
    let bare = dated("bare", 1).replace("\"timestamp\":", "\"ts\":");
    let path = w.session("bare", &app, &[]);
    fs::write(&path, bare).unwrap();
    let d = w.digest(&w.request(Some(Scope::of(&app))));
    assert_eq!(d.sessions[0].session, "bare");
    let today = Utc::now().format("%Y-%m-%d").to_string();
    assert!(
        d.sessions[0]
            .last_active
            .as_deref()
            .is_some_and(|t| t.starts_with(&today)),
        "{:?}",
        d.sessions[0].last_active
    );
}

#[test]
fn a_pasted_trace_gives_way_to_the_users_sentence_and_a_bare_paste_is_marked() {
    let w = World::new();
    let app = w.repo("app");
    let mut trace = String::from("ReferenceError: config is not defined\n");
    for k in 0..15 {
        trace.push_str(&format!(
            "    at load (/home/dev/site/src/boot{k}.js:{}:5)\n",
            10 + k
        ));
    }
    let asked = format!("{trace}\nWe never read config from the global scope, import it.");
    w.session("s1", &app, &[(&asked, "Fixed."), (&trace, "Looking.")]);
    let d = w.digest(&w.request(Some(Scope::of(&app))));
    let shown = &d.sessions[0].prompts;
    assert_eq!(shown.len(), 2, "{shown:?}");
    assert_eq!(
        (shown[0].text.as_str(), shown[0].pasted),
        (
            "…We never read config from the global scope, import it.",
            // A line of the user's below a long trace: theirs is shown, the paste marked.
            true
        )
    );
    assert!(shown[1].pasted, "{:?}", shown[1]);
    assert!(
        shown[1].text.starts_with("ReferenceError"),
        "{:?}",
        shown[1]
    );
    let text = d.text("m");
    assert!(text.contains("L3 (pasted) ReferenceError"), "{text}");
    let last: Value = serde_json::from_str(d.jsonl().lines().nth(1).unwrap()).unwrap();
    assert_eq!(last["pasted"], true);
}

#[test]
fn the_assistants_answer_quoted_back_gives_way_to_the_users_words() {
    let w = World::new();
    let app = w.repo("app");
    let answer = "Here is the plan for the release.\n\n**Rules I will follow:**\n- Always run the database migrations before you deploy, never after.\n- From now on, remember to use pnpm instead of npm in this repo.\n- Tag the release only after the smoke tests pass on staging.\n\nShall I start?";
    let quoted = "  Rules I will follow:\n  - Always run the database migrations before you deploy, never\n  after.\n  - From now on, remember to use pnpm instead of npm in this repo.\n  - Tag the release only after the smoke tests pass on staging.";
    let asked = format!("is this plan complete, or did you miss a step?\n\n{quoted}");
    let again = format!("and now?\n\n{quoted}");
    w.session(
        "s1",
        &app,
        &[
            ("plan the release", answer),
            (&asked, "It misses the changelog."),
            // Quoted after another answer, the same lines read as the user's.
            (&again, "Yes."),
        ],
    );
    let mut req = w.request(Some(Scope::of(&app)));
    req.budget_tokens = 100_000;
    let shown = &w.digest(&req).sessions[0].prompts;
    assert_eq!(
        shown[1].text, "is this plan complete, or did you miss a step?…",
        "{shown:?}"
    );
    assert!(shown[2].text.starts_with('…'), "{shown:?}");
}

/// A transcript of `session` recorded as a session of `project`, each turn's entries in its
/// directory (their `cwd`).
fn session_in(w: &World, session: &str, project: &Path, turns: &[(&str, &Path)]) {
    let mut text = String::new();
    for (n, (prompt, cwd)) in turns.iter().enumerate() {
        let cwd = cwd.display().to_string();
        let user = serde_json::json!({"type": "user", "sessionId": session, "cwd": cwd,
            "uuid": format!("{session}-u{n}"), "timestamp": "2026-11-01T10:00:00Z",
            "message": {"role": "user", "content": prompt}});
        let assistant = serde_json::json!({"type": "assistant", "cwd": cwd,
            "uuid": format!("{session}-a{n}"), "timestamp": "2026-11-01T10:00:01Z",
            "message": {"id": format!("m{n}"), "role": "assistant",
                "content": [{"type": "text", "text": "Done."}]}});
        text.push_str(&format!("{user}\n{assistant}\n"));
    }
    let path = w.transcript(session, &[]);
    fs::write(&path, text).unwrap();
    let cursor = Cursor {
        transcript: Some(path),
        project: Some(project.display().to_string()),
        ..Cursor::default()
    };
    cursor::save(&cursor::path(&w.paths, session), &cursor).unwrap();
}

#[test]
fn a_heading_says_where_the_session_worked_besides_its_project_dir() {
    let w = World::new();
    let home = w.repo("home");
    let api = home.join("repos").join("api"); // a repository of its own below the project
    fs::create_dir_all(api.join(".git")).unwrap();
    let outside = w.dir.path().join("elsewhere");
    session_in(
        &w,
        "moved",
        &home,
        &[
            ("Never push to main directly, open a branch", &home),
            ("The tests here run with make check, not cargo", &api),
            ("Keep the changelog in the same commit", &api),
            ("This folder holds generated files, do not edit", &outside),
        ],
    );
    session_in(
        &w,
        "stayed",
        &home,
        &[("Always answer in English please", &home)],
    );
    // A session begun in a directory below the root is named by it; the root goes unsaid.
    let docs = home.join("docs");
    fs::create_dir_all(&docs).unwrap();
    session_in(
        &w,
        "below",
        &docs,
        &[("Docs are in British English", &docs)],
    );
    let d = w.digest(&w.request(Some(Scope::of(&home))));
    let text = d.text("m");
    let heading = |sid: &str| {
        text.lines()
            .find(|l| l.starts_with(&format!("## session {sid} ")))
            .unwrap_or_else(|| panic!("no heading of {sid}: {text}"))
            .to_string()
    };
    let sep = std::path::MAIN_SEPARATOR;
    let expected = format!(
        "## session moved · worked in repos{sep}api, {} · ",
        dir_name(&outside, Some(&home), paths::home().as_deref())
    );
    assert!(heading("moved").starts_with(&expected), "{text}");
    assert!(!heading("stayed").contains("worked in"), "{text}");
    let below = format!("## session below · {} · ", docs.display());
    assert!(heading("below").starts_with(&below), "{text}");
    assert!(!text.contains(&format!("{} ·", home.display())), "{text}");
    let by_session: HashMap<String, Value> = d
        .jsonl()
        .lines()
        .map(|l| serde_json::from_str::<Value>(l).unwrap())
        .map(|v| (v["session_id"].as_str().unwrap().to_string(), v))
        .collect();
    assert!(
        by_session["moved"]["worked_in"]
            .as_str()
            .is_some_and(|w| w.starts_with(&format!("repos{sep}api, "))),
        "{by_session:?}"
    );
    assert_eq!(by_session["stayed"]["worked_in"], Value::Null);
}

#[test]
fn where_a_session_worked_is_named_by_most_entries_and_shortly() {
    let dirs = |list: &[(&str, usize)]| -> HashMap<Arc<str>, usize> {
        list.iter().map(|(d, n)| (Arc::from(*d), *n)).collect()
    };
    let home = Path::new("/home/me");
    let sep = std::path::MAIN_SEPARATOR;
    let at =
        |list: &[(&str, usize)], project: &str| worked_in(&dirs(list), Some(project), Some(home));
    // Below the project relative to it, else under the home as `~`, else whole; most first.
    assert_eq!(
        at(
            &[
                ("/home/me", 5),
                ("/home/me/a/b", 2),
                ("/home/me/x", 9),
                ("/opt/y", 1)
            ],
            "/home/me/a"
        )
        .as_deref(),
        Some(format!("~{sep}x, ~ +2 more").as_str())
    );
    assert_eq!(
        at(
            &[("/home/me/w", 1), ("/home/me/w/api", 3), ("/srv", 1)],
            "/home/me/w"
        )
        .as_deref(),
        Some("api, /srv")
    );
    assert_eq!(at(&[("/home/me/w", 7)], "/home/me/w"), None);
    assert_eq!(at(&[], "/home/me/w"), None);
    // A path can hold anything: controls and newlines are shown escaped, secrets redacted.
    let named = at(
        &[
            ("/home/me/w/a\nb\u{1b}]0;x\u{7}", 2),
            ("/home/me/w/ghp_0123456789abcdefghijklmnopqrstuvwxyzAB", 1),
        ],
        "/home/me/w",
    )
    .unwrap();
    assert!(!named.chars().any(char::is_control), "{named:?}");
    assert!(named.starts_with("a\\nb"), "{named:?}");
    assert!(!named.contains("ghp_0123456789"), "{named:?}");
}

#[test]
fn a_directory_on_this_machine_is_named_by_its_repository() {
    let tmp = tempfile::tempdir().unwrap();
    let home = tmp.path();
    let mk = |rel: &str| {
        let d = home.join(rel);
        std::fs::create_dir_all(&d).unwrap();
        d.to_str().unwrap().to_string()
    };
    let project = mk("w");
    mk("w/.git");
    let client = mk("w/client/src"); // a folder of the project's own repository
    let api = mk("w/api/handlers"); // a repository below it
    mk("w/api/.git");
    let dots = mk("dots/stow/nvim/lua"); // a repository outside it, a worktree's `.git` file
    std::fs::write(home.join("dots/.git"), "gitdir: /elsewhere\n").unwrap();
    let plain = mk("scratch"); // in no repository
    let dirs: HashMap<Arc<str>, usize> = [(&project, 9), (&client, 5), (&api, 3), (&dots, 2)]
        .into_iter()
        .map(|(d, n)| (Arc::from(d.as_str()), n))
        .collect();
    let sep = std::path::MAIN_SEPARATOR;
    assert_eq!(
        worked_in(&dirs, Some(&project), Some(home)).as_deref(),
        Some(format!("api, ~{sep}dots").as_str())
    );
    let dirs: HashMap<Arc<str>, usize> = [(&project, 1), (&client, 4)]
        .into_iter()
        .map(|(d, n)| (Arc::from(d.as_str()), n))
        .collect();
    assert_eq!(worked_in(&dirs, Some(&project), Some(home)), None);
    // Outside the home folder and the project (a network drive may hang a lookup): as it was.
    let far = tempfile::tempdir().unwrap();
    std::fs::create_dir_all(far.path().join(".git")).unwrap();
    let deep = far.path().join("src").join("lib");
    std::fs::create_dir_all(&deep).unwrap();
    let deep = deep.to_str().unwrap().to_string();
    let dirs: HashMap<Arc<str>, usize> = [(Arc::from(deep.as_str()), 1)].into();
    assert_eq!(
        worked_in(&dirs, Some(&project), Some(home)).as_deref(),
        Some(deep.as_str())
    );
    // Not a path of this system: as it was, never read from the current directory (a unit
    // test runs in its crate's, two levels below a checkout's `.git`).
    let relative = ["..", "..", "hooks-src"].join(&sep.to_string());
    let dirs: HashMap<Arc<str>, usize> = [(Arc::from(relative.as_str()), 1)].into();
    assert_eq!(
        worked_in(&dirs, Some(&project), Some(home)).as_deref(),
        Some(relative.as_str())
    );
    // Not on this machine, or in no repository: the directory as it was.
    let gone = format!("{}{sep}gone{sep}deep", home.display());
    let dirs: HashMap<Arc<str>, usize> = [(&plain, 2), (&gone, 1)]
        .into_iter()
        .map(|(d, n)| (Arc::from(d.as_str()), n))
        .collect();
    assert_eq!(
        worked_in(&dirs, Some(&project), Some(home)).as_deref(),
        Some(format!("~{sep}scratch, ~{sep}gone{sep}deep").as_str())
    );
}

/// An assistant entry of a transcript saying `text`.
fn assistant_entry(uuid: &str, text: &str) -> String {
    json!({"type": "assistant", "isSidechain": false, "uuid": uuid,
        "timestamp": "2026-11-03T10:00:01Z",
        "message": {"id": uuid, "role": "assistant", "content": [{"type": "text", "text": text}]}})
    .to_string()
}

#[test]
fn a_prompt_sent_again_after_the_same_answer_is_one_and_after_another_a_repeat() {
    let w = World::new();
    let app = w.repo("app");
    let path = w.session("s1", &app, &[]);
    let said = |u: &str, t: &str| user_entry(u, json!(t), json!({}));
    let lines = [
        said("u1", "start on the parser module"),
        assistant_entry("a1", "Parser started."),
        said("u2", "the tests live in tests/, not in src/"),
        assistant_entry("a2", "Moved them."),
        said("u3", "now run the whole test suite"),
        assistant_entry("a3", "API Error: Connection error."),
        // Sent again after the error: it answers what the first one answered.
        said("u4", "now run the whole test suite"),
        assistant_entry("a4", "Tests pass."),
        // The conversation written again under new uuids, as a resume does.
        assistant_entry("a5", "Parser started."),
        said("u6", "the tests live in tests/, not in src/"),
        assistant_entry("a6", "Moved them."),
        said("u7", "now run the whole test suite"),
        assistant_entry("a7", "Tests pass."),
        // Typed again after another answer: a real repeat.
        said("u8", "The tests live in tests/, not in src/!"),
    ];
    fs::write(&path, lines.join("\n") + "\n").unwrap();
    let d = w.digest(&w.request(Some(Scope::of(&app))));
    assert_eq!(
        typed(&d),
        [
            (1, "start on the parser module", 1),
            (3, "the tests live in tests/, not in src/", 2),
            (5, "now run the whole test suite", 1),
        ]
    );
    assert_eq!(d.repeats, 1);
    // Counted where it is listed, and said so: no prompt is hidden as a repeat.
    assert!(
        d.text("m")
            .contains("1 typed again (in their first line's `typed N times`)"),
        "{}",
        d.text("m")
    );
    // The copies are looked at with the rest: the mark goes to the end.
    assert_eq!(d.marks[0].line, 14);
}

#[test]
fn a_resume_written_again_under_new_uuids_in_another_session_is_one_prompt() {
    let w = World::new();
    let app = w.repo("app");
    let said = |u: &str, t: &str, at: &str| user_entry(u, json!(t), json!({ "timestamp": at }));
    let rule = "the tests live in tests/, not in src/";
    let old = [
        said("u1", rule, "2026-11-03T10:00:00.120Z"),
        assistant_entry("a1", "Moved them."),
        said("u2", "now run the suite", "2026-11-03T10:05:00.300Z"),
        assistant_entry("a2", "Tests pass."),
    ];
    // The resumed session's file: the same prompts at the same times, under new uuids and
    // another session's name; then the same rule typed again, a real second time.
    let new = [
        said("r1", rule, "2026-11-03T10:00:00.120Z"),
        assistant_entry("b1", "Moved them."),
        said("r2", "now run the suite", "2026-11-03T10:05:00.300Z"),
        assistant_entry("b2", "Tests pass."),
        said(
            "r3",
            "add a CLI flag for verbose output",
            "2026-11-04T09:00:00.000Z",
        ),
        assistant_entry("b3", "Added."),
        said("r4", rule, "2026-11-04T09:10:00.000Z"),
    ];
    for (session, lines) in [("s-old", &old[..]), ("s-new", &new[..])] {
        let path = w.session(session, &app, &[]);
        fs::write(&path, lines.join("\n") + "\n").unwrap();
    }
    let d = w.digest(&w.request(Some(Scope::of(&app))));
    let text = d.text("m");
    assert_eq!(text.matches("now run the suite").count(), 1, "{text}");
    let line = text.lines().find(|l| l.contains(rule)).unwrap();
    assert!(line.contains("(typed 2 times, again at L7)"), "{line}");
}

#[test]
fn a_resumed_sessions_copies_are_listed_in_the_session_they_were_typed_in() {
    let w = World::new();
    let app = w.repo("app");
    // `at`: the day and time in November 2026, "03T10:00".
    let said = |u: &str, t: &str, at: &str, session: &str| {
        let timestamp = format!("2026-11-{at}:00.120Z");
        user_entry(
            u,
            json!(t),
            json!({ "timestamp": timestamp, "sessionId": session }),
        )
    };
    let (rule, run) = ("the tests live in tests/, not in src/", "now run the suite");
    let old = [
        said("u1", rule, "03T10:00", "s-old"),
        assistant_entry("a1", "Moved them."),
        said("u2", run, "03T10:05", "s-old"),
        assistant_entry("a2", "Tests pass."),
    ];
    // Claude Code's resume: a new file that begins with the conversation it resumed, each
    // entry under the old session's name (under its uuid, or written again under a new one);
    // then the new session's own prompts, the rule among them typed again.
    let new = [
        said("u1", rule, "03T10:00", "s-old"),
        assistant_entry("b1", "Moved them."),
        said("r2", run, "03T10:05", "s-old"),
        assistant_entry("b2", "Tests pass."),
        said(
            "r3",
            "add a CLI flag for verbose output",
            "04T09:00",
            "s-new",
        ),
        assistant_entry("b3", "Added."),
        said("r4", rule, "04T09:10", "s-new"),
        assistant_entry("b4", "Moved the new one."),
        // Under the old name but in no other file (Claude Code 2.0 wrote some so): its own.
        said("r5", "keep the flag out of the config", "04T09:20", "s-old"),
    ];
    // A file whose entries all name the old session, none a copy (Claude Code 2.0 wrote a
    // resume so): its prompts are its own, in the old one's conversation.
    let branch = [
        said("c1", "now add a progress bar", "05T08:00", "s-old"),
        assistant_entry("c2", "Added."),
    ];
    let files = [
        ("s-old", &old[..]),
        ("s-new", &new[..]),
        ("s-branch", &branch[..]),
    ];
    for (session, lines) in files {
        let path = w.session(session, &app, &[]);
        fs::write(&path, lines.join("\n") + "\n").unwrap();
    }
    let d = w.digest(&w.request(Some(Scope::of(&app))));
    let text = d.text("m");
    let listed = |session: &str| -> Vec<String> {
        let s = d.sessions.iter().find(|s| s.session == session).unwrap();
        s.prompts
            .iter()
            .map(|p| format!("L{} {}", p.line, p.text))
            .collect()
    };
    // The rule typed in both is listed once, where it was typed last.
    assert_eq!(listed("s-old"), ["L3 now run the suite"], "{text}");
    assert_eq!(
        listed("s-new"),
        [
            "L5 add a CLI flag for verbose output".to_string(),
            format!("L7 {rule}"),
            "L9 keep the flag out of the config".to_string()
        ],
        "{text}"
    );
    assert_eq!(listed("s-branch"), ["L1 now add a progress bar"], "{text}");
    let one = [
        "s-new · same conversation as s-old",
        "s-branch · same conversation as s-old",
    ];
    for heading in one {
        assert!(text.contains(&format!("## session {heading}")), "{text}");
    }
    assert!(!text.contains("## session s-old · same"), "{text}");
    let line = text.lines().find(|l| l.contains(rule)).unwrap();
    assert!(
        line.contains("(typed 2 times, again at s-old:L1)"),
        "{line}"
    );
}

#[test]
fn a_replays_first_prompt_and_one_resent_after_an_interrupt_are_one() {
    let w = World::new();
    let app = w.repo("app");
    let path = w.session("s1", &app, &[]);
    let said = |u: &str, parent: Option<&str>, t: &str| {
        user_entry(u, json!(t), json!({ "parentUuid": parent }))
    };
    let reply = |u: &str, parent: &str, t: &str| {
        let mut entry: Value = serde_json::from_str(&assistant_entry(u, t)).unwrap();
        entry["parentUuid"] = json!(parent);
        entry.to_string()
    };
    let ide = json!("<ide_opened_file>schema.sql</ide_opened_file>");
    let lines = [
        said("u1", None, "sketch the schema"),
        reply("a1", "u1", "Here is a schema."),
        said("u2", Some("a1"), "add an index on email"),
        reply("a2", "u2", "I'll start by reading"),
        said("i2", Some("a2"), "[Request interrupted by user]"),
        // Resent after the interrupt: the partial answer is not what it answers.
        said("u3", Some("i2"), "Add an index on email."),
        reply("a3", "u3", "Added the index."),
        // The conversation written again from its start under new uuids: its first prompt
        // follows the last turn's words, on no entry as the original.
        user_entry("r0", ide.clone(), json!({ "parentUuid": null })),
        said("r1", Some("r0"), "sketch the schema"),
        reply("r2", "r1", "Here is a schema."),
        said("r3", Some("r2"), "add an index on email"),
        // Typed again after another, whole answer: a real repeat.
        reply("a4", "r3", "Dropped the index: it slowed the writes."),
        said("u5", Some("a4"), "add an index on email"),
        // Interrupted, then something else between (an image alone): resent no more.
        reply("a6", "u5", "Adding it back"),
        said("i6", Some("a6"), "[Request interrupted by user]"),
        said("u7", Some("i6"), "[Image #1]"),
        said("u8", Some("u7"), "add an index on email"),
    ];
    fs::write(&path, lines.join("\n") + "\n").unwrap();
    let d = w.digest(&w.request(Some(Scope::of(&app))));
    assert_eq!(
        typed(&d),
        [(1, "sketch the schema", 1), (3, "add an index on email", 3),]
    );
}

#[test]
fn a_prompt_sent_before_it_was_finished_is_listed_as_finished() {
    let w = World::new();
    let app = w.repo("app");
    let path = w.session("s1", &app, &[]);
    let said = |u: &str, t: &str| user_entry(u, json!(t), json!({}));
    let lines = [
        said("u1", "sketch the schema"),
        assistant_entry("a1", "Here is a schema."),
        // Enter pressed too early, then the whole prompt, with nothing answered between.
        said("u2", "you got it wrong, use the test env, check the bot's"),
        said("i2", "[Request interrupted by user]"),
        said(
            "u3",
            "you got it wrong, use the test env, check the bot's token at startup",
        ),
        assistant_entry("a3", "Checking the token."),
        // Answered, then said again longer: two prompts.
        said("u4", "use the test env"),
        assistant_entry("a4", "Switched."),
        said("u5", "use the test env for every run"),
    ];
    fs::write(&path, lines.join("\n") + "\n").unwrap();
    let d = w.digest(&w.request(Some(Scope::of(&app))));
    assert_eq!(
        typed(&d),
        [
            (1, "sketch the schema", 1),
            (
                5,
                "you got it wrong, use the test env, check the bot's token at startup",
                1
            ),
            (7, "use the test env", 1),
            (9, "use the test env for every run", 1),
        ]
    );
}

/// A long prompt's excerpt as the digest cuts it, typed after an edit.
fn cut(prompt: &str, score: impl Fn(&Reading, &Situation) -> f64) -> String {
    let after_an_edit = Situation {
        actions: 1,
        calls: 1,
        edited: true,
        ..Situation::default()
    };
    excerpt(prompt, "", None, TEXT_CHARS, |s| {
        score(&Reading::of(s), &after_an_edit)
    })
    .text
}

const TASK: &str = "No, the button is still green, it should be blue like the one in the mock. \
    The header also needs a little more room above it on small screens, and the footer links \
    should wrap instead of overflowing.";

#[test]
fn a_rule_said_in_passing_is_shown_over_the_task_it_came_with() {
    for rule in [
        "From now on, run the linter before every commit.",
        "We use pnpm in this project.",
        // Rules the classifier weighs lightly, opening with a rule cue of their language.
        "Впредь всегда пиши тесты перед кодом.",
        "以后不要在任何文件里使用表情符号。",
    ] {
        let prompt = format!("{TASK} {rule}");
        // The classifier alone finds the correction of this step likelier.
        assert!(
            cut(&prompt, model::likelihood).starts_with("No, the button"),
            "{prompt}"
        );
        let shown = cut(&prompt, model::lesson_score);
        assert!(shown.ends_with(rule), "{shown}");
    }
}

#[test]
fn a_long_prompt_without_a_lasting_rule_is_cut_as_by_the_classifier() {
    for prompt in [
        format!("{TASK} Can you check the other pages too?"),
        // A suggestion, and a hold for now, set no rule.
        format!("{TASK} Maybe we should always run the linter first."),
        format!("{TASK} For now, never push to the release branch."),
        "The header also needs a little more room above it on small screens. No, the button is \
            still green, it should be blue like the one in the mock. Can you make the footer links \
            wrap instead of overflowing, and check the other pages too?"
            .to_string(),
    ] {
        assert_eq!(
            cut(&prompt, model::lesson_score),
            cut(&prompt, model::likelihood),
            "{prompt}"
        );
    }
}

#[test]
fn after_prompts_in_a_row_that_miss_the_budget_the_rest_are_left_out_unweighed() {
    let w = World::new();
    let app = w.repo("app");
    let names = "abcdefghijklmnopqrstuvwxyz";
    let corrections: Vec<String> = names
        .chars()
        .take(MISSES_IN_A_ROW + 2)
        .map(|c| format!("No, that's wrong: don't edit the generated file {c}{c}{c}, change the template instead and keep its comments"))
        .collect();
    let question = "what does the parser do";
    let mut turns: Vec<(&str, &str)> = corrections
        .iter()
        .map(|c| (c.as_str(), "I edited src/generated/api.ts."))
        .collect();
    turns.push((question, "It keeps them."));
    w.session("s1", &app, &turns);
    let mut req = w.request(Some(Scope::of(&app)));
    req.budget_tokens = 100_000;
    let all = w.digest(&req);
    let prompts = &all.sessions[0].prompts;
    assert_eq!(prompts.len(), turns.len(), "{all:?}");
    let asked = prompts.iter().find(|p| p.text == question).unwrap();
    let likeliest = prompts
        .iter()
        .max_by(|a, b| a.probability.total_cmp(&b.probability))
        .unwrap();
    // The question is weighed last: every correction is likelier.
    assert!(prompts
        .iter()
        .all(|p| p.text == question || p.probability > asked.probability));
    let line = |p: &Shown| prompt_line(p).chars().count();
    assert!(
        line(asked) + 4
            < prompts
                .iter()
                .map(line)
                .filter(|&n| n > line(asked))
                .min()
                .unwrap()
    );
    // Room for the heading, the likeliest correction and the question: every other correction
    // misses, and after MISSES_IN_A_ROW of them the question is not weighed.
    let heading = all.text("m").lines().nth(2).unwrap().chars().count() + 2;
    req.budget_tokens = (heading + line(likeliest) + line(asked)).div_ceil(4);
    let one = w.digest(&req);
    let listed = texts(&one);
    assert_eq!(listed.len(), 1, "{listed:?}");
    assert_ne!(listed[0], question);
    assert_eq!(one.left_out, turns.len() - 1);
}

#[test]
fn the_prompts_are_weighed_with_the_model_the_request_names() {
    let w = World::new();
    let app = w.repo("app");
    w.session(
        "s1",
        &app,
        &[("add a second column to the orders table", "Added.")],
    );
    let weights = |d: &Digest| -> Vec<f64> {
        d.sessions[0]
            .prompts
            .iter()
            .map(|p| p.probability)
            .collect()
    };
    let shipped = w.digest(&w.request(Some(Scope::of(&app))));
    assert!(weights(&shipped)[0] < 0.5, "{:?}", weights(&shipped));
    // A model that calls every message a learning moment.
    let mut always = model::SHIPPED.clone();
    always.bias[0] = 50.0;
    let req = Request {
        model: Some(Box::leak(Box::new(always))),
        ..w.request(Some(Scope::of(&app)))
    };
    assert_eq!(weights(&w.digest(&req)), [1.0]);
}

#[test]
fn a_long_prompt_after_a_refused_or_stopped_call_still_says_so() {
    let shown = |text: &str, answering: &str| Shown {
        line: 7,
        uuid: None,
        timestamp: None,
        text: text.into(),
        answering: answering.into(),
        probability: 0.5,
        again: Vec::new(),
        pasted: false,
    };
    let long = "keep the plan to the parser and leave the renderer as it is, ".repeat(3);
    // A short prompt: what it answers, whole.
    assert_eq!(
        prompt_line(&shown(
            "no, in docs/",
            "Writing it now. (then called Write, refused)"
        )),
        "L7 [after: Writing it now. (then called Write, refused)] no, in docs/\n"
    );
    // A long one: only that the user refused or stopped a call.
    for ended in [
        "(then called ExitPlanMode, refused)",
        "(then called Read, Bash; Bash stopped)",
    ] {
        let line = prompt_line(&shown(&long, &format!("Here is the plan. {ended}")));
        assert_eq!(line, format!("L7 [after: {ended}] {long}\n"));
    }
    // A quote cut inside a long list of calls keeps what is left of it.
    let cut = "…Grep, Glob; Edit refused)";
    assert_eq!(
        prompt_line(&shown(&long, cut)),
        format!("L7 [after: {cut}] {long}\n")
    );
    // Calls that ran, or plain words, add nothing to a prompt that says what it means.
    for answering in [
        "Here is the plan. (then called Read, Edit)",
        "Here is the plan.",
    ] {
        assert_eq!(
            prompt_line(&shown(&long, answering)),
            format!("L7 {long}\n")
        );
    }
}
