//! The disk engine with real I/O: every engine in every mode, the
//! invariants of the figures, cleanup on every way out, refusals and bad
//! input. Runtimes are fractions of a second; files are small.

use crate::common;

use assert_cmd::Command;
use candor::disk::{self, EngineChoice, EngineKind, JobSpec, Rw, TestDir, TestFile};
use candor::result::{DirectionStats, DiskMeasurement, Run};
use common::plant::candor_files;
use std::path::Path;
use std::process::Stdio;
use std::time::{Duration, Instant};

const SIZE: u64 = 32 << 20;

fn job(rw: Rw, engine: EngineKind, iodepth: u32) -> JobSpec {
    let mut j = JobSpec::new(rw, 4096, iodepth);
    j.size = SIZE;
    j.runtime = Duration::from_millis(400);
    j.ramp = Duration::from_millis(100);
    j.engine = EngineChoice::Exact(engine);
    j.seed = 42;
    j
}

/// A fresh directory under /var/tmp (a real disk-backed filesystem here).
fn scratch() -> tempfile::TempDir {
    common::plant::test_dir("test")
}

fn check_direction(d: &DirectionStats, measured_ns: u64) {
    let l = &d.lat_ns;
    assert!(d.ops > 0, "no I/O recorded");
    assert!(l.min <= l.p50 && l.p50 <= l.p90 && l.p90 <= l.p99, "{l:?}");
    assert!(
        l.p99 <= l.p99_9 && l.p99_9 <= l.p99_99 && l.p99_99 <= l.max,
        "{l:?}"
    );
    assert!(l.mean >= l.min as f64 && l.mean <= l.max as f64);
    assert_eq!(d.series.iter().map(|p| p.ops).sum::<u64>(), d.ops);
    assert_eq!(d.series.iter().map(|p| p.bytes).sum::<u64>(), d.bytes);
    assert_eq!(d.bytes, d.ops * 4096);
    let expected_iops = d.ops as f64 / (measured_ns as f64 / 1e9);
    assert!((d.iops - expected_iops).abs() < 1e-6);
}

/// Totals equal the sum of the threads, for both directions.
fn check_threads_sum(m: &DiskMeasurement) {
    for (total, pick) in [(&m.read, 0usize), (&m.write, 1usize)] {
        let Some(total) = total else { continue };
        let per: Vec<&DirectionStats> = m
            .threads
            .iter()
            .map(|t| {
                if pick == 0 {
                    t.read.as_ref().unwrap()
                } else {
                    t.write.as_ref().unwrap()
                }
            })
            .collect();
        assert_eq!(per.iter().map(|d| d.ops).sum::<u64>(), total.ops);
        assert_eq!(per.iter().map(|d| d.bytes).sum::<u64>(), total.bytes);
        for i in 0..total.series.len() {
            let sum: u64 = per.iter().map(|d| d.series[i].ops).sum();
            assert_eq!(sum, total.series[i].ops, "interval {i}");
        }
    }
}

#[test]
fn every_engine_in_every_mode() {
    let tmp = scratch();
    let dir = TestDir::open(tmp.path()).unwrap();
    let file = TestFile::create(&dir, "test", SIZE, 1).unwrap();
    for engine in [
        EngineKind::IoUring,
        EngineKind::Libaio,
        EngineKind::Psync,
        EngineKind::Null,
    ] {
        for rw in [Rw::Read, Rw::Write, Rw::Randread, Rw::Randwrite, Rw::Randrw] {
            let depth = if engine == EngineKind::Psync { 1 } else { 8 };
            let mut j = job(rw.clone(), engine, depth);
            j.numjobs = 2;
            let m = candor::measure::on_file(&dir, &file, &j)
                .unwrap_or_else(|e| panic!("{} {}: {e:#}", engine.as_str(), rw.as_str()));
            assert_eq!(m.spec.engine, engine.as_str());
            assert_eq!(m.read.is_some(), rw.reads(), "{rw:?}");
            assert_eq!(m.write.is_some(), rw.writes(), "{rw:?}");
            for d in [&m.read, &m.write].into_iter().flatten() {
                check_direction(d, m.measured_ns);
            }
            assert_eq!(m.threads.len(), 2);
            check_threads_sum(&m);
            assert!(m.fio_command.contains(&format!("--rw={}", rw.as_str())));
            assert!(m
                .fio_command
                .contains(&format!("--ioengine={}", engine.as_str())));
        }
    }
    assert_eq!(candor_files(tmp.path()).len(), 1);
    drop(file);
    assert!(
        candor_files(tmp.path()).is_empty(),
        "the test file is removed on drop"
    );
}

