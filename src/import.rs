//! Result files other tools wrote, into Runs: fio's JSON (`json` or
//! `json+`, several files as passes; its client/server output as one Run
//! per host), one UnixBench report, one DiskSpd result (text or XML) or one
//! CrystalDiskMark result. The kind is told by the content, never the
//! file's name; each reader refuses what it cannot read truly (usage
//! errors, exit code 2).

use crate::error::usage;
use crate::result::Run;
use std::path::{Path, PathBuf};

/// What the files held.
#[derive(Debug)]
pub enum Imported {
    /// One Run (fio, UnixBench, DiskSpd, CrystalDiskMark).
    One(Box<Run>),
    /// fio's client/server output: one Run per server host, by host name.
    PerHost {
        source: PathBuf,
        runs: Vec<(String, Run)>,
    },
}

/// Reads `files` (at least one) into Runs. `label` names the host or run;
/// without it, the host the file names (UnixBench, DiskSpd) or the first
/// file's name (fio records no host name).
pub fn import(files: &[PathBuf], label: Option<String>) -> anyhow::Result<Imported> {
    let Some(path) = files.first() else {
        return Err(usage("no fio output files given: candor import FIO.json... [--label NAME] [--output RUN.json]"));
    };
    let first = crate::input::read_text(path).map_err(|e| usage(e.to_string()))?;
    let run = if crate::diskspd::import::is_result(&first) {
        alone(files, "a DiskSpd result")?;
        crate::diskspd::import::import(&first, path, label).map_err(usage)?
    } else if crate::crystaldiskmark::parse::is_result(&first) {
        alone(files, "a CrystalDiskMark result")?;
        crate::crystaldiskmark::import::import(&first, path, label).map_err(usage)?
    } else if crate::compute::unixbench::import::is_report(&first) {
        if files.len() > 1 {
            return Err(usage(format!(
                "{} is a UnixBench report: import one report at a time, without fio files",
                path.display()
            )));
        }
        crate::compute::unixbench::import::import(&first, path, label)
            .map_err(|e| usage(e.to_string()))?
    } else {
        let outputs = crate::fio::parse_files(files).map_err(|e| usage(e.to_string()))?;
        if outputs.iter().any(|o| o.client_server) {
            return per_host(&outputs);
        }
        // Without --label, the first file's name (reports would otherwise
        // say "unknown host": fio records no host name).
        let label = label.or_else(|| path.file_stem().map(|s| s.to_string_lossy().to_string()));
        crate::fio::import(&outputs, label).map_err(|e| usage(e.to_string()))?
    };
    Ok(Imported::One(Box::new(run)))
}

/// A result of a tool that is not fio is imported alone.
fn alone(files: &[PathBuf], what: &str) -> anyhow::Result<()> {
    if files.len() > 1 {
        return Err(usage(format!(
            "{} is {what}: import one at a time, without other files",
            files[0].display()
        )));
    }
    Ok(())
}

/// fio's client/server output, alone: one Run per server host.
fn per_host(outputs: &[crate::fio::FioOutput]) -> anyhow::Result<Imported> {
    let source = &outputs[0].path;
    if outputs.len() > 1 {
        return Err(usage(format!(
            "{} is fio client/server output (client_stats): import it alone (one Run per host)",
            source.display()
        )));
    }
    let runs = crate::fio::import_hosts(&outputs[0]).map_err(|e| usage(e.to_string()))?;
    Ok(Imported::PerHost {
        source: source.clone(),
        runs,
    })
}

/// The file of each host's Run: RUN.<host>.json beside `out` (RUN.json),
/// so that `candor compare RUN.*.json` sets the hosts side by side. Two
/// hosts whose names make one file name are refused.
pub fn per_host_files(
    source: &Path,
    out: Option<&Path>,
    runs: &[(String, Run)],
) -> anyhow::Result<Vec<PathBuf>> {
    let Some(out) = out else {
        let hosts: Vec<&str> = runs.iter().map(|(h, _)| h.as_str()).collect();
        return Err(usage(format!(
            "{} is fio client/server output from {} host(s) ({}): give --output RUN.json, and candor writes RUN.<host>.json for each",
            source.display(),
            hosts.len(),
            hosts.join(", ")
        )));
    };
    let stem = out
        .file_name()
        .map(|n| n.to_string_lossy().trim_end_matches(".json").to_string())
        .unwrap_or_default();
    let targets: Vec<PathBuf> = runs
        .iter()
        .map(|(host, _)| {
            out.with_file_name(format!(
                "{stem}.{}.json",
                crate::output::file_name_part(host)
            ))
        })
        .collect();
    for (i, t) in targets.iter().enumerate() {
        if targets[..i].contains(t) {
            return Err(usage(format!(
                "two hosts of {} give the same file name {}",
                source.display(),
                t.display()
            )));
        }
    }
    Ok(targets)
}
