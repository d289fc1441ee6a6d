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
/// This mirrors the machine code of Debian's sysbench 1.0.20, not only its C
/// source: every store is ConcurrencyKit's `ck_pr_store_64` (one inline-asm
/// `mov`), and GCC unrolled the loop 8 times, each store at a constant offset
/// from one pointer. Plain Rust loops ran 0.43x to 1.37x sysbench's figure on
/// the same machine depending on how LLVM unrolled them and computed the
/// values, so on x86_64 each group of 8 is sysbench's instruction sequence in
/// inline assembly.
pub fn sysbench_write_block(block: &mut [u64]) {
    let end = block.as_ptr_range().end;
    let mut chunks = block.chunks_exact_mut(8);
    for c in &mut chunks {
        store8(c, end);
    }
    let rest = chunks.into_remainder();
    let mut left = rest.len() as u64;
    for slot in rest {
        // SAFETY: the pointer comes from a valid reference.
        unsafe { std::ptr::write_volatile(slot, left) };
        left -= 1;
    }
}

/// One sysbench read event: one 8-byte load per word (`ck_pr_load_64`, an
/// inline-asm `mov`), 8 to a loop iteration as in Debian's sysbench binary.
/// sysbench discards the values; we XOR them together so a test can check
/// that every word was read.
pub fn sysbench_read_block(block: &[u64]) -> u64 {
    let mut chunks = block.chunks_exact(8);
    let mut x = 0;
    for c in &mut chunks {
        x ^= load8(c);
    }
    for slot in chunks.remainder() {
        // SAFETY: the pointer comes from a valid reference.
        x ^= unsafe { std::ptr::read_volatile(slot) };
    }
    x
}

/// Stores n, n-1, ..., n-7 into the 8 words, where n is the number of words
/// from the first of them to `end`: per word, the same five instructions as
/// Debian's sysbench (`lea`, `mov`, `sub`, `sar`, then the store's `mov`).
#[inline(always)]
fn store8(c: &mut [u64], end: *const u64) {
    assert_eq!(c.len(), 8);
    #[cfg(target_arch = "x86_64")]
    // SAFETY: `c` holds 8 words; the block writes exactly those.
    unsafe {
        std::arch::asm!(
            "mov {t}, {end}",
            "sub {t}, {p}",
            "sar {t}, 3",
            "mov qword ptr [{p}], {t}",
            "lea {q}, [{p} + 8]",
            "mov {t}, {end}",
            "sub {t}, {q}",
            "sar {t}, 3",
            "mov qword ptr [{p} + 8], {t}",
            "lea {q}, [{p} + 16]",
            "mov {t}, {end}",
            "sub {t}, {q}",
            "sar {t}, 3",
            "mov qword ptr [{p} + 16], {t}",
            "lea {q}, [{p} + 24]",
            "mov {t}, {end}",
            "sub {t}, {q}",
            "sar {t}, 3",
            "mov qword ptr [{p} + 24], {t}",
            "lea {q}, [{p} + 32]",
            "mov {t}, {end}",
            "sub {t}, {q}",
            "sar {t}, 3",
            "mov qword ptr [{p} + 32], {t}",
            "lea {q}, [{p} + 40]",
            "mov {t}, {end}",
            "sub {t}, {q}",
            "sar {t}, 3",
            "mov qword ptr [{p} + 40], {t}",
            "lea {q}, [{p} + 48]",
            "mov {t}, {end}",
            "sub {t}, {q}",
            "sar {t}, 3",
            "mov qword ptr [{p} + 48], {t}",
            "lea {q}, [{p} + 56]",
            "mov {t}, {end}",
            "sub {t}, {q}",
            "sar {t}, 3",
            "mov qword ptr [{p} + 56], {t}",
            p = in(reg) c.as_mut_ptr(),
            end = in(reg) end,
            t = out(reg) _,
            q = out(reg) _,
            options(nostack),
        );
    }
    #[cfg(not(target_arch = "x86_64"))]
    {
        // SAFETY: both pointers are inside (or one past) the same block.
        let first = unsafe { end.offset_from(c.as_ptr()) } as u64;
        for (k, slot) in c.iter_mut().enumerate() {
            // SAFETY: the pointer comes from a valid reference.
            unsafe { std::ptr::write_volatile(slot, first - k as u64) };
        }
    }
}

/// The XOR of the 8 words, loaded with one `mov` each.
#[inline(always)]
fn load8(c: &[u64]) -> u64 {
    assert_eq!(c.len(), 8);
    #[cfg(target_arch = "x86_64")]
    {
        let (a, b, c2, d, e, f, g, h): (u64, u64, u64, u64, u64, u64, u64, u64);
        // SAFETY: `c` holds 8 words; the block reads exactly those.
        unsafe {
            std::arch::asm!(
                "mov {a}, qword ptr [{p}]",
                "mov {b}, qword ptr [{p} + 8]",
                "mov {c}, qword ptr [{p} + 16]",
                "mov {d}, qword ptr [{p} + 24]",
                "mov {e}, qword ptr [{p} + 32]",
                "mov {f}, qword ptr [{p} + 40]",
                "mov {g}, qword ptr [{p} + 48]",
                "mov {h}, qword ptr [{p} + 56]",
                p = in(reg) c.as_ptr(),
                a = out(reg) a,
                b = out(reg) b,
                c = out(reg) c2,
                d = out(reg) d,
                e = out(reg) e,
                f = out(reg) f,
                g = out(reg) g,
                h = out(reg) h,
                options(nostack, preserves_flags, readonly),
            );
        }
        (a ^ b) ^ (c2 ^ d) ^ ((e ^ f) ^ (g ^ h))
    }
    #[cfg(not(target_arch = "x86_64"))]
    c.iter().fold(0, |x, slot| {
        // SAFETY: the pointer comes from a valid reference.
        x ^ unsafe { std::ptr::read_volatile(slot) }
    })
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
