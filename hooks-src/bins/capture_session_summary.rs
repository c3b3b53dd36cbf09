//! capture-session-summary: the SessionEnd hook. Mines the transcript lines no capture run has
//! seen (short sessions never compact) and stores one `summary` signal for the whole session.
//! Reads only the unseen tail, to stay well inside SessionEnd's shared 1.5 s budget. Prints
//! nothing, always exits 0 in hook mode. With `--transcript FILE` it runs offline.

mod capture_support;

const PROGRAM: &str = "capture-session-summary";
const HELP: &str = "capture-session-summary: Claude Code SessionEnd hook of the reflect plugin.

Hook mode (no arguments): reads the hook payload on stdin, mines the transcript lines not seen
by an earlier run for learning signals, and stores them with one `summary` signal (prompts,
tools used, files touched, failures, duration) in <data dir>/signals.jsonl. Prints nothing and
always exits 0; problems go to <data dir>/errors.log. Projects holding .claude/reflect.off are
skipped.

Offline:
  capture-session-summary --transcript FILE [--session ID] [--project DIR] [--dry-run [--format F]]
    --transcript FILE   the transcript to summarize (JSONL as Claude Code writes it)
    --session ID        session the signals and the cursor belong to (default: FILE's name)
    --project DIR       project the signals belong to (default: the current directory)
    --dry-run           print the signals that would be stored, and write nothing
    --format F          with --dry-run: jsonl (default: one JSON object a line, as stored) or
                        table (one line a signal: type, confidence, transcript line, content)

Options: -h, --help      this text
         -V, --version   the version";

fn main() -> std::process::ExitCode {
    capture_support::main(PROGRAM, HELP, "SessionEnd", true)
}
