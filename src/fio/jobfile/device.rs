//! A job whose `filename=` is a block device: allowed only when the user
//! named that device on the command line (`--device`, reads), and for a job
//! that writes, named a second time (`--overwrite-device`). Devices are
//! matched by device number, never by path text: a symlink to the device is
//! the same device, a partition of it is another one.
//!
//! Pure but for `stat` on the path: nothing is opened here. Whether the
//! device is in use is checked by `plan::jobfile` (and again right before
//! it is opened for writing, by `disk::device`).

use std::path::{Path, PathBuf};

/// A block device the user allowed jobs to use, with its facts.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DeviceGrant {
    /// As the user named it on the command line.
    pub path: PathBuf,
    /// The device number (`st_rdev`).
    pub rdev: u64,
    pub size: u64,
    pub logical_block_size: u64,
    /// Also named by `--overwrite-device`: jobs may write it.
    pub writable: bool,
}

/// The grant that `path` (a block device, `rdev` its device number) falls under;
/// else why the job cannot use it, in words.
pub fn grant_for<'g>(
    grants: &'g [DeviceGrant],
    path: &Path,
    rdev: u64,
    writes: bool,
) -> Result<&'g DeviceGrant, String> {
    let Some(grant) = grants.iter().find(|g| g.rdev == rdev) else {
        return Err(format!(
            "{} is a block device that the command line does not name: candor uses a device only when named by --device {} (reads), and writes it only when also named by --overwrite-device",
            path.display(),
            path.display()
        ));
    };
    if writes && !grant.writable {
        return Err(format!(
            "{} is a block device named by --device only, and this job writes: writing destroys what the device holds, so candor writes a device only when it is also named by --overwrite-device",
            path.display()
        ));
    }
    Ok(grant)
}

/// The region of one clone on a device: `size=` if given, else (as fio)
/// from `offset` to the device's end; refused beyond the end.
pub fn region(
    grant: &DeviceGrant,
    size: Option<u64>,
    start: u64,
    min_bs: u64,
) -> Result<u64, String> {
    let dev = grant.path.display();
    if start >= grant.size {
        return Err(format!(
            "the offset {start} is at or beyond the end of {dev} ({} bytes)",
            grant.size
        ));
    }
    let len = size.unwrap_or(grant.size - start);
    if start.saturating_add(len) > grant.size {
        return Err(format!(
            "the job's region ends at byte {}, beyond the end of {dev} ({} bytes): fio would quietly stop at the device's end; candor runs only what the job says, so give a size= that fits",
            start.saturating_add(len),
            grant.size
        ));
    }
    Ok(len / min_bs * min_bs)
}

/// `path`'s device number when it is a block device.
#[cfg(unix)]
pub fn block_device(path: &Path) -> Option<u64> {
    use std::os::unix::fs::{FileTypeExt, MetadataExt};
    std::fs::metadata(path)
        .ok()
        .filter(|m| m.file_type().is_block_device())
        .map(|m| m.rdev())
}

/// A device number as `major:minor`.
#[cfg(unix)]
pub fn major_minor(rdev: u64) -> String {
    format!("{}:{}", libc::major(rdev), libc::minor(rdev))
}

/// A device number as it came (Windows has none: `block_device` finds none).
#[cfg(windows)]
pub fn major_minor(rdev: u64) -> String {
    rdev.to_string()
}

/// Windows has no block devices among files (`\\.\PhysicalDrive0` is not
/// one of a job file's paths candor takes): never one.
#[cfg(windows)]
pub fn block_device(_path: &Path) -> Option<u64> {
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    fn grant(size: u64) -> DeviceGrant {
        DeviceGrant {
            path: PathBuf::from("/dev/sdz"),
            rdev: 1,
            size,
            logical_block_size: 512,
            writable: false,
        }
    }

    #[test]
    fn the_region_runs_to_the_device_end_without_size_and_never_past_it() {
        let g = grant(64 << 20);
        // As fio: from offset to the end, whole blocks.
        assert_eq!(region(&g, None, 16 << 20, 65536), Ok(48 << 20));
        assert_eq!(region(&g, None, 0, 3 << 20), Ok(63 << 20));
        assert_eq!(region(&g, Some(4 << 20), 60 << 20, 4096), Ok(4 << 20));
        let past = region(&g, Some(8 << 20), 60 << 20, 4096).unwrap_err();
        assert!(past.contains("beyond the end of /dev/sdz"), "{past}");
        let at_end = region(&g, None, 64 << 20, 4096).unwrap_err();
        assert!(at_end.contains("at or beyond the end"), "{at_end}");
    }
}
