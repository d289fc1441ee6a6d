//! A disk job's vocabulary, shared by the engine, the battery, the fio
//! import, findings and every report: the I/O pattern (`Rw`), the direction
//! of a figure (`Direction`), the spec as stored in a Run (`DiskSpec`) and
//! the one label a job goes by everywhere (`RND4K Q32T1`, in CrystalDiskMark's
//! style, which every user already knows).

use serde::{Deserialize, Deserializer, Serialize, Serializer};

/// The I/O pattern, in fio's words (`rw=`). `Other` keeps what an import
/// brings that candor does not run (`trim`, `randtrim`, `trimwrite`, ...).
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub enum Rw {
    Read,
    Write,
    /// Sequential reads and writes mixed (fio's `rw` / `readwrite`).
    ReadWrite,
    Randread,
    Randwrite,
    Randrw,
    Other(String),
}

/// The patterns candor's engine runs (what `--rw` accepts).
static RUNNABLE: [Rw; 6] = [
    Rw::Read,
    Rw::Write,
    Rw::ReadWrite,
    Rw::Randread,
    Rw::Randwrite,
    Rw::Randrw,
];

impl Rw {
    /// fio's name: `read`, `write`, `rw`, `randread`, `randwrite`, `randrw`, or the other name.
    pub fn as_str(&self) -> &str {
        match self {
            Rw::Read => "read",
            Rw::Write => "write",
            Rw::ReadWrite => "rw",
            Rw::Randread => "randread",
            Rw::Randwrite => "randwrite",
            Rw::Randrw => "randrw",
            Rw::Other(s) => s,
        }
    }

    /// fio's name (also `readwrite` for `rw`); anything else is `Other`.
    pub fn parse(text: &str) -> Rw {
        match text.trim() {
            "read" => Rw::Read,
            "write" => Rw::Write,
            "rw" | "readwrite" => Rw::ReadWrite,
            "randread" => Rw::Randread,
            "randwrite" => Rw::Randwrite,
            "randrw" => Rw::Randrw,
            other => Rw::Other(other.to_string()),
        }
    }

    /// True where candor's engine can run the pattern.
    pub fn is_runnable(&self) -> bool {
        !matches!(self, Rw::Other(_))
    }

    pub fn is_random(&self) -> bool {
        match self {
            Rw::Randread | Rw::Randwrite | Rw::Randrw => true,
            Rw::Other(s) => s.starts_with("rand"),
            _ => false,
        }
    }

    pub fn reads(&self) -> bool {
        matches!(self, Rw::Read | Rw::Randread | Rw::ReadWrite | Rw::Randrw)
    }

    pub fn writes(&self) -> bool {
        matches!(self, Rw::Write | Rw::Randwrite | Rw::ReadWrite | Rw::Randrw)
    }

    /// Reads and writes in one job (`rw`, `randrw`).
    pub fn is_mixed(&self) -> bool {
        matches!(self, Rw::ReadWrite | Rw::Randrw)
    }

    /// Only reads or only writes (what most findings compare).
    pub fn is_pure(&self) -> bool {
        matches!(self, Rw::Read | Rw::Write | Rw::Randread | Rw::Randwrite)
    }

    /// Reads only (these are repeated on the control file).
    pub fn is_read_only(&self) -> bool {
        matches!(self, Rw::Read | Rw::Randread)
    }
}

impl Default for Rw {
    /// fio's default pattern.
    fn default() -> Rw {
        Rw::Read
    }
}

impl From<&str> for Rw {
    fn from(text: &str) -> Rw {
        Rw::parse(text)
    }
}

impl std::fmt::Display for Rw {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.pad(self.as_str())
    }
}

impl Serialize for Rw {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(self.as_str())
    }
}

impl<'de> Deserialize<'de> for Rw {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Rw, D::Error> {
        Ok(Rw::parse(&String::deserialize(d)?))
    }
}

impl clap::ValueEnum for Rw {
    fn value_variants<'a>() -> &'a [Self] {
        &RUNNABLE
    }

    fn to_possible_value(&self) -> Option<clap::builder::PossibleValue> {
        use clap::builder::PossibleValue;
        Some(match self {
            Rw::Read => PossibleValue::new("read"),
            Rw::Write => PossibleValue::new("write"),
            Rw::ReadWrite => PossibleValue::new("rw").alias("readwrite"),
            Rw::Randread => PossibleValue::new("randread"),
            Rw::Randwrite => PossibleValue::new("randwrite"),
            Rw::Randrw => PossibleValue::new("randrw"),
            Rw::Other(_) => return None,
        })
    }
}

/// How one direction's block sizes are drawn (fio's `bs=r,w`, `bssplit`,
/// `bsrange`).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum BlockSizes {
    /// Every operation this size.
    Fixed(u64),
    /// Each size with its share in percent (the shares add up to 100).
    Split(Vec<(u64, u32)>),
    /// Multiples of the low size up to the high one, drawn as fio draws
    /// them: low + uniform(0, high), rounded down to a multiple of low,
    /// capped at high.
    Range(u64, u64),
}

