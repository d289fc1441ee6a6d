//! `candor fleet clean DIR`: removes from each host what a fleet run left
//! there, as its fleet.json names it (`left_on_host`: the work directory
//! of a run stopped by a second Ctrl-C or cut off, a binary kept with
//! `--keep-binary`, what `--keep` kept, a playbook's work directory its
//! cleanup could not remove). Each host is reached as the run reached it
//! (`hosts[].connection`, `ssh`), only candor's own kinds of path are
//! removed (`remote::clean_script`), and fleet.json is rewritten with what
//! is still there: nothing stays without being named.

use super::cause;
use super::remote;
use super::ssh::{Connection, SshOptions};
use super::summary::{FleetSummary, HostRecord};
use super::Target;
use std::path::{Path, PathBuf};
use std::time::Duration;

/// What `clean` did on one host.
#[derive(Debug, Default)]
pub struct Cleaned {
    pub host: String,
    /// Removed now, or already gone.
    pub removed: Vec<String>,
    /// Still there, each with why.
    pub left: Vec<(String, String)>,
    /// Why the host could not be cleaned at all (no login).
    pub failed: Option<String>,
    /// What fleet.json named on the host before (all of it stays when
    /// the host could not be cleaned).
    pub named: Vec<String>,
}

/// What `candor fleet clean DIR` did: one entry per host that had
/// something left (the fleet.json rewritten), or none at all.
#[derive(Debug, Default)]
pub struct DirectoryCleaned {
    /// The fleet.json read and rewritten.
    pub path: PathBuf,
    pub hosts: Vec<Cleaned>,
    /// Paths still on the hosts afterwards.
    pub stays: usize,
}

/// Cleans every host that the fleet.json in `dir` names something left
/// on, reached as the run reached it (`ssh`'s options given now first),
/// and rewrites fleet.json with what is still there. The first signal
/// stops between hosts.
pub fn directory(
    dir: &Path,
    config: Option<PathBuf>,
    options: Vec<String>,
    connect_timeout: Duration,
) -> anyhow::Result<DirectoryCleaned> {
    let path = dir.join("fleet.json");
    let mut summary = FleetSummary::read(&path)?;
    let todo: Vec<usize> = (0..summary.hosts.len())
        .filter(|&i| !summary.hosts[i].left_on_host.is_empty())
        .collect();
    let mut done = DirectoryCleaned {
        path: path.clone(),
        ..DirectoryCleaned::default()
    };
    if todo.is_empty() {
        return Ok(done);
    }
    crate::output::check(&path, "fleet.json", crate::output::Replace::Force, &[])?;
    let program = super::run::which("ssh").ok_or_else(|| {
        anyhow::anyhow!("no ssh client on PATH: candor fleet uses the system OpenSSH client (install openssh-client)")
    })?;
    let ssh = ssh_options(&summary, program, config, options, connect_timeout);
    let sockets = super::ssh::SocketDir::create()
        .map_err(|e| anyhow::anyhow!("cannot create a private directory for ssh sockets: {e}"))?;
    let at = super::summary::now_millis();
    for &i in &todo {
        crate::cancel::check()?;
        let cleaned = host(&ssh, sockets.path(), i, &summary.hosts[i]);
        apply(&mut summary.hosts[i], &cleaned, &at);
        done.stays += match &cleaned.failed {
            Some(_) => summary.hosts[i].left_on_host.len(),
            None => cleaned.left.len(),
        };
        done.hosts.push(cleaned);
    }
    drop(sockets);
    let mut json = serde_json::to_vec_pretty(&summary)?;
    json.push(b'\n');
    crate::output::write_atomic(&path, &json, crate::output::Replace::Force)?;
    Ok(done)
}

/// The ssh settings to reach the hosts again: the run's own, then the
/// ones given now (which come first, so they win).
pub fn ssh_options(
    summary: &FleetSummary,
    program: PathBuf,
    config: Option<PathBuf>,
    options: Vec<String>,
    connect_timeout: Duration,
) -> SshOptions {
    let recorded = summary.ssh.clone().unwrap_or_default();
    let mut all = options;
    all.extend(recorded.options);
    SshOptions {
        program,
        config: config.or(recorded.config),
        options: all,
        connect_timeout,
        record_host_key: false,
    }
}

/// How to reach a host again: its recorded connection, else its
/// destination (`user@address:port`, from files written before).
fn target_of(h: &HostRecord) -> Target {
    h.connection
        .clone()
        .or_else(|| Target::parse(&h.destination).ok())
        .map(|mut t| {
            t.name = h.name.clone();
            t
        })
        .unwrap_or_else(|| Target::named(&h.name))
}

