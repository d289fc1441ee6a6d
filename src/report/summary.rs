//! The summary of one Run that every format lays out: one row per disk test
//! and direction (median over passes, spread, main/control ratio), one row
//! per compute test, and the facts a reader needs to judge them (test
//! directory, file sizes, engine, duration). Pure: no formatting here.

pub use crate::result::Direction;
use crate::result::{
    ComputeMeasurement, DirectionStats, DiskSpec, FileRole, Finding, FindingStatus, Measurement,
    Run, Spread,
};
use crate::units::parse_rfc3339;

/// One disk test and direction over its passes.
#[derive(Debug, Clone)]
pub struct DiskRow {
    /// The profile (`SEQ1M Q8T1`) or, for a single job, its spec's label (`RND4K Q32T1`).
    pub label: String,
    pub direction: Direction,
    pub role: FileRole,
    /// The spec of the first pass (the passes share it).
    pub spec: DiskSpec,
    /// Bytes per second, over passes.
    pub bytes_per_sec: Spread,
    pub iops: Spread,
    pub lat_mean: Spread,
    pub p50: Spread,
    pub p90: Spread,
    pub p99: Spread,
    pub p99_9: Spread,
    pub p99_99: Spread,
    pub lat_max: Spread,
    /// candor's CPU use (user + system, percent of one CPU) over passes.
    pub cpu_pct: Spread,
    /// The host's steal time (percent of all CPUs) over passes.
    pub steal_pct: Spread,
    /// The index in `Run::measurements` of each pass, in pass order.
    pub measurements: Vec<usize>,
    /// For a main row: the control file's bytes/s median for the same test
    /// and direction, and main/control (above 1: the small file is faster).
    pub control: Option<(Spread, f64)>,
}

impl DiskRow {
    /// `SEQ1M Q8T1 read`, with `(control file)` for control rows.
    pub fn name(&self) -> String {
        crate::result::subject(&self.label, self.direction, self.role)
    }

    /// Large blocks are judged by bandwidth, small ones by IOPS (as CrystalDiskMark does).
    pub fn bandwidth_bound(&self) -> bool {
        self.spec.bs >= 64 * 1024
    }

    /// One I/O in flight in total: the latency a single dependent chain feels.
    pub fn is_qd1(&self) -> bool {
        self.spec.is_qd1()
    }
}

/// What a compute figure counts.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ComputeUnit {
    Events,
    Bytes,
    Ops,
}

/// One compute test over its passes.
#[derive(Debug, Clone)]
pub struct ComputeRow {
    /// `cpu`, `memory`, `crypto`, `compress` or `os`.
    pub kind: &'static str,
    pub test: String,
    pub threads: u32,
    pub unit: ComputeUnit,
    pub value: Spread,
    /// For the all-threads row of a test also run with one thread: this / one thread.
    pub scaling: Option<f64>,
    pub notes: Vec<String>,
}

impl ComputeRow {
    /// `cpu primes` and so on.
    pub fn name(&self) -> String {
        format!("{} {}", self.kind, self.test)
    }
}

/// A Run reduced to what a report shows.
#[derive(Debug, Clone)]
pub struct Summary {
    pub disk: Vec<DiskRow>,
    pub compute: Vec<ComputeRow>,
    /// The most passes any test ran.
    pub passes: u32,
    /// Distinct engines that ran, with their fallback notes.
    pub engines: Vec<String>,
    /// O_DIRECT for every disk test (Some(true)), none (Some(false)), mixed or no disk tests (None).
    pub direct: Option<bool>,
    /// Tests that ran through the page cache (not O_DIRECT), by label.
    pub buffered_tests: Vec<String>,
    /// Distinct file sizes (bytes) per role.
    pub main_sizes: Vec<u64>,
    pub control_sizes: Vec<u64>,
    /// Distinct test file paths.
    pub file_paths: Vec<String>,
    /// Wall time of the run in seconds (finished - started), else the sum of measured intervals.
    pub duration_s: Option<f64>,
    /// Whether the duration comes from timestamps (true) or measured intervals (false).
    pub duration_from_clock: bool,
    /// `plan.preset`, if the plan names one.
    pub preset: Option<String>,
}

