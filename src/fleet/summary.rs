//! `fleet.json` (`candor.fleet/1`): what happened on every host of a fleet
//! run, beside the hosts' Runs. Every field is described in
//! docs/fleet-schema.md. It records what the Runs cannot: hosts that gave
//! no Run and why (one line each), how long each step took on each host,
//! which hosts ran at the same time, the controller's clock and each
//! host's offset from it, and anything candor could not remove.

use super::binary::Binary;
use super::clock::{ClockOffset, ControllerClock};
use super::target::Target;
use serde::{Deserialize, Serialize};
use std::path::Path;

/// The schema this build writes.
pub const SCHEMA: &str = "candor.fleet/1";

/// A step of a host's life in a fleet run.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Phase {
    /// Log in (the control session).
    Connect,
    /// Read the host's clock.
    Clock,
    /// Check the cache, upload the binary when it is not there.
    Upload,
    /// `candor run` on the host.
    Run,
    /// Copy the Run back.
    Fetch,
    /// Remove what the run left on the host.
    Cleanup,
}

impl Phase {
    pub fn as_str(self) -> &'static str {
        match self {
            Phase::Connect => "connect",
            Phase::Clock => "clock",
            Phase::Upload => "upload",
            Phase::Run => "run",
            Phase::Fetch => "fetch",
            Phase::Cleanup => "cleanup",
        }
    }
}

/// How one host ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum HostStatus {
    /// A complete Run was fetched.
    Ok,
    /// No complete Run: `cause` says why.
    Failed,
    /// Stopped by Ctrl-C on the controller (a partial Run may have been fetched).
    Interrupted,
    /// Never started: the fleet run was interrupted first.
    Skipped,
}

impl HostStatus {
    pub fn as_str(self) -> &'static str {
        match self {
            HostStatus::Ok => "ok",
            HostStatus::Failed => "failed",
            HostStatus::Interrupted => "interrupted",
            HostStatus::Skipped => "skipped",
        }
    }
}

/// The time one phase took on one host.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct PhaseTime {
    pub phase: Phase,
    /// Controller clock, RFC 3339 with milliseconds.
    pub started_at: String,
    pub duration_ns: u64,
    /// True when the phase did not succeed.
    #[serde(default)]
    pub failed: bool,
}

/// How the binary got to the host.
#[derive(Debug, Clone, Serialize, Deserialize, Default)]
pub struct UploadRecord {
    /// `uploaded` or `cached` (already on the host, verified).
    pub how: String,
    /// The binary's path on the host.
    pub path: String,
    /// `sha256` (checked on the host) or `size` (the host has no sha256sum).
    pub verified_by: String,
    /// Bytes sent (0 when cached).
    pub bytes_sent: u64,
}

/// One host in fleet.json.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct HostRecord {
    pub name: String,
    /// How it was reached: `user@address:port` as far as known (ssh's config may add to it).
    pub destination: String,
    #[serde(default)]
    pub groups: Vec<String>,
    /// Through sudo as this user (`ansible_become`).
    #[serde(default)]
    pub become_user: Option<String>,
    pub status: HostStatus,
    /// One line: why this host has no complete Run.
    #[serde(default)]
    pub cause: Option<String>,
    /// The phase that failed.
    #[serde(default)]
    pub failed_phase: Option<Phase>,
    /// The last lines ssh or the host printed before the failure (for the details).
    #[serde(default)]
    pub stderr_tail: Vec<String>,
    /// Controller clock, RFC 3339 with milliseconds.
    #[serde(default)]
    pub started_at: Option<String>,
    #[serde(default)]
    pub finished_at: Option<String>,
    #[serde(default)]
    pub phases: Vec<PhaseTime>,
    /// `uname -sm` on the host.
    #[serde(default)]
    pub system: Option<String>,
    /// The host's architecture as candor names it (`x86_64`, `aarch64`,
    /// `armv7`), read from `system`: it chose the binary.
    #[serde(default)]
    pub arch: Option<String>,
    /// The sha256 of the binary this host was given (the `binaries[]` entry of its architecture).
    #[serde(default)]
    pub binary_sha256: Option<String>,
    #[serde(default)]
    pub clock: Option<ClockOffset>,
    #[serde(default)]
    pub upload: Option<UploadRecord>,
    /// The Run's file, relative to the fleet directory.
    #[serde(default)]
    pub run_file: Option<String>,
    /// The fetched Run's status (`complete`, `interrupted`, `running` for one whose candor was killed).
    #[serde(default)]
    pub run_status: Option<String>,
    /// The remote candor's exit status.
    #[serde(default)]
    pub exit_status: Option<i32>,
    /// Hosts whose run overlapped this host's run (with `--parallel`).
    #[serde(default)]
    pub overlapped_with: Vec<String>,
    /// Paths on the host that candor wrote and could not remove (or kept: `--keep`).
    #[serde(default)]
    pub left_on_host: Vec<String>,
    /// Plain-word notes: a host key recorded on first use, a slow clock, ...
    #[serde(default)]
    pub notes: Vec<String>,
    /// How the host was reached (address, port, user, key file, ssh
    /// arguments, become): what `candor fleet clean` needs to reach it
    /// again. Absent in files written before it.
    #[serde(default)]
    pub connection: Option<Target>,
    /// The machine the connection reached (`ssh -G`'s destination and
    /// the host key the login saw); also in the Run (`fleet.destination`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub reached: Option<crate::result::Destination>,
}

