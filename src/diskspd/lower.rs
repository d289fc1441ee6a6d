//! A DiskSpd command as a fio job file: candor runs job files the way fio
//! does, so a DiskSpd line becomes the fio job that does the same I/O, and
//! runs on the one disk plan and runner. What DiskSpd does that the job
//! cannot is either refused by `parse` or said in a note that the Run keeps.
//!
//! The mapping (DiskSpd 2.2 → fio): `-b` bs; `-t`/`-F` numjobs on one
//! shared file (`filename=`), each thread from the base offset unless
//! `-T` (offset_increment), as DiskSpd's non-interlocked threads; `-o`
//! iodepth; `-w` the share of writes (rwmixwrite); `-r[align]` random
//! (blockalign), default or `-s[stride]` sequential (a stride larger than
//! the block skips the rest: `rw=read:<gap>`); `-d` runtime; `-W`
//! ramp_time; `-Su` direct=1; `-Sw` sync=dsync (O_DSYNC: each write
//! returns once stable, Linux's FILE_FLAG_WRITE_THROUGH); `-c` the file's
//! size; `-B`/`-f` offset and size; `-z` randseed; `-g` rate or rate_iops.

use super::parse::{DiskSpdAccess, DiskSpdCommand, DiskSpdRate, WriteData};

/// The fio job file for `c`, and the notes that say where the run differs
/// from DiskSpd's. `engine`: the asynchronous engine this host runs
/// (DiskSpd keeps `-o` I/Os in flight per thread); `default_size`: the
/// file's size when the line has no `-c` (DiskSpd then uses the existing
/// file; candor creates its own).
pub fn job_file(c: &DiskSpdCommand, engine: &str, default_size: u64) -> Result<DiskSpdJob, String> {
    let mut notes = Vec::new();
    let file_size = match c.create_size {
        Some(s) => s,
        None => {
            notes.push(format!(
                "no -c: DiskSpd measures the target file as it exists; candor creates its own test file of {} (--size) in the test directory",
                crate::units::fio_size(default_size)
            ));
            default_size
        }
    };
    let end = c.max_offset.unwrap_or(file_size).min(file_size);
    if c.base_offset >= end {
        return Err(format!(
            "-B{}: the base offset is at or past the end of the file ({} bytes)",
            c.base_offset, end
        ));
    }
    if c.duration_s == 0 {
        return Err("-d0: a run of 0 seconds measures nothing".into());
    }
    let writes = c.write_percent;
    let (random, gap) = match c.access {
        DiskSpdAccess::Random { align } => (Some(align), 0),
        DiskSpdAccess::Sequential { stride } if stride >= c.block_size => (None, stride - c.block_size),
        DiskSpdAccess::Sequential { stride } => {
            return Err(format!(
                "-s{stride}: a stride shorter than the block (-b{}) overlaps each I/O with the last; not run by candor",
                c.block_size
            ))
        }
    };
    let rw = match (random.is_some(), writes) {
        (true, 0) => "randread",
        (true, 100) => "randwrite",
        (true, _) => "randrw",
        (false, 0) => "read",
        (false, 100) => "write",
        (false, _) => "rw",
    };
    let mut job = vec![
        format!("# DiskSpd: {}", one_line(c)),
        "[diskspd]".to_string(),
        "filename=candor-diskspd.dat".to_string(),
        format!("ioengine={engine}"),
        format!("bs={}", c.block_size),
        if gap > 0 {
            format!("rw={rw}:{gap}")
        } else {
            format!("rw={rw}")
        },
    ];
    if !(writes == 0 || writes == 100) {
        job.push(format!("rwmixwrite={writes}"));
    }
    if let Some(align) = random.filter(|&a| a != c.block_size) {
        job.push(format!("blockalign={align}"));
    }
    job.push(format!("iodepth={}", c.outstanding));
    job.push(format!("numjobs={}", c.threads));
    if c.base_offset > 0 {
        job.push(format!("offset={}", c.base_offset));
    }
    job.push(format!("size={}", end - c.base_offset));
    if c.thread_stride > 0 {
        job.push(format!("offset_increment={}", c.thread_stride));
    }
    job.push(format!("direct={}", u8::from(!c.os_cache)));
    if c.write_through {
        job.push("sync=dsync".to_string());
    }
    job.push(format!("runtime={}", c.duration_s));
    job.push("time_based=1".to_string());
    job.push(format!("ramp_time={}", c.warmup_s));
    if let Some(seed) = c.seed {
        job.push(format!("randseed={seed}"));
    }
    match c.rate {
        Some(DiskSpdRate::BytesPerMs(n)) => job.push(format!("rate={}", n.saturating_mul(1000))),
        Some(DiskSpdRate::Iops(n)) => job.push(format!("rate_iops={n}")),
        None => {}
    }
    // What differs from DiskSpd, said once each.
    if !c.no_affinity {
        notes.push("DiskSpd pins its threads to CPUs round-robin unless -n is given; candor does not pin them (as -n)".into());
    }
    match c.write_data {
        WriteData::Pattern if writes > 0 => notes.push(
            "DiskSpd's writes carry a repeating 0-255 byte pattern unless -Z is given; candor writes fresh random data every time (as -Zr): on storage that compresses or deduplicates, DiskSpd's default can measure that instead of the medium".into(),
        ),
        WriteData::RandomBuffer(n) if writes > 0 => notes.push(format!(
            "-Z{n}: DiskSpd's writes repeat the bytes of one random buffer of {n} bytes; candor writes fresh random data every time (as -Zr)"
        )),
        _ => {}
    }
    if c.cooldown_s > 0 {
        notes.push(format!(
            "-C{}: DiskSpd keeps issuing I/O for {} s after the measurement; candor stops at its end (the cool-down measures nothing)",
            c.cooldown_s, c.cooldown_s
        ));
    }
    if c.iops_interval_ms.is_some_and(|ms| ms != 1000) {
        notes.push(
            "-D: DiskSpd's IOPS intervals are set in ms; candor's series is per second".into(),
        );
    }
    if c.seed.is_none() {
        notes.push("-z without a value: DiskSpd seeds from the clock; candor draws a fresh seed and records it".into());
    } else if random.is_some() {
        notes.push("-z: the seed is the same number, but DiskSpd's generator is not candor's: the offsets differ".into());
    }
    if c.max_offset.is_some_and(|m| m < file_size) {
        notes.push(format!(
            "the I/O stays below byte {end} (-f or -B's length); candor's file is then {end} bytes, not the {file_size} of -c",
        ));
    }
    Ok(DiskSpdJob {
        text: job.join("\n") + "\n",
        notes,
    })
}

/// A DiskSpd command as the fio job file that runs it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DiskSpdJob {
    pub text: String,
    /// Where the run differs from DiskSpd's, in sentences.
    pub notes: Vec<String>,
}

/// The command's flags on one line, in DiskSpd's spelling (for the job
/// file's comment and the Run).
fn one_line(c: &DiskSpdCommand) -> String {
    super::command::flags(c).join(" ") + " " + &c.target
}
