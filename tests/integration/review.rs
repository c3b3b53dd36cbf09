//! What `/reflect` reviews, as the real `memory-store` gives it: the digest leaves out what
//! Claude Code or the shell wrote, shows a long prompt's likeliest sentence, prints one prompt
//! whole with `--show`, counts a copied transcript once, ranks pastes last, and on day one
//! reads the project's own Claude Code transcripts that capture never recorded. Every fixture
//! here is made up.

use std::fs;
use std::path::{Path, PathBuf};

use serde_json::{json, Value};

use crate::util::{stdout, Env};

/// A git repository at `rel` under the test's dir.
fn repo(env: &Env, rel: &str) -> PathBuf {
    let root = env.dir.path().join(rel);
    fs::create_dir_all(root.join(".git")).unwrap();
    root
}

/// Claude Code's folder name for `dir`.
fn slug(dir: &Path) -> String {
    dir.to_string_lossy()
        .chars()
        .map(|c| if c.is_ascii_alphanumeric() { c } else { '-' })
        .collect()
}

/// One transcript entry: `("user" | "assistant", text)`, a tool call (`"tool"`), or the result
/// of the last call before it (`"ok"` or `"error"`, its output).
type Entry<'a> = (&'a str, &'a str);

/// The transcript of `session` in `<config>/projects/<folder>/`, as Claude Code writes it for a
/// session started in `cwd`: each entry on its own line, uuids `<uuid_prefix>-<n>`.
fn write_transcript(
    env: &Env,
    folder: &str,
    session: &str,
    cwd: &Path,
    uuid_prefix: &str,
    entries: &[Entry],
) -> PathBuf {
    let dir = env.config.join("projects").join(folder);
    fs::create_dir_all(&dir).unwrap();
    let path = dir.join(format!("{session}.jsonl"));
    let mut text = String::new();
    let mut last_call = 0;
    for (n, (role, said)) in entries.iter().enumerate() {
        let line = match *role {
            "ok" | "error" => json!({"type": "user", "isSidechain": false, "sessionId": session,
                "cwd": cwd, "uuid": format!("{uuid_prefix}-{n}"),
                "message": {"role": "user", "content": [{"type": "tool_result",
                    "tool_use_id": format!("t-{last_call}"), "content": said,
                    "is_error": *role == "error"}]}}),
            "user" => json!({"type": "user", "isSidechain": false, "sessionId": session,
                "cwd": cwd, "uuid": format!("{uuid_prefix}-{n}"),
                "message": {"role": "user", "content": said}}),
            // A tool call: `said` names the tool.
            // `Name`, `Name: command` or `Name: {…}` (its input as JSON).
            "tool" => {
                let (name, command) = said.split_once(": ").unwrap_or((said, ""));
                let input = match command {
                    "" => json!({}),
                    input if input.starts_with('{') => serde_json::from_str(input).unwrap(),
                    command => json!({ "command": command }),
                };
                last_call = n;
                json!({"type": "assistant", "isSidechain": false, "sessionId": session,
                "cwd": cwd, "uuid": format!("{uuid_prefix}-{n}"),
                "message": {"id": format!("m-{uuid_prefix}-{n}"), "role": "assistant",
                    "content": [{"type": "tool_use", "id": format!("t-{n}"), "name": name,
                        "input": input}]}})
            }
            _ => json!({"type": "assistant", "isSidechain": false, "sessionId": session,
                "cwd": cwd, "uuid": format!("{uuid_prefix}-{n}"),
                "message": {"id": format!("m-{uuid_prefix}-{n}"), "role": "assistant",
                    "content": [{"type": "text", "text": said}]}}),
        };
        text.push_str(&format!("{line}\n"));
    }
    fs::write(&path, text).unwrap();
    path
}

fn digest(env: &Env, cwd: &Path, args: &[&str]) -> std::process::Output {
    env.cmd("memory-store")
        .arg("digest")
        .args(args)
        .current_dir(cwd)
        .output()
        .unwrap()
}

/// The digest's text, which must have succeeded.
fn digest_text(env: &Env, cwd: &Path, args: &[&str]) -> String {
    let out = digest(env, cwd, args);
    assert!(out.status.success(), "{out:?}");
    stdout(&out)
}

/// The listed prompts of a `--format jsonl` digest.
fn digest_jsonl(env: &Env, cwd: &Path, args: &[&str]) -> Vec<Value> {
    let mut all = vec!["--format", "jsonl"];
    all.extend_from_slice(args);
    stdout(&digest(env, cwd, &all))
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect()
}

#[test]
fn harness_output_commands_and_empty_prompts_are_never_listed_nor_quoted() {
    let env = Env::new();
    let app = repo(&env, "app");
    let entries: &[Entry] = &[
        ("user", "add a retry to the upload job"),
        ("assistant", "Added the retry with backoff."),
        ("user", "(no content)"),
        ("assistant", "No response requested."),
        ("user", "the retry count belongs in config.toml, not in the code"),
        ("assistant", "API Error: 529 {\"type\":\"overloaded_error\"}"),
        ("user", "<bash-notification>\n<shell-id>b1</shell-id>\n<status>failed</status>\n</bash-notification>"),
        ("assistant", "OAuth token revoked · Please run /login"),
        ("user", "claude -r"),
        ("user", "<command-name>/clear</command-name>\n<command-message>clear</command-message>"),
        ("user", "<local-command-stdout>cleared</local-command-stdout>"),
        ("user", "[Request interrupted by user]"),
        ("user", "we deploy with make ship, never by hand"),
    ];
    write_transcript(&env, &slug(&app), "s-noise", &app, "n", entries);
    let text = digest_text(&env, &app, &[]);
    for noise in [
        "(no content)",
        "No response requested",
        "API Error",
        "bash-notification",
        "OAuth token",
        "/login",
        "claude -r",
        "command-name",
        "local-command",
        "Request interrupted",
    ] {
        assert!(!text.contains(noise), "{noise} in:\n{text}");
    }
    let listed = digest_jsonl(&env, &app, &[]);
    let said: Vec<(&str, &str)> = listed
        .iter()
        .map(|p| {
            (
                p["text"].as_str().unwrap(),
                p["answering"].as_str().unwrap(),
            )
        })
        .collect();
    assert_eq!(
        said,
        [
            ("add a retry to the upload job", ""),
            (
                "the retry count belongs in config.toml, not in the code",
                "Added the retry with backoff."
            ),
            // What answered it was Claude Code's, not the model's: nothing to quote.
            ("we deploy with make ship, never by hand", ""),
        ]
    );
}

