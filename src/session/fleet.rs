//! A fleet's work between its flags and the screen: a fleet run or a
//! playbook's collect, then the comparison of the hosts that finished
//! (each Run into this machine's history as it is read), the fleet table
//! and the outcome's exit code; a directory rendered again; a clean-up.
//! `commands/fleet/` parses the flags into these calls.

use super::history::HistoryFlags;
use crate::fleet::collect::{self, CollectRequest};
use crate::fleet::destination::SameDestination;
use crate::fleet::inventory::reader::{self, InventoryReader};
use crate::fleet::{self, run::Request};
use crate::output::write_text;
use crate::report::{fleet_comparison, render_fleet, Format, Options};
use std::path::Path;
use std::time::Duration;

/// `fleet run --list-hosts`: Ansible's layout (`  hosts (N):`, a host a
/// line), each host followed by the ssh destination candor would use.
pub fn list_hosts(
    inventory: Option<&Path>,
    reader: InventoryReader,
    hosts: &[String],
) -> anyhow::Result<()> {
    let inv = inventory.map(|p| reader::read(p, reader)).transpose()?;
    let targets = fleet::select::select(inv.as_ref(), hosts)?;
    if let Some(inv) = &inv {
        reader::announce(inv);
    }
    let mut text = format!("  hosts ({}):\n", targets.len());
    for t in &targets {
        text.push_str(&format!("    {}  {}\n", t.name, t.describe()));
    }
    write_text(None, &text, false)
}

/// `fleet run`: every host measured, then the comparison of those that
/// finished (also after a stop: showing what finished is part of
/// answering it), and the run's outcome.
pub fn run(req: Request, history: &HistoryFlags) -> anyhow::Result<()> {
    let quiet = req.quiet;
    let (dir, summary) = fleet::run::execute(req)?;
    let tail = || -> anyhow::Result<()> {
        let comparison = fleet_comparison(&summary, &dir, |_, file, run| {
            history.record(run, Some(file), quiet)
        })?;
        print_table(&summary, &comparison)?;
        if !quiet {
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

/// `fleet collect --check-destinations`: the names to leave out, a line each.
pub fn check_destinations(results: &Path, policy: SameDestination) -> anyhow::Result<()> {
    let left = collect::check_destinations(results, policy)?;
    let text: String = left.iter().map(|n| format!("{n}\n")).collect();
    write_text(None, &text, false)
}

/// `fleet collect`: the playbook's directory assembled, then (unless the
/// play is still running) the comparison and the outcome, as `run`.
pub fn collect(req: CollectRequest, history: &HistoryFlags, quiet: bool) -> anyhow::Result<()> {
    let dir = req.dir;
    let in_progress = req.in_progress;
    let summary = collect::assemble(req)?;
    if in_progress {
        return Ok(());
    }
    let comparison = fleet_comparison(&summary, dir, |h, file, run| {
        collect::with_context(&summary, h, run);
        history.record(run, Some(file), quiet);
    })?;
    if !quiet {
        print_table(&summary, &comparison)?;
    }
    fleet::run::outcome(dir, &summary)
}

/// `fleet report`: a fleet directory rendered again, into `output` (checked
/// first: none of the directory's files) or on standard output.
pub fn report(
    dir: &Path,
    format: Format,
    options: &Options,
    output: Option<&Path>,
    force: bool,
) -> anyhow::Result<()> {
    if let Some(out) = output {
        let inputs = fleet::directory::files(dir);
        let inputs: Vec<&Path> = inputs.iter().map(|p| p.as_path()).collect();
        let replace = crate::output::Replace::from_force(force);
        crate::output::prepare(out, "--output", replace, &inputs)?;
    }
    let summary = fleet::directory::load(dir)?;
    let comparison = fleet_comparison(&summary, dir, |_, _, _| {})?;
    let text = render_fleet(&summary, &comparison, format, options);
    write_text(output, &text, force)
}

/// `fleet clean`: what the directory's fleet.json names as left on the
/// hosts removed, what stays said; an error while anything stays.
pub fn clean(
    dir: &Path,
    ssh_config: Option<std::path::PathBuf>,
    ssh_options: Vec<String>,
    connect: Duration,
) -> anyhow::Result<()> {
    if !dir.is_dir() {
        return Err(crate::error::usage(format!(
            "{}: not a directory (give the directory candor fleet run wrote)",
            dir.display()
        )));
    }
    let done = fleet::clean::directory(dir, ssh_config, ssh_options, connect)?;
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

/// The fleet table and the comparison, as text on standard output.
fn print_table(
    summary: &fleet::FleetSummary,
    comparison: &crate::report::Comparison,
) -> anyhow::Result<()> {
    let text = render_fleet(summary, comparison, Format::Text, &Options::default());
    write_text(None, &text, false)
}
