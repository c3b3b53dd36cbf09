//! `memory-store get ID`: one signal as pretty JSON, from the store, else the archive.

use reflect_base::error::Result;

use crate::cli::Get;
use crate::Ctx;
use reflect::cli_support::emit;

impl Get {
    pub fn run(self, ctx: &Ctx) -> Result<()> {
        let mut sig = ctx
            .store
            .find(&self.id)?
            .ok_or_else(|| ctx.store.not_found(&self.id))?;
        reflect_store::sanitize::clean_signal(&mut sig);
        emit(&(serde_json::to_string_pretty(&sig).expect("serializes") + "\n"));
        Ok(())
    }
}