#[test]
fn a_long_prompt_shows_its_likeliest_sentence_and_show_prints_it_whole() {
    let env = Env::new();
    let app = repo(&env, "app");
    let task = "Build the monthly report page with a table of invoices per customer, a chart of the totals, and an export to CSV for the finance team. ";
    let rule = "Never commit directly to main, always open a pull request.";
    let long = format!("{task}{task}{rule} {task}Thanks.");
    let entries: &[Entry] = &[("user", &long), ("assistant", "I'll start with the table.")];
    write_transcript(&env, &slug(&app), "s-long", &app, "l", entries);
    let text = digest_text(&env, &app, &[]);
    let line = text
        .lines()
        .find(|l| l.starts_with("L1 "))
        .unwrap_or_else(|| panic!("{text}"));
    assert!(line.contains(rule), "{line}");
    assert!(line.contains('…'), "{line}");
    assert!(line.chars().count() <= 210, "{line}");

    // --show prints the whole prompt, with the line and session it names.
    let shown = digest_text(&env, &app, &["--show", "s-long:1"]);
    assert!(shown.starts_with("## session s-long · L1"), "{shown}");
    assert!(shown.contains(&long), "{shown}");
    let two = digest_text(&env, &app, &["--show", "s-long:1", "--show", "s-long:L1"]);
    assert_eq!(two.matches(&long).count(), 2, "{two}");
    // A line that is not a prompt, a session without a transcript: exit 1; a bad argument: 2.
    // Not a prompt (a refusal's or a failure's line): the error names the prompt of its turn.
    let not_prompt = digest(&env, &app, &["--show", "s-long:2"]);
    assert_eq!(not_prompt.status.code(), Some(1));
    let why = String::from_utf8_lossy(&not_prompt.stderr);
    assert!(
        why.contains("is not a prompt the user typed (the prompt of its turn: --show s-long:1)"),
        "{why}"
    );
    // Before any prompt (a session opened by a command): the error says there is none.
    let entries: &[Entry] = &[("assistant", "Resuming."), ("user", "go on")];
    write_transcript(&env, &slug(&app), "s-first", &app, "f", entries);
    let first = digest(&env, &app, &["--show", "s-first:1"]);
    assert_eq!(first.status.code(), Some(1));
    let why = String::from_utf8_lossy(&first.stderr);
    assert!(
        why.contains("no prompt the user typed comes before it"),
        "{why}"
    );
    assert_eq!(
        digest(&env, &app, &["--show", "nope:1"]).status.code(),
        Some(1)
    );
    for bad in ["s-long:0", "s-long:x", ":5", ""] {
        assert_eq!(
            digest(&env, &app, &["--show", bad]).status.code(),
            Some(2),
            "{bad}"
        );
    }
}

#[test]
fn show_prints_a_huge_prompt_by_its_start_and_end() {
    let env = Env::new();
    let app = repo(&env, "app");
    let ask = "The importer is far too verbose, keep its logging quiet:";
    let log =
        "2026-11-20 09:00:01 INFO importer: row accepted into the staging table\n".repeat(800);
    let token = format!("ghp_{}", "Ab3De6Gh9Jk2Mn5Pq8St1Vw4Yz7Bc0Ef3Hi6");
    // A token in the end that is shown: redacted there too.
    let at = log.len() - 1_000;
    let last = "And never log whole rows again.";
    let long = format!("{ask}\n{}{token} {}\n{last}", &log[..at], &log[at..]);
    let entries: &[Entry] = &[("user", &long), ("assistant", "I'll lower the level.")];
    write_transcript(&env, &slug(&app), "s-huge", &app, "h", entries);
    let shown = digest_text(&env, &app, &["--show", "s-huge:1"]);
    assert!(shown.len() < 17 << 10, "{} bytes", shown.len());
    assert!(shown.contains(ask) && shown.contains(last), "{shown}");
    assert!(shown.contains("bytes of this prompt left out"), "{shown}");
    assert!(!shown.contains("ghp_"), "{shown}");
    assert!(!shown.contains(&token[8..20]), "{shown}");
    // A prompt that fits is printed whole, with no mark.
    let short = format!("{ask}\n{}", &log[..4_000]);
    write_transcript(&env, &slug(&app), "s-short", &app, "t", &[("user", &short)]);
    let whole = digest_text(&env, &app, &["--show", "s-short:1"]);
    assert!(whole.contains(short.trim_end()), "{whole}");
    assert!(!whole.contains("left out"), "{whole}");
    // One that is mostly paste is cut at 4 KB, the user's words at its ends kept, unless
    // asked for whole.
    let pasted = format!("{ask}\n{}\n{last}", &log[..10_000]);
    write_transcript(
        &env,
        &slug(&app),
        "s-paste",
        &app,
        "q",
        &[("user", &pasted)],
    );
    let cut = digest_text(&env, &app, &["--show", "s-paste:1"]);
    assert!(cut.len() < 5 << 10, "{} bytes", cut.len());
    assert!(cut.contains(ask) && cut.contains(last), "{cut}");
    assert!(
        cut.contains("left out; it is mostly paste: --whole prints up to 16 KB …]"),
        "{cut}"
    );
    let whole = digest_text(&env, &app, &["--show", "s-paste:1", "--whole"]);
    assert!(whole.contains(pasted.trim_end()), "{whole}");
    assert!(!whole.contains("left out"), "{whole}");
    assert_eq!(digest(&env, &app, &["--whole"]).status.code(), Some(2));
}

