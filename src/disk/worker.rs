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
//!
//! Parts: `Slots` (which buffer is free, in flight, or waiting for its
//! sync, and when each was submitted), `Pattern` (pattern.rs: what the next
//! operation is), `Limiter` (rate.rs: when it may be issued, for rated
//! jobs) and `drive` (the loop that joins them to an engine and the
//! recorders). A job ends at the end of its measured interval, when a
//! thread has issued its byte or operation budget (fio's size-bounded
//! jobs), or when it is told to stop.

use super::buffer::{AlignedBuf, Payload};
use super::engine::{Completion, Engine, Op, OpKind};
use super::job::JobSpec;
use super::pattern::{Next, Pattern};
use super::rate::Limiter;
use super::recorder::DirectionRecorder;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::Arc;
use std::time::Instant;

/// What a worker needs to know about its place in the job.
pub struct WorkerPlan {
    pub thread: u32,
    pub job: JobSpec,
    /// This thread's region of its file: first byte and length.
    pub region: (u64, u64),
    /// Sequential jobs: where in the region the first operation goes (bytes).
    pub first_offset: u64,
    /// Stop after issuing this many bytes (ramp included): a sequential job
    /// then never comes back to bytes it already read; fio's size-bounded jobs.
    pub byte_limit: Option<u64>,
    /// Stop after issuing this many operations (ramp included).
    pub op_limit: Option<u64>,
    /// Ramp end and measured-interval end, in ns from the common start
    /// (`u64::MAX`: no end by time).
    pub ramp_ns: u64,
    pub end_ns: u64,
    /// Counters a steady-state monitor reads while the job runs.
    pub progress: Option<Arc<Progress>>,
}

/// Operations and bytes completed in the measured interval so far, for a
/// monitor in another thread (fio's steady-state check).
#[derive(Debug, Default)]
pub struct Progress {
    pub ops: AtomicU64,
    pub bytes: AtomicU64,
}

/// How a worker's loop ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Ended {
    /// The measured interval's end.
    #[default]
    Time,
    /// Its byte or operation budget was issued.
    Limit,
    /// Told to stop (steady state reached, another thread's error, a signal).
    Stopped,
}

/// What a worker recorded.
#[derive(Default)]
pub struct WorkerResult {
    pub read: DirectionRecorder,
    pub write: DirectionRecorder,
    /// Sequential jobs: bytes the cursor moved over (ramp included), so the
    /// next job on the file can start where this one stopped.
    pub seq_bytes: u64,
    /// The thread's measured interval when it differs from the planned
    /// one: it ended before (budget issued, told to stop: up to its last
    /// completion) or ran past it (a final fsync, up to the sync's end) (ns).
    pub stopped_early_ns: Option<u64>,
    pub ended: Ended,
    /// The thread's own user and system CPU time over its measured
    /// interval (ns), for jobs that share the process with others.
    pub cpu_ns: (u64, u64),
}

#[derive(Clone, Copy, PartialEq, Eq)]
enum SlotState {
    Free,
    Read,
    Write,
    /// A sync issued after this slot's write; the write's latency runs to its end.
    SyncAfterWrite,
}

/// The slots of one worker: each owns one buffer and is in flight at most once.
struct Slots {
    free: Vec<u32>,
    state: Vec<SlotState>,
    /// When each slot's operation was submitted (ns from the start).
    submitted_at: Vec<u64>,
    /// The length of each slot's operation.
    len: Vec<u32>,
    /// The buffer each slot uses now (an index into the buffer region).
    buffer: Vec<usize>,
    in_flight: usize,
}

impl Slots {
    fn new(depth: usize) -> Slots {
        Slots {
            free: (0..depth as u32).rev().collect(),
            state: vec![SlotState::Free; depth],
            submitted_at: vec![0; depth],
            len: vec![0; depth],
            buffer: (0..depth).collect(),
            in_flight: 0,
        }
    }

    fn release(&mut self, slot: u32) {
        self.state[slot as usize] = SlotState::Free;
        self.free.push(slot);
    }
}

/// Above this block size a write's fresh payload is prepared while the
/// previous operation is in flight, in a spare buffer, instead of just
/// before the submit: at 7-8 GB/s per core (BENCHMARKS.md) a 16 KiB fill
/// costs about as much as the extra system call that makes room for it (2
/// us), a 1 MiB fill 130-150 us, which at QD1 the device would otherwise
/// spend idle (SEQ1M Q1T1 write was understated by it).
pub const STAGE_ABOVE_BYTES: u64 = 16 << 10;

