//! A synthetic battery Run for report tests: every profile of the standard
//! battery in three passes, control-file reads, compute figures, findings
//! and a hostile label. The figures are made up for the test (shaped like a
//! VPS whose small file is served from a host cache); no claim rests on them.

#![allow(dead_code)]

pub mod chromium;
pub mod plant;

use candor::result::*;
use std::collections::BTreeMap;

pub fn stats(bytes_per_sec: f64, bs: u64, p50_ns: u64, secs: u64, cliff: bool) -> DirectionStats {
    let iops = bytes_per_sec / bs as f64;
    let series = (0..secs)
        .map(|t| {
            let level = if cliff && t >= secs / 2 { 0.1 } else { 1.0 };
            let wobble = 1.0 + 0.03 * ((t as f64) * 1.7).sin();
            let bytes = (bytes_per_sec * level * wobble) as u64 / bs * bs;
            SeriesPoint {
                t_ns: t * 1_000_000_000,
                dur_ns: 1_000_000_000,
                ops: bytes / bs,
                bytes,
                lat_mean_ns: p50_ns as f64 * 1.1,
                lat_p99_ns: p50_ns * 3,
            }
        })
        .collect();
    DirectionStats {
        ops: (iops * secs as f64) as u64,
        bytes: (bytes_per_sec * secs as f64) as u64,
        iops,
        bytes_per_sec,
        lat_ns: LatencyStats {
            min: p50_ns / 3,
            mean: p50_ns as f64 * 1.1,
            stdev: p50_ns as f64 * 0.4,
            p50: p50_ns,
            p90: p50_ns * 2,
            p99: p50_ns * 3,
            p99_9: p50_ns * 6,
            p99_99: p50_ns * 12,
            max: p50_ns * 20,
            histogram: None,
        },
        series,
    }
}

fn spec(rw: &str, bs: u64, qd: u32, fsync: u32, size: u64) -> DiskSpec {
    DiskSpec {
        rw: rw.into(),
        rwmixread: (rw == "randrw").then_some(if qd == 64 { 75 } else { 70 }),
        bs,
        iodepth: qd,
        iodepth_batch: Some(1),
        numjobs: 1,
        size,
        runtime_ns: 10_000_000_000,
        ramp_ns: 2_000_000_000,
        engine: "io_uring".to_string(),
        engine_note: None,
        registered_buffers: Some(false),
        direct: fsync == 0,
        fsync,
        seed: 42,
        ..Default::default()
    }
}

#[allow(clippy::too_many_arguments)]
fn disk(
    profile: &str,
    rw: &str,
    bs: u64,
    qd: u32,
    fsync: u32,
    pass: u32,
    role: FileRole,
    read: Option<DirectionStats>,
    write: Option<DirectionStats>,
) -> Measurement {
    let size = match role {
        FileRole::Main => 1 << 30,
        FileRole::Control => 16 << 30,
    };
    Measurement::Disk(DiskMeasurement {
        span: None,
        sync: None,
        profile: Some(profile.to_string()),
        pass: Some(pass),
        role,
        started_at: Some("2026-11-30T06:00:00Z".to_string()),
        spec: spec(rw, bs, qd, fsync, size),
        read,
        write,
        threads: Vec::new(),
        cpu: CpuUse {
            usr_pct: 3.0,
            sys_pct: 12.0,
            steal_pct: 0.2,
            cpu_ns: 1_500_000_000,
            run_wait_ns: None,
        },
        measured_ns: 10_000_000_000,
        file: Some(TestFileInfo {
            path: format!("/var/tmp/.candor-{:?}-1-0.tmp", role).to_lowercase(),
            size,
            allocated_bytes: size,
            fill_ns: 0,
            nocow: None,
            no_holes: None,
        }),
        fio_command: format!("fio --name=x --rw={rw} --bs={bs} --iodepth={qd}"),
        notes: Vec::new(),
        job: None,
        block_stack: Vec::new(),
        beside_other_jobs: false,
        device: None,
        verify: None,
    })
}

fn compute(
    test: &str,
    threads: u32,
    pass: u32,
    events: Option<f64>,
    bytes: Option<f64>,
) -> ComputeMeasurement {
    ComputeMeasurement {
        pass: Some(pass),
        started_at: None,
        spec: ComputeSpec {
            test: test.to_string(),
            threads,
            runtime_ns: 5_000_000_000,
            params: BTreeMap::new(),
        },
        events_per_sec: events,
        bytes_per_sec: bytes,
        ops_per_sec: None,
        per_thread: Vec::new(),
        measured_ns: 5_000_000_000,
        cpu: CpuUse::default(),
        notes: Vec::new(),
    }
}

