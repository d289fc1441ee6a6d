//! `candor fleet run` and `candor fleet report`: the flags, checked into a
//! `fleet::run::Request` (the `candor run` flags after `--` are parsed here
//! exactly as the remote candor will parse them, so a bad one is refused
//! before any host is contacted), and the output.

use crate::error::usage;
use crate::fleet::{self, Timeouts};
use crate::output::{check, write_text, Replace};
use crate::report::{fleet_comparison, render_fleet, Format, Options};
use crate::units::parse_duration;
use clap::Subcommand;
use std::path::{Path, PathBuf};

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

/// Flags of `candor fleet run`.
#[derive(Debug, Default, clap::Args)]
pub struct RunArgs {
    /// An Ansible inventory (INI or YAML): groups, children, ansible_host,
    /// ansible_port, ansible_user, ansible_ssh_private_key_file,
    /// ansible_ssh_common_args, ansible_become.
    #[arg(short = 'i', long, value_name = "INVENTORY")]
    pub inventory: Option<PathBuf>,
    /// Who reads the inventory: `ansible` (ansible-inventory --list: every
    /// inventory the user's Ansible reads, scripts, plugins and templates
    /// included), `candor` (its own reader, for controllers without
    /// Ansible), or `auto`: ansible where ansible-inventory is on PATH.
    #[arg(long, value_name = "READER", default_value = "auto")]
    pub inventory_reader: String,
    /// Two selected hosts that reach one user@host:port (as ssh -G
    /// resolves them): `refuse` before anything runs (default), or `once`:
    /// measure that machine once, under the first name.
    #[arg(long, value_name = "POLICY", default_value = "refuse")]
    pub same_destination: String,
    /// Host patterns as Ansible's --limit reads them (`web`, `web:db`,
    /// `web:&prod`, `all:!db1`, `~db[0-9]+`, `web*`, `web[0]`), or hosts of
    /// their own as user@host[:port]. Default: every inventory host.
    #[arg(value_name = "HOST")]
    pub hosts: Vec<String>,
    /// Print the hosts the patterns select and how each is reached, then
    /// stop (nothing is connected to), as `ansible --list-hosts`.
    #[arg(long)]
    pub list_hosts: bool,
    /// The output directory (default candor-fleet-<UTC time> here).
    #[arg(short, long, value_name = "DIR")]
    pub output: Option<PathBuf>,
    /// Hosts measured at once. Default 1: hosts that share storage or
    /// network disturb each other, and the comparison notes who overlapped.
    #[arg(long, value_name = "N", default_value = "1")]
    pub parallel: String,
    /// The candor binary to push to hosts of an architecture
    /// (`aarch64=PATH`; x86_64, aarch64, armv7), or `PATH` for its own
    /// architecture; once per architecture. Default for each: this candor
    /// when it is static and of that architecture, else the static build
    /// `contrib/build-static.sh --target TRIPLE` left beside it.
    #[arg(long, value_name = "[ARCH=]PATH")]
    pub binary: Vec<String>,
    /// Leave the work directory (with the Run) and the binary on the hosts.
    #[arg(long)]
    pub keep: bool,
    /// Leave the binary in the hosts' cache (~/.cache/candor/bin), so the
    /// next fleet run does not upload it again.
    #[arg(long)]
    pub keep_binary: bool,
    /// Login limit per host (also ssh's ConnectTimeout).
    #[arg(long, value_name = "DUR", default_value = "30s")]
    pub timeout_connect: String,
    /// Limit for the cache check and upload per host.
    #[arg(long, value_name = "DUR", default_value = "10m")]
    pub timeout_upload: String,
    /// Limit for the battery per host; the remote run is stopped after it.
    #[arg(long, value_name = "DUR", default_value = "6h")]
    pub timeout_run: String,
    /// Limit for fetching the Run and for cleanup, per host.
    #[arg(long, value_name = "DUR", default_value = "2m")]
    pub timeout_fetch: String,
    /// Another ssh config file instead of ~/.ssh/config (ssh -F).
    #[arg(short = 'F', long, value_name = "FILE")]
    pub ssh_config: Option<PathBuf>,
    /// An ssh option for every host (ssh -o Key=Value); repeat for more.
    /// These come first, so they override candor's own.
    #[arg(long, value_name = "KEY=VALUE")]
    pub ssh_option: Vec<String>,
    /// Write into an existing, non-empty output directory.
    #[arg(long)]
    pub force: bool,
    /// No progress on stderr.
    #[arg(long, short)]
    pub quiet: bool,
    /// Flags for `candor run` on every host, after `--`.
    #[arg(last = true, value_name = "RUN FLAGS")]
    pub run_flags: Vec<String>,
    /// Each host's Run goes into this machine's history (never the hosts').
    #[command(flatten)]
    pub history: crate::session::history::HistoryFlags,
}

