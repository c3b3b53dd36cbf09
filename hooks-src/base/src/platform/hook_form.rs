//! How Claude Code is asked to start our hooks. On Unix, the shell form: `command` alone, the quoted
//! path of the binary, which Claude Code runs with `sh -c` (every CLI version does so). On Windows,
//! the exec form: `command` naming the `.exe` and an `args` array (empty: our hooks take none), which
//! Claude Code (2.1.139+) starts directly. There a shell-form command would go through Git Bash
//! (`bash --login -i -c`: four processes, a console window that may flash, and backslashes in the
//! path read as escapes), and a command that is not a real `.exe` may open in an editor instead.

/// Whether hooks are registered in the exec form (`command` + `args`, no shell).
pub const EXEC_FORM: bool = imp::EXEC_FORM;

#[cfg(unix)]
mod imp {
    pub const EXEC_FORM: bool = false;
}

#[cfg(windows)]
mod imp {
    pub const EXEC_FORM: bool = true;
}
