//! What `candor history list`, `show` and `trend` print: hosts and Runs, a
//! host's latest key figures beside its earlier median and range, and one
//! figure over time (a text sparkline, a table, CSV, JSON or an SVG chart).
//! Pure functions of what `history::query` returns.

use super::svg::{esc, line_chart, LineChart, Scale, Series};
use super::table::{Align, Table};
use crate::history::assess::Verdict;
use crate::history::figures::Metric;
use crate::history::query::{FindingRow, HostRow, RunRow, SeriesRow, Standing, TrendPoint};
use std::fmt::Write as _;
use std::path::Path;

/// `2026-12-01 14:43` from an RFC 3339 time.
pub fn minute(rfc3339: &str) -> String {
    rfc3339.get(..16).unwrap_or(rfc3339).replace('T', " ")
}

/// The first 12 hex digits of a Run's hash: enough to name it (`history get`).
pub fn short(hash: &str) -> &str {
    hash.get(..12).unwrap_or(hash)
}

fn or_dash(v: Option<String>) -> String {
    v.filter(|s| !s.is_empty())
        .unwrap_or_else(|| "–".to_string())
}

fn ram(bytes: Option<i64>) -> String {
    or_dash(bytes.map(|b| crate::units::fmt_bytes(b.max(0) as u64)))
}

/// One line of a host's identity facts.
pub fn host_facts(h: &HostRow) -> String {
    let mut parts = Vec::new();
    if let Some(m) = &h.cpu_model {
        parts.push(format!("CPU {m}"));
    }
    match (h.cpu_cores, h.cpu_threads) {
        (Some(c), Some(t)) => parts.push(format!("{c} cores, {t} vCPUs")),
        (None, Some(t)) => parts.push(format!("{t} vCPUs")),
        _ => {}
    }
    if let Some(b) = h.mem_total_bytes {
        parts.push(format!("{} RAM", ram(Some(b))));
    }
    if let Some(v) = h.virtualization.as_ref().filter(|v| v.as_str() != "none") {
        parts.push(format!("virtualization {v}"));
    }
    if let Some(o) = &h.os_release {
        parts.push(o.clone());
    }
    if let Some(k) = &h.kernel {
        parts.push(format!("kernel {k}"));
    }
    if let (Some(l), Some(n)) = (&h.label, &h.hostname) {
        if l != n {
            parts.push(format!("hostname {n}"));
        }
    }
    parts.join(", ")
}

/// `candor history list`: the hosts, then the Runs (oldest first).
pub fn list_text(db: &Path, hosts: &[HostRow], runs: &[RunRow]) -> String {
    let mut out = String::new();
    let _ = writeln!(out, "history {}", db.display());
    if hosts.is_empty() {
        let _ = writeln!(out, "no Runs match");
        return out;
    }
    let _ = writeln!(out, "\nhosts ({})", hosts.len());
    let mut t = Table::new(
        ["host", "Runs", "first", "last", "CPU", "vCPUs", "RAM"]
            .map(String::from)
            .to_vec(),
    );
    t.align[4] = Align::Left;
    for h in hosts {
        t.push(vec![
            h.name.clone(),
            h.runs.to_string(),
            minute(&h.first_at),
            minute(&h.last_at),
            or_dash(h.cpu_model.clone()),
            or_dash(h.cpu_threads.map(|t| t.to_string())),
            ram(h.mem_total_bytes),
        ]);
    }
    out.push_str(&t.to_text("  "));
    let _ = writeln!(out, "\nruns ({}, oldest first)", runs.len());
    let mut t = Table::new(
        [
            "started (UTC)",
            "host",
            "run",
            "kinds",
            "plan",
            "status",
            "source",
            "tool",
        ]
        .map(String::from)
        .to_vec(),
    );
    t.align = vec![Align::Left; 8];
    for r in runs {
        t.push(vec![
            minute(&r.started_at),
            r.host.clone(),
            short(&r.run).to_string(),
            r.kinds.clone(),
            or_dash(r.preset.clone()),
            r.status.clone(),
            r.source.clone(),
            format!("{} {}", r.tool, r.tool_version),
        ]);
    }
    out.push_str(&t.to_text("  "));
    out
}

/// `candor history list --format json`: `{"db", "hosts": [...], "runs": [...]}`.
pub fn list_json(db: &Path, hosts: &[HostRow], runs: &[RunRow]) -> String {
    pretty(&serde_json::json!({
        "db": db.display().to_string(),
        "hosts": hosts,
        "runs": runs,
    }))
}

