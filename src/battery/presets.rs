//! The presets: named sets of plan values. Each value can be overridden by
//! its flag (`--passes`, `--runtime`, ...); the plan records which were.
//!
//! - `quick`: everything once with short runtimes and no control series, to
//!   see a machine in under 3 minutes (on a 2-vCPU VM, compute included).
//!   One pass cannot show spread: its findings say "not checked".
//! - `standard` (default): 3 passes as rounds, 10 s per test after a ramp
//!   of at most 2 s (it ends once throughput settles, `disk::settle`), a
//!   5 s rest after writes (compute groups run in it), control series. Long enough for stable medians on
//!   most VMs, short enough to run during a coffee.
//! - `full`: the careful methodology: 3 passes, 30 s per test after ramp,
//!   20 s pauses after writes (so one test's write-back does not land in the next),
//!   control series, and UnixBench's index as UnixBench measures it (its pass
//!   lengths and counts, 1 copy and one per CPU: about 22 minutes per copy
//!   count, once per battery). `standard` leaves the index out: it would
//!   more than double standard's time (`--only` or `candor unixbench` add it).
//! - `peak`, `realworld`, `nvme`: CrystalDiskMark's selections, with
//!   standard's timing and the control series, disk only.

use super::groups::BatteryGroup;
use std::time::Duration;

/// The named presets.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Preset {
    Quick,
    Standard,
    Full,
    Peak,
    Realworld,
    Nvme,
}

/// What the control series should be before free space is looked at.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ControlRequest {
    /// At least 2x RAM, bounded by free space (plan.rs has the rule).
    Auto,
    /// Exactly this many bytes (the user's choice).
    Size(u64),
    /// No control series.
    Off,
}

impl ControlRequest {
    /// `--control-size`: `auto`, `off` (or `none`, `0`), or a size.
    pub fn parse(text: &str) -> Result<ControlRequest, String> {
        match text.trim().to_ascii_lowercase().as_str() {
            "auto" => Ok(ControlRequest::Auto),
            "off" | "none" | "0" => Ok(ControlRequest::Off),
            _ => crate::units::parse_size(text)
                .map(ControlRequest::Size)
                .map_err(|e| format!("{e}, or auto, or off")),
        }
    }
}

/// The values a preset sets.
#[derive(Debug, Clone, PartialEq)]
pub struct PresetValues {
    pub passes: u32,
    pub runtime: Duration,
    pub ramp: Duration,
    pub pause: Duration,
    /// Size of the main test file.
    pub size: u64,
    pub control: ControlRequest,
    /// Runtime of each compute test.
    pub compute_runtime: Duration,
    pub profiles: &'static [&'static str],
    pub groups: &'static [BatteryGroup],
}

const GIB: u64 = 1 << 30;
const ALL_PROFILES: &[&str] = &[
    "SEQ1M Q8T1",
    "SEQ1M Q1T1",
    "RND4K Q32T1",
    "RND4K Q1T1",
    "FSYNC4K",
    "MIX70",
    "RW75 QD64",
];
const ALL_GROUPS: &[BatteryGroup] = &BatteryGroup::ALL;
/// Every group but UnixBench's index (its 44 minutes on 2 CPUs, full only).
const STANDARD_GROUPS: &[BatteryGroup] = &[
    BatteryGroup::Disk,
    BatteryGroup::Control,
    BatteryGroup::Cpu,
    BatteryGroup::Memory,
    BatteryGroup::Crypto,
    BatteryGroup::Compress,
    BatteryGroup::Os,
];
const DISK_GROUPS: &[BatteryGroup] = &[BatteryGroup::Disk, BatteryGroup::Control];

impl Preset {
    pub const NAMES: &'static str = "quick, standard, full, peak, realworld, nvme";

    pub fn parse(text: &str) -> Option<Preset> {
        Some(match text.trim().to_ascii_lowercase().as_str() {
            "quick" => Preset::Quick,
            "standard" => Preset::Standard,
            "full" => Preset::Full,
            "peak" => Preset::Peak,
            "realworld" | "real-world" => Preset::Realworld,
            "nvme" => Preset::Nvme,
            _ => return None,
        })
    }

