//! One line read as code, a log, a trace or a terminal's output rather than a sentence of the
//! user's: each kind its own small rule, kept narrow so a sentence with the same words stays
//! the user's.

/// Where a log's line led by a bracketed tag ([`bracketed_tag`]) begins inside a line of words:
/// `it fails again [1750000000.1] Loading store`.
pub(super) fn tagged_log(line: &str) -> Option<usize> {
    line.match_indices(" [").map(|(at, _)| at + 1).find(|&at| {
        let rest = &line[at..];
        bracketed_tag(rest.split_whitespace().next().unwrap_or("")) && reads_as_code_or_log(rest)
    })
}

/// A character only a terminal's output holds: box drawing (`└ ├ ╭ ─`), block elements and a
/// braille spinner's frames (`⠋ ⠹`). Not a box's sides (`│`): a terminal draws them around any
/// text, the user's own prompt too, so a framed line is judged by what it frames.
pub(super) fn terminal_glyph(c: char) -> bool {
    matches!(c, '\u{2500}'..='\u{259F}' | '\u{2800}'..='\u{28FF}') && !BOX_SIDES.contains(c)
}

/// Where a program's status line begins inside a line of words: a [`STATUS_GLYPHS`] glyph, a
/// space and a capital (`… once more ● Running the checks`), as a terminal prints a step
/// pasted after the user's words.
pub(super) fn status_step(line: &str) -> Option<usize> {
    line.match_indices(STATUS_GLYPHS)
        .find(|(at, g)| {
            let mut after = line[at + g.len()..].chars();
            after.next() == Some(' ') && after.next().is_some_and(char::is_uppercase)
        })
        .map(|(at, _)| at)
}

/// The glyphs a program's status line starts with, none a person types: systemd's unit
/// (`● nginx.service - …`) and Claude Code's own steps (`● Update(src/app.ts)`, `⏺ Done.`,
/// `⎿ Read 3 lines`), which a user copies from the terminal.
const STATUS_GLYPHS: [char; 3] = ['●', '⏺', '⎿'];

/// Words that open a line of a log.
const LOG_LEVELS: &[&str] = &[
    "ERROR", "ERR!", "WARN", "WARNING", "INFO", "DEBUG", "TRACE", "FATAL", "CRITICAL", "PANIC",
];
/// How a line of a stack trace starts, across languages.
const TRACE_STARTS: &[&str] = &[
    "File \"",
    "Traceback (most recent call last)",
    "Caused by:",
    "Stack trace:",
    "Exception in thread",
    "goroutine ",
    "thread '",
    "--> ",
    // A terminal's banner.
    "Last login: ",
];

/// A line of a config or a dump, `key: value` with a short value or none: with a key no word
/// is (`max_size: 10`, `app.name:`), or indented with a value (`  driver: local`). Not
/// `Note: …`, nor an indented word and a colon alone: a terminal indents the user's own
/// wrapped prompt too ("… tell me if you\n  need:").
pub(super) fn key_value(line: &str) -> bool {
    let t = line.trim().trim_start_matches("- ");
    let Some((key, value)) = t.split_once(':') else {
        return false;
    };
    !key.is_empty()
        && key
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || "_.-".contains(c))
        && (value.is_empty() || value.starts_with(' ') && value.split_whitespace().count() <= 3)
        && (key.contains(['_', '.', '-']) || line.starts_with([' ', '\t']) && !value.is_empty())
}

