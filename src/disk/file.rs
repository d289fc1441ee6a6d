//! Test files: created exclusively without following symlinks, named after
//! this process (pid and start time, `leftovers::names`) and held locked
//! while it runs, so that a later candor can tell a dead one's file from a
//! running one's; filled in full with seeded random data, fsynced, checked
//! for allocation, and always removed (on drop, which runs on success,
//! error and unwinding; a second Ctrl-C removes registered files at once).
//! A removal that fails is reported with the path (`leftovers::removal_failed`).

use super::buffer::{AlignedBuf, Payload};
use super::dir::TestDir;
use crate::error::usage;
use crate::result::TestFileInfo;
use std::ffi::CString;
use std::os::fd::{AsRawFd, FromRawFd, OwnedFd};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU32, Ordering};
use std::time::Instant;

static FILE_COUNTER: AtomicU32 = AtomicU32::new(0);

/// Chunk size of the fill: large enough to stream, small enough to notice Ctrl-C quickly.
const FILL_CHUNK: usize = 4 << 20;

/// The free space candor leaves untouched on a filesystem: 1 GiB or 5 % of
/// its size, whichever is larger, so that a benchmark never fills a disk
/// that other programs are using.
pub fn space_margin(total_bytes: u64) -> u64 {
    (1u64 << 30).max(total_bytes / 20)
}

/// A filled, verified test file. Removed when dropped.
#[derive(Debug)]
pub struct TestFile {
    path: PathBuf,
    name: CString,
    /// A duplicate of the directory's descriptor: the file can always be removed by name in its own directory.
    dir_fd: OwnedFd,
    /// The descriptor it was created with (and fills through), kept open to
    /// hold its lock: the mark that its owner still runs (see `leftovers`).
    held: OwnedFd,
    size: u64,
    dev: u64,
    ino: u64,
    allocated_bytes: u64,
    fill_ns: u64,
    nocow: Option<bool>,
    no_holes: Option<bool>,
}

