//! What a user message means for future work: a correction of what the assistant just did, a
//! durable convention or preference, an explicit request to remember — or nothing.
//!
//! Bare keyword lists ("instead", "actually", "always") fire on ordinary requests, so every cue
//! here is weighed with the conversation's structure: a correction needs an assistant action to
//! correct (and counts for more right after the user refused a tool call); only the user's own
//! prose is read, not logs or code they paste below it; a cue inside a question that merely asks
//! ("should we always…?") counts for less than one in an imperative or a statement. Cues are
//! phrases over normalized words (lowercase, apostrophes dropped: "don't" = "dont"), so they
//! match on word boundaries, plus raw substrings for languages written without spaces.

use crate::signal::Kind;

/// What the assistant did between the previous user message and this one.
#[derive(Debug, Default, Clone)]
pub struct Situation {
    /// Tool calls and text blocks the assistant produced.
    pub actions: usize,
    /// The user refused one of those tool calls.
    pub rejected: bool,
}

/// The classification of one user message.
#[derive(Debug, Clone, PartialEq)]
pub struct Verdict {
    pub kind: Kind,
    pub confidence: u8,
}

/// Cue strengths: a message is a learning moment from [`THRESHOLD`] on.
const STRONG: i32 = 2;
const WEAK: i32 = 1;
const THRESHOLD: i32 = 2;

/// Phrases of a user who rejects or redirects what was just done.
const CORRECTION: &[(&str, i32)] = &[
    (" instead of ", STRONG),
    (" instead ", STRONG),
    (" rather than ", STRONG),
    (" not what i ", STRONG),
    (" thats not ", STRONG),
    (" that is not ", STRONG),
    (" wrong ", STRONG),
    (" incorrect ", STRONG),
    (" incorrectly ", WEAK),
    (" you missed ", STRONG),
    (" you forgot ", STRONG),
    (" you ignored ", STRONG),
    (" you didnt ", STRONG),
    (" you did not ", STRONG),
    (" i said ", STRONG),
    (" i told you ", STRONG),
    (" i asked ", STRONG),
    (" i meant ", STRONG),
    (" i was talking ", STRONG),
    (" im talking ", STRONG),
    (" i am talking ", STRONG),
    (" why did you ", STRONG),
    (" dont change ", STRONG),
    (" do not change ", STRONG),
    (" dont modify ", STRONG),
    (" do not modify ", STRONG),
    (" dont touch ", STRONG),
    (" do not touch ", STRONG),
    (" dont commit ", STRONG),
    (" do not commit ", STRONG),
    (" dont add ", STRONG),
    (" do not add ", STRONG),
    (" dont include ", STRONG),
    (" do not include ", STRONG),
    (" dont use ", STRONG),
    (" do not use ", STRONG),
    (" dont do ", STRONG),
    (" do not do ", STRONG),
    (" dont create ", STRONG),
    (" do not create ", STRONG),
    (" dont delete ", STRONG),
    (" do not delete ", STRONG),
    (" dont remove ", STRONG),
    (" do not remove ", STRONG),
    (" until i say ", STRONG),
    (" until i said ", STRONG),
    (" until i tell ", STRONG),
    (" undo ", STRONG),
    (" revert ", STRONG),
    (" roll back ", WEAK),
    (" are you sure ", STRONG),
    (" i dont like ", STRONG),
    (" i do not like ", STRONG),
    (" i dont want ", STRONG),
    (" i do not want ", STRONG),
    (" not needed ", STRONG),
    (" unnecessary ", STRONG),
    (" dont need ", STRONG),
    (" do not need ", STRONG),
    (" no need ", STRONG),
    (" already have ", WEAK),
    (" i still want ", STRONG),
    (" still want ", WEAK),
    (" think more ", STRONG),
    (" think some more ", STRONG),
    (" think harder ", STRONG),
    (" think hard ", STRONG),
    (" try hard ", WEAK),
    (" rethink ", STRONG),
    (" overengineering ", STRONG),
    (" over engineering ", STRONG),
    (" overkill ", STRONG),
    (" too complicated ", STRONG),
    (" too complex ", STRONG),
    (" simplify ", WEAK),
    (" doesnt this ", STRONG),
    (" wont this ", STRONG),
    (" wouldnt this ", STRONG),
    (" isnt it better ", STRONG),
    (" is not better ", STRONG),
    (" shouldnt ", WEAK),
    (" should not ", WEAK),
    (" should be ", WEAK),
    (" not like that ", STRONG),
    (" not that ", WEAK),
    (" fix it ", WEAK),
    (" some issues ", WEAK),
    // German
    (" stattdessen ", STRONG),
    (" statt ", STRONG),
    (" falsch ", STRONG),
    (" kein gutes ", STRONG),
    (" keine gute ", STRONG),
    (" nicht so ", WEAK),
    (" ich meinte ", STRONG),
    (" ich meine ", WEAK),
    (" habe ich gesagt ", STRONG),
    (" hab ich gesagt ", STRONG),
    (" warum hast du ", STRONG),
    (" nicht ändern ", STRONG),
    (" bitte nicht ", STRONG),
    (" ich will nicht ", STRONG),
    (" ich möchte nicht ", STRONG),
    (" nicht nötig ", STRONG),
    // French, Spanish
    (" au lieu de ", STRONG),
    (" en lugar de ", STRONG),
    (" en vez de ", STRONG),
];

