//! The disk I/O engine: runs one fio-style job on a test file and records
//! everything the battery, the findings and the reports read. It measures;
//! it never formats.
//!
//! Flow of a job, in three steps of [`run`]: `prepare` validates the spec
//! and picks the engine (with fallback); `drive` starts `numjobs` worker
//! threads that each open the file, build their engine and buffers, then
//! wait at a barrier; the common start instant is taken after the barrier,
//! the ramp runs uncounted and the measured interval is recorded per
//! thread; `assemble` merges the threads' records into one measurement.

pub mod buffer;
pub mod cpu_usage;
pub mod device;
pub mod dir;
pub mod distribution;
pub mod engine;
pub mod file;
pub mod job;
pub mod latency;
pub mod made_dirs;
pub mod pattern;
pub mod rate;
pub mod schedule;
pub mod settle;
pub mod steady;
pub mod worker;

pub use device::DeviceTarget;
pub use dir::TestDir;
pub use distribution::Distribution;
pub use file::{space_margin, TestFile};
pub use job::{BlockSizes, EngineChoice, EngineKind, JobSpec, Modifier, Rw, Think};
pub use made_dirs::MadeDirs;

use crate::host::blockstack;
use crate::result::{
    CpuUse, DiskMeasurement, FileSpan, LayerIo, StackLayer, SteadyState, ThreadStats,
};
use buffer::AlignedBuf;
use cpu_usage::CpuSnapshot;
use engine::{aio::AioEngine, null::NullEngine, psync::PsyncEngine, uring::UringEngine, Engine};
use latency::DirectionRecorder;
use std::cell::Cell;
use std::os::fd::AsRawFd;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::{Arc, OnceLock};
use std::time::{Duration, Instant};
use worker::{Ended, Progress, ThreadWork, WorkerResult};

/// Where one thread of a job does its I/O: a test file or a block device
/// (neither for the null engine) and its region, first byte and length.
#[derive(Debug, Clone, Copy)]
pub struct Placement<'a> {
    pub file: Option<&'a TestFile>,
    /// A block device (`--device`) in place of a test file.
    pub device: Option<&'a DeviceTarget>,
    pub start: u64,
    pub len: u64,
}

/// How a job is run beside others, and watched (fio job files).
#[derive(Default)]
pub struct Control<'a> {
    /// Set from outside (another job failed): stop at once.
    pub abort: Option<&'a AtomicBool>,
    /// fio's steady state: watch the job and stop it when attained.
    pub steady: Option<steady::SteadySpec>,
    /// The job shares the process with other jobs: its CPU use is its own
    /// threads' (getrusage per thread), not the process's.
    pub shared: bool,
    /// Drop the files' cached pages before the job (fio's `invalidate`).
    pub invalidate: bool,
    /// fio's `fadvise_hint`: the advice given on each thread's file.
    pub fadvise: Option<i32>,
    /// Met by every job that starts at the same moment, once its threads
    /// are ready: they then start together, as fio starts them.
    pub rendezvous: Option<&'a schedule::Rendezvous>,
}

/// A job's measurement and how it ran.
pub struct JobOutcome {
    /// Its `fio_command` is left empty: the plan that asked for the job
    /// says how fio would run it (`fio::command`).
    pub measurement: DiskMeasurement,
    /// When its threads started, and when the last one ended.
    pub started: Instant,
    pub ended: Instant,
    /// `runtime`, `size`, `steadystate` or `stopped`.
    pub ended_by: &'static str,
    pub steady: Option<SteadyState>,
    /// Bytes its threads wrote, ramp included.
    pub written_bytes: u64,
}

