//! The one feature extractor of the learned classifier: what a user message and the turn it
//! answers look like, as a set of binary features. The hook ([`super::model::Model::classify`])
//! and the trainer (the lab's `examples/train_detector.rs`, through `reflect_lab::eval`) both
//! call [`extract`], so the weights are always read against the features they were learned on.
//!
//! Rules: no feature names a word of a person's messages. The cue categories below are written
//! from general knowledge of twelve languages (negations, "stop", "always/never", "remember",
//! "instead", "wrong" …), so what is learned is how much a kind of cue counts, in any language,
//! not which words one person uses. The rest is structure: where the cue sits, how long the
//! message is, whether it pastes something, and what the assistant just did (edited, ran a
//! command, failed, asked a question, had a call refused).
//!
//! Cost: two automaton passes over a message's first few hundred bytes (one over its normalized
//! words, one over its raw text when it is not ASCII) and a bitset; no allocation but the
//! lower-cased copy [`super::text::Reading`] needs anyway.

use std::collections::HashMap;
use std::sync::LazyLock;

use super::text::{self, Reading, Situation};
use reflect_store::signal::Kind;

/// A cue category: its name, phrases over normalized words (lowercase, apostrophes dropped,
/// matched on word boundaries) and substrings for scripts written without spaces.
type Category = (
    &'static str,
    &'static [&'static str],
    &'static [&'static str],
);

