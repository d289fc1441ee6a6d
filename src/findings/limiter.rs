//! A QoS limiter's fingerprints: passes identical to the last digit
//! (`limiter-flat`), reads and writes equal (`limiter-rw-equal`), and queue depth
//! that buys nothing (`limiter-qd-flat`). A medium varies; a token bucket does not.

use super::metrics::{interval_rate, is_random, metrics, Dir, ProfileSeries};
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

/// How far a second's rate may sit from the rate a limiter holds. A
/// limiter meters every second, give or take where its windows fall in
/// candor's seconds: under a cgroup blk-throttle of 37,000 IOPS (read and
/// write, 4 KiB random at QD32) 8 s jobs gave 37,000 in 15 of 16 seconds
/// (one write second at 35,225), and the quick battery's 3 s jobs gave
/// 37,062, 37,000, 36,943 (read) and 36,737, 37,273, 36,953 (write: 0.87 %
/// from their median at most). A ceiling that is not metered (the host's
/// I/O emulation thread, a busy CPU) wanders: unthrottled, the same 8 s jobs
/// here gave seconds from 86,772 to 94,923 IOPS (read) and 53,506 to
/// 105,692 (write), at most 3 of 8 seconds within 1 % of their median. The
/// margin on the limiter's side is small for 3 s jobs; a quick battery's
/// lone pair at a metered limit can go unnamed, never a wandering ceiling
/// named a limit by its seconds.
pub const LIMITER_HELD: f64 = 0.01;

/// Seconds per direction below which a held rate cannot be told from a
/// wandering one (fio's imports have none; the quick preset's tests 3).
pub const LIMITER_HELD_SECONDS: usize = 3;

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

/// The rate a direction ran at, second by second.
#[derive(Debug, Clone, Copy, PartialEq)]
enum PerSecond {
    /// Every second but a stray quarter within [`LIMITER_HELD`] of the
    /// seconds' median: a metered rate, the mean of those seconds (IOPS).
    Held(f64),
    /// More than a quarter of the seconds strayed: a ceiling that wanders.
    Wandered { seconds: usize, near_median: usize },
    /// Fewer than [`LIMITER_HELD_SECONDS`] seconds recorded.
    NotRecorded,
}

/// How a direction's per-second IOPS (every pass's seconds together) sat
/// around their median. A quarter of the seconds may stray: a journal
/// commit or a flush is a stray second, not a ceiling that wanders.
fn per_second(m: &ProfileSeries) -> PerSecond {
    let rates: Vec<f64> = m
        .points
        .iter()
        .flat_map(|p| p.stats.series.iter().filter_map(interval_rate))
        .map(|(iops, _)| iops)
        .collect();
    let Some(median) = crate::result::median(&rates) else {
        return PerSecond::NotRecorded;
    };
    if rates.len() < LIMITER_HELD_SECONDS || median <= 0.0 {
        return PerSecond::NotRecorded;
    }
    // At a few hundred IOPS a second holds whole requests: one either way.
    let tolerance = (LIMITER_HELD * median).max(1.0);
    let held: Vec<f64> = rates
        .iter()
        .copied()
        .filter(|r| (r - median).abs() <= tolerance)
        .collect();
    let near_median = held.len();
    if rates.len() - near_median <= rates.len() / 4 {
        // The mean of the seconds that held: steadier than their median
        // over few seconds, and free of the stray ones.
        PerSecond::Held(held.iter().sum::<f64>() / near_median as f64)
    } else {
        PerSecond::Wandered {
            seconds: rates.len(),
            near_median,
        }
    }
}

impl PerSecond {
    /// The direction's level: the held rate, else the mean over the
    /// interval (a stray second moves the mean, never the held rate).
    fn level(self, mean: f64) -> f64 {
        match self {
            PerSecond::Held(rate) => rate,
            _ => mean,
        }
    }

    fn evidence(self) -> serde_json::Value {
        match self {
            PerSecond::Held(rate) => json!({ "held_iops": round_to(rate, 2) }),
            PerSecond::Wandered {
                seconds,
                near_median,
            } => json!({ "seconds": seconds, "near_median": near_median }),
            PerSecond::NotRecorded => serde_json::Value::Null,
        }
    }
}

