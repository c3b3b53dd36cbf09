use super::*;
use serde_json::json;

#[test]
fn a_user_context_reads_back_as_the_prompt_and_what_it_answered() {
    let said = "No, it's 'pnpm', not npm";
    let context = user_context(said, "Shall I install it?");
    assert_eq!(quoted_prompt(&context), Some((said, "Shall I install it?")));
    assert_eq!(quoted_prompt(&user_context(said, "")), Some((said, "")));
    assert_eq!(quoted_prompt("User: no, use pnpm"), None);
}

#[test]
fn a_user_signal_quotes_their_words_not_the_paste_they_sent_with_them() {
    let log: String = (0..40)
        .map(|i| format!("2026-11-02 10:00:{i:02} ERROR worker.py:{i} job {i} crashed\n"))
        .collect();
    let prompt =
        format!("No, don't restart the worker, always read its log first. Here it is:\n{log}");
    let signals = run(vec![says("I restarted the worker."), user(&prompt)]);
    let said = signals
        .iter()
        .find(|s| s.source.origin == Some(Origin::User))
        .expect("a signal of the user's words");
    assert!(
        said.content.starts_with("No, don't restart the worker"),
        "{}",
        said.content
    );
    for quoted in [&said.content, &said.context] {
        assert!(!quoted.contains("ERROR worker.py"), "{quoted}");
    }
    assert!(
        said.context.contains("always read its log first"),
        "{}",
        said.context
    );
    // A short one is quoted whole, what it pasted too.
    let short = "No, the path is wrong: it is src/app/main.rs";
    let signals = run(vec![says("I edited lib.rs."), user(short)]);
    let said = signals
        .iter()
        .find(|s| s.source.origin == Some(Origin::User))
        .unwrap();
    assert_eq!(said.content, short);
}

#[test]
fn a_detector_given_a_model_weighs_prompts_with_it() {
    // A task, no rule: the shipped model stores nothing. A model that calls every message a
    // learning moment (as a model trained on other people might call this one) stores it.
    let task = vec![
        says("The form is done."),
        user("Add a second column to the table on the orders page"),
    ];
    assert!(run(task.clone()).is_empty());
    let mut always = model::SHIPPED.clone();
    always.bias[0] = 50.0;
    let signals = run_with(
        Detector::new().with_model(Box::leak(Box::new(always))),
        task,
    );
    assert_eq!(signals.len(), 1, "{signals:#?}");
    assert_eq!(signals[0].source.origin, Some(Origin::User));
}

/// Feed `kinds` as events on lines 1, 2, 3 … and return the signals.
fn run(kinds: Vec<EventKind>) -> Vec<Signal> {
    run_with(Detector::new(), kinds)
}

fn run_with(mut detector: Detector, kinds: Vec<EventKind>) -> Vec<Signal> {
    for (i, kind) in kinds.into_iter().enumerate() {
        detector.feed(&Event {
            line: i as u64 + 1,
            uuid: Some(format!("uuid-{}", i + 1).into()),
            timestamp: None,
            cwd: None,
            session: None,
            parent: Default::default(),
            kind,
        });
    }
    detector.finish()
}

fn user(text: &str) -> EventKind {
    EventKind::UserText { text: text.into() }
}
fn says(text: &str) -> EventKind {
    EventKind::AssistantText { text: text.into() }
}
fn call(id: &str, name: &str, input: Value) -> EventKind {
    EventKind::ToolUse {
        id: id.into(),
        name: name.into(),
        input: ToolInput::from(&input),
    }
}
fn result(id: &str, is_error: bool, text: &str) -> EventKind {
    EventKind::ToolResult {
        tool_use_id: id.into(),
        is_error,
        text: text.into(),
    }
}
fn of_kind<'a>(signals: &'a [Signal], kind: &Kind) -> Vec<&'a Signal> {
    signals.iter().filter(|s| &s.kind == kind).collect()
}
/// Each failure stored, with what resolved it.
fn resolutions(signals: &[Signal]) -> Vec<(&str, Option<&str>)> {
    of_kind(signals, &Kind::Failure)
        .into_iter()
        .map(|s| (s.content.as_str(), s.resolution.as_deref()))
        .collect()
}

#[test]
fn a_correction_quotes_the_user_and_what_it_answered() {
    let signals = run(vec![
        user("set up the project"),
        says("I'll install the dependencies.\nRunning npm install now."),
        call("t1", "Bash", json!({"command": "npm install"})),
        result("t1", false, "added 3 packages"),
        user("No, don't use npm. Why did you run npm? We use pnpm"),
    ]);
    let corrections = of_kind(&signals, &Kind::Correction);
    assert_eq!(corrections.len(), 1, "{signals:#?}");
    let c = corrections[0];
    assert_eq!(
        c.content,
        "No, don't use npm. Why did you run npm? We use pnpm"
    );
    assert_eq!(c.confidence, 3);
    assert_eq!(c.source.line, Some(5));
    assert_eq!(c.source.uuid.as_deref(), Some("uuid-5"));
    assert!(
        c.context.contains("Why did you run npm? We use pnpm"),
        "{}",
        c.context
    );
    assert!(
        c.context.contains("Running npm install now."),
        "{}",
        c.context
    );
    assert_eq!(c.tags, vec!["bash"]);
}

