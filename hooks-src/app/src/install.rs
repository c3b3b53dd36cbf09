//! What `reflect-toggle` does: `on` installs the binaries into `<data dir>/bin/`, migrates what v1/v2
//! left, and registers the hooks; `off` removes every hook entry of ours; `status` says where things
//! stand. The binary only parses arguments and prints the lines returned here.
//!
//! Binaries are copied, not linked, so hooks survive a `cargo clean`, a plugin update or a moved
//! checkout: settings.json names `<data dir>/bin/<binary>` and nothing else.

use std::fs;
use std::path::{Path, PathBuf};

use crate::doctor::BINARIES;
use crate::migrate;
use crate::settings::{self, Document, Overall, Status};
use reflect_base::error::{Error, IoContext, Result};
use reflect_base::fsutil::{self, LockWait};
use reflect_base::paths::{binary_file, Paths};
use reflect_base::platform::modes;
use reflect_store::store::Store;

/// Mode of an installed binary.
const BINARY_MODE: u32 = 0o755;

/// Where and how to act.
#[derive(Debug, Clone)]
pub struct Options {
    pub settings: PathBuf,
    /// The directory the six binaries are copied from (the running executable's).
    pub source_dir: PathBuf,
    pub dry_run: bool,
    /// The root of the plugin whose runner started us (`REFLECT_PLUGIN_ROOT`), if any: `on` from a
    /// plugin Claude Code installed leaves the marker [`crate::plugin`] checks.
    pub plugin_root: Option<PathBuf>,
}

/// `<data dir>/bin`, absolute: it is written into settings.json and run from any cwd.
pub fn bin_dir(paths: &Paths) -> Result<PathBuf> {
    let dir = paths.bin_dir();
    std::path::absolute(&dir).ctx("cannot resolve", &dir)
}

fn same_bytes(a: &Path, b: &Path) -> bool {
    match (fs::metadata(a), fs::metadata(b)) {
        (Ok(ma), Ok(mb)) if ma.len() == mb.len() => {
            matches!((fs::read(a), fs::read(b)), (Ok(x), Ok(y)) if x == y)
        }
        _ => false,
    }
}

/// What installing the binaries did.
#[derive(Debug, Default, Clone)]
pub struct Installed {
    pub copied: Vec<&'static str>,
    pub unchanged: Vec<&'static str>,
}

/// Copy the six binaries from `source` into `dest` (atomic replace, mode 0755), skipping those
/// already identical. Every source must exist before anything is copied.
pub(crate) fn install_binaries(source: &Path, dest: &Path, dry_run: bool) -> Result<Installed> {
    for name in BINARIES {
        let src = source.join(binary_file(name));
        if !src.is_file() {
            return Err(Error::msg(format!(
                "cannot install: {} is missing (build all six binaries side by side first: scripts/install.sh)",
                src.display()
            )));
        }
    }
    let mut out = Installed::default();
    let same_dir = matches!(
        (dunce::canonicalize(source), dunce::canonicalize(dest)),
        (Ok(a), Ok(b)) if a == b
    );
    for name in BINARIES {
        let (src, dst) = (source.join(binary_file(name)), dest.join(binary_file(name)));
        let mode_ok = fs::metadata(&dst)
            .is_ok_and(|m| modes::mode_of(&m).is_none_or(|m| m & 0o777 == BINARY_MODE));
        if same_dir || (mode_ok && same_bytes(&src, &dst)) {
            out.unchanged.push(name);
            continue;
        }
        if !dry_run {
            fsutil::ensure_private_dir(dest)?;
            let bytes = fs::read(&src).ctx("cannot read", &src)?;
            // A binary replaced by rename keeps running in any hook that has it open.
            if fs::metadata(&dst).is_ok_and(|m| m.permissions().readonly()) {
                modes::set_path(&dst, BINARY_MODE).ctx("cannot make writable", &dst)?;
            }
            fsutil::atomic_write(&dst, &bytes, BINARY_MODE)?;
            modes::set_path(&dst, BINARY_MODE).ctx("cannot set the mode of", &dst)?;
        }
        out.copied.push(name);
    }
    Ok(out)
}

fn backup_note(backup: &Option<PathBuf>) -> String {
    backup
        .as_ref()
        .map(|b| format!(" (backup: {})", b.display()))
        .unwrap_or_default()
}

