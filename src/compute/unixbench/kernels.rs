//! One pass of each UnixBench test, as one copy runs it: what it repeats,
//! what it counts. Written from UnixBench's descriptions of its programs
//! (syscall.c, pipe.c, context1.c, spawn.c, execl.c, fstime.c, looper.c and
//! tst.sh); none of their code. Every loop ends at its deadline or at Ctrl-C.

use super::workdir::WorkDir;
use crate::compute::os::PIPE_BLOCK;
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
/// Buffers copied between clock checks in File Copy's timed loop (at most
/// 256 KiB past the pass's end with 4 KiB buffers).
const COPY_CHECK: u32 = 64;

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

/// Pipe Throughput: write 512 bytes into a pipe and read them back, one
/// loop each, as UnixBench's pipe does: one write(2) and one read(2) of 512
/// bytes, each of which must move all 512. The bytes read are compared with
/// those written once at the end, not in every loop: UnixBench compares
/// none, and a 512-byte compare per loop was about 2 % of candor's time.
pub fn pipe(pass: Duration) -> anyhow::Result<CopyCount> {
    let (r, w) = crate::compute::os::pipe()?;
    let (r, w) = (r.as_raw_fd(), w.as_raw_fd());
    let mut out = [0u8; PIPE_BLOCK];
    for (i, b) in out.iter_mut().enumerate() {
        *b = i as u8;
    }
    let mut back = [0u8; PIPE_BLOCK];
    let count = counted(pass, || {
        // SAFETY: write and read on this function's pipe, with buffers of the length given.
        let (wrote, read) = unsafe {
            (
                libc::write(w, out.as_ptr().cast(), PIPE_BLOCK),
                libc::read(r, back.as_mut_ptr().cast(), PIPE_BLOCK),
            )
        };
        anyhow::ensure!(
            wrote == PIPE_BLOCK as isize && read == PIPE_BLOCK as isize,
            "pipe: wrote {wrote} and read {read} of {PIPE_BLOCK} bytes: {}",
            std::io::Error::last_os_error()
        );
        Ok(())
    })?;
    anyhow::ensure!(back == out, "pipe returned different bytes");
    Ok(count)
}

/// Pipe-based Context Switching: a counter written to a partner process
/// over one pipe and read back over another, each side checking it is the
/// number it expects. The partner is forked, as UnixBench's context1 forks
/// it: a switch between two processes changes address space, a switch
/// between two threads of one process (the `os` group's context-switch) does not.
pub fn context1(pass: Duration) -> anyhow::Result<CopyCount> {
    let mut partner = Partner::start()?;
    let mut counter = 0u64;
    counted(pass, || {
        partner.round_trip(counter)?;
        counter += 1;
        Ok(())
    })
}

/// context1's partner process and the two pipes to it.
struct Partner {
    pid: libc::pid_t,
    to: Option<File>,
    from: File,
}

impl Partner {
    fn start() -> anyhow::Result<Partner> {
        let (to_r, to_w) = crate::compute::os::pipe()?;
        let (from_r, from_w) = crate::compute::os::pipe()?;
        // SAFETY: the child calls only close, read, write and _exit, which
        // are async-signal-safe, so forking a multi-threaded process is sound.
        let pid = unsafe { libc::fork() };
        if pid == 0 {
            unsafe {
                libc::close(to_w.as_raw_fd());
                libc::close(from_r.as_raw_fd());
                echo(to_r.as_raw_fd(), from_w.as_raw_fd())
            }
        }
        anyhow::ensure!(pid > 0, "fork: {}", std::io::Error::last_os_error());
        Ok(Partner {
            pid,
            to: Some(to_w),
            from: from_r,
        })
    }

    /// Writes `n`, reads it back from the partner.
    fn round_trip(&mut self, n: u64) -> anyhow::Result<()> {
        let to = self.to.as_mut().expect("open until drop");
        to.write_all(&n.to_ne_bytes())?;
        let mut back = [0u8; 8];
        self.from.read_exact(&mut back)?;
        let got = u64::from_ne_bytes(back);
        anyhow::ensure!(got == n, "context1: the partner sent {got}, expected {n}");
        Ok(())
    }
}

impl Drop for Partner {
    fn drop(&mut self) {
        self.to.take(); // the partner reads the end of the stream and exits
        let mut status = 0;
        // SAFETY: waits for the partner this value forked.
        unsafe { libc::waitpid(self.pid, &mut status, 0) };
    }
}

