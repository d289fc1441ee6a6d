//! A QoS limiter's fingerprints: passes identical to the last digit
//! (`limiter-flat`), reads and writes equal (`limiter-rw-equal`), and queue depth
//! that buys nothing (`limiter-qd-flat`). A medium varies; a token bucket does not.

use super::metrics::{is_random, metrics, Dir, ProfileSeries};
use super::{checked, not_checked, pct, round_to};
use crate::result::{FileRole, Finding, Run};
use crate::units::{fmt_count, sig3};
use serde_json::json;

/// (max - min) / median over passes below which a metric is a limiter's
/// setting. The real case: 40132.5 to 40132.7 IOPS over three 30 s passes,
/// 0.0005 %. A medium shows at least a few tenths of a percent between passes
/// (wear levelling, garbage collection, neighbours); 0.05 % leaves a 100x margin
/// above the real case and stays below what media do.
pub const LIMITER_FLAT_SPREAD: f64 = 0.0005;

/// |read - write| / max below which reads and writes of one profile hit one
/// shared counter. Real case: 40329 vs 40327 IOPS (0.005 %). Media read and
/// write at different speeds, rarely within a percent, never within 0.1 %.
pub const LIMITER_RW_EQUAL: f64 = 0.001;

/// |deep - QD1| / QD1 throughput below which queue depth buys nothing.
/// Real case: 49.3 vs 49.2 MB/s (0.2 %). Any SSD gains tens of percent from
/// queue depth; 2 % covers noise. A single spinning disk's sequential rate is
/// also flat across depths, which the finding's "not proven" says.
pub const LIMITER_QD_FLAT: f64 = 0.02;

/// A limiter enforces its rate over windows (cgroup blk-throttle: 100 ms
/// slices; token buckets: a burst allowance), so a short measurement can sit
/// a window's share off the setting: under a 2,000 IOPS cgroup throttle, 1 s
/// points at QD1 and QD32 gave 1,979 and 2,016 IOPS (1.9 %), and 1 MiB reads
/// under 50 MB/s gave 49.8 and 51.1 MB/s (2.5 %). The tolerance is therefore
/// at least this many seconds' worth of the measured interval: 5 % for 1 s
/// points, the 2 % floor from 2.5 s on.
pub const LIMITER_WINDOW_S: f64 = 0.05;

/// The smallest queue depth that counts as "deep" for limiter-qd-flat.
pub const LIMITER_QD_DEEP: u32 = 4;

fn main_metrics(run: &Run) -> Vec<ProfileSeries<'_>> {
    metrics(run)
        .into_iter()
        .filter(|m| m.role == FileRole::Main)
        .collect()
}

/// `limiter-flat`: a metric identical across passes.
pub fn limiter_flat(run: &Run) -> Vec<Finding> {
    let all = main_metrics(run);
    let multi: Vec<&ProfileSeries> = all.iter().filter(|m| m.passes() >= 2).collect();
    if multi.is_empty() {
        return vec![not_checked(
            "limiter-flat",
            "one pass only: identical passes (a limiter's fingerprint) could not be checked".into(),
            "two or more passes of a profile",
        )];
    }
    let mut out = Vec::new();
    for m in multi {
        let s = m.iops_spread();
        if s.median <= 0.0 {
            continue;
        }
        let spread = (s.max - s.min) / s.median;
        if spread < LIMITER_FLAT_SPREAD {
            out.push(checked(
                "limiter-flat",
                Some(m.subject()),
                format!(
                    "{}: {} passes within {} % ({:.1} to {:.1} IOPS): a limiter's setting, not the medium",
                    m.subject(),
                    s.n,
                    pct(spread),
                    s.min,
                    s.max
                ),
                json!({
                    "iops": m.iops(),
                    "bytes_per_sec": m.bps(),
                    "spread": round_to(spread, 9),
                    "threshold_spread": LIMITER_FLAT_SPREAD,
                }),
            ));
        }
    }
    out
}

