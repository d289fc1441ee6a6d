//! `candor history add`.

use crate::error::usage;
use std::path::{Path, PathBuf};

#[derive(Debug, clap::Args)]
pub struct AddArgs {
    /// Run files.
    #[arg(required = true, value_name = "RUN.json")]
    pub files: Vec<PathBuf>,
    /// File the Runs under this host instead of their label or hostname.
    #[arg(long, value_name = "NAME")]
    pub host: Option<String>,
    /// Only the summary line: no drift lines.
    #[arg(long, short)]
    pub quiet: bool,
}

pub fn execute(db: &Path, a: AddArgs) -> anyhow::Result<()> {
    let host = a.host.as_deref().map(str::trim).filter(|h| !h.is_empty());
    if a.host.is_some() && host.is_none() {
        return Err(usage("--host: give a name"));
    }
    let added = crate::history::batch::add_files(db, &a.files, host, !a.quiet)?;
    let text = crate::report::history::added_text(db, &added);
    crate::output::write_text(None, &text, false)
}
