//! A UnixBench text report (the `results/HOST-DATE-NN` file its `Run`
//! writes) read into a Run, so that the tables people have kept for years
//! join a history beside candor's own `unixbench` Runs. Each "Benchmark Run"
//! section (one per copy count) gives one measurement per index test, with
//! the score, samples and index UnixBench printed; the section's "Index
//! Score" is kept as the report's own, and checked against the geometric
//! mean of its test indexes. The format read is the one UnixBench 5.1 and
//! 6.0 print (`logResults` and `logIndexCat` in its `Run`); facts about
//! that text, no code of UnixBench.

use super::catalogue::{self, Test};
use crate::result::{ComputeMeasurement, ComputeSpec, Measurement, Run, RunStatus, Tool};
use std::collections::BTreeMap;
use std::path::Path;

/// The first words of every UnixBench report.
const SIGNATURE: &str = "BYTE UNIX Benchmarks";

/// True when `text` is a UnixBench report rather than fio output: its text
/// report, its HTML report, the console log of `./Run` that holds the report
/// (after the build's and the tests' progress lines), or a report whose
/// header was cut off (it starts at a result line or a Benchmark Run).
pub fn is_report(text: &str) -> bool {
    if text.trim_start().starts_with('{') {
        return false;
    }
    super::html::is_html_report(text)
        || text.lines().any(|l| {
            l.contains(SIGNATURE)
                || l.starts_with("Benchmark Run:")
                || l.starts_with("System Benchmarks Index Score")
        })
}

/// A score above this (lps, lpm, KBps or MWIPS) is no machine's: 10^12 is
/// ten thousand copies of a test each 10^8 a second, beyond the largest
/// Dhrystone any host prints (tens of millions per copy).
const MAX_SCORE: f64 = 1e12;
/// More "Benchmark Run" sections than this are no UnixBench run's (one per
/// copy count asked for with `-c`).
const MAX_SECTIONS: usize = 64;
/// UnixBench's `-i` sets the samples; more than this is not a run.
const MAX_SAMPLES: u64 = 100_000;
/// A pass longer than a day is not a UnixBench pass.
const MAX_PASS_SECS: f64 = 86_400.0;

/// One result line: `Pipe Throughput   480056.0 lps   (10.0 s, 1 samples)`.
#[derive(Debug, Clone, PartialEq)]
struct ReportLine {
    test: &'static Test,
    score: f64,
    pass_secs: f64,
    samples: u64,
}

/// One "Benchmark Run" section: a copy count and its results.
#[derive(Debug, Default)]
struct ReportSection {
    started: Option<String>,
    copies: Option<u32>,
    cpus: Option<u32>,
    lines: Vec<ReportLine>,
    /// Test title -> the INDEX column.
    indexes: BTreeMap<String, f64>,
    index_score: Option<f64>,
    /// Result lines whose title is not one of the index tests.
    other: Vec<String>,
}

