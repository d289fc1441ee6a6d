//! Block devices as job targets (issue 20), on real loop devices: a job
//! file naming a device reads it only when `--device` names it, writes it
//! only when `--overwrite-device` names that very device too, and never
//! while it is in use (mounted, swap, held exclusively by another program);
//! a refusal changes no byte of the device. A write that is allowed
//! touches only the job's region (hashes of the backing file's other
//! regions compared), the Run records it and every report says it in words
//! at the top; the device is held exclusively while the job runs. Sizes
//! and offsets are checked against fio running the same job file.
//!
//! Partitions and stacked devices cannot be planted on this project's VM
//! (no partition tables, md or dm): `host::block_device`'s unit tests
//! cover how they are found.
//!
//! Needs root, loop devices, fio, mkfs.ext4, mkswap, swapon and python3.

use crate::common;

use common::plant::*;
use std::path::Path;
use std::process::{Command, Output};

const MIB: u64 = 1 << 20;

/// A loop device over a file of `size` bytes of random data.
struct Loop {
    device: String,
    backing: std::path::PathBuf,
}

impl Loop {
    fn new(dir: &Path, name: &str, size: u64) -> Loop {
        let backing = dir.join(name);
        let mut data = vec![0u8; size as usize];
        let mut x = 0x9e37_79b9_7f4a_7c15u64 ^ size;
        for chunk in data.chunks_mut(8) {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            chunk.copy_from_slice(&x.to_le_bytes()[..chunk.len()]);
        }
        std::fs::write(&backing, &data).unwrap();
        let device = sh("losetup", &["--find", "--show", backing.to_str().unwrap()]);
        Loop { device, backing }
    }

    /// sha256 of the backing file's bytes `start..end`.
    fn hash(&self, start: u64, end: u64) -> String {
        let data = std::fs::read(&self.backing).unwrap();
        candor::fio::jobfile::source::sha256_hex(&data[start as usize..end as usize])
    }

    fn len(&self) -> u64 {
        std::fs::metadata(&self.backing).unwrap().len()
    }
}

impl Drop for Loop {
    fn drop(&mut self) {
        let _ = Command::new("losetup").args(["-d", &self.device]).status();
        let _ = std::fs::remove_file(&self.backing);
    }
}

fn job_file(dir: &Path, name: &str, text: &str) -> String {
    let p = dir.join(name);
    std::fs::write(&p, text).unwrap();
    p.to_str().unwrap().to_string()
}

fn candor(args: &[&str]) -> Output {
    candor_cmd(&args.iter().map(|s| s.to_string()).collect::<Vec<_>>())
        .output()
        .unwrap()
}

fn stderr(o: &Output) -> String {
    String::from_utf8_lossy(&o.stderr).into_owned()
}

/// A refusal: exit 2, one line naming `why`, and no byte of the device changed.
fn refused(lo: &Loop, args: &[&str], why: &str) {
    let before = lo.hash(0, lo.len());
    let out = candor(args);
    let err = stderr(&out);
    assert_eq!(out.status.code(), Some(2), "{args:?}: {err}");
    assert_eq!(err.trim().lines().count(), 1, "{err}");
    assert!(err.contains(why), "{args:?}: expected {why:?} in: {err}");
    assert_eq!(lo.hash(0, lo.len()), before, "{args:?} changed the device");
}

fn read_json(path: &Path) -> serde_json::Value {
    serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap()
}

