//! The contrib playbook's fleet (`contrib/ansible/candor.yml`): what
//! Ansible recorded on each host of the play (its registered results, sent
//! as JSON to `candor fleet collect`), read into the same fleet.json a
//! `candor fleet run` writes. Each host of *this* play gets a record: how
//! it ended, the step that failed and its one-line cause (the words of ssh
//! or of the remote candor, through `cause.rs`), what stayed on it. Only a
//! Run fetched in this play is compared: its file must be the one the
//! play's fetch wrote (the same SHA-1 as Ansible's checksum of it), so a
//! Run of an earlier play in the same directory never passes for a new
//! one, and a host left out by `--limit` is not in the comparison.
//!
//! What this file must not do: connect to hosts (Ansible did), or lay out
//! reports.

use super::binary::Binary;
use super::cause;
use super::summary::{
    now_millis, Controller, FleetSummary, HostRecord, HostStatus, Phase, PhaseTime,
};
use super::target::{Become, Target};
use crate::error::usage;
use serde::Deserialize;
use serde_json::Value;
use std::path::Path;

/// The schema the playbook sends.
pub const SCHEMA: &str = "candor.ansible-results/1";

/// What the playbook sends: the play's settings and one entry per host.
#[derive(Debug, Deserialize)]
pub struct Results {
    pub schema: String,
    /// `ansible_inventory_sources`.
    #[serde(default)]
    pub inventory: Vec<String>,
    /// `candor run` flags given to every host (candor_flags).
    #[serde(default)]
    pub run_flags: String,
    /// `serial` of the play (hosts at once), as Ansible took it.
    #[serde(default)]
    pub serial: Value,
    pub hosts: Vec<AnsibleHost>,
    /// Every host of the play, in its order (`ansible_play_hosts_all`):
    /// one without an entry in `hosts` has not started.
    #[serde(default)]
    pub play_hosts: Vec<String>,
}

/// One host of the play.
#[derive(Debug, Deserialize)]
pub struct AnsibleHost {
    /// `inventory_hostname`.
    pub name: String,
    /// `ansible_host` (default: the name), `ansible_port`, `ansible_user`:
    /// Ansible may give a port as a number or a string, or nothing.
    #[serde(default)]
    pub address: Option<String>,
    #[serde(default)]
    pub port: Value,
    #[serde(default)]
    pub user: Option<String>,
    /// `ansible_ssh_private_key_file`, and `ansible_ssh_common_args` and
    /// `ansible_ssh_extra_args` as one line: how `candor fleet clean`
    /// reaches the host again.
    #[serde(default)]
    pub key_file: Option<String>,
    #[serde(default)]
    pub ssh_args: Option<String>,
    #[serde(default)]
    pub groups: Vec<String>,
    /// `ansible_become` and `ansible_become_user`.
    #[serde(default)]
    pub r#become: Value,
    #[serde(default)]
    pub become_user: Option<String>,
    /// Controller clock (UTC) when the host's first task started, when its
    /// battery started, and when its last task ended.
    #[serde(default)]
    pub started_at: Option<String>,
    #[serde(default)]
    pub run_started_at: Option<String>,
    #[serde(default)]
    pub finished_at: Option<String>,
    /// The Run's file, relative to the fleet directory (`runs/NAME.json`).
    #[serde(default)]
    pub run_file: Option<String>,
    /// Ansible's registered result of each step: `connect` (the work
    /// directory: the first task that logs in), `upload`, `run`, `fetch`,
    /// `cleanup`. A step never reached is absent or `skipped`.
    #[serde(default)]
    pub steps: serde_json::Map<String, Value>,
}

/// The steps in order, with the phase each stands for.
const STEPS: [(&str, Phase); 5] = [
    ("connect", Phase::Connect),
    ("upload", Phase::Upload),
    ("run", Phase::Run),
    ("fetch", Phase::Fetch),
    ("cleanup", Phase::Cleanup),
];

/// How Ansible says a step ended.
#[derive(Debug, PartialEq, Eq)]
enum PlayOutcome {
    /// Not run (an earlier step failed).
    Skipped,
    Unreachable,
    Failed,
    Ok,
}

