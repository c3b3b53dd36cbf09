//! Cue phrases in one Aho-Corasick automaton: one pass over a message instead of one search per
//! phrase. The rule detector ([`crate::text`]) and the model's features ([`crate::features`])
//! each keep two sets, spaced phrases over normalized words and unspaced ones (scripts without
//! spaces) over the raw text, and differ only in what a pattern stands for (`M`).

use aho_corasick::{AhoCorasick, AhoCorasickKind};

/// Patterns in one automaton, pattern `i` standing for `meta[i]`.
pub(crate) struct Cues<M> {
    pub(crate) automaton: AhoCorasick,
    pub(crate) meta: Vec<M>,
}

impl<M> Cues<M> {
    /// The automaton of `entries` (pattern, what it stands for), in their order.
    pub(crate) fn build<P: AsRef<[u8]>>(entries: impl IntoIterator<Item = (P, M)>) -> Cues<M> {
        let (patterns, meta): (Vec<P>, Vec<M>) = entries.into_iter().unzip();
        // A DFA (what the builder picks for a few dozen patterns) takes longer to build than a
        // run's few hundred short messages take to search; the automata find the same matches.
        let automaton = AhoCorasick::builder()
            .kind(Some(AhoCorasickKind::ContiguousNFA))
            .build(&patterns)
            .expect("cue phrases are plain literals");
        Cues { automaton, meta }
    }
}
