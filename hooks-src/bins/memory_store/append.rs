//! `memory-store append JSON|-`: prints the id of each stored or recurring signal.

use std::io::Read;

use reflect_base::error::{Error, Result};
use reflect_store::input;

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
        let outcome = ctx.store.append(input::signals(&text)?)?;
        let mut out = String::new();
        for id in &outcome.written {
            out.push_str(id);
            out.push('\n');
        }
        for id in &outcome.recurred {
            out.push_str(id);
            out.push('\n');
            eprintln!("{PROGRAM}: {id} seen again: counted as a recurrence (meta.seen)");
        }
        if outcome.duplicates > 0 {
            eprintln!(
                "{PROGRAM}: {} already stored (same sighting), not added again",
                outcome.duplicates
            );
        }
        emit(&out);
        Ok(())
    }
}
