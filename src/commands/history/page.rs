//! `candor history report`: the history as one HTML page.

use crate::commands::flags::PrintTo;
use crate::report::Format;
use std::path::Path;

#[derive(Debug, clap::Args)]
pub struct ReportArgs {
    /// html: one self-contained page (inline CSS and SVG, no scripts).
    #[arg(long, value_parser = Format::only(&[Format::Html]), default_value = "html")]
    pub format: Format,
    /// Only this host.
    #[arg(long, value_name = "HOST")]
    pub host: Option<String>,
    #[command(flatten)]
    pub to: PrintTo,
}

pub fn execute(db: &Path, a: ReportArgs) -> anyhow::Result<()> {
    super::prepare(&a.to, db)?;
    a.to.write(&crate::report::history_pages::page(db, a.host.as_deref())?)
}
