//! The test directory's storage: filesystem (statfs magic and the mount it
//! lies on), mount options, the block device under it (scheduler, block
//! sizes, ROTA, model), free space, O_DIRECT alignment, and the NVMe
//! controllers visible to the kernel.
//!
//! The device is found from the directory's `st_dev` through
//! /sys/dev/block/MAJ:MIN; a partition's queue settings belong to its parent
//! disk. Filesystems without a block device number of their own (btrfs,
//! ZFS, overlay) fall back to the mount source when it is a /dev node.
//! Everything the device says about itself (model, ROTA) is a claim: inside
//! a VM it describes the virtual device, not the medium.

use super::read_trimmed;
use crate::result::StorageFacts;
use std::path::{Path, PathBuf};

/// Reads the storage facts of `dir` on Windows: its volume's (the Linux
/// sources, statfs, mountinfo and sysfs, do not exist there).
#[cfg(windows)]
pub fn collect(dir: &Path) -> StorageFacts {
    super::windows::volume::storage_facts(dir)
}

/// Reads the storage facts of `dir`. What cannot be read stays `None`.
#[cfg(unix)]
pub fn collect(dir: &Path) -> StorageFacts {
    let canonical = dir.canonicalize().unwrap_or_else(|_| dir.to_path_buf());
    let mut facts = StorageFacts {
        dir: canonical.display().to_string(),
        ..StorageFacts::default()
    };
    if let Ok(fs) = rustix::fs::statfs(&canonical) {
        let magic = fs.f_type as u64 & 0xffff_ffff;
        facts.fs_magic = Some(format!("{magic:#x}"));
        facts.fs_type = fs_name_from_magic(magic).map(String::from);
    }
    if let Ok(vfs) = rustix::fs::statvfs(&canonical) {
        facts.free_bytes = Some(vfs.f_bavail.saturating_mul(vfs.f_frsize));
        facts.total_bytes = Some(vfs.f_blocks.saturating_mul(vfs.f_frsize));
    }
    if let Ok(text) = std::fs::read_to_string("/proc/self/mountinfo") {
        if let Some(mount) = find_mount(&parse_mountinfo(&text), &canonical) {
            facts.fs_type = Some(mount.fs_type.clone());
            facts.mount_point = Some(mount.mount_point.clone());
            facts.mount_source = Some(mount.source.clone());
            facts.mount_options = Some(merge_options(&mount.options, &mount.super_options));
        }
    }
    dio_alignment(&canonical, &mut facts);
    facts.stack = super::blockstack::map(
        &super::blockstack::system(),
        &canonical,
        facts.mount_source.as_deref(),
    );

    let sys_dev = Path::new("/sys/dev/block");
    let mut device = rustix::fs::stat(&canonical).ok().and_then(|st| {
        let (major, minor) = (rustix::fs::major(st.st_dev), rustix::fs::minor(st.st_dev));
        facts.device_number = Some(format!("{major}:{minor}"));
        BlockDevice::from_sysfs(&sys_dev.join(format!("{major}:{minor}")))
    });
    if device.is_none() {
        // btrfs and friends report an anonymous st_dev (major 0).
        device = facts
            .mount_source
            .as_deref()
            .filter(|s| s.starts_with("/dev/"))
            .and_then(|s| Path::new(s).canonicalize().ok())
            .and_then(|p| p.file_name().map(|n| n.to_string_lossy().to_string()))
            .and_then(|name| BlockDevice::from_sysfs(&Path::new("/sys/class/block").join(name)));
    }
    if let Some(dev) = device {
        facts.device = Some(dev.name);
        facts.parent_device = dev.parent;
        facts.device_model = dev.model;
        facts.scheduler = dev.scheduler;
        facts.logical_block_size = dev.logical_block_size;
        facts.physical_block_size = dev.physical_block_size;
        facts.rotational = dev.rotational;
        facts.write_cache = dev.write_cache;
    }
    facts
}

/// The source of the mount `dir` lies on (`/dev/vda1`, `/dev/loop0`), from
/// /proc/self/mountinfo.
pub fn mount_source(dir: &Path) -> Option<String> {
    let canonical = dir.canonicalize().ok()?;
    let text = std::fs::read_to_string("/proc/self/mountinfo").ok()?;
    find_mount(&parse_mountinfo(&text), &canonical).map(|m| m.source.clone())
}