/// Reads the report at `path` (already read into `text`) into a Run.
pub fn import(text: &str, path: &Path, label: Option<String>) -> anyhow::Result<Run> {
    let name = path.display();
    let converted;
    let (text, form) = if super::html::is_html_report(text) {
        converted = super::html::to_text(text).map_err(|e| anyhow::anyhow!("{name}: {e}"))?;
        (converted.as_str(), "HTML report")
    } else if text.lines().take(5).any(|l| l.contains(SIGNATURE)) {
        (text, "text report")
    } else {
        (
            text,
            "text (a console log of ./Run, or a report without its first lines)",
        )
    };
    let version = text
        .lines()
        .find_map(|l| {
            l.split_once("(Version ")
                .map(|(_, v)| v.trim_end_matches(')').trim())
        })
        .unwrap_or("unknown")
        .to_string();
    let (sections, orphans) = sections(text).map_err(|e| anyhow::anyhow!("{name}: {e}"))?;
    if sections.iter().all(|s| s.lines.is_empty()) {
        anyhow::bail!("{name}: a UnixBench report without a single result line of an index test");
    }
    let mut run = Run::new(vec!["candor".into(), "import".into(), name.to_string()]);
    run.source = "unixbench-import".into();
    run.tool = Tool {
        name: "UnixBench".into(),
        version: version.clone(),
        target: None,
        libraries: BTreeMap::new(),
    };
    let field = |prefix: &str| {
        text.lines()
            .find_map(|l| l.trim_start().strip_prefix(prefix).map(str::trim))
    };
    run.host.hostname = field("System:")
        .and_then(|s| s.split(':').next())
        .map(str::to_string);
    run.host.kernel = field("OS:")
        .and_then(|s| s.split(" -- ").nth(1))
        .map(str::to_string);
    run.host.cpu_model = text.lines().find_map(|l| {
        let rest = l.trim_start().strip_prefix("CPU 0:")?;
        Some(
            rest.rsplit_once(" (")
                .map_or(rest, |(model, _)| model)
                .trim()
                .to_string(),
        )
    });
    let arch = field("Machine:").and_then(|s| s.split_whitespace().next());
    if let Some(arch) = arch {
        run.host.extra.insert("arch".into(), arch.to_string());
    }
    run.label = label.or_else(|| run.host.hostname.clone());
    run.notes.push(format!(
        "Imported from a UnixBench {version} {form} by candor {}: its scores, samples and indexes as UnixBench printed them (one decimal). The report holds no per-pass scores, CPU use or memory facts, so findings that need them are not checked.",
        env!("CARGO_PKG_VERSION")
    ));
    let mut index = serde_json::Map::new();
    let mut copies_seen = Vec::new();
    for s in &sections {
        let copies = s.copies.unwrap_or(1);
        if s.cpus.is_some() && run.host.cpu_threads.is_none() {
            run.host.cpu_threads = s.cpus;
        }
        copies_seen.push(copies);
        for l in &s.lines {
            let idx = s
                .indexes
                .get(l.test.title)
                .copied()
                .unwrap_or_else(|| super::score::test_index(l.test, l.score));
            run.measurements
                .push(Measurement::Unixbench(measurement(l, copies, idx, s)));
        }
        if let Some(score) = s.index_score {
            index.insert(copies.to_string(), score.into());
            // Every index the report printed, as UnixBench averages them.
            let ours: Vec<f64> = s.indexes.values().copied().collect();
            if let Some(mean) = super::score::overall_index(&ours) {
                // Each INDEX is printed to one decimal (off by at most 0.05, so by at
                // most 0.05/min relative): their geometric mean is off by at most that
                // share of itself, and the printed score by 0.05 more.
                let least = ours.iter().copied().fold(f64::INFINITY, f64::min);
                let rounding = mean * 0.05 / least.max(0.05) + 0.05;
                if (mean - score).abs() > rounding * 1.001 {
                    run.notes.push(format!(
                        "{copies} copies: the report's Index Score {score:.1} is not the geometric mean of its test indexes ({mean:.1}); the report's own figure is kept"
                    ));
                }
            }
        }
        if !s.other.is_empty() {
            run.notes.push(format!(
                "{copies} copies: not index tests, not imported: {}",
                s.other.join(", ")
            ));
        }
    }
    if orphans > 0 {
        run.notes.push(format!(
            "{orphans} result line(s) before the first 'Benchmark Run:' line (the report's start is missing, so their copy count is unknown): not imported"
        ));
    }
    run.started_at = sections.iter().find_map(|s| s.started.clone());
    if run.started_at.is_some() {
        run.notes.push("UnixBench prints its start time in the host's local time without a zone: it is recorded as if it were UTC".into());
    }
    let tests: Vec<&str> = catalogue::TESTS
        .iter()
        .filter(|t| run.compute().any(|m| m.spec.test == t.name))
        .map(|t| t.name)
        .collect();
    let not_run: Vec<serde_json::Value> = catalogue::TESTS
        .iter()
        .filter(|t| !tests.contains(&t.name))
        .map(|t| serde_json::json!({"test": t.name, "cause": "not in the imported report"}))
        .collect();
    run.plan = Some(serde_json::json!({
        "group": "unixbench",
        "kind": "unixbench-import",
        "file": name.to_string(),
        "copies": copies_seen,
        "tests": tests,
        "index": index,
        "not_run": not_run,
    }));
    run.status = RunStatus::Complete;
    Ok(run)
}

