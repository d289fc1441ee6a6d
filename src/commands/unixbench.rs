//! `candor unixbench`: UnixBench 5.1's System Benchmarks Index. Parses the
//! flags (one-line errors, exit 2), runs `compute::unixbench` into a Run of
//! kind `unixbench`, prints it with `report::unixbench_text`.

use super::compute::parse_runtime;
use crate::compute::unixbench::UnixbenchRequest;
use crate::report::Format;
use crate::session;
use std::path::PathBuf;

/// Flags of `candor unixbench`.
#[derive(Debug, clap::Args)]
pub struct Args {
    /// Copies: a number, or `all` (one per CPU candor may use). Default: 1
    /// copy, then one per CPU, as UnixBench does.
    #[arg(long, value_name = "N|all")]
    pub copies: Option<String>,
    /// Only these tests (UnixBench's names: dhry2reg, whetstone-double,
    /// execl, fstime, fsbuffer, fsdisk, pipe, context1, spawn, shell1,
    /// shell8, syscall), comma-separated.
    #[arg(long, value_name = "TEST,...")]
    pub only: Option<String>,
    /// One pass's length for every test (UnixBench: 10 s, 30 s or 60 s by test).
    #[arg(long, value_name = "DUR")]
    pub runtime: Option<String>,
    /// Passes, as UnixBench's `-i N`: N for its 10-pass tests, (N+1)/3 for the others.
    #[arg(long, value_name = "N")]
    pub iterations: Option<u32>,
    /// Directory for File Copy's and the shell scripts' work directory (default /var/tmp).
    #[arg(long, value_name = "DIR")]
    pub dir: Option<PathBuf>,
    /// What to print on stdout: `text` or `json` (the Run).
    #[arg(long, value_parser = Format::only(&[Format::Text, Format::Json]), default_value = "text")]
    pub format: Format,
    #[command(flatten)]
    pub out: crate::session::OutputFlags,
}

pub fn execute(args: Args) -> anyhow::Result<()> {
    let copies = UnixbenchRequest::parse_copies(args.copies.as_deref())?;
    let tests = UnixbenchRequest::parse_only(args.only.as_deref())?;
    let pass = args.runtime.as_deref().map(parse_runtime).transpose()?;
    if args.iterations == Some(0) || args.iterations.is_some_and(|n| n > 100) {
        return Err(crate::error::usage("--iterations must be from 1 to 100"));
    }
    let dir = session::test_dir_or_default(args.dir.as_deref());
    if !dir.is_dir() {
        return Err(crate::error::usage(format!(
            "--dir {}: not a directory",
            dir.display()
        )));
    }
    let options = UnixbenchRequest {
        copies,
        tests,
        pass,
        iterations: args.iterations,
        dir,
    };

    let announce =
        args.format == Format::Text && std::io::IsTerminal::is_terminal(&std::io::stderr());
    let session = crate::measure::unixbench::index(&options, &args.out, announce)?;
    session.finish(|run| match args.format {
        Format::Json => crate::report::render(run, Format::Json),
        _ => crate::report::unixbench_text(run),
    })
}
