//! The runner: executes a plan's steps in order into a Run, and never loses
//! a finished measurement.
//!
//! - The Run is written atomically (temp file + rename) before the first
//!   step and after every finished step, with status `running`; at the end
//!   it becomes `complete`, `interrupted` (SIGINT/SIGTERM) or `failed`.
//! - Steps whose measurement is already in the Run are skipped: that is
//!   `--resume`.
//! - Test files are made when the first step needs them and removed as
//!   soon as no later step does (and, through their owners' Drop, on any
//!   error or interruption).
//!
//! The measuring itself is behind `Backend`, so the order, persistence,
//! resume and interruption rules are tested here with a fake backend.

use super::plan::{measurement_key, BatteryPlan, Step};
use super::profiles::DiskTest;
use super::progress::BatteryProgress;
use crate::error::Interrupted;
use crate::result::{ComputeMeasurement, DiskMeasurement, FileRole, Measurement, Run, RunStatus};
use crate::session::recorder::Recorder;
use anyhow::Context;
use std::collections::HashSet;
use std::time::{Duration, Instant};

/// What measures: the disk engine and the compute kernels.
pub trait Backend {
    /// Makes the main or control test file (before the first step that needs it).
    fn prepare(&mut self, plan: &BatteryPlan, role: FileRole) -> anyhow::Result<()>;
    /// Runs one disk test on the prepared file of `role`.
    fn disk(
        &mut self,
        plan: &BatteryPlan,
        test: &DiskTest,
        role: FileRole,
        seed: u64,
    ) -> anyhow::Result<DiskMeasurement>;
    /// Runs one compute group.
    fn compute(
        &mut self,
        plan: &BatteryPlan,
        group: crate::compute::Group,
    ) -> anyhow::Result<Vec<ComputeMeasurement>>;
    /// Runs UnixBench's index tests: their measurements and the tests that
    /// could not run here, with why.
    fn unixbench(&mut self, plan: &BatteryPlan) -> anyhow::Result<UnixbenchResult>;
    /// Removes the file of `role` (no later step needs it).
    fn release(&mut self, role: FileRole);
}

/// What the UnixBench step measured, and the tests it could not run (test, cause).
pub type UnixbenchResult = (Vec<ComputeMeasurement>, Vec<(String, String)>);

/// How the battery ended (the Run's status says the same).
#[derive(Debug)]
pub enum Outcome {
    Complete,
    /// Stopped by a signal; the Run keeps what finished.
    Interrupted(Interrupted),
    /// Stopped by an error; the Run keeps what finished.
    Failed(anyhow::Error),
}

/// Runs every step of `plan` that the recorded Run does not already hold,
/// saving it after each, and finishes it (status, findings, a last save).
/// Only a failure to write the Run itself is an `Err`; how the battery ended
/// is the `Outcome`.
pub fn execute(
    plan: &BatteryPlan,
    recorder: &mut Recorder,
    backend: &mut dyn Backend,
    progress: &mut BatteryProgress,
) -> anyhow::Result<Outcome> {
    let done: HashSet<String> = recorder
        .run()
        .measurements
        .iter()
        .filter_map(measurement_key)
        .collect();
    let steps: Vec<Step> = plan
        .steps()
        .into_iter()
        .filter(|s| !done.contains(&plan.step_key(s)))
        .collect();
    recorder.run_mut().status = RunStatus::Running;
    recorder.run_mut().finished_at = None;
    recorder.save()?;

    let steal = crate::host::steal::StealSampler::start();
    let mut prepared: Vec<FileRole> = Vec::new();
    let outcome = run_steps(plan, recorder, &steps, backend, progress, &mut prepared);
    for role in prepared.drain(..) {
        backend.release(role);
    }
    let outcome = match outcome {
        Ok(()) => Outcome::Complete,
        Err(StepError::Save(e)) => return Err(e),
        Err(StepError::Stopped(e)) => {
            let interrupted = e
                .chain()
                .find_map(|c| c.downcast_ref::<Interrupted>())
                .map(|i| i.0);
            match interrupted.or_else(crate::cancel::signal) {
                Some(sig) => Outcome::Interrupted(Interrupted(sig)),
                None => Outcome::Failed(e),
            }
        }
    };
    let output = recorder
        .output()
        .map_or("RUN.json".to_string(), |p| p.display().to_string());
    let left = steps_left(plan, recorder.run());
    let run = recorder.run_mut();
    if let Some(pct) = steal.finish() {
        run.host
            .extra
            .insert("steal_pct_during_run".into(), format!("{pct:.2}"));
    }
    if let Outcome::Failed(e) = &outcome {
        run.notes.push(format!("failed: {e:#}"));
    }
    if let Outcome::Interrupted(i) = &outcome {
        run.notes.push(format!(
            "{i}: {} of {} steps done; `candor run --resume {output}` carries on",
            plan.steps().len() - left,
            plan.steps().len(),
        ));
    }
    let finished = recorder.finish(match &outcome {
        Outcome::Complete => RunStatus::Complete,
        Outcome::Interrupted(_) => RunStatus::Interrupted,
        Outcome::Failed(_) => RunStatus::Failed,
    });
    match finished {
        Ok(()) => Ok(outcome),
        // Saved, but a file of candor's was left behind: a complete battery fails for it.
        Err(e) if e.is::<crate::leftovers::LeftBehind>() => Ok(match outcome {
            Outcome::Complete => Outcome::Failed(e),
            other => other,
        }),
        Err(e) => Err(e),
    }
}

