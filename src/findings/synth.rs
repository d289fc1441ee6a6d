//! Synthetic Runs for the findings' unit tests: battery-shaped disk jobs with
//! exactly the figures a test wants, and nothing else.

use crate::result::*;

/// An empty Run.
pub fn run() -> Run {
    Run::new(vec!["candor".into(), "test".into()])
}

/// Direction stats at `iops` with block size `bs` over a 30 s interval.
pub fn stats(iops: f64, bs: u64) -> DirectionStats {
    DirectionStats {
        ops: (iops * 30.0) as u64,
        bytes: (iops * 30.0) as u64 * bs,
        iops,
        bytes_per_sec: iops * bs as f64,
        lat_ns: LatencyStats::default(),
        series: Vec::new(),
    }
}

/// A main-file disk job doing `iops` in its direction(s) (randrw: 70/30 split).
pub fn job(profile: Option<&str>, rw: &str, bs: u64, qd: u32, pass: u32, iops: f64) -> Measurement {
    let (read, write) = match rw {
        "read" | "randread" => (Some(stats(iops, bs)), None),
        "write" | "randwrite" => (None, Some(stats(iops, bs))),
        _ => (Some(stats(iops * 0.7, bs)), Some(stats(iops * 0.3, bs))),
    };
    Measurement::Disk(DiskMeasurement {
        span: None,
        sync: None,
        profile: profile.map(str::to_string),
        pass: Some(pass),
        role: FileRole::Main,
        started_at: None,
        spec: DiskSpec {
            rw: rw.into(),
            rwmixread: (rw == "randrw").then_some(70),
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
        read,
        write,
        threads: Vec::new(),
        cpu: CpuUse {
            usr_pct: 5.0,
            sys_pct: 10.0,
            steal_pct: 0.0,
            cpu_ns: 1_000_000,
            run_wait_ns: None,
        },
        measured_ns: 30_000_000_000,
        file: Some(TestFileInfo {
            path: "/var/tmp/.candor-main-1-1.tmp".into(),
            size: 1 << 30,
            allocated_bytes: 1 << 30,
            fill_ns: 0,
            nocow: None,
            no_holes: None,
        }),
        fio_command: String::new(),
        notes: Vec::new(),
        job: None,
        block_stack: Vec::new(),
        beside_other_jobs: false,
        device: None,
        verify: None,
    })
}

/// A job in MB/s (10^6 bytes/s) instead of IOPS.
pub fn job_mb(
    profile: Option<&str>,
    rw: &str,
    bs: u64,
    qd: u32,
    pass: u32,
    mb: f64,
) -> Measurement {
    job(profile, rw, bs, qd, pass, mb * 1e6 / bs as f64)
}

/// The disk job inside a measurement.
pub fn disk(m: Measurement) -> DiskMeasurement {
    match m {
        Measurement::Disk(d) => d,
        _ => panic!("not a disk measurement"),
    }
}

/// Mutable access to the disk job inside a measurement.
pub fn dm(m: &mut Measurement) -> &mut DiskMeasurement {
    match m {
        Measurement::Disk(d) => d,
        _ => panic!("not a disk measurement"),
    }
}

/// The same job on the control file.
pub fn control(mut m: Measurement) -> Measurement {
    let d = dm(&mut m);
    d.role = FileRole::Control;
    if let Some(f) = &mut d.file {
        f.size = 48 << 30;
        f.allocated_bytes = 48 << 30;
    }
    m
}

/// The block stack of a disk job: one device (`vda`, the filesystem's) that
/// read what the job read plus `foreign_read` bytes of another process's.
pub fn stack(m: &mut Measurement, foreign_read: u64) {
    let d = dm(m);
    let read = d.read.as_ref().map_or(0, |s| s.bytes);
    let write = d.write.as_ref().map_or(0, |s| s.bytes);
    d.block_stack = vec![LayerIo {
        layer: StackLayer {
            name: "vda".into(),
            dev: "254:0".into(),
            kind: "disk".into(),
            relation: StackRelation::Filesystem,
            above: Vec::new(),
            via: String::new(),
            backing_file: None,
            loop_direct_io: None,
        },
        io: Some(LayerCounters {
            read_bytes: read + foreign_read,
            write_bytes: write,
            ..Default::default()
        }),
        series: Vec::new(),
    }];
}

/// A per-second series from rates in operations/s with block size `bs`.
pub fn series(rates: &[f64], bs: u64) -> Vec<SeriesPoint> {
    rates
        .iter()
        .enumerate()
        .map(|(i, r)| SeriesPoint {
            t_ns: i as u64 * 1_000_000_000,
            dur_ns: 1_000_000_000,
            ops: *r as u64,
            bytes: *r as u64 * bs,
            lat_mean_ns: 0.0,
            lat_p99_ns: 0,
        })
        .collect()
}

/// A UnixBench measurement of `test` with `copies` copies at `index` (its
/// score the index's, in the test's unit), as `candor unixbench` records it.
pub fn unixbench(test: &str, copies: u32, index: f64) -> Measurement {
    let t = crate::compute::unixbench::catalogue::find(test).expect("a UnixBench test");
    let score = index * t.baseline / 10.0;
    Measurement::Unixbench(ComputeMeasurement {
        pass: None,
        started_at: None,
        spec: ComputeSpec {
            test: t.name.into(),
            threads: copies,
            runtime_ns: t.pass.as_nanos() as u64,
            params: serde_json::from_value(serde_json::json!({
                "title": t.title, "unit": t.unit.label(), "score": score,
                "baseline": t.baseline, "index": index,
            }))
            .expect("an object"),
        },
        events_per_sec: None,
        bytes_per_sec: None,
        ops_per_sec: Some(score),
        per_thread: vec![],
        measured_ns: 0,
        cpu: Default::default(),
        notes: vec![],
    })
}
