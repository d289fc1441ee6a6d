//! A block device as a job's target (`--device`), in place of a test file:
//! candor creates nothing on it and removes nothing. A device jobs may
//! write (`--overwrite-device`) is checked again right before it is opened
//! (nothing may use it: the time of the plan's check is not the time of
//! use), then held open with `O_EXCL` for as long as the jobs run, so that
//! nobody can mount it, swap on it or stack on it meanwhile. Each worker
//! opens it again and checks that it is still that very device.

use std::ffi::CString;
use std::os::fd::{AsRawFd, FromRawFd, OwnedFd};
use std::os::unix::ffi::OsStrExt;
use std::path::{Path, PathBuf};

/// A block device opened for jobs.
#[derive(Debug)]
pub struct DeviceTarget {
    path: PathBuf,
    rdev: u64,
    size: u64,
    writable: bool,
    /// The exclusive open held while jobs may write it.
    _claim: Option<OwnedFd>,
}

impl DeviceTarget {
    /// Opens the device at `path` (device number `rdev`). With `writable`,
    /// `in_use` (the plan's check: `Err` names what uses it; its second
    /// argument says whether the caller already holds the device) is asked
    /// again first, then the device is claimed with `O_EXCL`, which the
    /// kernel refuses while it is mounted, swap, stacked on by dm or md, or
    /// claimed, and then `in_use` is asked once more: a loop device can be
    /// set up over a claimed device (loop claims nothing), so what appeared
    /// between the first check and the claim is caught before any write.
    pub fn open(
        path: &Path,
        rdev: u64,
        size: u64,
        writable: bool,
        in_use: impl Fn(&Path, bool) -> Result<(), String>,
    ) -> anyhow::Result<DeviceTarget> {
        let claim = if writable {
            let refuse = |why: String| {
                crate::error::usage(format!("writing {why} (found right before opening it)"))
            };
            in_use(path, false).map_err(refuse)?;
            let fd = open_checked(path, rdev, libc::O_RDWR | libc::O_EXCL).map_err(|e| {
                if e.raw_os_error() == Some(libc::EBUSY) {
                    crate::error::usage(format!(
                        "{} is in use (the kernel refused an exclusive open: mounted, swap, stacked on or held by another program); candor never writes a device in use",
                        path.display()
                    ))
                } else {
                    anyhow::anyhow!("cannot open {} for writing: {e}", path.display())
                }
            })?;
            in_use(path, true).map_err(refuse)?;
            Some(fd)
        } else {
            None
        };
        Ok(DeviceTarget {
            path: path.to_path_buf(),
            rdev,
            size,
            writable,
            _claim: claim,
        })
    }

    pub fn path(&self) -> &Path {
        &self.path
    }

    pub fn size(&self) -> u64 {
        self.size
    }

    pub fn writable(&self) -> bool {
        self.writable
    }

    /// Opens the device again for one worker; writing only on a device
    /// opened writable (the plan refuses such a job before; this is the
    /// last guard).
    pub fn open_for_io(
        &self,
        write: bool,
        direct: bool,
        sync: crate::disk::WriteSync,
    ) -> anyhow::Result<OwnedFd> {
        if write && !self.writable {
            return Err(anyhow::anyhow!(
                "{} was not named by --overwrite-device: refusing to write it",
                self.path.display()
            ));
        }
        let mut flags = super::platform::access_flags(sync, write);
        if direct {
            flags |= libc::O_DIRECT;
        }
        open_checked(&self.path, self.rdev, flags)
            .map_err(|e| anyhow::anyhow!("cannot open {}: {e}", self.path.display()))
    }

    /// Drops the device's cached pages in `start..start + len` (fio's `invalidate`).
    pub fn drop_cached(&self, start: u64, len: u64) {
        if let Ok(fd) = open_checked(&self.path, self.rdev, libc::O_RDONLY) {
            // SAFETY: advice on a valid descriptor; nothing is read or written.
            unsafe {
                libc::posix_fadvise64(
                    fd.as_raw_fd(),
                    start as libc::off64_t,
                    len as libc::off64_t,
                    libc::POSIX_FADV_DONTNEED,
                )
            };
        }
    }
}

/// Opens `path` with `flags` and checks that it is the block device `rdev`
/// (a path changed since the plan opens nothing else).
fn open_checked(path: &Path, rdev: u64, flags: i32) -> std::io::Result<OwnedFd> {
    let c = CString::new(path.as_os_str().as_bytes())
        .map_err(|_| std::io::Error::from(std::io::ErrorKind::InvalidInput))?;
    // SAFETY: a valid C string; the descriptor is owned below.
    let raw = unsafe { libc::open(c.as_ptr(), flags | libc::O_CLOEXEC) };
    if raw < 0 {
        return Err(std::io::Error::last_os_error());
    }
    // SAFETY: raw is a fresh descriptor.
    let fd = unsafe { OwnedFd::from_raw_fd(raw) };
    let mut st: libc::stat64 = unsafe { std::mem::zeroed() };
    // SAFETY: plain data, valid fd.
    let ok = unsafe { libc::fstat64(fd.as_raw_fd(), &mut st) } == 0
        && st.st_mode & libc::S_IFMT == libc::S_IFBLK
        && st.st_rdev == rdev;
    if !ok {
        return Err(std::io::Error::other(
            "it is no longer the block device the plan checked",
        ));
    }
    Ok(fd)
}
