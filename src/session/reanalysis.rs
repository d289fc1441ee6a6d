//! A Run's findings made again with the current rules (`candor analyze`):
//! old, imported or hand-made Runs, the cross-host findings of several, the
//! drift against each host's history, and, when asked, the new findings
//! stored back into each file (locked before it is read, replaced only as
//! it was read, its owner and mode kept).

use crate::error::usage;
use crate::findings::{analyze, analyze_many};
use crate::history::{self, schema::Open, History};
use crate::output::Replace;
use crate::result::{read_run, Finding, Run};
use std::path::{Path, PathBuf};

/// The Runs of `paths` analysed again.
pub struct Reanalysis {
    pub runs: Vec<Run>,
    /// Each Run's findings, in `runs`' order.
    pub findings: Vec<Vec<Finding>>,
    /// The findings across the Runs (several Runs only).
    pub cross: Vec<Finding>,
    /// Each Run against its host's earlier Runs, with `db`.
    pub drift: Vec<Vec<Finding>>,
}

/// Reads and analyses `paths`; `write` stores each Run's new findings back
/// into its file; `db` compares each with the history (not with `write`:
/// drift depends on the database, not on the Run).
pub fn reanalyse(paths: &[PathBuf], write: bool, db: Option<&Path>) -> anyhow::Result<Reanalysis> {
    if db.is_some() && write {
        return Err(usage(
            "--write stores a Run's own findings; drift depends on the history database and is not written into the Run (drop --history or --write)",
        ));
    }
    if write {
        check_write_targets(paths)?;
    }
    // With --write, each Run is locked before it is read (no other candor
    // writes it until this one is done) and only the file read is replaced.
    let mut locks = Vec::new();
    let mut read_as = Vec::new();
    let mut runs: Vec<Run> = Vec::new();
    for path in paths {
        if write {
            locks.push(crate::result::RunLock::acquire(path)?);
            read_as.push(
                crate::output::Written::of_file(path)
                    .map_err(|e| usage(format!("{}: cannot read: {e}", path.display())))?,
            );
        }
        crate::cancel::check()?;
        runs.push(read_run(path)?);
    }
    let findings: Vec<Vec<Finding>> = runs.iter().map(analyze).collect();
    let cross = if runs.len() > 1 {
        analyze_many(&runs)
    } else {
        Vec::new()
    };
    if write {
        for (((run, found), path), read) in runs.iter_mut().zip(&findings).zip(paths).zip(&read_as)
        {
            run.findings = found.clone();
            let json = crate::result::run_json(run);
            crate::output::write_run_file(path, json.as_bytes(), Replace::Own, Some(read))
                .map_err(|e| anyhow::anyhow!("--write: cannot write: {e}"))?;
        }
    }
    let drift = match db {
        Some(db) => {
            let store = History::open(db, Open::Existing)?;
            runs.iter()
                .map(|run| history::drift::for_run(&store, run, None))
                .collect::<anyhow::Result<_>>()?
        }
        None => Vec::new(),
    };
    Ok(Reanalysis {
        runs,
        findings,
        cross,
        drift,
    })
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
