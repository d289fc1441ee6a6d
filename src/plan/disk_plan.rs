//! The one shape of a disk plan: the jobs, the test files they use, and
//! the order in which they run. `candor disk` plans one job on one file
//! (`single`), the sweep its points one after another on one file
//! (`sweep`), a job file its jobs on their files in fio's order
//! (`jobfile`); `measure::measure` runs any of them. The battery keeps its
//! own plan (ARCHITECTURE.md says why) and runs each of its disk tests
//! with `measure::on_file`.
//!
//! A plan is checked when it is made: the runner and the engine trust it.

use crate::disk::{JobSpec, TestDir};
use crate::fio::jobfile::device::DeviceGrant;
use crate::fio::jobfile::lower::Lowered;
use std::path::{Path, PathBuf};

/// Disk jobs, checked, ready to run: nothing in it is checked again.
#[derive(Debug)]
pub struct DiskPlan {
    /// The directories of the test files, opened and checked (a filesystem
    /// candor measures on, O_DIRECT alignment, room for the files).
    pub dirs: Vec<PlanDir>,
    /// The test files (or devices) the jobs use: made before the first job
    /// runs, removed after the last, whatever happens.
    pub files: Vec<PlanFile>,
    /// The jobs, in the order their measurements are added to the Run, and
    /// the order in which they run.
    pub jobs: DiskJobs,
}

/// The jobs of a plan, by the order in which they run.
#[derive(Debug)]
pub enum DiskJobs {
    /// candor's own jobs (`candor disk`, the sweep's points): one after
    /// another, each alone, each on the whole of the plan's one file.
    InTurn {
        jobs: Vec<OwnJob>,
        /// The command a progress line on a terminal names (the sweep,
        /// whose points take minutes together); None: no progress line.
        progress: Option<&'static str>,
    },
    /// A job file's jobs, as lowered (`fio::jobfile::lower`): each on its
    /// files and regions, together unless fio's order (`stonewall`,
    /// `wait_for`, `startdelay`) says otherwise (`disk::schedule`).
    FioOrder(Vec<Lowered>),
}

/// One of candor's own jobs.
#[derive(Debug, Clone)]
pub struct OwnJob {
    pub spec: JobSpec,
    /// The pass its measurement belongs to (the sweep's points: 1).
    pub pass: Option<u32>,
    /// The job to run right after it when it kept each of its threads busy
    /// a whole core (the sweep's deepest 4 KiB point, `sweep::more_threads`):
    /// a CPU-bound figure says nothing about the disk.
    pub if_cpu_bound: Option<JobSpec>,
}

/// A test file the jobs use (or a block device they use in its place).
#[derive(Debug, Clone)]
pub struct PlanFile {
    /// The directory candor creates it in (the path of one of the plan's
    /// `dirs`; a device's own directory, not opened).
    pub dir: PathBuf,
    /// What it is for, in its name (`.candor-<purpose>-<pid>-...`).
    pub purpose: String,
    /// Its size: a multiple of its directory's O_DIRECT alignment for a job
    /// file's files; candor's own take `--size` as given (the engine
    /// refuses an unaligned one).
    pub size: u64,
    /// The seed of its contents.
    pub seed: u64,
    /// The path fio would use (a job file's file; none for candor's own).
    pub fio_path: Option<PathBuf>,
    /// A block device the command line allowed: the jobs use it itself,
    /// candor creates no file.
    pub device: Option<DeviceGrant>,
    /// Some job writes it (a device is then opened for writing, when its
    /// grant allows it).
    pub written: bool,
    /// False when only jobs of the null engine use it: nothing is made.
    pub needed: bool,
}

/// The directory of some of the plan's files, as the plan checked it.
#[derive(Debug)]
pub struct PlanDir {
    /// The directory the files go in.
    pub path: PathBuf,
    /// It, opened; or, when it does not exist yet, its nearest existing
    /// ancestor: the filesystem it will be made on, checked for room and
    /// alignment (the runner creates it only when the files are made, as
    /// fio does when its job starts).
    pub dir: TestDir,
    /// True when `path` does not exist: the runner creates its missing levels.
    pub missing: bool,
}

impl PlanDir {
    /// An existing directory, opened.
    pub fn opened(dir: TestDir) -> PlanDir {
        PlanDir {
            path: dir.path().to_path_buf(),
            dir,
            missing: false,
        }
    }
}

impl DiskPlan {
    /// candor's own jobs in turn on one test file of `size` bytes in `dir`
    /// (`purpose` names it); without a directory (the null engine) no file
    /// is made.
    pub fn in_turn(
        dir: Option<TestDir>,
        purpose: &str,
        size: u64,
        seed: u64,
        jobs: Vec<OwnJob>,
        progress: Option<&'static str>,
    ) -> DiskPlan {
        let needed = dir.is_some();
        let dirs: Vec<PlanDir> = dir.into_iter().map(PlanDir::opened).collect();
        let file = PlanFile {
            dir: dirs.first().map(|d| d.path.clone()).unwrap_or_default(),
            purpose: purpose.to_string(),
            size,
            seed,
            fio_path: None,
            device: None,
            written: jobs.iter().any(|j| j.spec.writes_target()),
            needed,
        };
        DiskPlan {
            dirs,
            files: vec![file],
            jobs: DiskJobs::InTurn { jobs, progress },
        }
    }

    /// The jobs' specs, in the plan's order (a follow-up of a CPU-bound
    /// job is not among them: it runs only if that job was).
    pub fn specs(&self) -> Vec<&JobSpec> {
        match &self.jobs {
            DiskJobs::InTurn { jobs, .. } => jobs.iter().map(|j| &j.spec).collect(),
            DiskJobs::FioOrder(jobs) => jobs.iter().map(|j| &j.spec).collect(),
        }
    }

    /// The index in `dirs` of the directory at `path`.
    pub fn dir_index(&self, path: &Path) -> usize {
        dir_index(&self.dirs, path)
    }
}

/// The index in `dirs` of the directory at `path`.
pub fn dir_index(dirs: &[PlanDir], path: &Path) -> usize {
    dirs.iter()
        .position(|d| d.path == path)
        .expect("every file's directory was opened")
}
