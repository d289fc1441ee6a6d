//! The per-thread loop: keep `iodepth` operations in flight, time each one,
//! record it. Generic over the engine, so the hot path has no dynamic
//! dispatch; a clock read after each engine call (when its completions were
//! seen, and the start of the next call's operations) and one before a call
//! whose preparation took time (a refreshed payload, completions processed).
//!
//! Freed slots are handed back `iodepth_batch` at a time (fio's
//! `iodepth_batch_submit`, 1 by default as in fio), so the device sees the
//! same arrival pattern under candor as under fio: submitting a whole refill
//! in one call reaches a virtio disk as one burst, which Firecracker's
//! virtio-blk serves 13 % slower at QD32 (BENCHMARKS.md).

use super::buffer::{AlignedBuf, Payload};
use super::engine::{Completion, Engine, Op, OpKind};
use super::job::JobSpec;
use super::recorder::DirectionRecorder;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Instant;

/// What a worker needs to know about its place in the job.
pub struct WorkerPlan {
    pub thread: u32,
    pub job: JobSpec,
    /// Blocks of `bs` in the file.
    pub blocks: u64,
    /// Sequential jobs: this thread's region, as (first block, block count).
    pub region: (u64, u64),
    /// Ramp end and measured-interval end, in ns from the common start.
    pub ramp_ns: u64,
    pub end_ns: u64,
}

/// What a worker recorded.
#[derive(Default)]
pub struct WorkerResult {
    pub read: DirectionRecorder,
    pub write: DirectionRecorder,
}

#[derive(Clone, Copy, PartialEq, Eq)]
enum SlotState {
    Free,
    Read,
    Write,
    /// A sync issued after this slot's write; the write's latency runs to its end.
    SyncAfterWrite,
}

