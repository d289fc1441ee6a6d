//! A fleet run as one self-contained HTML page, laid out as people compare
//! offers: the hosts side by side as columns, a metric per row, for up to
//! `SIDE_BY_SIDE` hosts (beyond, the table is turned: a host per row, the
//! metrics in blocks narrow enough for the page); a bar chart per key
//! metric across the hosts; the fleet table (each host's status, phases,
//! clock offset, the hosts it ran with, what stayed on it, the cause of a
//! failure); figures measured while other hosts ran are marked wherever
//! they appear. The page never scrolls sideways, from 360 px up: a table
//! too wide for a phone scrolls in its own box, and at 1280 px none has
//! to; no header breaks inside a word
//! (`tests/fleet_html.rs` checks it in Chromium with 3 and 12 hosts).

use super::super::compare::{Column, Comparison, MARK_LEGEND};
use super::super::html::page;
use super::super::html_sections as sections;
use super::super::svg::{bar_chart, esc, BarGroup};
use super::super::Options;
use super::{fleet_table, headline};
use crate::fleet::summary::{FleetSummary, HostRecord, HostStatus};
use std::fmt::Write;

/// Hosts shown as columns; more are shown as rows.
pub const SIDE_BY_SIDE: usize = 10;
/// Metric columns per block when hosts are rows.
const METRICS_PER_BLOCK: usize = 6;
/// The mark of a figure measured while other hosts ran.
const OVERLAP_MARK: &str = "‡";

