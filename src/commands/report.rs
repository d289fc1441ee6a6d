//! `candor report`: render a Run file as text, Markdown, CSV, JSON or HTML.

use crate::error::usage;
use crate::output::{prepare, write_text, Replace};
use crate::report::{render_with, Format, Options, RateUnit};
use std::path::PathBuf;

/// Flags of `candor report`.
#[derive(Debug, clap::Args)]
pub struct Args {
    /// The Run file (written by `candor run`, `candor disk`, `candor import`, ...).
    #[arg(value_name = "RUN.json")]
    pub file: Option<PathBuf>,
    /// Output format: a terminal summary, Markdown tables, CSV (one row per
    /// measurement and direction), the Run as JSON, or one self-contained HTML file.
    #[arg(long, short, value_enum, default_value = "text")]
    pub format: Format,
    /// Write to this file instead of standard output.
    #[arg(long, short, value_name = "FILE")]
    pub output: Option<PathBuf>,
    /// Replace FILE if it exists (candor never overwrites a file otherwise).
    #[arg(long)]
    pub force: bool,
    /// Unit of byte rates: MB (10^6 bytes/s) or MiB (2^20 bytes/s).
    #[arg(long, value_enum, default_value = "MB")]
    pub unit: RateUnit,
}

pub fn execute(args: Args) -> anyhow::Result<()> {
    let Some(file) = args.file else {
        return Err(usage(
            "no Run file given: candor report RUN.json [--format text|md|csv|json|html]",
        ));
    };
    if let Some(out) = &args.output {
        prepare(out, "--output", Replace::from_force(args.force), &[&file])?;
    }
    let run = crate::result::read_run(&file)?;
    let text = render_with(&run, args.format, &Options { unit: args.unit });
    write_text(args.output.as_deref(), &text, args.force)
}
