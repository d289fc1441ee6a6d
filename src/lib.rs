//! candor: an honest server benchmark.
//!
//! The flow runs one way: host facts and the user's flags make a plan; the
//! plan is measured (disk engines, compute kernels) into a Run; findings are
//! pure functions of a Run; reports only render. See docs/ and the README.

/// `eprintln!` for the whole crate (it shadows std's in every module): the
/// same line, but a stderr that can no longer be written (a pipe whose
/// reader went away, the closed ssh channel of a fleet agent) loses the
/// line instead of panicking in the middle of a measurement, before the
/// test files are removed. `tests/closed_pipe.rs` holds every command to it.
#[macro_export]
macro_rules! eprintln {
    () => {
        $crate::stderr_write(format_args!("\n"))
    };
    ($($arg:tt)*) => {
        $crate::stderr_write(format_args!("{}\n", format_args!($($arg)*)))
    };
}

/// `eprint!` as `eprintln!` above: never a panic on a closed stderr.
#[macro_export]
macro_rules! eprint {
    ($($arg:tt)*) => {
        $crate::stderr_write(format_args!($($arg)*))
    };
}

/// Writes to stderr; an error (EPIPE, EBADF) is not one worth dying of.
#[doc(hidden)]
pub fn stderr_write(args: std::fmt::Arguments<'_>) {
    use std::io::Write;
    let _ = std::io::stderr().lock().write_fmt(args);
}

pub mod battery;
pub mod cancel;
pub mod cli;
pub mod commands;
pub mod compute;
pub mod crystaldiskmark;
pub mod disk;
pub mod diskspd;
pub mod error;
pub mod findings;
pub mod fio;
pub mod fleet;
pub mod history;
pub mod host;
pub mod import;
pub mod input;
pub mod leftovers;
pub mod measure;
pub mod output;
pub mod plan;
pub mod report;
pub mod result;
pub mod seed;
pub mod session;
pub mod units;
