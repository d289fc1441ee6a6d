//! The history database's file on Windows: not ported. Checking that
//! SQLite opened the very file candor checked needs the file's identity
//! on SQLite's own descriptor (`/proc/self/fd` on Linux), which this port
//! does not have yet; so the history is refused by name (exit 2 for
//! `candor history`; a measuring command keeps its Run and warns once).

use std::path::Path;
use std::time::Duration;

/// A database file checked: none can be on Windows.
pub struct Checked {
    never: std::convert::Infallible,
}

/// Refuses: the history is not ported to Windows.
pub fn check(path: &Path, _create: bool, _wait: Duration) -> anyhow::Result<Checked> {
    Err(crate::error::usage(format!(
        "{}: the history database is not ported to Windows (the Run file holds every figure; --no-history silences this)",
        path.display()
    )))
}

impl Checked {
    pub fn created(&self) -> bool {
        match self.never {}
    }

    pub fn confirm(&self) -> anyhow::Result<()> {
        match self.never {}
    }

    pub fn release(self) -> std::fs::File {
        match self.never {}
    }

    pub fn abandon(self) {
        match self.never {}
    }
}
