//! The block stack of every disk measurement, as one table: what the tool
//! issued (candor, or fio for an import), then what each layer under the
//! test file did over the same interval (requests and bytes each way, util,
//! time in queue) and the share of the filesystem's device's bytes that
//! were not the tool's. An import shows fio's own `disk_util` as its stack.
//!
//! Built here once: text, Markdown and HTML lay out the same `Table`, CSV
//! takes the filesystem's device's figures from the same rows, and a
//! comparison adds a host column.

use super::table::{Align, Table};
use crate::result::{DiskMeasurement, FileRole, FioDiskUtil, Measurement, Run, StackRelation};
use crate::units::{fmt_bytes, fmt_count, fmt_ns};
use serde::Serialize;

/// What one layer, or the tool itself, did during one measurement.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct StackRow {
    /// Index of the measurement in the Run.
    pub measurement: usize,
    /// `SEQ1M Q8T1 pass 2`: the measurement.
    pub test: String,
    /// `candor`, `vda`, `loop0`.
    pub layer: String,
    /// `issued`, `filesystem`, `whole disk of vda1`, `fio disk_util`...
    pub role: String,
    /// The device the test file's filesystem lies on (or a member of it):
    /// the layer CSV reports.
    pub top: bool,
    pub read_ios: Option<u64>,
    pub read_bytes: Option<u64>,
    pub write_ios: Option<u64>,
    pub write_bytes: Option<u64>,
    /// Share of the interval the layer had a request in flight (0-1).
    pub util: Option<f64>,
    /// Milliseconds of requests in flight, summed (the kernel's time in queue).
    pub queue_ms: Option<u64>,
    /// Share of the filesystem's device's bytes that the tool did not issue
    /// (the `foreign-io` rule), on the first device row; None where not judged.
    pub other_share: Option<f64>,
}

/// Every row of the Run's block stack, measurement by measurement.
pub fn rows(run: &Run) -> Vec<StackRow> {
    let mut out = Vec::new();
    for (i, m) in run.measurements.iter().enumerate() {
        let Measurement::Disk(d) = m else { continue };
        let fio: Vec<&FioDiskUtil> = run
            .fio_disk_util
            .iter()
            .filter(|u| u.measurements.contains(&i))
            .collect();
        if d.block_stack.is_empty() && fio.is_empty() {
            continue;
        }
        let test = test(d);
        let issued = |r: Option<&crate::result::DirectionStats>| {
            (Some(r.map_or(0, |s| s.ops)), Some(r.map_or(0, |s| s.bytes)))
        };
        let (read_ios, read_bytes) = issued(d.read.as_ref());
        let (write_ios, write_bytes) = issued(d.write.as_ref());
        out.push(StackRow {
            measurement: i,
            test: test.clone(),
            layer: run.tool.name.clone(),
            role: "issued".into(),
            top: false,
            read_ios,
            read_bytes,
            write_ios,
            write_bytes,
            util: None,
            queue_ms: None,
            other_share: None,
        });
        let interval_ms = d.measured_ns as f64 / 1e6;
        let mut share = crate::findings::foreign_share(d);
        for l in &d.block_stack {
            let top = matches!(
                l.layer.relation,
                StackRelation::Filesystem | StackRelation::Member
            );
            let io = l.io.as_ref();
            out.push(StackRow {
                measurement: i,
                test: test.clone(),
                layer: l.layer.name.clone(),
                role: role(d, l),
                top,
                read_ios: io.map(|c| c.read_ios),
                read_bytes: io.map(|c| c.read_bytes),
                write_ios: io.map(|c| c.write_ios),
                write_bytes: io.map(|c| c.write_bytes),
                util: io
                    .filter(|_| interval_ms > 0.0)
                    .map(|c| (c.io_ticks_ms as f64 / interval_ms).min(1.0)),
                queue_ms: io.map(|c| c.queue_ms),
                other_share: if top { share.take() } else { None },
            });
        }
        // fio lists the file's device first, then what it is made of.
        for (k, u) in fio.into_iter().enumerate() {
            let jobs = u.measurements.len();
            out.push(StackRow {
                measurement: i,
                test: test.clone(),
                layer: u.name.clone(),
                role: if jobs > 1 {
                    format!("fio disk_util, {jobs} jobs")
                } else {
                    "fio disk_util".into()
                },
                top: k == 0,
                read_ios: Some(u.read_ios),
                read_bytes: u.read_bytes,
                write_ios: Some(u.write_ios),
                write_bytes: u.write_bytes,
                util: Some(u.util_pct / 100.0),
                queue_ms: Some(u.in_queue_ms),
                other_share: None,
            });
        }
    }
    out
}

