//! Directories a job file names that do not exist: created on Linux
//! (`made_dirs.rs`, each level under its parent's descriptor); not ported
//! to Windows, where such a job file is refused by name (exit 2) unless
//! every level already exists.

pub use super::missing_levels::missing_levels;
use std::path::Path;

/// The levels created for one directory: on Windows always none.
#[derive(Debug, Default)]
pub struct MadeDirs {}

impl MadeDirs {
    /// Nothing to do when `path` exists; a missing level is refused.
    pub fn create(path: &Path) -> anyhow::Result<MadeDirs> {
        let (_, missing) = missing_levels(path).map_err(|e| anyhow::anyhow!("{e}"))?;
        if missing.is_empty() {
            return Ok(MadeDirs {});
        }
        Err(crate::error::usage(format!(
            "{}: creating a job file's missing directories is not ported to Windows; create it first",
            path.display()
        )))
    }

    /// The levels made: none.
    pub fn paths(&self) -> Vec<&Path> {
        Vec::new()
    }
}