/// Submitting in calls of several operations (fio's iodepth_batch_submit),
/// including a batch that does not divide the depth and syncs that ride
/// along, keeps every figure consistent on every queueing engine.
#[test]
fn submit_batches_keep_the_figures_consistent() {
    let tmp = scratch();
    let dir = TestDir::open(tmp.path()).unwrap();
    let file = TestFile::create(&dir, "test", SIZE, 4).unwrap();
    for engine in [EngineKind::IoUring, EngineKind::Libaio, EngineKind::Null] {
        for (batch, fsync) in [(3, 0), (8, 0), (3, 4)] {
            let mut j = job(Rw::Randrw, engine, 8);
            j.iodepth_batch = batch;
            j.fsync = fsync;
            j.numjobs = 2;
            let m = candor::measure::on_file(&dir, &file, &j)
                .unwrap_or_else(|e| panic!("{} batch {batch}: {e:#}", engine.as_str()));
            assert_eq!(m.spec.iodepth_batch, Some(batch));
            for d in [&m.read, &m.write].into_iter().flatten() {
                check_direction(d, m.measured_ns);
            }
            check_threads_sum(&m);
            assert!(m
                .fio_command
                .contains(&format!("--iodepth_batch_submit={batch}")));
        }
    }
}

/// The fio command printed for a job is one that Debian's fio accepts and
/// runs as the same job (pattern, block size, depth, batches, threads).
#[test]
fn printed_fio_command_runs_in_fio() {
    if std::process::Command::new("fio")
        .arg("--version")
        .output()
        .is_err()
    {
        eprintln!("SKIPPED: fio is absent (install Debian's fio package to run this test)");
        return;
    }
    let tmp = scratch();
    let dir = TestDir::open(tmp.path()).unwrap();
    let file = TestFile::create(&dir, "test", SIZE, 6).unwrap();
    for (rw, fsync) in [(Rw::Randread, 0), (Rw::Randrw, 0), (Rw::Write, 4)] {
        let mut j = job(rw.clone(), EngineKind::IoUring, 8);
        j.iodepth_batch = 2;
        j.fsync = fsync;
        j.numjobs = 2;
        j.runtime = Duration::from_millis(300);
        let m = candor::measure::on_file(&dir, &file, &j).unwrap();
        let out = std::process::Command::new("sh")
            .arg("-c")
            .arg(format!("{} --output-format=json", m.fio_command))
            .output()
            .unwrap();
        let stdout = String::from_utf8_lossy(&out.stdout);
        assert!(
            out.status.success(),
            "{}: {}",
            m.fio_command,
            String::from_utf8_lossy(&out.stderr)
        );
        let fio: serde_json::Value =
            serde_json::from_str(&stdout[stdout.find('{').unwrap()..]).unwrap();
        let job = &fio["jobs"][0];
        let opts = &job["job options"];
        assert_eq!(opts["rw"], rw.as_str(), "{}", m.fio_command);
        assert_eq!(opts["bs"], "4k");
        assert_eq!(opts["iodepth"], "8");
        assert_eq!(opts["iodepth_batch"], "2");
        assert_eq!(opts["numjobs"], "2");
        let ios = job["read"]["total_ios"].as_u64().unwrap()
            + job["write"]["total_ios"].as_u64().unwrap();
        assert!(ios > 0, "fio did no I/O: {}", m.fio_command);
        let _ = std::fs::remove_file(tmp.path().join("fio-candor.test"));
    }
}

