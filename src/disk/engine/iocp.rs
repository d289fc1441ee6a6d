//! windowsaio: overlapped `ReadFile`/`WriteFile` reaped from an I/O
//! completion port with `GetQueuedCompletionStatusEx`, so one thread keeps
//! `iodepth` operations in flight (DiskSpd's `-o`, fio's `windowsaio`).
//!
//! The worker's handle is synchronous (verify and the fill read through it),
//! so the engine opens its own overlapped handle to the same file with
//! `ReOpenFile` and closes it when dropped. Each slot owns one OVERLAPPED in
//! a boxed slice that never moves: Windows writes it until the completion
//! is reaped. Syncs are `FlushFileBuffers`, synchronous, as in fio's
//! windowsaio (Windows has no asynchronous flush).

use super::{Completion, Engine, Op, OpKind};
use std::io;
use std::os::windows::io::RawHandle;
use windows_sys::Win32::Foundation::{
    CloseHandle, GetLastError, ERROR_HANDLE_EOF, ERROR_IO_PENDING, GENERIC_READ, GENERIC_WRITE,
    HANDLE, INVALID_HANDLE_VALUE,
};
use windows_sys::Win32::Storage::FileSystem::{
    FlushFileBuffers, ReOpenFile, ReadFile, WriteFile, FILE_FLAG_NO_BUFFERING,
    FILE_FLAG_OVERLAPPED, FILE_FLAG_WRITE_THROUGH, FILE_SHARE_DELETE, FILE_SHARE_READ,
    FILE_SHARE_WRITE,
};
use windows_sys::Win32::System::Threading::INFINITE;
use windows_sys::Win32::System::IO::{
    CancelIoEx, CreateIoCompletionPort, GetOverlappedResult, GetQueuedCompletionStatusEx,
    OVERLAPPED, OVERLAPPED_ENTRY,
};

/// A completion port can be made here (Windows, and Wine, always can;
/// the probe says why not if this one cannot).
pub fn probe() -> Result<(), String> {
    // SAFETY: a new port without a file; closed at once.
    let port = unsafe { CreateIoCompletionPort(INVALID_HANDLE_VALUE, std::ptr::null_mut(), 0, 1) };
    if port.is_null() {
        return Err(format!(
            "CreateIoCompletionPort failed: {}",
            io::Error::last_os_error()
        ));
    }
    // SAFETY: the port just made, closed once.
    unsafe { CloseHandle(port) };
    Ok(())
}

/// How the engine's own handle is opened: as the worker's, plus overlapped.
#[derive(Debug, Clone, Copy)]
pub struct Opening {
    pub write: bool,
    pub direct: bool,
    pub write_through: bool,
}

pub struct IocpEngine {
    /// The overlapped handle to the test file, owned: closed on drop.
    file: HANDLE,
    /// The completion port the file is bound to, owned.
    port: HANDLE,
    /// One OVERLAPPED per slot, at a fixed address while in flight.
    overlapped: Box<[OVERLAPPED]>,
    /// Operations submitted whose completion packet is not yet reaped.
    in_flight: usize,
    entries: Vec<OVERLAPPED_ENTRY>,
}

impl IocpEngine {
    /// Opens the overlapped handle to the file behind `raw` and binds it to
    /// a new completion port, for `depth` slots.
    pub fn new(raw: RawHandle, depth: u32, opening: Opening) -> io::Result<IocpEngine> {
        let mut access = GENERIC_READ;
        if opening.write {
            access |= GENERIC_WRITE;
        }
        let mut flags = FILE_FLAG_OVERLAPPED;
        if opening.direct {
            flags |= FILE_FLAG_NO_BUFFERING;
        }
        if opening.write_through {
            flags |= FILE_FLAG_WRITE_THROUGH;
        }
        let share = FILE_SHARE_READ | FILE_SHARE_WRITE | FILE_SHARE_DELETE;
        // SAFETY: `raw` is the worker's open handle; ReOpenFile returns a new one.
        let file = unsafe { ReOpenFile(raw as HANDLE, access, share, flags) };
        if file == INVALID_HANDLE_VALUE {
            return Err(io::Error::last_os_error());
        }
        // SAFETY: binds the handle just opened to a new port (key unused).
        let port = unsafe { CreateIoCompletionPort(file, std::ptr::null_mut(), 0, 1) };
        if port.is_null() {
            let e = io::Error::last_os_error();
            // SAFETY: the handle opened above, closed once.
            unsafe { CloseHandle(file) };
            return Err(e);
        }
        Ok(IocpEngine {
            file,
            port,
            overlapped: vec![OVERLAPPED::default(); depth as usize].into_boxed_slice(),
            in_flight: 0,
            entries: vec![OVERLAPPED_ENTRY::default(); depth.max(1) as usize],
        })
    }