/// `SEQ1M Q8T1 (control) pass 2`.
fn test(d: &DiskMeasurement) -> String {
    let mut t = d.label();
    if d.role == FileRole::Control {
        t.push_str(" (control)");
    }
    if let Some(p) = d.pass {
        t.push_str(&format!(" pass {p}"));
    }
    t
}

/// How a layer sits in the stack, in a few words (the layer above by name).
fn role(d: &DiskMeasurement, l: &crate::result::LayerIo) -> String {
    let above = l
        .layer
        .above
        .first()
        .and_then(|a| d.block_stack.get(*a))
        .map_or("?", |a| a.layer.name.as_str());
    match l.layer.relation {
        StackRelation::Filesystem => "filesystem".into(),
        StackRelation::Member => "filesystem member".into(),
        StackRelation::WholeDisk => format!("whole disk of {above}"),
        StackRelation::Backing => format!("backing file of {above}"),
        StackRelation::Slave => format!("below {above}"),
    }
}

/// One Run's table (a report).
pub fn run_table(run: &Run) -> Option<Table> {
    let rows = rows(run);
    table(&[(None, &rows[..])])
}

/// The rows of one or more Runs as one table; a host column when any group
/// names its host (a comparison). None when no row.
pub fn table(groups: &[(Option<&str>, &[StackRow])]) -> Option<Table> {
    if groups.iter().all(|(_, rows)| rows.is_empty()) {
        return None;
    }
    let hosts = groups.iter().any(|(h, _)| h.is_some());
    let mut headers: Vec<String> = Vec::new();
    if hosts {
        headers.push("host".into());
    }
    headers.extend(
        [
            "test",
            "layer",
            "read\nrequests",
            "read\nbytes",
            "write\nrequests",
            "write\nbytes",
            "util",
            "time in\nqueue",
            "not the\ntool's",
        ]
        .map(String::from),
    );
    let mut t = Table::new(headers);
    t.align[usize::from(hosts)] = Align::Left;
    t.align[usize::from(hosts) + 1] = Align::Left;
    let count = |v: Option<u64>| v.map_or("–".to_string(), |n| fmt_count(n as f64));
    let bytes = |v: Option<u64>| v.map_or("–".to_string(), fmt_bytes);
    let pct = |v: Option<f64>| v.map_or("–".to_string(), |u| format!("{:.0} %", u * 100.0));
    for (host, rows) in groups {
        let mut last: Option<usize> = None;
        for (k, r) in rows.iter().enumerate() {
            // The host is named on its first row, the test on a
            // measurement's first row.
            let first = last != Some(r.measurement);
            last = Some(r.measurement);
            let mut cells = Vec::new();
            if hosts {
                cells.push(if k == 0 {
                    host.unwrap_or_default().to_string()
                } else {
                    String::new()
                });
            }
            cells.push(if first { r.test.clone() } else { String::new() });
            cells.push(format!("{} ({})", r.layer, r.role));
            cells.push(count(r.read_ios));
            cells.push(bytes(r.read_bytes));
            cells.push(count(r.write_ios));
            cells.push(bytes(r.write_bytes));
            cells.push(pct(r.util));
            cells.push(r.queue_ms.map_or("–".to_string(), |q| {
                if q == 0 {
                    "0".to_string()
                } else {
                    fmt_ns(q as f64 * 1e6)
                }
            }));
            cells.push(pct(r.other_share));
            t.push(cells);
        }
    }
    Some(t)
}

/// A layer "did something" during a measurement when, in either
/// direction, it moved more or fewer bytes than the tool issued by more
/// than this share of all the tool's bytes (a cache above it,
/// amplification, other I/O) ...
const MOVED_SHARE: f64 = 0.10;
/// ... and by more than this many bytes (a journal's few blocks are not news).
const MOVED_MIN_BYTES: u64 = 1 << 20;
/// ... or when at least this share of its bytes was not the tool's.
const FOREIGN_SHARE: f64 = 0.01;

