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

use super::needles::pair_hash;
use super::value::{is_placeholder, PLACEHOLDER_PREFIX};

/// A string of the tables: its start and length in the one text they all live in.
#[derive(Clone, Copy)]
pub(super) struct Str(u32, u32);

/// A list of the tables: its start and length in the flat array it lives in.
#[derive(Clone, Copy)]
pub(super) struct List(u32, u32);

/// One rule of a rule set.
pub(super) struct RuleData {
    /// The kind its secrets are shown as.
    id: Str,
    /// 0: reflect's rules, 1: gitleaks' (counted by the tests).
    #[cfg_attr(not(test), allow(dead_code))]
    source: u8,
    regex: Str,
    secret_group: usize,
    /// A secret's Shannon entropy (bits a byte) must exceed this; 0: no bound.
    entropy: f64,
    /// Lowercase; the rule runs only on a text holding one of them (searched through
    /// [`KEYWORDS`], which lists each once).
    #[cfg_attr(not(test), allow(dead_code))]
    keywords: List,
    /// Into [`ALLOWS`].
    allow: List,
    /// What, beside a keyword, a text must hold for the rule to run.
    need: Need,
}

/// A rule's second pre-check, after its keyword: what build.rs found every match needs.
pub(super) enum Need {
    /// The keyword is all.
    Keyword,
    /// One of these literals (case kept, in [`STRS`]), which start every match.
    Prefix(List),
    /// A keyword followed by an assignment: up to 20 name bytes (`[ \t\w.-]`), up to 3
    /// blanks or quotes, and `=`, `>`, `:`, `|` or `,` (gitleaks' service rules, `discord… =`).
    Assignment,
}

/// One allowlist: a find whose target (0: the secret, 1: the whole match, 2: its line) matches
/// one of `regexes`, or whose secret holds one of `stopwords`, is no secret.
struct AllowData {
    target: u8,
    regexes: List,
    stopwords: List,
}

/// A keyword of the search: the hash of its first two bytes, itself, its rules (into
/// [`KEYWORD_RULES`]).
struct Keyword {
    hash: u16,
    word: Str,
    rules: List,
}

include!(concat!(env!("OUT_DIR"), "/secret_rules.rs"));

fn str_of(s: Str) -> &'static str {
    &TEXT[s.0 as usize..(s.0 + s.1) as usize]
}

/// The strings of a list of [`STRS`].
fn strs(list: List) -> impl Iterator<Item = &'static str> {
    STRS[list.0 as usize..(list.0 + list.1) as usize]
        .iter()
        .map(|&s| str_of(s))
}

impl RuleData {
    pub fn id(&self) -> &'static str {
        str_of(self.id)
    }

    fn allows(&self) -> &'static [AllowData] {
        &ALLOWS[self.allow.0 as usize..(self.allow.0 + self.allow.1) as usize]
    }
}

/// A rule's regex and its allowlists' regexes, each compiled on first need.
struct Compiled {
    regex: OnceLock<Option<Regex>>,
    allow: OnceLock<Vec<Vec<Regex>>>,
}

static COMPILED: LazyLock<Vec<Compiled>> = LazyLock::new(|| {
    RULES
        .iter()
        .map(|_| Compiled {
            regex: OnceLock::new(),
            allow: OnceLock::new(),
        })
        .collect()
});

static GLOBAL_ALLOW: LazyLock<Vec<Regex>> =
    LazyLock::new(|| strs(GLOBAL_REGEXES).filter_map(compile).collect());

fn compile(pattern: &str) -> Option<Regex> {
    RegexBuilder::new(pattern).unicode(false).build().ok()
}

/// The rules whose keywords `text` holds, in table order: where the bitmap says a keyword may
/// start, the keywords of that hash are compared (see the `needles` module, which searches the
/// same way with tables built at run time).
pub(super) fn due(text_bytes: &[u8]) -> Vec<usize> {
    let mut due = Vec::new();
    for (at, w) in text_bytes.windows(2).enumerate() {
        let hash = pair_hash(w[0], w[1]);
        if KEYWORD_BITS[usize::from(hash >> 6)] & (1 << (hash & 63)) == 0 {
            continue;
        }
        let from = KEYWORDS.partition_point(|k| k.hash < hash);
        for k in KEYWORDS[from..].iter().take_while(|k| k.hash == hash) {
            let word = str_of(k.word).as_bytes();
            let end = at + word.len();
            if !text_bytes
                .get(at..end)
                .is_some_and(|t| t.eq_ignore_ascii_case(word))
            {
                continue;
            }
            let rules = &KEYWORD_RULES[k.rules.0 as usize..(k.rules.0 + k.rules.1) as usize];
            for rule in rules.iter().map(|&r| usize::from(r)) {
                let needed = match RULES[rule].need {
                    Need::Assignment => assignment_at(text_bytes, end),
                    Need::Keyword | Need::Prefix(_) => true,
                };
                if needed {
                    due.push(rule);
                }
            }
        }
    }
    due.sort_unstable();
    due.dedup();
    due.retain(|&rule| match RULES[rule].need {
        Need::Prefix(literals) => {
            strs(literals).any(|l| memchr::memmem::find(text_bytes, l.as_bytes()).is_some())
        }
        Need::Keyword | Need::Assignment => true,
    });
    due
}

