//! Upgrading what v1 and v2 left behind, run by `reflect-toggle on` and `memory-store migrate`:
//!
//! - v1 kept its instructions in a `## Self-Improvement` section of `<config dir>/CLAUDE.md` (its
//!   heading through the line before the next heading of level 1 or 2, or the end). Only what v1
//!   wrote goes: a line is v1's when it is one of the lines of v1's template ([`V1_LINES`], matched
//!   whatever its indentation, line ending or dash and quote style); a line the user added in the
//!   section is theirs and stays, under the heading, with the blank lines between kept lines folded
//!   to one. When nothing of the user's is in it, the whole section goes. Nothing outside the section
//!   changes, not a byte: line endings, trailing spaces and the blank lines around it stay. The
//!   report lists every line removed (and every line kept), besides the backup. Headings are ATX
//!   headings outside fenced code blocks; `## Self-Improvement Notes` and `### Self-Improvement`
//!   are other headings and stay. CLAUDE.md is read only when it is a regular file and rewritten
//!   only when it is a Markdown note ([`crate::promote::check_target`]).
//! - v2 wrote short store lines; [`Store::migrate_legacy`] converts them to schema v1 in place.
//! - v2 hook entries in settings.json are replaced by ours: that is [`crate::settings`]'s `enable`,
//!   which removes legacy entries as it registers.
//!
//! Every step is idempotent: a second run finds nothing and writes nothing.

use std::fs;
use std::ops::Range;
use std::path::{Path, PathBuf};

use crate::settings;
use reflect_base::error::{Error, IoContext, Result};
use reflect_base::fsutil::{self, USER_FILE};
use reflect_base::paths::Paths;
use reflect_store::signal::fnv1a;
use reflect_store::store::{Snapshot, Store};

/// The heading v1 wrote.
pub const V1_HEADING: &str = "Self-Improvement";

/// The lines v1's template wrote under its heading, as fingerprints of [`v1_normal`] text (FNV-1a):
/// what is needed to tell them from the user's own lines, without carrying v1's text around.
const V1_LINES: [u64; 28] = [
    0x3851705f94795870,
    0xf57713e99473133b,
    0xb16131bc7c2696cd,
    0xde7fd0d998820bf4,
    0x4ac95676c80a8c1c,
    0x8cbf7a8e0383afa1,
    0xbbd9a73330c792f5,
    0xe5808ed5fc6b68dc,
    0xf371fd5f4a698279,
    0xb1ed054d58d3d8d2,
    0xa5d92138c68d67f2,
    0x3650c374b765c5f5,
    0x437a887b4bd01af1,
    0x285a5d871d214f15,
    0x5bbbbb0b63f0a898,
    0x9d09256c53b3aa77,
    0xc7e8bea345ca11b6,
    0x1de76d0043dcec51,
    0x64c0ddc9079bedc1,
    0x4c8f26c72f413d91,
    0x1732fe884200c4f5,
    0xefba28b1d53f4534,
    0xa6519cd09115f4e5,
    0x1b98efb03286f7eb,
    0xcf93bdfb44e90601,
    0xe339ff37859a3423,
    0xf4b1bdb0b30b1775,
    0x59457d94ea1e24ad,
];

/// A line as compared with v1's: trimmed, inner white space folded to one space, typographic dashes
/// and quotes made ASCII (v1's template was written out by the model, which may have varied them).
fn v1_normal(line: &[u8]) -> String {
    let text = String::from_utf8_lossy(line);
    let folded = text.split_whitespace().collect::<Vec<_>>().join(" ");
    folded
        .chars()
        .map(|c| match c {
            '\u{2014}' | '\u{2013}' => '-',
            '\u{2018}' | '\u{2019}' => '\'',
            '\u{201c}' | '\u{201d}' => '"',
            c => c,
        })
        .collect()
}

