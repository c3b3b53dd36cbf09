//! `memory-store digest`: `/reflect`'s second look. The hooks judge each prompt with a small model
//! and store only what they are sure of; the model in the user's own session can judge meaning.
//! The digest hands it, cheaply, what the user typed that capture did not store and `/reflect`
//! has not looked at yet.
//!
//! **Sessions** are found through what capture recorded: each session's cursor
//! (`cursors/<session>.json`) names its transcript and project. The session `/reflect` runs in
//! (`--current`) may not have a cursor yet (it never compacted); its transcript is found under
//! `<config dir>/projects/`. So are the project's sessions capture never recorded (it was off,
//! or just turned on: [`history`]), so the first `/reflect` has something to review.
//! `--transcript FILE` reads given files instead. A session whose
//! transcript is gone (Claude Code deletes them after `cleanupPeriodDays`, 30 by default) is
//! counted and named, never an error. Nothing of what the user typed is kept by reflect for
//! this: the digest reads Claude Code's transcripts while they exist, and a weekly `/reflect`
//! fits well inside those 30 days.
//!
//! **Prompts** are read as capture reads them ([`transcript::read`]: no tool results, meta lines,
//! command output, reminders, compaction summaries or sub-agent traffic), each with the end of
//! the assistant's last words before it (never what Claude Code wrote in its place). Left out:
//! what Claude Code or the shell wrote as a prompt ([`noise`]), prompts a signal already points
//! at (by `source.line` or `source.uuid`, any status, store and archive), approvals and bare
//! continues ([`approval`]), the same text typed again (listed once, with how often and where:
//! each place is another turn, so another sighting), and a copy: a prompt read before under the
//! same uuid (a resumed session's file repeats what it resumed) or, in another session, at the
//! same time (a resume written again under new uuids), or sent again under a new one after the
//! same assistant words ([`reflect_detect::copies`]), which is not counted as typed
//! again. A resumed session's file begins with a copy of the conversation it resumed, each
//! entry naming the session it was typed in: when that session's own file is read too, the
//! copy is listed there, and the heading of the one that resumed it says `same conversation
//! as …`. Nor is a draft counted: a prompt no assistant text answered whose words start the
//! next, longer one (Enter pressed too early, then the whole prompt), listed as that one
//! (`drafted`).
//! A long prompt is listed as its likeliest sentence ([`excerpt`]), a rule stated in passing
//! ahead of the task it came with ([`model::lesson_score`]); `--show` prints it whole ([`show`]),
//! and a session's failed and refused calls a line each ([`calls`]).
//!
//! **Secrets.** Everything printed is redacted: by the rules, a value typed as the answer to a
//! question asking for one, and a value with no shape of its own that a Bash command of the
//! sessions read held by its context (a password piped to `sudo -S`:
//! [`secrets::command_secrets`]) or a prompt gave as such an answer, wherever a listed prompt or
//! its quote holds it, in any session; `--show` knows those of all the project's sessions
//! ([`secrets::KnownReader`]).
//!
//! **Budget.** Within `budget_tokens` (characters / 4) the prompts most likely to be learning
//! moments come first: the learned classifier's probability ([`model::SHIPPED`], read from the
//! prompt in the situation it answered, as the detector reads it), then the longer prose;
//! pasted logs and documents after everything else. They
//! are listed grouped by session, newest session first, each session's prompts in the order
//! typed. A session's time, in its heading and for that order, is its last prompt's timestamp in
//! the transcript (the file's modification time when no prompt has one): a transcript copied,
//! restored or imported later keeps its own times, while its file's is the copy's. The heading
//! also says where the session worked when that is not only its project dir (each entry records
//! its `cwd`, which moves as the session `cd`s: [`worked_in`]), so a session started in a home dir
//! or a folder of repositories tells which one it was about. What did not fit is counted.
//!
//! **Marks.** A session's cursor keeps how far `/reflect` has looked ([`Reviewed`]): the last line
//! looked at, and the start of the turn in progress there, where the next digest resumes so that
//! the first new prompt is read with what it answered. The digest reads only after it and ends
//! with the command that moves each session's mark to what this digest listed ([`Mark`]): up to
//! the first prompt it left out for the budget (or to where the read ended), with the prompts it
//! listed after that one remembered (`Reviewed::seen`). So a prompt left out stays unread and
//! comes first next time, and what a session adds in between stays unread too. The marks are
//! saved under a short name (`<data dir>/digests/<name>.json`, removed when used, by `forget`, or
//! after [`SAVED_MARKS_DAYS`] days), so that command is one short line however many sessions
//! were read.
//!
//! **Where things are.** [`list::digest`] builds a digest: [`find`] finds the sessions, [`read`]
//! reads each one's unread part ([`secrets`] gathers the values with no shape of their own to
//! redact), and [`output`] prints what was listed; [`marks`] moves the cursors afterwards; the
//! types they share are in [`data`]. `--show` is [`show`] and [`calls`]; what is no prompt,
//! [`noise`], [`approval`] and [`question`]; repeated refusals, [`refusals`].
//!
//! [`transcript::read`]: reflect_transcript::read
//! [`excerpt`]: reflect_detect::excerpt::excerpt
//! [`model::lesson_score`]: reflect_detect::model::lesson_score
//! [`model::SHIPPED`]: reflect_detect::model::SHIPPED
//! [`worked_in`]: list::worked_in
//! [`Reviewed`]: crate::cursor::Reviewed

mod approval;
pub mod calls;
mod data;
mod find;
pub mod history;
mod list;
mod marks;
mod noise;
mod output;
mod question;
mod read;
mod refusals;
mod secrets;
pub mod show;
mod show_calls;

pub use data::{Again, Digest, Listed, Mark, Request, Shown};
pub use data::{ANSWERING_CHARS, DEFAULT_BUDGET_TOKENS, TEXT_CHARS};
pub use find::{session_known, turn_prompts};
pub use list::digest;
pub(crate) use marks::forget_saved_marks;
pub use marks::{mark, marks_named, Marked, SAVED_MARKS_DAYS};

#[cfg(test)]
mod tests;
