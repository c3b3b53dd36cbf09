//! What the user reads must be what the binaries do: every entry of every `--help` says what it
//! is, the demo output in the development guide is what its demo command prints, the README shows
//! what first use prints today, the status-line recipe the skill gives and every file reflect
//! writes; and the pages hold together: the README stays a page a user reads (at most 20 KB),
//! every link between the pages names a file and a heading that exist, and every repository path
//! they name exists.

use std::fs;
use std::path::{Path, PathBuf};

use crate::util::{bin_path, repo, stdout, Env};

/// Where the demo of capture on the bundled example session is shown (a developer's page: it runs
/// a binary of `dist/`).
const DEMO_PAGE: &str = "docs/development.md";

const BINARIES: [&str; 6] = [
    "capture-signals",
    "capture-failure",
    "capture-session-summary",
    "inject-signals",
    "memory-store",
    "reflect-toggle",
];

/// The entries of a `--help` text (a flag, an argument or a subcommand) that say nothing about
/// themselves. An entry is a line indented at most 10 spaces that starts with a flag, `<`, `[` or,
/// under `Commands:`, a word; its description follows on the line after a gap of two spaces or
/// more, or on the next line, indented deeper. A description made only of `[default: …]` or
/// `[possible values: …]` says nothing.
fn undescribed(help: &str) -> Vec<String> {
    let lines: Vec<&str> = help.lines().collect();
    let mut section = "";
    let mut bare = Vec::new();
    for (i, line) in lines.iter().enumerate() {
        let trimmed = line.trim_start();
        if !line.starts_with(' ') && trimmed.ends_with(':') {
            section = trimmed;
        }
        // A hand-written help lists its options after "Options:" on the same line too.
        let (indent, entry) = match trimmed.strip_prefix("Options:") {
            Some(rest) => (line.len() - rest.trim_start().len(), rest.trim_start()),
            None => (line.len() - trimmed.len(), trimmed),
        };
        let is_entry = (1..=10).contains(&indent)
            && ((entry.starts_with('-') && !entry.starts_with("- "))
                || entry.starts_with('<')
                || entry.starts_with('[')
                || (section == "Commands:" && entry.starts_with(char::is_alphanumeric)));
        if !is_entry {
            continue;
        }
        let same_line = entry.split_once("  ").map(|(_, d)| d.trim()).unwrap_or("");
        let next_line = lines
            .get(i + 1)
            .filter(|next| next.len() - next.trim_start().len() > indent)
            .map(|next| next.trim())
            .unwrap_or("");
        let description = if same_line.is_empty() {
            next_line
        } else {
            same_line
        };
        let says_something = !description.is_empty()
            && !description.starts_with("[default:")
            && !description.starts_with("[possible values:")
            && !description.starts_with("Possible values:");
        if !says_something {
            bare.push(line.trim().to_string());
        }
    }
    bare
}

#[test]
fn every_help_entry_of_every_binary_says_what_it_is() {
    let env = Env::new();
    let mut helps: Vec<(String, String)> = Vec::new();
    for bin in BINARIES {
        let out = env.cmd(bin).arg("--help").output().unwrap();
        assert!(out.status.success(), "{bin} --help: {out:?}");
        helps.push((bin.to_string(), stdout(&out)));
    }
    let top = helps[4].1.clone();
    let commands: Vec<String> = top
        .split("Commands:")
        .nth(1)
        .expect("memory-store lists its commands")
        .lines()
        .skip(1)
        .take_while(|l| !l.trim().is_empty() && l.starts_with(' '))
        .filter(|l| l.len() - l.trim_start().len() == 2)
        .filter_map(|l| l.split_whitespace().next().map(str::to_string))
        .filter(|c| c != "help")
        .collect();
    assert!(commands.len() >= 14, "{commands:?}");
    for sub in &commands {
        let out = env
            .cmd("memory-store")
            .args([sub, "--help"])
            .output()
            .unwrap();
        assert!(out.status.success());
        helps.push((format!("memory-store {sub}"), stdout(&out)));
    }
    let bare: Vec<String> = helps
        .iter()
        .flat_map(|(bin, help)| {
            undescribed(help)
                .into_iter()
                .map(move |e| format!("{bin}: {e}"))
        })
        .collect();
    assert!(
        bare.is_empty(),
        "help entries that say nothing:\n{}",
        bare.join("\n")
    );
}

