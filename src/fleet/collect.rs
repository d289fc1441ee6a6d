//! `candor fleet collect`: a fleet directory assembled from what the
//! contrib playbook left: its per-host results (`ansible.rs`) and the Runs
//! it fetched into `runs/`. fleet.json and the comparison files are
//! written; the compared Runs are read back one at a time, each given its
//! fleet context (`with_context`).

use super::destination::SameDestination;
use super::directory::{self, CompareRenderer};
use super::{ansible, binary, FleetSummary};
use crate::error::usage;
use crate::result::Run;
use std::path::{Path, PathBuf};

/// What `candor fleet collect` is given.
pub struct CollectRequest<'a> {
    /// The fleet directory the playbook fetched the Runs into.
    pub dir: &'a Path,
    /// The file of the playbook's per-host results
    /// (candor.ansible-results/1), `-` for standard input.
    pub results: &'a Path,
    /// The candor the playbook pushed: its sha256 goes into fleet.json.
    pub binary: Option<&'a Path>,
    /// Replace the fleet.json and compare.* of an earlier collect.
    pub force: bool,
    /// Only fleet.json, while the play runs (`ansible::in_progress`).
    pub in_progress: bool,
    /// Two names of the play for one destination: refused, or kept once.
    pub same_destination: SameDestination,
    /// The command line, for fleet.json.
    pub command: Vec<String>,
    /// Lays out the comparison files (`report::fleet_compare_files`).
    pub render: CompareRenderer,
    /// The files of the history the Runs go into: inputs, never outputs.
    pub history_files: Vec<PathBuf>,
}

/// Reads the results (`input`), checks the binary and the files to be written, then
/// writes fleet.json and the comparison; returns the fleet's summary (its
/// Runs are read back one at a time: `directory::each_compared_run`).
/// A bad input is a one-line usage error before anything is written.
pub fn assemble(req: CollectRequest) -> anyhow::Result<FleetSummary> {
    let dir = req.dir;
    if !dir.is_dir() {
        return Err(usage(format!(
            "{}: not a directory (the playbook's candor_out)",
            dir.display()
        )));
    }
    // Every file read is an input: the results, the binary, the history.
    let inputs: Vec<PathBuf> = std::iter::once(req.results)
        .filter(|r| r.as_os_str() != "-")
        .chain(req.binary)
        .map(Path::to_path_buf)
        .chain(req.history_files.iter().cloned())
        .collect();
    // Checked before they are read: a refusal costs nothing.
    directory::check_files(dir, "DIR", &[], req.force, &inputs)?;
    let (text, source) = crate::input::read_text_or_stdin(req.results, "results")?;
    let mut results = ansible::parse(&text, &source)?;
    let left_out = same_destinations(&results, req.same_destination)?;
    results
        .hosts
        .retain(|h| !left_out.iter().any(|(name, _)| name == &h.name));
    results
        .play_hosts
        .retain(|h| !left_out.iter().any(|(name, _)| name == h));
    let binary = req
        .binary
        .map(|p| {
            binary::load(p, "the playbook's candor_binary")
                .map(|(b, _)| b)
                .map_err(|e| usage(format!("--binary {}: cannot read: {e}", p.display())))
        })
        .transpose()?;
    if req.in_progress {
        let mut summary = ansible::in_progress(&results, dir, req.command);
        summary
            .notes
            .extend(left_out.into_iter().map(|(_, note)| note));
        let mut json = serde_json::to_vec_pretty(&summary)?;
        json.push(b'\n');
        crate::output::write_atomic(
            &dir.join("fleet.json"),
            &json,
            crate::output::Replace::from_force(req.force),
        )?;
        return Ok(summary);
    }
    let mut summary = ansible::summary(&results, dir, binary, req.command);
    summary
        .notes
        .extend(left_out.into_iter().map(|(_, note)| note));
    directory::write(dir, &summary, req.force, req.render)?;
    Ok(summary)
}

/// One destination, one name, as `candor fleet run` checks it: each host
/// of the play where ssh would connect (`ssh -G` with the host's own
/// address, port, user and arguments), two names for one destination
/// refused in one line, or (`once`) every name after the first left out.
/// Returns the names left out, each with its note.
pub fn same_destinations(
    results: &ansible::Results,
    policy: SameDestination,
) -> anyhow::Result<Vec<(String, String)>> {
    let program = super::run::which("ssh").ok_or_else(|| {
        anyhow::anyhow!("no ssh client on PATH: the hosts' destinations are resolved by ssh -G, as Ansible's ssh connection reaches them (install openssh-client)")
    })?;
    let options = super::ssh::SshOptions {
        program,
        config: None,
        options: Vec::new(),
        connect_timeout: std::time::Duration::from_secs(30),
        record_host_key: false,
    };
    let targets: Vec<_> = results.hosts.iter().map(|h| h.target()).collect();
    let (kept, notes) =
        super::destination::check(&options, targets, policy, "-e candor_same_destination=once")?;
    let left: Vec<String> = results
        .hosts
        .iter()
        .filter(|h| !kept.iter().any(|(t, _)| t.name == h.name))
        .map(|h| h.name.clone())
        .collect();
    Ok(left.into_iter().zip(notes).collect())
}

/// `candor fleet collect --check-destinations`: the play's hosts (their
/// results need no steps yet) checked before any battery; the names to
/// leave out (`once`), one per line.
pub fn check_destinations(results: &Path, policy: SameDestination) -> anyhow::Result<Vec<String>> {
    let (text, source) = crate::input::read_text_or_stdin(results, "results")?;
    let results = ansible::parse(&text, &source)?;
    Ok(same_destinations(&results, policy)?
        .into_iter()
        .map(|(name, _)| name)
        .collect())
}

/// A collected Run's fleet context: the Runs are Ansible's files, so the
/// context (the hosts it ran beside) goes into the history's copies only.
pub fn with_context(summary: &FleetSummary, host: &super::HostRecord, run: &mut Run) {
    if summary.parallel > 1 {
        run.fleet = Some(directory::context(summary, host));
    }
}
