//! Which process made a file: its pid and its start time. A pid alone is
//! reused as soon as its process exits; the start time (field 22 of
//! `/proc/<pid>/task/<pid>/stat`, in clock ticks since boot) tells a new process with
//! the same pid from the one that made the file, so that a later candor
//! never takes a running one's test file for a dead one's.

use std::sync::OnceLock;

/// A process, as named in candor's file names: pid and start time.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct Owner {
    pub pid: u32,
    /// Clock ticks after boot at which the process started.
    pub start: u64,
}

impl Owner {
    /// This process. Its start time is read once; where /proc cannot be
    /// read it is 0, and `proc_readable` says that no liveness can be told.
    pub fn this_process() -> Owner {
        static THIS: OnceLock<Owner> = OnceLock::new();
        *THIS.get_or_init(|| {
            let pid = std::process::id();
            Owner::of_pid(pid).unwrap_or(Owner { pid, start: 0 })
        })
    }

    /// The process that has `pid` now, if any. Read from its main thread's
    /// entry, `/proc/<pid>/task/<pid>/stat`, whose start time is the
    /// process's: qemu-user intercepts `/proc/<its own pid>/stat` and
    /// answers with the start of the emulated thread that reads it, which
    /// differs from thread to thread and from what other processes read
    /// (under qemu-aarch64 a candor took its own files for a dead one's).
    #[cfg(unix)]
    pub fn of_pid(pid: u32) -> Option<Owner> {
        let stat = std::fs::read_to_string(format!("/proc/{pid}/task/{pid}/stat")).ok()?;
        Some(Owner {
            pid,
            start: start_time(&stat)?,
        })
    }

    /// The process that has `pid` now, on Windows: its creation time
    /// (not /proc, which under Wine is the Linux host's, for other pids).
    #[cfg(windows)]
    pub fn of_pid(pid: u32) -> Option<Owner> {
        Some(Owner {
            pid,
            start: super::owner_windows::start_of(pid)?,
        })
    }

    /// True while this very process (same pid, same start) runs.
    pub fn is_running(&self) -> bool {
        Owner::of_pid(self.pid) == Some(*self)
    }
}

/// True when this process can read its own /proc entry: without it no
/// owner can be told dead, and nothing may be removed as stale.
pub fn proc_readable() -> bool {
    Owner::this_process().start != 0
}

/// Field 22 (starttime) of a `/proc/<pid>/stat` line. The command name
/// (field 2) is in parentheses and may itself hold spaces and parentheses,
/// so the fields are counted after its last `)`.
pub fn start_time(stat: &str) -> Option<u64> {
    let after = &stat[stat.rfind(')')? + 1..];
    // After the name come field 3 (state) onwards: field 22 is the 20th.
    after.split_whitespace().nth(19)?.parse().ok()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn start_time_survives_odd_command_names() {
        let stat =
            "4242 (a) b) (c) S 1 2 3 0 -1 4194304 10 0 0 0 5 6 0 0 20 0 1 0 987654 1000 20 0";
        assert_eq!(start_time(stat), Some(987654));
        assert_eq!(start_time("4242 (x) S 1"), None);
        assert_eq!(start_time("no parenthesis"), None);
    }

    /// From any thread: under qemu-user, /proc/<own pid>/stat gave each
    /// thread its own start time, and this test failed there.
    #[test]
    fn this_process_runs_and_a_changed_start_does_not() {
        let me = std::thread::spawn(Owner::this_process).join().unwrap();
        assert_eq!(me, Owner::this_process());
        assert!(std::thread::spawn(move || me.is_running()).join().unwrap());
        let me = Owner::this_process();
        assert!(proc_readable());
        assert_eq!(me.pid, std::process::id());
        assert!(me.is_running());
        let impostor = Owner {
            pid: me.pid,
            start: me.start + 1,
        };
        assert!(
            !impostor.is_running(),
            "same pid, another start: not this process"
        );
    }
}
