//! The timed loop every compute test shares: N threads prepare their work,
//! start together at a barrier, repeat one unit of work until the runtime is
//! over (or Ctrl-C), and report how many units (events, bytes, operations)
//! each did in how long. CPU use and steal are sampled around the interval
//! (with the disk engine's `CpuSnapshot`, so both kinds of test mean the same).
//! Then `measurement` turns that into a `ComputeMeasurement`.

use crate::disk::cpu_usage::CpuSnapshot;
use crate::result::{ComputeMeasurement, ComputeSpec, CpuUse};
use std::collections::BTreeMap;
use std::time::{Duration, Instant};

/// What one thread did in its measured interval.
#[derive(Debug, Clone, Copy)]
pub struct ThreadTotal {
    pub units: u64,
    pub elapsed: Duration,
}

/// The outcome of a timed loop.
#[derive(Debug, Clone)]
pub struct Timed {
    pub threads: Vec<ThreadTotal>,
    /// From the common start to the last thread's end.
    pub elapsed: Duration,
    pub cpu: CpuUse,
    pub started_at: String,
}

impl Timed {
    pub fn total_units(&self) -> u64 {
        self.threads.iter().map(|t| t.units).sum()
    }

    /// All threads' units per second of the common interval.
    pub fn rate(&self) -> f64 {
        self.total_units() as f64 / self.elapsed.as_secs_f64().max(1e-9)
    }

    /// Each thread's units per second of its own interval.
    pub fn per_thread(&self) -> Vec<f64> {
        self.threads
            .iter()
            .map(|t| t.units as f64 / t.elapsed.as_secs_f64().max(1e-9))
            .collect()
    }
}

/// Runs `threads` threads. Each calls `setup(index)` (not timed) to get its
/// unit of work, waits for the others, then calls the unit repeatedly until
/// `runtime` has passed or a stop was asked for; each call returns the units it
/// did. At least one call is made per thread. Errors from setup or work, and
/// an interruption, end the test with that error; so does a thread that
/// cannot start (a pids cgroup, `ulimit -u`): those started are let go
/// without working, and the error says how many started.
pub fn run_timed<S, W>(threads: u32, runtime: Duration, setup: S) -> anyhow::Result<Timed>
where
    S: Fn(u32) -> anyhow::Result<W> + Sync,
    W: FnMut() -> anyhow::Result<u64>,
{
    crate::cancel::check()?;
    let threads = threads.max(1);
    let gate = Gate::default();
    let mut started_at = String::new();
    let mut cpu = CpuUse::default();
    let mut outcomes: Vec<anyhow::Result<ThreadTotal>> = Vec::new();
    let mut not_started: Option<anyhow::Error> = None;
    std::thread::scope(|scope| {
        let mut handles = Vec::new();
        for index in 0..threads {
            let (gate, setup) = (&gate, &setup);
            let spawned = std::thread::Builder::new()
                .name(format!("candor-compute-{index}"))
                .spawn_scoped(scope, move || {
                    let prepared = setup(index);
                    if !gate.ready_then_wait() {
                        return Ok(None);
                    }
                    let mut work = prepared?;
                    let start = Instant::now();
                    let deadline = start + runtime;
                    let mut units = 0u64;
                    loop {
                        units += work()?;
                        if Instant::now() >= deadline || crate::cancel::cancelled() {
                            break;
                        }
                    }
                    let elapsed = start.elapsed();
                    drop(work);
                    Ok(Some(ThreadTotal { units, elapsed }))
                });
            match spawned {
                Ok(h) => handles.push(h),
                Err(e) => {
                    not_started = Some(anyhow::anyhow!(
                        "cannot start thread {} of {threads}: {e} (a process or thread limit? {index} started)",
                        index + 1
                    ));
                    break;
                }
            }
        }
        let go = not_started.is_none();
        gate.open(handles.len(), go);
        started_at = crate::units::now_rfc3339();
        let before = CpuSnapshot::now();
        for handle in handles {
            let outcome: anyhow::Result<Option<ThreadTotal>> = match handle.join() {
                Ok(outcome) => outcome,
                Err(_) => Err(anyhow::anyhow!("a benchmark thread panicked")),
            };
            if let Some(outcome) = outcome.transpose() {
                outcomes.push(outcome);
            }
        }
        cpu = before.until(&CpuSnapshot::now());
    });
    if let Some(e) = not_started {
        return Err(e);
    }
    crate::cancel::check()?;
    let totals = outcomes.into_iter().collect::<anyhow::Result<Vec<_>>>()?;
    let elapsed = totals.iter().map(|t| t.elapsed).max().unwrap_or_default();
    Ok(Timed {
        threads: totals,
        elapsed,
        cpu,
        started_at,
    })
}

