//! The plugin's outward face: the manifests and the two skills. A skill is prose the model follows, so
//! what can rot silently is checked here: the frontmatter must parse the way Claude Code's YAML reader
//! will, every command a skill tells the model to run must exist with the flags it names (checked against
//! the real binaries' `--help`), and the two small shell helpers the skills call must do what the skills
//! promise. `claude plugin validate` itself runs in scripts/validate-plugin (it needs the npm CLI).

use std::collections::BTreeMap;
use std::fs;

use serde_json::Value;

use crate::util::{stdout, Env};

pub(crate) use crate::util::repo;

fn read(rel: &str) -> String {
    fs::read_to_string(repo().join(rel)).unwrap_or_else(|e| panic!("{rel}: {e}"))
}

/// The frontmatter of a SKILL.md as key → value, and the body. Only the YAML subset a skill needs is
/// accepted (one `key: scalar` per line, plain or quoted); anything a YAML parser would read
/// differently (a `: ` or ` #` inside a plain scalar, a flow collection, a block scalar) panics, because
/// Claude Code drops ALL frontmatter of a skill whose YAML fails to parse.
fn frontmatter(text: &str) -> (BTreeMap<String, String>, String) {
    let rest = text
        .strip_prefix("---\n")
        .expect("SKILL.md starts with a --- line");
    let end = rest
        .find("\n---\n")
        .expect("frontmatter closed by a --- line");
    let mut fields = BTreeMap::new();
    for line in rest[..end].lines() {
        let (key, raw) = line
            .split_once(':')
            .unwrap_or_else(|| panic!("not `key: value`: {line:?}"));
        assert!(
            !key.is_empty()
                && key
                    .chars()
                    .all(|c| c.is_ascii_lowercase() || c == '-' || c == '_'),
            "bad key {key:?} in {line:?}"
        );
        let raw = raw.trim();
        let value = scalar(raw).unwrap_or_else(|why| panic!("{key}: {why}: {raw:?}"));
        assert!(
            fields.insert(key.to_string(), value).is_none(),
            "duplicate key {key}"
        );
    }
    (fields, rest[end + 5..].to_string())
}

fn scalar(raw: &str) -> Result<String, &'static str> {
    if raw.is_empty() {
        return Err("empty value (YAML null)");
    }
    if let Some(inner) = raw.strip_prefix('"') {
        let inner = inner.strip_suffix('"').ok_or("unterminated double quote")?;
        if inner.contains('"') || inner.contains('\\') {
            return Err("escapes inside a double-quoted scalar are not used here");
        }
        return Ok(inner.to_string());
    }
    if let Some(inner) = raw.strip_prefix('\'') {
        let inner = inner
            .strip_suffix('\'')
            .ok_or("unterminated single quote")?;
        return Ok(inner.replace("''", "'"));
    }
    if raw.starts_with([
        '[', '{', '&', '*', '!', '|', '>', '%', '@', '`', '#', '-', '?',
    ]) {
        return Err("a plain scalar cannot start with an indicator character");
    }
    if raw.contains(": ") || raw.contains(" #") || raw.ends_with(':') {
        return Err("a plain scalar cannot contain ': ' or ' #' (quote it)");
    }
    Ok(raw.to_string())
}

/// `allowed-tools`, split on the commas between entries (not inside parentheses).
fn allowed_tools(value: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut depth = 0;
    let mut current = String::new();
    for c in value.chars() {
        match c {
            '(' => depth += 1,
            ')' => depth -= 1,
            ',' if depth == 0 => {
                out.push(current.trim().to_string());
                current.clear();
                continue;
            }
            _ => {}
        }
        current.push(c);
    }
    out.push(current.trim().to_string());
    out
}