/// A shell's prompt and the command typed after it: `$ npm test`, `❯ ls`, `dev@box:~/app$ make`,
/// `[dev@box ~]$ exit`, tcsh's `box:~/app> make`, macOS zsh's `dev@box app % make`, PowerShell's
/// `PS C:\app> dir`, each maybe after a virtualenv's name (`(venv) dev@box:~$`); not words of
/// the user's typed after a prompt left empty (five or more, no flag, path or operator among them).
pub(super) fn shell_prompt(t: &str) -> bool {
    // A virtualenv's or conda's name, one word in parentheses, comes before the prompt.
    let t = match t.strip_prefix('(').and_then(|r| r.split_once(") ")) {
        Some((env, rest)) if !env.is_empty() && !env.contains(char::is_whitespace) => rest,
        _ => t,
    };
    let words: Vec<&str> = t.split_whitespace().collect();
    let first = words.first().copied().unwrap_or("");
    let closes = |w: &str| w.ends_with("]$") || w.ends_with("]#");
    // How many words the prompt takes.
    let bracketed = first.starts_with('[') && first.contains('@');
    let taken = if matches!(first, "$" | "❯" | "➜" | "%")
        || (first.contains('@') && first.ends_with(['$', '#']) && first.len() > 2)
        || host_path_prompt(first)
        || (bracketed && closes(first))
    {
        1
    } else if bracketed && words.get(1).is_some_and(|w| closes(w)) {
        2
    } else if first.contains('@') && words.get(2) == Some(&"%") {
        3
    } else if first == "PS" && words.get(1).is_some_and(|w| drive(w)) {
        match words.iter().position(|w| w.ends_with('>')) {
            Some(k) => k + 1,
            None => return false,
        }
    } else {
        return false;
    };
    let rest = &words[taken..];
    let prose = rest.len() >= 5
        && rest
            .iter()
            .all(|w| !w.starts_with('-') && !w.contains(['/', '=', '|', '$', '~', ':', '@', '>']));
    !prose
}

/// tcsh's and SUSE's prompt: a host, `:`, a path from `~` or `/`, and `>` (`box:~/app>`).
pub(super) fn host_path_prompt(word: &str) -> bool {
    let Some(path) = word.strip_suffix('>') else {
        return false;
    };
    path.split_once(':').is_some_and(|(host, dir)| {
        !host.is_empty()
            && host
                .chars()
                .all(|c| c.is_ascii_alphanumeric() || "._-".contains(c))
            && dir.starts_with(['~', '/'])
    })
}

/// A Windows drive's path: `C:\`, `D:\work`.
fn drive(word: &str) -> bool {
    let b = word.as_bytes();
    b.len() >= 3 && b[0].is_ascii_alphabetic() && b[1] == b':' && b[2] == b'\\'
}

/// A path and nothing else, maybe as a list's item or a quoted string: `/opt/tool/bin/x`,
/// `- /srv/app/dist/index.js`, `node:internal/modules/loader:12`.
fn lone_path(t: &str) -> bool {
    let t = t.trim_start_matches(['-', '*', ' ']);
    // A line's end `\` is how some terminals show a line break typed in a prompt.
    let t = t.trim_end_matches(['\\', ',']).trim_matches(['\'', '"']);
    !t.is_empty()
        && !t.contains(char::is_whitespace)
        && t.chars().filter(|&c| c == '/' || c == '\\').count() >= 2
}

/// A program's name and version, as a tool prints it: `Node.js v25.2.1`, `Python 3.12.1`.
fn version_banner(t: &str) -> bool {
    let words: Vec<&str> = t.split_whitespace().collect();
    words.len() == 2 && {
        let v = words[1].trim_start_matches('v');
        v.split('.').count() >= 3 && v.split('.').all(|n| n.parse::<u32>().is_ok())
    }
}

/// A package manager's own log line: `npm warn deprecated …`, `npm ERR! …`, `pnpm WARN …`,
/// `yarn warn …`. Not `npm info`, `npm http`: commands a user types too.
fn package_manager_line(t: &str) -> bool {
    let mut words = t.split_whitespace();
    matches!(words.next(), Some("npm" | "yarn" | "pnpm"))
        && matches!(
            words.next(),
            Some(
                "warn"
                    | "WARN"
                    | "notice"
                    | "ERR!"
                    | "error"
                    | "ERROR"
                    | "verb"
                    | "timing"
                    | "sill"
            )
        )
}

/// How a line of a Linux distribution's login banner (motd) or update notice starts.
const MOTD_STARTS: &[&str] = &[
    "Welcome to Ubuntu ",
    "System information as of ",
    "* Documentation:",
    "* Management:",
    "* Support:",
    "Expanded Security Maintenance for ",
    "To see these additional updates run:",
    "Learn more about enabling ESM ",
    "Enable ESM Apps to receive ",
    "*** System restart required ***",
    "New release '",
    "Run 'do-release-upgrade'",
    "A newer release of \"",
    "Run \"/usr/bin/dnf check-release-update\"",
    "The programs included with the Debian GNU/Linux system",
    "Debian GNU/Linux comes with ABSOLUTELY NO WARRANTY",
];
/// What follows the count in a banner's update notice (`12 updates can be applied immediately.`).
const MOTD_COUNTED: &[&str] = &[
    "update can be applied",
    "updates can be applied",
    "of these updates ",
    "additional security update",
    "package can be updated",
    "packages can be updated",
    "update is a security update",
    "updates are security updates",
];