    pub fn as_str(self) -> &'static str {
        match self {
            Preset::Quick => "quick",
            Preset::Standard => "standard",
            Preset::Full => "full",
            Preset::Peak => "peak",
            Preset::Realworld => "realworld",
            Preset::Nvme => "nvme",
        }
    }

    pub fn values(self) -> PresetValues {
        let standard = PresetValues {
            passes: 3,
            runtime: Duration::from_secs(10),
            ramp: Duration::from_secs(2),
            pause: Duration::from_secs(5),
            size: GIB,
            control: ControlRequest::Auto,
            compute_runtime: Duration::from_secs(3),
            profiles: ALL_PROFILES,
            groups: STANDARD_GROUPS,
        };
        match self {
            Preset::Standard => standard,
            Preset::Quick => PresetValues {
                passes: 1,
                runtime: Duration::from_secs(3),
                ramp: Duration::from_secs(1),
                pause: Duration::from_secs(1),
                control: ControlRequest::Off,
                compute_runtime: Duration::from_secs(1),
                ..standard
            },
            Preset::Full => PresetValues {
                runtime: Duration::from_secs(30),
                ramp: Duration::from_secs(5),
                pause: Duration::from_secs(20),
                size: 4 * GIB,
                compute_runtime: Duration::from_secs(5),
                groups: ALL_GROUPS,
                ..standard
            },
            Preset::Peak => PresetValues {
                profiles: &["SEQ1M Q8T1", "RND4K Q32T1"],
                groups: DISK_GROUPS,
                ..standard
            },
            Preset::Realworld => PresetValues {
                profiles: &["SEQ1M Q1T1", "RND4K Q1T1"],
                groups: DISK_GROUPS,
                ..standard
            },
            Preset::Nvme => PresetValues {
                profiles: &["SEQ1M Q8T1", "SEQ128K Q32T1", "RND4K Q32T16", "RND4K Q1T1"],
                groups: DISK_GROUPS,
                ..standard
            },
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::battery::profiles;

    #[test]
    fn control_size_words_and_sizes() {
        assert_eq!(ControlRequest::parse(" Auto "), Ok(ControlRequest::Auto));
        for off in ["off", "none", "0"] {
            assert_eq!(ControlRequest::parse(off), Ok(ControlRequest::Off), "{off}");
        }
        assert_eq!(
            ControlRequest::parse("2g"),
            Ok(ControlRequest::Size(2 << 30))
        );
        let e = ControlRequest::parse("lots").unwrap_err();
        assert!(e.ends_with(", or auto, or off"), "{e}");
    }

    #[test]
    fn names_round_trip() {
        for p in [
            Preset::Quick,
            Preset::Standard,
            Preset::Full,
            Preset::Peak,
            Preset::Realworld,
            Preset::Nvme,
        ] {
            assert_eq!(Preset::parse(p.as_str()), Some(p));
            assert!(Preset::NAMES.contains(p.as_str()));
            // Every profile a preset names exists.
            for name in p.values().profiles {
                assert!(profiles::profile(name).is_some(), "{name}");
            }
        }
        assert_eq!(Preset::parse("fast"), None);
    }

    #[test]
    fn the_documented_values() {
        let q = Preset::Quick.values();
        assert_eq!((q.passes, q.control), (1, ControlRequest::Off));
        assert_eq!(profiles::tests_of(q.profiles).len(), 11);
        let f = Preset::Full.values();
        assert_eq!(
            (f.passes, f.runtime, f.pause),
            (3, Duration::from_secs(30), Duration::from_secs(20))
        );
        assert_eq!(f.control, ControlRequest::Auto);
        assert_eq!(Preset::Standard.values().passes, 3);
        let nvme = Preset::Nvme.values();
        assert_eq!(nvme.profiles.len(), 4);
        assert!(!nvme.groups.contains(&BatteryGroup::Cpu));
        // UnixBench's index: full only (its time, about 22 minutes per copy count).
        assert!(f.groups.contains(&BatteryGroup::Unixbench));
        for p in [Preset::Quick, Preset::Standard, Preset::Peak] {
            assert!(
                !p.values().groups.contains(&BatteryGroup::Unixbench),
                "{p:?}"
            );
        }
    }
}
