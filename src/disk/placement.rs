//! Where a job's threads run and at what I/O priority: fio's
//! `cpus_allowed`/`cpumask` with `cpus_allowed_policy`, and `prio` with
//! `prioclass`. fio 3.33 sets them in each job's own thread or process when
//! it starts (backend.c, thread_main: affinity first, "in case it has an
//! impact on the memory allocations", then `ioprio_set`); each of candor's
//! I/O threads does the same for itself before it allocates its buffers.

/// A job's placement; the default places nothing (the threads inherit candor's).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct ThreadPlacement {
    /// The CPUs the job's threads may run on, ascending (empty: not set).
    pub cpus: Vec<usize>,
    /// fio's `cpus_allowed_policy=split`: each thread gets one CPU of the
    /// set, the one at its fio thread number (counted over the whole job
    /// file from 0, clones included) modulo the set's size. This is the
    /// number of the job's first thread.
    pub split_from: Option<u32>,
    /// The I/O priority: class (1 realtime, 2 best-effort, 3 idle) and
    /// level (0 highest to 7), as `ioprio_set` takes them.
    pub ioprio: Option<(u8, u8)>,
}

/// Linux's `IOPRIO_CLASS_SHIFT` and `IOPRIO_WHO_PROCESS` (a thread, by id; 0: the caller).
#[cfg(target_os = "linux")]
const IOPRIO_CLASS_SHIFT: u32 = 13;
#[cfg(target_os = "linux")]
const IOPRIO_WHO_PROCESS: libc::c_int = 1;

impl ThreadPlacement {
    pub fn is_set(&self) -> bool {
        !self.cpus.is_empty() || self.ioprio.is_some()
    }

    /// The CPUs thread `thread` of the job may run on (None: any).
    pub fn cpus_of(&self, thread: u32) -> Option<Vec<usize>> {
        if self.cpus.is_empty() {
            return None;
        }
        Some(match self.split_from {
            Some(first) => {
                let at = (first as usize + thread as usize) % self.cpus.len();
                vec![self.cpus[at]]
            }
            None => self.cpus.clone(),
        })
    }

    /// Places the calling thread: not ported off Linux (PORTING.md), so a
    /// job that asks for a placement fails in its first step, by name.
    #[cfg(not(target_os = "linux"))]
    pub fn apply(&self, _thread: u32) -> std::io::Result<()> {
        if self.is_set() {
            return Err(std::io::Error::new(
                std::io::ErrorKind::Unsupported,
                "cpus_allowed, cpumask and prio are not ported to this system (Linux's sched_setaffinity and ioprio_set)",
            ));
        }
        Ok(())
    }

    /// Places the calling thread, thread `thread` of its job.
    #[cfg(target_os = "linux")]
    pub fn apply(&self, thread: u32) -> std::io::Result<()> {
        if let Some(cpus) = self.cpus_of(thread) {
            // SAFETY: a zeroed cpu_set_t is the empty set; CPU_SET stays
            // within it (the lowering keeps CPUs below CPU_SETSIZE).
            let ret = unsafe {
                let mut set: libc::cpu_set_t = std::mem::zeroed();
                for &c in &cpus {
                    libc::CPU_SET(c, &mut set);
                }
                libc::sched_setaffinity(0, std::mem::size_of::<libc::cpu_set_t>(), &set)
            };
            if ret != 0 {
                let e = std::io::Error::last_os_error();
                return Err(std::io::Error::new(
                    e.kind(),
                    format!("sched_setaffinity to CPUs {cpus:?}: {e}"),
                ));
            }
        }
        if let Some((class, level)) = self.ioprio {
            let value = (u32::from(class) << IOPRIO_CLASS_SHIFT) | u32::from(level);
            // SAFETY: ioprio_set takes three integers; who 0 is this thread.
            let ret = unsafe {
                libc::syscall(
                    libc::SYS_ioprio_set,
                    IOPRIO_WHO_PROCESS,
                    0,
                    value as libc::c_int,
                )
            };
            if ret != 0 {
                let e = std::io::Error::last_os_error();
                return Err(std::io::Error::new(
                    e.kind(),
                    format!("ioprio_set class {class} level {level}: {e}"),
                ));
            }
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn split_gives_each_thread_one_cpu_from_its_fio_thread_number() {
        let p = ThreadPlacement {
            cpus: vec![0, 2, 5],
            split_from: Some(4),
            ioprio: None,
        };
        // fio's threads 4, 5, 6, 7: indices 1, 2, 0, 1 of the set.
        let got: Vec<_> = (0..4).map(|t| p.cpus_of(t).unwrap()).collect();
        assert_eq!(got, [vec![2], vec![5], vec![0], vec![2]]);
        let shared = ThreadPlacement {
            split_from: None,
            ..p
        };
        assert_eq!(shared.cpus_of(3).unwrap(), [0, 2, 5]);
        assert_eq!(ThreadPlacement::default().cpus_of(0), None);
    }

    /// The placement test of Linux's `apply`, read back from /proc.
    #[cfg(target_os = "linux")]
    #[test]
    fn a_thread_is_placed_where_asked() {
        let std_thread = std::thread::spawn(|| {
            let p = ThreadPlacement {
                cpus: vec![0],
                split_from: None,
                ioprio: Some((2, 6)),
            };
            p.apply(0).unwrap();
            let status = std::fs::read_to_string("/proc/thread-self/status").unwrap();
            let allowed = status
                .lines()
                .find_map(|l| l.strip_prefix("Cpus_allowed_list:"))
                .unwrap()
                .trim()
                .to_string();
            // SAFETY: ioprio_get of this thread.
            let prio = unsafe { libc::syscall(libc::SYS_ioprio_get, IOPRIO_WHO_PROCESS, 0) } as u32;
            (allowed, prio >> IOPRIO_CLASS_SHIFT, prio & 0xff)
        });
        assert_eq!(std_thread.join().unwrap(), ("0".to_string(), 2, 6));
    }

    /// Off Linux a placement is refused by name, and no placement is no
    /// call at all.
    #[cfg(not(target_os = "linux"))]
    #[test]
    fn a_placement_is_refused_off_linux() {
        let p = ThreadPlacement {
            cpus: vec![0],
            split_from: None,
            ioprio: None,
        };
        let e = p.apply(0).unwrap_err();
        assert!(e.to_string().contains("sched_setaffinity"), "{e}");
        ThreadPlacement::default().apply(0).unwrap();
    }
}
