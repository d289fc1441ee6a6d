//! What candor reads of a block device before a job may use it (issue 20):
//! its size, and everything that uses it, planted for real on loop devices:
//! a mounted filesystem, active swap, and another program holding it open
//! exclusively. Partitions and holders (md, dm) cannot be planted on this
//! project's VM (its kernel has no partition-table support, no md and no
//! device-mapper): `host::block_device`'s unit tests cover them on sysfs
//! trees they write. Nothing in these tests writes to a device except mkfs and
//! mkswap on the loop devices the test made.
//!
//! Needs root, loop devices, mkfs.ext4, mkswap, swapon and python3.

use crate::common;

use candor::host::block_device::inspect;
use common::plant::*;
use std::path::Path;
use std::process::Command;

/// A loop device over a new file of `size` bytes in `dir`.
struct Loop {
    device: String,
    backing: std::path::PathBuf,
}

impl Loop {
    fn new(dir: &Path, name: &str, size: u64) -> Loop {
        let backing = dir.join(name);
        let f = std::fs::File::create(&backing).unwrap();
        f.set_len(size).unwrap();
        drop(f);
        let device = sh("losetup", &["--find", "--show", backing.to_str().unwrap()]);
        Loop { device, backing }
    }
}

impl Drop for Loop {
    fn drop(&mut self) {
        let _ = Command::new("blockdev")
            .args(["--setrw", &self.device])
            .status();
        let _ = Command::new("losetup").args(["-d", &self.device]).status();
        let _ = std::fs::remove_file(&self.backing);
    }
}

fn users(device: &str) -> Vec<String> {
    inspect(Path::new(device))
        .unwrap()
        .users
        .into_iter()
        .map(|u| u.0)
        .collect()
}

#[test]
fn a_free_device_has_its_size_and_no_user() {
    let dir = test_dir("bdev-free");
    let lo = Loop::new(dir.path(), "free.img", 64 << 20);
    let f = inspect(Path::new(&lo.device)).unwrap();
    assert_eq!(f.size_bytes, 64 << 20);
    assert_eq!(f.logical_block_size, 512);
    assert!(f.users.is_empty(), "{:?}", f.users);
    assert!(!f.read_only);
    sh("blockdev", &["--setro", &lo.device]);
    let ro = inspect(Path::new(&lo.device)).unwrap().read_only;
    // The flag outlives the loop device's detach: the next test to take
    // this loop number would find it read-only.
    sh("blockdev", &["--setrw", &lo.device]);
    assert!(ro);
}

#[test]
fn a_mounted_filesystem_is_a_user() {
    let dir = test_dir("bdev-mounted");
    let lo = Loop::new(dir.path(), "fs.img", 64 << 20);
    let m = Mount::format("ext4", &lo.device, &dir.path().join("m"));
    let u = users(&lo.device);
    assert!(
        u.iter()
            .any(|u| u.contains("is mounted on") && u.contains(m.dir.to_str().unwrap())),
        "{u:?}"
    );
    drop(m);
    assert!(users(&lo.device).is_empty());
}

#[test]
fn swap_is_a_user() {
    let dir = test_dir("bdev-swap");
    let lo = Loop::new(dir.path(), "swap.img", 64 << 20);
    sh("mkswap", &["-q", &lo.device]);
    sh("swapon", &[&lo.device]);
    let u = users(&lo.device);
    let _ = Command::new("swapoff").arg(&lo.device).status();
    assert!(u.iter().any(|u| u.contains("in use as swap")), "{u:?}");
}

#[test]
fn another_programs_exclusive_open_is_a_user() {
    let dir = test_dir("bdev-excl");
    let lo = Loop::new(dir.path(), "held.img", 64 << 20);
    let mut holder = Command::new("python3")
        .args([
            "-c",
            "import os,sys,time; fd=os.open(sys.argv[1], os.O_RDONLY|os.O_EXCL); print('held', flush=True); time.sleep(60)",
            &lo.device,
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
    let u = users(&lo.device);
    let _ = holder.kill();
    let _ = holder.wait();
    assert!(
        u.iter()
            .any(|u| u.contains("an exclusive open was refused")),
        "{u:?}"
    );
    assert!(users(&lo.device).is_empty());
}
