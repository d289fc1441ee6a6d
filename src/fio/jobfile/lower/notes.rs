//! Where candor does something fio would not, said in the job's notes.

use super::{LoweredJobs, Lowering};
use crate::disk::Rw;
use crate::fio::jobfile::JobFile;

/// fio lays a file out (writes it whole) before a job reads it, or with
/// `overwrite=1`; a file only written to, without it, is allocated and
/// written for the first time by the job. candor always fills its files
/// first, so its writes overwrite data: say so where fio's would not.
pub(super) fn overwrite_notes(plan: &mut LoweredJobs, file: &JobFile) {
    let read: Vec<bool> = plan
        .files
        .iter()
        .map(|f| f.jobs.iter().any(|&j| plan.jobs[j].spec.rw.reads()))
        .collect();
    for i in 0..plan.jobs.len() {
        let job = &plan.jobs[i];
        let writes_only = job.spec.rw.writes() && !job.spec.rw.reads();
        let overwrite = file.jobs[i]
            .get("overwrite")
            .is_some_and(|s| s.value.as_bool() == Some(true));
        let read_by_someone = job.threads.iter().any(|(f, _, _)| read[*f]);
        let on_device = job
            .threads
            .iter()
            .any(|(f, _, _)| plan.files[*f].device.is_some());
        if writes_only && !on_device && !overwrite && !read_by_someone {
            plan.jobs[i].notes.push(
                "fio would write into a newly allocated file (overwrite=0); candor writes its file in full first, so the writes overwrite data".to_string(),
            );
        }
    }
}

impl Lowering<'_> {
    pub(super) fn reporting_notes(&mut self, rw: &Rw) {
        if self.flag("group_reporting") {
            self.notes.push(
                "group_reporting: fio would report the jobs of this group together; candor keeps one measurement per job, its clones merged, with each thread's figures".to_string(),
            );
        }
        for (name, what) in [
            ("disable_lat", "total latency"),
            ("disable_clat", "completion latency"),
        ] {
            if self.flag(name) {
                self.notes.push(format!(
                    "{name}=1: fio would report no {what}; candor measures every operation's latency anyway"
                ));
            }
        }
        // fio refills compressible buffers itself and never scrambles zeros.
        let fio_fills = self
            .number("buffer_compress_percentage")
            .is_some_and(|(p, _)| p > 0)
            || self.flag("zero_buffers");
        if rw.writes() && !self.flag("refill_buffers") && !fio_fills {
            // The finding job-reused-buffers explains it; the note says it here.
            self.notes.push(
                "fio would reuse its write buffers (filled once, then scrambled); candor writes fresh random data every time".to_string(),
            );
        }
    }
}
