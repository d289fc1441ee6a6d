//! The truth table: conditions planted for real on this machine, and the
//! verdict candor must reach on each. Every test prints its row
//! (`TRUTH|condition|expected|measured`); `bench/truth-table.sh` collects
//! them into the table in FINDINGS.md. The planted values are ours; the rules
//! they test are general (see each finding's doc comment), and candor is
//! also checked against values it has never seen.
//!
//! Needs root, cgroup v1 blkio, loop devices, mkfs.btrfs and mkfs.xfs.

use crate::common;

use candor::result::{read_run, Finding, FindingStatus, Run, Severity};
use common::plant::*;
use std::path::Path;
use std::process::Stdio;
use std::time::Duration;

fn finding<'a>(run: &'a Run, id: &str) -> Option<&'a Finding> {
    run.findings
        .iter()
        .find(|f| f.id == id && f.status == FindingStatus::Checked)
}

fn findings_of<'a>(run: &'a Run, id: &str) -> Vec<&'a Finding> {
    run.findings
        .iter()
        .filter(|f| f.id == id && f.status == FindingStatus::Checked)
        .collect()
}

/// The sweep's points, one line each, for failure messages.
fn points_table(run: &Run) -> String {
    run.disk()
        .flat_map(|m| {
            [&m.read, &m.write].into_iter().flatten().map(move |s| {
                format!(
                    "{} {} QD{} T{}: {:.0} IOPS {:.2} MB/s cpu {:.0}%\n",
                    m.spec.rw,
                    m.spec.bs,
                    m.spec.iodepth,
                    m.spec.numjobs,
                    s.iops,
                    s.bytes_per_sec / 1e6,
                    m.cpu.usr_pct + m.cpu.sys_pct
                )
            })
        })
        .collect()
}

fn sweep_args(dir: &Path, out: &Path) -> Vec<String> {
    args(&[
        "sweep",
        "--dir",
        dir.to_str().unwrap(),
        "--size",
        "512M",
        "--output",
        out.to_str().unwrap(),
        "--format",
        "json",
    ])
}

/// The caps finding's field `key`, checked within 5 % of `planted`.
fn cap_within(run: &Run, key: &str, planted: f64) -> Result<f64, String> {
    let caps = &finding(run, "caps").expect("a caps finding").evidence;
    let v = caps[key].as_f64().ok_or_else(|| {
        format!(
            "{key}: no cap inferred, planted {planted}\ncaps: {}\n{}",
            caps,
            points_table(run)
        )
    })?;
    if (v / planted - 1.0).abs() > 0.05 {
        return Err(format!(
            "{key}: inferred {v}, planted {planted}\ncaps: {caps}\n{}",
            points_table(run)
        ));
    }
    Ok(v)
}

/// Tries `row` up to twice: this VM's disk is shared and drifts, and a
/// contended minute can pull a plateau's points apart. The row says how
/// many attempts it took; a second failure fails the test with both causes.
fn twice(name: &str, row: &dyn Fn() -> Result<String, String>) -> String {
    attempts(name, 2, row)
}

/// Tries `row` up to `n` times (see `twice`); the last failure fails the
/// test with every cause.
fn attempts(name: &str, n: usize, row: &dyn Fn() -> Result<String, String>) -> String {
    let mut causes = Vec::new();
    for attempt in 1..=n {
        match row() {
            Ok(measured) if attempt == 1 => return measured,
            Ok(measured) => return format!("{measured} (attempt {attempt})"),
            Err(cause) if attempt < n => {
                eprintln!("{name}: attempt {attempt} failed, trying once more in 20 s:\n{cause}");
                causes.push(cause);
                // A shared VM's disk drifts within minutes: a second attempt
                // straight after the first often meets the same moment.
                std::thread::sleep(std::time::Duration::from_secs(20));
            }
            Err(cause) => causes.push(cause),
        }
    }
    let all: Vec<String> = causes
        .iter()
        .enumerate()
        .map(|(i, c)| format!("attempt {}: {c}", i + 1))
        .collect();
    panic!("{name}: failed {n} times\n{}", all.join("\n"));
}

