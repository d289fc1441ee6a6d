//! The page size, configured CPUs and physical memory as the system gives
//! them (fio's `$pagesize`, `$ncpus`, `$mb_memory`): `sysconf` on Linux,
//! `GetSystemInfo` and `GlobalMemoryStatusEx` on Windows.

/// (page size, configured CPUs, physical memory bytes); 0 where unread.
#[cfg(unix)]
pub fn figures() -> (u64, u64, u64) {
    // SAFETY: sysconf only reads system configuration.
    let (pagesize, pages, ncpus) = unsafe {
        (
            libc::sysconf(libc::_SC_PAGESIZE),
            libc::sysconf(libc::_SC_PHYS_PAGES),
            libc::sysconf(libc::_SC_NPROCESSORS_CONF),
        )
    };
    let pagesize = pagesize.max(0) as u64;
    (
        pagesize,
        ncpus.max(0) as u64,
        pages.max(0) as u64 * pagesize,
    )
}

/// (page size, configured CPUs, physical memory bytes); 0 where unread.
#[cfg(windows)]
pub fn figures() -> (u64, u64, u64) {
    use windows_sys::Win32::System::SystemInformation::{GetSystemInfo, SYSTEM_INFO};
    // SAFETY: plain data that GetSystemInfo fills (it cannot fail).
    let mut info: SYSTEM_INFO = unsafe { std::mem::zeroed() };
    unsafe { GetSystemInfo(&mut info) };
    let total = memory_status().map_or(0, |m| m.ullTotalPhys);
    (
        info.dwPageSize as u64,
        info.dwNumberOfProcessors as u64,
        total,
    )
}

/// GlobalMemoryStatusEx: physical memory, total and available.
#[cfg(windows)]
pub fn memory_status() -> Option<windows_sys::Win32::System::SystemInformation::MEMORYSTATUSEX> {
    use windows_sys::Win32::System::SystemInformation::{GlobalMemoryStatusEx, MEMORYSTATUSEX};
    // SAFETY: plain data with its length set, as the call requires.
    let mut m: MEMORYSTATUSEX = unsafe { std::mem::zeroed() };
    m.dwLength = std::mem::size_of::<MEMORYSTATUSEX>() as u32;
    (unsafe { GlobalMemoryStatusEx(&mut m) } != 0).then_some(m)
}
