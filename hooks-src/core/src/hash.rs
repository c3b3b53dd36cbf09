//! A hasher for the short keys of in-memory maps (uuids, tool-use ids, tool names).

use std::hash::{BuildHasherDefault, Hasher};

/// A few multiply-rotate steps per word: the keys are short, and the maps need no DoS resistance
/// (their keys come from the user's own transcript); SipHash cost more than the rest of the
/// bookkeeping around a look-up.
#[derive(Default, Clone, Copy)]
pub struct ShortKeyHasher(u64);

/// For `HashMap::with_hasher` / `HashSet` type parameters.
pub type ShortKeys = BuildHasherDefault<ShortKeyHasher>;

impl ShortKeyHasher {
    fn add(&mut self, word: u64) {
        self.0 = (self.0.rotate_left(5) ^ word).wrapping_mul(0x51_7c_c1_b7_27_22_0a_95);
    }
}

impl Hasher for ShortKeyHasher {
    fn write(&mut self, bytes: &[u8]) {
        let mut words = bytes.chunks_exact(8);
        for word in &mut words {
            self.add(u64::from_le_bytes(word.try_into().expect("8 bytes")));
        }
        for &byte in words.remainder() {
            self.add(u64::from(byte));
        }
    }

    fn write_u8(&mut self, byte: u8) {
        self.add(u64::from(byte));
    }

    fn write_usize(&mut self, n: usize) {
        self.add(n as u64);
    }

    fn finish(&self) -> u64 {
        self.0
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::HashSet;

    #[test]
    fn distinct_short_keys_stay_distinct() {
        let keys: Vec<String> = (0..10_000).map(|i| format!("toolu_{i:020}")).collect();
        let set: HashSet<&str, ShortKeys> = keys.iter().map(String::as_str).collect();
        assert_eq!(set.len(), keys.len());
        assert!(keys.iter().all(|k| set.contains(k.as_str())));
    }
}
