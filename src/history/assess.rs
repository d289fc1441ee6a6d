//! The drift rule's statistics, pure: a figure judged against its host's
//! earlier figures of the same workload (`assess`; the rule and why are
//! told in `history/drift.rs`), and the identity facts whose change
//! explains drift. The drift findings (`drift`) and the trends (`query`)
//! both judge with it.

use super::figures::Metric;
use crate::findings::drift::{
    DRIFT_FLOOR_COMPUTE, DRIFT_FLOOR_DISK, DRIFT_MAD_K, DRIFT_MIN_EARLIER,
};
use crate::result::{median, Run};
use serde_json::json;

/// The median absolute deviation times this estimates a normal standard deviation.
const MAD_TO_SIGMA: f64 = 1.4826;

/// Where a figure stands against its earlier range.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Verdict {
    Regressed,
    Improved,
    Within,
}

/// A figure judged against the host's earlier figures of the same workload.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Assessment {
    pub value: f64,
    pub median: f64,
    pub min: f64,
    pub max: f64,
    /// Median absolute deviation of the earlier figures.
    pub mad: f64,
    /// Earlier figures compared with.
    pub n: usize,
    /// Earlier figures beyond the noise of their median, left out of min..max.
    pub outliers: usize,
    /// The allowance beyond min..max on each side.
    pub noise: f64,
    /// The floor used (a fraction of the median).
    pub floor: f64,
    pub verdict: Verdict,
}

impl Assessment {
    /// value / median - 1; None for a median of 0.
    pub fn change(&self) -> Option<f64> {
        (self.median != 0.0).then(|| self.value / self.median - 1.0)
    }
}

/// Judges `value` against `earlier` (None with fewer than `DRIFT_MIN_EARLIER`).
pub fn assess(disk: bool, metric: Metric, earlier: &[f64], value: f64) -> Option<Assessment> {
    let earlier: Vec<f64> = earlier.iter().copied().filter(|v| v.is_finite()).collect();
    if earlier.len() < DRIFT_MIN_EARLIER || !value.is_finite() {
        return None;
    }
    let m = median(&earlier)?;
    let deviations: Vec<f64> = earlier.iter().map(|x| (x - m).abs()).collect();
    let mad = median(&deviations)?;
    let floor = if disk {
        DRIFT_FLOOR_DISK
    } else {
        DRIFT_FLOOR_COMPUTE
    };
    let noise = (floor * m.abs()).max(DRIFT_MAD_K * MAD_TO_SIGMA * mad);
    let usual: Vec<f64> = earlier
        .iter()
        .copied()
        .filter(|x| (x - m).abs() <= noise)
        .collect();
    // Half high, half low: no usual level to trim to; the whole range is usual.
    let usual = if usual.is_empty() {
        earlier.clone()
    } else {
        usual
    };
    let min = usual.iter().copied().fold(f64::INFINITY, f64::min);
    let max = usual.iter().copied().fold(f64::NEG_INFINITY, f64::max);
    let (below, above) = (value < min - noise, value > max + noise);
    let verdict = match (below, above, metric.higher_is_better()) {
        (true, _, true) | (_, true, false) => Verdict::Regressed,
        (true, _, false) | (_, true, true) => Verdict::Improved,
        _ => Verdict::Within,
    };
    Some(Assessment {
        value,
        median: m,
        min,
        max,
        mad,
        n: earlier.len(),
        outliers: earlier.len() - usual.len(),
        noise,
        floor,
        verdict,
    })
}

/// The identity facts that, when they change between Runs, explain drift
/// better than the disk or the neighbours do (a migration, a resize, a new kernel).
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Facts {
    pub cpu_model: Option<String>,
    pub cpu_threads: Option<i64>,
    pub mem_total_bytes: Option<i64>,
    pub kernel: Option<String>,
}

impl Facts {
    pub fn of(run: &Run) -> Facts {
        Facts {
            cpu_model: run.host.cpu_model.clone(),
            cpu_threads: run.host.cpu_threads.map(i64::from),
            mem_total_bytes: run.host.mem_total_bytes.map(|b| b as i64),
            kernel: run.host.kernel.clone(),
        }
    }

    /// `{"fact": {"before": .., "now": ..}}` for each fact known on both sides that differs.
    pub fn changes(before: &Facts, now: &Facts) -> serde_json::Map<String, serde_json::Value> {
        let mut out = serde_json::Map::new();
        let mut put = |name: &str, a: Option<serde_json::Value>, b: Option<serde_json::Value>| {
            if let (Some(a), Some(b)) = (a, b) {
                if a != b {
                    out.insert(name.to_string(), json!({"before": a, "now": b}));
                }
            }
        };
        put(
            "cpu_model",
            before.cpu_model.clone().map(Into::into),
            now.cpu_model.clone().map(Into::into),
        );
        put(
            "cpu_threads",
            before.cpu_threads.map(Into::into),
            now.cpu_threads.map(Into::into),
        );
        put(
            "mem_total_bytes",
            before.mem_total_bytes.map(Into::into),
            now.mem_total_bytes.map(Into::into),
        );
        put(
            "kernel",
            before.kernel.clone().map(Into::into),
            now.kernel.clone().map(Into::into),
        );
        out
    }
}
