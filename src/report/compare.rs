//! Several Runs side by side, as a careful published comparison lays them
//! out: one row per host, columns per profile (large blocks in bytes/s,
//! small ones in IOPS, QD1 and fsync latency p50/p99, compute figures,
//! UnixBench's index: each test's and the System Benchmarks Index, 1 copy
//! and all copies),
//! medians over passes with their spread, the per-host findings under the
//! table, and notes where the Runs differ in a way that matters (version,
//! preset, engine, file size, source, status). Missing tests stay missing.

use super::fmt;
use super::kept_finding::KeptFinding;
use super::summary::{ComputeUnit, Summary};
use super::RateUnit;
use crate::compute::unixbench::score;
use crate::result::{Finding, FindingStatus, Run, Spread};
use serde::Serialize;

/// What a column counts.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum ColumnQuantity {
    /// Bytes per second (shown in MB/s or MiB/s).
    Rate,
    Iops,
    /// Nanoseconds; lower is better.
    Latency,
    Events,
    Ops,
    /// UnixBench's index (no unit).
    Index,
}

/// One column of the comparison.
#[derive(Debug, Clone, Serialize)]
pub struct Column {
    /// Stable key: `SEQ1M Q8T1 read`, `RND4K Q1T1 read p99`, `cpu primes 4T`.
    pub key: String,
    /// The test part of the key (`SEQ1M Q8T1`, `cpu primes`): the first header line.
    pub test: String,
    /// `disk`, `latency`, `compute` or `unixbench`: the text table is split into these blocks.
    pub group: &'static str,
    pub metric: ColumnQuantity,
}

impl Column {
    /// Larger is better for everything but latency.
    pub fn higher_is_better(&self) -> bool {
        self.metric != ColumnQuantity::Latency
    }

    /// The unit word for headers: `MB/s`, `IOPS`, `events/s`, ...; latency keys carry their percentile.
    pub fn unit(&self, unit: RateUnit) -> &'static str {
        match self.metric {
            ColumnQuantity::Rate => unit.label(),
            ColumnQuantity::Iops => "IOPS",
            ColumnQuantity::Latency => "",
            ColumnQuantity::Events => "events/s",
            ColumnQuantity::Ops => "ops/s",
            ColumnQuantity::Index => "",
        }
    }

    /// Key and unit: `SEQ1M Q8T1 read MB/s`.
    pub fn name(&self, unit: RateUnit) -> String {
        let u = self.unit(unit);
        if u.is_empty() {
            self.key.clone()
        } else {
            format!("{} {u}", self.key)
        }
    }

    /// A two-line header for narrow text tables: the test, then direction and unit.
    pub fn header(&self, unit: RateUnit) -> String {
        let name = self.name(unit);
        match name.strip_prefix(&self.test) {
            Some(rest) if !rest.trim().is_empty() => format!("{}\n{}", self.test, rest.trim()),
            _ => name,
        }
    }

    /// A value in this column's display unit, without the unit.
    pub fn value(&self, v: f64, unit: RateUnit) -> String {
        match self.metric {
            ColumnQuantity::Rate => fmt::rate(v, unit),
            ColumnQuantity::Iops | ColumnQuantity::Events | ColumnQuantity::Ops => fmt::iops(v),
            ColumnQuantity::Index => format!("{v:.1}"),
            ColumnQuantity::Latency => fmt::latency(v),
        }
    }

    /// A value as a plain number in the display unit (CSV): latency in microseconds.
    pub fn number(&self, v: f64, unit: RateUnit) -> f64 {
        match self.metric {
            ColumnQuantity::Rate => unit.scale(v),
            ColumnQuantity::Latency => v / 1e3,
            _ => v,
        }
    }

    /// The CSV header: name with the unit a spreadsheet needs (`... p99 us`).
    pub fn csv_name(&self, unit: RateUnit) -> String {
        match self.metric {
            ColumnQuantity::Latency => format!("{} us", self.key),
            _ => self.name(unit),
        }
    }
}

