//! Promotion: writing an approved learning into a memory file (CLAUDE.md, a rules file, an auto
//! memory topic file, `.claude/improvements.md`) and recording where it went.
//!
//! The order makes a retry safe: the target file first (backed up, atomic, and a line that is
//! already there is not added twice), then the signal's status, then the learnings index
//! (`learnings/LEARNINGS.md`, one line per learning and target: a signal promoted into CLAUDE.md
//! and into MEMORY.md has a line for each) and its topic file (`learnings/<type>.md`, the
//! evidence). Running the same promotion again changes nothing but what a crash left undone, and
//! says so.
//!
//! A target whose directory does not exist is refused unless the caller asks for the directory
//! (`create_dir`): a mistyped path must not grow a directory tree with a learning in it.
//!
//! A target is written only when it is a Markdown file ([`check_target`]): named `.md` or
//! `.markdown`, both as given and once links are followed; not inside a `.git` directory (a hook
//! script, a git config); not executable (a shell runs an executable file without `#!` as a
//! script, so a learning written there could be run; on a Windows drive mounted in WSL, where every
//! file has the bit, the refusal says how to clear it); a regular file or absent. A CLAUDE.md linked to `~/.bashrc`
//! or into `.git/` is refused before anything is read or written, so the learning never lands in a
//! shell profile or a hook. A CLAUDE.md linked into a dotfiles repository is followed: the file it
//! names is rewritten atomically, the link stays, and so do the file's mode and owner.

use std::fs;
use std::os::unix::fs::PermissionsExt;
use std::path::{Path, PathBuf};

use serde_json::Value;

use reflect_base::error::{Error, IoContext, Result};
use reflect_base::fsutil::{self, PRIVATE_FILE, USER_FILE};
use reflect_base::paths::Paths;
use reflect_base::text::one_line;
use reflect_store::signal::{Kind, Signal, Status};
use reflect_store::store::Store;

/// Copies of each user file kept in `backups/`.
pub const USER_BACKUPS_KEPT: usize = 20;

/// What a promotion did.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Promotion {
    pub target: PathBuf,
    pub section: String,
    /// False when the text was already in the file (nothing was added).
    pub added: bool,
    /// True when the target did not exist and was created from the template.
    pub created: bool,
    pub backup: Option<PathBuf>,
    /// False when nothing changed at all: the text was there, and the signal and the learnings
    /// index already said it was promoted there.
    pub changed: bool,
}

/// The section a learning goes under when the caller names none.
pub(crate) fn default_section(kind: &Kind) -> &'static str {
    match kind {
        Kind::Correction | Kind::Convention => "Conventions",
        Kind::Preference => "Preferences",
        Kind::Command => "Commands",
        Kind::Failure | Kind::Gotcha => "Gotchas",
        Kind::ProjectFriction => "Improvements",
        _ => "Learnings",
    }
}

fn is_heading(line: &str, max_level: usize) -> Option<(usize, &str)> {
    let hashes = line.bytes().take_while(|&b| b == b'#').count();
    if hashes == 0 || hashes > max_level {
        return None;
    }
    let rest = &line[hashes..];
    if !rest.is_empty() && !rest.starts_with([' ', '\t']) {
        return None;
    }
    Some((hashes, rest.trim()))
}

fn is_fence(line: &str) -> bool {
    let t = line.trim_start();
    t.starts_with("```") || t.starts_with("~~~")
}

/// The lines of `text` as they should appear: a single line becomes a `- ` bullet unless it is
/// already a list item (a line starting with `#` is bulleted too: a learning is never a heading).
fn as_block(text: &str) -> String {
    let text = text.trim();
    if text.contains('\n')
        || text.starts_with(['-', '*'])
        || text.starts_with(|c: char| c.is_ascii_digit())
    {
        text.to_string()
    } else {
        format!("- {text}")
    }
}

