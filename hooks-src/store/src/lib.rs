//! reflect-store: everything that decides what may reach disk. It owns the signal schema
//! ([`signal`]: v1, with v2 lines read), the JSONL store ([`store`]: append under the lock,
//! tolerant read with its fast scanner, rewrite, spool), redaction of secrets ([`redact`]),
//! cleaning of control and invisible characters ([`sanitize`]) and the parsing of what a user
//! or the model hands the store ([`input`]).
//!
//! It imports only `reflect-base`; it knows nothing of transcripts, detectors, settings or the
//! hooks. The store's speed code stays behind this boundary: `store::read` splits a large store
//! over the cores and `store::scan` reads lines without a full parse (two `unsafe` blocks and the
//! mapped read in `store/mod.rs`, each with its SAFETY comment), which is what makes `memory-store
//! query` 21x faster than the Python original (docs/speed.md).

pub mod input;
pub mod keyindex;
pub mod redact;
pub mod sanitize;
pub mod sighting;
pub mod signal;
pub mod store;
