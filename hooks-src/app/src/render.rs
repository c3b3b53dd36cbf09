//! Text the CLIs and hooks print: list formats, stats, the statusline, CSV (the context
//! `inject-signals` puts back is [`crate::inject`]'s). Pure functions from signals to bytes.

use std::fmt::Write as _;

use reflect_store::sanitize;
use reflect_store::signal::{Kind, Origin, Signal};
use reflect_store::store::Stats;

/// The list formats of `memory-store query`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ListFormat {
    Jsonl,
    Json,
    Table,
    Csv,
}

/// Render signals in a list format. `Json` is one pretty array; the others one record per line.
pub fn list(signals: &[&Signal], format: ListFormat) -> String {
    let mut out = String::new();
    match format {
        ListFormat::Jsonl => {
            for s in signals {
                out.push_str(&serde_json::to_string(s).expect("serializes"));
                out.push('\n');
            }
        }
        ListFormat::Json => {
            out = serde_json::to_string_pretty(signals).expect("serializes");
            out.push('\n');
        }
        ListFormat::Table => table(signals, &mut out),
        ListFormat::Csv => csv(signals, &mut out),
    }
    out
}

/// A signal's content as the last column of a listing (labels first, so it forges none): one
/// clean line, marked `[tool output]` when it quotes a tool (a failure's type says so already),
/// a failure's resolution after an arrow ([`Signal::headline`]).
pub fn free_text(s: &Signal, max: usize) -> String {
    let mark = s.kind != Kind::Failure && s.origin() == Origin::Tool;
    format!(
        "{}{}",
        if mark { "[tool output] " } else { "" },
        s.headline(max)
    )
}

/// What a capture dry run finds, for a person to read: one line per signal with its type,
/// confidence, transcript line and content (and how often it was seen, when more than once).
pub fn capture_table(signals: &[&Signal]) -> String {
    let mut out = format!("{:<12}{:>4}{:>6}  content\n", "type", "conf", "line");
    for s in signals {
        let line = s.source.line.map_or("-".to_string(), |l| l.to_string());
        let (kind, content) = (s.kind.as_str(), free_text(s, 100));
        let _ = write!(out, "{kind:<12}{:>4}{line:>6}  {content}", s.confidence);
        if s.seen() > 1 {
            let _ = write!(out, "  (seen {} times)", s.seen());
        }
        out.push('\n');
    }
    out
}

/// Where a signal was captured, as the index shows it: `project/session:line` (the project's
/// short name, the session id's first 8 characters, `-` for what was not recorded, and the
/// transcript line of the prompt it came from: what `digest --show SESSION:LINE` takes, and what
/// tells one incident from another), and ` (global)` for a personal preference from another
/// project.
pub fn place(
    project: Option<&str>,
    session: Option<&str>,
    line: Option<u64>,
    global: bool,
) -> String {
    let project = sanitize::visible(project.filter(|p| !p.is_empty()).unwrap_or("-"));
    let global = if global { " (global)" } else { "" };
    let session = sanitize::visible(crate::scope::short_session(session));
    let line = line.map(|l| format!(":{l}")).unwrap_or_default();
    format!("{project}/{session}{line}{global}") // escaped: a directory's name may hold a newline
}

/// The prompt a signal came from: the one that opened its turn (`source.prompt_line`; a failure's
/// or a refusal's own line is a tool's result), else its own line.
pub fn prompt_of(s: &Signal) -> Option<u64> {
    reflect_store::keyindex::prompt_line(&s.source).or(s.source.line)
}

fn table(signals: &[&Signal], out: &mut String) {
    let id_width = signals.iter().map(|s| s.id.len()).max().unwrap_or(2).max(2);
    let _ = writeln!(
        out,
        "{:<id_width$}  {:<16} {:<9} {:>4} {:>4}  {:<10}  CONTENT",
        "ID", "TYPE", "STATUS", "CONF", "SEEN", "DATE"
    );
    for s in signals {
        let date = s.timestamp.get(..10).unwrap_or(&s.timestamp);
        let (id, kind, status, seen) = (&s.id, &s.kind, &s.status, s.seen());
        let (confidence, content) = (s.confidence, free_text(s, 72));
        let _ = writeln!(
            out,
            "{id:<id_width$}  {kind:<16} {status:<9} {confidence:>4} {seen:>4}  {date:<10}  {content}"
        );
    }
    let plural = if signals.len() == 1 { "" } else { "s" };
    let _ = writeln!(out, "{} signal{plural}", signals.len());
}

