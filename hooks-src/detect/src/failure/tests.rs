use super::*;

#[test]
fn an_error_summary_reads_as_a_failures_content() {
    let failure = |error: &str| match assess(error) {
        Assessment::Error(line) | Assessment::Protocol(line) => line,
        other => panic!("{other:?}"),
    };
    for error in [
        "Exit code 1\nwarning: unused\nerror: linker `cc` not found",
        "Command timed out after 2m 0.0s\nserver listening on :3000",
        "<tool_use_error>File has not been read yet. Read it first before writing to it.</tool_use_error>",
        "\u{1b}[31mError: connection refused\u{1b}[0m",
    ] {
        assert_eq!(error_summary(error), failure(&strip_ansi(error)), "{error}");
    }
    // Output with no line that says what went wrong: its start, on one line.
    assert_eq!(error_summary("Exit code 1\n"), "Exit code 1");
    assert_eq!(
        error_summary("Exit code 3\n12 files\n"),
        "Exit code 3 12 files"
    );
}

#[test]
fn a_rerun_with_a_change_is_shown_from_the_change_with_what_it_dropped() {
    let start = "cd /home/dev/projects/shop && docker compose -f docker-compose.dev.yml up -d";
    let context = format!("Tried: {start} db cache search queue…\nError: Exit code 1");
    let shown = |resolution: &str| resolution_from_change(&context, resolution, 400);
    assert_eq!(
        shown(&format!("`{start} db cache queue`")).as_deref(),
        Some("`…queue` (without search)")
    );
    assert_eq!(
        shown(&format!("`{start} db cache search queue mail`")).as_deref(),
        Some("`…queue mail`"),
        "the call's quote ended in a cut word: nothing it held is named dropped"
    );
    let remote = r#"ssh -i ~/.ssh/id_deploy deploy@10.0.0.2 "ls -la /srv/releases/*.tar.gz"#;
    assert_eq!(
        resolution_from_change(
            &format!("Tried: {remote}\"\nError: Exit code 2"),
            &format!("`{remote} 2>&1\"`"),
            400
        )
        .as_deref(),
        Some("`…/srv/releases/*.tar.gz 2>&1\"`"),
        "a word kept inside the quotes is not dropped"
    );
    // A pipe into a missing program after each of several commands: named once.
    let probe =
        "TOKEN=x echo \"== all endpoints ==\" echo \"1. Users:\" curl -s localhost:3001/api/users";
    assert_eq!(
        resolution_from_change(
            &format!("Tried: {probe} | jq '.users' echo \"2. Orders:\" curl -s localhost:3001/api/orders | jq '.orders…\nError: x"),
            &format!("`{probe} echo \"2. Orders:\" curl -s localhost:3001/api/orders`"),
            400
        )
        .as_deref(),
        Some("`…echo \"2. Orders:\" curl -s localhost:3001/api/orders` (without jq '.users')")
    );
    // Cut to fit a listing, the command gives way, never what it left out.
    assert_eq!(
        resolution_from_change(
            &format!("Tried: {probe} | jq '.users' echo \"2. Orders:\" curl -s localhost:3001/api/orders | jq '.orders…\nError: x"),
            &format!("`{probe} echo \"2. Orders:\" curl -s localhost:3001/api/orders`"),
            48
        )
        .as_deref(),
        Some("`…echo \"2. Orders:\" curl…` (without jq '.users')")
    );
    // Another command, several commands, the same command: as stored.
    assert_eq!(shown("`pnpm install`"), None);
    assert_eq!(shown(&format!("`{start} db`, then the same command")), None);
    assert_eq!(shown(&format!("`{start} db` `ls`")), None);
    assert_eq!(resolution_from_change("Error: x", "`npm test`", 400), None);
    // A short command less its last words, or less a first step: whole, with the drop.
    let short = |tried: &str, rerun: &str| {
        resolution_from_change(&format!("Tried: {tried}\nError: x"), rerun, 400)
    };
    assert_eq!(
        short("npm run build -- --watch", "`npm run build`").as_deref(),
        Some("`npm run build` (without --watch)")
    );
    assert_eq!(
        short(
            "cd backend && node test-connection.js",
            "`node test-connection.js`"
        )
        .as_deref(),
        Some("`node test-connection.js` (without cd backend)")
    );
    assert_eq!(
        short("git diff; git status", "`git status`").as_deref(),
        Some("`git status` (without git diff)")
    );
    assert_eq!(
        short("rg TODO src --type rust --max-cou…", "`rg TODO src`").as_deref(),
        Some("`rg TODO src` (without --type rust)")
    );
    // A shorter word, another command ending the same way, a long drop: as stored.
    assert_eq!(short("npm run builds", "`npm run build`"), None);
    assert_eq!(short("make test", "`test`"), None);
    assert_eq!(short("cd a && b c d e && node x.js", "`node x.js`"), None);
}

