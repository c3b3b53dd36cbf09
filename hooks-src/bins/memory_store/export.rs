//! `memory-store export [--format jsonl|csv] [--archive]`: every signal, redacted again.

use reflect_core::error::Result;
use reflect_core::render::{self, ListFormat};

use crate::cli::{Export, ExportFormat};
use crate::cli_support::emit;
use crate::Ctx;

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
