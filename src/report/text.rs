//! The terminal summary: the facts, the disk table (median over passes,
//! spread, main/control), the compute figures, the findings with evidence,
//! and what can and cannot be claimed. Also the compare table, split into
//! disk, latency and compute blocks so that it fits a terminal.

use super::compare::{Comparison, MARK_LEGEND};
use super::fmt;
use super::summary::{ordered_findings, DiskRow, Summary};
use super::table::{Align, Table};
use super::{Exporter, Options, RateUnit};
use crate::result::{FindingStatus, Run};

pub struct TextExporter;

/// The disk table shared by text and Markdown: one row per test and direction.
pub fn disk_table(summary: &Summary, unit: RateUnit) -> Table {
    let has_control = summary.disk.iter().any(|r| r.control.is_some())
        || summary.lone_control_rows().next().is_some();
    let mut headers: Vec<String> = [
        "test",
        "op",
        unit.label(),
        "IOPS",
        "p50",
        "p99",
        "p99.9",
        "spread",
    ]
    .iter()
    .map(|s| s.to_string())
    .collect();
    if has_control {
        headers.push(format!("control {}", unit.label()));
        headers.push("main/control".into());
    }
    let mut t = Table::new(headers);
    t.align[1] = Align::Left;
    let row = |r: &DiskRow, label: String| -> Vec<String> {
        let mut cells = vec![
            label,
            r.direction.as_str().to_string(),
            fmt::rate(r.bytes_per_sec.median, unit),
            fmt::iops(r.iops.median),
            fmt::latency(r.p50.median),
            fmt::latency(r.p99.median),
            fmt::latency(r.p99_9.median),
            fmt::spread(&r.bytes_per_sec),
        ];
        if has_control {
            match &r.control {
                Some((c, ratio)) => {
                    cells.push(fmt::rate(c.median, unit));
                    cells.push(fmt::ratio(*ratio));
                }
                None => {
                    cells.push("–".into());
                    cells.push("–".into());
                }
            }
        }
        cells
    };
    for r in summary.main_rows() {
        t.push(row(r, r.label.clone()));
    }
    for r in summary.lone_control_rows() {
        let mut cells = row(r, format!("{} (control only)", r.label));
        if has_control {
            let n = cells.len();
            cells[n - 2] = fmt::rate(r.bytes_per_sec.median, unit);
        }
        t.push(cells);
    }
    t
}

/// The compute table shared by text and Markdown.
pub fn compute_table(summary: &Summary, unit: RateUnit) -> Table {
    let mut t = Table::new(vec![
        "test".into(),
        "threads".into(),
        "figure".into(),
        "spread".into(),
        "scaling".into(),
    ]);
    for r in &summary.compute {
        t.push(vec![
            r.name(),
            r.threads.to_string(),
            fmt::compute_value(r, r.value.median, unit),
            fmt::spread(&r.value),
            r.scaling
                .map_or(String::new(), |s| format!("{s:.2}x of 1 thread")),
        ]);
    }
    t
}

/// The compute table of the terminal summary: a row per test, a figure
/// and its spread per thread count, the scaling of the most threads over
/// one (half the rows of `compute_table` for a battery).
fn compute_by_threads(summary: &Summary, unit: RateUnit) -> Table {
    let mut counts: Vec<u32> = summary.compute.iter().map(|r| r.threads).collect();
    counts.sort_unstable();
    counts.dedup();
    let mut tests: Vec<String> = Vec::new();
    for r in &summary.compute {
        if !tests.contains(&r.name()) {
            tests.push(r.name());
        }
    }
    let mut headers = vec!["test".to_string()];
    for &n in &counts {
        headers.push(format!("{n} thread{}", if n == 1 { "" } else { "s" }));
        headers.push("spread".into());
    }
    let scaling = summary.compute.iter().any(|r| r.scaling.is_some());
    if scaling {
        headers.push("vs 1 thread".into());
    }
    let mut t = Table::new(headers);
    for test in tests {
        let rows: Vec<&super::summary::ComputeRow> = summary
            .compute
            .iter()
            .filter(|r| r.name() == test)
            .collect();
        let mut cells = vec![test];
        for &n in &counts {
            match rows.iter().find(|r| r.threads == n) {
                Some(r) => {
                    cells.push(fmt::compute_value(r, r.value.median, unit));
                    cells.push(fmt::spread(&r.value));
                }
                None => cells.extend(["–".to_string(), "–".to_string()]),
            }
        }
        if scaling {
            cells.push(
                rows.iter()
                    .rev()
                    .find_map(|r| r.scaling)
                    .map_or(String::new(), |s| format!("{s:.2}x")),
            );
        }
        t.push(cells);
    }
    t
}

