//! One destination, one name: where each selected host really leads, as
//! the system ssh resolves it (`ssh -G`: the inventory's address, port,
//! user and arguments with `~/.ssh/config` applied, `Host` aliases,
//! `HostName`, `User`, `Port`, `ProxyJump` included), so that two
//! inventory names that reach one machine are refused before anything
//! runs, never measured twice and labelled as two machines. The same
//! address behind two different jump hosts is two destinations.
//!
//! Names are compared as ssh resolves them, without DNS: `localhost` and
//! `127.0.0.1` are different destinations here; the host key each
//! connection saw (recorded with every Run) tells them apart afterwards.

use super::ssh::SshOptions;
use super::target::Target;
use crate::error::usage;
use std::collections::HashMap;
use std::process::{Command, Stdio};

/// Where ssh will connect for a target.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct Resolved {
    pub user: String,
    pub hostname: String,
    pub port: u16,
    /// `ProxyJump` or `ProxyCommand` when set: part of the destination.
    pub via: Option<String>,
}

impl Resolved {
    /// `user@host:port`, `[v6]:port`, ` via JUMP` when there is one.
    pub fn describe(&self) -> String {
        let host = if self.hostname.contains(':') {
            format!("[{}]", self.hostname)
        } else {
            self.hostname.clone()
        };
        let mut s = format!("{}@{host}:{}", self.user, self.port);
        if let Some(v) = &self.via {
            s.push_str(&format!(" via {v}"));
        }
        s
    }
}

/// `ssh -G` for a target: what ssh would connect to, with nothing sent.
pub fn resolve(options: &SshOptions, target: &Target) -> Result<Resolved, String> {
    // -G connects nowhere: the control socket named is never used.
    let mut args = options.args(target, std::path::Path::new("/dev/null"), false);
    args.insert(0, "-G".into());
    let out = Command::new(&options.program)
        .args(&args)
        .stdin(Stdio::null())
        .output()
        .map_err(|e| format!("cannot run {} -G: {e}", options.program.display()))?;
    let text = String::from_utf8_lossy(&out.stdout);
    if !out.status.success() {
        let err = String::from_utf8_lossy(&out.stderr);
        return Err(format!(
            "ssh -G could not resolve it: {}",
            err.lines().last().unwrap_or("(no message)").trim()
        ));
    }
    parse(&text).ok_or_else(|| "ssh -G printed no hostname, user and port".to_string())
}

/// Reads `ssh -G`'s `key value` lines.
fn parse(text: &str) -> Option<Resolved> {
    let mut get: HashMap<&str, &str> = HashMap::new();
    for line in text.lines() {
        if let Some((k, v)) = line.split_once(' ') {
            get.entry(k).or_insert(v.trim());
        }
    }
    let via = ["proxyjump", "proxycommand"]
        .iter()
        .filter_map(|k| get.get(k))
        .find(|v| !v.is_empty() && **v != "none")
        .map(|v| v.to_string());
    Some(Resolved {
        user: get.get("user")?.to_string(),
        hostname: get.get("hostname")?.to_string(),
        port: get.get("port")?.parse().ok()?,
        via,
    })
}

/// `--same-destination`: what to do with two names for one destination.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum SameDestination {
    /// Refused before anything runs, naming both.
    #[default]
    Refuse,
    /// Measured once, under the first name; the others are noted.
    Once,
}

impl SameDestination {
    pub fn parse(text: &str) -> anyhow::Result<SameDestination> {
        match text.trim() {
            "refuse" => Ok(SameDestination::Refuse),
            "once" => Ok(SameDestination::Once),
            other => Err(usage(format!(
                "--same-destination: '{other}' is not refuse or once"
            ))),
        }
    }
}

/// The targets to measure, each with its destination, and a note per
/// name left out (`SameDestination::Once`).
pub type DestinationCheck = (Vec<(Target, Resolved)>, Vec<String>);

/// Resolves every target and applies the policy; `once` is how the user
/// asks for `SameDestination::Once` (a flag, or the playbook's variable).
pub fn check(
    options: &SshOptions,
    targets: Vec<Target>,
    policy: SameDestination,
    once: &str,
) -> anyhow::Result<DestinationCheck> {
    let mut first: HashMap<Resolved, String> = HashMap::new();
    let mut kept = Vec::new();
    let mut notes = Vec::new();
    for t in targets {
        let r = resolve(options, &t).map_err(|e| usage(format!("host '{}': {e}", t.name)))?;
        match first.get(&r) {
            None => {
                first.insert(r.clone(), t.name.clone());
                kept.push((t, r));
            }
            Some(earlier) => match policy {
                SameDestination::Refuse => {
                    return Err(usage(format!(
                        "hosts '{earlier}' and '{}' both reach {} (as ssh -G resolves them): one machine would be measured under two names; select one, or give {once} to measure it once, as '{earlier}'",
                        t.name,
                        r.describe()
                    )))
                }
                SameDestination::Once => notes.push(format!(
                    "'{}' reaches {}, as '{earlier}' does: measured once, as '{earlier}' ({once})",
                    t.name,
                    r.describe()
                )),
            },
        }
    }
    Ok((kept, notes))
}

/// After the logins: hosts whose logins were shown one host key, which
/// `ssh -G` could not tell apart (`localhost` and `127.0.0.1`, two
/// addresses of one machine) or which are clones of one image. One note
/// per key, naming the hosts.
pub fn same_host_key_notes(hosts: &[super::HostRecord]) -> Vec<String> {
    let mut by_key: Vec<(&str, Vec<&str>)> = Vec::new();
    for h in hosts {
        let Some(key) = h.reached.as_ref().and_then(|r| r.host_key.as_deref()) else {
            continue;
        };
        match by_key.iter_mut().find(|(k, _)| *k == key) {
            Some((_, names)) => names.push(&h.name),
            None => by_key.push((key, vec![&h.name])),
        }
    }
    by_key
        .into_iter()
        .filter(|(_, names)| names.len() > 1)
        .map(|(key, names)| {
            format!(
                "warning: hosts {} were shown one host key ({key}): one machine under several names, or clones of one image",
                names.join(", ")
            )
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn one_host_key_under_two_names_is_said() {
        let rec = |name: &str, key: Option<&str>| {
            let mut r = super::super::HostRecord::new(&Target::named(name));
            r.reached = Some(crate::result::Destination {
                host_key: key.map(str::to_string),
                ..Default::default()
            });
            r
        };
        let hosts = [
            rec("a", Some("ssh-ed25519 SHA256:x")),
            rec("b", Some("ssh-ed25519 SHA256:y")),
            rec("c", Some("ssh-ed25519 SHA256:x")),
            rec("d", None),
        ];
        assert_eq!(
            same_host_key_notes(&hosts),
            ["warning: hosts a, c were shown one host key (ssh-ed25519 SHA256:x): one machine under several names, or clones of one image"]
        );
    }

    #[test]
    fn ssh_g_output_is_read() {
        let r = parse("user awu2\nhostname 127.0.0.3\nport 2203\nproxyjump none\n").unwrap();
        assert_eq!(r.describe(), "awu2@127.0.0.3:2203");
        let r = parse("hostname ::1\nuser r\nport 22\nproxyjump bastion\n").unwrap();
        assert_eq!(r.describe(), "r@[::1]:22 via bastion");
        assert!(parse("user r\nport 22\n").is_none());
    }
}
