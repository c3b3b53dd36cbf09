use super::lines::*;
use super::pasted::*;
use super::*;

fn by_cue(s: &str) -> f64 {
    if s.contains("always") {
        1.0
    } else {
        0.1
    }
}

#[test]
fn a_short_prompt_is_shown_whole() {
    assert_eq!(
        excerpt("Use pnpm,\nnot npm.", "", None, 200, by_cue).text,
        "Use pnpm, not npm."
    );
}

#[test]
fn a_short_prompt_all_pasted_is_shown_whole_and_marked() {
    let terminal = "dev@box:~$ pnpm build\nsh: 1: vite: not found\ndev@box:~$";
    let cut = excerpt(terminal, "", None, 200, by_cue);
    assert_eq!(
        cut.text,
        "dev@box:~$ pnpm build sh: 1: vite: not found dev@box:~$"
    );
    assert!(cut.pasted && !cut.paste_cut, "{cut:?}");
    // The user's words, or a line or two that read as code, are no paste to mark.
    for own in [
        "Use pnpm,\nnot npm.",
        "use this to test: {\"id\": 1,\n\"name\": \"a\"},",
    ] {
        assert!(!excerpt(own, "", None, 200, by_cue).pasted, "{own}");
    }
}

#[test]
fn a_long_prompt_shows_its_likeliest_sentence_with_marks() {
    let task = "Please add the export button to the report page and wire it to the API. ".repeat(5);
    let text = format!("{task}And always run the linter before you commit. {task}");
    let shown = excerpt(&text, "", None, 200, by_cue).text;
    assert!(
        shown.contains("And always run the linter before you commit."),
        "{shown}"
    );
    assert!(shown.starts_with('…') && shown.ends_with('…'), "{shown}");
    assert!(shown.chars().count() <= 200, "{shown}");
    // The first 200 characters would have missed it.
    assert!(!one_line(&text, 200).contains("always"));
}

#[test]
fn the_first_sentence_when_it_is_the_likeliest_and_a_long_one_is_cut() {
    let text = format!(
        "We always deploy from main. {}",
        "More words here. ".repeat(30)
    );
    let shown = excerpt(&text, "", None, 100, by_cue).text;
    assert!(shown.starts_with("We always deploy from main."), "{shown}");
    let long = format!("{} And always {}", "Intro. ".repeat(3), "word ".repeat(80));
    let shown = excerpt(&long, "", None, 100, by_cue).text;
    assert!(shown.starts_with("…And always"), "{shown}");
    assert!(
        shown.ends_with('…') && shown.chars().count() <= 100,
        "{shown}"
    );
}

#[test]
fn a_secret_is_redacted_before_the_cut() {
    let key = format!("sk-ant-api03-{}", "Zx9Cv8Bn7Mq6Lw5Ke4Jr3Hs2Gd1Fa0PoIuYt");
    let text = format!(
        "{} Always use the key {key} for staging.",
        "Filler sentence here. ".repeat(20)
    );
    let text = text.replace("Always", "always");
    let shown = excerpt(&text, "", None, 120, by_cue).text;
    assert!(shown.contains("[REDACTED:"), "{shown}");
    assert!(!shown.contains("Zx9Cv8Bn"), "{shown}");
}

#[test]
fn sentences_end_at_lines_and_stops() {
    let lines = ["One. Two!", "three? v1.2 stays 四。五"];
    let (s, more) = pieces(&lines, &[false, false], "");
    assert_eq!(
        s.into_iter().flatten().collect::<Vec<_>>(),
        ["One.", "Two!", "three?", "v1.2 stays 四。", "五"]
    );
    assert!(!more);
}

/// A stack trace of the fixture's own making.
fn trace() -> String {
    let mut t = String::from("Error: Cannot find module 'left-pad'\nRequire stack:\n");
    for k in 0..12 {
        t.push_str(&format!(
            "    at Module._load (/home/dev/app/node_modules/loader{k}.js:{}:17)\n",
            100 + k
        ));
    }
    t
}

/// The likelihood of a lesson by its words, as the classifier would weigh a trace's.
fn by_lesson_words(s: &str) -> f64 {
    let lower = s.to_lowercase();
    ["error", "cannot", "always", "must", "not"]
        .iter()
        .filter(|w| lower.contains(*w))
        .count() as f64
}

#[test]
fn the_users_sentence_is_chosen_over_a_pasted_trace() {
    let own = "Why does the build fail again? I told you we never vendor node modules here.";
    for text in [
        format!("{}\n{own}", trace()),
        format!("{own}\n\n{}", trace()),
    ] {
        let shown = excerpt(&text, "", None, 200, by_lesson_words);
        assert!(
            shown.text.contains("we never vendor node modules"),
            "{shown:?}"
        );
        assert!(!shown.text.contains("Module._load"), "{shown:?}");
        // A sentence of the user's and a long trace: theirs is shown, the paste is marked.
        assert!(shown.pasted, "{shown:?}");
    }
}

#[test]
fn a_pasted_file_fenced_or_not_hides_no_sentence_of_the_users() {
    let file = "import os\nfrom typing import List\n\nPROMPTS = {\n    \"system\": \"You must always answer in JSON.\",\n    \"user\": \"Summarise the error log.\",\n}\n\ndef build(names: List[str]) -> dict:\n    # Always cache the result.\n    return {n: PROMPTS[n] for n in names}\n";
    let own = "I am always read only in this repo, so never write files.";
    let cues = |s: &str| if s.contains("always") { 1.0 } else { 0.1 };
    for text in [
        format!("{own}\n```python\n{file}```\nthanks"),
        format!("{file}\n{own}"),
        format!("here it is:\n{file}{}\n\n{own}", file.repeat(3)),
    ] {
        let shown = excerpt(&text, "", None, 120, cues);
        assert!(shown.text.contains(own), "{text}\n=> {shown:?}");
    }
}

#[test]
fn a_quoted_answer_and_a_log_are_pastes() {
    let answer = "> You should always pin the versions in the lockfile.\n".repeat(6);
    let log = "2026-11-20T10:00:01Z ERROR [worker-3] job failed: must retry\n".repeat(6);
    let own = "Compare the two and tell me which one is right.";
    for paste in [answer, log] {
        let shown = excerpt(&format!("{paste}{own}"), "", None, 100, by_lesson_words);
        assert_eq!(shown.text, format!("…{own}"));
    }
}

