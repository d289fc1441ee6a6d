//! candor's own CPU time (getrusage) and the host's steal time (/proc/stat)
//! over an interval, and the time a thread waited for a CPU (schedstat).

use crate::result::CpuUse;
use std::time::Instant;

/// A point in time to measure CPU use from.
#[derive(Debug, Clone, Copy)]
pub struct CpuSnapshot {
    at: Instant,
    user_ns: u64,
    sys_ns: u64,
    /// (steal, total) jiffies of all CPUs, when /proc/stat is readable.
    stat: Option<(u64, u64)>,
}

impl CpuSnapshot {
    pub fn now() -> CpuSnapshot {
        let (user_ns, sys_ns) = super::platform::process_cpu();
        CpuSnapshot {
            at: Instant::now(),
            user_ns,
            sys_ns,
            stat: read_proc_stat(),
        }
    }

    /// CPU use between `self` and a later snapshot.
    pub fn until(&self, later: &CpuSnapshot) -> CpuUse {
        let wall = later.at.duration_since(self.at).as_nanos().max(1) as f64;
        let user = later.user_ns.saturating_sub(self.user_ns);
        let sys = later.sys_ns.saturating_sub(self.sys_ns);
        let steal_pct = match (self.stat, later.stat) {
            (Some((s0, t0)), Some((s1, t1))) if t1 > t0 => {
                100.0 * s1.saturating_sub(s0) as f64 / (t1 - t0) as f64
            }
            _ => 0.0,
        };
        CpuUse {
            usr_pct: 100.0 * user as f64 / wall,
            sys_pct: 100.0 * sys as f64 / wall,
            steal_pct,
            cpu_ns: user + sys,
            run_wait_ns: None,
        }
    }
}

/// (steal, total) jiffies from the aggregate `cpu` line of /proc/stat.
fn read_proc_stat() -> Option<(u64, u64)> {
    let text = std::fs::read_to_string("/proc/stat").ok()?;
    parse_proc_stat(&text)
}

/// Parses the `cpu` line: user nice system idle iowait irq softirq steal
/// guest guest_nice. guest time is already inside user, so the total is the
/// first eight fields.
pub fn parse_proc_stat(text: &str) -> Option<(u64, u64)> {
    let line = text.lines().find(|l| l.starts_with("cpu "))?;
    let fields: Vec<u64> = line
        .split_whitespace()
        .skip(1)
        .take(8)
        .filter_map(|f| f.parse().ok())
        .collect();
    if fields.len() < 8 {
        return None;
    }
    Some((fields[7], fields.iter().sum()))
}

/// The calling thread's time spent runnable but waiting for a CPU (ns,
/// since it started): the second field of /proc/thread-self/schedstat. Its
/// growth over an I/O thread's measured interval is what other processes
/// or a starved vCPU took from it. None without schedstats (a kernel built
/// without CONFIG_SCHED_INFO, or /proc not mounted).
pub fn thread_run_wait_ns() -> Option<u64> {
    parse_schedstat(&std::fs::read_to_string("/proc/thread-self/schedstat").ok()?)
}

/// `time-on-cpu run-delay timeslices` (Documentation/scheduler/sched-stats.rst).
pub fn parse_schedstat(text: &str) -> Option<u64> {
    let mut fields = text.split_whitespace();
    fields.next()?.parse::<u64>().ok()?;
    fields.next()?.parse().ok()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_run_delay() {
        assert_eq!(parse_schedstat("200308 3000962 2\n"), Some(3_000_962));
        assert_eq!(parse_schedstat("200308\n"), None);
        assert_eq!(parse_schedstat(""), None);
        // This kernel's own file, for the calling thread.
        if std::path::Path::new("/proc/thread-self/schedstat").exists() {
            assert!(thread_run_wait_ns().is_some());
        }
    }

    #[test]
    fn parses_steal() {
        let text = "cpu  100 0 50 800 10 0 5 35 0 0\ncpu0 1 2 3 4 5 6 7 8 0 0\n";
        assert_eq!(parse_proc_stat(text), Some((35, 1000)));
        assert_eq!(parse_proc_stat("cpu 1 2\n"), None);
    }

    #[test]
    fn snapshot_measures_own_cpu() {
        // Spin until 30 ms of CPU time were ours (however busy the machine
        // is), then check that the snapshots saw them.
        let a = CpuSnapshot::now();
        let t = Instant::now();
        let mut x = 0u64;
        loop {
            for _ in 0..100_000 {
                x = std::hint::black_box(x.wrapping_add(1));
            }
            let u = a.until(&CpuSnapshot::now());
            if u.cpu_ns >= 30_000_000 || t.elapsed().as_secs() > 10 {
                break;
            }
        }
        let u = a.until(&CpuSnapshot::now());
        assert!(u.cpu_ns >= 30_000_000, "{u:?}");
        assert!(u.usr_pct > 0.0, "{u:?}");
    }
}
