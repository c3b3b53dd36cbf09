//! `memory-store prune`: apply the TTL rules.

use reflect_core::error::Result;
use reflect_core::store::CAPTURED_TTL_DAYS;

use crate::cli::Prune;
use crate::cli_support::emit;
use crate::{waiting, Ctx};

impl Prune {
    pub fn run(self, ctx: &Ctx) -> Result<()> {
        let (pruned, flagged, archived) = ctx.store.prune(&mut waiting)?;
        emit(&format!(
            "pruned {pruned} unreviewed signal(s) older than {CAPTURED_TTL_DAYS} days; flagged {flagged} for review; archived {archived}\n"
        ));
        Ok(())
    }
}
