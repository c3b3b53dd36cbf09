//! Failure episodes: a failed tool call, the retries of the same job that also failed, and what
//! resolved it, decided in the same pass that reads the calls after the failure.
//!
//! **The job of a call.** A Bash command's job is its program and its first argument (the
//! subcommand, script or target), read from the command's first segment that does something
//! (a leading `cd`, `export`, `source`, env assignments, `sudo`, `timeout N` and wrappers such as
//! `uv run`, `npx`, `bundle exec` are looked through). `npm`, `pnpm`, `yarn` and `bun` are one
//! program, and so are `python`/`python3` (version digits dropped): `npm install` and `pnpm
//! install` do the same job; `git add a.md` and `git add ../a.md` do; `git status` does not do
//! `git add`'s. A program whose subcommands come in groups (`docker stack deploy`, `git remote
//! add`, `gh pr view`) is read to the word after the group: `docker stack rm` run before
//! `docker stack deploy` worked is another command of the program, a change that may be the
//! fix, and `git remote -v` a look. Another tool's job is the tool itself. A command of several
//! steps (`&&`, `;`, a new line) also does the job of its last step that does the work, past
//! setup, looks and clean-up (`cd`, `echo`, `ls`, `rm -rf build`): a call that first changes
//! something, then does a failed call's last job, reruns it (`git config commit.gpgsign false
//! && git commit …` after `git add a && git commit …` failed, `pip install httpx && python
//! app.py`).
//!
//! **How an episode ends** (first that applies):
//! * a later call doing the same job succeeds:
//!   - after a file was edited: the fix was the edit (a compile error, a failing build): no
//!     lesson, nothing stored, unless the failure is an environment fact (below). One an edit
//!     can fix ([`fixed_by_an_edit`]: a missing module, a console's code page, another tool's
//!     failure) has its edits as its resolution, the first and the last (either may be the
//!     fix: the first often is, but work may come before it) with how many came between, and
//!     the commands that changed something (``edited tests/conftest.py: `from tests.x import
//!     y` → `from x import y`, then the same command``); any other (a timeout, a command the
//!     shell mangles) spanned other work, and is kept with no resolution;
//!   - after other commands that changed something (`pip install httpx`, `npm install` before
//!     `npm run build`, a config file rewritten with `echo … >`; not the same program and
//!     subcommand in other words), then the same command or another: those commands, then it,
//!     are the resolution (the last two, and one that threw work away, `rm -rf`, `git reset
//!     --hard`, a `--force`, is kept first and counts even when of the failed program: the
//!     review words such a fix with the check that makes it safe);
//!   - with another command (`pnpm install` after `npm install`, `git add ../a.md`), or a
//!     change and the rerun in one call: that command is the resolution (`resolution`);
//!   - with the same command and nothing in between: it was transient, nothing stored;
//! * the user speaks: when what they said is an instruction (a correction, a shared command)
//!   that names the failure (its error or its job, `speaks_of`), their words are the
//!   resolution; otherwise the episode ends unresolved;
//! * the pass ends: unresolved.
//!
//! **An unresolved failure is kept only when it is a fact of the environment** that the next
//! session meets again whatever it edits ([`environment_fact`]): a missing program or module,
//! a permission the user does not have (no sudo, a read-only or system path), a network or
//! authentication failure, a port in use, a command that times out, a program that needs a
//! terminal (`the input device is not a TTY`), text the console's code page cannot print
//! (`'gbk' codec can't encode`), a command Claude Code's shell mangles (a `$(…)` in a piped
//! one: `eval: line 1: syntax error near unexpected token`). A compile or test error
//! the assistant went on to fix, or left, is work in progress, not a lesson.
//!
//! A run of failures of one job within an episode is one signal: the first failure's error line
//! and source, the number of tries in `meta.tries`, and every failed call's id in
//! `meta.tool_use_ids` (so a failure the PostToolUseFailure hook stored for any of them is
//! completed, not stored again).

use serde_json::Value;

use reflect_store::signal::Signal;

/// Open episodes at once; an older one is closed unresolved when a new one needs room.
const MAX_OPEN: usize = 8;
/// Commands remembered between a failure and the same command's success.
const MAX_BETWEEN: usize = 2;
/// Longest resolution kept: a command that worked after one that failed often differs from it
/// only past a long path or a long list of arguments (a retry that only drops the failing part
/// reads as a fix when cut), and the review judges it by that difference.
const RESOLUTION_CHARS: usize = 480;
/// Longest command a resolution quotes (two may run before the retry: [`MAX_BETWEEN`]).
const COMMAND_CHARS: usize = 320;

/// What a tool call was doing, for telling a retry or an alternative of a failed call.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Job {
    /// Its program, every package manager as `npm` (a retry with another is the same job).
    program: String,
    /// Its program as it ran (`pnpm`).
    ran: String,
    subject: String,
    /// What it does: its subject, and for a program whose subjects are groups of commands
    /// ([`GROUPED`]) the word after it too (`stack deploy`, `remote add`).
    action: String,
    /// The words of its main segment that are not options (paths by their last part), sorted.
    words: Vec<String>,
    /// The command (another tool's input) as written: an identical retry is the same command.
    command: String,
    /// A Bash command (not another tool's call).
    shell: bool,
    /// The job of its last step (`&&`, `;`, a new line), when that step is another job than
    /// its first: `pip install httpx && python app.py` changes something, then does the job.
    then: Option<Box<Job>>,
}

impl Job {
    /// The job of a call of `tool` whose main input is `input` (a Bash command, a path…).
    pub fn of(tool: &str, input: &str) -> Job {
        if tool != "Bash" {
            return Job {
                program: tool.to_string(),
                ran: tool.to_string(),
                subject: String::new(),
                action: String::new(),
                words: Vec::new(),
                command: input.to_string(),
                shell: false,
                then: None,
            };
        }
        let mut job = Job::step(input);
        job.then = last_step(input)
            .filter(|last| !last.same_job(&job))
            .map(Box::new);
        job
    }

    /// The job of one shell step, or of a command by its first step that does something.
    fn step(command: &str) -> Job {
        let Parsed {
            program: ran,
            subject,
            action,
            words,
        } = program_and_subject(command);
        Job {
            program: family(&ran).to_string(),
            ran,
            subject,
            action,
            words,
            command: command.trim().to_string(),
            shell: true,
            then: None,
        }
    }

