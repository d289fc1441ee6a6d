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
//! jobs), and `Worker`, the loop's state, whose steps `drive_thread` joins
//! to an engine and the latency recorders. A job ends at the end of its measured interval, when a
//! thread has issued its byte or operation budget (fio's size-bounded
//! jobs), or when it is told to stop.

use super::buffer::{AlignedBuf, Payload};
use super::engine::{Completion, Engine, Op, OpKind};
use super::flow::Member;
use super::job::{JobSpec, Think};
use super::latency::DirectionRecorder;
use super::min_rate::MinRateCheck;
use super::pattern::{Next, Pattern};
use super::rate::Limiter;
use super::verify::{LastWrites, Tally, VerifyAlg, WrittenBlock};
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::Arc;
use std::time::Instant;

/// One thread's share of a job: the job (whose `seq_start`, `byte_limit`
/// and `op_limit` each thread applies to itself), its region, its window.
pub struct ThreadWork {
    pub thread: u32,
    pub job: JobSpec,
    /// This thread's region of its file: first byte and length.
    pub region: (u64, u64),
    /// Ramp end and measured-interval end, in ns from the common start
    /// (`u64::MAX`: no end by time); a settled ramp moves both earlier.
    pub timeline: Arc<super::settle::Timeline>,
    /// Counters a steady-state monitor reads while the job runs.
    pub progress: Option<Arc<Progress>>,
}

