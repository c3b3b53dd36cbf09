//! `memory-store stats [--format text|json|statusline]`.

use reflect_app::render;
use reflect_base::error::Result;
use reflect_store::store;

use crate::cli::{Stats, StatsFormat};
use crate::Ctx;
use reflect::cli_support::emit;

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
