//! The order fio runs a job file's jobs in: stonewall phases and
//! `wait_for` (a job's `StartsAfter`).

use crate::disk::schedule::StartsAfter;
use crate::fio::jobfile::parse::Job;
use crate::fio::jobfile::JobFileError;
use std::collections::HashMap;

/// The jobs `job` waits for, as fio's job loop (backend.c, `run_threads`)
/// orders them: it creates jobs in file order, passes over a job whose
/// `wait_for` job still runs, and stops at a stonewall job until every job
/// created before it has ended. So a stonewall job *and every job after it*
/// start when the phase before has ended (`phase`: where this job's phase
/// and the one before began; the jobs of earlier phases ended before the
/// phase before began). `wait_for` names a job before it by its fio name
/// (`name=`, else the section), which must be unique, as fio asks.
pub(super) fn order(
    job: &Job,
    index: usize,
    phase: (usize, usize),
    by_name: &HashMap<&str, Vec<usize>>,
) -> Result<StartsAfter, JobFileError> {
    let (begins, before) = phase;
    let mut after = StartsAfter {
        phase: if begins > 0 { before..begins } else { 0..0 },
        job: None,
    };
    if let Some(s) = job.get("wait_for") {
        let name = s.raw.as_deref().unwrap_or_default();
        if name == job.fio_name() {
            return Err(JobFileError::at(
                &s.pos,
                format!("wait_for={name}: a job cannot wait for itself (fio refuses it too)"),
            ));
        }
        let all = by_name.get(name).map_or(&[][..], Vec::as_slice);
        let earlier = all.partition_point(|&i| i < index);
        match &all[..earlier] {
            [] => {
                return Err(JobFileError::at(
                    &s.pos,
                    format!("wait_for={name}: no job named {name} before this one (fio matches a job's name=, else its section, and allows no forward references)"),
                ))
            }
            // A job of an earlier phase has ended before this phase begins.
            [one] if *one >= begins && !after.phase.contains(one) => after.job = Some(*one),
            [_] => {}
            _ => {
                return Err(JobFileError::at(
                    &s.pos,
                    format!("wait_for={name}: several jobs are named {name}; fio refuses that too"),
                ))
            }
        }
    }
    Ok(after)
}
