//! What the five compute subcommands (`candor cpu|memory|crypto|compress|os`)
//! share: their flags, checking them (one-line errors, exit 2), running one
//! group, wrapping the measurements in a Run, and a short text table per test.
//! The group functions in `compute` measure; this file only parses and prints.

use super::{headline, ComputeOptions, Threads};
use crate::result::{ComputeMeasurement, Measurement, Run, RunStatus};
use crate::units::{fmt_count, parse_duration, sig3};
use std::fmt::Write as _;
use std::path::PathBuf;
use std::time::Duration;

/// Flags every compute subcommand takes.
#[derive(Debug, Clone, clap::Args)]
pub struct ComputeArgs {
    /// Threads: a number, or `all` (every CPU candor may run on). Default: 1
    /// thread, then all threads, as separate measurements.
    #[arg(long, value_name = "N|all")]
    pub threads: Option<String>,
    /// Measured time per test and thread count (500ms, 5s, 1m). Default: 5s
    /// for `cpu`, 3s for the other groups.
    #[arg(long, value_name = "DUR")]
    pub runtime: Option<String>,
    /// What to print on stdout: `text` (a table per test) or `json` (the Run).
    #[arg(long, value_name = "text|json", default_value = "text")]
    pub format: String,
    /// Also write the Run (JSON) to FILE, atomically.
    #[arg(long, short = 'o', value_name = "FILE")]
    pub output: Option<PathBuf>,
}

/// A compute group, as the subcommands name them.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Group {
    Cpu,
    Memory,
    Crypto,
    Compress,
    Os,
}

impl Group {
    /// `cpu`, `memory`, `crypto`, `compress` or `os` (also the measurement kind).
    pub fn name(self) -> &'static str {
        match self {
            Group::Cpu => "cpu",
            Group::Memory => "memory",
            Group::Crypto => "crypto",
            Group::Compress => "compress",
            Group::Os => "os",
        }
    }

    /// Default measured time per test: sysbench-like for the single CPU test,
    /// shorter where a group has many tests.
    pub fn default_runtime(self) -> Duration {
        match self {
            Group::Cpu => Duration::from_secs(5),
            _ => Duration::from_secs(3),
        }
    }

    /// Runs the group's tests.
    pub fn run(self, options: &ComputeOptions) -> anyhow::Result<Vec<ComputeMeasurement>> {
        match self {
            Group::Cpu => super::run_cpu(options),
            Group::Memory => super::run_memory(options),
            Group::Crypto => super::run_crypto(options),
            Group::Compress => super::run_compress(options),
            Group::Os => super::run_os(options),
        }
    }

    /// Wraps a measurement of this group for the Run.
    pub fn wrap(self, m: ComputeMeasurement) -> Measurement {
        match self {
            Group::Cpu => Measurement::Cpu(m),
            Group::Memory => Measurement::Memory(m),
            Group::Crypto => Measurement::Crypto(m),
            Group::Compress => Measurement::Compress(m),
            Group::Os => Measurement::Os(m),
        }
    }
}

/// Parses `--threads`: a positive number or `all`.
pub fn parse_threads(text: &str) -> anyhow::Result<Threads> {
    let t = text.trim();
    if t.eq_ignore_ascii_case("all") {
        return Ok(Threads::N(super::online_cpus()));
    }
    match t.parse::<u32>() {
        Ok(0) => Err(crate::error::usage(
            "--threads must be at least 1 (or 'all')",
        )),
        Ok(1) => Ok(Threads::One),
        Ok(n) if n <= 4096 => Ok(Threads::N(n)),
        Ok(n) => Err(crate::error::usage(format!(
            "--threads {n} is more than 4096"
        ))),
        Err(_) => Err(crate::error::usage(format!(
            "--threads '{text}' is not a number or 'all'"
        ))),
    }
}

/// Parses `--runtime`: a duration from 1 ms to 1 hour.
pub fn parse_runtime(text: &str) -> anyhow::Result<Duration> {
    let d = parse_duration(text).map_err(|e| crate::error::usage(format!("--runtime: {e}")))?;
    if d < Duration::from_millis(1) {
        return Err(crate::error::usage(format!(
            "--runtime '{text}' is shorter than 1ms"
        )));
    }
    if d > Duration::from_secs(3600) {
        return Err(crate::error::usage(format!(
            "--runtime '{text}' is longer than 1h"
        )));
    }
    Ok(d)
}