/// statx STATX_DIOALIGN (Linux 6.1+): the alignment O_DIRECT needs here.
#[cfg(unix)]
fn dio_alignment(dir: &Path, facts: &mut StorageFacts) {
    use rustix::fs::{statx, AtFlags, StatxFlags, CWD};
    if let Ok(st) = statx(CWD, dir, AtFlags::empty(), StatxFlags::DIOALIGN) {
        if StatxFlags::from_bits_retain(st.stx_mask).contains(StatxFlags::DIOALIGN)
            && st.stx_dio_mem_align > 0
        {
            facts.dio_mem_align = Some(u64::from(st.stx_dio_mem_align));
            facts.dio_offset_align = Some(u64::from(st.stx_dio_offset_align));
        }
    }
}

/// A block device as sysfs describes it.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct BlockDevice {
    /// Kernel name (`vda`, `sda2`, `nvme0n1p1`, `dm-0`).
    pub name: String,
    /// The whole disk when `name` is a partition.
    pub parent: Option<String>,
    pub model: Option<String>,
    /// The active I/O scheduler (the bracketed one).
    pub scheduler: Option<String>,
    pub logical_block_size: Option<u64>,
    pub physical_block_size: Option<u64>,
    pub rotational: Option<bool>,
    /// `queue/write_cache`: `write back` when the device reports a volatile
    /// write cache (it acknowledges writes before they are durable and needs
    /// flushes), `write through` otherwise.
    pub write_cache: Option<String>,
}

impl BlockDevice {
    /// Reads the device at a sysfs path (`/sys/dev/block/8:2`, a symlink
    /// into /sys/devices/...). A partition's queue lives in its parent.
    pub fn from_sysfs(path: &Path) -> Option<BlockDevice> {
        let real = path.canonicalize().ok()?;
        let name = real.file_name()?.to_string_lossy().to_string();
        let (disk_dir, parent): (PathBuf, Option<String>) = if real.join("partition").exists() {
            let parent_dir = real.parent()?.to_path_buf();
            let parent_name = parent_dir.file_name()?.to_string_lossy().to_string();
            (parent_dir, Some(parent_name))
        } else {
            (real.clone(), None)
        };
        let queue = disk_dir.join("queue");
        let number =
            |file: &str| read_trimmed(&queue.join(file)).and_then(|t| t.parse::<u64>().ok());
        let model = read_trimmed(&disk_dir.join("device/model"))
            .or_else(|| {
                read_trimmed(&disk_dir.join("dm/name")).map(|n| format!("device-mapper {n}"))
            })
            .or_else(|| virtio_model(&disk_dir));
        Some(BlockDevice {
            name,
            parent,
            model,
            scheduler: read_trimmed(&queue.join("scheduler")).map(|s| active_scheduler(&s)),
            logical_block_size: number("logical_block_size"),
            physical_block_size: number("physical_block_size"),
            rotational: number("rotational").map(|r| r != 0),
            write_cache: read_trimmed(&queue.join("write_cache")),
        })
    }
}

/// virtio disks have no model file; say what they are from their driver.
fn virtio_model(disk_dir: &Path) -> Option<String> {
    let driver = std::fs::read_link(disk_dir.join("device/driver")).ok()?;
    let driver = driver.file_name()?.to_string_lossy().to_string();
    (driver == "virtio_blk").then(|| "virtio block device (virtio_blk)".to_string())
}

/// `none [mq-deadline] kyber` -> `mq-deadline`; a single name stays as it is.
pub fn active_scheduler(text: &str) -> String {
    text.split_whitespace()
        .find_map(|w| w.strip_prefix('[').and_then(|w| w.strip_suffix(']')))
        .unwrap_or(text.trim())
        .to_string()
}

/// One line of /proc/self/mountinfo.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Mount {
    pub device_number: String,
    pub mount_point: String,
    pub options: String,
    pub fs_type: String,
    pub source: String,
    pub super_options: String,
}

/// Parses /proc/self/mountinfo (proc(5): `id parent MAJ:MIN root mountpoint
/// options [optional fields...] - fstype source superoptions`).
pub fn parse_mountinfo(text: &str) -> Vec<Mount> {
    text.lines()
        .filter_map(|line| {
            let (left, right) = line.split_once(" - ")?;
            let l: Vec<&str> = left.split(' ').collect();
            let r: Vec<&str> = right.split(' ').collect();
            if l.len() < 6 || r.len() < 2 {
                return None;
            }
            Some(Mount {
                device_number: l[2].to_string(),
                mount_point: unescape_octal(l[4]),
                options: l[5].to_string(),
                fs_type: r[0].to_string(),
                source: unescape_octal(r[1]),
                super_options: r.get(2).map(|s| s.to_string()).unwrap_or_default(),
            })
        })
        .collect()
}

