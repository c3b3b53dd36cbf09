//! Text the CLIs and hooks print: list formats, stats, the statusline, CSV, and the context
//! `inject-signals` puts back after a compaction. Pure functions from signals to bytes.

use std::fmt::Write as _;

use reflect_base::text::one_line;

use reflect_store::signal::{Kind, Signal, Status, CONFIDENCE_VERIFIED};
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

/// The index, one line per signal: id, type, confidence, where it was captured (`place`), and
/// its content cut to 80 characters.
pub fn index(signals: &[&Signal], place: impl Fn(&Signal) -> String) -> String {
    let mut out = String::new();
    for s in signals {
        let (id, kind, place, content) = (&s.id, &s.kind, place(s), s.headline(80));
        let _ = writeln!(out, "{id}  {kind:<16} {}  {place}  {content}", s.confidence);
    }
    out
}

/// What a capture dry run finds, for a person to read: one line per signal with its type,
/// confidence, transcript line and content (and how often it was seen, when more than once).
pub fn capture_table(signals: &[&Signal]) -> String {
    let mut out = format!("{:<12}{:>4}{:>6}  content\n", "type", "conf", "line");
    for s in signals {
        let line = s.source.line.map_or("-".to_string(), |l| l.to_string());
        let (kind, content) = (s.kind.as_str(), s.headline(100));
        let _ = write!(out, "{kind:<12}{:>4}{line:>6}  {content}", s.confidence);
        if s.seen() > 1 {
            let _ = write!(out, "  (seen {} times)", s.seen());
        }
        out.push('\n');
    }
    out
}

/// Where a signal was captured, as the index shows it: `project/session` (the project's short name
/// and the session id's first 8 characters, `-` for what was not recorded), and ` (global)` for a
/// personal preference from another project.
pub fn place(project: Option<&str>, session: Option<&str>, global: bool) -> String {
    let project = project.filter(|p| !p.is_empty()).unwrap_or("-");
    let global = if global { " (global)" } else { "" };
    format!("{project}/{}{global}", crate::scope::short_session(session))
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
        let (confidence, content) = (s.confidence, s.headline(72));
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
            let counts: Vec<String> = counts.iter().map(|(k, v)| format!("{k} {v}")).collect();
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

fn confidence_word(c: u8) -> &'static str {
    match c {
        c if c >= CONFIDENCE_VERIFIED => "verified",
        3 => "high",
        2 => "medium",
        _ => "low",
    }
}

/// The context `inject-signals` returns after a compaction: this session's captured signals,
/// cut to `budget_tokens` (estimated as characters / 4), in sections whose headings say what
/// the lines are. What the user asked for comes first (corrections, conventions, preferences,
/// remember-requests), then other notes; a failure comes last and only when it carries a lesson,
/// that is when it recurred (one error seen once is history, not a rule). Within a section:
/// highest confidence first, then newest. `None` when nothing fits or there is nothing to say.
pub fn inject_context(signals: &[&Signal], budget_tokens: usize) -> Option<String> {
    let mut ordered: Vec<&&Signal> = signals
        .iter()
        .filter(|s| s.status == Status::Captured && s.kind != Kind::Summary)
        .filter(|s| s.kind != Kind::Failure || s.seen() > 1)
        .collect();
    // Stable sort: file order is chronological, so reversing first puts the newest first.
    ordered.reverse();
    ordered.sort_by_key(|s| (inject_section(&s.kind), std::cmp::Reverse(s.confidence)));
    let budget_chars = budget_tokens.saturating_mul(4);
    let mut out = String::from(
        "Learning signals captured earlier in this session by the reflect plugin (the user reviews them with /reflect).\n",
    );
    let header = out.len();
    let mut section = None;
    for s in ordered {
        let this = inject_section(&s.kind);
        let heading = (section != Some(this)).then_some(INJECT_HEADINGS[this]);
        let mut lines = heading.map_or(String::new(), |h| format!("{h}\n"));
        let (word, content) = (confidence_word(s.confidence), one_line(&s.content, 300));
        let _ = write!(lines, "- [{} · {word}] {content}", s.kind);
        if s.seen() > 1 {
            let _ = write!(lines, " (seen {} times)", s.seen());
        }
        lines.push('\n');
        if out.len() + lines.len() > budget_chars {
            break;
        }
        out.push_str(&lines);
        section = Some(this);
    }
    (out.len() > header).then_some(out)
}

