//! Lowering's unit tests: small job files and the plans they lower to.

use super::super::{read, Env, InMemory};
use super::files::{absolute, split_colons};
use super::*;
use crate::disk::Modifier;
use std::path::Path;

fn plan(text: &str) -> Result<LoweredJobs, JobFileError> {
    plan_with(text, false)
}

fn plan_with(text: &str, ignore: bool) -> Result<LoweredJobs, JobFileError> {
    let r = InMemory([(PathBuf::from("/j.fio"), text.to_string())].into());
    let file = read(
        &r,
        Path::new("/j.fio"),
        &[],
        &Env::fixed(&[], 4096, 8192, 2),
    )?;
    lower(
        &file,
        &Context {
            default_dir: PathBuf::from("/var/tmp"),
            dir_given: false,
            ignore_unsupported: ignore,
            seed: Some(7),
            devices: Vec::new(),
        },
    )
}

#[test]
fn a_forum_file() {
    let p = plan(
        "[global]\nioengine=libaio\nfilename=/var/tmp/t.test\nsize=100m\nloops=2\nnumjobs=32\ngroup_reporting\n[seq]\nrw=read\nbs=1m\n[rand]\nrw=randread\nbs=4k\niodepth=16\n",
    )
    .unwrap();
    assert_eq!(p.jobs.len(), 2);
    assert_eq!(p.files.len(), 1, "one shared file");
    assert_eq!(p.files[0].size, 100 << 20);
    let seq = &p.jobs[0];
    assert_eq!(seq.spec.numjobs, 32);
    assert_eq!(
        seq.spec.byte_limit,
        Some(200 << 20),
        "size x loops per clone"
    );
    assert!(seq.spec.runtime.is_zero());
    assert!(!seq.spec.direct, "fio's default is buffered");
    assert_eq!(seq.spec.iodepth, 1, "{:?}", seq.spec.engine);
    assert!(
        seq.after.is_empty() && p.jobs[1].after.is_empty(),
        "no stonewall: together"
    );
    assert_eq!(p.jobs[1].spec.iodepth, 16);
    assert!(p.jobs[1].spec.random_map);
    assert!(seq.notes.iter().any(|n| n.starts_with("group_reporting")));
    assert!(seq
        .fio_command
        .starts_with("fio --name=seq --ioengine=libaio"));
}

#[test]
fn clones_get_their_own_files_unless_named() {
    let p = plan("[w]\nrw=write\nsize=1m\nnumjobs=3\n").unwrap();
    let names: Vec<String> = p
        .files
        .iter()
        .map(|f| f.fio_path.display().to_string())
        .collect();
    assert_eq!(
        names,
        ["/var/tmp/w.0.0", "/var/tmp/w.1.0", "/var/tmp/w.2.0"]
    );
    let p = plan(
        "[w]\nrw=write\nsize=1m\nnumjobs=3\nfilename_format=shared.$filenum\noffset_increment=1m\n",
    )
    .unwrap();
    assert_eq!(p.files.len(), 1);
    assert_eq!(p.files[0].size, 3 << 20);
    assert_eq!(p.jobs[0].threads[2], (0, 2 << 20, 1 << 20));
}

#[test]
fn order_groups_and_delays() {
    let p = plan(
        "[global]\nsize=1m\n[a]\n[b]\nstonewall\n[c]\nwait_for=a\nstartdelay=2\n[d]\nnew_group\n",
    )
    .unwrap();
    // [d] comes after the stonewall job [b]: fio creates it only once [b] started.
    assert_eq!(afters(&p), [vec![], vec![0], vec![0], vec![0]]);
    let groups: Vec<u32> = p.jobs.iter().map(|j| j.group).collect();
    assert_eq!(groups, [0, 1, 1, 2]);
    assert_eq!(p.jobs[2].start_delay, Duration::from_secs(2));
    let e = plan("[a]\nsize=1m\nwait_for=z\n").unwrap_err().to_string();
    assert!(e.starts_with("/j.fio:3: wait_for=z: no job named z"), "{e}");
}

fn afters(p: &LoweredJobs) -> Vec<Vec<usize>> {
    p.jobs.iter().map(|j| j.after.iter().collect()).collect()
}

