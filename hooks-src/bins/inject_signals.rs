//! inject-signals: the SessionStart hook (matcher `compact`). After a compaction it puts this
//! session's captured signals back into context, highest confidence first, within the token
//! budget. Prints that one JSON object, or nothing; always exits 0.

use reflect::hook;
use reflect_app::{hookio, inject};
use reflect_base::fsutil::LockWait;
use reflect_base::paths::{self, Paths};
use reflect_store::store::Store;

const PROGRAM: &str = "inject-signals";
const HELP: &str =
    "inject-signals: Claude Code SessionStart (matcher \"compact\") hook of the reflect plugin.

Reads the hook payload on stdin and prints
{\"hookSpecificOutput\":{\"hookEventName\":\"SessionStart\",\"additionalContext\":\"...\"}}
with the signals captured earlier in this session, highest confidence first, within
REFLECT_INJECT_BUDGET_TOKENS (default 2000, estimated as characters / 4). Prints nothing when
there is nothing to inject. Always exits 0; problems go to <data dir>/errors.log.

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
    let Some(session) = payload.session_id.as_deref().filter(|s| !s.is_empty()) else {
        return;
    };
    let signals = match Paths::from_env()
        .and_then(|p| Store::new(&p, LockWait::HOOK).session_signals(session))
    {
        Ok(s) => s,
        Err(e) => {
            hook::log(PROGRAM, &e.to_string());
            return;
        }
    };
    let refs: Vec<_> = signals.iter().collect();
    if let Some(context) = inject::context(&refs, paths::inject_budget_tokens()) {
        println!("{}", hookio::session_start_json(&context));
    }
}
