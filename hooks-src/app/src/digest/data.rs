//! What a digest is asked for and what it finds (the types the other modules share), and the
//! limits of what it holds.

use std::collections::{HashMap, HashSet};
use std::fmt;
use std::path::PathBuf;
use std::str::FromStr;
use std::sync::Arc;
use std::time::SystemTime;

use chrono::{DateTime, Utc};

use crate::cursor::Reviewed;
use crate::scope::Scope;
use reflect_base::error::{Error, Result};
use reflect_detect::model::Model;
use reflect_detect::text::Situation;
use reflect_transcript::Position;

use super::refusals;

/// What the listed prompts may take by default, in tokens (characters / 4).
pub const DEFAULT_BUDGET_TOKENS: usize = 4000;
/// Longest prompt text listed.
pub const TEXT_CHARS: usize = 200;
/// Longest quote of what the assistant had just said: its last sentence, mostly, which is what
/// a short reply answers (a question, a plan, "done"); each listed prompt pays for it.
pub const ANSWERING_CHARS: usize = 60;
/// A prompt this long says what it means by itself: the text format leaves out what it answered
/// (`--show` has it). Over the review packages the quotes were a fifth of the gathered text
/// when every prompt under 150 characters had one.
pub(super) const SELF_CONTAINED_CHARS: usize = 100;
/// How much of the assistant's last line is kept while reading.
pub(super) const TAIL_BYTES: usize = 2048;
/// How much of what the assistant wrote in a turn is kept for the prompt after it: the lines
/// of it a prompt quotes back are not the user's words ([`excerpt`]).
///
/// [`excerpt`]: reflect_detect::excerpt::excerpt
pub(super) const SAID_BYTES: usize = 16 << 10;
/// The shortest a listed prompt's line can be: with less budget left, nothing more is weighed.
pub(super) const SHORTEST_LINE: usize = 12;
/// The places of a prompt typed again a line names; more are `…`.
pub(super) const AGAIN_PLACES: usize = 3;
/// After this many prompts in a row that did not fit what the budget has left, the rest are
/// left out unweighed: each weighing redacts and cuts a prompt, and a heavy month holds thousands
/// that would each miss a gap of a few characters.
pub(super) const MISSES_IN_A_ROW: usize = 16;
/// Threads reading transcripts at once.
pub(super) const MAX_THREADS: usize = 4;
/// The last tool calls of a turn the digest keeps by id, to name the one the user refused.
pub(super) const CALLS_KEPT: usize = 16;
/// Directories a session's heading names besides its project dir; more are counted.
pub(super) const WORKED_IN_SHOWN: usize = 2;

/// What to list.
#[derive(Debug)]
pub struct Request {
    /// The project whose sessions are listed; `None` lists every project's.
    pub scope: Option<Scope>,
    /// Only this session.
    pub session: Option<String>,
    /// The session `/reflect` runs in: listed even before capture has recorded it.
    pub current: Option<String>,
    /// The directory the command runs in: the current session's project when capture has not
    /// recorded one, and where its transcript is looked for first.
    pub cwd: PathBuf,
    /// Only prompts typed since then (and sessions active since then).
    pub since: Option<DateTime<Utc>>,
    /// Read these transcripts instead of finding the sessions.
    pub transcripts: Vec<PathBuf>,
    pub budget_tokens: usize,
    /// The classifier that ranks and cuts the prompts, when not the shipped one: the lab's
    /// leave-one-repository-out review passes one trained without the sessions' repository.
    pub model: Option<&'static Model>,
}

/// How far one session was looked at: every prompt up to `line`, and the prompts on the lines
/// `seen` after it (`memory-store digest --mark SESSION:LINE:TURN` spells out one without them).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Mark {
    pub session: String,
    /// Every prompt up to this line was looked at (or needs no look).
    pub line: u64,
    /// The line the turn in progress at `line` began at (its prompt), where the next digest
    /// resumes so that the first new prompt is read with what it answers; `line + 1` when none.
    pub turn: u64,
    /// Prompts after `line` that were listed: a prompt the budget left out stops `line` before
    /// it, so that it stays unread, and the ones listed after it are not listed again.
    pub seen: Vec<u64>,
}

impl fmt::Display for Mark {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}:{}:{}", self.session, self.line, self.turn)
    }
}