fn outcome(result: Option<&Value>) -> PlayOutcome {
    let Some(r) = result else {
        return PlayOutcome::Skipped;
    };
    let flag = |k: &str| r.get(k).and_then(Value::as_bool).unwrap_or(false);
    if flag("unreachable") {
        PlayOutcome::Unreachable
    } else if flag("skipped") {
        PlayOutcome::Skipped
    } else if flag("failed") {
        PlayOutcome::Failed
    } else {
        PlayOutcome::Ok
    }
}

/// A registered result's lines of output: `stderr_lines` (or `stderr`),
/// else `msg`, without Ansible's "Failed to connect to the host via ssh: ".
fn said(r: &Value) -> Vec<String> {
    let lines = |v: &Value| -> Vec<String> {
        match v {
            Value::Array(a) => a
                .iter()
                .filter_map(Value::as_str)
                .flat_map(str::lines)
                .map(str::to_string)
                .collect(),
            Value::String(s) => s.lines().map(str::to_string).collect(),
            _ => Vec::new(),
        }
    };
    let mut out = lines(r.get("stderr_lines").unwrap_or(&Value::Null));
    if out.is_empty() {
        out = lines(r.get("stderr").unwrap_or(&Value::Null));
    }
    if out.is_empty() {
        out = lines(r.get("msg").unwrap_or(&Value::Null))
            .into_iter()
            .map(|l| {
                l.trim_start_matches("Failed to connect to the host via ssh: ")
                    .trim_end_matches('\r')
                    .to_string()
            })
            .collect();
    }
    out.retain(|l| !l.trim().is_empty());
    out
}

/// A module that did not start on the host (Ansible's "The module failed
/// to execute correctly, you probably need to set the interpreter"): its
/// Python is missing or unusable. The shell's last word on it, in one line
/// (on stderr, or on stdout over ssh's tty, which merges them).
fn module_failure(r: &Value) -> Option<String> {
    let said = |k: &str| r.get(k).and_then(Value::as_str).unwrap_or("");
    let stderr = format!("{}\n{}", said("module_stdout"), said("module_stderr"));
    let says_interpreter = r
        .get("msg")
        .and_then(Value::as_str)
        .is_some_and(|m| m.contains("interpreter"));
    if !says_interpreter {
        return None;
    }
    let last = stderr
        .lines()
        .map(str::trim)
        .rfind(|l| !l.is_empty() && !l.starts_with("Shared connection to "))
        .unwrap_or("no message");
    Some(format!(
        "the host could not start Ansible's Python module ({last}): set ansible_python_interpreter to a Python the host has"
    ))
}

fn text(v: Option<&Value>) -> Option<String> {
    match v? {
        Value::String(s) if !s.is_empty() => Some(s.clone()),
        Value::Number(n) => Some(n.to_string()),
        _ => None,
    }
}

fn truthy(v: &Value) -> bool {
    match v {
        Value::Bool(b) => *b,
        Value::String(s) => matches!(s.to_ascii_lowercase().as_str(), "true" | "yes" | "1" | "on"),
        Value::Number(n) => n.as_u64().unwrap_or(0) != 0,
        _ => false,
    }
}

impl AnsibleHost {
    /// The host as candor would reach it (for messages and fleet.json).
    pub fn target(&self) -> Target {
        let mut t = Target::named(&self.name);
        if let Some(a) = self.address.as_deref().filter(|a| !a.is_empty()) {
            t.address = a.to_string();
        }
        t.port = text(Some(&self.port)).and_then(|p| p.parse().ok());
        t.user = self.user.clone().filter(|u| !u.is_empty());
        t.key_file = self.key_file.clone().filter(|k| !k.is_empty());
        t.ssh_args = self
            .ssh_args
            .as_deref()
            .and_then(|a| super::inventory::words::split(a).ok())
            .unwrap_or_default();
        t.groups = self.groups.clone();
        if truthy(&self.r#become) {
            t.become_ = Some(Become {
                user: self
                    .become_user
                    .clone()
                    .filter(|u| !u.is_empty())
                    .unwrap_or_else(|| "root".into()),
            });
        }
        t
    }

    fn step(&self, name: &str) -> Option<&Value> {
        self.steps.get(name)
    }

    /// The run step's interval on the controller's clock, seconds since
    /// the epoch: its start as the playbook noted it, its length as Ansible
    /// timed it (`delta`).
    pub fn run_interval(&self) -> Option<(f64, f64)> {
        let start = unix_time(self.run_started_at.as_deref()?)?;
        let run = self.step("run")?;
        if outcome(Some(run)) == PlayOutcome::Skipped {
            return None;
        }
        let secs = delta_secs(run.get("delta")?.as_str()?)?;
        Some((start, start + secs))
    }
}

