//! `candor report` (not built yet: its issue is in progress).

/// Flags of `candor report`.
#[derive(Debug, clap::Args)]
pub struct Args {}

pub fn execute(_args: Args) -> anyhow::Result<()> {
    Err(anyhow::anyhow!("'candor report' is not built yet"))
}
