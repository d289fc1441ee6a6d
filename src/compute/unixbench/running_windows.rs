//! UnixBench's index tests on Windows: refused by name. They measure Unix
//! itself (fork, exec, pipes, /bin/sh shell scripts), which Windows does
//! not have; nothing stands in for them.

use super::{NotRun, UnixbenchRequest};
use crate::result::ComputeMeasurement;

/// Refuses (exit 2): not ported to Windows.
pub fn run(_options: &UnixbenchRequest) -> anyhow::Result<(Vec<ComputeMeasurement>, Vec<NotRun>)> {
    Err(crate::error::usage(
        "UnixBench's index tests measure Unix (fork, exec, pipes, shell scripts) and do not run on Windows; leave them out (--skip unixbench)",
    ))
}
