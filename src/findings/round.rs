//! `round-plateau`: a figure that sits on a commercial step (40,000 IOPS,
//! 500 MiB/s) once converted to the unit a provider sells in. Caps hide in
//! one unit: 526.0 MB/s looks arbitrary until it reads 501.6 MiB/s.

use super::metrics::{interval_rate, metrics, ProfileSeries};
use super::{checked, round_to};
use crate::result::{FileRole, Finding, Run, Severity};
use crate::units::sig3;
use serde_json::json;

/// Mantissas of the steps providers sell (x 10^n): 1,000 / 1,500 / 2,000 /
/// 2,500 / 3,000 / 4,000 / 5,000 / 6,000 / 7,500 / 8,000 IOPS, 125 MiB/s, ...
pub const STEPS: [f64; 11] = [1.0, 1.25, 1.5, 2.0, 2.5, 3.0, 4.0, 5.0, 6.0, 7.5, 8.0];

/// Relative distance to a step within which a figure counts as round.
/// The real case is 501.6 MiB/s for a 500 MiB/s cap (0.32 %); a limiter
/// delivers its setting within a few tenths of a percent.
pub const ROUND_TOLERANCE: f64 = 0.005;

/// Another figure within this distance below a round bandwidth shares its
/// cap: 126,076 IOPS x 4 KiB = 492.5 MiB/s sits 1.5 % under 500 MiB/s, the
/// rest is per-I/O overhead under a bandwidth limit.
pub const SHARED_CAP_TOLERANCE: f64 = 0.02;

/// Passes within this spread (max - min over median) make a round figure a
/// plateau by themselves. A steady medium is often within 1-2 % between
/// passes, so that alone would promote chance roundness; a limiter repeats
/// its setting within hundredths of a percent (40132.5-40132.7: 0.0005 %).
pub const PLATEAU_PASS_SPREAD: f64 = 0.001;

/// A block size at this share of its direction's top IOPS or more is near
/// the device's per-I/O capacity: its bandwidth is set by its I/Os. A
/// medium's bandwidth ceiling is met by large blocks far below it (this VM:
/// 64 KiB at 22,941 IOPS on the 1.5 GB/s path, 4 KiB at 99,000).
pub const IOPS_BOUND_SHARE: f64 = 0.5;

/// Figures smaller than these are round by accident (12 MB/s, 300 IOPS).
pub const MIN_IOPS: f64 = 500.0;
pub const MIN_MB: f64 = 10.0;

/// The nearest step to `value` and the relative distance to it.
pub fn nearest_step(value: f64) -> Option<(f64, f64)> {
    if value <= 0.0 || !value.is_finite() {
        return None;
    }
    let decade = 10f64.powf(value.log10().floor());
    let mut best: Option<(f64, f64)> = None;
    for scale in [decade / 10.0, decade, decade * 10.0] {
        for k in STEPS {
            let step = k * scale;
            let off = (value - step).abs() / step;
            if best.is_none_or(|b| off < b.1) {
                best = Some((step, off));
            }
        }
    }
    best
}

struct RoundFigure {
    unit: &'static str,
    value: f64,
}

fn figures(iops: f64, bps: f64) -> Vec<RoundFigure> {
    // Bandwidth first: with 1 MiB blocks IOPS equals MiB/s, and a tie goes
    // to the unit a large-block cap is sold in (the sort below is stable).
    let mut f = Vec::new();
    if bps / 1e6 >= MIN_MB {
        f.push(RoundFigure {
            unit: "MB/s",
            value: bps / 1e6,
        });
        f.push(RoundFigure {
            unit: "MiB/s",
            value: bps / 1048576.0,
        });
    }
    if iops >= MIN_IOPS {
        f.push(RoundFigure {
            unit: "IOPS",
            value: iops,
        });
    }
    f
}

/// I/Os in flight in total.
fn depth(m: &ProfileSeries) -> u32 {
    m.job().spec.iodepth.max(1) * m.job().spec.numjobs.max(1)
}

