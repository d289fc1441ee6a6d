//! The one place a finished Run goes into the history: the `--no-history`
//! and `--db` flags that every command making a Run shares (`run`, `disk`,
//! `sweep`, `import`, `fleet run`), and `HistoryFlags::record`, called once
//! the Run is finished and saved.
//!
//! Adding never makes a measurement fail: the Run file is the source of
//! truth, so a history that cannot be written (locked, damaged, a newer
//! candor's, no home directory) costs one warning on stderr and exit code 0;
//! `candor history add RUN.json` adds the file later.

use crate::history::{self, drift, query, schema::Open, History, Incoming};
use crate::result::Run;
use std::path::{Path, PathBuf};

/// The history flags of a command that makes a Run.
#[derive(Debug, Default, Clone, clap::Args)]
pub struct HistoryFlags {
    /// Do not add the Run to the history database. CANDOR_NO_HISTORY=1 does
    /// the same for the default database (an explicit --db still adds).
    #[arg(long)]
    pub no_history: bool,
    /// The history database (default: $XDG_DATA_HOME/candor/history.db,
    /// else ~/.local/share/candor/history.db).
    #[arg(long, value_name = "PATH")]
    pub db: Option<PathBuf>,
}

/// A history database and the files SQLite keeps beside it.
pub fn database_files(db: &Path) -> Vec<PathBuf> {
    let mut files = vec![db.to_path_buf()];
    for suffix in ["-wal", "-shm", "-journal"] {
        let mut name = db.as_os_str().to_os_string();
        name.push(suffix);
        files.push(PathBuf::from(name));
    }
    files
}

/// True when `CANDOR_NO_HISTORY` is set to anything but empty or `0`.
fn disabled_by_env() -> bool {
    std::env::var("CANDOR_NO_HISTORY").is_ok_and(|v| !v.trim().is_empty() && v.trim() != "0")
}

impl HistoryFlags {
    /// The database to add to, or None when adding is off.
    pub fn target(&self) -> Option<Option<PathBuf>> {
        if self.no_history {
            return None;
        }
        match &self.db {
            Some(p) => Some(Some(p.clone())),
            None if disabled_by_env() => None,
            None => Some(history::default_path()),
        }
    }

    /// The files of the database a Run would be added to (the database and
    /// its `-wal`, `-shm` and `-journal`): inputs, never an output.
    pub fn inputs(&self) -> Vec<PathBuf> {
        match self.target() {
            Some(Some(db)) => database_files(&db),
            _ => Vec::new(),
        }
    }

    /// Adds a finished `run` (saved at `file`, if any) to the history and
    /// says so on stderr, with any drift it shows. Never fails: a history
    /// that cannot be written is one warning line. `quiet` keeps only the
    /// warnings and the drift that fired.
    pub fn record(&self, run: &Run, file: Option<&Path>, quiet: bool) {
        let Some(target) = self.target() else { return };
        let Some(path) = target else {
            eprintln!("candor: warning: history: neither XDG_DATA_HOME nor HOME is set: the Run was not added (--db PATH chooses a database, --no-history silences this)");
            return;
        };
        match add_and_judge(&path, run, file) {
            Ok(lines) => {
                for (important, line) in lines {
                    if important || !quiet {
                        eprintln!("candor: history: {}", crate::error::printable(&line));
                    }
                }
            }
            Err(e) => {
                let kept = match file {
                    Some(f) => format!(
                        "; the Run is kept in {} (candor history add {} adds it later)",
                        f.display(),
                        f.display()
                    ),
                    None => String::new(),
                };
                eprintln!(
                    "candor: warning: history: the Run was not added: {}{kept}",
                    format!("{e:#}").replace('\n', " ")
                );
            }
        }
    }
}

/// Adds the Run and returns the lines to print: (important, text).
fn add_and_judge(
    path: &Path,
    run: &Run,
    file: Option<&Path>,
) -> anyhow::Result<Vec<(bool, String)>> {
    if let Some(why) = history::add::refusal(run, None) {
        anyhow::bail!("{why}");
    }
    let mut store = History::open(path, Open::Create)?;
    let text = crate::result::run_json(run);
    let from = file.map(|f| std::path::absolute(f).unwrap_or_else(|_| f.to_path_buf()));
    let from = from.as_ref().map(|f| f.display().to_string());
    let added = store.add(&Incoming {
        run,
        text: &text,
        from: from.as_deref(),
        host: None,
    })?;
    let mut lines = Vec::new();
    if !added.new {
        lines.push((
            false,
            format!("already in {} (Run {})", path.display(), &added.hash[..12]),
        ));
        return Ok(lines);
    }
    let started = history::add::started_unix(run).unwrap_or(0);
    let earlier =
        query::runs_before(store.conn(), &added.host, started).map_err(|e| store.error(e))?;
    lines.push((
        false,
        format!(
            "added to {} as Run {} of host '{}' ({earlier} earlier Runs)",
            path.display(),
            &added.hash[..12],
            added.host
        ),
    ));
    let findings = drift::for_run(&store, run, None)?;
    lines.extend(crate::report::history::drift_lines(&findings));
    Ok(lines)
}
