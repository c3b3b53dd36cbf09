//! Compiles the redactor's rule sets (`rules/*.toml`, gitleaks' format) into Rust tables, so a
//! hook never parses TOML: `$OUT_DIR/secret_rules.rs` holds every rule's id, regex, keywords,
//! secret group, entropy and allowlists as static data, and the rules that cannot run here with
//! the reason why.
//!
//! A rule is kept when its regex parses as the runtime builds it (`regex::bytes`, Unicode off),
//! and skipped with the parser's reason if not. Rules that apply only to some file paths
//! (`path = …`) are skipped too: redaction has text, not files. The tests count both.

use std::fmt::Write as _;
use std::path::Path;

use serde::Deserialize;

#[derive(Deserialize)]
struct Config {
    #[serde(default)]
    allowlist: Option<Allowlist>,
    #[serde(default)]
    rules: Vec<RuleToml>,
}

#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct RuleToml {
    id: String,
    #[serde(default)]
    regex: Option<String>,
    #[serde(default)]
    path: Option<String>,
    #[serde(default)]
    secret_group: usize,
    #[serde(default)]
    entropy: f64,
    #[serde(default)]
    keywords: Vec<String>,
    #[serde(default)]
    allowlists: Vec<Allowlist>,
}

#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct Allowlist {
    #[serde(default)]
    condition: Option<String>,
    #[serde(default)]
    paths: Vec<String>,
    #[serde(default)]
    regex_target: Option<String>,
    #[serde(default)]
    regexes: Vec<String>,
    #[serde(default)]
    stopwords: Vec<String>,
}

/// Rules left out by choice: their job is done by reflect's own rules, with fewer false alarms.
const LEFT_OUT: &[(&str, &str)] = &[(
    "generic-api-key",
    "reflect's secret-assignment and secret-after-word rules cover it; its keywords (key, token, \
     api, auth, access) are in most tool output, so it would compile its 1 ms regex on most texts",
)];

/// Keywords too common to pre-check with (two bytes found in most prose), each replaced by a
/// literal the rule's regex needs anyway, or dropped (`None`) with the matches only it allowed:
/// `s.` let Vault's pre-2022 `s.` tokens run on every plural at the end of a sentence.
const NARROWED: &[(&str, &str, Option<&str>)] = &[
    ("jwt", "ey", Some(".ey")),
    ("vault-service-token", "s.", None),
];