/// One host's record. `dir` is the fleet directory: the Run is read there
/// (and checked to be the one this play fetched).
pub fn record(host: &AnsibleHost, dir: &Path) -> HostRecord {
    let target = host.target();
    let mut rec = HostRecord::new(&target);
    rec.started_at = host.started_at.clone();
    rec.finished_at = host.finished_at.clone();
    // Each step until the first that did not end well.
    for (name, phase) in STEPS {
        let r = host.step(name);
        let lines = r.map(said).unwrap_or_default();
        // Logged in, but Ansible's module could not start there: the
        // host's Python, not the connection (never filed under connect).
        if let (PlayOutcome::Failed, Some(why)) = (outcome(r), r.and_then(module_failure)) {
            let (phase, step) = if phase == Phase::Connect {
                (Phase::Upload, "work directory")
            } else {
                (phase, name)
            };
            fail(&mut rec, phase, format!("{step}: {why}"), &lines);
            continue;
        }
        match (outcome(r), phase) {
            (PlayOutcome::Ok, _) | (_, Phase::Cleanup) => {}
            (PlayOutcome::Skipped, _) => {
                if rec.cause.is_none() {
                    fail(
                        &mut rec,
                        phase,
                        format!("{name}: not run (the play ended before it)"),
                        &[],
                    );
                }
            }
            (PlayOutcome::Unreachable, _) => {
                let why = cause::ssh_failure(&lines, &target)
                    .map(ansible_words)
                    .or_else(|| cause::last_line(&lines))
                    .unwrap_or_else(|| "unreachable".into());
                let why = if phase == Phase::Connect {
                    why
                } else {
                    format!("{name}: {why}")
                };
                fail(&mut rec, phase, why, &lines);
            }
            (PlayOutcome::Failed, Phase::Run) => {
                let rc = r.and_then(|r| r.get("rc")).and_then(Value::as_i64);
                rec.exit_status = rc.map(|c| c as i32);
                let why = match rc {
                    Some(code) => match cause::remote_failure(&lines) {
                        Some(c) if code < 128 => c,
                        _ => cause::exit_status(code as i32),
                    },
                    None => cause::remote_failure(&lines)
                        .or_else(|| cause::last_line(&lines))
                        .unwrap_or_else(|| "the battery failed".into()),
                };
                fail(&mut rec, phase, why, &lines);
            }
            (PlayOutcome::Failed, _) => {
                let why = cause::remote_failure(&lines)
                    .or_else(|| cause::last_line(&lines))
                    .unwrap_or_else(|| "failed".into());
                fail(&mut rec, phase, format!("{name}: {why}"), &lines);
            }
        }
        if phase == Phase::Run && outcome(r) == PlayOutcome::Ok {
            rec.exit_status = Some(0);
        }
    }
    if let (Some((start, end)), Some(at)) = (host.run_interval(), host.run_started_at.as_ref()) {
        rec.phases.push(PhaseTime {
            phase: Phase::Run,
            started_at: at.clone(),
            duration_ns: ((end - start) * 1e9) as u64,
            failed: outcome(host.step("run")) != PlayOutcome::Ok,
        });
    }
    // The Run, when this play fetched it.
    if outcome(host.step("fetch")) == PlayOutcome::Ok {
        match fetched_run(host, dir) {
            Ok((file, run)) => {
                rec.run_file = Some(file);
                rec.run_status = Some(run.status.as_str().to_string());
                if rec.cause.is_none() {
                    if run.status == crate::result::RunStatus::Complete {
                        rec.status = HostStatus::Ok;
                    } else {
                        fail(
                            &mut rec,
                            Phase::Run,
                            format!("the Run is {}", run.status.as_str()),
                            &[],
                        );
                    }
                }
            }
            Err(why) => {
                if rec.cause.is_none() {
                    fail(&mut rec, Phase::Fetch, why, &[]);
                } else {
                    rec.notes.push(why);
                }
            }
        }
    }
    // What stayed on the host: the work directory (binary and Run), when
    // it was made and not removed.
    let work = host
        .step("connect")
        .filter(|r| outcome(Some(r)) == PlayOutcome::Ok)
        .and_then(|r| text(r.get("path")));
    if let Some(w) = work {
        match outcome(host.step("cleanup")) {
            PlayOutcome::Ok => {}
            other => {
                rec.left_on_host.push(w);
                let lines = host.step("cleanup").map(said).unwrap_or_default();
                rec.notes.push(match other {
                    PlayOutcome::Skipped => "cleanup: not run; the work directory stays on the host (candor fleet clean DIR removes it)".to_string(),
                    _ => format!(
                        "cleanup: {}; the work directory stays on the host (candor fleet clean DIR removes it)",
                        cause::ssh_failure(&lines, &target)
                            .or_else(|| cause::last_line(&lines))
                            .unwrap_or_else(|| "failed".into())
                    ),
                });
            }
        }
    }
    rec
}

