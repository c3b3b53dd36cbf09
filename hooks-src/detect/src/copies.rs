//! A prompt sent again: the same words as an earlier prompt of the session, in the same place
//! in the conversation. Claude Code writes a resumed or replayed conversation into the session's
//! file again under new uuids, a prompt cut off (interrupted, or lost to an API error) is sent
//! again as it was, and a rewound conversation goes on from an earlier point with the same
//! words: either way the user said it once. So capture stores no sighting of such a copy and the
//! digest neither lists nor counts it (`(typed N times)`). The same words after another, whole
//! answer are a real repeat, and count.
//!
//! Rules, shared by capture and the digest so that both count alike:
//! * **The same words**: [`repeat_key`], the digest's key for a text typed again.
//! * **The same place**, any of:
//!   - *after the same assistant words*: the assistant's last text before it in the file, whole,
//!     and the calls it made since, however many prompts came between (a cut-off prompt got no
//!     answer before it was sent again; one sent again after a turn of calls and no words was
//!     answered, so it is a repeat); what Claude Code wrote in the model's place
//!     ([`transcript::is_harness_reply`]) is not the assistant's words. Before the assistant's
//!     first text a prompt answers nothing, which is a situation too. This is how a replayed
//!     conversation's prompts match theirs: the replay holds the same words and calls.
//!   - *on the same entry*: the entry it goes on from ([`Parent`], `parentUuid` led past what
//!     the reader passes over). A replay's first prompt comes after other words than its original
//!     (the end of the turn before, or nothing) but hangs on the same entry, or, replayed from
//!     the start, on none ([`Parent::Root`]) as the first prompt did. Not for a shell command
//!     run in bash mode ([`place`]): Claude Code hangs every one of a run of them on the same
//!     entry, so running one again there is a real repeat.
//!   - *resent after an interrupt*: the prompt right before it, with only an interrupt (and the
//!     partial answer it stopped) between.
//! * **Bounded**: a session's last [`KEPT`] hashes (one or two a prompt) are remembered, so
//!   capture carries them from run to run in the session's cursor.
//! * **Only what the store holds**: capture remembers a prompt only when it raises a signal, by
//!   its redacted words, so the cursor's hashes confirm no word the store does not already hold
//!   (a password typed alone raises none); any other prompt is only [`Copies::other_prompt`].

use std::collections::{HashSet, VecDeque};
use std::fmt::Write as _;

use foldhash::fast::FixedState;
use reflect_store::signal::{fnv1a, normalize};
use reflect_transcript::{self as transcript, Parent};

/// How many hashes of a session's prompts are remembered (a long session has a few hundred
/// prompts).
pub const KEPT: usize = 2048;

/// Mixed into the hash of a prompt's place on an entry, and of one at a conversation's start,
/// so that neither reads as a place after some assistant words.
const ON_ENTRY: u64 = 0x9e37_79b9_7f4a_7c15;
const AT_ROOT: u64 = 0xc2b2_ae3d_27d4_eb4f;
/// Mixed into the assistant's last text for each call it made after it.
const CALLED: u64 = 0x1656_67b1_9e37_79f9;

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

/// Where prompt `text` on `parent` sits, for [`Copies::is_copy`]: on no known entry when it is a
/// shell command run in bash mode (see the module doc).
pub fn place(text: &str, parent: Parent) -> Parent {
    match text.trim_start().starts_with("<bash-input>") {
        true => Parent::Unknown,
        false => parent,
    }
}

/// One session's prompts so far, to tell a copy (see the module doc).
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Copies {
    /// A hash of the assistant's last text so far and the calls it made since; `None` before
    /// either.
    said: Option<u64>,
    /// The words of the last prompt, when it was remembered; `None` after any other.
    last: Option<u64>,
    /// Whether the user interrupted the answer to the last prompt.
    interrupted: bool,
    /// The prompts' hashes (words and place), oldest first.
    prompts: VecDeque<u64>,
    known: HashSet<u64, FixedState>,
}

/// What [`Copies`] carries from run to run.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Saved {
    pub said: Option<u64>,
    pub last: Option<u64>,
    pub interrupted: bool,
    pub prompts: Vec<u64>,
}

impl Copies {
    /// Go on from what [`Copies::save`] kept.
    pub fn resume(saved: &Saved) -> Copies {
        let mut copies = Copies {
            said: saved.said,
            last: saved.last,
            interrupted: saved.interrupted,
            ..Copies::default()
        };
        for &p in &saved.prompts {
            copies.remember(p);
        }
        copies
    }

    /// What to go on from in the next run.
    pub fn save(&self) -> Saved {
        Saved {
            said: self.said,
            last: self.last,
            interrupted: self.interrupted,
            prompts: self.prompts.iter().copied().collect(),
        }
    }

    /// The assistant wrote `text` (a harness reply is left out).
    pub fn assistant_said(&mut self, text: &str) {
        if !transcript::is_harness_reply(text) {
            self.said = Some(fnv1a(text.trim().as_bytes()));
        }
    }

    /// The assistant called a tool: a prompt after it is in another place than one before it.
    pub fn assistant_called(&mut self) {
        self.said = Some(self.said.unwrap_or(0).rotate_left(7) ^ CALLED);
    }

    /// The user stopped the assistant's answer.
    pub fn interrupted(&mut self) {
        self.interrupted = true;
    }

    /// A prompt that is not remembered: the next is no longer resent after the last.
    pub fn other_prompt(&mut self) {
        self.last = None;
        self.interrupted = false;
    }