/// `limiter-rw-equal`: read and write of one profile equal.
///
/// One pair that agrees proves little where a Run holds many: a sweep pairs
/// reads and writes at ~20 points whose read/write ratios wander by tens of
/// percent, so somewhere two curves cross, and 0.1 % agreement at one
/// point came by chance in one of ten clean Runs here (RND4K Q8T1 on the
/// unthrottled disk). A limit, once reached, holds at every deeper queue:
/// so where the Run has deeper pairs of the same block size and pattern,
/// an equal pair counts only when one of them sits at the same level, read
/// and write ([`LIMITER_QD_FLAT`]). The deepest pair of its shape (the
/// battery's RND4K Q32T1) has no deeper witness and stands alone.
pub fn limiter_rw_equal(run: &Run) -> Vec<Finding> {
    let all = main_metrics(run);
    let pairs: Vec<(&ProfileSeries, f64, f64)> = all
        .iter()
        .filter(|m| m.dir == Dir::Read && m.is_plain())
        .filter_map(|r| {
            let w = all
                .iter()
                .find(|m| m.dir == Dir::Write && m.is_plain() && m.label == r.label)?;
            Some((r, r.iops_spread().median, w.iops_spread().median))
        })
        .collect();
    if pairs.is_empty() {
        return vec![not_checked(
            "limiter-rw-equal",
            "no profile ran as both read and write: a shared read/write limit was not checked"
                .into(),
            "a read and a write of the same profile",
        )];
    }
    let deeper_same_shape = |o: &ProfileSeries, r: &ProfileSeries| {
        let (x, y) = (&o.job().spec, &r.job().spec);
        x.bs == y.bs
            && x.rw.is_random() == y.rw.is_random()
            && x.iodepth * x.numjobs > y.iodepth * y.numjobs
    };
    let mut out = Vec::new();
    for &(r, ri, wi) in &pairs {
        let hi = ri.max(wi);
        if hi <= 0.0 {
            continue;
        }
        let diff = (ri - wi).abs() / hi;
        if diff >= LIMITER_RW_EQUAL {
            continue;
        }
        let level = (ri + wi) / 2.0;
        let near = |x: f64| (x - level).abs() / level < LIMITER_QD_FLAT;
        let siblings: Vec<&(&ProfileSeries, f64, f64)> = pairs
            .iter()
            .filter(|(o, _, _)| deeper_same_shape(o, r))
            .collect();
        let corroborated: Vec<&str> = siblings
            .iter()
            .filter(|(_, oi, ow)| near(*oi) && near(*ow))
            .map(|(o, _, _)| o.label.as_str())
            .collect();
        if !siblings.is_empty() && corroborated.is_empty() {
            continue;
        }
        let also = if corroborated.is_empty() {
            String::new()
        } else {
            format!(
                " (read and write also at that level at {})",
                corroborated.join(", ")
            )
        };
        out.push(checked(
            "limiter-rw-equal",
            Some(r.label.clone()),
            format!(
                "{}: read {} IOPS, write {} IOPS ({} % apart){also}: one shared limit, not the medium",
                r.label,
                fmt_count(ri),
                fmt_count(wi),
                pct(diff)
            ),
            json!({
                "read_iops": round_to(ri, 2),
                "write_iops": round_to(wi, 2),
                "difference": round_to(diff, 9),
                "threshold_difference": LIMITER_RW_EQUAL,
                "same_level_at": corroborated,
            }),
        ));
    }
    out
}

/// The largest block at which a random read or write that is as fast at
/// QD1 as deep is a limiter's fingerprint on its own (`serial_path`): no
/// medium serves random blocks of 64 KiB or less as fast one at a time as
/// many at once (an SSD gains tens of percent, an HDD gains from its
/// command queue, a network volume from parallel requests). Above it, or
/// sequentially, one request can fill the path: on this project's VM
/// unthrottled 1 MiB reads gave 1224 MB/s at QD1 and 1199 at QD8, and a
/// spinning disk streams at its media rate at any depth.
pub const LIMITER_QD_SMALL_BLOCK: u64 = super::serial_path::SMALL_BLOCK;

/// One QD1 / deep pair with the same pattern and block size.
struct QdPair<'a> {
    lo: &'a ProfileSeries<'a>,
    hi: &'a ProfileSeries<'a>,
    qd1_bps: f64,
    deep_bps: f64,
    diff: f64,
    tolerance: f64,
    secs: f64,
}

impl QdPair<'_> {
    fn flat(&self) -> bool {
        self.diff < self.tolerance
    }

    /// Flat on its own says "limiter": random and small blocks.
    fn telling(&self) -> bool {
        super::serial_path::too_small_to_fill(self.lo.job().spec.bs, is_random(self.lo.job()))
    }
}