/// A hook payload as JSON (the app's wire types read the real one).
struct Payload(Value);

fn parse_payload(json: &[u8]) -> serde_json::Result<Payload> {
    serde_json::from_slice(json).map(Payload)
}

/// [`super::failure_signal`] of the failure a payload reports.
fn failure_signal(p: &Payload) -> Option<Signal> {
    let text = |key: &str| p.0.get(key).and_then(Value::as_str);
    super::failure_signal(&ToolFailure {
        session_id: text("session_id"),
        cwd: text("cwd"),
        tool_name: text("tool_name"),
        tool_input: p.0.get("tool_input").filter(|v| !v.is_null()),
        tool_use_id: text("tool_use_id"),
        error: text("error"),
        is_interrupt: p.0.get("is_interrupt").and_then(Value::as_bool),
        agent_id: text("agent_id"),
    })
}

fn line(error: &str) -> Option<String> {
    error_line(error)
}

#[test]
fn a_fetch_failure_names_its_site_so_two_sites_are_two_signals() {
    let fetched = |url: &str, error: &str| {
        let p = Payload(serde_json::json!({"session_id": "s", "cwd": "/w",
            "tool_name": "WebFetch", "tool_input": {"url": url, "prompt": "read"},
            "error": error}));
        failure_signal(&p).unwrap()
    };
    let status = "Request failed with status code 404";
    let docs = fetched("https://docs.example.com/guide/install", status);
    assert_eq!(
        docs.content,
        format!("WebFetch failed: {status} (docs.example.com)")
    );
    let key = |s: &Signal| s.dedup_key();
    // Another page of the same site is the same failure; another site is not.
    assert_eq!(
        key(&docs),
        key(&fetched("https://docs.example.com/api?v=2", status))
    );
    assert_ne!(key(&docs), key(&fetched("https://github.com/o/r", status)));
    // A user part is not the host; an error that names the site already is not told twice.
    let user = fetched("https://me@git.example.org:8443/x", status);
    assert!(
        user.content.ends_with("(git.example.org:8443)"),
        "{}",
        user.content
    );
    let named = "Unable to verify if domain github.com is safe to fetch";
    let s = fetched("https://github.com/o/r", named);
    assert_eq!(s.content, format!("WebFetch failed: {named}"));
}

