//! The transport: the system OpenSSH client, so that the user's
//! `~/.ssh/config`, agent, ProxyJump and known_hosts work exactly as they
//! do for `ssh` and Ansible. No ssh library, no daemon, no open port on the
//! hosts.
//!
//! One connection per host: a control session (`ssh -M`, a ControlMaster
//! whose socket lives in the controller's private temporary directory)
//! that logs in once; every later step (cache check, upload, run, fetch,
//! cleanup) is a short `ssh -S socket` client multiplexed over it, so a
//! step costs a round trip, not a login. The control session itself runs
//! a tiny loop that prints the host's clock on request (`remote::CONTROL`),
//! which measures the clock offset without another login.
//!
//! Options: the user's `--ssh-option`s and the inventory's
//! `ansible_ssh_*_args` come first (ssh keeps the first value it is given
//! for an option, so they override candor's); then `BatchMode=yes` (never
//! a prompt), `StrictHostKeyChecking=accept-new` (a new host's key is
//! recorded, a changed one is refused), `ConnectTimeout` and keepalives
//! that notice a host that went away within a minute.
//!
//! Every ssh process runs in its own process group (Ctrl-C on the
//! controller's terminal reaches only the controller, which then stops the
//! remote runs in order) and dies with the controller (`PR_SET_PDEATHSIG`),
//! so a killed controller closes the channels and the remote candor stops
//! itself (`--fleet-agent`).

use super::remote;
use super::target::Target;
use std::ffi::OsString;
use std::io::{BufRead, BufReader, Read, Write};
use std::path::{Path, PathBuf};
use std::process::{Child, ChildStdin, Command, ExitStatus, Stdio};
use std::sync::mpsc::{self, Receiver, RecvTimeoutError};
use std::time::{Duration, Instant, SystemTime};

/// How ssh is called for every host.
#[derive(Debug, Clone)]
pub struct SshOptions {
    /// The ssh program (`ssh`, found on PATH).
    pub program: PathBuf,
    /// `-F FILE`: another ssh config file instead of `~/.ssh/config`.
    pub config: Option<PathBuf>,
    /// `--ssh-option K=V`, passed as `-o K=V` before candor's own.
    pub options: Vec<String>,
    /// TCP connect timeout (ssh's ConnectTimeout) and the limit for the whole login.
    pub connect_timeout: Duration,
    /// The login writes the host key it was shown beside its socket
    /// (`host_key_file`), through ssh's KnownHostsCommand (OpenSSH 8.5+,
    /// `KnownHostsCommand::supported`).
    pub record_host_key: bool,
}

/// Where a login through `socket` records the host key it saw.
pub fn host_key_file(socket: &Path) -> PathBuf {
    socket.with_extension("hostkey")
}

/// Whether this ssh knows `KnownHostsCommand` (OpenSSH 8.5 and later):
/// `ssh -G` with it set fails on an older one. Nothing is connected to.
pub fn known_hosts_command_supported(program: &Path) -> bool {
    Command::new(program)
        .args(["-G", "-o", "KnownHostsCommand=/bin/true", "candor.invalid"])
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .status()
        .is_ok_and(|s| s.success())
}

/// The host key the login through `socket` saw: `TYPE SHA256:...`. ssh
/// runs KnownHostsCommand once to order its key types (`NONE NONE`) and
/// once with the key the server showed.
pub fn seen_host_key(socket: &Path) -> Option<String> {
    let text = std::fs::read_to_string(host_key_file(socket)).ok()?;
    text.lines()
        .map(str::trim)
        .rfind(|l| !l.is_empty() && *l != "NONE NONE")
        .map(str::to_string)
}