/// What the terminal summary says of the block stack, in words.
pub const NOTABLE_RULE: &str = "a layer moved more or fewer bytes than the tool issued (by over 10 % of them and 1 MiB: a cache, amplification, other I/O), over 1 % of its bytes were not the tool's, or its bytes are unknown";

/// The rows of the measurements where a layer did something (see
/// `MOVED_SHARE`), the first such pass of each test, and of those that
/// cannot be judged (a layer's bytes unknown: fio's disk_util before fio
/// 3.36, a layer without counters): the terminal summary's block stack,
/// which leaves out the measurements where every layer only passed the
/// tool's I/O on, and the passes that repeat one shown.
pub fn notable(rows: &[StackRow]) -> Vec<StackRow> {
    // Sets, not searches of the list: an import of 30,000 fio jobs has as
    // many measurements (a search per row took minutes).
    let mut keep: std::collections::HashSet<usize> = std::collections::HashSet::new();
    let mut kept_tests: std::collections::HashSet<&str> = std::collections::HashSet::new();
    let mut issued: Option<&StackRow> = None;
    for r in rows {
        // A stop asked for: the report is not printed (`write_text`).
        if crate::cancel::cancelled() {
            break;
        }
        if r.role == "issued" {
            issued = Some(r);
            continue;
        }
        let Some(tool) = issued.filter(|t| t.measurement == r.measurement) else {
            continue;
        };
        let issued = tool.read_bytes.unwrap_or(0) + tool.write_bytes.unwrap_or(0);
        let moved = |layer: Option<u64>, tool: Option<u64>| match (layer, tool) {
            (Some(l), Some(t)) => {
                let d = l.abs_diff(t);
                d > MOVED_MIN_BYTES && d as f64 > MOVED_SHARE * issued as f64
            }
            _ => false,
        };
        let foreign = r.other_share.is_some_and(|s| s >= FOREIGN_SHARE);
        let unknown = r.read_bytes.is_none() || r.write_bytes.is_none();
        let did = foreign
            || unknown
            || moved(r.read_bytes, tool.read_bytes)
            || moved(r.write_bytes, tool.write_bytes);
        // The first pass of a test that did something stands for its others.
        if did && kept_tests.insert(without_pass(&r.test)) {
            keep.insert(r.measurement);
        }
    }
    rows.iter()
        .filter(|r| keep.contains(&r.measurement))
        .cloned()
        .collect()
}

/// `SEQ1M Q8T1 (control)` of `SEQ1M Q8T1 (control) pass 2` (`test`'s name).
fn without_pass(test: &str) -> &str {
    test.rsplit_once(" pass ").map_or(test, |(t, _)| t)
}

/// How many measurements `rows` covers.
pub fn measurements(rows: &[StackRow]) -> usize {
    let mut seen: Vec<usize> = rows.iter().map(|r| r.measurement).collect();
    seen.dedup();
    seen.len()
}

/// The section's heading in every format.
pub const TITLE: &str = "Block stack";

/// What the table's columns mean, under it in every format.
pub const LEGEND: &str = "Each layer's block counters over the measured interval (the kernel's stat file; fio's disk_util for an import, counted over that fio output's whole run). util: share of the interval the layer had a request in flight; time in queue: its requests' time in flight, summed; not the tool's: share of the filesystem's device's bytes the tool did not issue (foreign-io), – where not judged.";

/// The filesystem's device(s) during one measurement, summed (CSV's columns):
/// names, read and write bytes and requests, util (the busiest), time in
/// queue, the share not the tool's.
pub struct TopFigures {
    pub layers: String,
    pub read_bytes: Option<u64>,
    pub write_bytes: Option<u64>,
    pub read_ios: Option<u64>,
    pub write_ios: Option<u64>,
    pub util: Option<f64>,
    pub queue_ms: Option<u64>,
    pub other_share: Option<f64>,
}

