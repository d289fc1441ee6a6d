//! Compression throughput: LZMA (liblzma, xz's library, statically linked:
//! 7-Zip's algorithm) and zstd, compress and decompress, on the fixed seeded
//! corpus of `corpus.rs`. One event compresses (or decompresses) the whole
//! corpus; bytes are counted as uncompressed bytes in both directions, as 7-Zip
//! and zstd's own benchmark count them. Every result is checked: compressed
//! sizes must not change between events, and decompression must give back
//! the corpus.
//!
//! We do not compute a 7-Zip "rating": 7-Zip derives it from its own
//! synthetic data and dictionary size, and an imitation would look comparable
//! without being so. The figure is MB/s of this corpus at this preset.

use super::corpus::{corpus, CORPUS_BYTES, SEED};
use super::runner::{measurement, params, run_timed, Headline};
use super::ComputeOptions;
use crate::result::ComputeMeasurement;
use liblzma::stream::{Action, Check, Status, Stream};
use std::sync::Arc;

/// xz's default preset (8 MiB dictionary).
pub const LZMA_PRESET: u32 = 6;
/// zstd's default level.
pub const ZSTD_LEVEL: i32 = 3;
/// Memory one LZMA preset-6 encoder needs (liblzma's documented figure is 94 MiB).
const LZMA_ENCODER_BYTES: u64 = 100 << 20;

/// The version of the linked liblzma (xz) C library.
pub fn liblzma_version() -> String {
    extern "C" {
        fn lzma_version_string() -> *const std::os::raw::c_char;
    }
    // SAFETY: liblzma returns a pointer to a static NUL-terminated string.
    unsafe { std::ffi::CStr::from_ptr(lzma_version_string()) }
        .to_string_lossy()
        .into_owned()
}

/// The version of the linked zstd C library.
pub fn zstd_version() -> &'static str {
    zstd::zstd_safe::version_string()
}

/// Compresses `data` to the .xz format at `preset`.
pub fn lzma_compress(data: &[u8], preset: u32) -> anyhow::Result<Vec<u8>> {
    let mut stream = Stream::new_easy_encoder(preset, Check::Crc64)?;
    let mut out = Vec::with_capacity(data.len() + data.len() / 2 + (64 << 10));
    let mut input = data;
    loop {
        let before = stream.total_in();
        let status = stream.process_vec(input, &mut out, Action::Finish)?;
        input = &input[(stream.total_in() - before) as usize..];
        match status {
            Status::StreamEnd => return Ok(out),
            _ => out.reserve(64 << 10),
        }
    }
}

/// Decompresses .xz data; `size_hint` is the expected output size.
pub fn lzma_decompress(data: &[u8], size_hint: usize) -> anyhow::Result<Vec<u8>> {
    let mut stream = Stream::new_stream_decoder(u64::MAX, 0)?;
    let mut out = Vec::with_capacity(size_hint + 1);
    let mut input = data;
    loop {
        let before = stream.total_in();
        let status = stream.process_vec(input, &mut out, Action::Finish)?;
        input = &input[(stream.total_in() - before) as usize..];
        match status {
            Status::StreamEnd => return Ok(out),
            _ if out.len() == out.capacity() => out.reserve(64 << 10),
            _ if input.is_empty() => anyhow::bail!("xz data ended early"),
            _ => {}
        }
    }
}

/// Compresses and decompresses `data` with LZMA; returns the compressed size.
pub fn lzma_round_trip(data: &[u8]) -> anyhow::Result<usize> {
    let packed = lzma_compress(data, LZMA_PRESET)?;
    anyhow::ensure!(
        lzma_decompress(&packed, data.len())? == data,
        "LZMA round trip changed the data"
    );
    Ok(packed.len())
}

/// Compresses and decompresses `data` with zstd; returns the compressed size.
pub fn zstd_round_trip(data: &[u8]) -> anyhow::Result<usize> {
    let packed = zstd::bulk::Compressor::new(ZSTD_LEVEL)?.compress(data)?;
    let back = zstd::bulk::Decompressor::new()?.decompress(&packed, data.len())?;
    anyhow::ensure!(back == data, "zstd round trip changed the data");
    Ok(packed.len())
}

/// The tests in the order they run.
const TESTS: [&str; 4] = [
    "lzma-compress",
    "lzma-decompress",
    "zstd-compress",
    "zstd-decompress",
];

type Work = Box<dyn FnMut() -> anyhow::Result<u64>>;