/// Operations and bytes completed in the measured interval so far, for a
/// monitor in another thread (fio's steady-state check), and bytes
/// completed during the ramp (for the settled ramp).
#[derive(Debug, Default)]
pub struct Progress {
    pub ops: AtomicU64,
    pub bytes: AtomicU64,
    pub ramp_bytes: AtomicU64,
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
    /// Bytes written, ramp and all (what a device job changed on the device).
    pub written_bytes: u64,
    /// The thread's measured interval when it differs from the planned
    /// one: it ended before (budget issued, told to stop: up to its last
    /// completion) or ran past it (a final fsync, up to the sync's end) (ns).
    pub stopped_early_ns: Option<u64>,
    pub ended: Ended,
    /// The thread's own user and system CPU time over its measured
    /// interval (ns), for jobs that share the process with others.
    pub cpu_ns: (u64, u64),
    /// Time the thread was runnable but waiting for a CPU over its measured
    /// interval (ns; None without schedstats).
    pub run_wait_ns: Option<u64>,
    /// A verifying job's last write of each offset (`do_verify`), for the
    /// read-back after its writes.
    pub last_writes: Option<LastWrites>,
    /// What the read-back found.
    pub verified: Option<Tally>,
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

/// This thread's CPU clocks at one moment: user and system time, and the
/// time it waited for a CPU (read at the measured interval's start and end,
/// never per operation).
#[derive(Clone, Copy)]
struct ThreadClocks {
    cpu: (u64, u64),
    run_wait: Option<u64>,
}

impl ThreadClocks {
    fn now() -> ThreadClocks {
        ThreadClocks {
            cpu: super::platform::thread_cpu(),
            run_wait: super::cpu_usage::thread_run_wait_ns(),
        }
    }
}

/// Runs the loop until the end of the measured interval, the thread's
/// budget, a stop request, or an error; drains every in-flight operation
/// before returning.
pub fn drive_thread<E: Engine>(
    engine: &mut E,
    work: &ThreadWork,
    buffers: &mut AlignedBuf,
    start: Instant,
    stop: &AtomicBool,
) -> anyhow::Result<WorkerResult> {
    let mut state = Worker::new(engine, work, buffers, start, stop);
    loop {
        match state.submit()? {
            Round::Reaped(now) => {
                state.reap();
                state.check_min_rate(now);
                state.check_end(now);
                state.think_if_due()?;
                state.flow_pause_if_held()?;
            }
            Round::Waited => continue,
            Round::Drained => break,
        }
    }
    if let Some(e) = state.first_error.take() {
        return Err(e);
    }
    let synced_at = state.end_fsync()?;
    Ok(state.finish(synced_at))
}

/// What one round of submitting ended with.
enum Round {
    /// The last call of the round waited: its completions (and the clock
    /// read after it) are ready to be recorded.
    Reaped(u64),
    /// Nothing was in flight and the next operation was not due: the
    /// worker slept until it was (or until the end, or a stop).
    Waited,
    /// Nothing in flight, nothing more to issue: the loop is over.
    Drained,
}

/// One worker thread's loop state: its slots and buffers, what it draws
/// next, its budget, and what it has recorded so far. The loop
/// (`drive_thread`) is its steps: `submit` a round of calls, `reap` their
/// completions, `check_end`; then `end_fsync` and `finish`.
struct Worker<'a, E: Engine> {
    engine: &'a mut E,
    work: &'a ThreadWork,
    start: Instant,
    stop: &'a AtomicBool,
    /// The buffer region (`buffers_for(job)` buffers of `stride` bytes).
    base: *mut u8,
    stride: usize,
    payload: Payload,
    slots: Slots,
    pattern: Pattern,
    limiter: Option<Limiter>,
    /// An operation drawn but not yet due (rated jobs).
    pending: Option<Next>,
    sync_kind: OpKind,
    /// The spare buffer for the next write's payload, when large writes
    /// are staged, and whether it holds bytes not yet written.
    staged: Option<usize>,
    spare_fresh: bool,
    new_ops: Vec<Op>,
    /// Syncs to issue after writes that completed (fsync mode).
    syncs: Vec<Op>,
    done: Vec<Completion>,
    /// When each completion in `done` was observed (one clock read per call).
    observed: Vec<u64>,
    batch: usize,
    byte_cap: u64,
    op_cap: u64,
    issued_bytes: u64,
    issued_ops: u64,
    stopping: bool,
    last_completion: u64,
    writes_since_sync: u32,
    first_error: Option<anyhow::Error>,
    clocks_at_ramp: Option<ThreadClocks>,
    result: WorkerResult,
    /// Reads and writes completed, ramp included (fio's io_blocks, which
    /// thinktime counts by default).
    completed_ops: u64,
    /// The count (completed or issued) at the last think pause.
    think_last: u64,
    /// A pause is due after this round: the count when it fell due.
    think_due: Option<u64>,
    /// When the last think pause ended: fio counts a pause after the last
    /// I/O in the job's time, and so does the measured interval.
    think_ended: u64,
    /// A verifying job: the header each write carries, and the writes
    /// remembered for the read-back (`do_verify`).
    verify: Option<VerifyAlg>,
    remember: Option<LastWrites>,
    /// Writes issued so far: the next write's number in its header.
    writes_issued: u64,
    /// A job with a minimum rate: its check, and the bytes and operations
    /// each direction has completed (ramp included).
    min_rate: Option<MinRateCheck>,
    completed: [(u64, u64); 2],
    /// A job in a flow (fio's `flow`): its membership, and whether it is
    /// holding back with I/O in flight (to wait for it, then sleep).
    flow: Option<Member>,
    flow_held: bool,
}

/// The generator of one thread of a job: its offsets, choices and payloads.
/// A `verify_only` run draws the same writes again from it.
pub fn thread_payload(job: &JobSpec, thread: u32) -> Payload {
    Payload::new(
        job.seed
            .wrapping_mul(0x9e37_79b9_7f4a_7c15)
            .wrapping_add(thread as u64 + 1),
    )
}

/// fio's dry run for `verify_only`: the writes a size-bounded run of this
/// thread issues, drawn again in the same order from the same seed, without
/// any I/O; the last write of each offset, as the run would have remembered it.
pub fn replay_writes(work: &ThreadWork) -> LastWrites {
    let job = &work.job;
    let mut payload = thread_payload(job, work.thread);
    let (region_start, region_len) = work.region;
    let mut pattern = Pattern::new(job, region_start, region_len, job.seq_start, &mut payload);
    let mut limiter = Limiter::of(job);
    let (byte_cap, op_cap) = (
        job.byte_limit.unwrap_or(u64::MAX),
        job.op_limit.unwrap_or(u64::MAX),
    );
    let (mut bytes, mut ops, mut seq) = (0u64, 0u64, 0u64);
    let mut writes = LastWrites::default();
    if !job.is_bounded() {
        // Lowering refuses verify_only for a job with no byte or operation budget.
        return writes;
    }
    while bytes < byte_cap && ops < op_cap {
        let next = pattern.next(&mut payload);
        if let Some(l) = limiter.as_mut() {
            l.book(next.write, next.len, &mut payload);
        }
        bytes += u64::from(next.len);
        ops += 1;
        if next.write {
            writes.record(next.offset, next.len, seq);
            seq += 1;
        }
    }
    writes
}

