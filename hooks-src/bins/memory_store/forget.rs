//! `memory-store forget ID...|--session SID|--project DIR`: a hard delete.

use reflect_app::forget;
use reflect_base::error::{Error, Result};
use reflect_store::input;

use crate::cli::Forget;
use crate::Ctx;
use reflect::cli_support::emit;

impl Forget {
    pub fn run(self, ctx: &Ctx) -> Result<()> {
        let selector = forget::Selector {
            ids: self.ids,
            session: self.session,
            project: self.project.map(|p| input::project(&p)),
        };
        if selector.is_empty() {
            return Err(Error::usage(
                "forget what? give signal ids, --session SID or --project DIR",
            ));
        }
        let r = forget::forget(&ctx.store, &selector)?;
        emit(&format!(
            "forgot {} signal(s): {} from the store, {} from the archive; {} learnings file(s) and {} other file(s) cleaned (backups, quarantine, spool, leftovers, error log)\n",
            r.from_store + r.from_archive,
            r.from_store,
            r.from_archive,
            r.learnings_files,
            r.files_scrubbed
        ));
        if r.cursors_forgotten > 0 {
            emit(&format!(
                "{} capture cursor(s) removed (only the place each session was read to is kept, under a name that does not name it)\n",
                r.cursors_forgotten
            ));
        }
        if r.cursors_scrubbed > 0 {
            emit(&format!(
                "{} capture cursor(s) no longer list their session's files and tools\n",
                r.cursors_scrubbed
            ));
        }
        Ok(())
    }
}