impl Exporter for TextExporter {
    /// The summary a person reads first: the facts, the disk and compute
    /// tables, the block stack only where a layer did something, each
    /// finding's verdict on one line (most severe first), the claims and the
    /// Run's own notes; with `verbose`, also each finding's evidence, the
    /// block stack of every measurement and every note.
    fn run(&self, run: &Run, options: &Options) -> String {
        let unit = options.unit;
        let verbose = options.verbose;
        let s = Summary::of(run);
        let mut hidden: Vec<String> = Vec::new();
        let mut out = format!("candor report: {}\n", run.display_name());
        for (name, value) in fmt::facts(run, &s) {
            out.push_str(&format!("  {name:<9} {value}\n"));
        }
        if !s.disk.is_empty() {
            out.push_str(&format!(
                "\nDisk ({} = {} bytes/s; latency = submission to completion)\n",
                unit.label(),
                if unit == RateUnit::Mb { "10^6" } else { "2^20" }
            ));
            out.push_str(&disk_table(&s, unit).to_text("  "));
            let threads = thread_lines(run, &s);
            if !threads.is_empty() {
                out.push_str("\nThreads (IOPS per thread)\n");
                for t in threads {
                    out.push_str(&format!("  {t}\n"));
                }
            }
            out.push_str(&stack_summary(run, verbose, &mut hidden));
            out.push_str(&fio_lines(run));
        }
        if !s.compute.is_empty() {
            out.push_str("\nCompute\n");
            let table = if verbose {
                compute_table(&s, unit)
            } else {
                compute_by_threads(&s, unit)
            };
            out.push_str(&table.to_text("  "));
        }
        if let Some(table) = super::unixbench_text::index_table(run) {
            out.push_str("\nUnixBench index\n");
            out.push_str(&table.to_text("  "));
        }
        out.push_str(&findings_section(run, verbose, &mut hidden));
        let (can, mut cannot) = fmt::claims(run);
        if !verbose {
            // The checks not made are named under Findings; why, with --verbose.
            let all = cannot.len();
            cannot.retain(|c| !c.starts_with(crate::findings::NOT_CHECKED_CLAIM));
            if cannot.len() < all {
                let n = all - cannot.len();
                hidden.push(format!(
                    "why {n} check{} could not be made",
                    if n == 1 { "" } else { "s" }
                ));
            }
        }
        for (title, lines) in [
            ("What can be claimed", can),
            ("What cannot be claimed", cannot),
        ] {
            if !lines.is_empty() {
                out.push_str(&format!("\n{title}\n"));
                for c in lines {
                    out.push_str(&format!("  - {c}\n"));
                }
            }
        }
        let notes = all_notes(run);
        let shown: Vec<&String> = if verbose {
            notes.iter().collect()
        } else {
            notes.iter().take(own_notes(run).len()).collect()
        };
        if !shown.is_empty() {
            out.push_str("\nNotes\n");
            for n in &shown {
                out.push_str(&format!("  - {n}\n"));
            }
        }
        if shown.len() < notes.len() {
            let n = notes.len() - shown.len();
            hidden.push(format!(
                "{n} note{} on what the figures are",
                if n == 1 { "" } else { "s" }
            ));
        }
        if s.disk.is_empty() && s.compute.is_empty() {
            out.push_str("\n(no measurements in this Run)\n");
        }
        if !hidden.is_empty() {
            out.push_str(&format!(
                "\nLeft out here: {}: --verbose shows them (as do --format md, html and json).\n",
                hidden.join(", ")
            ));
        }
        out
    }