#[test]
fn a_read_job_runs_only_on_a_device_named_by_device_and_reads_what_fio_reads() {
    let _disk = one_at_a_time();
    let dir = test_dir("devjob-read");
    let lo = Loop::new(dir.path(), "read.img", 48 * MIB);
    // No size=: as fio, from offset to the device's end.
    let jf = job_file(
        dir.path(),
        "read.fio",
        &format!(
            "[seq-read]\nfilename={}\nrw=read\nbs=64k\ndirect=1\noffset=16m\n",
            lo.device
        ),
    );
    refused(&lo, &["disk", "--job", &jf], "--device");
    let plan = candor(&["disk", "--job", &jf, "--device", &lo.device, "--parse-only"]);
    let plan = String::from_utf8_lossy(&plan.stdout).into_owned();
    assert!(
        plan.contains(&format!("device: {} itself", lo.device))
            && plan.contains("reads it (--device)"),
        "{plan}"
    );
    let run = dir.path().join("read.json");
    let before = lo.hash(0, lo.len());
    let out = candor(&[
        "disk",
        "--job",
        &jf,
        "--device",
        &lo.device,
        "-o",
        run.to_str().unwrap(),
    ]);
    assert!(out.status.success(), "{}", stderr(&out));
    assert_eq!(
        lo.hash(0, lo.len()),
        before,
        "a read job changed the device"
    );
    let r = read_json(&run);
    let d = &r["devices"][0];
    assert_eq!(d["path"], lo.device.as_str());
    assert_eq!(d["writable"], false);
    assert_eq!(d["written_bytes"], 0);
    let m = &r["measurements"][0];
    assert_eq!(
        m["device"]["region"],
        serde_json::json!([16 * MIB, 48 * MIB])
    );
    let candor_bytes = m["read"]["bytes"].as_u64().unwrap();
    // fio on the same job file reads the same bytes.
    let fio = Command::new("fio")
        .args(["--output-format=json", &jf])
        .output()
        .expect("fio");
    assert!(
        fio.status.success(),
        "{}",
        String::from_utf8_lossy(&fio.stderr)
    );
    let f: serde_json::Value = serde_json::from_slice(&fio.stdout).unwrap();
    let fio_bytes = f["jobs"][0]["read"]["io_bytes"].as_u64().unwrap();
    assert_eq!(fio_bytes, 32 * MIB);
    assert_eq!(candor_bytes, fio_bytes);
    assert!(!String::from_utf8_lossy(&out.stdout).contains("WAS WRITTEN"));
    assert!(String::from_utf8_lossy(&out.stdout).contains("read only (--device)"));
}

#[test]
fn a_write_job_is_refused_without_the_exact_overwrite_flag() {
    let _disk = one_at_a_time();
    let dir = test_dir("devjob-noflag");
    let lo = Loop::new(dir.path(), "target.img", 32 * MIB);
    let other = Loop::new(dir.path(), "other.img", 32 * MIB);
    let jf = job_file(
        dir.path(),
        "write.fio",
        &format!("[w]\nfilename={}\nrw=write\nbs=64k\nsize=4m\n", lo.device),
    );
    let trim = job_file(
        dir.path(),
        "trim.fio",
        &format!("[t]\nfilename={}\nrw=trim\nbs=64k\nsize=4m\n", lo.device),
    );
    let d = lo.device.as_str();
    let o = other.device.as_str();
    let other_before = other.hash(0, other.len());
    // Not named at all, named for reads only, the second flag on another
    // device, the second flag without the first.
    refused(&lo, &["disk", "--job", &jf], "--device");
    refused(
        &lo,
        &["disk", "--job", &jf, "--device", d],
        "--overwrite-device",
    );
    refused(
        &lo,
        &[
            "disk",
            "--job",
            &jf,
            "--device",
            d,
            "--device",
            o,
            "--overwrite-device",
            o,
        ],
        "named by --device only",
    );
    refused(
        &lo,
        &["disk", "--job", &jf, "--overwrite-device", d],
        "not named by --device",
    );
    // Trims are not run at all yet, whatever the flags.
    refused(
        &lo,
        &[
            "disk",
            "--job",
            &trim,
            "--device",
            d,
            "--overwrite-device",
            d,
        ],
        "trims",
    );
    assert_eq!(
        other.hash(0, other.len()),
        other_before,
        "the other device changed"
    );
}

