//! `memory-store digest`: the prompts /reflect has not looked at yet, or `--mark` them read.

use reflect_core::digest::{self, Mark, Marked, Request};
use reflect_core::error::{Error, Result};
use reflect_core::input;
use reflect_core::scope::Scope;

use crate::cli::{Digest, DigestFormat};
use crate::cli_support::emit;
use crate::{Ctx, PROGRAM};

impl Digest {
    pub fn run(self, ctx: &Ctx) -> Result<()> {
        let cwd = std::env::current_dir()
            .map_err(|e| Error::msg(format!("cannot read the current directory: {e}")))?;
        if !self.marks.is_empty() {
            let marks: Vec<Mark> = self
                .marks
                .iter()
                .flat_map(|m| m.split(','))
                .filter(|m| !m.trim().is_empty())
                .map(|m| m.trim().parse())
                .collect::<Result<_>>()?;
            let done = digest::mark(&ctx.paths, &marks, &cwd)?;
            let mut out = String::new();
            for (m, d) in marks.iter().zip(done) {
                out.push_str(&match d {
                    Marked::To(line) => {
                        format!("marked session {} read up to line {line}\n", m.session)
                    }
                    Marked::Kept(line) => format!(
                        "session {} was already marked read further, up to line {line}; kept\n",
                        m.session
                    ),
                });
            }
            emit(&out);
            return Ok(());
        }
        let scope = match (self.all, &self.project) {
            (true, _) => None,
            (false, Some(dir)) => Some(Scope::of(&input::project(dir))),
            (false, None) => Some(Scope::of(&input::project(&cwd))),
        };
        let req = Request {
            scope,
            session: self.session,
            current: self.current.filter(|s| !s.is_empty()),
            cwd,
            since: self.since.as_deref().map(input::since_now).transpose()?,
            transcripts: self.transcripts,
            budget_tokens: self.budget_tokens,
        };
        let found = digest::digest(&ctx.store, &req)?;
        match self.format {
            DigestFormat::Text => emit(&found.text(PROGRAM)),
            DigestFormat::Jsonl => {
                emit(&found.jsonl());
                eprintln!("{PROGRAM}: {}", found.summary(PROGRAM));
            }
        }
        Ok(())
    }
}
