//! `candor fleet report DIR`: a fleet directory rendered again.

use crate::commands::flags::{PrintTo, UnitFlag};
use crate::report::{Format, Options};
use std::path::PathBuf;

/// Flags of `candor fleet report`.
#[derive(Debug, clap::Args)]
pub struct ReportArgs {
    /// The directory `candor fleet run` wrote.
    #[arg(value_name = "DIR")]
    pub dir: PathBuf,
    /// Output format (text and md add the fleet table to the comparison).
    #[arg(long, short, value_enum, default_value = "text")]
    pub format: Format,
    #[command(flatten)]
    pub to: PrintTo,
    #[command(flatten)]
    pub unit: UnitFlag,
}

pub fn execute(a: ReportArgs) -> anyhow::Result<()> {
    let options = Options {
        unit: a.unit.unit,
        ..Options::default()
    };
    let output = a.to.output.as_deref();
    crate::session::fleet::report(&a.dir, a.format, &options, output, a.to.force)
}
