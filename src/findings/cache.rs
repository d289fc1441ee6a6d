//! Caches between candor and the medium: the host's cache seen through the
//! control series (`host-cache`, `cache-unexcluded`), a file read over and over
//! (`residency`), and writes acknowledged by a cache (`write-back`).

use super::metrics::{metrics, Dir, ProfileSeries};
use super::{checked, not_checked, round_to};
use crate::result::{FileRole, Finding, Run, Severity};
use crate::units::{fmt_bytes, sig3};
use serde_json::json;

/// Control/main read ratio below which the main figure is called a cache.
/// A medium reads a large file at most a little slower than a small one
/// (seek distances, a drive's own small cache); halving is far outside that,
/// and the real case (1474.8 MB/s main, 49.3 MB/s control) is a 30x drop.
pub const HOST_CACHE_RATIO: f64 = 0.5;

/// Bytes read in one job, in multiples of the file size, above which the file
/// is probably resident in a cache. The real case read a 6 GB file 56 times in
/// 30 s (337 GB, 11 GB/s). Fewer re-reads are ordinary for SSDs on a 1 GiB
/// file; a fast NVMe can also pass 50, so this is a warning that the control
/// series settles, not a verdict.
pub const RESIDENCY_PASSES: f64 = 50.0;

/// QD1 write/read ratio above which writes are being acknowledged by a cache.
/// A medium that really programs data at QD1 is slower (or at best equal) on
/// writes than on reads; 10 % covers pass-to-pass noise on a shared host.
pub const WRITE_BACK_RATIO: f64 = 1.10;

/// A deeper read within this margin of the QD1 read means the read is at a
/// shelf; media gain far more than 5 % from queue depth.
pub const READ_SHELF_MARGIN: f64 = 0.05;

fn mb(bps: f64) -> String {
    format!("{} MB/s", sig3(bps / 1e6))
}

fn file_size(m: &ProfileSeries) -> Option<u64> {
    m.job().file.as_ref().map(|f| f.size).filter(|s| *s > 0)
}

/// Control/main p50 latency at QD1 at or above which the main figure is a
/// cache even when its MB/s does not show it: with one I/O in flight the
/// per-request overhead of the path hides a cache in throughput, not in the
/// latency of the requests it serves (measured here with a planted host
/// cache: RND4K Q1T1 read 49.9 MB/s at p50 23 us on the test file, 34.3 MB/s
/// at p50 110 us on the control file; 4.8x in latency, 1.45x in MB/s). The
/// same factor as [`HOST_CACHE_RATIO`], the other way round.
pub const HOST_CACHE_LATENCY_RATIO: f64 = 2.0;

/// A control read whose passes climb by this factor or more (each later pass
/// at least as fast as the first, the last the fastest) was served partly
/// from a cache: no control read repeats bytes, so only a cache that holds
/// what the fill wrote, or grows, makes a later pass faster. The real case:
/// 152, 675, 1058 MB/s. Pass-to-pass noise stays well below x1.5
/// ([`super::stability::UNSTABLE_RATIO`], the same bar).
pub const CONTROL_CLIMB_RATIO: f64 = 1.5;

/// The figures of one control metric beside its main metric.
struct ControlReading {
    /// The control figure the verdict uses: the median, or the first pass
    /// when the passes climb (the least cached one).
    control_bps: f64,
    climb: Option<Vec<f64>>,
    main_bps: f64,
    /// QD1 only: p50 latency medians (main, control).
    qd1_p50: Option<(f64, f64)>,
}

