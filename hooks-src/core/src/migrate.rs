//! Upgrading what v1 and v2 left behind, run by `reflect-toggle on` and `memory-store migrate`:
//!
//! - v1 kept its instructions in a `## Self-Improvement` section of `<config dir>/CLAUDE.md`. The
//!   section (its heading through the line before the next heading of level 1 or 2, or the end) is cut
//!   out and nothing else changes, not a byte: line endings, trailing spaces and the blank lines around
//!   it stay. Headings are ATX headings outside fenced code blocks; `## Self-Improvement Notes` and
//!   `### Self-Improvement` are other headings and stay.
//! - v2 wrote short store lines; [`Store::migrate_legacy`] converts them to schema v1 in place.
//! - v2 hook entries in settings.json are replaced by ours: that is [`crate::settings`]'s `enable`,
//!   which removes legacy entries as it registers.
//!
//! Every step is idempotent: a second run finds nothing and writes nothing.

use std::fs;
use std::ops::Range;
use std::path::{Path, PathBuf};

use crate::error::{Error, Result};
use crate::fsutil::{self, USER_FILE};
use crate::paths::Paths;
use crate::settings;
use crate::store::{Snapshot, Store};

/// The heading v1 wrote.
pub const V1_HEADING: &str = "Self-Improvement";

/// How many backups of CLAUDE.md are kept.
const CLAUDE_MD_BACKUPS_KEPT: usize = 20;

/// The level and text of an ATX heading line (`line` without its line ending), per CommonMark: up to
/// three spaces, 1–6 `#`, then a space, a tab or the end; an optional closing `#` run is dropped.
fn atx_heading(line: &[u8]) -> Option<(usize, &[u8])> {
    let indent = line.iter().take_while(|&&b| b == b' ').count();
    if indent > 3 {
        return None;
    }
    let rest = &line[indent..];
    let level = rest.iter().take_while(|&&b| b == b'#').count();
    if !(1..=6).contains(&level) {
        return None;
    }
    let rest = &rest[level..];
    if !rest.is_empty() && !matches!(rest[0], b' ' | b'\t') {
        return None;
    }
    let mut text = rest.trim_ascii();
    // A closing sequence is a run of `#` preceded by a space (or making up the whole text).
    let hashes = text.iter().rev().take_while(|&&b| b == b'#').count();
    if hashes == text.len() {
        text = &[];
    } else if hashes > 0 && matches!(text[text.len() - hashes - 1], b' ' | b'\t') {
        text = text[..text.len() - hashes].trim_ascii_end();
    }
    Some((level, text))
}

/// An opening or closing code fence: the fence character, the run length, and the rest of the line.
fn fence(line: &[u8]) -> Option<(u8, usize, &[u8])> {
    let indent = line.iter().take_while(|&&b| b == b' ').count();
    if indent > 3 {
        return None;
    }
    let rest = &line[indent..];
    let ch = *rest.first()?;
    if ch != b'`' && ch != b'~' {
        return None;
    }
    let len = rest.iter().take_while(|&&b| b == ch).count();
    if len < 3 {
        return None;
    }
    let info = &rest[len..];
    if ch == b'`' && info.contains(&b'`') {
        return None;
    }
    Some((ch, len, info))
}

/// Byte ranges of the v1 sections in `text`, each from its heading through the line before the next
/// heading of level ≤ 2 (outside code fences) or the end of the text.
pub fn v1_sections(text: &[u8]) -> Vec<Range<usize>> {
    let mut sections = Vec::new();
    let mut open: Option<usize> = None;
    let mut in_fence: Option<(u8, usize)> = None;
    let mut pos = 0;
    for raw in text.split_inclusive(|&b| b == b'\n') {
        let start = pos;
        pos += raw.len();
        let line = raw.strip_suffix(b"\n").unwrap_or(raw);
        let line = line.strip_suffix(b"\r").unwrap_or(line);
        if let Some((ch, len)) = in_fence {
            if let Some((c, l, info)) = fence(line) {
                if c == ch && l >= len && info.trim_ascii().is_empty() {
                    in_fence = None;
                }
            }
            continue;
        }
        if let Some((ch, len, _)) = fence(line) {
            in_fence = Some((ch, len));
            continue;
        }
        let Some((level, heading)) = atx_heading(line) else {
            continue;
        };
        if level > 2 {
            continue;
        }
        if let Some(s) = open.take() {
            sections.push(s..start);
        }
        if level == 2 && heading == V1_HEADING.as_bytes() {
            open = Some(start);
        }
    }
    if let Some(s) = open {
        sections.push(s..text.len());
    }
    sections
}

/// `text` without its v1 sections, or `None` when it has none.
pub fn without_v1_sections(text: &[u8]) -> Option<Vec<u8>> {
    let sections = v1_sections(text);
    if sections.is_empty() {
        return None;
    }
    let mut out = Vec::with_capacity(text.len());
    let mut at = 0;
    for s in sections {
        out.extend_from_slice(&text[at..s.start]);
        at = s.end;
    }
    out.extend_from_slice(&text[at..]);
    Some(out)
}

/// 1-based line number of byte offset `at`.
fn line_of(text: &[u8], at: usize) -> usize {
    text[..at].iter().filter(|&&b| b == b'\n').count() + 1
}

