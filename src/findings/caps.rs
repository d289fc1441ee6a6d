//! `caps`: the IOPS and bandwidth limits a sweep over block sizes and queue
//! depths reveals. A limiter counts operations or bytes, a medium does
//! neither exactly: equal IOPS at 4 KiB and 8 KiB while MB/s doubles is an
//! IOPS cap; equal MB/s at different block sizes (IOPS far apart) is a
//! bandwidth cap. Read and write caps are inferred separately.
//!
//! Equal figures at two block sizes are not enough on their own. On this
//! project's shared VM an unthrottled sweep gave 48,161 and 47,314 IOPS at 4
//! and 8 KiB QD32 (the virtual disk's per-I/O cost), and 1.14 GB/s for 64 KiB
//! QD32, 1 MiB QD32 and sequential 1 MiB QD1 reads (the path's bandwidth). A
//! configured limiter shows one more trait: it holds even a single request in
//! flight. So a cap needs the plateau at the shallowest depth tested (QD1):
//! one QD1 point for an IOPS cap (a medium's top IOPS is never at QD1), two
//! block sizes at QD1 for a bandwidth cap (one 1 MiB request can fill a slow
//! path; a 64 KiB one cannot). Under real cgroup throttles the QD1 points sit
//! on the cap (1,979 IOPS at 8 KiB under 2,000; 49.6 and 49.8 MB/s at 64 KiB
//! and 1 MiB under 50 MB/s). A plateau without that is reported as a
//! `ceiling` of the path, and the cap field stays null.
//!
//! Inference is a pure function of points, so it is tested on synthetic
//! sweeps; `caps_finding` applies it to a Run.

use super::metrics::{metrics, Dir};
use super::{checked, not_checked, round_to};
use crate::result::{FileRole, Finding, Run, Severity};
use crate::units::{block_label, fmt_count, sig3};
use serde::Serialize;
use serde_json::json;

/// Points within this fraction of the top figure sit on the same plateau. A
/// cgroup or hypervisor limiter delivers its setting within 1-3 % over a
/// second or two; natural curves are not that flat across block sizes.
pub const CAP_PLATEAU_TOLERANCE: f64 = 0.05;

/// No point may exceed a cap by more than this factor. A cgroup throttle lets
/// a QD1 job run about 16 % over its setting in its first second (measured
/// here with fio: 2326 IOPS under a 2000 IOPS cap); a natural curve that
/// happens to have two equal points has others far above them.
pub const CAP_OVERSHOOT: f64 = 1.25;

/// The spread of the other quantity along a plateau that makes it a cap: for
/// an IOPS cap, MB/s must differ at least this much between its points (they
/// used different block sizes and still did the same IOPS), and vice versa.
pub const CAP_OTHER_SPREAD: f64 = 1.5;

/// candor's CPU use (percent of one CPU) at or above which a point measured
/// the CPU, not the disk: a CPU-bound plateau is not a cap.
pub const CPU_BOUND_PCT: f64 = 90.0;

/// A sweep needs this many block sizes in a direction before caps are inferred.
pub const CAPS_MIN_BLOCK_SIZES: usize = 3;

/// One point of a sweep: one job, one direction (medians over passes).
#[derive(Debug, Clone, Serialize, PartialEq)]
pub struct CapPoint {
    pub label: String,
    pub rw: crate::result::Rw,
    pub bs: u64,
    pub iodepth: u32,
    pub iops: f64,
    pub bytes_per_sec: f64,
    /// candor used a whole CPU: the point is CPU-bound.
    pub cpu_bound: bool,
    /// Operations counted in the measured interval (0: unknown). A count is
    /// known to about one operation at each end of the interval.
    pub ops: u64,
}

impl CapPoint {
    /// How far this point may sit from a level and still be on it: the
    /// plateau tolerance plus its counting granularity (two operations). One
    /// second of 1 MiB reads under a 50 MB/s cgroup limit counts 45-50
    /// operations: 47.2 MB/s and 51.2 MB/s were measured in one sweep.
    pub fn tolerance(&self) -> f64 {
        CAP_PLATEAU_TOLERANCE
            + if self.ops > 0 {
                2.0 / self.ops as f64
            } else {
                0.0
            }
    }
}

