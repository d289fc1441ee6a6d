//! The flags of `candor run`, as clap reads them (text: `lower.rs` parses
//! each value so that a bad one is one line naming its flag, exit code 2).

use crate::report::Format;
use std::path::PathBuf;

/// Flags of `candor run`.
#[derive(Debug, Default, clap::Args)]
pub struct Args {
    /// quick (about 2 minutes, 1 pass, no control file), standard (default:
    /// 3 passes, control file), full (3 passes of 30 s per test, 20 s
    /// pauses), or CrystalDiskMark's peak, realworld, nvme selections.
    #[arg(long, value_name = "NAME")]
    pub preset: Option<String>,
    /// The test directory (default /var/tmp; tmpfs is refused).
    #[arg(long, value_name = "DIR")]
    pub dir: Option<PathBuf>,
    /// Passes of the whole battery, run as rounds.
    #[arg(long, value_name = "N")]
    pub passes: Option<String>,
    /// Measured time of each disk test (e.g. 30s).
    #[arg(long, value_name = "DUR")]
    pub runtime: Option<String>,
    /// Longest warm-up before each disk test's measured interval, not
    /// counted; it ends earlier once the throughput has settled.
    #[arg(long, value_name = "DUR")]
    pub ramp: Option<String>,
    /// Rest after a write: no disk test starts until this long after the
    /// last test that wrote or the last file layout ended (lets write-back
    /// settle); compute groups run in the rest.
    #[arg(long, value_name = "DUR")]
    pub pause: Option<String>,
    /// Size of the main test file (e.g. 1G).
    #[arg(long, value_name = "SIZE")]
    pub size: Option<String>,
    /// The control file for the host-cache check: auto (at least 2x RAM,
    /// bounded by free space), a size, or off.
    #[arg(long, value_name = "auto|SIZE|off")]
    pub control_size: Option<String>,
    /// Measured time of each compute test (and of each UnixBench pass, when given).
    #[arg(long, value_name = "DUR")]
    pub compute_runtime: Option<String>,
    /// Run only these groups: disk, control, cpu, memory, crypto, compress,
    /// os, unixbench (UnixBench's index: in the full preset only, about 22
    /// minutes per copy count with UnixBench's pass lengths; --compute-runtime
    /// sets its passes' length instead).
    #[arg(long, value_name = "GROUPS")]
    pub only: Option<String>,
    /// Leave these groups out.
    #[arg(long, value_name = "GROUPS")]
    pub skip: Option<String>,
    /// A name for this host in reports (default: the hostname).
    #[arg(long, value_name = "NAME")]
    pub label: Option<String>,
    /// The Run file (default candor-<hostname>-<UTC time>.json here).
    #[arg(long, short, value_name = "FILE")]
    pub output: Option<PathBuf>,
    /// The summary printed at the end: text (default), md, csv, json (the Run) or html.
    #[arg(long, value_enum, default_value = "text")]
    pub format: Format,
    #[command(flatten)]
    pub verbose: crate::commands::flags::VerboseFlag,
    /// Replace the Run file if it exists (candor never overwrites a file otherwise).
    #[arg(long)]
    pub force: bool,
    /// Carry on with an interrupted Run file (its plan; finished measurements are kept).
    #[arg(long, value_name = "FILE")]
    pub resume: Option<PathBuf>,
    /// No progress on stderr.
    #[arg(long, short)]
    pub quiet: bool,
    #[command(flatten)]
    pub history: crate::session::history::HistoryFlags,
    /// Started by `candor fleet` over ssh (no terminal): progress lines on
    /// stderr all the same, the process id announced first (the controller
    /// removes a killed run's test files by it), and the run stopped as by
    /// SIGHUP when standard input closes (the controller or its connection
    /// is gone).
    #[arg(long, hide = true)]
    pub fleet_agent: bool,
}
