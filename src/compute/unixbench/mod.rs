//! UnixBench 5.1's System Benchmarks Index, measured by candor: each index
//! test as UnixBench defines it (`catalogue`: units, pass lengths, pass
//! counts, baselines), one pass as one copy runs it (`kernels`), each copy a
//! process of its own (`copy`), the copies started together (`copies`),
//! passes combined and indexed as UnixBench does (`score`). Dhrystone (`dhrystone`) and Whetstone (`whetstone`) are
//! rustc's code, not the host's gcc's: their notes say which compiler built
//! them. A test that cannot run here (the shell tests without /bin/sh or
//! its tools) is reported as not run, and the index then says it covers
//! fewer tests.
//!
//! Each test becomes one `ComputeMeasurement` per copy count, kind
//! `unixbench`: `spec.test` the UnixBench name, `spec.threads` the copies,
//! `spec.runtime_ns` one pass's length; `params` hold `title`, `unit`,
//! `score` (in `unit`), `baseline`, `index`, `pass_scores`, `passes_kept`,
//! `passes_dropped`; `ops_per_sec` (or `bytes_per_sec` for File Copy) is
//! the score per second.

pub mod catalogue;
#[cfg(unix)]
pub mod copies;
#[cfg(unix)]
pub mod copy;
#[cfg(unix)]
pub mod dhrystone;
pub mod execl;
pub mod html;
pub mod import;
#[cfg(unix)]
mod kernels;
#[cfg(unix)]
mod running;
#[cfg(windows)]
#[path = "running_windows.rs"]
mod running_windows;
pub mod score;
#[cfg(unix)]
pub mod whetstone;
#[cfg(unix)]
mod workdir;

/// The compiler that built candor, and so Dhrystone and Whetstone (build.rs).
pub const COMPILER: &str = env!("CANDOR_RUSTC");

/// How far candor's Dhrystone and Whetstone were from a UnixBench built by
/// gcc on candor's bench machine: bench/vs-unixbench.sh, BENCHMARKS.md
/// ("UnixBench's index"). Quoted by the measurements' notes and by the
/// unixbench-compiler finding.
pub const BENCH_GAP: &str = "on candor's 2-vCPU bench VM, 2026-12-04, candor's Dhrystone scored 0.69x and its Whetstone 0.92x of UnixBench 5.1 built there by gcc 12.2 -O3 -ffast-math -march=native, 1 copy (2 copies: 0.66x and 0.93x)";

/// What Process Creation's figure owes to the program that forks, on
/// candor's bench machine (bench/spawn-cost.sh, BENCHMARKS.md "UnixBench's
/// index"). Quoted by the spawn measurement's note.
pub const FORK_COST: &str = "on candor's 2-vCPU bench VM, 2026-12-05, 10 s passes: UnixBench's own spawn.c made 5,743 forks/s dynamically linked as its Makefile builds it, 7,402 built static (1.29x) and 6,535 with _exit in its child (1.14x); candor's static build 8,347 (1.45x) and its dynamic build 6,233 (1.09x)";

pub use catalogue::{Test, Unit, TESTS};
#[cfg(unix)]
pub use kernels::shell_input;
#[cfg(unix)]
pub use running::{pass_score, run};
#[cfg(windows)]
pub use running_windows::run;

use crate::result::ComputeMeasurement;
use std::path::PathBuf;
use std::time::Duration;

/// What `candor unixbench` asked for.
#[derive(Debug, Clone, PartialEq)]
pub struct UnixbenchRequest {
    /// Copy counts, in order (UnixBench: 1, then one per CPU).
    pub copies: Vec<u32>,
    /// The tests to run, in UnixBench's order.
    pub tests: Vec<&'static Test>,
    /// One pass's length for every test, in place of UnixBench's.
    pub pass: Option<Duration>,
    /// UnixBench's `-i N`: N passes for its long tests, (N+1)/3 for the others.
    pub iterations: Option<u32>,
    /// Where File Copy and Shell Scripts make their work directory.
    pub dir: PathBuf,
}

impl UnixbenchRequest {
    /// `--copies`: a positive number or `all`; None: 1 then all (once on 1 CPU).
    pub fn parse_copies(text: Option<&str>) -> anyhow::Result<Vec<u32>> {
        let all = crate::compute::online_cpus();
        let Some(t) = text.map(str::trim) else {
            return Ok(if all > 1 { vec![1, all] } else { vec![1] });
        };
        if t.eq_ignore_ascii_case("all") {
            return Ok(vec![all]);
        }
        match t.parse::<u32>() {
            Ok(n) if (1..=1024).contains(&n) => Ok(vec![n]),
            Ok(n) => Err(crate::error::usage(format!(
                "--copies {n} is not from 1 to 1024"
            ))),
            Err(_) => Err(crate::error::usage(format!(
                "--copies '{t}' is not a number or 'all'"
            ))),
        }
    }

