//! `candor compress`: Compression: LZMA (liblzma) and zstd, compress and decompress, on a fixed seeded corpus.
//! The flags are shared by every compute subcommand (see `commands::compute`).

use super::compute::{execute as run_group, ComputeArgs};
use crate::compute::Group;

/// Flags of `candor compress`.
#[derive(Debug, clap::Args)]
pub struct Args {
    #[command(flatten)]
    pub compute: ComputeArgs,
}

pub fn execute(args: Args) -> anyhow::Result<()> {
    run_group(Group::Compress, args.compute)
}