    /// The job its last step does: the job itself for a command of one step.
    fn last_job(&self) -> &Job {
        self.then.as_deref().unwrap_or(self)
    }

    /// Whether this call first changes something, then does `failed`'s job in its last step
    /// (`git config commit.gpgsign false && git commit …` after `git add a && git commit …`
    /// failed): the change is the fix, and this call is the rerun.
    fn changes_then_does(&self, failed: &Job) -> bool {
        let Some(last) = self.then.as_deref() else {
            return false;
        };
        last.same_job(failed.last_job()) && !self.only_looks() && !self.same_job(failed)
    }

    /// The call as a resolution quotes it, in one redacted line: the command, or the first text
    /// of another tool's input (its path, URL, query).
    fn shown(&self) -> String {
        let text = match serde_json::from_str::<serde_json::Value>(&self.command) {
            Ok(serde_json::Value::Object(input)) => input
                .values()
                .find_map(serde_json::Value::as_str)
                .unwrap_or_default()
                .to_string(),
            _ => self.command.clone(),
        };
        // Redacted before it is cut: a cut token would no longer match its rule.
        let redacted = reflect_store::redact::redact_prefix(&text, 16 * 1024);
        reflect_base::text::one_line(&redacted, COMMAND_CHARS)
    }

    /// The program (Bash) or the tool.
    pub fn program(&self) -> &str {
        &self.program
    }

    /// [`Job::program`] as it ran: a call the user refused is told by the package manager it
    /// ran (`pnpm` refused may mean "use yarn").
    pub fn program_as_run(&self) -> &str {
        &self.ran
    }

    /// What the program is asked to do (`git push`: `push`), empty when nothing names it.
    pub fn subject(&self) -> &str {
        &self.subject
    }

    /// The same program and subject, and at least half their words in common (`docker compose
    /// run app php artisan migrate` is not `docker compose run app sh -c "ls"`).
    fn same_job(&self, other: &Job) -> bool {
        if self.program.is_empty() || self.program != other.program || self.subject != other.subject
        {
            return false;
        }
        let shared = self
            .words
            .iter()
            .filter(|w| other.words.contains(w))
            .count();
        let all = self.words.len() + other.words.len() - shared;
        all == 0 || shared * 2 >= all
    }

    /// A command whose exit status says nothing of its own program: its output piped into a
    /// filter (`xcodebuild … | grep error`, the filter's status), or its failure swallowed
    /// (`npm test || true`). Its success is no resolution.
    pub fn masks_status(&self) -> bool {
        let cmd = self.command.trim_end().trim_end_matches(';').trim_end();
        let swallowed = [
            "|| true",
            "||true",
            "|| :",
            "|| exit 0",
            "; true",
            "; exit 0",
        ];
        if swallowed.iter().any(|end| cmd.ends_with(end)) {
            return true;
        }
        // The last stage of a pipeline (a single `|`, not `||`).
        let bytes = cmd.as_bytes();
        let last_pipe = (0..bytes.len()).rev().find(|&i| {
            bytes[i] == b'|' && bytes.get(i + 1) != Some(&b'|') && (i == 0 || bytes[i - 1] != b'|')
        });
        let Some(at) = last_pipe else { return false };
        const FILTERS: &[&str] = &[
            "grep", "rg", "egrep", "head", "tail", "less", "more", "cat", "tee", "wc", "sort",
            "uniq", "cut", "awk", "sed", "jq", "column", "tr", "xargs",
        ];
        let filter = cmd[at + 1..].split_whitespace().next().unwrap_or_default();
        FILTERS.contains(&filter) && !cmd.contains("pipefail")
    }

    /// A shell command that deletes files or throws work away ([`throws_work_away`]).
    fn discards(&self) -> bool {
        self.shell && throws_work_away(&self.command)
    }

    /// A call that only looks (lists, prints, searches): not a resolution of anything. One that
    /// writes its output to a file (`echo '{}' > ~/.docker/config.json`) changes something.
    pub fn only_looks(&self) -> bool {
        if writes_a_file(&self.command) {
            return false;
        }
        #[rustfmt::skip]
        const LOOKING: &[&str] = &[
            "ls", "cat", "which", "grep", "rg", "find", "head", "tail", "echo", "pwd", "type",
            "file", "stat", "env", "printenv", "wc", "tree", "less", "sleep", "ps", "whoami",
            "uname", "date", "du", "df", "true", "command", "where", "curl", "dig", "nslookup",
            "ping", "traceroute",
        ];
        // A service's, a container's or a repository's state is read, never changed, by these
        // (`git branch` and `git remote` alone list; with a name they create or change one;
        // `git stash` alone stashes the work).
        let action = self.action.as_str();
        let verb = action.rsplit(' ').next().unwrap_or_default();
        let lone = self.words.len() == 1;
        LOOKING.contains(&self.program.as_str())
            || self.program == "journalctl"
            || match self.program.as_str() {
                "git" => {
                    GIT_LOOKS.contains(&action) || (["branch", "remote"].contains(&action) && lone)
                }
                "systemctl" => SYSTEMCTL_LOOKS.contains(&action),
                "docker" | "docker-compose" | "podman" => DOCKER_LOOKS.contains(&verb),
                "kubectl" => KUBECTL_LOOKS.contains(&action),
                "gh" => ["list", "view", "status", "diff", "checks"].contains(&verb),
                _ => false,
            }
    }
}

/// Whether a shell `command` deletes files or throws work away: a segment that runs `rm` (or
/// its kin), `git reset --hard`, `git clean`, `git checkout -- …`, a forced push or any
/// `--force`. A fix that did so is quoted with it ([`Episodes::succeeded`]), so the review can
/// word the check that makes it safe rather than a bare rule to run it.
fn throws_work_away(command: &str) -> bool {
    // Segments as [`program_and_subject`] reads them; a keyword or `sudo` before the program.
    let deletes = command.split(['\n', ';', '|', '&']).any(|segment| {
        let mut words = segment
            .split_whitespace()
            .skip_while(|w| matches!(*w, "sudo" | "then" | "do" | "else"));
        words.next().is_some_and(|w| DELETING.contains(&w))
    });
    let words: Vec<&str> = command.split_whitespace().collect();
    deletes
        || words.iter().enumerate().any(|(i, &w)| {
            matches!(w, "--hard" | "--force" | "--force-with-lease")
                || (i > 0 && words[i - 1] == "git" && w == "clean")
                || (w == "--" && i > 0 && words[i - 1] == "checkout")
                || (matches!(w, "-f" | "-fd" | "-df") && words[..i].contains(&"push"))
        })
}