/// Flags of `candor fleet report`.
#[derive(Debug, clap::Args)]
pub struct ReportArgs {
    /// The directory `candor fleet run` wrote.
    #[arg(value_name = "DIR")]
    pub dir: PathBuf,
    /// Output format (text and md add the fleet table to the comparison).
    #[arg(long, short, value_enum, default_value = "text")]
    pub format: Format,
    #[command(flatten)]
    pub to: super::flags::PrintTo,
    #[command(flatten)]
    pub unit: super::flags::UnitFlag,
}

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

pub fn execute(args: Args) -> anyhow::Result<()> {
    match args.command {
        // The controller drives the system's OpenSSH through Unix sockets
        // and process groups: not ported to Windows, refused by name.
        FleetCommand::Run(_) | FleetCommand::Clean(_) if cfg!(windows) => Err(
            crate::error::usage("candor fleet run and clean are not ported to Windows (the controller drives ssh through Unix sockets); run them from Linux"),
        ),
        FleetCommand::Run(a) => run(a),
        FleetCommand::Report(a) => report(a),
        FleetCommand::Collect(a) => collect(a),
        FleetCommand::Clean(a) => clean(a),
    }
}

/// Flags of `candor run` that the fleet sets itself, per host.
const FLEET_SETS: [(&str, &str); 7] = [
    (
        "--output",
        "each host's Run goes to a work directory the fleet manages",
    ),
    ("--resume", "a fleet run starts each host afresh"),
    (
        "--force",
        "the fleet writes a new work directory on each host",
    ),
    ("--label", "each host is labelled with its inventory name"),
    ("--fleet-agent", "the fleet sets it"),
    (
        "--no-history",
        "the fleet adds the fetched Runs to this machine's history; give it before --",
    ),
    (
        "--db",
        "the fleet adds the fetched Runs to this machine's history; give it before --",
    ),
];

/// `candor run`'s flags alone, parsed as `candor run` parses them.
#[derive(clap::Parser)]
#[command(name = "candor run", max_term_width = 100)]
struct RunFlags {
    #[command(flatten)]
    args: super::run::Args,
}

/// Parses the flags after `--` as `candor run` will; returns them and the test directory.
pub fn check_run_flags(flags: &[String]) -> anyhow::Result<(Vec<String>, String)> {
    use clap::Parser;
    let argv = std::iter::once("candor run".to_string()).chain(flags.iter().cloned());
    let run_args = RunFlags::try_parse_from(argv)
        .map_err(|e| {
            let text = e.to_string();
            let first = text
                .lines()
                .find(|l| !l.trim().is_empty())
                .unwrap_or("bad flags")
                .trim_start_matches("error: ")
                .to_string();
            usage(format!(
                "after --: {first} (the flags after -- are candor run's; see candor run --help)"
            ))
        })?
        .args;
    for f in flags {
        let name = f.split('=').next().unwrap_or("");
        let name = if name == "-o" { "--output" } else { name };
        if let Some((flag, why)) = FLEET_SETS.iter().find(|(n, _)| *n == name) {
            return Err(usage(format!(
                "after --: {flag} is not for candor fleet: {why}"
            )));
        }
    }
    crate::commands::run::parse_flags(&run_args).map_err(|e| usage(format!("after --: {e}")))?;
    let dir = crate::session::test_dir_or_default(run_args.dir.as_deref())
        .display()
        .to_string();
    Ok((flags.to_vec(), dir))
}

