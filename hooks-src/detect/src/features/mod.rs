//! The one feature extractor of the learned classifier: what a user message and the turn it
//! answers look like, as a set of binary features. The hook ([`super::model::Model::classify`])
//! and the trainer (the lab's `examples/train_detector.rs`, through `reflect_lab::eval`) both
//! call [`extract`], so the weights are always read against the features they were learned on.
//!
//! Rules: no feature names a word of a person's messages. The cue categories below are written
//! from general knowledge of twelve languages (negations, "stop", "always/never", "remember",
//! "instead", "wrong" …), so what is learned is how much a kind of cue counts, in any language,
//! not which words one person uses. The rest is structure: where the cue sits, how long the
//! message is, whether it pastes something, and what the assistant just did (edited, ran a
//! command, failed, asked a question, had a call refused).
//!
//! Cost: two automaton passes over a message's first few hundred bytes (one over its normalized
//! words, one over its raw text when it is not ASCII) and a bitset; no allocation but the
//! lower-cased copy [`super::text::Reading`] needs anyway.

use std::collections::HashMap;
use std::sync::LazyLock;

use super::text::{self, Reading, Situation};
use reflect_store::signal::Kind;

mod categories;

use categories::CATEGORIES;

/// Number of cue categories.
const CUES: usize = CATEGORIES.len();
/// Words of a message that count as its head ("No, …", "Stop …", "Don't …").
const HEAD_WORDS: usize = 3;
/// Buckets of the message's length in words (⌊log2(1 + words)⌋, the last one open).
const LENGTHS: usize = 7;
/// Buckets of the number of tool calls the message answers (⌊log2(1 + calls)⌋).
const CALLS: usize = 5;

/// The rule verdicts of [`text::rules`], in feature order.
const RULE_KINDS: [Kind; 4] = [
    Kind::Correction,
    Kind::Convention,
    Kind::Preference,
    Kind::Remember,
];

/// Features that are neither a cue nor a bucket, in order after them.
const FLAGS: [&str; 9] = [
    "pastes something",
    "asks a question",
    "shouts",
    "after a refused call",
    "after an edit",
    "after a command",
    "after a tool error",
    "after the assistant asked",
    "after nothing",
];

// Where each group starts.
const CUE_ANYWHERE: usize = 0;
const CUE_AT_HEAD: usize = CUE_ANYWHERE + CUES;
const RULE: usize = CUE_AT_HEAD + CUES;
const LENGTH: usize = RULE + RULE_KINDS.len();
const CALLED: usize = LENGTH + LENGTHS;
const FLAG: usize = CALLED + CALLS;

/// How many features there are.
pub const COUNT: usize = FLAG + FLAGS.len();

const _: () = assert!(COUNT <= 128, "a Features bitset holds 128");

/// The features of one message: a bitset over [`COUNT`] binary features.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Hash)]
pub struct Features([u64; 2]);

impl Features {
    /// What the hand-written rules said of the message, when the user said it in so many words:
    /// a remember-request or a personal preference ("remember that …" is expected to be kept,
    /// whatever the model weighs), a correction that opens with a no, a "that's wrong" or a stop
    /// ("No, use pnpm not npm"), or a convention that opens as a rule ("Always run the linter
    /// before committing"). Measured leave-one-repository-out, these add recall at the model's
    /// precision (`scripts/eval-detectors`, docs/capture-quality.md).
    pub(crate) fn explicit_request(&self) -> Option<Kind> {
        let says = |k: &Kind| {
            RULE_KINDS
                .iter()
                .position(|r| r == k)
                .is_some_and(|i| self.has(RULE + i))
        };
        let opens_with = |cues: &[&str]| {
            CATEGORIES
                .iter()
                .enumerate()
                .any(|(i, c)| cues.contains(&c.0) && self.has(CUE_AT_HEAD + i))
        };
        let opened = [
            (Kind::Remember, &[][..]),
            (Kind::Preference, &[][..]),
            (Kind::Correction, &["no", "wrong", "stop"][..]),
            (Kind::Convention, &["rule"][..]),
        ];
        opened
            .into_iter()
            .find(|(k, cues)| says(k) && (cues.is_empty() || opens_with(cues)))
            .map(|(k, _)| k)
    }

