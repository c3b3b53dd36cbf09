//! Capture turned on from an installed plugin, and what happens when that plugin is uninstalled.
//!
//! The hooks live in settings.json and run `<data dir>/bin/…`, so `/plugin uninstall` alone leaves
//! them registered and capturing. When `reflect-toggle on` runs from a plugin that Claude Code
//! installed (its root lies under `<config dir>/plugins/cache/<marketplace>/<plugin>/`), it leaves a
//! marker, `<data dir>/plugin.json`, naming the plugin (`<plugin>@<marketplace>`), the record Claude
//! Code keeps of installed plugins (`<config dir>/plugins/installed_plugins.json`) and the settings
//! file it registered the hooks in. `on` from a checkout (scripts/install.sh, dist/) and `off`
//! remove the marker: capture turned on by hand is never turned off by this.
//!
//! **The rule.** A hook turns capture off (the same edit as `reflect-toggle off`) only when it is
//! sure the plugin is gone: the record exists, is Claude Code's (a JSON object with `plugins`), and
//! does not list the plugin under any scope; or the record is absent and so is the plugin's own
//! directory in the cache (any version). It logs why, and the marker keeps the reason for `doctor`.
//!
//! **The cost.** Two `stat`s per hook run: the marker's mtime is set to the record's when the
//! plugin was last seen listed, so while neither changes nothing is read. Only after Claude Code
//! rewrote its record (an install, an update, an uninstall) does one hook read both files.

use std::fs;
use std::path::{Path, PathBuf};
use std::time::SystemTime;

use serde::{Deserialize, Serialize};

use reflect_base::error::Result;
use reflect_base::fsutil::{self, PRIVATE_FILE};
use reflect_base::paths::Paths;

/// What `on` remembers of the plugin it ran from.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Marker {
    /// `<plugin>@<marketplace>`, the key of Claude Code's record.
    pub id: String,
    /// `<config dir>/plugins/installed_plugins.json`.
    pub record: PathBuf,
    /// `<config dir>/plugins/cache/<marketplace>/<plugin>`: every version's parent.
    pub plugin_dir: PathBuf,
    /// The settings file the hooks were registered in.
    pub settings: PathBuf,
    /// Set once capture was turned off because the plugin was gone: when, and why.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub turned_off: Option<TurnedOff>,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct TurnedOff {
    pub at: String,
    pub why: String,
}

/// `<data dir>/plugin.json`.
pub fn marker_path(paths: &Paths) -> PathBuf {
    paths.data_dir.join("plugin.json")
}

/// Claude Code's record of installed plugins: `<config dir>/plugins/installed_plugins.json`.
pub fn record_path(paths: &Paths) -> PathBuf {
    paths
        .config_dir
        .join("plugins")
        .join("installed_plugins.json")
}

/// The marker for a plugin whose root is `root`, when Claude Code installed it: the root lies under
/// `<config dir>/plugins/cache/<marketplace>/<plugin>/<version>`. `None` for a checkout.
pub fn marker_for(paths: &Paths, root: &Path, settings: &Path) -> Option<Marker> {
    let cache = paths.config_dir.join("plugins").join("cache");
    let cache = cache.canonicalize().ok()?;
    let root = root.canonicalize().ok()?;
    let mut parts = root.strip_prefix(&cache).ok()?.components();
    let marketplace = parts.next()?.as_os_str().to_str()?.to_string();
    let plugin = parts.next()?.as_os_str().to_str()?.to_string();
    parts.next()?;
    Some(Marker {
        id: format!("{plugin}@{marketplace}"),
        record: record_path(paths),
        plugin_dir: cache.join(&marketplace).join(&plugin),
        settings: settings.to_path_buf(),
        turned_off: None,
    })
}

/// Write `marker` (or, for a checkout, remove any old one), its mtime the record's.
pub fn remember(paths: &Paths, marker: Option<&Marker>) -> Result<()> {
    let path = marker_path(paths);
    let Some(marker) = marker else {
        return match fs::remove_file(&path) {
            Err(e) if e.kind() != std::io::ErrorKind::NotFound => {
                Err(reflect_base::error::Error::io("cannot remove", &path, e))
            }
            _ => Ok(()),
        };
    };
    let mut bytes = serde_json::to_vec_pretty(marker).expect("a marker serializes");
    bytes.push(b'\n');
    fsutil::atomic_write(&path, &bytes, PRIVATE_FILE)?;
    stamp(&path, mtime(&marker.record));
    Ok(())
}

fn mtime(path: &Path) -> Option<SystemTime> {
    fs::metadata(path).and_then(|m| m.modified()).ok()
}

/// Set the marker's mtime to `time` (the record's): "seen listed as of this version of the record".
fn stamp(marker: &Path, time: Option<SystemTime>) {
    if let (Some(time), Ok(file)) = (time, fs::File::options().write(true).open(marker)) {
        let _ = file.set_modified(time);
    }
}

/// The marker, when there is one that can be read.
pub fn load(paths: &Paths) -> Option<Marker> {
    let bytes = fsutil::read_regular(&marker_path(paths)).ok()??;
    serde_json::from_slice(&bytes).ok()
}