/// Whether a shell command sends output into a file (`>` or `>>` outside quotes, to anything
/// but another descriptor or the null device).
fn writes_a_file(command: &str) -> bool {
    let mut quote = None;
    let mut chars = command.char_indices().peekable();
    while let Some((at, c)) = chars.next() {
        match (quote, c) {
            (Some(q), c) if c == q => quote = None,
            (Some(_), _) => {}
            (None, '\'' | '"') => quote = Some(c),
            (None, '>') => {
                let rest = command[at + 1..].trim_start_matches('>').trim_start();
                let target = rest.split_whitespace().next().unwrap_or("");
                let null = ["/dev/null", "nul", "NUL", "$null"].contains(&target);
                if !target.is_empty() && !target.starts_with('&') && !null {
                    return true;
                }
                while chars.peek().is_some_and(|&(_, c)| c == '>') {
                    chars.next();
                }
            }
            _ => {}
        }
    }
    false
}

/// Programs that delete files.
const DELETING: &[&str] = &["rm", "rmdir", "unlink", "shred", "del", "rd", "Remove-Item"];

/// Words that only prepare a command's environment, looked through to its program.
const PREFIXES: &[&str] = &[
    "sudo", "time", "env", "exec", "nohup", "command", "npx", "bunx", "pnpx",
];
/// `<first> <second>` pairs that wrap the real program, `first` by its [`family`] (`pnpm dlx`
/// is `npm dlx` here).
const WRAPPERS: &[(&str, &str)] = &[
    ("uv", "run"),
    ("poetry", "run"),
    ("pipenv", "run"),
    ("bundle", "exec"),
    ("npm", "exec"),
    ("npm", "dlx"),
    ("conda", "run"),
];
/// Options of `ssh` that take an argument (`-i key`, `-p 2222`): what follows them is no host.
const SSH_ARGUMENT_OPTIONS: &[&str] = &[
    "-b", "-c", "-D", "-E", "-e", "-F", "-I", "-i", "-J", "-L", "-l", "-m", "-O", "-o", "-p", "-Q",
    "-R", "-S", "-W", "-w",
];
/// Segments that set up a shell rather than do the job.
const SETUP: &[&str] = &[
    "cd", "export", "source", ".", "set", "pushd", "nvm", "echo", "sleep", "unset", "alias",
];

/// What `git`, `systemctl`, `kubectl` do (their [`Job::action`]) that only reads state; for
/// `docker` and its kin, what the last word of it says.
const GIT_LOOKS: &[&str] = &[
    "status",
    "log",
    "diff",
    "show",
    "remote show",
    "remote get-url",
    "stash list",
];
const SYSTEMCTL_LOOKS: &[&str] = &["status", "is-active", "is-enabled", "list-units", "cat"];
#[rustfmt::skip]
const DOCKER_LOOKS: &[&str] = &[
    "ps", "ls", "logs", "inspect", "images", "info", "version", "stats", "top", "port", "events",
    "history", "search", "df", "config",
];
#[rustfmt::skip]
const KUBECTL_LOOKS: &[&str] = &[
    "get", "describe", "logs", "top", "explain", "version", "cluster-info", "api-resources",
    "config view", "config get-contexts", "config current-context", "rollout status",
    "rollout history",
];

/// A command's segment as a job reads it ([`program_and_subject`]).
#[derive(Debug, Default)]
struct Parsed {
    program: String,
    subject: String,
    action: String,
    words: Vec<String>,
}

/// Programs whose first argument names a group of commands, and those groups: what a call of
/// one does is the group and the word after it (`docker stack rm` before `docker stack deploy`
/// is another job's command, a change; `git remote add` is no look as `git remote -v` is).
#[rustfmt::skip]
const GROUPED: &[(&str, &[&str])] = &[
    ("docker", &[
        "compose", "stack", "service", "container", "image", "network", "volume", "node",
        "system", "context", "buildx", "swarm", "secret", "config", "plugin", "builder",
    ]),
    ("git", &["remote", "stash", "submodule", "worktree", "lfs"]),
    ("kubectl", &["config", "rollout"]),
    ("brew", &["services"]),
    ("gh", &[
        "pr", "issue", "repo", "run", "workflow", "release", "gist", "secret", "variable",
        "label", "auth", "cache",
    ]),
];

/// Options of a grouped command that take a value (`docker compose -f prod.yml up`): the value
/// is no command.
#[rustfmt::skip]
const GROUP_VALUE_OPTIONS: &[&str] = &[
    "-f", "--file", "-p", "--project-name", "--env-file", "--profile", "-c", "--context", "-n",
    "--namespace", "-R", "--repo",
];

/// The command of a [`GROUPED`] call's group (`deploy` of `docker stack deploy -c x.yml app`;
/// `args`: the words after the program), `None` when the program has no such group there.
fn group_verb<'a>(program: &str, args: &[&'a str]) -> Option<&'a str> {
    let (_, groups) = GROUPED.iter().find(|(p, _)| *p == program)?;
    let mut args = args.iter().copied();
    let group = args.find(|w| !w.starts_with('-'))?;
    if !groups.contains(&group.trim_matches(['"', '\''])) {
        return None;
    }
    while let Some(w) = args.next() {
        if GROUP_VALUE_OPTIONS.contains(&w) {
            args.next();
        } else if !w.starts_with('-') && !w.contains(['>', '<']) {
            return Some(w.trim_matches(['"', '\'']));
        }
    }
    None
}

