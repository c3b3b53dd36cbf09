//! `memory-store query`: the signals matching every given filter, oldest first.

use reflect_core::error::Result;
use reflect_core::input;
use reflect_core::render::{self, ListFormat};
use reflect_core::store::{self, Filter};

use crate::cli::{Query, QueryFormat};
use crate::cli_support::{emit, emit_bytes};
use crate::Ctx;

impl Query {
    pub fn run(self, ctx: &Ctx) -> Result<()> {
        let filter = Filter {
            statuses: self
                .statuses
                .iter()
                .map(|s| input::status(s))
                .collect::<Result<_>>()?,
            kinds: self
                .kinds
                .iter()
                .map(|k| input::kind(k))
                .collect::<Result<_>>()?,
            session: self.session,
            project: self.project.map(|p| input::project(&p)),
            tags: self.tags,
            since: self.since.as_deref().map(input::since_now).transpose()?,
        };
        let bytes = ctx.store.view_bytes()?;
        let mut selection = store::select(&bytes, &filter);
        if let Some(n) = self.limit {
            selection.keep_newest(n);
        }
        let format = match self.format {
            QueryFormat::Jsonl => {
                emit_bytes(&selection.jsonl());
                return Ok(());
            }
            QueryFormat::Json => ListFormat::Json,
            QueryFormat::Table => ListFormat::Table,
            QueryFormat::Index => ListFormat::Index,
        };
        let signals = selection.into_signals();
        emit(&render::list(&signals.iter().collect::<Vec<_>>(), format));
        Ok(())
    }
}
