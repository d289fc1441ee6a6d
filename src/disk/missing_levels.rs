//! Which levels of a directory a job file names are missing: what
//! `made_dirs` would create (every OS asks it; only Linux creates them).

use std::ffi::OsString;
use std::path::{Path, PathBuf};

/// The nearest directory above (or at) `path` that exists, and the names of
/// the levels below it that do not, outermost first. An existing level that
/// is not a directory (a file, a dangling link) is an error in words.
pub fn missing_levels(path: &Path) -> Result<(PathBuf, Vec<OsString>), String> {
    let mut at = path.to_path_buf();
    let mut missing = Vec::new();
    loop {
        match std::fs::symlink_metadata(&at) {
            Ok(_) => match std::fs::metadata(&at) {
                Ok(m) if m.is_dir() => break,
                Ok(_) => return Err(format!("{} is not a directory", at.display())),
                Err(e) => {
                    return Err(format!(
                        "{}: {e} (a symbolic link to nothing?)",
                        at.display()
                    ))
                }
            },
            // ENOTDIR: a level above is not a directory; found going up.
            Err(e)
                if e.kind() == std::io::ErrorKind::NotFound
                    || e.kind() == std::io::ErrorKind::NotADirectory =>
            {
                let Some(name) = at.file_name() else {
                    return Err(format!("{}: no such directory", path.display()));
                };
                missing.push(name.to_os_string());
                if !at.pop() {
                    return Err(format!("{}: no such directory", path.display()));
                }
            }
            Err(e) => return Err(format!("{}: {e}", at.display())),
        }
    }
    missing.reverse();
    Ok((at, missing))
}
