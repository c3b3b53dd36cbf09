//! The walker: a line's few needed fields, found by skipping over everything else.
//!
//! A full serde parse of a transcript line validates and unescapes every byte, including the
//! tool output that each result line carries twice (`message.content` and `toolUseResult`).
//! The walker instead skips values: strings with memchr (to the next quote or backslash),
//! containers by bracket depth. Only the handful of values a detector needs are decoded, and
//! long strings only up to a bound. A line the walker cannot follow is skipped.

use std::borrow::Cow;

use reflect_base::json::{is_high_surrogate, skip_string, skip_value, skip_ws, unescape};
use reflect_base::text::truncate;
use serde_json::Value;

use crate::{NAME_MAX, TOOL_OUTPUT_TEXT_MAX, TOOL_RESULT_TEXT_MAX};

/// Longest user text decoded from one entry (a long paste keeps its head).
pub(crate) const TEXT_MAX: usize = 64 << 10;
/// Longest assistant text decoded from one block: detectors quote a line of it at most.
pub(crate) const ASSISTANT_TEXT_MAX: usize = 16 << 10;
/// Tool inputs up to this size are parsed whole; larger ones keep only bounded strings.
pub(crate) const INPUT_WHOLE_MAX: usize = 1 << 10;
/// Bound on each string of a large tool input.
pub(crate) const INPUT_STRING_MAX: usize = 512;

/// The top-level fields of one line, as raw JSON spans (strings with their quotes).
#[derive(Default)]
pub(crate) struct Entry<'a> {
    pub(crate) kind: Option<&'a [u8]>,
    pub(crate) subtype: Option<&'a [u8]>,
    pub(crate) uuid: Option<&'a [u8]>,
    pub(crate) parent: Option<&'a [u8]>,
    pub(crate) timestamp: Option<&'a [u8]>,
    pub(crate) cwd: Option<&'a [u8]>,
    pub(crate) session: Option<&'a [u8]>,
    pub(crate) sidechain: bool,
    pub(crate) meta: bool,
    pub(crate) compact_summary: bool,
    pub(crate) transcript_only: bool,
    content: Content<'a>,
}

/// `message.content`: a bare string or the fields of each block.
#[derive(Default)]
enum Content<'a> {
    #[default]
    None,
    Text(&'a [u8]),
    Blocks(Vec<BlockFields<'a>>),
}

#[derive(Default)]
struct BlockFields<'a> {
    kind: Option<&'a [u8]>,
    text: Option<&'a [u8]>,
    id: Option<&'a [u8]>,
    name: Option<&'a [u8]>,
    input: Option<&'a [u8]>,
    tool_use_id: Option<&'a [u8]>,
    is_error: bool,
    content: Option<&'a [u8]>,
}