#[test]
fn a_prompt_that_is_only_a_paste_is_marked() {
    let shown = excerpt(&trace(), "", None, 200, by_lesson_words);
    assert!(shown.pasted, "{shown:?}");
    assert!(
        shown.text.starts_with("Error: Cannot find module"),
        "{shown:?}"
    );
    // A short one is shown whole, unmarked: the reader sees all of it.
    let short = excerpt(
        "at Module._load (/x.js:1:2)",
        "",
        None,
        200,
        by_lesson_words,
    );
    assert!(!short.pasted);
}

#[test]
fn lines_of_words_are_the_users_and_code_logs_traces_are_not() {
    for line in [
        "at least use pnpm here",
        "no, the API runs on port 8080",
        "the file src/app/main.rs is generated, do not edit it",
        "use `pnpm install --frozen-lockfile` in CI",
        "[Image #1] the header overlaps the menu",
    ] {
        assert_eq!(pasted_lines(&[line], ""), [false], "{line}");
    }
    for line in [
        "at Object.<anonymous> (/srv/app/index.js:3:9)",
        "  File \"/srv/app/main.py\", line 4, in <module>",
        "[ERROR] connection refused",
        "2026-11-20 10:00:01,120 retrying",
        "const total = items.reduce((a, b) => a + b, 0);",
        "if (!user) {",
        "| name | value |",
        "    title: 'Which one is right?',",
        "TypeError: x.map is not a function",
        "error[E0308]: mismatched types",
    ] {
        assert_eq!(pasted_lines(&[line], ""), [true], "{line}");
    }
    // Three indented lines are code; a comment between code lines is code too.
    let lines = ["see:", "    a = 1", "    b = 2", "    c = a + b", "", "ok?"];
    assert_eq!(
        pasted_lines(&lines, ""),
        [false, true, true, true, false, false]
    );
    let lines = ["x = load();", "// always load first", "y = x.run();"];
    assert_eq!(pasted_lines(&lines, ""), [true, true, true]);
}

#[test]
fn a_lists_numbers_stay_with_their_items() {
    let text = format!(
        "{}\n1. Use tabs.\n2. Then always run the linter first.",
        "Some background on the task here. ".repeat(8)
    );
    let shown = excerpt(&text, "", None, 100, by_cue).text;
    assert!(
        shown.contains("2. Then always run the linter first."),
        "{shown}"
    );
}

/// A project's rules file as an IDE attaches it, in words a lesson is made of.
const RULES_FILE: &str = "# Team rules\n\n- Never push to the release branch by hand.\n- Always prefer small commits over large ones.\n- You must never skip the review, not even for typos.\n";

#[test]
fn an_attached_file_is_a_paste_whatever_its_lines_say() {
    let own = "Could you tidy the intro of this doc so it reads better for newcomers?";
    for text in [
            format!("{own}\n<context ref=\"file:///home/dev/site/RULES.md\">\n{RULES_FILE}</context>"),
            format!("{own}\n<attached_files>\n    <file>\n        <text>{RULES_FILE}</text>\n        <type>text</type>\n    </file>\n</attached_files>"),
            format!("<ide_selection>The user selected these lines:\n{RULES_FILE}</ide_selection>\n{own}"),
        ] {
            let shown = excerpt(&text, "", None, 100, by_lesson_words);
            assert!(shown.text.contains(own), "{text}\n=> {shown:?}");
            assert!(!shown.text.contains("never"), "{shown:?}");
        }
    // The block is pasted line by line, its tags too; an unclosed one runs to the end.
    let lines = [
        "why?",
        "<context ref=\"a.md\">",
        "- Always do it.",
        "</context>",
        "ok",
    ];
    assert_eq!(pasted_lines(&lines, ""), [false, true, true, true, false]);
    let lines = ["<attached_files>", "- Always do it.", "- Never stop."];
    assert_eq!(pasted_lines(&lines, ""), [true, true, true]);
    // A tag a user types for their own words is no attachment.
    let lines = ["<contextual>", "- Always do it.", "</contextual>"];
    assert!(!pasted_lines(&lines, "")[1]);
}

#[test]
fn an_attached_file_cut_in_its_middle_is_still_a_paste() {
    let own = "please only fix the typos in the intro and keep the rest";
    let text = format!(
        "<context ref=\"file:///home/dev/site/RULES.md\">\n{}</context>\n{own}",
        RULES_FILE.repeat(60)
    );
    let kept = head_and_tail(&text);
    assert!(!kept[kept.find(GAP).unwrap()..].contains("<context"));
    let shown = excerpt(&kept, "", None, 100, by_lesson_words);
    assert_eq!(shown.text, format!("…{own}"), "{shown:?}");
}

/// An answer of the assistant's, as it wrote it (Markdown, long lines).
const ANSWER: &str = "I checked the deploy script.\n\n**The cause:** the cache key never includes the lockfile, so a stale cache is always restored after a dependency bump.\n- You must clear the cache by hand until the key is fixed.\n\nShall I change the key?";

#[test]
fn the_assistants_answer_quoted_back_is_a_paste() {
    // Copied from a terminal: indented, Markdown's marks gone, a long line wrapped.
    let text = "can you double check this before I merge?\n\n  The cause: the cache key never includes the lockfile, so a stale\n  cache is always restored after a dependency bump.\n  - You must clear the cache by hand until the key is\n  fixed.\n";
    let lines: Vec<&str> = text.lines().collect();
    assert_eq!(
        pasted_lines(&lines, ANSWER),
        [false, false, true, true, true, true]
    );
    let shown = excerpt(text, ANSWER, None, 100, by_lesson_words);
    assert_eq!(
        shown.text, "can you double check this before I merge?…",
        "{shown:?}"
    );
    // Without the answer, its lines read as the user's.
    let shown = excerpt(text, "", None, 100, by_lesson_words);
    assert!(shown.text.starts_with("…cache is always"), "{shown:?}");
    // A sentence of the answer after the user's words on their line is no more theirs.
    let text = format!(
            "can you check this before I merge? You must clear the cache by hand until the key is fixed.\n{}",
            "  and more of it here, the way it was pasted from the terminal window\n".repeat(2)
        );
    let shown = excerpt(&text, ANSWER, None, 60, by_lesson_words);
    assert_eq!(
        shown.text, "can you check this before I merge?…",
        "{shown:?}"
    );
    // A short line is the user's even when the assistant said it, and so is a line of
    // their own.
    let lines = [
        "Shall I change the key?",
        "no, the cache key must never hold the date",
    ];
    assert_eq!(pasted_lines(&lines, ANSWER), [false, false]);
    // Beside a quote, a short line that is a whole line of the answer is quoted too.
    let lines = [
        "I checked the deploy script.",
        "",
        "- You must clear the cache by hand until the key is fixed.",
        "",
        "Shall I change the key?",
        "why by hand?",
    ];
    assert_eq!(
        pasted_lines(&lines, ANSWER),
        [true, false, true, false, true, false]
    );
}

