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
//!
//! Two things can still go wrong at the end, and neither may pass silently:
//!
//! - The filesystem holding the Run fills (another program's files). After
//!   each save the Recorder keeps room beside the Run (`output::Reserve`:
//!   allocated in advance, about twice the Run's size), so that when a save
//!   finds no space, the Run is saved one last time there, with status
//!   `failed` and a note saying why. Where even that fails, the error says
//!   what the file holds: when it was last saved, its status, how many
//!   measurements.
//! - candor cannot remove one of its own files (a filesystem that turned
//!   read-only). `finish` records each such file in the notes and ends a
//!   Run that would have been `complete` as `failed`: every measurement is
//!   kept, but a file was left on the user's disk, and a filesystem that
//!   refuses an unlink has usually gone read-only after an I/O error, so the
//!   figures taken near it are suspect. The command then exits 1 (see
//!   `leftovers::LeftBehind`).
//!
//! Before the first save the output's directory is searched for
//! temporaries that killed candors left there (`leftovers`).

use crate::leftovers::LeftBehind;
use crate::output::{self, Replace, Reserve};
use crate::result::{Measurement, Run, RunLock, RunStatus};
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
    /// Room for the last save when the filesystem fills.
    reserve: Option<Reserve>,
    /// What the file held after the last save that succeeded.
    saved: Option<Saved>,
    /// The file as this process last wrote it: the only one a save replaces.
    last: Option<output::Written>,
    /// Set once the Run was saved a last time from the reserve: the file
    /// can take no more, and this says what it holds.
    ended: Option<String>,
}

/// The second signal's save of a Run still running (see `crate::cancel`):
/// as it was last saved, `interrupted`, with a note; only over the file
/// this process wrote. A save of an ended Run leaves no last words.
fn last_words(mut run: Run, path: PathBuf, last: output::Written) -> crate::cancel::LastWords {
    Box::new(move || {
        run.status = RunStatus::Interrupted;
        run.finished_at = Some(crate::units::now_rfc3339());
        run.notes.push(
            "interrupted twice: stopped at once, the test in progress is not recorded".to_string(),
        );
        let json = crate::result::run_json(&run).into_bytes();
        match output::write_run_file(&path, &json, Replace::Own, Some(&last)) {
            Ok(_) => format!(
                "{}: saved as interrupted, {} measurement(s)",
                crate::error::printable(&path.display().to_string()),
                run.measurements.len()
            ),
            Err(e) => format!("the Run could not be saved as interrupted: {e}"),
        }
    })
}

/// What a Run file held after a save.
#[derive(Debug, Clone)]
struct Saved {
    at: String,
    status: RunStatus,
    measurements: usize,
}

impl Saved {
    fn of(run: &Run) -> Saved {
        Saved {
            at: crate::units::now_rfc3339(),
            status: run.status,
            measurements: run.measurements.len(),
        }
    }
}

impl Recorder {
    /// Starts recording `run`, saved to `output` when given. `force` lets an
    /// existing file at `output` be replaced; `flag` names the option in
    /// errors; `inputs` are the files the command reads (the history
    /// database, a job file and its includes), never an output, `--force` or not.
    pub fn create(
        run: Run,
        output: Option<&Path>,
        flag: &str,
        force: bool,
        inputs: &[PathBuf],
    ) -> anyhow::Result<Recorder> {
        let inputs: Vec<&Path> = inputs.iter().map(PathBuf::as_path).collect();
        let replace = Replace::from_force(force);
        let lock = match output {
            Some(path) => {
                // What the path is (a directory, a device, a symlink, a name
                // too long) is checked before the lock file is made beside it
                // (a bad -o is the flag's problem, and nothing is created
                // beside /dev/null); whether an existing file may be replaced,
                // once the lock is held: two candors given one name cannot
                // both pass, and the second hears that the first is writing it.
                output::check(path, flag, Replace::Force, &inputs)?;
                let lock = RunLock::acquire(path)?;
                output::check(path, flag, replace, &inputs)?;
                Some(lock)
            }
            None => None,
        };
        let mut run = run;
        if let Some(path) = output {
            run.notes.extend(output::recover_beside(path));
        }
        let mut recorder = Recorder::new(run, output, lock, replace);
        recorder.save()?;
        Ok(recorder)
    }

