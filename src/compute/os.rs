//! OS and virtualisation overhead: the parts of UnixBench that differ most
//! between hypervisors, measured the way UnixBench does so its tables compare.
//!
//! - `syscall`: a cheap system call in a loop (raw getppid: the C library
//!   cannot cache it). Kernel entry and exit cost, which mitigations and some
//!   hypervisors raise.
//! - `pipe`: one thread writes 512 bytes into a pipe and reads them back
//!   (UnixBench "Pipe Throughput"); ops are round trips.
//! - `context-switch`: two threads pass an incrementing counter back and forth
//!   over two pipes (UnixBench "Pipe-based Context Switching"); ops are round
//!   trips, each two switches. Each worker brings its own partner thread.
//! - `spawn`: start `/bin/true` and wait for it (fork/exec/exit/wait: what a
//!   shell script or a CGI server pays per command).

use super::runner::{measurement, params, run_timed, Headline};
use super::ComputeOptions;
use crate::result::ComputeMeasurement;
use std::fs::File;
use std::io::{Read, Write};
use std::os::fd::{FromRawFd, OwnedFd};
use std::thread::JoinHandle;

/// System calls per unit of work (one timing check per batch).
const SYSCALL_BATCH: u64 = 10_000;
/// Pipe round trips per unit.
const PIPE_BATCH: u64 = 1_000;
/// UnixBench's pipe block.
pub const PIPE_BLOCK: usize = 512;
/// Context-switch round trips per unit.
const PINGPONG_BATCH: u64 = 200;

/// A pipe: (read end, write end), close-on-exec.
pub fn pipe() -> anyhow::Result<(File, File)> {
    let mut fds = [0 as libc::c_int; 2];
    // SAFETY: pipe2 writes two descriptors into the array we pass.
    if unsafe { libc::pipe2(fds.as_mut_ptr(), libc::O_CLOEXEC) } != 0 {
        return Err(anyhow::Error::new(std::io::Error::last_os_error()).context("pipe2"));
    }
    // SAFETY: both descriptors are fresh and owned by nobody else.
    let (r, w) = unsafe { (OwnedFd::from_raw_fd(fds[0]), OwnedFd::from_raw_fd(fds[1])) };
    Ok((File::from(r), File::from(w)))
}

/// `n` raw getppid system calls.
pub fn syscalls(n: u64) -> libc::c_long {
    let mut last = 0;
    for _ in 0..n {
        // SAFETY: getppid takes no arguments and cannot fail.
        last = unsafe { libc::syscall(libc::SYS_getppid) };
    }
    std::hint::black_box(last)
}

/// One thread writing a block into its own pipe and reading it back.
pub struct PipeLoop {
    r: File,
    w: File,
    out: [u8; PIPE_BLOCK],
    back: [u8; PIPE_BLOCK],
}

impl PipeLoop {
    pub fn new() -> anyhow::Result<PipeLoop> {
        let (r, w) = pipe()?;
        let mut out = [0u8; PIPE_BLOCK];
        for (i, b) in out.iter_mut().enumerate() {
            *b = i as u8;
        }
        Ok(PipeLoop {
            r,
            w,
            out,
            back: [0; PIPE_BLOCK],
        })
    }

    /// `n` round trips; checks the bytes came back unchanged.
    pub fn round_trips(&mut self, n: u64) -> anyhow::Result<()> {
        for i in 0..n {
            self.out[0] = i as u8;
            self.w.write_all(&self.out)?;
            self.r.read_exact(&mut self.back)?;
            anyhow::ensure!(self.back == self.out, "pipe returned different bytes");
        }
        Ok(())
    }
}

/// Two threads passing a counter back and forth over two pipes.
pub struct PingPong {
    to: Option<File>,
    from: File,
    counter: u64,
    partner: Option<JoinHandle<()>>,
}

impl PingPong {
    pub fn new() -> anyhow::Result<PingPong> {
        let (to_r, to_w) = pipe()?;
        let (from_r, from_w) = pipe()?;
        let partner = std::thread::Builder::new()
            .name("candor-pong".into())
            .spawn(move || {
                let (mut r, mut w) = (to_r, from_w);
                let mut buf = [0u8; 8];
                // Ends at EOF, when the worker drops its write end.
                while r.read_exact(&mut buf).is_ok() {
                    let next = u64::from_le_bytes(buf).wrapping_add(1);
                    if w.write_all(&next.to_le_bytes()).is_err() {
                        break;
                    }
                }
            })?;
        Ok(PingPong {
            to: Some(to_w),
            from: from_r,
            counter: 0,
            partner: Some(partner),
        })
    }

