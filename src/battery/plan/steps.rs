//! The steps of a plan in execution order (passes as rounds), and the
//! names, keys, time estimates and seeds of each step. A step's key equals
//! the key of the measurement it produced: that is how `--resume` knows
//! what is done.

use super::super::groups::BatteryGroup;
use super::BatteryPlan;
use crate::result::FileRole;
use std::time::Duration;

/// One measurement of the battery.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Step {
    /// `disk_tests[test]` on the main or the control file.
    Disk {
        pass: u32,
        test: usize,
        role: FileRole,
    },
    /// One compute group (several measurements).
    Compute {
        pass: u32,
        group: crate::compute::Group,
    },
    /// UnixBench's index tests, once, after the last pass (their own passes
    /// are inside; several measurements).
    Unixbench { pass: u32 },
}

impl Step {
    pub fn pass(&self) -> u32 {
        match self {
            Step::Disk { pass, .. } | Step::Compute { pass, .. } | Step::Unixbench { pass } => {
                *pass
            }
        }
    }
}

impl BatteryPlan {
    /// Every step, in execution order: passes as rounds. Within a pass the
    /// main file's tests run in profile order, and each compute group (no
    /// disk I/O of its own) takes the place of the pause after a test that
    /// wrote, while the write's write-back settles; the control file's reads
    /// follow, then the groups left over (BENCHMARKS.md, "Compute in the
    /// rest after a write", has what this saves and what it disturbs).
    pub fn steps(&self) -> Vec<Step> {
        let mut steps = Vec::new();
        for pass in 1..=self.passes {
            let mut compute: std::collections::VecDeque<Step> = crate::compute::Group::ALL
                .into_iter()
                .filter(|group| self.runs((*group).into()))
                .map(|group| Step::Compute { pass, group })
                .collect();
            if self.runs(BatteryGroup::Disk) {
                for (test, t) in self.disk_tests.iter().enumerate() {
                    steps.push(Step::Disk {
                        pass,
                        test,
                        role: FileRole::Main,
                    });
                    if !t.is_read_only() {
                        steps.extend(compute.pop_front());
                    }
                }
            }
            if self.runs(BatteryGroup::Control) {
                for (test, t) in self.disk_tests.iter().enumerate() {
                    if t.is_read_only() {
                        steps.push(Step::Disk {
                            pass,
                            test,
                            role: FileRole::Control,
                        });
                    }
                }
            }
            steps.extend(compute);
        }
        if self.runs(BatteryGroup::Unixbench) {
            steps.push(Step::Unixbench { pass: self.passes });
        }
        steps
    }

    /// A stable name for a step, equal to `measurement_key` of what it produced
    /// (how `--resume` knows what is done).
    pub fn step_key(&self, step: &Step) -> String {
        match step {
            Step::Disk { pass, test, role } => {
                let t = &self.disk_tests[*test];
                disk_key(&t.profile, t.rw.as_str(), *role, *pass)
            }
            Step::Compute { pass, group } => format!("{}/{pass}", group.name()),
            Step::Unixbench { pass } => format!("unixbench/{pass}"),
        }
    }

    /// A human name for a step: `SEQ1M Q8T1 read (control)`, `cpu`.
    pub fn step_label(&self, step: &Step) -> String {
        match step {
            Step::Disk { test, role, .. } => {
                let label = self.disk_tests[*test].label();
                match role {
                    FileRole::Main => label,
                    FileRole::Control => format!("{label} (control file)"),
                }
            }
            Step::Compute { group, .. } => group.name().to_string(),
            Step::Unixbench { .. } => "unixbench".to_string(),
        }
    }

    /// About how long `steps[index]` takes with the pause before it, for the
    /// ETA (compute groups run several tests each; the count is an estimate
    /// the runner corrects as it goes).
    pub fn step_estimate(&self, steps: &[Step], index: usize) -> Duration {
        self.pause_before(steps, index) + self.duration_estimate(&steps[index])
    }

    /// About how long a step measures (and ramps), without the pause before it.
    fn duration_estimate(&self, step: &Step) -> Duration {
        match step {
            Step::Disk { .. } => self.ramp() + self.runtime(),
            Step::Compute { group, .. } => {
                let tests = group.planned_measurements(crate::compute::Threads::All);
                self.compute_runtime() * tests.max(1) as u32
            }
            Step::Unixbench { .. } => {
                crate::compute::unixbench::battery_options(&self.dir, self.unixbench_pass())
                    .planned()
            }
        }
    }

