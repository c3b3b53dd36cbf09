//! The settings file as read (strict JSON, an object at the top, checked before any edit) and
//! the edits to it, spliced in and out so every byte not edited stays as it was.

use std::path::Path;

use serde_json::{Map, Value};

use super::ours::{command_for, is_current, recognize, HookForm, HOOKS};
use super::status::{describe, is_executable, Change, Found, HookStatus, Status};
use crate::jsonedit::{self, Step};
use reflect_base::error::{Error, Result};
use reflect_base::fsutil;

/// settings.json as read: its bytes (None when absent), its text as edited so far, and the parsed
/// root object of that text.
#[derive(Debug, Clone)]
pub struct Document {
    pub(super) original: Option<Vec<u8>>,
    /// The file starts with a UTF-8 byte order mark (Claude Code reads such a file): it is not
    /// part of `text`, and [`Document::render`] puts it back.
    bom: bool,
    text: String,
    root: Map<String, Value>,
    /// How our handlers start their binaries ([`HookForm::NATIVE`] unless a test says otherwise).
    form: HookForm,
}

/// The UTF-8 byte order mark some Windows editors write at the start of a file.
pub(super) const BOM: char = '\u{feff}';

pub(super) fn shape_error(path: &Path, what: impl std::fmt::Display) -> Error {
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

    pub(super) fn parse(path: &Path, original: Option<Vec<u8>>) -> Result<Document> {
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
