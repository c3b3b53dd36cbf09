//! `memory-store prune`: apply the TTL rules.

use reflect_base::error::Result;
use reflect_store::store::CAPTURED_TTL_DAYS;

use crate::cli::Prune;
use crate::{waiting, Ctx};
use reflect::cli_support::emit;

impl Prune {
    pub fn run(self, ctx: &Ctx) -> Result<()> {
        let (pruned, flagged, archived) = ctx.store.prune(&mut waiting)?;
        emit(&format!(
            "pruned {pruned} unreviewed signal(s) older than {CAPTURED_TTL_DAYS} days; flagged {flagged} for review; archived {archived}\n"
        ));
        Ok(())
    }
}
