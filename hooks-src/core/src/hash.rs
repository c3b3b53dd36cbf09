//! A hasher for the short keys of in-memory maps (uuids, tool-use ids, tool names, signal ids).

use std::hash::{BuildHasherDefault, Hasher};

/// One folded multiply per 8-byte word (the tail packed into one more word, with its length).
/// The keys are short, and the maps need no DoS resistance (their keys come from the user's own
/// transcript and store); SipHash cost more than the rest of the bookkeeping around a look-up.
#[derive(Default, Clone, Copy)]
pub struct ShortKeyHasher(u64);

/// For `HashMap::with_hasher` / `HashSet` type parameters.
pub type ShortKeys = BuildHasherDefault<ShortKeyHasher>;

impl ShortKeyHasher {
    fn add(&mut self, word: u64) {
        // The full 128-bit product, folded: a plain 64-bit product carries a difference in its
        // factors only upwards, so two keys differing high in one word and low in the next
        // could cancel out.
        let product = u128::from(self.0 ^ word) * 0x51_7c_c1_b7_27_22_0a_95;
        self.0 = (product as u64) ^ (product >> 64) as u64;
    }
}

impl Hasher for ShortKeyHasher {
    fn write(&mut self, bytes: &[u8]) {
        let mut words = bytes.chunks_exact(8);
        for word in &mut words {
            self.add(u64::from_le_bytes(word.try_into().expect("8 bytes")));
        }
        let tail = words.remainder();
        if !tail.is_empty() {
            // One step for the whole tail: byte by byte, two differences could cancel. Its
            // length goes in the top byte, which 7 bytes never reach.
            let mut word = [0u8; 8];
            word[..tail.len()].copy_from_slice(tail);
            self.add(u64::from_le_bytes(word) | (tail.len() as u64) << 56);
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
    fn distinct_short_keys_hash_apart() {
        use std::hash::BuildHasher;
        for keys in [
            (0..10_000)
                .map(|i| format!("toolu_{i:020}"))
                .collect::<Vec<_>>(),
            (0..10_000)
                .map(|i| format!("SIG-20261122-{i:010x}"))
                .collect(),
            (0..10_000)
                .map(|i| format!("{i:08x}-1b2c-4d5e-8f90-a1b2c3d4e5f6"))
                .collect(),
        ] {
            let hashes: Vec<u64> = keys
                .iter()
                .map(|k| ShortKeys::default().hash_one(k))
                .collect();
            let distinct: HashSet<u64> = hashes.iter().copied().collect();
            assert_eq!(distinct.len(), keys.len(), "{}", keys[0]);
            // A table picks buckets by the low bits: 10,000 random values fill about 9,270 of
            // 65,536 slots; a hash whose low bits ignore part of the key fills far fewer.
            let buckets: HashSet<u64> = hashes.iter().map(|h| h & 0xffff).collect();
            assert!(buckets.len() > 9_000, "{}: {}", keys[0], buckets.len());
        }
    }
}
