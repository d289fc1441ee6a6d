//! `candor disk --job FILE.fio`: the jobs of a fio job file, run the way
//! fio runs them, measured by candor's engine, one measurement per job.
//!
//! The steps: read and lower the job file (`fio::jobfile`; every refusal
//! is a one-line usage error with the file and line, before anything is
//! created), check each directory (filesystem, O_DIRECT alignment, free
//! space for every file), create candor's own test files beside the ones
//! fio would use, run the jobs in fio's order (`disk::schedule`), and add
//! each job's measurement to the Run as it ends. The Run keeps the job
//! file's text and hash; the findings explain what the job file measures.

use super::disk::Args;
use crate::disk::schedule::{self, Planned};
use crate::disk::{EngineChoice, EngineKind, Placement, TestDir, TestFile};
use crate::error::usage;
use crate::fio::jobfile::{self, lower, Env, FileSystem, JobFile};
use crate::result::{
    DiskMeasurement, JobFileRecord, JobFileText, JobInfo, Measurement, WAITED_FOR_NAMED,
};
use crate::session::recorder::Recorder;
use crate::session::{self, Session};
use std::path::{Path, PathBuf};

/// Reads the job file and lowers it; every problem is a usage error.
pub fn plan(args: &Args, path: &Path) -> anyhow::Result<(JobFile, lower::Plan)> {
    let file = jobfile::read(&FileSystem, path, &args.section, &Env::of_this_host())
        .map_err(|e| usage(e.to_string()))?;
    let default_dir = match &args.dir {
        Some(d) => d.clone(),
        None => std::env::current_dir()
            .map_err(|e| usage(format!("the current directory: {e} (give --dir)")))?,
    };
    let ctx = lower::Context {
        default_dir,
        ignore_unsupported: args.ignore_unsupported,
        seed: args.seed,
    };
    let plan = lower::lower(&file, &ctx).map_err(|e| usage(e.to_string()))?;
    Ok((file, plan))
}

pub fn execute(args: &Args, path: &Path) -> anyhow::Result<()> {
    let (file, plan) = plan(args, path)?;
    if args.parse_only {
        let text = crate::report::jobfile_plan(&file, &plan);
        return crate::output::write_text(None, &text, false);
    }
    // Memory for every job's buffers (they may all run at once), every
    // directory, and every file's room are checked before any file exists.
    check_memory(&file, &plan)?;
    let dirs = open_dirs(&file, &plan)?;
    let mut run = session::new_run(args.label.clone(), Some(&plan.files[0].dir));
    run.job_file = Some(record(&file, &plan, &args.section));
    run.notes.extend(plan.ignored.iter().cloned());
    for d in &dirs {
        session::warn_about(d);
        run.notes.extend(d.warnings().iter().cloned());
    }
    // The job file and its includes are inputs too.
    let inputs: Vec<PathBuf> = file.files.iter().map(|f| PathBuf::from(&f.path)).collect();
    let mut session = Session::start(run, &args.out, Some(&args.history), &inputs)?;
    session.measure(|recorder| measure(&plan, &dirs, recorder))?;
    session.finish(|run| crate::report::render(run, args.format))
}

/// The jobs' buffers, all at once, must fit in half the available memory
/// (the rule of `candor disk`): the allocation would abort otherwise.
fn check_memory(file: &JobFile, plan: &lower::Plan) -> anyhow::Result<()> {
    let need: u64 = plan.jobs.iter().map(|j| j.spec.memory_needed()).sum();
    match crate::host::memory::available_bytes() {
        Some(avail) if need > avail / 2 => Err(usage(format!(
            "{}: its jobs' I/O buffers need {} together; {} of memory is available (candor uses at most half)",
            file.path,
            crate::units::fmt_bytes(need),
            crate::units::fmt_bytes(avail)
        ))),
        _ => Ok(()),
    }
}

/// The test directory of each file fio would use, checked: a filesystem
/// candor measures on, O_DIRECT alignment for the jobs that ask for it, and
/// room for all of candor's files with the usual margin left free.
fn open_dirs(file: &JobFile, plan: &lower::Plan) -> anyhow::Result<Vec<TestDir>> {
    let mut dirs: Vec<TestDir> = Vec::new();
    for f in &plan.files {
        if dirs.iter().any(|d| d.path() == f.dir) {
            continue;
        }
        let job = &plan.jobs[f.jobs[0]];
        let dir = TestDir::open(&f.dir).map_err(|e| {
            usage(format!(
                "{}: [{}] puts its files in {}: {e}",
                job.pos,
                job.section,
                f.dir.display()
            ))
        })?;
        dirs.push(dir);
    }
    for job in &plan.jobs {
        let dir = &dirs[dir_index(&dirs, &plan.files[job.threads[0].0].dir)];
        let align = dir.direct_alignment();
        if !job.spec.direct {
            continue;
        }
        let sizes = job.spec.sizes();
        let mut need: Vec<(String, u64)> = Vec::new();
        for s in &sizes {
            match s {
                crate::disk::BlockSizes::Fixed(b) => need.push(("block size".into(), *b)),
                crate::disk::BlockSizes::Split(v) => {
                    need.extend(v.iter().map(|(b, _)| ("block size".to_string(), *b)))
                }
                crate::disk::BlockSizes::Range(lo, _) => need.push(("block size".into(), *lo)),
            }
        }
        need.push(("alignment (ba)".into(), job.spec.unit()));
        for (_, start, _) in &job.threads {
            need.push(("offset".into(), *start));
        }
        if let Some((what, v)) = need.iter().find(|(_, v)| v % align != 0) {
            return Err(usage(format!(
                "{}: [{}] uses direct=1 with a {what} of {v} bytes, not a multiple of the {align}-byte O_DIRECT alignment of {}",
                job.pos,
                job.section,
                dir.path().display()
            )));
        }
    }
    for dir in &dirs {
        let align = dir.direct_alignment();
        let total: u64 = plan
            .files
            .iter()
            .filter(|f| f.dir == dir.path() && needed(plan, f))
            .map(|f| f.size.div_ceil(align) * align)
            .sum();
        let margin = crate::disk::space_margin(dir.total_bytes());
        let free = dir.free_bytes_now();
        if total.saturating_add(margin) > free {
            return Err(usage(format!(
                "{}: its files need {} in {}: {} free, and candor leaves {} free",
                file.path,
                crate::units::fmt_bytes(total),
                dir.path().display(),
                crate::units::fmt_bytes(free),
                crate::units::fmt_bytes(margin)
            )));
        }
    }
    Ok(dirs)
}

