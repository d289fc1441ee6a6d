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

use super::run::*;
use crate::units::{parse_duration, parse_size, rfc3339_utc};
use serde_json::{Map, Value};
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

/// Why a file could not be imported. Each message names the file.
#[derive(Debug, thiserror::Error)]
pub enum ImportError {
    #[error("{path}: cannot read: {source}")]
    Io {
        path: PathBuf,
        source: std::io::Error,
    },
    #[error("{path}: {problem}")]
    Bad { path: PathBuf, problem: String },
}

fn bad(path: &Path, problem: impl Into<String>) -> ImportError {
    ImportError::Bad {
        path: path.to_path_buf(),
        problem: problem.into(),
    }
}

/// One fio output file, parsed.
#[derive(Debug)]
pub struct FioOutput {
    pub path: PathBuf,
    /// `fio-3.33`.
    pub version: String,
    /// Unix seconds when fio printed the output (the end of the run).
    pub timestamp: Option<u64>,
    /// Lines before the JSON (fio's notes and warnings).
    pub preamble: Vec<String>,
    pub global: Map<String, Value>,
    pub jobs: Vec<Value>,
}

/// Finds and parses the JSON in a fio output file. Text before the JSON
/// (fio's notes and warnings, or its normal output) and after it is allowed.
pub fn parse_fio(text: &str, path: &Path) -> Result<FioOutput, ImportError> {
    let text = text.trim_start_matches('\u{feff}');
    if text.trim().is_empty() {
        return Err(bad(path, "empty file, not fio JSON output"));
    }
    // The JSON starts at the first line that begins with '{'.
    let mut start = None;
    let mut offset = 0;
    for line in text.split_inclusive('\n') {
        if line.starts_with('{') {
            start = Some(offset);
            break;
        }
        offset += line.len();
    }
    let Some(start) = start else {
        return Err(bad(
            path,
            "no JSON found: not fio JSON output (run fio with --output-format=json or json+)",
        ));
    };
    let preamble: Vec<String> = text[..start]
        .lines()
        .map(|l| l.trim().to_string())
        .filter(|l| !l.is_empty())
        .collect();
    let mut stream = serde_json::Deserializer::from_str(&text[start..]).into_iter::<Value>();
    let value = match stream.next() {
        Some(Ok(v)) => v,
        Some(Err(e)) if e.is_eof() => {
            return Err(bad(
                path,
                format!("truncated fio JSON (the file ends early: {e})"),
            ))
        }
        Some(Err(e)) => return Err(bad(path, format!("not valid JSON: {e}"))),
        None => return Err(bad(path, "no JSON found: not fio JSON output")),
    };
    let Value::Object(top) = value else {
        return Err(bad(path, "JSON, but not fio output (not an object)"));
    };
    if top
        .get("schema")
        .and_then(|s| s.as_str())
        .is_some_and(|s| s.starts_with(SCHEMA_FAMILY))
    {
        return Err(bad(
            path,
            "this is a candor Run, not fio output: use `candor report` on it",
        ));
    }
    let Some(version) = top.get("fio version").and_then(|v| v.as_str()) else {
        if top.contains_key("client_stats") {
            return Err(bad(
                path,
                "fio client/server output (client_stats) is not supported; run fio locally",
            ));
        }
        return Err(bad(
            path,
            "JSON, but not fio output (no \"fio version\" field)",
        ));
    };
    let Some(jobs) = top.get("jobs").and_then(|j| j.as_array()) else {
        return Err(bad(path, "fio output without a \"jobs\" list"));
    };
    if jobs.is_empty() {
        return Err(bad(path, "fio output with no jobs"));
    }
    Ok(FioOutput {
        path: path.to_path_buf(),
        version: version.to_string(),
        timestamp: top.get("timestamp").and_then(|t| t.as_u64()),
        preamble,
        global: top
            .get("global options")
            .and_then(|g| g.as_object())
            .cloned()
            .unwrap_or_default(),
        jobs: jobs.clone(),
    })
}

