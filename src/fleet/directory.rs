//! The output directory of a fleet run:
//!
//! ```text
//! DIR/fleet.json          what happened on every host (summary.rs)
//! DIR/runs/<host>.json    each host's Run, as fetched
//! DIR/compare.txt .md .csv .json .html   the comparison in every format
//! ```
//!
//! It is made fresh (an existing, non-empty directory is refused unless
//! `--force`), every file goes through the one writer (`output`), and
//! `candor fleet report DIR` reads it back.

use super::summary::{FleetSummary, HostRecord, HostStatus};
use crate::error::usage;
use crate::output::{write_atomic, Replace};
use crate::result::Run;
use std::path::{Path, PathBuf};

/// The comparison files, one per report format (`report::fleet_compare_files`
/// renders each by its name's extension).
pub const COMPARE_FILES: [&str; 5] = [
    "compare.txt",
    "compare.md",
    "compare.csv",
    "compare.json",
    "compare.html",
];

/// Renders the comparison files (named as in `COMPARE_FILES`: (name,
/// text) each) of the fleet directory's Runs: the command hands
/// `report::fleet_compare_files` in, so that the fleet lays out no report
/// itself.
pub type CompareRenderer = fn(&FleetSummary, &Path) -> anyhow::Result<Vec<(&'static str, String)>>;

/// `candor-fleet-<UTC time>` in the current directory.
pub fn default_dir() -> PathBuf {
    let stamp: String = crate::units::now_rfc3339()
        .chars()
        .filter(|c| *c != '-' && *c != ':')
        .collect();
    PathBuf::from(format!("candor-fleet-{stamp}"))
}

/// Makes the directory (and `runs/`) before anything runs: its parent must
/// exist; an existing directory must be empty unless `force`; a symlink or
/// a file is refused. Errors are usage errors naming `-o`. Returns the
/// directories it made, for `unmake` when the run ends before any host.
pub fn prepare(dir: &Path, force: bool) -> anyhow::Result<Vec<PathBuf>> {
    let mut made = Vec::new();
    let refuse = |why: String| usage(format!("-o {}: {why}", dir.display()));
    match std::fs::symlink_metadata(dir) {
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
            let parent = crate::output::parent_dir(dir);
            if !parent.is_dir() {
                return Err(refuse(format!(
                    "directory {} does not exist",
                    parent.display()
                )));
            }
            std::fs::create_dir(dir).map_err(|e| refuse(format!("cannot create it: {e}")))?;
            made.push(dir.to_path_buf());
        }
        Err(e) => return Err(refuse(format!("cannot look at it: {e}"))),
        Ok(meta) => {
            if !meta.is_dir() {
                return Err(refuse(
                    "exists and is not a directory (a fleet run writes a directory)".into(),
                ));
            }
            let empty = std::fs::read_dir(dir)
                .map_err(|e| refuse(format!("cannot read it: {e}")))?
                .next()
                .is_none();
            if !empty && !force {
                return Err(refuse(
                    "exists and is not empty; candor never overwrites (choose another -o, or --force)".into(),
                ));
            }
        }
    }
    let runs = dir.join("runs");
    match std::fs::symlink_metadata(&runs) {
        Ok(m) if m.is_dir() => {}
        Ok(_) => {
            unmake(&made);
            return Err(refuse("runs exists and is not a directory".into()));
        }
        Err(_) => {
            if let Err(e) = std::fs::create_dir(&runs) {
                unmake(&made);
                return Err(refuse(format!("cannot create runs/: {e}")));
            }
            made.push(runs);
        }
    }
    Ok(made)
}

/// Removes the directories `prepare` made, while they are still empty: a
/// fleet run refused or failed before any host leaves nothing behind.
pub fn unmake(made: &[PathBuf]) {
    for d in made.iter().rev() {
        let _ = std::fs::remove_dir(d);
    }
}

