//! One writer per Run file. `candor run` rewrites its Run after every
//! measurement (temp file + rename); two processes on the same file would
//! each drop the other's measurements at their next rename. So a battery
//! holds an exclusive `flock` on `.<name>.lock` beside the Run for as long as
//! it writes it, and a second `candor run --output X` or `--resume X` is
//! refused with one line.
//!
//! The lock file is created exclusively and without following symlinks. One
//! left behind by a killed candor (empty, ours, unlocked) is taken over; any
//! other file at that name is left alone and the run refused.

use crate::error::usage;
use std::fs::{File, OpenOptions};
use std::io;
use std::os::fd::AsRawFd;
use std::os::unix::fs::{MetadataExt, OpenOptionsExt};
use std::path::{Path, PathBuf};

/// The held lock; dropping it removes the lock file and releases the lock.
#[derive(Debug)]
pub struct RunLock {
    path: PathBuf,
    /// Held open: closing it releases the lock.
    _file: File,
}

impl RunLock {
    /// The lock file's path for a Run at `output` (one name on every system).
    pub fn path_for(output: &Path) -> PathBuf {
        super::lock_path_for(output)
    }

    /// Takes the lock for `output` or says who holds it (a usage error: exit 2).
    pub fn acquire(output: &Path) -> anyhow::Result<RunLock> {
        let path = Self::path_for(output);
        let refuse = |why: String| usage(format!("{}: {why}", output.display()));
        // Three tries: a holder may remove the file between our open and our flock.
        for _ in 0..3 {
            let (file, created) = match create_new(&path) {
                Ok(f) => (f, true),
                Err(e) if e.kind() == io::ErrorKind::AlreadyExists => match open_existing(&path) {
                    Ok(f) => (f, false),
                    Err(e) if e.kind() == io::ErrorKind::NotFound => continue,
                    Err(e) => {
                        return Err(refuse(format!(
                            "cannot open the lock file {}: {e}",
                            path.display()
                        )))
                    }
                },
                Err(e) => {
                    return Err(refuse(format!(
                        "cannot create the lock file {}: {e}",
                        path.display()
                    )))
                }
            };
            let meta = file.metadata()?;
            // SAFETY: geteuid has no preconditions.
            let ours = meta.uid() == unsafe { libc::geteuid() };
            let left_behind = meta.is_file() && meta.len() == 0 && ours;
            if !created && !left_behind {
                return Err(refuse(format!(
                    "{} exists and is not a lock file candor left behind; remove it if no candor is running",
                    path.display()
                )));
            }
            // SAFETY: flock on a descriptor we own.
            if unsafe { libc::flock(file.as_raw_fd(), libc::LOCK_EX | libc::LOCK_NB) } != 0 {
                let e = io::Error::last_os_error();
                if e.raw_os_error() == Some(libc::EWOULDBLOCK) {
                    return Err(refuse(format!(
                        "another candor is writing this Run (it holds {})",
                        path.display()
                    )));
                }
                return Err(refuse(format!("cannot lock {}: {e}", path.display())));
            }
            // The file we locked must still be the one at the path (a holder
            // that finished may have removed it after our open).
            match std::fs::symlink_metadata(&path) {
                Ok(now) if now.dev() == meta.dev() && now.ino() == meta.ino() => {
                    crate::cancel::register(path.clone());
                    return Ok(RunLock { path, _file: file });
                }
                _ => continue,
            }
        }
        Err(refuse(format!(
            "the lock file {} keeps changing: another candor is starting on this Run",
            path.display()
        )))
    }
}

impl Drop for RunLock {
    fn drop(&mut self) {
        crate::cancel::unregister(&self.path);
        // Removed while still locked, so nobody can lock this inode after us
        // and believe it guards the path.
        let _ = std::fs::remove_file(&self.path);
    }
}

/// A new lock file, created exclusively without following a link.
fn create_new(path: &Path) -> io::Result<File> {
    OpenOptions::new()
        .write(true)
        .create_new(true)
        .custom_flags(libc::O_NOFOLLOW | libc::O_CLOEXEC)
        .mode(0o600)
        .open(path)
}

