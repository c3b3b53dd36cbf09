//! reflect-toggle: turn capture on or off by registering our hooks in Claude Code's settings.json.
//! All the work is in `reflect_app::install`; this file parses arguments and prints.
// clap prints these doc comments as `--help`, where `<config dir>` is meant as written, not as HTML.
#![allow(rustdoc::invalid_html_tags)]

use std::path::PathBuf;
use std::process::ExitCode;

use clap::{Parser, ValueEnum};
use reflect_app::install::{self, Options};
use reflect_base::error::{Error, IoContext, Result};
use reflect_base::paths::Paths;

use reflect::cli_support::{emit, finish};

const PROGRAM: &str = "reflect-toggle";

#[derive(Clone, Copy, ValueEnum)]
enum Action {
    /// Install the binaries into <data dir>/bin, migrate v1/v2 leftovers, register the four hooks
    On,
    /// Remove every hook entry of ours (current and legacy) and nothing else
    Off,
    /// Say whether capture is on, off or partial, and what is missing or stale
    Status,
}

#[derive(Parser)]
#[command(
    name = PROGRAM,
    version,
    about = "Turn reflect's capture hooks on or off in Claude Code's settings.json",
    long_about = "Turn reflect's capture hooks on or off in Claude Code's settings.json.\n\n\
        Without an action, toggles: off when fully on, else on. The settings file is \
        $CLAUDE_CONFIG_DIR/settings.json (else ~/.claude/settings.json); the data dir is \
        $REFLECT_HOME, else <config dir>/reflections. Every rewrite is backed up to \
        <data dir>/backups/ first.\n\
        Exit codes: 0 success, 1 operational error (the file is left untouched), 2 usage error."
)]
struct Cli {
    /// What to do (none: toggle)
    #[arg(value_enum)]
    action: Option<Action>,
    /// Edit this settings file instead of <config dir>/settings.json
    #[arg(long, value_name = "PATH")]
    settings: Option<PathBuf>,
    /// Say what would change and write nothing
    #[arg(long)]
    dry_run: bool,
}

fn main() -> ExitCode {
    let cli: Cli = reflect::cli_support::parse(PROGRAM);
    finish(PROGRAM, run(cli))
}

fn waiting() {
    eprintln!("{PROGRAM}: waiting for the settings lock (another reflect process is editing)…");
}

fn run(cli: Cli) -> Result<()> {
    let paths = Paths::from_env()?;
    let exe =
        std::env::current_exe().map_err(|e| Error::msg(format!("cannot find own path: {e}")))?;
    let source_dir = exe
        .parent()
        .map(PathBuf::from)
        .ok_or_else(|| Error::msg(format!("{} has no directory", exe.display())))?;
    let settings = cli.settings.unwrap_or_else(|| paths.settings());
    let settings = std::path::absolute(&settings).ctx("cannot resolve", &settings)?;
    let opts = Options {
        settings,
        source_dir,
        dry_run: cli.dry_run,
        // Set by the plugin's runner (skills/self-reflect-toggle/run-toggle) to its plugin root.
        plugin_root: std::env::var_os("REFLECT_PLUGIN_ROOT")
            .filter(|v| !v.is_empty())
            .map(PathBuf::from),
    };
    let lines = match cli.action {
        Some(Action::On) => install::on(&paths, &opts, &mut waiting)?,
        Some(Action::Off) => install::off(&paths, &opts, &mut waiting)?,
        Some(Action::Status) => {
            emit(&install::status(&paths, &opts)?.text(&opts.settings));
            return Ok(());
        }
        None => install::toggle(&paths, &opts, &mut waiting)?,
    };
    emit(&(lines.join("\n") + "\n"));
    Ok(())
}