fn to_unit(unit: &str, iops: f64, bps: f64) -> f64 {
    match unit {
        "IOPS" => iops,
        "MB/s" => bps / 1e6,
        _ => bps / 1048576.0,
    }
}

/// Coefficient of variation of the per-second rates of the first pass, if it has a series.
fn series_cv(m: &ProfileSeries) -> Option<f64> {
    let rates: Vec<f64> = m.points[0]
        .stats
        .series
        .iter()
        .filter_map(interval_rate)
        .map(|r| r.0)
        .collect();
    if rates.len() < 3 {
        return None;
    }
    let mean = rates.iter().sum::<f64>() / rates.len() as f64;
    if mean <= 0.0 {
        return None;
    }
    let var = rates.iter().map(|r| (r - mean).powi(2)).sum::<f64>() / rates.len() as f64;
    Some(var.sqrt() / mean)
}

/// `round-plateau` for every main-file metric whose median is round in some unit.
pub fn round_plateau(run: &Run) -> Vec<Finding> {
    let all: Vec<ProfileSeries> = metrics(run)
        .into_iter()
        .filter(|m| m.role == FileRole::Main)
        .collect();
    let mut out = Vec::new();
    for m in &all {
        let iops = m.iops_spread().median;
        let bps = m.bps_spread().median;
        let mut rounds = Vec::new();
        for f in figures(iops, bps) {
            if let Some((step, off)) = nearest_step(f.value) {
                if off <= ROUND_TOLERANCE {
                    rounds.push((f.unit, f.value, step, off));
                }
            }
        }
        // Prefer the unit closest to its step: that is the unit the cap is set in.
        rounds.sort_by(|a, b| a.3.total_cmp(&b.3));
        let Some(&(unit, value, step, off)) = rounds.first() else {
            continue;
        };

        // Is it a plateau? Other metrics at or just under the same level, flat passes, a flat series.
        // A plateau is the top of its curve: a deeper point of the same
        // pattern and block size well above the level means the curve was
        // still rising there (a clean sweep has 4 KiB QD32 at 60,039 IOPS,
        // round, with QD64 at 79,518).
        let at_top = |x: &ProfileSeries| {
            !all.iter().any(|d| {
                d.dir == x.dir
                    && d.job().spec.rw == x.job().spec.rw
                    && d.job().spec.bs == x.job().spec.bs
                    && depth(d) > depth(x)
                    && to_unit(unit, d.iops_spread().median, d.bps_spread().median)
                        > step * (1.0 + SHARED_CAP_TOLERANCE)
            })
        };
        // Only another block size counts: at the same size, equal figures are
        // natural (random and sequential 1 MiB QD1 reads agree on a path
        // that one request fills). In IOPS, the same figure at two sizes is
        // what a limiter does and a medium does not (it pays per byte). In
        // bytes/s, large blocks at depth all meet the path's own ceiling
        // (this VM: 256K QD16, 1M QD4 and QD16, SEQ1M QD8 reads all at
        // 1567 MB/s, which is 1494 MiB/s, "round" by chance; and 64 KiB at
        // QD16 at 1503 MB/s beside 1 MiB QD16 at 1501): there the evidence
        // is a point at that level whose figure is set by its I/Os, not by
        // the path's bytes: a small random block one at a time
        // (`serial_path`), or a block size running at half its direction's
        // top IOPS or more (4 KiB at 126,076 IOPS under 500 MiB/s).
        let set_by_ios = |x: &ProfileSeries| {
            let top = all
                .iter()
                .filter(|d| d.dir == x.dir)
                .map(|d| d.iops_spread().median)
                .fold(0.0, f64::max);
            super::serial_path::too_small_to_fill(
                x.job().spec.bs * depth(x) as u64,
                x.job().spec.rw.is_random(),
            ) || x.iops_spread().median >= IOPS_BOUND_SHARE * top
        };
        let limiter_evidence = |o: &ProfileSeries| unit == "IOPS" || set_by_ios(o) || set_by_ios(m);
        let shared: Vec<serde_json::Value> = all
            .iter()
            .filter(|o| {
                o.subject() != m.subject()
                    && o.dir == m.dir
                    && o.job().spec.bs != m.job().spec.bs
                    && limiter_evidence(o)
                    && at_top(o)
                    && at_top(m)
            })
            .filter_map(|o| {
                let v = to_unit(unit, o.iops_spread().median, o.bps_spread().median);
                let below = (step - v) / step;
                (-ROUND_TOLERANCE..=SHARED_CAP_TOLERANCE).contains(&below).then(|| {
                    json!({"subject": o.subject(), "value": round_to(v, 2), "iops": round_to(o.iops_spread().median, 1)})
                })
            })
            .collect();
        let s = m.iops_spread();
        let pass_spread = (s.n >= 2 && s.median > 0.0).then(|| (s.max - s.min) / s.median);
        let cv = series_cv(m);
        // A flat per-second series is recorded but is no evidence: steady
        // media are flat too.
        let plateau = !shared.is_empty() || pass_spread.is_some_and(|p| p <= PLATEAU_PASS_SPREAD);
        let mut f = checked(
            "round-plateau",
            Some(m.subject()),
            format!(
                "{}: {} IOPS = {} MB/s = {} MiB/s; round in {}: {} {}{}",
                m.subject(),
                sig3(iops),
                sig3(bps / 1e6),
                sig3(bps / 1048576.0),
                unit,
                if step >= 1000.0 {
                    crate::units::fmt_count(step)
                } else {
                    sig3(step)
                },
                unit,
                if plateau {
                    ", a plateau: probably a configured cap"
                } else {
                    " (no plateau evidence: maybe chance)"
                }
            ),
            json!({
                "iops": round_to(iops, 2),
                "mb_per_sec": round_to(bps / 1e6, 2),
                "mib_per_sec": round_to(bps / 1048576.0, 2),
                "round_unit": unit,
                "round_value": step,
                "measured_in_unit": round_to(value, 2),
                "off": round_to(off, 6),
                "threshold_off": ROUND_TOLERANCE,
                "also_near_this_cap": shared,
                "pass_spread": pass_spread.map(|p| round_to(p, 6)),
                "series_cv": cv.map(|c| round_to(c, 4)),
                "threshold_pass_spread": PLATEAU_PASS_SPREAD,
            }),
        );
        if !plateau {
            f.severity = Severity::Info;
        }
        out.push(f);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::findings::synth::*;

    #[test]
    fn steps() {
        assert_eq!(nearest_step(40132.6).unwrap().0, 40000.0);
        let (s, off) = nearest_step(501.6).unwrap();
        assert_eq!(s, 500.0);
        assert!(off < 0.004);
        assert_eq!(nearest_step(126.0).unwrap().0, 125.0);
    }

    #[test]
    fn mib_cap_named_with_the_iops_figure_near_it() {
        let mut run = run();
        // 526.0 MB/s sequential = 501.6 MiB/s; 126,076 IOPS x 4 KiB = 492.5 MiB/s.
        for pass in 1..=3 {
            run.measurements.push(job_mb(
                Some("SEQ1M Q8T1"),
                "read",
                1 << 20,
                8,
                pass,
                525.8 + pass as f64 * 0.2 - 0.2,
            ));
            run.measurements.push(job(
                Some("RND4K Q32T1"),
                "randread",
                4096,
                32,
                pass,
                126076.0 + pass as f64 * 900.0,
            ));
        }
        let f = round_plateau(&run);
        let seq = f
            .iter()
            .find(|f| f.subject.as_deref() == Some("SEQ1M Q8T1 read"))
            .expect("seq fires");
        assert_eq!(seq.evidence["round_unit"], "MiB/s");
        assert_eq!(seq.evidence["round_value"], 500.0);
        assert_eq!(seq.severity, Severity::Warning);
        assert_eq!(
            seq.evidence["also_near_this_cap"][0]["subject"],
            "RND4K Q32T1 read"
        );
    }

    #[test]
    fn forty_thousand_iops_flat_is_a_plateau() {
        let mut run = run();
        for pass in 1..=3 {
            run.measurements.push(job(
                Some("RND4K Q32T1"),
                "randread",
                4096,
                32,
                pass,
                40010.0 + pass as f64,
            ));
        }
        let f = round_plateau(&run);
        assert_eq!(f.len(), 1);
        assert_eq!(f[0].evidence["round_unit"], "IOPS");
        assert_eq!(f[0].severity, Severity::Warning);
    }

    #[test]
    fn a_path_ceiling_on_a_round_figure_is_no_plateau_evidence() {
        // Large blocks at depth all meet this VM's path at 1567 MB/s =
        // 1494 MiB/s (0.4 % from 1,500): round by chance, not a cap.
        let mut run = run();
        for (label, rw, bs, qd, mb) in [
            ("RND256K Q16T1", "randread", 256 << 10, 16, 1566.0),
            ("RND1M Q4T1", "randread", 1 << 20, 4, 1565.0),
            ("RND1M Q16T1", "randread", 1 << 20, 16, 1567.0),
            ("SEQ1M Q8T1", "read", 1 << 20, 8, 1568.0),
            ("RND1M Q1T1", "randread", 1 << 20, 1, 1180.0),
        ] {
            run.measurements
                .push(job_mb(Some(label), rw, bs, qd, 1, mb));
        }
        // The sweep's small blocks: 4 KiB tops out at 99,000 IOPS.
        run.measurements
            .push(job(Some("RND4K Q64T1"), "randread", 4096, 64, 1, 99_000.0));
        // 64 KiB at QD16 meets the path too (measured: 1503 MB/s beside
        // 1 MiB QD16's 1501, 2026-12-05): a megabyte in flight at a quarter
        // of the top IOPS is the path's bytes, not a limiter.
        run.measurements.push(job_mb(
            Some("RND64K Q16T1"),
            "randread",
            64 << 10,
            16,
            1,
            1566.5,
        ));
        let f = round_plateau(&run);
        assert!(!f.is_empty());
        assert!(f.iter().all(|f| f.severity == Severity::Info), "{f:?}");
        // Two large sizes at QD1 on the level are the path as well.
        run.measurements.push(job_mb(
            Some("RND256K Q1T1"),
            "randread",
            256 << 10,
            1,
            1,
            1566.8,
        ));
        run.measurements[4] = job_mb(Some("RND1M Q1T1"), "randread", 1 << 20, 1, 1, 1567.2);
        let f = round_plateau(&run);
        assert!(f.iter().all(|f| f.severity == Severity::Info), "{f:?}");
        // 64 KiB one at a time at the level: that a path does not do.
        run.measurements.push(job_mb(
            Some("RND64K Q1T1"),
            "randread",
            64 << 10,
            1,
            1,
            1566.5,
        ));
        let f = round_plateau(&run);
        assert!(f.iter().any(|f| f.severity == Severity::Warning), "{f:?}");
    }

    #[test]
    fn silent_on_arbitrary_figures() {
        let mut run = run();
        for pass in 1..=3 {
            run.measurements.push(job(
                Some("RND4K Q32T1"),
                "randread",
                4096,
                32,
                pass,
                83240.0 + pass as f64 * 700.0,
            ));
            run.measurements.push(job_mb(
                Some("SEQ1M Q8T1"),
                "read",
                1 << 20,
                8,
                pass,
                1868.0 + pass as f64 * 9.0,
            ));
        }
        assert!(round_plateau(&run).is_empty(), "{:?}", round_plateau(&run));
    }
}
