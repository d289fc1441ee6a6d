//! Files candor leaves beside the user's while it works: test files and the
//! temporaries of its atomic writes. Each is named after the process that
//! made it (`names`: pid and start time, `owner`), and each is held with an
//! exclusive `flock` for as long as that process has it open.
//!
//! A candor killed with SIGKILL (or by the OOM killer, or a power cut)
//! cannot remove its files. So every candor, before it works in a
//! directory, looks there for candor files whose owner is gone and removes
//! them, one line each ([`recover`]). A file is removed only when all of
//! these hold: its name is exactly one of candor's forms, it is a regular
//! file (never a symlink or anything else) owned by this user, its owner
//! process is not running (pid gone, or the pid now belongs to a process
//! with another start time), and no process holds its lock (a candor in
//! another pid namespace sharing the directory would). Anything less
//! certain is left alone.
//!
//! candor's own files that it fails to remove (a filesystem turned
//! read-only) are reported with their path ([`removal_failed`]) and end up
//! in the Run's notes ([`take_failures`]).

pub mod names;
pub mod owner;
#[cfg(windows)]
mod owner_windows;

pub use owner::Owner;

use std::path::{Path, PathBuf};
use std::sync::Mutex;

/// What a look at a directory found.
#[derive(Debug, Default)]
pub struct Recovery {
    /// One line per leftover removed, or found and not removed (why).
    pub lines: Vec<String>,
    /// Other candors, still running, with a test file in the directory.
    pub running: Vec<Owner>,
}

#[cfg(unix)]
mod recovery;
#[cfg(unix)]
pub use recovery::{hold, others_running, recover};
#[cfg(windows)]
#[path = "recovery_windows.rs"]
mod recovery;
#[cfg(windows)]
pub use recovery::{hold, others_running, recover};

/// The warning for a measurement that shares its directory (and so its
/// disk) with other running candors, None when it has it alone.
pub fn sharing_warning(dir: &Path, running: &[Owner]) -> Option<String> {
    if running.is_empty() {
        return None;
    }
    let pids: Vec<String> = running.iter().map(|o| o.pid.to_string()).collect();
    Some(format!(
        "another candor (pid {}) is measuring in {} at the same time: both share the disk, so each one's figures are lower than the disk alone gives",
        pids.join(", "),
        dir.display()
    ))
}

/// This process's own files that could not be removed, not yet reported in a Run.
static FAILURES: Mutex<Vec<String>> = Mutex::new(Vec::new());

/// Records that one of this process's own files (`what`: "test file", ...)
/// could not be removed, and says so on stderr at once (the path, so that
/// the user can remove it by hand). A directory candor made that now holds
/// files it did not make is left in place on purpose and said so: what is
/// in it is not candor's to remove, nor to advise removing.
pub fn removal_failed(what: &str, path: &Path, error: &std::io::Error) {
    let line = removal_line(what, path, error);
    eprintln!("candor: warning: {line}");
    FAILURES
        .lock()
        .unwrap_or_else(|e| e.into_inner())
        .push(line);
}

/// The words for a removal that failed.
fn removal_line(what: &str, path: &Path, error: &std::io::Error) -> String {
    if error.kind() == std::io::ErrorKind::DirectoryNotEmpty {
        format!(
            "left {what} {} in place: it now holds files candor did not make",
            path.display()
        )
    } else {
        format!(
            "cannot remove {what} {}: {error} (remove it by hand)",
            path.display()
        )
    }
}

/// The failures recorded since the last call (for the Run's notes).
pub fn take_failures() -> Vec<String> {
    std::mem::take(&mut *FAILURES.lock().unwrap_or_else(|e| e.into_inner()))
}

/// The error a Run ends with when candor could not remove its own files:
/// the measurements are kept, but a file is left on the user's disk (exit 1).
#[derive(Debug, thiserror::Error)]
#[error("{}; every measurement finished, and the Run is marked failed for it", .lines.join("; "))]
pub struct LeftBehind {
    pub lines: Vec<String>,
}

