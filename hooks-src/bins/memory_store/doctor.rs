//! `memory-store doctor`: what is wrong with the install, the hooks or the store, and the fix.

use reflect_app::doctor;
use reflect_base::error::{Error, Result};

use crate::cli::Doctor;
use crate::Ctx;
use reflect::cli_support::emit;

impl Doctor {
    pub fn run(self, ctx: &Ctx) -> Result<()> {
        let report = doctor::run(&ctx.paths);
        emit(&report.text());
        if report.failed() {
            Err(Error::msg("problems found (see above)"))
        } else {
            Ok(())
        }
    }
}
