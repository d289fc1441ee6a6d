//! `candor fleet clean DIR`: what a fleet run left on its hosts removed.

use super::positive_duration;
use std::path::PathBuf;

/// Flags of `candor fleet clean`.
#[derive(Debug, clap::Args)]
pub struct CleanArgs {
    /// The directory `candor fleet run` (or the playbook) wrote.
    #[arg(value_name = "DIR")]
    pub dir: PathBuf,
    /// Another ssh config file (ssh -F) instead of the run's.
    #[arg(short = 'F', long, value_name = "FILE")]
    pub ssh_config: Option<PathBuf>,
    /// An ssh option for every host (ssh -o Key=Value), before the run's own.
    #[arg(long, value_name = "KEY=VALUE")]
    pub ssh_option: Vec<String>,
    /// Login limit per host.
    #[arg(long, value_name = "DUR", default_value = "30s")]
    pub timeout_connect: String,
}

pub fn execute(a: CleanArgs) -> anyhow::Result<()> {
    let connect = positive_duration("--timeout-connect", &a.timeout_connect)?;
    crate::session::fleet::clean(&a.dir, a.ssh_config, a.ssh_option, connect)
}