/// Buffers the worker needs for a job: one per slot, plus a spare for the
/// staged payload of large writes.
pub fn buffers_for(job: &JobSpec) -> usize {
    job.iodepth as usize + usize::from(stages_payload(job))
}

/// Bytes of each buffer: the job's largest operation.
pub fn buffer_bytes(job: &JobSpec) -> usize {
    job.max_bs() as usize
}

/// Writes of one size above `STAGE_ABOVE_BYTES` have their payload staged.
fn stages_payload(job: &JobSpec) -> bool {
    let writes = &job.sizes()[1];
    job.rw.writes() && writes.min() == writes.max() && writes.max() > STAGE_ABOVE_BYTES
}

/// This thread's user and system CPU time (ns).
fn thread_cpu() -> (u64, u64) {
    // SAFETY: rusage is plain data that getrusage fills.
    let mut ru: libc::rusage = unsafe { std::mem::zeroed() };
    if unsafe { libc::getrusage(libc::RUSAGE_THREAD, &mut ru) } != 0 {
        return (0, 0);
    }
    let ns = |tv: libc::timeval| tv.tv_sec as u64 * 1_000_000_000 + tv.tv_usec as u64 * 1000;
    (ns(ru.ru_utime), ns(ru.ru_stime))
}

/// Sleeps until `deadline_ns` from `start`, in short steps so that a stop
/// or a signal is seen quickly.
fn sleep_until(start: Instant, deadline_ns: u64, stop: &AtomicBool) {
    loop {
        let now = start.elapsed().as_nanos() as u64;
        if now >= deadline_ns || stop.load(Ordering::Relaxed) || crate::cancel::cancelled() {
            return;
        }
        let left = (deadline_ns - now).min(20_000_000);
        std::thread::sleep(std::time::Duration::from_nanos(left));
    }
}

