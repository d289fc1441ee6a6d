//! `candor sweep`: a short matrix of random reads and writes over block sizes
//! (4 KiB, 8 KiB, 64 KiB, 1 MiB) and queue depths (1, 32), plus sequential
//! 1 MiB reads at QD1 and QD8, then the `caps` finding: the IOPS and bandwidth
//! limits the points reveal (null where none is evident). The plan is pure
//! (tested without I/O); measuring is the disk engine's, inference the findings'.

use crate::disk::{self, JobSpec, Rw, TestDir, TestFile};
use crate::error::usage;
use crate::findings::analyze;
use crate::result::{write_run_atomic, DiskMeasurement, Finding, Measurement, Run, RunStatus};
use crate::units::{block_label, fmt_count, fmt_ns, parse_duration, parse_size, sig3};
use std::fmt::Write as _;
use std::io::IsTerminal;
use std::path::PathBuf;
use std::time::Duration;

/// Block sizes of the random part of the sweep.
pub const SWEEP_BLOCK_SIZES: [u64; 4] = [4 << 10, 8 << 10, 64 << 10, 1 << 20];
/// Queue depths of the random part of the sweep.
pub const SWEEP_DEPTHS: [u32; 2] = [1, 32];
/// Queue depths of the sequential 1 MiB reads.
pub const SWEEP_SEQ_DEPTHS: [u32; 2] = [1, 8];

/// Flags of `candor sweep`.
#[derive(Debug, clap::Args)]
pub struct Args {
    /// Directory for the test file (tmpfs and ramfs are refused).
    #[arg(long, default_value = "/var/tmp")]
    pub dir: PathBuf,
    /// Measured time per point (e.g. 2s, 500ms).
    #[arg(long, default_value = "2s")]
    pub runtime: String,
    /// Warm-up before each point, not counted.
    #[arg(long, default_value = "500ms")]
    pub ramp: String,
    /// Size of the test file (e.g. 256M, 1G).
    #[arg(long, default_value = "256M")]
    pub size: String,
    /// Write the Run (JSON) here, rewritten after every point.
    #[arg(long, value_name = "FILE")]
    pub output: Option<PathBuf>,
    /// Output on stdout: a table with the caps and findings, or the Run as JSON.
    #[arg(long, value_enum, default_value = "text")]
    pub format: crate::commands::analyze::Format,
    /// Random seed for offsets and payloads (default: from the clock).
    #[arg(long)]
    pub seed: Option<u64>,
}

/// The sweep's jobs in the order they run: random read, random write (each
/// block size at each depth), then sequential 1 MiB reads.
pub fn plan(runtime: Duration, ramp: Duration, size: u64, seed: u64) -> Vec<JobSpec> {
    let mut jobs = Vec::new();
    let mut push = |rw: Rw, bs: u64, qd: u32| {
        let mut j = JobSpec::new(rw, bs, qd);
        j.runtime = runtime;
        j.ramp = ramp;
        j.size = size;
        j.seed = seed.wrapping_add(jobs.len() as u64);
        jobs.push(j);
    };
    for rw in [Rw::Randread, Rw::Randwrite] {
        for bs in SWEEP_BLOCK_SIZES {
            for qd in SWEEP_DEPTHS {
                push(rw.clone(), bs, qd);
            }
        }
    }
    for qd in SWEEP_SEQ_DEPTHS {
        push(Rw::Read, 1 << 20, qd);
    }
    jobs
}

/// The plan as stored in the Run (`plan.kind = "sweep"`).
pub fn plan_json(jobs: &[JobSpec], dir: &std::path::Path) -> serde_json::Value {
    serde_json::json!({
        "kind": "sweep",
        "dir": dir.display().to_string(),
        "points": jobs.iter().map(|j| serde_json::json!({
            "rw": j.rw.as_str(), "bs": j.bs, "iodepth": j.iodepth,
            "runtime_ns": j.runtime.as_nanos() as u64, "ramp_ns": j.ramp.as_nanos() as u64,
        })).collect::<Vec<_>>(),
        "size": jobs.first().map(|j| j.size),
    })
}

