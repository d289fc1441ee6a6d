//! `caps`: the IOPS and bandwidth limits that a sweep over block sizes and
//! queue depths reveals, each called a **cap** (a configured limiter: its
//! fingerprints are there), a **ceiling** (a plateau, but a medium's own top
//! could look the same: limiter or medium, not told apart) or nothing (the
//! curve still rises at the deepest point tested). Read and write are
//! inferred separately.
//!
//! A plateau is where the figure stops rising: points at several depths of
//! one block size, or at several block sizes, within a few percent of one
//! level, nothing well above it, and no deeper point of the same block size
//! climbing past it. What makes a plateau a cap, from the points alone:
//!
//! - **it holds at QD1** (a medium's top IOPS is never at QD1; for
//!   bandwidth, two block sizes at QD1, one of them a random block of
//!   64 KiB or less, `serial_path.rs`: a path's own ceiling is reached at
//!   QD1 by every block size large enough to outweigh a request's fixed
//!   cost). Strong on its own.
//! - **the same IOPS at three or more block sizes** (a medium pays per byte
//!   too, so its IOPS fall as blocks grow; a limiter counts operations).
//!   Strong on its own. Two block sizes count as one item below: a host's
//!   per-request cost can make 4 and 8 KiB equal (measured here: 48,161
//!   and 47,314 IOPS with a debug build at QD32).
//! - **flat across three or more depths** within the tight tolerance (a
//!   medium saturates gradually; a token bucket hands out its rate
//!   whatever the queue: 39,989 / 39,952 / 39,944 IOPS at QD8/16/32 under a
//!   40,000 IOPS cgroup throttle, fio, 3 s each). For bandwidth, only where
//!   the shallowest depth's bytes in flight are a small random block's: a
//!   path saturated by large requests is flat across depths too.
//! - **a round figure** in the unit a provider sells in (40,000 IOPS,
//!   500 MiB/s; see `round.rs`): weak alone, one figure in twenty is round
//!   by chance.
//!
//! One strong item, or two of the others, make a cap. The per-second series
//! is no fingerprint here: under a 40,000 IOPS cgroup throttle the 100 ms
//! rates varied as much as the unthrottled disk's (CV 8-17 % against 9-20 %,
//! fio `--log_avg_msec=100`), because the throttle dispatches in slices.
//!
//! Inference is a pure function of points, so it is tested on synthetic and
//! recorded sweeps; `caps_finding` applies it to a Run.

use super::metrics::{metrics, Dir};
use super::round::{nearest_step, ROUND_TOLERANCE};
use super::serial_path;
use super::{checked, not_checked, round_to};
use crate::result::{FileRole, Finding, Run, Rw, Severity};
use crate::units::{block_label, fmt_count, sig3};
use serde::Serialize;
use serde_json::json;

/// Points within this fraction of a level sit on its plateau. A cgroup or
/// hypervisor limiter delivers its setting within 1-3 % over a second or two
/// (1,979 to 2,018 IOPS under a 2,000 IOPS cgroup throttle, 1 s points).
pub const CAP_PLATEAU_TOLERANCE: f64 = 0.05;

/// The spread within which plateau points count as "the same figure" for
/// the fingerprints (size-invariant IOPS, flat across depths): what a limiter
/// delivers over 1 s windows (2 % above), not what a medium's curve does.
pub const CAP_TIGHT_TOLERANCE: f64 = 0.025;

/// No point may exceed a plateau by more than this factor. A cgroup throttle
/// lets a QD1 job run about 16 % over its setting in its first second
/// (measured here with fio: 2326 IOPS under a 2000 IOPS cap).
pub const CAP_OVERSHOOT: f64 = 1.25;

/// Along a plateau spanning block sizes, the other quantity must spread at
/// least this much: equal IOPS at 4 and 8 KiB means MB/s doubled.
pub const CAP_OTHER_SPREAD: f64 = 1.5;

/// candor's CPU use (percent of one CPU per thread) at or above which a
/// point measured the CPU, not the disk: a CPU-bound plateau is not a cap.
pub const CPU_BOUND_PCT: f64 = 90.0;

/// A sweep needs this many block sizes in a direction before caps are inferred.
pub const CAPS_MIN_BLOCK_SIZES: usize = 3;

/// One point of a sweep: one job, one direction (medians over passes).
#[derive(Debug, Clone, Serialize, PartialEq)]
pub struct CapPoint {
    pub label: String,
    pub rw: Rw,
    pub bs: u64,
    pub iodepth: u32,
    pub numjobs: u32,
    pub iops: f64,
    pub bytes_per_sec: f64,
    /// candor used a whole CPU: the point is CPU-bound.
    pub cpu_bound: bool,
    /// Operations counted in the measured interval (0: unknown). A count is
    /// known to about one operation at each end of the interval.
    pub ops: u64,
    /// The measured interval in seconds (0: unknown).
    #[serde(skip)]
    pub secs: f64,
}

