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

use super::groups::Group;
use super::presets::{ControlRequest, Preset};
use super::profiles::{self, DiskTest};
use crate::result::FileRole;
use crate::units::fmt_bytes;
use serde::{Deserialize, Serialize};
use std::time::Duration;

const MIB: u64 = 1 << 20;
const GIB: u64 = 1 << 30;

/// The smallest control file `auto` will make ("never less than a few GiB":
/// a small control file excludes only small caches, so the comparison would
/// prove little). A user's explicit `--control-size` may go below it (tests,
/// tiny disks).
pub const MIN_CONTROL: u64 = 4 * GIB;

/// The most passes accepted (each one repeats the whole battery).
pub const MAX_PASSES: u32 = 100;

/// The flags that override a preset's values (None: keep the preset's).
#[derive(Debug, Clone, Default)]
pub struct Overrides {
    pub passes: Option<u32>,
    pub runtime: Option<Duration>,
    pub ramp: Option<Duration>,
    pub pause: Option<Duration>,
    pub size: Option<u64>,
    pub control: Option<ControlRequest>,
    pub compute_runtime: Option<Duration>,
    pub only: Option<Vec<Group>>,
    pub skip: Vec<Group>,
}

/// What the plan needs to know about the machine and this build.
#[derive(Debug, Clone, Default)]
pub struct Environment {
    /// The test directory.
    pub dir: String,
    /// MemTotal.
    pub ram_bytes: Option<u64>,
    /// Free space in the test directory (for unprivileged users).
    pub free_bytes: Option<u64>,
    /// The free space every test file must leave (`disk::space_margin`).
    pub margin_bytes: u64,
    /// Groups this build cannot run, with the reason.
    pub unavailable: Vec<(Group, String)>,
    /// The random seed of this run (offsets and payloads).
    pub seed: u64,
}

/// The battery as it will run (and as stored in `Run.plan`).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Plan {
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
    pub groups_run: Vec<Group>,
    /// Groups that do not run, and why.
    pub groups_skipped: Vec<SkippedGroup>,
    /// Random seed for the files' contents and the jobs' offsets.
    pub seed: u64,
}

/// The control file: the read tests again on a file larger than RAM.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ControlPlan {
    /// What was asked for: `auto`, `off` or a size.
    pub requested: String,
    /// The control file's size (bytes) when the series runs.
    pub size: Option<u64>,
    /// Why the series does not run (absent when it runs).
    #[serde(default)]
    pub reason: Option<String>,
    /// What the size means when it is not the rule's (bounded by free space).
    #[serde(default)]
    pub note: Option<String>,
    /// The sizing rule, in words.
    pub rule: String,
}

/// A group that does not run.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct SkippedGroup {
    pub group: Group,
    pub reason: String,
}

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

/// The sizing rule, as stored in the plan.
pub const CONTROL_RULE: &str = "auto: at least 2x this machine's RAM, at least 4 GiB and 2x the main file, \
bounded by free space minus the main file and the safety margin. A drop on the control file is evidence \
of a cache; equal results exclude only caches smaller than the control file";

