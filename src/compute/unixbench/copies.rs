//! One pass of a UnixBench test with N copies, each copy a process of its
//! own as UnixBench's `Run` makes them (candor re-executed with the hidden
//! `--unixbench-copy`, see `copy.rs`), started together: every copy is
//! loaded and has said `ready` before any gate opens.
//!
//! Nothing outlives the pass. Each copy leads a process group of its own
//! (its shell scripts, execl chain and forks belong to it) and dies with
//! the thread that started it (PR_SET_PDEATHSIG). The first SIGINT, SIGTERM
//! or SIGHUP candor gets is passed on to every copy's group (a Ctrl-C at
//! the terminal reaches candor alone, the copies being in groups of their
//! own), and a copy still running 5 s later is killed. A copy that fails,
//! or dies, stops the others and is the pass's error, in one line. File
//! Copy's files are made here and handed to the copies as descriptors, and
//! removed here; the files a killed shell script leaves are removed by name.

use super::catalogue::Test;
use super::kernels::{self, CopyCount};
use super::workdir::WorkDir;
use std::fs::File;
use std::os::fd::{AsRawFd, OwnedFd};
use std::os::unix::process::CommandExt;
use std::path::PathBuf;
use std::process::{Child, ChildStdin, Command, ExitStatus, Stdio};
use std::time::{Duration, Instant};

/// How long stopped copies get to end before they are killed.
const GRACE: Duration = Duration::from_secs(5);
/// How often the parent looks at its copies and at the signal flag.
const TICK_MS: i32 = 50;
/// The most of a copy's stderr kept for its error line.
const KEPT_STDERR: usize = 4096;

/// The binary to re-execute: this very file, even if it was replaced on
/// disk since candor started (/proc/self/exe), else the path it ran from.
pub fn own_binary() -> anyhow::Result<PathBuf> {
    let proc = PathBuf::from("/proc/self/exe");
    if proc.exists() {
        return Ok(proc);
    }
    std::env::current_exe().map_err(|e| anyhow::anyhow!("cannot find candor's own binary: {e}"))
}

/// Runs one pass of `test` with `copies` processes started together; each copy's count.
pub fn one_pass(
    test: &Test,
    copies: u32,
    pass: Duration,
    dir: Option<&WorkDir>,
) -> anyhow::Result<Vec<CopyCount>> {
    let mut made = Vec::new();
    let mut group = Copies::default();
    let result = start_and_wait(test, copies, pass, dir, &mut group, &mut made);
    // Kills (and reaps) whatever still runs, before its files are removed.
    drop(group);
    let mut removed = Ok(());
    if let Some(d) = dir {
        for name in &made {
            removed = removed.and(d.remove(name));
        }
        if test.name.starts_with("shell") {
            let concurrent = if test.name == "shell8" { 8 } else { 1 };
            for copy in 0..copies {
                for name in kernels::script_files(copy, concurrent) {
                    removed = removed.and(d.remove_left_by_script(&name));
                }
            }
        }
    }
    let counts = result?;
    removed?;
    Ok(counts)
}

fn start_and_wait(
    test: &Test,
    copies: u32,
    pass: Duration,
    dir: Option<&WorkDir>,
    group: &mut Copies,
    made: &mut Vec<String>,
) -> anyhow::Result<Vec<CopyCount>> {
    let exe = own_binary()?;
    for copy in 0..copies {
        let files = if test.name.starts_with("fs") {
            let d = dir.ok_or_else(|| anyhow::anyhow!("no work directory"))?;
            let (from, to) = (format!("copy{copy}-from"), format!("copy{copy}-to"));
            let from_file = d.file(&from)?;
            made.push(from);
            let to_file = d.file(&to)?;
            made.push(to);
            vec![from_file, to_file]
        } else {
            Vec::new()
        };
        let mut command = Command::new(&exe);
        command
            .arg(super::copy::FLAG)
            .arg(test.name)
            .arg(pass.as_nanos().to_string())
            .arg(copy.to_string());
        if let Some(d) = dir {
            command.arg(d.path());
        }
        let child = spawn(command, &files)
            .map_err(|e| anyhow::anyhow!("cannot start copy {}: {e}", copy + 1))?;
        group.add(child, copy + 1, copies)?;
    }
    group.wait_until_ready()?;
    group.open_the_gates();
    group.wait_until_done()
}