impl HostRecord {
    /// A record for a target, before anything ran.
    pub fn new(target: &Target) -> HostRecord {
        HostRecord {
            name: target.name.clone(),
            destination: target.destination(),
            groups: target.groups.clone(),
            become_user: target.become_.as_ref().map(|b| b.user.clone()),
            status: HostStatus::Skipped,
            cause: None,
            failed_phase: None,
            stderr_tail: Vec::new(),
            started_at: None,
            finished_at: None,
            phases: Vec::new(),
            system: None,
            arch: None,
            binary_sha256: None,
            clock: None,
            upload: None,
            run_file: None,
            run_status: None,
            exit_status: None,
            overlapped_with: Vec::new(),
            left_on_host: Vec::new(),
            notes: Vec::new(),
            connection: Some(target.clone()),
            reached: None,
        }
    }

    /// The duration of a phase, if it ran.
    pub fn phase_ns(&self, phase: Phase) -> Option<u64> {
        self.phases
            .iter()
            .find(|p| p.phase == phase)
            .map(|p| p.duration_ns)
    }
}

/// The controller: where the fleet run was driven from.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct Controller {
    pub hostname: Option<String>,
    /// candor's version on the controller.
    pub version: String,
    /// The kernel's view of the controller's clock.
    #[serde(default)]
    pub clock: Option<ControllerClock>,
    /// The controller's peak memory (resident set), bytes.
    #[serde(default)]
    pub max_rss_bytes: Option<u64>,
    /// The largest peak memory of one of its ssh processes, bytes.
    #[serde(default)]
    pub ssh_max_rss_bytes: Option<u64>,
}

/// The ssh settings of the whole fleet run (`-F`, `--ssh-option`), for
/// `candor fleet clean`.
#[derive(Debug, Clone, Default, Serialize, Deserialize)]
pub struct SshRecord {
    /// `-F FILE`.
    #[serde(default)]
    pub config: Option<std::path::PathBuf>,
    /// `--ssh-option K=V`, in order.
    #[serde(default)]
    pub options: Vec<String>,
}

/// fleet.json.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct FleetSummary {
    /// `candor.fleet/1`.
    pub schema: String,
    pub controller: Controller,
    /// The command line on the controller.
    pub command: Vec<String>,
    /// The inventory file, if any.
    #[serde(default)]
    pub inventory: Option<String>,
    /// The flags passed to `candor run` on every host.
    pub run_flags: Vec<String>,
    /// Hosts at once (1: one at a time).
    pub parallel: usize,
    /// The binary of the run when only one was pushed (always set before
    /// fleets mixed architectures); None when hosts got binaries of
    /// several architectures, or none: `binaries` has them all.
    #[serde(default)]
    pub binary: Option<Binary>,
    /// Every binary pushed, one per architecture present in the fleet.
    #[serde(default)]
    pub binaries: Vec<Binary>,
    /// Controller clock, RFC 3339 with milliseconds.
    pub started_at: String,
    #[serde(default)]
    pub finished_at: Option<String>,
    /// True when Ctrl-C (or SIGTERM) stopped the fleet run.
    #[serde(default)]
    pub interrupted: bool,
    pub hosts: Vec<HostRecord>,
    /// Notes about the whole run (the binary chosen, ...).
    #[serde(default)]
    pub notes: Vec<String>,
    /// The ssh settings every host was reached with. Absent in files
    /// written before it (and from the playbook: Ansible's are its own).
    #[serde(default)]
    pub ssh: Option<SshRecord>,
}