/// Whether an assignment follows `at`: up to 20 bytes of `[ \t\w.-]`, up to 3 of `[\s'"]`, then
/// one of `=`, `>`, `:`, `|`, `,` (the start of every operator gitleaks' service rules take).
fn assignment_at(text: &[u8], at: usize) -> bool {
    let name = |b: u8| b.is_ascii_alphanumeric() || b"_ \t.-".contains(&b);
    let blank = |b: u8| b.is_ascii_whitespace() || b"'\"".contains(&b);
    // Any split of the name run and the blanks (a blank is both): try every end of the name.
    (0..=20).any(|n| {
        let Some(name_part) = text.get(at..at + n) else {
            return false;
        };
        if !name_part.iter().all(|&b| name(b)) {
            return false;
        }
        (0..=3).any(|q| {
            let from = at + n;
            text.get(from..from + q)
                .is_some_and(|part| part.iter().all(|&b| blank(b)))
                && text.get(from + q).is_some_and(|b| b"=>:|,".contains(b))
        })
    })
}

/// The secrets the rules `due` find in `text`, with their kinds, as found (maybe overlapping).
pub(super) fn find(text: &[u8], due: &[usize]) -> Vec<(Range<usize>, &'static str)> {
    let mut found = Vec::new();
    for &i in due {
        let rule = &RULES[i];
        let compiled = &COMPILED[i];
        let Some(regex) = compiled.regex.get_or_init(|| compile(str_of(rule.regex))) else {
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
            found.push((whole_chars(text, secret.range()), rule.id()));
        }
    }
    found
}

/// Whether the find of `rule` is a secret: above its entropy bound, no placeholder, and claimed
/// by no allowlist.
fn keeps(
    rule: &RuleData,
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
    if is_placeholder(value_text) || value_text.contains(PLACEHOLDER_PREFIX) {
        return false;
    }
    let lower = value.to_ascii_lowercase();
    let holds =
        |words: List| strs(words).any(|w| memchr::memmem::find(&lower, w.as_bytes()).is_some());
    if holds(GLOBAL_STOPWORDS) || GLOBAL_ALLOW.iter().any(|r| r.is_match(value)) {
        return false;
    }
    let allows = rule.allows();
    let allow = compiled.allow.get_or_init(|| {
        allows
            .iter()
            .map(|a| strs(a.regexes).filter_map(compile).collect())
            .collect()
    });
    let line = || {
        let start = memchr::memrchr(b'\n', &text[..whole.start]).map_or(0, |i| i + 1);
        let end = memchr::memchr(b'\n', &text[whole.end..]).map_or(text.len(), |i| whole.end + i);
        &text[start..end]
    };
    !allows.iter().zip(allow).any(|(a, regexes)| {
        let target = match a.target {
            0 => value,
            1 => &text[whole.clone()],
            _ => line(),
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
        let failed: Vec<&str> = RULES
            .iter()
            .filter(|r| compile(str_of(r.regex)).is_none())
            .map(RuleData::id)
            .collect();
        assert!(failed.is_empty(), "{failed:?}");
        let gitleaks = RULES.iter().filter(|r| r.source == 1).count();
        // gitleaks b58d3f1 has 222 rules; what build.rs left out is listed with its reason.
        assert_eq!(gitleaks + SKIPPED.len(), 222, "{SKIPPED:?}");
        assert!(SKIPPED.len() <= 8, "{SKIPPED:?}");
        for rule in &RULES {
            assert!(strs(rule.keywords).count() > 0, "{}", rule.id());
        }
    }

    #[test]
    fn the_keyword_tables_agree_with_the_rules() {
        // Every keyword of every rule, in any case, makes that rule due through the tables
        // build.rs wrote, once the rule's second pre-check holds.
        for (i, rule) in RULES.iter().enumerate() {
            for word in strs(rule.keywords) {
                let text = match rule.need {
                    Need::Keyword => format!("x {} y", word.to_ascii_uppercase()),
                    Need::Assignment => format!("x {}_ID = y", word.to_ascii_uppercase()),
                    Need::Prefix(literals) => {
                        format!("x {word} {}", strs(literals).next().unwrap())
                    }
                };
                assert!(due(text.as_bytes()).contains(&i), "{} {text:?}", rule.id());
            }
        }
    }

    #[test]
    fn second_pre_checks_keep_rules_from_prose() {
        let due_ids = |text: &str| -> Vec<&str> {
            due(text.as_bytes())
                .into_iter()
                .map(|i| RULES[i].id())
                .collect()
        };
        // `sk` is in "task", but Twilio's keys start `SK`; `discord` in prose assigns nothing.
        let prose = due_ids("ask the task runner about the discord server");
        assert!(
            !prose
                .iter()
                .any(|id| *id == "twilio-api-key" || id.starts_with("discord-")),
            "{prose:?}"
        );
        assert!(due_ids("key SK0123456789abcdef0123456789abcdef").contains(&"twilio-api-key"));
        assert!(due_ids("DISCORD_BOT_TOKEN = 'x'").contains(&"discord-client-secret"));
        let counts = |n: fn(&Need) -> bool| RULES.iter().filter(|r| n(&r.need)).count();
        // How many rules each second check guards (it changes only with the rule sets).
        let assignment = counts(|n| matches!(n, Need::Assignment));
        let prefix = counts(|n| matches!(n, Need::Prefix(_)));
        assert!(assignment >= 50 && prefix >= 90, "{assignment} {prefix}");
    }

    #[test]
    fn a_command_that_only_runs_sudo_has_no_sudo_rule_due() {
        // Its regexes cost a hook about a millisecond to compile: only a pipe into sudo or a
        // here-string makes them due, not every failure that runs sudo.
        let sudo_due = |text: &str| {
            due(text.as_bytes())
                .into_iter()
                .filter(|&i| RULES[i].id() == "sudo-password")
                .count()
        };
        assert_eq!(
            sudo_due("Exit code 1\nsudo pacman -S mesa: target not found; echo done"),
            0
        );
        assert_eq!(sudo_due("echo 'x' | sudo -S pacman -Syu"), 1);
        assert_eq!(sudo_due("sudo -S true <<< 'x'"), 1);
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
