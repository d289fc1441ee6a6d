//! Findings from the per-second series of one job: a drop to a lower
//! sustained level (`burst-cliff`) and a series still trending at its end
//! (`not-steady`).

use super::metrics::{interval_rate, metrics, ProfileSeries};
use super::{checked, not_checked, round_to};
use crate::result::{median, DirectionStats, Finding, Run};
use crate::units::{fmt_bytes, fmt_count, sig3};
use serde_json::json;

/// Level before / level after at or above which a drop is a cliff. Neighbour
/// noise on shared hosts moves per-second rates by tens of percent; a halving
/// that then holds is a different regime (credits or a cache ran out). The
/// real case: about 1.4 GB/s, then a shelf near 50 MB/s (28x).
pub const CLIFF_RATIO: f64 = 2.0;

/// Intervals a series needs before a cliff can be seen: a level is at least
/// two intervals on each side, so that neither one fast first second (a
/// warm-up, a write cache filling) nor one slow second is called a level.
pub const CLIFF_MIN_POINTS: usize = 4;
pub const CLIFF_MIN_BEFORE: usize = 2;
pub const CLIFF_MIN_AFTER: usize = 2;

/// Steady state, after SNIA's PTS: over the last intervals the range
/// (max - min) may be at most 20 % of their mean and the least-squares
/// slope's excursion across the window at most 10 % of it. A series that
/// breaks both is still trending.
pub const STEADY_RANGE: f64 = 0.20;
pub const STEADY_SLOPE: f64 = 0.10;

/// Intervals a series needs before steadiness can be judged: the window is the
/// last half, and fewer than three points have no meaningful slope.
pub const STEADY_MIN_POINTS: usize = 6;

/// Rates (ops/s, bytes/s) and raw bytes of the usable intervals, with their start times.
fn rates(stats: &DirectionStats) -> Vec<(f64, f64, u64, u64)> {
    stats
        .series
        .iter()
        .filter_map(|p| interval_rate(p).map(|(o, b)| (o, b, p.bytes, p.t_ns)))
        .collect()
}

/// A cliff in `r` (ops/s, bytes/s, bytes, t_ns): the split with the largest
/// drop whose earlier intervals all sit above, and later ones all below, the
/// geometric middle of the two levels.
pub struct Cliff {
    pub before_bps: f64,
    pub after_bps: f64,
    pub before_iops: f64,
    pub after_iops: f64,
    pub at_ns: u64,
    pub bytes_before: u64,
}

pub fn find_cliff(r: &[(f64, f64, u64, u64)]) -> Option<Cliff> {
    if r.len() < CLIFF_MIN_POINTS {
        return None;
    }
    let bps: Vec<f64> = r.iter().map(|x| x.1).collect();
    let mut best: Option<(f64, usize)> = None;
    for k in CLIFF_MIN_BEFORE..=r.len() - CLIFF_MIN_AFTER {
        let before = median(&bps[..k])?;
        let after = median(&bps[k..])?;
        if after <= 0.0 && before <= 0.0 {
            continue;
        }
        let ratio = before / after.max(1.0);
        let middle = (before * after.max(1.0)).sqrt();
        let holds = bps[k..].iter().all(|b| *b < middle) && bps[..k].iter().all(|b| *b > middle);
        if ratio >= CLIFF_RATIO && holds && best.is_none_or(|b| ratio > b.0) {
            best = Some((ratio, k));
        }
    }
    let (_, k) = best?;
    let iops: Vec<f64> = r.iter().map(|x| x.0).collect();
    Some(Cliff {
        before_bps: median(&bps[..k])?,
        after_bps: median(&bps[k..])?,
        before_iops: median(&iops[..k])?,
        after_iops: median(&iops[k..])?,
        at_ns: r[k].3,
        bytes_before: r[..k].iter().map(|x| x.2).sum(),
    })
}

fn series_metrics(run: &Run) -> Vec<ProfileSeries<'_>> {
    metrics(run)
        .into_iter()
        .filter(|m| m.points.iter().any(|p| !p.stats.series.is_empty()))
        .collect()
}

