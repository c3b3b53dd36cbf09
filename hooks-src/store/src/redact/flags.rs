//! `flag-secret`: a secret given to a command on its command line, found by the flag that takes
//! it: `curl -u user:pass`, `mysql -pPASS`, `docker login -p PASS`, `--password PASS`,
//! `--api-token=TOKEN`.
//!
//! A short flag means a secret only to the commands that define it so (`-p` is a port to
//! `docker run` and `ssh`, "parents" to `mkdir`, "preserve" to `cp`; `-u` is a user to `docker`
//! and `ps`), so a short flag counts only in a command (back to the last newline, `;`, `|`, `&`,
//! `(` or backtick) that names one of [`SHORT`]'s commands. A long flag named for a secret
//! counts in any command.
//!
//! Left alone: a flag without a value (`mysql -p` prompts, and in `mysql -p app` the `app` is a
//! database), placeholders (`-p "$DB_PASS"`, `--token <token>`), another flag after the flag,
//! `curl -u user` (curl prompts for the password), a line continuation (`--disabled-password \`),
//! and a word of prose after a long flag and a blank
//! ([`PROSE_AFTER_FLAG`]: `use the --password flag`).

use std::ops::Range;

use super::scan::{is_blank, ordered, run, run_back, text_of, value_at};
use super::value::{is_path, is_placeholder};

/// How a flag takes its value.
#[derive(Clone, Copy, PartialEq)]
enum Takes {
    /// In the same word: `-pPASS`, `--user=a:b`.
    Glued,
    /// In the next word: `-p PASS`.
    Spaced,
    Either,
}

/// Which part of the value is the secret.
#[derive(Clone, Copy)]
enum Part {
    Whole,
    /// `user:password`: what follows the first `:`.
    AfterColon,
    /// OpenSSL's `pass:password` (its `env:` and `file:` forms name no secret).
    AfterPass,
}

/// A flag that carries a secret for some commands only.
struct Short {
    flag: &'static str,
    /// Command names; `name*` takes every name that starts with `name`.
    commands: &'static [&'static str],
    takes: Takes,
    part: Part,
}

const SHORT: &[Short] = &[
    Short {
        flag: "-p",
        commands: &["mysql*", "mariadb*", "7z", "7za", "7zz", "sshpass"],
        takes: Takes::Glued,
        part: Part::Whole,
    },
    Short {
        flag: "-p",
        // `docker login`, `podman login`, `helm registry login`, …
        commands: &["login", "sshpass", "mongo*"],
        takes: Takes::Spaced,
        part: Part::Whole,
    },
    Short {
        flag: "-u",
        commands: &["curl"],
        takes: Takes::Either,
        part: Part::AfterColon,
    },
    Short {
        flag: "-U",
        commands: &["curl"],
        takes: Takes::Either,
        part: Part::AfterColon,
    },
    Short {
        flag: "--user",
        commands: &["curl"],
        takes: Takes::Either,
        part: Part::AfterColon,
    },
    Short {
        flag: "--proxy-user",
        commands: &["curl"],
        takes: Takes::Either,
        part: Part::AfterColon,
    },
    Short {
        flag: "-a",
        commands: &["redis-cli"],
        takes: Takes::Spaced,
        part: Part::Whole,
    },
    Short {
        flag: "--pass",
        commands: &["redis-cli"],
        takes: Takes::Either,
        part: Part::Whole,
    },
    Short {
        flag: "-P",
        commands: &["zip", "unzip", "sqlcmd"],
        takes: Takes::Spaced,
        part: Part::Whole,
    },
    Short {
        flag: "-k",
        commands: &["openssl"],
        takes: Takes::Spaced,
        part: Part::Whole,
    },
    Short {
        flag: "-passin",
        commands: &["openssl"],
        takes: Takes::Spaced,
        part: Part::AfterPass,
    },
    Short {
        flag: "-passout",
        commands: &["openssl"],
        takes: Takes::Spaced,
        part: Part::AfterPass,
    },
    Short {
        flag: "-pass",
        commands: &["openssl"],
        takes: Takes::Spaced,
        part: Part::AfterPass,
    },
    Short {
        flag: "-password",
        commands: &["openssl"],
        takes: Takes::Spaced,
        part: Part::AfterPass,
    },
    Short {
        flag: "-storepass",
        commands: &["keytool", "jarsigner"],
        takes: Takes::Spaced,
        part: Part::Whole,
    },
    Short {
        flag: "-keypass",
        commands: &["keytool", "jarsigner"],
        takes: Takes::Spaced,
        part: Part::Whole,
    },
];

