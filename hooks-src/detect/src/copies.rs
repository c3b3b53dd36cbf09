//! A prompt sent again: the same words answering the same assistant words as an earlier prompt
//! of the session. Claude Code writes a resumed or replayed conversation into the session's
//! file again under new uuids, and a prompt cut off (interrupted, or lost to an API error) is
//! sent again as it was: either way the user said it once. So capture stores no sighting of such
//! a copy and the digest neither lists nor counts it (`(typed N times)`). The same words after
//! another answer are a real repeat, and count.
//!
//! Rules, shared by capture and the digest so that both count alike:
//! * **The same words**: [`repeat_key`], the digest's key for a text typed again.
//! * **What it answers**: the assistant's last text before it in the file, whole, however many
//!   prompts came between (a cut-off prompt got no answer before it was sent again); what Claude
//!   Code wrote in the model's place ([`transcript::is_harness_reply`]) is not the assistant's
//!   words. Before the assistant's first text a prompt answers nothing, which is a situation too.
//! * **Bounded**: a session's last [`KEPT`] prompts are remembered, as 64-bit hashes, so capture
//!   carries them from run to run in the session's cursor.
//! * **Only what the store holds**: capture remembers a prompt only when it raises a signal, by
//!   its redacted words, so the cursor's hashes confirm no word the store does not already hold
//!   (a password typed alone raises none).

use std::collections::{HashSet, VecDeque};
use std::fmt::Write as _;

use foldhash::fast::FixedState;
use reflect_store::signal::{fnv1a, normalize};
use reflect_transcript as transcript;

/// How many of a session's prompts are remembered (a long session has a few hundred).
pub const KEPT: usize = 2048;

/// What the same text typed again has in common: its words ([`normalize`]), and for a long text,
/// whose words are kept only so far, a hash of the whole (two long prompts that start alike are
/// two prompts).
pub fn repeat_key(text: &str) -> String {
    let mut key = normalize(text);
    if key.len() >= 200 {
        let _ = write!(key, "#{:016x}", fnv1a(text.trim().as_bytes()));
    }
    key
}

/// One session's prompts so far, to tell a copy (see the module doc).
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Copies {
    /// A hash of the assistant's last text so far; `None` before its first.
    said: Option<u64>,
    /// The prompts' hashes (words and what they answered), oldest first.
    prompts: VecDeque<u64>,
    known: HashSet<u64, FixedState>,
}

impl Copies {
    /// Go on from a saved [`Copies::said`] and [`Copies::prompts`].
    pub fn resume(said: Option<u64>, prompts: &[u64]) -> Copies {
        let mut copies = Copies {
            said,
            ..Copies::default()
        };
        for &p in prompts {
            copies.remember(p);
        }
        copies
    }

    /// The assistant wrote `text` (a harness reply is left out).
    pub fn assistant_said(&mut self, text: &str) {
        if !transcript::is_harness_reply(text) {
            self.said = Some(fnv1a(text.trim().as_bytes()));
        }
    }

    /// Whether a prompt whose [`repeat_key`] is `key` copies an earlier one; remembered either way.
    pub fn is_copy(&mut self, key: &str) -> bool {
        let answered = self.said.unwrap_or(0);
        let hash = fnv1a(key.as_bytes()) ^ answered.rotate_left(1);
        if self.known.contains(&hash) {
            return true;
        }
        self.remember(hash);
        false
    }

    fn remember(&mut self, hash: u64) {
        if !self.known.insert(hash) {
            return;
        }
        self.prompts.push_back(hash);
        if self.prompts.len() > KEPT {
            if let Some(old) = self.prompts.pop_front() {
                self.known.remove(&old);
            }
        }
    }

    /// The hash of the assistant's last text (to save).
    pub fn said(&self) -> Option<u64> {
        self.said
    }

    /// The prompts remembered, oldest first (to save).
    pub fn prompts(&self) -> impl Iterator<Item = u64> + '_ {
        self.prompts.iter().copied()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn prompt(c: &mut Copies, text: &str) -> bool {
        c.is_copy(&repeat_key(text))
    }

    #[test]
    fn the_same_words_after_the_same_answer_are_a_copy_after_another_a_repeat() {
        let mut c = Copies::default();
        assert!(!prompt(&mut c, "Use pnpm, not npm"));
        // Sent again before any answer (cut off), in other case and punctuation.
        assert!(prompt(&mut c, "use pnpm not npm!"));
        c.assistant_said("Switched to pnpm.");
        assert!(
            !prompt(&mut c, "Use pnpm, not npm"),
            "after an answer: a repeat"
        );
        // What Claude Code wrote in the model's place answers nothing.
        c.assistant_said("API Error: Connection error.");
        assert!(prompt(&mut c, "Use pnpm, not npm"));
        c.assistant_said("I will use npm.");
        assert!(!prompt(&mut c, "Use pnpm, not npm"));
        // A replay: the same answer again, then the same prompt.
        c.assistant_said("Switched to pnpm.");
        assert!(prompt(&mut c, "Use pnpm, not npm"));
        assert!(!prompt(&mut c, "and run the tests"));
    }

    #[test]
    fn saved_and_resumed_it_knows_the_same_copies() {
        let mut c = Copies::default();
        c.assistant_said("Done.");
        assert!(!prompt(&mut c, "now the docs"));
        let mut resumed = Copies::resume(c.said(), &c.prompts().collect::<Vec<_>>());
        assert_eq!(resumed, c);
        assert!(prompt(&mut resumed, "now the docs"));
    }

    #[test]
    fn only_the_last_kept_prompts_are_remembered() {
        let mut c = Copies::default();
        for n in 0..=KEPT {
            assert!(!prompt(&mut c, &format!("prompt {n}")));
        }
        assert_eq!(c.prompts().count(), KEPT);
        assert!(!prompt(&mut c, "prompt 0"), "forgotten");
        assert!(prompt(&mut c, &format!("prompt {KEPT}")));
    }

    #[test]
    fn long_texts_that_start_alike_are_two_keys() {
        let start = "word ".repeat(60);
        assert_ne!(
            repeat_key(&format!("{start} one")),
            repeat_key(&format!("{start} two"))
        );
        assert_eq!(repeat_key("Fix it!"), repeat_key("fix it"));
    }
}
