//! `memory-store dismiss ID...`: mark signals dismissed (all of them, or none).

use reflect_base::error::Result;

use crate::cli::Dismiss;
use crate::{waiting, Ctx};
use reflect::cli_support::emit;

impl Dismiss {
    pub fn run(self, ctx: &Ctx) -> Result<()> {
        ctx.store.dismiss(&self.ids, &mut waiting)?;
        emit(&format!("dismissed {}\n", self.ids.join(" ")));
        Ok(())
    }
}