/// The program (basename, lower case, version digits dropped), its first argument that is
/// not an option, what it does ([`GROUPED`]), and its words that are not options, of the first
/// segment of `command` that does something.
fn program_and_subject(command: &str) -> Parsed {
    let mut fallback = None;
    for segment in command.split(['\n', ';', '|', '&']) {
        let mut words = segment.split_whitespace().peekable();
        // Environment assignments, prefixes and their options.
        let mut prefixed = false;
        while let Some(&w) = words.peek() {
            let assignment = w.contains('=') && !w.starts_with(['-', '=']);
            if assignment || PREFIXES.contains(&w) {
                words.next();
            } else if w == "timeout" {
                words.next();
                words.next_if(|d| d.starts_with(|c: char| c.is_ascii_digit()));
            } else if prefixed && w.starts_with('-') {
                words.next();
                continue;
            } else {
                break;
            }
            prefixed = true;
        }
        let Some(first) = words.next() else { continue };
        let mut program = program_name(first);
        // Wrappers (`uv run`, `python -m`), possibly nested, name the real program after them.
        while let Some(&second) = words.peek() {
            if !(WRAPPERS.contains(&(family(&program), second))
                || (program == "python" && second == "-m"))
            {
                break;
            }
            words.next();
            match words.find(|w| !w.starts_with('-')) {
                Some(real) => program = program_name(real),
                None => break,
            }
        }
        if program == "ssh" {
            if let Some(remote) = remote_job(words.clone()) {
                return remote;
            }
        }
        let raw: Vec<&str> = words.collect();
        let mut rest: Vec<String> = raw
            .iter()
            .filter(|w| !w.starts_with('-') && !w.contains(['>', '<']))
            .map(|w| {
                let w = w.trim_matches(['"', '\'']);
                let last = w.trim_end_matches('/').rsplit('/').next().unwrap_or(w);
                last.chars().take(80).collect()
            })
            .filter(|w: &String| !w.is_empty())
            .take(24)
            .collect();
        let subject = rest.first().cloned().unwrap_or_default();
        let action = match group_verb(&program, &raw) {
            Some(verb) => format!("{subject} {verb}"),
            None => subject.clone(),
        };
        rest.sort();
        rest.dedup();
        let parsed = Parsed {
            program,
            subject,
            action,
            words: rest,
        };
        if SETUP.contains(&parsed.program.as_str()) {
            fallback.get_or_insert(parsed);
            continue;
        }
        return parsed;
    }
    fallback.unwrap_or_default()
}

/// The job of an `ssh` call's remote command (`words`: past `ssh`), its host one of its words:
/// `ssh host "sudo systemctl restart app"` restarts app, so another command there is another
/// job and a look there is no fix. `None` for a login with no command.
fn remote_job<'a>(mut words: std::iter::Peekable<impl Iterator<Item = &'a str>>) -> Option<Parsed> {
    while let Some(option) = words.next_if(|w| w.starts_with('-')) {
        if SSH_ARGUMENT_OPTIONS.contains(&option) {
            words.next();
        }
    }
    let host = words.next()?;
    let remote = words.collect::<Vec<_>>().join(" ");
    let mut parsed = program_and_subject(remote.trim_matches(['"', '\'']));
    if parsed.program.is_empty() {
        return None;
    }
    parsed.words.push(host.to_string());
    parsed.words.sort();
    Some(parsed)
}

/// The job of the last step of `command` that does its work (split at `&&`, `||`, `;` and new
/// lines; a pipeline stays one step), past the setup, looks and clean-up around it (`cd`,
/// `echo`, `ls`, `rm -rf build`); `None` for a command of one such step.
fn last_step(command: &str) -> Option<Job> {
    let mut doing = command
        .split(['\n', ';'])
        .flat_map(|part| part.split("&&"))
        .flat_map(|part| part.split("||"))
        .map(Job::step)
        .filter(|job| {
            let program = job.program.as_str();
            !program.is_empty()
                && !SETUP.contains(&program)
                && !DELETING.contains(&program)
                && !job.only_looks()
        });
    // Past the first step that does something: a command of one has no other last step.
    doing.next()?;
    doing.last()
}

/// A command word's program: its file name, lower case, without quotes, `.exe` or version
/// digits (`python3.12`: `python`).
fn program_name(word: &str) -> String {
    let word = word.trim_matches(['"', '\'', '(', ')']);
    let base = word.rsplit(['/', '\\']).next().unwrap_or(word);
    let base = base
        .strip_suffix(".exe")
        .unwrap_or(base)
        .to_ascii_lowercase();
    let name = base.trim_end_matches(|c: char| c.is_ascii_digit() || c == '.');
    let name = if name.is_empty() { base.as_str() } else { name };
    name.to_string()
}

/// The program a job is by: every package manager is `npm`.
fn family(program: &str) -> &str {
    match program {
        "pnpm" | "yarn" | "bun" => "npm",
        other => other,
    }
}

/// Error words of a module or package the code imports that is not there: a fact of the
/// environment ([`environment_fact`]), and one an edit can fix ([`fixed_by_an_edit`]).
const MISSING_MODULE: &[&str] = &[
    "no module named",
    "cannot find module",
    "modulenotfounderror",
    "cannot find package",
];

/// Whether a failure's error line states a fact of the environment that holds beyond this
/// session (see the module doc). `line` is the error line; `tried` what was run.
pub fn environment_fact(line: &str) -> bool {
    const FACTS: &[&str] = &[
        "command not found",
        "not recognized as an internal or external command",
        "is not recognized as the name of a cmdlet",
        "no such command",
        "not installed",
        "permission denied",
        "eacces",
        "eperm",
        "operation not permitted",
        "read-only file system",
        "sudo:",
        "is not in the sudoers",
        "could not resolve host",
        "name or service not known",
        "temporary failure in name resolution",
        "connection refused",
        "econnrefused",
        "network is unreachable",
        "certificate verify failed",
        "ssl certificate",
        "could not read username",
        "authentication failed",
        "not logged in",
        "unauthorized",
        "forbidden",
        "address already in use",
        "eaddrinuse",
        "port is already allocated",
        "externally-managed-environment",
        "externally managed",
        "no matching distribution",
        "requires xcode",
        "xcrun: error",
        "no space left on device",
        "out of memory",
        "timed out",
        "unsupported url type",
        "unsupported engine",
        "is not supported on this",
        "docker daemon",
        "is the docker daemon running",
        // A program that needs a terminal, which Claude Code's shell is not (`docker exec -it`,
        // an interactive CLI).
        "not a tty",
        "raw mode is not supported",
        "stdin is not a terminal",
        // Claude Code's shell runs a command through `eval` and mangles a `$(…)` in a piped
        // one into `\$ (`: it fails so in every session until the command is written
        // another way (the substitution in a call of its own, or `bash -c '…'`).
        "eval: line 1: syntax error near unexpected token `('",
    ];
    let lower = line.to_ascii_lowercase();
    // A module of the project's own, by a relative or absolute path, is a mistake in the work.
    let own_module = ["cannot find module '.", "cannot find module '/"]
        .iter()
        .any(|m| lower.contains(m));
    let fact = FACTS
        .iter()
        .chain(MISSING_MODULE)
        .any(|f| lower.contains(f));
    !own_module && (fact || console_codec(&lower))
}