fn qd_pairs<'a>(plain: &[&'a ProfileSeries<'a>]) -> Vec<QdPair<'a>> {
    let mut pairs = Vec::new();
    for lo in plain.iter().filter(|m| m.job().spec.iodepth == 1) {
        let same = |m: &&&ProfileSeries| {
            m.dir == lo.dir
                && is_random(m.job()) == is_random(lo.job())
                && m.job().spec.bs == lo.job().spec.bs
                && m.job().spec.numjobs == lo.job().spec.numjobs
                && m.job().spec.iodepth >= LIMITER_QD_DEEP
        };
        let Some(hi) = plain
            .iter()
            .filter(same)
            .max_by_key(|m| m.job().spec.iodepth)
        else {
            continue;
        };
        let l = lo.bps_spread().median;
        let h = hi.bps_spread().median;
        let secs = lo
            .points
            .iter()
            .chain(&hi.points)
            .map(|p| p.job.measured_ns as f64 / 1e9)
            .filter(|s| *s > 0.0)
            .fold(f64::INFINITY, f64::min);
        let tolerance = if secs.is_finite() {
            LIMITER_QD_FLAT.max(LIMITER_WINDOW_S / secs)
        } else {
            LIMITER_QD_FLAT
        };
        pairs.push(QdPair {
            lo,
            hi,
            qd1_bps: l,
            deep_bps: h,
            diff: if l > 0.0 {
                (h - l).abs() / l
            } else {
                f64::INFINITY
            },
            tolerance,
            secs,
        });
    }
    pairs
}

