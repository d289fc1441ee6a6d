//! What a fio job file measures, whatever the disk (`candor disk --job`):
//! jobs that ran at the same time and shared the disk (`job-concurrent`),
//! a working set that any cache holds (`job-working-set`), size-bounded
//! jobs over in a fraction of a second (`job-short`), buffered I/O
//! (`job-buffered`), and where fio, run on the same file, would report
//! something else than candor: no latency under `gtod_reduce`
//! (`job-gtod-reduce`), the same offsets on every run (`job-randrepeat`),
//! write buffers filled once (`job-reused-buffers`); jobs whose operations
//! were calls on names, not data (`job-metadata`: fio's filecreate, ...).
//!
//! Pure functions of the Run: they read each measurement's `job` record
//! (its timeline, how it ended, the options in force) and the host's memory.
//! A Run without a job file gets none of them.

use super::{checked, not_checked, round_to};
use crate::result::{DiskMeasurement, Finding, Run};
use crate::units::{fmt_bytes, sig3};
use serde_json::json;

/// A size-bounded job that measured less than this is over too soon to
/// mean a sustained rate: caches still warm, queues still filling, and a
/// few slow operations weigh on the whole figure.
pub const SHORT_JOB_NS: u64 = 1_000_000_000;

/// A host's cache that a working set smaller than this many times the
/// guest's memory plausibly fits in. The battery sizes its control file by
/// the same rule (at least twice RAM), because the host that runs a VM has
/// more memory than the VM.
pub const HOST_CACHE_RAM_MULTIPLE: f64 = 2.0;

/// The jobs of a job file that measured, in order: a `verify_only` job
/// wrote nothing and measured nothing (it only read back what an earlier
/// run wrote; `data-corrupted`/`data-verified` say what it found).
fn jobs(run: &Run) -> Vec<&DiskMeasurement> {
    run.disk()
        .filter(|d| d.job.is_some() && !d.verify.as_ref().is_some_and(|v| v.only))
        .collect()
}

fn section(d: &DiskMeasurement) -> &str {
    d.job.as_ref().map_or("", |j| j.section.as_str())
}

/// The setting of `name` in force for a job (`bs=4k` → `4k`; a bare flag → "1").
fn option<'a>(d: &'a DiskMeasurement, name: &str) -> Option<&'a str> {
    d.job
        .as_ref()?
        .options
        .iter()
        .rev()
        .find_map(|o| match o.split_once('=') {
            Some((k, v)) if k == name => Some(v),
            None if o == name => Some("1"),
            _ => None,
        })
}

fn is_on(d: &DiskMeasurement, name: &str) -> bool {
    option(d, name).is_some_and(|v| v.parse::<u64>().is_ok_and(|n| n != 0))
}

/// `job-concurrent`: jobs whose intervals overlapped.
pub fn concurrent(run: &Run) -> Vec<Finding> {
    let jobs = jobs(run);
    let mut together: Vec<Vec<usize>> = Vec::new();
    for (i, a) in jobs.iter().enumerate() {
        let ja = a.job.as_ref().expect("job");
        let overlaps: Vec<usize> = jobs
            .iter()
            .enumerate()
            .filter(|(k, b)| {
                let jb = b.job.as_ref().expect("job");
                *k != i && ja.start_ns < jb.end_ns && jb.start_ns < ja.end_ns
            })
            .map(|(k, _)| k)
            .collect();
        if overlaps.is_empty() {
            continue;
        }
        // Jobs that overlap one another form one set.
        match together
            .iter_mut()
            .find(|set| set.contains(&i) || overlaps.iter().any(|o| set.contains(o)))
        {
            Some(set) => {
                for k in std::iter::once(i).chain(overlaps) {
                    if !set.contains(&k) {
                        set.push(k);
                    }
                }
            }
            None => together.push(std::iter::once(i).chain(overlaps).collect()),
        }
    }
    together
        .into_iter()
        .map(|mut set| {
            set.sort_unstable();
            let names: Vec<&str> = set.iter().map(|&k| section(jobs[k])).collect();
            let start = set.iter().map(|&k| jobs[k].job.as_ref().unwrap().start_ns).min().unwrap_or(0);
            let end = set.iter().map(|&k| jobs[k].job.as_ref().unwrap().end_ns).max().unwrap_or(0);
            let total: f64 = set.iter().map(|&k| jobs[k].total_bytes_per_sec()).sum();
            checked(
                "job-concurrent",
                Some(names.join(", ")),
                format!(
                    "{} ran at the same time (no stonewall between them): each figure is that job's share of the disk, {} MB/s together, not what it gets alone",
                    names.join(", "),
                    sig3(total / 1e6)
                ),
                json!({
                    "jobs": names,
                    "from_ns": start,
                    "to_ns": end,
                    "together_bytes_per_sec": round_to(total, 0),
                }),
            )
        })
        .collect()
}

