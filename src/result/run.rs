//! The Run schema (`candor.run/1`). Raw units everywhere: bytes, operations,
//! nanoseconds. Every field is documented in docs/run-schema.md; the JSON
//! paths named there are a contract with outside scripts: add, never rename.

use super::spec::{Direction, DiskSpec};
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;

/// The schema identifier this build writes.
pub const SCHEMA: &str = "candor.run/1";
/// The schema family; the number after the slash is the major version.
pub const SCHEMA_FAMILY: &str = "candor.run/";
/// The newest major version this build can read.
pub const SCHEMA_MAJOR: u32 = 1;

/// One result document: a battery, a single job, an import.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct Run {
    /// `candor.run/1`.
    pub schema: String,
    /// The program that produced this Run.
    pub tool: Tool,
    /// A name the user gave this host or run (`--label`); reports prefer it to the hostname.
    #[serde(default)]
    pub label: Option<String>,
    /// Facts about the machine, read before measuring.
    #[serde(default)]
    pub host: HostFacts,
    /// `running` while measurements are being added, then `complete`,
    /// `interrupted` or `failed`.
    pub status: RunStatus,
    /// When the run started (RFC 3339, UTC).
    #[serde(default)]
    pub started_at: Option<String>,
    /// When the run ended (RFC 3339, UTC); absent while running.
    #[serde(default)]
    pub finished_at: Option<String>,
    /// The command line that produced this Run.
    #[serde(default)]
    pub command: Vec<String>,
    /// Where the measurements came from: `candor` or `fio-import`.
    #[serde(default = "default_source")]
    pub source: String,
    /// The plan as run (battery settings: preset, passes, runtimes, control file).
    #[serde(default)]
    pub plan: Option<serde_json::Value>,
    /// Every finished measurement, in the order it ran.
    #[serde(default)]
    pub measurements: Vec<Measurement>,
    /// What the numbers mean and what they do not prove (recomputable with `candor analyze`).
    #[serde(default)]
    pub findings: Vec<Finding>,
    /// Warnings and notes in plain words: fallbacks, skipped groups, preflight warnings.
    #[serde(default)]
    pub notes: Vec<String>,
    /// The fio job file this Run ran (`candor disk --job`): its text, kept.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub job_file: Option<JobFileRecord>,
    /// fio's `disk_util` of imported fio output, per output file and device.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub fio_disk_util: Vec<crate::result::FioDiskUtil>,
    /// A host's Run of a fleet run with `--parallel`: the hosts measured at
    /// the same time (their load may be in these figures). Written by the
    /// controller; drift and comparisons say it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub fleet: Option<FleetContext>,
    /// Block devices the jobs used as their targets (`--device`), with
    /// what was written to each.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub devices: Vec<crate::result::DeviceRecord>,
}

/// How a host's Run of a fleet run was measured beside the other hosts.
#[derive(Debug, Clone, Serialize, Deserialize, Default, PartialEq)]
pub struct FleetContext {
    /// Hosts at once (`--parallel N`, the playbook's serial).
    pub parallel: usize,
    /// The hosts whose batteries ran while this one did (empty: alone).
    #[serde(default)]
    pub overlapped_with: Vec<String>,
    /// The machine this Run measured, as the controller's connection
    /// reached it: a Run's label is an inventory name, and this says
    /// which machine stood behind it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub destination: Option<Destination>,
}

/// Where a fleet host's candor ran: the destination as ssh resolved it
/// (`ssh -G`) and the host key that connection was shown.
#[derive(Debug, Clone, Serialize, Deserialize, Default, PartialEq, Eq)]
pub struct Destination {
    pub user: String,
    /// The address ssh connected to (after `~/.ssh/config`'s HostName).
    pub address: String,
    pub port: u16,
    /// `ProxyJump` or `ProxyCommand`, when the way there had one.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub via: Option<String>,
    /// The server's host key as the login saw it: `TYPE SHA256:...`
    /// (None when ssh could not say: OpenSSH before 8.5, or the playbook).
    #[serde(default)]
    pub host_key: Option<String>,
}

