//! What a job file's writes carry (issue 43): `buffer_compress_percentage`.
//! fio and candor run the same job; what each wrote is compressed with zstd
//! and the ratios compared. fio's file is read after its run; candor's
//! own file (removed when it ends) is read while its time_based job is
//! writing, after more than one pass over it. Where fio is missing the test
//! says so and skips, except in CI (`CI=true`), where it fails.

use crate::common;

use common::plant::have_fio;

use common::plant::{candor_files, one_at_a_time, test_dir};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

/// zstd level 3's output over its input.
fn ratio(bytes: &[u8]) -> f64 {
    zstd::bulk::compress(bytes, 3).unwrap().len() as f64 / bytes.len() as f64
}

#[test]
fn half_compressible_writes_compress_to_half_as_fios_do() {
    if !have_fio() {
        return;
    }
    let _turn = one_at_a_time();
    let tmp = test_dir("data");
    let jobs = tmp.path().join("compress.fio");
    // 4 MiB written over and over at 16 MiB/s for 3 s: a pass every 0.25 s.
    std::fs::write(
        &jobs,
        "[c]\nrw=write\nbs=4k\nsize=4m\ntime_based\nruntime=3\nrate=16m\nbuffer_compress_percentage=50\n",
    )
    .unwrap();
    let fio_dir = tmp.path().join("fio");
    std::fs::create_dir(&fio_dir).unwrap();
    let out = Command::new("fio")
        .arg(&jobs)
        .current_dir(&fio_dir)
        .output()
        .expect("run fio");
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let fio_ratio = ratio(&std::fs::read(fio_dir.join("c.0.0")).unwrap());

    let candor = Command::new(env!("CARGO_BIN_EXE_candor"))
        .env("CANDOR_NO_HISTORY", "1")
        .args(["disk", "--job", jobs.to_str().unwrap()])
        .args(["--dir", tmp.path().to_str().unwrap(), "--format", "json"])
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let start = Instant::now();
    let file = loop {
        if let Some(f) = candor_files(tmp.path()).into_iter().next() {
            break f;
        }
        assert!(start.elapsed() < Duration::from_secs(20), "no test file");
        std::thread::sleep(Duration::from_millis(20));
    };
    // The file is made, then written over by the job for 3 s.
    std::thread::sleep(Duration::from_millis(1500));
    let candor_ratio = ratio(&std::fs::read(&file).unwrap());
    let out = candor.wait_with_output().unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(candor_files(tmp.path()).is_empty());
    assert!(
        (0.45..0.6).contains(&fio_ratio) && (candor_ratio - fio_ratio).abs() < 0.05,
        "zstd -3: fio's file {fio_ratio:.3}, candor's {candor_ratio:.3}"
    );
    eprintln!("zstd -3 ratio: fio {fio_ratio:.3}, candor {candor_ratio:.3}");
    // The Run says what the data was, and the finding that it is not the medium's.
    let run: candor::result::Run = serde_json::from_slice(&out.stdout).unwrap();
    let c = run.disk().next().unwrap();
    assert!(
        c.spec
            .write_data
            .as_deref()
            .is_some_and(|w| w.starts_with("50 % compressible")),
        "{:?}",
        c.spec.write_data
    );
    assert!(run.findings.iter().any(|f| f.id == "job-compressible-data"));
}