/// One host (Run) of the comparison.
#[derive(Debug, Clone, Serialize)]
pub struct ComparedHost {
    /// The Run's label, else its hostname (made unique with ` (2)`, ...).
    pub name: String,
    /// One cell per column: median, min, max, passes; None when the Run lacks the test.
    pub cells: Vec<Option<Spread>>,
    /// The Run's checked findings.
    pub findings: Vec<KeptFinding>,
    /// How many findings could not be checked.
    pub not_checked: usize,
    /// What each layer under the test file did in each disk measurement.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub block_stack: Vec<super::stack::StackRow>,
}

/// Runs side by side.
#[derive(Debug, Clone, Serialize)]
pub struct Comparison {
    pub columns: Vec<Column>,
    pub rows: Vec<ComparedHost>,
    /// Where the Runs differ in ways that affect the comparison.
    pub notes: Vec<String>,
    /// Findings across the hosts (`metric-disagreement`), computed by the
    /// caller (`candor::findings::analyze_many`) before anything is laid out.
    pub cross: Vec<Finding>,
    /// The column the rows are sorted by (best first), if any.
    pub sorted_by: Option<String>,
}

/// The spread mark after a median: nothing below x1.10, `~` up to x1.5, `!`
/// from x1.5 (the `unstable` threshold), `?` with one pass (spread unknown).
pub fn spread_mark(s: &Spread) -> &'static str {
    match (s.n, s.ratio) {
        (0 | 1, _) => "?",
        (_, None) => "!",
        (_, Some(r)) if r >= 1.5 => "!",
        (_, Some(r)) if r >= 1.10 => "~",
        _ => "",
    }
}

/// The legend for the marks.
pub const MARK_LEGEND: &str = "medians over passes; ~ passes differ by 10-50 % (max/min), ! by 50 % or more, ? one pass (spread unknown), – not measured";

impl Comparison {
    /// Builds the comparison of the Runs, in the order given, with the
    /// findings across them (`cross`), computed before it.
    pub fn of(runs: &[Run], cross: Vec<Finding>) -> Comparison {
        Comparison::of_digests(runs.iter().map(ComparedRun::of).collect(), cross)
    }