#[test]
fn randrw_respects_the_mix() {
    let tmp = scratch();
    let dir = TestDir::open(tmp.path()).unwrap();
    let file = TestFile::create(&dir, "test", SIZE, 2).unwrap();
    let mut j = job(Rw::Randrw, EngineKind::Null, 16);
    j.rwmixread = 70;
    j.runtime = Duration::from_millis(200);
    let m = candor::measure::on_file(&dir, &file, &j).unwrap();
    let (r, w) = (m.read.unwrap().ops as f64, m.write.unwrap().ops as f64);
    let share = r / (r + w);
    assert!((share - 0.70).abs() < 0.02, "read share {share}");
}

#[test]
fn fsync_latency_includes_the_sync() {
    let tmp = scratch();
    let dir = TestDir::open(tmp.path()).unwrap();
    let file = TestFile::create(&dir, "test", SIZE, 3).unwrap();
    // Buffered writes land in the page cache in microseconds; with a sync
    // after each, every write waits for the disk. The gap is large enough to
    // survive a noisy shared disk and other tests running beside this one.
    let mut plain = job(Rw::Randwrite, EngineKind::Psync, 1);
    plain.direct = false;
    plain.runtime = Duration::from_millis(500);
    let mut synced = plain.clone();
    synced.fsync = 1;
    let p = candor::measure::on_file(&dir, &file, &plain)
        .unwrap()
        .write
        .unwrap();
    let s = candor::measure::on_file(&dir, &file, &synced)
        .unwrap()
        .write
        .unwrap();
    assert!(
        s.lat_ns.p50 > 3 * p.lat_ns.p50,
        "write+fsync p50 {} ns should be far above plain buffered write p50 {} ns",
        s.lat_ns.p50,
        p.lat_ns.p50
    );
    assert!(s.ops > 0);
    let mut synced = synced.clone();
    synced.engine = EngineChoice::Exact(EngineKind::IoUring);
    synced.direct = true;
    let m = candor::measure::on_file(&dir, &file, &synced).unwrap();
    assert_eq!(m.spec.fsync, 1);
    assert!(m.fio_command.contains("--fsync=1"));
}

/// Every write carries fresh random bytes: after a job has written each of
/// its slots many times, no 512-byte sector of the file appears twice.
/// (Changing a few bytes per block, as fio's default does, fails this: the
/// rest of a slot's buffer repeats, and a compressing layer would shrink it.)
#[test]
fn written_blocks_never_repeat_content() {
    let tmp = scratch();
    let dir = TestDir::open(tmp.path()).unwrap();
    let size = 4 << 20;
    let file = TestFile::create(&dir, "test", size, 5).unwrap();
    let mut j = job(Rw::Write, EngineKind::IoUring, 4);
    j.size = size;
    j.runtime = Duration::from_millis(300);
    let m = candor::measure::on_file(&dir, &file, &j).unwrap();
    // Four slots: 64 writes reuse each slot's buffer about 16 times, however
    // slow the disk is while other tests run beside this one.
    let written = m.write.unwrap().ops;
    assert!(
        written > 64,
        "too few writes to reuse the slots ({written})"
    );
    let bytes = std::fs::read(file.path()).unwrap();
    let mut seen = std::collections::HashSet::new();
    for sector in bytes.chunks(512) {
        assert!(seen.insert(sector), "a 512-byte sector repeats");
    }
}

#[test]
fn test_file_is_filled_with_random_data_and_allocated() {
    let tmp = scratch();
    let dir = TestDir::open(tmp.path()).unwrap();
    let file = TestFile::create(&dir, "test", 8 << 20, 4).unwrap();
    let info = file.info();
    assert!(info.allocated_bytes >= info.size);
    let bytes = std::fs::read(file.path()).unwrap();
    assert_eq!(bytes.len() as u64, 8 << 20);
    let zeros = bytes.iter().filter(|&&b| b == 0).count();
    // Random bytes: about 1/256 are zero; a thin or zero-filled file would be all zeros.
    assert!(zeros < bytes.len() / 100, "{zeros} zero bytes");
    // Incompressible: no 4 KiB block repeats.
    let mut blocks: Vec<&[u8]> = bytes.chunks(4096).collect();
    blocks.sort();
    blocks.dedup();
    assert_eq!(blocks.len(), (8 << 20) / 4096);
}