/// Runs `job` on `file` (which must hold at least `job.size` bytes).
pub fn run_job(dir: &TestDir, file: &TestFile, job: &JobSpec) -> anyhow::Result<DiskMeasurement> {
    if file.size() < job.size {
        return Err(anyhow::anyhow!(
            "job size {} exceeds the test file's {} bytes",
            job.size,
            file.size()
        ));
    }
    let places = split_file(Some(file), job);
    let mut m = run(
        job,
        &places,
        dir.buffer_alignment(),
        dir.path(),
        &Control::default(),
    )?
    .measurement;
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
    let places = split_file(None, &job);
    Ok(run(
        &job,
        &places,
        4096,
        std::path::Path::new("/tmp"),
        &Control::default(),
    )?
    .measurement)
}

/// candor's own jobs on one file: each sequential thread gets its own
/// region of it, random threads span all of it.
fn split_file<'a>(file: Option<&'a TestFile>, job: &JobSpec) -> Vec<Placement<'a>> {
    let threads = u64::from(job.numjobs.max(1));
    let per_thread = (job.size / job.bs / threads).max(1) * job.bs;
    (0..threads)
        .map(|t| {
            if job.rw.is_random() {
                Placement {
                    file,
                    device: None,
                    start: 0,
                    len: job.size / job.bs * job.bs,
                }
            } else {
                Placement {
                    file,
                    device: None,
                    start: t * per_thread,
                    len: per_thread,
                }
            }
        })
        .collect()
}

/// Runs `job` with one thread per placement (at least one), all started
/// together at a barrier: the job is checked and its engine chosen
/// ([`prepare`]), its threads run ([`drive`]), and what they recorded
/// becomes one measurement ([`assemble`]).
pub fn run(
    job: &JobSpec,
    places: &[Placement],
    buffer_align: usize,
    dir: &std::path::Path,
    control: &Control,
) -> anyhow::Result<JobOutcome> {
    let Prepared { job, engine, notes } = prepare(job, places, control)?;
    let started_at = crate::units::now_rfc3339();
    let window = Window::of(&job);
    // The stack under the job's first file (a job's files share a directory
    // but for job files that name others: the first one's stack is kept).
    let under = places
        .iter()
        .find_map(|p| {
            p.file
                .map(|f| f.path().parent().unwrap_or(dir).to_path_buf())
        })
        .unwrap_or_else(|| dir.to_path_buf());
    // A device job's stack is the device itself: no filesystem to map.
    let on_device = places.iter().any(|p| p.device.is_some());
    let stack = if engine.kind == EngineKind::Null || on_device {
        Vec::new()
    } else {
        crate::host::blockstack::map(
            &crate::host::blockstack::system(),
            &under,
            crate::host::storage::mount_source(&under).as_deref(),
        )
    };
    let driven = drive(&job, places, &engine, buffer_align, control, window, &stack)?;
    Ok(assemble(&job, places, &engine, notes, started_at, driven))
}

/// A job ready to run: the spec as it will run (psync lowers the depth),
/// the engine chosen, and the notes that explain both.
struct Prepared {
    job: JobSpec,
    engine: engine::Selected,
    notes: Vec<String>,
}

/// Chooses the engine (the job's values were checked by its plan,
/// `plan::preflight`), checks its placements, and drops the files' cached
/// pages if asked to.
fn prepare(job: &JobSpec, places: &[Placement], control: &Control) -> anyhow::Result<Prepared> {
    let selected = engine::select(job.engine).map_err(|why| anyhow::anyhow!(why))?;
    let mut job = job.clone();
    let mut notes = Vec::new();
    if let Some(note) = &selected.note {
        notes.push(note.clone());
    }
    // (psync asked for by name at a depth is refused by the plan.)
    if selected.kind == EngineKind::Psync && job.iodepth > 1 {
        notes.push(format!(
            "psync is synchronous: ran at iodepth 1 instead of {}",
            job.iodepth
        ));
        job.iodepth = 1;
        job.iodepth_batch = 1;
    }
    let null = selected.kind == EngineKind::Null;
    if !null
        && places
            .iter()
            .any(|p| p.file.is_none() && p.device.is_none())
    {
        return Err(anyhow::anyhow!(
            "engine {} needs a test file",
            selected.kind.as_str()
        ));
    }
    if places.len() != job.numjobs as usize {
        return Err(anyhow::anyhow!(
            "{} placements for numjobs {}",
            places.len(),
            job.numjobs
        ));
    }
    if !null && control.invalidate {
        for p in places {
            if let Some(f) = p.file {
                f.drop_cached(p.start, p.len);
            }
            if let Some(d) = p.device {
                d.drop_cached(p.start, p.len);
            }
        }
    }
    Ok(Prepared {
        job,
        engine: selected,
        notes,
    })
}

