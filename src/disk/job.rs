//! A disk job in fio's vocabulary: what to do, not how. Validation here
//! gives every bad value a one-line reason naming the flag.

use super::distribution::Distribution;
use crate::result::DiskSpec;
use std::time::Duration;

pub use crate::result::{BlockSizes, Rw};

/// An I/O engine (fio's `ioengine`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum EngineKind {
    #[value(name = "io_uring")]
    IoUring,
    Libaio,
    /// Overlapped I/O on a completion port (Windows only).
    Windowsaio,
    Psync,
    Null,
}

impl EngineKind {
    pub fn as_str(self) -> &'static str {
        match self {
            EngineKind::IoUring => "io_uring",
            EngineKind::Libaio => "libaio",
            EngineKind::Windowsaio => "windowsaio",
            EngineKind::Psync => "psync",
            EngineKind::Null => "null",
        }
    }
}

/// Which engine to use: a named one, or the best available (io_uring, then
/// libaio, then psync, each fallback explained).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum EngineChoice {
    Auto,
    Exact(EngineKind),
}

/// The shortest measured interval of a disk job: 100 ms. candor's CPU use
/// comes from getrusage, which the kernel counts in scheduler ticks (4 ms
/// at HZ=250, 10 ms at HZ=100): over 100 ms a thread's CPU share is known
/// to within 10 points, enough to tell the 85 % of `io-cpu-bound`, and a
/// disk with 10 ms latency at QD1 (a throttled or network volume)
/// completes 10 I/Os, the fewest that make a latency figure. Below it a job
/// measures nothing: `--runtime 1ns` once gave 0 IOPS and a false
/// `io-cpu-bound`. The battery uses the same minimum.
pub const MIN_RUNTIME: Duration = Duration::from_millis(100);

/// fio's offset modifier, `rw=randread:8` or `rw=write:4k`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Modifier {
    /// Random jobs: a new random offset every N operations, the ones
    /// between continuing sequentially (fio's `rw_sequencer=sequential`).
    Run(u32),
    /// Random jobs: each random offset used N times (`rw_sequencer=identical`).
    Same(u32),
    /// Sequential jobs: skip this many bytes after each operation.
    Holes(u64),
    /// Sequential jobs: the next operation starts this many bytes before
    /// the end of the last one (fio's `rw=read:-8k`, backwards I/O).
    Back(u64),
}