/// `reflect-toggle on`: create the data dir, install the binaries, migrate, register the hooks.
pub fn on(paths: &Paths, opts: &Options, on_wait: &mut dyn FnMut()) -> Result<Vec<String>> {
    // Refuse a settings file we cannot edit before touching anything else.
    Document::load(&opts.settings)?;
    let dry = opts.dry_run;
    if !dry {
        settings::refuse_read_only(&opts.settings)?;
        settings::refuse_unlockable(&opts.settings, on_wait)?;
    }
    let verb = |done: &str, would: &str| {
        if dry {
            would.to_string()
        } else {
            done.to_string()
        }
    };
    let mut lines = Vec::new();
    if dry {
        lines.push("dry run: nothing is written".to_string());
    } else {
        fsutil::ensure_private_dir(&paths.data_dir)?;
    }
    let bin = bin_dir(paths)?;
    let installed = install_binaries(&opts.source_dir, &bin, dry)?;
    lines.push(format!(
        "binaries: {} {} in {}, {} unchanged",
        verb("installed", "would install"),
        installed.copied.len(),
        bin.display(),
        installed.unchanged.len()
    ));
    let store = Store::new(paths, LockWait::CLI);
    let report = migrate::run(paths, &store, dry, on_wait)?;
    if report.store_converted > 0 {
        lines.push(format!(
            "store: {} {} v2 signal(s) to schema v1 in {}",
            verb("migrated", "would migrate"),
            report.store_converted,
            paths.store().display()
        ));
    }
    lines.extend(report.claude_md.map(|l| format!("CLAUDE.md: {l}")));
    let outcome = settings::edit_file(&opts.settings, &paths.backups(), dry, on_wait, |doc| {
        doc.enable(&bin)
    })?;
    if outcome.changes.is_empty() {
        lines.push(format!(
            "hooks: all four already registered in {}",
            opts.settings.display()
        ));
    } else {
        lines.push(format!(
            "hooks: {} {}{}",
            verb("updated", "would update"),
            opts.settings.display(),
            backup_note(&outcome.backup)
        ));
        lines.extend(outcome.changes.iter().map(|c| format!("  {}", c.line())));
    }
    if !dry {
        if let Err(e) = remember_plugin(paths, opts) {
            lines.push(format!(
                "note: {e}: uninstalling the plugin will not turn capture off by itself; \
                 run /reflect-toggle off before you uninstall it"
            ));
        }
    }
    let default_data = paths.config_dir.join("reflections");
    if paths.data_dir != default_data {
        // The hooks resolve the data dir from their own environment, which is Claude Code's.
        lines.push(format!(
            "note: the data dir is {} (REFLECT_HOME); Claude Code must run with the same \
             REFLECT_HOME, or the hooks write to {}",
            paths.data_dir.display(),
            default_data.display()
        ));
    }
    lines.insert(
        0,
        if dry {
            "reflect: would be on"
        } else {
            "reflect: on"
        }
        .into(),
    );
    Ok(lines)
}

/// Leave the marker of the installed plugin `on` ran from, or remove an old one when it ran from a
/// checkout (see [`crate::plugin`]).
fn remember_plugin(paths: &Paths, opts: &Options) -> Result<()> {
    let marker = opts
        .plugin_root
        .as_deref()
        .and_then(|root| crate::plugin::marker_for(paths, root, &opts.settings));
    crate::plugin::remember(paths, marker.as_ref())
}

/// `reflect-toggle off`: remove every hook entry of ours (current and legacy) and nothing else. The
/// installed binaries and the data stay; with no hook registered none of them ever runs.
pub fn off(paths: &Paths, opts: &Options, on_wait: &mut dyn FnMut()) -> Result<Vec<String>> {
    let dry = opts.dry_run;
    let (bin, backups) = (bin_dir(paths)?, paths.backups());
    let outcome = settings::edit_file(&opts.settings, &backups, dry, on_wait, |doc| {
        let before_on = settings::last_backup(&opts.settings, &backups);
        doc.disable_after(before_on.as_ref(), &bin)
    })?;
    if !dry {
        // The hooks are gone: a marker that cannot be removed only makes doctor say more.
        let _ = crate::plugin::remember(paths, None);
    }
    let mut lines = vec![if dry {
        "reflect: would be off"
    } else {
        "reflect: off"
    }
    .to_string()];
    if dry {
        lines.push("dry run: nothing is written".into());
    }
    if outcome.changes.is_empty() {
        lines.push(format!(
            "hooks: none of ours in {}, nothing to change",
            opts.settings.display()
        ));
    } else {
        lines.push(format!(
            "hooks: {} {}{}",
            if dry { "would update" } else { "updated" },
            opts.settings.display(),
            backup_note(&outcome.backup)
        ));
        lines.extend(outcome.changes.iter().map(|c| format!("  {}", c.line())));
    }
    Ok(lines)
}

/// Where our hooks stand in `opts.settings`.
pub fn status(paths: &Paths, opts: &Options) -> Result<Status> {
    settings::status(&opts.settings, &bin_dir(paths)?)
}

/// No argument: off when fully on, else on (a partial install is repaired).
pub fn toggle(paths: &Paths, opts: &Options, on_wait: &mut dyn FnMut()) -> Result<Vec<String>> {
    if status(paths, opts)?.overall() == Overall::On {
        off(paths, opts, on_wait)
    } else {
        on(paths, opts, on_wait)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn install_copies_once_and_refuses_a_missing_source() {
        let dir = tempfile::tempdir().unwrap();
        let src = dir.path().join("src");
        let dst = dir.path().join("bin");
        fs::create_dir_all(&src).unwrap();
        for name in &BINARIES[..5] {
            fs::write(src.join(binary_file(name)), name.as_bytes()).unwrap();
        }
        let err = install_binaries(&src, &dst, false).unwrap_err();
        assert!(
            err.to_string()
                .contains(&format!("{} is missing", binary_file("reflect-toggle"))),
            "{err}"
        );
        assert!(!dst.exists(), "nothing copied before every source is there");
        fs::write(src.join(binary_file("reflect-toggle")), b"t").unwrap();
        let first = install_binaries(&src, &dst, false).unwrap();
        assert_eq!(first.copied.len(), 6);
        let meta = fs::metadata(dst.join(binary_file("inject-signals"))).unwrap();
        // Windows has no modes (see platform::modes).
        assert!(modes::mode_of(&meta).is_none_or(|m| m & 0o777 == 0o755));
        let again = install_binaries(&src, &dst, false).unwrap();
        assert_eq!((again.copied.len(), again.unchanged.len()), (0, 6));
        fs::write(src.join(binary_file("memory-store")), b"new").unwrap();
        let dry = install_binaries(&src, &dst, true).unwrap();
        assert_eq!(dry.copied, ["memory-store"]);
        assert_eq!(
            fs::read(dst.join(binary_file("memory-store"))).unwrap(),
            b"memory-store"
        );
    }
}
