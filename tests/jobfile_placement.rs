//! A job file's CPU placement and I/O priority (issue 43): `cpus_allowed`,
//! `cpus_allowed_policy=split`, `prio`, `prioclass`. fio and candor run the
//! same job file, one after the other; while each runs, every I/O thread's
//! allowed CPUs (/proc/PID/task/TID/status, Cpus_allowed_list) and I/O
//! priority (ioprio_get of the thread) are read, and the two are compared.
//! fio's jobs are its child processes; candor's, its `candor-io-N` threads.
//! Where fio is missing the test says so and skips, except in CI (`CI=true`),
//! where it fails.

use crate::common;

use common::plant::have_fio;

use common::plant::{candor_files, one_at_a_time, test_dir};
use std::path::Path;
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

/// One I/O thread as seen from /proc: its allowed CPUs and its I/O
/// priority (class, level).
type Seen = (String, u32, u32);

fn field(status: &str, name: &str) -> Option<String> {
    status
        .lines()
        .find_map(|l| l.strip_prefix(name))
        .map(|v| v.trim().to_string())
}

fn ioprio(tid: i32) -> (u32, u32) {
    // SAFETY: ioprio_get(IOPRIO_WHO_PROCESS, tid) reads a number.
    let v = unsafe { libc::syscall(libc::SYS_ioprio_get, 1, tid) } as u32;
    (v >> 13, v & 0xff)
}

fn seen(tid: i32, status: &str) -> Seen {
    let (class, level) = ioprio(tid);
    (field(status, "Cpus_allowed_list:").unwrap(), class, level)
}

/// The threads `pick` chooses, once there are `n` of them and they have
/// had a moment to place themselves; sorted.
fn watch(n: usize, pick: &dyn Fn() -> Vec<Seen>) -> Vec<Seen> {
    let start = Instant::now();
    while start.elapsed() < Duration::from_secs(20) {
        if pick().len() == n {
            std::thread::sleep(Duration::from_millis(500));
            let mut got = pick();
            got.sort();
            return got;
        }
        std::thread::sleep(Duration::from_millis(50));
    }
    panic!("{n} I/O threads never ran together: {:?}", pick());
}

/// fio's job processes: the children of `fio`.
fn fio_jobs(fio: u32) -> Vec<Seen> {
    let mut out = Vec::new();
    for e in std::fs::read_dir("/proc").unwrap().flatten() {
        let Ok(pid) = e.file_name().to_string_lossy().parse::<i32>() else {
            continue;
        };
        let Ok(status) = std::fs::read_to_string(e.path().join("status")) else {
            continue;
        };
        if field(&status, "PPid:").as_deref() == Some(&fio.to_string()) {
            out.push(seen(pid, &status));
        }
    }
    out
}

/// candor's I/O threads: the tasks of `candor` named `candor-io-N`.
fn candor_threads(candor: u32) -> Vec<Seen> {
    let mut out = Vec::new();
    let Ok(tasks) = std::fs::read_dir(format!("/proc/{candor}/task")) else {
        return out;
    };
    for e in tasks.flatten() {
        let comm = std::fs::read_to_string(e.path().join("comm")).unwrap_or_default();
        if !comm.starts_with("candor-io-") {
            continue;
        }
        let tid: i32 = e.file_name().to_string_lossy().parse().unwrap();
        if let Ok(status) = std::fs::read_to_string(e.path().join("status")) {
            out.push(seen(tid, &status));
        }
    }
    out
}

fn finish(child: Child, what: &str) {
    let out = child.wait_with_output().unwrap();
    assert!(
        out.status.success(),
        "{what}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
}

#[test]
fn threads_run_on_the_cpus_and_at_the_priority_fio_gives_them() {
    if !have_fio() {
        return;
    }
    // SAFETY: sysconf reads a number.
    let cpus = unsafe { libc::sysconf(libc::_SC_NPROCESSORS_ONLN) };
    assert!(cpus >= 2, "the test places threads on CPUs 0 and 1");
    let _turn = one_at_a_time();
    let tmp = test_dir("placement");
    let jobs = tmp.path().join("placement.fio");
    // Together for 3 s, 100 reads a second each: [one] on CPU 1 at idle
    // priority; [split]'s two clones, fio's threads 2 and 3, one CPU each
    // of 0-1 (thread number - 1 modulo 2: CPUs 1 and 0), best-effort 5.
    std::fs::write(
        &jobs,
        "[global]\nrw=randread\nbs=4k\nsize=1m\ntime_based\nruntime=3\nrate_iops=100\nioengine=psync\n[one]\ncpus_allowed=1\nprioclass=3\n[split]\ncpus_allowed=0-1\ncpus_allowed_policy=split\nnumjobs=2\nprio=5\n",
    )
    .unwrap();
    let fio_dir = tmp.path().join("fio");
    std::fs::create_dir(&fio_dir).unwrap();
    let fio = Command::new("fio")
        .arg(&jobs)
        .current_dir(&fio_dir)
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .expect("run fio");
    let id = fio.id();
    let by_fio = watch(3, &|| fio_jobs(id));
    finish(fio, "fio");
    let expected: Vec<Seen> = vec![("0".into(), 2, 5), ("1".into(), 2, 5), ("1".into(), 3, 0)];
    assert_eq!(by_fio, expected, "fio");

    let candor = Command::new(env!("CARGO_BIN_EXE_candor"))
        .env("CANDOR_NO_HISTORY", "1")
        .args(["disk", "--job", jobs.to_str().unwrap()])
        .args(["--dir", tmp.path().to_str().unwrap(), "--format", "json"])
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let id = candor.id();
    let by_candor = watch(3, &|| candor_threads(id));
    let out = candor.wait_with_output().unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert_eq!(by_candor, by_fio, "candor against fio");
    assert!(candor_files(tmp.path()).is_empty());
    // The Run says where each thread ran.
    let run: candor::result::Run = serde_json::from_slice(&out.stdout).unwrap();
    let split = run
        .disk()
        .find(|d| d.profile.as_deref() == Some("split"))
        .unwrap();
    assert!(
        split
            .notes
            .iter()
            .any(|n| n.contains("threads on CPUs 1, 0") && n.contains("best-effort")),
        "{:?}",
        split.notes
    );
    assert!(!Path::new(&tmp.path().join("one.0.0")).exists());
}
