//! Approvals and bare continues ("ok", "yes, go ahead", "可以", "да", "はい"): prompts that only
//! let the assistant go on, which the digest leaves out. Written from general knowledge of a dozen
//! languages, not from any corpus.
//!
//! A prompt is one when it has no letter or digit at all (punctuation, emoji), or when it is short
//! and every word of it (as [`reflect_detect::text::normalize`] spells words: lowercase, apostrophes
//! dropped) is a word of approval; a word of a script written without spaces may also be a run of
//! such words ("好的继续" is "好的" + "继续"). Any other word keeps it: "no", "stop", "wait", "不",
//! "not like that" are never approvals.

use std::collections::HashSet;
use std::sync::LazyLock;

use reflect_detect::text::normalize;

/// Longer prompts are never bare approvals.
const MAX_WORDS: usize = 8;

/// Words of approval, continuation and thanks, with the small words they come with ("do it",
/// "go for it", "looks good to me"). Spelled as `normalize` spells them.
const WORDS: &[&str] = &[
    // English
    "ok",
    "okay",
    "okey",
    "k",
    "kk",
    "yes",
    "yep",
    "yeah",
    "yea",
    "yup",
    "y",
    "sure",
    "continue",
    "cont",
    "go",
    "ahead",
    "on",
    "proceed",
    "please",
    "pls",
    "plz",
    "thanks",
    "thank",
    "you",
    "ty",
    "thx",
    "next",
    "sounds",
    "good",
    "great",
    "perfect",
    "nice",
    "cool",
    "fine",
    "alright",
    "right",
    "correct",
    "agreed",
    "agree",
    "approve",
    "approved",
    "lgtm",
    "sgtm",
    "looks",
    "look",
    "works",
    "worked",
    "awesome",
    "excellent",
    "done",
    "keep",
    "going",
    "carry",
    "do",
    "it",
    "lets",
    "that",
    "thats",
    "this",
    "is",
    "to",
    "me",
    "for",
    "then",
    "now",
    "and",
    "so",
    "very",
    "much",
    "all",
    "the",
    "a",
    "ship",
    "amazing",
    "wonderful",
    "love",
    // 中文
    "可以",
    "好",
    "好的",
    "好吧",
    "行",
    "继续",
    "继续吧",
    "是",
    "是的",
    "对",
    "对的",
    "嗯",
    "嗯嗯",
    "谢谢",
    "没问题",
    "同意",
    "确认",
    "开始",
    "开始吧",
    "请继续",
    "请",
    "收到",
    "明白",
    "好滴",
    "繼續",
    "謝謝",
    "沒問題",
    // 日本語
    "はい",
    "うん",
    "ええ",
    "続けて",
    "続けてください",
    "続行",
    "お願いします",
    "お願い",
    "ありがとう",
    "ありがとうございます",
    "了解",
    "了解です",
    "大丈夫",
    "大丈夫です",
    "いいです",
    "いいよ",
    "オッケー",
    "どうぞ",
    "進めて",
    "進めてください",
    "よろしく",
    "よろしくお願いします",
    "okです",
    // 한국어
    "네",
    "예",
    "응",
    "좋아",
    "좋아요",
    "좋습니다",
    "계속",
    "계속해",
    "계속해줘",
    "계속해주세요",
    "진행",
    "진행해",
    "진행해줘",
    "진행해주세요",
    "감사합니다",
    "고마워",
    "알겠습니다",
    "확인",
    "ㅇㅇ",
    "넵",
    "네네",
    // русский
    "да",
    "ок",
    "окей",
    "хорошо",
    "продолжай",
    "продолжайте",
    "продолжить",
    "давай",
    "дальше",
    "спасибо",
    "ага",
    "верно",
    "отлично",
    "понял",
    "ладно",
    "го",
    "конечно",
    // español, português, italiano
    "sí",
    "si",
    "vale",
    "continúa",
    "continua",
    "continúe",
    "adelante",
    "claro",
    "gracias",
    "perfecto",
    "dale",
    "bien",
    "bueno",
    "listo",
    "sigue",
    "sim",
    "pode",
    "continue",
    "prossiga",
    "beleza",
    "obrigado",
    "obrigada",
    "certo",
    "perfeito",
    "ótimo",
    "otimo",
    "blz",
    "isso",
    "segue",
    "va",
    "bene",
    "procedi",
    "grazie",
    "perfetto",
    "certo",
    "vai",
    "ottimo",
    // français
    "oui",
    "daccord",
    "dac",
    "vas",
    "vasy",
    "continuez",
    "merci",
    "parfait",
    "allez",
    "cest",
    "bon",
    "super",
    // Deutsch, Nederlands
    "ja",
    "jawohl",
    "weiter",
    "mach",
    "bitte",
    "fortfahren",
    "danke",
    "passt",
    "gut",
    "genau",
    "stimmt",
    "richtig",
    "prima",
    "los",
    "doe",
    "maar",
    "ga",
    "door",
    "dank",
    "je",
    "bedankt",
    "goed",
    // polski, tiếng Việt, Türkçe
    "tak",
    "dobrze",
    "kontynuuj",
    "dalej",
    "dzięki",
    "dzieki",
    "có",
    "vâng",
    "ừ",
    "tiếp",
    "tục",
    "được",
    "cảm",
    "ơn",
    "đồng",
    "ý",
    "tốt",
    "evet",
    "tamam",
    "devam",
    "et",
    "teşekkürler",
];

