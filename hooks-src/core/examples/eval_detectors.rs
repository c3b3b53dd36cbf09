//! Score the detectors on the labelled corpus: precision and recall per type and overall.
//!
//! `cargo run --release -p reflect-core --example eval_detectors -- [--verbose] [LABELS [TRANSCRIPTS]]`
//! (defaults: the shared corpus next to the worktree). `scripts/eval-detectors` wraps this.

use std::path::PathBuf;
use std::process::ExitCode;

use reflect_core::detect::eval::{evaluate, Counts, Miss};
use reflect_core::render::one_line;

fn main() -> ExitCode {
    let mut verbose = false;
    let mut paths = Vec::new();
    for arg in std::env::args().skip(1) {
        match arg.as_str() {
            "-v" | "--verbose" => verbose = true,
            "-h" | "--help" => {
                println!("usage: eval_detectors [--verbose] [LABELS [TRANSCRIPTS]]");
                return ExitCode::SUCCESS;
            }
            _ => paths.push(PathBuf::from(arg)),
        }
    }
    let corpus = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../../shared/corpus");
    let labels = paths
        .first()
        .cloned()
        .unwrap_or_else(|| corpus.join("labels-dev.jsonl"));
    let transcripts = paths.get(1).cloned().unwrap_or_else(|| {
        labels
            .parent()
            .map(|p| p.join("transcripts"))
            .unwrap_or_default()
    });
    let eval = match evaluate(&labels, &transcripts) {
        Ok(eval) => eval,
        Err(e) => {
            eprintln!("eval_detectors: {}: {e}", labels.display());
            return ExitCode::from(1);
        }
    };
    let row = |name: &str, c: &Counts| {
        println!(
            "{name:<12} precision {:.3}  recall {:.3}  (tp {} fp {} fn {})",
            c.precision(),
            c.recall(),
            c.tp,
            c.fp,
            c.fn_
        )
    };
    for (ty, counts) in &eval.per_type {
        row(ty, counts);
    }
    row("overall", &eval.overall);
    if verbose {
        let show = |title: &str, misses: &[Miss]| {
            println!("\n{title} ({}):", misses.len());
            for m in misses {
                println!(
                    "  {}:{} label={} predicted={:?}\n      {}",
                    m.file,
                    m.line,
                    m.label,
                    m.predicted,
                    one_line(&m.text, 220)
                );
            }
        };
        show("false positives", &eval.false_positives);
        show("false negatives", &eval.false_negatives);
        println!(
            "\nlabelled prompts the reader did not yield ({}):",
            eval.unread_labels.len()
        );
        for (file, line) in &eval.unread_labels {
            println!("  {file}:{line}");
        }
        println!(
            "\nuser texts without a label ({}):",
            eval.unlabelled_texts.len()
        );
        for (file, line, text) in &eval.unlabelled_texts {
            println!("  {file}:{line}  {}", one_line(text, 160));
        }
    }
    ExitCode::SUCCESS
}