impl CapPoint {
    /// I/Os in flight in total (depth x threads).
    pub fn depth(&self) -> u32 {
        self.iodepth.max(1) * self.numjobs.max(1)
    }

    /// The counting granularity of this point (two operations of its count).
    fn granularity(&self) -> f64 {
        if self.ops > 0 {
            2.0 / self.ops as f64
        } else {
            0.0
        }
    }

    /// The spread within which this point counts as "the same figure" for a
    /// limiter's fingerprints: [`CAP_TIGHT_TOLERANCE`], or a limiter's window
    /// share of a short measurement ([`super::limiter::LIMITER_WINDOW_S`] /
    /// seconds: 5 % for 1 s points, whose cgroup-throttled figures came out
    /// 3 % apart), plus the counting granularity.
    fn tight(&self) -> f64 {
        let window = if self.secs > 0.0 {
            super::limiter::LIMITER_WINDOW_S / self.secs
        } else {
            0.0
        };
        CAP_TIGHT_TOLERANCE.max(window) + self.granularity()
    }

    /// How far this point may sit from a level and still be on it. One
    /// second of 1 MiB reads under a 50 MB/s cgroup limit counts 45-50
    /// operations: 47.2 MB/s and 51.2 MB/s were measured in one sweep.
    pub fn tolerance(&self) -> f64 {
        CAP_PLATEAU_TOLERANCE + self.granularity()
    }
}

/// What a plateau is.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum PlateauKind {
    /// A configured limiter's fingerprints are there.
    Cap,
    /// A plateau that a medium's own top could also make.
    Ceiling,
}

/// The fingerprints of a limiter found on a plateau.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(tag = "sign", rename_all = "kebab-case")]
pub enum Sign {
    /// Reached with one I/O in flight (at this many block sizes).
    AtQd1 { block_sizes: usize },
    /// The same figure at this many block sizes, within the tight tolerance.
    SameAcrossBlockSizes { block_sizes: usize, spread: f64 },
    /// The same figure at this many depths of one block size, the deepest
    /// `span` times the shallowest.
    FlatAcrossDepths {
        depths: usize,
        span: u32,
        spread: f64,
    },
    /// Within 0.5 % of a figure providers sell.
    Round { value: f64, unit: &'static str },
}

impl Sign {
    /// Enough for a cap on its own.
    fn strong(&self, quantity: Quantity) -> bool {
        match (self, quantity) {
            (Sign::AtQd1 { .. }, _) => true,
            (Sign::SameAcrossBlockSizes { block_sizes, .. }, Quantity::Iops) => *block_sizes >= 3,
            (Sign::FlatAcrossDepths { depths, span, .. }, _) => *depths >= 4 && *span >= 8,
            _ => false,
        }
    }

    /// In words, for the verdict.
    fn describe(&self) -> String {
        match self {
            Sign::AtQd1 { block_sizes } => format!(
                "reached at QD1{}",
                if *block_sizes > 1 {
                    format!(" with {block_sizes} block sizes")
                } else {
                    String::new()
                }
            ),
            Sign::SameAcrossBlockSizes {
                block_sizes,
                spread,
            } => format!(
                "the same at {block_sizes} block sizes (within {} %)",
                sig3(spread * 100.0)
            ),
            Sign::FlatAcrossDepths { depths, spread, .. } => format!(
                "flat across {depths} queue depths (within {} %)",
                sig3(spread * 100.0)
            ),
            Sign::Round { value, unit } => format!("round: {} {unit}", fmt_value(*value)),
        }
    }
}

fn fmt_value(v: f64) -> String {
    if v >= 1000.0 {
        fmt_count(v)
    } else {
        sig3(v)
    }
}

/// IOPS or bytes per second.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Quantity {
    Iops,
    Bandwidth,
}

impl Quantity {
    fn of(self, p: &CapPoint) -> f64 {
        match self {
            Quantity::Iops => p.iops,
            Quantity::Bandwidth => p.bytes_per_sec,
        }
    }

    fn other(self, p: &CapPoint) -> f64 {
        match self {
            Quantity::Iops => p.bytes_per_sec,
            Quantity::Bandwidth => p.iops,
        }
    }
}

/// One plateau: its level (the median of its points), what it is, why.
#[derive(Debug, Clone, PartialEq)]
pub struct Plateau {
    pub level: f64,
    pub kind: PlateauKind,
    pub points: Vec<CapPoint>,
    pub signs: Vec<Sign>,
}

/// The plateaus of one direction; None where the curve does not flatten.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct DirCaps {
    pub iops: Option<Plateau>,
    pub bandwidth: Option<Plateau>,
}

impl DirCaps {
    /// The IOPS cap, if the plateau is one.
    pub fn iops_cap(&self) -> Option<f64> {
        self.iops
            .as_ref()
            .filter(|p| p.kind == PlateauKind::Cap)
            .map(|p| p.level)
    }