#[test]
fn a_write_job_is_refused_on_a_device_in_use() {
    let _disk = one_at_a_time();
    let dir = test_dir("devjob-inuse");
    let lo = Loop::new(dir.path(), "used.img", 64 * MIB);
    let jf = job_file(
        dir.path(),
        "write.fio",
        &format!(
            "[w]\nfilename={}\nrw=randwrite\nbs=4k\nsize=4m\n",
            lo.device
        ),
    );
    let d = lo.device.as_str();
    let args = ["disk", "--job", &jf, "--device", d, "--overwrite-device", d];

    // Mounted (read-only, so that the filesystem itself writes nothing meanwhile).
    sh("mkfs.ext4", &["-F", "-q", d]);
    let m = Mount::new("ext4", d, &dir.path().join("m"), Some("ro"));
    refused(&lo, &args, "is mounted on");
    drop(m);

    // Active swap.
    sh("mkswap", &["-q", d]);
    sh("swapon", &[d]);
    let before = lo.hash(0, lo.len());
    let out = candor(&args);
    let _ = Command::new("swapoff").arg(d).status();
    assert_eq!(out.status.code(), Some(2), "{}", stderr(&out));
    assert!(stderr(&out).contains("swap"), "{}", stderr(&out));
    assert_eq!(lo.hash(0, lo.len()), before);

    // Held exclusively by another program.
    let mut holder = Command::new("python3")
        .args([
            "-c",
            "import os,sys,time; fd=os.open(sys.argv[1], os.O_RDONLY|os.O_EXCL); print('held', flush=True); time.sleep(60)",
            d,
        ])
        .stdout(std::process::Stdio::piped())
        .spawn()
        .expect("python3");
    use std::io::BufRead;
    let mut line = String::new();
    std::io::BufReader::new(holder.stdout.take().unwrap())
        .read_line(&mut line)
        .unwrap();
    assert_eq!(line.trim(), "held");
    let before = lo.hash(0, lo.len());
    let out = candor(&args);
    let _ = holder.kill();
    let _ = holder.wait();
    assert_eq!(out.status.code(), Some(2), "{}", stderr(&out));
    assert!(stderr(&out).contains("in use"), "{}", stderr(&out));
    assert!(stderr(&out).contains("exclusive open"), "{}", stderr(&out));
    assert_eq!(lo.hash(0, lo.len()), before);
}

#[test]
fn a_write_job_with_the_exact_flag_writes_only_its_region_and_says_so() {
    let _disk = one_at_a_time();
    let dir = test_dir("devjob-write");
    let lo = Loop::new(dir.path(), "write.img", 64 * MIB);
    // The second flag through a symlink: the same device by number.
    let link = dir.path().join("by-id-link");
    std::os::unix::fs::symlink(&lo.device, &link).unwrap();
    let jf = job_file(
        dir.path(),
        "write.fio",
        &format!(
            "[w]\nfilename={}\nrw=write\nbs=64k\ndirect=1\noffset=8m\nsize=4m\n\
             [w2]\nstonewall\nfilename={}\nrw=randwrite\nbs=4k\noffset=20m\nsize=1m\n",
            lo.device,
            link.display()
        ),
    );
    // The bytes outside the two jobs' regions: 0-8m, 12m-20m, 21m-64m.
    let untouched =
        |lo: &Loop| [(0, 8), (12, 20), (21, 64)].map(|(a, b)| lo.hash(a * MIB, b * MIB));
    let before = untouched(&lo);
    let region = lo.hash(8 * MIB, 12 * MIB);
    let run = dir.path().join("write.json");
    let out = candor(&[
        "disk",
        "--job",
        &jf,
        "--device",
        &lo.device,
        "--overwrite-device",
        link.to_str().unwrap(),
        "-o",
        run.to_str().unwrap(),
    ]);
    assert!(out.status.success(), "{}", stderr(&out));
    sh("sync", &[]);
    assert_eq!(
        untouched(&lo),
        before,
        "bytes outside the jobs' regions changed"
    );
    assert_ne!(lo.hash(8 * MIB, 12 * MIB), region, "the job wrote nothing");
    let r = read_json(&run);
    let d = &r["devices"][0];
    assert_eq!(d["writable"], true);
    // Two paths to one device are one device, written by both jobs.
    assert_eq!(r["devices"].as_array().unwrap().len(), 1);
    assert_eq!(d["written_bytes"], 5 * MIB);
    assert_eq!(d["jobs"][0]["job"], "w");
    assert_eq!(
        d["jobs"][0]["region"],
        serde_json::json!([8 * MIB, 12 * MIB])
    );
    assert_eq!(d["jobs"][1]["job"], "w2");
    assert_eq!(
        d["jobs"][1]["region"],
        serde_json::json!([20 * MIB, 21 * MIB])
    );
    assert!(
        r["measurements"][0]["file"].is_null(),
        "a device job has no test file"
    );
    // In words, at the top of every report.
    let text = String::from_utf8_lossy(&out.stdout).into_owned();
    assert!(
        text.contains(&format!("{} (", lo.device)) && text.contains("WAS WRITTEN"),
        "{text}"
    );
    let disk_table = text.find("Disk (").unwrap_or(text.len());
    assert!(text.find("WAS WRITTEN").unwrap() < disk_table, "{text}");
    for format in ["md", "html"] {
        let out = candor(&["report", run.to_str().unwrap(), "--format", format]);
        assert!(out.status.success(), "{}", stderr(&out));
        let page = String::from_utf8_lossy(&out.stdout);
        assert!(
            page.contains("WAS WRITTEN: candor wrote 5 MiB"),
            "{format}: {page}"
        );
    }
}

