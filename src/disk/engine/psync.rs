//! psync: pread/pwrite/fsync/fdatasync, one operation at a time (fio's psync). Its
//! latency is the system call's duration; parallelism comes from threads.

use super::{Completion, Engine, Op, OpKind};
use std::io;
use std::os::fd::RawFd;

pub struct PsyncEngine {
    fd: RawFd,
}

impl PsyncEngine {
    pub fn new(fd: RawFd) -> PsyncEngine {
        PsyncEngine { fd }
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
            let result = loop {
                // SAFETY: op.buf points to op.len bytes owned by the worker's
                // slot for the duration of this call; fd is open.
                let rc = unsafe {
                    match op.kind {
                        OpKind::Read => libc::pread64(
                            self.fd,
                            op.buf as *mut libc::c_void,
                            op.len as usize,
                            op.offset as libc::off64_t,
                        ) as i64,
                        OpKind::Write => libc::pwrite64(
                            self.fd,
                            op.buf as *const libc::c_void,
                            op.len as usize,
                            op.offset as libc::off64_t,
                        ) as i64,
                        OpKind::Sync => libc::fsync(self.fd) as i64,
                        OpKind::Datasync => libc::fdatasync(self.fd) as i64,
                    }
                };
                if rc < 0 {
                    let errno = io::Error::last_os_error()
                        .raw_os_error()
                        .unwrap_or(libc::EIO);
                    if errno == libc::EINTR {
                        continue;
                    }
                    break -(errno as i64);
                }
                break rc;
            };
            out.push(Completion {
                slot: op.slot,
                result,
            });
        }
        Ok(())
    }
}
