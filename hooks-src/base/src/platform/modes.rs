//! File modes. On Unix every file reflect makes for itself is 0600 and every directory 0700; a
//! rewritten file keeps its mode. Windows has no modes: the data dir lives under the user's profile
//! (`%USERPROFILE%\.claude\reflections`), whose inherited ACL already grants only the user, SYSTEM
//! and Administrators, so files created there are as private as 0600 makes them on Unix; the only
//! permission bit std exposes there (read-only) is kept on rewrite.

pub use imp::*;

/// `OpenOptions::create_mode(mode)`: the mode a created file gets (Unix; nothing on Windows).
pub trait CreateMode {
    fn create_mode(&mut self, mode: u32) -> &mut Self;
}

impl CreateMode for std::fs::OpenOptions {
    fn create_mode(&mut self, mode: u32) -> &mut Self {
        create_with(self, mode)
    }
}

#[cfg(unix)]
mod imp {
    use std::fs::{self, DirBuilder, File, Metadata, OpenOptions};
    use std::io;
    use std::os::unix::fs::{DirBuilderExt, OpenOptionsExt, PermissionsExt};
    use std::path::Path;

    /// `opts` creates its file with `mode` (narrowed by the umask).
    pub fn create_with(opts: &mut OpenOptions, mode: u32) -> &mut OpenOptions {
        opts.mode(mode)
    }

    /// A builder that creates directories with `mode` (narrowed by the umask).
    pub fn dir_builder(mode: u32) -> DirBuilder {
        let mut b = DirBuilder::new();
        b.mode(mode);
        b
    }

    /// The permission bits of `meta`, `None` where the platform has none.
    pub fn mode_of(meta: &Metadata) -> Option<u32> {
        Some(meta.permissions().mode() & 0o7777)
    }

    /// Give `file` the permissions `mode` (the umask no longer applies) or, without a mode, those of
    /// `like`.
    pub fn set(file: &File, mode: Option<u32>, like: Option<&Metadata>) -> io::Result<()> {
        match (mode, like) {
            (Some(mode), _) => file.set_permissions(fs::Permissions::from_mode(mode)),
            (None, Some(meta)) => file.set_permissions(meta.permissions()),
            (None, None) => Ok(()),
        }
    }

    /// Set `path`'s mode (binaries get 0755).
    pub fn set_path(path: &Path, mode: u32) -> io::Result<()> {
        fs::set_permissions(path, fs::Permissions::from_mode(mode))
    }

    /// Whether the file at `path` (whose metadata is `meta`) is a program the system would run.
    pub fn is_program_file(_path: &Path, meta: &Metadata) -> bool {
        meta.is_file() && meta.permissions().mode() & 0o111 != 0
    }
}

#[cfg(windows)]
mod imp {
    use std::fs::{DirBuilder, File, Metadata, OpenOptions};
    use std::io;
    use std::path::Path;

    /// No mode to give: the directory's inherited ACL decides (see the module doc).
    pub fn create_with(opts: &mut OpenOptions, _mode: u32) -> &mut OpenOptions {
        opts
    }

    /// A plain builder: the new directory inherits its parent's ACL.
    pub fn dir_builder(_mode: u32) -> DirBuilder {
        DirBuilder::new()
    }

    /// Windows files have no mode.
    pub fn mode_of(_meta: &Metadata) -> Option<u32> {
        None
    }

    /// Keep the read-only attribute of `like`; a mode means nothing here.
    pub fn set(file: &File, _mode: Option<u32>, like: Option<&Metadata>) -> io::Result<()> {
        match like {
            Some(meta) => file.set_permissions(meta.permissions()),
            None => Ok(()),
        }
    }

    /// Nothing to set: any `.exe` runs.
    pub fn set_path(_path: &Path, _mode: u32) -> io::Result<()> {
        Ok(())
    }

    /// A program is a regular file Windows runs by its extension.
    pub fn is_program_file(path: &Path, meta: &Metadata) -> bool {
        meta.is_file()
            && path.extension().is_some_and(|x| {
                ["exe", "com", "bat", "cmd", "ps1"]
                    .iter()
                    .any(|p| x.eq_ignore_ascii_case(p))
            })
    }
}