/// A program's log of the fixture's own making: tags, then a timestamp.
fn tagged_log() -> String {
    (0..20)
        .map(|k| {
            format!("[W 2031-02-03 11:22:{k:02},500] step {k} must not retry: error in worker\n")
        })
        .collect()
}

#[test]
fn words_typed_before_a_log_on_its_first_line_are_the_users() {
    let text = format!("is this too noisy? ⠼ Loading model...{}", tagged_log());
    let lines = split_lines(&text);
    assert_eq!(lines[0], "is this too noisy? ");
    assert!(lines[1].starts_with("⠼ Loading model...[W 2031"));
    assert_eq!(pasted_lines(&lines, "")[..2], [false, true]);
    let shown = excerpt(&text, "", None, 120, by_lesson_words);
    assert_eq!(shown.text, "is this too noisy?…", "{shown:?}");
    // A few words of the user's around a long paste: the paste is marked.
    assert!(shown.pasted, "{shown:?}");
    let text = format!(
        "is this too noisy? {}",
        tagged_log().replace("[W ", "<Srv> 7 - ")
    );
    let shown = excerpt(&text, "", None, 120, by_lesson_words);
    assert_eq!(shown.text, "is this too noisy?…", "{shown:?}");
}

#[test]
fn a_terminal_session_pasted_after_the_users_words_is_a_paste() {
    let own =
        "here is what it prints. i installed it with the package manager and want to keep it so";
    let session = "Last login: Mon Mar 3 08:01:02 on ttys004\n$ ~  tool check\n\n Checks\n └ Version: 4.1.0\n └ Path: /usr/local/bin/tool\n Warning: the install method is not known\n Hint: must reinstall to fix it\n\n Press Enter to continue…\n$ ~  which tool\n/usr/local/bin/tool\nNode.js v21.4.0\n$ ~";
    let text = format!("{own}\n\n{session}");
    let shown = excerpt(&text, "", None, 200, by_lesson_words);
    assert_eq!(shown.text, format!("{own}…"), "{shown:?}");
    let lines: Vec<&str> = session.lines().collect();
    let pasted = pasted_lines(&lines, "");
    let own_lines: Vec<&str> = lines
        .iter()
        .zip(&pasted)
        .filter(|(l, p)| !**p && !l.trim().is_empty())
        .map(|(l, _)| *l)
        .collect();
    assert!(own_lines.is_empty(), "{own_lines:?}");
    for line in [
        "- /home/someone/work/company/project/packages/mail/dist/templates/parts/Layout.js",
        "Node.js v21.4.0",
        "    driver: local",
        "max_pool_size: 12",
        "db-main-1  | 2031-02-03 10:00:00.120 UTC [7] LOG:  ready",
        "db-main-1  | ",
        "WARN[0000] The \"API_URL\" variable is not set.",
        "node:internal/modules/loader:1423",
        "dev@box:~/app$ make test",
        "box7:~/src/app> make build",
        "dev@laptop app % npm run dev",
        "(venv) dev@box:~/app$ pytest -x",
        "(base) dev@laptop app % python3 main.py",
        "PS C:\\Users\\someone> wsl --list",
        "   ╰─────╯",
    ] {
        assert_eq!(pasted_lines(&[line], ""), [true], "{line}");
    }
}

#[test]
fn each_shells_prompt_is_known_and_words_after_an_empty_one_are_not() {
    for line in [
        "$ npm test",
        "dev@box:~/app$ make",
        "[dev@box app]$ exit",
        "box7:~/src/app> make build",
        "box7:/srv> ls",
        "dev@laptop app % npm run dev",
        "(venv) dev@box:~/app$ pytest -x",
        "(base) dev@laptop app % python3 main.py",
        "PS C:\\Users\\someone> wsl --list",
        "PS D:\\work\\my app> dir",
    ] {
        assert!(shell_prompt(line), "{line}");
    }
    for line in [
        "box7:~/app> I also do not see the rules in the directory",
        "PS C:\\app> I also do not see the rules in the directory",
        "PS the rules are in C:\\app now",
        "(optional) use pnpm here",
        "todo: ~/notes> is where the notes go",
        "ratio:3> is not a prompt",
        "mail me@example.com % of the time",
    ] {
        assert!(!shell_prompt(line), "{line}");
    }
}

#[test]
fn a_tcsh_or_powershell_session_pasted_after_the_users_words_is_a_paste() {
    let own = "am I in the right groups? the vm should run as my own account, never as root";
    for session in [
            "box7:~/src/app> id\nuid=1000(dev) gid=1000(dev) groups=1000(dev),27(sudo)\nbox7:~/src/app> make vm\nCreating the vm now, this may take a while\nbox7:~/src/app>",
            "PS C:\\Users\\dev> whoami\nlaptop\\dev\nPS C:\\Users\\dev> wsl --status\nDefault Distribution: Debian\nPS C:\\Users\\dev>",
        ] {
            let lines: Vec<&str> = session.lines().collect();
            assert!(pasted_lines(&lines, "").iter().all(|&p| p), "{session}");
            let text = format!("{own}\n{session}");
            let shown = excerpt(&text, "", None, 120, by_lesson_words);
            assert!(shown.text.starts_with("am I in the right groups?"), "{shown:?}");
            assert!(!shown.text.contains("uid=") && !shown.text.contains("Distribution"), "{shown:?}");
        }
}