    /// `--only`: UnixBench test names, kept in UnixBench's order.
    pub fn parse_only(text: Option<&str>) -> anyhow::Result<Vec<&'static Test>> {
        let Some(t) = text else {
            return Ok(catalogue::TESTS.iter().collect());
        };
        let mut wanted = Vec::new();
        for name in t.split(',').map(str::trim) {
            let test = catalogue::find(name).ok_or_else(|| {
                crate::error::usage(format!(
                    "--only: unknown test '{name}' (see candor unixbench --help)"
                ))
            })?;
            wanted.push(test.name);
        }
        Ok(catalogue::TESTS
            .iter()
            .filter(|t| wanted.contains(&t.name))
            .collect())
    }

    /// Passes of `test` (UnixBench's rule for `-i`).
    pub fn passes(&self, test: &Test) -> u32 {
        match self.iterations {
            None => test.passes,
            Some(n) if test.passes == 10 => n.max(1),
            Some(n) => ((n + 1) / 3).max(1),
        }
    }

    pub fn pass(&self, test: &Test) -> Duration {
        self.pass.unwrap_or(test.pass)
    }

    /// The whole run's measured time.
    pub fn planned(&self) -> Duration {
        let per_copy: Duration = self
            .tests
            .iter()
            .map(|t| self.pass(t) * self.passes(t))
            .sum();
        per_copy * self.copies.len() as u32
    }
}

/// What the battery's `unixbench` group runs (the `full` preset): every
/// index test as UnixBench defines it (its pass lengths and counts, or
/// passes of `pass`: `candor run --compute-runtime`), 1 copy and one per
/// CPU, File Copy and Shell Scripts in the test directory.
pub fn battery_options(dir: &str, pass: Option<Duration>) -> UnixbenchRequest {
    let all = crate::compute::online_cpus();
    UnixbenchRequest {
        copies: if all > 1 { vec![1, all] } else { vec![1] },
        tests: TESTS.iter().collect(),
        pass,
        iterations: None,
        dir: PathBuf::from(dir),
    }
}

/// A test candor cannot run here, and why.
#[derive(Debug, Clone, PartialEq)]
pub struct NotRun {
    pub test: &'static Test,
    pub cause: String,
}

/// A Run's UnixBench measurements and their copy counts, in order: what
/// every reader of the index (reports, compare, history) starts from.
pub fn measurements_of(run: &crate::result::Run) -> (Vec<&ComputeMeasurement>, Vec<u32>) {
    let ms: Vec<&ComputeMeasurement> = run
        .measurements
        .iter()
        .filter(|m| m.kind() == "unixbench")
        .filter_map(|m| m.as_compute())
        .collect();
    let mut copies: Vec<u32> = ms.iter().map(|m| m.spec.threads).collect();
    copies.sort_unstable();
    copies.dedup();
    (ms, copies)
}

/// Whether `name` is one of the tests whose figure is the compiler's code
/// as much as the CPU (Dhrystone and Whetstone).
pub fn is_compiler_bound(name: &str) -> bool {
    matches!(name, "dhry2reg" | "whetstone-double")
}

/// A score as the Run's rates: (operations per second, bytes per second).
/// Loops per minute become per second; File Copy's KBps become bytes.
pub fn rates(unit: Unit, score: f64) -> (Option<f64>, Option<f64>) {
    match unit {
        Unit::Kbps => (None, Some(score * 1024.0)),
        Unit::Lpm => (Some(score / 60.0), None),
        Unit::Lps | Unit::Mwips => (Some(score), None),
    }
}

/// The tests a Run could not run, as `[{"test", "cause"}]`: kept in the
/// plan by `candor unixbench` (`not_run`) and by the battery (`unixbench_not_run`).
pub fn not_run_of(run: &crate::result::Run) -> Option<&Vec<serde_json::Value>> {
    let plan = run.plan.as_ref()?;
    let list = if plan.get("group").and_then(|g| g.as_str()) == Some("unixbench") {
        plan.get("not_run")
    } else {
        plan.get("unixbench_not_run")
    };
    list?.as_array()
}

/// A measurement's score, unit and index, as `measure` stored them.
pub fn score_of(m: &ComputeMeasurement) -> Option<(f64, &str, f64)> {
    let p = &m.spec.params;
    Some((
        p.get("score")?.as_f64()?,
        p.get("unit")?.as_str()?,
        p.get("index")?.as_f64()?,
    ))
}

