//! A block device that a job names as its target (`filename=/dev/sdb`): what
//! it is, how large, and everything that uses it, read before anything opens
//! it for writing. The decision (refuse, allow reads, allow writes) is the
//! plan's; this module only gathers the facts and never opens the device
//! for writing.
//!
//! "In use" covers the device itself, each of its partitions, and everything
//! stacked on any of them (their sysfs `holders/`: dm, md, bcache, LVM),
//! recursively:
//!
//! - a mounted filesystem (`/proc/self/mountinfo`, matched by the source's
//!   device number and by the mount's own, so btrfs's anonymous device
//!   numbers and a source given through a symlink are both caught);
//! - active swap (`/proc/swaps`);
//! - a holder (a device-mapper or md device built on it);
//! - the kernel's own answer: an open with `O_EXCL` (read-only, which a block
//!   device allows) fails with `EBUSY` while the device is mounted, is swap,
//!   is a member of md, dm, btrfs or a ZFS pool, or is held open exclusively
//!   by another program. Tried on the device and each partition; the
//!   descriptor is closed at once.
//!
//! Must not: write to, or open for writing, any device.

use crate::host::storage::parse_mountinfo;
use std::ffi::CString;
use std::os::unix::ffi::OsStrExt;
use std::os::unix::fs::{FileTypeExt, MetadataExt};
use std::path::{Path, PathBuf};

/// What uses a device, in words that name it ("/dev/loop3p1 is mounted on
/// /mnt/data").
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DeviceUse(pub String);

/// A block device and everything that uses it.
#[derive(Debug, Clone)]
pub struct BlockDeviceFacts {
    /// As the user named it.
    pub given: PathBuf,
    /// Its kernel name (`loop3`, `nvme0n1`, `sdb1`).
    pub name: String,
    /// `major:minor`.
    pub dev: String,
    pub size_bytes: u64,
    pub logical_block_size: u64,
    /// Set read-only in the kernel (`/sys/class/block/NAME/ro`).
    pub read_only: bool,
    /// Its partitions' kernel names.
    pub partitions: Vec<String>,
    /// Everything that uses it; empty when nothing does.
    pub users: Vec<DeviceUse>,
}

/// Why a path cannot be a device target, in one line.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct NotADevice(pub String);

impl std::fmt::Display for NotADevice {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.0)
    }
}

/// Reads the facts of the block device at `path` (a symlink such as
/// `/dev/disk/by-id/...` is followed to the device node).
pub fn inspect(path: &Path) -> Result<BlockDeviceFacts, NotADevice> {
    inspect_at(path, Path::new("/sys"), Path::new("/proc"))
}

fn inspect_at(path: &Path, sys: &Path, proc: &Path) -> Result<BlockDeviceFacts, NotADevice> {
    let shown = path.display();
    let meta = std::fs::metadata(path).map_err(|e| NotADevice(format!("{shown}: {e}")))?;
    if !meta.file_type().is_block_device() {
        return Err(NotADevice(format!(
            "{shown} is {}, not a block device",
            crate::input::kind_in_words(&meta.file_type())
        )));
    }
    let rdev = meta.rdev();
    let dev = format!("{}:{}", libc::major(rdev), libc::minor(rdev));
    let class = sys.join("dev/block").join(&dev);
    let name = std::fs::canonicalize(&class)
        .ok()
        .and_then(|p| p.file_name().map(|n| n.to_string_lossy().into_owned()))
        .ok_or_else(|| NotADevice(format!("{shown} ({dev}) is not in {}", class.display())))?;
    let read = |f: &str| std::fs::read_to_string(class.join(f)).ok();
    let number = |f: &str| read(f).and_then(|t| t.trim().parse::<u64>().ok());
    let size_bytes = number("size").unwrap_or(0) * 512;
    let logical_block_size = number("queue/logical_block_size")
        .or_else(|| {
            // A partition's queue is its disk's.
            std::fs::read_to_string(class.join("../queue/logical_block_size"))
                .ok()?
                .trim()
                .parse()
                .ok()
        })
        .unwrap_or(512);
    let partitions = partitions_of(&class, &name);
    let mounts = std::fs::read_to_string(proc.join("self/mountinfo")).unwrap_or_default();
    let swaps = std::fs::read_to_string(proc.join("swaps")).unwrap_or_default();
    let mut users = stacked_users(sys, &name, &partitions, &mounts, &swaps);
    // The kernel's own answer, for the device and each partition.
    for n in std::iter::once(&name).chain(partitions.iter()) {
        if users.iter().any(|u| u.0.starts_with(&format!("/dev/{n} "))) {
            continue;
        }
        if exclusive_open_busy(&Path::new("/dev").join(n), n == &name, path) {
            users.push(DeviceUse(format!(
                "/dev/{n} is held by the kernel or another program (an exclusive open was refused: mounted, swap, a member of md, dm, btrfs or a ZFS pool, or opened exclusively)"
            )));
        }
    }
    Ok(BlockDeviceFacts {
        given: path.to_path_buf(),
        name,
        dev,
        size_bytes,
        logical_block_size,
        read_only: read("ro").is_some_and(|t| t.trim() == "1"),
        partitions,
        users,
    })
}

