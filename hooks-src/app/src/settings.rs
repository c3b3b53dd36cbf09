//! Registering and removing our hooks in Claude Code's settings.json, and telling whether they are there.
//!
//! The file belongs to the user (and to Claude Code, which rewrites it on `plugin enable`). So an edit:
//! - touches only handlers that are ours: a command naming one of our four hook binaries, or a legacy
//!   v1/v2 script (`capture-signals.py`, `capture-failure.sh`, `capture-session-summary.py`,
//!   `inject-signals.sh`) or anything under a `self-reflect` directory, matched per shell word with
//!   globset ([`recognize`] is the one place that decides, `doctor` asks it too);
//! - drops a matcher group, an event array or `hooks` itself only when removing our handlers emptied it;
//! - keeps every byte it does not edit: the file is never re-printed (serde would turn `1e2` into
//!   `100.0` and lose digits of a long integer); [`jsonedit`] splices our entries in and out, laid out
//!   like their siblings (the file's indent unit, CRLF or LF, one line or spread);
//! - makes `off` right after `on` give back the very bytes `on` started from, containers `on` created
//!   gone and an empty `"hooks": {}` of the user's kept ([`Document::disable_after`], from the backup
//!   `on` made). When the file was edited in between, `off` removes our entries with exactly the text
//!   `on` inserted, and the containers that emptied;
//! - reads the file only when it is a regular file once links are followed ([`fsutil::read_regular`]:
//!   a FIFO or a device in its place is refused at once, never waited on or replaced), follows a
//!   symlinked file (the target is replaced, the link stays) and keeps its owner;
//! - accepts strict JSON with an object at the top, as Claude Code does (it calls a file with comments
//!   or trailing commas a "Settings Error"); refuses, with the exact place ("hooks.PreCompact is not an
//!   array", "hooks.Stop appears twice"), a file it cannot understand, and then writes nothing;
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
use serde_json::{Map, Value};

use crate::jsonedit::{self, Step};
use reflect_base::error::{Error, IoContext, Result};
use reflect_base::fsutil::{self, LockWait, PRIVATE_FILE};

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

/// How many backups of settings.json are kept in `<data dir>/backups/`.
pub(crate) const SETTINGS_BACKUPS_KEPT: usize = 20;

/// The sidecar lock of a settings file: `settings.json.lock` next to it.
pub(crate) fn lock_path(settings: &Path) -> PathBuf {
    let mut name = settings
        .file_name()
        .map(|n| n.to_os_string())
        .unwrap_or_else(|| "settings.json".into());
    name.push(".lock");
    settings.with_file_name(name)
}

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
fn is_current(
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

/// settings.json as read: its bytes (None when absent), its text as edited so far, and the parsed
/// root object of that text.
#[derive(Debug, Clone)]
pub struct Document {
    original: Option<Vec<u8>>,
    /// The file starts with a UTF-8 byte order mark (Claude Code reads such a file): it is not
    /// part of `text`, and [`Document::render`] puts it back.
    bom: bool,
    text: String,
    root: Map<String, Value>,
    /// How our handlers start their binaries ([`HookForm::NATIVE`] unless a test says otherwise).
    form: HookForm,
}

/// The UTF-8 byte order mark some Windows editors write at the start of a file.
const BOM: char = '\u{feff}';

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

/// A key we walk that appears twice in one object: JSON readers differ on which one counts, so the
/// file is refused rather than edited on a guess.
fn check_repeats(path: &Path, text: &str, root: &Map<String, Value>) -> Result<()> {
    let repeated = |at: &[Step], wanted: &dyn Fn(&str) -> bool| -> Option<String> {
        let keys = jsonedit::keys(text, at)?;
        keys.iter()
            .enumerate()
            .find(|(i, k)| wanted(k) && keys[..*i].contains(k))
            .map(|(_, k)| k.clone())
    };
    if repeated(&[], &|k| k == "hooks").is_some() {
        return Err(shape_error(path, "hooks appears twice"));
    }
    let Some(events) = root.get("hooks").and_then(Value::as_object) else {
        return Ok(());
    };
    if let Some(event) = repeated(&[Step::Key("hooks")], &|_| true) {
        return Err(shape_error(path, format!("hooks.{event} appears twice")));
    }
    for (event, groups) in events {
        for i in 0..groups.as_array().map_or(0, Vec::len) {
            let at = [Step::Key("hooks"), Step::Key(event), Step::Index(i)];
            if let Some(key) = repeated(&at, &|k| k == "hooks" || k == "matcher") {
                return Err(shape_error(
                    path,
                    format!("hooks.{event}[{i}].{key} appears twice"),
                ));
            }
        }
    }
    Ok(())
}

/// What [`Document::remove_ours`] takes out: one handler, a whole group (all its handlers went), a
/// whole event (all its groups went), or `hooks` itself.
enum Removal {
    Handler(String, usize, usize),
    Group(String, usize),
    Event(String),
    Hooks,
}

impl Removal {
    fn path(&self) -> Vec<Step<'_>> {
        let mut path = vec![Step::Key("hooks")];
        match self {
            Removal::Handler(e, g, h) => path.extend([
                Step::Key(e),
                Step::Index(*g),
                Step::Key("hooks"),
                Step::Index(*h),
            ]),
            Removal::Group(e, g) => path.extend([Step::Key(e), Step::Index(*g)]),
            Removal::Event(e) => path.push(Step::Key(e)),
            Removal::Hooks => {}
        }
        path
    }
}