/// One job.
#[derive(Debug, Clone, PartialEq)]
pub struct JobSpec {
    pub rw: Rw,
    /// Percentage of reads for `randrw` (fio's default 50).
    pub rwmixread: u32,
    /// Block size in bytes.
    pub bs: u64,
    pub iodepth: u32,
    /// Operations handed to the kernel per submit call (fio's
    /// `iodepth_batch_submit`, default 1 as in fio): each freed slot reaches
    /// the device at once instead of waiting for a burst. Some virtual
    /// disks serve bursts worse: on Firecracker's virtio-blk, bursts of 16-32
    /// cost 13 % of QD32 4k read IOPS (BENCHMARKS.md).
    pub iodepth_batch: u32,
    pub numjobs: u32,
    /// Size of the file the job works on, in bytes.
    pub size: u64,
    pub runtime: Duration,
    pub ramp: Duration,
    pub engine: EngineChoice,
    /// Sync after every N writes (0: never). The recorded latency of a write
    /// that is followed by a sync runs from the write's submission to the sync's completion.
    pub fsync: u32,
    /// O_DIRECT (true) or through the page cache.
    pub direct: bool,
    /// Random seed for offsets and payloads.
    pub seed: u64,
    /// Sequential jobs: where in each thread's region the first operation
    /// goes (bytes, wrapping at the region's end). 0, as fio starts; the
    /// battery's control series carries it from job to job so that no
    /// control read repeats bytes an earlier one read.
    pub seq_start: u64,
    /// Stop each thread after it has issued this many bytes (ramp
    /// included), before the runtime if need be: fio's `size`/`io_size`
    /// times `loops`, and the battery's share of the control file.
    pub byte_limit: Option<u64>,
    /// Stop each thread after it has issued this many operations (ramp
    /// included): fio's `number_ios`.
    pub op_limit: Option<u64>,
    /// Block sizes for reads and writes when they are not all `bs`.
    pub block_sizes: Option<[BlockSizes; 2]>,
    /// Random offsets are multiples of this (fio's `ba`); default: the
    /// smallest block size.
    pub align: Option<u64>,
    /// Each thread's cap in bytes per second, for reads and writes (fio's
    /// `rate`, and `rate_iops` times the smallest block size, as fio does).
    pub rate: [Option<u64>; 2],
    /// Rated operations arrive as a Poisson process (fio's
    /// `rate_process=poisson`) instead of evenly spaced.
    pub rate_poisson: bool,
    /// A thread below this rate fails (fio's `rate_min`, `rate_iops_min`).
    pub rate_min: Option<super::min_rate::MinRate>,
    /// Threads of jobs in the same flow share I/O by weight (fio's `flow`).
    pub flow: Option<super::flow::Flow>,
    /// Random offsets visit every block once before any repeats (fio's
    /// random map, its default); otherwise each is drawn independently.
    pub random_map: bool,
    /// How random offsets spread over the region (fio's
    /// `random_distribution`); a non-uniform one draws every offset
    /// independently, as fio turns its random map off for it.
    pub distribution: Distribution,
    /// fio's `rw=...:N` offset modifier.
    pub modifier: Option<Modifier>,
    /// Sync with fdatasync instead of fsync.
    pub datasync: bool,
    /// How written files are opened: every write returns once stable
    /// (fio's `sync=dsync`/`sync=1`; DiskSpd's write-through, `-Sw`).
    pub write_sync: WriteSync,
    /// fsync the file once the job's I/O is done; the job's measured
    /// interval runs until that sync completes (fio's `end_fsync`).
    pub end_fsync: bool,
    /// fio's `thinktime` family: pauses between I/Os.
    pub think: Option<Think>,
    /// End the ramp as soon as the throughput has settled, at most after
    /// `ramp` (the battery's tests; fio's `ramp_time` is fixed: `settle`).
    pub settle_ramp: bool,
    /// fio's `verify`: each written block carries a checked header, and
    /// what the job wrote is read back after its writes (`disk/verify.rs`).
    pub verify: Option<super::verify::Verify>,
    /// The CPUs and I/O priority of its threads (fio's `cpus_allowed`,
    /// `prio`, ...); by default they inherit candor's.
    pub placement: super::placement::ThreadPlacement,
    /// What each write carries (fresh random bytes unless a job file asks
    /// for compressible data or zeros).
    pub data: super::data::WriteContent,
    /// fio's metadata engines (filecreate, ...): each operation is a system
    /// call on a name of its own, no data moves (the engine is then null's
    /// slot: no test file).
    pub metadata: Option<super::metadata::Metadata>,
}

/// Whether each write returns only once it is stable (fio's `sync=`):
/// the file opened with `O_DSYNC` (data, and the metadata needed to read
/// it back) or `O_SYNC` (all metadata too). Reads are unaffected.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum WriteSync {
    #[default]
    None,
    Dsync,
    Sync,
}

impl WriteSync {
    /// fio's word for it (`sync=dsync`, `sync=sync`); `None` when off.
    pub fn fio(self) -> Option<&'static str> {
        match self {
            WriteSync::None => None,
            WriteSync::Dsync => Some("dsync"),
            WriteSync::Sync => Some("sync"),
        }
    }
}

/// fio's thinktime (backend.c, handle_thinktime): once `blocks` more I/Os
/// have completed (or, `on_issue`, been issued) since the last pause, the
/// thread waits for everything it has in flight, spins for `spin`, then
/// sleeps the rest of `pause`, never past the end of its runtime.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Think {
    pub pause: Duration,
    pub spin: Duration,
    pub blocks: u64,
    pub on_issue: bool,
}

impl JobSpec {
    /// A job with fio's defaults for everything but the pattern, block size and depth.
    pub fn new(rw: Rw, bs: u64, iodepth: u32) -> JobSpec {
        JobSpec {
            rw,
            rwmixread: 50,
            bs,
            iodepth,
            iodepth_batch: 1,
            numjobs: 1,
            size: 1 << 30,
            runtime: Duration::from_secs(10),
            ramp: Duration::from_secs(2),
            engine: EngineChoice::Auto,
            fsync: 0,
            direct: true,
            seed: 0,
            seq_start: 0,
            byte_limit: None,
            op_limit: None,
            block_sizes: None,
            align: None,
            rate: [None, None],
            rate_poisson: false,
            rate_min: None,
            flow: None,
            random_map: false,
            distribution: Distribution::Uniform,
            modifier: None,
            datasync: false,
            write_sync: WriteSync::None,
            end_fsync: false,
            think: None,
            settle_ramp: false,
            verify: None,
            placement: Default::default(),
            data: Default::default(),
            metadata: None,
        }
    }