/// Insert `text` at the end of the `## section` of markdown `doc` (creating the section at the
/// end when missing). `None` when the text is already in the document.
pub(crate) fn insert_under_section(doc: &str, section: &str, text: &str) -> Option<String> {
    let block = as_block(text);
    let present = |line: &str| {
        line.trim() == block.trim()
            || line.trim().trim_start_matches(['-', '*', ' ']) == text.trim()
    };
    if block.lines().count() == 1 && doc.lines().any(present) {
        return None;
    }
    if block.lines().count() > 1 && doc.contains(block.as_str()) {
        return None;
    }
    let lines: Vec<&str> = doc.lines().collect();
    let mut in_fence = false;
    let mut start = None;
    let mut end = lines.len();
    for (i, line) in lines.iter().enumerate() {
        if is_fence(line) {
            in_fence = !in_fence;
            continue;
        }
        if in_fence {
            continue;
        }
        match (start, is_heading(line, 2)) {
            (None, Some((2, title))) if title.eq_ignore_ascii_case(section.trim()) => {
                start = Some(i)
            }
            (Some(_), Some(_)) => {
                end = i;
                break;
            }
            _ => {}
        }
    }
    let mut out: Vec<String> = Vec::with_capacity(lines.len() + 4);
    match start {
        Some(h) => {
            let last_text = (h + 1..end)
                .rev()
                .find(|&i| !lines[i].trim().is_empty())
                .unwrap_or(h);
            out.extend(lines[..=last_text].iter().map(|l| l.to_string()));
            if last_text == h {
                out.push(String::new());
            }
            out.extend(block.lines().map(str::to_string));
            if last_text + 1 == end && end < lines.len() {
                out.push(String::new());
            }
            out.extend(lines[last_text + 1..].iter().map(|l| l.to_string()));
        }
        None => {
            out.extend(lines.iter().map(|l| l.to_string()));
            while out.last().is_some_and(|l| l.trim().is_empty()) {
                out.pop();
            }
            if !out.is_empty() {
                out.push(String::new());
            }
            out.push(format!("## {}", section.trim()));
            out.push(String::new());
            out.extend(block.lines().map(str::to_string));
        }
    }
    let mut joined = out.join("\n");
    joined.push('\n');
    Some(joined)
}

/// A minimal document for a target that does not exist yet.
pub(crate) fn template_for(target: &Path) -> String {
    let name = target
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default();
    let title = match name.as_str() {
        "CLAUDE.md" => "CLAUDE.md".to_string(),
        "improvements.md" => "Project improvements".to_string(),
        "MEMORY.md" => "Memory".to_string(),
        other => {
            let stem = other.trim_end_matches(".md").replace(['-', '_'], " ");
            let mut c = stem.chars();
            match c.next() {
                Some(first) => first.to_uppercase().chain(c).collect(),
                None => "Notes".to_string(),
            }
        }
    };
    format!("# {title}\n")
}

/// Whether a learning may be written to `target`, the file `given` resolves to (links followed):
/// see the module docs. Both names must be Markdown, neither may lie inside `.git/` (nor may the
/// real directory of `target`, through a linked directory), and an existing target must be a
/// regular file that is not an executable program.
pub(crate) fn check_target(given: &Path, target: &Path) -> Result<()> {
    let refuse = |why: String| {
        Err(Error::msg(format!(
            "refusing to write a learning to {}: {why}; nothing was changed",
            given.display()
        )))
    };
    let markdown = |p: &Path| {
        p.extension()
            .and_then(|e| e.to_str())
            .is_some_and(|e| e.eq_ignore_ascii_case("md") || e.eq_ignore_ascii_case("markdown"))
    };
    for p in [given, target] {
        if !markdown(p) {
            let what = if p == given {
                "it"
            } else {
                "the file it links to"
            };
            return refuse(format!(
                "{what} ({}) is not a Markdown file (.md or .markdown)",
                p.display()
            ));
        }
    }
    let real_dir = target.parent().and_then(|d| fs::canonicalize(d).ok());
    let in_git = [Some(given), Some(target), real_dir.as_deref()]
        .into_iter()
        .flatten()
        .any(|p| {
            p.components()
                .any(|c| c.as_os_str().eq_ignore_ascii_case(".git"))
        });
    if in_git {
        return refuse(format!("{} is inside a .git directory", target.display()));
    }
    match fs::metadata(target) {
        Ok(meta) if !meta.is_file() => Err(fsutil::not_regular(target, &meta)),
        Ok(meta) if meta.permissions().mode() & 0o111 != 0 => {
            let mode = meta.permissions().mode() & 0o7777;
            if is_program(target) {
                refuse(format!(
                    "{} is an executable program (mode {mode:o}), not notes",
                    target.display()
                ))
            } else {
                refuse(format!(
                    "{} is executable (mode {mode:o}) and a shell would run what is written into it; \
                     `chmod -x` it first (on a Windows drive in WSL: mount it with the metadata option)",
                    target.display()
                ))
            }
        }
        _ => Ok(()),
    }
}

