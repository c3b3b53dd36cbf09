//! The learned classifier of user messages: weights over the binary [`features`], how they are
//! trained, and the generated source file that ships them (`weights.rs`).
//!
//! Two stages, each a logistic regression. The first says whether a message is a learning
//! moment at all; a message is one from [`THRESHOLD`] on. The second, trained on learning
//! moments only, says which kind (one model per kind, the highest score wins). Training is
//! Newton's method on the L2-regularized log-loss: a few dozen features, so each step solves a
//! small dense system; a fixed number of steps in a fixed order, so the same examples always
//! give the same weights, bit for bit. No randomness anywhere.
//!
//! `scripts/train-detector` (`examples/train_detector.rs`) trains on the labelled corpora and
//! writes `weights.rs` with [`render`]; a test regenerates it and compares, so a stale
//! weights file fails the build.

use std::borrow::Cow;

use super::features::{self, Features, COUNT};
use super::text::{Reading, Situation, Verdict};
use crate::signal::Kind;

pub use super::weights::SHIPPED;

/// The score columns: learning moment or not, then one per kind.
pub const KINDS: [Kind; 4] = [
    Kind::Correction,
    Kind::Convention,
    Kind::Preference,
    Kind::Remember,
];
const COLUMNS: usize = 1 + KINDS.len();

/// Probability from which a message is a learning moment. Set high: what capture stores is
/// reviewed, re-injected after compaction and counted, and the model's second look in
/// `/reflect` finds what capture leaves.
pub const THRESHOLD: f64 = 0.6;
/// Probabilities from which a verdict has confidence 2 and 3.
const CONFIDENT: [f64; 2] = [0.75, 0.9];

/// L2 penalty on the weights (the bias is barely held: it has to find the base rate).
const LAMBDA: f64 = 1.0;
const LAMBDA_BIAS: f64 = 0.01;
/// Newton steps: the log-loss is smooth and convex, the steps converge long before this.
const STEPS: usize = 12;

/// What [`classify`] reads of a message, before a model weighs it.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Evidence {
    /// The `#` memory shortcut, or a message that opens by asking to remember: a
    /// remember-request whatever the model says.
    Memory,
    /// No prose at all (a paste, an image).
    Nothing,
    /// Words that read as an instruction but are none ([`super::text::not_an_instruction`]):
    /// never a learning moment; the model still learns from their features as a labelled
    /// example, so the rule withholds a verdict without moving the weights.
    Withheld(Features),
    Features(Features),
}

/// What a message typed after `situation` offers the model.
pub fn evidence(read: &Reading, situation: &Situation) -> Evidence {
    if memchr::memmem::find(read.text.as_bytes(), b"<user-memory-input>").is_some()
        || super::text::asks_to_remember(&read.words)
    {
        return Evidence::Memory;
    }
    if read.words.trim().is_empty() {
        return Evidence::Nothing;
    }
    let raw = read.prose.to_lowercase();
    let features = features::extract(read, &raw, situation);
    if super::text::not_an_instruction(read) {
        return Evidence::Withheld(features);
    }
    Evidence::Features(features)
}

/// The verdict of `model` on `evidence`.
pub fn verdict(evidence: &Evidence, model: &Model) -> Option<Verdict> {
    match evidence {
        Evidence::Memory => Some(Verdict {
            kind: Kind::Remember,
            confidence: 3,
        }),
        Evidence::Nothing | Evidence::Withheld(_) => None,
        Evidence::Features(f) => model.verdict(f).or_else(|| {
            f.explicit_request().map(|kind| Verdict {
                kind,
                confidence: 1,
            })
        }),
    }
}

/// Classify one user message typed after `situation`, with the shipped model.
pub fn classify(read: &Reading, situation: &Situation) -> Option<Verdict> {
    verdict(&evidence(read, situation), &SHIPPED)
}

