//! Integration tests of the findings: `candor analyze` and `candor explain` on
//! Run files, and real planted conditions around `candor sweep` and
//! `candor disk`: cgroup v1 blkio throttles (caps, limiter, burst-cliff), an
//! unthrottled sweep (no invented caps) and a tmpfs test directory (refused).
//! The cgroup tests need root and /sys/fs/cgroup/blkio, as on the project's
//! machines; they create and remove their own groups and mounts.

use assert_cmd::Command;
use candor::result::*;
use std::os::unix::fs::MetadataExt;
use std::path::{Path, PathBuf};
use std::process::Stdio;
use std::time::Duration;

fn candor() -> Command {
    Command::cargo_bin("candor").unwrap()
}

// ---------------------------------------------------------------- analyze / explain

fn job(
    profile: &str,
    rw: &str,
    bs: u64,
    qd: u32,
    pass: u32,
    iops: f64,
    role: FileRole,
) -> Measurement {
    let stats = DirectionStats {
        ops: (iops * 30.0) as u64,
        bytes: (iops * 30.0) as u64 * bs,
        iops,
        bytes_per_sec: iops * bs as f64,
        ..Default::default()
    };
    let reads = rw.contains("read");
    Measurement::Disk(DiskMeasurement {
        span: None,
        profile: Some(profile.into()),
        pass: Some(pass),
        role,
        started_at: None,
        spec: DiskSpec {
            rw: rw.into(),
            rwmixread: None,
            bs,
            iodepth: qd,
            iodepth_batch: Some(1),
            numjobs: 1,
            size: 1 << 30,
            runtime_ns: 30_000_000_000,
            ramp_ns: 0,
            engine: "io_uring".into(),
            engine_note: None,
            registered_buffers: None,
            direct: true,
            fsync: 0,
            seed: 1,
            ..Default::default()
        },
        read: reads.then(|| stats.clone()),
        write: (!reads).then_some(stats),
        threads: vec![],
        cpu: CpuUse {
            usr_pct: 3.0,
            sys_pct: 9.0,
            steal_pct: 0.0,
            cpu_ns: 1,
        },
        measured_ns: 30_000_000_000,
        file: Some(TestFileInfo {
            path: "/var/tmp/x".into(),
            size: if role == FileRole::Main {
                1 << 30
            } else {
                48 << 30
            },
            allocated_bytes: if role == FileRole::Main {
                1 << 30
            } else {
                48 << 30
            },
            fill_ns: 0,
        }),
        fio_command: String::new(),
        notes: vec![],
        job: None,
    })
}

/// A battery-shaped Run with the real cases: a 30x host cache and a limiter
/// that gives 40132.5-40132.7 IOPS in three passes.
fn limited_cached_run() -> Run {
    let mut run = Run::new(vec!["candor".into(), "run".into()]);
    run.label = Some("vps-a".into());
    run.status = RunStatus::Complete;
    for (pass, iops) in [(1, 40132.5), (2, 40132.7), (3, 40132.6)] {
        run.measurements.push(job(
            "RND4K Q32T1",
            "randread",
            4096,
            32,
            pass,
            iops,
            FileRole::Main,
        ));
        run.measurements.push(job(
            "SEQ1M Q8T1",
            "read",
            1 << 20,
            8,
            pass,
            1474.8e6 / 1048576.0,
            FileRole::Main,
        ));
    }
    run.measurements.push(job(
        "SEQ1M Q8T1",
        "read",
        1 << 20,
        8,
        1,
        49.3e6 / 1048576.0,
        FileRole::Control,
    ));
    run
}