/// Each `Bash(CMD:*)` rule names a file of this plugin (after `${CLAUDE_PLUGIN_ROOT}` is substituted, as
/// Claude Code does in skill text) that exists and is executable; other entries are known tools.
fn check_allowed_tools(skill: &str, value: &str, expected_bash: &[&str]) {
    let mut bash = Vec::new();
    for tool in allowed_tools(value) {
        if let Some(rule) = tool.strip_prefix("Bash(") {
            let rule = rule.strip_suffix(')').expect("Bash( closed");
            let cmd = rule.strip_suffix(":*").unwrap_or_else(|| {
                panic!("{skill}: Bash rule {rule:?} is not a CMD:* prefix rule")
            });
            assert!(
                !cmd.contains("$HOME") && !cmd.contains("${CLAUDE_CONFIG_DIR") && !cmd.contains('~'),
                "{skill}: {cmd}: Claude Code refuses commands with variable expansions; only ${{CLAUDE_PLUGIN_ROOT}} is substituted"
            );
            if let Some(rel) = cmd.strip_prefix("${CLAUDE_PLUGIN_ROOT}/") {
                let meta = fs::metadata(repo().join(rel))
                    .unwrap_or_else(|e| panic!("{skill}: allowed-tools names {rel}: {e}"));
                // Windows' files have no execute bit: the same tree's is checked on Unix.
                #[cfg(unix)]
                assert!(
                    std::os::unix::fs::PermissionsExt::mode(&meta.permissions()) & 0o111 != 0,
                    "{skill}: {rel} is not executable"
                );
                assert!(meta.is_file(), "{skill}: {rel} is not a file");
            }
            bash.push(cmd.to_string());
        } else {
            assert!(
                ["Read", "Grep", "Glob", "AskUserQuestion"].contains(&tool.as_str()),
                "{skill}: unexpected tool {tool:?} in allowed-tools"
            );
        }
    }
    assert_eq!(bash, expected_bash, "{skill}: Bash rules");
}

#[test]
fn reflect_skill_frontmatter_is_valid_and_narrow() {
    let (fm, body) = frontmatter(&read("skills/self-reflect/SKILL.md"));
    assert_eq!(fm["name"], "reflect");
    let description = &fm["description"];
    assert!(
        (40..1536).contains(&description.len()),
        "description length {}",
        description.len()
    );
    assert_eq!(fm["disable-model-invocation"], "true");
    check_allowed_tools(
        "reflect",
        &fm["allowed-tools"],
        &[
            "${CLAUDE_PLUGIN_ROOT}/skills/self-reflect/gather",
            "${CLAUDE_PLUGIN_ROOT}/skills/self-reflect/memory-store",
            "git rev-parse",
        ],
    );
    // The model must be told the exact path the Bash rule allows.
    assert!(body.contains("${CLAUDE_PLUGIN_ROOT}/skills/self-reflect/memory-store"));
    // Step 1 has run before the model reads the skill: the `!` line runs the gather helper
    // (allowed above) with this session's id, so the live session's prompts are read too.
    let bang = "!`\"${CLAUDE_PLUGIN_ROOT}/skills/self-reflect/gather\" \"${CLAUDE_SESSION_ID}\"`";
    assert!(body.contains(bang), "body lacks {bang}");
    let commands = body
        .split(|c: char| c.is_whitespace())
        .filter(|w| w.starts_with("!`"))
        .count();
    assert_eq!(commands, 1, "one `!` command only");
    assert!(body.contains("$ARGUMENTS"), "the focus argument is used");
    let known: Vec<&str> = fm.keys().map(String::as_str).collect();
    for key in &known {
        assert!(
            [
                "name",
                "description",
                "argument-hint",
                "disable-model-invocation",
                "allowed-tools"
            ]
            .contains(key),
            "unexpected frontmatter key {key}"
        );
    }
}

#[test]
fn toggle_skill_frontmatter_is_valid_and_runs_its_runner() {
    let (fm, body) = frontmatter(&read("skills/self-reflect-toggle/SKILL.md"));
    assert_eq!(fm["name"], "reflect-toggle");
    assert!(fm["description"].len() >= 40);
    assert_eq!(fm["disable-model-invocation"], "true");
    assert_eq!(fm["argument-hint"], "[on|off|status]");
    let runner = "${CLAUDE_PLUGIN_ROOT}/skills/self-reflect-toggle/run-toggle";
    check_allowed_tools("reflect-toggle", &fm["allowed-tools"], &[runner]);
    // The `!` line runs the runner (allowed above) with the user's arguments, before the model sees it.
    let bang = format!("!`\"{runner}\" $ARGUMENTS`");
    assert!(body.contains(&bang), "body lacks {bang}");
}

