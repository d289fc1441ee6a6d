//! Every option fio 3.33 knows (its names, aliases and value types), and
//! what candor does with each: runs it, accepts it with a note (it changes
//! what fio reports or logs, not the I/O), or refuses it by name because
//! candor cannot do it faithfully. A refused option set to fio's default
//! value changes nothing and is accepted.
//!
//! Names and types follow fio's option table (options.c) and the options of
//! the engines candor runs; an option fio does not know is an error here as
//! it is in fio.

/// How fio reads an option's value.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Kind {
    /// Free text (`filename=`, `description=`).
    Text,
    /// One of a set of words (`rw=`, `kb_base=`); checked where candor runs it.
    Choice,
    /// A number with fio's size units (`size=`, `iodepth=`, `numjobs=`).
    Number,
    /// Per-direction numbers (`bs=4k,64k`, `rate=1m,`).
    Numbers,
    /// A duration; the number is the unit of a bare value in microseconds.
    Time(u64),
    /// A duration or a range of durations (`startdelay=1-3`).
    TimeRange,
    /// A size or a range of sizes (`filesize=1m-4m`; fio's FIO_OPT_STR_VAL
    /// with a second field: '-', ':' or ',' separates low and high).
    SizeRange,
    /// A boolean that needs a value (`direct=1`).
    Bool,
    /// A boolean whose bare name means 1 (`time_based`, `norandommap`).
    Flag,
    /// Per-direction ranges (`bsrange=1k-4k,2k-8k`).
    Range,
    /// Per-direction block-size splits (`bssplit=4k/10:64k/90`).
    Split,
    /// A colon-separated list of decimals (`percentile_list=`).
    Floats,
    /// Removed from fio: fio refuses the job.
    Deprecated,
    /// Kept by fio for old files; it has no effect.
    SoftDeprecated,
}

/// The engines candor runs, in fio's names (fio's sync, pvsync and
/// pvsync2 run as psync: the same I/O, one operation per system call).
pub const RUN_ENGINES: [&str; 14] = [
    "io_uring",
    "libaio",
    "windowsaio",
    "psync",
    "sync",
    "pvsync",
    "pvsync2",
    "null",
    "filecreate",
    "filestat",
    "filedelete",
    "dircreate",
    "dirstat",
    "dirdelete",
];
/// The same, in words, for messages.
pub const ENGINES: &str =
    "candor runs io_uring, libaio, windowsaio (on Windows), psync (fio's sync, pvsync and pvsync2 run as psync), null, and the metadata engines filecreate, filestat, filedelete, dircreate, dirstat and dirdelete";
/// The options fio lets count zones with a `z` suffix (`size=4z`, its
/// `FIO_OPT_STR_VAL_ZONE` options, for `zonemode=zbd`).
pub const ZONE_OPTIONS: [&str; 5] = ["size", "io_size", "offset", "offset_increment", "zoneskip"];

/// A bare value of a `Time` option is in seconds.
pub const SECONDS: u64 = 1_000_000;
/// A bare value of a `Time` option is in microseconds.
pub const MICROS: u64 = 1;

/// What candor does with an option.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Support {
    /// Lowered into candor's job faithfully (`lower/` reads it).
    Run,
    /// Accepted: it changes what fio reports, logs or names, not the I/O;
    /// the note, recorded in the Run, says what candor does instead.
    Note(&'static str),
    /// Accepted without a note: no effect on the I/O or on what is reported.
    Quiet,
    /// Refused (unless set to fio's default): candor cannot do it faithfully.
    Refuse(&'static str),
}

/// One option: its name, fio's alias, how its value reads, what candor does,
/// fio's default (as text) and, for engine options, the engines that have it.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct OptionDef {
    pub name: &'static str,
    pub alias: Option<&'static str>,
    pub kind: Kind,
    pub support: Support,
    pub default: Option<&'static str>,
    /// Empty for fio's own options; else the engines that define it.
    pub engines: &'static [&'static str],
}

const fn def(
    name: &'static str,
    alias: Option<&'static str>,
    kind: Kind,
    support: Support,
    default: Option<&'static str>,
) -> OptionDef {
    OptionDef {
        name,
        alias,
        kind,
        support,
        default,
        engines: &[],
    }
}

const fn engine(
    name: &'static str,
    kind: Kind,
    support: Support,
    default: Option<&'static str>,
    engines: &'static [&'static str],
) -> OptionDef {
    OptionDef {
        name,
        alias: None,
        kind,
        support,
        default,
        engines,
    }
}

