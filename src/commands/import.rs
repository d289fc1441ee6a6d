//! `candor import`: fio JSON output (`--output-format=json` or `json+`), or
//! one UnixBench text report (`results/HOST-DATE-NN`), into a Run.

use crate::error::usage;
use crate::output::{prepare, write_text, Replace};
use crate::report::{render, Format};
use std::path::{Path, PathBuf};

/// Flags of `candor import`.
#[derive(Debug, clap::Args)]
pub struct Args {
    /// fio output files (json or json+; lines fio printed before the JSON are
    /// kept as notes; a job name found in several files becomes several
    /// passes), or one UnixBench text report (its results/HOST-DATE-NN file).
    #[arg(value_name = "FIO.json|UNIXBENCH-REPORT")]
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
    let run = if crate::compute::unixbench::import::is_report(&first) {
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
        crate::fio::import_files(&args.files, label).map_err(|e| usage(e.to_string()))?
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
