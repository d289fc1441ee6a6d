//! `metric-disagreement` (across hosts): two integer CPU metrics that disagree
//! about the gap between two hosts by a multiple. Real case: sysbench said one
//! host was 118 % faster, 7-Zip said 3 %: the anomaly is in a metric (a
//! compiler, a library, an instruction one test leans on), not in the machine.

use super::stability::compute_value;
use super::{checked, not_checked, round_to};
use crate::result::{median, Finding, Measurement, Run};
use crate::units::sig3;
use serde_json::json;

/// Ratio of the two gaps (host B / host A per metric) at or above which the
/// metrics disagree. 2.18 vs 1.03 is x2.1; two honest integer metrics agree on
/// a gap within tens of percent, so x1.5 is well outside noise.
pub const DISAGREEMENT_FACTOR: f64 = 1.5;

/// What the comparison across hosts needs of one Run, taken from it once
/// (a fleet of thousands is compared without holding its Runs).
pub struct HostMetrics {
    /// `Run::display_name`.
    name: String,
    metrics: Vec<(String, u32, f64)>,
}

impl HostMetrics {
    pub fn of(run: &Run) -> HostMetrics {
        HostMetrics {
            name: run.display_name(),
            metrics: integer_metrics(run),
        }
    }
}

/// (metric name, thread count, median value) of the integer CPU metrics of
/// one Run: CPU (primes) and compression, by test and thread count.
fn integer_metrics(run: &Run) -> Vec<(String, u32, f64)> {
    let mut groups: Vec<(String, u32, Vec<f64>)> = Vec::new();
    for m in &run.measurements {
        let c = match m {
            Measurement::Cpu(c) | Measurement::Compress(c) => c,
            _ => continue,
        };
        let Some(v) = compute_value(c) else { continue };
        let key = format!("{} {} T{}", m.kind(), c.spec.test, c.spec.threads);
        match groups.iter_mut().find(|g| g.0 == key) {
            Some(g) => g.2.push(v),
            None => groups.push((key, c.spec.threads, vec![v])),
        }
    }
    groups
        .into_iter()
        .filter_map(|(k, t, v)| median(&v).map(|m| (k, t, m)))
        .filter(|(_, _, v)| *v > 0.0)
        .collect()
}

/// Fleets larger than this compare each host with the fleet's median host
/// instead of with every other host: n(n-1)/2 pairs of 4,000 hosts are 8
/// million comparisons and as many findings, which nobody reads; a host out
/// of line with the median is the same anomaly, found in linear time.
pub const PAIRWISE_HOSTS: usize = 64;

/// The metrics of both sides with the same name: (name, a, b, threads).
type Common<'a> = (&'a str, f64, f64, u32);

/// The worst disagreement between two hosts' metrics at one thread count:
/// (ratio of the gaps, the two metrics), or None with fewer than two
/// metrics in common (the bool: whether they had two in common).
fn worst<'a>(
    a: &'a [(String, u32, f64)],
    b: &'a [(String, u32, f64)],
) -> (bool, Option<(f64, Common<'a>, Common<'a>)>) {
    let common: Vec<Common<'a>> = a
        .iter()
        .filter_map(|(k, t, x)| {
            b.iter()
                .find(|(l, _, _)| l == k)
                .map(|(_, _, y)| (k.as_str(), *x, *y, *t))
        })
        .collect();
    if common.len() < 2 {
        return (false, None);
    }
    let mut worst: Option<(f64, usize, usize)> = None;
    // Only metrics at the same thread count: a 1-thread gap and an
    // all-threads gap differ whenever the hosts' core counts do.
    for x in 0..common.len() {
        for y in x + 1..common.len() {
            if common[x].3 != common[y].3 {
                continue;
            }
            let gx = common[x].2 / common[x].1;
            let gy = common[y].2 / common[y].1;
            let d = (gx / gy).max(gy / gx);
            if worst.is_none_or(|w| d > w.0) {
                worst = Some((d, x, y));
            }
        }
    }
    (true, worst.map(|(d, x, y)| (d, common[x], common[y])))
}

/// The finding of one disagreement between `a` and `b`.
fn finding(a: &str, b: &str, d: f64, x: Common, y: Common) -> Finding {
    let gap = |c: &Common| (c.2 / c.1 - 1.0) * 100.0;
    let side = |c: &Common| json!({"metric": c.0, "host_a": round_to(c.1, 3), "host_b": round_to(c.2, 3), "gap_pct": round_to(gap(c), 1)});
    checked(
        "metric-disagreement",
        Some(format!("{a} vs {b}")),
        format!(
            "{b} vs {a}: {} says {:+} %, {} says {:+} % (x{} apart): the anomaly is in a metric, not the machine",
            x.0,
            sig3(gap(&x)),
            y.0,
            sig3(gap(&y)),
            sig3(d)
        ),
        json!({
            "host_a": a,
            "host_b": b,
            "first": side(&x),
            "second": side(&y),
            "gap_ratio": round_to(d, 3),
            "threshold_gap_ratio": DISAGREEMENT_FACTOR,
        }),
    )
}

