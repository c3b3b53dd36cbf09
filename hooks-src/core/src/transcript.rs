//! Streaming reader of the JSONL transcripts Claude Code writes (`transcript_path`).
//!
//! There is no official schema and it changed a lot between CC 1.0.11 and 2.1.x (see the corpus'
//! SCHEMA.md): one API response is split over several `assistant` lines, user content is a string
//! or an array of blocks, tool results, meta caveats, slash-command wrappers, system reminders,
//! compaction summaries and sub-agent traffic all arrive as `type:"user"`. This module turns that
//! into a small stream of [`Event`]s, so the detectors see only what they reason about: genuine
//! user text, assistant text, tool calls, tool results, rejections and compactions.
//!
//! Cost model: a PreCompact hook may read a 100 MB transcript, so the reader works in large
//! chunks, splits lines with memchr, drops most lines (progress, snapshots, titles …) with a
//! literal byte check before any JSON parse, and deserializes the rest into borrowed structs that
//! skip every field it does not need. Memory stays bounded: a line longer than [`MAX_LINE`] is
//! skipped (still counted), never buffered whole.
//!
//! Resumption: [`read`] starts at a [`Position`] and returns the position after the last complete
//! line. A torn last line (no newline yet; Claude Code may be mid-write) is left for the next run.

use std::borrow::Cow;
use std::collections::HashSet;
use std::fmt;
use std::fs::File;
use std::io::{self, Read, Seek, SeekFrom};

use memchr::memmem;
use serde::de::{self, Deserializer, IgnoredAny, MapAccess, SeqAccess, Visitor};
use serde::Deserialize;
use serde_json::Value;

/// Lines longer than this are skipped: nothing a detector needs is that large, and the reader
/// must never hold a giant line (a pasted log, an image, a huge tool output) in memory.
pub const MAX_LINE: usize = 8 << 20;

/// How much of a tool result's text an event carries.
pub const TOOL_RESULT_TEXT_MAX: usize = 2000;

/// Bytes read per `read` call.
const CHUNK: usize = 1 << 20;

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
    pub uuid: Option<String>,
    pub timestamp: Option<String>,
    pub kind: EventKind,
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
        input: Value,
    },
    /// `text` is at most [`TOOL_RESULT_TEXT_MAX`] bytes (cut on a character boundary).
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
}

/// Read complete lines from `from` on, calling `on_event` for each event; returns the position
/// after the last COMPLETE line (a torn last line without its newline is not consumed, so the
/// next run reads it whole).
pub fn read(
    file: &mut File,
    from: Position,
    mut on_event: impl FnMut(Event),
) -> io::Result<Position> {
    file.seek(SeekFrom::Start(from.offset))?;
    let mut pos = from;
    let mut buf: Vec<u8> = Vec::with_capacity(CHUNK);
    let mut parser = LineParser::default();
    // While skipping an oversized line: how many of its bytes were already dropped.
    let mut skipping: Option<u64> = None;
    loop {
        let start = buf.len();
        buf.resize(start + CHUNK, 0);
        let n = read_some(file, &mut buf[start..])?;
        buf.truncate(start + n);
        if n == 0 {
            return Ok(pos);
        }
        let mut consumed = 0;
        // Search only the new bytes: the kept prefix holds no newline.
        let mut search_from = start;
        while let Some(nl) = memchr::memchr(b'\n', &buf[search_from..]) {
            let end = search_from + nl;
            let line = &buf[consumed..end];
            pos.line += 1;
            match skipping.take() {
                Some(dropped) => pos.offset += dropped + line.len() as u64 + 1,
                None => {
                    pos.offset += line.len() as u64 + 1;
                    parser.line(line, pos.line, &mut on_event);
                }
            }
            consumed = end + 1;
            search_from = consumed;
        }
        buf.drain(..consumed);
        if buf.len() > MAX_LINE {
            *skipping.get_or_insert(0) += buf.len() as u64;
            buf.clear();
        }
    }
}

