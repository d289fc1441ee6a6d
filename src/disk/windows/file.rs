//! Test files on Windows: created with `CREATE_NEW` (never an existing
//! file, never through a link planted at the name), named after this
//! process as on Linux (`leftovers::names`), filled in full with seeded
//! random data through unbuffered writes, flushed, checked for allocation
//! (`FILE_STANDARD_INFO.AllocationSize`), and removed by marking the very
//! handle candor created for deletion (`FileDispositionInfo`): no name is
//! looked up again, so nothing another program put at the name is removed.
//! Workers reopen the file by name without following a reparse point and
//! check it is the same file (volume serial and file index).

use super::buffer::{AlignedBuf, Payload};
use super::dir::TestDir;
use super::platform::{write_through, Handle};
use crate::error::usage;
use crate::result::TestFileInfo;
use std::os::windows::fs::{FileExt, OpenOptionsExt};
use std::os::windows::io::AsRawHandle;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU32, Ordering};
use std::time::Instant;
use windows_sys::Win32::Foundation::{GENERIC_READ, GENERIC_WRITE};
use windows_sys::Win32::Storage::FileSystem::{
    FileDispositionInfo, FileStandardInfo, GetFileInformationByHandle,
    GetFileInformationByHandleEx, SetFileInformationByHandle, BY_HANDLE_FILE_INFORMATION, DELETE,
    FILE_DISPOSITION_INFO, FILE_FLAG_NO_BUFFERING, FILE_FLAG_OPEN_REPARSE_POINT,
    FILE_FLAG_WRITE_THROUGH, FILE_SHARE_DELETE, FILE_SHARE_READ, FILE_SHARE_WRITE,
    FILE_STANDARD_INFO,
};

static FILE_COUNTER: AtomicU32 = AtomicU32::new(0);

/// Chunk size of the fill: large enough to stream, small enough to notice Ctrl-C quickly.
const FILL_CHUNK: usize = 4 << 20;

/// Every handle candor opens on its test files shares reading, writing and
/// deleting: workers open it beside the creator's handle, and a second
/// Ctrl-C removes it by name while they may still hold it.
const SHARE_ALL: u32 = FILE_SHARE_READ | FILE_SHARE_WRITE | FILE_SHARE_DELETE;

/// The free space candor leaves untouched on a volume (as on Linux).
pub fn space_margin(total_bytes: u64) -> u64 {
    (1u64 << 30).max(total_bytes / 20)
}

/// A filled, verified test file. Removed when dropped.
#[derive(Debug)]
pub struct TestFile {
    path: PathBuf,
    /// The handle it was created with (with DELETE access): what removes it.
    held: Handle,
    size: u64,
    /// (volume serial, file index): the file's identity.
    id: (u32, u64),
    allocated_bytes: u64,
    fill_ns: u64,
}

/// The identity of an open file: (volume serial number, file index).
fn identity(file: &Handle) -> std::io::Result<(u32, u64)> {
    // SAFETY: plain data that GetFileInformationByHandle fills for an open handle.
    let mut info: BY_HANDLE_FILE_INFORMATION = unsafe { std::mem::zeroed() };
    if unsafe { GetFileInformationByHandle(file.as_raw_handle(), &mut info) } == 0 {
        return Err(std::io::Error::last_os_error());
    }
    let index = (info.nFileIndexHigh as u64) << 32 | info.nFileIndexLow as u64;
    Ok((info.dwVolumeSerialNumber, index))
}

/// The bytes the file system has allocated to an open file.
fn allocated(file: &Handle) -> std::io::Result<u64> {
    // SAFETY: plain data of the size given, filled for an open handle.
    let mut info: FILE_STANDARD_INFO = unsafe { std::mem::zeroed() };
    let ok = unsafe {
        GetFileInformationByHandleEx(
            file.as_raw_handle(),
            FileStandardInfo,
            (&mut info as *mut FILE_STANDARD_INFO).cast(),
            std::mem::size_of::<FILE_STANDARD_INFO>() as u32,
        )
    };
    if ok == 0 {
        return Err(std::io::Error::last_os_error());
    }
    Ok(info.AllocationSize.max(0) as u64)
}

