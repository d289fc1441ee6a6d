//! Integration tests of the findings: `candor analyze` and `candor explain` on
//! Run files, and `candor sweep`'s bad input and interruption. The planted
//! conditions (throttles, caches, filesystems) are in tests/truth.rs.

use crate::common;

use assert_cmd::Command;
use candor::result::*;
use std::path::Path;
use std::process::Stdio;
use std::time::Duration;

/// The binary, kept from adding to the user's history (tests/history.rs tests that).
fn candor() -> Command {
    let mut cmd = Command::cargo_bin("candor").unwrap();
    cmd.env("CANDOR_NO_HISTORY", "1");
    cmd
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
        sync: None,
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
            run_wait_ns: None,
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
            nocow: None,
            no_holes: None,
        }),
        fio_command: String::new(),
        notes: vec![],
        job: None,
        block_stack: Vec::new(),
        beside_other_jobs: false,
        device: None,
        verify: None,
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
    let _disk = common::plant::one_at_a_time();
    let dir = common::plant::test_dir("findings");
    let out = dir.path().join("sweep.json");
    let mut child = std::process::Command::new(env!("CARGO_BIN_EXE_candor"))
        .args(sweep_args(dir.path(), &out))
        .env("CANDOR_NO_HISTORY", "1")
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
