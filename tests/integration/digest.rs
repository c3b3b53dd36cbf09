//! `memory-store digest` (the second look of /reflect) and the project scope of `query`, run as
//! the real binaries: sessions recorded by the real hooks, the mark cycle, the edge cases the
//! issue names (a deleted transcript, an empty project, a torn last line, a bad --since), and the
//! reach over the labelled corpora (read in place from ../shared, never copied).

use std::collections::{HashMap, HashSet};
use std::fs;
use std::path::{Path, PathBuf};

use serde_json::{json, Value};

use reflect_app::capture;
use reflect_app::digest;
use reflect_app::scope::Scope;
use reflect_base::fsutil::LockWait;
use reflect_base::paths::Paths;
use reflect_detect::model::Model;
use reflect_store::store::Store;

use crate::hooks::{assert_silent_success, run_hook};
use crate::util::{read_jsonl, shared, stdout, Env};

/// A git repository at `rel` under the test's dir.
fn repo(env: &Env, rel: &str) -> PathBuf {
    let root = env.dir.path().join(rel);
    fs::create_dir_all(root.join(".git")).unwrap();
    root
}

/// A transcript of prompts and replies at `<config>/projects/x/<session>.jsonl`.
fn transcript(env: &Env, session: &str, turns: &[(&str, &str)]) -> PathBuf {
    let dir = env.config.join("projects").join("x");
    fs::create_dir_all(&dir).unwrap();
    let path = dir.join(format!("{session}.jsonl"));
    let mut text = String::new();
    for (n, (prompt, reply)) in turns.iter().enumerate() {
        let user = json!({"type": "user", "isSidechain": false, "uuid": format!("{session}-u{n}"),
            "timestamp": "2026-11-20T10:00:00Z", "message": {"role": "user", "content": prompt}});
        let assistant = json!({"type": "assistant", "isSidechain": false,
            "uuid": format!("{session}-a{n}"), "timestamp": "2026-11-20T10:00:01Z",
            "message": {"id": format!("m{n}"), "role": "assistant",
                "content": [{"type": "text", "text": reply}]}});
        text.push_str(&format!("{user}\n{assistant}\n"));
    }
    fs::write(&path, text).unwrap();
    path
}

/// The session as capture leaves it: SessionEnd mined it and recorded it in its cursor.
fn end_session(env: &Env, session: &str, transcript: &Path, cwd: &Path) {
    let payload = json!({"session_id": session, "transcript_path": transcript, "cwd": cwd,
        "hook_event_name": "SessionEnd", "reason": "other"});
    let (out, _) = run_hook(
        env,
        "capture-session-summary",
        payload.to_string().as_bytes(),
    );
    assert_silent_success("capture-session-summary", &out, "a session ends");
}

fn digest(env: &Env, cwd: &Path, args: &[&str]) -> std::process::Output {
    env.cmd("memory-store")
        .arg("digest")
        .args(args)
        .current_dir(cwd)
        .output()
        .unwrap()
}

fn listed_lines(out: &std::process::Output) -> Vec<(String, u64)> {
    stdout(out)
        .lines()
        .map(|l| serde_json::from_str::<Value>(l).unwrap())
        .map(|v| {
            (
                v["session_id"].as_str().unwrap().to_string(),
                v["line"].as_u64().unwrap(),
            )
        })
        .collect()
}

/// Every saved mark of the digests made so far (`<data dir>/digests/*.json`).
fn saved_marks(env: &Env) -> String {
    fs::read_dir(env.data.join("digests"))
        .map(|entries| {
            entries
                .flatten()
                .map(|e| marks_of_saved(&fs::read_to_string(e.path()).unwrap()))
                .collect()
        })
        .unwrap_or_default()
}

/// A saved marks file's marks, each as `"SESSION:LINE:TURN"` (quoted, one a line).
pub fn marks_of_saved(json: &str) -> String {
    let saved: Value = serde_json::from_str(json).unwrap();
    saved["marks"]
        .as_array()
        .unwrap()
        .iter()
        .map(|m| {
            format!(
                "\"{}:{}:{}\"\n",
                m["session"].as_str().unwrap(),
                m["line"],
                m["turn"]
            )
        })
        .collect()
}

