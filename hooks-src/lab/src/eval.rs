//! Scoring the detectors against labelled transcripts (the corpus' `labels-*.jsonl`).
//!
//! A labelled prompt is predicted a learning moment when the detectors emit a signal of a scored
//! type (correction, convention, preference, remember) whose `source.line` is the prompt's line.
//! Precision and recall are over the labelled prompts; per type, a prediction of the type counts
//! for it, and so does a label of it (primary or `also`).
//!
//! Two ways. [`evaluate`] runs the whole [`Detector`] with the shipped model over a corpus.
//! [`leave_one_repository_out`] judges the learned model on people it never saw: each
//! repository (one person or team) is scored by a model trained on every other repository, on
//! the development and training corpora together ([`load`]); the prompts' features are read
//! once ([`read_prompts`], the same [`model::evidence`] the detector computes) and each fold's
//! model decides as the detector would. A third of the training repositories ([`set_aside`])
//! was put aside before any rule or feature was written against the training corpus; it is
//! reported on its own, and its errors are not listed.
//!
//! Used by `examples/eval_detectors.rs` (`scripts/eval-detectors`), `examples/train_detector.rs`
//! (`scripts/train-detector`) and the tests that hold the floors.

use std::collections::{BTreeMap, BTreeSet, HashMap, HashSet};
use std::fs::File;
use std::io::{self, BufRead, BufReader};
use std::path::Path;

use serde::Deserialize;

use crate::train::{self, Example};
use reflect_detect::model::{self, Evidence, Model};
use reflect_detect::text::Reading;
use reflect_detect::Detector;
use reflect_store::signal::Kind;
use reflect_transcript::{self as transcript, EventKind, Position};

/// The signal types that count as "learning moment" predictions.
pub(crate) const SCORED: [&str; 4] = ["correction", "convention", "preference", "remember"];

#[derive(Debug, Deserialize)]
struct Label {
    file: String,
    line: u64,
    label: String,
    #[serde(default)]
    also: Vec<String>,
}

/// True/false positives and false negatives.
#[derive(Debug, Default, Clone, Copy, PartialEq)]
pub struct Counts {
    pub tp: u32,
    pub fp: u32,
    pub fn_: u32,
}

impl Counts {
    pub fn precision(&self) -> f64 {
        ratio(self.tp, self.tp + self.fp)
    }
    pub fn recall(&self) -> f64 {
        ratio(self.tp, self.tp + self.fn_)
    }
    /// Count one prediction (`predicted`) of something that is or is not there (`actual`).
    fn record(&mut self, actual: bool, predicted: bool) {
        match (actual, predicted) {
            (true, true) => self.tp += 1,
            (false, true) => self.fp += 1,
            (true, false) => self.fn_ += 1,
            (false, false) => {}
        }
    }
}

fn ratio(a: u32, b: u32) -> f64 {
    if b == 0 {
        1.0
    } else {
        f64::from(a) / f64::from(b)
    }
}

/// One scored prompt that went wrong, for `--verbose`.
#[derive(Debug, Clone)]
pub struct Miss {
    pub file: String,
    pub line: u64,
    pub label: String,
    pub predicted: Vec<String>,
    pub text: String,
}

#[derive(Debug, Default)]
pub struct Evaluation {
    /// Learning moment or not, over every labelled prompt.
    pub overall: Counts,
    /// Per type: a prediction of the type counts for it, a label (primary or `also`) of it too.
    pub per_type: BTreeMap<String, Counts>,
    pub false_positives: Vec<Miss>,
    pub false_negatives: Vec<Miss>,
    /// Labelled prompts the reader did not yield as user text, and user texts nobody labelled.
    pub unread_labels: Vec<(String, u64)>,
    pub unlabelled_texts: Vec<(String, u64, String)>,
}

impl Evaluation {
    fn new() -> Evaluation {
        let mut eval = Evaluation::default();
        for ty in SCORED {
            eval.per_type.insert(ty.to_string(), Counts::default());
        }
        eval
    }

