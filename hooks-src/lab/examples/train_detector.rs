//! Train the learned classifier of user messages on the labelled corpora and write its weights.
//!
//! `cargo run --release -p reflect-lab --example train_detector -- [CORPUS]` (default: the
//! shared corpus next to the worktree) rewrites `hooks-src/detect/src/weights.rs`.
//! `scripts/train-detector` wraps this. Deterministic: the same corpus gives the same file.

use std::path::PathBuf;
use std::process::ExitCode;

use reflect_lab::eval::shipped_source;

fn main() -> ExitCode {
    let manifest = PathBuf::from(env!("CARGO_MANIFEST_DIR"));
    let corpus = std::env::args()
        .nth(1)
        .map(PathBuf::from)
        .unwrap_or_else(|| manifest.join("../../../shared/corpus"));
    let source = match shipped_source(&corpus) {
        Ok(source) => source,
        Err(e) => {
            eprintln!("train_detector: {}: {e}", corpus.display());
            return ExitCode::from(1);
        }
    };
    let out = manifest.join("../detect/src/weights.rs");
    if let Err(e) = std::fs::write(&out, source) {
        eprintln!("train_detector: {}: {e}", out.display());
        return ExitCode::from(1);
    }
    println!("wrote {}", out.display());
    ExitCode::SUCCESS
}