#[test]
fn the_help_check_finds_an_entry_without_a_description() {
    let help = "Usage: x\n\nArguments:\n  <ID>  \n\nOptions:\n      --session <SID>    \n      --format <F>  [default: text]\n      --fine <X>  Does things\n  -h, --help\n          Print help\n";
    assert_eq!(
        undescribed(help),
        ["<ID>", "--session <SID>", "--format <F>  [default: text]"]
    );
    let hand = "Options: -h, --help   this text\n         -V, --version\n";
    assert_eq!(undescribed(hand), ["-V, --version"]);
}

/// The bodies of a Markdown text's fenced code blocks, in order.
fn code_blocks(text: &str) -> Vec<&str> {
    text.split("```")
        .skip(1)
        .step_by(2)
        .map(|b| b.split_once('\n').map_or("", |(_, body)| body))
        .collect()
}

/// The demo: the command in the `sh` block that runs capture on the bundled example session, and
/// the block after it, which shows what it prints.
#[test]
fn the_demo_prints_what_the_development_guide_shows() {
    let page = fs::read_to_string(repo().join(DEMO_PAGE)).unwrap();
    let blocks = code_blocks(&page);
    let at = blocks
        .iter()
        .position(|b| b.contains("examples/demo-transcript.jsonl --dry-run"))
        .expect("the development guide shows the demo command");
    let command = blocks[at].trim();
    let shown = blocks[at + 1];
    let words: Vec<&str> = command.split_whitespace().collect();
    let bin = words[0]
        .strip_prefix("dist/")
        .expect("the demo runs a binary of dist/");
    let env = Env::new();
    let out = std::process::Command::new(bin_path(bin))
        .args(&words[1..])
        .current_dir(repo())
        .env_clear()
        .env("HOME", &env.home)
        .env("REFLECT_HOME", &env.data)
        .output()
        .unwrap();
    assert!(out.status.success(), "{command}: {out:?}");
    assert_eq!(
        stdout(&out),
        shown,
        "the demo output in {DEMO_PAGE} is stale: run `{command}` and paste what it prints"
    );
}

/// What the development guide says the second look lists of the demo session after capture stored it.
#[test]
fn the_demo_of_the_second_look_lists_what_capture_left() {
    let env = Env::new();
    let demo = repo().join("examples/demo-transcript.jsonl");
    let demo = demo.to_str().unwrap();
    env.cmd("capture-signals")
        .args(["--transcript", demo])
        .assert()
        .success();
    let out = env
        .cmd("memory-store")
        .args(["digest", "--transcript", demo, "--format", "jsonl"])
        .output()
        .unwrap();
    assert!(out.status.success(), "{out:?}");
    let texts: Vec<String> = stdout(&out)
        .lines()
        .map(|l| serde_json::from_str::<serde_json::Value>(l).unwrap()["text"].to_string())
        .collect();
    assert_eq!(texts.len(), 3, "{texts:?}");
    assert!(
        texts[2].contains("keep the README examples short: one flag per example"),
        "{texts:?}"
    );
    let page = fs::read_to_string(repo().join(DEMO_PAGE)).unwrap();
    assert!(page.contains("lists the three prompts capture did not store"));
}

/// The README is what a user reads first; depth goes into `docs/`.
const README_MAX_BYTES: usize = 20 * 1024;

#[test]
fn the_readme_stays_a_page_a_user_reads() {
    let size = fs::metadata(repo().join("README.md")).unwrap().len() as usize;
    assert!(
        size <= README_MAX_BYTES,
        "README.md is {size} bytes, over {README_MAX_BYTES}: move depth into docs/ and link to it"
    );
}

