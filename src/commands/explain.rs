//! `candor explain ID`: the long explanation of a finding, with its
//! thresholds; `candor explain --list`: every finding id with its title.
//! The pages are `report::explanation`'s.

use crate::report::explanation::{finding_list, finding_page};

/// Flags of `candor explain`.
#[derive(Debug, clap::Args)]
pub struct Args {
    /// The finding id (e.g. host-cache, limiter-flat, caps).
    #[arg(value_name = "ID")]
    pub id: Option<String>,
    /// List every finding id with its title.
    #[arg(long, conflicts_with = "id")]
    pub list: bool,
}

pub fn execute(args: Args) -> anyhow::Result<()> {
    // Built as text and written at once: `candor explain X | head` closes
    // the pipe early, which is not an error (println! would panic).
    if args.list {
        return crate::output::write_text(None, &finding_list(), false);
    }
    let Some(id) = args.id else {
        return Err(crate::error::usage(
            "explain needs a finding id (e.g. `candor explain host-cache`) or --list",
        ));
    };
    let Some(page) = finding_page(&id) else {
        return Err(crate::error::usage(format!(
            "unknown finding id '{id}': `candor explain --list` lists them"
        )));
    };
    crate::output::write_text(None, &page, false)
}