/// The partner's loop (in the forked child): read a number, check it is
/// the next one, write it back; exit 0 at the end of the stream, 1 on
/// anything else. Only async-signal-safe calls.
unsafe fn echo(from: libc::c_int, to: libc::c_int) -> ! {
    let mut expected = 0u64;
    let mut buf = [0u8; 8];
    let interrupted = || *libc::__errno_location() == libc::EINTR;
    loop {
        let r = libc::read(from, buf.as_mut_ptr().cast(), 8);
        if r < 0 && interrupted() {
            continue;
        }
        if r == 0 {
            libc::_exit(0);
        }
        if r != 8 || u64::from_ne_bytes(buf) != expected {
            libc::_exit(1);
        }
        let w = loop {
            let w = libc::write(to, buf.as_ptr().cast(), 8);
            if !(w < 0 && interrupted()) {
                break w;
            }
        };
        if w != 8 {
            libc::_exit(1);
        }
        expected += 1;
    }
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
/// The chain dies with this process (PR_SET_PDEATHSIG), and is killed at the
/// first signal: it would otherwise run to its end.
pub fn execl(pass: Duration) -> anyhow::Result<CopyCount> {
    use std::os::unix::process::CommandExt;
    let exe = super::copies::own_binary()?;
    let start = Instant::now();
    let mut command = std::process::Command::new(&exe);
    command
        .arg(super::execl::FLAG)
        .arg(pass.as_nanos().to_string())
        .stdin(std::process::Stdio::null())
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::inherit());
    // SAFETY: prctl is async-signal-safe and touches only the new process.
    unsafe {
        command.pre_exec(|| {
            libc::prctl(libc::PR_SET_PDEATHSIG, libc::SIGKILL);
            Ok(())
        });
    }
    let mut chain = command
        .spawn()
        .map_err(|e| anyhow::anyhow!("cannot start {}: {e}", exe.display()))?;
    let status = loop {
        if let Some(status) = chain.try_wait()? {
            break status;
        }
        if crate::cancel::cancelled() {
            let _ = chain.kill();
            let _ = chain.wait();
            crate::cancel::check()?;
        }
        std::thread::sleep(Duration::from_millis(20));
    };
    let elapsed = start.elapsed();
    crate::cancel::check()?;
    let mut text = String::new();
    chain
        .stdout
        .take()
        .expect("piped")
        .read_to_string(&mut text)?;
    anyhow::ensure!(status.success(), "the execl chain exited with {status}");
    let count: u64 = text
        .trim()
        .parse()
        .map_err(|_| anyhow::anyhow!("the execl chain printed '{}', not a count", text.trim()))?;
    Ok(CopyCount {
        count: count as f64,
        elapsed,
    })
}

