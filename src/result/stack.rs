//! The block stack in a Run: the layers under the test file (host facts)
//! and what each did during one measurement (a disk measurement's
//! `block_stack`). Schema in docs/run-schema.md ("block stack").

use serde::{Deserialize, Serialize};

/// How a layer relates to the one above it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum StackRelation {
    /// The device the test directory's filesystem lies on.
    Filesystem,
    /// One of the devices of a multi-device filesystem (btrfs).
    Member,
    /// The whole disk of a partition: its counters include the partition's
    /// and every sibling partition's.
    WholeDisk,
    /// The device that holds a loop device's backing file.
    Backing,
    /// A device that a dm or md device is made of.
    Slave,
}

/// One layer of the stack.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct StackLayer {
    /// Kernel name: `vda1`, `loop0`, `dm-0`.
    pub name: String,
    /// `major:minor`.
    pub dev: String,
    /// `disk`, `partition`, `loop`, `dm` or `md`.
    pub kind: String,
    pub relation: StackRelation,
    /// The indices (in the same list) of the layers whose I/O this one
    /// carries: one, or several when they share it (two loop devices whose
    /// backing files lie on one disk).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub above: Vec<usize>,
    /// How it is reached, in words ("holds loop0's backing file /var/tmp/x").
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub via: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub backing_file: Option<String>,
    /// A loop device's `dio`: off means its backing file is read and written
    /// through the page cache, a cache between candor and the disk.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub loop_direct_io: Option<bool>,
}

/// A layer's block statistics (the kernel's `stat` file), or the difference
/// of two readings; bytes from 512-byte sectors.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct LayerCounters {
    pub read_ios: u64,
    pub read_merges: u64,
    pub read_bytes: u64,
    /// Milliseconds spent on reads, summed over requests.
    pub read_ms: u64,
    pub write_ios: u64,
    pub write_merges: u64,
    pub write_bytes: u64,
    pub write_ms: u64,
    /// Requests in flight (at the end of the interval, in a difference).
    pub in_flight: u64,
    /// Milliseconds the device had at least one request in flight (util).
    pub io_ticks_ms: u64,
    /// Milliseconds of requests in flight, summed (queue depth x time).
    pub queue_ms: u64,
    #[serde(default)]
    pub discard_ios: u64,
    #[serde(default)]
    pub discard_bytes: u64,
    #[serde(default)]
    pub flush_ios: u64,
}

impl LayerCounters {
    /// `after - before` (a counter that went back, a device re-created
    /// mid-test, gives 0); `in_flight` is the one at the end.
    pub fn since(&self, before: &LayerCounters) -> LayerCounters {
        let d = |a: u64, b: u64| a.saturating_sub(b);
        LayerCounters {
            read_ios: d(self.read_ios, before.read_ios),
            read_merges: d(self.read_merges, before.read_merges),
            read_bytes: d(self.read_bytes, before.read_bytes),
            read_ms: d(self.read_ms, before.read_ms),
            write_ios: d(self.write_ios, before.write_ios),
            write_merges: d(self.write_merges, before.write_merges),
            write_bytes: d(self.write_bytes, before.write_bytes),
            write_ms: d(self.write_ms, before.write_ms),
            in_flight: self.in_flight,
            io_ticks_ms: d(self.io_ticks_ms, before.io_ticks_ms),
            queue_ms: d(self.queue_ms, before.queue_ms),
            discard_ios: d(self.discard_ios, before.discard_ios),
            discard_bytes: d(self.discard_bytes, before.discard_bytes),
            flush_ios: d(self.flush_ios, before.flush_ios),
        }
    }
}

/// What one layer did during one measured interval.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct LayerIo {
    #[serde(flatten)]
    pub layer: StackLayer,
    /// None when the layer's counters could not be read at both ends.
    #[serde(default)]
    pub io: Option<LayerCounters>,
    /// The same counters second by second over the measured interval,
    /// beside the measurement's per-second series (empty when not sampled:
    /// older Runs, a layer unreadable during the interval).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub series: Vec<LayerSecond>,
}