/// The cue categories, from general knowledge of English, German, French, Spanish, Portuguese,
/// Italian, Polish, Russian, Vietnamese (with and without diacritics), Chinese, Japanese and
/// Korean. A phrase may sit in several categories.
const CATEGORIES: &[Category] = &[
    (
        "no",
        &[
            "no", "nope", "nah", "noo", "nooo", "nono", "no no", "nein", "non", "não", "nao",
            "нет", "không", "khong", "nie",
        ],
        &[
            "不是",
            "不对",
            "不對",
            "いや",
            "いいえ",
            "違う",
            "ちがう",
            "아니",
            "아뇨",
        ],
    ),
    (
        "stop",
        &[
            "stop",
            "halt",
            "wait",
            "hold on",
            "cancel",
            "abort",
            "stopp",
            "warte",
            "arrête",
            "arrete",
            "attends",
            "detente",
            "espera",
            "parar",
            "стоп",
            "стой",
            "подожди",
            "хватит",
            "dừng",
            "dung lai",
            "ferma",
            "fermati",
            "aspetta",
            "basta",
            "przestań",
            "przestan",
            "stój",
            "czekaj",
        ],
        &[
            "停",
            "等等",
            "等一下",
            "やめて",
            "止めて",
            "待って",
            "멈춰",
            "그만",
            "중지",
            "잠깐",
        ],
    ),
    (
        "wrong",
        &[
            "wrong",
            "incorrect",
            "mistake",
            "mistaken",
            "not right",
            "not correct",
            "falsch",
            "fehler",
            "faux",
            "fausse",
            "erreur",
            "incorrecto",
            "incorrecta",
            "equivocado",
            "equivocada",
            "errado",
            "errada",
            "incorreto",
            "incorreta",
            "erro",
            "неправильно",
            "неверно",
            "ошибка",
            "ошибся",
            "sai",
            "sai rồi",
            "nhầm",
            "nham",
            "sbagliato",
            "sbagliata",
            "errore",
            "źle",
            "zle",
            "błąd",
            "blad",
            "błędnie",
        ],
        &[
            "错", "錯", "不对", "不對", "間違", "違う", "잘못", "틀렸", "틀린", "틀려",
        ],
    ),
    (
        "instead",
        &[
            "instead",
            "instead of",
            "rather than",
            "rather",
            "statt",
            "stattdessen",
            "anstatt",
            "au lieu",
            "plutôt",
            "plutot",
            "en lugar",
            "en vez",
            "em vez",
            "ao invés",
            "ao inves",
            "вместо",
            "thay vì",
            "thay vi",
            "invece",
            "anziché",
            "anziche",
            "zamiast",
        ],
        &[
            "而不是",
            "代替",
            "代わりに",
            "ではなく",
            "じゃなくて",
            "대신",
            "말고",
        ],
    ),
    (
        "dont",
        &[
            "dont",
            "do not",
            "never",
            "doesnt need",
            "kein",
            "keine",
            "ne pas",
            "no hagas",
            "no uses",
            "não use",
            "nao use",
            "não faça",
            "nao faca",
            "не",
            "đừng",
            "không được",
            "khong duoc",
            "non fare",
            "non usare",
            "nie rób",
            "nie rob",
            "nie używaj",
            "nie uzywaj",
        ],
        &[
            "不要",
            "别",
            "別",
            "不用",
            "不需要",
            "无需",
            "無需",
            "しないで",
            "ないで",
            "禁止",
            "하지 마",
            "하지마",
            "말아",
            "마세요",
            "않아도",
        ],
    ),
    (
        "undo",
        &[
            "undo",
            "revert",
            "roll back",
            "rollback",
            "put it back",
            "restore",
            "change it back",
            "rückgängig",
            "ruckgangig",
            "annule",
            "annuler",
            "deshacer",
            "revertir",
            "desfazer",
            "reverter",
            "откати",
            "отмени",
            "верни",
            "hoàn tác",
            "hoan tac",
            "khôi phục",
            "annulla",
            "ripristina",
            "cofnij",
            "przywróć",
            "przywroc",
        ],
        &[
            "撤销",
            "撤銷",
            "回退",
            "还原",
            "還原",
            "恢复",
            "恢復",
            "元に戻",
            "戻して",
            "되돌",
            "원래대로",
            "롤백",
        ],
    ),
    (
        "i_said",
        &[
            "i said",
            "i told you",
            "i asked",
            "i meant",
            "i mean",
            "what i want",
            "what i wanted",
            "i wanted",
            "i already",
            "as i said",
            "like i said",
            "ich sagte",
            "ich meinte",
            "ich habe gesagt",
            "jai dit",
            "je voulais",
            "te dije",
            "quise decir",
            "eu disse",
            "eu pedi",
            "eu quis",
            "я сказал",
            "я просил",
            "я имел",
            "tôi đã nói",
            "toi da noi",
            "ho detto",
            "intendevo",
            "mówiłem",
            "mowilem",
            "powiedziałem",
        ],
        &[
            "我说",
            "我說",
            "我的意思",
            "我要的是",
            "言った",
            "言ってる",
            "내가 말",
            "제가 말",
            "내 말은",
        ],
    ),
    (
        "you_did",
        &[
            "you didnt",
            "you did not",
            "you forgot",
            "you missed",
            "you ignored",
            "you broke",
            "you removed",
            "you deleted",
            "you changed",
            "you are not",
            "youre not",
            "you should",
            "you shouldnt",
            "you need to",
            "you must",
            "you were supposed",
            "why did you",
            "why are you",
            "why did",
            "why didnt",
            "why is",
            "why not",
            "hast du",
            "du hast",
            "tu as",
            "has hecho",
            "você não",
            "voce nao",
            "você fez",
            "вы не",
            "ты не",
            "bạn đã",
            "ban da",
            "bạn không",
            "ban khong",
            "hai fatto",
            "zrobiłeś",
        ],
        &[
            "你没",
            "你沒",
            "你忘",
            "你搞",
            "你为什么",
            "你為什麼",
            "为什么",
            "為什麼",
            "なぜ",
            "どうして",
            "왜",
        ],
    ),
    (
        "rule",
        &[
            "always",
            "never",
            "from now on",
            "going forward",
            "in the future",
            "in future",
            "every time",
            "each time",
            "whenever",
            "by default",
            "as a rule",
            "make sure",
            "must",
            "should always",
            "should never",
            "immer",
            "niemals",
            "künftig",
            "kunftig",
            "ab jetzt",
            "in zukunft",
            "toujours",
            "jamais",
            "désormais",
            "desormais",
            "siempre",
            "nunca",
            "jamás",
            "jamas",
            "a partir de ahora",
            "sempre",
            "daqui pra frente",
            "de agora em diante",
            "всегда",
            "никогда",
            "впредь",
            "luôn",
            "luon",
            "luôn luôn",
            "không bao giờ",
            "khong bao gio",
            "từ nay",
            "tu nay",
            "da ora in poi",
            "zawsze",
            "nigdy",
            "od teraz",
        ],
        &[
            "总是",
            "總是",
            "永远",
            "永遠",
            "以后",
            "以後",
            "今后",
            "今後",
            "每次",
            "务必",
            "務必",
            "必须",
            "必須",
            "一律",
            "常に",
            "必ず",
            "毎回",
            "いつも",
            "絶対",
            "항상",
            "언제나",
            "절대",
            "앞으로",
            "반드시",
            "매번",
        ],
    ),
    (
        "convention",
        &[
            "we use",
            "we always",
            "we never",
            "we dont",
            "our convention",
            "convention",
            "in this repo",
            "in this project",
            "in this codebase",
            "in our",
            "the rule",
            "our rule",
            "policy",
            "standard",
            "style guide",
            "wir verwenden",
            "wir nutzen",
            "on utilise",
            "nous utilisons",
            "usamos",
            "utilizamos",
            "мы используем",
            "chúng tôi dùng",
            "usiamo",
            "używamy",
            "uzywamy",
        ],
        &[
            "我们用",
            "我們用",
            "我们使用",
            "我們使用",
            "规范",
            "規範",
            "约定",
            "約定",
            "ルール",
            "規約",
            "規則",
            "우리는",
            "규칙",
            "컨벤션",
        ],
    ),
    (
        "remember",
        &[
            "remember",
            "keep in mind",
            "dont forget",
            "do not forget",
            "note that",
            "take note",
            "memorize",
            "save this",
            "save to memory",
            "in memory",
            "to memory",
            "to your memory",
            "merk dir",
            "merke dir",
            "denk daran",
            "vergiss nicht",
            "souviens toi",
            "rappelle toi",
            "noublie pas",
            "recuerda",
            "no olvides",
            "ten en cuenta",
            "lembre",
            "lembra",
            "lembrar",
            "lembrando",
            "não esqueça",
            "nao esqueca",
            "запомни",
            "помни",
            "не забудь",
            "nhớ",
            "nho",
            "ghi nhớ",
            "ghi nho",
            "lưu ý",
            "luu y",
            "ricorda",
            "ricordati",
            "non dimenticare",
            "pamiętaj",
            "pamietaj",
            "zapamiętaj",
            "zapamietaj",
            "nie zapomnij",
        ],
        &[
            "记住",
            "記住",
            "记得",
            "記得",
            "别忘",
            "別忘",
            "覚えて",
            "忘れないで",
            "記憶",
            "メモして",
            "기억",
            "잊지 마",
            "잊지마",
            "명심",
        ],
    ),
    (
        "prefer",
        &[
            "i prefer",
            "i like",
            "i would rather",
            "id rather",
            "i want you to",
            "i dont want you to",
            "i dont like",
            "i hate",
            "please dont",
            "keep it short",
            "be concise",
            "be brief",
            "no emojis",
            "ask me",
            "check with me",
            "ich bevorzuge",
            "ich möchte",
            "je préfère",
            "je prefere",
            "prefiero",
            "eu prefiro",
            "prefiro",
            "я предпочитаю",
            "tôi thích",
            "toi thich",
            "preferisco",
            "wolę",
            "wole",
        ],
        &[
            "我喜欢",
            "我喜歡",
            "我希望",
            "我更喜欢",
            "我不喜欢",
            "好み",
            "がいい",
            "하는 게 좋",
            "선호",
        ],
    ),
    (
        "language",
        &[
            "in english",
            "in chinese",
            "in japanese",
            "in korean",
            "in spanish",
            "in portuguese",
            "in russian",
            "in vietnamese",
            "in german",
            "in french",
            "in italian",
            "in polish",
            "auf deutsch",
            "auf englisch",
            "en français",
            "en francais",
            "en anglais",
            "en español",
            "en espanol",
            "en inglés",
            "em português",
            "em portugues",
            "ptbr",
            "pt br",
            "по русски",
            "на русском",
            "tiếng việt",
            "tieng viet",
            "in italiano",
            "po polsku",
        ],
        &["中文", "英文", "日本語で", "英語で", "한국어", "영어로"],
    ),
    (
        "still",
        &[
            "still",
            "again",
            "not working",
            "doesnt work",
            "does not work",
            "didnt work",
            "same error",
            "still failing",
            "noch immer",
            "immer noch",
            "toujours pas",
            "todavía",
            "todavia",
            "ainda",
            "всё ещё",
            "все еще",
            "опять",
            "vẫn",
            "van con",
            "ancora",
            "nadal",
            "wciąż",
            "wciaz",
            "znowu",
        ],
        &["还是", "還是", "仍然", "依然", "まだ", "아직", "여전히"],
    ),
    (
        "request",
        &[
            "can you",
            "could you",
            "please",
            "lets",
            "help me",
            "kannst du",
            "bitte",
            "peux tu",
            "pouvez vous",
            "puedes",
            "podrías",
            "podrias",
            "você pode",
            "voce pode",
            "можешь",
            "пожалуйста",
            "hãy",
            "giúp",
            "giup",
            "puoi",
            "potresti",
            "możesz",
            "mozesz",
            "proszę",
            "prosze",
        ],
        &[
            "请",
            "請",
            "帮我",
            "幫我",
            "してください",
            "して下さい",
            "お願い",
            "해줘",
            "해주세요",
            "주세요",
        ],
    ),
    (
        "question",
        &[
            "what", "how", "where", "which", "who", "is there", "does", "do you", "wie", "comment",
            "quoi", "qué", "cómo", "o que", "что", "как", "где", "cosa", "dove", "jak", "gdzie",
        ],
        &[
            "什么",
            "什麼",
            "怎么",
            "怎麼",
            "吗",
            "嗎",
            "ですか",
            "ますか",
            "何",
            "どう",
            "뭐",
            "어떻게",
            "나요",
            "까요",
        ],
    ),
    (
        "thanks",
        &[
            "thanks",
            "thank you",
            "great",
            "perfect",
            "good",
            "nice",
            "ok",
            "okay",
            "yes",
            "sure",
            "danke",
            "merci",
            "gracias",
            "obrigado",
            "obrigada",
            "спасибо",
            "cảm ơn",
            "cam on",
            "grazie",
            "dziękuję",
            "dziekuje",
        ],
        &[
            "谢谢",
            "謝謝",
            "好的",
            "ありがとう",
            "完璧",
            "감사",
            "좋아",
            "좋습니다",
        ],
    ),
    (
        "anger",
        &[
            "fuck",
            "fucking",
            "fucked",
            "shit",
            "stupid",
            "idiot",
            "wtf",
            "damn",
            "dumb",
            "crap",
            "useless",
            "scheiße",
            "scheisse",
            "merde",
            "mierda",
            "porra",
            "caralho",
            "блять",
            "бля",
            "cazzo",
            "kurwa",
        ],
        &["他妈", "卧槽", "垃圾", "バカ", "クソ", "씨발", "젠장"],
    ),
    (
        "should",
        &[
            "should",
            "shouldnt",
            "should not",
            "must",
            "mustnt",
            "need to",
            "needs to",
            "has to",
            "have to",
            "supposed to",
            "sollte",
            "sollten",
            "muss",
            "müssen",
            "devrait",
            "doit",
            "doivent",
            "debería",
            "deberia",
            "debe",
            "deben",
            "deveria",
            "deve",
            "devem",
            "должен",
            "должна",
            "должно",
            "надо",
            "нужно",
            "nên",
            "phải",
            "phai",
            "dovrebbe",
            "devono",
            "powinien",
            "powinno",
            "musi",
            "trzeba",
        ],
        &[
            "应该", "應該", "必须", "必須", "べき", "はず", "해야", "돼야",
        ],
    ),
    (
        "only",
        &[
            "only",
            "just",
            "nur",
            "seulement",
            "uniquement",
            "solo",
            "solamente",
            "só",
            "apenas",
            "somente",
            "только",
            "лишь",
            "chỉ",
            "soltanto",
            "tylko",
            "jedynie",
        ],
        &["只", "仅", "僅", "だけ", "のみ"],
    ),
    (
        "want",
        &[
            "i want",
            "i need",
            "i dont want",
            "i do not want",
            "i would like",
            "id like",
            "i wanted",
            "ich will",
            "ich möchte",
            "ich brauche",
            "je veux",
            "je voudrais",
            "quiero",
            "necesito",
            "eu quero",
            "quero",
            "preciso",
            "я хочу",
            "мне нужно",
            "tôi muốn",
            "toi muon",
            "tôi cần",
            "toi can",
            "voglio",
            "vorrei",
            "chcę",
            "chce",
            "potrzebuję",
        ],
        &[
            "我想",
            "我要",
            "我希望",
            "我需要",
            "欲しい",
            "したい",
            "원해",
            "원합니다",
            "싶어",
        ],
    ),
    (
        "did_you",
        &[
            "did you",
            "have you",
            "did u",
            "are you",
            "hast du",
            "hattest du",
            "as tu",
            "avez vous",
            "bạn đã",
            "ban da",
            "bạn có",
            "ban co",
            "avete",
            "czy",
        ],
        &["你有没有", "你是否", "你到底", "ましたか", "했어", "했나요"],
    ),
    (
        "memory_file",
        &[
            "claude md",
            "agents md",
            "memory",
            "memories",
            "system prompt",
            "instructions",
            "guidelines",
        ],
        &["记忆", "記憶", "メモリ", "메모리"],
    ),
    (
        "but",
        &[
            "actually",
            "but",
            "however",
            "though",
            "although",
            "eigentlich",
            "aber",
            "doch",
            "en fait",
            "mais",
            "pero",
            "en realidad",
            "na verdade",
            "porém",
            "porem",
            "на самом деле",
            "но",
            "thực ra",
            "thuc ra",
            "nhưng",
            "nhung",
            "in realtà",
            "in realta",
            "però",
            "właściwie",
            "wlasciwie",
            "ale",
        ],
        &[
            "其实",
            "其實",
            "但是",
            "可是",
            "不过",
            "実は",
            "でも",
            "しかし",
            "근데",
            "그런데",
            "하지만",
        ],
    ),
];