    /// Whether the hand-written rules read the message as a rule meant to last: a convention
    /// ("from now on…", "always…", "in this project we…"), a preference or a remember-request,
    /// from their cue phrases in any language they know, a description ("it never updates")
    /// and a question ("should we always…?") counting for less.
    pub fn rules_say_lasting(&self) -> bool {
        RULE_KINDS
            .iter()
            .enumerate()
            .any(|(i, k)| *k != Kind::Correction && self.has(RULE + i))
    }

    /// The features whose bits are set in `bits` (tests, and the lab's training tests).
    pub fn from_bits(bits: [u64; 2]) -> Features {
        Features(bits)
    }
    fn set(&mut self, i: usize) {
        self.0[i / 64] |= 1 << (i % 64);
    }
    pub fn has(&self, i: usize) -> bool {
        self.0[i / 64] >> (i % 64) & 1 == 1
    }
    /// The indices of the features present, in increasing order.
    pub fn iter(&self) -> impl Iterator<Item = usize> + '_ {
        (0..2).flat_map(move |w| {
            let mut bits = self.0[w];
            std::iter::from_fn(move || {
                (bits != 0).then(|| {
                    let i = bits.trailing_zeros() as usize;
                    bits &= bits - 1;
                    w * 64 + i
                })
            })
        })
    }
}

/// The name of feature `i`, for the generated weights file and for reading them.
pub fn name(i: usize) -> String {
    match i {
        _ if i < CUE_AT_HEAD => format!("cue {}", CATEGORIES[i - CUE_ANYWHERE].0),
        _ if i < RULE => format!("cue {} at the head", CATEGORIES[i - CUE_AT_HEAD].0),
        _ if i < LENGTH => format!("rules say {}", RULE_KINDS[i - RULE].as_str()),
        _ if i < CALLED => format!("{} words", span(i - LENGTH, LENGTHS)),
        _ if i < FLAG => format!("answers {} tool calls", span(i - CALLED, CALLS)),
        _ => FLAGS[i - FLAG].to_string(),
    }
}

/// The counts that fall in bucket `b` of `buckets` (see [`bucket`]): "3-6", "63+".
fn span(b: usize, buckets: usize) -> String {
    let low = (1 << b) - 1;
    if b + 1 == buckets {
        format!("{low}+")
    } else {
        format!("{low}-{}", (1 << (b + 1)) - 2)
    }
}

/// Every category phrase, each pattern with the categories it belongs to (a mask).
type Cues = crate::cues::Cues<u32>;

const _: () = assert!(CUES <= 32, "a pattern's categories are a u32 mask");

/// The spaced (over normalized words) or unspaced (over raw text) phrases of the categories, a
/// phrase in several categories one pattern.
fn cues(spaced: bool) -> Cues {
    let mut entries: Vec<(String, u32)> = Vec::new();
    let mut index: HashMap<String, usize> = HashMap::new();
    for (c, (_, words, unspaced)) in CATEGORIES.iter().enumerate() {
        let phrases = if spaced { *words } else { *unspaced };
        for phrase in phrases {
            let pattern = if spaced {
                format!(" {phrase} ")
            } else {
                phrase.to_string()
            };
            let at = *index.entry(pattern.clone()).or_insert_with(|| {
                entries.push((pattern, 0));
                entries.len() - 1
            });
            entries[at].1 |= 1 << c;
        }
    }
    Cues::build(entries)
}

