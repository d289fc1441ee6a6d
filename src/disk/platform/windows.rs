//! The disk engine's OS calls on Windows: file handles, positioned reads
//! (`ReadFile` with the offset in its OVERLAPPED, through std), and
//! `GetThreadTimes`/`GetProcessTimes`. There is no fadvise: as fio on
//! Windows, the hint is accepted and does nothing.

use super::super::WriteSync;
use std::os::windows::fs::FileExt;
use std::os::windows::io::{AsRawHandle, FromRawHandle, RawHandle};
use windows_sys::Win32::Foundation::FILETIME;
use windows_sys::Win32::System::Threading::{
    GetCurrentProcess, GetCurrentThread, GetProcessTimes, GetThreadTimes,
};

/// An opened test file, as a worker holds it (opened synchronous: one
/// operation at a time per handle).
pub type Handle = std::fs::File;

/// The handle as the engines take it (they never close it).
pub type Raw = RawHandle;

/// The `Raw` of a job without a file (the null engine).
pub const NO_RAW: Raw = std::ptr::null_mut();

/// The raw handle of a file.
pub fn raw(handle: &Handle) -> Raw {
    handle.as_raw_handle()
}

/// Write-through is Windows's `O_DSYNC`: `FILE_FLAG_WRITE_THROUGH` (DiskSpd's
/// `-Sw`); Windows has no separate `O_SYNC`, so `sync=sync` asks for the same.
pub fn write_through(sync: WriteSync, write: bool) -> bool {
    write && sync != WriteSync::None
}

/// fio's `fadvise_hint` values (fio's own numbering on Windows, where they do nothing).
pub const ADVICE_NORMAL: i32 = 0;
pub const ADVICE_RANDOM: i32 = 1;
pub const ADVICE_SEQUENTIAL: i32 = 2;

/// No fadvise on Windows (fio's Windows build ignores the hint as well).
pub fn advise(_handle: &Handle, _advice: i32) {}

/// One positioned read at `offset` into `buf`: the bytes read (0 at the end).
pub fn read_at(raw: Raw, buf: &mut [u8], offset: u64) -> std::io::Result<usize> {
    // SAFETY: `raw` is an open handle the caller owns; ManuallyDrop never closes it.
    let file = std::mem::ManuallyDrop::new(unsafe { std::fs::File::from_raw_handle(raw) });
    match file.seek_read(buf, offset) {
        Err(e) if e.raw_os_error() == Some(38) => Ok(0), // ERROR_HANDLE_EOF
        other => other,
    }
}

/// A FILETIME span in ns (100 ns units).
fn ns(t: FILETIME) -> u64 {
    ((t.dwHighDateTime as u64) << 32 | t.dwLowDateTime as u64) * 100
}

const ZERO: FILETIME = FILETIME {
    dwLowDateTime: 0,
    dwHighDateTime: 0,
};

/// This thread's (user, system) CPU time in ns.
pub fn thread_cpu() -> (u64, u64) {
    let (mut created, mut exited, mut kernel, mut user) = (ZERO, ZERO, ZERO, ZERO);
    // SAFETY: the pseudo-handle of this thread; four FILETIMEs to fill.
    let ok = unsafe {
        GetThreadTimes(
            GetCurrentThread(),
            &mut created,
            &mut exited,
            &mut kernel,
            &mut user,
        )
    };
    if ok == 0 {
        return (0, 0);
    }
    (ns(user), ns(kernel))
}

/// This process's (user, system) CPU time in ns.
pub fn process_cpu() -> (u64, u64) {
    let (mut created, mut exited, mut kernel, mut user) = (ZERO, ZERO, ZERO, ZERO);
    // SAFETY: the pseudo-handle of this process; four FILETIMEs to fill.
    let ok = unsafe {
        GetProcessTimes(
            GetCurrentProcess(),
            &mut created,
            &mut exited,
            &mut kernel,
            &mut user,
        )
    };
    if ok == 0 {
        return (0, 0);
    }
    (ns(user), ns(kernel))
}
