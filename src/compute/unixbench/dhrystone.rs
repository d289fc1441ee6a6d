//! Dhrystone 2.1 (UnixBench's `dhry2reg`), written in Rust from the
//! benchmark's published definition (Weicker's Dhrystone 2.1: its
//! procedures, what each one does to the globals and records, and the final
//! values a correct run must leave); none of UnixBench's C. One *loop* is one
//! run through Dhrystone's main body (UnixBench's `Run_Index` counts them),
//! the score is loops per second.
//!
//! Dhrystone measures the compiler as much as the CPU: this is rustc's
//! LLVM's code for it, not the host's gcc's, so its figure is not the figure
//! of a UnixBench built on the same host (the `unixbench-compiler` finding
//! says so, and BENCHMARKS.md by how much on candor's bench machine).
//!
//! What keeps the comparison fair: the C program is two files (dhry_1.c
//! with the main loop and Proc_1 to Proc_5, dhry_2.c with Proc_6 to Proc_8
//! and Func_1 to Func_3), compiled separately without link-time
//! optimisation, so gcc cannot inline or fold the second file's procedures
//! into the loop. The procedures of the second file are `#[inline(never)]`
//! for calls from the first (within the second file, where gcc may inline
//! Func_1 into Func_2 and Func_3 into Proc_6, they may be inlined here too), and the whole state passes through
//! `black_box` once per loop, as C's globals are memory a call in another
//! file may read: without that LLVM, which sees every line, could prove
//! that each loop leaves the same values and run one loop for all of them.
//! `strcmp` is the C library's, as in the C program.

use std::hint::black_box;
use std::time::{Duration, Instant};

const IDENT_1: i32 = 0;
const IDENT_2: i32 = 1;
const IDENT_3: i32 = 2;
const IDENT_4: i32 = 3;
const IDENT_5: i32 = 4;

type Str30 = [u8; 31];

/// A 30-character string and its terminating NUL, as Dhrystone's `Str_30`.
const fn str30(s: &[u8; 30]) -> Str30 {
    let mut out = [0u8; 31];
    let mut i = 0;
    while i < 30 {
        out[i] = s[i];
        i += 1;
    }
    out
}

const SOME_STRING: Str30 = str30(b"DHRYSTONE PROGRAM, SOME STRING");
const FIRST_STRING: Str30 = str30(b"DHRYSTONE PROGRAM, 1'ST STRING");
const SECOND_STRING: Str30 = str30(b"DHRYSTONE PROGRAM, 2'ND STRING");
const THIRD_STRING: Str30 = str30(b"DHRYSTONE PROGRAM, 3'RD STRING");

/// Dhrystone's record (variant 1, the only one the program uses); `next` is
/// its `Ptr_Comp`, an index into `Dhry::records`.
#[derive(Debug, Clone, Copy, PartialEq)]
struct Record {
    next: usize,
    discr: i32,
    enum_comp: i32,
    int_comp: i32,
    str_comp: Str30,
}

/// Dhrystone's globals: `Ptr_Glob` is record 0, `Next_Ptr_Glob` record 1.
#[derive(Debug, Clone)]
pub struct Dhry {
    records: [Record; 2],
    ptr_glob: usize,
    int_glob: i32,
    bool_glob: bool,
    ch_1_glob: u8,
    ch_2_glob: u8,
    arr_1_glob: [i32; 50],
    arr_2_glob: [[i32; 50]; 50],
    /// Main's locals that outlive one loop (`Str_1_Loc`) or that the final
    /// check reads (the others, as they are after the last loop).
    str_1_loc: Str30,
    locals: (i32, i32, i32, i32),
}

impl Default for Dhry {
    fn default() -> Self {
        Self::new()
    }
}

