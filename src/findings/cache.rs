//! Caches between candor and the medium: the host's cache seen through the
//! control series (`host-cache`, `cache-unexcluded`), a file read over and over
//! (`residency`), and writes acknowledged by a cache (`write-back`).

use super::metrics::{metrics, Dir, Metric};
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

fn file_size(m: &Metric) -> Option<u64> {
    m.job().file.as_ref().map(|f| f.size).filter(|s| *s > 0)
}

/// `host-cache` where the control series reads much slower than the main file,
/// `cache-unexcluded` where it does not; `host-cache` not-checked without a control series.
pub fn host_cache(run: &Run) -> Vec<Finding> {
    let all = metrics(run);
    let controls: Vec<&Metric> = all
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
    let mut out = Vec::new();
    for c in controls {
        let Some(main) = all
            .iter()
            .find(|m| m.role == FileRole::Main && m.dir == Dir::Read && m.label == c.label)
        else {
            continue;
        };
        let main_bps = main.bps_spread().median;
        let control_bps = c.bps_spread().median;
        if main_bps <= 0.0 {
            continue;
        }
        let ratio = control_bps / main_bps;
        let evidence = json!({
            "main_bytes_per_sec": round_to(main_bps, 0),
            "control_bytes_per_sec": round_to(control_bps, 0),
            "main_iops": round_to(main.iops_spread().median, 1),
            "control_iops": round_to(c.iops_spread().median, 1),
            "main_file_bytes": file_size(main),
            "control_file_bytes": file_size(c),
            "control_over_main": round_to(ratio, 4),
            "threshold_control_over_main": HOST_CACHE_RATIO,
        });
        let control_size = file_size(c).map_or("the control file".into(), |s| {
            format!("a {} control file", fmt_bytes(s))
        });
        if ratio < HOST_CACHE_RATIO {
            out.push(checked(
                "host-cache",
                Some(main.subject()),
                format!(
                    "{}: {} on the test file but {} on {} ({}x lower): the main figure is a cache, not the medium",
                    main.subject(),
                    mb(main_bps),
                    mb(control_bps),
                    control_size,
                    sig3(1.0 / ratio.max(1e-9)),
                ),
                evidence,
            ));
        } else {
            out.push(checked(
                "cache-unexcluded",
                Some(main.subject()),
                format!(
                    "{}: {} on {} vs {} on the test file ({}x): caches smaller than the control file are excluded, larger ones are not",
                    main.subject(),
                    mb(control_bps),
                    control_size,
                    mb(main_bps),
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
    let answered = |m: &Metric| {
        m.role == FileRole::Main
            && all.iter().any(|c| {
                c.role == FileRole::Control
                    && c.dir == Dir::Read
                    && c.label == m.label
                    && c.bps_spread().median >= HOST_CACHE_RATIO * m.bps_spread().median
            })
    };
    let reads: Vec<&Metric> = all.iter().filter(|m| m.dir == Dir::Read).collect();
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
            if worst.map_or(true, |w| passes > w.0) {
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
    let qd1 = |m: &&Metric| {
        m.role == FileRole::Main
            && m.is_plain()
            && m.job().spec.iodepth == 1
            && m.job().spec.numjobs == 1
    };
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
        });
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
                    "{}: QD1 writes {} vs reads {} ({}x faster): writes are acknowledged by a cache",
                    w.label,
                    mb(wb),
                    mb(rb),
                    sig3(ratio)
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
}