impl TestFile {
    /// Creates `.candor-<purpose>-<pid>-<start>-<n>.tmp` in the directory, fills it
    /// with `size` bytes of random data from `seed`, fsyncs it and checks
    /// that every byte is allocated. Refuses when free space minus the
    /// margin is short (usage error).
    pub fn create(dir: &TestDir, purpose: &str, size: u64, seed: u64) -> anyhow::Result<TestFile> {
        if size == 0 {
            return Err(usage("--size must be greater than 0"));
        }
        let align = dir.direct_alignment();
        if size % align != 0 {
            return Err(usage(format!(
                "--size {size} is not a multiple of the {align}-byte O_DIRECT alignment of {}",
                dir.path().display()
            )));
        }
        let free = dir.free_bytes_now();
        let margin = space_margin(dir.total_bytes());
        if size.saturating_add(margin) > free {
            return Err(usage(format!(
                "--size {} does not fit in {}: {} free, and candor leaves {} free",
                crate::units::fmt_bytes(size),
                dir.path().display(),
                crate::units::fmt_bytes(free),
                crate::units::fmt_bytes(margin)
            )));
        }
        let dir_fd = dir
            .fd()
            .try_clone()
            .map_err(|e| anyhow::anyhow!("dup of the test directory's descriptor: {e}"))?;
        // O_EXCL: never reuse or overwrite an existing file; O_NOFOLLOW: a
        // symlink planted at the name is never followed (O_EXCL alone already
        // refuses it). A name that exists, whatever it is, is left alone and
        // the next number is tried.
        let owner = crate::leftovers::Owner::this_process();
        let (raw, cname, path) = loop {
            let n = FILE_COUNTER.fetch_add(1, Ordering::Relaxed);
            let name = crate::leftovers::names::test_file(purpose, owner, n);
            let cname = CString::new(name.clone()).expect("no NUL in generated name");
            let path = dir.path().join(&name);
            // SAFETY: valid dir fd and NUL-terminated name; the fd is owned below.
            let raw = unsafe {
                libc::openat(
                    dir_fd.as_raw_fd(),
                    cname.as_ptr(),
                    libc::O_CREAT
                        | libc::O_EXCL
                        | libc::O_NOFOLLOW
                        | libc::O_WRONLY
                        | libc::O_CLOEXEC,
                    0o600,
                )
            };
            if raw < 0 {
                let e = std::io::Error::last_os_error();
                if e.raw_os_error() == Some(libc::EEXIST) && n < 10_000 {
                    continue;
                }
                return Err(anyhow::anyhow!(
                    "cannot create test file {}: {e}",
                    path.display()
                ));
            }
            break (raw, cname, path);
        };
        // SAFETY: raw is a fresh descriptor owned by nobody else.
        let fd = unsafe { OwnedFd::from_raw_fd(raw) };
        crate::leftovers::hold(&fd);
        crate::cancel::register(path.clone());
        // No_COW must be set while the file is empty (btrfs ignores it after).
        let nocow = dir.copy_on_write().then(|| set_nocow(&fd));
        let mut file = TestFile {
            path,
            name: cname,
            dir_fd,
            held: fd,
            size,
            dev: 0,
            ino: 0,
            allocated_bytes: 0,
            fill_ns: 0,
            nocow,
            no_holes: None,
        };
        // From here on, dropping `file` removes it: every error path cleans up.
        let started = Instant::now();
        fill(&file.held, size, seed, dir.buffer_alignment(), &file.path)?;
        file.fill_ns = started.elapsed().as_nanos() as u64;
        // SAFETY: stat is plain data filled by fstat for a valid fd.
        let mut st: libc::stat64 = unsafe { std::mem::zeroed() };
        if unsafe { libc::fstat64(file.held.as_raw_fd(), &mut st) } != 0 {
            let e = std::io::Error::last_os_error();
            return Err(anyhow::anyhow!("fstat {}: {e}", file.path.display()));
        }
        file.dev = st.st_dev;
        file.ino = st.st_ino;
        file.allocated_bytes = (st.st_blocks as u64) * 512;
        if file.allocated_bytes < size {
            // Some filesystems count allocated blocks late (ZFS at the next
            // transaction-group sync, up to 5 s): sync the filesystem, look
            // again, and ask for holes before calling the file sparse.
            let (allocated, no_holes) = allocation_settled(&file.held, size);
            file.allocated_bytes = allocated;
            file.no_holes = no_holes;
        }
        if !allocation_ok(file.allocated_bytes, size, file.no_holes) {
            return Err(anyhow::anyhow!(
                "test file {} is sparse after a full write ({} of {} bytes allocated): the filesystem compresses or thin-provisions; reads would return holes, not data",
                file.path.display(),
                file.allocated_bytes,
                size
            ));
        }
        Ok(file)
    }

    pub fn path(&self) -> &Path {
        &self.path
    }

    pub fn size(&self) -> u64 {
        self.size
    }

    /// What the Run records about this file.
    pub fn info(&self) -> TestFileInfo {
        TestFileInfo {
            path: self.path.display().to_string(),
            size: self.size,
            allocated_bytes: self.allocated_bytes,
            fill_ns: self.fill_ns,
            nocow: self.nocow,
            no_holes: self.no_holes,
        }
    }