/// The fio names of the jobs job `i` waits for.
fn waited_for(p: &LoweredJobs, i: usize) -> Vec<&str> {
    p.jobs[i]
        .after
        .iter()
        .map(|j| p.jobs[j].fio_name.as_str())
        .collect()
}

/// fio's job loop stops at a stonewall job: the jobs after it start
/// with it, when the phase before has ended (issue 20).
#[test]
fn jobs_after_a_stonewall_job_start_with_it() {
    let p = plan("[global]\nsize=32m\n[seq-write]\nrw=write\n[rand-read]\nstonewall\nrw=randread\n[rand-write]\nrw=randwrite\n").unwrap();
    assert_eq!(afters(&p), [vec![], vec![0], vec![0]]);
    assert_eq!(waited_for(&p, 2), ["seq-write"]);
    let p =
        plan("[global]\nsize=1m\n[a]\n[b]\nstonewall\n[c]\n[d]\nstonewall\n[e]\n[f]\nwait_for=e\n")
            .unwrap();
    assert_eq!(
        afters(&p),
        [
            vec![],
            vec![0],
            vec![0],
            vec![1, 2],
            vec![1, 2],
            vec![1, 2, 4]
        ]
    );
    // A stonewall on the first job waits for nothing.
    let p = plan("[global]\nsize=1m\n[a]\nstonewall\n[b]\n").unwrap();
    assert_eq!(afters(&p), [Vec::<usize>::new(), vec![]]);
}

/// `wait_for` names a job as fio does: by its `name=`, else its section;
/// a `name=` in `[global]` names no job.
#[test]
fn wait_for_matches_the_jobs_fio_name() {
    let p =
        plan("[global]\nsize=1m\nname=g\n[x]\nname=alpha\n[y]\nwait_for=alpha\n[z]\nwait_for=y\n")
            .unwrap();
    assert_eq!(afters(&p), [vec![], vec![0], vec![1]]);
    assert_eq!(waited_for(&p, 1), ["alpha"]);
    let e = plan("[x]\nsize=1m\nname=alpha\n[y]\nsize=1m\nwait_for=x\n")
        .unwrap_err()
        .to_string();
    assert!(e.contains("wait_for=x: no job named x"), "{e}");
    let e = plan("[x]\nsize=1m\nname=a\n[y]\nsize=1m\nname=a\n[z]\nsize=1m\nwait_for=a\n")
        .unwrap_err()
        .to_string();
    assert!(e.contains("several jobs are named a"), "{e}");
    let e = plan("[x]\nsize=1m\nname=me\nwait_for=me\n")
        .unwrap_err()
        .to_string();
    assert!(e.contains("cannot wait for itself"), "{e}");
}

/// Where fio's order would depend on timing (a delayed job before a
/// stonewall job, a delayed stonewall job with jobs after it), candor
/// refuses the delay by name.
#[test]
fn a_start_delay_that_makes_fios_order_depend_on_timing_is_refused() {
    let e = plan("[global]\nsize=1m\n[a]\nstartdelay=1\n[b]\nstonewall\n")
        .unwrap_err()
        .to_string();
    assert!(
        e.starts_with(
            "/j.fio:4: startdelay=1: not supported: startdelay on a job before a stonewall job"
        ),
        "{e}"
    );
    let e = plan("[global]\nsize=1m\n[a]\n[b]\nstonewall\nstartdelay=1\n[c]\n")
        .unwrap_err()
        .to_string();
    assert!(
        e.contains("startdelay on a stonewall job with jobs after it"),
        "{e}"
    );
    // Ignored: the job runs without its delay, and the Run says so.
    let p = plan_with(
        "[global]\nsize=1m\n[a]\nstartdelay=1\n[b]\nstonewall\n",
        true,
    )
    .unwrap();
    assert_eq!(p.jobs[0].start_delay, Duration::ZERO);
    assert_eq!(p.ignored.len(), 1);
    // A delay after the last stonewall, or on the last job, is fio's plain order.
    let p = plan("[global]\nsize=1m\n[a]\n[b]\nstonewall\n[c]\nstartdelay=1\n").unwrap();
    assert_eq!(p.jobs[2].start_delay, Duration::from_secs(1));
    let p = plan("[global]\nsize=1m\n[a]\n[b]\nstonewall\nstartdelay=1\n").unwrap();
    assert_eq!(p.jobs[1].start_delay, Duration::from_secs(1));
}

