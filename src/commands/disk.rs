//! `candor disk`: one job in fio's vocabulary, on a fresh test file.

use crate::disk::{self, EngineChoice, EngineKind, JobSpec, Rw, TestDir, TestFile};
use crate::error::usage;
use crate::result::{write_run_atomic, Measurement, Run, RunStatus};
use crate::units::{parse_duration, parse_size};
use std::path::PathBuf;

/// Flags of `candor disk`. Sizes take 4k, 1M, 1G; durations 500ms, 30s, 2m.
#[derive(Debug, clap::Args)]
pub struct Args {
    /// Directory for the test file (never a tmpfs: that would measure RAM).
    #[arg(long, default_value = "/var/tmp")]
    pub dir: PathBuf,
    /// I/O pattern.
    #[arg(long, value_enum, default_value = "randread")]
    pub rw: Rw,
    /// Percentage of reads for --rw randrw.
    #[arg(long, default_value_t = 50)]
    pub rwmixread: u32,
    /// Block size.
    #[arg(long, default_value = "4k")]
    pub bs: String,
    /// Operations kept in flight per thread.
    #[arg(long, default_value_t = 32)]
    pub iodepth: u32,
    /// Operations per submit call (fio's iodepth_batch_submit). 1, as in fio,
    /// hands each freed slot to the device at once; larger values save system
    /// calls but reach the device in bursts.
    #[arg(long, default_value_t = 1)]
    pub iodepth_batch: u32,
    /// Threads (fio job clones), each with its own queue.
    #[arg(long, default_value_t = 1)]
    pub numjobs: u32,
    /// Test file size.
    #[arg(long, default_value = "1G")]
    pub size: String,
    /// Measured interval, after the ramp.
    #[arg(long, default_value = "10s")]
    pub runtime: String,
    /// Warm-up before the measured interval (not counted).
    #[arg(long, default_value = "2s")]
    pub ramp: String,
    /// I/O engine; default: io_uring, falling back to libaio, then psync.
    #[arg(long, value_enum)]
    pub engine: Option<EngineKind>,
    /// Sync after every N writes; the recorded write latency then includes the sync.
    #[arg(long, default_value_t = 0)]
    pub fsync: u32,
    /// Go through the page cache instead of O_DIRECT (measures RAM as much as the disk).
    #[arg(long)]
    pub buffered: bool,
    /// Random seed for offsets and data (default: a fresh one, recorded in the Run).
    #[arg(long)]
    pub seed: Option<u64>,
    /// Output format on stdout.
    #[arg(long, value_enum, default_value = "text")]
    pub format: Format,
    /// Also write the Run (JSON) to this file.
    #[arg(long)]
    pub output: Option<PathBuf>,
    /// A name for this host in reports.
    #[arg(long)]
    pub label: Option<String>,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum Format {
    Text,
    Json,
}

/// The job the flags describe (usage errors name the flag).
pub fn job_from_args(args: &Args) -> anyhow::Result<JobSpec> {
    let size_flag = |flag: &str, v: &str| parse_size(v).map_err(|e| usage(format!("{flag}: {e}")));
    let dur_flag =
        |flag: &str, v: &str| parse_duration(v).map_err(|e| usage(format!("{flag}: {e}")));
    let job = JobSpec {
        rw: args.rw.clone(),
        rwmixread: args.rwmixread,
        bs: size_flag("--bs", &args.bs)?,
        iodepth: args.iodepth,
        iodepth_batch: args.iodepth_batch,
        numjobs: args.numjobs,
        size: size_flag("--size", &args.size)?,
        runtime: dur_flag("--runtime", &args.runtime)?,
        ramp: dur_flag("--ramp", &args.ramp)?,
        engine: args.engine.map_or(EngineChoice::Auto, EngineChoice::Exact),
        fsync: args.fsync,
        direct: !args.buffered,
        seed: args.seed.unwrap_or_else(fresh_seed),
    };
    job.validate().map_err(usage)?;
    Ok(job)
}

/// A seed from the clock and the pid, well mixed: different every run unless
/// `--seed` is given (the seed is recorded in the Run so a run can be repeated).
pub fn fresh_seed() -> u64 {
    let nanos = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map(|d| d.as_nanos() as u64)
        .unwrap_or(0);
    crate::battery::plan::splitmix64(nanos ^ (u64::from(std::process::id()) << 32))
}

pub fn execute(args: Args) -> anyhow::Result<()> {
    let job = job_from_args(&args)?;
    if let Some(out) = &args.output {
        check_output_path(out)?;
    }
    let mut run = Run::new(std::env::args().collect());
    run.label = args.label.clone();
    run.host = crate::host::collect(Some(&args.dir));

    let null = job.engine == EngineChoice::Exact(EngineKind::Null);
    let outcome = if null {
        disk::run_null_job(&job)
    } else {
        let dir = TestDir::open(&args.dir)?;
        for w in dir.warnings() {
            eprintln!("candor: warning: {w}");
            run.notes.push(w.clone());
        }
        // Refuse a misaligned block size before spending time on the fill.
        dir.check_block_size(job.bs, job.direct)?;
        let file = TestFile::create(&dir, "disk", job.size, job.seed)?;
        disk::run_job(&dir, &file, &job)
        // `file` is dropped (removed) here, whatever the outcome.
    };
    let measurement = match outcome {
        Ok(m) => m,
        Err(e) => {
            run.status = if crate::cancel::cancelled() {
                RunStatus::Interrupted
            } else {
                RunStatus::Failed
            };
            run.finished_at = Some(crate::units::now_rfc3339());
            run.notes.push(format!("stopped: {e}"));
            if let Some(out) = &args.output {
                write_run_atomic(&run, out)
                    .map_err(|w| anyhow::anyhow!("{}: cannot write the Run: {w}", out.display()))?;
            }
            return Err(e);
        }
    };
    run.notes.extend(measurement.notes.iter().cloned());
    run.measurements.push(Measurement::Disk(measurement));
    run.status = RunStatus::Complete;
    run.finished_at = Some(crate::units::now_rfc3339());
    run.findings = crate::findings::analyze(&run);
    if let Some(out) = &args.output {
        write_run_atomic(&run, out)
            .map_err(|e| anyhow::anyhow!("{}: cannot write the Run: {e}", out.display()))?;
    }
    match args.format {
        Format::Json => println!("{}", serde_json::to_string_pretty(&run)?),
        Format::Text => print!(
            "{}",
            crate::report::render(&run, crate::report::Format::Text)
        ),
    }
    Ok(())
}

/// Refuses an output path whose directory does not exist, before any measuring.
pub fn check_output_path(out: &std::path::Path) -> anyhow::Result<()> {
    let parent = match out.parent() {
        Some(p) if !p.as_os_str().is_empty() => p,
        _ => std::path::Path::new("."),
    };
    if !parent.is_dir() {
        return Err(usage(format!(
            "--output {}: directory {} does not exist",
            out.display(),
            parent.display()
        )));
    }
    if out.is_dir() {
        return Err(usage(format!("--output {}: is a directory", out.display())));
    }
    Ok(())
}
