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
    /// Every step, in execution order: passes as rounds.
    pub fn steps(&self) -> Vec<Step> {
        let mut steps = Vec::new();
        for pass in 1..=self.passes {
            if self.runs(BatteryGroup::Disk) {
                for test in 0..self.disk_tests.len() {
                    steps.push(Step::Disk {
                        pass,
                        test,
                        role: FileRole::Main,
                    });
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
            for group in crate::compute::Group::ALL {
                if self.runs(group.into()) {
                    steps.push(Step::Compute { pass, group });
                }
            }
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
        self.pause_before(steps, index)
            + match &steps[index] {
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

    /// The pause before `steps[index]`: the plan's pause when something
    /// wrote just before it, so that write's write-back (the guest's or the
    /// host's) does not land in this measurement: the disk step before it
    /// was not read-only, or this is the first step on its file (laid out
    /// just now). None after a read, which leaves nothing behind to wait
    /// for (BENCHMARKS.md, "Pauses between disk tests", has the measurement).
    pub fn pause_before(&self, steps: &[Step], index: usize) -> Duration {
        let Step::Disk { role, .. } = steps[index] else {
            return Duration::ZERO;
        };
        let laid_out_now = !steps[..index]
            .iter()
            .any(|s| matches!(s, Step::Disk { role: r, .. } if *r == role));
        if laid_out_now {
            return self.pause();
        }
        let previous = steps[..index].iter().rev().find_map(|s| match s {
            Step::Disk { test, .. } => Some(*test),
            Step::Compute { .. } | Step::Unixbench { .. } => None,
        });
        match previous {
            Some(test) if !self.disk_tests[test].is_read_only() => self.pause(),
            _ => Duration::ZERO,
        }
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

    /// A pause follows every write and every file layout, never a read.
    #[test]
    fn pauses_only_after_writes_and_layouts() {
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
        let mut paused = 0;
        for (i, step) in steps.iter().enumerate() {
            let pause = plan.pause_before(&steps, i);
            let Step::Disk { role, .. } = *step else {
                assert_eq!(pause, Duration::ZERO, "{}", plan.step_label(step));
                continue;
            };
            let first_on_file = !steps[..i]
                .iter()
                .any(|s| matches!(s, Step::Disk { role: r, .. } if *r == role));
            let after_write = steps[..i].iter().rev().find_map(|s| match s {
                Step::Disk { test, .. } => Some(!plan.disk_tests[*test].is_read_only()),
                _ => None,
            });
            let expected = first_on_file || after_write == Some(true);
            assert_eq!(pause > Duration::ZERO, expected, "step {i}");
            paused += usize::from(expected);
        }
        // Each pass: 11 tests on the main file, 7 of them writing (each
        // followed by a disk step, the last by the control reads), then 4
        // control reads; the main file's layout before the very first step
        // (the control file's coincides with the pause after RW75). Before,
        // every disk step but the first paused: 44.
        let writes = plan.disk_tests.iter().filter(|t| !t.is_read_only()).count();
        assert_eq!(writes, 7);
        assert_eq!(paused, 3 * writes + 1);
    }
}