/// A three-pass battery with a control file, compute tests and findings.
/// `scale` multiplies every disk and compute figure (to make distinct hosts).
pub fn battery(label: &str, scale: f64) -> Run {
    let mut run = Run::new(vec!["candor".into(), "run".into()]);
    run.label = Some(label.to_string());
    run.status = RunStatus::Complete;
    run.started_at = Some("2026-11-30T06:00:00Z".to_string());
    run.finished_at = Some("2026-11-30T06:41:12Z".to_string());
    run.plan = Some(serde_json::json!({"preset": "full", "passes": 3}));
    run.host.hostname = Some("vps-1".to_string());
    run.host.cpu_model = Some("AMD EPYC 7B13".to_string());
    run.host.cpu_threads = Some(4);
    run.host.cpu_cores = Some(2);
    run.host.mem_total_bytes = Some(8 << 30);
    run.host.kernel = Some("6.1.0-28-amd64".to_string());
    run.host.storage = Some(StorageFacts {
        dir: "/var/tmp".to_string(),
        fs_type: Some("ext4".to_string()),
        device: Some("vda".to_string()),
        mount_options: Some("rw,relatime".to_string()),
        ..StorageFacts::default()
    });
    let m = 1u64 << 20;
    let k4 = 4096u64;
    let s = scale;
    for pass in 1..=3u32 {
        let wob = 1.0 + 0.01 * pass as f64;
        let main = FileRole::Main;
        let ctrl = FileRole::Control;
        let ms = &mut run.measurements;
        ms.push(disk(
            "SEQ1M Q8T1",
            "read",
            m,
            8,
            0,
            pass,
            main,
            Some(stats(1474.8e6 * s * wob, m, 5_400_000, 10, false)),
            None,
        ));
        ms.push(disk(
            "SEQ1M Q8T1",
            "write",
            m,
            8,
            0,
            pass,
            main,
            None,
            Some(stats(812.3e6 * s * wob, m, 9_800_000, 10, true)),
        ));
        ms.push(disk(
            "SEQ1M Q1T1",
            "read",
            m,
            1,
            0,
            pass,
            main,
            Some(stats(610.2e6 * s * wob, m, 1_700_000, 10, false)),
            None,
        ));
        ms.push(disk(
            "SEQ1M Q1T1",
            "write",
            m,
            1,
            0,
            pass,
            main,
            None,
            Some(stats(402.9e6 * s * wob, m, 2_500_000, 10, false)),
        ));
        ms.push(disk(
            "RND4K Q32T1",
            "randread",
            k4,
            32,
            0,
            pass,
            main,
            Some(stats(164.4e6 * s * wob, k4, 780_000, 10, false)),
            None,
        ));
        ms.push(disk(
            "RND4K Q32T1",
            "randwrite",
            k4,
            32,
            0,
            pass,
            main,
            None,
            Some(stats(131.6e6 * s * wob, k4, 960_000, 10, false)),
        ));
        ms.push(disk(
            "RND4K Q1T1",
            "randread",
            k4,
            1,
            0,
            pass,
            main,
            Some(stats(44.1e6 * s * wob, k4, 88_000, 10, false)),
            None,
        ));
        ms.push(disk(
            "RND4K Q1T1",
            "randwrite",
            k4,
            1,
            0,
            pass,
            main,
            None,
            Some(stats(61.0e6 * s * wob, k4, 62_000, 10, false)),
        ));
        ms.push(disk(
            "FSYNC4K",
            "randwrite",
            k4,
            1,
            1,
            pass,
            main,
            None,
            Some(stats(6.4e6 * s * wob, k4, 610_000, 10, false)),
        ));
        ms.push(disk(
            "MIX70",
            "randrw",
            k4,
            16,
            0,
            pass,
            main,
            Some(stats(98.0e6 * s * wob, k4, 500_000, 10, false)),
            Some(stats(42.0e6 * s * wob, k4, 700_000, 10, false)),
        ));
        ms.push(disk(
            "SEQ1M Q8T1",
            "read",
            m,
            8,
            0,
            pass,
            ctrl,
            Some(stats(49.3e6 * s * wob, m, 160_000_000, 10, false)),
            None,
        ));
        ms.push(disk(
            "RND4K Q32T1",
            "randread",
            k4,
            32,
            0,
            pass,
            ctrl,
            Some(stats(8.2e6 * s * wob, k4, 15_000_000, 10, false)),
            None,
        ));
        ms.push(Measurement::Cpu(compute(
            "primes",
            1,
            pass,
            Some(1234.5 * s * wob),
            None,
        )));
        ms.push(Measurement::Cpu(compute(
            "primes",
            4,
            pass,
            Some(4570.2 * s * wob),
            None,
        )));
        ms.push(Measurement::Memory(compute(
            "stream-triad",
            4,
            pass,
            None,
            Some(18.2e9 * s * wob),
        )));
        ms.push(Measurement::Crypto(compute(
            "sha256",
            1,
            pass,
            None,
            Some(1.9e9 * s * wob),
        )));
        if let Some(Measurement::Memory(m)) = ms.iter_mut().rev().find(|m| m.kind() == "memory") {
            m.notes
                .push("RAM bandwidth: arrays at least 4x the last-level cache".to_string());
        }
        let mut syscall = compute("syscall", 1, pass, None, None);
        syscall.ops_per_sec = Some(2.1e6 * s * wob);
        ms.push(Measurement::Os(syscall));
    }
    run.findings.push(Finding {
        id: "host-cache".to_string(),
        severity: Severity::Warning,
        status: FindingStatus::Checked,
        subject: Some("SEQ1M Q8T1 read".to_string()),
        verdict: "main 1474.8 MB/s is 29.9x the control file's 49.3 MB/s".to_string(),
        evidence: serde_json::json!({"main_mb_s": 1474.8, "control_mb_s": 49.3, "ratio": 29.9}),
        meaning: "the main figures are a cache, not the medium".to_string(),
        not_proven: "how fast the medium itself is".to_string(),
    });
    run.findings.push(Finding {
        id: "limiter-flat".to_string(),
        severity: Severity::Info,
        status: FindingStatus::NotChecked,
        subject: None,
        verdict: "needs two passes or more".to_string(),
        evidence: serde_json::Value::Null,
        meaning: String::new(),
        not_proven: String::new(),
    });
    run.notes
        .push("io_uring available; registered buffers off".to_string());
    run
}
