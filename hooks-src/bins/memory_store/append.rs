//! `memory-store append JSON|-`: stores each object as a new signal, or (`"same_as": ID`) as
//! one more sighting of a stored one, and prints one line per object, in order: the id it was
//! stored under or counted for. Evidence must name a real place (a `source.line` from 1, a
//! `session_id` the store or Claude Code's transcripts know); any object refused stores nothing.
//! Evidence at a call's line gets the line of its turn's prompt (`source.prompt_line`), as what
//! capture stores there does. A sighting says on stderr the first words of the signal it counts
//! for, and notes a place another signal came from (a rule stored twice counts twice).

use std::collections::{HashMap, HashSet};
use std::io::Read;
use std::path::Path;

use reflect_app::digest;
use reflect_base::error::{Error, Result};
use reflect_base::text;
use reflect_store::input::{self, Item};
use reflect_store::keyindex;
use reflect_store::sanitize;
use reflect_store::store::{Appended, Sighted};

use crate::cli::Append;
use crate::{Ctx, PROGRAM};
use reflect::cli_support::emit;

impl Append {
    pub fn run(self, ctx: &Ctx) -> Result<()> {
        let text = if self.json == "-" {
            // One byte past the bound is enough to refuse: a 50 MB paste is not read whole.
            let mut buf = String::new();
            std::io::stdin()
                .take(input::APPEND_INPUT_MAX_BYTES as u64 + 1)
                .read_to_string(&mut buf)
                .map_err(|e| Error::msg(format!("cannot read stdin: {e}")))?;
            buf
        } else {
            self.json
        };
        let cwd = std::env::current_dir().unwrap_or_default();
        let mut items = input::items(&text, |session, project| {
            let dir = project.map_or(cwd.as_path(), Path::new);
            digest::session_known(&ctx.store, session, dir)
        })?;
        turn_prompts(ctx, &mut items, &cwd);
        // Every target is checked before anything is stored: a wrong id stores nothing. Its
        // first words are said with each sighting, so a sighting given the wrong id shows.
        let mut targets: HashMap<String, String> = HashMap::new();
        for item in &items {
            if let Item::SameAs(target, _) = item {
                let Some(found) = ctx.store.find(target)? else {
                    return Err(Error::usage(format!(
                        "append: \"same_as\": no stored signal {target} (nothing stored)"
                    )));
                };
                let words = text::one_line(&sanitize::visible(&found.content), 60);
                targets.insert(target.clone(), words);
            }
        }
        let elsewhere = others_at_the_place(ctx, &items);
        // Runs of new signals are appended as one batch (one lock, one read of the tail); each
        // object still gets its own line of output, in order.
        let mut out = String::new();
        let mut items = items.into_iter().peekable();
        while let Some(item) = items.next() {
            match item {
                Item::New(sig) => {
                    let mut batch = vec![sig];
                    while let Some(Item::New(_)) = items.peek() {
                        if let Some(Item::New(sig)) = items.next() {
                            batch.push(sig);
                        }
                    }
                    for each in ctx.store.append(batch)?.each {
                        out.push_str(&stored_as(each));
                        out.push('\n');
                    }
                }
                Item::SameAs(target, sig) => {
                    let place = sig.session_id.clone().zip(sig.source.line);
                    let words = targets.get(&target).map(String::as_str).unwrap_or_default();
                    match ctx.store.add_sighting(&target, sig)? {
                        Sighted::Added => {
                            eprintln!(
                                "{PROGRAM}: {target} (\"{words}\") seen again: one more episode (meta.seen)"
                            )
                        }
                        Sighted::AlreadyHeld => eprintln!(
                            "{PROGRAM}: {target} already holds that sighting, not added again"
                        ),
                        Sighted::NoSuchSignal => {
                            return Err(Error::msg(format!(
                                "append: {target} is gone from the store"
                            )))
                        }
                    }
                    let other = place
                        .as_ref()
                        .and_then(|p| elsewhere.get(p))
                        .filter(|o| **o != target);
                    if let (Some(other), Some((session, line))) = (other, place) {
                        eprintln!(
                            "{PROGRAM}: note: {}:L{line} is also where {other} was seen: if it says the same rule, the two ids are one candidate (two rules of one prompt stay two)",
                            sanitize::visible(&session)
                        );
                    }
                    out.push_str(&target);
                    out.push('\n');
                }
            }
        }
        emit(&out);
        Ok(())
    }
}

/// Evidence at a call's line (a failed or refused call) gets the line of its turn's prompt,
/// as capture gives it, read once a session.
fn turn_prompts(ctx: &Ctx, items: &mut [Item], cwd: &Path) {
    let mut by_session: HashMap<(String, Option<String>), Vec<u64>> = HashMap::new();
    for sig in items.iter().map(Item::signal) {
        if let (Some(session), Some(line)) = (&sig.session_id, sig.source.line) {
            let place = (session.clone(), sig.project.clone());
            by_session.entry(place).or_default().push(line);
        }
    }
    for ((session, project), lines) in by_session {
        let dir = project.as_deref().map_or(cwd, Path::new);
        let prompts = digest::turn_prompts(&ctx.store, &session, &lines, dir);
        for sig in items.iter_mut().map(Item::signal_mut) {
            let here =
                sig.session_id.as_deref() == Some(session.as_str()) && sig.project == project;
            let prompt = sig.source.line.and_then(|l| prompts.get(&l));
            if let Some(&prompt) = prompt.filter(|_| here) {
                let key = keyindex::PROMPT_LINE.to_string();
                sig.source.extra.entry(key).or_insert(prompt.into());
            }
        }
    }
}

/// The signal already at each place a sighting names (its session and line), from one read of
/// the store: a sighting at a prompt another signal came from may count one rule twice.
fn others_at_the_place(ctx: &Ctx, items: &[Item]) -> HashMap<(String, u64), String> {
    let sessions: HashSet<&str> = items
        .iter()
        .filter_map(|item| match item {
            Item::SameAs(_, sig) => sig.session_id.as_deref(),
            Item::New(_) => None,
        })
        .collect();
    if sessions.is_empty() {
        return HashMap::new();
    }
    digest::show::stored_places(&ctx.store, &sessions)
}

/// The id one appended signal was stored under or counted for, saying on stderr which.
fn stored_as(each: Appended) -> String {
    match each {
        Appended::Written(id) => id,
        Appended::Recurred(id) => {
            eprintln!("{PROGRAM}: {id} seen again: counted as a recurrence (meta.seen)");
            id
        }
        Appended::Completed(id) => {
            eprintln!("{PROGRAM}: {id} completed with what resolved it");
            id
        }
        Appended::Duplicate(id) => {
            eprintln!("{PROGRAM}: already stored (same sighting), not added again");
            id.unwrap_or_else(|| "-".into())
        }
    }
}
