//! The battery's disk tests, checked before any file is written with the
//! checks of every disk plan (`plan::preflight`): each test's job on the
//! main file (the control file is larger, so what fits the main file fits
//! it too) and the memory its buffers need.

use super::BatteryPlan;
use crate::battery::engines::job_for;
use crate::error::usage;
use crate::plan::preflight;

/// Refuses a battery whose disk tests cannot run: a bad value or split
/// (named by test), or buffers that would not fit in half the `available`
/// memory (a usage error).
pub fn check(plan: &BatteryPlan, available: Option<u64>) -> anyhow::Result<()> {
    for test in &plan.disk_tests {
        let job = job_for(test, plan, plan.size, plan.seed);
        preflight::check_values(&job)
            .and_then(|()| preflight::check_split(&job))
            .map_err(|e| anyhow::anyhow!("{}: {e}", test.label()))?;
        preflight::check_memory(&job, available)
            .map_err(|e| usage(format!("{}: {e}", test.label())))?;
    }
    Ok(())
}
