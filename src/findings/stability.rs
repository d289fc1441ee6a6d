//! Figures that do not hold still: passes that disagree (`unstable`) and
//! threads of one job that got very different shares (`thread-imbalance`).

use super::metrics::metrics;
use super::{checked, not_checked, round_to};
use crate::result::{ComputeMeasurement, Finding, Measurement, Run, Spread};
use crate::units::sig3;
use serde_json::json;

/// max/min over passes at or above which the median hides the story. The real
/// case: 4269, 4365, 2901 MB/s (x1.50). Below this, pass-to-pass noise on a
/// shared host is normal and the median is a fair summary.
pub const UNSTABLE_RATIO: f64 = 1.5;

/// max/min per-thread figure at or above which a job's threads were not served
/// alike. Real case: three threads at 30k IOPS, one at 1.2k (x25). Threads
/// of one job on an idle host land within tens of percent; twice is scheduling.
pub const THREAD_IMBALANCE_RATIO: f64 = 2.0;

/// The headline figure of a compute measurement.
pub fn compute_value(c: &ComputeMeasurement) -> Option<f64> {
    c.events_per_sec.or(c.bytes_per_sec).or(c.ops_per_sec)
}

/// Compute figures grouped by (kind, test, threads), across passes.
fn compute_groups(run: &Run) -> Vec<(String, Vec<f64>)> {
    let mut groups: Vec<(String, Vec<f64>)> = Vec::new();
    for m in &run.measurements {
        let Some(c) = m.as_compute() else { continue };
        let Some(v) = compute_value(c) else { continue };
        let key = format!("{} {} T{}", m.kind(), c.spec.test, c.spec.threads);
        match groups.iter_mut().find(|g| g.0 == key) {
            Some(g) => g.1.push(v),
            None => groups.push((key, vec![v])),
        }
    }
    groups
}

/// `unstable`: passes of one metric spread x1.5 or more.
pub fn unstable(run: &Run) -> Vec<Finding> {
    let compute = compute_groups(run);
    let compute_passes = compute.iter().map(|g| g.1.len()).max().unwrap_or(0);
    let disk = metrics(run);
    let disk_passes = disk.iter().map(|m| m.passes()).max().unwrap_or(0);
    if disk_passes < 2 && compute_passes < 2 {
        return vec![not_checked(
            "unstable",
            "one pass only: whether the figures hold from pass to pass was not checked".into(),
            "two or more passes",
        )];
    }
    let mut out = Vec::new();
    let fire = |subject: String, values: Vec<f64>, unit: &str| -> Option<Finding> {
        let s = Spread::of(&values)?;
        let ratio = s.ratio.unwrap_or(f64::INFINITY);
        (s.n >= 2 && ratio >= UNSTABLE_RATIO).then(|| {
            checked(
                "unstable",
                Some(subject.clone()),
                format!(
                    "{subject}: passes from {} to {} {unit} (x{}): the median {} hides the spread",
                    sig3(s.min),
                    sig3(s.max),
                    sig3(ratio),
                    sig3(s.median)
                ),
                json!({
                    "values": values.iter().map(|v| round_to(*v, 3)).collect::<Vec<_>>(),
                    "unit": unit,
                    "max_over_min": if ratio.is_finite() { Some(round_to(ratio, 4)) } else { None },
                    "threshold_max_over_min": UNSTABLE_RATIO,
                }),
            )
        })
    };
    // Control metrics too: a control read that climbs pass after pass is a
    // cache filling, and its median would hide it.
    for m in &disk {
        let Some(mut f) = fire(
            m.subject(),
            m.bps().iter().map(|b| b / 1e6).collect(),
            "MB/s",
        ) else {
            continue;
        };
        // Passes during which the device was shared: second by second where
        // the layers' series were kept (the spread is then weighed in the
        // seconds without other I/O), else pass by pass.
        if let Some(per_second) = shared_seconds(m) {
            per_second.apply(&mut f);
            out.push(f);
            continue;
        }
        let shared: Vec<(u32, super::stack::Shared)> = m
            .points
            .iter()
            .filter_map(|p| Some((p.pass, super::stack::shared(p.job)?)))
            .collect();
        if let Some((pass, sh)) = shared.first() {
            f.verdict.push_str(&format!(
                "; the device was shared with other I/O during {} of the passes (pass {pass}: {}): the spread is that I/O's as much as the medium's",
                shared.len(),
                sh.words()
            ));
            f.evidence["passes_shared"] = json!(shared
                .iter()
                .map(|(pass, sh)| {
                    let mut e = sh.evidence();
                    e["pass"] = json!(pass);
                    e
                })
                .collect::<Vec<_>>());
        }
        out.push(f);
    }
    for (key, values) in compute {
        out.extend(fire(key, values, "per second"));
    }
    out
}

