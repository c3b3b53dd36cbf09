//! Whether a prompt asks a question rather than for work: what the list of calls refused without
//! a reason marks `?`, since a call refused in the turn of a question may have been unasked for
//! (the user wanted an answer, not an edit).
//!
//! A prompt asks when the user's own words end as a question ([`Reading::asks`]), unless that
//! last question is work asked for politely: "Can you edit the config?", "Could you please run
//! the tests?" ask for the edit and the run, so refusing them is refusing the way it was done.
//! A polite question that asks to be told or shown ("Can you explain why…?", "Could you check
//! what changed?") still asks. The polite forms are English ones, from general knowledge; in
//! another language a prompt ending as a question asks.

use reflect_detect::text::{normalize, Reading};

/// How a request for work is put as a question, as [`normalize`] spells it.
const POLITE: &[&str] = &[
    "can you",
    "could you",
    "would you",
    "will you",
    "can u",
    "could u",
    "would you mind",
    "can we",
    "could we",
    "shall we",
    "lets",
];

/// Words that may come between the polite form and its verb.
const FILLERS: &[&str] = &[
    "please", "pls", "now", "also", "just", "quickly", "go", "and",
];

/// Verbs of work on the user's files or machine: a polite question opening with one asks for it.
const WORK: &[&str] = &[
    "add",
    "apply",
    "build",
    "change",
    "commit",
    "create",
    "delete",
    "deploy",
    "edit",
    "fix",
    "implement",
    "install",
    "make",
    "merge",
    "move",
    "push",
    "refactor",
    "remove",
    "rename",
    "replace",
    "revert",
    "rewrite",
    "run",
    "set",
    "update",
    "write",
    "modify",
    "clean",
    "restart",
    "start",
    "stop",
    "kill",
    "drop",
    "upgrade",
    "migrate",
    "generate",
    "convert",
];

/// Whether `read`, a prompt, asks a question (see the module docs).
pub(super) fn asks(read: &Reading) -> bool {
    read.asks() && !asks_for_work(last_sentence(read.prose.trim_end()))
}

/// The last sentence of `prose`: what follows the last sentence end before its own end. A
/// full stop ends a sentence only before a space (`Cargo.toml` holds none); a line end, and the
/// full-width marks, always do.
fn last_sentence(prose: &str) -> &str {
    let body = prose.trim_end_matches(['?', '？']);
    let mut start = 0;
    let mut chars = body.char_indices().peekable();
    while let Some((at, c)) = chars.next() {
        let next = chars.peek().map(|&(_, n)| n);
        let ends = match c {
            '\n' | '。' | '！' | '？' => true,
            '.' | '!' | '?' => next.is_some_and(char::is_whitespace),
            _ => false,
        };
        if ends {
            start = at + c.len_utf8();
        }
    }
    &prose[start..]
}

/// Whether `sentence` asks for work as a polite question ("could you please fix it?").
fn asks_for_work(sentence: &str) -> bool {
    let words = normalize(sentence);
    let mut words = words.split_whitespace().peekable();
    while words
        .peek()
        .is_some_and(|w| matches!(*w, "ok" | "okay" | "so" | "and" | "then" | "hey"))
    {
        words.next();
    }
    let rest: Vec<&str> = words.collect();
    let Some(after) = POLITE.iter().find_map(|form| {
        let n = form.split(' ').count();
        (rest.len() > n && rest[..n].join(" ") == *form).then(|| &rest[n..])
    }) else {
        return false;
    };
    after
        .iter()
        .find(|w| !FILLERS.contains(w))
        .is_some_and(|verb| WORK.contains(verb))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_polite_request_for_work_is_no_question_and_a_request_to_be_told_is_one() {
        for (prompt, question) in [
            ("what does the config do?", true),
            ("Can you explain why the build fails?", true),
            ("Could you check what changed in the last commit?", true),
            ("The tests fail. Why?", true),
            ("Can you edit the config so it uses port 8080?", false),
            ("Could you edit Cargo.toml to pin serde to 1.0.200?", false),
            ("ok, could you please run the tests?", false),
            ("Thanks. Can we just commit this now?", false),
            ("fix the config", false),
            ("Can you edit it. What does this flag do?", true),
            ("この設定は何をしますか？", true),
        ] {
            assert_eq!(asks(&Reading::of(prompt)), question, "{prompt}");
        }
    }
}
