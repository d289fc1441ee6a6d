//! fio's steady state (`steadystate=iops_slope:0.1%`, `ss_dur`, `ss_ramp`):
//! once per second the job's IOPS or bandwidth over the last `ss_dur`
//! seconds is judged, by its largest deviation from the window's mean
//! (`iops`, `bw`) or by the least-squares slope of the window (`iops_slope`,
//! `bw_slope`), against a limit that is absolute or a percentage of the
//! mean. When the criterion falls below the limit the job stops. Whether it
//! got there, the criterion, the deviation, the slope and the window are
//! recorded, as fio's JSON records them.

use crate::result::SteadyState;

/// What to judge and the limit, from the job file.
#[derive(Debug, Clone, PartialEq)]
pub struct SteadySpec {
    /// fio's spelling, e.g. `iops_slope:0.1%`.
    pub text: String,
    /// IOPS (true) or bytes per second (false).
    pub iops: bool,
    /// Judge the slope (true) or the largest deviation (false).
    pub slope: bool,
    pub limit: f64,
    /// The limit is a percentage of the window's mean.
    pub percent: bool,
    /// The window, in whole seconds.
    pub window_s: u32,
    /// Seconds of the measured interval before the first sample counts.
    pub ramp_ns: u64,
}

impl SteadySpec {
    /// Reads fio's `steadystate` value (`iops:2`, `bw_slope:0.5%`).
    pub fn parse(text: &str, window_s: u32, ramp_ns: u64) -> Result<SteadySpec, String> {
        let (metric, limit) = text
            .split_once(':')
            .ok_or_else(|| format!("'{text}' is not criterion:limit (e.g. iops_slope:0.1%)"))?;
        let (iops, slope) = match metric {
            "iops" => (true, false),
            "iops_slope" => (true, true),
            "bw" => (false, false),
            "bw_slope" => (false, true),
            other => {
                return Err(format!(
                    "'{other}' is not a steady-state criterion (iops, iops_slope, bw, bw_slope)"
                ))
            }
        };
        let (number, percent) = match limit.strip_suffix('%') {
            Some(n) => (n, true),
            None => (limit, false),
        };
        let limit: f64 = number
            .parse()
            .ok()
            .filter(|l: &f64| l.is_finite() && *l >= 0.0)
            .ok_or_else(|| format!("'{limit}' is not a limit (a number, or a percentage)"))?;
        Ok(SteadySpec {
            text: text.to_string(),
            iops,
            slope,
            limit,
            percent,
            window_s: window_s.max(1),
            ramp_ns,
        })
    }
}

/// Watches one job: fed the job's completed operations and bytes once
/// per second, it says when steady state is reached.
pub struct Monitor {
    spec: SteadySpec,
    /// (IOPS, bytes/s) of each whole second after the ramp, oldest first.
    samples: Vec<(f64, f64)>,
    /// The counters at the start of the current second.
    previous: (u64, u64),
    /// The next second boundary to sample at (ns from the measured start).
    next_ns: u64,
    attained: bool,
    criterion: f64,
    deviation: f64,
    slope: f64,
}

impl Monitor {
    pub fn new(spec: SteadySpec) -> Monitor {
        Monitor {
            spec,
            samples: Vec::new(),
            previous: (0, 0),
            next_ns: 1_000_000_000,
            attained: false,
            criterion: 0.0,
            deviation: 0.0,
            slope: 0.0,
        }
    }

    /// When the next sample is due (ns from the start of the measured interval).
    pub fn due_ns(&self) -> u64 {
        self.next_ns
    }

    /// Takes the sample of the second that ended at `due_ns()`, given the
    /// job's counters now; true when steady state is reached.
    pub fn sample(&mut self, ops: u64, bytes: u64) -> bool {
        let second_start = self.next_ns - 1_000_000_000;
        let (dops, dbytes) = (
            ops.saturating_sub(self.previous.0),
            bytes.saturating_sub(self.previous.1),
        );
        self.previous = (ops, bytes);
        self.next_ns += 1_000_000_000;
        if second_start < self.spec.ramp_ns {
            return false;
        }
        self.samples.push((dops as f64, dbytes as f64));
        let n = self.spec.window_s as usize;
        if self.samples.len() < n {
            return false;
        }
        let window: Vec<f64> = self.samples[self.samples.len() - n..]
            .iter()
            .map(|(i, b)| if self.spec.iops { *i } else { *b })
            .collect();
        let mean = window.iter().sum::<f64>() / n as f64;
        self.deviation = window.iter().map(|x| (x - mean).abs()).fold(0.0, f64::max);
        self.slope = slope(&window);
        let raw = if self.spec.slope {
            self.slope.abs()
        } else {
            self.deviation
        };
        self.criterion = if self.spec.percent {
            if mean > 0.0 {
                100.0 * raw / mean
            } else {
                f64::INFINITY
            }
        } else {
            raw
        };
        self.attained = self.criterion < self.spec.limit;
        self.attained
    }