/// Whether the planted IOPS cap of `rw` held during the sweep: every
/// 4 KiB point at QD8 and deeper within 5 % of it. When the shared disk
/// drifts below the cap mid-sweep (30,748 IOPS at QD16 under a 35,000
/// write cap, its neighbours at 35,090-35,334; or every read point under
/// a 29,000 cap), the plateau is not the limiter's and the condition was
/// not planted: the row is measured again, not scored.
fn cap_held(run: &Run, rw: &str, cap: f64) -> Result<(), String> {
    let deep: Vec<f64> = run
        .disk()
        .filter(|m| m.spec.rw.to_string() == rw && m.spec.bs == 4096 && m.spec.iodepth >= 8)
        .flat_map(|m| [&m.read, &m.write].into_iter().flatten().map(|s| s.iops))
        .collect();
    if deep.len() >= 3 && deep.iter().all(|v| (v / cap - 1.0).abs() <= 0.05) {
        return Ok(());
    }
    Err(format!(
        "not planted: the disk did not hold the {rw} cap of {cap:.0} IOPS through the sweep (4 KiB at QD8 and deeper: {deep:.0?})\n{}",
        points_table(run)
    ))
}

fn warnings(run: &Run, ids: &[&str]) -> Vec<String> {
    run.findings
        .iter()
        .filter(|f| f.severity >= Severity::Warning && ids.iter().any(|id| f.id.starts_with(id)))
        .map(|f| {
            format!(
                "{} [{}]: {}",
                f.id,
                f.subject.clone().unwrap_or_default(),
                f.verdict
            )
        })
        .collect()
}

/// The rules a clean disk must never trip. `write-back` is not among them:
/// this VM's virtio disk reports a volatile write cache
/// (`/sys/block/vda/queue/write_cache`: write back), so QD1 writes beating
/// reads there is the truth, not an alarm; the finding says what the device
/// reports.
const ALARMS: [&str; 10] = [
    "foreign-io",
    "latency-above-device",
    "cache-layer",
    "write-amplification",
    "limiter-",
    "round-plateau",
    "caps",
    "host-cache",
    "residency",
    "metric-disagreement",
];

// ---------------------------------------------------------------- caps

/// What this disk does unthrottled right now, 4 KiB at QD1 and QD32 (1 s each).
fn natural_iops(dir: &Path, rw: &str) -> (f64, f64) {
    let at = |qd: &str| {
        let out = dir.join(format!("natural-{rw}-{qd}.json"));
        let _ = std::fs::remove_file(&out);
        candor_ok(
            candor_cmd(&args(&[
                "disk",
                "--dir",
                dir.to_str().unwrap(),
                "--rw",
                rw,
                "--bs",
                "4k",
                "--iodepth",
                qd,
                "--size",
                "256M",
                "--runtime",
                "1s",
                "--ramp",
                "300ms",
                "--output",
                out.to_str().unwrap(),
            ]))
            .stdout(Stdio::null()),
        );
        let run = read_run(&out).unwrap();
        let d = run.disk().next().unwrap();
        d.read.as_ref().or(d.write.as_ref()).unwrap().iops
    };
    (at("1"), at("32"))
}

/// An IOPS cap that QD1 cannot reach but a deep queue can, with room to
/// spare on both sides, on this disk as it is now (a shared VM's disk
/// drifts, and on some days scales only 2-2.5x from QD1 to QD32: 13,343 and
/// 31,171 IOPS in one CI run): the geometric mean of the QD1 and QD32
/// figures, in thousands (providers sell round figures), so that QD1 sits
/// at least `CAP_MARGIN` below it and the deep points at least that far
/// above it. An Err (measured again by `twice`) when the disk does not
/// scale that much now.
fn cap_above_qd1(qd1: f64, qd32: f64) -> Result<u64, String> {
    const CAP_MARGIN: f64 = 1.4;
    let cap = ((qd1 * qd32).sqrt() / 1000.0).round().max(1.0) * 1000.0;
    if cap < CAP_MARGIN * qd1 || cap * CAP_MARGIN > qd32 {
        return Err(format!(
            "this disk does not scale with queue depth now (QD1 {qd1:.0}, QD32 {qd32:.0} IOPS): no cap sits {CAP_MARGIN}x above QD1 and {CAP_MARGIN}x below QD32"
        ));
    }
    Ok(cap as u64)
}

