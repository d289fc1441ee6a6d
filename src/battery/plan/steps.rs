//! The steps of a plan in execution order (passes as rounds), and the
//! names, keys, time estimates and seeds of each step. A step's key equals
//! the key of the measurement it produced: that is how `--resume` knows
//! what is done.

use super::super::groups::BatteryGroup;
use super::Plan;
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
}

impl Step {
    pub fn pass(&self) -> u32 {
        match self {
            Step::Disk { pass, .. } | Step::Compute { pass, .. } => *pass,
        }
    }
}

impl Plan {
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
        }
    }

    /// About how long a step takes, for the ETA (compute groups run several
    /// tests each; the count is an estimate the runner corrects as it goes).
    pub fn step_estimate(&self, step: &Step) -> Duration {
        match step {
            Step::Disk { .. } => self.ramp() + self.runtime() + self.pause(),
            Step::Compute { group, .. } => {
                let tests = group.planned_measurements(crate::compute::Threads::All);
                self.compute_runtime() * tests.max(1) as u32
            }
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

/// The key of a finished measurement (see `Plan::step_key`); None outside a battery.
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