/// The passes of a metric weighed second by second against other I/O on
/// the device (the per-second foreign I/O burst-cliff reads).
struct SharedSeconds {
    /// (pass, whole-pass bytes/s, its seconds) for every pass.
    passes: Vec<(u32, f64, super::stack::QuietSeconds)>,
}

/// How the spread reads once the seconds with other I/O are set apart.
#[derive(Debug, PartialEq)]
enum Reading {
    /// The passes agree in their seconds without other I/O: the spread is
    /// that I/O's.
    Explained(Spread),
    /// They still disagree without it: the disk's own.
    Unexplained(Spread),
    /// Too few seconds without other I/O to weigh, and the slowest pass
    /// was shared in most of its seconds: not concluded either way.
    SlowestShared,
    /// The slowest pass had other I/O in few of its seconds: no excuse.
    SlowestAlone,
}

/// None when a pass lacks per-second counters, or no second of any pass
/// had other I/O.
fn shared_seconds(m: &super::metrics::ProfileSeries) -> Option<SharedSeconds> {
    let passes = m
        .points
        .iter()
        .map(|p| {
            Some((
                p.pass,
                p.stats.bytes_per_sec,
                super::stack::quiet_seconds(p.job, p.stats)?,
            ))
        })
        .collect::<Option<Vec<_>>>()?;
    passes
        .iter()
        .any(|(_, _, q)| q.shared > 0)
        .then_some(SharedSeconds { passes })
}

impl SharedSeconds {
    fn reading(&self) -> Reading {
        let quiet: Vec<f64> = self
            .passes
            .iter()
            .filter_map(|(_, _, q)| q.quiet_bytes_per_sec)
            .collect();
        if quiet.len() >= 2 {
            let s = Spread::of(&quiet).expect("two values");
            return if s.ratio.is_some_and(|r| r < UNSTABLE_RATIO) {
                Reading::Explained(s)
            } else {
                Reading::Unexplained(s)
            };
        }
        let slowest = self
            .passes
            .iter()
            .min_by(|a, b| a.1.total_cmp(&b.1))
            .map(|p| p.2);
        match slowest {
            Some(q) if q.shared * 2 >= q.seconds => Reading::SlowestShared,
            _ => Reading::SlowestAlone,
        }
    }

    /// `pass 3: 7 of 10 s`, for the passes with other I/O.
    fn passes_words(&self) -> String {
        self.passes
            .iter()
            .filter(|(_, _, q)| q.shared > 0)
            .map(|(pass, _, q)| format!("pass {pass}: {} of {} s", q.shared, q.seconds))
            .collect::<Vec<_>>()
            .join(", ")
    }

    /// The verdict's second half, the evidence, and information instead of
    /// a warning where the other I/O explains the spread or may.
    fn apply(&self, f: &mut Finding) {
        let mb = |s: &Spread| {
            format!(
                "from {} to {} MB/s (x{})",
                sig3(s.min / 1e6),
                sig3(s.max / 1e6),
                s.ratio.map_or("inf".into(), sig3)
            )
        };
        let shared = format!(
            "; the device was shared with other I/O in some seconds ({})",
            self.passes_words()
        );
        let reading = self.reading();
        let (words, info) = match &reading {
            Reading::Explained(s) => (
                format!("{shared}: in the seconds without it the passes ran {}, so the spread is that I/O's, not the disk's", mb(s)),
                true,
            ),
            Reading::Unexplained(s) => (
                format!("{shared}, but in the seconds without it the passes still ran {}: the spread is the disk's own", mb(s)),
                false,
            ),
            Reading::SlowestShared => (
                format!("{shared}, in most of the slowest pass's: the spread may be that I/O's, so the disk is not concluded unstable"),
                true,
            ),
            Reading::SlowestAlone => (
                format!("{shared}, but in few of the slowest pass's: it does not explain the spread"),
                false,
            ),
        };
        f.verdict.push_str(&words);
        if info {
            f.severity = crate::result::Severity::Info;
        }
        f.evidence["seconds_shared"] = json!(self
            .passes
            .iter()
            .map(|(pass, bps, q)| json!({
                "pass": pass,
                "mb_per_sec": round_to(bps / 1e6, 3),
                "seconds": q.seconds,
                "seconds_with_other_io": q.shared,
                "mb_per_sec_without_other_io": q.quiet_bytes_per_sec.map(|b| round_to(b / 1e6, 3)),
            }))
            .collect::<Vec<_>>());
        f.evidence["quiet_seconds_min"] = json!(super::stack::QUIET_MIN_SECONDS);
    }
}