/// Weights per feature and column, and a bias per column. The weights are a slice, not an
/// array of [`COUNT`] rows, so that a weights file left stale by a change of the features still
/// compiles and the trainer can be built to rewrite it (a test catches it first).
#[derive(Debug, Clone, PartialEq)]
pub struct Model {
    pub bias: [f32; COLUMNS],
    pub weights: Cow<'static, [[f32; COLUMNS]]>,
}

impl Model {
    fn score(&self, f: &Features, column: usize) -> f64 {
        let mut z = f64::from(self.bias[column]);
        for i in f.iter() {
            z += self.weights.get(i).map_or(0.0, |w| f64::from(w[column]));
        }
        z
    }

    /// The probability that a message with features `f` is a learning moment.
    pub fn probability(&self, f: &Features) -> f64 {
        sigmoid(self.score(f, 0))
    }

    /// A learning moment of the likeliest kind, or nothing.
    pub fn verdict(&self, f: &Features) -> Option<Verdict> {
        let p = self.probability(f);
        if p < THRESHOLD {
            return None;
        }
        let mut best = 0;
        let mut best_score = f64::NEG_INFINITY;
        for k in 0..KINDS.len() {
            let score = self.score(f, 1 + k);
            if score > best_score {
                (best, best_score) = (k, score);
            }
        }
        let confidence = 1 + CONFIDENT.iter().filter(|&&c| p >= c).count() as u8;
        Some(Verdict {
            kind: KINDS[best].clone(),
            confidence,
        })
    }
}

fn sigmoid(z: f64) -> f64 {
    1.0 / (1.0 + (-z).exp())
}

/// One labelled message: its features and its kind, `None` when it is no learning moment.
#[derive(Debug, Clone)]
pub struct Example {
    pub features: Features,
    pub kind: Option<Kind>,
}

/// Train both stages on `examples`.
pub fn train(examples: &[Example]) -> Model {
    train_with(examples, LAMBDA)
}

/// [`train`] with the L2 penalty `lambda`.
pub fn train_with(examples: &[Example], lambda: f64) -> Model {
    let mut bias = [0.0; COLUMNS];
    let mut weights = vec![[0.0; COLUMNS]; COUNT];
    let moments: Vec<(Features, bool)> = examples
        .iter()
        .map(|e| (e.features, e.kind.is_some()))
        .collect();
    let mut columns = vec![logistic(&moments, lambda)];
    for kind in &KINDS {
        let of_kind: Vec<(Features, bool)> = examples
            .iter()
            .filter_map(|e| Some((e.features, e.kind.as_ref()? == kind)))
            .collect();
        columns.push(logistic(&of_kind, lambda));
    }
    for (c, w) in columns.iter().enumerate() {
        bias[c] = w[COUNT] as f32;
        for (i, row) in weights.iter_mut().enumerate() {
            row[c] = w[i] as f32;
        }
    }
    Model {
        bias,
        weights: Cow::Owned(weights),
    }
}

/// Weights of an L2-regularized logistic regression of `y` on `x`, the bias last.
fn logistic(data: &[(Features, bool)], lambda: f64) -> Vec<f64> {
    const D: usize = COUNT + 1;
    let penalty = |j: usize| if j == COUNT { LAMBDA_BIAS } else { lambda };
    let mut w = vec![0.0f64; D];
    let mut active: Vec<usize> = Vec::with_capacity(D);
    for _ in 0..STEPS {
        let mut gradient: Vec<f64> = (0..D).map(|j| penalty(j) * w[j]).collect();
        let mut hessian = vec![0.0f64; D * D];
        for j in 0..D {
            hessian[j * D + j] = penalty(j);
        }
        for (x, y) in data {
            active.clear();
            active.extend(x.iter());
            active.push(COUNT);
            let z: f64 = active.iter().map(|&j| w[j]).sum();
            let p = sigmoid(z);
            let residual = p - if *y { 1.0 } else { 0.0 };
            let curvature = p * (1.0 - p);
            for (a, &j) in active.iter().enumerate() {
                gradient[j] += residual;
                for &k in &active[..=a] {
                    hessian[j * D + k] += curvature;
                }
            }
        }
        for j in 0..D {
            for k in 0..j {
                hessian[k * D + j] = hessian[j * D + k];
            }
        }
        let step = solve(&mut hessian, gradient, D);
        for j in 0..D {
            w[j] -= step[j];
        }
    }
    w
}

