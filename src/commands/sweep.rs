//! `candor sweep` (not built yet: its issue is in progress).

/// Flags of `candor sweep`.
#[derive(Debug, clap::Args)]
pub struct Args {}

pub fn execute(_args: Args) -> anyhow::Result<()> {
    Err(anyhow::anyhow!("'candor sweep' is not built yet"))
}