/// The README and every page of `docs/`.
fn pages() -> Vec<PathBuf> {
    let mut pages = vec![repo().join("README.md")];
    let mut docs: Vec<PathBuf> = fs::read_dir(repo().join("docs"))
        .expect("docs/ exists")
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|e| e == "md"))
        .collect();
    docs.sort();
    assert!(!docs.is_empty(), "docs/ holds no page");
    pages.extend(docs);
    pages
}

/// A Markdown text with its fenced code blocks and inline code spans removed (links there are text).
fn prose(text: &str) -> String {
    let outside: String = text.split("```").step_by(2).collect::<Vec<_>>().join("\n");
    outside
        .lines()
        .map(|line| line.split('`').step_by(2).collect::<String>())
        .collect::<Vec<_>>()
        .join("\n")
}

/// The targets of the inline links `[text](target)` in a Markdown text.
fn link_targets(text: &str) -> Vec<String> {
    let text = prose(text);
    text.match_indices("](")
        .filter_map(|(at, _)| {
            let rest = &text[at + 2..];
            rest.find(')').map(|end| rest[..end].to_string())
        })
        .collect()
}

/// GitHub's anchor for a heading: lower case, spaces to `-`, punctuation other than `-` and `_`
/// dropped.
fn anchor(heading: &str) -> String {
    heading
        .trim()
        .to_lowercase()
        .chars()
        .filter_map(|c| match c {
            ' ' => Some('-'),
            c if c.is_alphanumeric() || c == '-' || c == '_' => Some(c),
            _ => None,
        })
        .collect()
}

/// The anchors of a Markdown text's headings (outside code blocks).
fn anchors(text: &str) -> Vec<String> {
    let outside: String = text.split("```").step_by(2).collect::<Vec<_>>().join("\n");
    outside
        .lines()
        .filter(|l| l.starts_with('#'))
        .map(|l| anchor(l.trim_start_matches('#')))
        .collect()
}

/// The broken links of the page at `page`: a relative link whose file does not exist, or whose
/// `#anchor` names no heading of that file.
fn broken_links(page: &Path, text: &str) -> Vec<String> {
    let mut broken = Vec::new();
    for target in link_targets(text) {
        if target.contains("://") || target.starts_with("mailto:") {
            continue;
        }
        let (file, fragment) = match target.split_once('#') {
            Some((file, fragment)) => (file, Some(fragment)),
            None => (target.as_str(), None),
        };
        let path = page.parent().unwrap().join(file);
        let linked = if file.is_empty() {
            text.to_string()
        } else if let Ok(linked) = fs::read_to_string(&path) {
            linked
        } else {
            if !path.is_dir() {
                broken.push(format!("{target}: no such file"));
            }
            continue;
        };
        if let Some(fragment) = fragment {
            if !anchors(&linked).iter().any(|a| a == fragment) {
                broken.push(format!("{target}: no such heading"));
            }
        }
    }
    broken
}

#[test]
fn every_link_between_the_pages_names_a_file_and_heading_that_exist() {
    let mut broken = Vec::new();
    let mut links = 0;
    for page in pages() {
        let text = fs::read_to_string(&page).unwrap();
        links += link_targets(&text).len();
        let name = page.strip_prefix(repo()).unwrap().display().to_string();
        broken.extend(
            broken_links(&page, &text)
                .into_iter()
                .map(|b| format!("{name}: {b}")),
        );
    }
    assert!(links >= 10, "the pages link to each other: {links} links");
    assert!(broken.is_empty(), "broken links:\n{}", broken.join("\n"));
}