/// Why the plugin of `marker` is known to be uninstalled, or `None` while it is installed or when
/// that cannot be told for sure (see the module docs).
pub fn gone_why(marker: &Marker) -> Option<String> {
    let record = match fsutil::read_regular(&marker.record) {
        Ok(Some(bytes)) => bytes,
        Ok(None) => {
            return (!marker.plugin_dir.exists()).then(|| {
                format!(
                    "{} is gone and {} does not exist",
                    marker.plugin_dir.display(),
                    marker.record.display()
                )
            })
        }
        Err(_) => return None,
    };
    let value: serde_json::Value = serde_json::from_slice(&record).ok()?;
    let plugins = value.get("plugins")?.as_object()?;
    let listed = plugins
        .get(&marker.id)
        .is_some_and(|v| v.as_array().is_none_or(|a| !a.is_empty()));
    (!listed).then(|| format!("{} does not list it", marker.record.display()))
}

/// The hot-path check every hook makes: `Some((marker, why))` when capture was turned on from a
/// plugin that has since been uninstalled. Two `stat`s while nothing changed (see the module docs).
pub fn uninstalled(paths: &Paths) -> Option<(Marker, String)> {
    let marker_file = marker_path(paths);
    let seen = fs::metadata(&marker_file).and_then(|m| m.modified()).ok()?;
    if mtime(&record_path(paths)) == Some(seen) {
        return None;
    }
    let marker = load(paths)?;
    if marker.turned_off.is_some() {
        return None;
    }
    match gone_why(&marker) {
        Some(why) => Some((marker, why)),
        None => {
            // Still listed: remember this version of the record, so the next hooks read nothing.
            stamp(&marker_file, mtime(&marker.record));
            None
        }
    }
}

/// Record in the marker that capture was turned off, and why (for `doctor`).
pub fn note_turned_off(paths: &Paths, mut marker: Marker, why: &str) -> Result<()> {
    marker.turned_off = Some(TurnedOff {
        at: fsutil::now_rfc3339(),
        why: why.to_string(),
    });
    let mut bytes = serde_json::to_vec_pretty(&marker).expect("a marker serializes");
    bytes.push(b'\n');
    fsutil::atomic_write(&marker_path(paths), &bytes, PRIVATE_FILE)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn setup() -> (tempfile::TempDir, Paths, PathBuf) {
        let dir = tempfile::tempdir().unwrap();
        let paths = Paths::new(dir.path().join("c"), dir.path().join("c/reflections"));
        let root = paths
            .config_dir
            .join("plugins/cache/mkt/self-improvement/0.1.0");
        fs::create_dir_all(&root).unwrap();
        fs::create_dir_all(&paths.data_dir).unwrap();
        (dir, paths, root)
    }

    fn record(paths: &Paths, ids: &[&str]) {
        let plugins: serde_json::Map<String, serde_json::Value> = ids
            .iter()
            .map(|id| (id.to_string(), serde_json::json!([{"scope": "user"}])))
            .collect();
        let v = serde_json::json!({"version": 2, "plugins": plugins});
        write_record(paths, &v.to_string());
    }

    /// Write the record with a new mtime each time (writes within one clock tick share one).
    fn write_record(paths: &Paths, text: &str) {
        use std::sync::atomic::{AtomicU64, Ordering};
        static TICK: AtomicU64 = AtomicU64::new(1);
        let path = record_path(paths);
        fs::write(&path, text).unwrap();
        let at = SystemTime::UNIX_EPOCH
            + std::time::Duration::from_secs(1_700_000_000 + TICK.fetch_add(1, Ordering::Relaxed));
        fs::File::options()
            .write(true)
            .open(&path)
            .unwrap()
            .set_modified(at)
            .unwrap();
    }

    #[test]
    fn a_plugin_is_known_by_its_place_in_the_cache_and_a_checkout_is_not() {
        let (dir, paths, root) = setup();
        let m = marker_for(&paths, &root, Path::new("/s.json")).unwrap();
        assert_eq!(m.id, "self-improvement@mkt");
        assert!(m.plugin_dir.ends_with("cache/mkt/self-improvement"));
        let checkout = dir.path().join("src/reflect");
        fs::create_dir_all(&checkout).unwrap();
        assert!(marker_for(&paths, &checkout, Path::new("/s.json")).is_none());
        assert!(marker_for(&paths, &root.join("../.."), Path::new("/s.json")).is_none());
    }

    #[test]
    fn uninstalled_only_when_sure() {
        let (_dir, paths, root) = setup();
        record(&paths, &["self-improvement@mkt", "other@mkt"]);
        let m = marker_for(&paths, &root, Path::new("/s.json")).unwrap();
        remember(&paths, Some(&m)).unwrap();
        assert!(uninstalled(&paths).is_none(), "listed");
        // The record rewritten, still listing it.
        record(&paths, &["self-improvement@mkt"]);
        assert!(uninstalled(&paths).is_none());
        // Uninstalled: the record no longer lists it.
        record(&paths, &["other@mkt"]);
        let (_, why) = uninstalled(&paths).unwrap();
        assert!(why.contains("does not list it"), "{why}");
        // A record that is not Claude Code's says nothing.
        write_record(&paths, "not json");
        assert!(uninstalled(&paths).is_none());
        // No record: sure only when the plugin's cache dir is gone too.
        fs::remove_file(record_path(&paths)).unwrap();
        assert!(uninstalled(&paths).is_none());
        fs::remove_dir_all(paths.config_dir.join("plugins/cache/mkt")).unwrap();
        assert!(uninstalled(&paths).is_some());
        // Turned off already: not again.
        record(&paths, &[]);
        note_turned_off(&paths, m, "gone").unwrap();
        assert!(uninstalled(&paths).is_none());
        // A checkout's `on` leaves no marker.
        remember(&paths, None).unwrap();
        assert!(uninstalled(&paths).is_none() && load(&paths).is_none());
    }
}
