//! `memory-store digest`: the prompts /reflect has not looked at yet, or `--mark` them read.

use reflect_app::digest::{self, Mark, Marked, Request};
use reflect_app::scope::Scope;
use reflect_base::error::{Error, Result};
use reflect_store::input;

use crate::cli::{Digest, DigestFormat};
use crate::{Ctx, PROGRAM};
use reflect::cli_support::emit;

impl Digest {
    pub fn run(self, ctx: &Ctx) -> Result<()> {
        let cwd = std::env::current_dir()
            .map_err(|e| Error::msg(format!("cannot read the current directory: {e}")))?;
        if !self.show.is_empty() {
            let (mut out, mut commands) = (Vec::new(), digest::show::Commands::default());
            for arg in &self.show {
                let (session, line) = digest::show::parse(arg)?;
                let (store, c) = (&ctx.store, &mut commands);
                out.push(match line {
                    Some(line) => digest::show::show(store, &session, line, &cwd, c, self.whole)?,
                    None => digest::calls::calls(store, &session, &cwd, c)?,
                });
            }
            emit(&out.join("\n"));
            return Ok(());
        }
        if !self.marks.is_empty() {
            let mut marks: Vec<Mark> = Vec::new();
            let mut saved = Vec::new();
            for arg in self.marks.iter().flat_map(|m| m.split(',')) {
                if arg.trim().is_empty() {
                    continue;
                }
                let (named, file) = digest::marks_named(&ctx.paths, arg.trim())?;
                marks.extend(named);
                saved.extend(file);
            }
            let done = digest::mark(&ctx.paths, &marks, &cwd)?;
            for file in saved {
                let _ = std::fs::remove_file(file);
            }
            let mut out = String::new();
            if marks.len() <= 3 {
                for (m, d) in marks.iter().zip(&done) {
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
            } else {
                let kept = done.iter().filter(|d| matches!(d, Marked::Kept(_))).count();
                // Each mark stops before the first prompt the digest left out for its budget: say
                // so, or "read" reads as "done with" (models feared the rest was lost).
                out.push_str(&format!(
                    "marked {} session(s) read up to what the digest listed (prompts it left out for its budget stay unread)",
                    done.len() - kept
                ));
                if kept > 0 {
                    out.push_str(&format!("; {kept} already marked read further, kept"));
                }
                out.push('\n');
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
            model: None,
        };
        let mut found = digest::digest(&ctx.store, &req)?;
        found.save_marks(&ctx.paths)?;
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