/// Substrings for languages written without spaces between words.
const CORRECTION_CJK: &[(&str, i32)] = &[
    ("ではなく", STRONG),
    ("じゃなくて", STRONG),
    ("じゃない", WEAK),
    ("代わりに", STRONG),
    ("違います", STRONG),
    ("違う", STRONG),
    ("ちがう", STRONG),
    ("間違", STRONG),
    ("やめて", STRONG),
    ("しないで", STRONG),
    ("ないでください", STRONG),
    ("戻して", STRONG),
    ("元に戻", STRONG),
    ("不要", WEAK),
    ("而不是", STRONG),
    ("不要用", STRONG),
];

/// How a correction often starts: "No, …", "Stop", "But …".
const CORRECTION_OPENERS: &[(&str, i32)] = &[
    ("no ", STRONG),
    ("nope ", STRONG),
    ("nah ", STRONG),
    ("nein ", STRONG),
    ("non ", STRONG),
    ("wrong ", STRONG),
    ("stop ", STRONG),
    ("cancel ", STRONG),
    ("undo ", STRONG),
    ("revert ", STRONG),
    ("wait ", WEAK),
    ("hold on ", WEAK),
    ("but ", WEAK),
    ("aber ", WEAK),
    ("doch ", WEAK),
    ("close but ", STRONG),
    ("not quite ", STRONG),
    ("why ", WEAK),
    ("warum ", WEAK),
    ("wieso ", WEAK),
];

/// What may follow an opening "no" without making it a correction ("No, still failing").
const NO_FOLLOWERS_NOT_CORRECTING: &[&str] = &[
    "still",
    "problem",
    "problems",
    "worries",
    "thanks",
    "thank",
    "rush",
    "luck",
    "change",
    "changes",
    "errors",
    "error",
    "difference",
    "output",
];

/// Phrases that state a rule for future work.
const CONVENTION: &[(&str, i32)] = &[
    (" always ", STRONG),
    (" never ", STRONG),
    (" every time ", STRONG),
    (" each time ", STRONG),
    (" whenever ", WEAK),
    (" from now on ", STRONG),
    (" going forward ", STRONG),
    (" in the future ", STRONG),
    (" for future ", STRONG),
    (" in this repo ", STRONG),
    (" in this project ", STRONG),
    (" in this codebase ", STRONG),
    (" in our repo ", STRONG),
    (" in our project ", STRONG),
    (" in our codebase ", STRONG),
    (" we use ", WEAK),
    (" we always ", STRONG),
    (" we never ", STRONG),
    (" we dont use ", STRONG),
    (" we do not use ", STRONG),
    (" convention ", STRONG),
    (" by default ", WEAK),
    (" as a rule ", STRONG),
    (" make sure to ", STRONG),
    (" make sure you ", STRONG),
    (" be sure to ", STRONG),
    (" before touching ", STRONG),
    (" before any ", WEAK),
    (" before you ", WEAK),
    (" before making ", WEAK),
    (" before committing ", STRONG),
    (" individually ", WEAK),
    (" each ", WEAK),
    (" must ", WEAK),
    (" should always ", STRONG),
    (" should never ", STRONG),
    (" on every ", WEAK),
    // German
    (" immer ", STRONG),
    (" niemals ", STRONG),
    (" nie ", STRONG),
    (" grundsätzlich ", STRONG),
    (" künftig ", STRONG),
    (" zukünftig ", STRONG),
    (" ab jetzt ", STRONG),
    (" in zukunft ", STRONG),
    (" jedes mal ", STRONG),
    (" wir verwenden ", WEAK),
    (" wir nutzen ", WEAK),
    // French, Spanish
    (" toujours ", STRONG),
    (" jamais ", STRONG),
    (" siempre ", STRONG),
    (" nunca ", STRONG),
];