    /// The bandwidth cap (bytes/s), if the plateau is one.
    pub fn bandwidth_cap(&self) -> Option<f64> {
        self.bandwidth
            .as_ref()
            .filter(|p| p.kind == PlateauKind::Cap)
            .map(|p| p.level)
    }
}

fn distinct<T: PartialEq>(values: impl Iterator<Item = T>) -> Vec<T> {
    let mut out = Vec::new();
    for v in values {
        if !out.contains(&v) {
            out.push(v);
        }
    }
    out
}

/// (max - min) / median of the values.
fn spread(values: &[f64]) -> f64 {
    let Some(m) = crate::result::median(values) else {
        return 0.0;
    };
    let hi = values.iter().copied().fold(f64::MIN, f64::max);
    let lo = values.iter().copied().fold(f64::MAX, f64::min);
    if m > 0.0 {
        (hi - lo) / m
    } else {
        0.0
    }
}

/// The points within tolerance of `level`, dropping a block size whose
/// deeper points climb past the level (its curve did not stop there).
fn on_level(points: &[CapPoint], q: Quantity, level: f64) -> Vec<&CapPoint> {
    let near = |p: &CapPoint| (q.of(p) / level - 1.0).abs() <= p.tolerance();
    let above = |p: &CapPoint| q.of(p) > level * (1.0 + p.tolerance());
    let mut on: Vec<&CapPoint> = points.iter().filter(|p| !p.cpu_bound && near(p)).collect();
    on.retain(|p| {
        !points.iter().any(|o| {
            o.bs == p.bs && o.rw == p.rw && o.depth() > p.depth() && !o.cpu_bound && above(o)
        })
    });
    on
}