/// The binary, kept from adding to the user's history (tests/history.rs tests that).
fn candor() -> Command {
    let mut cmd = Command::cargo_bin("candor").unwrap();
    cmd.env("CANDOR_NO_HISTORY", "1");
    cmd
}

fn quick_args(dir: &Path) -> Vec<String> {
    vec![
        "disk".into(),
        "--dir".into(),
        dir.display().to_string(),
        "--size".into(),
        "16M".into(),
        "--runtime".into(),
        "300ms".into(),
        "--ramp".into(),
        "100ms".into(),
    ]
}

#[test]
fn cli_json_run_and_cleanup_after_success() {
    let tmp = scratch();
    let out = tmp.path().join("run.json");
    let mut args = quick_args(tmp.path());
    args.extend([
        "--format".into(),
        "json".into(),
        "--output".into(),
        out.display().to_string(),
    ]);
    let assert = candor().args(&args).assert().success();
    let stdout = String::from_utf8(assert.get_output().stdout.clone()).unwrap();
    let run: Run = serde_json::from_str(&stdout).unwrap();
    let from_file = candor::result::read_run(&out).unwrap();
    assert_eq!(run.schema, "candor.run/1");
    assert_eq!(from_file.measurements.len(), 1);
    let v: serde_json::Value = serde_json::from_str(&stdout).unwrap();
    // The JSON contract other parts and scripts read.
    for path in [
        "/tool/version",
        "/host",
        "/status",
        "/measurements",
        "/findings",
    ] {
        assert!(v.pointer(path).is_some(), "{path}");
    }
    let m = &v["measurements"][0];
    assert_eq!(m["kind"], "disk");
    for key in [
        "rw",
        "bs",
        "iodepth",
        "numjobs",
        "size",
        "runtime_ns",
        "ramp_ns",
        "engine",
        "direct",
        "fsync",
    ] {
        assert!(!m["spec"][key].is_null(), "spec.{key}");
    }
    for key in ["ops", "bytes", "iops", "bytes_per_sec", "series"] {
        assert!(!m["read"][key].is_null(), "read.{key}");
    }
    for key in ["mean", "p50", "p90", "p99", "p99_9", "max"] {
        assert!(!m["read"]["lat_ns"][key].is_null(), "lat_ns.{key}");
    }
    assert!(m["write"].is_null());
    for key in ["usr_pct", "sys_pct", "steal_pct"] {
        assert!(!m["cpu"][key].is_null(), "cpu.{key}");
    }
    assert!(m["fio_command"].as_str().unwrap().starts_with("fio "));
    assert!(m["threads"].as_array().unwrap().len() == 1);
    assert_eq!(v["status"], "complete");
    assert!(candor_files(tmp.path()).is_empty());
}

#[test]
fn text_output_names_the_fio_command() {
    let tmp = scratch();
    let assert = candor().args(quick_args(tmp.path())).assert().success();
    let stdout = String::from_utf8(assert.get_output().stdout.clone()).unwrap();
    assert!(stdout.contains("IOPS"), "{stdout}");
    assert!(stdout.contains("fio --name=candor"), "{stdout}");
}

#[test]
fn test_file_removed_after_a_failure() {
    let tmp = scratch();
    let assert = candor()
        .args(quick_args(tmp.path()))
        .env(disk::engine::FAIL_ENV, "50")
        .assert()
        .code(1);
    let stderr = String::from_utf8(assert.get_output().stderr.clone()).unwrap();
    assert!(stderr.contains("Input/output error"), "{stderr}");
    assert_eq!(stderr.lines().count(), 1, "{stderr}");
    assert!(candor_files(tmp.path()).is_empty());
}

