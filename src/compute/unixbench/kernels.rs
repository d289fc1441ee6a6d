//! One pass of each UnixBench test, as one copy runs it: what it repeats,
//! what it counts. Written from UnixBench's descriptions of its programs
//! (syscall.c, pipe.c, context1.c, spawn.c, execl.c, fstime.c, looper.c and
//! tst.sh); none of their code. Every loop ends at its deadline or at Ctrl-C.

use super::workdir::WorkDir;
use crate::compute::os::{PingPong, PipeLoop};
use std::fs::File;
use std::io::{Read, Seek, SeekFrom, Write};
use std::os::fd::AsRawFd;
use std::path::Path;
use std::time::{Duration, Instant};

/// What one copy counted in one pass: loops (lps, lpm) or a rate (KBps), and its time.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct CopyCount {
    pub count: f64,
    pub elapsed: Duration,
}

/// Iterations between clock checks in the cheap loops.
const CHECK_EVERY: u64 = 1000;

fn stopped(deadline: Instant) -> bool {
    Instant::now() >= deadline || crate::cancel::cancelled()
}

/// Repeats `step` in batches of CHECK_EVERY until the deadline.
fn counted(
    pass: Duration,
    mut step: impl FnMut() -> anyhow::Result<()>,
) -> anyhow::Result<CopyCount> {
    let start = Instant::now();
    let deadline = start + pass;
    let mut n = 0u64;
    loop {
        for _ in 0..CHECK_EVERY {
            step()?;
        }
        n += CHECK_EVERY;
        if stopped(deadline) {
            break;
        }
    }
    crate::cancel::check()?;
    Ok(CopyCount {
        count: n as f64,
        elapsed: start.elapsed(),
    })
}

/// System Call Overhead, UnixBench's default "mix": per loop, close(dup(fd)),
/// getpid (raw, uncached), getuid and umask. The umask written is the one
/// already in force, so the process's umask never changes.
pub fn syscall(pass: Duration) -> anyhow::Result<CopyCount> {
    let fd = File::open("/dev/null")?;
    // SAFETY: umask only swaps the process's file mode mask; it is put back at once.
    let mask = unsafe {
        let m = libc::umask(0o022);
        libc::umask(m);
        m
    };
    counted(pass, || {
        // SAFETY: plain system calls on a descriptor this function owns.
        unsafe {
            let d = libc::dup(fd.as_raw_fd());
            anyhow::ensure!(d >= 0, "dup: {}", std::io::Error::last_os_error());
            libc::close(d);
            libc::syscall(libc::SYS_getpid);
            libc::getuid();
            libc::umask(mask);
        }
        Ok(())
    })
}

/// Pipe Throughput: write 512 bytes into a pipe and read them back, one loop each.
pub fn pipe(pass: Duration) -> anyhow::Result<CopyCount> {
    let mut p = PipeLoop::new()?;
    counted(pass, || p.round_trips(1))
}

/// Pipe-based Context Switching: a counter passed to a partner and back over two pipes.
pub fn context1(pass: Duration) -> anyhow::Result<CopyCount> {
    let mut p = PingPong::new()?;
    counted(pass, || p.round_trips(1))
}

/// Process Creation: fork, the child exits at once, the parent waits (no exec).
pub fn spawn(pass: Duration) -> anyhow::Result<CopyCount> {
    let start = Instant::now();
    let deadline = start + pass;
    let mut n = 0u64;
    while !stopped(deadline) {
        // SAFETY: the child calls only _exit, which is async-signal-safe, so
        // forking this multi-threaded process is sound.
        let pid = unsafe { libc::fork() };
        if pid == 0 {
            unsafe { libc::_exit(0) };
        }
        anyhow::ensure!(pid > 0, "fork: {}", std::io::Error::last_os_error());
        let mut status = 0;
        // SAFETY: waits for the child just forked.
        let r = unsafe { libc::waitpid(pid, &mut status, 0) };
        anyhow::ensure!(r == pid && status == 0, "child {pid}: wait status {status}");
        n += 1;
    }
    crate::cancel::check()?;
    Ok(CopyCount {
        count: n as f64,
        elapsed: start.elapsed(),
    })
}

