//! sysbench-compatible CPU test: prime counting by trial division.
//!
//! This mirrors sysbench 1.0's `cpu_execute_event` (src/tests/cpu/sb_cpu.c)
//! exactly, because the arithmetic is the point: users compare our events/s
//! with years of `sysbench cpu --cpu-max-prime=20000` tables. sysbench uses
//! `unsigned long long` for the candidate `c` and the divisor `l`, a `double`
//! square root `t`, compares `l <= t` in double precision, and counts `c`
//! from 3 while `c < max_prime` (so 2 is never counted). One event is one
//! full sweep. The cost is dominated by 64-bit integer division, so the figure
//! says how fast a core divides, not how it does on branchy or vector code.

use super::runner::{measurement, params, run_timed, Headline};
use super::ComputeOptions;
use crate::result::ComputeMeasurement;
use std::hint::black_box;

/// sysbench's `--cpu-max-prime` that every published table uses.
pub const MAX_PRIME: u64 = 20000;

/// One sysbench event: the number of primes p with 3 <= p < max_prime.
///
/// Written the way sysbench's machine code runs, not only its C source:
/// GCC (Debian's sysbench 1.0.20) tests `c % 2` with a bit test, and its
/// inner loop converts the unsigned divisor to double with a sign check on
/// every step (`add rcx,1; jns`: the slow path for divisors of 2^63 and up
/// is never taken, but the branch is paid), then divides with a 64-bit
/// `div`. LLVM, left to itself, drops that sign check (the divisor is known
/// small) and rotates the loop: 10 instructions a step instead of sysbench's
/// 11, which made candor's events/s read 1.03-1.12x sysbench's on this
/// project's VM (callgrind: 3.14M against 3.37M instructions an event). So
/// on x86_64 the inner loop is sysbench's own instruction sequence, in
/// inline assembly; elsewhere it is the C source's loop as LLVM compiles it
/// (with a NonZero divisor, so that it has no more checks than sysbench's
/// C), and `what_runs` says how that compares with Debian's sysbench builds
/// for arm64 and armhf (read from their disassembly: BENCHMARKS.md, "ARM").
pub fn count_primes(max_prime: u64) -> u64 {
    // black_box: the optimizer must neither know the bound nor drop the loop.
    let max_prime = black_box(max_prime);
    let mut n: u64 = 0;
    let mut c: u64 = 3;
    while c < max_prime {
        let t = (c as i64 as f64).sqrt();
        let mut l: u64 = 2;
        // l = 2, peeled: sysbench breaks here when c is even.
        if 2.0 <= t && c & 1 != 0 {
            l = divide_from_3(c, t);
        }
        if (l as i64 as f64) > t {
            n += 1;
        }
        c += 1;
    }
    black_box(n)
}

/// sysbench's inner loop from l = 3: the first l with l > t or c % l == 0.
#[inline(always)]
fn divide_from_3(c: u64, t: f64) -> u64 {
    #[cfg(target_arch = "x86_64")]
    {
        let mut l: u64 = 3;
        // SAFETY: plain register arithmetic. `div` divides rdx:rax by l with
        // rdx = 0 and l >= 3, so it cannot fault; the loop ends because l
        // grows past t (t < 2^32 for every c here).
        unsafe {
            std::arch::asm!(
                "2:",
                "pxor {x}, {x}",
                "cvtsi2sd {x}, {l}",
                "comisd {t}, {x}",
                "jb 4f",
                "3:",
                "mov rax, {c}",
                "xor edx, edx",
                "div {l}",
                "test rdx, rdx",
                "je 4f",
                "add {l}, 1",
                "jns 2b",
                // l >= 2^63: the unsigned conversion GCC emits (never reached here).
                "mov {s}, {l}",
                "mov rdx, {l}",
                "pxor {x}, {x}",
                "shr {s}, 1",
                "and edx, 1",
                "or {s}, rdx",
                "cvtsi2sd {x}, {s}",
                "addsd {x}, {x}",
                "comisd {t}, {x}",
                "jae 3b",
                "4:",
                l = inout(reg) l,
                c = in(reg) c,
                t = in(xmm_reg) t,
                x = out(xmm_reg) _,
                s = out(reg) _,
                out("rax") _,
                out("rdx") _,
                options(pure, nomem, nostack),
            );
        }
        l
    }
    #[cfg(not(target_arch = "x86_64"))]
    {
        let mut l: u64 = 3;
        while (l as f64) <= t {
            // SAFETY: l starts at 3 and only grows, and stays below t + 1 <
            // 2^32: it is never 0. A NonZero divisor drops the division-by-
            // zero check Rust adds to `%` (one more compare and branch a
            // step than sysbench's C, which has none).
            let divisor = unsafe { std::num::NonZeroU64::new_unchecked(l) };
            if c % divisor == 0 {
                break;
            }
            l += 1;
        }
        l
    }
}