#[test]
fn what_claude_code_wrote_in_the_models_place_is_not_what_a_prompt_answered() {
    let signals = run(vec![
        user("set up the project"),
        says("I'll install the dependencies with npm."),
        says("API Error: Request was aborted."),
        user("No, don't use npm. Why did you run npm? We use pnpm"),
    ]);
    let corrections = of_kind(&signals, &Kind::Correction);
    assert_eq!(corrections.len(), 1, "{signals:#?}");
    let context = &corrections[0].context;
    assert!(
        context.ends_with("(answering: I'll install the dependencies with npm.)"),
        "{context}"
    );
    assert!(!context.contains("API Error"), "{context}");
}

#[test]
fn a_secret_typed_as_the_answer_to_a_question_is_not_quoted() {
    let signals = run(vec![
        user("set up the staging database"),
        says("Two questions first:\n1. Which DB user?\n2. What is its password?"),
        user("No, don't use npm. Why did you run npm? We use pnpm\n1. admin\n2. Xk92mqLv"),
    ]);
    let corrections = of_kind(&signals, &Kind::Correction);
    assert_eq!(corrections.len(), 1, "{signals:#?}");
    let c = corrections[0];
    for quoted in [&c.content, &c.context] {
        assert!(!quoted.contains("Xk92mqLv"), "{quoted}");
        assert!(quoted.contains("[REDACTED:answered-secret]"), "{quoted}");
        assert!(quoted.contains("1. admin"), "{quoted}");
    }
}

#[test]
fn a_tool_error_is_a_failure_that_quotes_the_error_line() {
    let signals = run(vec![
            call("t1", "Bash", json!({"command": "python3 tool.py"})),
            result(
                "t1",
                true,
                "Exit code 1\nTraceback (most recent call last):\n  File \"tool.py\", line 1, in <module>\nModuleNotFoundError: No module named 'yaml'",
            ),
        ]);
    let failures = of_kind(&signals, &Kind::Failure);
    assert_eq!(failures.len(), 1, "{signals:#?}");
    let f = failures[0];
    assert_eq!(
        f.content,
        "Bash failed: ModuleNotFoundError: No module named 'yaml'"
    );
    assert!(f
        .context
        .starts_with("Tried: python3 tool.py\nError: Exit code 1"));
    assert_eq!(f.tool_use_id(), Some("t1"));
    assert_eq!(f.source.line, Some(2));
}

#[test]
fn protocol_errors_quiet_failures_and_failing_tests_are_not_stored() {
    let signals = run(vec![
        call("t1", "Edit", json!({"file_path": "/a.rs"})),
        result(
            "t1",
            true,
            "<tool_use_error>String to replace not found in file.\nString: x</tool_use_error>",
        ),
        call("t2", "Write", json!({"file_path": "/b.rs"})),
        result(
            "t2",
            true,
            "File has not been read yet. Read it first before writing to it.",
        ),
        call("t3", "Bash", json!({"command": "grep -r foo ."})),
        result("t3", true, "Exit code 1"),
        call("t4", "Bash", json!({"command": "npx vitest run"})),
        result(
            "t4",
            true,
            "Exit code 1\n FAIL  src/a.test.ts > adds\nAssertionError: expected 3 to be 4",
        ),
    ]);
    assert!(signals.is_empty(), "{signals:#?}");
}

#[test]
fn warmup_and_interrupt_errors_are_not_failures() {
    let signals = run(vec![
        call("t1", "Glob", json!({"pattern": "**/*"})),
        result("t1", true, "Warmup"),
        call("t2", "Bash", json!({"command": "sleep 100"})),
        result("t2", true, "[Request interrupted by user for tool use]"),
    ]);
    assert!(signals.is_empty(), "{signals:#?}");
}

#[test]
fn feeding_owned_events_finds_what_feeding_borrowed_ones_finds() {
    let mut kinds = Vec::new();
    for i in 0..3 {
        kinds.push(call(
            &format!("t{i}"),
            "Bash",
            json!({"command": format!("make target{i}")}),
        ));
        kinds.push(result(
            &format!("t{i}"),
            true,
            &format!("make: cc{i}: Command not found"),
        ));
    }
    kinds.push(call("r", "Bash", json!({"command": "rm -rf build"})));
    kinds.push(EventKind::Rejection {
        tool_use_id: "r".into(),
        text: "use make clean instead".into(),
    });
    let borrowed = run(kinds.clone());
    let mut detector = Detector::new();
    for (i, kind) in kinds.into_iter().enumerate() {
        detector.feed_owned(Event {
            line: i as u64 + 1,
            uuid: Some(format!("uuid-{}", i + 1).into()),
            timestamp: None,
            cwd: None,
            session: None,
            parent: Default::default(),
            kind,
        });
    }
    let owned = detector.finish();
    // Everything but the creation time, which may tick between the two runs.
    let json = |signals: &[Signal]| {
        let mut signals = signals.to_vec();
        for s in &mut signals {
            s.timestamp.clear();
        }
        serde_json::to_string(&signals).unwrap()
    };
    assert!(borrowed.len() >= 4, "{borrowed:#?}");
    assert!(json(&borrowed).contains("rm -rf build"), "{borrowed:#?}");
    assert_eq!(json(&owned), json(&borrowed));
}

