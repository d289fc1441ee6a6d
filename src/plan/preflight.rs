//! The checks every disk plan passes before any file exists: the job's
//! values (one line per problem, naming the flag), the split of candor's
//! one file between sequential threads, the memory its buffers need, and
//! the engine's depth. Each runs once, here, on plain values; the engine
//! (`disk/`) trusts what a plan hands it.

use crate::disk::job::MIN_RUNTIME;
use crate::disk::{EngineChoice, EngineKind, JobSpec};

/// Every check of one of candor's own jobs (`disk`, `sweep`, the battery):
/// its values, its split, its buffers in `available` memory, its engine.
pub fn check_job(job: &JobSpec, available: Option<u64>) -> Result<(), String> {
    check_values(job)?;
    check_split(job)?;
    check_memory(job, available)?;
    check_engine(job)
}

/// A synchronous engine asked for by name keeps one operation in flight:
/// a deeper queue is refused (the automatic choice falls back to psync at
/// depth 1 and says so when it runs). Another system's engine asked for by
/// name is refused before any file is made.
pub fn check_engine(job: &JobSpec) -> Result<(), String> {
    check_system(job.engine).map_err(|e| format!("--engine {e}"))?;
    if job.engine == EngineChoice::Exact(EngineKind::Psync) && job.iodepth > 1 {
        return Err(format!(
            "--engine psync is synchronous: --iodepth {} cannot be kept in flight (use --numjobs for parallelism)",
            job.iodepth
        ));
    }
    Ok(())
}

/// Refuses an engine of another system asked for by name ("windowsaio runs
/// on Windows only, ..."): the caller names its flag or option.
pub fn check_system(engine: EngineChoice) -> Result<(), String> {
    match engine {
        EngineChoice::Exact(kind) => match other_systems(kind) {
            Some(home) => Err(format!(
                "{} runs on {home} only, and this is {}",
                kind.as_str(),
                std::env::consts::OS
            )),
            None => Ok(()),
        },
        EngineChoice::Auto => Ok(()),
    }
}

/// The system an engine is made for, when it is not this one.
fn other_systems(kind: EngineKind) -> Option<&'static str> {
    match kind {
        EngineKind::IoUring | EngineKind::Libaio if !cfg!(target_os = "linux") => Some("Linux"),
        EngineKind::Windowsaio if !cfg!(windows) => Some("Windows"),
        _ => None,
    }
}

/// Checks the values that need no file system: one line per problem, naming the flag.
pub fn check_values(job: &JobSpec) -> Result<(), String> {
    if !job.rw.is_runnable() {
        return Err(format!(
            "--rw {} is not a pattern candor runs (read, write, rw, randread, randwrite, randrw)",
            job.rw
        ));
    }
    if job.bs == 0 {
        return Err("--bs must be greater than 0".into());
    }
    if job.size == 0 {
        return Err("--size must be greater than 0".into());
    }
    if job.iodepth == 0 {
        return Err("--iodepth must be at least 1".into());
    }
    if job.iodepth > 4096 {
        return Err(format!(
            "--iodepth {} is above the limit of 4096",
            job.iodepth
        ));
    }
    if job.iodepth_batch == 0 {
        return Err("--iodepth-batch must be at least 1".into());
    }
    if job.iodepth_batch > job.iodepth {
        return Err(format!(
            "--iodepth-batch {} is above --iodepth {} (a submit cannot hold more than is in flight)",
            job.iodepth_batch, job.iodepth
        ));
    }
    if job.numjobs == 0 {
        return Err("--numjobs must be at least 1".into());
    }
    if job.numjobs > 1024 {
        return Err(format!(
            "--numjobs {} is above the limit of 1024",
            job.numjobs
        ));
    }
    if job.rwmixread > 100 {
        return Err(format!(
            "--rwmixread {} is not a percentage (0-100)",
            job.rwmixread
        ));
    }
    if !job.is_bounded() && job.runtime < MIN_RUNTIME {
        return Err(format!(
            "--runtime {} is shorter than the minimum of {} (a shorter interval measures too few I/Os and too few CPU ticks to mean anything)",
            crate::units::fmt_ns(job.runtime.as_nanos() as f64),
            crate::units::fmt_duration(MIN_RUNTIME)
        ));
    }
    let (min_bs, max_bs) = (job.min_bs(), job.max_bs());
    if min_bs == 0 {
        return Err("--bs must be greater than 0".into());
    }
    if max_bs > 256 << 20 {
        return Err(format!("--bs {max_bs} is above the limit of 256 MiB"));
    }
    if max_bs > job.size {
        return Err(format!("--bs {max_bs} is larger than --size {}", job.size));
    }
    if job.bs > job.size {
        return Err(format!(
            "--bs {} is larger than --size {}",
            job.bs, job.size
        ));
    }
    if job.bs > 256 << 20 {
        return Err(format!("--bs {} is above the limit of 256 MiB", job.bs));
    }
    Ok(())
}

