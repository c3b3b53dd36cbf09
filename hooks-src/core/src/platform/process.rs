//! Whether a process of a given id is alive (to tell a crashed writer's temp file from a live
//! one). Nothing is sent to the process on either platform.

/// `Some(false)` when no process `pid` exists, `Some(true)` when one does, `None` when that cannot
/// be told.
pub fn alive(pid: u32) -> Option<bool> {
    imp::alive(pid)
}

#[cfg(unix)]
mod imp {
    pub fn alive(pid: u32) -> Option<bool> {
        let pid = rustix::process::Pid::from_raw(i32::try_from(pid).ok()?)?;
        // Signal 0 only asks whether the process exists.
        match rustix::process::test_kill_process(pid) {
            Err(rustix::io::Errno::SRCH) => Some(false),
            _ => Some(true),
        }
    }
}

#[cfg(windows)]
mod imp {
    use windows_sys::Win32::Foundation::{CloseHandle, ERROR_INVALID_PARAMETER, STILL_ACTIVE};
    use windows_sys::Win32::System::Threading::{
        GetExitCodeProcess, OpenProcess, PROCESS_QUERY_LIMITED_INFORMATION,
    };

    pub fn alive(pid: u32) -> Option<bool> {
        // SAFETY: plain calls; the handle is closed before returning.
        unsafe {
            let handle = OpenProcess(PROCESS_QUERY_LIMITED_INFORMATION, 0, pid);
            if handle.is_null() {
                let gone = std::io::Error::last_os_error().raw_os_error()
                    == Some(ERROR_INVALID_PARAMETER as i32);
                return gone.then_some(false);
            }
            let mut code = 0u32;
            let asked = GetExitCodeProcess(handle, &mut code) != 0;
            CloseHandle(handle);
            asked.then_some(code == STILL_ACTIVE as u32)
        }
    }
}