#[test]
fn a_failure_that_repeats_is_one_failure_for_the_store() {
    // Three calls fail the same way on other files: three sightings of one dedup key, which
    // the store folds into one signal seen three times. No streak signal of its own.
    let mut events = Vec::new();
    for i in 0..3 {
        events.push(call(
            &format!("t{i}"),
            "Bash",
            json!({"command": format!("cat src/m{i}.py")}),
        ));
        events.push(result(
            &format!("t{i}"),
            true,
            &format!("Exit code 1\ncat: src/m{i}.py: Permission denied"),
        ));
    }
    let signals = run(events);
    assert_eq!(signals.len(), 3, "{signals:#?}");
    let keys: HashSet<String> = signals.iter().map(Signal::dedup_key).collect();
    assert_eq!(keys.len(), 1, "{signals:#?}");
    assert!(signals
        .iter()
        .all(|s| s.category.as_deref() == Some("tool-failure")));
}

#[test]
fn a_failure_run_fixed_by_another_command_is_one_signal_with_its_resolution() {
    let npm_failed = "Exit code 1\nnpm ERR! Unsupported URL Type \"workspace:\": workspace:*";
    let signals = run(vec![
        user("install the deps"),
        call("t1", "Bash", json!({"command": "npm install"})),
        result("t1", true, npm_failed),
        call(
            "t2",
            "Bash",
            json!({"command": "npm install --legacy-peer-deps"}),
        ),
        result("t2", true, npm_failed),
        call("t3", "Bash", json!({"command": "ls"})),
        result("t3", false, "package.json pnpm-workspace.yaml"),
        call("t4", "Bash", json!({"command": "pnpm install"})),
        result("t4", false, "Done in 2.1s"),
    ]);
    assert_eq!(signals.len(), 1, "{signals:#?}");
    let s = &signals[0];
    assert_eq!(
        s.content,
        "Bash failed: npm ERR! Unsupported URL Type \"workspace:\": workspace:*"
    );
    assert_eq!(s.resolution.as_deref(), Some("`pnpm install`"));
    assert_eq!(s.source.line, Some(3), "the first failure");
    assert_eq!(s.meta["tries"], 2);
    assert_eq!(s.meta["tool_use_ids"], json!(["t1", "t2"]));
    assert_eq!(
        s.headline(100),
        "Bash failed: npm ERR! Unsupported URL Type \"workspace:\": workspace:* → `pnpm install`"
    );
    assert_eq!(s.headline(40), "Bash failed: npm ERR! … → `pnpm install`");
}

#[test]
fn a_failure_fixed_by_an_edit_or_passing_on_a_retry_is_no_lesson() {
    let compile = "error[E0425]: cannot find value `y` in this scope";
    let signals = run(vec![
        user("fix the build"),
        call("t1", "Bash", json!({"command": "cargo test"})),
        result("t1", true, compile),
        call("e1", "Edit", json!({"file_path": "/w/src/lib.rs"})),
        result("e1", false, "ok"),
        call("t2", "Bash", json!({"command": "cargo test --lib"})),
        result("t2", false, "test result: ok"),
        call(
            "t3",
            "Bash",
            json!({"command": "curl -s http://localhost:3000/health"}),
        ),
        result(
            "t3",
            true,
            "curl: (7) Failed to connect: Connection refused",
        ),
        call(
            "t4",
            "Bash",
            json!({"command": "curl -s http://localhost:3000/health"}),
        ),
        result("t4", false, "ok"),
    ]);
    assert!(of_kind(&signals, &Kind::Failure).is_empty(), "{signals:#?}");
}

#[test]
fn an_unresolved_failure_is_kept_only_as_a_fact_of_the_environment() {
    let signals = run(vec![
        user("check the json"),
        call("t1", "Bash", json!({"command": "jq .name package.json"})),
        result(
            "t1",
            true,
            "Exit code 127\n/bin/bash: line 1: jq: command not found",
        ),
        call("t2", "Bash", json!({"command": "npx tsc --noEmit"})),
        result(
            "t2",
            true,
            "src/a.ts(3,7): error TS2322: Type 'string' is not assignable",
        ),
        call("r1", "Read", json!({"file_path": "/w/package.json"})),
        result("r1", false, "{}"),
        user("ok thanks"),
    ]);
    let contents: Vec<&str> = signals.iter().map(|s| s.content.as_str()).collect();
    assert_eq!(
        contents,
        ["Bash failed: /bin/bash: line 1: jq: command not found"]
    );
    assert_eq!(signals[0].resolution, None);
}

