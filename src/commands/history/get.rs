//! `candor history get`: a stored Run back, byte for byte.

use crate::commands::flags::PrintTo;
use std::path::Path;

#[derive(Debug, clap::Args)]
pub struct GetArgs {
    /// The Run's hash, or its first 6 or more hex digits (history list shows 12).
    pub run: String,
    #[command(flatten)]
    pub to: PrintTo,
}

pub fn execute(db: &Path, a: GetArgs) -> anyhow::Result<()> {
    super::prepare(&a.to, db)?;
    // A Run written to a file is a Run: no other candor writes it meanwhile.
    let _lock = match &a.to.output {
        Some(out) => Some(crate::result::RunLock::acquire(out)?),
        None => None,
    };
    a.to.write(&crate::report::history_pages::stored_run(db, &a.run)?)
}
