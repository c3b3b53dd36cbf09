//! `memory-store append JSON|-`: stores each object as a new signal, or (`"same_as": ID`) as
//! one more sighting of a stored one, and prints one line per object, in order: the id it was
//! stored under or counted for.

use std::io::Read;

use reflect_base::error::{Error, Result};
use reflect_store::input::{self, Item};
use reflect_store::store::Sighted;

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
        let items = input::items(&text)?;
        // Every target is checked before anything is stored: a wrong id stores nothing.
        for item in &items {
            if let Item::SameAs(target, _) = item {
                if ctx.store.find(target)?.is_none() {
                    return Err(Error::usage(format!(
                        "append: \"same_as\": no stored signal {target} (nothing stored)"
                    )));
                }
            }
        }
        // One object at a time, so each line of output answers its object.
        let mut out = String::new();
        for item in items {
            let id = match item {
                Item::New(sig) => stored_as(ctx.store.append(vec![sig])?),
                Item::SameAs(target, sig) => match ctx.store.add_sighting(&target, sig)? {
                    Sighted::Added => {
                        eprintln!("{PROGRAM}: {target} seen again: one more episode (meta.seen)");
                        target
                    }
                    Sighted::AlreadyHeld => {
                        eprintln!(
                            "{PROGRAM}: {target} already holds that sighting, not added again"
                        );
                        target
                    }
                    Sighted::NoSuchSignal => {
                        return Err(Error::msg(format!(
                            "append: {target} is gone from the store"
                        )))
                    }
                },
            };
            out.push_str(&id);
            out.push('\n');
        }
        emit(&out);
        Ok(())
    }
}

/// The id one appended signal was stored under or counted for, saying on stderr which.
fn stored_as(outcome: reflect_store::store::AppendOutcome) -> String {
    if let Some(id) = outcome.written.into_iter().next() {
        return id;
    }
    if let Some(id) = outcome.recurred.into_iter().next() {
        eprintln!("{PROGRAM}: {id} seen again: counted as a recurrence (meta.seen)");
        return id;
    }
    if let Some(id) = outcome.completed.into_iter().next() {
        eprintln!("{PROGRAM}: {id} completed with what resolved it");
        return id;
    }
    let id = outcome.duplicate_of.into_iter().next();
    eprintln!("{PROGRAM}: already stored (same sighting), not added again");
    id.unwrap_or_else(|| "-".into())
}
