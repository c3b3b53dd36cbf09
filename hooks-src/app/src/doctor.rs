//! `memory-store doctor`: checks the install, the hooks, the store and the lock, and says for
//! each problem how to fix it. Read-only: doctor never changes anything.

use std::fmt::Write as _;
use std::fs;
use std::os::unix::fs::PermissionsExt;
use std::path::Path;
use std::time::Duration;

use chrono::Utc;

use crate::settings::Overall;
use reflect_base::fsutil::{self, LockWait};
use reflect_base::paths::{self, Paths};
use reflect_store::signal::Status;
use reflect_store::store::Snapshot;

/// Binaries `reflect-toggle on` installs into `<data dir>/bin/`.
pub const BINARIES: [&str; 6] = [
    "capture-signals",
    "capture-failure",
    "capture-session-summary",
    "inject-signals",
    "memory-store",
    "reflect-toggle",
];

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Level {
    Ok,
    Info,
    Warn,
    Fail,
}

#[derive(Debug, Clone)]
pub struct Check {
    pub level: Level,
    pub what: String,
    pub fix: Option<String>,
}

#[derive(Debug, Clone, Default)]
pub struct Report {
    pub checks: Vec<Check>,
}

impl Report {
    fn add(&mut self, level: Level, what: impl Into<String>, fix: Option<&str>) {
        self.checks.push(Check {
            level,
            what: what.into(),
            fix: fix.map(str::to_string),
        });
    }

    pub fn failed(&self) -> bool {
        self.checks.iter().any(|c| c.level == Level::Fail)
    }

    pub fn text(&self) -> String {
        let mut out = String::new();
        for c in &self.checks {
            let tag = match c.level {
                Level::Ok => "ok  ",
                Level::Info => "info",
                Level::Warn => "warn",
                Level::Fail => "FAIL",
            };
            // A path may hold a newline or an escape: each check stays one line.
            let _ = writeln!(out, "{tag}  {}", reflect_base::sanitize::visible(&c.what));
            if let Some(fix) = &c.fix {
                let _ = writeln!(out, "      fix: {}", reflect_base::sanitize::visible(fix));
            }
        }
        let problems = self
            .checks
            .iter()
            .filter(|c| matches!(c.level, Level::Warn | Level::Fail))
            .count();
        let _ = writeln!(
            out,
            "{}",
            if problems == 0 {
                "no problems found".to_string()
            } else {
                format!("{problems} problem(s) found")
            }
        );
        out
    }
}

fn mode(path: &Path) -> Option<u32> {
    fs::metadata(path)
        .ok()
        .map(|m| m.permissions().mode() & 0o777)
}

/// Run every check against `paths`; `hooks` reports the settings.json side (see [`crate::settings`]).
pub fn run(paths: &Paths) -> Report {
    let mut r = Report::default();
    check_data_dir(paths, &mut r);
    check_binaries(paths, &mut r);
    check_hooks(paths, &mut r);
    check_plugin(paths, &mut r);
    check_settings_leftovers(paths, &mut r);
    check_store(paths, &mut r);
    check_archive(paths, &mut r);
    check_lock(paths, &mut r);
    check_errors(paths, &mut r);
    check_project(&mut r);
    r
}

fn check_data_dir(paths: &Paths, r: &mut Report) {
    let dir = &paths.data_dir;
    match mode(dir) {
        None => r.add(
            Level::Warn,
            format!("data dir {} does not exist yet", dir.display()),
            Some("run `reflect-toggle on`"),
        ),
        Some(m) if m & 0o077 != 0 => r.add(
            Level::Warn,
            format!(
                "data dir {} is readable by others (mode {m:o})",
                dir.display()
            ),
            Some(&format!("chmod 700 '{}'", dir.display())),
        ),
        Some(_) => r.add(Level::Ok, format!("data dir {}", dir.display()), None),
    }
}