impl Document {
    /// Read and check `path` (a regular file, see [`fsutil::read_regular`]). Absent, empty or blank
    /// counts as `{}`.
    pub fn load(path: &Path) -> Result<Document> {
        let original = fsutil::read_regular(path)?;
        Document::parse(path, original)
    }

    fn parse(path: &Path, original: Option<Vec<u8>>) -> Result<Document> {
        let text = match &original {
            None => String::new(),
            Some(bytes) => std::str::from_utf8(bytes)
                .map_err(|e| shape_error(path, format!("not valid UTF-8 ({e})")))?
                .to_string(),
        };
        let (bom, text) = match text.strip_prefix(BOM) {
            Some(rest) => (true, rest.to_string()),
            None => (false, text),
        };
        let root = if text.trim().is_empty() {
            Map::new()
        } else {
            let root = match serde_json::from_str::<Value>(&text) {
                Ok(Value::Object(map)) => map,
                Ok(_) => return Err(shape_error(path, "the top level is not a JSON object")),
                Err(e) => return Err(shape_error(path, format!("not valid JSON ({e})"))),
            };
            jsonedit::parse(&text)
                .map_err(|e| shape_error(path, format!("not valid JSON ({e})")))?;
            root
        };
        validate(path, &root)?;
        check_repeats(path, &text, &root)?;
        Ok(Document {
            original,
            bom,
            text,
            root,
            form: HookForm::NATIVE,
        })
    }

    /// The same document, our handlers written and judged in `form` (tests of the other platform).
    pub fn with_form(mut self, form: HookForm) -> Document {
        self.form = form;
        self
    }

    /// The top-level object as it stands.
    pub fn root(&self) -> &Map<String, Value> {
        &self.root
    }

    /// The document as the file would be written: the bytes read, with our edits spliced in.
    pub fn render(&self) -> Vec<u8> {
        let mut bytes = Vec::with_capacity(self.text.len() + 3);
        if self.bom {
            bytes.extend(BOM.to_string().as_bytes());
        }
        bytes.extend(self.text.as_bytes());
        bytes
    }

    /// Replace the text with `edited` (the result of a splice, valid by construction).
    fn set_text(&mut self, edited: Option<String>) {
        let edited = edited.expect("a path taken from the parsed document exists");
        self.root = match serde_json::from_str(&edited) {
            Ok(Value::Object(map)) => map,
            other => unreachable!("a splice kept the document an object: {other:?}"),
        };
        self.text = edited;
    }