#[test]
fn analyze_prints_findings_with_evidence_and_claims() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("run.json");
    write_run(&limited_cached_run(), &path, candor::output::Replace::Force).unwrap();
    let out = candor().arg("analyze").arg(&path).output().unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let text = String::from_utf8(out.stdout).unwrap();
    assert!(
        text.contains("WARNING     host-cache [SEQ1M Q8T1 read]"),
        "{text}"
    );
    assert!(
        text.contains("WARNING     limiter-flat [RND4K Q32T1 read]"),
        "{text}"
    );
    assert!(text.contains("evidence: control_bytes_per_sec="), "{text}");
    assert!(text.contains("NOT CHECKED"), "{text}");
    assert!(
        text.contains("Can claim:") && text.contains("Cannot claim:"),
        "{text}"
    );

    let out = candor()
        .args(["analyze", "--format", "json"])
        .arg(&path)
        .output()
        .unwrap();
    let doc: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    let findings = doc["runs"][0]["findings"].as_array().unwrap();
    let flat = findings.iter().find(|f| f["id"] == "limiter-flat").unwrap();
    assert_eq!(flat["status"], "checked");
    assert_eq!(flat["evidence"]["threshold_spread"], 0.0005);
    assert_eq!(findings.last().unwrap()["id"], "claims");
}

#[test]
fn analyze_write_stores_findings_and_several_runs_get_cross_host() {
    let dir = tempfile::tempdir().unwrap();
    let a = dir.path().join("a.json");
    let b = dir.path().join("b.json");
    write_run(&limited_cached_run(), &a, candor::output::Replace::Force).unwrap();
    let mut other = limited_cached_run();
    other.label = Some("vps-b".into());
    write_run(&other, &b, candor::output::Replace::Force).unwrap();
    let out = candor()
        .args(["analyze", "--write", "--format", "json"])
        .arg(&a)
        .arg(&b)
        .output()
        .unwrap();
    assert!(out.status.success());
    let doc: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(doc["cross_host"][0]["id"], "metric-disagreement");
    assert_eq!(doc["cross_host"][0]["status"], "not-checked");
    let stored = read_run(&a).unwrap();
    assert!(stored.findings.iter().any(|f| f.id == "host-cache"));
}

#[test]
fn analyze_bad_inputs_exit_2() {
    let dir = tempfile::tempdir().unwrap();
    let p = dir.path().join("junk.json");
    std::fs::write(&p, "{\"hello\": 1}").unwrap();
    let out = candor().arg("analyze").arg(&p).output().unwrap();
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("not a candor Run"));
    let out = candor()
        .args(["analyze", "/nonexistent/run.json"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
}

#[test]
fn explain_lists_and_explains() {
    let out = candor().args(["explain", "--list"]).output().unwrap();
    let text = String::from_utf8(out.stdout).unwrap();
    for id in [
        "host-cache",
        "limiter-flat",
        "caps",
        "burst-cliff",
        "metric-disagreement",
    ] {
        assert!(text.contains(id), "{id} missing from --list");
    }
    let out = candor()
        .args(["explain", "round-plateau"])
        .output()
        .unwrap();
    let text = String::from_utf8(out.stdout).unwrap();
    assert!(
        text.contains("501.6 MiB/s") && text.contains("ROUND_TOLERANCE = 0.005"),
        "{text}"
    );
    let out = candor().args(["explain", "no-such-id"]).output().unwrap();
    assert_eq!(out.status.code(), Some(2));
    let out = candor().arg("explain").output().unwrap();
    assert_eq!(out.status.code(), Some(2));
}

// ---------------------------------------------------------------- planted conditions

const BLKIO: &str = "/sys/fs/cgroup/blkio";

/// The planted-condition tests measure the same disk: one at a time, so that
/// one's I/O does not blur another's levels.
static DISK: std::sync::Mutex<()> = std::sync::Mutex::new(());

fn one_at_a_time() -> std::sync::MutexGuard<'static, ()> {
    DISK.lock().unwrap_or_else(|e| e.into_inner())
}

/// A cgroup v1 blkio group of our own, removed on drop (even when the test fails).
struct Cgroup {
    path: PathBuf,
    device: String,
}

impl Cgroup {
    fn new(tag: &str, dir: &Path) -> Cgroup {
        let path = Path::new(BLKIO).join(format!("candor-test-{tag}-{}", std::process::id()));
        std::fs::create_dir(&path).unwrap_or_else(|e| {
            panic!(
                "cannot create {} (these tests need root and cgroup v1 blkio): {e}",
                path.display()
            )
        });
        Cgroup {
            path,
            device: whole_disk(dir),
        }
    }

