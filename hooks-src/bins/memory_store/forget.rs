//! `memory-store forget ID...|--session SID|--project DIR`: a hard delete.

use reflect_core::error::{Error, Result};
use reflect_core::{forget, input};

use crate::cli::Forget;
use crate::cli_support::emit;
use crate::Ctx;

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
        // An id found nowhere is a typo: say so, and forget nothing.
        let mut unknown = Vec::new();
        for id in &selector.ids {
            if ctx.store.find(id)?.is_none() {
                unknown.push(id.as_str());
            }
        }
        if !unknown.is_empty() {
            return Err(Error::msg(format!(
                "no signal {} in {} or its archive; nothing forgotten",
                unknown.join(", "),
                ctx.paths.store().display()
            )));
        }
        let r = forget::forget(&ctx.store, &selector)?;
        emit(&format!(
            "forgot {} signal(s): {} from the store, {} from the archive; {} learnings file(s) and {} backup(s) cleaned\n",
            r.from_store + r.from_archive,
            r.from_store,
            r.from_archive,
            r.learnings_files,
            r.backups_scrubbed
        ));
        if r.cursor_scrubbed {
            emit("capture's cursor no longer holds the session's files, tools, transcript or review mark\n");
        }
        Ok(())
    }
}