impl<'a> Entry<'a> {
    /// One pass over the line: the message is walked in place, so each byte of a long tool
    /// output is looked at once (to find where its string ends) and only its head is decoded.
    pub(crate) fn walk(line: &'a [u8]) -> Option<Entry<'a>> {
        let mut entry = Entry::default();
        let mut has_message = false;
        members_at(line, 0, |key, at| {
            let span = || -> Option<(&'a [u8], usize)> {
                let end = skip_value(line, at)?;
                Some((&line[at..end], end))
            };
            let end = match key {
                b"message" => {
                    has_message = true;
                    let (end, content) = message_at(line, at)?;
                    entry.content = content;
                    end
                }
                // A tool result repeats its output here; every field the reader needs came
                // before it (Claude Code writes it after `uuid` and `timestamp`).
                b"toolUseResult" if has_message => return Some(Step::Stop),
                _ => {
                    let (value, end) = span()?;
                    match key {
                        b"type" => entry.kind = Some(value),
                        b"subtype" => entry.subtype = Some(value),
                        b"uuid" => entry.uuid = Some(value),
                        b"parentUuid" => entry.parent = Some(value),
                        b"timestamp" => entry.timestamp = Some(value),
                        b"cwd" => entry.cwd = Some(value),
                        b"sessionId" => entry.session = Some(value),
                        b"isSidechain" => entry.sidechain = value == b"true",
                        b"isMeta" => entry.meta = value == b"true",
                        b"isCompactSummary" => entry.compact_summary = value == b"true",
                        b"isVisibleInTranscriptOnly" => entry.transcript_only = value == b"true",
                        _ => {}
                    }
                    end
                }
            };
            Some(Step::To(end))
        })?;
        Some(entry)
    }

    /// The message's content blocks, texts decoded up to `text_max`; a bare string content is
    /// one text block.
    pub(crate) fn blocks(&self, text_max: usize) -> Vec<Block> {
        match &self.content {
            Content::None => Vec::new(),
            Content::Text(raw) => vec![Block::Text(decode_bounded(raw, text_max))],
            Content::Blocks(fields) => fields
                .iter()
                .map(|f| Block::from_fields(f, text_max))
                .collect(),
        }
    }
}

/// Walk the message object at `at`; returns where it ends and its content.
fn message_at(raw: &[u8], at: usize) -> Option<(usize, Content<'_>)> {
    let mut content = Content::None;
    let end = members_at(raw, at, |key, at| {
        if key != b"content" {
            return skip_value(raw, at).map(Step::To);
        }
        match raw.get(at)? {
            b'"' => {
                let end = skip_string(raw, at)?;
                content = Content::Text(&raw[at..end]);
                Some(Step::To(end))
            }
            b'[' => {
                let mut blocks = Vec::new();
                let end = elements_at(raw, at, |at| {
                    let mut f = BlockFields::default();
                    let end = members_at(raw, at, |key, at| {
                        let end = skip_value(raw, at)?;
                        let value = &raw[at..end];
                        match key {
                            b"type" => f.kind = Some(value),
                            b"text" => f.text = Some(value),
                            b"id" => f.id = Some(value),
                            b"name" => f.name = Some(value),
                            b"input" => f.input = Some(value),
                            b"tool_use_id" => f.tool_use_id = Some(value),
                            b"is_error" => f.is_error = value == b"true",
                            b"content" => f.content = Some(value),
                            _ => {}
                        }
                        Some(Step::To(end))
                    })?;
                    blocks.push(f);
                    Some(end)
                })?;
                content = Content::Blocks(blocks);
                Some(Step::To(end))
            }
            _ => skip_value(raw, at).map(Step::To),
        }
    })?;
    Some((end, content))
}

pub(crate) enum Block {
    Text(String),
    ToolUse {
        id: String,
        name: String,
        input: ToolInput,
    },
    ToolResult {
        tool_use_id: String,
        is_error: bool,
        /// The content was one string, as Claude Code writes its own results (not an array).
        plain: bool,
        text: String,
    },
    Other,
}

impl Block {
    fn from_fields(f: &BlockFields, text_max: usize) -> Block {
        let string =
            |raw: Option<&[u8]>| raw.map(|r| decode_bounded(r, NAME_MAX)).unwrap_or_default();
        match f.kind {
            Some(b"\"text\"") => match f.text {
                Some(text) if text.first() == Some(&b'"') => {
                    Block::Text(decode_bounded(text, text_max))
                }
                _ => Block::Other,
            },
            Some(b"\"tool_use\"") => Block::ToolUse {
                id: string(f.id),
                name: string(f.name),
                input: f.input.map(ToolInput::from_raw).unwrap_or_default(),
            },
            Some(b"\"tool_result\"") => Block::ToolResult {
                tool_use_id: string(f.tool_use_id),
                is_error: f.is_error,
                plain: f.content.is_some_and(|raw| raw.first() == Some(&b'"')),
                text: f
                    .content
                    .map(|raw| {
                        let max = if f.is_error {
                            TOOL_RESULT_TEXT_MAX
                        } else {
                            TOOL_OUTPUT_TEXT_MAX
                        };
                        result_text(raw, max)
                    })
                    .unwrap_or_default(),
            },
            _ => Block::Other,
        }
    }
}

/// A tool result's content (a string, or an array of text/image blocks) as bounded text.
fn result_text(raw: &[u8], max: usize) -> String {
    match raw.first() {
        Some(b'"') => decode_bounded(raw, max),
        Some(b'[') => {
            let mut out = String::new();
            elements(raw, |element| {
                if out.len() >= max {
                    return;
                }
                members(element, |key, value| {
                    if key == b"text" && value.first() == Some(&b'"') {
                        if !out.is_empty() {
                            out.push('\n');
                        }
                        out.push_str(&decode_bounded(value, max));
                        return false;
                    }
                    true
                });
            });
            truncate(&out, max).to_string()
        }
        _ => String::new(),
    }
}

/// A tool call's input, kept as JSON text and read on demand. Detectors look at a field or two
/// of a few calls (an edited file, the command of a failed call), so parsing every input of a
/// transcript into a [`Value`] would be most of the reader's allocations for nothing. An input
/// over `INPUT_WHOLE_MAX` bytes keeps its members with strings cut to `INPUT_STRING_MAX` and
/// large other values as `null`: still valid JSON, and bounded.
#[derive(Debug, Clone, PartialEq)]
pub struct ToolInput(Box<str>);

impl Default for ToolInput {
    fn default() -> ToolInput {
        ToolInput("null".into())
    }
}

impl From<&Value> for ToolInput {
    fn from(value: &Value) -> ToolInput {
        ToolInput(value.to_string().into())
    }
}

impl ToolInput {
    /// The input from its raw JSON span in a transcript line.
    pub(crate) fn from_raw(raw: &[u8]) -> ToolInput {
        if raw.len() <= INPUT_WHOLE_MAX {
            return ToolInput(utf8_lossy(raw).into());
        }
        if raw.first() != Some(&b'{') {
            return ToolInput::default();
        }
        let mut out = Vec::with_capacity(INPUT_WHOLE_MAX);
        out.push(b'{');
        members_at(raw, 0, |key, at| {
            let end = skip_value(raw, at)?;
            let value = &raw[at..end];
            if out.len() > 1 {
                out.push(b',');
            }
            out.push(b'"');
            out.extend_from_slice(key);
            out.extend_from_slice(b"\":");
            match value.first() {
                Some(b'"') => out.extend_from_slice(&string_head(value, INPUT_STRING_MAX)),
                _ if value.len() <= INPUT_WHOLE_MAX => out.extend_from_slice(value),
                _ => out.extend_from_slice(b"null"),
            }
            Some(Step::To(end))
        });
        out.push(b'}');
        ToolInput(utf8_lossy(&out).into())
    }