/// The candor files (test files and temporaries, of any owner) in `dir`,
/// sorted: what a test looks for after a run to prove nothing was left.
pub fn candor_files(dir: &Path) -> Vec<PathBuf> {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return Vec::new();
    };
    let mut found: Vec<PathBuf> = entries
        .flatten()
        .filter(|e| names::parse(&e.file_name()).is_some())
        .map(|e| e.path())
        .collect();
    found.sort();
    found
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A directory candor made that another program filled is kept on
    /// purpose: no advice to remove another's files. (Tested on the words:
    /// the recorded failures are one list that other tests drain.)
    #[test]
    fn a_filled_directory_is_left_in_place_not_for_removal_by_hand() {
        let p = Path::new("/var/tmp/x");
        let full = std::io::Error::from(std::io::ErrorKind::DirectoryNotEmpty);
        let line = removal_line("directory it created", p, &full);
        assert!(
            line.contains("in place") && !line.contains("by hand"),
            "{line}"
        );
        let denied = std::io::Error::from(std::io::ErrorKind::PermissionDenied);
        assert!(removal_line("test file", p, &denied).contains("by hand"));
    }

    /// A pid that no process has now (the highest pids are rarely in use).
    #[cfg(unix)]
    fn dead_owner() -> Owner {
        let pid = (4_000_000..4_194_304)
            .rev()
            .find(|p| Owner::of_pid(*p).is_none())
            .unwrap();
        Owner { pid, start: 12345 }
    }

    /// recovery.rs's removal (Windows lists and leaves: recovery_windows.rs).
    #[cfg(unix)]
    #[test]
    fn a_dead_owners_files_go_and_everything_else_stays() {
        let dir = tempfile::tempdir().unwrap();
        let d = dir.path();
        let dead = dead_owner();
        let me = Owner::this_process();
        // Same pid as this process, another start time: a dead predecessor.
        let reused = Owner {
            pid: me.pid,
            start: me.start + 7,
        };
        let write = |name: &dyn AsRef<Path>| std::fs::write(d.join(name), b"x").unwrap();
        let stale_test = names::test_file("main", dead, 0);
        let stale_tmp = names::temporary("r.json".as_ref(), reused, 0xdead);
        let mine = names::test_file("disk", me, 0);
        write(&stale_test);
        write(&stale_tmp);
        write(&mine);
        write(&".candor-main-1-0.tmp");
        write(&"precious");
        // A planted link at a dead owner's name is never followed nor removed.
        let link = names::test_file("main", dead, 1);
        std::os::unix::fs::symlink(d.join("precious"), d.join(&link)).unwrap();
        let found = recover(d);
        assert_eq!(found.lines.len(), 2, "{:?}", found.lines);
        assert!(found.lines.iter().all(|l| l.starts_with("removed ")));
        assert!(found.lines[0].contains("no longer running"));
        assert!(!d.join(&stale_test).exists());
        assert!(!d.join(&stale_tmp).exists());
        for kept in [mine.as_str(), ".candor-main-1-0.tmp", "precious"] {
            assert!(d.join(kept).exists(), "{kept}");
        }
        assert!(std::fs::symlink_metadata(d.join(&link)).is_ok());
        assert_eq!(std::fs::read(d.join("precious")).unwrap(), b"x");
        assert!(found.running.is_empty());
    }

    /// recovery.rs's flock (Windows has no such lock: recovery_windows.rs).
    #[cfg(unix)]
    #[test]
    fn a_locked_file_is_in_use_whatever_its_name_says() {
        let dir = tempfile::tempdir().unwrap();
        let name = names::test_file("main", dead_owner(), 0);
        let path = dir.path().join(&name);
        let file = std::fs::File::create(&path).unwrap();
        // A process in another pid namespace holds it: its pid means nothing here.
        let other = std::fs::File::open(&path).unwrap();
        hold(&other);
        let found = recover(dir.path());
        assert!(found.lines.is_empty(), "{:?}", found.lines);
        assert_eq!(found.running.len(), 1);
        assert!(path.exists());
        drop((file, other));
    }

    #[test]
    fn sharing_is_named() {
        let me = Owner::this_process();
        assert_eq!(sharing_warning(Path::new("/x"), &[]), None);
        let w = sharing_warning(Path::new("/x"), &[me]).unwrap();
        assert!(
            w.contains(&format!("pid {}", me.pid)) && w.contains("/x"),
            "{w}"
        );
    }
}