fn pretty(v: &serde_json::Value) -> String {
    let mut s = serde_json::to_string_pretty(v).expect("JSON values always serialise");
    s.push('\n');
    s
}

/// A host, its key figures' standing, its latest Run and that Run's findings.
pub struct HostView<'a> {
    pub host: &'a HostRow,
    pub standings: &'a [Standing],
    pub latest: Option<&'a RunRow>,
    pub findings: &'a [FindingRow],
}

impl HostView<'_> {
    /// The latest Run's warnings and refusals: the findings worth a line.
    pub fn notable(&self) -> Vec<&FindingRow> {
        self.findings
            .iter()
            .filter(|f| f.status == "checked" && f.severity != "info")
            .collect()
    }
}

/// ` [subject]`, or nothing.
pub fn subject_tag(f: &FindingRow) -> String {
    f.subject
        .as_deref()
        .map(|s| format!(" [{s}]"))
        .unwrap_or_default()
}

fn verdict_word(s: &Standing) -> String {
    match &s.assessment {
        None => format!("not judged ({} earlier)", s.earlier.len()),
        Some(a) => match a.verdict {
            Verdict::Regressed => "REGRESSED".to_string(),
            Verdict::Improved => "improved".to_string(),
            Verdict::Within => "within range".to_string(),
        },
    }
}

fn change(s: &Standing) -> String {
    s.assessment
        .and_then(|a| a.change())
        .map_or("–".to_string(), |c| format!("{:+.1} %", c * 100.0))
}

/// The standing of each key figure as table rows.
fn standing_rows(view: &HostView) -> Table {
    let mut t = Table::new(
        [
            "test",
            "figure",
            "latest",
            "on",
            "earlier median",
            "usual range",
            "earlier",
            "change",
            "drift",
        ]
        .map(String::from)
        .to_vec(),
    );
    t.align[1] = Align::Left;
    t.align[3] = Align::Left;
    t.align[8] = Align::Left;
    for s in view.standings {
        let m = s.series.metric;
        let (median, range) = match (&s.assessment, s.earlier.is_empty()) {
            (Some(a), _) => (m.show(a.median), m.show_range(a.min, a.max)),
            (None, false) => {
                let v: Vec<f64> = s.earlier.iter().map(|p| p.value).collect();
                let lo = v.iter().copied().fold(f64::INFINITY, f64::min);
                let hi = v.iter().copied().fold(f64::NEG_INFINITY, f64::max);
                (
                    crate::result::median(&v).map_or("–".into(), |x| m.show(x)),
                    m.show_range(lo, hi),
                )
            }
            (None, true) => ("–".into(), "–".into()),
        };
        t.push(vec![
            s.series.test.clone(),
            m.short().to_string(),
            m.show(s.latest.value),
            s.latest.started_at.get(..10).unwrap_or("").to_string(),
            median,
            range,
            s.earlier.len().to_string(),
            change(s),
            verdict_word(s),
        ]);
    }
    t
}

/// `candor history show HOST`.
pub fn show_text(view: &HostView) -> String {
    let h = view.host;
    let mut out = String::new();
    let _ = writeln!(
        out,
        "host '{}': {} Runs, {} to {}",
        h.name,
        h.runs,
        minute(&h.first_at),
        minute(&h.last_at)
    );
    let facts = host_facts(h);
    if !facts.is_empty() {
        let _ = writeln!(out, "  {facts}");
    }
    if view.standings.is_empty() {
        let _ = writeln!(out, "\nno figures");
    } else {
        let _ = writeln!(out);
        out.push_str(&standing_rows(view).to_text("  "));
        let _ = writeln!(
            out,
            "\n  earlier: this host's last {} Runs of the test before the latest one; usual range: their\n  min–max, odd ones left out. drift: regressed or improved when the latest figure leaves it by\n  more than the noise (candor explain regressed); not judged with fewer than {} earlier Runs.",
            crate::findings::drift::DRIFT_WINDOW,
            crate::findings::drift::DRIFT_MIN_EARLIER
        );
    }
    if let Some(r) = view.latest {
        let notable = view.notable();
        let _ = writeln!(
            out,
            "\nlatest Run {} ({}, {}): {} warnings and refusals",
            short(&r.run),
            minute(&r.started_at),
            r.kinds,
            notable.len()
        );
        for f in notable {
            let _ = writeln!(
                out,
                "  {:<8} {}{}: {}",
                f.severity.to_uppercase(),
                f.id,
                subject_tag(f),
                f.verdict
            );
        }
    }
    out
}