fn measurement(l: &ReportLine, copies: u32, index: f64, s: &ReportSection) -> ComputeMeasurement {
    let t = l.test;
    let mut params = BTreeMap::new();
    params.insert("title".into(), t.title.into());
    params.insert("unit".into(), t.unit.label().into());
    params.insert("score".into(), l.score.into());
    params.insert("baseline".into(), t.baseline.into());
    params.insert("index".into(), index.into());
    params.insert("passes_kept".into(), l.samples.into());
    let (ops, bytes) = super::rates(t.unit, l.score);
    ComputeMeasurement {
        pass: None,
        started_at: s.started.clone(),
        spec: ComputeSpec {
            test: t.name.into(),
            threads: copies,
            runtime_ns: (l.pass_secs * 1e9) as u64,
            params,
        },
        events_per_sec: None,
        bytes_per_sec: bytes,
        ops_per_sec: ops,
        per_thread: Vec::new(),
        measured_ns: (l.pass_secs * l.samples as f64 * 1e9) as u64,
        cpu: Default::default(),
        notes: vec![format!(
            "UnixBench's figure: {} samples of {:.1} s on average (its report keeps no per-pass scores)",
            l.samples, l.pass_secs
        )],
    }
}

/// The "Benchmark Run" sections of a report, in order, and the count of
/// result lines before the first (a report whose start was cut off).
fn sections(text: &str) -> Result<(Vec<ReportSection>, usize), String> {
    let mut out: Vec<ReportSection> = Vec::new();
    let mut in_index = false;
    let mut orphans = 0;
    for (n, raw) in text.lines().enumerate() {
        // A 100 MiB report takes a while: the first signal stops here.
        if n % 4096 == 0 && crate::cancel::cancelled() {
            return Err("stopped by a signal".into());
        }
        let line = raw.trim_end();
        if let Some(rest) = line.strip_prefix("Benchmark Run:") {
            if out.len() == MAX_SECTIONS {
                return Err(format!(
                    "line {}: more than {MAX_SECTIONS} 'Benchmark Run' sections: not one UnixBench run",
                    n + 1
                ));
            }
            out.push(ReportSection {
                started: started_at(rest.trim()),
                ..ReportSection::default()
            });
            in_index = false;
            continue;
        }
        let Some(s) = out.last_mut() else {
            if let Ok(Some(Ok(_))) = result_line(line) {
                orphans += 1;
            }
            continue;
        };
        if line.contains(" CPUs in system; running ") || line.contains(" CPU in system; running ") {
            let number = |w: Option<&str>| w.and_then(|w| w.parse::<u32>().ok());
            let mut words = line.split_whitespace();
            s.cpus = number(words.next());
            s.copies = number(
                line.split("running ")
                    .nth(1)
                    .and_then(|r| r.split_whitespace().next()),
            );
            if s.copies.is_none() || s.copies == Some(0) {
                return Err(format!("line {}: no copy count in '{line}'", n + 1));
            }
            continue;
        }
        if line.starts_with("System Benchmarks") && line.contains("BASELINE") {
            in_index = true;
            continue;
        }
        if let Some(rest) = line.strip_prefix("System Benchmarks Index Score") {
            let value = rest
                .split_whitespace()
                .last()
                .and_then(|v| v.parse::<f64>().ok());
            if value.is_some_and(|v| !(v.is_finite() && (0.0..=MAX_SCORE).contains(&v))) {
                return Err(format!(
                    "line {}: Index Score {} is no machine's",
                    n + 1,
                    rest.split_whitespace().last().unwrap_or("")
                ));
            }
            s.index_score = value;
            continue;
        }
        if in_index {
            // `Title   BASELINE   RESULT   INDEX`: the last three columns.
            let words: Vec<&str> = line.split_whitespace().collect();
            if words.len() >= 4 {
                let title = words[..words.len() - 3].join(" ");
                if let Ok(index) = words[words.len() - 1].parse::<f64>() {
                    if catalogue::TESTS.iter().any(|t| t.title == title) {
                        if !(index.is_finite() && (0.0..=MAX_SCORE).contains(&index)) {
                            return Err(format!(
                                "line {}: {title}: index {} is no machine's",
                                n + 1,
                                words[words.len() - 1]
                            ));
                        }
                        if s.indexes.insert(title.clone(), index).is_some() {
                            return Err(format!(
                                "line {}: {title} indexed twice in one Benchmark Run",
                                n + 1
                            ));
                        }
                    }
                }
            }
            continue;
        }
        if let Some(l) = result_line(line).map_err(|e| format!("line {}: {e}", n + 1))? {
            match l {
                Ok(l) => {
                    if s.lines.iter().any(|o| o.test.name == l.test.name) {
                        return Err(format!(
                            "line {}: {} twice in one Benchmark Run",
                            n + 1,
                            l.test.title
                        ));
                    }
                    s.lines.push(l)
                }
                Err(title) => {
                    if s.other.len() < 100 {
                        s.other.push(title)
                    }
                }
            }
        }
    }
    Ok((out, orphans))
}