static SPACED: LazyLock<Cues> = LazyLock::new(|| cues(true));
/// Built only when a message is not all ASCII.
static UNSPACED: LazyLock<Cues> = LazyLock::new(|| cues(false));

/// More than the longest cue phrase's bytes, with the spaces around it.
const OPENING_BYTES: usize = 64;

/// Whether the message opens with a phrase of the "rule" cues, in any language they know:
/// "Always…", "Never…", "From now on…", "Впредь…", "以后…", "앞으로…". The hand-written rules
/// ([`Features::rules_say_lasting`]) know fewer languages.
pub fn opens_as_rule(read: &Reading) -> bool {
    let rule = 1
        << CATEGORIES
            .iter()
            .position(|c| c.0 == "rule")
            .expect("a rule category");
    let opens = |cues: &Cues, text: &str| {
        cues.automaton
            .find_overlapping_iter(text)
            .any(|m| m.start() == 0 && cues.meta[m.pattern().as_usize()] & rule != 0)
    };
    // Only a phrase at the start counts: read no further than the longest one can reach.
    let head = |text| reflect_base::text::truncate(text, OPENING_BYTES);
    let prose = head(read.prose.trim_start());
    opens(&SPACED, head(&read.words))
        || (!prose.is_ascii() && opens(&UNSPACED, &prose.to_lowercase()))
}

/// The features of the message `read`, typed after `situation`. `raw` is its prose lower-cased.
pub(crate) fn extract(read: &Reading, raw: &str, situation: &Situation) -> Features {
    let mut f = Features::default();
    let words = read.words.as_str();
    // The head ends after the space that follows its last word (`words` starts with a space).
    let head_end = memchr::memchr_iter(b' ', words.as_bytes())
        .nth(HEAD_WORDS)
        .map_or(words.len(), |at| at + 1);
    for found in SPACED.automaton.find_overlapping_iter(words) {
        let mask = SPACED.meta[found.pattern().as_usize()];
        set_categories(&mut f, mask, found.end() <= head_end);
    }
    if !raw.is_ascii() {
        let start = raw.len() - raw.trim_start().len();
        for found in UNSPACED.automaton.find_overlapping_iter(raw) {
            let mask = UNSPACED.meta[found.pattern().as_usize()];
            set_categories(&mut f, mask, found.start() == start);
        }
    }
    if let Some(verdict) = text::rules(read, raw, situation) {
        if let Some(k) = RULE_KINDS.iter().position(|k| *k == verdict.kind) {
            f.set(RULE + k);
        }
    }
    let count = memchr::memchr_iter(b' ', words.as_bytes()).count();
    f.set(LENGTH + bucket(count.saturating_sub(1), LENGTHS));
    f.set(CALLED + bucket(situation.calls, CALLS));
    let prose = read.prose.trim_end();
    let letters = prose.chars().filter(|c| c.is_alphabetic()).count();
    let upper = prose.chars().filter(|c| c.is_uppercase()).count();
    let flags = [
        read.prose.len() < read.text.len(),
        read.asks(),
        prose.len() > 5 && 2 * upper > letters.max(1),
        situation.rejected,
        situation.edited,
        situation.ran,
        situation.failed,
        situation.asked,
        situation.actions == 0,
    ];
    for (i, on) in flags.into_iter().enumerate() {
        if on {
            f.set(FLAG + i);
        }
    }
    f
}

fn set_categories(f: &mut Features, mut mask: u32, at_head: bool) {
    while mask != 0 {
        let c = mask.trailing_zeros() as usize;
        mask &= mask - 1;
        f.set(CUE_ANYWHERE + c);
        if at_head {
            f.set(CUE_AT_HEAD + c);
        }
    }
}