/// How the name of a long flag that takes a secret in any command ends (`--password`,
/// `--db-password`, `--api-token`, `--client-secret`).
const LONG_ENDINGS: &[&str] = &[
    "password",
    "passwd",
    "passphrase",
    "token",
    "api-key",
    "apikey",
    "secret-key",
    "client-secret",
];

/// Words that follow a long flag's name in prose about it rather than as its value. Any other
/// word after the flag is taken for the secret, even a lowercase one: `docker login --password
/// hunter` leaks otherwise.
const PROSE_AFTER_FLAG: &[&str] = &[
    "flag",
    "flags",
    "option",
    "options",
    "argument",
    "arguments",
    "arg",
    "args",
    "parameter",
    "parameters",
    "param",
    "switch",
    "is",
    "was",
    "are",
    "and",
    "or",
    "to",
    "the",
    "a",
    "an",
    "with",
    "for",
    "in",
    "on",
    "of",
    "from",
    "when",
    "if",
    "instead",
    "only",
    "too",
    "also",
    "then",
    "as",
    "by",
    "not",
    "isnt",
    "doesnt",
    "does",
    "do",
    "will",
    "would",
    "should",
    "must",
    "can",
    "cannot",
    "value",
    "here",
    "there",
    "that",
    "this",
    "which",
    "it",
    "works",
    "fails",
    "failed",
];

/// How the name of a long flag ending so starts when it is a switch, not a value (`--no-password`,
/// `--ask-vault-password`, `--with-token`, adduser's `--disabled-password`).
const SWITCH_STARTS: &[&str] = &[
    "no-",
    "ask-",
    "prompt-",
    "with-",
    "use-",
    "require-",
    "skip-",
    "disabled-",
    "disable-",
];

/// Pre-check: a word that starts with `--`, or with `-` and the letter a [`SHORT`] flag starts
/// with.
pub(super) fn has_cue(text: &[u8]) -> bool {
    memchr::memchr_iter(b'-', text).any(|at| {
        starts_word(text, at)
            && text
                .get(at + 1)
                .is_some_and(|&b| b == b'-' || SHORT.iter().any(|f| f.flag.as_bytes()[1] == b))
    })
}

/// The secrets that flags carry in `text`.
pub(super) fn flag_secrets(text: &[u8]) -> Vec<Range<usize>> {
    let mut found = Vec::new();
    // Whether the text names any command of each [`SHORT`] flag at all: most texts name none,
    // and then no `-p` needs its command looked for.
    let mut named: [Option<bool>; SHORT.len()] = [None; SHORT.len()];
    for at in memchr::memchr_iter(b'-', text) {
        if !starts_word(text, at) {
            continue;
        }
        let name_len = run(text, at, |b| {
            b.is_ascii_alphanumeric() || b == b'-' || b == b'_'
        });
        let name = &text[at..at + name_len];
        if name.len() < 2 || (!name[1].is_ascii_alphabetic() && name[1] != b'-') {
            continue;
        }
        let short = short_flag(text, at, name, &mut named);
        if let Some(secret) = short.or_else(|| long_flag(text, at, name)) {
            found.push(secret);
        }
    }
    ordered(found)
}

/// The secret of a [`SHORT`] flag at `at` (its word is `name`), in a command it applies to;
/// `named` caches whether the text names each flag's commands anywhere.
fn short_flag(
    text: &[u8],
    at: usize,
    name: &[u8],
    named: &mut [Option<bool>; SHORT.len()],
) -> Option<Range<usize>> {
    SHORT.iter().enumerate().find_map(|(n, f)| {
        let flag = f.flag.as_bytes();
        let glued = f.takes != Takes::Spaced;
        let spaced = f.takes != Takes::Glued;
        // `--user`, `-passin`: a value in the same word follows an `=`; `-p`'s follows at once.
        let long = flag.len() > 2;
        let (from, after_blank) = if name == flag {
            match text.get(at + flag.len())? {
                b' ' | b'\t' if spaced => {
                    let blank = at + flag.len();
                    (blank + run(text, blank, is_blank), true)
                }
                b'=' if glued && long => (at + flag.len() + 1, false),
                b'"' | b'\'' if glued && !long => (at + flag.len(), false),
                _ => return None,
            }
        } else if glued && !long && name.starts_with(flag) {
            (at + flag.len(), false)
        } else {
            return None;
        };
        let anywhere = *named[n].get_or_insert_with(|| {
            f.commands
                .iter()
                .any(|c| memchr::memmem::find(text, c.trim_end_matches('*').as_bytes()).is_some())
        });
        if !anywhere || !in_command(text, at, f.commands) {
            return None;
        }
        let value = flag_value(text, from)?;
        // `-p -h db`: another flag, not a value.
        if after_blank && value.start == from && text[from] == b'-' {
            return None;
        }
        secret_part(text, value, f.part)
    })
}

