//! Our hooks ([`HOOKS`]) and the one place that decides whether a handler in settings.json is
//! ours ([`recognize`]): a command naming one of our hook binaries, or a legacy v1/v2 script.

use std::path::Path;
use std::sync::LazyLock;

use globset::{GlobBuilder, GlobSet, GlobSetBuilder};
use serde_json::{Map, Value};

/// One hook of ours: the event it listens to, its matcher, the binary it runs and its timeout.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct HookSpec {
    pub event: &'static str,
    /// `None`: the group has no matcher (PreCompact must fire for both `manual` and `auto`).
    pub matcher: Option<&'static str>,
    pub binary: &'static str,
    /// Seconds. Far above what the hooks need; it only bounds a hung process.
    pub timeout: u64,
}

/// The four hooks `on` registers, synchronous (no `async`: async hooks are killed at teardown in `-p`).
pub const HOOKS: [HookSpec; 4] = [
    HookSpec {
        event: "PreCompact",
        matcher: None,
        binary: "capture-signals",
        timeout: 30,
    },
    HookSpec {
        event: "PostToolUseFailure",
        matcher: None,
        binary: "capture-failure",
        timeout: 10,
    },
    // A SessionEnd `timeout` in a settings file raises the 1.5 s budget that all SessionEnd hooks
    // share (reference §2.4). 2 s gives a slow disk a little headroom while barely changing how long
    // the user's other SessionEnd hooks may hold up the end of a session.
    HookSpec {
        event: "SessionEnd",
        matcher: None,
        binary: "capture-session-summary",
        timeout: 2,
    },
    HookSpec {
        event: "SessionStart",
        matcher: Some("compact"),
        binary: "inject-signals",
        timeout: 10,
    },
];

/// `path` quoted for `sh -c` (Claude Code runs a `command` without `args` through a shell, and a home
/// dir may hold spaces): double quotes when nothing inside needs escaping there, else single quotes.
pub(crate) fn shell_quote(path: &Path) -> String {
    let s = path.to_string_lossy();
    if !s.contains(['"', '\\', '$', '`']) {
        format!("\"{s}\"")
    } else {
        format!("'{}'", s.replace('\'', r"'\''"))
    }
}

/// How a handler of ours starts its binary: see [`reflect_base::platform::hook_form`].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum HookForm {
    /// `"command": "\"/path/bin/capture-signals\""`, run by `sh -c`.
    Shell,
    /// `"command": "C:\\...\\bin\\capture-signals.exe", "args": []`, started directly.
    Exec,
}

impl HookForm {
    /// This platform's form: exec on Windows, shell elsewhere.
    pub const NATIVE: HookForm = if reflect_base::platform::hook_form::EXEC_FORM {
        HookForm::Exec
    } else {
        HookForm::Shell
    };
}

/// The exact `command` string we register for `spec` with binaries in `bin_dir`, in `form`.
pub(crate) fn command_for(spec: &HookSpec, bin_dir: &Path, form: HookForm) -> String {
    let binary = bin_dir.join(reflect_base::paths::binary_file(spec.binary));
    match form {
        HookForm::Shell => shell_quote(&binary),
        HookForm::Exec => binary.to_string_lossy().into_owned(),
    }
}

// ---------------------------------------------------------------------------------------------
// Recognition

/// Patterns for "ours": our four binary names (index = position in [`HOOKS`]), then their legacy
/// script names (same order), then any `self-reflect` path.
const PATTERNS: [&str; 9] = [
    "**/capture-signals",
    "**/capture-failure",
    "**/capture-session-summary",
    "**/inject-signals",
    "**/capture-signals.py",
    "**/capture-failure.sh",
    "**/capture-session-summary.py",
    "**/inject-signals.sh",
    "**/self-reflect/**",
];

static RECOGNIZER: LazyLock<GlobSet> = LazyLock::new(|| {
    let mut set = GlobSetBuilder::new();
    for p in PATTERNS {
        set.add(
            GlobBuilder::new(p)
                .literal_separator(true)
                .build()
                .expect("valid pattern"),
        );
    }
    set.build().expect("valid glob set")
});

/// What a handler is, when it is ours.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Recognized {
    /// Which of [`HOOKS`] it runs, when that can be told (a bare `self-reflect` path cannot).
    pub hook: Option<usize>,
    /// A v1/v2 script rather than one of our binaries.
    pub legacy: bool,
}

