//! Which host runs when. One at a time by default: hosts of one provider
//! often share storage and network, and a host measured while its
//! neighbour is busy measures the neighbour too. `--parallel N` runs N
//! hosts at once (worker threads taking hosts in inventory order); the
//! run phases that overlapped are recorded per host, so the comparison can
//! say which figures were measured while which other hosts ran.
//!
//! After Ctrl-C no new host starts (they are recorded as skipped); the
//! hosts in progress stop their remote runs and clean up (`host.rs`).

use super::host::{self, Event, HostOutcome};
use super::progress::Display;
use super::summary::{HostRecord, HostStatus};
use super::{FleetPlan, Target};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{mpsc, Condvar, Mutex};
use std::time::Instant;

/// Runs every target, `parallel` at a time, showing progress; the records
/// come back in target order with `overlapped_with` filled in. The workers
/// all start before any takes a host: when one cannot (a process or thread
/// limit), no host is touched and the error says how many started.
pub fn run_all(
    plan: &FleetPlan,
    targets: &[Target],
    parallel: usize,
    display: &mut Display,
) -> anyhow::Result<Vec<HostRecord>> {
    let next = AtomicUsize::new(0);
    let results: Mutex<Vec<Option<HostOutcome>>> =
        Mutex::new((0..targets.len()).map(|_| None).collect());
    let (tx, rx) = mpsc::channel::<Event>();
    let workers = parallel.clamp(1, targets.len().max(1));
    // Set once every worker is there: whether they may take hosts.
    let gate: (Mutex<Option<bool>>, Condvar) = (Mutex::new(None), Condvar::new());
    let mut not_started: Option<anyhow::Error> = None;
    std::thread::scope(|scope| {
        for k in 0..workers {
            let tx = tx.clone();
            let (next, results, gate) = (&next, &results, &gate);
            let spawned = std::thread::Builder::new()
                .name(format!("candor-fleet-{k}"))
                .spawn_scoped(scope, move || {
                    if !wait_for(gate) {
                        return;
                    }
                    loop {
                        let i = next.fetch_add(1, Ordering::SeqCst);
                        if i >= targets.len() {
                            break;
                        }
                        let outcome = if crate::cancel::cancelled() {
                            let mut record = HostRecord::new(&targets[i]);
                            record.status = HostStatus::Skipped;
                            record.cause =
                                Some("not started: the fleet run was interrupted".into());
                            HostOutcome {
                                record,
                                run_interval: None,
                            }
                        } else {
                            host::run(plan, i, &targets[i], &tx)
                        };
                        let _ = tx.send(Event::Done(i, Box::new(outcome.record.clone())));
                        results.lock().unwrap_or_else(|e| e.into_inner())[i] = Some(outcome);
                    }
                });
            if let Err(e) = spawned {
                not_started = Some(anyhow::anyhow!(
                    "cannot start worker thread {} of {workers}: {e} (a process or thread limit? {k} started; no host was touched; a lower --parallel needs fewer)",
                    k + 1
                ));
                break;
            }
        }
        drop(tx);
        *gate.0.lock().unwrap_or_else(|e| e.into_inner()) = Some(not_started.is_none());
        gate.1.notify_all();
        // The display runs here until every worker has hung up.
        for event in rx {
            display.show(&event);
        }
    });
    if let Some(e) = not_started {
        return Err(e);
    }
    let outcomes: Vec<HostOutcome> = results
        .into_inner()
        .unwrap_or_else(|e| e.into_inner())
        .into_iter()
        .enumerate()
        .map(|(i, o)| {
            o.unwrap_or_else(|| HostOutcome {
                record: HostRecord::new(&targets[i]),
                run_interval: None,
            })
        })
        .collect();
    let intervals: Vec<Option<(Instant, Instant)>> =
        outcomes.iter().map(|o| o.run_interval).collect();
    let overlaps = overlaps(&intervals);
    let names: Vec<String> = outcomes.iter().map(|o| o.record.name.clone()).collect();
    Ok(outcomes
        .into_iter()
        .zip(overlaps)
        .map(|(mut o, with)| {
            o.record.overlapped_with = with.into_iter().map(|j| names[j].clone()).collect();
            o.record
        })
        .collect())
}

/// For each interval, the others that overlap it (by more than touching).
/// Instants here; seconds on the controller's clock for the playbook's hosts.
pub fn overlaps<T: PartialOrd + Copy>(intervals: &[Option<(T, T)>]) -> Vec<Vec<usize>> {
    intervals
        .iter()
        .enumerate()
        .map(|(i, a)| {
            let Some((a0, a1)) = a else {
                return Vec::new();
            };
            intervals
                .iter()
                .enumerate()
                .filter(|(j, b)| *j != i && matches!(b, Some((b0, b1)) if b0 < a1 && a0 < b1))
                .map(|(j, _)| j)
                .collect()
        })
        .collect()
}

/// Waits until the gate is set; true to take hosts, false to leave.
fn wait_for(gate: &(Mutex<Option<bool>>, Condvar)) -> bool {
    let mut open = gate.0.lock().unwrap_or_else(|e| e.into_inner());
    loop {
        if let Some(go) = *open {
            return go;
        }
        open = gate.1.wait(open).unwrap_or_else(|e| e.into_inner());
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::time::Duration;

    #[test]
    fn overlapping_runs_are_found() {
        let t = Instant::now();
        let s = |a: u64, b: u64| Some((t + Duration::from_secs(a), t + Duration::from_secs(b)));
        let o = overlaps(&[s(0, 10), s(5, 15), s(10, 20), None, s(30, 40)]);
        assert_eq!(o, vec![vec![1], vec![0, 2], vec![1], vec![], vec![]]);
    }
}