/// Runs one compute subcommand.
pub fn execute(group: Group, args: ComputeArgs) -> anyhow::Result<()> {
    execute_with(group, args, &|options| group.run(options))
}

/// Runs one compute subcommand with `run` in place of the group's default
/// (for flags only one subcommand has, such as `memory --stream-size`).
pub fn execute_with(
    group: Group,
    args: ComputeArgs,
    run_group: &dyn Fn(&ComputeOptions) -> anyhow::Result<Vec<ComputeMeasurement>>,
) -> anyhow::Result<()> {
    let threads = match &args.threads {
        Some(t) => parse_threads(t)?,
        None => Threads::All,
    };
    let runtime = match &args.runtime {
        Some(r) => parse_runtime(r)?,
        None => group.default_runtime(),
    };
    let json = match args.format.as_str() {
        "text" => false,
        "json" => true,
        other => {
            return Err(crate::error::usage(format!(
                "--format '{other}' is not one of: text, json"
            )))
        }
    };
    if let Some(path) = &args.output {
        check_output_path(path)?;
    }
    let options = ComputeOptions { threads, runtime };
    if !json && std::io::IsTerminal::is_terminal(&std::io::stderr()) {
        let n = super::planned_measurements(group.name(), threads) as u32;
        eprintln!(
            "candor {}: {n} measurements of {} each (about {})",
            group.name(),
            crate::units::fmt_duration(runtime),
            crate::units::fmt_duration(runtime * n)
        );
    }

    let mut run = Run::new(std::env::args().collect());
    run.host = crate::host::collect(None);
    run.tool.libraries = super::library_versions();
    run.plan = Some(serde_json::json!({
        "group": group.name(),
        "threads": threads.counts(),
        "runtime_ns": runtime.as_nanos() as u64,
    }));
    let measurements = run_group(&options)?;
    let text = render_text(group.name(), &measurements);
    run.measurements = measurements.into_iter().map(|m| group.wrap(m)).collect();
    run.status = RunStatus::Complete;
    run.finished_at = Some(crate::units::now_rfc3339());
    run.findings = crate::findings::analyze(&run);
    if let Some(path) = &args.output {
        crate::result::write_run_atomic(&run, path)
            .map_err(|e| anyhow::anyhow!("{}: cannot write the Run: {e}", path.display()))?;
    }
    if json {
        println!("{}", serde_json::to_string_pretty(&run)?);
    } else {
        print!("{text}");
    }
    Ok(())
}

/// Refuses, before measuring, an output path that cannot be written.
fn check_output_path(path: &std::path::Path) -> anyhow::Result<()> {
    if path.is_dir() {
        return Err(crate::error::usage(format!(
            "--output {}: is a directory, not a file",
            path.display()
        )));
    }
    let parent = match path.parent() {
        Some(p) if !p.as_os_str().is_empty() => p,
        _ => std::path::Path::new("."),
    };
    if !parent.is_dir() {
        return Err(crate::error::usage(format!(
            "--output {}: directory {} does not exist",
            path.display(),
            parent.display()
        )));
    }
    Ok(())
}

/// The headline of a measurement as text with its unit.
pub fn fmt_headline(m: &ComputeMeasurement) -> String {
    if let Some(e) = m.events_per_sec {
        format!("{e:.2} events/s")
    } else if let (Some(o), Some(b)) = (m.ops_per_sec, m.bytes_per_sec) {
        format!("{} ops/s ({} MB/s)", fmt_rate(o), fmt_rate(b / 1e6))
    } else if let Some(b) = m.bytes_per_sec {
        format!(
            "{} MB/s ({} MiB/s)",
            fmt_rate(b / 1e6),
            fmt_rate(b / 1048576.0)
        )
    } else if let Some(o) = m.ops_per_sec {
        format!("{} ops/s", fmt_rate(o))
    } else {
        "-".to_string()
    }
}

/// A rate for people: thousands separators from 1000 up, three significant digits below.
fn fmt_rate(v: f64) -> String {
    if v.abs() >= 1000.0 {
        fmt_count(v)
    } else {
        sig3(v)
    }
}