/// The fio job file a Run ran, kept whole so that the Run says exactly
/// what was asked for.
#[derive(Debug, Clone, Serialize, Deserialize, Default, PartialEq)]
pub struct JobFileRecord {
    /// The job file as named on the command line.
    pub path: String,
    /// SHA-256 of its text (hex).
    pub sha256: String,
    /// The job file, then every file it included: path, SHA-256, text.
    #[serde(default)]
    pub files: Vec<JobFileText>,
    /// The sections asked for with `--section` (empty: every job ran).
    #[serde(default)]
    pub sections: Vec<String>,
    /// Options candor refused but ran without, by `--ignore-unsupported`:
    /// `file:line: option: why`.
    #[serde(default)]
    pub ignored: Vec<String>,
    /// The DiskSpd command the job file was lowered from (`candor disk
    /// --diskspd`); absent for a job file the user wrote.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub diskspd: Option<String>,
}

/// One file of a job file, as read.
#[derive(Debug, Clone, Serialize, Deserialize, Default, PartialEq)]
pub struct JobFileText {
    pub path: String,
    pub sha256: String,
    pub text: String,
}

/// The most job names a measurement's `waited_for` lists.
pub const WAITED_FOR_NAMED: usize = 16;

fn is_zero(n: &usize) -> bool {
    *n == 0
}

/// Where a disk measurement stands in the fio job file it came from, and
/// how it ran beside the other jobs.
#[derive(Debug, Clone, Serialize, Deserialize, Default, PartialEq)]
pub struct JobInfo {
    /// The job's section name.
    pub section: String,
    /// `file:line` of the section header.
    #[serde(default)]
    pub at: String,
    /// fio's reporting group: jobs after a `stonewall` or `new_group` start a new one.
    #[serde(default)]
    pub group: u32,
    /// When the job's threads started and when its last one ended, in ns
    /// from the start of the run's first job: jobs whose intervals overlap
    /// ran at the same time and shared the disk.
    #[serde(default)]
    pub start_ns: u64,
    #[serde(default)]
    pub end_ns: u64,
    /// How it ended: `runtime`, `size` (each thread issued its bytes or
    /// operations, fio's size-bounded job), `steadystate` or `stopped`.
    #[serde(default)]
    pub ended_by: String,
    /// The jobs it waited for before it started (`stonewall`, `wait_for`),
    /// at most [`WAITED_FOR_NAMED`] of them by name.
    #[serde(default)]
    pub waited_for: Vec<String>,
    /// How many more it waited for than `waited_for` names (a phase of
    /// 2,000 jobs after one of 2,000 would otherwise write four million
    /// names into the Run, and again at every save).
    #[serde(default, skip_serializing_if = "is_zero")]
    pub waited_for_more: usize,
    /// Its `startdelay` (ns).
    #[serde(default)]
    pub start_delay_ns: u64,
    /// The settings in force, in fio's names (`bs=4k`), the global sections'
    /// first, as fio's JSON lists `job options`.
    #[serde(default)]
    pub options: Vec<String>,
    /// The files fio would have used for it; candor made its own beside them.
    #[serde(default)]
    pub fio_files: Vec<String>,
    /// Every test file the job used (one per clone unless they share one).
    #[serde(default)]
    pub files: Vec<TestFileInfo>,
    /// fio's steady-state check, when the job asked for one.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub steadystate: Option<SteadyState>,
}

/// fio's steady-state check of one job, as its JSON reports it.
#[derive(Debug, Clone, Serialize, Deserialize, Default, PartialEq)]
pub struct SteadyState {
    /// fio's spelling of the criterion and limit (`iops_slope:0.1%`).
    pub criterion: String,
    /// The window, in one-second samples (`ss_dur`).
    pub duration_s: u32,
    /// Time of the measured interval before samples counted (`ss_ramp`, ns).
    #[serde(default)]
    pub ramp_ns: u64,
    /// True when the criterion fell below the limit and the job stopped there.
    pub attained: bool,
    /// The criterion's last value (a percentage of the mean when the limit
    /// is one); absent before the window filled.
    #[serde(default)]
    pub value: Option<f64>,
    pub limit: f64,
    /// The limit is a percentage of the window's mean.
    #[serde(default)]
    pub percent: bool,
    /// The largest distance of a sample from the window's mean.
    #[serde(default)]
    pub max_deviation: f64,
    /// The least-squares slope of the window, per second.
    #[serde(default)]
    pub slope: f64,
    #[serde(default)]
    pub iops_mean: f64,
    /// Bytes per second.
    #[serde(default)]
    pub bw_mean: f64,
    /// The window's samples, oldest first.
    #[serde(default)]
    pub iops: Vec<f64>,
    #[serde(default)]
    pub bw: Vec<f64>,
}