    /// Builds the comparison from what it needs of each Run (`ComparedRun`),
    /// so that a fleet of thousands is compared without holding its Runs.
    pub fn of_digests(runs: Vec<ComparedRun>, cross: Vec<Finding>) -> Comparison {
        let mut columns: Vec<Column> = Vec::new();
        let add = |c: Column, columns: &mut Vec<Column>| {
            if !columns
                .iter()
                .any(|x| x.key == c.key && x.metric == c.metric)
            {
                columns.push(c);
            }
        };
        for d in runs.iter().flat_map(|r| &r.disk) {
            let metric = if d.bandwidth_bound {
                ColumnQuantity::Rate
            } else {
                ColumnQuantity::Iops
            };
            add(
                Column {
                    key: d.key.clone(),
                    test: d.label.clone(),
                    group: "disk",
                    metric,
                },
                &mut columns,
            );
        }
        // What users feel: small-block QD1 chains and commits (fsync).
        let any_felt = runs.iter().flat_map(|r| &r.disk).any(|d| d.felt);
        for d in runs.iter().flat_map(|r| &r.disk) {
            if any_felt && !d.felt {
                continue;
            }
            for p in ["p50", "p99"] {
                add(
                    Column {
                        key: format!("{} {p}", d.key),
                        test: d.label.clone(),
                        group: "latency",
                        metric: ColumnQuantity::Latency,
                    },
                    &mut columns,
                );
            }
        }
        // UnixBench's tests are compared by their index (the unixbench group).
        for c in runs.iter().flat_map(|r| &r.compute) {
            add(
                Column {
                    key: c.key.clone(),
                    test: c.test.clone(),
                    group: "compute",
                    metric: c.metric,
                },
                &mut columns,
            );
        }
        let indexes: Vec<&Vec<(String, String, Spread)>> =
            runs.iter().map(|r| &r.unixbench).collect();
        // The indexes (full, then partial) of every Run first, then each test's.
        let is_index = |test: &str| test == "UnixBench index" || test == "UnixBench partial index";
        let overall = indexes.iter().copied().flatten().filter(|x| is_index(&x.1));
        let tests = indexes
            .iter()
            .copied()
            .flatten()
            .filter(|x| !is_index(&x.1));
        for (key, test, _) in overall.chain(tests) {
            add(
                Column {
                    key: key.clone(),
                    test: test.clone(),
                    group: "unixbench",
                    metric: ColumnQuantity::Index,
                },
                &mut columns,
            );
        }
        let names = numbered_names(&runs);
        let mut notes = differences(&runs, &names);
        let unixbench_measured = runs
            .iter()
            .any(|r| r.source != "unixbench-import" && !r.unixbench.is_empty());
        let unixbench_imported = runs.iter().any(|r| r.source == "unixbench-import");
        let rows = runs
            .into_iter()
            .zip(names)
            .map(|(run, name)| ComparedHost {
                cells: columns
                    .iter()
                    .map(|c| match c.group {
                        "unixbench" => run
                            .unixbench
                            .iter()
                            .find(|(k, _, _)| *k == c.key)
                            .map(|x| x.2),
                        _ => cell(c, &run),
                    })
                    .collect(),
                name,
                findings: run.findings,
                not_checked: run.not_checked,
                block_stack: run.block_stack,
            })
            .collect();
        if columns.iter().any(|c| c.group == "unixbench") {
            notes.push("UnixBench columns: each test's index is UnixBench's combination of its passes (the worst third dropped, the rest by geometric mean), not a median; its range is its passes' range, and the index's range is the geometric mean of the tests' lowest and of their highest passes. \"all copies\" is each Run's largest copy count.".into());
            if unixbench_measured && unixbench_imported {
                notes.push("Both candor's and UnixBench's own figures: Dhrystone and Whetstone are rustc's code in candor and the host's gcc's in UnixBench, so those columns (and the index) differ by the compiler too (candor explain unixbench-compiler).".into());
            }
        }
        Comparison {
            columns,
            rows,
            notes,
            cross,
            sorted_by: None,
        }
    }

    /// Finds a column by its key or name (case-insensitive), else by a part
    /// of its name that only one column has. `host` (or `name`) sorts by name.
    pub fn find_column(&self, wanted: &str) -> Result<Option<usize>, String> {
        let w = wanted.trim().to_lowercase();
        if w == "host" || w == "name" {
            return Ok(None);
        }
        let names: Vec<(String, String)> = self
            .columns
            .iter()
            .map(|c| (c.key.to_lowercase(), c.name(RateUnit::Mb).to_lowercase()))
            .collect();
        let alt = |n: &str| n.replace("mb/s", "mib/s");
        if let Some(i) = names
            .iter()
            .position(|(k, n)| *k == w || *n == w || alt(n) == w)
        {
            return Ok(Some(i));
        }
        let hits: Vec<usize> = names
            .iter()
            .enumerate()
            .filter(|(_, (_, n))| n.contains(&w) || alt(n).contains(&w))
            .map(|(i, _)| i)
            .collect();
        let list = || {
            self.columns
                .iter()
                .map(|c| format!("'{}'", c.key))
                .collect::<Vec<_>>()
                .join(", ")
        };
        match hits.len() {
            1 => Ok(Some(hits[0])),
            0 => Err(format!(
                "--sort '{wanted}': no such column; columns: 'host', {}",
                list()
            )),
            _ => Err(format!(
                "--sort '{wanted}' matches {} columns ({}); name one exactly",
                hits.len(),
                hits.iter()
                    .map(|&i| format!("'{}'", self.columns[i].key))
                    .collect::<Vec<_>>()
                    .join(", ")
            )),
        }
    }