/// Whether a `lower`-cased error line says text could not be written in the console's or the
/// locale's code page (`'gbk' codec can't encode`, `'charmap'`, `'cp1252'`, `'ascii'`): a
/// Windows console or a bare locale, which the next session's `print` of an emoji meets again,
/// whatever the work edits. A UTF codec failing is a mistake in the work.
fn console_codec(lower: &str) -> bool {
    let Some(at) = lower.find("' codec can't encode") else {
        return false;
    };
    let codec = lower[..at].rsplit('\'').next().unwrap_or_default();
    !codec.starts_with("utf")
}

/// Whether a failure signal's content (`<tool> failed: <error line>`) is worth keeping with no
/// resolution: a fact of the environment, or the failure of a tool other than Bash (an agent
/// type, an MCP server, a fetch): no edit of the work fixes those, they say how things are set up.
pub fn kept_unresolved(content: &str) -> bool {
    !content.starts_with("Bash ") || environment_fact(content)
}

/// Whether an edit of the work can be what fixed a fact of the environment whose signal's
/// content is `content`: an import of a module that is not there, text the console's code page
/// cannot print, a failure of a tool other than Bash (a script PowerShell cannot parse). A
/// timeout, a permission, a login or a command the shell mangles is fixed by how the command
/// runs, not by the files edited meanwhile.
pub fn fixed_by_an_edit(content: &str) -> bool {
    let lower = content.to_ascii_lowercase();
    let mut module = MISSING_MODULE.iter().chain(&["importerror"]);
    !content.starts_with("Bash ") || module.any(|m| lower.contains(m)) || console_codec(&lower)
}

/// One failure episode being followed.
#[derive(Debug)]
struct Open {
    sig: Signal,
    job: Job,
    tries: u64,
    calls: Vec<String>,
    edited: bool,
    /// What its first and last edits did (only when an edit may be its fix), and how many
    /// edits there were.
    first_edit: Option<String>,
    last_edit: Option<String>,
    edits: usize,
    between: Vec<Job>,
    fact: bool,
    /// A fact an edit can fix ([`fixed_by_an_edit`]): its edits are quoted.
    edit_fixes: bool,
}

/// The episodes a detector follows; closed ones become signals.
#[derive(Debug, Default)]
pub struct Episodes {
    open: Vec<Open>,
}

/// How an episode ended.
enum End {
    Resolved(String),
    Unresolved,
    /// Fixed by an edit, or passed on a retry: no lesson.
    Dropped,
}

impl Episodes {
    pub fn is_empty(&self) -> bool {
        self.open.is_empty()
    }

    /// A failed call of `job` (its failure signal `sig`, its call id `call`). A retry of an open
    /// episode's job joins it; anything else opens an episode.
    pub fn failed(&mut self, job: Job, sig: Signal, call: &str, out: &mut Closed) {
        if let Some(open) = self.open.iter_mut().find(|o| o.job.same_job(&job)) {
            open.tries += 1;
            if !call.is_empty() && open.calls.len() < 16 {
                open.calls.push(call.to_string());
            }
            return;
        }
        if self.open.len() >= MAX_OPEN {
            let oldest = self.open.remove(0);
            let at = sig.source.line.unwrap_or(0);
            close(oldest, End::Unresolved, at, out);
        }
        let fact = kept_unresolved(&sig.content);
        let edit_fixes = fact && fixed_by_an_edit(&sig.content);
        self.open.push(Open {
            sig,
            job,
            tries: 1,
            calls: if call.is_empty() {
                Vec::new()
            } else {
                vec![call.to_string()]
            },
            edited: false,
            first_edit: None,
            last_edit: None,
            edits: 0,
            between: Vec::new(),
            fact,
            edit_fixes,
        });
    }

    /// A call of `job` succeeded (its result on line `at`).
    pub fn succeeded(&mut self, job: &Job, at: u64, out: &mut Closed) {
        // A shell command that changed something; another tool's call (a Read, a search, a
        // fetch) only looked, and an edit marks the episode edited instead.
        let changed = job.shell && !job.only_looks() && !job.command.is_empty();
        let discards = changed && job.discards();
        let mut i = 0;
        while i < self.open.len() {
            let open = &mut self.open[i];
            let rerun = job.changes_then_does(&open.job);
            if !open.job.same_job(job) && !rerun {
                // Another program's command, or the same program's for another job (`npm
                // install` before a `npm run build` that worked), may be the fix; one for the
                // same job in other words (`git add -u` after `git add x` failed) is a retry.
                // A command that threw work away counts whatever it ran, and is the last to
                // make room: the review must see it to word a fix safely.
                let other_job = job.program != open.job.program || job.action != open.job.action;
                if changed && (other_job || discards) {
                    if open.between.len() == MAX_BETWEEN {
                        let kept = open.between.iter().position(|b| !b.discards());
                        open.between.remove(kept.unwrap_or(0));
                    }
                    open.between.push(job.clone());
                }
                i += 1;
                continue;
            }
            if job.masks_status() {
                // Its exit status is another program's: it proves nothing fixed.
                i += 1;
                continue;
            }
            let open = self.open.remove(i);
            let end = if open.edited && !open.edit_fixes {
                // Work in progress an edit fixed; or a fact no edit fixes, which spanned other
                // work: what ran meanwhile is no more its fix than the edits (kept unresolved).
                End::Dropped
            } else if open.edited || !open.between.is_empty() {
                // What changed something before it worked (a config rewritten, a package
                // installed; for a fact of the environment, an edit too) is the fix, or part of
                // it, even when the rerun differs.
                let mut changes: Vec<String> = open.first_edit.iter().cloned().collect();
                match open.edits.saturating_sub(2) {
                    0 => {}
                    1 => changes.push("1 more edit".to_string()),
                    n => changes.push(format!("{n} more edits")),
                }
                changes.extend(open.last_edit.iter().cloned());
                changes.extend(open.between.iter().map(|b| format!("`{}`", b.shown())));
                let then = if job.command == open.job.command {
                    "the same command".to_string()
                } else {
                    format!("`{}`", job.shown())
                };
                End::Resolved(format!("{}, then {then}", changes.join(", ")))
            } else if job.command != open.job.command {
                End::Resolved(format!("`{}`", job.shown()))
            } else {
                End::Dropped
            };
            close(open, end, at, out);
        }
    }

