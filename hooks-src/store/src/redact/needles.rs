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
    /// Bit [`pair_hash`] of its second and third bytes is set for every needle; `None` when a
    /// needle has only two. A second test on the few bytes that pass the first: common pairs
    /// (`re`, `se`, `co`) start many words and few needles.
    nexts: Option<[u64; 64]>,
    /// Every needle with its index in the list it was built from, sorted by that hash.
    sorted: Vec<(u16, &'n [u8], usize)>,
    /// `bucket[h]..bucket[h + 1]`: the needles of `sorted` whose hash is `h`.
    bucket: Vec<u16>,
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

fn set(map: &mut [u64; 64], p: u16) {
    map[usize::from(p >> 6)] |= 1 << (p & 63);
}

fn is_set(map: &[u64; 64], p: u16) -> bool {
    map[usize::from(p >> 6)] & (1 << (p & 63)) != 0
}

impl<'n> Needles<'n> {
    /// The search for `needles` (each at least two bytes; shorter ones are left out).
    pub fn new(needles: impl IntoIterator<Item = &'n str>) -> Needles<'n> {
        let mut starts = [0u64; 64];
        let mut nexts = Some([0u64; 64]);
        let mut sorted: Vec<(u16, &[u8], usize)> = needles
            .into_iter()
            .map(str::as_bytes)
            .enumerate()
            .filter(|(_, n)| n.len() >= 2)
            .map(|(i, n)| (pair_hash(n[0], n[1]), n, i))
            .collect();
        sorted.sort_unstable_by_key(|(p, _, _)| *p);
        let mut bucket = vec![0u16; 4097];
        for (p, n, _) in &sorted {
            set(&mut starts, *p);
            match (&mut nexts, n.get(2)) {
                (Some(map), Some(&c)) => set(map, pair_hash(n[1], c)),
                _ => nexts = None,
            }
            bucket[usize::from(*p) + 1] += 1;
        }
        for h in 1..bucket.len() {
            bucket[h] += bucket[h - 1];
        }
        Needles {
            starts,
            nexts,
            sorted,
            bucket,
        }
    }

    /// Every occurrence in `text`, overlapping ones included: (start, end, the needle's index).
    pub fn find_all(&self, text: &[u8]) -> Vec<(usize, usize, usize)> {
        let mut found = Vec::new();
        for (at, w) in text.windows(2).enumerate() {
            let p = pair_hash(w[0], w[1]);
            if !is_set(&self.starts, p) {
                continue;
            }
            if let Some(nexts) = &self.nexts {
                match text.get(at + 2) {
                    Some(&c) if is_set(nexts, pair_hash(w[1], c)) => {}
                    _ => continue,
                }
            }
            let from = usize::from(self.bucket[usize::from(p)]);
            let to = usize::from(self.bucket[usize::from(p) + 1]);
            for (_, needle, i) in &self.sorted[from..to] {
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
        // Three bytes and more each: the second test runs, and finds the same.
        let long = Needles::new(["token", "tok", "키", "pin"]);
        let text = "A TOKEN; spin, pin 키는 tok";
        let mut found = long.find_all(text.as_bytes());
        found.sort();
        let at = |s: &str| text.find(s).unwrap();
        assert_eq!(
            found,
            vec![
                (at("TOKEN"), at("TOKEN") + 3, 1),
                (at("TOKEN"), at("TOKEN") + 5, 0),
                (at("pin,"), at("pin,") + 3, 3),
                (at(" pin ") + 1, at(" pin ") + 4, 3),
                (at("키"), at("키") + 3, 2),
                (at("tok"), at("tok") + 3, 1),
            ]
        );
    }
}