    /// The JSON text.
    pub fn json(&self) -> &str {
        &self.0
    }

    /// The decoded value of the top-level member `key` when it is a string (the last one, as a
    /// JSON parser keeps).
    pub fn str_field(&self, key: &str) -> Option<Cow<'_, str>> {
        let raw = self.0.as_bytes();
        let mut found = None;
        members(raw, |k, value| {
            if k == key.as_bytes() {
                found = Some(value);
            }
            true
        });
        found.filter(|v| v.first() == Some(&b'"')).map(decode_str)
    }

    /// The input as a JSON value (`null` when it is not valid JSON).
    pub fn to_value(&self) -> Value {
        serde_json::from_str(&self.0).unwrap_or(Value::Null)
    }
}

/// `bytes` as text, invalid UTF-8 replaced: `from_utf8_lossy` walks by chunks even when all is
/// valid; a plain check first is faster.
fn utf8_lossy(bytes: &[u8]) -> Cow<'_, str> {
    match std::str::from_utf8(bytes) {
        Ok(text) => Cow::Borrowed(text),
        Err(_) => String::from_utf8_lossy(bytes),
    }
}

/// A JSON string (with its quotes) decoded; invalid UTF-8 is replaced, not fatal.
pub(crate) fn decode_str(raw: &[u8]) -> Cow<'_, str> {
    let inner = raw
        .strip_prefix(b"\"")
        .and_then(|r| r.strip_suffix(b"\""))
        .unwrap_or(raw);
    if memchr::memchr(b'\\', inner).is_none() {
        return utf8_lossy(inner);
    }
    if raw.len() >= 2 && raw[0] == b'"' && raw[raw.len() - 1] == b'"' {
        if let Some(text) = unescape(inner) {
            return Cow::Owned(text);
        }
    }
    match serde_json::from_slice::<String>(raw) {
        Ok(s) => Cow::Owned(s),
        Err(_) => match serde_json::from_str::<String>(&String::from_utf8_lossy(raw)) {
            Ok(s) => Cow::Owned(s),
            Err(_) => String::from_utf8_lossy(inner),
        },
    }
}

/// The first `max` or so bytes of a JSON string, decoded: the raw text is cut first (never
/// inside an escape or a character), so a megabyte of tool output costs no more than its head.
pub(crate) fn decode_bounded(raw: &[u8], max: usize) -> String {
    if raw.len() <= max + 2 {
        return truncate(&decode_str(raw), max).to_string();
    }
    let head = string_head(raw, max);
    let mut text = decode_str(&head).into_owned();
    let keep = truncate(&text, max).len();
    text.truncate(keep);
    text
}

