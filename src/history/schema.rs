//! The history database's schema and how a file becomes one: opened with a
//! busy timeout, recognised as candor's (`PRAGMA application_id`), refused
//! when it is another program's or a newer candor's (`PRAGMA user_version`
//! above what this build knows), switched to WAL, and migrated one version at
//! a time inside a transaction, so a crash mid-migration leaves the previous
//! version intact.
//!
//! Every check that can refuse a file runs before anything is written to it:
//! a foreign or newer database is never touched.
//!
//! The tables (docs/history.md describes them for people using `sqlite3`):
//! - `hosts`: one row per host identity (the Run's label, else its hostname)
//!   with the identity facts of its latest Run;
//! - `runs`: one row per Run (content hash, time, tool, status, the host
//!   facts of that Run), with the Run's exact JSON, zstd-compressed;
//! - `workloads`: one row per normalised job (the workload key), with the
//!   test names it was seen under (`workload_names`);
//! - `series`: one row per (host, workload, metric): the unit, which way is
//!   better, and whether it is a key figure (drift is judged on those);
//! - `figures`: one row per figure of a Run (median over passes, min, max,
//!   passes), clustered by host, workload and time: a trend is one range
//!   scan, and adding a Run writes one page per workload, not per figure
//!   (what a single add costs is mostly the pages synced when candor closes
//!   the database);
//! - `findings`: the Run's own findings (id, severity, status, subject, verdict);
//! - `figures_view`: the figures joined with their host, Run and workload.

use super::error::{sqlite, BadDatabase};
use rusqlite::{Connection, OpenFlags};
use std::path::Path;
use std::time::Duration;

/// `PRAGMA application_id` of a candor history: "cand" in ASCII. SQLite
/// files of other programs carry another id (or none, and other tables).
pub const APPLICATION_ID: i32 = 0x6361_6e64;

/// The schema version this build writes (`PRAGMA user_version`).
pub const VERSION: i32 = MIGRATIONS.len() as i32;

/// `MIGRATIONS[i]` takes a database from version i to i + 1. Append only:
/// a released migration is never edited, a change is a new step.
const MIGRATIONS: &[&str] = &[V1];

const V1: &str = "
CREATE TABLE hosts (
    id INTEGER PRIMARY KEY,
    name TEXT NOT NULL UNIQUE,
    label TEXT,
    hostname TEXT,
    cpu_model TEXT,
    cpu_cores INTEGER,
    cpu_threads INTEGER,
    mem_total_bytes INTEGER,
    virtualization TEXT,
    os_release TEXT,
    kernel TEXT,
    first_unix INTEGER NOT NULL,
    last_unix INTEGER NOT NULL
);
CREATE TABLE runs (
    id INTEGER PRIMARY KEY,
    hash TEXT NOT NULL UNIQUE,
    host_id INTEGER NOT NULL REFERENCES hosts(id),
    started_at TEXT NOT NULL,
    started_unix INTEGER NOT NULL,
    finished_at TEXT,
    status TEXT NOT NULL,
    source TEXT NOT NULL,
    tool TEXT NOT NULL,
    tool_version TEXT NOT NULL,
    schema TEXT NOT NULL,
    preset TEXT,
    kinds TEXT NOT NULL,
    label TEXT,
    hostname TEXT,
    cpu_model TEXT,
    cpu_threads INTEGER,
    mem_total_bytes INTEGER,
    kernel TEXT,
    added_at TEXT NOT NULL,
    added_from TEXT,
    json_bytes INTEGER NOT NULL,
    json_zstd BLOB NOT NULL
);
CREATE INDEX runs_by_host_time ON runs(host_id, started_unix);
CREATE INDEX runs_by_time ON runs(started_unix);
CREATE TABLE workloads (
    id INTEGER PRIMARY KEY,
    key TEXT NOT NULL UNIQUE,
    kind TEXT NOT NULL,
    test TEXT NOT NULL
);
CREATE TABLE workload_names (
    workload_id INTEGER NOT NULL REFERENCES workloads(id),
    test TEXT NOT NULL COLLATE NOCASE,
    PRIMARY KEY (workload_id, test)
) WITHOUT ROWID;
CREATE INDEX workload_names_by_test ON workload_names(test);
CREATE TABLE series (
    id INTEGER PRIMARY KEY,
    host_id INTEGER NOT NULL REFERENCES hosts(id),
    workload_id INTEGER NOT NULL REFERENCES workloads(id),
    metric TEXT NOT NULL,
    unit TEXT NOT NULL,
    higher_is_better INTEGER NOT NULL,
    key_figure INTEGER NOT NULL,
    UNIQUE (host_id, workload_id, metric)
);
CREATE TABLE figures (
    host_id INTEGER NOT NULL REFERENCES hosts(id),
    workload_id INTEGER NOT NULL REFERENCES workloads(id),
    started_unix INTEGER NOT NULL,
    run_id INTEGER NOT NULL REFERENCES runs(id),
    metric TEXT NOT NULL,
    value REAL NOT NULL,
    min REAL NOT NULL,
    max REAL NOT NULL,
    passes INTEGER NOT NULL,
    PRIMARY KEY (host_id, workload_id, started_unix, run_id, metric)
) WITHOUT ROWID;
CREATE TABLE findings (
    run_id INTEGER NOT NULL REFERENCES runs(id),
    seq INTEGER NOT NULL,
    id TEXT NOT NULL,
    severity TEXT NOT NULL,
    status TEXT NOT NULL,
    subject TEXT,
    verdict TEXT NOT NULL,
    PRIMARY KEY (run_id, seq)
) WITHOUT ROWID;
CREATE INDEX findings_by_id ON findings(id);
CREATE VIEW figures_view AS
SELECT h.name AS host, r.hash AS run, r.started_at AS started_at, w.key AS workload,
       w.kind AS kind, w.test AS test, s.metric AS metric, s.unit AS unit, f.value AS value,
       f.min AS min, f.max AS max, f.passes AS passes, s.higher_is_better AS higher_is_better,
       s.key_figure AS key_figure
