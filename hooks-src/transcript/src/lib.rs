//! reflect-transcript: the streaming reader of the JSONL transcripts Claude Code writes
//! (`transcript_path`). It imports only `reflect-base`: it knows nothing of signals, the store or
//! the detectors, which consume its [`Event`]s.
//!
//! There is no official schema and it changed a lot between CC 1.0.11 and 2.1.x (see the corpus'
//! SCHEMA.md): one API response is split over several `assistant` lines, user content is a string
//! or an array of blocks, tool results, meta caveats, slash-command wrappers, system reminders,
//! compaction summaries and sub-agent traffic all arrive as `type:"user"`. This module turns that
//! into a small stream of [`Event`]s, so the detectors see only what they reason about: genuine
//! user text, assistant text, tool calls, tool results, rejections, interrupts and compactions.
//!
//! Cost model: a PreCompact hook may read a 100 MB transcript, so the reader works in 256 KB
//! chunks (positional reads, so threads can share the file) and splits lines with memchr. A large
//! unread range is split at line starts over the cores: worker threads parse the later segments
//! ahead while the calling thread parses the first and runs the caller's callback. The parser
//! drops most lines (progress, snapshots, titles …) by a look at the first kilobyte, and records
//! already seen by a look at the last; it walks the rest once with a byte-level walker
//! (`reflect_base::json`'s trusting walk) that skips every value it does not need (tool output
//! by quote search, the duplicate `toolUseResult` not at all) and decodes only bounded heads of
//! the strings it keeps. Memory stays bounded: a line longer than [`MAX_LINE`] is skipped (still
//! counted), never buffered whole, and a worker's lead is a bounded channel of batches; the lab's
//! `examples/reader_throughput.rs` measures it by hand. The parallel read is what a cold 100 MB
//! capture pays for: `scripts/bench` measures 1.67–2.47 GB/s for it on the 2-core bench host
//! (target ≥ 1 GB/s; docs/speed.md); the hook's usual run reads a few kilobytes past its cursor
//! and stays on the calling thread.
//!
//! Sub-agent traffic (`isSidechain`) is skipped whole: its prompts are not the user's, and its
//! "Warmup" runs write refused calls that are not failures.
//!
//! Place in the conversation: each event carries its entry's [`Parent`] (`parentUuid`), led past
//! the entries the reader yields nothing for (IDE context, meta lines, a turn's `system` notes),
//! so it names the entry the conversation went on from. That tells a conversation Claude Code
//! wrote again under new uuids: its first entry goes on from the same place as the original did.
//!
//! Resumption: [`read`] starts at a [`Position`] and returns the position after the last complete
//! line. A torn last line (no newline yet; Claude Code may be mid-write) is left for the next run.
//! A read resumed mid-file parses the lines of the 64 KB before its start again, their events
//! dropped, so that its first events are led past the entries just before it, and the records
//! there written again after it are dropped, as in a read of the whole file.

use std::sync::Arc;

/// Lines longer than this are skipped: nothing a detector needs is that large, and the reader
/// must never hold a giant line (a pasted log, an image, a huge tool output) in memory.
pub const MAX_LINE: usize = 8 << 20;

/// How much of a failed tool result's text an event carries: the line that says what went
/// wrong is often near the end of a long output (a traceback's last line, a build's last step).
/// Claude Code cuts tool output at about 30,000 characters; errors are rare, so this costs little.
pub(crate) const TOOL_RESULT_TEXT_MAX: usize = 16 * 1024;
/// How much of a successful tool result's text an event carries: enough to tell an empty search
/// from a hit; the output itself teaches nothing and is most of a transcript's bytes.
pub(crate) const TOOL_OUTPUT_TEXT_MAX: usize = 256;

/// Most bytes one [`read`] goes through. A run makes progress on a transcript of any size (many
/// gigabytes, or no newline at all) well within a hook's timeout, and the next run goes on from
/// where it stopped; a real transcript is rarely a tenth of this.
pub const READ_MAX: u64 = 256 << 20;

/// Longest tool name or call id kept: they end up in signals, bounded as a hook payload's are.
pub(crate) const NAME_MAX: usize = 128;

/// Where to resume: the byte offset of the next unread line, and how many lines precede it (so
/// the next line is number `line + 1`, 1-based).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Position {
    pub offset: u64,
    pub line: u64,
}

