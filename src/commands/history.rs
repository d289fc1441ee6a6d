//! `candor history`: add Run files, list hosts and Runs, show a host's
//! latest figures against its usual range, follow one figure over time,
//! export every figure, render the whole history as one HTML page, and get
//! a stored Run back byte for byte. The store is `history::History`; the
//! layouts are `report::history`.

use crate::error::usage;
use crate::history::export::each_figure;
use crate::history::figures::Metric;
use crate::history::query::{self, Filter, HostRow};
use crate::history::schema::Open;
use crate::history::{self, History};
use crate::output::{prepare, Replace};
use crate::report::history::{self as layout, HostView, TrendView};
use crate::report::HostSection;
use crate::report::{ExportFormat, FigureWriter, Format};
use std::path::{Path, PathBuf};

/// Flags of `candor history`.
#[derive(Debug, clap::Args)]
pub struct Args {
    /// The history database (default: $XDG_DATA_HOME/candor/history.db,
    /// else ~/.local/share/candor/history.db).
    #[arg(long, value_name = "PATH", global = true)]
    pub db: Option<PathBuf>,
    #[command(subcommand)]
    pub command: Sub,
}

#[derive(Debug, clap::Subcommand)]
pub enum Sub {
    /// Add Run files (made by candor run, disk, sweep, import or by hand).
    ///
    /// Every file is checked first: one that is not a Run adds nothing. A Run
    /// already stored (the same content, whatever its findings or layout) is skipped.
    Add(AddArgs),
    /// List the hosts and their Runs.
    List(ListArgs),
    /// A host's latest key figures beside the median and range of its earlier Runs.
    Show(ShowArgs),
    /// One figure of a host over time: a sparkline and a table, or an SVG chart.
    Trend(TrendArgs),
    /// Every figure, one row each, with its host, time and workload key.
    Export(ExportArgs),
    /// The whole history as one self-contained HTML page: hosts, trends, latest findings.
    Report(ReportArgs),
    /// Print a stored Run's JSON exactly as it was added.
    Get(GetArgs),
}

#[derive(Debug, clap::Args)]
pub struct AddArgs {
    /// Run files.
    #[arg(required = true, value_name = "RUN.json")]
    pub files: Vec<PathBuf>,
    /// File the Runs under this host instead of their label or hostname.
    #[arg(long, value_name = "NAME")]
    pub host: Option<String>,
    /// Only the summary line: no drift lines.
    #[arg(long, short)]
    pub quiet: bool,
}

/// Which Runs (list, export).
#[derive(Debug, Clone, clap::Args)]
pub struct FilterArgs {
    /// Only this host (its name in the history, or its hostname).
    #[arg(long, value_name = "HOST")]
    pub host: Option<String>,
    /// Only Runs with this label.
    #[arg(long, value_name = "LABEL")]
    pub label: Option<String>,
    /// Only Runs that started on or after this day (2026-01-31) or time (RFC 3339).
    #[arg(long, value_name = "DATE")]
    pub since: Option<String>,
    /// Only Runs that started on or before this day (2026-12-31, the whole day) or time.
    #[arg(long, value_name = "DATE")]
    pub until: Option<String>,
}

#[derive(Debug, clap::Args)]
pub struct ListArgs {
    #[command(flatten)]
    pub filter: FilterArgs,
    /// Only the most recent N Runs.
    #[arg(long, value_name = "N")]
    pub limit: Option<usize>,
    /// Output: text (tables) or json (raw values).
    #[arg(long, value_parser = Format::only(&[Format::Text, Format::Json]), default_value = "text")]
    pub format: Format,
}

#[derive(Debug, clap::Args)]
pub struct ShowArgs {
    /// The host: its name in the history (label, else hostname), its hostname, or a unique part.
    pub host: String,
    /// Output: text (a table) or json (raw values).
    #[arg(long, value_parser = Format::only(&[Format::Text, Format::Json]), default_value = "text")]
    pub format: Format,
}

/// Formats of a trend (an SVG chart is its own format here).
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum TrendFormat {
    /// A sparkline and one row per Run.
    Text,
    Json,
    Csv,
    /// The chart alone, an SVG document.
    Svg,
    /// The chart and the table on one self-contained page.
    Html,
}

