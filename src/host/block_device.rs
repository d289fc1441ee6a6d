//! A block device that a job names as its target (`filename=/dev/sdb`): what
//! it is, how large, and everything that uses it, read before anything opens
//! it for writing. The decision (refuse, allow reads, allow writes) is the
//! plan's; this module only gathers the facts and never opens the device
//! for writing.
//!
//! "In use" covers the device itself, each of its partitions, the whole disk
//! of a partition (what uses the disk uses every partition's bytes), and
//! everything stacked on any of them, recursively: their sysfs `holders/`
//! (dm, md, bcache, LVM) and loop devices backed by them or by a file on
//! them. A loop device claims nothing (its backing device shows no holder and
//! opens exclusively as if unused), so loops are found by asking each one
//! what backs it. Whatever is found stacked is followed up in turn:
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
    inspect_at(path, Path::new("/sys"), Path::new("/proc"), Claim::NotHeld)
}

/// As [`inspect`], for a device the caller already holds with `O_EXCL`:
/// the kernel's exclusive-open answer for the device itself is then the
/// caller's own claim and is not asked; everything else is.
pub fn inspect_claimed(path: &Path) -> Result<BlockDeviceFacts, NotADevice> {
    inspect_at(
        path,
        Path::new("/sys"),
        Path::new("/proc"),
        Claim::HeldByCaller,
    )
}

/// Whether the caller holds the device with an exclusive open.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Claim {
    NotHeld,
    HeldByCaller,
}