/// One thing that happened in the session, from the entry on 1-based line `line`.
#[derive(Debug, Clone, PartialEq)]
pub struct Event {
    pub line: u64,
    /// Shared by the events of one entry.
    pub uuid: Option<Arc<str>>,
    pub timestamp: Option<Arc<str>>,
    /// The directory the session was in (the entry's `cwd`; it moves as the session `cd`s).
    /// `None` when the entry names none before the reader stops walking it: a tool result's
    /// line, whose `cwd` Claude Code writes after the output the reader skips.
    pub cwd: Option<Arc<str>>,
    /// The session the entry names (its `sessionId`). A resumed session's file begins with the
    /// conversation it resumed, each entry copied under the session it was written in; Claude
    /// Code 1.0 also went on in the same file under a new one after `/clear`.
    pub session: Option<Arc<str>>,
    /// The entry's place in the conversation (shared by the events of one entry).
    pub parent: Parent,
    pub kind: EventKind,
}

/// The entry an entry follows in the conversation (its `parentUuid`): the nearest one up its
/// chain that the reader yielded events for, as far as it remembers the entries it passed over
/// (the last [`PASSED`]: they sit right before the entry they lead to).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub enum Parent {
    /// The entry names none.
    #[default]
    Unknown,
    /// `parentUuid: null`: the conversation starts here (a file's first entry, or a
    /// conversation written again from its start).
    Root,
    /// The entry it follows, by a hash of its uuid as written ([`Parent::entry`]): a number
    /// is all a reader of the place needs, and costs no allocation a line.
    Entry(u64),
}

impl Parent {
    /// The place after the entry whose uuid is `uuid`.
    pub fn entry(uuid: &str) -> Parent {
        Parent::of(uuid.as_bytes())
    }

    /// FNV-1a over 8-byte words (a uuid's 36 bytes take five steps, not 36): stable across
    /// versions and platforms, as the hashes capture keeps from run to run must be.
    fn of(uuid: &[u8]) -> Parent {
        const PRIME: u64 = 0x0100_0000_01b3;
        let mut hash: u64 = 0xcbf2_9ce4_8422_2325;
        let mut words = uuid.chunks_exact(8);
        for word in &mut words {
            let word: [u8; 8] = word.try_into().unwrap_or_default();
            hash = (hash ^ u64::from_le_bytes(word)).wrapping_mul(PRIME);
        }
        for &b in words.remainder() {
            hash = (hash ^ u64::from(b)).wrapping_mul(PRIME);
        }
        Parent::Entry(hash)
    }
}

#[derive(Debug, Clone, PartialEq)]
pub enum EventKind {
    /// Text the human typed (injected reminders and IDE context stripped). A `#` memory shortcut
    /// keeps its `<user-memory-input>` wrapper so detectors can tell it apart.
    UserText {
        text: String,
    },
    AssistantText {
        text: String,
    },
    ToolUse {
        id: String,
        name: String,
        input: ToolInput,
    },
    /// `text` is at most `TOOL_RESULT_TEXT_MAX` bytes for an error and
    /// `TOOL_OUTPUT_TEXT_MAX` otherwise (cut on a character boundary).
    ToolResult {
        tool_use_id: String,
        is_error: bool,
        text: String,
    },
    /// The user refused a tool call; `text` is the reason they gave, empty when none.
    Rejection {
        tool_use_id: String,
        text: String,
    },
    CompactBoundary,
    /// The user stopped the assistant mid-answer (`[Request interrupted by user]`, `… for tool
    /// use]`); what the assistant wrote before it is a partial answer.
    Interrupt,
}

/// Whether Claude Code's tool `name` edits or writes a file (its input names the file).
pub fn edits_a_file(name: &str) -> bool {
    matches!(name, "Edit" | "MultiEdit" | "Write" | "NotebookEdit")
}

/// Whether `name` is the tool that presents a plan for approval (`exit_plan_mode` in CC 1.0.x).
pub fn presents_a_plan(name: &str) -> bool {
    matches!(name, "ExitPlanMode" | "exit_plan_mode")
}

mod harness;
mod parse;
mod reader;
mod walk;

pub use harness::{is_harness_reply, stopped_by_user};
pub use parse::PASSED;
pub use reader::{read, read_split};
pub use walk::ToolInput;

#[cfg(test)]
mod tests;