fn check_binaries(paths: &Paths, r: &mut Report) {
    let bin = paths.bin_dir();
    let missing: Vec<&str> = BINARIES
        .iter()
        .copied()
        .filter(|name| mode(&bin.join(name)).is_none_or(|m| m & 0o111 == 0))
        .collect();
    if !missing.is_empty() {
        r.add(
            Level::Warn,
            format!(
                "missing or not executable in {}: {}",
                bin.display(),
                missing.join(", ")
            ),
            Some(INSTALL_FIX),
        );
        return;
    }
    let versions: Vec<String> = BINARIES
        .iter()
        .map(|name| binary_version(&bin.join(name), name).unwrap_or_else(|| "?".into()))
        .collect();
    let oldest = versions
        .iter()
        .min_by(|a, b| version_order(a, b))
        .cloned()
        .unwrap_or_default();
    match plugin_version() {
        Some(plugin) if version_order(&oldest, &plugin).is_lt() => r.add(
            Level::Warn,
            format!(
                "the binaries in {} are version {oldest}, older than the plugin ({plugin})",
                bin.display()
            ),
            Some("run /reflect-toggle on: it installs the plugin's version of the binaries"),
        ),
        _ if versions.iter().any(|v| *v != oldest) => r.add(
            Level::Warn,
            format!(
                "the binaries in {} are of different versions ({})",
                bin.display(),
                BINARIES
                    .iter()
                    .zip(&versions)
                    .map(|(n, v)| format!("{n} {v}"))
                    .collect::<Vec<_>>()
                    .join(", ")
            ),
            Some(INSTALL_FIX),
        ),
        _ => r.add(
            Level::Ok,
            format!("binaries {oldest} installed in {}", bin.display()),
            None,
        ),
    }
}

const INSTALL_FIX: &str =
    "run /reflect-toggle on (it installs the binaries of the plugin's version; \
    in a checkout with Rust, scripts/install.sh builds and installs them)";

/// What `path --version` says after the binary's name (`memory-store 0.1.0` → `0.1.0`).
fn binary_version(path: &Path, name: &str) -> Option<String> {
    let out = std::process::Command::new(path)
        .arg("--version")
        .stdin(std::process::Stdio::null())
        .stderr(std::process::Stdio::null())
        .output()
        .ok()?;
    let text = String::from_utf8_lossy(&out.stdout);
    let version = text.trim().strip_prefix(name)?.trim();
    (out.status.success() && !version.is_empty()).then(|| version.to_string())
}

/// The version of the plugin this doctor runs for: `$CLAUDE_PLUGIN_ROOT/.claude-plugin/plugin.json`
/// (Claude Code sets the variable for hooks; the /reflect skill's launcher sets it to its plugin).
fn plugin_version() -> Option<String> {
    let root = std::env::var_os("CLAUDE_PLUGIN_ROOT").filter(|v| !v.is_empty())?;
    let manifest = Path::new(&root).join(".claude-plugin").join("plugin.json");
    let value: serde_json::Value = serde_json::from_slice(&fs::read(manifest).ok()?).ok()?;
    value["version"].as_str().map(str::to_string)
}

/// Order of two versions by their numeric major.minor.patch, as the toggle's runner compares them
/// (a part that is not a number counts as 0, so an unreadable version is the oldest).
fn version_order(a: &str, b: &str) -> std::cmp::Ordering {
    let parts = |v: &str| -> [u64; 3] {
        let mut out = [0; 3];
        for (slot, part) in out.iter_mut().zip(v.split('.')) {
            let digits: String = part.chars().take_while(char::is_ascii_digit).collect();
            *slot = digits.parse().unwrap_or(0);
        }
        out
    };
    parts(a).cmp(&parts(b))
}

fn check_hooks(paths: &Paths, r: &mut Report) {
    let settings = paths.settings();
    let bin = std::path::absolute(paths.bin_dir()).unwrap_or_else(|_| paths.bin_dir());
    // One judge of "ours", "legacy" and "current" for doctor and reflect-toggle alike.
    let status = match crate::settings::status(&settings, &bin) {
        Ok(s) => s,
        Err(e) => {
            r.add(
                Level::Fail,
                format!("cannot read the hooks: {e}"),
                Some("fix the file (Claude Code ignores a broken settings.json too), then run `reflect-toggle on`"),
            );
            return;
        }
    };
    match status.overall() {
        Overall::On => r.add(
            Level::Ok,
            format!("hooks registered in {}", settings.display()),
            None,
        ),
        Overall::Off => r.add(
            Level::Info,
            format!("no reflect hooks in {}: capture is off", settings.display()),
            Some("run `reflect-toggle on`"),
        ),
        Overall::Partial => r.add(
            Level::Warn,
            format!(
                "reflect hooks in {} are incomplete: {}",
                settings.display(),
                status.problems().join("; ")
            ),
            Some("run `reflect-toggle on` to register all four (it replaces stale and legacy entries)"),
        ),
    }
}

