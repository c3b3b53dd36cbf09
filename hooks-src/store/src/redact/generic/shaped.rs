//! The shape rules, `key-shaped-token`, `discord-bot-token`, `zhipu-api-key` and
//! `base64-secret`: a secret told by its own shape, or a base64 blob near a word naming one.

use std::ops::Range;

use crate::redact::rules::entropy;
use crate::redact::scan::{ordered, run, run_back, runs, separated};

/// Prefixes of ids, not keys: the ids of Claude's tools (on Amazon Bedrock, `tooluse_`),
/// messages and requests, and of common APIs' objects.
const ID_PREFIXES: &[&str] = &[
    "toolu", "tooluse", "srvtoolu", "msg", "req", "call", "chatcmpl", "run", "thread", "asst",
    "file", "evt", "cus", "ch", "pi", "sub", "acct", "sess", "session", "user", "org", "resp",
    "batch", "ft", "txn", "in", "price", "prod", "seti", "src", "pm", "job", "task", "trace",
    "span", "img", "doc", "id", "node", "item", "step", "conv", "chat", "cmpl", "vs", "fc", "rs",
    "agent", "tool", "block", "att", "sha", "sha1", "sha256", "sha384", "sha512", "md5",
];

/// `key-shaped-token`: in each run of `[A-Za-z0-9_-]` that stands alone, a lowercase prefix of
/// one to three `_`/`-`-ended segments, then a random base62 body of 20 to 200 bytes.
pub(super) fn key_shaped(text: &[u8]) -> Vec<Range<usize>> {
    let token_byte = |b: u8| b.is_ascii_alphanumeric() || b == b'_' || b == b'-';
    let mut found = Vec::new();
    for Range { start, end } in runs(text, token_byte) {
        if end - start < 24 {
            continue;
        }
        // Part of a path, a base64 blob, a file name or a dotted name: no key of its own.
        let before = start.checked_sub(1).map(|p| text[p]);
        let after = text.get(end).copied();
        let after2 = text.get(end + 1).copied();
        if matches!(before, Some(b'/' | b'+' | b'.' | b'\\' | b'@'))
            || matches!(after, Some(b'/' | b'+' | b'\\' | b'@'))
            || (after == Some(b'.') && after2.is_some_and(|b| b.is_ascii_alphanumeric()))
            || (after == Some(b'=')
                && after2.is_some_and(|b| b == b'=' || b.is_ascii_alphanumeric()))
        {
            continue;
        }
        if let Some(body_at) = key_body_start(&text[start..end]) {
            if random_base62(&text[start + body_at..end]) {
                found.push(start..end);
            }
        }
    }
    found
}

/// Where the body of a key-shaped token starts: after one to three lowercase segments, each
/// ended by `_` or `-`, the first starting with a letter and not an id's prefix.
fn key_body_start(token: &[u8]) -> Option<usize> {
    let segment = |from: usize| {
        let len = run(token, from, |b| {
            b.is_ascii_lowercase() || b.is_ascii_digit()
        });
        ((1..=12).contains(&len) && matches!(token.get(from + len), Some(b'_' | b'-')))
            .then_some(from + len + 1)
    };
    if !token[0].is_ascii_lowercase() {
        return None;
    }
    let first_end = segment(0)?;
    let first = std::str::from_utf8(&token[..first_end - 1]).ok()?;
    if ID_PREFIXES.contains(&first) {
        return None;
    }
    let mut at = first_end;
    for _ in 0..2 {
        // A further short segment (`proj-`, `v1_`, `live_`) when the body goes on after it.
        match segment(at) {
            Some(next) if next - at <= 9 && token.len() - next >= 20 => at = next,
            _ => break,
        }
    }
    Some(at)
}

/// 20 to 200 bytes of base62 that look drawn at random ([`looks_random`]).
fn random_base62(body: &[u8]) -> bool {
    (20..=200).contains(&body.len())
        && body.iter().all(u8::is_ascii_alphanumeric)
        && looks_random(body)
}

/// `discord-bot-token`: `<24-28 base64url: a numeric id>.<6 base64url>.<27-40 base64url>`.
pub(super) fn discord_bot_tokens(text: &[u8]) -> Vec<Range<usize>> {
    let b64 = |b: u8| b.is_ascii_alphanumeric() || b == b'_' || b == b'-';
    let mut found = Vec::new();
    for dot in memchr::memchr_iter(b'.', text) {
        if text.get(dot + 7) != Some(&b'.') || !text[dot + 1..dot + 7].iter().all(|&b| b64(b)) {
            continue;
        }
        // A numeric id's base64 holds letters and digits only: an `_` before it separates.
        let id_len = run_back(text, dot, |b| b.is_ascii_alphanumeric());
        let mac_len = run(text, dot + 8, b64);
        let start = dot - id_len;
        if !(24..=28).contains(&id_len)
            || !(27..=40).contains(&mac_len)
            || !matches!(text[start], b'M' | b'N' | b'O')
            || !separated(text, start)
            || text.get(dot + 8 + mac_len).is_some_and(|&b| b == b'.')
            || !decodes_to_digits(&text[start..start + 20])
        {
            continue;
        }
        found.push(start..dot + 8 + mac_len);
    }
    ordered(found)
}