#[test]
fn show_takes_a_session_prefix_and_prints_the_end_of_the_turn_answered() {
    let env = Env::new();
    let app = repo(&env, "app");
    let long_turn = format!(
        "Rule one: tag releases. {} Token sk-ant-api03-{} is set. Shall I deploy with the script?",
        "Checked the build and the tests. ".repeat(40),
        "A1b2C3d4".repeat(10)
    );
    let reply = "No, we deploy with make ship, never by hand. ".repeat(3);
    let entries: &[Entry] = &[
        ("user", "fix the deploy"),
        (
            "assistant",
            "An earlier turn that the prompt does not answer.",
        ),
        ("user", "go on"),
        ("assistant", "Looking at the deploy."),
        ("assistant", &long_turn),
        ("user", "No, we deploy with make ship, never by hand"),
        ("assistant", "Understood."),
        ("user", "thanks"),
    ];
    write_transcript(
        &env,
        &slug(&app),
        "abcd1234-0000-4000-8000-000000000001",
        &app,
        "p",
        entries,
    );
    write_transcript(
        &env,
        &slug(&app),
        "abcd9999-0000-4000-8000-000000000002",
        &app,
        "q",
        entries,
    );
    let shown = digest_text(&env, &app, &["--show", "abcd1234:6"]);
    assert!(
        shown.starts_with("## session abcd1234-0000-4000-8000-000000000001 · L6"),
        "{shown}"
    );
    let (before, prompt) = shown
        .split_once("\nuser:\n")
        .unwrap_or_else(|| panic!("{shown}"));
    assert!(
        prompt.starts_with("No, we deploy with make ship"),
        "{shown}"
    );
    // The end of the turn it answers: bounded, redacted, nothing from an earlier turn.
    assert!(
        before.contains("Shall I deploy with the script?"),
        "{shown}"
    );
    assert!(!before.contains("earlier turn"), "{shown}");
    assert!(!before.contains("A1b2C3d4"), "{shown}");
    // A short prompt is read by what it answers: the turn's end up to 2,000 characters, here
    // the whole turn; a prompt that says what it means by itself gets the last 600.
    let quoted = before.lines().nth(1).unwrap();
    assert!(quoted.contains("Rule one: tag releases."), "{quoted}");
    assert!(quoted.chars().count() < 2000, "{quoted}");
    let replied: &[Entry] = &[
        ("user", "go on"),
        ("assistant", &long_turn),
        ("user", &reply),
    ];
    let session = "abcd5555-0000-4000-8000-000000000003";
    write_transcript(&env, &slug(&app), session, &app, "r", replied);
    let long = digest_text(&env, &app, &["--show", "abcd5555:3"]);
    let quoted = long.lines().nth(1).unwrap();
    assert!(quoted.contains("Shall I deploy"), "{long}");
    assert!(!quoted.contains("Rule one"), "{long}");
    assert!(quoted.chars().count() < 700, "{quoted}");
    // After it, the start of the answer and the user's next prompt (a correction taken back,
    // a fix that worked, show there); nothing past that prompt.
    let after = prompt.split_once("never by hand\n").map_or("", |(_, a)| a);
    assert_eq!(
        after, "assistant, the start of its answer: Understood.\nuser, next (L8): thanks\n",
        "{shown}"
    );
    let next = digest_text(&env, &app, &["--show", "abcd1234:8"]);
    assert!(next.contains("Understood."), "{next}");
    assert!(!next.contains("Shall I deploy"), "{next}");
    assert!(!next.contains("user, next"), "{next}");
    // An ambiguous prefix and an unknown one: exit 1 with a one-line reason.
    for (arg, says) in [("abcd:6", "ambiguous"), ("ffff:6", "no session")] {
        let out = digest(&env, &app, &["--show", arg]);
        assert_eq!(out.status.code(), Some(1), "{out:?}");
        let err = String::from_utf8_lossy(&out.stderr);
        assert!(
            err.contains(says) && err.trim().lines().count() == 1,
            "{err}"
        );
    }
}

#[test]
fn show_names_the_tools_a_turn_ended_with() {
    let env = Env::new();
    let app = repo(&env, "app");
    let entries: &[Entry] = &[
        ("user", "run the tests"),
        ("tool", "Bash"),
        ("tool", "Read"),
        ("tool", "Bash: docker compose up -d db && cargo test"),
        ("user", "always run them with --release here"),
        ("assistant", "Running them again."),
        ("tool", "Edit"),
        ("user", "and never touch the fixtures"),
        ("assistant", "Adding a fixture."),
        ("tool", "Read"),
        ("ok", "fn main() {}"),
        ("tool", "Write"),
        ("error", REFUSED),
        ("user", "fixtures live in tests/data"),
    ];
    write_transcript(&env, &slug(&app), "s-tools", &app, "p", entries);
    // A turn of calls only, and words followed by a call: each says what it called last.
    let only_calls = digest_text(&env, &app, &["--show", "s-tools:5"]);
    assert!(
        only_calls.contains(concat!(
            "assistant, end of the turn it answers: (then called Bash, Read)\n",
            "assistant, its last call: Bash `docker compose up -d db && cargo test`\nuser:\n"
        )),
        "{only_calls}"
    );
    let words_then_call = digest_text(&env, &app, &["--show", "s-tools:8"]);
    assert!(
        words_then_call.contains(
            "assistant, end of the turn it answers: Running them again. (then called Edit)\nuser:\n"
        ),
        "{words_then_call}"
    );
    // A call the user refused is named so: the prompt after it says what they wanted instead.
    let refused = "Adding a fixture. (then called Read, Write; Write refused)";
    let shown = digest_text(&env, &app, &["--show", "s-tools:14"]);
    assert!(
        shown.contains(&format!(
            "assistant, end of the turn it answers: {refused}\n"
        )),
        "{shown}"
    );
    let listed = digest_text(&env, &app, &[]);
    assert!(
        listed.contains(&format!(
            "L14 [after: {refused}] fixtures live in tests/data"
        )),
        "{listed}"
    );
}

/// Refused calls of one program that asked different things of it say what, place by place: a
/// rule about commits is not one about status checks. A quoted argument is no subcommand.
#[test]
fn the_places_of_a_refused_program_say_what_each_call_asked_of_it() {
    let env = Env::new();
    let app = repo(&env, "app");
    let refused = |call: &'static str| -> Vec<Entry<'static>> {
        vec![
            ("user", "tidy up"),
            ("assistant", "On it."),
            ("tool", call),
            ("error", REFUSED),
            ("user", "go on"),
        ]
    };
    let sessions = [
        ("s-one", refused("Bash: git commit -m wip")),
        ("s-two", refused("Bash: git status")),
        (
            "s-three",
            refused("Bash: grpcurl -d '{\"id\": 1}' localhost:5 Svc/Get"),
        ),
        (
            "s-four",
            refused("Bash: grpcurl -d '{\"id\": 2}' localhost:5 Svc/Put"),
        ),
    ];
    for (session, entries) in &sessions {
        write_transcript(&env, &slug(&app), session, &app, session, entries);
    }
    let text = digest_text(&env, &app, &[]);
    let git = refused_line(&text, "git");
    assert!(
        git.starts_with("- `git` 2 time(s) in 2 sessions: ")
            && git.contains("s-one:L4 (commit)")
            && git.contains("s-two:L4 (status)"),
        "{text}"
    );
    let grpcurl = refused_line(&text, "grpcurl");
    assert!(
        grpcurl.starts_with("- `grpcurl` 2 time(s) in 2 sessions: ") && !grpcurl.contains("L4 ("),
        "{text}"
    );
}