impl FromStr for Mark {
    type Err = Error;
    fn from_str(text: &str) -> Result<Mark> {
        let bad =
            || Error::usage("invalid mark: expected SESSION:LINE:TURN, as the digest prints it");
        let mut parts = text.rsplitn(3, ':');
        let turn: u64 = parts.next().and_then(|p| p.parse().ok()).ok_or_else(bad)?;
        let line: u64 = parts.next().and_then(|p| p.parse().ok()).ok_or_else(bad)?;
        let session = parts.next().filter(|s| !s.is_empty()).ok_or_else(bad)?;
        if turn == 0 || turn > line + 1 {
            return Err(bad());
        }
        Ok(Mark {
            session: session.to_string(),
            line,
            turn,
            seen: Vec::new(),
        })
    }
}

/// One prompt as the digest lists it (redacted and cut).
#[derive(Debug, Clone, PartialEq)]
pub struct Shown {
    /// 1-based transcript line, as a signal's `source.line`.
    pub line: u64,
    pub uuid: Option<String>,
    pub timestamp: Option<String>,
    pub text: String,
    /// The end of what the assistant had said (or done) just before.
    pub answering: String,
    /// The classifier's probability that it is a learning moment.
    pub probability: f64,
    /// Where it was typed again, in listing order: another turn, so another sighting
    /// ([`Again`]).
    pub again: Vec<Again>,
    /// All or most of it was pasted (a log, a file, a trace): `text` is its start, or the user's
    /// few words around the paste.
    pub pasted: bool,
}

impl Shown {
    /// How often the same text was typed in the sessions read (1: once).
    pub fn typed(&self) -> usize {
        self.again.len() + 1
    }
}

/// Where a prompt listed once was typed again: the line, and the session when it is another.
#[derive(Debug, Clone, PartialEq)]
pub struct Again {
    pub session: Option<String>,
    pub line: u64,
}

/// A session with prompts listed.
#[derive(Debug, Clone, PartialEq)]
pub struct Listed {
    pub session: String,
    /// The sessions whose conversation its file goes on with (a resume): `same conversation
    /// as …`; the prompts it copied from them are listed in them.
    pub continues: Vec<String>,
    pub project: Option<String>,
    /// Where it worked besides its project dir ([`worked_in`]), as printed; `None` when it
    /// stayed there.
    ///
    /// [`worked_in`]: super::list::worked_in
    pub worked_in: Option<String>,
    /// When the user last typed in it ([`SessionRead::time`]), `YYYY-MM-DD HH:MM` UTC.
    pub last_active: Option<String>,
    pub prompts: Vec<Shown>,
}

/// What a digest found.
#[derive(Debug, Default)]
pub struct Digest {
    /// Sessions with something listed, newest first.
    pub sessions: Vec<Listed>,
    /// Sessions found (read, gone or failed).
    pub sessions_found: usize,
    /// Sessions with something new read.
    pub sessions_read: usize,
    /// Prompts that did not fit the budget.
    pub left_out: usize,
    pub budget_tokens: usize,
    /// Approvals and bare continues left out.
    pub bare: usize,
    /// Prompts typed again (listed once).
    pub repeats: usize,
    /// Prompts a signal already points at.
    pub stored: usize,
    /// Sessions whose transcript is gone.
    pub gone: Vec<String>,
    /// Sessions read that capture never recorded (from before it was on, or while it was off).
    pub history: usize,
    /// Sessions whose transcript could not be read, and why.
    pub failed: Vec<(String, String)>,
    /// Where to mark each session read to.
    pub marks: Vec<Mark>,
    /// The root of the project listed (none for every project's): a heading names a session's
    /// project only when it is another directory.
    pub root: Option<String>,
    /// The name the marks were saved under ([`Digest::save_marks`]): what `--mark` takes.
    pub saved_as: Option<String>,
    /// Programs the user refused without a reason in more than one of the sessions read.
    pub refused: Vec<refusals::Refused>,
}

/// A session to read.
#[derive(Debug, Clone)]
pub(super) struct Candidate {
    pub(super) session: String,
    pub(super) transcript: Option<PathBuf>,
    pub(super) project: Option<String>,
    pub(super) reviewed: Option<Reviewed>,
    /// The session /reflect runs in: before its first reply Claude Code may not have written
    /// its transcript yet, which is no loss to report.
    pub(super) live: bool,
    /// Found in Claude Code's transcripts of the project, not through capture ([`history`]).
    ///
    /// [`history`]: super::history
    pub(super) history: bool,
}