/// A line of a login banner or an update notice ([`MOTD_STARTS`], [`MOTD_COUNTED`]).
fn motd_line(t: &str) -> bool {
    let counted = t
        .split_once(' ')
        .is_some_and(|(n, rest)| is_number(n) && MOTD_COUNTED.iter().any(|s| rest.starts_with(s)));
    counted || MOTD_STARTS.iter().any(|s| t.starts_with(s))
}

/// A field of `systemctl status`, known by its name and the shape of its value:
/// `Loaded: loaded (…)`, `Active: active (running) since …`, `Main PID: 42 (nginx)`,
/// `CGroup: /system.slice/…`, `Memory: 5.1M`. Not "Active: yes, …" nor "Status: done":
/// a person's own notes use those names too.
fn systemd_status(t: &str) -> bool {
    let Some((key, value)) = t.split_once(": ") else {
        return false;
    };
    let value = value.trim_start();
    let first = value.split_whitespace().next().unwrap_or("");
    // A size or a time as systemd prints it: `5.1M`, `30ms`, `1min 2.5s`.
    let measure = || {
        let unit = first.trim_start_matches(|c: char| c.is_ascii_digit() || c == '.');
        unit.len() < first.len()
            && !unit.is_empty()
            && unit.chars().all(|c| c.is_ascii_alphabetic())
    };
    match key {
        "Loaded" => matches!(
            first,
            "loaded" | "not-found" | "masked" | "error" | "bad-setting"
        ),
        "Active" => matches!(
            first,
            "active" | "inactive" | "failed" | "activating" | "deactivating" | "reloading"
        ),
        "Main PID" => is_number(first),
        "Tasks" => is_number(first) && value.contains("(limit:"),
        "CGroup" => first.starts_with('/'),
        "Docs" => first.starts_with("man:"),
        "Memory" | "CPU" => measure(),
        _ => false,
    }
}

/// Month names as syslog writes them.
pub(super) const MONTHS: [&str; 12] = [
    "Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec",
];

/// A line of syslog or the journal: `Nov 20 10:00:01 host nginx[42]: …` (a month, a day, a
/// time, a host and the program with a colon).
fn syslog_line(t: &str) -> bool {
    let mut words = t.split_whitespace();
    let (Some(month), Some(day), Some(time), Some(_host), Some(program)) = (
        words.next(),
        words.next(),
        words.next(),
        words.next(),
        words.next(),
    ) else {
        return false;
    };
    MONTHS.contains(&month)
        && day.len() <= 2
        && is_number(day)
        && time.len() == 8
        && time.split(':').count() == 3
        && time.split(':').all(is_number)
        && program.ends_with(':')
}

/// Whether `s` is digits only (and some).
pub(super) fn is_number(s: &str) -> bool {
    !s.is_empty() && s.bytes().all(|b| b.is_ascii_digit())
}

/// Whether `file` ends in a file's name with an extension (`app.ts`, `chunk-9F.js?v=3`).
fn has_extension(file: &str) -> bool {
    let name = file.rsplit(['/', '\\']).next().unwrap_or(file);
    let name = name.split('?').next().unwrap_or(name);
    name.rsplit_once('.').is_some_and(|(stem, ext)| {
        !stem.is_empty()
            && (1..=5).contains(&ext.len())
            && ext.chars().all(|c| c.is_ascii_alphanumeric())
            && ext.chars().any(|c| c.is_ascii_alphabetic())
    })
}