    /// Opens the file again for I/O (per worker), refusing symlinks and
    /// checking that it is still the very file candor created.
    pub fn open_for_io(
        &self,
        write: bool,
        direct: bool,
        sync: crate::disk::WriteSync,
    ) -> anyhow::Result<OwnedFd> {
        let mut flags =
            libc::O_NOFOLLOW | libc::O_CLOEXEC | super::platform::access_flags(sync, write);
        if direct {
            flags |= libc::O_DIRECT;
        }
        // SAFETY: valid dir fd and name; fd owned below.
        let raw = unsafe { libc::openat(self.dir_fd.as_raw_fd(), self.name.as_ptr(), flags) };
        if raw < 0 {
            let e = std::io::Error::last_os_error();
            if direct && e.raw_os_error() == Some(libc::EINVAL) {
                return Err(usage(format!(
                    "the filesystem holding {} does not support O_DIRECT; --buffered measures through the page cache instead",
                    self.path.display()
                )));
            }
            return Err(anyhow::anyhow!(
                "cannot open test file {}: {e}",
                self.path.display()
            ));
        }
        // SAFETY: raw is a fresh descriptor.
        let fd = unsafe { OwnedFd::from_raw_fd(raw) };
        let mut st: libc::stat64 = unsafe { std::mem::zeroed() };
        // SAFETY: plain data, valid fd.
        if unsafe { libc::fstat64(fd.as_raw_fd(), &mut st) } != 0
            || st.st_dev != self.dev
            || st.st_ino != self.ino
        {
            return Err(anyhow::anyhow!(
                "test file {} was replaced by another file while candor ran; stopping",
                self.path.display()
            ));
        }
        Ok(fd)
    }
}

