//! `candor disk`'s job flags (--rw, --bs, --iodepth, ...), lowered into the
//! `JobSpec` they describe.

use crate::disk::{EngineChoice, EngineKind, JobSpec, Rw};
use crate::error::usage;
use crate::units::{parse_duration, parse_size};

/// The job `candor disk` runs without a job file, in fio's vocabulary.
#[derive(Debug, clap::Args)]
pub struct JobFlags {
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
}

/// The job the flags describe, checked by its plan (usage errors name the flag).
impl JobFlags {
    pub fn lower(&self) -> anyhow::Result<JobSpec> {
        let size_flag =
            |flag: &str, v: &str| parse_size(v).map_err(|e| usage(format!("{flag}: {e}")));
        let dur_flag =
            |flag: &str, v: &str| parse_duration(v).map_err(|e| usage(format!("{flag}: {e}")));
        let mut job = JobSpec {
            rw: self.rw.clone(),
            rwmixread: self.rwmixread,
            bs: size_flag("--bs", &self.bs)?,
            iodepth: self.iodepth,
            iodepth_batch: self.iodepth_batch,
            numjobs: self.numjobs,
            size: size_flag("--size", &self.size)?,
            runtime: dur_flag("--runtime", &self.runtime)?,
            ramp: dur_flag("--ramp", &self.ramp)?,
            engine: self.engine.map_or(EngineChoice::Auto, EngineChoice::Exact),
            fsync: self.fsync,
            direct: !self.buffered,
            seed: self.seed.unwrap_or_else(crate::seed::fresh),
            ..JobSpec::new(self.rw.clone(), 0, 0)
        };
        if let Some(text) = &self.random_distribution {
            let size = |t: &str| parse_size(t).map_err(|e| e.to_string());
            job.distribution = crate::disk::Distribution::parse(text, &size)
                .map_err(|e| usage(format!("--random-distribution: {e}")))?;
            job.distribution
                .check_for(&job.rw, job.size)
                .map_err(|e| usage(format!("--random-distribution {text}: {e}")))?;
        }
        crate::plan::single::check(&job, crate::host::memory::available_bytes())?;
        Ok(job)
    }
}
