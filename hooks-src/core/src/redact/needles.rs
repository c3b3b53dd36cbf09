//! A literal search for many short needles in any ASCII case, cheap to build: the pre-check of the
//! rule sets and of the generic rules' words.
//!
//! An Aho-Corasick automaton over the rule sets' ~300 keywords took about 1 ms to build, as much
//! as a hook's whole run, and a hook builds it anew in every process. This search is built in
//! microseconds: a bitmap of the needles' first two bytes (lowercased) marks where a needle may
//! start, and only there are the needles with those two bytes compared. Text that holds none of
//! the pairs costs one bitmap test a byte.

/// Needles of at least two bytes, ASCII case-insensitive.
pub(super) struct Needles<'n> {
    /// Bit `(a << 8) | b` is set when some needle starts with the bytes `a`, `b` (lowercase).
    starts: Box<[u64; 1024]>,
    /// Every needle with its index in the list it was built from, sorted by its
    /// first two bytes.
    sorted: Vec<(u16, &'n [u8], usize)>,
}

/// The first two bytes of `bytes`, lowercase, as one number.
fn pair(a: u8, b: u8) -> u16 {
    (u16::from(a.to_ascii_lowercase()) << 8) | u16::from(b.to_ascii_lowercase())
}

impl<'n> Needles<'n> {
    /// The search for `needles` (each at least two bytes; shorter ones are left out).
    pub fn new(needles: impl IntoIterator<Item = &'n str>) -> Needles<'n> {
        let mut starts = Box::new([0u64; 1024]);
        let mut sorted: Vec<(u16, &[u8], usize)> = needles
            .into_iter()
            .map(str::as_bytes)
            .enumerate()
            .filter(|(_, n)| n.len() >= 2)
            .map(|(i, n)| (pair(n[0], n[1]), n, i))
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
            let p = pair(w[0], w[1]);
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
