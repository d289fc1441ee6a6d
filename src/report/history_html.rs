//! `candor history report --format html`: the whole history on one
//! self-contained page (inline CSS and SVG, no scripts, no external assets,
//! every stored string escaped): the hosts, then per host its latest key
//! figures against their earlier range, its trends, and its latest findings
//! (drift, and the warnings and refusals of its latest Run).

use super::history::{
    host_facts, minute, short, standings_html, subject_tag, trend_svg, HostView, TrendView,
};
use super::svg::esc;
use crate::history::assess::Verdict;
use crate::history::query::{SeriesRow, TrendPoint};
use std::fmt::Write as _;
use std::path::Path;

/// Trend charts drawn per host; the rest are named (`candor history trend` draws any).
pub const CHARTS_PER_HOST: usize = 16;

/// One host's part of the page.
pub struct HostSection<'a> {
    pub view: HostView<'a>,
    /// The key figures with two or more points, each with its points.
    pub trends: Vec<(SeriesRow, Vec<TrendPoint>)>,
}

/// The page.
pub fn history_html(db: &Path, sections: &[HostSection]) -> String {
    let mut body = String::from("<h1>candor history</h1>\n");
    let runs: i64 = sections.iter().map(|s| s.view.host.runs).sum();
    let _ = writeln!(
        body,
        "<p class=\"muted\">{} hosts, {} Runs, from <code>{}</code>. Each figure is the median of its Run's passes; \
         drift compares a host's latest figure with its own last {} earlier Runs of the same workload \
         (regressed or improved when it leaves their usual min–max, odd ones left out, by more than the noise; not judged with fewer than {}).</p>",
        sections.len(),
        runs,
        esc(&db.display().to_string()),
        crate::findings::drift::DRIFT_WINDOW,
        crate::findings::drift::DRIFT_MIN_EARLIER
    );
    body.push_str("<h2>Hosts</h2>\n<div class=\"scroll\"><table class=\"hosts\"><tr><th>host</th><th>Runs</th><th>first</th><th>last</th><th>regressed</th><th>improved</th><th>facts</th></tr>\n");
    for (i, s) in sections.iter().enumerate() {
        let h = s.view.host;
        let count = |v: Verdict| {
            s.view
                .standings
                .iter()
                .filter(|x| x.assessment.is_some_and(|a| a.verdict == v))
                .count()
        };
        let _ = writeln!(
            body,
            "<tr><td><a href=\"#host-{i}\">{}</a></td><td>{}</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td><td style=\"text-align:left\">{}</td></tr>",
            esc(&h.name),
            h.runs,
            esc(&minute(&h.first_at)),
            esc(&minute(&h.last_at)),
            count(Verdict::Regressed),
            count(Verdict::Improved),
            esc(&host_facts(h))
        );
    }
    body.push_str("</table></div>\n");
    for (i, s) in sections.iter().enumerate() {
        host_section(&mut body, i, s);
    }
    super::html::page("candor history", body)
}

fn host_section(body: &mut String, i: usize, s: &HostSection) {
    let h = s.view.host;
    let _ = writeln!(body, "<h2 id=\"host-{i}\">{}</h2>", esc(&h.name));
    let _ = writeln!(
        body,
        "<p class=\"muted\">{} Runs, {} to {}. {}</p>",
        h.runs,
        esc(&minute(&h.first_at)),
        esc(&minute(&h.last_at)),
        esc(&host_facts(h))
    );
    if !s.view.standings.is_empty() {
        body.push_str("<h3>Latest figures against earlier Runs</h3>\n");
        body.push_str(&standings_html(&s.view));
    }
    if !s.trends.is_empty() {
        body.push_str("<h3>Trends</h3>\n<div class=\"charts\">");
        for (series, points) in s.trends.iter().take(CHARTS_PER_HOST) {
            body.push_str(&trend_svg(&TrendView {
                host: h,
                series,
                points,
            }));
        }
        body.push_str("</div>\n");
        if s.trends.len() > CHARTS_PER_HOST {
            let rest: Vec<String> = s.trends[CHARTS_PER_HOST..]
                .iter()
                .map(|(t, _)| format!("{} {}", t.test, t.metric.short()))
                .collect();
            let _ = writeln!(
                body,
                "<p class=\"muted\">Not drawn here ({}): {}. <code>candor history trend</code> draws any of them.</p>",
                rest.len(),
                esc(&rest.join("; "))
            );
        }
    }
    body.push_str("<h3>Latest findings</h3>\n");
    let mut any = false;
    for st in s.view.standings {
        let Some(a) = st.assessment else { continue };
        let (id, class) = match a.verdict {
            Verdict::Regressed => ("regressed", "warning"),
            Verdict::Improved => ("improved", "info"),
            Verdict::Within => continue,
        };
        any = true;
        let m = st.series.metric;
        let _ = writeln!(
            body,
            "<div class=\"finding {class}\"><p><span class=\"sev\">{id}</span> {} {}: {} on {}, against this host's {} earlier Runs: median {}, range {} (noise allowance {}).</p></div>",
            esc(&st.series.test),
            esc(m.short()),
            esc(&m.show(a.value)),
            esc(st.latest.started_at.get(..10).unwrap_or("")),
            a.n,
            esc(&m.show(a.median)),
            esc(&m.show_range(a.min, a.max)),
            esc(&m.show(a.noise))
        );
    }
    if let Some(r) = s.view.latest {
        for f in s.view.notable() {
            any = true;
            let subject = subject_tag(f);
            let _ = writeln!(
                body,
                "<div class=\"finding {}\"><p><span class=\"sev\">{}</span> {}{} <span class=\"muted\">(Run {}, {})</span></p><p>{}</p></div>",
                esc(&f.severity),
                esc(&f.severity),
                esc(&f.id),
                esc(&subject),
                esc(short(&r.run)),
                esc(&minute(&r.started_at)),
                esc(&f.verdict)
            );
        }
    }
    if !any {
        body.push_str("<p class=\"muted\">No drift beyond the noise, and no warnings in the latest Run.</p>\n");
    }
}
