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

/// The caps in words, from the `caps` finding's evidence: each direction
/// and quantity with its plateau (cap or ceiling), the points on it and why.
pub fn caps_text(findings: &[Finding]) -> String {
    let mut out = String::new();
    let Some(c) = findings.iter().find(|f| f.id == "caps") else {
        return "caps: not inferred\n".into();
    };
    let _ = writeln!(out, "Caps: {}", c.verdict);
    let e = &c.evidence;
    for (key, plateau, iops) in [
        ("read IOPS", "read_iops_plateau", true),
        ("write IOPS", "write_iops_plateau", true),
        ("read bandwidth", "read_bytes_plateau", false),
        ("write bandwidth", "write_bytes_plateau", false),
    ] {
        let p = &e[plateau];
        let Some(level) = p["level"].as_f64() else {
            // Runs analysed before plateaus were kept name only the figures.
            let (cap, ceiling) = old_caps_keys(plateau);
            let old = e[cap]
                .as_f64()
                .map(|v| ("cap", v))
                .or_else(|| e[ceiling].as_f64().map(|v| ("ceiling", v)));
            match old {
                Some((kind, v)) => {
                    let value = if iops {
                        format!("{} IOPS", fmt_count(v))
                    } else {
                        format!("{} MB/s ({} MiB/s)", sig3(v / 1e6), sig3(v / 1048576.0))
                    };
                    let _ = writeln!(out, "  {key:<16} {kind} {value}");
                }
                None => {
                    let _ = writeln!(out, "  {key:<16} no plateau");
                }
            }
            continue;
        };
        let value = if iops {
            format!("{} IOPS", fmt_count(level))
        } else {
            format!(
                "{} MB/s ({} MiB/s)",
                sig3(level / 1e6),
                sig3(level / 1048576.0)
            )
        };
        let kind = p["kind"].as_str().unwrap_or("ceiling");
        let support: Vec<String> = p["points"]
            .as_array()
            .into_iter()
            .flatten()
            .map(|q| {
                let jobs = q["numjobs"].as_u64().unwrap_or(1);
                format!(
                    "{} {} QD{}{}",
                    q["rw"].as_str().unwrap_or(""),
                    block_label(q["bs"].as_u64().unwrap_or(0)),
                    q["iodepth"],
                    if jobs > 1 {
                        format!("T{jobs}")
                    } else {
                        String::new()
                    }
                )
            })
            .collect();
        let _ = writeln!(
            out,
            "  {key:<16} {kind} {value}  (from {})",
            support.join(", ")
        );
    }
    out
}

/// The evidence keys of the cap and the ceiling for a plateau key.
fn old_caps_keys(plateau: &str) -> (&'static str, &'static str) {
    match plateau {
        "read_iops_plateau" => ("read_iops", "read_iops_ceiling"),
        "write_iops_plateau" => ("write_iops", "write_iops_ceiling"),
        "read_bytes_plateau" => ("read_bytes_per_sec", "read_bytes_ceiling"),
        _ => ("write_bytes_per_sec", "write_bytes_ceiling"),
    }
}