fn default_source() -> String {
    "candor".to_string()
}

impl Run {
    /// A new, empty Run in status `running`, stamped with this build.
    pub fn new(command: Vec<String>) -> Run {
        Run {
            schema: SCHEMA.to_string(),
            tool: Tool::this_build(),
            label: None,
            host: HostFacts::default(),
            status: RunStatus::Running,
            started_at: Some(crate::units::now_rfc3339()),
            finished_at: None,
            command,
            source: default_source(),
            plan: None,
            measurements: Vec::new(),
            findings: Vec::new(),
            notes: Vec::new(),
            job_file: None,
            fio_disk_util: Vec::new(),
            fleet: None,
            devices: Vec::new(),
        }
    }

    /// A new Run of this process, its command line recorded (arguments that
    /// are not valid UTF-8 are kept with replacement characters).
    pub fn of_this_process() -> Run {
        Run::new(
            std::env::args_os()
                .map(|a| a.to_string_lossy().into_owned())
                .collect(),
        )
    }

    /// The label if set, else the hostname, else "unknown host".
    pub fn display_name(&self) -> String {
        self.label
            .clone()
            .or_else(|| self.host.hostname.clone())
            .unwrap_or_else(|| "unknown host".to_string())
    }

    /// The disk measurements, in order.
    pub fn disk(&self) -> impl Iterator<Item = &DiskMeasurement> {
        self.measurements.iter().filter_map(|m| match m {
            Measurement::Disk(d) => Some(d),
            _ => None,
        })
    }

    /// The compute measurements (every kind but disk), in order.
    pub fn compute(&self) -> impl Iterator<Item = &ComputeMeasurement> {
        self.measurements.iter().filter_map(|m| m.as_compute())
    }
}

/// The program that produced a Run.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct Tool {
    /// `candor` (or `fio` for imports).
    pub name: String,
    /// The tool's version.
    pub version: String,
    /// The target the binary was built for (`x86_64-linux`).
    #[serde(default)]
    pub target: Option<String>,
    /// Versions of the libraries that do measured work (crypto, compression), by name.
    #[serde(default)]
    pub libraries: BTreeMap<String, String>,
}

impl Tool {
    /// This build of candor.
    pub fn this_build() -> Tool {
        Tool {
            name: "candor".to_string(),
            version: env!("CARGO_PKG_VERSION").to_string(),
            target: Some(format!(
                "{}-{}",
                std::env::consts::ARCH,
                std::env::consts::OS
            )),
            libraries: BTreeMap::new(),
        }
    }
}

/// Where a Run stands.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum RunStatus {
    /// Measurements are still being added.
    Running,
    /// Every planned measurement finished.
    Complete,
    /// Stopped by a signal; the finished measurements are kept.
    Interrupted,
    /// Stopped by an error; the finished measurements are kept.
    Failed,
}

impl RunStatus {
    pub fn as_str(self) -> &'static str {
        match self {
            RunStatus::Running => "running",
            RunStatus::Complete => "complete",
            RunStatus::Interrupted => "interrupted",
            RunStatus::Failed => "failed",
        }
    }
}

