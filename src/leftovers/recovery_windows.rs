//! A killed candor's files on Windows: found by name and reported, never
//! removed. Telling a dead owner from a running one (its pid and start
//! time, read from /proc on Linux) is not ported, so each is left in place
//! with a line that says so.

use super::{names, Owner, Recovery};
use std::path::Path;

/// Lists the candor files in `dir` that another process made, each left
/// in place with a line (owner liveness is not ported to Windows).
pub fn recover(dir: &Path) -> Recovery {
    let mut found = Recovery::default();
    let Ok(entries) = std::fs::read_dir(dir) else {
        return found;
    };
    let me = Owner::this_process();
    for entry in entries.flatten() {
        let Some((_, owner)) = names::parse(&entry.file_name()) else {
            continue;
        };
        if owner.pid != me.pid {
            found.lines.push(format!(
                "left {} in place: candor made it (pid {}), and on Windows candor cannot tell whether that process still runs; remove it by hand if no candor does",
                entry.path().display(),
                owner.pid
            ));
        }
    }
    found
}

/// Not told on Windows (owner liveness is not ported): none listed.
pub fn others_running(_dir: &Path) -> Vec<Owner> {
    Vec::new()
}

/// The warning for candors measuring in the same directory (none known on Windows).
pub fn sharing_warning(_dir: &Path, running: &[Owner]) -> Option<String> {
    (!running.is_empty()).then(|| {
        format!(
            "{} other candor(s) measure in this directory: figures share the disk",
            running.len()
        )
    })
}

/// No lock marks a file in use on Windows: the handles candor holds
/// already keep others from deleting its files.
pub fn hold<T>(_file: &T) {}