#[test]
fn a_fact_of_the_environment_fixed_by_edits_quotes_them_as_its_resolution() {
    let edit = |id: &str, path: &str, old: &str, new: &str| {
        call(
            id,
            "Edit",
            json!({"file_path": path, "old_string": old, "new_string": new}),
        )
    };
    // The first edit and the last are quoted (either may be the fix), the ones between counted.
    let signals = run(vec![
        user("run the tests"),
        call("t1", "Bash", json!({"command": "uv run pytest -q"})),
        result(
            "t1",
            true,
            "Exit code 4\nE   ModuleNotFoundError: No module named 'tests'",
        ),
        call(
            "e1",
            "Write",
            json!({"file_path": "/home/me/kata/pytest.ini", "content": "[pytest]"}),
        ),
        result("e1", false, "ok"),
        edit("e2", "/home/me/kata/README.md", "old", "new"),
        result("e2", false, "ok"),
        edit(
            "e3",
            "/home/me/kata/tests/conftest.py",
            "from tests.factory import make",
            "from factory import make",
        ),
        result("e3", false, "ok"),
        call("t2", "Bash", json!({"command": "uv run pytest -q"})),
        result("t2", false, "5 passed"),
    ]);
    assert_eq!(
        resolutions(&signals),
        [(
            "Bash failed: ModuleNotFoundError: No module named 'tests'",
            Some(
                "wrote kata/pytest.ini, 1 more edit, edited tests/conftest.py: `from tests.factory \
                 import make` → `from factory import make`, then the same command"
            )
        )]
    );

    // One edit is quoted alone.
    let signals = run(vec![
        user("print the report"),
        call("t1", "Bash", json!({"command": "python report.py"})),
        result(
            "t1",
            true,
            "UnicodeEncodeError: 'charmap' codec can't encode character '\\u2705'",
        ),
        edit(
            "e1",
            "C:\\work\\report.py",
            "print(\"✅ done\")",
            "print(\"done\")",
        ),
        result("e1", false, "ok"),
        call("t2", "Bash", json!({"command": "python report.py"})),
        result("t2", false, "done"),
    ]);
    assert_eq!(
        resolutions(&signals)[0].1,
        Some("edited work/report.py: `print(\"✅ done\")` → `print(\"done\")`, then the same command")
    );

    // Work in progress fixed by an edit is still no lesson. A fact no edit fixes (a command the
    // shell mangles) spanned other work when files were edited before its job worked: neither
    // the edits nor what ran meanwhile is its fix. Nor do edits resolve a fact whose job never
    // worked again.
    let mangled = "npm run migrate -- --to $(cat .version) | cat";
    let signals = run(vec![
        user("build it"),
        call("t1", "Bash", json!({"command": "cargo build"})),
        result(
            "t1",
            true,
            "error[E0425]: cannot find value `y` in this scope",
        ),
        edit("e1", "/w/src/lib.rs", "y", "x"),
        result("e1", false, "ok"),
        call("t2", "Bash", json!({"command": "cargo build"})),
        result("t2", false, "Finished"),
        call("t3", "Bash", json!({"command": mangled})),
        result(
            "t3",
            true,
            "/bin/bash: eval: line 1: syntax error near unexpected token `('",
        ),
        edit("e2", "/w/docker-stack.yml", "/tmp/logs", "/app/logs"),
        result("e2", false, "ok"),
        call(
            "t4",
            "Bash",
            json!({"command": "npm run migrate -- --to $(cat .version)"}),
        ),
        result("t4", false, "migrated"),
        call("t5", "Bash", json!({"command": "jq .a x.json"})),
        result("t5", true, "/bin/bash: line 1: jq: command not found"),
        edit("e3", "/w/x.json", "1", "2"),
        result("e3", false, "ok"),
        user("never mind"),
    ]);
    assert_eq!(
        resolutions(&signals),
        [
            (
                "Bash failed: /bin/bash: eval: line 1: syntax error near unexpected token `('",
                None
            ),
            (
                "Bash failed: /bin/bash: line 1: jq: command not found",
                None
            )
        ]
    );
}

#[test]
fn a_long_command_that_fixed_a_failure_is_kept_to_where_it_differs() {
    // The fix differs from what failed only after a long path and a list of services.
    let dir = format!("/home/me/{}", "projects/clients/acme/platform/".repeat(5));
    let services = "postgres redis minio queue search cache mailer scheduler";
    let failed = format!("cd {dir} && docker compose up -d {services} ollama");
    let fixed = format!("cd {dir} && docker compose up -d {services} --pull never");
    assert!(
        fixed.chars().count() > 200,
        "the fix is longer than the old cut"
    );
    let signals = run(vec![
        user("start the stack"),
        call("t1", "Bash", json!({"command": failed})),
        result(
            "t1",
            true,
            "Error: pull access denied for ollama, repository does not exist",
        ),
        call("t2", "Bash", json!({"command": fixed})),
        result("t2", false, "Started"),
    ]);
    let fix = resolutions(&signals)[0].1.expect("resolved");
    assert!(fix.contains("--pull never"), "{fix}");
}