/// Inferred caps of one direction; None where none is evident.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct DirCaps {
    pub iops: Option<f64>,
    pub bytes_per_sec: Option<f64>,
    /// The plateau points behind `iops` (or behind `iops_ceiling`).
    pub iops_points: Vec<CapPoint>,
    pub bytes_points: Vec<CapPoint>,
    /// A plateau that QD1 does not reach (IOPS) or reaches at one block size
    /// only (bandwidth): the path's ceiling, not evidently a configured cap.
    pub iops_ceiling: Option<f64>,
    pub bytes_ceiling: Option<f64>,
}

fn distinct_bs(points: &[&CapPoint]) -> usize {
    let mut b: Vec<u64> = points.iter().map(|p| p.bs).collect();
    b.sort_unstable();
    b.dedup();
    b.len()
}

/// The highest plateau of `value` along which the other quantity varies.
///
/// Every point's value is tried as a level; the points within
/// CAP_PLATEAU_TOLERANCE of it form the plateau. It counts when it spans two
/// or more block sizes, the other quantity spreads CAP_OTHER_SPREAD or more
/// along it, no point anywhere exceeds it by more than CAP_OVERSHOOT, and
/// fewer points lie above it than on it (a cap is the top, give or take a
/// limiter's first-second burst).
fn plateau(
    points: &[CapPoint],
    value: fn(&CapPoint) -> f64,
    other: fn(&CapPoint) -> f64,
    shallow_sizes_for_cap: usize,
) -> Option<(f64, Vec<&CapPoint>, bool)> {
    let shallowest = points.iter().map(|p| p.iodepth).min().unwrap_or(1);
    let mut best: Option<(f64, Vec<&CapPoint>, bool)> = None;
    for level in points.iter().filter(|p| !p.cpu_bound).map(value) {
        if level <= 0.0 || best.as_ref().is_some_and(|b| b.0 >= level) {
            continue;
        }
        let on: Vec<&CapPoint> = points
            .iter()
            .filter(|p| !p.cpu_bound && (value(p) / level - 1.0).abs() <= p.tolerance())
            .collect();
        if distinct_bs(&on) < 2 {
            continue;
        }
        let lo = on.iter().map(|p| other(p)).fold(f64::INFINITY, f64::min);
        let hi = on.iter().map(|p| other(p)).fold(0.0, f64::max);
        if lo <= 0.0 || hi / lo < CAP_OTHER_SPREAD {
            continue;
        }
        let values: Vec<f64> = on.iter().map(|p| value(p)).collect();
        let cap = crate::result::median(&values)?;
        let above: Vec<f64> = points
            .iter()
            .map(value)
            .filter(|v| *v > cap * (1.0 + CAP_PLATEAU_TOLERANCE))
            .collect();
        if above.len() >= on.len() || above.iter().any(|v| *v > cap * CAP_OVERSHOOT) {
            continue;
        }
        let shallow: Vec<&CapPoint> = on
            .iter()
            .copied()
            .filter(|p| p.iodepth == shallowest)
            .collect();
        let configured = distinct_bs(&shallow) >= shallow_sizes_for_cap;
        best = Some((cap, on, configured));
    }
    best
}

/// Caps of one direction from its points.
pub fn infer(points: &[CapPoint]) -> DirCaps {
    let mut caps = DirCaps::default();
    if let Some((v, on, configured)) = plateau(points, |p| p.iops, |p| p.bytes_per_sec, 1) {
        if configured {
            caps.iops = Some(v);
        } else {
            caps.iops_ceiling = Some(v);
        }
        caps.iops_points = on.into_iter().cloned().collect();
    }
    if let Some((v, on, configured)) = plateau(points, |p| p.bytes_per_sec, |p| p.iops, 2) {
        if configured {
            caps.bytes_per_sec = Some(v);
        } else {
            caps.bytes_ceiling = Some(v);
        }
        caps.bytes_points = on.into_iter().cloned().collect();
    }
    caps
}