    /// Sets one throttle (`read_iops_device`, `write_iops_device`, `read_bps_device`, ...).
    fn set(&self, file: &str, value: u64) {
        let f = self.path.join(format!("blkio.throttle.{file}"));
        std::fs::write(&f, format!("{} {value}", self.device))
            .unwrap_or_else(|e| panic!("cannot write {}: {e}", f.display()));
    }

    /// Read operations the group has served so far (all devices).
    fn reads_served(&self) -> u64 {
        let text = std::fs::read_to_string(self.path.join("blkio.throttle.io_serviced"))
            .unwrap_or_default();
        text.lines()
            .filter(|l| {
                l.ends_with(char::is_numeric) && l.split_whitespace().nth(1) == Some("Read")
            })
            .filter_map(|l| l.split_whitespace().nth(2)?.parse::<u64>().ok())
            .sum()
    }

    /// A shell command that puts itself into the group, then becomes candor.
    fn wrap(&self, args: &[String]) -> std::process::Command {
        let mut c = std::process::Command::new("sh");
        let quoted: Vec<String> = args.iter().map(|a| format!("'{a}'")).collect();
        c.arg("-c").arg(format!(
            "echo $$ > '{}' && exec '{}' {}",
            self.path.join("cgroup.procs").display(),
            env!("CARGO_BIN_EXE_candor"),
            quoted.join(" ")
        ));
        c
    }
}

impl Drop for Cgroup {
    fn drop(&mut self) {
        // The candor process has exited by now; an empty group can be removed.
        for _ in 0..50 {
            if std::fs::remove_dir(&self.path).is_ok() || !self.path.exists() {
                return;
            }
            std::thread::sleep(Duration::from_millis(100));
        }
        eprintln!("warning: could not remove {}", self.path.display());
    }
}

/// MAJ:MIN of the whole disk under `dir` (throttles apply to disks, not partitions).
fn whole_disk(dir: &Path) -> String {
    let dev = std::fs::metadata(dir).unwrap().dev();
    let (maj, min) = (libc_major(dev), libc_minor(dev));
    let sys = PathBuf::from(format!("/sys/dev/block/{maj}:{min}"));
    assert!(
        sys.exists(),
        "{} has no block device ({maj}:{min})",
        dir.display()
    );
    if sys.join("partition").exists() {
        let parent = std::fs::canonicalize(&sys)
            .unwrap()
            .parent()
            .unwrap()
            .join("dev");
        return std::fs::read_to_string(parent).unwrap().trim().to_string();
    }
    format!("{maj}:{min}")
}

fn libc_major(dev: u64) -> u64 {
    ((dev >> 32) & 0xffff_f000) | ((dev >> 8) & 0xfff)
}

fn libc_minor(dev: u64) -> u64 {
    ((dev >> 12) & 0xffff_ff00) | (dev & 0xff)
}

fn test_dir() -> tempfile::TempDir {
    tempfile::Builder::new()
        .prefix("candor-findings-")
        .tempdir_in("/var/tmp")
        .unwrap()
}

fn sweep_args(dir: &Path, out: &Path) -> Vec<String> {
    [
        "sweep",
        "--dir",
        &dir.display().to_string(),
        "--runtime",
        "1s",
        "--ramp",
        "500ms",
        "--size",
        "256M",
        "--output",
        &out.display().to_string(),
        "--format",
        "json",
    ]
    .iter()
    .map(|s| s.to_string())
    .collect()
}

fn caps_of(run: &Run) -> serde_json::Value {
    run.findings
        .iter()
        .find(|f| f.id == "caps")
        .expect("a caps finding")
        .evidence
        .clone()
}

/// The sweep's points, one line each, for failure messages.
fn points_table(run: &Run) -> String {
    run.disk()
        .flat_map(|m| {
            [&m.read, &m.write].into_iter().flatten().map(move |s| {
                format!(
                    "{} {} QD{}: {:.0} IOPS {:.2} MB/s\n",
                    m.spec.rw,
                    m.spec.bs,
                    m.spec.iodepth,
                    s.iops,
                    s.bytes_per_sec / 1e6
                )
            })
        })
        .collect()
}