/// `zhipu-api-key`: `<32 lowercase hex>.<16 letters and digits, both cases>`, the API key of
/// Zhipu's BigModel and Z.ai (GLM), whole (its id and its secret). It holds no literal for the
/// data rules' keyword pre-check, so it is found from its dot, as a Discord token is.
pub(super) fn zhipu_keys(text: &[u8]) -> Vec<Range<usize>> {
    let hex = |b: &u8| b.is_ascii_digit() || (b'a'..=b'f').contains(b);
    let mut found = Vec::new();
    for dot in memchr::memchr_iter(b'.', text) {
        let id_len = run_back(text, dot, |b| b.is_ascii_alphanumeric());
        let secret_len = run(text, dot + 1, |b| b.is_ascii_alphanumeric());
        if id_len != 32 || secret_len != 16 {
            continue;
        }
        let (start, end) = (dot - 32, dot + 17);
        let secret = &text[dot + 1..end];
        // Part of a dotted name or a path (`bundle.<hash>.<name>`): no key.
        let joined = |b: Option<&u8>| b.is_some_and(|b| b"./\\_-".contains(b));
        if !text[start..dot].iter().all(hex)
            || joined(start.checked_sub(1).and_then(|p| text.get(p)))
            || joined(text.get(end))
            || !secret.iter().any(u8::is_ascii_uppercase)
            || !secret.iter().any(u8::is_ascii_lowercase)
        {
            continue;
        }
        found.push(start..end);
    }
    found
}

/// Words that name a secret before or after a [`base64_secrets`] blob (lowercase; matched in
/// any case, inside longer words too: `BW_SESSION`, `apiKey`).
const BLOB_WORDS: &[&[u8]] = &[
    b"token",
    b"secret",
    b"session",
    b"passw",
    b"credential",
    b"key",
];

/// How far back a word names a blob (a comment on the line above a command counts).
const BLOB_WORD_REACH: usize = 200;
/// How far on a word names a blob: the rest of its command (`… && echo "key still there"`).
const BLOB_WORD_AFTER: usize = 60;

/// `base64-secret`: a blob of 40 to 400 bytes of base64 (`=`-padded, or holding `+` or `/`)
/// that looks drawn at random, at most [`BLOB_WORD_REACH`] bytes after a word naming a secret
/// (`# replace the session token` above `git filter-repo … '…=='`: a Bitwarden session
/// key) or [`BLOB_WORD_AFTER`] bytes before one (`grep -r '…==' . && echo "session key …"`). The
/// shape alone is no secret (an integrity hash, an image, a public key are blobs too), and
/// `key-shaped-token` leaves blobs alone.
pub(super) fn base64_secrets(text: &[u8]) -> Vec<Range<usize>> {
    let b64 = |b: u8| b.is_ascii_alphanumeric() || b == b'+' || b == b'/';
    let mut found = Vec::new();
    for Range { start, end } in runs(text, b64) {
        let body = &text[start..end];
        let padding = run(text, end, |b| b == b'=').min(2);
        if !(40..=400).contains(&body.len())
            || !(padding > 0 || body.contains(&b'+') || body.contains(&b'/'))
        {
            continue;
        }
        // A path or a URL's path: slashes between words.
        let slashes = body.iter().filter(|&&b| b == b'/').count();
        if body[0] == b'/' || slashes * 16 > body.len() || body.windows(2).any(|w| w == b"//") {
            continue;
        }
        let alnum: Vec<u8> = body
            .iter()
            .copied()
            .filter(u8::is_ascii_alphanumeric)
            .collect();
        if !looks_random(&alnum) {
            continue;
        }
        let before = &text[start.saturating_sub(BLOB_WORD_REACH)..start];
        let after = &text[end + padding..(end + padding + BLOB_WORD_AFTER).min(text.len())];
        let named = BLOB_WORDS.iter().any(|word| {
            // After the blob a word must end there ("session key still there"), so that a package
            // name (`css-tokenizer`, `eslint-visitor-keys`) or `keyboard` does not count.
            let ends = |i: usize| {
                after
                    .get(i + word.len())
                    .is_none_or(|b| !b.is_ascii_alphabetic())
            };
            starts(before, word).next().is_some() || starts(after, word).any(ends)
        });
        if named {
            found.push(start..end + padding);
        }
    }
    // Said again further on, where no word names it (a second command using it): the same.
    let values: Vec<&[u8]> = found.iter().map(|r| &text[r.clone()]).collect();
    for value in values {
        for at in memchr::memmem::find_iter(text, value) {
            if !found.iter().any(|r| r.start == at) {
                found.push(at..at + value.len());
            }
        }
    }
    ordered(found)
}

