//! `candor os`: OS overhead: syscall rate, pipe round trips, context switches, process creation.
//! The flags are shared by every compute subcommand (see `commands::compute`).

use super::compute::{execute as run_group, ComputeArgs};
use crate::compute::Group;

/// Flags of `candor os`.
#[derive(Debug, clap::Args)]
pub struct Args {
    #[command(flatten)]
    pub compute: ComputeArgs,
}

pub fn execute(args: Args) -> anyhow::Result<()> {
    run_group(Group::Os, args.compute)
}