/// Capture turned on from a plugin that has since been uninstalled (see [`crate::plugin`]).
fn check_plugin(paths: &Paths, r: &mut Report) {
    let Some(marker) = crate::plugin::load(paths) else {
        return;
    };
    if let Some(off) = &marker.turned_off {
        r.add(
            Level::Warn,
            format!(
                "capture was turned off at {}: the plugin {} was uninstalled ({})",
                off.at, marker.id, off.why
            ),
            Some(&format!(
                "reinstall the plugin and run /reflect-toggle on to capture again; to remove reflect, delete {}",
                paths.data_dir.display()
            )),
        );
    } else if let Some(why) = crate::plugin::gone_why(&marker) {
        r.add(
            Level::Warn,
            format!(
                "the plugin {} was uninstalled ({why}) but its hooks are still registered",
                marker.id
            ),
            Some("the next hook run turns capture off; or run `reflect-toggle off` now"),
        );
    }
}

/// Temp files of a settings.json rewrite that was killed: each is a full copy of the file, with
/// the tokens users keep under `env`, in a directory that is not reflect's.
fn check_settings_leftovers(paths: &Paths, r: &mut Report) {
    let left = fsutil::stale_temps_of(&paths.settings());
    if left.is_empty() {
        return;
    }
    let names: Vec<String> = left.iter().map(|p| p.display().to_string()).collect();
    r.add(
        Level::Warn,
        format!(
            "{} temp file(s) left by an interrupted rewrite of settings.json (full copies of it, `env` included): {}",
            left.len(),
            names.join(", ")
        ),
        Some("the next `reflect-toggle on` or `off` removes them, or remove them by hand; settings.json itself is intact"),
    );
}

fn check_store(paths: &Paths, r: &mut Report) {
    let store = paths.store();
    let bytes = match fsutil::read_regular(&store) {
        Ok(Some(bytes)) => bytes,
        Ok(None) => {
            r.add(
                Level::Info,
                format!("store {} is empty (nothing captured yet)", store.display()),
                None,
            );
            return;
        }
        Err(e) => {
            r.add(
                Level::Fail,
                format!("cannot read the store: {e}"),
                Some(&format!(
                    "the store must be a regular file you can read and write: fix its place and mode (chmod 600 '{}'); the hooks cannot write until then",
                    store.display()
                )),
            );
            return;
        }
    };
    let snap = Snapshot::parse(&bytes);
    let h = &snap.health;
    r.add(
        Level::Ok,
        format!(
            "store {}: {} signals, {} bytes",
            store.display(),
            h.signals + h.legacy,
            bytes.len()
        ),
        None,
    );
    if mode(&store).is_some_and(|m| m & 0o077 != 0) {
        r.add(
            Level::Warn,
            format!(
                "store is readable by others (mode {:o})",
                mode(&store).unwrap_or(0)
            ),
            Some(&format!("chmod 600 '{}'", store.display())),
        );
    }
    if h.invalid > 0 {
        r.add(
            Level::Warn,
            format!("{} unreadable line(s) in the store (lines {:?}{})", h.invalid, h.invalid_lines, if h.torn_tail { ", the last one torn" } else { "" }),
            Some("run `memory-store prune`: a rewrite moves them to signals.invalid.jsonl, losing nothing"),
        );
    }
    if h.legacy > 0 {
        r.add(
            Level::Warn,
            format!("{} v2 line(s) in the store", h.legacy),
            Some("run `memory-store migrate`"),
        );
    }
    if h.foreign > 0 {
        r.add(
            Level::Info,
            format!(
                "{} line(s) of a kind this version does not know (kept as they are)",
                h.foreign
            ),
            None,
        );
    }
    let now = Utc::now();
    let oldest = snap
        .signals()
        .filter(|s| s.status == Status::Captured)
        .filter_map(|s| reflect_store::store::review_since(s).map(|t| (now - t).num_days()))
        .max();
    if let Some(days) = oldest {
        let level = if days > reflect_store::store::CAPTURED_TTL_DAYS {
            Level::Warn
        } else {
            Level::Info
        };
        r.add(
            level,
            format!("oldest signal waiting for review: {days} day(s)"),
            (level == Level::Warn).then_some("run /reflect, or `memory-store prune`"),
        );
    }
}

