//! RAM bandwidth, STREAM-style: the copy, scale, add and triad kernels of
//! John McCalpin's STREAM, written here (not libc memcpy, whose speed varies
//! with the C library) on three f64 arrays each at least 4x the last-level
//! cache, so the figure is RAM, not cache.
//!
//! Bytes are counted as STREAM counts them: the arrays named in the kernel,
//! read or written once per element (copy and scale 16 bytes, add and triad
//! 24). The write-allocate read that most CPUs do before a store is not
//! counted, so the bus moved more than the figure says (as in STREAM).
//!
//! The arrays adapt to the machine: at most a quarter of MemAvailable in all,
//! so a 512 MiB VPS can run it; when that cap forces arrays smaller than 4x
//! the LLC, the measurement says so. With several threads, each thread owns
//! one contiguous slice of every array and touches it first (NUMA placement).

use super::runner::{measurement, params, run_timed, Headline};
use super::ComputeOptions;
use crate::result::ComputeMeasurement;
use std::sync::Mutex;

/// STREAM's scalar.
const Q: f64 = 3.0;
/// Initial values of a, b and c before every kernel.
const INIT: (f64, f64, f64) = (1.0, 2.0, 0.5);

/// One STREAM kernel.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Kernel {
    /// c = a
    Copy,
    /// b = q * c
    Scale,
    /// c = a + b
    Add,
    /// a = b + q * c
    Triad,
}

impl Kernel {
    pub const ALL: [Kernel; 4] = [Kernel::Copy, Kernel::Scale, Kernel::Add, Kernel::Triad];

    pub fn name(self) -> &'static str {
        match self {
            Kernel::Copy => "copy",
            Kernel::Scale => "scale",
            Kernel::Add => "add",
            Kernel::Triad => "triad",
        }
    }

    /// Bytes counted per element, STREAM's way.
    pub fn bytes_per_element(self) -> u64 {
        match self {
            Kernel::Copy | Kernel::Scale => 16,
            Kernel::Add | Kernel::Triad => 24,
        }
    }

    /// Runs the kernel once over the slices (which must have equal lengths).
    /// `#[inline(never)]` keeps each kernel a separate loop the compiler
    /// vectorizes on its own, as STREAM's C loops are.
    #[inline(never)]
    pub fn apply(self, a: &mut [f64], b: &mut [f64], c: &mut [f64]) {
        match self {
            Kernel::Copy => {
                // `+ 0.0` keeps this our own loop: LLVM turns a plain element
                // copy into a call to libc memcpy (whose speed depends on the
                // C library). The add is free in a memory-bound loop, and
                // exact for the values used here (not for -0.0).
                for (ci, ai) in c.iter_mut().zip(a.iter()) {
                    *ci = *ai + 0.0;
                }
            }
            Kernel::Scale => {
                for (bi, ci) in b.iter_mut().zip(c.iter()) {
                    *bi = Q * *ci;
                }
            }
            Kernel::Add => {
                for ((ci, ai), bi) in c.iter_mut().zip(a.iter()).zip(b.iter()) {
                    *ci = *ai + *bi;
                }
            }
            Kernel::Triad => {
                for ((ai, bi), ci) in a.iter_mut().zip(b.iter()).zip(c.iter()) {
                    *ai = *bi + Q * *ci;
                }
            }
        }
    }

    /// The values (a, b, c) every element holds after this kernel ran on
    /// freshly initialised arrays (any number of times: each kernel is idempotent).
    pub fn expected(self) -> (f64, f64, f64) {
        let (a, b, c) = INIT;
        match self {
            Kernel::Copy => (a, b, a),
            Kernel::Scale => (a, Q * c, c),
            Kernel::Add => (a, b, a + b),
            Kernel::Triad => (b + Q * c, b, c),
        }
    }

    /// Checks every element against `expected()`: the benchmark did real work.
    pub fn verify(self, a: &[f64], b: &[f64], c: &[f64]) -> anyhow::Result<()> {
        let (ea, eb, ec) = self.expected();
        for (name, array, want) in [("a", a, ea), ("b", b, eb), ("c", c, ec)] {
            if let Some(i) = array.iter().position(|&v| v != want) {
                anyhow::bail!(
                    "stream {}: {name}[{i}] = {}, expected {want}",
                    self.name(),
                    array[i]
                );
            }
        }
        Ok(())
    }
}

/// Three equal arrays, allocated lazily (calloc: pages are touched first by
/// the thread that will use them).
pub struct StreamArrays {
    pub a: Vec<f64>,
    pub b: Vec<f64>,
    pub c: Vec<f64>,
}

impl StreamArrays {
    pub fn new(elements: usize) -> StreamArrays {
        StreamArrays {
            a: vec![0.0; elements],
            b: vec![0.0; elements],
            c: vec![0.0; elements],
        }
    }
}

/// Sets a, b and c to their initial values.
pub fn init(a: &mut [f64], b: &mut [f64], c: &mut [f64]) {
    a.fill(INIT.0);
    b.fill(INIT.1);
    c.fill(INIT.2);
}

