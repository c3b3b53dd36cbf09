//! `memory-store promote ID --target FILE --content TEXT`: write an approved learning into a file.

use reflect_app::promote;
use reflect_base::error::Result;

use crate::cli::Promote;
use crate::Ctx;
use reflect::cli_support::emit;

impl Promote {
    pub fn run(self, ctx: &Ctx) -> Result<()> {
        let target = std::path::absolute(&self.target).unwrap_or(self.target);
        let done = promote::promote(
            &ctx.store,
            &self.id,
            &target,
            &self.content,
            self.section.as_deref(),
            self.mkdir,
        )?;
        if !done.changed {
            emit(&format!(
                "promoted {} before: the line is already in {} under ## {}; nothing changed\n",
                self.id,
                done.target.display(),
                done.section
            ));
            return Ok(());
        }
        let what = if done.added { "added to" } else { "already in" };
        let created = if done.created { " (created)" } else { "" };
        let backup = done
            .backup
            .map(|b| format!("; backup {}", b.display()))
            .unwrap_or_default();
        emit(&format!(
            "promoted {}: {what} {}{created} under ## {}{backup}\n",
            self.id,
            done.target.display(),
            done.section
        ));
        Ok(())
    }
}