/// The common start: each thread says it is ready and waits; the thread
/// that started them opens the gate once all that started are ready, to
/// work (`go`) or to leave at once (one could not start). Unlike a
/// `Barrier`, its count is known only after the last start.
#[derive(Default)]
struct Gate {
    state: std::sync::Mutex<GateState>,
    changed: std::sync::Condvar,
}

#[derive(Default)]
struct GateState {
    ready: usize,
    opened: Option<bool>,
}

impl Gate {
    /// Ready; then waits for the gate: true to work, false to leave.
    fn ready_then_wait(&self) -> bool {
        let mut s = self.state.lock().unwrap_or_else(|e| e.into_inner());
        s.ready += 1;
        self.changed.notify_all();
        loop {
            if let Some(go) = s.opened {
                return go;
            }
            s = self.changed.wait(s).unwrap_or_else(|e| e.into_inner());
        }
    }

    /// Waits until `started` threads are ready (only to go), then opens.
    fn open(&self, started: usize, go: bool) {
        let mut s = self.state.lock().unwrap_or_else(|e| e.into_inner());
        while go && s.ready < started {
            s = self.changed.wait(s).unwrap_or_else(|e| e.into_inner());
        }
        s.opened = Some(go);
        self.changed.notify_all();
    }
}

/// Which headline field a test fills.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Headline {
    Events,
    Bytes,
    Ops,
}

/// Builds the measurement of a test from its timed loop. `unit_scale` turns
/// units into the headline's unit (e.g. bytes per block); `notes` say what the
/// figure is and is not.
pub fn measurement(
    test: &str,
    runtime: Duration,
    params: BTreeMap<String, serde_json::Value>,
    timed: &Timed,
    headline: Headline,
    unit_scale: f64,
    notes: Vec<String>,
) -> ComputeMeasurement {
    let rate = timed.rate() * unit_scale;
    let per_thread: Vec<f64> = timed.per_thread().iter().map(|r| r * unit_scale).collect();
    let mut notes = notes;
    let threads = timed.threads.len() as u32;
    if threads > super::online_cpus() {
        notes.push(format!(
            "{threads} threads on {} CPUs: threads share CPUs, so per-thread figures are lower",
            super::online_cpus()
        ));
    }
    // Tests with events or bytes keep their threads busy: a thread that got
    // much less than a whole CPU was held back by something else.
    let share = (timed.cpu.usr_pct + timed.cpu.sys_pct) / threads.max(1) as f64;
    if headline != Headline::Ops && share < 90.0 {
        notes.push(format!(
            "each thread got {share:.0} % of a CPU (usr+sys): other processes or the hypervisor took the rest, so this figure understates the hardware"
        ));
    }
    if timed.cpu.steal_pct >= 2.0 {
        notes.push(format!(
            "steal {:.1} % during this test: the hypervisor gave CPU time to others",
            timed.cpu.steal_pct
        ));
    }
    ComputeMeasurement {
        pass: None,
        started_at: Some(timed.started_at.clone()),
        spec: ComputeSpec {
            test: test.to_string(),
            threads,
            runtime_ns: runtime.as_nanos() as u64,
            params,
        },
        events_per_sec: (headline == Headline::Events).then_some(rate),
        bytes_per_sec: (headline == Headline::Bytes).then_some(rate),
        ops_per_sec: (headline == Headline::Ops).then_some(rate),
        per_thread,
        measured_ns: timed.elapsed.as_nanos() as u64,
        cpu: timed.cpu.clone(),
        notes,
    }
}

/// Builds a params map from (name, value) pairs.
pub fn params<const N: usize>(
    pairs: [(&str, serde_json::Value); N],
) -> BTreeMap<String, serde_json::Value> {
    pairs.into_iter().map(|(k, v)| (k.to_string(), v)).collect()
}