/// The last-level cache of the whole machine in bytes: the sum of every
/// distinct cache at the highest level, across all CPUs (sysfs). cpu0's
/// alone is not enough: a multi-CCX EPYC has one L3 per CCX (8 x 32 MiB
/// on a 64-core part), and arrays sized from one of them fit in the sum,
/// so the "RAM" figure would be cache. None if unknown.
pub fn llc_bytes() -> Option<u64> {
    let mut caches = Vec::new();
    for cpu in std::fs::read_dir("/sys/devices/system/cpu").ok()?.flatten() {
        let name = cpu.file_name().to_string_lossy().to_string();
        if !name.starts_with("cpu") || !name[3..].chars().all(|c| c.is_ascii_digit()) {
            continue;
        }
        let Ok(indexes) = std::fs::read_dir(cpu.path().join("cache")) else {
            continue;
        };
        for index in indexes.flatten() {
            let read = |f: &str| {
                std::fs::read_to_string(index.path().join(f))
                    .ok()
                    .map(|s| s.trim().to_string())
            };
            let (Some(level), Some(shared), Some(size)) =
                (read("level"), read("shared_cpu_list"), read("size"))
            else {
                continue;
            };
            let (Ok(level), Ok(size)) = (level.parse::<u32>(), crate::units::parse_size(&size))
            else {
                continue;
            };
            if read("type").as_deref() == Some("Instruction") {
                continue;
            }
            caches.push(CacheEntry {
                level,
                shared,
                size,
            });
        }
    }
    sum_last_level(&caches)
}

/// One CPU cache as sysfs lists it under a CPU.
#[derive(Debug, Clone)]
pub struct CacheEntry {
    pub level: u32,
    /// `shared_cpu_list`: the CPUs sharing it, the same text for each of them.
    pub shared: String,
    pub size: u64,
}

/// The sum of the distinct caches at the highest level.
pub fn sum_last_level(caches: &[CacheEntry]) -> Option<u64> {
    let top = caches.iter().map(|c| c.level).max()?;
    let mut seen: Vec<&str> = Vec::new();
    let mut total = 0;
    for c in caches.iter().filter(|c| c.level == top) {
        if !seen.contains(&c.shared.as_str()) {
            seen.push(&c.shared);
            total += c.size;
        }
    }
    Some(total)
}

/// Bytes per array and a note when the size had to be cut below 4x the LLC.
pub fn array_bytes(llc: Option<u64>, available: Option<u64>) -> (u64, Option<String>) {
    const MIB: u64 = 1 << 20;
    let want = (4 * llc.unwrap_or(32 * MIB)).max(64 * MIB);
    let cap = available.map_or(u64::MAX, |a| a / 4 / 3);
    if want <= cap {
        return (want, None);
    }
    let got = (cap / MIB * MIB).max(MIB);
    let note = format!(
        "arrays cut to {} each (a quarter of available memory in all): {} the LLC of {}, so part of this figure may be cache",
        crate::units::fmt_bytes(got),
        match llc {
            Some(l) => format!("{:.1}x", got as f64 / l as f64),
            None => "unknown multiple of".to_string(),
        },
        llc.map_or("unknown size".to_string(), crate::units::fmt_bytes),
    );
    (got, Some(note))
}

/// Bytes per array asked for by the user (`candor memory --stream-size`):
/// refused when three arrays do not fit in available memory; a note when
/// they are not 4x the LLC.
pub fn chosen_array_bytes(
    asked: u64,
    llc: Option<u64>,
    available: Option<u64>,
) -> anyhow::Result<(u64, Option<String>)> {
    let bytes = asked / 64 * 64;
    if bytes == 0 {
        return Err(crate::error::usage(format!(
            "--stream-size {asked}: at least 64 bytes"
        )));
    }
    if let Some(a) = available {
        if bytes.saturating_mul(3) > a / 10 * 9 {
            return Err(crate::error::usage(format!(
                "--stream-size {}: three arrays need {}, but only {} of memory is available",
                crate::units::fmt_bytes(bytes),
                crate::units::fmt_bytes(bytes.saturating_mul(3)),
                crate::units::fmt_bytes(a)
            )));
        }
    }
    let note = match llc {
        Some(l) if bytes < 4 * l => Some(format!(
            "arrays of {} set by --stream-size: {:.1}x the LLC of {}, so part of this figure may be cache",
            crate::units::fmt_bytes(bytes),
            bytes as f64 / l as f64,
            crate::units::fmt_bytes(l)
        )),
        _ => None,
    };
    Ok((bytes, note))
}