/// RFC 4180 field: quoted when it holds a comma, quote or line break. A leading `=`, `+`, `-` or
/// `@` is prefixed with `'` so a spreadsheet never runs captured text as a formula.
fn csv_field(text: &str) -> String {
    let text = match text.chars().next() {
        Some('=' | '+' | '-' | '@') => format!("'{text}"),
        _ => text.to_string(),
    };
    if text.contains([',', '"', '\n', '\r']) {
        format!("\"{}\"", text.replace('"', "\"\""))
    } else {
        text
    }
}

fn csv(signals: &[&Signal], out: &mut String) {
    out.push_str("id,timestamp,session_id,project,type,status,confidence,seen,category,tags,content,context,promoted_to\r\n");
    for s in signals {
        let fields = [
            s.id.clone(),
            s.timestamp.clone(),
            s.session_id.clone().unwrap_or_default(),
            s.project.clone().unwrap_or_default(),
            s.kind.to_string(),
            s.status.to_string(),
            s.confidence.to_string(),
            s.seen().to_string(),
            s.category.clone().unwrap_or_default(),
            s.tags.join(";"),
            s.content.clone(),
            s.context.clone(),
            s.promoted_to.clone().unwrap_or_default(),
        ];
        let row: Vec<String> = fields.iter().map(|f| csv_field(f)).collect();
        let _ = write!(out, "{}\r\n", row.join(","));
    }
}

/// `memory-store stats`' text format.
pub fn stats_text(st: &Stats) -> String {
    let mut out = String::new();
    let _ = writeln!(out, "signals: {} ({} pending review)", st.total, st.pending);
    if st.total > 0 {
        for (what, counts) in [
            ("status", &st.by_status),
            ("type", &st.by_type),
            ("confidence", &st.by_confidence),
        ] {
            // A type or status from a future version (or a hand-edited line) is shown escaped.
            let counts: Vec<String> = counts
                .iter()
                .map(|(k, v)| format!("{} {v}", sanitize::visible(k)))
                .collect();
            let _ = writeln!(out, "by {what}: {}", counts.join(", "));
        }
    }
    if let Some(oldest) = &st.oldest_captured {
        let _ = writeln!(out, "oldest pending: {oldest}");
    }
    let (doctor, migrate) = (
        " (run `memory-store doctor`)",
        " (run `memory-store migrate`)",
    );
    let notes = [
        (st.needs_review, "analyzed for over 30 days, to review:", ""),
        (st.invalid_lines, "unreadable lines:", doctor),
        (st.legacy_lines, "v2 lines:", migrate),
    ];
    for (n, what, fix) in notes.into_iter().filter(|(n, ..)| *n > 0) {
        let _ = writeln!(out, "{what} {n}{fix}");
    }
    let _ = writeln!(out, "store size: {} bytes", st.store_bytes);
    out
}

/// `reflect: N pending`, or nothing at all when there is nothing to review.
pub fn statusline(st: &Stats) -> String {
    match st.pending {
        0 => String::new(),
        n => format!("reflect: {n} pending\n"),
    }
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;

    /// A signal of `kind` with `content` and confidence `conf`, its id made from the content's
    /// length: the one fixture of the printers' tests (render, index, inject).
    pub(crate) fn sig(kind: Kind, content: &str, conf: u8) -> Signal {
        let mut s = Signal::new(kind, content);
        s.id = format!("SIG-20261122-{:010x}", content.len());
        s.confidence = conf;
        s
    }

    #[test]
    fn csv_quotes_and_defuses_formulas() {
        let a = sig(Kind::Command, "=HYPERLINK(\"x\"), then run", 1);
        let text = list(&[&a], ListFormat::Csv);
        let row = text.lines().nth(1).unwrap();
        let defused = "\"'=HYPERLINK(\"\"x\"\"), then run\"";
        assert!(row.contains(defused), "{row}");
    }
}