/// ⌊log2(1 + n)⌋, at most `buckets - 1`.
fn bucket(n: usize, buckets: usize) -> usize {
    ((usize::BITS - (n + 1).leading_zeros() - 1) as usize).min(buckets - 1)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn features(text: &str, situation: &Situation) -> Features {
        let read = Reading::of(text);
        let raw = read.prose.to_lowercase();
        extract(&read, &raw, situation)
    }

    fn names(f: &Features) -> Vec<String> {
        f.iter().map(name).collect()
    }

    #[test]
    fn cues_are_found_on_word_boundaries_and_at_the_head() {
        let f = names(&features(
            "No, don't use npm; we use pnpm",
            &Situation::default(),
        ));
        for want in [
            "cue no",
            "cue no at the head",
            "cue dont",
            "cue dont at the head",
            "cue convention",
        ] {
            assert!(f.contains(&want.to_string()), "{want}: {f:?}");
        }
        assert!(
            !f.contains(&"cue convention at the head".to_string()),
            "{f:?}"
        );
        // "nothing" holds "no" but not as a word.
        let f = names(&features("nothing to add here", &Situation::default()));
        assert!(!f.iter().any(|n| n.starts_with("cue no")), "{f:?}");
    }

    #[test]
    fn unspaced_scripts_are_read_as_substrings_and_their_head_is_the_first_character() {
        let f = names(&features("不要修改这个文件", &Situation::default()));
        assert!(f.contains(&"cue dont at the head".to_string()), "{f:?}");
        let f = names(&features("这个文件不要修改", &Situation::default()));
        assert!(f.contains(&"cue dont".to_string()), "{f:?}");
        assert!(!f.contains(&"cue dont at the head".to_string()), "{f:?}");
    }

    #[test]
    fn the_turn_answered_sets_the_context_flags() {
        let situation = Situation {
            actions: 4,
            calls: 3,
            rejected: true,
            edited: true,
            ran: false,
            failed: true,
            asked: true,
        };
        let f = names(&features("hm", &situation));
        for want in [
            "after a refused call",
            "after an edit",
            "after a tool error",
            "after the assistant asked",
            "answers 3-6 tool calls",
            "1-2 words",
        ] {
            assert!(f.contains(&want.to_string()), "{want}: {f:?}");
        }
        for absent in ["after a command", "after nothing"] {
            assert!(!f.contains(&absent.to_string()), "{absent}: {f:?}");
        }
        let f = names(&features("hm", &Situation::default()));
        assert!(f.contains(&"after nothing".to_string()), "{f:?}");
        assert!(f.contains(&"answers 0-0 tool calls".to_string()), "{f:?}");
    }

    #[test]
    fn structure_flags_read_the_prose() {
        let f = names(&features("WHY DID YOU DELETE IT?", &Situation::default()));
        assert!(f.contains(&"shouts".to_string()), "{f:?}");
        assert!(f.contains(&"asks a question".to_string()), "{f:?}");
        let f = names(&features(
            "Getting this:\nerror: boom",
            &Situation::default(),
        ));
        assert!(f.contains(&"pastes something".to_string()), "{f:?}");
        assert!(!f.contains(&"shouts".to_string()), "{f:?}");
    }

    #[test]
    fn buckets_and_names_cover_every_feature_once() {
        assert_eq!(bucket(0, 7), 0);
        assert_eq!(bucket(1, 7), 1);
        assert_eq!(bucket(2, 7), 1);
        assert_eq!(bucket(3, 7), 2);
        assert_eq!(bucket(1000, 7), 6);
        let all: Vec<String> = (0..COUNT).map(name).collect();
        let mut unique = all.clone();
        unique.sort();
        unique.dedup();
        assert_eq!(unique.len(), COUNT, "{all:?}");
    }

    #[test]
    fn a_bitset_lists_what_was_set_in_order() {
        let mut f = Features::default();
        for i in [COUNT - 1, 0, 63, 64] {
            f.set(i);
        }
        assert_eq!(f.iter().collect::<Vec<_>>(), vec![0, 63, 64, COUNT - 1]);
        assert!(f.has(63) && !f.has(62));
    }
}