/// The standing of each key figure as JSON objects (raw units).
fn standings_json(standings: &[Standing]) -> Vec<serde_json::Value> {
    standings
        .iter()
        .map(|s| {
            let a = s.assessment;
            serde_json::json!({
                "test": s.series.test,
                "workload": s.series.workload,
                "metric": s.series.metric.as_str(),
                "unit": s.series.metric.unit(),
                "latest": s.latest,
                "earlier_count": s.earlier.len(),
                "earlier_median": a.map(|a| a.median),
                "earlier_min": a.map(|a| a.min),
                "earlier_max": a.map(|a| a.max),
                "earlier_mad": a.map(|a| a.mad),
                "earlier_outliers": a.map(|a| a.outliers),
                "noise": a.map(|a| a.noise),
                "change_pct": a.and_then(|a| a.change()).map(|c| c * 100.0),
                "drift": a.map_or("not-checked", |a| match a.verdict {
                    Verdict::Regressed => "regressed",
                    Verdict::Improved => "improved",
                    Verdict::Within => "within",
                }),
                "points": s.total,
            })
        })
        .collect()
}

/// `candor history show HOST --format json`.
pub fn show_json(view: &HostView) -> String {
    pretty(&serde_json::json!({
        "host": view.host,
        "figures": standings_json(view.standings),
        "latest_run": view.latest,
        "latest_findings": view.findings,
    }))
}

/// One figure of a host over time.
pub struct TrendView<'a> {
    pub host: &'a HostRow,
    pub series: &'a SeriesRow,
    pub points: &'a [TrendPoint],
}

const SPARKS: [char; 8] = ['▁', '▂', '▃', '▄', '▅', '▆', '▇', '█'];

/// A text sparkline of at most `width` characters: each character is the
/// median of its share of the values, from `▁` (the lowest) to `█` (the highest).
pub fn sparkline(values: &[f64], width: usize) -> String {
    if values.is_empty() || width == 0 {
        return String::new();
    }
    let columns = values.len().min(width);
    let buckets: Vec<f64> = (0..columns)
        .filter_map(|c| {
            let (a, b) = (c * values.len() / columns, (c + 1) * values.len() / columns);
            crate::result::median(&values[a..b.max(a + 1)])
        })
        .collect();
    let lo = buckets.iter().copied().fold(f64::INFINITY, f64::min);
    let hi = buckets.iter().copied().fold(f64::NEG_INFINITY, f64::max);
    buckets
        .iter()
        .map(|v| {
            if hi > lo {
                SPARKS[(((v - lo) / (hi - lo)) * 7.0).round() as usize]
            } else {
                SPARKS[3]
            }
        })
        .collect()
}

fn trend_title(t: &TrendView) -> String {
    format!(
        "{} · {} · {}",
        t.host.name,
        t.series.test,
        t.series.metric.short()
    )
}

/// `candor history trend HOST --test T`: the sparkline, then one row per Run.
pub fn trend_text(t: &TrendView) -> String {
    let m = t.series.metric;
    let mut out = String::new();
    let values: Vec<f64> = t.points.iter().map(|p| p.value).collect();
    let _ = writeln!(out, "{}", trend_title(t));
    let (Some(first), Some(last)) = (t.points.first(), t.points.last()) else {
        let _ = writeln!(out, "no figures");
        return out;
    };
    let _ = writeln!(
        out,
        "{} Runs, {} to {} ({}; workload {})",
        t.points.len(),
        minute(&first.started_at),
        minute(&last.started_at),
        if m.higher_is_better() {
            "higher is better"
        } else {
            "lower is better"
        },
        t.series.workload
    );
    let lo = values.iter().copied().fold(f64::INFINITY, f64::min);
    let hi = values.iter().copied().fold(f64::NEG_INFINITY, f64::max);
    let _ = writeln!(
        out,
        "\n  {}   min {}  median {}  max {}  latest {}",
        sparkline(&values, 64),
        m.show(lo),
        crate::result::median(&values).map_or("–".into(), |v| m.show(v)),
        m.show(hi),
        m.show(last.value)
    );
    let _ = writeln!(out);
    let mut table = Table::new(
        [
            "started (UTC)",
            m.short(),
            "passes",
            "min of passes",
            "max of passes",
            "run",
        ]
        .map(String::from)
        .to_vec(),
    );
    table.align[5] = Align::Left;
    for p in t.points {
        table.push(vec![
            minute(&p.started_at),
            m.show(p.value),
            p.passes.to_string(),
            m.show(p.min),
            m.show(p.max),
            short(&p.run).to_string(),
        ]);
    }
    out.push_str(&table.to_text("  "));
    out
}