/// Runs the loop until the end of the measured interval, a stop request, or
/// an error; drains every in-flight operation before returning.
pub fn drive<E: Engine>(
    engine: &mut E,
    plan: &WorkerPlan,
    buffers: &mut AlignedBuf,
    start: Instant,
    stop: &AtomicBool,
) -> anyhow::Result<WorkerResult> {
    let job = &plan.job;
    let depth = job.iodepth as usize;
    let bs = job.bs as usize;
    let base = buffers.as_mut_ptr();
    let mut payload = Payload::new(
        job.seed
            .wrapping_mul(0x9e37_79b9_7f4a_7c15)
            .wrapping_add(plan.thread as u64 + 1),
    );
    payload.fill(buffers.as_mut_slice());

    let mut result = WorkerResult::default();
    let mut free: Vec<u32> = (0..depth as u32).rev().collect();
    let mut state = vec![SlotState::Free; depth];
    let mut submitted_at = vec![0u64; depth];
    let mut new_ops: Vec<Op> = Vec::with_capacity(depth);
    // Syncs to issue after writes that completed (fsync mode).
    let mut syncs: Vec<Op> = Vec::new();
    let mut done: Vec<Completion> = Vec::with_capacity(depth * 2);
    // When each completion in `done` was observed (one clock read per call).
    let mut observed: Vec<u64> = Vec::with_capacity(depth * 2);
    let batch = (job.iodepth_batch as usize).max(1);
    let mut in_flight = 0usize;
    let mut stopping = false;
    let mut writes_since_sync = 0u32;
    let mut seq_cursor = 0u64;
    let (mixed, random, write_only) = (job.rw.is_mixed(), job.rw.is_random(), !job.rw.reads());
    let (region_first, region_blocks) = plan.region;
    let elapsed = || start.elapsed().as_nanos() as u64;
    let mut first_error: Option<anyhow::Error> = None;

    'run: loop {
        // Hand work to the engine `batch` operations per call: queued syncs
        // first, then a fresh operation for each free slot, prepared just
        // before its call so that a slot never waits behind the preparation
        // of the others. Only the last call waits for a completion.
        let mut now;
        // The clock read after the previous call, while nothing slow (a
        // payload refresh) has happened since: it can start the next call.
        let mut recent: Option<u64> = None;
        loop {
            new_ops.clear();
            let mut refreshed = false;
            while new_ops.len() < batch {
                let Some(op) = syncs.pop() else { break };
                new_ops.push(op);
            }
            while !stopping && new_ops.len() < batch {
                let Some(slot) = free.pop() else { break };
                let write = if mixed {
                    payload.next_u64() % 100 >= job.rwmixread as u64
                } else {
                    write_only
                };
                let block = if random {
                    payload.next_u64() % plan.blocks
                } else {
                    let b = region_first + seq_cursor;
                    seq_cursor = (seq_cursor + 1) % region_blocks;
                    b
                };
                // SAFETY: slot < depth and the region holds depth * bs bytes.
                let buf = unsafe { base.add(slot as usize * bs) };
                if write {
                    // SAFETY: this slot is free, so nothing else uses its bytes.
                    payload.fill(unsafe { std::slice::from_raw_parts_mut(buf, bs) });
                    refreshed = true;
                }
                state[slot as usize] = if write {
                    SlotState::Write
                } else {
                    SlotState::Read
                };
                new_ops.push(Op {
                    kind: if write { OpKind::Write } else { OpKind::Read },
                    slot,
                    offset: block * job.bs,
                    len: bs as u32,
                    buf,
                });
            }
            let last = syncs.is_empty() && (stopping || free.is_empty());
            if new_ops.is_empty() && in_flight == 0 {
                break 'run;
            }
            // An operation's clock starts just before its own call, as fio's
            // does (a sync keeps its write's start).
            let t_submit = match recent {
                Some(t) if !refreshed => t,
                _ => elapsed(),
            };
            for op in &new_ops {
                if op.kind != OpKind::Sync {
                    submitted_at[op.slot as usize] = t_submit;
                }
            }
            in_flight += new_ops.len();
            let wait = if last { 1.min(in_flight) } else { 0 };
            if let Err(e) = engine.submit_and_reap(&new_ops, wait, &mut done) {
                // The engine failed as a whole: nothing more can be reaped safely.
                return Err(anyhow::anyhow!("{} engine: {e}", engine.name()));
            }
            now = elapsed();
            recent = Some(now);
            observed.resize(done.len(), now);
            if last {
                break;
            }
        }
        for (c, now) in done.drain(..).zip(observed.drain(..)) {
            in_flight -= 1;
            let slot = c.slot as usize;
            let kind = state[slot];
            let expected = if kind == SlotState::SyncAfterWrite {
                0
            } else {
                bs as i64
            };
            if c.result < 0 || (kind != SlotState::SyncAfterWrite && c.result != expected) {
                if first_error.is_none() {
                    first_error = Some(io_error(kind, c.result, bs));
                }
                stopping = true;
                state[slot] = SlotState::Free;
                continue;
            }
            if kind == SlotState::Write && job.fsync > 0 && !stopping {
                writes_since_sync += 1;
                if writes_since_sync >= job.fsync {
                    writes_since_sync = 0;
                    state[slot] = SlotState::SyncAfterWrite;
                    syncs.push(Op {
                        kind: OpKind::Sync,
                        slot: c.slot,
                        offset: 0,
                        len: 0,
                        buf: std::ptr::null_mut(),
                    });
                    continue;
                }
            }
            if now >= plan.ramp_ns && now < plan.end_ns {
                let latency = now - submitted_at[slot];
                let since = now - plan.ramp_ns;
                match kind {
                    SlotState::Read => result.read.record(since, latency, bs as u64),
                    _ => result.write.record(since, latency, bs as u64),
                }
            }
            state[slot] = SlotState::Free;
            free.push(c.slot);
        }
        if now >= plan.end_ns || stop.load(Ordering::Relaxed) || crate::cancel::cancelled() {
            stopping = true;
        }
        if stopping {
            // Syncs queued for writes that will not be counted are not needed.
            for op in syncs.drain(..) {
                state[op.slot as usize] = SlotState::Free;
                free.push(op.slot);
            }
        }
    }
    if let Some(e) = first_error {
        return Err(e);
    }
    let measured = plan.end_ns - plan.ramp_ns;
    result.read.finish(measured);
    result.write.finish(measured);
    Ok(result)
}

