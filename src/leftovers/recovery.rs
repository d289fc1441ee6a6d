//! Recovering a killed candor's files on Linux: who owns them (pid and
//! start time from /proc), whether anyone holds their `flock`, removed by
//! name under the directory's descriptor.

use super::{names, owner, Owner, Recovery};
use std::ffi::CString;
use std::os::fd::{AsRawFd, FromRawFd, OwnedFd};
use std::os::unix::ffi::OsStrExt;
use std::os::unix::fs::MetadataExt;
use std::path::Path;

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
