//! `candor run` (not built yet: its issue is in progress).

/// Flags of `candor run`.
#[derive(Debug, clap::Args)]
pub struct Args {}

pub fn execute(_args: Args) -> anyhow::Result<()> {
    Err(anyhow::anyhow!("'candor run' is not built yet"))
}
