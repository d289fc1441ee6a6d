//! Truth-table rows for the block stack, planted for real: a second process
//! reading the same disk (`foreign-io`), a loop device with direct I/O off
//! over a file on the disk (`cache-layer` naming the loop device), the same
//! with direct I/O on (a pass-through layer: no warning), and btrfs with a
//! mirrored data profile over two loop devices (`write-amplification`
//! about 2x, both members seen), and a cgroup I/O throttle inside the guest
//! (`latency-above-device`: the device serves each request in its usual
//! time while candor waits in the throttle), and CPU hogs on candor's CPU
//! (the same latency above the device, but candor's threads waiting for a
//! CPU: information, not a warning). This VM's kernel has no device-mapper or
//! md: those stacks are tested by the unit tests in src/host/blockstack.rs
//! on sysfs trees they write.
//!
//! Needs root, loop devices, mkfs.ext4, mkfs.btrfs and dd.

use crate::common;

use candor::result::{read_run, Finding, FindingStatus, Run, Severity, StackRelation};
use common::plant::*;
use std::path::Path;
use std::process::{Command, Stdio};

fn warning<'a>(run: &'a Run, id: &str) -> Option<&'a Finding> {
    run.findings
        .iter()
        .find(|f| f.id == id && f.status == FindingStatus::Checked)
}

/// A checked finding of warning severity or above.
fn alarm<'a>(run: &'a Run, id: &str) -> Option<&'a Finding> {
    warning(run, id).filter(|f| f.severity >= Severity::Warning)
}

fn disk_job(dir: &Path, out: &Path, rw: &str, bs: &str, runtime: &str) -> Run {
    let _ = std::fs::remove_file(out);
    candor_ok(
        candor_cmd(&args(&[
            "disk",
            "--dir",
            dir.to_str().unwrap(),
            "--rw",
            rw,
            "--bs",
            bs,
            "--iodepth",
            "8",
            "--size",
            "256M",
            "--runtime",
            runtime,
            "--ramp",
            "200ms",
            "--output",
            out.to_str().unwrap(),
        ]))
        .stdout(Stdio::null()),
    );
    read_run(out).unwrap()
}

fn evidence_layers(run: &Run) -> String {
    run.disk()
        .flat_map(|d| d.block_stack.iter())
        .map(|l| {
            let io = l.io.unwrap_or_default();
            format!(
                "{} {:?}: read {} MB, wrote {} MB",
                l.layer.name,
                l.layer.relation,
                io.read_bytes / 1_000_000,
                io.write_bytes / 1_000_000
            )
        })
        .collect::<Vec<_>>()
        .join("; ")
}

/// A reader beside candor: `dd` reading another file of the same
/// filesystem with direct I/O in a loop for the whole measurement.
#[test]
fn a_second_reader_on_the_disk_is_foreign_io() {
    let _disk = one_at_a_time();
    let dir = test_dir("stack-foreign");
    let other = dir.path().join("other.img");
    sh(
        "dd",
        &[
            "if=/dev/urandom",
            &format!("of={}", other.display()),
            "bs=1M",
            "count=512",
            "oflag=direct",
            "status=none",
        ],
    );
    let script = format!(
        "while :; do dd if={} of=/dev/null bs=1M iflag=direct status=none; done",
        other.display()
    );
    let mut reader = Command::new("sh").args(["-c", &script]).spawn().unwrap();
    let out = dir.path().join("foreign.json");
    let run = disk_job(dir.path(), &out, "randread", "4k", "3s");
    let _ = reader.kill();
    let _ = reader.wait();
    // dd may survive its shell: end every dd reading our file.
    let _ = Command::new("pkill")
        .args(["-f", &format!("if={}", other.display())])
        .status();
    let f = warning(&run, "foreign-io").unwrap_or_else(|| {
        panic!(
            "no foreign-io with dd reading beside candor: {}",
            evidence_layers(&run)
        )
    });
    let share = f.evidence["measurements"][0]["share"].as_f64().unwrap();
    assert!(share > 0.05, "{}", f.verdict);
    truth_row(
        "dd reading another file of the disk (1 MiB, direct) during a 4 KiB random-read job",
        "foreign-io with its share",
        &format!("foreign-io: {}", f.verdict),
    );
}