/// Reads fio output files into one Run (`source` = `fio-import`). A job
/// name seen in several files becomes several passes of that test.
pub fn import_files(paths: &[PathBuf], label: Option<String>) -> Result<Run, ImportError> {
    let mut outputs = Vec::new();
    for path in paths {
        let text = std::fs::read_to_string(path).map_err(|source| ImportError::Io {
            path: path.clone(),
            source,
        })?;
        outputs.push(parse_fio(&text, path)?);
    }
    import(&outputs, label)
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
        for group in clone_groups(out) {
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
fn options(global: &Map<String, Value>, job: &Value) -> BTreeMap<String, String> {
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

fn f64_of(v: &Value, key: &str) -> f64 {
    v.get(key).and_then(|x| x.as_f64()).unwrap_or(0.0)
}

fn u64_of(v: &Value, key: &str) -> u64 {
    v.get(key)
        .and_then(|x| x.as_u64().or_else(|| x.as_f64().map(|f| f.max(0.0) as u64)))
        .unwrap_or(0)
}

/// fio's latency summary for one direction of one job entry.
struct Lat {
    min: u64,
    max: u64,
    mean: f64,
    stdev: f64,
    n: u64,
    /// percentile (e.g. 99.9) -> ns
    pct: Vec<(f64, u64)>,
    /// json+ only: bin value (ns) -> count
    bins: Option<BTreeMap<u64, u64>>,
    /// `clat_ns` or `lat_ns`
    source: &'static str,
}

/// candor's latency runs from submission to completion: fio's `lat_ns`. fio
/// prints percentiles of `lat_ns` only with `--lat_percentiles=1`; by
/// default only `clat_ns` (from the end of submission) has them, so that is
/// the fallback, and a note says so.
fn latency(dir: &Value) -> Lat {
    let pick = |key: &str| dir.get(key).filter(|v| v.get("percentile").is_some());
    let (v, source) = match (pick("lat_ns"), pick("clat_ns")) {
        (Some(v), _) => (v, "lat_ns"),
        (None, Some(v)) => (v, "clat_ns"),
        (None, None) => (dir.get("clat_ns").unwrap_or(&Value::Null), "clat_ns"),
    };
    let mut pct: Vec<(f64, u64)> = v
        .get("percentile")
        .and_then(|p| p.as_object())
        .map(|m| {
            m.iter()
                .filter_map(|(k, x)| Some((k.parse::<f64>().ok()?, x.as_u64()?)))
                .collect()
        })
        .unwrap_or_default();
    pct.sort_by(|a, b| a.0.total_cmp(&b.0));
    let bins = v.get("bins").and_then(|b| b.as_object()).map(|m| {
        m.iter()
            .filter_map(|(k, x)| Some((k.parse::<u64>().ok()?, x.as_u64()?)))
            .collect()
    });
    Lat {
        min: u64_of(v, "min"),
        max: u64_of(v, "max"),
        mean: f64_of(v, "mean"),
        stdev: f64_of(v, "stddev"),
        n: u64_of(v, "N"),
        pct,
        bins,
        source,
    }
}

/// fio's percentile from latency bins (stat.c, calc_clat_percentiles): the
/// value of the first bin where the running count reaches p% of all samples.
pub fn percentile_from_bins(bins: &BTreeMap<u64, u64>, p: f64) -> u64 {
    let total: u64 = bins.values().sum();
    let want = p / 100.0 * total as f64;
    let mut sum = 0u64;
    for (&value, &count) in bins {
        sum += count;
        if sum as f64 >= want {
            return value;
        }
    }
    bins.keys().next_back().copied().unwrap_or(0)
}

fn lookup(pct: &[(f64, u64)], p: f64) -> Option<u64> {
    pct.iter()
        .find(|(q, _)| (q - p).abs() < 1e-6)
        .map(|(_, v)| *v)
}

/// fio's latency bins as an HDR histogram (3 significant digits, V2 deflate,
/// base64: the form candor's own Runs keep), so imported json+ latencies
/// can be merged with other Runs'. Bins above an hour are clamped there.
pub fn bins_to_hdr_base64(bins: &BTreeMap<u64, u64>) -> Option<String> {
    use super::histogram::{encode, latency_histogram, HIGHEST_NS};
    let mut h = latency_histogram();
    for (&v, &n) in bins {
        h.record_n(v.clamp(1, HIGHEST_NS), n).ok()?;
    }
    encode(&h)
}

/// The percentiles candor keeps, in order: p50, p90, p99, p99.9, p99.99.
const KEPT: [f64; 5] = [50.0, 90.0, 99.0, 99.9, 99.99];

fn to_stats(dir: &Value, lat: &Lat, pct: [u64; 5]) -> DirectionStats {
    let bytes_per_sec = match dir.get("bw_bytes").and_then(|b| b.as_f64()) {
        Some(b) => b,
        None => f64_of(dir, "bw") * 1024.0,
    };
    DirectionStats {
        ops: u64_of(dir, "total_ios"),
        bytes: u64_of(dir, "io_bytes"),
        iops: f64_of(dir, "iops"),
        bytes_per_sec,
        lat_ns: LatencyStats {
            min: lat.min,
            mean: lat.mean,
            stdev: lat.stdev,
            p50: pct[0],
            p90: pct[1],
            p99: pct[2],
            p99_9: pct[3],
            p99_99: pct[4],
            max: lat.max,
            histogram: None,
        },
        series: Vec::new(),
    }
}

/// One direction over the clones of a job: (merged, per clone, notes).
fn direction(
    jobs: &[&Value],
    key: &str,
) -> (
    Option<DirectionStats>,
    Vec<Option<DirectionStats>>,
    Vec<String>,
) {
    let mut notes = Vec::new();
    let dirs: Vec<&Value> = jobs
        .iter()
        .map(|j| j.get(key).unwrap_or(&Value::Null))
        .collect();
    let lats: Vec<Lat> = dirs.iter().map(|d| latency(d)).collect();
    let per_clone: Vec<Option<DirectionStats>> = dirs
        .iter()
        .zip(&lats)
        .map(|(d, l)| {
            (u64_of(d, "total_ios") > 0).then(|| {
                let mut pct = [0u64; 5];
                for (i, p) in KEPT.iter().enumerate() {
                    pct[i] = lookup(&l.pct, *p).unwrap_or(0);
                }
                to_stats(d, l, pct)
            })
        })
        .collect();
    let done: Vec<usize> = (0..dirs.len())
        .filter(|&i| per_clone[i].is_some())
        .collect();
    if done.is_empty() {
        return (None, per_clone, notes);
    }
    if lats[done[0]].source == "clat_ns" {
        let slat: f64 = dirs
            .iter()
            .map(|d| f64_of(d.get("slat_ns").unwrap_or(&Value::Null), "mean"))
            .fold(0.0, f64::max);
        notes.push(format!(
            "{key} latency is fio's clat_ns (it excludes submission, mean slat {}); candor's own runs from submission, as fio's lat_ns: run fio with --lat_percentiles=1 for comparable percentiles",
            crate::units::fmt_ns(slat)
        ));
    }
    for p in KEPT {
        if done.iter().any(|&i| lookup(&lats[i].pct, p).is_none()) {
            notes.push(format!(
                "{key}: fio printed no p{p} percentile (custom percentile_list?): shown as 0"
            ));
        }
    }
    if done.len() == 1 {
        let mut merged = per_clone[done[0]].clone();
        if let (Some(m), Some(bins)) = (merged.as_mut(), lats[done[0]].bins.as_ref()) {
            m.lat_ns.histogram = bins_to_hdr_base64(bins);
        }
        return (merged, per_clone, notes);
    }
    // Merge the clones.
    let mut m = DirectionStats::default();
    let n_total: u64 = done.iter().map(|&i| lats[i].n).sum();
    for &i in &done {
        let s = per_clone[i].as_ref().expect("done clones have stats");
        m.ops += s.ops;
        m.bytes += s.bytes;
        m.iops += s.iops;
        m.bytes_per_sec += s.bytes_per_sec;
    }
    let w = |i: usize| {
        if n_total > 0 {
            lats[i].n as f64 / n_total as f64
        } else {
            1.0 / done.len() as f64
        }
    };
    let mean: f64 = done.iter().map(|&i| w(i) * lats[i].mean).sum();
    let var: f64 = done
        .iter()
        .map(|&i| w(i) * (lats[i].stdev.powi(2) + (lats[i].mean - mean).powi(2)))
        .sum();
    m.lat_ns.min = done.iter().map(|&i| lats[i].min).min().unwrap_or(0);
    m.lat_ns.max = done.iter().map(|&i| lats[i].max).max().unwrap_or(0);
    m.lat_ns.mean = mean;
    m.lat_ns.stdev = var.sqrt();
    let pct: Vec<u64> = if done.iter().all(|&i| lats[i].bins.is_some()) {
        let mut bins: BTreeMap<u64, u64> = BTreeMap::new();
        for &i in &done {
            for (v, c) in lats[i].bins.as_ref().expect("checked") {
                *bins.entry(*v).or_insert(0) += c;
            }
        }
        notes.push(format!(
            "{key}: {} clones merged (no group_reporting); percentiles exact from their summed json+ latency bins",
            done.len()
        ));
        m.lat_ns.histogram = bins_to_hdr_base64(&bins);
        KEPT.iter()
            .map(|&p| percentile_from_bins(&bins, p))
            .collect()
    } else {
        notes.push(format!(
            "{key}: {} clones merged (no group_reporting); percentiles are the N-weighted mean of the clones' percentiles (approximate: use json+ or group_reporting for exact ones)",
            done.len()
        ));
        KEPT.iter()
            .map(|&p| {
                done.iter()
                    .map(|&i| w(i) * lookup(&lats[i].pct, p).unwrap_or(0) as f64)
                    .sum::<f64>()
                    .round() as u64
            })
            .collect()
    };
    m.lat_ns.p50 = pct[0];
    m.lat_ns.p90 = pct[1];
    m.lat_ns.p99 = pct[2];
    m.lat_ns.p99_9 = pct[3];
    m.lat_ns.p99_99 = pct[4];
    (Some(m), per_clone, notes)
}

fn shell_quote(s: &str) -> String {
    if !s.is_empty()
        && s.chars()
            .all(|c| c.is_ascii_alphanumeric() || "-_./=:,+%@".contains(c))
    {
        s.to_string()
    } else {
        format!("'{}'", s.replace('\'', "'\\''"))
    }
}

/// One imported job.
struct Job {
    measurement: DiskMeasurement,
    /// Plain-word notes (merges, fallbacks, sync latency, errors).
    notes: Vec<String>,
    /// fio reported an error for the job.
    error: bool,
    /// The directory of its file (`directory`, or `filename`'s parent).
    dir: Option<String>,
}

/// One measurement from a group of job entries (one, or N clones).
fn measurement(
    out: &FioOutput,
    group: &[usize],
    jobname: &str,
    pass: u32,
) -> Result<Job, ImportError> {
    let jobs: Vec<&Value> = group.iter().map(|&i| &out.jobs[i]).collect();
    let first = jobs[0];
    let opts = options(&out.global, first);
    let path = &out.path;
    let mut notes: Vec<String> = Vec::new();
    let get = |k: &str| opts.get(k).map(|s| s.trim().to_string());
    let size_opt = |k: &str| -> Result<Option<u64>, ImportError> {
        match get(k) {
            None => Ok(None),
            Some(v) if v.ends_with('%') => Ok(None),
            Some(v) => {
                // fio allows "4k,8k" (read,write) and ranges "4k-16k": take the first.
                let first = v.split([',', '-', ':']).next().unwrap_or("").to_string();
                parse_size(&first)
                    .map(Some)
                    .map_err(|e| bad(path, format!("job {jobname}: option {k}={v}: {e}")))
            }
        }
    };
    let num = |k: &str, default: u32| -> Result<u32, ImportError> {
        match get(k) {
            None => Ok(default),
            Some(v) => v.parse().map_err(|_| {
                bad(
                    path,
                    format!("job {jobname}: option {k}={v} is not a number"),
                )
            }),
        }
    };
    let secs = |k: &str| -> Result<u64, ImportError> {
        match get(k) {
            None => Ok(0),
            Some(v) => parse_duration(&v)
                .map(|d| d.as_nanos() as u64)
                .map_err(|e| bad(path, format!("job {jobname}: option {k}={v}: {e}"))),
        }
    };
    let rw = match get("rw").or_else(|| get("readwrite")).as_deref() {
        None => "read".to_string(),
        Some("readwrite") | Some("rw") => "rw".to_string(),
        Some(other) => other.split(':').next().unwrap_or(other).to_string(),
    };
    if get("bs").is_some_and(|b| b.contains([',', '-', ':'])) {
        notes.push(format!(
            "bs={} has several sizes: the first is kept",
            get("bs").unwrap_or_default()
        ));
    }
    let bs = match size_opt("bs")? {
        Some(b) => b,
        None => size_opt("blocksize")?.unwrap_or(4096),
    };
    let numjobs = num("numjobs", 1)?;
    let mixed = matches!(rw.as_str(), "randrw" | "rw");
    let rwmixread = if mixed {
        match (get("rwmixread"), get("rwmixwrite")) {
            (Some(_), _) => Some(num("rwmixread", 50)?),
            (None, Some(_)) => Some(100u32.saturating_sub(num("rwmixwrite", 50)?)),
            _ => Some(50),
        }
    } else {
        None
    };
    let direct = get("direct").is_some_and(|d| d == "1" || d == "true")
        || get("buffered").is_some_and(|b| b == "0" || b == "false");
    let (fsync, fsync_name) = match (get("fsync"), get("fdatasync")) {
        (Some(_), _) => (num("fsync", 0)?, "fsync"),
        (None, Some(_)) => (num("fdatasync", 0)?, "fdatasync"),
        _ => (0, "fsync"),
    };
    if fsync_name == "fdatasync" && fsync > 0 {
        notes.push(format!("fdatasync={fsync} (recorded as fsync)"));
    }
    let engine = get("ioengine").unwrap_or_else(|| {
        notes.push("no ioengine given: fio's default psync".to_string());
        "psync".to_string()
    });
    // fio's synchronous engines keep one I/O in flight whatever iodepth says
    // (fio prints "queue depth will be capped at 1"); record what ran.
    let mut iodepth = num("iodepth", 1)?;
    let sync_engine = matches!(
        engine.as_str(),
        "sync" | "psync" | "vsync" | "pvsync" | "pvsync2" | "mmap"
    );
    if sync_engine && iodepth > 1 {
        notes.push(format!(
            "iodepth={iodepth} asked, but the synchronous engine {engine} runs at 1 (recorded as 1)"
        ));
        iodepth = 1;
    }
    // iodepth_batch is fio's alias of iodepth_batch_submit: default 1, 0 means iodepth.
    let batch_key = if get("iodepth_batch_submit").is_some() {
        "iodepth_batch_submit"
    } else {
        "iodepth_batch"
    };
    let iodepth_batch = match num(batch_key, 1)? {
        0 => iodepth,
        n => n.min(iodepth),
    };
    // fio reaps at most iodepth_batch_complete_max completions per call
    // (default: iodepth_batch_complete_min, itself 1). The rest wait in the
    // ring, timed, so at depth fio's latency reads higher than candor's,
    // which reaps every ready completion at once (BENCHMARKS.md).
    let reap_max = match get("iodepth_batch_complete_max") {
        Some(_) => num("iodepth_batch_complete_max", 1)?,
        None => num("iodepth_batch_complete_min", 1)?,
    }
    .max(1);
    if iodepth > 1 && reap_max < iodepth {
        notes.push(format!(
            "fio reaped at most {reap_max} completion(s) per call (iodepth_batch_complete_max) at iodepth {iodepth}: its latency includes the time completions waited to be reaped, so it reads higher than candor's at the same depth"
        ));
    }
    let spec = DiskSpec {
        rw,
        rwmixread,
        bs,
        iodepth,
        iodepth_batch: Some(iodepth_batch),
        numjobs,
        size: size_opt("size")?.unwrap_or(0),
        runtime_ns: secs("runtime")?,
        ramp_ns: secs("ramp_time")?,
        engine,
        engine_note: None,
        registered_buffers: get("fixedbufs").map(|f| f != "0"),
        direct,
        fsync,
        seed: get("randseed").and_then(|s| s.parse().ok()).unwrap_or(0),
    };
    // The command that reproduces the job: fio --name=... then the options.
    let mut cmd = format!("fio --name={}", shell_quote(jobname));
    for (k, v) in &opts {
        if k == "name" {
            continue;
        }
        if v.is_empty() {
            cmd.push_str(&format!(" --{k}"));
        } else {
            cmd.push_str(&format!(" --{k}={}", shell_quote(v)));
        }
    }
    let (read, read_clones, mut n1) = direction(&jobs, "read");
    let (write, write_clones, n2) = direction(&jobs, "write");
    notes.append(&mut n1);
    notes.extend(n2);
    if group.len() == 1 && numjobs > 1 {
        notes.push(format!("numjobs={numjobs} reported as one entry (group_reporting): fio merged the clones itself; no per-thread figures"));
    }
    if group.len() > 1 && group.len() < numjobs as usize {
        notes.push(format!(
            "only {} of numjobs={numjobs} clone entries found",
            group.len()
        ));
    }
    if let Some(sync) = first.get("sync").filter(|s| u64_of(s, "total_ios") > 0) {
        let l = latency(sync);
        notes.push(format!(
            "fio times syncs separately: {} syncs, latency p50 {} p99 {} (write latency here excludes the sync)",
            u64_of(sync, "total_ios"),
            crate::units::fmt_ns(lookup(&l.pct, 50.0).unwrap_or(0) as f64),
            crate::units::fmt_ns(lookup(&l.pct, 99.0).unwrap_or(0) as f64),
        ));
    }
    let mut error = false;
    for j in &jobs {
        let e = u64_of(j, "error");
        if e != 0 {
            error = true;
            notes.push(format!("fio reported error {e} for this job"));
        }
    }
    let threads = if group.len() > 1 {
        (0..group.len())
            .map(|i| ThreadStats {
                thread: i as u32,
                read: read_clones[i].clone(),
                write: write_clones[i].clone(),
            })
            .collect()
    } else {
        Vec::new()
    };
    let runtime_ms = jobs
        .iter()
        .map(|j| {
            let jr = u64_of(j, "job_runtime");
            if jr > 0 {
                jr
            } else {
                u64_of(j.get("read").unwrap_or(&Value::Null), "runtime")
                    .max(u64_of(j.get("write").unwrap_or(&Value::Null), "runtime"))
            }
        })
        .max()
        .unwrap_or(0);
    let cpu = CpuUse {
        usr_pct: jobs.iter().map(|j| f64_of(j, "usr_cpu")).sum(),
        sys_pct: jobs.iter().map(|j| f64_of(j, "sys_cpu")).sum(),
        steal_pct: 0.0,
        cpu_ns: 0,
    };
    let started_at = out.timestamp.map(|ts| {
        let elapsed = u64_of(first, "elapsed");
        rfc3339_utc(ts.saturating_sub(elapsed))
    });
    let dir = get("directory").or_else(|| {
        let f = get("filename")?;
        let parent = Path::new(f.split(':').next().unwrap_or(&f)).parent()?;
        Some(parent.display().to_string()).filter(|d| !d.is_empty())
    });
    Ok(Job {
        measurement: DiskMeasurement {
            profile: Some(jobname.to_string()),
            pass: Some(pass),
            role: FileRole::Main,
            started_at,
            spec,
            read,
            write,
            threads,
            cpu,
            measured_ns: runtime_ms * 1_000_000,
            file: None,
            fio_command: cmd,
            notes: Vec::new(),
        },
        notes,
        error,
        dir,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bins_follow_fio() {
        let bins: BTreeMap<u64, u64> = [(100, 50), (200, 40), (300, 9), (400, 1)]
            .into_iter()
            .collect();
        assert_eq!(percentile_from_bins(&bins, 50.0), 100);
        assert_eq!(percentile_from_bins(&bins, 90.0), 200);
        assert_eq!(percentile_from_bins(&bins, 99.0), 300);
        assert_eq!(percentile_from_bins(&bins, 99.9), 400);
    }

    #[test]
    fn bad_input_names_the_problem() {
        let p = Path::new("x.json");
        let e = |t: &str| parse_fio(t, p).unwrap_err().to_string();
        assert_eq!(e(""), "x.json: empty file, not fio JSON output");
        assert!(e("hello\nworld\n").contains("no JSON found"));
        assert!(e("{\"fio version\": \"fio-3.33\", \"jobs\": [").contains("truncated"));
        assert!(e("{\"a\": 1}").contains("not fio output"));
        assert!(e("{\"schema\": \"candor.run/1\"}").contains("candor Run"));
        assert!(e("{\"fio version\": \"fio-3.33\", \"jobs\": []}").contains("no jobs"));
        assert!(e("{nope}").contains("not valid JSON"));
    }
}