/// The signs of a limiter on the plateau `on` (see the module comment for
/// why each counts, and how much).
fn signs(on: &[&CapPoint], q: Quantity, all: &[CapPoint], level: f64) -> Vec<Sign> {
    let mut signs = Vec::new();
    let shallowest = all.iter().map(|p| p.depth()).min().unwrap_or(1);
    let qd1_sizes = distinct(on.iter().filter(|p| p.depth() == shallowest).map(|p| p.bs));
    // Bandwidth: a path's own ceiling is reached at QD1 by every block size
    // large enough to outweigh a request's fixed cost (`serial_path`), so
    // QD1 counts only with two sizes, one of them too small to fill a path.
    let telling =
        |p: &CapPoint, bytes: u64| serial_path::too_small_to_fill(bytes, p.rw.is_random());
    let at_qd1 = match q {
        Quantity::Iops => !qd1_sizes.is_empty(),
        Quantity::Bandwidth => {
            qd1_sizes.len() >= 2
                && on
                    .iter()
                    .any(|p| p.depth() == shallowest && telling(p, p.bs))
        }
    };
    if shallowest == 1 && at_qd1 {
        signs.push(Sign::AtQd1 {
            block_sizes: qd1_sizes.len(),
        });
    }
    // The same figure across block sizes: each block size's value nearest the level.
    // Bandwidth equal across sizes is what an interface-bound medium does
    // too, so it needs three sizes to count at all.
    let sizes = distinct(on.iter().map(|p| p.bs));
    let sizes_needed = match q {
        Quantity::Iops => 2,
        Quantity::Bandwidth => 3,
    };
    if sizes.len() >= sizes_needed {
        let per_size: Vec<&CapPoint> = sizes
            .iter()
            .filter_map(|bs| {
                on.iter()
                    .filter(|p| p.bs == *bs)
                    .min_by(|a, b| (q.of(a) - level).abs().total_cmp(&(q.of(b) - level).abs()))
                    .copied()
            })
            .collect();
        let values: Vec<f64> = per_size.iter().map(|p| q.of(p)).collect();
        let others: Vec<f64> = per_size.iter().map(|p| q.other(p)).collect();
        let tight = per_size.iter().map(|p| p.tight()).fold(0.0, f64::max);
        let s = spread(&values);
        let lo = others.iter().copied().fold(f64::MAX, f64::min);
        let hi = others.iter().copied().fold(0.0, f64::max);
        if s <= tight && lo > 0.0 && hi / lo >= CAP_OTHER_SPREAD {
            signs.push(Sign::SameAcrossBlockSizes {
                block_sizes: per_size.len(),
                spread: round_to(s, 4),
            });
        }
    }
    // Flat across depths: the block size with the most depths on the plateau,
    // within the tight tolerance, over at least a 4x range of depths. A point
    // above the level by more than the tight tolerance is a limiter letting
    // the first depths through over its setting (`plateau` says more), not
    // a sign against flatness: it is left out here. What tells a medium
    // from a limiter is the shallow side (a medium's curve still rises
    // there), so the run is counted from the shallowest depth on the
    // plateau and as far deep as it stays flat: a deepest depth sagging a
    // few percent (queueing overhead, a drifting disk: 36,250 IOPS at QD64
    // under a 37,000 IOPS throttle, QD4-32 within 1.1 %) ends the run
    // there and does not undo it.
    let flattest = sizes
        .iter()
        .filter_map(|bs| {
            let mut pts: Vec<&CapPoint> = on
                .iter()
                .filter(|p| p.bs == *bs && q.of(p) <= level * (1.0 + p.tight()))
                .copied()
                .collect();
            pts.sort_by_key(|p| p.depth());
            // Bandwidth flat from a depth whose bytes in flight already fill
            // a serial path is that path saturated, not a limiter's sign.
            let first = pts.first()?;
            if q == Quantity::Bandwidth && !telling(first, *bs * first.depth() as u64) {
                return None;
            }
            (1..=pts.len()).rev().find_map(|k| flat_run(&pts[..k], q))
        })
        .max_by(|a, b| a.0.cmp(&b.0).then(a.1.cmp(&b.1)));
    if let Some((depths, span, s)) = flattest.filter(|f| f.0 >= 3 && f.1 >= 4) {
        signs.push(Sign::FlatAcrossDepths {
            depths,
            span,
            spread: round_to(s, 4),
        });
    }
    let units: &[(&'static str, f64)] = match q {
        Quantity::Iops => &[("IOPS", 1.0)],
        Quantity::Bandwidth => &[("MB/s", 1e6), ("MiB/s", 1048576.0)],
    };
    for (unit, scale) in units {
        if let Some((step, off)) = nearest_step(level / scale) {
            let big_enough = match q {
                Quantity::Iops => level >= super::round::MIN_IOPS,
                Quantity::Bandwidth => level / 1e6 >= super::round::MIN_MB,
            };
            if off <= ROUND_TOLERANCE && big_enough {
                signs.push(Sign::Round { value: step, unit });
                break;
            }
        }
    }
    signs
}

/// (depths, deepest / shallowest, spread) of points of one block size, if
/// their figures are the same within the tight tolerance.
fn flat_run(pts: &[&CapPoint], q: Quantity) -> Option<(usize, u32, f64)> {
    let depths = distinct(pts.iter().map(|p| p.depth()));
    let lo = *depths.iter().min()?;
    let hi = *depths.iter().max()?;
    let values: Vec<f64> = pts.iter().map(|p| q.of(p)).collect();
    let tight = pts.iter().map(|p| p.tight()).fold(0.0, f64::max);
    let s = spread(&values);
    (s <= tight).then_some((depths.len(), hi / lo.max(1), s))
}

/// The best-supported plateau of `q` among `points`, with what it is. A plateau
/// must hold along depth (two or more depths of one block size): equal
/// figures at several sizes of the deepest point alone may be curves still
/// rising (a latency-bound network volume gives 4 and 8 KiB the same IOPS
/// at every depth). A bandwidth plateau must also span two block sizes: one
/// size flat across depths is as well an IOPS plateau.
pub fn plateau(points: &[CapPoint], q: Quantity) -> Option<Plateau> {
    let mut levels: Vec<f64> = points
        .iter()
        .filter(|p| !p.cpu_bound)
        .map(|p| q.of(p))
        .filter(|v| *v > 0.0 && v.is_finite())
        .collect();
    levels.sort_by(|a, b| b.total_cmp(a));
    let sizes_needed = match q {
        Quantity::Iops => 1,
        Quantity::Bandwidth => 2,
    };
    // Every level that forms a valid plateau; then the one with the most
    // evidence wins, not the highest: a limiter can let the first depths
    // through a few percent over its setting (32,446 and 32,148 IOPS at QD4
    // and QD8 under a 30,000 IOPS cgroup throttle, 1 s points), and the
    // level the deep points settle on is the setting.
    let mut found: Vec<Plateau> = Vec::new();
    for level in levels {
        let on = on_level(points, q, level);
        let sizes = distinct(on.iter().map(|p| p.bs));
        let most_depths = sizes
            .iter()
            .map(|bs| distinct(on.iter().filter(|p| p.bs == *bs).map(|p| p.depth())).len())
            .max()
            .unwrap_or(0);
        if most_depths < 2 || sizes.len() < sizes_needed {
            continue;
        }
        let values: Vec<f64> = on.iter().map(|p| q.of(p)).collect();
        let level = crate::result::median(&values)?;
        let above = points
            .iter()
            .filter(|p| q.of(p) > level * (1.0 + p.tolerance()))
            .count();
        if above >= on.len() || points.iter().any(|p| q.of(p) > level * CAP_OVERSHOOT) {
            continue;
        }
        let signs = signs(&on, q, points, level);
        let strong = signs.iter().any(|s| s.strong(q));
        let kind = if strong || signs.len() >= 2 {
            PlateauKind::Cap
        } else {
            PlateauKind::Ceiling
        };
        if found.iter().any(|p| (p.level / level - 1.0).abs() < 1e-9) {
            continue;
        }
        found.push(Plateau {
            level,
            kind,
            points: on.into_iter().cloned().collect(),
            signs,
        });
    }
    found.into_iter().max_by(|a, b| {
        let rank = |p: &Plateau| (p.kind == PlateauKind::Cap, p.signs.len(), p.points.len());
        rank(a).cmp(&rank(b)).then(a.level.total_cmp(&b.level))
    })
}

/// The plateaus of one direction: bandwidth first; the IOPS plateau is
/// sought among the points the bandwidth plateau does not explain (a 1 MiB
/// point held at 300 MB/s is also flat in IOPS, for that reason only).
pub fn infer(points: &[CapPoint]) -> DirCaps {
    let bandwidth = plateau(points, Quantity::Bandwidth);
    let unexplained: Vec<CapPoint> = points
        .iter()
        .filter(|p| {
            bandwidth
                .as_ref()
                .is_none_or(|b| !b.points.iter().any(|x| x == *p))
        })
        .cloned()
        .collect();
    DirCaps {
        iops: plateau(&unexplained, Quantity::Iops),
        bandwidth,
    }
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
                numjobs: j.spec.numjobs,
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
                secs: j.measured_ns as f64 / 1e9,
            }
        })
        .collect()
}