#[test]
fn bash_failure_quotes_the_error_and_keeps_the_command_in_the_context() {
    let p = parse_payload(br#"{"session_id":"s","cwd":"/w","tool_name":"Bash","tool_input":{"command":"npm test","description":"run"},"tool_use_id":"toolu_1","error":"Exit code 127\n\n> app@1.0.0 test\nsh: 1: jest: command not found\nmore","is_interrupt":false}"#).unwrap();
    let s = failure_signal(&p).unwrap();
    assert_eq!(s.content, "Bash failed: sh: 1: jest: command not found");
    assert!(s
        .context
        .starts_with("Tried: npm test\nError: Exit code 127"));
    assert_eq!(s.tool_use_id(), Some("toolu_1"));
    assert_eq!(s.project.as_deref(), Some("/w"));
    assert_eq!(s.source.hook.as_deref(), Some("PostToolUseFailure"));
}

#[test]
fn the_hook_keeps_only_environment_facts_the_miner_resolves_the_rest() {
    // Whether the next call fixed a missing script is known only later, to the miner.
    let p = parse_payload(br#"{"session_id":"s","tool_name":"Bash","tool_input":{"command":"npm test"},"tool_use_id":"t","error":"Exit code 1\nnpm ERR! missing script: test"}"#).unwrap();
    assert!(failure_signal(&p).is_none());
}

#[test]
fn noise_in_tool_errors_is_not_a_failure() {
    for error in [
        // Claude Code's permission prompt, and another hook's verdict.
        "This command requires approval",
        "Claude requested permissions to write to /w/a.md, but you haven't granted it yet.",
        "Permission to use Bash with command rm -rf build has been denied.",
        "BLOCKED: git push to main is not allowed by the repository policy",
        "PreToolUse:Bash hook error: [./guard.sh]: blocked: no force pushes",
    ] {
        assert!(
            matches!(assess(error), Assessment::Protocol(_)),
            "{error}: {:?}",
            assess(error)
        );
    }
    // A program that prints a file reports only in its own name.
    let shown = "Exit code 1\n    try:\n        run()\n    except ValueError:\n        pass\ncat: b.py: No such file or directory";
    assert_eq!(
        assess_call("Bash", "cat a.py b.py", shown),
        Assessment::Error("cat: b.py: No such file or directory".into())
    );
    let printed = "Exit code 1\nraise ValueError(\"bad\")\nValueError: bad input";
    assert_eq!(
        assess_call("Bash", "head -40 tool.py", printed),
        Assessment::Silent
    );
    assert!(matches!(
        assess_call("Bash", "python tool.py", printed),
        Assessment::Error(_)
    ));
    // A timeout is the timeout of that command, whatever it printed first.
    let timeout =
        "Command timed out after 2m 0.0s #0 building\nFAIL src/a.test.ts\nError: connect ECONNREFUSED";
    let Assessment::Error(line) = assess(timeout) else {
        panic!("{:?}", assess(timeout))
    };
    let sig = signal("Bash", &line, "npm run dev", timeout);
    assert_eq!(sig.content, "Bash timed out after 2m 0.0s: `npm run dev`");
    // Terminal colours are gone before anything is judged or kept.
    assert_eq!(
        strip_ansi("\u{1b}[31mError:\u{1b}[0m bad \u{1b}]8;;http://x\u{7}link\u{1b}]8;;\u{7}"),
        "Error: bad link"
    );
}

#[test]
fn the_error_line_is_the_one_that_says_what_went_wrong() {
    // The first line of output is a log line; the error comes later.
    assert_eq!(
        line("INFO Running migrations.\nINFO Applying 0003\nsqlite3.OperationalError: no such table: users\n").as_deref(),
        Some("sqlite3.OperationalError: no such table: users")
    );
    // A Python traceback: its frames are noise, the exception line says it.
    let traceback = "Traceback (most recent call last):\n  File \"x.py\", line 2, in <module>\n    import yaml\nModuleNotFoundError: No module named 'yaml'";
    assert_eq!(
        line(traceback).as_deref(),
        Some("ModuleNotFoundError: No module named 'yaml'")
    );
    // rustc: the first error, not its excerpt or the summary.
    let rustc = "   Compiling app v0.1.0\nwarning: unused variable: `x`\nerror[E0425]: cannot find value `y` in this scope\n --> src/main.rs:3:5\n  |\n3 |     y\n  |     ^ not found in this scope\nerror: could not compile `app`";
    assert_eq!(
        line(rustc).as_deref(),
        Some("error[E0425]: cannot find value `y` in this scope")
    );
    // git, npm, tsc, a log line at level ERROR, words of failure without a marker.
    assert_eq!(
        line("Exit code 128\nfatal: not a git repository (or any of the parent directories): .git")
            .as_deref(),
        Some("fatal: not a git repository (or any of the parent directories): .git")
    );
    assert_eq!(
        line("npm error code E404\nnpm error 404 Not Found - GET https://registry.npmjs.org/nope")
            .as_deref(),
        Some("npm error 404 Not Found - GET https://registry.npmjs.org/nope")
    );
    assert_eq!(
        line("src/a.ts(3,7): error TS2322: Type 'string' is not assignable to type 'number'.")
            .as_deref(),
        Some("src/a.ts(3,7): error TS2322: Type 'string' is not assignable to type 'number'.")
    );
    assert_eq!(
        line("2026-01-02 10:00:00 - app - INFO - starting\n2026-01-02 10:00:01 - app - ERROR - cannot bind port 8080").as_deref(),
        Some("2026-01-02 10:00:01 - app - ERROR - cannot bind port 8080")
    );
    assert_eq!(
        line("make: Entering directory '/w'\nmake: *** No rule to make target 'x'.  Stop.")
            .as_deref(),
        Some("make: *** No rule to make target 'x'. Stop.")
    );
    assert_eq!(
        line("Exit code 1\nls: cannot access 'build': No such file or directory").as_deref(),
        Some("ls: cannot access 'build': No such file or directory")
    );
    // A marker that says little is joined with what follows it.
    assert_eq!(
        line("ERROR:\n  Code: Unavailable\n  Message: connection refused").as_deref(),
        Some("ERROR: Code: Unavailable")
    );
    // An exception named alone, its message below; a source excerpt naming one is no error.
    assert_eq!(
        line("  migrate ...... 238ms FAIL\n   App\\Db\\QueryException \n  SQLSTATE[42S02]: Table 'users' doesn't exist\n  ➜ 841▕ $e = new QueryException::class;").as_deref(),
        Some("App\\Db\\QueryException SQLSTATE[42S02]: Table 'users' doesn't exist")
    );
    assert_eq!(line("  12 | throw new Error::from(x)\nplain"), None);
    // A level is a whole word in capitals: "WARNINGS" is none.
    assert_eq!(
        line("Loading WARNINGS.md failed").as_deref(),
        Some("Loading WARNINGS.md failed")
    );
    // An option the program does not know, then its usage: the option is the error, not a
    // word of the synopsis (`--contimeout`).
    assert_eq!(
        line("Exit code 1\nrsync: unrecognized option `--no-dereference'\nusage: rsync [-0468BCD] [-e program]\n\t[--compress-level=NUM] [--contimeout] [--copy-dest=dir]").as_deref(),
        Some("rsync: unrecognized option `--no-dereference'")
    );
    assert_eq!(
        line("Exit code 64\nusage: tool [-v] src dst\n\t[--ignore-errors] [--timeout=N]\ntool: missing destination operand").as_deref(),
        Some("tool: missing destination operand")
    );
    assert_eq!(
        line("[*] Connecting\n[-] Error: login failed for admin").as_deref(),
        Some("[-] Error: login failed for admin")
    );
    assert_eq!(
        line("Exit code 1\nchown: changing ownership of 'a': Operation not permitted").as_deref(),
        Some("chown: changing ownership of 'a': Operation not permitted")
    );
    // Node quotes the line of an inline script that failed, a caret under it.
    assert_eq!(
        line("Exit code 1\n[eval]:13\n    console.log('Error:', e.message);\n                                    ^\n\nSyntaxError: missing ) after argument list").as_deref(),
        Some("SyntaxError: missing ) after argument list")
    );
    // A warning that mentions a failure is not the error.
    assert_eq!(
        line(
            "warning: could not open directory 'x/': Permission denied\nfatal: adding files failed"
        )
        .as_deref(),
        Some("fatal: adding files failed")
    );
}

#[test]
fn an_error_prefix_is_kept_in_the_error_line() {
    assert_eq!(
        assess("Error: something broke"),
        Assessment::Error("Error: something broke".into())
    );
}

/// curl's progress meter is redrawn with carriage returns, and a message written after it
/// joins its last line.
#[test]
fn curls_progress_meter_is_no_part_of_the_error_line() {
    let meter = "  % Total    % Received % Xferd  Average Speed   Time    Time     Time  Current\n                                 Dload  Upload   Total   Spent    Left  Speed\n\r  0     0    0     0    0     0      0      0 --:--:-- --:--:-- --:--:--     0\r  0    18    0     0    0     0      0      0 --:--:--  0:00:01 --:--:--     0\n\r  0     0    0     0    0     0      0      0 --:--:-- --:--:-- --:--:--     0";
    assert_eq!(
        line(&format!(
            "Exit code 6\n{meter}curl: (6) Could not resolve host: api.example.com"
        ))
        .as_deref(),
        Some("curl: (6) Could not resolve host: api.example.com")
    );
    assert_eq!(
        line(&format!(
            "Exit code 1\n{meter}sudo: a terminal is required to read the password"
        ))
        .as_deref(),
        Some("sudo: a terminal is required to read the password")
    );
    // What a redrawn line shows last is what it says.
    assert_eq!(
        line("fetch 10%\rfetch 100%\rerror: checksum mismatch\r\n").as_deref(),
        Some("error: checksum mismatch")
    );
    // A line of numbers that is no meter stays whole.
    assert_eq!(
        line("error: 1 2 3 4 5 6 7 8 values left").as_deref(),
        Some("error: 1 2 3 4 5 6 7 8 values left")
    );
}

#[test]
fn output_that_says_nothing_went_wrong_has_no_error_line() {
    for quiet in [
        "Exit code 1",
        "Exit code 1\n=== usages ===",
        "On branch main\nnothing to commit, working tree clean",
        "Exit code 2\n",
        "Error",
        "",
    ] {
        assert_eq!(line(quiet), None, "{quiet:?}");
        assert_eq!(assess(quiet), Assessment::Silent, "{quiet:?}");
    }
}

#[test]
fn protocol_errors_are_known_wrapped_or_not() {
    for (error, kind) in [
        ("<tool_use_error>File has not been read yet. Read it first before writing to it.</tool_use_error>", "File has not been read yet"),
        ("File has not been read yet. Read it first before writing to it.", "File has not been read yet"),
        ("<tool_use_error>String to replace not found in file.\nString: fn main()</tool_use_error>", "String to replace not found in file"),
        ("Found 3 matches of the string to replace, but replace_all is false.", "Found N matches of the string to replace"),
        ("No changes to make: old_string and new_string are exactly the same.", "No changes to make"),
        ("File does not exist. Note: your current working directory is /w.", "File does not exist"),
        ("File content (47613 tokens) exceeds maximum allowed tokens (25000). Please use offset", "File content"),
        ("Error: Shell 3eef53 is not running, so cannot be killed (status: killed)", "Shell N is not running"),
        ("<tool_use_error>Blocked: sleep 25 followed by: docker logs app</tool_use_error>", "Blocked"),
    ] {
        assert_eq!(assess(error), Assessment::Protocol(kind.into()), "{error}");
    }
    assert_eq!(assess("Warmup"), Assessment::NotAFailure);
    assert_eq!(
        assess("[Request interrupted by user for tool use]"),
        Assessment::NotAFailure
    );
}

#[test]
fn failing_tests_are_work_in_progress_but_a_runner_that_cannot_start_is_not() {
    for failing in [
        "Exit code 1\n FAIL  src/App.test.tsx > App > renders\nExpected: 1\nReceived: 2",
        "Exit code 1\n===== FAILURES =====\nE       AssertionError: expected call not found.\nFAILED tests/test_a.py::test_b - AssertionError",
        "--- FAIL: TestParse (0.00s)\n    parse_test.go:12: got 1, want 2",
        "Failures:\n\n  1) User is valid\n     Failure/Error: expect(user).to be_valid",
        "thread 'tests::adds' panicked at src/lib.rs:9:5:\nassertion `left == right` failed\ntest result: FAILED. 3 passed; 1 failed",
        "  2 failing\n\n  1) adds:\n     AssertionError: expected 3 to equal 4",
    ] {
        assert_eq!(assess(failing), Assessment::FailingTests, "{failing}");
    }
    assert_eq!(
        assess("Exit code 4\nImportError while loading conftest '/w/tests/conftest.py'.\nE   ModuleNotFoundError: No module named 'httpx'"),
        Assessment::Error("ModuleNotFoundError: No module named 'httpx'".into())
    );
}

#[test]
fn a_refusal_reason_written_as_an_edit_error_reads_like_user_words() {
    let refusal = |tool: &str, error: &str| refusal_as_error(tool, error, &assess(error));
    let reason =
        "No need to touch the view models. Revert those and read the state from the service.";
    assert!(refusal("Edit", reason));
    assert!(!refusal("Bash", reason), "only an edit or a plan");
    for error in [
        "EACCES: permission denied, open '/etc/hosts'",
        "File has been unexpectedly modified. Read it again before attempting to write it.",
        "<tool_use_error>Settings validation failed after edit</tool_use_error>",
        "Error: something broke",
        "",
    ] {
        assert!(!refusal("Edit", error), "{error}");
    }
}

#[test]
fn protocol_errors_and_quiet_failures_store_nothing_from_the_hook() {
    for error in [
        "File has not been read yet. Read it first before writing to it.",
        "Exit code 1\nlrwxr-xr-x 1 u staff 87 Feb 10 a -> b",
    ] {
        let p = serde_json::json!({"tool_name": "Write", "tool_input": {"file_path": "/a"}, "error": error});
        let p = parse_payload(p.to_string().as_bytes()).unwrap();
        assert!(failure_signal(&p).is_none(), "{error}");
    }
}

#[test]
fn interrupts_and_toolless_payloads_are_not_failures() {
    assert!(failure_signal(
        &parse_payload(br#"{"tool_name":"Bash","is_interrupt":true,"error":"error: x failed"}"#)
            .unwrap()
    )
    .is_none());
    assert!(failure_signal(&parse_payload(br#"{"error":"error: x failed"}"#).unwrap()).is_none());
}

#[test]
fn unknown_tools_use_their_first_string_argument() {
    let input: Value = serde_json::json!({"server": "db", "query": "select 1"});
    assert_eq!(input_summary("mcp__db__run", &input), "db");
    assert_eq!(
        input_summary(
            "Grep",
            &serde_json::json!({"pattern": "fn main", "path": "src"})
        ),
        "fn main in src"
    );
}

#[test]
fn an_edit_is_shown_from_where_its_sides_differ() {
    let shared = "token_service: providers.Provider[TokenService] = providers.Factory(";
    let edit = |old: &str, new: &str| {
        edit_summary(
            "Edit",
            &serde_json::json!({"file_path": "C:\\work\\app\\di\\container.py", "old_string": old, "new_string": new}),
        )
    };
    assert_eq!(
        edit(
            &format!("{shared}\n    JwtService, secret=settings.old_secret,\n    ttl=3600)"),
            &format!("{shared}\n    JwtService, secret=settings.jwt_secret,\n    ttl=3600)"),
        ),
        "edited di/container.py: `…secret=settings.old_secret, ttl=3600)` → \
         `…secret=settings.jwt_secret, ttl=3600)`"
    );
    // A long shared end is left out too; short ones, and an edit with nothing shared, are whole.
    let tail = " and the rest of a long paragraph that did not change at all here";
    assert_eq!(
        edit(
            &format!("- LOG_DIR=/tmp/logs{tail}"),
            &format!("- LOG_DIR=/app/logs{tail}")
        ),
        "edited di/container.py: `- LOG_DIR=/tmp/logs…` → `- LOG_DIR=/app/logs…`"
    );
    assert_eq!(
        edit("print(\"🔧 Fixer\")", "print(\"Fixer\")"),
        "edited di/container.py: `print(\"🔧 Fixer\")` → `print(\"Fixer\")`"
    );
    assert_eq!(
        edit_summary(
            "MultiEdit",
            &serde_json::json!({"file_path": "/a/b/c.rs", "edits": [{"old_string": "x", "new_string": "y"}]})
        ),
        "edited b/c.rs: `x` → `y`"
    );
    // Each side is redacted before it is cut.
    let token = ["ghp_", "R4nd0mT0k3nV4lu3F0rT3st1ngXyZ123456"].concat();
    let shown = edit("TOKEN=", &format!("TOKEN={token}"));
    assert!(shown.contains("`TOKEN=[REDACTED:"), "{shown}");
    assert!(!shown.contains(&token[4..12]), "{shown}");
    assert_eq!(
        edit_summary(
            "NotebookEdit",
            &serde_json::json!({"notebook_path": "nb.ipynb", "new_source": "x"})
        ),
        "edited nb.ipynb"
    );
}