fn read_some(file: &mut File, buf: &mut [u8]) -> io::Result<usize> {
    loop {
        match file.read(buf) {
            Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
            other => return other,
        }
    }
}

/// Per-run state: the uuids already yielded (Claude Code re-writes some records on resume).
#[derive(Default)]
struct LineParser {
    seen_uuids: HashSet<String>,
}

static USER: LazyFinder = LazyFinder::new(b"\"type\":\"user\"");
static ASSISTANT: LazyFinder = LazyFinder::new(b"\"type\":\"assistant\"");
static COMPACT: LazyFinder = LazyFinder::new(b"\"compact_boundary\"");
static PROGRESS: LazyFinder = LazyFinder::new(b"\"type\":\"progress\"");

/// A memmem finder built on first use.
struct LazyFinder {
    needle: &'static [u8],
    finder: std::sync::OnceLock<memmem::Finder<'static>>,
}

impl LazyFinder {
    const fn new(needle: &'static [u8]) -> LazyFinder {
        LazyFinder {
            needle,
            finder: std::sync::OnceLock::new(),
        }
    }
    fn within(&self, hay: &[u8]) -> bool {
        self.finder
            .get_or_init(|| memmem::Finder::new(self.needle))
            .find(hay)
            .is_some()
    }
}

impl LineParser {
    fn line(&mut self, line: &[u8], number: u64, on_event: &mut impl FnMut(Event)) {
        // Inside a JSON string every quote is escaped, so these byte patterns only match the
        // document's structure. Lines with none of them (snapshots, titles, queue operations,
        // attachments, most system lines) never reach the parser.
        let interesting = USER.within(line) || ASSISTANT.within(line) || COMPACT.within(line);
        if !interesting || PROGRESS.within(line) {
            return;
        }
        let entry: Entry = match serde_json::from_slice(line) {
            Ok(entry) => entry,
            Err(_) => {
                // Invalid UTF-8 (a binary paste, a torn write in the middle): read what survives.
                if std::str::from_utf8(line).is_ok() {
                    return;
                }
                let lossy = String::from_utf8_lossy(line);
                match serde_json::from_str::<Entry>(&lossy) {
                    Ok(entry) => return self.entry(entry, number, on_event),
                    Err(_) => return,
                }
            }
        };
        self.entry(entry, number, on_event)
    }