/// Split a command line into shell words (quotes and backslashes honoured, no expansion).
pub(super) fn shell_words(command: &str) -> Vec<String> {
    let mut words = Vec::new();
    let mut word = String::new();
    let mut in_word = false;
    let mut chars = command.chars();
    while let Some(c) = chars.next() {
        match c {
            '\'' => {
                in_word = true;
                for c in chars.by_ref() {
                    if c == '\'' {
                        break;
                    }
                    word.push(c);
                }
            }
            '"' => {
                in_word = true;
                while let Some(c) = chars.next() {
                    match c {
                        '"' => break,
                        '\\' => {
                            if let Some(next) = chars.next() {
                                word.push(next);
                            }
                        }
                        c => word.push(c),
                    }
                }
            }
            '\\' => {
                in_word = true;
                if let Some(next) = chars.next() {
                    word.push(next);
                }
            }
            c if c.is_whitespace() || matches!(c, ';' | '&' | '|' | '(' | ')' | '<' | '>') => {
                if in_word {
                    words.push(std::mem::take(&mut word));
                    in_word = false;
                }
            }
            c => {
                in_word = true;
                word.push(c);
            }
        }
    }
    if in_word {
        words.push(word);
    }
    words
}

/// Whether a hook handler (one element of a group's `hooks` array) is ours, current or legacy. The
/// `command` and, for the exec form, each of `args` are split into words and every word is matched as
/// a path: `"/home/u/.claude/reflections/bin/capture-failure"`, `python3 ~/x/capture-signals.py` and
/// `bash /opt/self-reflect/hooks/x.sh` are ours; `my-capture-failure` or `capture-failure-v9` are not.
pub(crate) fn recognize(handler: &Value) -> Option<Recognized> {
    let obj = handler.as_object()?;
    let mut words = Vec::new();
    let args = obj.get("args").and_then(Value::as_array);
    if let Some(cmd) = obj.get("command").and_then(Value::as_str) {
        words.extend(shell_words(cmd));
        if args.is_some() {
            // The exec form starts `command` as it is, a Windows path included.
            words.push(cmd.replace('\\', "/"));
        }
    }
    if let Some(args) = args {
        words.extend(args.iter().filter_map(Value::as_str).map(str::to_string));
    }
    let mut found: Option<Recognized> = None;
    for w in &words {
        // `capture-signals.exe` is the Windows build of `capture-signals`.
        let w = match w.len().checked_sub(4) {
            Some(cut) if w.is_char_boundary(cut) && w[cut..].eq_ignore_ascii_case(".exe") => {
                &w[..cut]
            }
            _ => w.as_str(),
        };
        for i in RECOGNIZER.matches(w) {
            let r = match i {
                0..=3 => Recognized {
                    hook: Some(i),
                    legacy: false,
                },
                4..=7 => Recognized {
                    hook: Some(i - 4),
                    legacy: true,
                },
                _ => Recognized {
                    hook: None,
                    legacy: true,
                },
            };
            // The most specific answer wins: a named binary over a bare self-reflect path.
            match &found {
                Some(f) if f.hook.is_some() => {}
                _ => found = Some(r),
            }
        }
    }
    found
}

/// Whether `group`'s matcher fires for every event `spec` cares about.
fn matcher_fits(spec: &HookSpec, group: &Map<String, Value>) -> bool {
    let matcher = group.get("matcher");
    match spec.matcher {
        // Omitted, "" and "*" all match both `manual` and `auto` (and every tool, every reason).
        None => match matcher {
            None | Some(Value::Null) => true,
            Some(Value::String(m)) => m.is_empty() || m == "*",
            _ => false,
        },
        Some(want) => matcher.and_then(Value::as_str) == Some(want),
    }
}

/// Whether `handler`, in `group` under `event`, is exactly what `on` registers for `spec`.
pub(super) fn is_current(
    spec: &HookSpec,
    event: &str,
    group: &Map<String, Value>,
    handler: &Value,
    bin_dir: &Path,
    form: HookForm,
) -> bool {
    let Some(h) = handler.as_object() else {
        return false;
    };
    let args_fit = match form {
        HookForm::Shell => h.get("args").is_none(),
        HookForm::Exec => h
            .get("args")
            .and_then(Value::as_array)
            .is_some_and(Vec::is_empty),
    };
    event == spec.event
        && matcher_fits(spec, group)
        && h.get("type").and_then(Value::as_str) == Some("command")
        && h.get("command").and_then(Value::as_str)
            == Some(command_for(spec, bin_dir, form).as_str())
        && args_fit
        && h.get("async").and_then(Value::as_bool) != Some(true)
}

// ---------------------------------------------------------------------------------------------
// The document
