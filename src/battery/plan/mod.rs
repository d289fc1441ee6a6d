//! The plan: what the battery will run, from a preset, the user's flags
//! and a few facts about the machine (RAM, free space). Pure: no I/O here,
//! so every rule is tested on made-up machines.
//!
//! The plan is stored in the Run (`plan`), so a reader knows what was asked
//! for, and `--resume` can carry on with exactly the same plan.
//!
//! Order of execution: passes are rounds. Pass 1 runs every test (main disk
//! tests, then the read tests on the control file, then the compute groups),
//! then pass 2 runs every test again, and so on: repeats of one metric are
//! spread in time and catch more of the neighbours' noise than repeats back
//! to back. The pause goes before every disk test but the first, so one
//! test's write-back does not land in the next.

mod check;
pub mod control;
mod inputs;
mod steps;

pub use check::check;
pub use control::{control_size, ControlDecision, ControlPlan, CONTROL_RULE, MIN_CONTROL};
pub use inputs::{Environment, Overrides};
pub use steps::{disk_key, measurement_key, Step};

use super::groups::BatteryGroup;
use super::presets::{ControlRequest, Preset};
use super::profiles::{self, DiskTest};
use crate::units::{fmt_bytes, fmt_duration};
use serde::{Deserialize, Serialize};
use std::time::Duration;

const MIB: u64 = 1 << 20;

/// The most passes accepted (each one repeats the whole battery).
pub const MAX_PASSES: u32 = 100;

/// The battery as it will run (and as stored in `Run.plan`).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct BatteryPlan {
    /// The preset the values started from.
    pub preset: String,
    /// Flags that changed the preset's values (`--passes`, `--runtime`, ...).
    #[serde(default)]
    pub overridden: Vec<String>,
    /// The test directory.
    pub dir: String,
    /// Passes, run as rounds.
    pub passes: u32,
    /// Measured interval of each disk test (ns).
    pub runtime_ns: u64,
    /// Warm-up before each disk test's measured interval (ns, not counted).
    pub ramp_ns: u64,
    /// Pause before each disk test but the first (ns).
    pub pause_ns: u64,
    /// Size of the main test file (bytes), created once and used by every disk test.
    pub size: u64,
    /// Measured interval of each compute test (ns).
    pub compute_runtime_ns: u64,
    /// The disk tests of one pass, in order.
    pub disk_tests: Vec<DiskTest>,
    /// The control series.
    pub control: ControlPlan,
    /// Groups that run, in order.
    pub groups_run: Vec<BatteryGroup>,
    /// Groups that do not run, and why.
    pub groups_skipped: Vec<SkippedGroup>,
    /// Random seed for the files' contents and the jobs' offsets.
    pub seed: u64,
}

/// A group that does not run.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct SkippedGroup {
    pub group: BatteryGroup,
    pub reason: String,
}

