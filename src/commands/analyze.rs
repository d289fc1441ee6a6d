//! `candor analyze`: recompute the findings of one or more Runs with the
//! current rules (old, imported or hand-made Runs included) and print them;
//! with several Runs, the cross-host findings too. `--write` stores the new
//! findings back into each file (atomically, keeping its owner and mode).

use crate::error::usage;
use crate::findings::{analyze, analyze_many};
use crate::history::{self, schema::Open, History};
use crate::output::{write_text, Replace};
use crate::report::{analysis_json, analysis_text, Analysed, Format};
use crate::result::{read_run, Finding, Run};
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
    let with_history = args.history || args.db.is_some();
    if with_history && args.write {
        return Err(usage(
            "--write stores a Run's own findings; drift depends on the history database and is not written into the Run (drop --history or --write)",
        ));
    }
    if args.write {
        check_write_targets(&args.runs)?;
    }
    // With --write, each Run is locked before it is read (no other candor
    // writes it until this one is done) and only the file read is replaced.
    let mut locks = Vec::new();
    let mut read_as = Vec::new();
    let mut runs: Vec<Run> = Vec::new();
    for path in &args.runs {
        if args.write {
            locks.push(crate::result::RunLock::acquire(path)?);
            read_as.push(
                crate::output::Written::of_file(path)
                    .map_err(|e| usage(format!("{}: cannot read: {e}", path.display())))?,
            );
        }
        crate::cancel::check()?;
        runs.push(read_run(path)?);
    }
    let per_run: Vec<Vec<Finding>> = runs.iter().map(analyze).collect();
    let cross = if runs.len() > 1 {
        analyze_many(&runs)
    } else {
        Vec::new()
    };

    if args.write {
        for (((run, findings), path), read) in
            runs.iter_mut().zip(&per_run).zip(&args.runs).zip(&read_as)
        {
            run.findings = findings.clone();
            let json = crate::result::run_json(run);
            crate::output::write_run_file(path, json.as_bytes(), Replace::Own, Some(read))
                .map_err(|e| anyhow::anyhow!("--write: cannot write: {e}"))?;
        }
    }

    let db = if with_history {
        Some(crate::commands::history::database(&args.db)?)
    } else {
        None
    };
    let drift: Vec<Vec<Finding>> = match &db {
        Some(db) => {
            let store = History::open(db, Open::Existing)?;
            runs.iter()
                .map(|run| history::drift::for_run(&store, run, None))
                .collect::<anyhow::Result<_>>()?
        }
        None => Vec::new(),
    };
    let analysed: Vec<Analysed> = runs
        .iter()
        .zip(&per_run)
        .zip(&args.runs)
        .enumerate()
        .map(|(i, ((run, findings), file))| Analysed {
            file,
            run,
            findings,
            history: db.as_deref().zip(drift.get(i).map(Vec::as_slice)),
        })
        .collect();
    let text = match args.format {
        Format::Json => analysis_json(&analysed, &cross),
        _ => analysis_text(&analysed, &cross),
    };
    write_text(None, &text, false)
}

/// `--write` replaces each file once, and only a regular file: a Run given
/// twice (by one name or two) would be locked against itself, and a
/// symbolic link is not replaced (the file it names is).
fn check_write_targets(runs: &[PathBuf]) -> anyhow::Result<()> {
    for (i, path) in runs.iter().enumerate() {
        if let Some(earlier) = runs[..i]
            .iter()
            .find(|e| crate::output::same_place(e, path))
        {
            return Err(usage(format!(
                "--write: {} is given twice (also as {}); each Run is written once",
                path.display(),
                earlier.display()
            )));
        }
        if std::fs::symlink_metadata(path).is_ok_and(|m| m.file_type().is_symlink()) {
            let target = std::fs::canonicalize(path)
                .map(|t| format!(" (give the file it points to, {})", t.display()))
                .unwrap_or_default();
            return Err(usage(format!(
                "--write: {} is a symbolic link; --write replaces only regular files{target}",
                path.display()
            )));
        }
    }
    Ok(())
}