/// Starts a long job, waits until its test file exists (and, if asked, until
/// the fill is done), sends the signal, and checks the exit and the cleanup.
fn interrupt(signal: i32, during_fill: bool) {
    let tmp = scratch();
    let bin = assert_cmd::cargo::cargo_bin("candor");
    let size = if during_fill { "2G" } else { "16M" };
    let child = std::process::Command::new(bin)
        .args([
            "disk",
            "--dir",
            tmp.path().to_str().unwrap(),
            "--size",
            size,
            "--runtime",
            "30s",
            "--ramp",
            "0s",
        ])
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let deadline = Instant::now() + Duration::from_secs(20);
    loop {
        let files = candor_files(tmp.path());
        let ready = match files.first() {
            Some(f) if during_fill => std::fs::metadata(f).map(|m| m.len() > 0).unwrap_or(false),
            Some(f) => std::fs::metadata(f)
                .map(|m| m.len() == 16 << 20)
                .unwrap_or(false),
            None => false,
        };
        if ready {
            break;
        }
        assert!(Instant::now() < deadline, "the test file never appeared");
        std::thread::sleep(Duration::from_millis(20));
    }
    if !during_fill {
        std::thread::sleep(Duration::from_millis(500)); // into the measured loop
    }
    // SAFETY: kill() with a child pid we own.
    unsafe { libc::kill(child.id() as i32, signal) };
    let status = child.wait_with_output().unwrap();
    assert_eq!(
        status.status.code(),
        Some(128 + signal),
        "{:?}",
        String::from_utf8_lossy(&status.stderr)
    );
    assert!(candor_files(tmp.path()).is_empty(), "test file left behind");
}

#[test]
fn sigint_during_the_job_removes_the_file() {
    interrupt(libc::SIGINT, false);
}

#[test]
fn sigterm_during_the_job_removes_the_file() {
    interrupt(libc::SIGTERM, false);
}

#[test]
fn sigint_during_the_fill_removes_the_file() {
    interrupt(libc::SIGINT, true);
}

#[test]
fn a_planted_symlink_is_not_followed() {
    let tmp = scratch();
    let target = tmp.path().join("precious");
    std::fs::write(&target, b"keep me").unwrap();
    // `exec` keeps the shell's pid and start time, so $$ and field 22 of
    // its /proc stat are candor's, and the planted link sits at the exact
    // name of candor's first test file.
    let script = format!(
        "ln -s {target} {dir}/.candor-disk-$$-$(cut -d' ' -f22 /proc/$$/stat)-0.tmp && exec {bin} disk --dir {dir} --size 16M --runtime 200ms --ramp 0s --rw randwrite",
        target = target.display(),
        dir = tmp.path().display(),
        bin = assert_cmd::cargo::cargo_bin("candor").display()
    );
    let out = std::process::Command::new("sh")
        .args(["-c", &script])
        .env("CANDOR_NO_HISTORY", "1")
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert_eq!(std::fs::read(&target).unwrap(), b"keep me");
    let links: Vec<_> = candor_files(tmp.path());
    assert_eq!(links.len(), 1, "only the planted link remains: {links:?}");
    assert!(std::fs::symlink_metadata(&links[0])
        .unwrap()
        .file_type()
        .is_symlink());
}

