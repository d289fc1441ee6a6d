//! The disk I/O engine: runs one fio-style job on a test file and records
//! everything the battery, the findings and the reports read. It measures;
//! it never formats.
//!
//! Flow of a job: validate the spec, pick the engine (with fallback),
//! start `numjobs` worker threads that each open the file, build their
//! engine and buffers, then wait at a barrier; the common start instant is
//! taken after the barrier, the ramp runs uncounted, the measured interval
//! is recorded per thread, and the totals are merged from the threads.

pub mod buffer;
pub mod cpu_usage;
pub mod dir;
pub mod engine;
pub mod file;
pub mod job;
pub mod recorder;
pub mod worker;

pub use dir::TestDir;
pub use file::{space_margin, TestFile};
pub use job::{EngineChoice, EngineKind, JobSpec, Rw};

use crate::error::usage;
use crate::result::{DiskMeasurement, FileSpan, ThreadStats};
use buffer::AlignedBuf;
use cpu_usage::CpuSnapshot;
use engine::{aio::AioEngine, null::NullEngine, psync::PsyncEngine, uring::UringEngine, Engine};
use recorder::DirectionRecorder;
use std::cell::Cell;
use std::os::fd::AsRawFd;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::{Barrier, OnceLock};
use std::time::{Duration, Instant};
use worker::{WorkerPlan, WorkerResult};

/// Runs `job` on `file` (which must hold at least `job.size` bytes).
pub fn run_job(dir: &TestDir, file: &TestFile, job: &JobSpec) -> anyhow::Result<DiskMeasurement> {
    if file.size() < job.size {
        return Err(anyhow::anyhow!(
            "job size {} exceeds the test file's {} bytes",
            job.size,
            file.size()
        ));
    }
    dir.check_block_size(job.bs, job.direct)?;
    let mut m = run(Some(file), job, dir.buffer_alignment(), dir.path())?;
    m.file = Some(file.info());
    // Another candor measuring the same disk meanwhile halves both figures:
    // the measurement says so (its test file is the sign).
    let others = crate::leftovers::others_running(dir.path());
    m.notes
        .extend(crate::leftovers::sharing_warning(dir.path(), &others));
    Ok(m)
}

/// Runs `job` with the null engine: no file, no I/O; what it measures is
/// candor's own cost per operation.
pub fn run_null_job(job: &JobSpec) -> anyhow::Result<DiskMeasurement> {
    let mut job = job.clone();
    job.engine = EngineChoice::Exact(EngineKind::Null);
    run(None, &job, 4096, std::path::Path::new("/tmp"))
}

