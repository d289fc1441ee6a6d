//! `candor sweep`: random reads and writes over block sizes and queue
//! depths, plus sequential 1 MiB reads at QD1 and QD8, then the `caps`
//! finding: the IOPS and bandwidth limits the points reveal, each called a
//! cap, a ceiling (limiter or medium, not told apart) or nothing.
//!
//! The plan and its matrix are `plan::sweep`'s, the running
//! `measure`'s, the inference the findings'.

use crate::error::usage;
use crate::plan::sweep::{plan_json, SweepRequest};
use crate::report::Format;
use crate::session::{self, Session};
use crate::units::{parse_duration, parse_size};
use std::path::PathBuf;

/// Flags of `candor sweep`.
#[derive(Debug, clap::Args)]
pub struct Args {
    /// Directory for the test file (tmpfs and ramfs are refused).
    #[arg(long, default_value = crate::session::DEFAULT_TEST_DIR)]
    pub dir: PathBuf,
    /// Measured time per point (e.g. 2s, 500ms). Limiters enforce their
    /// rate over windows: under a cgroup write throttle single seconds came
    /// out 8 % apart (138-162 MB/s under 150), so points are 2 s; the whole
    /// sweep stays under two minutes.
    #[arg(long, default_value = "2s")]
    pub runtime: String,
    /// Warm-up before each point, not counted.
    #[arg(long, default_value = "500ms")]
    pub ramp: String,
    /// Size of the test file (e.g. 256M, 1G).
    #[arg(long, default_value = "256M")]
    pub size: String,
    #[command(flatten)]
    pub out: crate::session::OutputFlags,
    /// Output on stdout: text (the points, the caps and the findings), or a
    /// report: md, csv, json (the Run), html.
    #[arg(long, value_enum, default_value = "text")]
    pub format: Format,
    /// Random seed for offsets and payloads (default: from the clock).
    #[arg(long)]
    pub seed: Option<u64>,
    #[command(flatten)]
    pub history: crate::session::history::HistoryFlags,
}

pub fn execute(args: Args) -> anyhow::Result<()> {
    let request = SweepRequest {
        runtime: parse_duration(&args.runtime).map_err(|e| usage(format!("--runtime: {e}")))?,
        ramp: parse_duration(&args.ramp).map_err(|e| usage(format!("--ramp: {e}")))?,
        size: parse_size(&args.size).map_err(|e| usage(format!("--size: {e}")))?,
        size_text: args.size.clone(),
        seed: args.seed.unwrap_or_else(crate::seed::fresh),
    };
    let plan = crate::plan::sweep::plan(
        &request,
        crate::compute::online_cpus(),
        crate::host::memory::available_bytes(),
        &args.dir,
    )?;
    let dir = &plan.dirs[0].dir;
    let mut run = session::new_run(None, Some(dir.path()));
    run.plan = Some(plan_json(&plan));
    run.notes.extend(dir.notes().cloned());
    let mut session = Session::start(run, &args.out, Some(&args.history), &[])?;
    session::warn_about(dir);
    session.measure(|recorder| crate::measure::measure(&plan, recorder))?;
    session.finish(|run| match args.format {
        Format::Text => crate::report::sweep_text(run),
        other => crate::report::render(run, other),
    })
}
