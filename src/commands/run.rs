//! `candor run`: the whole battery on this host. Parses the flags into a
//! plan (battery::plan), reads the host facts (host), runs the plan
//! (battery::runner) into a Run file, then prints the summary.
//!
//! Flags are taken as text and parsed here so that every bad value is one
//! line naming the flag, with exit code 2.

use crate::battery::plan::{Environment, Overrides};
use crate::battery::runner::{self, Outcome};
use crate::battery::{groups, BatteryPlan, ControlRequest, Preset};
use crate::disk::TestDir;
use crate::error::usage;
use crate::report::Format;
use crate::result::{Run, RunStatus};
use crate::session::history::HistoryFlags;
use crate::session::recorder::Recorder;
use crate::session::{self, Session};
use crate::units::{parse_duration, parse_size};
use anyhow::Context;
use std::path::{Path, PathBuf};
use std::time::Duration;

/// Flags of `candor run`.
#[derive(Debug, Default, clap::Args)]
pub struct Args {
    /// quick (about 2 minutes, 1 pass, no control file), standard (default:
    /// 3 passes, control file), full (3 passes of 30 s per test, 20 s
    /// pauses), or CrystalDiskMark's peak, realworld, nvme selections.
    #[arg(long, value_name = "NAME")]
    pub preset: Option<String>,
    /// The test directory (default /var/tmp; tmpfs is refused).
    #[arg(long, value_name = "DIR")]
    pub dir: Option<PathBuf>,
    /// Passes of the whole battery, run as rounds.
    #[arg(long, value_name = "N")]
    pub passes: Option<String>,
    /// Measured time of each disk test (e.g. 30s).
    #[arg(long, value_name = "DUR")]
    pub runtime: Option<String>,
    /// Longest warm-up before each disk test's measured interval, not
    /// counted; it ends earlier once the throughput has settled.
    #[arg(long, value_name = "DUR")]
    pub ramp: Option<String>,
    /// Rest after a write: no disk test starts until this long after the
    /// last test that wrote or the last file layout ended (lets write-back
    /// settle); compute groups run in the rest.
    #[arg(long, value_name = "DUR")]
    pub pause: Option<String>,
    /// Size of the main test file (e.g. 1G).
    #[arg(long, value_name = "SIZE")]
    pub size: Option<String>,
    /// The control file for the host-cache check: auto (at least 2x RAM,
    /// bounded by free space), a size, or off.
    #[arg(long, value_name = "auto|SIZE|off")]
    pub control_size: Option<String>,
    /// Measured time of each compute test (and of each UnixBench pass, when given).
    #[arg(long, value_name = "DUR")]
    pub compute_runtime: Option<String>,
    /// Run only these groups: disk, control, cpu, memory, crypto, compress,
    /// os, unixbench (UnixBench's index: in the full preset only, about 22
    /// minutes per copy count with UnixBench's pass lengths; --compute-runtime
    /// sets its passes' length instead).
    #[arg(long, value_name = "GROUPS")]
    pub only: Option<String>,
    /// Leave these groups out.
    #[arg(long, value_name = "GROUPS")]
    pub skip: Option<String>,
    /// A name for this host in reports (default: the hostname).
    #[arg(long, value_name = "NAME")]
    pub label: Option<String>,
    /// The Run file (default candor-<hostname>-<UTC time>.json here).
    #[arg(long, short, value_name = "FILE")]
    pub output: Option<PathBuf>,
    /// The summary printed at the end: text (default), md, csv, json (the Run) or html.
    #[arg(long, value_enum, default_value = "text")]
    pub format: Format,
    #[command(flatten)]
    pub verbose: super::flags::VerboseFlag,
    /// Replace the Run file if it exists (candor never overwrites a file otherwise).
    #[arg(long)]
    pub force: bool,
    /// Carry on with an interrupted Run file (its plan; finished measurements are kept).
    #[arg(long, value_name = "FILE")]
    pub resume: Option<PathBuf>,
    /// No progress on stderr.
    #[arg(long, short)]
    pub quiet: bool,
    #[command(flatten)]
    pub history: crate::session::history::HistoryFlags,
    /// Started by `candor fleet` over ssh (no terminal): progress lines on
    /// stderr all the same, the process id announced first (the controller
    /// removes a killed run's test files by it), and the run stopped as by
    /// SIGHUP when standard input closes (the controller or its connection
    /// is gone).
    #[arg(long, hide = true)]
    pub fleet_agent: bool,
}