#[test]
fn the_output_after_a_last_shell_prompt_is_paste_up_to_the_users_words() {
    // The prompt copied onto the end of the user's question, its output below.
    let text = "am I in the right groups? box7:~/src/app> id\nuid=1000(dev) gid=1000(dev) groups=1000(dev),27(sudo),983(docker)";
    let shown = excerpt(text, "", None, 60, by_lesson_words);
    assert!(
        shown.text.starts_with("am I in the right groups?"),
        "{shown:?}"
    );
    assert!(!shown.text.contains("uid="), "{shown:?}");
    assert_eq!(
        split_lines("am I in the right groups? box7:~/src/app> id"),
        ["am I in the right groups? ", "box7:~/src/app> id"]
    );
    // Output runs to a blank line, or to a line the user may have typed: one that speaks as
    // them, or in a language that rule does not read.
    let lines = [
        "dev@box:~/app$ make test",
        "FAIL src/parser.test.ts",
        "Tests: 1 failed, 12 passed",
        "please always run the tests with pnpm here",
        "dev@box:~/app$ make lint",
        "lint: 3 warnings",
        "我用的是 pnpm，不要用 npm",
    ];
    let pasted = pasted_lines(&lines, "");
    assert_eq!(
        pasted,
        [true, true, true, true, true, true, false],
        "{lines:?}"
    );
    let lines = [
        "$ make lint",
        "lint: 3 warnings",
        "",
        "use pnpm in this repo",
    ];
    assert_eq!(pasted_lines(&lines, ""), [true, true, false, false]);
    // A bare `$` inside a sentence is no prompt.
    assert_eq!(prompt_inside("it costs $ 5 a month"), None);
}

#[test]
fn a_box_copied_beside_the_users_words_is_paste_their_own_framed_prompt_is_not() {
    let pad = |t: &str| format!("│   {t:<90}│");
    let boxed = [
        pad("git commit -m \"fix: resolve the missing attribute error in the adapter\""),
        pad(""),
        pad("- Change the adapter to return the raw dictionary instead of the model"),
        pad("- Fix the test to use the complete data object with every field"),
    ]
    .join("\n");
    let own = "Drop the signature from every commit, the message is only what changed";
    let text = format!("@agent-python-pro\n{own}\n{boxed}");
    let lines: Vec<&str> = text.lines().collect();
    let pasted = pasted_lines(&lines, "");
    assert_eq!(pasted, [false, false, true, true, true, true], "{text}");
    let shown = excerpt(&text, "", None, 120, by_lesson_words);
    assert!(shown.text.contains(own), "{shown:?}");
    assert!(!shown.text.contains("adapter"), "{shown:?}");
    // The user's own prompt copied from Claude Code's input box, the copy begun inside it.
    let copied = format!(
        "{}  │\n{}\n{}",
        "I need test data I can count on, it must keep working after the refactor",
        pad("so always build it from the runbook, never by hand"),
        pad("and keep it in tests/data"),
    );
    let lines: Vec<&str> = copied.lines().collect();
    assert_eq!(pasted_lines(&lines, ""), [false; 3], "{copied}");
}

#[test]
fn the_users_own_lines_stay_theirs_framed_listed_or_after_a_prompt() {
    for line in [
        "│  I need a reference I can count on, it must keep working after the refactor  │",
        "dev@box:~/app$ I also do not see the rules in the directory",
        "box7:~/app> I also do not see the rules in the directory",
        "PS C:\\app> I also do not see the rules in the directory",
        "(optional) use pnpm here, not npm, in every package",
        "todo: ~/notes> is where the notes go",
        "this area is new to me, so I need a reference I can count on │",
        "1. Use tabs, not spaces.",
        "Note: use pnpm here, not npm",
        "- keep it short: two lines at most",
        "  need:",
        "docs\\setup.md\\",
        "the date 2031-02-03 is when the cert expires",
        "see src/app/main.rs for the entry point",
        "% of users who opt in must stay above half",
    ] {
        assert_eq!(pasted_lines(&[line], ""), [false], "{line}");
        assert_eq!(split_lines(line), [line], "{line}");
    }
    // Lines of the user's own prose around a short log are not marked a paste.
    let text = format!(
        "{}\n{}",
        "We never retry a failed step here, we stop and page someone. ".repeat(4),
        tagged_log().lines().next().unwrap()
    );
    assert!(!excerpt(&text, "", None, 120, by_lesson_words).pasted);
}

/// Whether each of `lines`, alone, is taken for a paste.
fn each_pasted(lines: &[&str]) {
    for line in lines {
        assert_eq!(pasted_lines(&[line], ""), [true], "{line}");
    }
}

#[test]
fn a_package_managers_log_lines_are_paste() {
    each_pasted(&[
        "npm warn deprecated left-pad@1.3.0: use String.prototype.padStart()",
        "npm notice New minor version of npm available! 11.0.0 -> 11.2.0",
        "npm ERR! code ERESOLVE",
        "pnpm WARN 2 deprecated subdependencies found",
        "yarn warn The lockfile would have been modified by this install",
    ]);
}

#[test]
fn a_login_banners_update_notice_is_paste() {
    each_pasted(&[
        "12 updates can be applied immediately.",
        "3 of these updates are standard security updates.",
        "To see these additional updates run: apt list --upgradable",
        "Expanded Security Maintenance for Applications is not enabled.",
        " * Documentation:  https://help.example.org",
        "*** System restart required ***",
    ]);
}

#[test]
fn systemds_status_fields_are_paste() {
    each_pasted(&[
        "     Loaded: loaded (/lib/systemd/system/exampled.service; enabled; preset: enabled)",
        "     Active: active (running) since Tue 2031-02-04 09:00:00 UTC; 2h 5min ago",
        "     Active: failed (Result: exit-code) since Tue 2031-02-04 09:00:00 UTC; 3s ago",
        "   Main PID: 4242 (exampled)",
        "      Tasks: 7 (limit: 9313)",
        "     Memory: 12.5M",
        "     CGroup: /system.slice/exampled.service",
        "       Docs: man:exampled(8)",
    ]);
}

#[test]
fn a_status_glyphs_line_and_claude_codes_steps_are_paste() {
    each_pasted(&[
        "● exampled.service - Example queue daemon",
        "● Update(src/lib/store.ts)",
        "⏺ Done. The store now keeps its cache between runs.",
        "  ⎿  Listed 12 paths",
        "  Bash(make check)",
    ]);
    // Words typed before a step copied onto the same line are the user's.
    let lines = split_lines("try it once more ● Running the checks");
    assert_eq!(lines, ["try it once more ", "● Running the checks"]);
    assert_eq!(pasted_lines(&lines, ""), [false, true]);
}

#[test]
fn syslog_and_journal_lines_are_paste() {
    each_pasted(&[
        "Feb 04 09:00:01 box exampled[4242]: listening on port 8080",
        "Feb  4 09:00:02 box systemd[1]: Started exampled.service - Example queue daemon.",
    ]);
}