/// The mount that holds `path`: the longest mount point that is a whole-
/// component prefix of it (the last such line wins: later mounts cover
/// earlier ones at the same point).
pub fn find_mount<'a>(mounts: &'a [Mount], path: &Path) -> Option<&'a Mount> {
    let mut best: Option<&Mount> = None;
    for m in mounts {
        if path.starts_with(Path::new(&m.mount_point))
            && best.is_none_or(|b| m.mount_point.len() >= b.mount_point.len())
        {
            best = Some(m);
        }
    }
    best
}

/// The per-mount options followed by the superblock options not already
/// named (`rw,relatime` + `rw,discard` -> `rw,relatime,discard`).
pub fn merge_options(mount: &str, superblock: &str) -> String {
    let mut all: Vec<&str> = mount.split(',').filter(|o| !o.is_empty()).collect();
    for o in superblock.split(',').filter(|o| !o.is_empty()) {
        if !all.contains(&o) {
            all.push(o);
        }
    }
    all.join(",")
}

/// mountinfo escapes space, tab, newline and backslash as `\ooo`.
fn unescape_octal(text: &str) -> String {
    let bytes = text.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        if bytes[i] == b'\\' && i + 4 <= bytes.len() {
            let d = &bytes[i + 1..i + 4];
            if d.iter().all(|b| (b'0'..=b'7').contains(b)) {
                let value = d.iter().fold(0u32, |acc, b| acc * 8 + u32::from(b - b'0'));
                if let Ok(byte) = u8::try_from(value) {
                    out.push(byte);
                    i += 4;
                    continue;
                }
            }
        }
        out.push(bytes[i]);
        i += 1;
    }
    String::from_utf8_lossy(&out).to_string()
}

/// The filesystem named by a statfs magic number (linux/magic.h).
pub fn fs_name_from_magic(magic: u64) -> Option<&'static str> {
    Some(match magic {
        0xef53 => "ext4",
        0x5846_5342 => "xfs",
        0x9123_683e => "btrfs",
        0x2fc1_2fc1 => "zfs",
        0xf2f5_2010 => "f2fs",
        0xca45_1a4e => "bcachefs",
        0x0102_1994 => "tmpfs",
        0x8584_58f6 => "ramfs",
        0x794c_7630 => "overlay",
        0x6573_5546 => "fuse",
        0x6969 => "nfs",
        0xff53_4d42 => "cifs",
        0xfe53_4d42 => "smb2",
        0x00c3_6400 => "ceph",
        0x0102_1997 => "9p",
        0x5346_544e => "ntfs",
        0x4d44 => "vfat",
        0x2011_bab0 => "exfat",
        0x3153_464a => "jfs",
        0x5265_4973 => "reiserfs",
        0x7371_7368 => "squashfs",
        0xf15f => "ecryptfs",
        0x0000_9fa0 => "proc",
        0x6265_6572 => "sysfs",
        _ => return None,
    })
}

/// NVMe controllers in /sys/class/nvme, as `nvme0 (model)`. Inside most VMs
/// there are none, even when the provider sells "NVMe" storage.
pub fn nvme_devices(class_dir: &Path) -> Vec<String> {
    let Ok(entries) = std::fs::read_dir(class_dir) else {
        return Vec::new();
    };
    let mut names: Vec<String> = entries
        .filter_map(|e| e.ok())
        .map(|e| {
            let name = e.file_name().to_string_lossy().to_string();
            match read_trimmed(&e.path().join("model")) {
                Some(model) => format!("{name} ({model})"),
                None => name,
            }
        })
        .collect();
    names.sort();
    names
}

#[cfg(test)]
mod tests {
    use super::*;

    const MOUNTINFO: &str = "\
22 27 0:21 / /proc rw,relatime - proc proc rw
27 1 254:0 / / rw,relatime - ext4 /dev/vda rw,discard,resv_strict
40 27 8:2 / /var rw,noatime shared:5 - xfs /dev/sda2 rw,attr2,inode64
41 40 0:40 / /var/tmp rw,nosuid,nodev - tmpfs tmpfs rw,size=1048576k
42 27 8:3 / /srv/my\\040data rw - ext4 /dev/sda3 rw
43 27 8:4 / /vartmp rw - ext4 /dev/sda4 rw
";

