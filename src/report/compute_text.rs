//! What the compute commands (`candor cpu`, `memory`, ...) print: a short
//! table per test, one row per thread count, then the test's notes.

use crate::compute::headline;
use crate::result::{ComputeMeasurement, Run};
use crate::units::{fmt_count, sig3};
use std::fmt::Write as _;

/// The compute measurements of a Run, a table per test.
pub fn compute_text(run: &Run) -> String {
    let kind = run.measurements.first().map_or("cpu", |m| m.kind());
    let measurements: Vec<ComputeMeasurement> = run.compute().cloned().collect();
    render_text(kind, &measurements)
}

/// The headline of a measurement as text with its unit.
pub fn fmt_headline(m: &ComputeMeasurement) -> String {
    if let Some(e) = m.events_per_sec {
        format!("{e:.2} events/s")
    } else if let (Some(o), Some(b)) = (m.ops_per_sec, m.bytes_per_sec) {
        format!("{} ops/s ({} MB/s)", fmt_rate(o), fmt_rate(b / 1e6))
    } else if let Some(b) = m.bytes_per_sec {
        format!(
            "{} MB/s ({} MiB/s)",
            fmt_rate(b / 1e6),
            fmt_rate(b / 1048576.0)
        )
    } else if let Some(o) = m.ops_per_sec {
        format!("{} ops/s", fmt_rate(o))
    } else {
        "-".to_string()
    }
}

/// A rate for people: thousands separators from 1000 up, three significant digits below.
fn fmt_rate(v: f64) -> String {
    if v.abs() >= 1000.0 {
        fmt_count(v)
    } else {
        sig3(v)
    }
}

/// A short table per test: one row per thread count, then the notes.
fn render_text(group: &str, measurements: &[ComputeMeasurement]) -> String {
    let mut out = String::new();
    let mut tests: Vec<&str> = Vec::new();
    for m in measurements {
        if !tests.contains(&m.spec.test.as_str()) {
            tests.push(&m.spec.test);
        }
    }
    for test in tests {
        let rows: Vec<&ComputeMeasurement> = measurements
            .iter()
            .filter(|m| m.spec.test == test)
            .collect();
        let params: Vec<String> = rows[0]
            .spec
            .params
            .iter()
            .filter(|(k, _)| k.as_str() != "library")
            .map(|(k, v)| format!("{k}={}", v.as_str().map_or(v.to_string(), str::to_string)))
            .collect();
        let _ = writeln!(out, "{group} {test}  [{}]", params.join(" "));
        let _ = writeln!(
            out,
            "  {:>7}  {:<34}  {:<24}  {:>5}  {:>5}  {:>6}",
            "threads", "result", "per thread (min..max)", "usr%", "sys%", "steal%"
        );
        for m in &rows {
            let per = match (
                m.per_thread.iter().copied().reduce(f64::min),
                m.per_thread.iter().copied().reduce(f64::max),
            ) {
                (Some(lo), Some(hi)) => {
                    let scale = if m.events_per_sec.is_some() || m.ops_per_sec.is_some() {
                        1.0
                    } else {
                        1e6
                    };
                    if m.per_thread.len() == 1 {
                        fmt_rate(lo / scale)
                    } else {
                        format!("{}..{}", fmt_rate(lo / scale), fmt_rate(hi / scale))
                    }
                }
                _ => "-".into(),
            };
            let _ = writeln!(
                out,
                "  {:>7}  {:<34}  {:<24}  {:>5.1}  {:>5.1}  {:>6.1}",
                m.spec.threads,
                fmt_headline(m),
                per,
                m.cpu.usr_pct,
                m.cpu.sys_pct,
                m.cpu.steal_pct
            );
        }
        let mut notes: Vec<&String> = Vec::new();
        for m in &rows {
            for n in &m.notes {
                if !notes.contains(&n) {
                    notes.push(n);
                }
            }
        }
        for n in notes {
            let _ = writeln!(out, "  - {n}");
        }
        out.push('\n');
    }
    if measurements.iter().all(|m| headline(m).is_none()) {
        out.push_str("(no measurements)\n");
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn headline_units() {
        let mut m = ComputeMeasurement {
            pass: None,
            started_at: None,
            spec: crate::result::ComputeSpec {
                test: "lzma-compress".into(),
                threads: 1,
                runtime_ns: 0,
                params: Default::default(),
            },
            events_per_sec: None,
            bytes_per_sec: Some(1_770_000.0),
            ops_per_sec: None,
            per_thread: vec![1_770_000.0],
            measured_ns: 1,
            cpu: Default::default(),
            notes: vec![],
        };
        assert_eq!(fmt_headline(&m), "1.77 MB/s (1.69 MiB/s)");
        m.bytes_per_sec = Some(36_637_000_000.0);
        assert_eq!(fmt_headline(&m), "36,637 MB/s (34,940 MiB/s)");
        m.bytes_per_sec = None;
        m.events_per_sec = Some(1622.78);
        assert_eq!(fmt_headline(&m), "1622.78 events/s");
    }
}
