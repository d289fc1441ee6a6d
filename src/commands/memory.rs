//! `candor memory` (not built yet: its issue is in progress).

/// Flags of `candor memory`.
#[derive(Debug, clap::Args)]
pub struct Args {}

pub fn execute(_args: Args) -> anyhow::Result<()> {
    Err(anyhow::anyhow!("'candor memory' is not built yet"))
}
