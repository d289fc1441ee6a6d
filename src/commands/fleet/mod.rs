//! `candor fleet`: its subcommands' flags (one file each), parsed into the
//! calls of `session::fleet`, which does the work.

mod clean;
mod collect;
mod report;
mod run;
mod run_args;
mod run_flags;

pub use clean::CleanArgs;
pub use collect::CollectArgs;
pub use report::ReportArgs;
pub use run_args::RunArgs;
pub use run_flags::check_run_flags;

use clap::Subcommand;

/// Flags of `candor fleet`.
#[derive(Debug, clap::Args)]
pub struct Args {
    #[command(subcommand)]
    pub command: FleetCommand,
}

// Parsed once per process: the size of the largest variant does not matter.
#[allow(clippy::large_enum_variant)]
#[derive(Debug, Subcommand)]
pub enum FleetCommand {
    /// Benchmark every host of an inventory (or the hosts given) over ssh,
    /// then compare them: `candor fleet run -i hosts.ini -- --preset quick`.
    Run(RunArgs),
    /// Render a fleet run's directory again (fleet table and comparison).
    Report(ReportArgs),
    /// The contrib playbook's last step (contrib/ansible/candor.yml): its
    /// per-host results (JSON on stdin) into DIR/fleet.json and the
    /// comparison of the hosts measured in that play.
    Collect(CollectArgs),
    /// Remove from each host what a fleet run left there, as DIR/fleet.json
    /// names it (a run stopped by a second Ctrl-C or cut off, --keep,
    /// --keep-binary), then say what is still there.
    Clean(CleanArgs),
}

pub fn execute(args: Args) -> anyhow::Result<()> {
    match args.command {
        // The controller drives the system's OpenSSH through Unix sockets
        // and process groups: not ported to Windows, refused by name.
        FleetCommand::Run(_) | FleetCommand::Clean(_) if cfg!(windows) => Err(
            crate::error::usage("candor fleet run and clean are not ported to Windows (the controller drives ssh through Unix sockets); run them from Linux"),
        ),
        FleetCommand::Run(a) => run::execute(a),
        FleetCommand::Report(a) => report::execute(a),
        FleetCommand::Collect(a) => collect::execute(a),
        FleetCommand::Clean(a) => clean::execute(a),
    }
}

/// A limit's duration: more than zero (a limit of 0 would fail every host
/// at once, as a time-out, after the run was planned).
pub fn positive_duration(flag: &str, v: &str) -> anyhow::Result<std::time::Duration> {
    let d =
        crate::units::parse_duration(v).map_err(|e| crate::error::usage(format!("{flag}: {e}")))?;
    if d.is_zero() {
        return Err(crate::error::usage(format!(
            "{flag} {v}: a limit of zero would stop every host at once; give a duration such as 30s"
        )));
    }
    Ok(d)
}