FROM figures f
JOIN series s ON s.host_id = f.host_id AND s.workload_id = f.workload_id AND s.metric = f.metric
JOIN hosts h ON h.id = f.host_id
JOIN workloads w ON w.id = s.workload_id
JOIN runs r ON r.id = f.run_id;
";

/// Whether opening may create the database.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Open {
    /// Create the file (and its directory) when absent: adding.
    Create,
    /// The file must exist: reading (a missing history is the user's
    /// mistake). A history candor may not write (a read-only mount, an
    /// immutable file) is opened read-only.
    Existing,
}

/// Opens the history at `path`: checks the file (`file::check`), that it
/// is candor's, at a version this build knows, then WAL and migrations.
/// `wait` is the busy timeout. The file returned beside the connection must
/// be dropped after it (see `file::Checked::release`).
pub fn open(
    path: &Path,
    mode: Open,
    wait: Duration,
) -> anyhow::Result<(Connection, std::fs::File)> {
    let may_write = writable(path);
    if let (Open::Create, Err(e)) = (mode, &may_write) {
        // Adding to a history candor may not write is the user's choice of
        // --db: said before the file is looked at, in words, exit 2.
        return Err(crate::error::usage(format!(
            "{}: candor may not write this history ({e}): choose another --db",
            path.display()
        )));
    }
    let checked = super::file::check(path, mode == Open::Create, wait)?;
    let read_only = may_write.is_err();
    let opened = if read_only {
        open_read_only(path, &checked, wait)
    } else {
        open_checked(path, &checked, wait)
    };
    let opened = opened.and_then(|conn| {
        judge_integrity(path, &conn, mode)?;
        Ok(conn)
    });
    match opened {
        Ok(conn) => Ok((conn, checked.release())),
        Err(e) => {
            checked.abandon();
            Err(e)
        }
    }
}

