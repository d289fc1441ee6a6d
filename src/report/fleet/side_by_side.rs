//! A fleet's comparison as text and Markdown, hosts side by side as
//! columns and a metric per row (how offers are compared), when the hosts
//! fit: `TEXT_HOSTS` in a terminal, `MD_HOSTS` in a forum post. More hosts
//! keep the comparison's own layout (a host per row, the metrics in
//! blocks). A figure measured while other hosts ran gets `‡`.

use super::super::compare::{Comparison, MARK_LEGEND};
use super::super::markdown::md;
use super::super::table::{Align, Table};
use super::super::Options;

/// Host columns in a terminal of about 100 characters.
pub const TEXT_HOSTS: usize = 5;
/// Host columns in a Markdown table (as the HTML's side-by-side table).
pub const MD_HOSTS: usize = super::html::SIDE_BY_SIDE;

const GROUPS: [(&str, &str); 4] = [
    ("disk", "Disk"),
    ("latency", "Latency"),
    ("compute", "Compute"),
    ("unixbench", "UnixBench index"),
];

/// The legend under the tables.
fn legend(overlapped: &[bool]) -> String {
    let mut l = MARK_LEGEND.to_string();
    if overlapped.iter().any(|o| *o) {
        l.push_str(
            "; ‡ measured while other hosts ran (--parallel): their load may be in these figures",
        );
    }
    l
}

/// One table per group: a metric per row, a host per column.
fn tables(
    c: &Comparison,
    overlapped: &[bool],
    o: &Options,
    escape: bool,
) -> Vec<(&'static str, Table)> {
    let esc = |s: &str| if escape { md(s) } else { s.to_string() };
    let mut out = Vec::new();
    for (group, title) in GROUPS {
        let cols = c.group(group);
        if cols.is_empty() {
            continue;
        }
        let mut headers = vec!["metric".to_string()];
        headers.extend(c.rows.iter().zip(overlapped).map(|(r, ovl)| {
            if *ovl {
                format!("{} ‡", esc(&r.name))
            } else {
                esc(&r.name)
            }
        }));
        let mut t = Table::new(headers);
        t.align[0] = Align::Left;
        for i in cols {
            let mut cells = vec![esc(&c.columns[i].name(o.unit))];
            for (r, ovl) in c.rows.iter().zip(overlapped) {
                let mut v = c.cell_text(r, i, o.unit);
                if *ovl && r.cells[i].is_some() {
                    v.push('‡');
                }
                cells.push(v);
            }
            t.push(cells);
        }
        out.push((title, t));
    }
    out
}

/// The comparison as text, hosts as columns.
pub fn text(c: &Comparison, overlapped: &[bool], o: &Options) -> String {
    let mut out = format!(
        "candor compare: {} run{}, a host per column\n",
        c.rows.len(),
        if c.rows.len() == 1 { "" } else { "s" }
    );
    for (title, t) in tables(c, overlapped, o, false) {
        out.push_str(&format!("\n{title}\n"));
        out.push_str(&t.to_text("  "));
    }
    out.push_str(&format!("  ({})\n", legend(overlapped)));
    out.push_str(&super::super::text::comparison_tail(c));
    out
}

/// The comparison as Markdown, hosts as columns.
pub fn markdown(c: &Comparison, overlapped: &[bool], o: &Options) -> String {
    let mut out = String::from("## candor compare\n");
    for (title, t) in tables(c, overlapped, o, true) {
        out.push_str(&format!("\n### {title}\n\n"));
        out.push_str(&t.to_markdown());
    }
    out.push_str(&format!("\n{}\n", md(&legend(overlapped))));
    out.push_str(&super::super::markdown::comparison_tail(c));
    out
}
