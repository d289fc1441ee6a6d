//! `candor memory`: Memory: sysbench-compatible 1 MiB blocks (CPU cache) and STREAM-style RAM bandwidth.
//! The shared flags are those of every compute subcommand (see `commands::compute`).

use super::compute::{execute_with, ComputeArgs};
use crate::compute::Group;

/// Flags of `candor memory`.
#[derive(Debug, clap::Args)]
pub struct Args {
    #[command(flatten)]
    pub compute: ComputeArgs,
    /// Bytes per STREAM array (three are used). Default: 4x the last-level
    /// cache, at least 64 MiB, at most a quarter of available memory in all.
    #[arg(long, value_name = "SIZE")]
    pub stream_size: Option<String>,
}

pub fn execute(args: Args) -> anyhow::Result<()> {
    let size = match &args.stream_size {
        Some(text) => Some(
            crate::units::parse_size(text)
                .map_err(|e| crate::error::usage(format!("--stream-size: {e}")))?,
        ),
        None => None,
    };
    execute_with(Group::Memory, args.compute, &|options| {
        crate::compute::run_memory_with(options, size)
    })
}
