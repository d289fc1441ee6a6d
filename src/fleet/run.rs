//! A fleet run from start to end: every input checked before any host is
//! contacted (inventory, hosts, the binary, the output directory, the
//! `candor run` flags, so that a typo costs one line and exit code 2, not
//! twenty failed hosts), then the hosts (`schedule.rs`), then fleet.json
//! and the comparison files (`directory.rs`).

use super::summary::{now_millis, Controller, FleetSummary, HostStatus, SCHEMA};
use super::{
    binary, destination, directory, inventory, schedule, select, ssh, FleetPlan, Timeouts,
};
use std::path::PathBuf;

/// What the user asked for.
#[derive(Debug, Clone)]
pub struct Request {
    pub inventory: Option<PathBuf>,
    /// Which reader reads the inventory (`--inventory-reader`).
    pub inventory_reader: inventory::reader::InventoryReader,
    /// Two names for one destination: refused, or measured once.
    pub same_destination: destination::SameDestination,
    pub hosts: Vec<String>,
    pub out_dir: Option<PathBuf>,
    pub parallel: usize,
    /// `--binary [ARCH=]PATH`, at most one per architecture.
    pub binaries: Vec<binary::BinaryFlag>,
    pub keep: bool,
    pub keep_binary: bool,
    pub force: bool,
    pub quiet: bool,
    pub timeouts: Timeouts,
    pub ssh_config: Option<PathBuf>,
    pub ssh_options: Vec<String>,
    /// DestinationCheck `candor run` flags.
    pub run_flags: Vec<String>,
    /// The remote test directory those flags give.
    pub test_dir: String,
    /// The controller's command line.
    pub command: Vec<String>,
    /// How the comparison files are rendered (`report::fleet_compare_file`).
    pub render: directory::CompareRenderer,
    /// The files of the history the Runs go into: inputs, never outputs.
    pub history_files: Vec<PathBuf>,
}

