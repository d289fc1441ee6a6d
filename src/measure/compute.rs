//! A compute group alone into a Run (`candor cpu|memory|crypto|compress|os`):
//! the Run's plan, the announcement of its length, the measurements.

use crate::compute::{ComputeOptions, Group};
use crate::result::ComputeMeasurement;
use crate::session::{self, OutputFlags, Session};

/// Measures `group` with `options` through `run_group` (the group's own
/// run, or one with a subcommand's extra flags) into a new Run; the caller
/// finishes the session (prints and records it). `announce`: say the
/// planned length on stderr first.
pub fn group(
    group: Group,
    options: &ComputeOptions,
    out: &OutputFlags,
    announce: bool,
    run_group: &dyn Fn(&ComputeOptions) -> anyhow::Result<Vec<ComputeMeasurement>>,
) -> anyhow::Result<Session> {
    let mut run = session::new_run(None, None);
    run.tool.libraries = crate::compute::library_versions();
    run.plan = Some(serde_json::json!({
        "group": group.name(),
        "threads": options.threads.counts(),
        "runtime_ns": options.runtime.as_nanos() as u64,
    }));
    let mut session = Session::start(run, out, None, &[])?;
    if announce {
        let n = group.planned_measurements(options.threads) as u32;
        eprintln!(
            "candor {}: {n} measurements of {} each (about {})",
            group.name(),
            crate::units::fmt_duration(options.runtime),
            crate::units::fmt_duration(options.runtime * n)
        );
    }
    session.measure(|recorder| {
        let measurements = run_group(options)?;
        recorder.run_mut().measurements = measurements.into_iter().map(|m| group.wrap(m)).collect();
        Ok(())
    })?;
    Ok(session)
}
