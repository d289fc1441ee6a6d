//! libaio: Linux native AIO on the raw system calls (io_setup, io_submit,
//! io_getevents, io_destroy), a binding of our own: the structures below are
//! <linux/aio_abi.h>'s, and no crate binds them well.

use super::{Completion, Engine, Op, OpKind};
use std::io;
use std::os::fd::RawFd;

type AioContext = libc::c_ulong;

const IOCB_CMD_PREAD: u16 = 0;
const IOCB_CMD_PWRITE: u16 = 1;
const IOCB_CMD_FSYNC: u16 = 2;
const IOCB_CMD_FDSYNC: u16 = 3;

/// struct iocb (64 bytes). Field order is for little-endian machines, where
/// the kernel's PADDED(aio_key, aio_rw_flags) puts the key first.
#[repr(C)]
#[derive(Clone, Copy, Default)]
struct Iocb {
    aio_data: u64,
    #[cfg(target_endian = "little")]
    aio_key: u32,
    aio_rw_flags: i32,
    #[cfg(target_endian = "big")]
    aio_key: u32,
    aio_lio_opcode: u16,
    aio_reqprio: i16,
    aio_fildes: u32,
    aio_buf: u64,
    aio_nbytes: u64,
    aio_offset: i64,
    aio_reserved2: u64,
    aio_flags: u32,
    aio_resfd: u32,
}

/// struct io_event (32 bytes).
#[repr(C)]
#[derive(Clone, Copy, Default)]
struct IoEvent {
    data: u64,
    obj: u64,
    res: i64,
    res2: i64,
}

const _: () = assert!(std::mem::size_of::<Iocb>() == 64);
const _: () = assert!(std::mem::size_of::<IoEvent>() == 32);

fn io_setup(nr: u32, ctx: &mut AioContext) -> io::Result<()> {
    // SAFETY: io_setup writes the new context id into *ctx, which must be 0.
    let rc = unsafe {
        libc::syscall(
            libc::SYS_io_setup,
            nr as libc::c_long,
            ctx as *mut AioContext,
        )
    };
    if rc < 0 {
        return Err(io::Error::last_os_error());
    }
    Ok(())
}

fn io_destroy(ctx: AioContext) {
    // SAFETY: ctx came from a successful io_setup and is destroyed once.
    unsafe { libc::syscall(libc::SYS_io_destroy, ctx) };
}

/// Whether AIO contexts can be created here (fails under seccomp, or when
/// fs.aio-max-nr is exhausted).
/// Why io_setup failed: under qemu-user an ENOSYS is the emulator's answer
/// (it implements no Linux AIO), which says nothing of the kernel's.
fn refusal(e: &io::Error, emulated: bool) -> String {
    if emulated && e.raw_os_error() == Some(libc::ENOSYS) {
        "qemu-user implements no libaio (io_setup: ENOSYS from the emulator, not the kernel)"
            .to_string()
    } else {
        format!("io_setup failed: {e}")
    }
}

pub fn probe() -> Result<(), String> {
    let mut ctx: AioContext = 0;
    match io_setup(1, &mut ctx) {
        Ok(()) => {
            io_destroy(ctx);
            Ok(())
        }
        Err(e) => Err(refusal(&e, crate::host::arch::here().is_some())),
    }
}

pub struct AioEngine {
    ctx: AioContext,
    fd: RawFd,
    /// One control block per slot: the kernel reads it during io_submit.
    iocbs: Vec<Iocb>,
    pending: Vec<*mut Iocb>,
    events: Vec<IoEvent>,
}

impl AioEngine {
    pub fn new(fd: RawFd, depth: u32) -> io::Result<AioEngine> {
        let mut ctx: AioContext = 0;
        io_setup(depth, &mut ctx)?;
        Ok(AioEngine {
            ctx,
            fd,
            iocbs: vec![Iocb::default(); depth as usize],
            pending: Vec::with_capacity(depth as usize),
            events: vec![IoEvent::default(); depth as usize],
        })
    }
}

impl Drop for AioEngine {
    fn drop(&mut self) {
        // io_destroy waits for in-flight operations, so buffers are never
        // written after the worker frees them.
        io_destroy(self.ctx);
    }
}

impl Engine for AioEngine {
    fn name(&self) -> &'static str {
        "libaio"
    }

    fn submit_and_reap(
        &mut self,
        new_ops: &[Op],
        min_complete: usize,
        out: &mut Vec<Completion>,
    ) -> io::Result<()> {
        for op in new_ops {
            let cb = &mut self.iocbs[op.slot as usize];
            *cb = Iocb {
                aio_data: op.slot as u64,
                aio_lio_opcode: match op.kind {
                    OpKind::Read => IOCB_CMD_PREAD,
                    OpKind::Write => IOCB_CMD_PWRITE,
                    OpKind::Sync => IOCB_CMD_FSYNC,
                    OpKind::Datasync => IOCB_CMD_FDSYNC,
                },
                aio_fildes: self.fd as u32,
                aio_buf: op.buf as u64,
                aio_nbytes: op.len as u64,
                aio_offset: op.offset as i64,
                ..Iocb::default()
            };
            self.pending.push(cb as *mut Iocb);
        }
        let mut submitted = 0;
        while submitted < self.pending.len() {
            // SAFETY: the pointers refer to iocbs owned by self that stay put
            // (the Vec never grows); their buffers belong to in-flight slots.
            let rc = unsafe {
                libc::syscall(
                    libc::SYS_io_submit,
                    self.ctx,
                    (self.pending.len() - submitted) as libc::c_long,
                    self.pending[submitted..].as_mut_ptr(),
                )
            };
            if rc < 0 {
                let e = io::Error::last_os_error();
                match e.raw_os_error() {
                    Some(libc::EINTR) => continue,
                    Some(libc::EAGAIN) if submitted > 0 => break,
                    _ => return Err(e),
                }
            }
            submitted += rc as usize;
        }
        self.pending.drain(..submitted);
        if min_complete == 0 {
            // A submit-only call: the completions wait for the next call that
            // waits, which saves an io_getevents per submit.
            return Ok(());
        }
        let max = self.events.len();
        loop {
            // SAFETY: events has room for `max` entries; a null timeout waits.
            let rc = unsafe {
                libc::syscall(
                    libc::SYS_io_getevents,
                    self.ctx,
                    min_complete as libc::c_long,
                    max as libc::c_long,
                    self.events.as_mut_ptr(),
                    std::ptr::null_mut::<libc::timespec>(),
                )
            };
            if rc < 0 {
                let e = io::Error::last_os_error();
                if e.raw_os_error() == Some(libc::EINTR) {
                    continue;
                }
                return Err(e);
            }
            for ev in &self.events[..rc as usize] {
                out.push(Completion {
                    slot: ev.data as u32,
                    result: ev.res,
                });
            }
            return Ok(());
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Under qemu-user the ENOSYS is the emulator's, and the refusal says so;
    /// on a real kernel it stays the kernel's error.
    #[test]
    fn refusal_names_the_emulator_only_when_emulated() {
        let enosys = io::Error::from_raw_os_error(libc::ENOSYS);
        assert!(refusal(&enosys, true).contains("qemu-user implements no libaio"));
        assert!(refusal(&enosys, false).starts_with("io_setup failed: "));
        let eagain = io::Error::from_raw_os_error(libc::EAGAIN);
        assert!(refusal(&eagain, true).starts_with("io_setup failed: "));
    }
}