impl Summary {
    pub fn of(run: &Run) -> Summary {
        let disk = disk_rows(run);
        let compute = compute_rows(run);
        let passes = run
            .measurements
            .iter()
            .filter_map(|m| m.pass())
            .max()
            .unwrap_or(1);
        let mut engines: Vec<String> = Vec::new();
        let mut directs: Vec<bool> = Vec::new();
        let mut buffered_tests: Vec<String> = Vec::new();
        let mut main_sizes = Vec::new();
        let mut control_sizes = Vec::new();
        let mut file_paths = Vec::new();
        let mut measured_ns: u64 = 0;
        use std::collections::HashSet;
        let (mut seen_engines, mut seen_directs, mut seen_buffered) =
            (HashSet::new(), HashSet::new(), HashSet::new());
        let (mut seen_main_sizes, mut seen_control_sizes, mut seen_paths) =
            (HashSet::new(), HashSet::new(), HashSet::new());
        for m in &run.measurements {
            // A stop asked for: the report is not printed (`write_text`).
            if crate::cancel::cancelled() {
                break;
            }
            match m {
                Measurement::Disk(d) => {
                    // fio's default of one operation per submit call goes unsaid.
                    let batch = d
                        .spec
                        .iodepth_batch
                        .filter(|&n| n > 1)
                        .map(|n| format!("{n} operations per submit call"));
                    let extras: Vec<String> = batch
                        .into_iter()
                        .chain(d.spec.engine_note.clone())
                        .collect();
                    let engine = if extras.is_empty() {
                        d.spec.engine.clone()
                    } else {
                        format!("{} ({})", d.spec.engine, extras.join("; "))
                    };
                    push_unique(&mut engines, &mut seen_engines, engine);
                    push_unique(&mut directs, &mut seen_directs, d.spec.direct);
                    if !d.spec.direct {
                        push_unique(&mut buffered_tests, &mut seen_buffered, d.label());
                    }
                    let (sizes, seen_sizes) = match d.role {
                        FileRole::Main => (&mut main_sizes, &mut seen_main_sizes),
                        FileRole::Control => (&mut control_sizes, &mut seen_control_sizes),
                    };
                    // A device job has no file (the Device line says the device).
                    if d.device.is_none() {
                        push_unique(
                            sizes,
                            seen_sizes,
                            d.file.as_ref().map_or(d.spec.size, |f| f.size),
                        );
                    }
                    if let Some(f) = &d.file {
                        push_unique(&mut file_paths, &mut seen_paths, f.path.clone());
                    }
                    // Saturating: a hand-made or damaged Run may hold any u64.
                    measured_ns = measured_ns.saturating_add(d.measured_ns);
                }
                other => {
                    let ns = other.as_compute().map_or(0, |c| c.measured_ns);
                    measured_ns = measured_ns.saturating_add(ns);
                }
            }
        }
        let clock = match (&run.started_at, &run.finished_at) {
            (Some(a), Some(b)) => match (parse_rfc3339(a), parse_rfc3339(b)) {
                (Some(a), Some(b)) if b >= a => Some((b - a) as f64),
                _ => None,
            },
            _ => None,
        };
        let (duration_s, duration_from_clock) = match clock {
            Some(s) => (Some(s), true),
            None if measured_ns > 0 => (Some(measured_ns as f64 / 1e9), false),
            None => (None, false),
        };
        let preset = run
            .plan
            .as_ref()
            .and_then(|p| p.get("preset"))
            .and_then(|p| p.as_str())
            .map(str::to_string);
        Summary {
            disk,
            compute,
            passes,
            engines,
            direct: (directs.len() == 1).then(|| directs[0]),
            buffered_tests,
            main_sizes,
            control_sizes,
            file_paths,
            duration_s,
            duration_from_clock,
            preset,
        }
    }

    /// The main-file rows (what tables lead with).
    pub fn main_rows(&self) -> impl Iterator<Item = &DiskRow> {
        self.disk.iter().filter(|r| r.role == FileRole::Main)
    }

    /// Control rows that have no main row to sit beside (shown on their own).
    pub fn lone_control_rows(&self) -> impl Iterator<Item = &DiskRow> {
        let mains: std::collections::HashSet<(&str, Direction)> = self
            .main_rows()
            .map(|m| (m.label.as_str(), m.direction))
            .collect();
        self.disk.iter().filter(move |r| {
            r.role == FileRole::Control && !mains.contains(&(r.label.as_str(), r.direction))
        })
    }
}

/// Keeps `value` once in `list` (in first-seen order); `seen` is the set
/// beside it (a Run of 30,000 jobs made the search of the list quadratic).
fn push_unique<T: Eq + std::hash::Hash + Clone>(
    list: &mut Vec<T>,
    seen: &mut std::collections::HashSet<T>,
    value: T,
) {
    if seen.insert(value.clone()) {
        list.push(value);
    }
}

