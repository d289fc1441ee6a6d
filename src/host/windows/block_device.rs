//! Block devices as targets on Windows: not ported. `inspect` refuses by
//! name (exit 2 where a command names a device), so no plan holds one.
//! The same names as Linux's `block_device.rs`.

use std::path::{Path, PathBuf};

/// What uses a device, in words that name it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DeviceUse(pub String);

/// A block device and everything that uses it (as on Linux; none is read on Windows).
#[derive(Debug, Clone)]
pub struct BlockDeviceFacts {
    pub given: PathBuf,
    pub name: String,
    pub dev: String,
    pub size_bytes: u64,
    pub logical_block_size: u64,
    pub read_only: bool,
    pub partitions: Vec<String>,
    pub users: Vec<DeviceUse>,
}

/// Why a path cannot be a device target, in one line.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct NotADevice(pub String);

impl std::fmt::Display for NotADevice {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.0)
    }
}

/// Refused: block devices are not ported to Windows.
pub fn inspect(path: &Path) -> Result<BlockDeviceFacts, NotADevice> {
    Err(NotADevice(format!(
        "{}: block devices as targets are not ported to Windows (candor measures test files there)",
        path.display()
    )))
}

/// Refused as `inspect`.
pub fn inspect_claimed(path: &Path) -> Result<BlockDeviceFacts, NotADevice> {
    inspect(path)
}