    /// Set the member at `keys` (from the top level down) to `value`, making the objects on the
    /// way when missing: `/reflect`'s proposal of a Claude Code setting, once approved. A member
    /// already there with another value is removed and appended again to its object. No change
    /// when it already holds `value`; an error naming the key when one on the way is not an object.
    pub fn set_member(&mut self, keys: &[&str], value: &Value) -> Result<Vec<Change>> {
        let Some((last, parents)) = keys.split_last() else {
            return Ok(Vec::new());
        };
        let change = || {
            vec![Change::Set {
                key: keys.join("."),
                value: value.to_string(),
            }]
        };
        let mut node = &self.root;
        for (i, key) in parents.iter().enumerate() {
            match node.get(*key) {
                Some(Value::Object(inner)) => node = inner,
                Some(_) => {
                    return Err(Error::usage(format!(
                        "{} is set, and not to an object: nothing changed",
                        keys[..=i].join(".")
                    )))
                }
                None => {
                    // The rest of the way is new: one member holding it all.
                    let mut made = value.clone();
                    for k in keys[i + 1..].iter().rev() {
                        made = Value::Object(Map::from_iter([(k.to_string(), made)]));
                    }
                    let at: Vec<Step> = parents[..i].iter().map(|k| Step::Key(k)).collect();
                    self.append(&at, Some(key), made);
                    return Ok(change());
                }
            }
        }
        let at: Vec<Step> = parents.iter().map(|k| Step::Key(k)).collect();
        match node.get(*last) {
            Some(old) if old == value => return Ok(Vec::new()),
            Some(_) => {
                let mut path = at.clone();
                path.push(Step::Key(last));
                let removed = jsonedit::remove(&self.text, &path);
                self.set_text(removed);
            }
            None => {}
        }
        self.append(&at, Some(last), value.clone());
        Ok(change())
    }

    /// Append `value` to the container at `path` (as member `key` of an object, or as an element).
    fn append(&mut self, path: &[Step], key: Option<&str>, value: Value) {
        if self.text.trim().is_empty() {
            // A new or blank file is written in Claude Code's own layout.
            self.text = "{}\n".into();
        }
        let edited = jsonedit::append(&self.text, path, key, &value);
        self.set_text(edited);
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
        let mut changes = Vec::new();
        let mut removals = Vec::new();
        let mut emptied_events = Vec::new();
        let Some(events) = self.root.get("hooks").and_then(Value::as_object) else {
            return (changes, emptied_events);
        };
        let mut events_left = events.len();
        for (event, groups) in events {
            let groups = groups.as_array().map_or(&[][..], Vec::as_slice);
            let mut in_event = Vec::new();
            for (g, group) in groups.iter().enumerate() {
                let Some(group) = group.as_object() else {
                    continue;
                };
                let handlers = group.get("hooks").and_then(Value::as_array);
                let handlers = handlers.map_or(&[][..], Vec::as_slice);
                let mut gone = Vec::new();
                for (h, handler) in handlers.iter().enumerate() {
                    if recognize(handler).is_some() && !keep(event, group, handler) {
                        changes.push(Change::Removed {
                            event: event.clone(),
                            command: describe(handler),
                        });
                        gone.push(Removal::Handler(event.clone(), g, h));
                    }
                }
                if !handlers.is_empty() && gone.len() == handlers.len() {
                    in_event.push(Removal::Group(event.clone(), g));
                } else {
                    in_event.extend(gone);
                }
            }
            let groups_gone = in_event
                .iter()
                .filter(|r| matches!(r, Removal::Group(..)))
                .count();
            if groups.is_empty() || groups_gone < groups.len() {
                removals.extend(in_event);
            } else if prune_events {
                removals.push(Removal::Event(event.clone()));
                events_left -= 1;
            } else {
                removals.extend(in_event);
                emptied_events.push(event.clone());
            }
        }
        if prune_events && events_left == 0 && !events.is_empty() {
            removals = vec![Removal::Hooks];
        }
        // Last first: what comes earlier in the file keeps its place and its index.
        for removal in removals.iter().rev() {
            let edited = jsonedit::remove(&self.text, &removal.path());
            self.set_text(edited);
        }
        (changes, emptied_events)
    }