/// Cloud-style caps above what QD1 reaches (a network volume does 2-20k
/// IOPS at QD1 and is capped at 16k-80k), chosen from this disk's own QD1
/// and QD32 figures (on this VM 13k-15k and 31k-100k reads: read cap
/// between 20,000 and 39,000), with a bandwidth cap on each direction too.
#[test]
fn caps_above_qd1_are_inferred() {
    let _disk = one_at_a_time();
    let dir = test_dir("truth-caps");
    let planted = std::cell::RefCell::new(String::new());
    // Three attempts: the planted caps must hold through a two-minute
    // sweep on a disk that drifts (`cap_held`).
    let measured = attempts("caps above QD1", 3, &|| {
        let (r1, r32) = natural_iops(dir.path(), "randread");
        let (w1, w32) = natural_iops(dir.path(), "randwrite");
        let (read_cap, write_cap) = (cap_above_qd1(r1, r32)?, cap_above_qd1(w1, w32)?);
        // Bandwidth caps that bind from 8 KiB on, so that both caps of a
        // direction show: 4 KiB at the IOPS cap, 8 KiB and up at the bandwidth one.
        let bw = |iops: u64| ((iops as f64 * 8192.0 * 0.8 / 1e7).round() * 1e7) as u64;
        let (read_bw, write_bw) = (bw(read_cap), bw(write_cap));
        *planted.borrow_mut() = format!(
            "cgroup: read {read_cap} IOPS + {} MB/s, write {write_cap} IOPS + {} MB/s (unthrottled 4 KiB just before: reads {r1:.0} at QD1, {r32:.0} at QD32; writes {w1:.0}, {w32:.0})",
            read_bw / 1_000_000,
            write_bw / 1_000_000
        );
        let out = dir.path().join("sweep.json");
        let _ = std::fs::remove_file(&out);
        let group = Cgroup::new("caps", dir.path());
        group.set("read_iops_device", read_cap);
        group.set("read_bps_device", read_bw);
        group.set("write_iops_device", write_cap);
        group.set("write_bps_device", write_bw);
        candor_ok(
            group
                .wrap(&sweep_args(dir.path(), &out))
                .stdout(Stdio::null()),
        );
        let run = read_run(&out).unwrap();
        cap_held(&run, "randread", read_cap as f64)?;
        cap_held(&run, "randwrite", write_cap as f64)?;
        let ri = cap_within(&run, "read_iops", read_cap as f64)?;
        let rb = cap_within(&run, "read_bytes_per_sec", read_bw as f64)?;
        let wi = cap_within(&run, "write_iops", write_cap as f64)?;
        let wb = cap_within(&run, "write_bytes_per_sec", write_bw as f64)?;
        Ok(format!(
            "caps: read {ri:.0} IOPS, {:.1} MB/s; write {wi:.0} IOPS, {:.1} MB/s",
            rb / 1e6,
            wb / 1e6
        ))
    });
    truth_row(&planted.borrow(), "caps: four caps within 5 %", &measured);
}

/// A single bandwidth cap, at a figure that is not a round step.
#[test]
fn a_bandwidth_cap_alone_is_inferred() {
    let _disk = one_at_a_time();
    let dir = test_dir("truth-bw");
    let measured = twice("a bandwidth cap alone", &|| {
        let out = dir.path().join("sweep.json");
        let _ = std::fs::remove_file(&out);
        let group = Cgroup::new("bw", dir.path());
        group.set("read_bps_device", 123_000_000);
        candor_ok(
            group
                .wrap(&sweep_args(dir.path(), &out))
                .stdout(Stdio::null()),
        );
        let run = read_run(&out).unwrap();
        let rb = cap_within(&run, "read_bytes_per_sec", 123e6)?;
        let caps = &finding(&run, "caps").unwrap().evidence;
        if !caps["read_iops"].is_null() || !caps["write_iops"].is_null() {
            return Err(format!("an IOPS cap was named, none was planted: {caps}"));
        }
        Ok(format!("caps: read {:.1} MB/s; IOPS caps none", rb / 1e6))
    });
    truth_row(
        "cgroup: read 123 MB/s only",
        "caps: read bandwidth cap within 5 %, no IOPS cap",
        &measured,
    );
}

// ---------------------------------------------------------------- clean disk

