//! What `candor unixbench` prints: UnixBench's two blocks (1 copy, N
//! copies), each test's score, baseline and index, the System Benchmarks
//! Index, the tests not run and why, then the findings. `index_table` is
//! the same figures as one table (a column pair per copy count) for the
//! Markdown and HTML reports.

use super::table::Table;
use crate::compute::unixbench::{self, TESTS};
use crate::result::Run;
use std::fmt::Write as _;

pub fn unixbench_text(run: &Run) -> String {
    let (ms, copies) = crate::compute::unixbench::measurements_of(run);
    let mut out = String::new();
    for &c in &copies {
        let plural = if c == 1 { "copy" } else { "copies" };
        let _ = writeln!(out, "UnixBench System Benchmarks, {c} parallel {plural}");
        let _ = writeln!(
            out,
            "{:<44} {:>14} {:>10} {:>8}",
            "test", "score", "baseline", "index"
        );
        for t in &TESTS {
            let Some(m) = ms
                .iter()
                .find(|m| m.spec.threads == c && m.spec.test == t.name)
            else {
                continue;
            };
            if let Some((score, unit, index)) = unixbench::score_of(m) {
                let _ = writeln!(
                    out,
                    "{:<44} {:>9.1} {:<4} {:>10.1} {:>8.1}",
                    t.title, score, unit, t.baseline, index
                );
            }
        }
        let n = ms.iter().filter(|m| m.spec.threads == c).count();
        match unixbench::index_of(&ms, c) {
            Some(i) if n == TESTS.len() => {
                let _ = writeln!(out, "{:<44} {:>34.1}", "System Benchmarks Index Score", i);
            }
            Some(i) => {
                let _ = writeln!(
                    out,
                    "{:<44} {:>34.1}\n  (of {n} of UnixBench's {} index tests: not comparable with a full UnixBench index)",
                    "Partial index score", i, TESTS.len()
                );
            }
            None => {}
        }
        out.push('\n');
    }
    if let Some(not_run) = crate::compute::unixbench::not_run_of(run).filter(|n| !n.is_empty()) {
        out.push_str("not run:\n");
        for n in not_run {
            let _ = writeln!(
                out,
                "  {}: {}",
                n.get("test").and_then(|t| t.as_str()).unwrap_or("?"),
                n.get("cause").and_then(|t| t.as_str()).unwrap_or("?")
            );
        }
        out.push('\n');
    }
    // Runs of candor before its copies became processes say so in their notes.
    let threads = crate::compute::unixbench::measurements_of(run)
        .0
        .iter()
        .any(|m| {
            m.notes
                .iter()
                .any(|n| n.contains("copies are threads of one candor process"))
        });
    if threads {
        out.push_str(
            "copies ran as threads of one candor process; UnixBench runs them as processes\n",
        );
    }
    if !run.findings.is_empty() {
        if !out.ends_with("\n\n") {
            out.push('\n');
        }
        crate::report::findings_text(&mut out, &run.findings);
    }
    out
}

/// "1 copy", "2 copies".
fn copies_label(c: u32) -> String {
    if c == 1 {
        "1 copy".into()
    } else {
        format!("{c} copies")
    }
}

/// Each UnixBench test of the Run with its score and index per copy count
/// (`1 copy\nscore`, `1 copy\nindex`, ...), then the System Benchmarks
/// Index (named a partial index, with how many tests, when tests are
/// missing). None without UnixBench tests.
pub fn index_table(run: &Run) -> Option<Table> {
    let (ms, copies) = crate::compute::unixbench::measurements_of(run);
    if ms.is_empty() {
        return None;
    }
    let mut headers = vec!["test".to_string(), "unit".to_string()];
    for &c in &copies {
        headers.push(format!("{}\nscore", copies_label(c)));
        headers.push(format!("{}\nindex", copies_label(c)));
    }
    let mut t = Table::new(headers);
    t.align[1] = super::table::Align::Left;
    for test in &TESTS {
        let cells: Vec<Option<(f64, f64)>> = copies
            .iter()
            .map(|&c| {
                ms.iter()
                    .find(|m| m.spec.threads == c && m.spec.test == test.name)
                    .and_then(|m| unixbench::score_of(m))
                    .map(|(score, _, index)| (score, index))
            })
            .collect();
        if cells.iter().all(Option::is_none) {
            continue;
        }
        let mut row = vec![test.title.to_string(), test.unit.label().to_string()];
        for cell in cells {
            match cell {
                Some((score, index)) => {
                    row.push(format!("{score:.1}"));
                    row.push(format!("{index:.1}"));
                }
                None => row.extend(["–".to_string(), "–".to_string()]),
            }
        }
        t.push(row);
    }
    let counts: Vec<usize> = copies
        .iter()
        .map(|&c| ms.iter().filter(|m| m.spec.threads == c).count())
        .collect();
    let full = counts.iter().all(|&n| n == TESTS.len());
    let mut row = vec![
        if full {
            "System Benchmarks Index Score".to_string()
        } else {
            "Partial index (not comparable with a full index)".to_string()
        },
        String::new(),
    ];
    for (&c, &n) in copies.iter().zip(&counts) {
        row.push(if n == TESTS.len() {
            String::new()
        } else {
            format!("{n} of {}", TESTS.len())
        });
        row.push(unixbench::index_of(&ms, c).map_or("–".to_string(), |i| format!("{i:.1}")));
    }
    t.push(row);
    Some(t)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::findings::synth;

    #[test]
    fn the_table_has_every_test_and_the_index_per_copy_count() {
        let mut run = Run::of_this_process();
        assert!(index_table(&run).is_none());
        for t in &TESTS {
            run.measurements.push(synth::unixbench(t.name, 1, 100.0));
            run.measurements.push(synth::unixbench(t.name, 2, 400.0));
        }
        let t = index_table(&run).unwrap();
        assert_eq!(t.headers.len(), 6);
        assert_eq!(t.headers[4], "2 copies\nscore");
        assert_eq!(t.rows.len(), TESTS.len() + 1);
        assert_eq!(t.rows[0][0], "Dhrystone 2 using register variables");
        assert_eq!(t.rows[0][2], "1167000.0", "score = index x baseline / 10");
        let last = t.rows.last().unwrap();
        assert_eq!(last[0], "System Benchmarks Index Score");
        assert_eq!((last[3].as_str(), last[5].as_str()), ("100.0", "400.0"));
    }

    #[test]
    fn a_missing_test_makes_a_partial_index() {
        let mut run = Run::of_this_process();
        run.measurements.push(synth::unixbench("pipe", 1, 10.0));
        run.measurements
            .push(synth::unixbench("syscall", 1, 1000.0));
        let t = index_table(&run).unwrap();
        assert_eq!(t.rows.len(), 3);
        let last = t.rows.last().unwrap();
        assert!(last[0].starts_with("Partial index"), "{last:?}");
        assert_eq!((last[2].as_str(), last[3].as_str()), ("2 of 12", "100.0"));
        assert!(unixbench_text(&run).contains("Partial index score"));
    }
}