    /// Drop the event arrays we emptied that are still empty, and `hooks` when that emptied it.
    fn prune(&mut self, emptied_events: &[String]) {
        let Some(events) = self.root.get("hooks").and_then(Value::as_object) else {
            return;
        };
        let still_empty: Vec<String> = emptied_events
            .iter()
            .filter(|e| {
                events
                    .get(e.as_str())
                    .and_then(Value::as_array)
                    .is_some_and(Vec::is_empty)
            })
            .cloned()
            .collect();
        if still_empty.is_empty() {
            return;
        }
        let removals: Vec<Removal> = if still_empty.len() == events.len() {
            vec![Removal::Hooks]
        } else {
            still_empty.into_iter().map(Removal::Event).collect()
        };
        for removal in removals.iter().rev() {
            let edited = jsonedit::remove(&self.text, &removal.path());
            self.set_text(edited);
        }
    }

    /// Make the file hold exactly our four hooks, pointing into `bin_dir`: a current handler stays
    /// where it is (so a second `on` changes nothing), every other handler of ours — legacy scripts,
    /// stale paths, duplicates — goes, and a missing hook is appended as its own group (creating its
    /// event array, and `hooks`, at the end of their object when missing).
    pub fn enable(&mut self, bin_dir: &Path) -> Vec<Change> {
        let form = self.form;
        let mut kept = [false; 4];
        let (mut changes, emptied) = self.remove_ours(false, |event, group, handler| {
            for (i, spec) in HOOKS.iter().enumerate() {
                if !kept[i] && is_current(spec, event, group, handler, bin_dir, form) {
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
            let command = command_for(spec, bin_dir, form);
            let mut handler = Map::new();
            handler.insert("type".into(), "command".into());
            handler.insert("command".into(), command.clone().into());
            if form == HookForm::Exec {
                handler.insert("args".into(), Value::Array(Vec::new()));
            }
            handler.insert("timeout".into(), spec.timeout.into());
            let mut group = Map::new();
            if let Some(m) = spec.matcher {
                group.insert("matcher".into(), m.into());
            }
            group.insert("hooks".into(), Value::Array(vec![Value::Object(handler)]));
            let group = Value::Object(group);
            match self.root.get("hooks").and_then(Value::as_object) {
                None => {
                    let mut events = Map::new();
                    events.insert(spec.event.into(), Value::Array(vec![group]));
                    self.append(&[], Some("hooks"), Value::Object(events));
                }
                Some(events) if !events.contains_key(spec.event) => {
                    let groups = Value::Array(vec![group]);
                    self.append(&[Step::Key("hooks")], Some(spec.event), groups);
                }
                Some(_) => {
                    self.append(&[Step::Key("hooks"), Step::Key(spec.event)], None, group);
                }
            }
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

    /// `off`: [`Self::disable`], except that a file which is exactly what `on` made of `before` (the
    /// copy `on` backed up, which held nothing of ours) becomes `before` again, byte for byte. So
    /// `off` right after `on` also takes back the `hooks` key or event arrays `on` created, and keeps
    /// an empty `"hooks": {}` the user had; once the file was edited in between, only our entries
    /// go (with the containers that emptied).
    pub fn disable_after(&mut self, before: Option<&Document>, bin_dir: &Path) -> Vec<Change> {
        let changes = self.disable();
        let Some(before) = before else {
            return changes;
        };
        if changes.is_empty() || !before.found().is_empty() {
            return changes;
        }
        let mut redone = before.clone().with_form(self.form);
        redone.enable(bin_dir);
        if Some(redone.render()) == self.original {
            self.text = before.text.clone();
            self.root = before.root.clone();
        }
        changes
    }

    /// Where our hooks stand in this file, judged against binaries in `bin_dir`.
    pub fn status(&self, bin_dir: &Path) -> Status {
        let found = self.found();
        let mut hooks = Vec::new();
        for (idx, spec) in HOOKS.iter().enumerate() {
            let mut current = None;
            let mut stale = Vec::new();
            for f in found.iter().filter(|f| f.recognized.hook == Some(idx)) {
                if current.is_none()
                    && is_current(spec, &f.event, &f.group, &f.handler, bin_dir, self.form)
                {
                    current = Some(f.command.clone());
                } else {
                    stale.push(f.clone());
                }
            }
            let binary = bin_dir.join(reflect_base::paths::binary_file(spec.binary));
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

/// The copy of `path` that the last rewrite backed up into `backups` (for `off` right after `on`:
/// the file as it was before `on`), when it can be read as a settings file.
pub(crate) fn last_backup(path: &Path, backups: &Path) -> Option<Document> {
    let copy = fsutil::newest_backup(path, backups)?;
    Document::load(&copy).ok()
}

fn is_executable(path: &Path) -> bool {
    fs::metadata(path).is_ok_and(|m| reflect_base::platform::modes::is_program_file(path, &m))
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
    Added {
        event: String,
        command: String,
    },
    Removed {
        event: String,
        command: String,
    },
    /// A setting set (`key` dotted from the top level; `value` as JSON).
    Set {
        key: String,
        value: String,
    },
}

impl Change {
    pub fn line(&self) -> String {
        match self {
            Change::Added { event, command } => format!("add    {event}: {command}"),
            Change::Removed { event, command } => format!("remove {event}: {command}"),
            Change::Set { key, value } => format!("set    {key}: {value}"),
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
    pub(crate) fn word(self) -> &'static str {
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
    pub(crate) fn overall(&self) -> Overall {
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
    pub(crate) fn problems(&self) -> Vec<String> {
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

/// Set the member at `keys` of the settings file at `path` to `value` (see
/// [`Document::set_member`]), backed up to `backups`: a setting the user approved in `/reflect`.
pub fn set_member(path: &Path, backups: &Path, keys: &[&str], value: &Value) -> Result<Outcome> {
    let mut problem = None;
    let done = edit_file(path, backups, false, &mut || {}, |doc| {
        doc.set_member(keys, value).unwrap_or_else(|e| {
            problem = Some(e);
            Vec::new()
        })
    })?;
    match problem {
        Some(e) => Err(e),
        None => Ok(done),
    }
}

/// Apply `edit` to the settings file at `path`: checked and planned on a first read (no lock, no
/// write when nothing would change or in a dry run), then redone under the sidecar lock on a fresh
/// read, backed up to `backups` and written atomically.
pub(crate) fn edit_file(
    path: &Path,
    backups: &Path,
    dry_run: bool,
    on_wait: &mut dyn FnMut(),
    mut edit: impl FnMut(&mut Document) -> Vec<Change>,
) -> Result<Outcome> {
    if !dry_run {
        sweep_leftovers(path);
    }
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
            if fsutil::read_regular(path)? != doc.original {
                continue;
            }
            let backup = fsutil::backup(path, backups, SETTINGS_BACKUPS_KEPT, false)?;
            // A new settings file is private: settings often carry tokens under `env`.
            fsutil::atomic_write(path, &bytes, PRIVATE_FILE)?;
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

/// Remove the temp files a killed rewrite of `path` left beside it (each a full copy of the
/// settings, `env` tokens included): those of writers that are gone ([`fsutil::stale_temps_of`]).
/// No lock is needed: a gone writer renames nothing.
pub(crate) fn sweep_leftovers(path: &Path) -> usize {
    fsutil::remove_stale_temps_of(path)
}

/// A read-only settings file, or one in a read-only directory, was made so on purpose (home-manager,
/// a dotfiles checkout): refuse rather than replace it. Checked on the mode bits, so it holds for root
/// too, who could write anyway.
pub(crate) fn refuse_read_only(path: &Path) -> Result<()> {
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

/// Refuse a settings path beside which no sidecar lock can be made (its directory cannot be made,
/// a file stands where it would be, or on Windows a named pipe nobody serves, which opens as no
/// file): the lock is taken only when the hooks are edited, and `on` installs before that. Taken
/// once and let go, so it waits while another reflect process holds it.
pub(crate) fn refuse_unlockable(path: &Path, on_wait: &mut dyn FnMut()) -> Result<()> {
    fsutil::with_lock(&lock_path(path), LockWait::CLI, on_wait, || Ok(()))
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

    /// A command, and what recognition says of it: `(index into HOOKS, legacy)`, or not ours.
    type RecognitionCase = (&'static str, Option<(Option<usize>, bool)>);

    #[test]
    fn recognizes_ours_and_legacy_but_not_lookalikes() {
        let cases: &[RecognitionCase] = &[
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
        let pre = d.root()["hooks"]["PreCompact"].as_array().unwrap();
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
        let keys: Vec<&String> = d.root().keys().collect();
        assert_eq!(keys, ["a", "hooks", "z"]);
        let events: Vec<&String> = d.root()["hooks"].as_object().unwrap().keys().collect();
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
            Value::Object(d.root().clone()),
            json!({"hooks":{"Stop":[],"PreCompact":[{"hooks":[]},{"hooks":[{"type":"command","command":"mine"}]}]}})
        );
        let mut only_ours = doc(
            json!({"a":1,"hooks":{"SessionEnd":[{"hooks":[{"type":"command","command":"/b/capture-session-summary"}]}]},"z":2}),
        );
        only_ours.disable();
        assert_eq!(
            Value::Object(only_ours.root().clone()),
            json!({"a":1,"z":2})
        );
        let mut empty_hooks = doc(json!({"hooks":{}}));
        assert!(empty_hooks.disable().is_empty());
        assert!(empty_hooks.root().contains_key("hooks"));
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
            (r#"{"a":1} // mine"#, "not valid JSON"),
            (r#"{"hooks":{},"hooks":{}}"#, "hooks appears twice"),
            (
                r#"{"hooks":{"Stop":[],"Stop":[]}}"#,
                "hooks.Stop appears twice",
            ),
            (
                r#"{"hooks":{"Stop":[{"hooks":[],"hooks":[]}]}}"#,
                "hooks.Stop[0].hooks appears twice",
            ),
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

    /// The real-world-shaped files of `tests/fixtures/settings/` (two-space indents, LF) in every
    /// layout people keep: two or four spaces or tabs, LF or CRLF, with or without a final newline.
    fn real_world_files() -> Vec<(String, String)> {
        let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../tests/fixtures/settings");
        let mut out = Vec::new();
        for entry in fs::read_dir(dir).unwrap().flatten() {
            let name = entry.file_name().to_string_lossy().into_owned();
            let text = fs::read_to_string(entry.path()).unwrap();
            for unit in ["  ", "    ", "\t"] {
                for newline in ["\n", "\r\n"] {
                    for final_newline in [true, false] {
                        let lines: Vec<String> = text
                            .lines()
                            .map(|l| {
                                let body = l.trim_start_matches(' ');
                                unit.repeat((l.len() - body.len()) / 2) + body
                            })
                            .collect();
                        let mut t = lines.join(newline);
                        if final_newline && text.ends_with('\n') {
                            t.push_str(newline);
                        }
                        let layout = format!("{unit:?} {newline:?} final newline {final_newline}");
                        out.push((format!("{name} ({layout})"), t));
                    }
                }
            }
        }
        assert!(out.len() >= 10 * 12, "fixtures found: {}", out.len() / 12);
        out
    }

    /// Whether `on` fills a container the user already had empty (`{}` as the whole file, an empty
    /// `hooks`, or an empty array of one of our events): `off` can restore that only from the backup.
    fn on_fills_an_empty_container(doc: &Document) -> bool {
        let hooks = doc.root().get("hooks");
        doc.root().is_empty()
            || hooks.and_then(Value::as_object).is_some_and(Map::is_empty)
            || HOOKS.iter().any(|h| {
                hooks
                    .and_then(|v| v.get(h.event))
                    .and_then(Value::as_array)
                    .is_some_and(Vec::is_empty)
            })
    }

    #[test]
    fn regression_on_then_off_is_byte_identical_in_every_layout() {
        let bin = Path::new("/home/u/.claude/reflections/bin");
        let at = Path::new("/s.json");
        // A file saved with a byte order mark (Claude Code accepts it) was refused.
        let with_bom: Vec<(String, String)> = real_world_files()
            .into_iter()
            .map(|(name, text)| (format!("{name} with a BOM"), format!("{BOM}{text}")))
            .collect();
        for (name, text) in real_world_files().into_iter().chain(with_bom) {
            let before = Document::parse(at, Some(text.clone().into_bytes())).unwrap();
            let mut on = before.clone();
            assert_eq!(on.enable(bin).len(), 4, "{name}");
            let on_text = String::from_utf8(on.render()).unwrap();
            assert_eq!(on_text.starts_with(BOM), text.starts_with(BOM), "{name}");
            if text.contains("\r\n") {
                assert!(!on_text.replace("\r\n", "").contains('\n'), "{name}: CRLF");
            }
            let spread = text.trim().contains('\n');
            if spread && name.contains("\"\\t\"") {
                assert!(!on_text.contains("\n "), "{name}: tabs: {on_text}");
            }
            if spread && name.contains("\"    \"") {
                assert!(
                    !on_text.contains("\n  \"hooks\""),
                    "{name}: 4 spaces: {on_text}"
                );
            }
            let reread = || Document::parse(at, Some(on_text.clone().into_bytes())).unwrap();
            assert_eq!(reread().status(bin).overall(), Overall::Partial, "{name}");

            // `off` right after `on`, with the backup `on` made: the same bytes, always.
            let mut off = reread();
            assert_eq!(off.disable_after(Some(&before), bin).len(), 4, "{name}");
            assert_eq!(String::from_utf8(off.render()).unwrap(), text, "{name}");

            if on_fills_an_empty_container(&before) {
                continue;
            }
            // Without the backup, and after an edit of the user's, `off` still takes out exactly
            // what `on` put in.
            let mut off = reread();
            off.disable();
            assert_eq!(String::from_utf8(off.render()).unwrap(), text, "{name}");
            let edited = on_text.replacen("\"opus\"", "\"haiku\"", 1);
            let mut off = Document::parse(at, Some(edited.into_bytes())).unwrap();
            off.disable_after(Some(&before), bin);
            assert_eq!(
                String::from_utf8(off.render()).unwrap(),
                text.replacen("\"opus\"", "\"haiku\"", 1),
                "{name}: edited between on and off"
            );
        }
    }

    /// Windows' exec form: each handler names the binary in `command` (its backslashes escaped
    /// in the file) with `"args": []`, no shell; `on` then `off` gives back the very bytes in every
    /// layout, CRLF included; `off` finds exactly those entries; a second `on` changes nothing.
    #[test]
    fn exec_form_on_then_off_is_byte_identical_and_recognized() {
        let bin = Path::new(r"C:\Users\Me\.claude\reflections\bin");
        let at = Path::new("/s.json");
        let exec = |text: &str| {
            Document::parse(at, Some(text.as_bytes().to_vec()))
                .unwrap()
                .with_form(HookForm::Exec)
        };
        // A Windows path in the exec form is one word, its backslashes no escapes.
        let win = r"C:\Users\Me\.claude\reflections\bin\capture-failure.exe";
        let handler = serde_json::json!({"type": "command", "command": win, "args": []});
        assert_eq!(recognize(&handler).and_then(|r| r.hook), Some(1));
        for (name, text) in real_world_files() {
            let before = exec(&text);
            let mut on = before.clone();
            assert_eq!(on.enable(bin).len(), 4, "{name}");
            let on_text = String::from_utf8(on.render()).unwrap();
            let want = bin.join(reflect_base::paths::binary_file("capture-failure"));
            let want = serde_json::to_string(&want.to_string_lossy()).unwrap();
            assert!(
                on_text.contains(&format!("\"command\": {want}"))
                    || on_text.contains(&format!("\"command\":{want}")),
                "{name}: {on_text}"
            );
            assert!(want.contains(r"\\reflections\\bin"), "{want}: JSON-escaped");
            let handlers = on.found();
            assert_eq!(
                handlers.len(),
                4,
                "{name}: every entry is recognized as ours"
            );
            assert!(handlers
                .iter()
                .all(|f| f.handler["args"] == serde_json::json!([])));
            assert!(
                exec(&on_text).enable(bin).is_empty(),
                "{name}: a second on changes nothing"
            );
            assert_eq!(
                exec(&on_text).status(bin).overall(),
                Overall::Partial,
                "{name}"
            );
            let mut off = exec(&on_text);
            assert_eq!(off.disable_after(Some(&before), bin).len(), 4, "{name}");
            assert_eq!(String::from_utf8(off.render()).unwrap(), text, "{name}");
            let mut off = exec(&on_text);
            off.disable();
            if !on_fills_an_empty_container(&before) {
                assert_eq!(String::from_utf8(off.render()).unwrap(), text, "{name}");
            }
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