    /// What the Run keeps, as fio's JSON keeps it.
    pub fn record(&self) -> SteadyState {
        let n = (self.spec.window_s as usize).min(self.samples.len());
        let window = &self.samples[self.samples.len() - n..];
        let mean = |f: fn(&(f64, f64)) -> f64| {
            if n == 0 {
                0.0
            } else {
                window.iter().map(f).sum::<f64>() / n as f64
            }
        };
        SteadyState {
            criterion: self.spec.text.clone(),
            duration_s: self.spec.window_s,
            ramp_ns: self.spec.ramp_ns,
            attained: self.attained,
            value: (self.samples.len() >= self.spec.window_s as usize
                && self.criterion.is_finite())
            .then_some(self.criterion),
            limit: self.spec.limit,
            percent: self.spec.percent,
            max_deviation: self.deviation,
            slope: self.slope,
            iops_mean: mean(|s| s.0),
            bw_mean: mean(|s| s.1),
            iops: window.iter().map(|s| s.0).collect(),
            bw: window.iter().map(|s| s.1).collect(),
        }
    }
}

/// The least-squares slope of equally spaced points, per point.
fn slope(y: &[f64]) -> f64 {
    let n = y.len() as f64;
    if y.len() < 2 {
        return 0.0;
    }
    let mean_x = (n - 1.0) / 2.0;
    let mean_y = y.iter().sum::<f64>() / n;
    let (mut num, mut den) = (0.0, 0.0);
    for (i, v) in y.iter().enumerate() {
        let dx = i as f64 - mean_x;
        num += dx * (v - mean_y);
        den += dx * dx;
    }
    num / den
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_fio_criteria() {
        let s = SteadySpec::parse("iops_slope:0.1%", 30, 0).unwrap();
        assert!(s.iops && s.slope && s.percent && s.limit == 0.1);
        let s = SteadySpec::parse("bw:1048576", 10, 0).unwrap();
        assert!(!s.iops && !s.slope && !s.percent);
        assert!(SteadySpec::parse("lat:1%", 10, 0).is_err());
        assert!(SteadySpec::parse("iops", 10, 0).is_err());
        assert!(SteadySpec::parse("iops:x", 10, 0).is_err());
    }

    #[test]
    fn attains_on_a_flat_window_not_on_a_trend() {
        let feed = |spec: SteadySpec, rates: &[u64]| -> (bool, Monitor) {
            let mut m = Monitor::new(spec);
            let mut ops = 0;
            for r in rates {
                ops += r;
                if m.sample(ops, ops * 4096) {
                    return (true, m);
                }
            }
            (false, m)
        };
        let flat = SteadySpec::parse("iops:2%", 3, 0).unwrap();
        let (ok, m) = feed(flat.clone(), &[500, 1000, 1005, 995, 1000]);
        assert!(ok);
        let r = m.record();
        assert_eq!(r.iops, vec![1000.0, 1005.0, 995.0]);
        assert!(r.value.unwrap() < 2.0 && r.attained);
        let (ok, _) = feed(flat, &[1000, 1100, 1200, 1300]);
        assert!(!ok, "a rising series is not steady");
        let slope = SteadySpec::parse("iops_slope:1%", 4, 0).unwrap();
        let (ok, m) = feed(slope, &[1000, 1100, 1200, 1300]);
        assert!(!ok);
        assert!((m.record().slope - 100.0).abs() < 1e-9);
        // The ramp's seconds are not samples.
        let ramped = SteadySpec::parse("iops:2%", 2, 2_000_000_000).unwrap();
        let (ok, m) = feed(ramped, &[1, 5000, 1000, 1000]);
        assert!(ok);
        assert_eq!(m.record().iops, vec![1000.0, 1000.0]);
    }
}
