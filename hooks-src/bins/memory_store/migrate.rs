//! `memory-store migrate`: v2 store lines to schema v1, v1's CLAUDE.md section out, legacy hook
//! entries replaced (or the user told how).

use reflect_app::{install, migrate};
use reflect_base::error::Result;

use crate::cli::Migrate;
use crate::{waiting, Ctx};
use reflect::cli_support::emit;

impl Migrate {
    pub fn run(self, ctx: &Ctx) -> Result<()> {
        let report = migrate::run(&ctx.paths, &ctx.store, false, &mut waiting)?;
        emit(&format!(
            "migrated {} v2 signal(s) to schema v1 in {}\n",
            report.store_converted,
            ctx.paths.store().display()
        ));
        if let Some(line) = report.claude_md {
            emit(&(line + "\n"));
        }
        let bin = install::bin_dir(&ctx.paths)?;
        let Some(legacy) = migrate::legacy_hooks(&ctx.paths, &bin, &mut waiting)? else {
            return Ok(());
        };
        let n = legacy.entries;
        let entries = if n == 1 { "entry" } else { "entries" };
        let settings = ctx.paths.settings();
        if legacy.replaced {
            let backup = legacy
                .backup
                .map(|b| format!(" (backup: {})", b.display()))
                .unwrap_or_default();
            emit(&format!(
                "replaced {n} legacy hook {entries} in {} with the current hooks{backup}\n",
                settings.display()
            ));
        } else {
            let them = if n == 1 { "it" } else { "them" };
            emit(&format!(
                "{n} legacy hook {entries} in {}: run `reflect-toggle on` to replace {them} with the current hooks\n",
                settings.display()
            ));
        }
        Ok(())
    }
}
