//! Running UnixBench's tests: each copy count, each test's passes, the
//! copies' processes and what their children used (Unix: fork, exec,
//! pipes, /bin/sh).

use super::kernels::{self, CopyCount};
use super::workdir::WorkDir;
use super::*;
use crate::result::{ComputeSpec, CpuUse};

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