/// A job's timeline from its start, in nanoseconds: the ramp runs
/// uncounted, the measured interval follows until `end_ns`.
#[derive(Debug, Clone, Copy)]
struct Window {
    ramp_ns: u64,
    end_ns: u64,
}

impl Window {
    fn of(job: &JobSpec) -> Window {
        let ramp_ns = job.ramp.as_nanos() as u64;
        // A job bounded by what it issues may have no time limit (fio's runtime=0).
        let end_ns = if job.runtime.is_zero() {
            u64::MAX
        } else {
            ramp_ns + job.runtime.as_nanos() as u64
        };
        Window { ramp_ns, end_ns }
    }

    fn measured_ns(&self) -> u64 {
        self.end_ns - self.ramp_ns
    }
}

/// What the threads of a job recorded, and how the job ran.
struct Driven {
    results: Vec<WorkerResult>,
    /// The job's measured interval: the longest of its threads'.
    measured_ns: u64,
    /// CPU use over the measured interval: the process's, or the job's own
    /// threads' where it ran beside other jobs.
    cpu: CpuUse,
    steady: Option<SteadyState>,
    /// fio's steady state was attained and stopped the job.
    attained: bool,
    /// Every thread's io_uring registered its buffers.
    all_registered: bool,
    started: Instant,
    ended: Instant,
    /// What each layer under the file did during the measured interval.
    block_stack: Vec<LayerIo>,
    /// The job ran beside other jobs (their I/O is in the layers' counters).
    shared: bool,
    /// When the ramp ended (ns from the start): the planned ramp, or
    /// earlier where it settled (`settle`).
    ramp_ns: u64,
}