/// A JSON string (with its quotes) cut to its first `max + 1` or so raw bytes, never inside an
/// escape or a UTF-8 character, and closed again: still a JSON string, which decodes to at most
/// about `max` bytes.
fn string_head(raw: &[u8], max: usize) -> Cow<'_, [u8]> {
    if raw.len() <= max + 2 {
        return Cow::Borrowed(raw);
    }
    let cut = escape_boundary_at_most(raw, max + 1);
    let mut cut = cut;
    while cut > 1 && raw[cut] & 0xC0 == 0x80 {
        cut -= 1;
    }
    let mut head = Vec::with_capacity(cut + 1);
    head.extend_from_slice(&raw[..cut]);
    head.push(b'"');
    Cow::Owned(head)
}

/// The last index at most `limit` (and at most the closing quote's) at which a JSON string `raw`
/// (with its quotes, longer than `limit`) can be cut without splitting an escape; plain runs are
/// jumped over with memchr.
pub(crate) fn escape_boundary_at_most(raw: &[u8], limit: usize) -> usize {
    let close = raw.len() - 1;
    let mut at = 1;
    loop {
        let end = limit.min(close);
        let Some(slash) = memchr::memchr(b'\\', &raw[at.min(end)..end]).map(|p| at + p) else {
            return end;
        };
        let step = match raw.get(slash + 1) {
            // A surrogate pair (`\ud83d\ude00`) is one character: never cut between its halves.
            Some(b'u') if is_high_surrogate(&raw[slash..]) => 12,
            Some(b'u') => 6,
            _ => 2,
        };
        if slash + step > limit {
            return slash;
        }
        at = slash + step;
        if at >= close {
            return close;
        }
    }
}

/// What a member callback did with its value.
enum Step {
    /// Consumed the value up to this index.
    To(usize),
    /// Wants no more members.
    Stop,
}

/// Walk the JSON object starting at `at`, calling `f(key, value_start)` for each member (keys
/// without quotes); `f` consumes the value and says where it ends. Returns the index past the
/// object (or past the input on [`Step::Stop`]); `None` when the object is malformed.
fn members_at<'a>(
    raw: &'a [u8],
    at: usize,
    mut f: impl FnMut(&'a [u8], usize) -> Option<Step>,
) -> Option<usize> {
    let mut i = skip_ws(raw, at);
    if raw.get(i) != Some(&b'{') {
        return None;
    }
    i = skip_ws(raw, i + 1);
    if raw.get(i) == Some(&b'}') {
        return Some(i + 1);
    }
    loop {
        if raw.get(i) != Some(&b'"') {
            return None;
        }
        let key_end = skip_string(raw, i)?;
        let key = &raw[i + 1..key_end - 1];
        i = skip_ws(raw, key_end);
        if raw.get(i) != Some(&b':') {
            return None;
        }
        let start = skip_ws(raw, i + 1);
        let end = match f(key, start)? {
            Step::To(end) => end,
            Step::Stop => return Some(raw.len()),
        };
        i = skip_ws(raw, end);
        match raw.get(i) {
            Some(b',') => i = skip_ws(raw, i + 1),
            Some(b'}') => return Some(i + 1),
            _ => return None,
        }
    }
}

/// Walk the JSON array starting at `at`, calling `f(element_start)`, which returns where the
/// element ends. Returns the index past the array.
fn elements_at(raw: &[u8], at: usize, mut f: impl FnMut(usize) -> Option<usize>) -> Option<usize> {
    let mut i = skip_ws(raw, at);
    if raw.get(i) != Some(&b'[') {
        return None;
    }
    i = skip_ws(raw, i + 1);
    if raw.get(i) == Some(&b']') {
        return Some(i + 1);
    }
    loop {
        let end = f(i)?;
        i = skip_ws(raw, end);
        match raw.get(i) {
            Some(b',') => i = skip_ws(raw, i + 1),
            Some(b']') => return Some(i + 1),
            _ => return None,
        }
    }
}

/// Call `f(key, value)` for each member of the JSON object `raw` (values as raw spans) until it
/// returns false.
pub(crate) fn members<'a>(
    raw: &'a [u8],
    mut f: impl FnMut(&'a [u8], &'a [u8]) -> bool,
) -> Option<()> {
    members_at(raw, 0, |key, at| {
        let end = skip_value(raw, at)?;
        Some(if f(key, &raw[at..end]) {
            Step::To(end)
        } else {
            Step::Stop
        })
    })
    .map(|_| ())
}

/// Call `f` with each element of the JSON array `raw`.
fn elements<'a>(raw: &'a [u8], mut f: impl FnMut(&'a [u8])) -> Option<()> {
    elements_at(raw, 0, |at| {
        let end = skip_value(raw, at)?;
        f(&raw[at..end]);
        Some(end)
    })
    .map(|_| ())
}
