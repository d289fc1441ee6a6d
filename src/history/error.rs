//! How the history's failures reach the user: a database file that cannot be
//! used as candor's history is bad input (exit code 2, like a file that is not
//! a Run); a database that another process keeps locked past the wait, or a
//! disk that refuses the write, is a runtime failure (exit code 1). Each is
//! one line naming the database file.

use std::path::{Path, PathBuf};
use std::time::Duration;

/// A file that is not (or no longer) a candor history: not SQLite, another
/// program's database, a newer candor's, damaged. Exit code 2.
#[derive(Debug, thiserror::Error)]
#[error("{}: {problem}", path.display())]
pub struct BadDatabase {
    pub path: PathBuf,
    pub problem: String,
}

impl BadDatabase {
    pub fn new(path: &Path, problem: impl Into<String>) -> BadDatabase {
        BadDatabase {
            path: path.to_path_buf(),
            problem: problem.into(),
        }
    }
}

/// An SQLite error on the database at `path`, in words: corruption and
/// foreign files become `BadDatabase` (exit 2), a lock held past `waited`
/// says who to blame and how to wait longer (exit 1), the rest keep
/// SQLite's own message (exit 1).
pub fn sqlite(path: &Path, waited: Duration, error: rusqlite::Error) -> anyhow::Error {
    use rusqlite::ErrorCode;
    let code = match &error {
        rusqlite::Error::SqliteFailure(e, _) => Some(e.code),
        _ => None,
    };
    match code {
        // Given up at the first signal (`schema::wait_while_busy`).
        Some(ErrorCode::DatabaseBusy) | Some(ErrorCode::DatabaseLocked)
            if crate::cancel::cancelled() =>
        {
            anyhow::Error::new(crate::error::Interrupted(crate::cancel::signal().unwrap_or(0)))
                .context(format!(
                    "{}: stopped while waiting for the locked history",
                    path.display()
                ))
        }
        Some(ErrorCode::NotADatabase) => BadDatabase::new(
            path,
            "not an SQLite database (a damaged file, or another program's): choose another --db",
        )
        .into(),
        Some(ErrorCode::DatabaseCorrupt) => BadDatabase::new(
            path,
            format!("the database is damaged ({error}); the Run files are the source of truth: add them to a new --db"),
        )
        .into(),
        Some(ErrorCode::DatabaseBusy) | Some(ErrorCode::DatabaseLocked) => anyhow::anyhow!(
            "{}: the history database is locked by another process (waited {}; CANDOR_HISTORY_TIMEOUT sets the wait)",
            path.display(),
            crate::units::fmt_duration(waited)
        ),
        Some(ErrorCode::ReadOnly) | Some(ErrorCode::CannotOpen) | Some(ErrorCode::PermissionDenied) => {
            anyhow::anyhow!("{}: cannot write the history database: {error}", path.display())
        }
        Some(ErrorCode::DiskFull) => anyhow::anyhow!(
            "{}: the disk is full; the change being made was not written (the history is as it was before it)",
            path.display()
        ),
        _ => anyhow::anyhow!("{}: {error}", path.display()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn codes_become_sentences() {
        let fail = |code: i32| {
            rusqlite::Error::SqliteFailure(rusqlite::ffi::Error::new(code), Some("x".into()))
        };
        let p = Path::new("/h.db");
        let w = Duration::from_millis(500);
        let e = sqlite(p, w, fail(rusqlite::ffi::SQLITE_NOTADB));
        assert!(e.is::<BadDatabase>() && e.to_string().starts_with("/h.db: not an SQLite"));
        let e = sqlite(p, w, fail(rusqlite::ffi::SQLITE_CORRUPT));
        assert!(e.is::<BadDatabase>(), "{e}");
        let e = sqlite(p, w, fail(rusqlite::ffi::SQLITE_BUSY));
        assert!(!e.is::<BadDatabase>());
        assert!(
            e.to_string()
                .contains("locked by another process (waited 500ms"),
            "{e}"
        );
        // After "N Runs were added before this", a full disk never says
        // that nothing was added.
        let e = sqlite(p, w, fail(rusqlite::ffi::SQLITE_FULL)).to_string();
        assert!(
            e.contains("disk is full") && !e.contains("nothing was added"),
            "{e}"
        );
    }
}
