//! Whether our hooks are registered, as `/reflect-toggle status` and `doctor` report it.

use std::fs;
use std::path::{Path, PathBuf};

use serde_json::{Map, Value};

use super::ours::{HookSpec, Recognized, HOOKS};

pub(super) fn is_executable(path: &Path) -> bool {
    fs::metadata(path).is_ok_and(|m| reflect_base::platform::modes::is_program_file(path, &m))
}

/// A handler shown to the user: its command, plus `args` for the exec form.
pub(super) fn describe(handler: &Value) -> String {
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
    pub(super) group: Map<String, Value>,
    pub(super) handler: Value,
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
