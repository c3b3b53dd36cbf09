//! reflect-lab: development tools, never linked by a binary (`tests/integration/layout.rs` checks
//! `cargo tree` of the hooks). It owns the scoring of the detectors against the labelled corpora
//! ([`eval`], with the held-out list `heldout.txt`), the training of the learned classifier
//! ([`train`], which writes `reflect-detect`'s `weights.rs`) and the study examples under
//! `examples/` (`scripts/eval-detectors`, `train-detector`, `store-quality`, `detector-study`).
//!
//! It may import every reflect crate below the binaries; nothing may import it but tests.

pub mod eval;
pub mod train;
