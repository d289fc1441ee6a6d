//! `candor disk` (not built yet: its issue is in progress).

/// Flags of `candor disk`.
#[derive(Debug, clap::Args)]
pub struct Args {}

pub fn execute(_args: Args) -> anyhow::Result<()> {
    Err(anyhow::anyhow!("'candor disk' is not built yet"))
}
