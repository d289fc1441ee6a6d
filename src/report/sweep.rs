//! What `candor sweep` prints: the points as a table, the caps it infers
//! in words, and the findings.

use crate::result::{DiskMeasurement, Finding, Run};
use crate::units::{block_label, fmt_count, fmt_ns, sig3};
use std::fmt::Write as _;

/// The points, the notes, the caps, the findings.
pub fn sweep_text(run: &Run) -> String {
    let jobs: Vec<&DiskMeasurement> = run.disk().collect();
    let mut out = table(&jobs);
    for n in &run.notes {
        let _ = writeln!(out, "note: {n}");
    }
    out.push('\n');
    out.push_str(&caps_text(&run.findings));
    out.push('\n');
    super::findings_text::findings_text(&mut out, &run.findings);
    out
}

/// The points as a table: pattern, block size, depth, IOPS, MB/s, MiB/s, p50, p99.
pub fn table(measurements: &[&DiskMeasurement]) -> String {
    let mut out = String::new();
    let _ = writeln!(
        out,
        "{:<10} {:>5} {:>4} {:>10} {:>9} {:>9} {:>9} {:>9}",
        "rw", "bs", "QD", "IOPS", "MB/s", "MiB/s", "p50", "p99"
    );
    for m in measurements {
        for s in [&m.read, &m.write].into_iter().flatten() {
            let _ = writeln!(
                out,
                "{:<10} {:>5} {:>4} {:>10} {:>9} {:>9} {:>9} {:>9}",
                m.spec.rw,
                block_label(m.spec.bs),
                m.spec.iodepth,
                fmt_count(s.iops),
                sig3(s.bytes_per_sec / 1e6),
                sig3(s.bytes_per_sec / 1048576.0),
                fmt_ns(s.lat_ns.p50 as f64),
                fmt_ns(s.lat_ns.p99 as f64),
            );
        }
    }
    out
}

/// The caps in words, from the `caps` finding's evidence.
pub fn caps_text(findings: &[Finding]) -> String {
    let mut out = String::new();
    let Some(c) = findings.iter().find(|f| f.id == "caps") else {
        return "caps: not inferred\n".into();
    };
    let _ = writeln!(out, "Caps: {}", c.verdict);
    let e = &c.evidence;
    for (key, points, unit) in [
        ("read_iops", "read_iops_points", "IOPS"),
        ("write_iops", "write_iops_points", "IOPS"),
        ("read_bytes_per_sec", "read_bytes_points", "B/s"),
        ("write_bytes_per_sec", "write_bytes_points", "B/s"),
    ] {
        let value = match e[key].as_f64() {
            Some(v) if unit == "IOPS" => format!("{} IOPS", fmt_count(v)),
            Some(v) => format!("{} MB/s ({} MiB/s)", sig3(v / 1e6), sig3(v / 1048576.0)),
            None => "none evident".into(),
        };
        let support: Vec<String> = e[points]
            .as_array()
            .into_iter()
            .flatten()
            .map(|p| {
                format!(
                    "{} {} QD{}",
                    p["rw"].as_str().unwrap_or(""),
                    block_label(p["bs"].as_u64().unwrap_or(0)),
                    p["iodepth"]
                )
            })
            .collect();
        let ceiling = e[format!("{}_ceiling", key.trim_end_matches("_per_sec"))]
            .as_f64()
            .map(|v| {
                if unit == "IOPS" {
                    format!(" (ceiling at one depth only: {} IOPS)", fmt_count(v))
                } else {
                    format!(" (ceiling at one depth only: {} MB/s)", sig3(v / 1e6))
                }
            })
            .unwrap_or_default();
        let _ = write!(out, "  {key:<20} {value}{ceiling}");
        if !support.is_empty() {
            let _ = write!(out, "  (from {})", support.join(", "));
        }
        out.push('\n');
    }
    out
}