/// A command the user refused without a word in two sessions is named, with each place, after
/// the prompts: a rule no prompt states; so are file edits (a place in the turn of a question
/// marked `?`). One refused in one session only, or with a reason (stored by capture as a
/// correction), is not.
#[test]
fn a_command_refused_without_a_reason_in_two_sessions_is_named() {
    let env = Env::new();
    let app = repo(&env, "app");
    let refused = |push: &'static str, why: &'static str| -> Vec<Entry<'static>> {
        vec![
            ("user", "ship the fix"),
            ("assistant", "Committing and pushing."),
            ("tool", push),
            ("error", why),
            ("user", "ok, carry on with the tests"),
        ]
    };
    let because = "The user doesn't want to proceed with this tool use. The tool use was rejected (eg. if it was a file edit, the new_string was NOT written to the file). To tell you how to proceed, the user said:\nnot on fridays";
    let one = refused("Bash: git push origin main", REFUSED);
    let mut two = refused("Bash: cd app && git push --tags", REFUSED);
    two.extend(refused("Bash: rm -rf build", REFUSED));
    let edit: [Entry<'static>; 4] = [
        ("assistant", "Editing the config."),
        ("tool", "Edit"),
        ("error", REFUSED),
        ("user", "I only asked what it does"),
    ];
    let mut three = refused("Bash: terraform apply", because);
    three.extend(edit);
    // An edit refused in the turn of a question is marked so: the user wanted an answer.
    let mut four = refused("Bash: terraform apply -auto-approve", because);
    four.push(("user", "what does the config do?"));
    four.extend(edit);
    for (session, entries) in [
        ("s-one", &one),
        ("s-two", &two),
        ("s-three", &three),
        ("s-four", &four),
    ] {
        write_transcript(&env, &slug(&app), session, &app, session, entries);
    }
    let text = digest_text(&env, &app, &[]);
    // Both calls asked the same of git: the line names it once.
    assert!(
        text.contains("\n- `git push` 2 time(s) in 2 sessions: s-one:L4, s-two:L4\n")
            || text.contains("\n- `git push` 2 time(s) in 2 sessions: s-two:L4, s-one:L4\n"),
        "{text}"
    );
    assert!(
        !text.contains("`rm`") && !text.contains("`terraform`"),
        "{text}"
    );
    let edits = "\n- file edits (Edit, Write) 2 time(s) in 2 sessions:";
    assert!(
        text.contains(&format!("{edits} s-three:L8, s-four:L9?\n"))
            || text.contains(&format!("{edits} s-four:L9?, s-three:L8\n")),
        "{text}"
    );
    // The place it names is the refused call, as `--show` prints it.
    let shown = digest_text(&env, &app, &["--show", "s-one:4"]);
    assert!(
        shown.contains(
            "a call the user refused: Bash `git push origin main`\ntheir reason: none given\n"
        ),
        "{shown}"
    );
}

/// A program the user stopped while it ran in one session and refused in another is one
/// pattern ("I start the server myself"), each place saying which it was; calls stopped
/// together are one stop, and a program stopped in one session only is no pattern.
#[test]
fn a_program_stopped_in_one_session_and_refused_in_another_is_named() {
    let env = Env::new();
    let app = repo(&env, "app");
    let ended = |call: &'static str, how: &'static str| -> Vec<Entry<'static>> {
        vec![
            ("user", "test the login endpoint"),
            ("assistant", "Starting the server first."),
            ("tool", call),
            ("error", how),
            ("user", "the server is running, test it"),
        ]
    };
    let mut one = ended("Bash: python main.py", STOPPED);
    // Two calls of one turn stopped (side by side, by one keypress): one act of the user's.
    one.extend([
        ("assistant", "Checking both."),
        ("tool", "Bash: python main.py --port 9"),
        ("error", STOPPED),
        ("tool", "Bash: make test"),
        ("error", STOPPED),
        ("user", "stop that"),
    ]);
    let two = ended("Bash: python main.py --reload", REFUSED);
    let three = ended("Bash: make serve", STOPPED);
    for (session, entries) in [("s-one", &one), ("s-two", &two), ("s-three", &three)] {
        write_transcript(&env, &slug(&app), session, &app, session, entries);
    }
    let text = digest_text(&env, &app, &[]);
    let python = refused_line(&text, "python");
    assert!(
        python.starts_with("- `python main.py` 3 time(s) in 2 sessions: ")
            && python.contains("s-one:L4 stopped")
            && python.contains("s-one:L8 stopped")
            && python.contains("s-two:L4")
            && !python.contains("s-two:L4 stopped"),
        "{text}"
    );
    assert!(!text.contains("`make"), "{text}");
}

/// The digest's line for a program refused or stopped in several sessions (its name starting
/// with `program`), empty when there is none.
fn refused_line<'a>(text: &'a str, program: &str) -> &'a str {
    text.lines()
        .find(|l| l.starts_with(&format!("- `{program}")))
        .unwrap_or_default()
}

/// How Claude Code answers a tool call the user stopped while it ran.
const STOPPED: &str = "[Request interrupted by user for tool use]";

/// How Claude Code answers a tool call the user refused without a reason.
const REFUSED: &str = "The user doesn't want to proceed with this tool use. The tool use was rejected (eg. if it was a file edit, the new_string was NOT written to the file). STOP what you are doing and wait for the user to tell you how to proceed.";

/// A password piped to `sudo -S` in one session has no shape of its own: typed alone as a
/// prompt in another session of the project, the digest and `--show` know it by the command.
#[test]
fn a_password_a_command_held_is_redacted_in_every_session_of_the_project() {
    let env = Env::new();
    let app = repo(&env, "app");
    let password = "Zq7mv2024x";
    let piped = format!("Bash: echo '{password}' | sudo -S apt-get update");
    let one: &[Entry] = &[
        ("user", "update the packages on this box please"),
        ("tool", &piped),
        ("ok", "done"),
        ("assistant", "Updated."),
    ];
    write_transcript(&env, &slug(&app), "s-one", &app, "a", one);
    // The assistant's answer quotes it: the next prompt's `[after: …]` and view show it.
    let quoted = format!("\"{password}\" is not the key the api wants.");
    let two: &[Entry] = &[
        ("user", "the api still rejects the key, what now?"),
        (
            "assistant",
            "Shall I check whether another key is configured somewhere?",
        ),
        ("user", password),
        ("assistant", &quoted),
        ("user", "always ask before you run sudo on this machine"),
    ];
    write_transcript(&env, &slug(&app), "s-two", &app, "b", two);
    let text = digest_text(&env, &app, &[]);
    assert!(text.contains("L3 "), "the prompt is listed: {text}");
    assert!(!text.contains(password), "{text}");
    assert!(text.contains("[REDACTED:sudo-password]"), "{text}");
    let listed = digest_jsonl(&env, &app, &[]);
    assert!(!listed.is_empty());
    for p in &listed {
        assert!(!p.to_string().contains(password), "{p}");
    }
    for at in ["s-two:3", "s-two:5"] {
        let shown = digest_text(&env, &app, &["--show", at]);
        assert!(!shown.contains(password), "{shown}");
        assert!(shown.contains("[REDACTED:sudo-password]"), "{shown}");
    }
}