#[test]
fn engine_fallback_is_explained() {
    let tmp = scratch();
    let mut args = quick_args(tmp.path());
    args.extend(["--format".into(), "json".into()]);
    let out = candor()
        .args(&args)
        .env(disk::engine::DENY_ENV, "io_uring")
        .assert()
        .success();
    let run: Run = serde_json::from_slice(&out.get_output().stdout).unwrap();
    let m = run.disk().next().unwrap();
    assert_eq!(m.spec.engine, "libaio");
    assert!(m
        .spec
        .engine_note
        .as_deref()
        .unwrap()
        .contains("io_uring is unavailable"));

    let out = candor()
        .args(&args)
        .env(disk::engine::DENY_ENV, "io_uring,libaio")
        .assert()
        .success();
    let run: Run = serde_json::from_slice(&out.get_output().stdout).unwrap();
    let m = run.disk().next().unwrap();
    assert_eq!(m.spec.engine, "psync");
    assert_eq!(m.spec.iodepth, 1);
    assert!(
        m.notes
            .iter()
            .any(|n| n.contains("iodepth 1 instead of 32")),
        "{:?}",
        m.notes
    );

    // An engine asked for by name is not replaced behind the user's back.
    let mut explicit = quick_args(tmp.path());
    explicit.extend(["--engine".into(), "io_uring".into()]);
    let out = candor()
        .args(&explicit)
        .env(disk::engine::DENY_ENV, "io_uring")
        .assert()
        .code(1);
    let stderr = String::from_utf8(out.get_output().stderr.clone()).unwrap();
    assert!(
        stderr.contains("engine io_uring is unavailable"),
        "{stderr}"
    );
    assert!(candor_files(tmp.path()).is_empty());
}

/// A real tmpfs, mounted for this test and unmounted after.
struct TmpfsMount(tempfile::TempDir);

impl TmpfsMount {
    fn new() -> Option<TmpfsMount> {
        let dir = scratch();
        let ok = std::process::Command::new("mount")
            .args([
                "-t",
                "tmpfs",
                "-o",
                "size=64m",
                "candor-test",
                dir.path().to_str().unwrap(),
            ])
            .status()
            .map(|s| s.success())
            .unwrap_or(false);
        ok.then_some(TmpfsMount(dir))
    }
}

impl Drop for TmpfsMount {
    fn drop(&mut self) {
        let _ = std::process::Command::new("umount")
            .arg(self.0.path())
            .status();
    }
}

#[test]
fn tmpfs_is_refused() {
    let Some(mnt) = TmpfsMount::new() else {
        panic!("mounting a tmpfs needs root (tests run as root here and in CI)");
    };
    let mut args = quick_args(mnt.0.path());
    args.truncate(3);
    let out = candor().args(&args).assert().code(2);
    let stderr = String::from_utf8(out.get_output().stderr.clone()).unwrap();
    assert!(stderr.contains("tmpfs (RAM, not a disk)"), "{stderr}");
    assert_eq!(stderr.lines().count(), 1);
}

fn bad(args: &[&str], expect: &str) {
    let out = candor().arg("disk").args(args).assert().code(2);
    let stderr = String::from_utf8(out.get_output().stderr.clone()).unwrap();
    assert!(stderr.contains(expect), "{args:?}: {stderr}");
    let lines: Vec<&str> = stderr.lines().filter(|l| !l.trim().is_empty()).collect();
    assert_eq!(lines.len(), 1, "{args:?}: one line expected: {stderr}");
}

#[test]
fn bad_input_exits_2_with_one_line() {
    let tmp = scratch();
    let d = tmp.path().to_str().unwrap();
    bad(
        &["--dir", d, "--size", "0"],
        "--size must be greater than 0",
    );
    bad(&["--dir", d, "--size=-4k"], "not a size");
    bad(&["--dir", d, "--size", "lots"], "not a size");
    bad(
        &["--dir", d, "--size", "16M", "--bs", "1000"],
        "not a multiple of the",
    );
    bad(
        &["--dir", d, "--iodepth", "0"],
        "--iodepth must be at least 1",
    );
    bad(
        &["--dir", d, "--iodepth-batch", "0"],
        "--iodepth-batch must be at least 1",
    );
    bad(
        &["--dir", d, "--iodepth", "4", "--iodepth-batch", "8"],
        "--iodepth-batch 8 is above --iodepth 4",
    );
    bad(&["--dir", d, "--engine", "posixaio"], "posixaio");
    bad(
        &["--dir", d, "--no-such-flag"],
        "unexpected argument '--no-such-flag'",
    );
    bad(&["--dir", d, "--iodepth", "deep"], "invalid value 'deep'");
    bad(&["--dir", "/nonexistent/candor"], "no such directory");
    bad(&["--dir", d, "--size", "100T"], "does not fit");
    bad(&["--dir", d, "--runtime", "soon"], "not a duration");
    bad(&["--dir", d, "--ramp", "5 fortnights"], "not a duration");
    bad(
        &["--dir", d, "--rwmixread", "150", "--rw", "randrw"],
        "--rwmixread",
    );
    bad(
        &[
            "--dir",
            d,
            "--size",
            "16M",
            "--engine",
            "psync",
            "--iodepth",
            "4",
        ],
        "synchronous",
    );
    assert!(candor_files(tmp.path()).is_empty());
}

