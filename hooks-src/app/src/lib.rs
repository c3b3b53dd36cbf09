//! reflect-app: the application of the reflect plugin, everything a binary asks for by name.
//!
//! The binaries only wire stdin and arguments to this library; nothing here prints, parses
//! command lines or exits the process. It may import every lower crate (`reflect-base`,
//! `reflect-transcript`, `reflect-store`, `reflect-detect`) and never `reflect-lab`. Data flows
//! one way:
//!
//! * capture: payload bytes → [`hookio`] → transcript events → detectors → redaction → store,
//!   resumed where the [`cursor`] left off, with the session [`summary`]
//! * toggle: paths → [`settings`] (edits through [`jsonedit`]; + [`migrate`]) → atomic write,
//!   checked by [`doctor`], set up by [`install`]; an uninstalled [`plugin`] turns it off
//! * review: flag values and `append` input → the store → [`render`] / [`promote`] / [`forget`],
//!   scoped to a project by [`scope`]
//! * second look: the cursors' record of sessions → transcript prompts → the detectors' model
//!   (for the order) → redaction → [`digest`]. Its atomic work queue (threads over sessions) is
//!   what brings the bench's digest of 200 sessions (194 MB of transcripts) to 94–100 ms on two
//!   cores (target ≤ 300 ms; docs/speed.md).

pub mod capture;
pub mod cursor;
pub mod digest;
pub mod doctor;
pub mod forget;
pub mod hookio;
pub mod inject;
pub mod install;
pub mod jsonedit;
pub mod migrate;
pub mod plugin;
pub mod promote;
pub mod render;
pub mod scope;
pub mod settings;
pub mod summary;
