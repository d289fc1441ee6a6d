//! `candor import`: result files other tools wrote, into Runs (`import`):
//! fio JSON, one UnixBench report, one DiskSpd or CrystalDiskMark result;
//! fio's client/server output into one Run per host.

use crate::import::Imported;
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
    let db = args.history.inputs();
    let inputs: Vec<&Path> = args.files.iter().chain(&db).map(PathBuf::as_path).collect();
    let replace = Replace::from_force(args.force);
    if let (Some(out), false) = (&args.output, args.files.is_empty()) {
        prepare(out, "--output", replace, &inputs)?;
    }
    let (targets, runs) = match crate::import::import(&args.files, args.label.clone())? {
        Imported::One(run) => {
            // Nothing is written once a stop was asked for.
            crate::cancel::check()?;
            return write_one(&args, &run, replace);
        }
        Imported::PerHost { source, runs } => {
            let targets = crate::import::per_host_files(&source, args.output.as_deref(), &runs)?;
            for t in &targets {
                prepare(t, "--output", replace, &inputs)?;
            }
            (targets, runs)
        }
    };
    crate::cancel::check()?;
    let mut summary = String::new();
    for ((_, run), target) in runs.iter().zip(&targets) {
        let _lock = crate::result::RunLock::acquire(target)?;
        crate::result::write_run(run, target, replace)
            .map_err(|e| anyhow::anyhow!("--output {}: cannot write: {e}", target.display()))?;
        args.history.record(run, Some(target), false);
        let label = run.label.as_deref().unwrap_or("");
        summary.push_str(&format!("{}: {label}\n", target.display()));
    }
    write_text(None, &summary, false)
}

/// One Run: to --output with a summary on stdout, or its JSON on stdout;
/// then into the history.
fn write_one(args: &Args, run: &crate::result::Run, replace: Replace) -> anyhow::Result<()> {
    let printed = match &args.output {
        None => write_text(None, &render(run, Format::Json), false),
        Some(path) => {
            let _lock = crate::result::RunLock::acquire(path)?;
            crate::result::write_run(run, path, replace)
                .map_err(|e| anyhow::anyhow!("--output: cannot write: {e}"))?;
            write_text(None, &render(run, Format::Text), false)
        }
    };
    args.history.record(run, args.output.as_deref(), false);
    printed?;
    // A signal while the history was locked: the add gave up (said above).
    Ok(crate::cancel::check()?)
}
