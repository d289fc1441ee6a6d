//! `candor explain` (not built yet: its issue is in progress).

/// Flags of `candor explain`.
#[derive(Debug, clap::Args)]
pub struct Args {}

pub fn execute(_args: Args) -> anyhow::Result<()> {
    Err(anyhow::anyhow!("'candor explain' is not built yet"))
}
