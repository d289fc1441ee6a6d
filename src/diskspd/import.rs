//! A DiskSpd result (text or XML) as a Run (`source` = `diskspd-import`):
//! one measurement per target, its threads kept as threads, its spec in
//! candor's vocabulary (`-r` random, `-w` the write share, `-b`, `-o` per
//! thread, the threads on the target, `-Su`/`-Sh` as O_DIRECT, write-through
//! as `dsync`), DiskSpd's counts as printed and its rates over its test
//! time. What candor's spec cannot say is in the Run's notes, and a result
//! that ran through the OS cache says so in every report.

use super::result::{same_path, Counts, DiskSpdResult, Percentile, ThreadRow};
use crate::result::*;
use std::collections::BTreeMap;
use std::path::Path;

/// Whether `text` is a DiskSpd result, text or XML.
pub fn is_result(text: &str) -> bool {
    super::result_text::is_text_result(text) || super::result_xml::is_xml_result(text)
}

/// Reads a DiskSpd result into a Run. Errors are one line naming the file.
pub fn import(text: &str, path: &Path, label: Option<String>) -> Result<Run, String> {
    let name = path.display();
    let result = if super::result_xml::is_xml_result(text) {
        super::result_xml::parse(text)
    } else {
        super::result_text::parse(text)
    }
    .map_err(|e| format!("{name}: DiskSpd result: {e}"))?;
    Ok(run_of(&result, path, label))
}

