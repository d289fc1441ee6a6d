//! The Run reader and everything that reads a Run: any bytes as a Run file.
#![no_main]

#[path = "pipeline.rs"]
mod pipeline;

libfuzzer_sys::fuzz_target!(|data: &[u8]| pipeline::run_file(data));