/// Whether the file starts like a program: a `#!` script or an ELF or Mach-O binary. The execute
/// bit alone does not say it: on a Windows drive mounted in WSL every file has it.
fn is_program(path: &Path) -> bool {
    use std::io::Read;
    let mut head = [0u8; 4];
    let Ok(Some(mut file)) = fsutil::open_regular(path) else {
        return false;
    };
    let n = file.read(&mut head).unwrap_or(0);
    let head = &head[..n];
    head.starts_with(b"#!")
        || head == b"\x7fELF"
        || head == [0xcf, 0xfa, 0xed, 0xfe]
        || head == [0xca, 0xfe, 0xba, 0xbe]
}

/// A flag's value as it may be written: one line (a value of several is refused, named but not
/// echoed: it may hold a secret), cleaned ([`reflect_store::sanitize`]), tabs as blanks, redacted.
fn one_line_value(flag: &str, value: &str) -> Result<String> {
    let cleaned = reflect_store::sanitize::clean(value.trim());
    if cleaned.contains('\n') {
        return Err(Error::usage(format!(
            "{flag} must be one line (it is written as one line of the file); nothing was changed"
        )));
    }
    Ok(reflect_store::redact::redact(&cleaned.replace('\t', " ")).into_owned())
}

/// Promote signal `id`: write `content` under `## section` of `target`, mark the signal
/// promoted, and record it in the learnings index. Nothing changes when the id does not exist.
pub fn promote(
    store: &Store,
    id: &str,
    target: &Path,
    content: &str,
    section: Option<&str>,
    create_dir: bool,
) -> Result<Promotion> {
    let signal = store.load()?.get(id).cloned().ok_or_else(|| {
        Error::msg(format!(
            "no signal {id} in {}",
            store.paths().store().display()
        ))
    })?;
    let content = one_line_value("--content", content)?;
    if content.is_empty() {
        return Err(Error::usage("--content is empty"));
    }
    let section = match section
        .map(|s| one_line_value("--section", s))
        .transpose()?
    {
        Some(s) if !s.is_empty() => s,
        _ => default_section(&signal.kind).to_string(),
    };
    let given = target;
    let target = fsutil::resolve_symlinks(given).ctx("cannot resolve", given)?;
    check_target(given, &target)?;
    if let Some(dir) = target.parent().filter(|d| !d.as_os_str().is_empty()) {
        if !create_dir && !dir.is_dir() {
            return Err(Error::msg(format!(
                "refusing to write a learning to {}: its directory {} does not exist (a mistyped path?); give --mkdir to create it; nothing was changed",
                given.display(),
                dir.display()
            )));
        }
    }
    let (existing, created) = match read_text(&target)? {
        Some(text) => (text, false),
        None => (template_for(&target), true),
    };
    let mut promotion = Promotion {
        target: target.clone(),
        section: section.clone(),
        added: false,
        created,
        backup: None,
        changed: false,
    };
    if let Some(updated) = insert_under_section(&existing, &section, &content) {
        if let Some(dir) = target.parent() {
            fsutil::create_dirs(dir, 0o777)?;
        }
        promotion.backup =
            fsutil::backup(&target, &store.paths().backups(), USER_BACKUPS_KEPT, false)?;
        fsutil::atomic_write(&target, updated.as_bytes(), USER_FILE)?;
        promotion.added = true;
    }
    let target_text = target.display().to_string();
    let (promoted, marked) = store.rewrite(&mut || {}, |snap| {
        let sig = snap
            .get_mut(id)
            .ok_or_else(|| Error::msg(format!("signal {id} disappeared during promotion")))?;
        let said = |key: &str| sig.meta.get(key).and_then(Value::as_str);
        let already = sig.status == Status::Promoted
            && sig.promoted_to.as_deref() == Some(target_text.as_str())
            && said("promoted_section") == Some(section.as_str())
            && said("promoted_content") == Some(content.as_str());
        if already {
            return Ok(((sig.clone(), false), false));
        }
        sig.status = Status::Promoted;
        sig.promoted_to = Some(target_text.clone());
        sig.meta
            .insert("promoted_section".into(), Value::from(section.clone()));
        sig.meta
            .insert("promoted_at".into(), Value::from(fsutil::now_rfc3339()));
        sig.meta
            .insert("promoted_content".into(), Value::from(content.clone()));
        // A signal stored before a redaction rule (or cleaning) existed is cleaned when it is
        // promoted.
        reflect_store::sanitize::clean_signal(sig);
        reflect_store::redact::redact_signal(sig);
        Ok(((sig.clone(), true), true))
    })?;
    let recorded = record_learning(store.paths(), &promoted, &content)?;
    promotion.changed = promotion.added || marked || recorded;
    Ok(promotion)
}

