//! Fuzzes the Ansible inventory reader and host selection: any bytes, as an
//! INI inventory (first byte even) or a YAML one (odd), must give hosts
//! within the inventory's bound or a one-line error, never a panic.
//!
//! Run: `cargo +nightly fuzz run inventory fuzz/corpus/inventory` (from the
//! repository root).

#![no_main]

#[path = "pipeline.rs"]
mod pipeline;

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let yaml = data.first().is_some_and(|b| b & 1 == 1);
    pipeline::inventory(data.get(1..).unwrap_or_default(), yaml);
});