/// Steps of the plan whose measurement the Run does not hold.
pub fn steps_left(plan: &BatteryPlan, run: &Run) -> usize {
    let done: HashSet<String> = run
        .measurements
        .iter()
        .filter_map(measurement_key)
        .collect();
    plan.steps()
        .iter()
        .filter(|s| !done.contains(&plan.step_key(s)))
        .count()
}

enum StepError {
    /// The battery stopped (error or signal).
    Stopped(anyhow::Error),
    /// The Run could not be written: nothing else can be trusted.
    Save(anyhow::Error),
}

fn run_steps(
    plan: &BatteryPlan,
    recorder: &mut Recorder,
    steps: &[Step],
    backend: &mut dyn Backend,
    progress: &mut BatteryProgress,
    prepared: &mut Vec<FileRole>,
) -> Result<(), StepError> {
    let stop = StepError::Stopped;
    let mut remaining: Duration = (0..steps.len()).map(|i| plan.step_estimate(steps, i)).sum();
    let mut rest = Rest::new(plan.pause());
    for (index, step) in steps.iter().enumerate() {
        crate::cancel::check().map_err(|e| stop(e.into()))?;
        let label = plan.step_label(step);
        let estimate = plan.step_estimate(steps, index);
        if let Step::Disk { role, .. } = *step {
            if !prepared.contains(&role) {
                progress.note(&file_note(plan, role));
                backend.prepare(plan, role).map_err(stop)?;
                rest.wrote(Instant::now());
                prepared.push(role);
            }
        }
        progress.step(
            index,
            steps.len(),
            step.pass(),
            plan.passes,
            &label,
            remaining,
        );
        match *step {
            Step::Disk { pass, test, role } => {
                pause(rest.left(Instant::now())).map_err(|e| stop(e.into()))?;
                let t = &plan.disk_tests[test];
                let mut m = backend
                    .disk(plan, t, role, plan.step_seed(step))
                    .with_context(|| format!("{label}, pass {pass}"))
                    .map_err(stop)?;
                if !t.is_read_only() {
                    rest.wrote(Instant::now());
                }
                m.profile = Some(t.profile.clone());
                m.pass = Some(pass);
                m.role = role;
                recorder.run_mut().measurements.push(Measurement::Disk(m));
            }
            Step::Compute { pass, group } => {
                let measured = backend
                    .compute(plan, group)
                    .with_context(|| {
                        format!(
                            "{} group, pass {pass} (--skip {} leaves it out)",
                            group.name(),
                            group.name()
                        )
                    })
                    .map_err(stop)?;
                for mut m in measured {
                    m.pass = Some(pass);
                    recorder.run_mut().measurements.push(group.wrap(m));
                }
            }
            Step::Unixbench { pass } => {
                let (measured, not_run) = backend
                    .unixbench(plan)
                    .with_context(|| format!("{label} (--skip unixbench leaves it out)"))
                    .map_err(stop)?;
                let run = recorder.run_mut();
                for mut m in measured {
                    m.pass = Some(pass);
                    run.measurements.push(Measurement::Unixbench(m));
                }
                // Beside the plan, as `candor unixbench` keeps them, for the
                // unixbench-not-run finding and the reports.
                if let Some(serde_json::Value::Object(p)) = run.plan.as_mut() {
                    let list: Vec<serde_json::Value> = not_run
                        .iter()
                        .map(|(test, cause)| serde_json::json!({"test": test, "cause": cause}))
                        .collect();
                    p.insert("unixbench_not_run".into(), list.into());
                }
            }
        }
        recorder.save().map_err(StepError::Save)?;
        remaining = remaining.saturating_sub(estimate);
        progress.finished(estimate);
        // Remove a file as soon as no later step needs it.
        for role in [FileRole::Main, FileRole::Control] {
            let needed = steps[index + 1..]
                .iter()
                .any(|s| matches!(s, Step::Disk { role: r, .. } if *r == role));
            if prepared.contains(&role) && !needed {
                backend.release(role);
                prepared.retain(|r| *r != role);
            }
        }
    }
    Ok(())
}

