//! The one builder of fio command lines, for the three kinds of job
//! candor knows: one of its own (`for_candor_job`, the same pattern, block
//! size, depth, threads, file size, runtime, ramp, engine and sync, so a
//! user can check candor's figure with the tool they already trust), a
//! job file's job (`for_jobfile_job`, as the job file sets it) and an
//! imported fio job (`fio::job`, its options as fio reported them).

use super::jobfile::parse::Job;
use super::shell_quote;
use crate::disk::JobSpec;
use crate::result::DiskSpec;
use crate::units::{fio_duration, fio_size};
use std::path::Path;

/// A fio command line: `fio --name=NAME`, then `--option` and
/// `--option=value` words, each value quoted for a POSIX shell when it
/// needs to be.
pub struct FioCommand {
    words: Vec<String>,
}

impl FioCommand {
    /// `fio --name=NAME`: every `--name` starts a job on fio's command line.
    pub fn named(name: &str) -> FioCommand {
        FioCommand {
            words: vec!["fio".to_string(), format!("--name={}", shell_quote(name))],
        }
    }

    /// `--option=value`.
    pub fn set(&mut self, option: &str, value: impl std::fmt::Display) {
        self.words
            .push(format!("--{option}={}", shell_quote(&value.to_string())));
    }

    /// `--option` alone.
    pub fn flag(&mut self, option: &str) {
        self.words.push(format!("--{option}"));
    }

    /// The line, words separated by one space.
    pub fn line(&self) -> String {
        self.words.join(" ")
    }
}

/// fio's command for candor's `job` as it ran: with the engine chosen and
/// the depth it ran at (psync runs at depth 1), on a file in `dir`.
pub fn for_job_as_run(job: &JobSpec, ran: &DiskSpec, dir: &Path) -> String {
    let mut job = job.clone();
    job.iodepth = ran.iodepth;
    job.iodepth_batch = ran.iodepth_batch.unwrap_or(job.iodepth_batch);
    for_candor_job(&job, &ran.engine, dir)
}

/// `fio --name=NAME --opt=value ...`: a job file's job alone, with the
/// settings in force (the global ones first), as fio's command line takes
/// them. Every `--name` starts a job there, so the job's fio name is given
/// once and `name=` not repeated; `wait_for` is left out, as the job it
/// names is not on this line (fio would refuse the line: "waitee job unknown").
/// `directory`, when given, is the directory the job ran in instead of its
/// `directory=` (missing on this host, replaced by `--dir`): the line says
/// what ran.
pub fn for_jobfile_job(job: &Job, directory: Option<&Path>) -> String {
    let mut cmd = FioCommand::named(job.fio_name());
    for s in job.effective() {
        if matches!(s.def.name, "name" | "wait_for") {
            continue;
        }
        match (&s.raw, directory) {
            (Some(_), Some(d)) if s.def.name == "directory" => cmd.set(s.def.name, d.display()),
            (Some(v), _) => cmd.set(s.def.name, v),
            (None, _) => cmd.flag(s.def.name),
        }
    }
    cmd.line()
}