/// Every `memory-store SUB --flag` inside code (inline spans, indented or fenced blocks) of `text`.
fn memory_store_mentions(text: &str) -> Vec<(String, Vec<String>)> {
    let mut code: Vec<String> = Vec::new();
    let mut fenced = false;
    for line in text.lines() {
        if line.trim_start().starts_with("```") {
            fenced = !fenced;
            continue;
        }
        if fenced || line.starts_with("    ") {
            code.push(line.to_string());
        }
        code.extend(
            line.split('`')
                .enumerate()
                .filter(|(i, _)| i % 2 == 1)
                .map(|(_, s)| s.to_string()),
        );
    }
    let mut out = Vec::new();
    for snippet in code {
        let tokens: Vec<&str> = snippet.split_whitespace().collect();
        for (i, t) in tokens.iter().enumerate() {
            let t = t.trim_end_matches(['"', '\\']);
            if !(t == "memory-store" || t.ends_with("/memory-store")) {
                continue;
            }
            let Some(sub) = tokens.get(i + 1) else {
                continue;
            };
            let flags = tokens[i + 2..]
                .iter()
                .take_while(|t| !["|", "&&", ";", "||"].contains(t))
                .filter(|t| t.starts_with("--"))
                .map(|t| t.split('=').next().unwrap().to_string())
                .collect();
            out.push((sub.to_string(), flags));
        }
    }
    out
}

