//! Fleets: the same candor (one static binary per architecture) on many
//! hosts over the user's own OpenSSH, then one comparison. The controller
//! (this process) reads the hosts from an Ansible inventory or the command
//! line (`inventory/`, `select.rs`, `target.rs`), checks the static
//! binaries it was given (`binary.rs`), and for each host (`host.rs`,
//! scheduled by `schedule.rs`) logs in through the system ssh with a
//! control master (`ssh.rs`), reads the host's architecture and clock
//! (`clock.rs`), puts the binary of that architecture in the host's cache
//! by content hash, runs `candor run` there with the user's flags, streams
//! its progress (`progress.rs`), fetches the Run and removes what it left
//! (`remote.rs` holds the shell side of each step). Failures become
//! one-line causes (`cause.rs`). The output directory (`directory.rs`)
//! holds every host's Run, `fleet.json` (`summary.rs`) and the comparison
//! in every report format. `candor fleet collect` writes the same directory
//! from what the contrib Ansible playbook left (`collect.rs`, `ansible.rs`).
//!
//! What this module must not do: measure (the remote candor does), or lay
//! out reports (`report::fleet` and the comparison exporters do).

pub mod ansible;
pub mod binary;
pub mod cause;
pub mod clean;
pub mod clock;
pub mod collect;
pub mod destination;
pub mod directory;
pub mod host;
pub mod inventory;
pub mod ledger;
pub mod progress;
pub mod remote;
pub mod run;
pub mod schedule;
pub mod select;
pub mod ssh;
pub mod summary;
pub mod target;

pub use summary::{FleetSummary, HostRecord, HostStatus, Phase};
pub use target::Target;

use std::path::PathBuf;
use std::time::Duration;

/// The first line a `candor run --fleet-agent` prints on stderr, followed
/// by its pid: the controller needs it to signal the remote candor and to
/// find the test files of one that was killed.
pub const AGENT_PID_PREFIX: &str = "candor: fleet-agent pid ";

/// Per-host limits for each phase.
#[derive(Debug, Clone, Copy)]
pub struct Timeouts {
    /// Login (TCP connect is ssh's ConnectTimeout, the same value).
    pub connect: Duration,
    /// Cache check and upload of the binary.
    pub upload: Duration,
    /// The whole remote battery.
    pub run: Duration,
    /// Fetching the Run, and cleanup.
    pub fetch: Duration,
}

/// Everything a host's worker needs, the same for every host.
#[derive(Debug)]
pub struct FleetPlan {
    pub ssh: ssh::SshOptions,
    /// Where each target leads (`ssh -G`), by index: recorded with its Run.
    pub destinations: Vec<destination::Resolved>,
    /// One binary per architecture, chosen when a host of it asks.
    pub binaries: binary::Binaries,
    /// `candor run` flags for every host (checked on the controller first);
    /// `--label=<host name>` is added per host.
    pub run_flags: Vec<String>,
    /// The remote test directory (`--dir`, else /var/tmp): where a killed
    /// candor's test files are looked for.
    pub test_dir: String,
    pub timeouts: Timeouts,
    /// Leave the work directory and the binary on the hosts.
    pub keep: bool,
    /// Leave the binary in the hosts' cache.
    pub keep_binary: bool,
    /// The fleet output directory.
    pub out_dir: PathBuf,
    /// Unique file names for the hosts' Runs (`runs/<stem>.json`), by index.
    pub file_stems: Vec<String>,
    /// A private (0700) directory for the ssh control sockets.
    pub private_dir: PathBuf,
    /// Replace files in the output directory.
    pub force: bool,
    /// What each host has on it that this run made, for a second Ctrl-C.
    pub ledger: std::sync::Arc<ledger::Ledger>,
}
