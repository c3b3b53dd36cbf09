//! One line of a transcript to its events: which lines matter, the entries already seen, and
//! each event's place in the conversation.

use foldhash::fast::FixedState;
use std::collections::HashSet;
use std::sync::{Arc, LazyLock};

use memchr::memmem;

use crate::harness::{genuine_user_text, is_interrupt, tool_result_event};
use crate::walk::{decode_str, Block, Entry, ASSISTANT_TEXT_MAX, TEXT_MAX};
use crate::{Event, EventKind, Parent, NAME_MAX};

/// Longest `cwd` kept, in bytes of JSON: longer than any path a system takes (Windows' long
/// paths are 32,767 characters).
const CWD_MAX: usize = 64 << 10;

/// The calling thread's state: what [`Parser`] keeps, and the entries passed over, to lead its
/// events' parents past them.
#[derive(Default)]
pub(crate) struct LineParser {
    pub(crate) parser: Parser,
    pub(crate) passed: Passed,
}

/// Per-thread state: the uuids already yielded (Claude Code re-writes some records on resume),
/// the last cwd and session.
#[derive(Default)]
pub(crate) struct Parser {
    /// A worker parsing a later segment ahead knows only its own segment's uuids; the calling
    /// thread checks the lines it keeps against all earlier ones in [`LineParser::merge`].
    pub(crate) seen_uuids: HashSet<Arc<str>, FixedState>,
    /// The last `cwd` decoded, raw and decoded: a session's entries repeat one or a few, so
    /// one decoding serves a run of them.
    last_cwd: Option<(Box<[u8]>, Arc<str>)>,
    /// The last `sessionId` decoded, the same way.
    last_session: Option<(Box<[u8]>, Arc<str>)>,
}

/// How many entries passed over (walked, yielding no event) are remembered for [`Parent`].
pub const PASSED: usize = 32;

/// The last [`PASSED`] entries passed over (by their [`Parent::Entry`] hash; 0 for none yet),
/// each with the parent it leads to, in a ring: a uuid passes once, so the order of a look-up
/// does not matter, and every line's look-up is one scan of a few cache lines.
#[derive(Default)]
pub(crate) struct Passed {
    uuids: [u64; PASSED],
    to: [Parent; PASSED],
    next: usize,
}

impl Passed {
    /// `parent`, led past the entries passed over.
    pub(crate) fn lead(&self, parent: Parent) -> Parent {
        if let Parent::Entry(uuid) = parent {
            if let Some(at) = self.uuids.iter().position(|&passed| passed == uuid) {
                return self.to[at];
            }
        }
        parent
    }

    /// Entry `uuid`, a child of `parent`, yielded no event.
    pub(crate) fn pass(&mut self, uuid: &str, parent: Parent) {
        let to = self.lead(parent);
        if let Parent::Entry(hash) = Parent::entry(uuid) {
            self.uuids[self.next] = hash;
            self.to[self.next] = to;
            self.next = (self.next + 1) % PASSED;
        }
    }
}

/// A line the parser kept (see [`Parser::parse`]).
pub(crate) struct Parsed {
    pub(crate) uuid: Option<Arc<str>>,
    pub(crate) parent: Parent,
}

/// `"type":"` — inside a JSON string every quote is escaped, so this byte pattern only matches
/// the document's structure.
const TYPE_KEY: &[u8] = b"\"type\":\"";
const MESSAGE_KEY: &[u8] = b"\"message\":";
/// How far into a line its top-level `type` is looked for: it sits within a few hundred bytes of
/// the start when it sits there.
const PEEK: usize = 1024;

static TYPE_FINDER: LazyLock<memmem::Finder<'static>> =
    LazyLock::new(|| memmem::Finder::new(TYPE_KEY));
static MESSAGE_FINDER: LazyLock<memmem::Finder<'static>> =
    LazyLock::new(|| memmem::Finder::new(MESSAGE_KEY));

/// Whether a line may hold an entry the reader yields, judged from its head alone. User and
/// system entries name their `type` before their `message`; progress, snapshots, titles,
/// queue operations and attachments name theirs (or a nested one) early too, and are dropped
/// here. An assistant entry writes `message` first, so a line whose head shows no `type`
/// before `message` goes to the walker, which reads the real type.
fn may_matter(line: &[u8]) -> bool {
    let head = &line[..line.len().min(PEEK)];
    let Some(at) = TYPE_FINDER.find(head) else {
        return true;
    };
    if MESSAGE_FINDER.find(&head[..at]).is_some() {
        return true;
    }
    let value = &line[at + TYPE_KEY.len()..];
    value.starts_with(b"user\"")
        || value.starts_with(b"assistant\"")
        || value.starts_with(b"system\"")
}

impl LineParser {
    pub(crate) fn line(&mut self, line: &[u8], number: u64, on_event: &mut impl FnMut(Event)) {
        let passed = &mut self.passed;
        let mut events = 0;
        let parsed = self.parser.parse(line, number, &mut |mut event: Event| {
            events += 1;
            event.parent = passed.lead(event.parent);
            on_event(event)
        });
        if let Some(Parsed {
            uuid: Some(uuid),
            parent,
        }) = parsed.filter(|_| events == 0)
        {
            self.passed.pass(&uuid, parent);
        }
    }
}

