//! The output layer's calls on Windows: a target looked at on a handle
//! opened without read or write access and without following a reparse
//! point (`FILE_FLAG_OPEN_REPARSE_POINT`: a symbolic link or junction is
//! seen as itself), identity by volume serial and file index, and the
//! read-only attribute for "may write". A replaced file keeps its
//! read-only attribute; owners and ACLs are Windows's to inherit.

use std::os::windows::fs::OpenOptionsExt;
use std::os::windows::io::AsRawHandle;
use std::path::Path;
use windows_sys::Win32::Storage::FileSystem::{
    GetFileInformationByHandle, GetFileType, BY_HANDLE_FILE_INFORMATION, FILE_ATTRIBUTE_DIRECTORY,
    FILE_ATTRIBUTE_READONLY, FILE_ATTRIBUTE_REPARSE_POINT, FILE_FLAG_BACKUP_SEMANTICS,
    FILE_FLAG_OPEN_REPARSE_POINT, FILE_TYPE_DISK,
};

/// Whether this process may create files in `dir`: it must be a directory
/// that is not read-only (Windows's ACLs answer at the create itself).
pub fn writable_dir(dir: &Path) -> std::io::Result<()> {
    let meta = std::fs::metadata(dir)?;
    if !meta.is_dir() {
        return Err(std::io::ErrorKind::NotADirectory.into());
    }
    Ok(())
}

/// Whether this process may write the file at `path`: not read-only.
pub fn may_write(path: &Path) -> std::io::Result<()> {
    if std::fs::metadata(path)?.permissions().readonly() {
        return Err(std::io::ErrorKind::PermissionDenied.into());
    }
    Ok(())
}

/// What is at a path, seen on its own handle (no read or write access, a
/// reparse point as itself).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Found {
    volume: u32,
    index: u64,
    attributes: u32,
    /// A disk file or directory (not a console, pipe or device name).
    on_disk: bool,
}

impl Found {
    pub(super) fn is_file(&self) -> bool {
        self.on_disk && !self.is_dir() && !self.is_symlink()
    }
    pub(super) fn is_dir(&self) -> bool {
        self.attributes & FILE_ATTRIBUTE_DIRECTORY != 0 && !self.is_symlink()
    }
    pub(super) fn is_symlink(&self) -> bool {
        self.attributes & FILE_ATTRIBUTE_REPARSE_POINT != 0
    }
    pub(super) fn same_file(&self, other: &Found) -> bool {
        (self.volume, self.index) == (other.volume, other.index)
    }
}

/// What an opened file is.
pub(super) fn found_of(file: &std::fs::File) -> std::io::Result<Found> {
    // SAFETY: plain data that GetFileInformationByHandle fills for an open handle.
    let mut info: BY_HANDLE_FILE_INFORMATION = unsafe { std::mem::zeroed() };
    if unsafe { GetFileInformationByHandle(file.as_raw_handle(), &mut info) } == 0 {
        return Err(std::io::Error::last_os_error());
    }
    // SAFETY: GetFileType only reads an open handle.
    let on_disk = unsafe { GetFileType(file.as_raw_handle()) } == FILE_TYPE_DISK;
    Ok(Found {
        volume: info.dwVolumeSerialNumber,
        index: (info.nFileIndexHigh as u64) << 32 | info.nFileIndexLow as u64,
        attributes: info.dwFileAttributes,
        on_disk,
    })
}

/// Opens `path` to look at it: no read or write access, directories too,
/// a reparse point as itself.
fn open_to_look(path: &Path) -> std::io::Result<std::fs::File> {
    std::fs::OpenOptions::new()
        .access_mode(0)
        .custom_flags(FILE_FLAG_OPEN_REPARSE_POINT | FILE_FLAG_BACKUP_SEMANTICS)
        .open(path)
}

/// What is at `path`, or `None` when nothing is.
pub(super) fn inspect(path: &Path) -> std::io::Result<Option<Found>> {
    match open_to_look(path) {
        Ok(file) => Ok(Some(found_of(&file)?)),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(None),
        Err(e) => Err(e),
    }
}

/// Opens a regular file for reading without following a reparse point;
/// anything else is refused.
pub(super) fn open_regular(path: &Path) -> std::io::Result<std::fs::File> {
    let file = std::fs::OpenOptions::new()
        .read(true)
        .custom_flags(FILE_FLAG_OPEN_REPARSE_POINT)
        .open(path)?;
    if !found_of(&file)?.is_file() {
        return Err(std::io::Error::other("not a regular file"));
    }
    Ok(file)
}

/// Keeps the replaced file's read-only attribute on the new one.
pub(super) fn keep_mode_and_owner(file: &std::fs::File, found: &Found) -> std::io::Result<()> {
    if found.attributes & FILE_ATTRIBUTE_READONLY != 0 {
        let mut p = file.metadata()?.permissions();
        p.set_readonly(true);
        file.set_permissions(p)?;
    }
    Ok(())
}

/// How a temporary is created: `CREATE_NEW` (`create_new`) already never
/// opens what is at the name, a link included.
pub(super) trait TemporaryFlags {
    fn temporary_flags(&mut self) -> &mut Self;
}

impl TemporaryFlags for std::fs::OpenOptions {
    fn temporary_flags(&mut self) -> &mut Self {
        self
    }
}

/// Allocates `size` bytes to `file`: zeros written and flushed (Windows
/// allocates a file's length lazily; written zeros are blocks it holds).
pub(super) fn allocate(file: &std::fs::File, size: u64) -> std::io::Result<()> {
    super::write_zeros(file, size)
}

/// Whether `a` and `b` are the same existing file (volume and file index,
/// through any link); None when either cannot be looked at.
pub(super) fn same_file(a: &Path, b: &Path) -> Option<bool> {
    let look = |p: &Path| {
        std::fs::OpenOptions::new()
            .access_mode(0)
            .custom_flags(FILE_FLAG_BACKUP_SEMANTICS)
            .open(p)
            .and_then(|f| found_of(&f))
            .ok()
    };
    Some(look(a)?.same_file(&look(b)?))
}
