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
pub fn collect() -> MemFacts {
    parse_meminfo(&std::fs::read_to_string("/proc/meminfo").unwrap_or_default())
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