/// Every `--name` starts a job on fio's command line: the printed
/// command names the job once, by its fio name, and leaves out `wait_for`.
#[test]
fn the_fio_command_names_its_job_once() {
    let p = plan("[global]\nname=file1\nsize=1m\n[fio-seq-reads]\nrw=read\n[b]\nname=bee\nwait_for=fio-seq-reads\n").unwrap();
    assert_eq!(
        p.jobs[0].fio_command,
        "fio --name=fio-seq-reads --size=1m --rw=read"
    );
    assert_eq!(p.jobs[1].fio_command, "fio --name=bee --size=1m");
}

#[test]
fn semantics_of_the_options_candor_runs() {
    let p = plan("[x]\nrw=randrw:4\nrwmixwrite=30\nbs=4k,64k\nsize=8m\nrate=1m,6553600\nioengine=io_uring\niodepth=8\niodepth_batch=0\ndirect=1\nfdatasync=2\nend_fsync=1\ntime_based\nruntime=3\nramp_time=500ms\nnumber_ios=1000\nrandseed=99\nnorandommap\n").unwrap();
    let s = &p.jobs[0].spec;
    assert_eq!(s.rwmixread, 70);
    assert_eq!(
        s.block_sizes,
        Some([BlockSizes::Fixed(4096), BlockSizes::Fixed(65536)])
    );
    assert_eq!(s.bs, 4096);
    assert_eq!(s.rate, [Some(1 << 20), Some(100 * 65536)]);
    assert_eq!((s.iodepth, s.iodepth_batch), (8, 8));
    assert!(s.direct && s.datasync && s.end_fsync);
    assert_eq!(s.fsync, 2);
    assert_eq!(s.runtime, Duration::from_secs(3));
    assert_eq!(s.ramp, Duration::from_millis(500));
    assert_eq!((s.byte_limit, s.op_limit), (None, Some(1000)));
    assert_eq!(s.seed, 99);
    assert!(!s.random_map);
    assert_eq!(s.modifier, Some(Modifier::Run(4)));
    // A byte rate and an IOPS rate together: fio refuses the job when it
    // starts, whichever directions each names (fio 3.33, checked here).
    let e = plan("[x]\nrw=randrw\nsize=1m\nrate=8m,\nrate_iops=,500\n").unwrap_err();
    assert!(e.to_string().contains("mutually exclusive"), "{e}");
    let p = plan("[x]\nrw=randrw\nbs=4k,64k\nsize=1m\nrate_iops=,100\n").unwrap();
    assert_eq!(p.jobs[0].spec.rate, [None, Some(100 * 65536)]);
}

