//! One measurement from one fio job (one job entry, or its N clones): the
//! spec from fio's options as fio reads them, the figures of each
//! direction, the command that reproduces it, and notes on what differs
//! from candor's own measuring.

use super::import::options;
use super::jobfile::value::{self, KbBase};
use super::latency::{latency, lookup};
use super::merge::direction;
use super::output::{bad, FioOutput, ImportError};
use super::{f64_of, u64_of};
use crate::result::*;
use crate::units::{parse_duration, rfc3339_utc};
use serde_json::Value;
use std::path::Path;

/// One imported job.
pub(super) struct ImportedJob {
    pub measurement: DiskMeasurement,
    /// Plain-word notes (merges, fallbacks, sync latency, errors).
    pub notes: Vec<String>,
    /// fio reported an error for the job.
    pub error: bool,
    /// The directory of its file (`directory`, or `filename`'s parent).
    pub dir: Option<String>,
}

/// One measurement from a group of job entries (one, or N clones).
pub(super) fn measurement(
    out: &FioOutput,
    group: &[usize],
    jobname: &str,
    pass: u32,
) -> Result<ImportedJob, ImportError> {
    let jobs: Vec<&Value> = group.iter().map(|&i| &out.jobs[i]).collect();
    let first = jobs[0];
    let opts = options(&out.global, first);
    let path = &out.path;
    let mut notes: Vec<String> = Vec::new();
    let get = |k: &str| opts.get(k).map(|s| s.trim().to_string());
    let kb = match get("kb_base") {
        None => KbBase::Binary,
        Some(b) => KbBase::parse(&b)
            .map_err(|e| bad(path, format!("job {jobname}: option kb_base={b}: {e}")))?,
    };
    // fio prints a job's options from 2.3 on; before, none are in the file,
    // and fio's defaults would be guesses, not what ran.
    let printed = super::era::version_number(&out.version).is_some_and(|v| v >= (2, 3, 0))
        || first.get("job options").is_some()
        || !out.global.is_empty();
    let did = |key: &str| {
        jobs.iter()
            .any(|j| u64_of(j.get(key).unwrap_or(&Value::Null), "total_ios") > 0)
    };
    if !printed {
        notes.push(format!(
            "{} prints no job options: the pattern, block size and engine are unknown (recorded as rw=unknown, bs=0, engine unknown); depth, size and the other numbers shown are fio's defaults, not read from the file",
            out.version
        ));
    }
    let size_opt = |k: &str| -> Result<Option<u64>, ImportError> {
        match get(k) {
            None => Ok(None),
            Some(v) if v.ends_with('%') => Ok(None),
            Some(v) => {
                // fio allows "4k,8k" (read,write) and ranges "4k-16k": take the first.
                let first = v.split([',', '-', ':']).next().unwrap_or("").to_string();
                // fio's own units (16Mi, 4KiB = 4000 under its default kb_base).
                value::number(&first, kb)
                    .map(Some)
                    .map_err(|e| bad(path, format!("job {jobname}: option {k}={v}: {e}")))
            }
        }
    };
    let num = |k: &str, default: u32| -> Result<u32, ImportError> {
        match get(k) {
            None => Ok(default),
            Some(v) => v.parse().map_err(|_| {
                bad(
                    path,
                    format!("job {jobname}: option {k}={v} is not a number"),
                )
            }),
        }
    };
    let secs = |k: &str| -> Result<u64, ImportError> {
        match get(k) {
            None => Ok(0),
            Some(v) => parse_duration(&v)
                .map(|d| d.as_nanos() as u64)
                .map_err(|e| bad(path, format!("job {jobname}: option {k}={v}: {e}"))),
        }
    };
    // `randread:8` and the like: the pattern is before the colon.
    let rw = match get("rw").or_else(|| get("readwrite")).as_deref() {
        Some(text) => Rw::parse(text.split(':').next().unwrap_or(text)),
        // fio's default, read, did not write.
        None if printed && !did("write") => Rw::Read,
        None if printed => {
            notes.push("no rw option printed, yet the job wrote: its pattern is unknown (recorded as rw=unknown)".to_string());
            Rw::Other("unknown".to_string())
        }
        None => Rw::Other("unknown".to_string()),
    };
    if get("bs").is_some_and(|b| b.contains([',', '-', ':'])) {
        notes.push(format!(
            "bs={} has several sizes: the first is kept",
            get("bs").unwrap_or_default()
        ));
    }
    let bs = match size_opt("bs")? {
        Some(b) => b,
        None => match size_opt("blocksize")? {
            Some(b) => b,
            // fio's default block size, where the options were printed.
            None if printed => 4096,
            None => 0,
        },
    };
    let numjobs = num("numjobs", 1)?;
    let mixed = rw.is_mixed();
    let rwmixread = if mixed {
        match (get("rwmixread"), get("rwmixwrite")) {
            (Some(_), _) => Some(num("rwmixread", 50)?),
            (None, Some(_)) => Some(100u32.saturating_sub(num("rwmixwrite", 50)?)),
            _ => Some(50),
        }
    } else {
        None
    };
    let direct = get("direct").is_some_and(|d| d == "1" || d == "true")
        || get("buffered").is_some_and(|b| b == "0" || b == "false");
    let (fsync, fsync_name) = match (get("fsync"), get("fdatasync")) {
        (Some(_), _) => (num("fsync", 0)?, "fsync"),
        (None, Some(_)) => (num("fdatasync", 0)?, "fdatasync"),
        _ => (0, "fsync"),
    };
    if fsync_name == "fdatasync" && fsync > 0 {
        notes.push(format!("fdatasync={fsync} (recorded as fsync)"));
    }
    let engine = match get("ioengine") {
        Some(e) => e,
        None if printed => {
            notes.push("no ioengine given: fio's default psync".to_string());
            "psync".to_string()
        }
        None => "unknown".to_string(),
    };
    // fio's synchronous engines keep one I/O in flight whatever iodepth says
    // (fio prints "queue depth will be capped at 1"); record what ran.
    let mut iodepth = num("iodepth", 1)?;
    let sync_engine = matches!(
        engine.as_str(),
        "sync" | "psync" | "vsync" | "pvsync" | "pvsync2" | "mmap"
    );
    if sync_engine && iodepth > 1 {
        notes.push(format!(
            "iodepth={iodepth} asked, but the synchronous engine {engine} runs at 1 (recorded as 1)"
        ));
        iodepth = 1;
    }
    // iodepth_batch is fio's alias of iodepth_batch_submit: default 1, 0 means iodepth.
    let batch_key = if get("iodepth_batch_submit").is_some() {
        "iodepth_batch_submit"
    } else {
        "iodepth_batch"
    };
    let iodepth_batch = match num(batch_key, 1)? {
        0 => iodepth,
        n => n.min(iodepth),
    };
    // fio reaps at most iodepth_batch_complete_max completions per call
    // (default: iodepth_batch_complete_min, itself 1). The rest wait in the
    // ring, timed, so at depth fio's latency reads higher than candor's,
    // which reaps every ready completion at once (BENCHMARKS.md).
    let reap_max = match get("iodepth_batch_complete_max") {
        Some(_) => num("iodepth_batch_complete_max", 1)?,
        None => num("iodepth_batch_complete_min", 1)?,
    }
    .max(1);
    if iodepth > 1 && reap_max < iodepth {
        notes.push(format!(
            "fio reaped at most {reap_max} completion(s) per call (iodepth_batch_complete_max) at iodepth {iodepth}: its latency includes the time completions waited to be reaped, so it reads higher than candor's at the same depth"
        ));
    }
    let spec = DiskSpec {
        rw,
        rwmixread,
        bs,
        iodepth,
        iodepth_batch: Some(iodepth_batch),
        numjobs,
        size: size_opt("size")?.unwrap_or(0),
        runtime_ns: secs("runtime")?,
        ramp_ns: secs("ramp_time")?,
        engine,
        engine_note: None,
        registered_buffers: get("fixedbufs").map(|f| f != "0"),
        direct,
        fsync,
        seed: get("randseed").and_then(|s| s.parse().ok()).unwrap_or(0),
        ..Default::default()
    };
    // The command that reproduces the job: fio --name=... then the options.
    let mut cmd = super::command::FioCommand::named(jobname);
    for (k, v) in &opts {
        if k == "name" {
            continue;
        }
        if v.is_empty() {
            cmd.flag(k);
        } else {
            cmd.set(k, v);
        }
    }
    let cause = missing_latency_cause(&opts, printed);
    let (read, read_clones, mut n1) = direction(&jobs, "read", &cause);
    let (write, write_clones, n2) = direction(&jobs, "write", &cause);
    notes.append(&mut n1);
    notes.extend(n2);
    if group.len() == 1 && numjobs > 1 {
        notes.push(format!("numjobs={numjobs} reported as one entry (group_reporting): fio merged the clones itself; no per-thread figures"));
    }
    if group.len() > 1 && group.len() < numjobs as usize {
        notes.push(format!(
            "only {} of numjobs={numjobs} clone entries found",
            group.len()
        ));
    }
    let mut sync_stats = None;
    if let Some(sync) = first.get("sync").filter(|s| u64_of(s, "total_ios") > 0) {
        let l = latency(sync);
        let mut pct = [0u64; 5];
        for (i, p) in super::latency::KEPT.iter().enumerate() {
            pct[i] = lookup(&l.pct, *p).unwrap_or(0);
        }
        sync_stats = Some(super::merge::to_stats(sync, &l, pct));
        notes.push(format!(
            "fio times syncs separately: {} syncs, latency p50 {} p99 {} (kept as `sync`; a commit is the write plus its sync)",
            u64_of(sync, "total_ios"),
            crate::units::fmt_ns(lookup(&l.pct, 50.0).unwrap_or(0) as f64),
            crate::units::fmt_ns(lookup(&l.pct, 99.0).unwrap_or(0) as f64),
        ));
    }
    let mut error = false;
    for j in &jobs {
        let e = u64_of(j, "error");
        if e != 0 {
            error = true;
            notes.push(format!("fio reported error {e} for this job"));
        }
    }
    let threads = if group.len() > 1 {
        (0..group.len())
            .map(|i| ThreadStats {
                thread: i as u32,
                read: read_clones[i].clone(),
                write: write_clones[i].clone(),
            })
            .collect()
    } else {
        Vec::new()
    };
    let runtime_ms = jobs
        .iter()
        .map(|j| {
            let jr = u64_of(j, "job_runtime");
            if jr > 0 {
                jr
            } else {
                u64_of(j.get("read").unwrap_or(&Value::Null), "runtime")
                    .max(u64_of(j.get("write").unwrap_or(&Value::Null), "runtime"))
            }
        })
        .max()
        .unwrap_or(0);
    let cpu = CpuUse {
        usr_pct: jobs.iter().map(|j| f64_of(j, "usr_cpu")).sum(),
        sys_pct: jobs.iter().map(|j| f64_of(j, "sys_cpu")).sum(),
        steal_pct: 0.0,
        cpu_ns: 0,
        run_wait_ns: None,
    };
    let started_at = out.timestamp.map(|ts| {
        let elapsed = u64_of(first, "elapsed");
        rfc3339_utc(ts.saturating_sub(elapsed))
    });
    let dir = get("directory").or_else(|| {
        let f = get("filename")?;
        let parent = Path::new(f.split(':').next().unwrap_or(&f)).parent()?;
        Some(parent.display().to_string()).filter(|d| !d.is_empty())
    });
    Ok(ImportedJob {
        measurement: DiskMeasurement {
            profile: Some(jobname.to_string()),
            pass: Some(pass),
            role: FileRole::Main,
            started_at,
            spec,
            read,
            write,
            threads,
            cpu,
            measured_ns: runtime_ms * 1_000_000,
            file: None,
            span: None,
            sync: sync_stats,
            fio_command: cmd.line(),
            notes: Vec::new(),
            job: None,
            block_stack: Vec::new(),
            beside_other_jobs: false,
            device: None,
            verify: None,
        },
        notes,
        error,
        dir,
    })
}

/// Why fio printed no latency, or not every percentile candor keeps: the
/// option that turned it off, as the job's printed options say.
fn missing_latency_cause(
    opts: &std::collections::BTreeMap<String, String>,
    printed: bool,
) -> String {
    let on = |k: &str| {
        opts.get(k)
            .is_some_and(|v| v.is_empty() || matches!(v.trim(), "1" | "true" | "on" | "yes"))
    };
    let off = |k: &str| {
        opts.get(k)
            .is_some_and(|v| matches!(v.trim(), "0" | "false" | "off" | "no"))
    };
    if on("gtod_reduce") {
        "gtod_reduce=1 turns off fio's latency timing".to_string()
    } else if on("disable_lat") || on("disable_clat") {
        let k = if on("disable_clat") {
            "disable_clat"
        } else {
            "disable_lat"
        };
        format!("{k}=1 turns off fio's latency timing")
    } else if off("clat_percentiles") && !on("lat_percentiles") {
        "clat_percentiles=0: fio computed no percentiles".to_string()
    } else if let Some(list) = opts.get("percentile_list") {
        format!("percentile_list={list}: fio printed only those")
    } else if !printed {
        "the file holds no job options to say why".to_string()
    } else {
        "its printed options do not say why".to_string()
    }
}