    fn compare(&self, c: &Comparison, options: &Options) -> String {
        let unit = options.unit;
        let mut out = format!(
            "candor compare: {} run{}{}\n",
            c.rows.len(),
            if c.rows.len() == 1 { "" } else { "s" },
            c.sorted_by
                .as_ref()
                .map_or(String::new(), |k| format!(", sorted by {k} (best first)"))
        );
        for (group, title) in [
            ("disk", "Disk"),
            ("latency", "Latency"),
            ("compute", "Compute"),
            ("unixbench", "UnixBench index"),
        ] {
            let cols = c.group(group);
            if cols.is_empty() {
                continue;
            }
            // At most six figure columns per table, so that a table fits a terminal.
            let chunks: Vec<&[usize]> = cols.chunks(6).collect();
            for (k, chunk) in chunks.iter().enumerate() {
                let mut headers = vec!["host".to_string()];
                headers.extend(chunk.iter().map(|&i| c.columns[i].header(unit)));
                let mut t = Table::new(headers);
                for row in &c.rows {
                    let mut cells = vec![row.name.clone()];
                    cells.extend(chunk.iter().map(|&i| c.cell_text(row, i, unit)));
                    t.push(cells);
                }
                if chunks.len() > 1 {
                    out.push_str(&format!("\n{title} ({}/{})\n", k + 1, chunks.len()));
                } else {
                    out.push_str(&format!("\n{title}\n"));
                }
                out.push_str(&t.to_text("  "));
            }
        }
        out.push_str(&format!("  ({MARK_LEGEND})\n"));
        out.push_str(&comparison_tail(c));
        out
    }
}

/// The block stack: every measurement's when `verbose`, else only those
/// where a layer did something (`stack::notable`), or one line saying
/// that none did.
fn stack_summary(run: &Run, verbose: bool, hidden: &mut Vec<String>) -> String {
    use super::stack;
    let rows = stack::rows(run);
    if rows.is_empty() || verbose {
        return stack_section(stack::table(&[(None, &rows[..])]));
    }
    let all = stack::measurements(&rows);
    let notable = stack::notable(&rows);
    let shown = stack::measurements(&notable);
    if shown < all {
        hidden.push(format!(
            "the block stack of {} measurement{}",
            all - shown,
            if all - shown == 1 { "" } else { "s" }
        ));
    }
    if notable.is_empty() {
        return format!(
            "\n{}: every layer passed the tool's I/O on in all {all} measurement{} (none moved more or fewer bytes than the tool issued by over 10 % of them and 1 MiB, none carried over 1 % others' bytes)\n",
            stack::TITLE,
            if all == 1 { "" } else { "s" }
        );
    }
    let table = stack::table(&[(None, &notable[..])]).expect("notable rows");
    format!(
        "\n{}\n{}  ({shown} of {all} measurements: the first pass of each test where {}; not the tool's: share of the filesystem's device's bytes the tool did not issue)\n",
        stack::TITLE,
        table.to_text("  "),
        stack::NOTABLE_RULE
    )
}

/// A job file's timeline with fio's command for each job, or a single
/// job's fio command (a battery's are in the HTML).
fn fio_lines(run: &Run) -> String {
    let mut out = String::new();
    let jobs = fmt::job_lines(run);
    let commands = super::summary::fio_commands(run);
    if !jobs.is_empty() {
        out.push_str("\nJobs (seconds from the first job's start)\n");
        for j in jobs {
            out.push_str(&format!("  {j}\n"));
        }
        out.push_str("\nReproduce with fio (each job alone; the whole file: fio FILE):\n");
        for (label, cmd) in commands {
            out.push_str(&format!("  {label}: {cmd}\n"));
        }
    } else if commands.len() == 1 {
        out.push_str(&format!("\nReproduce with fio:\n  {}\n", commands[0].1));
    }
    out
}

/// The findings, most severe first: each verdict on one line; with
/// `verbose` its evidence, meaning and what it does not prove under it.
fn findings_section(run: &Run, verbose: bool, hidden: &mut Vec<String>) -> String {
    let findings = ordered_findings(run);
    if findings.is_empty() {
        return String::new();
    }
    let mut out = String::from("\nFindings\n");
    let mut not_checked = Vec::new();
    let mut with_evidence = 0;
    for f in findings {
        if f.status == FindingStatus::NotChecked {
            not_checked.push(f.id.clone());
            continue;
        }
        out.push_str(&format!(
            "  {:<8} {}\n",
            fmt::severity(f.severity).to_uppercase(),
            fmt::finding_head(f)
        ));
        let ev = fmt::evidence(&f.evidence);
        if !ev.is_empty() {
            with_evidence += 1;
        }
        if !verbose {
            continue;
        }
        if !ev.is_empty() {
            out.push_str(&format!("           evidence: {ev}\n"));
        }
        if !f.meaning.is_empty() {
            out.push_str(&format!("           means: {}\n", f.meaning));
        }
        if !f.not_proven.is_empty() {
            out.push_str(&format!("           does not prove: {}\n", f.not_proven));
        }
    }
    if !not_checked.is_empty() {
        out.push_str(&format!(
            "  not checked (evidence missing): {}\n",
            not_checked.join(", ")
        ));
    }
    if !verbose && with_evidence > 0 {
        hidden.push(format!(
            "the evidence of {with_evidence} finding{}",
            if with_evidence == 1 { "" } else { "s" }
        ));
    }
    out
}