#[test]
fn reflect_skill_names_only_real_memory_store_subcommands_and_flags() {
    let env = Env::new();
    let text = read("skills/self-reflect/SKILL.md");
    let mentions = memory_store_mentions(&text);
    let subs: std::collections::BTreeSet<&str> = mentions.iter().map(|(s, _)| s.as_str()).collect();
    // The seven steps need at least these; a rewrite that drops one should fail here.
    for needed in [
        "query", "get", "append", "update", "promote", "dismiss", "prune", "stats", "doctor",
        "digest",
    ] {
        assert!(
            subs.contains(needed),
            "SKILL.md never runs memory-store {needed}"
        );
    }
    for (sub, flags) in &mentions {
        let out = env
            .cmd("memory-store")
            .args([sub, "--help"])
            .output()
            .unwrap();
        assert!(
            out.status.success(),
            "SKILL.md runs `memory-store {sub}`, which does not exist"
        );
        let help = stdout(&out);
        for flag in flags {
            assert!(
                help.contains(&format!("{flag} ")) || help.contains(&format!("{flag}\n")),
                "SKILL.md runs `memory-store {sub} {flag}`; its --help has no {flag}:\n{help}"
            );
        }
    }
    // The index query comes first, with exactly these flags.
    assert_eq!(
        mentions[0],
        (
            "query".to_string(),
            vec!["--status".to_string(), "--format".to_string()]
        )
    );
    assert!(text.contains("query --status captured --format index"));
    assert!(text.contains("stats --format statusline"));
    // What the second look stores says where it came from.
    assert!(text.contains(r#""source":{"hook":"reflect","line":LINE,"origin":"user"}"#));
    assert!(text.contains("memory-store update ID... --status analyzed"));
}

#[test]
#[cfg(unix)] // runs a shell helper: see sh_helpers
fn the_gather_step_lists_this_projects_signals_and_the_digest_and_never_fails() {
    let env = Env::new();
    let root = fake_plugin(&env, "skills/self-reflect/gather");
    let gather = root.join("skills/self-reflect/gather");
    let app = env.dir.path().join("app");
    let other = env.dir.path().join("other");
    for dir in [&app, &other] {
        fs::create_dir_all(dir.join(".git")).unwrap();
    }
    // Not installed: it says so, and exits 0 (a failing `!` command would drop the whole skill).
    fs::copy(
        repo().join("skills/self-reflect/memory-store"),
        root.join("skills/self-reflect/memory-store"),
    )
    .unwrap();
    let out = sh_in(&env, &gather, &app, &["sid-1"]);
    assert_eq!(out.status.code(), Some(0));
    assert!(stdout(&out).contains("/reflect-toggle on"), "{out:?}");

    install_memory_store(&env);
    for (content, kind, project) in [
        ("use pnpm in app", "correction", &app),
        ("use yarn in other", "correction", &other),
        ("keep answers short", "preference", &other),
    ] {
        let signal = serde_json::json!({"type": kind, "content": content, "project": project});
        env.cmd("memory-store")
            .env("REFLECT_HOME", &env.data)
            .args(["append", &signal.to_string()])
            .assert()
            .success();
    }
    // The live session: no cursor yet, its transcript where Claude Code keeps it.
    let slug: String = app
        .to_string_lossy()
        .chars()
        .map(|c| if c.is_ascii_alphanumeric() { c } else { '-' })
        .collect();
    let transcripts = env.config.join("projects").join(slug);
    fs::create_dir_all(&transcripts).unwrap();
    let prompt = serde_json::json!({"type": "user", "uuid": "u1",
        "message": {"role": "user", "content": "the cache is per user, not global"}});
    fs::write(transcripts.join("sid-1.jsonl"), format!("{prompt}\n")).unwrap();
    let out = sh_in(&env, &gather, &app, &["sid-1"]);
    assert_eq!(out.status.code(), Some(0));
    let text = stdout(&out);
    assert!(text.contains("use pnpm in app"), "{text}");
    assert!(text.contains("keep answers short"), "{text}");
    assert!(text.contains("(global)"), "{text}");
    assert!(!text.contains("use yarn"), "{text}");
    assert!(
        text.contains("## session sid-1") && text.contains("L1 the cache is per user"),
        "{text}"
    );
    assert!(text.contains("memory-store digest --mark d"), "{text}");
    let saved: String = fs::read_dir(env.data.join("digests"))
        .unwrap()
        .flatten()
        .map(|e| crate::digest::marks_of_saved(&fs::read_to_string(e.path()).unwrap()))
        .collect();
    assert!(saved.contains("\"sid-1:1:1\""), "{saved}");
}

#[test]
fn reflect_skill_signal_types_are_the_stores() {
    // The skill lists the types `memory-store append` accepts; each must be one the store knows.
    let env = Env::new();
    let text = read("skills/self-reflect/SKILL.md");
    let list = text
        .split("Types:")
        .nth(1)
        .expect("a Types: list")
        .split('.')
        .next()
        .unwrap();
    let types: Vec<&str> = list
        .split(',')
        .map(|t| t.trim())
        .filter(|t| !t.is_empty())
        .collect();
    assert!(types.len() >= 8, "{types:?}");
    for t in types {
        let json = format!(r#"{{"type":"{t}","content":"probe {t}"}}"#);
        env.cmd("memory-store")
            .args(["append", &json])
            .assert()
            .success();
    }
}

#[test]
fn toggle_skill_actions_exist_in_reflect_toggle() {
    let env = Env::new();
    let (fm, _) = frontmatter(&read("skills/self-reflect-toggle/SKILL.md"));
    let out = env.cmd("reflect-toggle").arg("--help").output().unwrap();
    assert!(out.status.success());
    let help = stdout(&out);
    for action in fm["argument-hint"].trim_matches(['[', ']']).split('|') {
        assert!(
            help.contains(action),
            "reflect-toggle --help lacks {action}:\n{help}"
        );
    }
}

#[test]
fn manifests_parse_and_agree() {
    let plugin: Value = serde_json::from_str(&read(".claude-plugin/plugin.json")).unwrap();
    let market: Value = serde_json::from_str(&read(".claude-plugin/marketplace.json")).unwrap();
    assert_eq!(plugin["name"], "self-improvement");
    assert_eq!(
        plugin["version"],
        env!("CARGO_PKG_VERSION"),
        "plugin.json version follows Cargo.toml"
    );
    assert_eq!(plugin["license"], "MIT");
    assert!(plugin["description"].as_str().is_some_and(|d| d.len() > 20));
    assert!(plugin["author"]["name"].is_string());
    assert!(plugin["keywords"].as_array().is_some_and(|k| !k.is_empty()));
    // Capture is off until `reflect-toggle on`: the plugin itself ships no hook.
    assert!(
        plugin.get("hooks").is_none(),
        "plugin.json must not declare hooks"
    );
    assert!(
        !repo().join("hooks/hooks.json").exists(),
        "no hooks/hooks.json"
    );

    assert!(market["name"].as_str().is_some_and(|n| !n.is_empty()));
    assert!(market["owner"]["name"].is_string());
    let entries = market["plugins"].as_array().unwrap();
    assert_eq!(entries.len(), 1);
    let entry = &entries[0];
    assert_eq!(entry["name"], plugin["name"]);
    assert_eq!(entry["version"], plugin["version"]);
    let source = entry["source"].as_str().unwrap();
    assert!(
        source.starts_with("./") && !source.contains(".."),
        "{source}"
    );
    // Relative sources resolve against the directory holding .claude-plugin/: here, the repo itself.
    let root = repo().join(source);
    let named: Value =
        serde_json::from_str(&fs::read_to_string(root.join(".claude-plugin/plugin.json")).unwrap())
            .unwrap();
    assert_eq!(named["name"], plugin["name"]);
}

// The two shell helpers, run for real in a fake plugin root: POSIX sh, run by Git Bash on Windows,
// which a Windows test binary cannot start by itself (see main.rs on first_use), so the tests that
// run them are Unix's.
#[cfg(unix)]
pub(crate) use sh_helpers::{fake_plugin, install_memory_store, sh, sh_in, write_exe};

#[cfg(unix)]
mod sh_helpers {
    use std::fs;
    use std::os::unix::fs::PermissionsExt;
    use std::path::{Path, PathBuf};
    use std::process::Command;

    use crate::util::{repo, Env};

    pub(crate) fn write_exe(path: &Path, body: &str) {
        fs::create_dir_all(path.parent().unwrap()).unwrap();
        fs::write(path, body).unwrap();
        fs::set_permissions(path, fs::Permissions::from_mode(0o755)).unwrap();
    }

    /// A plugin root holding a copy of one helper at its real relative path.
    pub(crate) fn fake_plugin(env: &Env, helper: &str) -> PathBuf {
        let root = env.dir.path().join("plugin");
        let dst = root.join(helper);
        fs::create_dir_all(dst.parent().unwrap()).unwrap();
        fs::copy(repo().join(helper), &dst).unwrap();
        root
    }

    /// Run a script the test has just written. Another test thread may fork while our write fd is open;
    /// until that child execs, the file is "busy" (ETXTBSY) for exec, here or in a shell that execs it,
    /// so that one error is retried.
    pub(crate) fn sh(
        env: &Env,
        script: &Path,
        args: &[&str],
        vars: &[(&str, &Path)],
    ) -> std::process::Output {
        let busy = |out: &std::io::Result<std::process::Output>| match out {
            Err(e) => e.kind() == std::io::ErrorKind::ExecutableFileBusy,
            Ok(o) => {
                o.status.code() == Some(126) && String::from_utf8_lossy(&o.stderr).contains("busy")
            }
        };
        for attempt in 0.. {
            let mut cmd = Command::new(script);
            cmd.env_clear()
                .env("PATH", std::env::var_os("PATH").unwrap_or_default())
                .env("HOME", &env.home)
                .args(args)
                .current_dir(env.dir.path());
            for (k, v) in vars {
                cmd.env(k, v);
            }
            let out = cmd.output();
            if attempt < 50 && busy(&out) {
                std::thread::sleep(std::time::Duration::from_millis(20));
                continue;
            }
            return out.unwrap();
        }
        unreachable!()
    }

    /// This build's memory-store where `reflect-toggle on` installs it (`<data dir>/bin`).
    pub(crate) fn install_memory_store(env: &Env) {
        let bin = env.data.join("bin");
        fs::create_dir_all(&bin).unwrap();
        fs::copy(
            crate::util::bin_path("memory-store"),
            bin.join("memory-store"),
        )
        .unwrap();
    }

    /// [`sh`] in `dir`, with the test's config and data dirs.
    pub(crate) fn sh_in(
        env: &Env,
        script: &Path,
        dir: &Path,
        args: &[&str],
    ) -> std::process::Output {
        let mut cmd = Command::new(script);
        cmd.env_clear()
            .env("PATH", std::env::var_os("PATH").unwrap_or_default())
            .env("HOME", &env.home)
            .env("CLAUDE_CONFIG_DIR", &env.config)
            .env("REFLECT_HOME", &env.data)
            .args(args)
            .current_dir(dir);
        cmd.output().unwrap()
    }
}

#[test]
#[cfg(unix)] // runs a shell helper: see sh_helpers
fn memory_store_launcher_finds_the_installed_binary() {
    let env = Env::new();
    let root = fake_plugin(&env, "skills/self-reflect/memory-store");
    let launcher = root.join("skills/self-reflect/memory-store");
    let fake = |dir: &std::path::Path, tag: &str| {
        write_exe(
            &dir.join("memory-store"),
            &format!("#!/bin/sh\necho \"{tag} $*\"\n"),
        )
    };
    // Nothing installed: a clear message, exit 1.
    let out = sh(&env, &launcher, &["stats"], &[]);
    assert_eq!(out.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&out.stderr).contains("/reflect-toggle on"));

    // The plugin's dist/ build is the fallback …
    fake(&root.join("dist"), "dist");
    assert_eq!(
        stdout(&sh(&env, &launcher, &["stats"], &[])),
        "dist stats\n"
    );
    // … ~/.claude/reflections/bin wins over it …
    fake(&env.home.join(".claude/reflections/bin"), "home");
    assert_eq!(
        stdout(&sh(&env, &launcher, &["query", "--format", "index"], &[])),
        "home query --format index\n"
    );
    // … $CLAUDE_CONFIG_DIR replaces ~/.claude, an empty REFLECT_HOME counts as unset …
    let config = env.dir.path().join("cfg");
    fake(&config.join("reflections/bin"), "config");
    let empty = std::path::Path::new("");
    let out = sh(
        &env,
        &launcher,
        &["get", "X"],
        &[("CLAUDE_CONFIG_DIR", &config), ("REFLECT_HOME", empty)],
    );
    assert_eq!(stdout(&out), "config get X\n");
    // … and $REFLECT_HOME wins over everything.
    let data = env.dir.path().join("data");
    fake(&data.join("bin"), "reflect-home");
    let out = sh(
        &env,
        &launcher,
        &["prune"],
        &[("CLAUDE_CONFIG_DIR", &config), ("REFLECT_HOME", &data)],
    );
    assert_eq!(stdout(&out), "reflect-home prune\n");
}

#[test]
#[cfg(unix)] // runs a shell helper: see sh_helpers
fn memory_store_launcher_runs_the_real_binary() {
    let env = Env::new();
    let root = fake_plugin(&env, "skills/self-reflect/memory-store");
    install_memory_store(&env);
    let launcher = root.join("skills/self-reflect/memory-store");
    let vars = [("REFLECT_HOME", env.data.as_path())];
    let out = sh(
        &env,
        &launcher,
        &[
            "append",
            r#"{"type":"correction","content":"Use pnpm, not npm"}"#,
        ],
        &vars,
    );
    assert!(out.status.success(), "{out:?}");
    let out = sh(&env, &launcher, &["stats", "--format", "statusline"], &vars);
    assert_eq!(stdout(&out), "reflect: 1 pending\n");
    // Its exit code is memory-store's: a usage error stays a usage error.
    let out = sh(&env, &launcher, &["no-such-subcommand"], &vars);
    assert_eq!(out.status.code(), Some(2));
}

/// The section of SKILL.md under `## <number>.`, up to the next `## `.
fn skill_step(text: &str, number: &str) -> String {
    let start = text
        .find(&format!("\n## {number}. "))
        .unwrap_or_else(|| panic!("no step {number}"));
    let rest = &text[start + 1..];
    let end = rest[3..].find("\n## ").map_or(rest.len(), |e| e + 3);
    rest[..end].to_string()
}

#[test]
fn reflect_skill_writes_nothing_before_approval_and_its_stdin_example_appends() {
    let text = read("skills/self-reflect/SKILL.md");
    // Classify decides only: no memory-store call that writes there (the category is recorded
    // at promote); it may read (`get`, `digest --show`).
    let classify = skill_step(&text, "3");
    let reads = |(sub, flags): &(String, Vec<String>)| {
        ["get", "query", "stats", "doctor"].contains(&sub.as_str())
            || (sub == "digest" && flags.iter().all(|f| f == "--show"))
    };
    let mentions = memory_store_mentions(&classify);
    assert!(
        mentions.iter().all(reads),
        "step 3 writes before approval: {mentions:?}\n{classify}"
    );
    let write = skill_step(&text, "5");
    let subs: Vec<String> = memory_store_mentions(&write)
        .into_iter()
        .map(|(s, _)| s)
        .collect();
    for needed in ["promote", "update", "setting"] {
        assert!(subs.iter().any(|s| s == needed), "step 5 lacks {needed}");
    }
    // The new categories and targets.
    for needle in [
        "**fact**",
        "AGENTS.md",
        "| Environment |",
        "| Gotchas |",
        "every project | `<config dir>/CLAUDE.md` | Conventions |",
        "`<config dir>/agents/<name>.md`",
        "multi-step procedure",
        "took back",
        // Only the user's own words take a rule back, not a later prompt that moves on.
        "takes no rule back",
        "--show SESSION:LINE",
        // A correction that only fixes this task's output, and a step's instruction repeated in
        // one session, are no lesson (the review's precision: docs/capture-quality.md).
        "propose a correction only as the lasting rule",
        "corrections with no lasting rule",
        "An instruction for the step at hand stays one when",
        // A question that redirects is a correction; a failure with no fix is proposed only as
        // a fact that lasts.
        "a question that\n     points at what you should have done",
        "a fact of the environment that holds tomorrow",
        // A failure a later session undid is passing; a fix that turns a check off is never
        // written down bare.
        "nor one the session, or a later one, undid",
        // A refusal's place is judged by the prompt of its turn (a question asked for no edit).
        "refused call with the prompt of its turn,",
        "only asked a question: a place marked `?`",
        // A program stopped while it ran counts with the refused ones (digest/refusals.rs).
        "a place marked `stopped`",
        "or turns a check off (`curl -k`,",
        // Nor is undoing the user's choice, or making up what is theirs to give.
        "undoes a choice the user made",
        // A way around the user's block is never a fix to write down.
        "is no fix: the block is the user's",
        // A domain fact lasts beyond the feature it was said in.
        "which later features rely on;",
        // --show's context after the prompt, for a correction taken back or a fixed failure,
        // and the turn's failed calls, which the index places at the prompt.
        "the start of the assistant's answer, the lines of its turn's calls that failed or that the\n   user refused or stopped (a stored one with its signal's id), and the user's next prompt",
        // A call the user stopped is no failure, unless what it printed shows why.
        "A call the user stopped is no failure; when what it had printed shows it waited",
        "(`<tool> waited for input: <what it asked>`)",
        // A failed call capture did not store has a way in; a `#` input saved in no file, too.
        "keeps is appended as one: `\"type\":\"failure\"`, `\"origin\":\"tool\"`, the failed call's own",
        "one in none of them was moved or removed since: present it, saying so",
        "its last call's command",
        // A run of the same error is one line after its first.
        "turn that failed alike after it, on one line: `and L9, L12 the same way`",
        // A resumed session is one conversation with the one it continues.
        "A heading's `same conversation as\n   S` says Claude Code wrote part of session S's conversation",
        "what\n   both hold is said in one session, not two",
        // Ranked by the sessions the index shows, then episodes.
        "`in K sessions`",
        "each part by the sessions it was seen in",
        // A heading names a directory only when it is not the root: that one is a signal's
        // project, never a `worked in` path (a model took one when the root went unsaid).
        "never a `worked in …` path nor the repository a lesson is\n   about",
        // A way of working tied to what the project is for stays in it (not every project's).
        "a\n  way of working tied to what this project is for",
        // A command the user ran in bash mode ranks with the rest, as the index sorts it.
        "before the rest (failures, a command they ran in bash mode",
        // Every prompt a lesson draws on is a sighting: the digest's `again at` places too.
        "Every prompt a lesson draws on is one",
        "each place its `again at` names",
        // A captured paste is no lesson; the same answer again and again is a preference.
        "a paste with no rule in the user's own words",
        "given again and again",
        "When nothing was worth proposing",
        // A rule "pick the recommended option, don't ask" never answers /reflect's own question.
        "asked every time, even when a memory file tells you to pick options",
        // Facts about the services a project uses, and a note asked for inside a task.
        "the services and tools it works with",
        "keep track of something",
        // A rule a session says it wrote is checked there; failures of one turn share a fix
        // only when they are one failure.
        "a rule is written when you find it there, not\n  because a session says so",
        "with the same error or job are one incident",
        // A correction of one thing is no rule the model widens on its own, and a task prompt's
        // requirements are that task's (the review's precision: docs/capture-quality.md).
        "would they give it again on another task?",
        "is your inference, not their lesson, unless",
        "make it outlast the task",
        "comes back on another\n  task or in another session",
        "not a detail a task prompt hands you to use",
        // A correction of the assistant's picture of the product's domain is a fact: the
        // durable labels keep them.
        "how the product's domain works when the\n     user corrects your picture of it",
        // A captured correction with no lasting rule is not presented "when unsure": the two
        // rules read as a contradiction to models.
        "a correction the **Corrections** rule\n  below finds no lasting rule in",
        // A correction naming the project's own tool for a job is that job's convention, not
        // one thing settled (annotators call "why not use the generate script?" durable).
        "One that names what the project already has for a kind of job",
        "or its place for a\n  kind of file",
        "is a\n  learning moment, not yet a rule: propose",
        // A correction of the user's own agent or command is a rule for that file, though the
        // session's output (annotators call them durable; section 2 drops what is written).
        "itself instructions for later sessions",
        // An agent's file reaches only that agent.
        "only it reads the file",
        // A home folder kept in git has no project file of its own (asked for in S63).
        "home folder itself a repository",
        // The same kind of request about new things each time is no rule across sessions, nor
        // is a check asked for once; the user's words behind a failure are their own lesson.
        "not the same kind of request about something new each time",
        "the same instruction comes back in another session",
        "A question about your work that names no rule",
        // An error the user pasted, once fixed, is a failure with its fix, and stays a tool's words.
        "So is an error the user pasted from their own terminal",
        "(the paste is a tool's words, never the user's)",
        "a lesson of the user's own: append them at their place",
        // The summary names the lines of failed and refused calls: a model probed for them.
        "names the lines of the calls that failed or that the user refused",
        // A failure's own line shows the calls after it: a fix capture did not record.
        "at the\n  failure's own line, `source.line` in `get`",
    ] {
        assert!(text.contains(needle), "SKILL.md lacks {needle}");
    }
    // The heredoc example of `append -` is what memory-store takes, quotes and all.
    let example: Vec<String> = text
        .split("append - <<'EOF'\n")
        .nth(1)
        .expect("an append - heredoc")
        .lines()
        .map(str::trim)
        .take_while(|l| *l != "EOF")
        .map(|l| l.replace("\"SESSION\"", "\"s-1\"").replace("LINE", "1"))
        .collect();
    assert_eq!(example.len(), 2, "{example:?}");
    let env = Env::new();
    env.known_sessions(&["s-1"]);
    let out = env
        .cmd("memory-store")
        .args(["append", "-"])
        .write_stdin(example.join("\n"))
        .output()
        .unwrap();
    assert!(out.status.success(), "{out:?}");
    assert_eq!(stdout(&out).lines().count(), 2, "{out:?}");
    let fact = env
        .store_lines()
        .into_iter()
        .find(|s| s["type"] == "discovery")
        .expect("the fact");
    assert_eq!(fact["tags"], serde_json::json!(["fact"]));
}

/// Right after `/reflect-toggle on` nothing was captured, but the project's history in Claude
/// Code's own transcripts reaches the model: the first `/reflect` has something to propose.
#[test]
#[cfg(unix)] // runs a shell helper: see sh_helpers
fn the_first_gather_after_install_shows_the_projects_history() {
    let env = Env::new();
    let root = fake_plugin(&env, "skills/self-reflect/gather");
    fs::copy(
        repo().join("skills/self-reflect/memory-store"),
        root.join("skills/self-reflect/memory-store"),
    )
    .unwrap();
    install_memory_store(&env);
    let gather = root.join("skills/self-reflect/gather");
    let app = env.dir.path().join("app");
    fs::create_dir_all(app.join(".git")).unwrap();
    let slug: String = app
        .to_string_lossy()
        .chars()
        .map(|c| if c.is_ascii_alphanumeric() { c } else { '-' })
        .collect();
    let folder = env.config.join("projects").join(slug);
    fs::create_dir_all(&folder).unwrap();
    let lines = [
        serde_json::json!({"type": "user", "uuid": "h1", "cwd": app,
            "message": {"role": "user", "content": "set up the release workflow"}}),
        serde_json::json!({"type": "assistant", "uuid": "h2", "cwd": app,
            "message": {"id": "m1", "role": "assistant",
                "content": [{"type": "text", "text": "I pushed the tag to main."}]}}),
        serde_json::json!({"type": "user", "uuid": "h3", "cwd": app,
            "message": {"role": "user", "content": "no, we never push tags by hand, the CI does it"}}),
    ];
    let text: String = lines.iter().map(|l| format!("{l}\n")).collect();
    fs::write(folder.join("old-session.jsonl"), text).unwrap();
    let out = sh_in(&env, &gather, &app, &["sid-now"]);
    assert_eq!(out.status.code(), Some(0));
    let text = stdout(&out);
    assert!(
        text.contains("Also looked at 1 session(s) from before capture was on"),
        "{text}"
    );
    assert!(
        text.contains("## session old-session")
            && text.contains("[after: I pushed the tag to main.] no, we never push tags by hand"),
        "{text}"
    );
}