impl SshOptions {
    /// The arguments of one ssh call to `target` through `socket`, before
    /// the remote command.
    pub fn args(&self, target: &Target, socket: &Path, master: bool) -> Vec<OsString> {
        let mut a: Vec<OsString> = Vec::new();
        if let Some(f) = &self.config {
            a.push("-F".into());
            a.push(f.into());
        }
        for o in &self.options {
            a.push("-o".into());
            a.push(o.into());
        }
        a.extend(target.ssh_args.iter().map(OsString::from));
        let secs = self.connect_timeout.as_secs().max(1);
        for o in [
            "BatchMode=yes".to_string(),
            "StrictHostKeyChecking=accept-new".to_string(),
            format!("ConnectTimeout={secs}"),
            "ServerAliveInterval=15".to_string(),
            "ServerAliveCountMax=4".to_string(),
        ] {
            a.push("-o".into());
            a.push(o.into());
        }
        if master {
            a.extend(["-o", "ControlMaster=yes", "-o", "ControlPersist=no"].map(OsString::from));
            if self.record_host_key {
                // It prints nothing, so it adds no key: known_hosts still
                // decides. The file lies in candor's private directory
                // (no quote or space in its path); %t and %f are ssh's.
                a.push("-o".into());
                a.push(
                    format!(
                        "KnownHostsCommand=/bin/sh -c 'echo \"$1 $2\" >> {}' sh %t %f",
                        host_key_file(socket).display()
                    )
                    .into(),
                );
            }
        } else {
            a.extend(["-o", "ControlMaster=no"].map(OsString::from));
        }
        a.push("-S".into());
        a.push(socket.into());
        if let Some(p) = target.port {
            a.push("-p".into());
            a.push(p.to_string().into());
        }
        if let Some(u) = &target.user {
            a.push("-l".into());
            a.push(u.into());
        }
        if let Some(k) = &target.key_file {
            a.push("-i".into());
            a.push(k.into());
        }
        // `--`: the address can never be read as an option.
        a.push("--".into());
        a.push(target.address.clone().into());
        a
    }
}

/// Prepares a child so that it survives the terminal's Ctrl-C (its own
/// process group) and dies with the thread that started it.
#[cfg(unix)]
pub fn detach(cmd: &mut Command) {
    use std::os::unix::process::CommandExt;
    cmd.process_group(0);
    // SAFETY: prctl with PR_SET_PDEATHSIG is async-signal-safe and touches
    // only the new process.
    unsafe {
        cmd.pre_exec(|| {
            libc::prctl(libc::PR_SET_PDEATHSIG, libc::SIGTERM);
            Ok(())
        });
    }
}

/// On Windows the fleet's controller is refused before any child starts
/// (`commands::fleet`): nothing to prepare.
#[cfg(windows)]
pub fn detach(_cmd: &mut Command) {}

/// A line from a child's stdout or stderr.
#[derive(Debug)]
pub enum OutputLine {
    Out(String),
    Err(String),
}

/// Forwards a reader's lines to a channel (from a thread of its own); the
/// error when that thread cannot start (a process or thread limit).
pub fn forward<R: Read + Send + 'static>(
    reader: R,
    tx: mpsc::Sender<OutputLine>,
    wrap: fn(String) -> OutputLine,
) -> std::io::Result<()> {
    let spawned = std::thread::Builder::new().spawn(move || {
        let mut r = BufReader::new(reader);
        let mut buf = Vec::new();
        loop {
            buf.clear();
            match r.read_until(b'\n', &mut buf) {
                Ok(0) | Err(_) => break,
                Ok(_) => {
                    let text = String::from_utf8_lossy(&buf)
                        .trim_end_matches(['\n', '\r'])
                        .to_string();
                    if tx.send(wrap(text)).is_err() {
                        break;
                    }
                }
            }
        }
    });
    spawned.map(drop)
}

/// What a finished short command gave back.
#[derive(Debug, Default)]
pub struct Captured {
    /// None when it was killed (timeout, interruption).
    pub status: Option<ExitStatus>,
    pub stdout: Vec<u8>,
    pub stderr: Vec<String>,
    pub timed_out: bool,
    pub interrupted: bool,
}

impl Captured {
    pub fn ok(&self) -> bool {
        self.status.map(|s| s.success()).unwrap_or(false)
    }

    pub fn stdout_text(&self) -> String {
        String::from_utf8_lossy(&self.stdout).into_owned()
    }

    /// ssh's own failure (exit 255).
    pub fn ssh_failed(&self) -> bool {
        self.status.and_then(|s| s.code()) == Some(255)
    }
}

/// An open connection to one host.
pub struct Connection {
    options: SshOptions,
    target: Target,
    socket: PathBuf,
    master: Child,
    control_in: Option<ChildStdin>,
    lines: Receiver<OutputLine>,
    /// The master's stderr so far (login messages, the first-use key note).
    pub login_messages: Vec<String>,
    /// `uname -sm` on the host.
    pub system: String,
    /// `$HOME` on the host.
    pub home: String,
}

/// Why a connection could not be opened.
#[derive(Debug)]
pub struct ConnectError {
    pub stderr: Vec<String>,
    pub timed_out: bool,
    pub interrupted: bool,
    pub exit: Option<i32>,
}

