//! Markdown: the same tables as the terminal summary, as GitHub-flavoured
//! tables that paste cleanly into a forum post or a README.

use super::compare::{Comparison, MARK_LEGEND};
use super::fmt;
use super::summary::{ordered_findings, Summary};
use super::table::Table;
use super::text::{all_notes, compute_table, disk_table};
use super::{Exporter, Options};
use crate::result::{FindingStatus, Run};

pub struct MarkdownExporter;

/// Text from a Run, safe inside Markdown prose (no accidental markup or HTML).
/// Escaping is kept to what can start markup, so that pasted text stays readable.
pub(super) fn md(text: &str) -> String {
    let chars: Vec<char> = text.chars().collect();
    let mut out = String::with_capacity(text.len());
    for (i, &c) in chars.iter().enumerate() {
        // An underscore inside a word (`read_iops`) is plain text in
        // CommonMark; only one at a word's edge could start emphasis.
        let inside_word = |i: usize| {
            i > 0
                && i + 1 < chars.len()
                && chars[i - 1].is_alphanumeric()
                && chars[i + 1].is_alphanumeric()
        };
        match c {
            '_' if inside_word(i) => out.push(c),
            '\\' | '`' | '*' | '_' | '[' | ']' | '<' | '>' | '|' | '#' | '~' => {
                out.push('\\');
                out.push(c);
            }
            '\n' => out.push(' '),
            _ => out.push(c),
        }
    }
    out
}

impl Exporter for MarkdownExporter {
    fn run(&self, run: &Run, options: &Options) -> String {
        let unit = options.unit;
        let s = Summary::of(run);
        let mut out = format!("## candor report: {}\n\n", md(&run.display_name()));
        for (name, value) in fmt::facts(run, &s) {
            out.push_str(&format!("- **{name}**: {}\n", md(&value)));
        }
        if !s.disk.is_empty() {
            out.push_str(&format!(
                "\n### Disk\n\n{} = {} bytes/s; latency runs from submission to completion; spread is max/min over passes.\n\n",
                unit.label(),
                if unit == super::RateUnit::Mb { "10^6" } else { "2^20" }
            ));
            out.push_str(&escape_cells(disk_table(&s, unit)).to_markdown());
            let threads = super::text::thread_lines(run, &s);
            if !threads.is_empty() {
                out.push_str("\nIOPS per thread:\n\n");
                for t in threads {
                    out.push_str(&format!("- {}\n", md(&t)));
                }
            }
            out.push_str(&stack_section(super::stack::run_table(run)));
            let jobs = fmt::job_lines(run);
            if !jobs.is_empty() {
                out.push_str("\nJobs (seconds from the first job's start):\n\n");
                for j in jobs {
                    out.push_str(&format!("- {}\n", md(&j)));
                }
            }
        }
        if !s.compute.is_empty() {
            out.push_str("\n### Compute\n\n");
            out.push_str(&escape_cells(compute_table(&s, unit)).to_markdown());
        }
        if let Some(table) = super::unixbench_text::index_table(run) {
            // Each test's score and index per copy count, then the System Benchmarks Index.
            out.push_str("\n### UnixBench index\n\n");
            out.push_str(&escape_cells(table).to_markdown());
            out.push_str("\nIndex: score / baseline (UnixBench's SPARCstation 20-61) x 10; the System Benchmarks Index is the geometric mean of the tests' indexes.\n");
        }
        let findings = ordered_findings(run);
        if !findings.is_empty() {
            out.push_str("\n### Findings\n\n");
            for f in &findings {
                if f.status == FindingStatus::NotChecked {
                    continue;
                }
                out.push_str(&format!(
                    "- **{}** {}\n",
                    fmt::severity(f.severity),
                    md(&fmt::finding_head(f))
                ));
                let ev = fmt::evidence(&f.evidence);
                if !ev.is_empty() {
                    out.push_str(&format!("  - evidence: {}\n", md(&ev)));
                }
                if !f.meaning.is_empty() {
                    out.push_str(&format!("  - means: {}\n", md(&f.meaning)));
                }
                if !f.not_proven.is_empty() {
                    out.push_str(&format!("  - does not prove: {}\n", md(&f.not_proven)));
                }
            }
            let nc: Vec<String> = findings
                .iter()
                .filter(|f| f.status == FindingStatus::NotChecked)
                .map(|f| md(&f.id))
                .collect();
            if !nc.is_empty() {
                out.push_str(&format!(
                    "- not checked (evidence missing): {}\n",
                    nc.join(", ")
                ));
            }
        }
        let (can, cannot) = fmt::claims(run);
        for (title, list) in [
            ("What can be claimed", can),
            ("What cannot be claimed", cannot),
        ] {
            if !list.is_empty() {
                out.push_str(&format!("\n### {title}\n\n"));
                for c in list {
                    out.push_str(&format!("- {}\n", md(&c)));
                }
            }
        }
        let notes = all_notes(run);
        if !notes.is_empty() {
            out.push_str("\n### Notes\n\n");
            for n in notes {
                out.push_str(&format!("- {}\n", md(&n)));
            }
        }
        out
    }