/// A result line: Ok(an index test's), Err(another test's title), or None
/// when the line is not a result line at all.
#[allow(clippy::type_complexity)]
fn result_line(line: &str) -> Result<Option<Result<ReportLine, String>>, String> {
    // The last " (": titles have their own ("Shell Scripts (1 concurrent)").
    let Some((head, tail)) = line.rsplit_once(" (") else {
        return Ok(None);
    };
    let Some(tail) = tail.strip_suffix(" samples)") else {
        return Ok(None);
    };
    let words: Vec<&str> = head.split_whitespace().collect();
    if words.len() < 3 {
        return Ok(None);
    }
    let (title, score, unit) = (
        words[..words.len() - 2].join(" "),
        words[words.len() - 2],
        words[words.len() - 1],
    );
    let score_text = score;
    let Ok(score) = score.parse::<f64>() else {
        return Ok(None);
    };
    let Some(test) = catalogue::TESTS.iter().find(|t| t.title == title) else {
        return Ok(Some(Err(title)));
    };
    if unit != test.unit.label() {
        return Err(format!(
            "{title}: unit '{unit}', UnixBench prints '{}'",
            test.unit.label()
        ));
    }
    let (secs, samples) = tail
        .split_once(" s, ")
        .ok_or_else(|| format!("{title}: no '(S s, N samples)'"))?;
    let pass_secs: f64 = secs
        .trim()
        .parse()
        .map_err(|_| format!("{title}: '{secs}' is not seconds"))?;
    let samples: u64 = samples
        .trim()
        .parse()
        .map_err(|_| format!("{title}: '{samples}' is not a sample count"))?;
    if !(score.is_finite() && (0.0..=MAX_SCORE).contains(&score)) {
        return Err(format!("{title}: score {score_text} is no machine's"));
    }
    if !(pass_secs.is_finite() && (0.0..=MAX_PASS_SECS).contains(&pass_secs)) {
        return Err(format!("{title}: a pass of {secs} s is no UnixBench pass"));
    }
    if samples > MAX_SAMPLES {
        return Err(format!("{title}: {samples} samples is no UnixBench run"));
    }
    Ok(Some(Ok(ReportLine {
        test,
        score,
        pass_secs,
        samples,
    })))
}

/// `Fri Dec 04 2026 00:54:34 - 00:55:00` -> `2026-12-04T00:54:34Z`.
fn started_at(text: &str) -> Option<String> {
    let words: Vec<&str> = text.split_whitespace().collect();
    let [_, month, day, year, time, ..] = words[..] else {
        return None;
    };
    const MONTHS: [&str; 12] = [
        "Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec",
    ];
    let month = MONTHS.iter().position(|m| *m == month)? + 1;
    let day: u32 = day.parse().ok().filter(|d| (1..=31).contains(d))?;
    let year: u32 = year.parse().ok().filter(|y| (1970..=9999).contains(y))?;
    let hms: Vec<u32> = time
        .split(':')
        .map(|p| p.parse().ok())
        .collect::<Option<_>>()?;
    let [h, m, s] = hms[..] else { return None };
    let text = format!("{year:04}-{month:02}-{day:02}T{h:02}:{m:02}:{s:02}Z");
    // A real instant only (no 30 February, no hour 25): it reads back as written.
    let secs = u64::try_from(crate::units::parse_rfc3339(&text)?).ok()?;
    (crate::units::rfc3339_utc(secs) == text).then_some(text)
}

#[cfg(test)]
mod tests {
    use super::*;

    const REPORT: &str = include_str!("../../../tests/fixtures/unixbench/vm-2026-12-04-01");

