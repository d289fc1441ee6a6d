//! `candor analyze`: recompute the findings of one or more Runs with the
//! current rules (old, imported or hand-made Runs included) and print them;
//! with several Runs, the cross-host findings too. `--write` stores the new
//! findings back into each file (atomically, keeping its owner and mode).
//! The work is `session::reanalysis`; the layout `report::analysis`.

use crate::output::write_text;
use crate::report::{analysis_json, analysis_text, Analysed, Format};
use std::path::PathBuf;

/// Flags of `candor analyze`.
#[derive(Debug, clap::Args)]
pub struct Args {
    /// Run files (JSON written by candor run/disk/sweep/import).
    #[arg(required = true, value_name = "RUN.json")]
    pub runs: Vec<PathBuf>,
    /// Output format: text or json (candor report renders md, csv and html).
    #[arg(long, value_parser = Format::only(&[Format::Text, Format::Json]), default_value = "text")]
    pub format: Format,
    /// Store the recomputed findings back into each Run file.
    #[arg(long)]
    pub write: bool,
    /// Also compare each Run with its host's earlier Runs in the history
    /// (the regressed and improved findings; the Run itself is left out).
    #[arg(long)]
    pub history: bool,
    /// The history database for --history, which it implies (default:
    /// $XDG_DATA_HOME/candor/history.db, else ~/.local/share/candor/history.db).
    #[arg(long, value_name = "PATH")]
    pub db: Option<PathBuf>,
}

pub fn execute(args: Args) -> anyhow::Result<()> {
    let db = if args.history || args.db.is_some() {
        Some(crate::commands::history::database(&args.db)?)
    } else {
        None
    };
    let again = crate::session::reanalysis::reanalyse(&args.runs, args.write, db.as_deref())?;
    let analysed: Vec<Analysed> = again
        .runs
        .iter()
        .zip(&again.findings)
        .zip(&args.runs)
        .enumerate()
        .map(|(i, ((run, findings), file))| Analysed {
            file,
            run,
            findings,
            history: db.as_deref().zip(again.drift.get(i).map(Vec::as_slice)),
        })
        .collect();
    let text = match args.format {
        Format::Json => analysis_json(&analysed, &again.cross),
        _ => analysis_text(&analysed, &again.cross),
    };
    write_text(None, &text, false)
}