/// `shared`: the control passes during which the device was shared with
/// other I/O. A climb is then no evidence of a cache (the other I/O easing
/// makes the same climb), and the control figure is the median of the
/// passes that ran alone.
fn reading(main: &ProfileSeries, control: &ProfileSeries, shared: &[u32]) -> ControlReading {
    let passes = control.bps();
    let alone: Vec<f64> = control
        .points
        .iter()
        .filter(|p| !shared.contains(&p.pass))
        .map(|p| p.stats.bytes_per_sec)
        .collect();
    let lo = passes.iter().copied().fold(f64::MAX, f64::min);
    let hi = passes.iter().copied().fold(0.0, f64::max);
    let climbs = shared.is_empty()
        && passes.len() >= 2
        && lo > 0.0
        && hi / lo >= CONTROL_CLIMB_RATIO
        && passes.iter().all(|v| *v >= passes[0] * 0.95)
        && passes.last().is_some_and(|v| *v >= hi * 0.95);
    let p50 = |m: &ProfileSeries| {
        crate::result::median(
            &m.points
                .iter()
                .map(|p| p.stats.lat_ns.p50 as f64)
                .filter(|v| *v > 0.0)
                .collect::<Vec<_>>(),
        )
    };
    let qd1 = main.job().spec.is_qd1() && control.job().spec.is_qd1();
    ControlReading {
        control_bps: if climbs {
            passes[0]
        } else if !shared.is_empty() && !alone.is_empty() {
            crate::result::median(&alone).unwrap_or(0.0)
        } else {
            control.bps_spread().median
        },
        climb: climbs.then_some(passes),
        main_bps: main.bps_spread().median,
        qd1_p50: if qd1 {
            p50(main).zip(p50(control))
        } else {
            None
        },
    }
}

/// Fastest over slowest of some figures (1 when there are none or a zero).
fn hi_over_lo(values: &[f64]) -> f64 {
    let lo = values.iter().copied().fold(f64::MAX, f64::min);
    let hi = values.iter().copied().fold(0.0, f64::max);
    if lo > 0.0 && lo < f64::MAX {
        hi / lo
    } else {
        1.0
    }
}

/// Bytes the sequential control reads of a Run read twice: the sum of their
/// spans beyond the control file's size (0 for Runs whose control reads never
/// came back; None when the spans are not recorded).
fn control_bytes_repeated(run: &Run) -> Option<u64> {
    let spans: Vec<(u64, u64)> = run
        .disk()
        .filter(|d| d.role == FileRole::Control && !d.spec.rw.is_random())
        .map(|d| {
            d.span
                .map(|s| (s.bytes, s.region_bytes * u64::from(d.spec.numjobs.max(1))))
        })
        .collect::<Option<Vec<_>>>()?;
    let read: u64 = spans.iter().map(|s| s.0).sum();
    let size = spans.iter().map(|s| s.1).max()?;
    Some(read.saturating_sub(size))
}

