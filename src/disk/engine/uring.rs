//! io_uring: one ring per worker thread, the file registered, and the slot
//! buffers registered when the kernel lets us pin them (memlock), so each
//! I/O skips the file lookup and the page pinning. Without registration the
//! same loop issues plain READ/WRITE; the Run says which ran.

use super::{Completion, Engine, Op, OpKind};
use io_uring::{opcode, types, IoUring};
use std::io;
use std::os::fd::RawFd;

/// Whether an io_uring instance can be created here. Fails with ENOSYS on
/// old kernels, EPERM under seccomp or kernel.io_uring_disabled=2, and for
/// unprivileged users when io_uring_disabled=1.
/// Why io_uring_setup answered ENOSYS: under qemu-user it is the emulator's
/// answer (it implements no io_uring), which says nothing of the kernel's.
fn enosys(emulated: bool) -> String {
    if emulated {
        "qemu-user implements no io_uring (ENOSYS from the emulator, not the kernel)".to_string()
    } else {
        "the kernel has no io_uring (ENOSYS)".to_string()
    }
}

pub fn probe() -> Result<(), String> {
    match IoUring::new(2) {
        Ok(_) => Ok(()),
        Err(e) => Err(match e.raw_os_error() {
            Some(libc::ENOSYS) => enosys(crate::host::arch::here().is_some()),
            Some(libc::EPERM) => {
                let disabled = std::fs::read_to_string("/proc/sys/kernel/io_uring_disabled")
                    .map(|s| s.trim().to_string())
                    .unwrap_or_default();
                if disabled.is_empty() || disabled == "0" {
                    "io_uring_setup was refused (EPERM: seccomp or a container policy)".to_string()
                } else {
                    format!("kernel.io_uring_disabled={disabled} (EPERM)")
                }
            }
            _ => format!("io_uring_setup failed: {e}"),
        }),
    }
}

pub struct UringEngine {
    ring: IoUring,
    fixed_buffers: Option<(*mut u8, usize)>,
}

impl UringEngine {
    /// A ring of `depth` entries on `fd`; tries to register `buffers` (one
    /// region holding every slot's buffer).
    pub fn new(fd: RawFd, depth: u32, buffers: (*mut u8, usize)) -> io::Result<UringEngine> {
        let entries = depth.next_power_of_two().max(2);
        // Each worker owns its ring and is the only submitter: SINGLE_ISSUER
        // and DEFER_TASKRUN (6.1+) run completions in our own wait call
        // instead of interrupting us. Older kernels refuse the flags: retry plain.
        let ring = IoUring::builder()
            .setup_single_issuer()
            .setup_defer_taskrun()
            .build(entries)
            .or_else(|_| IoUring::builder().setup_coop_taskrun().build(entries))
            .or_else(|_| IoUring::new(entries))?;
        ring.submitter().register_files(&[fd])?;
        let iov = libc::iovec {
            iov_base: buffers.0 as *mut libc::c_void,
            iov_len: buffers.1,
        };
        // SAFETY: the region stays allocated and unmoved for the ring's whole
        // life (the worker owns both and drops the ring first).
        let fixed = unsafe { ring.submitter().register_buffers(&[iov]) }.is_ok();
        Ok(UringEngine {
            ring,
            fixed_buffers: fixed.then_some(buffers),
        })
    }

    /// Whether the buffers are registered (fixed).
    pub fn registered_buffers(&self) -> bool {
        self.fixed_buffers.is_some()
    }
}

impl Engine for UringEngine {
    fn name(&self) -> &'static str {
        "io_uring"
    }

    fn submit_and_reap(
        &mut self,
        new_ops: &[Op],
        min_complete: usize,
        out: &mut Vec<Completion>,
    ) -> io::Result<()> {
        let file = types::Fixed(0);
        {
            let mut sq = self.ring.submission();
            for op in new_ops {
                let entry = match (op.kind, self.fixed_buffers.is_some()) {
                    (OpKind::Read, true) => opcode::ReadFixed::new(file, op.buf, op.len, 0)
                        .offset(op.offset)
                        .build(),
                    (OpKind::Write, true) => opcode::WriteFixed::new(file, op.buf, op.len, 0)
                        .offset(op.offset)
                        .build(),
                    (OpKind::Read, false) => opcode::Read::new(file, op.buf, op.len)
                        .offset(op.offset)
                        .build(),
                    (OpKind::Write, false) => opcode::Write::new(file, op.buf, op.len)
                        .offset(op.offset)
                        .build(),
                    (OpKind::Sync, _) => opcode::Fsync::new(file).build(),
                    (OpKind::Datasync, _) => opcode::Fsync::new(file)
                        .flags(types::FsyncFlags::DATASYNC)
                        .build(),
                };
                // SAFETY: the buffer of op.slot stays valid and untouched until
                // its completion is reaped (the worker owns the slot until then);
                // the ring has as many entries as slots, so the push cannot overflow.
                unsafe { sq.push(&entry.user_data(op.slot as u64)) }
                    .map_err(|_| io::Error::other("io_uring submission queue full"))?;
            }
        }
        loop {
            match self.ring.submit_and_wait(min_complete) {
                Ok(_) => break,
                Err(e) if e.raw_os_error() == Some(libc::EINTR) => {
                    if !self.ring.completion().is_empty() {
                        break;
                    }
                }
                Err(e) if e.raw_os_error() == Some(libc::EBUSY) => {
                    // Completion queue full: reap what is there first.
                    break;
                }
                Err(e) => return Err(e),
            }
        }
        for cqe in self.ring.completion() {
            out.push(Completion {
                slot: cqe.user_data() as u32,
                result: cqe.result() as i64,
            });
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn enosys_is_the_emulators_only_when_emulated() {
        assert!(enosys(true).contains("qemu-user implements no io_uring"));
        assert!(!enosys(true).contains("the kernel has"));
        assert_eq!(enosys(false), "the kernel has no io_uring (ENOSYS)");
    }
}
