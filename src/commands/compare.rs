//! `candor compare`: several Runs side by side, one row per host.

use crate::error::usage;
use crate::report::{render_compare_with, Format, Options};
use std::path::{Path, PathBuf};

/// Flags of `candor compare`.
#[derive(Debug, clap::Args)]
pub struct Args {
    /// The Run files, one per host (or per run), in the order the rows should appear.
    #[arg(value_name = "RUN.json")]
    pub files: Vec<PathBuf>,
    /// Output format (json gives the comparison table with raw figures).
    #[arg(long, short, value_enum, default_value = "text")]
    pub format: Format,
    /// Sort the hosts by this column, best first (e.g. "SEQ1M Q8T1 read",
    /// "RND4K Q1T1 read p99", "cpu primes 1T", or "host").
    #[arg(long, value_name = "COLUMN")]
    pub sort: Option<String>,
    #[command(flatten)]
    pub to: super::flags::PrintTo,
    #[command(flatten)]
    pub unit: super::flags::UnitFlag,
}

pub fn execute(args: Args) -> anyhow::Result<()> {
    if args.files.is_empty() {
        return Err(usage(
            "no Run files given: candor compare A.json B.json ... [--format text|md|csv|json|html]",
        ));
    }
    let inputs: Vec<&Path> = args.files.iter().map(PathBuf::as_path).collect();
    args.to.prepare(&inputs)?;
    let mut runs = Vec::with_capacity(args.files.len());
    for f in &args.files {
        crate::cancel::check()?;
        runs.push(crate::result::read_run(f)?);
    }
    let cross = crate::findings::analyze_many(&runs);
    let text = render_compare_with(
        &runs,
        &cross,
        args.format,
        args.sort.as_deref(),
        &Options {
            unit: args.unit.unit,
            ..Default::default()
        },
    )?;
    args.to.write(&text)
}