/// Runs the fleet; returns the directory and the summary written there.
pub fn execute(req: Request) -> anyhow::Result<(PathBuf, FleetSummary)> {
    let inv = req
        .inventory
        .as_deref()
        .map(|p| inventory::reader::read(p, req.inventory_reader))
        .transpose()?;
    let targets = select::select(inv.as_ref(), &req.hosts)?;
    for o in &req.ssh_options {
        if !o.contains('=') && !o.trim().contains(' ') {
            return Err(crate::error::usage(format!(
                "--ssh-option '{o}': expected Key=Value (as ssh -o takes it)"
            )));
        }
    }
    if let Some(f) = &req.ssh_config {
        if !f.is_file() && f != std::path::Path::new("/dev/null") {
            return Err(crate::error::usage(format!(
                "--ssh-config {}: no such file",
                f.display()
            )));
        }
    }
    let program = which("ssh").ok_or_else(|| {
        anyhow::anyhow!("no ssh client on PATH: candor fleet uses the system OpenSSH client (install openssh-client)")
    })?;
    let record_host_key = ssh::known_hosts_command_supported(&program);
    let ssh_options = ssh::SshOptions {
        program,
        config: req.ssh_config.clone(),
        options: req.ssh_options.clone(),
        connect_timeout: req.timeouts.connect,
        record_host_key,
    };
    let (checked, same_notes) = destination::check(
        &ssh_options,
        targets,
        req.same_destination,
        "--same-destination once",
    )?;
    let (targets, destinations): (Vec<_>, Vec<_>) = checked.into_iter().unzip();
    let (binaries, mut notes) = binary::Binaries::prepare(&req.binaries)?;
    notes.extend(same_notes);
    let out_dir = req.out_dir.clone().unwrap_or_else(directory::default_dir);
    // Every file read is an input, whatever its flag: none may be among
    // the outputs, --force or not.
    let inputs: Vec<PathBuf> = inv
        .iter()
        .flat_map(|i| i.files().iter().cloned())
        .chain(req.ssh_config.iter().cloned())
        .chain(req.binaries.iter().map(|b| b.path.clone()))
        .chain(req.history_files.iter().cloned())
        .collect();
    let flag = if req.out_dir.is_some() {
        "-o"
    } else {
        "the output directory"
    };
    let made = directory::prepare(&out_dir, req.force)?;
    // Until a host is touched, an error leaves no directory behind.
    let unmade = |e: anyhow::Error| {
        directory::unmake(&made);
        e
    };
    let names: Vec<String> = targets.iter().map(|t| t.name.clone()).collect();
    let file_stems = directory::file_stems(&names);
    directory::check_files(&out_dir, flag, &file_stems, req.force, &inputs).map_err(unmade)?;
    // Every input is checked: which reader read the inventory is said
    // with the other notes below (a refusal above stays one line), and
    // kept in fleet.json.
    if let Some(inv) = &inv {
        notes.push(format!(
            "inventory {}: read by {}",
            inv.path().display(),
            inv.reader()
        ));
        notes.extend(inv.warnings().iter().map(|w| format!("warning: {w}")));
    }
    let sockets = ssh::SocketDir::create()
        .map_err(|e| anyhow::anyhow!("cannot create a private directory for ssh sockets: {e}"))
        .map_err(unmade)?;
    if !req.quiet {
        for n in &notes {
            eprintln!("candor fleet: {n}");
        }
    }
    let plan = FleetPlan {
        ssh: ssh_options,
        destinations,
        binaries,
        run_flags: req.run_flags.clone(),
        test_dir: req.test_dir.clone(),
        timeouts: req.timeouts,
        keep: req.keep,
        keep_binary: req.keep_binary,
        out_dir: out_dir.clone(),
        file_stems,
        private_dir: sockets.path().to_path_buf(),
        force: req.force,
        ledger: std::sync::Arc::new(super::ledger::Ledger::new(targets.len())),
    };
    let started_at = now_millis();
    let header = |hosts, notes, binaries: Vec<binary::Binary>, finished_at| FleetSummary {
        schema: SCHEMA.to_string(),
        controller: Controller {
            hostname: crate::host::uname::hostname(),
            version: env!("CARGO_PKG_VERSION").to_string(),
            clock: super::clock::ControllerClock::read(),
            max_rss_bytes: None,
            ssh_max_rss_bytes: None,
        },
        command: req.command.clone(),
        inventory: req.inventory.as_ref().map(|p| p.display().to_string()),
        run_flags: req.run_flags.clone(),
        parallel: req.parallel,
        binary: None,
        binaries,
        started_at: started_at.clone(),
        finished_at,
        interrupted: crate::cancel::cancelled(),
        hosts,
        notes,
        ssh: Some(super::summary::SshRecord {
            config: req.ssh_config.clone(),
            options: req.ssh_options.clone(),
        }),
    };
    // A second Ctrl-C exits at once: it still writes a fleet.json that
    // names what each host keeps (candor fleet clean removes it).
    crate::cancel::saving(
        || (),
        |_| {
            Some(super::ledger::last_words(
                plan.ledger.clone(),
                targets.clone(),
                header(Vec::new(), notes.clone(), Vec::new(), None),
                out_dir.clone(),
                sockets.path().to_path_buf(),
            ))
        },
    );
    let mut display = super::progress::Display::new(names, req.quiet);
    let hosts = schedule::run_all(&plan, &targets, req.parallel, &mut display).map_err(unmade)?;
    drop(sockets);
    let (max_rss, ssh_max_rss) = peak_memory();
    // The binaries the hosts asked for, first in the notes, as before.
    let binaries = plan.binaries.chosen();
    let mut first: Vec<String> = binaries
        .iter()
        .map(|b| {
            format!(
                "binary for {}: {} ({}, {} bytes, sha256 {})",
                b.arch.as_deref().unwrap_or("?"),
                b.path.display(),
                b.chosen,
                b.bytes,
                b.sha256
            )
        })
        .collect();
    // Said when a host's architecture chose them: printed now, after the
    // progress display, as the notes of the --binary flags were before it.
    let chosen_notes = plan.binaries.notes();
    if !req.quiet {
        for n in &chosen_notes {
            eprintln!("candor fleet: {n}");
        }
    }
    first.extend(chosen_notes);
    let same_keys = destination::same_host_key_notes(&hosts);
    if !req.quiet {
        for n in &same_keys {
            eprintln!("candor fleet: {n}");
        }
    }
    first.extend(same_keys);
    notes.splice(0..0, first);
    let mut given: Vec<&str> = hosts
        .iter()
        .filter_map(|h| h.binary_sha256.as_deref())
        .collect();
    given.sort_unstable();
    given.dedup();
    let binary = match (binaries.as_slice(), given.as_slice()) {
        ([one], [_]) => Some(one.clone()),
        _ => None,
    };
    let mut summary = header(hosts, notes, binaries, Some(now_millis()));
    summary.binary = binary;
    summary.controller.max_rss_bytes = max_rss;
    summary.controller.ssh_max_rss_bytes = ssh_max_rss;
    let write_all = || -> anyhow::Result<()> {
        directory::mark_context(&out_dir, &summary)?;
        directory::write(&out_dir, &summary, true, req.render)?;
        Ok(())
    };
    if summary.interrupted {
        // Writing what finished is then part of answering the stop.
        crate::cancel::finishing(write_all)?;
    } else {
        write_all()?;
    }
    // fleet.json is written: the second signal has nothing more to save.
    crate::cancel::saving(|| (), |_| None);
    Ok((out_dir, summary))
}