/// Number of cue categories.
const CUES: usize = CATEGORIES.len();
/// Words of a message that count as its head ("No, …", "Stop …", "Don't …").
const HEAD_WORDS: usize = 3;
/// Buckets of the message's length in words (⌊log2(1 + words)⌋, the last one open).
const LENGTHS: usize = 7;
/// Buckets of the number of tool calls the message answers (⌊log2(1 + calls)⌋).
const CALLS: usize = 5;

/// The rule verdicts of [`text::rules`], in feature order.
const RULE_KINDS: [Kind; 4] = [
    Kind::Correction,
    Kind::Convention,
    Kind::Preference,
    Kind::Remember,
];

/// Features that are neither a cue nor a bucket, in order after them.
const FLAGS: [&str; 9] = [
    "pastes something",
    "asks a question",
    "shouts",
    "after a refused call",
    "after an edit",
    "after a command",
    "after a tool error",
    "after the assistant asked",
    "after nothing",
];

// Where each group starts.
const CUE_ANYWHERE: usize = 0;
const CUE_AT_HEAD: usize = CUE_ANYWHERE + CUES;
const RULE: usize = CUE_AT_HEAD + CUES;
const LENGTH: usize = RULE + RULE_KINDS.len();
const CALLED: usize = LENGTH + LENGTHS;
const FLAG: usize = CALLED + CALLS;

