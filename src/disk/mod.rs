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
pub mod checksum;
pub mod clock;
pub mod cpu_usage;
pub mod data;
#[cfg(unix)]
pub mod device;
#[cfg(windows)]
#[path = "windows/device.rs"]
pub mod device;
#[cfg(unix)]
pub mod dir;
#[cfg(windows)]
#[path = "windows/dir.rs"]
pub mod dir;
pub mod distribution;
pub mod engine;
#[cfg(unix)]
pub mod file;
#[cfg(windows)]
#[path = "windows/file.rs"]
pub mod file;
pub mod flow;
pub mod job;
pub mod latency;
#[cfg(unix)]
pub mod made_dirs;
#[cfg(windows)]
#[path = "windows/made_dirs.rs"]
pub mod made_dirs;
pub mod metadata;
pub mod min_rate;
pub mod missing_levels;
pub mod pattern;
pub mod placement;
pub mod platform;
pub mod rate;
pub mod schedule;
pub mod settle;
pub mod steady;
pub mod verify;
pub mod worker;

pub use device::DeviceTarget;
pub use dir::TestDir;
pub use distribution::Distribution;
pub use file::{space_margin, TestFile};
pub use job::{BlockSizes, EngineChoice, EngineKind, JobSpec, Modifier, Rw, Think, WriteSync};
pub use made_dirs::MadeDirs;
pub use verify::{Verify, VerifyAlg};

use crate::host::blockstack;
use crate::result::{
    CpuUse, DiskMeasurement, FileSpan, LayerIo, StackLayer, SteadyState, ThreadStats,
};
use buffer::AlignedBuf;
use cpu_usage::CpuSnapshot;
#[cfg(target_os = "linux")]
use engine::{aio::AioEngine, uring::UringEngine};
use engine::{null::NullEngine, psync::PsyncEngine, Engine};
use latency::DirectionRecorder;
use std::cell::Cell;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::{Arc, OnceLock};
use std::time::Instant;
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
    /// fio's `exitall`: set when another job's end stops this one (which
    /// then ends as stopped, measured up to its last completion).
    pub terminate: Option<&'a AtomicBool>,
    /// fio's `exitall`: the first of the job's threads to end stops the
    /// others (fio's clones are jobs of one group, each ending them).
    pub first_end_stops: bool,
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
    let crew = Crew::new(job, places, control, window);
    let (outcomes, watched, t0) = std::thread::scope(|scope| -> anyhow::Result<_> {
        let handles = crew.spawn(scope, job, places, selected.kind, buffer_align)?;
        let t0 = crew.release();
        let ramp_ns = crew.ramp(t0);
        let watched = crew.watch_interval(t0, ramp_ns, &sys_root, stack);
        Ok((Crew::join(handles), watched, t0))
    })?;
    let ended = Instant::now();
    crew.collect(outcomes, watched, t0, ended)
}

/// A job's I/O threads and what its driver shares with them: the gate they
/// meet at, the common start, the stop, and what they report back.
struct Crew<'c> {
    control: &'c Control<'c>,
    window: Window,
    /// The ramp's end and the interval's end, moved earlier where the ramp
    /// settles; the threads read it each round.
    timeline: Arc<settle::Timeline>,
    /// The ramp ends where the throughput settled (a battery test's ramp).
    settles: bool,
    /// A byte-bounded job's bytes over all its threads: a settling ramp
    /// uses at most `settle::RAMP_BUDGET_SHARE` of them.
    budget: Option<u64>,
    /// Each thread's counters, where the driver reads them (a settled ramp,
    /// fio's steady state).
    progress: Vec<Option<Arc<Progress>>>,
    threads: usize,
    /// Not std's Barrier: a thread that cannot be started never arrives,
    /// and the ones that did must not wait for it for ever.
    gate: schedule::Rendezvous,
    /// The common start, set once: by `release`, or by a failed spawn so
    /// that no started thread waits for it.
    start: OnceLock<Instant>,
    /// Every thread ends: one failed, another job failed, or fio's steady
    /// state was attained.
    stop: AtomicBool,
    /// Threads that have returned.
    finished: AtomicUsize,
    /// Threads whose io_uring registered its buffers.
    registered: AtomicUsize,
    /// fio's steady state was attained and stopped the job.
    attained: AtomicBool,
}