    /// Count one labelled prompt the detectors answered with the types `guess`.
    fn count(
        &mut self,
        file: &str,
        line: u64,
        label: &str,
        also: &[String],
        guess: &[String],
        text: &str,
    ) {
        let actual = label != "none";
        let miss = || Miss {
            file: file.to_string(),
            line,
            label: label.to_string(),
            predicted: guess.to_vec(),
            text: text.to_string(),
        };
        let predicted = !guess.is_empty();
        self.overall.record(actual, predicted);
        match (actual, predicted) {
            (false, true) => self.false_positives.push(miss()),
            (true, false) => self.false_negatives.push(miss()),
            _ => {}
        }
        for ty in SCORED {
            let is = label == ty || also.iter().any(|a| a == ty);
            let said = guess.iter().any(|g| g == ty);
            let counts = self.per_type.get_mut(ty).expect("all scored types present");
            counts.record(is, said);
        }
    }
}

fn read_labels(labels: &Path) -> io::Result<BTreeMap<String, Vec<Label>>> {
    let mut by_file: BTreeMap<String, Vec<Label>> = BTreeMap::new();
    for line in BufReader::new(File::open(labels)?).lines() {
        let line = line?;
        if line.trim().is_empty() {
            continue;
        }
        let label: Label = serde_json::from_str(&line)
            .map_err(|e| io::Error::new(io::ErrorKind::InvalidData, e))?;
        by_file.entry(label.file.clone()).or_default().push(label);
    }
    Ok(by_file)
}

/// Score the detectors on `labels` (JSONL) over the transcripts in `transcripts`.
pub fn evaluate(labels: &Path, transcripts: &Path) -> io::Result<Evaluation> {
    let mut eval = Evaluation::new();
    for (name, labels) in read_labels(labels)? {
        let mut file = File::open(transcripts.join(&name))?;
        let mut detector = Detector::new();
        let mut texts: HashMap<u64, String> = HashMap::new();
        transcript::read(&mut file, Position::default(), |event| {
            if let EventKind::UserText { text } = &event.kind {
                texts.insert(event.line, text.clone());
            }
            detector.feed(&event);
        })?;
        let mut predicted: HashMap<u64, Vec<String>> = HashMap::new();
        for sig in detector.finish() {
            let ty = sig.kind.as_str();
            if let (true, Some(line)) = (SCORED.contains(&ty), sig.source.line) {
                let list = predicted.entry(line).or_default();
                if !list.iter().any(|t| t == ty) {
                    list.push(ty.to_string());
                }
            }
        }
        let labelled: HashSet<u64> = labels.iter().map(|l| l.line).collect();
        for label in &labels {
            let guess = predicted.get(&label.line).cloned().unwrap_or_default();
            if !texts.contains_key(&label.line) {
                eval.unread_labels.push((name.clone(), label.line));
            }
            let text = texts.get(&label.line).map_or("", String::as_str);
            eval.count(&name, label.line, &label.label, &label.also, &guess, text);
        }
        let mut extra: Vec<_> = texts
            .into_iter()
            .filter(|(line, _)| !labelled.contains(line))
            .map(|(line, text)| (name.clone(), line, text))
            .collect();
        extra.sort_by_key(|e| e.1);
        eval.unlabelled_texts.extend(extra);
    }
    Ok(eval)
}

/// One labelled prompt of a corpus and what the classifier reads of it.
#[derive(Debug, Clone)]
pub struct Prompt {
    pub file: String,
    pub line: u64,
    /// The repository the session comes from: one person or team.
    pub repo: String,
    pub label: String,
    pub also: Vec<String>,
    /// What [`model::evidence`] read of each user text on the prompt's line, in the situation the
    /// detector kept (empty when the reader yields none there).
    pub evidence: Vec<Evidence>,
    pub text: String,
}

impl Prompt {
    /// The labelled kind, `None` for no learning moment.
    pub fn kind(&self) -> Option<Kind> {
        (self.label != "none").then(|| Kind::parse(&self.label))
    }
}

/// The labelled prompts of `labels` over `transcripts`, each with its repository
/// (`repo_of(file)`; files it does not know are an error).
pub(crate) fn read_prompts(
    labels: &Path,
    transcripts: &Path,
    repo_of: impl Fn(&str) -> Option<String>,
) -> io::Result<Vec<Prompt>> {
    let mut prompts = Vec::new();
    for (name, labels) in read_labels(labels)? {
        let repo = repo_of(&name).ok_or_else(|| {
            io::Error::new(
                io::ErrorKind::InvalidData,
                format!("no repository for {name}"),
            )
        })?;
        let mut file = File::open(transcripts.join(&name))?;
        let mut seen: HashMap<u64, (Vec<Evidence>, String)> = HashMap::new();
        // The detector itself keeps the situation each message answers.
        let mut detector = Detector::new();
        transcript::read(&mut file, Position::default(), |event| {
            if let EventKind::UserText { text } = &event.kind {
                let evidence = model::evidence(&Reading::of(text), detector.situation());
                let entry = seen.entry(event.line).or_default();
                entry.0.push(evidence);
                if entry.1.is_empty() {
                    entry.1 = text.clone();
                }
            }
            detector.feed(&event);
        })?;
        for label in labels {
            let (evidence, text) = seen.get(&label.line).cloned().unwrap_or_default();
            prompts.push(Prompt {
                file: name.clone(),
                line: label.line,
                repo: repo.clone(),
                label: label.label,
                also: label.also,
                evidence,
                text,
            });
        }
    }
    Ok(prompts)
}

