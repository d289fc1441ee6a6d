//! One host's life in a fleet run: connect (which says its architecture),
//! read its clock, put that architecture's binary in its cache (or find it
//! there), run `candor run`, fetch the Run, remove what was left, each
//! phase timed. Every failure ends in a one-line cause
//! (`cause.rs`) and the later phases that still make sense: a run that
//! failed halfway is fetched as far as it got, and cleanup runs whatever
//! happened before it (also after Ctrl-C), so the host is left as it was.
//!
//! Stopping a remote run: the controller closes the run's ssh channel, and
//! the remote candor (`--fleet-agent`) stops as on Ctrl-C, removing its
//! test files and saving its Run as interrupted. If it has not ended after
//! a grace period, it gets SIGTERM (which removes its test files at once),
//! then SIGKILL, and cleanup removes the test files of its pid.

use super::cause;
use super::clock;
use super::remote;
use super::ssh::{forward, Connection, OutputLine};
use super::summary::{now_millis, HostRecord, HostStatus, Phase, PhaseTime, UploadRecord};
use super::FleetPlan;
use std::path::PathBuf;
use std::process::Stdio;
use std::sync::mpsc::{self, RecvTimeoutError, Sender};
use std::time::{Duration, Instant};

/// What a host's worker tells the display.
#[derive(Debug)]
pub enum Event {
    /// Host `.0` entered a phase.
    Phase(usize, Phase),
    /// A progress line of the remote battery.
    Progress(usize, String),
    /// Host `.0` is done.
    Done(usize, Box<HostRecord>),
}

/// How long a stopped remote run gets to save its Run and remove its files
/// before SIGTERM, and after SIGTERM before SIGKILL.
const GRACE_EOF: Duration = Duration::from_secs(20);
const GRACE_TERM: Duration = Duration::from_secs(10);

/// The outcome of one host: its record and, when it ran, the controller's
/// interval of the run phase (for overlaps).
pub struct HostOutcome {
    pub record: HostRecord,
    pub run_interval: Option<(Instant, Instant)>,
}

/// State carried between phases.
struct HostWork<'a> {
    index: usize,
    rec: HostRecord,
    events: &'a Sender<Event>,
    ledger: &'a super::ledger::Ledger,
}

impl HostWork<'_> {
    fn phase(&self, phase: Phase) -> (Phase, String, Instant) {
        let _ = self.events.send(Event::Phase(self.index, phase));
        self.ledger.phase(self.index, phase);
        (phase, now_millis(), Instant::now())
    }

    fn end(&mut self, started: (Phase, String, Instant), failed: bool) {
        self.rec.phases.push(PhaseTime {
            phase: started.0,
            started_at: started.1,
            duration_ns: started.2.elapsed().as_nanos() as u64,
            failed,
        });
    }

    fn fail(&mut self, phase: Phase, cause: String, stderr: &[String]) {
        if self.rec.cause.is_none() {
            self.rec.status = if crate::cancel::cancelled() {
                HostStatus::Interrupted
            } else {
                HostStatus::Failed
            };
            self.rec.cause = Some(cause);
            self.rec.failed_phase = Some(phase);
            self.rec.stderr_tail = tail(stderr, 12);
        }
    }
}

fn tail(lines: &[String], n: usize) -> Vec<String> {
    lines[lines.len().saturating_sub(n)..].to_vec()
}

/// The cause of a failed short step: the host's own words, else ssh's, else the last line.
fn step_cause(
    step: &str,
    c: &super::ssh::Captured,
    target: &super::Target,
    limit: Duration,
) -> String {
    if c.timed_out {
        return format!(
            "{step}: no answer within {}",
            crate::units::fmt_duration(limit)
        );
    }
    if c.interrupted {
        return format!("{step}: interrupted");
    }
    let why = cause::remote_failure(&c.stderr)
        .or_else(|| {
            c.ssh_failed()
                .then(|| cause::ssh_failure(&c.stderr, target))
                .flatten()
        })
        .or_else(|| cause::last_line(&c.stderr))
        .unwrap_or_else(|| match c.status.and_then(|s| s.code()) {
            Some(code) => format!("exit status {code}"),
            None => "killed".to_string(),
        });
    format!("{step}: {why}")
}

