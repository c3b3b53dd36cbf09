//! `memory-store query --format index`: the first layer of `/reflect`'s review, one line per
//! signal with what it takes to rank it and judge it without a `get`: its episodes, its
//! confidence, where it was captured and the lesson with its evidence. Bounded like the digest:
//! what does not fit its budget is counted on a last line that says how to see it.

use std::cmp::Reverse;
use std::fmt::Write as _;

use crate::render::free_text;
use reflect_base::text::one_line;
use reflect_store::signal::{Kind, Signal};
use reflect_transcript::is_harness_reply;

/// What the index may take by default, in tokens (characters / 4).
pub const INDEX_BUDGET_TOKENS: usize = 2000;
/// Longest part of a signal's content in the index.
const INDEX_CONTENT_CHARS: usize = 80;
/// Longest part of its evidence.
const INDEX_EVIDENCE_CHARS: usize = 70;
/// The `source.hook` of what the skill's second look stores (SKILL.md's `append` examples).
const SECOND_LOOK: &str = "reflect";

/// Longest part of what a prompt answered, when the lesson is the prompt itself.
const INDEX_AFTER_CHARS: usize = 40;

/// The index, one line per signal: id, type, episodes (`seen N`: how often it was seen, and
/// `in K sessions` when in more than one), confidence, where it was captured (`place`), and
/// the first words of the lesson with its evidence (what the user said, or the error and what
/// fixed it: `content → resolution`). What the user said comes first (corrections,
/// conventions, preferences, remember-requests: a failure that recurs in one session is often
/// one error retried, and would crowd them out of the budget), then the rest; in each, seen in
/// the most sessions first (a rule said in two sessions is a habit, one said three times in one
/// may be that task's instruction), then most often seen, then most confident, then the newest
/// (by its last sighting).
/// Within `budget_tokens` (characters / 4), with a last line that says how many were left out
/// and how to see them.
pub fn index(
    signals: &[&Signal],
    place: impl Fn(&Signal) -> String,
    budget_tokens: usize,
) -> String {
    let mut ordered: Vec<&Signal> = signals.iter().rev().copied().collect();
    // Stable: among equals the later in the store (the newer) stays first. Each key is read
    // once: counting a signal's sessions walks its sightings.
    ordered.sort_by_cached_key(|s| {
        Reverse((said(s), s.sessions(), s.seen(), s.confidence, last_seen(s)))
    });
    let budget = budget_tokens.saturating_mul(4);
    let mut out = String::new();
    let mut left_out = 0;
    for s in ordered {
        let (id, kind, seen, place) = (&s.id, &s.kind, s.seen(), place(s));
        let sessions = match s.sessions() {
            1 => String::new(),
            n => format!(" in {n} sessions"),
        };
        let line = format!(
            "{id}  {kind:<16} seen {seen:<2}{sessions} conf {}  {place}  {}\n",
            s.confidence,
            lesson(s)
        );
        if left_out > 0 || out.len() + line.len() > budget {
            left_out += 1;
            continue;
        }
        out.push_str(&line);
    }
    if left_out > 0 {
        let _ = writeln!(
            out,
            "… {left_out} more signal(s) not shown, seen less often or less confident (over the index budget of {budget_tokens} tokens): --budget-tokens N shows more, --type T or --since 7d narrows"
        );
    }
    out
}

/// When a signal was last captured or seen again: the newest first among equals, as the skill
/// ranks them.
fn last_seen(s: &Signal) -> &str {
    s.meta
        .get("last_seen")
        .and_then(serde_json::Value::as_str)
        .filter(|t| *t > s.timestamp.as_str())
        .unwrap_or(&s.timestamp)
}

/// Whether a signal is what the user said: a lesson in the user's own words (not a tool's
/// output quoted), whatever type it was stored as (a correction, a rule, a fact, a command the
/// second look stored from a prompt); a failure or a summary never is, nor a command a hook
/// took from what the user ran in bash mode (`!make check`, run nine times, is no rule they
/// stated, and would rank above the rules they did).
fn said(s: &Signal) -> bool {
    let ran = s.kind == Kind::Command && s.source.hook.as_deref() != Some(SECOND_LOOK);
    s.is_users_words() && !ran && !matches!(s.kind, Kind::Failure | Kind::Summary)
}