/// Starts one copy: its own process group, killed with this thread, File
/// Copy's files as descriptors 3 and 4.
fn spawn(mut command: Command, files: &[File]) -> std::io::Result<Child> {
    // Above the targets, so that no dup2 overwrites a descriptor still to be moved.
    let high: Vec<OwnedFd> = files
        .iter()
        .map(|f| {
            // SAFETY: F_DUPFD_CLOEXEC makes a new descriptor; it is owned below.
            let fd = unsafe { libc::fcntl(f.as_raw_fd(), libc::F_DUPFD_CLOEXEC, 16) };
            if fd < 0 {
                return Err(std::io::Error::last_os_error());
            }
            Ok(unsafe { std::os::fd::FromRawFd::from_raw_fd(fd) })
        })
        .collect::<std::io::Result<_>>()?;
    let fds: Vec<i32> = high.iter().map(AsRawFd::as_raw_fd).collect();
    let parent = std::process::id() as libc::pid_t;
    command
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .process_group(0);
    // SAFETY: prctl, getppid and dup2 are async-signal-safe and touch only the new process.
    unsafe {
        command.pre_exec(move || {
            libc::prctl(libc::PR_SET_PDEATHSIG, libc::SIGKILL);
            if libc::getppid() != parent {
                return Err(std::io::Error::other(
                    "candor ended before the copy started",
                ));
            }
            for (i, &fd) in fds.iter().enumerate() {
                if libc::dup2(fd, super::copy::FILE_FD + i as i32) < 0 {
                    return Err(std::io::Error::last_os_error());
                }
            }
            Ok(())
        });
    }
    command.spawn()
}

/// The copies of one pass, and what each has said.
#[derive(Default)]
struct Copies {
    copies: Vec<Running>,
    /// When the copies were told to stop (a signal or a failed copy).
    stopping: Option<Instant>,
}

struct Running {
    child: Child,
    /// "copy 2 of 4", for messages.
    name: String,
    gate: Option<ChildStdin>,
    out: Stream,
    err: Stream,
    /// Set once the process has ended (not yet reaped: its group stays its own).
    ended: bool,
}

impl Copies {
    fn add(&mut self, mut child: Child, number: u32, of: u32) -> anyhow::Result<()> {
        let out = Stream::new(child.stdout.take().map(OwnedFd::from))?;
        let err = Stream::new(child.stderr.take().map(OwnedFd::from))?;
        self.copies.push(Running {
            gate: child.stdin.take(),
            child,
            name: format!("copy {number} of {of}"),
            out,
            err,
            ended: false,
        });
        Ok(())
    }

    /// Until every copy has said `ready`; a copy that ends first is an error.
    fn wait_until_ready(&mut self) -> anyhow::Result<()> {
        loop {
            crate::cancel::check()?;
            if let Some(c) = self.copies.iter().find(|c| c.ended) {
                return Err(c.failure());
            }
            if self
                .copies
                .iter()
                .all(|c| c.out.text.starts_with(b"ready\n"))
            {
                return Ok(());
            }
            self.tick()?;
        }
    }

    /// Closes every gate, one after the other (microseconds apart).
    fn open_the_gates(&mut self) {
        for c in &mut self.copies {
            c.gate.take();
        }
    }

    /// Until every copy has ended; their counts, or the first failure.
    fn wait_until_done(&mut self) -> anyhow::Result<Vec<CopyCount>> {
        let mut failure: Option<anyhow::Error> = None;
        while !self.copies.iter().all(|c| c.ended) {
            if failure.is_none() && !crate::cancel::cancelled() {
                if let Some(c) = self.copies.iter().find(|c| c.ended && c.count().is_err()) {
                    failure = Some(c.failure());
                    self.stop(libc::SIGTERM);
                }
            }
            if let Some(sig) = crate::cancel::signal() {
                self.stop(sig);
            }
            if self.stopping.is_some_and(|at| at.elapsed() > GRACE) {
                self.kill_all();
            }
            self.tick()?;
        }
        crate::cancel::check()?;
        // The last copy to end may have ended without its count in the
        // tick that ended the loop: its cause, not a bare "no count".
        if failure.is_none() {
            failure = self
                .copies
                .iter()
                .find(|c| c.count().is_err())
                .map(Running::failure);
        }
        if let Some(e) = failure {
            return Err(e);
        }
        self.copies.iter().map(Running::count).collect()
    }

