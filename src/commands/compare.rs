//! `candor compare` (not built yet: its issue is in progress).

/// Flags of `candor compare`.
#[derive(Debug, clap::Args)]
pub struct Args {}

pub fn execute(_args: Args) -> anyhow::Result<()> {
    Err(anyhow::anyhow!("'candor compare' is not built yet"))
}