/// What uses the device `name` or one of its `partitions`, or anything
/// stacked on them (their `holders/`, recursively): mounts and swap.
fn stacked_users(
    sys: &Path,
    name: &str,
    partitions: &[String],
    mounts: &str,
    swaps: &str,
) -> Vec<DeviceUse> {
    let mut users = Vec::new();
    let mut seen: Vec<String> = Vec::new();
    let mut queue: Vec<(String, String)> = std::iter::once(name.to_string())
        .chain(partitions.iter().cloned())
        .map(|n| (n.clone(), n))
        .collect();
    while let Some((what, via)) = queue.pop() {
        // A loop in sysfs cannot happen; the bound keeps a bad tree finite.
        if seen.contains(&what) || seen.len() > 4096 {
            continue;
        }
        seen.push(what.clone());
        let node = sys.join("class/block").join(&what);
        let Some(number) = std::fs::read_to_string(node.join("dev"))
            .ok()
            .map(|t| t.trim().to_string())
        else {
            continue;
        };
        let label = if what == via {
            format!("/dev/{what}")
        } else {
            format!("/dev/{what} (on /dev/{via})")
        };
        for m in mounted(mounts, &number) {
            users.push(DeviceUse(format!("{label} is mounted on {m}")));
        }
        if is_swap(swaps, &number) {
            users.push(DeviceUse(format!("{label} is in use as swap")));
        }
        for holder in list_dir(&node.join("holders")) {
            users.push(DeviceUse(format!(
                "/dev/{holder} is built on {label} (a holder: device-mapper, md or the like)"
            )));
            queue.push((holder.clone(), via.clone()));
            for p in partitions_of(&sys.join("class/block").join(&holder), &holder) {
                queue.push((p, via.clone()));
            }
        }
    }
    users
}

/// The partitions of a device: entries of its sysfs directory with a
/// `partition` file.
fn partitions_of(class: &Path, name: &str) -> Vec<String> {
    let mut parts: Vec<String> = list_dir(class)
        .into_iter()
        .filter(|e| e.starts_with(name) && class.join(e).join("partition").exists())
        .collect();
    parts.sort();
    parts
}

fn list_dir(dir: &Path) -> Vec<String> {
    let mut names: Vec<String> = std::fs::read_dir(dir)
        .map(|d| {
            d.flatten()
                .map(|e| e.file_name().to_string_lossy().into_owned())
                .collect()
        })
        .unwrap_or_default();
    names.sort();
    names
}

/// Mount points of the filesystems on device `number` (`MAJ:MIN`): by the
/// mount's device number, or by its source's (btrfs shows an anonymous
/// number; the source path names the device).
fn mounted(mountinfo: &str, number: &str) -> Vec<String> {
    parse_mountinfo(mountinfo)
        .into_iter()
        .filter(|m| {
            m.device_number == number || device_number_of(&m.source).as_deref() == Some(number)
        })
        .map(|m| m.mount_point)
        .collect()
}

/// `MAJ:MIN` of the block device at `path`, if it is one.
fn device_number_of(path: &str) -> Option<String> {
    if !path.starts_with('/') {
        return None;
    }
    let meta = std::fs::metadata(path).ok()?;
    meta.file_type()
        .is_block_device()
        .then(|| format!("{}:{}", libc::major(meta.rdev()), libc::minor(meta.rdev())))
}