/// The first failure of a host is its cause; later ones are not.
fn fail(rec: &mut HostRecord, phase: Phase, why: String, lines: &[String]) {
    if rec.cause.is_none() {
        rec.status = HostStatus::Failed;
        rec.cause = Some(why);
        rec.failed_phase = Some(phase);
        rec.stderr_tail = lines[lines.len().saturating_sub(12)..].to_vec();
    }
}

/// Ansible's words for what candor's own causes name with candor's flags.
fn ansible_words(cause: String) -> String {
    if cause.starts_with("host key not trusted") {
        format!("{cause}; -e candor_accept_new_host_keys=true records a new host's key (ssh's accept-new, as candor fleet run does)")
    } else {
        cause
    }
}

/// The Run this play fetched: its file inside `dir/runs/`, with the SHA-1
/// Ansible's fetch reported for it (a file of an earlier play, or one
/// changed since, is not this play's Run).
fn fetched_run(host: &AnsibleHost, dir: &Path) -> Result<(String, crate::result::Run), String> {
    let file = host
        .run_file
        .clone()
        .ok_or_else(|| "fetch: the playbook named no Run file".to_string())?;
    let rel = Path::new(&file);
    if rel.is_absolute()
        || rel.components().count() != 2
        || !file.starts_with("runs/")
        || file.contains("..")
    {
        return Err(format!("fetch: '{file}' is not a file in runs/"));
    }
    let path = dir.join(rel);
    let fetched = host
        .step("fetch")
        .and_then(|r| text(r.get("checksum")))
        .ok_or_else(|| "fetch: Ansible gave no checksum of the Run".to_string())?;
    let bytes = crate::input::read_text(&path).map_err(|e| format!("fetch: {e}"))?;
    let sha1: String = aws_lc_rs::digest::digest(
        &aws_lc_rs::digest::SHA1_FOR_LEGACY_USE_ONLY,
        bytes.as_bytes(),
    )
    .as_ref()
    .iter()
    .map(|b| format!("{b:02x}"))
    .collect();
    if !sha1.eq_ignore_ascii_case(&fetched) {
        return Err(format!(
            "fetch: {file} is not the Run this play fetched (its SHA-1 differs from Ansible's checksum)"
        ));
    }
    let run =
        crate::result::parse_run(&bytes, &path).map_err(|e| format!("fetch: unreadable: {e}"))?;
    Ok((file, run))
}