/// The preset and the overrides the flags ask for.
pub fn parse_flags(args: &Args) -> anyhow::Result<(Preset, Overrides)> {
    let preset = match &args.preset {
        None => Preset::Standard,
        Some(p) => Preset::parse(p).ok_or_else(|| {
            usage(format!(
                "--preset: unknown preset '{p}' ({})",
                Preset::NAMES
            ))
        })?,
    };
    let duration = |flag: &str, v: &Option<String>| -> anyhow::Result<Option<Duration>> {
        v.as_deref()
            .map(|t| parse_duration(t).map_err(|e| usage(format!("{flag}: {e}"))))
            .transpose()
    };
    let passes = args
        .passes
        .as_deref()
        .map(|t| {
            t.trim()
                .parse::<u32>()
                .map_err(|_| usage(format!("--passes: '{t}' is not a whole number")))
        })
        .transpose()?;
    let size = args
        .size
        .as_deref()
        .map(|t| parse_size(t).map_err(|e| usage(format!("--size: {e}"))))
        .transpose()?;
    let control = args
        .control_size
        .as_deref()
        .map(|t| match t.trim().to_ascii_lowercase().as_str() {
            "auto" => Ok(ControlRequest::Auto),
            "off" | "none" | "0" => Ok(ControlRequest::Off),
            _ => parse_size(t)
                .map(ControlRequest::Size)
                .map_err(|e| usage(format!("--control-size: {e}, or auto, or off"))),
        })
        .transpose()?;
    let only = args
        .only
        .as_deref()
        .map(|t| groups::parse_list("--only", t).map_err(usage))
        .transpose()?;
    let skip = args
        .skip
        .as_deref()
        .map(|t| groups::parse_list("--skip", t).map_err(usage))
        .transpose()?
        .unwrap_or_default();
    Ok((
        preset,
        Overrides {
            passes,
            runtime: duration("--runtime", &args.runtime)?,
            ramp: duration("--ramp", &args.ramp)?,
            pause: duration("--pause", &args.pause)?,
            size,
            control,
            compute_runtime: duration("--compute-runtime", &args.compute_runtime)?,
            only,
            skip,
        },
    ))
}

pub fn execute(args: Args) -> anyhow::Result<()> {
    if args.fleet_agent {
        eprintln!("{}{}", crate::fleet::AGENT_PID_PREFIX, std::process::id());
        crate::cancel::stop_when_stdin_closes();
    }
    // A fleet's hosts keep no history: the controller adds the Runs it fetches.
    let history = (!args.fleet_agent).then_some(&args.history);
    // The recorder holds the Run's lock: no other candor writes it until we return.
    let (plan, session, test_dir) = match &args.resume {
        Some(file) => resume(&args, file, history)?,
        None => start(&args, history)?,
    };
    let mut session = session.quiet(args.quiet);
    let mut backend =
        crate::battery::engines::Engines::new(test_dir).continuing(session.recorder().run());
    let mut progress = if args.fleet_agent {
        crate::battery::progress::BatteryProgress::new(!args.quiet)
    } else {
        crate::battery::progress::BatteryProgress::for_terminal(args.quiet)
    };
    let outcome = runner::execute(&plan, session.recorder(), &mut backend, &mut progress)?;
    drop(backend);
    let recorder = session.recorder();
    let output = recorder.output().map(Path::to_path_buf).unwrap_or_default();
    if !args.quiet {
        eprintln!(
            "candor: Run saved to {} ({})",
            output.display(),
            recorder.run().status.as_str()
        );
    }
    match outcome {
        Outcome::Complete => session.print_and_record(|run| {
            crate::report::render_with(run, args.format, &args.verbose.options())
        }),
        Outcome::Interrupted(i) => {
            if !args.quiet {
                eprintln!(
                    "candor: carry on with: candor run --resume {}",
                    output.display()
                );
            }
            Err(i.into())
        }
        Outcome::Failed(e) => Err(e),
    }
}