/// `rows`' filesystem devices for measurement `i`; None without any.
pub fn top_figures(rows: &[StackRow], i: usize) -> Option<TopFigures> {
    let top: Vec<&StackRow> = rows
        .iter()
        .filter(|r| r.measurement == i && r.top)
        .collect();
    if top.is_empty() {
        return None;
    }
    let sum = |f: fn(&StackRow) -> Option<u64>| -> Option<u64> {
        top.iter().map(|r| f(r)).sum::<Option<u64>>()
    };
    Some(TopFigures {
        layers: top
            .iter()
            .map(|r| r.layer.as_str())
            .collect::<Vec<_>>()
            .join(";"),
        read_bytes: sum(|r| r.read_bytes),
        write_bytes: sum(|r| r.write_bytes),
        read_ios: sum(|r| r.read_ios),
        write_ios: sum(|r| r.write_ios),
        util: top
            .iter()
            .filter_map(|r| r.util)
            .fold(None, |m: Option<f64>, u| Some(m.map_or(u, |m| m.max(u)))),
        queue_ms: sum(|r| r.queue_ms),
        other_share: top.iter().find_map(|r| r.other_share),
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::findings::synth::{dm, job_mb, run};
    use crate::result::{LayerCounters, LayerIo, StackLayer};

    fn layer(name: &str, relation: StackRelation, above: &[usize], io: LayerCounters) -> LayerIo {
        LayerIo {
            layer: StackLayer {
                name: name.into(),
                dev: "7:0".into(),
                kind: "loop".into(),
                relation,
                above: above.to_vec(),
                via: String::new(),
                backing_file: None,
                loop_direct_io: None,
            },
            io: Some(io),
            series: Vec::new(),
        }
    }

    /// A loop device over a file on vda: candor's row, then each layer's,
    /// the backing device named by the layer above it, the share not
    /// candor's on the filesystem's device only; CSV's figures are that
    /// device's.
    #[test]
    fn each_measurement_shows_the_tool_then_every_layer() {
        let mut run = run();
        let mut m = job_mb(Some("SEQ1M Q8T1"), "read", 1 << 20, 8, 2, 100.0);
        let d = dm(&mut m);
        let read = d.read.as_ref().unwrap().bytes;
        d.block_stack = vec![
            layer(
                "loop0",
                StackRelation::Filesystem,
                &[],
                LayerCounters {
                    read_ios: 2_861,
                    read_bytes: read,
                    io_ticks_ms: 15_000,
                    queue_ms: 90_000,
                    ..Default::default()
                },
            ),
            layer(
                "vda",
                StackRelation::Backing,
                &[0],
                LayerCounters {
                    read_ios: 40,
                    read_bytes: 160 << 20,
                    io_ticks_ms: 300,
                    ..Default::default()
                },
            ),
        ];
        run.measurements.push(m);
        let rows = rows(&run);
        assert_eq!(rows.len(), 3, "{rows:?}");
        assert_eq!(
            (rows[0].layer.as_str(), rows[0].role.as_str()),
            ("candor", "issued")
        );
        assert_eq!(rows[0].read_bytes, Some(read));
        assert_eq!(rows[1].test, "SEQ1M Q8T1 pass 2");
        assert_eq!(rows[1].other_share, Some(0.0));
        assert_eq!(rows[1].util, Some(0.5));
        assert_eq!(rows[2].role, "backing file of loop0");
        assert_eq!(rows[2].other_share, None);
        let text = run_table(&run).unwrap().to_text("");
        let lines: Vec<&str> = text.lines().collect();
        assert!(
            lines[3].starts_with("SEQ1M Q8T1 pass 2  candor (issued)"),
            "{text}"
        );
        assert!(lines[4].contains("loop0 (filesystem)") && lines[4].contains("50 %"));
        assert!(lines[5].starts_with("                   vda (backing file"));
        let top = top_figures(&rows, 0).unwrap();
        assert_eq!((top.layers.as_str(), top.read_ios), ("loop0", Some(2_861)));
        // A comparison names each host once, on its first row.
        let two = table(&[(Some("a"), &rows[..]), (Some("b"), &rows[..])]).unwrap();
        assert_eq!(two.rows.len(), 6);
        assert_eq!(
            (two.rows[0][0].as_str(), two.rows[1][0].as_str()),
            ("a", "")
        );
        assert_eq!(two.rows[3][0], "b");
        // Two measurements of one host: the host once, each test once.
        let mut both = rows.clone();
        both.extend(rows.iter().cloned().map(|mut r| {
            r.measurement = 1;
            r
        }));
        let t = table(&[(Some("a"), &both[..])]).unwrap();
        let named: Vec<(&str, &str)> = t
            .rows
            .iter()
            .map(|r| (r[0].as_str(), r[1].as_str()))
            .filter(|(h, t)| !h.is_empty() || !t.is_empty())
            .collect();
        assert_eq!(
            named,
            [("a", "SEQ1M Q8T1 pass 2"), ("", "SEQ1M Q8T1 pass 2")]
        );
    }

    /// The summary's block stack keeps a measurement only where a layer
    /// moved other bytes than the tool issued (beyond 10 % and 1 MiB) or
    /// carried others' bytes; a journal's few blocks are not news.
    #[test]
    fn notable_measurements_are_those_where_a_layer_did_something() {
        let row = |m: usize, role: &str, read: u64, write: u64, other: Option<f64>| StackRow {
            measurement: m,
            // Measurement 5 is the second pass of measurement 1's test.
            test: if m == 5 {
                "t1 pass 2".into()
            } else {
                format!("t{m} pass 1")
            },
            layer: if role == "issued" { "candor" } else { "vda" }.into(),
            role: role.into(),
            top: role != "issued",
            read_ios: None,
            read_bytes: Some(read),
            write_ios: None,
            write_bytes: Some(write),
            util: None,
            queue_ms: None,
            other_share: other,
        };
        const MIB: u64 = 1 << 20;
        let rows = vec![
            // Passed on, with a journal's 64 KiB.
            row(0, "issued", 0, 1000 * MIB, None),
            row(0, "filesystem", 0, 1000 * MIB + (64 << 10), Some(0.0)),
            // Amplified: 4 KiB syncs written as 12 KiB.
            row(1, "issued", 0, 40 * MIB, None),
            row(1, "filesystem", 0, 120 * MIB, Some(0.0)),
            // The same in its second pass: the first is shown.
            row(5, "issued", 0, 40 * MIB, None),
            row(5, "filesystem", 0, 120 * MIB, Some(0.0)),
            // A cache above the device: half the reads never reached it.
            row(2, "issued", 800 * MIB, 0, None),
            row(2, "filesystem", 400 * MIB, 0, Some(0.0)),
            // Others' bytes, 2 %.
            row(3, "issued", 100 * MIB, 0, None),
            row(3, "filesystem", 100 * MIB, 0, Some(0.02)),
            // Others' writes during a read, 0.6 % of the bytes.
            row(6, "issued", 5000 * MIB, 0, None),
            row(6, "filesystem", 5000 * MIB, 30 * MIB, Some(0.006)),
            // fio's disk_util without bytes: not judged, so shown.
            row(7, "issued", 5 * MIB, 0, None),
            StackRow {
                read_bytes: None,
                ..row(7, "fio disk_util", 0, 0, None)
            },
            // 5 % more but under 1 MiB: noise.
            row(4, "issued", 10 * MIB, 0, None),
            row(4, "filesystem", 10 * MIB + MIB / 2, 0, Some(0.0)),
        ];
        let kept = notable(&rows);
        let tests: Vec<usize> = kept.iter().map(|r| r.measurement).collect();
        assert_eq!(tests, [1, 1, 2, 2, 3, 3, 7, 7]);
        assert_eq!((measurements(&rows), measurements(&kept)), (8, 4));
    }

    /// An import's block stack is fio's disk_util for the jobs of its file;
    /// without sector counts (fio before 3.36) its bytes are unknown.
    #[test]
    fn an_import_shows_fios_disk_util() {
        let mut run = run();
        run.tool.name = "fio".into();
        run.measurements
            .push(job_mb(Some("randread"), "randread", 4096, 16, 1, 50.0));
        run.fio_disk_util.push(FioDiskUtil {
            file: "out.json".into(),
            measurements: vec![0],
            name: "vda".into(),
            read_ios: 102_708,
            write_ios: 0,
            read_merges: 0,
            write_merges: 0,
            read_ticks_ms: 9_455,
            write_ticks_ms: 0,
            in_queue_ms: 9_455,
            util_pct: 80.43,
            read_bytes: None,
            write_bytes: None,
            aggregate: None,
        });
        let rows = rows(&run);
        assert_eq!(rows.len(), 2);
        assert_eq!(rows[0].layer, "fio");
        assert_eq!(
            (rows[1].role.as_str(), rows[1].read_bytes, rows[1].top),
            ("fio disk_util", None, true)
        );
        let t = run_table(&run).unwrap();
        assert_eq!(t.rows[1][3], "–");
        assert_eq!(t.rows[1][6], "80 %");
    }
}
