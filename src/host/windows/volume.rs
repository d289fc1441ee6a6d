//! The volume a path lies on, through Win32: its root
//! (`GetVolumePathNameW`), file system (`GetVolumeInformationW`), sector
//! and cluster sizes (`GetDiskFreeSpaceW`) and free space
//! (`GetDiskFreeSpaceExW`). Each is None when Windows does not answer
//! (Wine answers few): a fact lost, never guessed.

use crate::result::StorageFacts;
use std::os::windows::ffi::{OsStrExt, OsStringExt};
use std::path::Path;
use windows_sys::Win32::Storage::FileSystem::{
    GetDiskFreeSpaceExW, GetDiskFreeSpaceW, GetVolumeInformationW, GetVolumePathNameW,
};

/// A path as a NUL-terminated UTF-16 string.
fn wide(path: &Path) -> Vec<u16> {
    path.as_os_str().encode_wide().chain(Some(0)).collect()
}

/// UTF-16 up to its first NUL.
fn from_wide(buf: &[u16]) -> String {
    let end = buf.iter().position(|&c| c == 0).unwrap_or(buf.len());
    std::ffi::OsString::from_wide(&buf[..end])
        .to_string_lossy()
        .into_owned()
}

/// The root of the volume holding `path`.
pub fn volume_root(path: &Path) -> Option<String> {
    let mut buf = [0u16; 1024];
    // SAFETY: a NUL-terminated path and a buffer of the length given.
    let ok = unsafe { GetVolumePathNameW(wide(path).as_ptr(), buf.as_mut_ptr(), buf.len() as u32) };
    (ok != 0).then(|| from_wide(&buf))
}

/// The file system's name of the volume whose root is `root` (`NTFS`).
pub fn fs_name_of(root: &str) -> Option<String> {
    let root = wide(Path::new(root));
    let mut name = [0u16; 64];
    // SAFETY: a NUL-terminated root; the outputs not asked for are null.
    let ok = unsafe {
        GetVolumeInformationW(
            root.as_ptr(),
            std::ptr::null_mut(),
            0,
            std::ptr::null_mut(),
            std::ptr::null_mut(),
            std::ptr::null_mut(),
            name.as_mut_ptr(),
            name.len() as u32,
        )
    };
    (ok != 0).then(|| from_wide(&name).to_lowercase())
}

/// (bytes per sector, bytes per cluster) of the volume whose root is `root`.
pub fn geometry(root: &str) -> Option<(u64, u64)> {
    let root = wide(Path::new(root));
    let (mut per_cluster, mut sector, mut free, mut total) = (0u32, 0u32, 0u32, 0u32);
    // SAFETY: a NUL-terminated root and four u32s to fill.
    let ok = unsafe {
        GetDiskFreeSpaceW(
            root.as_ptr(),
            &mut per_cluster,
            &mut sector,
            &mut free,
            &mut total,
        )
    };
    (ok != 0 && sector > 0).then(|| (sector as u64, sector as u64 * per_cluster as u64))
}

/// (free to this user, total) bytes of the volume holding `path`.
pub fn space(path: &Path) -> std::io::Result<(u64, u64)> {
    let (mut free, mut total, mut all_free) = (0u64, 0u64, 0u64);
    // SAFETY: a NUL-terminated path and three u64s to fill.
    let ok =
        unsafe { GetDiskFreeSpaceExW(wide(path).as_ptr(), &mut free, &mut total, &mut all_free) };
    if ok == 0 {
        return Err(std::io::Error::last_os_error());
    }
    Ok((free, total))
}

/// The storage facts of `dir`: its volume's.
pub fn storage_facts(dir: &Path) -> StorageFacts {
    let canonical = dir.canonicalize().unwrap_or_else(|_| dir.to_path_buf());
    let volume = volume_root(&canonical);
    let geometry = volume.as_deref().and_then(geometry);
    let space = space(&canonical).ok();
    StorageFacts {
        dir: canonical.display().to_string(),
        fs_type: volume.as_deref().and_then(fs_name_of),
        mount_point: volume,
        logical_block_size: geometry.map(|(sector, _)| sector),
        free_bytes: space.map(|(free, _)| free),
        total_bytes: space.map(|(_, total)| total),
        ..StorageFacts::default()
    }
}