/// A file already at the lock's name, opened only when it is a regular
/// file: a FIFO there would block the open for ever (and the signal that
/// should stop candor with it), a device would be opened for writing (a
/// tape rewinds, a drive spins up). Read-only is enough for `flock`;
/// O_NONBLOCK and O_NOCTTY cover whatever is swapped in after the look.
fn open_existing(path: &Path) -> io::Result<File> {
    let seen = std::fs::symlink_metadata(path)?;
    if !seen.is_file() {
        return Err(io::Error::other(format!(
            "it is {}, not a file candor made",
            crate::input::kind_in_words(&seen.file_type())
        )));
    }
    OpenOptions::new()
        .read(true)
        .custom_flags(libc::O_NOFOLLOW | libc::O_NONBLOCK | libc::O_NOCTTY | libc::O_CLOEXEC)
        .open(path)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn second_holder_is_refused_and_the_file_goes_with_the_lock() {
        let dir = tempfile::tempdir().unwrap();
        let out = dir.path().join("run.json");
        let lock = RunLock::acquire(&out).unwrap();
        let path = RunLock::path_for(&out);
        assert_eq!(path, dir.path().join(".run.json.lock"));
        assert!(path.exists());
        let err = RunLock::acquire(&out).unwrap_err().to_string();
        assert!(err.contains("another candor is writing this Run"), "{err}");
        drop(lock);
        assert!(!path.exists());
        // A stale lock file (a killed candor's: empty, ours) is taken over.
        std::fs::write(&path, b"").unwrap();
        let lock = RunLock::acquire(&out).unwrap();
        drop(lock);
        assert!(!path.exists());
    }

    #[test]
    fn foreign_files_and_symlinks_are_left_alone() {
        let dir = tempfile::tempdir().unwrap();
        let out = dir.path().join("run.json");
        let path = RunLock::path_for(&out);
        std::fs::write(&path, b"not ours").unwrap();
        let err = RunLock::acquire(&out).unwrap_err().to_string();
        assert!(
            err.contains("is not a lock file candor left behind"),
            "{err}"
        );
        assert_eq!(std::fs::read(&path).unwrap(), b"not ours");
        std::fs::remove_file(&path).unwrap();
        let target = dir.path().join("target");
        std::fs::write(&target, b"precious").unwrap();
        std::os::unix::fs::symlink(&target, &path).unwrap();
        let err = RunLock::acquire(&out).unwrap_err().to_string();
        assert!(
            err.contains("cannot open the lock file") && err.contains("a symbolic link"),
            "{err}"
        );
        assert_eq!(std::fs::read(&target).unwrap(), b"precious");
        assert!(std::fs::symlink_metadata(&path)
            .unwrap()
            .file_type()
            .is_symlink());
    }

    /// A FIFO at the lock's name is refused without being opened: a writer
    /// waiting on it stays blocked (an open for reading would release it),
    /// and candor does not hang (it used to, deaf to SIGTERM).
    #[test]
    fn a_fifo_or_device_at_the_lock_name_is_refused_unopened() {
        let dir = tempfile::tempdir().unwrap();
        let out = dir.path().join("run.json");
        let path = RunLock::path_for(&out);
        let c = std::ffi::CString::new(path.to_str().unwrap()).unwrap();
        // SAFETY: a valid NUL-terminated path.
        assert_eq!(unsafe { libc::mkfifo(c.as_ptr(), 0o600) }, 0);
        let (tx, rx) = std::sync::mpsc::channel();
        let fifo = path.clone();
        std::thread::spawn(move || {
            // Blocks until somebody opens the FIFO for reading.
            let _w = OpenOptions::new().write(true).open(&fifo);
            let _ = tx.send(());
        });
        let err = RunLock::acquire(&out).unwrap_err().to_string();
        assert!(err.contains("a FIFO"), "{err}");
        assert!(
            rx.recv_timeout(std::time::Duration::from_millis(300))
                .is_err(),
            "the FIFO was opened"
        );
        // Release the writer thread.
        let _r = OpenOptions::new()
            .read(true)
            .custom_flags(libc::O_NONBLOCK)
            .open(&path)
            .unwrap();
        std::fs::remove_file(&path).unwrap();
        // A character device (made as /dev/null is, where root may).
        // SAFETY: a valid path; mknod only creates a name.
        if unsafe { libc::mknod(c.as_ptr(), libc::S_IFCHR | 0o600, libc::makedev(1, 3)) } == 0 {
            let err = RunLock::acquire(&out).unwrap_err().to_string();
            assert!(err.contains("a character device"), "{err}");
        }
    }
}
