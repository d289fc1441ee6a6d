//! Per-thread, per-direction recording: an HDR histogram of every I/O's
//! latency over the measured interval, and a per-second series. Threads
//! record without sharing anything; totals are merged at the end, so the
//! totals are by construction the sum of the threads.

use crate::result::histogram::{self, HIGHEST_NS};
use crate::result::{DirectionStats, LatencyStats, SeriesPoint};
use hdrhistogram::Histogram;

/// One second: the series' interval.
pub const INTERVAL_NS: u64 = 1_000_000_000;
fn total_histogram() -> Histogram<u64> {
    histogram::latency_histogram()
}

/// Per-interval histograms only feed the interval's p99: two significant
/// digits keep each one small (a few KiB) for long runs with many threads.
fn interval_histogram() -> Histogram<u32> {
    Histogram::new_with_bounds(1, HIGHEST_NS, 2).expect("valid histogram bounds")
}

/// One closed interval of one thread.
struct Interval {
    ops: u64,
    bytes: u64,
    lat_sum: u64,
    hist: Histogram<u32>,
}

/// What one thread recorded for one direction.
pub struct DirectionRecorder {
    hist: Histogram<u64>,
    ops: u64,
    bytes: u64,
    intervals: Vec<Interval>,
    current: Interval,
}

impl Default for DirectionRecorder {
    fn default() -> Self {
        DirectionRecorder {
            hist: total_histogram(),
            ops: 0,
            bytes: 0,
            intervals: Vec::new(),
            current: Interval {
                ops: 0,
                bytes: 0,
                lat_sum: 0,
                hist: interval_histogram(),
            },
        }
    }
}

impl DirectionRecorder {
    /// Records one I/O that completed `since_start_ns` after the start of the
    /// measured interval, with its latency and size. Always inlined: it
    /// runs once per completion, and left to the inliner's heuristics it
    /// was called out of line after an unrelated change elsewhere in the
    /// crate (the null engine's cost per operation 3-9 % higher).
    #[inline(always)]
    pub fn record(&mut self, since_start_ns: u64, lat_ns: u64, bytes: u64) {
        let index = (since_start_ns / INTERVAL_NS) as usize;
        while self.intervals.len() < index {
            self.close_interval();
        }
        self.hist.saturating_record(lat_ns.max(1));
        self.ops += 1;
        self.bytes += bytes;
        let c = &mut self.current;
        c.ops += 1;
        c.bytes += bytes;
        c.lat_sum += lat_ns;
        c.hist.saturating_record(lat_ns.max(1));
    }

    fn close_interval(&mut self) {
        let next = Interval {
            ops: 0,
            bytes: 0,
            lat_sum: 0,
            hist: interval_histogram(),
        };
        let closed = std::mem::replace(&mut self.current, next);
        self.intervals.push(closed);
    }

    /// Closes the series so that it covers `measured_ns` exactly.
    pub fn finish(&mut self, measured_ns: u64) {
        let count = measured_ns.div_ceil(INTERVAL_NS) as usize;
        while self.intervals.len() < count {
            self.close_interval();
        }
    }

    pub fn ops(&self) -> u64 {
        self.ops
    }

    /// The figures of this recorder over `measured_ns`.
    pub fn stats(&self, measured_ns: u64) -> DirectionStats {
        let series: Vec<SeriesPoint> = self
            .intervals
            .iter()
            .enumerate()
            .map(|(i, iv)| point(i, iv.ops, iv.bytes, iv.lat_sum, &iv.hist, measured_ns))
            .collect();
        direction_stats(&self.hist, self.ops, self.bytes, measured_ns, series, false)
    }

