//! Compute benchmarks: the kernels do real, correct work (known prime counts,
//! NIST/RFC crypto vectors, STREAM values, compression round trips), and each
//! subcommand runs end to end with tiny runtimes and refuses bad flags.

use assert_cmd::Command;
use candor::compute::{
    aes256_cbc_decrypt, aes256_cbc_encrypt, aes256_gcm_seal, corpus, count_primes, lzma_round_trip,
    sha256, sysbench_read_block, sysbench_write_block, written_block_xor, zstd_round_trip, Kernel,
    StreamArrays,
};

fn hex(text: &str) -> Vec<u8> {
    (0..text.len())
        .step_by(2)
        .map(|i| u8::from_str_radix(&text[i..i + 2], 16).unwrap())
        .collect()
}

fn to_hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

#[test]
fn primes_match_known_counts() {
    // sysbench counts primes from 3 to max_prime - 1: pi(n) - 1.
    assert_eq!(count_primes(20000), 2262 - 1);
    assert_eq!(count_primes(100_000), 9592 - 1);
    assert_eq!(count_primes(10000), 1229 - 1);
}

// NIST SP 800-38A, F.2.5 / F.2.6 (CBC-AES256).
const SP800_38A_KEY: &str = "603deb1015ca71be2b73aef0857d77811f352c073b6108d72d9810a30914dff4";
const SP800_38A_IV: &str = "000102030405060708090a0b0c0d0e0f";
const SP800_38A_PLAIN: &str = "6bc1bee22e409f96e93d7e117393172aae2d8a571e03ac9c9eb76fac45af8e5130c81c46a35ce411e5fbc1191a0a52eff69f2445df4f9b17ad2b417be66c3710";
const SP800_38A_CBC256: &str = "f58c4c04d6e5f1ba779eabfb5f7bfbd69cfc4e967edb808d679f777bc6702c7d39f23369a9d9bacfa530e26304231461b2eb05e2c39be9fcda6c19078c6a9d1b";

#[test]
fn aes_256_cbc_nist_vectors() {
    let key: [u8; 32] = hex(SP800_38A_KEY).try_into().unwrap();
    let iv: [u8; 16] = hex(SP800_38A_IV).try_into().unwrap();
    let mut buf = hex(SP800_38A_PLAIN);
    aes256_cbc_encrypt(&key, &iv, &mut buf).unwrap();
    assert_eq!(to_hex(&buf), SP800_38A_CBC256);
    aes256_cbc_decrypt(&key, &iv, &mut buf).unwrap();
    assert_eq!(to_hex(&buf), SP800_38A_PLAIN);
}

#[test]
fn aes_256_gcm_vectors() {
    // McGrew & Viega, "The Galois/Counter Mode of Operation", test cases 13 and 14.
    let key = [0u8; 32];
    let mut empty: Vec<u8> = Vec::new();
    let tag = aes256_gcm_seal(&key, [0; 12], &[], &mut empty).unwrap();
    assert_eq!(to_hex(&tag), "530f8afbc74536b9a963b4f1c4cb738b");
    let mut block = vec![0u8; 16];
    let tag = aes256_gcm_seal(&key, [0; 12], &[], &mut block).unwrap();
    assert_eq!(to_hex(&block), "cea7403d4d606b6e074ec5d3baf39d18");
    assert_eq!(to_hex(&tag), "d0d1c8a799996bf0265b98b5d48ab919");
}

#[test]
fn sha_256_vectors() {
    // FIPS 180-2 examples.
    assert_eq!(
        to_hex(&sha256(b"abc")),
        "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"
    );
    assert_eq!(
        to_hex(&sha256(
            b"abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq"
        )),
        "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1"
    );
    assert_eq!(
        to_hex(&sha256(b"")),
        "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"
    );
}