impl TestFile {
    /// Creates `.candor-<purpose>-<pid>-<start>-<n>.tmp` in the directory,
    /// fills it with `size` bytes of random data from `seed`, flushes it and
    /// checks that every byte is allocated. Refuses when free space minus
    /// the margin is short (usage error).
    pub fn create(dir: &TestDir, purpose: &str, size: u64, seed: u64) -> anyhow::Result<TestFile> {
        if size == 0 {
            return Err(usage("--size must be greater than 0"));
        }
        let align = dir.direct_alignment();
        if size % align != 0 {
            return Err(usage(format!(
                "--size {size} is not a multiple of the {align}-byte sector size of {}",
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
        let owner = crate::leftovers::Owner::this_process();
        let (held, path) = loop {
            let n = FILE_COUNTER.fetch_add(1, Ordering::Relaxed);
            let path = dir
                .path()
                .join(crate::leftovers::names::test_file(purpose, owner, n));
            // CREATE_NEW: an existing name (file, link, anything) is left
            // alone and the next number is tried. Unbuffered from the start:
            // a multi-GiB fill stays out of the cache manager.
            let made = std::fs::OpenOptions::new()
                .write(true)
                .create_new(true)
                .access_mode(GENERIC_READ | GENERIC_WRITE | DELETE)
                .share_mode(SHARE_ALL)
                .custom_flags(FILE_FLAG_NO_BUFFERING)
                .open(&path);
            match made {
                Ok(f) => break (f, path),
                Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists && n < 10_000 => continue,
                Err(e) => {
                    return Err(anyhow::anyhow!(
                        "cannot create test file {}: {e}",
                        path.display()
                    ))
                }
            }
        };
        crate::cancel::register(path.clone());
        let mut file = TestFile {
            path,
            held,
            size,
            id: (0, 0),
            allocated_bytes: 0,
            fill_ns: 0,
        };
        // From here on, dropping `file` removes it: every error path cleans up.
        file.id = identity(&file.held)
            .map_err(|e| anyhow::anyhow!("identity of {}: {e}", file.path.display()))?;
        let started = Instant::now();
        fill(&file.held, size, seed, dir.buffer_alignment(), &file.path)?;
        file.fill_ns = started.elapsed().as_nanos() as u64;
        file.allocated_bytes = allocated(&file.held)
            .map_err(|e| anyhow::anyhow!("allocation of {}: {e}", file.path.display()))?;
        if file.allocated_bytes < size {
            return Err(anyhow::anyhow!(
                "test file {} is sparse after a full write ({} of {} bytes allocated): the file system compresses or thin-provisions; reads would return holes, not data",
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
            nocow: None,
            no_holes: None,
        }
    }

    /// Opens the file again for I/O (per worker): unbuffered when `direct`
    /// (`FILE_FLAG_NO_BUFFERING`), write-through when the job syncs its
    /// writes; a reparse point at the name is opened, never followed, and
    /// the identity check then refuses it.
    pub fn open_for_io(
        &self,
        write: bool,
        direct: bool,
        sync: crate::disk::WriteSync,
    ) -> anyhow::Result<Handle> {
        let mut flags = FILE_FLAG_OPEN_REPARSE_POINT;
        if direct {
            flags |= FILE_FLAG_NO_BUFFERING;
        }
        if write_through(sync, write) {
            flags |= FILE_FLAG_WRITE_THROUGH;
        }
        let file = std::fs::OpenOptions::new()
            .read(true)
            .write(write)
            .share_mode(SHARE_ALL)
            .custom_flags(flags)
            .open(&self.path)
            .map_err(|e| anyhow::anyhow!("cannot open test file {}: {e}", self.path.display()))?;
        if identity(&file).ok() != Some(self.id) {
            return Err(anyhow::anyhow!(
                "test file {} was replaced by another file while candor ran; stopping",
                self.path.display()
            ));
        }
        Ok(file)
    }

    /// Windows has no call that drops a file's cached pages: a buffered
    /// job (`--buffered`) may start from what an earlier job left in the
    /// cache (fio on Windows cannot drop them either).
    pub fn drop_cached(&self, _start: u64, _len: u64) {}
}

impl Drop for TestFile {
    fn drop(&mut self) {
        let mut info = FILE_DISPOSITION_INFO { DeleteFile: true };
        // SAFETY: the handle candor created, opened with DELETE access; the
        // struct is plain data of the size given.
        let ok = unsafe {
            SetFileInformationByHandle(
                self.held.as_raw_handle(),
                FileDispositionInfo,
                (&mut info as *mut FILE_DISPOSITION_INFO).cast(),
                std::mem::size_of::<FILE_DISPOSITION_INFO>() as u32,
            )
        };
        if ok == 0 {
            let e = std::io::Error::last_os_error();
            crate::leftovers::removal_failed(
                &format!("test file ({})", crate::units::fmt_bytes(self.size)),
                &self.path,
                &e,
            );
        }
        crate::cancel::unregister(&self.path);
    }
}

/// Writes `size` bytes of fresh random data (new bytes for every chunk, so
/// that no two chunks dedup) through the unbuffered handle, then flushes.
fn fill(file: &Handle, size: u64, seed: u64, align: usize, path: &Path) -> anyhow::Result<()> {
    let mut buf = AlignedBuf::new(FILL_CHUNK, align);
    let mut payload = Payload::new(seed ^ 0x5eed_f111);
    let mut offset = 0u64;
    while offset < size {
        crate::cancel::check()?;
        let len = (size - offset).min(FILL_CHUNK as u64) as usize;
        payload.fill(&mut buf.as_mut_slice()[..len]);
        let mut done = 0usize;
        while done < len {
            let n = file
                .seek_write(&buf.as_slice()[done..len], offset + done as u64)
                .map_err(|e| anyhow::anyhow!("writing test file {}: {e}", path.display()))?;
            if n == 0 {
                return Err(anyhow::anyhow!(
                    "writing test file {}: no progress",
                    path.display()
                ));
            }
            done += n;
        }
        offset += len as u64;
    }
    file.sync_all()
        .map_err(|e| anyhow::anyhow!("flush of test file {}: {e}", path.display()))
}