/// A value typed as the answer to a question asking for a secret, in one session, has no
/// shape: said again in another session (typed alone, or quoted back by the assistant), the
/// digest and `--show` know it by that answer.
#[test]
fn an_answered_secret_is_redacted_in_every_session_of_the_project() {
    let env = Env::new();
    let app = repo(&env, "app");
    let secret = "Vx9kq2Lm7tZ";
    let one: &[Entry] = &[
        ("user", "set up the staging database"),
        (
            "assistant",
            "Which password should the staging DB user have?",
        ),
        ("user", secret),
        ("assistant", "Done."),
    ];
    write_transcript(&env, &slug(&app), "s-one", &app, "a", one);
    let quoted = format!("{secret} is set for the staging user.");
    let two: &[Entry] = &[
        ("user", "is the staging db ready?"),
        ("assistant", &quoted),
        ("user", secret),
        ("assistant", "Yes, that one."),
        ("user", "never print credentials back to me"),
    ];
    write_transcript(&env, &slug(&app), "s-two", &app, "b", two);
    let text = digest_text(&env, &app, &[]);
    assert!(text.contains("L5 "), "the prompt is listed: {text}");
    assert!(!text.contains(secret), "{text}");
    assert!(
        text.contains("L3 "),
        "the value typed alone is listed: {text}"
    );
    let shown = digest_text(&env, &app, &["--show", "s-two:3"]);
    assert!(!shown.contains(secret), "{shown}");
    assert!(shown.contains("[REDACTED:"), "{shown}");
}

/// Session `s-failed` of `app`: a failure before any prompt and one after a prompt holding a
/// token, a rerun, a refusal whose reason is a password piped to sudo next, and a refusal
/// with a reason.
fn write_failed_session(env: &Env, app: &Path) {
    let token = format!("ghp_{}", "Zq8vLm2pXw7Rt5Ny3Kb6Hd9Jf4Gc1Ws0Ae2");
    let prompt = format!("deploy it, the token is {token}");
    let failing = format!("Bash: ./deploy.sh --token {token}");
    // A long command rerun with a change past its shared start: shown from the change.
    let build = "docker compose -f docker-compose.production.yml build --progress plain";
    let long = format!("Bash: {build} --pull api worker");
    let rerun = format!("Bash: {build} api worker");
    let entries: &[Entry] = &[
        ("tool", "Bash: ./setup.sh"),
        ("error", "Exit code 126\n(eval):1: permission denied: ./setup.sh"),
        ("tool", "Bash: chmod +x setup.sh && ./setup.sh"),
        ("ok", "done"),
        ("user", &prompt),
        ("tool", &failing),
        ("error", "Exit code 1\nError: connection refused"),
        ("assistant", "The server is not up; starting it first."),
        ("tool", "Bash: docker compose up -d api"),
        ("ok", "started"),
        ("tool", &long),
        ("error", "Exit code 1\nError: pull access denied for cache-base"),
        ("tool", &rerun),
        ("ok", "built"),
        // A password typed as a refusal's reason, then piped to sudo: a secret by the command.
        ("tool", "Bash: sudo systemctl restart api"),
        (
            "error",
            "The user doesn't want to proceed with this tool use. The tool use was rejected (eg. if it was a file edit, the new_string was NOT written to the file). To tell you how to proceed, the user said:\n40917321",
        ),
        ("tool", "Bash: echo '40917321' | sudo -S systemctl restart api"),
        ("ok", ""),
        ("tool", "Bash: ./deploy.sh --env prod"),
        (
            "error",
            "The user doesn't want to proceed with this tool use. The tool use was rejected (eg. if it was a file edit, the new_string was NOT written to the file). To tell you how to proceed, the user said:\nuse make ship",
        ),
        ("user", "use make ship from now on"),
    ];
    write_transcript(env, &slug(app), "s-failed", app, "p", entries);
}

/// `--show` at line 3 of a session of `entries` (a failed call after a prompt and a call).
fn shown_at_line_3(entries: &[Entry]) -> String {
    let env = Env::new();
    let app = repo(&env, "app");
    write_transcript(&env, &slug(&app), "s-later", &app, "p", entries);
    digest_text(&env, &app, &["--show", "s-later:3"])
}

/// A later call whose status a pipe into a filter or an `|| true` set is no sign that it worked:
/// `--show` says so, where the skill reads a later call that worked as a failure's fix.
#[test]
fn show_says_when_a_later_calls_ok_is_its_pipes() {
    let shown = shown_at_line_3(&[
        ("user", "build it"),
        ("tool", "Bash: npm run build"),
        ("error", "Error: Cannot find module 'vite'"),
        ("tool", "Bash: npm run build 2>&1 | tail -5"),
        ("ok", "Error: Cannot find module 'vite'"),
        ("tool", "Bash: npm install && npm run build"),
        ("ok", "built in 2s"),
        ("user", "thanks"),
    ]);
    assert!(
        shown.contains(concat!(
            "after it, in the same turn:\n",
            "  Bash `npm run build 2>&1 | tail -5` → ok, by the status of its pipe's end or its `|| true`\n",
            "  Bash `npm install && npm run build` → ok\n",
        )),
        "{shown}"
    );
}

/// An edit after a failure may be its fix: `--show` says what it changed, over the lines that
/// differ, redacted.
#[test]
fn show_says_what_a_later_edit_changed() {
    let edit = serde_json::json!({"file_path": "/app/Dockerfile",
        "old_string": "FROM node:20\nRUN npm ci --only=production\nRUN npm run build",
        "new_string": "FROM node:20\nRUN npm ci\nRUN npm run build"})
    .to_string();
    let added = serde_json::json!({"file_path": "/app/.env", "old_string": "PORT=3000",
        "new_string": "PORT=3000\nAPI_TOKEN=Zq81mK3vT0pLw9"})
    .to_string();
    let (edit, added) = (format!("Edit: {edit}"), format!("Edit: {added}"));
    let shown = shown_at_line_3(&[
        ("user", "build the image"),
        ("tool", "Bash: docker build ."),
        ("error", "Exit code 127\nsh: vite: not found"),
        ("tool", &edit),
        ("ok", "edited"),
        ("tool", &added),
        ("ok", "edited"),
        ("tool", "Bash: docker build ."),
        ("ok", "built"),
        ("user", "thanks"),
    ]);
    assert!(
        shown.contains(concat!(
            "after it, in the same turn:\n",
            "  Edit `/app/Dockerfile` → ok, changed `RUN npm ci --only=production` to `RUN npm ci`\n",
            "  Edit `/app/.env` → ok, added `API_TOKEN=[REDACTED:env-secret]`\n",
            "  Bash `docker build .` → ok\n",
        )),
        "{shown}"
    );
    assert!(!shown.contains("Zq81mK3v"), "{shown}");
}

