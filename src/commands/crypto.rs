//! `candor crypto`: Crypto: AES-256-CBC encrypt and decrypt, AES-256-GCM and SHA-256 on 16 KiB blocks, with aws-lc-rs.
//! The flags are shared by every compute subcommand (see `commands::compute`).

use super::compute::{execute as run_group, ComputeArgs};
use crate::compute::Group;

/// Flags of `candor crypto`.
#[derive(Debug, clap::Args)]
pub struct Args {
    #[command(flatten)]
    pub compute: ComputeArgs,
}

pub fn execute(args: Args) -> anyhow::Result<()> {
    run_group(Group::Crypto, args.compute)
}