#[test]
fn a_failure_is_resolved_by_the_users_redirect_or_by_what_ran_before_the_retry() {
    let signals = run(vec![
        user("run the tests"),
        call("t1", "Bash", json!({"command": "pytest -q"})),
        result(
            "t1",
            true,
            "E   ModuleNotFoundError: No module named 'httpx'",
        ),
        call("t2", "Bash", json!({"command": "uv pip install httpx"})),
        result("t2", false, "Installed 1 package"),
        call("t3", "Bash", json!({"command": "pytest -q"})),
        result("t3", false, "3 passed"),
        call(
            "t4",
            "Bash",
            json!({"command": "sudo apt-get install -y jq"}),
        ),
        result(
            "t4",
            true,
            "sudo: a terminal is required to read the password",
        ),
        user("No, don't use sudo here, install it with brew instead"),
        call("t5", "Bash", json!({"command": "docker compose up -d"})),
        result(
            "t5",
            true,
            "Cannot connect to the Docker daemon. Is it running?",
        ),
        // A redirect about something else: no fix of the failure above (which, an
        // environment fact, is still kept, unresolved).
        user("No, put the tests in tests/unit instead"),
    ]);
    assert_eq!(
        resolutions(&signals),
        [
            (
                "Bash failed: ModuleNotFoundError: No module named 'httpx'",
                Some("`uv pip install httpx`, then the same command")
            ),
            (
                "Bash failed: sudo: a terminal is required to read the password",
                Some("the user said: 'No, don't use sudo here, install it with brew instead'")
            ),
            (
                "Bash failed: Cannot connect to the Docker daemon. Is it running?",
                None
            ),
        ]
    );
    // The failures carry the turn they came from, for the store's episodes.
    assert!(of_kind(&signals, &Kind::Failure)[..2]
        .iter()
        .all(|s| s.source.extra["prompt_line"] == 1));
}

#[test]
fn the_users_words_fix_a_failure_they_name_not_one_that_shares_a_script_or_a_path() {
    let signals = run(vec![
        user("count the accounts"),
        call(
            "t1",
            "Bash",
            json!({"command": "psql -c 'select count(*) from users'"}),
        ),
        result("t1", true, "ERROR:  relation \"users\" does not exist"),
        user("No, users is in the core schema, query core.users instead"),
        // Only the script's words are shared: no fix (the missing package stays, a fact).
        call(
            "t2",
            "Bash",
            json!({"command": "cat > check.mjs <<'EOF'\n// open each profile question page\nEOF\nnode check.mjs"}),
        ),
        result(
            "t2",
            true,
            "Error: Cannot find package 'playwright' imported from /tmp/check.mjs",
        ),
        user("No, put each profile question on its own page instead"),
        // Only a path's folder and a file's extension are shared: no fix, nothing kept.
        call(
            "t3",
            "Bash",
            json!({"command": "cp /home/dev/shop/dump.sql /srv/init/"}),
        ),
        result(
            "t3",
            true,
            "cp: /home/dev/shop/dump.sql: No such file or directory",
        ),
        user("No, use seed.sql from the shop folder instead"),
        // The same command run in bash mode is no fix either.
        call("t4", "Bash", json!({"command": "nix flake check"})),
        result("t4", true, "error: attribute 'desktop' missing"),
        user("<bash-input>nix flake check</bash-input>"),
    ]);
    assert_eq!(
        resolutions(&signals),
        [
            (
                "Bash failed: ERROR: relation \"users\" does not exist",
                Some("the user said: 'No, users is in the core schema, query core.users instead'")
            ),
            (
                "Bash failed: Error: Cannot find package 'playwright' imported from /tmp/check.mjs",
                None
            ),
        ]
    );
}

#[test]
fn every_remember_request_is_kept_whatever_follows_remember() {
    for text in [
        "Remember that the staging database listens on port 5433, not 5432.",
        "Remember to use pnpm, not npm.",
        "please remember the API key lives in 1Password, never in .env",
        "Keep in mind that CI runs on Node 18",
    ] {
        let signals = run(vec![
            call("t1", "Bash", json!({"command": "psql -p 5432"})),
            result("t1", false, "ok"),
            user(text),
        ]);
        let kinds: Vec<&Kind> = signals.iter().map(|s| &s.kind).collect();
        assert_eq!(kinds, [&Kind::Remember], "{text}: {signals:#?}");
        assert_eq!(signals[0].content, text);
    }
    // Recalling is not asking to keep anything (the rule; the model weighs such words too).
    for text in ["remember when the build was green?", "I don't remember why"] {
        let read = text::Reading::of(text);
        assert!(!text::asks_to_remember(&read.words), "{text}");
    }
}

