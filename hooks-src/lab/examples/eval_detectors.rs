//! Score the detectors on the labelled corpora: precision and recall per type and overall.
//!
//! `cargo run -p reflect-lab --example eval_detectors -- [--verbose] [--labels LABELS
//! [TRANSCRIPTS]] [CORPUS]` (default: the shared corpus next to the worktree).
//! `scripts/eval-detectors` wraps this. It prints:
//!
//! * the development corpus, scored end to end with the whole detector and the shipped model
//!   (which was trained on it: this is not a result on unseen people);
//! * leave-one-repository-out over the development and training corpora together: each
//!   repository scored by a model trained without it, pooled, overall and per type;
//! * the same for the training repositories set aside before any rule was written against the
//!   training corpus, and for the rest;
//! * how many repositories fall below 0.5 precision or recall.
//!
//! `--verbose` lists the per-repository results and the leave-one-repository-out errors (with
//! the user's text) of every repository but the set-aside ones, whose prompts are never shown;
//! `--labels` scores one labels file end to end instead (with `--verbose`, its errors, unread
//! labels and unlabelled user texts, again without the set-aside repositories').

use std::path::PathBuf;
use std::process::ExitCode;

use reflect_base::text::one_line;
use reflect_lab::eval::{
    below, by_repository, evaluate, is_set_aside, leave_one_repository_out, load, score, set_aside,
    Counts, Evaluation, Miss, Prompt,
};

const USAGE: &str = "usage: eval_detectors [--verbose] [--labels LABELS [TRANSCRIPTS]] [CORPUS]";

fn main() -> ExitCode {
    let mut verbose = false;
    let mut labels: Option<Vec<PathBuf>> = None;
    let mut corpus = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../../shared/corpus");
    for arg in std::env::args().skip(1) {
        match arg.as_str() {
            "-v" | "--verbose" => verbose = true,
            "--labels" => labels = Some(Vec::new()),
            "-h" | "--help" => {
                println!("{USAGE}");
                return ExitCode::SUCCESS;
            }
            _ if arg.starts_with('-') => {
                eprintln!("{USAGE}");
                return ExitCode::from(2);
            }
            _ => match labels.as_mut() {
                Some(paths) => paths.push(PathBuf::from(arg)),
                None => corpus = PathBuf::from(arg),
            },
        }
    }
    match labels {
        Some(paths) => one_file(paths, verbose),
        None => corpora(&corpus, verbose),
    }
}

/// One labels file, end to end with the whole detector.
fn one_file(paths: Vec<PathBuf>, verbose: bool) -> ExitCode {
    let Some(labels) = paths.first() else {
        eprintln!("{USAGE}");
        return ExitCode::from(2);
    };
    let transcripts = paths.get(1).cloned().unwrap_or_else(|| {
        labels
            .parent()
            .map(|p| p.join("transcripts"))
            .unwrap_or_default()
    });
    let eval = match evaluate(labels, &transcripts) {
        Ok(eval) => eval,
        Err(e) => {
            eprintln!("eval_detectors: {}: {e}", labels.display());
            return ExitCode::from(1);
        }
    };
    table(&eval);
    if verbose {
        // The set-aside repositories are scored, never read: their prompts are not listed.
        let mut eval = eval;
        let before = eval.false_positives.len()
            + eval.false_negatives.len()
            + eval.unread_labels.len()
            + eval.unlabelled_texts.len();
        eval.false_positives.retain(|m| !is_set_aside(&m.file));
        eval.false_negatives.retain(|m| !is_set_aside(&m.file));
        eval.unread_labels.retain(|(file, _)| !is_set_aside(file));
        eval.unlabelled_texts
            .retain(|(file, _, _)| !is_set_aside(file));
        let hidden = before
            - eval.false_positives.len()
            - eval.false_negatives.len()
            - eval.unread_labels.len()
            - eval.unlabelled_texts.len();
        errors(&eval);
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
        if hidden > 0 {
            println!("\n({hidden} entries from set-aside repositories are not shown)");
        }
    }
    ExitCode::SUCCESS
}

fn corpora(corpus: &std::path::Path, verbose: bool) -> ExitCode {
    let dev = match evaluate(
        &corpus.join("labels-dev.jsonl"),
        &corpus.join("transcripts"),
    ) {
        Ok(eval) => eval,
        Err(e) => {
            eprintln!("eval_detectors: {}: {e}", corpus.display());
            return ExitCode::from(1);
        }
    };
    let prompts = match load(corpus) {
        Ok(prompts) => prompts,
        Err(e) => {
            eprintln!("eval_detectors: {}: {e}", corpus.display());
            return ExitCode::from(1);
        }
    };
    println!("Development corpus, the whole detector with the shipped model (trained on it too):");
    table(&dev);

    let predicted = leave_one_repository_out(&prompts);
    let aside = set_aside();
    let is_aside = |p: &Prompt| aside.contains(&p.repo.as_str());
    let repos = |keep: &dyn Fn(&Prompt) -> bool| {
        let mut names: Vec<&str> = prompts
            .iter()
            .filter(|p| keep(p))
            .map(|p| p.repo.as_str())
            .collect();
        names.sort();
        names.dedup();
        names.len()
    };
    let all = score(&prompts, &predicted, |_| true);
    println!(
        "\nLeave-one-repository-out, development + training ({} repositories, {} prompts), pooled:",
        repos(&|_| true),
        prompts.len()
    );
    table(&all);
    let aside_eval = score(&prompts, &predicted, is_aside);
    println!(
        "\nThe set-aside third ({} training repositories, {} prompts; never read for errors):",
        repos(&is_aside),
        prompts.iter().filter(|p| is_aside(p)).count()
    );
    table(&aside_eval);
    let rest = score(&prompts, &predicted, |p| !is_aside(p));
    println!(
        "\nThe rest ({} repositories, {} prompts):",
        repos(&|p| !is_aside(p)),
        prompts.iter().filter(|p| !is_aside(p)).count()
    );
    row("overall", &rest.overall);

    let per_repo = by_repository(&prompts, &predicted);
    let b = below(&per_repo, 0.5);
    println!(
        "\nRepositories below 0.5: precision {} of the {} with a prediction; recall {} of the {} \
         with a learning moment (of {} repositories)",
        b.precision,
        b.predicting,
        b.recall,
        b.with_moments,
        per_repo.len()
    );
    if verbose {
        println!("\nPer repository (leave-one-repository-out):");
        for (repo, c) in &per_repo {
            let mark = if aside.contains(&repo.as_str()) {
                " (set aside)"
            } else {
                ""
            };
            println!(
                "  {repo:<48} precision {:.2} recall {:.2} (tp {} fp {} fn {}){mark}",
                c.precision(),
                c.recall(),
                c.tp,
                c.fp,
                c.fn_
            );
        }
        errors(&rest);
        println!(
            "\n(the {} errors in set-aside repositories are not shown)",
            aside_eval.false_positives.len() + aside_eval.false_negatives.len()
        );
    }
    ExitCode::SUCCESS
}

fn row(name: &str, c: &Counts) {
    println!(
        "  {name:<12} precision {:.3}  recall {:.3}  (tp {} fp {} fn {})",
        c.precision(),
        c.recall(),
        c.tp,
        c.fp,
        c.fn_
    )
}

fn table(eval: &Evaluation) {
    for (ty, counts) in &eval.per_type {
        row(ty, counts);
    }
    row("overall", &eval.overall);
}

fn errors(eval: &Evaluation) {
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
}
