//! CPU use over a measured interval: candor's own user and system time
//! (getrusage, all threads of this process) and the host's steal time (the
//! `cpu` line of /proc/stat). Take a sample before and after, then
//! `CpuSample::use_since`. Nothing here is specific to compute tests: the
//! disk engine may reuse it.
//!
//! Steal is time a vCPU was ready to run but the hypervisor ran someone else:
//! a compute figure measured under steal is partly the neighbours' figure.

use crate::result::CpuUse;
use std::time::Instant;

/// A point in time with the process's CPU times and the host's CPU counters.
#[derive(Debug, Clone)]
pub struct CpuSample {
    wall: Instant,
    usr_ns: u64,
    sys_ns: u64,
    /// (steal ticks, all ticks) from /proc/stat; None where it cannot be read.
    stat: Option<(u64, u64)>,
}

impl CpuSample {
    /// Samples now.
    pub fn now() -> CpuSample {
        let (usr_ns, sys_ns) = rusage_self();
        CpuSample {
            wall: Instant::now(),
            usr_ns,
            sys_ns,
            stat: std::fs::read_to_string("/proc/stat")
                .ok()
                .and_then(|t| parse_proc_stat(&t)),
        }
    }

    /// CPU use between `start` and this sample (percent of one CPU for candor,
    /// percent of all CPUs' time for steal).
    pub fn use_since(&self, start: &CpuSample) -> CpuUse {
        let wall_ns = self.wall.duration_since(start.wall).as_nanos().max(1) as f64;
        let usr = self.usr_ns.saturating_sub(start.usr_ns);
        let sys = self.sys_ns.saturating_sub(start.sys_ns);
        let steal_pct = match (start.stat, self.stat) {
            (Some((s0, t0)), Some((s1, t1))) if t1 > t0 => {
                s1.saturating_sub(s0) as f64 * 100.0 / (t1 - t0) as f64
            }
            _ => 0.0,
        };
        CpuUse {
            usr_pct: usr as f64 * 100.0 / wall_ns,
            sys_pct: sys as f64 * 100.0 / wall_ns,
            steal_pct,
            cpu_ns: usr + sys,
        }
    }
}

/// This process's user and system CPU time in ns (every thread, finished ones included).
fn rusage_self() -> (u64, u64) {
    // SAFETY: getrusage only writes into the zeroed struct we pass.
    let mut usage: libc::rusage = unsafe { std::mem::zeroed() };
    if unsafe { libc::getrusage(libc::RUSAGE_SELF, &mut usage) } != 0 {
        return (0, 0);
    }
    let ns = |tv: libc::timeval| tv.tv_sec as u64 * 1_000_000_000 + tv.tv_usec as u64 * 1_000;
    (ns(usage.ru_utime), ns(usage.ru_stime))
}

/// (steal, total) ticks from the aggregate `cpu` line of /proc/stat. Total is
/// user+nice+system+idle+iowait+irq+softirq+steal (guest time is already in user).
pub fn parse_proc_stat(text: &str) -> Option<(u64, u64)> {
    let line = text.lines().find(|l| l.starts_with("cpu "))?;
    let fields: Vec<u64> = line
        .split_whitespace()
        .skip(1)
        .take(8)
        .map(|f| f.parse().ok())
        .collect::<Option<Vec<u64>>>()?;
    if fields.len() < 4 {
        return None;
    }
    let steal = fields.get(7).copied().unwrap_or(0);
    Some((steal, fields.iter().sum()))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn proc_stat_line() {
        let text = "cpu  100 5 50 800 10 1 2 32 0 0\ncpu0 50 2 25 400 5 0 1 16 0 0\n";
        assert_eq!(parse_proc_stat(text), Some((32, 1000)));
        // Old kernels without a steal column: steal 0.
        assert_eq!(parse_proc_stat("cpu  1 2 3 4\n"), Some((0, 10)));
        assert_eq!(parse_proc_stat("intr 5\n"), None);
    }

    #[test]
    fn busy_loop_counts_as_user_time() {
        let start = CpuSample::now();
        let t = Instant::now();
        let mut x = 0u64;
        while t.elapsed().as_millis() < 200 {
            x = std::hint::black_box(x.wrapping_mul(31).wrapping_add(7));
        }
        let cpu = CpuSample::now().use_since(&start);
        // On a shared machine the thread may be descheduled, but never near zero.
        assert!(cpu.usr_pct > 20.0, "{cpu:?}");
        assert!(cpu.usr_pct < 150.0, "{cpu:?}");
        assert!(cpu.cpu_ns > 0);
    }
}
