//! capture-session-summary: the SessionEnd hook. Mines the transcript lines no capture run has
//! seen (short sessions never compact) and stores one `summary` signal for the whole session.
//! Reads only the unseen tail, to stay well inside SessionEnd's shared 1.5 s budget. Prints
//! nothing, always exits 0 in hook mode. With `--transcript FILE` it runs offline.

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

/// A large transcript is parsed by worker threads while the calling thread runs the detectors,
/// so nearly every event is allocated on one thread and freed on another. glibc's malloc handles
/// that producer/consumer pattern badly (each free goes back to the producer's arena under its
/// lock, each malloc misses the thread cache): measured on the 100 MB bench transcript it was a
/// sixth of the CPU, and mimalloc (free lists per page, cross-thread frees batched) takes the
/// whole run from ~95 to ~75 ms. Only the two transcript miners (this one and its sibling) read transcripts; the other
/// hooks keep the system allocator.
#[global_allocator]
static ALLOCATOR: mimalloc::MiMalloc = mimalloc::MiMalloc;

fn main() -> std::process::ExitCode {
    reflect::capture_support::main(PROGRAM, HELP, "SessionEnd", true)
}