/// A prompt as read, before the digest decides about it.
#[derive(Debug)]
pub(super) struct Typed {
    pub(super) line: u64,
    pub(super) uuid: Option<String>,
    /// The session its entry names: another than its file's when the file resumed that one.
    pub(super) session: Option<Arc<str>>,
    pub(super) timestamp: Option<String>,
    /// The prompt's start and end ([`head_and_tail`]): what its excerpt is cut from.
    ///
    /// [`head_and_tail`]: reflect_detect::excerpt::head_and_tail
    pub(super) head: String,
    /// What the assistant had done before it: how its sentences are weighed for the excerpt.
    pub(super) situation: Situation,
    /// A pasted log or document: listed after everything else.
    pub(super) paste: bool,
    /// The end of the assistant's last line before it (unredacted, but for a table's row:
    /// [`redact::last_line`]), or the tools it called.
    ///
    /// [`redact::last_line`]: reflect_store::redact::last_line
    pub(super) answering: String,
    /// The secrets typed before it in its session as the answer to a question asking for one:
    /// the assistant's words it answers may repeat one in words no rule knows.
    pub(super) typed_before: Vec<(String, &'static str)>,
    /// The end of what the assistant wrote in the turn before it (unredacted): for a prompt
    /// that may be cut, [`SAID_BYTES`] of it; for one short enough to be listed whole, the
    /// [`redact::ASKED_BYTES`] a question asking for a secret is read from (see `list::render`).
    ///
    /// [`redact::ASKED_BYTES`]: reflect_store::redact::ASKED_BYTES
    pub(super) said: String,
    pub(super) probability: f64,
    pub(super) prose_chars: usize,
    /// The same text typed again has the same key.
    pub(super) key: String,
    /// Sent again: the same text answering the same assistant words as an earlier prompt of the
    /// session ([`reflect_detect::copies`]).
    pub(super) copy: bool,
    pub(super) bare: bool,
    /// It asks a question, not for work ([`question::asks`]): a call refused in its turn may
    /// have been unasked for.
    ///
    /// [`question::asks`]: super::question::asks
    pub(super) asks: bool,
}

pub(super) enum Outcome {
    Read(Box<SessionRead>),
    /// Not to be read: not active since `--since`, or the live session before its transcript.
    Old,
    Gone,
    Failed(String),
}

/// One session's unread part, as read.
#[derive(Debug)]
pub(super) struct SessionRead {
    pub(super) modified: Option<SystemTime>,
    /// The newest timestamp of a prompt read (the transcript's own, not when it was copied).
    pub(super) last_typed: Option<DateTime<Utc>>,
    /// The prompts not looked at yet.
    pub(super) prompts: Vec<Typed>,
    pub(super) end: Position,
    /// Where reading resumed (the turn in progress at the last mark, or the top).
    pub(super) from: Position,
    /// The last line looked at before.
    pub(super) through: u64,
    /// Where the turn in progress at `end` began.
    pub(super) turn: u64,
    /// Lines after `through` looked at before.
    pub(super) seen: Vec<u64>,
    /// The line of each prompt read (looked at before or not), in order: where a turn begins.
    pub(super) prompt_lines: Vec<u64>,
    /// The directories the entries read were in, with how many entries each.
    pub(super) dirs: HashMap<Arc<str>, usize>,
    /// The secrets its commands held and those typed as the answer to a question asking for
    /// one: redacted in every prompt listed, of any session.
    pub(super) known_secrets: Vec<(String, &'static str)>,
    /// The programs of the shell commands refused without a reason, not looked at before.
    pub(super) refusals: Vec<refusals::Refusal>,
}

/// The prompts a session's file holds, as a copy in another file is known: by uuid, or by time
/// and text (a copy written again under new uuids).
#[derive(Default)]
pub(super) struct Held<'a> {
    pub(super) uuids: HashSet<&'a str>,
    pub(super) stamped: HashSet<(&'a str, &'a str)>,
}

impl Held<'_> {
    pub(super) fn holds(&self, p: &Typed) -> bool {
        p.uuid.as_deref().is_some_and(|u| self.uuids.contains(u))
            || p.timestamp
                .as_deref()
                .is_some_and(|t| self.stamped.contains(&(t, p.key.as_str())))
    }
}

/// What became of a prompt read.
#[derive(Debug, Clone, Copy, PartialEq)]
pub(super) enum Fate {
    /// Needs no look: stored, an approval.
    Settled,
    /// Before --since: not looked at.
    Skipped,
    /// The prompt (or the text it repeats) at this index of the kept ones.
    Kept(usize),
}