/// `host-cache` when the control file reads much slower than the test file
/// (in MB/s, or at QD1 in latency) or its passes climb; `cache-unexcluded`
/// otherwise; not-checked without a control series.
pub fn host_cache(run: &Run) -> Vec<Finding> {
    let all = metrics(run);
    let controls: Vec<&ProfileSeries> = all
        .iter()
        .filter(|m| m.role == FileRole::Control && m.dir == Dir::Read)
        .collect();
    if controls.is_empty() {
        return vec![not_checked(
            "host-cache",
            "no control series: whether the read figures came from a host cache was not checked"
                .into(),
            "reads of a control file larger than RAM",
        )];
    }
    let repeated = control_bytes_repeated(run);
    let mut out = Vec::new();
    for c in controls {
        let Some(main) = all
            .iter()
            .find(|m| m.role == FileRole::Main && m.dir == Dir::Read && m.label == c.label)
        else {
            continue;
        };
        let shared: Vec<(u32, super::stack::Shared)> = c
            .points
            .iter()
            .filter_map(|p| Some((p.pass, super::stack::shared(p.job)?)))
            .collect();
        let shared_passes: Vec<u32> = shared.iter().map(|s| s.0).collect();
        let r = reading(main, c, &shared_passes);
        if r.main_bps <= 0.0 {
            continue;
        }
        let ratio = r.control_bps / r.main_bps;
        let latency_ratio = r.qd1_p50.map(|(m, c)| c / m.max(1.0));
        let mut evidence = json!({
            "main_bytes_per_sec": round_to(r.main_bps, 0),
            "control_bytes_per_sec": round_to(r.control_bps, 0),
            "control_passes_bytes_per_sec": c.bps().iter().map(|v| round_to(*v, 0)).collect::<Vec<_>>(),
            "control_climbs": r.climb.is_some(),
            "main_iops": round_to(main.iops_spread().median, 1),
            "control_iops": round_to(c.iops_spread().median, 1),
            "main_file_bytes": file_size(main),
            "control_file_bytes": file_size(c),
            "control_bytes_read_twice": repeated,
            "control_over_main": round_to(ratio, 4),
            "threshold_control_over_main": HOST_CACHE_RATIO,
            "qd1_p50_main_ns": r.qd1_p50.map(|x| x.0),
            "qd1_p50_control_ns": r.qd1_p50.map(|x| x.1),
            "qd1_p50_control_over_main": latency_ratio.map(|x| round_to(x, 3)),
            "threshold_latency_ratio": HOST_CACHE_LATENCY_RATIO,
            "threshold_control_climb": CONTROL_CLIMB_RATIO,
        });
        if !shared.is_empty() {
            evidence["control_passes_shared"] = shared
                .iter()
                .map(|(pass, sh)| {
                    let mut e = sh.evidence();
                    e["pass"] = json!(pass);
                    e
                })
                .collect();
        }
        // The device shared with other I/O during control passes: said, and
        // those passes are not read as a cache (see `reading`).
        let shared_note = match shared.first() {
            None => String::new(),
            Some((pass, sh)) => format!(
                "; the device was shared with other I/O during {} of the control passes (pass {pass}: {}), so their figures are left out{}",
                shared.len(),
                sh.words(),
                if hi_over_lo(&c.bps()) >= CONTROL_CLIMB_RATIO {
                    " and their climb is not read as a cache"
                } else {
                    ""
                }
            ),
        };
        let control_size = file_size(c).map_or("the control file".into(), |s| {
            format!("a {} control file", fmt_bytes(s))
        });
        let mut why = Vec::new();
        if ratio < HOST_CACHE_RATIO {
            why.push(format!(
                "{} on the test file but {} on {control_size} ({}x lower)",
                mb(r.main_bps),
                mb(r.control_bps),
                sig3(1.0 / ratio.max(1e-9))
            ));
        }
        if let (Some(lr), Some((pm, pc))) = (latency_ratio, r.qd1_p50) {
            if lr >= HOST_CACHE_LATENCY_RATIO {
                why.push(format!(
                    "at QD1 the requests took p50 {} on the test file and {} on {control_size} ({}x)",
                    crate::units::fmt_ns(pm),
                    crate::units::fmt_ns(pc),
                    sig3(lr)
                ));
            }
        }
        if let Some(climb) = &r.climb {
            why.push(format!(
                "the control reads got faster pass after pass ({}) although none read a byte twice: part of the control file came from a cache",
                climb.iter().map(|v| mb(*v)).collect::<Vec<_>>().join(", ")
            ));
        }
        if !why.is_empty() {
            out.push(checked(
                "host-cache",
                Some(main.subject()),
                format!(
                    "{}: {}: the main figure is a cache, not the medium{shared_note}",
                    main.subject(),
                    why.join("; ")
                ),
                evidence,
            ));
        } else {
            let repeat_note = match repeated {
                Some(0) => String::new(),
                Some(bytes) => format!(
                    " (the control reads read {} twice: a cache of that size could have served them)",
                    fmt_bytes(bytes)
                ),
                None => String::new(),
            };
            out.push(checked(
                "cache-unexcluded",
                Some(main.subject()),
                format!(
                    "{}: {} on {} vs {} on the test file ({}x): caches smaller than the control file are excluded, larger ones are not{repeat_note}{shared_note}",
                    main.subject(),
                    mb(r.control_bps),
                    control_size,
                    mb(r.main_bps),
                    sig3(ratio),
                ),
                evidence,
            ));
        }
    }
    out
}

