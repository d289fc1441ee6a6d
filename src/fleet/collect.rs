//! `candor fleet collect`: a fleet directory assembled from what the
//! contrib playbook left: its per-host results (`ansible.rs`) and the Runs
//! it fetched into `runs/`. fleet.json and the comparison files are
//! written; the compared Runs are read back one at a time, each given its
//! fleet context (`with_context`).

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
    let results = ansible::parse(&text, &source)?;
    let binary = req
        .binary
        .map(|p| {
            binary::load(p, "the playbook's candor_binary")
                .map(|(b, _)| b)
                .map_err(|e| usage(format!("--binary {}: cannot read: {e}", p.display())))
        })
        .transpose()?;
    if req.in_progress {
        let summary = ansible::in_progress(&results, dir, req.command);
        let mut json = serde_json::to_vec_pretty(&summary)?;
        json.push(b'\n');
        crate::output::write_atomic(
            &dir.join("fleet.json"),
            &json,
            crate::output::Replace::from_force(req.force),
        )?;
        return Ok(summary);
    }
    let summary = ansible::summary(&results, dir, binary, req.command);
    directory::write(dir, &summary, req.force, req.render)?;
    Ok(summary)
}

/// A collected Run's fleet context: the Runs are Ansible's files, so the
/// context (the hosts it ran beside) goes into the history's copies only.
pub fn with_context(summary: &FleetSummary, host: &super::HostRecord, run: &mut Run) {
    if summary.parallel > 1 {
        run.fleet = Some(directory::context(summary, host));
    }
}