/// Where `word` starts in `near`, in any case.
fn starts<'a>(near: &'a [u8], word: &'a [u8]) -> impl Iterator<Item = usize> + 'a {
    near.windows(word.len())
        .enumerate()
        .filter(move |(_, w)| w.eq_ignore_ascii_case(word))
        .map(|(i, _)| i)
}

/// Bytes of base62 that look drawn at random: all three classes, switching at least 45% of the
/// time (chance: 62%; a camelCase name: about 30%), entropy at least 4 bits a byte.
fn looks_random(body: &[u8]) -> bool {
    let class = |b: u8| match b {
        b'a'..=b'z' => 0,
        b'A'..=b'Z' => 1,
        _ => 2,
    };
    let mut seen = [0usize; 3];
    for &b in body {
        seen[class(b)] += 1;
    }
    if body.len() < 2 || seen.contains(&0) {
        return false;
    }
    let switches = body
        .windows(2)
        .filter(|w| class(w[0]) != class(w[1]))
        .count();
    switches * 100 >= (body.len() - 1) * 45 && entropy(body) >= 4.0
}

/// Whether 4-byte groups of base64 decode to ASCII digits (a Discord id is a decimal number).
fn decodes_to_digits(b64: &[u8]) -> bool {
    let value = |b: u8| match b {
        b'A'..=b'Z' => Some(b - b'A'),
        b'a'..=b'z' => Some(b - b'a' + 26),
        b'0'..=b'9' => Some(b - b'0' + 52),
        b'-' | b'+' => Some(62),
        b'_' | b'/' => Some(63),
        _ => None,
    };
    b64.chunks_exact(4).all(|c| {
        let Some(v) = c.iter().map(|&b| value(b)).collect::<Option<Vec<u8>>>() else {
            return false;
        };
        let n = (u32::from(v[0]) << 18)
            | (u32::from(v[1]) << 12)
            | (u32::from(v[2]) << 6)
            | u32::from(v[3]);
        [(n >> 16) as u8, (n >> 8) as u8, n as u8]
            .iter()
            .all(u8::is_ascii_digit)
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_random_blob_after_a_word_naming_a_secret_is_one() {
        let blob = "Jj9R8WUeRSHfg2WPVf9T1B3rz0vc2nVsUTqON3Fi69Od0Ikp4Q1hvqNVCb4eioJl9TjCGqlD73DvuK54h8mGLw==";
        let said = format!("# Replace the session token in history\ngit filter-repo --replace-text <(echo '{blob}')");
        let found = base64_secrets(said.as_bytes());
        assert_eq!(found.len(), 1, "{said}");
        assert_eq!(&said[found[0].clone()], blob);
        // Said again further on, with no word before it: the same value.
        let again = format!("{said}\n{}\nor: echo '{blob}'", "x".repeat(300));
        let found = base64_secrets(again.as_bytes());
        assert_eq!(found.len(), 2, "{again}");
        assert!(found.iter().all(|r| &again[r.clone()] == blob));
        // Searched for, the word that names it after it.
        let searched = format!("grep -r '{blob}' . && echo \"session key still there\"");
        let found = base64_secrets(searched.as_bytes());
        assert_eq!(found.len(), 1, "{searched}");
        assert_eq!(&searched[found[0].clone()], blob);
        // The same blob with no word naming a secret before it, and blobs that are no secret.
        for text in [
            format!("the cached image is {blob}"),
            format!(
                "token: none\n{}\nthe cached image is {blob}",
                "x".repeat(200)
            ),
            format!("the cached image is {blob} {} (no token)", "x".repeat(60)),
            format!("\"integrity\": \"sha512-{blob}\", \"css-tokenizer\": \"^3.0\""),
            format!("'data': '{blob}', 'github-keyboard-shortcuts': 'copilot'"),
            "the key is in /home/me/projects/app/src/components/settings/keys/local/file.ts".into(),
            "key \"integrity\": \"sha512-abcdefghijklmnopqrstuvwxyzabcdefghijklmnopqrstuvwxyz==\""
                .into(),
        ] {
            assert!(base64_secrets(text.as_bytes()).is_empty(), "{text}");
        }
    }

    #[test]
    fn random_bodies_pass_and_names_hashes_and_blobs_do_not() {
        assert!(random_base62(b"Xy7Qm2Lk9Pz4Wn8Rt3Vb6Jh1"));
        for body in [
            &b"UserAccountSettingsFromCache2"[..],
            b"9fceb02d0ae598e95dc970b74767f19372d61af8",
            b"abcdefghijklmnopqrstuvwxyz",
            b"ABCDEFGHIJKLMNOPQRSTUVWX12",
        ] {
            assert!(!random_base62(body), "{}", String::from_utf8_lossy(body));
        }
    }
}