#[test]
fn show_at_a_failed_call_prints_it_and_every_later_call_of_its_turn() {
    let env = Env::new();
    let app = repo(&env, "app");
    write_failed_session(&env, &app);
    // A failure at the session's start, no prompt before it: the call that fixed it shows.
    let first = digest_text(&env, &app, &["--show", "s-failed:2"]);
    assert!(
        first.contains(concat!(
            "a failed call: Bash `./setup.sh`\n",
            "its error: (eval):1: permission denied: ./setup.sh\n",
            "after it, in the same turn:\n",
            "  Bash `chmod +x setup.sh && ./setup.sh` → ok\n",
        )),
        "{first}"
    );
    assert!(!first.contains("the prompt of its turn"), "{first}");
    assert!(
        first.contains("user, next (L5): deploy it, the token is [REDACTED:github-token]\n"),
        "{first}"
    );
    // One after a prompt: its turn's prompt named, each later call with its outcome, what the
    // assistant said, the user's next prompt; the prompt's secret nowhere.
    let shown = digest_text(&env, &app, &["--show", "s-failed:7"]);
    assert!(shown.starts_with("## session s-failed · L7"), "{shown}");
    assert!(
        shown.contains(concat!(
            "the prompt of its turn (L5): deploy it, the token is [REDACTED:github-token]\n",
            "a failed call: Bash `./deploy.sh --token [REDACTED:github-token]`\n",
            "its error: Error: connection refused\n",
            "after it, in the same turn:\n",
            "  Bash `docker compose up -d api` → ok\n",
            "  Bash `docker compose -f docker-compose.production.yml build --progress plain --pull api worker` → failed: Error: pull access denied for cache-base\n",
            "  Bash `…api worker` (without --pull) → ok\n",
            "  Bash `sudo systemctl restart api` → refused by the user: [REDACTED:sudo-password]\n",
            "  Bash `echo '[REDACTED:sudo-password]' | sudo -S systemctl restart api` → ok\n",
            "  Bash `./deploy.sh --env prod` → refused by the user: use make ship\n",
            "assistant, then: The server is not up; starting it first.\n",
            "user, next (L21): use make ship from now on\n",
        )),
        "{shown}"
    );
    assert!(!shown.contains("Zq8vLm2p"), "{shown}");
    assert!(!shown.contains("40917321"), "{shown}");
    // A refused call's own line: the user's reason.
    let refused = digest_text(&env, &app, &["--show", "s-failed:20"]);
    assert!(
        refused.contains(
            "a call the user refused: Bash `./deploy.sh --env prod`\ntheir reason: use make ship\nafter it, in the same turn: no other call\n"
        ),
        "{refused}"
    );
    // The prompt's own view names its turn's failed and refused calls, which the index places
    // at the prompt.
    let prompt_view = digest_text(&env, &app, &["--show", "s-failed:5"]);
    assert!(
        prompt_view.contains(
            "calls of its turn: failed at L7, L12; refused at L16, L20 (--show s-failed:LINE shows one)\n"
        ),
        "{prompt_view}"
    );
    // A call the store holds, as a signal's place or a sighting's, is named by its signal.
    let id = env.append(
        &serde_json::json!({"type": "failure", "session_id": "s-failed",
        "content": "Bash failed: Error: pull access denied for cache-base",
        "source": {"hook": "reflect", "line": 12, "origin": "tool"}}),
    );
    env.append(
        &serde_json::json!({"same_as": id, "session_id": "s-failed", "context": "User: use make ship",
        "source": {"hook": "reflect", "line": 20, "origin": "user"}}),
    );
    let prompt_view = digest_text(&env, &app, &["--show", "s-failed:5"]);
    assert!(
        prompt_view.contains(&format!(
            "calls of its turn: failed at L7, L12 ({id}); refused at L16, L20 ({id}) (--show"
        )),
        "{prompt_view}"
    );
    // Both are placed at the prompt of their turn, as capture places what it stores there.
    let out = env.cmd("memory-store").args(["get", &id]).output().unwrap();
    let stored: Value = serde_json::from_str(&stdout(&out)).unwrap();
    assert_eq!(stored["source"]["prompt_line"], json!(5), "{stored}");
    assert_eq!(
        stored["meta"]["sightings"][0]["prompt_line"],
        json!(5),
        "{stored}"
    );
    let failed_view = digest_text(&env, &app, &["--show", "s-failed:12"]);
    assert!(
        failed_view.contains(&format!("stored as {id}\na failed call: Bash")),
        "{failed_view}"
    );
    assert!(!digest_text(&env, &app, &["--show", "s-failed:7"]).contains("stored as"));
    // A result that is no failure is still no prompt.
    let out = digest(&env, &app, &["--show", "s-failed:14"]);
    assert_eq!(out.status.code(), Some(1), "{out:?}");
}

/// `--show SESSION`: every failed or refused call of the session, a line each with its turn's
/// prompt, redacted, a stored one named by its signal.
#[test]
fn show_of_a_session_lists_each_call_that_failed_or_was_refused() {
    let env = Env::new();
    let app = repo(&env, "app");
    write_failed_session(&env, &app);
    let id = env.append(
        &serde_json::json!({"type": "failure", "session_id": "s-failed",
        "content": "Bash failed: Error: pull access denied for cache-base",
        "source": {"hook": "reflect", "line": 12, "origin": "tool"}}),
    );
    let shown = digest_text(&env, &app, &["--show", "s-fail"]);
    let expected = format!(
        concat!(
            "## session s-failed · calls that failed or were refused: 3 failed, 2 refused\n",
            "L2 Bash `./setup.sh` → failed: (eval):1: permission denied: ./setup.sh\n",
            "L7 (turn of L5) Bash `./deploy.sh --token [REDACTED:github-token]` → failed: Error: connection refused\n",
            "L12 (turn of L5) Bash `docker compose -f docker-compose.production.yml build --progress plain --pull api worker` → failed: Error: pull access denied for cache-base (stored as {id})\n",
            "L16 (turn of L5) Bash `sudo systemctl restart api` → refused: [REDACTED:sudo-password]\n",
            "L20 (turn of L5) Bash `./deploy.sh --env prod` → refused: use make ship\n",
            "--show s-failed:LINE shows one with what followed it in its turn\n",
        ),
        id = id
    );
    assert_eq!(shown, expected);
    assert!(!shown.contains("40917321") && !shown.contains("Zq8vLm2p"));
    // A session with no failed call says so; one unknown is an error.
    let quiet: &[Entry] = &[("user", "hello"), ("tool", "Bash: ls"), ("ok", "a b")];
    write_transcript(&env, &slug(&app), "s-quiet", &app, "q", quiet);
    assert_eq!(
        digest_text(&env, &app, &["--show", "s-quiet"]),
        "## session s-quiet · calls that failed or were refused: none\n"
    );
    let out = digest(&env, &app, &["--show", "s-none"]);
    assert_eq!(out.status.code(), Some(1), "{out:?}");
    // A session of another project: the password a later command pipes to sudo is hidden at
    // the refusal before it too, though the project's own sessions never held it.
    let env = Env::new();
    let (app, other) = (repo(&env, "app"), repo(&env, "other"));
    write_failed_session(&env, &other);
    let shown = digest_text(&env, &app, &["--show", "s-failed"]);
    assert!(
        shown.contains("L16 (turn of L5) Bash `sudo systemctl restart api` → refused: [REDACTED:"),
        "{shown}"
    );
    assert!(!shown.contains("40917321"), "{shown}");
}