#[test]
fn the_link_check_finds_a_missing_file_and_a_missing_heading() {
    let dir = tempfile::tempdir().unwrap();
    let page = dir.path().join("README.md");
    fs::create_dir(dir.path().join("docs")).unwrap();
    fs::write(
        dir.path().join("docs/a.md"),
        "# A page\n\n## What it writes, and `how`\n",
    )
    .unwrap();
    let text = "[ok](docs/a.md#what-it-writes-and-how) [top](#top) [gone](docs/b.md) \
                [bad](docs/a.md#nowhere) [web](https://example.com/x) `[code](nowhere.md)`\n\n# Top\n";
    assert_eq!(
        broken_links(&page, text),
        [
            "docs/b.md: no such file",
            "docs/a.md#nowhere: no such heading"
        ]
    );
}

/// What `/reflect-toggle on` prints today, with the plugin's version: while no release is pinned
/// (no `release/SHA256SUMS`) it offers the build from source, and the README and the install page
/// quote it. Once the first release is pinned, first use downloads instead, and the README must no
/// longer say that no release is published (this fails once, on the pin commit, until it is
/// rewritten; docs/development.md says so).
#[test]
// The runner is POSIX sh, run by Git Bash on Windows (see tests/integration/main.rs on first_use).
#[cfg(unix)]
fn the_readme_shows_what_first_use_prints_today() {
    use crate::skills::{fake_plugin, sh};
    use std::os::unix::fs::PermissionsExt;
    const RUNNER: &str = "skills/self-reflect-toggle/run-toggle";
    let readme = fs::read_to_string(repo().join("README.md")).unwrap();
    if repo().join("release/SHA256SUMS").exists() {
        assert!(
            !readme.contains("No release has been published yet"),
            "a release is pinned: rewrite the README's first-use text for the download"
        );
        return;
    }
    assert!(readme.contains("No release has been published yet"));
    let env = Env::new();
    let root = fake_plugin(&env, RUNNER);
    fs::create_dir_all(root.join(".claude-plugin")).unwrap();
    fs::copy(
        repo().join(".claude-plugin/plugin.json"),
        root.join(".claude-plugin/plugin.json"),
    )
    .unwrap();
    // The build is offered with the command to run where cargo is installed.
    let fake = env.dir.path().join("fakebin");
    fs::create_dir_all(&fake).unwrap();
    fs::write(fake.join("cargo"), "#!/bin/sh\nexit 0\n").unwrap();
    fs::set_permissions(fake.join("cargo"), fs::Permissions::from_mode(0o755)).unwrap();
    let path = format!(
        "{}:{}",
        fake.display(),
        std::env::var("PATH").unwrap_or_default()
    );
    let out = sh(
        &env,
        &root.join(RUNNER),
        &["on"],
        &[("PATH", Path::new(&path))],
    );
    let printed = stdout(&out);
    let lines: Vec<&str> = printed.lines().collect();
    assert_eq!(lines.len(), 3, "{printed}");
    let plugin: serde_json::Value = serde_json::from_str(
        &fs::read_to_string(repo().join(".claude-plugin/plugin.json")).unwrap(),
    )
    .unwrap();
    let archive = format!("reflect-{}-", plugin["version"].as_str().unwrap());
    let host = lines[0]
        .split_once(archive.as_str())
        .and_then(|(_, rest)| rest.split_once(".tar.gz"))
        .map(|(target, _)| target.to_string())
        .unwrap_or_else(|| panic!("no archive named in: {printed}"));
    let root = root.display().to_string();

    let shown = lines[2].replace(&root, "/home/you/reflect");
    assert!(
        code_blocks(&readme).iter().any(|b| b.trim() == shown),
        "README.md does not show what `/reflect-toggle on` prints today:\n{shown}"
    );
    let install = fs::read_to_string(repo().join("docs/install.md")).unwrap();
    let block = code_blocks(&install)
        .into_iter()
        .find(|b| b.contains("could not install"))
        .expect("docs/install.md shows what first use prints");
    let expected = printed
        .replace(&root, "<plugin dir>")
        .replace(&host, "x86_64-unknown-linux-gnu");
    assert_eq!(
        block, expected,
        "docs/install.md does not show what `/reflect-toggle on` prints today"
    );
}