/// The unthrottled disk: a sweep and a quick battery raise no limiter,
/// round, caps, cache or disagreement warning.
#[test]
fn a_clean_disk_raises_no_false_alarm() {
    let _disk = one_at_a_time();
    let dir = test_dir("truth-clean");
    let sweep = dir.path().join("sweep.json");
    // A clean disk: the dirty pages that earlier builds and tests left in
    // the page cache written out first. Their writeback (65 MB in a second
    // on an idle machine, minutes after a build) is other I/O on the same
    // disk, which foreign-io rightly names.
    // SAFETY: sync() takes no arguments and cannot fail.
    unsafe { libc::sync() };
    candor_ok(candor_cmd(&sweep_args(dir.path(), &sweep)).stdout(Stdio::null()));
    let run = read_run(&sweep).unwrap();
    let w = warnings(&run, &ALARMS);
    assert!(
        w.is_empty(),
        "sweep on a clean disk:\n{}\n{}",
        w.join("\n"),
        points_table(&run)
    );
    let battery = dir.path().join("quick.json");
    // SAFETY: as above.
    unsafe { libc::sync() };
    candor_ok(
        candor_cmd(&args(&[
            "run",
            "--preset",
            "quick",
            "--only",
            "disk",
            "--dir",
            dir.path().to_str().unwrap(),
            "--output",
            battery.to_str().unwrap(),
            "--quiet",
        ]))
        .stdout(Stdio::null()),
    );
    let run2 = read_run(&battery).unwrap();
    let w2 = warnings(&run2, &ALARMS);
    assert!(
        w2.is_empty(),
        "quick battery on a clean disk:\n{}",
        w2.join("\n")
    );
    let caps = &finding(&run, "caps").unwrap().verdict;
    truth_row(
        "none (the VM's virtio disk, unthrottled): sweep and quick battery",
        "no limiter, round, caps, cache or disagreement warning",
        &format!("no warning; caps: {caps}"),
    );
}

// ---------------------------------------------------------------- over time

/// A throttle lowered mid-run: 3000 IOPS for 3 s, then 500.
#[test]
fn a_throttle_lowered_mid_run_is_a_burst_cliff() {
    let _disk = one_at_a_time();
    let dir = test_dir("truth-cliff");
    let out = dir.path().join("disk.json");
    let group = Cgroup::new("cliff", dir.path());
    group.set("read_iops_device", 3000);
    let a = args(&[
        "disk",
        "--dir",
        dir.path().to_str().unwrap(),
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
        out.to_str().unwrap(),
    ]);
    let mut child = group.wrap(&a).stdout(Stdio::null()).spawn().unwrap();
    // Before the job reads, the group serves a few dozen reads at most (the
    // binary's pages, filesystem metadata during the fill); the job's ramp at
    // 3000 IOPS passes 500 reads within 0.2 s. From there, wait out the 2 s
    // ramp and about 2 s at 3000 IOPS, then lower the throttle to 500.
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
    assert!(child.wait().unwrap().success());
    let run = read_run(&out).unwrap();
    let cliff = finding(&run, "burst-cliff").unwrap_or_else(|| {
        let series: Vec<u64> = run
            .disk()
            .flat_map(|m| m.read.iter().flat_map(|r| r.series.iter().map(|p| p.ops)))
            .collect();
        panic!("no burst-cliff; per-second read ops: {series:?}")
    });
    let before = cliff.evidence["level_before_iops"].as_f64().unwrap();
    let after = cliff.evidence["level_after_iops"].as_f64().unwrap();
    assert!((before / 3000.0 - 1.0).abs() < 0.1, "level before {before}");
    assert!((after / 500.0 - 1.0).abs() < 0.1, "level after {after}");
    truth_row(
        "cgroup: 3,000 read IOPS, lowered to 500 after 4 s of a 6 s test",
        "burst-cliff with both levels",
        &format!("burst-cliff: {before:.0} IOPS, then {after:.0} IOPS"),
    );
}

/// A throttle that flaps between passes: unstable, and the median hides it.
#[test]
fn a_flapping_throttle_is_unstable() {
    let _disk = one_at_a_time();
    let dir = test_dir("truth-flap");
    let out = dir.path().join("run.json");
    let group = Cgroup::new("flap", dir.path());
    group.set("read_iops_device", 2000);
    let a = args(&[
        "run",
        "--preset",
        "peak",
        "--only",
        "disk",
        "--passes",
        "3",
        "--runtime",
        "1s",
        "--ramp",
        "200ms",
        "--pause",
        "0",
        "--size",
        "64M",
        "--dir",
        dir.path().to_str().unwrap(),
        "--output",
        out.to_str().unwrap(),
        "--quiet",
    ]);
    let mut child = group.wrap(&a).stdout(Stdio::null()).spawn().unwrap();
    // Flip the throttle between 2,000 and 20,000 read IOPS every 1.3 s (a
    // step is 1.2 s): every pass lands on a different mix of the two.
    let mut high = false;
    while child.try_wait().unwrap().is_none() {
        std::thread::sleep(Duration::from_millis(1300));
        high = !high;
        group.set("read_iops_device", if high { 20_000 } else { 2000 });
    }
    let run = read_run(&out).unwrap();
    let unstable = findings_of(&run, "unstable");
    assert!(
        unstable
            .iter()
            .any(|f| f.subject.as_deref() == Some("RND4K Q32T1 read")),
        "no unstable RND4K Q32T1 read: {:?}",
        run.findings
            .iter()
            .map(|f| (&f.id, &f.subject))
            .collect::<Vec<_>>()
    );
    let f = unstable
        .iter()
        .find(|f| f.subject.as_deref() == Some("RND4K Q32T1 read"))
        .unwrap();
    truth_row(
        "cgroup: read IOPS flipped between 2,000 and 20,000 every 1.3 s, 3 passes",
        "unstable on the random reads",
        &format!("unstable: {}", f.verdict),
    );
}