/// `--show SESSION`: calls of one turn that failed one after another with the same error (a
/// broken shell fails every command alike) take one line after the first, with their lines.
#[test]
fn show_of_a_session_folds_a_run_of_the_same_error() {
    let env = Env::new();
    let app = repo(&env, "app");
    let broken = "Exit code 1\nzsh:source:1: no such file or directory: /tmp/claude-shell-snapshot";
    let entries: &[Entry] = &[
        ("user", "install the test renderer"),
        ("tool", "Bash: npm install react-test-renderer"),
        ("error", broken),
        ("tool", "Bash: npm install react-test-renderer"),
        ("error", broken),
        ("tool", "Bash: pwd"),
        ("error", broken),
        ("tool", "Bash: ls"),
        ("error", broken),
        ("tool", "Bash: npm test"),
        ("error", "Exit code 1\nFAIL src/App.test.tsx"),
        ("user", "the shell is broken, restart it"),
        ("tool", "Bash: npm test"),
        ("error", broken),
    ];
    write_transcript(&env, &slug(&app), "s-shell", &app, "sh", entries);
    let listed = digest_text(&env, &app, &["--show", "s-shell"]);
    assert_eq!(
        listed,
        concat!(
            "## session s-shell · calls that failed or were refused: 6 failed, 0 refused\n",
            "L3 (turn of L1) Bash `npm install react-test-renderer` → failed: Exit code 1 zsh:source:1: no such file or directory: /tmp/claude-shell-snapshot\n",
            "  and L5, L7, L9 the same way (also Bash `pwd`, Bash `ls`)\n",
            "L11 (turn of L1) Bash `npm test` → failed: FAIL src/App.test.tsx\n",
            // Another turn starts its own line.
            "L14 (turn of L12) Bash `npm test` → failed: Exit code 1 zsh:source:1: no such file or directory: /tmp/claude-shell-snapshot\n",
            "--show s-shell:LINE shows one with what followed it in its turn\n",
        )
    );
}

/// A call the user stopped while it ran (Esc) is neither the tool's failure nor a refusal: the
/// views say so, with what it had printed, which may show why (it waited for input). A call
/// with no input is named by its tool.
#[test]
fn show_names_a_call_the_user_stopped_as_stopped() {
    let env = Env::new();
    let app = repo(&env, "app");
    let entries: &[Entry] = &[
        ("user", "set up the bot's launcher"),
        ("tool", "Bash: python start.py --help"),
        (
            "error",
            "[Request interrupted by user for tool use]\nEnter the bot token: ",
        ),
        ("tool", "Bash: npm run watch"),
        ("error", "[Request interrupted by user for tool use]"),
        ("tool", "Bash: python start.py --check"),
        ("error", "Exit code 2\nerror: unknown option --check"),
        ("user", "it waits for input, run it with --token-file"),
        // A call with no input, which the tool rejected: named by its tool.
        ("tool", "TodoWrite"),
        (
            "error",
            "<tool_use_error>InputValidationError: TodoWrite failed due to the following issue:\nThe required parameter `todos` is missing</tool_use_error>",
        ),
    ];
    write_transcript(&env, &slug(&app), "s-stopped", &app, "st", entries);
    let listed = digest_text(&env, &app, &["--show", "s-stopped"]);
    assert_eq!(
        listed,
        concat!(
            "## session s-stopped · calls that failed or were refused: 2 failed, 0 refused, 2 stopped by the user\n",
            "L3 (turn of L1) Bash `python start.py --help` → stopped by the user, it had printed: Enter the bot token:\n",
            "L5 (turn of L1) Bash `npm run watch` → stopped by the user\n",
            "L7 (turn of L1) Bash `python start.py --check` → failed: error: unknown option --check\n",
            "L10 (turn of L8) TodoWrite → failed: InputValidationError\n",
            "--show s-stoppe:LINE shows one with what followed it in its turn\n",
        )
    );
    let at = digest_text(&env, &app, &["--show", "s-stopped:3"]);
    assert!(
        at.contains(concat!(
            "a call the user stopped: Bash `python start.py --help`\n",
            "it had printed: Enter the bot token:\n",
            "after it, in the same turn:\n",
            "  Bash `npm run watch` → stopped by the user\n",
            "  Bash `python start.py --check` → failed: error: unknown option --check\n",
        )),
        "{at}"
    );
    assert!(!at.contains("interrupted"), "{at}");
    let rejected = digest_text(&env, &app, &["--show", "s-stopped:10"]);
    assert!(
        rejected.contains("a failed call: TodoWrite\n"),
        "{rejected}"
    );
    let quiet = digest_text(&env, &app, &["--show", "s-stopped:5"]);
    assert!(quiet.contains("it had printed: nothing\n"), "{quiet}");
    let prompt = digest_text(&env, &app, &["--show", "s-stopped:1"]);
    assert!(
        prompt.contains("calls of its turn: failed at L7; stopped at L3, L5 (--show"),
        "{prompt}"
    );
    // What the user typed next answers calls they stopped, in the digest and in `--show`.
    let next = digest_text(&env, &app, &["--show", "s-stopped:8"]);
    assert!(
        next.contains("end of the turn it answers: (then called Bash, stopped)\n"),
        "{next}"
    );
    let listed = digest_text(&env, &app, &[]);
    assert!(
        listed.contains("L8 [after: (then called Bash, stopped)] it waits for input"),
        "{listed}"
    );
}

/// `--show` at a call quotes the prompt of its turn as the digest lists it: a long paste is
/// marked, and the user's own words around it are what is quoted, never the paste.
#[test]
fn show_at_a_call_quotes_the_users_words_of_a_pasted_prompt() {
    let env = Env::new();
    let app = repo(&env, "app");
    let log: Vec<String> = (0..40)
        .map(|i| format!("2025-01-01 12:00:{i:02},516 - app.worker - INFO - worker {i} started"))
        .collect();
    let prompt = format!(
        "the deploy keeps failing, here is the log:\n{}\nplease run it in the background from now on",
        log.join("\n")
    );
    let entries: &[Entry] = &[
        ("user", &prompt),
        ("tool", "Bash: make deploy"),
        ("error", "Exit code 2"),
    ];
    write_transcript(&env, &slug(&app), "s-paste", &app, "pa", entries);
    let shown = digest_text(&env, &app, &["--show", "s-paste:3"]);
    assert!(
        shown.contains(
            "the prompt of its turn (L1, pasted): …please run it in the background from now on\n"
        ),
        "{shown}"
    );
    assert!(!shown.contains("app.worker"), "{shown}");
}