    fn entry(&mut self, entry: Entry, number: u64, on_event: &mut impl FnMut(Event)) {
        if entry.sidechain == Some(true) {
            return;
        }
        if let Some(uuid) = &entry.uuid {
            if !self.seen_uuids.insert(uuid.to_string()) {
                return;
            }
        }
        let mut emit = |kind: EventKind| {
            on_event(Event {
                line: number,
                uuid: entry.uuid.as_deref().map(str::to_string),
                timestamp: entry.timestamp.as_deref().map(str::to_string),
                kind,
            })
        };
        match entry.kind.as_deref() {
            Some("system") if entry.subtype.as_deref() == Some("compact_boundary") => {
                emit(EventKind::CompactBoundary)
            }
            Some("assistant") => {
                let Some(message) = entry.message else { return };
                for block in message.content.0 {
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
            Some("user") => {
                if entry.compact_summary == Some(true) {
                    // CC 1.0.x marks a compaction only by its summary line.
                    return emit(EventKind::CompactBoundary);
                }
                if entry.meta == Some(true) || entry.transcript_only == Some(true) {
                    return;
                }
                let Some(message) = entry.message else { return };
                let blocks = message.content.0;
                let has_results = blocks.iter().any(|b| matches!(b, Block::ToolResult { .. }));
                if has_results {
                    // Text beside results is CC's own ("[Request interrupted by user for tool use]").
                    for block in blocks {
                        if let Block::ToolResult {
                            tool_use_id,
                            is_error,
                            text,
                        } = block
                        {
                            emit(tool_result_event(tool_use_id, is_error, text));
                        }
                    }
                    return;
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
                if let Some(text) = genuine_user_text(&typed) {
                    emit(EventKind::UserText { text })
                }
            }
            _ => {}
        }
    }
}

const REJECTION_MARK: &str = "doesn't want to proceed with this tool use";
const REJECTION_REASON: &str = "the following reason for the rejection:";
const REJECTION_SAID: &str = "the user said:";

fn tool_result_event(tool_use_id: String, is_error: bool, text: String) -> EventKind {
    if is_error && text.contains(REJECTION_MARK) {
        let reason = [REJECTION_REASON, REJECTION_SAID]
            .iter()
            .find_map(|mark| text.find(mark).map(|at| &text[at + mark.len()..]))
            .unwrap_or("");
        return EventKind::Rejection {
            tool_use_id,
            text: reason.trim().to_string(),
        };
    }
    EventKind::ToolResult {
        tool_use_id,
        is_error,
        text,
    }
}

/// Spans Claude Code or the IDE inject into a user message; the user did not type them.
const INJECTED_SPANS: &[(&str, &str)] = &[
    ("<system-reminder>", "</system-reminder>"),
    ("<ide_selection>", "</ide_selection>"),
    ("<ide_opened_file>", "</ide_opened_file>"),
    ("<ide_diagnostics>", "</ide_diagnostics>"),
];

/// Messages that start like this are wrappers or output of slash commands, local commands and
/// bash mode, or text Claude Code writes itself.
const NOT_TYPED_PREFIXES: &[&str] = &[
    "<command-name>",
    "<command-message>",
    "<command-args>",
    "<local-command-",
    "<bash-stdout>",
    "<bash-stderr>",
    "<task-notification>",
    "[Request interrupted by user",
    "Caveat: The messages below were generated by the user while running local commands",
    "This session is being continued from a previous conversation",
];

/// The part of a user message the human typed, or `None` when there is none.
pub fn genuine_user_text(raw: &str) -> Option<String> {
    let mut text = Cow::Borrowed(raw);
    for (open, close) in INJECTED_SPANS {
        if text.contains(open) {
            text = Cow::Owned(strip_spans(&text, open, close));
        }
    }
    let text = text.trim();
    if text.is_empty() || text == "Warmup" {
        return None;
    }
    if NOT_TYPED_PREFIXES.iter().any(|p| text.starts_with(p)) {
        return None;
    }
    Some(text.to_string())
}

/// `text` without the `open … close` spans (an unclosed span runs to the end).
fn strip_spans(text: &str, open: &str, close: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut rest = text;
    while let Some(at) = rest.find(open) {
        out.push_str(&rest[..at]);
        rest = &rest[at + open.len()..];
        match rest.find(close) {
            Some(end) => rest = &rest[end + close.len()..],
            None => rest = "",
        }
    }
    out.push_str(rest);
    out
}

/// The first `max` bytes of `text`, cut on a character boundary.
pub fn truncate(text: &str, max: usize) -> &str {
    if text.len() <= max {
        return text;
    }
    let mut end = max;
    while !text.is_char_boundary(end) {
        end -= 1;
    }
    &text[..end]
}

// ---- wire types: only the fields the reader needs, borrowed where the JSON allows ----

#[derive(Deserialize)]
struct Entry<'a> {
    #[serde(rename = "type", borrow)]
    kind: Option<Cow<'a, str>>,
    #[serde(borrow)]
    subtype: Option<Cow<'a, str>>,
    #[serde(borrow)]
    uuid: Option<Cow<'a, str>>,
    #[serde(borrow)]
    timestamp: Option<Cow<'a, str>>,
    #[serde(rename = "isSidechain")]
    sidechain: Option<bool>,
    #[serde(rename = "isMeta")]
    meta: Option<bool>,
    #[serde(rename = "isCompactSummary")]
    compact_summary: Option<bool>,
    #[serde(rename = "isVisibleInTranscriptOnly")]
    transcript_only: Option<bool>,
    message: Option<Message>,
}

#[derive(Deserialize)]
struct Message {
    #[serde(default)]
    content: Blocks,
}

/// Message content: a bare string (one text block) or an array of blocks.
#[derive(Default)]
struct Blocks(Vec<Block>);

enum Block {
    Text(String),
    ToolUse {
        id: String,
        name: String,
        input: Value,
    },
    ToolResult {
        tool_use_id: String,
        is_error: bool,
        text: String,
    },
    Other,
}

impl<'de> Deserialize<'de> for Blocks {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct V;
        impl<'de> Visitor<'de> for V {
            type Value = Blocks;
            fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
                f.write_str("a string or an array of content blocks")
            }
            fn visit_str<E: de::Error>(self, s: &str) -> Result<Blocks, E> {
                Ok(Blocks(vec![Block::Text(s.to_string())]))
            }
            fn visit_unit<E: de::Error>(self) -> Result<Blocks, E> {
                Ok(Blocks::default())
            }
            fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Blocks, A::Error> {
                let mut blocks = Vec::new();
                while let Some(block) = seq.next_element::<RawBlock>()? {
                    blocks.push(block.into_block());
                }
                Ok(Blocks(blocks))
            }
        }
        d.deserialize_any(V)
    }
}