/// The development corpus (`labels-dev.jsonl`, `transcripts/`, a file named
/// `owner__repo__…`) and the training corpus (`train/`, repositories from `SOURCES.json`)
/// under `root`.
pub fn load(root: &Path) -> io::Result<Vec<Prompt>> {
    let mut prompts = read_prompts(
        &root.join("labels-dev.jsonl"),
        &root.join("transcripts"),
        repository_of,
    )?;
    #[derive(Deserialize)]
    struct Source {
        file: String,
        repo: String,
    }
    let train = root.join("train");
    let sources: Vec<Source> =
        serde_json::from_reader(BufReader::new(File::open(train.join("SOURCES.json"))?))
            .map_err(|e| io::Error::new(io::ErrorKind::InvalidData, e))?;
    let repos: HashMap<String, String> = sources.into_iter().map(|s| (s.file, s.repo)).collect();
    prompts.extend(read_prompts(
        &train.join("labels.jsonl"),
        &train.join("transcripts"),
        |file| repos.get(file).cloned(),
    )?);
    Ok(prompts)
}

/// The repository a corpus file comes from, by its name (`owner__repo__…`, as both corpora name
/// their files).
pub(crate) fn repository_of(file: &str) -> Option<String> {
    let mut parts = file.splitn(3, "__");
    let (owner, repo) = (parts.next()?, parts.next()?);
    parts.next()?;
    Some(format!("{owner}/{repo}"))
}

/// Whether a corpus file comes from a set-aside repository (see [`set_aside`]).
pub fn is_set_aside(file: &str) -> bool {
    repository_of(file).is_some_and(|repo| set_aside().contains(&repo.as_str()))
}

/// The training repositories set aside before any rule or feature was written against the
/// training corpus (`heldout.txt`).
pub fn set_aside() -> Vec<&'static str> {
    include_str!("heldout.txt")
        .lines()
        .map(str::trim)
        .filter(|l| !l.is_empty() && !l.starts_with('#'))
        .collect()
}

/// The training examples among `prompts`: those the model decides (not the `#` shortcut, not
/// an empty message), labelled with their primary kind.
pub fn examples<'a>(prompts: impl IntoIterator<Item = &'a Prompt>) -> Vec<Example> {
    let mut out = Vec::new();
    for p in prompts {
        for e in &p.evidence {
            if let Evidence::Features(features)
            | Evidence::Withheld(features)
            | Evidence::Asked(features) = e
            {
                out.push(Example {
                    features: *features,
                    kind: p.kind(),
                });
            }
        }
    }
    out
}

/// The kinds `model` predicts for a prompt, as the detector would emit them.
pub fn predict(prompt: &Prompt, model: &Model) -> Vec<String> {
    let mut kinds: Vec<String> = Vec::new();
    for e in &prompt.evidence {
        if let Some(v) = model::verdict(e, model) {
            let ty = v.kind.as_str().to_string();
            if !kinds.contains(&ty) {
                kinds.push(ty);
            }
        }
    }
    kinds
}

/// The command that writes the shipped weights (`examples/train_detector.rs`).
pub(crate) const TRAIN_COMMAND: &str = "scripts/train-detector";

/// The source of the shipped weights file: the model trained on every labelled prompt of the
/// corpora under `root`.
pub fn shipped_source(root: &Path) -> io::Result<String> {
    let examples = examples(&load(root)?);
    Ok(train::render(
        &train::train(&examples),
        TRAIN_COMMAND,
        examples.len(),
    ))
}