#[test]
fn memory_kernels_verify() {
    let mut block = vec![0u64; 128 << 10];
    sysbench_write_block(&mut block);
    assert_eq!(block[0], 128 << 10);
    assert_eq!(*block.last().unwrap(), 1);
    assert_eq!(sysbench_read_block(&block), written_block_xor(128 << 10));
    for kernel in Kernel::ALL {
        let mut s = StreamArrays::new(4099);
        s.a.fill(1.0);
        s.b.fill(2.0);
        s.c.fill(0.5);
        kernel.apply(&mut s.a, &mut s.b, &mut s.c);
        kernel.verify(&s.a, &s.b, &s.c).unwrap();
        // One wrong element anywhere is found.
        s.b[4098] = -1.0;
        assert!(kernel.verify(&s.a, &s.b, &s.c).is_err());
    }
}

#[test]
fn corpus_is_fixed_and_realistic() {
    let data = corpus();
    assert_eq!(data.len(), 1 << 20);
    // Same bytes on every host and build: a change here changes every compression figure.
    assert_eq!(
        to_hex(&sha256(&data)),
        "0d99978f5dece9c7618ec54970197a11b0b7e715f3b3a25a22f3f034ac0002d7"
    );
    // Text, compressible like logs and prose: neither random nor zeros.
    assert!(data.iter().all(|&b| b == b'\n' || (32..127).contains(&b)));
    let lzma = lzma_round_trip(&data).unwrap();
    let zstd = zstd_round_trip(&data).unwrap();
    for (name, size) in [("lzma", lzma), ("zstd", zstd)] {
        let ratio = size as f64 / data.len() as f64;
        assert!((0.05..0.5).contains(&ratio), "{name} ratio {ratio}");
    }
    assert!(
        lzma < zstd,
        "LZMA preset 6 should beat zstd level 3 on text"
    );
}

#[test]
fn compression_round_trips_other_inputs() {
    for data in [
        Vec::new(),
        vec![0u8; 100_000],
        (0..70_000u32).map(|i| (i * 7919 % 251) as u8).collect(),
    ] {
        lzma_round_trip(&data).unwrap();
        zstd_round_trip(&data).unwrap();
    }
}

fn candor() -> Command {
    Command::cargo_bin("candor").unwrap()
}

/// Runs a subcommand with a tiny runtime, writing the Run to a file; returns it.
fn run_group(group: &str, extra: &[&str]) -> candor::result::Run {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("run.json");
    let output = candor()
        .args([group, "--runtime", "20ms", "--threads", "1", "--output"])
        .arg(&path)
        .args(extra)
        .output()
        .unwrap();
    assert!(
        output.status.success(),
        "{group}: {}",
        String::from_utf8_lossy(&output.stderr)
    );
    let text = String::from_utf8(output.stdout).unwrap();
    let run = candor::result::read_run(&path).unwrap();
    assert_eq!(run.status, candor::result::RunStatus::Complete);
    assert!(!run.measurements.is_empty());
    for m in &run.measurements {
        assert_eq!(m.kind(), group);
        let c = m.as_compute().unwrap();
        assert_eq!(c.spec.threads, 1);
        assert_eq!(c.per_thread.len(), 1);
        assert!(
            candor::compute::headline(c).unwrap() > 0.0,
            "{}",
            c.spec.test
        );
        assert!(c.measured_ns > 0);
        assert!(!c.notes.is_empty());
        assert!(
            text.contains(&c.spec.test),
            "text output lacks {}",
            c.spec.test
        );
    }
    assert!(run.tool.libraries.contains_key("aws-lc-rs"));
    run
}

fn tests_of(run: &candor::result::Run) -> Vec<String> {
    run.compute().map(|c| c.spec.test.clone()).collect()
}

#[test]
fn cpu_end_to_end() {
    let run = run_group("cpu", &[]);
    assert_eq!(tests_of(&run), ["primes"]);
}

#[test]
fn memory_end_to_end() {
    let run = run_group("memory", &["--stream-size", "4M"]);
    assert_eq!(
        tests_of(&run),
        [
            "sysbench-memory-write",
            "sysbench-memory-read",
            "stream-copy",
            "stream-scale",
            "stream-add",
            "stream-triad"
        ]
    );
}

#[test]
fn crypto_end_to_end() {
    let run = run_group("crypto", &[]);
    assert_eq!(
        tests_of(&run),
        [
            "aes-256-cbc-encrypt",
            "aes-256-cbc-decrypt",
            "aes-256-gcm",
            "sha-256"
        ]
    );
}