fn file_note(plan: &BatteryPlan, role: FileRole) -> String {
    match role {
        FileRole::Main => format!(
            "creating the main test file ({}, random data) in {}",
            crate::units::fmt_bytes(plan.size),
            plan.dir
        ),
        FileRole::Control => format!(
            "creating the control file ({}, random data) in {}: this takes a while",
            crate::units::fmt_bytes(plan.control.size.unwrap_or(0)),
            plan.dir
        ),
    }
}

/// The rest the disk gets after candor writes: no disk test starts until
/// `pause` has passed since the last write ended (a test that wrote, or a
/// file's layout), whatever ran meanwhile (a compute group, a read), so
/// that the write's write-back does not land in the next measurement.
#[derive(Debug)]
pub struct Rest {
    pause: Duration,
    last_write: Option<Instant>,
}

impl Rest {
    pub fn new(pause: Duration) -> Rest {
        Rest {
            pause,
            last_write: None,
        }
    }

    /// A write ended at `at`.
    pub fn wrote(&mut self, at: Instant) {
        self.last_write = Some(at);
    }

    /// How long the next disk test must still wait at `now`.
    pub fn left(&self, now: Instant) -> Duration {
        self.last_write.map_or(Duration::ZERO, |at| {
            self.pause.saturating_sub(now.saturating_duration_since(at))
        })
    }
}