/// The exit decision: Ok when every host gave a complete Run.
pub fn outcome(dir: &std::path::Path, summary: &FleetSummary) -> anyhow::Result<()> {
    if summary.interrupted {
        if let Some(sig) = crate::cancel::signal() {
            return Err(crate::error::Interrupted(sig).into());
        }
    }
    let bad: Vec<&super::HostRecord> = summary
        .hosts
        .iter()
        .filter(|h| h.status != HostStatus::Ok)
        .collect();
    if bad.is_empty() {
        return Ok(());
    }
    // Which hosts, in one line: with their causes when they are few.
    let named = if bad.len() <= 3 {
        bad.iter()
            .map(|h| match &h.cause {
                Some(c) => format!("{} ({c})", h.name),
                None => h.name.clone(),
            })
            .collect::<Vec<_>>()
            .join(", ")
    } else {
        let names: Vec<&str> = bad.iter().take(10).map(|h| h.name.as_str()).collect();
        let more = bad.len() - names.len();
        let mut text = names.join(", ");
        if more > 0 {
            text.push_str(&format!(" and {more} more"));
        }
        text
    };
    Err(anyhow::anyhow!(
        "{} of {} hosts gave no complete Run: {named}; causes in {}",
        bad.len(),
        summary.hosts.len(),
        dir.join("fleet.json").display()
    ))
}

/// Peak resident memory: not read on Windows (not ported), never guessed.
#[cfg(windows)]
fn peak_memory() -> (Option<u64>, Option<u64>) {
    (None, None)
}

/// Peak resident memory of this process and of its largest child, bytes.
#[cfg(unix)]
fn peak_memory() -> (Option<u64>, Option<u64>) {
    let get = |who| {
        // SAFETY: getrusage fills a plain struct.
        let mut u: libc::rusage = unsafe { std::mem::zeroed() };
        (unsafe { libc::getrusage(who, &mut u) } == 0).then(|| u.ru_maxrss as u64 * 1024)
    };
    (get(libc::RUSAGE_SELF), get(libc::RUSAGE_CHILDREN))
}

/// A program on PATH.
pub fn which(name: &str) -> Option<PathBuf> {
    std::env::var_os("PATH").and_then(|paths| {
        std::env::split_paths(&paths)
            .map(|d| d.join(name))
            .find(|p| p.is_file())
    })
}