/// Checks, before any host is contacted, every file the fleet run will
/// write in `dir` (`fleet.json`, the comparisons, each host's
/// `runs/<stem>.json`) as the one writer will (`output::check`): in a
/// directory given with `--force`, a link, a directory or a device at one
/// of those names would otherwise be found after the hosts ran, and an
/// input there (`inputs`: the inventory, the ssh config, the history, the
/// playbook's results) would be replaced. `flag` names the directory's
/// flag as the command was given it (`-o`, or `DIR` for collect).
pub fn check_files(
    dir: &Path,
    flag: &str,
    stems: &[String],
    force: bool,
    inputs: &[PathBuf],
) -> anyhow::Result<()> {
    let inputs: Vec<&Path> = inputs.iter().map(PathBuf::as_path).collect();
    let replace = Replace::from_force(force);
    let files = std::iter::once(dir.join("fleet.json"))
        .chain(COMPARE_FILES.iter().map(|name| dir.join(name)))
        .chain(
            stems
                .iter()
                .map(|s| dir.join("runs").join(format!("{s}.json"))),
        );
    for file in files {
        crate::output::check(&file, flag, replace, &inputs)?;
    }
    Ok(())
}

/// Unique file stems for the hosts' Runs (`web1`, `web1-2` for a second host of that name).
pub fn file_stems(names: &[String]) -> Vec<String> {
    let mut out: Vec<String> = Vec::new();
    for n in names {
        let base = super::Target::named(n).file_stem();
        let mut stem = base.clone();
        let mut k = 2;
        while out.iter().any(|o| o.eq_ignore_ascii_case(&stem)) {
            stem = format!("{base}-{k}");
            k += 1;
        }
        out.push(stem);
    }
    out
}

/// Writes fleet.json and the comparison in every format (`render`);
/// returns the files written.
pub fn write(
    dir: &Path,
    summary: &FleetSummary,
    force: bool,
    render: CompareRenderer,
) -> anyhow::Result<Vec<PathBuf>> {
    let replace = Replace::from_force(force);
    let mut written = Vec::new();
    let mut json = serde_json::to_vec_pretty(summary)?;
    json.push(b'\n');
    let path = dir.join("fleet.json");
    write_atomic(&path, &json, replace)?;
    written.push(path);
    for (name, text) in render(summary, dir)? {
        let path = dir.join(name);
        write_atomic(&path, text.as_bytes(), replace)?;
        written.push(path);
    }
    Ok(written)
}

/// Each fetched Run gets its fleet context (`Run.fleet`: the machine the
/// connection reached, and with more than one host at once the hosts it
/// ran beside), so that the Run itself says it wherever it goes (drift in
/// the history, `candor compare`). The Runs are this fleet run's own
/// files in `dir`.
pub fn mark_context(dir: &Path, summary: &FleetSummary) -> anyhow::Result<()> {
    for h in &summary.hosts {
        let Some(f) = &h.run_file else { continue };
        if summary.parallel <= 1 && h.reached.is_none() {
            continue;
        }
        let path = dir.join(f);
        let mut run = crate::result::read_run(&path)?;
        run.fleet = Some(context(summary, h));
        crate::result::write_run(&run, &path, Replace::Force)?;
    }
    Ok(())
}

/// A host's fleet context, from fleet.json.
pub fn context(summary: &FleetSummary, h: &super::HostRecord) -> crate::result::FleetContext {
    crate::result::FleetContext {
        parallel: summary.parallel,
        overlapped_with: h.overlapped_with.clone(),
        destination: h.reached.clone(),
    }
}

/// The Runs of the hosts that ended ok, in host order, each read and handed
/// to `each` with its host and file before the next is read: a fleet of
/// thousands is never held at once (4,000 battery Runs took 1.9 GB).
pub fn each_compared_run(
    dir: &Path,
    summary: &FleetSummary,
    mut each: impl FnMut(&HostRecord, &Path, Run) -> anyhow::Result<()>,
) -> anyhow::Result<()> {
    let hosts = summary
        .hosts
        .iter()
        .filter(|h| h.status == HostStatus::Ok && h.run_file.is_some());
    for (h, f) in hosts.zip(run_files(dir, summary)?) {
        // Thousands of Runs take a while: the first signal stops here,
        // unless it stopped the hosts already: then the comparison of
        // what finished is written (a second signal exits at once).
        let run = if summary.interrupted {
            // Reading them is then part of answering the stop.
            crate::cancel::finishing(|| crate::result::read_run(&f))?
        } else {
            crate::cancel::check()?;
            crate::result::read_run(&f)?
        };
        each(h, &f, run)?;
    }
    Ok(())
}

