//! The job's timeline, and the settled ramp.
//!
//! A ramp exists so that a test's start (threads starting, queues filling,
//! the first requests' cold paths) is not measured. A fixed ramp long
//! enough for the slowest device wastes it on every other: the battery's
//! 2 s ramps were 90 s of a standard run. A battery test's ramp therefore
//! ends as soon as its throughput has settled: five consecutive 100 ms
//! windows each within 10 % of their mean, after at least 0.5 s and at most
//! the preset's ramp. A device that never settles that tightly (a noisy
//! VM, a disk of a hundred IOPS whose windows hold a few operations) gets
//! the whole ramp, as before. The measured interval keeps its length; it
//! only starts earlier. fio's `ramp_time` (job files, `candor disk`) stays
//! fixed, as fio's is. BENCHMARKS.md, "Settled ramps", compares the figures
//! with the fixed ramp's.

use std::sync::atomic::{AtomicU64, Ordering};
use std::time::Instant;

/// Width of one window of the ramp's throughput.
pub const WINDOW_NS: u64 = 100_000_000;
/// Consecutive windows that must agree.
pub const SETTLED_WINDOWS: usize = 5;
/// How far each of them may be from their mean.
pub const TOLERANCE: f64 = 0.10;
/// The ramp's shortest length (the windows' span).
pub const MIN_RAMP_NS: u64 = WINDOW_NS * SETTLED_WINDOWS as u64;
/// The ramp ends this long after it is found settled, so that every I/O
/// thread sees the new end before it passes: no completion is timed
/// against a boundary that moved under it.
const MARGIN_NS: u64 = 10_000_000;

/// The ramp's end and the measured interval's end, in ns from the job's
/// start, shared by the driver (which may end the ramp early) and the I/O
/// threads (which read both once per round).
#[derive(Debug)]
pub struct Timeline {
    ramp_ns: AtomicU64,
    end_ns: AtomicU64,
}

impl Timeline {
    /// `end_ns` is `u64::MAX` for a job without a time limit.
    pub fn new(ramp_ns: u64, end_ns: u64) -> Timeline {
        Timeline {
            ramp_ns: AtomicU64::new(ramp_ns),
            end_ns: AtomicU64::new(end_ns),
        }
    }

    pub fn ramp_ns(&self) -> u64 {
        self.ramp_ns.load(Ordering::Relaxed)
    }

    pub fn end_ns(&self) -> u64 {
        self.end_ns.load(Ordering::Relaxed)
    }

    /// Ends the ramp at `ramp_ns` (earlier than planned, still in the
    /// future), keeping the measured interval's length.
    fn end_ramp_at(&self, ramp_ns: u64) {
        let (old_ramp, old_end) = (self.ramp_ns(), self.end_ns());
        let end = if old_end == u64::MAX {
            u64::MAX
        } else {
            ramp_ns + (old_end - old_ramp)
        };
        self.end_ns.store(end, Ordering::SeqCst);
        self.ramp_ns.store(ramp_ns, Ordering::SeqCst);
    }
}

/// Whether the last [`SETTLED_WINDOWS`] windows (bytes completed in each)
/// agree: none empty, each within [`TOLERANCE`] of their mean.
pub fn settled(windows: &[u64]) -> bool {
    if windows.len() < SETTLED_WINDOWS {
        return false;
    }
    let last = &windows[windows.len() - SETTLED_WINDOWS..];
    if last.contains(&0) {
        return false;
    }
    let mean = last.iter().sum::<u64>() as f64 / SETTLED_WINDOWS as f64;
    last.iter()
        .all(|&w| (w as f64 - mean).abs() <= TOLERANCE * mean)
}

/// The most of a byte-bounded job's budget its settling ramp may use: a
/// fast device reads a small budget (the battery's share of the control
/// file) within the ramp, and the measured interval was then empty (0 MB/s
/// over 0 ms, SEQ1M on a 256 MiB control file here). Three quarters at
/// least are measured.
pub const RAMP_BUDGET_SHARE: f64 = 0.25;
/// How often a byte-bounded ramp looks at its budget (a window's tenth).
const BUDGET_POLL_NS: u64 = WINDOW_NS / 10;

