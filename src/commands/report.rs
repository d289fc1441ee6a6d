//! `candor report`: render a Run file as text, Markdown, CSV, JSON or HTML.

use crate::error::usage;
use crate::report::{render_with, Format, Options};
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
    #[command(flatten)]
    pub to: super::flags::PrintTo,
    #[command(flatten)]
    pub unit: super::flags::UnitFlag,
    #[command(flatten)]
    pub verbose: super::flags::VerboseFlag,
}

pub fn execute(args: Args) -> anyhow::Result<()> {
    let Some(file) = args.file else {
        return Err(usage(
            "no Run file given: candor report RUN.json [--format text|md|csv|json|html]",
        ));
    };
    args.to.prepare(&[&file])?;
    let run = crate::result::read_run(&file)?;
    let text = render_with(
        &run,
        args.format,
        &Options {
            unit: args.unit.unit,
            verbose: args.verbose.verbose,
        },
    );
    args.to.write(&text)
}