/// Remove the v1 section from the CLAUDE.md at `path` (backed up to `backups` first). Returns the
/// one-line report, or `None` when there was nothing to do.
pub fn migrate_claude_md(path: &Path, backups: &Path, dry_run: bool) -> Result<Option<String>> {
    let text = match fs::read(path) {
        Ok(t) => t,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(None),
        Err(e) => return Err(Error::io("cannot read", path, e)),
    };
    let sections = v1_sections(&text);
    let Some(new) = without_v1_sections(&text) else {
        return Ok(None);
    };
    let lines: Vec<String> = sections
        .iter()
        .map(|s| {
            let last = line_of(&text, s.end.max(s.start + 1) - 1);
            format!("{}-{}", line_of(&text, s.start), last)
        })
        .collect();
    let what = format!(
        "the v1 `## {V1_HEADING}` section (lines {}) from {}",
        lines.join(", "),
        path.display()
    );
    if dry_run {
        return Ok(Some(format!("would remove {what}")));
    }
    let backup = fsutil::backup(path, backups, CLAUDE_MD_BACKUPS_KEPT, false)?;
    fsutil::atomic_write(path, &new, USER_FILE)?;
    Ok(Some(format!(
        "removed {what}{}",
        backup
            .map(|b| format!(" (backup: {})", b.display()))
            .unwrap_or_default()
    )))
}

/// Convert the store's v2 lines to schema v1. Returns the number converted (in a dry run, the
/// number that would be).
pub fn migrate_store(
    paths: &Paths,
    store: &Store,
    dry_run: bool,
    on_wait: &mut dyn FnMut(),
) -> Result<usize> {
    if dry_run {
        return match fs::read(paths.store()) {
            Ok(bytes) => Ok(Snapshot::parse(&bytes).health.legacy),
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(0),
            Err(e) => Err(Error::io("cannot read", &paths.store(), e)),
        };
    }
    if !paths.store().exists() {
        return Ok(0);
    }
    store.migrate_legacy(on_wait)
}

/// What one migration run did, line by line for the user.
#[derive(Debug, Default, Clone)]
pub struct Report {
    pub store_converted: usize,
    pub claude_md: Option<String>,
}

/// Run the file migrations (store and CLAUDE.md); settings.json is [`crate::settings`]'s job.
pub fn run(
    paths: &Paths,
    store: &Store,
    dry_run: bool,
    on_wait: &mut dyn FnMut(),
) -> Result<Report> {
    let store_converted = migrate_store(paths, store, dry_run, on_wait)?;
    let claude_md = migrate_claude_md(&paths.global_claude_md(), &paths.backups(), dry_run)?;
    Ok(Report {
        store_converted,
        claude_md,
    })
}

/// The v1/v2 hook entries `memory-store migrate` found in settings.json.
#[derive(Debug, Clone)]
pub struct LegacyHooks {
    pub entries: usize,
    /// Replaced by ours (our binaries are installed); otherwise `reflect-toggle on` must do it,
    /// as only it installs them.
    pub replaced: bool,
    pub backup: Option<PathBuf>,
}

/// Replace the legacy hook entries of settings.json with ours when our binaries are installed
/// in `bin_dir`; `None` when there are none.
pub fn legacy_hooks(
    paths: &Paths,
    bin_dir: &Path,
    on_wait: &mut dyn FnMut(),
) -> Result<Option<LegacyHooks>> {
    let file = paths.settings();
    let status = settings::status(&file, bin_dir)?;
    let entries = status
        .hooks
        .iter()
        .flat_map(|h| &h.stale)
        .chain(&status.other)
        .filter(|f| f.recognized.legacy)
        .count();
    if entries == 0 {
        return Ok(None);
    }
    let replaced = status.hooks.iter().all(|h| h.binary_ok);
    let mut backup = None;
    if replaced {
        let edit = |doc: &mut settings::Document| doc.enable(bin_dir);
        backup = settings::edit_file(&file, &paths.backups(), false, on_wait, edit)?.backup;
    }
    Ok(Some(LegacyHooks {
        entries,
        replaced,
        backup,
    }))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn cut(text: &str) -> String {
        String::from_utf8(without_v1_sections(text.as_bytes()).unwrap_or_else(|| text.into()))
            .unwrap()
    }

    #[test]
    fn headings() {
        assert_eq!(
            atx_heading(b"## Self-Improvement"),
            Some((2, &b"Self-Improvement"[..]))
        );
        assert_eq!(
            atx_heading(b"   ##   Self-Improvement  ##  "),
            Some((2, &b"Self-Improvement"[..]))
        );
        assert_eq!(
            atx_heading(b"## Self-Improvement#"),
            Some((2, &b"Self-Improvement#"[..]))
        );
        assert_eq!(atx_heading(b"##Self-Improvement"), None);
        assert_eq!(atx_heading(b"    ## code"), None);
        assert_eq!(atx_heading(b"#"), Some((1, &b""[..])));
        assert_eq!(atx_heading(b"####### seven"), None);
    }

    #[test]
    fn sections_end_at_same_or_higher_level_outside_fences() {
        let text = "# T\n\n## Self-Improvement\nrule\n### sub\n```\n## not a heading\n```\nmore\n## Next\nkeep\n";
        assert_eq!(cut(text), "# T\n\n## Next\nkeep\n");
        let similar =
            "## Self-Improvement Notes\nx\n## A\n### Self-Improvement\ny\n# Self-Improvement\n";
        assert_eq!(cut(similar), similar);
        assert_eq!(cut("## Self-Improvement\r\nx \r\n"), "");
        assert_eq!(
            cut("a\r\n## Self-Improvement\r\nx\r\n# B\r\n"),
            "a\r\n# B\r\n"
        );
        assert_eq!(
            cut("~~~\n## Self-Improvement\n~~~\n"),
            "~~~\n## Self-Improvement\n~~~\n"
        );
        assert_eq!(
            cut("## Self-Improvement\na\n## Self-Improvement\nb\n## C\n"),
            "## C\n"
        );
        assert_eq!(cut("x\n## Self-Improvement"), "x\n");
    }
}
