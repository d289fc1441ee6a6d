//! Putting a finished temporary at its target's name on Windows without
//! replacing a file that was not checked: `MoveFileExW` without
//! `MOVEFILE_REPLACE_EXISTING` fails when a file appeared at the name
//! (no-replace). Windows has no atomic exchange of two names, so
//! `exchange` answers `false` and the caller checks the target again just
//! before a plain (replacing) rename, which leaves a window of one system
//! call, as on Linux filesystems without `RENAME_EXCHANGE`.

use std::os::windows::ffi::OsStrExt;
use std::path::Path;
use windows_sys::Win32::Storage::FileSystem::{MoveFileExW, MOVEFILE_WRITE_THROUGH};

/// A path as a NUL-terminated UTF-16 string.
fn wide(path: &Path) -> Vec<u16> {
    path.as_os_str().encode_wide().chain(Some(0)).collect()
}

/// Renames `from` to `to` only if nothing is at `to`: an error of kind
/// `AlreadyExists` otherwise, both files untouched.
pub(super) fn no_replace(from: &Path, to: &Path) -> std::io::Result<()> {
    // SAFETY: two NUL-terminated paths; no flag that replaces.
    if unsafe {
        MoveFileExW(
            wide(from).as_ptr(),
            wide(to).as_ptr(),
            MOVEFILE_WRITE_THROUGH,
        )
    } != 0
    {
        return Ok(());
    }
    Err(std::io::Error::last_os_error())
}

/// No atomic exchange on Windows: nothing is changed.
pub(super) fn exchange(_a: &Path, _b: &Path) -> std::io::Result<bool> {
    Ok(false)
}
