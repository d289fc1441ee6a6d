//! How the disk engine's threads wait: an I/O thread for the job's common
//! start instant, and any of them until a point of the job's timeline (ns
//! from that start). [`sleep_until`] is the engine's one sleep on the
//! timeline: the job's driver through the ramp and the measured interval
//! (`settle.rs`, `mod.rs`), a worker through fio's thinktime or until a
//! rated operation is due (`worker.rs`).

use std::sync::OnceLock;
use std::time::{Duration, Instant};

/// Waits for the common start: spinning first (the main thread sets it just
/// after the barrier), then sleeping in short steps, so that threads kept
/// waiting for other jobs to be ready do not take their CPU.
pub(crate) fn wait_for_start(start: &OnceLock<Instant>) -> Instant {
    let mut spins = 0u32;
    loop {
        if let Some(t) = start.get() {
            return *t;
        }
        if spins < 20_000 {
            spins += 1;
            std::hint::spin_loop();
        } else {
            std::thread::sleep(Duration::from_micros(50));
        }
    }
}

/// Sleeps until `deadline_ns` after `t0` (no end for `u64::MAX`) in steps
/// of at most 20 ms, returning early as soon as `early()` says so; `early`
/// is asked before each step, after the deadline. The one sleep of the
/// disk engine: a job's driver wakes when every thread has finished (and
/// watches for another job's failure on each step), a worker waiting for a
/// rated operation when it is told to stop or a signal came.
pub(crate) fn sleep_until(t0: Instant, deadline_ns: u64, mut early: impl FnMut() -> bool) {
    loop {
        let now = t0.elapsed().as_nanos() as u64;
        if now >= deadline_ns || early() {
            return;
        }
        std::thread::sleep(Duration::from_nanos((deadline_ns - now).min(20_000_000)));
    }
}