impl BatteryPlan {
    /// Builds the plan. Errors are one line naming the flag (usage errors).
    pub fn build(
        preset: Preset,
        flags: &Overrides,
        env: &Environment,
    ) -> Result<BatteryPlan, String> {
        let v = preset.values();
        let mut overridden = Vec::new();
        let mut pick = |flag: &str, given: bool| {
            if given {
                overridden.push(flag.to_string());
            }
        };
        pick("--passes", flags.passes.is_some());
        pick("--runtime", flags.runtime.is_some());
        pick("--ramp", flags.ramp.is_some());
        pick("--pause", flags.pause.is_some());
        pick("--size", flags.size.is_some());
        pick("--control-size", flags.control.is_some());
        pick("--compute-runtime", flags.compute_runtime.is_some());
        pick("--only", flags.only.is_some());
        pick("--skip", !flags.skip.is_empty());

        let passes = flags.passes.unwrap_or(v.passes);
        if passes == 0 || passes > MAX_PASSES {
            return Err(format!(
                "--passes {passes} is out of range (1 to {MAX_PASSES})"
            ));
        }
        let runtime = flags.runtime.unwrap_or(v.runtime);
        if runtime < crate::disk::job::MIN_RUNTIME {
            return Err(format!(
                "--runtime must be at least {}",
                fmt_duration(crate::disk::job::MIN_RUNTIME)
            ));
        }
        let compute_runtime = flags.compute_runtime.unwrap_or(v.compute_runtime);
        if compute_runtime < Duration::from_millis(100) {
            return Err("--compute-runtime must be at least 100ms".to_string());
        }
        let ramp = flags.ramp.unwrap_or(v.ramp);
        let pause = flags.pause.unwrap_or(v.pause);
        let size = flags.size.unwrap_or(v.size);
        let disk_tests = profiles::tests_of(v.profiles);
        let largest_block = disk_tests.iter().map(|t| t.bs).max().unwrap_or(0);
        if size < largest_block.max(MIB) || size % 4096 != 0 {
            return Err(format!(
                "--size {} is too small or unaligned: it must be a multiple of 4 KiB and hold at least one {} block",
                fmt_bytes(size),
                fmt_bytes(largest_block.max(MIB))
            ));
        }

        // Which groups were asked for, and why the others were not.
        let asked: Vec<BatteryGroup> = flags.only.clone().unwrap_or_else(|| v.groups.to_vec());
        let mut groups_run = Vec::new();
        let mut groups_skipped = Vec::new();
        let mut skip = |group: BatteryGroup, reason: String| {
            groups_skipped.push(SkippedGroup { group, reason })
        };
        let wants_disk =
            asked.contains(&BatteryGroup::Disk) && !flags.skip.contains(&BatteryGroup::Disk);
        if wants_disk {
            if let Some(free) = env.free_bytes {
                if size.saturating_add(env.margin_bytes) > free {
                    return Err(format!(
                        "--size {} does not fit in {}: {} free and a safety margin of {} must stay free",
                        fmt_bytes(size),
                        env.dir,
                        fmt_bytes(free),
                        fmt_bytes(env.margin_bytes)
                    ));
                }
            }
        }

        let control_request = flags.control.unwrap_or(v.control);
        let mut control = ControlPlan {
            requested: match control_request {
                ControlRequest::Auto => "auto".to_string(),
                ControlRequest::Off => "off".to_string(),
                ControlRequest::Size(s) => fmt_bytes(s),
            },
            size: None,
            reason: None,
            note: None,
            rule: CONTROL_RULE.to_string(),
            seq_share: None,
        };

        for group in BatteryGroup::ALL {
            if flags.skip.contains(&group) {
                skip(group, "--skip".to_string());
                continue;
            }
            if !asked.contains(&group) {
                let why = if flags.only.is_some() {
                    "not in --only".to_string()
                } else {
                    format!("not part of the {} preset", preset.as_str())
                };
                skip(group, why);
                continue;
            }
            if let Some((_, why)) = env.unavailable.iter().find(|(g, _)| *g == group) {
                skip(group, why.clone());
                continue;
            }
            if group == BatteryGroup::Control {
                if !disk_tests.iter().any(|t| t.is_read_only()) {
                    skip(group, "no read test in the selected profiles".to_string());
                    continue;
                }
                if flags.control.is_none() && control_request == ControlRequest::Off {
                    let why = format!(
                        "the {} preset runs no control series (--control-size auto adds it)",
                        preset.as_str()
                    );
                    control.reason = Some(why.clone());
                    skip(group, why);
                    continue;
                }
                let main = if wants_disk { size } else { 0 };
                let decision = control_size(
                    control_request,
                    main,
                    env.ram_bytes,
                    env.free_bytes,
                    env.margin_bytes,
                )?;
                control.size = decision.size;
                control.note = decision.note;
                if let Some(why) = decision.reason {
                    control.reason = Some(why.clone());
                    skip(group, why);
                    continue;
                }
            }
            groups_run.push(group);
        }
        if !groups_run.contains(&BatteryGroup::Control) && control.reason.is_none() {
            control.reason = groups_skipped
                .iter()
                .find(|s| s.group == BatteryGroup::Control)
                .map(|s| s.reason.clone());
        }
        if groups_run.contains(&BatteryGroup::Control) {
            let seq_tests = disk_tests
                .iter()
                .filter(|t| t.is_read_only() && !t.rw.is_random())
                .count() as u64
                * u64::from(passes);
            control.seq_share = control
                .size
                .filter(|_| seq_tests > 0)
                .map(|size| size / seq_tests / MIB * MIB);
        }
        if groups_run.is_empty() {
            let list: Vec<String> = groups_skipped
                .iter()
                .map(|s| format!("{} ({})", s.group.as_str(), s.reason))
                .collect();
            return Err(format!("nothing to run: {}", list.join(", ")));
        }

        Ok(BatteryPlan {
            preset: preset.as_str().to_string(),
            overridden,
            dir: env.dir.clone(),
            passes,
            runtime_ns: runtime.as_nanos() as u64,
            ramp_ns: ramp.as_nanos() as u64,
            pause_ns: pause.as_nanos() as u64,
            size,
            compute_runtime_ns: compute_runtime.as_nanos() as u64,
            disk_tests,
            control,
            groups_run,
            groups_skipped,
            seed: env.seed,
        })
    }

    pub fn runs(&self, group: BatteryGroup) -> bool {
        self.groups_run.contains(&group)
    }

    pub fn runtime(&self) -> Duration {
        Duration::from_nanos(self.runtime_ns)
    }

