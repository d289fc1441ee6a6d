//! UnixBench's System Benchmarks Index into a Run of kind `unixbench`: the
//! Run's plan, the measurements, and the index per copy count and the tests
//! not run, kept in the plan.

use crate::compute::unixbench::{self, UnixbenchRequest};
use crate::result::Measurement;
use crate::session::{self, OutputFlags, Session};

/// Runs `request` into a new Run; the caller finishes the session (prints
/// and records it). `announce`: say the planned length on stderr first.
pub fn index(
    request: &UnixbenchRequest,
    out: &OutputFlags,
    announce: bool,
) -> anyhow::Result<Session> {
    let mut run = session::new_run(None, Some(&request.dir));
    run.plan = Some(serde_json::json!({
        "group": "unixbench",
        "copies": request.copies,
        "tests": request.tests.iter().map(|t| t.name).collect::<Vec<_>>(),
        "pass_ns": request.pass.map(|p| p.as_nanos() as u64),
        "iterations": request.iterations,
        "dir": request.dir.display().to_string(),
    }));
    let mut session = Session::start(run, out, None, &[])?;
    if announce {
        eprintln!(
            "candor unixbench: {} tests x {} copy counts (about {})",
            request.tests.len(),
            request.copies.len(),
            crate::units::fmt_duration(request.planned())
        );
    }
    session.measure(|recorder| {
        let (measurements, not_run) = unixbench::run(request)?;
        let run = recorder.run_mut();
        run.measurements = measurements
            .into_iter()
            .map(Measurement::Unixbench)
            .collect();
        let ms: Vec<_> = run.compute().collect();
        let index: serde_json::Map<String, serde_json::Value> = request
            .copies
            .iter()
            .filter_map(|&c| Some((c.to_string(), unixbench::index_of(&ms, c)?.into())))
            .collect();
        if let Some(serde_json::Value::Object(plan)) = run.plan.as_mut() {
            plan.insert("index".into(), index.into());
            plan.insert(
                "not_run".into(),
                not_run
                    .iter()
                    .map(|n| serde_json::json!({"test": n.test.name, "cause": n.cause}))
                    .collect(),
            );
        }
        Ok(())
    })?;
    Ok(session)
}
