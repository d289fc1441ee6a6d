//! `candor disk --job FILE.fio`: the jobs of a fio job file, run the way
//! fio runs them, measured by candor's engine, one measurement per job.
//!
//! The job file is read, lowered and checked by `plan::jobfile` (every
//! refusal a one-line usage error with the file and line, before anything
//! is created) into a `plan::DiskPlan`, run by `measure`. The Run keeps the job file's
//! text and hash; the findings explain what the job file measures.

use super::disk::Args;
use crate::plan::jobfile::{self, JobFileRequest};
use crate::session::{self, Session};
use std::path::Path;

pub fn execute(args: &Args, path: &Path) -> anyhow::Result<()> {
    let request = JobFileRequest {
        path,
        sections: &args.section,
        dir: args.dir.as_deref(),
        ignore_unsupported: args.ignore_unsupported,
        seed: args.seed,
        devices: &args.device,
        overwrite_devices: &args.overwrite_device,
    };
    let (file, lowered) = jobfile::read(&request)?;
    if args.parse_only {
        let text = crate::report::jobfile_plan(&file, &lowered);
        return crate::output::write_text(None, &text, false);
    }
    let plan = jobfile::plan(&file, &lowered)?;
    // The storage facts of the first test directory (none when every job
    // runs on a device); of its nearest existing ancestor, on the same
    // filesystem, when candor is to create it.
    let dir = plan.dirs.first().map(|d| d.dir.path());
    let mut run = session::new_run(args.label.clone(), dir);
    run.job_file = Some(jobfile::record(&file, &lowered, &args.section));
    // Saved by Session::start, before any device is opened for writing.
    run.devices = jobfile::device_records(&lowered);
    run.notes.extend(lowered.ignored.iter().cloned());
    for d in &plan.dirs {
        session::warn_about(&d.dir);
        run.notes.extend(d.dir.warnings().iter().cloned());
    }
    let mut session = Session::start(run, &args.out, Some(&args.history), &jobfile::inputs(&file))?;
    session.measure(|recorder| crate::measure::measure(&plan, recorder))?;
    session.finish(|run| crate::report::render(run, args.format))
}