/// `limiter-qd-flat`: QD1 and a deep queue give the same throughput. A
/// warning where a clean medium cannot produce it (random blocks of 64 KiB
/// or less), else an informational ceiling: one large request filled the
/// path, whether a limiter's or the medium's is not told apart. Two large
/// block sizes flat on one level are no more: a path saturated by one
/// 256 KiB request is saturated by one 1 MiB request too (this project's VM
/// did exactly that unthrottled, and it was once read as a shelf).
pub fn limiter_qd_flat(run: &Run) -> Vec<Finding> {
    let all = main_metrics(run);
    let plain: Vec<&ProfileSeries> = all.iter().filter(|m| m.is_plain()).collect();
    let pairs = qd_pairs(&plain);
    if pairs.is_empty() {
        return vec![not_checked(
            "limiter-qd-flat",
            "no profile ran at both QD1 and a deep queue: a queue-depth shelf was not checked"
                .into(),
            "the same pattern and block size at QD1 and at QD4 or deeper",
        )];
    }
    let flat: Vec<&QdPair> = pairs.iter().filter(|p| p.flat()).collect();
    let mut out = Vec::new();
    for p in &flat {
        // Another flat pair of another block size at the same bandwidth: a shelf no single request explains.
        let shelf_partner = flat.iter().find(|o| {
            o.lo.job().spec.bs != p.lo.job().spec.bs
                && o.lo.dir == p.lo.dir
                && (o.qd1_bps / p.qd1_bps - 1.0).abs() < p.tolerance.max(o.tolerance) * 2.0
        });
        let limiter = p.telling();
        let why = if p.telling() {
            "queue depth buys nothing at small random blocks: a bandwidth or IOPS shelf".to_string()
        } else if let Some(o) = shelf_partner {
            format!(
                "one large request already fills the path, and {} sits on the same level: a ceiling, the path's or a limiter's (not told apart)",
                o.lo.subject()
            )
        } else {
            "one large request already fills the path: a ceiling, the path's or a limiter's (not told apart)".to_string()
        };
        let mut f = checked(
            "limiter-qd-flat",
            Some(p.hi.subject()),
            format!(
                "{} vs {}: {} MB/s at QD{} and {} MB/s at QD1 ({} % apart): {why}",
                p.hi.subject(),
                p.lo.subject(),
                sig3(p.deep_bps / 1e6),
                p.hi.job().spec.iodepth,
                sig3(p.qd1_bps / 1e6),
                pct(p.diff)
            ),
            json!({
                "qd1_bytes_per_sec": round_to(p.qd1_bps, 0),
                "deep_bytes_per_sec": round_to(p.deep_bps, 0),
                "qd1_iops": round_to(p.lo.iops_spread().median, 2),
                "deep_iops": round_to(p.hi.iops_spread().median, 2),
                "deep_iodepth": p.hi.job().spec.iodepth,
                "difference": round_to(p.diff, 6),
                "threshold_difference": round_to(p.tolerance, 4),
                "shortest_measured_sec": if p.secs.is_finite() { Some(round_to(p.secs, 3)) } else { None },
                "small_random_block": p.telling(),
                "same_level_at_block_size": shelf_partner.map(|o| o.lo.job().spec.bs),
            }),
        );
        if !limiter {
            f.severity = crate::result::Severity::Info;
        }
        out.push(f);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::findings::synth::*;
    use crate::result::FindingStatus;

    #[test]
    fn flat_fires_on_40132_5_to_40132_7() {
        let mut run = run();
        for (pass, iops) in [(1, 40132.5), (2, 40132.7), (3, 40132.6)] {
            run.measurements
                .push(job(Some("RND4K Q32T1"), "randread", 4096, 32, pass, iops));
        }
        let f = limiter_flat(&run);
        assert_eq!(f.len(), 1);
        assert_eq!(f[0].id, "limiter-flat");
        assert!(f[0].evidence["spread"].as_f64().unwrap() < 1e-5);
    }

    #[test]
    fn flat_silent_on_media_noise_and_not_checked_with_one_pass() {
        let mut run = run();
        for (pass, iops) in [(1, 40100.0), (2, 40350.0), (3, 39900.0)] {
            run.measurements
                .push(job(Some("RND4K Q32T1"), "randread", 4096, 32, pass, iops));
        }
        assert!(limiter_flat(&run).is_empty());
        run.measurements.truncate(1);
        let f = limiter_flat(&run);
        assert_eq!(f[0].status, FindingStatus::NotChecked);
    }

    #[test]
    fn rw_equal_in_a_sweep_needs_a_second_point_at_its_level() {
        // Curves that cross at QD8 on a clean disk: chance, not a limit.
        let mut run = run();
        for (qd, r, w) in [
            (1, 18_000.0, 15_000.0),
            (8, 60_000.0, 60_010.0),
            (32, 130_000.0, 110_000.0),
        ] {
            let label = format!("RND4K Q{qd}T1");
            run.measurements
                .push(job(Some(&label), "randread", 4096, qd, 1, r));
            run.measurements
                .push(job(Some(&label), "randwrite", 4096, qd, 1, w));
        }
        assert!(limiter_rw_equal(&run).is_empty());
        // A shared limit: both directions at 40,000 from QD8 on.
        dm(&mut run.measurements[2]).read = Some(stats(40_000.0, 4096));
        dm(&mut run.measurements[3]).write = Some(stats(40_010.0, 4096));
        dm(&mut run.measurements[4]).read = Some(stats(40_020.0, 4096));
        dm(&mut run.measurements[5]).write = Some(stats(40_005.0, 4096));
        let f = limiter_rw_equal(&run);
        assert_eq!(f.len(), 2, "{f:?}");
        assert_eq!(f[0].evidence["same_level_at"][0], "RND4K Q32T1");
    }

    #[test]
    fn rw_equal_at_the_battery_s_deepest_queue_stands_alone() {
        // The battery: RND4K at QD1 well below the limit, QD32 at it.
        let mut run = run();
        for (qd, r, w) in [(1, 10_500.0, 9_200.0), (32, 40_329.0, 40_327.0)] {
            let label = format!("RND4K Q{qd}T1");
            run.measurements
                .push(job(Some(&label), "randread", 4096, qd, 1, r));
            run.measurements
                .push(job(Some(&label), "randwrite", 4096, qd, 1, w));
        }
        let f = limiter_rw_equal(&run);
        assert_eq!(f.len(), 1, "{f:?}");
        assert_eq!(f[0].subject.as_deref(), Some("RND4K Q32T1"));
    }

    #[test]
    fn rw_equal_fires_on_40329_vs_40327() {
        let mut run = run();
        run.measurements
            .push(job(Some("RND4K Q32T1"), "randread", 4096, 32, 1, 40329.0));
        run.measurements
            .push(job(Some("RND4K Q32T1"), "randwrite", 4096, 32, 1, 40327.0));
        let f = limiter_rw_equal(&run);
        assert_eq!(f.len(), 1);
        assert_eq!(f[0].evidence["read_iops"], 40329.0);
        // Media: writes slower.
        dm(&mut run.measurements[1]).write = Some(stats(31000.0, 4096));
        assert!(limiter_rw_equal(&run).is_empty());
        run.measurements.truncate(1);
        assert_eq!(limiter_rw_equal(&run)[0].status, FindingStatus::NotChecked);
    }

    fn run_short(qd1_mb: f64, qd8_mb: f64, ns: u64) -> crate::result::Run {
        let mut run = run();
        run.measurements
            .push(job_mb(Some("SEQ1M Q1T1"), "read", 1 << 20, 1, 1, qd1_mb));
        run.measurements
            .push(job_mb(Some("SEQ1M Q8T1"), "read", 1 << 20, 8, 1, qd8_mb));
        for m in &mut run.measurements {
            dm(m).measured_ns = ns;
        }
        run
    }

    #[test]
    fn qd_flat_fires_on_49_3_vs_49_2_mb() {
        let mut run = run();
        run.measurements
            .push(job_mb(Some("SEQ1M Q1T1"), "read", 1 << 20, 1, 1, 49.3));
        run.measurements
            .push(job_mb(Some("SEQ1M Q8T1"), "read", 1 << 20, 8, 1, 49.2));
        // One large sequential request filling the path: a ceiling, not a limiter by itself.
        let f = limiter_qd_flat(&run);
        assert_eq!(f.len(), 1, "{f:?}");
        assert!(f[0].verdict.contains("QD8"), "{}", f[0].verdict);
        assert_eq!(f[0].severity, crate::result::Severity::Info);
        // An SSD gains from depth: silent.
        dm(&mut run.measurements[1]).read = Some(stats(1500.0, 1 << 20));
        assert!(limiter_qd_flat(&run).is_empty());
        // 1 s points under a cgroup throttle: 49.83 vs 51.1 MB/s (2.5 %) is flat for 1 s.
        let mut short = run_short(49.83, 51.1, 1_000_000_000);
        assert_eq!(limiter_qd_flat(&short).len(), 1);
        // The same gap over 30 s is outside the 2 % floor.
        for m in &mut short.measurements {
            dm(m).measured_ns = 30_000_000_000;
        }
        assert!(limiter_qd_flat(&short).is_empty());
        // Only one depth: not checked.
        run.measurements.truncate(1);
        assert_eq!(limiter_qd_flat(&run)[0].status, FindingStatus::NotChecked);
    }

    /// This project's VM unthrottled: 256 KiB and 1 MiB random reads at QD1
    /// and QD16 all near 1,373 MB/s. Two large sizes on one level are a
    /// path one large request fills, not a shelf; 64 KiB at QD1 and deep on
    /// one level would be.
    #[test]
    fn two_large_blocks_flat_on_one_level_are_a_ceiling() {
        let mut run = run();
        for (bs, qd, mb) in [
            (256 << 10, 1, 1373.0),
            (256 << 10, 16, 1371.0),
            (1 << 20, 1, 1372.6),
            (1 << 20, 16, 1369.0),
        ] {
            let label = format!("RND{}K Q{qd}T1", bs >> 10);
            run.measurements
                .push(job_mb(Some(&label), "randread", bs, qd, 1, mb));
        }
        let f = limiter_qd_flat(&run);
        assert_eq!(f.len(), 2, "{f:?}");
        assert!(
            f.iter()
                .all(|f| f.severity == crate::result::Severity::Info),
            "{f:?}"
        );
        assert!(f[0].verdict.contains("not told apart"), "{}", f[0].verdict);
        // 64 KiB held at one level from QD1 on: no medium does that.
        run.measurements.push(job_mb(
            Some("RND64K Q1T1"),
            "randread",
            64 << 10,
            1,
            1,
            49.6,
        ));
        run.measurements.push(job_mb(
            Some("RND64K Q16T1"),
            "randread",
            64 << 10,
            16,
            1,
            49.9,
        ));
        let f = limiter_qd_flat(&run);
        assert!(
            f.iter()
                .any(|f| f.severity == crate::result::Severity::Warning
                    && f.verdict.contains("RND64K")),
            "{f:?}"
        );
    }
}
