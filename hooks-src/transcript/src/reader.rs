//! Reading a transcript's unread range in chunks, on one thread or several (see the crate doc).

use std::fs::File;
use std::io;
use std::sync::{mpsc, Arc};

use crate::parse::{LineParser, Parsed, Parser};
use crate::{Event, Parent, Position, MAX_LINE, READ_MAX};

/// How far before a resumed read's start the lines are parsed again, their events dropped
/// ([`prime`]).
const PRIME: u64 = 64 << 10;

/// Bytes read per `read` call.
pub(crate) const CHUNK: usize = 256 << 10;

/// Unread ranges at least this large are read by several threads (see [`read`]); a smaller read
/// (a hook's repeat run) stays on the calling thread.
pub(crate) const PARALLEL_MIN: u64 = 8 << 20;
/// At most this many threads read one range.
const MAX_THREADS: usize = 4;
/// A parallel read cuts its range into segments of about this size, claimed one at a time by
/// whichever thread is free: the calling thread also runs `on_event` (the detectors), so how much
/// it can parse is not known in advance.
const SEGMENT: u64 = 4 << 20;
/// Segments may be parsed at most this far ahead of the one being handed on: what a read holds
/// in memory beyond the one-thread read is the events of at most this many segments.
const WINDOW: usize = 4;
/// Parsed lines a worker sends at once.
const BATCH_LINES: usize = 256;
/// Batches a worker may be ahead of the calling thread within one segment (a 4 MB segment of a
/// real transcript makes about 5); a bound, not a tuning.
const CHANNEL_BATCHES: usize = 64;

/// Read complete lines from `from` on, calling `on_event` for each event; returns the position
/// after the last COMPLETE line (a torn last line without its newline is not consumed, so the
/// next run reads it whole).
///
/// One call goes through at most [`READ_MAX`] bytes: it stops at the last line that ends within
/// them. A line longer than [`MAX_LINE`] is never parsed; when the read ends inside one (no
/// newline yet, or not within the bound) it is counted and the returned position is inside it,
/// so the next read skips the rest of it rather than going over the same bytes again.
///
/// A large unread range is cut at line starts into segments that the calling thread and up to
/// `MAX_THREADS - 1` workers claim in order (see [`read_split`]). The events, their line numbers
/// and the returned position are exactly those of a read on one thread.
pub fn read(file: &mut File, from: Position, on_event: impl FnMut(Event)) -> io::Result<Position> {
    let file: &File = file;
    let len = file.metadata()?.len();
    let limit = len.min(from.offset.saturating_add(READ_MAX));
    let from = match past_skipped_line(file, from, limit)? {
        Ok(from) => from,
        Err(stopped) => return Ok(stopped),
    };
    let unread = limit.saturating_sub(from.offset);
    let splits: Vec<u64> = if unread < PARALLEL_MIN || worker_count() == 0 {
        Vec::new()
    } else {
        let segments = unread.div_ceil(SEGMENT);
        (1..segments)
            .map(|k| from.offset + unread * k / segments)
            .collect()
    };
    let end = (limit < len).then_some(limit);
    read_range(file, from, end, len, &splits, on_event)
}

/// Where reading resumes when `from` is inside a line, which only a read that ended inside an
/// oversized line leaves (see [`read`]): just after that line's newline, the line already
/// counted. `Err` with how far the search got when the newline is not before `limit`.
fn past_skipped_line(
    file: &File,
    from: Position,
    limit: u64,
) -> io::Result<Result<Position, Position>> {
    let mut before = [0u8];
    if from.offset == 0
        || read_some_at(file, &mut before, from.offset - 1)? == 0
        || before[0] == b'\n'
    {
        return Ok(Ok(from));
    }
    let mut buf = vec![0u8; CHUNK];
    let mut at = from.offset;
    while at < limit {
        let want = buf.len().min((limit - at) as usize);
        let n = read_some_at(file, &mut buf[..want], at)?;
        if n == 0 {
            break;
        }
        if let Some(nl) = memchr::memchr(b'\n', &buf[..n]) {
            return Ok(Ok(Position {
                offset: at + nl as u64 + 1,
                line: from.line,
            }));
        }
        at += n as u64;
    }
    Ok(Err(Position {
        offset: at,
        line: from.line,
    }))
}

