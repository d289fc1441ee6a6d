//! BatteryProgress on stderr: which test, which pass, time elapsed, and an ETA,
//! one line per measurement. Only when stderr is a terminal and the user did
//! not ask for `--quiet`: piped output and logs stay clean.
//!
//! The ETA is the plan's estimate of what is left, corrected by how far
//! the estimates have been off so far (file fills and compute groups take
//! longer or shorter than the plan can know).

use std::io::{IsTerminal, Write};
use std::time::{Duration, Instant};

/// BatteryProgress reporting for one battery.
#[derive(Debug)]
pub struct BatteryProgress {
    enabled: bool,
    start: Instant,
    /// Estimated time of the steps finished in this session.
    estimated_done: Duration,
}

impl BatteryProgress {
    /// Enabled when stderr is a terminal, unless `quiet`.
    pub fn for_terminal(quiet: bool) -> BatteryProgress {
        BatteryProgress::new(!quiet && std::io::stderr().is_terminal())
    }

    pub fn new(enabled: bool) -> BatteryProgress {
        BatteryProgress {
            enabled,
            start: Instant::now(),
            estimated_done: Duration::ZERO,
        }
    }

    pub fn enabled(&self) -> bool {
        self.enabled
    }

    /// A step starts: `[ 3/16] pass 1/3  RND4K Q32T1 read  elapsed 0:21  ETA 1:40`.
    pub fn step(
        &self,
        index: usize,
        total: usize,
        pass: u32,
        passes: u32,
        label: &str,
        remaining: Duration,
    ) {
        if !self.enabled {
            return;
        }
        let elapsed = self.start.elapsed();
        let eta = eta(remaining, self.estimated_done, elapsed);
        let width = total.to_string().len();
        self.line(&format!(
            "[{:>width$}/{total}] pass {pass}/{passes}  {label:<32} elapsed {}  ETA {}",
            index + 1,
            clock(elapsed),
            clock(eta),
        ));
    }

    /// A step finished; `estimate` is what the plan expected it to take.
    pub fn finished(&mut self, estimate: Duration) {
        self.estimated_done += estimate;
    }

    /// A free-form line (file creation, notes).
    pub fn note(&self, text: &str) {
        if self.enabled {
            self.line(text);
        }
    }

    fn line(&self, text: &str) {
        let mut err = std::io::stderr().lock();
        let _ = writeln!(err, "candor: {text}");
    }
}

/// What is left, scaled by actual/estimated so far (bounded to x0.5..x4 so
/// one odd step does not make the ETA jump wildly).
pub fn eta(remaining: Duration, estimated_done: Duration, actual_done: Duration) -> Duration {
    if estimated_done.is_zero() {
        return remaining;
    }
    let factor = (actual_done.as_secs_f64() / estimated_done.as_secs_f64()).clamp(0.5, 4.0);
    remaining.mul_f64(factor)
}

/// `0:21`, `12:05`, `1:02:03`.
pub fn clock(d: Duration) -> String {
    let s = d.as_secs();
    if s >= 3600 {
        format!("{}:{:02}:{:02}", s / 3600, (s / 60) % 60, s % 60)
    } else {
        format!("{}:{:02}", s / 60, s % 60)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn clocks() {
        assert_eq!(clock(Duration::from_secs(21)), "0:21");
        assert_eq!(clock(Duration::from_secs(725)), "12:05");
        assert_eq!(clock(Duration::from_secs(3723)), "1:02:03");
    }

    #[test]
    fn eta_corrects_by_what_was_seen() {
        let s = Duration::from_secs;
        assert_eq!(eta(s(100), s(0), s(5)), s(100));
        // Steps took twice their estimate: what is left will too.
        assert_eq!(eta(s(100), s(10), s(20)), s(200));
        // Bounded: a 100x slow first step does not make a 100x ETA.
        assert_eq!(eta(s(100), s(1), s(100)), s(400));
    }
}
