//! `candor os` (not built yet: its issue is in progress).

/// Flags of `candor os`.
#[derive(Debug, clap::Args)]
pub struct Args {}

pub fn execute(_args: Args) -> anyhow::Result<()> {
    Err(anyhow::anyhow!("'candor os' is not built yet"))
}
