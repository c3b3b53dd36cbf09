//! A literal search for many short needles in any ASCII case, cheap to build: the pre-check of the
//! rule sets and of the generic rules' words.
//!
//! An Aho-Corasick automaton over the rule sets' ~300 keywords took about 1 ms to build, as much
//! as a hook's whole run, and a hook builds it anew in every process. This search is built in
//! microseconds: a bitmap of the hashes of the needles' first two bytes (case folded) marks where
//! a needle may start, and only there are the needles of that hash compared. The rule sets' keywords
//! are searched the same way with tables build.rs writes (the `rules` module). Text that holds none of
//! the pairs costs one bitmap test a byte.

/// Needles of at least two bytes, ASCII case-insensitive.
pub(super) struct Needles<'n> {
    /// Bit [`pair_hash`] of its first two bytes is set for every needle.
    starts: [u64; 64],
    /// Every needle with its index in the list it was built from, sorted by that hash.
    sorted: Vec<(u16, &'n [u8], usize)>,
}

/// Where a needle's first two bytes (ASCII case folded) fall in a 4,096-bit map. build.rs
/// computes the same for the rule sets' keywords.
pub(super) fn pair_hash(a: u8, b: u8) -> u16 {
    let (a, b) = (
        u32::from(a.to_ascii_lowercase()),
        u32::from(b.to_ascii_lowercase()),
    );
    ((a * 131 + b) & 4095) as u16
}

impl<'n> Needles<'n> {
    /// The search for `needles` (each at least two bytes; shorter ones are left out).
    pub fn new(needles: impl IntoIterator<Item = &'n str>) -> Needles<'n> {
        let mut starts = [0u64; 64];
        let mut sorted: Vec<(u16, &[u8], usize)> = needles
            .into_iter()
            .map(str::as_bytes)
            .enumerate()
            .filter(|(_, n)| n.len() >= 2)
            .map(|(i, n)| (pair_hash(n[0], n[1]), n, i))
            .collect();
        sorted.sort_unstable_by_key(|(p, _, _)| *p);
        for (p, _, _) in &sorted {
            starts[usize::from(p >> 6)] |= 1 << (p & 63);
        }
        Needles { starts, sorted }
    }

    /// Every occurrence in `text`, overlapping ones included: (start, end, the needle's index).
    pub fn find_all(&self, text: &[u8]) -> Vec<(usize, usize, usize)> {
        let mut found = Vec::new();
        for (at, w) in text.windows(2).enumerate() {
            let p = pair_hash(w[0], w[1]);
            if self.starts[usize::from(p >> 6)] & (1 << (p & 63)) == 0 {
                continue;
            }
            let from = self.sorted.partition_point(|(q, _, _)| *q < p);
            for (_, needle, i) in self.sorted[from..].iter().take_while(|(q, _, _)| *q == p) {
                let end = at + needle.len();
                if text
                    .get(at..end)
                    .is_some_and(|t| t.eq_ignore_ascii_case(needle))
                {
                    found.push((at, end, *i));
                }
            }
        }
        found
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn finds_every_needle_in_any_case_and_nothing_else() {
        let needles = Needles::new(["sk", "token", "tok", "키", "x"]);
        let text = "A TOKEN, a Sk; 키는 tok";
        let mut found: Vec<(usize, usize, usize)> = needles.find_all(text.as_bytes());
        found.sort();
        let at = |s: &str| text.find(s).unwrap();
        assert_eq!(
            found,
            vec![
                (at("TOKEN"), at("TOKEN") + 3, 2),
                (at("TOKEN"), at("TOKEN") + 5, 1),
                (at("Sk"), at("Sk") + 2, 0),
                (at("키"), at("키") + 3, 3),
                (at("tok"), at("tok") + 3, 2),
            ]
        );
        assert!(needles.find_all(b"nothing here").is_empty());
    }
}
