//! What a history database file may be, decided on file descriptors before
//! and after SQLite opens it. SQLite takes any file it can open: a block
//! device reports size 0, SQLite reads that as an empty database and writes
//! its header at offset 0 (tried on a loop device: its backing file
//! changed); a character device is written to; an empty file of another
//! user is taken over. So, before SQLite sees the path:
//!
//! - a missing database is created here, exclusively (`O_CREAT | O_EXCL |
//!   O_NOFOLLOW`), and locked (`flock`) until its schema is committed, so a
//!   second candor that finds it still empty waits instead of refusing it;
//! - an existing one is opened with `O_NOFOLLOW | O_NONBLOCK` (a symbolic
//!   link is refused, a FIFO never blocks) and must be, by `fstat` on that
//!   descriptor, a regular file that starts with SQLite's header; an empty
//!   file that no candor is creating is refused untouched;
//! - SQLite's own files beside it (`-wal`, `-shm`, `-journal`), where
//!   present, must be regular files of the database's owner (a planted WAL
//!   would be replayed into the history);
//!
//! and after SQLite opened it (with `SQLITE_OPEN_NOFOLLOW`; SQLite opens
//! every file with `O_NOFOLLOW`), the file behind SQLite's descriptor must
//! be the one checked here: a path swapped in between is refused before
//! anything is written. Whether the file is candor's history at all
//! (application id, schema version) is `schema::recognise`'s to say.
//!
//! Must not: write to a file it did not create in this process.

use super::error::BadDatabase;
use std::io::Read;
use std::os::unix::fs::{FileTypeExt, MetadataExt, OpenOptionsExt};
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

/// The first 16 bytes of every SQLite 3 database file.
const SQLITE_HEADER: &[u8; 16] = b"SQLite format 3\0";

/// The files SQLite may keep beside a database.
const SIDECARS: [&str; 3] = ["-wal", "-shm", "-journal"];

/// A database file checked on its descriptor and held open until SQLite's
/// own descriptor has been compared with it.
pub struct Checked {
    file: std::fs::File,
    path: PathBuf,
    /// Created by this process: removed again if it never became a history.
    created: bool,
    /// The file descriptors this process had open before SQLite opened the
    /// database (`None` without /proc): the new ones are SQLite's.
    fds_before: Option<Vec<i32>>,
}

/// Checks `path` (see the module comment); `create` makes it when absent.
/// `wait` bounds how long an empty file that another candor is creating is
/// waited for. A file that cannot be a history is a `BadDatabase` (exit 2).
pub fn check(path: &Path, create: bool, wait: Duration) -> anyhow::Result<Checked> {
    let refuse = |why: String| -> anyhow::Error { BadDatabase::new(path, why).into() };
    // Twice at most: a file created by another candor between our look and
    // our exclusive create is then opened as an existing one.
    for _ in 0..2 {
        match std::fs::symlink_metadata(path) {
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
                if !create {
                    return Err(crate::error::usage(format!(
                        "{}: no history yet (candor run, disk, sweep and import add to it; candor history add RUN.json adds files)",
                        path.display()
                    )));
                }
                check_sidecars(path, None)?;
                match create_new(path) {
                    Ok(file) => return Ok(Checked::new(file, path, true)),
                    Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists => continue,
                    Err(e) => {
                        return Err(anyhow::anyhow!(
                            "{}: cannot create the history database: {e}",
                            path.display()
                        ))
                    }
                }
            }
            Err(e) => return Err(anyhow::anyhow!("{}: cannot read: {e}", path.display())),
            Ok(meta) if meta.file_type().is_symlink() => {
                return Err(refuse(
                    "is a symbolic link; the history is a regular file that --db names itself"
                        .into(),
                ))
            }
            Ok(meta) if meta.is_dir() => {
                return Err(refuse("is a directory; --db names a file".into()))
            }
            Ok(meta) => {
                // Refused before it is opened: opening a device or a FIFO
                // is already an action on it.
                if let Some(kind) = not_regular(&meta.file_type()) {
                    return Err(refuse(format!(
                        "is {kind}; the history is a regular file (nothing was written to it): choose another --db"
                    )));
                }
                let file = open_existing(path)?;
                let meta = file.metadata()?;
                if let Some(kind) = not_regular(&meta.file_type()) {
                    return Err(refuse(format!(
                        "is {kind}; the history is a regular file (nothing was written to it): choose another --db"
                    )));
                }
                let meta = wait_while_created(&file, meta, wait);
                if meta.len() == 0 {
                    return Err(refuse(
                        "is an empty file, not a candor history (nothing was written to it): remove it or choose another --db".into(),
                    ));
                }
                if !starts_with_header(&file) {
                    return Err(refuse(
                        "not an SQLite database (a damaged file, or another program's): choose another --db".into(),
                    ));
                }
                check_sidecars(path, Some(meta.uid()))?;
                return Ok(Checked::new(file, path, false));
            }
        }
    }
    Err(refuse(
        "appeared and disappeared while candor opened it; try again".into(),
    ))
}