    /// Starts one read or write; Some(result) when it failed at once (no
    /// completion packet comes then), None when a packet will come.
    fn start(&mut self, op: &Op) -> Option<i64> {
        let ov = &mut self.overlapped[op.slot as usize];
        *ov = OVERLAPPED::default();
        ov.Anonymous.Anonymous.Offset = op.offset as u32;
        ov.Anonymous.Anonymous.OffsetHigh = (op.offset >> 32) as u32;
        let ov: *mut OVERLAPPED = ov;
        // SAFETY: op.buf holds op.len bytes owned by the slot, and the slot's
        // OVERLAPPED stays in self.overlapped; both are left alone until the
        // completion is reaped (or cancelled and drained in Drop).
        let ok = unsafe {
            match op.kind {
                OpKind::Read => ReadFile(self.file, op.buf, op.len, std::ptr::null_mut(), ov),
                _ => WriteFile(self.file, op.buf, op.len, std::ptr::null_mut(), ov),
            }
        };
        // SAFETY: reads this thread's last error, set by the call above.
        if ok == 0 && unsafe { GetLastError() } != ERROR_IO_PENDING {
            let e = io::Error::last_os_error();
            return Some(outcome(Err(e)));
        }
        // Done at once or pending: without FILE_SKIP_COMPLETION_PORT_ON_SUCCESS
        // both post a packet to the port.
        self.in_flight += 1;
        None
    }

    /// Waits for at least `min` packets and turns each into a completion.
    fn reap(&mut self, min: usize, out: &mut Vec<Completion>) -> io::Result<()> {
        let mut got = 0;
        while got < min && self.in_flight > 0 {
            let mut removed = 0u32;
            // SAFETY: entries has room for entries.len() packets; INFINITE
            // waits, not alertable.
            let ok = unsafe {
                GetQueuedCompletionStatusEx(
                    self.port,
                    self.entries.as_mut_ptr(),
                    self.entries.len() as u32,
                    &mut removed,
                    INFINITE,
                    0,
                )
            };
            if ok == 0 {
                return Err(io::Error::last_os_error());
            }
            for entry in &self.entries[..removed as usize] {
                let slot = self.slot_of(entry.lpOverlapped);
                let mut bytes = 0u32;
                // SAFETY: the packet's OVERLAPPED is a slot's, now complete:
                // GetOverlappedResult only reads its status without waiting.
                let ok =
                    unsafe { GetOverlappedResult(self.file, entry.lpOverlapped, &mut bytes, 0) };
                let result = if ok != 0 {
                    Ok(bytes as usize)
                } else {
                    Err(io::Error::last_os_error())
                };
                out.push(Completion {
                    slot,
                    result: outcome(result),
                });
                self.in_flight -= 1;
                got += 1;
            }
        }
        Ok(())
    }

    /// The slot whose OVERLAPPED a packet names.
    fn slot_of(&self, ov: *mut OVERLAPPED) -> u32 {
        let base = self.overlapped.as_ptr() as usize;
        ((ov as usize - base) / std::mem::size_of::<OVERLAPPED>()) as u32
    }
}

/// Bytes moved, or minus the Windows error code (as psync reports them); the
/// end of the file reads 0 bytes, as pread's does.
fn outcome(r: io::Result<usize>) -> i64 {
    match r {
        Ok(n) => n as i64,
        Err(e) if e.raw_os_error() == Some(ERROR_HANDLE_EOF as i32) => 0,
        Err(e) => -(e.raw_os_error().unwrap_or(1117) as i64), // ERROR_IO_DEVICE
    }
}

impl Drop for IocpEngine {
    fn drop(&mut self) {
        // Operations still in flight (an error or a signal ended the loop)
        // are cancelled and their packets drained, so Windows writes no
        // buffer or OVERLAPPED after the worker frees them.
        if self.in_flight > 0 {
            // SAFETY: cancels this thread's and every other's I/O on our handle.
            unsafe { CancelIoEx(self.file, std::ptr::null()) };
            let mut ignored = Vec::new();
            while self.in_flight > 0 {
                if self.reap(self.in_flight, &mut ignored).is_err() {
                    break;
                }
            }
        }
        // SAFETY: both handles are ours, closed once.
        unsafe {
            CloseHandle(self.port);
            CloseHandle(self.file);
        }
    }
}

impl Engine for IocpEngine {
    fn name(&self) -> &'static str {
        "windowsaio"
    }

    fn submit_and_reap(
        &mut self,
        new_ops: &[Op],
        min_complete: usize,
        out: &mut Vec<Completion>,
    ) -> io::Result<()> {
        let mut done_now = 0;
        for op in new_ops {
            let result = if op.kind.is_sync() {
                // SAFETY: our open handle; the flush is synchronous.
                let ok = unsafe { FlushFileBuffers(self.file) };
                Some(if ok != 0 {
                    0
                } else {
                    outcome(Err(io::Error::last_os_error()))
                })
            } else {
                self.start(op)
            };
            if let Some(result) = result {
                out.push(Completion {
                    slot: op.slot,
                    result,
                });
                done_now += 1;
            }
        }
        self.reap(min_complete.saturating_sub(done_now), out)
    }
}