#[test]
fn a_compilers_linters_and_consoles_located_lines_are_paste() {
    each_pasted(&[
        "src/lib/store.ts:41:7 - error TS2339: Property 'size' does not exist on type 'Cache'.",
        "pkg/run/main.go:12: undefined: helper",
        "Store.cs(41,7): error CS1002: ; expected",
        "  41:7  error  'size' is assigned a value but never used  no-unused-vars",
        "store-9F2A.js:41 Store ready, 3 items loaded",
        "store.js:88 [Store] cache miss for user 7",
    ]);
}

#[test]
fn a_browser_consoles_stack_frames_are_paste() {
    each_pasted(&[
        "fetchAll @ bundle-3F9A.js:120",
        "(anonymous) @ store.js:41",
        "invoke @ chunk-7Q.js?v=5d1e:2290",
    ]);
}

#[test]
fn a_logs_bracketed_level_in_any_case_or_unix_time_is_paste() {
    each_pasted(&[
        "[Warning] [Auth]: init() ran twice, the second call is ignored.",
        "[Log] Store ready, 3 items",
        "[2034567890.125] Shortcut triggered: next item (y)",
        // A copy that began one character late, past the bracket.
        "2034567890.125] Queue worker started with 3 jobs waiting",
        "[2034567890.125] worker.poll() returned no job",
    ]);
    // Typed on the user's own line, the log is split from their words.
    let lines = split_lines("it fails again. [2034567890.125] Loading store");
    assert_eq!(
        lines,
        ["it fails again. ", "[2034567890.125] Loading store"]
    );
    assert_eq!(pasted_lines(&lines, ""), [false, true]);
}

#[test]
fn program_output_already_known_stays_paste() {
    // A framework's log, a terminal's bracketed prompt, a trace's frames.
    each_pasted(&[
            "[Nest] 4242  - 02/04/2031, 9:00:01 AM     LOG [RoutesResolver] ItemsController {/api/items}:",
            "[dev@box ~]$ exit",
            "[root@box etc]# ls -l",
            "    at loadItems (/srv/app/src/items.js:10:5)",
            "  File \"/srv/app/items.py\", line 3, in load",
        ]);
}

#[test]
fn the_users_own_words_like_program_outputs_stay_theirs() {
    for line in [
        "the service is active now, update the banner",
        "Active: yes, keep the old banner until Monday",
        "Status: done, ship it",
        "Memory: the cache must stay small",
        "2 updates are pending, apply them after the release",
        "npm install fails on my machine, why?",
        "app.py:42 should log the error instead of printing it",
        "app.py:42 Why is this still null?",
        "Feb 04 09:00:00 is when the certificate expires, renew it",
        "the status dot ● is red on the dashboard",
        "[dev@box] is the account to use here",
        "ping me @ standup about store.js:41",
        "[Warning] is what the banner should say, not [Error]",
        "[1234] is the ticket for this",
        "the level [Warning] is fine for this one",
    ] {
        assert_eq!(pasted_lines(&[line], ""), [false], "{line}");
        assert_eq!(split_lines(line), [line], "{line}");
    }
    // A systemd status pasted after the user's question: theirs is shown, the paste marked.
    let status = "● exampled.service - Example queue daemon\n     Loaded: loaded (/lib/systemd/system/exampled.service; enabled; preset: enabled)\n     Active: failed (Result: exit-code) since Tue 2031-02-04 09:00:00 UTC; 3s ago\n   Main PID: 4242 (code=exited, status=1/FAILURE)\nFeb 04 09:00:01 box exampled[4242]: must not start: the queue is not reachable\nFeb 04 09:00:01 box systemd[1]: exampled.service: giving up after 5 tries.\n";
    let own = "why does it not start after the update?";
    let shown = excerpt(
        &format!("{own}\n{}", status.repeat(3)),
        "",
        None,
        120,
        by_lesson_words,
    );
    assert_eq!(shown.text, format!("{own}…"), "{shown:?}");
    assert!(shown.pasted, "{shown:?}");
}

/// The user's own question, then a chat thread as `head` and `tail` each message's lines:
/// each kind of chat's export, the lesson words all in the other people's messages.
fn chat_thread(head: impl Fn(&str, &str) -> String) -> String {
    let mut t = String::from(
            "The staging login keeps failing on CI. Here is what the platform team said about it, make a plan from it:\n\n",
        );
    for (name, said) in [
            ("Dana Whitfield", "Has anyone got the staging login to work without a manual token?\nEvery run of ours stops at the login page."),
            ("Omar Reyes", "You must never commit the token. Put it in the runner's secrets and always read it in the setup step."),
            ("Dana Whitfield", "That cannot work for forks, their runs do not see the secrets.\nWe always skip the login there."),
        ] {
            t.push_str(&head(name, said));
        }
    t
}

#[test]
fn a_pasted_chat_thread_is_paste() {
    let own = "The staging login keeps failing on CI.";
    let threads = [
        // Slack: the name, then the time on its own line; a reply's time alone.
        chat_thread(|name, said| {
            format!("{name}\n  Mar 3rd at 9:14 AM\n{said}\n\n\n9:16\nok\n\n\n")
        }),
        // Slack on one line, and its replies' count.
        chat_thread(|name, said| format!("{name}  Mar 3rd at 12:37 PM\n{said}\n\n2 replies\n\n")),
        // Discord.
        chat_thread(|name, said| format!("{name} — Today at 3:04 PM\n{said}\n\n")),
        chat_thread(|name, said| format!("{name} — 03/03/2031 3:04 PM\n{said}\n")),
        // Teams and WhatsApp, the time first.
        chat_thread(|name, said| format!("[10:32] {name}: {said}\n")),
        chat_thread(|name, said| format!("[10:32 AM] {name}: {said}\n")),
        chat_thread(|name, said| format!("[03/03/2031, 10:32:07] {name}: {said}\n")),
    ];
    for text in threads {
        let shown = excerpt(&text, "", None, 120, by_lesson_words);
        assert!(shown.text.starts_with(own), "{text}\n{shown:?}");
        assert!(!shown.text.contains("token"), "{text}\n{shown:?}");
    }
}

