//! A process's start on Windows: its creation time from `GetProcessTimes`
//! (100 ns units since 1601), which tells a process from a later one that
//! reuses its pid, as /proc's start time does on Linux.

use windows_sys::Win32::Foundation::{CloseHandle, FILETIME, STILL_ACTIVE};
use windows_sys::Win32::System::Threading::{
    GetExitCodeProcess, GetProcessTimes, OpenProcess, PROCESS_QUERY_LIMITED_INFORMATION,
};

/// The creation time of the running process `pid`; None when no process
/// has that pid, it cannot be asked, or it has exited (a process stays
/// openable while anyone holds a handle to it).
pub fn start_of(pid: u32) -> Option<u64> {
    // SAFETY: a query-only handle, closed below.
    let process = unsafe { OpenProcess(PROCESS_QUERY_LIMITED_INFORMATION, 0, pid) };
    if process.is_null() {
        return None;
    }
    let zero = FILETIME {
        dwLowDateTime: 0,
        dwHighDateTime: 0,
    };
    let (mut created, mut exited, mut kernel, mut user) = (zero, zero, zero, zero);
    let mut code = 0u32;
    // SAFETY: the handle opened above; four FILETIMEs and a u32 to fill.
    let (times, exit) = unsafe {
        (
            GetProcessTimes(process, &mut created, &mut exited, &mut kernel, &mut user),
            GetExitCodeProcess(process, &mut code),
        )
    };
    // SAFETY: the handle opened above, closed once.
    unsafe { CloseHandle(process) };
    let running = exit != 0 && code == STILL_ACTIVE as u32;
    (times != 0 && running)
        .then(|| (created.dwHighDateTime as u64) << 32 | created.dwLowDateTime as u64)
        .filter(|&t| t != 0)
}
