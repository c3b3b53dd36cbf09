//! Calls the user refused without a word, or stopped while they ran, in more than one session: a
//! rule no prompt states ("I run the rebuilds myself", "ask before deleting anything", "I only
//! asked a question: do not edit", "start the server in the background"). A refusal with a
//! reason is stored by capture as a correction; one without, and a stop, are only counted in
//! their session's summary, so across sessions only the digest, which reads them all, can see
//! them come back. A user who stops a program in one session and refuses it in another says the
//! same of it, so stops and refusals are counted together, each place saying which it was.
//!
//! A refusal is known by its program (`terraform`, `git`, `rm`), as the failure episodes
//! read a command's program ([`reflect_detect::episode::Job`]), and every refused edit or
//! write of a file as one ([`FILE_EDITS`]); only the sessions the digest reads (what no
//! `/reflect` has looked at) count. Each place names what the command asked of its program
//! (`git commit` against `git status`) when the places differ in that, so that refusals of
//! one kind can be told from another's without a `--show` each.

use std::fmt::Write as _;

use reflect_base::text;
use reflect_detect::episode::Job;
use reflect_store::{redact, sanitize};

/// What a refused edit or write of a file is listed as.
pub(super) const FILE_EDITS: &str = "file edits (Edit, Write)";

/// Programs named at most, the most refused first.
const PROGRAMS_SHOWN: usize = 5;
/// Places named for each: enough to tell its cases apart with `--show` (models split a
/// program's refusals into "I only asked" and "wrong approach" place by place).
const PLACES_SHOWN: usize = 8;

/// One call of a session refused without a reason, or stopped while it ran.
#[derive(Debug, Clone, PartialEq)]
pub(super) struct Refusal {
    /// Its program, or [`FILE_EDITS`].
    pub program: String,
    /// What the command asked of its program (`git push`: `push`), empty when nothing names it.
    pub subject: String,
    /// Its line in the transcript.
    pub line: u64,
    /// The prompt of its turn asked a question: the user may have wanted an answer, not the
    /// call (the rule would be "answer a question; do not edit").
    pub asked: bool,
    /// The user stopped it while it ran, rather than refusing it.
    pub stopped: bool,
}

/// A program refused in more than one session, with where.
#[derive(Debug, Clone, PartialEq)]
pub struct Refused {
    pub program: String,
    pub places: Vec<Place>,
    pub sessions: usize,
}

/// Where a call was refused or stopped: its session and transcript line, whether its turn's
/// prompt asked a question, what it asked of its program ([`Refusal::subject`]), and whether it
/// was stopped.
#[derive(Debug, Clone, PartialEq)]
pub struct Place {
    pub session: String,
    pub line: u64,
    pub asked: bool,
    pub subject: String,
    pub stopped: bool,
}

/// What a refused Bash `command` is listed by: its program, and what it asked of it (a
/// subcommand or a name; a quoted argument's first piece is none).
pub(super) fn named(command: &str) -> (String, String) {
    let job = Job::of("Bash", command);
    let subject = job.subject();
    let word = subject
        .bytes()
        .all(|b| b.is_ascii_alphanumeric() || matches!(b, b'.' | b'_' | b'-'));
    let subject = if word { subject } else { "" };
    (job.program_as_run().to_string(), subject.to_string())
}

/// The programs refused without a reason or stopped in two sessions or more, of `reads` (each
/// session's refusals and stops), the most sessions first.
pub(super) fn repeated<'a>(reads: impl Iterator<Item = (&'a str, &'a [Refusal])>) -> Vec<Refused> {
    let mut found: Vec<Refused> = Vec::new();
    for (session, refusals) in reads {
        for refusal in refusals {
            let place = Place {
                session: session.to_string(),
                line: refusal.line,
                asked: refusal.asked,
                subject: refusal.subject.clone(),
                stopped: refusal.stopped,
            };
            match found.iter_mut().find(|r| r.program == refusal.program) {
                Some(r) => {
                    if !r.places.iter().any(|p| p.session == session) {
                        r.sessions += 1;
                    }
                    r.places.push(place);
                }
                None => found.push(Refused {
                    program: refusal.program.clone(),
                    places: vec![place],
                    sessions: 1,
                }),
            }
        }
    }
    found.retain(|r| r.sessions > 1);
    found.sort_by(|a, b| {
        (b.sessions, b.places.len())
            .cmp(&(a.sessions, a.places.len()))
            .then(a.program.cmp(&b.program))
    });
    found.truncate(PROGRAMS_SHOWN);
    found
}

/// The digest's lines for `refused`: nothing when it is empty.
pub(super) fn text(refused: &[Refused]) -> String {
    let mut out = String::new();
    if refused.is_empty() {
        return out;
    }
    out.push_str("\nCalls the user refused without a reason or stopped, in more than one session: a program run in Bash, or file edits (`--show SESSION:LINE` shows each call; `?`: its turn's prompt was a question; `stopped`: the user stopped it while it ran; `(push)`: what a call asked of its program, when they differ):\n");
    for r in refused {
        let program = match (r.program.as_str(), r.places[0].subject.as_str()) {
            (FILE_EDITS, _) => FILE_EDITS.to_string(),
            (program, subject) if subject.is_empty() || differ(r) => format!("`{}`", word(program)),
            (program, subject) => format!("`{} {}`", word(program), word(subject)),
        };
        // One place of each session first: the spread is what makes it a habit.
        let (first, rest): (Vec<_>, Vec<_>) = r
            .places
            .iter()
            .enumerate()
            .partition(|(i, p)| !r.places[..*i].iter().any(|seen| seen.session == p.session));
        // What each call asked of the program, when they did not all ask the same.
        let mixed = differ(r);
        let places: Vec<String> = first
            .into_iter()
            .chain(rest)
            .map(|(_, place)| place)
            .take(PLACES_SHOWN)
            .map(|p| {
                let short = crate::scope::short_session(Some(&p.session));
                let asked = if p.asked { "?" } else { "" };
                let stopped = if p.stopped { " stopped" } else { "" };
                let mut place = format!("{}:L{}{asked}{stopped}", sanitize::visible(short), p.line);
                if mixed && !p.subject.is_empty() {
                    let _ = write!(place, " ({})", word(&p.subject));
                }
                place
            })
            .collect();
        let more = if r.places.len() > PLACES_SHOWN {
            ", …"
        } else {
            ""
        };
        let _ = writeln!(
            out,
            "- {program} {} time(s) in {} sessions: {}{more}",
            r.places.len(),
            r.sessions,
            places.join(", ")
        );
    }
    out
}