    /// Merges the recorders of every thread into the job's totals.
    pub fn merged(parts: &[&DirectionRecorder], measured_ns: u64) -> DirectionStats {
        let mut hist = total_histogram();
        let mut ops = 0;
        let mut bytes = 0;
        for p in parts {
            hist.add(&p.hist).expect("same bounds");
            ops += p.ops;
            bytes += p.bytes;
        }
        let intervals = parts.iter().map(|p| p.intervals.len()).max().unwrap_or(0);
        let mut series = Vec::with_capacity(intervals);
        for i in 0..intervals {
            let mut h = interval_histogram();
            let (mut o, mut b, mut l) = (0, 0, 0);
            for p in parts {
                if let Some(iv) = p.intervals.get(i) {
                    h.add(&iv.hist).expect("same bounds");
                    o += iv.ops;
                    b += iv.bytes;
                    l += iv.lat_sum;
                }
            }
            series.push(point(i, o, b, l, &h, measured_ns));
        }
        direction_stats(&hist, ops, bytes, measured_ns, series, true)
    }
}

fn point(
    i: usize,
    ops: u64,
    bytes: u64,
    lat_sum: u64,
    h: &Histogram<u32>,
    measured_ns: u64,
) -> SeriesPoint {
    let t_ns = i as u64 * INTERVAL_NS;
    SeriesPoint {
        t_ns,
        dur_ns: INTERVAL_NS.min(measured_ns.saturating_sub(t_ns)),
        ops,
        bytes,
        lat_mean_ns: if ops > 0 {
            lat_sum as f64 / ops as f64
        } else {
            0.0
        },
        lat_p99_ns: if ops > 0 {
            h.value_at_quantile(0.99)
        } else {
            0
        },
    }
}

fn direction_stats(
    hist: &Histogram<u64>,
    ops: u64,
    bytes: u64,
    measured_ns: u64,
    series: Vec<SeriesPoint>,
    keep_histogram: bool,
) -> DirectionStats {
    let secs = measured_ns as f64 / 1e9;
    DirectionStats {
        ops,
        bytes,
        iops: if secs > 0.0 { ops as f64 / secs } else { 0.0 },
        bytes_per_sec: if secs > 0.0 { bytes as f64 / secs } else { 0.0 },
        lat_ns: latency_stats(hist, keep_histogram),
        series,
    }
}

/// Percentiles from a histogram (all zero when it is empty).
pub fn latency_stats(hist: &Histogram<u64>, keep_histogram: bool) -> LatencyStats {
    if hist.is_empty() {
        return LatencyStats::default();
    }
    let q = |p: f64| hist.value_at_quantile(p);
    LatencyStats {
        min: hist.min(),
        mean: hist.mean(),
        stdev: hist.stdev(),
        p50: q(0.50),
        p90: q(0.90),
        p99: q(0.99),
        p99_9: q(0.999),
        p99_99: q(0.9999),
        max: hist.max(),
        histogram: keep_histogram.then(|| histogram::encode(hist)).flatten(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn series_sums_equal_totals_and_merge_adds_threads() {
        let mut a = DirectionRecorder::default();
        let mut b = DirectionRecorder::default();
        for i in 0..3000u64 {
            a.record(i * 1_000_000, 1000 + i, 4096);
        }
        for i in 0..1000u64 {
            b.record(i * 2_500_000, 50_000, 4096);
        }
        a.finish(3_000_000_000);
        b.finish(3_000_000_000);
        let sa = a.stats(3_000_000_000);
        assert_eq!(sa.series.len(), 3);
        assert_eq!(sa.series.iter().map(|p| p.ops).sum::<u64>(), 3000);
        let total = DirectionRecorder::merged(&[&a, &b], 3_000_000_000);
        assert_eq!(total.ops, 4000);
        assert_eq!(total.bytes, 4000 * 4096);
        assert_eq!(total.series.iter().map(|p| p.ops).sum::<u64>(), 4000);
        assert!((total.iops - 4000.0 / 3.0).abs() < 1e-6);
        let l = &total.lat_ns;
        assert!(l.min <= l.p50 && l.p50 <= l.p90 && l.p90 <= l.p99 && l.p99 <= l.p99_9);
        assert!(l.p99_9 <= l.p99_99 && l.p99_99 <= l.max);
        assert!(l.histogram.is_some());
    }

    #[test]
    fn partial_last_interval() {
        let mut a = DirectionRecorder::default();
        a.record(10, 100, 1);
        a.finish(1_500_000_000);
        let s = a.stats(1_500_000_000);
        assert_eq!(s.series.len(), 2);
        assert_eq!(s.series[1].dur_ns, 500_000_000);
    }
}
