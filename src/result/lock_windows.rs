//! One writer per Run file, on Windows: the lock is `.<name>.lock` beside
//! the Run, created with `CREATE_NEW`, shared with nobody (a second
//! candor's open fails with a sharing violation while it is held) and
//! deleted by Windows when its handle closes (`FILE_FLAG_DELETE_ON_CLOSE`:
//! also when candor is killed, so none is left behind). Any file already
//! at that name is left alone and the run refused.

use crate::error::usage;
use std::fs::{File, OpenOptions};
use std::io;
use std::os::windows::fs::OpenOptionsExt;
use std::path::{Path, PathBuf};
use windows_sys::Win32::Foundation::GENERIC_WRITE;
use windows_sys::Win32::Storage::FileSystem::{DELETE, FILE_FLAG_DELETE_ON_CLOSE};

/// ERROR_SHARING_VIOLATION: another process holds the file unshared.
const SHARING_VIOLATION: i32 = 32;

/// The held lock; dropping it closes the handle, which deletes the file.
#[derive(Debug)]
pub struct RunLock {
    /// Held open: closing it releases the lock and deletes the file.
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
        let made = OpenOptions::new()
            .write(true)
            .create_new(true)
            .access_mode(GENERIC_WRITE | DELETE)
            .share_mode(0)
            .custom_flags(FILE_FLAG_DELETE_ON_CLOSE)
            .open(&path);
        match made {
            Ok(file) => Ok(RunLock { _file: file }),
            Err(e) if e.kind() == io::ErrorKind::AlreadyExists => {
                // Held by a running candor: opening it is a sharing violation.
                let held = OpenOptions::new()
                    .read(true)
                    .share_mode(0)
                    .open(&path)
                    .err()
                    .is_some_and(|e| e.raw_os_error() == Some(SHARING_VIOLATION));
                Err(refuse(if held {
                    format!(
                        "another candor is writing this Run (it holds {})",
                        path.display()
                    )
                } else {
                    format!(
                        "{} exists and is not a lock candor holds (candor's are deleted when it ends); remove it if no candor is running",
                        path.display()
                    )
                }))
            }
            Err(e) => Err(refuse(format!(
                "cannot create the lock file {}: {e}",
                path.display()
            ))),
        }
    }
}