/// Execl Throughput: candor's own binary exec'ing itself until the pass is
/// over (`candor --unixbench-execl`, see `execl.rs`); the count is its execs.
pub fn execl(pass: Duration) -> anyhow::Result<CopyCount> {
    let exe = std::env::current_exe()?;
    let start = Instant::now();
    let output = std::process::Command::new(&exe)
        .arg(super::execl::FLAG)
        .arg(pass.as_nanos().to_string())
        .stdin(std::process::Stdio::null())
        .stderr(std::process::Stdio::inherit())
        .output()
        .map_err(|e| anyhow::anyhow!("cannot start {}: {e}", exe.display()))?;
    let elapsed = start.elapsed();
    crate::cancel::check()?;
    anyhow::ensure!(
        output.status.success(),
        "the execl chain exited with {}",
        output.status
    );
    let text = String::from_utf8_lossy(&output.stdout);
    let count: u64 = text
        .trim()
        .parse()
        .map_err(|_| anyhow::anyhow!("the execl chain printed '{}', not a count", text.trim()))?;
    Ok(CopyCount {
        count: count as f64,
        elapsed,
    })
}

/// File Copy: two files of `max_blocks` KiB in `dir`; 2 s of writing the
/// first and 2 s of reading it (UnixBench's warm-up, which also puts it in
/// the page cache), then the timed pass reads it `bufsize` bytes at a time
/// into the second, both rewound at the first's end. The count is KiB/s
/// copied. UnixBench syncs before each phase; so does this.
pub fn file_copy(
    dir: &WorkDir,
    copy: u32,
    bufsize: usize,
    max_blocks: u64,
    pass: Duration,
) -> anyhow::Result<CopyCount> {
    let (from, to) = (format!("copy{copy}-from"), format!("copy{copy}-to"));
    let result = copy_files(dir, &from, &to, bufsize, max_blocks, pass);
    let removed = dir.remove(&from).and(dir.remove(&to));
    let count = result?;
    removed?;
    Ok(count)
}

fn copy_files(
    dir: &WorkDir,
    from: &str,
    to: &str,
    bufsize: usize,
    max_blocks: u64,
    pass: Duration,
) -> anyhow::Result<CopyCount> {
    let mut src = dir.file(from)?;
    let mut dst = dir.file(to)?;
    let buf: Vec<u8> = (0..bufsize).map(|i| i as u8).collect();
    let buffers = max_blocks * 1024 / bufsize as u64;
    // SAFETY: sync has no arguments and cannot fail.
    unsafe { libc::sync() };
    let warm = Instant::now() + Duration::from_secs(2).min(pass);
    while !stopped(warm) {
        src.seek(SeekFrom::Start(0))?;
        for _ in 0..buffers {
            src.write_all(&buf)?;
        }
    }
    unsafe { libc::sync() };
    let mut back = vec![0u8; bufsize];
    let warm = Instant::now() + Duration::from_secs(2).min(pass);
    src.seek(SeekFrom::Start(0))?;
    while !stopped(warm) {
        if read_full(&mut src, &mut back)? < bufsize {
            src.seek(SeekFrom::Start(0))?;
        }
    }
    unsafe { libc::sync() };
    crate::cancel::check()?;
    src.seek(SeekFrom::Start(0))?;
    let start = Instant::now();
    let deadline = start + pass;
    let mut bytes = 0u64;
    while !stopped(deadline) {
        if read_full(&mut src, &mut back)? < bufsize {
            src.seek(SeekFrom::Start(0))?;
            dst.seek(SeekFrom::Start(0))?;
            continue;
        }
        dst.write_all(&back)?;
        bytes += bufsize as u64;
    }
    let elapsed = start.elapsed();
    crate::cancel::check()?;
    Ok(CopyCount {
        count: bytes as f64 / 1024.0 / elapsed.as_secs_f64().max(1e-9),
        elapsed,
    })
}

