//! `candor crypto` (not built yet: its issue is in progress).

/// Flags of `candor crypto`.
#[derive(Debug, clap::Args)]
pub struct Args {}

pub fn execute(_args: Args) -> anyhow::Result<()> {
    Err(anyhow::anyhow!("'candor crypto' is not built yet"))
}