/// One read/write pair of a profile: each direction's level and seconds.
struct RwPair<'a> {
    read: &'a ProfileSeries<'a>,
    read_iops: f64,
    write_iops: f64,
    read_seconds: PerSecond,
    write_seconds: PerSecond,
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
/// battery's RND4K Q32T1) has no deeper witness; it counts only when its
/// seconds show a metered rate ([`per_second`]): that pair at this VM's
/// unmetered ceiling once agreed by chance (93,370 and 93,365 IOPS, one of
/// ten quick batteries), with seconds that wandered by percents.
pub fn limiter_rw_equal(run: &Run) -> Vec<Finding> {
    let all = main_metrics(run);
    let pairs: Vec<RwPair> = all
        .iter()
        .filter(|m| m.dir == Dir::Read && m.is_plain())
        .filter_map(|r| {
            let w = all
                .iter()
                .find(|m| m.dir == Dir::Write && m.is_plain() && m.label == r.label)?;
            let (read_seconds, write_seconds) = (per_second(r), per_second(w));
            Some(RwPair {
                read: r,
                read_iops: read_seconds.level(r.iops_spread().median),
                write_iops: write_seconds.level(w.iops_spread().median),
                read_seconds,
                write_seconds,
            })
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
    for pair in &pairs {
        let (r, ri, wi) = (pair.read, pair.read_iops, pair.write_iops);
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
        let siblings: Vec<&RwPair> = pairs
            .iter()
            .filter(|o| deeper_same_shape(o.read, r))
            .collect();
        let corroborated: Vec<&str> = siblings
            .iter()
            .filter(|o| near(o.read_iops) && near(o.write_iops))
            .map(|o| o.read.label.as_str())
            .collect();
        if !siblings.is_empty() && corroborated.is_empty() {
            continue;
        }
        let wandered = |p: PerSecond| matches!(p, PerSecond::Wandered { .. });
        if siblings.is_empty() && (wandered(pair.read_seconds) || wandered(pair.write_seconds)) {
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
        let held = match (pair.read_seconds, pair.write_seconds) {
            (PerSecond::Held(_), PerSecond::Held(_)) => ", each held second by second",
            _ => "",
        };
        out.push(checked(
            "limiter-rw-equal",
            Some(r.label.clone()),
            format!(
                "{}: read {} IOPS, write {} IOPS ({} % apart{held}){also}: one shared limit, not the medium",
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
                "read_per_second": pair.read_seconds.evidence(),
                "write_per_second": pair.write_seconds.evidence(),
                "threshold_held": LIMITER_HELD,
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

    /// The battery's lone deepest pair with per-second series: `read` and
    /// `write` are its seconds' IOPS; the means are the seconds' means.
    fn lone_pair(read: &[f64], write: &[f64]) -> crate::result::Run {
        let mean = |r: &[f64]| r.iter().sum::<f64>() / r.len() as f64;
        let mut run = run();
        for (rw, seconds) in [("randread", read), ("randwrite", write)] {
            let mut m = job(Some("RND4K Q32T1"), rw, 4096, 32, 1, mean(seconds));
            let d = dm(&mut m);
            let mut s = stats(mean(seconds), 4096);
            s.series = series(seconds, 4096);
            if rw == "randread" {
                d.read = Some(s);
            } else {
                d.write = Some(s);
            }
            run.measurements.push(m);
        }
        run
    }

    #[test]
    fn rw_equal_alone_needs_seconds_that_held_a_rate() {
        // This VM unthrottled (8 s each, RND4K QD32): seconds wander by
        // percents. With means forced 0.005 % apart, as chance once made
        // them, the pair is still no limiter's.
        let read = [
            87178.0, 94562.0, 86772.0, 94923.0, 91594.0, 94058.0, 92469.0, 94108.0,
        ];
        let mut write = [
            90528.0, 89577.0, 87701.0, 92083.0, 89945.0, 88413.0, 93015.0, 88158.0,
        ];
        let shift = read.iter().sum::<f64>() - write.iter().sum::<f64>();
        write[0] += shift;
        let run = lone_pair(&read, &write);
        assert!(
            limiter_rw_equal(&run).is_empty(),
            "{:?}",
            limiter_rw_equal(&run)
        );
        // A cgroup throttle of 37,000 IOPS each way: every second at the
        // rate but one write second (35,225). The means are 0.6 % apart;
        // the held rates are equal.
        let held = [37000.0; 8];
        let mut stray = [37000.0; 8];
        stray[7] = 35225.0;
        let f = limiter_rw_equal(&lone_pair(&held, &stray));
        assert_eq!(f.len(), 1, "{f:?}");
        assert_eq!(f[0].evidence["write_per_second"]["held_iops"], 37000.0);
        assert!(
            f[0].verdict.contains("held second by second"),
            "{}",
            f[0].verdict
        );
        // The quick battery's 3 s jobs under that throttle: held, each
        // second within 0.87 % of its median.
        let f = limiter_rw_equal(&lone_pair(
            &[37062.0, 37000.0, 36943.0],
            &[36737.0, 37273.0, 36953.0],
        ));
        assert_eq!(f.len(), 1, "{f:?}");
        // Three seconds that held exactly, and three whose read wandered.
        assert_eq!(
            limiter_rw_equal(&lone_pair(&[40300.0; 3], &[40310.0; 3])).len(),
            1
        );
        let f = limiter_rw_equal(&lone_pair(
            &[40300.0, 42000.0, 38600.0],
            &[40300.0, 40310.0, 40290.0],
        ));
        assert!(f.is_empty(), "{f:?}");
    }

    #[test]
    fn rw_equal_alone_without_seconds_is_judged_on_its_means() {
        // fio's imports record no seconds: two seconds are too few to tell.
        let f = limiter_rw_equal(&lone_pair(&[40329.0, 40329.0], &[40327.0, 40327.0]));
        assert_eq!(f.len(), 1, "{f:?}");
        assert!(f[0].evidence["read_per_second"].is_null());
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