/// How many features there are.
pub const COUNT: usize = FLAG + FLAGS.len();

const _: () = assert!(COUNT <= 128, "a Features bitset holds 128");

/// The features of one message: a bitset over [`COUNT`] binary features.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Hash)]
pub struct Features([u64; 2]);

impl Features {
    /// What the hand-written rules said of the message, when the user said it in so many words:
    /// a remember-request or a personal preference ("remember that …" is expected to be kept,
    /// whatever the model weighs), a correction that opens with a no, a "that's wrong" or a stop
    /// ("No, use pnpm not npm"), or a convention that opens as a rule ("Always run the linter
    /// before committing"). Measured leave-one-repository-out, these add recall at the model's
    /// precision (`scripts/eval-detectors`, docs/capture-quality.md).
    pub(crate) fn explicit_request(&self) -> Option<Kind> {
        let says = |k: &Kind| {
            RULE_KINDS
                .iter()
                .position(|r| r == k)
                .is_some_and(|i| self.has(RULE + i))
        };
        let opens_with = |cues: &[&str]| {
            CATEGORIES
                .iter()
                .enumerate()
                .any(|(i, c)| cues.contains(&c.0) && self.has(CUE_AT_HEAD + i))
        };
        let opened = [
            (Kind::Remember, &[][..]),
            (Kind::Preference, &[][..]),
            (Kind::Correction, &["no", "wrong", "stop"][..]),
            (Kind::Convention, &["rule"][..]),
        ];
        opened
            .into_iter()
            .find(|(k, cues)| says(k) && (cues.is_empty() || opens_with(cues)))
            .map(|(k, _)| k)
    }

