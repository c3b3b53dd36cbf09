//! One integration-test binary: every test runs the real binaries (assert_cmd) with `HOME`,
//! `CLAUDE_CONFIG_DIR` and `REFLECT_HOME` in a temp dir. Modules are grouped by binary.

mod corpus;
mod detect;
mod digest;
mod docs;
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
mod sightings;
mod skills;
mod store_rules;
mod stress;
mod toggle;
mod util;