    fn compare(&self, c: &Comparison, options: &Options) -> String {
        let unit = options.unit;
        let mut headers = vec!["host".to_string()];
        headers.extend(c.columns.iter().map(|col| md(&col.name(unit))));
        let mut t = Table::new(headers);
        for row in &c.rows {
            let mut cells = vec![md(&row.name)];
            cells.extend((0..c.columns.len()).map(|i| c.cell_text(row, i, unit)));
            t.push(cells);
        }
        let mut out = String::from("## candor compare\n\n");
        if let Some(k) = &c.sorted_by {
            out.push_str(&format!("Sorted by {} (best first).\n\n", md(k)));
        }
        out.push_str(&t.to_markdown());
        out.push_str(&format!("\n{}\n", md(MARK_LEGEND)));
        out.push_str(&comparison_tail(c));
        out
    }
}

/// A comparison's block stack, findings across hosts and notes, in Markdown: the
/// same under every comparison's table (hosts as rows or as columns).
pub fn comparison_tail(c: &Comparison) -> String {
    let mut out = stack_section(c.stack_table());
    let lines = c.finding_lines();
    if !lines.is_empty() {
        out.push_str("\n### Findings\n\n");
        for (host, line) in lines {
            out.push_str(&format!("- **{}**: {}\n", md(&host), md(&line)));
        }
    }
    if !c.notes.is_empty() {
        out.push_str("\n### Notes\n\n");
        for n in &c.notes {
            out.push_str(&format!("- {}\n", md(n)));
        }
    }
    out
}

/// The block stack's table under its heading, with its legend (nothing without one).
fn stack_section(table: Option<Table>) -> String {
    match table {
        Some(t) => format!(
            "\n### {}\n\n{}\n{}\n",
            super::stack::TITLE,
            escape_cells(t).to_markdown(),
            md(super::stack::LEGEND)
        ),
        None => String::new(),
    }
}

/// Escapes Markdown in a table's cells (the table escapes `|` itself).
pub(super) fn escape_cells(mut t: Table) -> Table {
    for row in &mut t.rows {
        for cell in row.iter_mut() {
            *cell = md(cell).replace("\\|", "|");
        }
    }
    t
}

#[cfg(test)]
mod tests {
    use super::md;

    #[test]
    fn escapes_only_what_starts_markup() {
        assert_eq!(md("read_iops=649"), "read_iops=649");
        assert_eq!(md("_x_ *y*"), "\\_x\\_ \\*y\\*");
        assert_eq!(
            md("<script>alert(1)</script>"),
            "\\<script\\>alert(1)\\</script\\>"
        );
        assert_eq!(md("a|b\nc"), "a\\|b c");
    }
}
