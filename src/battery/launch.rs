//! The beginning of a battery's Run (`candor run`): a new one (the plan
//! from the preset and its overrides, the host's facts, a new Run file,
//! locked before anything is measured) or an interrupted one carried on
//! (its stored plan, the same file, the same host), each checked the same
//! way before anything runs.

use super::plan::{Environment, Overrides};
use super::{runner, BatteryPlan, Preset};
use crate::disk::TestDir;
use crate::error::usage;
use crate::result::{Run, RunStatus};
use crate::session::history::HistoryFlags;
use crate::session::recorder::Recorder;
use crate::session::{self, Session};
use anyhow::Context;
use std::path::{Path, PathBuf};

/// A new battery, as the flags ask for it.
#[derive(Debug)]
pub struct NewBattery<'a> {
    pub preset: Preset,
    pub overrides: Overrides,
    /// The test directory (None: the default, `session::DEFAULT_TEST_DIR`).
    pub dir: Option<&'a Path>,
    /// A name for this host in reports.
    pub label: Option<String>,
    /// The Run file (None: `default_output_name` in the working directory).
    pub output: Option<PathBuf>,
    /// Replace the Run file if it exists.
    pub force: bool,
}

/// A battery ready to run: its plan, its Run's session (holding the Run
/// file's lock) and its test directory.
pub struct Launched {
    pub plan: BatteryPlan,
    pub session: Session,
    pub test_dir: TestDir,
}

/// A new battery: host facts, plan, a new Run file. `history` is where the
/// Run goes when finished (None: nowhere); `history_inputs` are the
/// database's files, inputs whether or not this Run goes there.
pub fn start(
    new: NewBattery,
    history: Option<&HistoryFlags>,
    history_inputs: &[PathBuf],
) -> anyhow::Result<Launched> {
    let test_dir = TestDir::open(&session::test_dir_or_default(new.dir))?;
    let host = crate::host::collect(Some(test_dir.path()));
    let env = Environment {
        dir: test_dir.path().display().to_string(),
        ram_bytes: host.mem_total_bytes,
        free_bytes: Some(test_dir.free_bytes()),
        margin_bytes: crate::disk::space_margin(test_dir.total_bytes()),
        unavailable: Vec::new(),
        seed: crate::seed::fresh(),
    };
    let plan = BatteryPlan::build(new.preset, &new.overrides, &env).map_err(usage)?;
    super::plan::check(&plan, crate::host::memory::available_bytes())?;
    let output = match new.output {
        Some(o) => o,
        None => PathBuf::from(default_output_name(
            host.hostname.as_deref(),
            &crate::units::now_rfc3339(),
        )),
    };

    let mut run = Run::of_this_process();
    run.label = new.label;
    run.host = host;
    run.tool.libraries = crate::compute::library_versions();
    run.plan = Some(serde_json::to_value(&plan)?);
    run.notes.extend(test_dir.notes().cloned());
    if let Some(note) = &plan.control.note {
        run.notes.push(format!("control file: {note}"));
    }
    for skipped in &plan.groups_skipped {
        run.notes.push(format!(
            "skipped {}: {}",
            skipped.group.as_str(),
            skipped.reason
        ));
    }
    let session = Session::start_at(run, Some(&output), new.force, history, history_inputs)?;
    // Said once this candor is sure to run (another may hold the Run).
    session::warn_about(&test_dir);
    Ok(Launched {
        plan,
        session,
        test_dir,
    })
}

/// An interrupted battery: its Run, its plan, the same file, on the host
/// that made it.
pub fn resume(file: &Path, history: Option<&HistoryFlags>) -> anyhow::Result<Launched> {
    let mut recorder = Recorder::resume(file)?;
    let run = recorder.run_mut();
    if run.status == RunStatus::Complete {
        return Err(usage(format!(
            "--resume {}: this Run is already complete",
            file.display()
        )));
    }
    let plan: BatteryPlan = run
        .plan
        .clone()
        .and_then(|p| serde_json::from_value(p).ok())
        .ok_or_else(|| {
            usage(format!(
                "--resume {}: no battery plan in this Run (it was not made by candor run)",
                file.display()
            ))
        })?;
    // The stored plan passes the same checks as a new one, before anything runs.
    super::plan::check(&plan, crate::host::memory::available_bytes())?;
    run.notes.push(format!(
        "resumed at {} with {} of {} steps done",
        crate::units::now_rfc3339(),
        plan.steps().len() - runner::steps_left(&plan, run),
        plan.steps().len()
    ));
    let here = crate::host::uname::hostname().unwrap_or_default();
    if let Some(there) = run.host.hostname.as_deref().filter(|h| *h != here) {
        return Err(usage(format!(
            "--resume {}: this Run was made on host '{there}', this is '{here}': one Run holds one host",
            file.display()
        )));
    }
    // Opening the directory removes the test files the interrupted run left.
    let test_dir = TestDir::open(Path::new(&plan.dir))
        .with_context(|| format!("--resume {}: the Run's test directory", file.display()))?;
    session::warn_about(&test_dir);
    recorder.run_mut().notes.extend(test_dir.notes().cloned());
    Ok(Launched {
        plan,
        session: Session::of(recorder, history),
        test_dir,
    })
}

/// `candor-<hostname>-<20261130T064950Z>.json`, with the hostname made safe for a file name.
pub fn default_output_name(hostname: Option<&str>, rfc3339: &str) -> String {
    let host = crate::output::file_name_part(hostname.unwrap_or("host"));
    let stamp: String = rfc3339.chars().filter(|c| *c != '-' && *c != ':').collect();
    format!("candor-{host}-{stamp}.json")
}

#[cfg(test)]
mod tests {
    use super::default_output_name;

    #[test]
    fn output_names() {
        assert_eq!(
            default_output_name(Some("web 1/a"), "2026-11-30T06:49:50Z"),
            "candor-web_1_a-20261130T064950Z.json"
        );
        assert_eq!(
            default_output_name(None, "2026-01-02T03:04:05Z"),
            "candor-host-20260102T030405Z.json"
        );
    }
}