/// `job-working-set`: the jobs' files fit this machine's memory, and a
/// plausible host cache.
pub fn working_set(run: &Run) -> Vec<Finding> {
    let jobs = jobs(run);
    if jobs.is_empty() {
        return Vec::new();
    }
    let mut paths: Vec<(&str, u64)> = Vec::new();
    // A device job has no file: the span of the device its jobs used.
    let mut devices: Vec<(&str, u64, u64)> = Vec::new();
    for d in jobs.iter().filter(|d| d.spec.metadata.is_none()) {
        for f in &d.job.as_ref().expect("job").files {
            if !paths.iter().any(|(p, _)| *p == f.path) {
                paths.push((&f.path, f.size));
            }
        }
        if let Some(io) = &d.device {
            match devices.iter_mut().find(|(p, _, _)| *p == io.device) {
                Some(span) => {
                    span.1 = span.1.min(io.region[0]);
                    span.2 = span.2.max(io.region[1]);
                }
                None => devices.push((&io.device, io.region[0], io.region[1])),
            }
        }
    }
    let working_set: u64 = paths.iter().map(|(_, s)| s).sum::<u64>()
        + devices.iter().map(|(_, a, b)| b - a).sum::<u64>();
    let what = if devices.is_empty() {
        "the job file's files total"
    } else {
        "the job file's files and device regions total"
    };
    let Some(ram) = run.host.mem_total_bytes else {
        return vec![not_checked(
            "job-working-set",
            "the host's memory is not recorded: whether the job file's files fit in a cache was not checked".into(),
            "host memory",
        )];
    };
    let host_cache = (ram as f64 * HOST_CACHE_RAM_MULTIPLE) as u64;
    let data_jobs = jobs.iter().any(|d| d.spec.metadata.is_none());
    if working_set >= host_cache || !data_jobs {
        return Vec::new();
    }
    let buffered = jobs.iter().any(|d| !d.spec.direct);
    let which = if working_set < ram {
        format!(
            "less than this machine's memory ({}){}",
            fmt_bytes(ram),
            if buffered {
                ", where buffered jobs read it from the page cache"
            } else {
                ""
            }
        )
    } else {
        format!(
            "more than this machine's memory ({}) but less than a host's cache may hold ({}x it)",
            fmt_bytes(ram),
            HOST_CACHE_RAM_MULTIPLE
        )
    };
    vec![checked(
        "job-working-set",
        None,
        format!(
            "{what} {}, {which}: short tests of a small file measure cache, not the medium",
            fmt_bytes(working_set)
        ),
        json!({
            "working_set_bytes": working_set,
            "mem_total_bytes": ram,
            "threshold_host_cache_bytes": host_cache,
            "buffered_jobs": buffered,
        }),
    )]
}

/// `job-short`: size-bounded jobs that measured less than `SHORT_JOB_NS`.
pub fn short(run: &Run) -> Vec<Finding> {
    jobs(run)
        .into_iter()
        .filter(|d| d.job.as_ref().is_some_and(|j| j.ended_by == "size") && d.measured_ns < SHORT_JOB_NS)
        .map(|d| {
            let bytes = d.read.as_ref().map_or(0, |s| s.bytes) + d.write.as_ref().map_or(0, |s| s.bytes);
            checked(
                "job-short",
                Some(section(d).to_string()),
                format!(
                    "{} ended after {} s, when its threads had done their size ({} measured): a fraction of a second measures the start, not a sustained rate",
                    section(d),
                    sig3(d.measured_ns as f64 / 1e9),
                    fmt_bytes(bytes)
                ),
                json!({
                    "job": section(d),
                    "measured_ns": d.measured_ns,
                    "bytes": bytes,
                    "threshold_ns": SHORT_JOB_NS,
                }),
            )
        })
        .collect()
}