#[test]
fn refusals_name_the_line_and_can_be_ignored() {
    let e = plan("[x]\nsize=1m\nthinktime_iotime=10\n")
        .unwrap_err()
        .to_string();
    assert_eq!(
        e,
        "/j.fio:3: thinktime_iotime=10: not supported: candor pauses after a count of I/Os (thinktime_blocks), not after an interval of I/O time"
    );
    let e = plan("[x]\nsize=1m\nioengine=rdma\n")
        .unwrap_err()
        .to_string();
    assert!(
        e.contains("ioengine=rdma: not supported: candor runs io_uring"),
        "{e}"
    );
    // At fio's default an unsupported option changes nothing.
    assert!(plan("[x]\nsize=1m\nthinktime=0\nverify=0\nzero_buffers=0\n").is_ok());
    let p = plan_with("[x]\nsize=1m\nthinktime_iotime=10\nioengine=rdma\n", true).unwrap();
    assert_eq!(p.ignored.len(), 2);
    assert!(p.ignored[0].ends_with("(ignored: --ignore-unsupported)"));
    let e = plan("[x]\nsize=1m\nrw=trim\n").unwrap_err().to_string();
    assert!(e.contains("trims"), "{e}");
    let e = plan("[x]\nsize=1m\nrwmixread=150\n")
        .unwrap_err()
        .to_string();
    assert_eq!(e, "/j.fio:3: rwmixread=150: out of range (0-100)");
    let e = plan("[x]\nrw=read\n").unwrap_err().to_string();
    assert!(e.contains("[x] has no size"), "{e}");
    // fio turns time_based off without a runtime and runs size-bounded.
    let p = plan("[x]\nsize=1m\ntime_based\n").unwrap();
    assert_eq!(p.jobs[0].spec.byte_limit, Some(1 << 20));
    assert!(
        p.jobs[0].notes[0].contains("requires a runtime"),
        "{:?}",
        p.jobs[0].notes
    );
    let e = plan("[x]\nsize=1m\nfilename=/dev/null\n")
        .unwrap_err()
        .to_string();
    assert!(e.contains("is a character device"), "{e}");
    // A missing directory is created as fio would (when the files are made).
    let p = plan("[x]\nsize=1m\nfilename=/nonexistent-dir/f\n").unwrap();
    assert!(
        p.jobs[0].notes[0].contains("/nonexistent-dir does not exist: candor creates it"),
        "{:?}",
        p.jobs[0].notes
    );
    // A directory= that does not exist fio refuses when the job starts.
    let e = plan("[x]\nsize=1m\ndirectory=/nonexistent-dir\n")
        .unwrap_err()
        .to_string();
    assert!(
        e.contains("fio refuses a directory= that does not exist"),
        "{e}"
    );
    // ... and no level is made below something that is not a directory.
    let e = plan("[x]\nsize=1m\nfilename=/etc/hostname/sub/f\n")
        .unwrap_err()
        .to_string();
    assert!(e.contains("/etc/hostname is not a directory"), "{e}");
    let e = plan("[x]\nsize=1m\nnumjobs=2\nss_dur=5\n")
        .unwrap_err()
        .to_string();
    assert!(e.contains("add group_reporting"), "{e}");
}

#[test]
fn an_existing_file_is_left_alone_and_said_so() {
    let dir = tempfile::tempdir().unwrap();
    let existing = dir.path().join("data.bin");
    std::fs::write(&existing, b"precious").unwrap();
    let p = plan(&format!("[x]\nsize=1m\nfilename={}\n", existing.display())).unwrap();
    assert!(
        p.jobs[0]
            .notes
            .iter()
            .any(|n| n.contains("existing file") && n.contains("8 bytes")),
        "{:?}",
        p.jobs[0].notes
    );
    assert_eq!(p.files[0].dir, dir.path());
}

#[test]
fn colons_and_paths() {
    assert_eq!(split_colons("a:b"), ["a", "b"]);
    assert_eq!(split_colons("/dev/dsk/foo@3,0\\:c"), ["/dev/dsk/foo@3,0:c"]);
    assert_eq!(
        absolute(Path::new("/a/b"), Path::new("../c/./d")),
        PathBuf::from("/a/c/d")
    );
}

#[test]
fn messages_quote_the_files_spelling() {
    let e = plan("[a]\nsize=1m\nreadwrite=bogus\n")
        .unwrap_err()
        .to_string();
    assert!(
        e.starts_with("/j.fio:3: readwrite=bogus (fio's rw): "),
        "{e}"
    );
    // The engine first, before any other refused option of the job.
    let e = plan("[a]\nsize=1m\nthinktime=10\nioengine=posixaio\n")
        .unwrap_err()
        .to_string();
    assert!(
        e.starts_with("/j.fio:4: ioengine=posixaio: not supported: candor runs"),
        "{e}"
    );
}

#[test]
fn offsets_need_not_be_whole_blocks_and_backwards_runs_from_offset_zero() {
    // fio issues offset + k x bs (checked against fio in tests/jobfile.rs).
    let p =
        plan("[a]\nsize=64k\nbs=4k\noffset=1000\noffset_increment=3000\nnumjobs=2\nfilename=f\n")
            .unwrap();
    assert_eq!(p.jobs[0].threads, [(0, 1000, 65536), (0, 4000, 65536)]);
    assert_eq!(p.files[0].size, 4000 + 65536);
    let p = plan("[a]\nsize=64k\nrw=read:-8k\n").unwrap();
    assert_eq!(p.jobs[0].spec.modifier, Some(Modifier::Back(8192)));
    let e = plan("[a]\nsize=64k\nrw=read:-8k\noffset=4k\n")
        .unwrap_err()
        .to_string();
    assert!(
        e.starts_with(
            "/j.fio:3: rw=read:-8k: not supported: backwards I/O (8192 bytes back) from an offset"
        ),
        "{e}"
    );
}