/// The Run files of the hosts that finished, in `compared_runs` order
/// (each checked to lie inside the fleet directory).
pub fn run_files(dir: &Path, summary: &FleetSummary) -> anyhow::Result<Vec<PathBuf>> {
    let mut files = Vec::new();
    for h in summary.hosts.iter().filter(|h| h.status == HostStatus::Ok) {
        if let Some(f) = &h.run_file {
            if Path::new(f).is_absolute() || f.contains("..") {
                return Err(usage(format!(
                    "{}: host {}: run_file '{f}' is not inside the fleet directory",
                    dir.join("fleet.json").display(),
                    h.name
                )));
            }
            files.push(dir.join(f));
        }
    }
    Ok(files)
}

/// The files of a fleet directory and of its subdirectories (one level:
/// the hosts' Runs): what `fleet report` reads, never to be its output.
pub fn files(dir: &Path) -> Vec<PathBuf> {
    let entries = |d: &Path| -> Vec<PathBuf> {
        std::fs::read_dir(d)
            .map(|rd| rd.filter_map(|e| e.ok().map(|e| e.path())).collect())
            .unwrap_or_default()
    };
    let mut files = Vec::new();
    for entry in entries(dir) {
        match std::fs::symlink_metadata(&entry) {
            Ok(m) if m.is_dir() => files.extend(entries(&entry)),
            Ok(_) => files.push(entry),
            Err(_) => {}
        }
    }
    files
}

/// Reads a fleet directory's summary back (its Runs are read one at a
/// time: `each_compared_run`).
pub fn load(dir: &Path) -> anyhow::Result<FleetSummary> {
    if !dir.is_dir() {
        return Err(usage(format!(
            "{}: not a directory (give the directory candor fleet run wrote)",
            dir.display()
        )));
    }
    FleetSummary::read(&dir.join("fleet.json"))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn stems_are_unique() {
        let names: Vec<String> = ["web1", "web1", "WEB1", "a/b", "a_b"]
            .iter()
            .map(|s| s.to_string())
            .collect();
        assert_eq!(
            file_stems(&names),
            ["web1", "web1-2", "WEB1-3", "a_b", "a_b-2"]
        );
    }

    #[test]
    fn prepare_refuses_what_it_must() {
        let dir = tempfile::tempdir().unwrap();
        let out = dir.path().join("fleet");
        prepare(&out, false).unwrap();
        assert!(out.join("runs").is_dir());
        // Empty but for runs/? No: runs/ makes it non-empty; a second run needs --force.
        let e = prepare(&out, false).unwrap_err();
        assert!(crate::error::is_usage(&e));
        assert!(e.to_string().contains("not empty"), "{e}");
        prepare(&out, true).unwrap();
        let file = dir.path().join("f");
        std::fs::write(&file, "x").unwrap();
        assert!(prepare(&file, true)
            .unwrap_err()
            .to_string()
            .contains("not a directory"));
        assert!(prepare(&dir.path().join("no/such"), false)
            .unwrap_err()
            .to_string()
            .contains("does not exist"));
    }

    #[test]
    fn every_file_to_be_written_is_checked_before_the_hosts() {
        let dir = tempfile::tempdir().unwrap();
        let out = dir.path().join("fleet");
        prepare(&out, false).unwrap();
        let stems = vec!["web1".to_string(), "db1".to_string()];
        check_files(&out, "-o", &stems, true, &[]).unwrap();
        // Files of an earlier run may be replaced with --force ...
        std::fs::write(out.join("fleet.json"), "{}").unwrap();
        std::fs::write(out.join("runs/web1.json"), "{}").unwrap();
        check_files(&out, "-o", &stems, true, &[]).unwrap();
        // ... but a link, a directory or a device at one of the names is
        // said now, not after the hosts ran (a link: Unix's symlink).
        #[cfg(unix)]
        {
            std::os::unix::fs::symlink("/etc/passwd", out.join("compare.html")).unwrap();
            let e = check_files(&out, "-o", &stems, true, &[]).unwrap_err();
            assert!(
                crate::error::is_usage(&e) && e.to_string().contains("compare.html"),
                "{e}"
            );
            std::fs::remove_file(out.join("compare.html")).unwrap();
        }
        std::fs::create_dir(out.join("runs/db1.json")).unwrap();
        let e = check_files(&out, "-o", &stems, true, &[]).unwrap_err();
        assert!(
            e.to_string().contains("db1.json") && e.to_string().contains("directory"),
            "{e}"
        );
    }
}
