//! `candor cpu` (not built yet: its issue is in progress).

/// Flags of `candor cpu`.
#[derive(Debug, clap::Args)]
pub struct Args {}

pub fn execute(_args: Args) -> anyhow::Result<()> {
    Err(anyhow::anyhow!("'candor cpu' is not built yet"))
}