/// ext4 on a loop device over a file of the disk: with direct I/O off the
/// loop device reads its backing file through the page cache (the bytes
/// disappear at the loop device); with direct I/O on it passes them through.
#[test]
fn a_loop_device_is_a_cache_layer_only_without_direct_io() {
    let _disk = one_at_a_time();
    let base = test_dir("stack-loop");
    for direct_io in [false, true] {
        let tag = if direct_io { "dio-on" } else { "dio-off" };
        let lo = LoopDevice::new(&base.path().join(format!("{tag}.img")), 2 << 30, direct_io);
        // Inode tables and the journal initialised now: ext4lazyinit would
        // otherwise zero them in the background during the measurement
        // (33 MB of writes in a 2 s read test here: foreign I/O, truly).
        sh(
            "mkfs.ext4",
            &[
                "-F",
                "-q",
                "-E",
                "lazy_itable_init=0,lazy_journal_init=0",
                &lo.device,
            ],
        );
        let m = Mount::new("ext4", &lo.device, &base.path().join(tag), None);
        let out = base.path().join(format!("{tag}.json"));
        let run = disk_job(&m.dir, &out, "randread", "64k", "2s");
        let stack = &run.disk().next().unwrap().block_stack;
        assert_eq!(
            stack.first().map(|l| l.layer.kind.as_str()),
            Some("loop"),
            "{stack:?}"
        );
        assert!(
            stack
                .iter()
                .any(|l| l.layer.relation == StackRelation::Backing),
            "the loop device's backing device is not in the stack: {stack:?}"
        );
        let cache = warning(&run, "cache-layer");
        let foreign = warning(&run, "foreign-io");
        if direct_io {
            assert!(
                cache.is_none() && foreign.is_none(),
                "loop device with direct I/O on: {:?} {:?} ({})",
                cache.map(|f| &f.verdict),
                foreign.map(|f| &f.verdict),
                evidence_layers(&run)
            );
            truth_row(
                "ext4 on a loop device with direct I/O on (pass-through layer)",
                "no cache-layer, no foreign-io",
                &format!("none; {}", evidence_layers(&run)),
            );
        } else {
            let f = cache.unwrap_or_else(|| {
                panic!(
                    "loop device with direct I/O off: no cache-layer: {}",
                    evidence_layers(&run)
                )
            });
            assert!(
                f.subject.as_deref().unwrap_or("").starts_with("loop"),
                "the cache is not placed at the loop device: {}",
                f.verdict
            );
            truth_row(
                "ext4 on a loop device with direct I/O off over a file on the disk",
                "cache-layer naming the loop device",
                &format!("cache-layer: {}", f.verdict),
            );
        }
        drop(m);
        drop(lo);
    }
}

