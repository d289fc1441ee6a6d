//! `candor run` end to end: the real binary, real O_DIRECT I/O in a temp
//! directory under /var/tmp (disk-backed here), tiny runtimes.

use assert_cmd::Command;
use candor::result::{read_run, FileRole, Run, RunStatus};
use std::path::{Path, PathBuf};
use std::process::Stdio;
use std::time::{Duration, Instant};

/// The binary, kept from adding to the user's history (tests/history.rs tests that).
fn candor() -> Command {
    let mut cmd = Command::cargo_bin("candor").unwrap();
    cmd.env("CANDOR_NO_HISTORY", "1");
    cmd
}

fn workdir() -> tempfile::TempDir {
    tempfile::Builder::new()
        .prefix("candor-battery-test")
        .tempdir_in("/var/tmp")
        .unwrap()
}

/// Test files the battery left behind (`.candor-*`, not the Run's own temp file).
fn leftovers(dir: &Path) -> Vec<String> {
    std::fs::read_dir(dir)
        .unwrap()
        .filter_map(|e| e.ok())
        .map(|e| e.file_name().to_string_lossy().to_string())
        .filter(|n| n.starts_with(".candor-"))
        .collect()
}

/// Tiny disk settings (16 MiB file, 200 ms per test, no ramp, no pause),
/// with `extra` flags replacing or adding to them.
fn tiny(dir: &Path, out: &Path, extra: &[&str]) -> Vec<String> {
    let mut flags: Vec<(String, Option<String>)> = vec![
        ("--preset".into(), Some("quick".into())),
        ("--dir".into(), Some(dir.to_str().unwrap().into())),
        ("--size".into(), Some("16M".into())),
        ("--runtime".into(), Some("200ms".into())),
        ("--ramp".into(), Some("0".into())),
        ("--pause".into(), Some("0".into())),
        ("--output".into(), Some(out.to_str().unwrap().into())),
        ("--quiet".into(), None),
    ];
    for pair in extra.chunks(2) {
        let value = pair.get(1).map(|v| v.to_string());
        match flags.iter_mut().find(|(f, _)| f == pair[0]) {
            Some(slot) => slot.1 = value,
            None => flags.push((pair[0].to_string(), value)),
        }
    }
    let mut args = vec!["run".to_string()];
    for (flag, value) in flags {
        args.push(flag);
        args.extend(value);
    }
    args
}

#[test]
fn quick_disk_battery_end_to_end() {
    let dir = workdir();
    let out = dir.path().join("run.json");
    let args = tiny(
        dir.path(),
        &out,
        &["--only", "disk", "--label", "t1", "--format", "md"],
    );
    let assert = candor().args(&args).assert().success();
    // --format md: the report's Markdown tables (a header, a separator row, a row per test).
    let stdout = String::from_utf8_lossy(&assert.get_output().stdout).to_string();
    assert!(stdout.contains("| SEQ1M Q8T1 | read |"), "{stdout}");
    assert!(stdout.lines().any(|l| l.starts_with("|:---")), "{stdout}");
    let run = read_run(&out).unwrap();
    assert_eq!(run.status, RunStatus::Complete);
    assert_eq!(run.label.as_deref(), Some("t1"));
    let disk: Vec<_> = run.disk().collect();
    assert_eq!(disk.len(), 11, "every disk test of the quick preset");
    for profile in [
        "SEQ1M Q8T1",
        "SEQ1M Q1T1",
        "RND4K Q32T1",
        "RND4K Q1T1",
        "FSYNC4K",
        "MIX70",
        "RW75 QD64",
    ] {
        assert!(
            disk.iter().any(|d| d.profile.as_deref() == Some(profile)),
            "{profile}"
        );
    }
    assert!(disk
        .iter()
        .all(|d| d.pass == Some(1) && d.role == FileRole::Main));
    // Each test measured its own directions (a single 200 ms test on a busy
    // shared disk may complete no I/O at all, so only the total must be > 0).
    for d in &disk {
        assert_eq!(d.read.is_some(), d.spec.rw.reads());
        assert_eq!(d.write.is_some(), d.spec.rw.writes());
        assert!(d.measured_ns > 0);
    }
    let ops: u64 = disk
        .iter()
        .map(|d| d.read.as_ref().map_or(0, |r| r.ops) + d.write.as_ref().map_or(0, |w| w.ops))
        .sum();
    assert!(ops > 0);
    // One main file, created once and reused: every test names the same path.
    let paths: std::collections::BTreeSet<_> = disk
        .iter()
        .map(|d| d.file.as_ref().unwrap().path.clone())
        .collect();
    assert_eq!(paths.len(), 1);
    let plan = run.plan.as_ref().unwrap();
    assert_eq!(plan["preset"], "quick");
    assert_eq!(plan["passes"], 1);
    assert_eq!(plan["groups_run"], serde_json::json!(["disk"]));
    // Every other group: control, the five compute groups and UnixBench's index.
    let skipped = plan["groups_skipped"].as_array().unwrap();
    assert_eq!(skipped.len(), 7, "{skipped:?}");
    assert!(
        skipped.iter().any(|g| g["group"] == "unixbench"),
        "{skipped:?}"
    );
    assert!(run.host.cpu_threads.is_some() && run.host.storage.is_some());
    // The findings of the final Run are stored in it.
    assert!(!run.findings.is_empty());
    let mut bare = run.clone();
    bare.findings.clear();
    assert_eq!(candor::findings::analyze(&bare), run.findings);
    assert!(
        leftovers(dir.path()).is_empty(),
        "{:?}",
        leftovers(dir.path())
    );
}