const CONVENTION_CJK: &[(&str, i32)] = &[
    ("常に", STRONG),
    ("必ず", STRONG),
    ("今後", STRONG),
    ("毎回", STRONG),
    ("いつも", WEAK),
    ("絶対に", STRONG),
    ("ルール", WEAK),
    ("総是", STRONG),
    ("永远不要", STRONG),
];

/// Personal preferences about style or interaction.
const PREFERENCE: &[(&str, i32)] = &[
    (" i prefer ", STRONG),
    (" i like it when ", STRONG),
    (" i would rather ", STRONG),
    (" id rather ", STRONG),
    (" ask me ", STRONG),
    (" ask before ", STRONG),
    (" check with me ", STRONG),
    (" keep it short ", STRONG),
    (" keep answers ", STRONG),
    (" keep responses ", STRONG),
    (" be concise ", STRONG),
    (" be brief ", STRONG),
    (" no emojis ", STRONG),
    (" without emojis ", STRONG),
    (" dont explain ", WEAK),
    (" ich bevorzuge ", STRONG),
    (" ich mag es ", WEAK),
    (" frag mich ", STRONG),
    (" frage mich ", STRONG),
];

const PREFERENCE_CJK: &[(&str, i32)] = &[("好み", STRONG), ("確認してから", STRONG)];

/// An explicit request to remember something.
const REMEMBER: &[(&str, i32)] = &[
    (" remember ", STRONG),
    (" keep in mind ", STRONG),
    (" note that ", WEAK),
    (" dont forget ", STRONG),
    (" do not forget ", STRONG),
    (" save this ", WEAK),
    (" to memory ", STRONG),
    (" in memory ", WEAK),
    (" to your memory ", STRONG),
    (" to claude md ", STRONG),
    (" merk dir ", STRONG),
    (" merke dir ", STRONG),
    (" denk daran ", STRONG),
    (" vergiss nicht ", STRONG),
    (" abgespeichert ", STRONG),
    (" abspeichern ", STRONG),
    (" speichere ", WEAK),
    (" souviens toi ", STRONG),
    (" recuerda ", STRONG),
];

const REMEMBER_CJK: &[(&str, i32)] = &[
    ("覚えて", STRONG),
    ("忘れないで", STRONG),
    ("記憶して", STRONG),
    ("メモして", STRONG),
    ("记住", STRONG),
];

/// Longest stretch of a message read for cues: the user's words come first, pastes after.
const PROSE_MAX: usize = 600;

/// Classify one user message typed after `situation`.
pub fn classify(text: &str, situation: &Situation) -> Option<Verdict> {
    if text.contains("<user-memory-input>") {
        return Some(Verdict {
            kind: Kind::Remember,
            confidence: 3,
        });
    }
    let prose = prose(text);
    let words = normalize(prose);
    if words.trim().is_empty() {
        return None;
    }
    let raw = prose.to_lowercase();
    let after_action = situation.actions > 0;

    let mut correction = score(&words, &raw, CORRECTION, CORRECTION_CJK) + opener(&words);
    if situation.rejected {
        correction += WEAK;
    }
    if !after_action {
        // Nothing was done yet that could be corrected.
        correction = 0;
    }
    let mut convention = score(&words, &raw, CONVENTION, CONVENTION_CJK);
    let preference = score(&words, &raw, PREFERENCE, PREFERENCE_CJK);
    let remember = score(&words, &raw, REMEMBER, REMEMBER_CJK);
    if is_question(prose) && !words.starts_with(" no ") {
        // "Should we always …?" asks; it does not state a rule.
        convention -= WEAK;
    }
    let best = [
        (Kind::Remember, remember),
        (Kind::Correction, correction),
        (Kind::Preference, preference),
        (Kind::Convention, convention),
    ]
    .into_iter()
    .max_by_key(|(_, s)| *s)?;
    if best.1 < THRESHOLD {
        return None;
    }
    let confidence = match best.0 {
        Kind::Correction if is_replacement(&words, &raw) => 3,
        Kind::Remember => 2,
        _ if best.1 >= 2 * STRONG => 2,
        _ => 1,
    };
    Some(Verdict {
        kind: best.0,
        confidence,
    })
}

/// "use X instead of Y", "X, not Y": the user names the right thing and the wrong one.
fn is_replacement(words: &str, raw: &str) -> bool {
    [
        " instead of ",
        " rather than ",
        " statt ",
        " stattdessen ",
        " au lieu de ",
        " en lugar de ",
    ]
    .iter()
    .any(|p| words.contains(p))
        || ["ではなく", "じゃなくて", "代わりに", "而不是"]
            .iter()
            .any(|p| raw.contains(p))
}