/// The status-line recipe the README gives is the one the `/reflect` skill gives.
#[test]
fn the_readme_gives_the_skills_status_line_recipe() {
    let recipe = |path: &str| -> serde_json::Value {
        let text = fs::read_to_string(repo().join(path)).unwrap();
        let block = code_blocks(&text)
            .into_iter()
            .find(|b| b.contains("\"statusLine\""))
            .unwrap_or_else(|| panic!("{path} gives no status-line recipe"));
        serde_json::from_str(block).unwrap()
    };
    let readme = recipe("README.md");
    assert!(readme["statusLine"]["command"]
        .as_str()
        .unwrap()
        .ends_with("stats --format statusline"));
    assert_eq!(readme, recipe("skills/self-reflect/SKILL.md"));
}

/// The table of "What it writes" in the README: the names in its first column (in backquotes), and
/// the whole table's text.
fn files_table() -> (Vec<String>, String) {
    let readme = fs::read_to_string(repo().join("README.md")).unwrap();
    let section = readme
        .split("\n## ")
        .find(|s| s.starts_with("What it writes"))
        .expect("the README has a section on what it writes");
    let rows: Vec<&str> = section.lines().filter(|l| l.starts_with("| ")).collect();
    let names = rows
        .iter()
        .filter_map(|row| row.split('|').nth(1))
        .flat_map(|cell| {
            cell.split('`')
                .skip(1)
                .step_by(2)
                .map(str::to_string)
                .collect::<Vec<_>>()
        })
        .collect();
    (names, rows.join("\n"))
}

/// Every file and directory reflect leaves in its data dir and the config dir, after a day's use
/// (capture on, hooks fired, a digest, a promotion, a rewrite over a torn line, an archive), is one
/// the README's "What it writes" table names: a new one cannot appear unannounced.
#[test]
fn the_readme_names_every_file_reflect_writes() {
    let env = Env::new();
    fs::create_dir_all(&env.config).unwrap();
    fs::write(env.config.join("settings.json"), "{}\n").unwrap();
    env.cmd("reflect-toggle").arg("on").assert().success();

    let project = env.dir.path().join("app");
    fs::create_dir_all(project.join(".git")).unwrap();
    let demo = repo().join("examples/demo-transcript.jsonl");
    let event = |name: &str, extra: serde_json::Value| {
        let mut payload = serde_json::json!({
            "session_id": "s-files",
            "transcript_path": demo,
            "cwd": project,
            "hook_event_name": name,
        });
        payload
            .as_object_mut()
            .unwrap()
            .extend(extra.as_object().unwrap().clone());
        payload.to_string()
    };
    for (bin, stdin) in [
        (
            "capture-failure",
            event(
                "PostToolUseFailure",
                serde_json::json!({"tool_name": "Bash", "tool_input": {"command": "npm test"},
                    "error": "Exit code 1\nnpm ERR! Missing script: \"test\""}),
            ),
        ),
        (
            "capture-signals",
            event("PreCompact", serde_json::json!({"trigger": "manual"})),
        ),
        (
            "inject-signals",
            event("SessionStart", serde_json::json!({"source": "compact"})),
        ),
        (
            "capture-session-summary",
            event("SessionEnd", serde_json::json!({"reason": "other"})),
        ),
    ] {
        env.cmd(bin).write_stdin(stdin).assert().success();
    }
    let store = |args: &[&str]| -> String {
        let out = env
            .cmd("memory-store")
            .args(args)
            .current_dir(&project)
            .output()
            .unwrap();
        assert!(out.status.success(), "memory-store {args:?}: {out:?}");
        stdout(&out)
    };
    let digest = store(&["digest"]);
    assert!(digest.contains("--mark"), "{digest}");
    let id = store(&["query", "--type", "correction", "--format", "index"]);
    let id = id
        .split_whitespace()
        .next()
        .expect("a correction was captured");
    let target = project.join("CLAUDE.md");
    store(&[
        "promote",
        id,
        "--target",
        target.to_str().unwrap(),
        "--content",
        "Use pnpm, not npm",
        "--section",
        "Commands",
    ]);
    let mut torn = fs::OpenOptions::new()
        .append(true)
        .open(env.store())
        .unwrap();
    std::io::Write::write_all(&mut torn, b"{torn\n").unwrap();
    drop(torn); // closed, as the writer that tore it would be: under Wine a file held open cannot be replaced
    store(&["archive"]);

    let (names, table) = files_table();
    let mut unnamed = Vec::new();
    for entry in fs::read_dir(&env.data).unwrap() {
        let entry = entry.unwrap();
        let name = entry.file_name().to_string_lossy().to_string();
        let shown = if entry.file_type().unwrap().is_dir() {
            format!("{name}/")
        } else {
            name.clone()
        };
        if !names.contains(&shown) && !table.contains(&format!("`{name}`")) {
            unnamed.push(shown);
        }
    }
    for entry in fs::read_dir(&env.config).unwrap() {
        let name = entry.unwrap().file_name().to_string_lossy().to_string();
        if env.config.join(&name) != env.data && !table.contains(&name) {
            unnamed.push(format!("<config dir>/{name}"));
        }
    }
    for expected in [
        "signals.jsonl",
        "signals.lock",
        "signals.archive.jsonl",
        "signals.invalid.jsonl",
        "cursors",
        "digests",
        "learnings",
        "backups",
        "bin",
    ] {
        assert!(
            env.data.join(expected).exists(),
            "the day's use leaves {expected}"
        );
    }
    assert!(
        unnamed.is_empty(),
        "reflect wrote what the README's \"What it writes\" table does not name: {unnamed:?}"
    );
}

