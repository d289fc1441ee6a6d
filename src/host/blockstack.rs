//! The block stack under a test directory: the device its filesystem lies
//! on and everything below it, as the guest's sysfs shows it, and each
//! layer's I/O counters (the kernel's `stat` file) so that a measurement can
//! say what every layer did while candor measured.
//!
//! The walk, from the top: the filesystem's device (`st_dev` through
//! /sys/dev/block; for btrfs, whose `st_dev` is anonymous, every member
//! listed in /sys/fs/btrfs/FSID/devices); a partition's whole disk (its
//! counters include the partition's and its siblings'); a loop device's
//! backing file and the device *that* file lies on; the slaves of dm and md
//! devices. Only loop devices and btrfs members can be planted on this
//! project's test VM (no device-mapper, no md): dm/md are tested on sysfs
//! trees written by the unit tests.

use crate::result::{LayerCounters, StackLayer, StackRelation};
use std::path::{Path, PathBuf};

/// Layers below this depth are not followed (a loop over a file on a loop
/// over a file ... is legal; a cycle through sysfs links is not expected,
/// but the walk must end whatever sysfs says).
const MAX_DEPTH: u32 = 8;

/// At most this many layers are kept (a btrfs of many members over loop
/// devices stays readable; the counters are read twice per measurement).
const MAX_LAYERS: usize = 32;

/// Where sysfs is, and how a path's device number is found: both replaced
/// in the unit tests by a tree written in a temporary directory.
pub struct Sysfs<'a> {
    pub root: PathBuf,
    /// The device number (major, minor) of the filesystem a path lies on.
    pub dev_of: &'a dyn Fn(&Path) -> Option<(u32, u32)>,
}

/// The device number of the filesystem `p` lies on (`stat(2)`).
#[cfg(unix)]
fn dev_of(p: &Path) -> Option<(u32, u32)> {
    rustix::fs::stat(p)
        .ok()
        .map(|st| (rustix::fs::major(st.st_dev), rustix::fs::minor(st.st_dev)))
}

/// Windows has no sysfs and no device numbers: no stack is mapped there.
#[cfg(windows)]
fn dev_of(_p: &Path) -> Option<(u32, u32)> {
    None
}

/// The real sysfs and `stat(2)`.
pub fn system() -> Sysfs<'static> {
    Sysfs {
        root: PathBuf::from("/sys"),
        dev_of: &dev_of,
    }
}

/// The stack under `dir`; empty when nothing could be read (no /sys, a
/// filesystem without a block device such as tmpfs, NFS or FUSE).
/// `mount_source` (from mountinfo) finds btrfs's members.
pub fn map(sys: &Sysfs, dir: &Path, mount_source: Option<&str>) -> Vec<StackLayer> {
    let mut layers = Vec::new();
    let top = (sys.dev_of)(dir).and_then(|(ma, mi)| layer_at(sys, &format!("{ma}:{mi}")));
    match top {
        Some(l) => push(
            sys,
            &mut layers,
            l,
            StackRelation::Filesystem,
            None,
            String::new(),
            0,
        ),
        None => {
            // btrfs: an anonymous st_dev (major 0); its members are listed by fsid.
            let Some(source) = mount_source.and_then(|s| s.strip_prefix("/dev/")) else {
                return layers;
            };
            let source = Path::new(source)
                .file_name()
                .map(|n| n.to_string_lossy().to_string())
                .unwrap_or_default();
            for member in btrfs_members(sys, &source) {
                if let Some(l) = layer_by_name(sys, &member) {
                    push(
                        sys,
                        &mut layers,
                        l,
                        StackRelation::Member,
                        None,
                        String::new(),
                        0,
                    );
                }
            }
        }
    }
    layers
}

/// A layer found in sysfs, before its place in the stack is known.
struct FoundLayer {
    name: String,
    dev: String,
    /// The sysfs directory of the device (canonical).
    path: PathBuf,
}

