//! What a plan is built from besides the preset: the user's flags that
//! override its values, and the few facts about the machine it needs.

use super::super::groups::BatteryGroup;
use super::super::presets::ControlRequest;
use std::time::Duration;

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
    pub only: Option<Vec<BatteryGroup>>,
    pub skip: Vec<BatteryGroup>,
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
    pub unavailable: Vec<(BatteryGroup, String)>,
    /// The random seed of this run (offsets and payloads).
    pub seed: u64,
}
