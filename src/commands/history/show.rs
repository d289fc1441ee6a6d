//! `candor history show`.

use crate::report::Format;
use std::path::Path;

#[derive(Debug, clap::Args)]
pub struct ShowArgs {
    /// The host: its name in the history (label, else hostname), its hostname, or a unique part.
    pub host: String,
    /// Output: text (a table) or json (raw values).
    #[arg(long, value_parser = Format::only(&[Format::Text, Format::Json]), default_value = "text")]
    pub format: Format,
}

pub fn execute(db: &Path, a: ShowArgs) -> anyhow::Result<()> {
    let text = crate::report::history_pages::show(db, &a.host, a.format)?;
    crate::output::write_text(None, &text, false)
}