#[test]
fn compress_end_to_end() {
    let run = run_group("compress", &[]);
    assert_eq!(
        tests_of(&run),
        [
            "lzma-compress",
            "lzma-decompress",
            "zstd-compress",
            "zstd-decompress"
        ]
    );
}

#[test]
fn os_end_to_end() {
    let run = run_group("os", &[]);
    assert_eq!(
        tests_of(&run),
        ["syscall", "pipe", "context-switch", "spawn"]
    );
}

#[test]
fn json_format_prints_the_run_and_default_threads_run_one_and_all() {
    let output = candor()
        .args(["cpu", "--runtime", "20ms", "--format", "json"])
        .output()
        .unwrap();
    assert!(output.status.success());
    let run: candor::result::Run = serde_json::from_slice(&output.stdout).unwrap();
    let threads: Vec<u32> = run.compute().map(|c| c.spec.threads).collect();
    let all = candor::compute::online_cpus();
    if all > 1 {
        assert_eq!(threads, [1, all]);
        let many = run.compute().last().unwrap();
        assert_eq!(many.per_thread.len(), all as usize);
        assert!(many.notes.iter().any(|n| n.starts_with("scaling: ")));
    } else {
        assert_eq!(threads, [1]);
    }
}

#[test]
fn bad_flags_exit_2_with_one_line() {
    let cases: &[&[&str]] = &[
        &["cpu", "--threads", "0"],
        &["cpu", "--threads", "many"],
        &["memory", "--runtime", "fast"],
        &["crypto", "--runtime", "0s"],
        &["os", "--format", "xml"],
        &["compress", "--output", "/nonexistent-dir/run.json"],
        &["memory", "--stream-size", "lots"],
    ];
    for args in cases {
        let output = candor().args(*args).output().unwrap();
        assert_eq!(output.status.code(), Some(2), "{args:?}");
        let stderr = String::from_utf8(output.stderr).unwrap();
        assert_eq!(stderr.lines().count(), 1, "{args:?}: {stderr}");
        assert!(stderr.starts_with("candor: error: "), "{args:?}: {stderr}");
        assert!(output.stdout.is_empty(), "{args:?}");
    }
    // Unknown flags are clap's: exit 2 as well.
    let output = candor().args(["cpu", "--bogus"]).output().unwrap();
    assert_eq!(output.status.code(), Some(2));
}

#[test]
fn ctrl_c_stops_a_long_test_quickly() {
    let bin = assert_cmd::cargo::cargo_bin("candor");
    let child = std::process::Command::new(bin)
        .args(["cpu", "--runtime", "60s", "--threads", "1"])
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    // Wait until candor's signal thread exists (handlers installed), then
    // until the measuring thread has started: up to 10 s on a loaded machine.
    let tasks = format!("/proc/{}/task", child.id());
    let names = || -> Vec<String> {
        std::fs::read_dir(&tasks)
            .map(|d| {
                d.filter_map(|e| std::fs::read_to_string(e.ok()?.path().join("comm")).ok())
                    .map(|n| n.trim().to_string())
                    .collect()
            })
            .unwrap_or_default()
    };
    let waited = std::time::Instant::now();
    while !(names().iter().any(|n| n == "candor-signals") && names().len() >= 3) {
        assert!(
            waited.elapsed().as_secs() < 10,
            "candor did not start: {:?}",
            names()
        );
        std::thread::sleep(std::time::Duration::from_millis(20));
    }
    std::thread::sleep(std::time::Duration::from_millis(100));
    let start = std::time::Instant::now();
    // SAFETY: sending a signal to our own child process.
    unsafe { libc::kill(child.id() as i32, libc::SIGINT) };
    let output = child.wait_with_output().unwrap();
    assert!(start.elapsed().as_secs() < 5, "took {:?}", start.elapsed());
    assert_eq!(output.status.code(), Some(130));
    let stderr = String::from_utf8(output.stderr).unwrap();
    assert!(stderr.contains("interrupted by SIGINT"), "{stderr}");
}