/// Runs the loop until the end of the measured interval, the thread's
/// budget, a stop request, or an error; drains every in-flight operation
/// before returning.
pub fn drive<E: Engine>(
    engine: &mut E,
    plan: &WorkerPlan,
    buffers: &mut AlignedBuf,
    start: Instant,
    stop: &AtomicBool,
) -> anyhow::Result<WorkerResult> {
    let job = &plan.job;
    let depth = job.iodepth as usize;
    let stride = buffer_bytes(job);
    let base = buffers.as_mut_ptr();
    // SAFETY (for every use below): index < buffers_for(job) and the region
    // holds buffers_for(job) * stride bytes.
    let buffer_at = |index: usize| unsafe { base.add(index * stride) };
    let mut payload = Payload::new(
        job.seed
            .wrapping_mul(0x9e37_79b9_7f4a_7c15)
            .wrapping_add(plan.thread as u64 + 1),
    );
    payload.fill(buffers.as_mut_slice());

    let mut result = WorkerResult::default();
    let mut slots = Slots::new(depth);
    let (region_start, region_len) = plan.region;
    let mut pattern = Pattern::new(
        job,
        region_start,
        region_len,
        plan.first_offset,
        &mut payload,
    );
    let mut limiter = Limiter::of(job);
    // An operation drawn but not yet due (rated jobs).
    let mut pending: Option<Next> = None;
    let sync_kind = if job.datasync {
        OpKind::Datasync
    } else {
        OpKind::Sync
    };
    // The spare buffer for the next write's payload, when large writes are
    // staged, and whether it holds bytes not yet written.
    let mut staged: Option<usize> = stages_payload(job).then_some(depth);
    let mut spare_fresh = true;
    let mut new_ops: Vec<Op> = Vec::with_capacity(depth);
    // Syncs to issue after writes that completed (fsync mode).
    let mut syncs: Vec<Op> = Vec::new();
    let mut done: Vec<Completion> = Vec::with_capacity(depth * 2);
    // When each completion in `done` was observed (one clock read per call).
    let mut observed: Vec<u64> = Vec::with_capacity(depth * 2);
    let batch = (job.iodepth_batch as usize).max(1);
    let byte_cap = plan.byte_limit.unwrap_or(u64::MAX);
    let op_cap = plan.op_limit.unwrap_or(u64::MAX);
    let (mut issued_bytes, mut issued_ops) = (0u64, 0u64);
    let mut stopping = false;
    let mut last_completion = 0u64;
    let mut writes_since_sync = 0u32;
    let elapsed = || start.elapsed().as_nanos() as u64;
    let mut first_error: Option<anyhow::Error> = None;
    let mut cpu_at_ramp: Option<(u64, u64)> = (plan.ramp_ns == 0).then(thread_cpu);
    let progress = plan.progress.as_deref();

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
            // A rated job's next operation is not due before this time.
            let mut due: Option<u64> = None;
            while new_ops.len() < batch {
                let Some(op) = syncs.pop() else { break };
                new_ops.push(op);
            }
            while !stopping && new_ops.len() < batch {
                if issued_bytes >= byte_cap || issued_ops >= op_cap {
                    stopping = true;
                    result.ended = Ended::Limit;
                    break;
                }
                let Some(slot) = slots.free.pop() else { break };
                let next = match pending.take() {
                    Some(next) => next,
                    None => pattern.next(&mut payload),
                };
                if let Some(limiter) = limiter.as_mut() {
                    let at = limiter.due(next.write);
                    if at > elapsed() {
                        // Not due yet: keep it, and the slot, for later.
                        slots.free.push(slot);
                        pending = Some(next);
                        due = Some(at);
                        break;
                    }
                    limiter.book(next.write, next.len, &mut payload);
                }
                issued_bytes += u64::from(next.len);
                issued_ops += 1;
                if next.write {
                    match staged.as_mut() {
                        // The spare holds fresh bytes: swap it in.
                        Some(spare) if spare_fresh => {
                            std::mem::swap(&mut slots.buffer[slot as usize], spare);
                            spare_fresh = false;
                        }
                        _ => {
                            let buf = buffer_at(slots.buffer[slot as usize]);
                            // SAFETY: this slot is free, so nothing else uses its bytes.
                            payload.fill(unsafe {
                                std::slice::from_raw_parts_mut(buf, next.len as usize)
                            });
                            refreshed = true;
                        }
                    }
                }
                slots.state[slot as usize] = if next.write {
                    SlotState::Write
                } else {
                    SlotState::Read
                };
                slots.len[slot as usize] = next.len;
                new_ops.push(Op {
                    kind: if next.write {
                        OpKind::Write
                    } else {
                        OpKind::Read
                    },
                    slot,
                    offset: next.offset,
                    len: next.len,
                    buf: buffer_at(slots.buffer[slot as usize]),
                });
            }
            let last = syncs.is_empty() && (stopping || slots.free.is_empty() || due.is_some());
            if new_ops.is_empty() && slots.in_flight == 0 {
                let Some(at) = due else { break 'run };
                // Nothing in flight and the next operation not yet due: wait
                // for it (or for the end, or a stop).
                sleep_until(start, at.min(plan.end_ns), stop);
                now = elapsed();
                if now >= plan.end_ns || stop.load(Ordering::Relaxed) || crate::cancel::cancelled()
                {
                    stopping = true;
                    if result.ended == Ended::Time && now < plan.end_ns {
                        result.ended = Ended::Stopped;
                    }
                }
                continue 'run;
            }
            // An operation's clock starts just before its own call, as fio's
            // does (a sync keeps its write's start).
            let t_submit = match recent {
                Some(t) if !refreshed => t,
                _ => elapsed(),
            };
            for op in &new_ops {
                if !op.kind.is_sync() {
                    slots.submitted_at[op.slot as usize] = t_submit;
                }
            }
            slots.in_flight += new_ops.len();
            // A used spare is refilled while the device works: submit
            // without waiting, fill, then wait in a call of its own.
            let refill = last && staged.is_some() && !spare_fresh;
            let wait = if last && !refill {
                1.min(slots.in_flight)
            } else {
                0
            };
            if let Err(e) = engine.submit_and_reap(&new_ops, wait, &mut done) {
                // The engine failed as a whole: nothing more can be reaped safely.
                return Err(anyhow::anyhow!("{} engine: {e}", engine.name()));
            }
            if refill {
                if let Some(spare) = staged {
                    // SAFETY: the spare is in no slot, so nothing else uses its bytes.
                    payload
                        .fill(unsafe { std::slice::from_raw_parts_mut(buffer_at(spare), stride) });
                    spare_fresh = true;
                }
                if done.is_empty() {
                    if let Err(e) = engine.submit_and_reap(&[], 1.min(slots.in_flight), &mut done) {
                        return Err(anyhow::anyhow!("{} engine: {e}", engine.name()));
                    }
                }
            }
            now = elapsed();
            recent = Some(now);
            observed.resize(done.len(), now);
            if last {
                break;
            }
        }
        for (c, now) in done.drain(..).zip(observed.drain(..)) {
            slots.in_flight -= 1;
            let slot = c.slot as usize;
            let kind = slots.state[slot];
            let len = slots.len[slot];
            if c.result < 0 || (kind != SlotState::SyncAfterWrite && c.result != i64::from(len)) {
                if first_error.is_none() {
                    first_error = Some(io_error(kind, c.result, len));
                }
                stopping = true;
                slots.state[slot] = SlotState::Free;
                continue;
            }
            if kind == SlotState::Write && job.fsync > 0 && !stopping {
                writes_since_sync += 1;
                if writes_since_sync >= job.fsync {
                    writes_since_sync = 0;
                    slots.state[slot] = SlotState::SyncAfterWrite;
                    syncs.push(Op {
                        kind: sync_kind,
                        slot: c.slot,
                        offset: 0,
                        len: 0,
                        buf: std::ptr::null_mut(),
                    });
                    continue;
                }
            }
            if now >= plan.ramp_ns && now < plan.end_ns {
                last_completion = now;
                let latency = now - slots.submitted_at[slot];
                let since = now - plan.ramp_ns;
                match kind {
                    SlotState::Read => result.read.record(since, latency, u64::from(len)),
                    _ => result.write.record(since, latency, u64::from(len)),
                }
                if let Some(p) = progress {
                    p.ops.fetch_add(1, Ordering::Relaxed);
                    p.bytes.fetch_add(u64::from(len), Ordering::Relaxed);
                }
            }
            slots.release(c.slot);
        }
        if cpu_at_ramp.is_none() && now >= plan.ramp_ns {
            cpu_at_ramp = Some(thread_cpu());
        }
        if now >= plan.end_ns {
            stopping = true;
        } else if stop.load(Ordering::Relaxed) || crate::cancel::cancelled() {
            stopping = true;
            if result.ended == Ended::Time {
                result.ended = Ended::Stopped;
            }
        }
        if stopping {
            // Syncs queued for writes that will not be counted are not needed.
            for op in syncs.drain(..) {
                slots.release(op.slot);
            }
        }
    }
    if let Some(e) = first_error {
        return Err(e);
    }
    // fio's end_fsync: the data written reaches the disk inside the job.
    let mut synced_at = None;
    if job.end_fsync && job.rw.writes() && !crate::cancel::cancelled() {
        let op = Op {
            kind: OpKind::Sync,
            slot: 0,
            offset: 0,
            len: 0,
            buf: std::ptr::null_mut(),
        };
        engine
            .submit_and_reap(&[op], 1, &mut done)
            .map_err(|e| anyhow::anyhow!("{} engine: end fsync: {e}", engine.name()))?;
        if let Some(c) = done.first().filter(|c| c.result < 0) {
            return Err(io_error(SlotState::SyncAfterWrite, c.result, 0));
        }
        synced_at = Some(elapsed());
    }
    // The thread's measured interval ends at the planned end, or at its
    // last completion when it stopped before, and after a final fsync.
    let planned = plan.end_ns.saturating_sub(plan.ramp_ns);
    let mut end = match result.ended {
        Ended::Time => plan.end_ns,
        _ => last_completion.max(plan.ramp_ns),
    };
    if let Some(at) = synced_at {
        end = end.max(at);
    }
    let measured = end.saturating_sub(plan.ramp_ns);
    if measured != planned {
        result.stopped_early_ns = Some(measured);
    }
    let cpu_end = thread_cpu();
    if let Some((u0, s0)) = cpu_at_ramp {
        result.cpu_ns = (cpu_end.0.saturating_sub(u0), cpu_end.1.saturating_sub(s0));
    }
    result.read.finish(measured);
    result.write.finish(measured);
    result.seq_bytes = pattern.moved();
    Ok(result)
}