fn describe(dir: &str, q: Quantity, p: &Plateau) -> String {
    let value = match q {
        Quantity::Iops => format!("{} IOPS", fmt_count(p.level)),
        Quantity::Bandwidth => format!(
            "{} MB/s ({} MiB/s)",
            sig3(p.level / 1e6),
            sig3(p.level / 1048576.0)
        ),
    };
    let from = p
        .points
        .iter()
        .map(|x| x.depth())
        .min()
        .map(|d| format!(" from QD{d}"))
        .unwrap_or_default();
    let why: Vec<String> = p.signs.iter().map(Sign::describe).collect();
    match p.kind {
        PlateauKind::Cap => format!("{dir} {value}{from} ({})", why.join("; ")),
        PlateauKind::Ceiling => format!(
            "{dir} {value}{from} ({})",
            if why.is_empty() {
                "no limiter fingerprint".to_string()
            } else {
                format!("only: {}", why.join("; "))
            }
        ),
    }
}

fn point_json(p: &CapPoint) -> serde_json::Value {
    json!({
        "label": p.label,
        "rw": p.rw,
        "bs": p.bs,
        "iodepth": p.iodepth,
        "numjobs": p.numjobs,
        "iops": round_to(p.iops, 1),
        "bytes_per_sec": round_to(p.bytes_per_sec, 0),
    })
}