impl TestFile {
    /// Drops the file's pages in `start..start + len` from the page cache
    /// (fio's `invalidate`, on by default), so that a buffered job starts
    /// from the disk and not from what an earlier job left in memory. Dirty
    /// pages stay until written back, as with fio.
    pub fn drop_cached(&self, start: u64, len: u64) {
        if let Ok(fd) = self.open_for_io(false, false, crate::disk::WriteSync::None) {
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

impl Drop for TestFile {
    fn drop(&mut self) {
        // SAFETY: valid owned dir fd and name; unlinkat removes the name
        // itself and never follows a symlink.
        if unsafe { libc::unlinkat(self.dir_fd.as_raw_fd(), self.name.as_ptr(), 0) } != 0 {
            let e = std::io::Error::last_os_error();
            // Gone already is what was wanted; anything else leaves a file
            // on the user's disk, which the user must hear about.
            if e.kind() != std::io::ErrorKind::NotFound {
                crate::leftovers::removal_failed(
                    &format!("test file ({})", crate::units::fmt_bytes(self.size)),
                    &self.path,
                    &e,
                );
            }
        }
        crate::cancel::unregister(&self.path);
    }
}

/// Writes `size` bytes of fresh random data (new bytes for every chunk, so
/// that no two chunks dedup), with O_DIRECT where the filesystem allows it,
/// then fsyncs.
fn fill(fd: &OwnedFd, size: u64, seed: u64, align: usize, path: &Path) -> anyhow::Result<()> {
    // Writing with O_DIRECT keeps a multi-GiB fill out of the page cache.
    // SAFETY: fcntl on a valid fd; if O_DIRECT is refused the fill is
    // buffered, which the fsync below makes durable all the same.
    unsafe {
        let flags = libc::fcntl(fd.as_raw_fd(), libc::F_GETFL);
        if flags >= 0 {
            libc::fcntl(fd.as_raw_fd(), libc::F_SETFL, flags | libc::O_DIRECT);
        }
    }
    let mut buf = AlignedBuf::new(FILL_CHUNK, align);
    let mut payload = Payload::new(seed ^ 0x5eed_f111);
    let mut offset = 0u64;
    while offset < size {
        crate::cancel::check()?;
        let len = (size - offset).min(FILL_CHUNK as u64) as usize;
        payload.fill(&mut buf.as_mut_slice()[..len]);
        let mut done = 0usize;
        while done < len {
            // SAFETY: the buffer holds len valid bytes; fd is valid.
            let n = unsafe {
                libc::pwrite64(
                    fd.as_raw_fd(),
                    buf.as_slice()[done..].as_ptr() as *const libc::c_void,
                    len - done,
                    (offset + done as u64) as libc::off64_t,
                )
            };
            if n < 0 {
                let e = std::io::Error::last_os_error();
                if e.kind() == std::io::ErrorKind::Interrupted {
                    continue;
                }
                return Err(anyhow::anyhow!("writing test file {}: {e}", path.display()));
            }
            if n == 0 {
                return Err(anyhow::anyhow!(
                    "writing test file {}: no progress",
                    path.display()
                ));
            }
            done += n as usize;
        }
        offset += len as u64;
    }
    // SAFETY: valid fd.
    if unsafe { libc::fsync(fd.as_raw_fd()) } != 0 {
        let e = std::io::Error::last_os_error();
        return Err(anyhow::anyhow!(
            "fsync of test file {}: {e}",
            path.display()
        ));
    }
    Ok(())
}
/// Sets FS_NOCOW_FL on an empty file; true when the flag held.
fn set_nocow(fd: &OwnedFd) -> bool {
    const FS_NOCOW_FL: libc::c_long = 0x0080_0000;
    let mut flags: libc::c_long = 0;
    // SAFETY: FS_IOC_GETFLAGS/SETFLAGS read and write one long through a
    // valid pointer on a descriptor we own.
    unsafe {
        if libc::ioctl(fd.as_raw_fd(), libc::FS_IOC_GETFLAGS, &mut flags) != 0 {
            return false;
        }
        flags |= FS_NOCOW_FL;
        if libc::ioctl(fd.as_raw_fd(), libc::FS_IOC_SETFLAGS, &flags) != 0 {
            return false;
        }
        flags = 0;
        libc::ioctl(fd.as_raw_fd(), libc::FS_IOC_GETFLAGS, &mut flags) == 0
            && flags & FS_NOCOW_FL != 0
    }
}

/// The allocated bytes after the filesystem has had a chance to count them
/// (syncfs, then up to three looks a second apart), and whether SEEK_HOLE
/// finds no hole before the end when they still fall short.
fn allocation_settled(fd: &OwnedFd, size: u64) -> (u64, Option<bool>) {
    let stat_blocks = || {
        // SAFETY: plain data filled by fstat for a valid fd.
        let mut st: libc::stat64 = unsafe { std::mem::zeroed() };
        if unsafe { libc::fstat64(fd.as_raw_fd(), &mut st) } != 0 {
            return 0;
        }
        (st.st_blocks as u64) * 512
    };
    let mut allocated = stat_blocks();
    for _ in 0..3 {
        if allocated >= size {
            return (allocated, None);
        }
        // SAFETY: syncfs on a valid descriptor.
        unsafe { libc::syncfs(fd.as_raw_fd()) };
        allocated = stat_blocks();
        if allocated < size {
            std::thread::sleep(std::time::Duration::from_secs(1));
            allocated = stat_blocks();
        }
    }
    if allocated >= size {
        return (allocated, None);
    }
    // SAFETY: lseek on a valid descriptor.
    let hole = unsafe { libc::lseek64(fd.as_raw_fd(), 0, libc::SEEK_HOLE) };
    (allocated, (hole >= 0).then_some(hole as u64 >= size))
}

/// A filled file is fully written when its blocks cover it, or when they
/// lag but no hole lies before its end (the blocks are counted later).
pub fn allocation_ok(allocated: u64, size: u64, no_holes: Option<bool>) -> bool {
    allocated >= size || no_holes == Some(true)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// ZFS counts a file's blocks at the next transaction-group sync: a file
    /// whose blocks lag but that has no hole is fully written; one with a
    /// hole, or unknown, is not.
    #[test]
    fn lagging_blocks_without_holes_are_allocated() {
        assert!(allocation_ok(1 << 20, 1 << 20, None));
        assert!(allocation_ok(4096, 1 << 20, Some(true)));
        assert!(!allocation_ok(4096, 1 << 20, Some(false)));
        assert!(!allocation_ok(4096, 1 << 20, None));
    }
}