/// Cleans one host: logs in, removes its paths, says what happened.
pub fn host(ssh: &SshOptions, sockets: &Path, index: usize, h: &HostRecord) -> Cleaned {
    let target = target_of(h);
    let mut out = Cleaned {
        host: h.name.clone(),
        named: h.left_on_host.clone(),
        ..Cleaned::default()
    };
    let socket = sockets.join(format!("{index}.sock"));
    let conn = match Connection::open(ssh, &target, &socket, ssh.connect_timeout) {
        Ok(c) => c,
        Err(e) => {
            out.failed = Some(if e.interrupted {
                "interrupted before login".into()
            } else if e.timed_out {
                "no answer (login timed out)".into()
            } else {
                cause::ssh_failure(&e.stderr, &target)
                    .or_else(|| cause::last_line(&e.stderr))
                    .unwrap_or_else(|| {
                        format!("ssh ended without a word ({})", cause::ssh_exit(e.exit))
                    })
            });
            return out;
        }
    };
    let mut args = vec![target
        .become_
        .as_ref()
        .map(|b| b.user.clone())
        .unwrap_or_default()];
    // Deepest first: a cache directory goes after the binary in it.
    let mut paths = h.left_on_host.clone();
    paths.sort_by_key(|p| std::cmp::Reverse(p.matches('/').count()));
    args.extend(paths);
    let c = conn.exec(
        &remote::clean_script(),
        &args,
        None,
        Duration::from_secs(120),
        false,
    );
    conn.close();
    if !c.ok() {
        out.failed = Some(
            cause::remote_failure(&c.stderr)
                .or_else(|| cause::ssh_failure(&c.stderr, &target))
                .or_else(|| cause::last_line(&c.stderr))
                .unwrap_or_else(|| "the clean script failed".into()),
        );
        return out;
    }
    let text = c.stdout_text();
    for word in ["removed", "absent"] {
        out.removed
            .extend(remote::values(&text, word).iter().map(|p| p.to_string()));
    }
    for p in remote::values(&text, "left") {
        out.left.push((
            p.to_string(),
            "could not be removed (permissions, or a directory that is not empty)".into(),
        ));
    }
    for p in remote::values(&text, "refused") {
        out.left.push((
            p.to_string(),
            "not a path candor makes (or a link): never removed by candor".into(),
        ));
    }
    for v in remote::values(&text, "inuse") {
        let (p, pid) = v.rsplit_once(' ').unwrap_or((v, "?"));
        out.left.push((
            p.to_string(),
            format!("a running candor (pid {pid}) still writes its Run there"),
        ));
    }
    // A path the script did not mention (it ended early) stays named.
    for p in &h.left_on_host {
        if !out.removed.contains(p) && !out.left.iter().any(|(l, _)| l == p) {
            out.left
                .push((p.clone(), "not reported by the host".into()));
        }
    }
    out
}

/// Writes what clean did into the host's record.
pub fn apply(rec: &mut HostRecord, cleaned: &Cleaned, at: &str) {
    if let Some(why) = &cleaned.failed {
        rec.notes
            .push(format!("candor fleet clean ({at}): nothing removed: {why}"));
        return;
    }
    rec.left_on_host = cleaned.left.iter().map(|(p, _)| p.clone()).collect();
    let mut note = format!(
        "candor fleet clean ({at}): removed {}",
        if cleaned.removed.is_empty() {
            "nothing".to_string()
        } else {
            cleaned.removed.join(", ")
        }
    );
    for (p, why) in &cleaned.left {
        note.push_str(&format!("; {p} stays: {why}"));
    }
    rec.notes.push(note);
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_host_is_reached_as_the_run_reached_it() {
        let mut rec = HostRecord::new(&Target::parse("admin@10.0.0.7:2222").unwrap());
        rec.name = "web1".into();
        let t = target_of(&rec);
        assert_eq!(
            (t.name.as_str(), t.address.as_str(), t.port),
            ("web1", "10.0.0.7", Some(2222))
        );
        // A fleet.json of before (no connection): its destination.
        rec.connection = None;
        rec.destination = "root@10.0.0.8:22".into();
        let t = target_of(&rec);
        assert_eq!(
            (t.address.as_str(), t.user.as_deref()),
            ("10.0.0.8", Some("root"))
        );
    }

    #[test]
    fn what_stays_is_named_with_why() {
        let mut rec = HostRecord::new(&Target::named("h"));
        rec.left_on_host = vec!["/tmp/candor-fleet.a".into(), "/x".into()];
        let cleaned = Cleaned {
            host: "h".into(),
            removed: vec!["/tmp/candor-fleet.a".into()],
            left: vec![("/x".into(), "not a path candor makes".into())],
            failed: None,
            named: Vec::new(),
        };
        apply(&mut rec, &cleaned, "t");
        assert_eq!(rec.left_on_host, ["/x"]);
        assert_eq!(
            rec.notes.last().unwrap(),
            "candor fleet clean (t): removed /tmp/candor-fleet.a; /x stays: not a path candor makes"
        );
        let mut rec2 = HostRecord::new(&Target::named("h"));
        rec2.left_on_host = vec!["/tmp/candor-fleet.a".into()];
        let failed = Cleaned {
            failed: Some("connection refused".into()),
            ..Cleaned::default()
        };
        apply(&mut rec2, &failed, "t");
        assert_eq!(rec2.left_on_host, ["/tmp/candor-fleet.a"]);
    }
}