/// The System Benchmarks Index of the measurements with `copies` copies.
pub fn index_of(measurements: &[&ComputeMeasurement], copies: u32) -> Option<f64> {
    let idx: Vec<f64> = measurements
        .iter()
        .filter(|m| m.spec.threads == copies)
        .filter_map(|m| score_of(m).map(|s| s.2))
        .collect();
    score::overall_index(&idx)
}

#[cfg(test)]
mod tests {
    #[cfg(unix)]
    use super::kernels::CopyCount;
    use super::*;

    // The kernels, the scores of copies and the shell's input are Unix's
    // (running.rs, kernels.rs): UnixBench has no Windows meaning.
    #[cfg(unix)]
    fn c(count: f64, secs: f64) -> CopyCount {
        CopyCount {
            count,
            elapsed: Duration::from_secs_f64(secs),
        }
    }

    #[cfg(unix)]
    #[test]
    fn copies_combine_as_unixbench_sums_them() {
        // loops: summed over the mean time
        assert_eq!(
            pass_score(Unit::Lps, &[c(100.0, 1.0), c(300.0, 3.0)]),
            200.0
        );
        assert_eq!(pass_score(Unit::Lpm, &[c(10.0, 60.0)]), 10.0);
        // rates: summed
        assert_eq!(
            pass_score(Unit::Kbps, &[c(100.0, 1.0), c(300.0, 3.0)]),
            400.0
        );
    }

    #[test]
    fn iterations_follow_unixbench_dash_i() {
        let o = UnixbenchRequest {
            copies: vec![1],
            tests: TESTS.iter().collect(),
            pass: None,
            iterations: Some(4),
            dir: PathBuf::from("."),
        };
        assert_eq!(o.passes(catalogue::find("syscall").unwrap()), 4);
        assert_eq!(o.passes(catalogue::find("execl").unwrap()), 1);
    }

    #[cfg(unix)]
    #[test]
    fn syscall_and_spawn_count_something() {
        let p = Duration::from_millis(50);
        for k in [
            kernels::syscall as fn(Duration) -> anyhow::Result<CopyCount>,
            kernels::pipe,
            kernels::context1,
            kernels::spawn,
        ] {
            let r = k(p).unwrap();
            assert!(r.count >= 1.0 && r.elapsed >= p, "{r:?}");
        }
    }

    #[cfg(unix)]
    #[test]
    fn shell_input_is_shaped_like_unixbenchs_sort_src() {
        let s = shell_input();
        assert_eq!(s.len(), 8546);
        let text = String::from_utf8(s).unwrap();
        let lines: Vec<&str> = text.lines().collect();
        assert_eq!(lines.len(), 362);
        assert!(lines.iter().all(|l| l.len() <= 82));
        let mut lengths: Vec<usize> = lines.iter().map(|l| l.len()).collect();
        lengths.sort_unstable();
        // Quartiles near sort.src's 6, 18 and 35 bytes.
        let (q1, q2, q3) = (lengths[90], lengths[181], lengths[271]);
        assert!(
            (3..=9).contains(&q1) && (14..=22).contains(&q2) && (30..=40).contains(&q3),
            "{q1} {q2} {q3}"
        );
        let with_the = lines.iter().filter(|l| l.contains("the")).count();
        assert!((25..=50).contains(&with_the), "{with_the}");
        let mut distinct = lines.clone();
        distinct.sort_unstable();
        distinct.dedup();
        assert!((230..=320).contains(&distinct.len()), "{}", distinct.len());
    }
}

#[cfg(test)]
mod parse_tests {
    use super::*;

    #[test]
    fn copies_flag() {
        assert_eq!(UnixbenchRequest::parse_copies(Some("2")).unwrap(), vec![2]);
        assert_eq!(
            UnixbenchRequest::parse_copies(Some("all")).unwrap(),
            vec![crate::compute::online_cpus()]
        );
        assert_eq!(UnixbenchRequest::parse_copies(None).unwrap()[0], 1);
        for bad in ["0", "x", "", "5000"] {
            assert!(
                crate::error::is_usage(&UnixbenchRequest::parse_copies(Some(bad)).unwrap_err()),
                "{bad}"
            );
        }
    }

    #[test]
    fn only_flag_keeps_unixbench_order() {
        let t = UnixbenchRequest::parse_only(Some("syscall, pipe")).unwrap();
        assert_eq!(
            t.iter().map(|t| t.name).collect::<Vec<_>>(),
            ["pipe", "syscall"]
        );
        assert!(crate::error::is_usage(
            &UnixbenchRequest::parse_only(Some("hanoi")).unwrap_err()
        ));
        assert_eq!(UnixbenchRequest::parse_only(None).unwrap().len(), 12);
    }
}
