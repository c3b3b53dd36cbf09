//! `memory-store digest --show SESSION:LINE`: one prompt the digest listed (cut to its likeliest
//! sentence), in full, redacted like everything the digest prints. The session's transcript is
//! found as the digest finds it: through capture's cursor, else under `<config dir>/projects/`.

use std::fmt::Write as _;
use std::path::Path;

use reflect_base::error::{Error, IoContext, Result};
use reflect_base::fsutil;
use reflect_base::paths::Paths;
use reflect_store::redact;
use reflect_store::sanitize;
use reflect_transcript::{self as transcript, EventKind, Position};

use super::{find_transcript, line_starts, load_cursor};

/// What `--show` was given: a session and a 1-based line, as the digest names them
/// (`## session SID` and `L<line>`).
pub fn parse(arg: &str) -> Result<(String, u64)> {
    let bad = || {
        Error::usage(format!(
            "invalid --show '{arg}': expected SESSION:LINE (the session of a digest heading, the line of its L<line>)"
        ))
    };
    let (session, line) = arg.rsplit_once(':').ok_or_else(bad)?;
    let line = line.trim_start_matches('L');
    let line: u64 = line.parse().ok().filter(|&l| l > 0).ok_or_else(bad)?;
    if session.is_empty() {
        return Err(bad());
    }
    Ok((session.to_string(), line))
}

/// The prompt on `line` of `session`'s transcript, in full (as far as the transcript reader
/// keeps a prompt), redacted, under a heading that names it.
pub fn show(paths: &Paths, session: &str, line: u64, cwd: &Path) -> Result<String> {
    let transcript = load_cursor(paths, session)
        .and_then(|c| c.transcript)
        .or_else(|| find_transcript(paths, session, cwd))
        .ok_or_else(|| {
            Error::msg(format!(
                "no transcript of session {session} (capture has not recorded it, and Claude Code's projects folder holds none of that name)"
            ))
        })?;
    let Some(mut file) = fsutil::open_regular(&transcript)? else {
        return Err(Error::msg(format!(
            "the transcript of session {session} is gone ({})",
            transcript.display()
        )));
    };
    let [start] = line_starts(&file, [line - 1]).ctx("cannot read", &transcript)?;
    let not_there = || {
        Error::msg(format!(
            "line {line} of session {session} is not a prompt the user typed"
        ))
    };
    let start = start.ok_or_else(not_there)?;
    let mut found = None;
    transcript::read(
        &mut file,
        Position {
            offset: start,
            line: line - 1,
        },
        |event| {
            if let (true, None, EventKind::UserText { text }) =
                (event.line == line, &found, &event.kind)
            {
                found = Some((text.clone(), event.timestamp.clone()));
            }
        },
    )
    .ctx("cannot read", &transcript)?;
    let (text, timestamp) = found.ok_or_else(not_there)?;
    let mut out = format!("## session {session} · L{line}");
    if let Some(t) = timestamp {
        let _ = write!(out, " · {t}");
    }
    out.push('\n');
    // Cleaned before redaction: a zero-width character inside a token would hide it.
    out.push_str(redact::redact(&sanitize::clean(&text)).trim_end());
    out.push('\n');
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn show_arguments_name_a_session_and_a_line() {
        assert_eq!(parse("abc-1:12").unwrap(), ("abc-1".to_string(), 12));
        assert_eq!(parse("abc:L7").unwrap(), ("abc".to_string(), 7));
        for bad in ["abc", "abc:0", ":3", "abc:x", "abc:-1"] {
            assert!(parse(bad).is_err(), "{bad}");
        }
    }
}