impl FleetSummary {
    /// Hosts with each status.
    pub fn count(&self, status: HostStatus) -> usize {
        self.hosts.iter().filter(|h| h.status == status).count()
    }

    /// The notes a comparison of these hosts needs: hosts without a Run,
    /// hosts measured while others ran, clocks far off.
    pub fn comparison_notes(&self) -> Vec<String> {
        let mut notes = Vec::new();
        if self.interrupted {
            let finished: Vec<&str> = self
                .hosts
                .iter()
                .filter(|h| h.status == HostStatus::Ok)
                .map(|h| h.name.as_str())
                .collect();
            notes.push(format!(
                "fleet: partial: the run was interrupted; this compares the {} of {} hosts that finished{}",
                finished.len(),
                self.hosts.len(),
                if finished.is_empty() {
                    String::new()
                } else {
                    format!(" ({})", finished.join(", "))
                }
            ));
        }
        if self.parallel > 1 {
            let overlapped: Vec<&HostRecord> = self
                .hosts
                .iter()
                .filter(|h| !h.overlapped_with.is_empty())
                .collect();
            if overlapped.is_empty() {
                notes.push(format!(
                    "fleet: --parallel {}, but no two hosts' runs overlapped",
                    self.parallel
                ));
            } else {
                notes.push(format!(
                    "fleet: --parallel {}: figures of the hosts below were measured while other hosts ran; hosts that share storage, network or a physical machine can slow each other",
                    self.parallel
                ));
                for h in overlapped {
                    notes.push(format!(
                        "fleet: {} ran at the same time as {}",
                        h.name,
                        h.overlapped_with.join(", ")
                    ));
                }
            }
        } else {
            notes.push("fleet: hosts were measured one at a time".to_string());
        }
        notes.extend(self.architecture_notes());
        for h in &self.hosts {
            if h.status != HostStatus::Ok {
                notes.push(format!(
                    "fleet: {}: {}{}",
                    h.name,
                    h.status.as_str(),
                    h.cause
                        .as_deref()
                        .map(|c| format!(": {c}"))
                        .unwrap_or_default()
                ));
            }
            if let Some(c) = &h.clock {
                if c.offset_ns.unsigned_abs() > 1_000_000_000 + c.uncertainty_ns {
                    notes.push(format!(
                        "fleet: {}'s clock is {} {} the controller's; its Run's timestamps are off by that much",
                        h.name,
                        crate::units::fmt_ns(c.offset_ns.unsigned_abs() as f64),
                        if c.offset_ns > 0 { "ahead of" } else { "behind" }
                    ));
                }
            }
        }
        notes
    }

    /// Which hosts ran on which architecture and with which binary: one
    /// note when they share one, else one per architecture after a
    /// warning that the figures also compare the architectures' code.
    fn architecture_notes(&self) -> Vec<String> {
        let mut by_arch: Vec<(&str, Vec<&str>, Option<&str>)> = Vec::new();
        for h in &self.hosts {
            let Some(arch) = h.arch.as_deref() else {
                continue;
            };
            match by_arch.iter_mut().find(|(a, _, _)| *a == arch) {
                Some((_, names, _)) => names.push(&h.name),
                None => by_arch.push((arch, vec![&h.name], None)),
            }
        }
        for (arch, _, sha) in &mut by_arch {
            *sha = self
                .binaries
                .iter()
                .find(|b| b.arch.as_deref() == Some(*arch))
                .map(|b| b.sha256.as_str());
        }
        let binary = |sha: Option<&str>| match sha {
            Some(s) => format!(" (binary sha256 {})", &s[..s.len().min(16)]),
            None => " (no binary for it)".to_string(),
        };
        match by_arch.as_slice() {
            [] => Vec::new(),
            [(arch, _, sha)] => vec![format!("fleet: every host is {arch}{}", binary(*sha))],
            several => {
                let mut notes = vec![format!(
                    "fleet: hosts of {} architectures: their figures compare the machines and the code built for each; a host run under an emulator (its Run says so) measures the emulator",
                    several.len()
                )];
                for (arch, names, sha) in several {
                    notes.push(format!(
                        "fleet: {arch}: {}{}",
                        names.join(", "),
                        binary(*sha)
                    ));
                }
                notes
            }
        }
    }