/// A damaged history (`integrity`): refused where a command writes, in
/// one line, before anything is written; where it reads, one warning that
/// names the Runs that cannot be read back.
fn judge_integrity(path: &Path, conn: &Connection, mode: Open) -> anyhow::Result<()> {
    let damage = match super::integrity::damage(conn) {
        Ok(None) => return Ok(()),
        Ok(Some(d)) => d,
        Err(e) => e.to_string(),
    };
    if mode == Open::Create {
        return Err(BadDatabase::new(
            path,
            format!("the history is damaged ({damage}); nothing was written to it: the Run files are the source of truth: add them to a new --db"),
        )
        .into());
    }
    crate::eprintln!(
        "candor: warning: {}",
        super::integrity::read_warning(path, conn, &damage)
    );
    Ok(())
}

/// SQLite's side of `open`, on a file `file::check` accepted.
fn open_checked(
    path: &Path,
    checked: &super::file::Checked,
    wait: Duration,
) -> anyhow::Result<Connection> {
    let err = |e: rusqlite::Error| sqlite(path, wait, e);
    // The file exists now (`check` created it if it was absent): SQLite
    // never creates one. NOFOLLOW: a link put in its place is refused.
    let flags = OpenFlags::SQLITE_OPEN_READ_WRITE
        | OpenFlags::SQLITE_OPEN_NO_MUTEX
        | OpenFlags::SQLITE_OPEN_NOFOLLOW;
    let conn = Connection::open_with_flags(path, flags).map_err(err)?;
    confirm_and_recognise(&conn, path, checked, wait)?;
    // WAL: readers never wait for a writer, and a writer's commit is one
    // append. NORMAL: in WAL mode a power cut may lose the last commits,
    // never the database; the Run files keep what it lost.
    conn.pragma_update(None, "journal_mode", "WAL")
        .map_err(err)?;
    conn.pragma_update(None, "synchronous", "NORMAL")
        .map_err(err)?;
    conn.pragma_update(None, "foreign_keys", "ON")
        .map_err(err)?;
    migrate(&conn).map_err(err)?;
    Ok(conn)
}

/// Whether this process may write the history and create its `-wal` and
/// `-shm` beside it (access(2), which answers for read-only mounts and
/// immutable files, and for root); the error says why not.
fn writable(path: &Path) -> std::io::Result<()> {
    // The directory, or where directories still to be made (`file::check`
    // makes them) would be made.
    let dir = path
        .ancestors()
        .skip(1)
        .map(|d| {
            if d.as_os_str().is_empty() {
                Path::new(".")
            } else {
                d
            }
        })
        .find(|d| d.exists())
        .unwrap_or(Path::new("."));
    crate::output::writable_dir(dir)?;
    match crate::output::may_write(path) {
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(()),
        other => other,
    }
}

/// Opens a history candor may not write, for reading. With its `-wal` and
/// `-shm` beside it, SQLite reads them (read-only WAL, SQLite 3.22); without
/// them (a history closed cleanly, then mounted read-only) it cannot make
/// a `-shm` and the file is opened as immutable: on a mount that refuses
/// writes nothing changes it under candor (a read-only bind mount of a
/// filesystem written elsewhere could; rare enough that reading beats
/// refusing). Nothing is migrated: a history
/// of an older schema is refused in words.
fn open_read_only(
    path: &Path,
    checked: &super::file::Checked,
    wait: Duration,
) -> anyhow::Result<Connection> {
    let err = |e: rusqlite::Error| sqlite(path, wait, e);
    let flags = OpenFlags::SQLITE_OPEN_READ_ONLY
        | OpenFlags::SQLITE_OPEN_NO_MUTEX
        | OpenFlags::SQLITE_OPEN_NOFOLLOW
        | OpenFlags::SQLITE_OPEN_URI;
    let sidecar = |ext: &str| {
        let mut p = path.as_os_str().to_os_string();
        p.push(ext);
        std::path::PathBuf::from(p).exists()
    };
    let immutable = !(sidecar("-wal") && sidecar("-shm"));
    let uri = format!(
        "file:{}{}",
        uri_path(path),
        if immutable { "?immutable=1" } else { "" }
    );
    let conn = Connection::open_with_flags(uri, flags).map_err(err)?;
    confirm_and_recognise(&conn, path, checked, wait)?;
    let version: i32 = conn
        .query_row("PRAGMA user_version", [], |r| r.get(0))
        .map_err(err)?;
    if version < VERSION {
        return Err(BadDatabase::new(
            path,
            format!(
                "a history of an older candor (schema {version}; this build reads {VERSION}) that candor may not write, so cannot upgrade: copy it somewhere writable, or read it with that candor"
            ),
        )
        .into());
    }
    conn.pragma_update(None, "query_only", true).map_err(err)?;
    Ok(conn)
}