/// One finding `id` naming the jobs `pick` selects, or none.
fn naming(
    run: &Run,
    id: &str,
    pick: impl Fn(&DiskMeasurement) -> bool,
    verdict: impl Fn(&str) -> String,
) -> Vec<Finding> {
    let names: Vec<&str> = jobs(run)
        .into_iter()
        .filter(|d| pick(d))
        .map(section)
        .collect();
    if names.is_empty() {
        return Vec::new();
    }
    let list = names.join(", ");
    vec![checked(
        id,
        Some(list.clone()),
        verdict(&list),
        json!({ "jobs": names }),
    )]
}

/// `job-buffered`: jobs that went through the page cache.
pub fn buffered(run: &Run) -> Vec<Finding> {
    naming(
        run,
        "job-buffered",
        |d| !d.spec.direct && d.spec.metadata.is_none(),
        |list| {
            format!("{list} used buffered I/O (direct=0, fio's default): reads may come from memory and writes are done when copied to it")
        },
    )
}

/// `job-gtod-reduce`: jobs for which fio would have measured no latency.
pub fn gtod_reduce(run: &Run) -> Vec<Finding> {
    naming(
        run,
        "job-gtod-reduce",
        |d| is_on(d, "gtod_reduce"),
        |list| {
            format!("{list} set gtod_reduce: fio reports no latency for them; the latency here is candor's, timed on every operation")
        },
    )
}

/// `job-randrepeat`: random jobs left at fio's default of repeating the
/// same offsets on every run.
pub fn randrepeat(run: &Run) -> Vec<Finding> {
    let names: Vec<(&str, u64)> = jobs(run)
        .into_iter()
        .filter(|d| {
            // A verifying job's offsets repeat from run to run (lowering
            // seeds them from its section, for verify_only).
            d.spec.rw.is_random()
                && option(d, "randrepeat").is_none()
                && option(d, "randseed").is_none()
                && d.verify.is_none()
        })
        .map(|d| (section(d), d.spec.seed))
        .collect();
    if names.is_empty() {
        return Vec::new();
    }
    let list: Vec<&str> = names.iter().map(|(n, _)| *n).collect();
    vec![checked(
        "job-randrepeat",
        Some(list.join(", ")),
        format!(
            "{} left randrepeat at fio's default: fio reads and writes the same offsets on every run; candor drew fresh ones (the seed is recorded), so a cache a previous fio run filled flatters fio's figure, not candor's",
            list.join(", ")
        ),
        json!({
            "jobs": list,
            "seeds": names.iter().map(|(_, s)| s).collect::<Vec<_>>(),
        }),
    )]
}

/// `job-reused-buffers`: writing jobs for which fio would refill nothing.
pub fn reused_buffers(run: &Run) -> Vec<Finding> {
    let scramble_off = jobs(run)
        .into_iter()
        .any(|d| option(d, "scramble_buffers") == Some("0"));
    let mut f = naming(
        run,
        "job-reused-buffers",
        // Compressible data and zeros: fio refills or zeroes them as candor does.
        |d| d.spec.rw.writes() && !is_on(d, "refill_buffers") && d.spec.write_data.is_none(),
        |list| {
            format!(
                "{list} write without refill_buffers: fio would fill its buffers once and {}; candor writes fresh random data, so on storage that compresses or deduplicates fio's figure can be higher",
                if scramble_off { "write the same bytes again" } else { "only scramble a few bytes of them" }
            )
        },
    );
    for finding in &mut f {
        finding.evidence["scramble_buffers"] = json!(!scramble_off);
    }
    f
}