/// fio's command for `job` run with `engine`, on a file in `dir`.
pub fn for_candor_job(job: &JobSpec, engine: &str, dir: &Path) -> String {
    let mut cmd = FioCommand::named("candor");
    cmd.set(
        "filename",
        dir.join("fio-candor.test").display().to_string(),
    );
    cmd.set("rw", job.rw.as_str());
    if job.rw.is_mixed() {
        cmd.set("rwmixread", job.rwmixread);
    }
    cmd.set("bs", fio_size(job.bs));
    cmd.set("ioengine", engine);
    cmd.set("iodepth", job.iodepth);
    if job.iodepth_batch > 1 {
        cmd.set("iodepth_batch_submit", job.iodepth_batch);
    }
    if job.iodepth > 1 {
        // candor reaps every ready completion at once; fio's default reaps
        // one per call, so completions wait in the ring, timed, while fio
        // handles the others (its latency then reads higher at depth).
        cmd.set("iodepth_batch_complete_max", job.iodepth);
    }
    cmd.set("numjobs", job.numjobs);
    if !job.rw.is_random() && job.numjobs > 1 {
        // candor gives each sequential thread its own region of the file.
        let region = job.size / job.numjobs as u64 / job.bs * job.bs;
        cmd.set("size", fio_size(region));
        cmd.set("offset_increment", fio_size(region));
    } else {
        cmd.set("size", fio_size(job.size));
    }
    cmd.set("direct", if job.direct { 1 } else { 0 });
    if job.fsync > 0 {
        cmd.set("fsync", job.fsync);
    }
    if let Some(mode) = job.write_sync.fio() {
        cmd.set("sync", mode);
    }
    if job.rw.writes() {
        // candor overwrites a file it filled first; without --overwrite=1 a
        // write-only fio job writes into a freshly fallocated (unwritten)
        // file instead, a different and usually slower thing.
        cmd.set("overwrite", 1);
        // candor writes fresh random data every time; fio's default only
        // scrambles a buffer filled once, which a disk that compresses or
        // deduplicates would store in less space and time.
        cmd.flag("refill_buffers");
    }
    cmd.flag("time_based");
    cmd.set("runtime", fio_duration(job.runtime.as_nanos() as u64));
    if !job.ramp.is_zero() {
        cmd.set("ramp_time", fio_duration(job.ramp.as_nanos() as u64));
    }
    if job.rw.is_random() {
        // candor draws offsets independently (no coverage map) from a fresh
        // seed, uniformly unless a distribution skews them.
        cmd.flag("norandommap");
        cmd.set("randrepeat", 0);
        if !job.distribution.is_uniform() {
            cmd.set("random_distribution", job.distribution.fio());
        }
    }
    cmd.flag("group_reporting");
    cmd.line()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::result::Rw;
    use std::time::Duration;

    #[test]
    fn randread_q32() {
        let mut job = JobSpec::new(Rw::Randread, 4096, 32);
        job.runtime = Duration::from_secs(30);
        job.ramp = Duration::from_secs(5);
        let cmd = for_candor_job(&job, "io_uring", Path::new("/var/tmp"));
        assert_eq!(
            cmd,
            "fio --name=candor --filename=/var/tmp/fio-candor.test --rw=randread --bs=4k --ioengine=io_uring --iodepth=32 --iodepth_batch_complete_max=32 --numjobs=1 --size=1g --direct=1 --time_based --runtime=30s --ramp_time=5s --norandommap --randrepeat=0 --group_reporting"
        );
    }

    #[test]
    fn sequential_threads_get_regions_and_quotes() {
        let mut job = JobSpec::new(Rw::Write, 1 << 20, 8);
        job.numjobs = 4;
        job.fsync = 1;
        let cmd = for_candor_job(&job, "libaio", Path::new("/my dir"));
        assert!(cmd.contains("--filename='/my dir/fio-candor.test'"));
        assert!(cmd.contains("--size=256m --offset_increment=256m"));
        assert!(cmd.contains("--fsync=1"));
        assert!(cmd.contains("--overwrite=1 --refill_buffers"));
        assert!(!cmd.contains("--iodepth_batch_submit"));
    }

    #[test]
    fn a_distribution_is_passed_on() {
        let mut job = JobSpec::new(Rw::Randread, 4096, 1);
        job.distribution = crate::disk::Distribution::Zipf {
            theta: 1.2,
            center: None,
        };
        let cmd = for_candor_job(&job, "psync", Path::new("/var/tmp"));
        assert!(cmd.contains("--norandommap --randrepeat=0 --random_distribution=zipf:1.2"));
        job.distribution = crate::disk::Distribution::Uniform;
        let cmd = for_candor_job(&job, "psync", Path::new("/var/tmp"));
        assert!(!cmd.contains("random_distribution"));
    }

    #[test]
    fn submit_batches_are_passed_on() {
        let mut job = JobSpec::new(Rw::Randread, 4096, 32);
        job.iodepth_batch = 8;
        let cmd = for_candor_job(&job, "io_uring", Path::new("/var/tmp"));
        assert!(
            cmd.contains("--iodepth=32 --iodepth_batch_submit=8 --iodepth_batch_complete_max=32")
        );
        assert!(
            !cmd.contains("--refill_buffers"),
            "reads need no fresh buffers"
        );
    }
}
