//! A fleet run as people read it: one row per host (how it ended, its
//! architecture, the time of each phase, its clock's offset, the one-line
//! cause of a failure), then the comparison of the hosts' Runs, whose notes
//! carry what the fleet adds (hosts without a Run, hosts measured while
//! others ran, which hosts ran which architecture's binary). Text
//! and Markdown get both; HTML lays them out as an offer comparison
//! (`fleet/html.rs`: hosts as columns, charts per key metric, the fleet
//! table); CSV and JSON are the comparison with those notes (fleet.json
//! has the rest as data).

mod html;
mod side_by_side;

use super::compare::{ComparedRun, Comparison};
use super::markdown::{escape_cells, md};
use super::table::{Align, Table};
use super::{exporter, Format, Options};
use crate::findings::HostMetrics;
use crate::fleet::summary::{FleetSummary, HostRecord, Phase};
use crate::result::Run;
use std::path::Path;

/// The comparison of a fleet's Runs (hosts that gave a complete Run) with
/// the fleet's notes and the findings across them. Each Run is read from
/// the fleet directory, handed to `each` (which may give it its fleet
/// context and record it in the history) and reduced to what the
/// comparison needs before the next is read: 4,000 battery Runs held at
/// once took 1.9 GB.
pub fn fleet_comparison(
    summary: &FleetSummary,
    dir: &Path,
    mut each: impl FnMut(&HostRecord, &Path, &mut Run),
) -> anyhow::Result<Comparison> {
    let mut runs = Vec::new();
    let mut hosts = Vec::new();
    crate::fleet::directory::each_compared_run(dir, summary, |h, file, mut run| {
        each(h, file, &mut run);
        runs.push(ComparedRun::of(&run));
        hosts.push(HostMetrics::of(&run));
        Ok(())
    })?;
    let cross = crate::findings::analyze_hosts(&hosts);
    let mut c = Comparison::of_digests(runs, cross);
    // fleet.json's notes say who ran together, for every host at once.
    c.notes
        .retain(|n| !n.contains(super::compare::FLEET_OVERLAP));
    c.notes.extend(summary.comparison_notes());
    Ok(c)
}

/// A fleet's comparison files (`fleet::directory::COMPARE_FILES`), each in
/// the format its name's extension names (`compare.md`: Markdown; `.txt`
/// or anything else: text), as `candor fleet run` writes them.
pub fn fleet_compare_files(
    summary: &FleetSummary,
    dir: &Path,
) -> anyhow::Result<Vec<(&'static str, String)>> {
    let comparison = fleet_comparison(summary, dir, |_, _, _| {})?;
    Ok(crate::fleet::directory::COMPARE_FILES
        .into_iter()
        .map(|name| {
            let format = name
                .rsplit_once('.')
                .and_then(|(_, ext)| Format::from_extension(ext))
                .unwrap_or(Format::Text);
            (
                name,
                render_fleet(summary, &comparison, format, &Options::default()),
            )
        })
        .collect())
}

/// Renders a fleet run in a format.
pub fn render_fleet(
    summary: &FleetSummary,
    comparison: &Comparison,
    format: Format,
    options: &Options,
) -> String {
    let overlapped = overlapped(summary, comparison);
    // Hosts as columns when they fit, else the comparison's own layout.
    let body = || {
        let hosts = comparison.rows.len();
        (hosts > 0).then(|| match format {
            Format::Text if hosts <= side_by_side::TEXT_HOSTS => {
                side_by_side::text(comparison, &overlapped, options)
            }
            Format::Md if hosts <= side_by_side::MD_HOSTS => {
                side_by_side::markdown(comparison, &overlapped, options)
            }
            _ => exporter(format).compare(comparison, options),
        })
    };
    match format {
        Format::Text => {
            let mut out = headline(summary);
            out.push_str("\n\n");
            out.push_str(&fleet_table(summary).to_text(""));
            out.push('\n');
            match body() {
                Some(b) => out.push_str(&b),
                None => out.push_str(&no_runs(comparison)),
            }
            out
        }
        Format::Md => {
            let mut out = format!("## Fleet\n\n{}\n\n", md(&headline(summary)));
            out.push_str(&escape_cells(fleet_table(summary)).to_markdown());
            out.push('\n');
            match body() {
                Some(b) => out.push_str(&b),
                None => out.push_str(&md(&no_runs(comparison))),
            }
            out
        }
        Format::Html => html::render(summary, comparison, &overlapped, options),
        _ => exporter(format).compare(comparison, options),
    }
}

/// For each row of the comparison, whether that host's battery ran while
/// other hosts' did (the rows are the hosts that gave a complete Run, in
/// fleet.json's order).
fn overlapped(s: &FleetSummary, c: &Comparison) -> Vec<bool> {
    let measured: Vec<&HostRecord> = s
        .hosts
        .iter()
        .filter(|h| h.status == crate::fleet::HostStatus::Ok && h.run_file.is_some())
        .collect();
    (0..c.rows.len())
        .map(|i| {
            measured
                .get(i)
                .is_some_and(|h| !h.overlapped_with.is_empty())
        })
        .collect()
}

