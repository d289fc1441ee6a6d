//! `candor disk`: one job in fio's vocabulary, on a fresh test file.

use crate::disk::{EngineChoice, EngineKind, JobSpec, Rw};
use crate::error::usage;
use crate::report::Format;
use crate::session::{self, Session};
use crate::units::{parse_duration, parse_size};
use std::path::PathBuf;

/// Flags of `candor disk`. Sizes take 4k, 1M, 1G; durations 500ms, 30s, 2m.
#[derive(Debug, clap::Args)]
pub struct Args {
    /// Directory for the test file (never a tmpfs: that would measure RAM).
    /// Default /var/tmp; with --job, the current directory, as fio, for jobs
    /// whose file names no directory.
    #[arg(long)]
    pub dir: Option<PathBuf>,
    /// Run the jobs of a fio job file: one measurement per job, named after
    /// its section, the jobs in fio's order (together unless a stonewall or
    /// wait_for orders them). candor creates its own test files beside the
    /// ones the job file names; options it cannot run faithfully are refused
    /// by name with their file and line.
    #[arg(long, value_name = "FILE.fio", conflicts_with_all = [
        "rw", "rwmixread", "bs", "iodepth", "iodepth_batch", "numjobs", "size",
        "runtime", "ramp", "engine", "fsync", "buffered", "random_distribution"
    ])]
    pub job: Option<PathBuf>,
    /// Run a DiskSpd command line with DiskSpd's meaning (as one quoted
    /// argument: "-t8 -w0 -b4k -W10 -o2 -d10 -Suw -D -L testfile.dat"):
    /// candor runs it as the fio job that does the same I/O, on a test
    /// file it creates in --dir (of -c's size, else --size); what DiskSpd
    /// does differently is said in the Run's notes, and what candor cannot
    /// run as DiskSpd does is refused by name. --parse-only shows the job.
    #[arg(long, value_name = "LINE", allow_hyphen_values = true, conflicts_with_all = [
        "job", "rw", "rwmixread", "bs", "iodepth", "iodepth_batch", "numjobs",
        "runtime", "ramp", "engine", "fsync", "buffered", "random_distribution"
    ])]
    pub diskspd: Option<String>,
    /// With --job: run only this section (fio's --section); repeat for several.
    #[arg(long, value_name = "NAME", requires = "job")]
    pub section: Vec<String>,
    /// With --job: run jobs without the options candor cannot run
    /// faithfully, recording a warning for each in the Run, instead of
    /// refusing the job file.
    #[arg(long, requires = "job")]
    pub ignore_unsupported: bool,
    /// With --job or --diskspd: print the jobs as candor reads them, with
    /// the files it would create, and exit without creating anything (fio's
    /// --parse-only).
    #[arg(long)]
    pub parse_only: bool,
    /// With --job: let jobs whose filename= is this block device READ it
    /// (compared by device number: a symlink to it is the same device).
    /// Repeat for several. Without it, a job naming a device is refused.
    #[arg(long, value_name = "DEVICE", requires = "job")]
    pub device: Vec<PathBuf>,
    /// With --job: also let jobs WRITE this device, which destroys the data
    /// on it. It must be named by --device too, and is refused while it, a
    /// partition of it or anything stacked on it is in use (mounted, swap,
    /// held); candor holds it exclusively while the jobs run.
    #[arg(long, value_name = "DEVICE", requires = "job")]
    pub overwrite_device: Vec<PathBuf>,
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
    /// How random offsets spread, in fio's words: random (uniform, the
    /// default), zipf[:theta], pareto[:h], normal[:dev%], zoned:pct/pct:...,
    /// zoned_abs:pct/size:... (a hot set, as in cache studies).
    #[arg(long, value_name = "DIST")]
    pub random_distribution: Option<String>,
    /// Random seed for offsets and data (default: a fresh one, recorded in the Run).
    #[arg(long)]
    pub seed: Option<u64>,
    /// Output on stdout: text (default), md, csv, json (the Run) or html.
    #[arg(long, value_enum, default_value = "text")]
    pub format: Format,
    #[command(flatten)]
    pub verbose: super::flags::VerboseFlag,
    #[command(flatten)]
    pub out: crate::session::OutputFlags,
    /// A name for this host in reports.
    #[arg(long)]
    pub label: Option<String>,
    #[command(flatten)]
    pub history: crate::session::history::HistoryFlags,
}

/// The job the flags describe, checked by its plan (usage errors name the flag).
pub fn job_from_args(args: &Args) -> anyhow::Result<JobSpec> {
    let size_flag = |flag: &str, v: &str| parse_size(v).map_err(|e| usage(format!("{flag}: {e}")));
    let dur_flag =
        |flag: &str, v: &str| parse_duration(v).map_err(|e| usage(format!("{flag}: {e}")));
    let mut job = JobSpec {
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
        seed: args.seed.unwrap_or_else(crate::seed::fresh),
        ..JobSpec::new(args.rw.clone(), 0, 0)
    };
    if let Some(text) = &args.random_distribution {
        let size = |t: &str| parse_size(t).map_err(|e| e.to_string());
        job.distribution = crate::disk::Distribution::parse(text, &size)
            .map_err(|e| usage(format!("--random-distribution: {e}")))?;
        if !job.rw.is_random() && !job.distribution.is_uniform() {
            return Err(usage(format!(
                "--random-distribution {text}: --rw {} is sequential; a distribution spreads random offsets",
                job.rw
            )));
        }
        if job
            .distribution
            .absolute_span()
            .is_some_and(|s| s > job.size)
        {
            return Err(usage(format!(
                "--random-distribution {text}: the zones span more than --size"
            )));
        }
    }
    crate::plan::single::check(&job, crate::host::memory::available_bytes())?;
    Ok(job)
}

pub fn execute(args: Args) -> anyhow::Result<()> {
    if let Some(path) = args.job.clone() {
        return super::jobfile::execute(&args, &path);
    }
    // clap's `requires = "job"` is not checked when a flag that conflicts
    // with --job is given (--size, --runtime): `disk --device /dev/vda
    // --size 16m` measured a test file, exit 0, as if the device had been.
    let only_with_job = [
        ("--device", !args.device.is_empty()),
        ("--overwrite-device", !args.overwrite_device.is_empty()),
        ("--section", !args.section.is_empty()),
        ("--ignore-unsupported", args.ignore_unsupported),
    ];
    if let Some((flag, _)) = only_with_job.iter().find(|(_, given)| *given) {
        return Err(usage(format!(
            "{flag} is for --job (a job file whose filename= names the device); without one, candor measures a test file in --dir"
        )));
    }
    if let Some(line) = args.diskspd.clone() {
        return super::jobfile::execute_diskspd(&args, &line);
    }
    if args.parse_only {
        return Err(usage(
            "--parse-only shows the jobs of --job or --diskspd; give one",
        ));
    }
    let job = job_from_args(&args)?;
    let dir = session::test_dir_or_default(args.dir.as_deref());
    let plan = crate::plan::single::plan(job, &dir)?;
    let mut run = session::new_run(args.label.clone(), Some(&dir));
    for d in &plan.dirs {
        run.notes.extend(d.dir.notes().cloned());
    }
    let mut session = Session::start(run, &args.out, Some(&args.history), &[])?;
    plan.dirs.iter().for_each(|d| session::warn_about(&d.dir));
    session.measure(|recorder| crate::measure::measure(&plan, recorder))?;
    session.finish(|run| crate::report::render_with(run, args.format, &args.verbose.options()))
}
