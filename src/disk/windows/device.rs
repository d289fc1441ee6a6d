//! Block devices as a job's target are Linux's only (`--device`, a job
//! file's `filename=` of a device): on Windows the open is refused by name
//! (exit 2), so no `DeviceTarget` can exist there. The same names as
//! Linux's `device.rs`, so the plan and runner are one code.

use super::platform::Handle;
use std::path::Path;

/// A block device opened for jobs: none can be made on Windows.
#[derive(Debug)]
pub struct DeviceTarget {
    never: std::convert::Infallible,
}

impl DeviceTarget {
    /// Refuses: raw devices (`\\.\PhysicalDriveN`) are not ported to Windows.
    pub fn open(
        path: &Path,
        _rdev: u64,
        _size: u64,
        _writable: bool,
        _in_use: impl Fn(&Path, bool) -> Result<(), String>,
    ) -> anyhow::Result<DeviceTarget> {
        Err(crate::error::usage(format!(
            "{}: block devices as targets are not ported to Windows (candor measures test files there)",
            path.display()
        )))
    }

    pub fn path(&self) -> &Path {
        match self.never {}
    }

    pub fn size(&self) -> u64 {
        match self.never {}
    }

    pub fn writable(&self) -> bool {
        match self.never {}
    }

    pub fn open_for_io(
        &self,
        _write: bool,
        _direct: bool,
        _sync: crate::disk::WriteSync,
    ) -> anyhow::Result<Handle> {
        match self.never {}
    }

    pub fn drop_cached(&self, _start: u64, _len: u64) {
        match self.never {}
    }
}
