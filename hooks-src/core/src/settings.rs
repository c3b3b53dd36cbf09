//! Registering and removing our hooks in Claude Code's settings.json, and telling whether they are there.
//!
//! The file belongs to the user (and to Claude Code, which rewrites it on `plugin enable`). So an edit:
//! - touches only handlers that are ours: a command naming one of our four hook binaries, or a legacy
//!   v1/v2 script (`capture-signals.py`, `capture-failure.sh`, `capture-session-summary.py`,
//!   `inject-signals.sh`) or anything under a `self-reflect` directory, matched per shell word with
//!   globset ([`recognize`] is the one place that decides, `doctor` asks it too);
//! - drops a matcher group, an event array or `hooks` itself only when removing our handlers emptied it;
//! - keeps every other key in its order (serde_json `preserve_order`), the file's indentation unit and
//!   its trailing newline, and follows a symlinked file (the target is replaced, the link stays);
//! - refuses, with the exact place ("hooks.PreCompact is not an array"), a file it cannot understand,
//!   and then writes nothing;
//! - writes nothing when nothing changes, so `on` twice equals `on` once, byte for byte, with one backup.
//!
//! Concurrency: a read-modify-write runs under the sidecar lock `settings.json.lock` (next to the path
//! we were given, never renamed, never written) and re-reads the file under it, so two toggles, or a
//! toggle and any tool using the same protocol, never lose each other's update. Just before the rename
//! the file is compared with what was read, and the edit is redone if it moved. What no lock can do:
//! an editor or Claude Code itself takes no lock, so a save landing between that last comparison and
//! our rename (microseconds) is overwritten; the backup in `<data dir>/backups/` holds the version we
//! replaced.

use std::fs;
use std::path::{Path, PathBuf};
use std::sync::LazyLock;

use globset::{GlobBuilder, GlobSet, GlobSetBuilder};
use serde::Serialize;
use serde_json::{Map, Value};

use crate::error::{Error, IoContext, Result};
use crate::fsutil::{self, LockWait, USER_FILE};

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
    // A SessionEnd `timeout` in a settings file raises the shared 1.5 s SessionEnd budget; 5 s gives a
    // slow disk headroom without holding up the exit of a session noticeably when a hook hangs.
    HookSpec {
        event: "SessionEnd",
        matcher: None,
        binary: "capture-session-summary",
        timeout: 5,
    },
    HookSpec {
        event: "SessionStart",
        matcher: Some("compact"),
        binary: "inject-signals",
        timeout: 10,
    },
];

/// How many backups of settings.json are kept in `<data dir>/backups/`.
pub const SETTINGS_BACKUPS_KEPT: usize = 20;

/// The sidecar lock of a settings file: `settings.json.lock` next to it.
pub fn lock_path(settings: &Path) -> PathBuf {
    let mut name = settings
        .file_name()
        .map(|n| n.to_os_string())
        .unwrap_or_else(|| "settings.json".into());
    name.push(".lock");
    settings.with_file_name(name)
}

/// `path` quoted for `sh -c` (Claude Code runs a `command` without `args` through a shell, and a home
/// dir may hold spaces): double quotes when nothing inside needs escaping there, else single quotes.
pub fn shell_quote(path: &Path) -> String {
    let s = path.to_string_lossy();
    if !s.contains(['"', '\\', '$', '`']) {
        format!("\"{s}\"")
    } else {
        format!("'{}'", s.replace('\'', r"'\''"))
    }
}

