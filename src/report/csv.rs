//! CSV: one row per measurement and direction (a 70/30 mix gives a read row
//! and a write row with the same `measurement` index), raw units, stable
//! columns (append new ones at the end, never rename). Compare: one row per
//! host, the comparison's columns as medians with a spread column each.

use super::compare::Comparison;
use super::summary::Direction;
use super::{Exporter, Options};
use crate::result::{DirectionStats, FileRole, Measurement, Run};

pub struct CsvExporter;

/// The columns of `candor report --format csv`, in order. A contract: append only.
pub const RUN_COLUMNS: &[&str] = &[
    "measurement",
    "kind",
    "label",
    "pass",
    "role",
    "rw",
    "direction",
    "bs",
    "iodepth",
    "numjobs",
    "size",
    "engine",
    "direct",
    "fsync",
    "test",
    "threads",
    "ops",
    "bytes",
    "iops",
    "bytes_per_sec",
    "mb_per_sec",
    "mib_per_sec",
    "events_per_sec",
    "ops_per_sec",
    "lat_mean_ns",
    "lat_p50_ns",
    "lat_p90_ns",
    "lat_p99_ns",
    "lat_p99_9_ns",
    "lat_p99_99_ns",
    "lat_max_ns",
    "measured_ns",
    "usr_pct",
    "sys_pct",
    "steal_pct",
    "started_at",
    "run_label",
    "stack_device",
    "stack_read_ios",
    "stack_read_bytes",
    "stack_write_ios",
    "stack_write_bytes",
    "stack_util_pct",
    "stack_queue_ms",
    "stack_not_tool_share",
];

/// A CSV field, quoted when it holds a comma, quote, newline or edge space.
pub fn field(s: &str) -> String {
    if s.contains([',', '"', '\n', '\r']) || s.starts_with(' ') || s.ends_with(' ') {
        format!("\"{}\"", s.replace('"', "\"\""))
    } else {
        s.to_string()
    }
}

fn num(v: f64) -> String {
    if v.fract() == 0.0 && v.abs() < 1e15 {
        format!("{}", v as i64)
    } else {
        format!("{v}")
    }
}

fn line(cells: &[String]) -> String {
    let mut s = cells.iter().map(|c| field(c)).collect::<Vec<_>>().join(",");
    s.push('\n');
    s
}

impl Exporter for CsvExporter {
    fn run(&self, run: &Run, _options: &Options) -> String {
        let mut out = line(
            &RUN_COLUMNS
                .iter()
                .map(|s| s.to_string())
                .collect::<Vec<_>>(),
        );
        let run_label = run.display_name();
        let stack = super::stack::rows(run);
        for (i, m) in run.measurements.iter().enumerate() {
            let mut row: Vec<String> = vec![String::new(); RUN_COLUMNS.len()];
            let mut set = |name: &str, value: String| {
                let at = RUN_COLUMNS
                    .iter()
                    .position(|c| *c == name)
                    .expect("a known column");
                row[at] = value;
            };
            set("measurement", i.to_string());
            set("kind", m.kind().to_string());
            set("pass", m.pass().map_or(String::new(), |p| p.to_string()));
            set("run_label", run_label.clone());
            match m {
                Measurement::Disk(d) => {
                    set("label", d.label());
                    set(
                        "role",
                        match d.role {
                            FileRole::Main => "main",
                            FileRole::Control => "control",
                        }
                        .to_string(),
                    );
                    set("rw", d.spec.rw.to_string());
                    set("bs", d.spec.bs.to_string());
                    set("iodepth", d.spec.iodepth.to_string());
                    set("numjobs", d.spec.numjobs.to_string());
                    set("size", d.spec.size.to_string());
                    set("engine", d.spec.engine.clone());
                    set("direct", d.spec.direct.to_string());
                    set("fsync", d.spec.fsync.to_string());
                    set("threads", d.spec.numjobs.to_string());
                    set("measured_ns", d.measured_ns.to_string());
                    set("usr_pct", num(d.cpu.usr_pct));
                    set("sys_pct", num(d.cpu.sys_pct));
                    set("steal_pct", num(d.cpu.steal_pct));
                    set("started_at", d.started_at.clone().unwrap_or_default());
                    // The filesystem's device(s) over the same interval
                    // (the report's block stack table has every layer).
                    if let Some(t) = super::stack::top_figures(&stack, i) {
                        let n = |v: Option<u64>| v.map_or(String::new(), |v| v.to_string());
                        set("stack_device", t.layers);
                        set("stack_read_ios", n(t.read_ios));
                        set("stack_read_bytes", n(t.read_bytes));
                        set("stack_write_ios", n(t.write_ios));
                        set("stack_write_bytes", n(t.write_bytes));
                        set(
                            "stack_util_pct",
                            t.util.map_or(String::new(), |u| num(round6(u * 100.0))),
                        );
                        set("stack_queue_ms", n(t.queue_ms));
                        set(
                            "stack_not_tool_share",
                            t.other_share.map_or(String::new(), |s| num(round6(s))),
                        );
                    }
                    let base = row.clone();
                    for dir in [Direction::Read, Direction::Write] {
                        let Some(st) = dir.of(d) else { continue };
                        let mut r = base.clone();
                        direction_cells(&mut r, dir, st);
                        out.push_str(&line(&r));
                    }
                }
                other => {
                    let Some(c) = other.as_compute() else {
                        continue;
                    };
                    set("label", format!("{} {}", other.kind(), c.spec.test));
                    set("test", c.spec.test.clone());
                    set("threads", c.spec.threads.to_string());
                    if let Some(v) = c.bytes_per_sec {
                        set("bytes_per_sec", num(v));
                        set("mb_per_sec", num(crate::units::mb_per_sec(v)));
                        set("mib_per_sec", num(crate::units::mib_per_sec(v)));
                    }
                    set(
                        "events_per_sec",
                        c.events_per_sec.map_or(String::new(), num),
                    );
                    set("ops_per_sec", c.ops_per_sec.map_or(String::new(), num));
                    set("measured_ns", c.measured_ns.to_string());
                    set("usr_pct", num(c.cpu.usr_pct));
                    set("sys_pct", num(c.cpu.sys_pct));
                    set("steal_pct", num(c.cpu.steal_pct));
                    set("started_at", c.started_at.clone().unwrap_or_default());
                    out.push_str(&line(&row));
                }
            }
        }
        out
    }