/// `--format json`: the series and its points in raw units.
pub fn trend_json(t: &TrendView) -> String {
    pretty(&serde_json::json!({
        "host": t.host.name,
        "test": t.series.test,
        "workload": t.series.workload,
        "metric": t.series.metric.as_str(),
        "unit": t.series.metric.unit(),
        "higher_is_better": t.series.metric.higher_is_better(),
        "points": t.points,
    }))
}

/// `--format csv`: one row per Run, raw units.
pub fn trend_csv(t: &TrendView) -> String {
    let mut out =
        String::from("host,test,workload,metric,unit,started_at,run,value,min,max,passes\n");
    let f = super::csv_field;
    for p in t.points {
        let _ = writeln!(
            out,
            "{},{},{},{},{},{},{},{},{},{},{}",
            f(&t.host.name),
            f(&t.series.test),
            f(&t.series.workload),
            t.series.metric.as_str(),
            t.series.metric.unit(),
            p.started_at,
            p.run,
            p.value,
            p.min,
            p.max,
            p.passes
        );
    }
    out
}

/// The scale a metric is drawn in: MB/s for bytes, the latency unit that
/// fits the median, the count itself otherwise. (divisor, label)
fn plot_unit(m: Metric, values: &[f64]) -> (f64, String) {
    let mid = crate::result::median(values).unwrap_or(0.0);
    match m {
        Metric::BytesPerSec => (1e6, "MB/s".into()),
        _ if m.is_latency() => {
            let (d, u) = if mid >= 1e6 {
                (1e6, "ms")
            } else if mid >= 1e3 {
                (1e3, "us")
            } else {
                (1.0, "ns")
            };
            (d, format!("{} ({u})", m.short()))
        }
        _ => (1.0, m.short().to_string()),
    }
}

/// Date ticks across [lo, hi] (Unix seconds): five at most, labelled by day,
/// or by day and minute when the span is under three days.
fn time_ticks(lo: f64, hi: f64) -> Vec<(f64, String)> {
    let label = |v: f64, fine: bool| {
        let t = crate::units::rfc3339_utc(v.max(0.0) as u64);
        if fine {
            minute(&t)[5..].to_string()
        } else {
            t[..10].to_string()
        }
    };
    if hi <= lo {
        return vec![(lo, label(lo, true))];
    }
    let fine = hi - lo < 3.0 * 86400.0;
    (0..5)
        .map(|i| {
            let v = lo + (hi - lo) * i as f64 / 4.0;
            (v, label(v, fine))
        })
        .collect()
}

/// The trend as an SVG line chart: the median of each Run's passes, and
/// (when Runs had several passes) the lowest and highest pass.
pub fn trend_svg(t: &TrendView) -> String {
    let m = t.series.metric;
    let values: Vec<f64> = t.points.iter().map(|p| p.value).collect();
    let (div, label) = plot_unit(m, &values);
    let pts = |get: &dyn Fn(&TrendPoint) -> f64| -> Vec<(f64, f64)> {
        t.points
            .iter()
            .map(|p| (p.unix as f64, get(p) / div))
            .collect()
    };
    let mut series = vec![Series {
        name: "median of passes".into(),
        points: pts(&|p| p.value),
    }];
    if t.points.iter().any(|p| p.passes > 1) {
        series.push(Series {
            name: "lowest pass".into(),
            points: pts(&|p| p.min),
        });
        series.push(Series {
            name: "highest pass".into(),
            points: pts(&|p| p.max),
        });
    }
    let xs: Vec<f64> = t.points.iter().map(|p| p.unix as f64).collect();
    let lo = xs.iter().copied().fold(f64::INFINITY, f64::min);
    let hi = xs.iter().copied().fold(f64::NEG_INFINITY, f64::max);
    let y_fmt = |v: f64| super::svg::tick_label(v);
    line_chart(&LineChart {
        title: trend_title(t),
        x_label: "started (UTC)".into(),
        y_label: label,
        x_scale: Scale::Linear,
        y_scale: Scale::Linear,
        series,
        x_ticks: (!xs.is_empty()).then(|| time_ticks(lo, hi)),
        y_fmt: &y_fmt,
        y_zero: true,
    })
}