fn within(run: &Run, key: &str, planted: f64) {
    let caps = caps_of(run);
    let ok = caps[key]
        .as_f64()
        .is_some_and(|v| (v / planted - 1.0).abs() <= 0.05);
    assert!(
        ok,
        "{key}: inferred {}, planted {planted}\ncaps: {caps}\n{}",
        caps[key],
        points_table(run)
    );
}

#[test]
fn throttled_sweep_finds_the_planted_caps_and_a_limiter() {
    let _disk = one_at_a_time();
    let dir = test_dir();
    let out = dir.path().join("sweep.json");
    let group = Cgroup::new("caps", dir.path());
    group.set("read_iops_device", 2000);
    group.set("write_iops_device", 1000);
    group.set("read_bps_device", 50_000_000);
    let status = group
        .wrap(&sweep_args(dir.path(), &out))
        .stdout(Stdio::null())
        .status()
        .unwrap();
    assert!(status.success(), "candor sweep failed: {status}");
    let run = read_run(&out).unwrap();
    let caps = caps_of(&run);
    within(&run, "read_iops", 2000.0);
    within(&run, "write_iops", 1000.0);
    within(&run, "read_bytes_per_sec", 50e6);
    assert!(
        caps["write_bytes_per_sec"].is_null(),
        "no write bandwidth cap was planted: {caps}"
    );
    assert!(
        run.findings
            .iter()
            .any(|f| f.id.starts_with("limiter-") && f.status == FindingStatus::Checked),
        "no limiter finding: {:?}",
        run.findings.iter().map(|f| &f.id).collect::<Vec<_>>()
    );
}

#[test]
fn unthrottled_sweep_invents_no_cap() {
    let _disk = one_at_a_time();
    let dir = test_dir();
    let out = dir.path().join("sweep.json");
    let status = std::process::Command::new(env!("CARGO_BIN_EXE_candor"))
        .args(sweep_args(dir.path(), &out))
        .stdout(Stdio::null())
        .status()
        .unwrap();
    assert!(status.success());
    let caps = caps_of(&read_run(&out).unwrap());
    for key in [
        "read_iops",
        "write_iops",
        "read_bytes_per_sec",
        "write_bytes_per_sec",
    ] {
        assert!(caps[key].is_null(), "invented {key}: {caps}");
    }
}

#[test]
fn throttle_lowered_mid_run_is_a_burst_cliff() {
    let _disk = one_at_a_time();
    let dir = test_dir();
    let out = dir.path().join("disk.json");
    let group = Cgroup::new("cliff", dir.path());
    group.set("read_iops_device", 3000);
    let args: Vec<String> = [
        "disk",
        "--dir",
        &dir.path().display().to_string(),
        "--rw",
        "randread",
        "--bs",
        "4k",
        "--iodepth",
        "16",
        "--size",
        "256M",
        "--runtime",
        "6s",
        "--output",
        &out.display().to_string(),
    ]
    .iter()
    .map(|s| s.to_string())
    .collect();
    let mut child = group.wrap(&args).stdout(Stdio::null()).spawn().unwrap();
    // Before the job reads, the group serves a few dozen reads at most (the
    // binary's pages, filesystem metadata during the fill); the job's ramp at
    // 3000 IOPS passes 500 reads within 0.2 s. From there, wait out the 1 s
    // ramp and 3 s at 3000 IOPS, then lower the throttle to 500.
    let start = std::time::Instant::now();
    while group.reads_served() < 500 && start.elapsed() < Duration::from_secs(60) {
        std::thread::sleep(Duration::from_millis(10));
    }
    assert!(
        group.reads_served() >= 500,
        "candor disk never started reading"
    );
    std::thread::sleep(Duration::from_millis(4000));
    group.set("read_iops_device", 500);
    let status = child.wait().unwrap();
    assert!(status.success(), "candor disk failed: {status}");
    let out2 = candor()
        .args(["analyze", "--format", "json"])
        .arg(&out)
        .output()
        .unwrap();
    let doc: serde_json::Value = serde_json::from_slice(&out2.stdout).unwrap();
    let cliff = doc["runs"][0]["findings"]
        .as_array()
        .unwrap()
        .iter()
        .find(|f| f["id"] == "burst-cliff" && f["status"] == "checked")
        .unwrap_or_else(|| {
            let run = read_run(&out).unwrap();
            let series: Vec<(u64, u64)> = run
                .disk()
                .flat_map(|m| {
                    m.read
                        .iter()
                        .flat_map(|r| r.series.iter().map(|p| (p.ops, p.dur_ns)))
                })
                .collect();
            panic!("no burst-cliff; per-second read ops and durations: {series:?}")
        })
        .clone();
    let before = cliff["evidence"]["level_before_iops"].as_f64().unwrap();
    let after = cliff["evidence"]["level_after_iops"].as_f64().unwrap();
    assert!(
        (before / 3000.0 - 1.0).abs() < 0.1,
        "level before {before}, planted 3000"
    );
    assert!(
        (after / 500.0 - 1.0).abs() < 0.1,
        "level after {after}, planted 500"
    );
}