impl BlockSizes {
    pub fn min(&self) -> u64 {
        match self {
            BlockSizes::Fixed(b) => *b,
            BlockSizes::Split(v) => v.iter().map(|(b, _)| *b).min().unwrap_or(0),
            BlockSizes::Range(lo, _) => *lo,
        }
    }

    pub fn max(&self) -> u64 {
        match self {
            BlockSizes::Fixed(b) => *b,
            BlockSizes::Split(v) => v.iter().map(|(b, _)| *b).max().unwrap_or(0),
            BlockSizes::Range(_, hi) => *hi,
        }
    }
}

/// Reads or writes: the two figures a job can have.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Direction {
    Read,
    Write,
}

impl Direction {
    pub const BOTH: [Direction; 2] = [Direction::Read, Direction::Write];

    pub fn as_str(self) -> &'static str {
        match self {
            Direction::Read => "read",
            Direction::Write => "write",
        }
    }

    /// This direction's figures in a measurement, if it did any.
    pub fn of(self, m: &super::DiskMeasurement) -> Option<&super::DirectionStats> {
        match self {
            Direction::Read => m.read.as_ref(),
            Direction::Write => m.write.as_ref(),
        }
    }
}

/// A disk job as run, in fio's vocabulary.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq, Default)]
pub struct DiskSpec {
    /// `read`, `write`, `rw`, `randread`, `randwrite`, `randrw` (imports may bring others).
    pub rw: Rw,
    /// Percentage of reads in a mixed job (absent otherwise).
    #[serde(default)]
    pub rwmixread: Option<u32>,
    /// Block size in bytes.
    pub bs: u64,
    /// I/Os kept in flight per thread.
    pub iodepth: u32,
    /// Operations per submit call (fio's `iodepth_batch_submit`). Absent in
    /// Runs written before it was recorded: those submitted each refill whole.
    #[serde(default)]
    pub iodepth_batch: Option<u32>,
    /// Threads (fio job clones).
    pub numjobs: u32,
    /// Test file size in bytes.
    pub size: u64,
    /// Measured interval asked for (ns).
    pub runtime_ns: u64,
    /// Warm-up before the measured interval (ns, not counted).
    pub ramp_ns: u64,
    /// The engine that actually ran (`io_uring`, `libaio`, `psync`, `null`).
    pub engine: String,
    /// Why that engine ran when another was preferred (fallback reason).
    #[serde(default)]
    pub engine_note: Option<String>,
    /// io_uring only: whether registered (fixed) buffers were used.
    #[serde(default)]
    pub registered_buffers: Option<bool>,
    /// O_DIRECT (true) or the page cache (false).
    pub direct: bool,
    /// Sync after every N writes (0 = never).
    pub fsync: u32,
    /// The random seed (offsets and payload); the same seed repeats the job exactly.
    #[serde(default)]
    pub seed: u64,
    /// Block sizes of reads and writes when they are not all `bs` (fio's
    /// `bs=r,w`, `bssplit`, `bsrange`); `bs` is then the smallest read size.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub block_sizes: Option<[BlockSizes; 2]>,
    /// Random offsets are multiples of this many bytes (fio's `ba`), when not `bs`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub align: Option<u64>,
    /// Each thread's cap in bytes per second, [reads, writes] (fio's `rate`,
    /// or `rate_iops` times the smallest block size); absent: no cap.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub rate_bytes_per_sec: Option<[Option<u64>; 2]>,
    /// `poisson` when rated operations arrive as a Poisson process; absent: evenly spaced.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub rate_process: Option<String>,
    /// Bytes each thread issued before it stopped, ramp included (fio's
    /// `size` or `io_size` times `loops`); absent: the runtime alone ends the job.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub io_limit: Option<u64>,
    /// Operations each thread issued before it stopped (fio's `number_ios`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub op_limit: Option<u64>,
    /// True when random offsets visited every block once before repeating
    /// (fio's random map); absent: drawn independently.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub random_map: Option<bool>,
    /// fio's `random_distribution` when random offsets were not uniform
    /// (`zipf:1.2`, `normal:10`, `zoned:60/10:40/90`); absent: uniform.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub random_distribution: Option<String>,
    /// fio's offset modifier (`rw=randread:8`), in words.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub rw_modifier: Option<String>,
    /// `fdatasync` when syncs were fdatasync; absent: fsync.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub sync: Option<String>,
    /// True when the job fsynced its file at the end, inside its measured interval.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub end_fsync: Option<bool>,
    /// fio's `sync=`: `dsync` (opened with O_DSYNC) or `sync` (O_SYNC):
    /// every write returned once stable; absent: writes could return from
    /// a volatile cache.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub write_sync: Option<String>,
    /// What the writes carried when it was not fresh random data, in words
    /// (a job file's `buffer_compress_percentage`, `zero_buffers`): storage
    /// that compresses or deduplicates stores less than was written.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub write_data: Option<String>,
    /// The minimum rate each thread had to keep, in words (fio's
    /// `rate_min`, `rate_iops_min`); absent: none.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub rate_min: Option<String>,
    /// The flow each thread's I/O was kept to, in words (fio's `flow`,
    /// `flow_id`, `flow_sleep`); absent: none.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub flow: Option<String>,
    /// A metadata engine's operations in words (fio's filecreate, filestat,
    /// ...): what each operation was, on how many names; absent: data I/O.
    /// Its figures are operations of the filesystem, not of the medium.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub metadata: Option<String>,
}

