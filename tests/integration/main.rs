//! One integration-test binary: every test runs the real binaries (assert_cmd) with `HOME`,
//! `CLAUDE_CONFIG_DIR` and `REFLECT_HOME` in a temp dir. Modules are grouped by binary.

mod corpus;
mod detect;
mod digest;
// The docs' claims, checked against the tree and the skills' sh helpers: the same on every platform.
#[cfg(unix)]
mod docs;
// The skills' `!` helpers and the toggle's runner are POSIX sh, run by Git Bash on Windows, which
// a Windows test binary under Wine has no way to start; tests/release/first-use --git-bash runs the
// runner with Git Bash's environment faked, on the Windows archive.
#[cfg(unix)]
mod first_use;
mod fuzz_regressions;
mod hardening;
mod hooks;
// The source tree's layout (crate layers via `cargo metadata`, imports, unsafe): the same on every
// platform, and cargo is a Linux program a Windows test binary under Wine cannot start.
#[cfg(unix)]
mod layout;
mod left_behind;
mod memory_store;
mod provenance;
mod redaction;
mod redaction_shapes;
mod review;
mod sightings;
#[cfg(unix)] // the skills' helpers are POSIX sh: see first_use above
mod skills;
mod store_rules;
mod stress;
mod toggle;
mod util;