fn index_header() -> &'static str {
    "# Learnings\n\nPromoted by /reflect: one line per learning, the evidence in the topic file named on the line.\n"
}

fn topic_file(kind: &Kind) -> String {
    format!("{}.md", kind.as_str().replace('_', "-"))
}

/// Add (or replace) the signal's line for its target in `LEARNINGS.md` (its lines for other
/// targets stay) and its entry in the topic file; says whether a file changed.
fn record_learning(paths: &Paths, sig: &Signal, content: &str) -> Result<bool> {
    let dir = paths.learnings_dir();
    fsutil::ensure_private_dir(&dir)?;
    let date = sig
        .meta
        .get("promoted_at")
        .and_then(Value::as_str)
        .unwrap_or("")
        .get(..10)
        .unwrap_or("")
        .to_string();
    // A path may hold a newline: each learning stays one line.
    let target = reflect_store::sanitize::visible(sig.promoted_to.as_deref().unwrap_or_default())
        .into_owned();
    let topic = topic_file(&sig.kind);
    let line = format!(
        "- {} · {} · {} → {} ({date}) · [evidence]({topic})",
        sig.id,
        sig.kind,
        one_line(content, 100),
        target
    );
    let index = paths.learnings_index();
    let read_index = read_text(&index)?;
    let old = read_index.as_deref().unwrap_or(index_header());
    let to_target = format!(" → {target} (");
    let same = |l: &str| l.contains(&sig.id) && l.contains(&to_target);
    let mut kept: Vec<&str> = old.lines().filter(|l| !same(l)).collect();
    while kept.last().is_some_and(|l| l.trim().is_empty()) {
        kept.pop();
    }
    let mut new = kept.join("\n");
    new.push_str(if kept.len() <= 3 { "\n\n" } else { "\n" });
    new.push_str(&line);
    new.push('\n');
    // Rewritten only when it changes: the same promotion again writes nothing.
    let mut changed = false;
    if old.lines().filter(|l| same(l)).ne([line.as_str()]) || read_index.is_none() {
        rewrite_private(paths, &index, &new)?;
        changed = true;
    }

    let topic_path = dir.join(&topic);
    let title = format!("# {} learnings\n", sig.kind);
    let read_topic = read_text(&topic_path)?;
    let old = read_topic.as_deref().unwrap_or(&title);
    // The entry lists every target the signal was promoted to.
    let promoted_line = format!(
        "- promoted {date} to {target} (## {})",
        sig.meta
            .get("promoted_section")
            .and_then(Value::as_str)
            .unwrap_or("")
    );
    let mut targets: Vec<String> = entry_lines(old, &sig.id)
        .filter(|l| l.starts_with("- promoted ") && !l.contains(&format!(" to {target} (")))
        .map(str::to_string)
        .collect();
    targets.push(promoted_line);
    let body = format!(
        "{}\n- learning: {}\n- evidence: {}\n- seen: {} time(s), confidence {}",
        targets.join("\n"),
        one_line(content, 500),
        one_line(&sig.context, 500),
        sig.seen(),
        sig.confidence,
    );
    let same_entry = entry_lines(old, &sig.id)
        .filter(|l| !l.trim().is_empty())
        .eq(body.lines());
    if read_topic.is_none() || !same_entry {
        let mut new = remove_entry(old, &sig.id).trim_end().to_string();
        new.push_str(&format!("\n\n## {}\n\n{body}\n", sig.id));
        rewrite_private(paths, &topic_path, &new)?;
        changed = true;
    }
    Ok(changed)
}

/// The lines of the `## <id>` entry of `doc` (without its heading).
fn entry_lines<'a>(doc: &'a str, id: &'a str) -> impl Iterator<Item = &'a str> {
    let mut inside = false;
    doc.lines().filter(move |line| {
        if let Some((_, title)) = is_heading(line, 2) {
            inside = title == id;
            return false;
        }
        inside
    })
}

