//! A fio job file's jobs, run the way fio runs them: candor's own test
//! files created beside the ones fio would use, the jobs run in fio's order
//! (`disk::schedule`), each job's measurement added to the Run as it ends,
//! with its section, its place on the run's timeline and the files it used.

use crate::disk::schedule::{self, Planned};
use crate::disk::{DeviceTarget, EngineChoice, EngineKind, MadeDirs, Placement, TestDir, TestFile};
use crate::fio::jobfile::lower;
use crate::plan::jobfile::{dir_index, needed, PlanDir};
use crate::result::{DeviceJobIo, DiskMeasurement, JobInfo, Measurement, WAITED_FOR_NAMED};
use crate::session::recorder::Recorder;
use std::path::Path;

/// Creates the missing directories and the files, runs the jobs and
/// records each one as it ends; removes the files, then the directories.
pub fn measure(
    plan: &lower::JobFilePlan,
    dirs: &[PlanDir],
    recorder: &mut Recorder,
) -> anyhow::Result<()> {
    // Declared before the files: dropped after them, so each directory is
    // empty again when it is removed (on success, error and interruption).
    let (_made, opened) = make_dirs(plan, dirs, recorder)?;
    let dir_of = |path: &Path| -> &TestDir {
        let i = dir_index(dirs, path);
        opened[i].as_ref().unwrap_or(&dirs[i].dir)
    };
    let mut files: Vec<Option<TestFile>> = Vec::with_capacity(plan.files.len());
    let mut devices: Vec<Option<DeviceTarget>> = Vec::with_capacity(plan.files.len());
    for (i, f) in plan.files.iter().enumerate() {
        if !needed(plan, f) {
            files.push(None);
            devices.push(None);
            continue;
        }
        if let Some(grant) = &f.device {
            // A device is used as it is: no file, no fill.
            let writes = f.jobs.iter().any(|&j| plan.jobs[j].spec.writes_target());
            devices.push(Some(DeviceTarget::open(
                &grant.path,
                grant.rdev,
                grant.size,
                grant.writable && writes,
                crate::plan::jobfile::writable_now,
            )?));
            files.push(None);
            continue;
        }
        devices.push(None);
        let dir = dir_of(&f.dir);
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
            let first = &plan.files[job.threads[0].0];
            let (buffer_align, dir) = match &first.device {
                Some(g) => (4096.max(g.logical_block_size as usize), first.dir.clone()),
                None => {
                    let dir = dir_of(&first.dir);
                    (dir.buffer_alignment(), dir.path().to_path_buf())
                }
            };
            let null = job.spec.engine == EngineChoice::Exact(EngineKind::Null);
            Planned {
                spec: job.spec.clone(),
                places: job
                    .threads
                    .iter()
                    .map(|&(f, start, len)| Placement {
                        file: if null { None } else { files[f].as_ref() },
                        device: if null { None } else { devices[f].as_ref() },
                        start,
                        len,
                    })
                    .collect(),
                after: job.after.clone(),
                start_delay: job.start_delay,
                steady: job.steady.clone(),
                invalidate: job.invalidate,
                fadvise: job.fadvise,
                buffer_align,
                dir,
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
        if let Some(d) = devices[used[0]].as_ref() {
            let io = DeviceJobIo {
                device: d.path().display().to_string(),
                job: job.section.clone(),
                written_bytes: done.outcome.written_bytes,
                region: [
                    job.threads.iter().map(|t| t.1).min().unwrap_or(0),
                    job.threads.iter().map(|t| t.1 + t.2).max().unwrap_or(0),
                ],
            };
            if job.spec.writes_target() {
                if let Some(r) = recorder
                    .run_mut()
                    .devices
                    .iter_mut()
                    .find(|r| r.path == io.device)
                {
                    r.written_bytes += io.written_bytes;
                    r.jobs.push(io.clone());
                }
            }
            m.device = Some(io);
        }
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

/// The missing directories of the files candor makes, created as fio
/// creates them (every missing level), each then opened as a test
/// directory (by index in `dirs`); the guards remove them when dropped.
fn make_dirs(
    plan: &lower::JobFilePlan,
    dirs: &[PlanDir],
    recorder: &mut Recorder,
) -> anyhow::Result<(Vec<MadeDirs>, Vec<Option<TestDir>>)> {
    let mut made = Vec::new();
    let mut opened: Vec<Option<TestDir>> = dirs.iter().map(|_| None).collect();
    for (i, d) in dirs.iter().enumerate() {
        let used = plan
            .files
            .iter()
            .any(|f| f.device.is_none() && f.dir == d.path && needed(plan, f));
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
