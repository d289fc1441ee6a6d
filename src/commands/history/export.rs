//! `candor history export`.

use crate::commands::flags::PrintTo;
use crate::report::ExportFormat;
use std::path::Path;

#[derive(Debug, clap::Args)]
pub struct ExportArgs {
    /// csv (a header, then one line per figure) or ndjson (one JSON object per line).
    #[arg(long, value_enum, default_value = "csv")]
    pub format: ExportFormat,
    #[command(flatten)]
    pub filter: super::FilterArgs,
    #[command(flatten)]
    pub to: PrintTo,
}

pub fn execute(db: &Path, a: ExportArgs) -> anyhow::Result<()> {
    let filter = a.filter.filter()?;
    super::prepare(&a.to, db)?;
    a.to.stream(&mut |w| crate::report::history_pages::export(db, &filter, a.format, w))
}