/// Reads until `buf` is full or the file ends; the bytes read.
fn read_full(f: &mut File, buf: &mut [u8]) -> std::io::Result<usize> {
    let mut got = 0;
    while got < buf.len() {
        match f.read(&mut buf[got..])? {
            0 => break,
            n => got += n,
        }
    }
    Ok(got)
}

/// What one shell script does, as UnixBench's tst.sh: sort the input, od the
/// sorted file and sort that numerically, grep "the" through tee into wc,
/// then remove its files. `$1` is the input, `$2` a name unique to the script.
const SCRIPT: &str = "sort > s.$2 < \"$1\"\nod s.$2 | sort -n -k 1 > o.$2\ngrep the s.$2 | tee g.$2 | wc > w.$2\nrm s.$2 g.$2 o.$2 w.$2\n";

/// The tools the shell scripts run (besides /bin/sh).
pub const SHELL_TOOLS: [&str; 6] = ["sort", "od", "grep", "tee", "wc", "rm"];

/// Shell Scripts: `concurrent` scripts started together by /bin/sh and waited
/// for, as many times as the pass allows; the count is those rounds (UnixBench's
/// looper over multi.sh), reported per minute.
pub fn shell(
    dir: &WorkDir,
    copy: u32,
    concurrent: u32,
    pass: Duration,
) -> anyhow::Result<CopyCount> {
    let input = dir.path().join("input.txt");
    let script = dir.path().join("script.sh");
    let round = format!(
        "i=1; while [ $i -le {concurrent} ]; do /bin/sh \"{}\" \"{}\" c{copy}i$i & i=$((i+1)); done; wait",
        script.display(),
        input.display()
    );
    let start = Instant::now();
    let deadline = start + pass;
    let mut n = 0u64;
    while !stopped(deadline) {
        let status = std::process::Command::new("/bin/sh")
            .arg("-c")
            .arg(&round)
            .current_dir(dir.path())
            .stdin(std::process::Stdio::null())
            .stdout(std::process::Stdio::null())
            .status()
            .map_err(|e| anyhow::anyhow!("cannot start /bin/sh: {e}"))?;
        anyhow::ensure!(
            status.success(),
            "a shell-script round exited with {status}"
        );
        n += 1;
    }
    crate::cancel::check()?;
    Ok(CopyCount {
        count: n as f64,
        elapsed: start.elapsed(),
    })
}

/// Writes the shell tests' script and input (8,546 bytes of seeded words in
/// lines, some with "the": the size of UnixBench's sort.src) into `dir`.
pub fn shell_files(dir: &WorkDir) -> anyhow::Result<()> {
    dir.file("script.sh")?.write_all(SCRIPT.as_bytes())?;
    dir.file("input.txt")?.write_all(&shell_input(8546))?;
    Ok(())
}

/// `len` bytes of lines of words from a fixed seed.
pub fn shell_input(len: usize) -> Vec<u8> {
    const WORDS: [&str; 16] = [
        "the", "cd", "echo", "then", "fi", "BINDIR", "export", "path", "umask", "other", "while",
        "done", "test", "version", "theory", "x",
    ];
    let mut state: u64 = 0x9e37_79b9_7f4a_7c15;
    let mut out = Vec::with_capacity(len + 16);
    let mut col = 0;
    while out.len() < len {
        state ^= state << 13;
        state ^= state >> 7;
        state ^= state << 17;
        let w = WORDS[(state % WORDS.len() as u64) as usize];
        out.extend_from_slice(w.as_bytes());
        col += w.len() + 1;
        if col > 40 + (state >> 60) as usize {
            out.push(b'\n');
            col = 0;
        } else {
            out.push(b' ');
        }
    }
    out.truncate(len - 1);
    out.push(b'\n');
    out
}

/// Whether `name` is an executable file on PATH (for the shell tools).
pub fn on_path(name: &str) -> bool {
    std::env::var_os("PATH")
        .is_some_and(|paths| std::env::split_paths(&paths).any(|d| is_executable(&d.join(name))))
}

fn is_executable(p: &Path) -> bool {
    use std::os::unix::fs::PermissionsExt;
    p.metadata()
        .is_ok_and(|m| m.is_file() && m.permissions().mode() & 0o111 != 0)
}