    /// Whether the hand-written rules read the message as a rule meant to last: a convention
    /// ("from now on…", "always…", "in this project we…"), a preference or a remember-request,
    /// from their cue phrases in any language they know, a description ("it never updates")
    /// and a question ("should we always…?") counting for less.
    pub fn rules_say_lasting(&self) -> bool {
        RULE_KINDS
            .iter()
            .enumerate()
            .any(|(i, k)| *k != Kind::Correction && self.has(RULE + i))
    }

    /// The features whose bits are set in `bits` (tests, and the lab's training tests).
    pub fn from_bits(bits: [u64; 2]) -> Features {
        Features(bits)
    }
    fn set(&mut self, i: usize) {
        self.0[i / 64] |= 1 << (i % 64);
    }
    pub fn has(&self, i: usize) -> bool {
        self.0[i / 64] >> (i % 64) & 1 == 1
    }
    /// The indices of the features present, in increasing order.
    pub fn iter(&self) -> impl Iterator<Item = usize> + '_ {
        (0..2).flat_map(move |w| {
            let mut bits = self.0[w];
            std::iter::from_fn(move || {
                (bits != 0).then(|| {
                    let i = bits.trailing_zeros() as usize;
                    bits &= bits - 1;
                    w * 64 + i
                })
            })
        })
    }
}

