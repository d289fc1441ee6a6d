//! sysbench-compatible memory test: each thread writes (or reads) its own
//! 1 MiB block over and over, one 8-byte word at a time, like sysbench
//! 1.0.20's `event_seq_write` / `event_seq_read` (src/tests/memory/sb_memory.c:
//! `ck_pr_store_64(buf, end - buf)` and `ck_pr_load_64(buf)` on size_t words:
//! one inline-asm `mov` each, as here).
//!
//! A 1 MiB block fits in every server CPU's L2 or L3 cache, so this measures
//! the cache, not RAM. It exists so that old `sysbench memory
//! --memory-block-size=1M` tables can be put next to ours; the RAM figure is
//! `stream.rs`. Each thread has its own block (sysbench `--memory-scope=local`);
//! sysbench's default `global` scope makes all threads use one shared block,
//! so its multi-thread write figure also measures cache-line ping-pong.

use super::runner::{measurement, params, run_timed, Headline};
use super::ComputeOptions;
use crate::result::ComputeMeasurement;

/// sysbench's `--memory-block-size` that this test mirrors.
pub const BLOCK: usize = 1 << 20;

/// One sysbench write event: word i of n gets n - i (sysbench's `end - buf`),
/// one 8-byte store at a time.
///
/// sysbench stores with ConcurrencyKit's `ck_pr_store_64`, one inline-asm
/// `mov` per word, and GCC keeps that loop as it is. A plain volatile loop in
/// Rust gets unrolled by LLVM and ran 1.3x faster than sysbench on the same
/// machine, so on x86_64 the store is the same single `mov` in inline
/// assembly, which LLVM does not unroll either.
pub fn sysbench_write_block(block: &mut [u64]) {
    let range = block.as_mut_ptr_range();
    let (mut p, end) = (range.start, range.end);
    while p < end {
        // SAFETY: start <= p < end, all inside `block`.
        unsafe {
            let value = end.offset_from(p) as u64;
            store_u64(p, value);
            p = p.add(1);
        }
    }
}

/// One sysbench read event: one 8-byte load per word (`ck_pr_load_64`, an
/// inline-asm `mov`, as in sysbench). sysbench discards the values; we XOR
/// them together (one register op per load) so a test can check that every
/// word was read.
pub fn sysbench_read_block(block: &[u64]) -> u64 {
    let range = block.as_ptr_range();
    let (mut p, end) = (range.start, range.end);
    let mut x = 0u64;
    while p < end {
        // SAFETY: start <= p < end, all inside `block`.
        unsafe {
            x ^= load_u64(p);
            p = p.add(1);
        }
    }
    x
}

/// `*p = v` as one `mov` the compiler can neither drop, merge nor unroll around.
///
/// # Safety
/// `p` must be valid for an aligned 8-byte write.
#[inline(always)]
unsafe fn store_u64(p: *mut u64, v: u64) {
    #[cfg(target_arch = "x86_64")]
    std::arch::asm!("mov qword ptr [{p}], {v}", p = in(reg) p, v = in(reg) v, options(nostack, preserves_flags));
    #[cfg(not(target_arch = "x86_64"))]
    std::ptr::write_volatile(p, v);
}

/// `*p` as one `mov` the compiler can neither drop nor merge.
///
/// # Safety
/// `p` must be valid for an aligned 8-byte read.
#[inline(always)]
unsafe fn load_u64(p: *const u64) -> u64 {
    #[cfg(target_arch = "x86_64")]
    {
        let v: u64;
        std::arch::asm!("mov {v}, qword ptr [{p}]", p = in(reg) p, v = out(reg) v, options(nostack, preserves_flags, readonly));
        v
    }
    #[cfg(not(target_arch = "x86_64"))]
    std::ptr::read_volatile(p)
}

/// What `sysbench_read_block` returns for a block `sysbench_write_block` wrote.
pub fn written_block_xor(words: usize) -> u64 {
    (1..=words as u64).fold(0, |x, v| x ^ v)
}

pub fn run(options: &ComputeOptions) -> anyhow::Result<Vec<ComputeMeasurement>> {
    let mut out = Vec::new();
    for oper in ["write", "read"] {
        for threads in options.threads.counts() {
            crate::cancel::check()?;
            let timed = run_timed(threads, options.runtime, |_| {
                let mut block = vec![0u64; BLOCK / 8];
                sysbench_write_block(&mut block);
                let expected = written_block_xor(block.len());
                Ok(move || {
                    if oper == "write" {
                        sysbench_write_block(&mut block);
                    } else {
                        let x = sysbench_read_block(&block);
                        anyhow::ensure!(
                            x == expected,
                            "memory read back {x:#x}, expected {expected:#x}"
                        );
                    }
                    Ok(1)
                })
            })?;
            out.push(measurement(
                &format!("sysbench-memory-{oper}"),
                options.runtime,
                params([
                    ("block_size", (BLOCK as u64).into()),
                    ("oper", oper.into()),
                    ("access", "seq".into()),
                    ("scope", "local".into()),
                ]),
                &timed,
                Headline::Bytes,
                BLOCK as f64,
                vec![
                    format!("sysbench 1.0 `memory` arithmetic: 1 MiB block per thread, 8-byte {oper}s; comparable with `sysbench memory --memory-block-size=1M --memory-oper={oper} --memory-scope=local`"),
                    "CPU cache bandwidth, NOT RAM: a 1 MiB block stays in L2/L3; see the stream-* tests for RAM".into(),
                ],
            ));
        }
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn write_then_read_back() {
        let mut block = vec![0u64; 1027];
        sysbench_write_block(&mut block);
        assert!(block.iter().enumerate().all(|(i, &v)| v == 1027 - i as u64));
        assert_eq!(sysbench_read_block(&block), written_block_xor(1027));
        block[5] ^= 1 << 40;
        assert_ne!(sysbench_read_block(&block), written_block_xor(1027));
    }
}