/// Whether the places of `r` asked different things of its program.
fn differ(r: &Refused) -> bool {
    r.places.iter().any(|p| p.subject != r.places[0].subject)
}

/// A word of a command: redacted and made visible like any text of one.
fn word(text: &str) -> String {
    text::one_line(&redact::redact(&sanitize::clean(text)), 40)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn place(session: &str, line: u64, asked: bool, subject: &str) -> Place {
        Place {
            session: session.into(),
            line,
            asked,
            subject: subject.into(),
            stopped: false,
        }
    }

    #[test]
    fn a_program_name_is_printed_redacted_and_without_escapes() {
        let token = format!("ghp_{}", "Zq8vLm2pXw7Rt5Ny3Kb6Hd9Jf4Gc1Ws0Ae2");
        let refused = Refused {
            program: format!("\u{1b}[31m{token}"),
            places: vec![
                place("a\u{1b}]0;x\u{7}", 1, false, ""),
                place("b", 2, false, &format!("push\u{1b}[0m {token}")),
            ],
            sessions: 2,
        };
        let shown = text(&[refused]);
        assert!(
            !shown.contains(&token) && !shown.contains('\u{1b}') && !shown.contains('\u{7}'),
            "{shown:?}"
        );
        assert!(shown.contains("[REDACTED:"), "{shown:?}");
    }

    #[test]
    fn a_refused_package_manager_is_named_as_it_ran() {
        assert_eq!(named("pnpm run build"), ("pnpm".into(), "run".into()));
        assert_eq!(
            named("export A=1 && export B=2 && npm run start"),
            ("npm".into(), "run".into())
        );
        assert_eq!(
            named("cd web; /usr/bin/yarn build"),
            ("yarn".into(), "build".into())
        );
        assert_eq!(named("bun.exe test"), ("bun".into(), "test".into()));
        // The package manager of the step that does the job, not a word before it.
        assert_eq!(named("echo npm && yarn build").0, "yarn");
        // What a wrapper runs is its own program.
        assert_eq!(named("pnpm exec tsc --noEmit").0, "tsc");
        assert_eq!(named("git push").0, "git");
    }

    #[test]
    fn a_program_refused_in_two_sessions_is_named_with_its_places() {
        let refusal = |program: &str, line, asked| Refusal {
            program: program.into(),
            subject: "apply".into(),
            line,
            asked,
            stopped: false,
        };
        let a = vec![refusal("terraform", 40, false), refusal("git", 50, false)];
        let b = vec![
            refusal("terraform", 7, true),
            refusal("terraform", 9, false),
        ];
        let c = vec![refusal("rm", 3, false), refusal("rm", 8, false)];
        let reads = [
            ("aaaaaaaa-1", a.as_slice()),
            ("bbbbbbbb-2", b.as_slice()),
            ("cccccccc-3", c.as_slice()),
        ];
        let found = repeated(reads.iter().map(|(s, r)| (*s, *r)));
        assert_eq!(
            found.len(),
            1,
            "git once, rm twice in one session: no pattern"
        );
        assert_eq!(found[0].program, "terraform");
        assert_eq!(found[0].sessions, 2);
        let shown = text(&found);
        // Every call asked the same of it: named once, with the program.
        assert!(
            shown.contains(
                "- `terraform apply` 3 time(s) in 2 sessions: aaaaaaaa:L40, bbbbbbbb:L7?, bbbbbbbb:L9\n"
            ),
            "{shown}"
        );
        assert_eq!(text(&[]), "");
        // Calls that asked different things of it: each place says what.
        let git = Refused {
            program: "git".into(),
            places: vec![
                place("a", 3, false, "commit"),
                place("b", 5, true, "status"),
                place("b", 9, false, ""),
            ],
            sessions: 2,
        };
        let shown = text(&[git]);
        assert!(
            shown
                .contains("- `git` 3 time(s) in 2 sessions: a:L3 (commit), b:L5? (status), b:L9\n"),
            "{shown}"
        );
        // Each session's first place comes first: the spread is what the line is for.
        let spread = Refused {
            program: FILE_EDITS.into(),
            places: (1..=9)
                .map(|l| place(if l == 9 { "b" } else { "a" }, l, false, ""))
                .collect(),
            sessions: 2,
        };
        let shown = text(&[spread]);
        assert!(
            shown.contains(
                "- file edits (Edit, Write) 9 time(s) in 2 sessions: a:L1, b:L9, a:L2, a:L3, a:L4, a:L5, a:L6, a:L7, …\n"
            ),
            "{shown}"
        );
    }
}
