//! What `candor unixbench` prints: UnixBench's two blocks (1 copy, N
//! copies), each test's score, baseline and index, the System Benchmarks
//! Index, the tests not run and why, then the findings.

use crate::compute::unixbench::{self, TESTS};
use crate::result::{ComputeMeasurement, Run};
use std::fmt::Write as _;

/// The Run's UnixBench measurements and their copy counts, in order.
fn measurements(run: &Run) -> (Vec<&ComputeMeasurement>, Vec<u32>) {
    let ms: Vec<&ComputeMeasurement> = run
        .measurements
        .iter()
        .filter(|m| m.kind() == "unixbench")
        .filter_map(|m| m.as_compute())
        .collect();
    let mut copies: Vec<u32> = ms.iter().map(|m| m.spec.threads).collect();
    copies.sort_unstable();
    copies.dedup();
    (ms, copies)
}

pub fn unixbench_text(run: &Run) -> String {
    let (ms, copies) = measurements(run);
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
    if let Some(not_run) = run
        .plan
        .as_ref()
        .and_then(|p| p.get("not_run"))
        .and_then(|n| n.as_array())
        .filter(|n| !n.is_empty())
    {
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
    out.push_str("copies run as threads of one candor process; UnixBench runs them as processes\n");
    if !run.findings.is_empty() {
        out.push('\n');
        crate::report::findings_text(&mut out, &run.findings);
    }
    out
}

/// One line per copy count with UnixBench's index, for the general reports
/// (`candor report`, Markdown): `1 copy: 368.3 (partial: 2 of 12 index
/// tests, not comparable with a full index)`. None without UnixBench tests.
pub fn index_lines(run: &Run) -> Vec<String> {
    let (ms, copies) = measurements(run);
    copies
        .into_iter()
        .filter_map(|c| {
            let index = unixbench::index_of(&ms, c)?;
            let n = ms.iter().filter(|m| m.spec.threads == c).count();
            let plural = if c == 1 { "copy" } else { "copies" };
            Some(if n == TESTS.len() {
                format!("{c} {plural}: System Benchmarks Index Score {index:.1}")
            } else {
                format!(
                    "{c} {plural}: partial index {index:.1} ({n} of UnixBench's {} index tests: not comparable with a full index)",
                    TESTS.len()
                )
            })
        })
        .collect()
}