/// `job-compressible-data`: jobs that wrote compressible data or zeros
/// (`buffer_compress_percentage`, `zero_buffers`): on storage that
/// compresses or deduplicates, their write figure is not the medium's.
pub fn compressible_data(run: &Run) -> Vec<Finding> {
    let mut f = naming(
        run,
        "job-compressible-data",
        |d| d.spec.write_data.is_some(),
        |list| {
            format!("{list} wrote compressible data or zeros, as the job file asks: storage that compresses or deduplicates stores less than was written, so the write figure is of that data on this stack, not of the medium")
        },
    );
    for finding in &mut f {
        let data: Vec<&str> = jobs(run)
            .into_iter()
            .filter_map(|d| d.spec.write_data.as_deref())
            .collect();
        finding.evidence["write_data"] = json!(data);
    }
    f
}

/// `job-metadata`: jobs of fio's metadata engines (filecreate, filestat,
/// filedelete, dircreate, dirstat, dirdelete): each operation was a call on
/// a name, no data moved; their IOPS are the filesystem's, not the medium's.
pub fn metadata(run: &Run) -> Vec<Finding> {
    let mut f = naming(
        run,
        "job-metadata",
        |d| d.spec.metadata.is_some(),
        |list| {
            format!("{list} made filesystem calls, one per name (fio's metadata engines), and moved no data: their IOPS are operations of this filesystem's metadata path (its journal, directory locks, the inode cache), not of the medium, and their MB/s are fio's fake bytes")
        },
    );
    for finding in &mut f {
        let what: Vec<&str> = jobs(run)
            .into_iter()
            .filter_map(|d| d.spec.metadata.as_deref())
            .collect();
        finding.evidence["metadata"] = json!(what);
    }
    f
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::findings::synth;
    use crate::result::{JobInfo, TestFileInfo};

    fn job_run(specs: &[(&str, &str, u64, u64, &str, bool)]) -> Run {
        let mut run = synth::run();
        run.host.mem_total_bytes = Some(8 << 30);
        for (name, rw, start, end, ended_by, direct) in specs {
            let mut m = synth::job(Some(name), rw, 4096, 1, 1, 1000.0);
            let d = synth::dm(&mut m);
            d.spec.direct = *direct;
            d.measured_ns = end - start;
            d.job = Some(JobInfo {
                section: name.to_string(),
                start_ns: *start,
                end_ns: *end,
                ended_by: ended_by.to_string(),
                options: vec!["size=100m".into()],
                files: vec![TestFileInfo {
                    path: "/var/tmp/.candor-job-x-1-0.tmp".into(),
                    size: 100 << 20,
                    allocated_bytes: 100 << 20,
                    ..Default::default()
                }],
                ..Default::default()
            });
            run.measurements.push(m);
        }
        run
    }

    #[test]
    fn overlapping_jobs_share_the_disk() {
        let run = job_run(&[
            ("a", "read", 0, 500, "size", true),
            ("b", "randread", 100, 900, "size", true),
            ("c", "write", 1000, 2000, "size", true),
        ]);
        let f = concurrent(&run);
        assert_eq!(f.len(), 1);
        assert_eq!(f[0].evidence["jobs"], json!(["a", "b"]));
        let alone = job_run(&[
            ("a", "read", 0, 500, "size", true),
            ("c", "write", 600, 900, "size", true),
        ]);
        assert!(concurrent(&alone).is_empty());
        assert!(concurrent(&synth::run()).is_empty());
    }

    #[test]
    fn a_device_jobs_region_is_its_working_set() {
        let mut run = job_run(&[
            ("a", "read", 0, 200_000_000, "size", true),
            ("b", "write", 0, 200_000_000, "size", true),
        ]);
        for (m, region) in run
            .measurements
            .iter_mut()
            .zip([[8u64 << 20, 40 << 20], [36 << 20, 48 << 20]])
        {
            let d = synth::dm(m);
            d.job.as_mut().unwrap().files.clear();
            d.device = Some(crate::result::DeviceJobIo {
                device: "/dev/sdz".into(),
                job: d.profile.clone().unwrap_or_default(),
                written_bytes: 0,
                region,
            });
        }
        let w = working_set(&run);
        assert_eq!(
            w[0].evidence["working_set_bytes"],
            json!(40u64 << 20),
            "the span 8m-48m"
        );
        assert!(
            w[0].verdict.contains("device regions total 40 MiB"),
            "{}",
            w[0].verdict
        );
    }

    #[test]
    fn small_short_buffered() {
        let run = job_run(&[
            ("a", "read", 0, 200_000_000, "size", false),
            ("b", "randwrite", 0, 5_000_000_000, "runtime", true),
        ]);
        let w = working_set(&run);
        assert_eq!(w.len(), 1);
        assert_eq!(
            w[0].evidence["working_set_bytes"],
            json!(100u64 << 20),
            "the shared file counts once"
        );
        assert!(
            w[0].verdict.contains("less than this machine's memory"),
            "{}",
            w[0].verdict
        );
        let s = short(&run);
        assert_eq!(s.len(), 1);
        assert_eq!(s[0].subject.as_deref(), Some("a"));
        assert_eq!(buffered(&run)[0].evidence["jobs"], json!(["a"]));
        assert_eq!(randrepeat(&run)[0].evidence["jobs"], json!(["b"]));
        assert_eq!(reused_buffers(&run)[0].evidence["jobs"], json!(["b"]));
        let mut no_mem = run.clone();
        no_mem.host.mem_total_bytes = None;
        assert_eq!(
            working_set(&no_mem)[0].status,
            crate::result::FindingStatus::NotChecked
        );
        let mut big = run;
        big.host.mem_total_bytes = Some(10 << 20);
        assert!(
            working_set(&big).is_empty(),
            "a working set above twice RAM"
        );
    }

    #[test]
    fn what_fio_would_report_differently() {
        let mut run = job_run(&[("a", "randwrite", 0, 2_000_000_000, "runtime", true)]);
        let opts = &mut synth::dm(&mut run.measurements[0])
            .job
            .as_mut()
            .unwrap()
            .options;
        opts.extend([
            "gtod_reduce=1".to_string(),
            "refill_buffers".into(),
            "randseed=5".into(),
        ]);
        assert_eq!(gtod_reduce(&run).len(), 1);
        assert!(reused_buffers(&run).is_empty());
        assert!(randrepeat(&run).is_empty());
    }

    /// A verifying random job repeats its offsets (no job-randrepeat); a
    /// verify_only job measured nothing: no finding about its figures.
    #[test]
    fn verifying_jobs_and_verify_only() {
        use crate::result::VerifyRecord;
        let mut run = job_run(&[("v", "randwrite", 0, 1000, "size", true)]);
        assert_eq!(randrepeat(&run).len(), 1);
        assert_eq!(short(&run).len(), 1);
        let d = synth::dm(&mut run.measurements[0]);
        d.verify = Some(VerifyRecord {
            algorithm: "crc32c".into(),
            ..Default::default()
        });
        assert!(randrepeat(&run).is_empty());
        assert_eq!(short(&run).len(), 1, "it wrote and measured");
        synth::dm(&mut run.measurements[0])
            .verify
            .as_mut()
            .unwrap()
            .only = true;
        assert!(short(&run).is_empty() && working_set(&run).is_empty());
        assert!(reused_buffers(&run).is_empty());
    }

    /// Compressible data is named, with what it was; random data is not,
    /// and fio refills compressible buffers, so no job-reused-buffers.
    #[test]
    fn compressible_data_is_named_with_what_it_was() {
        let mut run = job_run(&[
            ("c", "write", 0, 2_000_000_000, "size", true),
            ("r", "randwrite", 0, 2_000_000_000, "size", true),
        ]);
        assert!(compressible_data(&run).is_empty(), "random data");
        synth::dm(&mut run.measurements[0]).spec.write_data = Some("50 % compressible".into());
        let f = compressible_data(&run);
        assert_eq!(f[0].evidence["jobs"], json!(["c"]));
        assert_eq!(f[0].evidence["write_data"], json!(["50 % compressible"]));
        assert!(f[0].verdict.contains("not of the medium"));
        assert_eq!(reused_buffers(&run)[0].evidence["jobs"], json!(["r"]));
    }
}
