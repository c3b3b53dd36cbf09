//! What the user reads must be what the binaries do: every entry of every `--help` says what it
//! is, and the README's demo output is what its demo command prints.

use std::fs;

use crate::util::repo;
use crate::util::{bin_path, stdout, Env};

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

/// The README's demo: the command in the `sh` block that runs capture on the bundled example
/// session, and the block after it, which shows what it prints.
#[test]
fn the_readme_demo_prints_what_the_readme_shows() {
    let readme = fs::read_to_string(repo().join("README.md")).unwrap();
    let blocks: Vec<&str> = readme
        .split("```")
        .skip(1)
        .step_by(2)
        .map(|b| b.split_once('\n').map_or("", |(_, body)| body))
        .collect();
    let at = blocks
        .iter()
        .position(|b| b.contains("examples/demo-transcript.jsonl --dry-run"))
        .expect("the README shows the demo command");
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
        "the README's demo output is stale: run `{command}` and paste what it prints"
    );
}

/// What the README says the second look lists of the demo session after capture stored it.
#[test]
fn the_readme_demo_of_the_second_look_lists_what_capture_left() {
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
    let readme = fs::read_to_string(repo().join("README.md")).unwrap();
    assert!(readme.contains("lists the three prompts capture did not store"));
}