/// The name of feature `i`, for the generated weights file and for reading them.
pub fn name(i: usize) -> String {
    match i {
        _ if i < CUE_AT_HEAD => format!("cue {}", CATEGORIES[i - CUE_ANYWHERE].0),
        _ if i < RULE => format!("cue {} at the head", CATEGORIES[i - CUE_AT_HEAD].0),
        _ if i < LENGTH => format!("rules say {}", RULE_KINDS[i - RULE].as_str()),
        _ if i < CALLED => format!("{} words", span(i - LENGTH, LENGTHS)),
        _ if i < FLAG => format!("answers {} tool calls", span(i - CALLED, CALLS)),
        _ => FLAGS[i - FLAG].to_string(),
    }
}

/// The counts that fall in bucket `b` of `buckets` (see [`bucket`]): "3-6", "63+".
fn span(b: usize, buckets: usize) -> String {
    let low = (1 << b) - 1;
    if b + 1 == buckets {
        format!("{low}+")
    } else {
        format!("{low}-{}", (1 << (b + 1)) - 2)
    }
}

/// Every category phrase, each pattern with the categories it belongs to (a mask).
type Cues = crate::cues::Cues<u32>;

const _: () = assert!(CUES <= 32, "a pattern's categories are a u32 mask");

/// The spaced (over normalized words) or unspaced (over raw text) phrases of the categories, a
/// phrase in several categories one pattern.
fn cues(spaced: bool) -> Cues {
    let mut entries: Vec<(String, u32)> = Vec::new();
    let mut index: HashMap<String, usize> = HashMap::new();
    for (c, (_, words, unspaced)) in CATEGORIES.iter().enumerate() {
        let phrases = if spaced { *words } else { *unspaced };
        for phrase in phrases {
            let pattern = if spaced {
                format!(" {phrase} ")
            } else {
                phrase.to_string()
            };
            let at = *index.entry(pattern.clone()).or_insert_with(|| {
                entries.push((pattern, 0));
                entries.len() - 1
            });
            entries[at].1 |= 1 << c;
        }
    }
    Cues::build(entries)
}

