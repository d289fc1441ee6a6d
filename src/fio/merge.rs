//! One direction (read or write) of a job over its clones: numjobs clones
//! that fio reported one by one (no `group_reporting`) are summed exactly
//! (IOPS, bytes, bytes/s), their latency min/max/mean/stdev combined
//! exactly, and their percentiles taken exactly from summed `json+` bins or,
//! from plain `json`, as an N-weighted mean of the clones' (approximate).

use super::latency::{bins_to_hdr_base64, latency, lookup, percentile_from_bins, Lat};
use super::{f64_of, u64_of};
use crate::result::{DirectionStats, LatencyStats};
use serde_json::Value;
use std::collections::BTreeMap;

pub(super) use super::latency::KEPT;

pub(super) fn to_stats(dir: &Value, lat: &Lat, pct: [u64; 5]) -> DirectionStats {
    let bytes_per_sec = match dir.get("bw_bytes").and_then(|b| b.as_f64()) {
        Some(b) => b,
        None => f64_of(dir, "bw") * 1024.0,
    };
    DirectionStats {
        ops: u64_of(dir, "total_ios"),
        bytes: u64_of(dir, "io_bytes"),
        iops: f64_of(dir, "iops"),
        bytes_per_sec,
        lat_ns: LatencyStats {
            min: lat.min,
            mean: lat.mean,
            stdev: lat.stdev,
            p50: pct[0],
            p90: pct[1],
            p99: pct[2],
            p99_9: pct[3],
            p99_99: pct[4],
            max: lat.max,
            histogram: None,
        },
        series: Vec::new(),
    }
}

/// One direction over the clones of a job: (merged, per clone, notes).
pub(super) fn direction(
    jobs: &[&Value],
    key: &str,
    cause: &str,
) -> (
    Option<DirectionStats>,
    Vec<Option<DirectionStats>>,
    Vec<String>,
) {
    let mut notes = Vec::new();
    let dirs: Vec<&Value> = jobs
        .iter()
        .map(|j| j.get(key).unwrap_or(&Value::Null))
        .collect();
    let lats: Vec<Lat> = dirs.iter().map(|d| latency(d)).collect();
    let per_clone: Vec<Option<DirectionStats>> = dirs
        .iter()
        .zip(&lats)
        .map(|(d, l)| {
            (u64_of(d, "total_ios") > 0).then(|| {
                let mut pct = [0u64; 5];
                for (i, p) in KEPT.iter().enumerate() {
                    pct[i] = lookup(&l.pct, *p).unwrap_or(0);
                }
                to_stats(d, l, pct)
            })
        })
        .collect();
    let done: Vec<usize> = (0..dirs.len())
        .filter(|&i| per_clone[i].is_some())
        .collect();
    if done.is_empty() {
        return (None, per_clone, notes);
    }
    if lats[done[0]].source == "clat_ns" {
        let slat: f64 = dirs
            .iter()
            .map(|d| f64_of(d.get("slat_ns").unwrap_or(&Value::Null), "mean"))
            .fold(0.0, f64::max);
        notes.push(format!(
            "{key} latency is fio's clat_ns (it excludes submission, mean slat {}); candor's own runs from submission, as fio's lat_ns: run fio with --lat_percentiles=1 for comparable percentiles",
            crate::units::fmt_ns(slat)
        ));
    }
    if done
        .iter()
        .all(|&i| lats[i].max == 0 && lats[i].mean == 0.0)
    {
        notes.push(format!(
            "{key}: fio timed no latency ({cause}): latency shown as 0"
        ));
    } else if done.iter().all(|&i| lats[i].pct.is_empty()) {
        notes.push(format!(
            "{key}: fio printed no latency percentiles ({cause}): shown as 0"
        ));
    } else {
        for p in KEPT {
            if done.iter().any(|&i| lookup(&lats[i].pct, p).is_none()) {
                notes.push(format!(
                    "{key}: fio printed no p{p} percentile ({cause}): shown as 0"
                ));
            }
        }
    }
    if done.len() == 1 {
        let mut merged = per_clone[done[0]].clone();
        if let (Some(m), Some(bins)) = (merged.as_mut(), lats[done[0]].bins.as_ref()) {
            m.lat_ns.histogram = bins_to_hdr_base64(bins);
        }
        return (merged, per_clone, notes);
    }
    // Merge the clones.
    let mut m = DirectionStats::default();
    let n_total: u64 = done.iter().map(|&i| lats[i].n).sum();
    for &i in &done {
        let s = per_clone[i].as_ref().expect("done clones have stats");
        m.ops = m.ops.saturating_add(s.ops);
        m.bytes = m.bytes.saturating_add(s.bytes);
        m.iops += s.iops;
        m.bytes_per_sec += s.bytes_per_sec;
    }
    let w = |i: usize| {
        if n_total > 0 {
            lats[i].n as f64 / n_total as f64
        } else {
            1.0 / done.len() as f64
        }
    };
    let mean: f64 = done.iter().map(|&i| w(i) * lats[i].mean).sum();
    let var: f64 = done
        .iter()
        .map(|&i| w(i) * (lats[i].stdev.powi(2) + (lats[i].mean - mean).powi(2)))
        .sum();
    m.lat_ns.min = done.iter().map(|&i| lats[i].min).min().unwrap_or(0);
    m.lat_ns.max = done.iter().map(|&i| lats[i].max).max().unwrap_or(0);
    m.lat_ns.mean = mean;
    m.lat_ns.stdev = var.sqrt();
    let pct: Vec<u64> = if done.iter().all(|&i| lats[i].bins.is_some()) {
        let mut bins: BTreeMap<u64, u64> = BTreeMap::new();
        for &i in &done {
            for (v, c) in lats[i].bins.as_ref().expect("checked") {
                let sum = bins.entry(*v).or_insert(0);
                *sum = sum.saturating_add(*c);
            }
        }
        notes.push(format!(
            "{key}: {} clones merged (no group_reporting); percentiles exact from their summed json+ latency bins",
            done.len()
        ));
        m.lat_ns.histogram = bins_to_hdr_base64(&bins);
        KEPT.iter()
            .map(|&p| percentile_from_bins(&bins, p))
            .collect()
    } else {
        notes.push(format!(
            "{key}: {} clones merged (no group_reporting); percentiles are the N-weighted mean of the clones' percentiles (approximate: use json+ or group_reporting for exact ones)",
            done.len()
        ));
        KEPT.iter()
            .map(|&p| {
                done.iter()
                    .map(|&i| w(i) * lookup(&lats[i].pct, p).unwrap_or(0) as f64)
                    .sum::<f64>()
                    .round() as u64
            })
            .collect()
    };
    m.lat_ns.p50 = pct[0];
    m.lat_ns.p90 = pct[1];
    m.lat_ns.p99 = pct[2];
    m.lat_ns.p99_9 = pct[3];
    m.lat_ns.p99_99 = pct[4];
    (Some(m), per_clone, notes)
}
