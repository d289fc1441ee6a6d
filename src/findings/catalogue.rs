//! The registry of findings, like a compiler's lint list: a stable id, a
//! title, the default severity, what it means, what it does not prove, a
//! long explanation for `candor explain ID`, and the named thresholds with
//! their current values. Ids are a contract: add, never rename.

use super::{
    cache, caps, cpu_bound, cross, drift, host, jobfile, limiter, round, series, stability, stack,
};
use crate::result::Severity;

/// One catalogued finding.
#[derive(Debug, Clone, Copy)]
pub struct FindingInfo {
    pub id: &'static str,
    pub title: &'static str,
    /// Severity when it fires (a not-checked finding is always `info`).
    pub severity: Severity,
    /// What it means when it fires (copied into each finding).
    pub meaning: &'static str,
    /// What it does not prove (copied into each finding).
    pub not_proven: &'static str,
    /// The long explanation: evidence, reasoning, what to do.
    pub explanation: &'static str,
    /// The thresholds it uses, by constant name.
    pub thresholds: &'static [(&'static str, f64)],
}

/// Every finding candor knows.
pub fn catalogue() -> &'static [FindingInfo] {
    CATALOGUE
}

/// The catalogue entry of `id`.
pub fn info(id: &str) -> Option<&'static FindingInfo> {
    CATALOGUE.iter().find(|f| f.id == id)
}

/// The thresholds `regressed` and `improved` share (one rule, both sides).
const DRIFT_THRESHOLDS: &[(&str, f64)] = &[
    ("DRIFT_WINDOW", drift::DRIFT_WINDOW as f64),
    ("DRIFT_MIN_EARLIER", drift::DRIFT_MIN_EARLIER as f64),
    ("DRIFT_FLOOR_DISK", drift::DRIFT_FLOOR_DISK),
    ("DRIFT_FLOOR_COMPUTE", drift::DRIFT_FLOOR_COMPUTE),
    ("DRIFT_MAD_K", drift::DRIFT_MAD_K),
];