/// A word that is a place in a source file: `src/app.ts:10:5`, `bundle-3F9A.js:38`,
/// `Form.cs(10,5):`. Its count of numbers (line, column) and what follows them in the word.
fn source_location(word: &str) -> Option<(usize, &str)> {
    if let Some((file, rest)) = word.split_once('(') {
        let (inside, after) = rest.split_once(')')?;
        let numbers = inside.split(',').filter(|n| is_number(n)).count();
        return (has_extension(file) && numbers == inside.split(',').count())
            .then_some((numbers, after));
    }
    // The first colon a digit follows: a Windows drive's (`C:\`) and a URL's (`https:`) come
    // before it.
    let colon = word
        .match_indices(':')
        .map(|(at, _)| at)
        .find(|&at| word[at + 1..].starts_with(|c: char| c.is_ascii_digit()))?;
    if !has_extension(&word[..colon]) {
        return None;
    }
    let mut rest = &word[colon + 1..];
    let mut numbers = 0;
    loop {
        let digits = rest.bytes().take_while(u8::is_ascii_digit).count();
        numbers += 1;
        rest = &rest[digits..];
        match rest.strip_prefix(':') {
            Some(more) if more.starts_with(|c: char| c.is_ascii_digit()) => rest = more,
            _ => return Some((numbers, rest)),
        }
    }
}

/// A compiler's, a linter's or a browser console's line, a place in a source file first:
/// `src/app.ts:10:5 - error …`, `main.go:12: undefined: x`, `Form.cs(10,5): error …`, an ESLint
/// row (`10:5  error  …`), a console's `store.js:41 Store ready`. A file's line alone before
/// words is the console's only when they do not read as the user's own sentence about it
/// ("app.py:42 should log this", "app.py:42 Why is it null?").
fn diagnostic(t: &str) -> bool {
    let t = t.trim_start();
    let mut words = t.split_whitespace();
    let first = words.next().unwrap_or("");
    let second = words.next();
    if let Some((line, col)) = first.split_once(':') {
        if is_number(line) && is_number(col) && matches!(second, Some("error" | "warning")) {
            return true;
        }
    }
    let Some((numbers, after)) = source_location(first) else {
        return false;
    };
    let rest = t[first.len()..].trim();
    match after {
        ":" => true,
        "" if numbers >= 2 => true,
        "" => {
            numbers == 1
                && rest.chars().next().is_some_and(|c| !c.is_lowercase())
                && !rest.ends_with('?')
        }
        _ => false,
    }
}

/// A stack frame as a browser's console prints it: `fetchAll @ bundle-3F9A.js:120`,
/// `(anonymous) @ store.js:41`.
fn console_frame(t: &str) -> bool {
    t.split_once(" @ ").is_some_and(|(name, at)| {
        name.split_whitespace().count() <= 3
            && at
                .split_whitespace()
                .next()
                .and_then(source_location)
                .is_some()
    })
}

/// A log's tag in brackets that no sentence starts with: a level in any case, as a browser's
/// console prints it (`[Warning]`, `[Log]`), or a [`unix_time`].
fn bracketed_tag(word: &str) -> bool {
    unix_time(word)
        || word
            .strip_prefix('[')
            .and_then(|w| w.strip_suffix(']'))
            .is_some_and(|level| {
                let upper = level.to_ascii_uppercase();
                LOG_LEVELS.contains(&upper.as_str()) || upper == "LOG"
            })
}

/// A log line's Unix time in brackets, `[2034567890.125]`, also with its `[` lost to a copy that
/// began one character late: a word no sentence holds, whatever follows it.
fn unix_time(word: &str) -> bool {
    let Some(time) = word.strip_suffix(']') else {
        return false;
    };
    let time = time.strip_prefix('[').unwrap_or(time);
    let (secs, fraction) = time.split_once('.').unwrap_or((time, "0"));
    secs.len() >= 10 && is_number(secs) && is_number(fraction)
}