/// The Run of a parsed result.
pub fn run_of(r: &DiskSpdResult, path: &Path, label: Option<String>) -> Run {
    let mut run = Run::new(vec![
        "candor".into(),
        "import".into(),
        path.display().to_string(),
    ]);
    run.source = "diskspd-import".into();
    run.tool = Tool {
        name: if r.linux_port {
            "diskspd-for-linux".into()
        } else {
            "diskspd".into()
        },
        version: r.version.clone().unwrap_or_default(),
        target: None,
        libraries: BTreeMap::new(),
    };
    // The machine is the one DiskSpd names (its XML's ComputerName); a
    // file name is no host (the history asks for --label instead).
    run.label = label;
    run.host.hostname = r.computer.clone();
    run.started_at = r.start.as_deref().and_then(crate::units::slashed_date_utc);
    run.finished_at = None;
    run.plan = Some(serde_json::json!({
        "kind": "diskspd-import",
        "file": path.display().to_string(),
        "format": r.format,
        "command": r.command,
    }));
    run.notes.push(format!(
        "Imported from DiskSpd's {} result by candor {}; DiskSpd's counts are kept as it printed them, rates are its bytes and I/Os over its test time ({:.3} s). DiskSpd records no per-second series candor reads, CPU steal or file allocation, so findings that need them are not checked.",
        if r.format == "xml" { "XML" } else { "text" },
        env!("CARGO_PKG_VERSION"),
        r.seconds
    ));
    if let Some(cmd) = &r.command {
        run.notes.push(format!("DiskSpd's command: {cmd}"));
    }
    if r.linux_port {
        run.notes.push("The Linux port of DiskSpd (microsoft/diskspd-for-linux): its \"MB/s\" column is MiB/s (bytes / 1,048,576 / seconds), read as such".into());
    }
    if !r.latency {
        run.notes
            .push("DiskSpd ran without -L: it measured no latency (recorded as 0)".into());
    }
    if r.start.is_some() && run.started_at.is_none() {
        run.notes.push(format!(
            "DiskSpd's start time '{}' is not a date: not recorded",
            r.start.as_deref().unwrap_or_default()
        ));
    }
    run.notes.extend(r.notes.iter().cloned());
    for t in &r.targets {
        let rows: Vec<&ThreadRow> = r
            .rows
            .iter()
            .filter(|x| same_path(&x.target, &t.path))
            .collect();
        if rows.is_empty() {
            continue;
        }
        let mut notes = Vec::new();
        let threads = {
            let mut ids: Vec<u32> = rows.iter().map(|x| x.thread).collect();
            ids.sort_unstable();
            ids.dedup();
            ids.len() as u32
        };
        if t.os_cache {
            notes.push(format!(
                "{}: DiskSpd ran with the OS cache on (no -Su or -Sh): reads may have come from memory and writes ended when copied to it; these figures are the cache's as much as the disk's",
                t.path
            ));
        }
        if t.write_through && t.write_percent > 0 {
            notes.push(format!(
                "{}: writes through the drive's cache (-Sw or -Sh, FILE_FLAG_WRITE_THROUGH), recorded as dsync",
                t.path
            ));
        }
        let percentiles = percentiles_of(r, &t.path);
        if r.latency && percentiles.is_none() {
            notes.push(format!(
                "{}: DiskSpd printed its latency percentiles over all targets only: this target's are not known (recorded as 0)",
                t.path
            ));
        }
        // One target: DiskSpd's own mean over it; several: the rows' combined.
        let whole = r.targets.len() == 1;
        let read = direction(r, &rows, |x| &x.read, percentiles.map(|p| (p, false)))
            .map(|d| exact_mean(d, whole.then_some(&r.total_read)));
        let write = direction(r, &rows, |x| &x.write, percentiles.map(|p| (p, true)))
            .map(|d| exact_mean(d, whole.then_some(&r.total_write)));
        if !whole && r.latency && rows.len() > 1 {
            notes.push(format!(
                "{}: the mean and standard deviation combine the threads' (each printed to 0.001 ms)",
                t.path
            ));
        }
        let spec = DiskSpec {
            rw: Rw::parse(match (t.random_align.is_some(), t.write_percent) {
                (true, 0) => "randread",
                (true, 100) => "randwrite",
                (true, _) => "randrw",
                (false, 0) => "read",
                (false, 100) => "write",
                (false, _) => "rw",
            }),
            rwmixread: (t.write_percent > 0 && t.write_percent < 100)
                .then(|| 100 - t.write_percent),
            bs: t.block_size,
            iodepth: t.outstanding.max(1),
            iodepth_batch: None,
            numjobs: threads,
            size: t.file_size.unwrap_or(0),
            runtime_ns: r.duration_s.unwrap_or(0).saturating_mul(1_000_000_000),
            ramp_ns: r.warmup_s.unwrap_or(0).saturating_mul(1_000_000_000),
            engine: if r.linux_port {
                "diskspd-for-linux".into()
            } else {
                "diskspd".into()
            },
            direct: !t.os_cache,
            write_sync: (t.write_through && t.write_percent > 0).then(|| "dsync".to_string()),
            align: t.random_align.filter(|a| *a != t.block_size),
            ..Default::default()
        };
        let thread_stats = if rows.len() > 1 {
            rows.iter()
                .map(|x| ThreadStats {
                    thread: x.thread,
                    read: one_row(r, &x.read),
                    write: one_row(r, &x.write),
                })
                .collect()
        } else {
            Vec::new()
        };
        run.measurements.push(Measurement::Disk(DiskMeasurement {
            profile: None,
            pass: Some(1),
            role: FileRole::Main,
            started_at: run.started_at.clone(),
            spec,
            read,
            write,
            threads: thread_stats,
            cpu: CpuUse::default(),
            measured_ns: (r.seconds * 1e9) as u64,
            file: None,
            span: None,
            sync: None,
            // No fio command reproduces it: DiskSpd's own is in the notes and the plan.
            fio_command: String::new(),
            notes,
            job: None,
            block_stack: Vec::new(),
            beside_other_jobs: r.targets.len() > 1,
            device: None,
            verify: None,
        }));
    }
    if r.targets.len() > 1 {
        run.notes.push(format!(
            "DiskSpd ran {} targets at the same time: one measurement each, measured together",
            r.targets.len()
        ));
    }
    run.status = RunStatus::Complete;
    run
}