/// The model trained on every labelled prompt of `prompts` but those of the repositories the
/// corpus files `files` (by name) come from, rounded as it would ship: what a stranger's capture
/// weighs their prompts with. Also the repositories left out.
pub fn model_without(prompts: &[Prompt], files: &[&str]) -> (Model, BTreeSet<String>) {
    let mut out: BTreeSet<String> = files.iter().filter_map(|f| repository_of(f)).collect();
    out.extend(
        prompts
            .iter()
            .filter(|p| files.contains(&p.file.as_str()))
            .map(|p| p.repo.clone()),
    );
    let model = train::train(&examples(prompts.iter().filter(|p| !out.contains(&p.repo))));
    (train::as_shipped(&model), out)
}

/// For every prompt, the kinds predicted by a model trained on every repository but its own.
pub fn leave_one_repository_out(prompts: &[Prompt]) -> Vec<Vec<String>> {
    let repos: std::collections::BTreeSet<&str> = prompts.iter().map(|p| p.repo.as_str()).collect();
    let mut predicted = vec![Vec::new(); prompts.len()];
    for repo in repos {
        let model = train::train(&examples(prompts.iter().filter(|p| p.repo != repo)));
        for (i, p) in prompts.iter().enumerate() {
            if p.repo == repo {
                predicted[i] = predict(p, &model);
            }
        }
    }
    predicted
}

/// Score `predicted` (one list of kinds per prompt) over the prompts `keep` selects.
pub fn score(
    prompts: &[Prompt],
    predicted: &[Vec<String>],
    keep: impl Fn(&Prompt) -> bool,
) -> Evaluation {
    let mut eval = Evaluation::new();
    for (p, guess) in prompts.iter().zip(predicted) {
        if keep(p) {
            if p.evidence.is_empty() {
                eval.unread_labels.push((p.file.clone(), p.line));
            }
            eval.count(&p.file, p.line, &p.label, &p.also, guess, &p.text);
        }
    }
    eval
}

/// Learning moment or not, per repository.
pub fn by_repository(prompts: &[Prompt], predicted: &[Vec<String>]) -> BTreeMap<String, Counts> {
    let mut out: BTreeMap<String, Counts> = BTreeMap::new();
    for (p, guess) in prompts.iter().zip(predicted) {
        out.entry(p.repo.clone())
            .or_default()
            .record(p.label != "none", !guess.is_empty());
    }
    out
}

/// How many repositories fall below `floor`: in precision among those with a prediction, in
/// recall among those with a learning moment (a repository with neither counts in neither).
pub fn below(repos: &BTreeMap<String, Counts>, floor: f64) -> Below {
    let mut out = Below::default();
    for c in repos.values() {
        if c.tp + c.fp > 0 {
            out.predicting += 1;
            out.precision += usize::from(c.precision() < floor);
        }
        if c.tp + c.fn_ > 0 {
            out.with_moments += 1;
            out.recall += usize::from(c.recall() < floor);
        }
    }
    out
}

/// Repositories under a floor (see [`below`]).
#[derive(Debug, Default, Clone, Copy, PartialEq)]
pub struct Below {
    /// Repositories with at least one prediction, and how many of them fall below in precision.
    pub predicting: usize,
    pub precision: usize,
    /// Repositories with at least one learning moment, and how many fall below in recall.
    pub with_moments: usize,
    pub recall: usize,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn repositories_below_a_floor_count_only_where_the_ratio_exists() {
        let mut repos = BTreeMap::new();
        let c = |tp, fp, fn_| Counts { tp, fp, fn_ };
        repos.insert("good".into(), c(3, 1, 1));
        repos.insert("noisy".into(), c(1, 3, 0));
        repos.insert("silent".into(), c(0, 0, 4));
        repos.insert("quiet".into(), c(0, 0, 0));
        let b = below(&repos, 0.5);
        assert_eq!(
            b,
            Below {
                predicting: 2,
                precision: 1,
                with_moments: 3,
                recall: 1,
            }
        );
    }

    #[test]
    fn a_file_names_its_repository() {
        assert_eq!(
            repository_of("Tmeister__dotfiles__c330aa16.jsonl").as_deref(),
            Some("Tmeister/dotfiles")
        );
        assert_eq!(repository_of("transcript.jsonl"), None);
        assert!(is_set_aside("uumk0n__dotfiles__a.jsonl"));
        assert!(!is_set_aside("Tmeister__dotfiles__c330aa16.jsonl"));
    }

    #[test]
    fn the_set_aside_list_names_a_third_of_the_training_repositories() {
        let names = set_aside();
        assert_eq!(names.len(), 15, "{names:?}");
        assert!(names.iter().all(|n| n.contains('/') && !n.contains(' ')));
    }
}
