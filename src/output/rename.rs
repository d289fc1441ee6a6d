//! Putting a finished temporary at its target's name without replacing a
//! file that was not checked. A plain rename(2) replaces whatever is at the
//! name when it runs, which in a shared directory may be another user's
//! file put there during the work. `renameat2` closes that gap:
//!
//! - `RENAME_NOREPLACE` when the target was absent: fails with EEXIST if a
//!   file appeared meanwhile;
//! - `RENAME_EXCHANGE` when replacing: the two names swap atomically, so
//!   the file that was at the target is still there, under the temporary's
//!   name, to be checked (the caller swaps back when it is not the one it
//!   checked).
//!
//! Filesystems without these flags (NFS, CIFS, FUSE before protocol 7.23,
//! and kernels before 3.15 for ext4/xfs/btrfs/tmpfs) answer EINVAL. There
//! `link(2)` then `unlink(2)` does the no-replace rename (link fails with
//! EEXIST); for the exchange the target is checked again just before a
//! plain rename, which leaves a window of one system call.

use std::ffi::CString;
use std::os::unix::ffi::OsStrExt;
use std::path::Path;

#[cfg(test)]
thread_local! {
    /// Tests set this to exercise the fallbacks on a filesystem that has renameat2.
    pub(super) static WITHOUT_RENAMEAT2: std::cell::Cell<bool> = const { std::cell::Cell::new(false) };
}

fn c_path(path: &Path) -> std::io::Result<CString> {
    CString::new(path.as_os_str().as_bytes())
        .map_err(|_| std::io::Error::other("a path with a NUL byte"))
}

/// renameat2(2) with `flags`; `None` when this filesystem or kernel does not
/// support the flags.
fn renameat2(from: &Path, to: &Path, flags: libc::c_uint) -> Option<std::io::Result<()>> {
    #[cfg(test)]
    if WITHOUT_RENAMEAT2.with(|w| w.get()) {
        return None;
    }
    let (from, to) = match (c_path(from), c_path(to)) {
        (Ok(f), Ok(t)) => (f, t),
        (Err(e), _) | (_, Err(e)) => return Some(Err(e)),
    };
    // SAFETY: two valid NUL-terminated paths, relative to the working directory.
    let rc = unsafe {
        libc::renameat2(
            libc::AT_FDCWD,
            from.as_ptr(),
            libc::AT_FDCWD,
            to.as_ptr(),
            flags,
        )
    };
    if rc == 0 {
        return Some(Ok(()));
    }
    let e = std::io::Error::last_os_error();
    match e.raw_os_error() {
        Some(libc::EINVAL) | Some(libc::ENOSYS) | Some(libc::EOPNOTSUPP) => None,
        _ => Some(Err(e)),
    }
}

/// Renames `from` to `to` only if nothing is at `to`: an error of kind
/// `AlreadyExists` otherwise, both files untouched.
pub(super) fn no_replace(from: &Path, to: &Path) -> std::io::Result<()> {
    if let Some(done) = renameat2(from, to, libc::RENAME_NOREPLACE) {
        return done;
    }
    match std::fs::hard_link(from, to) {
        Ok(()) => std::fs::remove_file(from),
        // A filesystem without hard links (vfat): checked, then renamed.
        Err(e) if matches!(e.raw_os_error(), Some(libc::EPERM) | Some(libc::EOPNOTSUPP)) => {
            match std::fs::symlink_metadata(to) {
                Ok(_) => Err(std::io::ErrorKind::AlreadyExists.into()),
                Err(n) if n.kind() == std::io::ErrorKind::NotFound => std::fs::rename(from, to),
                Err(n) => Err(n),
            }
        }
        Err(e) => Err(e),
    }
}

/// Swaps the files at `a` and `b` atomically. `Ok(false)` where the
/// filesystem cannot (nothing was changed).
pub(super) fn exchange(a: &Path, b: &Path) -> std::io::Result<bool> {
    match renameat2(a, b, libc::RENAME_EXCHANGE) {
        Some(done) => done.map(|()| true),
        None => Ok(false),
    }
}