/// The repository paths a text names in inline code (`scripts/bench`, `hooks-src/core`…): the first
/// word of a code span that starts with one of the repository's tracked top-level directories.
fn repo_paths(text: &str) -> Vec<String> {
    const TOP: [&str; 9] = [
        "hooks-src/",
        "scripts/",
        "tests/",
        "skills/",
        "examples/",
        "fuzz/",
        ".github/",
        ".claude-plugin/",
        "docs/",
    ];
    let outside: String = text.split("```").step_by(2).collect::<Vec<_>>().join("\n");
    outside
        .lines()
        .flat_map(|line| line.split('`').skip(1).step_by(2))
        .filter_map(|span| span.split_whitespace().next())
        .filter(|word| TOP.iter().any(|top| word.starts_with(top)))
        .map(|word| word.trim_end_matches(['.', ',', ':', ';']).to_string())
        .collect()
}

/// A path the pages name in code (a script, a source file, a test directory) exists: a file that
/// moves takes its mentions with it.
#[test]
fn every_repository_path_the_pages_name_exists() {
    let mut missing = Vec::new();
    let mut named = 0;
    for page in pages() {
        let text = fs::read_to_string(&page).unwrap();
        let paths = repo_paths(&text);
        named += paths.len();
        let name = page.strip_prefix(repo()).unwrap().display().to_string();
        missing.extend(
            paths
                .into_iter()
                .filter(|p| !repo().join(p).exists())
                .map(|p| format!("{name}: {p}")),
        );
    }
    assert!(
        named >= 10,
        "the pages name paths of the repository: {named}"
    );
    assert!(
        missing.is_empty(),
        "the pages name paths that do not exist:\n{}",
        missing.join("\n")
    );
}

#[test]
fn the_path_check_reads_the_first_word_of_a_code_span() {
    let text =
        "Run `scripts/bench --quick`, see `hooks-src/core/src/x.rs`. Not `dist/x` or `npm test`.\n\
                ```\nscripts/in-a-block\n```\n";
    assert_eq!(
        repo_paths(text),
        ["scripts/bench", "hooks-src/core/src/x.rs"]
    );
}