    /// The block sizes of reads and writes.
    pub fn sizes(&self) -> [BlockSizes; 2] {
        match &self.block_sizes {
            Some(s) => s.clone(),
            None => [BlockSizes::Fixed(self.bs), BlockSizes::Fixed(self.bs)],
        }
    }

    /// The block sizes of the directions the job issues.
    fn used_sizes(&self) -> impl Iterator<Item = BlockSizes> {
        let [read, write] = self.sizes();
        let (reads, writes) = (self.rw.reads(), self.rw.writes());
        // A pattern that does neither (an import's trim) counts both.
        let both = !reads && !writes;
        [(reads || both, read), (writes || both, write)]
            .into_iter()
            .filter_map(|(used, s)| used.then_some(s))
    }

    /// The smallest block size the job issues (over the directions it does).
    pub fn min_bs(&self) -> u64 {
        self.used_sizes().map(|s| s.min()).min().unwrap_or(self.bs)
    }

    /// The largest block size the job issues.
    pub fn max_bs(&self) -> u64 {
        self.used_sizes().map(|s| s.max()).max().unwrap_or(self.bs)
    }

    /// Where random offsets fall: multiples of this.
    pub fn unit(&self) -> u64 {
        self.align.unwrap_or_else(|| self.min_bs()).max(1)
    }

    /// True when the job writes its file or device: it writes, and is not
    /// a `verify_only` job (which only reads back what an earlier run wrote).
    pub fn writes_target(&self) -> bool {
        self.rw.writes() && !self.verify.is_some_and(|v| v.only)
    }

    /// True when the job ends by what it issued (fio's size-bounded jobs), not only by time.
    pub fn is_bounded(&self) -> bool {
        self.byte_limit.is_some() || self.op_limit.is_some()
    }

    /// The Run's description of this job, with the engine that actually ran.
    pub fn to_spec(&self, engine: EngineKind) -> DiskSpec {
        DiskSpec {
            rw: self.rw.clone(),
            rwmixread: self.rw.is_mixed().then_some(self.rwmixread),
            bs: self.bs,
            iodepth: self.iodepth,
            iodepth_batch: Some(self.iodepth_batch),
            numjobs: self.numjobs,
            size: self.size,
            runtime_ns: self.runtime.as_nanos() as u64,
            ramp_ns: self.ramp.as_nanos() as u64,
            engine: match &self.metadata {
                Some(m) => m.op.fio_name().to_string(),
                None => engine.as_str().to_string(),
            },
            engine_note: None,
            registered_buffers: None,
            direct: self.direct,
            fsync: self.fsync,
            seed: self.seed,
            block_sizes: self.block_sizes.clone(),
            align: self.align,
            rate_bytes_per_sec: (self.rate != [None, None]).then_some(self.rate),
            rate_process: self.rate_poisson.then(|| "poisson".to_string()),
            io_limit: self.byte_limit,
            op_limit: self.op_limit,
            random_map: (self.random_map && self.rw.is_random() && self.distribution.is_uniform())
                .then_some(true),
            random_distribution: (self.rw.is_random() && !self.distribution.is_uniform())
                .then(|| self.distribution.fio()),
            rw_modifier: self.modifier.map(|m| match m {
                Modifier::Run(n) => format!("{n} (sequential)"),
                Modifier::Same(n) => format!("{n} (identical)"),
                Modifier::Holes(b) => format!("{b} bytes skipped"),
                Modifier::Back(b) => format!("{b} bytes back"),
            }),
            sync: self.datasync.then(|| "fdatasync".to_string()),
            write_sync: self.write_sync.fio().map(str::to_string),
            end_fsync: self.end_fsync.then_some(true),
            write_data: (self.writes_target() && self.data != super::data::WriteContent::Random)
                .then(|| self.data.describe()),
            rate_min: self.rate_min.map(|m| m.describe()),
            flow: self.flow.map(|f| f.describe()),
            metadata: self.metadata.as_ref().map(|m| m.describe()),
        }
    }
}