/// The block stack's table under its heading, with its legend (nothing
/// without one): a Run's report and a comparison's.
fn stack_section(table: Option<Table>) -> String {
    match table {
        Some(t) => format!(
            "\n{}\n{}  ({})\n",
            super::stack::TITLE,
            t.to_text("  "),
            super::stack::LEGEND
        ),
        None => String::new(),
    }
}

/// A comparison's block stack, findings across hosts and notes, as text: the same
/// under every comparison's table (hosts as rows or as columns).
pub fn comparison_tail(c: &Comparison) -> String {
    let mut out = stack_section(c.stack_table());
    let lines = c.finding_lines();
    if !lines.is_empty() {
        out.push_str("\nFindings\n");
        for (host, line) in lines {
            out.push_str(&format!("  {host}: {line}\n"));
        }
    }
    if !c.notes.is_empty() {
        out.push_str("\nNotes\n");
        for n in &c.notes {
            out.push_str(&format!("  - {n}\n"));
        }
    }
    out
}

/// The Run's notes and each measurement's notes (labelled), without repeats:
/// `own_notes`, then what each compute figure is and is not.
pub fn all_notes(run: &Run) -> Vec<String> {
    let mut notes = own_notes(run);
    // What a compute figure is and is not ("CPU cache, NOT RAM"): one line
    // per distinct sentence, naming every test it applies to. The scaling
    // notes are left out: the compute table has a scaling column.
    let mut grouped: Vec<(&str, &str, Vec<&str>)> = Vec::new();
    let mut group_of: std::collections::HashMap<(&str, &str), usize> =
        std::collections::HashMap::new();
    for m in &run.measurements {
        let Some(c) = m.as_compute() else { continue };
        for n in c.notes.iter().filter(|n| !n.starts_with("scaling: ")) {
            let test = c.spec.test.as_str();
            match group_of.get(&(m.kind(), n.as_str())) {
                Some(&i) if !grouped[i].2.contains(&test) => grouped[i].2.push(test),
                Some(_) => {}
                None => {
                    group_of.insert((m.kind(), n.as_str()), grouped.len());
                    grouped.push((m.kind(), n, vec![test]));
                }
            }
        }
    }
    for (kind, note, tests) in grouped {
        let n = format!("{kind} {}: {note}", tests.join(", "));
        if !notes.contains(&n) {
            notes.push(n);
        }
    }
    notes
}

/// The Run's own notes and its disk measurements' (labelled), without
/// repeats: what the terminal summary keeps.
fn own_notes(run: &Run) -> Vec<String> {
    // A set beside the list: a Run of 30,000 imported jobs has as many
    // notes, and a search of the list for each took minutes.
    let mut notes: Vec<String> = Vec::new();
    let mut seen: std::collections::HashSet<String> = std::collections::HashSet::new();
    let mut push = |n: String| {
        if seen.insert(n.clone()) {
            notes.push(n);
        }
    };
    for n in &run.notes {
        push(n.clone());
    }
    for d in run.disk() {
        // A stop asked for: the report is not printed (`write_text`).
        if crate::cancel::cancelled() {
            break;
        }
        for n in &d.notes {
            push(format!("{}: {n}", d.label()));
        }
    }
    notes
}

/// One line per pass of each multi-thread test: how evenly the threads worked.
pub fn thread_lines(run: &Run, summary: &Summary) -> Vec<String> {
    let mut out = Vec::new();
    for r in &summary.disk {
        for (pass, iops) in super::summary::thread_iops(run, r) {
            let pass = pass.map_or(String::new(), |p| format!(" pass {p}"));
            out.push(format!("{}{pass}: {}", r.name(), fmt::threads_line(&iops)));
        }
    }
    out
}