/// The points as a table: pattern, block size, depth, IOPS, MB/s, MiB/s, p50, p99.
pub fn table(measurements: &[&DiskMeasurement]) -> String {
    let mut out = String::new();
    let _ = writeln!(
        out,
        "{:<10} {:>5} {:>4} {:>10} {:>9} {:>9} {:>9} {:>9}",
        "rw", "bs", "QD", "IOPS", "MB/s", "MiB/s", "p50", "p99"
    );
    for m in measurements {
        for s in [&m.read, &m.write].into_iter().flatten() {
            let _ = writeln!(
                out,
                "{:<10} {:>5} {:>4} {:>10} {:>9} {:>9} {:>9} {:>9}",
                m.spec.rw,
                block_label(m.spec.bs),
                m.spec.iodepth,
                fmt_count(s.iops),
                sig3(s.bytes_per_sec / 1e6),
                sig3(s.bytes_per_sec / 1048576.0),
                fmt_ns(s.lat_ns.p50 as f64),
                fmt_ns(s.lat_ns.p99 as f64),
            );
        }
    }
    out
}

/// The caps in words, from the `caps` finding's evidence.
pub fn caps_text(findings: &[Finding]) -> String {
    let mut out = String::new();
    let Some(c) = findings.iter().find(|f| f.id == "caps") else {
        return "caps: not inferred\n".into();
    };
    let _ = writeln!(out, "Caps: {}", c.verdict);
    let e = &c.evidence;
    for (key, points, unit) in [
        ("read_iops", "read_iops_points", "IOPS"),
        ("write_iops", "write_iops_points", "IOPS"),
        ("read_bytes_per_sec", "read_bytes_points", "B/s"),
        ("write_bytes_per_sec", "write_bytes_points", "B/s"),
    ] {
        let value = match e[key].as_f64() {
            Some(v) if unit == "IOPS" => format!("{} IOPS", fmt_count(v)),
            Some(v) => format!("{} MB/s ({} MiB/s)", sig3(v / 1e6), sig3(v / 1048576.0)),
            None => "none evident".into(),
        };
        let support: Vec<String> = e[points]
            .as_array()
            .into_iter()
            .flatten()
            .map(|p| {
                format!(
                    "{} {} QD{}",
                    p["rw"].as_str().unwrap_or(""),
                    block_label(p["bs"].as_u64().unwrap_or(0)),
                    p["iodepth"]
                )
            })
            .collect();
        let ceiling = e[format!("{}_ceiling", key.trim_end_matches("_per_sec"))]
            .as_f64()
            .map(|v| {
                if unit == "IOPS" {
                    format!(" (ceiling at one depth only: {} IOPS)", fmt_count(v))
                } else {
                    format!(" (ceiling at one depth only: {} MB/s)", sig3(v / 1e6))
                }
            })
            .unwrap_or_default();
        let _ = write!(out, "  {key:<20} {value}{ceiling}");
        if !support.is_empty() {
            let _ = write!(out, "  (from {})", support.join(", "));
        }
        out.push('\n');
    }
    out
}

/// Prints the result of a sweep in the chosen format.
pub fn print_result(run: &Run, format: crate::commands::analyze::Format) -> anyhow::Result<()> {
    match format {
        crate::commands::analyze::Format::Json => {
            println!("{}", serde_json::to_string_pretty(run)?)
        }
        crate::commands::analyze::Format::Text => {
            let jobs: Vec<&DiskMeasurement> = run.disk().collect();
            let mut out = table(&jobs);
            for n in &run.notes {
                let _ = writeln!(out, "note: {n}");
            }
            out.push('\n');
            out.push_str(&caps_text(&run.findings));
            out.push('\n');
            crate::commands::analyze::render_text(&mut out, &run.findings);
            print!("{out}");
        }
    }
    Ok(())
}