fn run(
    file: Option<&TestFile>,
    job: &JobSpec,
    buffer_align: usize,
    dir: &std::path::Path,
) -> anyhow::Result<DiskMeasurement> {
    job.validate().map_err(usage)?;
    job.check_memory(crate::host::memory::available_bytes())
        .map_err(usage)?;
    let selected = engine::select(job.engine).map_err(|why| anyhow::anyhow!(why))?;
    let mut job = job.clone();
    let mut notes = Vec::new();
    if let Some(note) = &selected.note {
        notes.push(note.clone());
    }
    if selected.kind == EngineKind::Psync && job.iodepth > 1 {
        if job.engine == EngineChoice::Exact(EngineKind::Psync) {
            return Err(usage(format!(
                "--engine psync is synchronous: --iodepth {} cannot be kept in flight (use --numjobs for parallelism)",
                job.iodepth
            )));
        }
        notes.push(format!(
            "psync is synchronous: ran at iodepth 1 instead of {}",
            job.iodepth
        ));
        job.iodepth = 1;
        job.iodepth_batch = 1;
    }
    let file = if selected.kind == EngineKind::Null {
        None
    } else {
        file
    };
    if selected.kind != EngineKind::Null && file.is_none() {
        return Err(anyhow::anyhow!(
            "engine {} needs a test file",
            selected.kind.as_str()
        ));
    }

    let started_at = crate::units::now_rfc3339();
    let ramp_ns = job.ramp.as_nanos() as u64;
    let measured_ns = job.runtime.as_nanos() as u64;
    let end_ns = ramp_ns + measured_ns;
    let blocks = job.size / job.bs;
    let per_thread = blocks / job.numjobs as u64;

    let threads = job.numjobs as usize;
    let barrier = Barrier::new(threads + 1);
    let start: OnceLock<Instant> = OnceLock::new();
    let stop = AtomicBool::new(false);
    let finished = AtomicUsize::new(0);
    let registered = AtomicUsize::new(0);

    let (outcomes, cpu) = std::thread::scope(|scope| {
        let handles: Vec<_> = (0..threads)
            .map(|t| {
                let plan = WorkerPlan {
                    thread: t as u32,
                    job: job.clone(),
                    blocks,
                    region: (t as u64 * per_thread, per_thread.max(1)),
                    first_block: job.seq_start / job.bs,
                    byte_limit: job.byte_limit,
                    ramp_ns,
                    end_ns,
                };
                let (barrier, start, stop, finished, registered) =
                    (&barrier, &start, &stop, &finished, &registered);
                std::thread::Builder::new()
                    .name(format!("candor-io-{t}"))
                    .spawn_scoped(scope, move || {
                        let arrived = Cell::new(false);
                        let gate = || -> Option<Instant> {
                            arrived.set(true);
                            barrier.wait();
                            let at = wait_for(start);
                            (!stop.load(Ordering::SeqCst)).then_some(at)
                        };
                        let outcome = worker_main(
                            file,
                            &plan,
                            selected.kind,
                            buffer_align,
                            &gate,
                            registered,
                            stop,
                        );
                        if !arrived.get() {
                            // Setup failed: still meet the others at the barrier, then stop them.
                            stop.store(true, Ordering::SeqCst);
                            barrier.wait();
                        } else if outcome.is_err() {
                            stop.store(true, Ordering::SeqCst);
                        }
                        finished.fetch_add(1, Ordering::SeqCst);
                        outcome
                    })
                    .expect("spawn I/O thread")
            })
            .collect();

        barrier.wait();
        let t0 = Instant::now();
        start.set(t0).expect("start is set once");
        let all_done = || finished.load(Ordering::SeqCst) == threads;
        sleep_until(t0 + Duration::from_nanos(ramp_ns), &all_done);
        let before = CpuSnapshot::now();
        sleep_until(t0 + Duration::from_nanos(end_ns), &all_done);
        let after = CpuSnapshot::now();
        let outcomes: Vec<_> = handles
            .into_iter()
            .map(|h| {
                h.join()
                    .unwrap_or_else(|_| Err(anyhow::anyhow!("an I/O thread panicked")))
            })
            .collect();
        (outcomes, before.until(&after))
    });

    crate::cancel::check()?;
    let mut results: Vec<WorkerResult> = Vec::with_capacity(threads);
    for outcome in outcomes {
        results.push(outcome?);
    }

    // A job that reached its byte limit is measured up to its last completion.
    let measured_ns = match results
        .iter()
        .map(|r| r.stopped_early_ns)
        .collect::<Option<Vec<u64>>>()
    {
        Some(ends) => {
            let end = ends.into_iter().max().unwrap_or(measured_ns);
            notes.push(format!(
                "stopped after {} of the file (its share, so that no read repeats bytes): measured over {} instead of {}",
                crate::units::fmt_bytes(job.byte_limit.unwrap_or(0)),
                crate::units::fmt_duration(Duration::from_nanos(end)),
                crate::units::fmt_duration(job.runtime)
            ));
            end
        }
        None => measured_ns,
    };
    let mut spec = job.to_spec(selected.kind);
    spec.engine_note = selected.note.clone();
    if selected.kind == EngineKind::IoUring {
        let all = registered.load(Ordering::SeqCst) == threads;
        spec.registered_buffers = Some(all);
        if !all {
            notes.push(
                "io_uring ran without registered buffers (the memlock limit, ulimit -l, is too low to pin them)"
                    .to_string(),
            );
        }
    }
    let stats_of = |pick: fn(&WorkerResult) -> &DirectionRecorder| {
        let parts: Vec<&DirectionRecorder> = results.iter().map(pick).collect();
        (parts.iter().any(|p| p.ops() > 0)).then(|| DirectionRecorder::merged(&parts, measured_ns))
    };
    let direction_used = |ops: u64, does: bool| does || ops > 0;
    let read = stats_of(|r| &r.read).filter(|s| direction_used(s.ops, job.rw.reads()));
    let write = stats_of(|r| &r.write).filter(|s| direction_used(s.ops, job.rw.writes()));
    let threads_stats = results
        .iter()
        .enumerate()
        .map(|(i, r)| ThreadStats {
            thread: i as u32,
            read: (job.rw.reads()).then(|| r.read.stats(measured_ns)),
            write: (job.rw.writes()).then(|| r.write.stats(measured_ns)),
        })
        .collect();
    let read = read.or_else(|| {
        job.rw
            .reads()
            .then(|| DirectionRecorder::merged(&[], measured_ns))
    });
    let write = write.or_else(|| {
        job.rw
            .writes()
            .then(|| DirectionRecorder::merged(&[], measured_ns))
    });
    let span = (!job.rw.is_random()).then(|| {
        let region_bytes = per_thread.max(1) * job.bs;
        FileSpan {
            start: job.seq_start / job.bs * job.bs % region_bytes,
            bytes: results.iter().map(|r| r.seq_blocks).max().unwrap_or(0) * job.bs,
            region_bytes,
        }
    });
    Ok(DiskMeasurement {
        span,
        sync: None,
        profile: None,
        pass: None,
        role: Default::default(),
        started_at: Some(started_at),
        fio_command: crate::fio::fio_command(&job, selected.kind.as_str(), dir),
        spec,
        read,
        write,
        threads: threads_stats,
        cpu,
        measured_ns,
        file: None,
        notes,
    })
}

