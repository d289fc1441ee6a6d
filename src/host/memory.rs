//! RAM and swap from /proc/meminfo. The control file's size is derived from
//! MemTotal (a file larger than twice the RAM cannot sit in the guest's page
//! cache), so this must be the kernel's figure, not a cgroup limit.

/// What /proc/meminfo says, in bytes.
#[derive(Debug, Default, Clone, Copy, PartialEq, Eq)]
pub struct MemFacts {
    pub total: Option<u64>,
    pub available: Option<u64>,
    pub swap_total: Option<u64>,
}

/// Reads this machine's memory facts.
#[cfg(unix)]
pub fn collect() -> MemFacts {
    parse_meminfo(&std::fs::read_to_string("/proc/meminfo").unwrap_or_default())
}

/// Reads this machine's memory facts (GlobalMemoryStatusEx; swap is not
/// told apart from the page file's commit limit there: not read).
#[cfg(windows)]
pub fn collect() -> MemFacts {
    let m = super::system::memory_status();
    MemFacts {
        total: m.map(|m| m.ullTotalPhys),
        available: m.map(|m| m.ullAvailPhys),
        swap_total: None,
    }
}

/// Memory this process can still take: MemAvailable, or less where its
/// memory cgroup (v1 or v2) leaves less room under its limit. None if unknown.
pub fn available_bytes() -> Option<u64> {
    let host = collect().available;
    let cgroup = cgroup_room();
    match (host, cgroup) {
        (Some(h), Some(c)) => Some(h.min(c)),
        (h, c) => h.or(c),
    }
}

/// limit - usage of this process's memory cgroup, when it has a limit.
fn cgroup_room() -> Option<u64> {
    let text = std::fs::read_to_string("/proc/self/cgroup").ok()?;
    for line in text.lines() {
        let mut parts = line.splitn(3, ':');
        let (_, controllers, path) = (parts.next()?, parts.next()?, parts.next()?);
        let read =
            |f: &str| -> Option<u64> { std::fs::read_to_string(f).ok()?.trim().parse().ok() };
        if controllers.split(',').any(|c| c == "memory") {
            let dir = format!("/sys/fs/cgroup/memory{path}");
            let limit = read(&format!("{dir}/memory.limit_in_bytes"))?;
            let usage = read(&format!("{dir}/memory.usage_in_bytes")).unwrap_or(0);
            // v1 reports "no limit" as a huge number near i64::MAX.
            return (limit < 1 << 60).then(|| limit.saturating_sub(usage));
        }
        if controllers.is_empty() {
            let dir = format!("/sys/fs/cgroup{path}");
            if let Some(limit) = read(&format!("{dir}/memory.max")) {
                let usage = read(&format!("{dir}/memory.current")).unwrap_or(0);
                return Some(limit.saturating_sub(usage));
            }
        }
    }
    None
}

/// Parses /proc/meminfo (`MemTotal:  24684084 kB` lines; kB means KiB).
pub fn parse_meminfo(text: &str) -> MemFacts {
    let mut facts = MemFacts::default();
    for line in text.lines() {
        let Some((key, rest)) = line.split_once(':') else {
            continue;
        };
        let mut words = rest.split_whitespace();
        let Some(Ok(number)) = words.next().map(str::parse::<u64>) else {
            continue;
        };
        let bytes = match words.next() {
            Some("kB") => number.checked_mul(1024),
            None => Some(number),
            Some(_) => None,
        };
        match key.trim() {
            "MemTotal" => facts.total = bytes,
            "MemAvailable" => facts.available = bytes,
            "SwapTotal" => facts.swap_total = bytes,
            _ => {}
        }
    }
    facts
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn meminfo() {
        let text = "MemTotal:       24684084 kB\nMemFree:        19731700 kB\n\
                    MemAvailable:   24232848 kB\nBuffers:          123 kB\nSwapTotal:             0 kB\n\
                    HugePages_Total:       0\n";
        let m = parse_meminfo(text);
        assert_eq!(m.total, Some(24684084 * 1024));
        assert_eq!(m.available, Some(24232848 * 1024));
        assert_eq!(m.swap_total, Some(0));
        assert_eq!(parse_meminfo("garbage\n"), MemFacts::default());
    }
}