/// Sleeps through the ramp (at most `max_ramp_ns` from `t0`), ending it
/// once the bytes completed so far (`ramp_bytes`) show a settled
/// throughput, or once they reach RAMP_BUDGET_SHARE of `budget` (all the
/// threads' bytes for a byte-bounded job); `early` ends the wait (every
/// thread done, an abort). Returns when the ramp ended, in ns from `t0`.
pub fn ramp(
    t0: Instant,
    timeline: &Timeline,
    max_ramp_ns: u64,
    budget: Option<u64>,
    ramp_bytes: impl Fn() -> u64,
    mut early: impl FnMut() -> bool,
) -> u64 {
    let mut windows: Vec<u64> = Vec::new();
    let mut last = 0u64;
    let step = if budget.is_some() {
        BUDGET_POLL_NS
    } else {
        WINDOW_NS
    };
    let spent = |bytes: u64| budget.is_some_and(|b| bytes as f64 >= RAMP_BUDGET_SHARE * b as f64);
    let mut due = step;
    while due + MARGIN_NS < max_ramp_ns {
        super::clock::sleep_until(t0, due, &mut early);
        if early() {
            return max_ramp_ns;
        }
        let bytes = ramp_bytes();
        let window_ends = due % WINDOW_NS == 0;
        if window_ends {
            windows.push(bytes - last);
            last = bytes;
        }
        if spent(bytes) || (window_ends && due >= MIN_RAMP_NS && settled(&windows)) {
            let end = t0.elapsed().as_nanos() as u64 + MARGIN_NS;
            if end < max_ramp_ns {
                timeline.end_ramp_at(end);
                super::clock::sleep_until(t0, end, &mut early);
                return end;
            }
            break;
        }
        due += step;
    }
    super::clock::sleep_until(t0, max_ramp_ns, &mut early);
    max_ramp_ns
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn settled_needs_five_agreeing_windows() {
        assert!(!settled(&[100, 100, 100, 100]), "too few");
        assert!(settled(&[5, 100, 100, 100, 100, 100]));
        assert!(settled(&[95, 105, 100, 108, 92]));
        // One window 15 % off the others' level is not settled.
        assert!(!settled(&[100, 100, 100, 100, 130]));
        // A stalled window (no completion) never is.
        assert!(!settled(&[100, 100, 0, 100, 100]));
        // A climb of 5 % a window (20 % over five) is not settled.
        assert!(!settled(&[100, 105, 110, 116, 122]));
    }

    #[test]
    fn ending_the_ramp_keeps_the_measured_length() {
        let t = Timeline::new(2_000_000_000, 12_000_000_000);
        t.end_ramp_at(600_000_000);
        assert_eq!((t.ramp_ns(), t.end_ns()), (600_000_000, 10_600_000_000));
        let unbounded = Timeline::new(2_000_000_000, u64::MAX);
        unbounded.end_ramp_at(600_000_000);
        assert_eq!(unbounded.end_ns(), u64::MAX);
    }

    /// A steady source settles after the minimum; one that never agrees
    /// gets the whole ramp.
    #[test]
    fn the_ramp_ends_when_settled_or_at_its_maximum() {
        let t0 = Instant::now();
        let steady = Timeline::new(2_000_000_000, 3_000_000_000);
        // The same bytes in every window: a constant throughput.
        let at = |t0: Instant| t0.elapsed().as_nanos() as u64 / WINDOW_NS * 1000;
        let ended = ramp(t0, &steady, 2_000_000_000, None, || at(t0), || false);
        assert!((MIN_RAMP_NS..2_000_000_000).contains(&ended), "{ended}");
        assert_eq!(steady.ramp_ns(), ended);
        assert_eq!(steady.end_ns(), ended + 1_000_000_000);
        assert!(t0.elapsed().as_nanos() as u64 >= ended);

        let t0 = Instant::now();
        let never = Timeline::new(800_000_000, 1_000_000_000);
        // Alternately fast and slow windows.
        let jumpy = |t0: Instant| {
            let w = t0.elapsed().as_nanos() as u64 / WINDOW_NS;
            w * 1500 + (w % 2) * 1000
        };
        let ended = ramp(t0, &never, 800_000_000, None, || jumpy(t0), || false);
        assert_eq!(ended, 800_000_000);
        assert_eq!(never.ramp_ns(), 800_000_000);

        // The same jumpy source with a budget it reaches a quarter of after
        // about 200 ms: the ramp ends there, not at its maximum.
        let t0 = Instant::now();
        let bounded = Timeline::new(800_000_000, u64::MAX);
        let budget = 4 * 2 * 1500;
        let ended = ramp(
            t0,
            &bounded,
            800_000_000,
            Some(budget),
            || jumpy(t0),
            || false,
        );
        assert!((150_000_000..400_000_000).contains(&ended), "{ended}");
        assert_eq!(bounded.ramp_ns(), ended);
    }
}
