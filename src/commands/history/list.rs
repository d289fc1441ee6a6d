//! `candor history list`.

use crate::report::Format;
use std::path::Path;

#[derive(Debug, clap::Args)]
pub struct ListArgs {
    #[command(flatten)]
    pub filter: super::FilterArgs,
    /// Only the most recent N Runs.
    #[arg(long, value_name = "N")]
    pub limit: Option<usize>,
    /// Output: text (tables) or json (raw values).
    #[arg(long, value_parser = Format::only(&[Format::Text, Format::Json]), default_value = "text")]
    pub format: Format,
}

pub fn execute(db: &Path, a: ListArgs) -> anyhow::Result<()> {
    let filter = a.filter.filter()?;
    let text = crate::report::history_pages::list(db, &filter, a.limit, a.format)?;
    crate::output::write_text(None, &text, false)
}