fn push(
    sys: &Sysfs,
    layers: &mut Vec<StackLayer>,
    found: FoundLayer,
    relation: StackRelation,
    above: Option<usize>,
    via: String,
    depth: u32,
) {
    if let Some(at) = layers.iter().position(|l| l.dev == found.dev) {
        // A second way down to a layer already mapped: it carries both
        // (a layer below itself is a cycle in sysfs, not a second way).
        if let Some(a) = above.filter(|a| *a != at && !layers[at].above.contains(a)) {
            layers[at].above.push(a);
        }
        return;
    }
    if layers.len() >= MAX_LAYERS || depth > MAX_DEPTH {
        return;
    }
    let kind = kind_of(&found);
    let loop_dir = found.path.join("loop");
    let backing_file = read(&loop_dir.join("backing_file"));
    let direct_io = read(&loop_dir.join("dio")).map(|d| d == "1");
    let index = layers.len();
    layers.push(StackLayer {
        name: found.name.clone(),
        dev: found.dev.clone(),
        kind: kind.to_string(),
        relation,
        above: above.into_iter().collect(),
        via,
        backing_file: backing_file.clone(),
        loop_direct_io: if kind == "loop" { direct_io } else { None },
    });
    // A partition's whole disk carries the partition's I/O and its siblings'.
    if found.path.join("partition").exists() {
        if let Some(disk) = found.path.parent().and_then(found_at) {
            push(
                sys,
                layers,
                disk,
                StackRelation::WholeDisk,
                Some(index),
                format!("whole disk of {}", found.name),
                depth + 1,
            );
        }
    }
    // A loop device's bytes go to its backing file, on another device.
    if let Some(file) = backing_file {
        let file = file.trim_end_matches(" (deleted)");
        if let Some(l) =
            (sys.dev_of)(Path::new(file)).and_then(|(ma, mi)| layer_at(sys, &format!("{ma}:{mi}")))
        {
            push(
                sys,
                layers,
                l,
                StackRelation::Backing,
                Some(index),
                format!("holds {}'s backing file {file}", found.name),
                depth + 1,
            );
        }
    }
    // dm and md devices are made of their slaves.
    let mut slaves: Vec<String> = std::fs::read_dir(found.path.join("slaves"))
        .map(|d| {
            d.flatten()
                .map(|e| e.file_name().to_string_lossy().to_string())
                .collect()
        })
        .unwrap_or_default();
    slaves.sort();
    for slave in slaves {
        if let Some(l) = layer_by_name(sys, &slave) {
            push(
                sys,
                layers,
                l,
                StackRelation::Slave,
                Some(index),
                format!("below {}", found.name),
                depth + 1,
            );
        }
    }
}

/// `dm-0`, `md0`, `loop3`, `nvme0n1`, `vda`...: the kind of device, from its
/// name and sysfs (partition first: `vda1` is a partition of a virtio disk).
fn kind_of(found: &FoundLayer) -> &'static str {
    let name = found.name.as_str();
    if found.path.join("partition").exists() {
        "partition"
    } else if found.path.join("loop").exists() || name.starts_with("loop") {
        "loop"
    } else if found.path.join("dm").exists() || name.starts_with("dm-") {
        "dm"
    } else if found.path.join("md").exists() || name.starts_with("md") {
        "md"
    } else {
        "disk"
    }
}

fn layer_at(sys: &Sysfs, dev: &str) -> Option<FoundLayer> {
    found_at(&sys.root.join("dev/block").join(dev))
}

fn layer_by_name(sys: &Sysfs, name: &str) -> Option<FoundLayer> {
    found_at(&sys.root.join("class/block").join(name))
}

/// The device whose sysfs directory is `path` (a link into /sys/devices).
fn found_at(path: &Path) -> Option<FoundLayer> {
    let real = path.canonicalize().ok()?;
    let dev = read(&real.join("dev"))?;
    let name = real.file_name()?.to_string_lossy().to_string();
    Some(FoundLayer {
        name,
        dev,
        path: real,
    })
}

/// The members of the btrfs filesystem one of whose devices is `device`.
fn btrfs_members(sys: &Sysfs, device: &str) -> Vec<String> {
    let Ok(filesystems) = std::fs::read_dir(sys.root.join("fs/btrfs")) else {
        return Vec::new();
    };
    for fs in filesystems.flatten() {
        let Ok(devices) = std::fs::read_dir(fs.path().join("devices")) else {
            continue;
        };
        let mut names: Vec<String> = devices
            .flatten()
            .map(|e| e.file_name().to_string_lossy().to_string())
            .collect();
        if names.iter().any(|n| n == device) {
            names.sort();
            return names;
        }
    }
    Vec::new()
}

fn read(path: &Path) -> Option<String> {
    std::fs::read_to_string(path)
        .ok()
        .map(|s| s.trim().to_string())
        .filter(|s| !s.is_empty())
}