#[derive(Debug, clap::Args)]
pub struct TrendArgs {
    /// The host.
    pub host: String,
    /// The test: a name as reports print it ("RND4K Q32T1 read", "FSYNC4K
    /// write", "cpu primes 1T"), its workload key, or a unique part of a name.
    #[arg(long, value_name = "TEST")]
    pub test: String,
    /// The figure: iops, bytes_per_sec (mbps), lat_p50_ns (p50), lat_p99_ns
    /// (p99), lat_p99_9_ns, lat_mean_ns, events_per_sec, ops_per_sec.
    /// Default: the test's headline (MB/s from 64 KiB blocks, IOPS below).
    #[arg(long, value_name = "METRIC")]
    pub metric: Option<String>,
    /// Only the most recent N Runs.
    #[arg(long, value_name = "N")]
    pub last: Option<usize>,
    /// Output format.
    #[arg(long, value_enum, default_value = "text")]
    pub format: TrendFormat,
    #[command(flatten)]
    pub to: super::flags::PrintTo,
}

#[derive(Debug, clap::Args)]
pub struct ExportArgs {
    /// csv (a header, then one line per figure) or ndjson (one JSON object per line).
    #[arg(long, value_enum, default_value = "csv")]
    pub format: ExportFormat,
    #[command(flatten)]
    pub filter: FilterArgs,
    #[command(flatten)]
    pub to: super::flags::PrintTo,
}

#[derive(Debug, clap::Args)]
pub struct ReportArgs {
    /// html: one self-contained page (inline CSS and SVG, no scripts).
    #[arg(long, value_parser = Format::only(&[Format::Html]), default_value = "html")]
    pub format: Format,
    /// Only this host.
    #[arg(long, value_name = "HOST")]
    pub host: Option<String>,
    #[command(flatten)]
    pub to: super::flags::PrintTo,
}

#[derive(Debug, clap::Args)]
pub struct GetArgs {
    /// The Run's hash, or its first 6 or more hex digits (history list shows 12).
    pub run: String,
    #[command(flatten)]
    pub to: super::flags::PrintTo,
}

/// The database: `--db`, else the default path.
pub fn database(db: &Option<PathBuf>) -> anyhow::Result<PathBuf> {
    db.clone().or_else(history::default_path).ok_or_else(|| {
        usage("neither XDG_DATA_HOME nor HOME is set: choose the database with --db PATH")
    })
}

pub fn execute(args: Args) -> anyhow::Result<()> {
    let db = database(&args.db)?;
    match args.command {
        Sub::Add(a) => add(&db, a),
        Sub::List(a) => list(&db, a),
        Sub::Show(a) => show(&db, a),
        Sub::Trend(a) => trend(&db, a),
        Sub::Export(a) => export_cmd(&db, a),
        Sub::Report(a) => report(&db, a),
        Sub::Get(a) => get(&db, a),
    }
}

fn add(db: &Path, a: AddArgs) -> anyhow::Result<()> {
    let host = a.host.as_deref().map(str::trim).filter(|h| !h.is_empty());
    if a.host.is_some() && host.is_none() {
        return Err(usage("--host: give a name"));
    }
    let added = history::batch::add_files(db, &a.files, host, !a.quiet)?;
    crate::output::write_text(None, &layout::added_text(db, &added), false)
}

/// A day (`2026-01-31`, midnight UTC; with `end`, the next midnight) or an RFC 3339 time.
fn parse_when(flag: &str, text: &str, end: bool) -> anyhow::Result<i64> {
    let t = text.trim();
    let day = if t.len() == 10 {
        crate::units::parse_rfc3339(&format!("{t}T00:00:00Z"))
    } else {
        None
    };
    match (day, crate::units::parse_rfc3339(t)) {
        (Some(d), _) => Ok(if end { d + 86400 } else { d }),
        (None, Some(s)) => Ok(if end { s + 1 } else { s }),
        (None, None) => Err(usage(format!(
            "{flag} '{text}': give a day (2026-01-31) or a time (2026-01-31T12:00:00Z)"
        ))),
    }
}

impl FilterArgs {
    fn filter(&self) -> anyhow::Result<Filter> {
        Ok(Filter {
            host: self.host.clone(),
            label: self.label.clone(),
            since: self
                .since
                .as_deref()
                .map(|s| parse_when("--since", s, false))
                .transpose()?,
            until: self
                .until
                .as_deref()
                .map(|s| parse_when("--until", s, true))
                .transpose()?,
            host_id: None,
        })
    }
}