impl<'a, E: Engine> Worker<'a, E> {
    fn new(
        engine: &'a mut E,
        work: &'a ThreadWork,
        buffers: &'a mut AlignedBuf,
        start: Instant,
        stop: &'a AtomicBool,
    ) -> Worker<'a, E> {
        let job = &work.job;
        let depth = job.iodepth as usize;
        let mut payload = thread_payload(job, work.thread);
        payload.fill(buffers.as_mut_slice());
        let (region_start, region_len) = work.region;
        let pattern = Pattern::new(job, region_start, region_len, job.seq_start, &mut payload);
        Worker {
            engine,
            work,
            start,
            stop,
            base: buffers.as_mut_ptr(),
            stride: buffer_bytes(job),
            payload,
            slots: Slots::new(depth),
            pattern,
            limiter: Limiter::of(job),
            pending: None,
            sync_kind: if job.datasync {
                OpKind::Datasync
            } else {
                OpKind::Sync
            },
            staged: stages_payload(job).then_some(depth),
            spare_fresh: true,
            new_ops: Vec::with_capacity(depth),
            syncs: Vec::new(),
            done: Vec::with_capacity(depth * 2),
            observed: Vec::with_capacity(depth * 2),
            batch: (job.iodepth_batch as usize).max(1),
            byte_cap: job.byte_limit.unwrap_or(u64::MAX),
            op_cap: job.op_limit.unwrap_or(u64::MAX),
            issued_bytes: 0,
            issued_ops: 0,
            stopping: false,
            last_completion: 0,
            writes_since_sync: 0,
            first_error: None,
            clocks_at_ramp: (work.timeline.ramp_ns() == 0).then(ThreadClocks::now),
            result: WorkerResult::default(),
            completed_ops: 0,
            think_last: 0,
            think_due: None,
            think_ended: 0,
            verify: job.verify.map(|v| v.alg),
            remember: job
                .verify
                .filter(|v| v.after_writes)
                .map(|_| LastWrites::default()),
            writes_issued: 0,
            min_rate: job
                .rate_min
                .map(|m| MinRateCheck::new(m, work.timeline.ramp_ns())),
            completed: [(0, 0); 2],
            flow: job.flow.map(Member::join),
            flow_held: false,
        }
    }

    /// Nanoseconds since the common start.
    #[inline]
    fn elapsed(&self) -> u64 {
        self.start.elapsed().as_nanos() as u64
    }

    /// The buffer at `index`.
    #[inline]
    fn buffer_at(&self, index: usize) -> *mut u8 {
        // SAFETY: index < buffers_for(job) and the region holds
        // buffers_for(job) * stride bytes.
        unsafe { self.base.add(index * self.stride) }
    }

    /// Hands work to the engine `batch` operations per call: queued syncs
    /// first, then a fresh operation for each free slot, prepared just
    /// before its call so that a slot never waits behind the preparation
    /// of the others. Only the last call waits for a completion.
    fn submit(&mut self) -> anyhow::Result<Round> {
        // The clock read after the previous call, while nothing slow (a
        // payload refresh) has happened since: it can start the next call.
        let mut recent: Option<u64> = None;
        loop {
            let (refreshed, due) = self.fill_batch();
            let last = self.syncs.is_empty()
                && (self.stopping
                    || self.slots.free.is_empty()
                    || due.is_some()
                    || self.think_due.is_some());
            if self.new_ops.is_empty() && self.slots.in_flight == 0 {
                let Some(at) = due else {
                    return Ok(Round::Drained);
                };
                self.wait_until_due(at);
                return Ok(Round::Waited);
            }
            let now = self.call_engine(last, refreshed, recent)?;
            recent = Some(now);
            if last {
                return Ok(Round::Reaped(now));
            }
        }
    }

    /// Fills `new_ops` with up to `batch` operations: queued syncs, then
    /// fresh operations for free slots while the budget lasts and each is
    /// due. Returns whether a payload was refreshed (the clock must be read
    /// again) and when a rated job's next operation is due, if it is not yet.
    #[inline]
    fn fill_batch(&mut self) -> (bool, Option<u64>) {
        self.new_ops.clear();
        let mut refreshed = false;
        while self.new_ops.len() < self.batch {
            let Some(op) = self.syncs.pop() else { break };
            self.new_ops.push(op);
        }
        while !self.stopping && self.new_ops.len() < self.batch {
            if self.issued_bytes >= self.byte_cap || self.issued_ops >= self.op_cap {
                self.stopping = true;
                self.result.ended = Ended::Limit;
                break;
            }
            let Some(slot) = self.slots.free.pop() else {
                break;
            };
            let next = match self.pending.take() {
                Some(next) => next,
                None => {
                    // fio looks at the flow before each I/O it draws.
                    if let Some(sleep) = self.flow_holds_back() {
                        self.slots.free.push(slot);
                        self.flow_held = self.slots.in_flight > 0 || !self.new_ops.is_empty();
                        return (refreshed, Some(self.elapsed() + sleep));
                    }
                    self.pattern.next(&mut self.payload)
                }
            };
            if let Some(limiter) = self.limiter.as_mut() {
                let at = limiter.due(next.write);
                if at > self.start.elapsed().as_nanos() as u64 {
                    // Not due yet: keep it, and the slot, for later.
                    self.slots.free.push(slot);
                    self.pending = Some(next);
                    return (refreshed, Some(at));
                }
                limiter.book(next.write, next.len, &mut self.payload);
            }
            refreshed |= self.prepare(slot, &next);
            // fio looks for a think pause after each submission that did
            // not fill the queue (a full one waits for completions first,
            // and is looked at after that round, `think_if_due`).
            if let Some(think) = self.work.job.think {
                let count = self.think_count(&think);
                if !self.slots.free.is_empty() && count >= self.think_last + think.blocks {
                    self.think_due = Some(count);
                    break;
                }
            }
        }
        (refreshed, None)
    }

    /// The thread's flow, before an I/O: how long to hold back when the
    /// thread is above its share (none: go on, the I/O counted).
    #[inline]
    fn flow_holds_back(&mut self) -> Option<u64> {
        let member = self.flow.as_mut()?;
        member.exceeded().then(|| member.sleep().as_nanos() as u64)
    }

    /// fio's flow_sleep after a round in which the thread held back: every
    /// I/O in flight completes (fio's io_u_quiesce), then it sleeps, never
    /// past its runtime's end.
    fn flow_pause_if_held(&mut self) -> anyhow::Result<()> {
        if !std::mem::take(&mut self.flow_held) || self.stopping {
            return Ok(());
        }
        let sleep = self
            .flow
            .as_ref()
            .map_or(0, |m| m.sleep().as_nanos() as u64);
        if sleep == 0 {
            return Ok(());
        }
        self.quiesce()?;
        let stop = self.stop;
        let until = self
            .elapsed()
            .saturating_add(sleep)
            .min(self.work.timeline.end_ns());
        super::clock::sleep_until(self.start, until, || {
            stop.load(Ordering::Relaxed) || crate::cancel::cancelled()
        });
        let now = self.elapsed();
        self.check_end(now);
        Ok(())
    }

    /// Waits until every I/O in flight completes (fio's io_u_quiesce), as
    /// a thinktime or flow pause begins; stops at the first error.
    fn quiesce(&mut self) -> anyhow::Result<()> {
        while self.slots.in_flight > 0 && self.first_error.is_none() {
            let wait = self.slots.in_flight;
            if let Err(e) = self.engine.submit_and_reap(&[], wait, &mut self.done) {
                return Err(anyhow::anyhow!("{} engine: {e}", self.engine.name()));
            }
            let now = self.elapsed();
            self.observed.resize(self.done.len(), now);
            self.reap();
        }
        Ok(())
    }

    /// What thinktime counts: I/Os completed, or issued (`on_issue`).
    #[inline]
    fn think_count(&self, think: &Think) -> u64 {
        if think.on_issue {
            self.issued_ops
        } else {
            self.completed_ops
        }
    }

    /// fio's thinktime after a round: when `blocks` more I/Os counted since
    /// the last pause, every I/O in flight completes (fio's io_u_quiesce),
    /// then the thread spins and sleeps, never past its runtime's end.
    fn think_if_due(&mut self) -> anyhow::Result<()> {
        let Some(think) = self.work.job.think else {
            return Ok(());
        };
        let count = match self.think_due.take() {
            Some(count) => count,
            None => self.think_count(&think),
        };
        if self.stopping || count < self.think_last + think.blocks {
            return Ok(());
        }
        self.quiesce()?;
        let end = self.work.timeline.end_ns();
        let started = self.elapsed();
        let spin_until = started
            .saturating_add(think.spin.as_nanos() as u64)
            .min(end);
        while self.elapsed() < spin_until {
            std::hint::spin_loop();
        }
        let spun = self.elapsed() - started;
        let rest = (think.pause.as_nanos() as u64).saturating_sub(spun);
        if rest > 0 {
            let stop = self.stop;
            let until = self.elapsed().saturating_add(rest).min(end);
            super::clock::sleep_until(self.start, until, || {
                stop.load(Ordering::Relaxed) || crate::cancel::cancelled()
            });
        }
        self.think_last = count;
        let now = self.elapsed();
        self.think_ended = now.min(end);
        self.check_end(now);
        Ok(())
    }

    /// Puts `next` in `slot` (a write's fresh payload in its buffer) and
    /// queues it; true when the payload was written just now.
    #[inline]
    fn prepare(&mut self, slot: u32, next: &Next) -> bool {
        self.issued_bytes += u64::from(next.len);
        self.issued_ops += 1;
        let mut refreshed = false;
        if next.write {
            match self.staged.as_mut() {
                // The spare holds fresh bytes: swap it in.
                Some(spare) if self.spare_fresh => {
                    std::mem::swap(&mut self.slots.buffer[slot as usize], spare);
                    self.spare_fresh = false;
                }
                _ => {
                    let buf = self.buffer_at(self.slots.buffer[slot as usize]);
                    let data = self.work.job.data;
                    // SAFETY: this slot is free, so nothing else uses its bytes.
                    data.fill(&mut self.payload, unsafe {
                        std::slice::from_raw_parts_mut(buf, next.len as usize)
                    });
                    refreshed = true;
                }
            }
            if let Some(alg) = self.verify {
                let written = WrittenBlock {
                    offset: next.offset,
                    len: next.len,
                    thread: self.work.thread,
                    seq: self.writes_issued,
                };
                let buf = self.buffer_at(self.slots.buffer[slot as usize]);
                // SAFETY: this slot is free and its buffer holds at least `len` bytes.
                super::verify::stamp(
                    unsafe { std::slice::from_raw_parts_mut(buf, next.len as usize) },
                    alg,
                    &written,
                );
                if let Some(m) = self.remember.as_mut() {
                    m.record(next.offset, next.len, self.writes_issued);
                }
                self.writes_issued += 1;
                refreshed = true;
            }
        }
        self.slots.state[slot as usize] = if next.write {
            SlotState::Write
        } else {
            SlotState::Read
        };
        self.slots.len[slot as usize] = next.len;
        self.new_ops.push(Op {
            kind: if next.write {
                OpKind::Write
            } else {
                OpKind::Read
            },
            slot,
            offset: next.offset,
            len: next.len,
            buf: self.buffer_at(self.slots.buffer[slot as usize]),
        });
        refreshed
    }

    /// Nothing in flight and the next operation not yet due: waits for it
    /// (or for the end, or a stop).
    fn wait_until_due(&mut self, at: u64) {
        let stop = self.stop;
        super::clock::sleep_until(self.start, at.min(self.work.timeline.end_ns()), || {
            stop.load(Ordering::Relaxed) || crate::cancel::cancelled()
        });
        let now = self.elapsed();
        if now >= self.work.timeline.end_ns()
            || stop.load(Ordering::Relaxed)
            || crate::cancel::cancelled()
        {
            self.stopping = true;
            if self.result.ended == Ended::Time && now < self.work.timeline.end_ns() {
                self.result.ended = Ended::Stopped;
            }
        }
    }

    /// One engine call for `new_ops` (waiting for a completion when it is
    /// the round's `last`); returns the clock read after it.
    #[inline]
    fn call_engine(
        &mut self,
        last: bool,
        refreshed: bool,
        recent: Option<u64>,
    ) -> anyhow::Result<u64> {
        // An operation's clock starts just before its own call, as fio's
        // does (a sync keeps its write's start).
        let t_submit = match recent {
            Some(t) if !refreshed => t,
            _ => self.elapsed(),
        };
        for op in &self.new_ops {
            if !op.kind.is_sync() {
                self.slots.submitted_at[op.slot as usize] = t_submit;
            }
        }
        self.slots.in_flight += self.new_ops.len();
        // A used spare is refilled while the device works: submit
        // without waiting, fill, then wait in a call of its own.
        let refill = last && self.staged.is_some() && !self.spare_fresh;
        let wait = if last && !refill {
            1.min(self.slots.in_flight)
        } else {
            0
        };
        if let Err(e) = self
            .engine
            .submit_and_reap(&self.new_ops, wait, &mut self.done)
        {
            // The engine failed as a whole: nothing more can be reaped safely.
            return Err(anyhow::anyhow!("{} engine: {e}", self.engine.name()));
        }
        if refill {
            if let Some(spare) = self.staged {
                let buf = self.buffer_at(spare);
                let data = self.work.job.data;
                // SAFETY: the spare is in no slot, so nothing else uses its bytes.
                data.fill(&mut self.payload, unsafe {
                    std::slice::from_raw_parts_mut(buf, self.stride)
                });
                self.spare_fresh = true;
            }
            if self.done.is_empty() {
                let wait = 1.min(self.slots.in_flight);
                if let Err(e) = self.engine.submit_and_reap(&[], wait, &mut self.done) {
                    return Err(anyhow::anyhow!("{} engine: {e}", self.engine.name()));
                }
            }
        }
        let now = self.elapsed();
        self.observed.resize(self.done.len(), now);
        Ok(now)
    }

    /// Records each completion of the round: an error stops the thread, a
    /// write that is due a sync queues it, a completion in the measured
    /// interval is timed; its slot is freed.
    #[inline]
    fn reap(&mut self) {
        let (ramp_ns, end_ns) = (self.work.timeline.ramp_ns(), self.work.timeline.end_ns());
        let fsync = self.work.job.fsync;
        let progress = self.work.progress.as_deref();
        for (c, now) in self.done.drain(..).zip(self.observed.drain(..)) {
            let slots = &mut self.slots;
            slots.in_flight -= 1;
            let slot = c.slot as usize;
            let kind = slots.state[slot];
            let len = slots.len[slot];
            if c.result < 0 || (kind != SlotState::SyncAfterWrite && c.result != i64::from(len)) {
                if self.first_error.is_none() {
                    self.first_error = Some(io_error(kind, c.result, len));
                }
                self.stopping = true;
                slots.state[slot] = SlotState::Free;
                continue;
            }
            if kind == SlotState::Write || kind == SlotState::Read {
                self.completed_ops += 1;
                let d = &mut self.completed[usize::from(kind == SlotState::Write)];
                d.0 += u64::from(len);
                d.1 += 1;
            }
            if kind == SlotState::Write {
                self.result.written_bytes += u64::from(len);
            }
            if kind == SlotState::Write && fsync > 0 && !self.stopping {
                self.writes_since_sync += 1;
                if self.writes_since_sync >= fsync {
                    self.writes_since_sync = 0;
                    slots.state[slot] = SlotState::SyncAfterWrite;
                    self.syncs.push(Op {
                        kind: self.sync_kind,
                        slot: c.slot,
                        offset: 0,
                        len: 0,
                        buf: std::ptr::null_mut(),
                    });
                    continue;
                }
            }
            if now >= ramp_ns && now < end_ns {
                self.last_completion = now;
                let latency = now - slots.submitted_at[slot];
                let since = now - ramp_ns;
                match kind {
                    SlotState::Read => self.result.read.record(since, latency, u64::from(len)),
                    _ => self.result.write.record(since, latency, u64::from(len)),
                }
                if let Some(p) = progress {
                    p.ops.fetch_add(1, Ordering::Relaxed);
                    p.bytes.fetch_add(u64::from(len), Ordering::Relaxed);
                }
            } else if now < ramp_ns {
                if let Some(p) = progress {
                    p.ramp_bytes.fetch_add(u64::from(len), Ordering::Relaxed);
                }
            }
            slots.release(c.slot);
        }
    }

    /// fio's rate_min after a round observed at `now` (outside the ramp,
    /// as fio's): a thread below its minimum fails.
    fn check_min_rate(&mut self, now: u64) {
        let Some(check) = self.min_rate.as_mut() else {
            return;
        };
        if now < self.work.timeline.ramp_ns() || self.first_error.is_some() {
            return;
        }
        if let Err(why) = check.check(now, self.completed) {
            self.first_error = Some(anyhow::anyhow!("{why}"));
            self.stopping = true;
        }
    }

    /// After a round observed at `now`: the thread's CPU clocks at the ramp's end,
    /// and whether it stops (the end, a stop request, a signal).
    #[inline]
    fn check_end(&mut self, now: u64) {
        if self.clocks_at_ramp.is_none() && now >= self.work.timeline.ramp_ns() {
            self.clocks_at_ramp = Some(ThreadClocks::now());
        }
        if now >= self.work.timeline.end_ns() {
            self.stopping = true;
        } else if self.stop.load(Ordering::Relaxed) || crate::cancel::cancelled() {
            self.stopping = true;
            if self.result.ended == Ended::Time {
                self.result.ended = Ended::Stopped;
            }
        }
        if self.stopping {
            // Syncs queued for writes that will not be counted are not needed.
            for op in self.syncs.drain(..) {
                self.slots.release(op.slot);
            }
        }
    }

    /// fio's end_fsync: the data written reaches the disk inside the job.
    /// Returns when the sync ended, if one was made.
    fn end_fsync(&mut self) -> anyhow::Result<Option<u64>> {
        let job = &self.work.job;
        if !(job.end_fsync && job.rw.writes() && !crate::cancel::cancelled()) {
            return Ok(None);
        }
        let op = Op {
            kind: OpKind::Sync,
            slot: 0,
            offset: 0,
            len: 0,
            buf: std::ptr::null_mut(),
        };
        self.engine
            .submit_and_reap(&[op], 1, &mut self.done)
            .map_err(|e| anyhow::anyhow!("{} engine: end fsync: {e}", self.engine.name()))?;
        if let Some(c) = self.done.first().filter(|c| c.result < 0) {
            return Err(io_error(SlotState::SyncAfterWrite, c.result, 0));
        }
        Ok(Some(self.elapsed()))
    }

    /// The thread's record: its measured interval ends at the planned end,
    /// or at its last completion when it stopped before, and after a final
    /// fsync (`synced_at`); its CPU over that interval.
    fn finish(mut self, synced_at: Option<u64>) -> WorkerResult {
        let (ramp_ns, end_ns) = (self.work.timeline.ramp_ns(), self.work.timeline.end_ns());
        let planned = end_ns.saturating_sub(ramp_ns);
        let mut end = match self.result.ended {
            Ended::Time => end_ns,
            _ => self.last_completion.max(self.think_ended).max(ramp_ns),
        };
        if let Some(at) = synced_at {
            end = end.max(at);
        }
        let measured = end.saturating_sub(ramp_ns);
        if measured != planned {
            self.result.stopped_early_ns = Some(measured);
        }
        let end_clocks = ThreadClocks::now();
        if let Some(at_ramp) = self.clocks_at_ramp {
            let ((u0, s0), (u1, s1)) = (at_ramp.cpu, end_clocks.cpu);
            self.result.cpu_ns = (u1.saturating_sub(u0), s1.saturating_sub(s0));
            self.result.run_wait_ns = at_ramp
                .run_wait
                .zip(end_clocks.run_wait)
                .map(|(a, b)| b.saturating_sub(a));
        }
        self.result.read.finish(measured);
        self.result.write.finish(measured);
        self.result.seq_bytes = self.pattern.moved();
        self.result.last_writes = self.remember.take();
        self.result
    }
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
        let plan = ThreadWork {
            thread: 0,
            job,
            region: (0, 1024 * 4096),
            timeline: Arc::new(super::super::settle::Timeline::new(0, 20_000_000)),
            progress: None,
        };
        let mut buffers = AlignedBuf::new(buffers_for(&plan.job) * 4096, 4096);
        let mut engine = Recording::default();
        let stop = AtomicBool::new(false);
        let r = drive_thread(&mut engine, &plan, &mut buffers, Instant::now(), &stop).unwrap();
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

    fn plan_of(
        mut job: JobSpec,
        blocks: u64,
        first_block: u64,
        byte_limit: Option<u64>,
    ) -> ThreadWork {
        let end_ns = job.runtime.as_nanos() as u64;
        let bs = job.bs;
        job.seq_start = first_block * bs;
        job.byte_limit = byte_limit;
        ThreadWork {
            thread: 0,
            job,
            region: (0, blocks * bs),
            timeline: Arc::new(super::super::settle::Timeline::new(0, end_ns)),
            progress: None,
        }
    }

    fn drive_recording(plan: &ThreadWork) -> (Recording, WorkerResult) {
        let mut buffers = AlignedBuf::new(buffers_for(&plan.job) * plan.job.bs as usize, 4096);
        let mut engine = Recording::default();
        let stop = AtomicBool::new(false);
        let r = drive_thread(&mut engine, plan, &mut buffers, Instant::now(), &stop).unwrap();
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

    /// A verifying job stamps each write's header, remembers the last write
    /// of each offset, and `verify_only`'s dry run draws exactly those
    /// writes again (random offsets drawn independently, so they repeat and
    /// overlap; sequential ones wrapping).
    #[test]
    fn verify_only_replays_the_writes_a_run_made() {
        use super::super::verify::{Verify, VerifyAlg};
        for rw in [Rw::Write, Rw::Randwrite] {
            let mut job = JobSpec::new(rw.clone(), 4096, 4);
            job.runtime = Duration::from_secs(5);
            job.verify = Some(Verify {
                alg: VerifyAlg::Crc32c,
                after_writes: true,
                only: false,
                fatal: false,
            });
            let plan = plan_of(job, 64, 10, Some(300 * 4096));
            let (engine, r) = drive_recording(&plan);
            assert_eq!(engine.writes.len(), 300);
            for (offset, head) in &engine.writes {
                assert_eq!(&head[0..4], b"CNDV");
                assert_eq!(u64::from_le_bytes(head[8..16].try_into().unwrap()), *offset);
            }
            let ran: Vec<WrittenBlock> = r.last_writes.unwrap().blocks(0).collect();
            let replayed: Vec<WrittenBlock> = replay_writes(&plan).blocks(0).collect();
            assert!(ran.len() <= 64 && !ran.is_empty(), "{rw}: {}", ran.len());
            assert_eq!(ran, replayed, "{rw}");
            // The last write of each block is the one remembered.
            let last = engine
                .writes
                .iter()
                .rposition(|w| w.0 == ran[0].offset)
                .unwrap();
            assert_eq!(ran[0].seq, last as u64, "{rw}");
        }
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