/// candor's own jobs share one file: each sequential thread gets its own
/// region of it, so the file must hold a block per thread. (A job file's
/// clones have regions of their own and need not.)
pub fn check_split(job: &JobSpec) -> Result<(), String> {
    if !job.rw.is_random() && job.size / job.bs < job.numjobs as u64 {
        return Err(format!(
            "--size {} holds fewer {}-byte blocks than --numjobs {} needs (each sequential thread gets its own region)",
            job.size, job.bs, job.numjobs
        ));
    }
    Ok(())
}

/// Memory the job needs: each thread's slot buffers (and the spare that
/// stages large writes), plus about 1 MiB per thread for its recorders'
/// histograms, its ring and its stack.
pub fn memory_needed(job: &JobSpec) -> u64 {
    let per_thread = (crate::disk::worker::buffers_for(job) as u64)
        .saturating_mul(crate::disk::worker::buffer_bytes(job) as u64);
    (per_thread.saturating_add(1 << 20))
        .saturating_mul(u64::from(job.numjobs))
        .saturating_add(verify_map_bytes(job))
}

/// Memory a verifying job's threads need to remember their last write of
/// each offset (`disk::verify::LastWrites`): at most the job's size over
/// its smallest block per thread, the map's entries never overlapping.
pub fn verify_map_bytes(job: &JobSpec) -> u64 {
    match job.verify {
        Some(v) if v.after_writes => (job.size / job.min_bs().max(1))
            .saturating_mul(crate::disk::verify::BYTES_PER_WRITE)
            .saturating_mul(u64::from(job.numjobs)),
        _ => 0,
    }
}

/// Refuses a job whose buffers would not fit in half the available
/// memory, before any file is written (the allocation would abort).
/// Also refuses buffers that do not fit in half this process's address
/// space, whatever the RAM: on a 32-bit build (4 GiB of addresses, at
/// most 2 GiB in one allocation) a board or an armv8l userland can
/// report more memory than the process can map, and the buffers' size,
/// a usize product, would wrap.
pub fn check_memory(job: &JobSpec, available: Option<u64>) -> Result<(), String> {
    check_memory_in(job, available, usize::MAX as u64 / 2)
}

