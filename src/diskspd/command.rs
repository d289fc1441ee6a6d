//! DiskSpd command lines: a parsed command in DiskSpd's own spelling, and
//! the DiskSpd line that runs one of candor's jobs (so that a Windows user
//! can check candor's figure with the tool the write-ups use). A job that
//! DiskSpd cannot express gets no line, and the reason.

use super::parse::{DiskSpdAccess, DiskSpdCommand, DiskSpdRate, WriteData};
use crate::result::DiskSpec;

/// The flags of `c`, DiskSpd's spelling, defaults included (so the line
/// says everything it does).
pub fn flags(c: &DiskSpdCommand) -> Vec<String> {
    let mut f = vec![
        format!("-b{}", size(c.block_size)),
        format!("-t{}", c.threads),
        format!("-o{}", c.outstanding),
        format!("-w{}", c.write_percent),
    ];
    match c.access {
        DiskSpdAccess::Random { align } if align == c.block_size => f.push("-r".into()),
        DiskSpdAccess::Random { align } => f.push(format!("-r{}", size(align))),
        DiskSpdAccess::Sequential { stride } if stride == c.block_size => f.push("-s".into()),
        DiskSpdAccess::Sequential { stride } => f.push(format!("-s{}", size(stride))),
    }
    f.push(format!("-d{}", c.duration_s));
    f.push(format!("-W{}", c.warmup_s));
    if c.cooldown_s > 0 {
        f.push(format!("-C{}", c.cooldown_s));
    }
    match (c.os_cache, c.write_through) {
        (false, true) => f.push("-Sh".into()),
        (false, false) => f.push("-Su".into()),
        (true, true) => f.push("-Sbw".into()),
        (true, false) => {}
    }
    if let Some(s) = c.create_size {
        f.push(format!("-c{}", size(s)));
    }
    match (c.base_offset, c.max_offset) {
        (0, Some(m)) => f.push(format!("-f{}", size(m))),
        (b, Some(m)) => f.push(format!("-B{}:{}", size(b), size(m - b))),
        (0, None) => {}
        (b, None) => f.push(format!("-B{}", size(b))),
    }
    if c.thread_stride > 0 {
        f.push(format!("-T{}", size(c.thread_stride)));
    }
    match c.write_data {
        WriteData::Pattern => {}
        WriteData::RandomPerWrite => f.push("-Zr".into()),
        WriteData::RandomBuffer(n) => f.push(format!("-Z{}", size(n))),
    }
    match c.seed {
        Some(0) => {}
        Some(s) => f.push(format!("-z{s}")),
        None => f.push("-z".into()),
    }
    match c.rate {
        Some(DiskSpdRate::BytesPerMs(n)) => f.push(format!("-g{n}")),
        Some(DiskSpdRate::Iops(n)) => f.push(format!("-g{n}i")),
        None => {}
    }
    if c.no_affinity {
        f.push("-n".into());
    }
    match c.iops_interval_ms {
        Some(ms) => f.push(format!("-D{ms}")),
        None => f.push("-D".into()),
    }
    f.push("-L".into());
    f
}

/// The DiskSpd line that runs the job `spec` (as it ran) on `target`, or
/// why DiskSpd cannot run it.
pub fn for_job(spec: &DiskSpec, target: &str) -> Result<String, String> {
    use crate::result::Rw;
    let whole_seconds = |ns: u64, what: &str| {
        if ns % 1_000_000_000 == 0 {
            Ok(ns / 1_000_000_000)
        } else {
            Err(format!("DiskSpd counts {what} in whole seconds"))
        }
    };
    let write_percent = match &spec.rw {
        Rw::Read | Rw::Randread => 0,
        Rw::Write | Rw::Randwrite => 100,
        Rw::ReadWrite | Rw::Randrw => 100 - spec.rwmixread.unwrap_or(50).min(100),
        Rw::Other(name) => return Err(format!("DiskSpd has no {name} I/O")),
    };
    let random = spec.rw.is_random();
    if !random && spec.numjobs > 1 {
        return Err("candor's sequential threads each keep to their own part of the file; DiskSpd's wrap at the file's end".into());
    }
    if spec.fsync > 0 || spec.end_fsync == Some(true) {
        return Err("DiskSpd does not sync the file after writes".into());
    }
    let unsupported = [
        (spec.block_sizes.is_some(), "mixed block sizes"),
        (
            spec.random_distribution.is_some(),
            "a skewed random distribution",
        ),
        (spec.rw_modifier.is_some(), "fio's offset modifier"),
        (
            spec.io_limit.is_some() || spec.op_limit.is_some(),
            "a job bounded by bytes or operations",
        ),
        (spec.rate_process.is_some(), "a Poisson rate"),
    ];
    if let Some((_, what)) = unsupported.iter().find(|(on, _)| *on) {
        return Err(format!("DiskSpd cannot run {what}"));
    }
    let rate = match spec.rate_bytes_per_sec {
        None | Some([None, None]) => None,
        Some([r, w]) if r == w || r.is_none() || w.is_none() => {
            let per_sec = r.or(w).unwrap_or(0);
            if per_sec % 1000 != 0 || per_sec == 0 {
                return Err("DiskSpd's rate is in whole bytes per millisecond".into());
            }
            Some(DiskSpdRate::BytesPerMs(per_sec / 1000))
        }
        Some(_) => return Err("DiskSpd's rate is one for reads and writes alike".into()),
    };
    let c = DiskSpdCommand {
        block_size: spec.bs,
        threads: spec.numjobs.max(1),
        outstanding: spec.iodepth.max(1),
        write_percent,
        access: if random {
            DiskSpdAccess::Random {
                align: spec.align.unwrap_or(spec.bs),
            }
        } else {
            DiskSpdAccess::Sequential { stride: spec.bs }
        },
        duration_s: whole_seconds(spec.runtime_ns, "the run")?,
        warmup_s: whole_seconds(spec.ramp_ns, "the warm-up")?,
        cooldown_s: 0,
        os_cache: !spec.direct,
        write_through: spec.write_sync.as_deref() == Some("dsync"),
        create_size: Some(spec.size),
        base_offset: 0,
        max_offset: None,
        thread_stride: 0,
        // candor writes fresh random data every time: DiskSpd's -Zr.
        write_data: if write_percent > 0 {
            WriteData::RandomPerWrite
        } else {
            WriteData::Pattern
        },
        seed: Some(0),
        rate,
        no_affinity: true,
        iops_interval_ms: None,
        target: target.to_string(),
    };
    Ok(format!("diskspd {} {}", flags(&c).join(" "), quote(target)))
}

/// A size as DiskSpd writes it: the largest of T, G, M, K that divides it.
fn size(n: u64) -> String {
    for (unit, letter) in [
        (1u64 << 40, "T"),
        (1 << 30, "G"),
        (1 << 20, "M"),
        (1 << 10, "K"),
    ] {
        if n >= unit && n % unit == 0 {
            return format!("{}{letter}", n / unit);
        }
    }
    n.to_string()
}

/// A target with spaces in double quotes (Windows' command line).
fn quote(target: &str) -> String {
    if target.contains(char::is_whitespace) {
        format!("\"{target}\"")
    } else {
        target.to_string()
    }
}