/// `--list-hosts`: Ansible's layout (`  hosts (N):`, a host per line),
/// each host followed by the ssh destination candor would use.
fn list_hosts(
    inventory: Option<&std::path::Path>,
    reader: fleet::inventory::reader::InventoryReader,
    hosts: &[String],
) -> anyhow::Result<()> {
    let inv = inventory
        .map(|p| fleet::inventory::reader::read(p, reader))
        .transpose()?;
    let targets = fleet::select::select(inv.as_ref(), hosts)?;
    if let Some(inv) = &inv {
        fleet::inventory::reader::announce(inv);
    }
    let mut text = format!("  hosts ({}):\n", targets.len());
    for t in &targets {
        text.push_str(&format!("    {}  {}\n", t.name, t.describe()));
    }
    crate::output::write_text(None, &text, false)
}

fn run(a: RunArgs) -> anyhow::Result<()> {
    let duration = positive_duration;
    let timeouts = Timeouts {
        connect: duration("--timeout-connect", &a.timeout_connect)?,
        upload: duration("--timeout-upload", &a.timeout_upload)?,
        run: duration("--timeout-run", &a.timeout_run)?,
        fetch: duration("--timeout-fetch", &a.timeout_fetch)?,
    };
    let parallel = match a.parallel.trim().parse::<usize>() {
        Ok(n) if n >= 1 => n,
        _ => {
            return Err(usage(format!(
                "--parallel: '{}' is not a whole number of hosts (1 or more)",
                a.parallel
            )))
        }
    };
    if a.inventory.is_none() && a.hosts.is_empty() {
        return Err(usage(
            "no hosts: candor fleet run -i INVENTORY [HOST...] [-- RUN FLAGS], or hosts as user@host[:port]",
        ));
    }
    let binaries = a
        .binary
        .iter()
        .map(|v| fleet::binary::BinaryFlag::parse(v))
        .collect::<anyhow::Result<Vec<_>>>()?;
    let (run_flags, test_dir) = check_run_flags(&a.run_flags)?;
    let inventory_reader = fleet::inventory::reader::InventoryReader::parse(&a.inventory_reader)?;
    if a.list_hosts {
        return list_hosts(a.inventory.as_deref(), inventory_reader, &a.hosts);
    }
    let (dir, summary) = fleet::run::execute(fleet::run::Request {
        inventory: a.inventory,
        inventory_reader,
        same_destination: fleet::destination::SameDestination::parse(&a.same_destination)?,
        hosts: a.hosts,
        out_dir: a.output,
        parallel,
        binaries,
        keep: a.keep,
        keep_binary: a.keep_binary,
        force: a.force,
        quiet: a.quiet,
        timeouts,
        ssh_config: a.ssh_config,
        ssh_options: a.ssh_option,
        run_flags,
        test_dir,
        command: std::env::args_os()
            .map(|s| s.to_string_lossy().into_owned())
            .collect(),
        render: crate::report::fleet_compare_files,
        history_files: a.history.inputs(),
    })?;
    // After a stop, showing what finished is part of answering it.
    let tail = || -> anyhow::Result<()> {
        let comparison = fleet_comparison(&summary, &dir, |_, file, run| {
            a.history.record(run, Some(file), a.quiet)
        })?;
        write_text(
            None,
            &render_fleet(&summary, &comparison, Format::Text, &Options::default()),
            false,
        )?;
        if !a.quiet {
            eprintln!(
                "candor fleet: written to {}/ (fleet.json, runs/, compare.*)",
                dir.display()
            );
            if summary.interrupted {
                eprintln!(
                    "candor fleet: interrupted: the comparison is partial (the hosts that finished); candor fleet report {} renders it again",
                    dir.display()
                );
            }
        }
        Ok(())
    };
    if summary.interrupted {
        crate::cancel::finishing(tail)?;
    } else {
        tail()?;
    }
    fleet::run::outcome(&dir, &summary)
}

/// The files of a fleet directory and of its subdirectories (one level:
/// the hosts' Runs): what `fleet report` reads, never its output.
fn fleet_files(dir: &Path) -> Vec<PathBuf> {
    let mut files = Vec::new();
    let entries = |d: &Path| -> Vec<PathBuf> {
        std::fs::read_dir(d)
            .map(|rd| rd.filter_map(|e| e.ok().map(|e| e.path())).collect())
            .unwrap_or_default()
    };
    for entry in entries(dir) {
        match std::fs::symlink_metadata(&entry) {
            Ok(m) if m.is_dir() => files.extend(entries(&entry)),
            Ok(_) => files.push(entry),
            Err(_) => {}
        }
    }
    files
}

