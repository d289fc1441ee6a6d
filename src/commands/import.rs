//! `candor import`: fio JSON output (`--output-format=json` or `json+`), or
//! one UnixBench report (its text `results/HOST-DATE-NN`, its HTML, or the
//! console log of `./Run`), one DiskSpd result (text or XML) or one
//! CrystalDiskMark result, into a Run; fio's client/server output into one
//! Run per host. The kind is told by the content, not the file's name.

use crate::error::usage;
use crate::output::{prepare, write_text, Replace};
use crate::report::{render, Format};
use std::path::{Path, PathBuf};

/// Flags of `candor import`.
#[derive(Debug, clap::Args)]
pub struct Args {
    /// fio output files (json or json+; lines fio printed before the JSON are
    /// kept as notes; a job name found in several files becomes several
    /// passes), or one UnixBench report (its results/HOST-DATE-NN file, its
    /// .html, or the console log of ./Run). fio's client/server output
    /// (client_stats) gives one Run per host: RUN.<host>.json beside --output.
    /// Or one DiskSpd result (its text output or -Rxml) or one
    /// CrystalDiskMark result (File > Save).
    #[arg(value_name = "FIO.json|UNIXBENCH-REPORT|DISKSPD|CRYSTALDISKMARK.txt")]
    pub files: Vec<PathBuf>,
    /// A name for this host or run (reports and comparisons show it); default:
    /// the first file's name without its extension.
    #[arg(long)]
    pub label: Option<String>,
    /// Write the Run here (atomically); a summary goes to standard output.
    /// Without it, the Run's JSON goes to standard output.
    #[arg(long, short, value_name = "RUN.json")]
    pub output: Option<PathBuf>,
    /// Replace RUN.json if it exists (candor never overwrites a file otherwise).
    #[arg(long)]
    pub force: bool,
    #[command(flatten)]
    pub history: crate::session::history::HistoryFlags,
}

pub fn execute(args: Args) -> anyhow::Result<()> {
    if args.files.is_empty() {
        return Err(usage("no fio output files given: candor import FIO.json... [--label NAME] [--output RUN.json]"));
    }
    if let Some(out) = &args.output {
        let db = args.history.inputs();
        let inputs: Vec<&Path> = args.files.iter().chain(&db).map(PathBuf::as_path).collect();
        prepare(out, "--output", Replace::from_force(args.force), &inputs)?;
    }
    // Without --label, the first file's name (reports would otherwise say "unknown host":
    // fio records no host name).
    let label = args.label.clone().or_else(|| {
        args.files[0]
            .file_stem()
            .map(|s| s.to_string_lossy().to_string())
    });
    let first = crate::input::read_text(&args.files[0]).map_err(|e| usage(e.to_string()))?;
    let run = if crate::diskspd::import::is_result(&first) {
        one_file(&args, "a DiskSpd result")?;
        // The computer DiskSpd names, unless --label says otherwise.
        crate::diskspd::import::import(&first, &args.files[0], args.label).map_err(usage)?
    } else if crate::crystaldiskmark::parse::is_result(&first) {
        one_file(&args, "a CrystalDiskMark result")?;
        crate::crystaldiskmark::import::import(&first, &args.files[0], args.label).map_err(usage)?
    } else if crate::compute::unixbench::import::is_report(&first) {
        if args.files.len() > 1 {
            return Err(usage(format!(
                "{} is a UnixBench report: import one report at a time, without fio files",
                args.files[0].display()
            )));
        }
        // The host name the report names, unless --label says otherwise.
        crate::compute::unixbench::import::import(&first, &args.files[0], args.label)
            .map_err(|e| usage(e.to_string()))?
    } else {
        let outputs = crate::fio::parse_files(&args.files).map_err(|e| usage(e.to_string()))?;
        if outputs.iter().any(|o| o.client_server) {
            return write_per_host(&args, &outputs);
        }
        crate::fio::import(&outputs, label).map_err(|e| usage(e.to_string()))?
    };
    // Nothing is written once a stop was asked for.
    crate::cancel::check()?;
    let printed = match &args.output {
        None => write_text(None, &render(&run, Format::Json), false),
        Some(path) => {
            let _lock = crate::result::RunLock::acquire(path)?;
            crate::result::write_run(&run, path, Replace::from_force(args.force))
                .map_err(|e| anyhow::anyhow!("--output: cannot write: {e}"))?;
            write_text(None, &render(&run, Format::Text), false)
        }
    };
    args.history.record(&run, args.output.as_deref(), false);
    printed?;
    // A signal while the history was locked: the add gave up (said above).
    Ok(crate::cancel::check()?)
}

/// A result of a tool that is not fio is imported alone.
fn one_file(args: &Args, what: &str) -> anyhow::Result<()> {
    if args.files.len() > 1 {
        return Err(usage(format!(
            "{} is {what}: import one at a time, without other files",
            args.files[0].display()
        )));
    }
    Ok(())
}

/// fio's client/server output: one Run per server host, each written
/// beside RUN.json as RUN.<host>.json (`candor compare RUN.*.json` then
/// sets the hosts side by side). Every file is checked before any is written.
fn write_per_host(args: &Args, outputs: &[crate::fio::FioOutput]) -> anyhow::Result<()> {
    let path = &outputs[0].path;
    if outputs.len() > 1 {
        return Err(usage(format!(
            "{} is fio client/server output (client_stats): import it alone (one Run per host)",
            path.display()
        )));
    }
    let runs = crate::fio::import_hosts(&outputs[0]).map_err(|e| usage(e.to_string()))?;
    let hosts: Vec<&str> = runs.iter().map(|(h, _)| h.as_str()).collect();
    let Some(out) = &args.output else {
        return Err(usage(format!(
            "{} is fio client/server output from {} host(s) ({}): give --output RUN.json, and candor writes RUN.<host>.json for each",
            path.display(),
            hosts.len(),
            hosts.join(", ")
        )));
    };
    let stem = out
        .file_name()
        .map(|n| n.to_string_lossy().trim_end_matches(".json").to_string())
        .unwrap_or_default();
    let db = args.history.inputs();
    let inputs: Vec<&Path> = args.files.iter().chain(&db).map(PathBuf::as_path).collect();
    let targets: Vec<PathBuf> = runs
        .iter()
        .map(|(host, _)| {
            out.with_file_name(format!(
                "{stem}.{}.json",
                crate::output::file_name_part(host)
            ))
        })
        .collect();
    for (i, t) in targets.iter().enumerate() {
        if targets[..i].contains(t) {
            return Err(usage(format!(
                "two hosts of {} give the same file name {}",
                path.display(),
                t.display()
            )));
        }
        prepare(t, "--output", Replace::from_force(args.force), &inputs)?;
    }
    let mut summary = String::new();
    for ((_, run), target) in runs.iter().zip(&targets) {
        let _lock = crate::result::RunLock::acquire(target)?;
        crate::result::write_run(run, target, Replace::from_force(args.force))
            .map_err(|e| anyhow::anyhow!("--output {}: cannot write: {e}", target.display()))?;
        args.history.record(run, Some(target), false);
        summary.push_str(&format!(
            "{}: {}\n",
            target.display(),
            run.label.as_deref().unwrap_or("")
        ));
    }
    write_text(None, &summary, false)
}