/// fleet.json of the play: a record per host in the play's order, which
/// hosts' batteries overlapped, the binary pushed (when `binary` names it).
pub fn summary(
    results: &Results,
    dir: &Path,
    binary: Option<Binary>,
    command: Vec<String>,
) -> FleetSummary {
    let mut hosts: Vec<HostRecord> = results.hosts.iter().map(|h| record(h, dir)).collect();
    let intervals: Vec<Option<(f64, f64)>> = results
        .hosts
        .iter()
        .map(AnsibleHost::run_interval)
        .collect();
    for (rec, with) in hosts.iter_mut().zip(super::schedule::overlaps(&intervals)) {
        rec.overlapped_with = with
            .into_iter()
            .map(|j| results.hosts[j].name.clone())
            .collect();
    }
    // Hosts at once: the play's serial when it is a number, else what was seen.
    let seen = hosts
        .iter()
        .map(|h| h.overlapped_with.len() + 1)
        .max()
        .unwrap_or(1);
    let parallel = text(Some(&results.serial))
        .and_then(|s| s.parse::<usize>().ok())
        .filter(|n| *n >= 1)
        .unwrap_or(seen)
        .min(hosts.len().max(1));
    let started_at = hosts
        .iter()
        .filter_map(|h| h.started_at.clone())
        .min()
        .unwrap_or_else(now_millis);
    let finished_at = hosts.iter().filter_map(|h| h.finished_at.clone()).max();
    let mut notes = vec![format!(
        "made by the contrib playbook (contrib/ansible/candor.yml) with Ansible's modules: phase times other than the battery's, clock offsets and architectures are not recorded{}",
        if results.run_flags.trim().is_empty() {
            String::new()
        } else {
            format!("; candor run flags: {}", results.run_flags.trim())
        }
    )];
    if let Some(b) = &binary {
        notes.insert(
            0,
            format!(
                "binary: {} ({} bytes, sha256 {})",
                b.path.display(),
                b.bytes,
                b.sha256
            ),
        );
        for h in &mut hosts {
            if h.failed_phase != Some(Phase::Connect) && h.failed_phase != Some(Phase::Upload) {
                h.binary_sha256 = Some(b.sha256.clone());
            }
        }
    }
    FleetSummary {
        schema: super::summary::SCHEMA.to_string(),
        controller: Controller {
            hostname: crate::host::uname::hostname(),
            version: env!("CARGO_PKG_VERSION").to_string(),
            clock: super::clock::ControllerClock::read(),
            max_rss_bytes: None,
            ssh_max_rss_bytes: None,
        },
        command,
        inventory: (!results.inventory.is_empty()).then(|| results.inventory.join(", ")),
        run_flags: results
            .run_flags
            .split_whitespace()
            .map(str::to_string)
            .collect(),
        parallel,
        binary: binary.clone(),
        binaries: binary.into_iter().collect(),
        started_at,
        finished_at,
        interrupted: false,
        hosts,
        notes,
        ssh: None,
    }
}

/// fleet.json while the play runs, written before each battery starts
/// (`candor fleet collect --in-progress`): a host whose work directory was
/// made is named with it (`left_on_host`), so that `candor fleet clean DIR`
/// finds it whatever stops the play; a host not started yet is skipped. It
/// says it was interrupted: the play's end writes it again.
pub fn in_progress(results: &Results, dir: &Path, command: Vec<String>) -> FleetSummary {
    let mut summary = summary(results, dir, None, command);
    for rec in &mut summary.hosts {
        // Made its work directory, not yet finished: stopped there if this
        // is what the play left.
        if !rec.left_on_host.is_empty() {
            rec.status = HostStatus::Interrupted;
            rec.cause = Some(
                "the play did not finish this host (fleet.json was written before its battery)"
                    .into(),
            );
            rec.failed_phase = None;
            rec.notes = vec![format!(
                "its work directory {} stays on the host unless the play removed it (candor fleet clean DIR removes it)",
                rec.left_on_host.join(", ")
            )];
        }
    }
    for name in &results.play_hosts {
        if !results.hosts.iter().any(|h| &h.name == name) {
            let mut rec = HostRecord::new(&Target::named(name));
            rec.cause = Some("not started".into());
            summary.hosts.push(rec);
        }
    }
    // In the play's order.
    let at = |n: &str| results.play_hosts.iter().position(|p| p == n);
    summary.hosts.sort_by_key(|h| at(&h.name));
    summary.interrupted = true;
    summary.notes.push(
        "written while the play ran, before each battery: the play's end writes it again; if this is what you read, the play was stopped (candor fleet clean DIR removes what it names on the hosts)".into(),
    );
    summary
}

/// `2026-12-05T07:00:01.123456Z` (or without the fraction) as Unix seconds.
pub fn unix_time(text: &str) -> Option<f64> {
    let whole = crate::units::parse_rfc3339(text)? as f64;
    let frac = text
        .get(19..)
        .and_then(|r| r.strip_prefix('.'))
        .map(|r| {
            let digits: String = r.chars().take_while(char::is_ascii_digit).collect();
            format!("0.{digits}").parse::<f64>().unwrap_or(0.0)
        })
        .unwrap_or(0.0);
    Some(whole + frac)
}

/// Ansible's `delta` (`0:00:12.345678`, hours may exceed 24) in seconds.
pub fn delta_secs(text: &str) -> Option<f64> {
    let mut parts = text.trim().rsplitn(3, ':');
    let s: f64 = parts.next()?.parse().ok()?;
    let m: f64 = parts.next()?.parse().ok()?;
    let h: f64 = parts.next()?.parse().ok()?;
    (s >= 0.0 && m >= 0.0 && h >= 0.0).then_some(h * 3600.0 + m * 60.0 + s)
}