/// What the inner loop is on this architecture, and how it relates to
/// `sysbench cpu` there: the same work per event everywhere; sysbench's own
/// instruction sequence only on x86_64, where it was read and copied.
pub fn what_runs(arch: &str) -> String {
    const WORK: &str =
        "one event = trial division of every c < max_prime by 2..=sqrt(c), 64-bit integers";
    match arch {
        "x86_64" => format!(
            "sysbench 1.0 `cpu` arithmetic, in the instruction sequence Debian's sysbench 1.0.20 runs on x86_64: {WORK}; comparable with `sysbench cpu --cpu-max-prime=20000` events/s"
        ),
        "aarch64" => format!(
            "sysbench 1.0 `cpu` work per event ({WORK}); on aarch64 each step of the inner loop has the instructions of Debian's sysbench 1.0.20 arm64 build (udiv and msub for the remainder, ucvtf and fcmp for l <= t, add and a branch) plus one sub (LLVM keeps l + 1 in a register): 8 instructions a step against sysbench's 7, compiled by LLVM, not copied; events/s compare with `sysbench cpu --cpu-max-prime=20000` on the same host as the same work and nearly the same instructions"
        ),
        "arm" => format!(
            "sysbench 1.0 `cpu` work per event ({WORK}); ARMv7 has no 64-bit divide and no 64-bit-integer-to-double instruction, so each step calls libgcc's __aeabi_uldivmod and __aeabi_ul2d, the same routines Debian's sysbench 1.0.20 armhf build calls (16 instructions a step around them in both), compiled by LLVM as ARM code where sysbench's is Thumb-2; events/s compare with `sysbench cpu --cpu-max-prime=20000` on the same host as the same work and the same library calls, not the same instructions"
        ),
        other => format!(
            "sysbench 1.0 `cpu` work per event ({WORK}) in LLVM's instruction sequence for {other}, not compared with a sysbench build there; events/s compare with `sysbench cpu --cpu-max-prime=20000` on the same host as the same work, not the same instructions"
        ),
    }
}

pub fn run(options: &ComputeOptions) -> anyhow::Result<Vec<ComputeMeasurement>> {
    let expected = count_primes(MAX_PRIME);
    let mut out = Vec::new();
    for threads in options.threads.counts() {
        crate::cancel::check()?;
        let timed = run_timed(threads, options.runtime, |_| {
            Ok(move || {
                let n = count_primes(MAX_PRIME);
                anyhow::ensure!(
                    n == expected,
                    "prime count changed between sweeps: {n} != {expected}"
                );
                Ok(1)
            })
        })?;
        out.push(measurement(
            "primes",
            options.runtime,
            params([("max_prime", MAX_PRIME.into())]),
            &timed,
            Headline::Events,
            1.0,
            vec![
                what_runs(std::env::consts::ARCH),
                "measures integer division speed of a core; says little about vector, floating-point or memory-bound work".into(),
            ],
        ));
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// pi(n - 1) - 1: sysbench counts primes from 3 up to max_prime - 1.
    #[test]
    fn the_note_names_what_runs_on_each_architecture() {
        assert!(what_runs("x86_64")
            .contains("instruction sequence Debian's sysbench 1.0.20 runs on x86_64"));
        for arch in ["aarch64", "arm", "riscv64"] {
            let note = what_runs(arch);
            assert!(!note.contains("x86"), "{arch}: {note}");
            assert!(
                note.contains("compiled by LLVM") || note.contains("LLVM's"),
                "{arch}: {note}"
            );
        }
        // What was read from Debian's sysbench 1.0.20 builds (BENCHMARKS.md, "ARM").
        assert!(what_runs("aarch64").contains("8 instructions a step against sysbench's 7"));
        assert!(what_runs("arm").contains("__aeabi_uldivmod and __aeabi_ul2d, the same routines"));
        assert!(what_runs("arm").contains("not the same instructions"));
        assert!(what_runs("riscv64").contains("not compared with a sysbench build"));
    }

    #[test]
    fn known_prime_counts() {
        assert_eq!(count_primes(20000) + 1, 2262); // pi(20000) = 2262
        assert_eq!(count_primes(10000) + 1, 1229); // pi(10^4)
        assert_eq!(count_primes(1000) + 1, 168); // pi(10^3)
        assert_eq!(count_primes(100) + 1, 25); // pi(100)
        assert_eq!(count_primes(3), 0); // the loop starts at 3 and stops before max_prime
        assert_eq!(count_primes(4), 1); // 3
                                        // Squares of primes must not be counted (the l <= t boundary).
        assert_eq!(count_primes(10) + 1, 4); // 2 3 5 7, not 9
        assert_eq!(count_primes(50) + 1, 15); // 25 and 49 excluded
    }

    #[test]
    fn matches_plain_trial_division() {
        fn plain(max: u64) -> u64 {
            (3..max)
                .filter(|&c| (2..c).take_while(|l| l * l <= c).all(|l| c % l != 0))
                .count() as u64
        }
        for max in [5, 17, 18, 121, 122, 1000, 4097] {
            assert_eq!(count_primes(max), plain(max), "max_prime {max}");
        }
    }
}