impl Dhry {
    /// The state after Dhrystone's initialisation.
    pub fn new() -> Self {
        let next = Record {
            next: 0,
            discr: 0,
            enum_comp: 0,
            int_comp: 0,
            str_comp: [0; 31],
        };
        let glob = Record {
            next: 1,
            discr: IDENT_1,
            enum_comp: IDENT_3,
            int_comp: 40,
            str_comp: SOME_STRING,
        };
        let mut arr_2_glob = [[0; 50]; 50];
        arr_2_glob[8][7] = 10;
        Dhry {
            records: [glob, next],
            ptr_glob: 0,
            int_glob: 0,
            bool_glob: false,
            ch_1_glob: 0,
            ch_2_glob: 0,
            arr_1_glob: [0; 50],
            arr_2_glob,
            str_1_loc: FIRST_STRING,
            locals: (0, 0, 0, 0),
        }
    }

    /// One run through Dhrystone's main body; `run_index` is the loop's number (from 1).
    #[inline(always)]
    pub fn one_loop(&mut self, run_index: u64) {
        proc_5(self);
        proc_4(self);
        let mut int_1_loc: i32 = 2;
        let mut int_2_loc: i32 = 3;
        let mut str_2_loc: Str30 = SECOND_STRING;
        let mut enum_loc = IDENT_2;
        let str_1_loc = self.str_1_loc;
        self.bool_glob = !func_2(self, &str_1_loc, &str_2_loc);
        let mut int_3_loc: i32 = 0;
        while int_1_loc < int_2_loc {
            int_3_loc = 5 * int_1_loc - int_2_loc;
            proc_7(int_1_loc, int_2_loc, &mut int_3_loc);
            int_1_loc += 1;
        }
        proc_8(
            &mut self.arr_1_glob,
            &mut self.arr_2_glob,
            &mut self.int_glob,
            int_1_loc,
            int_3_loc,
        );
        proc_1(self, self.ptr_glob);
        let mut ch_index = b'A';
        while ch_index <= self.ch_2_glob {
            if enum_loc == func_1(self, ch_index, b'C') {
                // Never taken in a correct run (Dhrystone says so); kept as it is.
                proc_6(self.int_glob, IDENT_1, &mut enum_loc);
                str_2_loc = THIRD_STRING;
                int_2_loc = run_index as i32;
                self.int_glob = run_index as i32;
            }
            ch_index += 1;
        }
        int_2_loc = int_2_loc.wrapping_mul(int_1_loc);
        int_1_loc = int_2_loc / int_3_loc;
        int_2_loc = 7 * (int_2_loc - int_3_loc) - int_1_loc;
        proc_2(self, &mut int_1_loc);
        black_box(&str_2_loc);
        self.locals = (int_1_loc, int_2_loc, int_3_loc, enum_loc);
    }

    /// Whether the state is what Dhrystone says a correct run of `runs` loops leaves.
    pub fn is_correct(&self, runs: u64) -> bool {
        let g = &self.records[self.ptr_glob];
        let n = &self.records[g.next];
        self.int_glob == 5
            && self.bool_glob
            && self.ch_1_glob == b'A'
            && self.ch_2_glob == b'B'
            && self.arr_1_glob[8] == 7
            && i64::from(self.arr_2_glob[8][7]) == runs as i64 + 10
            && (g.discr, g.enum_comp, g.int_comp, g.str_comp) == (0, 2, 17, SOME_STRING)
            && (n.discr, n.enum_comp, n.int_comp, n.str_comp) == (0, 1, 18, SOME_STRING)
            && g.next == n.next
            && self.locals == (5, 13, 7, 1)
            && self.str_1_loc == FIRST_STRING
    }
}

// Dhrystone's first file: Proc_1 to Proc_5 (gcc may inline these into the loop; so may LLVM).

#[inline]
fn proc_1(d: &mut Dhry, ptr_val_par: usize) {
    let next_record = d.records[ptr_val_par].next;
    // structassign (*Ptr_Val_Par->Ptr_Comp, *Ptr_Glob)
    d.records[next_record] = d.records[d.ptr_glob];
    d.records[ptr_val_par].int_comp = 5;
    d.records[next_record].int_comp = d.records[ptr_val_par].int_comp;
    d.records[next_record].next = d.records[ptr_val_par].next;
    let mut next_ptr = d.records[next_record].next;
    proc_3(d, &mut next_ptr);
    d.records[next_record].next = next_ptr;
    if d.records[next_record].discr == IDENT_1 {
        d.records[next_record].int_comp = 6;
        let mut e = d.records[next_record].enum_comp;
        proc_6(d.int_glob, d.records[ptr_val_par].enum_comp, &mut e);
        d.records[next_record].enum_comp = e;
        d.records[next_record].next = d.records[d.ptr_glob].next;
        let mut i = d.records[next_record].int_comp;
        proc_7(i, 10, &mut i);
        d.records[next_record].int_comp = i;
    } else {
        let from = d.records[ptr_val_par].next;
        d.records[ptr_val_par] = d.records[from];
    }
}

