//! fio's `rate_min` and `rate_iops_min` (backend.c, check_min_rate): a
//! thread that falls below a minimum rate fails. After a 2 s settle from
//! the thread's start (from the ramp's end when there is a ramp), each
//! direction that has completed I/O takes a baseline; then, each time at
//! least `cycle` has passed since the last check, the bytes (or
//! operations) completed since, over the milliseconds spent, must reach
//! the minimum. Integer arithmetic in milliseconds, as fio's.

use std::time::Duration;

/// fio's settle period before the first check.
pub const SETTLE: Duration = Duration::from_secs(2);

/// A direction's minimum: bytes per second, or operations per second.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Floor {
    Bytes(u64),
    Ops(u64),
}

/// A job's minimum rates, per thread, for reads and writes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct MinRate {
    pub floor: [Option<Floor>; 2],
    /// How often the rate is checked (fio's `rate_cycle`, 1000 ms by default).
    pub cycle: Duration,
}

impl MinRate {
    /// In words, for the Run and `--parse-only`.
    pub fn describe(&self) -> String {
        let mut parts = Vec::new();
        for (d, name) in [(0, "reads"), (1, "writes")] {
            match self.floor[d] {
                Some(Floor::Bytes(b)) => parts.push(format!("{name} at least {b} B/s")),
                Some(Floor::Ops(n)) => parts.push(format!("{name} at least {n} IOPS")),
                None => {}
            }
        }
        format!(
            "{} per thread, checked every {} ms after a {} s settle; below it the thread fails and the run stops (fio fails that job alone)",
            parts.join(", "),
            self.cycle.as_millis(),
            SETTLE.as_secs()
        )
    }
}

/// One thread's check: where each direction stood at its last check.
pub struct MinRateCheck {
    rate: MinRate,
    /// No check before this (ns from the job's start).
    settled_at: u64,
    /// Per direction: (ms of the last check, bytes, operations then), once
    /// a baseline is taken.
    last: [Option<(u64, u64, u64)>; 2],
}

impl MinRateCheck {
    /// The check of a thread whose ramp ends at `ramp_ns`.
    pub fn new(rate: MinRate, ramp_ns: u64) -> MinRateCheck {
        MinRateCheck {
            rate,
            settled_at: ramp_ns.saturating_add(SETTLE.as_nanos() as u64),
            last: [None, None],
        }
    }

    /// After completions observed at `now_ns`, with the bytes and
    /// operations each direction has completed so far: the reason the
    /// thread fails, if one direction fell below its minimum.
    pub fn check(&mut self, now_ns: u64, done: [(u64, u64); 2]) -> Result<(), String> {
        if now_ns < self.settled_at {
            return Ok(());
        }
        let now_ms = now_ns / 1_000_000;
        for (d, (bytes, ops)) in done.into_iter().enumerate() {
            let Some(floor) = self.rate.floor[d] else {
                continue;
            };
            if bytes == 0 {
                continue;
            }
            if let Some((at_ms, last_bytes, last_ops)) = self.last[d] {
                let spent = now_ms.saturating_sub(at_ms);
                if spent == 0 || spent < self.rate.cycle.as_millis() as u64 {
                    continue;
                }
                match floor {
                    Floor::Bytes(min) => {
                        let got = (bytes - last_bytes) * 1000 / spent;
                        if got < min {
                            return Err(format!("rate_min={min}B/s not met, got {got}B/s"));
                        }
                    }
                    Floor::Ops(min) => {
                        let got = (ops - last_ops) * 1000 / spent;
                        if got < min {
                            return Err(format!("rate_iops_min={min} not met, got {got} IOPS"));
                        }
                    }
                }
            }
            self.last[d] = Some((now_ms, bytes, ops));
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const MS: u64 = 1_000_000;

    #[test]
    fn settles_then_takes_a_baseline_then_checks_each_cycle() {
        let rate = MinRate {
            floor: [None, Some(Floor::Bytes(1000))],
            cycle: Duration::from_millis(1000),
        };
        let mut c = MinRateCheck::new(rate, 0);
        // Nothing during the settle, however slow.
        assert!(c.check(1999 * MS, [(0, 0), (1, 1)]).is_ok());
        // The baseline at 2 s, then less than a cycle: no check.
        assert!(c.check(2000 * MS, [(0, 0), (100, 1)]).is_ok());
        assert!(c.check(2999 * MS, [(0, 0), (100, 1)]).is_ok());
        // 1000 bytes in 1 s meets 1000 B/s.
        assert!(c.check(3000 * MS, [(0, 0), (1100, 2)]).is_ok());
        // 999 bytes in the next second does not.
        let e = c.check(4000 * MS, [(0, 0), (2099, 3)]).unwrap_err();
        assert_eq!(e, "rate_min=1000B/s not met, got 999B/s");
    }

    #[test]
    fn iops_floor_and_ramp() {
        let rate = MinRate {
            floor: [Some(Floor::Ops(10)), None],
            cycle: Duration::from_millis(500),
        };
        // A 1 s ramp: the settle runs from its end.
        let mut c = MinRateCheck::new(rate, 1000 * MS);
        assert!(c.check(2500 * MS, [(4096, 1), (0, 0)]).is_ok());
        assert!(c.check(3000 * MS, [(4096, 1), (0, 0)]).is_ok(), "baseline");
        let e = c.check(3500 * MS, [(8192, 5), (0, 0)]).unwrap_err();
        assert_eq!(e, "rate_iops_min=10 not met, got 8 IOPS");
        assert!(rate
            .describe()
            .contains("reads at least 10 IOPS per thread"));
    }
}