impl Checked {
    fn new(file: std::fs::File, path: &Path, created: bool) -> Checked {
        Checked {
            file,
            path: path.to_path_buf(),
            created,
            fds_before: open_fds(),
        }
    }

    /// True when this process created the file.
    pub fn created(&self) -> bool {
        self.created
    }

    /// After SQLite opened the database, before anything is written to it:
    /// the file SQLite opened is the one checked. SQLite's descriptor is one
    /// of those opened since `check` whose /proc link names this path; each
    /// of them must be this file (same device and inode). Without /proc, the
    /// path itself is compared (a swap and a swap back is then not seen).
    pub fn confirm(&self) -> anyhow::Result<()> {
        let checked = self.file.metadata()?;
        let same = |m: &std::fs::Metadata| m.dev() == checked.dev() && m.ino() == checked.ino();
        let swapped = || -> anyhow::Error {
            BadDatabase::new(
                &self.path,
                "was replaced by another file while candor opened it (nothing was written): check who writes to this directory",
            )
            .into()
        };
        let (Some(before), Some(now)) = (&self.fds_before, open_fds()) else {
            return match std::fs::symlink_metadata(&self.path) {
                Ok(m) if same(&m) => Ok(()),
                _ => Err(swapped()),
            };
        };
        let want = std::path::absolute(&self.path).ok();
        let mut seen = false;
        for fd in now.iter().filter(|fd| !before.contains(fd)) {
            let link = PathBuf::from(format!("/proc/self/fd/{fd}"));
            let Ok(target) = std::fs::read_link(&link) else {
                continue;
            };
            let ours = target == self.path
                || want.as_ref() == Some(&target)
                || same_name_and_dir(&target, &self.path);
            if !ours {
                continue;
            }
            match std::fs::metadata(&link) {
                Ok(m) if same(&m) => seen = true,
                _ => return Err(swapped()),
            }
        }
        if seen {
            Ok(())
        } else {
            // SQLite's descriptor was not recognised by its name (a path
            // through a symlinked directory): compare what the path is now.
            match std::fs::symlink_metadata(&self.path) {
                Ok(m) if same(&m) => Ok(()),
                _ => Err(swapped()),
            }
        }
    }

    /// The schema is committed: another candor may now use the file. The
    /// descriptor returned must stay open as long as SQLite's connection:
    /// closing any descriptor of a file drops every POSIX lock the process
    /// holds on it, SQLite's included.
    pub fn release(self) -> std::fs::File {
        let _ = rustix::fs::flock(&self.file, rustix::fs::FlockOperation::Unlock);
        self.file
    }

    /// The file never became a history (opening or migrating failed):
    /// removed again when this process created it and it is still that
    /// file, so that no empty file is left for the next candor to refuse.
    pub fn abandon(self) {
        if !self.created {
            return;
        }
        if let (Ok(now), Ok(ours)) = (std::fs::symlink_metadata(&self.path), self.file.metadata()) {
            if now.dev() == ours.dev() && now.ino() == ours.ino() {
                let _ = std::fs::remove_file(&self.path);
                for suffix in SIDECARS {
                    let side = sidecar(&self.path, suffix);
                    if std::fs::symlink_metadata(&side).is_ok_and(|m| m.is_file()) {
                        let _ = std::fs::remove_file(side);
                    }
                }
            }
        }
    }
}

/// True when `a` and `b` have the same file name and their directories
/// resolve to the same place (/proc gives the resolved path).
fn same_name_and_dir(a: &Path, b: &Path) -> bool {
    let (Some(na), Some(nb)) = (a.file_name(), b.file_name()) else {
        return false;
    };
    if na != nb {
        return false;
    }
    let dir_b = crate::output::parent_dir(b);
    match (a.parent(), std::fs::canonicalize(dir_b)) {
        (Some(da), Ok(db)) => da == db,
        _ => false,
    }
}

