//! The tests of UnixBench 5.1's System Benchmarks Index: their names, units,
//! pass lengths and pass counts (from UnixBench's `Run` script) and the
//! baseline scores of its `pgms/index.base` (a SPARCstation 20-61,
//! "George", scores 10 on each test). Facts about UnixBench, no code of it.

use std::time::Duration;

/// How UnixBench turns a pass's count into a score.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Unit {
    /// Loops per second: the copies' counts summed over their mean time.
    Lps,
    /// Loops per minute (the shell tests).
    Lpm,
    /// Kilobytes per second, each copy a rate of its own, summed.
    Kbps,
    /// Millions of Whetstone instructions per second, each copy a rate, summed.
    Mwips,
}

impl Unit {
    /// The label UnixBench prints (`lps`, `lpm`, `KBps`, `MWIPS`).
    pub fn label(self) -> &'static str {
        match self {
            Unit::Lps => "lps",
            Unit::Lpm => "lpm",
            Unit::Kbps => "KBps",
            Unit::Mwips => "MWIPS",
        }
    }
}

/// One index test.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Test {
    /// UnixBench's short name (`dhry2reg`, `syscall`, `fstime`, ...).
    pub name: &'static str,
    /// The line UnixBench's report prints for it.
    pub title: &'static str,
    pub unit: Unit,
    /// The baseline score of index.base (index = score / baseline x 10).
    pub baseline: f64,
    /// One pass's measured time.
    pub pass: Duration,
    /// Passes: 10 for UnixBench's "long" tests, 3 for the others.
    pub passes: u32,
}

const fn test(
    name: &'static str,
    title: &'static str,
    unit: Unit,
    baseline: f64,
    pass_secs: u64,
    passes: u32,
) -> Test {
    Test {
        name,
        title,
        unit,
        baseline,
        pass: Duration::from_secs(pass_secs),
        passes,
    }
}

/// Every index test, in the order UnixBench's report lists them.
pub const TESTS: [Test; 12] = [
    test(
        "dhry2reg",
        "Dhrystone 2 using register variables",
        Unit::Lps,
        116700.0,
        10,
        10,
    ),
    test(
        "whetstone-double",
        "Double-Precision Whetstone",
        Unit::Mwips,
        55.0,
        10,
        10,
    ),
    test("execl", "Execl Throughput", Unit::Lps, 43.0, 30, 3),
    test(
        "fstime",
        "File Copy 1024 bufsize 2000 maxblocks",
        Unit::Kbps,
        3960.0,
        30,
        3,
    ),
    test(
        "fsbuffer",
        "File Copy 256 bufsize 500 maxblocks",
        Unit::Kbps,
        1655.0,
        30,
        3,
    ),
    test(
        "fsdisk",
        "File Copy 4096 bufsize 8000 maxblocks",
        Unit::Kbps,
        5800.0,
        30,
        3,
    ),
    test("pipe", "Pipe Throughput", Unit::Lps, 12440.0, 10, 10),
    test(
        "context1",
        "Pipe-based Context Switching",
        Unit::Lps,
        4000.0,
        10,
        10,
    ),
    test("spawn", "Process Creation", Unit::Lps, 126.0, 30, 3),
    test(
        "shell1",
        "Shell Scripts (1 concurrent)",
        Unit::Lpm,
        42.4,
        60,
        3,
    ),
    test(
        "shell8",
        "Shell Scripts (8 concurrent)",
        Unit::Lpm,
        6.0,
        60,
        3,
    ),
    test(
        "syscall",
        "System Call Overhead",
        Unit::Lps,
        15000.0,
        10,
        10,
    ),
];

/// The test of that name or title (case-insensitive).
pub fn find(name: &str) -> Option<&'static Test> {
    TESTS
        .iter()
        .find(|t| t.name.eq_ignore_ascii_case(name) || t.title.eq_ignore_ascii_case(name))
}

/// Seconds a full default run of `tests` takes with `copy_counts` (passes x pass length).
pub fn planned(tests: &[&Test], copy_counts: usize) -> Duration {
    tests.iter().map(|t| t.pass * t.passes).sum::<Duration>() * copy_counts as u32
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_are_unique_and_found() {
        for t in &TESTS {
            assert_eq!(find(t.name).unwrap().name, t.name);
            assert_eq!(find(t.title).unwrap().name, t.name);
        }
        assert!(find("hanoi").is_none());
    }

    #[test]
    fn a_full_run_measures_about_22_minutes_per_copy_count() {
        let all: Vec<&Test> = TESTS.iter().collect();
        let secs = planned(&all, 1).as_secs();
        assert_eq!(
            secs, 1310,
            "10 tests x 10 passes x 10 s, 30 s and 60 s tests x 3"
        );
    }
}
