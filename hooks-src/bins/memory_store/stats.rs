//! `memory-store stats [--format text|json|statusline]`.

use reflect_core::error::Result;
use reflect_core::{render, store};

use crate::cli::{Stats, StatsFormat};
use crate::cli_support::emit;
use crate::Ctx;

impl Stats {
    pub fn run(self, ctx: &Ctx) -> Result<()> {
        let bytes = ctx.store.view_bytes()?;
        let stats = store::stats(&bytes);
        emit(&match self.format {
            StatsFormat::Text => render::stats_text(&stats),
            StatsFormat::Json => serde_json::to_string_pretty(&stats).expect("serializes") + "\n",
            StatsFormat::Statusline => render::statusline(&stats),
        });
        Ok(())
    }
}