    #[test]
    fn a_real_report_reads_into_a_run() {
        assert!(is_report(REPORT));
        assert!(!is_report("{\"fio version\": \"fio-3.33\"}"));
        let run = import(REPORT, Path::new("vm-2026-12-04-01"), None).unwrap();
        assert_eq!(run.label.as_deref(), Some("vm"));
        assert_eq!(run.tool.version, "6.0.0");
        assert_eq!(run.host.cpu_model.as_deref(), Some("AMD EPYC"));
        assert_eq!(run.started_at.as_deref(), Some("2026-12-04T00:54:34Z"));
        let ms: Vec<&ComputeMeasurement> = run.compute().collect();
        assert_eq!(ms.len(), 4, "pipe and syscall, 1 and 2 copies");
        let pipe = ms
            .iter()
            .find(|m| m.spec.test == "pipe" && m.spec.threads == 1)
            .unwrap();
        assert_eq!(pipe.ops_per_sec, Some(480056.0));
        assert_eq!(super::super::score_of(pipe).map(|s| s.2), Some(385.9));
        let plan = run.plan.as_ref().unwrap();
        assert_eq!(plan["index"]["1"], 368.3);
        assert!(plan["index"]["2"].as_f64().unwrap() > 0.0);
        assert_eq!(plan["not_run"].as_array().unwrap().len(), 10);
        assert!(
            !run.notes
                .iter()
                .any(|n| n.contains("not the geometric mean")),
            "{:?}",
            run.notes
        );
    }

    /// A report whose Index Score is not its indexes' geometric mean (edited
    /// by hand, or of another UnixBench) keeps its own figure and says so.
    #[test]
    fn an_index_score_that_does_not_add_up_is_noted() {
        let edited = REPORT.replacen(
            "                          368.3",
            "                          400.0",
            1,
        );
        assert_ne!(edited, REPORT);
        let run = import(&edited, Path::new("r"), None).unwrap();
        assert_eq!(run.plan.as_ref().unwrap()["index"]["1"], 400.0);
        assert!(
            run.notes
                .iter()
                .any(|n| n.contains("not the geometric mean of its test indexes (368.")),
            "{:?}",
            run.notes
        );
    }

    /// Both shell tests are read ("Shell Scripts (1 concurrent)" has its own
    /// parentheses), and a score or a report no machine makes is refused in
    /// one line, not written as a Run.
    #[test]
    fn shell_tests_are_read_and_impossible_reports_refused() {
        let shell = REPORT.replace(
            "Pipe Throughput                              480056.0 lps   (10.0 s, 1 samples)",
            "Shell Scripts (8 concurrent)                    899.2 lpm   (60.1 s, 2 samples)",
        );
        let run = import(&shell, Path::new("r"), None).unwrap();
        let m = run.compute().find(|m| m.spec.test == "shell8").unwrap();
        assert_eq!(m.spec.params["score"], 899.2);
        assert_eq!(m.spec.params["passes_kept"], 2);

        let huge = REPORT.replacen("480056.0 lps", "1e308 lps", 1);
        let e = import(&huge, Path::new("r"), None).unwrap_err().to_string();
        assert!(e.contains("score 1e308 is no machine's"), "{e}");
        assert_eq!(e.lines().count(), 1);
        // 200,000 result lines: a test twice in one Benchmark Run.
        let line =
            "Pipe Throughput                              480056.0 lps   (10.0 s, 1 samples)\n";
        let long = REPORT.replacen(line, &line.repeat(200_000), 1);
        let e = import(&long, Path::new("r"), None).unwrap_err().to_string();
        assert!(
            e.contains("Pipe Throughput twice in one Benchmark Run"),
            "{e}"
        );
        // 200,000 sections.
        let section = "Benchmark Run: Fri Dec 04 2026 00:54:34 - 00:55:00\n2 CPUs in system; running 1 parallel copy of tests\n";
        let many = format!("{REPORT}{}", section.repeat(100_000));
        let e = import(&many, Path::new("r"), None).unwrap_err().to_string();
        assert!(e.contains("more than 64 'Benchmark Run' sections"), "{e}");
    }

    #[test]
    fn bad_lines_are_named() {
        let bad = REPORT.replace("480056.0 lps", "480056.0 KBps");
        let e = import(&bad, Path::new("r"), None).unwrap_err().to_string();
        assert!(e.contains("unit 'KBps'"), "{e}");
        let none = "   BYTE UNIX Benchmarks (Version 5.1.3)\n\nBenchmark Run: x\n";
        let e = import(none, Path::new("r"), None).unwrap_err().to_string();
        assert!(e.contains("without a single result line"), "{e}");
        assert_eq!(started_at("Mon Feb 30x 2020 1:2:3"), None);
        assert_eq!(started_at("Sun Feb 30 2020 01:02:03 - 01:03:00"), None);
        assert_eq!(started_at("Sun Feb 29 2020 25:02:03 - 01:03:00"), None);
        assert_eq!(
            started_at("Mon Jan 01 2019 12:00:00 - 12:28:00").as_deref(),
            Some("2019-01-01T12:00:00Z")
        );
    }
}