impl Connection {
    /// Logs in (the control session) and waits until the host answers,
    /// for at most `timeout`; `socket` is a path in a private directory.
    pub fn open(
        options: &SshOptions,
        target: &Target,
        socket: &Path,
        timeout: Duration,
    ) -> Result<Connection, ConnectError> {
        let mut cmd = Command::new(&options.program);
        cmd.args(options.args(target, socket, true))
            .arg(remote::command(remote::CONTROL, &[]))
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped());
        detach(&mut cmd);
        let mut master = cmd.spawn().map_err(|e| ConnectError {
            stderr: vec![format!("cannot start {}: {e}", options.program.display())],
            timed_out: false,
            interrupted: false,
            exit: None,
        })?;
        let (tx, lines) = mpsc::channel();
        let forwarding = forward(
            master.stdout.take().expect("piped"),
            tx.clone(),
            OutputLine::Out,
        )
        .and_then(|()| forward(master.stderr.take().expect("piped"), tx, OutputLine::Err));
        if let Err(e) = forwarding {
            let _ = master.kill();
            let _ = master.wait();
            return Err(ConnectError {
                stderr: vec![format!(
                    "candor cannot start a thread to read ssh: {e} (a process or thread limit?)"
                )],
                timed_out: false,
                interrupted: false,
                exit: None,
            });
        }
        let control_in = master.stdin.take();
        let deadline = Instant::now() + timeout;
        let mut stderr = Vec::new();
        let mut got: Vec<String> = Vec::new();
        let mut ready = false;
        let fail = |master: &mut Child, stderr: Vec<String>, timed_out, interrupted| {
            let _ = master.kill();
            let status = master.wait().ok();
            ConnectError {
                stderr,
                timed_out,
                interrupted,
                exit: status.and_then(|s| s.code()),
            }
        };
        while got.len() < 2 {
            if crate::cancel::cancelled() {
                return Err(fail(&mut master, stderr, false, true));
            }
            let left = deadline.saturating_duration_since(Instant::now());
            if left.is_zero() {
                return Err(fail(&mut master, stderr, true, false));
            }
            match lines.recv_timeout(left.min(Duration::from_millis(100))) {
                Ok(OutputLine::Out(l)) if !ready => ready = l.trim() == "candor-fleet-ready",
                Ok(OutputLine::Out(l)) => got.push(l),
                Ok(OutputLine::Err(l)) => stderr.push(l),
                Err(RecvTimeoutError::Timeout) => {}
                Err(RecvTimeoutError::Disconnected) => {
                    // ssh ended: collect its status; the lines say why.
                    let status = master.wait().ok();
                    return Err(ConnectError {
                        stderr,
                        timed_out: false,
                        interrupted: false,
                        exit: status.and_then(|s| s.code()),
                    });
                }
            }
        }
        Ok(Connection {
            options: options.clone(),
            target: target.clone(),
            socket: socket.to_path_buf(),
            master,
            control_in,
            lines,
            login_messages: stderr,
            system: got[0].trim().to_string(),
            home: got[1].trim().to_string(),
        })
    }

    /// An ssh client command for a script on the host, through the control socket.
    pub fn command(&self, script: &str, args: &[String]) -> Command {
        let mut cmd = Command::new(&self.options.program);
        cmd.args(self.options.args(&self.target, &self.socket, false))
            .arg(remote::command(script, args));
        detach(&mut cmd);
        cmd
    }

    /// Runs a short script (stdin from `input`, or nothing), for at most
    /// `timeout`; stops early on Ctrl-C when `interruptible`.
    pub fn exec(
        &self,
        script: &str,
        args: &[String],
        input: Option<&Path>,
        timeout: Duration,
        interruptible: bool,
    ) -> Captured {
        let mut cmd = self.command(script, args);
        let stdin = match input {
            Some(p) => match std::fs::File::open(p) {
                Ok(f) => Stdio::from(f),
                Err(e) => {
                    return Captured {
                        stderr: vec![format!("candor-fleet: cannot read {}: {e}", p.display())],
                        ..Captured::default()
                    }
                }
            },
            None => Stdio::null(),
        };
        cmd.stdin(stdin)
            .stdout(Stdio::piped())
            .stderr(Stdio::piped());
        capture(cmd, timeout, interruptible)
    }

    /// One reading of the host's clock: when the request left (controller
    /// clock), the round trip, and the host's answer in seconds since the epoch.
    pub fn clock_sample(&mut self, timeout: Duration) -> Option<(SystemTime, Duration, f64)> {
        let input = self.control_in.as_mut()?;
        // Drop anything left over (a late answer to an earlier request).
        while self.lines.try_recv().is_ok() {}
        let sent = SystemTime::now();
        let t0 = Instant::now();
        input.write_all(b"t\n").ok()?;
        input.flush().ok()?;
        loop {
            let left = timeout.checked_sub(t0.elapsed())?;
            match self.lines.recv_timeout(left) {
                Ok(OutputLine::Out(l)) => {
                    let rtt = t0.elapsed();
                    return l.trim().parse::<f64>().ok().map(|v| (sent, rtt, v));
                }
                Ok(OutputLine::Err(_)) => continue,
                Err(_) => return None,
            }
        }
    }

    /// Ends the control session (the master exits once its clients have).
    pub fn close(mut self) {
        drop(self.control_in.take());
        let deadline = Instant::now() + Duration::from_secs(5);
        while Instant::now() < deadline {
            if let Ok(Some(_)) = self.master.try_wait() {
                return;
            }
            std::thread::sleep(Duration::from_millis(20));
        }
        let _ = self.master.kill();
        let _ = self.master.wait();
    }
}

