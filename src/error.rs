//! The errors whose kind decides the exit code (main.rs maps them): usage
//! errors (bad flags, sizes, paths, files) exit 2, an interruption exits
//! 128+signal, anything else exits 1.

/// Bad input from the user: a flag, a size, a path, a file. Exit code 2.
#[derive(Debug, thiserror::Error)]
#[error("{0}")]
pub struct UsageError(pub String);

/// A usage error as an `anyhow::Error`.
pub fn usage(message: impl Into<String>) -> anyhow::Error {
    anyhow::Error::new(UsageError(message.into()))
}

/// Stopped by SIGINT or SIGTERM. Exit code 128 + signal.
#[derive(Debug, thiserror::Error)]
#[error("interrupted by {}", signal_name(*.0))]
pub struct Interrupted(pub i32);

fn signal_name(signal: i32) -> &'static str {
    match signal {
        libc::SIGINT => "SIGINT",
        libc::SIGTERM => "SIGTERM",
        libc::SIGHUP => "SIGHUP",
        _ => "a signal",
    }
}

/// True when `error` (or one of its causes) is a usage error: the user's input at fault.
pub fn is_usage(error: &anyhow::Error) -> bool {
    error.chain().any(|cause| cause.is::<UsageError>())
}