#[test]
fn noise_dressed_as_a_lesson_is_not_stored() {
    let plan = "## Plan\n1. Rewrite the About page";
    let signals = run(vec![
            // A refused plan whose reason is the next requirements.
            call("p1", "ExitPlanMode", json!({"plan": plan})),
            EventKind::Rejection {
                tool_use_id: "p1".into(),
                text: "update the About section with this text:\nWe are a small team of bakers.\nFounded 1998.".into(),
            },
            // Another hook's verdict, where the refusal's reason would be.
            call("b1", "Bash", json!({"command": "git push --force"})),
            EventKind::Rejection {
                tool_use_id: "b1".into(),
                text: "BLOCKED: force pushes are not allowed by policy guard".into(),
            },
            user("BLOCKED: Do not edit generated files. Use the generator instead."),
            // The user ran `pwd` in bash mode; a Node hint in a pasted log.
            user("<bash-input>pwd</bash-input>"),
            user("it fails:\n(node:1234) [DEP0040] DeprecationWarning: The punycode module is deprecated.\n(Use `node --trace-deprecation ...` to show where the warning was created)"),
            // A leading "No" before picking an option, and a pasted trace that starts with "No".
            says("Shall I do #1 (split the module) or #2 (keep it)?"),
            user("No Just do #1"),
            call("t9", "Bash", json!({"command": "npm run build"})),
            result("t9", false, "ok"),
            user("No matching export in \"src/a.ts\" for import \"b\"\n    at resolve (node_modules/vite/dist/node.js:120:11)\n    at Object.load (node_modules/vite/dist/node.js:88:3)\nError: Build failed with 1 error"),
            // A pasted prompt template.
            user(&template()),
        ]);
    assert!(signals.is_empty(), "{signals:#?}");
    // The same shapes with a real lesson in them are kept.
    let kept = run(vec![
        call("p2", "ExitPlanMode", json!({"plan": plan})),
        EventKind::Rejection {
            tool_use_id: "p2".into(),
            text: "keep the auth module, only fix the token check".into(),
        },
        user("<bash-input>sudo pacman -S ventoy --noconfirm</bash-input>"),
    ]);
    let kinds: Vec<&Kind> = kept.iter().map(|s| &s.kind).collect();
    assert_eq!(kinds, [&Kind::Correction, &Kind::Command], "{kept:#?}");
}

/// A prompt template pasted as a message: headings, rules, placeholders.
fn template() -> String {
    let mut t = String::from("# Review prompt\n## Role\nYou are a senior reviewer.\n## Rules\n");
    for i in 0..8 {
        t.push_str(&format!("- Always check rule {i} before answering\n"));
    }
    t.push_str(
        "# Output\nAlways answer in the format below.\n{{answer}}\n# Notes\nNever skip a step.\n",
    );
    t
}

#[test]
fn streaks_of_edits_and_empty_searches_raise_nothing() {
    let mut events = Vec::new();
    for i in 0..4 {
        events.push(call(
            &format!("e{i}"),
            "Edit",
            json!({"file_path": "/src/a.rs"}),
        ));
        events.push(result(&format!("e{i}"), false, "ok"));
    }
    for i in 0..4 {
        events.push(call(&format!("g{i}"), "Grep", json!({"pattern": "foo"})));
        events.push(result(&format!("g{i}"), false, "No matches found"));
    }
    let signals = run(events);
    assert!(signals.is_empty(), "{signals:#?}");
}

#[test]
fn a_refused_tool_call_with_a_reason_is_a_strong_correction() {
    let signals = run(vec![
        call("t1", "Write", json!({"file_path": "/src/new.rs"})),
        EventKind::Rejection {
            tool_use_id: "t1".into(),
            text: "put it in lib.rs".into(),
        },
    ]);
    assert!(of_kind(&signals, &Kind::Failure).is_empty());
    let c = of_kind(&signals, &Kind::Correction);
    assert_eq!(c.len(), 1);
    assert_eq!(c[0].content, "put it in lib.rs");
    assert_eq!(c[0].confidence, 2);
    assert_eq!(
        c[0].context,
        "User refused Write `/src/new.rs`, saying: 'put it in lib.rs'"
    );
}

#[test]
fn a_refusal_is_the_users_words_only_for_a_call_seen_and_not_an_mcp_servers() {
    let refuse = |id: &str| EventKind::Rejection {
        tool_use_id: id.into(),
        text: "always run the installer first".into(),
    };
    let signals = run(vec![
        refuse("never-called"),
        call("m1", "mcp__issues__close", json!({"id": 7})),
        refuse("m1"),
        call("w1", "Write", json!({"file_path": "/src/a.rs"})),
        refuse("w1"),
    ]);
    let c = of_kind(&signals, &Kind::Correction);
    assert_eq!(c.len(), 1, "{signals:#?}");
    assert_eq!(c[0].meta["tool_use_id"], "w1");
    assert_eq!(c[0].source.origin, Some(Origin::User));
}

#[test]
fn a_refusal_without_a_reason_is_no_signal_and_a_plan_is_never_quoted() {
    let plan = "## Plan\n1. Rewrite the whole auth module\n2. Ship it";
    let signals = run(vec![
        call("t1", "Bash", json!({"command": "curl https://example.com"})),
        EventKind::Rejection {
            tool_use_id: "t1".into(),
            text: String::new(),
        },
        call("t2", "Bash", json!({"command": "rm -rf /"})),
        EventKind::Rejection {
            tool_use_id: "t2".into(),
            text: "cancel".into(),
        },
        call("p1", "ExitPlanMode", json!({"plan": plan})),
        EventKind::Rejection {
            tool_use_id: "p1".into(),
            text: String::new(),
        },
        call("p2", "exit_plan_mode", json!({"plan": plan})),
        EventKind::Rejection {
            tool_use_id: "p2".into(),
            text: "keep the auth module, only fix the token check".into(),
        },
    ]);
    assert_eq!(signals.len(), 1, "{signals:#?}");
    assert_eq!(
        signals[0].content,
        "keep the auth module, only fix the token check"
    );
    assert!(
        signals[0]
            .context
            .starts_with("User refused the plan, saying"),
        "{}",
        signals[0].context
    );
    assert!(!serde_json::to_string(&signals)
        .unwrap()
        .contains("Rewrite the whole"));
}

