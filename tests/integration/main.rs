//! One integration-test binary: every test runs the real binaries (assert_cmd) with `HOME`,
//! `CLAUDE_CONFIG_DIR` and `REFLECT_HOME` in a temp dir. Modules are grouped by binary.

mod corpus;
mod detect;
mod digest;
mod docs;
// The skills' `!` helpers and the toggle's runner are POSIX sh, run by Git Bash on Windows: a test
// that starts them is built for Unix only (a Windows program starts no sh script by itself, and one
// under Wine cannot wait on a Unix process); tests/release/first-use --git-bash runs the runner with
// Git Bash's environment faked, on the Windows archive.
#[cfg(unix)]
mod first_use;
mod fuzz_regressions;
mod hardening;
mod hooks;
mod layout;
mod left_behind;
mod memory_store;
mod provenance;
mod redaction;
mod redaction_shapes;
mod review;
mod sightings;
mod skills;
mod store_rules;
mod stress;
mod toggle;
mod util;
