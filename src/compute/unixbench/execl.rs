//! The hidden self-exec of Execl Throughput: `candor --unixbench-execl NS`
//! execs candor again and again, carrying its count and start time in its
//! arguments, until NS nanoseconds have passed; the last one prints the count.
//! Checked in `main` before any flag parsing, so each exec costs what loading
//! candor's binary costs, as UnixBench's execl measures loading its own.

use std::ffi::CString;
use std::time::{SystemTime, UNIX_EPOCH};

/// The hidden first argument.
pub const FLAG: &str = "--unixbench-execl";

fn now_ns() -> u128 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map(|d| d.as_nanos())
        .unwrap_or(0)
}

/// Runs one link of the chain (`args` after the flag: NS [COUNT START]) and
/// never returns: it execs the next link or prints the count and exits.
pub fn chain(args: &[String]) -> ! {
    let parse = |i: usize| args.get(i).and_then(|a| a.parse::<u128>().ok());
    let Some(duration) = parse(0) else {
        eprintln!("candor: error: {FLAG} needs a duration in nanoseconds");
        std::process::exit(2);
    };
    let count = parse(1).unwrap_or(0) + 1;
    let start = parse(2).unwrap_or_else(now_ns);
    if now_ns().saturating_sub(start) >= duration {
        println!("{count}");
        std::process::exit(0);
    }
    let exe = CString::new("/proc/self/exe").expect("no NUL");
    let argv: Vec<CString> = [
        "candor".to_string(),
        FLAG.to_string(),
        duration.to_string(),
        count.to_string(),
        start.to_string(),
    ]
    .into_iter()
    .map(|a| CString::new(a).expect("digits have no NUL"))
    .collect();
    let mut ptrs: Vec<*const libc::c_char> = argv.iter().map(|a| a.as_ptr()).collect();
    ptrs.push(std::ptr::null());
    // SAFETY: a NUL-terminated path and a NULL-terminated argv of live CStrings.
    unsafe { libc::execv(exe.as_ptr(), ptrs.as_ptr()) };
    eprintln!(
        "candor: error: exec failed at link {count}: {}",
        std::io::Error::last_os_error()
    );
    std::process::exit(1);
}
