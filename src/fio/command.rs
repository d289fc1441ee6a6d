//! The fio command line that reproduces a job: same pattern, block size,
//! depth, threads, file size, runtime, ramp, engine and sync, so a user can
//! check candor's figure with the tool they already trust.

use super::shell_quote;
use crate::disk::JobSpec;
use crate::units::{fio_duration, fio_size};
use std::path::Path;

/// fio's command for `job` run with `engine`, on a file in `dir`.
pub fn fio_command(job: &JobSpec, engine: &str, dir: &Path) -> String {
    let mut args: Vec<String> = vec![
        "fio".into(),
        "--name=candor".into(),
        format!(
            "--filename={}",
            shell_quote(&dir.join("fio-candor.test").display().to_string())
        ),
        format!("--rw={}", job.rw.as_str()),
    ];
    if job.rw.is_mixed() {
        args.push(format!("--rwmixread={}", job.rwmixread));
    }
    args.push(format!("--bs={}", fio_size(job.bs)));
    args.push(format!("--ioengine={engine}"));
    args.push(format!("--iodepth={}", job.iodepth));
    if job.iodepth_batch > 1 {
        args.push(format!("--iodepth_batch_submit={}", job.iodepth_batch));
    }
    if job.iodepth > 1 {
        // candor reaps every ready completion at once; fio's default reaps
        // one per call, so completions wait in the ring, timed, while fio
        // handles the others (its latency then reads higher at depth).
        args.push(format!("--iodepth_batch_complete_max={}", job.iodepth));
    }
    args.push(format!("--numjobs={}", job.numjobs));
    if !job.rw.is_random() && job.numjobs > 1 {
        // candor gives each sequential thread its own region of the file.
        let region = job.size / job.numjobs as u64 / job.bs * job.bs;
        args.push(format!("--size={}", fio_size(region)));
        args.push(format!("--offset_increment={}", fio_size(region)));
    } else {
        args.push(format!("--size={}", fio_size(job.size)));
    }
    args.push(format!("--direct={}", if job.direct { 1 } else { 0 }));
    if job.fsync > 0 {
        args.push(format!("--fsync={}", job.fsync));
    }
    if job.rw.writes() {
        // candor overwrites a file it filled first; without --overwrite=1 a
        // write-only fio job writes into a freshly fallocated (unwritten)
        // file instead, a different and usually slower thing.
        args.push("--overwrite=1".into());
        // candor writes fresh random data every time; fio's default only
        // scrambles a buffer filled once, which a disk that compresses or
        // deduplicates would store in less space and time.
        args.push("--refill_buffers".into());
    }
    args.push("--time_based".into());
    args.push(format!(
        "--runtime={}",
        fio_duration(job.runtime.as_nanos() as u64)
    ));
    if !job.ramp.is_zero() {
        args.push(format!(
            "--ramp_time={}",
            fio_duration(job.ramp.as_nanos() as u64)
        ));
    }
    if job.rw.is_random() {
        // candor draws offsets uniformly at random (no coverage map) from a fresh seed.
        args.push("--norandommap".into());
        args.push("--randrepeat=0".into());
    }
    args.push("--group_reporting".into());
    args.join(" ")
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
        let cmd = fio_command(&job, "io_uring", Path::new("/var/tmp"));
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
        let cmd = fio_command(&job, "libaio", Path::new("/my dir"));
        assert!(cmd.contains("--filename='/my dir/fio-candor.test'"));
        assert!(cmd.contains("--size=256m --offset_increment=256m"));
        assert!(cmd.contains("--fsync=1"));
        assert!(cmd.contains("--overwrite=1 --refill_buffers"));
        assert!(!cmd.contains("--iodepth_batch_submit"));
    }

    #[test]
    fn submit_batches_are_passed_on() {
        let mut job = JobSpec::new(Rw::Randread, 4096, 32);
        job.iodepth_batch = 8;
        let cmd = fio_command(&job, "io_uring", Path::new("/var/tmp"));
        assert!(
            cmd.contains("--iodepth=32 --iodepth_batch_submit=8 --iodepth_batch_complete_max=32")
        );
        assert!(
            !cmd.contains("--refill_buffers"),
            "reads need no fresh buffers"
        );
    }
}