/// `path` for an SQLite URI: absolute, every byte outside the unreserved
/// set and `/` percent-encoded (a `?`, `#` or `%` in a name stays a name).
fn uri_path(path: &Path) -> String {
    let absolute = std::path::absolute(path).unwrap_or_else(|_| path.to_path_buf());
    let mut out = String::new();
    for &b in absolute.as_os_str().as_encoded_bytes() {
        if b.is_ascii_alphanumeric() || b"/-._~".contains(&b) {
            out.push(b as char);
        } else {
            out.push_str(&format!("%{b:02X}"));
        }
    }
    out
}

/// What both opens do once SQLite has the file: the file behind its
/// descriptor is the one checked, the busy timeout is set, and the
/// database is candor's (see `recognise`).
fn confirm_and_recognise(
    conn: &Connection,
    path: &Path,
    checked: &super::file::Checked,
    wait: Duration,
) -> anyhow::Result<()> {
    let err = |e: rusqlite::Error| sqlite(path, wait, e);
    checked.confirm()?;
    BUSY_WAIT_MS.store(
        wait.as_millis() as u64,
        std::sync::atomic::Ordering::Relaxed,
    );
    conn.busy_handler(Some(wait_while_busy)).map_err(err)?;
    recognise(conn, path).map_err(|e| match e {
        Recognised::Sqlite(e) => err(e),
        Recognised::Refused(b) => b.into(),
    })
}

/// How long `wait_while_busy` waits for a locked history, in ms (a
/// process opens its histories with one wait; SQLite's handler is a plain
/// function, so the wait is kept here).
static BUSY_WAIT_MS: std::sync::atomic::AtomicU64 = std::sync::atomic::AtomicU64::new(0);

/// SQLite's busy handler: waits 10 ms at a time while another process
/// holds the history, for at most `BUSY_WAIT_MS`, and no longer once a
/// stop was asked for (SQLite's own busy timeout sleeps out its whole
/// wait whatever the user says).
fn wait_while_busy(tries: i32) -> bool {
    let waited = tries.max(0) as u64 * 10;
    if crate::cancel::cancelled()
        || waited >= BUSY_WAIT_MS.load(std::sync::atomic::Ordering::Relaxed)
    {
        return false;
    }
    std::thread::sleep(Duration::from_millis(10));
    !crate::cancel::cancelled()
}

enum Recognised {
    Sqlite(rusqlite::Error),
    Refused(BadDatabase),
}

impl From<rusqlite::Error> for Recognised {
    fn from(e: rusqlite::Error) -> Self {
        Recognised::Sqlite(e)
    }
}

/// Refuses a file that is another program's database or a newer candor's,
/// before anything is written to it. An empty database is candor's to take.
fn recognise(conn: &Connection, path: &Path) -> Result<(), Recognised> {
    // One read transaction, so that the three reads see one state of the
    // file: read apart, another candor's migration could commit between
    // them (the id read before it, its tables after), and a new history
    // would look like another program's database.
    conn.execute_batch("BEGIN DEFERRED")?;
    let read = (|| -> rusqlite::Result<(i32, i32, Vec<String>)> {
        let app: i32 = conn.query_row("PRAGMA application_id", [], |r| r.get(0))?;
        let version: i32 = conn.query_row("PRAGMA user_version", [], |r| r.get(0))?;
        let mut stmt = conn.prepare(
            "SELECT name FROM sqlite_master WHERE name NOT LIKE 'sqlite_%' ORDER BY name",
        )?;
        let objects: Vec<String> = stmt
            .query_map([], |r| r.get(0))?
            .collect::<Result<_, _>>()?;
        Ok((app, version, objects))
    })();
    let end = conn.execute_batch(if read.is_ok() { "COMMIT" } else { "ROLLBACK" });
    let (app, version, objects) = read?;
    end?;
    let empty = app == 0 && version == 0 && objects.is_empty();
    if app != APPLICATION_ID && !empty {
        let mut named: Vec<&str> = objects.iter().map(String::as_str).take(5).collect();
        if objects.len() > 5 {
            named.push("...");
        }
        return Err(Recognised::Refused(BadDatabase::new(
            path,
            format!(
                "an SQLite database, but not a candor history (application_id {app:#x}, tables: {}): choose another --db",
                if named.is_empty() { "none".to_string() } else { named.join(", ") }
            ),
        )));
    }
    if version > VERSION {
        return Err(Recognised::Refused(BadDatabase::new(
            path,
            format!(
                "written by a newer candor (history schema {version}; this build knows up to {VERSION}): upgrade candor, or choose another --db"
            ),
        )));
    }
    Ok(())
}