/// Claude Code's terminal, copied: the user's prompt, its answer and its steps.
const CLAUDE_CODE_TERMINAL: &str = "> make the retry wait before the next try\n\n⏺ I changed the retry loop so it always waits before the next try.\n\n  The limit is read from the environment now, and the tests must pass on CI before you merge.\n  Nothing else changed.\n\n⏺ Update(src/retry.rs)\n  ⎿  Updated src/retry.rs with 3 additions\n\n> no, keep the old limit\n  ⎿  Interrupted by user\n\n⏺ Understood. The old limit stays, it must not change without a ticket.\n  I always keep it in the config file.\n";

#[test]
fn claude_codes_own_text_in_a_prompt_is_paste() {
    each_pasted(&[
            "The user doesn't want to proceed with this tool use. The tool use was rejected (eg. if it was a file edit, the new_string was NOT written to the file). STOP what you are doing and wait for the user to tell you how to proceed.",
            "[Request interrupted by user for tool use]",
            "[Request interrupted by user]",
            "Caveat: The messages below were generated by the user while running local commands. DO NOT respond to these messages or otherwise consider them in your response unless the user explicitly asks you to.",
            "This session is being continued from a previous conversation that ran out of context. The conversation is summarized below:",
            "<system-reminder>",
        ]);
    // A reminder's block, whatever its lines say.
    let lines = [
        "<system-reminder>",
        "Always answer in English.",
        "</system-reminder>",
    ];
    assert_eq!(pasted_lines(&lines, ""), [true, true, true]);
    // Its terminal's answers, their lines indented under the glyph.
    let own = "Why did it change the limit? It was not asked to.";
    let shown = excerpt(
        &format!("{own}\n\n{}", CLAUDE_CODE_TERMINAL.repeat(2)),
        "",
        None,
        120,
        by_lesson_words,
    );
    assert_eq!(shown.text, format!("{own}…"), "{shown:?}");
    assert!(shown.pasted, "{shown:?}");
    // A transcript's turns.
    let turns = "Human: make the retry wait before the next try\n\nAssistant: I changed the retry loop so it always waits.\nThe tests must pass on CI.\n\nHuman: no, keep the old limit\n\nAssistant: Understood, it must not change.\n";
    let shown = excerpt(
        &format!("{own}\n\n{}", turns.repeat(3)),
        "",
        None,
        120,
        by_lesson_words,
    );
    assert_eq!(shown.text, format!("{own}…"), "{shown:?}");
    // An IDE's copy of a session, its tool calls as `IN` and `OUT` blocks, a rejection in it.
    let export = "Task:Write the retry docs\nIN\nDescribe the retry loop in docs/retry.md. It must say that it always waits.\n\nThe limit is read from the environment now.\nBash List the docs\nIN\nls docs\n\nOUT\nretry.md\nAskUserQuestion\nOUT\nThe user doesn't want to proceed with this tool use. The tool use was rejected (eg. if it was a file edit, the new_string was NOT written to the file). STOP what you are doing and wait for the user to tell you how to proceed.\nOn it! It must not change without a ticket.\n";
    let shown = excerpt(
        &format!("{own}\n{}", export.repeat(4)),
        "",
        None,
        120,
        by_lesson_words,
    );
    assert!(!shown.text.contains("STOP"), "{shown:?}");
    assert!(!shown.text.contains("must"), "{shown:?}");
    assert!(shown.pasted, "{shown:?}");
}

#[test]
fn the_users_own_words_naming_chats_and_claude_codes_text_stay_theirs() {
    let own = [
        "the tool use was rejected again, why?",
        "Jason said on Slack at 12:37 that the token must never be committed.",
        "Dana Whitfield  is the one to ask about the login",
        "Standup Today at 9:30 AM",
        "Human: is how the old transcripts start each turn",
        "The session is being continued tomorrow, remember the limit.",
        "IN",
    ];
    for line in own {
        assert_eq!(pasted_lines(&[line], ""), [false], "{line}");
    }
    // Two times of the user's own notes are no chat's headers.
    let notes =
        "Standup Today at 9:30 AM\nwe must always run the linter first.\nDemo Today at 2:00 PM\n";
    assert_eq!(
        pasted_lines(&notes.lines().collect::<Vec<_>>(), ""),
        [false; 3]
    );
    // A bulleted list of the user's own, its lines indented under each bullet.
    let list = [
        "● the retry",
        "  must wait before the next try",
        "",
        "● the limit",
    ];
    assert!(!pasted_lines(&list, "")[1]);
    // The user's own line right above a thread; an author's name above a time is not.
    for thread in [
            "[10:32] Dana: the token must stay out of the repo\n[10:35] Omar: agreed\n",
            "Dana\n  Mar 3rd at 9:14 AM\nthe token must stay out of the repo\n\nOmar\n  Mar 3rd at 9:15 AM\nagreed\n",
        ] {
            let text = format!("see below, and tell me what you think:\n{thread}");
            let lines: Vec<&str> = text.lines().collect();
            let pasted = pasted_lines(&lines, "");
            assert!(!pasted[0] && pasted[1..].iter().all(|&p| p), "{text}");
        }
    // What the user writes after a thread, a blank line between, stays theirs.
    let after = "Can you always keep the token out of the logs?";
    let text = format!(
        "{}\n{after}",
        chat_thread(|name, said| format!("{name} — Today at 3:04 PM\n{said}\n\n"))
    );
    let lines = split_lines(&text);
    let pasted = pasted_lines(&lines, "");
    assert_eq!(pasted.last(), Some(&false), "{text}");
}

#[test]
fn the_end_of_a_long_prompt_is_read_too() {
    let text = format!(
        "{}\nplease always squash before you merge",
        "word ".repeat(4000)
    );
    let kept = head_and_tail(&text);
    assert!(kept.len() <= EXCERPT_BYTES, "{}", kept.len());
    assert!(kept.ends_with("please always squash before you merge"));
    assert!(kept.contains("\n…\n"));
    assert_eq!(head_and_tail("short"), "short");
}

/// A README's section as a user pastes it: a heading, prose in the project's voice, steps.
const README_SECTION: &str = "## Installation\n\nThis project ships as a single binary for Linux and macOS, with no runtime to install first.\nThe installer puts it under the system prefix and writes a default config next to it.\n\n1. Download the archive for your platform from the releases page.\n2. Unpack it and run the installer from the unpacked folder.\n3. Always run the installer as root.\n4. Check the version it prints before you use it.\n\nThe config file is read once at start, so a change needs a restart of the service.\n";