fn dir_index(dirs: &[TestDir], path: &Path) -> usize {
    dirs.iter()
        .position(|d| d.path() == path)
        .expect("every file's directory was opened")
}

/// What the Run keeps of the job file.
fn record(file: &JobFile, plan: &lower::Plan, sections: &[String]) -> JobFileRecord {
    JobFileRecord {
        path: file.path.clone(),
        sha256: file.files[0].sha256.clone(),
        files: file
            .files
            .iter()
            .map(|f| JobFileText {
                path: f.path.clone(),
                sha256: f.sha256.clone(),
                text: f.text.clone(),
            })
            .collect(),
        sections: sections.to_vec(),
        ignored: plan.ignored.clone(),
    }
}

/// A name for candor's file from fio's (`.candor-job-<name>-<pid>-<n>.tmp`).
fn file_purpose(fio_path: &Path) -> String {
    let base = fio_path
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default();
    let clean: String = base
        .chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || "._-".contains(c) {
                c
            } else {
                '_'
            }
        })
        .take(crate::leftovers::names::MAX_JOB_NAME)
        .collect();
    if clean.is_empty() {
        return "job-file".to_string();
    }
    format!("job-{clean}")
}

/// True when some job that uses file `f` does I/O (the null engine needs no file).
fn needed(plan: &lower::Plan, f: &lower::FileUse) -> bool {
    f.jobs
        .iter()
        .any(|&j| plan.jobs[j].spec.engine != EngineChoice::Exact(EngineKind::Null))
}

/// Creates the files, runs the jobs and records each one as it ends.
fn measure(plan: &lower::Plan, dirs: &[TestDir], recorder: &mut Recorder) -> anyhow::Result<()> {
    let mut files: Vec<Option<TestFile>> = Vec::with_capacity(plan.files.len());
    for (i, f) in plan.files.iter().enumerate() {
        if !needed(plan, f) {
            files.push(None);
            continue;
        }
        let dir = &dirs[dir_index(dirs, &f.dir)];
        let align = dir.direct_alignment();
        let size = f.size.div_ceil(align) * align;
        let seed = plan.jobs[f.jobs[0]].spec.seed ^ (i as u64).wrapping_mul(0x5851_f42d);
        files.push(Some(TestFile::create(
            dir,
            &file_purpose(&f.fio_path),
            size,
            seed,
        )?));
        crate::cancel::check()?;
    }
    let planned: Vec<Planned> = plan
        .jobs
        .iter()
        .map(|job| {
            let dir = &dirs[dir_index(dirs, &plan.files[job.threads[0].0].dir)];
            let null = job.spec.engine == EngineChoice::Exact(EngineKind::Null);
            Planned {
                spec: job.spec.clone(),
                places: job
                    .threads
                    .iter()
                    .map(|&(f, start, len)| Placement {
                        file: if null { None } else { files[f].as_ref() },
                        start,
                        len,
                    })
                    .collect(),
                after: job.after.clone(),
                start_delay: job.start_delay,
                steady: job.steady.clone(),
                invalidate: job.invalidate,
                fadvise: job.fadvise,
                buffer_align: dir.buffer_alignment(),
                dir: dir.path().to_path_buf(),
            }
        })
        .collect();
    schedule::run_all(&planned, &mut |done| {
        let job = &plan.jobs[done.index];
        let mut m: DiskMeasurement = done.outcome.measurement;
        m.profile = Some(job.section.clone());
        m.fio_command = job.fio_command.clone();
        let mut notes = job.notes.clone();
        notes.append(&mut m.notes);
        m.notes = notes;
        let used: Vec<usize> = {
            let mut v: Vec<usize> = job.threads.iter().map(|t| t.0).collect();
            v.dedup();
            v.sort_unstable();
            v.dedup();
            v
        };
        m.file = files[used[0]].as_ref().map(TestFile::info);
        m.job = Some(JobInfo {
            section: job.section.clone(),
            at: job.pos.to_string(),
            group: job.group,
            start_ns: done.start_ns,
            end_ns: done.end_ns,
            ended_by: done.outcome.ended_by.to_string(),
            waited_for: job
                .after
                .iter()
                .take(WAITED_FOR_NAMED)
                .map(|i| plan.jobs[i].fio_name.clone())
                .collect(),
            waited_for_more: job.after.len().saturating_sub(WAITED_FOR_NAMED),
            start_delay_ns: job.start_delay.as_nanos() as u64,
            options: job.options.clone(),
            fio_files: used
                .iter()
                .map(|&f| plan.files[f].fio_path.display().to_string())
                .collect(),
            files: used
                .iter()
                .filter_map(|&f| files[f].as_ref().map(TestFile::info))
                .collect(),
            steadystate: done.outcome.steady,
        });
        recorder.add(Measurement::Disk(m))
    })?;
    Ok(())
    // The files are dropped (removed) here, whatever happened.
}