static VOCABULARY: LazyLock<HashSet<&'static str>> =
    LazyLock::new(|| WORDS.iter().copied().collect());

/// Whether `text` (a prompt the user typed) only approves or continues.
pub(crate) fn is_bare(text: &str) -> bool {
    if !text.chars().any(char::is_alphanumeric) {
        return true;
    }
    let words = normalize(text);
    let words: Vec<&str> = words.split_whitespace().collect();
    !words.is_empty() && words.len() <= MAX_WORDS && words.iter().all(|w| approves(w))
}

/// A word of approval, a run of them written without spaces, or a number (a pick from a list
/// the assistant offered: "2").
fn approves(word: &str) -> bool {
    if VOCABULARY.contains(word) || (word.len() <= 2 && word.bytes().all(|b| b.is_ascii_digit())) {
        return true;
    }
    !word.is_ascii() && runs_of_words(word)
}

/// Whether `word` is a concatenation of vocabulary words (a word break over its characters).
fn runs_of_words(word: &str) -> bool {
    let ends: Vec<usize> = word
        .char_indices()
        .map(|(at, c)| at + c.len_utf8())
        .collect();
    // reachable[i]: word[..ends[i]] splits into vocabulary words.
    let mut reachable = vec![false; ends.len()];
    for (i, &end) in ends.iter().enumerate() {
        let starts = std::iter::once(0).chain(ends[..i].iter().copied());
        reachable[i] = starts.enumerate().any(|(k, start)| {
            (k == 0 || reachable[k - 1]) && VOCABULARY.contains(&word[start..end])
        });
    }
    reachable.last().copied().unwrap_or(false)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn approvals_and_continues_in_many_languages_are_bare() {
        for text in [
            "ok",
            "OK!",
            "yes, go ahead",
            "Yes please",
            "continue",
            "ok continue",
            "looks good to me",
            "lgtm 👍",
            "👍",
            "...",
            "?",
            "2",
            "可以",
            "好的，继续",
            "好的继续",
            "да",
            "Да, продолжай",
            "sí",
            "oui, vas-y",
            "d'accord",
            "ja, weiter",
            "네",
            "계속해줘",
            "はい",
            "はい、続けてください",
            "tiếp tục",
            "tamam devam et",
            "thank you!",
        ] {
            assert!(is_bare(text), "{text:?} should be a bare approval");
        }
    }

    #[test]
    fn anything_with_a_word_of_its_own_is_not_bare() {
        for text in [
            "no",
            "stop",
            "wait",
            "ok but use pnpm",
            "yes, and always run the tests first",
            "不对",
            "不",
            "好像不对",
            "いいえ",
            "нет",
            "ok do not commit",
            "continue with the parser refactor",
            "123",
            "git push",
            "fix the build",
        ] {
            assert!(!is_bare(text), "{text:?} is not a bare approval");
        }
    }
}