/// Threads a split read starts besides the calling one.
fn worker_count() -> usize {
    std::thread::available_parallelism()
        .map_or(1, std::num::NonZero::get)
        .min(MAX_THREADS)
        - 1
}

/// [`read`] with the unread range cut into segments at the first line start at or after each of
/// `splits` (ascending byte offsets; ones at or past the end are dropped). Tests use it to force
/// cuts anywhere; [`read`] picks them itself.
///
/// Segments are claimed in order, at most `WINDOW` ahead of the one being handed on. Workers
/// parse the segments they claim into batches of events; the calling thread hands segments on in
/// order: one it gets to first it parses itself, straight to `on_event`; while the one it waits
/// for is still being parsed, it parses the next unclaimed one ahead instead of idling.
pub fn read_split(
    file: &File,
    from: Position,
    splits: &[u64],
    on_event: impl FnMut(Event),
) -> io::Result<Position> {
    let len = file.metadata()?.len();
    read_range(file, from, None, len, splits, on_event)
}

/// [`read_split`] of the lines that end before `end` (EOF when `None`); `len` is the file's
/// length, as the caller read it.
fn read_range(
    file: &File,
    from: Position,
    end: Option<u64>,
    len: u64,
    splits: &[u64],
    mut on_event: impl FnMut(Event),
) -> io::Result<Position> {
    let starts = segment_starts(file, from.offset, end.unwrap_or(len), splits)?;
    let mut parser = LineParser::default();
    prime(file, from, &mut parser)?;
    let mut buf = Vec::new();
    let workers = worker_count().max(1).min(starts.len());
    if starts.is_empty() {
        let (offset, lines) = read_lines(file, from.offset, end, &mut buf, |line, n| {
            parser.line(line, from.line + n, &mut on_event);
            true
        })?;
        return Ok(Position {
            offset,
            line: from.line + lines,
        });
    }
    let segments: Vec<(u64, Option<u64>)> = std::iter::once(from.offset)
        .chain(starts.iter().copied())
        .zip(starts.iter().map(|&s| Some(s)).chain([end]))
        .collect();
    let claims = Claims::new(segments.len());
    let mut senders = Vec::with_capacity(segments.len());
    let mut receivers = Vec::with_capacity(segments.len());
    for _ in &segments {
        let (tx, rx) = mpsc::sync_channel(CHANNEL_BATCHES);
        senders.push(std::sync::Mutex::new(Some(tx)));
        receivers.push(rx);
    }
    std::thread::scope(|scope| {
        for _ in 0..workers {
            scope.spawn(|| {
                let mut buf = Vec::new();
                while let Some(k) = claims.wait_for_any() {
                    let Some(tx) = senders[k].lock().ok().and_then(|mut tx| tx.take()) else {
                        return;
                    };
                    let (start, end) = segments[k];
                    parse_ahead(file, start, end, &mut buf, |ahead| tx.send(ahead).is_ok());
                }
            });
        }
        let result = hand_on(
            file,
            from,
            &segments,
            &claims,
            &receivers,
            &mut parser,
            &mut on_event,
        );
        // Whatever happened, let the workers go: no more claims, and dropping the receivers
        // ends any send they are blocked in.
        claims.close();
        drop(receivers);
        result
    })
}

