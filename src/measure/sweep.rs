//! The sweep's points, one after another on one test file, each saved as
//! it finishes; a point that kept one thread busy a whole core runs again
//! with more threads (`plan::sweep::more_threads`).

use super::single::on_file;
use crate::disk::{TestDir, TestFile};
use crate::plan::sweep::{more_threads, SweepPlan};
use crate::result::Measurement;
use crate::session::recorder::Recorder;
use crate::units::block_label;
use std::io::IsTerminal;

/// Runs every point of `plan` in `dir`, each added to the Run as it ends.
pub fn measure(dir: &TestDir, plan: &SweepPlan, recorder: &mut Recorder) -> anyhow::Result<()> {
    let jobs = &plan.jobs;
    let progress = std::io::stderr().is_terminal();
    let file = TestFile::create(dir, "sweep", plan.size, plan.seed)?;
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
        let mut m = on_file(dir, &file, job)?;
        m.pass = Some(1);
        recorder.run_mut().notes.extend(m.notes.iter().cloned());
        let extra = more_threads(
            job,
            &m,
            crate::compute::online_cpus(),
            crate::findings::IO_CPU_BOUND_PCT,
        );
        recorder.add(Measurement::Disk(m))?;
        if let Some(job) = extra {
            let mut m = on_file(dir, &file, &job)?;
            m.pass = Some(1);
            recorder.add(Measurement::Disk(m))?;
        }
    }
    if progress {
        eprintln!();
    }
    recorder.run_mut().notes.dedup();
    Ok(())
}