    /// Sorts the rows by a column, best first (highest, or lowest for
    /// latency); hosts without the figure go last. Stable.
    pub fn sort_by(&mut self, wanted: &str) -> Result<(), String> {
        match self.find_column(wanted)? {
            None => {
                self.rows.sort_by(|a, b| a.name.cmp(&b.name));
                self.sorted_by = Some("host".to_string());
            }
            Some(i) => {
                let higher = self.columns[i].higher_is_better();
                self.rows.sort_by(|a, b| match (&a.cells[i], &b.cells[i]) {
                    (Some(x), Some(y)) => {
                        let o = x.median.total_cmp(&y.median);
                        if higher {
                            o.reverse()
                        } else {
                            o
                        }
                    }
                    (Some(_), None) => std::cmp::Ordering::Less,
                    (None, Some(_)) => std::cmp::Ordering::Greater,
                    (None, None) => std::cmp::Ordering::Equal,
                });
                self.sorted_by = Some(self.columns[i].key.clone());
            }
        }
        Ok(())
    }

    /// The column indices of a group, in order.
    pub fn group(&self, group: &str) -> Vec<usize> {
        (0..self.columns.len())
            .filter(|&i| self.columns[i].group == group)
            .collect()
    }

    /// A cell as text: median, unit-less, with its spread mark; `–` when missing.
    pub fn cell_text(&self, row: &ComparedHost, col: usize, unit: RateUnit) -> String {
        match &row.cells[col] {
            None => "–".to_string(),
            Some(s) => format!(
                "{}{}",
                self.columns[col].value(s.median, unit),
                spread_mark(s)
            ),
        }
    }

    /// Every host's block stack, measurement by measurement, as one table
    /// with a host column (None when no Run recorded one).
    pub fn stack_table(&self) -> Option<super::table::Table> {
        let groups: Vec<(Option<&str>, &[super::stack::StackRow])> = self
            .rows
            .iter()
            .map(|r| (Some(r.name.as_str()), r.block_stack.as_slice()))
            .collect();
        super::stack::table(&groups)
    }

    /// The findings under the table: those across hosts, then every
    /// host's warnings and refusals; informational findings (application
    /// translations, chance round figures) and the checks not made are
    /// only counted: each host's own report has them.
    pub fn finding_entries(&self) -> Vec<(String, FindingEntry)> {
        let across = "across hosts".to_string();
        let mut out: Vec<(String, FindingEntry)> = self
            .cross
            .iter()
            .map(|f| {
                let entry = match f.status {
                    FindingStatus::Checked => FindingEntry::Checked(f.clone()),
                    FindingStatus::NotChecked => FindingEntry::NotChecked(f.clone()),
                };
                (across.clone(), entry)
            })
            .collect();
        for row in &self.rows {
            let mut info = 0;
            for f in row.findings.iter().map(KeptFinding::get) {
                if f.severity == crate::result::Severity::Info {
                    info += 1;
                } else if f.severity >= crate::result::Severity::Warning {
                    out.push((row.name.clone(), FindingEntry::Checked(f)));
                }
            }
            let mut rest = Vec::new();
            if info > 0 {
                rest.push(format!(
                    "{info} informational finding{} (see its report)",
                    if info == 1 { "" } else { "s" }
                ));
            }
            if row.not_checked > 0 {
                rest.push(format!(
                    "{} check{} not made (evidence missing)",
                    row.not_checked,
                    if row.not_checked == 1 { "" } else { "s" }
                ));
            }
            if !rest.is_empty() {
                out.push((row.name.clone(), FindingEntry::Counted(rest.join("; "))));
            }
        }
        out
    }

    /// `finding_entries` as lines of text, a finding's evidence inline.
    pub fn finding_lines(&self) -> Vec<(String, String)> {
        self.finding_entries()
            .into_iter()
            .map(|(host, e)| (host, e.line()))
            .collect()
    }
}

/// One entry of a comparison's findings.
pub enum FindingEntry {
    /// A checked finding, shown in full.
    Checked(Finding),
    /// A finding across hosts that could not be checked.
    NotChecked(Finding),
    /// A host's findings and checks that are only counted.
    Counted(String),
}