/// A transcript whose file name holds an escape sequence is no session `--show` reads, and the
/// error that says so names it visible: the terminal's controls as text.
#[cfg(unix)]
#[test]
fn show_names_a_session_without_the_escapes_its_file_name_holds() {
    let env = Env::new();
    let app = repo(&env, "app");
    let session = "s-\u{1b}]0;owned\u{7}x";
    let entries: &[Entry] = &[("user", "use make ship from now on")];
    write_transcript(&env, &slug(&app), session, &app, "esc", entries);
    let out = digest(&env, &app, &["--show", "s-:1"]);
    assert_eq!(out.status.code(), Some(1), "{out:?}");
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("no transcript of session s-"), "{err:?}");
    assert!(!err.contains('\u{1b}') && !err.contains('\u{7}'), "{err:?}");
}

#[test]
fn pasted_logs_rank_after_what_the_user_wrote() {
    let env = Env::new();
    let app = repo(&env, "app");
    let log: String = (0..40)
        .map(|i| {
            format!("2026-11-20T10:00:{i:02}Z ERROR [worker-{i}] /srv/app/jobs.py:41 exit=137\n")
        })
        .collect();
    // The user's own line is as long as a listed line gets: the excerpt shows it, not the log.
    let paste = format!("No, wrong again, you always break the worker when you restart it, never do that again: read the log below first and tell me which job died and why it keeps dying after each deploy.\n{log}");
    let entries: &[Entry] = &[
        ("user", &paste),
        ("assistant", "Looking at the log."),
        ("user", "add a dark mode toggle to the settings page"),
        ("assistant", "Added."),
    ];
    write_transcript(&env, &slug(&app), "s-paste", &app, "p", entries);
    // Without the budget both are listed, the paste's likelihood being the higher.
    let both = digest_jsonl(&env, &app, &[]);
    assert_eq!(both.len(), 2, "{both:?}");
    let p = |i: usize| both[i]["probability"].as_f64().unwrap();
    assert!(p(0) > p(1), "the paste reads as a correction: {both:?}");
    // A budget for one prompt keeps what the user wrote.
    let one = digest_jsonl(&env, &app, &["--budget-tokens", "70"]);
    let texts: Vec<&str> = one.iter().map(|p| p["text"].as_str().unwrap()).collect();
    assert_eq!(texts, ["add a dark mode toggle to the settings page"]);
}

#[test]
fn a_transcript_on_disk_twice_counts_once() {
    let env = Env::new();
    let app = repo(&env, "app");
    let first: &[Entry] = &[
        ("user", "use ruff, not flake8, for linting"),
        ("assistant", "Switched."),
        ("user", "the staging database is read-only"),
        ("assistant", "Noted."),
    ];
    write_transcript(&env, &slug(&app), "s-first", &app, "same", first);
    // A resumed session's file starts with the conversation it resumed, under the same uuids.
    let mut resumed = first.to_vec();
    resumed.push(("user", "and keep the changelog in CHANGES.md"));
    write_transcript(&env, &slug(&app), "s-resumed", &app, "same", &resumed);
    let text = digest_text(&env, &app, &[]);
    assert_eq!(text.matches("use ruff, not flake8").count(), 1, "{text}");
    assert_eq!(text.matches("staging database").count(), 1, "{text}");
    assert!(text.contains("keep the changelog"), "{text}");
    assert!(!text.contains("typed 2 times"), "{text}");
}

#[test]
fn day_one_reviews_the_projects_sessions_capture_never_recorded() {
    let env = Env::new();
    let app = repo(&env, "app");
    let nested = repo(&env, "app/vendor/lib");
    let sibling = repo(&env, "app-2");
    let lesson = "from now on run cargo fmt before every commit";
    let h1 = write_transcript(
        &env,
        &slug(&app),
        "h-root",
        &app,
        "r",
        &[("user", lesson), ("assistant", "Will do.")],
    );
    write_transcript(
        &env,
        &format!("{}-src", slug(&app)),
        "h-sub",
        &app.join("src"),
        "s",
        &[
            ("user", "the API runs on port 8080 here, not 3000"),
            ("assistant", "Fixed."),
        ],
    );
    write_transcript(
        &env,
        &slug(&nested),
        "h-nested",
        &nested,
        "v",
        &[
            ("user", "a prompt of the vendored repository"),
            ("assistant", "x"),
        ],
    );
    write_transcript(
        &env,
        &slug(&sibling),
        "h-sibling",
        &sibling,
        "b",
        &[
            ("user", "a prompt of the sibling project"),
            ("assistant", "x"),
        ],
    );
    // Claude Code 2.0 kept each sub-agent's run beside its session, as `agent-<id>.jsonl`:
    // not a session of the user's (nor one of the newest files that crowds one out).
    write_transcript(
        &env,
        &slug(&app),
        "agent-a5a10b2",
        &app,
        "a",
        &[
            ("user", "a prompt the main agent wrote"),
            ("assistant", "x"),
        ],
    );
    let before = fs::read(&h1).unwrap();
    let modified = fs::metadata(&h1).unwrap().modified().unwrap();

    let text = digest_text(&env, &app, &[]);
    assert!(
        text.contains("Also looked at 2 session(s) from before capture was on"),
        "{text}"
    );
    assert!(text.contains(lesson), "{text}");
    assert!(text.contains("port 8080"), "{text}");
    assert!(
        !text.contains("vendored") && !text.contains("sibling") && !text.contains("main agent"),
        "{text}"
    );
    // Read only.
    assert_eq!(fs::read(&h1).unwrap(), before);
    assert_eq!(fs::metadata(&h1).unwrap().modified().unwrap(), modified);
    // --since bounds it: sessions last active before then are not read.
    let old = std::time::SystemTime::now() - std::time::Duration::from_secs(10 * 86400);
    for t in fs::read_dir(env.config.join("projects").join(slug(&app))).unwrap() {
        fs::File::options()
            .write(true)
            .open(t.unwrap().path())
            .unwrap()
            .set_modified(old)
            .unwrap();
    }
    let recent = digest_text(&env, &app, &["--since", "7d"]);
    assert!(!recent.contains(lesson), "{recent}");
    assert!(recent.contains("port 8080"), "{recent}");

    // Marked, they are not listed again.
    let mark = text
        .lines()
        .find(|l| l.starts_with("memory-store digest --mark "))
        .unwrap_or_else(|| panic!("{text}"));
    let args: Vec<&str> = mark.split_whitespace().skip(2).collect();
    assert!(digest(&env, &app, &args).status.success());
    let again = digest_text(&env, &app, &[]);
    assert!(
        !again.contains(lesson) && !again.contains("8080"),
        "{again}"
    );

    // An opted-out project is not read.
    let env = Env::new();
    let app = repo(&env, "app");
    write_transcript(&env, &slug(&app), "h-off", &app, "o", &[("user", lesson)]);
    fs::create_dir_all(app.join(".claude")).unwrap();
    fs::write(app.join(".claude/reflect.off"), "").unwrap();
    let off = digest_text(&env, &app, &[]);
    assert!(!off.contains(lesson), "{off}");
}
