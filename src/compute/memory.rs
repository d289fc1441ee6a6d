//! sysbench-compatible memory test: each thread writes (or reads) its own
//! 1 MiB block over and over, one 8-byte word at a time, like sysbench
//! 1.0.20's `event_seq_write` / `event_seq_read` (src/tests/memory/sb_memory.c:
//! `ck_pr_store_64(buf, end - buf)` and `ck_pr_load_64(buf)` on size_t words,
//! which the compiler may neither vectorize nor drop; volatile here).
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
use std::ptr::{read_volatile, write_volatile};

/// sysbench's `--memory-block-size` that this test mirrors.
pub const BLOCK: usize = 1 << 20;

/// One sysbench write event: word i of n gets n - i (sysbench's `end - buf`),
/// one volatile 8-byte store at a time.
pub fn sysbench_write_block(block: &mut [u64]) {
    let n = block.len() as u64;
    for (i, slot) in block.iter_mut().enumerate() {
        // SAFETY: the pointer comes from a valid reference.
        unsafe { write_volatile(slot, n - i as u64) };
    }
}

/// One sysbench read event: one volatile 8-byte load per word. sysbench
/// discards the values; we fold them into four independent XOR accumulators
/// (one ALU op per load, no dependency chain that would slow the loads) so a
/// test can check every word was read.
pub fn sysbench_read_block(block: &[u64]) -> u64 {
    let mut acc = [0u64; 4];
    let mut chunks = block.chunks_exact(4);
    for c in &mut chunks {
        for (a, slot) in acc.iter_mut().zip(c) {
            // SAFETY: the pointer comes from a valid reference.
            *a ^= unsafe { read_volatile(slot) };
        }
    }
    for slot in chunks.remainder() {
        // SAFETY: as above.
        acc[0] ^= unsafe { read_volatile(slot) };
    }
    acc[0] ^ acc[1] ^ acc[2] ^ acc[3]
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