fn main() {
    // Read when the script runs, not when it was built: a build script compiled for a tree at
    // another path (a shared target dir) is reused as it is.
    let manifest = std::env::var_os("CARGO_MANIFEST_DIR").expect("cargo sets CARGO_MANIFEST_DIR");
    let dir = Path::new(&manifest).join("rules");
    let mut t = Tables::default();
    let mut skipped = Vec::new();
    let (mut global_regexes, mut global_stopwords) = (Vec::new(), Vec::new());
    for (file, source) in [("reflect.toml", 0u8), ("gitleaks.toml", 1)] {
        let path = dir.join(file);
        println!("cargo::rerun-if-changed={}", path.display());
        let text = std::fs::read_to_string(&path).expect("rules file");
        let config: Config = toml::from_str(&text).unwrap_or_else(|e| panic!("{file}: {e}"));
        if let Some(allow) = &config.allowlist {
            global_regexes.extend(allow.regexes.iter().filter_map(|r| valid(r).ok()));
            global_stopwords.extend(allow.stopwords.iter().map(|s| s.to_ascii_lowercase()));
        }
        for rule in &config.rules {
            if let Some((_, why)) = LEFT_OUT.iter().find(|(id, _)| *id == rule.id) {
                skipped.push((rule.id.clone(), why.to_string()));
                continue;
            }
            if rule.path.is_some() {
                skipped.push((rule.id.clone(), "applies to some file paths only".into()));
                continue;
            }
            let Some(regex) = &rule.regex else {
                skipped.push((rule.id.clone(), "no regex".into()));
                continue;
            };
            let regex = match valid(regex) {
                Ok(r) => r,
                Err(e) => {
                    skipped.push((rule.id.clone(), e));
                    continue;
                }
            };
            let keywords: Vec<String> = rule
                .keywords
                .iter()
                .map(|k| k.to_ascii_lowercase())
                .filter_map(|k| {
                    match NARROWED
                        .iter()
                        .find(|(id, from, _)| *id == rule.id && *from == k)
                    {
                        Some((_, _, to)) => to.map(str::to_string),
                        None => Some(k),
                    }
                })
                .filter(|k| k.len() >= 2)
                .collect();
            if keywords.is_empty() {
                skipped.push((rule.id.clone(), "no keyword to pre-check".into()));
                continue;
            }
            let mut allows = Vec::new();
            for allow in &rule.allowlists {
                // An AND with paths can never hold on a text without a path; paths alone neither.
                if allow.condition.as_deref() == Some("AND") && !allow.paths.is_empty() {
                    continue;
                }
                if allow.regexes.is_empty() && allow.stopwords.is_empty() {
                    continue;
                }
                let target = match allow.regex_target.as_deref() {
                    Some("match") => 1,
                    Some("line") => 2,
                    _ => 0,
                };
                let regexes: Vec<String> =
                    allow.regexes.iter().filter_map(|r| valid(r).ok()).collect();
                let stopwords: Vec<String> = allow
                    .stopwords
                    .iter()
                    .map(|s| s.to_ascii_lowercase())
                    .collect();
                let (regexes, stopwords) = (t.list(&regexes), t.list(&stopwords));
                allows.push(format!(
                    "AllowData {{ target: {target}, regexes: {regexes}, stopwords: {stopwords} }},"
                ));
            }
            let index = t.rules.len();
            for word in &keywords {
                t.keywords.entry(word.clone()).or_default().push(index);
            }
            let allow = format!("List({}, {})", t.allows.len(), allows.len());
            t.allows.extend(allows);
            let need = match (prefixes(&regex), assigns_after(&regex, &keywords)) {
                (Some(literals), _) => format!("Need::Prefix({})", t.list(&literals)),
                (None, true) => "Need::Assignment".to_string(),
                (None, false) => "Need::Keyword".to_string(),
            };
            let (id, regex, keywords) = (t.str(&rule.id), t.str(&regex), t.list(&keywords));
            t.rules.push(format!(
                "RuleData {{ id: {id}, source: {source}, regex: {regex}, secret_group: {}, \
                 entropy: {:?}, keywords: {keywords}, allow: {allow}, need: {need} }},",
                rule.secret_group, rule.entropy
            ));
        }
    }
    let mut out = String::from("// Generated by build.rs from rules/*.toml: do not edit.\n");
    let global = (t.list(&global_regexes), t.list(&global_stopwords));
    // The keyword search's tables: the bitmap of the keywords' first-pair hashes, and the
    // keywords sorted by that hash, each with its rules.
    let mut bits = [0u64; 64];
    let mut keywords: Vec<(u16, String, Vec<usize>)> = std::mem::take(&mut t.keywords)
        .into_iter()
        .map(|(word, rules)| {
            let b = word.as_bytes();
            (pair_hash(b[0], b[1]), word, rules)
        })
        .collect();
    keywords.sort();
    let mut rule_list = Vec::new();
    let mut table = String::new();
    for (hash, word, rules) in &keywords {
        bits[usize::from(hash >> 6)] |= 1 << (hash & 63);
        let word = t.str(word);
        let _ = write!(
            table,
            "Keyword {{ hash: {hash}, word: {word}, rules: List({}, {}) }},",
            rule_list.len(),
            rules.len()
        );
        rule_list.extend(rules.iter().copied());
    }
    let _ = writeln!(out, "static TEXT: &str = {:?};", t.text);
    let _ = writeln!(
        out,
        "pub(super) static RULES: [RuleData; {}] = [\n{}];",
        t.rules.len(),
        t.rules.join("\n")
    );
    let _ = writeln!(
        out,
        "static ALLOWS: [AllowData; {}] = [{}];",
        t.allows.len(),
        t.allows.join("")
    );
    let _ = writeln!(
        out,
        "static STRS: [Str; {}] = [{}];",
        t.strs.len(),
        t.strs.join(",")
    );
    let _ = writeln!(out, "static GLOBAL_REGEXES: List = {};", global.0);
    let _ = writeln!(out, "static GLOBAL_STOPWORDS: List = {};", global.1);
    let _ = writeln!(out, "static KEYWORD_BITS: [u64; 64] = {bits:?};");
    let _ = writeln!(
        out,
        "static KEYWORDS: [Keyword; {}] = [{table}];",
        keywords.len()
    );
    let _ = writeln!(
        out,
        "static KEYWORD_RULES: [u16; {}] = {rule_list:?};",
        rule_list.len()
    );
    let _ = writeln!(
        out,
        "#[cfg(test)]\npub(super) static SKIPPED: &[(&str, &str)] = &{skipped:?};"
    );
    let out_dir = std::env::var("OUT_DIR").expect("OUT_DIR");
    std::fs::write(Path::new(&out_dir).join("secret_rules.rs"), out).expect("write rules");
}

/// The tables being built. Every string goes into one text and is named by its place in it
/// (`Str(start, len)`), and every list by its place in a flat array (`List(start, len)`): static
/// data made of numbers needs no relocation when a hook starts, where a table of `&str` took
/// ~3,000 (about 20 µs and a dozen page faults in every process).
#[derive(Default)]
struct Tables {
    text: String,
    strs: Vec<String>,
    rules: Vec<String>,
    allows: Vec<String>,
    keywords: std::collections::BTreeMap<String, Vec<usize>>,
}

impl Tables {
    fn str(&mut self, s: &str) -> String {
        let start = match self.text.find(s) {
            Some(at) if !s.is_empty() => at,
            _ => {
                self.text.push_str(s);
                self.text.len() - s.len()
            }
        };
        format!("Str({start}, {})", s.len())
    }