    pub fn ramp(&self) -> Duration {
        Duration::from_nanos(self.ramp_ns)
    }

    pub fn pause(&self) -> Duration {
        Duration::from_nanos(self.pause_ns)
    }

    pub fn compute_runtime(&self) -> Duration {
        Duration::from_nanos(self.compute_runtime_ns)
    }

    /// One UnixBench pass's length: UnixBench's own unless the user gave
    /// `--compute-runtime` (a preset's compute runtime does not apply).
    pub fn unixbench_pass(&self) -> Option<Duration> {
        self.overridden
            .iter()
            .any(|f| f == "--compute-runtime")
            .then(|| self.compute_runtime())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const GIB: u64 = 1 << 30;

    fn machine(ram: u64, free: u64) -> Environment {
        Environment {
            dir: "/var/tmp".into(),
            ram_bytes: Some(ram),
            free_bytes: Some(free),
            margin_bytes: GIB,
            unavailable: Vec::new(),
            seed: 42,
        }
    }

    fn big() -> Environment {
        machine(8 * GIB, 500 * GIB)
    }

    #[test]
    fn quick_preset() {
        let p = BatteryPlan::build(Preset::Quick, &Overrides::default(), &big()).unwrap();
        assert_eq!(p.passes, 1);
        assert_eq!(p.disk_tests.len(), 11);
        assert!(p.runtime() + p.ramp() <= Duration::from_secs(5));
        assert!(!p.runs(BatteryGroup::Control));
        assert!(p
            .control
            .reason
            .as_deref()
            .unwrap()
            .contains("quick preset"));
        assert_eq!(p.groups_run.len(), 6);
        assert!(p.overridden.is_empty());
        // Quick on this design: 11 disk steps, 5 compute groups, one pass.
        assert_eq!(p.steps().len(), 16);
    }

    #[test]
    fn standard_and_full_presets() {
        let s = BatteryPlan::build(Preset::Standard, &Overrides::default(), &big()).unwrap();
        assert_eq!(s.passes, 3);
        assert!(s.runs(BatteryGroup::Control));
        assert_eq!(s.control.size, Some(16 * GIB));
        // Two sequential read tests in three passes share the control file.
        assert_eq!(s.control.seq_share, Some(16 * GIB / 6 / MIB * MIB));
        let f = BatteryPlan::build(Preset::Full, &Overrides::default(), &big()).unwrap();
        assert_eq!(
            (f.runtime(), f.pause()),
            (Duration::from_secs(30), Duration::from_secs(20))
        );
        let peak = BatteryPlan::build(Preset::Peak, &Overrides::default(), &big()).unwrap();
        assert_eq!(peak.disk_tests.len(), 4);
        assert_eq!(
            peak.groups_run,
            vec![BatteryGroup::Disk, BatteryGroup::Control]
        );
        let cpu = peak
            .groups_skipped
            .iter()
            .find(|s| s.group == BatteryGroup::Cpu)
            .unwrap();
        assert_eq!(cpu.reason, "not part of the peak preset");
    }

    #[test]
    fn every_flag_overrides_its_value() {
        let flags = Overrides {
            passes: Some(5),
            runtime: Some(Duration::from_secs(7)),
            ramp: Some(Duration::ZERO),
            pause: Some(Duration::from_millis(250)),
            size: Some(256 * MIB),
            control: Some(ControlRequest::Size(GIB)),
            compute_runtime: Some(Duration::from_millis(500)),
            only: Some(vec![
                BatteryGroup::Disk,
                BatteryGroup::Control,
                BatteryGroup::Cpu,
            ]),
            skip: vec![BatteryGroup::Cpu],
        };
        let p = BatteryPlan::build(Preset::Full, &flags, &big()).unwrap();
        assert_eq!(p.passes, 5);
        assert_eq!(p.runtime(), Duration::from_secs(7));
        assert_eq!(p.ramp(), Duration::ZERO);
        assert_eq!(p.pause(), Duration::from_millis(250));
        assert_eq!(p.size, 256 * MIB);
        assert_eq!(p.control.size, Some(GIB));
        assert_eq!(p.compute_runtime(), Duration::from_millis(500));
        assert_eq!(
            p.groups_run,
            vec![BatteryGroup::Disk, BatteryGroup::Control]
        );
        assert_eq!(p.overridden.len(), 9);
        let reason = |g| {
            &p.groups_skipped
                .iter()
                .find(|s| s.group == g)
                .unwrap()
                .reason
        };
        assert_eq!(reason(BatteryGroup::Cpu), "--skip");
        assert_eq!(reason(BatteryGroup::Memory), "not in --only");
        // The quick preset gains a control series when asked for one.
        let q = BatteryPlan::build(
            Preset::Quick,
            &Overrides {
                control: Some(ControlRequest::Auto),
                ..Overrides::default()
            },
            &big(),
        )
        .unwrap();
        assert!(q.runs(BatteryGroup::Control));
    }

    #[test]
    fn bad_values_name_the_flag() {
        let build =
            |flags: Overrides| BatteryPlan::build(Preset::Quick, &flags, &big()).unwrap_err();
        assert!(build(Overrides {
            passes: Some(0),
            ..Default::default()
        })
        .starts_with("--passes 0"));
        assert!(build(Overrides {
            runtime: Some(Duration::ZERO),
            ..Default::default()
        })
        .starts_with("--runtime"));
        assert!(build(Overrides {
            size: Some(4096),
            ..Default::default()
        })
        .starts_with("--size 4 KiB"));
        assert!(build(Overrides {
            size: Some(GIB + 1),
            ..Default::default()
        })
        .starts_with("--size"));
        assert!(build(Overrides {
            size: Some(1000 * GIB),
            ..Default::default()
        })
        .contains("does not fit"));
        let e = build(Overrides {
            only: Some(vec![BatteryGroup::Cpu]),
            skip: vec![BatteryGroup::Cpu],
            ..Default::default()
        });
        assert!(e.starts_with("nothing to run: disk (not in --only)"), "{e}");
        let e = build(Overrides {
            control: Some(ControlRequest::Size(100 * MIB)),
            ..Default::default()
        });
        assert!(
            e.starts_with("--control-size 100 MiB must be larger than the main file"),
            "{e}"
        );
    }

    #[test]
    fn unavailable_groups_are_listed() {
        let mut env = big();
        env.unavailable = vec![(BatteryGroup::Crypto, "not built".into())];
        let p = BatteryPlan::build(Preset::Quick, &Overrides::default(), &env).unwrap();
        assert!(!p.runs(BatteryGroup::Crypto));
        assert!(p.groups_skipped.contains(&SkippedGroup {
            group: BatteryGroup::Crypto,
            reason: "not built".into()
        }));
    }

    #[test]
    fn passes_are_rounds() {
        let flags = Overrides {
            passes: Some(2),
            control: Some(ControlRequest::Size(8 * GIB)),
            only: Some(vec![
                BatteryGroup::Disk,
                BatteryGroup::Control,
                BatteryGroup::Cpu,
            ]),
            ..Overrides::default()
        };
        let p = BatteryPlan::build(Preset::Peak, &flags, &big()).unwrap();
        let labels: Vec<String> = p
            .steps()
            .iter()
            .map(|s| format!("{} {}", s.pass(), p.step_label(s)))
            .collect();
        let one_pass = [
            "SEQ1M Q8T1 read",
            "SEQ1M Q8T1 write",
            // A compute group in the rest after a write.
            "cpu",
            "RND4K Q32T1 read",
            "RND4K Q32T1 write",
            "SEQ1M Q8T1 read (control file)",
            "RND4K Q32T1 read (control file)",
        ];
        let expected: Vec<String> = (1..=2)
            .flat_map(|pass| one_pass.iter().map(move |l| format!("{pass} {l}")))
            .collect();
        assert_eq!(labels, expected);
        // Keys are unique, and seeds differ per step.
        let steps = p.steps();
        let mut keys: Vec<String> = steps.iter().map(|s| p.step_key(s)).collect();
        keys.sort();
        keys.dedup();
        assert_eq!(keys.len(), steps.len());
        assert_ne!(p.step_seed(&steps[0]), p.step_seed(&steps[7]));
    }

    #[test]
    fn plan_round_trips_through_json() {
        let p = BatteryPlan::build(Preset::Standard, &Overrides::default(), &big()).unwrap();
        let json = serde_json::to_value(&p).unwrap();
        assert_eq!(json["control"]["size"], 16 * GIB);
        assert_eq!(json["groups_run"][0], "disk");
        let back: BatteryPlan = serde_json::from_value(json).unwrap();
        assert_eq!(back, p);
    }

    #[test]
    fn no_space_for_control_is_stated_in_the_plan() {
        let p = BatteryPlan::build(
            Preset::Standard,
            &Overrides::default(),
            &machine(24 * GIB, 5 * GIB),
        )
        .unwrap();
        assert!(!p.runs(BatteryGroup::Control));
        assert!(p
            .control
            .reason
            .as_deref()
            .unwrap()
            .starts_with("not enough free space"));
        let skipped = p
            .groups_skipped
            .iter()
            .find(|s| s.group == BatteryGroup::Control)
            .unwrap();
        assert_eq!(Some(&skipped.reason), p.control.reason.as_ref());
    }
}