/// Starts the job's threads, releases them together once all are set up
/// (and, for jobs that start together, once every such job is), sleeps
/// through the ramp, then watches the measured interval: its end, another
/// job's failure, fio's steady state. Returns each thread's records.
fn drive(
    job: &JobSpec,
    places: &[Placement],
    selected: &engine::Selected,
    buffer_align: usize,
    control: &Control,
    window: Window,
    stack: &[StackLayer],
) -> anyhow::Result<Driven> {
    let sys_root = blockstack::system().root;
    let Window { ramp_ns, end_ns } = window;
    let timeline = Arc::new(settle::Timeline::new(ramp_ns, end_ns));
    let settles = job.settle_ramp && ramp_ns > 0;
    let null = selected.kind == EngineKind::Null;
    let progress: Vec<Option<Arc<Progress>>> = (0..places.len())
        .map(|_| (control.steady.is_some() || settles).then(|| Arc::new(Progress::default())))
        .collect();

    let threads = job.numjobs as usize;
    // Not std's Barrier: a thread that cannot be started never arrives,
    // and the ones that did must not wait for it for ever.
    let barrier = schedule::Rendezvous::new(threads + 1);
    let start: OnceLock<Instant> = OnceLock::new();
    let stop = AtomicBool::new(false);
    let finished = AtomicUsize::new(0);
    let registered = AtomicUsize::new(0);

    let attained = AtomicBool::new(false);
    let (outcomes, cpu, steady_record, t0, block_stack) = std::thread::scope(|scope| {
        let mut handles = Vec::with_capacity(threads);
        for t in 0..threads {
            let spawned = {
                let place = places[t];
                let plan = ThreadWork {
                    thread: t as u32,
                    job: job.clone(),
                    region: (place.start, place.len),
                    timeline: timeline.clone(),
                    progress: progress[t].clone(),
                };
                let file = if null { None } else { place.file };
                let device = if null { None } else { place.device };
                let (barrier, start, stop, finished, registered) =
                    (&barrier, &start, &stop, &finished, &registered);
                std::thread::Builder::new()
                    .name(format!("candor-io-{t}"))
                    .spawn_scoped(scope, move || {
                        let arrived = Cell::new(false);
                        let gate = || -> Option<Instant> {
                            arrived.set(true);
                            barrier.wait(stop);
                            let at = wait_for(start);
                            (!stop.load(Ordering::SeqCst)).then_some(at)
                        };
                        let outcome = worker_main(
                            file,
                            device,
                            &plan,
                            selected.kind,
                            buffer_align,
                            &gate,
                            registered,
                            stop,
                            control.fadvise,
                        );
                        if !arrived.get() {
                            // Setup failed: still meet the others at the barrier, then stop them.
                            stop.store(true, Ordering::SeqCst);
                            barrier.wait(stop);
                        } else if outcome.is_err() {
                            stop.store(true, Ordering::SeqCst);
                        }
                        finished.fetch_add(1, Ordering::SeqCst);
                        outcome
                    })
            };
            match spawned {
                Ok(h) => handles.push(h),
                Err(e) => {
                    // Under a process limit (a pids cgroup, RLIMIT_NPROC):
                    // the threads already started pass the gate, see the
                    // stop and end without doing I/O.
                    stop.store(true, Ordering::SeqCst);
                    let _ = start.set(Instant::now());
                    for h in handles {
                        let _ = h.join();
                    }
                    return Err(anyhow::anyhow!(
                        "cannot start I/O thread {} of {threads}: {e} (a process or thread limit?)",
                        t + 1
                    ));
                }
            }
        }

        barrier.wait(&stop);
        // Jobs that fio starts together start at one instant, once every
        // one of them is ready.
        if let (Some(r), Some(abort)) = (control.rendezvous, control.abort) {
            r.wait(abort);
        }
        let t0 = Instant::now();
        start.set(t0).expect("start is set once");
        let all_done = || finished.load(Ordering::SeqCst) == threads;
        let aborted = || control.abort.is_some_and(|a| a.load(Ordering::Relaxed));
        let watch = || {
            if aborted() {
                stop.store(true, Ordering::SeqCst);
            }
        };
        // Every thread done ends the wait; each step watches for an abort.
        let done_or_watch = || {
            if all_done() {
                return true;
            }
            watch();
            false
        };
        let ramp_ns = if settles {
            let ramp_bytes = || {
                progress
                    .iter()
                    .flatten()
                    .map(|p| p.ramp_bytes.load(Ordering::Relaxed))
                    .sum::<u64>()
            };
            settle::ramp(t0, &timeline, ramp_ns, ramp_bytes, done_or_watch)
        } else {
            sleep_until(t0, ramp_ns, done_or_watch);
            ramp_ns
        };
        let end_ns = timeline.end_ns();
        let before = CpuSnapshot::now();
        let stack_before = blockstack::snapshot(&sys_root, stack);
        let mut seconds = StackSeconds::start(&sys_root, stack, &stack_before, t0, ramp_ns);
        let mut monitor = control.steady.clone().map(steady::Monitor::new);
        loop {
            // Wake for the end, the next second of the stack's series, the
            // next steady-state sample, or every 20 ms.
            let next = monitor
                .as_ref()
                .map_or(end_ns, |m| end_ns.min(ramp_ns.saturating_add(m.due_ns())))
                .min(seconds.due_ns());
            sleep_until(t0, next, done_or_watch);
            let now = t0.elapsed().as_nanos() as u64;
            if all_done() || now >= end_ns || stop.load(Ordering::SeqCst) {
                break;
            }
            seconds.sample_if_due(now);
            if let Some(m) = monitor.as_mut().filter(|m| now >= ramp_ns + m.due_ns()) {
                let (ops, bytes) = progress.iter().flatten().fold((0, 0), |(o, b), p| {
                    (
                        o + p.ops.load(Ordering::Relaxed),
                        b + p.bytes.load(Ordering::Relaxed),
                    )
                });
                if m.sample(ops, bytes) {
                    attained.store(true, Ordering::SeqCst);
                    stop.store(true, Ordering::SeqCst);
                }
            }
        }
        let after = CpuSnapshot::now();
        let stack_after = blockstack::snapshot(&sys_root, stack);
        let mut series = seconds.finish(&stack_after);
        let block_stack: Vec<LayerIo> = stack
            .iter()
            .zip(stack_before.iter().zip(&stack_after))
            .zip(series.iter_mut())
            .map(|((layer, (b, a)), series)| LayerIo {
                layer: layer.clone(),
                io: a.zip(*b).map(|(a, b)| a.since(&b)),
                series: std::mem::take(series),
            })
            .collect();
        let outcomes: Vec<_> = handles
            .into_iter()
            .map(|h| {
                h.join()
                    .unwrap_or_else(|_| Err(anyhow::anyhow!("an I/O thread panicked")))
            })
            .collect();
        Ok((
            outcomes,
            before.until(&after),
            monitor.map(|m| m.record()),
            t0,
            block_stack,
        ))
    })?;
    let ended = Instant::now();

    crate::cancel::check()?;
    let mut results: Vec<WorkerResult> = Vec::with_capacity(threads);
    for outcome in outcomes {
        results.push(outcome?);
    }
    if control.abort.is_some_and(|a| a.load(Ordering::SeqCst)) {
        return Err(anyhow::anyhow!("stopped because another job failed"));
    }
    // A thread that stopped early is measured up to its last completion,
    // one that synced at the end up to the sync: the job's interval is the
    // longest of its threads'.
    let measured_ns = results
        .iter()
        .map(|r| r.stopped_early_ns.unwrap_or(window.measured_ns()))
        .max()
        .unwrap_or(window.measured_ns());
    // The I/O threads' wait for a CPU, when every thread read it.
    let run_wait_ns = results.iter().map(|r| r.run_wait_ns).sum::<Option<u64>>();
    // Beside other jobs the process's CPU is theirs too: count this job's threads.
    let mut cpu = if control.shared {
        let (usr, sys) = results
            .iter()
            .fold((0, 0), |(u, s), r| (u + r.cpu_ns.0, s + r.cpu_ns.1));
        let wall = measured_ns.max(1) as f64;
        CpuUse {
            usr_pct: 100.0 * usr as f64 / wall,
            sys_pct: 100.0 * sys as f64 / wall,
            steal_pct: cpu.steal_pct,
            cpu_ns: usr + sys,
            run_wait_ns: None,
        }
    } else {
        cpu
    };
    cpu.run_wait_ns = run_wait_ns;
    Ok(Driven {
        results,
        measured_ns,
        cpu,
        steady: steady_record,
        attained: attained.load(Ordering::SeqCst),
        all_registered: registered.load(Ordering::SeqCst) == threads,
        started: t0,
        ended,
        block_stack,
        shared: control.shared,
        ramp_ns: timeline.ramp_ns(),
    })
}