fn io_error(kind: SlotState, result: i64, len: u32) -> anyhow::Error {
    let what = match kind {
        SlotState::Read => "read",
        SlotState::Write => "write",
        _ => "fsync",
    };
    if result < 0 {
        let e = std::io::Error::from_raw_os_error((-result) as i32);
        anyhow::anyhow!("{what} failed: {e}")
    } else {
        anyhow::anyhow!("short {what}: {result} of {len} bytes")
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
        /// Each write's offset and the first 16 bytes of its buffer, as submitted.
        writes: Vec<(u64, [u8; 16])>,
        reads: Vec<u64>,
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
            for op in new_ops {
                match op.kind {
                    // SAFETY: the worker keeps the buffer valid until the completion.
                    OpKind::Write => self
                        .writes
                        .push((op.offset, unsafe { *(op.buf as *const [u8; 16]) })),
                    OpKind::Read => self.reads.push(op.offset),
                    OpKind::Sync | OpKind::Datasync => {}
                }
            }
            self.held.extend(new_ops.iter().map(|op| Completion {
                slot: op.slot,
                result: if op.kind.is_sync() { 0 } else { op.len as i64 },
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
        job.runtime = Duration::from_millis(20);
        let plan = WorkerPlan {
            thread: 0,
            job,
            region: (0, 1024 * 4096),
            first_offset: 0,
            byte_limit: None,
            op_limit: None,
            ramp_ns: 0,
            end_ns: 20_000_000,
            progress: None,
        };
        let mut buffers = AlignedBuf::new(buffers_for(&plan.job) * 4096, 4096);
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

    fn plan_of(job: JobSpec, blocks: u64, first_block: u64, byte_limit: Option<u64>) -> WorkerPlan {
        let end_ns = job.runtime.as_nanos() as u64;
        let bs = job.bs;
        WorkerPlan {
            thread: 0,
            job,
            region: (0, blocks * bs),
            first_offset: first_block * bs,
            byte_limit,
            op_limit: None,
            ramp_ns: 0,
            end_ns,
            progress: None,
        }
    }

    fn drive_recording(plan: &WorkerPlan) -> (Recording, WorkerResult) {
        let mut buffers = AlignedBuf::new(buffers_for(&plan.job) * plan.job.bs as usize, 4096);
        let mut engine = Recording::default();
        let stop = AtomicBool::new(false);
        let r = drive(&mut engine, plan, &mut buffers, Instant::now(), &stop).unwrap();
        (engine, r)
    }

    /// Large writes at QD1 get their payload prepared while the previous one
    /// is in flight (a spare buffer), and still never repeat a payload.
    #[test]
    fn staged_payloads_are_fresh_for_every_write() {
        let mut job = JobSpec::new(Rw::Write, 64 << 10, 1);
        job.runtime = Duration::from_millis(50);
        let plan = plan_of(job, 64, 0, None);
        assert_eq!(buffers_for(&plan.job), 2, "one slot and a spare");
        let (engine, _) = drive_recording(&plan);
        assert!(engine.writes.len() > 4, "{}", engine.writes.len());
        let mut heads: Vec<[u8; 16]> = engine.writes.iter().map(|w| w.1).collect();
        heads.sort();
        heads.dedup();
        assert_eq!(
            heads.len(),
            engine.writes.len(),
            "a payload was written twice"
        );
        // Submit without waiting, refill the spare, then wait: two calls per write.
        assert_eq!(&engine.calls[..2], &[(1, 0), (0, 1)]);
        // Small writes fill in place (one call per write, no spare).
        let mut small = JobSpec::new(Rw::Write, 4096, 1);
        small.runtime = Duration::from_millis(2);
        assert_eq!(buffers_for(&small), 1);
    }

    /// A sequential job starts at its first block, stops at its byte limit,
    /// and says how far its cursor moved.
    #[test]
    fn sequential_start_and_byte_limit() {
        let mut job = JobSpec::new(Rw::Read, 4096, 4);
        job.runtime = Duration::from_secs(5);
        let plan = plan_of(job, 100, 90, Some(20 * 4096));
        let (engine, r) = drive_recording(&plan);
        let blocks: Vec<u64> = engine.reads.iter().map(|o| o / 4096).collect();
        let expected: Vec<u64> = (90..100).chain(0..10).collect();
        assert_eq!(
            blocks, expected,
            "from block 90, wrapping at the end, 20 blocks"
        );
        assert_eq!(r.seq_bytes, 20 * 4096);
        assert!(r.stopped_early_ns.is_some(), "stopped long before 5 s");
    }
}