/// `thread-imbalance`: per-thread figures of one multi-threaded job far apart.
/// Jobs with one thread cannot be imbalanced: they are not applicable, not "unchecked".
pub fn thread_imbalance(run: &Run) -> Vec<Finding> {
    let mut applicable = 0;
    let mut with_threads = 0;
    let mut out = Vec::new();
    for m in &run.measurements {
        let (subject, per_thread): (String, Vec<f64>) = match m {
            Measurement::Disk(d) => {
                if d.spec.numjobs < 2 {
                    continue;
                }
                let per = d
                    .threads
                    .iter()
                    .map(|t| {
                        t.read.as_ref().map_or(0.0, |s| s.iops)
                            + t.write.as_ref().map_or(0.0, |s| s.iops)
                    })
                    .collect();
                let pass = d.pass.map(|p| format!(" pass {p}")).unwrap_or_default();
                (format!("{}{pass}", d.label()), per)
            }
            other => {
                let Some(c) = other.as_compute() else {
                    continue;
                };
                if c.spec.threads < 2 {
                    continue;
                }
                let pass = c.pass.map(|p| format!(" pass {p}")).unwrap_or_default();
                (
                    format!("{} {} T{}{pass}", other.kind(), c.spec.test, c.spec.threads),
                    c.per_thread.clone(),
                )
            }
        };
        applicable += 1;
        if per_thread.len() < 2 {
            continue;
        }
        with_threads += 1;
        let max = per_thread.iter().copied().fold(f64::NEG_INFINITY, f64::max);
        let min = per_thread.iter().copied().fold(f64::INFINITY, f64::min);
        let ratio = if min > 0.0 { max / min } else { f64::INFINITY };
        if ratio >= THREAD_IMBALANCE_RATIO {
            out.push(checked(
                "thread-imbalance",
                Some(subject.clone()),
                format!(
                    "{subject}: threads from {} to {} per second (x{}): scheduling (vCPUs, SMT), not the thing measured",
                    sig3(min),
                    sig3(max),
                    if ratio.is_finite() { sig3(ratio) } else { "inf".into() }
                ),
                json!({
                    "per_thread": per_thread.iter().map(|v| round_to(*v, 2)).collect::<Vec<_>>(),
                    "max_over_min": if ratio.is_finite() { Some(round_to(ratio, 3)) } else { None },
                    "threshold_max_over_min": THREAD_IMBALANCE_RATIO,
                }),
            ));
        }
    }
    if applicable > 0 && with_threads == 0 {
        return vec![not_checked(
            "thread-imbalance",
            "multi-threaded jobs ran but their per-thread figures are not recorded: balance was not checked".into(),
            "per-thread figures",
        )];
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::findings::synth::*;
    use crate::result::{ComputeSpec, FindingStatus, ThreadStats};

    #[test]
    fn unstable_fires_on_4269_4365_2901() {
        let mut run = run();
        for (pass, mb) in [(1, 4269.0), (2, 4365.0), (3, 2901.0)] {
            run.measurements
                .push(job_mb(Some("SEQ1M Q8T1"), "read", 1 << 20, 8, pass, mb));
        }
        let f = unstable(&run);
        assert_eq!(f.len(), 1);
        assert!((f[0].evidence["max_over_min"].as_f64().unwrap() - 1.5047).abs() < 1e-3);
        // Within x1.5: silent.
        dm(&mut run.measurements[2]).read = Some(stats(4000.0, 1 << 20));
        assert!(unstable(&run).is_empty());
        run.measurements.truncate(1);
        assert_eq!(unstable(&run)[0].status, FindingStatus::NotChecked);
    }

    /// Passes that disagree while another process read from the device in
    /// one of them: still unstable (the figures did vary), and said why.
    #[test]
    fn unstable_names_the_passes_that_shared_the_device() {
        let mut run = run();
        for (pass, mb) in [(1, 4269.0), (2, 4365.0), (3, 2901.0)] {
            let mut m = job_mb(Some("SEQ1M Q8T1"), "read", 1 << 20, 8, pass, mb);
            stack(&mut m, if pass == 3 { 40 << 30 } else { 0 });
            run.measurements.push(m);
        }
        let f = unstable(&run);
        assert!(
            f[0].verdict.contains("during 1 of the passes (pass 3:"),
            "{}",
            f[0].verdict
        );
        assert_eq!(f[0].evidence["passes_shared"][0]["pass"], 3);
    }

    /// A SEQ1M Q8T1 read pass recorded second by second: candor's MiB in
    /// each second, and another process's MiB read from the same device in
    /// each second (the device's per-second counters are their sum).
    fn pass_by_second(pass: u32, candor: &[u64], other: &[u64]) -> Measurement {
        const MIB: u64 = 1 << 20;
        let sec = 1_000_000_000;
        let total: u64 = candor.iter().sum::<u64>() * MIB;
        let secs = candor.len() as u64;
        let mut m = job_mb(Some("SEQ1M Q8T1"), "read", MIB, 8, pass, 1.0);
        stack(&mut m, other.iter().sum::<u64>() * MIB);
        let d = dm(&mut m);
        d.measured_ns = secs * sec;
        let r = d.read.as_mut().unwrap();
        r.bytes = total;
        r.ops = total / MIB;
        r.bytes_per_sec = (total / secs) as f64;
        r.iops = (total / MIB / secs) as f64;
        r.series = candor
            .iter()
            .enumerate()
            .map(|(i, b)| crate::result::SeriesPoint {
                t_ns: i as u64 * sec,
                dur_ns: sec,
                bytes: b * MIB,
                ops: *b,
                ..Default::default()
            })
            .collect();
        d.block_stack[0].series = candor
            .iter()
            .zip(other)
            .enumerate()
            .map(|(i, (c, o))| crate::result::LayerSecond {
                t_ns: i as u64 * sec,
                dur_ns: sec,
                read_bytes: (c + o) * MIB,
                ..Default::default()
            })
            .collect();
        m
    }

    /// Another process read 250 MiB/s through seconds 3-9 of pass 3, and
    /// candor's rate fell from 400 to 150 MiB/s in exactly those seconds:
    /// the passes spread x1.78, but in their seconds without other I/O all
    /// three ran at 400 MiB/s. The device was shared, not unstable:
    /// information, naming the seconds.
    #[test]
    fn passes_that_agree_without_the_other_io_blame_the_sharing() {
        let mut run = run();
        let mut third = vec![400; 3];
        third.extend([150; 7]);
        let mut other = vec![0; 3];
        other.extend([250; 7]);
        run.measurements
            .push(pass_by_second(1, &[400; 10], &[0; 10]));
        run.measurements
            .push(pass_by_second(2, &[400; 10], &[0; 10]));
        run.measurements.push(pass_by_second(3, &third, &other));
        let f = unstable(&run);
        assert_eq!(f.len(), 1, "{f:?}");
        assert_eq!(f[0].severity, crate::result::Severity::Info);
        assert!(
            f[0].verdict.contains("(pass 3: 7 of 10 s)")
                && f[0].verdict.contains("from 419 to 419 MB/s (x1.00)")
                && f[0].verdict.contains("not the disk's"),
            "{}",
            f[0].verdict
        );
        let e = &f[0].evidence["seconds_shared"][2];
        assert_eq!(e["seconds_with_other_io"], 7);
    }

    /// Pass 3 ran at half the others' rate in every second, and another
    /// process read only in its last two: in the seconds without other I/O
    /// the passes still spread x2. The disk's own spread: still a warning,
    /// and the other I/O is named as not explaining it.
    #[test]
    fn passes_that_disagree_without_the_other_io_are_the_disks() {
        let mut run = run();
        let mut other = vec![0; 8];
        other.extend([100; 2]);
        run.measurements
            .push(pass_by_second(1, &[400; 10], &[0; 10]));
        run.measurements
            .push(pass_by_second(2, &[400; 10], &[0; 10]));
        run.measurements.push(pass_by_second(3, &[200; 10], &other));
        let f = unstable(&run);
        assert_eq!(f.len(), 1, "{f:?}");
        assert_eq!(f[0].severity, crate::result::Severity::Warning);
        assert!(
            f[0].verdict.contains("(pass 3: 2 of 10 s)")
                && f[0]
                    .verdict
                    .contains("still ran from 210 to 419 MB/s (x2.00)")
                && f[0].verdict.contains("the disk's own"),
            "{}",
            f[0].verdict
        );
        // The same passes with no other I/O at all: a plain warning, the
        // device not mentioned.
        let mut run2 = super::super::synth::run();
        run2.measurements
            .push(pass_by_second(1, &[400; 10], &[0; 10]));
        run2.measurements
            .push(pass_by_second(2, &[400; 10], &[0; 10]));
        run2.measurements
            .push(pass_by_second(3, &[200; 10], &[0; 10]));
        let f = unstable(&run2);
        assert_eq!(f[0].severity, crate::result::Severity::Warning);
        assert!(!f[0].verdict.contains("shared"), "{}", f[0].verdict);
    }

    /// A whole pass shared with other I/O (no second of it without): the
    /// one quiet pass left cannot be weighed against another, and the
    /// slowest pass was shared throughout: not concluded, information.
    #[test]
    fn a_slowest_pass_shared_throughout_is_not_concluded() {
        let mut run = run();
        run.measurements
            .push(pass_by_second(1, &[400; 10], &[0; 10]));
        run.measurements
            .push(pass_by_second(2, &[150; 10], &[250; 10]));
        let f = unstable(&run);
        assert_eq!(f[0].severity, crate::result::Severity::Info);
        assert!(
            f[0].verdict.contains("in most of the slowest pass's"),
            "{}",
            f[0].verdict
        );
    }

    fn threaded(per: &[f64]) -> Measurement {
        let mut m = job(
            Some("RND4K Q32T4"),
            "randread",
            4096,
            32,
            1,
            per.iter().sum(),
        );
        let d = dm(&mut m);
        d.spec.numjobs = per.len() as u32;
        d.threads = per
            .iter()
            .enumerate()
            .map(|(i, v)| ThreadStats {
                thread: i as u32,
                read: Some(stats(*v, 4096)),
                write: None,
            })
            .collect();
        m
    }

    #[test]
    fn imbalance_three_at_30k_one_at_1_2k() {
        let mut run = run();
        run.measurements
            .push(threaded(&[30000.0, 30100.0, 29900.0, 1200.0]));
        let f = thread_imbalance(&run);
        assert_eq!(f.len(), 1);
        assert!((f[0].evidence["max_over_min"].as_f64().unwrap() - 25.083).abs() < 0.01);
        let mut run2 = super::super::synth::run();
        run2.measurements
            .push(threaded(&[30000.0, 29000.0, 31000.0, 28000.0]));
        assert!(thread_imbalance(&run2).is_empty());
        dm(&mut run2.measurements[0]).threads.clear();
        assert_eq!(thread_imbalance(&run2)[0].status, FindingStatus::NotChecked);
    }

    #[test]
    fn compute_per_thread_imbalance() {
        let mut run = run();
        run.measurements.push(Measurement::Cpu(ComputeMeasurement {
            pass: Some(1),
            started_at: None,
            spec: ComputeSpec {
                test: "primes".into(),
                threads: 2,
                runtime_ns: 0,
                params: Default::default(),
            },
            events_per_sec: Some(1500.0),
            bytes_per_sec: None,
            ops_per_sec: None,
            per_thread: vec![1000.0, 400.0],
            measured_ns: 0,
            cpu: Default::default(),
            notes: vec![],
        }));
        assert_eq!(thread_imbalance(&run).len(), 1);
    }
}