/// Each layer's counters now, in the order of `layers`; a layer whose stat
/// file cannot be read gives None (the measurement then says so).
pub fn snapshot(sys_root: &Path, layers: &[StackLayer]) -> Vec<Option<LayerCounters>> {
    layers
        .iter()
        .map(|l| {
            std::fs::read_to_string(sys_root.join("dev/block").join(&l.dev).join("stat"))
                .ok()
                .and_then(|t| parse_stat(&t))
        })
        .collect()
}

/// A block device's `stat` file (Documentation/block/stat.rst): 11 fields
/// before Linux 4.18, 15 with discards, 17 with flushes. Sectors are 512
/// bytes whatever the device's block size.
pub fn parse_stat(text: &str) -> Option<LayerCounters> {
    let f: Vec<u64> = text
        .split_whitespace()
        .map(|w| w.parse::<u64>())
        .collect::<Result<_, _>>()
        .ok()?;
    if f.len() < 11 {
        return None;
    }
    let at = |i: usize| f.get(i).copied().unwrap_or(0);
    Some(LayerCounters {
        read_ios: at(0),
        read_merges: at(1),
        read_bytes: at(2).saturating_mul(512),
        read_ms: at(3),
        write_ios: at(4),
        write_merges: at(5),
        write_bytes: at(6).saturating_mul(512),
        write_ms: at(7),
        in_flight: at(8),
        io_ticks_ms: at(9),
        queue_ms: at(10),
        discard_ios: at(11),
        discard_bytes: at(13).saturating_mul(512),
        flush_ios: at(15),
    })
}

/// Fake sysfs trees, whose links are Unix symlinks as sysfs's.
#[cfg(all(test, unix))]
mod tests {
    use super::*;
    use std::os::unix::fs::symlink;

    /// A sysfs tree: /sys/devices/virtual/block/NAME with `dev`, linked
    /// from dev/block/MAJ:MIN and class/block/NAME.
    struct SysfsTree {
        dir: tempfile::TempDir,
    }

    impl SysfsTree {
        fn new() -> SysfsTree {
            let dir = tempfile::tempdir().unwrap();
            for d in ["devices/virtual/block", "dev/block", "class/block"] {
                std::fs::create_dir_all(dir.path().join(d)).unwrap();
            }
            SysfsTree { dir }
        }
        fn root(&self) -> PathBuf {
            self.dir.path().to_path_buf()
        }
        /// A device at `rel` under devices/ (a partition is inside its disk's directory).
        fn device(&self, rel: &str, dev: &str) -> PathBuf {
            let path = self.root().join("devices").join(rel);
            std::fs::create_dir_all(&path).unwrap();
            std::fs::write(path.join("dev"), format!("{dev}\n")).unwrap();
            std::fs::write(
                path.join("stat"),
                "10 1 80 5 20 2 160 7 0 12 12 0 0 0 0 3 1\n",
            )
            .unwrap();
            let name = path.file_name().unwrap().to_owned();
            symlink(&path, self.root().join("dev/block").join(dev)).unwrap();
            symlink(&path, self.root().join("class/block").join(name)).unwrap();
            path
        }
    }

    fn names(layers: &[StackLayer]) -> Vec<String> {
        layers
            .iter()
            .map(|l| {
                format!(
                    "{} {} {:?} {:?}",
                    l.name,
                    l.kind,
                    l.relation,
                    l.above.first()
                )
            })
            .collect()
    }

    #[test]
    fn a_partition_leads_to_its_whole_disk() {
        let t = SysfsTree::new();
        t.device("virtual/block/vda", "254:0");
        let part = t.device("virtual/block/vda/vda1", "254:1");
        std::fs::write(part.join("partition"), "1\n").unwrap();
        let dev_of = |_: &Path| Some((254, 1));
        let sys = Sysfs {
            root: t.root(),
            dev_of: &dev_of,
        };
        let layers = map(&sys, Path::new("/x"), None);
        assert_eq!(
            names(&layers),
            [
                "vda1 partition Filesystem None",
                "vda disk WholeDisk Some(0)"
            ]
        );
        let counters = snapshot(&t.root(), &layers);
        assert_eq!(counters[0].as_ref().unwrap().read_bytes, 80 * 512);
        assert_eq!(counters[1].as_ref().unwrap().flush_ios, 3);
    }