/// A line (trimmed at its start) that reads as code, a log or a stack trace.
pub(super) fn reads_as_code_or_log(t: &str) -> bool {
    let t = t.trim_end();
    if t.is_empty() {
        return false;
    }
    // A service's line as `docker compose` prints it: `db-1  | LOG: ready`.
    if let Some((name, rest)) = t.split_once(" |") {
        let name = name.trim();
        if !name.is_empty()
            && name.contains(['-', '_'])
            && name
                .chars()
                .all(|c| c.is_ascii_alphanumeric() || "-_.".contains(c))
            && (rest.trim().is_empty() || reads_as_code_or_log(rest.trim_start()))
        {
            return true;
        }
    }
    // A frame `at f (file:1:2)` or `at pkg.Class.f(File.java:10)`, not "at least …".
    let frame = t.strip_prefix("at ").is_some_and(|rest| {
        t.ends_with(')')
            || rest
                .split_whitespace()
                .next()
                .is_some_and(|w| w.contains([':', '/']))
    });
    if frame
        || TRACE_STARTS.iter().any(|s| t.starts_with(s))
        || t.contains(terminal_glyph)
        || shell_prompt(t)
        || lone_path(t)
        || version_banner(t)
        || t.starts_with(STATUS_GLYPHS)
        || CLAUDE_STEPS.iter().any(|s| t.starts_with(s))
        || package_manager_line(t)
        || motd_line(t)
        || systemd_status(t)
        || syslog_line(t)
        || diagnostic(t)
        || console_frame(t)
    {
        return true;
    }
    // A timestamp after a log's tags: `[I 2026-11-20 10:00:01,120]`, `[Nest] 42  - 11/20/2026, …`.
    let stamped = t
        .split_whitespace()
        .take(4)
        .take_while(|w| !w.chars().all(char::is_alphabetic))
        .any(|w| {
            let w = w.trim_matches(|c: char| !c.is_ascii_digit());
            w.bytes().filter(u8::is_ascii_digit).count() >= 4
                && w.contains(['-', '/', ':'])
                && w.chars()
                    .all(|c| c.is_ascii_digit() || "-/:.,TZ".contains(c))
        });
    if stamped {
        return true;
    }
    // A timestamp or a log level first: `2026-11-20 10:00:01 …`, `[INFO] …`, `E1120 10:00 …`.
    let first = t.split_whitespace().next().unwrap_or("");
    let bare = first.trim_matches(|c: char| matches!(c, '[' | ']' | ':' | '(' | ')'));
    if LOG_LEVELS.contains(&bare) || LOG_LEVELS.contains(&bare.split('[').next().unwrap_or("")) {
        return true;
    }
    // A Unix time whatever follows it; a level with words after it, not a sentence of the user's
    // that names one ("[Warning] is what it should say", "… not [Error]").
    let next = t.trim_start()[first.len()..].trim_start().chars().next();
    if unix_time(first) || (bracketed_tag(first) && next.is_some_and(|c| !c.is_lowercase())) {
        return true;
    }
    // An error's own first line: `TypeError: …`, `error[E0308]: …`, `java.io.IOException: …`.
    let kind = first.split('[').next().unwrap_or("").trim_end_matches(':');
    if first.ends_with(':')
        && ["Error", "error", "Exception", "Warning", "warning"]
            .iter()
            .any(|e| kind.ends_with(e))
        && kind
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || c == '.' || c == '_')
    {
        return true;
    }
    let digits = first.bytes().filter(u8::is_ascii_digit).count();
    if digits >= 4 && first.bytes().any(|b| matches!(b, b'-' | b':' | b'/')) {
        return true;
    }
    if t.ends_with([';', '{', '}'])
        || ["*/", "=>", "',", "\",", "),", "],", "},"]
            .iter()
            .any(|end| t.ends_with(end))
    {
        return true;
    }
    // Dense with code's symbols.
    let (mut symbols, mut all) = (0usize, 0usize);
    for c in t.chars().filter(|c| !c.is_whitespace()) {
        all += 1;
        if "{}[]()<>;=_/\\|$#*`\"&%~^+:".contains(c) {
            symbols += 1;
        }
    }
    symbols >= 4 && symbols * 100 >= all * 18
}

/// How Claude Code's terminal shows one of its own steps, when the copy lost the glyph before
/// it: the tool's name and its arguments (`Bash(npm test)`, `Update(src/app.ts)`).
pub(super) const CLAUDE_STEPS: &[&str] = &[
    "Bash(",
    "Read(",
    "Write(",
    "Edit(",
    "MultiEdit(",
    "Update(",
    "Search(",
    "Grep(",
    "Glob(",
    "Task(",
    "Fetch(",
    "WebFetch(",
    "WebSearch(",
];

/// The sides of a terminal's box.
pub(super) const BOX_SIDES: &str = "│┃║";
