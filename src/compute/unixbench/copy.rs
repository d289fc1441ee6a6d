//! One copy of a UnixBench test, in a process of its own, as UnixBench runs
//! each copy: `candor --unixbench-copy TEST PASS_NS COPY [DIR]`, started by
//! `copies.rs`. Checked in `main` before any flag parsing; the process stays
//! single-threaded (no signal-watcher thread: `cancel::install_flag_only`),
//! as UnixBench's programs are, since a second thread would share its
//! descriptor table and slow every read and write.
//!
//! The protocol with the parent, on the standard descriptors:
//! - stdout: `ready` once the copy is loaded; then, after the pass,
//!   `COUNT ELAPSED_NS`;
//! - stdin: the start gate. The copy waits for its end (the parent closes
//!   every copy's gate at once), so that the copies start together;
//! - stderr: on failure one line, `candor: error: ...`; exit 1. Stopped by
//!   a signal: exit 128 + the signal;
//! - File Copy's two files, which the parent made in its work directory,
//!   are descriptors 3 (read) and 4 (written): the copy creates no file.

use super::catalogue;
use super::kernels::{self, CopyCount};
use std::ffi::OsString;
use std::fs::File;
use std::io::Read;
use std::os::fd::FromRawFd;
use std::path::Path;
use std::time::Duration;

/// The hidden first argument.
pub const FLAG: &str = "--unixbench-copy";

/// The descriptor of File Copy's file read from; the file written is the next.
pub const FILE_FD: i32 = 3;

/// Runs one copy (`args` after the flag) and never returns.
pub fn main(args: &[OsString]) -> ! {
    crate::cancel::install_flag_only();
    match run(args) {
        Ok(c) => {
            println!("{} {}", c.count, c.elapsed.as_nanos());
            std::process::exit(0);
        }
        Err(e) => {
            // A kernel cut short by a signal may fail on its way out
            // (a pipe its partner closed): the signal is the cause.
            if let Some(sig) = crate::cancel::signal() {
                std::process::exit(128 + sig);
            }
            eprintln!(
                "candor: error: {}",
                crate::error::printable(&format!("{e:#}"))
            );
            std::process::exit(1);
        }
    }
}

fn run(args: &[OsString]) -> anyhow::Result<CopyCount> {
    let [name, pass_ns, copy, rest @ ..] = args else {
        anyhow::bail!("{FLAG} needs TEST PASS_NS COPY [DIR]");
    };
    let text = |a: &OsString| a.to_string_lossy().into_owned();
    let name = text(name);
    let test =
        catalogue::find(&name).ok_or_else(|| anyhow::anyhow!("{FLAG}: unknown test {name}"))?;
    let pass = Duration::from_nanos(text(pass_ns).parse()?);
    let copy: u32 = text(copy).parse()?;
    let dir = rest.first().map(Path::new);
    let need_dir = || dir.ok_or_else(|| anyhow::anyhow!("{FLAG}: {name} needs a directory"));
    // The files are opened before the gate, so a missing one fails at once.
    let files = if name.starts_with("fs") {
        Some(passed_files()?)
    } else {
        None
    };
    println!("ready");
    wait_for_the_gate()?;
    crate::cancel::check()?;
    let file_copy = |bufsize, max_blocks| {
        let (src, dst) = files.expect("opened above for fs tests");
        kernels::file_copy(src, dst, bufsize, max_blocks, pass)
    };
    match test.name {
        "dhry2reg" => super::dhrystone::dhry2reg(pass),
        "whetstone-double" => super::whetstone::whetstone_double(pass),
        "syscall" => kernels::syscall(pass),
        "pipe" => kernels::pipe(pass),
        "context1" => kernels::context1(pass),
        "spawn" => kernels::spawn(pass),
        "execl" => kernels::execl(pass),
        "fstime" => file_copy(1024, 2000),
        "fsbuffer" => file_copy(256, 500),
        "fsdisk" => file_copy(4096, 8000),
        "shell1" => kernels::shell(need_dir()?, copy, 1, pass),
        "shell8" => kernels::shell(need_dir()?, copy, 8, pass),
        other => anyhow::bail!("{other}: no kernel"),
    }
}

/// Blocks until the parent closes standard input (the signal to start).
fn wait_for_the_gate() -> anyhow::Result<()> {
    let mut sink = Vec::new();
    std::io::stdin()
        .read_to_end(&mut sink)
        .map_err(|e| anyhow::anyhow!("waiting for the start: {e}"))?;
    Ok(())
}

/// File Copy's two files, from descriptors 3 and 4; each must be a regular file.
fn passed_files() -> anyhow::Result<(File, File)> {
    let open = |fd: i32| -> anyhow::Result<File> {
        // SAFETY: fstat only reads the descriptor's status into plain data.
        let mut st: libc::stat = unsafe { std::mem::zeroed() };
        anyhow::ensure!(
            unsafe { libc::fstat(fd, &mut st) } == 0 && st.st_mode & libc::S_IFMT == libc::S_IFREG,
            "descriptor {fd} is not the regular file File Copy needs"
        );
        // SAFETY: the parent passed this descriptor for this copy alone.
        Ok(unsafe { File::from_raw_fd(fd) })
    };
    Ok((open(FILE_FD)?, open(FILE_FD + 1)?))
}
