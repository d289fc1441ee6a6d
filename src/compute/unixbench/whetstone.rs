//! The Double-Precision Whetstone (UnixBench's `whetstone-double`), written
//! in Rust from the benchmark's definition (Curnow and Wichmann's Whetstone
//! in Longbottom and Aburto's C/C++ form, which UnixBench builds with
//! double precision and wall-clock timing); none of UnixBench's C.
//!
//! One pass of one copy, as UnixBench's program does it: the eight timed
//! sections (array elements, array as parameter, conditional jumps, integer
//! arithmetic, trigonometry, procedure calls, array references, standard
//! functions), each `100 x xtra` times its own loop count. A calibration
//! (not counted) multiplies `xtra` by 5 until the sections take more than
//! a twentieth of the pass (UnixBench: 0.5 s of its 10 s), then scales it
//! to the pass's length; the timed run then gives
//! `MWIPS = xtra x 100 / (10 x TimeUsed)`, TimeUsed being the sum of the
//! sections' times with the first section's divided by its multiplier 10,
//! as the original counts it.
//!
//! The math functions are the C library's (`f64::sin` and the others call
//! libm, as the C program does); the arithmetic is rustc's LLVM's without
//! gcc's `-ffast-math`, so the figure is not the figure of a UnixBench built
//! on the host (the `unixbench-compiler` finding says so). Where a compiler
//! could prove that a section's loop leaves the same values every time
//! (integer arithmetic reaches a fixed point at once: j, k, l stay 1, 2, 3),
//! the values pass through `black_box` so the loop runs as written; the
//! floating-point chains cannot be folded and are left alone, and every
//! section's result reaches the check sum so no section is dead code.

use std::hint::black_box;
use std::time::{Duration, Instant};

/// What one run of the eight sections gave.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct WhetstoneSections {
    /// Seconds, the first section's divided by 10 (Whetstone's TimeUsed).
    pub time_used: f64,
    /// The sum of the sections' check values (Whetstone's `Check`).
    pub check: f64,
}

fn stop() -> bool {
    crate::cancel::cancelled()
}

/// The eight sections, `xtra` times each (`x100` = 100 in the benchmark).
pub fn whetstones(xtra: u64, x100: u64) -> WhetstoneSections {
    let t0: f64 = 0.49999975;
    let t1: f64 = 0.50000025;
    let t2: f64 = 2.0;
    let mut t = t0;
    let (n1, n2, n3, n4) = (12 * x100, 14 * x100, 345 * x100, 210 * x100);
    let (n5, n6, n7, n8) = (32 * x100, 899 * x100, 616 * x100, 93 * x100);
    let n1mult = 10;
    let mut time_used = 0.0;
    let mut check = 0.0;

    // Section 1: array elements.
    let mut e1 = [1.0f64, -1.0, -1.0, -1.0];
    let start = Instant::now();
    for _ in 0..xtra {
        if stop() {
            break;
        }
        for _ in 0..n1 * n1mult {
            e1[0] = (e1[0] + e1[1] + e1[2] - e1[3]) * t;
            e1[1] = (e1[0] + e1[1] - e1[2] + e1[3]) * t;
            e1[2] = (e1[0] - e1[1] + e1[2] + e1[3]) * t;
            e1[3] = (-e1[0] + e1[1] + e1[2] + e1[3]) * t;
        }
        t = 1.0 - t;
    }
    t = t0;
    time_used += start.elapsed().as_secs_f64() / n1mult as f64;
    check += e1[3];

    // Section 2: array as parameter.
    let start = Instant::now();
    for _ in 0..xtra {
        if stop() {
            break;
        }
        for _ in 0..n2 {
            pa(&mut e1, t, t2);
        }
        t = 1.0 - t;
    }
    t = t0;
    time_used += start.elapsed().as_secs_f64();
    check += e1[3];

    // Section 3: conditional jumps. j alternates between 0 and 1; it is
    // hidden from the compiler once per outer pass so no pass is skipped.
    let mut j: i64 = 1;
    let start = Instant::now();
    for _ in 0..xtra {
        if stop() {
            break;
        }
        j = black_box(j);
        for _ in 0..n3 {
            j = if j == 1 { 2 } else { 3 };
            j = if j > 2 { 0 } else { 1 };
            j = if j < 1 { 1 } else { 0 };
        }
    }
    time_used += start.elapsed().as_secs_f64();
    check += j as f64;

    // Section 4: integer arithmetic. From j, k, l = 1, 2, 3 every loop gives
    // 1, 2, 3 again: constant propagation would delete the loop, so j goes
    // through black_box each time round and the arithmetic is done.
    let (mut j, mut k, mut l): (i64, i64, i64) = (1, 2, 3);
    let start = Instant::now();
    for _ in 0..xtra {
        if stop() {
            break;
        }
        for _ in 0..n4 {
            j = black_box(j);
            j = j * (k - j) * (l - k);
            k = l * k - (l - j) * k;
            l = (l - k) * (k + j);
            e1[(l - 2) as usize & 3] = (j + k + l) as f64;
            e1[(k - 2) as usize & 3] = (j * k * l) as f64;
        }
    }
    time_used += start.elapsed().as_secs_f64();
    check += e1[0] + e1[1];

    // Section 5: trigonometric functions.
    let (mut x, mut y) = (0.5f64, 0.5f64);
    let start = Instant::now();
    for _ in 0..xtra {
        if stop() {
            break;
        }
        for _ in 1..n5 {
            x = t * (t2 * x.sin() * x.cos() / ((x + y).cos() + (x - y).cos() - 1.0)).atan();
            y = t * (t2 * y.sin() * y.cos() / ((x + y).cos() + (x - y).cos() - 1.0)).atan();
        }
        t = 1.0 - t;
    }
    t = t0;
    time_used += start.elapsed().as_secs_f64();
    check += y;

    // Section 6: procedure calls.
    let (mut x, mut y, mut z) = (1.0f64, 1.0f64, 1.0f64);
    let start = Instant::now();
    for _ in 0..xtra {
        if stop() {
            break;
        }
        for _ in 0..n6 {
            p3(&mut x, &mut y, &mut z, t, t1, t2);
        }
    }
    time_used += start.elapsed().as_secs_f64();
    check += z;

    // Section 7: array references. The three elements swap round with a
    // period of two loops; hidden once per outer pass like section 3.
    let (j, k, l) = (0usize, 1usize, 2usize);
    e1[0] = 1.0;
    e1[1] = 2.0;
    e1[2] = 3.0;
    let start = Instant::now();
    for _ in 0..xtra {
        if stop() {
            break;
        }
        black_box(&mut e1);
        for _ in 0..n7 {
            po(&mut e1, j, k, l);
        }
    }
    time_used += start.elapsed().as_secs_f64();
    check += e1[2];

    // Section 8: standard functions.
    let mut x = 0.75f64;
    let start = Instant::now();
    for _ in 0..xtra {
        if stop() {
            break;
        }
        for _ in 0..n8 {
            x = ((x.ln()) / t1).exp().sqrt();
        }
    }
    time_used += start.elapsed().as_secs_f64();
    check += x;

    WhetstoneSections {
        time_used,
        check: black_box(check),
    }
}

