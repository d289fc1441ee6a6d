//! The jobs of one fio job file, in fio's order: jobs run at the same time
//! unless `stonewall` or `wait_for` orders them, and `startdelay` counts
//! from the start of the run. Each job runs on its own threads (`run`)
//! beside the others; a job that fails stops every other one. With fio's
//! `exitall`, a job that ends stops others as fio's
//! fio_terminate_threads does (`ExitWhat`); one stopped before it started
//! never runs.

use super::steady::SteadySpec;
use super::{run, Control, JobOutcome, JobSpec, Placement};
use std::path::PathBuf;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{mpsc, Condvar, Mutex};
use std::time::{Duration, Instant};

/// The jobs (by index) that must have ended before a job starts: every
/// job of the phase before its own (fio's `stonewall` phases), and the job
/// its `wait_for` names when that one is not in that phase. A range, not a
/// list: a phase of 2,000 jobs after one of 2,000 is 2,000 ranges, not four
/// million indices.
#[derive(Debug, Clone, Default, PartialEq, Eq, Hash)]
pub struct StartsAfter {
    pub phase: std::ops::Range<usize>,
    pub job: Option<usize>,
}

impl StartsAfter {
    pub fn iter(&self) -> impl Iterator<Item = usize> + '_ {
        self.phase.clone().chain(self.job)
    }

    pub fn len(&self) -> usize {
        self.phase.len() + usize::from(self.job.is_some())
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }
}

/// Which jobs a job's end stops under fio's `exitall` (its `exit_what`,
/// as fio 3.33's fio_terminate_threads reads it).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ExitWhat {
    /// The jobs of its reporting group, started or not.
    Group,
    /// Every job running (started and not ended), whatever its group.
    Stonewall,
    /// Every job, started or not.
    All,
}

impl ExitWhat {
    pub fn parse(word: &str) -> Option<ExitWhat> {
        match word {
            "group" => Some(ExitWhat::Group),
            "stonewall" => Some(ExitWhat::Stonewall),
            "all" => Some(ExitWhat::All),
            _ => None,
        }
    }

    pub fn describe(self) -> &'static str {
        match self {
            ExitWhat::Group => "the jobs of its reporting group, started or not",
            ExitWhat::Stonewall => "every job running, whatever its group",
            ExitWhat::All => "every job, started or not",
        }
    }
}

/// One job, ready to run.
pub struct Planned<'a> {
    pub spec: JobSpec,
    /// Where each of its threads does I/O.
    pub places: Vec<Placement<'a>>,
    /// The jobs that must have ended before it starts.
    pub after: StartsAfter,
    /// Its start counts this long from the start of the run.
    pub start_delay: Duration,
    pub steady: Option<SteadySpec>,
    pub invalidate: bool,
    pub fadvise: Option<i32>,
    pub buffer_align: usize,
    pub dir: PathBuf,
    /// fio's reporting group (for `exit_what=group`).
    pub group: u32,
    /// fio's `exitall` (anywhere in the file: fio's is process-wide) with
    /// this job's `exit_what`; none without exitall.
    pub exit_what: Option<ExitWhat>,
}

/// A job that ran: its outcome and where its interval lies on the run's
/// timeline (ns from the run's start).
pub struct Finished {
    pub index: usize,
    /// None: `exitall` stopped the job before it started, as fio does.
    pub outcome: Option<JobOutcome>,
    pub start_ns: u64,
    pub end_ns: u64,
}

/// Where the jobs released at the same moment wait for each other to be
/// ready, so that they start together (fio sets every thread of a start up
/// before it lets any of them run).
pub struct Rendezvous {
    expected: usize,
    arrived: Mutex<usize>,
    changed: Condvar,
}

impl Rendezvous {
    pub fn new(expected: usize) -> Rendezvous {
        Rendezvous {
            expected,
            arrived: Mutex::new(0),
            changed: Condvar::new(),
        }
    }

    /// Arrives and waits for the others (or for an abort: a job that failed
    /// before it got here never will).
    pub fn wait(&self, abort: &AtomicBool) {
        let mut n = self.arrived.lock().unwrap_or_else(|e| e.into_inner());
        *n += 1;
        self.changed.notify_all();
        while *n < self.expected && !abort.load(Ordering::SeqCst) && !crate::cancel::cancelled() {
            n = self
                .changed
                .wait_timeout(n, Duration::from_millis(5))
                .unwrap_or_else(|e| e.into_inner())
                .0;
        }
    }
}

