//! The rule sets kept as data: gitleaks' maintained rules (`rules/gitleaks.toml`, MIT, vendored
//! with its licence and source commit) and reflect's own rules in the same format
//! (`rules/reflect.toml`), turned into static tables by `build.rs`.
//!
//! Rules: a rule runs only on a text holding one of its keywords (any case), found by one
//! literal search over every rule's keywords (the `needles` module); only then is its regex compiled (once a
//! process, kept). A text with no keyword, the common case in a hook, compiles nothing. A find
//! is kept when its secret (the rule's `secretGroup`, or the first non-empty group, or the whole
//! match) clears the rule's entropy bound and no allowlist (gitleaks' global one, the rule's own)
//! or placeholder claims it. Regexes run on bytes with Unicode off: `\w`, `\s`, `\b` and `(?i)`
//! are ASCII, which is what secrets are made of.

use std::ops::Range;
use std::sync::{LazyLock, OnceLock};

use regex::bytes::{Regex, RegexBuilder};

use super::needles::Needles;

/// One rule of a rule set.
pub(super) struct DataRule {
    /// The kind its secrets are shown as.
    pub id: &'static str,
    /// `gitleaks` or `reflect` (read by the tests that count the rules).
    #[cfg_attr(not(test), allow(dead_code))]
    pub source: &'static str,
    pub regex: &'static str,
    pub secret_group: usize,
    /// A secret's Shannon entropy (bits a byte) must exceed this; 0: no bound.
    pub entropy: f64,
    /// Lowercase; the rule runs only on a text holding one of them (searched through
    /// [`KEYWORD_RULES`], which lists them once each).
    #[cfg_attr(not(test), allow(dead_code))]
    pub keywords: &'static [&'static str],
    pub allow: &'static [Allow],
}

/// One allowlist: a find whose target matches one of `regexes`, or whose secret holds one of
/// `stopwords`, is no secret.
pub(super) struct Allow {
    pub target: Target,
    pub regexes: &'static [&'static str],
    pub stopwords: &'static [&'static str],
}

/// What an allowlist's regexes read. Today's gitleaks rules that run here use `Secret` only
/// (the others belong to the rules left out), but the format has all three.
#[derive(Clone, Copy)]
#[allow(dead_code)]
pub(super) enum Target {
    Secret,
    Match,
    Line,
}

include!(concat!(env!("OUT_DIR"), "/secret_rules.rs"));

/// The keyword search over [`KEYWORD_RULES`] (every distinct keyword, with its rules).
static KEYWORDS: LazyLock<Needles<'static>> =
    LazyLock::new(|| Needles::new(KEYWORD_RULES.iter().map(|(word, _)| *word)));

/// A rule's regex and its allowlists' regexes, each compiled on first need.
struct Compiled {
    regex: OnceLock<Option<Regex>>,
    allow: OnceLock<Vec<Vec<Regex>>>,
}

static COMPILED: LazyLock<Vec<Compiled>> = LazyLock::new(|| {
    DATA_RULES
        .iter()
        .map(|_| Compiled {
            regex: OnceLock::new(),
            allow: OnceLock::new(),
        })
        .collect()
});

static GLOBAL_ALLOW: LazyLock<Vec<Regex>> = LazyLock::new(|| {
    GLOBAL_ALLOW_REGEXES
        .iter()
        .filter_map(|p| compile(p))
        .collect()
});

fn compile(pattern: &str) -> Option<Regex> {
    RegexBuilder::new(pattern).unicode(false).build().ok()
}

/// The rules whose keywords `text` holds, in table order.
pub(super) fn due(text: &[u8]) -> Vec<usize> {
    let mut due: Vec<usize> = KEYWORDS
        .find_all(text)
        .into_iter()
        .flat_map(|(_, _, word)| KEYWORD_RULES[word].1.iter().copied())
        .collect();
    due.sort_unstable();
    due.dedup();
    due
}

/// The secrets the rules `due` find in `text`, with their kinds, as found (maybe overlapping).
pub(super) fn find(text: &[u8], due: &[usize]) -> Vec<(Range<usize>, &'static str)> {
    let mut found = Vec::new();
    for &i in due {
        let rule = &DATA_RULES[i];
        let compiled = &COMPILED[i];
        let Some(regex) = compiled.regex.get_or_init(|| compile(rule.regex)) else {
            continue;
        };
        for caps in regex.captures_iter(text) {
            let whole = caps.get(0).expect("group 0 always matches");
            let group = if rule.secret_group > 0 {
                caps.get(rule.secret_group)
            } else {
                caps.iter().skip(1).flatten().find(|g| !g.is_empty())
            };
            let secret = group.unwrap_or(whole);
            if secret.is_empty() || !keeps(rule, compiled, text, whole.range(), secret.range()) {
                continue;
            }
            found.push((whole_chars(text, secret.range()), rule.id));
        }
    }
    found
}

