//! The candor binary: parse, dispatch, map errors to exit codes.

use candor::eprintln;
use clap::Parser;

fn main() {
    // Execl Throughput's links and the UnixBench copies run before anything
    // else (see compute::unixbench::execl and ::copy).
    // args_os: a path argument need not be UTF-8 (std::env::args panics on one).
    let mut args = std::env::args_os();
    let first = args.nth(1);
    let hidden = |flag: &str| first.as_deref() == Some(std::ffi::OsStr::new(flag));
    if hidden(candor::compute::unixbench::execl::FLAG) {
        let rest: Vec<String> = args.map(|a| a.to_string_lossy().into_owned()).collect();
        candor::compute::unixbench::execl::chain(&rest);
    }
    #[cfg(unix)]
    if hidden(candor::compute::unixbench::copy::FLAG) {
        candor::compute::unixbench::copy::main(&args.collect::<Vec<_>>());
    }
    let cli = candor::cli::Cli::try_parse().unwrap_or_else(|e| exit_on_bad_arguments(e));
    candor::cancel::install_handlers();
    if let Err(error) = cli.command.dispatch() {
        let error = after_a_signal(error);
        eprintln!("candor: error: {}", one_line(&error));
        std::process::exit(exit_code(&error));
    }
}

/// An error that ends a command after the first signal is that signal's
/// doing (a parse stopped half-way, a loop cut short): said as the
/// interruption, exit 128+N, not as a bad input.
fn after_a_signal(error: anyhow::Error) -> anyhow::Error {
    use candor::error::Interrupted;
    match candor::cancel::signal() {
        Some(sig) if !error.chain().any(|c| c.is::<Interrupted>()) => {
            anyhow::Error::new(Interrupted(sig))
        }
        _ => error,
    }
}

/// Help and version go to stdout as clap renders them (exit 0); a bad flag or
/// value gets one line naming it, like every other usage error (exit 2).
fn exit_on_bad_arguments(e: clap::Error) -> ! {
    use clap::error::ErrorKind;
    if matches!(
        e.kind(),
        ErrorKind::DisplayHelp
            | ErrorKind::DisplayVersion
            | ErrorKind::DisplayHelpOnMissingArgumentOrSubcommand
    ) {
        e.exit();
    }
    let rendered = e.to_string();
    let first = rendered
        .lines()
        .find(|l| !l.trim().is_empty())
        .unwrap_or("bad arguments")
        .trim_start_matches("error: ");
    let args: Vec<std::ffi::OsString> = std::env::args_os().collect();
    match candor::cli::hint(&e, &args) {
        Some(hint) => eprintln!("candor: error: {first}: {hint}"),
        None => eprintln!("candor: error: {first} (see --help)"),
    }
    std::process::exit(2);
}

/// 2 for bad input (a usage error, an unparsable size or duration, a file
/// that is not a Run, a database that is not a candor history), 128+N for a
/// signal, 3 when a verifying job read back other data than it wrote, 1 for
/// anything else.
fn exit_code(error: &anyhow::Error) -> i32 {
    use candor::error::{DataCorrupted, Interrupted, UsageError};
    for cause in error.chain() {
        if cause.is::<DataCorrupted>() {
            return 3;
        }
        if cause.is::<UsageError>()
            || cause.is::<candor::units::ParseError>()
            || cause.is::<candor::result::ReadRunError>()
            || cause.is::<candor::history::BadDatabase>()
        {
            return 2;
        }
        if let Some(Interrupted(sig)) = cause.downcast_ref::<Interrupted>() {
            return 128 + sig;
        }
    }
    1
}

/// The error and its causes on one line: "outer: inner: root".
fn one_line(error: &anyhow::Error) -> String {
    let mut parts: Vec<String> = Vec::new();
    for cause in error.chain() {
        let text = candor::error::printable(&cause.to_string());
        if !parts.iter().any(|p| p.contains(&text)) {
            parts.push(text);
        }
    }
    parts.join(": ")
}