/// A new, empty database file, created exclusively and locked.
fn create_new(path: &Path) -> std::io::Result<std::fs::File> {
    let dir = crate::output::parent_dir(path);
    std::fs::create_dir_all(dir).map_err(|e| {
        std::io::Error::new(
            e.kind(),
            format!("cannot create the directory {}: {e}", dir.display()),
        )
    })?;
    let file = std::fs::OpenOptions::new()
        .read(true)
        .write(true)
        .create_new(true)
        .mode(0o644)
        .custom_flags(libc::O_NOFOLLOW | libc::O_CLOEXEC)
        .open(path)?;
    rustix::fs::flock(&file, rustix::fs::FlockOperation::LockExclusive)?;
    Ok(file)
}

/// An existing file opened for reading only, without following a link and
/// without blocking on a FIFO or taking a terminal.
fn open_existing(path: &Path) -> anyhow::Result<std::fs::File> {
    std::fs::OpenOptions::new()
        .read(true)
        .custom_flags(libc::O_NOFOLLOW | libc::O_NONBLOCK | libc::O_NOCTTY | libc::O_CLOEXEC)
        .open(path)
        .map_err(|e| {
            if e.raw_os_error() == Some(libc::ELOOP) {
                BadDatabase::new(
                    path,
                    "is a symbolic link; the history is a regular file that --db names itself",
                )
                .into()
            } else {
                anyhow::anyhow!("{}: cannot read: {e}", path.display())
            }
        })
}

/// What a file that is not a regular file is, in words.
fn not_regular(kind: &std::fs::FileType) -> Option<&'static str> {
    if kind.is_file() {
        None
    } else if kind.is_block_device() {
        Some("a block device")
    } else if kind.is_char_device() {
        Some("a character device")
    } else if kind.is_fifo() {
        Some("a FIFO")
    } else if kind.is_socket() {
        Some("a socket")
    } else if kind.is_dir() {
        Some("a directory")
    } else {
        Some("not a regular file")
    }
}

/// An empty file may be a history that another candor has just created and
/// not yet written: that candor holds its `flock` until the schema is in.
/// Waits (at most `wait`) while the file is locked and empty. Its creator
/// takes the lock just after its exclusive create, so an empty file found
/// unlocked is looked at again after `CREATE_GRACE` before it is called
/// empty: found in that gap, it would be refused while being made.
fn wait_while_created(
    file: &std::fs::File,
    meta: std::fs::Metadata,
    wait: Duration,
) -> std::fs::Metadata {
    const CREATE_GRACE: Duration = Duration::from_millis(250);
    let deadline = Instant::now() + wait;
    let mut meta = meta;
    let mut unlocked_since: Option<Instant> = None;
    while meta.len() == 0 && Instant::now() < deadline {
        match rustix::fs::flock(file, rustix::fs::FlockOperation::NonBlockingLockShared) {
            Ok(()) => {
                let _ = rustix::fs::flock(file, rustix::fs::FlockOperation::Unlock);
                let since = *unlocked_since.get_or_insert_with(Instant::now);
                if since.elapsed() >= CREATE_GRACE {
                    break;
                }
            }
            Err(_) => unlocked_since = None,
        }
        std::thread::sleep(Duration::from_millis(20));
        meta = file.metadata().unwrap_or(meta);
    }
    file.metadata().unwrap_or(meta)
}

/// True when the file's first bytes are SQLite's header.
fn starts_with_header(mut file: &std::fs::File) -> bool {
    let mut head = [0u8; 16];
    file.read_exact(&mut head).is_ok() && &head == SQLITE_HEADER
}

/// `path` with SQLite's suffix (`history.db-wal`).
fn sidecar(path: &Path, suffix: &str) -> PathBuf {
    let mut name = path.as_os_str().to_owned();
    name.push(suffix);
    PathBuf::from(name)
}

/// SQLite's files beside the database, where present, are regular files of
/// the database's owner (`owner`; for a new database, this process's user).
fn check_sidecars(path: &Path, owner: Option<u32>) -> anyhow::Result<()> {
    let owner = owner.unwrap_or_else(|| rustix::process::geteuid().as_raw());
    for suffix in SIDECARS {
        let side = sidecar(path, suffix);
        let meta = match std::fs::symlink_metadata(&side) {
            Ok(m) => m,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => continue,
            Err(e) => return Err(anyhow::anyhow!("{}: cannot read: {e}", side.display())),
        };
        let kind = meta.file_type();
        let problem = if kind.is_symlink() {
            Some("a symbolic link".to_string())
        } else if let Some(what) = not_regular(&kind) {
            Some(what.to_string())
        } else if meta.uid() != owner {
            Some(format!(
                "owned by user {} while the database is user {owner}'s",
                meta.uid()
            ))
        } else {
            None
        };
        if let Some(problem) = problem {
            return Err(BadDatabase::new(
                path,
                format!(
                    "SQLite's file beside it, {}, is {problem}; candor uses the history only when those are its own (nothing was written)",
                    side.display()
                ),
            )
            .into());
        }
    }
    Ok(())
}

