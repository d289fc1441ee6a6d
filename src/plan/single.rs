//! `candor disk`'s one job, checked: on plain values before the Run
//! starts, against its directory before its test file is written.

use crate::disk::{JobSpec, TestDir};
use crate::error::usage;

/// Checks `job` (values, split, memory in `available`, engine): a usage
/// error naming the flag.
pub fn check(job: &JobSpec, available: Option<u64>) -> anyhow::Result<()> {
    super::preflight::check_job(job, available).map_err(usage)
}

/// Checks `job` against the directory its file goes in: a block size
/// O_DIRECT can use there.
pub fn check_dir(job: &JobSpec, dir: &TestDir) -> anyhow::Result<()> {
    dir.check_block_size(job.bs, job.direct)
}
