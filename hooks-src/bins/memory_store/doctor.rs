//! `memory-store doctor`: what is wrong with the install, the hooks or the store, and the fix.

use reflect_core::doctor;
use reflect_core::error::{Error, Result};

use crate::cli::Doctor;
use crate::cli_support::emit;
use crate::Ctx;

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
