//! reflect-base: what every layer of reflect stands on. It owns the error type ([`error`]), where
//! reflect's files live ([`paths`], from the environment only), careful handling of files
//! ([`fsutil`]: safe open of a user's file, atomic replace, backups, the sidecar lock with a
//! bounded wait, private directories, the bounded error log), plain text helpers ([`text`],
//! and [`sanitize`], which keeps escapes and invisible characters out of what is shown) and the
//! JSON primitives both line readers walk with ([`json`]).
//!
//! It imports no other reflect crate: it knows nothing of transcripts, signals or the store, and
//! nothing here prints, parses command lines or exits the process.

pub mod error;
pub mod fsutil;
pub mod json;
pub mod paths;
pub mod platform;
pub mod sanitize;
pub mod text;