/// The file descriptors this process has open (`None` without /proc).
fn open_fds() -> Option<Vec<i32>> {
    let dir = std::fs::read_dir("/proc/self/fd").ok()?;
    let mut fds: Vec<i32> = dir
        .filter_map(|e| e.ok()?.file_name().to_str()?.parse().ok())
        .collect();
    fds.sort_unstable();
    Some(fds)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn wait() -> Duration {
        Duration::from_millis(100)
    }

    #[test]
    fn a_new_database_is_created_exclusively_and_locked() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("a/h.db");
        let c = check(&path, true, wait()).unwrap();
        assert!(c.created());
        // A second candor finds it empty and locked: it waits, then refuses.
        let e = check(&path, true, wait()).err().unwrap();
        assert!(e.to_string().contains("empty file"), "{e}");
        c.abandon();
        assert!(!path.exists());
    }

    #[test]
    fn refuses_links_empty_files_text_and_foreign_sidecars_untouched() {
        let dir = tempfile::tempdir().unwrap();
        let real = dir.path().join("real.db");
        std::fs::write(&real, b"").unwrap();
        let e = check(&real, true, wait()).err().unwrap();
        assert!(
            e.is::<BadDatabase>() && e.to_string().contains("empty file"),
            "{e}"
        );

        let link = dir.path().join("link.db");
        std::os::unix::fs::symlink(&real, &link).unwrap();
        let e = check(&link, true, wait()).err().unwrap();
        assert!(e.to_string().contains("symbolic link"), "{e}");

        let text = dir.path().join("t.db");
        std::fs::write(&text, b"hello, this is not a database file").unwrap();
        let e = check(&text, true, wait()).err().unwrap();
        assert!(e.to_string().contains("not an SQLite database"), "{e}");

        let db = dir.path().join("h.db");
        let mut bytes = SQLITE_HEADER.to_vec();
        bytes.resize(4096, 0);
        std::fs::write(&db, &bytes).unwrap();
        std::os::unix::fs::symlink("/dev/null", sidecar(&db, "-wal")).unwrap();
        let e = check(&db, true, wait()).err().unwrap();
        assert!(e.to_string().contains("-wal, is a symbolic link"), "{e}");
        assert_eq!(std::fs::read(&db).unwrap(), bytes);
        assert_eq!(std::fs::read(&real).unwrap(), b"");
    }

    #[test]
    fn refuses_devices_and_fifos_at_once() {
        let e = check(Path::new("/dev/null"), true, wait()).err().unwrap();
        assert!(e.to_string().contains("a character device"), "{e}");
        let dir = tempfile::tempdir().unwrap();
        let fifo = dir.path().join("f.db");
        rustix::fs::mknodat(
            rustix::fs::CWD,
            &fifo,
            rustix::fs::FileType::Fifo,
            rustix::fs::Mode::from_raw_mode(0o600),
            0,
        )
        .unwrap();
        let e = check(&fifo, true, wait()).err().unwrap();
        assert!(e.to_string().contains("a FIFO"), "{e}");
    }

    #[test]
    fn a_file_swapped_in_before_sqlite_opens_it_is_refused() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("h.db");
        let c = check(&path, true, wait()).unwrap();
        // Another process puts a file of its own at the name.
        let other = dir.path().join("other");
        std::fs::write(&other, b"").unwrap();
        std::fs::rename(&other, &path).unwrap();
        let conn = rusqlite::Connection::open_with_flags(
            &path,
            rusqlite::OpenFlags::SQLITE_OPEN_READ_WRITE | rusqlite::OpenFlags::SQLITE_OPEN_NOFOLLOW,
        )
        .unwrap();
        let e = c.confirm().unwrap_err();
        assert!(
            e.to_string().contains("was replaced by another file"),
            "{e}"
        );
        drop(conn);
        // Nothing is removed that this process did not create.
        c.abandon();
        assert!(path.exists());
    }
}