/// `burst-cliff`: one finding per metric, from the first pass that shows it.
pub fn burst_cliff(run: &Run) -> Vec<Finding> {
    let all = series_metrics(run);
    let long = all.iter().any(|m| {
        m.points
            .iter()
            .any(|p| rates(p.stats).len() >= CLIFF_MIN_POINTS)
    });
    if !long {
        return vec![not_checked(
            "burst-cliff",
            format!("no per-second series of {CLIFF_MIN_POINTS} s or more: a drop after a burst was not checked"),
            "a per-second series of at least 4 intervals",
        )];
    }
    let mut out = Vec::new();
    for m in &all {
        let mut passes = Vec::new();
        let mut first: Option<(u32, Cliff)> = None;
        for p in &m.points {
            if let Some(c) = find_cliff(&rates(p.stats)) {
                passes.push(p.pass);
                if first.is_none() {
                    first = Some((p.pass, c));
                }
            }
        }
        let Some((pass, c)) = first else { continue };
        // The device shared with other I/O from the drop on (second by
        // second where the layers' series were kept, else over the pass):
        // other I/O starting makes the same drop, so no burst allowance or
        // cache is blamed, and the finding is information.
        let job = m.points.iter().find(|p| p.pass == pass).map(|p| p.job);
        let shared = job.and_then(|j| super::stack::shared_after(j, c.at_ns));
        let before_only = job
            .filter(|_| shared.is_none())
            .and_then(super::stack::shared);
        let cause = match (&shared, &before_only) {
            (Some(sh), _) => format!(
                "the device was shared with other I/O from the drop on ({}): the drop may be that I/O's as well as a burst allowance's or a cache's, so neither is concluded",
                sh.words()
            ),
            (None, Some(sh)) => format!(
                "a burst allowance or a cache ran out (the device did other I/O during this pass, {}, but not in most seconds after the drop: it does not explain it)",
                sh.words()
            ),
            (None, None) => "a burst allowance or a cache ran out".to_string(),
        };
        let mut f = checked(
            "burst-cliff",
            Some(m.subject()),
            format!(
                "{}: {} MB/s ({} IOPS) for {} s ({} passed), then {} MB/s ({} IOPS, {}x lower): {cause}",
                m.subject(),
                sig3(c.before_bps / 1e6),
                fmt_count(c.before_iops),
                sig3(c.at_ns as f64 / 1e9),
                fmt_bytes(c.bytes_before),
                sig3(c.after_bps / 1e6),
                fmt_count(c.after_iops),
                sig3(c.before_bps / c.after_bps.max(1.0)),
            ),
            json!({
                "pass": pass,
                "passes_with_cliff": passes,
                "level_before_bytes_per_sec": round_to(c.before_bps, 0),
                "level_after_bytes_per_sec": round_to(c.after_bps, 0),
                "level_before_iops": round_to(c.before_iops, 1),
                "level_after_iops": round_to(c.after_iops, 1),
                "cliff_at_ns": c.at_ns,
                "bytes_before_cliff": c.bytes_before,
                "before_over_after": round_to(c.before_bps / c.after_bps.max(1.0), 3),
                "threshold_before_over_after": CLIFF_RATIO,
            }),
        );
        if let Some(sh) = &shared {
            f.severity = crate::result::Severity::Info;
            f.evidence["device_shared"] = sh.evidence();
        }
        out.push(f);
    }
    out
}

/// Range and slope excursion of the window, relative to its mean.
pub fn steadiness(window: &[f64]) -> Option<(f64, f64, f64)> {
    let n = window.len();
    if n < 3 {
        return None;
    }
    let mean = window.iter().sum::<f64>() / n as f64;
    if mean <= 0.0 {
        return None;
    }
    let max = window.iter().copied().fold(f64::NEG_INFINITY, f64::max);
    let min = window.iter().copied().fold(f64::INFINITY, f64::min);
    let xm = (n as f64 - 1.0) / 2.0;
    let sxy: f64 = window
        .iter()
        .enumerate()
        .map(|(i, y)| (i as f64 - xm) * (y - mean))
        .sum();
    let sxx: f64 = (0..n).map(|i| (i as f64 - xm).powi(2)).sum();
    let slope = sxy / sxx;
    Some((mean, (max - min) / mean, slope * (n as f64 - 1.0) / mean))
}