#[test]
fn random_distributions_lower_with_fio_defaults_and_reasons() {
    let p = plan("[x]\nrw=randread\nsize=8m\nrandom_distribution=zipf\n").unwrap();
    let s = &p.jobs[0].spec;
    assert_eq!(s.distribution.fio(), "zipf:1.1");
    assert!(!s.random_map, "fio turns the random map off");
    assert!(p.jobs[0].fio_command.contains("--random_distribution=zipf"));
    let p = plan("[x]\nrw=randrw\nsize=8m\nrandom_distribution=zoned_abs:50/1m:50/7m\n").unwrap();
    assert_eq!(p.jobs[0].spec.distribution.absolute_span(), Some(8 << 20));
    for (value, why) in [
        ("zipf:1", "different than 1.0"),
        ("pareto:1.5", "0 < input < 1.0"),
        ("normal:100", "< 100.0"),
        ("zipf:1.2:2", "centre"),
        ("zoned:50/10:40/90", "add to 90"),
        ("zoned_abs:50/1m:50/8m", "exceed file size"),
        ("gauss", "not a distribution"),
    ] {
        let e = plan(&format!(
            "[x]\nrw=randread\nsize=8m\nrandom_distribution={value}\n"
        ))
        .unwrap_err()
        .to_string();
        assert!(
            e.contains(why) && e.contains("random_distribution"),
            "{value}: {e}"
        );
    }
}

#[test]
fn verify_settings_lower_faithfully() {
    use crate::disk::{Verify, VerifyAlg};
    let p = plan(
        "[global]\nsize=4m\ndirect=1\n[a]\nrw=write\nverify=crc32c-intel\n[b]\nrw=randwrite\nverify=md5\ndo_verify=0\nverify_fatal=1\n[c]\nrw=write\nverify=0\n[d]\nrw=randwrite\nverify=sha256\nrandseed=99\n",
    )
    .unwrap();
    let v = |i: usize| p.jobs[i].spec.verify;
    assert_eq!(
        v(0),
        Some(Verify {
            alg: VerifyAlg::Crc32c,
            after_writes: true,
            only: false,
            fatal: false
        })
    );
    assert_eq!(
        v(1),
        Some(Verify {
            alg: VerifyAlg::Md5,
            after_writes: false,
            only: false,
            fatal: true
        })
    );
    assert_eq!(v(2), None, "verify=0 is fio's default: no verify");
    // A random verifying job repeats its offsets from run to run (for a
    // later verify_only), unless its file fixes a seed.
    assert_eq!(p.jobs[1].spec.seed, super::pattern::name_seed("b"));
    assert!(p.jobs[1]
        .notes
        .iter()
        .any(|n| n.starts_with("verify on random offsets")));
    assert_eq!(p.jobs[3].spec.seed, 99);
    assert!(p.jobs[1]
        .fio_command
        .contains("--verify=md5 --do_verify=0 --verify_fatal=1"));

    let refused = |text: &str| plan(text).unwrap_err().to_string();
    let e = refused("[a]\nsize=4m\nrw=write\nverify=md5\ntime_based\nruntime=1s\nverify_only=1\n");
    assert!(e.contains("verify_only=1: with time_based"), "{e}");
    let e = refused("[a]\nsize=4m\nrw=write\nverify=md5\nverify_only=1\n");
    assert!(e.contains("verify_only=1: on a file"), "{e}");
    let e = refused("[a]\nsize=4m\nrw=write\nverify=md5\nloops=2\n");
    assert!(
        e.contains("loops=2: not supported: loops=2 with verify"),
        "{e}"
    );
    // Two jobs writing the same bytes of one file: the verifying one is refused.
    let e = refused(
        "[global]\nsize=4m\nfilename=/var/tmp/f\n[a]\nrw=write\nverify=md5\n[b]\nrw=randwrite\n",
    );
    assert!(
        e.contains("[b] also writes bytes of this job's file while it runs"),
        "{e}"
    );
    // Ordered (a prefill before it, a job after it): no writer meanwhile.
    let p = plan("[global]\nsize=4m\nfilename=/var/tmp/f\n[fill]\nrw=write\n[a]\nstonewall\nrw=write\nverify=md5\n[b]\nstonewall\nrw=randwrite\n").unwrap();
    assert!(p.jobs[1].spec.verify.is_some());
    let p = plan("[global]\nsize=4m\nfilename=/var/tmp/f\n[a]\nrw=write\nverify=md5\n[b]\nwait_for=a\nrw=randwrite\n").unwrap();
    assert!(p.jobs[0].spec.verify.is_some());
    // Ignored on request: the job runs without verify, and says so.
    let p = plan_with(
        "[global]\nsize=4m\nfilename=/var/tmp/f\n[a]\nrw=write\nverify=md5\n[b]\nrw=randwrite\n",
        true,
    )
    .unwrap();
    assert_eq!(p.jobs[0].spec.verify, None);
    assert_eq!(p.ignored.len(), 1, "{:?}", p.ignored);
}

