//! candor's own jobs (`candor disk`, the sweep's points), one after
//! another on the plan's one test file, each added to the Run as it ends;
//! a job that kept each of its threads busy a whole core is followed by the
//! one its plan gives for that (`plan::sweep::more_threads`).

use super::{on_file, on_no_file, Targets};
use crate::disk::{JobSpec, TestDir};
use crate::plan::OwnJob;
use crate::result::{DiskMeasurement, Measurement};
use crate::session::recorder::Recorder;
use crate::units::block_label;
use std::io::IsTerminal;

/// Runs `jobs` in turn on the plan's file in `dir` (no file, no directory:
/// the null engine), naming `progress` on a terminal as they go.
pub(super) fn run(
    jobs: &[OwnJob],
    progress: Option<&'static str>,
    dir: Option<&TestDir>,
    targets: &Targets,
    recorder: &mut Recorder,
) -> anyhow::Result<()> {
    let file = targets.files.first().and_then(Option::as_ref);
    let one = |job: &JobSpec| match (dir, file) {
        (Some(dir), Some(file)) => on_file(dir, file, job),
        _ => on_no_file(job),
    };
    let progress = progress.filter(|_| std::io::stderr().is_terminal());
    for (i, job) in jobs.iter().enumerate() {
        if let Some(command) = progress {
            let spec = &job.spec;
            let left = (jobs.len() - i) as u32 * (spec.runtime + spec.ramp);
            eprint!(
                "\r{command}: {}/{} {} {} QD{} (about {} left)   ",
                i + 1,
                jobs.len(),
                spec.rw,
                block_label(spec.bs),
                spec.iodepth,
                crate::units::fmt_duration(left)
            );
        }
        let mut m = one(&job.spec)?;
        m.pass = job.pass;
        recorder.run_mut().notes.extend(m.notes.iter().cloned());
        let again = job
            .if_cpu_bound
            .as_ref()
            .filter(|_| kept_a_core_busy(&job.spec, &m));
        recorder.add(Measurement::Disk(m))?;
        if let Some(more) = again {
            let mut m = one(more)?;
            m.pass = job.pass;
            recorder.add(Measurement::Disk(m))?;
        }
    }
    if progress.is_some() {
        eprintln!();
    }
    recorder.run_mut().notes.dedup();
    Ok(())
}

/// Each of `job`'s threads used a whole core over its measured interval
/// (the `io-cpu-bound` finding's threshold): its figure may be the CPU's.
fn kept_a_core_busy(job: &JobSpec, m: &DiskMeasurement) -> bool {
    m.cpu.usr_pct + m.cpu.sys_pct >= crate::findings::IO_CPU_BOUND_PCT * f64::from(job.numjobs)
}