/// The fleet's median host: each metric's median over the hosts that have it.
fn median_host(per: &[&[(String, u32, f64)]]) -> Vec<(String, u32, f64)> {
    let mut by: std::collections::BTreeMap<&str, (u32, Vec<f64>)> = Default::default();
    for host in per {
        for (k, t, v) in host.iter() {
            by.entry(k.as_str()).or_insert((*t, Vec::new())).1.push(*v);
        }
    }
    by.into_iter()
        .filter_map(|(k, (t, v))| median(&v).map(|m| (k.to_string(), t, m)))
        .collect()
}

/// One finding per pair of hosts whose metrics disagree; in a fleet of more
/// than `PAIRWISE_HOSTS`, one per host that disagrees with the median host.
pub fn metric_disagreement(hosts: &[HostMetrics]) -> Vec<Finding> {
    let per: Vec<&[(String, u32, f64)]> = hosts.iter().map(|h| h.metrics.as_slice()).collect();
    let mut compared = 0;
    let mut out = Vec::new();
    if hosts.len() > PAIRWISE_HOSTS {
        let median = median_host(&per);
        let name = format!("the median of {} hosts", hosts.len());
        for (host, metrics) in hosts.iter().zip(&per) {
            let (common, w) = worst(&median, metrics);
            compared += usize::from(common);
            if let Some((d, x, y)) = w.filter(|w| w.0 >= DISAGREEMENT_FACTOR) {
                out.push(finding(&name, &host.name, d, x, y));
            }
        }
    } else {
        for i in 0..hosts.len() {
            for j in i + 1..hosts.len() {
                let (common, w) = worst(per[i], per[j]);
                compared += usize::from(common);
                if let Some((d, x, y)) = w.filter(|w| w.0 >= DISAGREEMENT_FACTOR) {
                    out.push(finding(&hosts[i].name, &hosts[j].name, d, x, y));
                }
            }
        }
    }
    if compared == 0 {
        return vec![not_checked(
            "metric-disagreement",
            "fewer than two hosts with two common CPU metrics: disagreement between metrics was not checked".into(),
            "two hosts with at least two common integer CPU metrics",
        )];
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::findings::synth::run;
    use crate::result::{ComputeMeasurement, ComputeSpec, FindingStatus};

    fn compute(kind: &str, test: &str, v: f64) -> Measurement {
        let c = ComputeMeasurement {
            pass: Some(1),
            started_at: None,
            spec: ComputeSpec {
                test: test.into(),
                threads: 1,
                runtime_ns: 0,
                params: Default::default(),
            },
            events_per_sec: (kind == "cpu").then_some(v),
            bytes_per_sec: (kind != "cpu").then_some(v),
            ops_per_sec: None,
            per_thread: vec![],
            measured_ns: 0,
            cpu: Default::default(),
            notes: vec![],
        };
        if kind == "cpu" {
            Measurement::Cpu(c)
        } else {
            Measurement::Compress(c)
        }
    }

    fn metrics(runs: &[Run]) -> Vec<HostMetrics> {
        runs.iter().map(HostMetrics::of).collect()
    }

    fn host(name: &str, primes: f64, lzma: f64) -> Run {
        let mut r = run();
        r.label = Some(name.into());
        r.measurements.push(compute("cpu", "primes", primes));
        r.measurements
            .push(compute("compress", "lzma-compress", lzma));
        r
    }

    #[test]
    fn sysbench_plus_118_vs_7zip_plus_3() {
        let runs = [host("a", 1000.0, 5.0e6), host("b", 2180.0, 5.15e6)];
        let f = metric_disagreement(&metrics(&runs));
        assert_eq!(f.len(), 1, "{f:?}");
        assert_eq!(f[0].evidence["first"]["gap_pct"], 118.0);
        assert_eq!(f[0].evidence["second"]["gap_pct"], 3.0);
        // Agreeing metrics: silent.
        let runs = [host("a", 1000.0, 5.0e6), host("b", 1200.0, 5.8e6)];
        assert!(metric_disagreement(&metrics(&runs)).is_empty());
        // One host: not checked.
        assert_eq!(
            metric_disagreement(&metrics(&runs[..1]))[0].status,
            FindingStatus::NotChecked
        );
    }

    #[test]
    fn a_large_fleet_is_compared_with_its_median_host() {
        // 200 hosts whose two metrics agree (each host's speed scales
        // both), one whose primes figure is 2.2x out of line.
        let mut runs: Vec<Run> = (0..200)
            .map(|i| {
                let speed = 1.0 + (i % 17) as f64 / 10.0;
                host(&format!("h{i}"), 1000.0 * speed, 5.0e6 * speed)
            })
            .collect();
        runs.push(host("odd", 2200.0, 5.0e6));
        let f = metric_disagreement(&metrics(&runs));
        assert_eq!(f.len(), 1, "one finding, not one per pair: {f:?}");
        assert_eq!(f[0].evidence["host_b"], "odd");
        assert_eq!(f[0].evidence["host_a"], "the median of 201 hosts");
        // No anomaly: silent, and checked.
        runs.pop();
        assert!(metric_disagreement(&metrics(&runs)).is_empty());
    }
}