/// Facts about the machine. Every field is optional: what could not be read is absent,
/// never guessed.
#[derive(Debug, Clone, Default, Serialize, Deserialize)]
#[serde(default)]
pub struct HostFacts {
    pub hostname: Option<String>,
    /// `model name` from /proc/cpuinfo.
    pub cpu_model: Option<String>,
    pub cpu_sockets: Option<u32>,
    /// Physical cores (distinct core ids per socket).
    pub cpu_cores: Option<u32>,
    /// Logical CPUs online (vCPUs in a VM).
    pub cpu_threads: Option<u32>,
    /// True when logical CPUs outnumber cores.
    pub smt: Option<bool>,
    pub cpu_mhz: Option<f64>,
    /// cpufreq scaling governor of cpu0.
    pub governor: Option<String>,
    pub mem_total_bytes: Option<u64>,
    pub mem_available_bytes: Option<u64>,
    pub swap_total_bytes: Option<u64>,
    /// `uname -r`.
    pub kernel: Option<String>,
    /// PRETTY_NAME from /etc/os-release.
    pub os_release: Option<String>,
    pub virtualization: Option<Virtualization>,
    /// The kernel's current clock source.
    pub clocksource: Option<String>,
    /// The test directory and what lies under it.
    pub storage: Option<StorageFacts>,
    /// `available`, or why io_uring cannot be used.
    pub io_uring: Option<String>,
    /// NVMe controllers visible to this kernel (none inside most VMs).
    pub nvme_devices: Vec<String>,
    /// Anything else worth keeping, by name.
    pub extra: BTreeMap<String, String>,
}

/// What virtualisation was detected, and from what.
#[derive(Debug, Clone, Default, Serialize, Deserialize)]
#[serde(default)]
pub struct Virtualization {
    /// `none`, `kvm`, `vmware`, `microsoft`, `xen`, `firecracker`, ... or `unknown`
    /// (a hypervisor, but which is not known), or `not-checked` (no evidence
    /// could be read: no cpuid off x86, no DMI, no device tree node).
    pub kind: String,
    /// cpuid leaf 1 ECX bit 31 (the hypervisor bit).
    pub hypervisor_bit: Option<bool>,
    /// The hypervisor vendor signature from cpuid leaf 0x40000000.
    pub hypervisor_vendor: Option<String>,
    pub dmi_sys_vendor: Option<String>,
    pub dmi_product_name: Option<String>,
    /// What was read to decide (`cpuid`, `dmi`, `/proc/cpuinfo`, ...).
    pub sources: Vec<String>,
}

/// The test directory's filesystem and block device.
#[derive(Debug, Clone, Default, Serialize, Deserialize)]
#[serde(default)]
pub struct StorageFacts {
    pub dir: String,
    /// Filesystem type name (`ext4`, `xfs`, `tmpfs`, ...).
    pub fs_type: Option<String>,
    /// statfs f_type, in hex (`0xef53`).
    pub fs_magic: Option<String>,
    pub mount_point: Option<String>,
    pub mount_source: Option<String>,
    pub mount_options: Option<String>,
    /// Kernel name of the block device (`vda`, `nvme0n1`, `sda2`).
    pub device: Option<String>,
    /// The whole disk when `device` is a partition (`sda` for `sda2`); the
    /// scheduler, block sizes and ROTA flag are read from it.
    pub parent_device: Option<String>,
    /// `MAJ:MIN` of the device holding the directory.
    pub device_number: Option<String>,
    /// Model as the device reports it (a claim, not a measurement).
    pub device_model: Option<String>,
    pub scheduler: Option<String>,
    pub logical_block_size: Option<u64>,
    pub physical_block_size: Option<u64>,
    /// The ROTA flag (meaningless inside most VMs).
    pub rotational: Option<bool>,
    /// What the device says of its write cache (`queue/write_cache`):
    /// `write back` (volatile: writes are acknowledged before they are
    /// durable) or `write through`. A claim, like the model.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub write_cache: Option<String>,
    /// statx STATX_DIOALIGN memory alignment for O_DIRECT.
    pub dio_mem_align: Option<u64>,
    /// statx STATX_DIOALIGN offset alignment for O_DIRECT.
    pub dio_offset_align: Option<u64>,
    pub free_bytes: Option<u64>,
    pub total_bytes: Option<u64>,
    /// The block stack under the directory, top first.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub stack: Vec<crate::result::StackLayer>,
}

/// One measurement; `kind` tells which.
// A Run holds tens of measurements, not millions: boxing the disk variant
// would only make every access noisier.
#[allow(clippy::large_enum_variant)]
#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "lowercase")]
pub enum Measurement {
    Disk(DiskMeasurement),
    Cpu(ComputeMeasurement),
    Memory(ComputeMeasurement),
    Crypto(ComputeMeasurement),
    Compress(ComputeMeasurement),
    Os(ComputeMeasurement),
    /// One UnixBench index test with one copy count (`compute::unixbench` documents its params).
    Unixbench(ComputeMeasurement),
}

