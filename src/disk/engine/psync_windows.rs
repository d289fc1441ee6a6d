//! psync on Windows: one `ReadFile`/`WriteFile` at a time with the offset
//! in its OVERLAPPED (std's `seek_read`/`seek_write` on a synchronous
//! handle), `FlushFileBuffers` for fsync and fdatasync alike (Windows has
//! no data-only flush; fio's psync on Windows does the same). Queue depth
//! comes from threads: each thread is QD1, as fio's psync.

use super::{Completion, Engine, Op, OpKind};
use std::io;
use std::os::windows::fs::FileExt;
use std::os::windows::io::{FromRawHandle, RawHandle};

pub struct PsyncEngine {
    /// The worker's handle, borrowed: never closed here.
    file: std::mem::ManuallyDrop<std::fs::File>,
}

impl PsyncEngine {
    pub fn new(handle: RawHandle) -> PsyncEngine {
        // SAFETY: the worker keeps `handle` open while the engine lives;
        // ManuallyDrop never closes it.
        let file = std::mem::ManuallyDrop::new(unsafe { std::fs::File::from_raw_handle(handle) });
        PsyncEngine { file }
    }
}

/// Bytes moved, or minus the Windows error code (what the worker reports).
fn outcome(r: io::Result<usize>) -> i64 {
    match r {
        Ok(n) => n as i64,
        Err(e) => -(e.raw_os_error().unwrap_or(1117) as i64), // ERROR_IO_DEVICE
    }
}

impl Engine for PsyncEngine {
    fn name(&self) -> &'static str {
        "psync"
    }

    fn submit_and_reap(
        &mut self,
        new_ops: &[Op],
        _min_complete: usize,
        out: &mut Vec<Completion>,
    ) -> io::Result<()> {
        for op in new_ops {
            let len = op.len as usize;
            let result = match op.kind {
                OpKind::Read => {
                    // SAFETY: op.buf points to op.len bytes owned by the
                    // worker's slot for the duration of this call.
                    let buf = unsafe { std::slice::from_raw_parts_mut(op.buf, len) };
                    outcome(self.file.seek_read(buf, op.offset))
                }
                OpKind::Write => {
                    // SAFETY: as above, read-only.
                    let buf = unsafe { std::slice::from_raw_parts(op.buf, len) };
                    outcome(self.file.seek_write(buf, op.offset))
                }
                OpKind::Sync | OpKind::Datasync => outcome(self.file.sync_all().map(|()| 0)),
            };
            out.push(Completion {
                slot: op.slot,
                result,
            });
        }
        Ok(())
    }
}
