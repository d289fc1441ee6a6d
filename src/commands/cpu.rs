//! `candor cpu`: CPU: sysbench-compatible prime counting (max_prime 20000), 1 thread and all threads.
//! The flags are shared by every compute subcommand (see `commands::compute`).

use super::compute::{execute as run_group, ComputeArgs};
use crate::compute::Group;

/// Flags of `candor cpu`.
#[derive(Debug, clap::Args)]
pub struct Args {
    #[command(flatten)]
    pub compute: ComputeArgs,
}

pub fn execute(args: Args) -> anyhow::Result<()> {
    run_group(Group::Cpu, args.compute)
}
