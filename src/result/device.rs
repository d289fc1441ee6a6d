//! What a Run keeps about the block devices its jobs used (`candor disk
//! --job ... --device`): which device, whether candor was allowed to write
//! it, and how many bytes each job wrote there and where.

use serde::{Deserialize, Serialize};

/// A block device that jobs of this Run used as their target, recorded in
/// the Run saved when it starts (before the device is opened for writing)
/// and updated as each job ends, so that even an interrupted Run says that
/// a device was opened for writing.
#[derive(Debug, Clone, Serialize, Deserialize, Default, PartialEq)]
pub struct DeviceRecord {
    /// As the user named it (`/dev/disk/by-id/...`, `/dev/sdb`).
    pub path: String,
    /// `major:minor`.
    pub dev: String,
    pub size_bytes: u64,
    pub logical_block_size: u64,
    /// Also named by `--overwrite-device`: its jobs may write it.
    pub writable: bool,
    /// Bytes written to it by the jobs that ended.
    #[serde(default)]
    pub written_bytes: u64,
    /// Each job that wrote it.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub jobs: Vec<DeviceJobIo>,
}

/// What one job did to a device: the bytes it wrote (ramp included) and
/// the byte range its threads worked in.
#[derive(Debug, Clone, Serialize, Deserialize, Default, PartialEq)]
pub struct DeviceJobIo {
    /// The device as named.
    pub device: String,
    /// The job's section.
    #[serde(default)]
    pub job: String,
    #[serde(default)]
    pub written_bytes: u64,
    /// First byte and end (exclusive) of the range its threads worked in.
    pub region: [u64; 2],
}
