//! `memory-store query`: the signals matching every given filter, oldest first.

use reflect_app::index;
use reflect_app::render::{self, ListFormat};
use reflect_app::scope::{self, Names, Scope};
use reflect_base::error::{Error, Result};
use reflect_store::input;
use reflect_store::signal::{Kind, Signal};
use reflect_store::store::{self, Filter};

use crate::cli::{Query, QueryFormat};
use crate::Ctx;
use reflect::cli_support::{emit, emit_bytes};

impl Query {
    pub fn run(self, ctx: &Ctx) -> Result<()> {
        let scope = self
            .project
            .as_deref()
            .map(|p| Scope::of(&input::project(p)));
        if self.with_global && scope.is_none() {
            return Err(Error::usage(
                "--with-global adds personal preferences to a project's signals: give --project DIR",
            ));
        }
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
            // The root narrows the pass; who belongs to the project is decided below.
            project: match (&scope, self.with_global) {
                (Some(scope), false) => Some(scope.root().to_path_buf()),
                _ => None,
            },
            tags: self.tags,
            since: self.since.as_deref().map(input::since_now).transpose()?,
        };
        if self.budget_tokens.is_some() && !matches!(self.format, QueryFormat::Index) {
            return Err(Error::usage(
                "--budget-tokens bounds the index: use it with --format index",
            ));
        }
        let budget = self.budget_tokens.unwrap_or(index::INDEX_BUDGET_TOKENS);
        let summaries = filter.kinds.contains(&Kind::Summary);
        let bytes = ctx.store.view_bytes()?;
        let mut selection = store::select(&bytes, &filter);
        let Some(scope) = scope else {
            if let Some(n) = self.limit {
                selection.keep_newest(n);
            }
            if let QueryFormat::Jsonl = self.format {
                emit_bytes(&selection.jsonl());
                return Ok(());
            }
            let signals = selection.into_signals();
            emit(&render_list(
                &signals.iter().collect::<Vec<_>>(),
                self.format,
                None,
                budget,
                summaries,
            ));
            return Ok(());
        };
        let mut signals = selection.into_signals();
        signals.retain(|s| {
            scope.holds_signal(s) || (self.with_global && scope::is_global_kind(&s.kind))
        });
        if let Some(n) = self.limit {
            signals.drain(..signals.len().saturating_sub(n));
        }
        emit(&render_list(
            &signals.iter().collect::<Vec<_>>(),
            self.format,
            Some(&scope),
            budget,
            summaries,
        ));
        Ok(())
    }
}

/// The signals in `format`. The index names each signal's project and session, marks a
/// preference that came from outside `scope` as global, keeps within `budget_tokens`, and lists
/// summaries only when `summaries` (they were asked for by type).
fn render_list(
    signals: &[&Signal],
    format: QueryFormat,
    scope: Option<&Scope>,
    budget_tokens: usize,
    summaries: bool,
) -> String {
    let format = match format {
        QueryFormat::Jsonl => ListFormat::Jsonl,
        QueryFormat::Json => ListFormat::Json,
        QueryFormat::Table => ListFormat::Table,
        QueryFormat::Index => {
            let names = Names::default();
            // The index lists candidates for a review; a summary is its context, listed only
            // when asked for by type.
            let signals: Vec<&Signal> = signals
                .iter()
                .copied()
                .filter(|s| summaries || s.kind != Kind::Summary)
                .collect();
            return index::index(
                &signals,
                |s| {
                    let global = scope.is_some_and(|scope| !scope.holds_signal(s));
                    render::place(
                        Some(&names.of(s.project.as_deref())),
                        s.session_id.as_deref(),
                        render::prompt_of(s),
                        global,
                    )
                },
                budget_tokens,
            );
        }
    };
    render::list(signals, format)
}
