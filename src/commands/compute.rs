//! What the five compute subcommands (`candor cpu|memory|crypto|compress|os`)
//! share: their flags, checking them (one-line errors, exit 2), and one
//! call that measures the group into a Run (`measure::compute`); printing
//! is `report`'s.

use crate::compute::{ComputeOptions, Group, Threads};
use crate::report::Format;
use crate::result::ComputeMeasurement;
use crate::units::parse_duration;
use std::time::Duration;

/// Flags every compute subcommand takes.
#[derive(Debug, Clone, clap::Args)]
pub struct ComputeArgs {
    /// Threads: a number, or `all` (every CPU candor may run on). Default: 1
    /// thread, then all threads, as separate measurements.
    #[arg(long, value_name = "N|all")]
    pub threads: Option<String>,
    /// Measured time per test and thread count (500ms, 5s, 1m). Default: 5s
    /// for `cpu`, 3s for the other groups.
    #[arg(long, value_name = "DUR")]
    pub runtime: Option<String>,
    /// What to print on stdout: `text` (a table per test), `json` (the Run),
    /// or a report: `md`, `csv`, `html`.
    #[arg(long, value_enum, default_value = "text")]
    pub format: Format,
    #[command(flatten)]
    pub out: crate::session::OutputFlags,
}

/// Parses `--threads`: a positive number or `all`.
pub fn parse_threads(text: &str) -> anyhow::Result<Threads> {
    let t = text.trim();
    if t.eq_ignore_ascii_case("all") {
        return Ok(Threads::N(crate::compute::online_cpus()));
    }
    match t.parse::<u32>() {
        Ok(0) => Err(crate::error::usage(
            "--threads must be at least 1 (or 'all')",
        )),
        Ok(1) => Ok(Threads::One),
        Ok(n) if n <= 4096 => Ok(Threads::N(n)),
        Ok(n) => Err(crate::error::usage(format!(
            "--threads {n} is more than 4096"
        ))),
        Err(_) => Err(crate::error::usage(format!(
            "--threads '{text}' is not a number or 'all'"
        ))),
    }
}

/// Parses `--runtime`: a duration from 1 ms to 1 hour.
pub fn parse_runtime(text: &str) -> anyhow::Result<Duration> {
    let d = parse_duration(text).map_err(|e| crate::error::usage(format!("--runtime: {e}")))?;
    if d < Duration::from_millis(1) {
        return Err(crate::error::usage(format!(
            "--runtime '{text}' is shorter than 1ms"
        )));
    }
    if d > Duration::from_secs(3600) {
        return Err(crate::error::usage(format!(
            "--runtime '{text}' is longer than 1h"
        )));
    }
    Ok(d)
}

/// Runs one compute subcommand.
pub fn execute(group: Group, args: ComputeArgs) -> anyhow::Result<()> {
    execute_with(group, args, &|options| group.run(options))
}

/// Runs one compute subcommand with `run_group` in place of the group's
/// default (for flags only one subcommand has, such as `memory --stream-size`).
pub fn execute_with(
    group: Group,
    args: ComputeArgs,
    run_group: &dyn Fn(&ComputeOptions) -> anyhow::Result<Vec<ComputeMeasurement>>,
) -> anyhow::Result<()> {
    let threads = match &args.threads {
        Some(t) => parse_threads(t)?,
        None => Threads::All,
    };
    let runtime = match &args.runtime {
        Some(r) => parse_runtime(r)?,
        None => group.default_runtime(),
    };
    let options = ComputeOptions { threads, runtime };
    let announce =
        args.format == Format::Text && std::io::IsTerminal::is_terminal(&std::io::stderr());
    let session = crate::measure::compute::group(group, &options, &args.out, announce, run_group)?;
    session.finish(|run| match args.format {
        Format::Text => crate::report::compute_text(run),
        other => crate::report::render(run, other),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn threads_flag() {
        assert_eq!(parse_threads("1").unwrap(), Threads::One);
        assert_eq!(parse_threads("4").unwrap(), Threads::N(4));
        assert_eq!(
            parse_threads("ALL").unwrap(),
            Threads::N(crate::compute::online_cpus())
        );
        for bad in ["0", "-1", "two", "", "99999"] {
            let e = parse_threads(bad).unwrap_err();
            assert!(crate::error::is_usage(&e), "{bad}");
        }
    }

    #[test]
    fn runtime_flag() {
        assert_eq!(parse_runtime("500ms").unwrap(), Duration::from_millis(500));
        for bad in ["0", "0s", "fast", "2h", "-1s"] {
            let e = parse_runtime(bad).unwrap_err();
            assert!(crate::error::is_usage(&e), "{bad}");
        }
    }
}