fn spread(values: &[f64]) -> Spread {
    Spread::of(values).unwrap_or(Spread {
        median: 0.0,
        min: 0.0,
        max: 0.0,
        ratio: None,
        n: 0,
    })
}

fn disk_rows(run: &Run) -> Vec<DiskRow> {
    // Group by (label, role, direction) in order of first appearance.
    let mut groups: Vec<((String, FileRole, Direction), Vec<usize>)> = Vec::new();
    // Where each key's group is: 30,000 imported jobs made a search of the
    // groups quadratic.
    let mut group_of: std::collections::HashMap<(String, FileRole, Direction), usize> =
        std::collections::HashMap::new();
    for (i, m) in run.measurements.iter().enumerate() {
        // A stop asked for: the report is not printed (`write_text`).
        if crate::cancel::cancelled() {
            break;
        }
        let Measurement::Disk(d) = m else { continue };
        for dir in [Direction::Read, Direction::Write] {
            if dir.of(d).is_none() {
                continue;
            }
            let key = (d.label(), d.role, dir);
            match group_of.get(&key) {
                Some(&g) => groups[g].1.push(i),
                None => {
                    group_of.insert(key.clone(), groups.len());
                    groups.push((key, vec![i]));
                }
            }
        }
    }
    let disk_at = |i: usize| match &run.measurements[i] {
        Measurement::Disk(d) => d,
        _ => unreachable!("grouped indices point at disk measurements"),
    };
    let mut rows: Vec<DiskRow> = groups
        .into_iter()
        .map(|((label, role, direction), mut idx)| {
            idx.sort_by_key(|&i| (disk_at(i).pass.unwrap_or(0), i));
            let stats: Vec<&DirectionStats> = idx
                .iter()
                .filter_map(|&i| direction.of(disk_at(i)))
                .collect();
            let f = |get: &dyn Fn(&DirectionStats) -> f64| -> Spread {
                spread(&stats.iter().map(|s| get(s)).collect::<Vec<_>>())
            };
            DiskRow {
                label,
                direction,
                role,
                spec: disk_at(idx[0]).spec.clone(),
                bytes_per_sec: f(&|s| s.bytes_per_sec),
                iops: f(&|s| s.iops),
                lat_mean: f(&|s| s.lat_ns.mean),
                p50: f(&|s| s.lat_ns.p50 as f64),
                p90: f(&|s| s.lat_ns.p90 as f64),
                p99: f(&|s| s.lat_ns.p99 as f64),
                p99_9: f(&|s| s.lat_ns.p99_9 as f64),
                p99_99: f(&|s| s.lat_ns.p99_99 as f64),
                lat_max: f(&|s| s.lat_ns.max as f64),
                cpu_pct: spread(
                    &idx.iter()
                        .map(|&i| disk_at(i).cpu.usr_pct + disk_at(i).cpu.sys_pct)
                        .collect::<Vec<_>>(),
                ),
                steal_pct: spread(
                    &idx.iter()
                        .map(|&i| disk_at(i).cpu.steal_pct)
                        .collect::<Vec<_>>(),
                ),
                measurements: idx,
                control: None,
            }
        })
        .collect();
    let controls: Vec<(String, Direction, Spread)> = rows
        .iter()
        .filter(|r| r.role == FileRole::Control)
        .map(|r| (r.label.clone(), r.direction, r.bytes_per_sec))
        .collect();
    for row in rows.iter_mut().filter(|r| r.role == FileRole::Main) {
        if let Some((_, _, c)) = controls
            .iter()
            .find(|(l, d, _)| *l == row.label && *d == row.direction)
        {
            if c.median > 0.0 {
                row.control = Some((*c, row.bytes_per_sec.median / c.median));
            }
        }
    }
    rows
}

/// Per-thread IOPS of a row, one list per pass (pass number, IOPS of each
/// thread in thread order); passes whose job ran one thread are left out.
pub fn thread_iops(run: &Run, row: &DiskRow) -> Vec<(Option<u32>, Vec<f64>)> {
    row.measurements
        .iter()
        .filter_map(|&i| match &run.measurements[i] {
            Measurement::Disk(d) if d.threads.len() > 1 => {
                let iops = d
                    .threads
                    .iter()
                    .map(|t| {
                        let st = match row.direction {
                            Direction::Read => t.read.as_ref(),
                            Direction::Write => t.write.as_ref(),
                        };
                        st.map_or(0.0, |s| s.iops)
                    })
                    .collect();
                Some((d.pass, iops))
            }
            _ => None,
        })
        .collect()
}

