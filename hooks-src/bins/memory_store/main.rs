//! memory-store: the signal store's CLI. `cli.rs` declares the verbs and their flags; each verb's
//! file wires its arguments to reflect-app and prints the result.

mod append;
mod archive;
mod cli;
mod digest;
mod dismiss;
mod doctor;
mod export;
mod forget;
mod get;
mod migrate;
mod promote;
mod prune;
mod query;
mod stats;
mod update;

use std::process::ExitCode;

use reflect_base::error::Result;
use reflect_base::fsutil::LockWait;
use reflect_base::paths::Paths;
use reflect_store::store::Store;

use cli::{Cli, Command};

const PROGRAM: &str = "memory-store";

/// What every verb works on.
pub struct Ctx {
    pub paths: Paths,
    pub store: Store,
}

fn main() -> ExitCode {
    let cli: Cli = reflect::cli_support::parse(PROGRAM);
    reflect::cli_support::finish(PROGRAM, run(cli.command))
}

fn run(command: Command) -> Result<()> {
    let paths = Paths::from_env()?;
    let store = Store::new(&paths, LockWait::CLI);
    let ctx = Ctx { paths, store };
    match command {
        Command::Append(c) => c.run(&ctx),
        Command::Get(c) => c.run(&ctx),
        Command::Query(c) => c.run(&ctx),
        Command::Update(c) => c.run(&ctx),
        Command::Promote(c) => c.run(&ctx),
        Command::Dismiss(c) => c.run(&ctx),
        Command::Forget(c) => c.run(&ctx),
        Command::Archive(c) => c.run(&ctx),
        Command::Prune(c) => c.run(&ctx),
        Command::Stats(c) => c.run(&ctx),
        Command::Export(c) => c.run(&ctx),
        Command::Migrate(c) => c.run(&ctx),
        Command::Doctor(c) => c.run(&ctx),
        Command::Digest(c) => c.run(&ctx),
    }
}

/// Told to a rewrite that has to wait for the store lock.
fn waiting() {
    eprintln!("{PROGRAM}: waiting for the store lock (another reflect process is writing)…");
}