/// The secret of a long flag named for one (see [`LONG_ENDINGS`]), in any command.
fn long_flag(text: &[u8], at: usize, name: &[u8]) -> Option<Range<usize>> {
    let flag = text_of(name).strip_prefix("--")?.to_ascii_lowercase();
    if !LONG_ENDINGS.iter().any(|e| flag.ends_with(e))
        || SWITCH_STARTS.iter().any(|s| flag.starts_with(s))
    {
        return None;
    }
    let after = at + name.len();
    match text.get(after)? {
        b'=' => {
            let value = flag_value(text, after + 1)?;
            secret_part(text, value, Part::Whole)
        }
        b' ' | b'\t' => {
            let from = after + run(text, after, is_blank);
            let value = flag_value(text, from)?;
            let quoted = value.start > from;
            let v = text_of(&text[value.clone()]);
            let word = v.trim_end_matches([',', '.', ':', '!', '?']);
            // Prose about the flag ("the --password flag"). mysql's `--password app` prompts and
            // takes `app` for the database, but a reader cannot tell that from a password given
            // to another tool, so it is redacted too: hiding a name costs less than a leak.
            if !quoted && (v.starts_with('-') || PROSE_AFTER_FLAG.contains(&word) || is_path(v)) {
                return None;
            }
            secret_part(text, value, Part::Whole)
        }
        _ => None,
    }
}

/// The value starting at `at`: a quoted string (closed on its line and ending its word), or a
/// bare word other than a lone `\` (a line continuation: `adduser --disabled-password \`).
fn flag_value(text: &[u8], at: usize) -> Option<Range<usize>> {
    match *text.get(at)? {
        b'"' | b'\'' => {
            let (value, _) = value_at(text, at)?;
            let ends_word = text.get(value.end + 1).is_none_or(|&b| ends_bare(b));
            ends_word.then_some(value)
        }
        _ => {
            let value = at..at + run(text, at, |b| !ends_bare(b));
            (&text[value.clone()] != b"\\").then_some(value)
        }
    }
}

/// Where a bare command-line word ends.
fn ends_bare(b: u8) -> bool {
    b.is_ascii_whitespace() || b";|&)`\"'".contains(&b)
}

/// The part of `value` that is the secret, unless it is empty or a placeholder.
fn secret_part(text: &[u8], value: Range<usize>, part: Part) -> Option<Range<usize>> {
    let v = &text[value.clone()];
    let start = match part {
        Part::Whole => value.start,
        Part::AfterColon => value.start + memchr::memchr(b':', v)? + 1,
        Part::AfterPass => value.start + v.starts_with(b"pass:").then_some(5)?,
    };
    let secret = start..value.end;
    (!secret.is_empty() && !is_placeholder(text_of(&text[secret.clone()]))).then_some(secret)
}

/// Whether `at` starts a word (a flag follows a blank, a quote or an opening bracket).
fn starts_word(text: &[u8], at: usize) -> bool {
    at == 0 || text[at - 1].is_ascii_whitespace() || b"\"'([".contains(&text[at - 1])
}

/// Whether the command `at` is part of names one of `commands` (its words read back to the start
/// of the command, at most a line's worth).
fn in_command(text: &[u8], at: usize, commands: &[&str]) -> bool {
    const LOOK_BACK: usize = 1024;
    let floor = at.saturating_sub(LOOK_BACK);
    let start = at - run_back(&text[floor..], at - floor, |b| !b"\n;|&(`".contains(&b));
    text[start..at]
        .split(|b| b.is_ascii_whitespace() || b"\"'=:,{[".contains(b))
        .filter(|w| !w.is_empty())
        .any(|word| {
            let word = after_line_number(word);
            let base = word.rsplit(|&b| b == b'/').next().unwrap_or(word);
            commands.iter().any(|c| match c.strip_suffix('*') {
                Some(prefix) => base.starts_with(prefix.as_bytes()),
                None => base == c.as_bytes(),
            })
        })
}

/// How Claude Code's Read numbers a line of a file (`63→sshpass -p …`), its arrow as written,
/// percent-encoded and JSON-escaped (the view decodes ASCII escapes only).
const LINE_NUMBER_ARROWS: &[&str] = &["→", "%E2%86%92", "%e2%86%92", "\\u2192"];

/// `word` after the arrow of a line number that starts it (`63→sshpass`: `sshpass`).
fn after_line_number(word: &[u8]) -> &[u8] {
    let digits = word.iter().take_while(|b| b.is_ascii_digit()).count();
    LINE_NUMBER_ARROWS
        .iter()
        .find_map(|arrow| word[digits..].strip_prefix(arrow.as_bytes()))
        .filter(|_| digits > 0)
        .unwrap_or(word)
}