    /// Reads fleet.json; errors name the file (exit 2: bad input).
    pub fn read(path: &Path) -> anyhow::Result<FleetSummary> {
        let text = crate::input::read_text(path).map_err(|e| crate::error::usage(e.to_string()))?;
        let value: serde_json::Value = serde_json::from_str(&text)
            .map_err(|e| crate::error::usage(format!("{}: not JSON: {e}", path.display())))?;
        match value.get("schema").and_then(|s| s.as_str()) {
            Some(s) if s.starts_with("candor.fleet/1") => {}
            Some(s) => {
                return Err(crate::error::usage(format!(
                    "{}: schema {s}; this candor reads {SCHEMA}",
                    path.display()
                )))
            }
            None => {
                return Err(crate::error::usage(format!(
                    "{}: not a candor fleet summary (no \"schema\": \"{SCHEMA}\")",
                    path.display()
                )))
            }
        }
        serde_json::from_value(value).map_err(|e| {
            crate::error::usage(format!(
                "{}: a fleet summary, but malformed: {e}",
                path.display()
            ))
        })
    }
}

/// RFC 3339 UTC with milliseconds, for phase timestamps (`2026-12-01T15:04:05.123Z`).
pub fn now_millis() -> String {
    let d = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .unwrap_or_default();
    let s = crate::units::rfc3339_utc(d.as_secs());
    format!("{}.{:03}Z", s.trim_end_matches('Z'), d.subsec_millis())
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A fleet.json with hosts of the given (name, arch, sha256) and the binaries they name.
    fn fleet(hosts: &[(&str, Option<&str>, Option<&str>)]) -> FleetSummary {
        let binaries: Vec<serde_json::Value> = hosts
            .iter()
            .filter_map(|(_, arch, sha)| Some((arch.as_ref()?, sha.as_ref()?)))
            .map(|(a, s)| {
                serde_json::json!({"path": "/b", "chosen": "--binary", "sha256": s,
                    "bytes": 1, "is_static": true, "arch": a})
            })
            .collect();
        let hosts: Vec<serde_json::Value> = hosts
            .iter()
            .map(|(n, a, s)| {
                serde_json::json!({"name": n, "destination": n, "status": "ok",
                    "arch": a, "binary_sha256": s})
            })
            .collect();
        serde_json::from_value(serde_json::json!({
            "schema": SCHEMA, "controller": {"hostname": "c", "version": "0"},
            "command": [], "run_flags": [], "parallel": 1, "started_at": "t",
            "hosts": hosts, "binaries": binaries,
        }))
        .unwrap()
    }

    #[test]
    fn the_comparison_names_each_hosts_architecture() {
        let sha_x = "a".repeat(64);
        let sha_a = "b".repeat(64);
        let one = fleet(&[
            ("h1", Some("x86_64"), Some(&sha_x)),
            ("h2", Some("x86_64"), Some(&sha_x)),
        ]);
        let notes = one.comparison_notes();
        assert!(
            notes.contains(&format!(
                "fleet: every host is x86_64 (binary sha256 {})",
                &sha_x[..16]
            )),
            "{notes:?}"
        );
        let mixed = fleet(&[
            ("h1", Some("x86_64"), Some(&sha_x)),
            ("h2", Some("aarch64"), Some(&sha_a)),
            ("h3", Some("armv7"), None),
            ("h4", None, None),
            ("h5", Some("aarch64"), Some(&sha_a)),
        ]);
        let notes = mixed.comparison_notes();
        assert!(
            notes.iter().any(|n| n.contains("hosts of 3 architectures")),
            "{notes:?}"
        );
        assert!(notes.contains(&format!(
            "fleet: aarch64: h2, h5 (binary sha256 {})",
            &sha_a[..16]
        )));
        assert!(notes.contains(&"fleet: armv7: h3 (no binary for it)".to_string()));
        // A host that never said its architecture (no login) is in none.
        assert!(!notes.iter().any(|n| n.contains("h4")), "{notes:?}");
        // An old fleet.json (no arch anywhere) gets no architecture note.
        assert!(!fleet(&[("h1", None, None)])
            .comparison_notes()
            .iter()
            .any(|n| n.contains("architecture") || n.contains("every host is")));
    }

    #[test]
    fn millis_timestamps() {
        let t = now_millis();
        assert_eq!(t.len(), "2026-12-01T15:04:05.123Z".len(), "{t}");
        assert!(t.ends_with('Z'));
    }
}