fn inspect_at(
    path: &Path,
    sys: &Path,
    proc: &Path,
    claim: Claim,
) -> Result<BlockDeviceFacts, NotADevice> {
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
    let loops = loop_backings(sys, &mounts);
    let disk = whole_disk_of(&class, &name);
    let mut users = stacked_users(
        sys,
        &name,
        &partitions,
        disk.as_deref(),
        &Stacking {
            mounts: &mounts,
            swaps: &swaps,
            loops: &loops,
        },
    );
    // The kernel's own answer, for the device and each partition; for the
    // device itself not when the caller holds it (the answer would be ours).
    for n in std::iter::once(&name).chain(partitions.iter()) {
        if users.iter().any(|u| u.0.starts_with(&format!("/dev/{n} "))) {
            continue;
        }
        if n == &name && claim == Claim::HeldByCaller {
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

/// The system tables a device's users are read from.
struct Stacking<'a> {
    /// `/proc/self/mountinfo`.
    mounts: &'a str,
    /// `/proc/swaps`.
    swaps: &'a str,
    /// Every loop device and what backs it.
    loops: &'a [LoopBacking],
}

/// What uses the device `name` or what writing it would also write:
/// its `partitions`, its whole `disk` (when `name` is a partition), every
/// device below it (a loop's backing device, a dm or md device's slaves,
/// recursively, with their partitions and whole disks), and anything
/// stacked on any of these (`holders/` and loop devices, recursively):
/// mounts, swap, holders and loops. What lies on the path between `name`
/// and a device below it is the device itself, not a user.
fn stacked_users(
    sys: &Path,
    name: &str,
    partitions: &[String],
    disk: Option<&str>,
    tables: &Stacking,
) -> Vec<DeviceUse> {
    let class = |n: &str| sys.join("class/block").join(n);
    let below = devices_below(sys, name, tables.loops);
    // (device, how it relates to `name`, in words after its path).
    let mut queue: Vec<(String, String)> = Vec::new();
    for p in partitions {
        queue.push((p.clone(), String::new()));
    }
    queue.push((name.to_string(), String::new()));
    if let Some(d) = disk {
        queue.push((d.to_string(), format!(" (the whole disk of /dev/{name})")));
    }
    for b in &below {
        let under = format!(" (under /dev/{name}: writing /dev/{name} writes it)");
        for p in partitions_of(&class(b), b) {
            queue.push((p, under.clone()));
        }
        if let Some(d) = whole_disk_of(&class(b), b) {
            queue.push((
                d,
                format!(" (the whole disk of /dev/{b}, under /dev/{name})"),
            ));
        }
        queue.push((b.clone(), under));
    }
    let path_itself: Vec<&str> = std::iter::once(name)
        .chain(below.iter().map(|b| b.as_str()))
        .collect();
    let mut users = Vec::new();
    let mut seen: Vec<String> = Vec::new();
    while let Some((what, relation)) = queue.pop() {
        // A loop in sysfs cannot happen; the bound keeps a bad tree finite.
        if seen.contains(&what) || seen.len() > 4096 {
            continue;
        }
        seen.push(what.clone());
        let node = class(&what);
        let Some(number) = std::fs::read_to_string(node.join("dev"))
            .ok()
            .map(|t| t.trim().to_string())
        else {
            continue;
        };
        let label = format!("/dev/{what}{relation}");
        for m in mounted(tables.mounts, &number) {
            users.push(DeviceUse(format!("{label} is mounted on {m}")));
        }
        if is_swap(tables.swaps, &number) {
            users.push(DeviceUse(format!("{label} is in use as swap")));
        }
        let mut above: Vec<String> = Vec::new();
        for holder in list_dir(&node.join("holders")) {
            if path_itself.contains(&holder.as_str()) {
                continue;
            }
            users.push(DeviceUse(format!(
                "/dev/{holder} is built on {label} (a holder: device-mapper, md or the like)"
            )));
            above.push(holder);
        }
        for l in tables
            .loops
            .iter()
            .filter(|l| !path_itself.contains(&l.name.as_str()))
        {
            let how = if l.device.as_deref() == Some(number.as_str()) {
                "backed by"
            } else if l.file_on.iter().any(|d| d == &number) {
                "backed by a file on"
            } else {
                continue;
            };
            users.push(DeviceUse(format!(
                "/dev/{} is a loop device {how} {label} ({})",
                l.name, l.file
            )));
            above.push(l.name.clone());
        }
        // What is stacked above is named by the device it stands on.
        let on = format!(" (on /dev/{what})");
        for a in above {
            for p in partitions_of(&class(&a), &a) {
                queue.push((p, on.clone()));
            }
            queue.push((a, on.clone()));
        }
    }
    users
}

/// The devices whose bytes writing `name` writes: a loop device's backing
/// device, a dm or md device's `slaves/`, recursively (kernel names).
fn devices_below(sys: &Path, name: &str, loops: &[LoopBacking]) -> Vec<String> {
    let mut below: Vec<String> = Vec::new();
    let mut queue = vec![name.to_string()];
    while let Some(n) = queue.pop() {
        if below.len() > 4096 {
            break;
        }
        let mut next = list_dir(&sys.join("class/block").join(&n).join("slaves"));
        if let Some(dev) = loops
            .iter()
            .find(|l| l.name == n)
            .and_then(|l| l.device.as_ref())
        {
            let by_number = sys.join("dev/block").join(dev);
            if let Some(b) = std::fs::canonicalize(by_number)
                .ok()
                .and_then(|p| p.file_name().map(|f| f.to_string_lossy().into_owned()))
            {
                next.push(b);
            }
        }
        for b in next {
            if b != name && !below.contains(&b) {
                below.push(b.clone());
                queue.push(b);
            }
        }
    }
    below
}

/// A loop device and what backs it, as device numbers (`MAJ:MIN`).
#[derive(Debug, Clone, PartialEq, Eq)]
struct LoopBacking {
    /// Kernel name (`loop4`).
    name: String,
    /// The backing file as the kernel names it.
    file: String,
    /// The backing file is this block device.
    device: Option<String>,
    /// The backing file is a regular file on a filesystem on these devices
    /// (its `st_dev`, and a mount's source when the filesystem shows an
    /// anonymous number, as btrfs does).
    file_on: Vec<String>,
}

/// Every configured loop device and what backs it. The kernel is asked
/// (`LOOP_GET_STATUS64`: the backing inode's device and `rdev`, right even
/// when the path was deleted or lives in another mount namespace); where
/// it cannot be asked, the backing path is looked up.
fn loop_backings(sys: &Path, mountinfo: &str) -> Vec<LoopBacking> {
    let mut found = Vec::new();
    for name in list_dir(&sys.join("class/block")) {
        let Ok(file) = std::fs::read_to_string(
            sys.join("class/block")
                .join(&name)
                .join("loop/backing_file"),
        ) else {
            continue;
        };
        let file = file.trim_end_matches('\n').to_string();
        let (dev, rdev) = loop_status(&Path::new("/dev").join(&name))
            .or_else(|| {
                let meta = std::fs::metadata(file.trim_end_matches(" (deleted)")).ok()?;
                let rdev = if meta.file_type().is_block_device() {
                    meta.rdev()
                } else {
                    0
                };
                Some((meta.dev(), rdev))
            })
            .unwrap_or((0, 0));
        let number = |d: u64| format!("{}:{}", libc::major(d), libc::minor(d));
        let device = (rdev != 0).then(|| number(rdev));
        let mut file_on = Vec::new();
        if rdev == 0 && dev != 0 {
            let on = number(dev);
            for m in parse_mountinfo(mountinfo) {
                if m.device_number == on {
                    if let Some(src) = device_number_of(&m.source) {
                        file_on.push(src);
                    }
                }
            }
            file_on.push(on);
        }
        found.push(LoopBacking {
            name,
            file,
            device,
            file_on,
        });
    }
    found
}

/// `struct loop_info64` of <linux/loop.h>: only the first three fields
/// are read; the rest gives the kernel the size it copies into.
#[repr(C)]
struct LoopInfo64 {
    lo_device: u64,
    lo_inode: u64,
    lo_rdevice: u64,
    lo_offset: u64,
    lo_sizelimit: u64,
    lo_number: u32,
    lo_encrypt_type: u32,
    lo_encrypt_key_size: u32,
    lo_flags: u32,
    lo_file_name: [u8; 64],
    lo_crypt_name: [u8; 64],
    lo_encrypt_key: [u8; 32],
    lo_init: [u64; 2],
}

const LOOP_GET_STATUS64: libc::c_ulong = 0x4C05;

/// The backing inode's `st_dev` and `st_rdev` of the loop device `node`,
/// from the kernel; `None` when it cannot be opened or asked.
fn loop_status(node: &Path) -> Option<(u64, u64)> {
    let c = CString::new(node.as_os_str().as_bytes()).ok()?;
    // SAFETY: a NUL-terminated path; opened read-only, closed below.
    let fd = unsafe {
        libc::open(
            c.as_ptr(),
            libc::O_RDONLY | libc::O_NONBLOCK | libc::O_CLOEXEC,
        )
    };
    if fd < 0 {
        return None;
    }
    // SAFETY: plain data; the kernel fills it (all-zero is a valid value).
    let mut info: LoopInfo64 = unsafe { std::mem::zeroed() };
    // SAFETY: LOOP_GET_STATUS64 writes one `struct loop_info64` to the
    // pointer; the struct above has its layout. A descriptor that is not a
    // loop device answers ENOTTY and writes nothing.
    let rc = unsafe { libc::ioctl(fd, LOOP_GET_STATUS64 as _, &mut info as *mut LoopInfo64) };
    // SAFETY: the descriptor opened above.
    unsafe { libc::close(fd) };
    (rc == 0).then_some((info.lo_device, info.lo_rdevice))
}

/// The whole disk of a partition (its sysfs node's parent), or `None`
/// when `name` is not a partition.
fn whole_disk_of(class: &Path, name: &str) -> Option<String> {
    if !class.join("partition").exists() {
        return None;
    }
    let real = std::fs::canonicalize(class).ok()?;
    let parent = real.parent()?.file_name()?.to_string_lossy().into_owned();
    (parent != name).then_some(parent)
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
        let tables = Stacking {
            mounts,
            swaps: "Filename\n",
            loops: &[],
        };
        let users = stacked_users(sys.path(), "sdb", &parts, None, &tables);
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

    /// A sysfs node `name` with device number `dev` (and the
    /// `dev/block/MAJ:MIN` link the kernel makes).
    fn fake_node(sys: &Path, name: &str, dev: &str) {
        let d = sys.join("class/block").join(name);
        std::fs::create_dir_all(d.join("holders")).unwrap();
        std::fs::create_dir_all(d.join("slaves")).unwrap();
        std::fs::write(d.join("dev"), format!("{dev}\n")).unwrap();
        std::fs::create_dir_all(sys.join("dev/block")).unwrap();
        std::os::unix::fs::symlink(&d, sys.join("dev/block").join(dev)).unwrap();
    }

    fn backing(name: &str, file: &str, device: Option<&str>, file_on: &[&str]) -> LoopBacking {
        LoopBacking {
            name: name.into(),
            file: file.into(),
            device: device.map(Into::into),
            file_on: file_on.iter().map(|d| d.to_string()).collect(),
        }
    }

    /// loop4 backed by loop1 and mounted, loop5 backed by a file on loop2's
    /// filesystem: writing loop1 (or loop2) would write under a mounted
    /// filesystem (issue 36). A loop claims nothing: neither shows a holder.
    #[test]
    fn loops_backed_by_the_device_or_a_file_on_it_are_users_and_followed_up() {
        let sys = tempfile::tempdir().unwrap();
        for (n, d) in [
            ("loop1", "7:1"),
            ("loop2", "7:2"),
            ("loop4", "7:4"),
            ("loop5", "7:5"),
        ] {
            fake_node(sys.path(), n, d);
        }
        let loops = [
            backing("loop4", "/dev/loop1", Some("7:1"), &[]),
            backing("loop5", "/srv/img (deleted)", None, &["7:2"]),
        ];
        let tables = Stacking {
            mounts: "60 27 7:4 / /mnt/inner rw - ext4 /dev/loop4 rw\n",
            swaps: "Filename\n",
            loops: &loops,
        };
        let words = |name: &str| -> Vec<String> {
            stacked_users(sys.path(), name, &[], None, &tables)
                .into_iter()
                .map(|u| u.0)
                .collect()
        };
        let on1 = words("loop1");
        assert!(
            on1.contains(
                &"/dev/loop4 is a loop device backed by /dev/loop1 (/dev/loop1)".to_string()
            ),
            "{on1:?}"
        );
        assert!(
            on1.contains(&"/dev/loop4 (on /dev/loop1) is mounted on /mnt/inner".to_string()),
            "{on1:?}"
        );
        let on2 = words("loop2");
        assert!(
            on2.contains(
                &"/dev/loop5 is a loop device backed by a file on /dev/loop2 (/srv/img (deleted))"
                    .to_string()
            ),
            "{on2:?}"
        );
        // Downwards: writing loop4 writes loop1; loop1 is not in use by
        // anything but loop4, and loop4 is mounted itself.
        let on4 = words("loop4");
        assert_eq!(on4, ["/dev/loop4 is mounted on /mnt/inner"], "{on4:?}");
    }

    /// Writing a device writes the devices below it: a loop over a mounted
    /// device, a dm device over a partition whose disk has another holder.
    #[test]
    fn what_uses_a_device_below_the_one_written_is_a_user() {
        let sys = tempfile::tempdir().unwrap();
        for (n, d) in [
            ("loop1", "7:1"),
            ("loop4", "7:4"),
            ("dm-0", "253:0"),
            ("dm-1", "253:1"),
        ] {
            fake_node(sys.path(), n, d);
        }
        // dm-0 is built on loop1 as well (a second holder of the device below).
        let block = sys.path().join("class/block");
        std::fs::create_dir_all(block.join("loop1/holders/dm-0")).unwrap();
        std::fs::create_dir_all(block.join("dm-0/slaves/loop1")).unwrap();
        std::fs::create_dir_all(block.join("loop1/holders/dm-1")).unwrap();
        std::fs::create_dir_all(block.join("dm-1/slaves/loop1")).unwrap();
        let loops = [backing("loop4", "/dev/loop1", Some("7:1"), &[])];
        let tables = Stacking {
            mounts: "61 27 7:1 / /mnt/outer rw - ext4 /dev/loop1 rw\n",
            swaps: "Filename\n",
            loops: &loops,
        };
        let words: Vec<String> = stacked_users(sys.path(), "loop4", &[], None, &tables)
            .into_iter()
            .map(|u| u.0)
            .collect();
        assert!(
            words.contains(&"/dev/loop1 (under /dev/loop4: writing /dev/loop4 writes it) is mounted on /mnt/outer".to_string()),
            "{words:?}"
        );
        assert!(
            words
                .iter()
                .any(|w| w.starts_with("/dev/dm-0 is built on /dev/loop1")),
            "{words:?}"
        );
        // dm-1 writes loop1 too, but nothing uses dm-1 from above: it is
        // still a user of what writing dm-1's sibling writes.
        let dm: Vec<String> = stacked_users(sys.path(), "dm-1", &[], None, &tables)
            .into_iter()
            .map(|u| u.0)
            .collect();
        assert!(
            dm.iter().any(|w| w.contains("/dev/loop1 (under /dev/dm-1")
                && w.contains("mounted on /mnt/outer")),
            "{dm:?}"
        );
        assert!(
            dm.iter()
                .any(|w| w.starts_with("/dev/dm-0 is built on /dev/loop1")),
            "{dm:?}"
        );
        assert!(!dm.iter().any(|w| w.starts_with("/dev/dm-1 ")), "{dm:?}");
    }
}