/// The sweep points of a Run in one direction: main file, one direction only, no fsync.
pub fn points(run: &Run, dir: Dir) -> Vec<CapPoint> {
    metrics(run)
        .into_iter()
        .filter(|m| m.role == FileRole::Main && m.dir == dir && m.is_plain())
        .map(|m| {
            let j = m.job();
            let cpu = crate::result::median(
                &m.points
                    .iter()
                    .map(|p| p.job.cpu.usr_pct + p.job.cpu.sys_pct)
                    .collect::<Vec<_>>(),
            )
            .unwrap_or(0.0);
            CapPoint {
                label: m.label.clone(),
                rw: j.spec.rw.clone(),
                bs: j.spec.bs,
                iodepth: j.spec.iodepth,
                iops: m.iops_spread().median,
                bytes_per_sec: m.bps_spread().median,
                cpu_bound: cpu >= CPU_BOUND_PCT * j.spec.numjobs as f64,
                ops: crate::result::median(
                    &m.points
                        .iter()
                        .map(|p| p.stats.ops as f64)
                        .collect::<Vec<_>>(),
                )
                .unwrap_or(0.0) as u64,
            }
        })
        .collect()
}

fn describe_ceilings(dir: &str, c: &DirCaps) -> Vec<String> {
    let mut parts = Vec::new();
    if let Some(i) = c.iops_ceiling {
        parts.push(format!("{dir} {} IOPS", fmt_count(i)));
    }
    if let Some(b) = c.bytes_ceiling {
        parts.push(format!("{dir} {} MB/s", sig3(b / 1e6)));
    }
    parts
}

fn describe(dir: &str, c: &DirCaps) -> Vec<String> {
    let mut parts = Vec::new();
    if let Some(i) = c.iops {
        parts.push(format!("{dir} {} IOPS", fmt_count(i)));
    }
    if let Some(b) = c.bytes_per_sec {
        parts.push(format!(
            "{dir} {} MB/s ({} MiB/s)",
            sig3(b / 1e6),
            sig3(b / 1048576.0)
        ));
    }
    parts
}

fn point_json(p: &CapPoint) -> serde_json::Value {
    json!({
        "label": p.label,
        "rw": p.rw,
        "bs": p.bs,
        "iodepth": p.iodepth,
        "iops": round_to(p.iops, 1),
        "bytes_per_sec": round_to(p.bytes_per_sec, 0),
    })
}

