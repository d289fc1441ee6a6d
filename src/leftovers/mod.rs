//! Files candor leaves beside the user's while it works: test files and the
//! temporaries of its atomic writes. Each is named after the process that
//! made it (`names`: pid and start time, `owner`), and each is held with an
//! exclusive `flock` for as long as that process has it open.
//!
//! A candor killed with SIGKILL (or by the OOM killer, or a power cut)
//! cannot remove its files. So every candor, before it works in a
//! directory, looks there for candor files whose owner is gone and removes
//! them, one line each ([`recover`]). A file is removed only when all of
//! these hold: its name is exactly one of candor's forms, it is a regular
//! file (never a symlink or anything else) owned by this user, its owner
//! process is not running (pid gone, or the pid now belongs to a process
//! with another start time), and no process holds its lock (a candor in
//! another pid namespace sharing the directory would). Anything less
//! certain is left alone.
//!
//! candor's own files that it fails to remove (a filesystem turned
//! read-only) are reported with their path ([`removal_failed`]) and end up
//! in the Run's notes ([`take_failures`]).

pub mod names;
pub mod owner;

pub use owner::Owner;

use std::ffi::CString;
use std::os::fd::{AsRawFd, FromRawFd, OwnedFd};
use std::os::unix::ffi::OsStrExt;
use std::os::unix::fs::MetadataExt;
use std::path::{Path, PathBuf};
use std::sync::Mutex;

/// What a look at a directory found.
#[derive(Debug, Default)]
pub struct Recovery {
    /// One line per leftover removed, or found and not removed (why).
    pub lines: Vec<String>,
    /// Other candors, still running, with a test file in the directory.
    pub running: Vec<Owner>,
}

/// Removes the files that candors no longer running left in `dir` (see
/// the module comment for what must hold), and lists the running candors
/// that have a test file there. A directory that cannot be read gives an
/// empty answer: the work that follows will say what is wrong with it.
pub fn recover(dir: &Path) -> Recovery {
    let mut found = Recovery::default();
    let Ok(entries) = std::fs::read_dir(dir) else {
        return found;
    };
    let Some(dir_fd) = open_dir(dir) else {
        return found;
    };
    let me = Owner::this_process();
    for entry in entries.flatten() {
        let name = entry.file_name();
        let Some((kind, owner)) = names::parse(&name) else {
            continue;
        };
        if owner == me {
            continue;
        }
        let path = dir.join(&name);
        let what = match &kind {
            names::NameKind::TestFile { .. } => "a test file",
            names::NameKind::Temporary { .. } => "a temporary file",
            names::NameKind::WorkDir { .. } => "a work directory",
        };
        if owner.is_running() || !owner::proc_readable() {
            if matches!(kind, names::NameKind::TestFile { .. }) && !found.running.contains(&owner) {
                found.running.push(owner);
            }
            continue;
        }
        let removal = match kind {
            names::NameKind::WorkDir { .. } => remove_dir_if_abandoned(&path),
            _ => remove_if_abandoned(&dir_fd, &name, &path),
        };
        match removal {
            Removal::Removed(size) => found.lines.push(format!(
                "removed {} ({}), {what} left by candor pid {}, which is no longer running",
                path.display(),
                crate::units::fmt_bytes(size),
                owner.pid
            )),
            Removal::InUse => {
                if matches!(kind, names::NameKind::TestFile { .. }) && !found.running.contains(&owner) {
                    found.running.push(owner);
                }
            }
            Removal::NotOurs(uid) => found.lines.push(format!(
                "{} is {what} left by a candor that is no longer running (pid {}), but it belongs to uid {uid}: not removed",
                path.display(),
                owner.pid
            )),
            Removal::Failed(e) => found.lines.push(format!(
                "cannot remove {} ({what} left by candor pid {}, which is no longer running): {e}",
                path.display(),
                owner.pid
            )),
            Removal::Skipped => {}
        }
    }
    found
}

/// The running candors (other than this one) with a test file in `dir`.
pub fn others_running(dir: &Path) -> Vec<Owner> {
    let me = Owner::this_process();
    let mut running = Vec::new();
    let Ok(entries) = std::fs::read_dir(dir) else {
        return running;
    };
    for entry in entries.flatten() {
        if let Some((names::NameKind::TestFile { .. }, owner)) = names::parse(&entry.file_name()) {
            if owner != me && owner.is_running() && !running.contains(&owner) {
                running.push(owner);
            }
        }
    }
    running
}

