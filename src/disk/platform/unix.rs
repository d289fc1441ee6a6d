//! The disk engine's OS calls on Linux: descriptors, pread, posix_fadvise,
//! getrusage.

use super::super::WriteSync;
use std::os::fd::{AsRawFd, OwnedFd, RawFd};

/// An opened test file or device, as a worker holds it.
pub type Handle = OwnedFd;

/// The handle as the engines take it (they never close it).
pub type Raw = RawFd;

/// The `Raw` of a job without a file (the null engine).
pub const NO_RAW: Raw = -1;

/// The raw descriptor of a handle.
pub fn raw(handle: &Handle) -> Raw {
    handle.as_raw_fd()
}

/// The `open` access flags of a job's file: read-write with this sync mode
/// for a job that writes, read-only otherwise.
pub fn access_flags(sync: WriteSync, write: bool) -> i32 {
    match (write, sync) {
        (false, _) => libc::O_RDONLY,
        (true, WriteSync::None) => libc::O_RDWR,
        (true, WriteSync::Dsync) => libc::O_RDWR | libc::O_DSYNC,
        (true, WriteSync::Sync) => libc::O_RDWR | libc::O_SYNC,
    }
}

/// posix_fadvise over the whole file (fio's `fadvise_hint`): advice only.
pub fn advise(handle: &Handle, advice: i32) {
    // SAFETY: posix_fadvise on a valid descriptor; advice only.
    unsafe { libc::posix_fadvise64(handle.as_raw_fd(), 0, 0, advice) };
}

/// One `pread` at `offset` into `buf`: the bytes read (0 at the end).
pub fn read_at(raw: Raw, buf: &mut [u8], offset: u64) -> std::io::Result<usize> {
    loop {
        // SAFETY: the pointer and length describe `buf`; the descriptor is open.
        let n = unsafe {
            libc::pread64(
                raw,
                buf.as_mut_ptr().cast(),
                buf.len(),
                offset as libc::off64_t,
            )
        };
        if n >= 0 {
            return Ok(n as usize);
        }
        let e = std::io::Error::last_os_error();
        if e.kind() != std::io::ErrorKind::Interrupted {
            return Err(e);
        }
    }
}

/// (user, system) CPU time in ns, of this thread or of the whole process.
fn rusage_ns(who: libc::c_int) -> (u64, u64) {
    // SAFETY: rusage is plain data that getrusage fills.
    let mut ru: libc::rusage = unsafe { std::mem::zeroed() };
    if unsafe { libc::getrusage(who, &mut ru) } != 0 {
        return (0, 0);
    }
    let ns = |tv: libc::timeval| tv.tv_sec as u64 * 1_000_000_000 + tv.tv_usec as u64 * 1000;
    (ns(ru.ru_utime), ns(ru.ru_stime))
}

/// This thread's (user, system) CPU time in ns.
pub fn thread_cpu() -> (u64, u64) {
    rusage_ns(libc::RUSAGE_THREAD)
}

/// This process's (user, system) CPU time in ns.
pub fn process_cpu() -> (u64, u64) {
    rusage_ns(libc::RUSAGE_SELF)
}

/// fio's `fadvise_hint` values, as posix_fadvise takes them.
pub const ADVICE_NORMAL: i32 = libc::POSIX_FADV_NORMAL;
pub const ADVICE_RANDOM: i32 = libc::POSIX_FADV_RANDOM;
pub const ADVICE_SEQUENTIAL: i32 = libc::POSIX_FADV_SEQUENTIAL;
