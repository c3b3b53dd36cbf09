//! `memory-store digest`: `/reflect`'s second look. The hooks judge each prompt with a small model
//! and store only what they are sure of; the model in the user's own session can judge meaning.
//! The digest hands it, cheaply, what the user typed that capture did not store and `/reflect`
//! has not looked at yet.
//!
//! **Sessions** are found through what capture recorded: each session's cursor
//! (`cursors/<session>.json`) names its transcript and project. The session `/reflect` runs in
//! (`--current`) may not have a cursor yet (it never compacted); its transcript is found under
//! `<config dir>/projects/`. So are the project's sessions capture never recorded (it was off,
//! or just turned on: [`history`]), so the first `/reflect` has something to review.
//! `--transcript FILE` reads given files instead. A session whose
//! transcript is gone (Claude Code deletes them after `cleanupPeriodDays`, 30 by default) is
//! counted and named, never an error. Nothing of what the user typed is kept by reflect for
//! this: the digest reads Claude Code's transcripts while they exist, and a weekly `/reflect`
//! fits well inside those 30 days.
//!
//! **Prompts** are read as capture reads them ([`transcript::read`]: no tool results, meta lines,
//! command output, reminders, compaction summaries or sub-agent traffic), each with the end of
//! the assistant's last words before it (never what Claude Code wrote in its place). Left out:
//! what Claude Code or the shell wrote as a prompt ([`noise`]), prompts a signal already points
//! at (by `source.line` or `source.uuid`, any status, store and archive), approvals and bare
//! continues ([`approval`]), the same text typed again (listed once, with how often and where:
//! each place is another turn, so another sighting), and a copy: a prompt read before under the
//! same uuid (a resumed session's file repeats what it resumed) or, in another session, at the
//! same time (a resume written again under new uuids), or sent again under a new one after the
//! same assistant words ([`reflect_detect::copies`]), which is not counted as typed
//! again. A resumed session's file begins with a copy of the conversation it resumed, each
//! entry naming the session it was typed in: when that session's own file is read too, the
//! copy is listed there, and the heading of the one that resumed it says `same conversation
//! as …`. Nor is a draft counted: a prompt no assistant text answered whose words start the
//! next, longer one (Enter pressed too early, then the whole prompt), listed as that one
//! (`drafted`).
//! A long prompt is listed as its likeliest sentence ([`excerpt`]), a rule stated in passing
//! ahead of the task it came with ([`model::lesson_score`]); `--show` prints it whole ([`show`]),
//! and a session's failed and refused calls a line each ([`calls`]).
//!
//! **Secrets.** Everything printed is redacted: by the rules, a value typed as the answer to a
//! question asking for one, and a value with no shape of its own that a Bash command of the
//! sessions read held by its context (a password piped to `sudo -S`: [`command_secrets`]) or a
//! prompt gave as such an answer, wherever a listed prompt or its quote holds it, in any
//! session; `--show` knows those of all the project's sessions ([`KnownReader`]).
//!
//! **Budget.** Within `budget_tokens` (characters / 4) the prompts most likely to be learning
//! moments come first: the learned classifier's probability ([`model::SHIPPED`], read from the
//! prompt in the situation it answered, as the detector reads it), then the longer prose;
//! pasted logs and documents after everything else. They
//! are listed grouped by session, newest session first, each session's prompts in the order
//! typed. A session's time, in its heading and for that order, is its last prompt's timestamp in
//! the transcript (the file's modification time when no prompt has one): a transcript copied,
//! restored or imported later keeps its own times, while its file's is the copy's. The heading
//! also says where the session worked when that is not only its project dir (each entry records
//! its `cwd`, which moves as the session `cd`s: [`worked_in`]), so a session started in a home dir
//! or a folder of repositories tells which one it was about. What did not fit is counted.
//!
//! **Marks.** A session's cursor keeps how far `/reflect` has looked ([`Reviewed`]): the last line
//! looked at, and the start of the turn in progress there, where the next digest resumes so that
//! the first new prompt is read with what it answered. The digest reads only after it and ends
//! with the command that moves each session's mark to what this digest listed ([`Mark`]): up to
//! the first prompt it left out for the budget (or to where the read ended), with the prompts it
//! listed after that one remembered (`Reviewed::seen`). So a prompt left out stays unread and
//! comes first next time, and what a session adds in between stays unread too. The marks are
//! saved under a short name (`<data dir>/digests/<name>.json`, removed when used, by `forget`, or
//! after [`SAVED_MARKS_DAYS`] days), so that command is one short line however many sessions
//! were read.

mod approval;
pub mod calls;
pub mod history;
mod noise;
mod question;
mod refusals;
pub mod show;
mod show_calls;

use std::collections::{HashMap, HashSet};
use std::fmt::{self, Write as _};
use std::fs;
use std::io;
use std::path::{Path, PathBuf};
use std::str::FromStr;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;
use std::time::SystemTime;

use chrono::{DateTime, Utc};
use serde_json::{json, Value};

use crate::cursor::{self, Cursor, Reviewed};
use crate::scope::Scope;
use reflect_base::error::{Error, IoContext, Result};
use reflect_base::fsutil::{self, LockWait};
use reflect_base::paths::{self, Paths};
use reflect_base::text;
use reflect_detect::copies::{place, repeat_key, Copies};
use reflect_detect::excerpt::{excerpt, head_and_tail};
use reflect_detect::model::{self, Model};
use reflect_detect::text::{Reading, Situation};
use reflect_store::redact;
use reflect_store::sanitize;
use reflect_store::signal;
use reflect_store::store::Store;
use reflect_transcript::{self as transcript, Event, EventKind, Position};

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
const SELF_CONTAINED_CHARS: usize = 100;
/// How much of the assistant's last line is kept while reading.
const TAIL_BYTES: usize = 2048;
/// How much of what the assistant wrote in a turn is kept for the prompt after it: the lines
/// of it a prompt quotes back are not the user's words ([`excerpt`]).
const SAID_BYTES: usize = 16 << 10;
/// The shortest a listed prompt's line can be: with less budget left, nothing more is weighed.
const SHORTEST_LINE: usize = 12;
/// The places of a prompt typed again a line names; more are `…`.
const AGAIN_PLACES: usize = 3;
/// After this many prompts in a row that did not fit what the budget has left, the rest are
/// left out unweighed: each weighing redacts and cuts a prompt, and a heavy month holds thousands
/// that would each miss a gap of a few characters.
const MISSES_IN_A_ROW: usize = 16;
/// Threads reading transcripts at once.
const MAX_THREADS: usize = 4;
/// The last tool calls of a turn the digest keeps by id, to name the one the user refused.
const CALLS_KEPT: usize = 16;
/// Directories a session's heading names besides its project dir; more are counted.
const WORKED_IN_SHOWN: usize = 2;

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
struct Candidate {
    session: String,
    transcript: Option<PathBuf>,
    project: Option<String>,
    reviewed: Option<Reviewed>,
    /// The session /reflect runs in: before its first reply Claude Code may not have written
    /// its transcript yet, which is no loss to report.
    live: bool,
    /// Found in Claude Code's transcripts of the project, not through capture ([`history`]).
    history: bool,
}