#[test]
fn unwritable_dir_is_refused() {
    // Root may write anywhere, except on a read-only mount.
    let tmp = scratch();
    let ro = tmp.path().join("ro");
    std::fs::create_dir(&ro).unwrap();
    let p = ro.to_str().unwrap();
    let bind = std::process::Command::new("mount")
        .args(["--bind", p, p])
        .status()
        .unwrap();
    assert!(bind.success());
    let remount = std::process::Command::new("mount")
        .args(["-o", "remount,ro,bind", p])
        .status()
        .unwrap();
    let result = std::panic::catch_unwind(|| {
        assert!(remount.success());
        bad(&["--dir", p], "not writable");
    });
    let _ = std::process::Command::new("umount").arg(p).status();
    result.unwrap();
}

/// `--random-distribution` (fio's `random_distribution`): the Run records
/// it, the label and the printed fio command name it, fio runs that
/// command with it, and a bad value is one line naming the flag, exit 2.
#[test]
fn a_random_distribution_is_recorded_and_passed_to_fio() {
    let tmp = scratch();
    let mut args = quick_args(tmp.path());
    args.extend(
        [
            "--engine",
            "psync",
            "--iodepth",
            "1",
            "--random-distribution",
            "zipf:1.2",
            "--format",
            "json",
        ]
        .map(String::from),
    );
    let assert = candor().args(&args).assert().success();
    let run: Run = serde_json::from_slice(&assert.get_output().stdout).unwrap();
    let m = run.disk().next().unwrap();
    assert_eq!(m.spec.random_distribution.as_deref(), Some("zipf:1.2"));
    assert_eq!(m.spec.label(), "RND4K Q1T1 zipf:1.2");
    assert!(
        m.fio_command.contains("--random_distribution=zipf:1.2"),
        "{}",
        m.fio_command
    );
    assert!(candor_files(tmp.path()).is_empty());
    if std::process::Command::new("fio")
        .arg("--version")
        .output()
        .is_ok()
    {
        let out = std::process::Command::new("sh")
            .arg("-c")
            .arg(format!("{} --output-format=json", m.fio_command))
            .current_dir(tmp.path())
            .output()
            .unwrap();
        assert!(
            out.status.success(),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
        let stdout = String::from_utf8_lossy(&out.stdout);
        let fio: serde_json::Value =
            serde_json::from_str(&stdout[stdout.find('{').unwrap()..]).unwrap();
        assert_eq!(
            fio["jobs"][0]["job options"]["random_distribution"],
            "zipf:1.2"
        );
        let _ = std::fs::remove_file(tmp.path().join("fio-candor.test"));
    } else {
        assert!(
            std::env::var("CI").as_deref() != Ok("true"),
            "fio is missing in CI"
        );
    }
    let mut args = quick_args(tmp.path());
    args.extend(["--random-distribution", "pareto:1"].map(String::from));
    let out = candor().args(&args).assert().code(2);
    let err = String::from_utf8_lossy(&out.get_output().stderr).into_owned();
    assert_eq!(err.lines().count(), 1, "{err}");
    assert!(
        err.contains("--random-distribution") && err.contains("0 < input < 1.0"),
        "{err}"
    );
}
