//! `candor import` (not built yet: its issue is in progress).

/// Flags of `candor import`.
#[derive(Debug, clap::Args)]
pub struct Args {}

pub fn execute(_args: Args) -> anyhow::Result<()> {
    Err(anyhow::anyhow!("'candor import' is not built yet"))
}