/// The first words of a signal's lesson and its evidence, on one line: `content → resolution`
/// when a fix was recorded (the headline carries it; a rerun of the failed command with a
/// change, from where it differs); the user's words once, after what they
/// answered, when the lesson is their words as capture quoted them; else `content — context`.
fn lesson(s: &Signal) -> String {
    if let Some(how) = s.resolution.as_deref().filter(|r| !r.trim().is_empty()) {
        let room = INDEX_CONTENT_CHARS + INDEX_EVIDENCE_CHARS;
        // The share of the line `Signal::headline` gives a resolution.
        let share = room * 2 / 5;
        return match reflect_detect::failure::resolution_from_change(&s.context, how, share) {
            Some(changed) => {
                let mut shown = s.clone();
                shown.resolution = Some(changed);
                free_text(&shown, room)
            }
            None => free_text(s, room),
        };
    }
    if let Some(line) = quoted_once(s) {
        return line;
    }
    let content = free_text(s, INDEX_CONTENT_CHARS);
    let context = one_line(&s.context, INDEX_EVIDENCE_CHARS);
    if context.is_empty() || context == content {
        return content;
    }
    format!("{content} — {context}")
}

/// Capture stores a prompt as both the lesson and its evidence (`User said: '…' (answering:
/// …)`): shown as `content — context` the same words would fill the line twice. Then the line
/// is `[after: what they answered] their words`, as the digest shows a prompt, with the room
/// the repeat took given to more of their words. `None` when the lesson is not their words.
fn quoted_once(s: &Signal) -> Option<String> {
    let (said, answered) = reflect_detect::quoted_prompt(&s.context)?;
    let content = one_line(&s.content, INDEX_CONTENT_CHARS);
    let head = content.strip_suffix('…').unwrap_or(&content);
    if !s.is_users_words() || head.is_empty() || !one_line(said, said.len()).starts_with(head) {
        return None;
    }
    let words = one_line(
        said,
        INDEX_CONTENT_CHARS + INDEX_EVIDENCE_CHARS - INDEX_AFTER_CHARS,
    );
    // Claude Code's own words ("API Error: …") answered nothing the user said, as in the digest.
    let answered = if is_harness_reply(answered) {
        ""
    } else {
        answered
    };
    Some(match one_line(answered, INDEX_AFTER_CHARS) {
        after if after.is_empty() => words,
        after => format!("[after: {after}] {words}"),
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::render::place;
    use crate::render::tests::sig;
    use reflect_store::signal::Origin;

    #[test]
    fn index_is_one_short_line_per_signal_with_its_evidence() {
        let long = format!("Use pnpm\nnot npm {}", "word ".repeat(40));
        let mut s = sig(Kind::Correction, &long, 3);
        s.context = "User said: no, use pnpm".into();
        let text = index(
            &[&s],
            |_| place(None, None, None, false),
            INDEX_BUDGET_TOKENS,
        );
        assert_eq!(text.lines().count(), 1);
        let start = "correction       seen 1  conf 3  -/-  Use pnpm not npm";
        assert!(text.contains(start), "{text}");
        assert!(
            text.trim_end().ends_with("… — User said: no, use pnpm"),
            "{text}"
        );
        assert!(text.chars().count() < 250, "{text}");
        // A failure shows what fixed it.
        let mut f = sig(Kind::Failure, "cargo build failed: linker cc not found", 1);
        f.context = "Bash: cargo build".into();
        f.resolution = Some("installed build-essential".into());
        let text = index(
            &[&f],
            |_| place(None, None, None, false),
            INDEX_BUDGET_TOKENS,
        );
        assert!(
            text.trim_end()
                .ends_with("cargo build failed: linker cc not found → installed build-essential"),
            "{text}"
        );
        assert_eq!(text.matches('→').count(), 1, "{text}");
        // A rerun of a long command with a change: from the change, with what it dropped.
        let start = "cd /home/dev/projects/shop && docker compose -f docker-compose.dev.yml up -d";
        f.context = format!("Tried: {start} db cache search\nError: Exit code 1");
        f.resolution = Some(format!("`{start} db cache`"));
        let text = index(
            &[&f],
            |_| place(None, None, None, false),
            INDEX_BUDGET_TOKENS,
        );
        assert!(
            text.trim_end().ends_with("→ `…cache` (without search)"),
            "{text}"
        );
    }

    #[test]
    fn index_names_the_prompt_a_signal_came_from() {
        let at = |s: &Signal| {
            place(
                Some("app"),
                s.session_id.as_deref(),
                crate::render::prompt_of(s),
                false,
            )
        };
        let mut s = sig(Kind::Convention, "Use pnpm, not npm", 2);
        s.session_id = Some("0123456789abcdef".into());
        s.source.line = Some(12);
        let text = index(&[&s], at, INDEX_BUDGET_TOKENS);
        assert!(text.contains("  app/01234567:12  Use pnpm"), "{text}");
        // A failure's own line is its tool call: the index names the prompt of its turn, so
        // two failures of one turn show as one incident and `--show` takes the place as it is.
        let mut f = sig(Kind::Failure, "npm test failed", 1);
        f.session_id = s.session_id.clone();
        f.source.line = Some(40);
        f.source
            .extra
            .insert(reflect_store::keyindex::PROMPT_LINE.into(), 33.into());
        let text = index(&[&f], at, INDEX_BUDGET_TOKENS);
        assert!(
            text.contains("  app/01234567:33  npm test failed"),
            "{text}"
        );
        // Nothing recorded: no line.
        let text = index(&[&sig(Kind::Gotcha, "x", 1)], at, INDEX_BUDGET_TOKENS);
        assert!(text.contains("  app/-  x"), "{text}");
    }

    #[test]
    fn index_shows_a_captured_prompt_once_after_what_it_answered() {
        let words = format!(
            "No, keep the old layout: {}",
            "it was fine and tested ".repeat(8)
        );
        let mut s = sig(Kind::Correction, &one_line(&words, 150), 2);
        s.context = format!("User said: '{words}' (answering: Shall I move the files?)");
        let text = index(
            &[&s],
            |_| place(None, None, None, false),
            INDEX_BUDGET_TOKENS,
        );
        let line = text.lines().next().unwrap();
        assert_eq!(line.matches("No, keep the old layout").count(), 1, "{line}");
        assert!(
            line.contains("[after: Shall I move the files?] No, keep the old layout: it was"),
            "{line}"
        );
        // The room the repeat took goes to more of the user's words than the lesson showed.
        let shown = line.split("] ").nth(1).unwrap();
        assert!(shown.chars().count() > INDEX_CONTENT_CHARS, "{line}");
        assert!(!line.contains("User said"), "{line}");
        // What Claude Code said in the model's place answered nothing: the words alone.
        s.context = format!("User said: '{words}' (answering: API Error: Request was aborted.)");
        let text = index(
            &[&s],
            |_| place(None, None, None, false),
            INDEX_BUDGET_TOKENS,
        );
        assert!(text.contains("-/-  No, keep the old layout"), "{text}");
        assert!(!text.contains("[after"), "{text}");
        // With nothing answered, the words alone.
        s.context = format!("User said: '{words}'");
        let text = index(
            &[&s],
            |_| place(None, None, None, false),
            INDEX_BUDGET_TOKENS,
        );
        assert!(text.contains("-/-  No, keep the old layout"), "{text}");
        assert!(!text.contains("[after"), "{text}");
        // A lesson in other words than its evidence keeps both.
        let mut own = sig(Kind::Convention, "Keep the old layout", 2);
        own.context = "User said: 'no, the old one was fine' (answering: Done.)".into();
        let text = index(
            &[&own],
            |_| place(None, None, None, false),
            INDEX_BUDGET_TOKENS,
        );
        assert!(
            text.contains("Keep the old layout — User said: 'no, the old one was fine'"),
            "{text}"
        );
        // A tool's words quoted as the user's are not shown as theirs.
        s.source.origin = Some(Origin::Tool);
        let text = index(
            &[&s],
            |_| place(None, None, None, false),
            INDEX_BUDGET_TOKENS,
        );
        assert!(text.contains("[tool output] No, keep"), "{text}");
        assert!(!text.contains("[after"), "{text}");
    }

    #[test]
    fn index_orders_by_sessions_then_episodes_then_confidence_then_newest_within_its_budget() {
        let mut twice = sig(Kind::Convention, "seen twice", 1);
        twice.add_sightings(1);
        let mut thrice = sig(Kind::Convention, "seen thrice in one session", 1);
        thrice.add_sightings(2);
        // Said in two sessions: above a rule repeated more often in one.
        let mut across = sig(Kind::Convention, "seen in two sessions", 1);
        across.session_id = Some("s1".into());
        across.add_sightings(1);
        let second = serde_json::json!([{"session_id": "s2"}]);
        across.meta.insert("sightings".into(), second);
        let mut retried = sig(Kind::Failure, "a failure retried", 1);
        retried.add_sightings(5);
        let sure = sig(Kind::Correction, "sure once", 3);
        let mut old = sig(Kind::Correction, "older low", 1);
        old.timestamp = "2026-11-01T00:00:00Z".into();
        let mut new = sig(Kind::Correction, "newer low", 1);
        new.timestamp = "2026-11-02T00:00:00Z".into();
        // Captured first, but seen again since (in the same episode count): newest by that.
        let mut again = sig(Kind::Correction, "seen again lately", 1);
        again.timestamp = "2026-10-30T00:00:00Z".into();
        again
            .meta
            .insert("last_seen".into(), "2026-11-03T00:00:00Z".into());
        // A fact the user stated sorts with the user's words; one the assistant found does not.
        let mut fact = sig(Kind::Discovery, "user fact", 1);
        fact.tags = vec!["fact".into()];
        fact.source.origin = Some(Origin::User);
        fact.timestamp = "2026-10-01T00:00:00Z".into();
        let found = sig(Kind::Discovery, "assistant finding", 3);
        // So does a command the second look stored from the user's words; one a hook took
        // from what the user ran in bash mode, seen however often, sorts with the rest.
        let mut command = sig(Kind::Command, "user command", 1);
        command.source.origin = Some(Origin::User);
        command.source.hook = Some(SECOND_LOOK.into());
        command.timestamp = "2026-09-01T00:00:00Z".into();
        let mut ran = sig(Kind::Command, "make check", 3);
        ran.source.origin = Some(Origin::User);
        ran.source.hook = Some("PreCompact".into());
        ran.add_sightings(8);
        let all = [
            &old, &retried, &sure, &new, &twice, &fact, &found, &command, &thrice, &across, &ran,
            &again,
        ];
        let text = index(
            &all,
            |_| place(None, None, None, false),
            INDEX_BUDGET_TOKENS,
        );
        let order: Vec<&str> = [
            "seen in two sessions",
            "seen thrice in one session",
            "seen twice",
            "sure once",
            "seen again lately",
            "newer low",
            "older low",
            "user fact",
            "user command",
            "make check",
            "a failure retried",
            "assistant finding",
        ]
        .to_vec();
        let at: Vec<usize> = order.iter().map(|n| text.find(n).unwrap()).collect();
        assert!(at.windows(2).all(|w| w[0] < w[1]), "{text}");
        assert!(text.contains("seen 2  conf 2  -/-  seen twice"), "{text}");
        assert!(
            text.contains("seen 2  in 2 sessions conf 2  -/-  seen in two"),
            "{text}"
        );
        // A budget of two lines keeps the first two and says what it left out.
        let two = text.lines().take(2).map(|l| l.len() + 1).sum::<usize>();
        let cut = index(&all, |_| place(None, None, None, false), two.div_ceil(4));
        assert_eq!(cut.lines().count(), 3, "{cut}");
        assert!(
            cut.contains("seen thrice") && !cut.contains("seen twice"),
            "{cut}"
        );
        assert!(
            cut.lines()
                .last()
                .unwrap()
                .starts_with("… 10 more signal(s) not shown"),
            "{cut}"
        );
    }
}
