//! What differs between Unix and Windows, one module per difference, each a small interface with one
//! implementation per platform (`#[cfg(unix)] mod imp` and `#[cfg(windows)] mod imp`). Everything
//! else in reflect is written once, against these interfaces, and never names a platform.
//!
//! | module      | Unix                                    | Windows                                          |
//! |-------------|-----------------------------------------|--------------------------------------------------|
//! | [`modes`]   | file modes (0600/0700/0644) and the x bit | none: the data dir under the user's profile is private by its inherited ACL; a program is an `.exe` |
//! | [`owner`]   | uid/gid kept on rewrite, root gives files to the dir's owner | nothing to keep: a rewrite keeps the user's ACL, there is no root |
//! | [`special`] | `O_NONBLOCK` open, then `fstat`: FIFOs, devices, sockets refused | `GetFileType` on the open handle (winapi-util): named pipes, `CON`, `NUL` and other character devices refused |
//! | [`file_id`] | device and inode                        | volume serial number and file index               |
//! | [`replace`] | `rename(2)`; `unlink(2)`                 | `MoveFileExW(MOVEFILE_REPLACE_EXISTING)` (what `fs::rename` does), retried briefly while another process holds the target open; an open file renamed away before it is deleted |
//! | [`pread`]   | `pread(2)`: the file's cursor stays      | `seek_read`, then the cursor put back             |
//! | [`writer`]  | a temp file's writer is alive: signal 0 to the pid in its name | ... while the temp file cannot be opened without sharing |
//! | [`lock`]    | flock's "not supported" errno values     | `LockFileEx`'s (fd-lock takes the lock on both)   |
//! | [`map`]     | large store files are memory-mapped      | read: a mapped file cannot be replaced by rename  |
//! | [`hook_form`] | shell form (`sh -c "<path>"`)          | exec form (`command` = the `.exe`, `args: []`)    |
//! | [`limits`]  | `PATH_MAX`                               | the longest path Windows takes (32,767 UTF-16 units) |
//!
//! Links: `fs::symlink_metadata(..).file_type().is_symlink()` is true on Windows for symbolic links
//! and for junctions (every name-surrogate reparse point) and `fs::read_link` reads both, so the one
//! link-following code in [`crate::fsutil`] treats junctions as links without a module of its own.

pub mod file_id;
pub mod hook_form;
pub mod limits;
pub mod lock;
pub mod map;
pub mod modes;
pub mod owner;
pub mod pread;
pub mod replace;
pub mod special;
pub mod writer;