/// One second of the series of the layers' counters.
const SECOND_NS: u64 = 1_000_000_000;

/// The stack's per-second series, read by the job's driver thread at each
/// whole second of the measured interval (the I/O threads never touch it):
/// each layer's counters between two readings, kept beside the
/// measurement's per-second series.
struct StackSeconds<'a> {
    sys_root: &'a std::path::Path,
    stack: &'a [StackLayer],
    t0: Instant,
    ramp_ns: u64,
    /// The last reading and when it was taken (ns from `t0`).
    last: Vec<Option<crate::result::LayerCounters>>,
    last_ns: u64,
    /// The next whole second (ns from `t0`).
    due_ns: u64,
    series: Vec<Vec<crate::result::LayerSecond>>,
}

impl<'a> StackSeconds<'a> {
    fn start(
        sys_root: &'a std::path::Path,
        stack: &'a [StackLayer],
        first: &[Option<crate::result::LayerCounters>],
        t0: Instant,
        ramp_ns: u64,
    ) -> StackSeconds<'a> {
        StackSeconds {
            sys_root,
            stack,
            t0,
            ramp_ns,
            last: first.to_vec(),
            last_ns: (t0.elapsed().as_nanos() as u64).max(ramp_ns),
            due_ns: if stack.is_empty() {
                u64::MAX
            } else {
                ramp_ns.saturating_add(SECOND_NS)
            },
            series: vec![Vec::new(); stack.len()],
        }
    }

    fn due_ns(&self) -> u64 {
        self.due_ns
    }

    /// Reads the layers when a whole second has passed.
    fn sample_if_due(&mut self, now_ns: u64) {
        if now_ns < self.due_ns {
            return;
        }
        let reading = blockstack::snapshot(self.sys_root, self.stack);
        self.record(&reading);
        while self.due_ns <= now_ns {
            self.due_ns = self.due_ns.saturating_add(SECOND_NS);
        }
    }

    /// Adds the interval since the last reading; a layer unreadable at
    /// either end loses its whole series (a gap would misplace the rest).
    fn record(&mut self, reading: &[Option<crate::result::LayerCounters>]) {
        let now = self.t0.elapsed().as_nanos() as u64;
        let t_ns = self.last_ns.saturating_sub(self.ramp_ns);
        let dur_ns = now.saturating_sub(self.last_ns);
        if dur_ns == 0 {
            return;
        }
        for (i, (before, after)) in self.last.iter().zip(reading).enumerate() {
            match (before, after) {
                (Some(b), Some(a)) => {
                    self.series[i].push(crate::result::LayerSecond::between(b, a, t_ns, dur_ns))
                }
                _ => self.series[i].clear(),
            }
        }
        self.last = reading.to_vec();
        self.last_ns = now;
    }

    /// The last, partial second up to the end reading; each layer's series.
    fn finish(
        mut self,
        end: &[Option<crate::result::LayerCounters>],
    ) -> Vec<Vec<crate::result::LayerSecond>> {
        if !self.stack.is_empty() {
            self.record(end);
            for (series, reading) in self.series.iter_mut().zip(end) {
                if reading.is_none() {
                    series.clear();
                }
            }
        }
        self.series
    }
}