/// The exact `command` string we register for `spec` with binaries in `bin_dir`.
pub fn command_for(spec: &HookSpec, bin_dir: &Path) -> String {
    shell_quote(&bin_dir.join(spec.binary))
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
fn shell_words(command: &str) -> Vec<String> {
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
pub fn recognize(handler: &Value) -> Option<Recognized> {
    let obj = handler.as_object()?;
    let mut words = Vec::new();
    if let Some(cmd) = obj.get("command").and_then(Value::as_str) {
        words.extend(shell_words(cmd));
    }
    if let Some(args) = obj.get("args").and_then(Value::as_array) {
        words.extend(args.iter().filter_map(Value::as_str).map(str::to_string));
    }
    let mut found: Option<Recognized> = None;
    for w in &words {
        for i in RECOGNIZER.matches(w.as_str()) {
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
fn is_current(
    spec: &HookSpec,
    event: &str,
    group: &Map<String, Value>,
    handler: &Value,
    bin_dir: &Path,
) -> bool {
    let Some(h) = handler.as_object() else {
        return false;
    };
    event == spec.event
        && matcher_fits(spec, group)
        && h.get("type").and_then(Value::as_str) == Some("command")
        && h.get("command").and_then(Value::as_str) == Some(command_for(spec, bin_dir).as_str())
        && h.get("args").is_none()
        && h.get("async").and_then(Value::as_bool) != Some(true)
}

// ---------------------------------------------------------------------------------------------
// The document

/// How the file was laid out, so a rewrite looks like the user's file.
#[derive(Debug, Clone, PartialEq, Eq)]
struct Style {
    /// `None`: the file was on one line; write it compact.
    indent: Option<String>,
    trailing_newline: bool,
    crlf: bool,
}

impl Style {
    /// Claude Code's own layout, for a new file.
    fn claude_code() -> Style {
        Style {
            indent: Some("  ".into()),
            trailing_newline: true,
            crlf: false,
        }
    }

    fn detect(text: &str) -> Style {
        if text.trim().is_empty() {
            return Style::claude_code();
        }
        // The indent unit is the leading whitespace of the first indented line (one level deep).
        let indent = if text.trim().contains('\n') {
            let unit = text
                .lines()
                .skip(1)
                .map(|l| {
                    let n = l.len() - l.trim_start_matches([' ', '\t']).len();
                    (&l[..n], l[n..].trim())
                })
                .find(|(ws, rest)| !ws.is_empty() && !rest.is_empty())
                .map(|(ws, _)| ws.to_string());
            Some(unit.unwrap_or_else(|| "  ".into()))
        } else {
            None
        };
        Style {
            indent,
            trailing_newline: text.ends_with('\n'),
            crlf: text.contains("\r\n"),
        }
    }
}

/// settings.json as read: its bytes (None when absent), the parsed root object and its layout.
#[derive(Debug, Clone)]
pub struct Document {
    path: PathBuf,
    original: Option<Vec<u8>>,
    pub root: Map<String, Value>,
    style: Style,
}

fn shape_error(path: &Path, what: impl std::fmt::Display) -> Error {
    Error::msg(format!("{}: {what}", path.display()))
}

/// Check the part of the file we walk: `hooks` → event arrays → group objects → `hooks` arrays →
/// handler objects. The first problem is reported with its exact place.
fn validate(path: &Path, root: &Map<String, Value>) -> Result<()> {
    let Some(hooks) = root.get("hooks") else {
        return Ok(());
    };
    let Some(events) = hooks.as_object() else {
        return Err(shape_error(path, "hooks is not an object"));
    };
    for (event, groups) in events {
        let Some(groups) = groups.as_array() else {
            return Err(shape_error(path, format!("hooks.{event} is not an array")));
        };
        for (i, group) in groups.iter().enumerate() {
            let Some(group) = group.as_object() else {
                return Err(shape_error(
                    path,
                    format!("hooks.{event}[{i}] is not an object"),
                ));
            };
            match group.get("hooks") {
                None => {
                    return Err(shape_error(
                        path,
                        format!("hooks.{event}[{i}] has no hooks array"),
                    ))
                }
                Some(Value::Array(handlers)) => {
                    if let Some(j) = handlers.iter().position(|h| !h.is_object()) {
                        return Err(shape_error(
                            path,
                            format!("hooks.{event}[{i}].hooks[{j}] is not an object"),
                        ));
                    }
                }
                Some(_) => {
                    return Err(shape_error(
                        path,
                        format!("hooks.{event}[{i}].hooks is not an array"),
                    ))
                }
            }
        }
    }
    Ok(())
}

impl Document {
    /// Read and check `path`. Absent, empty or blank counts as `{}`.
    pub fn load(path: &Path) -> Result<Document> {
        let original = match fs::read(path) {
            Ok(bytes) => Some(bytes),
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => None,
            Err(e) => return Err(Error::io("cannot read", path, e)),
        };
        Document::parse(path, original)
    }

    fn parse(path: &Path, original: Option<Vec<u8>>) -> Result<Document> {
        let text = match &original {
            None => "",
            Some(bytes) => std::str::from_utf8(bytes)
                .map_err(|e| shape_error(path, format!("not valid UTF-8 ({e})")))?,
        };
        let root = if text.trim().is_empty() {
            Map::new()
        } else {
            match serde_json::from_str::<Value>(text) {
                Ok(Value::Object(map)) => map,
                Ok(_) => return Err(shape_error(path, "the top level is not a JSON object")),
                Err(e) => return Err(shape_error(path, format!("not valid JSON ({e})"))),
            }
        };
        validate(path, &root)?;
        let style = Style::detect(text);
        Ok(Document {
            path: path.to_path_buf(),
            original,
            root,
            style,
        })
    }

    pub fn path(&self) -> &Path {
        &self.path
    }

    pub fn exists(&self) -> bool {
        self.original.is_some()
    }

    /// The document as the file would be written, in the file's own layout.
    pub fn render(&self) -> Vec<u8> {
        let value = Value::Object(self.root.clone());
        let mut out = Vec::new();
        match &self.style.indent {
            None => serde_json::to_writer(&mut out, &value).expect("serializes"),
            Some(indent) => {
                let fmt = serde_json::ser::PrettyFormatter::with_indent(indent.as_bytes());
                let mut ser = serde_json::Serializer::with_formatter(&mut out, fmt);
                value.serialize(&mut ser).expect("serializes");
            }
        }
        if self.style.trailing_newline {
            out.push(b'\n');
        }
        if self.style.crlf {
            let mut crlf = Vec::with_capacity(out.len() + out.len() / 16);
            for b in out {
                if b == b'\n' {
                    crlf.push(b'\r');
                }
                crlf.push(b);
            }
            out = crlf;
        }
        out
    }

    fn hooks_mut(&mut self) -> Option<&mut Map<String, Value>> {
        self.root.get_mut("hooks").and_then(Value::as_object_mut)
    }

    /// Every handler of ours in the file, in file order.
    pub fn found(&self) -> Vec<Found> {
        let mut out = Vec::new();
        let Some(events) = self.root.get("hooks").and_then(Value::as_object) else {
            return out;
        };
        for (event, groups) in events {
            for group in groups.as_array().into_iter().flatten() {
                let Some(group) = group.as_object() else {
                    continue;
                };
                for handler in group
                    .get("hooks")
                    .and_then(Value::as_array)
                    .into_iter()
                    .flatten()
                {
                    if let Some(recognized) = recognize(handler) {
                        out.push(Found {
                            event: event.clone(),
                            matcher: group
                                .get("matcher")
                                .and_then(Value::as_str)
                                .map(str::to_string),
                            command: describe(handler),
                            recognized,
                            group: group.clone(),
                            handler: handler.clone(),
                        });
                    }
                }
            }
        }
        out
    }

    /// Remove every handler of ours for which `keep` is false; drop a group, an event or `hooks`
    /// only when that emptied it. Returns what was removed.
    ///
    /// `on` passes `prune_events: false` and gets back the event arrays it emptied, so an event it
    /// refills keeps its place among the user's keys; it prunes the rest with [`Self::prune`].
    fn remove_ours(
        &mut self,
        prune_events: bool,
        mut keep: impl FnMut(&str, &Map<String, Value>, &Value) -> bool,
    ) -> (Vec<Change>, Vec<String>) {
        let mut removed = Vec::new();
        let mut emptied_events = Vec::new();
        let Some(events) = self.hooks_mut() else {
            return (removed, emptied_events);
        };
        let names: Vec<String> = events.keys().cloned().collect();
        for event in names {
            let Some(groups) = events.get_mut(&event).and_then(Value::as_array_mut) else {
                continue;
            };
            let mut emptied_group = false;
            groups.retain_mut(|group| {
                let Some(group) = group.as_object_mut() else {
                    return true;
                };
                let snapshot = group.clone();
                let Some(handlers) = group.get_mut("hooks").and_then(Value::as_array_mut) else {
                    return true;
                };
                let before = handlers.len();
                handlers.retain(|h| {
                    if recognize(h).is_none() || keep(&event, &snapshot, h) {
                        return true;
                    }
                    removed.push(Change::Removed {
                        event: event.clone(),
                        command: describe(h),
                    });
                    false
                });
                let now_empty = before > 0 && handlers.is_empty();
                emptied_group |= now_empty;
                !now_empty
            });
            if emptied_group && groups.is_empty() {
                emptied_events.push(event);
            }
        }
        if prune_events {
            self.prune(&emptied_events);
            emptied_events.clear();
        }
        (removed, emptied_events)
    }

    /// Drop the event arrays we emptied that are still empty, and `hooks` when that emptied it.
    fn prune(&mut self, emptied_events: &[String]) {
        let Some(events) = self.hooks_mut() else {
            return;
        };
        let mut dropped = false;
        for event in emptied_events {
            if events
                .get(event)
                .and_then(Value::as_array)
                .is_some_and(Vec::is_empty)
            {
                events.shift_remove(event);
                dropped = true;
            }
        }
        if dropped && events.is_empty() {
            self.root.shift_remove("hooks");
        }
    }

    /// Make the file hold exactly our four hooks, pointing into `bin_dir`: a current handler stays
    /// where it is (so a second `on` changes nothing), every other handler of ours — legacy scripts,
    /// stale paths, duplicates — goes, and a missing hook is appended as its own group.
    pub fn enable(&mut self, bin_dir: &Path) -> Vec<Change> {
        let mut kept = [false; 4];
        let (mut changes, emptied) = self.remove_ours(false, |event, group, handler| {
            for (i, spec) in HOOKS.iter().enumerate() {
                if !kept[i] && is_current(spec, event, group, handler, bin_dir) {
                    kept[i] = true;
                    return true;
                }
            }
            false
        });
        for (i, spec) in HOOKS.iter().enumerate() {
            if kept[i] {
                continue;
            }
            let command = command_for(spec, bin_dir);
            let mut handler = Map::new();
            handler.insert("type".into(), "command".into());
            handler.insert("command".into(), command.clone().into());
            handler.insert("timeout".into(), spec.timeout.into());
            let mut group = Map::new();
            if let Some(m) = spec.matcher {
                group.insert("matcher".into(), m.into());
            }
            group.insert("hooks".into(), Value::Array(vec![Value::Object(handler)]));
            let events = self
                .root
                .entry("hooks")
                .or_insert_with(|| Value::Object(Map::new()))
                .as_object_mut()
                .expect("validated: hooks is an object");
            events
                .entry(spec.event)
                .or_insert_with(|| Value::Array(Vec::new()))
                .as_array_mut()
                .expect("validated: events are arrays")
                .push(Value::Object(group));
            changes.push(Change::Added {
                event: spec.event.to_string(),
                command,
            });
        }
        self.prune(&emptied);
        changes
    }

    /// Remove every handler of ours, current and legacy, and nothing else.
    pub fn disable(&mut self) -> Vec<Change> {
        self.remove_ours(true, |_, _, _| false).0
    }

    /// Where our hooks stand in this file, judged against binaries in `bin_dir`.
    pub fn status(&self, bin_dir: &Path) -> Status {
        let found = self.found();
        let mut hooks = Vec::new();
        for spec in &HOOKS {
            let idx = HOOKS.iter().position(|s| s == spec).expect("listed");
            let mut current = None;
            let mut stale = Vec::new();
            for f in found.iter().filter(|f| f.recognized.hook == Some(idx)) {
                if current.is_none() && is_current(spec, &f.event, &f.group, &f.handler, bin_dir) {
                    current = Some(f.command.clone());
                } else {
                    stale.push(f.clone());
                }
            }
            let binary = bin_dir.join(spec.binary);
            hooks.push(HookStatus {
                spec: *spec,
                binary_ok: is_executable(&binary),
                binary,
                current,
                stale,
            });
        }
        let other = found
            .into_iter()
            .filter(|f| f.recognized.hook.is_none())
            .collect();
        Status { hooks, other }
    }
}

fn is_executable(path: &Path) -> bool {
    use std::os::unix::fs::PermissionsExt;
    fs::metadata(path).is_ok_and(|m| m.is_file() && m.permissions().mode() & 0o111 != 0)
}

/// A handler shown to the user: its command, plus `args` for the exec form.
fn describe(handler: &Value) -> String {
    let command = handler
        .get("command")
        .and_then(Value::as_str)
        .unwrap_or("<no command>");
    match handler.get("args").and_then(Value::as_array) {
        Some(args) => {
            let args: Vec<String> = args.iter().map(|a| a.to_string()).collect();
            format!("{command} {}", args.join(" "))
        }
        None => command.to_string(),
    }
}

/// A handler of ours found in the file.
#[derive(Debug, Clone)]
pub struct Found {
    pub event: String,
    pub matcher: Option<String>,
    pub command: String,
    pub recognized: Recognized,
    group: Map<String, Value>,
    handler: Value,
}

/// One edit to the file.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Change {
    Added { event: String, command: String },
    Removed { event: String, command: String },
}

impl Change {
    pub fn line(&self) -> String {
        match self {
            Change::Added { event, command } => format!("add    {event}: {command}"),
            Change::Removed { event, command } => format!("remove {event}: {command}"),
        }
    }
}

/// Where one of our hooks stands.
#[derive(Debug, Clone)]
pub struct HookStatus {
    pub spec: HookSpec,
    /// The registered command when it is exactly what `on` writes.
    pub current: Option<String>,
    /// Handlers that run this hook's binary or its legacy script but are not current.
    pub stale: Vec<Found>,
    pub binary: PathBuf,
    pub binary_ok: bool,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Overall {
    On,
    Off,
    Partial,
}

impl Overall {
    pub fn word(self) -> &'static str {
        match self {
            Overall::On => "on",
            Overall::Off => "off",
            Overall::Partial => "partial",
        }
    }
}

/// Where all our hooks stand.
#[derive(Debug, Clone)]
pub struct Status {
    pub hooks: Vec<HookStatus>,
    /// Legacy handlers that cannot be tied to one hook (a bare `self-reflect` path).
    pub other: Vec<Found>,
}

impl Status {
    pub fn overall(&self) -> Overall {
        let registered = self.hooks.iter().filter(|h| h.current.is_some()).count();
        let stale = self.hooks.iter().map(|h| h.stale.len()).sum::<usize>() + self.other.len();
        let binaries = self.hooks.iter().all(|h| h.binary_ok);
        if registered == HOOKS.len() && stale == 0 && binaries {
            Overall::On
        } else if registered == 0 && stale == 0 {
            Overall::Off
        } else {
            Overall::Partial
        }
    }

    /// What is wrong, one item per problem (empty when on or cleanly off).
    pub fn problems(&self) -> Vec<String> {
        let mut out = Vec::new();
        if self.overall() == Overall::Off {
            return out;
        }
        for h in &self.hooks {
            if h.current.is_none() {
                out.push(format!("{} hook missing", h.spec.event));
            } else if !h.binary_ok {
                out.push(format!(
                    "{} hook runs {}, which is missing or not executable",
                    h.spec.event,
                    h.binary.display()
                ));
            }
            for s in &h.stale {
                out.push(format!(
                    "{} hook{}: stale entry under {}: {}",
                    h.spec.event,
                    if s.recognized.legacy { " (legacy)" } else { "" },
                    s.event,
                    s.command
                ));
            }
        }
        for s in &self.other {
            out.push(format!("legacy entry under {}: {}", s.event, s.command));
        }
        out
    }

    /// The `status` report: the verdict, then one line per hook, then the problems.
    pub fn text(&self, settings: &Path) -> String {
        let overall = self.overall();
        let mut out = format!("reflect: {} ({})\n", overall.word(), settings.display());
        for h in &self.hooks {
            let state = match (&h.current, h.binary_ok) {
                (Some(_), true) => "registered",
                (Some(_), false) => "registered, binary missing",
                (None, _) if h.stale.is_empty() => "missing",
                (None, _) => "stale",
            };
            let event = match h.spec.matcher {
                Some(m) => format!("{}({m})", h.spec.event),
                None => h.spec.event.to_string(),
            };
            let command = h
                .current
                .clone()
                .or_else(|| h.stale.first().map(|s| s.command.clone()))
                .unwrap_or_else(|| "-".into());
            out.push_str(&format!("  {event:<22} {state:<12} {command}\n"));
        }
        for p in self.problems() {
            out.push_str(&format!("  problem: {p}\n"));
        }
        out
    }
}

// ---------------------------------------------------------------------------------------------
// Editing the file

/// What an edit did (or, in a dry run, would do).
#[derive(Debug, Clone)]
pub struct Outcome {
    pub changes: Vec<Change>,
    pub written: bool,
    pub backup: Option<PathBuf>,
}

/// How many times the edit is redone when the file moves under us between read and write.
const EDIT_ATTEMPTS: usize = 5;

/// Apply `edit` to the settings file at `path`: checked and planned on a first read (no lock, no
/// write when nothing would change or in a dry run), then redone under the sidecar lock on a fresh
/// read, backed up to `backups` and written atomically.
pub fn edit_file(
    path: &Path,
    backups: &Path,
    dry_run: bool,
    on_wait: &mut dyn FnMut(),
    mut edit: impl FnMut(&mut Document) -> Vec<Change>,
) -> Result<Outcome> {
    let mut planned = Document::load(path)?;
    let changes = edit(&mut planned);
    if changes.is_empty() || dry_run {
        return Ok(Outcome {
            changes,
            written: false,
            backup: None,
        });
    }
    refuse_read_only(path)?;
    fsutil::with_lock(&lock_path(path), LockWait::CLI, on_wait, || {
        for _ in 0..EDIT_ATTEMPTS {
            let mut doc = Document::load(path)?;
            let changes = edit(&mut doc);
            if changes.is_empty() {
                return Ok(Outcome {
                    changes,
                    written: false,
                    backup: None,
                });
            }
            let bytes = doc.render();
            refuse_read_only(path)?;
            // An editor takes no lock: if the file moved since our read, redo the edit on it.
            let now = match fs::read(path) {
                Ok(b) => Some(b),
                Err(e) if e.kind() == std::io::ErrorKind::NotFound => None,
                Err(e) => return Err(Error::io("cannot read", path, e)),
            };
            if now != doc.original {
                continue;
            }
            let backup = fsutil::backup(path, backups, SETTINGS_BACKUPS_KEPT, false)?;
            fsutil::atomic_write(path, &bytes, USER_FILE)?;
            return Ok(Outcome {
                changes,
                written: true,
                backup,
            });
        }
        Err(shape_error(
            path,
            format!("kept changing while we edited it ({EDIT_ATTEMPTS} attempts); try again"),
        ))
    })
}

/// A read-only settings file, or one in a read-only directory, was made so on purpose (home-manager,
/// a dotfiles checkout): refuse rather than replace it. Checked on the mode bits, so it holds for root
/// too, who could write anyway.
fn refuse_read_only(path: &Path) -> Result<()> {
    let target = fsutil::resolve_symlinks(path).ctx("cannot resolve", path)?;
    let read_only = |p: &Path| fs::metadata(p).is_ok_and(|m| m.permissions().readonly());
    if read_only(&target) {
        return Err(Error::msg(format!(
            "{} is read-only; make it writable first (nothing was changed)",
            target.display()
        )));
    }
    if let Some(dir) = target.parent().filter(|d| !d.as_os_str().is_empty()) {
        if read_only(dir) {
            return Err(Error::msg(format!(
                "{} is in a read-only directory ({}); make it writable first (nothing was changed)",
                target.display(),
                dir.display()
            )));
        }
    }
    Ok(())
}

/// Read the file and report where our hooks stand.
pub fn status(path: &Path, bin_dir: &Path) -> Result<Status> {
    Ok(Document::load(path)?.status(bin_dir))
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn doc(v: Value) -> Document {
        let text = serde_json::to_string_pretty(&v).unwrap() + "\n";
        Document::parse(Path::new("/s.json"), Some(text.into_bytes())).unwrap()
    }

    #[test]
    fn recognizes_ours_and_legacy_but_not_lookalikes() {
        let cases: &[(&str, Option<(Option<usize>, bool)>)] = &[
            (
                r#""/h o/.claude/reflections/bin/capture-signals""#,
                Some((Some(0), false)),
            ),
            ("capture-failure", Some((Some(1), false))),
            ("'/x/it'\\''s/bin/inject-signals'", Some((Some(3), false))),
            (
                "python3 ~/.claude/skills/x/capture-signals.py",
                Some((Some(0), true)),
            ),
            (
                "bash $HOME/hooks/capture-failure.sh --x",
                Some((Some(1), true)),
            ),
            (
                "python3 /a/capture-session-summary.py",
                Some((Some(2), true)),
            ),
            ("/a/inject-signals.sh", Some((Some(3), true))),
            (
                "bash ~/.claude/skills/self-reflect/hooks/other.sh",
                Some((None, true)),
            ),
            ("cd /tmp && /a/b/capture-signals", Some((Some(0), false))),
            ("my-capture-failure", None),
            ("/a/capture-failure-v9", None),
            ("/a/self-reflect-toggle/x.sh", None),
            ("echo capture-signals-like", None),
        ];
        for (command, want) in cases {
            let got =
                recognize(&json!({"type":"command","command":command})).map(|r| (r.hook, r.legacy));
            assert_eq!(&got, want, "{command}");
        }
        let exec = json!({"type":"command","command":"python3","args":["/o/capture-signals.py"]});
        assert_eq!(recognize(&exec).map(|r| r.legacy), Some(true));
    }

    #[test]
    fn shell_quote_survives_sh() {
        for p in ["/home/a b/bin/x", "/h/it's/x", "/h/$HOME\"`/x"] {
            let words = shell_words(&shell_quote(Path::new(p)));
            assert_eq!(words, [p], "{p}");
        }
    }

    #[test]
    fn enable_keeps_current_and_replaces_the_rest() {
        let bin = Path::new("/d/bin");
        let mut d = doc(json!({"hooks":{"PreCompact":[
            {"hooks":[{"type":"command","command":"python3 /x/capture-signals.py"}]},
            {"matcher":"auto","hooks":[{"type":"command","command":"mine"}]}
        ]}}));
        let changes = d.enable(bin);
        assert_eq!(changes.len(), 5, "{changes:?}");
        let once = d.render();
        assert!(d.enable(bin).is_empty());
        assert_eq!(d.render(), once);
        let pre = d.root["hooks"]["PreCompact"].as_array().unwrap();
        assert_eq!(
            pre.len(),
            2,
            "legacy group dropped, user's kept, ours appended"
        );
        assert_eq!(pre[0]["hooks"][0]["command"], "mine");
        assert_eq!(
            d.status(bin)
                .hooks
                .iter()
                .filter(|h| h.current.is_some())
                .count(),
            4
        );
    }

    #[test]
    fn replacing_legacy_keeps_the_place_of_hooks() {
        let mut d = doc(json!({"a":1,"hooks":{"PreCompact":[
            {"hooks":[{"type":"command","command":"python3 /x/self-reflect/capture-signals.py"}]}
        ],"Stop":[{"hooks":[{"type":"command","command":"/x/self-reflect/stop.sh"}]}]},"z":2}));
        d.enable(Path::new("/b"));
        let keys: Vec<&String> = d.root.keys().collect();
        assert_eq!(keys, ["a", "hooks", "z"]);
        let events: Vec<&String> = d.root["hooks"].as_object().unwrap().keys().collect();
        assert_eq!(
            events,
            [
                "PreCompact",
                "PostToolUseFailure",
                "SessionEnd",
                "SessionStart"
            ]
        );
    }

    #[test]
    fn disable_drops_only_what_it_emptied() {
        let mut d = doc(json!({"hooks":{
            "Stop":[],
            "PreCompact":[{"hooks":[]},{"hooks":[{"type":"command","command":"/b/capture-signals"},{"type":"command","command":"mine"}]}],
            "SessionEnd":[{"hooks":[{"type":"command","command":"/b/capture-session-summary"}]}]
        }}));
        assert_eq!(d.disable().len(), 2);
        assert_eq!(
            Value::Object(d.root.clone()),
            json!({"hooks":{"Stop":[],"PreCompact":[{"hooks":[]},{"hooks":[{"type":"command","command":"mine"}]}]}})
        );
        let mut only_ours = doc(
            json!({"a":1,"hooks":{"SessionEnd":[{"hooks":[{"type":"command","command":"/b/capture-session-summary"}]}]},"z":2}),
        );
        only_ours.disable();
        assert_eq!(Value::Object(only_ours.root), json!({"a":1,"z":2}));
        let mut empty_hooks = doc(json!({"hooks":{}}));
        assert!(empty_hooks.disable().is_empty());
        assert!(empty_hooks.root.contains_key("hooks"));
    }

    #[test]
    fn shape_errors_name_the_place() {
        let cases = [
            (r#"[]"#, "the top level is not a JSON object"),
            (r#"{"hooks":[]}"#, "hooks is not an object"),
            (
                r#"{"hooks":{"PreCompact":{}}}"#,
                "hooks.PreCompact is not an array",
            ),
            (
                r#"{"hooks":{"Stop":[1]}}"#,
                "hooks.Stop[0] is not an object",
            ),
            (
                r#"{"hooks":{"Stop":[{"matcher":""}]}}"#,
                "hooks.Stop[0] has no hooks array",
            ),
            (
                r#"{"hooks":{"Stop":[{"hooks":{}}]}}"#,
                "hooks.Stop[0].hooks is not an array",
            ),
            (
                r#"{"hooks":{"Stop":[{"hooks":["x"]}]}}"#,
                "hooks.Stop[0].hooks[0] is not an object",
            ),
            (r#"{"a":1,}"#, "not valid JSON"),
        ];
        for (text, want) in cases {
            let err = Document::parse(Path::new("/s.json"), Some(text.into())).unwrap_err();
            assert_eq!(
                err.to_string().split(" (").next().unwrap(),
                format!("/s.json: {want}"),
                "{text}"
            );
        }
    }

    #[test]
    fn layout_is_kept() {
        for text in [
            "{\n    \"a\": 1\n}",
            "{\"a\":1}\n",
            "{\r\n\t\"a\": [\r\n\t\t1\r\n\t]\r\n}\r\n",
        ] {
            let d = Document::parse(Path::new("/s.json"), Some(text.into())).unwrap();
            assert_eq!(String::from_utf8(d.render()).unwrap(), text);
        }
    }
}