/// `residency`: one job read its file many times over. Where a control series
/// of the same profile reads at least HOST_CACHE_RATIO of the main figure, the
/// control has already answered the question (a fast medium re-reads a small
/// file many times too: 3 GB/s for 30 s is 84 times over 1 GiB), so it is silent.
pub fn residency(run: &Run) -> Vec<Finding> {
    let all = metrics(run);
    let answered = |m: &ProfileSeries| {
        m.role == FileRole::Main
            && all.iter().any(|c| {
                c.role == FileRole::Control
                    && c.dir == Dir::Read
                    && c.label == m.label
                    && c.bps_spread().median >= HOST_CACHE_RATIO * m.bps_spread().median
            })
    };
    let reads: Vec<&ProfileSeries> = all.iter().filter(|m| m.dir == Dir::Read).collect();
    if reads.is_empty() {
        return Vec::new();
    }
    let mut any_file = false;
    let mut out = Vec::new();
    for m in reads.iter().copied() {
        let mut worst: Option<(f64, u64, u64, u64)> = None; // (passes, bytes, size, ns)
        for p in &m.points {
            let Some(size) = p.job.file.as_ref().map(|f| f.size).filter(|s| *s > 0) else {
                continue;
            };
            any_file = true;
            let bytes = if p.stats.bytes > 0 {
                p.stats.bytes
            } else {
                (p.stats.bytes_per_sec * p.job.measured_ns as f64 / 1e9) as u64
            };
            let passes = bytes as f64 / size as f64;
            if worst.is_none_or(|w| passes > w.0) {
                worst = Some((passes, bytes, size, p.job.measured_ns));
            }
        }
        let Some((passes, bytes, size, ns)) = worst else {
            continue;
        };
        if passes > RESIDENCY_PASSES && !answered(m) {
            out.push(checked(
                "residency",
                Some(m.subject()),
                format!(
                    "{}: read {} from a {} file in {} s ({} times over): the file is probably resident in a cache",
                    m.subject(),
                    fmt_bytes(bytes),
                    fmt_bytes(size),
                    sig3(ns as f64 / 1e9),
                    sig3(passes),
                ),
                json!({
                    "bytes_read": bytes,
                    "file_bytes": size,
                    "measured_ns": ns,
                    "times_over_file": round_to(passes, 2),
                    "threshold_times_over_file": RESIDENCY_PASSES,
                }),
            ));
        }
    }
    if !any_file {
        return vec![not_checked(
            "residency",
            "the test file's size is not recorded: re-reading of a cached file was not checked"
                .into(),
            "test file size",
        )];
    }
    out
}