#[test]
fn filesize_gives_each_clones_file_its_size_and_size_bounds_the_io() {
    // fio 3.33 filesetup.c, setup_files: each file is filesize bytes, its
    // region from the offset to its end; the job's size is that region,
    // or size= where smaller (checked against fio in tests/jobfile_sizes.rs).
    let p = plan("[w]\nrw=write\nbs=64k\nfilesize=1m\nnumjobs=2\n").unwrap();
    assert_eq!(p.files.len(), 2, "each clone its own file");
    assert!(p.files.iter().all(|f| f.size == 1 << 20));
    assert_eq!(p.jobs[0].spec.byte_limit, Some(1 << 20));
    assert!(p.jobs[0].fio_command.contains("--filesize=1m"));
    let p = plan("[w]\nrw=randwrite\nbs=4k\nfilesize=2m\nsize=512k\noffset=64k\n").unwrap();
    assert_eq!(p.jobs[0].threads, [(0, 65536, (2 << 20) - 65536)]);
    assert_eq!(p.files[0].size, 2 << 20);
    assert_eq!(
        p.jobs[0].spec.byte_limit,
        Some(512 << 10),
        "size= is smaller"
    );
    let p = plan("[w]\nrw=write\nbs=4k\nfilesize=1m\nsize=8m\n").unwrap();
    assert_eq!(
        p.jobs[0].spec.byte_limit,
        Some(1 << 20),
        "fio: size over the files' is cut to them"
    );
    let e = |t: &str| plan(t).unwrap_err().to_string();
    assert!(
        e("[w]\nfilesize=1m-4m\n").contains("filesize=1m-4m: not supported: a range of file sizes")
    );
    assert!(e("[w]\nfilesize=4m-1m\n").contains("above the high size"));
    assert!(e("[w]\nfilesize=1m\noffset=2m\n").contains("offset=2m: beyond the 1048576-byte file"));
    assert!(e("[w]\nfilesize=1m\nnumjobs=2\noffset_increment=64k\n")
        .contains("offset_increment with filesize="));
    assert!(e("[w]\nfilesize=4k\nbs=64k\n").contains("filesize=4k: smaller than the block size"));
}

#[test]
fn a_job_without_size_on_an_existing_file_takes_its_size() {
    let dir = tempfile::tempdir_in("/var/tmp").unwrap();
    let theirs = dir.path().join("theirs.dat");
    std::fs::write(&theirs, vec![7u8; 3 << 20]).unwrap();
    let p = plan(&format!(
        "[r]\nrw=read\nbs=64k\noffset=1m\nfilename={}\n",
        theirs.display()
    ))
    .unwrap();
    assert_eq!(p.jobs[0].threads, [(0, 1 << 20, 2 << 20)]);
    assert_eq!(p.jobs[0].spec.byte_limit, Some(2 << 20));
    assert!(p.jobs[0]
        .notes
        .iter()
        .any(|n| n.starts_with("no size=: fio sizes the job from the existing file")));
    // An empty one sizes nothing: fio asks for size=, and so does candor.
    std::fs::write(&theirs, b"").unwrap();
    let e = plan(&format!("[r]\nrw=read\nfilename={}\n", theirs.display()))
        .unwrap_err()
        .to_string();
    assert!(e.contains("has no size"), "{e}");
}