/// Parse the whole lines of the [`PRIME`] bytes before `from`, a line start, dropping their
/// events: a read resumed there then leads its events' parents past the entries passed over
/// just before it (a `turn_duration` record between an answer and the next prompt), and drops
/// the records written again there, as a read of the whole file does.
fn prime(file: &File, from: Position, parser: &mut LineParser) -> io::Result<()> {
    let start = from.offset.saturating_sub(PRIME);
    let mut window = vec![0u8; (from.offset - start) as usize];
    match reflect_base::platform::pread::read_exact_at(file, &mut window, start) {
        // The file shrank under the read: nothing to go back over.
        Err(e) if e.kind() == io::ErrorKind::UnexpectedEof => return Ok(()),
        other => other?,
    }
    let Some(before) = window.strip_suffix(b"\n") else {
        return Ok(());
    };
    // The window's first line is whole only where the file starts.
    let whole = match start {
        0 => before,
        _ => match memchr::memchr(b'\n', before) {
            Some(nl) => &before[nl + 1..],
            None => return Ok(()),
        },
    };
    for line in whole.split(|&b| b == b'\n') {
        parser.line(line, 0, &mut |_| {});
    }
    Ok(())
}

/// The calling thread's part of [`read_split`]: every segment's events to `on_event`, in order.
fn hand_on(
    file: &File,
    from: Position,
    segments: &[(u64, Option<u64>)],
    claims: &Claims,
    receivers: &[mpsc::Receiver<Ahead>],
    parser: &mut LineParser,
    on_event: &mut impl FnMut(Event),
) -> io::Result<Position> {
    let mut buf = Vec::new();
    let mut pos = from;
    // Segments this thread parsed ahead, waiting for their turn.
    let mut parsed_ahead: Vec<(usize, Vec<Ahead>)> = Vec::new();
    for (k, &(start, end)) in segments.iter().enumerate() {
        if pos.offset != start {
            // The file shrank under the read: stop after the last whole segment.
            break;
        }
        if claims.take(k) {
            let before = pos.line;
            let (offset, lines) = read_lines(file, start, end, &mut buf, |line, n| {
                parser.line(line, before + n, on_event);
                true
            })?;
            pos = Position {
                offset,
                line: before + lines,
            };
            claims.handed_on(k);
            continue;
        }
        let mut take_ahead = parsed_ahead
            .iter()
            .position(|(j, _)| *j == k)
            .map(|i| parsed_ahead.swap_remove(i).1.into_iter());
        let before = pos.line;
        loop {
            let next = match &mut take_ahead {
                Some(ahead) => ahead.next().ok_or(mpsc::TryRecvError::Disconnected),
                None => receivers[k].try_recv(),
            };
            let ahead = match next {
                Ok(ahead) => ahead,
                Err(mpsc::TryRecvError::Empty) => {
                    if let Some(j) = claims.take_any() {
                        let mut batches = Vec::new();
                        let (start, end) = segments[j];
                        parse_ahead(file, start, end, &mut buf, |ahead| {
                            batches.push(ahead);
                            true
                        });
                        parsed_ahead.push((j, batches));
                        continue;
                    }
                    receivers[k]
                        .recv()
                        .map_err(|_| io::Error::other("a transcript reader thread stopped"))?
                }
                Err(mpsc::TryRecvError::Disconnected) => {
                    return Err(io::Error::other("a transcript reader thread stopped"))
                }
            };
            match ahead {
                Ahead::Batch(batch) => parser.merge(batch, before, on_event),
                Ahead::Done(result) => {
                    let (offset, lines) = result?;
                    pos = Position {
                        offset,
                        line: before + lines,
                    };
                    break;
                }
            }
        }
        claims.handed_on(k);
    }
    Ok(pos)
}

/// Which segments of a split read are claimed, and how far they were handed on; workers wait
/// here while the window is full.
struct Claims {
    state: std::sync::Mutex<ClaimState>,
    moved: std::sync::Condvar,
}

struct ClaimState {
    /// The first segment nobody claimed.
    next: usize,
    /// Segments handed on so far: claims stay below `handed_on + WINDOW`.
    handed_on: usize,
    segments: usize,
}

