//! reflect-core: every piece of logic of the reflect plugin.
//!
//! The binaries under `hooks-src/bins` only wire stdin and arguments to this library; nothing here
//! prints, parses command lines or exits the process. Data flows one way:
//!
//! * capture: payload bytes → [`hookio`] → [`transcript`] events → [`detect`] → [`redact`] → [`store`]
//! * toggle: [`paths`] → [`settings`] (edits through [`jsonedit`]; + [`migrate`]) → [`fsutil::atomic_write`]
//! * review: flag values and `append` input → [`input`] → [`store`] → [`render`] / [`promote`],
//!   scoped to a project by [`scope`]
//! * second look: the cursors' record of sessions → [`transcript`] prompts → [`detect`]'s model
//!   (for the order) → [`redact`] → [`digest`]

pub mod capture;
pub mod cursor;
pub mod detect;
pub mod digest;
pub mod doctor;
pub mod error;
pub mod failure;
pub mod forget;
pub mod fsutil;
pub mod hook;
pub mod hookio;
pub mod input;
pub mod install;
pub mod jsonedit;
pub mod keyindex;
pub mod migrate;
pub mod paths;
pub mod promote;
pub mod redact;
pub mod render;
pub mod scope;
pub mod settings;
pub mod sighting;
pub mod signal;
pub mod store;
pub mod summary;
pub mod transcript;
