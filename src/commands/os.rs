//! `candor os`: OS overhead: syscall rate, pipe round trips, context switches, process creation.
//! The flags are shared by every compute subcommand (see `compute::command`).

use crate::compute::command::{execute as run_group, ComputeArgs, Group};

/// Flags of `candor os`.
#[derive(Debug, clap::Args)]
pub struct Args {
    #[command(flatten)]
    pub compute: ComputeArgs,
}

pub fn execute(args: Args) -> anyhow::Result<()> {
    run_group(Group::Os, args.compute)
}