    /// `n` round trips; each must come back incremented by one.
    pub fn round_trips(&mut self, n: u64) -> anyhow::Result<()> {
        let to = self.to.as_mut().expect("open until drop");
        let mut buf = [0u8; 8];
        for _ in 0..n {
            to.write_all(&self.counter.to_le_bytes())?;
            self.from.read_exact(&mut buf)?;
            let got = u64::from_le_bytes(buf);
            anyhow::ensure!(
                got == self.counter.wrapping_add(1),
                "ping-pong counter {got}, expected {}",
                self.counter + 1
            );
            self.counter = got.wrapping_add(1);
        }
        Ok(())
    }
}

impl Drop for PingPong {
    fn drop(&mut self) {
        self.to.take(); // EOF for the partner
        if let Some(p) = self.partner.take() {
            let _ = p.join();
        }
    }
}

/// The trivial program `spawn` starts.
pub fn true_program() -> Option<&'static str> {
    ["/bin/true", "/usr/bin/true"]
        .into_iter()
        .find(|p| std::path::Path::new(p).exists())
}

/// Starts `program` and waits for it; it must exit 0.
pub fn spawn_and_wait(program: &str) -> anyhow::Result<()> {
    use std::process::{Command, Stdio};
    let status = Command::new(program)
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .status()
        .map_err(|e| anyhow::anyhow!("cannot start {program}: {e}"))?;
    anyhow::ensure!(status.success(), "{program} exited with {status}");
    Ok(())
}

type Work = Box<dyn FnMut() -> anyhow::Result<u64>>;

fn work(test: &str, program: &'static str) -> anyhow::Result<Work> {
    Ok(match test {
        "syscall" => Box::new(|| {
            syscalls(SYSCALL_BATCH);
            Ok(SYSCALL_BATCH)
        }),
        "pipe" => {
            let mut p = PipeLoop::new()?;
            Box::new(move || {
                p.round_trips(PIPE_BATCH)?;
                Ok(PIPE_BATCH)
            })
        }
        "context-switch" => {
            let mut p = PingPong::new()?;
            Box::new(move || {
                p.round_trips(PINGPONG_BATCH)?;
                Ok(PINGPONG_BATCH)
            })
        }
        _ => Box::new(move || {
            spawn_and_wait(program)?;
            Ok(1)
        }),
    })
}

pub fn run(options: &ComputeOptions) -> anyhow::Result<Vec<ComputeMeasurement>> {
    let program = true_program();
    let mut out = Vec::new();
    for test in ["syscall", "pipe", "context-switch", "spawn"] {
        if test == "spawn" && program.is_none() {
            // Nothing to measure with; the other tests stand on their own.
            continue;
        }
        let program = program.unwrap_or("/bin/true");
        for threads in options.threads.counts() {
            crate::cancel::check()?;
            let timed = run_timed(threads, options.runtime, |_| work(test, program))?;
            let (p, notes): (_, Vec<String>) = match test {
                "syscall" => (
                    params([("syscall", "getppid".into())]),
                    vec!["raw getppid system calls per second: the cost of entering and leaving the kernel (raised by CPU-vulnerability mitigations and some hypervisors); not the cost of any real work".into()],
                ),
                "pipe" => (
                    params([("block_size", (PIPE_BLOCK as u64).into())]),
                    vec![format!("one thread writes {PIPE_BLOCK} bytes into a pipe and reads them back: round trips per second, as UnixBench's Pipe Throughput (lps); bytes/s = round trips x {PIPE_BLOCK}; syscall-bound, not a bulk-copy bandwidth")],
                ),
                "context-switch" => (
                    params([("threads_per_pair", 2.into()), ("transport", "pipe".into())]),
                    vec!["two threads pass a counter over two pipes: round trips per second (each is two context switches), as UnixBench's Pipe-based Context Switching; `threads` counts pairs".into()],
                ),
                _ => (
                    params([("program", program.into())]),
                    vec![format!("start {program} and wait for it: processes per second (fork, exec, exit, wait); the child's CPU time is not in cpu.usr/sys")],
                ),
            };
            let mut m = measurement(test, options.runtime, p, &timed, Headline::Ops, 1.0, notes);
            if test == "pipe" {
                m.bytes_per_sec = m.ops_per_sec.map(|o| o * PIPE_BLOCK as f64);
            }
            out.push(m);
        }
    }
    Ok(out)
}