#[test]
fn a_device_being_written_is_held_exclusively() {
    let _disk = one_at_a_time();
    let dir = test_dir("devjob-excl");
    let lo = Loop::new(dir.path(), "excl.img", 32 * MIB);
    let jf = job_file(
        dir.path(),
        "write.fio",
        &format!(
            "[w]\nfilename={}\nrw=randwrite\nbs=4k\nsize=8m\nruntime=3\ntime_based=1\n",
            lo.device
        ),
    );
    let d = lo.device.as_str();
    let child = candor_cmd(&args(&[
        "disk",
        "--job",
        &jf,
        "--device",
        d,
        "--overwrite-device",
        d,
    ]))
    .stdout(std::process::Stdio::null())
    .stderr(std::process::Stdio::piped())
    .spawn()
    .unwrap();
    std::thread::sleep(std::time::Duration::from_millis(1500));
    let probe = Command::new("python3")
        .args([
            "-c",
            "import os,sys,errno\ntry:\n os.close(os.open(sys.argv[1], os.O_RDONLY|os.O_EXCL)); print('free')\nexcept OSError as e:\n print('busy' if e.errno==errno.EBUSY else e)",
            d,
        ])
        .output()
        .unwrap();
    let out = child.wait_with_output().unwrap();
    assert!(out.status.success(), "{}", stderr(&out));
    assert_eq!(String::from_utf8_lossy(&probe.stdout).trim(), "busy");
}

