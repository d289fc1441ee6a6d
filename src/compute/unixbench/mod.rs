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
pub mod copies;
pub mod copy;
pub mod dhrystone;
pub mod execl;
pub mod html;
pub mod import;
mod kernels;
pub mod score;
pub mod whetstone;
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
pub use kernels::shell_input;

use crate::result::{ComputeMeasurement, ComputeSpec, CpuUse};
use kernels::CopyCount;
use std::path::PathBuf;
use std::time::Duration;
use workdir::WorkDir;

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

/// Runs the tests with each copy count; the measurements and the tests not run.
pub fn run(options: &UnixbenchRequest) -> anyhow::Result<(Vec<ComputeMeasurement>, Vec<NotRun>)> {
    let mut not_run = Vec::new();
    let mut runnable = Vec::new();
    for &test in &options.tests {
        match cannot_run(test) {
            Some(cause) => not_run.push(NotRun { test, cause }),
            None => runnable.push(test),
        }
    }
    let needs_dir = runnable
        .iter()
        .any(|t| t.name.starts_with("fs") || t.name.starts_with("shell"));
    let dir = if needs_dir {
        Some(WorkDir::create(&options.dir)?)
    } else {
        None
    };
    if let Some(d) = &dir {
        if runnable.iter().any(|t| t.name.starts_with("shell")) {
            kernels::shell_files(d)?;
        }
    }
    let mut out = Vec::new();
    for &copies in &options.copies {
        for &test in &runnable {
            crate::cancel::check()?;
            out.push(measure(test, copies, options, dir.as_ref())?);
        }
    }
    Ok((out, not_run))
}

