//! `candor analyze` (not built yet: its issue is in progress).

/// Flags of `candor analyze`.
#[derive(Debug, clap::Args)]
pub struct Args {}

pub fn execute(_args: Args) -> anyhow::Result<()> {
    Err(anyhow::anyhow!("'candor analyze' is not built yet"))
}
