//! `candor disk`: one job in fio's vocabulary, on a fresh test file, or a
//! fio job file's jobs, or a DiskSpd line's (`commands/jobfile.rs`).

mod job;
mod target_flags;

pub use job::JobFlags;
pub use target_flags::TargetFlags;

use crate::error::usage;
use crate::report::Format;
use crate::session::{self, Session};

/// Flags of `candor disk`. Sizes take 4k, 1M, 1G; durations 500ms, 30s, 2m.
#[derive(Debug, clap::Args)]
pub struct Args {
    #[command(flatten)]
    pub target: TargetFlags,
    #[command(flatten)]
    pub spec: JobFlags,
    /// Output on stdout: text (default), md, csv, json (the Run) or html.
    #[arg(long, value_enum, default_value = "text")]
    pub format: Format,
    #[command(flatten)]
    pub verbose: super::flags::VerboseFlag,
    #[command(flatten)]
    pub out: crate::session::OutputFlags,
    /// A name for this host in reports.
    #[arg(long)]
    pub label: Option<String>,
    #[command(flatten)]
    pub history: crate::session::history::HistoryFlags,
}

pub fn execute(args: Args) -> anyhow::Result<()> {
    if let Some(path) = args.target.job.clone() {
        return super::jobfile::execute(&args, &path);
    }
    // clap's `requires = "job"` is not checked when a flag that conflicts
    // with --job is given (--size, --runtime): `disk --device /dev/vda
    // --size 16m` measured a test file, exit 0, as if the device had been.
    let only_with_job = [
        ("--device", !args.target.device.is_empty()),
        (
            "--overwrite-device",
            !args.target.overwrite_device.is_empty(),
        ),
        ("--section", !args.target.section.is_empty()),
        ("--ignore-unsupported", args.target.ignore_unsupported),
    ];
    if let Some((flag, _)) = only_with_job.iter().find(|(_, given)| *given) {
        return Err(usage(format!(
            "{flag} is for --job (a job file whose filename= names the device); without one, candor measures a test file in --dir"
        )));
    }
    if let Some(line) = args.target.diskspd.clone() {
        return super::jobfile::execute_diskspd(&args, &line);
    }
    if args.target.parse_only {
        return Err(usage(
            "--parse-only shows the jobs of --job or --diskspd; give one",
        ));
    }
    let job = args.spec.lower()?;
    let dir = session::test_dir_or_default(args.target.dir.as_deref());
    let plan = crate::plan::single::plan(job, &dir)?;
    let mut run = session::new_run(args.label.clone(), Some(&dir));
    for d in &plan.dirs {
        run.notes.extend(d.dir.notes().cloned());
    }
    let mut session = Session::start(run, &args.out, Some(&args.history), &[])?;
    plan.dirs.iter().for_each(|d| session::warn_about(&d.dir));
    session.measure(|recorder| crate::measure::measure(&plan, recorder))?;
    session.finish(|run| crate::report::render_with(run, args.format, &args.verbose.options()))
}
