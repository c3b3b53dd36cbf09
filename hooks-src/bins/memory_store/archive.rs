//! `memory-store archive [--days N] [--status S]...`: move signals to the archive file.

use reflect_base::error::Result;
use reflect_store::input;
use reflect_store::signal::Status;

use crate::cli::Archive;
use crate::{waiting, Ctx};
use reflect::cli_support::emit;

impl Archive {
    pub fn run(self, ctx: &Ctx) -> Result<()> {
        let statuses: Vec<Status> = self
            .statuses
            .iter()
            .map(|s| input::status(s))
            .collect::<Result<_>>()?;
        let moved = ctx.store.archive(&statuses, self.days, &mut waiting)?;
        emit(&format!(
            "archived {moved} signal(s) to {}\n",
            ctx.paths.archive().display()
        ));
        Ok(())
    }
}