/// The mark command the text digest ends with, as arguments.
fn mark_args(text: &str) -> Vec<String> {
    let line = text
        .lines()
        .find(|l| l.starts_with("memory-store digest --mark "))
        .unwrap_or_else(|| panic!("no mark command in:\n{text}"));
    line.split_whitespace()
        .skip(2)
        .map(str::to_string)
        .collect()
}

#[test]
fn the_digest_lists_this_projects_sessions_recorded_by_the_hooks_and_marks_them_read() {
    let env = Env::new();
    let app = repo(&env, "app");
    let other = repo(&env, "other");
    let t1 = transcript(
        &env,
        "s-app",
        &[
            ("add the export command", "Added `acme export`."),
            ("the timeout is per request, not per call", "Fixed."),
        ],
    );
    let t2 = transcript(&env, "s-other", &[("prompt of another project", "x")]);
    end_session(&env, "s-app", &t1, &app.join("src"));
    end_session(&env, "s-other", &t2, &other);
    let cursor: Value =
        serde_json::from_slice(&fs::read(env.data.join("cursors/s-app.json")).unwrap()).unwrap();
    assert_eq!(
        cursor["transcript"],
        json!(t1),
        "capture records the transcript"
    );
    assert_eq!(cursor["project"], json!(app.join("src")), "and the project");

    let out = digest(&env, &app, &[]);
    assert!(out.status.success());
    let text = stdout(&out);
    assert!(text.contains("## session s-app"), "{text}");
    assert!(
        text.contains("L3 [after: Added `acme export`.] the timeout is per request"),
        "{text}"
    );
    assert!(!text.contains("another project"), "{text}");
    let all = stdout(&digest(&env, &app, &["--all"]));
    assert!(all.contains("prompt of another project"), "{all}");

    // Marked read, the session lists nothing more until it goes on.
    let marked = env
        .cmd("memory-store")
        .arg("digest")
        .args(mark_args(&text))
        .current_dir(&app)
        .output()
        .unwrap();
    assert!(marked.status.success(), "{marked:?}");
    assert!(stdout(&marked).contains("marked session s-app read up to line 4"));
    let again = stdout(&digest(&env, &app, &[]));
    assert!(
        again.starts_with("Nothing new: no prompt typed since"),
        "{again}"
    );
    fs::write(
        &t1,
        fs::read_to_string(&t1).unwrap()
            + &json!({"type": "user", "uuid": "late", "message": {"role": "user",
                "content": "and keep the flags sorted from now on"}})
            .to_string()
            + "\n",
    )
    .unwrap();
    let later = stdout(&digest(&env, &app, &[]));
    assert!(
        later.contains("L5 [after: Fixed.] and keep the flags sorted"),
        "{later}"
    );
    assert!(!later.contains("timeout"), "{later}");
}

#[test]
fn the_digest_of_a_gone_transcript_an_empty_project_and_a_torn_line_is_clear_and_exits_0() {
    let env = Env::new();
    let app = repo(&env, "app");
    let empty = repo(&env, "empty");
    let t = transcript(&env, "s-gone", &[("lost prompt", "x")]);
    end_session(&env, "s-gone", &t, &app);
    fs::remove_file(&t).unwrap();
    let out = digest(&env, &app, &[]);
    assert!(out.status.success(), "{out:?}");
    let text = stdout(&out);
    assert!(
        text.contains("Not read: 1 session(s) whose transcript is gone") && text.contains("s-gone"),
        "{text}"
    );

    let out = digest(&env, &empty, &[]);
    assert!(out.status.success());
    assert_eq!(
        stdout(&out),
        "No session to look at: capture has recorded none here yet, and Claude Code keeps no transcript of this project.\n"
    );
    // With no data dir at all, too.
    let fresh = Env::new();
    let out = digest(&fresh, fresh.dir.path(), &["--format", "jsonl"]);
    assert!(out.status.success() && out.stdout.is_empty(), "{out:?}");

    let torn = transcript(&env, "s-torn", &[("whole prompt", "x")]);
    let mut bytes = fs::read(&torn).unwrap();
    bytes.extend_from_slice(
        br#"{"type":"user","uuid":"t","message":{"role":"user","content":"half a"#,
    );
    fs::write(&torn, &bytes).unwrap();
    let out = digest(&env, &app, &["--transcript", torn.to_str().unwrap()]);
    assert!(out.status.success(), "{out:?}");
    let text = stdout(&out);
    assert!(text.contains("L1 whole prompt"), "{text}");
    assert!(!text.contains("half a"), "{text}");
    assert!(text.contains("memory-store digest --mark d"), "{text}");
    assert!(
        saved_marks(&env).contains("\"s-torn:2:1\""),
        "{}",
        saved_marks(&env)
    );
}

