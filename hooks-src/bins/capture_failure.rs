//! capture-failure: the PostToolUseFailure hook. Stores one `failure` signal per failed tool call
//! (tool, redacted error, what was tried). Prints nothing, always exits 0.

use reflect::hook;
use reflect_base::fsutil::LockWait;
use reflect_base::paths::Paths;
use reflect_detect::failure;
use reflect_store::store::Store;

const PROGRAM: &str = "capture-failure";
const HELP: &str = "capture-failure: Claude Code PostToolUseFailure hook of the reflect plugin.

Reads the hook payload on stdin and stores one `failure` signal (tool, redacted error, input
summary) in <data dir>/signals.jsonl. Prints nothing and always exits 0; problems go to
<data dir>/errors.log. Registered by `reflect-toggle on`.

Options: -h, --help      this text
         -V, --version   the version";

fn main() {
    hook::install_panic_guard(PROGRAM);
    if hook::answer_help_or_version(PROGRAM, HELP) {
        return;
    }
    let Some(payload) = hook::read_payload(PROGRAM) else {
        return;
    };
    if payload.opted_out() || hook::plugin_uninstalled(PROGRAM) {
        return;
    }
    let Some(signal) = failure::failure_signal(&payload.tool_failure()) else {
        return;
    };
    let stored = Paths::from_env()
        .and_then(|paths| Store::new(&paths, LockWait::HOOK).append_or_spool(vec![signal]));
    if let Err(e) = stored {
        hook::log(PROGRAM, &e.to_string());
    }
}
