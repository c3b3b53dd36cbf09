//! `memory-store update ID...`: change signals' status, confidence, category or tags (all or none).

use reflect_base::error::{Error, Result};
use reflect_store::input;
use reflect_store::store::Changes;

use crate::cli::Update;
use crate::{waiting, Ctx};
use reflect::cli_support::emit;

impl Update {
    pub fn run(self, ctx: &Ctx) -> Result<()> {
        let nothing = self.status.is_none()
            && self.confidence.is_none()
            && self.category.is_none()
            && self.tags.is_empty();
        if nothing {
            return Err(Error::usage(
                "nothing to update: give --status, --confidence, --category or --tag",
            ));
        }
        let changes = Changes {
            status: self.status.as_deref().map(input::status).transpose()?,
            confidence: self.confidence,
            category: self.category,
            tags: self.tags,
        };
        ctx.store.update(&self.ids, changes, &mut waiting)?;
        emit(&format!("updated {}\n", self.ids.join(" ")));
        Ok(())
    }
}
