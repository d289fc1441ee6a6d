//! JSON: the Run itself, normalised (re-serialised by this build: defaults
//! filled in, fields in schema order), or the comparison table with raw
//! figures (bytes/s, IOPS, ns) and each cell's median, min, max and passes.

use super::compare::Comparison;
use super::{Exporter, Options};
use crate::result::Run;

pub struct JsonExporter;

impl Exporter for JsonExporter {
    fn run(&self, run: &Run, _options: &Options) -> String {
        let mut s = serde_json::to_string_pretty(run).expect("a Run always serialises");
        s.push('\n');
        s
    }

    fn compare(&self, comparison: &Comparison, _options: &Options) -> String {
        let mut s =
            serde_json::to_string_pretty(comparison).expect("a comparison always serialises");
        s.push('\n');
        s
    }
}