/// A prompt as read, before the digest decides about it.
#[derive(Debug)]
struct Typed {
    line: u64,
    uuid: Option<String>,
    /// The session its entry names: another than its file's when the file resumed that one.
    session: Option<Arc<str>>,
    timestamp: Option<String>,
    /// The prompt's start and end ([`head_and_tail`]): what its excerpt is cut from.
    head: String,
    /// What the assistant had done before it: how its sentences are weighed for the excerpt.
    situation: Situation,
    /// A pasted log or document: listed after everything else.
    paste: bool,
    /// The end of the assistant's last line before it (unredacted, but for a table's row:
    /// [`redact::last_line`]), or the tools it called.
    answering: String,
    /// The secrets typed before it in its session as the answer to a question asking for one:
    /// the assistant's words it answers may repeat one in words no rule knows.
    typed_before: Vec<(String, &'static str)>,
    /// The end of what the assistant wrote in the turn before it (unredacted): for a prompt
    /// that may be cut, [`SAID_BYTES`] of it; for one short enough to be listed whole, the
    /// [`redact::ASKED_BYTES`] a question asking for a secret is read from (see [`render`]).
    said: String,
    probability: f64,
    prose_chars: usize,
    /// The same text typed again has the same key.
    key: String,
    /// Sent again: the same text answering the same assistant words as an earlier prompt of the
    /// session ([`reflect_detect::copies`]).
    copy: bool,
    bare: bool,
    /// It asks a question, not for work ([`question::asks`]): a call refused in its turn may
    /// have been unasked for.
    asks: bool,
}

enum Outcome {
    Read(Box<SessionRead>),
    /// Not to be read: not active since `--since`, or the live session before its transcript.
    Old,
    Gone,
    Failed(String),
}

/// One session's unread part, as read.
#[derive(Debug)]
struct SessionRead {
    modified: Option<SystemTime>,
    /// The newest timestamp of a prompt read (the transcript's own, not when it was copied).
    last_typed: Option<DateTime<Utc>>,
    /// The prompts not looked at yet.
    prompts: Vec<Typed>,
    end: Position,
    /// Where reading resumed (the turn in progress at the last mark, or the top).
    from: Position,
    /// The last line looked at before.
    through: u64,
    /// Where the turn in progress at `end` began.
    turn: u64,
    /// Lines after `through` looked at before.
    seen: Vec<u64>,
    /// The line of each prompt read (looked at before or not), in order: where a turn begins.
    prompt_lines: Vec<u64>,
    /// The directories the entries read were in, with how many entries each.
    dirs: HashMap<Arc<str>, usize>,
    /// The secrets its commands held and those typed as the answer to a question asking for
    /// one: redacted in every prompt listed, of any session.
    known_secrets: Vec<(String, &'static str)>,
    /// The programs of the shell commands refused without a reason, not looked at before.
    refusals: Vec<refusals::Refusal>,
}

/// The prompts a session's file holds, as a copy in another file is known: by uuid, or by time
/// and text (a copy written again under new uuids).
#[derive(Default)]
struct Held<'a> {
    uuids: HashSet<&'a str>,
    stamped: HashSet<(&'a str, &'a str)>,
}

impl Held<'_> {
    fn holds(&self, p: &Typed) -> bool {
        p.uuid.as_deref().is_some_and(|u| self.uuids.contains(u))
            || p.timestamp
                .as_deref()
                .is_some_and(|t| self.stamped.contains(&(t, p.key.as_str())))
    }
}

/// What became of a prompt read.
#[derive(Debug, Clone, Copy, PartialEq)]
enum Fate {
    /// Needs no look: stored, an approval.
    Settled,
    /// Before --since: not looked at.
    Skipped,
    /// The prompt (or the text it repeats) at this index of the kept ones.
    Kept(usize),
}

