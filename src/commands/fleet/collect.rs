//! `candor fleet collect DIR`: the contrib playbook's last step.

use crate::fleet::collect::CollectRequest;
use crate::fleet::destination::SameDestination;
use crate::session::fleet;
use std::path::PathBuf;

/// Flags of `candor fleet collect`.
#[derive(Debug, clap::Args)]
pub struct CollectArgs {
    /// The fleet directory the playbook fetched the Runs into (runs/NAME.json).
    #[arg(value_name = "DIR")]
    pub dir: PathBuf,
    /// The playbook's per-host results (candor.ansible-results/1), `-` for stdin.
    #[arg(long, value_name = "FILE", default_value = "-")]
    pub results: PathBuf,
    /// The candor the playbook pushed to the hosts: its sha256 goes into fleet.json.
    #[arg(long, value_name = "PATH")]
    pub binary: Option<PathBuf>,
    /// Replace the fleet.json and compare.* of an earlier collect in DIR.
    #[arg(long)]
    pub force: bool,
    /// Only fleet.json, while the play runs (before each battery): every
    /// host's work directory is named in it, so that `candor fleet clean
    /// DIR` removes it whatever stops the play. No comparison, no history.
    #[arg(long)]
    pub in_progress: bool,
    /// Two hosts of the play that reach one user@host:port (as ssh -G
    /// resolves them): `refuse` (default), or `once`: the first name only.
    #[arg(long, value_name = "POLICY", default_value = "refuse")]
    pub same_destination: String,
    /// Only check the play's hosts for two names of one destination
    /// (before any battery): print the names to leave out (`once`), one a
    /// line; write nothing.
    #[arg(long)]
    pub check_destinations: bool,
    /// Print nothing but errors.
    #[arg(long, short)]
    pub quiet: bool,
    /// The hosts' Runs go into this machine's history.
    #[command(flatten)]
    pub history: crate::session::history::HistoryFlags,
}

pub fn execute(a: CollectArgs) -> anyhow::Result<()> {
    let same_destination = SameDestination::parse(&a.same_destination)?;
    if a.check_destinations {
        return fleet::check_destinations(&a.results, same_destination);
    }
    let request = CollectRequest {
        dir: &a.dir,
        results: &a.results,
        binary: a.binary.as_deref(),
        force: a.force,
        in_progress: a.in_progress,
        same_destination,
        command: std::env::args_os()
            .map(|s| s.to_string_lossy().into_owned())
            .collect(),
        render: crate::report::fleet_compare_files,
        history_files: a.history.inputs(),
    };
    fleet::collect(request, &a.history, a.quiet)
}
