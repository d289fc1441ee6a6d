//! One way to make a Run, the same for every command that measures (`run`,
//! `disk`, `disk --job`, `sweep`, `unixbench`, the compute commands):
//!
//! 1. `Session::start`: the Run file is checked and locked (`Recorder`),
//!    before anything is measured; the test directory's warnings are said
//!    only then, once this candor is sure to run (another may hold the Run);
//! 2. `measure`: the work; a failure or a signal ends the Run `failed` or
//!    `interrupted` (saved, with the cause in its notes) and is passed on;
//! 3. `finish`: the Run ends `complete`, is printed on stdout (even when its
//!    file could not take the last save: the figures are never lost), then
//!    added to the history, which never fails a measurement.
//!
//! The flags every such command shares are `OutputFlags` (the Run file) and
//! `session::history::HistoryFlags` (the history database).

pub mod fleet;
pub mod history;
pub mod reanalysis;
pub mod recorder;

use crate::disk::TestDir;
use crate::result::{Run, RunStatus};
use history::HistoryFlags;
use recorder::Recorder;
use std::path::{Path, PathBuf};

/// The directory disk tests use when none is given: on the disk (tmpfs
/// `/tmp` is RAM on many hosts) and kept across reboots on none.
pub const DEFAULT_TEST_DIR: &str = "/var/tmp";

/// `--dir`, or the default test directory.
pub fn test_dir_or_default(dir: Option<&Path>) -> PathBuf {
    dir.map_or_else(|| PathBuf::from(DEFAULT_TEST_DIR), Path::to_path_buf)
}

/// The Run file flags of a command that makes a Run.
#[derive(Debug, Default, Clone, clap::Args)]
pub struct OutputFlags {
    /// Also write the Run (JSON) to FILE, saved after every measurement.
    #[arg(long, short = 'o', value_name = "FILE")]
    pub output: Option<PathBuf>,
    /// Replace FILE if it exists (candor never overwrites a file otherwise).
    #[arg(long)]
    pub force: bool,
}

/// A new Run of this process on this host: its facts (with the storage
/// under `dir` when disks are measured) and the label the user gave.
pub fn new_run(label: Option<String>, dir: Option<&Path>) -> Run {
    let mut run = Run::of_this_process();
    run.label = label;
    run.host = crate::host::collect(dir);
    run
}

/// Says a test directory's warnings on stderr (and nothing else: the Run's
/// notes get them from `TestDir::notes`).
pub fn warn_about(dir: &TestDir) {
    for w in dir.warnings() {
        eprintln!("candor: warning: {w}");
    }
}

/// A Run being made by one command.
#[derive(Debug)]
pub struct Session {
    recorder: Recorder,
    /// Where the finished Run goes into the history; None: nowhere.
    history: Option<HistoryFlags>,
    /// Only the history's warnings and drift are said.
    quiet: bool,
}

impl Session {
    /// Starts the Run: its file (`out.output`, if any) checked and locked,
    /// saved at once as `running`. `inputs` are the files the command reads
    /// (a job file and its includes); the history database is added here.
    /// Without `history`, the Run is not added to one.
    pub fn start(
        run: Run,
        out: &OutputFlags,
        history: Option<&HistoryFlags>,
        inputs: &[PathBuf],
    ) -> anyhow::Result<Session> {
        Session::start_at(run, out.output.as_deref(), out.force, history, inputs)
    }

    /// `start` with the Run file given apart (`candor run` names one always).
    pub fn start_at(
        run: Run,
        output: Option<&Path>,
        force: bool,
        history: Option<&HistoryFlags>,
        inputs: &[PathBuf],
    ) -> anyhow::Result<Session> {
        let mut all_inputs = history.map(HistoryFlags::inputs).unwrap_or_default();
        all_inputs.extend(inputs.iter().cloned());
        let recorder = Recorder::create(run, output, "--output", force, &all_inputs)?;
        Ok(Session::of(recorder, history))
    }

    /// A session around a Recorder made otherwise (`--resume`).
    pub fn of(recorder: Recorder, history: Option<&HistoryFlags>) -> Session {
        Session {
            recorder,
            history: history.cloned(),
            quiet: false,
        }
    }

    /// Only warnings and fired drift from the history (`candor run --quiet`).
    pub fn quiet(mut self, quiet: bool) -> Session {
        self.quiet = quiet;
        self
    }

    /// The Run being made, and its file.
    pub fn recorder(&mut self) -> &mut Recorder {
        &mut self.recorder
    }

    /// Runs the work. When it fails (a signal included), the Run ends
    /// `failed` or `interrupted`, saved with the cause, and the error is
    /// passed on for `main` to turn into the exit code.
    pub fn measure<T>(
        &mut self,
        work: impl FnOnce(&mut Recorder) -> anyhow::Result<T>,
    ) -> anyhow::Result<T> {
        match work(&mut self.recorder) {
            Ok(t) => Ok(t),
            Err(e) => Err(self.recorder.stop(e)),
        }
    }

    /// Ends the Run `complete`, prints `render(&run)` on stdout, adds it to
    /// the history. The error of the last save (or of the print) comes
    /// after the print and the history, so that nothing measured is lost.
    pub fn finish(mut self, render: impl FnOnce(&Run) -> String) -> anyhow::Result<()> {
        let saved = self.recorder.finish(RunStatus::Complete);
        let file = self.recorder.output().map(Path::to_path_buf);
        let run = self.recorder.into_run();
        let printed = crate::output::write_text(None, &render(&run), false);
        if let Some(history) = &self.history {
            history.record(&run, file.as_deref(), self.quiet);
        }
        printed.and(saved)?;
        corrupted(&run)
    }

    /// The Run as it ended elsewhere (`candor run`'s rounds finish it
    /// themselves): printed and added to the history as `finish` does.
    pub fn print_and_record(self, render: impl FnOnce(&Run) -> String) -> anyhow::Result<()> {
        let file = self.recorder.output().map(Path::to_path_buf);
        let run = self.recorder.into_run();
        let printed = crate::output::write_text(None, &render(&run), false);
        if let Some(history) = &self.history {
            history.record(&run, file.as_deref(), self.quiet);
        }
        printed
    }
}

/// A Run whose verifying jobs read back other data than they wrote ends in
/// error (exit 3), as fio ends such a job, once it is saved and printed.
fn corrupted(run: &Run) -> anyhow::Result<()> {
    let (bad, jobs) = run
        .disk()
        .filter_map(|d| d.verify.as_ref())
        .filter(|v| v.blocks_bad > 0)
        .fold((0u64, 0usize), |(b, j), v| (b + v.blocks_bad, j + 1));
    if bad == 0 {
        return Ok(());
    }
    Err(anyhow::Error::new(crate::error::DataCorrupted(format!(
        "verify: {bad} block{} read back in {jobs} job{} differ from what was written (data-corrupted: the storage returned other data)",
        if bad == 1 { "" } else { "s" },
        if jobs == 1 { "" } else { "s" },
    ))))
}
