//! Where a job's threads run and at what I/O priority: `cpus_allowed` or
//! `cpumask` (the later one in the job wins: fio stores both in one mask),
//! `cpus_allowed_policy`, `prio` and `prioclass`, read as fio 3.33 reads
//! them (options.c: set_cpus_allowed, str_cpumask_cb, fio_cpus_split;
//! os-linux.h: ioprio_value, no class meaning best-effort).

use super::Lowering;
use crate::disk::placement::ThreadPlacement;
use crate::fio::jobfile::parse::{Job, Setting, Value};
use crate::fio::jobfile::JobFileError;

/// The highest CPU number a `cpu_set_t` holds (Linux's CPU_SETSIZE).
const CPU_SETSIZE: usize = 1024;

impl<'a> Lowering<'a> {
    /// The job's placement; `split_from` is 0 here, the walk over the
    /// jobs sets it to the job's first fio thread number.
    pub(super) fn placement(&mut self) -> Result<ThreadPlacement, JobFileError> {
        let mut out = ThreadPlacement::default();
        let configured = cpus_configured();
        let mask = self
            .job
            .effective()
            .into_iter()
            .rfind(|s| s.def.name == "cpus_allowed" || s.def.name == "cpumask");
        if let Some(s) = mask {
            let cpus = match (&s.value, s.def.name) {
                (Value::Number(bits), _) => (0..32).filter(|i| bits & (1 << i) != 0).collect(),
                (Value::Text(list), _) => cpu_list(list).map_err(|why| Self::bad(s, why))?,
                _ => Vec::new(),
            };
            if let Some(&top) = cpus.iter().max() {
                if top >= configured.min(CPU_SETSIZE) {
                    return Err(Self::bad(
                        s,
                        format!("CPU {top} is beyond this host's CPUs (fio: 'CPU {top} too large (max={})')", configured - 1),
                    ));
                }
            }
            if cpus.is_empty() {
                return Err(Self::bad(s, "names no CPU (fio: 'no CPUs set')"));
            }
            out.cpus = cpus;
        }
        if let Some((policy, s)) = self.text("cpus_allowed_policy") {
            match policy {
                "shared" => {}
                "split" if !out.cpus.is_empty() => out.split_from = Some(0),
                "split" => {}
                _ => return Err(Self::bad(s, "not a policy (shared or split)")),
            }
        }
        let level = self.level("prio", 7)?;
        let class = self.level("prioclass", 3)?;
        if level.is_some() || class.is_some() {
            // fio (os-linux.h, ioprio_value): no class is best-effort (2).
            let class = match class.unwrap_or(0) {
                0 => 2,
                c => c,
            };
            out.ioprio = Some((class, level.unwrap_or(0)));
        }
        Ok(out)
    }

    /// A priority number from 0 to `max`, when set.
    fn level(&self, name: &str, max: u64) -> Result<Option<u8>, JobFileError> {
        match self.number(name) {
            Some((n, s)) if n > max => Err(Self::bad(s, format!("out of range (0-{max})"))),
            Some((n, _)) => Ok(Some(n as u8)),
            None => Ok(None),
        }
    }
}

/// Where each thread of `job` runs and at what I/O priority, in words,
/// for the Run and `--parse-only` (None when the job places nothing).
pub(super) fn placement_note(job: &Job, p: &ThreadPlacement, numjobs: u32) -> Option<String> {
    let mut said = Vec::new();
    if !p.cpus.is_empty() {
        let threads: Vec<String> = (0..numjobs.min(8))
            .map(|t| cpus_text(&p.cpus_of(t).unwrap_or_default()))
            .collect();
        let more = if numjobs > 8 { ", ..." } else { "" };
        said.push(match p.split_from {
            Some(first) => format!(
                "cpus_allowed_policy=split: each thread on one CPU of {}, fio's thread number (from {first}, over the whole job file) modulo {}: threads on CPUs {}{more}",
                cpus_text(&p.cpus),
                p.cpus.len(),
                threads.join(", ")
            ),
            None => format!(
                "every thread may run on CPUs {} (sched_setaffinity in each I/O thread)",
                cpus_text(&p.cpus)
            ),
        });
    }
    if let Some((class, level)) = p.ioprio {
        let name = match class {
            1 => "realtime",
            2 => "best-effort",
            _ => "idle",
        };
        said.push(format!("I/O priority {name} (class {class}), level {level} (ioprio_set in each I/O thread; it orders I/O only under a scheduler that honours it, such as bfq or mq-deadline)"));
    }
    if said.is_empty() {
        return None;
    }
    let names: Vec<String> = [
        "cpus_allowed",
        "cpumask",
        "cpus_allowed_policy",
        "prio",
        "prioclass",
    ]
    .iter()
    .filter_map(|n| job.get(n).map(Setting::spelled))
    .collect();
    Some(format!("{}: {}", names.join(" "), said.join("; ")))
}

/// fio's CPU list: numbers and ranges separated by ',' (`0-3,6`).
fn cpu_list(text: &str) -> Result<Vec<usize>, String> {
    let mut cpus = Vec::new();
    for piece in text.trim().split(',') {
        if piece.is_empty() {
            // fio stops at an empty piece.
            break;
        }
        let (lo, hi) = piece.split_once('-').unwrap_or((piece, piece));
        let n = |t: &str| {
            t.trim()
                .parse::<usize>()
                .map_err(|_| format!("'{piece}' is not a CPU or a range of CPUs (e.g. 0-3,6)"))
        };
        let (lo, hi) = (n(lo)?, n(hi)?);
        if hi >= CPU_SETSIZE {
            return Err(format!(
                "CPU {hi}: fio handles CPUs up to {}",
                CPU_SETSIZE - 1
            ));
        }
        // fio sets lo..=hi; a range written high-low sets nothing.
        cpus.extend(lo..=hi);
    }
    cpus.sort_unstable();
    cpus.dedup();
    Ok(cpus)
}

/// CPUs as a list with ranges (`0-3,6`).
fn cpus_text(cpus: &[usize]) -> String {
    let mut out: Vec<String> = Vec::new();
    let mut i = 0;
    while i < cpus.len() {
        let mut j = i;
        while j + 1 < cpus.len() && cpus[j + 1] == cpus[j] + 1 {
            j += 1;
        }
        out.push(if i == j {
            cpus[i].to_string()
        } else {
            format!("{}-{}", cpus[i], cpus[j])
        });
        i = j + 1;
    }
    out.join(",")
}

/// The CPUs this host has configured (fio's cpus_configured).
#[cfg(unix)]
fn cpus_configured() -> usize {
    // SAFETY: sysconf reads a number.
    let n = unsafe { libc::sysconf(libc::_SC_NPROCESSORS_CONF) };
    usize::try_from(n).unwrap_or(1).max(1)
}

/// The CPUs this host has (placement itself is Linux's: `disk::placement`).
#[cfg(not(unix))]
fn cpus_configured() -> usize {
    std::thread::available_parallelism().map_or(1, |n| n.get())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn cpu_lists_read_as_fio_reads_them() {
        assert_eq!(cpu_list("0-2,5").unwrap(), [0, 1, 2, 5]);
        assert_eq!(cpu_list("1,1,0").unwrap(), [0, 1]);
        assert_eq!(cpu_list("3-1").unwrap(), Vec::<usize>::new());
        assert!(cpu_list("a-b").unwrap_err().contains("'a-b' is not a CPU"));
        assert_eq!(cpus_text(&[0, 1, 2, 5, 7, 8]), "0-2,5,7-8");
    }
}
