//! `candor sweep`: random reads and writes over block sizes and queue
//! depths, plus sequential 1 MiB reads at QD1 and QD8, then the `caps`
//! finding: the IOPS and bandwidth limits the points reveal, each called a
//! cap, a ceiling (limiter or medium, not told apart) or nothing.
//!
//! Cloud caps usually sit above what QD1 reaches (a network volume does
//! 2-20k IOPS at QD1 and is capped at 16k-80k), so 4 KiB, where IOPS caps
//! show first, runs at six depths up to 64: the plateau is seen from below
//! and along. Larger blocks, where bandwidth caps live, reach them at lower
//! depths and run at two to four. Where one thread used a whole core at the deepest 4 KiB
//! point, that point runs again with more threads: a CPU-bound figure says
//! nothing about the disk. The plan is pure (tested without I/O); measuring
//! is the disk engine's, inference the findings'.

use crate::disk::{self, JobSpec, Rw, TestDir, TestFile};
use crate::error::usage;
use crate::report::Format;
use crate::result::Measurement;
use crate::session::recorder::Recorder;
use crate::session::{self, Session};
use crate::units::{block_label, parse_duration, parse_size};
use std::io::IsTerminal;
use std::path::PathBuf;
use std::time::Duration;

/// The random part of the sweep: each block size with its queue depths.
/// 4 KiB runs at every depth (IOPS caps show there first), the others at
/// enough depths to see a plateau along depth; 20 points per direction, so
/// that 2 s points keep the sweep under two minutes.
pub const SWEEP_MATRIX: [(u64, &[u32]); 6] = [
    (4 << 10, &[1, 4, 8, 16, 32, 64]),
    (8 << 10, &[1, 4, 16, 64]),
    (16 << 10, &[1, 16]),
    (64 << 10, &[1, 4, 16]),
    (256 << 10, &[1, 16]),
    (1 << 20, &[1, 4, 16]),
];
/// Queue depths of the sequential 1 MiB reads.
pub const SWEEP_SEQ_DEPTHS: [u32; 2] = [1, 8];

/// Flags of `candor sweep`.
#[derive(Debug, clap::Args)]
pub struct Args {
    /// Directory for the test file (tmpfs and ramfs are refused).
    #[arg(long, default_value = crate::session::DEFAULT_TEST_DIR)]
    pub dir: PathBuf,
    /// Measured time per point (e.g. 2s, 500ms). Limiters enforce their
    /// rate over windows: under a cgroup write throttle single seconds came
    /// out 8 % apart (138-162 MB/s under 150), so points are 2 s; the whole
    /// sweep stays under two minutes.
    #[arg(long, default_value = "2s")]
    pub runtime: String,
    /// Warm-up before each point, not counted.
    #[arg(long, default_value = "500ms")]
    pub ramp: String,
    /// Size of the test file (e.g. 256M, 1G).
    #[arg(long, default_value = "256M")]
    pub size: String,
    #[command(flatten)]
    pub out: crate::session::OutputFlags,
    /// Output on stdout: text (the points, the caps and the findings), or a
    /// report: md, csv, json (the Run), html.
    #[arg(long, value_enum, default_value = "text")]
    pub format: Format,
    /// Random seed for offsets and payloads (default: from the clock).
    #[arg(long)]
    pub seed: Option<u64>,
    #[command(flatten)]
    pub history: crate::session::history::HistoryFlags,
}

/// The sweep's jobs in the order they run: random read, random write (each
/// block size at its depths), then sequential 1 MiB reads.
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
        for (bs, depths) in SWEEP_MATRIX {
            for &qd in depths {
                push(rw.clone(), bs, qd);
            }
        }
    }
    for qd in SWEEP_SEQ_DEPTHS {
        push(Rw::Read, 1 << 20, qd);
    }
    jobs
}

/// The point to add when `m` (the deepest 4 KiB point) kept one thread busy
/// a whole core: the same depth per thread with up to 4 threads, so that the
/// CPU of one core does not pass for the disk's ceiling.
pub fn more_threads(
    job: &JobSpec,
    m: &crate::result::DiskMeasurement,
    cpus: u32,
) -> Option<JobSpec> {
    let deepest = SWEEP_MATRIX[0].1.iter().max().copied().unwrap_or(32);
    let busy =
        m.cpu.usr_pct + m.cpu.sys_pct >= crate::findings::IO_CPU_BOUND_PCT * f64::from(job.numjobs);
    if job.bs != SWEEP_MATRIX[0].0
        || job.iodepth != deepest
        || job.numjobs != 1
        || !busy
        || cpus < 2
    {
        return None;
    }
    let mut more = job.clone();
    more.numjobs = cpus.min(4);
    more.seed = job.seed.wrapping_add(1 << 32);
    Some(more)
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
    let seed = args.seed.unwrap_or_else(crate::seed::fresh);
    let jobs = plan(runtime, ramp, size, seed);
    // Every point, and the extra threads a CPU-bound point may add, is
    // checked before the test file is written.
    let available = crate::host::memory::available_bytes();
    for j in &jobs {
        j.validate().and_then(|()| j.check_split()).map_err(usage)?;
        let mut widest = j.clone();
        widest.numjobs = widest.numjobs.max(crate::compute::online_cpus().min(4));
        widest.check_memory(available).map_err(usage)?;
    }
    let dir = TestDir::open(&args.dir)?;

    let mut run = session::new_run(None, Some(dir.path()));
    run.plan = Some(plan_json(&jobs, dir.path()));
    run.notes.extend(dir.notes().cloned());
    let mut session = Session::start(run, &args.out, Some(&args.history), &[])?;
    session::warn_about(&dir);
    session.measure(|recorder| {
        measure(&dir, &jobs, size, seed, recorder)?;
        recorder.run_mut().notes.dedup();
        Ok(())
    })?;
    session.finish(|run| match args.format {
        Format::Text => crate::report::sweep_text(run),
        other => crate::report::render(run, other),
    })
}

/// Runs the points one after another on one test file, each saved as it finishes.
fn measure(
    dir: &TestDir,
    jobs: &[JobSpec],
    size: u64,
    seed: u64,
    recorder: &mut Recorder,
) -> anyhow::Result<()> {
    let progress = std::io::stderr().is_terminal();
    let file = TestFile::create(dir, "sweep", size, seed)?;
    for (i, job) in jobs.iter().enumerate() {
        if progress {
            let left = (jobs.len() - i) as u32 * (job.runtime + job.ramp);
            eprint!(
                "\rcandor sweep: {}/{} {} {} QD{} (about {} left)   ",
                i + 1,
                jobs.len(),
                job.rw,
                block_label(job.bs),
                job.iodepth,
                crate::units::fmt_duration(left)
            );
        }
        let mut m = disk::run_job(dir, &file, job)?;
        m.pass = Some(1);
        recorder.run_mut().notes.extend(m.notes.iter().cloned());
        let extra = more_threads(job, &m, crate::compute::online_cpus());
        recorder.add(Measurement::Disk(m))?;
        if let Some(job) = extra {
            let mut m = disk::run_job(dir, &file, &job)?;
            m.pass = Some(1);
            recorder.add(Measurement::Disk(m))?;
        }
    }
    if progress {
        eprintln!();
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn plan_covers_the_matrix_and_seq_reads() {
        let jobs = plan(Duration::from_secs(1), Duration::ZERO, 256 << 20, 7);
        assert_eq!(jobs.len(), 2 * 20 + 2);
        for rw in [Rw::Randread, Rw::Randwrite] {
            for (bs, depths) in SWEEP_MATRIX {
                for &qd in depths {
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