/// btrfs with the raid1 data profile over two loop devices: every byte
/// candor writes is written to both members.
#[test]
fn a_mirrored_btrfs_writes_twice() {
    let _disk = one_at_a_time();
    let base = test_dir("stack-btrfs");
    let a = LoopDevice::new(&base.path().join("a.img"), 3 << 30, true);
    let b = LoopDevice::new(&base.path().join("b.img"), 3 << 30, true);
    sh(
        "mkfs.btrfs",
        &[
            "-f", "-q", "-d", "raid1", "-m", "raid1", &a.device, &b.device,
        ],
    );
    let m = Mount::new("btrfs", &a.device, &base.path().join("mnt"), None);
    let out = base.path().join("btrfs.json");
    let run = disk_job(&m.dir, &out, "randwrite", "64k", "2s");
    let stack = &run.disk().next().unwrap().block_stack;
    let members: Vec<&str> = stack
        .iter()
        .filter(|l| l.layer.relation == StackRelation::Member)
        .map(|l| l.layer.name.as_str())
        .collect();
    assert_eq!(members.len(), 2, "both members: {stack:?}");
    let f = warning(&run, "write-amplification").unwrap_or_else(|| {
        panic!(
            "btrfs raid1: no write-amplification: {}",
            evidence_layers(&run)
        )
    });
    let factor = f.evidence["factor"].as_f64().unwrap();
    assert!(
        (1.7..2.6).contains(&factor),
        "raid1 factor {factor}: {}",
        f.verdict
    );
    truth_row(
        "btrfs raid1 (data and metadata) over two loop devices",
        "write-amplification about 2x, both members seen",
        &format!("members {}; {}", members.join(", "), f.verdict),
    );
    drop(m);
    drop(b);
    drop(a);
}

/// A throttle inside the guest, as Docker's `--device-read-iops` or
/// systemd's `IOReadIOPSMax=` set one (a cgroup v1 blkio throttle of 2,000
/// read IOPS on candor's group): the device serves each request in its
/// usual time and candor's requests wait above it. The same job alone and
/// unthrottled raises nothing.
#[test]
fn a_throttle_in_the_guest_is_latency_above_the_device() {
    let _disk = one_at_a_time();
    let dir = test_dir("stack-throttle");
    let group = Cgroup::new("latency", dir.path());
    group.set("read_iops_device", 2000);
    let job = |out: &Path| {
        args(&[
            "disk",
            "--dir",
            dir.path().to_str().unwrap(),
            "--rw",
            "randread",
            "--bs",
            "4k",
            "--iodepth",
            "32",
            "--size",
            "256M",
            "--runtime",
            "3s",
            "--ramp",
            "200ms",
            "--output",
            out.to_str().unwrap(),
        ])
    };
    let throttled = dir.path().join("throttled.json");
    candor_ok(group.wrap(&job(&throttled)).stdout(Stdio::null()));
    let run = read_run(&throttled).unwrap();
    let f = alarm(&run, "latency-above-device").unwrap_or_else(|| {
        panic!(
            "no latency-above-device under a 2,000 IOPS throttle: {:?}; stack: {}; {:?}",
            run.findings
                .iter()
                .map(|f| format!("{}: {}", f.id, f.verdict))
                .collect::<Vec<_>>(),
            evidence_layers(&run),
            run.disk()
                .map(|d| (d.spec.direct, d.beside_other_jobs, &d.read, &d.block_stack))
                .collect::<Vec<_>>()
        )
    });
    let ratio = f.evidence["measurements"][0]["candor_over_device"]
        .as_f64()
        .unwrap();
    assert!(ratio >= 5.0, "{}", f.verdict);
    // candor's threads slept in the throttle: the time above the device
    // is the throttle's, not a wait for a CPU.
    assert_eq!(
        f.evidence["measurements"][0]["cause"], "throttle-or-queue",
        "{}",
        f.verdict
    );
    let clean = dir.path().join("clean.json");
    candor_ok(candor_cmd(&job(&clean)).stdout(Stdio::null()));
    let run = read_run(&clean).unwrap();
    assert!(
        alarm(&run, "latency-above-device").is_none(),
        "unthrottled: {}",
        evidence_layers(&run)
    );
    truth_row(
        "a cgroup throttle of 2,000 read IOPS inside the guest on RND4K Q32T1",
        "latency-above-device (the device fast, candor waiting above it); nothing unthrottled",
        &format!("latency-above-device: {}", f.verdict),
    );
}

/// Busy loops pinned to one CPU, killed on drop (even when the test fails).
struct Hogs(Vec<std::process::Child>);