#[test]
fn placement_follows_fio_thread_numbers_and_priority_defaults() {
    // fio 3.33: the later of cpus_allowed and cpumask wins; split counts
    // threads over the whole file (checked against fio's own threads in
    // tests/jobfile_placement.rs).
    let p = plan("[global]\nsize=1m\n[a]\nnumjobs=3\n[b]\ncpumask=0x3\ncpus_allowed=1\ncpus_allowed_policy=split\nnumjobs=2\nprio=4\n[c]\nprioclass=3\ncpus_allowed=0\ncpumask=2\n").unwrap();
    let b = &p.jobs[1].spec.placement;
    assert_eq!(b.cpus, [1]);
    assert_eq!(b.split_from, Some(3), "after [a]'s three clones");
    assert_eq!(b.ioprio, Some((2, 4)), "no class is best-effort");
    assert!(p.jobs[1].notes.iter().any(|n| n.starts_with("cpus_allowed=1 cpumask=0x3 cpus_allowed_policy=split prio=4: cpus_allowed_policy=split")), "{:?}", p.jobs[1].notes);
    let c = &p.jobs[2].spec.placement;
    assert_eq!(
        (c.cpus.as_slice(), c.split_from, c.ioprio),
        (&[1][..], None, Some((3, 0)))
    );
    assert!(!p.jobs[0].spec.placement.is_set());
    let e = |t: &str| plan(t).unwrap_err().to_string();
    assert!(e("[a]\nsize=1m\nprio=8\n").contains("prio=8: out of range (0-7)"));
    assert!(e("[a]\nsize=1m\ncpus_allowed=1000\n").contains("CPU 1000 is beyond this host's CPUs"));
    assert!(e("[a]\nsize=1m\ncpus_allowed=4000\n").contains("fio handles CPUs up to 1023"));
    assert!(e("[a]\nsize=1m\ncpus_allowed_policy=spread\n").contains("not a policy"));
    assert!(e("[a]\nsize=1m\nnuma_cpu_nodes=0\n").contains("it runs cpus_allowed"));
}

#[test]
fn write_data_follows_fio_fixup_options() {
    use crate::disk::data::WriteContent;
    let data = |t: &str| plan(t).unwrap().jobs[0].spec.data;
    assert_eq!(data("[w]\nrw=write\nsize=1m\n"), WriteContent::Random);
    assert_eq!(
        data("[w]\nrw=write\nsize=1m\nbuffer_compress_percentage=50\n"),
        WriteContent::Compressible {
            percent: 50,
            chunk: 512
        }
    );
    // The chunk is at most the smallest write; 0 means the smallest write.
    assert_eq!(
        data("[w]\nrw=write\nbs=4k\nsize=1m\nbuffer_compress_percentage=30\nbuffer_compress_chunk=0\n"),
        WriteContent::Compressible { percent: 30, chunk: 4096 }
    );
    assert_eq!(
        data("[w]\nrw=write\nbs=4k\nsize=1m\nbuffer_compress_percentage=30\nbuffer_compress_chunk=64k\n"),
        WriteContent::Compressible { percent: 30, chunk: 4096 }
    );
    assert_eq!(
        data("[w]\nrw=write\nsize=1m\nbuffer_compress_percentage=100\n"),
        WriteContent::Zeros
    );
    assert_eq!(
        data("[w]\nrw=write\nsize=1m\nzero_buffers\n"),
        WriteContent::Zeros
    );
    let p = plan("[w]\nrw=write\nsize=1m\nbuffer_compress_percentage=50\n").unwrap();
    assert!(
        !p.jobs[0]
            .notes
            .iter()
            .any(|n| n.contains("reuse its write buffers")),
        "fio refills them"
    );
    let e = plan("[w]\nrw=write\nsize=1m\nbuffer_compress_percentage=101\n")
        .unwrap_err()
        .to_string();
    assert!(
        e.contains("buffer_compress_percentage=101: out of range (0-100)"),
        "{e}"
    );
}