impl FindingEntry {
    /// One line: `[warning] id (subject): verdict (evidence: k=v, ...)`.
    pub fn line(&self) -> String {
        match self {
            FindingEntry::Checked(f) => {
                let mut line = format!("[{}] {}", fmt::severity(f.severity), fmt::finding_head(f));
                let ev = fmt::evidence(&f.evidence);
                if !ev.is_empty() {
                    line.push_str(&format!(" (evidence: {ev})"));
                }
                line
            }
            FindingEntry::NotChecked(f) => format!("{} not checked: {}", f.id, f.verdict),
            FindingEntry::Counted(text) => text.clone(),
        }
    }
}

/// The hosts' names, each repeated one numbered (`web (2)`): linear in
/// the hosts even when all share one name.
fn numbered_names(runs: &[ComparedRun]) -> Vec<String> {
    let mut taken: std::collections::HashSet<String> = std::collections::HashSet::new();
    // For each repeated name, the next number to try.
    let mut next: std::collections::HashMap<String, usize> = std::collections::HashMap::new();
    let mut out = Vec::with_capacity(runs.len());
    for run in runs {
        let mut name = run.name.clone();
        if taken.contains(&name) {
            let k = next.entry(name.clone()).or_insert(2);
            while taken.contains(&format!("{name} ({k})")) {
                *k += 1;
            }
            let numbered = format!("{name} ({k})");
            *k += 1;
            name = numbered;
        }
        taken.insert(name.clone());
        out.push(name);
    }
    out
}

/// What a comparison needs of one Run, taken from it once: a fleet of
/// thousands is compared from these without holding its Runs (4,000
/// battery Runs held at once took 1.9 GB).
pub struct ComparedRun {
    /// `Run::display_name`, before repeated names are numbered.
    name: String,
    /// Its main disk rows, by column key.
    disk: Vec<DiskCells>,
    /// Its compute figures but UnixBench's, by column key.
    compute: Vec<ComputeCell>,
    /// UnixBench's indexes: (key, test, spread).
    unixbench: Vec<(String, String, Spread)>,
    /// The checked findings but the claims.
    findings: Vec<KeptFinding>,
    not_checked: usize,
    block_stack: Vec<super::stack::StackRow>,
    /// `candor 0.1.0`: the tool and its version.
    tool: String,
    source: String,
    status: crate::result::RunStatus,
    fleet: Option<crate::result::FleetContext>,
    /// What `differences` compares: the preset, the engines, the main
    /// files' sizes and the pass count, each as it is written there.
    preset: String,
    engines: String,
    main_sizes: String,
    passes: String,
}

/// The figures of one main disk row that a comparison's columns take.
struct DiskCells {
    /// `SEQ1M Q8T1 read`: the disk column's key (`... p50` the latency's).
    key: String,
    /// The profile or job label (`SEQ1M Q8T1`).
    label: String,
    /// Large blocks are compared by bandwidth, small ones by IOPS.
    bandwidth_bound: bool,
    /// Latency a user feels: a small-block QD1 chain, or commits (fsync).
    felt: bool,
    bytes_per_sec: Spread,
    iops: Spread,
    p50: Spread,
    p99: Spread,
}

/// One compute figure under its column key (`cpu primes all threads`).
struct ComputeCell {
    key: String,
    test: String,
    metric: ColumnQuantity,
    value: Spread,
}

