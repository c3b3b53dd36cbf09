//! The learned classifier of user messages: weights over the binary [`features`] and the
//! generated source file that ships them (`weights.rs`). Training lives in `reflect-lab`
//! (`train.rs`), which the hooks never link.
//!
//! Two stages, each a logistic regression. The first says whether a message is a learning
//! moment at all; a message is one from [`THRESHOLD`] on. The second, trained on learning
//! moments only, says which kind (one model per kind, the highest score wins). Training is
//! Newton's method on the L2-regularized log-loss: a few dozen features, so each step solves a
//! small dense system; a fixed number of steps in a fixed order, so the same examples always
//! give the same weights, bit for bit. No randomness anywhere.
//!
//! `scripts/train-detector` (`hooks-src/lab/examples/train_detector.rs`) trains on the labelled
//! corpora and writes `weights.rs`; a test regenerates it and compares, so a stale weights file
//! fails the build.

use std::borrow::Cow;

use super::features::{self, Features};
use super::text::{Reading, Situation, Verdict};
use reflect_store::signal::Kind;

pub use super::weights::SHIPPED;

/// The score columns: learning moment or not, then one per kind.
pub const KINDS: [Kind; 4] = [
    Kind::Correction,
    Kind::Convention,
    Kind::Preference,
    Kind::Remember,
];
/// The score columns of a [`Model`]: learning moment, then [`KINDS`].
pub const COLUMNS: usize = 1 + KINDS.len();

/// Probability from which a message is a learning moment. Set high: what capture stores is
/// reviewed, re-injected after compaction and counted, and the model's second look in
/// `/reflect` finds what capture leaves.
pub const THRESHOLD: f64 = 0.6;
/// Probabilities from which a verdict has confidence 2 and 3.
const CONFIDENT: [f64; 2] = [0.75, 0.9];

/// What [`Model::classify`] reads of a message, before a model weighs it.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Evidence {
    /// The `#` memory shortcut: a remember-request whatever the model says.
    Memory,
    /// A message that opens by asking to remember ([`crate::text::asks_to_remember`]): a
    /// remember-request whatever the model says; its features stay a training example.
    Asked(Features),
    /// No prose at all (a paste, an image).
    Nothing,
    /// Words that read as an instruction but are none ([`crate::text::not_an_instruction`]):
    /// never a learning moment; the model still learns from their features as a labelled
    /// example, so the rule withholds a verdict without moving the weights.
    Withheld(Features),
    Features(Features),
}

/// What a message typed after `situation` offers the model.
pub fn evidence(read: &Reading, situation: &Situation) -> Evidence {
    if memchr::memmem::find(read.text.as_bytes(), b"<user-memory-input>").is_some() {
        return Evidence::Memory;
    }
    if read.words.trim().is_empty() {
        return Evidence::Nothing;
    }
    let raw = read.prose.to_lowercase();
    let features = features::extract(read, &raw, situation);
    if crate::text::asks_to_remember(&read.words) {
        return Evidence::Asked(features);
    }
    if crate::text::not_an_instruction(read) {
        return Evidence::Withheld(features);
    }
    Evidence::Features(features)
}

/// Whether a message read as `evidence` states something meant to outlast the task at hand: a
/// remember-request, what the rules read as a convention or a preference
/// ([`Features::rules_say_lasting`]) or a message that opens as a rule in any language
/// ([`features::opens_as_rule`]), unless it only suggests or holds for now ("maybe always…",
/// "for now, never…", as the rules read a hedge). A one-off step ("fix this button", "now run
/// it") has none of these.
pub fn lasting(read: &Reading, evidence: &Evidence) -> bool {
    match evidence {
        Evidence::Memory | Evidence::Asked(_) => true,
        Evidence::Features(f) => {
            (f.rules_say_lasting() || features::opens_as_rule(read))
                && !crate::text::is_hedged_or_for_now(&read.words)
        }
        Evidence::Nothing | Evidence::Withheld(_) => false,
    }
}

/// What a sentence stating a lasting rule adds to its probability in a long prompt's excerpt: one,
/// so it ranks above every sentence that states none.
const LASTING_AHEAD: f64 = 1.0;