    #[test]
    fn a_loop_device_leads_to_its_backing_files_device() {
        let t = SysfsTree::new();
        let lp = t.device("virtual/block/loop0", "7:0");
        std::fs::create_dir_all(lp.join("loop")).unwrap();
        std::fs::write(lp.join("loop/backing_file"), "/var/tmp/disk.img\n").unwrap();
        std::fs::write(lp.join("loop/dio"), "0\n").unwrap();
        t.device("virtual/block/vda", "254:0");
        let dev_of = |p: &Path| {
            if p == Path::new("/var/tmp/disk.img") {
                Some((254, 0))
            } else {
                Some((7, 0))
            }
        };
        let sys = Sysfs {
            root: t.root(),
            dev_of: &dev_of,
        };
        let layers = map(&sys, Path::new("/mnt"), None);
        assert_eq!(
            names(&layers),
            ["loop0 loop Filesystem None", "vda disk Backing Some(0)"]
        );
        assert_eq!(layers[0].loop_direct_io, Some(false));
        assert!(
            layers[1].via.contains("/var/tmp/disk.img"),
            "{:?}",
            layers[1]
        );
    }

    #[test]
    fn dm_and_md_devices_lead_to_their_slaves() {
        let t = SysfsTree::new();
        let dm = t.device("virtual/block/dm-0", "253:0");
        std::fs::create_dir_all(dm.join("dm")).unwrap();
        std::fs::create_dir_all(dm.join("slaves")).unwrap();
        let md = t.device("virtual/block/md0", "9:0");
        std::fs::create_dir_all(md.join("slaves")).unwrap();
        t.device("virtual/block/sda", "8:0");
        t.device("virtual/block/sdb", "8:16");
        symlink(md.clone(), dm.join("slaves/md0")).unwrap();
        symlink(t.root().join("class/block/sda"), md.join("slaves/sda")).unwrap();
        symlink(t.root().join("class/block/sdb"), md.join("slaves/sdb")).unwrap();
        let dev_of = |_: &Path| Some((253, 0));
        let sys = Sysfs {
            root: t.root(),
            dev_of: &dev_of,
        };
        let layers = map(&sys, Path::new("/srv"), None);
        assert_eq!(
            names(&layers),
            [
                "dm-0 dm Filesystem None",
                "md0 md Slave Some(0)",
                "sda disk Slave Some(1)",
                "sdb disk Slave Some(1)"
            ]
        );
    }

    #[test]
    fn btrfs_members_are_found_from_the_mount_source() {
        let t = SysfsTree::new();
        t.device("virtual/block/loop1", "7:1");
        t.device("virtual/block/loop2", "7:2");
        let fs = t.root().join("fs/btrfs/0c9e/devices");
        std::fs::create_dir_all(&fs).unwrap();
        symlink(t.root().join("class/block/loop1"), fs.join("loop1")).unwrap();
        symlink(t.root().join("class/block/loop2"), fs.join("loop2")).unwrap();
        // btrfs's st_dev is anonymous: no such device in sysfs.
        let dev_of = |_: &Path| Some((0, 51));
        let sys = Sysfs {
            root: t.root(),
            dev_of: &dev_of,
        };
        let layers = map(&sys, Path::new("/mnt"), Some("/dev/loop2"));
        assert_eq!(
            names(&layers),
            ["loop1 loop Member None", "loop2 loop Member None"]
        );
    }

    #[test]
    fn a_cycle_in_sysfs_ends() {
        let t = SysfsTree::new();
        let a = t.device("virtual/block/dm-1", "253:1");
        std::fs::create_dir_all(a.join("slaves")).unwrap();
        symlink(a.clone(), a.join("slaves/dm-1")).unwrap();
        let dev_of = |_: &Path| Some((253, 1));
        let sys = Sysfs {
            root: t.root(),
            dev_of: &dev_of,
        };
        assert_eq!(map(&sys, Path::new("/"), None).len(), 1);
    }

    #[test]
    fn stat_files_of_every_kernel_age() {
        let old = parse_stat("1 2 3 4 5 6 7 8 9 10 11").unwrap();
        assert_eq!(
            (old.read_bytes, old.write_bytes, old.flush_ios),
            (1536, 3584, 0)
        );
        assert!(parse_stat("1 2 3").is_none());
        assert!(parse_stat("1 2 x 4 5 6 7 8 9 10 11").is_none());
    }
}
