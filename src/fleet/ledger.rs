//! What this fleet run has made on each host and not yet removed (its work
//! directory, the uploaded binary, the cache directories the upload
//! created), and each host's record once it is done, kept while the hosts
//! run. A second Ctrl-C exits at once without cleaning up; its last words
//! (`cancel::saving`) then still write a fleet.json that names every path
//! left on every host, so that nothing stays unreported and
//! `candor fleet clean DIR` can remove it.

use super::summary::{FleetSummary, HostRecord, HostStatus, Phase};
use super::Target;
use std::path::PathBuf;
use std::sync::{Arc, Mutex};

#[derive(Debug, Default)]
struct Host {
    /// Paths on the host, in the order they were made.
    made: Vec<String>,
    /// The phase the host is in (None: not started).
    phase: Option<Phase>,
    /// The final record, once the host is done.
    done: Option<HostRecord>,
}

/// Shared by the hosts' workers and the second signal.
#[derive(Debug)]
pub struct Ledger {
    hosts: Mutex<Vec<Host>>,
}

impl Ledger {
    pub fn new(hosts: usize) -> Ledger {
        Ledger {
            hosts: Mutex::new((0..hosts).map(|_| Host::default()).collect()),
        }
    }

    fn with(&self, i: usize, f: impl FnOnce(&mut Host)) {
        let mut hosts = self.hosts.lock().unwrap_or_else(|e| e.into_inner());
        if let Some(h) = hosts.get_mut(i) {
            f(h);
        }
    }

    /// Host `i` entered a phase.
    pub fn phase(&self, i: usize, phase: Phase) {
        self.with(i, |h| h.phase = Some(phase));
    }

    /// Host `i` now has `path`, made by this fleet run.
    pub fn made(&self, i: usize, path: &str) {
        self.with(i, |h| {
            if !h.made.iter().any(|p| p == path) {
                h.made.push(path.to_string());
            }
        });
    }

    /// Host `i` is done: its record says what was left.
    pub fn done(&self, i: usize, record: &HostRecord) {
        self.with(i, |h| h.done = Some(record.clone()));
    }

    /// Every host's record as it stands: the finished ones as they ended,
    /// the others interrupted (or skipped, not started) with what they have
    /// on them named in `left_on_host`.
    pub fn records(&self, targets: &[Target]) -> Vec<HostRecord> {
        let hosts = self.hosts.lock().unwrap_or_else(|e| e.into_inner());
        targets
            .iter()
            .zip(hosts.iter())
            .map(|(t, h)| {
                if let Some(r) = &h.done {
                    return r.clone();
                }
                let mut r = HostRecord::new(t);
                match h.phase {
                    None => {
                        r.cause = Some("not started: the fleet run was interrupted".into());
                    }
                    Some(p) => {
                        r.status = HostStatus::Interrupted;
                        r.failed_phase = Some(p);
                        // During cleanup the host may already have removed
                        // some of it: named anyway (fleet clean skips what is
                        // gone), and said so.
                        r.cause = Some(if p == Phase::Cleanup {
                            "the fleet run was stopped by a second signal during cleanup: what it names may be partly removed already".into()
                        } else {
                            format!(
                                "the fleet run was stopped by a second signal during {}: nothing was fetched or removed",
                                p.as_str()
                            )
                        });
                        r.left_on_host = h.made.clone();
                        if !h.made.is_empty() {
                            r.notes.push(
                                "what this run made on the host stays there: candor fleet clean DIR removes it"
                                    .into(),
                            );
                        }
                    }
                }
                r
            })
            .collect()
    }
}

/// The second signal's last words for a fleet run: fleet.json as things
/// stand, written at once (no comparison: the Runs of unfinished hosts
/// were never fetched), and the private directory of the ssh control
/// sockets removed (the exit skips its Drop; the masters die with the
/// controller). Returns what it did, in words.
pub fn last_words(
    ledger: Arc<Ledger>,
    targets: Vec<Target>,
    mut summary: FleetSummary,
    dir: PathBuf,
    socket_dir: PathBuf,
) -> crate::cancel::LastWords {
    Box::new(move || {
        let _ = std::fs::remove_dir_all(&socket_dir);
        summary.hosts = ledger.records(&targets);
        summary.interrupted = true;
        summary.finished_at = Some(super::summary::now_millis());
        let left: usize = summary.hosts.iter().map(|h| h.left_on_host.len()).sum();
        let path = dir.join("fleet.json");
        let written = serde_json::to_vec_pretty(&summary)
            .map_err(|e| e.to_string())
            .and_then(|mut json| {
                json.push(b'\n');
                crate::output::write_atomic(&path, &json, crate::output::Replace::Force)
                    .map_err(|e| e.to_string())
            });
        match written {
            Ok(_) if left > 0 => format!(
                "fleet: {left} path(s) stay on the hosts, named in {} (candor fleet clean {} removes them)",
                path.display(),
                dir.display()
            ),
            Ok(_) => format!("fleet: {} written", path.display()),
            Err(e) => format!("fleet: cannot write {}: {e}", path.display()),
        }
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn unfinished_hosts_name_what_they_have() {
        let targets = vec![Target::named("a"), Target::named("b"), Target::named("c")];
        let l = Ledger::new(3);
        l.phase(0, Phase::Run);
        l.made(0, "/tmp/candor-fleet.x");
        l.made(0, "/home/u/.cache/candor/bin/candor-ab");
        l.made(0, "/tmp/candor-fleet.x");
        let mut done = HostRecord::new(&targets[1]);
        done.status = HostStatus::Ok;
        l.phase(1, Phase::Cleanup);
        l.done(1, &done);
        let r = l.records(&targets);
        assert_eq!(r[0].status, HostStatus::Interrupted);
        assert_eq!(
            r[0].left_on_host,
            ["/tmp/candor-fleet.x", "/home/u/.cache/candor/bin/candor-ab"]
        );
        assert!(r[0].cause.as_deref().unwrap().contains("during run"));
        assert_eq!(r[1].status, HostStatus::Ok);
        assert_eq!(r[2].status, HostStatus::Skipped);
        assert!(r[2].left_on_host.is_empty());
        // Stopped while the host was cleaning up: named, and said to be
        // possibly gone already.
        l.phase(0, Phase::Cleanup);
        let r = l.records(&targets);
        assert_eq!(r[0].failed_phase, Some(Phase::Cleanup));
        assert_eq!(r[0].left_on_host.len(), 2);
        assert!(r[0]
            .cause
            .as_deref()
            .unwrap()
            .contains("may be partly removed already"));
    }
}