/// The warning for candors measuring in the same directory.
pub fn sharing_warning(dir: &Path, running: &[Owner]) -> Option<String> {
    if running.is_empty() {
        return None;
    }
    let pids: Vec<String> = running.iter().map(|o| o.pid.to_string()).collect();
    Some(format!(
        "another candor (pid {}) is measuring in {} at the same time: both share the disk, so each one's figures are lower than the disk alone gives",
        pids.join(", "),
        dir.display()
    ))
}

enum Removal {
    Removed(u64),
    /// A process holds the file's lock: its owner runs after all.
    InUse,
    /// A regular file of another user.
    NotOurs(u32),
    Failed(std::io::Error),
    /// Not a regular file, or gone meanwhile: not candor's to touch.
    Skipped,
}

/// Removes `name` in `dir_fd` if it is a regular file of this user that no
/// process holds locked, and is still the file that was checked.
fn remove_if_abandoned(dir_fd: &OwnedFd, name: &std::ffi::OsStr, path: &Path) -> Removal {
    let Ok(cname) = CString::new(name.as_bytes()) else {
        return Removal::Skipped;
    };
    let Ok(before) = std::fs::symlink_metadata(path) else {
        return Removal::Skipped;
    };
    if !before.file_type().is_file() {
        return Removal::Skipped;
    }
    // SAFETY: geteuid has no preconditions.
    let euid = unsafe { libc::geteuid() };
    if before.uid() != euid {
        return Removal::NotOurs(before.uid());
    }
    // O_NONBLOCK and O_NOCTTY: whatever the name has become since the
    // look above, opening it neither waits nor takes a terminal.
    // SAFETY: a valid directory descriptor and NUL-terminated name.
    let raw = unsafe {
        libc::openat(
            dir_fd.as_raw_fd(),
            cname.as_ptr(),
            libc::O_RDONLY | libc::O_NOFOLLOW | libc::O_NONBLOCK | libc::O_NOCTTY | libc::O_CLOEXEC,
        )
    };
    if raw < 0 {
        return Removal::Skipped;
    }
    // SAFETY: a fresh descriptor that nothing else owns.
    let fd = unsafe { OwnedFd::from_raw_fd(raw) };
    let Some(opened) = fstat(&fd) else {
        return Removal::Skipped;
    };
    if opened.st_dev != before.dev() || opened.st_ino != before.ino() {
        return Removal::Skipped;
    }
    // SAFETY: flock on a descriptor we own.
    if unsafe { libc::flock(fd.as_raw_fd(), libc::LOCK_EX | libc::LOCK_NB) } != 0
        && std::io::Error::last_os_error().raw_os_error() == Some(libc::EWOULDBLOCK)
    {
        return Removal::InUse;
    }
    // Still the same file at that name (not swapped since it was opened)?
    match std::fs::symlink_metadata(path) {
        Ok(now) if now.dev() == before.dev() && now.ino() == before.ino() => {}
        _ => return Removal::Skipped,
    }
    // SAFETY: a valid directory descriptor and name; unlinkat never follows links.
    if unsafe { libc::unlinkat(dir_fd.as_raw_fd(), cname.as_ptr(), 0) } != 0 {
        return Removal::Failed(std::io::Error::last_os_error());
    }
    Removal::Removed(before.len())
}

/// Removes the work directory at `path` and what is in it, if it is a
/// real directory (not a link) of this user that no process holds locked
/// (its owner holds it while it lives: `hold`). What is inside is candor's:
/// the directory is made new, mode 0700, and only its owner writes there;
/// links in it are removed, never followed.
fn remove_dir_if_abandoned(path: &Path) -> Removal {
    let Ok(before) = std::fs::symlink_metadata(path) else {
        return Removal::Skipped;
    };
    if !before.file_type().is_dir() {
        return Removal::Skipped;
    }
    // SAFETY: geteuid has no preconditions.
    let euid = unsafe { libc::geteuid() };
    if before.uid() != euid {
        return Removal::NotOurs(before.uid());
    }
    let Some(fd) = open_dir_nofollow(path) else {
        return Removal::Skipped;
    };
    match fstat(&fd) {
        Some(st) if st.st_dev == before.dev() && st.st_ino == before.ino() => {}
        _ => return Removal::Skipped,
    }
    // SAFETY: flock on a descriptor we own.
    if unsafe { libc::flock(fd.as_raw_fd(), libc::LOCK_EX | libc::LOCK_NB) } != 0
        && std::io::Error::last_os_error().raw_os_error() == Some(libc::EWOULDBLOCK)
    {
        return Removal::InUse;
    }
    match remove_tree(path, before.dev(), 0) {
        Ok(bytes) => Removal::Removed(bytes),
        Err(e) => Removal::Failed(e),
    }
}