/// A new battery: flags, host facts, plan, a new Run file.
fn start(
    args: &Args,
    history: Option<&HistoryFlags>,
) -> anyhow::Result<(BatteryPlan, Session, TestDir)> {
    let (preset, flags) = parse_flags(args)?;
    let test_dir = TestDir::open(&session::test_dir_or_default(args.dir.as_deref()))?;
    let host = crate::host::collect(Some(test_dir.path()));
    let env = Environment {
        dir: test_dir.path().display().to_string(),
        ram_bytes: host.mem_total_bytes,
        free_bytes: Some(test_dir.free_bytes()),
        margin_bytes: crate::disk::space_margin(test_dir.total_bytes()),
        unavailable: Vec::new(),
        seed: crate::seed::fresh(),
    };
    let plan = BatteryPlan::build(preset, &flags, &env).map_err(usage)?;
    crate::battery::plan::check(&plan, crate::host::memory::available_bytes())?;
    let output = match &args.output {
        Some(o) => o.clone(),
        None => PathBuf::from(default_output_name(
            host.hostname.as_deref(),
            &crate::units::now_rfc3339(),
        )),
    };

    let mut run = Run::of_this_process();
    run.label = args.label.clone();
    run.host = host;
    run.tool.libraries = crate::compute::library_versions();
    run.plan = Some(serde_json::to_value(&plan)?);
    run.notes.extend(test_dir.notes().cloned());
    if let Some(note) = &plan.control.note {
        run.notes.push(format!("control file: {note}"));
    }
    for skipped in &plan.groups_skipped {
        run.notes.push(format!(
            "skipped {}: {}",
            skipped.group.as_str(),
            skipped.reason
        ));
    }
    // The history database is an input, whether or not this Run goes there.
    let session = Session::start_at(
        run,
        Some(&output),
        args.force,
        history,
        &args.history.inputs(),
    )?;
    // Said once this candor is sure to run (another may hold the Run).
    session::warn_about(&test_dir);
    Ok((plan, session, test_dir))
}

/// An interrupted battery: its Run, its plan, the same file.
fn resume(
    args: &Args,
    file: &Path,
    history: Option<&HistoryFlags>,
) -> anyhow::Result<(BatteryPlan, Session, TestDir)> {
    let given: Vec<&str> = [
        ("--preset", args.preset.is_some()),
        ("--dir", args.dir.is_some()),
        ("--passes", args.passes.is_some()),
        ("--runtime", args.runtime.is_some()),
        ("--ramp", args.ramp.is_some()),
        ("--pause", args.pause.is_some()),
        ("--size", args.size.is_some()),
        ("--control-size", args.control_size.is_some()),
        ("--compute-runtime", args.compute_runtime.is_some()),
        ("--only", args.only.is_some()),
        ("--skip", args.skip.is_some()),
        ("--label", args.label.is_some()),
        ("--output", args.output.is_some()),
        ("--force", args.force),
    ]
    .iter()
    .filter(|(_, g)| *g)
    .map(|(f, _)| *f)
    .collect();
    if !given.is_empty() {
        return Err(usage(format!(
            "--resume carries on with the plan stored in {}; {} cannot change it",
            file.display(),
            given.join(", ")
        )));
    }
    let mut recorder = Recorder::resume(file)?;
    let run = recorder.run_mut();
    if run.status == RunStatus::Complete {
        return Err(usage(format!(
            "--resume {}: this Run is already complete",
            file.display()
        )));
    }
    let plan: BatteryPlan = run
        .plan
        .clone()
        .and_then(|p| serde_json::from_value(p).ok())
        .ok_or_else(|| {
            usage(format!(
                "--resume {}: no battery plan in this Run (it was not made by candor run)",
                file.display()
            ))
        })?;
    // The stored plan passes the same checks as a new one, before anything runs.
    crate::battery::plan::check(&plan, crate::host::memory::available_bytes())?;
    run.notes.push(format!(
        "resumed at {} with {} of {} steps done",
        crate::units::now_rfc3339(),
        plan.steps().len() - runner::steps_left(&plan, run),
        plan.steps().len()
    ));
    let here = crate::host::uname::hostname().unwrap_or_default();
    if let Some(there) = run.host.hostname.as_deref().filter(|h| *h != here) {
        return Err(usage(format!(
            "--resume {}: this Run was made on host '{there}', this is '{here}': one Run holds one host",
            file.display()
        )));
    }
    // Opening the directory removes the test files the interrupted run left.
    let test_dir = TestDir::open(Path::new(&plan.dir))
        .with_context(|| format!("--resume {}: the Run's test directory", file.display()))?;
    session::warn_about(&test_dir);
    recorder.run_mut().notes.extend(test_dir.notes().cloned());
    Ok((plan, Session::of(recorder, history), test_dir))
}

