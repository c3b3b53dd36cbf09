//! The secrets with no shape of their own that a project's sessions hold (a password piped to
//! `sudo -S`, a value typed as the answer to a question asking for one), so that whatever the
//! digest prints redacts them wherever they show.

use std::collections::HashSet;
use std::path::{Path, PathBuf};

use crate::scope::Scope;
use reflect_base::fsutil;
use reflect_base::paths::Paths;
use reflect_base::text;
use reflect_store::redact;
use reflect_store::sanitize;
use reflect_transcript::{self as transcript, EventKind, Position};

use super::data::Request;
use super::find::candidates;
use super::noise;

/// The secrets with no shape of their own that the sessions of `cwd`'s project hold, each read
/// whole ([`KnownReader`]): what `--show` redacts in the one session it prints (a password piped
/// to `sudo -S`, or typed as an answer, in one session may be said again in another). A session
/// that cannot be read adds nothing.
pub(super) fn project_secrets(
    paths: &Paths,
    cwd: &Path,
) -> (Vec<(String, &'static str)>, HashSet<PathBuf>) {
    let req = Request {
        scope: Some(Scope::of(cwd)),
        session: None,
        current: None,
        cwd: cwd.to_path_buf(),
        since: None,
        transcripts: Vec::new(),
        budget_tokens: 0,
        model: None,
    };
    let (mut found, mut read) = (Vec::new(), HashSet::new());
    for c in candidates(paths, &req).unwrap_or_default() {
        let Some(path) = &c.transcript else { continue };
        let Ok(Some(mut file)) = fsutil::open_regular(path) else {
            continue;
        };
        read.insert(path.clone());
        let mut reader = KnownReader::default();
        let _ = transcript::read(&mut file, Position::default(), |event| {
            reader.feed(&event.kind, &mut found);
        });
    }
    (found, read)
}

/// Words a command holds where it gives a secret by its context: a password piped to
/// `sudo -S`, a password flag or variable, credentials in a URL, a key or token assigned.
const CONTEXT_WORDS: &[&str] = &[
    "sudo", "pass", "pwd", "pw=", "secret", "token", "key", "auth", "cred", "://", "mysql", "-p",
];

/// Shortest value a command holds that is redacted wherever a prompt holds it: a shorter one
/// ("root", "1234") is as likely a word the user means.
const COMMAND_SECRET_CHARS: usize = 6;

/// Add the secrets `command` holds that have no shape of their own to `found`, each once: a
/// password piped to `sudo -S` or given to a flag, typed alone as a prompt (in this session or
/// another), is known only from here.
pub(super) fn command_secrets(command: &str, found: &mut Vec<(String, &'static str)>) {
    // Only a secret a command names by its context matters here, and most commands name none
    // (the redactor on every command of a month cost the digest a fifth).
    let lower = command.to_ascii_lowercase();
    if !CONTEXT_WORDS.iter().any(|w| lower.contains(w)) {
        return;
    }
    for (value, kind) in redact::findings(command, None) {
        // A value the rules know alone (a token of its own shape) is redacted wherever it is.
        if value.chars().count() >= COMMAND_SECRET_CHARS && redact::redact(&value) == value.as_str()
        {
            add_once(found, &value, kind);
        }
    }
}

/// [`command_secrets`] of a Bash call's command; any other event adds nothing.
pub(super) fn call_secrets(kind: &EventKind, found: &mut Vec<(String, &'static str)>) {
    if let EventKind::ToolUse { name, input, .. } = kind {
        if let Some(command) = input.str_field("command").filter(|_| name == "Bash") {
            command_secrets(&command, found);
        }
    }
}

/// The secrets a session holds with no shape of their own, read from its events one by one:
/// those its Bash commands give by their context ([`call_secrets`]) and a value typed as the
/// answer to a question asking for one (the digest's listing finds these as it reads).
#[derive(Default)]
pub(super) struct KnownReader {
    /// The last line of the assistant's last text and that text's end: what the next prompt
    /// answers (taken by it).
    answering: Option<(Option<String>, String)>,
}

impl KnownReader {
    pub(super) fn feed(&mut self, kind: &EventKind, found: &mut Vec<(String, &'static str)>) {
        match kind {
            EventKind::ToolUse { .. } => call_secrets(kind, found),
            EventKind::AssistantText { text } if !noise::is_harness_reply(text) => {
                let last_line = redact::last_line(text).map(|l| l.into_owned());
                self.answering = Some((
                    last_line,
                    text::tail_words(text, redact::ASKED_BYTES).to_string(),
                ));
            }
            EventKind::UserText { text } if !noise::is_not_a_prompt(text) => {
                let Some((last_line, said)) = self.answering.take() else {
                    return;
                };
                for (value, kind) in answered_secrets(last_line.as_deref(), &said, text) {
                    add_once(found, &value, kind);
                }
            }
            _ => {}
        }
    }
}

/// The secrets `prompt` gives as the answer to the assistant's question asking for one: read
/// only when its `last_line` asks, against the end of what it `said`. Any other secret a
/// prompt holds has the words that name it, and redacting every prompt of a month to find
/// them would cost the digest a fifth.
pub(super) fn answered_secrets(
    last_line: Option<&str>,
    said: &str,
    prompt: &str,
) -> Vec<(String, &'static str)> {
    if last_line.and_then(redact::Asked::of).is_none() {
        return Vec::new();
    }
    redact::Asked::of(text::tail_words(said, redact::ASKED_BYTES))
        .map(|asked| redact::findings(&sanitize::clean(prompt), Some(&asked)))
        .unwrap_or_default()
}

/// Add `value` to `found` unless it holds it already.
pub(super) fn add_once(found: &mut Vec<(String, &'static str)>, value: &str, kind: &'static str) {
    if !found.iter().any(|(v, _)| v == value) {
        found.push((value.to_string(), kind));
    }
}
