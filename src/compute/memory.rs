//! sysbench-compatible memory test: each thread writes (or reads) its own
//! 1 MiB block over and over, 4-byte integers one at a time, like sysbench
//! 1.0's `memory_execute_event` (src/tests/memory/sb_memory.c, sequential
//! access; `volatile int tmp` is the value written or the sink read into).
//!
//! A 1 MiB block fits in every server CPU's L2 or L3 cache, so this measures
//! the cache, not RAM. It exists so that old `sysbench memory
//! --memory-block-size=1M` tables can be put next to ours; the RAM figure is
//! `stream.rs`. Each thread has its own block (sysbench `--memory-scope=local`);
//! sysbench's default `global` scope makes all threads write one shared block,
//! so its multi-thread write figure also measures cache-line ping-pong.

use super::runner::{measurement, params, run_timed, Headline};
use super::ComputeOptions;
use crate::result::ComputeMeasurement;
use std::ptr::{read_volatile, write_volatile};

/// sysbench's `--memory-block-size` that this test mirrors.
pub const BLOCK: usize = 1 << 20;

/// One sysbench write event: store `value` into every 4-byte integer of the
/// block, one at a time. Volatile, so the compiler neither vectorizes nor drops
/// it (sysbench reads its `volatile int tmp` in every iteration to the same end).
pub fn sysbench_write_block(block: &mut [i32], value: i32) {
    let tmp = value;
    for slot in block.iter_mut() {
        // SAFETY: both pointers come from valid references.
        unsafe { write_volatile(slot, read_volatile(&tmp)) };
    }
}

/// One sysbench read event: load every 4-byte integer of the block, one at a
/// time, into a volatile sink. Returns the sum (for tests; sysbench returns nothing).
pub fn sysbench_read_block(block: &[i32]) -> i64 {
    let mut tmp: i32 = 0;
    let mut sum: i64 = 0;
    for slot in block.iter() {
        // SAFETY: both pointers come from valid references.
        unsafe {
            let v = read_volatile(slot);
            write_volatile(&mut tmp, v);
            sum = sum.wrapping_add(v as i64);
        }
    }
    sum
}

pub fn run(options: &ComputeOptions) -> anyhow::Result<Vec<ComputeMeasurement>> {
    let mut out = Vec::new();
    for oper in ["write", "read"] {
        for threads in options.threads.counts() {
            crate::cancel::check()?;
            let timed = run_timed(threads, options.runtime, |thread| {
                let mut block = vec![0i32; BLOCK / 4];
                let value = thread as i32 + 1;
                sysbench_write_block(&mut block, value);
                let expected = value as i64 * block.len() as i64;
                Ok(move || {
                    if oper == "write" {
                        sysbench_write_block(&mut block, value);
                    } else {
                        let sum = sysbench_read_block(&block);
                        anyhow::ensure!(
                            sum == expected,
                            "memory read back {sum}, expected {expected}"
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
                    format!("sysbench 1.0 `memory` arithmetic: 1 MiB block per thread, 4-byte {oper}s; comparable with `sysbench memory --memory-block-size=1M --memory-oper={oper} --memory-scope=local`"),
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
        let mut block = vec![0i32; 1024];
        sysbench_write_block(&mut block, 7);
        assert!(block.iter().all(|&v| v == 7));
        assert_eq!(sysbench_read_block(&block), 7 * 1024);
        block[5] = 0;
        assert_eq!(sysbench_read_block(&block), 7 * 1023);
    }
}