/// A spec another model wrote, opening with its title: three sections in its own voice.
fn spec() -> String {
    let mut t = String::from("# Sync service\n\n## Overview\n\nThe sync service copies the records of the main store into the archive every night.\nIt runs as one process and keeps no state between its runs.\n\n## Requirements\n\n");
    for k in 1..=8 {
        t.push_str(&format!(
            "- The job must always finish step {k} before the next one starts.\n"
        ));
    }
    t.push_str("\n## Installation\n\n1. Build the binary with the release profile.\n2. Copy it to the host and enable the unit.\n3. Check the first run in the journal.\n");
    t.push_str("\n## Usage\n\nThe service is started by the scheduler and logs to the journal.\nEach run writes its summary to the status table when it ends.\n");
    t
}

#[test]
fn a_document_handed_over_by_the_users_line_is_paste() {
    for lead in [
        "add this section to the README:",
        "here is the plan, use it",
        "add to the readme and do not commit yet",
    ] {
        let text = format!("{lead}\n{README_SECTION}");
        let shown = excerpt(&text, "", None, 120, by_cue);
        assert_eq!(shown.text, format!("{lead}…"), "{text}\n=> {shown:?}");
        assert!(shown.pasted, "{shown:?}");
    }
}

#[test]
fn a_document_that_opens_with_its_title_is_paste() {
    let text = spec();
    let shown = excerpt(&text, "", None, 120, by_cue);
    assert!(shown.text.starts_with("# Sync service"), "{shown:?}");
    assert!(!shown.text.contains("always"), "{shown:?}");
    assert!(shown.pasted, "{shown:?}");
    // After a line of the user's that does not hand it over, too.
    let own = "Why does the service not do what this says?";
    let shown = excerpt(&format!("{own}\n\n{text}"), "", None, 120, by_cue);
    assert_eq!(shown.text, format!("{own}…"), "{shown:?}");
}

#[test]
fn another_models_answer_is_paste_from_its_opening() {
    let body = spec();
    let answer = format!("Of course! I've read the sync service's spec and its code.\n\nI'll sort what I found into three parts:\n1. **Bugs:** what breaks a run.\n2. **Flaws:** what may break one later.\n3. **Style:** what to tidy.\n\n---\n\n{body}");
    // The user's words after it, or before it.
    let after = "here is more that i noticed. make a plan to fix these in plan.md";
    let before = "what do you think of this review?";
    for (text, own) in [
        (format!("{answer}\n\n{after}"), after),
        (format!("{before}\n{answer}"), before),
    ] {
        let lines = split_lines(&text);
        let pasted = pasted_lines(&lines, "");
        let own_line = lines.iter().position(|l| *l == own).unwrap();
        let first = lines
            .iter()
            .position(|l| l.starts_with("Of course!"))
            .unwrap();
        for (k, line) in lines.iter().enumerate() {
            let paste = k >= first && (k < own_line || own_line < first);
            assert!(
                pasted[k] == paste || line.is_empty(),
                "{k}: {line}\n{pasted:?}"
            );
        }
        let shown = excerpt(&text, "", None, 120, by_cue);
        assert!(shown.pasted, "{shown:?}");
        assert!(shown.text.contains(own), "{shown:?}");
    }
    // The user's own "of course" opens no paste.
    let mine = format!(
        "Of course we keep the old layout. Write the spec for it:\n{}",
        spec()
    );
    let lines = split_lines(&mine);
    assert!(!pasted_lines(&lines, "")[0], "{mine}");
}

#[test]
fn a_document_pasted_onto_the_users_line_is_split_from_it() {
    let text = format!("please review this spec. {}", spec());
    let lines = split_lines(&text);
    assert_eq!(lines[..2], ["please review this spec. ", "# Sync service"]);
    let shown = excerpt(&text, "", None, 120, by_cue);
    assert_eq!(shown.text, "please review this spec.…", "{shown:?}");
    // A heading named in the user's sentence, no document below it.
    let own = "put the new flag under the ## Usage section of the docs";
    assert_eq!(split_lines(own), [own]);
}

#[test]
fn the_users_own_structured_request_stays_theirs() {
    let mut request = String::from("## What I want\n- never push to main\n- always run the tests before you commit\n- keep each commit small enough to review in one sitting\n\n## Context\nThe service is a small queue worker that we deploy twice a week to one box.\nIt reads its jobs from the database and writes the results back to the same table.\n\n## Rules\n");
    for k in 1..=10 {
        request.push_str(&format!(
            "{k}. Don't touch the migration files in step {k}, they are generated.\n"
        ));
    }
    request.push_str(
        "- use pnpm, not npm\n- the linter must pass\n- ask before adding a dependency\n",
    );
    let mine = format!("Here is what I want:\n{request}");
    let handed = format!("use the following rules:\n{request}");
    // Their own plan, in their own words after a line that says so.
    let own_plan = "Here is my plan:\n## Retry queue\n\nThe worker reads the failed jobs from the queue table once a minute.\nEach job is tried again after a wait that doubles with every failure.\nA job that failed five times is moved to the dead letter table for a person.\nThe dashboard shows the dead letter table with a button to try a job again.\nThe metrics count the retries per job kind so we see which kind fails.\nAn alert fires when the dead letter table holds more than ten jobs.\nThe old cron script is removed once the worker has run for a week.\n";
    // Their own words first, a document's headings further down.
    let long_own = format!("We moved the sync job to a new host last week.\nSince then the archive misses some records.\nCompare the spec with what the code does.\n\n{}", spec());
    // Handed over, but a plan of their own: short items, no prose.
    let plan = "Here's the plan:\n## Phase 1\n- add the login page\n- add the logout button\n- store the session\n## Phase 2\n- billing page\n- invoices\n- refunds\n## Phase 3\n- admin view\n- audit log\n";
    for text in [request.as_str(), &mine, &handed, plan, own_plan, &long_own] {
        let lines = split_lines(text);
        let pasted = pasted_lines(&lines, "");
        assert!(pasted.iter().all(|p| !p), "{text}\n{pasted:?}");
    }
    // Their question after a pasted document, a blank line between, stays theirs.
    let text =
        format!("add this section to the README:\n{README_SECTION}\nshould it always say root?");
    let lines = split_lines(&text);
    let pasted = pasted_lines(&lines, "");
    assert_eq!(pasted.last(), Some(&false), "{text}");
    assert!(pasted[1], "{text}");
}

