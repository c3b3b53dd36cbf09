//! Print every labelled prompt of the corpora with the features the classifier reads of it, one
//! JSON object a line, for `scripts/detector-study` (which compares model families on them).
//!
//! `cargo run -p reflect-lab --example export_prompts -- [CORPUS]` (default: the shared corpus
//! next to the worktree). The output holds the users' words: it goes to a pipe or a scratch
//! file, never into the repository (the corpora may not be copied).

use std::io::{self, BufWriter, Write};
use std::path::PathBuf;
use std::process::ExitCode;

use reflect_detect::model::Evidence;
use reflect_lab::eval::{is_set_aside, load};
use serde_json::json;

fn main() -> ExitCode {
    let corpus = std::env::args()
        .nth(1)
        .map(PathBuf::from)
        .unwrap_or_else(|| {
            PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../../shared/corpus")
        });
    let prompts = match load(&corpus) {
        Ok(prompts) => prompts,
        Err(e) => {
            eprintln!("export_prompts: {}: {e}", corpus.display());
            return ExitCode::from(1);
        }
    };
    let mut out = BufWriter::new(io::stdout().lock());
    for p in &prompts {
        // The first reading the model decides; a prompt with none (a paste, the `#` shortcut)
        // is left out, as the trainer leaves it out.
        let Some(features) = p.evidence.iter().find_map(|e| match e {
            Evidence::Features(f) => Some(f.iter().collect::<Vec<_>>()),
            _ => None,
        }) else {
            continue;
        };
        let line = json!({
            "repo": p.repo,
            "set_aside": is_set_aside(&p.file),
            "moment": p.kind().is_some(),
            "features": features,
            "text": p.text,
        });
        if writeln!(out, "{line}").is_err() {
            return ExitCode::from(1);
        }
    }
    if out.flush().is_err() {
        return ExitCode::from(1);
    }
    ExitCode::SUCCESS
}