/// One worker thread: open the file, build the engine and buffers, meet the
/// others at the gate, then drive the loop.
fn worker_main(
    file: Option<&TestFile>,
    plan: &WorkerPlan,
    kind: EngineKind,
    buffer_align: usize,
    gate: &dyn Fn() -> Option<Instant>,
    registered: &AtomicUsize,
    stop: &AtomicBool,
) -> anyhow::Result<WorkerResult> {
    let job = &plan.job;
    let mut buffers = AlignedBuf::new(worker::buffers_for(job) * job.bs as usize, buffer_align);
    let fd = match file {
        Some(f) => Some(f.open_for_io(job.rw.writes(), job.direct)?),
        None => None,
    };
    let raw = fd.as_ref().map_or(-1, |f| f.as_raw_fd());
    fn go<E: Engine>(
        mut engine: E,
        plan: &WorkerPlan,
        buffers: &mut AlignedBuf,
        gate: &dyn Fn() -> Option<Instant>,
        stop: &AtomicBool,
    ) -> anyhow::Result<WorkerResult> {
        let Some(start) = gate() else {
            return Ok(WorkerResult::default());
        };
        match engine::fail_after() {
            Some(left) => {
                let mut faulty = engine::Faulty {
                    inner: engine,
                    left,
                };
                worker::drive(&mut faulty, plan, buffers, start, stop)
            }
            None => worker::drive(&mut engine, plan, buffers, start, stop),
        }
    }
    match kind {
        EngineKind::IoUring => {
            let region = (buffers.as_mut_ptr(), buffers.len());
            let engine = UringEngine::new(raw, job.iodepth, region)
                .map_err(|e| anyhow::anyhow!("io_uring setup: {e}"))?;
            if engine.registered_buffers() {
                registered.fetch_add(1, Ordering::SeqCst);
            }
            go(engine, plan, &mut buffers, gate, stop)
        }
        EngineKind::Libaio => {
            let engine = AioEngine::new(raw, job.iodepth)
                .map_err(|e| anyhow::anyhow!("libaio setup: {e}"))?;
            go(engine, plan, &mut buffers, gate, stop)
        }
        EngineKind::Psync => go(PsyncEngine::new(raw), plan, &mut buffers, gate, stop),
        EngineKind::Null => go(NullEngine, plan, &mut buffers, gate, stop),
    }
}

fn wait_for(start: &OnceLock<Instant>) -> Instant {
    loop {
        if let Some(t) = start.get() {
            return *t;
        }
        std::hint::spin_loop();
    }
}

/// Sleeps until `deadline`, waking early when every worker has finished or a stop was asked.
fn sleep_until(deadline: Instant, all_done: &dyn Fn() -> bool) {
    loop {
        let now = Instant::now();
        if now >= deadline || all_done() {
            return;
        }
        std::thread::sleep((deadline - now).min(Duration::from_millis(20)));
    }
}