/// Runs a prepared command to its end, or until `timeout` or (when
/// `interruptible`) Ctrl-C, collecting stdout and stderr.
pub fn capture(mut cmd: Command, timeout: Duration, interruptible: bool) -> Captured {
    // `ssh`, `ansible-inventory`: the program, for the errors below.
    let program = Path::new(cmd.get_program())
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default();
    let mut child = match cmd.spawn() {
        Ok(c) => c,
        Err(e) => {
            return Captured {
                stderr: vec![format!("candor-fleet: cannot start {program}: {e}")],
                ..Captured::default()
            }
        }
    };
    let mut out = child.stdout.take().expect("piped");
    let err = child.stderr.take().expect("piped");
    let reader = std::thread::Builder::new().spawn(move || {
        let mut v = Vec::new();
        let _ = out.read_to_end(&mut v);
        v
    });
    let err_reader = std::thread::Builder::new().spawn(move || {
        BufReader::new(err)
            .lines()
            .map_while(Result::ok)
            .collect::<Vec<String>>()
    });
    let (reader, err_reader) = match (reader, err_reader) {
        (Ok(r), Ok(e)) => (r, e),
        (Err(e), _) | (_, Err(e)) => {
            // The child's pipes close with it: a reader that started ends.
            let _ = child.kill();
            let _ = child.wait();
            return Captured {
                stderr: vec![format!(
                    "candor-fleet: cannot start a thread to read {program}: {e} (a process or thread limit?)"
                )],
                ..Captured::default()
            };
        }
    };
    let deadline = Instant::now() + timeout;
    let mut captured = Captured::default();
    loop {
        match child.try_wait() {
            Ok(Some(status)) => {
                captured.status = Some(status);
                break;
            }
            Ok(None) => {}
            Err(_) => break,
        }
        if Instant::now() >= deadline {
            captured.timed_out = true;
        } else if interruptible && crate::cancel::cancelled() {
            captured.interrupted = true;
        }
        if captured.timed_out || captured.interrupted {
            let _ = child.kill();
            let _ = child.wait();
            break;
        }
        std::thread::sleep(Duration::from_millis(5));
    }
    captured.stdout = reader.join().unwrap_or_default();
    captured.stderr = err_reader.join().unwrap_or_default();
    captured
}

/// The controller's private directory for control sockets: created 0700
/// (no other user can reach a socket that is logged in to a host), short
/// enough for a socket path, removed when dropped.
#[derive(Debug)]
pub struct SocketDir(PathBuf);

impl SocketDir {
    /// No Unix sockets for ssh's control master on Windows (not ported).
    #[cfg(windows)]
    pub fn create() -> std::io::Result<SocketDir> {
        Err(std::io::Error::other(
            "ssh control sockets are not ported to Windows",
        ))
    }

    #[cfg(unix)]
    pub fn create() -> std::io::Result<SocketDir> {
        use std::os::unix::fs::DirBuilderExt;
        // A Unix socket path holds at most 107 bytes; TMPDIR may be long.
        let base = std::env::temp_dir();
        let base = if base.as_os_str().len() <= 60 {
            base
        } else {
            PathBuf::from("/tmp")
        };
        let salt = crate::seed::fresh();
        for attempt in 0..16u64 {
            let p = base.join(format!(
                "candor-fleet-{}-{:08x}",
                std::process::id(),
                salt.wrapping_add(attempt) as u32
            ));
            match std::fs::DirBuilder::new().mode(0o700).create(&p) {
                Ok(()) => return Ok(SocketDir(p)),
                Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists => continue,
                Err(e) => return Err(e),
            }
        }
        Err(std::io::Error::other(
            "cannot create a private directory: 16 names taken",
        ))
    }

    pub fn path(&self) -> &Path {
        &self.0
    }
}

impl Drop for SocketDir {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}