static SPACED: LazyLock<Cues> = LazyLock::new(|| cues(true));
/// Built only when a message is not all ASCII.
static UNSPACED: LazyLock<Cues> = LazyLock::new(|| cues(false));

/// More than the longest cue phrase's bytes, with the spaces around it.
const OPENING_BYTES: usize = 64;

/// Whether the message opens with a phrase of the "rule" cues, in any language they know:
/// "Always…", "Never…", "From now on…", "Впредь…", "以后…", "앞으로…". The hand-written rules
/// ([`Features::rules_say_lasting`]) know fewer languages.
pub fn opens_as_rule(read: &Reading) -> bool {
    let rule = 1
        << CATEGORIES
            .iter()
            .position(|c| c.0 == "rule")
            .expect("a rule category");
    let opens = |cues: &Cues, text: &str| {
        cues.automaton
            .find_overlapping_iter(text)
            .any(|m| m.start() == 0 && cues.meta[m.pattern().as_usize()] & rule != 0)
    };
    // Only a phrase at the start counts: read no further than the longest one can reach.
    let head = |text| reflect_base::text::truncate(text, OPENING_BYTES);
    let prose = head(read.prose.trim_start());
    opens(&SPACED, head(&read.words))
        || (!prose.is_ascii() && opens(&UNSPACED, &prose.to_lowercase()))
}

/// The features of the message `read`, typed after `situation`. `raw` is its prose lower-cased.
pub(crate) fn extract(read: &Reading, raw: &str, situation: &Situation) -> Features {
    let mut f = Features::default();
    let words = read.words.as_str();
    // The head ends after the space that follows its last word (`words` starts with a space).
    let head_end = memchr::memchr_iter(b' ', words.as_bytes())
        .nth(HEAD_WORDS)
        .map_or(words.len(), |at| at + 1);
    for found in SPACED.automaton.find_overlapping_iter(words) {
        let mask = SPACED.meta[found.pattern().as_usize()];
        set_categories(&mut f, mask, found.end() <= head_end);
    }
    if !raw.is_ascii() {
        let start = raw.len() - raw.trim_start().len();
        for found in UNSPACED.automaton.find_overlapping_iter(raw) {
            let mask = UNSPACED.meta[found.pattern().as_usize()];
            set_categories(&mut f, mask, found.start() == start);
        }
    }
    if let Some(verdict) = text::rules(read, raw, situation) {
        if let Some(k) = RULE_KINDS.iter().position(|k| *k == verdict.kind) {
            f.set(RULE + k);
        }
    }
    let count = memchr::memchr_iter(b' ', words.as_bytes()).count();
    f.set(LENGTH + bucket(count.saturating_sub(1), LENGTHS));
    f.set(CALLED + bucket(situation.calls, CALLS));
    let prose = read.prose.trim_end();
    let letters = prose.chars().filter(|c| c.is_alphabetic()).count();
    let upper = prose.chars().filter(|c| c.is_uppercase()).count();
    let flags = [
        read.prose.len() < read.text.len(),
        read.asks(),
        prose.len() > 5 && 2 * upper > letters.max(1),
        situation.rejected,
        situation.edited,
        situation.ran,
        situation.failed,
        situation.asked,
        situation.actions == 0,
    ];
    for (i, on) in flags.into_iter().enumerate() {
        if on {
            f.set(FLAG + i);
        }
    }
    f
}

fn set_categories(f: &mut Features, mut mask: u32, at_head: bool) {
    while mask != 0 {
        let c = mask.trailing_zeros() as usize;
        mask &= mask - 1;
        f.set(CUE_ANYWHERE + c);
        if at_head {
            f.set(CUE_AT_HEAD + c);
        }
    }
}

