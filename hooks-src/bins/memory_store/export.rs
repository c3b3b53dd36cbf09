//! `memory-store export [--format jsonl|csv] [--archive]`: every signal, redacted again.

use reflect_app::render::{self, ListFormat};
use reflect_base::error::Result;

use crate::cli::{Export, ExportFormat};
use crate::Ctx;
use reflect::cli_support::emit;

impl Export {
    pub fn run(self, ctx: &Ctx) -> Result<()> {
        let all = ctx.store.export(self.archive)?;
        let format = match self.format {
            ExportFormat::Jsonl => ListFormat::Jsonl,
            ExportFormat::Csv => ListFormat::Csv,
        };
        emit(&render::list(&all.iter().collect::<Vec<_>>(), format));
        Ok(())
    }
}
