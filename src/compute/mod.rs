//! Compute benchmarks: CPU (sysbench-compatible primes), memory
//! (sysbench-compatible cache figure and STREAM-style RAM bandwidth), crypto
//! (one linked implementation: aws-lc-rs), compression (liblzma, zstd) and OS
//! overhead (syscalls, pipes, context switches, process creation).
//!
//! Each group function runs its tests one after another, with 1 thread and
//! with all threads as separate measurements, and returns them. It checks for
//! Ctrl-C between tests and inside every timed loop. This module measures; it
//! never formats (the text tables are `report::compute_text`).

mod compress;
mod corpus;
mod crypto;
mod group;
mod memory;
#[cfg(unix)]
mod os;
mod primes;
mod runner;
mod stream;
pub mod unixbench;

pub use compress::{lzma_round_trip, zstd_round_trip};
pub use corpus::corpus;
pub use crypto::{aes256_cbc_decrypt, aes256_cbc_encrypt, aes256_gcm_seal, sha256};
pub use group::Group;
pub use memory::{sysbench_read_block, sysbench_write_block, written_block_xor};
pub use primes::count_primes;
pub use stream::{Kernel, StreamArrays};

use crate::result::ComputeMeasurement;
use std::collections::BTreeMap;
use std::time::Duration;

/// How many threads a group runs its tests with.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Threads {
    /// One thread only.
    One,
    /// One thread, then every online CPU (`available_parallelism`), as two
    /// measurements per test; once only on a 1-CPU machine. The battery's default.
    #[default]
    All,
    /// Exactly N threads (N may exceed the CPUs: the result then says so).
    N(u32),
}

impl Threads {
    /// The thread counts to run, in order: [1], [1, all] or [n].
    pub fn counts(self) -> Vec<u32> {
        match self {
            Threads::One => vec![1],
            Threads::N(n) => vec![n.max(1)],
            Threads::All => {
                let all = online_cpus();
                if all > 1 {
                    vec![1, all]
                } else {
                    vec![1]
                }
            }
        }
    }
}

/// The CPUs this process may run on (affinity and cgroup quota respected).
pub fn online_cpus() -> u32 {
    std::thread::available_parallelism()
        .map(|n| n.get() as u32)
        .unwrap_or(1)
}

/// What the group functions need to know.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ComputeOptions {
    pub threads: Threads,
    /// Measured time per test and thread count (each test runs at least one unit of work).
    pub runtime: Duration,
}

/// CPU: sysbench-compatible prime counting (max_prime 20000).
pub fn run_cpu(options: &ComputeOptions) -> anyhow::Result<Vec<ComputeMeasurement>> {
    with_scaling_notes(primes::run(options))
}

/// Memory: sysbench-compatible 1 MiB blocks (cache) and STREAM-style RAM bandwidth.
pub fn run_memory(options: &ComputeOptions) -> anyhow::Result<Vec<ComputeMeasurement>> {
    run_memory_with(options, None)
}

/// `run_memory` with the STREAM array size (bytes per array) chosen by the
/// caller instead of adapted to the machine.
pub fn run_memory_with(
    options: &ComputeOptions,
    stream_array_bytes: Option<u64>,
) -> anyhow::Result<Vec<ComputeMeasurement>> {
    let mut out = memory::run(options)?;
    out.extend(stream::run(options, stream_array_bytes)?);
    with_scaling_notes(Ok(out))
}

/// Crypto: AES-256-CBC encrypt and decrypt, AES-256-GCM, SHA-256 on 16 KiB blocks.
pub fn run_crypto(options: &ComputeOptions) -> anyhow::Result<Vec<ComputeMeasurement>> {
    with_scaling_notes(crypto::run(options))
}

/// Compression: LZMA and zstd compress and decompress on a fixed seeded corpus.
pub fn run_compress(options: &ComputeOptions) -> anyhow::Result<Vec<ComputeMeasurement>> {
    with_scaling_notes(compress::run(options))
}

/// OS overhead: syscall rate, pipe throughput, context switches, process creation.
#[cfg(unix)]
pub fn run_os(options: &ComputeOptions) -> anyhow::Result<Vec<ComputeMeasurement>> {
    with_scaling_notes(os::run(options))
}

/// OS overhead on Windows: refused by name. Its tests are Unix's (raw
/// getppid, pipes, fork and exec); Windows's equivalents would be other
/// measurements under the same names.
#[cfg(windows)]
pub fn run_os(_options: &ComputeOptions) -> anyhow::Result<Vec<ComputeMeasurement>> {
    Err(crate::error::usage(
        "the os group (system calls, pipes, context switches, process creation) is not ported to Windows; leave it out (--skip os)",
    ))
}

/// The libraries that do measured work, by name, with their versions (for `Run.tool.libraries`).
pub fn library_versions() -> BTreeMap<String, String> {
    let mut libs = BTreeMap::new();
    libs.insert(
        "aws-lc-rs".to_string(),
        crypto::AWS_LC_RS_VERSION.to_string(),
    );
    libs.insert("aws-lc".to_string(), aws_lc_rs::awslc_version().to_string());
    libs.insert("liblzma".to_string(), compress::liblzma_version());
    libs.insert("zstd".to_string(), compress::zstd_version().to_string());
    libs
}

/// Adds "N threads: x times the 1-thread figure" to each multi-thread measurement
/// whose test also ran with 1 thread.
fn with_scaling_notes(
    result: anyhow::Result<Vec<ComputeMeasurement>>,
) -> anyhow::Result<Vec<ComputeMeasurement>> {
    let mut list = result?;
    let singles: Vec<(String, f64)> = list
        .iter()
        .filter(|m| m.spec.threads == 1)
        .filter_map(|m| Some((m.spec.test.clone(), headline(m)?)))
        .collect();
    for m in list.iter_mut().filter(|m| m.spec.threads > 1) {
        let one = singles.iter().find(|(t, _)| *t == m.spec.test);
        if let (Some((_, one)), Some(many)) = (one, headline(m)) {
            if *one > 0.0 {
                m.notes.push(format!(
                    "scaling: {:.2}x the 1-thread figure with {} threads",
                    many / one,
                    m.spec.threads
                ));
            }
        }
    }
    Ok(list)
}

/// The headline figure of a measurement: events/s, else bytes/s, else ops/s.
pub fn headline(m: &ComputeMeasurement) -> Option<f64> {
    m.events_per_sec.or(m.bytes_per_sec).or(m.ops_per_sec)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn thread_counts() {
        assert_eq!(Threads::One.counts(), vec![1]);
        assert_eq!(Threads::N(3).counts(), vec![3]);
        let all = Threads::All.counts();
        assert_eq!(all[0], 1);
        assert_eq!(*all.last().unwrap(), online_cpus());
    }

    #[test]
    fn library_versions_are_named() {
        let libs = library_versions();
        for name in ["aws-lc-rs", "aws-lc", "liblzma", "zstd"] {
            let v = libs.get(name).unwrap();
            assert!(v.chars().next().unwrap().is_ascii_digit(), "{name}: {v}");
        }
    }
}