/// What a job's threads return: its records, or why it failed.
type ThreadOutcome = anyhow::Result<WorkerResult>;

/// What the driver read over the measured interval.
struct Watched {
    /// The process's CPU use (its own threads' is counted in `collect`).
    cpu: CpuUse,
    steady: Option<SteadyState>,
    block_stack: Vec<LayerIo>,
}

impl<'c> Crew<'c> {
    fn new(
        job: &JobSpec,
        places: &[Placement],
        control: &'c Control<'c>,
        window: Window,
    ) -> Crew<'c> {
        let Window { ramp_ns, end_ns } = window;
        let settles = job.settle_ramp && ramp_ns > 0;
        Crew {
            control,
            window,
            timeline: Arc::new(settle::Timeline::new(ramp_ns, end_ns)),
            settles,
            budget: job
                .byte_limit
                .map(|b| b.saturating_mul(places.len() as u64)),
            progress: (0..places.len())
                .map(|_| {
                    (control.steady.is_some() || settles).then(|| Arc::new(Progress::default()))
                })
                .collect(),
            threads: job.numjobs as usize,
            gate: schedule::Rendezvous::new(job.numjobs as usize + 1),
            start: OnceLock::new(),
            stop: AtomicBool::new(false),
            finished: AtomicUsize::new(0),
            registered: AtomicUsize::new(0),
            attained: AtomicBool::new(false),
        }
    }

    /// Starts one thread per placement, each set up on its own and waiting
    /// at the gate. A thread that cannot be started (a pids cgroup,
    /// RLIMIT_NPROC) fails the job; the threads already started are
    /// released into the stop and end without doing I/O.
    fn spawn<'scope, 'env>(
        &'env self,
        scope: &'scope std::thread::Scope<'scope, 'env>,
        job: &JobSpec,
        places: &[Placement<'env>],
        kind: EngineKind,
        buffer_align: usize,
    ) -> anyhow::Result<Vec<std::thread::ScopedJoinHandle<'scope, ThreadOutcome>>> {
        let null = kind == EngineKind::Null;
        let mut handles = Vec::with_capacity(self.threads);
        // `prepare` checked that there are `numjobs` placements.
        for (t, &place) in places.iter().enumerate() {
            let plan = ThreadWork {
                thread: t as u32,
                job: job.clone(),
                region: (place.start, place.len),
                timeline: self.timeline.clone(),
                progress: self.progress[t].clone(),
            };
            let file = if null { None } else { place.file };
            let device = if null { None } else { place.device };
            let spawned = std::thread::Builder::new()
                .name(format!("candor-io-{t}"))
                .spawn_scoped(scope, move || {
                    self.thread_main(file, device, &plan, kind, buffer_align)
                });
            match spawned {
                Ok(h) => handles.push(h),
                Err(e) => {
                    // The threads already started pass the gate, see the
                    // stop and end without doing I/O.
                    self.stop.store(true, Ordering::SeqCst);
                    let _ = self.start.set(Instant::now());
                    for h in handles {
                        let _ = h.join();
                    }
                    return Err(anyhow::anyhow!(
                        "cannot start I/O thread {} of {}: {e} (a process or thread limit?)",
                        t + 1,
                        self.threads
                    ));
                }
            }
        }
        Ok(handles)
    }

    /// One I/O thread: sets up and runs (`worker_main`), passing the gate
    /// when set up. A thread whose setup failed still meets the others at
    /// the gate, then stops them: they neither wait for it for ever nor
    /// run without it. One that failed later stops them too.
    fn thread_main(
        &self,
        file: Option<&TestFile>,
        device: Option<&DeviceTarget>,
        plan: &ThreadWork,
        kind: EngineKind,
        buffer_align: usize,
    ) -> ThreadOutcome {
        let arrived = Cell::new(false);
        let gate = || -> Option<Instant> {
            arrived.set(true);
            self.gate.wait(&self.stop);
            let at = clock::wait_for_start(&self.start);
            (!self.stop.load(Ordering::SeqCst)).then_some(at)
        };
        // The thread's I/O is done before its read-back (`verify`), which
        // the measured interval and the job's CPU do not include.
        let counted = Cell::new(false);
        let io_done = || {
            if !counted.replace(true) {
                self.finished.fetch_add(1, Ordering::SeqCst);
            }
        };
        let outcome = worker_main(
            file,
            device,
            plan,
            kind,
            buffer_align,
            &gate,
            &self.registered,
            &self.stop,
            self.control.fadvise,
            &io_done,
        );
        if !arrived.get() {
            // Setup failed: still meet the others at the gate, then stop them.
            self.stop.store(true, Ordering::SeqCst);
            self.gate.wait(&self.stop);
        } else if outcome.is_err() {
            self.stop.store(true, Ordering::SeqCst);
        }
        io_done();
        outcome
    }

    /// Meets the threads at the gate, then the other jobs that fio starts
    /// at the same moment (they start at one instant, once every one of
    /// them is ready), and sets the common start: the job's `t0`.
    fn release(&self) -> Instant {
        self.gate.wait(&self.stop);
        if let (Some(r), Some(abort)) = (self.control.rendezvous, self.control.abort) {
            r.wait(abort);
        }
        let t0 = Instant::now();
        self.start.set(t0).expect("start is set once");
        t0
    }

    /// Sleeps through the ramp; returns when it ended (ns from `t0`). A
    /// battery test's ramp ends early where its throughput settled (a fixed
    /// ramp long enough for the slowest device wastes it on every other,
    /// `settle.rs`); fio's `ramp_time` stays fixed, as fio's is.
    fn ramp(&self, t0: Instant) -> u64 {
        let ramp_ns = self.window.ramp_ns;
        if self.settles {
            let ramp_bytes = || {
                self.progress
                    .iter()
                    .flatten()
                    .map(|p| p.ramp_bytes.load(Ordering::Relaxed))
                    .sum::<u64>()
            };
            settle::ramp(t0, &self.timeline, ramp_ns, self.budget, ramp_bytes, || {
                self.done_or_watch()
            })
        } else {
            clock::sleep_until(t0, ramp_ns, || self.done_or_watch());
            ramp_ns
        }
    }

    /// Watches the measured interval until its end, every thread done, a
    /// stop (a thread's error, another job's failure) or fio's steady state
    /// attained. Reads the CPU and the block stack's counters right after
    /// the ramp and right after the interval, the stack each second between.
    fn watch_interval(
        &self,
        t0: Instant,
        ramp_ns: u64,
        sys_root: &std::path::Path,
        stack: &[StackLayer],
    ) -> Watched {
        let end_ns = self.timeline.end_ns();
        let before = CpuSnapshot::now();
        let stack_before = blockstack::snapshot(sys_root, stack);
        let mut seconds = StackSeconds::start(sys_root, stack, &stack_before, t0, ramp_ns);
        let mut monitor = self.control.steady.clone().map(steady::Monitor::new);
        loop {
            // Wake for the end (the interval is not overrun), the next
            // second (the stack's series reads whole seconds), the next
            // steady-state sample (fio judges it once a second), or every
            // 20 ms (`sleep_until`'s step: every thread done, an abort).
            let next = monitor
                .as_ref()
                .map_or(end_ns, |m| end_ns.min(ramp_ns.saturating_add(m.due_ns())))
                .min(seconds.due_ns());
            clock::sleep_until(t0, next, || self.done_or_watch());
            let now = t0.elapsed().as_nanos() as u64;
            if self.all_done() || now >= end_ns || self.stop.load(Ordering::SeqCst) {
                break;
            }
            seconds.sample_if_due(now);
            if let Some(m) = monitor.as_mut().filter(|m| now >= ramp_ns + m.due_ns()) {
                let (ops, bytes) = self.progress.iter().flatten().fold((0, 0), |(o, b), p| {
                    (
                        o + p.ops.load(Ordering::Relaxed),
                        b + p.bytes.load(Ordering::Relaxed),
                    )
                });
                if m.sample(ops, bytes) {
                    self.attained.store(true, Ordering::SeqCst);
                    self.stop.store(true, Ordering::SeqCst);
                }
            }
        }
        let after = CpuSnapshot::now();
        let stack_after = blockstack::snapshot(sys_root, stack);
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
        Watched {
            cpu: before.until(&after),
            steady: monitor.map(|m| m.record()),
            block_stack,
        }
    }

    fn all_done(&self) -> bool {
        self.finished.load(Ordering::SeqCst) == self.threads
    }

    /// Whether the driver's wait is over: every thread done ends it. Each
    /// step of the wait also watches for another job's failure, which stops
    /// this job's threads.
    fn done_or_watch(&self) -> bool {
        if self.all_done() {
            return true;
        }
        if self
            .control
            .abort
            .is_some_and(|a| a.load(Ordering::Relaxed))
            || self
                .control
                .terminate
                .is_some_and(|t| t.load(Ordering::Relaxed))
            || (self.control.first_end_stops && self.finished.load(Ordering::Relaxed) > 0)
        {
            self.stop.store(true, Ordering::SeqCst);
        }
        false
    }

    /// Each thread's outcome; one that panicked is an error.
    fn join(handles: Vec<std::thread::ScopedJoinHandle<'_, ThreadOutcome>>) -> Vec<ThreadOutcome> {
        handles
            .into_iter()
            .map(|h| {
                h.join()
                    .unwrap_or_else(|_| Err(anyhow::anyhow!("an I/O thread panicked")))
            })
            .collect()
    }

    /// What the job recorded: a signal first, then a thread's error, then
    /// another job's failure end it with an error; otherwise its interval
    /// and its CPU use over it.
    fn collect(
        self,
        outcomes: Vec<ThreadOutcome>,
        watched: Watched,
        started: Instant,
        ended: Instant,
    ) -> anyhow::Result<Driven> {
        let control = self.control;
        crate::cancel::check()?;
        let mut results: Vec<WorkerResult> = Vec::with_capacity(self.threads);
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
            .map(|r| r.stopped_early_ns.unwrap_or(self.window.measured_ns()))
            .max()
            .unwrap_or(self.window.measured_ns());
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
                steal_pct: watched.cpu.steal_pct,
                cpu_ns: usr + sys,
                run_wait_ns: None,
            }
        } else {
            watched.cpu
        };
        cpu.run_wait_ns = run_wait_ns;
        Ok(Driven {
            results,
            measured_ns,
            cpu,
            steady: watched.steady,
            attained: self.attained.load(Ordering::SeqCst),
            all_registered: self.registered.load(Ordering::SeqCst) == self.threads,
            started,
            ended,
            block_stack: watched.block_stack,
            shared: control.shared,
            ramp_ns: self.timeline.ramp_ns(),
        })
    }
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
    let verify = job.verify.map(|v| {
        let mut tally = verify::Tally::default();
        for t in results.iter().filter_map(|r| r.verified.clone()) {
            tally.add(t);
        }
        crate::result::VerifyRecord {
            algorithm: v.alg.as_str().to_string(),
            only: v.only,
            blocks_checked: tally.checked,
            bytes_checked: tally.bytes,
            blocks_bad: tally.bad,
            first_bad: tally.first_bad,
        }
    });
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
        verify,
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
    io_done: &dyn Fn(),
) -> anyhow::Result<WorkerResult> {
    let job = &plan.job;
    // Placed first, as fio places its job before it allocates anything.
    job.placement
        .apply(plan.thread)
        .map_err(|e| anyhow::anyhow!("thread {}: {e}", plan.thread + 1))?;
    // verify_only writes nothing: the file or device is opened for reading.
    let writes = job.writes_target();
    let mut buffers = AlignedBuf::new(
        worker::buffers_for(job)
            .checked_mul(worker::buffer_bytes(job))
            .expect("plan::preflight::check_memory keeps the buffers within the address space"),
        buffer_align,
    );
    let fd = match (file, device) {
        (Some(f), _) => Some(f.open_for_io(writes, job.direct, job.write_sync)?),
        (None, Some(d)) => Some(d.open_for_io(writes, job.direct, job.write_sync)?),
        (None, None) => None,
    };
    if let (Some(fd), Some(advice)) = (fd.as_ref(), fadvise) {
        platform::advise(fd, advice);
    }
    let raw = fd.as_ref().map_or(platform::NO_RAW, platform::raw);
    /// The job's I/O loop on an engine made for this thread.
    type Drive<'d> = dyn FnMut(&mut AlignedBuf, Instant) -> anyhow::Result<WorkerResult> + 'd;
    // Meets the others at the gate, runs the I/O (none for verify_only),
    // then reads back what the job wrote (verify), its I/O counted done.
    let go = |engine: &mut Drive<'_>, buffers: &mut AlignedBuf| -> anyhow::Result<WorkerResult> {
        let Some(start) = gate() else {
            return Ok(WorkerResult::default());
        };
        let mut r = match job.verify {
            Some(v) if v.only => WorkerResult {
                last_writes: v.after_writes.then(|| worker::replay_writes(plan)),
                ended: Ended::Limit,
                stopped_early_ns: Some(0),
                ..WorkerResult::default()
            },
            _ => engine(buffers, start)?,
        };
        io_done();
        if let (Some(v), Some(writes)) = (job.verify, r.last_writes.take()) {
            r.verified = Some(verify::check_all(
                raw,
                v.alg,
                plan.thread,
                &writes,
                buffers,
                v.fatal,
            )?);
        }
        Ok(r)
    };
    fn drive<E: Engine>(
        mut engine: E,
        plan: &ThreadWork,
        buffers: &mut AlignedBuf,
        start: Instant,
        stop: &AtomicBool,
    ) -> anyhow::Result<WorkerResult> {
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
        #[cfg(target_os = "linux")]
        EngineKind::IoUring => {
            let region = (buffers.as_mut_ptr(), buffers.len());
            let engine = UringEngine::new(raw, job.iodepth, region)
                .map_err(|e| anyhow::anyhow!("io_uring setup: {e}"))?;
            if engine.registered_buffers() {
                registered.fetch_add(1, Ordering::SeqCst);
            }
            let mut engine = Some(engine);
            go(
                &mut |b: &mut AlignedBuf, at: Instant| {
                    drive(engine.take().expect("driven once"), plan, b, at, stop)
                },
                &mut buffers,
            )
        }
        #[cfg(target_os = "linux")]
        EngineKind::Libaio => {
            let engine = AioEngine::new(raw, job.iodepth)
                .map_err(|e| anyhow::anyhow!("libaio setup: {e}"))?;
            let mut engine = Some(engine);
            go(
                &mut |b: &mut AlignedBuf, at: Instant| {
                    drive(engine.take().expect("driven once"), plan, b, at, stop)
                },
                &mut buffers,
            )
        }
        #[cfg(windows)]
        EngineKind::Windowsaio => {
            let opening = engine::iocp::Opening {
                write: writes,
                direct: job.direct,
                write_through: platform::write_through(job.write_sync, writes),
            };
            let engine = engine::iocp::IocpEngine::new(raw, job.iodepth, opening)
                .map_err(|e| anyhow::anyhow!("windowsaio setup: {e}"))?;
            let mut engine = Some(engine);
            go(
                &mut |b: &mut AlignedBuf, at: Instant| {
                    drive(engine.take().expect("driven once"), plan, b, at, stop)
                },
                &mut buffers,
            )
        }
        EngineKind::Psync => go(
            &mut |b: &mut AlignedBuf, at: Instant| drive(PsyncEngine::new(raw), plan, b, at, stop),
            &mut buffers,
        ),
        #[cfg(unix)]
        EngineKind::Null if job.metadata.is_some() => {
            let m = job.metadata.as_ref().expect("matched");
            let start = plan.region.0;
            // The names a stat or delete needs are made here, before the gate.
            let engine = engine::metadata::MetaEngine::new(m, plan.thread, start, job.bs)
                .map_err(|e| anyhow::anyhow!("{}: {e}", m.op.fio_name()))?;
            let mut engine = Some(engine);
            go(
                &mut |b: &mut AlignedBuf, at: Instant| {
                    drive(engine.take().expect("driven once"), plan, b, at, stop)
                },
                &mut buffers,
            )
        }
        EngineKind::Null => go(
            &mut |b: &mut AlignedBuf, at: Instant| drive(NullEngine, plan, b, at, stop),
            &mut buffers,
        ),
        // engine::probe refused them before any thread started (the
        // registered-buffer count is io_uring's).
        #[cfg(not(target_os = "linux"))]
        EngineKind::IoUring | EngineKind::Libaio => {
            let _ = registered;
            Err(anyhow::anyhow!("engine {} is Linux's only", kind.as_str()))
        }
        #[cfg(not(windows))]
        EngineKind::Windowsaio => Err(anyhow::anyhow!("engine windowsaio is Windows's only")),
    }
}