impl DiskSpec {
    /// The job's name in CrystalDiskMark's style: `RND4K Q32T1`, `SEQ1M Q8T1`,
    /// `RND4K Q16T1 mix 70/30`, `RND4K Q1T1 fsync=1`, `RND4K Q1T1 zipf:1.2`
    /// (skewed offsets); a pattern candor does
    /// not run keeps fio's name (`trim 4K Q1T1`).
    pub fn label(&self) -> String {
        let bs = crate::units::block_label(self.bs);
        let mut label = match &self.rw {
            Rw::Other(name) => format!("{name} {bs}"),
            rw if rw.is_random() => format!("RND{bs}"),
            _ => format!("SEQ{bs}"),
        };
        label.push_str(&format!(" Q{}T{}", self.iodepth, self.numjobs));
        if let Some(mix) = self.rwmixread.filter(|_| self.rw.is_mixed()) {
            label.push_str(&format!(" mix {}/{}", mix, 100u32.saturating_sub(mix)));
        }
        if self.fsync > 0 {
            label.push_str(&format!(" fsync={}", self.fsync));
        }
        if let Some(mode) = &self.write_sync {
            label.push_str(&format!(" {mode}"));
        }
        if let Some(dist) = &self.random_distribution {
            label.push_str(&format!(" {dist}"));
        }
        label
    }

    /// One I/O in flight in total: the latency a single dependent chain feels.
    pub fn is_qd1(&self) -> bool {
        self.iodepth.max(1) * self.numjobs.max(1) == 1
    }
}

/// What a figure is called in findings, reports and comparisons:
/// `RND4K Q32T1 read`, with ` (control file)` for the control series.
pub fn subject(label: &str, direction: Direction, role: super::FileRole) -> String {
    match role {
        super::FileRole::Main => format!("{label} {}", direction.as_str()),
        super::FileRole::Control => format!("{label} {} (control file)", direction.as_str()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn spec(rw: &str, bs: u64, qd: u32, jobs: u32) -> DiskSpec {
        DiskSpec {
            rw: Rw::parse(rw),
            rwmixread: None,
            bs,
            iodepth: qd,
            iodepth_batch: Some(1),
            numjobs: jobs,
            size: 1 << 30,
            runtime_ns: 1,
            ramp_ns: 0,
            engine: "io_uring".into(),
            engine_note: None,
            registered_buffers: None,
            direct: true,
            fsync: 0,
            seed: 0,
            ..Default::default()
        }
    }

    #[test]
    fn labels() {
        assert_eq!(spec("randread", 4096, 32, 1).label(), "RND4K Q32T1");
        assert_eq!(spec("read", 1 << 20, 8, 1).label(), "SEQ1M Q8T1");
        let mut mix = spec("randrw", 4096, 16, 1);
        mix.rwmixread = Some(70);
        assert_eq!(mix.label(), "RND4K Q16T1 mix 70/30");
        let mut sync = spec("randwrite", 4096, 1, 1);
        sync.fsync = 1;
        assert_eq!(sync.label(), "RND4K Q1T1 fsync=1");
        assert_eq!(spec("trim", 4096, 1, 2).label(), "trim 4K Q1T2");
    }

    #[test]
    fn rw_round_trips_as_fio_names() {
        for name in [
            "read",
            "write",
            "rw",
            "randread",
            "randwrite",
            "randrw",
            "trim",
        ] {
            let rw = Rw::parse(name);
            assert_eq!(rw.as_str(), name);
            let json = serde_json::to_string(&rw).unwrap();
            assert_eq!(serde_json::from_str::<Rw>(&json).unwrap(), rw);
        }
        assert_eq!(Rw::parse("readwrite"), Rw::ReadWrite);
        assert!(Rw::parse("randtrim").is_random() && !Rw::parse("randtrim").is_runnable());
        assert!(Rw::ReadWrite.reads() && Rw::ReadWrite.writes() && !Rw::ReadWrite.is_random());
    }
}