/// Brings the schema to `VERSION`, one step per transaction. The version is
/// read again under the write lock: two candors opening a new file at once
/// migrate it once.
fn migrate(conn: &Connection) -> rusqlite::Result<()> {
    loop {
        let version: i32 = conn.query_row("PRAGMA user_version", [], |r| r.get(0))?;
        if version >= VERSION {
            return Ok(());
        }
        conn.execute_batch("BEGIN IMMEDIATE")?;
        let step = (|| {
            let version: i32 = conn.query_row("PRAGMA user_version", [], |r| r.get(0))?;
            if version >= VERSION {
                return Ok(());
            }
            conn.execute_batch(MIGRATIONS[version as usize])?;
            conn.pragma_update(None, "application_id", APPLICATION_ID)?;
            conn.pragma_update(None, "user_version", version + 1)
        })();
        match step {
            Ok(()) => conn.execute_batch("COMMIT")?,
            Err(e) => {
                let _ = conn.execute_batch("ROLLBACK");
                return Err(e);
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn wait() -> Duration {
        Duration::from_millis(200)
    }

    #[test]
    fn creates_migrates_and_reopens() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("sub/h.db");
        let e = open(&path, Open::Existing, wait()).unwrap_err();
        assert!(crate::error::is_usage(&e), "{e}");
        let (conn, _file) = open(&path, Open::Create, wait()).unwrap();
        let v: i32 = conn
            .query_row("PRAGMA user_version", [], |r| r.get(0))
            .unwrap();
        assert_eq!(v, VERSION);
        let mode: String = conn
            .query_row("PRAGMA journal_mode", [], |r| r.get(0))
            .unwrap();
        assert_eq!(mode, "wal");
        drop(conn);
        open(&path, Open::Existing, wait()).unwrap();
    }

    #[test]
    fn refuses_foreign_and_newer_databases_without_touching_them() {
        let dir = tempfile::tempdir().unwrap();
        let foreign = dir.path().join("f.db");
        Connection::open(&foreign)
            .unwrap()
            .execute_batch("CREATE TABLE t(x); INSERT INTO t VALUES (1);")
            .unwrap();
        let before = std::fs::read(&foreign).unwrap();
        let e = open(&foreign, Open::Create, wait()).unwrap_err();
        assert!(e.is::<BadDatabase>(), "{e}");
        assert!(
            e.to_string()
                .contains("not a candor history (application_id 0x0, tables: t)"),
            "{e}"
        );
        assert_eq!(std::fs::read(&foreign).unwrap(), before);

        let newer = dir.path().join("n.db");
        drop(open(&newer, Open::Create, wait()).unwrap());
        Connection::open(&newer)
            .unwrap()
            .pragma_update(None, "user_version", VERSION + 1)
            .unwrap();
        let e = open(&newer, Open::Create, wait()).unwrap_err();
        assert!(e.to_string().contains("newer candor"), "{e}");

        let text = dir.path().join("t.db");
        std::fs::write(
            &text,
            "not a database at all, just text that is long enough to have a header",
        )
        .unwrap();
        let e = open(&text, Open::Create, wait()).unwrap_err();
        assert!(e.is::<BadDatabase>(), "{e}");
        assert!(e.to_string().contains("not an SQLite database"), "{e}");
    }
}