    /// The planned pause before `steps[index]`: no disk step starts until
    /// the plan's pause has passed since candor's last write ended (a test
    /// that wrote, or the layout of a file), so that the write's write-back
    /// (the guest's or the host's) does not land in its measurement. The
    /// steps run since then count toward it: after a compute group that
    /// took the pause's place, or a read, there is nothing left to wait
    /// (BENCHMARKS.md, "Pauses between disk tests"). The runner waits by
    /// the clock (`runner::Rest`); this is the plan's estimate of that wait.
    pub fn pause_before(&self, steps: &[Step], index: usize) -> Duration {
        let Step::Disk { role, .. } = steps[index] else {
            return Duration::ZERO;
        };
        let first_on = |i: usize, role: FileRole| {
            !steps[..i]
                .iter()
                .any(|s| matches!(s, Step::Disk { role: r, .. } if *r == role))
        };
        // The file is laid out just before this step.
        if first_on(index, role) {
            return self.pause();
        }
        let mut since_write = Duration::ZERO;
        for i in (0..index).rev() {
            if let Step::Disk { test, .. } = steps[i] {
                if !self.disk_tests[test].is_read_only() {
                    return self.pause().saturating_sub(since_write);
                }
            }
            since_write += self.duration_estimate(&steps[i]);
            // A layout ended just before steps[i].
            if matches!(steps[i], Step::Disk { role: r, .. } if first_on(i, r)) {
                return self.pause().saturating_sub(since_write);
            }
        }
        Duration::ZERO
    }

    /// The seed of one step's job: distinct per step, fixed by the plan's seed.
    pub fn step_seed(&self, step: &Step) -> u64 {
        let salt = match step {
            Step::Disk { pass, test, role } => {
                (u64::from(*pass) << 32)
                    | ((*test as u64) << 8)
                    | (*role == FileRole::Control) as u64
            }
            Step::Compute { pass, group } => {
                (u64::from(*pass) << 32) | (BatteryGroup::from(*group) as u64) << 16
            }
            Step::Unixbench { pass } => {
                (u64::from(*pass) << 32) | (BatteryGroup::Unixbench as u64) << 16
            }
        };
        crate::seed::splitmix64(self.seed ^ salt)
    }
}

/// The key of a disk measurement: role, profile, rw and pass.
pub fn disk_key(profile: &str, rw: &str, role: FileRole, pass: u32) -> String {
    let role = match role {
        FileRole::Main => "main",
        FileRole::Control => "control",
    };
    format!("disk/{role}/{profile}/{rw}/{pass}")
}

/// The key of a finished measurement (see `BatteryPlan::step_key`); None outside a battery.
pub fn measurement_key(m: &crate::result::Measurement) -> Option<String> {
    use crate::result::Measurement;
    match m {
        Measurement::Disk(d) => Some(disk_key(
            d.profile.as_deref()?,
            d.spec.rw.as_str(),
            d.role,
            d.pass?,
        )),
        other => Some(format!("{}/{}", other.kind(), other.pass()?)),
    }
}

#[cfg(test)]
mod tests {
    use super::super::{BatteryPlan, Environment, Overrides};
    use super::*;
    use crate::battery::presets::Preset;

    /// UnixBench's index: once, after the last pass, in `full` only, with
    /// UnixBench's pass lengths (1,310 s per copy count) unless
    /// --compute-runtime says otherwise.
    #[test]
    fn full_runs_unixbench_once_after_the_last_pass() {
        let env = Environment {
            dir: "/var/tmp".into(),
            ram_bytes: Some(8 << 30),
            free_bytes: Some(500 << 30),
            margin_bytes: 1 << 30,
            unavailable: Vec::new(),
            seed: 42,
        };
        let full = BatteryPlan::build(Preset::Full, &Overrides::default(), &env).unwrap();
        let steps = full.steps();
        let ub: Vec<usize> = (0..steps.len())
            .filter(|&i| matches!(steps[i], Step::Unixbench { .. }))
            .collect();
        assert_eq!(ub, [steps.len() - 1]);
        assert_eq!(full.step_key(&steps[ub[0]]), "unixbench/3");
        let copy_counts = if crate::compute::online_cpus() > 1 {
            2
        } else {
            1
        };
        assert_eq!(
            full.step_estimate(&steps, ub[0]),
            Duration::from_secs(1310) * copy_counts
        );
        let standard = BatteryPlan::build(Preset::Standard, &Overrides::default(), &env).unwrap();
        assert!(!standard
            .steps()
            .iter()
            .any(|s| matches!(s, Step::Unixbench { .. })));
        let short = Overrides {
            compute_runtime: Some(Duration::from_secs(1)),
            ..Overrides::default()
        };
        let full = BatteryPlan::build(Preset::Full, &short, &env).unwrap();
        let steps = full.steps();
        // 71 passes of 1 s per copy count.
        assert_eq!(
            full.step_estimate(&steps, steps.len() - 1),
            Duration::from_secs(71) * copy_counts
        );
    }