// ---------------------------------------------------------------- RAM and filesystems

fn refused(dir: &Path) -> String {
    let out = candor_cmd(&args(&[
        "disk",
        "--runtime",
        "200ms",
        "--size",
        "16M",
        "--dir",
        dir.to_str().unwrap(),
    ]))
    .output()
    .unwrap();
    assert_eq!(
        out.status.code(),
        Some(2),
        "{}",
        String::from_utf8_lossy(&out.stdout)
    );
    String::from_utf8_lossy(&out.stderr).trim().to_string()
}

#[test]
fn tmpfs_and_ramfs_test_directories_are_refused() {
    let base = test_dir("truth-ram");
    for fs in ["tmpfs", "ramfs"] {
        let m = Mount::new(fs, "candor-test", &base.path().join(fs), Some("size=64m"));
        let err = refused(&m.dir);
        assert!(err.contains(fs), "{err}");
        truth_row(
            &format!("test directory on {fs}"),
            "refused (exit 2): it measures RAM",
            &format!("refused: {err}"),
        );
    }
}

/// btrfs and xfs on loop devices: candor measures there, says what the
/// filesystem does (copy-on-write), and leaves nothing behind.
#[test]
fn btrfs_and_xfs_test_directories() {
    let _disk = one_at_a_time();
    let base = test_dir("truth-fs");
    for fs in ["btrfs", "xfs"] {
        // 3 GiB: candor leaves 1 GiB (or 5 %) of a filesystem free.
        let lo = LoopDevice::new(&base.path().join(format!("{fs}.img")), 3 << 30, true);
        let m = Mount::format(fs, &lo.device, &base.path().join(fs));
        let out = base.path().join(format!("{fs}.json"));
        candor_ok(
            candor_cmd(&args(&[
                "disk",
                "--rw",
                "randwrite",
                "--runtime",
                "500ms",
                "--ramp",
                "0",
                "--size",
                "64M",
                "--dir",
                m.dir.to_str().unwrap(),
                "--output",
                out.to_str().unwrap(),
            ]))
            .stdout(Stdio::null()),
        );
        let run = read_run(&out).unwrap();
        let storage = run.host.storage.as_ref().unwrap();
        assert_eq!(storage.fs_type.as_deref(), Some(fs));
        let d = run.disk().next().unwrap();
        assert!(d.write.as_ref().unwrap().ops > 0);
        let said: Vec<&String> = run
            .notes
            .iter()
            .filter(|n| n.contains("copy-on-write"))
            .collect();
        if fs == "btrfs" {
            assert!(
                !said.is_empty(),
                "btrfs: no copy-on-write note: {:?}",
                run.notes
            );
            assert_eq!(
                d.file.as_ref().unwrap().nocow,
                Some(true),
                "btrfs: No_COW not set"
            );
        } else {
            assert!(said.is_empty(), "xfs: {said:?}");
        }
        let left: Vec<_> = std::fs::read_dir(&m.dir)
            .unwrap()
            .filter_map(|e| e.ok())
            .map(|e| e.file_name())
            .filter(|n| n.to_string_lossy().starts_with(".candor-"))
            .collect();
        assert!(left.is_empty(), "{fs}: left behind {left:?}");
        truth_row(
            &format!("test directory on {fs} (loop device)"),
            if fs == "btrfs" {
                "measured; test file made No_COW (chattr +C) and the Run says so"
            } else {
                "measured with O_DIRECT; no note"
            },
            &format!(
                "measured {:.0} write IOPS; {}",
                d.write.as_ref().unwrap().iops,
                said.first()
                    .map_or("no note".to_string(), |n| n.to_string())
            ),
        );
    }
}

// ---------------------------------------------------------------- a host cache

