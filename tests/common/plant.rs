//! Real conditions planted on this machine for the truth table and the
//! findings tests: cgroup v1 blkio throttles (in a group of our own, or at
//! the root group, which reaches loop devices' workers), loop devices,
//! filesystems made on them, tmpfs/ramfs mounts, huge pages that shrink the
//! page cache. Every one is undone on drop, also when the test fails.
//! They need root (tests run as root here and in CI).

use std::os::unix::fs::MetadataExt;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::Duration;

pub const BLKIO: &str = "/sys/fs/cgroup/blkio";

/// The planted-condition tests measure the same disk: one at a time, so that
/// one's I/O does not blur another's levels.
static DISK: std::sync::Mutex<()> = std::sync::Mutex::new(());

pub fn one_at_a_time() -> std::sync::MutexGuard<'static, ()> {
    DISK.lock().unwrap_or_else(|e| e.into_inner())
}

/// Runs a command; panics with its output when it fails.
pub fn sh(program: &str, args: &[&str]) -> String {
    let out = Command::new(program)
        .args(args)
        .output()
        .unwrap_or_else(|e| panic!("{program}: {e} (is it installed?)"));
    assert!(
        out.status.success(),
        "{program} {args:?}: {}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8_lossy(&out.stdout).trim().to_string()
}

/// A directory for candor's test files under /var/tmp (the real disk).
pub fn test_dir(tag: &str) -> tempfile::TempDir {
    tempfile::Builder::new()
        .prefix(&format!("candor-{tag}-"))
        .tempdir_in("/var/tmp")
        .unwrap()
}

/// candor's test files (`.candor-*`) in `dir`: none may be left behind.
pub fn candor_files(dir: &Path) -> Vec<std::path::PathBuf> {
    std::fs::read_dir(dir)
        .unwrap()
        .filter_map(|e| e.ok())
        .map(|e| e.path())
        .filter(|p| {
            p.file_name()
                .unwrap()
                .to_string_lossy()
                .starts_with(".candor-")
        })
        .collect()
}

/// MAJ:MIN of the whole disk under `dir` (throttles apply to disks, not partitions).
pub fn whole_disk(dir: &Path) -> String {
    let dev = std::fs::metadata(dir).unwrap().dev();
    let (maj, min) = (major(dev), minor(dev));
    let sys = PathBuf::from(format!("/sys/dev/block/{maj}:{min}"));
    assert!(
        sys.exists(),
        "{} has no block device ({maj}:{min})",
        dir.display()
    );
    if sys.join("partition").exists() {
        let parent = std::fs::canonicalize(&sys)
            .unwrap()
            .parent()
            .unwrap()
            .join("dev");
        return std::fs::read_to_string(parent).unwrap().trim().to_string();
    }
    format!("{maj}:{min}")
}

fn major(dev: u64) -> u64 {
    ((dev >> 32) & 0xffff_f000) | ((dev >> 8) & 0xfff)
}

fn minor(dev: u64) -> u64 {
    ((dev >> 12) & 0xffff_ff00) | (dev & 0xff)
}

/// A cgroup v1 blkio group of our own, removed on drop (even when the test fails).
pub struct Cgroup {
    pub path: PathBuf,
    device: String,
}

impl Cgroup {
    pub fn new(tag: &str, dir: &Path) -> Cgroup {
        remove_dead_groups();
        let path = Path::new(BLKIO).join(format!("candor-test-{tag}-{}", std::process::id()));
        std::fs::create_dir(&path).unwrap_or_else(|e| {
            panic!(
                "cannot create {} (these tests need root and cgroup v1 blkio): {e}",
                path.display()
            )
        });
        Cgroup {
            path,
            device: whole_disk(dir),
        }
    }

    /// Sets one throttle (`read_iops_device`, `write_iops_device`, `read_bps_device`, ...).
    pub fn set(&self, file: &str, value: u64) {
        let f = self.path.join(format!("blkio.throttle.{file}"));
        std::fs::write(&f, format!("{} {value}", self.device))
            .unwrap_or_else(|e| panic!("cannot write {}: {e}", f.display()));
    }

    /// Read operations the group has served so far (all devices).
    pub fn reads_served(&self) -> u64 {
        let text = std::fs::read_to_string(self.path.join("blkio.throttle.io_serviced"))
            .unwrap_or_default();
        text.lines()
            .filter(|l| {
                l.ends_with(char::is_numeric) && l.split_whitespace().nth(1) == Some("Read")
            })
            .filter_map(|l| l.split_whitespace().nth(2)?.parse::<u64>().ok())
            .sum()
    }

    /// A shell command that puts itself into the group, then becomes candor.
    pub fn wrap(&self, args: &[String]) -> Command {
        let mut c = Command::new("sh");
        let quoted: Vec<String> = args.iter().map(|a| format!("'{a}'")).collect();
        c.arg("-c").arg(format!(
            "echo $$ > '{}' && exec '{}' {}",
            self.path.join("cgroup.procs").display(),
            env!("CARGO_BIN_EXE_candor"),
            quoted.join(" ")
        ));
        c.env("CANDOR_NO_HISTORY", "1");
        c
    }
}

/// Groups left by a test process that was killed (its drop never ran):
/// `candor-test-<tag>-<pid>` whose pid is gone and which holds no task.
/// Their throttles bind no one, but a test suite leaves nothing behind.
fn remove_dead_groups() {
    let Ok(entries) = std::fs::read_dir(BLKIO) else {
        return;
    };
    for e in entries.flatten() {
        let name = e.file_name().to_string_lossy().into_owned();
        let Some(pid) = name
            .strip_prefix("candor-test-")
            .and_then(|rest| rest.rsplit('-').next())
            .and_then(|pid| pid.parse::<u32>().ok())
        else {
            continue;
        };
        let empty =
            std::fs::read_to_string(e.path().join("tasks")).is_ok_and(|t| t.trim().is_empty());
        if empty && !Path::new(&format!("/proc/{pid}")).exists() {
            let _ = std::fs::remove_dir(e.path());
        }
    }
}

impl Drop for Cgroup {
    fn drop(&mut self) {
        // The candor process has exited by now; an empty group can be removed.
        for _ in 0..50 {
            if std::fs::remove_dir(&self.path).is_ok() || !self.path.exists() {
                return;
            }
            std::thread::sleep(Duration::from_millis(100));
        }
        eprintln!("warning: could not remove {}", self.path.display());
    }
}

/// Throttles at the root blkio group: they apply to every process and to
/// kernel workers too (a loop device's reads of its backing file). Cleared
/// on drop.
pub struct RootThrottle {
    settings: Vec<PathBuf>,
    device: String,
}

impl RootThrottle {
    pub fn new(dir: &Path) -> RootThrottle {
        RootThrottle {
            settings: Vec::new(),
            device: whole_disk(dir),
        }
    }

    pub fn set(&mut self, file: &str, value: u64) {
        let f = Path::new(BLKIO).join(format!("blkio.throttle.{file}"));
        std::fs::write(&f, format!("{} {value}", self.device))
            .unwrap_or_else(|e| panic!("cannot write {}: {e}", f.display()));
        self.settings.push(f);
    }
}

impl Drop for RootThrottle {
    fn drop(&mut self) {
        for f in &self.settings {
            let _ = std::fs::write(f, format!("{} 0", self.device));
        }
    }
}

/// A loop device over a sparse backing file, detached (and the file
/// removed) on drop. With `direct_io` off, its reads and writes of the
/// backing file go through this machine's page cache: the guest's page
/// cache then caches the "disk" the way a hypervisor's cache does.
pub struct LoopDevice {
    pub device: String,
    backing: PathBuf,
}

impl LoopDevice {
    pub fn new(backing: &Path, size: u64, direct_io: bool) -> LoopDevice {
        let f = std::fs::File::create(backing).unwrap();
        f.set_len(size).unwrap();
        drop(f);
        let dio = format!("--direct-io={}", if direct_io { "on" } else { "off" });
        let device = sh(
            "losetup",
            &["--find", "--show", &dio, backing.to_str().unwrap()],
        );
        LoopDevice {
            device,
            backing: backing.to_path_buf(),
        }
    }
}

impl Drop for LoopDevice {
    fn drop(&mut self) {
        let _ = Command::new("losetup").args(["-d", &self.device]).status();
        let _ = std::fs::remove_file(&self.backing);
    }
}

/// A filesystem mounted on a directory, unmounted on drop.
pub struct Mount {
    pub dir: PathBuf,
}

impl Mount {
    /// `mount -t fstype [-o options] source dir`.
    pub fn new(fstype: &str, source: &str, dir: &Path, options: Option<&str>) -> Mount {
        std::fs::create_dir_all(dir).unwrap();
        let mut args = vec!["-t", fstype];
        if let Some(o) = options {
            args.extend(["-o", o]);
        }
        args.extend([source, dir.to_str().unwrap()]);
        sh("mount", &args);
        Mount {
            dir: dir.to_path_buf(),
        }
    }

    /// `mkfs.<fstype>` on a device, then mounted.
    pub fn format(fstype: &str, device: &str, dir: &Path) -> Mount {
        let force = match fstype {
            "xfs" | "btrfs" => "-f",
            _ => "-F",
        };
        sh(&format!("mkfs.{fstype}"), &[force, "-q", device]);
        Mount::new(fstype, device, dir, None)
    }
}

impl Drop for Mount {
    fn drop(&mut self) {
        for _ in 0..20 {
            if Command::new("umount")
                .arg(&self.dir)
                .stderr(std::process::Stdio::null())
                .status()
                .is_ok_and(|s| s.success())
            {
                let _ = std::fs::remove_dir(&self.dir);
                return;
            }
            std::thread::sleep(Duration::from_millis(200));
        }
        eprintln!("warning: could not unmount {}", self.dir.display());
    }
}

/// Huge pages reserved (and so taken from the page cache) until drop. The
/// guest's page cache is the planted host cache; reserving huge pages is
/// what bounds it (memory cgroups do not: the loop worker runs outside them).
pub struct HugePages {
    pub reserved_bytes: u64,
}

impl HugePages {
    /// Reserves enough 2 MiB huge pages to leave about `leave` bytes of memory available.
    /// Memory freed by others while it reserves (or fragmented, so that
    /// fewer huge pages fit) is retried: caches dropped, memory compacted,
    /// up to five times.
    pub fn leaving(leave: u64) -> HugePages {
        let mut got = 0;
        for _ in 0..5 {
            sh("sync", &[]);
            std::fs::write("/proc/sys/vm/drop_caches", "3").unwrap();
            let _ = std::fs::write("/proc/sys/vm/compact_memory", "1");
            let available = meminfo("MemAvailable");
            let pages = got + available.saturating_sub(leave) / (2 << 20);
            std::fs::write("/proc/sys/vm/nr_hugepages", pages.to_string()).unwrap();
            got = std::fs::read_to_string("/proc/sys/vm/nr_hugepages")
                .unwrap()
                .trim()
                .parse()
                .unwrap();
            if meminfo("MemAvailable") <= leave + (1 << 30) {
                break;
            }
        }
        HugePages {
            reserved_bytes: got * (2 << 20),
        }
    }
}

impl Drop for HugePages {
    fn drop(&mut self) {
        let _ = std::fs::write("/proc/sys/vm/nr_hugepages", "0");
    }
}

/// A field of /proc/meminfo, in bytes.
pub fn meminfo(field: &str) -> u64 {
    std::fs::read_to_string("/proc/meminfo")
        .unwrap()
        .lines()
        .find(|l| l.starts_with(&format!("{field}:")))
        .and_then(|l| l.split_whitespace().nth(1)?.parse::<u64>().ok())
        .unwrap_or(0)
        * 1024
}

/// candor run with its stdout discarded; panics (with stderr) when it fails.
pub fn candor_ok(cmd: &mut Command) {
    let out = cmd.output().unwrap();
    assert!(
        out.status.success(),
        "candor failed ({}): {}",
        out.status,
        String::from_utf8_lossy(&out.stderr)
    );
}

/// The plain candor binary, kept from adding to the user's history
/// (tests/history.rs tests that).
pub fn candor_cmd(args: &[String]) -> Command {
    let mut c = Command::new(env!("CARGO_BIN_EXE_candor"));
    c.args(args).env("CANDOR_NO_HISTORY", "1");
    c
}

/// Arguments as owned strings.
pub fn args(list: &[&str]) -> Vec<String> {
    list.iter().map(|s| s.to_string()).collect()
}

/// One row of the truth table, printed for `bench/truth-table.sh` to collect.
pub fn truth_row(condition: &str, expected: &str, measured: &str) {
    println!("TRUTH|{condition}|{expected}|{measured}");
}

/// True when fio can be run (the reference the job-file tests compare
/// with); under CI=true its absence is a failure, never a skip.
pub fn have_fio() -> bool {
    let ok = Command::new("fio")
        .arg("--version")
        .output()
        .is_ok_and(|o| o.status.success());
    if !ok {
        assert!(
            std::env::var("CI").as_deref() != Ok("true"),
            "fio is not installed, and CI=true: the job-file oracle must run in CI (apt-get install fio)"
        );
        eprintln!("SKIPPED: fio is absent (install Debian's fio package to run this test)");
    }
    ok
}