    fn compare(&self, c: &Comparison, options: &Options) -> String {
        let unit = options.unit;
        let mut header = vec!["host".to_string()];
        for col in &c.columns {
            let name = col.csv_name(unit);
            header.push(name.clone());
            header.push(format!("{} spread", col.key));
            header.push(format!("{} passes", col.key));
        }
        let mut out = line(&header);
        for row in &c.rows {
            let mut cells = vec![row.name.clone()];
            for (i, col) in c.columns.iter().enumerate() {
                match &row.cells[i] {
                    Some(s) => {
                        cells.push(num(round6(col.number(s.median, unit))));
                        cells.push(s.ratio.map_or(String::new(), |r| num(round6(r))));
                        cells.push(s.n.to_string());
                    }
                    None => cells.extend([String::new(), String::new(), String::new()]),
                }
            }
            out.push_str(&line(&cells));
        }
        out
    }
}

fn round6(v: f64) -> f64 {
    (v * 1e6).round() / 1e6
}

fn direction_cells(row: &mut [String], dir: Direction, s: &DirectionStats) {
    let mut set = |name: &str, value: String| {
        let at = RUN_COLUMNS
            .iter()
            .position(|c| *c == name)
            .expect("a known column");
        row[at] = value;
    };
    set("direction", dir.as_str().to_string());
    set("ops", s.ops.to_string());
    set("bytes", s.bytes.to_string());
    set("iops", num(s.iops));
    set("bytes_per_sec", num(s.bytes_per_sec));
    set("mb_per_sec", num(crate::units::mb_per_sec(s.bytes_per_sec)));
    set(
        "mib_per_sec",
        num(crate::units::mib_per_sec(s.bytes_per_sec)),
    );
    set("lat_mean_ns", num(s.lat_ns.mean));
    set("lat_p50_ns", s.lat_ns.p50.to_string());
    set("lat_p90_ns", s.lat_ns.p90.to_string());
    set("lat_p99_ns", s.lat_ns.p99.to_string());
    set("lat_p99_9_ns", s.lat_ns.p99_9.to_string());
    set("lat_p99_99_ns", s.lat_ns.p99_99.to_string());
    set("lat_max_ns", s.lat_ns.max.to_string());
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fields_are_quoted_only_when_needed() {
        assert_eq!(field("plain"), "plain");
        assert_eq!(field("a,b"), "\"a,b\"");
        assert_eq!(field("say \"hi\""), "\"say \"\"hi\"\"\"");
        assert_eq!(field("two\nlines"), "\"two\nlines\"");
    }
}