/// A host cache, planted: a loop device with direct I/O off over a file on
/// the real disk, ext4 on it, candor's test directory inside. The guest's
/// page cache then caches the "disk" the way a hypervisor's cache does;
/// huge pages shrink it to a few GiB so that a 6 GiB control file does not
/// fit, and a read throttle at the root blkio group (which reaches the loop
/// worker) makes its misses slow, as a VPS's disk is behind the cache.
#[test]
fn a_host_cache_is_seen_by_the_control_series() {
    let _disk = one_at_a_time();
    let base = test_dir("truth-cache");
    let lo = LoopDevice::new(&base.path().join("disk.img"), 10 << 30, false);
    let m = Mount::format("ext4", &lo.device, &base.path().join("mnt"));
    let pages = HugePages::leaving(3 << 30);
    assert!(
        meminfo("MemAvailable") < 5 << 30,
        "huge pages did not shrink the page cache ({} reserved, {} available)",
        pages.reserved_bytes,
        meminfo("MemAvailable")
    );
    let out = base.path().join("run.json");
    let mut cmd = candor_cmd(&args(&[
        "run",
        "--preset",
        "realworld",
        "--only",
        "disk,control",
        // One pass: the control file's fill pushes the test file out of this
        // small cache, so a second pass would read it cold (a real host's
        // cache is far larger than its guests' control files' share).
        "--passes",
        "1",
        "--runtime",
        "2s",
        "--ramp",
        "500ms",
        "--pause",
        "0",
        "--size",
        "512M",
        "--control-size",
        "6G",
        "--dir",
        m.dir.to_str().unwrap(),
        "--output",
        out.to_str().unwrap(),
        "--quiet",
    ]));
    // The throttle goes on after the files are made (a fill through it would
    // take minutes): wait for the first measurement, then slow the misses.
    let mut child = cmd.stdout(Stdio::null()).spawn().unwrap();
    let mut throttle = RootThrottle::new(base.path());
    let start = std::time::Instant::now();
    loop {
        let started = read_run(&out)
            .map(|r| !r.measurements.is_empty())
            .unwrap_or(false);
        if started || start.elapsed() > Duration::from_secs(300) {
            break;
        }
        std::thread::sleep(Duration::from_millis(100));
    }
    throttle.set("read_bps_device", 100_000_000);
    throttle.set("read_iops_device", 2000);
    assert!(child.wait().unwrap().success());
    drop(throttle);
    drop(pages);
    let run = read_run(&out).unwrap();
    let caches = findings_of(&run, "host-cache");
    let subjects: Vec<&str> = caches.iter().filter_map(|f| f.subject.as_deref()).collect();
    for want in ["SEQ1M Q1T1 read", "RND4K Q1T1 read"] {
        assert!(
            subjects.contains(&want),
            "no host-cache for {want}: {:#?}",
            run.findings
                .iter()
                .filter(|f| f.id.contains("cache"))
                .map(|f| &f.verdict)
                .collect::<Vec<_>>()
        );
    }
    truth_row(
        "host cache: loop device (direct-io off) over the disk, 3 GiB of page cache, misses throttled to 100 MB/s and 2,000 IOPS; 512 MiB test file, 6 GiB control file",
        "host-cache for the sequential and the random reads",
        &caches
            .iter()
            .map(|f| f.verdict.clone())
            .collect::<Vec<_>>()
            .join(" / "),
    );
}

// ---------------------------------------------------------------- fio imports

/// Checks that emit nothing when their evidence was there and the figures
/// were clean (round figures, write-back, CPU-bound threads, ...): their
/// silence on an import is a verdict, not a gap. Every other check emits a
/// finding, checked or not-checked, whatever it found.
const SILENT_WHEN_CLEAN: [&str; 12] = [
    // Silent when the device served the requests about as fast as the tool
    // saw them served; a run of the same job minutes later may cross its
    // ratio where the import did not (seen: CI-like full run, 2026-12-05).
    "latency-above-device",
    "round-plateau",
    "write-back",
    "io-cpu-bound",
    "thread-imbalance",
    "limiter-flat",
    "limiter-rw-equal",
    "limiter-qd-flat",
    "residency",
    "unstable",
    "burst-cliff",
    "not-steady",
];