/// Runs every phase on one host.
pub fn run(
    plan: &FleetPlan,
    index: usize,
    target: &super::Target,
    events: &Sender<Event>,
) -> HostOutcome {
    let mut w = HostWork {
        index,
        rec: HostRecord::new(target),
        events,
        ledger: &plan.ledger,
    };
    w.rec.started_at = Some(now_millis());
    let become_user = target
        .become_
        .as_ref()
        .map(|b| b.user.clone())
        .unwrap_or_default();
    let mut run_interval = None;

    // Connect.
    let p = w.phase(Phase::Connect);
    let socket = plan.private_dir.join(format!("{index}.sock"));
    let conn = Connection::open(&plan.ssh, target, &socket, plan.timeouts.connect);
    let mut conn = match conn {
        Ok(c) => {
            w.end(p, false);
            c
        }
        Err(e) => {
            w.end(p, true);
            let why = if e.interrupted {
                "interrupted before login".to_string()
            } else if e.timed_out {
                format!(
                    "no answer within {} (--timeout-connect)",
                    crate::units::fmt_duration(plan.timeouts.connect)
                )
            } else {
                cause::ssh_failure(&e.stderr, target)
                    .or_else(|| cause::last_line(&e.stderr))
                    .unwrap_or_else(|| {
                        format!("ssh ended without a word ({})", cause::ssh_exit(e.exit))
                    })
            };
            w.fail(Phase::Connect, why, &e.stderr);
            return finish(w, None);
        }
    };
    let resolved = &plan.destinations[index];
    w.rec.reached = Some(crate::result::Destination {
        user: resolved.user.clone(),
        address: resolved.hostname.clone(),
        port: resolved.port,
        via: resolved.via.clone(),
        host_key: super::ssh::seen_host_key(&socket),
    });
    if cause::key_recorded(&conn.login_messages) {
        w.rec.notes.push(
            "the host's key was not in known_hosts: recorded on this first connection (StrictHostKeyChecking=accept-new)"
                .into(),
        );
    }
    w.rec.system = Some(conn.system.clone());
    let arch = match super::binary::host_arch(&conn.system) {
        Ok(a) => a,
        Err(why) => {
            w.fail(Phase::Connect, why, &[]);
            conn.close();
            return finish(w, None);
        }
    };
    w.rec.arch = Some(arch.name().to_string());

    // Clock.
    let p = w.phase(Phase::Clock);
    let readings: Vec<_> = (0..5)
        .filter_map(|_| conn.clock_sample(Duration::from_secs(5)))
        .collect();
    w.rec.clock = clock::estimate(&readings);
    if w.rec.clock.is_none() {
        w.rec
            .notes
            .push("the host's clock could not be read (no `date +%s.%N` there?)".into());
    }
    w.end(p, false);

    // Upload (or find in the cache).
    let mut created: Vec<String> = Vec::new();
    let mut uploaded: Option<String> = None;
    let p = w.phase(Phase::Upload);
    // The first host of an architecture has its binary chosen and hashed
    // here; a host whose architecture has none ends with that cause.
    let bin = match plan.binaries.for_arch(arch) {
        Ok(b) => b,
        Err(why) => {
            w.end(p, true);
            w.fail(Phase::Upload, why, &[]);
            conn.close();
            return finish(w, None);
        }
    };
    w.rec.binary_sha256 = Some(bin.sha256.clone());
    let check = conn.exec(
        remote::CHECK_CACHE,
        std::slice::from_ref(&bin.sha256),
        None,
        plan.timeouts.upload,
        true,
    );
    let stdout = check.stdout_text();
    let cached = if !check.ok() {
        None
    } else if let Some(v) = remote::values(&stdout, "cached").first() {
        let mut parts = v.splitn(3, ' ');
        match (parts.next(), parts.next(), parts.next()) {
            (Some("sha256"), Some(path), rest) => Some(UploadRecord {
                how: "cached".into(),
                path: rest
                    .map(|r| format!("{path} {r}"))
                    .unwrap_or(path.to_string()),
                verified_by: "sha256".into(),
                bytes_sent: 0,
            }),
            (Some("size"), Some(n), Some(path)) if n.trim() == bin.bytes.to_string() => {
                Some(UploadRecord {
                    how: "cached".into(),
                    path: path.to_string(),
                    verified_by: "size".into(),
                    bytes_sent: 0,
                })
            }
            _ => None,
        }
    } else {
        None
    };
    let upload = match (check.ok(), cached) {
        (false, _) => Err((
            step_cause("cache check", &check, target, plan.timeouts.upload),
            check.stderr,
        )),
        (true, Some(rec)) => Ok(rec),
        (true, None) => {
            let up = conn.exec(
                remote::UPLOAD,
                &[bin.sha256.clone(), bin.bytes.to_string()],
                Some(&bin.path),
                plan.timeouts.upload,
                true,
            );
            let out = up.stdout_text();
            created = remote::values(&out, "created")
                .iter()
                .map(|s| s.to_string())
                .collect();
            for d in &created {
                w.ledger.made(index, d);
            }
            match remote::values(&out, "uploaded").first() {
                Some(path) if up.ok() => {
                    uploaded = Some(path.to_string());
                    w.ledger.made(index, path);
                    Ok(UploadRecord {
                        how: "uploaded".into(),
                        path: path.to_string(),
                        verified_by: remote::values(&out, "verified")
                            .first()
                            .map(|s| s.to_string())
                            .unwrap_or_default(),
                        bytes_sent: bin.bytes,
                    })
                }
                _ => {
                    let mut why = step_cause("upload", &up, target, plan.timeouts.upload);
                    if why.contains("no space") {
                        why = format!(
                            "upload: no space left on the host for the binary in {}/{}",
                            conn.home,
                            remote::CACHE_DIR
                        );
                    }
                    Err((why, up.stderr))
                }
            }
        }
    };
    let binary_path = match upload {
        Ok(rec) => {
            w.end(p, false);
            let path = rec.path.clone();
            w.rec.upload = Some(rec);
            Some(path)
        }
        Err((why, stderr)) => {
            w.end(p, true);
            w.fail(Phase::Upload, why, &stderr);
            None
        }
    };

    // Run.
    let mut workdir: Option<String> = None;
    let mut agent_pid: Option<String> = None;
    let mut exit: Option<i32> = None;
    if let (Some(bin_path), false) = (&binary_path, crate::cancel::cancelled()) {
        let p = w.phase(Phase::Run);
        let mut args = vec![bin_path.clone(), become_user.clone()];
        args.extend(plan.run_flags.iter().cloned());
        args.push(format!("--label={}", target.name));
        let mut cmd = conn.command(&remote::run_script(), &args);
        cmd.stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped());
        let started = Instant::now();
        let outcome = match cmd.spawn() {
            Err(e) => Err(format!("cannot start ssh: {e}")),
            Ok(mut child) => 'ran: {
                let (tx, rx) = mpsc::channel();
                let forwarding = forward(
                    child.stdout.take().expect("piped"),
                    tx.clone(),
                    OutputLine::Out,
                )
                .and_then(|()| forward(child.stderr.take().expect("piped"), tx, OutputLine::Err));
                if let Err(e) = forwarding {
                    // The remote run stops with its ssh (stdin closed).
                    let _ = child.kill();
                    let _ = child.wait();
                    break 'ran Err(format!(
                        "candor cannot start a thread to read ssh: {e} (a process or thread limit?)"
                    ));
                }
                let mut stdin = child.stdin.take();
                let mut stderr: Vec<String> = Vec::new();
                let mut stop_asked: Option<(Instant, &'static str)> = None;
                let mut termed = false;
                let mut killed = false;
                let mut ssh_status = None;
                loop {
                    match rx.recv_timeout(Duration::from_millis(100)) {
                        Ok(OutputLine::Out(l)) => {
                            if let Some(v) = remote::values(&l, "workdir").first() {
                                workdir = Some(v.to_string());
                                w.ledger.made(index, v);
                            } else if let Some(v) = remote::values(&l, "exit").first() {
                                exit = v.trim().parse().ok();
                            }
                        }
                        Ok(OutputLine::Err(l)) => {
                            if let Some(pid) = l.strip_prefix(super::AGENT_PID_PREFIX) {
                                agent_pid = Some(pid.trim().to_string());
                            } else if let Some(step) = l.strip_prefix("candor: [") {
                                let _ = events.send(Event::Progress(index, format!("[{step}")));
                            } else {
                                stderr.push(l);
                                if stderr.len() > 200 {
                                    stderr.drain(..100);
                                }
                            }
                        }
                        Err(RecvTimeoutError::Disconnected) => break,
                        Err(RecvTimeoutError::Timeout) => {}
                    }
                    if ssh_status.is_none() {
                        if let Ok(Some(s)) = child.try_wait() {
                            ssh_status = Some(s);
                        }
                    }
                    // Stop on Ctrl-C or at the run timeout: close the channel first.
                    if stop_asked.is_none() {
                        if crate::cancel::cancelled() {
                            stop_asked = Some((Instant::now(), "interrupted"));
                        } else if started.elapsed() > plan.timeouts.run {
                            stop_asked = Some((Instant::now(), "timeout"));
                        }
                        if stop_asked.is_some() {
                            drop(stdin.take());
                        }
                    }
                    if let Some((at, _)) = stop_asked {
                        if ssh_status.is_none() {
                            if !termed && at.elapsed() > GRACE_EOF {
                                termed = true;
                                signal(&conn, &agent_pid, "TERM", &become_user);
                            } else if !killed && at.elapsed() > GRACE_EOF + GRACE_TERM {
                                killed = true;
                                signal(&conn, &agent_pid, "KILL", &become_user);
                            } else if at.elapsed() > GRACE_EOF + GRACE_TERM + Duration::from_secs(5)
                            {
                                let _ = child.kill();
                            }
                        }
                    }
                }
                drop(stdin);
                let status = ssh_status.or_else(|| child.wait().ok());
                Ok((status, stderr, stop_asked.map(|s| s.1), killed))
            }
        };
        let ended = Instant::now();
        run_interval = Some((started, ended));
        match outcome {
            Err(why) => {
                w.end(p, true);
                w.fail(Phase::Run, why, &[]);
            }
            Ok((status, stderr, stopped, killed)) => {
                w.rec.exit_status = exit;
                let ok = exit == Some(0);
                w.end(p, !ok);
                if !ok {
                    let why = match (stopped, exit) {
                        (Some("timeout"), _) => format!(
                            "the run did not finish within --timeout-run {}; stopped",
                            crate::units::fmt_duration(plan.timeouts.run)
                        ),
                        (Some(_), _) => {
                            "interrupted on the controller; the remote run was stopped".into()
                        }
                        (None, Some(code)) => match cause::remote_failure(&stderr) {
                            Some(c) if code < 128 => c,
                            _ => cause::exit_status(code),
                        },
                        (None, None) if workdir.is_none() => cause::remote_failure(&stderr)
                            .or_else(|| cause::ssh_failure(&stderr, target))
                            .or_else(|| cause::last_line(&stderr))
                            .unwrap_or_else(|| "the run did not start".into()),
                        (None, None) => {
                            let code = status.and_then(|s| s.code());
                            cause::ssh_failure(&stderr, target).unwrap_or_else(|| {
                                format!("the connection ended during the run ({}): the host went away, or its candor was killed with its shell", cause::ssh_exit(code))
                            })
                        }
                    };
                    w.fail(Phase::Run, why, &stderr);
                    if killed {
                        w.rec.notes.push(
                            "the remote candor did not stop when asked; it was killed (SIGKILL)"
                                .into(),
                        );
                    }
                }
            }
        }
    }

    // Fetch what the run saved, complete or not.
    if let Some(wd) = &workdir {
        let p = w.phase(Phase::Fetch);
        let got = conn.exec(
            &remote::fetch_script(),
            &[wd.clone(), become_user.clone()],
            None,
            plan.timeouts.fetch,
            false,
        );
        let file = PathBuf::from("runs").join(format!("{}.json", plan.file_stems[index]));
        let saved = if got.ok() {
            let text = String::from_utf8_lossy(&got.stdout);
            // After a stop too: keeping what the host finished is part of it.
            crate::cancel::finishing(|| {
                crate::result::parse_run(&text, &file)
                    .map_err(|e| format!("fetch: the host's Run is unreadable: {e}"))
                    .and_then(|run| {
                        crate::result::write_run(
                            &run,
                            &plan.out_dir.join(&file),
                            crate::output::Replace::from_force(plan.force),
                        )
                        .map(|_| run)
                        .map_err(|e| format!("fetch: cannot save the Run: {e}"))
                    })
            })
        } else {
            Err(step_cause("fetch", &got, target, plan.timeouts.fetch))
        };
        match saved {
            Ok(run) => {
                w.end(p, false);
                w.rec.run_file = Some(file.display().to_string());
                w.rec.run_status = Some(run.status.as_str().to_string());
                if run.status == crate::result::RunStatus::Complete && exit == Some(0) {
                    w.rec.status = HostStatus::Ok;
                } else if w.rec.cause.is_none() {
                    w.fail(
                        Phase::Run,
                        format!("the Run is {}", run.status.as_str()),
                        &[],
                    );
                }
            }
            Err(why) => {
                w.end(p, true);
                // The run's own failure, if any, is the cause; a failed fetch is only noted.
                if w.rec.cause.is_some() {
                    w.rec.notes.push(why);
                } else {
                    w.fail(Phase::Fetch, why, &got.stderr);
                }
            }
        }
    } else if binary_path.is_some() && w.rec.cause.is_none() {
        w.fail(
            Phase::Run,
            "not run: interrupted on the controller".into(),
            &[],
        );
    }

    // Cleanup, also after a failure or Ctrl-C.
    let remove_binary = uploaded.clone().filter(|_| !plan.keep && !plan.keep_binary);
    if plan.keep {
        w.rec.left_on_host.extend(workdir.iter().cloned());
        w.rec.left_on_host.extend(uploaded.iter().cloned());
        w.rec
            .notes
            .push("--keep: the work directory and the binary were left on the host".into());
    } else if workdir.is_some() || uploaded.is_some() || !created.is_empty() {
        let p = w.phase(Phase::Cleanup);
        // A candor that ended by itself removed its test files; one that
        // was killed (or lost with its connection) did not.
        let clean_exit = matches!(exit, Some(0 | 1 | 2 | 129 | 130 | 143));
        let pid = if clean_exit { None } else { agent_pid.clone() };
        let mut args = vec![
            become_user.clone(),
            workdir.clone().unwrap_or_default(),
            pid.unwrap_or_default(),
            plan.test_dir.clone(),
            remove_binary.clone().unwrap_or_default(),
        ];
        // The directories the upload made go too, unless they now hold the
        // binary kept for the next fleet run (also after a failed upload).
        if !(plan.keep_binary && uploaded.is_some()) {
            args.extend(created.iter().rev().cloned());
        }
        let c = conn.exec(
            &remote::cleanup_script(),
            &args,
            None,
            plan.timeouts.fetch,
            false,
        );
        if c.ok() {
            w.end(p, false);
            w.rec.left_on_host.extend(
                remote::values(&c.stdout_text(), "left")
                    .iter()
                    .map(|s| s.to_string()),
            );
        } else {
            w.end(p, true);
            w.rec.left_on_host.extend(workdir.iter().cloned());
            w.rec.left_on_host.extend(remove_binary.iter().cloned());
            w.rec
                .notes
                .push(step_cause("cleanup", &c, target, plan.timeouts.fetch));
        }
        if let (Some(path), true) = (&uploaded, remove_binary.is_none()) {
            w.rec.left_on_host.push(path.clone());
            w.rec.notes.push(
                "--keep-binary: the binary stays in the host's cache for the next fleet run".into(),
            );
        }
    }
    conn.close();
    finish(w, run_interval)
}

/// Sends a signal to the remote candor through a new channel.
fn signal(conn: &Connection, pid: &Option<String>, sig: &str, become_user: &str) {
    if let Some(pid) = pid {
        conn.exec(
            &remote::kill_script(),
            &[pid.clone(), sig.to_string(), become_user.to_string()],
            None,
            Duration::from_secs(10),
            false,
        );
    }
}

fn finish(mut w: HostWork<'_>, run_interval: Option<(Instant, Instant)>) -> HostOutcome {
    w.rec.finished_at = Some(now_millis());
    w.ledger.done(w.index, &w.rec);
    HostOutcome {
        record: w.rec,
        run_interval,
    }
}