fn no_runs(c: &Comparison) -> String {
    let mut out = String::from("No host gave a complete Run: nothing to compare.\n");
    for n in &c.notes {
        out.push_str(&format!("  - {n}\n"));
    }
    out
}

/// `candor fleet: 3 hosts, 2 ok, 1 failed; one at a time; 15:04:05Z to 15:09:12Z`.
fn headline(s: &FleetSummary) -> String {
    use crate::fleet::HostStatus::*;
    let mut counts = vec![format!("{} ok", s.count(Ok))];
    for (st, word) in [
        (Failed, "failed"),
        (Interrupted, "interrupted"),
        (Skipped, "skipped"),
    ] {
        if s.count(st) > 0 {
            counts.push(format!("{} {word}", s.count(st)));
        }
    }
    let how = if s.parallel > 1 {
        format!("up to {} at once", s.parallel)
    } else {
        "one at a time".to_string()
    };
    format!(
        "candor fleet: {} host{}, {}; {how}; {} to {}{}",
        s.hosts.len(),
        if s.hosts.len() == 1 { "" } else { "s" },
        counts.join(", "),
        s.started_at,
        s.finished_at.as_deref().unwrap_or("(not finished)"),
        if s.interrupted { " (interrupted)" } else { "" }
    )
}

/// One row per host.
pub fn fleet_table(s: &FleetSummary) -> Table {
    let mut t = Table::new(
        [
            "host",
            "status",
            "arch",
            "connect",
            "upload",
            "run",
            "fetch",
            "cleanup",
            "clock offset",
            "cause / notes",
        ]
        .map(String::from)
        .to_vec(),
    );
    t.align[1] = Align::Left;
    t.align[2] = Align::Left;
    t.align[4] = Align::Left;
    t.align[9] = Align::Left;
    for h in &s.hosts {
        t.push(vec![
            h.name.clone(),
            h.status.as_str().to_string(),
            h.arch.clone().unwrap_or_else(|| "–".into()),
            phase(h, Phase::Connect),
            match (&h.upload, h.phase_ns(Phase::Upload)) {
                (Some(u), Some(ns)) => format!("{} {}", u.how, time(ns)),
                (None, Some(ns)) => format!("failed {}", time(ns)),
                _ => "–".into(),
            },
            phase(h, Phase::Run),
            phase(h, Phase::Fetch),
            phase(h, Phase::Cleanup),
            h.clock
                .map(|c| {
                    format!(
                        "{}{} ±{}",
                        if c.offset_ns < 0 { "-" } else { "+" },
                        crate::units::fmt_ns(c.offset_ns.unsigned_abs() as f64),
                        crate::units::fmt_ns(c.uncertainty_ns as f64)
                    )
                })
                .unwrap_or_else(|| "–".into()),
            remarks(h),
        ]);
    }
    t
}

fn phase(h: &HostRecord, p: Phase) -> String {
    h.phase_ns(p).map(time).unwrap_or_else(|| "–".into())
}

fn time(ns: u64) -> String {
    if ns < 60_000_000_000 {
        crate::units::fmt_ns(ns as f64)
    } else {
        crate::units::fmt_duration(std::time::Duration::from_nanos(ns))
    }
}

fn remarks(h: &HostRecord) -> String {
    let mut parts: Vec<String> = h.cause.iter().cloned().collect();
    if !h.overlapped_with.is_empty() {
        parts.push(format!("ran with {}", h.overlapped_with.join(", ")));
    }
    if !h.left_on_host.is_empty() {
        parts.push(format!("left on host: {}", h.left_on_host.join(", ")));
    }
    parts.join("; ")
}

/// What `candor fleet clean` did, one line per host and path left.
pub fn fleet_clean_text(done: &crate::fleet::clean::DirectoryCleaned) -> String {
    if done.hosts.is_empty() {
        return format!(
            "candor fleet clean: {} names nothing left on any host\n",
            done.path.display()
        );
    }
    let mut text = String::new();
    for h in &done.hosts {
        match &h.failed {
            Some(why) => text.push_str(&format!(
                "{}: not cleaned: {why}; still there: {}\n",
                h.host,
                h.named.join(", ")
            )),
            None => {
                if !h.removed.is_empty() {
                    text.push_str(&format!("{}: removed {}\n", h.host, h.removed.join(", ")));
                }
                for (p, why) in &h.left {
                    text.push_str(&format!("{}: {p} stays: {why}\n", h.host));
                }
            }
        }
    }
    text
}

#[cfg(test)]
mod tests {
    use super::Format;
    use clap::ValueEnum;

    /// The fleet writes a comparison file per report format, each named by
    /// the format's extension, and reads each name back as its format.
    #[test]
    fn a_comparison_file_per_format() {
        let names: Vec<String> = Format::value_variants()
            .iter()
            .map(|f| format!("compare.{}", f.extension()))
            .collect();
        assert_eq!(names, crate::fleet::directory::COMPARE_FILES);
        for f in Format::value_variants() {
            assert_eq!(Format::from_extension(f.extension()), Some(*f));
        }
    }
}
