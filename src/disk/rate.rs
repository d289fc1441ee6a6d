//! Rate limits per thread (fio's `rate`, `rate_iops`, `rate_process`):
//! each direction keeps the time its next operation is due, advanced by
//! the operation's bytes over the rate (evenly spaced, fio's `linear`), or
//! by an exponential gap with that mean (a Poisson process). A thread that
//! falls behind catches up at full speed, as fio's does; the schedule is
//! kept from the job's start, so sleeping late does not lower the rate.

use super::buffer::Payload;
use super::job::JobSpec;

pub struct Limiter {
    /// Nanoseconds per byte for reads and writes (0: no limit).
    ns_per_byte: [f64; 2],
    /// When the next read and write may be issued (ns from the start).
    due: [f64; 2],
    poisson: bool,
}

impl Limiter {
    /// The limiter of a job, if it has a rate.
    pub fn of(job: &JobSpec) -> Option<Limiter> {
        if job.rate.iter().all(|r| r.unwrap_or(0) == 0) {
            return None;
        }
        let per = |r: Option<u64>| r.filter(|r| *r > 0).map_or(0.0, |r| 1e9 / r as f64);
        Some(Limiter {
            ns_per_byte: [per(job.rate[0]), per(job.rate[1])],
            due: [0.0; 2],
            poisson: job.rate_poisson,
        })
    }

    /// When an operation in this direction may be issued (ns from the start).
    #[inline]
    pub fn due(&self, write: bool) -> u64 {
        self.due[usize::from(write)] as u64
    }

    /// Books an operation of `len` bytes in this direction.
    #[inline]
    pub fn book(&mut self, write: bool, len: u32, rng: &mut Payload) {
        let d = usize::from(write);
        let gap = f64::from(len) * self.ns_per_byte[d];
        self.due[d] += if self.poisson && gap > 0.0 {
            // 1 - u is in (0, 1]: the logarithm is finite.
            let u = (rng.next_u64() >> 11) as f64 / (1u64 << 53) as f64;
            -gap * (1.0 - u).ln()
        } else {
            gap
        };
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::result::Rw;

    #[test]
    fn linear_and_poisson_keep_the_mean() {
        let mut job = JobSpec::new(Rw::Randrw, 4096, 1);
        assert!(Limiter::of(&job).is_none());
        job.rate = [Some(4096 * 1000), None];
        let mut rng = Payload::new(3);
        let mut l = Limiter::of(&job).unwrap();
        for _ in 0..1000 {
            l.book(false, 4096, &mut rng);
            l.book(true, 4096, &mut rng);
        }
        assert_eq!(
            l.due(false),
            1_000_000_000,
            "1000 reads at 1000/s: one second"
        );
        assert_eq!(l.due(true), 0, "writes are not limited");
        job.rate_poisson = true;
        let mut l = Limiter::of(&job).unwrap();
        for _ in 0..100_000 {
            l.book(false, 4096, &mut rng);
        }
        let secs = l.due(false) as f64 / 1e9;
        assert!((secs - 100.0).abs() < 2.0, "{secs}");
    }
}