    /// Whether an open episode would quote what the next edit did ([`Episodes::edited`]).
    pub fn quotes_edits(&self) -> bool {
        self.open.iter().any(|o| o.edit_fixes)
    }

    /// A file was edited (`shown`: what the edit did, when [`Episodes::quotes_edits`]): the
    /// open episodes may be fixed by it.
    pub fn edited(&mut self, shown: Option<String>) {
        for open in &mut self.open {
            open.edited = true;
            // `shown` is there whenever an episode takes edits as its fix.
            if let (true, Some(edit)) = (open.edit_fixes, &shown) {
                open.edits += 1;
                match open.first_edit {
                    None => open.first_edit = Some(edit.clone()),
                    Some(_) => open.last_edit = Some(edit.clone()),
                }
            }
        }
    }

    /// The user spoke (on line `at`); `redirect` is their words when they told the assistant
    /// what to do. Their words resolve only the episodes they are about (see [`speaks_of`]):
    /// "cancel" or a correction of something else is no fix of a failed `npm test`.
    pub fn user_spoke(&mut self, redirect: Option<&str>, at: u64, out: &mut Closed) {
        for open in std::mem::take(&mut self.open) {
            let end = match redirect {
                Some(words) if speaks_of(words, &open) => {
                    End::Resolved(format!("the user said: '{words}'"))
                }
                _ => End::Unresolved,
            };
            close(open, end, at, out);
        }
    }

    /// The transcript ends: every open episode ends unresolved.
    pub fn finish(&mut self, out: &mut Closed) {
        for open in std::mem::take(&mut self.open) {
            close(open, End::Unresolved, u64::MAX, out);
        }
    }
}

/// Words too common in prompts, commands and error lines to tie one to another.
const COMMON_WORDS: &[&str] = &[
    "and",
    "are",
    "bash",
    "bin",
    "but",
    "can",
    "cannot",
    "command",
    "directory",
    "does",
    "error",
    "failed",
    "file",
    "for",
    "found",
    "from",
    "have",
    "line",
    "not",
    "now",
    "run",
    "such",
    "that",
    "the",
    "then",
    "this",
    "try",
    "use",
    "usr",
    "was",
    "what",
    "when",
    "with",
    "you",
    "your",
];

/// Whether the user's `words` are about the failed call of `open`, and not that call again:
/// they share a word (three letters or more, not a common one) with its job (program and
/// subject) or its error, and are not the same job run in bash mode (`!nix flake check` after
/// it failed is no fix). Not the rest of the command, nor a path's words or a file's extension:
/// a heredoc's script, a subagent's task, `/Users/…` and `.sql` share a word with nearly
/// anything.
fn speaks_of(words: &str, open: &Open) -> bool {
    fn tokens(text: &str) -> impl Iterator<Item = String> + '_ {
        text.split(|c: char| !c.is_alphanumeric())
            .filter(|w| w.chars().count() >= 3)
            .map(str::to_lowercase)
            .filter(|w| !COMMON_WORDS.contains(&w.as_str()))
    }
    let ran = words
        .trim()
        .strip_prefix("<bash-input>")
        .and_then(|rest| rest.split("</bash-input>").next());
    if ran.is_some_and(|cmd| Job::of("Bash", cmd).same_job(&open.job)) {
        return false;
    }
    // A file's extension ties `a.sql` to every other `.sql`: its stem only.
    let not_paths = |text| {
        str::split_whitespace(text)
            .filter(|w| !w.contains(['/', '\\']))
            .map(|w| match w.rsplit_once('.') {
                Some((stem, ext)) if !stem.is_empty() && ext.chars().all(char::is_alphanumeric) => {
                    stem
                }
                _ => w,
            })
            .flat_map(tokens)
    };
    let failed: Vec<String> = tokens(&open.job.program)
        .chain(not_paths(&open.job.subject))
        .chain(not_paths(&open.sig.content))
        .collect();
    tokens(words).any(|w| failed.contains(&w))
}

/// Closed episodes' signals, each with the line of the event that closed it.
pub type Closed = Vec<(Signal, u64)>;

fn close(open: Open, end: End, at: u64, out: &mut Closed) {
    let mut sig = open.sig;
    match end {
        End::Resolved(how) => {
            sig.resolution = Some(reflect_base::text::one_line(&how, RESOLUTION_CHARS));
        }
        End::Unresolved if open.fact => {}
        End::Dropped if open.fact && open.edited => {}
        End::Unresolved | End::Dropped => return,
    }
    if open.tries > 1 {
        sig.meta.insert("tries".into(), Value::from(open.tries));
    }
    if open.calls.len() > 1 {
        sig.meta
            .insert("tool_use_ids".into(), Value::from(open.calls));
    }
    out.push((sig, at));
}

#[cfg(test)]
mod tests {
    use super::*;

    fn job(cmd: &str) -> Job {
        Job::of("Bash", cmd)
    }