#[inline]
fn proc_2(d: &Dhry, int_par_ref: &mut i32) {
    let mut int_loc = *int_par_ref + 10;
    let mut enum_loc = IDENT_1; // 0, the value the C source starts it with
    loop {
        if d.ch_1_glob == b'A' {
            int_loc -= 1;
            *int_par_ref = int_loc - d.int_glob;
            enum_loc = IDENT_1;
        }
        if enum_loc == IDENT_1 {
            break;
        }
    }
}

#[inline]
fn proc_3(d: &mut Dhry, ptr_ref_par: &mut usize) {
    // Ptr_Glob is never null here (a record index), as in every Dhrystone run.
    *ptr_ref_par = d.records[d.ptr_glob].next;
    let g = d.ptr_glob;
    let mut i = d.records[g].int_comp;
    proc_7(10, d.int_glob, &mut i);
    d.records[g].int_comp = i;
}

#[inline]
fn proc_4(d: &mut Dhry) {
    let bool_loc = d.ch_1_glob == b'A';
    d.bool_glob |= bool_loc;
    d.ch_2_glob = b'B';
}

#[inline]
fn proc_5(d: &mut Dhry) {
    d.ch_1_glob = b'A';
    d.bool_glob = false;
}

// Dhrystone's second file: compiled apart from the loop in C, so never inlined
// into it; its calls to its own functions (Func_1 from Func_2, Func_3 from
// Proc_6) are within one C file and may be inlined (`func_1_in`, `func_3_in`).

#[inline(never)]
fn proc_6(int_glob: i32, enum_val_par: i32, enum_ref_par: &mut i32) {
    *enum_ref_par = enum_val_par;
    if !func_3_in(enum_val_par) {
        *enum_ref_par = IDENT_4;
    }
    match enum_val_par {
        IDENT_1 => *enum_ref_par = IDENT_1,
        IDENT_2 => *enum_ref_par = if int_glob > 100 { IDENT_1 } else { IDENT_4 },
        IDENT_3 => *enum_ref_par = IDENT_2,
        IDENT_5 => *enum_ref_par = IDENT_3,
        _ => {}
    }
}

#[inline(never)]
fn proc_7(int_1_par_val: i32, int_2_par_val: i32, int_par_ref: &mut i32) {
    let int_loc = int_1_par_val + 2;
    *int_par_ref = int_2_par_val + int_loc;
}

#[inline(never)]
fn proc_8(
    arr_1: &mut [i32; 50],
    arr_2: &mut [[i32; 50]; 50],
    int_glob: &mut i32,
    int_1_par_val: i32,
    int_2_par_val: i32,
) {
    let int_loc = (int_1_par_val + 5) as usize;
    arr_1[int_loc] = int_2_par_val;
    arr_1[int_loc + 1] = arr_1[int_loc];
    arr_1[int_loc + 30] = int_loc as i32;
    // Dhrystone's own loop statement, kept as written (and as measured in BENCHMARKS.md).
    #[allow(clippy::needless_range_loop)]
    for int_index in int_loc..=int_loc + 1 {
        arr_2[int_loc][int_index] = int_loc as i32;
    }
    arr_2[int_loc][int_loc - 1] = arr_2[int_loc][int_loc - 1].wrapping_add(1);
    arr_2[int_loc + 20][int_loc] = arr_1[int_loc];
    *int_glob = 5;
}

#[inline(never)]
fn func_1(d: &mut Dhry, ch_1_par_val: u8, ch_2_par_val: u8) -> i32 {
    func_1_in(d, ch_1_par_val, ch_2_par_val)
}