/// The `caps` finding of a sweep; not-checked when the Run holds no sweep.
pub fn caps_finding(run: &Run) -> Vec<Finding> {
    let read = points(run, Dir::Read);
    let write = points(run, Dir::Write);
    let enough = |p: &[CapPoint]| distinct(p.iter().map(|x| x.bs)).len() >= CAPS_MIN_BLOCK_SIZES;
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
    let mut caps = Vec::new();
    let mut ceilings = Vec::new();
    for (dir, c) in [("read", &r), ("write", &w)] {
        for (q, p) in [
            (Quantity::Iops, &c.iops),
            (Quantity::Bandwidth, &c.bandwidth),
        ] {
            if let Some(p) = p {
                match p.kind {
                    PlateauKind::Cap => caps.push(describe(dir, q, p)),
                    PlateauKind::Ceiling => ceilings.push(describe(dir, q, p)),
                }
            }
        }
    }
    let tested = |p: &[CapPoint]| {
        let mut b: Vec<u64> = p.iter().map(|x| x.bs).collect();
        b.sort_unstable();
        b.dedup();
        let depths = distinct(p.iter().map(|x| x.depth()));
        format!(
            "{} at QD{}-{}",
            b.iter()
                .map(|x| block_label(*x))
                .collect::<Vec<_>>()
                .join(", "),
            depths.iter().min().unwrap_or(&0),
            depths.iter().max().unwrap_or(&0)
        )
    };
    let mut verdict = if caps.is_empty() {
        String::new()
    } else {
        format!("inferred caps: {}", caps.join(", "))
    };
    if !ceilings.is_empty() {
        if !verdict.is_empty() {
            verdict.push_str("; ");
        }
        verdict.push_str(&format!(
            "ceilings (limiter or medium, not told apart): {}",
            ceilings.join(", ")
        ));
    }
    if verdict.is_empty() {
        verdict = format!(
            "no plateau: the figures still rose at the deepest points tested (read {}; write {})",
            tested(&read),
            tested(&write)
        );
    }
    let plateau_json = |p: &Option<Plateau>| -> serde_json::Value {
        match p {
            None => serde_json::Value::Null,
            Some(p) => json!({
                "kind": p.kind,
                "level": round_to(p.level, 1),
                "signs": p.signs,
                "points": p.points.iter().map(point_json).collect::<Vec<_>>(),
            }),
        }
    };
    let cap_of = |p: &Option<Plateau>| {
        p.as_ref()
            .filter(|p| p.kind == PlateauKind::Cap)
            .map(|p| p.level)
    };
    let ceiling_of = |p: &Option<Plateau>| {
        p.as_ref()
            .filter(|p| p.kind == PlateauKind::Ceiling)
            .map(|p| p.level)
    };
    let mut f = checked(
        "caps",
        None,
        verdict,
        json!({
            "read_iops": cap_of(&r.iops).map(|v| round_to(v, 1)),
            "write_iops": cap_of(&w.iops).map(|v| round_to(v, 1)),
            "read_bytes_per_sec": cap_of(&r.bandwidth).map(|v| round_to(v, 0)),
            "write_bytes_per_sec": cap_of(&w.bandwidth).map(|v| round_to(v, 0)),
            "read_iops_ceiling": ceiling_of(&r.iops).map(|v| round_to(v, 1)),
            "write_iops_ceiling": ceiling_of(&w.iops).map(|v| round_to(v, 1)),
            "read_bytes_ceiling": ceiling_of(&r.bandwidth).map(|v| round_to(v, 0)),
            "write_bytes_ceiling": ceiling_of(&w.bandwidth).map(|v| round_to(v, 0)),
            "read_iops_plateau": plateau_json(&r.iops),
            "write_iops_plateau": plateau_json(&w.iops),
            "read_bytes_plateau": plateau_json(&r.bandwidth),
            "write_bytes_plateau": plateau_json(&w.bandwidth),
            "read_points_tested": read.len(),
            "write_points_tested": write.len(),
            "plateau_tolerance": CAP_PLATEAU_TOLERANCE,
            "tight_tolerance": CAP_TIGHT_TOLERANCE,
            "threshold_other_spread": CAP_OTHER_SPREAD,
            "cpu_bound_points": read.iter().chain(write.iter()).filter(|p| p.cpu_bound).map(point_json).collect::<Vec<_>>(),
        }),
    );
    if caps.is_empty() {
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

    /// The sweep's matrix (block size, depths), as `candor sweep` runs it.
    fn matrix() -> Vec<(u64, Vec<u32>)> {
        crate::plan::sweep::SWEEP_MATRIX
            .iter()
            .map(|(bs, d)| (*bs, d.to_vec()))
            .collect()
    }

    /// What a device with these caps (None = none) and this natural speed would deliver.
    fn simulated(
        iops_cap: Option<f64>,
        bw_cap: Option<f64>,
        natural: &dyn Fn(u64, u32) -> f64,
    ) -> Vec<CapPoint> {
        let mut out = Vec::new();
        for (bs, depths) in matrix() {
            for qd in depths {
                let mut iops = natural(bs, qd);
                if let Some(c) = iops_cap {
                    iops = iops.min(c);
                }
                if let Some(b) = bw_cap {
                    iops = iops.min(b / bs as f64);
                }
                // A limiter delivers its setting within a few tenths of a percent.
                let iops = iops * 0.998;
                out.push(CapPoint {
                    label: format!("RND{} Q{qd}T1", block_label(bs)),
                    rw: Rw::Randread,
                    bs,
                    iodepth: qd,
                    numjobs: 1,
                    iops,
                    bytes_per_sec: iops * bs as f64,
                    cpu_bound: false,
                    ops: 0,
                    secs: 0.0,
                });
            }
        }
        out
    }

    fn fio_point(rw: &str, bs_k: u64, qd: u32, iops: f64, mb: f64) -> CapPoint {
        CapPoint {
            label: format!("RND{}K Q{qd}T1", bs_k),
            rw: Rw::parse(rw),
            bs: bs_k * K,
            iodepth: qd,
            numjobs: 1,
            iops,
            bytes_per_sec: mb * 1e6,
            cpu_bound: false,
            ops: iops as u64,
            secs: 1.0,
        }
    }

    fn near(v: Option<f64>, want: f64) -> bool {
        v.is_some_and(|v| (v / want - 1.0).abs() < 0.05)
    }

    /// A network volume: 2-20k IOPS at QD1 (latency-bound, each depth adds
    /// a parallel request), capped far above QD1.
    fn network_volume(bs: u64, qd: u32) -> f64 {
        qd as f64 / (250e-6 + bs as f64 / 1.5e9)
    }

    /// The case the old rule missed: 40,000 read IOPS reachable only from
    /// QD4, with a 300 MB/s bandwidth cap on the same direction.
    #[test]
    fn an_iops_cap_above_qd1_with_a_bandwidth_cap() {
        let c = infer(&simulated(Some(40_000.0), Some(300e6), &network_volume));
        assert!(near(c.iops_cap(), 40_000.0), "{c:?}");
        assert!(near(c.bandwidth_cap(), 300e6), "{c:?}");
        let p = c.iops.unwrap();
        assert!(
            p.points.iter().all(|x| x.bs == 4 * K && x.iodepth >= 8),
            "{p:?}"
        );
    }

    /// A non-round IOPS cap with no bandwidth cap: the same IOPS at every
    /// small block size and depth.
    #[test]
    fn a_non_round_iops_cap_is_named_by_its_shape() {
        let c = infer(&simulated(Some(23_456.0), None, &network_volume));
        assert!(near(c.iops_cap(), 23_456.0), "{c:?}");
        assert!(c
            .iops
            .unwrap()
            .signs
            .iter()
            .any(|s| matches!(s, Sign::SameAcrossBlockSizes { .. })));
    }

    /// Flat across depths at one block size only, at a figure that is not
    /// round: a medium saturating could do that too, so it is a ceiling.
    #[test]
    fn flat_at_one_block_size_only_is_a_ceiling() {
        let c = infer(&simulated(Some(37_123.0), Some(200e6), &network_volume));
        assert_eq!(c.iops_cap(), None);
        let p = c.iops.unwrap();
        assert_eq!(p.kind, PlateauKind::Ceiling, "{p:?}");
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
        assert!(near(r.iops_cap(), 2000.0), "{r:?}");
        assert!(near(r.bandwidth_cap(), 50e6), "{r:?}");
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
        assert!(near(w.iops_cap(), 1000.0), "{w:?}");
        assert_eq!(w.bandwidth_cap(), None);
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
        assert!(near(infer(&read).bandwidth_cap(), 50e6));
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
        let c = infer(&write);
        assert_eq!((c.iops_cap(), c.bandwidth_cap()), (None, None), "{c:?}");
    }

    #[test]
    fn ten_thousand_iops_and_200_mb() {
        let natural = |bs: u64, qd: u32| 1e9 / (50_000.0 + bs as f64 / 2.0) * qd as f64;
        let c = infer(&simulated(Some(10_000.0), Some(200e6), &natural));
        assert!(near(c.iops_cap(), 10_000.0), "{c:?}");
        assert!(near(c.bandwidth_cap(), 200e6), "{c:?}");
        assert!(c.iops.unwrap().points.iter().all(|p| p.bs <= 16 * K));
    }

    #[test]
    fn iops_cap_only_leaves_bandwidth_alone() {
        let natural = |_bs: u64, qd: u32| 20_000.0 * qd as f64;
        let c = infer(&simulated(Some(2000.0), None, &natural));
        assert!(c.iops_cap().is_some());
        assert_eq!(c.bandwidth_cap(), None);
    }

    #[test]
    fn uncapped_devices_get_no_plateau() {
        // Latency grows with block size, depth helps sub-linearly: no flat stretch.
        let nvme = |bs: u64, qd: u32| (qd as f64).powf(0.7) / (30e-6 + bs as f64 / 1.5e9);
        assert_eq!(infer(&simulated(None, None, &nvme)), DirCaps::default());
        assert_eq!(infer(&simulated(None, None, &network_volume)).iops, None);
    }

    /// candor (debug build) on the same unthrottled disk, 1 s per point: the
    /// virtual disk's per-I/O cost makes 4 and 8 KiB QD32 equal; QD1 is far
    /// below. Two block sizes alone make a ceiling, not a cap.
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
        assert_eq!(c.iops_cap(), None, "{c:?}");
        assert_eq!(c.bandwidth_cap(), None);
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
        assert_eq!(c.bandwidth_cap(), None, "{c:?}");
        assert_eq!(c.bandwidth.unwrap().kind, PlateauKind::Ceiling);
    }

    /// candor's sweep on this VM unthrottled, once: 256 KiB and 1 MiB
    /// random reads at QD1 both reached the path's 1,373 MB/s, flat to
    /// QD16. Read as a cap (reached at QD1 with two block sizes) before
    /// QD1 counted only with a small random block (`serial_path`).
    #[test]
    fn large_blocks_reaching_the_path_at_qd1_are_a_ceiling() {
        let read = [
            fio_point("randread", 4, 1, 21324.0, 87.3),
            fio_point("randread", 4, 32, 87202.0, 357.2),
            fio_point("randread", 8, 1, 19904.0, 163.1),
            fio_point("randread", 8, 64, 83863.0, 687.0),
            fio_point("randread", 64, 1, 13968.0, 915.4),
            fio_point("randread", 64, 16, 19073.0, 1250.0),
            fio_point("randread", 256, 1, 5237.0, 1372.9),
            fio_point("randread", 256, 16, 5231.0, 1371.3),
            fio_point("randread", 1024, 1, 1309.0, 1372.6),
            fio_point("randread", 1024, 4, 1307.0, 1370.5),
            fio_point("randread", 1024, 16, 1305.0, 1368.4),
        ];
        let c = infer(&read);
        assert_eq!(c.bandwidth_cap(), None, "{c:?}");
        assert_eq!(c.bandwidth.unwrap().kind, PlateauKind::Ceiling);
    }

    #[test]
    fn plateau_reached_only_deep_without_fingerprints_is_a_ceiling() {
        // The same figure at QD16 and QD32 of every size: but 12,345 is not
        // round and only two depths of each size reach it.
        let natural = |_bs: u64, qd: u32| 1000.0 * qd as f64;
        let c = infer(&simulated(Some(12_345.0), Some(60e6), &natural));
        assert_eq!(c.iops_cap(), None, "{c:?}");
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
        assert!((f[0].evidence["read_iops"].as_f64().unwrap() - 9980.0).abs() < 1.0);
        assert!(f[0].evidence["write_iops"].is_null());
        assert!(f[0].evidence["read_bytes_per_sec"].is_null());
        assert_eq!(f[0].evidence["read_iops_plateau"]["kind"], "cap");
    }

    /// candor's sweep under a cgroup throttle of 30,000 read IOPS and 200
    /// MB/s (1 s points): QD4 and QD8 ran 7-8 % over the setting, the deeper
    /// points settled on it. The setting is the plateau, not the overshoot.
    #[test]
    fn a_limiter_overshooting_at_shallow_depths_is_named_by_the_deep_points() {
        let read = [
            fio_point("randread", 4, 1, 14214.0, 58.22),
            fio_point("randread", 4, 4, 32446.0, 132.90),
            fio_point("randread", 4, 8, 32148.0, 131.68),
            fio_point("randread", 4, 16, 30000.0, 122.88),
            fio_point("randread", 4, 32, 29488.0, 120.78),
            fio_point("randread", 4, 64, 30384.0, 124.45),
            fio_point("randread", 8, 1, 13459.0, 110.26),
            fio_point("randread", 8, 4, 23417.0, 191.83),
            fio_point("randread", 8, 16, 24526.0, 200.92),
            fio_point("randread", 8, 64, 25247.0, 206.82),
            fio_point("randread", 64, 1, 2965.0, 194.31),
            fio_point("randread", 64, 4, 3052.0, 200.02),
            fio_point("randread", 64, 16, 2835.0, 185.79),
            fio_point("randread", 1024, 1, 185.0, 193.99),
            fio_point("randread", 1024, 4, 191.0, 200.28),
            fio_point("randread", 1024, 16, 191.0, 200.28),
        ];
        let c = infer(&read);
        assert!(near(c.iops_cap(), 30_000.0), "{c:?}");
        assert!(near(c.bandwidth_cap(), 200e6), "{c:?}");
    }

    /// tests/truth.rs under a 38,000 read IOPS throttle (1 s points, the
    /// full test suite, 2026-12-04): QD4 ran 2.8 % over the setting, QD8-64
    /// settled on it within 0.1 %. The flat run of deep points is the sign;
    /// the overshooting first depth did not make it a mere ceiling.
    #[test]
    fn one_overshooting_depth_does_not_hide_a_flat_plateau() {
        let read = [
            fio_point("randread", 4, 1, 18276.0, 74.86),
            fio_point("randread", 4, 4, 39128.0, 160.27),
            fio_point("randread", 4, 8, 38048.0, 155.84),
            fio_point("randread", 4, 16, 38080.0, 155.98),
            fio_point("randread", 4, 32, 38064.0, 155.91),
            fio_point("randread", 4, 64, 38064.0, 155.91),
        ];
        let c = infer(&read);
        assert!(near(c.iops_cap(), 38_064.0), "{c:?}");
    }

    /// tests/truth.rs in CI under a 37,000 write IOPS throttle (2 s points,
    /// 2026-12-04): QD4-32 within 1.1 % of the setting, QD64 2 % under it.
    /// The sagging deepest depth ends the flat run; it does not undo it.
    #[test]
    fn a_deepest_depth_sagging_under_the_level_does_not_hide_a_flat_plateau() {
        let write = sweep_4k(
            "randwrite",
            &[18158.0, 37208.0, 37036.0, 36999.0, 36803.0, 36250.0],
        );
        let c = infer(&write);
        assert!(near(c.iops_cap(), 37_000.0), "{c:?}");
    }

    /// A medium whose curve still rises through the plateau's band is no
    /// flat run, however flat its deep end: the shallow side decides
    /// (2 s points, as the sweep measures).
    #[test]
    fn a_curve_rising_into_its_top_is_not_flat_across_depths() {
        let read = sweep_4k(
            "randread",
            &[9000.0, 27000.0, 28800.0, 29700.0, 30100.0, 30150.0],
        );
        let c = infer(&read);
        assert_eq!(c.iops_cap(), None, "{c:?}");
    }

    /// 4 KiB points at QD1, 4, 8, 16, 32 and 64 with these IOPS, 2 s each
    /// (the sweep's default).
    fn sweep_4k(rw: &str, iops: &[f64; 6]) -> Vec<CapPoint> {
        [1, 4, 8, 16, 32, 64]
            .iter()
            .zip(iops)
            .map(|(&qd, &v)| {
                let mut p = fio_point(rw, 4, qd, v, v * 4096.0 / 1e6);
                p.secs = 2.0;
                p.ops = (v * 2.0) as u64;
                p
            })
            .collect()
    }
}