/// The jobs that start at the same moment: the same jobs before them, the
/// same start delay.
fn waves(jobs: &[Planned]) -> Vec<usize> {
    let mut keys: std::collections::HashMap<(&StartsAfter, Duration), usize> =
        std::collections::HashMap::new();
    jobs.iter()
        .map(|j| {
            let next = keys.len();
            *keys.entry((&j.after, j.start_delay)).or_insert(next)
        })
        .collect()
}

#[derive(Clone, Copy, PartialEq, Eq)]
enum State {
    Waiting,
    Running,
    Done,
    Failed,
}

/// Runs every job; `each` receives them in the order of `jobs` as soon as
/// each and every one before it has ended. Returns the first error.
pub fn run_all(
    jobs: &[Planned],
    each: &mut dyn FnMut(Finished) -> anyhow::Result<()>,
) -> anyhow::Result<()> {
    let state = Mutex::new(vec![State::Waiting; jobs.len()]);
    let changed = Condvar::new();
    let abort = AtomicBool::new(false);
    let shared = jobs.len() > 1;
    let origin = Instant::now();
    let (tx, rx) = mpsc::channel::<(usize, anyhow::Result<Option<JobOutcome>>)>();
    let terminate: Vec<AtomicBool> = jobs.iter().map(|_| AtomicBool::new(false)).collect();
    let mut first_error: Option<anyhow::Error> = None;
    let wave_of = waves(jobs);
    let mut wave_sizes = vec![0usize; wave_of.iter().copied().max().map_or(0, |w| w + 1)];
    for &w in &wave_of {
        wave_sizes[w] += 1;
    }
    let rendezvous: Vec<Rendezvous> = wave_sizes.into_iter().map(Rendezvous::new).collect();
    std::thread::scope(|scope| {
        for (index, job) in jobs.iter().enumerate() {
            let (state, changed, abort, tx) = (&state, &changed, &abort, tx.clone());
            let meet = &rendezvous[wave_of[index]];
            let terminate = &terminate;
            let spawned = std::thread::Builder::new()
                .name(format!("candor-job-{index}"))
                .spawn_scoped(scope, move || {
                    let at = Gates {
                        state,
                        changed,
                        abort,
                        terminate,
                    };
                    let result = wait_then_run(index, job, &at, origin, shared, meet);
                    if result.is_err() {
                        // Whoever waits to start with this job must not wait for ever.
                        abort.store(true, Ordering::SeqCst);
                    }
                    let mut s = state.lock().unwrap_or_else(|e| e.into_inner());
                    if let (Ok(Some(_)), Some(what)) = (&result, job.exit_what) {
                        exit_all(jobs, index, what, &s, terminate);
                    }
                    s[index] = if result.is_ok() {
                        State::Done
                    } else {
                        abort.store(true, Ordering::SeqCst);
                        State::Failed
                    };
                    changed.notify_all();
                    drop(s);
                    let _ = tx.send((index, result));
                });
            if let Err(e) = spawned {
                // Under a process limit (a pids cgroup, RLIMIT_NPROC) a
                // thread may not start: the jobs already started are
                // stopped (they see the abort; those waiting to start with
                // this one stop waiting) and the Run says why.
                abort.store(true, Ordering::SeqCst);
                changed.notify_all();
                first_error = Some(anyhow::anyhow!(
                    "job {index}: cannot start its thread: {e} (a process or thread limit? {} jobs were started)",
                    index
                ));
                break;
            }
        }
        drop(tx);
        // Hand jobs on in file order as they end.
        let mut ready: Vec<Option<Option<JobOutcome>>> = (0..jobs.len()).map(|_| None).collect();
        let mut next = 0;
        for (index, result) in rx {
            match result {
                Ok(outcome) => ready[index] = Some(outcome),
                Err(e) => {
                    abort.store(true, Ordering::SeqCst);
                    // The job that failed first, not the ones it stopped.
                    let secondary = e.to_string().contains("another job failed")
                        || e.to_string().contains("did not start");
                    if first_error.is_none() || !secondary && is_secondary(&first_error) {
                        first_error = Some(e);
                    }
                }
            }
            while next < jobs.len() && first_error.is_none() {
                let Some(outcome) = ready[next].take() else {
                    break;
                };
                let span = |at: Option<Instant>| {
                    at.map_or(0, |t| t.saturating_duration_since(origin).as_nanos() as u64)
                };
                let finished = Finished {
                    index: next,
                    start_ns: span(outcome.as_ref().map(|o| o.started)),
                    end_ns: span(outcome.as_ref().map(|o| o.ended)),
                    outcome,
                };
                if let Err(e) = each(finished) {
                    abort.store(true, Ordering::SeqCst);
                    first_error = Some(e);
                }
                next += 1;
            }
        }
    });
    match first_error {
        Some(e) => Err(e),
        None => Ok(()),
    }
}