#[inline]
fn func_1_in(d: &mut Dhry, ch_1_par_val: u8, ch_2_par_val: u8) -> i32 {
    let ch_1_loc = ch_1_par_val;
    let ch_2_loc = ch_1_loc;
    if ch_2_loc != ch_2_par_val {
        IDENT_1
    } else {
        d.ch_1_glob = ch_1_loc;
        IDENT_2
    }
}

#[inline(never)]
fn func_2(d: &mut Dhry, str_1_par_ref: &Str30, str_2_par_ref: &Str30) -> bool {
    let mut int_loc = 2usize;
    let mut ch_loc = b'A';
    while int_loc <= 2 {
        if func_1_in(d, str_1_par_ref[int_loc], str_2_par_ref[int_loc + 1]) == IDENT_1 {
            ch_loc = b'A';
            int_loc += 1;
        }
    }
    if (b'W'..b'Z').contains(&ch_loc) {
        int_loc = 7;
    }
    if ch_loc == b'R' {
        return true;
    }
    if strcmp(str_1_par_ref, str_2_par_ref) > 0 {
        int_loc += 7;
        d.int_glob = int_loc as i32;
        true
    } else {
        false
    }
}

#[inline]
fn func_3_in(enum_par_val: i32) -> bool {
    enum_par_val == IDENT_3
}

/// The C library's strcmp, as the C program calls it (a byte loop here
/// would measure this file's loop against glibc's vectorised one).
#[inline]
fn strcmp(a: &Str30, b: &Str30) -> i32 {
    debug_assert!(a[30] == 0 && b[30] == 0);
    // SAFETY: both are 31-byte arrays whose last byte is NUL (every Str30
    // comes from `str30`), so strcmp reads within them.
    unsafe { libc::strcmp(a.as_ptr().cast(), b.as_ptr().cast()) }
}

/// Loops between clock checks (about 20 us of work on a current CPU).
const CHECK_EVERY: u64 = 256;

/// One copy's pass: Dhrystone loops until `pass` has gone by (UnixBench's
/// alarm), the loops counted. An error if the state is not Dhrystone's
/// correct final state (the compiler or this code got something wrong).
pub fn dhry2reg(pass: Duration) -> anyhow::Result<super::kernels::CopyCount> {
    let mut d = Dhry::new();
    let start = Instant::now();
    let deadline = start + pass;
    let mut run_index = 0u64;
    loop {
        for _ in 0..CHECK_EVERY {
            run_index += 1;
            d.one_loop(run_index);
            // The globals are memory that another file's procedure may read, as in C.
            black_box(&mut d);
        }
        if Instant::now() >= deadline || crate::cancel::cancelled() {
            break;
        }
    }
    let elapsed = start.elapsed();
    crate::cancel::check()?;
    anyhow::ensure!(
        d.is_correct(run_index),
        "Dhrystone's final values are wrong after {run_index} loops"
    );
    Ok(super::kernels::CopyCount {
        count: run_index as f64,
        elapsed,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_run_leaves_dhrystones_final_values() {
        let mut d = Dhry::new();
        assert!(!d.is_correct(0), "the initial state is not a run's");
        for i in 1..=1000 {
            d.one_loop(i);
        }
        assert!(d.is_correct(1000), "{d:?}");
        assert!(!d.is_correct(999), "Arr_2_Glob[8][7] counts the loops");
    }

    #[test]
    fn strcmp_is_cs() {
        assert!(SOME_STRING[30] == 0 && THIRD_STRING[30] == 0);
        assert!(strcmp(&FIRST_STRING, &SECOND_STRING) < 0);
        assert_eq!(strcmp(&FIRST_STRING, &FIRST_STRING), 0);
        assert!(strcmp(&THIRD_STRING, &SECOND_STRING) > 0);
    }

    #[test]
    fn a_short_pass_counts_loops() {
        let c = dhry2reg(Duration::from_millis(50)).unwrap();
        assert!(c.count >= CHECK_EVERY as f64, "{c:?}");
        assert!(c.elapsed >= Duration::from_millis(50));
    }
}