/// The repo's fio fixtures (real fio runs on this VM): each import gives the
/// findings candor's own measurement of the same job gives, or says
/// not-checked with the reason (fio records no per-second series, no steal,
/// no file allocation). A commit rate from fio's fsync job counts fio's
/// sync latency (it was 30x too fast when that was dropped).
#[test]
fn fio_imports_agree_with_candors_own_measurement() {
    let _disk = one_at_a_time();
    let fixtures = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/fio");
    let dir = test_dir("truth-fio");
    let mut rows = Vec::new();
    for entry in std::fs::read_dir(&fixtures).unwrap() {
        let path = entry.unwrap().path();
        if path.extension().is_none_or(|e| e != "json") {
            continue;
        }
        let name = path.file_stem().unwrap().to_string_lossy().to_string();
        let imported = candor::fio::import_files(std::slice::from_ref(&path), None).unwrap();
        let import_findings = candor::findings::analyze(&imported);
        for (i, d) in imported.disk().enumerate() {
            let s = &d.spec;
            let engine = match s.engine.as_str() {
                "io_uring" | "libaio" | "psync" => s.engine.clone(),
                _ => "psync".to_string(),
            };
            let out = dir.path().join(format!("{name}-{i}.json"));
            let mut a = args(&[
                "disk",
                "--dir",
                dir.path().to_str().unwrap(),
                "--rw",
                s.rw.as_str(),
                "--bs",
                &s.bs.to_string(),
                "--iodepth",
                &s.iodepth.to_string(),
                "--numjobs",
                &s.numjobs.to_string(),
                "--engine",
                &engine,
                "--fsync",
                &s.fsync.to_string(),
                "--size",
                "64M",
                "--runtime",
                "1s",
                "--ramp",
                "200ms",
                "--output",
                out.to_str().unwrap(),
            ]);
            if let Some(mix) = s.rwmixread {
                a.extend(args(&["--rwmixread", &mix.to_string()]));
            }
            if !s.direct {
                a.push("--buffered".into());
            }
            candor_ok(candor_cmd(&a).stdout(Stdio::null()));
            let own = read_run(&out).unwrap();
            let mut only_own: Vec<String> = Vec::new();
            for f in own
                .findings
                .iter()
                .filter(|f| f.status == FindingStatus::Checked)
            {
                // These say nothing when they checked and found nothing; on
                // two runs at different times their figures may fall either way.
                if f.id == "claims" || SILENT_WHEN_CLEAN.contains(&f.id.as_str()) {
                    continue;
                }
                if !import_findings.iter().any(|g| g.id == f.id) {
                    only_own.push(f.id.clone());
                }
            }
            assert!(
                only_own.is_empty(),
                "{name}: candor checked {only_own:?}, the import says nothing (neither checked nor not-checked)"
            );
            let commit = |fs: &[Finding]| {
                fs.iter()
                    .find(|f| f.id == "app-commit" && f.status == FindingStatus::Checked)
                    .and_then(|f| f.evidence["commits_per_sec_at_p50"].as_f64())
            };
            if let (Some(theirs), Some(ours)) = (commit(&import_findings), commit(&own.findings)) {
                // A commit waits for its write and its sync: the rate can
                // never pass what fio's syncs alone allow. (Comparing with
                // candor's own rate measured now says little: the fixture is
                // from another day on a disk that drifts.)
                let sync_p50 = d.sync.as_ref().map(|s| s.lat_ns.p50 as f64).unwrap_or(0.0);
                assert!(
                    sync_p50 > 0.0 && theirs <= 1e9 / sync_p50,
                    "{name}: {theirs:.0} commits/s from fio, faster than its syncs alone allow (p50 {sync_p50} ns)"
                );
                rows.push(format!(
                    "{name}: {theirs:.0} commits/s (fio's write + sync p50), candor's own run now {ours:.0}"
                ));
            }
        }
        let checked = import_findings
            .iter()
            .filter(|f| f.status == FindingStatus::Checked && f.id != "claims")
            .count();
        let not_checked = import_findings
            .iter()
            .filter(|f| f.status == FindingStatus::NotChecked)
            .count();
        rows.push(format!(
            "{name}: {checked} checked, {not_checked} not checked"
        ));
    }
    rows.sort();
    truth_row(
        "fio imports of the repo's 9 fixtures, each beside candor's own run of the same job",
        "every finding candor checks is checked or not-checked (with the reason) on the import; commit rates agree",
        &rows.join("; "),
    );
}