/// The control file's size, or why there is none (Ok(None, reason)).
/// An explicit size that cannot work is the user's error (Err).
pub fn control_size(
    request: ControlRequest,
    main_size: u64,
    ram: Option<u64>,
    free: Option<u64>,
    margin: u64,
) -> Result<ControlDecision, String> {
    let room = free.map(|f| f.saturating_sub(margin).saturating_sub(main_size));
    match request {
        ControlRequest::Off => Ok(ControlDecision::skip("--control-size off")),
        ControlRequest::Size(size) => {
            if size <= main_size {
                return Err(format!(
                    "--control-size {} must be larger than the main file (--size {})",
                    fmt_bytes(size),
                    fmt_bytes(main_size)
                ));
            }
            if let (Some(room), Some(free)) = (room, free) {
                if size > room {
                    return Err(format!(
                        "--control-size {} does not fit: {} free, minus the main file ({}) and the safety margin ({}) leaves {}",
                        fmt_bytes(size),
                        fmt_bytes(free),
                        fmt_bytes(main_size),
                        fmt_bytes(margin),
                        fmt_bytes(room)
                    ));
                }
            }
            let note = ram.filter(|r| size < 2 * r).map(|r| {
                format!(
                    "--control-size {} is less than 2x RAM ({}): the control series excludes only caches smaller than {}",
                    fmt_bytes(size),
                    fmt_bytes(2 * r),
                    fmt_bytes(size)
                )
            });
            Ok(ControlDecision {
                size: Some(size),
                reason: None,
                note,
            })
        }
        ControlRequest::Auto => {
            let Some(ram) = ram else {
                return Ok(ControlDecision::skip(
                    "RAM size unknown (/proc/meminfo unreadable): give --control-size SIZE",
                ));
            };
            let Some(room) = room else {
                return Ok(ControlDecision::skip(
                    "free space of the test directory unknown: give --control-size SIZE",
                ));
            };
            let floor = MIN_CONTROL.max(2 * main_size);
            let wanted = (2 * ram).max(floor);
            if room >= wanted {
                return Ok(ControlDecision {
                    size: Some(round_mib(wanted)),
                    reason: None,
                    note: None,
                });
            }
            if room >= floor {
                let size = round_mib(room);
                return Ok(ControlDecision {
                    size: Some(size),
                    reason: None,
                    note: Some(format!(
                        "bounded by free space: {} instead of 2x RAM ({}); it excludes only caches smaller than {}",
                        fmt_bytes(size),
                        fmt_bytes(wanted),
                        fmt_bytes(size)
                    )),
                });
            }
            Ok(ControlDecision::skip(format!(
                "not enough free space: the control file needs at least {} (2x RAM would be {}), \
                 but {} free minus the main file ({}) and the safety margin ({}) leaves {}",
                fmt_bytes(floor),
                fmt_bytes(wanted),
                fmt_bytes(free.unwrap_or(0)),
                fmt_bytes(main_size),
                fmt_bytes(margin),
                fmt_bytes(room)
            )))
        }
    }
}

/// The outcome of the control sizing rule.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ControlDecision {
    pub size: Option<u64>,
    /// Why there is no control series.
    pub reason: Option<String>,
    /// What a bounded size means.
    pub note: Option<String>,
}

impl ControlDecision {
    fn skip(reason: impl Into<String>) -> ControlDecision {
        ControlDecision {
            size: None,
            reason: Some(reason.into()),
            note: None,
        }
    }
}

fn round_mib(bytes: u64) -> u64 {
    bytes / MIB * MIB
}