static CATALOGUE: &[FindingInfo] = &[
    FindingInfo {
        id: "unixbench-page-cache",
        title: "UnixBench File Copy is mostly the page cache",
        severity: Severity::Info,
        meaning: "the File Copy figures measure the page cache and the filesystem's write path",
        not_proven: "anything about the disk's own speed",
        explanation: "UnixBench's File Copy writes a file of at most 8,000 KiB for 2 s, reads it for 2 s, then copies it into a second file for the timed pass, rewinding both: the file is in the page cache throughout and the written pages are rarely flushed in the pass. candor does the same so its figures compare, and says on which filesystem it ran (the work directory's). Use `candor disk` or `candor run` for the disk.",
        thresholds: &[],
    },
    FindingInfo {
        id: "unixbench-shell",
        title: "UnixBench Shell Scripts depend on /bin/sh and the tools",
        severity: Severity::Info,
        meaning: "the Shell Scripts figures measure the host's /bin/sh, sort, od, grep, tee and wc as much as the CPU",
        not_proven: "that two hosts with other shells or coreutils differ in hardware",
        explanation: "Each shell script sorts a small file, runs od into a numeric sort and grep into tee and wc: process creation, exec of dynamically linked tools and the shell's own start-up. dash and bash, or two coreutils versions, give different figures on the same hardware, and so do locales: sort and grep do more work in a UTF-8 one. UnixBench's Run sets LANG=en_US.utf8 for every test (the C locale where that is not installed), and candor's scripts run with the same. The finding names the /bin/sh that ran (its resolved path), the sort version and the locale.",
        thresholds: &[],
    },
    FindingInfo {
        id: "unixbench-compiler",
        title: "UnixBench's Dhrystone and Whetstone measure the compiler",
        severity: Severity::Info,
        meaning: "the Dhrystone 2 and Whetstone figures are the compiler's code as much as the CPU's speed",
        not_proven: "that two hosts whose UnixBench was built by different compilers or flags differ in hardware, or that candor's figure equals a UnixBench built on this host",
        explanation: "Dhrystone 2 is a few hundred lines of integer code, strings and records that an optimiser can inline, fold and vectorise to very different degrees; Whetstone's time goes to libm's sin, cos, atan, exp and log and to short floating-point chains that gcc's -ffast-math may reorder. UnixBench builds both on the host with its gcc and -O3 -ffast-math -march=native, so its figures follow the host's compiler version. candor's are written in Rust from the benchmarks' definitions and compiled by candor's rustc/LLVM (named in the finding; the same code on every host, without -march=native), with the work kept from being folded away (Dhrystone's second file never inlined into the loop, as separate C compilation keeps it; Whetstone's integer section, which reaches a fixed point, run as written). So a candor figure compares with other candor figures, not exactly with a UnixBench built on the host: the finding quotes how far apart the two were on candor's bench machine (BENCHMARKS.md, \"UnixBench's index\"). An imported UnixBench report's figures are its own programs', built by whatever compiler that host had.",
        thresholds: &[],
    },
    FindingInfo {
        id: "unixbench-execl",
        title: "UnixBench's Execl Throughput measures the binary it execs",
        severity: Severity::Info,
        meaning: "the Execl Throughput figure is the cost of loading candor's own binary as much as the kernel's exec",
        not_proven: "that two hosts whose candor was built differently (static or dynamic) differ in hardware, or that candor's figure equals UnixBench's execl on this host",
        explanation: "UnixBench's execl program execs itself until its time is up: a 24 KiB C program linked dynamically against libc alone, bound lazily. candor's Execl execs candor's own binary the same way, and what an exec costs depends on how that binary is built: a dynamic build loads its shared libraries (libc, libm, libgcc_s and the loader), binds every symbol at start and applies its relocations to pages it must then copy, about 145 page faults per exec on candor's bench machine and twice UnixBench's CPU time; the static build that `candor fleet` pushes (contrib/build-static.sh) needs no loader and no relocations and cost about what UnixBench's program did there. The finding names the binary, its mapped size, its shared libraries and its page faults per exec as measured on this host. Compare Execl figures of the same candor build; for UnixBench's own figure run candor's static build.",
        thresholds: &[],
    },
    FindingInfo {
        id: "unixbench-not-run",
        title: "a UnixBench index test did not run",
        severity: Severity::Info,
        meaning: "the index printed leaves this test out: it is a partial index",
        not_proven: "anything about the test that did not run",
        explanation: "UnixBench's System Benchmarks Index is the geometric mean of 12 tests. When candor could not run one (the shell tests without /bin/sh or one of their tools), the index of the rest is printed as a partial index and is not comparable with a full one.",
        thresholds: &[],
    },
    FindingInfo {
        id: "tmpfs",
        title: "test directory on tmpfs/ramfs",
        severity: Severity::Refusal,
        meaning: "the test directory is in RAM: disk figures would measure memory",
        not_proven: "anything about the disk",
        explanation: "candor checks the filesystem magic of the test directory with statfs (not its name) and refuses tmpfs and ramfs. On one Ubuntu release /tmp is a 1 GiB tmpfs; a 256 MiB \"disk\" test there gave 2.5 GB/s, a perfectly plausible NVMe figure. `candor analyze` reports this finding for a Run whose recorded filesystem is tmpfs or ramfs (an imported or hand-made result). Use a directory on the disk you mean, e.g. /var/tmp.",
        thresholds: &[],
    },
    FindingInfo {
        id: "host-cache",
        title: "reads served by a host cache",
        severity: Severity::Warning,
        meaning: "the main read figure is a cache (the hypervisor's or the array's), not the medium",
        not_proven: "how fast the medium is: only that the small file was not read from it; the control file's figure is nearer the medium",
        explanation: "O_DIRECT bypasses only the guest's page cache. The host's cache is invisible from inside a VM and cannot be disabled: a 1 GiB test file fits in it and, after the first read, is served from somebody else's RAM. The battery therefore repeats the read profiles on a control file larger than the guest's RAM. When the control file reads at less than HOST_CACHE_RATIO times the main file's rate, the main figure came from a cache. Real case: 1474.8 MB/s on the test file, 49.3 MB/s on the control file, a 30x drop. At QD1 the latency is compared too (HOST_CACHE_LATENCY_RATIO): with one request in flight the path's per-request overhead hides a cache in MB/s, not in the p50 of the requests it serves (planted here: 23 us against 110 us, 4.8x, while MB/s differed 1.45x). The control reads never read a byte twice (each sequential one continues where the previous stopped, across tests and passes, within its share of the file), so a control read that gets faster pass after pass (CONTROL_CLIMB_RATIO; real case 152, 675, 1058 MB/s) was served partly from a cache too, and the first, least cached pass is the one compared. Quote the control figure as the medium's.",
        thresholds: &[
            ("HOST_CACHE_RATIO", cache::HOST_CACHE_RATIO),
            ("HOST_CACHE_LATENCY_RATIO", cache::HOST_CACHE_LATENCY_RATIO),
            ("CONTROL_CLIMB_RATIO", cache::CONTROL_CLIMB_RATIO),
        ],
    },
    FindingInfo {
        id: "cache-unexcluded",
        title: "control series equal: only smaller caches excluded",
        severity: Severity::Info,
        meaning: "no cache smaller than the control file served the reads",
        not_proven: "that no cache served them: a host cache larger than the control file is not excluded",
        explanation: "The control test is asymmetric. A big drop on the large file is evidence of a cache (see host-cache); equal figures on both files exclude only caches smaller than the control file and prove nothing about larger ones. This finding records that the check ran, the ratio it saw, and the size it excludes, so that a report never turns \"not excluded\" into \"no cache\".",
        thresholds: &[("HOST_CACHE_RATIO", cache::HOST_CACHE_RATIO)],
    },
    FindingInfo {
        id: "residency",
        title: "file read many times over",
        severity: Severity::Warning,
        meaning: "one job read its file RESIDENCY_PASSES times or more: the file is probably resident in some cache",
        not_proven: "a cache by itself: a fast NVMe re-reads a small file many times too; the control series decides",
        explanation: "Bytes read in one job divided by the file size. Real case: 337 GB read from a 6 GB file in 30 s (56 times over, 11 GB/s). On a medium each re-read costs the full transfer; a file read that often at that speed is most likely in a cache. Where a control series of the same profile reads at least HOST_CACHE_RATIO of the main figure, the control has answered the question and this finding stays silent (a fast medium re-reads a small file many times too: 3 GB/s for 30 s is 84 times over 1 GiB).",
        thresholds: &[
            ("RESIDENCY_PASSES", cache::RESIDENCY_PASSES),
            ("HOST_CACHE_RATIO", cache::HOST_CACHE_RATIO),
        ],
    },
    FindingInfo {
        id: "limiter-flat",
        title: "passes identical: a limiter's setting",
        severity: Severity::Warning,
        meaning: "the figure is a QoS limiter's configured rate, not the medium",
        not_proven: "what the medium could do without the limiter",
        explanation: "Three passes of a profile spread in time normally differ by at least a few tenths of a percent (garbage collection, wear levelling, neighbours). A token bucket delivers its setting to the last digit. Real case: 40132.5, 40132.7 and 40132.6 IOPS over three passes (0.0005 %). Fires when (max - min) / median over passes is below LIMITER_FLAT_SPREAD. Needs two passes or more; with one pass it is not checked.",
        thresholds: &[("LIMITER_FLAT_SPREAD", limiter::LIMITER_FLAT_SPREAD)],
    },
    FindingInfo {
        id: "limiter-rw-equal",
        title: "read and write equal: one shared limit",
        severity: Severity::Warning,
        meaning: "reads and writes hit one shared counter (a limiter), not the medium",
        not_proven: "the medium's read or write speed",
        explanation: "Real media read and write at different speeds. When the read and the write of the same profile agree within LIMITER_RW_EQUAL (real case: 40329 vs 40327 IOPS, 0.005 %), both are being counted against one limit. Where read and write curves can cross at one point by chance (a sweep), a deeper point of the same block size, where a limit would hold too, must sit at the same level (within LIMITER_QD_FLAT) in both directions. The deepest pair of its shape has no such witness: it counts when its seconds show a metered rate (all but a quarter of each direction's per-second IOPS within LIMITER_HELD of their median; a cgroup throttle of 37,000 IOPS held it in every second of a quick battery's 3 s jobs, at most 0.87 % off) or when no seconds were recorded (fio's imports), and not when they wandered (this VM's unthrottled ceiling near 94,000 IOPS moved by percents from second to second, and once met itself within 0.01 % by chance). A direction whose seconds held a rate is compared at that rate, so a stray second (a journal commit) does not hide an equal limit.",
        thresholds: &[
            ("LIMITER_RW_EQUAL", limiter::LIMITER_RW_EQUAL),
            ("LIMITER_QD_FLAT", limiter::LIMITER_QD_FLAT),
            ("LIMITER_HELD", limiter::LIMITER_HELD),
        ],
    },
    FindingInfo {
        id: "limiter-qd-flat",
        title: "queue depth buys nothing",
        severity: Severity::Warning,
        meaning: "a bandwidth or IOPS shelf: deeper queues do not raise throughput",
        not_proven: "a limiter by itself: one spinning disk streaming, or a path that one large request already fills (1 MiB at QD1 on this project's VM: 1224 vs 1199 MB/s), is also flat across depths",
        explanation: "Any SSD or array gains throughput from a deeper queue until it saturates. When the same pattern and block size at QD1 and at QD4 or deeper agree within LIMITER_QD_FLAT (real case: 49.3 vs 49.2 MB/s at QD1 and QD8), the path is held at a shelf from the first request on. It is a warning (a limiter) where no medium does that alone: random blocks of LIMITER_QD_SMALL_BLOCK or less. A large or sequential pair is info, also when two large block sizes sit on one level: one large request can fill a path (this project's VM, unthrottled: 1224 vs 1199 MB/s at 1 MiB QD1 and QD8, and 256 KiB and 1 MiB at QD1 on one level), and an HDD streams at its media rate at any depth, so it is a ceiling, not told apart. Short points get a wider tolerance, LIMITER_WINDOW_S divided by the measured seconds, because a limiter enforces its rate over windows (cgroup: 100 ms slices).",
        thresholds: &[
            ("LIMITER_QD_SMALL_BLOCK", limiter::LIMITER_QD_SMALL_BLOCK as f64),
            ("LIMITER_QD_FLAT", limiter::LIMITER_QD_FLAT),
            ("LIMITER_QD_DEEP", limiter::LIMITER_QD_DEEP as f64),
            ("LIMITER_WINDOW_S", limiter::LIMITER_WINDOW_S),
        ],
    },
    FindingInfo {
        id: "round-plateau",
        title: "a figure on a round commercial step",
        severity: Severity::Warning,
        meaning: "probably a configured cap, in the unit named",
        not_proven: "a cap by itself: a round figure can be chance, which is why the plateau evidence (other figures at the same level, passes identical) is shown; without it the finding is only info",
        explanation: "Providers sell caps in round steps, and in one unit: 3,000 IOPS, 125 MiB/s, 500 MiB/s, 40,000 IOPS. Each figure is converted to IOPS, MB/s (10^6) and MiB/s (2^20) and compared with the steps 1, 1.25, 1.5, 2, 2.5, 3, 4, 5, 6, 7.5, 8 x 10^n. Real case: 526.0 MB/s is 501.6 MiB/s, i.e. 500 MiB/s; 126,076 IOPS x 4 KiB = 492.5 MiB/s sits near that same cap. The unit closest to its step is named; other figures within SHARED_CAP_TOLERANCE below the step are listed as sharing it. It is a warning when the level is a plateau: another figure of another block size shares it (in bytes/s, one of them a block of 64 KiB or less, or both at QD1: large blocks at depth all meet a path's own ceiling), or the passes agree within PLATEAU_PASS_SPREAD; otherwise it is info (\"maybe chance\": about one figure in ten is within 0.5 % of some step in one of three units).",
        thresholds: &[
            ("ROUND_TOLERANCE", round::ROUND_TOLERANCE),
            ("SHARED_CAP_TOLERANCE", round::SHARED_CAP_TOLERANCE),
            ("PLATEAU_PASS_SPREAD", round::PLATEAU_PASS_SPREAD),
            ("MIN_IOPS", round::MIN_IOPS),
            ("MIN_MB", round::MIN_MB),
        ],
    },
    FindingInfo {
        id: "caps",
        title: "IOPS and bandwidth caps and ceilings inferred from a sweep",
        severity: Severity::Warning,
        meaning: "the limits the sweep ran into: a cap where a configured limiter's fingerprints are there, a ceiling where the figures stop rising but a medium's own top could look the same",
        not_proven: "that a ceiling is configured, or that a cap is not the host's own per-request limit (a backend that serves N requests a second whatever their size looks like an IOPS cap). Caps above the largest block size and depth tested are not seen",
        explanation: "`candor sweep` runs random reads and writes at 4 KiB and 8 KiB (QD1, 4, 8, 16, 32, 64), 16 KiB, 64 KiB, 256 KiB and 1 MiB (QD1, 4, 16), plus sequential 1 MiB reads at QD1 and QD8, and again with more threads where one thread was CPU-bound. A plateau is where the figure stops rising: points within CAP_PLATEAU_TOLERANCE (plus two operations' worth for points that counted few) of one level, at two or more depths of one block size (equal figures at the deepest point of several sizes alone may be curves still rising), nothing above it by more than CAP_OVERSHOOT, fewer points above than on it, no deeper point of its block sizes climbing past it; a bandwidth plateau must span two block sizes (one size flat across depths is as well an IOPS plateau), and the IOPS plateau is sought among the points the bandwidth plateau does not explain. It is a cap when a limiter's fingerprints are there: one strong one (reached at QD1, for bandwidth at two block sizes one of which is a random block of 64 KiB or less, since a path's own ceiling is reached at QD1 by any block large enough to outweigh a request's fixed cost; the same IOPS at three or more block sizes within CAP_TIGHT_TOLERANCE, or a limiter's window share of short points, LIMITER_WINDOW_S / seconds; flat within that across four or more depths spanning 8x, for bandwidth only where the shallowest depth's bytes in flight are a small random block's) or two of the others (the same IOPS at two block sizes, or the same bandwidth at three; flat across three depths spanning 4x; a round figure, see round-plateau). Otherwise it is a ceiling (limiter or medium, not told apart). Real case: 40,000 read IOPS reachable only from QD4 (39,989 / 39,952 / 39,944 at QD8/16/32 under a cgroup throttle) next to a 300 MB/s bandwidth cap. Points where candor itself used a whole CPU are not evidence. The per-second series is no fingerprint: under a cgroup IOPS throttle its 100 ms rates vary as much as an unthrottled disk's. Evidence: read_iops, write_iops, read_bytes_per_sec, write_bytes_per_sec (caps, null where none), the *_ceiling fields, and each plateau with its kind, signs and points.",
        thresholds: &[
            ("CAP_PLATEAU_TOLERANCE", caps::CAP_PLATEAU_TOLERANCE),
            ("CAP_TIGHT_TOLERANCE", caps::CAP_TIGHT_TOLERANCE),
            ("CAP_OTHER_SPREAD", caps::CAP_OTHER_SPREAD),
            ("CAP_OVERSHOOT", caps::CAP_OVERSHOOT),
            ("CPU_BOUND_PCT", caps::CPU_BOUND_PCT),
            ("CAPS_MIN_BLOCK_SIZES", caps::CAPS_MIN_BLOCK_SIZES as f64),
        ],
    },
    FindingInfo {
        id: "burst-cliff",
        title: "a drop to a lower sustained level",
        severity: Severity::Warning,
        meaning: "burst credits or a cache ran out: the level after the cliff is the sustained one",
        not_proven: "how long the burst lasts on another day (credits refill), or that the later level holds beyond the test",
        explanation: "From the per-second series: the split with the largest drop where the median before is at least CLIFF_RATIO times the median after, with at least CLIFF_MIN_BEFORE seconds before and CLIFF_MIN_AFTER after, every earlier second above and every later second below the geometric middle of the two levels (so neither one fast first second nor one slow second is a level). Reports the level before and after, when the cliff came, and how much data passed before it. Real case: about 1.4 GB/s, then a shelf near 50 MB/s.",
        thresholds: &[
            ("CLIFF_RATIO", series::CLIFF_RATIO),
            ("CLIFF_MIN_POINTS", series::CLIFF_MIN_POINTS as f64),
            ("CLIFF_MIN_BEFORE", series::CLIFF_MIN_BEFORE as f64),
            ("CLIFF_MIN_AFTER", series::CLIFF_MIN_AFTER as f64),
        ],
    },
    FindingInfo {
        id: "write-back",
        title: "QD1 writes faster than QD1 reads",
        severity: Severity::Warning,
        meaning: "writes are acknowledged by a cache; write figures are acknowledgement speed",
        not_proven: "that the data is lost on power failure: a battery- or flash-backed cache is durable; only that the medium's write speed was not measured",
        explanation: "A medium that really programs data at QD1 is no faster on writes than on reads. When the QD1 write of a profile beats its QD1 read by more than WRITE_BACK_RATIO, a write-back cache acknowledged the writes before they reached the medium. A read held at a shelf (a deeper read of the same block size within READ_SHELF_MARGIN of QD1) is a read limit, and the pair is skipped.",
        thresholds: &[
            ("WRITE_BACK_RATIO", cache::WRITE_BACK_RATIO),
            ("READ_SHELF_MARGIN", cache::READ_SHELF_MARGIN),
        ],
    },
    FindingInfo {
        id: "unstable",
        title: "passes disagree",
        severity: Severity::Warning,
        meaning: "neighbours or throttling vary over time; the median hides it",
        not_proven: "which pass is \"right\": all are real; quote the range",
        explanation: "Passes run as rounds, spread in time. When max/min over passes reaches UNSTABLE_RATIO (real case: 4269, 4365 and 2901 MB/s, x1.50), quote the range, not just the median. Needs two passes or more. Other I/O on the device is weighed second by second where the layers' per-second counters were kept (the seconds foreign-io and burst-cliff read as shared): when the passes' rates in their seconds without other I/O (at least QUIET_MIN_SECONDS of them in a pass) agree within UNSTABLE_RATIO, the spread is that I/O's and the finding is information; when they still disagree it stays a warning, the disk's own spread; when fewer than two passes have such seconds, information if the slowest pass had other I/O in at least half its seconds, else a warning. Older Runs: the passes that shared the device over the whole measurement are named.",
        thresholds: &[
            ("UNSTABLE_RATIO", stability::UNSTABLE_RATIO),
            ("QUIET_MIN_SECONDS", stack::QUIET_MIN_SECONDS as f64),
        ],
    },
    FindingInfo {
        id: "thread-imbalance",
        title: "threads of one job served very differently",
        severity: Severity::Warning,
        meaning: "vCPU/SMT scheduling shaped the figure, not the disk or the CPU under test",
        not_proven: "a slow device: the total may still be right; use fewer threads than physical cores",
        explanation: "Per-thread figures of one multi-threaded job; fires when max/min reaches THREAD_IMBALANCE_RATIO (real case: three threads at 30k IOPS, one at 1.2k). Single-thread jobs cannot be imbalanced and are not reported; multi-thread jobs without per-thread figures are \"not checked\".",
        thresholds: &[("THREAD_IMBALANCE_RATIO", stability::THREAD_IMBALANCE_RATIO)],
    },
    FindingInfo {
        id: "sparse-file",
        title: "sparse test file",
        severity: Severity::Refusal,
        meaning: "reads of holes return zeros without touching the medium: read figures from this file are fake",
        not_proven: "anything about reads from that file",
        explanation: "A preallocated (fallocate) or sparse file reads back as zeros without I/O and gives \"completely fake, very high IOPS\". candor fills its files with random data and checks st_blocks * 512 >= size; this finding fires when a recorded file has fewer allocated bytes than its size (e.g. an imported fio run).",
        thresholds: &[],
    },
    FindingInfo {
        id: "not-steady",
        title: "no steady state reached",
        severity: Severity::Info,
        meaning: "the rate was still moving at the end: the figure belongs to this test length",
        not_proven: "where it settles: results after 1-2 hours can differ",
        explanation: "After SNIA's performance test specification: over the last half of the per-second series, the range (max - min) exceeds STEADY_RANGE of the mean and the least-squares slope's excursion across the window exceeds STEADY_SLOPE of it. 30 s to 5 min tests may measure caches and credits. Needs a series of STEADY_MIN_POINTS seconds or more.",
        thresholds: &[
            ("STEADY_RANGE", series::STEADY_RANGE),
            ("STEADY_SLOPE", series::STEADY_SLOPE),
            ("STEADY_MIN_POINTS", series::STEADY_MIN_POINTS as f64),
        ],
    },
    FindingInfo {
        id: "io-cpu-bound",
        title: "the CPU driving the I/O was busy all the time",
        severity: Severity::Warning,
        meaning: "the job's threads spent nearly all of their time on CPU (system calls, the virtual disk's notifications, interrupts): the figure may be the CPU's limit, not the disk's",
        not_proven: "that the disk is faster: only that these threads could not ask for more; rerun with more --numjobs (up to the core count) and see whether the figure grows",
        explanation: "candor's user + system CPU time over the measured interval, divided by the job's threads, as a percentage of one core. Fires at or above IO_CPU_BOUND_PCT for any disk test except the null engine's, and names the busiest. In a small VM a 4k I/O can cost several microseconds of CPU, so one thread tops out near 10^9 / (CPU ns per I/O) IOPS.",
        thresholds: &[("IO_CPU_BOUND_PCT", cpu_bound::IO_CPU_BOUND_PCT)],
    },
    FindingInfo {
        id: "foreign-io",
        title: "the device did I/O that candor did not issue",
        severity: Severity::Warning,
        meaning: "while candor measured, the device under the test file (or its whole disk) read or wrote bytes that were not candor's: another process shared the device, and the figure is a share of it",
        not_proven: "who did the other I/O (a backup, a database, writeback of earlier writes), nor how much faster the device is alone: rerun when it is quiet",
        explanation: "Each disk measurement keeps every stack layer's block counters (/sys/dev/block/MAJ:MIN/stat) over its measured interval. For direct-I/O measurements that ran alone: reads on the filesystem's device beyond what candor read (direct I/O reads no more than asked), writes while candor wrote nothing, and on a partition's whole disk what sibling partitions did. Fires when the foreign bytes of a measurement reach FOREIGN_MIN_BYTES and FOREIGN_MIN_SHARE of what the device did, or when its seconds that each had other I/O (FOREIGN_SECOND_MIN_BYTES and FOREIGN_MIN_SHARE of that second, from the layers' per-second counters against candor's per-second series) hold FOREIGN_MIN_BYTES together; a second's read surplus counts only beyond candor's deficit in the seconds beside it and beyond candor's bytes in flight (a thread late to reap moves bytes into the next second). Bytes, not requests: the kernel merges and splits requests. Not-checked when no stack was recorded.",
        thresholds: &[
            ("FOREIGN_MIN_BYTES", stack::FOREIGN_MIN_BYTES as f64),
            ("FOREIGN_MIN_SHARE", stack::FOREIGN_MIN_SHARE),
            ("FOREIGN_SECOND_MIN_BYTES", stack::FOREIGN_SECOND_MIN_BYTES as f64),
        ],
    },
    FindingInfo {
        id: "latency-above-device",
        title: "the requests waited above the device",
        severity: Severity::Warning,
        meaning: "the device under the test file served candor's requests much faster than candor saw them served: most of the latency was spent in the guest above the device (a cgroup I/O throttle, a request queue full at its nr_requests, or the CPU that submits and reaps), so the latency and IOPS figures are that limit's, not the device's",
        not_proven: "which limit it was when candor's threads slept (a throttle or a full queue), nor anything about the time inside the device (the hypervisor and the medium are both in the device's share); when the threads' wait for a CPU explains the time (information, not a warning), which other processes took the CPU",
        explanation: "Each disk measurement keeps the block counters of the layers under the test file over its measured interval. For direct-I/O measurements that ran alone, without fsync and with few merged requests (at most LATENCY_MAX_MERGE_SHARE of the device's requests: a merged request stands for several of candor's): candor's latency summed over its requests against the time the device's requests spent in the device, summed likewise (the kernel's read and write ticks, which count from the moment a request is queued to the device, after any cgroup throttle). Fires when candor's sum is at least LATENCY_ABOVE_DEVICE_RATIO times the device's and the difference is at least LATENCY_ABOVE_DEVICE_MIN_NS per request. Sums, not means: a large request split into several on the device counts each part once. Planted here: a cgroup throttle of 3,000 IOPS on RND4K Q32T1 gives 10.7 ms per request against the device's 0.36 ms (29x); the same job unthrottled 389 us against 301 us (1.29x). The evidence also gives the device's util (the share of the interval it had a request in flight) and its average queue depth. The time above the device is split by what candor's I/O threads did over the interval: their run-queue wait (each thread's /proc/thread-self/schedstat at its interval's start and end) and their time on a CPU; by Little's law the latency overlapping each is the summed latency times its share of the interval. A warning only when the rest (the threads asleep) still reaches both thresholds; otherwise information naming the CPU (other processes, cpu-steal, or candor's own submitting and reaping). Planted: two busy loops on candor's CPU with candor at nice 19, unthrottled: 47.5 ms against 543 us, all of it a wait for a CPU (information). On an import, fio's own disk_util is read the same way when the output held one job on one device: its means are compared, since fio counts over its whole run, and only when the device's requests are within FIO_REQUESTS_MAX_STRAY of the job's I/Os stretched over its ramp.",
        thresholds: &[
            ("LATENCY_ABOVE_DEVICE_RATIO", stack::LATENCY_ABOVE_DEVICE_RATIO),
            ("LATENCY_ABOVE_DEVICE_MIN_NS", stack::LATENCY_ABOVE_DEVICE_MIN_NS),
            ("LATENCY_MAX_MERGE_SHARE", stack::LATENCY_MAX_MERGE_SHARE),
            ("FIO_REQUESTS_MAX_STRAY", stack::FIO_REQUESTS_MAX_STRAY),
        ],
    },
    FindingInfo {
        id: "cache-layer",
        title: "a cache between the file and the disk served the reads",
        severity: Severity::Warning,
        meaning: "the layers below the test file saw a small share of the bytes candor read: a cache inside the guest (a loop device over the page cache, ZFS's ARC, bcache, a network filesystem's client cache) served the rest, so the read figures are that cache's",
        not_proven: "what the disk alone does; nor anything about caches outside the guest (the host's, which the control file checks)",
        explanation: "Over the Run's direct-I/O measurements that ran alone, candor's read bytes against the filesystem's devices, then each layer against the layers below it (a loop device's backing device, dm/md slaves). Fires at the first step where the lower side saw less than CACHE_LAYER_MAX_SHARE of the upper side's bytes, once candor read STACK_MIN_BYTES, and names the layer where the bytes disappear.",
        thresholds: &[
            ("CACHE_LAYER_MAX_SHARE", stack::CACHE_LAYER_MAX_SHARE),
            ("STACK_MIN_BYTES", stack::STACK_MIN_BYTES as f64),
        ],
    },
    FindingInfo {
        id: "write-amplification",
        title: "the devices wrote more than candor did",
        severity: Severity::Info,
        meaning: "the lowest layers under the test file wrote a multiple of candor's bytes (a mirrored filesystem, a journal, copy-on-write, RAID): the write figure is the disk's divided by that factor",
        not_proven: "which feature amplified (the layer is named, not the cause); writes a layer below buffers and writes back after a measurement are not counted in it",
        explanation: "Over the Run's direct-I/O measurements that ran alone, the written bytes of each step down the stack against the step above (candor's file to the filesystem's devices, a loop device to its backing device, dm/md to their slaves); the product of the steps is the factor. Fires at WRITE_AMPLIFICATION_MIN once candor wrote STACK_MIN_BYTES, naming the largest step.",
        thresholds: &[
            ("WRITE_AMPLIFICATION_MIN", stack::WRITE_AMPLIFICATION_MIN),
            ("STACK_MIN_BYTES", stack::STACK_MIN_BYTES as f64),
        ],
    },
    FindingInfo {
        id: "cpu-steal",
        title: "CPU steal during the measurements",
        severity: Severity::Warning,
        meaning: "neighbours took CPU time while we measured",
        not_proven: "how much each figure lost: steal is host-wide, not per test",
        explanation: "Steal time from /proc/stat over each measured interval, as a percentage of all CPUs' time. Fires above CPU_STEAL_PCT in any measurement and names the worst.",
        thresholds: &[("CPU_STEAL_PCT", host::CPU_STEAL_PCT)],
    },
    FindingInfo {
        id: "smt",
        title: "logical CPUs share cores",
        severity: Severity::Info,
        meaning: "threads beyond the core count share cores: all-thread figures do not scale like cores",
        not_proven: "how the host schedules vCPUs onto physical cores",
        explanation: "More logical CPUs than cores (diskspd inside a VM saw 10 CPUs but 5 cores). Multi-thread figures past the core count measure sharing, and disk jobs with more threads than cores show thread-imbalance.",
        thresholds: &[],
    },
    FindingInfo {
        id: "media-unverifiable",
        title: "disk type cannot be verified",
        severity: Severity::Info,
        meaning: "the disk type (NVMe, SSD, HDD) is the provider's claim",
        not_proven: "that the claim is false: only that it was not measured",
        explanation: "Inside a VM the guest sees virtio/QEMU/VMware/Hyper-V devices, no NVMe controller (or an emulated or network-backed one: EBS volumes appear as NVMe), and the ROTA flag is meaningless (1 on some hosts, 0 on others with identical configurations). Say \"claimed, not measured\".",
        thresholds: &[],
    },
    FindingInfo {
        id: "metric-disagreement",
        title: "two CPU metrics disagree about the gap between hosts",
        severity: Severity::Warning,
        meaning: "the anomaly is in a metric (compiler, library, one instruction), not in the machine",
        not_proven: "which metric is right for your workload",
        explanation: "Across hosts: for each pair of hosts, each integer CPU metric (prime counting, compression) gives a gap (host B / host A). When two metrics' gaps at the same thread count differ by DISAGREEMENT_FACTOR or more (real case: sysbench +118 %, 7-Zip +3 %), do not conclude that one machine is faster. A 1-thread gap is never set against an all-threads one: those differ whenever the hosts' core counts do.",
        thresholds: &[("DISAGREEMENT_FACTOR", cross::DISAGREEMENT_FACTOR)],
    },
    FindingInfo {
        id: "regressed",
        title: "worse than this host's usual range",
        severity: Severity::Warning,
        meaning: "this figure left the range of the host's own earlier Runs of the same workload, on the worse side, by more than their noise: something changed (the host, its neighbours, a limit, the plan)",
        not_proven: "that the change lasts, or what caused it: one Run is one sample; run again, and look at host_changed (CPU model, vCPUs, RAM, kernel) in the evidence for a migration or a resize",
        explanation: "From the history (`candor history`, `candor analyze --history`): each key figure (a test's headline rate, MB/s for blocks of 64 KiB or more and IOPS below; the p99 latency of QD1 and fsync tests; each compute rate) is compared with the same host's last DRIFT_WINDOW earlier Runs of the same workload (the normalised job, whatever the test was called). The noise is the larger of DRIFT_FLOOR_DISK (disk) or DRIFT_FLOOR_COMPUTE (compute) times their median and DRIFT_MAD_K robust standard deviations (1.4826 x the median absolute deviation). The usual range is the min..max of the earlier figures within the noise of their median (an odd earlier Run, such as the first after a change, does not widen it, so a lasting change keeps firing until it is most of the window), widened on each side by the noise: a new Run like the earlier ones falls outside their bare min..max with probability 2/(n+1). Below the widened range is worse for rates, above it is worse for latency. With fewer than DRIFT_MIN_EARLIER earlier Runs the check is not made. Evidence: the new value, the earlier median, usual min and max, MAD, count and outliers left out, their dates, the noise allowance, the change in percent.",
        thresholds: DRIFT_THRESHOLDS,
    },
    FindingInfo {
        id: "improved",
        title: "better than this host's usual range",
        severity: Severity::Info,
        meaning: "this figure left the range of the host's own earlier Runs of the same workload, on the better side, by more than their noise",
        not_proven: "that it lasts: a quiet hour on a shared host, a cache that happened to be warm, or burst credits that had refilled give better figures too; run again before quoting it",
        explanation: "The mirror of `regressed` (same rule, same thresholds): above the widened range for rates, below it for latency. A provider that moved the host to newer hardware, raised a limit or lost a noisy neighbour shows here; so does a lucky Run.",
        thresholds: DRIFT_THRESHOLDS,
    },
    FindingInfo {
        id: "app-read-chain",
        title: "a chain of dependent reads",
        severity: Severity::Info,
        meaning: "what a database query that reads pages one after another waits, from QD1 random read latencies",
        not_proven: "a query's real time: caches (shared buffers, page cache) serve many pages without I/O",
        explanation: "A web request's query is a chain of dependent 4-8 KiB reads (index page, heap page, join index): its time is the sum of the latencies. 200 pages at a QD1 p50 of 68 us is about 14 ms; at 142 us about 28 ms. p99 is the \"sometimes slow\".",
        thresholds: &[],
    },
    FindingInfo {
        id: "app-commit",
        title: "fsync-bound commit ceiling",
        severity: Severity::Info,
        meaning: "one writer that syncs every commit cannot commit faster than 1 / fsync latency",
        not_proven: "the rate with group commit or several writers, which share syncs",
        explanation: "Every commit fsyncs the write-ahead log: 2,000 commits/s at a p99 fsync of 620 us spend 1.2 s of every second waiting; at 28 us, 56 ms. From the FSYNC4K latencies.",
        thresholds: &[],
    },
    FindingInfo {
        id: "app-postgres-mysql",
        title: "PostgreSQL and MySQL/InnoDB",
        severity: Severity::Info,
        meaning: "they feel fsync latency (commits) and QD1 random reads (lookups)",
        not_proven: "throughput of a tuned server with a warm buffer pool",
        explanation: "Combines app-commit and app-read-chain into one line for PostgreSQL/MySQL.",
        thresholds: &[],
    },
    FindingInfo {
        id: "app-redis",
        title: "Redis appendfsync everysec",
        severity: Severity::Info,
        meaning: "fsync stalls show up as latency spikes",
        not_proven: "how often they happen under your write rate",
        explanation: "With appendfsync everysec Redis syncs its AOF once a second in the background; a slow fsync makes writes wait. The fsync p99.9 and worst case show the size of such stalls.",
        thresholds: &[],
    },
    FindingInfo {
        id: "app-merges",
        title: "ClickHouse/Elasticsearch merges",
        severity: Severity::Info,
        meaning: "background merges feel sequential bandwidth",
        not_proven: "merge time under concurrent queries, or with compression",
        explanation: "A merge reads parts and writes a new one: time ~ bytes / read bandwidth + bytes / write bandwidth, from the best sequential large-block figures.",
        thresholds: &[],
    },
    FindingInfo {
        id: "app-sqlite",
        title: "SQLite transactions",
        severity: Severity::Info,
        meaning: "each transaction syncs at least once: fsync latency bounds the transaction rate",
        not_proven: "the rate with synchronous=OFF or batched transactions",
        explanation: "In WAL mode a commit syncs the WAL once; with a rollback journal a transaction syncs the journal and the database (two or more syncs).",
        thresholds: &[],
    },
    FindingInfo {
        id: "job-concurrent",
        title: "jobs of a job file ran at the same time",
        severity: Severity::Warning,
        meaning: "the jobs shared the disk: each figure is its share while the others ran, not what the job gets alone",
        not_proven: "how the disk splits its capacity between them, or what any one of them would reach alone",
        explanation: "fio starts every job of a job file at once unless a stonewall (or wait_for) orders them; many job files copied from forums and providers' documents have several sections and no stonewall, so a sequential read, a random read and a write run together and each reports a fraction of a disk that is busy with the others. candor runs them the same way, so that its figures are the job file's, and records when each job ran (job.start_ns, job.end_ns). This finding names the jobs whose intervals overlapped and their figure together. To measure each pattern on its own, add stonewall to every section after the first (or to [global]).",
        thresholds: &[],
    },
    FindingInfo {
        id: "job-working-set",
        title: "a job file's working set fits in a cache",
        severity: Severity::Warning,
        meaning: "the files the jobs read and wrote fit in this machine's memory or in a plausible host cache: the figures can be a cache's, not the medium's",
        not_proven: "that a cache served them: only that one could have (the battery's control series, or files much larger than memory, tell)",
        explanation: "Job files often use a small size (size=100m, 1g) to finish quickly. A working set smaller than the guest's memory is held by the page cache for buffered jobs (fio's default, direct=0); one smaller than the host's memory can be held by the hypervisor's cache even with O_DIRECT, which bypasses only the guest's. METHODOLOGY: a 1 GiB test file fits in any host's RAM. The finding compares the total of the job file's files (each counted once, however many jobs share it) with the guest's memory and with HOST_CACHE_RAM_MULTIPLE times it, the same rule the battery uses for its control file. Run `candor run` for a control series, or give the job file a size well above twice the memory.",
        thresholds: &[("HOST_CACHE_RAM_MULTIPLE", jobfile::HOST_CACHE_RAM_MULTIPLE)],
    },
    FindingInfo {
        id: "job-short",
        title: "a size-bounded job over in a fraction of a second",
        severity: Severity::Warning,
        meaning: "the job ended when its threads had done their size, before a sustained rate could show: the figure is the start of a run",
        not_proven: "that the disk is slower or faster than the figure: only that the interval was too short to say",
        explanation: "Without time_based, fio stops a job when each thread has moved its size (times loops, or io_size); on a fast disk or from a cache, size=100m is over in tens of milliseconds. Such a figure is dominated by the start (queues filling, caches warm from the fill, a few slow operations weighing on few samples) and by timer resolution. The finding fires for size-bounded jobs measured for less than SHORT_JOB_NS. Use time_based with a runtime of tens of seconds, or a much larger size.",
        thresholds: &[("SHORT_JOB_NS", jobfile::SHORT_JOB_NS as f64)],
    },
    FindingInfo {
        id: "job-buffered",
        title: "buffered I/O in a job file",
        severity: Severity::Warning,
        meaning: "the jobs went through the page cache (direct=0, fio's default): reads may come from memory, writes are acknowledged once copied to it",
        not_proven: "that memory served every read: a working set larger than memory still reaches the disk for part of it",
        explanation: "fio's default is buffered I/O: a job file that does not say direct=1 measures the kernel's page cache as much as the disk, and a file smaller than memory is read from RAM after its first pass. candor runs such jobs as written (with fio's invalidate, dropping the file's cached pages before each job), and says so. For the disk, add direct=1.",
        thresholds: &[],
    },
    FindingInfo {
        id: "job-gtod-reduce",
        title: "gtod_reduce: fio would report no latency",
        severity: Severity::Info,
        meaning: "for these jobs fio measures no completion latency (gtod_reduce turns it off to save clock reads); candor's latency is its own, timed on every operation",
        not_proven: "that fio's throughput would match candor's: gtod_reduce also changes fio's own cost per operation",
        explanation: "gtod_reduce=1 makes fio skip most clock reads: its report then has bandwidth and IOPS but no latency percentiles. candor always times every operation (latency from submission to completion into an HDR histogram), so the latency in this Run has no counterpart in a fio run of the same file.",
        thresholds: &[],
    },
    FindingInfo {
        id: "job-randrepeat",
        title: "fio's default randrepeat: the same offsets on every run",
        severity: Severity::Info,
        meaning: "fio, run on this job file, reads and writes the same random offsets every time; candor drew fresh offsets (its seed is recorded)",
        not_proven: "that a cache flattered any fio figure: only that repeated fio runs give it the chance",
        explanation: "fio seeds its random offsets the same way on every run unless randrepeat=0 or a randseed is given, so a second run of the job file touches exactly the blocks the first one did, which a cache (the page cache, the host's, a drive's) may still hold. METHODOLOGY asks for fresh offsets unless a seed is given, so candor draws a new sequence each run and records the seed; set randseed to repeat one. When comparing with fio, run fio with randrepeat=0.",
        thresholds: &[],
    },
    FindingInfo {
        id: "job-reused-buffers",
        title: "fio would write buffers filled once",
        severity: Severity::Info,
        meaning: "without refill_buffers fio fills its write buffers once and only scrambles them; candor writes fresh random data every time",
        not_proven: "that the storage compresses or deduplicates: only that fio's figure would benefit if it did",
        explanation: "fio's default write buffers are filled at the start and reused, with a few bytes changed per write (scramble_buffers=1); a layer that compresses records larger than a block, or deduplicates, stores less than was written and can acknowledge faster. candor writes a freshly generated random block every time (BENCHMARKS.md, Write payloads), so on such storage its write figure can be lower than fio's for the same job file. Add refill_buffers to the job file to make fio do the same.",
        thresholds: &[],
    },
    FindingInfo {
        id: "claims",
        title: "what can be claimed, and what cannot",
        severity: Severity::Info,
        meaning: "plain sentences built from the findings and from what was not checked",
        not_proven: "anything beyond the sentences themselves",
        explanation: "The last finding of every analysis: evidence.can and evidence.cannot hold the sentences a report ends with. A check that could not run becomes a \"cannot\" sentence, never an \"ok\".",
        thresholds: &[],
    },
];

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ids_unique_and_explained() {
        for (i, f) in CATALOGUE.iter().enumerate() {
            assert!(
                CATALOGUE[i + 1..].iter().all(|g| g.id != f.id),
                "duplicate id {}",
                f.id
            );
            assert!(f.explanation.len() > 60, "{} has a thin explanation", f.id);
        }
        for id in [
            "host-cache",
            "cache-unexcluded",
            "residency",
            "limiter-flat",
            "limiter-rw-equal",
            "limiter-qd-flat",
            "round-plateau",
            "caps",
            "burst-cliff",
            "write-back",
            "unstable",
            "thread-imbalance",
            "sparse-file",
            "not-steady",
            "cpu-steal",
            "io-cpu-bound",
            "foreign-io",
            "cache-layer",
            "write-amplification",
            "latency-above-device",
            "smt",
            "media-unverifiable",
            "metric-disagreement",
            "tmpfs",
            "job-concurrent",
            "job-working-set",
            "job-short",
            "job-buffered",
            "job-gtod-reduce",
            "job-randrepeat",
            "job-reused-buffers",
            "regressed",
            "improved",
        ] {
            assert!(info(id).is_some(), "{id} missing from the catalogue");
        }
    }
}
