//! capture-signals: the PreCompact hook. Mines the transcript lines this session's cursor has not
//! seen into learning signals and stores them. Prints nothing (PreCompact's stdout goes into the
//! compaction prompt) and always exits 0 in hook mode. With `--transcript FILE` it runs offline.

mod capture_support;

const PROGRAM: &str = "capture-signals";
const HELP: &str = "capture-signals: Claude Code PreCompact hook of the reflect plugin.

Hook mode (no arguments): reads the hook payload on stdin, mines the transcript lines not seen
by an earlier run (per-session cursor in <data dir>/cursors/) and stores the learning signals in
<data dir>/signals.jsonl. Prints nothing and always exits 0; problems go to <data dir>/errors.log.
Projects holding .claude/reflect.off are skipped.

Offline:
  capture-signals --transcript FILE [--session ID] [--project DIR] [--dry-run [--format F]]
    --transcript FILE   the transcript to mine (JSONL as Claude Code writes it)
    --session ID        session the signals and the cursor belong to (default: FILE's name)
    --project DIR       project the signals belong to (default: the current directory)
    --dry-run           print the signals that would be stored, and write nothing
    --format F          with --dry-run: jsonl (default: one JSON object a line, as stored) or
                        table (one line a signal: type, confidence, transcript line, content)

Options: -h, --help      this text
         -V, --version   the version";

fn main() -> std::process::ExitCode {
    capture_support::main(PROGRAM, HELP, "PreCompact", false)
}