impl Claims {
    fn new(segments: usize) -> Claims {
        Claims {
            state: std::sync::Mutex::new(ClaimState {
                next: 0,
                handed_on: 0,
                segments,
            }),
            moved: std::sync::Condvar::new(),
        }
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, ClaimState> {
        self.state
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
    }

    /// Claim segment `k` if nobody has.
    fn take(&self, k: usize) -> bool {
        let mut state = self.lock();
        if state.next != k {
            return false;
        }
        state.next += 1;
        true
    }

    /// Claim the next segment if the window has room.
    fn take_any(&self) -> Option<usize> {
        let mut state = self.lock();
        let k = state.next;
        if k >= state.segments || k >= state.handed_on + WINDOW {
            return None;
        }
        state.next += 1;
        Some(k)
    }

    /// Claim the next segment, waiting while the window is full; `None` once all are claimed.
    fn wait_for_any(&self) -> Option<usize> {
        let mut state = self.lock();
        loop {
            let k = state.next;
            if k >= state.segments {
                return None;
            }
            if k < state.handed_on + WINDOW {
                state.next += 1;
                return Some(k);
            }
            state = self
                .moved
                .wait(state)
                .unwrap_or_else(std::sync::PoisonError::into_inner);
        }
    }

    fn handed_on(&self, k: usize) {
        self.lock().handed_on = k + 1;
        self.moved.notify_all();
    }

    /// No more claims (the read is over, or failed).
    fn close(&self) {
        let mut state = self.lock();
        state.next = state.segments;
        drop(state);
        self.moved.notify_all();
    }
}

/// The first line start at or after each split that leaves a non-empty segment after `from`
/// and before `len`.
fn segment_starts(file: &File, from: u64, len: u64, splits: &[u64]) -> io::Result<Vec<u64>> {
    let mut starts: Vec<u64> = Vec::new();
    if splits.is_empty() {
        return Ok(starts);
    }
    let mut buf = vec![0u8; 64 << 10];
    for &split in splits {
        let floor = starts.last().copied().unwrap_or(from);
        if split <= floor {
            continue;
        }
        // A line starts at `split` when the byte before it is a newline; an oversized line is
        // scanned through, so it stays whole in one segment.
        let mut at = split - 1;
        let start = loop {
            if at >= len {
                break None;
            }
            let want = buf.len().min((len - at) as usize);
            let n = read_some_at(file, &mut buf[..want], at)?;
            if n == 0 {
                break None;
            }
            if let Some(nl) = memchr::memchr(b'\n', &buf[..n]) {
                break Some(at + nl as u64 + 1);
            }
            at += n as u64;
        };
        match start {
            Some(start) if start < len => starts.push(start),
            _ => break,
        }
    }
    Ok(starts)
}

/// What a worker sends: parsed lines, then where its segment ended.
enum Ahead {
    Batch(Batch),
    Done(io::Result<(u64, u64)>),
}

/// Lines parsed ahead: each line's dedup keys and how many of `events` (in order) it yielded.
pub(crate) struct Batch {
    pub(crate) lines: Vec<AheadLine>,
    pub(crate) events: Vec<Event>,
}

pub(crate) struct AheadLine {
    pub(crate) uuid: Option<Arc<str>>,
    pub(crate) parent: Parent,
    pub(crate) events: usize,
}

/// Parse `[start, end)` (to EOF when `end` is `None`) into batches for `send`, which returns
/// false when nobody wants more; line numbers count from the segment's start.
fn parse_ahead(
    file: &File,
    start: u64,
    end: Option<u64>,
    buf: &mut Vec<u8>,
    mut send: impl FnMut(Ahead) -> bool,
) {
    let mut parser = Parser::default();
    let new_batch = || Batch {
        lines: Vec::with_capacity(BATCH_LINES),
        events: Vec::with_capacity(BATCH_LINES * 2),
    };
    let mut batch = new_batch();
    let result = read_lines(file, start, end, buf, |line, n| {
        let before = batch.events.len();
        let mut emit = |e: Event| batch.events.push(e);
        if let Some(Parsed { uuid, parent }) = parser.parse(line, n, &mut emit) {
            let events = batch.events.len() - before;
            if events > 0 || uuid.is_some() {
                batch.lines.push(AheadLine {
                    uuid,
                    parent,
                    events,
                });
            }
        }
        if batch.lines.len() >= BATCH_LINES {
            return send(Ahead::Batch(std::mem::replace(&mut batch, new_batch())));
        }
        true
    });
    if !batch.lines.is_empty() && !send(Ahead::Batch(batch)) {
        return;
    }
    send(Ahead::Done(result));
}

/// Split `[start, end)` (to EOF when `end` is `None`) into lines and call `on_line(line, n)` for
/// the `n`th (from 1) until it returns false; lines over [`MAX_LINE`] are counted but not passed.
/// Returns the offset after the last complete line and the line count, or, when the range ends
/// inside an oversized line, how far it went into that line and the count including it.
fn read_lines(
    file: &File,
    start: u64,
    end: Option<u64>,
    buf: &mut Vec<u8>,
    mut on_line: impl FnMut(&[u8], u64) -> bool,
) -> io::Result<(u64, u64)> {
    let mut offset = start;
    let mut lines = 0u64;
    let mut next_read = start;
    // `buf[..filled]` holds read bytes; a line that does not fit makes it grow (up to about
    // MAX_LINE + CHUNK), never the whole file. The caller's buffer is reused across segments.
    if buf.len() < 2 * CHUNK {
        buf.resize(2 * CHUNK, 0);
    }
    let mut filled = 0;
    // While skipping an oversized line: how many of its bytes were already dropped.
    let mut skipping: Option<u64> = None;
    loop {
        if buf.len() - filled < CHUNK {
            buf.resize(filled + CHUNK, 0);
        }
        let mut room = &mut buf[filled..];
        if let Some(end) = end {
            let left = end.saturating_sub(next_read);
            room = &mut room[..left.min(CHUNK as u64) as usize];
        }
        let n = match room.is_empty() {
            true => 0,
            false => read_some_at(file, room, next_read)?,
        };
        if n == 0 {
            return Ok(match skipping {
                Some(_) => (next_read, lines + 1),
                None => (offset, lines),
            });
        }
        next_read += n as u64;
        let fresh = filled;
        filled += n;
        let mut consumed = 0;
        // Search only the new bytes: the kept prefix holds no newline.
        let mut search_from = fresh;
        while let Some(nl) = memchr::memchr(b'\n', &buf[search_from..filled]) {
            let line_end = search_from + nl;
            let line = &buf[consumed..line_end];
            lines += 1;
            match skipping.take() {
                Some(dropped) => offset += dropped + line.len() as u64 + 1,
                None => {
                    offset += line.len() as u64 + 1;
                    if !on_line(line, lines) {
                        return Ok((offset, lines));
                    }
                }
            }
            consumed = line_end + 1;
            search_from = consumed;
        }
        buf.copy_within(consumed..filled, 0);
        filled -= consumed;
        if filled > MAX_LINE {
            *skipping.get_or_insert(0) += filled as u64;
            filled = 0;
        }
    }
}

impl LineParser {
    /// Hand on a worker's lines parsed ahead, as [`LineParser::line`] would have: a line whose
    /// uuid was seen before is dropped; `before` is the number of lines before the worker's
    /// segment.
    pub(crate) fn merge(&mut self, batch: Batch, before: u64, on_event: &mut impl FnMut(Event)) {
        let mut events = batch.events.into_iter();
        for line in batch.lines {
            let keep = line
                .uuid
                .as_ref()
                .is_none_or(|u| self.parser.seen_uuids.insert(u.clone()));
            if let Some(uuid) = line.uuid.filter(|_| keep && line.events == 0) {
                self.passed.pass(&uuid, line.parent);
            }
            for mut event in events.by_ref().take(line.events) {
                if keep {
                    event.line += before;
                    event.parent = self.passed.lead(event.parent);
                    on_event(event);
                }
            }
        }
    }
}

fn read_some_at(file: &File, buf: &mut [u8], at: u64) -> io::Result<usize> {
    loop {
        match reflect_base::platform::pread::read_at(file, buf, at) {
            Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
            other => return other,
        }
    }
}