/// The decoded raw JSON string `raw`, shared with the entries before it that named the same
/// (`last`): a session's entries repeat one or a few values of a field.
fn shared(last: &mut Option<(Box<[u8]>, Arc<str>)>, raw: &[u8]) -> Arc<str> {
    if let Some((was, decoded)) = last {
        if **was == *raw {
            return decoded.clone();
        }
    }
    let decoded: Arc<str> = Arc::from(decode_str(raw));
    *last = Some((raw.into(), decoded.clone()));
    decoded
}

impl Parser {
    /// Parse one line, passing its events to `on_event` (their parent as the line names it);
    /// returns the line's uuid and parent, or `None` when the line is dropped (irrelevant,
    /// malformed, sub-agent, already seen). A record written
    /// again (on resume) is known by its top-level uuid only after the walk: a look for a
    /// `"uuid":"` near the end of the line to skip the walk would also find a nested one, and
    /// drop a new record whose output happens to name an earlier record's uuid.
    pub(crate) fn parse(
        &mut self,
        line: &[u8],
        number: u64,
        on_event: &mut impl FnMut(Event),
    ) -> Option<Parsed> {
        if !may_matter(line) {
            return None;
        }
        let entry = Entry::walk(line)?;
        if entry.sidechain {
            return None;
        }
        let uuid: Option<Arc<str>> = entry.uuid.map(|raw| Arc::from(decode_str(raw)));
        if let Some(uuid) = &uuid {
            if !self.seen_uuids.insert(uuid.clone()) {
                return None;
            }
        }
        let timestamp: Option<Arc<str>> = entry.timestamp.map(|raw| Arc::from(decode_str(raw)));
        let cwd = entry
            .cwd
            .filter(|raw| raw.starts_with(b"\"") && raw.len() <= CWD_MAX)
            .map(|raw| shared(&mut self.last_cwd, raw));
        let session = entry
            .session
            .filter(|raw| raw.starts_with(b"\"") && raw.len() <= NAME_MAX)
            .map(|raw| shared(&mut self.last_session, raw));
        let parent = match entry.parent {
            None => Parent::Unknown,
            Some(b"null") => Parent::Root,
            // A uuid has no escapes: its bytes as written are its text.
            Some(raw) if raw.len() >= 2 && raw.starts_with(b"\"") && raw.len() <= NAME_MAX => {
                Parent::of(&raw[1..raw.len() - 1])
            }
            Some(_) => Parent::Unknown,
        };
        let mut emit = |kind: EventKind| {
            on_event(Event {
                line: number,
                uuid: uuid.clone(),
                timestamp: timestamp.clone(),
                cwd: cwd.clone(),
                session: session.clone(),
                parent,
                kind,
            })
        };
        match entry.kind {
            Some(b"\"system\"") if entry.subtype == Some(b"\"compact_boundary\"") => {
                emit(EventKind::CompactBoundary)
            }
            Some(b"\"assistant\"") => {
                for block in entry.blocks(ASSISTANT_TEXT_MAX) {
                    match block {
                        Block::Text(text) => {
                            if !text.trim().is_empty() {
                                emit(EventKind::AssistantText { text })
                            }
                        }
                        Block::ToolUse { id, name, input } => {
                            emit(EventKind::ToolUse { id, name, input })
                        }
                        Block::ToolResult { .. } | Block::Other => {}
                    }
                }
            }
            Some(b"\"user\"") => {
                if entry.compact_summary {
                    // CC 1.0.x marks a compaction only by its summary line.
                    emit(EventKind::CompactBoundary);
                    return Some(Parsed { uuid, parent });
                }
                if entry.meta || entry.transcript_only {
                    return Some(Parsed { uuid, parent });
                }
                let blocks = entry.blocks(TEXT_MAX);
                let has_results = blocks.iter().any(|b| matches!(b, Block::ToolResult { .. }));
                if has_results {
                    // Text beside results is CC's own ("[Request interrupted by user for tool use]").
                    let mut interrupted = false;
                    for block in blocks {
                        match block {
                            Block::ToolResult {
                                tool_use_id,
                                is_error,
                                plain,
                                text,
                            } => emit(tool_result_event(tool_use_id, is_error, plain, text)),
                            Block::Text(text) => interrupted |= is_interrupt(&text),
                            _ => {}
                        }
                    }
                    if interrupted {
                        emit(EventKind::Interrupt);
                    }
                    return Some(Parsed { uuid, parent });
                }
                let mut typed = String::new();
                for block in blocks {
                    if let Block::Text(text) = block {
                        if !typed.is_empty() {
                            typed.push('\n');
                        }
                        typed.push_str(&text);
                    }
                }
                if is_interrupt(&typed) {
                    emit(EventKind::Interrupt)
                } else if let Some(text) = genuine_user_text(&typed) {
                    emit(EventKind::UserText { text })
                }
            }
            _ => {}
        }
        Some(Parsed { uuid, parent })
    }
}