    /// Passes `sig` to every copy's process group, once.
    fn stop(&mut self, sig: i32) {
        if self.stopping.is_some() {
            return;
        }
        self.stopping = Some(Instant::now());
        for c in &self.copies {
            // SAFETY: signals the copy's own group; the copy is not reaped
            // yet, so its group id cannot belong to anyone else.
            unsafe { libc::kill(-(c.child.id() as libc::pid_t), sig) };
        }
    }

    fn kill_all(&mut self) {
        for c in &self.copies {
            // SAFETY: as in `stop`.
            unsafe { libc::kill(-(c.child.id() as libc::pid_t), libc::SIGKILL) };
        }
    }

    /// Waits up to a tick for output, reads it, and notes the copies that ended.
    fn tick(&mut self) -> anyhow::Result<()> {
        let mut polled: Vec<libc::pollfd> = Vec::new();
        for c in &self.copies {
            for s in [&c.out, &c.err] {
                if let Some(fd) = &s.fd {
                    polled.push(libc::pollfd {
                        fd: fd.as_raw_fd(),
                        events: libc::POLLIN,
                        revents: 0,
                    });
                }
            }
        }
        // SAFETY: poll reads and writes the array it is given, of that length.
        let n = unsafe { libc::poll(polled.as_mut_ptr(), polled.len() as libc::nfds_t, TICK_MS) };
        if n < 0 && std::io::Error::last_os_error().kind() != std::io::ErrorKind::Interrupted {
            anyhow::bail!("poll: {}", std::io::Error::last_os_error());
        }
        let ready: Vec<i32> = polled
            .iter()
            .filter(|p| p.revents != 0)
            .map(|p| p.fd)
            .collect();
        for c in &mut self.copies {
            if c.out
                .fd
                .as_ref()
                .is_some_and(|fd| ready.contains(&fd.as_raw_fd()))
            {
                c.out.drain(usize::MAX);
            }
            if c.err
                .fd
                .as_ref()
                .is_some_and(|fd| ready.contains(&fd.as_raw_fd()))
            {
                c.err.drain(KEPT_STDERR);
            }
            if !c.ended && peek_status(c.child.id())?.is_some() {
                c.ended = true;
                // What it wrote before it ended is in the pipes; its
                // children may hold them open longer, so they are closed here.
                c.out.drain(usize::MAX);
                c.err.drain(KEPT_STDERR);
                c.out.fd = None;
                c.err.fd = None;
            }
        }
        Ok(())
    }
}

impl Drop for Copies {
    /// Kills each copy's group (what a copy that died left behind in it, or
    /// a copy still running after an error) and reaps the copies.
    fn drop(&mut self) {
        self.kill_all();
        for c in &mut self.copies {
            let _ = c.child.wait();
        }
    }
}

impl Running {
    /// Its count and time, from `COUNT ELAPSED_NS` after `ready`.
    fn count(&self) -> anyhow::Result<CopyCount> {
        let text = String::from_utf8_lossy(&self.out.text);
        let line = text.lines().nth(1).unwrap_or("");
        let mut words = line.split_whitespace();
        let (Some(count), Some(ns), None) = (words.next(), words.next(), words.next()) else {
            anyhow::bail!("no count");
        };
        Ok(CopyCount {
            count: count.parse()?,
            elapsed: Duration::from_nanos(ns.parse()?),
        })
    }