impl Plan {
    /// Builds the plan. Errors are one line naming the flag (usage errors).
    pub fn build(preset: Preset, flags: &Overrides, env: &Environment) -> Result<Plan, String> {
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
        if runtime < Duration::from_millis(100) {
            return Err("--runtime must be at least 100ms".to_string());
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
        let asked: Vec<Group> = flags.only.clone().unwrap_or_else(|| v.groups.to_vec());
        let mut groups_run = Vec::new();
        let mut groups_skipped = Vec::new();
        let mut skip =
            |group: Group, reason: String| groups_skipped.push(SkippedGroup { group, reason });
        let wants_disk = asked.contains(&Group::Disk) && !flags.skip.contains(&Group::Disk);
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
        };

        for group in Group::ALL {
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
            if group == Group::Control {
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
        if !groups_run.contains(&Group::Control) && control.reason.is_none() {
            control.reason = groups_skipped
                .iter()
                .find(|s| s.group == Group::Control)
                .map(|s| s.reason.clone());
        }
        if groups_run.is_empty() {
            let list: Vec<String> = groups_skipped
                .iter()
                .map(|s| format!("{} ({})", s.group.as_str(), s.reason))
                .collect();
            return Err(format!("nothing to run: {}", list.join(", ")));
        }

        Ok(Plan {
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

    pub fn runs(&self, group: Group) -> bool {
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

    /// Every step, in execution order: passes as rounds.
    pub fn steps(&self) -> Vec<Step> {
        let mut steps = Vec::new();
        for pass in 1..=self.passes {
            if self.runs(Group::Disk) {
                for test in 0..self.disk_tests.len() {
                    steps.push(Step::Disk {
                        pass,
                        test,
                        role: FileRole::Main,
                    });
                }
            }
            if self.runs(Group::Control) {
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
                (u64::from(*pass) << 32) | (Group::from(*group) as u64) << 16
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

#[cfg(test)]
mod tests {
    use super::*;

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
        let p = Plan::build(Preset::Quick, &Overrides::default(), &big()).unwrap();
        assert_eq!(p.passes, 1);
        assert_eq!(p.disk_tests.len(), 11);
        assert!(p.runtime() + p.ramp() <= Duration::from_secs(5));
        assert!(!p.runs(Group::Control));
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
        let s = Plan::build(Preset::Standard, &Overrides::default(), &big()).unwrap();
        assert_eq!(s.passes, 3);
        assert!(s.runs(Group::Control));
        assert_eq!(s.control.size, Some(16 * GIB));
        let f = Plan::build(Preset::Full, &Overrides::default(), &big()).unwrap();
        assert_eq!(
            (f.runtime(), f.pause()),
            (Duration::from_secs(30), Duration::from_secs(20))
        );
        let peak = Plan::build(Preset::Peak, &Overrides::default(), &big()).unwrap();
        assert_eq!(peak.disk_tests.len(), 4);
        assert_eq!(peak.groups_run, vec![Group::Disk, Group::Control]);
        let cpu = peak
            .groups_skipped
            .iter()
            .find(|s| s.group == Group::Cpu)
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
            only: Some(vec![Group::Disk, Group::Control, Group::Cpu]),
            skip: vec![Group::Cpu],
        };
        let p = Plan::build(Preset::Full, &flags, &big()).unwrap();
        assert_eq!(p.passes, 5);
        assert_eq!(p.runtime(), Duration::from_secs(7));
        assert_eq!(p.ramp(), Duration::ZERO);
        assert_eq!(p.pause(), Duration::from_millis(250));
        assert_eq!(p.size, 256 * MIB);
        assert_eq!(p.control.size, Some(GIB));
        assert_eq!(p.compute_runtime(), Duration::from_millis(500));
        assert_eq!(p.groups_run, vec![Group::Disk, Group::Control]);
        assert_eq!(p.overridden.len(), 9);
        let reason = |g| {
            &p.groups_skipped
                .iter()
                .find(|s| s.group == g)
                .unwrap()
                .reason
        };
        assert_eq!(reason(Group::Cpu), "--skip");
        assert_eq!(reason(Group::Memory), "not in --only");
        // The quick preset gains a control series when asked for one.
        let q = Plan::build(
            Preset::Quick,
            &Overrides {
                control: Some(ControlRequest::Auto),
                ..Overrides::default()
            },
            &big(),
        )
        .unwrap();
        assert!(q.runs(Group::Control));
    }

    #[test]
    fn bad_values_name_the_flag() {
        let build = |flags: Overrides| Plan::build(Preset::Quick, &flags, &big()).unwrap_err();
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
            only: Some(vec![Group::Cpu]),
            skip: vec![Group::Cpu],
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
        env.unavailable = vec![(Group::Crypto, "not built".into())];
        let p = Plan::build(Preset::Quick, &Overrides::default(), &env).unwrap();
        assert!(!p.runs(Group::Crypto));
        assert!(p.groups_skipped.contains(&SkippedGroup {
            group: Group::Crypto,
            reason: "not built".into()
        }));
    }

    #[test]
    fn control_sizing_rule() {
        let auto = ControlRequest::Auto;
        // Plenty of room: 2x RAM.
        let d = control_size(auto, GIB, Some(24 * GIB), Some(200 * GIB), GIB).unwrap();
        assert_eq!((d.size, d.reason, d.note), (Some(48 * GIB), None, None));
        // Small RAM: never below 4 GiB.
        let d = control_size(auto, GIB, Some(GIB), Some(200 * GIB), GIB).unwrap();
        assert_eq!(d.size, Some(MIN_CONTROL));
        // Bounded by free space: 20 GiB - 1 GiB margin - 1 GiB main = 18 GiB.
        let d = control_size(auto, GIB, Some(24 * GIB), Some(20 * GIB), GIB).unwrap();
        assert_eq!(d.size, Some(18 * GIB));
        assert!(d
            .note
            .unwrap()
            .starts_with("bounded by free space: 18 GiB instead of 2x RAM (48 GiB)"));
        // No space: skipped, and the reason says why with the numbers.
        let d = control_size(auto, GIB, Some(24 * GIB), Some(5 * GIB), GIB).unwrap();
        assert_eq!(d.size, None);
        let why = d.reason.unwrap();
        assert!(
            why.starts_with("not enough free space: the control file needs at least 4 GiB"),
            "{why}"
        );
        assert!(why.ends_with("leaves 3 GiB"), "{why}");
        // Unknown RAM or free space: skipped, never guessed.
        assert!(control_size(auto, GIB, None, Some(GIB), 0)
            .unwrap()
            .size
            .is_none());
        assert!(control_size(auto, GIB, Some(GIB), None, 0)
            .unwrap()
            .size
            .is_none());
        // The user's size is taken as given, even below 4 GiB, with a note below 2x RAM.
        let d = control_size(
            ControlRequest::Size(2 * GIB),
            GIB,
            Some(24 * GIB),
            Some(200 * GIB),
            GIB,
        )
        .unwrap();
        assert_eq!(d.size, Some(2 * GIB));
        assert!(d.note.unwrap().contains("less than 2x RAM"));
        // ... unless it does not fit.
        let e = control_size(
            ControlRequest::Size(50 * GIB),
            GIB,
            Some(GIB),
            Some(20 * GIB),
            GIB,
        )
        .unwrap_err();
        assert!(e.starts_with("--control-size 50 GiB does not fit"), "{e}");
        assert_eq!(
            control_size(ControlRequest::Off, GIB, None, None, 0)
                .unwrap()
                .size,
            None
        );
    }

    #[test]
    fn no_space_for_control_is_stated_in_the_plan() {
        let p = Plan::build(
            Preset::Standard,
            &Overrides::default(),
            &machine(24 * GIB, 5 * GIB),
        )
        .unwrap();
        assert!(!p.runs(Group::Control));
        assert!(p
            .control
            .reason
            .as_deref()
            .unwrap()
            .starts_with("not enough free space"));
        let skipped = p
            .groups_skipped
            .iter()
            .find(|s| s.group == Group::Control)
            .unwrap();
        assert_eq!(Some(&skipped.reason), p.control.reason.as_ref());
    }

    #[test]
    fn passes_are_rounds() {
        let flags = Overrides {
            passes: Some(2),
            control: Some(ControlRequest::Size(8 * GIB)),
            only: Some(vec![Group::Disk, Group::Control, Group::Cpu]),
            ..Overrides::default()
        };
        let p = Plan::build(Preset::Peak, &flags, &big()).unwrap();
        let labels: Vec<String> = p
            .steps()
            .iter()
            .map(|s| format!("{} {}", s.pass(), p.step_label(s)))
            .collect();
        let one_pass = [
            "SEQ1M Q8T1 read",
            "SEQ1M Q8T1 write",
            "RND4K Q32T1 read",
            "RND4K Q32T1 write",
            "SEQ1M Q8T1 read (control file)",
            "RND4K Q32T1 read (control file)",
            "cpu",
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
        let p = Plan::build(Preset::Standard, &Overrides::default(), &big()).unwrap();
        let json = serde_json::to_value(&p).unwrap();
        assert_eq!(json["control"]["size"], 16 * GIB);
        assert_eq!(json["groups_run"][0], "disk");
        let back: Plan = serde_json::from_value(json).unwrap();
        assert_eq!(back, p);
    }
}