    fn new(run: Run, output: Option<&Path>, lock: Option<RunLock>, replace: Replace) -> Recorder {
        Recorder {
            run,
            output: output.map(Path::to_path_buf),
            _lock: lock,
            replace,
            reserve: None,
            saved: None,
            last: None,
            ended: None,
        }
    }

    /// Carries on with a Run file that stopped before it was complete
    /// (`--resume`): locked, read, and saved in place from now on. The
    /// temporaries its killed predecessor left beside it are removed.
    pub fn resume(path: &Path) -> anyhow::Result<Recorder> {
        // A missing file is named as such, not as a lock file that cannot be made.
        std::fs::metadata(path)
            .map_err(|e| crate::error::usage(format!("{}: cannot read: {e}", path.display())))?;
        // A Run in a directory candor may not write (read-only, immutable)
        // is said now, as for -o, not at the first save.
        output::check(path, "--resume", Replace::Force, &[])?;
        let lock = RunLock::acquire(path)?;
        let mut run = crate::result::read_run(path)?;
        run.notes.extend(output::recover_beside(path));
        let mut recorder = Recorder::new(run, Some(path), Some(lock), Replace::Own);
        recorder.last = Some(
            output::Written::of_file(path)
                .map_err(|e| anyhow::anyhow!("{}: cannot read: {e}", path.display()))?,
        );
        let mut saved = Saved::of(&recorder.run);
        // It was saved when its predecessor last wrote it.
        if let Some(at) = std::fs::metadata(path)
            .and_then(|m| m.modified())
            .ok()
            .and_then(|t| t.duration_since(std::time::UNIX_EPOCH).ok())
        {
            saved.at = crate::units::rfc3339_utc(at.as_secs());
        }
        recorder.saved = Some(saved);
        Ok(recorder)
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

    /// Writes the Run to its file (atomically), if it has one. When the
    /// filesystem is full, the Run is saved a last time in the room kept
    /// for it (see the module comment); the error then says so, or says
    /// what the file still holds.
    pub fn save(&mut self) -> anyhow::Result<()> {
        let Some(path) = self.output.clone() else {
            return Ok(());
        };
        if let Some(ended) = &self.ended {
            return Err(anyhow::anyhow!("{ended}"));
        }
        let json = crate::result::run_json(&self.run).into_bytes();
        let written = crate::cancel::saving(
            || output::write_run_file(&path, &json, self.replace, self.last.as_ref()),
            |written| {
                let written = written.as_ref().ok()?;
                (self.run.status == RunStatus::Running)
                    .then(|| last_words(self.run.clone(), path.clone(), written.clone()))
            },
        );
        match written {
            Ok(written) => {
                self.saved_now(written);
                self.keep_room(&path, json.len() as u64);
                Ok(())
            }
            Err(e) if output::kept(&e).is_some() => self.moved_beside(&e),
            Err(e) if no_space(&e) => self.save_last(&path, e),
            Err(e) => Err(self.unsaved(&path, e)),
        }
    }

    /// Another file took the Run's name during the work (`output::Kept`):
    /// that file stays, the Run was saved beside it, and from now on it is
    /// saved there. One warning, and a note in the Run.
    fn moved_beside(&mut self, e: &std::io::Error) -> anyhow::Result<()> {
        let kept = output::kept(e).expect("a Kept error");
        eprintln!("candor: warning: {kept}");
        self.output = Some(kept.kept.clone());
        self.saved_now(kept.written.clone());
        self.run.notes.push(format!("{kept}"));
        self.save()
    }

    fn saved_now(&mut self, written: output::Written) {
        // From now on the file at `output` is this Run's own.
        self.replace = Replace::Own;
        self.last = Some(written);
        self.saved = Some(Saved::of(&self.run));
    }

    /// Keeps room for a last save of a Run of about `len` bytes: twice that
    /// and 1 MiB (the findings and one more measurement), renewed as the Run
    /// grows. Where no room can be had, the old room (if any) stays.
    fn keep_room(&mut self, path: &Path, len: u64) {
        let want = len.saturating_mul(2).saturating_add(1 << 20);
        if self.reserve.as_ref().is_some_and(|r| r.size() >= want) {
            return;
        }
        if let Ok(room) = Reserve::new(path, want) {
            self.reserve = Some(room);
        }
    }

    /// The filesystem is full: the Run is saved one last time in the room
    /// kept for it. A Run being finished keeps the status it was given; one
    /// still running becomes `failed`, and no save can follow.
    fn save_last(&mut self, path: &Path, full: std::io::Error) -> anyhow::Result<()> {
        let Some(room) = self.reserve.take() else {
            return Err(self.unsaved(path, full));
        };
        let finishing = self.run.status != RunStatus::Running;
        if finishing {
            self.run.notes.push(format!(
                "the filesystem holding {} filled: the last save used the room candor kept for it",
                path.display()
            ));
        } else {
            self.run.status = RunStatus::Failed;
            self.run.finished_at = Some(crate::units::now_rfc3339());
            self.run.notes.push(format!(
                "stopped: the filesystem holding {} is full ({full}); the Run was saved a last time in the room candor kept for it",
                path.display()
            ));
            self.run.findings = crate::findings::analyze(&self.run);
        }
        let json = crate::result::run_json(&self.run).into_bytes();
        match room.write(path, &json, self.replace, self.last.as_ref()) {
            Ok(written) => self.saved_now(written),
            Err(e) => {
                return Err(self.unsaved(
                    path,
                    std::io::Error::new(e.kind(), format!("{full}; the last save failed too: {e}")),
                ))
            }
        }
        if finishing {
            eprintln!(
                "candor: warning: the filesystem holding {} is full: the Run was saved in the room candor kept for it",
                path.display()
            );
            return Ok(());
        }
        let ended = format!(
            "cannot write the Run: {full}; {} holds it as saved a last time: status failed, {} measurements",
            path.display(),
            self.run.measurements.len()
        );
        self.ended = Some(ended.clone());
        Err(anyhow::anyhow!(ended))
    }

    /// A save failed: the error, and what the file holds instead.
    fn unsaved(&self, path: &Path, e: std::io::Error) -> anyhow::Error {
        let holds = match &self.saved {
            Some(s) => format!(
                "{} holds the Run as saved at {}: status {}, {} measurements",
                path.display(),
                s.at,
                s.status.as_str(),
                s.measurements
            ),
            None => format!("nothing was saved to {}", path.display()),
        };
        anyhow::anyhow!("cannot write the Run: {e}; {holds}")
    }

    /// Adds a finished measurement and saves at once.
    pub fn add(&mut self, measurement: Measurement) -> anyhow::Result<()> {
        self.run.measurements.push(measurement);
        self.save()
    }

    /// Ends the Run: status, end time, findings, a last save. When candor
    /// could not remove one of its own files, the Run says so, a `complete`
    /// one ends `failed`, and the error after the save is `LeftBehind`.
    pub fn finish(&mut self, status: RunStatus) -> anyhow::Result<()> {
        let left = self.end(status)?;
        if left.is_empty() {
            Ok(())
        } else {
            Err(LeftBehind { lines: left }.into())
        }
    }

    /// `finish` without the `LeftBehind` error: the files left behind (already in the notes).
    fn end(&mut self, status: RunStatus) -> anyhow::Result<Vec<String>> {
        let left = crate::leftovers::take_failures();
        let mut status = status;
        for line in &left {
            self.run.notes.push(format!("cleanup failed: {line}"));
        }
        if !left.is_empty() && status == RunStatus::Complete {
            status = RunStatus::Failed;
            self.run.notes.push(
                "failed although every measurement finished: candor could not remove its own files (named above); a filesystem that refuses to remove a file has usually turned read-only after an I/O error, so figures taken near that time are suspect".to_string(),
            );
        }
        self.run.status = status;
        self.run.finished_at = Some(crate::units::now_rfc3339());
        self.run.findings = crate::findings::analyze(&self.run);
        self.save()?;
        Ok(left)
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
        if self.ended.is_some() {
            // The error is the last save's own: the Run already says why it stopped.
            return error;
        }
        self.run.notes.push(format!("stopped: {error:#}"));
        if let Err(save) = self.end(Self::stopped_status()) {
            return error.context(format!("and the Run could not be saved: {save:#}"));
        }
        error
    }

    /// The finished Run.
    pub fn into_run(self) -> Run {
        self.run
    }
}

/// No room on the filesystem (or in the user's quota).
/// (ENOSPC and EDQUOT on Linux, ERROR_DISK_FULL on Windows: std's kinds.)
fn no_space(e: &std::io::Error) -> bool {
    let full = |k| {
        matches!(
            k,
            std::io::ErrorKind::StorageFull | std::io::ErrorKind::QuotaExceeded
        )
    };
    full(e.kind())
        || output::os_error(e).is_some_and(|c| full(std::io::Error::from_raw_os_error(c).kind()))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn saves_at_each_step_and_refuses_an_existing_file() {
        let dir = tempfile::tempdir().unwrap();
        let out = dir.path().join("r.json");
        let mut rec = Recorder::create(
            Run::new(vec!["candor".into()]),
            Some(&out),
            "-o",
            false,
            &[],
        )
        .unwrap();
        assert_eq!(
            crate::result::read_run(&out).unwrap().status,
            RunStatus::Running
        );
        // A second candor on the same file is refused while this one holds it.
        let e = Recorder::create(Run::new(vec![]), Some(&out), "-o", true, &[]).unwrap_err();
        assert!(crate::error::is_usage(&e), "{e}");
        rec.finish(RunStatus::Complete).unwrap();
        let saved = crate::result::read_run(&out).unwrap();
        assert_eq!(saved.status, RunStatus::Complete);
        assert!(saved.findings.iter().any(|f| f.id == "claims"));
        drop(rec);
        let e = Recorder::create(Run::new(vec![]), Some(&out), "-o", false, &[]).unwrap_err();
        assert!(e.to_string().contains("the file exists"), "{e}");
        assert!(Recorder::create(Run::new(vec![]), Some(&out), "-o", true, &[]).is_ok());
    }

    /// A file candor could not remove ends a complete Run failed, says so
    /// in the notes, and is the error after the save.
    #[test]
    fn a_file_left_behind_fails_the_run() {
        let dir = tempfile::tempdir().unwrap();
        let out = dir.path().join("r.json");
        let mut rec = Recorder::create(
            Run::new(vec!["candor".into()]),
            Some(&out),
            "-o",
            false,
            &[],
        )
        .unwrap();
        let stuck = dir.path().join(".candor-disk-1-2-0.tmp");
        let erofs = std::io::Error::from_raw_os_error(libc::EROFS);
        crate::leftovers::removal_failed("test file", &stuck, &erofs);
        let e = rec.finish(RunStatus::Complete).unwrap_err();
        assert!(e.is::<LeftBehind>(), "{e}");
        assert!(e.to_string().contains(&stuck.display().to_string()), "{e}");
        let saved = crate::result::read_run(&out).unwrap();
        assert_eq!(saved.status, RunStatus::Failed);
        assert!(saved
            .notes
            .iter()
            .any(|n| n.starts_with("cleanup failed: cannot remove test file")));
    }
}