/// The fio command of each test (first pass), by label, without repeats.
pub fn fio_commands(run: &Run) -> Vec<(String, String)> {
    let mut out: Vec<(String, String)> = Vec::new();
    let mut seen = std::collections::HashSet::new();
    for d in run.disk() {
        let label = match d.role {
            FileRole::Main => d.label(),
            FileRole::Control => format!("{} (control file)", d.label()),
        };
        if !d.fio_command.is_empty() && seen.insert(label.clone()) {
            out.push((label, d.fio_command.clone()));
        }
    }
    out
}

/// One job of a fio job file, as the report lists it: when it ran beside
/// the others, and how it ended.
#[derive(Debug, Clone)]
pub struct JobRow {
    pub section: String,
    pub group: u32,
    /// Seconds from the start of the run's first job.
    pub from_s: f64,
    pub to_s: f64,
    pub ended_by: String,
    /// The jobs whose intervals overlapped this one's.
    pub beside: Vec<String>,
}

/// The jobs of a Run made from a fio job file, in order (none otherwise).
pub fn job_rows(run: &Run) -> Vec<JobRow> {
    let jobs: Vec<&crate::result::DiskMeasurement> =
        run.disk().filter(|d| d.job.is_some()).collect();
    jobs.iter()
        .map(|d| {
            let j = d.job.as_ref().expect("filtered");
            let beside = jobs
                .iter()
                .filter_map(|o| o.job.as_ref())
                .filter(|o| {
                    o.section != j.section && o.start_ns < j.end_ns && j.start_ns < o.end_ns
                })
                .map(|o| o.section.clone())
                .collect();
            JobRow {
                section: j.section.clone(),
                group: j.group,
                from_s: j.start_ns as f64 / 1e9,
                to_s: j.end_ns as f64 / 1e9,
                ended_by: j.ended_by.clone(),
                beside,
            }
        })
        .collect()
}

/// The headline figure of a compute measurement and what it counts.
pub fn compute_value(c: &ComputeMeasurement) -> Option<(ComputeUnit, f64)> {
    if let Some(v) = c.events_per_sec {
        Some((ComputeUnit::Events, v))
    } else if let Some(v) = c.bytes_per_sec {
        Some((ComputeUnit::Bytes, v))
    } else {
        c.ops_per_sec.map(|v| (ComputeUnit::Ops, v))
    }
}

/// A compute test's identity: kind, test, threads, unit.
type ComputeKey = (&'static str, String, u32, ComputeUnit);

fn compute_rows(run: &Run) -> Vec<ComputeRow> {
    let mut groups: Vec<(ComputeKey, Vec<f64>, Vec<String>)> = Vec::new();
    for m in &run.measurements {
        let Some(c) = m.as_compute() else { continue };
        let Some((unit, value)) = compute_value(c) else {
            continue;
        };
        let key = (m.kind(), c.spec.test.clone(), c.spec.threads, unit);
        match groups.iter_mut().find(|(k, _, _)| *k == key) {
            Some((_, values, notes)) => {
                values.push(value);
                // A few notes per test: the list is short.
                for n in &c.notes {
                    if !notes.contains(n) {
                        notes.push(n.clone());
                    }
                }
            }
            None => groups.push((key, vec![value], c.notes.clone())),
        }
    }
    let mut rows: Vec<ComputeRow> = groups
        .into_iter()
        .map(|((kind, test, threads, unit), values, notes)| ComputeRow {
            kind,
            test,
            threads,
            unit,
            value: spread(&values),
            scaling: None,
            notes,
        })
        .collect();
    let singles: Vec<(&'static str, String, f64)> = rows
        .iter()
        .filter(|r| r.threads == 1)
        .map(|r| (r.kind, r.test.clone(), r.value.median))
        .collect();
    for row in rows.iter_mut().filter(|r| r.threads > 1) {
        if let Some((_, _, one)) = singles
            .iter()
            .find(|(k, t, _)| *k == row.kind && *t == row.test)
        {
            if *one > 0.0 {
                row.scaling = Some(row.value.median / one);
            }
        }
    }
    rows
}

/// Findings in reading order: refusals, then warnings, then information;
/// checked ones first within each. Not-checked findings come last.
/// The `claims` finding is left out: reports show it as the claims section.
pub fn ordered_findings(run: &Run) -> Vec<&Finding> {
    let mut list: Vec<&Finding> = run
        .findings
        .iter()
        .filter(|f| f.id != crate::findings::CLAIMS_ID)
        .collect();
    list.sort_by_key(|f| {
        (
            f.status == FindingStatus::NotChecked,
            std::cmp::Reverse(f.severity),
        )
    });
    list
}