/// Whether /proc/swaps lists device `number` (by the device node's number).
fn is_swap(swaps: &str, number: &str) -> bool {
    swaps
        .lines()
        .skip(1)
        .filter_map(|l| l.split_whitespace().next())
        .any(|p| device_number_of(p).as_deref() == Some(number))
}

/// Whether an exclusive open of the device fails with EBUSY. `/dev/NAME`
/// for partitions; the path the user gave for the device itself (a system
/// whose /dev names differ from the kernel's).
fn exclusive_open_busy(node: &Path, is_given: bool, given: &Path) -> bool {
    let path = if is_given { given } else { node };
    let Ok(c) = CString::new(path.as_os_str().as_bytes()) else {
        return false;
    };
    // SAFETY: a NUL-terminated path. O_RDONLY | O_EXCL on a block device
    // claims it exclusively and reads nothing; O_NONBLOCK keeps a removable
    // drive from waiting for a medium. The descriptor is closed at once.
    let fd = unsafe {
        libc::open(
            c.as_ptr(),
            libc::O_RDONLY | libc::O_EXCL | libc::O_NONBLOCK | libc::O_CLOEXEC,
        )
    };
    if fd < 0 {
        return std::io::Error::last_os_error().raw_os_error() == Some(libc::EBUSY);
    }
    // SAFETY: a descriptor this function opened.
    unsafe { libc::close(fd) };
    false
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_regular_file_is_not_a_device() {
        let dir = tempfile::tempdir().unwrap();
        let f = dir.path().join("f");
        std::fs::write(&f, b"x").unwrap();
        let e = inspect(&f).unwrap_err();
        assert!(e.0.contains("a regular file, not a block device"), "{e}");
        assert!(inspect(&dir.path().join("absent")).is_err());
        let e = inspect(Path::new("/dev/null")).unwrap_err();
        assert!(e.0.contains("a character device"), "{e}");
    }

    const MOUNTINFO: &str = "\
27 1 254:0 / / rw,relatime - ext4 /dev/vda rw
40 27 0:52 / /mnt/b rw - btrfs /dev/null rw
41 27 7:1 / /mnt/p rw - ext4 /dev/loop0p1 rw
";

    #[test]
    fn mounts_are_matched_by_number() {
        assert_eq!(mounted(MOUNTINFO, "254:0"), ["/"]);
        assert_eq!(mounted(MOUNTINFO, "7:1"), ["/mnt/p"]);
        assert!(mounted(MOUNTINFO, "7:2").is_empty());
    }

    /// A disk with two partitions, the second holding an md device that is
    /// mounted, and swap on the first (a sysfs tree written here: this
    /// project's kernel has no partition-table support to plant them).
    #[test]
    fn partitions_and_what_is_stacked_on_them_are_users() {
        let sys = tempfile::tempdir().unwrap();
        let block = sys.path().join("class/block");
        let node = |name: &str, dev: &str| {
            let d = block.join(name);
            std::fs::create_dir_all(d.join("holders")).unwrap();
            std::fs::write(d.join("dev"), format!("{dev}\n")).unwrap();
            d
        };
        let disk = node("sdb", "8:16");
        for (p, dev) in [("sdb1", "8:17"), ("sdb2", "8:18")] {
            let d = disk.join(p);
            std::fs::create_dir_all(d.join("holders")).unwrap();
            std::fs::write(d.join("partition"), "1\n").unwrap();
            std::fs::write(d.join("dev"), format!("{dev}\n")).unwrap();
            node(p, dev);
        }
        node("md0", "9:0");
        std::fs::create_dir_all(block.join("sdb2/holders/md0")).unwrap();
        let parts = partitions_of(&disk, "sdb");
        assert_eq!(parts, ["sdb1", "sdb2"]);
        let mounts = "50 27 9:0 / /srv rw - xfs /dev/md0 rw\n";
        let users = stacked_users(sys.path(), "sdb", &parts, mounts, "Filename\n");
        let words: Vec<&str> = users.iter().map(|u| u.0.as_str()).collect();
        assert!(
            words.contains(
                &"/dev/md0 is built on /dev/sdb2 (a holder: device-mapper, md or the like)"
            ),
            "{words:?}"
        );
        assert!(
            words.contains(&"/dev/md0 (on /dev/sdb2) is mounted on /srv"),
            "{words:?}"
        );
        // Nothing on sdb1: it is not named.
        assert!(!words.iter().any(|w| w.contains("sdb1")), "{words:?}");
    }
}