/// Removes a directory tree on device `dev` (a mount inside is left, and
/// so is the tree above it); the bytes of the files removed.
fn remove_tree(dir: &Path, dev: u64, depth: usize) -> std::io::Result<u64> {
    if depth > 16 {
        return Err(std::io::Error::other("nested deeper than 16"));
    }
    let mut bytes = 0;
    for entry in std::fs::read_dir(dir)? {
        let path = entry?.path();
        let meta = std::fs::symlink_metadata(&path)?;
        if meta.dev() != dev {
            return Err(std::io::Error::other(format!(
                "{} is on another filesystem",
                path.display()
            )));
        }
        if meta.file_type().is_dir() {
            bytes += remove_tree(&path, dev, depth + 1)?;
        } else {
            // unlink: a link goes, never what it points to.
            std::fs::remove_file(&path)?;
            bytes += meta.len();
        }
    }
    std::fs::remove_dir(dir)?;
    Ok(bytes)
}

fn open_dir_nofollow(dir: &Path) -> Option<OwnedFd> {
    let cpath = CString::new(dir.as_os_str().as_bytes()).ok()?;
    // SAFETY: a NUL-terminated path; the descriptor is owned below.
    let raw = unsafe {
        libc::open(
            cpath.as_ptr(),
            libc::O_RDONLY | libc::O_DIRECTORY | libc::O_NOFOLLOW | libc::O_CLOEXEC,
        )
    };
    // SAFETY: a fresh descriptor that nothing else owns.
    (raw >= 0).then(|| unsafe { OwnedFd::from_raw_fd(raw) })
}

fn open_dir(dir: &Path) -> Option<OwnedFd> {
    let cpath = CString::new(dir.as_os_str().as_bytes()).ok()?;
    // SAFETY: a NUL-terminated path; the descriptor is owned below.
    let raw = unsafe {
        libc::open(
            cpath.as_ptr(),
            libc::O_RDONLY | libc::O_DIRECTORY | libc::O_CLOEXEC,
        )
    };
    // SAFETY: a fresh descriptor that nothing else owns.
    (raw >= 0).then(|| unsafe { OwnedFd::from_raw_fd(raw) })
}

fn fstat(fd: &OwnedFd) -> Option<libc::stat64> {
    // SAFETY: stat is plain data that fstat fills for a valid descriptor.
    let mut st: libc::stat64 = unsafe { std::mem::zeroed() };
    (unsafe { libc::fstat64(fd.as_raw_fd(), &mut st) } == 0).then_some(st)
}

/// Takes the exclusive lock that marks a candor file as in use by this
/// process (released when the descriptor closes). Best effort: where the
/// filesystem has no locks, the owner's pid and start time still tell.
pub fn hold(fd: &impl AsRawFd) {
    // SAFETY: flock on a valid descriptor.
    unsafe { libc::flock(fd.as_raw_fd(), libc::LOCK_EX | libc::LOCK_NB) };
}

/// This process's own files that could not be removed, not yet reported in a Run.
static FAILURES: Mutex<Vec<String>> = Mutex::new(Vec::new());

/// Records that one of this process's own files (`what`: "test file", ...)
/// could not be removed, and says so on stderr at once (the path, so that
/// the user can remove it by hand). A directory candor made that now holds
/// files it did not make is left in place on purpose and said so: what is
/// in it is not candor's to remove, nor to advise removing.
pub fn removal_failed(what: &str, path: &Path, error: &std::io::Error) {
    let line = removal_line(what, path, error);
    eprintln!("candor: warning: {line}");
    FAILURES
        .lock()
        .unwrap_or_else(|e| e.into_inner())
        .push(line);
}

/// The words for a removal that failed.
fn removal_line(what: &str, path: &Path, error: &std::io::Error) -> String {
    if error.kind() == std::io::ErrorKind::DirectoryNotEmpty {
        format!(
            "left {what} {} in place: it now holds files candor did not make",
            path.display()
        )
    } else {
        format!(
            "cannot remove {what} {}: {error} (remove it by hand)",
            path.display()
        )
    }
}

/// The failures recorded since the last call (for the Run's notes).
pub fn take_failures() -> Vec<String> {
    std::mem::take(&mut *FAILURES.lock().unwrap_or_else(|e| e.into_inner()))
}