/// The text of the regular file at `path` ([`fsutil::read_regular`]: never waits on a FIFO),
/// `None` when there is none.
fn read_text(path: &Path) -> Result<Option<String>> {
    let Some(bytes) = fsutil::read_regular(path)? else {
        return Ok(None);
    };
    String::from_utf8(bytes).map(Some).map_err(|_| {
        Error::msg(format!(
            "{} is not UTF-8 text; nothing was changed",
            path.display()
        ))
    })
}

fn rewrite_private(paths: &Paths, path: &Path, text: &str) -> Result<()> {
    fsutil::backup(path, &paths.backups(), USER_BACKUPS_KEPT, false)?;
    fsutil::atomic_write(path, text.as_bytes(), PRIVATE_FILE)
}

/// `doc` without the `## <id>` entry (heading through the line before the next `##`).
fn remove_entry(doc: &str, id: &str) -> String {
    let mut out = Vec::new();
    let mut skipping = false;
    for line in doc.lines() {
        if let Some((_, title)) = is_heading(line, 2) {
            skipping = title == id;
        }
        if !skipping {
            out.push(line);
        }
    }
    let mut text = out.join("\n");
    text.push('\n');
    text
}

/// Remove every trace of `ids` from the learnings index and topic files (for `forget`).
/// Returns how many files changed.
pub(crate) fn forget_learnings(paths: &Paths, ids: &[String]) -> Result<usize> {
    let dir = paths.learnings_dir();
    let Ok(entries) = fs::read_dir(&dir) else {
        return Ok(0);
    };
    let mut changed = 0;
    for entry in entries.flatten() {
        let path = entry.path();
        if path.extension().is_none_or(|e| e != "md") {
            continue;
        }
        let Some(old) = read_text(&path)? else {
            continue;
        };
        let mut new = old.clone();
        // Most ids of a large forget are in no learnings file: one search each rules them out.
        for id in ids.iter().filter(|id| old.contains(id.as_str())) {
            new = remove_entry(&new, id);
            new = new
                .lines()
                .filter(|l| !l.contains(id.as_str()))
                .collect::<Vec<_>>()
                .join("\n")
                + "\n";
        }
        if new != old {
            // No backup: a forgotten learning must not survive in a copy.
            fsutil::atomic_write(&path, new.as_bytes(), PRIVATE_FILE)?;
            changed += 1;
        }
    }
    Ok(changed)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn appends_to_an_existing_section_before_the_next_heading() {
        let doc = "# Project\n\n## Conventions\n\n- use tabs\n\n## Other\n\ntext\n";
        let out = insert_under_section(doc, "conventions", "use pnpm, not npm").unwrap();
        assert_eq!(
            out,
            "# Project\n\n## Conventions\n\n- use tabs\n- use pnpm, not npm\n\n## Other\n\ntext\n"
        );
        assert_eq!(
            insert_under_section(&out, "Conventions", "use pnpm, not npm"),
            None
        );
    }

    #[test]
    fn creates_a_missing_section_at_the_end() {
        let out = insert_under_section(
            "# Project\n\nintro\n\n\n",
            "Gotchas",
            "the build needs Node 20",
        )
        .unwrap();
        assert_eq!(
            out,
            "# Project\n\nintro\n\n## Gotchas\n\n- the build needs Node 20\n"
        );
        let out = insert_under_section("", "Gotchas", "x").unwrap();
        assert_eq!(out, "## Gotchas\n\n- x\n");
    }

    #[test]
    fn headings_inside_code_fences_are_not_sections() {
        let doc = "# P\n\n```md\n## Conventions\n```\n";
        let out = insert_under_section(doc, "Conventions", "real").unwrap();
        assert!(out.starts_with(doc), "{out}");
        assert!(out.ends_with("## Conventions\n\n- real\n"));
    }

    #[test]
    fn empty_section_gets_a_blank_line_after_its_heading() {
        let out = insert_under_section("## Conventions\n## Next\n", "Conventions", "x").unwrap();
        assert_eq!(out, "## Conventions\n\n- x\n\n## Next\n");
    }

    #[test]
    fn removing_an_entry_keeps_the_others() {
        let doc = "# t\n\n## SIG-1\n\n- a\n\n## SIG-2\n\n- b\n";
        assert_eq!(remove_entry(doc, "SIG-1"), "# t\n\n## SIG-2\n\n- b\n");
    }
}