/// Whether `line` is one v1's template wrote.
fn is_v1_line(line: &[u8]) -> bool {
    V1_LINES.contains(&fnv1a(v1_normal(line).as_bytes()))
}

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
pub(crate) fn v1_sections(text: &[u8]) -> Vec<Range<usize>> {
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

/// What cutting v1's lines out of a text did.
#[derive(Debug, Default, Clone, PartialEq, Eq)]
pub struct Cut {
    /// The text afterwards.
    pub text: Vec<u8>,
    /// The lines removed (without their line ending; blank lines left out).
    pub removed: Vec<String>,
    /// The user's lines kept in a section.
    pub kept: Vec<String>,
}

fn line_text(line: &[u8]) -> String {
    let line = line.strip_suffix(b"\n").unwrap_or(line);
    let line = line.strip_suffix(b"\r").unwrap_or(line);
    String::from_utf8_lossy(line).into_owned()
}

/// `text` without what v1 wrote (see the module docs), or `None` when there is nothing of v1's.
pub(crate) fn without_v1_sections(text: &[u8]) -> Option<Cut> {
    let sections = v1_sections(text);
    if sections.is_empty() {
        return None;
    }
    let mut cut = Cut::default();
    let mut at = 0;
    for s in sections {
        cut.text.extend_from_slice(&text[at..s.start]);
        at = s.end;
        let mut lines = text[s.clone()].split_inclusive(|&b| b == b'\n');
        let heading = lines.next().unwrap_or_default();
        let body: Vec<&[u8]> = lines.collect();
        let blank = |l: &[u8]| l.trim_ascii().is_empty();
        let theirs = |l: &[u8]| !blank(l) && !is_v1_line(l);
        if !body.iter().any(|l| theirs(l)) {
            cut.removed.push(line_text(heading));
            cut.removed
                .extend(body.iter().filter(|l| !blank(l)).map(|l| line_text(l)));
            continue;
        }
        // The user's lines stay under the heading; a run of blank lines left between them is one.
        cut.text.extend_from_slice(heading);
        let mut last_blank = false;
        for line in body {
            if theirs(line) {
                cut.kept.push(line_text(line));
            } else if !blank(line) {
                cut.removed.push(line_text(line));
                continue;
            } else if last_blank {
                continue;
            }
            last_blank = blank(line);
            cut.text.extend_from_slice(line);
        }
    }
    cut.text.extend_from_slice(&text[at..]);
    // A section that holds only the user's lines is theirs now: nothing to do.
    (!cut.removed.is_empty()).then_some(cut)
}

/// 1-based line number of byte offset `at`.
fn line_of(text: &[u8], at: usize) -> usize {
    text[..at].iter().filter(|&&b| b == b'\n').count() + 1
}

/// Remove what v1 wrote from the CLAUDE.md at `path` (backed up to `backups` first). Returns the
/// report, one line and then every line removed and kept, or `None` when there was nothing to do.
pub(crate) fn migrate_claude_md(
    path: &Path,
    backups: &Path,
    dry_run: bool,
) -> Result<Option<String>> {
    let Some(text) = fsutil::read_regular(path)? else {
        return Ok(None);
    };
    let sections = v1_sections(&text);
    let Some(cut) = without_v1_sections(&text) else {
        return Ok(None);
    };
    let target = fsutil::resolve_symlinks(path).ctx("cannot resolve", path)?;
    crate::promote::check_target(path, &target)?;
    let lines: Vec<String> = sections
        .iter()
        .map(|s| {
            let last = line_of(&text, s.end.max(s.start + 1) - 1);
            format!("{}-{}", line_of(&text, s.start), last)
        })
        .collect();
    let (whole, from) = if cut.kept.is_empty() {
        (format!("the v1 `## {V1_HEADING}` section"), "from")
    } else {
        (
            format!("v1's lines from the `## {V1_HEADING}` section"),
            "of",
        )
    };
    let what = format!(
        "{whole} (lines {}) {from} {}",
        lines.join(", "),
        path.display()
    );
    let mut listing = String::new();
    for line in &cut.removed {
        listing.push_str(&format!("\n  - removed: {line}"));
    }
    if !cut.kept.is_empty() {
        listing.push_str(&format!(
            "\n  {} line(s) you wrote there stay, under the heading:",
            cut.kept.len()
        ));
        for line in &cut.kept {
            listing.push_str(&format!("\n  - kept:    {line}"));
        }
    }
    if dry_run {
        return Ok(Some(format!("would remove {what}{listing}")));
    }
    let backup = fsutil::backup(path, backups, CLAUDE_MD_BACKUPS_KEPT, false)?;
    fsutil::atomic_write(path, &cut.text, USER_FILE)?;
    Ok(Some(format!(
        "removed {what}{}{listing}",
        backup
            .map(|b| format!(" (backup: {})", b.display()))
            .unwrap_or_default()
    )))
}

/// Convert the store's v2 lines to schema v1. Returns the number converted (in a dry run, the
/// number that would be).
pub(crate) fn migrate_store(
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

    /// A few lines of v1's template (its subheadings and bullets), as v1 wrote them.
    const V1: &str = "### Cadence\n\n- One proposal at a time\n- Never interrupt the user's flow\n";

    fn cut(text: &str) -> String {
        let text = text.replace("V1\n", V1);
        let out = without_v1_sections(text.as_bytes()).map_or(text.into_bytes(), |c| c.text);
        String::from_utf8(out).unwrap()
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
        let text =
            "# T\n\n## Self-Improvement\nV1\n### sub\n```\n## not a heading\n```\n## Next\nkeep\n";
        assert_eq!(
            cut(text),
            "# T\n\n## Self-Improvement\n\n### sub\n```\n## not a heading\n```\n## Next\nkeep\n",
            "### sub and the fence are not v1's: they stay, under the heading"
        );
        let text = "# T\n\n## Self-Improvement\nV1\n### What to watch for\n## Next\nkeep\n";
        assert_eq!(cut(text), "# T\n\n## Next\nkeep\n");
        let similar =
            "## Self-Improvement Notes\nV1\n## A\n### Self-Improvement\nV1\n# Self-Improvement\n";
        assert_eq!(cut(similar), similar.replace("V1\n", V1));
        assert_eq!(
            cut("## Self-Improvement\r\n- One proposal at a time \r\n"),
            ""
        );
        assert_eq!(
            cut("a\r\n## Self-Improvement\r\n\t### Cadence\r\n# B\r\n"),
            "a\r\n# B\r\n"
        );
        assert_eq!(
            cut("~~~\n## Self-Improvement\n~~~\n"),
            "~~~\n## Self-Improvement\n~~~\n"
        );
        assert_eq!(
            cut("## Self-Improvement\nV1\n## Self-Improvement\nV1\n## C\n"),
            "## C\n"
        );
        assert_eq!(cut("x\n## Self-Improvement"), "x\n");
    }

    #[test]
    fn regression_lines_the_user_wrote_in_the_v1_section_stay() {
        let text = format!(
            "# Me\n\n## Self-Improvement\n\n{V1}- my own rule: run `make fmt`\n\n### Cadence\n\n- Space proposals out \u{2014} no more than one every few minutes\n\n  more of mine\n\n## Next\nkeep\n"
        );
        let cut = without_v1_sections(text.as_bytes()).unwrap();
        assert_eq!(
            String::from_utf8(cut.text).unwrap(),
            "# Me\n\n## Self-Improvement\n\n- my own rule: run `make fmt`\n\n  more of mine\n\n## Next\nkeep\n"
        );
        assert_eq!(
            cut.kept,
            ["- my own rule: run `make fmt`", "  more of mine"]
        );
        assert_eq!(
            cut.removed,
            [
                "### Cadence",
                "- One proposal at a time",
                "- Never interrupt the user's flow",
                "### Cadence",
                "- Space proposals out \u{2014} no more than one every few minutes"
            ]
        );
        // Run again: nothing of v1's is left, so nothing changes.
        assert_eq!(without_v1_sections(cut_text(&text).as_bytes()), None);
        assert!(is_v1_line(
            "  - Space proposals out -- no more than one every few minutes"
                .replace("--", "\u{2013}")
                .as_bytes()
        ));
        assert!(!is_v1_line(b"- One proposal at a time, please"));
    }

    fn cut_text(text: &str) -> String {
        String::from_utf8(without_v1_sections(text.as_bytes()).unwrap().text).unwrap()
    }
}