#[derive(Deserialize)]
struct RawBlock<'a> {
    #[serde(rename = "type", borrow)]
    kind: Option<Cow<'a, str>>,
    text: Option<String>,
    id: Option<String>,
    name: Option<String>,
    input: Option<Value>,
    tool_use_id: Option<String>,
    is_error: Option<bool>,
    content: Option<ResultText>,
}

impl RawBlock<'_> {
    fn into_block(self) -> Block {
        match self.kind.as_deref() {
            Some("text") => self.text.map_or(Block::Other, Block::Text),
            Some("tool_use") => Block::ToolUse {
                id: self.id.unwrap_or_default(),
                name: self.name.unwrap_or_default(),
                input: self.input.unwrap_or(Value::Null),
            },
            Some("tool_result") => Block::ToolResult {
                tool_use_id: self.tool_use_id.unwrap_or_default(),
                is_error: self.is_error.unwrap_or(false),
                text: self.content.map(|c| c.0).unwrap_or_default(),
            },
            _ => Block::Other,
        }
    }
}

/// A tool result's content (a string or an array of text/image blocks) as bounded text.
struct ResultText(String);

impl<'de> Deserialize<'de> for ResultText {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct V;
        impl<'de> Visitor<'de> for V {
            type Value = ResultText;
            fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
                f.write_str("tool result content")
            }
            fn visit_str<E: de::Error>(self, s: &str) -> Result<ResultText, E> {
                Ok(ResultText(truncate(s, TOOL_RESULT_TEXT_MAX).to_string()))
            }
            fn visit_unit<E: de::Error>(self) -> Result<ResultText, E> {
                Ok(ResultText(String::new()))
            }
            fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<ResultText, A::Error> {
                let mut out = String::new();
                while let Some(part) = seq.next_element::<TextPart>()? {
                    if let Some(text) = part.text {
                        if out.len() < TOOL_RESULT_TEXT_MAX {
                            if !out.is_empty() {
                                out.push('\n');
                            }
                            out.push_str(&text);
                        }
                    }
                }
                Ok(ResultText(truncate(&out, TOOL_RESULT_TEXT_MAX).to_string()))
            }
            fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<ResultText, A::Error> {
                while map.next_entry::<IgnoredAny, IgnoredAny>()?.is_some() {}
                Ok(ResultText(String::new()))
            }
        }
        d.deserialize_any(V)
    }
}

#[derive(Deserialize)]
struct TextPart<'a> {
    #[serde(borrow)]
    text: Option<Cow<'a, str>>,
}
