//! Building a digest: the sessions found, read and weighed against the budget, the prompts
//! signals already hold left out, and what is listed rendered.

use std::collections::{HashMap, HashSet};
use std::fmt::Write as _;
use std::path::Path;
use std::sync::Arc;

use chrono::{DateTime, Utc};

use reflect_base::error::Result;
use reflect_base::paths;
use reflect_base::text;
use reflect_detect::excerpt::excerpt;
use reflect_detect::model::{self, Model};
use reflect_detect::text::Reading;
use reflect_store::redact;
use reflect_store::sanitize;
use reflect_store::signal;
use reflect_store::store::Store;

use super::data::*;
use super::find::candidates;
use super::output::{heading, other_project, prompt_line};
use super::read::read_all;
use super::refusals;
use super::secrets::add_once;

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
pub(super) fn worked_in(
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
pub(super) fn dir_name(dir: &Path, project: Option<&Path>, home: Option<&Path>) -> String {
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
pub(super) fn answering_quote(raw: &str, typed_before: &[(String, &'static str)]) -> String {
    let cleaned = sanitize::clean(raw);
    text::one_line_end(
        &redact::redact_known(&cleaned, typed_before),
        ANSWERING_CHARS,
    )
}

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
