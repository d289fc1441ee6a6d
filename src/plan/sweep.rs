//! The sweep's plan: random reads and writes over block sizes and queue
//! depths, plus sequential 1 MiB reads at QD1 and QD8, every point checked
//! before the test file is written.
//!
//! Cloud caps usually sit above what QD1 reaches (a network volume does
//! 2-20k IOPS at QD1 and is capped at 16k-80k), so 4 KiB, where IOPS caps
//! show first, runs at six depths up to 64: the plateau is seen from below
//! and along. Larger blocks, where bandwidth caps live, reach them at lower
//! depths and run at two to four. Where one thread used a whole core at the
//! deepest 4 KiB point, that point runs again with more threads
//! ([`more_threads`]): a CPU-bound figure says nothing about the disk.

use super::{DiskPlan, OwnJob};
use crate::disk::{JobSpec, Rw, TestDir};
use crate::error::usage;
use std::path::Path;
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

/// The sweep as the user asked for it.
#[derive(Debug, Clone)]
pub struct SweepRequest {
    pub runtime: Duration,
    pub ramp: Duration,
    /// The test file's size (the flag's text, for the message that refuses it).
    pub size: u64,
    pub size_text: String,
    pub seed: u64,
}

/// The sweep's plan: the points of `request` in the order they run, on
/// one test file in `dir` (opened here), each checked (with the extra
/// threads a CPU-bound point may add, up to `cpus` or 4) against
/// `available` memory, before the Run starts.
pub fn plan(
    request: &SweepRequest,
    cpus: u32,
    available: Option<u64>,
    dir: &Path,
) -> anyhow::Result<DiskPlan> {
    if request.size < 1 << 20 {
        return Err(usage(format!(
            "--size {}: the sweep's 1 MiB blocks need at least 1M",
            request.size_text
        )));
    }
    let jobs = points(request.runtime, request.ramp, request.size, request.seed);
    for j in &jobs {
        let mut widest = j.clone();
        widest.numjobs = widest.numjobs.max(cpus.min(4));
        super::preflight::check_values(j)
            .and_then(|()| super::preflight::check_split(j))
            .and_then(|()| super::preflight::check_memory(&widest, available))
            .map_err(usage)?;
    }
    let dir = TestDir::open(dir)?;
    let jobs = jobs
        .into_iter()
        .map(|spec| OwnJob {
            if_cpu_bound: more_threads(&spec, cpus),
            pass: Some(1),
            spec,
        })
        .collect();
    Ok(DiskPlan::in_turn(
        Some(dir),
        "sweep",
        request.size,
        request.seed,
        jobs,
        Some("candor sweep"),
    ))
}

/// The sweep's jobs in the order they run: random read, random write (each
/// block size at its depths), then sequential 1 MiB reads.
pub fn points(runtime: Duration, ramp: Duration, size: u64, seed: u64) -> Vec<JobSpec> {
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

/// The point to run right after `job` when it keeps its one thread busy a
/// whole core (the `io-cpu-bound` finding's threshold, judged by the
/// runner on its measurement): for the deepest 4 KiB point, the same depth
/// per thread with up to 4 threads (and at most `cpus`), so that the CPU of
/// one core does not pass for the disk's ceiling. None for every other
/// point, and on one CPU.
pub fn more_threads(job: &JobSpec, cpus: u32) -> Option<JobSpec> {
    let deepest = SWEEP_MATRIX[0].1.iter().max().copied().unwrap_or(32);
    if job.bs != SWEEP_MATRIX[0].0 || job.iodepth != deepest || job.numjobs != 1 || cpus < 2 {
        return None;
    }
    let mut more = job.clone();
    more.numjobs = cpus.min(4);
    more.seed = job.seed.wrapping_add(1 << 32);
    Some(more)
}

/// The plan as stored in the Run (`plan.kind = "sweep"`).
pub fn plan_json(plan: &DiskPlan) -> serde_json::Value {
    let jobs = plan.specs();
    let dir = plan.dirs.first().map(|d| d.path.display().to_string());
    serde_json::json!({
        "kind": "sweep",
        "dir": dir.unwrap_or_default(),
        "points": jobs.iter().map(|j| serde_json::json!({
            "rw": j.rw.as_str(), "bs": j.bs, "iodepth": j.iodepth,
            "runtime_ns": j.runtime.as_nanos() as u64, "ramp_ns": j.ramp.as_nanos() as u64,
        })).collect::<Vec<_>>(),
        "size": jobs.first().map(|j| j.size),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn plan_covers_the_matrix_and_seq_reads() {
        let jobs = points(Duration::from_secs(1), Duration::ZERO, 256 << 20, 7);
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
            .all(|j| super::super::preflight::check_values(j).is_ok()
                && j.size == 256 << 20
                && j.direct));
    }

    #[test]
    fn a_file_too_small_for_1_mib_blocks_is_refused_before_anything() {
        let request = SweepRequest {
            runtime: Duration::from_secs(1),
            ramp: Duration::ZERO,
            size: 512 << 10,
            size_text: "512k".into(),
            seed: 1,
        };
        let e = plan(&request, 2, None, Path::new("/nonexistent"))
            .unwrap_err()
            .to_string();
        assert_eq!(e, "--size 512k: the sweep's 1 MiB blocks need at least 1M");
    }

    #[test]
    fn only_the_deepest_4k_point_may_run_again_with_more_threads() {
        let jobs = points(Duration::from_secs(1), Duration::ZERO, 256 << 20, 7);
        let again: Vec<(&JobSpec, JobSpec)> = jobs
            .iter()
            .filter_map(|j| more_threads(j, 8).map(|m| (j, m)))
            .collect();
        assert_eq!(again.len(), 2, "the random read and the random write");
        for (j, m) in again {
            assert_eq!((j.bs, j.iodepth, j.numjobs), (4 << 10, 64, 1));
            assert_eq!((m.bs, m.iodepth, m.numjobs), (4 << 10, 64, 4));
            assert_ne!(m.seed, j.seed);
        }
        let deepest = jobs.iter().find(|j| j.iodepth == 64).unwrap();
        assert_eq!(more_threads(deepest, 2).map(|m| m.numjobs), Some(2));
        assert!(
            more_threads(deepest, 1).is_none(),
            "one CPU: no more threads"
        );
    }
}