impl Measurement {
    /// `disk`, `cpu`, `memory`, `crypto`, `compress` or `os`.
    pub fn kind(&self) -> &'static str {
        match self {
            Measurement::Disk(_) => "disk",
            Measurement::Cpu(_) => "cpu",
            Measurement::Memory(_) => "memory",
            Measurement::Crypto(_) => "crypto",
            Measurement::Compress(_) => "compress",
            Measurement::Os(_) => "os",
            Measurement::Unixbench(_) => "unixbench",
        }
    }

    pub fn as_compute(&self) -> Option<&ComputeMeasurement> {
        match self {
            Measurement::Disk(_) => None,
            Measurement::Cpu(c)
            | Measurement::Memory(c)
            | Measurement::Crypto(c)
            | Measurement::Compress(c)
            | Measurement::Os(c)
            | Measurement::Unixbench(c) => Some(c),
        }
    }

    /// The pass this measurement belongs to (1-based), if it ran in a battery.
    pub fn pass(&self) -> Option<u32> {
        match self {
            Measurement::Disk(d) => d.pass,
            other => other.as_compute().and_then(|c| c.pass),
        }
    }
}

/// Which test file a disk measurement read or wrote.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, Default, Hash)]
#[serde(rename_all = "lowercase")]
pub enum FileRole {
    /// The main test file.
    #[default]
    Main,
    /// The control file (larger than RAM), for the host-cache check.
    Control,
}

/// One disk job (fio vocabulary) and everything it measured.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct DiskMeasurement {
    /// Battery profile name (`SEQ1M Q8T1`), absent for a single `candor disk` job.
    #[serde(default)]
    pub profile: Option<String>,
    /// The pass (1-based) within a battery.
    #[serde(default)]
    pub pass: Option<u32>,
    /// Main or control file.
    #[serde(default)]
    pub role: FileRole,
    /// When the job started (RFC 3339, UTC).
    #[serde(default)]
    pub started_at: Option<String>,
    /// What was asked for and what ran.
    pub spec: DiskSpec,
    /// Reads over the measured interval; null when the job did no reads.
    pub read: Option<DirectionStats>,
    /// Writes over the measured interval; null when the job did no writes.
    pub write: Option<DirectionStats>,
    /// Imports only: fio times each sync apart from its write (`sync.lat_ns`),
    /// so a commit there is a write plus this. candor's own fsync jobs time
    /// each write through its sync, in `write`, and leave this absent.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub sync: Option<DirectionStats>,
    /// The same figures per thread (job clone), in thread order.
    #[serde(default)]
    pub threads: Vec<ThreadStats>,
    /// CPU use of candor and the host's steal time over the measured interval.
    #[serde(default)]
    pub cpu: CpuUse,
    /// The measured interval as actually timed (ns), ramp excluded.
    #[serde(default)]
    pub measured_ns: u64,
    /// The test file used.
    #[serde(default)]
    pub file: Option<TestFileInfo>,
    /// Sequential jobs: the part of the file they read or wrote (absent for random jobs).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub span: Option<FileSpan>,
    /// The fio command line that reproduces this job.
    #[serde(default)]
    pub fio_command: String,
    /// Plain-word notes about this job (fallbacks, adjustments).
    #[serde(default)]
    pub notes: Vec<String>,
    /// The job's place in the fio job file it came from (`candor disk --job`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub job: Option<JobInfo>,
    /// What every layer under the test file did during the measured
    /// interval (empty when the stack could not be read).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub block_stack: Vec<crate::result::LayerIo>,
    /// The measured interval overlapped other jobs of the same job file:
    /// the layers' counters hold their I/O too.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub beside_other_jobs: bool,
    /// The block device the job ran on in place of a test file, with the
    /// bytes it wrote there.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub device: Option<crate::result::DeviceJobIo>,
    /// fio's `verify`: what the job read back of what it wrote, and what
    /// was not what it wrote.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub verify: Option<crate::result::VerifyRecord>,
}