/// Whether the find of `rule` is a secret: above its entropy bound, no placeholder, and claimed
/// by no allowlist.
fn keeps(
    rule: &DataRule,
    compiled: &Compiled,
    text: &[u8],
    whole: Range<usize>,
    secret: Range<usize>,
) -> bool {
    let value = &text[secret.clone()];
    if rule.entropy > 0.0 && entropy(value) <= rule.entropy {
        return false;
    }
    let value_text = std::str::from_utf8(value).unwrap_or("");
    if super::is_placeholder(value_text) || value_text.contains(super::PLACEHOLDER_PREFIX) {
        return false;
    }
    let lower = value.to_ascii_lowercase();
    let holds = |words: &[&str]| {
        words
            .iter()
            .any(|w| memchr::memmem::find(&lower, w.as_bytes()).is_some())
    };
    if holds(GLOBAL_STOPWORDS) || GLOBAL_ALLOW.iter().any(|r| r.is_match(value)) {
        return false;
    }
    let allow = compiled.allow.get_or_init(|| {
        rule.allow
            .iter()
            .map(|a| a.regexes.iter().filter_map(|p| compile(p)).collect())
            .collect()
    });
    let line = || {
        let start = memchr::memrchr(b'\n', &text[..whole.start]).map_or(0, |i| i + 1);
        let end = memchr::memchr(b'\n', &text[whole.end..]).map_or(text.len(), |i| whole.end + i);
        &text[start..end]
    };
    !rule.allow.iter().zip(allow).any(|(a, regexes)| {
        let target = match a.target {
            Target::Secret => value,
            Target::Match => &text[whole.clone()],
            Target::Line => line(),
        };
        holds(a.stopwords) || regexes.iter().any(|r| r.is_match(target))
    })
}

/// `span` widened to whole UTF-8 characters (a byte regex may stop inside one).
fn whole_chars(text: &[u8], span: Range<usize>) -> Range<usize> {
    let continuation = |b: u8| b & 0xC0 == 0x80;
    let mut start = span.start;
    while start > 0 && continuation(text[start]) {
        start -= 1;
    }
    let mut end = span.end;
    while end < text.len() && continuation(text[end]) {
        end += 1;
    }
    start..end
}

/// Shannon entropy of `bytes`, in bits a byte (gitleaks' measure).
pub(super) fn entropy(bytes: &[u8]) -> f64 {
    if bytes.is_empty() {
        return 0.0;
    }
    let mut counts = [0u32; 256];
    for &b in bytes {
        counts[usize::from(b)] += 1;
    }
    let len = bytes.len() as f64;
    counts
        .iter()
        .filter(|&&c| c > 0)
        .map(|&c| {
            let p = f64::from(c) / len;
            -p * p.log2()
        })
        .sum()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_rule_compiles_and_the_skipped_are_counted() {
        let failed: Vec<&str> = DATA_RULES
            .iter()
            .filter(|r| compile(r.regex).is_none())
            .map(|r| r.id)
            .collect();
        assert!(failed.is_empty(), "{failed:?}");
        let gitleaks = DATA_RULES.iter().filter(|r| r.source == "gitleaks").count();
        // gitleaks b58d3f1 has 222 rules; what build.rs left out is listed with its reason.
        assert_eq!(gitleaks + SKIPPED.len(), 222, "{SKIPPED:?}");
        assert!(SKIPPED.len() <= 8, "{SKIPPED:?}");
        for rule in DATA_RULES {
            assert!(!rule.keywords.is_empty(), "{}", rule.id);
        }
    }

    #[test]
    fn a_text_without_keywords_has_no_rule_due() {
        let text =
            b"Exit code 1\nnpm ERR! missing script: test\n5 passed, 1 failed at src/app.ts:12:5";
        assert_eq!(due(text), Vec::<usize>::new());
    }

    #[test]
    fn entropy_of_known_strings() {
        assert_eq!(entropy(b"aaaa"), 0.0);
        assert!((entropy(b"ab") - 1.0).abs() < 1e-9);
        assert!((entropy(b"0123456789abcdef") - 4.0).abs() < 1e-9);
    }
}
#[cfg(test)]
mod timing {
    #[test]
    #[ignore]
    fn print_setup_costs() {
        let t = std::time::Instant::now();
        let _ = super::due(b"x");
        eprintln!("keyword automaton: {:?}", t.elapsed());
        let t = std::time::Instant::now();
        let _ = crate::redact::redact(
            "Exit code 1\n\nnpm ERR! missing script: test\nnpm ERR! A complete log is in /tmp/x",
        );
        eprintln!("first redact: {:?}", t.elapsed());
        let t = std::time::Instant::now();
        for _ in 0..100 {
            let _ = crate::redact::redact("Exit code 1\n\nnpm ERR! missing script: test\nnpm ERR! A complete log is in /tmp/x");
        }
        eprintln!("redact x100: {:?}", t.elapsed());
        for text in [
            "npm test",
            "Run the tests",
            "toolu_bench_00000001",
            "the api key is wrong",
            "curl -H 'Authorization: Bearer abc'",
        ] {
            let due: Vec<&str> = super::due(text.as_bytes())
                .iter()
                .map(|&i| super::DATA_RULES[i].id)
                .collect();
            eprintln!("{text:?}: {due:?}");
        }
        let mut times: Vec<(std::time::Duration, &str, String)> = super::DATA_RULES
            .iter()
            .map(|r| {
                let t = std::time::Instant::now();
                let _ = super::compile(r.regex);
                (t.elapsed(), r.id, r.keywords.join(","))
            })
            .collect();
        times.sort();
        let total: std::time::Duration = times.iter().map(|t| t.0).sum();
        eprintln!("compile all: {total:?}");
        for t in times.iter().rev().take(12) {
            eprintln!("{:?} {} [{}]", t.0, t.1, t.2);
        }
        for t in times
            .iter()
            .filter(|t| t.2.split(',').any(|k| k.len() <= 3))
        {
            eprintln!("short kw: {:?} {} [{}]", t.0, t.1, t.2);
        }
    }
}