/// The distribution of one target: its own if DiskSpd printed one per
/// target, else the one over all targets when there is only one.
fn percentiles_of<'a>(r: &'a DiskSpdResult, path: &str) -> Option<&'a [Percentile]> {
    if let Some((_, ps)) = r
        .target_percentiles
        .iter()
        .find(|(p, _)| same_path(p, path))
    {
        return Some(ps);
    }
    (r.targets.len() == 1 && !r.percentiles.is_empty()).then_some(r.percentiles.as_slice())
}

/// DiskSpd's printed mean and deviation over the whole target, where it printed them.
fn exact_mean(mut d: DirectionStats, total: Option<&Counts>) -> DirectionStats {
    if let Some(t) = total {
        if let Some(m) = t.mean_ms {
            d.lat_ns.mean = m * 1e6;
        }
        if let Some(s) = t.stdev_ms {
            d.lat_ns.stdev = s * 1e6;
        }
    }
    d
}

fn ms_to_ns(ms: f64) -> u64 {
    (ms * 1e6).round() as u64
}

/// One direction over a target's rows: counts summed, the mean weighted by
/// I/Os, the standard deviation combined exactly, the percentiles DiskSpd
/// printed. None when nothing moved that way.
fn direction(
    r: &DiskSpdResult,
    rows: &[&ThreadRow],
    pick: impl Fn(&ThreadRow) -> &Counts,
    percentiles: Option<(&[Percentile], bool)>,
) -> Option<DirectionStats> {
    let ios: u64 = rows.iter().map(|x| pick(x).ios).sum();
    if ios == 0 {
        return None;
    }
    let bytes: u64 = rows.iter().map(|x| pick(x).bytes).sum();
    let mut lat = LatencyStats::default();
    if r.latency {
        let n = ios as f64;
        let mean = rows
            .iter()
            .map(|x| pick(x).mean_ms.unwrap_or(0.0) * pick(x).ios as f64)
            .sum::<f64>()
            / n;
        let var = rows
            .iter()
            .map(|x| {
                let c = pick(x);
                let s = c.stdev_ms.unwrap_or(0.0);
                let m = c.mean_ms.unwrap_or(0.0);
                c.ios as f64 * (s * s + (m - mean) * (m - mean))
            })
            .sum::<f64>()
            / n;
        lat.mean = mean * 1e6;
        lat.stdev = var.sqrt() * 1e6;
        if let Some((ps, write)) = percentiles {
            let at = |pct: f64| {
                ps.iter()
                    .find(|p| (p.pct - pct).abs() < 1e-6)
                    .and_then(|p| if write { p.write_ms } else { p.read_ms })
                    .map_or(0, ms_to_ns)
            };
            lat.min = at(0.0);
            lat.p50 = at(50.0);
            lat.p90 = at(90.0);
            lat.p99 = at(99.0);
            lat.p99_9 = at(99.9);
            lat.p99_99 = at(99.99);
            lat.max = at(100.0);
        }
    }
    Some(DirectionStats {
        ops: ios,
        bytes,
        iops: ios as f64 / r.seconds,
        bytes_per_sec: bytes as f64 / r.seconds,
        lat_ns: lat,
        series: Vec::new(),
    })
}

/// One row's direction as a thread's figures (no percentiles: DiskSpd
/// prints them per target at most).
fn one_row(r: &DiskSpdResult, c: &Counts) -> Option<DirectionStats> {
    (c.ios > 0).then(|| DirectionStats {
        ops: c.ios,
        bytes: c.bytes,
        iops: c.ios as f64 / r.seconds,
        bytes_per_sec: c.bytes as f64 / r.seconds,
        lat_ns: LatencyStats {
            mean: c.mean_ms.unwrap_or(0.0) * 1e6,
            stdev: c.stdev_ms.unwrap_or(0.0) * 1e6,
            ..LatencyStats::default()
        },
        series: Vec::new(),
    })
}