#[test]
fn the_digest_refuses_a_since_it_cannot_read_with_exit_2() {
    let env = Env::new();
    for bad in ["yesterday", "7x", "2026-13-45"] {
        let out = digest(&env, env.dir.path(), &["--since", bad]);
        assert_eq!(out.status.code(), Some(2), "{bad}: {out:?}");
        let err = String::from_utf8_lossy(&out.stderr);
        assert!(
            err.contains("invalid --since") && !err.contains(bad) && err.contains("7d"),
            "{err}"
        );
        assert!(out.stdout.is_empty());
    }
    // A mark spelled out wrong is a usage error; saved marks that are not there are a failure.
    let out = digest(&env, env.dir.path(), &["--mark", "s1:x:2"]);
    assert_eq!(out.status.code(), Some(2), "{out:?}");
    let out = digest(&env, env.dir.path(), &["--mark", "d0000000000"]);
    assert_eq!(out.status.code(), Some(1), "{out:?}");
    assert!(String::from_utf8_lossy(&out.stderr).contains("no saved marks named"));
}

#[test]
fn prompts_already_stored_approvals_and_repeats_are_not_listed() {
    let env = Env::new();
    let app = repo(&env, "app");
    let t = transcript(
        &env,
        "s1",
        &[
            (
                "No, don't use npm in this repo, always use pnpm.",
                "Switched.",
            ),
            ("ok", "Next?"),
            ("yes, go ahead", "Going on."),
            ("可以", "好的"),
            ("👍", "Thanks."),
            ("rename the module to parser", "Renamed."),
            ("Rename the module to parser!", "Renamed again."),
            ("why is the cache per user?", "It is per user."),
        ],
    );
    end_session(&env, "s1", &t, &app);
    let stored: HashSet<u64> = read_jsonl(&env.store())
        .iter()
        .filter(|s| s["type"] != "summary")
        .filter_map(|s| s["source"]["line"].as_u64())
        .collect();
    assert!(
        stored.contains(&1),
        "capture stored the correction: {stored:?}"
    );
    // A signal /reflect appended for the last prompt (source: reflect, with the session and line).
    let found = json!({"type": "convention", "content": "the cache is per user",
        "session_id": "s1", "source": {"hook": "reflect", "line": 15}});
    env.cmd("memory-store")
        .args(["append", &found.to_string()])
        .assert()
        .success();
    let out = digest(&env, &app, &["--format", "jsonl"]);
    assert!(out.status.success());
    assert_eq!(listed_lines(&out), [("s1".to_string(), 11)]);
    let summary = String::from_utf8_lossy(&out.stderr);
    assert!(
        summary.contains("2 stored, 4 approvals, 1 repeats"),
        "{summary}"
    );
    let text = stdout(&digest(&env, &app, &[]));
    assert!(
        text.contains(
            "L11 (typed 2 times, again at L13) [after: Thanks.] rename the module to parser"
        ),
        "{text}"
    );
}