#[test]
fn rate_min_as_fio_reads_it() {
    use crate::disk::min_rate::{Floor, MinRate};
    // One value for every direction, as rate= (fio: ratemin[ddir] for each).
    let p = plan("[x]\nrw=randrw\nsize=1m\nratemin=1k\nratecycle=250\n").unwrap();
    assert_eq!(
        p.jobs[0].spec.rate_min,
        Some(MinRate {
            floor: [Some(Floor::Bytes(1024)); 2],
            cycle: Duration::from_millis(250)
        })
    );
    let p = plan("[x]\nrw=read\nsize=1m\nrate_iops_min=,20\n").unwrap();
    assert_eq!(
        p.jobs[0].spec.rate_min.unwrap().floor,
        [None, Some(Floor::Ops(20))]
    );
    assert_eq!(
        plan("[x]\nsize=1m\nrate=1k\n").unwrap().jobs[0]
            .spec
            .rate_min,
        None
    );
    // What fio's fixup_options refuses when the job starts.
    let e = plan("[x]\nsize=1m\nrate=1k\nratemin=2k\n")
        .unwrap_err()
        .to_string();
    assert!(e.contains("minimum rate exceeds rate"), "{e}");
    let e = plan("[x]\nsize=1m\nratemin=2k\nrate_iops_min=5\n")
        .unwrap_err()
        .to_string();
    assert!(e.contains("mutually exclusive"), "{e}");
    let e = plan("[x]\nsize=1m\nratemin=2k\nrate_cycle=0\n")
        .unwrap_err()
        .to_string();
    assert!(e.contains("rate_cycle=0"), "{e}");
}

#[test]
fn a_replaced_directory_is_printed_as_run() {
    let r = InMemory(
        [(
            PathBuf::from("/j.fio"),
            "[x]\nsize=1m\ndirectory=/candor-absent-dir\n".to_string(),
        )]
        .into(),
    );
    let file = read(
        &r,
        Path::new("/j.fio"),
        &[],
        &Env::fixed(&[], 4096, 8192, 2),
    )
    .unwrap();
    let ctx = |dir_given| Context {
        default_dir: std::env::temp_dir(),
        dir_given,
        ignore_unsupported: false,
        seed: Some(7),
        devices: Vec::new(),
    };
    let p = lower(&file, &ctx(true)).unwrap();
    let cmd = &p.jobs[0].fio_command;
    let want = format!("--directory={}", std::env::temp_dir().display());
    assert!(cmd.contains(&want) && !cmd.contains("absent"), "{cmd}");
}

#[test]
fn a_device_this_host_lacks_is_named() {
    let e = plan("[x]\nrw=randread\nfilename=/dev/candor-no-such-nvme\n")
        .unwrap_err()
        .to_string();
    assert!(
        e.contains("filename=/dev/candor-no-such-nvme")
            && e.contains("/dev/candor-no-such-nvme is not a device on this host"),
        "{e}"
    );
    // A file that does not exist, elsewhere, still asks for size= as fio does.
    let e = plan("[x]\nrw=randread\nfilename=/var/tmp/candor-no-such-file\n")
        .unwrap_err()
        .to_string();
    assert!(e.contains("has no size"), "{e}");
}

#[test]
fn flow_as_fio_reads_it() {
    use crate::disk::flow::Flow;
    let p =
        plan("[x]\nsize=1m\nflow=3\nflow_id=2\nflow_sleep=500\n[y]\nsize=1m\nflow=0\n").unwrap();
    assert_eq!(
        p.jobs[0].spec.flow,
        Some(Flow {
            id: 2,
            weight: 3,
            sleep: Duration::from_micros(500)
        })
    );
    assert_eq!(p.jobs[1].spec.flow, None, "flow=0: not in a flow, as fio");
    let e = plan("[x]\nsize=1m\nflow=1001\n").unwrap_err().to_string();
    assert!(e.contains("FLOW_MAX_WEIGHT"), "{e}");
}
