//! `candor history`: add Run files, list hosts and Runs, show a host's
//! latest figures against its usual range, follow one figure over time,
//! export every figure, render the whole history as one HTML page, and get
//! a stored Run back byte for byte. One file per subcommand; the store is
//! `history::History`, the reading commands `report::history_pages`.

mod add;
mod export;
mod filter;
mod get;
mod list;
mod page;
mod show;
mod trend;

use super::flags::PrintTo;
use crate::error::usage;
pub use filter::FilterArgs;
use std::path::{Path, PathBuf};

/// Flags of `candor history`.
#[derive(Debug, clap::Args)]
pub struct Args {
    /// The history database (default: $XDG_DATA_HOME/candor/history.db,
    /// else ~/.local/share/candor/history.db).
    #[arg(long, value_name = "PATH", global = true)]
    pub db: Option<PathBuf>,
    #[command(subcommand)]
    pub command: Sub,
}

#[derive(Debug, clap::Subcommand)]
pub enum Sub {
    /// Add Run files (made by candor run, disk, sweep, import or by hand).
    ///
    /// Every file is checked first: one that is not a Run adds nothing. A Run
    /// already stored (the same content, whatever its findings or layout) is skipped.
    Add(add::AddArgs),
    /// List the hosts and their Runs.
    List(list::ListArgs),
    /// A host's latest key figures beside the median and range of its earlier Runs.
    Show(show::ShowArgs),
    /// One figure of a host over time: a sparkline and a table, or an SVG chart.
    Trend(trend::TrendArgs),
    /// Every figure, one row each, with its host, time and workload key.
    Export(export::ExportArgs),
    /// The whole history as one self-contained HTML page: hosts, trends, latest findings.
    Report(page::ReportArgs),
    /// Print a stored Run's JSON exactly as it was added.
    Get(get::GetArgs),
}

/// The database: `--db`, else the default path.
pub fn database(db: &Option<PathBuf>) -> anyhow::Result<PathBuf> {
    db.clone()
        .or_else(crate::history::default_path)
        .ok_or_else(|| {
            usage("neither XDG_DATA_HOME nor HOME is set: choose the database with --db PATH")
        })
}

pub fn execute(args: Args) -> anyhow::Result<()> {
    let db = database(&args.db)?;
    match args.command {
        Sub::Add(a) => add::execute(&db, a),
        Sub::List(a) => list::execute(&db, a),
        Sub::Show(a) => show::execute(&db, a),
        Sub::Trend(a) => trend::execute(&db, a),
        Sub::Export(a) => export::execute(&db, a),
        Sub::Report(a) => page::execute(&db, a),
        Sub::Get(a) => get::execute(&db, a),
    }
}

/// Checks `--output` before the work: never the database or its journal.
fn prepare(to: &PrintTo, db: &Path) -> anyhow::Result<()> {
    let inputs = crate::session::history::database_files(db);
    let inputs: Vec<&Path> = inputs.iter().map(PathBuf::as_path).collect();
    to.prepare(&inputs)
}