/// Solve `a x = b` for a symmetric positive definite `a` (n × n, row-major; overwritten by its
/// Cholesky factor).
fn solve(a: &mut [f64], mut b: Vec<f64>, n: usize) -> Vec<f64> {
    for j in 0..n {
        let mut d = a[j * n + j];
        for k in 0..j {
            d -= a[j * n + k] * a[j * n + k];
        }
        let d = d.max(1e-12).sqrt();
        a[j * n + j] = d;
        for i in j + 1..n {
            let mut s = a[i * n + j];
            for k in 0..j {
                s -= a[i * n + k] * a[j * n + k];
            }
            a[i * n + j] = s / d;
        }
    }
    // L y = b, then Lᵀ x = y.
    for i in 0..n {
        for k in 0..i {
            b[i] -= a[i * n + k] * b[k];
        }
        b[i] /= a[i * n + i];
    }
    for i in (0..n).rev() {
        for k in i + 1..n {
            b[i] -= a[k * n + i] * b[k];
        }
        b[i] /= a[i * n + i];
    }
    b
}

/// The source of `weights.rs` for `model`, trained on `examples` examples by `command`.
pub fn render(model: &Model, command: &str, examples: usize) -> String {
    let mut out = String::new();
    out.push_str(&format!(
        "//! The shipped weights of the learned classifier ([`super::model`]).\n\
         //!\n\
         //! GENERATED by `{command}` from {examples} labelled prompts of the development and\n\
         //! training corpora; do not edit. A test regenerates it and fails when it is stale.\n\
         //! Columns: learning moment, then {}.\n\n\
         use std::borrow::Cow;\n\n\
         use super::model::Model;\n\n\
         // Learned numbers may land near a named constant (0.3183 is not 1/π).\n\
         #[allow(clippy::approx_constant)]\n\
         #[rustfmt::skip]\n\
         pub static SHIPPED: Model = Model {{\n    bias: {},\n    weights: Cow::Borrowed(&[\n",
        KINDS
            .iter()
            .map(Kind::as_str)
            .collect::<Vec<_>>()
            .join(", "),
        row(&model.bias)
    ));
    for (i, weights) in model.weights.iter().enumerate() {
        out.push_str(&format!(
            "        {}, // {}\n",
            row(weights),
            features::name(i)
        ));
    }
    out.push_str("    ]),\n};\n");
    out
}