fn io_error(kind: SlotState, result: i64, bs: usize) -> anyhow::Error {
    let what = match kind {
        SlotState::Read => "read",
        SlotState::Write => "write",
        _ => "fsync",
    };
    if result < 0 {
        let e = std::io::Error::from_raw_os_error((-result) as i32);
        anyhow::anyhow!("{what} failed: {e}")
    } else {
        anyhow::anyhow!("short {what}: {result} of {bs} bytes")
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::result::Rw;
    use std::time::Duration;

    /// An engine that completes whatever it holds when asked to wait, and
    /// records each call: (operations submitted, completions waited for).
    #[derive(Default)]
    struct Recording {
        calls: Vec<(usize, usize)>,
        held: Vec<Completion>,
    }

    impl Engine for Recording {
        fn name(&self) -> &'static str {
            "recording"
        }

        fn submit_and_reap(
            &mut self,
            new_ops: &[Op],
            min_complete: usize,
            out: &mut Vec<Completion>,
        ) -> std::io::Result<()> {
            self.calls.push((new_ops.len(), min_complete));
            self.held.extend(new_ops.iter().map(|op| Completion {
                slot: op.slot,
                result: if op.kind == OpKind::Sync {
                    0
                } else {
                    op.len as i64
                },
            }));
            if min_complete > 0 {
                out.append(&mut self.held);
            }
            Ok(())
        }
    }

    fn calls(rw: Rw, depth: u32, batch: u32, fsync: u32) -> Vec<(usize, usize)> {
        let mut job = JobSpec::new(rw, 4096, depth);
        job.iodepth_batch = batch;
        job.fsync = fsync;
        job.runtime = Duration::from_millis(2);
        let plan = WorkerPlan {
            thread: 0,
            job,
            blocks: 1024,
            region: (0, 1024),
            ramp_ns: 0,
            end_ns: 2_000_000,
        };
        let mut buffers = AlignedBuf::new(depth as usize * 4096, 4096);
        let mut engine = Recording::default();
        let stop = AtomicBool::new(false);
        let r = drive(&mut engine, &plan, &mut buffers, Instant::now(), &stop).unwrap();
        assert!(r.read.ops() + r.write.ops() > 0);
        engine.calls
    }

    #[test]
    fn each_call_submits_at_most_the_batch_and_only_the_last_waits() {
        // Depth 8, batch 1 (fio's default): seven submit-only calls, then
        // one that submits and waits; every refill after that alike.
        let c = calls(Rw::Randread, 8, 1, 0);
        let round = [
            (1, 0),
            (1, 0),
            (1, 0),
            (1, 0),
            (1, 0),
            (1, 0),
            (1, 0),
            (1, 1),
        ];
        assert_eq!(&c[..8], &round);
        assert_eq!(&c[8..16], &c[..8]);
        // Batch 3 of depth 8: 3 + 3 + 2, the last call waiting.
        let c = calls(Rw::Randwrite, 8, 3, 0);
        assert_eq!(&c[..3], &[(3, 0), (3, 0), (2, 1)]);
        // Batch = depth: the whole refill in one call.
        let c = calls(Rw::Read, 8, 8, 0);
        assert_eq!(&c[..2], &[(8, 1), (8, 1)]);
        // With syncs riding along, no call ever exceeds the batch either.
        for (n, wait) in calls(Rw::Randwrite, 8, 3, 2) {
            assert!(n <= 3 && wait <= 1, "({n}, {wait})");
        }
    }
}