/// The error a Run ends with when candor could not remove its own files:
/// the measurements are kept, but a file is left on the user's disk (exit 1).
#[derive(Debug, thiserror::Error)]
#[error("{}; every measurement finished, and the Run is marked failed for it", .lines.join("; "))]
pub struct LeftBehind {
    pub lines: Vec<String>,
}

/// The candor files (test files and temporaries, of any owner) in `dir`,
/// sorted: what a test looks for after a run to prove nothing was left.
pub fn candor_files(dir: &Path) -> Vec<PathBuf> {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return Vec::new();
    };
    let mut found: Vec<PathBuf> = entries
        .flatten()
        .filter(|e| names::parse(&e.file_name()).is_some())
        .map(|e| e.path())
        .collect();
    found.sort();
    found
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A directory candor made that another program filled is kept on
    /// purpose: no advice to remove another's files. (Tested on the words:
    /// the recorded failures are one list that other tests drain.)
    #[test]
    fn a_filled_directory_is_left_in_place_not_for_removal_by_hand() {
        let p = Path::new("/var/tmp/x");
        let full = std::io::Error::from(std::io::ErrorKind::DirectoryNotEmpty);
        let line = removal_line("directory it created", p, &full);
        assert!(
            line.contains("in place") && !line.contains("by hand"),
            "{line}"
        );
        let denied = std::io::Error::from(std::io::ErrorKind::PermissionDenied);
        assert!(removal_line("test file", p, &denied).contains("by hand"));
    }

    /// A pid that no process has now (the highest pids are rarely in use).
    fn dead_owner() -> Owner {
        let pid = (4_000_000..4_194_304)
            .rev()
            .find(|p| Owner::of_pid(*p).is_none())
            .unwrap();
        Owner { pid, start: 12345 }
    }

    #[test]
    fn a_dead_owners_files_go_and_everything_else_stays() {
        let dir = tempfile::tempdir().unwrap();
        let d = dir.path();
        let dead = dead_owner();
        let me = Owner::this_process();
        // Same pid as this process, another start time: a dead predecessor.
        let reused = Owner {
            pid: me.pid,
            start: me.start + 7,
        };
        let write = |name: &dyn AsRef<Path>| std::fs::write(d.join(name), b"x").unwrap();
        let stale_test = names::test_file("main", dead, 0);
        let stale_tmp = names::temporary("r.json".as_ref(), reused, 0xdead);
        let mine = names::test_file("disk", me, 0);
        write(&stale_test);
        write(&stale_tmp);
        write(&mine);
        write(&".candor-main-1-0.tmp");
        write(&"precious");
        // A planted link at a dead owner's name is never followed nor removed.
        let link = names::test_file("main", dead, 1);
        std::os::unix::fs::symlink(d.join("precious"), d.join(&link)).unwrap();
        let found = recover(d);
        assert_eq!(found.lines.len(), 2, "{:?}", found.lines);
        assert!(found.lines.iter().all(|l| l.starts_with("removed ")));
        assert!(found.lines[0].contains("no longer running"));
        assert!(!d.join(&stale_test).exists());
        assert!(!d.join(&stale_tmp).exists());
        for kept in [mine.as_str(), ".candor-main-1-0.tmp", "precious"] {
            assert!(d.join(kept).exists(), "{kept}");
        }
        assert!(std::fs::symlink_metadata(d.join(&link)).is_ok());
        assert_eq!(std::fs::read(d.join("precious")).unwrap(), b"x");
        assert!(found.running.is_empty());
    }

    #[test]
    fn a_locked_file_is_in_use_whatever_its_name_says() {
        let dir = tempfile::tempdir().unwrap();
        let name = names::test_file("main", dead_owner(), 0);
        let path = dir.path().join(&name);
        let file = std::fs::File::create(&path).unwrap();
        // A process in another pid namespace holds it: its pid means nothing here.
        let other = std::fs::File::open(&path).unwrap();
        hold(&other);
        let found = recover(dir.path());
        assert!(found.lines.is_empty(), "{:?}", found.lines);
        assert_eq!(found.running.len(), 1);
        assert!(path.exists());
        drop((file, other));
    }

    #[test]
    fn sharing_is_named() {
        let me = Owner::this_process();
        assert_eq!(sharing_warning(Path::new("/x"), &[]), None);
        let w = sharing_warning(Path::new("/x"), &[me]).unwrap();
        assert!(
            w.contains(&format!("pid {}", me.pid)) && w.contains("/x"),
            "{w}"
        );
    }
}
