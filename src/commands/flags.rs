//! Flag groups that several commands share, one struct each (flattened
//! into a command's `Args`), so that a flag means and says the same
//! everywhere: `PrintTo` (`-o FILE`, `--force`) and `UnitFlag` (`--unit`).
//! The Run file of a command that measures is `session::OutputFlags`, the
//! history `session::history::HistoryFlags`.

use crate::output::{prepare, write_text, Replace};
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