/// Runs the four kernels; `asked` overrides the array size (bytes per array).
pub fn run(
    options: &ComputeOptions,
    asked: Option<u64>,
) -> anyhow::Result<Vec<ComputeMeasurement>> {
    let llc = llc_bytes();
    let (bytes, size_note) = match asked {
        Some(b) => chosen_array_bytes(b, llc, crate::host::memory::available_bytes())?,
        None => array_bytes(llc, crate::host::memory::available_bytes()),
    };
    // Three arrays must fit in this process's address space (32 bits on armv7).
    let elements = usize::try_from(bytes / 8)
        .ok()
        .filter(|e| e.checked_mul(3 * 8).is_some())
        .ok_or_else(|| {
            crate::error::usage(format!(
                "STREAM arrays of {} each do not fit in this {}-bit process's address space",
                crate::units::fmt_bytes(bytes),
                usize::BITS
            ))
        })?;
    let mut out = Vec::new();
    for kernel in Kernel::ALL {
        for threads in options.threads.counts() {
            crate::cancel::check()?;
            let mut arrays = StreamArrays::new(elements);
            let per = elements.div_ceil(threads as usize);
            let slices: Vec<_> = arrays
                .a
                .chunks_mut(per)
                .zip(arrays.b.chunks_mut(per))
                .zip(arrays.c.chunks_mut(per))
                .map(|((a, b), c)| Some((a, b, c)))
                .collect();
            let slices = Mutex::new(slices);
            let timed = run_timed(threads, options.runtime, |thread| {
                let taken = slices
                    .lock()
                    .unwrap_or_else(|e| e.into_inner())
                    .get_mut(thread as usize)
                    .and_then(Option::take);
                let (a, b, c) = match taken {
                    Some(s) => s,
                    // More threads than slices (tiny arrays): this thread idles.
                    None => (&mut [][..], &mut [][..], &mut [][..]),
                };
                init(a, b, c);
                kernel.apply(a, b, c); // warm-up pass, not timed
                let pass_bytes = a.len() as u64 * kernel.bytes_per_element();
                Ok(move || {
                    kernel.apply(a, b, c);
                    Ok(pass_bytes)
                })
            })?;
            drop(slices);
            kernel.verify(&arrays.a, &arrays.b, &arrays.c)?;
            let mut notes = vec![
                format!("STREAM-style {} kernel of candor's own on 3 arrays of {} each (f64); bytes counted as STREAM does (write-allocate traffic not counted)", kernel.name(), crate::units::fmt_bytes(bytes)),
                "RAM bandwidth: arrays at least 4x the last-level cache, unless noted".into(),
            ];
            notes.extend(size_note.clone());
            out.push(measurement(
                &format!("stream-{}", kernel.name()),
                options.runtime,
                params([
                    ("array_bytes", bytes.into()),
                    ("llc_bytes", llc.into()),
                    ("bytes_per_element", kernel.bytes_per_element().into()),
                ]),
                &timed,
                Headline::Bytes,
                1.0,
                notes,
            ));
        }
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn kernels_compute_stream_values() {
        for kernel in Kernel::ALL {
            // 1003: not a multiple of the vector width, so loop tails run too.
            let mut s = StreamArrays::new(1003);
            init(&mut s.a, &mut s.b, &mut s.c);
            kernel.apply(&mut s.a, &mut s.b, &mut s.c);
            kernel.apply(&mut s.a, &mut s.b, &mut s.c);
            kernel.verify(&s.a, &s.b, &s.c).unwrap();
            // A kernel that did nothing is caught.
            let mut fresh = StreamArrays::new(1003);
            init(&mut fresh.a, &mut fresh.b, &mut fresh.c);
            assert!(
                kernel.verify(&fresh.a, &fresh.b, &fresh.c).is_err(),
                "{kernel:?}"
            );
        }
    }

    #[test]
    fn arrays_adapt_to_memory() {
        const MIB: u64 = 1 << 20;
        // Plenty of memory: 4x a 32 MiB LLC.
        assert_eq!(
            array_bytes(Some(32 * MIB), Some(16 << 30)),
            (128 * MIB, None)
        );
        // Small LLC: at least 64 MiB per array.
        assert_eq!(array_bytes(Some(8 * MIB), Some(16 << 30)).0, 64 * MIB);
        // A 512 MiB VPS with 300 MiB available: 25 MiB per array, and a note.
        let (bytes, note) = array_bytes(Some(32 * MIB), Some(300 * MIB));
        assert_eq!(bytes, 25 * MIB);
        assert!(note.unwrap().contains("may be cache"));
    }

    /// Two CCXs of 32 MiB L3 each (CPUs 0-3 and 4-7) hold 64 MiB: arrays
    /// sized from cpu0's L3 alone would fit in cache.
    #[test]
    fn last_level_cache_is_summed_over_distinct_caches() {
        let mut caches = Vec::new();
        for cpu in 0..8u32 {
            caches.push(CacheEntry {
                level: 2,
                shared: cpu.to_string(),
                size: 512 << 10,
            });
            caches.push(CacheEntry {
                level: 3,
                shared: if cpu < 4 { "0-3".into() } else { "4-7".into() },
                size: 32 << 20,
            });
        }
        assert_eq!(sum_last_level(&caches), Some(64 << 20));
        assert_eq!(sum_last_level(&[]), None);
        // This machine: whatever it has, at least cpu0's largest cache.
        assert!(llc_bytes().is_some_and(|b| b > 0));
    }
}