fn collect(a: CollectArgs) -> anyhow::Result<()> {
    let same_destination = fleet::destination::SameDestination::parse(&a.same_destination)?;
    if a.check_destinations {
        let left = fleet::collect::check_destinations(&a.results, same_destination)?;
        let text: String = left.iter().map(|n| format!("{n}\n")).collect();
        return write_text(None, &text, false);
    }
    let summary = fleet::collect::assemble(fleet::collect::CollectRequest {
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
    })?;
    if a.in_progress {
        return Ok(());
    }
    let comparison = fleet_comparison(&summary, &a.dir, |h, file, run| {
        fleet::collect::with_context(&summary, h, run);
        a.history.record(run, Some(file), a.quiet);
    })?;
    if !a.quiet {
        write_text(
            None,
            &render_fleet(&summary, &comparison, Format::Text, &Options::default()),
            false,
        )?;
    }
    fleet::run::outcome(&a.dir, &summary)
}

/// A limit's duration: more than zero (a limit of 0 would fail every host
/// at once, as a time-out, after the run was planned).
fn positive_duration(flag: &str, v: &str) -> anyhow::Result<std::time::Duration> {
    let d = parse_duration(v).map_err(|e| usage(format!("{flag}: {e}")))?;
    if d.is_zero() {
        return Err(usage(format!(
            "{flag} {v}: a limit of zero would stop every host at once; give a duration such as 30s"
        )));
    }
    Ok(d)
}

fn clean(a: CleanArgs) -> anyhow::Result<()> {
    let connect = positive_duration("--timeout-connect", &a.timeout_connect)?;
    if !a.dir.is_dir() {
        return Err(usage(format!(
            "{}: not a directory (give the directory candor fleet run wrote)",
            a.dir.display()
        )));
    }
    let done = fleet::clean::directory(&a.dir, a.ssh_config, a.ssh_option, connect)?;
    write_text(None, &crate::report::fleet_clean_text(&done), false)?;
    if done.stays > 0 {
        return Err(anyhow::anyhow!(
            "{} path(s) stay on the hosts, named in {}",
            done.stays,
            done.path.display()
        ));
    }
    Ok(())
}

fn report(a: ReportArgs) -> anyhow::Result<()> {
    if let Some(out) = &a.to.output {
        let inputs = fleet_files(&a.dir);
        let inputs: Vec<&Path> = inputs.iter().map(PathBuf::as_path).collect();
        check(out, "--output", Replace::from_force(a.to.force), &inputs)?;
    }
    let summary = fleet::directory::load(&a.dir)?;
    let comparison = fleet_comparison(&summary, &a.dir, |_, _, _| {})?;
    let text = render_fleet(
        &summary,
        &comparison,
        a.format,
        &Options {
            unit: a.unit.unit,
            ..Options::default()
        },
    );
    write_text(a.to.output.as_deref(), &text, a.to.force)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn flags(f: &[&str]) -> anyhow::Result<(Vec<String>, String)> {
        check_run_flags(&f.iter().map(|s| s.to_string()).collect::<Vec<_>>())
    }

    #[test]
    fn run_flags_are_checked_before_any_host() {
        let (f, dir) = flags(&["--preset", "quick", "--dir", "/srv/t"]).unwrap();
        assert_eq!(f.len(), 4);
        assert_eq!(dir, "/srv/t");
        assert_eq!(flags(&[]).unwrap().1, "/var/tmp");
        for (bad, says) in [
            (vec!["--preset", "fast"], "--preset: unknown preset 'fast'"),
            (vec!["--bogus"], "after --: unexpected argument '--bogus'"),
            (vec!["-o", "x.json"], "--output is not for candor fleet"),
            (vec!["--label=a"], "--label is not for candor fleet"),
            (vec!["--runtime", "soon"], "--runtime: 'soon'"),
        ] {
            let e = flags(&bad).unwrap_err();
            assert!(crate::error::is_usage(&e), "{bad:?}");
            assert!(e.to_string().contains(says), "{bad:?}: {e}");
            assert!(!e.to_string().contains('\n'));
        }
    }
}
