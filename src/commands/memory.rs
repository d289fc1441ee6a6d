//! `candor memory`: Memory: sysbench-compatible 1 MiB blocks (CPU cache) and STREAM-style RAM bandwidth.
//! The flags are shared by every compute subcommand (see `compute::command`).

use crate::compute::command::{execute as run_group, ComputeArgs, Group};

/// Flags of `candor memory`.
#[derive(Debug, clap::Args)]
pub struct Args {
    #[command(flatten)]
    pub compute: ComputeArgs,
}

pub fn execute(args: Args) -> anyhow::Result<()> {
    run_group(Group::Memory, args.compute)
}