fn list(db: &Path, a: ListArgs) -> anyhow::Result<()> {
    let filter = a.filter.filter()?;
    let store = History::open(db, Open::Existing)?;
    let e = |x| store.error(x);
    let hosts = query::hosts(store.conn(), &filter).map_err(e)?;
    let runs = query::runs(store.conn(), &filter, a.limit).map_err(e)?;
    let text = match a.format {
        Format::Json => layout::list_json(db, &hosts, &runs),
        _ => layout::list_text(db, &hosts, &runs),
    };
    crate::output::write_text(None, &text, false)
}

/// Everything `show` and the report need about one host.
struct HostData {
    host: HostRow,
    standings: Vec<query::Standing>,
    latest: Option<query::RunRow>,
    findings: Vec<query::FindingRow>,
}

fn host_data(store: &History, host: HostRow) -> anyhow::Result<HostData> {
    let e = |x| store.error(x);
    let standings = query::standings(store.conn(), &host).map_err(e)?;
    let latest = query::latest_run(store.conn(), &host).map_err(e)?;
    let findings = match &latest {
        Some(r) => query::stored_findings(store.conn(), &r.run).map_err(e)?,
        None => Vec::new(),
    };
    Ok(HostData {
        host,
        standings,
        latest,
        findings,
    })
}

impl HostData {
    fn view(&self) -> HostView<'_> {
        HostView {
            host: &self.host,
            standings: &self.standings,
            latest: self.latest.as_ref(),
            findings: &self.findings,
        }
    }
}

fn show(db: &Path, a: ShowArgs) -> anyhow::Result<()> {
    let store = History::open(db, Open::Existing)?;
    let host = query::find_host(store.conn(), &a.host)?;
    let data = host_data(&store, host)?;
    let text = match a.format {
        Format::Json => layout::show_json(&data.view()),
        _ => layout::show_text(&data.view()),
    };
    crate::output::write_text(None, &text, false)
}

fn trend(db: &Path, a: TrendArgs) -> anyhow::Result<()> {
    let metric = a
        .metric
        .as_deref()
        .map(|m| {
            Metric::parse(m).ok_or_else(|| {
                usage(format!(
                    "--metric '{m}': one of {}",
                    Metric::ALL.map(|m| m.as_str()).join(", ")
                ))
            })
        })
        .transpose()?;
    if let Some(out) = &a.to.output {
        let inputs = crate::session::history::database_files(db);
        let inputs: Vec<&Path> = inputs.iter().map(PathBuf::as_path).collect();
        prepare(out, "--output", Replace::from_force(a.to.force), &inputs)?;
    }
    let store = History::open(db, Open::Existing)?;
    let host = query::find_host(store.conn(), &a.host)?;
    let series = query::find_series(store.conn(), &host, &a.test, metric)?;
    let points = query::points(store.conn(), &series, a.last).map_err(|e| store.error(e))?;
    let view = TrendView {
        host: &host,
        series: &series,
        points: &points,
    };
    let text = match a.format {
        TrendFormat::Text => layout::trend_text(&view),
        TrendFormat::Json => layout::trend_json(&view),
        TrendFormat::Csv => layout::trend_csv(&view),
        TrendFormat::Svg => {
            let mut svg = String::from("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n");
            svg.push_str(&layout::trend_svg(&view));
            svg.push('\n');
            svg
        }
        TrendFormat::Html => layout::trend_html(&view),
    };
    crate::output::write_text(a.to.output.as_deref(), &text, a.to.force)
}

