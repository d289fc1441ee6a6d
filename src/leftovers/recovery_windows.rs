//! A killed candor's files on Windows: found by name and reported, never
//! removed (the removal's checks are Linux's, not ported). Whether the
//! owner still runs is told from its pid and creation time
//! (`owner_windows.rs`), so the line says which, and candors measuring in
//! the same directory are warned of.

use super::{names, Owner, Recovery};
use std::path::Path;

/// Lists the candor files in `dir` that another process made, each left
/// in place with a line saying whether its owner still runs.
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
        if owner.pid == me.pid {
            continue;
        }
        let running = owner.is_running();
        if running && !found.running.contains(&owner) {
            found.running.push(owner);
        }
        found.lines.push(if running {
            format!(
                "left {} in place: the candor that made it (pid {}) still runs",
                entry.path().display(),
                owner.pid
            )
        } else {
            format!(
                "left {} in place: the candor that made it (pid {}) is gone, and removing leftovers is not ported to Windows; remove it by hand",
                entry.path().display(),
                owner.pid
            )
        });
    }
    found
}

/// The other candors that still run and have files in `dir`.
pub fn others_running(dir: &Path) -> Vec<Owner> {
    let me = Owner::this_process();
    let mut running: Vec<Owner> = super::candor_files(dir)
        .iter()
        .filter_map(|p| names::parse(p.file_name()?).map(|(_, o)| o))
        .filter(|o| o.pid != me.pid && o.is_running())
        .collect();
    running.sort_by_key(|o| (o.pid, o.start));
    running.dedup();
    running
}

/// No lock marks a file in use on Windows: the handles candor holds
/// already keep others from deleting its files.
pub fn hold<T>(_file: &T) {}