/// `write-back`: at QD1 and one thread, writes faster than reads of the same profile.
pub fn write_back(run: &Run) -> Vec<Finding> {
    let all = metrics(run);
    let qd1 = |m: &&ProfileSeries| {
        m.role == FileRole::Main
            && m.is_plain()
            && m.job().spec.iodepth == 1
            && m.job().spec.numjobs == 1
    };
    // The reads' plateaus, where the Run is a sweep: a write beating a read
    // that sits under a read limit says nothing about a write cache.
    let read_limits = super::caps::infer(&super::caps::points(run, Dir::Read));
    let mut pairs = 0;
    let mut out = Vec::new();
    for w in all.iter().filter(qd1).filter(|m| m.dir == Dir::Write) {
        let Some(r) = all.iter().filter(qd1).find(|m| {
            m.dir == Dir::Read && m.label == w.label && m.job().spec.bs == w.job().spec.bs
        }) else {
            continue;
        };
        pairs += 1;
        let rb = r.bps_spread().median;
        let wb = w.bps_spread().median;
        if rb <= 0.0 {
            continue;
        }
        // A read held at a shelf (a deeper queue of the same pattern and block
        // size reads no faster) may be a read limit rather than the medium:
        // writes beating it then do not by themselves prove a cache. Seen
        // under a 50 MB/s cgroup read limit: 1 MiB QD1 writes at 531 MB/s
        // against reads at 50.3 MB/s. But staying silent hides real
        // write-back (this VM: SEQ1M QD1 writes 2.7 GB/s, reads 1.3 GB/s at
        // QD1 and QD8), so the finding is kept as info and says both readings.
        let shelf = all.iter().any(|d| {
            d.role == FileRole::Main
                && d.dir == Dir::Read
                && d.is_plain()
                && d.job().spec.rw == r.job().spec.rw
                && d.job().spec.bs == r.job().spec.bs
                && d.job().spec.iodepth >= super::limiter::LIMITER_QD_DEEP
                && d.bps_spread().median <= rb * (1.0 + READ_SHELF_MARGIN)
        }) || {
            // Or the writes outrun the reads' plateau itself (what reads can
            // ever do here): the reads are limited, whatever the writes are.
            let wi = w.iops_spread().median;
            read_limits
                .bandwidth
                .as_ref()
                .is_some_and(|p| wb >= p.level * (1.0 - READ_SHELF_MARGIN))
                || read_limits
                    .iops
                    .as_ref()
                    .is_some_and(|p| wi >= p.level * (1.0 - READ_SHELF_MARGIN))
        };
        let ratio = wb / rb;
        if ratio > WRITE_BACK_RATIO {
            let verdict = if shelf {
                format!(
                    "{}: QD1 writes {} vs reads {} ({}x faster), and reads do not rise with queue depth: either writes are acknowledged by a cache or reads are held by a read limit",
                    w.label,
                    mb(wb),
                    mb(rb),
                    sig3(ratio)
                )
            } else {
                format!(
                    "{}: QD1 writes {} vs reads {} ({}x faster): writes are acknowledged by a cache{}",
                    w.label,
                    mb(wb),
                    mb(rb),
                    sig3(ratio),
                    match run.host.storage.as_ref().and_then(|s| s.write_cache.as_deref()) {
                        Some("write back") => " (the device reports a volatile write cache)",
                        _ => "",
                    }
                )
            };
            let mut finding = checked(
                "write-back",
                Some(w.label.clone()),
                verdict,
                json!({
                    "read_bytes_per_sec": round_to(rb, 0),
                    "write_bytes_per_sec": round_to(wb, 0),
                    "read_iops": round_to(r.iops_spread().median, 1),
                    "write_iops": round_to(w.iops_spread().median, 1),
                    "write_over_read": round_to(ratio, 4),
                    "threshold_write_over_read": WRITE_BACK_RATIO,
                    "reads_at_a_shelf": shelf,
                    "device_write_cache": run.host.storage.as_ref().and_then(|s| s.write_cache.clone()),
                }),
            );
            if shelf {
                finding.severity = Severity::Info;
            }
            out.push(finding);
        }
    }
    if pairs == 0 {
        return vec![not_checked(
            "write-back",
            "no QD1 read and write of the same profile: write acknowledgement by a cache was not checked"
                .into(),
            "a QD1 read and a QD1 write of the same block size",
        )];
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::findings::synth::*;
    use crate::result::FindingStatus;

    const SEQ: u64 = 1 << 20;

    #[test]
    fn host_cache_fires_on_the_30x_drop() {
        let mut run = run();
        run.measurements
            .push(job_mb(Some("SEQ1M Q8T1"), "read", SEQ, 8, 1, 1474.8));
        run.measurements
            .push(control(job_mb(Some("SEQ1M Q8T1"), "read", SEQ, 8, 1, 49.3)));
        let f = host_cache(&run);
        assert_eq!(f.len(), 1);
        assert_eq!(f[0].id, "host-cache");
        assert_eq!(f[0].status, FindingStatus::Checked);
        let ratio = f[0].evidence["control_over_main"].as_f64().unwrap();
        assert!((ratio - 49.3 / 1474.8).abs() < 1e-3, "{ratio}");
        assert!(f[0].verdict.contains("29.9x lower"), "{}", f[0].verdict);
    }

    #[test]
    fn equal_control_is_cache_unexcluded_not_ok() {
        let mut run = run();
        run.measurements
            .push(job_mb(Some("SEQ1M Q8T1"), "read", SEQ, 8, 1, 200.0));
        run.measurements.push(control(job_mb(
            Some("SEQ1M Q8T1"),
            "read",
            SEQ,
            8,
            1,
            195.0,
        )));
        let f = host_cache(&run);
        assert_eq!(f.len(), 1);
        assert_eq!(f[0].id, "cache-unexcluded");
        assert!(f[0].verdict.contains("larger ones are not"));
    }

    #[test]
    fn no_control_series_is_not_checked() {
        let mut run = run();
        run.measurements
            .push(job_mb(Some("SEQ1M Q8T1"), "read", SEQ, 8, 1, 1474.8));
        let f = host_cache(&run);
        assert_eq!(f.len(), 1);
        assert_eq!(f[0].status, FindingStatus::NotChecked);
    }

    #[test]
    fn residency_fires_on_337_gb_from_6_gb() {
        let mut run = run();
        let mut m = job_mb(Some("SEQ1M Q8T1"), "read", SEQ, 8, 1, 11233.0);
        let d = dm(&mut m);
        let r = d.read.as_mut().unwrap();
        r.bytes = 337_000_000_000;
        d.file.as_mut().unwrap().size = 6_000_000_000;
        run.measurements.push(m);
        let f = residency(&run);
        assert_eq!(f.len(), 1, "{f:?}");
        assert!((f[0].evidence["times_over_file"].as_f64().unwrap() - 56.17).abs() < 0.01);
        // A control series that reads as fast has answered it: silent.
        run.measurements.push(control(job_mb(
            Some("SEQ1M Q8T1"),
            "read",
            SEQ,
            8,
            1,
            11000.0,
        )));
        assert!(residency(&run).is_empty());
    }

    #[test]
    fn residency_silent_on_a_few_rereads_and_not_checked_without_file() {
        let mut run = run();
        run.measurements
            .push(job_mb(Some("SEQ1M Q8T1"), "read", SEQ, 8, 1, 500.0));
        assert!(
            residency(&run).is_empty(),
            "500 MB/s x 30 s over 1 GiB is 14 times over"
        );
        dm(&mut run.measurements[0]).file = None;
        let f = residency(&run);
        assert_eq!(f[0].status, FindingStatus::NotChecked);
    }

    #[test]
    fn write_back_fires_when_qd1_writes_beat_reads() {
        let mut run = run();
        run.measurements
            .push(job(Some("RND4K Q1T1"), "randread", 4096, 1, 1, 3000.0));
        run.measurements
            .push(job(Some("RND4K Q1T1"), "randwrite", 4096, 1, 1, 9000.0));
        let f = write_back(&run);
        assert_eq!(f.len(), 1);
        assert_eq!(f[0].evidence["write_over_read"].as_f64().unwrap(), 3.0);
        // Writes slower than reads: silent.
        dm(&mut run.measurements[1]).write = Some(stats(2500.0, 4096));
        assert!(write_back(&run).is_empty());
        // Reads at a shelf (a read limit or a cache?): info, naming both readings.
        run.measurements
            .push(job(Some("RND4K Q32T1"), "randread", 4096, 32, 1, 3050.0));
        dm(&mut run.measurements[1]).write = Some(stats(9000.0, 4096));
        let f = write_back(&run);
        assert_eq!(f.len(), 1);
        assert_eq!(f[0].severity, Severity::Info);
        assert!(f[0].verdict.contains("read limit"), "{}", f[0].verdict);
        assert_eq!(f[0].evidence["reads_at_a_shelf"], true);
        run.measurements.truncate(2);
        // No QD1 pair: not checked.
        run.measurements.truncate(1);
        assert_eq!(write_back(&run)[0].status, FindingStatus::NotChecked);
    }

    /// The planted host cache at QD1: 49.9 MB/s at p50 23 us on the test
    /// file, 34.3 MB/s at p50 110 us on the control file. MB/s alone says
    /// "excluded"; the latency says cache.
    #[test]
    fn host_cache_at_qd1_shows_in_latency() {
        let mut run = run();
        let mut main = job_mb(Some("RND4K Q1T1"), "randread", 4096, 1, 1, 49.9);
        dm(&mut main).read.as_mut().unwrap().lat_ns.p50 = 23_000;
        let mut ctl = control(job_mb(Some("RND4K Q1T1"), "randread", 4096, 1, 1, 34.3));
        dm(&mut ctl).read.as_mut().unwrap().lat_ns.p50 = 110_000;
        run.measurements.push(main);
        run.measurements.push(ctl);
        let f = host_cache(&run);
        assert_eq!(f[0].id, "host-cache", "{f:?}");
        assert!(f[0].verdict.contains("p50"), "{}", f[0].verdict);
        // Same latency on both files: excluded (caches smaller than the control file).
        dm(&mut run.measurements[1])
            .read
            .as_mut()
            .unwrap()
            .lat_ns
            .p50 = 25_000;
        assert_eq!(host_cache(&run)[0].id, "cache-unexcluded");
    }

    /// A control read that climbs pass after pass (152, 675, 1058 MB/s) is a
    /// cache filling: its median (675) against a 4.6 GB/s main figure would
    /// still fire, but against a slower main it would have said "excluded".
    #[test]
    fn a_climbing_control_read_is_a_cache() {
        let mut run = run();
        for (pass, main, ctl) in [(1, 900.0, 152.0), (2, 910.0, 675.0), (3, 905.0, 1058.0)] {
            run.measurements
                .push(job_mb(Some("SEQ1M Q1T1"), "read", SEQ, 1, pass, main));
            run.measurements.push(control(job_mb(
                Some("SEQ1M Q1T1"),
                "read",
                SEQ,
                1,
                pass,
                ctl,
            )));
        }
        let f = host_cache(&run);
        assert_eq!(f[0].id, "host-cache", "{f:?}");
        assert_eq!(f[0].evidence["control_climbs"], true);
        assert!(f[0].verdict.contains("pass after pass"), "{}", f[0].verdict);
        // Noise between passes is no climb.
        for (i, v) in [640.0, 700.0, 660.0].into_iter().enumerate() {
            dm(&mut run.measurements[i * 2 + 1]).read = Some(stats(v * 1e6 / SEQ as f64, SEQ));
        }
        assert_eq!(host_cache(&run)[0].id, "cache-unexcluded");
    }

    /// The climb of the disturbed run (608, 1030, 1333 MB/s) with
    /// another reader on the device during the first pass: the climb is that
    /// reader stopping, not a cache. The figure of the passes alone is used.
    #[test]
    fn a_climb_while_the_device_was_shared_is_not_a_cache() {
        let mut run = run();
        for (pass, ctl) in [(1, 608.0), (2, 1030.0), (3, 1333.0)] {
            run.measurements
                .push(job_mb(Some("SEQ1M Q8T1"), "read", SEQ, 8, pass, 1400.0));
            let mut c = control(job_mb(Some("SEQ1M Q8T1"), "read", SEQ, 8, pass, ctl));
            let other = if pass == 1 { 20 << 30 } else { 0 };
            crate::findings::synth::stack(&mut c, other);
            run.measurements.push(c);
        }
        let f = host_cache(&run);
        assert_eq!(f[0].id, "cache-unexcluded", "{f:?}");
        assert!(
            f[0].verdict
                .contains("shared with other I/O during 1 of the control passes")
                && f[0].verdict.contains("climb is not read as a cache"),
            "{}",
            f[0].verdict
        );
        assert_eq!(f[0].evidence["control_passes_shared"][0]["pass"], 1);
        // The same climb on a device used by candor alone is a cache.
        for m in run.measurements.iter_mut().skip(1).step_by(2) {
            crate::findings::synth::stack(m, 0);
        }
        assert_eq!(host_cache(&run)[0].id, "host-cache");
    }
}
