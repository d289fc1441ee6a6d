//! fio's latency figures for one direction of one job entry: which of its
//! latencies candor takes (`lat_ns` where it has percentiles, else
//! `clat_ns`), fio's percentile rule on `json+` bins, and the bins as the
//! HDR histogram candor's own Runs keep.

use super::{f64_of, u64_of};
use serde_json::Value;
use std::collections::BTreeMap;

/// fio's latency summary for one direction of one job entry.
pub(super) struct Lat {
    pub min: u64,
    pub max: u64,
    pub mean: f64,
    pub stdev: f64,
    pub n: u64,
    /// percentile (e.g. 99.9) -> ns
    pub pct: Vec<(f64, u64)>,
    /// json+ only: bin value (ns) -> count
    pub bins: Option<BTreeMap<u64, u64>>,
    /// `clat_ns` or `lat_ns`
    pub source: &'static str,
}

/// candor's latency runs from submission to completion: fio's `lat_ns`. fio
/// prints percentiles of `lat_ns` only with `--lat_percentiles=1`; by
/// default only `clat_ns` (from the end of submission) has them, so that is
/// the fallback, and a note says so.
pub(super) fn latency(dir: &Value) -> Lat {
    let pick = |key: &str| dir.get(key).filter(|v| v.get("percentile").is_some());
    let (v, source) = match (pick("lat_ns"), pick("clat_ns")) {
        (Some(v), _) => (v, "lat_ns"),
        (None, Some(v)) => (v, "clat_ns"),
        (None, None) => (dir.get("clat_ns").unwrap_or(&Value::Null), "clat_ns"),
    };
    let mut pct: Vec<(f64, u64)> = v
        .get("percentile")
        .and_then(|p| p.as_object())
        .map(|m| {
            m.iter()
                .filter_map(|(k, x)| Some((k.parse::<f64>().ok()?, x.as_u64()?)))
                .collect()
        })
        .unwrap_or_default();
    pct.sort_by(|a, b| a.0.total_cmp(&b.0));
    let bins = v.get("bins").and_then(|b| b.as_object()).map(|m| {
        m.iter()
            .filter_map(|(k, x)| Some((k.parse::<u64>().ok()?, x.as_u64()?)))
            .collect()
    });
    Lat {
        min: u64_of(v, "min"),
        max: u64_of(v, "max"),
        mean: f64_of(v, "mean"),
        stdev: f64_of(v, "stddev"),
        n: u64_of(v, "N"),
        pct,
        bins,
        source,
    }
}

/// fio's percentile from latency bins (stat.c, calc_clat_percentiles): the
/// value of the first bin where the running count reaches p% of all samples.
pub fn percentile_from_bins(bins: &BTreeMap<u64, u64>, p: f64) -> u64 {
    let total: u64 = bins.values().sum();
    let want = p / 100.0 * total as f64;
    let mut sum = 0u64;
    for (&value, &count) in bins {
        sum += count;
        if sum as f64 >= want {
            return value;
        }
    }
    bins.keys().next_back().copied().unwrap_or(0)
}

pub(super) fn lookup(pct: &[(f64, u64)], p: f64) -> Option<u64> {
    pct.iter()
        .find(|(q, _)| (q - p).abs() < 1e-6)
        .map(|(_, v)| *v)
}

/// fio's latency bins as an HDR histogram (3 significant digits, V2 deflate,
/// base64: the form candor's own Runs keep), so imported json+ latencies
/// can be merged with other Runs'. Bins above an hour are clamped there.
pub fn bins_to_hdr_base64(bins: &BTreeMap<u64, u64>) -> Option<String> {
    use crate::result::histogram::{encode, latency_histogram, HIGHEST_NS};
    let mut h = latency_histogram();
    for (&v, &n) in bins {
        h.record_n(v.clamp(1, HIGHEST_NS), n).ok()?;
    }
    encode(&h)
}

/// The percentiles candor keeps, in order: p50, p90, p99, p99.9, p99.99.
pub(super) const KEPT: [f64; 5] = [50.0, 90.0, 99.0, 99.9, 99.99];

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bins_follow_fio() {
        let bins: BTreeMap<u64, u64> = [(100, 50), (200, 40), (300, 9), (400, 1)]
            .into_iter()
            .collect();
        assert_eq!(percentile_from_bins(&bins, 50.0), 100);
        assert_eq!(percentile_from_bins(&bins, 90.0), 200);
        assert_eq!(percentile_from_bins(&bins, 99.0), 300);
        assert_eq!(percentile_from_bins(&bins, 99.9), 400);
    }
}