/// The shipped classifier's probability that `read`, typed after `situation`, is a learning
/// moment.
pub fn likelihood(read: &Reading, situation: &Situation) -> f64 {
    SHIPPED.likelihood(read, situation)
}

/// What a sentence of a long prompt weighs for its excerpt ([`crate::excerpt`]): its
/// probability, and [`LASTING_AHEAD`] more when it states a rule meant to last ([`lasting`]):
/// the rules first, then the rest, the likeliest first in each. A user states a rule in passing
/// in a prompt about a task ("fix the login page…, and from now on never commit without running
/// the tests"); the task's sentence, a correction of this step above all, can read as likelier
/// to the classifier, which was trained on whole prompts and weighs a rule in some languages
/// lightly, while the rule is what `/reflect` is after.
pub fn lesson_score(read: &Reading, situation: &Situation) -> f64 {
    SHIPPED.lesson_score(read, situation)
}

/// The verdict of `model` on `evidence`.
pub fn verdict(evidence: &Evidence, model: &Model) -> Option<Verdict> {
    match evidence {
        Evidence::Memory | Evidence::Asked(_) => Some(Verdict {
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

/// Weights per feature and column, and a bias per column. The weights are a slice, not an
/// array of [`features::COUNT`] rows, so that a weights file left stale by a change of the
/// features still compiles and the trainer can be built to rewrite it (a test catches it first).
#[derive(Debug, Clone, PartialEq)]
pub struct Model {
    pub bias: [f32; COLUMNS],
    pub weights: Cow<'static, [[f32; COLUMNS]]>,
}

impl Model {
    /// Classify one user message typed after `situation`.
    pub fn classify(&self, read: &Reading, situation: &Situation) -> Option<Verdict> {
        verdict(&evidence(read, situation), self)
    }

    /// The probability that `read`, typed after `situation`, is a learning moment.
    pub fn likelihood(&self, read: &Reading, situation: &Situation) -> f64 {
        self.of_evidence(&evidence(read, situation))
    }

    /// What a sentence of a long prompt weighs for its excerpt (see [`lesson_score`]).
    pub fn lesson_score(&self, read: &Reading, situation: &Situation) -> f64 {
        let evidence = evidence(read, situation);
        let lasting = lasting(read, &evidence);
        self.of_evidence(&evidence) + if lasting { LASTING_AHEAD } else { 0.0 }
    }

    fn of_evidence(&self, evidence: &Evidence) -> f64 {
        match evidence {
            Evidence::Memory | Evidence::Asked(_) => 1.0,
            Evidence::Nothing => 0.0,
            Evidence::Features(f) | Evidence::Withheld(f) => self.probability(f),
        }
    }

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

/// The logistic function.
pub fn sigmoid(z: f64) -> f64 {
    1.0 / (1.0 + (-z).exp())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_memory_shortcut_is_a_remember_request_whatever_the_model_says() {
        let text = "<user-memory-input>deploys happen on tuesdays</user-memory-input>";
        let read = Reading::of(text);
        let verdict = SHIPPED.classify(&read, &Situation::default());
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

    #[test]
    fn a_rule_meant_to_last_is_told_from_a_step_and_from_a_suggestion() {
        let after_an_edit = Situation {
            actions: 1,
            calls: 1,
            edited: true,
            ..Situation::default()
        };
        for (text, lasting_) in [
            ("From now on, run the linter before every commit.", true),
            ("We use pnpm in this project.", true),
            ("Remember that the staging database is read-only.", true),
            ("Впредь всегда пиши тесты перед кодом.", true),
            ("以后不要在任何文件里使用表情符号。", true),
            (
                "<user-memory-input>tabs, not spaces</user-memory-input>",
                true,
            ),
            ("Fix the login page so the button is blue.", false),
            ("No, the button is still green, it should be blue.", false),
            ("Maybe we should always run the linter first.", false),
            ("For now, never push to the release branch.", false),
        ] {
            let read = Reading::of(text);
            let evidence = evidence(&read, &after_an_edit);
            assert_eq!(lasting(&read, &evidence), lasting_, "{text}");
        }
    }
}