fn is_secondary(e: &Option<anyhow::Error>) -> bool {
    e.as_ref().is_some_and(|e| {
        let t = e.to_string();
        t.contains("another job failed") || t.contains("did not start")
    })
}

/// What the jobs share to start and stop one another.
struct Gates<'g> {
    state: &'g Mutex<Vec<State>>,
    changed: &'g Condvar,
    abort: &'g AtomicBool,
    /// Per job: `exitall` stopped it (or will, before it starts).
    terminate: &'g [AtomicBool],
}

/// fio's fio_terminate_threads for the job `ended` with `what`: marks the
/// jobs it stops (those not started then never start).
fn exit_all(
    jobs: &[Planned],
    ended: usize,
    what: ExitWhat,
    state: &[State],
    terminate: &[AtomicBool],
) {
    for (i, job) in jobs.iter().enumerate() {
        let stops = match what {
            ExitWhat::Group => job.group == jobs[ended].group,
            ExitWhat::Stonewall => state[i] == State::Running,
            ExitWhat::All => true,
        };
        if stops && i != ended {
            terminate[i].store(true, Ordering::SeqCst);
        }
    }
}

/// Waits for the jobs this one comes after and for its start delay, then
/// runs it; None when `exitall` stopped it first.
fn wait_then_run(
    index: usize,
    job: &Planned,
    at: &Gates,
    origin: Instant,
    shared: bool,
    meet: &Rendezvous,
) -> anyhow::Result<Option<JobOutcome>> {
    let Gates {
        state,
        changed,
        abort,
        terminate,
    } = at;
    let stopped = || terminate[index].load(Ordering::SeqCst);
    let mut s = state.lock().unwrap_or_else(|e| e.into_inner());
    loop {
        if stopped() {
            return Ok(None);
        }
        crate::cancel::check()?;
        if abort.load(Ordering::SeqCst) || job.after.iter().any(|i| s[i] == State::Failed) {
            return Err(anyhow::anyhow!(
                "job {index} did not start: another job failed"
            ));
        }
        if job.after.iter().all(|i| s[i] == State::Done) {
            break;
        }
        s = changed
            .wait_timeout(s, Duration::from_millis(50))
            .unwrap_or_else(|e| e.into_inner())
            .0;
    }
    drop(s);
    let start_at = origin + job.start_delay;
    while Instant::now() < start_at {
        crate::cancel::check()?;
        if abort.load(Ordering::SeqCst) {
            return Err(anyhow::anyhow!(
                "job {index} did not start: another job failed"
            ));
        }
        std::thread::sleep((start_at - Instant::now()).min(Duration::from_millis(20)));
    }
    {
        let mut s = state.lock().unwrap_or_else(|e| e.into_inner());
        if stopped() {
            return Ok(None);
        }
        s[index] = State::Running;
    }
    let control = Control {
        abort: Some(abort),
        steady: job.steady.clone(),
        shared,
        invalidate: job.invalidate,
        fadvise: job.fadvise,
        rendezvous: Some(meet),
        terminate: job.exit_what.map(|_| &terminate[index]),
        first_end_stops: job.exit_what.is_some(),
    };
    run(&job.spec, &job.places, job.buffer_align, &job.dir, &control).map(Some)
}