/// `not-steady`: the last half of a series is still trending.
pub fn not_steady(run: &Run) -> Vec<Finding> {
    let all = series_metrics(run);
    let long = all.iter().any(|m| {
        m.points
            .iter()
            .any(|p| rates(p.stats).len() >= STEADY_MIN_POINTS)
    });
    if !long {
        return vec![not_checked(
            "not-steady",
            format!("no per-second series of {STEADY_MIN_POINTS} s or more: steady state was not checked"),
            "a per-second series of at least 6 intervals",
        )];
    }
    let mut out = Vec::new();
    for m in &all {
        for p in &m.points {
            let r: Vec<f64> = rates(p.stats).iter().map(|x| x.1).collect();
            if r.len() < STEADY_MIN_POINTS {
                continue;
            }
            let window = &r[r.len() - r.len() / 2..];
            let Some((mean, range, excursion)) = steadiness(window) else {
                continue;
            };
            if range > STEADY_RANGE && excursion.abs() > STEADY_SLOPE {
                out.push(checked(
                    "not-steady",
                    Some(m.subject()),
                    format!(
                        "{}: over the last {} s the rate still moves {} % (range {} % of the mean): no steady state",
                        m.subject(),
                        window.len(),
                        sig3(excursion * 100.0),
                        sig3(range * 100.0),
                    ),
                    json!({
                        "pass": p.pass,
                        "window_intervals": window.len(),
                        "window_mean_bytes_per_sec": round_to(mean, 0),
                        "range_over_mean": round_to(range, 4),
                        "slope_excursion_over_mean": round_to(excursion, 4),
                        "threshold_range": STEADY_RANGE,
                        "threshold_slope": STEADY_SLOPE,
                    }),
                ));
                break;
            }
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::findings::synth::*;
    use crate::result::FindingStatus;

    const MB: u64 = 1 << 20;

    fn seq_with_series(mbps: &[f64]) -> crate::result::Run {
        let mut run = run();
        let mut m = job_mb(Some("SEQ1M Q1T1"), "write", MB, 1, 1, 100.0);
        let iops: Vec<f64> = mbps.iter().map(|x| x * 1e6 / MB as f64).collect();
        dm(&mut m).write.as_mut().unwrap().series = series(&iops, MB);
        run.measurements.push(m);
        run
    }

    #[test]
    fn cliff_from_1_4_gb_to_50_mb() {
        let run = seq_with_series(&[1400.0, 1420.0, 1390.0, 1410.0, 50.0, 49.0, 51.0, 50.0, 50.0]);
        let f = burst_cliff(&run);
        assert_eq!(f.len(), 1, "{f:?}");
        let e = &f[0].evidence;
        assert_eq!(e["cliff_at_ns"], 4_000_000_000u64);
        let before = e["level_before_bytes_per_sec"].as_f64().unwrap() / 1e6;
        let after = e["level_after_bytes_per_sec"].as_f64().unwrap() / 1e6;
        assert!((before - 1405.0).abs() < 10.0, "{before}");
        assert!((after - 50.0).abs() < 1.0, "{after}");
        // 4 s at about 1.4 GB/s passed before the cliff.
        let bytes = e["bytes_before_cliff"].as_u64().unwrap() as f64 / 1e9;
        assert!((bytes - 5.62).abs() < 0.05, "{bytes}");
    }

    /// Another process read from the device during the pass of the cliff:
    /// the drop is not blamed on a burst allowance or a cache.
    #[test]
    fn a_cliff_while_the_device_was_shared_blames_nothing() {
        let mut run = seq_with_series(&[1400.0, 1420.0, 1390.0, 1410.0, 50.0, 49.0, 51.0, 50.0]);
        stack(&mut run.measurements[0], 8 << 30);
        let f = burst_cliff(&run);
        assert_eq!(f[0].severity, crate::result::Severity::Info);
        assert!(
            f[0].verdict.contains("shared with other I/O") && !f[0].verdict.contains("ran out"),
            "{}",
            f[0].verdict
        );
        assert!(!f[0].evidence["device_shared"].is_null());
        let c = crate::findings::claims::from_findings(&run, &f);
        assert!(
            c.cannot
                .iter()
                .any(|s| s.contains("other I/O shared the device")),
            "{c:?}"
        );
        // Only candor's own I/O on the device: the usual verdict.
        stack(&mut run.measurements[0], 0);
        let f = burst_cliff(&run);
        assert_eq!(f[0].severity, crate::result::Severity::Warning);
        assert!(f[0].verdict.contains("ran out"), "{}", f[0].verdict);
    }

    #[test]
    fn no_cliff_in_noise_or_a_single_slow_second() {
        let run = seq_with_series(&[100.0, 60.0, 110.0, 90.0, 45.0, 100.0, 95.0]);
        assert!(burst_cliff(&run).is_empty());
        let run = seq_with_series(&[100.0, 100.0, 100.0, 100.0, 100.0, 20.0]);
        assert!(
            burst_cliff(&run).is_empty(),
            "one slow last second is not a level"
        );
        let run = seq_with_series(&[400.0, 100.0, 100.0, 100.0, 100.0, 100.0]);
        assert!(
            burst_cliff(&run).is_empty(),
            "one fast first second is not a level either"
        );
    }

    #[test]
    fn cliff_not_checked_without_series() {
        let run = seq_with_series(&[100.0, 100.0]);
        assert_eq!(burst_cliff(&run)[0].status, FindingStatus::NotChecked);
    }

    #[test]
    fn not_steady_fires_on_a_trend_not_on_a_plateau() {
        let run = seq_with_series(&[300.0, 280.0, 260.0, 240.0, 220.0, 200.0, 180.0, 160.0]);
        let f = not_steady(&run);
        assert_eq!(f.len(), 1, "{f:?}");
        assert!(f[0].evidence["slope_excursion_over_mean"].as_f64().unwrap() < -0.1);
        let run = seq_with_series(&[300.0, 200.0, 210.0, 190.0, 205.0, 200.0, 195.0, 202.0]);
        assert!(not_steady(&run).is_empty());
        let run = seq_with_series(&[300.0, 200.0, 210.0]);
        assert_eq!(not_steady(&run)[0].status, FindingStatus::NotChecked);
    }
}
