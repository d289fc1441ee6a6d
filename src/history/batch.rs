//! `history add` of many Run files: every file checked before anything is
//! stored (a bad one adds nothing), then added in batches of `ADD_BATCH`,
//! each one transaction, so that a signal stops between two and the error
//! says how far the add got. An add that fits in one batch keeps what it
//! read; a larger one reads each file again when its batch comes, instead
//! of holding them all. The words are `report::history::added_text`'s.

use super::add::{refusal, Incoming};
use super::schema::Open;
use super::{drift, History, ADD_BATCH};
use crate::error::usage;
use crate::result::{Finding, Run};
use std::collections::HashSet;
use std::path::{Path, PathBuf};

/// What an add of many files did.
#[derive(Debug, Default)]
pub struct AddedFiles {
    /// Runs new to the history.
    pub new: usize,
    /// Runs it held already.
    pub old: usize,
    /// Hosts the Runs were filed under.
    pub hosts: usize,
    /// Each new Run's drift findings (when judged): its host, when it
    /// started, its hash, the findings.
    pub drift: Vec<RunDrift>,
}

/// One added Run's drift findings.
#[derive(Debug)]
pub struct RunDrift {
    pub host: String,
    pub started_at: Option<String>,
    pub hash: String,
    pub findings: Vec<Finding>,
}

/// "1 Run was added", "0 Runs were added": how far an add got, in words.
pub fn runs_added(n: usize) -> String {
    match n {
        1 => "1 Run was added".to_string(),
        n => format!("{n} Runs were added"),
    }
}

/// Reads and checks one Run file: a usage error naming the file otherwise.
fn read(path: &Path, host: Option<&str>) -> anyhow::Result<(String, Run)> {
    let text = crate::input::read_text(path).map_err(|e| usage(e.to_string()))?;
    let run = crate::result::parse_run(&text, path)?;
    if let Some(why) = refusal(&run, host) {
        return Err(usage(format!("{}: {why}", path.display())));
    }
    Ok((text, run))
}

/// Adds `files` to the history at `db` (created if need be), filed under
/// `host` when given; with `judge_drift`, each new Run's drift findings
/// are returned.
pub fn add_files(
    db: &Path,
    files: &[PathBuf],
    host: Option<&str>,
    judge_drift: bool,
) -> anyhow::Result<AddedFiles> {
    let one_batch = files.len() <= ADD_BATCH;
    let mut kept = Vec::new();
    for f in files {
        crate::cancel::check()?;
        let loaded = read(f, host)?;
        if one_batch {
            kept.push(loaded);
        }
    }
    let mut store = History::open(db, Open::Create)?;
    let mut out = AddedFiles::default();
    let mut hosts: HashSet<String> = HashSet::new();
    for chunk in files.chunks(ADD_BATCH) {
        // Each batch is one transaction: a signal stops between two, and
        // says how far the add got.
        if let Err(stop) = crate::cancel::check() {
            return Err(anyhow::Error::from(stop).context(format!(
                "{} before the signal; run the command again to add the rest",
                runs_added(out.new)
            )));
        }
        let loaded: Vec<(String, Run)> = if one_batch {
            std::mem::take(&mut kept)
        } else {
            chunk
                .iter()
                .map(|f| {
                    read(f, host).map_err(|e| {
                        anyhow::anyhow!("{e:#} (changed while being added; {} before it, run the command again to add the rest)", runs_added(out.new))
                    })
                })
                .collect::<anyhow::Result<_>>()?
        };
        let read_back: Vec<(String, Run, String)> = loaded
            .into_iter()
            .zip(chunk)
            .map(|((text, run), f)| {
                let from = std::path::absolute(f).unwrap_or_else(|_| f.clone());
                (text, run, from.display().to_string())
            })
            .collect();
        let batch: Vec<Incoming> = read_back
            .iter()
            .map(|(text, run, from)| Incoming {
                run,
                text,
                from: Some(from),
                host,
            })
            .collect();
        let added = store.add_batch(&batch).map_err(|e| {
            if out.new > 0 {
                e.context(format!(
                    "{} before this; run the command again to add the rest",
                    runs_added(out.new)
                ))
            } else {
                e
            }
        })?;
        for (result, (_, run, _)) in added.iter().zip(&read_back) {
            hosts.insert(result.host.clone());
            if !result.new {
                out.old += 1;
                continue;
            }
            out.new += 1;
            if !judge_drift {
                continue;
            }
            out.drift.push(RunDrift {
                host: result.host.clone(),
                started_at: run.started_at.clone(),
                hash: result.hash.clone(),
                findings: drift::for_run(&store, run, host)?,
            });
        }
    }
    out.hosts = hosts.len();
    Ok(out)
}