    fn list(&mut self, items: &[String]) -> String {
        let start = self.strs.len();
        for item in items {
            let s = self.str(item);
            self.strs.push(s);
        }
        format!("List({start}, {})", items.len())
    }
}

/// The literals, case kept, one of which starts every match of `regex`, when there are a few
/// and each says more than a keyword (`SK` for Twilio's `SK[0-9a-f]{32}`, where the keyword `sk`
/// is in every "task"): a rule whose keyword occurs runs only if one of them occurs too.
fn prefixes(regex: &str) -> Option<Vec<String>> {
    use regex_syntax::hir::literal::{ExtractKind, Extractor};
    let hir = regex_syntax::ParserBuilder::new()
        .unicode(false)
        .utf8(false)
        .build()
        .parse(regex)
        .ok()?;
    let seq = Extractor::new().kind(ExtractKind::Prefix).extract(&hir);
    let literals = seq.literals()?;
    let strings: Vec<String> = literals
        .iter()
        .map(|l| String::from_utf8(l.as_bytes().to_vec()))
        .collect::<Result<_, _>>()
        .ok()?;
    let mut lower: Vec<String> = strings.iter().map(|s| s.to_ascii_lowercase()).collect();
    lower.sort();
    lower.dedup();
    // Case variants of one word (`(?i)` expanded) say no more than the keyword search did.
    let useful = !strings.is_empty()
        && strings.len() <= 8
        && strings.iter().all(|s| s.len() >= 2)
        && lower.len() == strings.len();
    useful.then_some(strings)
}

/// Whether `regex` is gitleaks' service-rule shape: `(?i)`, a group whose every match is one of
/// the rule's keywords (`(?:discord)`, `(?:(?-i:ETSY|[Ee]tsy))`), then up to 20 name bytes, up to
/// 3 blanks or quotes and an assignment operator. Then a keyword not followed by such an
/// assignment cannot start a match.
fn assigns_after(regex: &str, keywords: &[String]) -> bool {
    use regex_syntax::hir::literal::{ExtractKind, Extractor};
    const AFTER: &str = r#"(?:[ \t\w.-]{0,20})[\s'"]{0,3}(?:=|>|:{1,3}=|\|\||:|=>|\?=|,)"#;
    let Some(rest) = regex.strip_prefix("(?i)") else {
        return false;
    };
    let Some(at) = rest.find(AFTER) else {
        return false;
    };
    let Ok(group) = regex_syntax::ParserBuilder::new()
        .unicode(false)
        .utf8(false)
        .build()
        .parse(&format!("(?i){}", &rest[..at]))
    else {
        return false;
    };
    let seq = Extractor::new().kind(ExtractKind::Prefix).extract(&group);
    seq.literals().is_some_and(|literals| {
        !literals.is_empty()
            && literals.iter().all(|l| {
                l.is_exact()
                    && keywords
                        .iter()
                        .any(|k| k.as_bytes() == l.as_bytes().to_ascii_lowercase().as_slice())
            })
    })
}

/// Where a needle's first two bytes (lowercase) fall in a 4,096-bit map; the `needles` module
/// computes the same.
fn pair_hash(a: u8, b: u8) -> u16 {
    let (a, b) = (
        u32::from(a.to_ascii_lowercase()),
        u32::from(b.to_ascii_lowercase()),
    );
    ((a * 131 + b) & 4095) as u16
}

/// The pattern as the runtime compiles it, or why it cannot run there. Go RE2 and Rust's `regex`
/// share their syntax but for a few spellings (`\\C`, `\\pN` with Unicode off…): every pattern
/// of gitleaks b58d3f1 parses as written, so none is translated; one that stops parsing in a
/// later release is skipped with the parser's reason, and the rule-count test says so.
fn valid(pattern: &str) -> Result<String, String> {
    // reflect reads an `_` before a token as a separator (`ERR_ghp_…`, `x_AKIA…`): a rule whose
    // secret starts at a word boundary starts after an `_` too.
    let pattern = match pattern.strip_prefix("\\b(") {
        Some(rest) => format!("(?:\\b|_)({rest}"),
        None => pattern.to_string(),
    };
    // gitleaks' service rules open with `[\w.-]{0,50}?`, the name the keyword ends (`MY_DISCORD`
    // in `MY_DISCORD_TOKEN=`): it matches nothing that the rest needs, the secret group does not
    // move without it, and its fifty copies of a class made each such regex cost ~0.2 ms to
    // compile. It only ever stands first.
    let pattern = pattern.replace("[\\w.-]{0,50}?", "");
    regex_syntax::ParserBuilder::new()
        .unicode(false)
        .utf8(false)
        .build()
        .parse(&pattern)
        .map(|_| pattern)
        .map_err(|e| {
            let reason = e.to_string();
            format!("does not compile: {}", reason.lines().last().unwrap_or(""))
        })
}