    /// Each compute group takes the place of a pause after a write; a
    /// disk step waits only for what is left of the pause since the last
    /// write or layout.
    #[test]
    fn compute_groups_fill_the_rest_after_writes() {
        let env = Environment {
            dir: "/var/tmp".into(),
            ram_bytes: Some(8 << 30),
            free_bytes: Some(500 << 30),
            margin_bytes: 1 << 30,
            unavailable: Vec::new(),
            seed: 42,
        };
        let plan = BatteryPlan::build(Preset::Standard, &Overrides::default(), &env).unwrap();
        let steps = plan.steps();
        let groups = crate::compute::Group::ALL.len();
        let mut paused = 0;
        for (i, step) in steps.iter().enumerate() {
            let pause = plan.pause_before(&steps, i);
            let Step::Disk { role, .. } = *step else {
                assert_eq!(pause, Duration::ZERO, "{}", plan.step_label(step));
                // A compute group follows a test that wrote.
                let before = &steps[i - 1];
                let wrote = matches!(before, Step::Disk { test, .. } if !plan.disk_tests[*test].is_read_only());
                let first_of_leftovers = matches!(
                    before,
                    Step::Disk {
                        role: FileRole::Control,
                        ..
                    }
                );
                assert!(
                    wrote || first_of_leftovers || matches!(before, Step::Compute { .. }),
                    "step {i}"
                );
                continue;
            };
            let first_on_file = !steps[..i]
                .iter()
                .any(|s| matches!(s, Step::Disk { role: r, .. } if *r == role));
            let right_after_write = i > 0
                && matches!(steps[i - 1], Step::Disk { test, .. }
                    if !plan.disk_tests[test].is_read_only());
            let expected = first_on_file || right_after_write;
            assert_eq!(
                pause > Duration::ZERO,
                expected,
                "step {i}: {}",
                plan.step_label(step)
            );
            if expected {
                assert_eq!(pause, plan.pause());
            }
            paused += usize::from(expected);
        }
        // Each pass: 11 tests on the main file, 7 of them writing; the first
        // 5 writes are followed by the 5 compute groups, the last 2 by a
        // pause (MIX70 before RW75, RW75 before the control reads); and the
        // main file's layout before the very first step. Before compute
        // filled the rests: 3 x 7 + 1 = 22; before pauses followed only
        // writes: 44.
        let writes = plan.disk_tests.iter().filter(|t| !t.is_read_only()).count();
        assert_eq!((writes, groups), (7, 5));
        assert_eq!(paused, 3 * (writes - groups) + 1);
        // The same steps as before, in another order: every key once.
        let mut keys: Vec<String> = steps.iter().map(|s| plan.step_key(s)).collect();
        keys.sort();
        keys.dedup();
        assert_eq!(keys.len(), 3 * (11 + 4 + groups));
        // A read shorter than the pause does not end it: what is left is waited.
        let short = Overrides {
            runtime: Some(Duration::from_millis(500)),
            ramp: Some(Duration::ZERO),
            only: Some(vec![BatteryGroup::Disk]),
            ..Overrides::default()
        };
        let plan = BatteryPlan::build(Preset::Standard, &short, &env).unwrap();
        let steps = plan.steps();
        // SEQ1M Q8T1 write, SEQ1M Q1T1 read, SEQ1M Q1T1 write: 4.5 s left.
        assert_eq!(plan.step_label(&steps[3]), "SEQ1M Q1T1 write");
        assert_eq!(plan.pause_before(&steps, 3), Duration::from_millis(4500));
    }
}
