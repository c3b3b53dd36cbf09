//! `memory-store archive [--days N] [--status S]...`: move signals to the archive file.

use reflect_core::error::Result;
use reflect_core::input;
use reflect_core::signal::Status;

use crate::cli::Archive;
use crate::cli_support::emit;
use crate::{waiting, Ctx};

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