/// ⌊log2(1 + n)⌋, at most `buckets - 1`.
fn bucket(n: usize, buckets: usize) -> usize {
    ((usize::BITS - (n + 1).leading_zeros() - 1) as usize).min(buckets - 1)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn features(text: &str, situation: &Situation) -> Features {
        let read = Reading::of(text);
        let raw = read.prose.to_lowercase();
        extract(&read, &raw, situation)
    }

    fn names(f: &Features) -> Vec<String> {
        f.iter().map(name).collect()
    }

    #[test]
    fn cues_are_found_on_word_boundaries_and_at_the_head() {
        let f = names(&features(
            "No, don't use npm; we use pnpm",
            &Situation::default(),
        ));
        for want in [
            "cue no",
            "cue no at the head",
            "cue dont",
            "cue dont at the head",
            "cue convention",
        ] {
            assert!(f.contains(&want.to_string()), "{want}: {f:?}");
        }
        assert!(
            !f.contains(&"cue convention at the head".to_string()),
            "{f:?}"
        );
        // "nothing" holds "no" but not as a word.
        let f = names(&features("nothing to add here", &Situation::default()));
        assert!(!f.iter().any(|n| n.starts_with("cue no")), "{f:?}");
    }

    #[test]
    fn unspaced_scripts_are_read_as_substrings_and_their_head_is_the_first_character() {
        let f = names(&features("不要修改这个文件", &Situation::default()));
        assert!(f.contains(&"cue dont at the head".to_string()), "{f:?}");
        let f = names(&features("这个文件不要修改", &Situation::default()));
        assert!(f.contains(&"cue dont".to_string()), "{f:?}");
        assert!(!f.contains(&"cue dont at the head".to_string()), "{f:?}");
    }

    #[test]
    fn the_turn_answered_sets_the_context_flags() {
        let situation = Situation {
            actions: 4,
            calls: 3,
            rejected: true,
            edited: true,
            ran: false,
            failed: true,
            asked: true,
        };
        let f = names(&features("hm", &situation));
        for want in [
            "after a refused call",
            "after an edit",
            "after a tool error",
            "after the assistant asked",
            "answers 3-6 tool calls",
            "1-2 words",
        ] {
            assert!(f.contains(&want.to_string()), "{want}: {f:?}");
        }
        for absent in ["after a command", "after nothing"] {
            assert!(!f.contains(&absent.to_string()), "{absent}: {f:?}");
        }
        let f = names(&features("hm", &Situation::default()));
        assert!(f.contains(&"after nothing".to_string()), "{f:?}");
        assert!(f.contains(&"answers 0-0 tool calls".to_string()), "{f:?}");
    }

    #[test]
    fn structure_flags_read_the_prose() {
        let f = names(&features("WHY DID YOU DELETE IT?", &Situation::default()));
        assert!(f.contains(&"shouts".to_string()), "{f:?}");
        assert!(f.contains(&"asks a question".to_string()), "{f:?}");
        let f = names(&features(
            "Getting this:\nerror: boom",
            &Situation::default(),
        ));
        assert!(f.contains(&"pastes something".to_string()), "{f:?}");
        assert!(!f.contains(&"shouts".to_string()), "{f:?}");
    }

    #[test]
    fn buckets_and_names_cover_every_feature_once() {
        assert_eq!(bucket(0, 7), 0);
        assert_eq!(bucket(1, 7), 1);
        assert_eq!(bucket(2, 7), 1);
        assert_eq!(bucket(3, 7), 2);
        assert_eq!(bucket(1000, 7), 6);
        let all: Vec<String> = (0..COUNT).map(name).collect();
        let mut unique = all.clone();
        unique.sort();
        unique.dedup();
        assert_eq!(unique.len(), COUNT, "{all:?}");
    }

    #[test]
    fn a_bitset_lists_what_was_set_in_order() {
        let mut f = Features::default();
        for i in [COUNT - 1, 0, 63, 64] {
            f.set(i);
        }
        assert_eq!(f.iter().collect::<Vec<_>>(), vec![0, 63, 64, COUNT - 1]);
        assert!(f.has(63) && !f.has(62));
    }
}