fn score(words: &str, raw: &str, phrases: &[(&str, i32)], cjk: &[(&str, i32)]) -> i32 {
    let spaced: i32 = phrases
        .iter()
        .filter(|(p, _)| words.contains(p))
        .map(|(_, w)| *w)
        .sum();
    let unspaced: i32 = cjk
        .iter()
        .filter(|(p, _)| raw.contains(p))
        .map(|(_, w)| *w)
        .sum();
    // Several cues of one kind do not make a message more than certain.
    (spaced + unspaced).min(2 * STRONG)
}

fn opener(words: &str) -> i32 {
    let body = words.trim_start();
    for (start, weight) in CORRECTION_OPENERS {
        if let Some(rest) = body.strip_prefix(start) {
            let next = rest.split(' ').next().unwrap_or("");
            if start.starts_with("no") && NO_FOLLOWERS_NOT_CORRECTING.contains(&next) {
                return 0;
            }
            return *weight;
        }
    }
    // A one-word "no" / "stop" / "cancel".
    match body.trim() {
        "no" | "nope" | "stop" | "cancel" | "nein" | "wrong" | "undo" | "revert" => STRONG,
        _ => 0,
    }
}

fn is_question(prose: &str) -> bool {
    let t = prose.trim_end();
    t.ends_with('?') || t.ends_with('？')
}

/// The part of a message the user wrote themselves: up to a code fence or to the colon that
/// introduces a paste ("Getting this:\n…"), at most [`PROSE_MAX`] bytes.
pub fn prose(text: &str) -> &str {
    let mut end = text.len().min(PROSE_MAX);
    while !text.is_char_boundary(end) {
        end -= 1;
    }
    let mut prose = &text[..end];
    if let Some(at) = prose.find("```") {
        prose = &prose[..at];
    }
    for paste in [":\n", ":\\\n", ": \\\n", ":\r\n"] {
        if let Some(at) = prose.find(paste) {
            prose = &prose[..at];
        }
    }
    prose
}

/// Lowercase words separated by single spaces, with a space at both ends so phrases match on
/// word boundaries; apostrophes vanish ("don't" → "dont").
pub fn normalize(text: &str) -> String {
    let mut out = String::with_capacity(text.len() + 2);
    out.push(' ');
    for c in text.chars() {
        if c == '\'' || c == '’' || c == '`' {
            continue;
        }
        if c.is_alphanumeric() {
            out.extend(c.to_lowercase());
        } else if !out.ends_with(' ') {
            out.push(' ');
        }
    }
    if !out.ends_with(' ') {
        out.push(' ');
    }
    out
}

/// Words of approval that open a message ("Great, that works").
const PRAISE_OPENERS: &[&str] = &[
    "great",
    "perfect",
    "excellent",
    "awesome",
    "nice",
    "good job",
    "well done",
    "exactly",
    "that works",
    "works now",
    "it works",
    "love it",
    "brilliant",
    "amazing",
    "super",
    "genau",
    "perfekt",
    "sehr gut",
    "klasse",
    "toll",
    "prima",
    "parfait",
    "genial",
    "perfecto",
];
const PRAISE_CJK: &[&str] = &["完璧", "素晴らしい", "いいね", "ばっちり", "完美", "太好了"];

/// Praise for what the assistant just did, without a "but".
pub fn is_praise(text: &str) -> bool {
    let prose = prose(text);
    let words = normalize(prose);
    let body = words.trim_start();
    let opens = PRAISE_OPENERS.iter().any(|p| {
        body.strip_prefix(p)
            .is_some_and(|rest| rest.is_empty() || rest.starts_with(' '))
    }) || PRAISE_CJK.iter().any(|p| prose.trim_start().starts_with(p));
    opens && !words.contains(" but ") && !words.contains(" aber ") && !words.contains(" still ")
}

/// A command the user shares for the assistant to run: bash mode (`!cmd`), or an imperative
/// "run `…`" / "use `…`" naming it in backticks.
pub fn shared_command(text: &str) -> Option<String> {
    if let Some(rest) = text.trim().strip_prefix("<bash-input>") {
        let cmd = rest.split("</bash-input>").next().unwrap_or("").trim();
        return (!cmd.is_empty()).then(|| cmd.to_string());
    }
    let prose = prose(text);
    let lower = prose.to_lowercase();
    for verb in ["run `", "use `", "execute `", "try `", "with `"] {
        if let Some(at) = lower.find(verb) {
            let start = at + verb.len();
            let end = prose[start..].find('`')? + start;
            let cmd = prose[start..end].trim();
            // A command has a program and an argument, and is not a bare file name.
            if cmd.contains(' ') && cmd.len() <= 200 && !cmd.contains('\n') {
                return Some(cmd.to_string());
            }
        }
    }
    None
}