impl ComparedRun {
    pub fn of(run: &Run) -> ComparedRun {
        let s = Summary::of(run);
        let disk = s
            .main_rows()
            .map(|r| DiskCells {
                key: format!("{} {}", r.label, r.direction.as_str()),
                label: r.label.clone(),
                bandwidth_bound: r.bandwidth_bound(),
                felt: (r.is_qd1() && !r.bandwidth_bound()) || r.spec.fsync > 0,
                bytes_per_sec: r.bytes_per_sec,
                iops: r.iops,
                p50: r.p50,
                p99: r.p99,
            })
            .collect();
        let compute = s
            .compute
            .iter()
            .filter(|r| r.kind != "unixbench")
            .map(|r| ComputeCell {
                key: compute_key(&s, r),
                test: r.name(),
                metric: match r.unit {
                    ComputeUnit::Events => ColumnQuantity::Events,
                    ComputeUnit::Bytes => ColumnQuantity::Rate,
                    ComputeUnit::Ops => ColumnQuantity::Ops,
                },
                value: r.value,
            })
            .collect();
        ComparedRun {
            name: run.display_name(),
            disk,
            compute,
            unixbench: unixbench_cells(run),
            findings: run
                .findings
                .iter()
                .filter(|f| {
                    f.status == FindingStatus::Checked && f.id != crate::findings::CLAIMS_ID
                })
                .map(KeptFinding::of)
                .collect(),
            not_checked: run
                .findings
                .iter()
                .filter(|f| f.status == FindingStatus::NotChecked)
                .count(),
            block_stack: super::stack::rows(run),
            tool: format!("{} {}", run.tool.name, run.tool.version),
            source: run.source.clone(),
            status: run.status,
            fleet: run.fleet.clone(),
            preset: s.preset.clone().unwrap_or_else(|| "none".into()),
            engines: s.engines.join(", "),
            main_sizes: s
                .main_sizes
                .iter()
                .map(|&b| crate::units::fmt_bytes(b))
                .collect::<Vec<_>>()
                .join(", "),
            passes: s.passes.to_string(),
        }
    }
}

/// The value of a disk, latency or compute column in one Run.
fn cell(column: &Column, run: &ComparedRun) -> Option<Spread> {
    match column.group {
        "disk" => run
            .disk
            .iter()
            .find(|d| d.key == column.key)
            .map(|d| match column.metric {
                ColumnQuantity::Rate => d.bytes_per_sec,
                _ => d.iops,
            }),
        "latency" => run.disk.iter().find_map(|d| {
            let p = column.key.strip_prefix(d.key.as_str())?;
            match p {
                " p50" => Some(d.p50),
                " p99" => Some(d.p99),
                _ => None,
            }
        }),
        _ => run
            .compute
            .iter()
            .find(|c| c.key == column.key)
            .map(|c| c.value),
    }
}

/// A Run's UnixBench indexes as comparison cells: (key, test, spread), each
/// test's index per copy key (`1 copy`, `all copies`: the Run's largest copy
/// count above one, as hosts differ in CPUs), then the System Benchmarks
/// Index (`UnixBench index 1 copy`; `UnixBench partial index ...` when tests
/// are missing, never in the full index's column). A test's cell is its
/// index (UnixBench's combination of its passes, not their median) with the
/// range of its passes' indexes; the index's range is the geometric mean of
/// the tests' lowest and of their highest passes; an imported report has no
/// passes (spread unknown).
fn unixbench_cells(run: &Run) -> Vec<(String, String, Spread)> {
    use crate::compute::unixbench::{self, TESTS};
    let (ms, copies) = unixbench::measurements_of(run);
    let max = copies.last().copied().unwrap_or(1);
    let mut out = Vec::new();
    let mut overall = Vec::new();
    for &c in &copies {
        let label = if c == 1 {
            "1 copy".to_string()
        } else if c == max {
            "all copies".to_string()
        } else {
            format!("{c} copies")
        };
        let (mut lows, mut highs, mut passes) = (Vec::new(), Vec::new(), usize::MAX);
        for t in &TESTS {
            let Some(m) = ms
                .iter()
                .find(|m| m.spec.threads == c && m.spec.test == t.name)
            else {
                continue;
            };
            let Some((_, _, index)) = unixbench::score_of(m) else {
                continue;
            };
            let pass_indexes: Vec<f64> = m
                .spec
                .params
                .get("pass_scores")
                .and_then(|p| p.as_array())
                .map(|a| {
                    a.iter()
                        .filter_map(|v| v.as_f64())
                        .map(|s| s / t.baseline * 10.0)
                        .collect()
                })
                .unwrap_or_default();
            let lo = pass_indexes.iter().copied().fold(index, f64::min);
            let hi = pass_indexes.iter().copied().fold(index, f64::max);
            let n = pass_indexes.len().max(1);
            lows.push(lo);
            highs.push(hi);
            passes = passes.min(n);
            out.push((
                format!("UnixBench {} index {label}", t.name),
                format!("UnixBench {}", t.name),
                Spread {
                    median: index,
                    min: lo,
                    max: hi,
                    ratio: (lo > 0.0).then(|| hi / lo),
                    n,
                },
            ));
        }
        let n_tests = lows.len();
        let (Some(index), Some(lo), Some(hi)) = (
            unixbench::index_of(&ms, c),
            score::overall_index(&lows),
            score::overall_index(&highs),
        ) else {
            continue;
        };
        let (key, test) = if n_tests == TESTS.len() {
            (
                format!("UnixBench index {label}"),
                "UnixBench index".to_string(),
            )
        } else {
            (
                format!(
                    "UnixBench partial index ({n_tests} of {}) {label}",
                    TESTS.len()
                ),
                "UnixBench partial index".to_string(),
            )
        };
        overall.push((
            key,
            test,
            Spread {
                median: index,
                min: lo,
                max: hi,
                ratio: (lo > 0.0).then(|| hi / lo),
                n: passes,
            },
        ));
    }
    overall.extend(out);
    overall
}