impl DiskMeasurement {
    /// The job's name: its battery profile (`SEQ1M Q8T1`), else its spec's label (`RND4K Q32T1`).
    pub fn label(&self) -> String {
        match &self.profile {
            Some(p) if !p.trim().is_empty() => p.clone(),
            _ => self.spec.label(),
        }
    }

    /// A figure of this job: `RND4K Q32T1 read`, `SEQ1M Q8T1 read (control file)`.
    pub fn subject(&self, direction: Direction) -> String {
        super::spec::subject(&self.label(), direction, self.role)
    }

    /// Reads and writes together: total operations per second.
    pub fn total_iops(&self) -> f64 {
        self.read.as_ref().map_or(0.0, |d| d.iops) + self.write.as_ref().map_or(0.0, |d| d.iops)
    }

    /// Reads and writes together: total bytes per second.
    pub fn total_bytes_per_sec(&self) -> f64 {
        self.read.as_ref().map_or(0.0, |d| d.bytes_per_sec)
            + self.write.as_ref().map_or(0.0, |d| d.bytes_per_sec)
    }
}

/// Where a sequential job's cursor went: each thread works through its own
/// region of the file (the whole file with one thread), starting at `start`
/// and wrapping at the region's end.
#[derive(Debug, Clone, Copy, Serialize, Deserialize, Default, PartialEq, Eq)]
pub struct FileSpan {
    /// Offset into each thread's region of the first operation (bytes).
    pub start: u64,
    /// Bytes the cursor moved over (the ramp and the operations in flight at
    /// the end included), per thread, the most of any thread.
    pub bytes: u64,
    /// The size of each thread's region (bytes).
    pub region_bytes: u64,
}

impl FileSpan {
    /// True when the job went past the end of its region and came round to
    /// bytes it had already read or written.
    pub fn wrapped(&self) -> bool {
        self.bytes > self.region_bytes
    }

    /// Where the next job should start so as not to repeat these bytes.
    pub fn end(&self) -> u64 {
        if self.region_bytes == 0 {
            0
        } else {
            (self.start + self.bytes) % self.region_bytes
        }
    }
}

/// The test file a job used.
#[derive(Debug, Clone, Serialize, Deserialize, Default, PartialEq)]
pub struct TestFileInfo {
    pub path: String,
    pub size: u64,
    /// st_blocks * 512 after the fill: at least `size` for a fully written file.
    pub allocated_bytes: u64,
    /// How long the fill (write + fsync) took (ns); 0 when the file was reused.
    #[serde(default)]
    pub fill_ns: u64,
    /// On a copy-on-write filesystem (btrfs): whether the file was made
    /// No_COW (chattr +C) before it was written. Absent elsewhere.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub nocow: Option<bool>,
    /// Whether `lseek(SEEK_HOLE)` found no hole before the end: kept where the
    /// allocated blocks lagged behind the write (ZFS updates them at
    /// transaction-group sync) and the file was taken as fully written.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub no_holes: Option<bool>,
}

/// One direction (read or write) of a job, or of one thread.
#[derive(Debug, Clone, Serialize, Deserialize, Default, PartialEq)]
pub struct DirectionStats {
    pub ops: u64,
    pub bytes: u64,
    pub iops: f64,
    pub bytes_per_sec: f64,
    /// Completion latency (submit to completion; for `fsync`, write submit to sync completion).
    pub lat_ns: LatencyStats,
    /// Per-second series over the measured interval.
    #[serde(default)]
    pub series: Vec<SeriesPoint>,
}

/// Latency summary in nanoseconds, from an HDR histogram (3 significant digits).
#[derive(Debug, Clone, Serialize, Deserialize, Default, PartialEq)]
pub struct LatencyStats {
    #[serde(default)]
    pub min: u64,
    pub mean: f64,
    #[serde(default)]
    pub stdev: f64,
    pub p50: u64,
    pub p90: u64,
    pub p99: u64,
    pub p99_9: u64,
    #[serde(default)]
    pub p99_99: u64,
    pub max: u64,
    /// The full histogram, HDR V2 deflate format, base64: mergeable across runs.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub histogram: Option<String>,
}

