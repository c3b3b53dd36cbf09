//! A hash that is stable across versions and platforms (unlike std's hasher), for what is kept
//! on disk or compared between runs: keys, fingerprints, the cursor's prompt hashes.

/// 64-bit FNV-1a: small, stable across versions and platforms.
pub fn fnv1a(bytes: &[u8]) -> u64 {
    let mut hash: u64 = 0xcbf2_9ce4_8422_2325;
    for &b in bytes {
        hash ^= u64::from(b);
        hash = hash.wrapping_mul(0x0100_0000_01b3);
    }
    hash
}