/// Why `test` cannot run on this host, if it cannot.
fn cannot_run(test: &Test) -> Option<String> {
    match test.name {
        "shell1" | "shell8" => {
            if !std::path::Path::new("/bin/sh").exists() {
                return Some("/bin/sh is missing".into());
            }
            let missing: Vec<&str> = kernels::SHELL_TOOLS
                .into_iter()
                .filter(|t| !kernels::on_path(t))
                .collect();
            (!missing.is_empty()).then(|| format!("not on PATH: {}", missing.join(", ")))
        }
        _ => None,
    }
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

/// A pass's score from its copies, as UnixBench's Run sums them: loops are
/// summed and divided by the copies' mean time; rates are summed.
pub fn pass_score(unit: Unit, copies: &[CopyCount]) -> f64 {
    let sum: f64 = copies.iter().map(|c| c.count).sum();
    let mean_secs =
        copies.iter().map(|c| c.elapsed.as_secs_f64()).sum::<f64>() / copies.len().max(1) as f64;
    match unit {
        Unit::Lps => sum / mean_secs.max(1e-9),
        Unit::Lpm => sum / (mean_secs.max(1e-9) / 60.0),
        Unit::Kbps | Unit::Mwips => sum,
    }
}

fn measure(
    test: &'static Test,
    copies: u32,
    options: &UnixbenchRequest,
    dir: Option<&WorkDir>,
) -> anyhow::Result<ComputeMeasurement> {
    let pass = options.pass(test);
    let started_at = crate::units::now_rfc3339();
    let before = crate::disk::cpu_usage::CpuSnapshot::now();
    let children_before = ChildrenUse::now();
    let wall = std::time::Instant::now();
    let mut scores = Vec::new();
    let mut measured = Duration::ZERO;
    let mut counted = 0.0;
    // Each copy's score in each pass, by copy (for thread-imbalance).
    let mut per_copy = vec![Vec::new(); copies as usize];
    for _ in 0..options.passes(test) {
        let counts = copies::one_pass(test, copies, pass, dir)
            .map_err(|e| e.context(format!("{} ({copies} copies)", test.title)))?;
        measured += counts.iter().map(|c| c.elapsed).max().unwrap_or_default();
        counted += counts.iter().map(|c| c.count).sum::<f64>();
        scores.push(pass_score(test.unit, &counts));
        for (scores, c) in per_copy.iter_mut().zip(&counts) {
            scores.push(pass_score(test.unit, std::slice::from_ref(c)));
        }
    }
    let children = ChildrenUse::now().since(&children_before);
    let mut cpu: CpuUse = before.until(&crate::disk::cpu_usage::CpuSnapshot::now());
    children.add_to(&mut cpu, wall.elapsed());
    let combined = score::combine(&scores)
        .ok_or_else(|| anyhow::anyhow!("{}: no pass gave a positive score", test.title))?;
    let index = score::test_index(test, combined.score);
    let mut params = std::collections::BTreeMap::new();
    params.insert("title".into(), test.title.into());
    params.insert("unit".into(), test.unit.label().into());
    params.insert("score".into(), combined.score.into());
    params.insert("baseline".into(), test.baseline.into());
    params.insert("index".into(), index.into());
    params.insert("pass_scores".into(), scores.clone().into());
    params.insert("passes_kept".into(), (combined.kept as u64).into());
    params.insert("passes_dropped".into(), (combined.dropped as u64).into());
    if test.name.starts_with("shell") {
        params.insert("sh".into(), shell_program().into());
        params.insert("tools".into(), sort_version().into());
        params.insert("locale".into(), kernels::shell_locale().into());
    }
    let mut notes = vec![format!(
        "{} passes of {}, the lowest {} dropped, the rest by geometric mean (UnixBench's rule); each copy is a process of its own (candor re-executed), the copies started together",
        scores.len(),
        crate::units::fmt_duration(pass),
        combined.dropped
    )];
    if test.name == "execl" {
        let binary = execl::ExeclBinary::own();
        let faults = children.minor_faults as f64 / counted.max(1.0);
        params.insert("binary".into(), binary.path.display().to_string().into());
        params.insert("binary_bytes".into(), binary.file_bytes.into());
        params.insert("mapped_bytes".into(), binary.mapped_bytes.into());
        params.insert(
            "shared_libraries".into(),
            binary.shared_libraries.clone().into(),
        );
        params.insert("faults_per_exec".into(), faults.into());
        notes.push(binary.note(faults));
    }
    if test.name == "spawn" {
        let linking = execl::ExeclBinary::own().linking();
        notes.push(format!(
            "Process Creation forks candor's own copy process ({linking}), whose child leaves at once with _exit, where UnixBench forks its small C program (dynamically linked as its Makefile builds it), whose child calls exit(): how the forking program is linked and how its child leaves move the figure ({FORK_COST})"
        ));
        params.insert("linking".into(), linking.into());
    }
    if is_compiler_bound(test.name) {
        params.insert("compiler".into(), COMPILER.into());
        notes.push(format!(
            "{} is compiled by candor's compiler ({COMPILER}), not the host's gcc: it measures the compiler as much as the CPU and is not the figure of a UnixBench built on this host ({BENCH_GAP}; see `candor explain unixbench-compiler`)",
            test.title
        ));
    }
    if copies > crate::compute::online_cpus() {
        notes.push(format!(
            "{copies} copies on {} CPUs",
            crate::compute::online_cpus()
        ));
    }
    let (ops, bytes) = rates(test.unit, combined.score);
    // Each copy's mean score over the passes, in the measurement's rate.
    let per_thread = per_copy
        .iter()
        .map(|s| {
            let mean = s.iter().sum::<f64>() / s.len().max(1) as f64;
            let (ops, bytes) = rates(test.unit, mean);
            ops.or(bytes).unwrap_or(0.0)
        })
        .collect();
    Ok(ComputeMeasurement {
        pass: None,
        started_at: Some(started_at),
        spec: ComputeSpec {
            test: test.name.into(),
            threads: copies,
            runtime_ns: pass.as_nanos() as u64,
            params,
        },
        events_per_sec: None,
        bytes_per_sec: bytes,
        ops_per_sec: ops,
        per_thread,
        measured_ns: measured.as_nanos() as u64,
        cpu,
        notes,
    })
}

/// CPU time and page faults of this process's children that it has
/// reaped (the copies, and through them all they waited for: the execl
/// chain, the shells, the forks), which getrusage(RUSAGE_SELF) leaves out.
#[derive(Debug, Clone, Copy, Default)]
struct ChildrenUse {
    user_ns: u64,
    sys_ns: u64,
    minor_faults: u64,
}

impl ChildrenUse {
    fn now() -> ChildrenUse {
        // SAFETY: rusage is plain data that getrusage fills.
        let mut ru: libc::rusage = unsafe { std::mem::zeroed() };
        unsafe { libc::getrusage(libc::RUSAGE_CHILDREN, &mut ru) };
        let ns = |tv: libc::timeval| tv.tv_sec as u64 * 1_000_000_000 + tv.tv_usec as u64 * 1000;
        ChildrenUse {
            user_ns: ns(ru.ru_utime),
            sys_ns: ns(ru.ru_stime),
            minor_faults: ru.ru_minflt as u64,
        }
    }

    fn since(&self, before: &ChildrenUse) -> ChildrenUse {
        ChildrenUse {
            user_ns: self.user_ns.saturating_sub(before.user_ns),
            sys_ns: self.sys_ns.saturating_sub(before.sys_ns),
            minor_faults: self.minor_faults.saturating_sub(before.minor_faults),
        }
    }

    /// Adds the children's CPU time to candor's own, over `wall`.
    fn add_to(&self, cpu: &mut CpuUse, wall: Duration) {
        let wall = wall.as_nanos().max(1) as f64;
        cpu.usr_pct += 100.0 * self.user_ns as f64 / wall;
        cpu.sys_pct += 100.0 * self.sys_ns as f64 / wall;
        cpu.cpu_ns += self.user_ns + self.sys_ns;
    }
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

/// What /bin/sh resolves to (dash, bash, busybox, ...).
fn shell_program() -> String {
    std::fs::canonicalize("/bin/sh")
        .map(|p| p.display().to_string())
        .unwrap_or_else(|_| "/bin/sh".into())
}

/// The first line of `sort --version` (names coreutils or busybox and its version).
fn sort_version() -> String {
    std::process::Command::new("sort")
        .arg("--version")
        .output()
        .ok()
        .and_then(|o| {
            String::from_utf8_lossy(&o.stdout)
                .lines()
                .next()
                .map(str::to_string)
        })
        .filter(|l| !l.is_empty())
        .unwrap_or_else(|| "sort (version unknown)".into())
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
    use super::*;

    fn c(count: f64, secs: f64) -> CopyCount {
        CopyCount {
            count,
            elapsed: Duration::from_secs_f64(secs),
        }
    }

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