    #[test]
    fn mountinfo_longest_match() {
        let mounts = parse_mountinfo(MOUNTINFO);
        assert_eq!(mounts.len(), 6);
        let m = find_mount(&mounts, Path::new("/var/tmp/x")).unwrap();
        assert_eq!(m.fs_type, "tmpfs");
        let m = find_mount(&mounts, Path::new("/var/lib")).unwrap();
        assert_eq!(
            (m.fs_type.as_str(), m.source.as_str()),
            ("xfs", "/dev/sda2")
        );
        assert_eq!(m.options, "rw,noatime");
        assert_eq!(m.super_options, "rw,attr2,inode64");
        // A prefix that is not a whole component does not match.
        let m = find_mount(&mounts, Path::new("/vartmpx")).unwrap();
        assert_eq!(m.mount_point, "/");
        let m = find_mount(&mounts, Path::new("/srv/my data/t")).unwrap();
        assert_eq!(m.source, "/dev/sda3");
        assert_eq!(find_mount(&[], Path::new("/")), None);
    }

    #[test]
    fn options_and_scheduler() {
        assert_eq!(
            merge_options("rw,relatime", "rw,discard,resv_strict"),
            "rw,relatime,discard,resv_strict"
        );
        assert_eq!(
            active_scheduler("none [mq-deadline] kyber bfq"),
            "mq-deadline"
        );
        assert_eq!(active_scheduler("none"), "none");
        assert_eq!(active_scheduler("[none] mq-deadline"), "none");
    }

    #[test]
    fn magic_names() {
        assert_eq!(fs_name_from_magic(0xef53), Some("ext4"));
        assert_eq!(fs_name_from_magic(0x01021994), Some("tmpfs"));
        assert_eq!(fs_name_from_magic(0x12345), None);
    }

    /// A fake sysfs: a partition sda2 under disk sda (its links are Unix
    /// symlinks, as sysfs's).
    #[cfg(unix)]
    #[test]
    fn partition_reads_parent_queue() {
        let root = tempfile::tempdir().unwrap();
        let sda = root.path().join("devices/sda");
        let part = sda.join("sda2");
        std::fs::create_dir_all(sda.join("queue")).unwrap();
        std::fs::create_dir_all(sda.join("device")).unwrap();
        std::fs::create_dir_all(&part).unwrap();
        std::fs::write(part.join("partition"), "2\n").unwrap();
        std::fs::write(sda.join("queue/scheduler"), "[none] mq-deadline\n").unwrap();
        std::fs::write(sda.join("queue/logical_block_size"), "512\n").unwrap();
        std::fs::write(sda.join("queue/physical_block_size"), "4096\n").unwrap();
        std::fs::write(sda.join("queue/rotational"), "1\n").unwrap();
        std::fs::write(sda.join("queue/write_cache"), "write back\n").unwrap();
        std::fs::write(sda.join("device/model"), "ST4000NM0035    \n").unwrap();
        let link = root.path().join("8:2");
        std::os::unix::fs::symlink(&part, &link).unwrap();
        let dev = BlockDevice::from_sysfs(&link).unwrap();
        assert_eq!(
            dev,
            BlockDevice {
                name: "sda2".into(),
                parent: Some("sda".into()),
                model: Some("ST4000NM0035".into()),
                scheduler: Some("none".into()),
                logical_block_size: Some(512),
                physical_block_size: Some(4096),
                rotational: Some(true),
                write_cache: Some("write back".into()),
            }
        );
        assert_eq!(BlockDevice::from_sysfs(&root.path().join("9:9")), None);
    }

    #[test]
    fn nvme_listing() {
        let root = tempfile::tempdir().unwrap();
        assert!(nvme_devices(&root.path().join("none")).is_empty());
        std::fs::create_dir_all(root.path().join("nvme1")).unwrap();
        std::fs::create_dir_all(root.path().join("nvme0")).unwrap();
        std::fs::write(
            root.path().join("nvme0/model"),
            "Samsung SSD 980 PRO 1TB  \n",
        )
        .unwrap();
        assert_eq!(
            nvme_devices(root.path()),
            vec![
                "nvme0 (Samsung SSD 980 PRO 1TB)".to_string(),
                "nvme1".to_string()
            ]
        );
    }

    #[test]
    fn collect_on_this_machine() {
        let dir = std::env::temp_dir();
        let f = collect(&dir);
        assert!(f.free_bytes.unwrap() <= f.total_bytes.unwrap());
        assert!(f.mount_point.is_some());
        assert!(f.device_number.is_some());
    }
}
