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
        // Passes during which the device was shared: the spread is (at
        // least partly) the other I/O's, and the verdict says so.
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