    #[test]
    fn a_job_is_a_program_and_its_subject_through_setup_and_wrappers() {
        let pair = |cmd: &str| {
            let j = job(cmd);
            (j.program, j.subject)
        };
        let migrate = "docker compose run --rm app php artisan migrate --seed --force 2>&1";
        assert!(!job(migrate).same_job(&job("docker compose run --rm app sh -c \"ls /tmp\"")));
        assert!(job(migrate).same_job(&job(migrate)));
        assert_eq!(pair("npm install"), ("npm".into(), "install".into()));
        assert_eq!(
            pair("pnpm install --frozen-lockfile"),
            ("npm".into(), "install".into())
        );
        assert_eq!(
            pair("cd web && FOO=1 yarn test --grep x"),
            ("npm".into(), "test".into())
        );
        assert_eq!(
            pair("uv run python3 -m pytest -q"),
            ("pytest".into(), "".into())
        );
        assert_eq!(
            pair("sudo timeout 60 ./scripts/deploy.sh 2>&1"),
            ("deploy.sh".into(), "".into())
        );
        assert_eq!(
            pair("~/bin/chezmoi source-path"),
            ("chezmoi".into(), "source-path".into())
        );
        assert!(job("npm install").same_job(&job("pnpm install")));
        // A package manager's runner names the program it runs.
        for runner in ["pnpm exec", "pnpm dlx", "yarn dlx", "npm exec"] {
            assert_eq!(
                pair(&format!("{runner} prisma generate")).0,
                "prisma",
                "{runner}"
            );
        }
        assert!(job("git add mkdocs.yml").same_job(&job("git add ../mkdocs.yml")));
        assert!(!job("git add mkdocs.yml").same_job(&job("git status")));
        assert!(job("python3 tool.py").same_job(&job("python tool.py")));
    }

