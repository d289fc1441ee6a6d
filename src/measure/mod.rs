//! Measuring into a Run. `compute.rs` a compute group alone, `unixbench.rs`
//! UnixBench's index; the rest of this file a disk plan.
//!
//! Runs a disk plan (`plan::DiskPlan`) on the engine (`disk/`): the one
//! runner of every way of measuring disks (the battery's runner runs each
//! of its disk tests with [`on_file`]). It makes the plan's missing
//! directories and its test files (each removed whatever happens), runs its
//! jobs in its order (`in_turn`, or fio's: `jobfile`), and adds each
//! measurement to the Run as it ends, with the fio command that reproduces
//! it (`fio::command`). The plan was checked before: nothing here checks a
//! value again.

pub mod compute;
mod in_turn;
mod jobfile;
pub mod unixbench;

use crate::disk::{self, DeviceTarget, JobSpec, MadeDirs, TestDir, TestFile};
use crate::plan::{DiskJobs, DiskPlan};
use crate::result::DiskMeasurement;
use crate::session::recorder::Recorder;
use std::path::Path;

/// Runs every job of `plan`, each measurement added to the Run as it ends;
/// removes the files, then the directories it made, whatever happens.
pub fn measure(plan: &DiskPlan, recorder: &mut Recorder) -> anyhow::Result<()> {
    // Declared before the files: dropped after them, so each directory is
    // empty again when it is removed (on success, error and interruption).
    let (_made, opened) = make_dirs(plan, recorder)?;
    let dirs: Vec<&TestDir> = plan
        .dirs
        .iter()
        .zip(&opened)
        .map(|(d, made)| made.as_ref().unwrap_or(&d.dir))
        .collect();
    let targets = Targets::create(plan, &dirs)?;
    match &plan.jobs {
        DiskJobs::InTurn { jobs, progress } => {
            in_turn::run(jobs, *progress, dirs.first().copied(), &targets, recorder)
        }
        DiskJobs::FioOrder(jobs) => jobfile::run(plan, jobs, &dirs, &targets, recorder),
    }
    // The files are dropped (removed) here, whatever happened.
}

/// Runs one of candor's own jobs on `file` in `dir`: the measurement with
/// the fio command that reproduces it.
pub fn on_file(dir: &TestDir, file: &TestFile, job: &JobSpec) -> anyhow::Result<DiskMeasurement> {
    let mut m = disk::run_job(dir, file, job)?;
    m.fio_command = crate::fio::command::for_job_as_run(job, &m.spec, dir.path());
    Ok(m)
}

/// Runs one of candor's own jobs with the null engine, on no file.
fn on_no_file(job: &JobSpec) -> anyhow::Result<DiskMeasurement> {
    let mut m = disk::run_null_job(job)?;
    m.fio_command = crate::fio::command::for_job_as_run(job, &m.spec, Path::new("/tmp"));
    Ok(m)
}

/// What the plan's files are on: candor's test files, made, and the block
/// devices, opened (by index in `DiskPlan::files`; None where nothing is
/// made: a device's file, a file only the null engine uses).
struct Targets {
    files: Vec<Option<TestFile>>,
    devices: Vec<Option<DeviceTarget>>,
}

impl Targets {
    /// Makes each needed file in its directory (`dirs`, by index in the
    /// plan's) and opens each needed device (checked again right before it
    /// is opened for writing).
    fn create(plan: &DiskPlan, dirs: &[&TestDir]) -> anyhow::Result<Targets> {
        let mut files: Vec<Option<TestFile>> = Vec::with_capacity(plan.files.len());
        let mut devices: Vec<Option<DeviceTarget>> = Vec::with_capacity(plan.files.len());
        for f in &plan.files {
            if !f.needed {
                files.push(None);
                devices.push(None);
                continue;
            }
            if let Some(grant) = &f.device {
                // A device is used as it is: no file, no fill.
                devices.push(Some(DeviceTarget::open(
                    &grant.path,
                    grant.rdev,
                    grant.size,
                    grant.writable && f.written,
                    crate::plan::jobfile::writable_now,
                )?));
                files.push(None);
                continue;
            }
            devices.push(None);
            let dir = dirs[plan.dir_index(&f.dir)];
            files.push(Some(TestFile::create(dir, &f.purpose, f.size, f.seed)?));
            crate::cancel::check()?;
        }
        Ok(Targets { files, devices })
    }
}

/// The plan's missing directories, created as fio creates them (every
/// missing level), each then opened as a test directory (by index in the
/// plan's `dirs`); the guards remove them when dropped.
fn make_dirs(
    plan: &DiskPlan,
    recorder: &mut Recorder,
) -> anyhow::Result<(Vec<MadeDirs>, Vec<Option<TestDir>>)> {
    let mut made = Vec::new();
    let mut opened: Vec<Option<TestDir>> = plan.dirs.iter().map(|_| None).collect();
    for (i, d) in plan.dirs.iter().enumerate() {
        let used = plan
            .files
            .iter()
            .any(|f| f.device.is_none() && f.dir == d.path && f.needed);
        if !d.missing || !used {
            continue;
        }
        let levels = MadeDirs::create(&d.path)?;
        if !levels.paths().is_empty() {
            let names: Vec<String> = levels
                .paths()
                .iter()
                .map(|p| p.display().to_string())
                .collect();
            recorder.run_mut().notes.push(format!(
                "candor created the missing director{} {} for the job file's files (as fio would) and removes {} when it ends",
                if names.len() == 1 { "y" } else { "ies" },
                names.join(", "),
                if names.len() == 1 { "it" } else { "them" }
            ));
        }
        made.push(levels);
        opened[i] = Some(TestDir::open(&d.path)?);
        crate::cancel::check()?;
    }
    Ok((made, opened))
}
