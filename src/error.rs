//! Errors that decide the exit code: usage errors (bad flags, sizes, paths,
//! files) exit 2, an interruption exits 128+signal, anything else exits 1.

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

/// The exit code for an error: 2 for usage errors, 128+N for signals, 1 otherwise.
pub fn exit_code(error: &anyhow::Error) -> i32 {
    for cause in error.chain() {
        if cause.is::<UsageError>() || cause.is::<crate::units::ParseError>() {
            return 2;
        }
        if let Some(Interrupted(sig)) = cause.downcast_ref::<Interrupted>() {
            return 128 + sig;
        }
        if cause.is::<crate::result::ReadRunError>() {
            return 2;
        }
    }
    1
}
