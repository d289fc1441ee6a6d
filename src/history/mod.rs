//! The history: every Run candor makes or imports, kept in one SQLite file
//! (`$XDG_DATA_HOME/candor/history.db`, else `~/.local/share/candor/history.db`,
//! or `--db PATH`), so that a host can be followed over months and years:
//! how did it change, and is today's figure within its usual range?
//!
//! Each Run's JSON is stored unchanged (it is the source of truth) beside
//! query tables (hosts, runs, one row per figure under a stable workload
//! key, findings). One concept per file: `schema` (tables, migrations,
//! opening), `file` (what the database file may be, checked on descriptors
//! before and after SQLite opens it), `figures` (a Run's figures and workload keys), `add`, `query`,
//! `drift` (the `regressed` / `improved` findings), `export`, `error`,
//! `integrity` (a damaged file, found at open).
//!
//! This module owns the database and must not render: `report::history`
//! lays out what the queries return.

pub mod add;
pub mod assess;
pub mod batch;
pub mod drift;
pub mod error;
pub mod export;
pub mod figures;
#[cfg(unix)]
pub mod file;
#[cfg(windows)]
#[path = "file_windows.rs"]
pub mod file;
pub mod integrity;
pub mod query;
pub mod schema;

pub use add::{Added, Incoming};
pub use error::BadDatabase;

use rusqlite::Connection;
use std::path::{Path, PathBuf};
use std::time::Duration;

/// How long a candor waits for another one's write to finish before it
/// gives up (`CANDOR_HISTORY_TIMEOUT`, e.g. `30s`). Adding one Run holds the
/// write lock for milliseconds; `history add` of many files holds it for one
/// batch (`ADD_BATCH` Runs) at a time.
pub const DEFAULT_TIMEOUT: Duration = Duration::from_secs(10);

/// Runs added per transaction by `History::add_all`: each commit lets a
/// waiting candor in, and a failure loses at most the batch in progress.
pub const ADD_BATCH: usize = 100;

/// The database file when no `--db` is given on Windows: where a user's
/// local application data goes, `%LOCALAPPDATA%\candor\history.db` (the
/// history itself is refused there by name: `file_windows.rs`).
#[cfg(windows)]
pub fn default_path() -> Option<PathBuf> {
    let base = std::env::var_os("LOCALAPPDATA")
        .map(PathBuf::from)
        .filter(|p| p.is_absolute())?;
    Some(base.join("candor").join("history.db"))
}

/// The database file when no `--db` is given: `$XDG_DATA_HOME/candor/history.db`
/// (an absolute path, as the XDG base directory specification requires),
/// else `$HOME/.local/share/candor/history.db`; None without either.
#[cfg(not(windows))]
pub fn default_path() -> Option<PathBuf> {
    let base = std::env::var_os("XDG_DATA_HOME")
        .map(PathBuf::from)
        .filter(|p| p.is_absolute())
        .or_else(|| {
            std::env::var_os("HOME")
                .map(PathBuf::from)
                .filter(|p| p.is_absolute())
                .map(|h| h.join(".local/share"))
        })?;
    Some(base.join("candor").join("history.db"))
}

/// The busy timeout: `CANDOR_HISTORY_TIMEOUT` (a duration) or `DEFAULT_TIMEOUT`.
/// A value that does not parse is a usage error naming the variable.
pub fn timeout() -> anyhow::Result<Duration> {
    match std::env::var("CANDOR_HISTORY_TIMEOUT") {
        Ok(v) if !v.trim().is_empty() => crate::units::parse_duration(&v)
            .map_err(|e| crate::error::usage(format!("CANDOR_HISTORY_TIMEOUT: {e}"))),
        _ => Ok(DEFAULT_TIMEOUT),
    }
}

/// An open history database.
pub struct History {
    conn: Connection,
    /// The checked database file, closed after `conn` (fields drop in
    /// order): closing it earlier would drop SQLite's POSIX locks.
    _file: std::fs::File,
    path: PathBuf,
    wait: Duration,
}

impl History {
    /// Opens (`Open::Create`: creates if absent) the history at `path`.
    pub fn open(path: &Path, mode: schema::Open) -> anyhow::Result<History> {
        let wait = timeout()?;
        let (conn, file) = schema::open(path, mode, wait)?;
        Ok(History {
            conn,
            _file: file,
            path: path.to_path_buf(),
            wait,
        })
    }

    /// The connection, for queries.
    pub fn conn(&self) -> &Connection {
        &self.conn
    }

    /// An SQLite error on this database, in words (see `error::sqlite`).
    pub fn error(&self, e: rusqlite::Error) -> anyhow::Error {
        error::sqlite(&self.path, self.wait, e)
    }

    /// Adds one Run in its own transaction.
    pub fn add(&mut self, incoming: &Incoming) -> anyhow::Result<Added> {
        let mut added = self.add_batch(std::slice::from_ref(incoming))?;
        Ok(added.pop().expect("one Run in, one out"))
    }

    /// Adds Runs in one transaction: all of them, or (on an error) none.
    pub fn add_batch(&mut self, batch: &[Incoming]) -> anyhow::Result<Vec<Added>> {
        let (path, wait) = (self.path.clone(), self.wait);
        let sql = |e: rusqlite::Error| error::sqlite(&path, wait, e);
        // IMMEDIATE takes the write lock at the start, so the busy timeout
        // applies to it; a deferred transaction that upgrades could fail at
        // once instead of waiting.
        let tx =
            rusqlite::Transaction::new(&mut self.conn, rusqlite::TransactionBehavior::Immediate)
                .map_err(sql)?;
        let mut out = Vec::with_capacity(batch.len());
        for incoming in batch {
            let added =
                add::add(&tx, incoming).map_err(|e| match e.downcast::<rusqlite::Error>() {
                    Ok(s) => sql(s),
                    Err(other) => other,
                })?;
            out.push(added);
        }
        tx.commit().map_err(sql)?;
        Ok(out)
    }
}