#[test]
fn a_turn_that_ended_in_a_call_is_named_with_its_article() {
    assert_eq!(a_call("Edit"), "an Edit call");
    assert_eq!(a_call("exit_plan_mode"), "an exit_plan_mode call");
    assert_eq!(a_call("Bash"), "a Bash call");
}

#[test]
fn a_prompt_after_calls_and_no_words_answered_the_last_call_and_says_if_it_was_refused() {
    let refused = run(vec![
        user("commit this"),
        call("t1", "Bash", json!({"command": "git commit -am wip"})),
        EventKind::Rejection {
            tool_use_id: "t1".into(),
            text: String::new(),
        },
        user("No, never commit with a one-word message in this repo"),
    ]);
    let context = &of_kind(&refused, &Kind::Correction)[0].context;
    assert!(
        context.ends_with("(answering: refused Bash `git commit -am wip`)"),
        "{context}"
    );
    let ran = run(vec![
        user("set up the project"),
        call("t1", "Read", json!({"file_path": "package.json"})),
        result("t1", false, "{}"),
        call("t2", "Bash", json!({"command": "npm install"})),
        result("t2", false, "added 3 packages"),
        user("No, don't use npm. Why did you run npm? We use pnpm"),
    ]);
    let context = &of_kind(&ran, &Kind::Correction)[0].context;
    assert!(
        context.ends_with("(answering: Bash `npm install`)"),
        "{context}"
    );
}

#[test]
fn what_is_not_stored_is_counted_after_the_cursor_only() {
    let refuse = |id: &str, why: &str| EventKind::Rejection {
        tool_use_id: id.into(),
        text: why.into(),
    };
    let kinds = vec![
        call("b0", "Bash", json!({"command": "ls"})),
        refuse("b0", ""),
        call("b1", "Bash", json!({"command": "ls"})),
        refuse("b1", ""),
        call("e1", "Edit", json!({"file_path": "/a"})),
        refuse("e1", "use the other file"),
        refuse("gone", ""),
        call("e2", "Edit", json!({"file_path": "/a"})),
        result(
            "e2",
            true,
            "<tool_use_error>File has not been read yet.</tool_use_error>",
        ),
        call("t1", "Bash", json!({"command": "npm test"})),
        result("t1", true, "Exit code 1\n FAIL  src/a.test.ts > adds"),
        call("c1", "Bash", json!({"command": "cargo build"})),
        result("c1", true, "error: could not find `Cargo.toml` in `/a`"),
        call("w1", "Bash", json!({"command": "which pnpm"})),
        result("w1", true, "Error"),
    ];
    // Lines 1 and 2 were read by an earlier run: seen again, not counted again.
    let mut detector = Detector::counting_after(2);
    for (i, kind) in kinds.into_iter().enumerate() {
        detector.feed(&Event {
            line: i as u64 + 1,
            uuid: None,
            timestamp: None,
            cwd: None,
            session: None,
            parent: Default::default(),
            kind,
        });
    }
    let counted = detector.take_counted();
    let pairs = |m: &BTreeMap<String, u64>| -> Vec<(String, u64)> {
        m.iter().map(|(k, n)| (k.clone(), *n)).collect()
    };
    assert_eq!(
        pairs(&counted.refused),
        [("Bash".into(), 1), ("Edit".into(), 1), ("tool".into(), 1)]
    );
    assert_eq!(counted.refused_at.len(), 3, "{:?}", counted.refused_at);
    assert_eq!(
        pairs(&counted.protocol_errors),
        [("File has not been read yet".into(), 1)]
    );
    assert_eq!(counted.failing_tests, 1);
    // Failed calls name their lines, one whose output says nothing too: not the protocol
    // message nor the failing tests.
    assert_eq!(
        counted.failed_at,
        [("Bash".to_string(), 13), ("Bash".to_string(), 15)]
    );
    assert_eq!(detector.finish().len(), 1, "the refusal with a reason");
}

#[test]
fn a_refusal_reason_written_as_the_edit_error_is_a_correction() {
    let signals = run(vec![
        call("t1", "Edit", json!({"file_path": "/src/view_model.ts"})),
        result(
            "t1",
            true,
            "No changes to the view models please. Read the state from the service instead.",
        ),
    ]);
    assert!(of_kind(&signals, &Kind::Failure).is_empty(), "{signals:#?}");
    let c = of_kind(&signals, &Kind::Correction);
    assert_eq!(c.len(), 1, "{signals:#?}");
    assert_eq!(c[0].confidence, 2);
    assert!(c[0].content.starts_with("No changes to the view models"));
}

