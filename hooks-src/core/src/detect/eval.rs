//! Scoring the detectors against labelled transcripts (the corpus' `labels-*.jsonl`).
//!
//! A labelled prompt is predicted a learning moment when the detectors emit a signal of a scored
//! type (correction, convention, preference, remember) whose `source.line` is the prompt's line.
//! Used by `examples/eval_detectors.rs` (by hand, `scripts/eval-detectors`) and by the regression
//! test that holds precision and recall above the floor.

use std::collections::{BTreeMap, HashMap, HashSet};
use std::fs::File;
use std::io::{self, BufRead, BufReader};
use std::path::Path;

use serde::Deserialize;

use super::Detector;
use crate::signal::Kind;
use crate::transcript::{self, EventKind, Position};

/// The signal types that count as "learning moment" predictions.
pub const SCORED: [&str; 4] = ["correction", "convention", "preference", "remember"];

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

/// Score the detectors on `labels` (JSONL) over the transcripts in `transcripts`.
pub fn evaluate(labels: &Path, transcripts: &Path) -> io::Result<Evaluation> {
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
    let mut eval = Evaluation::default();
    for ty in SCORED {
        eval.per_type.insert(ty.to_string(), Counts::default());
    }
    for (name, labels) in by_file {
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
            let actual = label.label != "none";
            let text = texts.get(&label.line).cloned().unwrap_or_default();
            if !texts.contains_key(&label.line) {
                eval.unread_labels.push((name.clone(), label.line));
            }
            let miss = || Miss {
                file: name.clone(),
                line: label.line,
                label: label.label.clone(),
                predicted: guess.clone(),
                text: text.clone(),
            };
            match (actual, !guess.is_empty()) {
                (true, true) => eval.overall.tp += 1,
                (false, true) => {
                    eval.overall.fp += 1;
                    eval.false_positives.push(miss());
                }
                (true, false) => {
                    eval.overall.fn_ += 1;
                    eval.false_negatives.push(miss());
                }
                (false, false) => {}
            }
            for ty in SCORED {
                let is = label.label == ty || label.also.iter().any(|a| a == ty);
                let said = guess.iter().any(|g| g == ty);
                let counts = eval.per_type.get_mut(ty).expect("all scored types present");
                match (is, said) {
                    (true, true) => counts.tp += 1,
                    (false, true) => counts.fp += 1,
                    (true, false) => counts.fn_ += 1,
                    (false, false) => {}
                }
            }
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

/// Whether a kind is one the evaluation scores.
pub fn is_scored(kind: &Kind) -> bool {
    SCORED.contains(&kind.as_str())
}
