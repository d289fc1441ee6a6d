//! `candor disk`'s one job, on a fresh test file.

use crate::disk::{self, EngineChoice, EngineKind, JobSpec, TestDir, TestFile};
use crate::result::{DiskMeasurement, Measurement};
use crate::session::recorder::Recorder;
use std::path::Path;

/// Runs the job on a fresh test file in `dir` (removed whatever happens),
/// or with the null engine on none, and adds it to the Run.
pub fn measure(dir: &Path, job: &JobSpec, recorder: &mut Recorder) -> anyhow::Result<()> {
    let m = run(dir, job, recorder)?;
    recorder.run_mut().notes.extend(m.notes.iter().cloned());
    recorder.add(Measurement::Disk(m))
}

fn run(dir: &Path, job: &JobSpec, recorder: &mut Recorder) -> anyhow::Result<DiskMeasurement> {
    if job.engine == EngineChoice::Exact(EngineKind::Null) {
        let mut m = disk::run_null_job(job)?;
        m.fio_command = crate::fio::command::for_job_as_run(job, &m.spec, Path::new("/tmp"));
        return Ok(m);
    }
    let dir = TestDir::open(dir)?;
    crate::session::warn_about(&dir);
    recorder.run_mut().notes.extend(dir.notes().cloned());
    // Refuse a misaligned block size before spending time on the fill.
    crate::plan::single::check_dir(job, &dir)?;
    let file = TestFile::create(&dir, "disk", job.size, job.seed)?;
    on_file(&dir, &file, job)
    // `file` is dropped (removed) here, whatever the outcome.
}

/// Runs one of candor's own jobs on `file` in `dir`: the measurement with
/// the fio command that reproduces it.
pub fn on_file(dir: &TestDir, file: &TestFile, job: &JobSpec) -> anyhow::Result<DiskMeasurement> {
    let mut m = disk::run_job(dir, file, job)?;
    m.fio_command = crate::fio::command::for_job_as_run(job, &m.spec, dir.path());
    Ok(m)
}