/// `check_memory` with the address room given (half of usize::MAX).
fn check_memory_in(job: &JobSpec, available: Option<u64>, room: u64) -> Result<(), String> {
    let need = memory_needed(job);
    let map = verify_map_bytes(job);
    let over = |limit: u64| need > limit;
    if map > 0 && (over(room) || available.is_some_and(|a| over(a / 2))) {
        return Err(format!(
            "verify: remembering the last write of each of up to {} blocks per thread ({} / {}) x {} threads for the read-back needs {}, {} with the I/O buffers; {} (candor uses at most half)",
            job.size / job.min_bs().max(1),
            crate::units::fmt_bytes(job.size),
            crate::units::fmt_bytes(job.min_bs()),
            job.numjobs,
            crate::units::fmt_bytes(map),
            crate::units::fmt_bytes(need),
            match available {
                Some(a) if a / 2 < room => format!("{} of memory is available", crate::units::fmt_bytes(a)),
                _ => format!("the address space holds {}", crate::units::fmt_bytes(room * 2)),
            }
        ));
    }
    if need > room {
        return Err(format!(
            "--numjobs {} x --iodepth {} x --bs {} needs {} of I/O buffers; a {}-bit candor can hold at most {} (half its address space)",
            job.numjobs,
            job.iodepth,
            crate::units::fmt_bytes(job.bs),
            crate::units::fmt_bytes(need),
            if room < u32::MAX as u64 { 32 } else { 64 },
            crate::units::fmt_bytes(room)
        ));
    }
    match available {
        Some(avail) if need > avail / 2 => Err(format!(
            "--numjobs {} x --iodepth {} x --bs {} needs {} of I/O buffers; {} of memory is available (candor uses at most half)",
            job.numjobs,
            job.iodepth,
            crate::units::fmt_bytes(job.bs),
            crate::units::fmt_bytes(need),
            crate::units::fmt_bytes(avail)
        )),
        _ => Ok(()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::disk::Rw;
    use std::time::Duration;

    #[test]
    fn validation_names_the_flag() {
        let ok = JobSpec::new(Rw::Randread, 4096, 32);
        assert!(check_values(&ok).is_ok());
        let mut j = ok.clone();
        j.iodepth = 0;
        assert!(check_values(&j).unwrap_err().contains("--iodepth"));
        j.iodepth = 8;
        j.iodepth_batch = 0;
        assert!(check_values(&j).unwrap_err().contains("--iodepth-batch"));
        j.iodepth_batch = 9;
        assert!(check_values(&j).unwrap_err().contains("above --iodepth 8"));
        j.iodepth_batch = 8;
        assert!(check_values(&j).is_ok());
        let mut j = ok.clone();
        j.bs = 0;
        assert!(check_values(&j).unwrap_err().contains("--bs"));
        let mut j = ok.clone();
        j.rwmixread = 101;
        assert!(check_values(&j).unwrap_err().contains("--rwmixread"));
        let mut j = ok.clone();
        j.size = 1024;
        assert!(check_values(&j).unwrap_err().contains("--bs"));
        let mut j = ok.clone();
        j.runtime = Duration::from_nanos(1);
        let e = check_values(&j).unwrap_err();
        assert!(
            e.starts_with("--runtime 1 ns is shorter than the minimum of 100ms"),
            "{e}"
        );
        j.runtime = MIN_RUNTIME;
        assert!(check_values(&j).is_ok());
    }

    #[test]
    fn another_systems_engine_is_refused_by_name() {
        let mut j = JobSpec::new(Rw::Randread, 4096, 8);
        let (foreign, native) = if cfg!(windows) {
            (EngineKind::Libaio, EngineKind::Windowsaio)
        } else {
            (EngineKind::Windowsaio, EngineKind::Libaio)
        };
        j.engine = EngineChoice::Exact(foreign);
        let e = check_engine(&j).unwrap_err();
        assert!(
            e.starts_with(&format!("--engine {} runs on ", foreign.as_str())),
            "{e}"
        );
        j.engine = EngineChoice::Exact(native);
        assert!(check_engine(&j).is_ok());
    }

    #[test]
    fn memory_is_checked_before_anything_is_written() {
        let mut j = JobSpec::new(Rw::Randread, 256 << 20, 4096);
        j.numjobs = 1024;
        j.size = 1 << 40;
        assert!(check_values(&j).is_ok());
        // (With a 64-bit address space: a 32-bit build refuses it earlier,
        // for its address space, below.)
        let e = check_memory_in(&j, Some(24 << 30), u64::MAX / 2).unwrap_err();
        assert!(e.contains("needs") && e.contains("available"), "{e}");
        assert!(check_memory(&j, Some(24 << 30)).is_err());
        let small = JobSpec::new(Rw::Randread, 4096, 32);
        assert!(check_memory(&small, Some(1 << 30)).is_ok());
        assert!(check_memory(&small, None).is_ok());
    }

    /// A verifying job remembers its last write of each block: 1 TiB in
    /// 4 KiB blocks is 2^28 writes, 16 GiB of map, more than half of 24 GiB.
    #[test]
    fn the_verify_map_is_checked_before_anything_is_written() {
        use crate::disk::{Verify, VerifyAlg};
        let mut j = JobSpec::new(Rw::Randwrite, 4096, 8);
        j.size = 1 << 40;
        let verify = Verify {
            alg: VerifyAlg::Crc32c,
            after_writes: true,
            only: false,
            fatal: false,
        };
        assert!(
            check_memory(&j, Some(24 << 30)).is_ok(),
            "no verify, no map"
        );
        j.verify = Some(verify);
        assert_eq!(verify_map_bytes(&j), (1 << 28) * 64);
        let e = check_memory(&j, Some(24 << 30)).unwrap_err();
        assert!(
            e.starts_with("verify: remembering the last write of each of up to 268435456 blocks"),
            "{e}"
        );
        // Not read back (do_verify=0): nothing remembered.
        j.verify = Some(Verify {
            after_writes: false,
            ..verify
        });
        assert!(check_memory(&j, Some(24 << 30)).is_ok());
        // 64 MiB: 16,384 blocks, 1 MiB of map.
        j.verify = Some(verify);
        j.size = 64 << 20;
        assert!(check_memory(&j, Some(1 << 30)).is_ok());
    }

    /// A 32-bit build refuses buffers past half its address space even when
    /// the RAM would hold them (before this check, `candor disk --engine
    /// null --rw write --bs 256M --iodepth 32` under qemu-arm on a 24 GiB
    /// machine wrapped the buffers' usize size and crashed with SIGSEGV).
    #[test]
    fn buffers_past_a_32_bit_address_space_are_refused() {
        let room32 = u32::MAX as u64 / 2;
        let mut j = JobSpec::new(Rw::Write, 256 << 20, 32);
        j.size = 1 << 30;
        let e = check_memory_in(&j, Some(24 << 30), room32).unwrap_err();
        assert!(e.contains("a 32-bit candor can hold at most"), "{e}");
        assert!(check_memory_in(&j, Some(24 << 30), u64::MAX / 2).is_ok());
        assert!(check_memory_in(&j, None, room32).is_err());
        // Four 4 KiB threads fit anywhere.
        let small = JobSpec::new(Rw::Randread, 4096, 32);
        assert!(check_memory_in(&small, None, room32).is_ok());
    }
}
