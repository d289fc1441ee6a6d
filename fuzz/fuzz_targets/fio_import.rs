//! The fio importer: any bytes as fio JSON output.
#![no_main]

#[path = "pipeline.rs"]
mod pipeline;

libfuzzer_sys::fuzz_target!(|data: &[u8]| pipeline::fio_file(data));
