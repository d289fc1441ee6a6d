//! CPU steal time: the share of time the hypervisor ran someone else while
//! this guest's vCPUs wanted to run. Read from the aggregate `cpu` line of
//! /proc/stat before and after an interval; above a few percent the
//! measurement competed with neighbours.

/// The aggregate CPU counters of /proc/stat, in USER_HZ ticks.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct CpuTimes {
    /// user + nice + system + idle + iowait + irq + softirq + steal
    /// (guest time is already counted inside user and nice).
    pub total: u64,
    pub steal: u64,
}

/// Parses the first `cpu ` line of /proc/stat.
pub fn parse_proc_stat(text: &str) -> Option<CpuTimes> {
    let line = text.lines().find(|l| l.starts_with("cpu "))?;
    let fields: Vec<u64> = line
        .split_whitespace()
        .skip(1)
        .map(|f| f.parse().ok())
        .collect::<Option<Vec<u64>>>()?;
    if fields.len() < 4 {
        return None;
    }
    let steal = fields.get(7).copied().unwrap_or(0);
    let total = fields.iter().take(8).sum();
    Some(CpuTimes { total, steal })
}

/// Reads /proc/stat now.
pub fn read_now() -> Option<CpuTimes> {
    parse_proc_stat(&std::fs::read_to_string("/proc/stat").ok()?)
}

/// Steal between two readings, as a percentage of all CPUs' time; None when
/// no time passed (the counters tick at USER_HZ, 100 per second per CPU).
pub fn steal_pct(before: CpuTimes, after: CpuTimes) -> Option<f64> {
    let total = after.total.checked_sub(before.total)?;
    let steal = after.steal.checked_sub(before.steal)?;
    (total > 0).then(|| steal as f64 * 100.0 / total as f64)
}

/// Measures steal over an interval: `start()`, then `finish()`.
#[derive(Debug, Clone, Copy)]
pub struct StealSampler {
    start: Option<CpuTimes>,
}

impl StealSampler {
    pub fn start() -> StealSampler {
        StealSampler { start: read_now() }
    }

    /// Steal since `start()`, in percent; None when it could not be read.
    pub fn finish(&self) -> Option<f64> {
        steal_pct(self.start?, read_now()?)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parse_and_percent() {
        let a = parse_proc_stat("cpu  18641 0 6174 33368 396 0 34 23 0 0\ncpu0 1 2 3 4\n").unwrap();
        assert_eq!(
            a,
            CpuTimes {
                total: 18641 + 6174 + 33368 + 396 + 34 + 23,
                steal: 23
            }
        );
        let b = CpuTimes {
            total: a.total + 1000,
            steal: a.steal + 50,
        };
        assert_eq!(steal_pct(a, b), Some(5.0));
        assert_eq!(steal_pct(a, a), None);
        // Old kernels without the steal column.
        assert_eq!(parse_proc_stat("cpu 1 2 3 4\n").unwrap().steal, 0);
        assert_eq!(parse_proc_stat("intr 1 2\n"), None);
    }

    #[test]
    fn sampler_reads_this_machine() {
        let s = StealSampler::start();
        std::thread::sleep(std::time::Duration::from_millis(30));
        let pct = s.finish().unwrap_or(0.0);
        assert!((0.0..=100.0).contains(&pct));
    }
}