#[test]
fn praise_is_the_users_words_and_only_when_it_names_the_approach() {
    let signals = run(vec![
        says("Done! The parser is now table-driven."),
        call("1", "Edit", json!({"file_path": "/src/parse.rs"})),
        result("1", false, "ok"),
        user("Perfect, keep doing it this way: one table per grammar"),
    ]);
    let patterns = of_kind(&signals, &Kind::Pattern);
    assert_eq!(patterns.len(), 1, "{signals:#?}");
    assert_eq!(
        patterns[0].content,
        "Perfect, keep doing it this way: one table per grammar"
    );
    assert!(!patterns[0].content.contains("table-driven"));

    // Praise that only moves on, or praise after reading: nothing.
    let signals = run(vec![
        says("Done! The parser is now table-driven."),
        call("1", "Edit", json!({"file_path": "/src/parse.rs"})),
        result("1", false, "ok"),
        user("Great, now let's do the lexer"),
    ]);
    assert!(of_kind(&signals, &Kind::Pattern).is_empty(), "{signals:#?}");
    let signals = run(vec![
        call("1", "Read", json!({"file_path": "/src/parse.rs"})),
        user("great, keep doing it this way"),
    ]);
    assert!(of_kind(&signals, &Kind::Pattern).is_empty());
}

#[test]
fn remember_requests_drop_the_memory_wrapper() {
    let signals = run(vec![user(
        "<user-memory-input>staging uses port 8443</user-memory-input>",
    )]);
    assert_eq!(signals.len(), 1);
    assert_eq!(signals[0].kind, Kind::Remember);
    assert_eq!(signals[0].content, "staging uses port 8443");
}

#[test]
fn the_situation_a_message_answers_is_the_turn_since_the_last_one() {
    let mut detector = Detector::new();
    let mut feed = |kind: EventKind| {
        detector.feed_owned(Event {
            line: 1,
            uuid: None,
            timestamp: None,
            cwd: None,
            session: None,
            parent: Default::default(),
            kind,
        });
    };
    feed(says("Done."));
    feed(user("thanks"));
    feed(says("Shall I also update the docs?"));
    feed(call("e", "Edit", json!({"file_path": "/a"})));
    feed(result("e", false, "ok"));
    feed(call("b", "Bash", json!({"command": "make"})));
    feed(result("b", true, "Exit code 2"));
    feed(call("w", "Write", json!({"file_path": "/b"})));
    feed(EventKind::Rejection {
        tool_use_id: "w".into(),
        text: String::new(),
    });
    assert_eq!(
        detector.situation(),
        &Situation {
            actions: 4,
            calls: 3,
            rejected: true,
            edited: true,
            ran: true,
            failed: true,
            asked: true,
        }
    );
    detector.feed(&Event {
        line: 2,
        uuid: None,
        timestamp: None,
        cwd: None,
        session: None,
        parent: Default::default(),
        kind: EventKind::CompactBoundary,
    });
    assert_eq!(detector.situation(), &Situation::default());
    detector.feed(&Event {
        line: 3,
        uuid: None,
        timestamp: None,
        cwd: None,
        session: None,
        parent: Default::default(),
        kind: says("Which file?"),
    });
    assert!(detector.situation().asked);
    detector.feed(&Event {
        line: 4,
        uuid: None,
        timestamp: None,
        cwd: None,
        session: None,
        parent: Default::default(),
        kind: user("the config"),
    });
    assert_eq!(detector.situation(), &Situation::default());
}

#[test]
fn calls_are_found_by_id_across_a_turn_among_many() {
    // Ids that differ in one byte, past their first eight; the maps trade places at every
    // user message.
    let ids: Vec<String> = (0..300)
        .map(|i| format!("toolu_01ABCDEFGH{i:03}"))
        .collect();
    let mut kinds = Vec::new();
    for (i, id) in ids.iter().enumerate() {
        let tool = ["Bash", "Read", "Grep"][i % 3];
        kinds.push(call(id, tool, json!({"command": format!("cmd {i}")})));
    }
    kinds.push(user("go on"));
    kinds.push(result(
        &ids[7],
        true,
        "error: the first one broke: permission denied",
    ));
    kinds.push(result(
        &ids[299],
        true,
        "error: the second one broke: permission denied",
    ));
    kinds.push(call("x", "Write", json!({"file_path": "/a"})));
    kinds.push(user("and on"));
    kinds.push(result("x", true, "EACCES: permission denied"));
    kinds.push(result(
        &ids[10],
        true,
        "error: the third one broke: permission denied",
    ));
    let contents: Vec<_> = of_kind(&run(kinds), &Kind::Failure)
        .iter()
        .map(|s| format!("{} | {}", s.content, s.context.lines().next().unwrap()))
        .collect();
    assert_eq!(
            contents,
            vec![
                "Read failed: error: the first one broke: permission denied | Tried: cmd 7",
                "Grep failed: error: the second one broke: permission denied | Tried: cmd 299",
                "Write failed: EACCES: permission denied | Tried: /a",
                "tool failed: error: the third one broke: permission denied | Error: error: the third one broke: permission denied",
            ]
        );
}

#[test]
fn calls_are_remembered_for_one_more_turn_only() {
    let signals = run(vec![
        call("t1", "Bash", json!({"command": "make"})),
        user("keep going"),
        result("t1", true, "make: cc: Command not found"),
        call("t2", "Bash", json!({"command": "make"})),
        user("next"),
        user("and next"),
        result("t2", true, "make: cc: Command not found"),
    ]);
    let contents: Vec<_> = of_kind(&signals, &Kind::Failure)
        .iter()
        .map(|s| s.content.clone())
        .collect();
    assert_eq!(
        contents,
        vec![
            "Bash failed: make: cc: Command not found",
            "tool failed: make: cc: Command not found"
        ]
    );
}