/// One thread's unit of work: one pass over the corpus, returning its size.
fn work(
    test: &str,
    data: Arc<Vec<u8>>,
    lzma_packed: Arc<Vec<u8>>,
    zstd_packed: Arc<Vec<u8>>,
) -> anyhow::Result<Work> {
    let n = data.len();
    Ok(match test {
        "lzma-compress" => {
            let want = lzma_packed.len();
            Box::new(move || {
                let packed = lzma_compress(&data, LZMA_PRESET)?;
                anyhow::ensure!(
                    packed.len() == want,
                    "LZMA output size changed: {} != {want}",
                    packed.len()
                );
                Ok(n as u64)
            })
        }
        "lzma-decompress" => Box::new(move || {
            let out = lzma_decompress(&lzma_packed, n)?;
            anyhow::ensure!(
                out.len() == n,
                "LZMA decompressed {} bytes, expected {n}",
                out.len()
            );
            Ok(n as u64)
        }),
        "zstd-compress" => {
            let mut c = zstd::bulk::Compressor::new(ZSTD_LEVEL)?;
            let want = zstd_packed.len();
            Box::new(move || {
                let packed = c.compress(&data)?;
                anyhow::ensure!(
                    packed.len() == want,
                    "zstd output size changed: {} != {want}",
                    packed.len()
                );
                Ok(n as u64)
            })
        }
        _ => {
            let mut d = zstd::bulk::Decompressor::new()?;
            Box::new(move || {
                let out = d.decompress(&zstd_packed, n)?;
                anyhow::ensure!(
                    out.len() == n,
                    "zstd decompressed {} bytes, expected {n}",
                    out.len()
                );
                Ok(n as u64)
            })
        }
    })
}

pub fn run(options: &ComputeOptions) -> anyhow::Result<Vec<ComputeMeasurement>> {
    let data = Arc::new(corpus());
    let lzma_packed = Arc::new(lzma_compress(&data, LZMA_PRESET)?);
    anyhow::ensure!(
        lzma_decompress(&lzma_packed, data.len())? == *data,
        "LZMA round trip changed the corpus"
    );
    let zstd_packed = Arc::new(zstd::bulk::Compressor::new(ZSTD_LEVEL)?.compress(&data)?);
    anyhow::ensure!(
        zstd::bulk::Decompressor::new()?.decompress(&zstd_packed, data.len())? == *data,
        "zstd round trip changed the corpus"
    );
    // An LZMA encoder needs ~94 MiB: do not run more of them than half of the
    // available memory holds.
    // A 32-bit process also has only its address space (about 3 GiB): the
    // encoders must fit in 2 GiB of it whatever the machine's memory.
    let address_space = if usize::BITS == 32 {
        4u64 << 30
    } else {
        u64::MAX
    };
    let lzma_threads_max = crate::host::memory::available_bytes().map_or(u32::MAX, |a| {
        ((a.min(address_space) / 2) / LZMA_ENCODER_BYTES).clamp(1, u32::MAX as u64) as u32
    });
    let versions = super::library_versions();
    let mut out = Vec::new();
    for test in TESTS {
        let lzma = test.starts_with("lzma");
        let mut counts = options.threads.counts();
        let mut capped = None;
        if test == "lzma-compress" {
            for c in counts.iter_mut() {
                if *c > lzma_threads_max {
                    capped = Some(*c);
                    *c = lzma_threads_max;
                }
            }
            counts.dedup();
        }
        for threads in counts {
            crate::cancel::check()?;
            let (d, l, z) = (data.clone(), lzma_packed.clone(), zstd_packed.clone());
            let timed = run_timed(threads, options.runtime, |_| {
                work(test, d.clone(), l.clone(), z.clone())
            })?;
            let (library, level, packed) = if lzma {
                (
                    format!("liblzma {}", versions["liblzma"]),
                    LZMA_PRESET as i64,
                    lzma_packed.len(),
                )
            } else {
                (
                    format!("zstd {}", versions["zstd"]),
                    ZSTD_LEVEL as i64,
                    zstd_packed.len(),
                )
            };
            let mut notes = vec![
                format!("{library}, level {level}, on candor's fixed corpus ({} of seeded log lines, prose and JSON; compresses to {:.1}%); MB/s of uncompressed bytes", crate::units::fmt_bytes(CORPUS_BYTES as u64), packed as f64 * 100.0 / data.len() as f64),
                "not a 7-Zip rating: `7z b` uses its own data and dictionary size, so put its figure beside this one, not in place of it".into(),
            ];
            if let Some(asked) = capped.filter(|_| threads == lzma_threads_max) {
                notes.push(format!("ran {threads} threads, not {asked}: each LZMA encoder needs about 94 MiB and memory is short"));
            }
            out.push(measurement(
                test,
                options.runtime,
                params([
                    ("library", library.into()),
                    ("level", level.into()),
                    ("corpus_bytes", (CORPUS_BYTES as u64).into()),
                    ("corpus_seed", SEED.into()),
                    ("compressed_bytes", (packed as u64).into()),
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