/// What one layer did in one second of a measured interval: read by the
/// job's driver thread at each second's boundary (never by the I/O
/// threads), so that a drop in a series can be set against what the device
/// did, for candor and for others, at that second.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct LayerSecond {
    /// Start of the sample from the start of the measured interval, and its
    /// length (ns), as the driver read them: within a scheduling delay of
    /// the series' whole seconds; the last may be shorter.
    pub t_ns: u64,
    pub dur_ns: u64,
    pub read_bytes: u64,
    pub write_bytes: u64,
    pub read_ios: u64,
    pub write_ios: u64,
    /// Milliseconds the layer had a request in flight (util = this / dur).
    pub io_ticks_ms: u64,
    /// Milliseconds of requests in flight, summed (mean depth = this / dur).
    pub queue_ms: u64,
    /// Requests in flight at the end of the second.
    pub in_flight: u64,
}

impl LayerSecond {
    /// The second from `t_ns` to `t_ns + dur_ns` between two readings.
    pub fn between(
        before: &LayerCounters,
        after: &LayerCounters,
        t_ns: u64,
        dur_ns: u64,
    ) -> LayerSecond {
        let d = after.since(before);
        LayerSecond {
            t_ns,
            dur_ns,
            read_bytes: d.read_bytes,
            write_bytes: d.write_bytes,
            read_ios: d.read_ios,
            write_ios: d.write_ios,
            io_ticks_ms: d.io_ticks_ms,
            queue_ms: d.queue_ms,
            in_flight: after.in_flight,
        }
    }

    /// Share of the second the layer was busy (io_ticks), at most 1.
    pub fn util(&self) -> f64 {
        (self.io_ticks_ms as f64 * 1e6 / self.dur_ns.max(1) as f64).min(1.0)
    }
}

/// fio's own `disk_util` entry for one device, as fio printed it in one
/// output file (`candor import`): counted over fio's whole run of that file
/// (every job in it, ramp included), without the bytes (fio's JSON has
/// none). Kept so that nothing fio saw of the device is dropped.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct FioDiskUtil {
    /// The fio output file it came from.
    pub file: String,
    /// Indices (in the Run's `measurements`) of that file's jobs.
    pub measurements: Vec<usize>,
    /// Kernel name as fio printed it (`vda`, `md0`).
    pub name: String,
    pub read_ios: u64,
    pub write_ios: u64,
    pub read_merges: u64,
    pub write_merges: u64,
    /// Milliseconds spent on reads (writes), summed over requests.
    pub read_ticks_ms: u64,
    pub write_ticks_ms: u64,
    /// Milliseconds of requests in flight, summed.
    pub in_queue_ms: u64,
    /// Percent of fio's run the device was busy.
    pub util_pct: f64,
    /// Bytes read and written (fio's `read_sectors`/`write_sectors` x 512,
    /// printed by fio 3.36 and later; None from older fio).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub read_bytes: Option<u64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub write_bytes: Option<u64>,
    /// fio's `aggr_*` fields of a device made of others (dm, md): its
    /// slaves' counters, averaged over them by fio, and the busiest slave's
    /// util. None for a device without slaves.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub aggregate: Option<FioDiskAggregate>,
}

/// The slaves of a dm or md device as fio's `disk_util` sums them up: each
/// counter is the slaves' mean (fio divides by their count).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct FioDiskAggregate {
    pub read_ios: u64,
    pub write_ios: u64,
    pub read_merges: u64,
    pub write_merges: u64,
    pub read_ticks_ms: u64,
    pub write_ticks_ms: u64,
    pub in_queue_ms: u64,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub read_bytes: Option<u64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub write_bytes: Option<u64>,
    /// The busiest slave's util, in percent.
    pub util_pct: f64,
}