fn export_cmd(db: &Path, a: ExportArgs) -> anyhow::Result<()> {
    let filter = a.filter.filter()?;
    if let Some(out) = &a.to.output {
        let inputs = crate::session::history::database_files(db);
        let inputs: Vec<&Path> = inputs.iter().map(PathBuf::as_path).collect();
        prepare(out, "--output", Replace::from_force(a.to.force), &inputs)?;
    }
    let store = History::open(db, Open::Existing)?;
    let mut failure: Option<anyhow::Error> = None;
    let mut run = |w: &mut dyn std::io::Write| -> std::io::Result<()> {
        FigureWriter::start(a.format, w)
            .map_err(anyhow::Error::from)
            .and_then(|mut rows| each_figure(store.conn(), &filter, &mut |row| rows.row(row)))
            .map(|_| ())
            .map_err(|e| match e.downcast::<std::io::Error>() {
                Ok(io) => io,
                Err(other) => {
                    let message = format!("{other:#}");
                    failure = Some(match other.downcast::<rusqlite::Error>() {
                        Ok(s) => store.error(s),
                        Err(o) => o,
                    });
                    std::io::Error::other(message)
                }
            })
    };
    let written = match &a.to.output {
        Some(path) => {
            crate::output::write_streamed(path, Replace::from_force(a.to.force), &mut run)
                .map_err(|e| anyhow::anyhow!("--output: cannot write: {e}"))
        }
        None => {
            let stdout = std::io::stdout();
            let mut w = std::io::BufWriter::new(stdout.lock());
            match run(&mut w).and_then(|_| std::io::Write::flush(&mut w)) {
                Err(e) if e.kind() == std::io::ErrorKind::BrokenPipe => Ok(()),
                other => other.map_err(anyhow::Error::from),
            }
        }
    };
    match (written, failure) {
        (_, Some(f)) => Err(f),
        (r, None) => r,
    }
}

fn report(db: &Path, a: ReportArgs) -> anyhow::Result<()> {
    // The one format of a history page: html (`Format::only`).
    debug_assert_eq!(a.format, Format::Html);
    if let Some(out) = &a.to.output {
        let inputs = crate::session::history::database_files(db);
        let inputs: Vec<&Path> = inputs.iter().map(PathBuf::as_path).collect();
        prepare(out, "--output", Replace::from_force(a.to.force), &inputs)?;
    }
    let store = History::open(db, Open::Existing)?;
    let hosts = match &a.host {
        Some(h) => vec![query::find_host(store.conn(), h)?],
        None => query::hosts(store.conn(), &Filter::default()).map_err(|e| store.error(e))?,
    };
    let mut data = Vec::with_capacity(hosts.len());
    let mut trends = Vec::with_capacity(hosts.len());
    for h in hosts {
        let d = host_data(&store, h)?;
        let mut t = Vec::new();
        for s in &d.standings {
            if s.total < 2 {
                continue;
            }
            let points =
                query::points(store.conn(), &s.series, None).map_err(|e| store.error(e))?;
            t.push((s.series.clone(), points));
        }
        // Headline rates first, then the felt latencies.
        t.sort_by_key(|(s, _)| s.key);
        trends.push(t);
        data.push(d);
    }
    let sections: Vec<HostSection> = data
        .iter()
        .zip(trends)
        .map(|(d, trends)| HostSection {
            view: d.view(),
            trends,
        })
        .collect();
    let html = crate::report::history_html(db, &sections);
    crate::output::write_text(a.to.output.as_deref(), &html, a.to.force)
}

fn get(db: &Path, a: GetArgs) -> anyhow::Result<()> {
    if let Some(out) = &a.to.output {
        let inputs = crate::session::history::database_files(db);
        let inputs: Vec<&Path> = inputs.iter().map(PathBuf::as_path).collect();
        prepare(out, "--output", Replace::from_force(a.to.force), &inputs)?;
    }
    // A Run written to a file is a Run: no other candor writes it meanwhile.
    let _lock = match &a.to.output {
        Some(out) => Some(crate::result::RunLock::acquire(out)?),
        None => None,
    };
    let store = History::open(db, Open::Existing)?;
    let (_, json) = query::stored_run(store.conn(), &a.run)?;
    crate::output::write_text(a.to.output.as_deref(), &json, a.to.force)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn days_cover_the_whole_day_and_times_are_exact() {
        let d = parse_when("--since", "2026-01-31", false).unwrap();
        assert_eq!(crate::units::rfc3339_utc(d as u64), "2026-01-31T00:00:00Z");
        let u = parse_when("--until", "2026-01-31", true).unwrap();
        assert_eq!(u - d, 86400);
        let t = parse_when("--until", "2026-01-31T12:00:00Z", true).unwrap();
        assert_eq!(t - d, 12 * 3600 + 1);
        let e = parse_when("--since", "last week", false).unwrap_err();
        assert!(crate::error::is_usage(&e) && e.to_string().starts_with("--since 'last week'"));
    }
}
