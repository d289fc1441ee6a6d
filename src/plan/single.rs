//! `candor disk`'s one job, checked: on plain values, then against its
//! directory, before the Run starts.

use super::{DiskPlan, OwnJob};
use crate::disk::{EngineChoice, EngineKind, JobSpec, TestDir};
use crate::error::usage;
use std::path::Path;

/// Checks `job` (values, split, memory in `available`, engine): a usage
/// error naming the flag.
pub fn check(job: &JobSpec, available: Option<u64>) -> anyhow::Result<()> {
    super::preflight::check_job(job, available).map_err(usage)
}

/// The plan of `job` (checked by [`check`]): one test file of `job.size`
/// bytes in `dir`, opened here, with a block size O_DIRECT can use there;
/// the null engine needs no file and no directory.
pub fn plan(job: JobSpec, dir: &Path) -> anyhow::Result<DiskPlan> {
    let dir = if job.engine == EngineChoice::Exact(EngineKind::Null) {
        None
    } else {
        let dir = TestDir::open(dir)?;
        dir.check_block_size(job.bs, job.direct)?;
        Some(dir)
    };
    let (size, seed) = (job.size, job.seed);
    let job = OwnJob {
        spec: job,
        pass: None,
        if_cpu_bound: None,
    };
    Ok(DiskPlan::in_turn(dir, "disk", size, seed, vec![job], None))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::disk::Rw;
    use crate::plan::DiskJobs;

    #[test]
    fn the_null_engine_needs_no_directory_and_makes_no_file() {
        let mut job = JobSpec::new(Rw::Randread, 4096, 1);
        job.size = 1 << 20;
        job.engine = EngineChoice::Exact(EngineKind::Null);
        let plan = plan(job, Path::new("/nonexistent/candor")).unwrap();
        assert!(plan.dirs.is_empty());
        assert_eq!(plan.files.len(), 1);
        assert!(!plan.files[0].needed);
        assert!(matches!(&plan.jobs, DiskJobs::InTurn { jobs, progress: None } if jobs.len() == 1));
    }

    #[test]
    fn a_missing_directory_is_refused_by_the_plan() {
        let mut job = JobSpec::new(Rw::Randread, 4096, 1);
        job.size = 1 << 20;
        let e = plan(job, Path::new("/nonexistent/candor")).unwrap_err();
        assert!(e.to_string().contains("/nonexistent/candor"), "{e}");
    }
}
