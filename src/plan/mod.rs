//! Every way of measuring disks is planned here, before any file exists,
//! into one shape, a [`DiskPlan`] (`disk_plan`: the jobs, the test files
//! they use, the order in which they run): a single job (`single`,
//! `candor disk`), the sweep (`sweep`), a fio job file (`jobfile`, which
//! wraps `fio::jobfile::lower`'s jobs). `measure::measure` runs any of
//! them. The battery's plan (`battery::plan`: presets, passes, rounds, the
//! control file) checks its disk tests with the same `preflight`. Every
//! pre-flight check (values, split, memory, engine, O_DIRECT block size,
//! directories, free space) runs once, in `preflight` or beside the plan
//! that needs it; the engine (`disk/`) and the runner (`measure/`) trust
//! what a plan hands them.
//!
//! A plan may look at the file system (a directory's type, alignment and
//! free space); it creates and writes nothing.

mod disk_plan;
pub mod jobfile;
pub mod preflight;
pub mod single;
pub mod sweep;

pub use disk_plan::{dir_index, DiskJobs, DiskPlan, OwnJob, PlanDir, PlanFile};
