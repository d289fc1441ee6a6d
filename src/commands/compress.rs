//! `candor compress` (not built yet: its issue is in progress).

/// Flags of `candor compress`.
#[derive(Debug, clap::Args)]
pub struct Args {}

pub fn execute(_args: Args) -> anyhow::Result<()> {
    Err(anyhow::anyhow!("'candor compress' is not built yet"))
}
