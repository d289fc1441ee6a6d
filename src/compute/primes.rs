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
/// GCC (Debian's sysbench 1.0.20) tests `c % 2` with a bit test and divides
/// by l >= 3 with a 64-bit `div`; LLVM would instead add a 32-bit division
/// fast path, which is far faster on older Intel cores and would break the
/// comparison there. So l = 2 is a bit test here too, the other divisions
/// are a 64-bit `div` in inline assembly on x86_64, and integers convert to
/// double through the signed conversion (exact: all values are below 2^63).
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
            l = 3;
            while (l as i64 as f64) <= t {
                if rem_u64(c, l) == 0 {
                    break;
                }
                l += 1;
            }
        }
        if (l as i64 as f64) > t {
            n += 1;
        }
        c += 1;
    }
    black_box(n)
}

/// `c % l` with the 64-bit `div` instruction (l is never 0 here).
#[inline(always)]
fn rem_u64(c: u64, l: u64) -> u64 {
    #[cfg(target_arch = "x86_64")]
    {
        let rem: u64;
        // SAFETY: `div` divides rdx:rax by l; rdx = 0 and l >= 3, so it cannot fault.
        unsafe {
            std::arch::asm!(
                "div {l}",
                l = in(reg) l,
                inout("rax") c => _,
                inout("rdx") 0u64 => rem,
                options(pure, nomem, nostack),
            );
        }
        rem
    }
    #[cfg(not(target_arch = "x86_64"))]
    {
        c % l
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
                "sysbench 1.0 `cpu` arithmetic: one event = trial division of every c < max_prime by 2..=sqrt(c), 64-bit integers; comparable with `sysbench cpu --cpu-max-prime=20000` events/s".into(),
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