/// A tmpfs mounted for the test, unmounted on drop.
struct Tmpfs(tempfile::TempDir);

impl Drop for Tmpfs {
    fn drop(&mut self) {
        let _ = std::process::Command::new("umount")
            .arg(self.0.path())
            .status();
    }
}

#[test]
fn tmpfs_test_directory_is_refused() {
    let mount = Tmpfs(tempfile::tempdir_in("/var/tmp").unwrap());
    let ok = std::process::Command::new("mount")
        .args(["-t", "tmpfs", "-o", "size=64m", "candor-test"])
        .arg(mount.0.path())
        .status()
        .unwrap();
    assert!(ok.success(), "cannot mount a tmpfs (needs root)");
    let out = candor()
        .args(["sweep", "--runtime", "1s", "--size", "16M", "--dir"])
        .arg(mount.0.path())
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("tmpfs"), "{err}");
}

// ---------------------------------------------------------------- sweep inputs and interruption

#[test]
fn sweep_bad_inputs_exit_2_naming_the_flag() {
    for (args, flag) in [
        (vec!["--runtime", "soon"], "--runtime"),
        (vec!["--size", "512k"], "--size"),
        (vec!["--dir", "/nonexistent/dir"], "--dir"),
        (vec!["--output", "/nonexistent/dir/run.json"], "--output"),
    ] {
        let out = candor().arg("sweep").args(&args).output().unwrap();
        assert_eq!(out.status.code(), Some(2), "{args:?}");
        let err = String::from_utf8_lossy(&out.stderr);
        assert!(err.contains(flag), "{args:?}: {err}");
    }
}

#[test]
fn interrupted_sweep_keeps_its_points_and_removes_its_file() {
    let _disk = one_at_a_time();
    let dir = test_dir();
    let out = dir.path().join("sweep.json");
    let mut child = std::process::Command::new(env!("CARGO_BIN_EXE_candor"))
        .args(sweep_args(dir.path(), &out))
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    // Wait for two finished points, then SIGINT.
    let start = std::time::Instant::now();
    loop {
        let done = read_run(&out).map(|r| r.measurements.len()).unwrap_or(0);
        if done >= 2 || start.elapsed() > Duration::from_secs(60) {
            break;
        }
        std::thread::sleep(Duration::from_millis(50));
    }
    // SAFETY: kill() with a child's pid and SIGINT has no memory effects.
    unsafe { libc::kill(child.id() as i32, libc::SIGINT) };
    let status = child.wait().unwrap();
    assert_eq!(status.code(), Some(130));
    let run = read_run(&out).unwrap();
    assert_eq!(run.status, RunStatus::Interrupted);
    assert!(run.measurements.len() >= 2);
    assert!(run.findings.iter().any(|f| f.id == "claims"));
    let leftovers: Vec<_> = std::fs::read_dir(dir.path())
        .unwrap()
        .filter_map(|e| e.ok())
        .filter(|e| e.file_name().to_string_lossy().starts_with(".candor-"))
        .collect();
    assert!(leftovers.is_empty(), "test file left behind: {leftovers:?}");
}