/// A short table per test: one row per thread count, then the notes.
pub fn render_text(group: &str, measurements: &[ComputeMeasurement]) -> String {
    let mut out = String::new();
    let mut tests: Vec<&str> = Vec::new();
    for m in measurements {
        if !tests.contains(&m.spec.test.as_str()) {
            tests.push(&m.spec.test);
        }
    }
    for test in tests {
        let rows: Vec<&ComputeMeasurement> = measurements
            .iter()
            .filter(|m| m.spec.test == test)
            .collect();
        let params: Vec<String> = rows[0]
            .spec
            .params
            .iter()
            .filter(|(k, _)| k.as_str() != "library")
            .map(|(k, v)| format!("{k}={}", v.as_str().map_or(v.to_string(), str::to_string)))
            .collect();
        let _ = writeln!(out, "{group} {test}  [{}]", params.join(" "));
        let _ = writeln!(
            out,
            "  {:>7}  {:<34}  {:<24}  {:>5}  {:>5}  {:>6}",
            "threads", "result", "per thread (min..max)", "usr%", "sys%", "steal%"
        );
        for m in &rows {
            let per = match (
                m.per_thread.iter().copied().reduce(f64::min),
                m.per_thread.iter().copied().reduce(f64::max),
            ) {
                (Some(lo), Some(hi)) => {
                    let scale = if m.events_per_sec.is_some() || m.ops_per_sec.is_some() {
                        1.0
                    } else {
                        1e6
                    };
                    if m.per_thread.len() == 1 {
                        fmt_rate(lo / scale)
                    } else {
                        format!("{}..{}", fmt_rate(lo / scale), fmt_rate(hi / scale))
                    }
                }
                _ => "-".into(),
            };
            let _ = writeln!(
                out,
                "  {:>7}  {:<34}  {:<24}  {:>5.1}  {:>5.1}  {:>6.1}",
                m.spec.threads,
                fmt_headline(m),
                per,
                m.cpu.usr_pct,
                m.cpu.sys_pct,
                m.cpu.steal_pct
            );
        }
        let mut notes: Vec<&String> = Vec::new();
        for m in &rows {
            for n in &m.notes {
                if !notes.contains(&n) {
                    notes.push(n);
                }
            }
        }
        for n in notes {
            let _ = writeln!(out, "  - {n}");
        }
        out.push('\n');
    }
    if measurements.iter().all(|m| headline(m).is_none()) {
        out.push_str("(no measurements)\n");
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn threads_flag() {
        assert_eq!(parse_threads("1").unwrap(), Threads::One);
        assert_eq!(parse_threads("4").unwrap(), Threads::N(4));
        assert_eq!(
            parse_threads("ALL").unwrap(),
            Threads::N(super::super::online_cpus())
        );
        for bad in ["0", "-1", "two", "", "99999"] {
            let e = parse_threads(bad).unwrap_err();
            assert_eq!(crate::error::exit_code(&e), 2, "{bad}");
        }
    }

    #[test]
    fn headline_units() {
        let mut m = ComputeMeasurement {
            pass: None,
            started_at: None,
            spec: crate::result::ComputeSpec {
                test: "lzma-compress".into(),
                threads: 1,
                runtime_ns: 0,
                params: Default::default(),
            },
            events_per_sec: None,
            bytes_per_sec: Some(1_770_000.0),
            ops_per_sec: None,
            per_thread: vec![1_770_000.0],
            measured_ns: 1,
            cpu: Default::default(),
            notes: vec![],
        };
        assert_eq!(fmt_headline(&m), "1.77 MB/s (1.69 MiB/s)");
        m.bytes_per_sec = Some(36_637_000_000.0);
        assert_eq!(fmt_headline(&m), "36,637 MB/s (34,940 MiB/s)");
        m.bytes_per_sec = None;
        m.events_per_sec = Some(1622.78);
        assert_eq!(fmt_headline(&m), "1622.78 events/s");
    }

    #[test]
    fn runtime_flag() {
        assert_eq!(parse_runtime("500ms").unwrap(), Duration::from_millis(500));
        for bad in ["0", "0s", "fast", "2h", "-1s"] {
            let e = parse_runtime(bad).unwrap_err();
            assert_eq!(crate::error::exit_code(&e), 2, "{bad}");
        }
    }
}