fn check_archive(paths: &Paths, r: &mut Report) {
    let archive = paths.archive();
    let bytes = match fsutil::read_regular(&archive) {
        Ok(Some(bytes)) => bytes,
        Ok(None) => return,
        Err(e) => {
            r.add(
                Level::Fail,
                format!("cannot read the archive: {e}"),
                Some("the archive must be a regular file you can read and write"),
            );
            return;
        }
    };
    let h = Snapshot::parse(&bytes).health;
    if h.invalid > 0 {
        r.add(
            Level::Warn,
            format!(
                "{} unreadable line(s) in the archive {} (lines {:?}{})",
                h.invalid,
                archive.display(),
                h.invalid_lines,
                if h.torn_tail { ", the last one torn" } else { "" }
            ),
            Some("a write was cut short; the lines around them are intact. Look at them, and delete them by hand if they hold nothing you need (`memory-store forget` also removes any that name what it forgets)"),
        );
    }
}

fn check_lock(paths: &Paths, r: &mut Report) {
    if !paths.data_dir.is_dir() {
        return;
    }
    let wait = LockWait {
        timeout: Duration::from_secs(2),
    };
    match fsutil::with_lock(&paths.lock(), wait, &mut || {}, || Ok(())) {
        Ok(()) => r.add(
            Level::Ok,
            format!("lock {} is free", paths.lock().display()),
            None,
        ),
        Err(e) => r.add(
            Level::Fail,
            format!("cannot take the store lock: {e}"),
            Some("a reflect process is stuck: find it with `fuser -v` on the lock file and end it"),
        ),
    }
    let stale: Vec<String> = paths
        .atomic_dirs()
        .iter()
        .flat_map(|dir| {
            fsutil::stale_temps(dir)
                .into_iter()
                .map(move |n| dir.join(n).display().to_string())
        })
        .collect();
    let spooled = reflect_store::store::spooled(paths).len();
    if spooled > 0 {
        r.add(
            Level::Info,
            format!(
                "{spooled} batch(es) of signals wait in {} (a hook found the store busy)",
                paths.pending().display()
            ),
            Some("the next write folds them in: `memory-store prune` does it now; a file still there after that cannot be read"),
        );
    }
    if !stale.is_empty() {
        r.add(
            Level::Warn,
            format!(
                "{} temp file(s) left by an interrupted write: {}",
                stale.len(),
                stale.join(", ")
            ),
            Some("the next store rewrite removes them (`memory-store prune`), or remove them by hand; the files they were to replace are intact"),
        );
    }
}

fn check_errors(paths: &Paths, r: &mut Report) {
    let log = paths.error_log();
    let Ok(text) = fs::read_to_string(&log) else {
        return;
    };
    let lines: Vec<&str> = text.lines().collect();
    if let Some(last) = lines.last() {
        r.add(
            Level::Warn,
            format!(
                "{} hook problem(s) logged in {}; last: {last}",
                lines.len(),
                log.display()
            ),
            Some("read the log; delete it once the cause is fixed"),
        );
    }
}

fn check_project(r: &mut Report) {
    let Ok(cwd) = std::env::current_dir() else {
        return;
    };
    if let Some(marker) = paths::opt_out_marker_for(&cwd) {
        r.add(
            Level::Info,
            format!(
                "capture is off for this project ({} exists)",
                marker.display()
            ),
            None,
        );
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn versions_compare_by_number_not_by_text() {
        use std::cmp::Ordering::*;
        assert_eq!(version_order("0.9.0", "0.10.0"), Less);
        assert_eq!(version_order("1.2.3", "1.2.3"), Equal);
        assert_eq!(version_order("2.0.0", "1.99.99"), Greater);
        assert_eq!(version_order("0.2.0-rc1", "0.2.0"), Equal);
        assert_eq!(version_order("?", "0.1.0"), Less);
    }
}