/// This page's own layout, after the shared style: tables that take the
/// page's width and wrap their words (never inside one), each in its own
/// box that scrolls sideways when a narrow screen cannot hold it, so that
/// the page itself never does; failed hosts in red.
const STYLE: &str = "<style>
table.sbs,table.byhost,table.fleet{width:100%}
table.sbs th,table.byhost th{white-space:normal;vertical-align:bottom}
table.sbs td:first-child,table.sbs th:first-child{white-space:normal;text-align:left}
table.sbs tr.group th{text-align:left;background:#e8e8e8}table.sbs th.host,th .word{white-space:nowrap}
table.fleet td,table.fleet th{white-space:normal;text-align:left}
table.fleet td.n{text-align:right}table.fleet td.cause{min-width:14em;overflow-wrap:anywhere}
tr.failed td{background:#fff3f3}tr.failed td:first-child{border-left:4px solid #c00}
td.best{font-weight:700}.ovl{color:#8a5a00}
.charts svg.chart{flex:1 1 600px;max-width:640px;min-width:0}
</style>";

/// The page.
pub fn render(
    summary: &FleetSummary,
    c: &Comparison,
    overlapped: &[bool],
    options: &Options,
) -> String {
    let mut b = String::from(STYLE);
    let _ = writeln!(b, "<h1>{}</h1>", esc(&title(summary)));
    let _ = writeln!(b, "<p class=\"muted\">{}</p>", esc(&headline(summary)));
    b.push_str("<h2>Hosts</h2>\n");
    b.push_str(&hosts_table(summary));
    if c.rows.is_empty() {
        b.push_str("<h2>Comparison</h2><p>No host gave a complete Run: nothing to compare.</p>\n");
    } else {
        let _ = writeln!(
            b,
            "<h2>Comparison: {} host{}</h2>",
            c.rows.len(),
            if c.rows.len() == 1 { "" } else { "s" }
        );
        if c.rows.len() <= SIDE_BY_SIDE {
            b.push_str(&side_by_side(c, overlapped, options));
        } else {
            b.push_str(&by_host(c, overlapped, options));
        }
        let mut legend = MARK_LEGEND.to_string();
        if overlapped.iter().any(|o| *o) {
            legend.push_str(&format!(
                "; {OVERLAP_MARK} measured while other hosts ran (--parallel): their load may be in these figures"
            ));
        }
        let _ = writeln!(b, "<p class=\"muted\">{}</p>", esc(&legend));
        let missing: Vec<&HostRecord> = summary
            .hosts
            .iter()
            .filter(|h| h.status != HostStatus::Ok)
            .collect();
        if !missing.is_empty() {
            b.push_str("<p>Not compared (no complete Run): ");
            let named: Vec<String> = missing
                .iter()
                .map(|h| {
                    format!(
                        "<b>{}</b> ({})",
                        esc(&h.name),
                        esc(h.cause.as_deref().unwrap_or(h.status.as_str()))
                    )
                })
                .collect();
            b.push_str(&named.join("; "));
            b.push_str("</p>\n");
        }
        let charts = charts(c, overlapped, options);
        if !charts.is_empty() {
            b.push_str("<h2>Key metrics, host by host</h2><div class=\"charts\">\n");
            // Moved in one by one (a fleet's charts can be tens of MB).
            for (k, chart) in charts.into_iter().enumerate() {
                if k > 0 {
                    b.push('\n');
                }
                b.push_str(&chart);
            }
            b.push_str("</div>\n");
        }
        b.push_str(&super::super::html::stack_section(c.stack_table()));
        b.push_str(&sections::comparison_findings(c));
    }
    b.push_str(&sections::notes(&c.notes));
    page(&title(summary), b)
}

/// `candor fleet: 12 hosts, 11 ok, 1 failed`.
fn title(s: &FleetSummary) -> String {
    let mut t = format!(
        "candor fleet: {} host{}, {} ok",
        s.hosts.len(),
        if s.hosts.len() == 1 { "" } else { "s" },
        s.count(HostStatus::Ok)
    );
    for st in [
        HostStatus::Failed,
        HostStatus::Interrupted,
        HostStatus::Skipped,
    ] {
        if s.count(st) > 0 {
            let _ = write!(t, ", {} {}", s.count(st), st.as_str());
        }
    }
    t
}

/// The fleet table: one row per host, a failed one in red with its cause.
fn hosts_table(s: &FleetSummary) -> String {
    let t = fleet_table(s);
    let mut b = String::from("<div class=\"scroll\"><table class=\"fleet\"><tr>");
    for h in &t.headers {
        let _ = write!(b, "<th>{}</th>", esc(h));
    }
    b.push_str("</tr>\n");
    for (row, host) in t.rows.iter().zip(&s.hosts) {
        let failed = host.status != HostStatus::Ok;
        b.push_str(if failed {
            "<tr class=\"failed\">"
        } else {
            "<tr>"
        });
        for (i, cell) in row.iter().enumerate() {
            // The phase times and the clock offset are figures; the
            // cause, the last column, may hold a long path.
            let class = match i {
                3..=8 => " class=\"n\"",
                9 => " class=\"cause\"",
                _ => "",
            };
            let _ = write!(b, "<td{class}>{}</td>", esc(cell));
        }
        b.push_str("</tr>\n");
    }
    b.push_str("</table></div>\n");
    b
}

/// The groups of the comparison in order, with their titles.
const GROUPS: [(&str, &str); 4] = [
    ("disk", "Disk"),
    ("latency", "Latency"),
    ("compute", "Compute"),
    ("unixbench", "UnixBench"),
];

/// The row's best host, when the figures can be ranked (two or more) and
/// one is better than every other (a tie has no best).
fn best(c: &Comparison, col: usize) -> Option<usize> {
    let column = &c.columns[col];
    let values: Vec<(usize, f64)> = c
        .rows
        .iter()
        .enumerate()
        .filter_map(|(i, r)| r.cells[col].map(|s| (i, s.median)))
        .collect();
    if values.len() < 2 {
        return None;
    }
    let pick = values.iter().copied().reduce(|a, b| {
        let better = if column.higher_is_better() {
            b.1 > a.1
        } else {
            b.1 < a.1
        };
        if better {
            b
        } else {
            a
        }
    });
    let pick = pick?;
    let ties = values.iter().filter(|v| v.1 == pick.1).count();
    (ties == 1).then_some(pick.0)
}

/// A figure's cell: the value with its spread mark, the passes' range in
/// its tooltip, the overlap mark, bold when it is the row's best.
fn cell(
    c: &Comparison,
    row: usize,
    col: usize,
    overlapped: bool,
    best: bool,
    o: &Options,
) -> String {
    let r = &c.rows[row];
    let text = c.cell_text(r, col, o.unit);
    let column = &c.columns[col];
    let mut attrs = String::new();
    if best {
        attrs.push_str(" class=\"best\"");
    }
    if let Some(s) = &r.cells[col] {
        let mut tip = String::new();
        if s.n > 1 {
            tip = format!(
                "{} passes: min {}, max {}",
                s.n,
                column.value(s.min, o.unit),
                column.value(s.max, o.unit)
            );
        }
        if overlapped {
            if !tip.is_empty() {
                tip.push_str("; ");
            }
            tip.push_str("measured while other hosts ran");
        }
        if !tip.is_empty() {
            let _ = write!(attrs, " title=\"{}\"", esc(&tip));
        }
    }
    let mark = if overlapped && r.cells[col].is_some() {
        format!("<span class=\"ovl\">{OVERLAP_MARK}</span>")
    } else {
        String::new()
    };
    format!("<td{attrs}>{}{mark}</td>", esc(&text))
}

/// A column's header, escaped, its lines broken where the text breaks
/// them and between words, never inside one (`stream-triad` would
/// otherwise break after its hyphen).
fn header(text: &str) -> String {
    text.lines()
        .map(|line| {
            line.split(' ')
                .map(|word| {
                    if word.contains('-') {
                        format!("<span class=\"word\">{}</span>", esc(word))
                    } else {
                        esc(word)
                    }
                })
                .collect::<Vec<_>>()
                .join(" ")
        })
        .collect::<Vec<_>>()
        .join("<br>")
}

/// A host's name over its column, on one line (a name is one word).
fn host_header(name: &str, overlapped: bool) -> String {
    if overlapped {
        format!(
            "<th class=\"host\" title=\"measured while other hosts ran\">{}<span class=\"ovl\">{OVERLAP_MARK}</span></th>",
            esc(name)
        )
    } else {
        format!("<th class=\"host\">{}</th>", esc(name))
    }
}

fn metric_name(col: &Column, o: &Options) -> String {
    col.name(o.unit)
}

/// Up to `SIDE_BY_SIDE` hosts as columns, a metric per row, in groups.
fn side_by_side(c: &Comparison, overlapped: &[bool], o: &Options) -> String {
    let hosts = c.rows.len();
    // The metric column takes a fifth of the page (more with few hosts).
    let first = if hosts <= 4 { 30 } else { 20 };
    let mut b = format!("<div class=\"scroll\"><table class=\"sbs compare\"><colgroup><col style=\"width:{first}%\">");
    for _ in 0..hosts {
        let _ = write!(
            b,
            "<col style=\"width:{:.2}%\">",
            (100 - first) as f64 / hosts as f64
        );
    }
    b.push_str("</colgroup><tr><th>metric</th>");
    for (r, ovl) in c.rows.iter().zip(overlapped) {
        b.push_str(&host_header(&r.name, *ovl));
    }
    b.push_str("</tr>\n");
    for (group, title) in GROUPS {
        let cols = c.group(group);
        if cols.is_empty() {
            continue;
        }
        let _ = writeln!(
            b,
            "<tr class=\"group\"><th colspan=\"{}\">{title}</th></tr>",
            hosts + 1
        );
        for i in cols {
            let _ = write!(b, "<tr><td>{}</td>", esc(&metric_name(&c.columns[i], o)));
            let top = best(c, i);
            for (row, ovl) in overlapped.iter().enumerate() {
                b.push_str(&cell(c, row, i, *ovl, top == Some(row), o));
            }
            b.push_str("</tr>\n");
        }
    }
    b.push_str("</table></div>\n");
    b
}

/// More hosts: a host per row, the metrics in blocks of
/// `METRICS_PER_BLOCK` columns, each block its own table.
fn by_host(c: &Comparison, overlapped: &[bool], o: &Options) -> String {
    let mut b = String::new();
    for (group, title) in GROUPS {
        let cols = c.group(group);
        let blocks: Vec<&[usize]> = cols.chunks(METRICS_PER_BLOCK).collect();
        for (k, block) in blocks.iter().enumerate() {
            let numbered = if blocks.len() > 1 {
                format!("{title} ({}/{})", k + 1, blocks.len())
            } else {
                title.to_string()
            };
            let _ = writeln!(b, "<h3>{}</h3>", esc(&numbered));
            let _ = write!(
                b,
                "<div class=\"scroll\"><table class=\"byhost compare\"><colgroup><col style=\"width:16%\">"
            );
            for _ in block.iter() {
                let _ = write!(
                    b,
                    "<col style=\"width:{:.2}%\">",
                    84.0 / METRICS_PER_BLOCK as f64
                );
            }
            b.push_str("</colgroup><tr><th>host</th>");
            for &i in block.iter() {
                let _ = write!(b, "<th>{}</th>", header(&c.columns[i].header(o.unit)));
            }
            b.push_str("</tr>\n");
            let tops: Vec<Option<usize>> = block.iter().map(|&i| best(c, i)).collect();
            for (row, r) in c.rows.iter().enumerate() {
                let ovl = overlapped.get(row).copied().unwrap_or(false);
                let name = if ovl {
                    format!("{}<span class=\"ovl\">{OVERLAP_MARK}</span>", esc(&r.name))
                } else {
                    esc(&r.name)
                };
                let _ = write!(b, "<tr><td style=\"white-space:normal\">{name}</td>");
                for (k, &i) in block.iter().enumerate() {
                    b.push_str(&cell(c, row, i, ovl, tops[k] == Some(row), o));
                }
                b.push_str("</tr>\n");
            }
            b.push_str("</table></div>\n");
        }
    }
    b
}

/// The key metrics as bar charts, a bar per host: every disk figure, the
/// p99 latencies, every compute figure, UnixBench's indexes. Bars of hosts
/// measured while others ran are drawn in a second colour.
fn charts(c: &Comparison, overlapped: &[bool], o: &Options) -> Vec<String> {
    let any_overlap = overlapped.iter().any(|x| *x);
    let series: Vec<String> = if any_overlap {
        vec!["alone".into(), "while other hosts ran".into()]
    } else {
        Vec::new()
    };
    let key = |col: &Column| match col.group {
        "latency" => col.key.ends_with(" p99"),
        "unixbench" => col.test.ends_with("index"),
        _ => true,
    };
    let mut out = Vec::new();
    for (i, col) in c.columns.iter().enumerate().filter(|(_, col)| key(col)) {
        let groups: Vec<BarGroup> = c
            .rows
            .iter()
            .enumerate()
            .filter_map(|(h, row)| {
                let s = row.cells[i].as_ref()?;
                let ovl = overlapped.get(h).copied().unwrap_or(false);
                let text = format!("{} {}", col.value(s.median, o.unit), col.unit(o.unit));
                Some(BarGroup {
                    label: row.name.clone(),
                    bars: vec![(
                        usize::from(ovl),
                        col.number(s.median, o.unit),
                        if ovl {
                            format!("{} {OVERLAP_MARK}", text.trim_end())
                        } else {
                            text.trim_end().to_string()
                        },
                    )],
                })
            })
            .collect();
        if groups.len() < 2 {
            continue;
        }
        let better = if col.higher_is_better() {
            "higher is better"
        } else {
            "lower is better"
        };
        let unit = match col.unit(o.unit) {
            "" if col.metric == super::super::ColumnQuantity::Latency => "latency".to_string(),
            "" => "index".to_string(),
            u => u.to_string(),
        };
        out.push(bar_chart(
            &format!("{} ({better})", metric_name(col, o)),
            &unit,
            &series,
            &groups,
        ));
    }
    out
}