fn row(values: &[f32; COLUMNS]) -> String {
    let cells: Vec<String> = values.iter().map(|v| format!("{v:.4}")).collect();
    format!("[{}]", cells.join(", "))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_memory_shortcut_is_a_remember_request_whatever_the_model_says() {
        let text = "<user-memory-input>deploys happen on tuesdays</user-memory-input>";
        let read = Reading::of(text);
        let verdict = classify(&read, &Situation::default());
        assert_eq!(
            verdict,
            Some(Verdict {
                kind: Kind::Remember,
                confidence: 3
            })
        );
    }

    #[test]
    fn a_correction_or_a_rule_said_in_so_many_words_is_kept_where_the_model_hesitates() {
        let after_a_command = Situation {
            actions: 1,
            calls: 1,
            ran: true,
            ..Situation::default()
        };
        for (text, kind) in [
            ("No, use pnpm not npm", Some(Kind::Correction)),
            ("Please stop", Some(Kind::Correction)),
            (
                "That's wrong, the helper is in utils.ts",
                Some(Kind::Correction),
            ),
            (
                "Always run the linter before committing",
                Some(Kind::Convention),
            ),
            ("shjow 120 instead of 60", None),
            ("Please continue, I was on the wrong branch", None),
        ] {
            let read = Reading::of(text);
            let evidence = evidence(&read, &after_a_command);
            let Evidence::Features(f) = &evidence else {
                panic!("{text}: {evidence:?}");
            };
            assert_eq!(
                SHIPPED.verdict(f),
                None,
                "the model alone passes on {text:?}"
            );
            let got = verdict(&evidence, &SHIPPED).map(|v| v.kind);
            assert_eq!(got, kind, "{text}");
        }
    }

    /// Features with the given indices set.
    fn with(indices: &[usize]) -> Features {
        let mut bits = [0u64; 2];
        for &i in indices {
            bits[i / 64] |= 1 << (i % 64);
        }
        Features::from_bits(bits)
    }

    fn examples() -> Vec<Example> {
        // Feature 0 marks corrections, feature 1 conventions, feature 2 nothing in particular.
        let mut out = Vec::new();
        for i in 0..60 {
            out.push(Example {
                features: with(&[0, 2]),
                kind: (i % 6 != 0).then_some(Kind::Correction),
            });
            out.push(Example {
                features: with(&[1]),
                kind: (i % 4 != 0).then_some(Kind::Convention),
            });
            out.push(Example {
                features: with(&[2]),
                kind: (i % 10 == 0).then_some(Kind::Correction),
            });
        }
        out
    }

    #[test]
    fn training_learns_which_features_mark_which_kind() {
        let model = train(&examples());
        let v = model.verdict(&with(&[0, 2])).expect("a correction");
        assert_eq!(v.kind, Kind::Correction);
        let v = model.verdict(&with(&[1])).expect("a convention");
        assert_eq!(v.kind, Kind::Convention);
        assert_eq!(model.verdict(&with(&[2])), None);
        assert!(model.probability(&with(&[2])) < 0.2);
    }

    #[test]
    fn newton_steps_reach_the_minimum() {
        // The gradient of the regularized loss vanishes at the weights found.
        let data: Vec<(Features, bool)> = examples()
            .iter()
            .map(|e| (e.features, e.kind.is_some()))
            .collect();
        let w = logistic(&data, LAMBDA);
        let mut gradient: Vec<f64> = (0..=COUNT)
            .map(|j| w[j] * if j == COUNT { LAMBDA_BIAS } else { LAMBDA })
            .collect();
        for (x, y) in &data {
            let z = w[COUNT] + x.iter().map(|j| w[j]).sum::<f64>();
            let r = sigmoid(z) - if *y { 1.0 } else { 0.0 };
            for j in x.iter().chain([COUNT]) {
                gradient[j] += r;
            }
        }
        assert!(gradient.iter().all(|g| g.abs() < 1e-9), "{gradient:?}");
    }

    #[test]
    fn training_twice_renders_the_same_bytes() {
        let a = render(&train(&examples()), "cmd", 3);
        let b = render(&train(&examples()), "cmd", 3);
        assert_eq!(a, b);
        assert!(a.contains("GENERATED by `cmd`"), "{a}");
        assert_eq!(a.matches(" // ").count(), COUNT, "one row per feature");
    }

    #[test]
    fn solve_inverts_a_symmetric_positive_definite_system() {
        let mut a = vec![4.0, 2.0, 0.6, 2.0, 5.0, 1.0, 0.6, 1.0, 3.0];
        let x = solve(&mut a, vec![1.0, 2.0, 3.0], 3);
        let a = [4.0, 2.0, 0.6, 2.0, 5.0, 1.0, 0.6, 1.0, 3.0];
        for i in 0..3 {
            let bi: f64 = (0..3).map(|k| a[i * 3 + k] * x[k]).sum();
            assert!((bi - [1.0, 2.0, 3.0][i]).abs() < 1e-12);
        }
    }
}