/// One interval of the per-second series.
#[derive(Debug, Clone, Serialize, Deserialize, Default, PartialEq)]
pub struct SeriesPoint {
    /// Start of the interval, from the start of the measured interval (ns).
    pub t_ns: u64,
    /// Length of the interval (ns); the last one may be shorter.
    #[serde(default)]
    pub dur_ns: u64,
    pub ops: u64,
    pub bytes: u64,
    /// Mean latency of the I/Os completed in the interval (ns).
    pub lat_mean_ns: f64,
    /// p99 latency of the I/Os completed in the interval (ns).
    pub lat_p99_ns: u64,
}

/// One thread (job clone) of a disk job.
#[derive(Debug, Clone, Serialize, Deserialize, Default, PartialEq)]
pub struct ThreadStats {
    pub thread: u32,
    pub read: Option<DirectionStats>,
    pub write: Option<DirectionStats>,
}

/// CPU over a measured interval.
#[derive(Debug, Clone, Serialize, Deserialize, Default, PartialEq)]
#[serde(default)]
pub struct CpuUse {
    /// candor's user time, percent of one CPU.
    pub usr_pct: f64,
    /// candor's system time, percent of one CPU.
    pub sys_pct: f64,
    /// The host's steal time, percent of all CPUs' time (from /proc/stat).
    pub steal_pct: f64,
    /// candor's user + system CPU time in ns (for CPU cost per I/O).
    pub cpu_ns: u64,
    /// A disk job's I/O threads: time they were runnable but waiting for a
    /// CPU over the measured interval, summed over the threads (ns; the
    /// second field of /proc/thread-self/schedstat, read by each thread at
    /// its interval's start and end). Absent when not recorded (older Runs,
    /// imports, a kernel without schedstats, compute measurements).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub run_wait_ns: Option<u64>,
}

/// A compute measurement (kinds `cpu`, `memory`, `crypto`, `compress`, `os`).
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct ComputeMeasurement {
    /// The pass (1-based) within a battery.
    #[serde(default)]
    pub pass: Option<u32>,
    #[serde(default)]
    pub started_at: Option<String>,
    pub spec: ComputeSpec,
    /// Events per second (cpu primes: one event = one sweep up to max_prime).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub events_per_sec: Option<f64>,
    /// Bytes per second (memory, crypto, compress, pipe throughput).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub bytes_per_sec: Option<f64>,
    /// Operations per second (syscalls, context switches, process creations).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub ops_per_sec: Option<f64>,
    /// The headline figure per thread, in thread order (fairness).
    #[serde(default)]
    pub per_thread: Vec<f64>,
    /// The measured interval (ns).
    #[serde(default)]
    pub measured_ns: u64,
    #[serde(default)]
    pub cpu: CpuUse,
    /// What this figure is and is not (e.g. "1 MiB blocks: CPU cache, not RAM").
    #[serde(default)]
    pub notes: Vec<String>,
}

/// What a compute measurement ran.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
pub struct ComputeSpec {
    /// The test's name (`primes`, `stream-triad`, `aes-256-cbc-encrypt`, `lzma-compress`, `syscall`, ...).
    pub test: String,
    pub threads: u32,
    #[serde(default)]
    pub runtime_ns: u64,
    /// Test parameters by name (max_prime, block size, preset, ...).
    #[serde(default)]
    pub params: BTreeMap<String, serde_json::Value>,
}

/// What a finding says about a Run.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
pub struct Finding {
    /// Stable id (`host-cache`, `limiter-flat`, ...); `candor explain ID` explains it.
    pub id: String,
    pub severity: Severity,
    /// `checked` when the evidence was there, `not-checked` when it was missing.
    pub status: FindingStatus,
    /// What it is about (a profile such as `RND4K Q32T1 read`, a host), if not the whole Run.
    #[serde(default)]
    pub subject: Option<String>,
    /// One line.
    pub verdict: String,
    /// The numbers that triggered it, next to the thresholds.
    #[serde(default)]
    pub evidence: serde_json::Value,
    /// What it means.
    #[serde(default)]
    pub meaning: String,
    /// What it does not prove.
    #[serde(default)]
    pub not_proven: String,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Severity {
    Info,
    Warning,
    Refusal,
    /// The storage returned other data than was written (`data-corrupted`):
    /// above every finding about speed.
    Corruption,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum FindingStatus {
    Checked,
    NotChecked,
}