#[test]
fn passes_and_control_series() {
    let dir = workdir();
    let out = dir.path().join("run.json");
    let args = tiny(
        dir.path(),
        &out,
        &[
            "--preset",
            "peak",
            "--passes",
            "2",
            "--control-size",
            "48M",
            "--format",
            "json",
        ],
    );
    let assert = candor().args(&args).assert().success();
    // --format json prints the Run itself.
    let printed: Run = serde_json::from_slice(&assert.get_output().stdout).unwrap();
    assert_eq!(printed.status, RunStatus::Complete);
    let run = read_run(&out).unwrap();
    let disk: Vec<_> = run.disk().collect();
    // 2 passes x (4 main + 2 control reads), passes as rounds.
    assert_eq!(disk.len(), 12);
    let order: Vec<(u32, FileRole)> = disk.iter().map(|d| (d.pass.unwrap(), d.role)).collect();
    assert_eq!(order[..6].iter().filter(|(p, _)| *p == 1).count(), 6);
    assert_eq!(order[6..].iter().filter(|(p, _)| *p == 2).count(), 6);
    let control: Vec<_> = disk
        .iter()
        .filter(|d| d.role == FileRole::Control)
        .collect();
    assert_eq!(control.len(), 4);
    assert!(control
        .iter()
        .all(|d| d.write.is_none() && d.spec.size == 48 << 20));
    assert_eq!(run.plan.as_ref().unwrap()["control"]["size"], 48u64 << 20);
    assert!(leftovers(dir.path()).is_empty());
}

#[test]
fn compute_group_runs() {
    let dir = workdir();
    let out = dir.path().join("run.json");
    let args = tiny(
        dir.path(),
        &out,
        &["--only", "cpu", "--compute-runtime", "200ms"],
    );
    candor().args(&args).assert().success();
    let run = read_run(&out).unwrap();
    let compute: Vec<_> = run.compute().collect();
    assert!(!compute.is_empty());
    assert!(compute.iter().all(|c| c.pass == Some(1)));
    assert!(run.measurements.iter().all(|m| m.kind() == "cpu"));
    assert!(!run.tool.libraries.is_empty());
}

/// Waits until the Run file holds at least `n` measurements.
fn wait_for_measurements(out: &Path, n: usize, limit: Duration) -> bool {
    let start = Instant::now();
    while start.elapsed() < limit {
        if let Ok(run) = read_run(out) {
            if run.measurements.len() >= n {
                return true;
            }
        }
        std::thread::sleep(Duration::from_millis(50));
    }
    false
}

#[test]
fn sigint_leaves_an_interrupted_run_and_resume_finishes_it() {
    let dir = workdir();
    let out = dir.path().join("run.json");
    // 11 tests x 2 passes x 500 ms: long enough to interrupt in the middle.
    let args = tiny(
        dir.path(),
        &out,
        &["--only", "disk", "--passes", "2", "--runtime", "500ms"],
    );
    let bin = PathBuf::from(env!("CARGO_BIN_EXE_candor"));
    let child = std::process::Command::new(&bin)
        .args(&args)
        .env("CANDOR_NO_HISTORY", "1")
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    assert!(
        wait_for_measurements(&out, 3, Duration::from_secs(60)),
        "no progress"
    );
    // While it runs, a second candor on the same Run is refused, new or resumed.
    let lock = dir.path().join(".run.json.lock");
    assert!(lock.exists(), "the running battery holds its lock file");
    for second in [
        args.clone(),
        vec![
            "run".into(),
            "--resume".into(),
            out.to_str().unwrap().into(),
        ],
    ] {
        let refused = candor().args(&second).assert().code(2);
        let stderr = String::from_utf8_lossy(&refused.get_output().stderr).to_string();
        assert!(
            stderr.contains("another candor is writing this Run") && stderr.lines().count() == 1,
            "{second:?}: {stderr}"
        );
    }
    unsafe { libc::kill(child.id() as i32, libc::SIGINT) };
    let output = child.wait_with_output().unwrap();
    assert_eq!(
        output.status.code(),
        Some(130),
        "{}",
        String::from_utf8_lossy(&output.stderr)
    );
    let run = read_run(&out).unwrap();
    assert_eq!(run.status, RunStatus::Interrupted);
    let done = run.measurements.len();
    assert!((3..22).contains(&done), "{done}");
    assert!(
        leftovers(dir.path()).is_empty(),
        "{:?}",
        leftovers(dir.path())
    );
    assert!(
        !lock.exists(),
        "an interrupted battery removes its lock file"
    );

    // Resume: the missing measurements run, the finished ones are kept.
    candor()
        .args(["run", "--resume", out.to_str().unwrap(), "--quiet"])
        .assert()
        .success();
    let resumed = read_run(&out).unwrap();
    assert_eq!(resumed.status, RunStatus::Complete);
    assert_eq!(resumed.measurements.len(), 22);
    assert_eq!(
        serde_json::to_value(&resumed.measurements[..done]).unwrap(),
        serde_json::to_value(&run.measurements).unwrap()
    );
    for pass in [1, 2] {
        assert_eq!(resumed.disk().filter(|d| d.pass == Some(pass)).count(), 11);
    }
    assert!(leftovers(dir.path()).is_empty());
    assert!(!lock.exists(), "the lock file goes with the battery");

    // A complete Run cannot be resumed.
    let assert = candor()
        .args(["run", "--resume", out.to_str().unwrap()])
        .assert()
        .code(2);
    let stderr = String::from_utf8_lossy(&assert.get_output().stderr).to_string();
    assert!(stderr.contains("already complete"), "{stderr}");
}