/// `text` as a terminal `width` columns wide shows a prompt, copied from its screen:
/// `> ` before the first line and two spaces before each other, a line broken before the
/// word that does not fit on it, a word longer than a line where the line ends.
fn screen_copy(text: &str, width: usize) -> String {
    let room = width - 2;
    let mut rows: Vec<String> = Vec::new();
    for line in text.lines() {
        let mut row = String::new();
        for word in line.split(' ') {
            let (used, len) = (row.chars().count(), word.chars().count());
            if used > 0 {
                if len > room || used + 1 + len <= room {
                    row.push(' ');
                } else {
                    rows.push(std::mem::take(&mut row));
                }
            }
            for c in word.chars() {
                if row.chars().count() == room {
                    rows.push(std::mem::take(&mut row));
                }
                row.push(c);
            }
        }
        rows.push(row);
    }
    let shown: Vec<String> = rows
        .iter()
        .enumerate()
        .map(|(k, r)| format!("{}{r}", if k == 0 { "> " } else { "  " }))
        .collect();
    shown.join("\n")
}

/// A log's record of the fixture's own making, longer than a line, with a word longer
/// than a line.
const LONG_RECORD: &str = "[ERROR][2031-01-01 10:00:00.572][assemble-container-image-with-kernel-modules.sh:1482:install_category] ✗ name lookup failed - the packages cannot be fetched without it";

/// Whether a word of [`LONG_RECORD`] was split across the lines `above` and `line`.
fn split_by_wrap(above: &str, line: &str) -> bool {
    let head = above.rsplit(' ').next().unwrap_or("");
    let tail = line.split_whitespace().next().unwrap_or("");
    !head.is_empty() && LONG_RECORD.split(' ').any(|w| w == format!("{head}{tail}"))
}

/// The lines of `text` split and judged.
fn judged(text: &str) -> Vec<(bool, &str)> {
    let lines = split_lines(text);
    pasted_lines(&lines, "").into_iter().zip(lines).collect()
}

#[test]
fn a_logs_record_the_terminal_wrapped_is_paste_to_its_end() {
    let own = "and the assembly script runs under sudo ./assemble-container-image.sh";
    let text = screen_copy(
            &format!(
                "a /home/dev/work/logs/assemble-20310101.log\n{LONG_RECORD}\n+ [assemble-container-image.sh:1487:install_category {own}\n also the modules dir, this is the usual container dns issue"
            ),
            72,
        );
    let seen = judged(&text);
    // The record's word was split by the terminal: its rest starts a line.
    let record: Vec<&str> = seen
        .iter()
        .skip_while(|(_, l)| !l.contains("[ERROR]"))
        .take_while(|(_, l)| !l.contains("1487"))
        .map(|(_, l)| *l)
        .collect();
    assert!(record.len() >= 3, "{text}");
    assert!(split_by_wrap(record[0], record[1]), "{text}");
    for (pasted, line) in &seen {
        let wrapped = record.contains(line);
        let users = line.contains("sudo") || line.contains("dns issue");
        assert!(!wrapped || *pasted, "{line}\n{text}");
        assert!(!users || !*pasted, "{line}\n{text}");
    }
    let shown = excerpt(&text, "", None, 160, by_lesson_words);
    assert!(shown.text.contains("runs under sudo"), "{shown:?}");
    assert!(!shown.text.contains("lookup"), "{shown:?}");
}

#[test]
fn the_users_words_after_a_wrapped_record_stay_theirs() {
    // Their own lines after the record, indented as the terminal indents them.
    let own = "so the assembly runs under sudo inside the container, and the resolver it gets from the host is not reachable from there";
    let text = screen_copy(&format!("{LONG_RECORD}\n{own}"), 72);
    let seen = judged(&text);
    assert!(split_by_wrap(seen[0].1, seen[1].1), "{text}");
    assert!(seen[1].0 && seen[2].0, "{seen:?}");
    let users: Vec<&(bool, &str)> = seen
        .iter()
        .filter(|(_, l)| own.contains(l.trim()))
        .collect();
    assert!(users.len() >= 2, "{text}");
    assert!(users.iter().all(|(p, _)| !p), "{seen:?}");
    // Typed right after the record, on its line, in their own voice.
    let text = screen_copy(
        &format!("{LONG_RECORD} and I think we must use the host's resolver here"),
        72,
    );
    let seen = judged(&text);
    let theirs: Vec<&(bool, &str)> = seen
        .iter()
        .filter(|(_, l)| l.contains("think") || l.contains("resolver"))
        .collect();
    assert!(!theirs.is_empty(), "{seen:?}");
    assert!(theirs.iter().all(|(p, _)| !p), "{seen:?}");
}

#[test]
fn a_paragraph_of_the_users_own_hard_wrapped_stays_theirs() {
    // An email's paragraph wrapped at 72 columns, after a path as wide as its lines.
    let path = format!(
        "/srv/releases/2031-01-01/{}/main-3F9A.js",
        "chunk".repeat(6) + "-web"
    );
    let mail = "we ship this bundle from the release folder, and the deploy script\ncopies it over the old one without checking the hash first, so from\nnow on compare the hashes before you replace a bundle on the server,\nand keep the old one next to it until the new one has been checked";
    let text = format!("{path}\n{mail}");
    assert_eq!(path.chars().count(), 72, "{path}");
    assert!(mail.lines().all(|l| l.chars().count() <= 72));
    let seen = judged(&text);
    assert!(seen[0].0, "{seen:?}");
    assert!(seen[1..].iter().all(|(p, _)| !p), "{seen:?}");
}

#[test]
fn the_users_line_after_a_paste_is_no_wrap_but_where_a_word_was_split() {
    let path = format!(
        "/srv/releases/2031-01-01/{}/main-3F9A.js",
        "chunk".repeat(6)
    );
    for text in [
            // The line above is not full: their own line is wider.
            format!("  {path}\n  3F9A-hashed bundles were copied over the old ones and the site was down again"),
            // The word across is short: a line ends there.
            "  [WARN] 2031-01-01 10:00:00 worker-3 retry budget exhausted for job 4711\n  3 retries were enough on the old host, the new one needs more of them".to_string(),
            // A listing's line further in than theirs.
            format!("Files:\n    {path}\n  3F9A builds show it as well, only on the new host"),
            // Too narrow for a terminal.
            "  ERROR:out/web/main-3F9A.js:10\n  2 builds fail".to_string(),
        ] {
            let seen = judged(&text);
            let (last, first) = (seen.last().unwrap(), &seen[seen.len() - 2]);
            assert!(first.0 && !last.0, "{seen:?}");
        }
}