/// Reads the playbook's JSON; errors are usage errors naming the source.
pub fn parse(text: &str, source: &str) -> anyhow::Result<Results> {
    let value: Value =
        serde_json::from_str(text).map_err(|e| usage(format!("{source}: not JSON: {e}")))?;
    match value.get("schema").and_then(Value::as_str) {
        Some(SCHEMA) => {}
        Some(other) => {
            return Err(usage(format!(
                "{source}: schema {other}; this candor reads {SCHEMA} (the playbook of the same candor: contrib/ansible/candor.yml)"
            )))
        }
        None => {
            return Err(usage(format!(
                "{source}: not the playbook's results (no \"schema\": \"{SCHEMA}\")"
            )))
        }
    }
    let results: Results = serde_json::from_value(value).map_err(|e| {
        usage(format!(
            "{source}: the playbook's results, but malformed: {e}"
        ))
    })?;
    let mut seen = std::collections::HashSet::new();
    for h in &results.hosts {
        if !seen.insert(h.name.as_str()) {
            return Err(usage(format!("{source}: host {} twice", h.name)));
        }
    }
    Ok(results)
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn host(steps: Value) -> AnsibleHost {
        serde_json::from_value(json!({
            "name": "web1", "address": "10.0.0.7", "port": "2222", "user": "root",
            "groups": ["web"], "become": false,
            "started_at": "2026-12-05T07:00:00.000000Z",
            "run_started_at": "2026-12-05T07:00:01.500000Z",
            "finished_at": "2026-12-05T07:00:20.000000Z",
            "run_file": "runs/web1.json",
            "steps": steps,
        }))
        .unwrap()
    }

    #[test]
    fn times_and_deltas() {
        assert_eq!(delta_secs("0:00:12.5"), Some(12.5));
        assert_eq!(delta_secs("26:01:00.000000"), Some(26.0 * 3600.0 + 60.0));
        assert_eq!(delta_secs("12.5"), None);
        let t = unix_time("2026-12-05T07:00:01.250000Z").unwrap();
        assert_eq!(t - unix_time("2026-12-05T07:00:00Z").unwrap(), 1.25);
        let h = host(json!({"run": {"rc": 0, "delta": "0:00:10.000000"}}));
        let (a, b) = h.run_interval().unwrap();
        assert!((b - a - 10.0).abs() < 1e-9);
    }

    #[test]
    fn an_unreachable_host_fails_at_connect_with_ssh_s_cause() {
        let dir = tempfile::tempdir().unwrap();
        let h = host(json!({
            "connect": {"unreachable": true, "changed": false,
                "msg": "Failed to connect to the host via ssh: ssh: connect to host 10.0.0.7 port 2222: Connection refused"},
            "upload": {"skipped": true}, "run": {"skipped": true},
            "fetch": {"skipped": true}, "cleanup": {"skipped": true},
        }));
        let r = record(&h, dir.path());
        assert_eq!(r.status, HostStatus::Failed);
        assert_eq!(r.failed_phase, Some(Phase::Connect));
        assert_eq!(
            r.cause.as_deref(),
            Some("connection refused: nothing listens for ssh at root@10.0.0.7:2222")
        );
        assert!(r.left_on_host.is_empty() && r.phases.is_empty());
        // Ansible refusing an unknown key says how the playbook accepts one.
        let h = host(json!({"connect": {"unreachable": true,
            "msg": "Failed to connect to the host via ssh: Host key verification failed."}}));
        let c = record(&h, dir.path()).cause.unwrap();
        assert!(
            c.starts_with("host key not trusted") && c.contains("candor_accept_new_host_keys=true"),
            "{c}"
        );
    }

    #[test]
    fn a_missing_python_is_not_a_connection_failure() {
        let dir = tempfile::tempdir().unwrap();
        // ansible-core 2.14.18's result of tempfile with
        // ansible_python_interpreter=/usr/bin/python9 (over ssh the shell's
        // line is followed by ssh's "Shared connection ... closed.").
        let h = host(json!({
            "connect": {"failed": true, "changed": false, "rc": 127,
                "module_stderr": "/bin/sh: 1: /usr/bin/python9: not found\nShared connection to 10.0.0.7 closed.\r\n",
                "module_stdout": "",
                "msg": "The module failed to execute correctly, you probably need to set the interpreter.\nSee stdout/stderr for the exact error"},
            "cleanup": {"skipped": true},
        }));
        let r = record(&h, dir.path());
        assert_eq!(r.status, HostStatus::Failed);
        assert_eq!(r.failed_phase, Some(Phase::Upload));
        assert_eq!(
            r.cause.as_deref(),
            Some("work directory: the host could not start Ansible's Python module (/bin/sh: 1: /usr/bin/python9: not found): set ansible_python_interpreter to a Python the host has")
        );
    }

    #[test]
    fn a_failed_battery_names_candor_s_error_and_what_stayed() {
        let dir = tempfile::tempdir().unwrap();
        let h = host(json!({
            "connect": {"path": "/tmp/candor-ansible.x1", "changed": true},
            "upload": {"changed": true},
            "run": {"failed": true, "rc": 2, "delta": "0:00:00.100000",
                "stderr_lines": ["candor: error: --dir /nope: does not exist"]},
            "fetch": {"skipped": true},
            "cleanup": {"unreachable": true, "msg": "Failed to connect to the host via ssh: Connection to 10.0.0.7 closed by remote host."},
        }));
        let r = record(&h, dir.path());
        assert_eq!(r.failed_phase, Some(Phase::Run));
        assert_eq!(
            r.cause.as_deref(),
            Some("candor: --dir /nope: does not exist")
        );
        assert_eq!(r.exit_status, Some(2));
        assert_eq!(r.phases.len(), 1);
        assert!(r.phases[0].failed);
        assert_eq!(r.left_on_host, ["/tmp/candor-ansible.x1"]);
        assert!(
            r.notes[0].starts_with("cleanup: the connection was lost"),
            "{:?}",
            r.notes
        );
    }

    #[test]
    fn only_the_run_this_play_fetched_is_taken() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::create_dir(dir.path().join("runs")).unwrap();
        let run = std::fs::read_to_string(concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/tests/fixtures/runs/cpu.json"
        ))
        .unwrap();
        std::fs::write(dir.path().join("runs/web1.json"), &run).unwrap();
        let sha1: String =
            aws_lc_rs::digest::digest(&aws_lc_rs::digest::SHA1_FOR_LEGACY_USE_ONLY, run.as_bytes())
                .as_ref()
                .iter()
                .map(|b| format!("{b:02x}"))
                .collect();
        let steps = |checksum: &str| {
            json!({
                "connect": {"path": "/tmp/w"}, "upload": {}, "run": {"rc": 0, "delta": "0:00:01.0"},
                "fetch": {"checksum": checksum}, "cleanup": {},
            })
        };
        let ok = record(&host(steps(&sha1)), dir.path());
        assert_eq!(ok.status, HostStatus::Ok, "{:?}", ok.cause);
        assert_eq!(ok.run_file.as_deref(), Some("runs/web1.json"));
        // A file of another play (not what Ansible fetched now) is not taken.
        let stale = record(&host(steps(&"0".repeat(40))), dir.path());
        assert_eq!(stale.status, HostStatus::Failed);
        assert!(stale
            .cause
            .unwrap()
            .contains("not the Run this play fetched"));
        // A Run file outside runs/ is refused.
        let mut h = host(steps(&sha1));
        h.run_file = Some("../x.json".into());
        assert!(record(&h, dir.path())
            .cause
            .unwrap()
            .contains("not a file in runs/"));
    }

    #[test]
    fn bad_results_are_refused_in_one_line() {
        for (text, says) in [
            ("{", "not JSON"),
            ("{}", "no \"schema\""),
            (
                r#"{"schema":"candor.ansible-results/9","hosts":[]}"#,
                "schema candor.ansible-results/9",
            ),
            (r#"{"schema":"candor.ansible-results/1"}"#, "malformed"),
            (
                r#"{"schema":"candor.ansible-results/1","hosts":[{"name":"a"},{"name":"a"}]}"#,
                "host a twice",
            ),
        ] {
            let e = parse(text, "stdin").unwrap_err();
            assert!(crate::error::is_usage(&e), "{text}");
            assert!(e.to_string().contains(says), "{text}: {e}");
            assert!(!e.to_string().contains('\n'));
        }
    }
}
