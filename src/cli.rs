//! The command line. Each subcommand's flags live in its own file under
//! `commands/`; their doc comments are the help text.

use clap::{Parser, Subcommand};

/// candor: an honest server benchmark. It measures disk, CPU, memory, crypto,
/// compression and OS overhead, then says what the numbers mean and what they
/// do not prove.
#[derive(Debug, Parser)]
#[command(
    name = "candor",
    version,
    propagate_version = true,
    max_term_width = 100
)]
pub struct Cli {
    #[command(subcommand)]
    pub command: Command,
}

// Parsed once per process: the size of the largest variant does not matter.
#[allow(clippy::large_enum_variant)]
#[derive(Debug, Subcommand)]
pub enum Command {
    /// Run the whole battery on this host: disk profiles in passes, a control
    /// file larger than RAM, compute tests, findings.
    Run(crate::commands::run::Args),
    /// Run one disk job in fio's vocabulary and print the fio command that reproduces it.
    Disk(crate::commands::disk::Args),
    /// Sweep block sizes and queue depths and infer IOPS and bandwidth caps.
    Sweep(crate::commands::sweep::Args),
    /// CPU: sysbench-compatible prime counting, 1 thread and all threads.
    Cpu(crate::commands::cpu::Args),
    /// Memory: sysbench-compatible (cache) and STREAM-style RAM bandwidth.
    Memory(crate::commands::memory::Args),
    /// Crypto: AES-256-CBC/GCM and SHA-256 with one linked implementation.
    Crypto(crate::commands::crypto::Args),
    /// Compression: LZMA and zstd on a fixed, seeded corpus.
    Compress(crate::commands::compress::Args),
    /// OS overhead: syscalls, pipes, context switches, process creation.
    Os(crate::commands::os::Args),
    /// UnixBench 5.1's System Benchmarks Index: its tests as it defines them, 1 and N copies.
    Unixbench(crate::commands::unixbench::Args),
    /// Recompute and print the findings of a Run with the current rules.
    Analyze(crate::commands::analyze::Args),
    /// Explain a finding by its id (or list them all).
    Explain(crate::commands::explain::Args),
    /// Render a Run as text, Markdown, CSV, JSON or a self-contained HTML report.
    Report(crate::commands::report::Args),
    /// Put several Runs side by side, one row per host.
    Compare(crate::commands::compare::Args),
    /// Import fio JSON output (or a UnixBench report) as a Run.
    Import(crate::commands::import::Args),
    /// The history of every Run: add, list, show a host, trends, drift, export, an HTML report.
    History(crate::commands::history::Args),
    /// Many hosts over ssh: push this binary, run the battery on each, fetch
    /// the Runs, compare them (`fleet run`, `fleet report`).
    Fleet(crate::commands::fleet::Args),
}

impl Command {
    /// Runs the subcommand.
    pub fn dispatch(self) -> anyhow::Result<()> {
        use crate::commands::*;
        match self {
            Command::Run(a) => run::execute(a),
            Command::Disk(a) => disk::execute(a),
            Command::Sweep(a) => sweep::execute(a),
            Command::Cpu(a) => cpu::execute(a),
            Command::Memory(a) => memory::execute(a),
            Command::Crypto(a) => crypto::execute(a),
            Command::Compress(a) => compress::execute(a),
            Command::Os(a) => os::execute(a),
            Command::Unixbench(a) => unixbench::execute(a),
            Command::Analyze(a) => analyze::execute(a),
            Command::Explain(a) => explain::execute(a),
            Command::Report(a) => report::execute(a),
            Command::Compare(a) => compare::execute(a),
            Command::Import(a) => import::execute(a),
            Command::History(a) => history::execute(a),
            Command::Fleet(a) => fleet::execute(a),
        }
    }
}

/// A hint for a bad command line that has a likely cause: a flag of
/// `candor run` given to `candor fleet run` before the `--` that starts
/// the flags for the hosts (`candor fleet run -i hosts.ini --preset quick`).
pub fn hint(error: &clap::Error, args: &[std::ffi::OsString]) -> Option<String> {
    use clap::error::{ContextKind, ContextValue, ErrorKind};
    use clap::CommandFactory;
    if error.kind() != ErrorKind::UnknownArgument {
        return None;
    }
    let words: Vec<String> = args
        .iter()
        .skip(1)
        .map(|a| a.to_string_lossy().into_owned())
        .collect();
    let fleet_run = words.iter().position(|w| w == "fleet").is_some_and(|i| {
        words[..i].iter().all(|w| w.starts_with('-'))
            && words.get(i + 1).map(String::as_str) == Some("run")
    });
    if !fleet_run || words.iter().any(|w| w == "--") {
        return None;
    }
    let Some(ContextValue::String(flag)) = error.get(ContextKind::InvalidArg) else {
        return None;
    };
    let name = flag.split('=').next().unwrap_or(flag);
    let cli = Cli::command();
    let run = cli.find_subcommand("run")?;
    let known = run.get_arguments().any(|a| {
        a.get_long().is_some_and(|l| name == format!("--{l}"))
            || a.get_short().is_some_and(|s| name == format!("-{s}"))
    });
    known.then(|| {
        format!("{name} is a flag of candor run: the flags for the hosts go after --, as in candor fleet run -i INVENTORY -- {name} ...")
    })
}