/// `--format html`: the chart and the table on one self-contained page.
pub fn trend_html(t: &TrendView) -> String {
    let mut body = format!("<h1>{}</h1>\n", esc(&trend_title(t)));
    let _ = writeln!(
        body,
        "<p class=\"muted\">workload <code>{}</code>; {}</p>",
        esc(&t.series.workload),
        if t.series.metric.higher_is_better() {
            "higher is better"
        } else {
            "lower is better"
        }
    );
    let _ = writeln!(body, "<div class=\"charts\">{}</div>", trend_svg(t));
    let m = t.series.metric;
    body.push_str("<div class=\"scroll\"><table><tr><th>started (UTC)</th><th>");
    body.push_str(&esc(m.short()));
    body.push_str(
        "</th><th>passes</th><th>min of passes</th><th>max of passes</th><th>run</th></tr>\n",
    );
    for p in t.points {
        let _ = writeln!(
            body,
            "<tr><td>{}</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td><td><code>{}</code></td></tr>",
            esc(&minute(&p.started_at)),
            esc(&m.show(p.value)),
            p.passes,
            esc(&m.show(p.min)),
            esc(&m.show(p.max)),
            esc(short(&p.run))
        );
    }
    body.push_str("</table></div>\n");
    super::html::page(&trend_title(t), body)
}

/// The standing table as HTML (the history report's per-host table).
pub fn standings_html(view: &HostView) -> String {
    let t = standing_rows(view);
    let mut out = String::from("<div class=\"scroll\"><table><tr>");
    for h in &t.headers {
        let _ = write!(out, "<th>{}</th>", esc(h));
    }
    out.push_str("</tr>\n");
    for row in &t.rows {
        out.push_str("<tr>");
        for (i, c) in row.iter().enumerate() {
            let cls = match (i, c.as_str()) {
                (8, "REGRESSED") => " class=\"regressed\" style=\"color:#c00;font-weight:700\"",
                (8, "improved") => " class=\"improved\" style=\"color:#2ca02c;font-weight:700\"",
                _ => "",
            };
            let _ = write!(out, "<td{cls}>{}</td>", esc(c));
        }
        out.push_str("</tr>\n");
    }
    out.push_str("</table></div>\n");
    out
}

/// One line per drift finding: the fired ones first (important), then one
/// line for the figures that could not be judged yet.
pub fn drift_lines(findings: &[crate::result::Finding]) -> Vec<(bool, String)> {
    let mut out: Vec<(bool, String)> = findings
        .iter()
        .filter(|f| f.status == crate::result::FindingStatus::Checked)
        .map(|f| (true, format!("{}: {}", f.id, f.verdict)))
        .collect();
    if let Some(f) = findings
        .iter()
        .find(|f| f.status == crate::result::FindingStatus::NotChecked && f.id == "regressed")
    {
        out.push((false, format!("drift not checked: {}", f.verdict)));
    }
    out
}

/// What `history add` of many files prints: how many Runs were added to
/// `db` (and were there already) for how many hosts, then each new Run's
/// fired drift findings.
pub fn added_text(db: &std::path::Path, added: &crate::history::batch::AddedFiles) -> String {
    let (new, old, hosts) = (added.new, added.old, added.hosts);
    let mut out = format!(
        "added {new} Run{} to {}{} ({} host{})\n",
        if new == 1 { "" } else { "s" },
        db.display(),
        if old > 0 {
            format!(", {old} already stored")
        } else {
            String::new()
        },
        hosts,
        if hosts == 1 { "" } else { "s" }
    );
    for run in &added.drift {
        for (important, line) in drift_lines(&run.findings) {
            if important {
                out.push_str(&format!(
                    "{} ({}, Run {}): {line}\n",
                    run.host,
                    run.started_at.as_deref().unwrap_or("?"),
                    &run.hash[..12]
                ));
            }
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sparkline_spans_the_range_and_buckets_long_series() {
        assert_eq!(sparkline(&[1.0, 2.0, 3.0, 8.0], 10), "▁▂▃█");
        assert_eq!(sparkline(&[5.0, 5.0], 10), "▄▄");
        let long: Vec<f64> = (0..1000).map(|i| i as f64).collect();
        let s = sparkline(&long, 64);
        assert_eq!(s.chars().count(), 64);
        assert!(s.starts_with('▁') && s.ends_with('█'));
        assert_eq!(sparkline(&[], 10), "");
    }

    #[test]
    fn ticks_label_days_or_minutes() {
        let day = 86400.0;
        let t = time_ticks(1_767_225_600.0, 1_767_225_600.0 + 30.0 * day);
        assert_eq!(t.len(), 5);
        assert_eq!(t[0].1, "2026-01-01");
        let fine = time_ticks(1_767_225_600.0, 1_767_225_600.0 + 3600.0);
        assert_eq!(fine[0].1, "01-01 00:00");
    }
}