#[test]
fn bad_flags_exit_2_with_one_line() {
    let dir = workdir();
    let d = dir.path().to_str().unwrap().to_string();
    let out = dir.path().join("x.json");
    let o = out.to_str().unwrap().to_string();
    let cases: Vec<(Vec<&str>, &str)> = vec![
        (vec!["--preset", "fast"], "--preset: unknown preset 'fast'"),
        (vec!["--runtime", "soon"], "--runtime"),
        (vec!["--passes", "0"], "--passes 0"),
        (vec!["--size", "1x"], "--size"),
        (vec!["--only", "gpu"], "--only: unknown group 'gpu'"),
        (vec!["--control-size", "lots"], "--control-size"),
        (vec!["--format", "xml"], "--format"),
        (vec!["--size", "100P"], "does not fit"),
        (
            vec!["--resume", "/nonexistent/run.json"],
            "/nonexistent/run.json",
        ),
        (vec!["--resume", &o, "--passes", "2"], "--resume carries on"),
    ];
    for (extra, expected) in cases {
        let mut args = vec!["run", "--dir", &d, "--output", &o, "--quiet"];
        // --resume takes no --dir/--output: give it only its own flags.
        if extra[0] == "--resume" {
            args = vec!["run"];
        }
        args.extend(extra.iter().copied());
        let assert = candor().args(&args).assert().code(2);
        let stderr = String::from_utf8_lossy(&assert.get_output().stderr).to_string();
        assert_eq!(stderr.lines().count(), 1, "{args:?}: {stderr}");
        assert!(stderr.contains(expected), "{args:?}: {stderr}");
    }
    // A directory given as --output is refused before anything is created in
    // it or beside it.
    let assert = candor()
        .args(["run", "--dir", &d, "--output", &d, "--quiet"])
        .assert()
        .code(2);
    let stderr = String::from_utf8_lossy(&assert.get_output().stderr).to_string();
    assert!(
        stderr.contains("a directory; give a file name") && stderr.lines().count() == 1,
        "{stderr}"
    );
    // A missing directory and a tmpfs one are refused before anything is written.
    let assert = candor()
        .args(["run", "--dir", "/nonexistent-dir", "--quiet"])
        .assert()
        .code(2);
    assert_eq!(
        String::from_utf8_lossy(&assert.get_output().stderr)
            .lines()
            .count(),
        1
    );
    assert!(!out.exists());
    assert!(leftovers(dir.path()).is_empty());
}

#[test]
fn resume_refuses_another_hosts_run_and_a_run_without_plan() {
    use candor::battery::plan::{Environment, Overrides};
    use candor::battery::{BatteryPlan, Preset};
    let dir = workdir();
    let env = Environment {
        dir: dir.path().display().to_string(),
        ram_bytes: Some(1 << 30),
        free_bytes: Some(1 << 40),
        ..Environment::default()
    };
    let plan = BatteryPlan::build(Preset::Quick, &Overrides::default(), &env).unwrap();
    let mut run = Run::new(vec!["candor".into()]);
    run.status = RunStatus::Interrupted;
    run.host.hostname = Some("some-other-host".into());
    run.plan = Some(serde_json::to_value(&plan).unwrap());
    let other = dir.path().join("other.json");
    candor::result::write_run(&run, &other, candor::output::Replace::Force).unwrap();
    let assert = candor()
        .args(["run", "--resume", other.to_str().unwrap()])
        .assert()
        .code(2);
    let stderr = String::from_utf8_lossy(&assert.get_output().stderr).to_string();
    assert!(
        stderr.contains("made on host 'some-other-host'"),
        "{stderr}"
    );

    run.plan = None;
    let bare = dir.path().join("bare.json");
    candor::result::write_run(&run, &bare, candor::output::Replace::Force).unwrap();
    let assert = candor()
        .args(["run", "--resume", bare.to_str().unwrap()])
        .assert()
        .code(2);
    let stderr = String::from_utf8_lossy(&assert.get_output().stderr).to_string();
    assert!(stderr.contains("no battery plan"), "{stderr}");
}