/// The `caps` finding of a sweep; not-checked when the Run holds no sweep.
pub fn caps_finding(run: &Run) -> Vec<Finding> {
    let read = points(run, Dir::Read);
    let write = points(run, Dir::Write);
    let enough =
        |p: &[CapPoint]| distinct_bs(&p.iter().collect::<Vec<_>>()) >= CAPS_MIN_BLOCK_SIZES;
    if !enough(&read) && !enough(&write) {
        return vec![not_checked(
            "caps",
            "no sweep over block sizes: provider IOPS and bandwidth caps were not inferred (run `candor sweep`)".into(),
            "a sweep over at least 3 block sizes in one direction",
        )];
    }
    let r = if enough(&read) {
        infer(&read)
    } else {
        DirCaps::default()
    };
    let w = if enough(&write) {
        infer(&write)
    } else {
        DirCaps::default()
    };
    let mut parts = describe("read", &r);
    parts.extend(describe("write", &w));
    let any = !parts.is_empty();
    let tested = |p: &[CapPoint]| {
        let mut b: Vec<u64> = p.iter().map(|x| x.bs).collect();
        b.sort_unstable();
        b.dedup();
        b.iter()
            .map(|x| block_label(*x))
            .collect::<Vec<_>>()
            .join(", ")
    };
    let mut ceilings = describe_ceilings("read", &r);
    ceilings.extend(describe_ceilings("write", &w));
    let mut verdict = if any {
        format!("inferred caps: {}", parts.join(", "))
    } else {
        format!(
            "no cap within the range tested (read {}; write {})",
            tested(&read),
            tested(&write)
        )
    };
    if !ceilings.is_empty() {
        verdict.push_str(&format!(
            "; ceilings reached at one depth only (the path's limit, not evidently a configured cap): {}",
            ceilings.join(", ")
        ));
    }
    let mut f = checked(
        "caps",
        None,
        verdict,
        json!({
            "read_iops": r.iops.map(|v| round_to(v, 1)),
            "write_iops": w.iops.map(|v| round_to(v, 1)),
            "read_bytes_per_sec": r.bytes_per_sec.map(|v| round_to(v, 0)),
            "write_bytes_per_sec": w.bytes_per_sec.map(|v| round_to(v, 0)),
            "read_iops_points": r.iops_points.iter().map(point_json).collect::<Vec<_>>(),
            "write_iops_points": w.iops_points.iter().map(point_json).collect::<Vec<_>>(),
            "read_bytes_points": r.bytes_points.iter().map(point_json).collect::<Vec<_>>(),
            "write_bytes_points": w.bytes_points.iter().map(point_json).collect::<Vec<_>>(),
            "read_iops_ceiling": r.iops_ceiling.map(|v| round_to(v, 1)),
            "write_iops_ceiling": w.iops_ceiling.map(|v| round_to(v, 1)),
            "read_bytes_ceiling": r.bytes_ceiling.map(|v| round_to(v, 0)),
            "write_bytes_ceiling": w.bytes_ceiling.map(|v| round_to(v, 0)),
            "read_points_tested": read.len(),
            "write_points_tested": write.len(),
            "plateau_tolerance": CAP_PLATEAU_TOLERANCE,
            "threshold_other_spread": CAP_OTHER_SPREAD,
            "cpu_bound_points": read.iter().chain(write.iter()).filter(|p| p.cpu_bound).map(point_json).collect::<Vec<_>>(),
        }),
    );
    if !any {
        f.severity = Severity::Info;
    }
    vec![f]
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::findings::synth::*;
    use crate::result::FindingStatus;

    const K: u64 = 1024;

    /// What a device with these caps (None = none) and this natural speed would deliver.
    fn simulated(
        iops_cap: Option<f64>,
        bw_cap: Option<f64>,
        natural: &dyn Fn(u64, u32) -> f64,
    ) -> Vec<CapPoint> {
        let mut out = Vec::new();
        for bs in [4 * K, 8 * K, 64 * K, 1024 * K] {
            for qd in [1, 32] {
                let mut iops = natural(bs, qd);
                if let Some(c) = iops_cap {
                    iops = iops.min(c);
                }
                if let Some(b) = bw_cap {
                    iops = iops.min(b / bs as f64);
                }
                out.push(CapPoint {
                    label: format!("RND{} Q{qd}T1", block_label(bs)),
                    rw: crate::result::Rw::Randread,
                    bs,
                    iodepth: qd,
                    iops: iops * 0.99,
                    bytes_per_sec: iops * 0.99 * bs as f64,
                    cpu_bound: false,
                    ops: 0,
                });
            }
        }
        out
    }

    /// The fio figures of this machine's unthrottled virtio disk (randread, 2 s each).
    fn this_vm(bs: u64, qd: u32) -> f64 {
        match (bs / K, qd) {
            (4, 1) => 17371.0,
            (4, _) => 83240.0,
            (8, 1) => 13410.0,
            (8, _) => 63283.0,
            (64, 1) => 8434.0,
            (64, _) => 16385.0,
            (_, 1) => 1782.0,
            _ => 896.0,
        }
    }

    fn fio_point(rw: &str, bs_k: u64, qd: u32, iops: f64, mb: f64) -> CapPoint {
        CapPoint {
            label: format!("RND{}K Q{qd}T1", bs_k),
            rw: crate::result::Rw::parse(rw),
            bs: bs_k * K,
            iodepth: qd,
            iops,
            bytes_per_sec: mb * 1e6,
            cpu_bound: false,
            ops: iops as u64,
        }
    }

    /// fio on this machine's /dev/vda inside a cgroup with read_iops 2000,
    /// write_iops 1000 and read_bps 50 MB/s (1 s per point after a 0.5 s ramp).
    #[test]
    fn real_cgroup_throttle_figures() {
        let read = [
            fio_point("randread", 4, 1, 2326.0, 9.53),
            fio_point("randread", 4, 32, 2018.0, 8.27),
            fio_point("randread", 8, 1, 1979.0, 16.21),
            fio_point("randread", 8, 32, 2016.0, 16.51),
            fio_point("randread", 64, 1, 757.0, 49.61),
            fio_point("randread", 64, 32, 785.0, 51.47),
            fio_point("randread", 1024, 1, 48.0, 49.83),
            fio_point("randread", 1024, 32, 49.0, 51.1),
        ];
        let r = infer(&read);
        assert!((r.iops.unwrap() / 2000.0 - 1.0).abs() < 0.05, "{r:?}");
        assert!(
            (r.bytes_per_sec.unwrap() / 50e6 - 1.0).abs() < 0.05,
            "{r:?}"
        );
        let write = [
            fio_point("randwrite", 4, 1, 997.0, 4.08),
            fio_point("randwrite", 4, 32, 1027.0, 4.21),
            fio_point("randwrite", 8, 1, 997.0, 8.17),
            fio_point("randwrite", 8, 32, 1027.0, 8.41),
            fio_point("randwrite", 64, 1, 855.0, 56.01),
            fio_point("randwrite", 64, 32, 1020.0, 66.83),
            fio_point("randwrite", 1024, 1, 891.0, 934.15),
            fio_point("randwrite", 1024, 32, 742.0, 777.64),
        ];
        let w = infer(&write);
        assert!((w.iops.unwrap() / 1000.0 - 1.0).abs() < 0.05, "{w:?}");
        assert_eq!(w.bytes_per_sec, None);
    }

    /// candor's 1 s points under read_bps 50 MB/s: 1 MiB at QD1 counted 45
    /// operations (47.2 MB/s), 64 KiB at QD1 781 (51.2 MB/s).
    #[test]
    fn few_operations_widen_the_plateau() {
        let read = [
            fio_point("randread", 8, 1, 2003.0, 16.41),
            fio_point("randread", 64, 1, 781.0, 51.18),
            fio_point("randread", 64, 32, 763.0, 50.0),
            fio_point("randread", 1024, 1, 45.0, 47.19),
            fio_point("randread", 1024, 32, 47.0, 49.28),
        ];
        let c = infer(&read);
        assert!(
            (c.bytes_per_sec.unwrap() / 50e6 - 1.0).abs() < 0.05,
            "{c:?}"
        );
    }

    /// fio on the same disk without a throttle (2 s per point): no cap.
    #[test]
    fn real_unthrottled_write_figures() {
        let write = [
            fio_point("randwrite", 4, 1, 10254.0, 42.0),
            fio_point("randwrite", 4, 32, 60787.0, 249.0),
            fio_point("randwrite", 8, 1, 12060.0, 98.8),
            fio_point("randwrite", 8, 32, 53207.0, 435.9),
            fio_point("randwrite", 64, 1, 8862.0, 580.8),
            fio_point("randwrite", 64, 32, 32048.0, 2100.3),
            fio_point("randwrite", 1024, 1, 3360.0, 3523.0),
            fio_point("randwrite", 1024, 32, 3100.0, 3250.1),
        ];
        assert_eq!(infer(&write), DirCaps::default());
    }

    #[test]
    fn ten_thousand_iops_and_200_mb() {
        let natural = |bs: u64, qd: u32| 1e9 / (50_000.0 + bs as f64 / 2.0) * qd as f64;
        let c = infer(&simulated(Some(10_000.0), Some(200e6), &natural));
        let iops = c.iops.expect("iops cap");
        assert!((iops / 9900.0 - 1.0).abs() < 0.01, "{iops}");
        let bw = c.bytes_per_sec.expect("bandwidth cap");
        assert!((bw / 198e6 - 1.0).abs() < 0.01, "{bw}");
        assert!(c.iops_points.iter().all(|p| p.bs <= 8 * K));
    }

    #[test]
    fn iops_cap_only_leaves_bandwidth_null() {
        let natural = |_bs: u64, qd: u32| 20_000.0 * qd as f64;
        let c = infer(&simulated(Some(2000.0), None, &natural));
        assert!(c.iops.is_some());
        assert_eq!(c.bytes_per_sec, None);
    }

    #[test]
    fn uncapped_devices_get_no_caps() {
        let c = infer(&simulated(None, None, &this_vm));
        assert_eq!(c, DirCaps::default());
        // Latency grows with block size, depth helps sub-linearly: no flat stretch.
        let nvme = |bs: u64, qd: u32| (qd as f64).powf(0.7) / (30e-6 + bs as f64 / 1.5e9);
        assert_eq!(infer(&simulated(None, None, &nvme)), DirCaps::default());
    }

    /// candor (debug build) on the same unthrottled disk, 1 s per point: the
    /// virtual disk's per-I/O cost makes 4 and 8 KiB QD32 equal; QD1 is far below.
    #[test]
    fn per_io_ceiling_of_this_vm_is_not_a_cap() {
        let read = [
            fio_point("randread", 4, 1, 14538.0, 59.5),
            fio_point("randread", 4, 32, 48161.0, 197.3),
            fio_point("randread", 8, 1, 13363.0, 109.5),
            fio_point("randread", 8, 32, 47314.0, 387.6),
            fio_point("randread", 64, 1, 8757.0, 573.9),
            fio_point("randread", 64, 32, 25968.0, 1701.8),
            fio_point("randread", 1024, 1, 1645.0, 1724.9),
            fio_point("randread", 1024, 32, 2253.0, 2362.4),
        ];
        let c = infer(&read);
        assert_eq!(c.iops, None);
        assert!((c.iops_ceiling.unwrap() - 47737.5).abs() < 1.0, "{c:?}");
        assert_eq!(c.bytes_per_sec, None);
    }

    /// The same disk another time: the path's read bandwidth (about 1.14 GB/s)
    /// reached by 64 KiB QD32, 1 MiB QD32 and sequential 1 MiB QD1.
    #[test]
    fn path_bandwidth_of_this_vm_is_not_a_cap() {
        let mut read = vec![
            fio_point("randread", 4, 1, 14000.0, 57.3),
            fio_point("randread", 4, 32, 47000.0, 192.5),
            fio_point("randread", 8, 1, 13000.0, 106.5),
            fio_point("randread", 8, 32, 45000.0, 368.6),
            fio_point("randread", 64, 1, 8500.0, 557.1),
            fio_point("randread", 64, 32, 17422.0, 1141.8),
            fio_point("randread", 1024, 1, 960.0, 1006.6),
            fio_point("randread", 1024, 32, 1046.0, 1096.8),
        ];
        let mut seq = fio_point("read", 1024, 1, 1085.0, 1137.7);
        seq.label = "SEQ1M Q1T1".into();
        read.push(seq);
        let c = infer(&read);
        assert_eq!(c.bytes_per_sec, None, "{c:?}");
        assert!(c.bytes_ceiling.is_some());
    }

    #[test]
    fn plateau_reached_only_at_qd32_is_a_ceiling() {
        let natural = |_bs: u64, qd: u32| 3000.0 * qd as f64;
        let c = infer(&simulated(Some(10_000.0), None, &natural));
        assert_eq!(c.iops, None);
        assert!(c.iops_ceiling.is_some());
    }

    #[test]
    fn cpu_bound_plateau_is_not_a_cap() {
        let natural = |_bs: u64, _qd: u32| 50_000.0;
        let mut p = simulated(None, None, &natural);
        for x in &mut p {
            x.cpu_bound = true;
        }
        assert_eq!(infer(&p), DirCaps::default());
    }

    #[test]
    fn finding_on_a_run_and_not_checked_without_sweep() {
        let mut run = run();
        run.measurements
            .push(job(Some("SEQ1M Q8T1"), "read", 1 << 20, 8, 1, 100.0));
        assert_eq!(caps_finding(&run)[0].status, FindingStatus::NotChecked);
        for p in simulated(Some(10_000.0), None, &|_, qd| 12_000.0 * qd as f64) {
            run.measurements
                .push(job(Some(&p.label), "randread", p.bs, p.iodepth, 1, p.iops));
        }
        let f = caps_finding(&run);
        assert_eq!(f[0].status, FindingStatus::Checked);
        assert!((f[0].evidence["read_iops"].as_f64().unwrap() - 9900.0).abs() < 1.0);
        assert!(f[0].evidence["write_iops"].is_null());
        assert!(f[0].evidence["read_bytes_per_sec"].is_null());
    }
}