#[inline]
fn pa(e: &mut [f64; 4], t: f64, t2: f64) {
    for _ in 0..6 {
        e[0] = (e[0] + e[1] + e[2] - e[3]) * t;
        e[1] = (e[0] + e[1] - e[2] + e[3]) * t;
        e[2] = (e[0] - e[1] + e[2] + e[3]) * t;
        e[3] = (-e[0] + e[1] + e[2] + e[3]) / t2;
    }
}

#[inline]
fn p3(x: &mut f64, y: &mut f64, z: &mut f64, t: f64, t1: f64, t2: f64) {
    *x = *y;
    *y = *z;
    *x = t * (*x + *y);
    *y = t1 * (*x + *y);
    *z = (*x + *y) / t2;
}

#[inline]
fn po(e1: &mut [f64; 4], j: usize, k: usize, l: usize) {
    e1[j] = e1[k];
    e1[k] = e1[l];
    e1[l] = e1[j];
}

/// Whetstone's MWIPS from a timed run: `xtra x x100 / (10 x TimeUsed)`.
pub fn mwips(xtra: u64, x100: u64, time_used: f64) -> f64 {
    if time_used > 0.0 {
        xtra as f64 * x100 as f64 / (10.0 * time_used)
    } else {
        0.0
    }
}

/// The calibrated `xtra` for a timed run of `pass`: the benchmark's rule
/// (xtra x5 until TimeUsed exceeds `pass` / 20, at most 10 tries, then
/// scaled to `pass`).
fn calibrate(pass: Duration) -> u64 {
    let threshold = pass.as_secs_f64() / 20.0;
    let mut xtra: u64 = 1;
    let mut used = 0.0;
    for _ in 0..10 {
        used = whetstones(xtra, 100).time_used;
        if used > threshold || stop() {
            break;
        }
        xtra *= 5;
    }
    if used > 0.0 {
        xtra = (pass.as_secs_f64() * xtra as f64 / used) as u64;
    }
    xtra.max(1)
}

/// One copy's pass: calibrated, then timed; the count is its MWIPS.
pub fn whetstone_double(pass: Duration) -> anyhow::Result<super::kernels::CopyCount> {
    let start = Instant::now();
    let xtra = calibrate(pass);
    let s = whetstones(xtra, 100);
    let elapsed = start.elapsed();
    crate::cancel::check()?;
    anyhow::ensure!(
        s.check != 0.0 && s.check.is_finite(),
        "Whetstone's check sum is {} (a wrong answer)",
        s.check
    );
    Ok(super::kernels::CopyCount {
        count: mwips(xtra, 100, s.time_used),
        elapsed,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn mwips_is_the_originals_formula() {
        // 1,000 passes x 100 in 10 s of TimeUsed: 1,000 MWIPS.
        assert!((mwips(1000, 100, 10.0) - 1000.0).abs() < 1e-9);
        assert_eq!(mwips(5, 100, 0.0), 0.0);
    }

    #[test]
    fn sections_give_the_benchmarks_values() {
        let s = whetstones(1, 1);
        assert!(s.time_used > 0.0);
        assert!(s.check.is_finite() && s.check != 0.0, "{s:?}");
        // More passes take longer: the work is not folded away.
        let short = (0..3)
            .map(|_| whetstones(2, 100).time_used)
            .fold(f64::MAX, f64::min);
        let long = (0..3)
            .map(|_| whetstones(40, 100).time_used)
            .fold(f64::MAX, f64::min);
        assert!(long > short * 5.0, "2 passes {short} s, 40 passes {long} s");
    }

    #[test]
    fn a_short_pass_gives_mwips() {
        let c = whetstone_double(Duration::from_millis(200)).unwrap();
        assert!(c.count > 1.0 && c.count.is_finite(), "{c:?}");
        // Calibration stops only past a twentieth of the pass, so that much
        // is certain; the timed pass's own length follows the calibration's
        // speed (as in UnixBench), which a busy CPU skews either way.
        assert!(c.elapsed >= Duration::from_millis(10), "{c:?}");
    }
}