/// Recomputes the findings and stamps the end of the Run.
pub fn finish(run: &mut Run, status: crate::result::RunStatus) {
    run.status = status;
    run.finished_at = Some(crate::units::now_rfc3339());
    run.findings = analyze(run);
}

pub fn execute(args: Args) -> anyhow::Result<()> {
    let runtime = parse_duration(&args.runtime).map_err(|e| usage(format!("--runtime: {e}")))?;
    let ramp = parse_duration(&args.ramp).map_err(|e| usage(format!("--ramp: {e}")))?;
    let size = parse_size(&args.size).map_err(|e| usage(format!("--size: {e}")))?;
    if size < 1 << 20 {
        return Err(usage(format!(
            "--size {}: the sweep's 1 MiB blocks need at least 1M",
            args.size
        )));
    }
    if let Some(out) = &args.output {
        crate::commands::disk::check_output_path(out)?;
    }
    let seed = args.seed.unwrap_or_else(crate::commands::disk::fresh_seed);
    let jobs = plan(runtime, ramp, size, seed);
    for j in &jobs {
        j.validate().map_err(usage)?;
    }
    let dir = TestDir::open(&args.dir)?;

    let mut run = Run::new(std::env::args().collect());
    run.host = crate::host::collect(Some(dir.path()));
    run.plan = Some(plan_json(&jobs, dir.path()));
    for w in dir.warnings() {
        eprintln!("candor: warning: {w}");
        run.notes.push(w.clone());
    }
    let save = |run: &Run| -> anyhow::Result<()> {
        if let Some(out) = &args.output {
            write_run_atomic(run, out)
                .map_err(|e| anyhow::anyhow!("{}: cannot write the Run: {e}", out.display()))?;
        }
        Ok(())
    };
    save(&run)?;

    let progress = std::io::stderr().is_terminal();
    let file = TestFile::create(&dir, "sweep", size, seed)?;
    for (i, job) in jobs.iter().enumerate() {
        if progress {
            let left = (jobs.len() - i) as u32 * (runtime + ramp);
            eprint!(
                "\rcandor sweep: {}/{} {} {} QD{} (about {} left)   ",
                i + 1,
                jobs.len(),
                job.rw.as_str(),
                block_label(job.bs),
                job.iodepth,
                crate::units::fmt_duration(left)
            );
        }
        match disk::run_job(&dir, &file, job) {
            Ok(mut m) => {
                m.pass = Some(1);
                run.notes.extend(m.notes.iter().cloned());
                run.measurements.push(Measurement::Disk(m));
                save(&run)?;
            }
            Err(e) => {
                let status = if crate::cancel::cancelled() {
                    RunStatus::Interrupted
                } else {
                    RunStatus::Failed
                };
                run.notes.push(format!("stopped: {e}"));
                finish(&mut run, status);
                save(&run)?;
                return Err(e);
            }
        }
    }
    drop(file);
    if progress {
        eprintln!();
    }
    run.notes.dedup();
    finish(&mut run, RunStatus::Complete);
    save(&run)?;
    print_result(&run, args.format)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn plan_covers_the_matrix_and_seq_reads() {
        let jobs = plan(Duration::from_secs(1), Duration::ZERO, 256 << 20, 7);
        assert_eq!(jobs.len(), 2 * 4 * 2 + 2);
        for rw in [Rw::Randread, Rw::Randwrite] {
            for bs in SWEEP_BLOCK_SIZES {
                for qd in SWEEP_DEPTHS {
                    assert!(jobs
                        .iter()
                        .any(|j| j.rw == rw && j.bs == bs && j.iodepth == qd));
                }
            }
        }
        assert!(jobs
            .iter()
            .any(|j| j.rw == Rw::Read && j.bs == 1 << 20 && j.iodepth == 8));
        assert!(jobs
            .iter()
            .all(|j| j.validate().is_ok() && j.size == 256 << 20 && j.direct));
    }
}
