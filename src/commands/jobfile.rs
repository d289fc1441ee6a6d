//! `candor disk --job FILE.fio`: the jobs of a fio job file, run the way
//! fio runs them, measured by candor's engine, one measurement per job;
//! and `candor disk --diskspd "LINE"`: a DiskSpd command, lowered to the
//! fio job that does its I/O (`diskspd::lower`), run the same way.
//!
//! The job file is read, lowered and checked by `plan::jobfile` (every
//! refusal a one-line usage error with the file and line, before anything
//! is created) into a `plan::DiskPlan`, run by `measure`. The Run keeps the job file's
//! text and hash; the findings explain what the job file measures.

use super::disk::Args;
use crate::error::usage;
use crate::plan::jobfile::{self, JobFileRequest};
use crate::session::{self, Session};
use std::path::Path;

/// The name a DiskSpd command's job file goes by in the Run and in messages.
const DISKSPD_JOB: &str = "diskspd.fio";

pub fn execute(args: &Args, path: &Path) -> anyhow::Result<()> {
    run(args, request(args, path, None), None)
}

/// `--diskspd LINE`: parsed with DiskSpd's meaning, lowered to a fio job
/// on the asynchronous engine this host runs, the differences kept as notes.
pub fn execute_diskspd(args: &Args, line: &str) -> anyhow::Result<()> {
    let command =
        crate::diskspd::parse::parse(line).map_err(|e| usage(format!("--diskspd: {e}")))?;
    let engine = crate::disk::engine::select(crate::disk::EngineChoice::Auto)
        .map_err(|e| anyhow::anyhow!(e))?;
    let size =
        crate::units::parse_size(&args.spec.size).map_err(|e| usage(format!("--size: {e}")))?;
    let job = crate::diskspd::lower::job_file(&command, engine.kind.as_str(), size)
        .map_err(|e| usage(format!("--diskspd: {e}")))?;
    let request = request(args, Path::new(DISKSPD_JOB), Some(&job.text));
    run(args, request, Some((line, job.notes)))
}

fn request<'a>(args: &'a Args, path: &'a Path, text: Option<&'a str>) -> JobFileRequest<'a> {
    JobFileRequest {
        path,
        text,
        sections: &args.target.section,
        dir: args.target.dir.as_deref(),
        ignore_unsupported: args.target.ignore_unsupported,
        seed: args.spec.seed,
        devices: &args.target.device,
        overwrite_devices: &args.target.overwrite_device,
    }
}

/// Runs the job file of `request`; `diskspd`: the DiskSpd command it was
/// lowered from, and where the run differs from DiskSpd's.
fn run(
    args: &Args,
    request: JobFileRequest,
    diskspd: Option<(&str, Vec<String>)>,
) -> anyhow::Result<()> {
    let (file, lowered) = jobfile::read(&request)?;
    if args.target.parse_only {
        let text = crate::report::jobfile_plan(&file, &lowered);
        return crate::output::write_text(None, &text, false);
    }
    let plan = jobfile::plan(&file, &lowered)?;
    // The storage facts of the first test directory (none when every job
    // runs on a device); of its nearest existing ancestor, on the same
    // filesystem, when candor is to create it.
    let dir = plan.dirs.first().map(|d| d.dir.path());
    let mut run = session::new_run(args.label.clone(), dir);
    let mut record = jobfile::record(&file, &lowered, &args.target.section);
    let inputs = match &diskspd {
        Some((line, notes)) => {
            record.diskspd = Some(line.trim().to_string());
            run.notes.extend(notes.iter().cloned());
            Vec::new()
        }
        None => jobfile::inputs(&file),
    };
    run.job_file = Some(record);
    // Saved by Session::start, before any device is opened for writing.
    run.devices = jobfile::device_records(&lowered);
    run.notes.extend(lowered.ignored.iter().cloned());
    for d in &plan.dirs {
        session::warn_about(&d.dir);
        run.notes.extend(d.dir.warnings().iter().cloned());
    }
    let mut session = Session::start(run, &args.out, Some(&args.history), &inputs)?;
    session.measure(|recorder| crate::measure::measure(&plan, recorder))?;
    session.finish(|run| crate::report::render(run, args.format))
}