/// Build the digest `req` asks for.
pub fn digest(store: &Store, req: &Request) -> Result<Digest> {
    let paths = store.paths();
    let candidates = candidates(paths, req)?;
    let model = req.model.unwrap_or(&model::SHIPPED);
    let outcomes = read_all(&candidates, req.since, model);
    let sessions: HashSet<&str> = candidates.iter().map(|c| c.session.as_str()).collect();
    let stored = stored_prompts(store, &sessions)?;

    let mut out = Digest {
        budget_tokens: req.budget_tokens,
        root: req.scope.as_ref().map(|s| s.root().display().to_string()),
        ..Digest::default()
    };
    let mut read: Vec<(&Candidate, Box<SessionRead>)> = Vec::new();
    for (candidate, outcome) in candidates.iter().zip(outcomes) {
        if !matches!(outcome, Outcome::Old) {
            out.sessions_found += 1;
        }
        match outcome {
            Outcome::Read(r) => {
                if r.end.line > r.through {
                    out.sessions_read += 1;
                    out.history += usize::from(candidate.history);
                }
                read.push((candidate, r));
            }
            Outcome::Old => {}
            Outcome::Gone => out.gone.push(candidate.session.clone()),
            Outcome::Failed(why) => out.failed.push((candidate.session.clone(), why)),
        }
    }
    // Newest session first (a stable sort keeps the order found among equals).
    read.sort_by_key(|(_, r)| std::cmp::Reverse(r.time()));

    // Keep what is worth a look, in listing order; the first of a repeated text stands for all.
    // A copy counts once: a prompt read before under the same uuid (a resumed session's file
    // repeats the conversation it resumed, a transcript may be on disk twice), or with the same
    // text and time in another session (a resume Claude Code wrote again under new uuids), or
    // sent again under a new one (the same text answering the same assistant words,
    // [`Typed::copy`]).
    //
    // A resumed session's file begins with the conversation it resumed, each entry under the
    // session it was typed in: a copy of a prompt that session's own file holds is that
    // session's (listed there), and the file that resumed it says so. An entry may name
    // another session and be no copy: Claude Code 2.0 wrote some resumed sessions' new prompts
    // under the old name (the same conversation too), and 1.0 went on in one file under a new
    // name after `/clear` (after the file's own prompts: no resume).
    let mut kept: Vec<(usize, &Typed, Vec<Again>)> = Vec::new(); // (session, prompt, again)
    let mut fates: Vec<Vec<Fate>> = Vec::with_capacity(read.len());
    let mut continues: Vec<Vec<&str>> = vec![Vec::new(); read.len()];
    let mut holds: HashMap<&str, Held> = HashMap::new();
    for (candidate, r) in &read {
        let held = holds.entry(candidate.session.as_str()).or_default();
        for p in &r.prompts {
            held.uuids.extend(p.uuid.as_deref());
            held.stamped
                .extend(p.timestamp.as_deref().map(|t| (t, p.key.as_str())));
        }
    }
    let mut by_key: HashMap<&str, usize> = HashMap::new();
    let mut uuids: HashSet<&str> = HashSet::new();
    let mut stamped: HashMap<(&str, &str), usize> = HashMap::new(); // (time, text) → session
    for (k, (candidate, r)) in read.iter().enumerate() {
        let mut session_fates = Vec::with_capacity(r.prompts.len());
        let mut own_seen = false;
        for p in &r.prompts {
            let sid = candidate.session.as_str();
            let origin = p.session.as_deref().filter(|s| *s != sid);
            if let Some((origin, held)) = origin.and_then(|s| holds.get_key_value(s)) {
                // Ahead of the session's own prompts: the conversation it resumed.
                if !own_seen && !continues[k].contains(origin) {
                    continues[k].push(origin);
                }
                if held.holds(p) {
                    session_fates.push(Fate::Settled);
                    continue;
                }
            }
            own_seen |= origin.is_none();
            let before_since = req.since.is_some_and(|since| {
                p.timestamp
                    .as_deref()
                    .and_then(signal::parse_time)
                    .is_some_and(|t| t < since)
            });
            let copy = p.uuid.as_deref().is_some_and(|u| !uuids.insert(u))
                || p.timestamp
                    .as_deref()
                    .is_some_and(|t| *stamped.entry((t, p.key.as_str())).or_insert(k) != k)
                || p.copy;
            let fate = if before_since {
                Fate::Skipped
            } else if copy {
                Fate::Settled
            } else if stored.holds(sid, p) {
                out.stored += 1;
                Fate::Settled
            } else if p.bare {
                out.bare += 1;
                Fate::Settled
            } else if let Some(&at) = by_key.get(p.key.as_str()) {
                let session = (kept[at].0 != k).then(|| sid.to_string());
                kept[at].2.push(Again {
                    session,
                    line: p.line,
                });
                out.repeats += 1;
                Fate::Kept(at)
            } else {
                by_key.insert(&p.key, kept.len());
                kept.push((k, p, Vec::new()));
                Fate::Kept(kept.len() - 1)
            };
            session_fates.push(fate);
        }
        fates.push(session_fates);
    }

    // The likeliest first, pastes last; each rendered (redacted, cut) only when it is weighed
    // against what the budget has left.
    let mut order: Vec<usize> = (0..kept.len()).collect();
    order.sort_by(|&a, &b| {
        let (pa, pb) = (kept[a].1, kept[b].1);
        pa.paste
            .cmp(&pb.paste)
            .then(pb.probability.total_cmp(&pa.probability))
            .then(pb.prose_chars.min(400).cmp(&pa.prose_chars.min(400)))
            .then(a.cmp(&b))
    });
    let budget = req.budget_tokens.saturating_mul(4);
    // A secret a command held or an answer gave, in whichever session: a prompt may hold it
    // without its shape.
    let mut known: Vec<(String, &'static str)> = Vec::new();
    for (_, r) in &read {
        for (value, kind) in &r.known_secrets {
            add_once(&mut known, value, kind);
        }
    }
    let home = paths::home();
    // Read once a session, and only for a session weighed: each looks up repositories on disk.
    let mut worked: Vec<Option<Option<String>>> = vec![None; read.len()];
    let mut worked_of = |k: usize| -> Option<String> {
        worked[k]
            .get_or_insert_with(|| {
                let (c, r) = &read[k];
                worked_in(&r.dirs, c.project.as_deref(), home.as_deref())
            })
            .clone()
    };
    let mut used = 0;
    let mut shown: Vec<Option<Shown>> = vec![None; kept.len()];
    let mut session_shown = vec![false; read.len()];
    let mut misses = 0;
    for i in order {
        if budget.saturating_sub(used) < SHORTEST_LINE || misses >= MISSES_IN_A_ROW {
            out.left_out += 1;
            continue;
        }
        let (k, p, ref again) = kept[i];
        let line = render(p, again, &known, model);
        let mut cost = prompt_line(&line).chars().count();
        if !session_shown[k] {
            let (candidate, r) = &read[k];
            let last_active = r.time().map(time_text);
            cost += heading(
                &candidate.session,
                &continues[k],
                other_project(candidate.project.as_deref(), out.root.as_deref()),
                worked_of(k).as_deref(),
                last_active.as_deref(),
            )
            .chars()
            .count();
        }
        if used + cost > budget {
            out.left_out += 1;
            misses += 1;
            continue;
        }
        misses = 0;
        used += cost;
        shown[i] = Some(line);
        session_shown[k] = true;
    }
    out.refused = refusals::repeated(
        read.iter()
            .map(|(c, r)| (c.session.as_str(), r.refusals.as_slice())),
    );
    let chosen: Vec<bool> = shown.iter().map(Option::is_some).collect();
    for (k, ((candidate, r), session_fates)) in read.iter().zip(&fates).enumerate() {
        if let Some(mark) = mark_of(candidate, r, session_fates, &chosen) {
            out.marks.push(mark);
        }
        if !session_shown[k] {
            continue;
        }
        let prompts: Vec<Shown> = kept
            .iter()
            .zip(&mut shown)
            .filter(|((session, _, _), _)| *session == k)
            .filter_map(|(_, s)| s.take())
            .collect();
        out.sessions.push(Listed {
            session: candidate.session.clone(),
            continues: continues[k].iter().map(|s| s.to_string()).collect(),
            project: candidate.project.clone(),
            worked_in: worked_of(k),
            last_active: r.time().map(time_text),
            prompts,
        });
    }
    Ok(out)
}

/// How far a session can be marked looked at: up to its first prompt not listed (left out for the
/// budget, or before --since), or to the end; with the prompts listed after that point. `None`
/// when that says nothing new.
fn mark_of(c: &Candidate, r: &SessionRead, fates: &[Fate], chosen: &[bool]) -> Option<Mark> {
    let looked_at = |fate: &Fate| match fate {
        Fate::Settled => true,
        Fate::Skipped => false,
        Fate::Kept(i) => chosen[*i],
    };
    let first_unread = r
        .prompts
        .iter()
        .zip(fates)
        .find(|(_, fate)| !looked_at(fate))
        .map(|(p, _)| p.line);
    let Some(unread) = first_unread else {
        return (r.end.line > r.through).then(|| Mark {
            session: c.session.clone(),
            line: r.end.line,
            turn: r.turn,
            seen: Vec::new(),
        });
    };
    let line = unread - 1;
    // The turn the unread prompt answers began at the prompt before it.
    let turn = r
        .prompt_lines
        .iter()
        .rev()
        .find(|&&l| l < unread)
        .copied()
        .unwrap_or(r.from.line + 1);
    let mut seen: Vec<u64> = r
        .prompts
        .iter()
        .zip(fates)
        .filter(|(p, fate)| p.line > line && matches!(fate, Fate::Kept(_)) && looked_at(fate))
        .map(|(p, _)| p.line)
        .chain(r.seen.iter().copied().filter(|&l| l > line))
        .collect();
    seen.sort_unstable();
    seen.dedup();
    let moved = line > r.through || seen.len() > r.seen.iter().filter(|&&l| l > line).count();
    moved.then(|| Mark {
        session: c.session.clone(),
        line: line.max(r.through),
        turn: if line > r.through {
            turn
        } else {
            r.from.line + 1
        },
        seen,
    })
}

/// A prompt as listed: its excerpt and what it answered, redacted; a value typed as the answer
/// to a question asking for a secret is one too (read here, for the prompts listed only), and
/// so is a secret a command of the sessions read held (`known`).
fn render(p: &Typed, again: &[Again], known: &[(String, &'static str)], model: &Model) -> Shown {
    let asked = redact::Asked::of(&p.said);
    // Cleaned before redaction: a zero-width character inside a token would hide it. The
    // commands' secrets go before the cut, which could split one, and after the rules: a
    // known value may be part of a token they redact whole.
    let cleaned = sanitize::clean(&p.head);
    let cleaned = match known.is_empty() {
        true => cleaned,
        false => std::borrow::Cow::Owned(redact::redact_known(&cleaned, known).into_owned()),
    };
    let cut = excerpt(&cleaned, &p.said, asked.as_ref(), TEXT_CHARS, |sentence| {
        model.lesson_score(&Reading::of(sentence), &p.situation)
    });
    Shown {
        line: p.line,
        uuid: p.uuid.clone(),
        timestamp: p.timestamp.clone(),
        text: cut.text,
        pasted: cut.pasted,
        answering: answering_quote(&p.answering, &[&p.typed_before[..], known].concat()),
        probability: p.probability,
        again: again.to_vec(),
    }
}

/// Where a session worked besides its project dir, as its heading says it: the repositories
/// of the other directories its entries were in (a directory below the home folder or the
/// project by its repository's root when it is on this machine and in one: the root's
/// `CLAUDE.md` is what a lesson about it is for),
/// the one with most entries first, at most [`WORKED_IN_SHOWN`] then `+N more`; each relative
/// to the project dir when below it, else with the home dir as `~`. Redacted and escaped like
/// every name the digest prints (a path can hold anything). `None` when the session stayed in
/// its project dir (or a folder of its repository).
fn worked_in(
    dirs: &HashMap<Arc<str>, usize>,
    project: Option<&str>,
    home: Option<&Path>,
) -> Option<String> {
    let project = project.map(Path::new);
    let mut by_root: HashMap<&Path, usize> = HashMap::new();
    // Looked up only below the home folder or the project: a directory elsewhere may be on a
    // network drive, whose lookup can hang while it is unreachable.
    let local = |dir: &Path| {
        [home, project]
            .into_iter()
            .flatten()
            .any(|d| dir.starts_with(d))
    };
    for (dir, &n) in dirs {
        let dir = Path::new(&**dir);
        let root = match project != Some(dir) && local(dir) {
            true => repository_of(dir).unwrap_or(dir),
            false => dir,
        };
        *by_root.entry(root).or_default() += n;
    }
    let mut elsewhere: Vec<(&str, usize)> = by_root
        .into_iter()
        .filter(|(d, _)| project != Some(*d))
        .filter_map(|(d, n)| Some((d.to_str()?, n)))
        .collect();
    if elsewhere.is_empty() {
        return None;
    }
    elsewhere.sort_by(|a, b| b.1.cmp(&a.1).then(a.0.cmp(b.0)));
    let shown: Vec<String> = elsewhere
        .iter()
        .take(WORKED_IN_SHOWN)
        .map(|(d, _)| {
            let name = dir_name(Path::new(d), project, home);
            sanitize::visible(&redact::redact(&name)).into_owned()
        })
        .collect();
    let mut out = shown.join(", ");
    if elsewhere.len() > WORKED_IN_SHOWN {
        let _ = write!(out, " +{} more", elsewhere.len() - WORKED_IN_SHOWN);
    }
    Some(out)
}

/// The root of the repository `dir` is in: its nearest ancestor (itself included) holding a
/// `.git` (a directory, or a worktree's or submodule's file). `None` when no ancestor on this
/// machine holds one, or it is not a path of this system (a session read from another
/// machine's transcripts).
fn repository_of(dir: &Path) -> Option<&Path> {
    // A relative path (another system's, `C:\…` read on Unix) would be read from the current
    // directory: its last ancestor is empty.
    if !dir.is_absolute() {
        return None;
    }
    dir.ancestors().find(|a| a.join(".git").exists())
}

/// `dir` relative to `project` when below it, else with `home` as `~`.
fn dir_name(dir: &Path, project: Option<&Path>, home: Option<&Path>) -> String {
    if let Some(below) = project.and_then(|p| dir.strip_prefix(p).ok()) {
        return below.display().to_string();
    }
    match home.and_then(|h| dir.strip_prefix(h).ok()) {
        Some(below) if below.as_os_str().is_empty() => "~".to_string(),
        Some(below) => format!("~{}{}", std::path::MAIN_SEPARATOR, below.display()),
        None => dir.display().to_string(),
    }
}

fn time_text(t: DateTime<Utc>) -> String {
    t.format("%Y-%m-%d %H:%M").to_string()
}

/// The end of the assistant's last line, redacted (the secrets the user typed before it too),
/// at most [`ANSWERING_CHARS`] with the `…`, from a word.
fn answering_quote(raw: &str, typed_before: &[(String, &'static str)]) -> String {
    let cleaned = sanitize::clean(raw);
    text::one_line_end(
        &redact::redact_known(&cleaned, typed_before),
        ANSWERING_CHARS,
    )
}

// ---- finding the sessions ----

fn candidates(paths: &Paths, req: &Request) -> Result<Vec<Candidate>> {
    if !req.transcripts.is_empty() {
        return Ok(req
            .transcripts
            .iter()
            .map(|t| {
                let session = t
                    .file_stem()
                    .map(|s| s.to_string_lossy().into_owned())
                    .unwrap_or_default();
                let cursor = load_cursor(paths, &session).unwrap_or_default();
                Candidate {
                    session,
                    transcript: Some(t.clone()),
                    project: cursor.project,
                    reviewed: cursor.reviewed,
                    live: false,
                    history: false,
                }
            })
            .collect());
    }
    let mut out: Vec<Candidate> = Vec::new();
    let entries = match fs::read_dir(paths.cursors()) {
        Ok(entries) => entries.flatten().collect(),
        Err(e) if e.kind() == io::ErrorKind::NotFound => Vec::new(),
        Err(e) => return Err(Error::io("cannot read", &paths.cursors(), e)),
    };
    for entry in entries {
        let name = entry.file_name();
        let Some(stem) = name.to_str().and_then(|n| n.strip_suffix(".json")) else {
            continue;
        };
        // A cursor that cannot be read is capture's business (it logs and starts over).
        let Ok(Some(cursor)) = cursor::load(&entry.path()) else {
            continue;
        };
        let Some(transcript) = cursor.transcript.clone() else {
            continue;
        };
        let Some(session) = session_of(stem, &transcript) else {
            continue;
        };
        let wanted = match (&req.session, &req.scope) {
            (Some(only), _) => *only == session,
            (None, None) => true,
            (None, Some(scope)) => {
                cursor.project.as_deref().is_some_and(|p| scope.holds(p))
                    || req.current.as_deref() == Some(session.as_str())
            }
        };
        if wanted {
            out.push(Candidate {
                live: req.current.as_deref() == Some(session.as_str()),
                session,
                transcript: Some(transcript),
                project: cursor.project,
                reviewed: cursor.reviewed,
                history: false,
            });
        }
    }
    // The session asked for, or the one /reflect runs in, when capture has not recorded it yet.
    let extra = req.session.as_ref().or(req.current.as_ref());
    if let Some(session) = extra.filter(|s| !out.iter().any(|c| &c.session == *s)) {
        let cursor = load_cursor(paths, session).unwrap_or_default();
        out.push(Candidate {
            session: session.clone(),
            transcript: cursor
                .transcript
                .or_else(|| find_transcript(paths, session, &req.cwd)),
            project: cursor
                .project
                .or_else(|| Some(req.cwd.display().to_string())),
            reviewed: cursor.reviewed,
            live: req.current.as_ref() == Some(session),
            history: false,
        });
    }
    // Day one: the project's sessions capture never recorded, from Claude Code's transcripts.
    if let (Some(scope), None) = (&req.scope, &req.session) {
        let known: HashSet<String> = out.iter().map(|c| c.session.clone()).collect();
        for found in history::sessions(paths, scope, &known) {
            let cursor = load_cursor(paths, &found.session).unwrap_or_default();
            out.push(Candidate {
                session: found.session,
                transcript: Some(found.transcript),
                project: Some(found.project),
                reviewed: cursor.reviewed,
                live: false,
                history: true,
            });
        }
    }
    // Sorted for a stable order among sessions last active at the same time.
    out.sort_by(|a, b| a.session.cmp(&b.session));
    out.retain(|c| {
        c.project
            .as_deref()
            .is_none_or(|p| !paths::project_opted_out(Path::new(p)))
    });
    Ok(out)
}

fn load_cursor(paths: &Paths, session: &str) -> Option<Cursor> {
    cursor::load(&cursor::path(paths, session)).ok().flatten()
}

/// The session a cursor file belongs to: its name, when the session id is a plain token (Claude
/// Code's are uuids); else the transcript's name, when it maps to this cursor file.
fn session_of(stem: &str, transcript: &Path) -> Option<String> {
    if cursor::file_stem(stem) == stem {
        return Some(stem.to_string());
    }
    let named = transcript.file_stem()?.to_str()?;
    (cursor::file_stem(named) == stem).then(|| named.to_string())
}

/// The transcript of `session` under `<config dir>/projects/`: in the folder of `cwd` first
/// ([`history::slug`]), else in any.
pub(crate) fn find_transcript(paths: &Paths, session: &str, cwd: &Path) -> Option<PathBuf> {
    if cursor::file_stem(session) != session {
        return None;
    }
    let projects = paths.config_dir.join("projects");
    let file = format!("{session}.jsonl");
    let first = projects.join(history::slug(cwd)).join(&file);
    if first.is_file() {
        return Some(first);
    }
    fs::read_dir(&projects)
        .ok()?
        .flatten()
        .map(|e| e.path().join(&file))
        .find(|p| p.is_file())
}

/// The transcript of `session`: the one capture recorded (its cursor), else Claude Code's
/// ([`find_transcript`], in `cwd`'s folder first).
pub(crate) fn transcript_of(paths: &Paths, session: &str, cwd: &Path) -> Option<PathBuf> {
    load_cursor(paths, session)
        .and_then(|c| c.transcript)
        .or_else(|| find_transcript(paths, session, cwd))
}

/// Whether `session` is one the store or Claude Code's transcripts know (what evidence given to
/// `append` must name): capture recorded it (its cursor), Claude Code keeps its transcript
/// (looked for as [`find_transcript`] does, in `dir`'s folder first), or a signal or sighting in
/// the store or the archive names it.
pub fn session_known(store: &Store, session: &str, dir: &Path) -> Result<bool> {
    let paths = store.paths();
    if session.is_empty() {
        return Ok(false);
    }
    if cursor::path(paths, session).is_file() || find_transcript(paths, session, dir).is_some() {
        return Ok(true);
    }
    let mut named = false;
    reflect_store::store::sightings_of(paths, &HashSet::from([session]), |_, _, _| named = true)?;
    Ok(named)
}

/// For each of `lines` of `session`'s transcript, the line of the user message that opened
/// its turn, when that is another line (a failed or refused call's result): the place capture
/// gives what it stores there (`source.prompt_line`), so evidence the second look appends at a
/// call is one incident with what capture stored of that turn. Empty when the transcript
/// cannot be found or read.
pub fn turn_prompts(store: &Store, session: &str, lines: &[u64], dir: &Path) -> HashMap<u64, u64> {
    let paths = store.paths();
    let mut found = HashMap::new();
    let Some(last) = lines.iter().max().copied() else {
        return found;
    };
    let transcript = transcript_of(paths, session, dir);
    let Some(mut file) = transcript.and_then(|t| fsutil::open_regular(&t).ok().flatten()) else {
        return found;
    };
    // As capture reads it: every user message opens a turn.
    let mut prompt = None;
    let _ = transcript::read(&mut file, Position::default(), |event| {
        if event.line > last {
            return;
        }
        if let EventKind::UserText { .. } = event.kind {
            prompt = Some(event.line);
        }
        if let Some(p) = prompt.filter(|&p| p != event.line && lines.contains(&event.line)) {
            found.insert(event.line, p);
        }
    });
    found
}

// ---- reading ----

/// Read every candidate's unread part, on a few threads; the outcomes in the candidates' order.
fn read_all(
    candidates: &[Candidate],
    since: Option<DateTime<Utc>>,
    model: &'static Model,
) -> Vec<Outcome> {
    let threads = std::thread::available_parallelism()
        .map_or(1, |n| n.get())
        .clamp(1, MAX_THREADS)
        .min(candidates.len().max(1));
    let next = AtomicUsize::new(0);
    let mut done: Vec<(usize, Outcome)> = std::thread::scope(|scope| {
        let workers: Vec<_> = (0..threads)
            .map(|_| {
                scope.spawn(|| {
                    let mut mine = Vec::new();
                    loop {
                        let i = next.fetch_add(1, Ordering::Relaxed);
                        let Some(c) = candidates.get(i) else {
                            return mine;
                        };
                        mine.push((i, read_session(c, since, model)));
                    }
                })
            })
            .collect();
        workers
            .into_iter()
            .flat_map(|w| w.join().unwrap_or_else(|e| std::panic::resume_unwind(e)))
            .collect()
    });
    done.sort_by_key(|(i, _)| *i);
    done.into_iter().map(|(_, o)| o).collect()
}

fn read_session(c: &Candidate, since: Option<DateTime<Utc>>, model: &'static Model) -> Outcome {
    let Some(path) = &c.transcript else {
        return match c.live {
            true => Outcome::Old,
            false => Outcome::Failed(
                "no transcript found (capture has not recorded the session, and Claude Code's projects folder holds none of that name)".into(),
            ),
        };
    };
    let mut file = match fsutil::open_regular(path) {
        Ok(Some(file)) => file,
        Ok(None) if c.live => return Outcome::Old,
        Ok(None) => return Outcome::Gone,
        Err(e) => return Outcome::Failed(e.to_string()),
    };
    let modified = file.metadata().and_then(|m| m.modified()).ok();
    if let (Some(since), Some(modified)) = (since, modified) {
        if DateTime::<Utc>::from(modified) < since {
            return Outcome::Old;
        }
    }
    let failed = |e: io::Error| Outcome::Failed(format!("cannot read {}: {e}", path.display()));
    let (from, through, seen) = match &c.reviewed {
        Some(r) => match r.fits(&file) {
            Ok(true) => (
                Position {
                    offset: r.offset,
                    line: r.line,
                },
                r.through,
                r.seen.clone(),
            ),
            Ok(false) => (Position::default(), 0, Vec::new()),
            Err(e) => return failed(e),
        },
        None => (Position::default(), 0, Vec::new()),
    };
    let mut reader = PromptReader {
        model: Some(model),
        ..PromptReader::default()
    };
    let end = match transcript::read(&mut file, from, |event| reader.feed(event)) {
        Ok(end) => end,
        Err(e) => return failed(e),
    };
    let turn = match reader.prompts.last() {
        Some(p) => p.line,
        None if from.offset > 0 => from.line + 1,
        None => end.line + 1,
    };
    let prompt_lines: Vec<u64> = reader.prompts.iter().map(|p| p.line).collect();
    let last_typed = reader
        .prompts
        .iter()
        .filter_map(|p| p.timestamp.as_deref().and_then(signal::parse_time))
        .max();
    let mut prompts = reader.prompts;
    prompts.retain(|p| p.line > through && !seen.contains(&p.line));
    let dirs = reader.dirs;
    let mut known_secrets = reader.command_secrets;
    for (value, kind) in &reader.typed_secrets {
        add_once(&mut known_secrets, value, kind);
    }
    let mut refusals = reader.refusals;
    refusals.retain(|r| r.line > through && !seen.contains(&r.line));
    Outcome::Read(Box::new(SessionRead {
        modified,
        last_typed,
        prompts,
        end,
        from,
        through,
        turn,
        seen,
        prompt_lines,
        dirs,
        known_secrets,
        refusals,
    }))
}

impl SessionRead {
    /// The session's own time: when the user last typed in it, by its transcript's timestamps
    /// (a transcript copied or imported later keeps them; its file's time is the copy's), else
    /// when its file last changed.
    fn time(&self) -> Option<DateTime<Utc>> {
        self.last_typed
            .or_else(|| self.modified.map(DateTime::<Utc>::from))
    }
}

/// A tool call of the assistant's turn, by id: what a refusal names.
struct Call {
    id: String,
    tool: String,
    /// A Bash call's input.
    command: Option<transcript::ToolInput>,
}

/// The prompts of a stream of events, each with what it answered.
#[derive(Default)]
struct PromptReader {
    situation: Situation,
    /// The assistant's last line of text in this turn (bounded).
    last_line: Option<String>,
    /// What the assistant wrote in this turn (its end kept, about 2 × [`SAID_BYTES`] at most).
    said: String,
    /// Tools it called since its last text, each once, and the last calls' ids with their
    /// tool (a refusal names the call's id).
    tools: Vec<String>,
    calls: Vec<Call>,
    /// Of `tools`, those the user refused a call of.
    refused: Vec<String>,
    /// Of `tools`, those the user stopped a call of while it ran.
    stopped: Vec<String>,
    /// Each shell command's program, or [`refusals::FILE_EDITS`], the user refused without a
    /// reason.
    refusals: Vec<refusals::Refusal>,
    prompts: Vec<Typed>,
    /// The directories the entries were in, with how many entries each.
    dirs: HashMap<Arc<str>, usize>,
    /// The line of the last event whose directory was counted (an entry may yield several).
    counted_line: u64,
    /// The prompts so far, to tell one sent again.
    copies: Copies,
    /// Whether the assistant wrote any text since the last prompt: a prompt it did not answer
    /// may be a draft the next one completes ([`drafted`]).
    answered: bool,
    /// The secrets typed so far as answers to a question asking for one ([`Typed::typed_before`]
    /// of the next prompt).
    typed_secrets: Vec<(String, &'static str)>,
    /// The secrets the session's commands hold ([`SessionRead::known_secrets`]).
    command_secrets: Vec<(String, &'static str)>,
    /// The classifier that weighs each prompt (the shipped one when `None`).
    model: Option<&'static Model>,
}

/// Whether a prompt keyed `earlier` ([`repeat_key`]) is a draft of the next one, keyed `key`:
/// its words, whole (a key of a long text is cut and hashed), start the longer next one (Enter
/// pressed too early, an interrupt, the prompt typed again in full).
fn drafted(earlier: &str, key: &str) -> bool {
    const MIN_DRAFT_CHARS: usize = 8;
    let words = key.split('#').next().unwrap_or(key);
    !earlier.contains('#')
        && earlier.len() >= MIN_DRAFT_CHARS
        && words.len() > earlier.len()
        && words.starts_with(earlier)
}

impl PromptReader {
    fn feed(&mut self, event: Event) {
        if event.line != self.counted_line {
            if let Some(cwd) = &event.cwd {
                self.counted_line = event.line;
                *self.dirs.entry(cwd.clone()).or_default() += 1;
            }
        }
        match &event.kind {
            EventKind::UserText { text } => {
                // Harness output and wrappers are not listed, and what the next prompt answers
                // is still what the assistant said before them.
                if !noise::is_not_a_prompt(text) {
                    let key = repeat_key(text);
                    // Sent before it was finished, then typed whole: the whole one stands for
                    // both.
                    if let Some(draft) = self.prompts.last_mut().filter(|_| !self.answered) {
                        draft.copy |= drafted(&draft.key, &key);
                    }
                    self.answered = false;
                    let copy = self.copies.is_copy(&key, place(text, event.parent));
                    let mut typed = self.typed(&event, text, key, copy);
                    let secrets =
                        answered_secrets(self.last_line.as_deref(), &self.said, &typed.head);
                    // Before this prompt's own: its `[after: …]` is what came before it.
                    typed.typed_before = self.typed_secrets.clone();
                    self.typed_secrets.extend(secrets);
                    self.prompts.push(typed);
                    self.reset();
                } else {
                    // As capture, which remembers only prompts that raise a signal, counts it.
                    self.copies.other_prompt();
                }
            }
            EventKind::Interrupt => self.copies.interrupted(),
            // What Claude Code wrote in the model's place is not what the prompt answered.
            EventKind::AssistantText { text } if noise::is_harness_reply(text) => {}
            EventKind::CompactBoundary => self.reset(),
            EventKind::AssistantText { text } => {
                self.answered = true;
                self.copies.assistant_said(text);
                self.situation.observe(&event);
                self.clear_calls();
                self.last_line = redact::last_line(text).map(|l| tail(&l, TAIL_BYTES).to_string());
                if self.said.len() + text.len() > 2 * SAID_BYTES {
                    self.said = tail(&self.said, SAID_BYTES.saturating_sub(text.len())).to_string();
                }
                self.said.push('\n');
                self.said.push_str(tail(text, SAID_BYTES));
            }
            EventKind::ToolUse { id, name, input } => {
                call_secrets(&event.kind, &mut self.command_secrets);
                self.situation.observe(&event);
                if !self.tools.contains(name) {
                    self.tools.push(name.clone());
                }
                // A refusal answers one of the last calls: a few are enough to name it.
                if self.calls.len() == CALLS_KEPT {
                    self.calls.remove(0);
                }
                self.calls.push(Call {
                    id: id.clone(),
                    tool: name.clone(),
                    command: (name == "Bash").then(|| input.clone()),
                });
            }
            EventKind::Rejection { tool_use_id, text } => {
                self.situation.observe(&event);
                let Some(call) = self.calls.iter().find(|c| &c.id == tool_use_id) else {
                    return;
                };
                if !self.refused.contains(&call.tool) {
                    self.refused.push(call.tool.clone());
                }
                // Refused without a word: the program may be one the user keeps to themselves,
                // or they edit the files themselves (or only asked a question).
                if !text.trim().is_empty() {
                    return;
                }
                let (what, subject) =
                    match call.command.as_ref().and_then(|i| i.str_field("command")) {
                        Some(command) => refusals::named(&command),
                        None if transcript::edits_a_file(&call.tool) => {
                            (refusals::FILE_EDITS.into(), String::new())
                        }
                        None => return,
                    };
                // Calls refused at once (a refusal stops the calls made beside it) are one.
                let (turn, asked) = self.prompts.last().map_or((0, false), |p| (p.line, p.asks));
                let again = self
                    .refusals
                    .iter()
                    .rev()
                    .any(|r| r.program == what && r.line > turn);
                if !what.is_empty() && !again {
                    self.refusals.push(refusals::Refusal {
                        program: what,
                        subject,
                        line: event.line,
                        asked,
                    });
                }
            }
            EventKind::ToolResult {
                tool_use_id,
                is_error: true,
                text,
            } if transcript::stopped_by_user(text).is_some() => {
                self.situation.observe(&event);
                let Some(call) = self.calls.iter().find(|c| &c.id == tool_use_id) else {
                    return;
                };
                if !self.stopped.contains(&call.tool) {
                    self.stopped.push(call.tool.clone());
                }
            }
            _ => self.situation.observe(&event),
        }
    }

    fn reset(&mut self) {
        self.situation = Situation::default();
        self.last_line = None;
        self.said.clear();
        self.clear_calls();
    }

    fn clear_calls(&mut self) {
        self.tools.clear();
        self.calls.clear();
        self.refused.clear();
        self.stopped.clear();
    }

    fn typed(&self, event: &Event, text: &str, key: String, copy: bool) -> Typed {
        let read = Reading::of(text);
        let model = self.model.unwrap_or(&model::SHIPPED);
        let probability = model.likelihood(&read, &self.situation);
        let words = self.last_line.clone().unwrap_or_default();
        let tools: Vec<&str> = self.tools.iter().map(String::as_str).collect();
        let refused: Vec<&str> = self.refused.iter().map(String::as_str).collect();
        let stopped: Vec<&str> = self.stopped.iter().map(String::as_str).collect();
        let answering = ended_with(words, &tools, &refused, &stopped);
        Typed {
            line: event.line,
            uuid: event.uuid.as_deref().map(str::to_string),
            session: event.session.clone(),
            timestamp: event.timestamp.as_deref().map(str::to_string),
            head: head_and_tail(text),
            situation: self.situation.clone(),
            paste: noise::is_paste(text),
            answering,
            typed_before: Vec::new(),
            // Only a prompt longer than its listed line is cut ([`TEXT_CHARS`], half of it:
            // redaction may lengthen a prompt).
            said: if text.len() > TEXT_CHARS / 2 {
                tail(&self.said, SAID_BYTES).to_string()
            } else {
                tail(&self.said, redact::ASKED_BYTES).to_string()
            },
            probability,
            prose_chars: read.prose.chars().count(),
            key,
            copy,
            bare: approval::is_bare(text),
            asks: question::asks(&read),
        }
    }
}

/// The secrets with no shape of their own that the sessions of `cwd`'s project hold, each read
/// whole ([`KnownReader`]): what `--show` redacts in the one session it prints (a password piped
/// to `sudo -S`, or typed as an answer, in one session may be said again in another). A session
/// that cannot be read adds nothing.
fn project_secrets(paths: &Paths, cwd: &Path) -> (Vec<(String, &'static str)>, HashSet<PathBuf>) {
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
fn command_secrets(command: &str, found: &mut Vec<(String, &'static str)>) {
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
fn call_secrets(kind: &EventKind, found: &mut Vec<(String, &'static str)>) {
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
struct KnownReader {
    /// The last line of the assistant's last text and that text's end: what the next prompt
    /// answers (taken by it).
    answering: Option<(Option<String>, String)>,
}

impl KnownReader {
    fn feed(&mut self, kind: &EventKind, found: &mut Vec<(String, &'static str)>) {
        match kind {
            EventKind::ToolUse { .. } => call_secrets(kind, found),
            EventKind::AssistantText { text } if !noise::is_harness_reply(text) => {
                let last_line = redact::last_line(text).map(|l| l.into_owned());
                self.answering = Some((last_line, tail(text, redact::ASKED_BYTES).to_string()));
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
fn answered_secrets(
    last_line: Option<&str>,
    said: &str,
    prompt: &str,
) -> Vec<(String, &'static str)> {
    if last_line.and_then(redact::Asked::of).is_none() {
        return Vec::new();
    }
    redact::Asked::of(tail(said, redact::ASKED_BYTES))
        .map(|asked| redact::findings(&sanitize::clean(prompt), Some(&asked)))
        .unwrap_or_default()
}

/// Add `value` to `found` unless it holds it already.
fn add_once(found: &mut Vec<(String, &'static str)>, value: &str, kind: &'static str) {
    if !found.iter().any(|(v, _)| v == value) {
        found.push((value.to_string(), kind));
    }
}

/// [`text::tail`], starting at the word after the cut (not at the blank before it).
fn tail(text: &str, max: usize) -> &str {
    if text.len() <= max {
        return text;
    }
    text::tail(text, max).trim_start()
}

// ---- what is stored ----

/// The prompts signals point at: by session and line, and by uuid (in whichever session: a
/// resumed session's file holds the prompts it resumed under their uuids).
#[derive(Default)]
struct Stored {
    lines: HashMap<String, HashSet<u64>>,
    uuids: HashSet<String>,
}

impl Stored {
    fn holds(&self, session: &str, p: &Typed) -> bool {
        self.lines.get(session).is_some_and(|l| l.contains(&p.line))
            || p.uuid.as_ref().is_some_and(|u| self.uuids.contains(u))
    }
}

/// Every prompt of `sessions` that a signal or a sighting in the store or the archive points at.
fn stored_prompts(store: &Store, sessions: &HashSet<&str>) -> Result<Stored> {
    let mut stored = Stored::default();
    reflect_store::store::sightings_of(store.paths(), sessions, |session, source, _| {
        if let Some(line) = source.line {
            stored
                .lines
                .entry(session.to_string())
                .or_default()
                .insert(line);
        }
        if let Some(uuid) = &source.uuid {
            stored.uuids.insert(uuid.clone());
        }
    })?;
    Ok(stored)
}

// ---- marking ----

/// Saved marks nobody used are removed after this many days (a digest can always be made again).
pub const SAVED_MARKS_DAYS: u64 = 7;

fn saved_marks_dir(paths: &Paths) -> PathBuf {
    paths.data_dir.join("digests")
}

fn prune_saved_marks(dir: &Path) {
    let max_age = std::time::Duration::from_secs(SAVED_MARKS_DAYS * 24 * 3600);
    let Ok(entries) = fs::read_dir(dir) else {
        return;
    };
    for e in entries.flatten() {
        let old = e
            .metadata()
            .and_then(|m| m.modified())
            .ok()
            .and_then(|t| t.elapsed().ok())
            .is_some_and(|age| age > max_age);
        if old {
            let _ = fs::remove_file(e.path());
        }
    }
}

/// What `--mark` was given: saved marks by name (`d…`, as a digest prints it), or marks spelled
/// out (`SESSION:LINE:TURN`). Returns the marks and the saved file to remove once they are set.
pub fn marks_named(paths: &Paths, arg: &str) -> Result<(Vec<Mark>, Option<PathBuf>)> {
    if arg.contains(':') {
        return Ok((vec![arg.parse()?], None));
    }
    let plain = arg.len() <= 32 && arg.bytes().all(|b| b.is_ascii_alphanumeric());
    let path = saved_marks_dir(paths).join(format!("{arg}.json"));
    let bytes = match plain {
        true => fsutil::read_regular(&path)?,
        false => None,
    };
    let Some(bytes) = bytes else {
        return Err(Error::msg(format!(
            "no saved marks named '{arg}' in {}: marked already, or older than {SAVED_MARKS_DAYS} days; run the digest again",
            saved_marks_dir(paths).display()
        )));
    };
    let saved: Value = serde_json::from_slice(&bytes)
        .map_err(|e| Error::msg(format!("invalid saved marks {}: {e}", path.display())))?;
    let bad = || Error::msg(format!("invalid saved marks {}", path.display()));
    let mut marks = Vec::new();
    for m in saved["marks"].as_array().ok_or_else(bad)? {
        let number = |key: &str| m[key].as_u64().ok_or_else(bad);
        marks.push(Mark {
            session: m["session"].as_str().ok_or_else(bad)?.to_string(),
            line: number("line")?,
            turn: number("turn")?.max(1),
            seen: m["seen"]
                .as_array()
                .into_iter()
                .flatten()
                .filter_map(Value::as_u64)
                .collect(),
        });
    }
    Ok((marks, Some(path)))
}

/// Forget the saved marks that name a session whose cursor file is called one of `stems`
/// ([`cursor::file_stem`]; for `forget`).
pub(crate) fn forget_saved_marks(paths: &Paths, stems: &HashSet<String>) -> usize {
    let Ok(entries) = fs::read_dir(saved_marks_dir(paths)) else {
        return 0;
    };
    let mut removed = 0;
    for e in entries.flatten() {
        let saved: Option<Value> = fsutil::read_regular(&e.path())
            .ok()
            .flatten()
            .and_then(|b| serde_json::from_slice(&b).ok());
        // A file that cannot be read as marks is no use to anyone: it goes too.
        let names = saved
            .as_ref()
            .and_then(|v| v["marks"].as_array())
            .is_none_or(|marks| {
                marks.iter().any(|m| {
                    m["session"]
                        .as_str()
                        .is_none_or(|s| stems.contains(&cursor::file_stem(s)))
                })
            });
        if names && fs::remove_file(e.path()).is_ok() {
            removed += 1;
        }
    }
    removed
}

/// What marking one session did.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Marked {
    /// The mark moved to this line.
    To(u64),
    /// A later mark was already there (another `/reflect` read further): kept.
    Kept(u64),
}

/// Mark each session read up to its [`Mark`], under the session's cursor lock (capture writes the
/// same file). A mark never moves back over one that still fits the transcript. A session capture
/// has not recorded yet gets a cursor that says only this (capture reads it from the top).
pub fn mark(paths: &Paths, marks: &[Mark], cwd: &Path) -> Result<Vec<Marked>> {
    let mut done = Vec::with_capacity(marks.len());
    for m in marks {
        let outcome = cursor::with_session_lock(paths, &m.session, LockWait::CLI, || {
            let path = cursor::path(paths, &m.session);
            let mut c = cursor::load(&path)?.unwrap_or_default();
            let transcript = c
                .transcript
                .clone()
                .or_else(|| find_transcript(paths, &m.session, cwd));
            let file = match &transcript {
                Some(t) => fsutil::open_regular(t)?,
                None => None,
            };
            // Without the transcript the next digest reads from the top, and still lists only
            // what comes after the mark.
            let mut reviewed = Reviewed {
                through: m.line,
                seen: m.seen.iter().copied().filter(|&l| l > m.line).collect(),
                ..Reviewed::default()
            };
            if let (Some(file), Some(t)) = (&file, &transcript) {
                let old = match &c.reviewed {
                    Some(old) if old.fits(file).ctx("cannot read", t)? => Some(old.clone()),
                    _ => None,
                };
                if let Some(mut old) = old.clone().filter(|old| old.through > m.line) {
                    // Another /reflect looked further: keep its mark, add what this one saw.
                    let more: Vec<u64> = reviewed
                        .seen
                        .iter()
                        .copied()
                        .filter(|&l| l > old.through)
                        .collect();
                    let kept = old.through;
                    if more.iter().any(|l| !old.seen.contains(l)) {
                        old.seen.extend(more);
                        old.seen.sort_unstable();
                        old.seen.dedup();
                        c.reviewed = Some(old);
                        cursor::save(&path, &c)?;
                    }
                    return Ok(Marked::Kept(kept));
                }
                if let Some(old) = old.filter(|old| old.through == m.line) {
                    reviewed.seen.extend(old.seen);
                    reviewed.seen.sort_unstable();
                    reviewed.seen.dedup();
                }
                let [turn, end] = line_starts(file, [m.turn - 1, m.line]).ctx("cannot read", t)?;
                let Some(end) = end else {
                    return Err(Error::usage(format!(
                        "mark {m} does not fit {}: it has fewer than {} complete lines; nothing marked",
                        t.display(),
                        m.line
                    )));
                };
                let turn = turn.expect("the turn starts before the end");
                // A turn too long to read again is not: the next prompt goes without context.
                let (offset, line) = if end - turn > TURN_REREAD_MAX {
                    (end, m.line)
                } else {
                    (turn, m.turn - 1)
                };
                reviewed.offset = offset;
                reviewed.line = line;
                reviewed.fingerprint = cursor::fingerprint(file).ctx("cannot read", t)?;
            }
            c.reviewed = Some(reviewed);
            if c.transcript.is_none() {
                c.transcript = transcript.filter(|t| t.to_str().is_some());
            }
            cursor::save(&path, &c)?;
            Ok(Marked::To(m.line))
        })?;
        done.push(outcome);
    }
    Ok(done)
}

/// The longest turn a digest reads again to give the first new prompt its context.
const TURN_REREAD_MAX: u64 = 1 << 20;

/// Where each of the 1-based lines after `after[k]` lines starts (the offset just past the
/// `after[k]`-th newline; 0 for none), `None` when the file has fewer complete lines.
fn line_starts<const N: usize>(
    file: &std::fs::File,
    after: [u64; N],
) -> io::Result<[Option<u64>; N]> {
    use reflect_base::platform::pread::read_at;
    let mut found = after.map(|k| (k == 0).then_some(0));
    let most = after.iter().copied().max().unwrap_or(0);
    let mut buf = vec![0u8; 256 << 10];
    let (mut at, mut lines) = (0u64, 0u64);
    while lines < most {
        let n = read_at(file, &mut buf, at)?;
        if n == 0 {
            break;
        }
        for nl in memchr::memchr_iter(b'\n', &buf[..n]) {
            lines += 1;
            for (k, &want) in after.iter().enumerate() {
                if want == lines {
                    found[k] = Some(at + nl as u64 + 1);
                }
            }
            if lines == most {
                break;
            }
        }
        at += n as u64;
    }
    Ok(found)
}

// ---- output ----

// Every line the digest prints is one line whatever the text in it: names (a session id, a
// project path, which may hold a newline) are shown escaped ([`sanitize::visible`]), and a
// prompt's line gives its labels first and the prompt last, so a prompt, a path or what the
// assistant said cannot forge a heading, an `L<line>`, a count or the command to mark.

/// The project a heading names: a session's own when it is not the root listed, which goes
/// without saying.
fn other_project<'a>(project: Option<&'a str>, root: Option<&str>) -> Option<&'a str> {
    project.filter(|p| Some(*p) != root)
}

fn heading(
    session: &str,
    continues: &[impl AsRef<str>],
    project: Option<&str>,
    worked_in: Option<&str>,
    last_active: Option<&str>,
) -> String {
    let mut out = format!("\n## session {}", sanitize::visible(session));
    for (n, resumed) in continues.iter().enumerate() {
        let sep = if n == 0 {
            " · same conversation as "
        } else {
            ", "
        };
        let _ = write!(out, "{sep}{}", sanitize::visible(resumed.as_ref()));
    }
    if let Some(p) = project {
        let _ = write!(out, " · {}", sanitize::visible(p));
    }
    if let Some(w) = worked_in {
        // Already escaped ([`worked_in`]).
        let _ = write!(out, " · worked in {w}");
    }
    if let Some(t) = last_active {
        let _ = write!(out, " · {}", sanitize::visible(t));
    }
    out.push('\n');
    out
}

/// How the assistant's turn ended: its last `words`, then the tools it called after them
/// (`tools`, each once) and which of them the user refused (`refused`) or stopped while they
/// ran (`stopped`), as `… (then called Bash, Read)`, `… (then called Read, Edit; Edit
/// refused)`, `… (then called Bash, stopped)`: the digest's `[after: …]` and `--show`. A
/// refusal without a reason is no signal of its own (the session summary counts it), so the
/// prompt right after it, or after a stop, is where the user says what they wanted instead.
fn ended_with(words: String, tools: &[&str], refused: &[&str], stopped: &[&str]) -> String {
    if tools.is_empty() {
        return words;
    }
    let ends: Vec<(&[&str], &str)> = [(refused, "refused"), (stopped, "stopped")]
        .into_iter()
        .filter(|(named, _)| !named.is_empty())
        .collect();
    let called = match ends.as_slice() {
        [] => format!("(then called {})", tools.join(", ")),
        [(named, how)] if named.len() == tools.len() => {
            format!("(then called {}, {how})", tools.join(", "))
        }
        _ => {
            let ends: Vec<String> = ends
                .iter()
                .map(|(named, how)| format!("{} {how}", named.join(", ")))
                .collect();
            format!("(then called {}; {})", tools.join(", "), ends.join("; "))
        }
    };
    if words.is_empty() {
        called
    } else {
        format!("{words} {called}")
    }
}

fn prompt_line(p: &Shown) -> String {
    let mut out = format!("L{}", p.line);
    if p.typed() > 1 {
        let _ = write!(out, " (typed {} times, again at ", p.typed());
        for (n, again) in p.again.iter().take(AGAIN_PLACES).enumerate() {
            let sep = if n == 0 { "" } else { ", " };
            match &again.session {
                // Whole, as `append` takes it: that session may have no heading.
                Some(session) => {
                    let _ = write!(out, "{sep}{}:L{}", sanitize::visible(session), again.line);
                }
                None => {
                    let _ = write!(out, "{sep}L{}", again.line);
                }
            }
        }
        if p.again.len() > AGAIN_PLACES {
            out.push_str(", …");
        }
        out.push(')');
    }
    if p.pasted {
        out.push_str(" (pasted)");
    }
    if !p.answering.is_empty() && p.text.chars().count() < SELF_CONTAINED_CHARS {
        // The quote is bracketed: a bracket in it would end it early.
        let quote = p.answering.replace('[', "(").replace(']', ")");
        let _ = write!(out, " [after: {quote}]");
    }
    let _ = write!(out, " {}", p.text);
    out.push('\n');
    out
}

impl Digest {
    /// The digest for the model to read: the prompts by session, what was left out, and the
    /// command that marks what was read.
    pub fn text(&self, program: &str) -> String {
        let mut out = String::new();
        let listed: usize = self.sessions.iter().map(|s| s.prompts.len()).sum();
        if self.sessions_found == 0 {
            out.push_str("No session to look at: capture has recorded none here yet, and Claude Code keeps no transcript of this project.\n");
        } else if self.sessions_read == 0 {
            let _ = writeln!(
                out,
                "Nothing new: no prompt typed since /reflect last looked at the {} session(s) found.",
                self.sessions_found
            );
        } else if listed == 0 {
            let _ = writeln!(
                out,
                "Nothing to look at in the {} session(s) read: every new prompt is stored as a signal, an approval or a repeat.",
                self.sessions_read
            );
        } else {
            let _ = writeln!(
                out,
                "{listed} prompt(s) not yet looked at, in {} session(s), newest first (each dated by its last prompt): L<line> (typed N times, again at …) (pasted) [after: the assistant's last words] prompt",
                self.sessions.len()
            );
        }
        if self.history > 0 {
            let _ = writeln!(
                out,
                "Also looked at {} session(s) from before capture was on (Claude Code's own transcripts of this project).",
                self.history
            );
        }
        for s in &self.sessions {
            out.push_str(&heading(
                &s.session,
                &s.continues,
                other_project(s.project.as_deref(), self.root.as_deref()),
                s.worked_in.as_deref(),
                s.last_active.as_deref(),
            ));
            for p in &s.prompts {
                out.push_str(&prompt_line(p));
            }
        }
        out.push_str(&refusals::text(&self.refused));
        let mut left = Vec::new();
        if self.left_out > 0 {
            left.push(format!(
                "{} prompt(s) less likely to be learning moments (over the budget of {} tokens; --budget-tokens N lists more)",
                self.left_out, self.budget_tokens
            ));
        }
        if self.stored > 0 {
            left.push(format!("{} already stored as signals", self.stored));
        }
        if self.bare > 0 {
            left.push(format!("{} approvals and bare continues", self.bare));
        }
        if self.repeats > 0 {
            left.push(format!(
                "{} typed again (in their first line's `typed N times`)",
                self.repeats
            ));
        }
        if !left.is_empty() {
            let _ = writeln!(out, "\nLeft out: {}.", left.join("; "));
        }
        if !self.gone.is_empty() {
            let _ = writeln!(
                out,
                "Not read: {} session(s) whose transcript is gone (Claude Code deletes transcripts after cleanupPeriodDays, 30 days by default): {}.",
                self.gone.len(),
                sanitize::visible(&self.gone.join(", "))
            );
        }
        for (session, why) in &self.failed {
            let (session, why) = (sanitize::visible(session), sanitize::visible(why));
            let _ = writeln!(out, "Not read: session {session}: {why}.");
        }
        if let Some(mark) = self.mark_arguments() {
            // A session read with nothing to list (a subagent's or a compaction's transcript,
            // one whose prompts are all stored) is marked too: say so, or `--mark` reads as
            // marking more than was shown.
            let quiet = self.marks.len().saturating_sub(self.sessions.len());
            let also = match quiet {
                0 => String::new(),
                n => format!(" (with the {n} other session(s) read, which list nothing)"),
            };
            let _ = writeln!(
                out,
                "\nOnce judged, mark them read{also}:\n{program} digest {mark}"
            );
        }
        out
    }

    /// The arguments that mark what was read: the saved marks' name, else every mark spelled out.
    fn mark_arguments(&self) -> Option<String> {
        if let Some(name) = &self.saved_as {
            return Some(format!("--mark {name}"));
        }
        (!self.marks.is_empty()).then(|| {
            let marks: Vec<String> = self.marks.iter().map(|m| format!("--mark {m}")).collect();
            marks.join(" ")
        })
    }

    /// Keep the marks in `<data dir>/digests/<name>.json` under a short name, so the command that
    /// marks them read stays one short line however many sessions were read (a heavy user's month
    /// is hundreds). Saved marks older than [`SAVED_MARKS_DAYS`] are removed on the way.
    pub fn save_marks(&mut self, paths: &Paths) -> Result<()> {
        if self.marks.is_empty() {
            return Ok(());
        }
        let dir = saved_marks_dir(paths);
        fsutil::ensure_private_dir(&dir)?;
        prune_saved_marks(&dir);
        let material: String = self.marks.iter().map(|m| format!("{m}\n")).collect();
        let nanos = SystemTime::now()
            .duration_since(SystemTime::UNIX_EPOCH)
            .map_or(0, |d| d.as_nanos());
        let seed = format!("{nanos}:{}:{material}", std::process::id());
        let name = format!("d{:010x}", signal::fnv1a(seed.as_bytes()) & 0xff_ffff_ffff);
        let marks: Vec<Value> = self
            .marks
            .iter()
            .map(|m| json!({"session": m.session, "line": m.line, "turn": m.turn, "seen": m.seen}))
            .collect();
        let bytes = serde_json::to_vec(&json!({ "marks": marks })).expect("serializes");
        fsutil::atomic_write(
            &dir.join(format!("{name}.json")),
            &bytes,
            fsutil::PRIVATE_FILE,
        )?;
        self.saved_as = Some(name);
        Ok(())
    }

    /// One JSON object per listed prompt.
    pub fn jsonl(&self) -> String {
        let mut out = String::new();
        for s in &self.sessions {
            for p in &s.prompts {
                let object: Value = json!({
                    "session_id": sanitize::clean(&s.session),
                    "project": s.project.as_deref().map(sanitize::clean),
                    "worked_in": s.worked_in,
                    "line": p.line,
                    "uuid": p.uuid,
                    "timestamp": p.timestamp,
                    "text": p.text,
                    "answering": p.answering,
                    "probability": (p.probability * 1000.0).round() / 1000.0,
                    "typed": p.typed(),
                    "again": p.again.iter().map(|a| json!({
                        "session_id": sanitize::clean(a.session.as_deref().unwrap_or(&s.session)),
                        "line": a.line,
                    })).collect::<Vec<_>>(),
                    "pasted": p.pasted,
                });
                out.push_str(&object.to_string());
                out.push('\n');
            }
        }
        out
    }

    /// What [`Digest::text`] says besides the prompts, in one line (for `--format jsonl`, on
    /// stderr).
    pub fn summary(&self, program: &str) -> String {
        let listed: usize = self.sessions.iter().map(|s| s.prompts.len()).sum();
        let mut out = format!(
            "{listed} prompt(s) listed from {} session(s) read; left out: {} over the budget, {} stored, {} approvals, {} repeats; {} session(s) gone",
            self.sessions_read, self.left_out, self.stored, self.bare, self.repeats, self.gone.len()
        );
        if self.history > 0 {
            let _ = write!(
                out,
                "; {} session(s) from before capture was on",
                self.history
            );
        }
        if let Some(mark) = self.mark_arguments() {
            let _ = write!(out, "; mark read: {program} digest {mark}");
        }
        out
    }
}

#[cfg(test)]
mod tests;