/// Sleeps, waking every 50 ms to honour Ctrl-C.
pub fn pause(d: Duration) -> Result<(), Interrupted> {
    let end = Instant::now() + d;
    loop {
        crate::cancel::check()?;
        let now = Instant::now();
        if now >= end {
            return Ok(());
        }
        std::thread::sleep((end - now).min(Duration::from_millis(50)));
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::battery::plan::{Environment, Overrides};
    use crate::battery::presets::{ControlRequest, Preset};
    use crate::battery::BatteryGroup;
    use crate::result::{read_run, ComputeSpec, DirectionStats, DiskSpec};
    use std::path::Path;

    /// Records what it was asked to do; fails or is "interrupted" on request.
    #[derive(Default)]
    struct Fake {
        log: Vec<String>,
        live_files: Vec<FileRole>,
        interrupt_at: Option<usize>,
        fail_at: Option<usize>,
        calls: usize,
    }

    impl Fake {
        fn tick(&mut self) -> anyhow::Result<()> {
            self.calls += 1;
            if self.interrupt_at == Some(self.calls) {
                return Err(Interrupted(libc::SIGINT).into());
            }
            if self.fail_at == Some(self.calls) {
                anyhow::bail!("device vanished");
            }
            Ok(())
        }
    }

    impl Backend for Fake {
        fn prepare(&mut self, _: &BatteryPlan, role: FileRole) -> anyhow::Result<()> {
            self.log.push(format!("prepare {role:?}"));
            self.live_files.push(role);
            Ok(())
        }
        fn disk(
            &mut self,
            _: &BatteryPlan,
            t: &DiskTest,
            role: FileRole,
            seed: u64,
        ) -> anyhow::Result<DiskMeasurement> {
            self.tick()?;
            self.log.push(format!("{} {:?}", t.label(), role));
            Ok(fake_disk(t, seed))
        }
        fn compute(
            &mut self,
            _: &BatteryPlan,
            group: crate::compute::Group,
        ) -> anyhow::Result<Vec<ComputeMeasurement>> {
            self.tick()?;
            self.log.push(group.name().to_string());
            Ok(vec![fake_compute("a"), fake_compute("b")])
        }
        fn unixbench(&mut self, _: &BatteryPlan) -> anyhow::Result<UnixbenchResult> {
            self.tick()?;
            self.log.push("unixbench".into());
            Ok((
                vec![fake_compute("syscall"), fake_compute("pipe")],
                vec![("shell1".into(), "/bin/sh is missing".into())],
            ))
        }
        fn release(&mut self, role: FileRole) {
            self.log.push(format!("release {role:?}"));
            self.live_files.retain(|r| *r != role);
        }
    }

    fn fake_disk(t: &DiskTest, seed: u64) -> DiskMeasurement {
        let stats = DirectionStats {
            ops: 10,
            bytes: 10 * t.bs,
            iops: 100.0,
            bytes_per_sec: 100.0 * t.bs as f64,
            ..DirectionStats::default()
        };
        DiskMeasurement {
            profile: None,
            pass: None,
            role: FileRole::Main,
            started_at: None,
            spec: DiskSpec {
                rw: t.rw.clone(),
                rwmixread: t.rwmixread,
                bs: t.bs,
                iodepth: t.iodepth,
                iodepth_batch: Some(1),
                numjobs: t.numjobs,
                size: 1 << 20,
                runtime_ns: 1,
                ramp_ns: 0,
                engine: "null".into(),
                engine_note: None,
                registered_buffers: None,
                direct: true,
                fsync: t.fsync,
                seed,
                ..Default::default()
            },
            read: Some(stats.clone()),
            write: None,
            threads: Vec::new(),
            cpu: Default::default(),
            measured_ns: 1,
            file: None,
            span: None,
            sync: None,
            fio_command: String::new(),
            notes: Vec::new(),
            job: None,
            block_stack: Vec::new(),
            beside_other_jobs: false,
            device: None,
            verify: None,
        }
    }

    fn fake_compute(test: &str) -> ComputeMeasurement {
        ComputeMeasurement {
            pass: None,
            started_at: None,
            spec: ComputeSpec {
                test: test.into(),
                threads: 1,
                runtime_ns: 1,
                params: Default::default(),
            },
            events_per_sec: Some(1.0),
            bytes_per_sec: None,
            ops_per_sec: None,
            per_thread: Vec::new(),
            measured_ns: 1,
            cpu: Default::default(),
            notes: Vec::new(),
        }
    }

    /// Peak (4 disk tests), 2 passes, control file, cpu: 14 steps.
    fn plan() -> BatteryPlan {
        let env = Environment {
            dir: "/x".into(),
            ram_bytes: Some(1 << 30),
            free_bytes: Some(1 << 40),
            margin_bytes: 0,
            unavailable: Vec::new(),
            seed: 1,
        };
        let flags = Overrides {
            passes: Some(2),
            pause: Some(Duration::ZERO),
            control: Some(ControlRequest::Size(8 << 30)),
            only: Some(vec![
                BatteryGroup::Disk,
                BatteryGroup::Control,
                BatteryGroup::Cpu,
            ]),
            ..Overrides::default()
        };
        BatteryPlan::build(Preset::Peak, &flags, &env).unwrap()
    }

    fn fresh(plan: &BatteryPlan, out: &Path) -> Recorder {
        let mut run = Run::new(vec!["candor".into(), "run".into()]);
        run.plan = Some(serde_json::to_value(plan).unwrap());
        Recorder::create(run, Some(out), "--output", false, &[]).unwrap()
    }

    #[test]
    fn runs_every_step_in_rounds_and_saves() {
        let dir = tempfile::tempdir().unwrap();
        let out = dir.path().join("run.json");
        let plan = plan();
        let mut run = fresh(&plan, &out);
        let mut fake = Fake::default();
        let outcome =
            execute(&plan, &mut run, &mut fake, &mut BatteryProgress::new(false)).unwrap();
        assert!(matches!(outcome, Outcome::Complete));
        let saved = read_run(&out).unwrap();
        assert_eq!(saved.status, RunStatus::Complete);
        assert!(saved.finished_at.is_some());
        // 2 passes x (4 main + 2 control disk + 2 cpu measurements).
        assert_eq!(saved.measurements.len(), 16);
        let passes: Vec<u32> = saved
            .measurements
            .iter()
            .map(|m| m.pass().unwrap())
            .collect();
        assert_eq!(passes, [vec![1; 8], vec![2; 8]].concat());
        let first = saved.disk().next().unwrap();
        assert_eq!(
            (first.profile.as_deref(), first.role),
            (Some("SEQ1M Q8T1"), FileRole::Main)
        );
        let control: Vec<_> = saved
            .disk()
            .filter(|d| d.role == FileRole::Control)
            .collect();
        assert_eq!(control.len(), 4);
        assert!(control.iter().all(|d| d.spec.rw.is_read_only()));
        // Files: made once before their first use, removed after their last.
        assert_eq!(fake.log[0], "prepare Main");
        assert_eq!(
            fake.log.iter().filter(|l| l.starts_with("prepare")).count(),
            2
        );
        let last_main = fake
            .log
            .iter()
            .rposition(|l| {
                l.ends_with(" Main") && !l.starts_with("prepare") && !l.starts_with("release")
            })
            .unwrap();
        let release_main = fake.log.iter().position(|l| l == "release Main").unwrap();
        assert_eq!(release_main, last_main + 1);
        assert!(fake.live_files.is_empty());
    }

    #[test]
    fn interrupted_keeps_finished_and_resume_finishes() {
        let dir = tempfile::tempdir().unwrap();
        let out = dir.path().join("run.json");
        let plan = plan();
        let mut run = fresh(&plan, &out);
        let mut fake = Fake {
            interrupt_at: Some(6),
            ..Fake::default()
        };
        let outcome =
            execute(&plan, &mut run, &mut fake, &mut BatteryProgress::new(false)).unwrap();
        assert!(matches!(
            outcome,
            Outcome::Interrupted(Interrupted(libc::SIGINT))
        ));
        assert!(fake.live_files.is_empty(), "test files removed");
        let saved = read_run(&out).unwrap();
        assert_eq!(saved.status, RunStatus::Interrupted);
        // 4 disk steps and the cpu group's 2 measurements.
        assert_eq!(saved.measurements.len(), 6);
        assert!(saved.notes.iter().any(|n| n.contains("5 of 14 steps done")));
        // Resume: only the 9 missing steps run, the Run ends complete.
        drop(run);
        let mut resumed = Recorder::resume(&out).unwrap();
        let mut fake = Fake::default();
        let outcome = execute(
            &plan,
            &mut resumed,
            &mut fake,
            &mut BatteryProgress::new(false),
        )
        .unwrap();
        assert!(matches!(outcome, Outcome::Complete));
        assert_eq!(fake.calls, 9);
        // The control file was prepared again; the main one too (pass 2 needs it).
        assert_eq!(
            fake.log.iter().filter(|l| l.starts_with("prepare")).count(),
            2
        );
        let saved = read_run(&out).unwrap();
        assert_eq!(saved.status, RunStatus::Complete);
        assert_eq!(saved.measurements.len(), 16);
        assert_eq!(steps_left(&plan, &saved), 0);
    }

    #[test]
    fn unixbench_runs_once_after_the_last_pass_and_resumes_as_one_step() {
        let dir = tempfile::tempdir().unwrap();
        let out = dir.path().join("run.json");
        let mut plan = plan();
        plan.groups_run = vec![BatteryGroup::Cpu, BatteryGroup::Unixbench];
        let mut run = fresh(&plan, &out);
        let mut fake = Fake::default();
        let outcome =
            execute(&plan, &mut run, &mut fake, &mut BatteryProgress::new(false)).unwrap();
        assert!(matches!(outcome, Outcome::Complete));
        assert_eq!(fake.log, ["cpu", "cpu", "unixbench"]);
        let saved = read_run(&out).unwrap();
        let ub: Vec<_> = saved
            .measurements
            .iter()
            .filter(|m| m.kind() == "unixbench")
            .collect();
        assert_eq!(ub.len(), 2);
        assert!(ub.iter().all(|m| m.pass() == Some(2)), "the last pass's");
        assert_eq!(
            saved.plan.as_ref().unwrap()["unixbench_not_run"][0]["test"],
            "shell1"
        );
        assert_eq!(steps_left(&plan, &saved), 0);
        // Resumed with nothing left: it does not run again.
        drop(run);
        let mut resumed = Recorder::resume(&out).unwrap();
        let mut fake = Fake::default();
        execute(
            &plan,
            &mut resumed,
            &mut fake,
            &mut BatteryProgress::new(false),
        )
        .unwrap();
        assert!(fake.log.is_empty(), "{:?}", fake.log);
    }

    #[test]
    fn a_failure_is_recorded() {
        let dir = tempfile::tempdir().unwrap();
        let out = dir.path().join("run.json");
        let plan = plan();
        let mut run = fresh(&plan, &out);
        let mut fake = Fake {
            fail_at: Some(2),
            ..Fake::default()
        };
        let outcome =
            execute(&plan, &mut run, &mut fake, &mut BatteryProgress::new(false)).unwrap();
        assert!(matches!(outcome, Outcome::Failed(_)));
        let saved = read_run(&out).unwrap();
        assert_eq!(saved.status, RunStatus::Failed);
        assert_eq!(saved.measurements.len(), 1);
        let note = saved.notes.last().unwrap();
        assert!(
            note.contains("SEQ1M Q8T1 write, pass 1: device vanished"),
            "{note}"
        );
        assert!(fake.live_files.is_empty());
    }

    #[test]
    fn an_unwritable_output_is_an_error() {
        let plan = plan();
        let dir = tempfile::tempdir().unwrap();
        let sub = dir.path().join("gone");
        std::fs::create_dir(&sub).unwrap();
        let out = sub.join("run.json");
        let mut run = fresh(&plan, &out);
        // The directory vanishes after the Run was started.
        std::fs::remove_dir_all(&sub).unwrap();
        let e = execute(
            &plan,
            &mut run,
            &mut Fake::default(),
            &mut BatteryProgress::new(false),
        )
        .unwrap_err();
        assert!(format!("{e:#}").contains("gone/run.json"), "{e:#}");
        assert!(!Path::new("/nonexistent").exists());
    }

    /// The rest counts from the last write's end, whatever ran since.
    #[test]
    fn the_rest_counts_from_the_last_write() {
        let pause = Duration::from_secs(5);
        let t0 = Instant::now();
        let mut rest = Rest::new(pause);
        assert_eq!(rest.left(t0), Duration::ZERO, "nothing written yet");
        rest.wrote(t0);
        assert_eq!(rest.left(t0), pause);
        assert_eq!(
            rest.left(t0 + Duration::from_secs(2)),
            Duration::from_secs(3)
        );
        // A compute group of 24 s ran meanwhile: nothing left to wait.
        assert_eq!(rest.left(t0 + Duration::from_secs(24)), Duration::ZERO);
        // A later write starts the rest again.
        rest.wrote(t0 + Duration::from_secs(30));
        assert_eq!(
            rest.left(t0 + Duration::from_secs(31)),
            Duration::from_secs(4)
        );
    }
}
