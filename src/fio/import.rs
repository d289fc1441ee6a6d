//! fio JSON output (`--output-format=json` or `json+`) read into a Run, so
//! that every finding and report works on fio results too.
//!
//! What is taken from fio, as fio printed it: `iops`, `bw_bytes` (bytes/s;
//! `bw` in KiB/s x 1024 where an old fio lacks it), `io_bytes`, `total_ios`,
//! completion-latency percentiles (`clat_ns`; `lat_ns` when only it has
//! percentiles), the job options as the spec, `usr_cpu`/`sys_cpu`. Lines
//! that fio (or a shell's `2>&1`) printed before the JSON are kept as notes.
//!
//! numjobs clones reported one by one (no `group_reporting`) are merged
//! into one measurement, each clone kept as a thread: IOPS, bytes and bytes/s
//! are summed (exact); min/max/mean/stdev combine exactly; percentiles are
//! exact from the summed latency bins of `json+` (the way fio computes its
//! own), and an N-weighted mean of the clones' percentiles (approximate)
//! from plain `json`. The Run's notes say which.
//!
//! fio's `disk_util` (per device, over the whole of one output's run) is
//! kept as the Run's `fio_disk_util`, with the jobs of that output.

use super::job::measurement;
use super::output::{parse_fio, FioOutput, ImportError};
use crate::result::*;
use crate::units::rfc3339_utc;
use serde_json::{Map, Value};
use std::collections::BTreeMap;
use std::path::PathBuf;

/// Reads fio output files into one Run (`source` = `fio-import`). A job
/// name seen in several files becomes several passes of that test.
pub fn import_files(paths: &[PathBuf], label: Option<String>) -> Result<Run, ImportError> {
    let outputs = parse_files(paths)?;
    if let Some(cs) = outputs.iter().find(|o| o.client_server) {
        return Err(super::output::bad(
            &cs.path,
            "fio client/server output (client_stats): it is imported as one Run per host, alone (candor import FILE --output RUN.json)",
        ));
    }
    import(&outputs, label)
}

/// Parses fio output files (each checked, in its version's units).
pub fn parse_files(paths: &[PathBuf]) -> Result<Vec<FioOutput>, ImportError> {
    paths
        .iter()
        .map(|path| parse_fio(&crate::input::read_text(path)?, path))
        .collect()
}

/// fio's client/server output (`fio --client a --client b`) as one Run per
/// server host, in the order fio printed them, each labelled with its host,
/// so that the hosts compare as a fleet does. fio's "All clients" sum is
/// left out (it is no host's).
pub fn import_hosts(out: &FioOutput) -> Result<Vec<(String, Run)>, ImportError> {
    let host_of = |v: &Value| {
        v.get("hostname")
            .and_then(Value::as_str)
            .unwrap_or_default()
            .to_string()
    };
    let mut hosts: Vec<String> = Vec::new();
    for job in &out.jobs {
        let h = host_of(job);
        if !hosts.contains(&h) {
            hosts.push(h);
        }
    }
    let mut runs = Vec::new();
    for host in hosts {
        let one = FioOutput {
            path: out.path.clone(),
            version: out.version.clone(),
            timestamp: out.timestamp,
            preamble: out.preamble.clone(),
            global: out.global.clone(),
            jobs: out
                .jobs
                .iter()
                .filter(|j| host_of(j) == host)
                .cloned()
                .collect(),
            disk_util: out
                .disk_util
                .iter()
                .filter(|d| host_of(d) == host)
                .cloned()
                .collect(),
            notes: out.notes.clone(),
            client_server: true,
        };
        let mut run = import(std::slice::from_ref(&one), Some(host.clone()))?;
        run.host.hostname = Some(host.clone());
        run.notes.push(format!(
            "One host of fio's client/server output: the jobs fio ran on {host} (fio's \"All clients\" sum is not imported)"
        ));
        runs.push((host, run));
    }
    Ok(runs)
}

