//! `memory-store get ID`: one signal as pretty JSON, from the store, else the archive.

use reflect_core::error::Result;

use crate::cli::Get;
use crate::cli_support::emit;
use crate::Ctx;

impl Get {
    pub fn run(self, ctx: &Ctx) -> Result<()> {
        let mut sig = ctx
            .store
            .find(&self.id)?
            .ok_or_else(|| ctx.store.not_found(&self.id))?;
        reflect_core::sanitize::clean_signal(&mut sig);
        emit(&(serde_json::to_string_pretty(&sig).expect("serializes") + "\n"));
        Ok(())
    }
}