    #[test]
    fn a_remote_command_is_the_job_of_an_ssh_call() {
        let restart =
            r#"ssh -i ~/.ssh/id_deploy ops@10.0.0.2 "sudo systemctl restart app && sleep 3""#;
        let pair = |cmd: &str| {
            let j = job(cmd);
            (j.program, j.subject)
        };
        assert_eq!(pair(restart), ("systemctl".into(), "restart".into()));
        assert!(job(restart).same_job(&job("ssh -p 22 ops@10.0.0.2 'systemctl restart app'")));
        // Reading the logs there is a look, no fix.
        let logs = job(r#"ssh -i ~/.ssh/id_deploy ops@10.0.0.2 "sudo journalctl -u app -n 5""#);
        assert!(!logs.same_job(&job(restart)) && logs.only_looks());
        assert!(job("ssh ops@10.0.0.2 systemctl status app").only_looks());
        // A login with no command is ssh's own job.
        assert_eq!(job("ssh -o BatchMode=yes ops@10.0.0.2").program, "ssh");
        let failed = Signal::new(
            reflect_store::signal::Kind::Failure,
            "Bash failed: Job failed",
        );
        let mut episodes = Episodes::default();
        let mut out = Closed::new();
        episodes.failed(job(restart), failed, "t1", &mut out);
        episodes.succeeded(&logs, 5, &mut out);
        assert!(out.is_empty() && !episodes.is_empty(), "{out:?}");
    }

    /// A run whose exit status is a filter's or was swallowed proves nothing fixed: the failure
    /// stays open until a real run of the job succeeds.
    #[test]
    fn a_masked_exit_status_is_no_resolution() {
        for masked in [
            "xcodebuild -scheme App build 2>&1 | grep -A 10 error:",
            "xcodebuild -scheme App build | tail -40",
            "xcodebuild -scheme App build || true",
        ] {
            assert!(job(masked).masks_status(), "{masked}");
        }
        for real in [
            "xcodebuild -scheme App build",
            "set -o pipefail; xcodebuild -scheme App build | tail -40",
            "test -f a || make a",
        ] {
            assert!(!job(real).masks_status(), "{real}");
        }
        let failed = Signal::new(
            reflect_store::signal::Kind::Failure,
            "Bash failed: BUILD FAILED",
        );
        let mut episodes = Episodes::default();
        let mut out = Closed::new();
        let build = "xcodebuild -scheme App build";
        episodes.failed(job(build), failed, "t1", &mut out);
        episodes.succeeded(&job(&format!("{build} 2>&1 | grep error")), 5, &mut out);
        assert!(out.is_empty() && !episodes.is_empty(), "{out:?}");
        episodes.succeeded(&job(&format!("{build} -quiet")), 9, &mut out);
        assert_eq!(out.len(), 1);
        assert!(
            out[0].0.resolution.as_deref().unwrap().contains("-quiet"),
            "{out:?}"
        );
    }

    #[test]
    fn a_file_written_before_a_rerun_worked_is_part_of_its_fix() {
        for writes in [
            r#"echo '{"credsStore":""}' > ~/.docker/config.json"#,
            "cat defaults.conf >> /etc/app.conf",
            "make 2> build.log",
        ] {
            assert!(
                writes_a_file(writes) && !job(writes).only_looks(),
                "{writes}"
            );
        }
        for looks in [
            "echo done > /dev/null",
            "ls -la 2>&1",
            "cat a.txt >&2",
            r#"echo "a > b""#,
            "echo ok",
        ] {
            assert!(!writes_a_file(looks), "{looks}");
        }
        let failed = Signal::new(
            reflect_store::signal::Kind::Failure,
            "Bash failed: error getting credentials",
        );
        let mut episodes = Episodes::default();
        let mut out = Closed::new();
        episodes.failed(
            job("docker compose up -d db cache ai"),
            failed,
            "t1",
            &mut out,
        );
        // Reading the file is no part of the fix; rewriting it is.
        let read = Job::of("Read", r#"{"file_path":"/home/u/.docker/config.json"}"#);
        episodes.succeeded(&read, 4, &mut out);
        let fix = r#"echo '{"credsStore":""}' > ~/.docker/config.json"#;
        episodes.succeeded(&job(fix), 5, &mut out);
        episodes.succeeded(&job("docker compose up -d db cache"), 7, &mut out);
        assert_eq!(out.len(), 1);
        assert_eq!(
            out[0].0.resolution.as_deref(),
            Some(
                r#"`echo '{"credsStore":""}' > ~/.docker/config.json`, then `docker compose up -d db cache`"#
            )
        );
    }

    #[test]
    fn a_fix_that_threw_work_away_is_quoted_with_it() {
        for discards in [
            "rm -rf .git",
            "cd app && rm -r node_modules",
            "git reset --hard origin/main",
            "git clean -fd",
            "git checkout -- src/app.ts",
            "git push -f origin main",
            "chezmoi apply --force",
            "sudo rm /etc/app.conf",
            "cd build\nrm -rf dist",
        ] {
            assert!(throws_work_away(discards), "{discards}");
        }
        for keeps in [
            "git push origin main",
            "npm run format",
            "grep -rn rm src",
            "git checkout main",
            "echo rm -rf is dangerous",
        ] {
            assert!(!throws_work_away(keeps), "{keeps}");
        }
        // Deleting the repository the home folder held, then two more commands: the deletion
        // is what the fix most needs to say, so it keeps its place.
        assert_eq!(
            fixed(
                "git add -A",
                &[
                    "rm -rf .git",
                    "mkdir -p site",
                    "cp -r src site/",
                    "cd site && git add ."
                ]
            )
            .as_deref(),
            Some("`rm -rf .git`, `cp -r src site/`, then `cd site && git add .`")
        );
        // Another job of the same program is a fix; the same job in other words is a retry.
        assert_eq!(
            fixed(
                "npm run build",
                &[
                    "npm run lint -- --fix",
                    "cd web && npm install",
                    "npm run build"
                ]
            )
            .as_deref(),
            Some("`cd web && npm install`, then the same command")
        );
        // One of the same program counts too, when it threw work away.
        assert_eq!(
            fixed("git pull", &["git reset --hard origin/main", "git pull"]).as_deref(),
            Some("`git reset --hard origin/main`, then the same command")
        );
    }

    #[test]
    fn a_grouped_command_is_its_group_and_the_word_after_it() {
        let action = |cmd: &str| job(cmd).action;
        assert_eq!(
            action("docker stack deploy -c stack.yml app"),
            "stack deploy"
        );
        assert_eq!(
            action("docker compose -f prod.yml -p shop up -d"),
            "compose up"
        );
        assert_eq!(
            action("cd api && git remote add origin git@host:a/b"),
            "remote add"
        );
        assert_eq!(action("gh pr --repo a/b view 12"), "pr view");
        // Not a group: the subject alone, as before.
        assert_eq!(action("npm run build"), "run");
        assert_eq!(action("docker run --rm alpine true"), "run");
        assert_eq!(job("docker stack deploy -c stack.yml app").subject, "stack");

        for looks in [
            "docker service logs traefik --tail 10 | grep -i cert",
            "docker compose -f prod.yml ps",
            "docker ps -a",
            "docker stack ls",
            "git remote -v",
            "git remote get-url origin",
            "git branch --show-current",
            "git stash list",
            "kubectl get pods -n web",
            "dig @8.8.8.8 example.com",
            "kubectl rollout status deploy/web",
            "gh pr view 12",
        ] {
            assert!(job(looks).only_looks(), "{looks}");
        }
        for changes in [
            "docker stack rm app",
            "docker compose down",
            "docker system prune -f",
            "git remote set-url origin https://host/a/b.git",
            "git branch -D old",
            "git stash pop",
            "git stash",
            "kubectl apply -f web.yml",
            "kubectl rollout restart deploy/web",
            "gh auth login",
        ] {
            assert!(!job(changes).only_looks(), "{changes}");
        }
        // Another command of the group, run before the same one worked, is its fix; a look there
        // is none.
        assert_eq!(
            fixed(
                "docker stack deploy -c stack.yml app",
                &[
                    "docker service logs app_web --tail 20",
                    "docker stack rm app",
                    "docker stack deploy -c stack.yml app"
                ]
            )
            .as_deref(),
            Some("`docker stack rm app`, then the same command")
        );
        assert_eq!(
            fixed(
                "git push -u origin main",
                &[
                    "git remote -v",
                    "git remote set-url origin git@github.com:a/b.git",
                    "git push -u origin main"
                ]
            )
            .as_deref(),
            Some("`git remote set-url origin git@github.com:a/b.git`, then the same command")
        );
    }

    #[test]
    fn a_change_and_the_rerun_in_one_call_is_the_fix() {
        let commit = "git add .gitignore && git commit -m 'chore: ignore'";
        let unsigned = "git config --local commit.gpgsign false && git commit -m 'chore: ignore'";
        assert_eq!(
            fixed(commit, &[unsigned]).as_deref(),
            Some(format!("`{unsigned}`").as_str())
        );
        assert_eq!(
            fixed(
                "python app.py",
                &["cd api && pip install httpx && python app.py"]
            )
            .as_deref(),
            Some("`cd api && pip install httpx && python app.py`")
        );
        // Another commit's steps, or a look before the same command, fix nothing.
        let other = "git add b.md && git commit -m 'docs: b'";
        let look = "git status && git commit -m 'chore: ignore'";
        assert_eq!(fixed(commit, &[other, look]), None);
    }

    /// The resolution of a failed `command` after the calls `then` succeeded, in order; `None`
    /// while its episode is open.
    fn fixed(command: &str, then: &[&str]) -> Option<String> {
        let mut episodes = Episodes::default();
        let mut out = Closed::new();
        let sig = Signal::new(reflect_store::signal::Kind::Failure, "Bash failed: x");
        episodes.failed(job(command), sig, "t1", &mut out);
        for (at, call) in (3..).step_by(2).zip(then) {
            episodes.succeeded(&job(call), at, &mut out);
        }
        out.first().and_then(|closed| closed.0.resolution.clone())
    }

    #[test]
    fn environment_facts_are_told_from_work_in_progress() {
        for fact in [
            "Bash failed: /bin/bash: line 1: jq: command not found",
            "Bash failed: sudo: a terminal is required to read the password",
            "Bash failed: ModuleNotFoundError: No module named 'yaml'",
            "Bash failed: fatal: could not read Username for 'https://github.com'",
            "Write failed: EACCES: permission denied, open '/etc/hosts'",
            "Bash failed: UnicodeEncodeError: 'gbk' codec can't encode character '\\U0001f4ca' in position 2",
            "Bash failed: UnicodeEncodeError: 'charmap' codec can't encode characters in position 0-1",
            "Bash failed: the input device is not a TTY",
            "Bash failed: ERROR Raw mode is not supported on the current process.stdin",
            "Bash failed: /bin/bash: eval: line 1: syntax error near unexpected token `('",
        ] {
            assert!(environment_fact(fact), "{fact}");
        }
        for work in [
            "Bash failed: src/a.ts(3,7): error TS2322: Type 'string' is not assignable",
            "Bash failed: error[E0425]: cannot find value `y` in this scope",
            "Bash failed: SyntaxError: invalid syntax",
            "Bash failed: /bin/bash: line 3: syntax error near unexpected token `fi'",
            "Bash failed: UnicodeEncodeError: 'utf-8' codec can't encode character '\\ud83d': surrogates not allowed",
        ] {
            assert!(!environment_fact(work), "{work}");
        }
    }
}