/// Builds a Run from parsed fio outputs.
pub fn import(outputs: &[FioOutput], label: Option<String>) -> Result<Run, ImportError> {
    let mut run = Run::new(
        std::iter::once("candor".to_string())
            .chain(std::iter::once("import".to_string()))
            .chain(outputs.iter().map(|o| o.path.display().to_string()))
            .collect(),
    );
    run.source = "fio-import".to_string();
    let version = outputs
        .first()
        .map(|o| o.version.trim_start_matches("fio-").to_string())
        .unwrap_or_default();
    run.tool = Tool {
        name: "fio".to_string(),
        version,
        target: None,
        libraries: BTreeMap::new(),
    };
    run.label = label;
    run.plan = Some(serde_json::json!({
        "kind": "fio-import",
        "files": outputs.iter().map(|o| o.path.display().to_string()).collect::<Vec<_>>(),
    }));
    run.notes.push(format!(
        "Imported from fio output by candor {}; fio's figures are kept as fio printed them. fio records no per-second series, CPU steal or file allocation, so findings that need them are not checked.",
        env!("CARGO_PKG_VERSION")
    ));
    for out in outputs {
        for note in &out.notes {
            let note = format!("{}: {note}", out.path.display());
            if !run.notes.contains(&note) {
                run.notes.push(note);
            }
        }
    }
    let mut versions: Vec<String> = outputs.iter().map(|o| o.version.clone()).collect();
    versions.dedup();
    if versions.len() > 1 {
        run.notes.push(format!(
            "The files come from different fio versions: {}.",
            versions.join(", ")
        ));
    }
    let mut passes: BTreeMap<String, u32> = BTreeMap::new();
    let mut failed = false;
    let mut start_min: Option<u64> = None;
    let mut end_max: Option<u64> = None;
    let mut dirs: Vec<String> = Vec::new();
    for out in outputs {
        let name = out.path.display().to_string();
        for line in &out.preamble {
            let note = format!("{name}: fio printed before its JSON: {line}");
            if !run.notes.contains(&note) {
                run.notes.push(note);
            }
        }
        let first_measurement = run.measurements.len();
        for group in clone_groups(out) {
            // 30,000 jobs take a while: the first signal stops here.
            if crate::cancel::cancelled() {
                return Err(super::output::bad(&out.path, "stopped by a signal"));
            }
            let first = &out.jobs[group[0]];
            let jobname = first
                .get("jobname")
                .and_then(|j| j.as_str())
                .unwrap_or("fio job")
                .to_string();
            let pass = passes.entry(jobname.clone()).or_insert(0);
            *pass += 1;
            let job = measurement(out, &group, &jobname, *pass)?;
            failed |= job.error;
            if let Some(d) = job.dir {
                if !dirs.contains(&d) {
                    dirs.push(d);
                }
            }
            let mut m = job.measurement;
            m.notes = job.notes;
            if let Some(ts) = out.timestamp {
                let elapsed = first.get("elapsed").and_then(|e| e.as_u64()).unwrap_or(0);
                start_min = Some(
                    start_min.map_or(ts - elapsed.min(ts), |s: u64| s.min(ts - elapsed.min(ts))),
                );
                end_max = Some(end_max.map_or(ts, |e: u64| e.max(ts)));
            }
            run.measurements.push(Measurement::Disk(m));
        }
        let of_this_file: Vec<usize> = (first_measurement..run.measurements.len()).collect();
        run.fio_disk_util.extend(
            out.disk_util
                .iter()
                .map(|d| disk_util(&name, &of_this_file, d)),
        );
    }
    run.started_at = start_min.map(rfc3339_utc);
    run.finished_at = end_max.map(rfc3339_utc);
    if dirs.len() == 1 {
        run.host.storage = Some(StorageFacts {
            dir: dirs[0].clone(),
            ..StorageFacts::default()
        });
    }
    run.status = if failed {
        RunStatus::Failed
    } else {
        RunStatus::Complete
    };
    Ok(run)
}

/// One device of fio's `disk_util`, as fio printed it (checked already).
fn disk_util(file: &str, measurements: &[usize], d: &Value) -> FioDiskUtil {
    let n = |key: &str| d.get(key).and_then(Value::as_u64).unwrap_or(0);
    FioDiskUtil {
        file: file.to_string(),
        measurements: measurements.to_vec(),
        name: d
            .get("name")
            .and_then(Value::as_str)
            .unwrap_or_default()
            .to_string(),
        read_ios: n("read_ios"),
        write_ios: n("write_ios"),
        read_merges: n("read_merges"),
        write_merges: n("write_merges"),
        read_ticks_ms: n("read_ticks"),
        write_ticks_ms: n("write_ticks"),
        in_queue_ms: n("in_queue"),
        util_pct: d.get("util").and_then(Value::as_f64).unwrap_or(0.0),
        read_bytes: sectors(d, "read_sectors"),
        write_bytes: sectors(d, "write_sectors"),
        // fio prints the aggr_* fields only for a device with slaves.
        aggregate: d.get("aggr_read_ios").map(|_| FioDiskAggregate {
            read_ios: n("aggr_read_ios"),
            write_ios: n("aggr_write_ios"),
            read_merges: n("aggr_read_merges"),
            // fio's own spelling of this one key.
            write_merges: n("aggr_write_merge"),
            read_ticks_ms: n("aggr_read_ticks"),
            write_ticks_ms: n("aggr_write_ticks"),
            in_queue_ms: n("aggr_in_queue"),
            read_bytes: sectors(d, "aggr_read_sectors"),
            write_bytes: sectors(d, "aggr_write_sectors"),
            util_pct: d.get("aggr_util").and_then(Value::as_f64).unwrap_or(0.0),
        }),
    }
}

/// A sector count of fio's `disk_util` (512 bytes each) in bytes.
fn sectors(d: &Value, key: &str) -> Option<u64> {
    d.get(key)
        .and_then(Value::as_u64)
        .map(|s| s.saturating_mul(512))
}

/// Job entries grouped into measurements: consecutive entries with the same
/// name and group whose options say numjobs=N are N clones (no group_reporting).
fn clone_groups(out: &FioOutput) -> Vec<Vec<usize>> {
    let mut groups: Vec<Vec<usize>> = Vec::new();
    let key = |j: &Value| {
        (
            j.get("jobname")
                .and_then(|v| v.as_str())
                .unwrap_or("")
                .to_string(),
            j.get("groupid").and_then(|v| v.as_u64()).unwrap_or(0),
        )
    };
    for (i, job) in out.jobs.iter().enumerate() {
        let opts = options(&out.global, job);
        let numjobs: usize = opts
            .get("numjobs")
            .and_then(|n| n.parse().ok())
            .unwrap_or(1);
        if let Some(last) = groups.last_mut() {
            let head = &out.jobs[last[0]];
            if key(head) == key(job) && last.len() < numjobs {
                last.push(i);
                continue;
            }
        }
        groups.push(vec![i]);
    }
    groups
}

/// The global options overlaid with the job's own, as strings.
pub(super) fn options(global: &Map<String, Value>, job: &Value) -> BTreeMap<String, String> {
    let mut out = BTreeMap::new();
    let text = |v: &Value| match v {
        Value::String(s) => s.clone(),
        other => other.to_string(),
    };
    for (k, v) in global {
        out.insert(k.clone(), text(v));
    }
    if let Some(o) = job.get("job options").and_then(|o| o.as_object()) {
        for (k, v) in o {
            out.insert(k.clone(), text(v));
        }
    }
    out
}