/// Data changed below candor: a loop device (direct I/O on) over a file;
/// candor writes it with verify=crc32c and do_verify=0, the test changes a
/// few KiB of the BACKING FILE (write + fsync, beside the loop device), then
/// the same job with verify_only=1 reads back what it wrote. Before the
/// change: every block as written; after: `data-corrupted`, naming the
/// changed blocks, leading the findings, exit 3.
#[test]
fn a_device_that_returns_other_data_is_data_corrupted() {
    use std::io::{Seek, SeekFrom, Write};
    let _disk = one_at_a_time();
    let base = test_dir("truth-verify");
    const SIZE: u64 = 64 << 20;
    let backing = base.path().join("verify.img");
    let lo = LoopDevice::new(&backing, SIZE, true);
    let job = |extra: &str| {
        let p = base.path().join(format!("verify{}.fio", extra.len()));
        std::fs::write(
            &p,
            format!(
                "[written]\nfilename={}\nrw=randwrite\nbs=4k\nsize=64m\nioengine=libaio\niodepth=8\ndirect=1\nverify=crc32c\n{extra}",
                lo.device
            ),
        )
        .unwrap();
        p
    };
    // verify_only writes nothing: `--device` alone allows it.
    let run_job = |file: &Path, name: &str, code: i32| -> (Run, String) {
        let out = base.path().join(name);
        let mut a = args(&[
            "disk",
            "--job",
            file.to_str().unwrap(),
            "--device",
            &lo.device,
        ]);
        if code == 0 && name == "written.json" {
            a.extend(args(&["--overwrite-device", &lo.device]));
        }
        a.extend(args(&["--output", out.to_str().unwrap()]));
        let o = candor_cmd(&a).output().unwrap();
        let err = String::from_utf8_lossy(&o.stderr).into_owned();
        assert_eq!(o.status.code(), Some(code), "{name}: {err}");
        let text = String::from_utf8_lossy(&o.stdout).into_owned();
        (read_run(&out).unwrap(), format!("{text}{err}"))
    };
    let written = run_job(&job("do_verify=0\n"), "written.json", 0).0;
    let d = written.disk().next().unwrap();
    assert_eq!(
        d.write.as_ref().unwrap().bytes,
        SIZE,
        "each block once (random map)"
    );
    assert_eq!(d.verify.as_ref().unwrap().blocks_checked, 0, "do_verify=0");
    let only = job("verify_only=1\n");
    let (clean, _) = run_job(&only, "clean.json", 0);
    let v = clean.disk().next().unwrap().verify.clone().unwrap();
    assert_eq!((v.blocks_checked, v.blocks_bad), (SIZE / 4096, 0), "{v:?}");
    assert!(finding(&clean, "data-verified").is_some());
    assert!(finding(&clean, "data-corrupted").is_none());

    // 6,000 bytes from 32 MiB + 1,000: two 4 KiB blocks, written beside the
    // loop device into its backing file and synced.
    let at = 32u64 << 20;
    let mut f = std::fs::OpenOptions::new()
        .write(true)
        .open(&backing)
        .unwrap();
    f.seek(SeekFrom::Start(at + 1000)).unwrap();
    f.write_all(&[0xa5; 6000]).unwrap();
    f.sync_all().unwrap();
    drop(f);
    let (bad, output) = run_job(&only, "bad.json", 3);
    let v = bad.disk().next().unwrap().verify.clone().unwrap();
    assert_eq!((v.blocks_checked, v.blocks_bad), (SIZE / 4096, 2), "{v:?}");
    let offsets: Vec<u64> = v.first_bad.iter().map(|b| b.offset).collect();
    assert_eq!(offsets, [at, at + 4096]);
    // The first block's data changed (its header kept): the checksum; the
    // second one's header overwritten: the magic.
    let fields: Vec<&str> = v.first_bad.iter().map(|b| b.field.as_str()).collect();
    assert_eq!(fields, ["checksum", "magic"], "{v:?}");
    let f = finding(&bad, "data-corrupted").expect("data-corrupted");
    assert_eq!(f.severity, Severity::Corruption);
    assert!(f.verdict.contains(&at.to_string()), "{}", f.verdict);
    // It leads the printed findings, and the error says why the exit is 3.
    let first_finding = output
        .lines()
        .find(|l| l.contains("data-") || l.contains("job-") || l.contains("claims"))
        .unwrap_or("");
    assert!(first_finding.contains("data-corrupted"), "{output}");
    assert!(output.contains("verify: 2 blocks read back"), "{output}");
    truth_row(
        "loop device (direct I/O on): candor writes 64 MiB with verify=crc32c do_verify=0; 6,000 bytes of its backing file changed at 32 MiB + 1,000; the same job with verify_only=1",
        "before the change every block as written; after it data-corrupted naming the two changed blocks (the first's checksum, the second's header), exit 3",
        &format!("before: {} blocks checked, 0 bad ({}); after: {} (exit 3)", SIZE / 4096, finding(&clean, "data-verified").unwrap().verdict, f.verdict),
    );
}