    /// Whether a prompt whose [`repeat_key`] is `key`, on `parent`, copies an earlier one;
    /// remembered either way.
    pub fn is_copy(&mut self, key: &str, parent: Parent) -> bool {
        let words = fnv1a(key.as_bytes());
        let resent = self.interrupted && self.last == Some(words);
        self.last = Some(words);
        self.interrupted = false;
        let after = words ^ self.said.unwrap_or(0).rotate_left(1);
        let on = match parent {
            Parent::Unknown => None,
            Parent::Root => Some(words ^ AT_ROOT),
            Parent::Entry(entry) => Some(words ^ (entry ^ ON_ENTRY).rotate_left(2)),
        };
        let copy =
            resent || self.known.contains(&after) || on.is_some_and(|h| self.known.contains(&h));
        self.remember(after);
        if let Some(on) = on {
            self.remember(on);
        }
        copy
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
}

#[cfg(test)]
mod tests {
    use super::*;

    fn prompt(c: &mut Copies, text: &str) -> bool {
        c.is_copy(&repeat_key(text), Parent::Unknown)
    }

    fn prompt_on(c: &mut Copies, text: &str, parent: &str) -> bool {
        c.is_copy(&repeat_key(text), Parent::entry(parent))
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
    fn the_same_words_after_a_turn_of_calls_and_no_words_are_a_repeat_but_a_replay_copies_them() {
        let mut c = Copies::default();
        c.assistant_said("Ready for phase 1.");
        assert!(!prompt(&mut c, "Ask me before each step"));
        // The assistant worked (a call, no words), then the user said it again: a repeat.
        c.assistant_called();
        assert!(
            !prompt(&mut c, "Ask me before each step"),
            "answered by calls"
        );
        // A replay of the conversation holds the same words and calls: a copy of each.
        c.assistant_said("Ready for phase 1.");
        assert!(prompt(&mut c, "Ask me before each step"));
        c.assistant_called();
        assert!(prompt(&mut c, "Ask me before each step"));
    }

    #[test]
    fn a_replays_first_prompt_hangs_on_the_same_entry_as_its_original() {
        let mut c = Copies::default();
        assert!(!c.is_copy(&repeat_key("Sketch the schema"), Parent::Root));
        c.assistant_said("Here is a schema.");
        assert!(!prompt_on(&mut c, "Add an index on email", "a1"));
        c.assistant_said("Added the index.");
        // Written again from the start under new uuids: the first prompt on no entry again,
        // after the words that ended the last turn.
        assert!(c.is_copy(&repeat_key("Sketch the schema"), Parent::Root));
        // Written again from the middle: hung on the original's entry, after other words.
        c.assistant_said("Anything else?");
        assert!(prompt_on(&mut c, "Add an index on email", "a1"));
        // The same words on another entry, after another whole answer: a real repeat.
        c.assistant_said("Dropped the index again.");
        assert!(!prompt_on(&mut c, "Add an index on email", "a7"));
    }

    #[test]
    fn a_shell_command_run_again_on_the_same_entry_is_a_repeat() {
        let mut c = Copies::default();
        let parent = Parent::entry("caveat");
        let run = |c: &mut Copies, text: &str| c.is_copy(&repeat_key(text), place(text, parent));
        assert!(!run(&mut c, "<bash-input>make check</bash-input>"));
        c.assistant_said("Fixed the test.");
        assert!(!run(&mut c, "<bash-input>make check</bash-input>"));
        c.assistant_said("Fixed the next one.");
        assert!(!run(&mut c, "fix it"));
        c.assistant_said("Fixed it.");
        assert!(run(&mut c, "fix it"), "a prompt on the same entry");
    }

    #[test]
    fn a_prompt_resent_after_an_interrupt_is_one() {
        let mut c = Copies::default();
        assert!(!prompt_on(&mut c, "Rename the module", "a1"));
        c.assistant_said("I'll start by reading");
        c.interrupted();
        assert!(prompt_on(&mut c, "rename the module", "u2"), "resent");
        c.assistant_said("Renamed it.");
        c.interrupted();
        assert!(!prompt_on(&mut c, "Now the tests", "u4"), "other words");
        c.assistant_said("Running them");
        // Another prompt between: a real repeat.
        assert!(!prompt_on(&mut c, "Rename the module", "a5"));
        c.assistant_said("Which name?");
        c.interrupted();
        c.other_prompt();
        c.assistant_said("Going on");
        c.interrupted();
        assert!(!prompt_on(&mut c, "Rename the module", "a7"));
        // No interrupt: a whole answer between, a real repeat.
        c.assistant_said("Renamed it to core.");
        assert!(!prompt_on(&mut c, "Rename the module", "a8"));
    }

    #[test]
    fn saved_and_resumed_it_knows_the_same_copies() {
        let mut c = Copies::default();
        c.assistant_said("Done.");
        assert!(!prompt_on(&mut c, "now the docs", "a1"));
        c.interrupted();
        let mut resumed = Copies::resume(&c.save());
        assert_eq!(resumed, c);
        assert!(prompt_on(&mut resumed, "now the docs", "u3"), "resent");
        assert!(prompt_on(&mut resumed, "now the docs", "a1"));
    }

    #[test]
    fn only_the_last_kept_prompts_are_remembered() {
        let mut c = Copies::default();
        for n in 0..=KEPT {
            assert!(!prompt(&mut c, &format!("prompt {n}")));
        }
        assert_eq!(c.save().prompts.len(), KEPT);
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