#[test]
fn query_project_is_the_repository_and_with_global_adds_preferences_from_elsewhere() {
    let env = Env::new();
    let app = repo(&env, "app");
    let lib = repo(&env, "app/vendor/lib");
    let other = repo(&env, "other");
    let add = |kind: &str, content: &str, project: &Path, session: &str| {
        env.known_sessions(&[session]);
        env.append(
            &json!({"type": kind, "content": content, "project": project,
            "session_id": session}),
        )
    };
    let root = add(
        "correction",
        "use pnpm in app",
        &app,
        "11111111-aaaa-4000-8000-000000000001",
    );
    let sub = add(
        "convention",
        "tests live beside the code",
        &app.join("src"),
        "s2",
    );
    let nested = add("gotcha", "the vendored lib has its own build", &lib, "s3");
    let theirs = add("correction", "use yarn in other", &other, "s4");
    let pref = add("preference", "keep answers short", &other, "s5");

    let query = |args: &[&str]| {
        let out = env
            .cmd("memory-store")
            .arg("query")
            .args(args)
            .current_dir(&app)
            .output()
            .unwrap();
        assert!(out.status.success(), "{out:?}");
        stdout(&out)
    };
    let ids = |text: &str| -> Vec<String> {
        text.lines()
            .map(|l| l.split_whitespace().next().unwrap().to_string())
            .collect()
    };
    // Seen as often and as sure: the newest first.
    let index = query(&["--project", "src", "--format", "index"]);
    assert_eq!(ids(&index), [sub.clone(), root.clone()], "{index}");
    assert!(index.contains("  app/11111111  use pnpm in app"), "{index}");
    assert!(
        index.contains("  app/s2  tests live beside the code"),
        "{index}"
    );
    let with = query(&["--project", ".", "--with-global", "--format", "index"]);
    assert_eq!(ids(&with), [pref.clone(), sub, root.clone()], "{with}");
    assert!(
        with.contains("  other/s5 (global)  keep answers short"),
        "{with}"
    );
    // The nested repository is a project of its own; the whole store is still one query away.
    let jsonl = query(&["--project", "vendor/lib"]);
    assert_eq!(read_ids(&jsonl), std::slice::from_ref(&nested));
    let everything = query(&["--format", "index"]);
    // What the user said first.
    assert_eq!(
        ids(&everything),
        [pref, theirs, ids(&with)[1].clone(), root, nested]
    );
    let out = env
        .cmd("memory-store")
        .args(["query", "--with-global"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
}

fn read_ids(jsonl: &str) -> Vec<String> {
    jsonl
        .lines()
        .map(|l| {
            serde_json::from_str::<Value>(l).unwrap()["id"]
                .as_str()
                .unwrap()
                .to_string()
        })
        .collect()
}

/// The learning types a reach counts as stored.
const LEARNING: [&str; 4] = ["correction", "convention", "preference", "remember"];
/// What the second look must reach, with capture: the share of labelled learning moments either
/// stored as a learning signal at their line or listed by the digest.
const REACH_FLOOR: f64 = 0.95;

/// The labelled prompts of the development and training corpora, by transcript: (line, label).
fn labelled_sessions(corpus: &Path) -> HashMap<PathBuf, Vec<(u64, String)>> {
    let mut labelled: HashMap<PathBuf, Vec<(u64, String)>> = HashMap::new();
    for (labels, dir) in [
        ("labels-dev.jsonl", "transcripts"),
        ("train/labels.jsonl", "train/transcripts"),
    ] {
        for l in read_jsonl(&corpus.join(labels)) {
            let file = corpus.join(dir).join(l["file"].as_str().unwrap());
            labelled.entry(file).or_default().push((
                l["line"].as_u64().unwrap(),
                l["label"].as_str().unwrap().to_string(),
            ));
        }
    }
    labelled
}

/// Learning moments counted, and those capture stored or the digest listed.
#[derive(Default)]
struct Reach {
    moments: usize,
    stored: usize,
    reached: usize,
}

impl Reach {
    /// Count the learning moments of `labels`: `stored` (capture's lines), `listed` (the digest's).
    fn count(&mut self, labels: &[(u64, String)], stored: &HashSet<u64>, listed: &HashSet<u64>) {
        for line in moments_of(labels) {
            self.moments += 1;
            self.stored += stored.contains(&line) as usize;
            self.reached += (stored.contains(&line) || listed.contains(&line)) as usize;
        }
    }

    fn share(&self) -> f64 {
        self.reached as f64 / self.moments as f64
    }

    fn holds_the_floor(&self) {
        assert!(self.moments > 500, "{} learning moments", self.moments);
        assert!(self.share() >= REACH_FLOOR, "below {REACH_FLOOR}: {self}");
    }
}

impl std::fmt::Display for Reach {
    fn fmt(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
        write!(
            f,
            "{}/{} learning moments = {:.3} (capture alone {})",
            self.reached,
            self.moments,
            self.share(),
            self.stored
        )
    }
}

/// The lines of `labels` that are learning moments.
fn moments_of(labels: &[(u64, String)]) -> impl Iterator<Item = u64> + '_ {
    labels
        .iter()
        .filter(|(_, label)| label != "none")
        .map(|(line, _)| *line)
}

/// The session id Claude Code would give a corpus transcript: its name's trailing UUID.
fn session_of(file: &Path) -> &str {
    let stem = file.file_stem().unwrap().to_str().unwrap();
    let tail = &stem[stem.len().saturating_sub(36)..];
    if tail.matches('-').count() == 4 {
        tail
    } else {
        stem
    }
}

/// The transcript lines a store's learning signals (or their sightings) point at.
fn learning_lines(lines: &[Value]) -> HashSet<u64> {
    let learning: HashMap<&str, bool> = lines
        .iter()
        .filter_map(|s| Some((s["id"].as_str()?, LEARNING.contains(&s["type"].as_str()?))))
        .collect();
    lines
        .iter()
        .filter(|s| {
            let target = s["recur"].as_str().or(s["id"].as_str()).unwrap_or("");
            learning.get(target).copied().unwrap_or(false)
        })
        .filter_map(|s| s["source"]["line"].as_u64())
        .collect()
}

/// For every labelled learning moment of the development and training corpora: capture stores
/// it (a learning signal or a sighting of one at its line) or the digest lists it. Each session
/// is captured as the hooks would (into a data dir of its own), then digested alone with
/// `--transcript` at the default budget. Its transcript is linked (not copied) under its session
/// id, as Claude Code names transcripts, so the digest reads the ids it would read.
#[test]
fn the_digest_reaches_nearly_every_learning_moment_capture_leaves() {
    let corpus = shared("corpus");
    let labelled = labelled_sessions(&corpus);
    let env = Env::new();
    let mut reach = Reach::default();
    let mut tokens: Vec<f64> = Vec::new();
    let mut files: Vec<&PathBuf> = labelled.keys().collect();
    files.sort();
    for (k, file) in files.into_iter().enumerate() {
        let session = session_of(file);
        let linked = env
            .dir
            .path()
            .join(format!("t{k}"))
            .join(format!("{session}.jsonl"));
        fs::create_dir_all(linked.parent().unwrap()).unwrap();
        crate::util::link_file(file, &linked);
        let data = env.dir.path().join(format!("d{k}"));
        let run = |bin: &str, args: &[&str]| {
            let out = env
                .cmd(bin)
                .env("REFLECT_HOME", &data)
                .args(args)
                .output()
                .unwrap();
            assert!(out.status.success(), "{bin} {args:?}: {out:?}");
            out
        };
        let t = linked.to_str().unwrap();
        run(
            "capture-signals",
            &[
                "--transcript",
                t,
                "--session",
                session,
                "--project",
                "/home/user/code/app",
            ],
        );
        let lines = read_jsonl(&data.join("signals.jsonl"));
        let stored = learning_lines(&lines);
        let text = run("memory-store", &["digest", "--transcript", t]);
        tokens.push(stdout(&text).chars().count() as f64 / 4.0);
        let listed: HashSet<u64> = listed_lines(&run(
            "memory-store",
            &["digest", "--transcript", t, "--format", "jsonl"],
        ))
        .into_iter()
        .map(|(_, line)| line)
        .collect();
        reach.count(&labelled[file], &stored, &listed);
    }
    let mean = tokens.iter().sum::<f64>() / tokens.len() as f64;
    let max = tokens.iter().cloned().fold(0.0, f64::max);
    println!(
        "digest reach: {reach}; digest tokens a session: mean {mean:.0}, max {max:.0}, over {} sessions",
        tokens.len()
    );
    reach.holds_the_floor();
}

/// The same reach for a stranger: each session captured, and its digest listed, with the model
/// trained on every repository of the corpora but its own (the shipped one was trained on these
/// sessions). Run in this process, through the code the hooks and `memory-store digest
/// --transcript` run; with the shipped model it counts what the test above counts.
#[test]
fn a_strangers_capture_and_the_digest_reach_nearly_every_learning_moment() {
    let corpus = shared("corpus");
    let prompts = reflect_lab::eval::load(&corpus).unwrap();
    let labelled = labelled_sessions(&corpus);
    let dir = tempfile::tempdir().unwrap();
    let mut models: HashMap<String, &'static Model> = HashMap::new();
    let mut reach = Reach::default();
    let mut files: Vec<&PathBuf> = labelled.keys().collect();
    files.sort();
    for (k, file) in files.into_iter().enumerate() {
        let name = file.file_name().unwrap().to_str().unwrap();
        let (model, left_out) = reflect_lab::eval::model_without(&prompts, &[name]);
        let repo = left_out.into_iter().collect::<Vec<_>>().join(",");
        let model = *models
            .entry(repo)
            .or_insert_with(|| Box::leak(Box::new(model)));
        let session = session_of(file);
        let linked = dir
            .path()
            .join(format!("t{k}"))
            .join(format!("{session}.jsonl"));
        fs::create_dir_all(linked.parent().unwrap()).unwrap();
        crate::util::link_file(file, &linked);
        let paths = Paths::new(dir.path().join("config"), dir.path().join(format!("d{k}")));
        capture::capture(
            &paths,
            &capture::Request {
                transcript: linked.clone(),
                session: Some(session.to_string()),
                project: Some("/home/user/code/app".into()),
                hook: "cli".into(),
                model: Some(model),
                ..capture::Request::default()
            },
        )
        .unwrap();
        let lines = read_jsonl(&paths.data_dir.join("signals.jsonl"));
        let stored = learning_lines(&lines);
        let store = Store::new(&paths, LockWait::CLI);
        let found = digest::digest(
            &store,
            &digest::Request {
                scope: Some(Scope::of(dir.path())),
                session: None,
                current: None,
                cwd: dir.path().to_path_buf(),
                since: None,
                transcripts: vec![linked],
                budget_tokens: digest::DEFAULT_BUDGET_TOKENS,
                model: Some(model),
            },
        )
        .unwrap();
        let listed: HashSet<u64> = found
            .sessions
            .iter()
            .flat_map(|s| s.prompts.iter().map(|p| p.line))
            .collect();
        reach.count(&labelled[file], &stored, &listed);
    }
    println!("held out: digest reach {reach}, {} models", models.len());
    // One model a repository, each without it: no session was weighed by a model that saw it.
    assert!(models.len() >= 50, "{} models", models.len());
    reach.holds_the_floor();
}

#[test]
fn forgetting_a_project_forgets_its_sessions_for_the_digest() {
    let env = Env::new();
    let app = repo(&env, "app");
    let other = repo(&env, "other");
    let t = transcript(&env, "s-app", &[("a prompt of app", "x")]);
    end_session(&env, "s-app", &t, &app.join("src"));
    let t = transcript(&env, "s-other", &[("a prompt of other", "x")]);
    end_session(&env, "s-other", &t, &other);
    env.cmd("memory-store")
        .args(["forget", "--project", app.to_str().unwrap()])
        .assert()
        .success();
    let all = stdout(&digest(&env, &app, &["--all"]));
    assert!(!all.contains("a prompt of app"), "{all}");
    assert!(all.contains("a prompt of other"), "{all}");
}

#[test]
fn a_digest_of_many_sessions_is_marked_read_by_one_short_name() {
    let env = Env::new();
    let app = repo(&env, "app");
    for k in 0..5 {
        let session = format!("s{k}");
        let t = transcript(&env, &session, &[(&format!("question number {k}"), "x")]);
        end_session(&env, &session, &t, &app);
    }
    let text = stdout(&digest(&env, &app, &[]));
    let args = mark_args(&text);
    assert_eq!(args.len(), 2, "one saved name: {args:?}");
    for k in 0..5 {
        assert!(saved_marks(&env).contains(&format!("\"s{k}:2:1\"")));
    }
    let marked = env
        .cmd("memory-store")
        .arg("digest")
        .args(&args)
        .current_dir(&app)
        .output()
        .unwrap();
    assert_eq!(
        stdout(&marked),
        "marked 5 session(s) read up to what the digest listed (prompts it left out for its budget stay unread)\n",
        "{marked:?}"
    );
    assert!(saved_marks(&env).is_empty(), "used saved marks are removed");
    let again = env
        .cmd("memory-store")
        .arg("digest")
        .args(&args)
        .current_dir(&app)
        .output()
        .unwrap();
    assert_eq!(again.status.code(), Some(1));
    assert!(stdout(&digest(&env, &app, &[])).starts_with("Nothing new"));

    // Saved marks that name a forgotten session go with it.
    let t = transcript(&env, "s-late", &[("one more question", "x")]);
    end_session(&env, "s-late", &t, &app);
    digest(&env, &app, &[]);
    assert!(saved_marks(&env).contains("s-late:"));
    env.cmd("memory-store")
        .args(["forget", "--session", "s-late"])
        .assert()
        .success();
    assert!(saved_marks(&env).is_empty());
}