/// A loop device stacked on another claims nothing: the lower device shows
/// no holder and opens exclusively as if unused. Writing the lower device
/// while the upper one is mounted corrupted that filesystem (issue 36);
/// so did writing the upper one while the lower is mounted. Both are
/// refused, naming the stack, the filesystem stays clean (`fsck -n`), and
/// so does a device whose filesystem holds a loop's backing file after a
/// lazy unmount (mounted nowhere, still in use).
#[test]
fn a_write_through_a_stacked_loop_device_is_refused_and_the_filesystem_stays_clean() {
    let _disk = one_at_a_time();
    let dir = test_dir("devjob-stack");
    let lower = Loop::new(dir.path(), "lower.img", 64 * MIB);
    let upper = sh("losetup", &["--find", "--show", &lower.device]);
    struct Detach(String);
    impl Drop for Detach {
        fn drop(&mut self) {
            let _ = Command::new("losetup").args(["-d", &self.0]).status();
        }
    }
    let upper_guard = Detach(upper.clone());
    let write_job = |name: &str, device: &str| {
        job_file(
            dir.path(),
            name,
            &format!("[w]\nfilename={device}\nrw=randwrite\nbs=4k\nsize=4m\n"),
        )
    };
    let fsck_clean = |device: &str| {
        let out = Command::new("fsck.ext4")
            .args(["-n", "-f", device])
            .output()
            .unwrap();
        assert!(
            out.status.success(),
            "fsck {device}: {}{}",
            String::from_utf8_lossy(&out.stdout),
            String::from_utf8_lossy(&out.stderr)
        );
    };

    // The upper device mounted read-write with a file in it; the lower written.
    sh("mkfs.ext4", &["-F", "-q", &upper]);
    let m = Mount::new("ext4", &upper, &dir.path().join("upper"), None);
    std::fs::write(m.dir.join("kept"), vec![7u8; 1 << 20]).unwrap();
    let jf = write_job("lower.fio", &lower.device);
    let d = lower.device.as_str();
    // (No byte hash here: the mounted filesystem may write its own journal.)
    let out = candor(&["disk", "--job", &jf, "--device", d, "--overwrite-device", d]);
    let err = stderr(&out);
    assert_eq!(out.status.code(), Some(2), "{err}");
    assert_eq!(err.trim().lines().count(), 1, "{err}");
    assert!(
        err.contains(&format!("{upper} is a loop device backed by {d}")),
        "{err}"
    );
    assert!(
        err.contains(&format!("{upper} (on {d}) is mounted on")),
        "{err}"
    );
    drop(m);
    fsck_clean(&upper);

    // The lower device mounted; the upper (which writes the lower's bytes) written.
    let m = Mount::new("ext4", &upper, &dir.path().join("upper"), Some("ro"));
    drop(m);
    drop(upper_guard);
    sh("mkfs.ext4", &["-F", "-q", d]);
    let m = Mount::new("ext4", d, &dir.path().join("lower"), None);
    std::fs::write(m.dir.join("kept"), vec![9u8; 1 << 20]).unwrap();
    let upper = sh("losetup", &["--find", "--show", d]);
    let upper_guard = Detach(upper.clone());
    let jf = write_job("upper.fio", &upper);
    let out = candor(&[
        "disk",
        "--job",
        &jf,
        "--device",
        &upper,
        "--overwrite-device",
        &upper,
    ]);
    let err = stderr(&out);
    assert_eq!(out.status.code(), Some(2), "{err}");
    assert_eq!(err.trim().lines().count(), 1, "{err}");
    assert!(
        err.contains(&format!(
            "{d} (under {upper}: writing {upper} writes it) is mounted on"
        )),
        "{err}"
    );
    drop(upper_guard);
    drop(m);
    fsck_clean(d);

    // A loop over a file on the device's filesystem, the filesystem lazily
    // unmounted: mounted nowhere, still in use.
    let m = Mount::new("ext4", d, &dir.path().join("lower"), None);
    let img = m.dir.join("inner.img");
    std::fs::write(&img, vec![0u8; 8 << 20]).unwrap();
    let inner = sh("losetup", &["--find", "--show", img.to_str().unwrap()]);
    let inner_guard = Detach(inner.clone());
    sh("umount", &["-l", m.dir.to_str().unwrap()]);
    std::mem::forget(m);
    let jf = write_job("lower2.fio", d);
    let out = candor(&["disk", "--job", &jf, "--device", d, "--overwrite-device", d]);
    let err = stderr(&out);
    assert_eq!(out.status.code(), Some(2), "{err}");
    assert!(
        err.contains(&format!("{inner} is a loop device backed by a file on {d}")),
        "{err}"
    );
    drop(inner_guard);
    // The lazily unmounted filesystem is released once the loop lets go.
    for _ in 0..50 {
        if Command::new("fsck.ext4")
            .args(["-n", "-f", d])
            .output()
            .unwrap()
            .status
            .success()
        {
            break;
        }
        std::thread::sleep(std::time::Duration::from_millis(100));
    }
    fsck_clean(d);
    let _ = std::fs::remove_dir(dir.path().join("lower"));
}
