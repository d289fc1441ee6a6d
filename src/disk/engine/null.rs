//! null: completes every operation at once without I/O (fio's null engine).
//! What it measures is candor's own cost per I/O: the worker loop, the
//! timing and the histograms.

use super::{Completion, Engine, Op};
use std::io;

#[derive(Default)]
pub struct NullEngine;

impl Engine for NullEngine {
    fn name(&self) -> &'static str {
        "null"
    }

    fn submit_and_reap(
        &mut self,
        new_ops: &[Op],
        _min_complete: usize,
        out: &mut Vec<Completion>,
    ) -> io::Result<()> {
        out.extend(new_ops.iter().map(|op| Completion {
            slot: op.slot,
            result: if op.kind.is_sync() { 0 } else { op.len as i64 },
        }));
        Ok(())
    }
}
