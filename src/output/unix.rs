//! The output layer's calls on Linux: `O_PATH | O_NOFOLLOW` and fstat to
//! look at a target, `access(2)`, a replaced file's mode and owner kept,
//! `fallocate`.

use std::os::unix::fs::{MetadataExt, OpenOptionsExt, PermissionsExt};
use std::path::Path;

/// Whether this process may create files in `dir` (access(2) with W_OK and
/// X_OK: it answers for read-only mounts and immutable directories too,
/// and for root as well as for other users). `may_access` with the modes.
pub fn writable_dir(dir: &Path) -> std::io::Result<()> {
    may_access(dir, libc::W_OK | libc::X_OK)
}

/// access(2) of `path` with `how` (`libc::W_OK`, ...): the error says why not.
fn may_access(path: &Path, how: libc::c_int) -> std::io::Result<()> {
    let c = std::ffi::CString::new(path.as_os_str().as_encoded_bytes())
        .map_err(|_| std::io::Error::from(std::io::ErrorKind::InvalidInput))?;
    // SAFETY: c is a valid NUL-terminated path; access() only reads it.
    if unsafe { libc::access(c.as_ptr(), how) } == 0 {
        Ok(())
    } else {
        Err(std::io::Error::last_os_error())
    }
}

/// Whether this process may write the file at `path` (access(2), W_OK).
pub fn may_write(path: &Path) -> std::io::Result<()> {
    may_access(path, libc::W_OK)
}

/// What is at a path, seen on its own descriptor: opened with
/// `O_PATH | O_NOFOLLOW` (neither read nor written, so a device or FIFO is
/// never really opened, and a symlink is seen as itself), then fstat.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Found {
    dev: u64,
    ino: u64,
    mode: u32,
    uid: u32,
    gid: u32,
}

impl Found {
    fn kind(&self) -> u32 {
        self.mode & libc::S_IFMT
    }
    pub(super) fn is_file(&self) -> bool {
        self.kind() == libc::S_IFREG
    }
    pub(super) fn is_dir(&self) -> bool {
        self.kind() == libc::S_IFDIR
    }
    pub(super) fn is_symlink(&self) -> bool {
        self.kind() == libc::S_IFLNK
    }
    pub(super) fn same_file(&self, other: &Found) -> bool {
        (self.dev, self.ino) == (other.dev, other.ino)
    }
}

/// What is at `path`, or `None` when nothing is.
pub(super) fn inspect(path: &Path) -> std::io::Result<Option<Found>> {
    let opened = std::fs::OpenOptions::new()
        .read(true)
        .custom_flags(libc::O_PATH | libc::O_NOFOLLOW | libc::O_CLOEXEC)
        .open(path);
    match opened {
        Ok(fd) => Ok(Some(found_of(&fd)?)),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(None),
        Err(e) => Err(e),
    }
}

/// What an opened file is.
pub(super) fn found_of(file: &std::fs::File) -> std::io::Result<Found> {
    let meta = file.metadata()?;
    Ok(Found {
        dev: meta.dev(),
        ino: meta.ino(),
        mode: meta.mode(),
        uid: meta.uid(),
        gid: meta.gid(),
    })
}

/// Opens a regular file for reading without following a link or blocking
/// on a FIFO; anything else is refused.
pub(super) fn open_regular(path: &Path) -> std::io::Result<std::fs::File> {
    let file = std::fs::OpenOptions::new()
        .read(true)
        .custom_flags(libc::O_NOFOLLOW | libc::O_NONBLOCK | libc::O_CLOEXEC)
        .open(path)?;
    if !file.metadata()?.file_type().is_file() {
        return Err(std::io::Error::other("not a regular file"));
    }
    Ok(file)
}

/// Keeps the replaced file's mode and (as root) its owner on the new one.
pub(super) fn keep_mode_and_owner(file: &std::fs::File, found: &Found) -> std::io::Result<()> {
    file.set_permissions(std::fs::Permissions::from_mode(found.mode & 0o7777))?;
    // SAFETY: geteuid has no preconditions.
    if unsafe { libc::geteuid() } == 0 {
        std::os::unix::fs::fchown(file, Some(found.uid), Some(found.gid))?;
    }
    Ok(())
}

/// How a temporary is created: mode 0644, never through a symlink.
pub(super) trait TemporaryFlags {
    fn temporary_flags(&mut self) -> &mut Self;
}

impl TemporaryFlags for std::fs::OpenOptions {
    fn temporary_flags(&mut self) -> &mut Self {
        self.mode(0o644)
            .custom_flags(libc::O_NOFOLLOW | libc::O_CLOEXEC)
    }
}

/// Allocates `size` bytes to `file` (fallocate; zeros written where the
/// filesystem has no fallocate).
pub(super) fn allocate(file: &std::fs::File, size: u64) -> std::io::Result<()> {
    use std::os::fd::AsRawFd;
    // SAFETY: fallocate on a valid descriptor.
    if unsafe { libc::fallocate64(file.as_raw_fd(), 0, 0, size as libc::off64_t) } == 0 {
        return Ok(());
    }
    let e = std::io::Error::last_os_error();
    if e.raw_os_error() != Some(libc::EOPNOTSUPP) {
        return Err(e);
    }
    super::write_zeros(file, size)
}

/// Whether `a` and `b` are the same existing file (device and inode,
/// through any link); None when either cannot be looked at.
pub(super) fn same_file(a: &Path, b: &Path) -> Option<bool> {
    let (x, y) = (std::fs::metadata(a).ok()?, std::fs::metadata(b).ok()?);
    Some(x.dev() == y.dev() && x.ino() == y.ino())
}
