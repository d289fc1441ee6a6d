//! Fuzzes the fio job-file reader and lowering: any bytes, as a job file
//! that may include up to three more files (the texts after each NUL byte,
//! named `inc.fio`, `inc1.fio` and `inc2.fio`, which may include each other
//! and themselves), must give jobs or a one-line error, never a panic; the
//! include tree's bounds (files, bytes, option lines) keep each input short.
//!
//! Run: `cargo +nightly fuzz run jobfile fuzz/corpus/jobfile` (from the
//! repository root); the corpus holds small job files of candor's own.

#![no_main]

use candor::fio::jobfile::{self, lower, Env, InMemory};
use libfuzzer_sys::fuzz_target;
use std::path::{Path, PathBuf};

fuzz_target!(|data: &[u8]| {
    let text = String::from_utf8_lossy(data);
    let mut parts = text.splitn(4, '\0');
    let names = ["job.fio", "inc.fio", "inc1.fio", "inc2.fio"];
    let files = InMemory(
        names
            .iter()
            .map(|n| {
                let body = parts.next().unwrap_or("").to_string();
                (PathBuf::from("/fuzz").join(n), body)
            })
            .collect(),
    );
    let env = Env::fixed(&[("SIZE", "4m"), ("EMPTY", "")], 4096, 1024, 2);
    let Ok(file) = jobfile::read(&files, Path::new("/fuzz/job.fio"), &[], &env) else {
        return;
    };
    let ctx = lower::Context {
        default_dir: PathBuf::from("/tmp"),
        dir_given: false,
        ignore_unsupported: data.first().is_some_and(|b| b & 1 == 1),
        seed: Some(1),
        devices: Vec::new(),
    };
    if let Err(e) = candor::plan::jobfile::lower_checked(&file, &ctx) {
        assert!(!e.to_string().contains('\n'), "a multi-line error: {e}");
    }
});
