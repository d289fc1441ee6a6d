//! The life of a Run being made, the same for every command that measures
//! (`run`, `disk`, `sweep`, the compute commands):
//!
//! 1. `create`: the output is checked (one line, exit 2, before anything is
//!    measured) and locked, so that no other candor writes the same Run; the
//!    Run is saved at once, status `running`;
//! 2. `add`: each finished measurement is saved at once (atomically), so an
//!    interruption or a crash loses at most the measurement in progress;
//! 3. `finish`: the status and end time are set, the findings computed, the
//!    Run saved a last time.
//!
//! Without an output file the same steps happen in memory only.

use crate::output::{self, Replace};
use crate::result::{Measurement, Run, RunLock, RunStatus};
use anyhow::Context;
use std::path::{Path, PathBuf};

/// A Run being made, and the file it is saved to.
#[derive(Debug)]
pub struct Recorder {
    run: Run,
    output: Option<PathBuf>,
    /// Held until the Recorder is dropped: no other candor writes this Run.
    _lock: Option<RunLock>,
    /// How an existing file at `output` may be replaced by the next save.
    replace: Replace,
}

impl Recorder {
    /// Starts recording `run`, saved to `output` when given. `force` lets an
    /// existing file at `output` be replaced; `flag` names the option in errors.
    pub fn create(
        run: Run,
        output: Option<&Path>,
        flag: &str,
        force: bool,
    ) -> anyhow::Result<Recorder> {
        let replace = Replace::from_force(force);
        let lock = match output {
            Some(path) => {
                if !output::parent_dir(path).is_dir() {
                    // Named as the flag's problem, not as a lock file that cannot be made.
                    output::check(path, flag, replace, &[])?;
                }
                // Locked before the check: two candors given one name cannot both
                // pass it, and the second hears that the first is writing it.
                let lock = RunLock::acquire(path)?;
                output::check(path, flag, replace, &[])?;
                Some(lock)
            }
            None => None,
        };
        let mut recorder = Recorder {
            run,
            output: output.map(Path::to_path_buf),
            _lock: lock,
            replace,
        };
        recorder.save()?;
        Ok(recorder)
    }

    /// Carries on with a Run file that stopped before it was complete
    /// (`--resume`): locked, read, and saved in place from now on.
    pub fn resume(path: &Path) -> anyhow::Result<Recorder> {
        // A missing file is named as such, not as a lock file that cannot be made.
        std::fs::metadata(path)
            .map_err(|e| crate::error::usage(format!("{}: cannot read: {e}", path.display())))?;
        let lock = RunLock::acquire(path)?;
        let run = crate::result::read_run(path)?;
        Ok(Recorder {
            run,
            output: Some(path.to_path_buf()),
            _lock: Some(lock),
            replace: Replace::Own,
        })
    }

    /// The Run as recorded so far.
    pub fn run(&self) -> &Run {
        &self.run
    }

    /// The Run, to add notes or facts (call `save` to keep them).
    pub fn run_mut(&mut self) -> &mut Run {
        &mut self.run
    }

    /// The file the Run is saved to, if any.
    pub fn output(&self) -> Option<&Path> {
        self.output.as_deref()
    }

    /// Writes the Run to its file (atomically), if it has one.
    pub fn save(&mut self) -> anyhow::Result<()> {
        let Some(path) = &self.output else {
            return Ok(());
        };
        crate::result::write_run(&self.run, path, self.replace)
            .with_context(|| "cannot write the Run".to_string())?;
        // From now on the file at `output` is this Run's own.
        self.replace = Replace::Own;
        Ok(())
    }

    /// Adds a finished measurement and saves at once.
    pub fn add(&mut self, measurement: Measurement) -> anyhow::Result<()> {
        self.run.measurements.push(measurement);
        self.save()
    }

    /// Ends the Run: status, end time, findings, a last save.
    pub fn finish(&mut self, status: RunStatus) -> anyhow::Result<()> {
        self.run.status = status;
        self.run.finished_at = Some(crate::units::now_rfc3339());
        self.run.findings = crate::findings::analyze(&self.run);
        self.save()
    }

    /// The status for a Run stopped by `error`: interrupted by a signal, else failed.
    pub fn stopped_status() -> RunStatus {
        if crate::cancel::cancelled() {
            RunStatus::Interrupted
        } else {
            RunStatus::Failed
        }
    }

    /// Records why the Run stopped and finishes it as failed or interrupted.
    /// The original error is returned for the caller to pass on.
    pub fn stop(&mut self, error: anyhow::Error) -> anyhow::Error {
        self.run.notes.push(format!("stopped: {error:#}"));
        if let Err(save) = self.finish(Self::stopped_status()) {
            return error.context(format!("and the Run could not be saved: {save:#}"));
        }
        error
    }

    /// The finished Run.
    pub fn into_run(self) -> Run {
        self.run
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn saves_at_each_step_and_refuses_an_existing_file() {
        let dir = tempfile::tempdir().unwrap();
        let out = dir.path().join("r.json");
        let mut rec =
            Recorder::create(Run::new(vec!["candor".into()]), Some(&out), "-o", false).unwrap();
        assert_eq!(
            crate::result::read_run(&out).unwrap().status,
            RunStatus::Running
        );
        // A second candor on the same file is refused while this one holds it.
        let e = Recorder::create(Run::new(vec![]), Some(&out), "-o", true).unwrap_err();
        assert!(crate::error::is_usage(&e), "{e}");
        rec.finish(RunStatus::Complete).unwrap();
        let saved = crate::result::read_run(&out).unwrap();
        assert_eq!(saved.status, RunStatus::Complete);
        assert!(saved.findings.iter().any(|f| f.id == "claims"));
        drop(rec);
        let e = Recorder::create(Run::new(vec![]), Some(&out), "-o", false).unwrap_err();
        assert!(e.to_string().contains("the file exists"), "{e}");
        assert!(Recorder::create(Run::new(vec![]), Some(&out), "-o", true).is_ok());
    }
}
