//! The size and duration parsers: any bytes as a flag's value.
#![no_main]

#[path = "pipeline.rs"]
mod pipeline;

libfuzzer_sys::fuzz_target!(|data: &[u8]| pipeline::units(data));