    /// Why it ended without a count, in one line.
    fn failure(&self) -> anyhow::Error {
        let status = self.status();
        let said = String::from_utf8_lossy(&self.err.text);
        let last = said
            .lines()
            .rev()
            .find(|l| !l.trim().is_empty())
            .map(|l| l.trim().trim_start_matches("candor: error: ").to_string());
        use std::os::unix::process::ExitStatusExt;
        let cause = match (status.and_then(|s| s.signal()), last) {
            (Some(sig), _) => format!("was killed by {}", signal_name(sig)),
            (None, Some(line)) => format!("failed: {line}"),
            (None, None) => match status.and_then(|s| s.code()) {
                Some(0) => "ended without printing its count".to_string(),
                Some(code) => format!("exited with status {code}"),
                None => "ended".to_string(),
            },
        };
        anyhow::anyhow!("{} {cause}", self.name)
    }

    fn status(&self) -> Option<ExitStatus> {
        peek_status(self.child.id()).ok().flatten()
    }
}

/// The exit status of `pid` (a child) if it has ended, without reaping it:
/// until it is reaped, its process group id cannot be anyone else's.
fn peek_status(pid: u32) -> anyhow::Result<Option<ExitStatus>> {
    use std::os::unix::process::ExitStatusExt;
    // SAFETY: siginfo_t is plain data that waitid fills.
    let mut info: libc::siginfo_t = unsafe { std::mem::zeroed() };
    // SAFETY: WNOWAIT leaves the process unreaped.
    let r = unsafe {
        libc::waitid(
            libc::P_PID,
            pid,
            &mut info,
            libc::WEXITED | libc::WNOHANG | libc::WNOWAIT,
        )
    };
    anyhow::ensure!(r == 0, "waitid: {}", std::io::Error::last_os_error());
    // SAFETY: waitid filled the fields of a child's state change.
    let (who, value) = unsafe { (info.si_pid(), info.si_status()) };
    if who == 0 {
        return Ok(None);
    }
    Ok(Some(match info.si_code {
        libc::CLD_EXITED => ExitStatus::from_raw((value & 0xff) << 8),
        _ => ExitStatus::from_raw(value & 0x7f),
    }))
}

/// A signal's name, for "was killed by SIGKILL".
fn signal_name(sig: i32) -> String {
    match sig {
        libc::SIGKILL => "SIGKILL".into(),
        libc::SIGTERM => "SIGTERM".into(),
        libc::SIGINT => "SIGINT".into(),
        libc::SIGHUP => "SIGHUP".into(),
        libc::SIGSEGV => "SIGSEGV".into(),
        libc::SIGBUS => "SIGBUS".into(),
        libc::SIGABRT => "SIGABRT".into(),
        libc::SIGPIPE => "SIGPIPE".into(),
        other => format!("signal {other}"),
    }
}

/// A copy's stdout or stderr: read without blocking, kept in memory.
struct Stream {
    fd: Option<OwnedFd>,
    text: Vec<u8>,
}

impl Stream {
    fn new(fd: Option<OwnedFd>) -> anyhow::Result<Stream> {
        if let Some(fd) = &fd {
            // SAFETY: sets O_NONBLOCK on a pipe this process owns.
            unsafe {
                let flags = libc::fcntl(fd.as_raw_fd(), libc::F_GETFL);
                libc::fcntl(fd.as_raw_fd(), libc::F_SETFL, flags | libc::O_NONBLOCK);
            }
        }
        Ok(Stream {
            fd,
            text: Vec::new(),
        })
    }

    /// Reads what is there; keeps at most the last `keep` bytes.
    fn drain(&mut self, keep: usize) {
        let Some(fd) = &self.fd else { return };
        let mut buf = [0u8; 4096];
        loop {
            // SAFETY: reads into a buffer of the length given.
            let n = unsafe { libc::read(fd.as_raw_fd(), buf.as_mut_ptr().cast(), buf.len()) };
            if n > 0 {
                self.text.extend_from_slice(&buf[..n as usize]);
                if self.text.len() > keep {
                    self.text.drain(..self.text.len() - keep);
                }
                continue;
            }
            let e = std::io::Error::last_os_error();
            if n < 0 && e.kind() == std::io::ErrorKind::Interrupted {
                continue;
            }
            if n == 0 || e.kind() != std::io::ErrorKind::WouldBlock {
                self.fd = None;
            }
            return;
        }
    }
}