impl Hogs {
    fn on(cpu: usize, n: usize) -> Hogs {
        Hogs(
            (0..n)
                .map(|_| {
                    Command::new("taskset")
                        .args(["-c", &cpu.to_string(), "sh", "-c", "while :; do :; done"])
                        .spawn()
                        .expect("taskset (util-linux) runs the CPU hogs")
                })
                .collect(),
        )
    }
}

impl Drop for Hogs {
    fn drop(&mut self) {
        for c in &mut self.0 {
            let _ = c.kill();
            let _ = c.wait();
        }
    }
}

/// Other processes busy on candor's CPU, the disk unthrottled: two busy
/// loops pinned to one CPU and candor pinned beside them at a lower
/// priority (nice 19), as a batch job on a busy host runs. Its requests
/// take many times the device's time, all of it its I/O threads waiting
/// for a CPU (/proc/thread-self/schedstat): the finding says so and is
/// information; no warning on the clean disk.
#[test]
fn cpu_hogs_beside_candor_are_a_wait_for_a_cpu_not_a_limit() {
    let _disk = one_at_a_time();
    let dir = test_dir("stack-hogs");
    let cpu = std::thread::available_parallelism().map_or(0, |n| n.get() - 1);
    let out = dir.path().join("hogged.json");
    let mut cmd = Command::new("taskset");
    cmd.args(["-c", &cpu.to_string(), "nice", "-n", "19"])
        .arg(env!("CARGO_BIN_EXE_candor"))
        .args(args(&[
            "disk",
            "--dir",
            dir.path().to_str().unwrap(),
            "--rw",
            "randread",
            "--bs",
            "4k",
            "--iodepth",
            "32",
            "--size",
            "256M",
            "--runtime",
            "3s",
            "--ramp",
            "200ms",
            "--output",
            out.to_str().unwrap(),
        ]))
        .env("CANDOR_NO_HISTORY", "1")
        .stdout(Stdio::null());
    let hogs = Hogs::on(cpu, 2);
    candor_ok(&mut cmd);
    drop(hogs);
    let run = read_run(&out).unwrap();
    let d = run.disk().next().unwrap();
    let wait = d
        .cpu
        .run_wait_ns
        .expect("the I/O threads' run-queue wait recorded");
    assert!(
        wait as f64 >= 0.5 * d.measured_ns as f64,
        "the hogs took less than half the interval from candor's thread: {wait} ns of {} ns",
        d.measured_ns
    );
    let f = run
        .findings
        .iter()
        .find(|f| f.id == "latency-above-device" && f.status == FindingStatus::Checked)
        .unwrap_or_else(|| {
            panic!(
                "no latency-above-device checked: {:?}; stack: {}",
                run.findings
                    .iter()
                    .map(|f| format!("{}: {}", f.id, f.verdict))
                    .collect::<Vec<_>>(),
                evidence_layers(&run)
            )
        });
    assert_eq!(f.severity, Severity::Info, "{}", f.verdict);
    assert_eq!(
        f.evidence["measurements"][0]["cause"], "cpu-wait",
        "{}",
        f.verdict
    );
    assert!(f.verdict.contains("waiting for a CPU"), "{}", f.verdict);
    // foreign-io is left out: whether another process wrote to the disk
    // during these 3 s is not what this row plants (the hogs do no I/O),
    // and a shared test machine's writeback would fail it for the wrong
    // reason; a_clean_disk_raises_no_false_alarm (tests/truth.rs) holds it.
    let alarms: Vec<String> = ["latency-above-device", "cache-layer", "write-amplification"]
        .iter()
        .filter_map(|id| alarm(&run, id))
        .map(|f| format!("{}: {}", f.id, f.verdict))
        .collect();
    assert!(
        alarms.is_empty(),
        "warnings on a clean disk beside CPU hogs: {alarms:?}"
    );
    truth_row(
        "two busy loops on candor's CPU (candor at nice 19), the disk unthrottled, RND4K Q32T1",
        "latency-above-device as information: the time above the device was a wait for a CPU; no warning",
        &format!("{:?}: {}", f.severity, f.verdict),
    );
}
