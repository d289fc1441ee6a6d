//! The history's reading commands, one function each: open the store, ask
//! `history::query`, lay the answer out with `report::history`. The command
//! files only parse their flags and call one of these.

use super::history::{self as layout, HostView, TrendView};
use super::{ExportFormat, FigureWriter, Format, HostSection};
use crate::error::usage;
use crate::history::export::each_figure;
use crate::history::figures::Metric;
use crate::history::query::{self, Filter, HostRow};
use crate::history::schema::Open;
use crate::history::History;
use std::path::Path;

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

/// Hosts and Runs (`history list`), as text or JSON.
pub fn list(
    db: &Path,
    filter: &Filter,
    limit: Option<usize>,
    format: Format,
) -> anyhow::Result<String> {
    let store = History::open(db, Open::Existing)?;
    let e = |x| store.error(x);
    let hosts = query::hosts(store.conn(), filter).map_err(e)?;
    let runs = query::runs(store.conn(), filter, limit).map_err(e)?;
    Ok(match format {
        Format::Json => layout::list_json(db, &hosts, &runs),
        _ => layout::list_text(db, &hosts, &runs),
    })
}

/// A host's latest figures against its usual range (`history show`).
pub fn show(db: &Path, host: &str, format: Format) -> anyhow::Result<String> {
    let store = History::open(db, Open::Existing)?;
    let host = query::find_host(store.conn(), host)?;
    let data = HostData::of(&store, host)?;
    Ok(match format {
        Format::Json => layout::show_json(&data.view()),
        _ => layout::show_text(&data.view()),
    })
}

/// One figure of one host over time (`history trend`).
#[derive(Debug, Clone, Copy)]
pub struct TrendRequest<'a> {
    pub host: &'a str,
    /// A test's name as reports print it, its workload key, or a unique part.
    pub test: &'a str,
    /// A figure's name (`Metric::parse`), else the test's headline.
    pub metric: Option<&'a str>,
    /// Only the most recent N Runs.
    pub last: Option<usize>,
    pub format: TrendFormat,
}

pub fn trend(db: &Path, request: &TrendRequest) -> anyhow::Result<String> {
    let metric = request
        .metric
        .map(|m| {
            Metric::parse(m).ok_or_else(|| {
                usage(format!(
                    "--metric '{m}': one of {}",
                    Metric::ALL.map(|m| m.as_str()).join(", ")
                ))
            })
        })
        .transpose()?;
    let store = History::open(db, Open::Existing)?;
    let host = query::find_host(store.conn(), request.host)?;
    let series = query::find_series(store.conn(), &host, request.test, metric)?;
    let points = query::points(store.conn(), &series, request.last).map_err(|e| store.error(e))?;
    let view = TrendView {
        host: &host,
        series: &series,
        points: &points,
    };
    Ok(match request.format {
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
    })
}

/// Every figure the filter selects, one row each, written to `out` as it
/// is read (`history export`): a long history never sits in memory.
pub fn export(
    db: &Path,
    filter: &Filter,
    format: ExportFormat,
    out: &mut dyn std::io::Write,
) -> anyhow::Result<()> {
    let store = History::open(db, Open::Existing)?;
    let mut rows = FigureWriter::start(format, out)?;
    each_figure(store.conn(), filter, &mut |row| rows.row(row))
        .map(|_| ())
        .map_err(|e| match e.downcast::<rusqlite::Error>() {
            Ok(s) => store.error(s),
            Err(other) => other,
        })
}

/// The whole history, or one host, as one self-contained HTML page
/// (`history report`): each host's latest figures, findings and the trend
/// of every figure with two Runs or more.
pub fn page(db: &Path, host: Option<&str>) -> anyhow::Result<String> {
    let store = History::open(db, Open::Existing)?;
    let hosts = match host {
        Some(h) => vec![query::find_host(store.conn(), h)?],
        None => query::hosts(store.conn(), &Filter::default()).map_err(|e| store.error(e))?,
    };
    let mut data = Vec::with_capacity(hosts.len());
    let mut trends = Vec::with_capacity(hosts.len());
    for h in hosts {
        let d = HostData::of(&store, h)?;
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
    Ok(super::history_html(db, &sections))
}

/// A stored Run's JSON exactly as it was added (`history get`).
pub fn stored_run(db: &Path, run: &str) -> anyhow::Result<String> {
    let store = History::open(db, Open::Existing)?;
    let (_, json) = query::stored_run(store.conn(), run)?;
    Ok(json)
}

/// Everything `show` and the page need about one host.
struct HostData {
    host: HostRow,
    standings: Vec<query::Standing>,
    latest: Option<query::RunRow>,
    findings: Vec<query::FindingRow>,
}

impl HostData {
    fn of(store: &History, host: HostRow) -> anyhow::Result<HostData> {
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

    fn view(&self) -> HostView<'_> {
        HostView {
            host: &self.host,
            standings: &self.standings,
            latest: self.latest.as_ref(),
            findings: &self.findings,
        }
    }
}