/// The option called `name` (or by that alias).
pub fn find(name: &str) -> Option<&'static OptionDef> {
    OPTIONS
        .iter()
        .find(|o| o.name == name || o.alias == Some(name))
}

/// fio reads a section's options sorted by this priority, highest first
/// (stable otherwise): `kb_base` and `unit_base` before the sizes they
/// govern, file names after everything else.
pub fn priority(def: &OptionDef) -> i8 {
    match def.name {
        "kb_base" | "unit_base" | "lockfile" | "cpus_allowed_policy" => 1,
        "filename" | "filename_format" => -1,
        _ => 0,
    }
}

/// Every option, fio's own first, then the engines'.
pub fn all() -> &'static [OptionDef] {
    OPTIONS
}

use Kind::*;
use Support::*;

const VERIFY_INLINE: Support =
    Refuse("candor reads back and checks in the job's own threads, after their writes");
const BACKLOG: Support =
    Refuse("candor reads back once the job's writes are done, not while it writes");
const TRIM: Support = Refuse("candor does not trim");
const IOLOG: Support = Refuse("candor does not record or replay I/O logs");
const ZONES: Support = Refuse("candor does not run fio's zone modes (strided: zonesize and zoneskip stride over the file; zbd: zoned block devices)");
const PLACEMENT: Support = Refuse(
    "candor sets no NUMA policy, nice level, per-command priority or cgroup for its threads (it runs cpus_allowed, cpumask, cpus_allowed_policy, prio and prioclass)",
);
const PAYLOAD: Support = Refuse(
    "candor writes fresh random data, compressible data (buffer_compress_percentage) or zeros (zero_buffers); it does not write patterns or deduplicable buffers",
);
/// The log options fio takes bare (`write_bw_log`: its default file names).
pub const BARE_LOGS: [&str; 4] = [
    "write_bw_log",
    "write_lat_log",
    "write_iops_log",
    "write_hist_log",
];
const LOGS: Support = Note(
    "candor writes no fio log files; the Run keeps a per-second series and a latency histogram per job",
);
const REPORT: Support = Note(
    "it changes how fio reports, not the I/O; candor reports latency from submission to completion with fixed percentiles and the full histogram",
);
const FILES: Support = Refuse("candor runs one file per job thread");