/// The headings of [`inject_context`]'s sections, in order.
const INJECT_HEADINGS: [&str; 3] = [
    "What the user asked for (keep following it):",
    "Other notes from this session:",
    "Errors that recurred in this session (avoid repeating them):",
];

/// Which section of [`INJECT_HEADINGS`] a kind goes in.
fn inject_section(kind: &Kind) -> usize {
    match kind {
        k if k.is_learning() => 0,
        Kind::Failure => 2,
        _ => 1,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sig(kind: Kind, content: &str, conf: u8) -> Signal {
        let mut s = Signal::new(kind, content);
        s.id = format!("SIG-20261122-{:010x}", content.len());
        s.confidence = conf;
        s
    }

    #[test]
    fn index_is_one_short_line_per_signal() {
        let long = format!("Use pnpm\nnot npm {}", "word ".repeat(40));
        let s = sig(Kind::Correction, &long, 3);
        let text = index(&[&s], |_| place(None, None, false));
        assert_eq!(text.lines().count(), 1);
        let start = "correction       3  -/-  Use pnpm not npm";
        assert!(text.contains(start), "{text}");
        assert!(text.trim_end().ends_with('…'), "{text}");
        assert!(text.chars().count() < 150, "{text}");
    }

    #[test]
    fn csv_quotes_and_defuses_formulas() {
        let a = sig(Kind::Command, "=HYPERLINK(\"x\"), then run", 1);
        let text = list(&[&a], ListFormat::Csv);
        let row = text.lines().nth(1).unwrap();
        let defused = "\"'=HYPERLINK(\"\"x\"\"), then run\"";
        assert!(row.contains(defused), "{row}");
    }

    #[test]
    fn inject_orders_by_confidence_and_respects_budget() {
        let low = sig(Kind::Correction, "low one", 1);
        let high = sig(Kind::Correction, "high one", 3);
        let mut done = sig(Kind::Correction, "already promoted", 4);
        done.status = Status::Promoted;
        let text = inject_context(&[&low, &high, &done], 2000).unwrap();
        let high_at = text.find("high one").unwrap();
        assert!(high_at < text.find("low one").unwrap());
        assert!(!text.contains("already promoted"));
        // A budget that fits the header, the heading and one line keeps only the best signal.
        let through_first = text.find("- [correction · low").unwrap();
        let one = inject_context(&[&low, &high], through_first.div_ceil(4)).unwrap();
        assert!(one.contains("high one"), "{one}");
        assert!(!one.contains("low one"), "{one}");
        assert!(one.len() <= through_first.div_ceil(4) * 4);
        assert!(inject_context(&[&low], 10).is_none());
        assert!(inject_context(&[], 2000).is_none());
    }

    #[test]
    fn inject_puts_what_the_user_asked_first_and_failures_only_when_they_recurred() {
        let once = sig(Kind::Failure, "Bash failed: error: once", 3);
        let mut again = sig(Kind::Failure, "Bash failed: error: again and again", 1);
        again.add_sightings(2);
        let said = sig(Kind::Convention, "what the user said", 1);
        let command = sig(Kind::Command, "make check", 1);
        let text = inject_context(&[&again, &once, &command, &said], 2000).unwrap();
        assert!(!text.contains("error: once"), "{text}");
        let at = |needle: &str| text.find(needle).expect(needle);
        assert!(at(INJECT_HEADINGS[0]) < at("what the user said"));
        assert!(at("what the user said") < at(INJECT_HEADINGS[1]));
        assert!(at(INJECT_HEADINGS[1]) < at("make check"));
        assert!(at("make check") < at(INJECT_HEADINGS[2]));
        assert!(at(INJECT_HEADINGS[2]) < at("again and again (seen 3 times)"));
        assert!(!text.contains("Keep following them:"));
        // Nothing but a failure seen once: nothing to say.
        assert!(inject_context(&[&once], 2000).is_none());
    }
}