/// Merges the threads' records into the job's measurement: totals per
/// direction, each thread over its own interval, the bytes a sequential
/// job covered, and how it ended.
fn assemble(
    job: &JobSpec,
    places: &[Placement],
    selected: &engine::Selected,
    mut notes: Vec<String>,
    started_at: String,
    driven: Driven,
) -> JobOutcome {
    let Driven {
        results,
        measured_ns,
        cpu,
        steady,
        attained,
        all_registered,
        started,
        ended,
        block_stack: driven_stack,
        shared: driven_shared,
        ramp_ns,
    } = driven;
    let written_bytes = results.iter().map(|r| r.written_bytes).sum();
    let ended_by = if attained {
        "steadystate"
    } else if results.iter().all(|r| r.ended == Ended::Limit) {
        "size"
    } else if results.iter().any(|r| r.ended == Ended::Stopped) {
        "stopped"
    } else {
        "runtime"
    };
    let mut spec = job.to_spec(selected.kind);
    spec.ramp_ns = ramp_ns;
    spec.engine_note = selected.note.clone();
    if selected.kind == EngineKind::IoUring {
        spec.registered_buffers = Some(all_registered);
        if !all_registered {
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
        .map(|(i, r)| {
            // Each thread over its own interval: threads of a size-bounded
            // job finish at different times.
            let own = r.stopped_early_ns.unwrap_or(measured_ns);
            ThreadStats {
                thread: i as u32,
                read: (job.rw.reads()).then(|| r.read.stats(own)),
                write: (job.rw.writes()).then(|| r.write.stats(own)),
            }
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
        let region_bytes = places.first().map_or(0, |p| p.len).max(1);
        FileSpan {
            start: job.seq_start / job.bs * job.bs % region_bytes,
            bytes: results.iter().map(|r| r.seq_bytes).max().unwrap_or(0),
            region_bytes,
        }
    });
    let measurement = DiskMeasurement {
        span,
        sync: None,
        profile: None,
        pass: None,
        role: Default::default(),
        started_at: Some(started_at),
        fio_command: String::new(),
        spec,
        read,
        write,
        threads: threads_stats,
        cpu,
        measured_ns,
        file: None,
        notes,
        job: None,
        block_stack: driven_stack,
        beside_other_jobs: driven_shared,
        device: None,
    };
    JobOutcome {
        measurement,
        written_bytes,
        started,
        ended,
        ended_by,
        steady,
    }
}

/// One worker thread: open the file, build the engine and buffers, meet the
/// others at the gate, then drive the loop.
#[allow(clippy::too_many_arguments)]
fn worker_main(
    file: Option<&TestFile>,
    device: Option<&DeviceTarget>,
    plan: &ThreadWork,
    kind: EngineKind,
    buffer_align: usize,
    gate: &dyn Fn() -> Option<Instant>,
    registered: &AtomicUsize,
    stop: &AtomicBool,
    fadvise: Option<i32>,
) -> anyhow::Result<WorkerResult> {
    let job = &plan.job;
    let mut buffers = AlignedBuf::new(
        worker::buffers_for(job)
            .checked_mul(worker::buffer_bytes(job))
            .expect("plan::preflight::check_memory keeps the buffers within the address space"),
        buffer_align,
    );
    let fd = match (file, device) {
        (Some(f), _) => Some(f.open_for_io(job.rw.writes(), job.direct)?),
        (None, Some(d)) => Some(d.open_for_io(job.rw.writes(), job.direct)?),
        (None, None) => None,
    };
    if let (Some(fd), Some(advice)) = (fd.as_ref(), fadvise) {
        // SAFETY: posix_fadvise on a valid descriptor; advice only.
        unsafe { libc::posix_fadvise64(fd.as_raw_fd(), 0, 0, advice) };
    }
    let raw = fd.as_ref().map_or(-1, |f| f.as_raw_fd());
    fn go<E: Engine>(
        mut engine: E,
        plan: &ThreadWork,
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
                worker::drive_thread(&mut faulty, plan, buffers, start, stop)
            }
            None => worker::drive_thread(&mut engine, plan, buffers, start, stop),
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

/// Waits for the common start: spinning first (the main thread sets it just
/// after the barrier), then sleeping in short steps, so that threads kept
/// waiting for other jobs to be ready do not take their CPU.
fn wait_for(start: &OnceLock<Instant>) -> Instant {
    let mut spins = 0u32;
    loop {
        if let Some(t) = start.get() {
            return *t;
        }
        if spins < 20_000 {
            spins += 1;
            std::hint::spin_loop();
        } else {
            std::thread::sleep(Duration::from_micros(50));
        }
    }
}

/// Sleeps until `deadline_ns` after `t0` (no end for `u64::MAX`) in steps
/// of at most 20 ms, returning early as soon as `early()` says so; `early`
/// is asked before each step, after the deadline. The one sleep of the
/// disk engine: a job's driver wakes when every thread has finished (and
/// watches for another job's failure on each step), a worker waiting for a
/// rated operation when it is told to stop or a signal came.
pub(crate) fn sleep_until(t0: Instant, deadline_ns: u64, mut early: impl FnMut() -> bool) {
    loop {
        let now = t0.elapsed().as_nanos() as u64;
        if now >= deadline_ns || early() {
            return;
        }
        std::thread::sleep(Duration::from_nanos((deadline_ns - now).min(20_000_000)));
    }
}