/// `candor-<hostname>-<20261130T064950Z>.json`, with the hostname made safe for a file name.
pub fn default_output_name(hostname: Option<&str>, rfc3339: &str) -> String {
    let host = crate::output::file_name_part(hostname.unwrap_or("host"));
    let stamp: String = rfc3339.chars().filter(|c| *c != '-' && *c != ':').collect();
    format!("candor-{host}-{stamp}.json")
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::battery::BatteryGroup;

    fn args() -> Args {
        Args::default()
    }

    #[test]
    fn flags_parse_into_overrides() {
        let a = Args {
            preset: Some("full".into()),
            passes: Some("5".into()),
            runtime: Some("2s".into()),
            size: Some("256M".into()),
            control_size: Some("off".into()),
            only: Some("disk,cpu".into()),
            ..args()
        };
        let (preset, o) = parse_flags(&a).unwrap();
        assert_eq!(preset, Preset::Full);
        assert_eq!(o.passes, Some(5));
        assert_eq!(o.runtime, Some(Duration::from_secs(2)));
        assert_eq!(o.size, Some(256 << 20));
        assert_eq!(o.control, Some(ControlRequest::Off));
        assert_eq!(o.only, Some(vec![BatteryGroup::Disk, BatteryGroup::Cpu]));
        let (preset, o) = parse_flags(&args()).unwrap();
        assert_eq!(preset, Preset::Standard);
        assert!(o.passes.is_none() && o.only.is_none());
    }

    #[test]
    fn bad_flags_are_usage_errors_naming_the_flag() {
        let cases: Vec<(Args, &str)> = vec![
            (
                Args {
                    preset: Some("fast".into()),
                    ..args()
                },
                "--preset: unknown preset 'fast'",
            ),
            (
                Args {
                    passes: Some("three".into()),
                    ..args()
                },
                "--passes: 'three'",
            ),
            (
                Args {
                    runtime: Some("soon".into()),
                    ..args()
                },
                "--runtime: 'soon' is not a duration",
            ),
            (
                Args {
                    size: Some("big".into()),
                    ..args()
                },
                "--size: 'big' is not a size",
            ),
            (
                Args {
                    control_size: Some("huge".into()),
                    ..args()
                },
                "--control-size: 'huge'",
            ),
            (
                Args {
                    skip: Some("gpu".into()),
                    ..args()
                },
                "--skip: unknown group 'gpu'",
            ),
        ];
        for (a, expected) in cases {
            let e = parse_flags(&a).unwrap_err();
            assert!(crate::error::is_usage(&e));
            assert!(e.to_string().starts_with(expected), "{e}");
            assert!(!e.to_string().contains('\n'));
        }
    }

    #[test]
    fn output_names() {
        assert_eq!(
            default_output_name(Some("web 1/a"), "2026-11-30T06:49:50Z"),
            "candor-web_1_a-20261130T064950Z.json"
        );
        assert_eq!(
            default_output_name(None, "2026-01-02T03:04:05Z"),
            "candor-host-20260102T030405Z.json"
        );
    }
}
