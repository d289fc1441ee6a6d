//! A fio job file's jobs, run the way fio runs them: on the test files the
//! runner made beside the ones fio would use (or the devices it opened), in
//! fio's order (`disk::schedule`), each job's measurement added to the Run
//! as it ends, with its section, its place on the run's timeline and the
//! files it used.

use super::Targets;
use crate::disk::schedule::{self, Planned};
use crate::disk::{EngineChoice, EngineKind, Placement, TestDir, TestFile};
use crate::fio::jobfile::lower::Lowered;
use crate::plan::DiskPlan;
use crate::result::{DeviceJobIo, DiskMeasurement, JobInfo, Measurement, WAITED_FOR_NAMED};
use crate::session::recorder::Recorder;

/// Runs `jobs` (the plan's) in fio's order on the plan's files (`targets`)
/// in `dirs` (by index in the plan's), each recorded as it ends.
pub(super) fn run(
    plan: &DiskPlan,
    jobs: &[Lowered],
    dirs: &[&TestDir],
    targets: &Targets,
    recorder: &mut Recorder,
) -> anyhow::Result<()> {
    let Targets { files, devices } = targets;
    let dir_of = |path: &std::path::Path| -> &TestDir { dirs[plan.dir_index(path)] };
    let planned: Vec<Planned> = jobs
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
                group: job.group,
                exit_what: job.exit_what,
            }
        })
        .collect();
    schedule::run_all(&planned, &mut |done| {
        let job = &jobs[done.index];
        let Some(outcome) = done.outcome else {
            // fio's exitall stopped it before it started: fio never runs it.
            recorder.run_mut().notes.push(format!(
                "[{}] never ran: exitall stopped it before it started (another job's end, as fio's fio_terminate_threads stops it)",
                job.section
            ));
            return Ok(());
        };
        let mut m: DiskMeasurement = outcome.measurement;
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
                written_bytes: outcome.written_bytes,
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
            ended_by: outcome.ended_by.to_string(),
            waited_for: job
                .after
                .iter()
                .take(WAITED_FOR_NAMED)
                .map(|i| jobs[i].fio_name.clone())
                .collect(),
            waited_for_more: job.after.len().saturating_sub(WAITED_FOR_NAMED),
            start_delay_ns: job.start_delay.as_nanos() as u64,
            options: job.options.clone(),
            fio_files: used
                .iter()
                .filter_map(|&f| plan.files[f].fio_path.as_ref())
                .map(|p| p.display().to_string())
                .collect(),
            files: used
                .iter()
                .filter_map(|&f| files[f].as_ref().map(TestFile::info))
                .collect(),
            steadystate: outcome.steady,
        });
        recorder.add(Measurement::Disk(m))
    })?;
    Ok(())
}
