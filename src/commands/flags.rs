//! Flag groups that several commands share, one struct each (flattened
//! into a command's `Args`), so that a flag means and says the same
//! everywhere: `PrintTo` (`-o FILE`, `--force`) and `UnitFlag` (`--unit`).
//! The Run file of a command that measures is `session::OutputFlags`, the
//! history `session::history::HistoryFlags`.

use crate::output::{prepare, write_streamed, write_text, Replace};
use crate::report::RateUnit;
use std::path::{Path, PathBuf};

/// Where a command's printout goes: standard output, or a file.
#[derive(Debug, Default, Clone, clap::Args)]
pub struct PrintTo {
    /// Write to this file instead of standard output.
    #[arg(long, short, value_name = "FILE")]
    pub output: Option<PathBuf>,
    /// Replace FILE if it exists (candor never overwrites a file otherwise).
    #[arg(long)]
    pub force: bool,
}

impl PrintTo {
    /// Checks the file (if any) before the work: writable, not one of
    /// `inputs`, replaced only with `--force`.
    pub fn prepare(&self, inputs: &[&Path]) -> anyhow::Result<()> {
        match &self.output {
            Some(out) => prepare(out, "--output", Replace::from_force(self.force), inputs),
            None => Ok(()),
        }
    }

    /// Writes `text` to the file, or to standard output.
    pub fn write(&self, text: &str) -> anyhow::Result<()> {
        write_text(self.output.as_deref(), text, self.force)
    }

    /// Writes what `fill` makes as it makes it: into the file (written
    /// aside, renamed at the end, as `write`), or to standard output, where
    /// a closed pipe (`| head`) ends it quietly. An error of `fill`'s own,
    /// not a write's, is returned as itself, so its exit code holds.
    pub fn stream(
        &self,
        fill: &mut dyn FnMut(&mut dyn std::io::Write) -> anyhow::Result<()>,
    ) -> anyhow::Result<()> {
        let mut failure: Option<anyhow::Error> = None;
        let mut run = |w: &mut dyn std::io::Write| -> std::io::Result<()> {
            fill(w).map_err(|e| match e.downcast::<std::io::Error>() {
                Ok(io) => io,
                Err(other) => {
                    let message = format!("{other:#}");
                    failure = Some(other);
                    std::io::Error::other(message)
                }
            })
        };
        let written = match &self.output {
            Some(path) => write_streamed(path, Replace::from_force(self.force), &mut run)
                .map_err(|e| anyhow::anyhow!("--output: cannot write: {e}")),
            None => {
                let stdout = std::io::stdout();
                let mut w = std::io::BufWriter::new(stdout.lock());
                match run(&mut w).and_then(|_| std::io::Write::flush(&mut w)) {
                    Err(e) if e.kind() == std::io::ErrorKind::BrokenPipe => Ok(()),
                    other => other.map_err(anyhow::Error::from),
                }
            }
        };
        match (written, failure) {
            (_, Some(f)) => Err(f),
            (r, None) => r,
        }
    }
}

/// The unit of byte rates in tables and charts.
#[derive(Debug, Default, Clone, Copy, clap::Args)]
pub struct UnitFlag {
    /// Unit of byte rates: MB (10^6 bytes/s) or MiB (2^20 bytes/s).
    #[arg(long, value_enum, default_value = "MB")]
    pub unit: RateUnit,
}

/// How much of a Run the text summary shows.
#[derive(Debug, Default, Clone, Copy, clap::Args)]
pub struct VerboseFlag {
    /// The text summary in full: each finding's evidence, the block stack
    /// of every measurement and every note (md, html and json always hold them).
    #[arg(long, short)]
    pub verbose: bool,
}

impl VerboseFlag {
    /// The report options it asks for (rates in MB/s).
    pub fn options(self) -> crate::report::Options {
        crate::report::Options {
            verbose: self.verbose,
            ..Default::default()
        }
    }
}