/// File Copy: `src` and `dst` are two new, empty files (made by the parent
/// process in the work directory, see `copies.rs`); 2 s of writing
/// `max_blocks` KiB into `src` again and again and 2 s of reading it
/// (UnixBench's warm-up, which also puts it in the page cache), then the
/// timed pass reads it `bufsize` bytes at a time into `dst`, both rewound at
/// `src`'s end. The count is KiB/s copied. UnixBench syncs before each
/// phase; so does this.
pub fn file_copy(
    mut src: File,
    mut dst: File,
    bufsize: usize,
    max_blocks: u64,
    pass: Duration,
) -> anyhow::Result<CopyCount> {
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
    // The clock is read every COPY_CHECK buffers: a read of it per buffer
    // (tens of ns in a VM) was a few percent of a 4 KiB buffer's copy,
    // and UnixBench's loop reads none (an alarm stops it).
    loop {
        for _ in 0..COPY_CHECK {
            if read_full(&mut src, &mut back)? < bufsize {
                src.seek(SeekFrom::Start(0))?;
                dst.seek(SeekFrom::Start(0))?;
                continue;
            }
            dst.write_all(&back)?;
            bytes += bufsize as u64;
        }
        if stopped(deadline) {
            break;
        }
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
pub fn shell(dir: &Path, copy: u32, concurrent: u32, pass: Duration) -> anyhow::Result<CopyCount> {
    let input = dir.join("input.txt");
    let script = dir.join("script.sh");
    let round = format!(
        "i=1; while [ $i -le {concurrent} ]; do /bin/sh \"{}\" \"{}\" {}$i & i=$((i+1)); done; wait",
        script.display(),
        input.display(),
        script_name_prefix(copy)
    );
    let start = Instant::now();
    let deadline = start + pass;
    let mut n = 0u64;
    while !stopped(deadline) {
        let status = std::process::Command::new("/bin/sh")
            .arg("-c")
            .arg(&round)
            .current_dir(dir)
            .env("LANG", LANG)
            .stdin(std::process::Stdio::null())
            .stdout(std::process::Stdio::null())
            .status()
            .map_err(|e| anyhow::anyhow!("cannot start /bin/sh: {e}"))?;
        anyhow::ensure!(
            status.success(),
            "a shell-script round exited with {status} (a script could not start or failed: a process limit such as a pids cgroup or ulimit -u, or a tool that failed)"
        );
        n += 1;
    }
    crate::cancel::check()?;
    Ok(CopyCount {
        count: n as f64,
        elapsed: start.elapsed(),
    })
}

/// The LANG UnixBench's `Run` sets for every test, so that its shell
/// figures compare (sort and grep do more work in a UTF-8 locale); the shell
/// scripts run with it too. Where it is not installed, the tools run in the
/// C locale, as UnixBench's do there.
pub const LANG: &str = "en_US.utf8";

/// The locale the shell scripts' tools run in, in words: LANG's, or LC_ALL's
/// when the environment sets it (it overrides LANG, for UnixBench too).
pub fn shell_locale() -> String {
    if let Some(all) = std::env::var("LC_ALL").ok().filter(|v| !v.is_empty()) {
        return format!("LC_ALL={all} (over UnixBench's LANG={LANG})");
    }
    let name = std::ffi::CString::new(LANG).expect("no NUL");
    // SAFETY: newlocale reads a NUL-terminated name; the result is freed at once.
    let installed = unsafe {
        let l = libc::newlocale(libc::LC_ALL_MASK, name.as_ptr(), std::ptr::null_mut());
        if !l.is_null() {
            libc::freelocale(l);
        }
        !l.is_null()
    };
    if installed {
        format!("LANG={LANG}")
    } else {
        format!("LANG={LANG} (not installed here: the C locale)")
    }
}

/// The unique part of a script's file names: `c{copy}i` and the script's number.
fn script_name_prefix(copy: u32) -> String {
    format!("c{copy}i")
}

/// The files the scripts of `copy` make in the work directory (each script
/// removes its own; a script killed half-way, by a Ctrl-C that reaches the
/// whole process group, leaves some, which the parent removes by these names).
pub fn script_files(copy: u32, concurrent: u32) -> Vec<String> {
    let prefix = script_name_prefix(copy);
    (1..=concurrent)
        .flat_map(|i| ["s", "o", "g", "w"].map(|f| format!("{f}.{prefix}{i}")))
        .collect()
}

/// Writes the shell tests' script and input (`shell_input`) into `dir`.
pub fn shell_files(dir: &WorkDir) -> anyhow::Result<()> {
    dir.file("script.sh")?.write_all(SCRIPT.as_bytes())?;
    dir.file("input.txt")?.write_all(&shell_input())?;
    Ok(())
}

/// The shell scripts' input: seeded text shaped like UnixBench's sort.src
/// (a shell script it sorts), since its shape decides the tools' work:
/// 8,546 bytes in 362 lines, a quarter of the lines drawn from up to 6
/// bytes long, a quarter from 6 to 18, a quarter from 18 to 35 and a
/// quarter from 35 to 66, evened out to the total (sort.src's quartiles are
/// 6, 18 and 35 bytes, its longest line 82); one line in five a repeat of
/// an earlier one of its length (sort.src: 273 distinct lines of 362);
/// "the" in one line in ten (what grep keeps; 35 of sort.src's lines). The
/// words hold no other "the". Generated here: UnixBench's file is not copied.
pub fn shell_input() -> Vec<u8> {
    const BYTES: usize = 8546;
    const LINES: usize = 362;
    const LONGEST: usize = 82;
    const WORDS: [&str; 16] = [
        "cd", "echo", "fi", "BINDIR", "export", "path", "umask", "while", "done", "test",
        "version", "if", "else", "${", "}", "x=1",
    ];
    let mut state: u64 = 0x9e37_79b9_7f4a_7c15;
    let mut next = move |below: usize| {
        state ^= state << 13;
        state ^= state >> 7;
        state ^= state << 17;
        (state % below as u64) as usize
    };
    // The lines' lengths, by quarter, then evened out to the total.
    let quarters = [(0, 6), (6, 18), (18, 35), (35, 66)];
    let mut lengths: Vec<usize> = (0..LINES)
        .map(|_| {
            let (lo, hi) = quarters[next(4)];
            lo + next(hi - lo + 1)
        })
        .collect();
    let text = BYTES - LINES; // without the line ends
    while lengths.iter().sum::<usize>() != text {
        let i = next(LINES);
        if lengths.iter().sum::<usize>() < text {
            lengths[i] = (lengths[i] + 1).min(LONGEST);
        } else {
            lengths[i] = lengths[i].saturating_sub(1);
        }
    }
    let mut lines: Vec<Vec<u8>> = Vec::with_capacity(LINES);
    for &len in &lengths {
        // A repeat of an earlier line of this length, if there is one.
        if next(5) == 0 {
            if let Some(same) = lines.iter().find(|l| l.len() == len).cloned() {
                lines.push(same);
                continue;
            }
        }
        let mut line: Vec<u8> = Vec::with_capacity(len + 8);
        if len >= 8 && next(3) == 0 {
            line.push(b'\t');
        }
        if len >= 4 && next(10) == 0 {
            line.extend_from_slice(b"the ");
        }
        while line.len() < len {
            line.extend_from_slice(WORDS[next(WORDS.len())].as_bytes());
            line.push(b' ');
        }
        line.truncate(len);
        lines.push(line);
    }
    let mut out = Vec::with_capacity(BYTES);
    for line in lines {
        out.extend_from_slice(&line);
        out.push(b'\n');
    }
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
