//! I/O engines behind one trait, one file each (as fio's engines/). An
//! engine only moves bytes: the worker decides what to do and times it.
//!
//! The worker hands an engine a batch of new operations and asks for at
//! least one completion back; the engine submits, waits and reaps in as few
//! system calls as it can. Engines are generic parameters of the worker
//! loop (no dynamic dispatch per I/O).

#[cfg(target_os = "linux")]
pub mod aio;
#[cfg(windows)]
pub mod iocp;
#[cfg(unix)]
pub mod metadata;
pub mod null;
#[cfg(unix)]
pub mod psync;
#[cfg(windows)]
#[path = "psync_windows.rs"]
pub mod psync;
#[cfg(target_os = "linux")]
pub mod uring;

use super::job::{EngineChoice, EngineKind};

/// What an operation does.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum OpKind {
    Read,
    Write,
    /// fsync of the whole file.
    Sync,
    /// fdatasync of the whole file.
    Datasync,
}

impl OpKind {
    /// A sync of either kind: no data, no buffer.
    pub fn is_sync(self) -> bool {
        matches!(self, OpKind::Sync | OpKind::Datasync)
    }
}

/// One operation on a slot (a buffer that is in flight at most once).
#[derive(Debug, Clone, Copy)]
pub struct Op {
    pub kind: OpKind,
    pub slot: u32,
    pub offset: u64,
    pub len: u32,
    pub buf: *mut u8,
}

/// A finished operation: the slot and the kernel's result (bytes, or -errno).
#[derive(Debug, Clone, Copy)]
pub struct Completion {
    pub slot: u32,
    pub result: i64,
}

/// An engine bound to one open file and one set of slot buffers.
pub trait Engine {
    /// The engine's name as fio spells it.
    fn name(&self) -> &'static str;

    /// Submits `new_ops`, then waits until at least `min_complete` operations
    /// (new or earlier) have completed, and appends every completion that is
    /// ready to `out`. With `min_complete` 0 an engine may return without
    /// reaping; what completed is then reaped by a later call.
    fn submit_and_reap(
        &mut self,
        new_ops: &[Op],
        min_complete: usize,
        out: &mut Vec<Completion>,
    ) -> std::io::Result<()>;
}

/// Environment variable that makes candor treat engines as unavailable
/// (comma-separated names). It exists so that tests can exercise the
/// fallback chain on a machine where every engine works.
pub const DENY_ENV: &str = "CANDOR_TEST_DENY_ENGINES";

fn denied(kind: EngineKind) -> bool {
    std::env::var(DENY_ENV)
        .map(|v| v.split(',').any(|n| n.trim() == kind.as_str()))
        .unwrap_or(false)
}

/// Environment variable that makes every operation after the first N fail
/// with EIO, so that tests can check what a failing device leaves behind.
pub const FAIL_ENV: &str = "CANDOR_TEST_FAIL_IO_AFTER";

/// The operation count after which `Faulty` fails, when the test hook is set.
pub fn fail_after() -> Option<u64> {
    std::env::var(FAIL_ENV).ok()?.parse().ok()
}

/// An engine that behaves like `inner` for `left` completions, then reports
/// EIO: the test hook behind `FAIL_ENV`. Never used unless that variable is set.
pub struct Faulty<E> {
    pub inner: E,
    pub left: u64,
}

impl<E: Engine> Engine for Faulty<E> {
    fn name(&self) -> &'static str {
        self.inner.name()
    }

    fn submit_and_reap(
        &mut self,
        new_ops: &[Op],
        min_complete: usize,
        out: &mut Vec<Completion>,
    ) -> std::io::Result<()> {
        let before = out.len();
        self.inner.submit_and_reap(new_ops, min_complete, out)?;
        for c in &mut out[before..] {
            if self.left == 0 {
                c.result = -(libc::EIO as i64);
            } else {
                self.left -= 1;
            }
        }
        Ok(())
    }
}

/// Checks whether an engine can run here; Err carries the reason in plain words.
pub fn probe(kind: EngineKind) -> Result<(), String> {
    if denied(kind) {
        return Err(format!("disabled by {DENY_ENV} (test injection)"));
    }
    match kind {
        EngineKind::IoUring | EngineKind::Libaio => probe_linux_only(kind),
        EngineKind::Windowsaio => probe_windows_only(),
        EngineKind::Psync | EngineKind::Null => Ok(()),
    }
}

/// windowsaio: Windows's completion ports, probed there.
#[cfg(windows)]
fn probe_windows_only() -> Result<(), String> {
    iocp::probe()
}

/// windowsaio elsewhere: refused by name.
#[cfg(not(windows))]
fn probe_windows_only() -> Result<(), String> {
    Err(format!(
        "Windows only, and this is {}",
        std::env::consts::OS
    ))
}

/// The engines `Auto` tries, best first: each system's queued engines, then psync.
#[cfg(windows)]
const AUTO_ORDER: [EngineKind; 2] = [EngineKind::Windowsaio, EngineKind::Psync];
#[cfg(not(windows))]
const AUTO_ORDER: [EngineKind; 3] = [EngineKind::IoUring, EngineKind::Libaio, EngineKind::Psync];

/// io_uring and libaio: Linux's own interfaces, probed there.
#[cfg(target_os = "linux")]
fn probe_linux_only(kind: EngineKind) -> Result<(), String> {
    match kind {
        EngineKind::IoUring => uring::probe(),
        _ => aio::probe(),
    }
}

/// io_uring and libaio elsewhere: refused by name (psync runs instead).
#[cfg(not(target_os = "linux"))]
fn probe_linux_only(_kind: EngineKind) -> Result<(), String> {
    Err(format!("Linux only, and this is {}", std::env::consts::OS))
}

/// The engine to run, and why when it is not the one preferred.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Selected {
    pub kind: EngineKind,
    pub note: Option<String>,
}

/// Resolves the user's choice: an explicit engine must work (Err says why
/// not); `Auto` walks `AUTO_ORDER` (io_uring, libaio, psync; on Windows
/// windowsaio, psync) and records each refusal.
pub fn select(choice: EngineChoice) -> Result<Selected, String> {
    match choice {
        EngineChoice::Exact(kind) => probe(kind)
            .map(|()| Selected { kind, note: None })
            .map_err(|why| format!("engine {} is unavailable: {why}", kind.as_str())),
        EngineChoice::Auto => {
            let mut refusals = Vec::new();
            for kind in AUTO_ORDER {
                match probe(kind) {
                    Ok(()) => {
                        let note = (!refusals.is_empty()).then(|| {
                            format!("{} ran because {}", kind.as_str(), refusals.join("; "))
                        });
                        return Ok(Selected { kind, note });
                    }
                    Err(why) => refusals.push(format!("{} is unavailable ({why})", kind.as_str())),
                }
            }
            Err(refusals.join("; "))
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn psync_and_null_always_probe() {
        assert!(probe(EngineKind::Psync).is_ok());
        assert!(probe(EngineKind::Null).is_ok());
    }
}