/// The column key of a compute row: `cpu primes 1T`, or `cpu primes all threads`
/// for the Run's largest thread count above one (hosts differ in vCPUs, and a
/// published comparison puts their all-thread figures in one column).
fn compute_key(s: &Summary, r: &super::summary::ComputeRow) -> String {
    let max = s
        .compute
        .iter()
        .filter(|x| x.kind == r.kind && x.test == r.test)
        .map(|x| x.threads)
        .max()
        .unwrap_or(r.threads);
    if r.threads > 1 && r.threads == max {
        format!("{} all threads", r.name())
    } else {
        format!("{} {}T", r.name(), r.threads)
    }
}

/// The words of the note on a Run measured beside other hosts of a fleet
/// (`Run.fleet`); a fleet's own report says it from fleet.json instead.
pub const FLEET_OVERLAP: &str = "was measured while other hosts of its fleet ran";

/// Notes where the Runs differ in a way a reader must know.
fn differences(runs: &[ComparedRun], names: &[String]) -> Vec<String> {
    let mut notes = Vec::new();
    let mut differ = |what: &str, values: Vec<String>| {
        let mut distinct = values.clone();
        distinct.sort();
        distinct.dedup();
        if distinct.len() > 1 {
            let per: Vec<String> = names
                .iter()
                .zip(&values)
                .map(|(n, v)| format!("{n}: {v}"))
                .collect();
            notes.push(format!("Different {what} ({}).", per.join("; ")));
        }
    };
    differ(
        "tool versions: figures may not be comparable where a method changed",
        runs.iter().map(|r| r.tool.clone()).collect(),
    );
    differ("presets", runs.iter().map(|r| r.preset.clone()).collect());
    differ("sources", runs.iter().map(|r| r.source.clone()).collect());
    differ("engines", runs.iter().map(|r| r.engines.clone()).collect());
    differ(
        "main file sizes: a small file may be served from a cache",
        runs.iter().map(|r| r.main_sizes.clone()).collect(),
    );
    differ(
        "pass counts",
        runs.iter().map(|r| r.passes.clone()).collect(),
    );
    for (run, name) in runs.iter().zip(names) {
        if let Some(f) = run.fleet.as_ref().filter(|f| !f.overlapped_with.is_empty()) {
            notes.push(format!(
                "{name} {FLEET_OVERLAP} ({}, up to {} at once): their load may be in its figures.",
                f.overlapped_with.join(", "),
                f.parallel
            ));
        }
    }
    for (run, name) in runs.iter().zip(names) {
        if run.status != crate::result::RunStatus::Complete {
            notes.push(format!(
                "{name} is {}: its missing tests show as –.",
                run.status.as_str()
            ));
        }
    }
    notes
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::compute::unixbench::TESTS;
    use crate::findings::synth;

    fn host(name: &str, cpus: u32, index: f64, tests: usize) -> Run {
        let mut run = synth::run();
        run.label = Some(name.into());
        for t in TESTS.iter().take(tests) {
            run.measurements.push(synth::unixbench(t.name, 1, index));
            run.measurements
                .push(synth::unixbench(t.name, cpus, index * cpus as f64));
        }
        run
    }

    #[test]
    fn unixbench_indexes_side_by_side_one_copy_and_all_copies() {
        // Hosts of 2 and 4 CPUs: their all-copies figures share one column.
        let c = Comparison::of(
            &[host("a", 2, 100.0, 12), host("b", 4, 200.0, 12)],
            Vec::new(),
        );
        let col = |key: &str| {
            c.columns
                .iter()
                .position(|x| x.key == key)
                .unwrap_or_else(|| panic!("no column {key}"))
        };
        let one = col("UnixBench index 1 copy");
        let all = col("UnixBench index all copies");
        assert_eq!(c.columns[one].group, "unixbench");
        assert_eq!(c.cell_text(&c.rows[0], one, RateUnit::Mb), "100.0?");
        assert_eq!(c.cell_text(&c.rows[1], all, RateUnit::Mb), "800.0?");
        let dhry = col("UnixBench dhry2reg index all copies");
        assert_eq!(c.cell_text(&c.rows[0], dhry, RateUnit::Mb), "200.0?");
        // The scores are not repeated as compute columns.
        assert!(c.group("compute").is_empty(), "{:?}", c.columns);
        assert!(c.notes.iter().any(|n| n.starts_with("UnixBench columns")));
    }

    #[test]
    fn a_run_measured_beside_other_hosts_is_noted() {
        let mut a = synth::run();
        a.label = Some("alpha".into());
        a.fleet = Some(crate::result::FleetContext {
            parallel: 2,
            overlapped_with: vec!["bravo".into()],
            destination: None,
        });
        let mut b = synth::run();
        b.label = Some("bravo".into());
        // A host of the same fleet that ran alone has no note.
        b.fleet = Some(crate::result::FleetContext {
            parallel: 2,
            overlapped_with: vec![],
            destination: None,
        });
        let c = Comparison::of(&[a, b], Vec::new());
        let notes: Vec<&String> = c
            .notes
            .iter()
            .filter(|n| n.contains(FLEET_OVERLAP))
            .collect();
        assert_eq!(
            notes,
            ["alpha was measured while other hosts of its fleet ran (bravo, up to 2 at once): their load may be in its figures."]
        );
    }

    #[test]
    fn a_partial_index_has_its_own_column() {
        let c = Comparison::of(
            &[host("a", 2, 100.0, 12), host("b", 2, 100.0, 3)],
            Vec::new(),
        );
        let full = c
            .columns
            .iter()
            .position(|x| x.key == "UnixBench index 1 copy")
            .unwrap();
        assert!(
            c.rows[1].cells[full].is_none(),
            "b's 3 tests are not a full index"
        );
        let partial = c
            .columns
            .iter()
            .position(|x| x.key == "UnixBench partial index (3 of 12) 1 copy")
            .unwrap();
        assert!(c.rows[0].cells[partial].is_none());
        assert_eq!(c.cell_text(&c.rows[1], partial, RateUnit::Mb), "100.0?");
    }

    #[test]
    fn passes_give_the_range() {
        let mut run = host("a", 2, 100.0, 12);
        for m in &mut run.measurements {
            if let crate::result::Measurement::Unixbench(c) = m {
                if c.spec.test == "syscall" && c.spec.threads == 1 {
                    // 15000 lps is index 10; passes at index 90, 100 and 110.
                    c.spec.params.insert(
                        "pass_scores".into(),
                        serde_json::json!([135000.0, 150000.0, 165000.0]),
                    );
                }
            }
        }
        let c = Comparison::of(&[run], Vec::new());
        let i = c
            .columns
            .iter()
            .position(|x| x.key == "UnixBench syscall index 1 copy")
            .unwrap();
        let s = c.rows[0].cells[i].unwrap();
        assert_eq!((s.n, s.median), (3, 100.0));
        assert!((s.min - 90.0).abs() < 1e-9 && (s.max - 110.0).abs() < 1e-9);
        assert_eq!(spread_mark(&s), "~");
    }
}