static OPTIONS: &[OptionDef] = &[
    def("description", None, Text, Run, None),
    def("name", None, Text, Run, None),
    def("wait_for", None, Text, Run, None),
    def("filename", None, Text, Run, None),
    def("directory", None, Text, Run, None),
    def("filename_format", None, Text, Run, Some("$jobname.$jobnum.$filenum")),
    def("unique_filename", None, Bool, Quiet, Some("1")),
    def("lockfile", None, Choice, Refuse("candor does not lock its files between jobs"), Some("none")),
    def("opendir", None, Text, FILES, None),
    def("rw", Some("readwrite"), Choice, Run, Some("read")),
    def("rw_sequencer", None, Choice, Run, Some("sequential")),
    def("ioengine", None, Text, Run, Some("psync")),
    def("iodepth", None, Number, Run, Some("1")),
    def("iodepth_batch", Some("iodepth_batch_submit"), Number, Run, Some("1")),
    def("iodepth_batch_complete_min", Some("iodepth_batch_complete"), Number, Run, Some("1")),
    def("iodepth_batch_complete_max", None, Number, Run, None),
    def("iodepth_low", None, Number, Run, None),
    def("serialize_overlap", None, Bool, Refuse("candor does not serialise overlapping I/Os"), Some("0")),
    def("io_submit_mode", None, Choice, Refuse("candor submits from the job's own thread (fio's inline mode)"), Some("inline")),
    def("size", None, Number, Run, None),
    def("io_size", Some("io_limit"), Number, Run, None),
    def("fill_device", Some("fill_fs"), Bool, Refuse("candor never fills a filesystem: it leaves free space"), Some("0")),
    def("filesize", None, SizeRange, Run, None),
    def("file_append", None, Bool, Refuse("candor does not append to files"), Some("0")),
    def("offset", Some("fileoffset"), Number, Run, Some("0")),
    def("offset_align", None, Number, Refuse("candor aligns offsets to the smallest block size (ba)"), Some("0")),
    def("offset_increment", None, Number, Run, Some("0")),
    def("number_ios", None, Number, Run, Some("0")),
    def("bs", Some("blocksize"), Numbers, Run, Some("4096")),
    def("ba", Some("blockalign"), Numbers, Run, None),
    def("bsrange", Some("blocksize_range"), Range, Run, None),
    def("bssplit", None, Split, Run, None),
    def("bs_unaligned", Some("blocksize_unaligned"), Flag, Refuse("candor issues block sizes that are multiples of the smallest"), None),
    def("bs_is_seq_rand", None, Bool, Refuse("candor splits block sizes by direction, not by sequential/random"), Some("0")),
    def("randrepeat", None, Bool, Run, Some("1")),
    def("randseed", None, Number, Run, Some("0x89")),
    def("norandommap", None, Flag, Run, None),
    def("softrandommap", None, Bool, Quiet, Some("0")),
    def("random_generator", None, Choice, Run, Some("tausworthe")),
    def("random_distribution", None, Choice, Run, Some("random")),
    def("percentage_random", None, Numbers, Run, Some("100")),
    def("percentage_sequential", None, Deprecated, Quiet, None),
    def("allrandrepeat", None, Bool, Quiet, Some("0")),
    def("nrfiles", Some("nr_files"), Number, Run, Some("1")),
    def("openfiles", None, Number, Quiet, None),
    def("file_service_type", None, Choice, Quiet, Some("roundrobin")),
    def("fallocate", None, Choice, Note("candor writes each of its files in full with random data before the jobs start, whatever fallocate says"), Some("native")),
    def("fadvise_hint", None, Choice, Run, Some("1")),
    def("fsync", None, Number, Run, Some("0")),
    def("fdatasync", None, Number, Run, Some("0")),
    def("write_barrier", None, Number, Refuse("candor does not issue barrier writes"), Some("0")),
    def("sync_file_range", None, Choice, Refuse("candor does not call sync_file_range"), None),
    def("direct", None, Bool, Run, Some("0")),
    def("atomic", None, Bool, Refuse("candor does not issue atomic writes"), Some("0")),
    def("buffered", None, Bool, Run, Some("1")),
    def("overwrite", None, Bool, Run, Some("0")),
    def("loops", None, Number, Run, Some("1")),
    def("numjobs", None, Number, Run, Some("1")),
    def("startdelay", None, TimeRange, Run, Some("0")),
    def("runtime", Some("timeout"), Time(SECONDS), Run, Some("0")),
    def("time_based", None, Flag, Run, None),
    def("verify_only", None, Flag, Run, None),
    def("ramp_time", None, Time(SECONDS), Run, Some("0")),
    def("clocksource", None, Choice, Note("candor times with the kernel's monotonic clock whatever fio's clocksource says"), None),
    def("mem", Some("iomem"), Choice, Run, Some("malloc")),
    def("iomem_align", Some("mem_align"), Number, Quiet, Some("0")),
    def("verify", None, Choice, Run, Some("0")),
    def("do_verify", None, Bool, Run, Some("1")),
    def("verifysort", None, SoftDeprecated, Quiet, None),
    def("verifysort_nr", None, SoftDeprecated, Quiet, None),
    def("verify_interval", None, Number, Refuse("candor puts one header at the start of each written block (fio's verify_interval equal to the block size)"), None),
    def("verify_offset", None, Number, Refuse("candor's verify header sits at the start of each block"), None),
    def("verify_pattern", None, Choice, Refuse("candor writes random data under a checksummed header; it does not write or check a pattern"), None),
    def("verify_fatal", None, Bool, Run, Some("0")),
    def("verify_dump", None, Bool, Refuse("candor writes no dump files; the Run keeps the first bad blocks, where they are and what differs"), Some("0")),
    def("verify_async", None, Number, VERIFY_INLINE, Some("0")),
    def("verify_backlog", None, Number, BACKLOG, None),
    def("verify_backlog_batch", None, Number, BACKLOG, None),
    def("verify_async_cpus", None, Choice, VERIFY_INLINE, None),
    def("experimental_verify", None, Bool, Refuse("candor remembers each write's offset and number (fio's io log), not experimental_verify's replay of its random sequence"), None),
    def("verify_state_load", None, Bool, Refuse("candor saves and loads no verify state; verify_only replays a size-bounded job whole"), None),
    def("verify_state_save", None, Bool, Quiet, Some("1")),
    def("trim_percentage", None, Number, TRIM, Some("0")),
    def("trim_verify_zero", None, Bool, Quiet, Some("1")),
    def("trim_backlog", None, Number, TRIM, None),
    def("trim_backlog_batch", None, Number, TRIM, None),
    def("write_iolog", None, Text, IOLOG, None),
    def("read_iolog", None, Text, IOLOG, None),
    def("read_iolog_chunked", None, Bool, IOLOG, Some("0")),
    def("replay_no_stall", None, Bool, IOLOG, Some("0")),
    def("replay_redirect", None, Text, IOLOG, None),
    def("replay_scale", None, Number, IOLOG, Some("1")),
    def("replay_align", None, Number, IOLOG, None),
    def("replay_time_scale", None, Number, IOLOG, Some("100")),
    def("replay_skip", None, Choice, IOLOG, None),
    def("merge_blktrace_file", None, Text, IOLOG, None),
    def("merge_blktrace_scalars", None, Floats, IOLOG, None),
    def("merge_blktrace_iters", None, Floats, IOLOG, None),
    def("exec_prerun", None, Text, Refuse("candor never runs commands named in a job file"), None),
    def("exec_postrun", None, Text, Refuse("candor never runs commands named in a job file"), None),
    def("ioscheduler", None, Text, Refuse("candor never changes the device's I/O scheduler"), None),
    def("zonemode", None, Choice, ZONES, Some("none")),
    def("zonesize", None, Number, ZONES, Some("0")),
    def("zonecapacity", None, Number, ZONES, Some("0")),
    def("zonerange", None, Number, ZONES, Some("0")),
    def("zoneskip", None, Number, ZONES, Some("0")),
    def("read_beyond_wp", None, Bool, ZONES, Some("0")),
    def("max_open_zones", None, Number, ZONES, Some("0")),
    def("job_max_open_zones", None, Number, ZONES, Some("0")),
    def("ignore_zone_limits", None, Bool, ZONES, Some("0")),
    def("zone_reset_threshold", None, Floats, ZONES, None),
    def("zone_reset_frequency", None, Floats, ZONES, None),
    def("lockmem", None, Number, Refuse("candor does not lock memory away from the page cache"), Some("0")),
    def("rwmixread", None, Number, Run, Some("50")),
    def("rwmixwrite", None, Number, Run, Some("50")),
    def("rwmixcycle", None, Deprecated, Quiet, None),
    def("nice", None, Number, PLACEMENT, Some("0")),
    def("prio", None, Number, Run, None),
    def("prioclass", None, Number, Run, None),
    def("thinktime", None, Time(MICROS), Run, Some("0")),
    def("thinktime_spin", None, Time(MICROS), Run, Some("0")),
    def("thinktime_blocks", None, Number, Run, Some("1")),
    def("thinktime_blocks_type", None, Choice, Run, Some("complete")),
    def("thinktime_iotime", None, Time(SECONDS), Refuse("candor pauses after a count of I/Os (thinktime_blocks), not after an interval of I/O time"), Some("0")),
    def("rate", None, Numbers, Run, None),
    def("rate_min", Some("ratemin"), Numbers, Run, None),
    def("rate_iops", None, Numbers, Run, None),
    def("rate_iops_min", None, Numbers, Run, None),
    def("rate_process", None, Choice, Run, Some("linear")),
    def("rate_cycle", Some("ratecycle"), Number, Run, Some("1000")),
    def("rate_ignore_thinktime", None, Bool, Refuse("candor's rate limit counts think time as fio's does by default: it catches up after a pause"), Some("0")),
    def("max_latency", None, Numbers, Refuse("candor does not stop a job on a latency limit"), None),
    def("latency_target", None, Time(MICROS), Refuse("candor does not search for a queue depth under a latency target"), None),
    def("latency_window", None, Time(MICROS), Quiet, None),
    def("latency_percentile", None, Floats, Quiet, Some("100")),
    def("latency_run", None, Bool, Quiet, Some("0")),
    def("invalidate", None, Bool, Run, Some("1")),
    def("sync", None, Choice, Run, Some("none")),
    def("write_hint", None, Choice, Refuse("candor sets no write lifetime hints"), None),
    def("create_serialize", None, Bool, Quiet, Some("1")),
    def("create_fsync", None, Bool, Quiet, Some("1")),
    def("create_on_open", None, Bool, Quiet, Some("0")),
    def("create_only", None, Bool, Refuse("candor measures; it does not only create files"), Some("0")),
    def("allow_file_create", None, Bool, Quiet, Some("1")),
    def("allow_mounted_write", None, Bool, Quiet, Some("0")),
    def("pre_read", None, Bool, Refuse("candor does not read files into the page cache before a job"), Some("0")),
    def("cpumask", None, Number, Run, None),
    def("cpus_allowed", None, Text, Run, None),
    def("cpus_allowed_policy", None, Choice, Run, Some("shared")),
    def("numa_cpu_nodes", None, Choice, PLACEMENT, None),
    def("numa_mem_policy", None, Choice, PLACEMENT, None),
    def("end_fsync", None, Bool, Run, Some("0")),
    def("fsync_on_close", None, Bool, Refuse("candor does not fsync when it closes a file (end_fsync is supported)"), Some("0")),
    def("unlink", None, Bool, Quiet, Some("0")),
    def("unlink_each_loop", None, Bool, Refuse("candor keeps its files for the whole run"), Some("0")),
    def("exitall", None, Flag, Run, None),
    def("exit_what", None, Choice, Run, Some("group")),
    def("exitall_on_error", None, Flag, Quiet, None),
    def("stonewall", Some("wait_for_previous"), Flag, Run, None),
    def("new_group", None, Flag, Run, None),
    def("thread", None, Flag, Quiet, None),
    // fio's tiobench profile registers `threads` in fio's one option table,
    // so a job file may set it (examples/waitfor.fio); it sets the profile's
    // thread count, nothing of the job.
    def("threads", None, Number, Note("an option of fio's tiobench profile (--profile=tiobench): in a job file it changes nothing, as in fio (it is not `thread`)"), None),
    def("per_job_logs", None, Bool, Quiet, Some("1")),
    def("write_bw_log", None, Choice, LOGS, None),
    def("write_lat_log", None, Choice, LOGS, None),
    def("write_iops_log", None, Choice, LOGS, None),
    def("log_entries", None, Number, Quiet, None),
    def("log_avg_msec", None, Number, Quiet, Some("0")),
    def("log_hist_msec", None, Number, Quiet, Some("0")),
    def("log_hist_coarseness", None, Number, Quiet, Some("0")),
    def("write_hist_log", None, Choice, LOGS, None),
    def("log_max_value", None, Bool, Quiet, Some("0")),
    def("log_offset", None, Bool, Quiet, Some("0")),
    def("log_prio", None, Bool, Quiet, Some("0")),
    def("log_compression", None, Number, Quiet, None),
    def("log_compression_cpus", None, Choice, Quiet, None),
    def("log_store_compressed", None, Bool, Quiet, None),
    def("log_unix_epoch", None, Bool, Quiet, None),
    def("log_alternate_epoch", None, Bool, Quiet, None),
    def("log_alternate_epoch_clock_id", None, Number, Quiet, None),
    def("block_error_percentiles", None, Bool, Quiet, Some("0")),
    def("bwavgtime", None, Number, Quiet, Some("500")),
    def("iopsavgtime", None, Number, Quiet, Some("500")),
    def("group_reporting", None, Flag, Run, None),
    def("stats", None, Bool, Quiet, Some("1")),
    def("zero_buffers", None, Flag, Run, None),
    def("refill_buffers", None, Flag, Run, None),
    def("scramble_buffers", None, Bool, Run, Some("1")),
    def("buffer_pattern", None, Choice, PAYLOAD, None),
    def("buffer_compress_percentage", None, Number, Run, None),
    def("buffer_compress_chunk", None, Number, Run, Some("512")),
    def("dedupe_percentage", None, Number, PAYLOAD, None),
    def("dedupe_global", None, Bool, PAYLOAD, Some("0")),
    def("dedupe_mode", None, Choice, Quiet, Some("repeat")),
    def("dedupe_working_set_percentage", None, Number, Quiet, Some("5")),
    def("clat_percentiles", None, Bool, REPORT, Some("1")),
    def("lat_percentiles", None, Bool, REPORT, Some("0")),
    def("slat_percentiles", None, Bool, REPORT, Some("0")),
    def("percentile_list", None, Floats, REPORT, None),
    def("significant_figures", None, Number, Quiet, Some("4")),
    def("disk_util", None, Bool, Quiet, Some("1")),
    def("gtod_reduce", None, Bool, Run, Some("0")),
    def("disable_lat", None, Bool, Run, Some("0")),
    def("disable_clat", None, Bool, Run, Some("0")),
    def("disable_slat", None, Bool, Quiet, Some("0")),
    def("disable_bw_measurement", Some("disable_bw"), Bool, Quiet, Some("0")),
    def("gtod_cpu", None, Number, Note("candor dedicates no CPU to its clock"), None),
    def("unified_rw_reporting", None, Choice, Note("candor reports reads and writes separately"), Some("none")),
    def("continue_on_error", None, Choice, Refuse("candor stops a job at its first I/O error"), Some("none")),
    def("ignore_error", None, Choice, Refuse("candor stops a job at its first I/O error"), None),
    def("error_dump", None, Bool, Quiet, Some("0")),
    def("profile", None, Text, Refuse("candor does not run fio's built-in profiles"), None),
    def("cgroup", None, Text, PLACEMENT, None),
    def("cgroup_nodelete", None, Bool, Quiet, Some("0")),
    def("cgroup_weight", None, Number, PLACEMENT, None),
    def("uid", None, Number, Refuse("candor does not change user"), None),
    def("gid", None, Number, Refuse("candor does not change group"), None),
    def("kb_base", None, Choice, Run, Some("1024")),
    def("unit_base", None, Choice, Note("candor reports bytes, in MB/s and MiB/s"), None),
    def("hugepage-size", None, Number, Quiet, None),
    def("flow_id", None, Number, Run, Some("0")),
    def("flow", None, Number, Run, Some("0")),
    def("flow_watermark", None, SoftDeprecated, Quiet, None),
    def("flow_sleep", None, Number, Run, Some("0")),
    def("steadystate", Some("ss"), Choice, Run, Some("iops_slope:0.01%")),
    def("steadystate_duration", Some("ss_dur"), Time(SECONDS), Run, Some("0")),
    def("steadystate_ramp_time", Some("ss_ramp"), Time(SECONDS), Run, Some("0")),
    // The options of the engines candor runs (io_uring, libaio and fio's
    // synchronous engines). fio knows them only with their engine.
    engine("hipri", Flag, Refuse("candor does not use polled I/O"), None, &["io_uring", "pvsync2"]),
    engine("hipri_percentage", Number, Refuse("candor does not use polled I/O"), Some("100"), &["pvsync2"]),
    engine("cmdprio_percentage", Number, PLACEMENT, None, &["io_uring", "libaio"]),
    engine("cmdprio_class", Number, PLACEMENT, None, &["io_uring", "libaio"]),
    engine("cmdprio", Number, PLACEMENT, None, &["io_uring", "libaio"]),
    engine("cmdprio_bssplit", Text, PLACEMENT, None, &["io_uring", "libaio"]),
    engine("fixedbufs", Flag, Note("candor registers its io_uring buffers whenever the memlock limit allows, and records whether it did"), None, &["io_uring"]),
    engine("registerfiles", Flag, Quiet, None, &["io_uring"]),
    engine("sqthread_poll", Flag, Refuse("candor does not use a kernel submission thread"), None, &["io_uring"]),
    engine("sqthread_poll_cpu", Number, Refuse("candor does not use a kernel submission thread"), None, &["io_uring"]),
    engine("nonvectored", Number, Quiet, None, &["io_uring"]),
    engine("uncached", Number, Refuse("candor does not use uncached buffered I/O"), Some("0"), &["io_uring", "pvsync2"]),
    engine("nowait", Bool, Refuse("candor does not submit with RWF_NOWAIT"), Some("0"), &["io_uring", "libaio", "pvsync2"]),
    engine("force_async", Number, Refuse("candor does not force io_uring's async punt"), Some("0"), &["io_uring"]),
    engine("cmd_type", Choice, Refuse("candor sends no passthrough commands"), Some("nvme"), &["io_uring"]),
    engine("stat_type", Choice, Run, Some("stat"), &["filestat", "dirstat"]),
    engine("userspace_reap", Flag, Refuse("candor reaps libaio completions with io_getevents"), None, &["libaio"]),
];

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_and_aliases_are_unique() {
        let mut seen = std::collections::HashSet::new();
        for o in all() {
            assert!(seen.insert(o.name), "duplicate {}", o.name);
            if let Some(a) = o.alias {
                assert!(seen.insert(a), "duplicate alias {a}");
            }
        }
        assert_eq!(find("readwrite").unwrap().name, "rw");
        assert_eq!(find("blocksize").unwrap().name, "bs");
        assert_eq!(find("ss_dur").unwrap().name, "steadystate_duration");
        assert_eq!(find("wait_for_previous").unwrap().name, "stonewall");
        assert!(find("blocksz").is_none());
    }

    #[test]
    fn every_refusal_says_why() {
        for o in all() {
            if let Support::Refuse(why) | Support::Note(why) = o.support {
                assert!(why.len() > 15, "{}: {why}", o.name);
            }
        }
    }
}
