//! `candor import` on result files other people wrote, taken from public
//! repositories (tests/fixtures/corpus/SOURCES names the repository,
//! commit and path of each): fio JSON from fio 2.1 to 3.40, UnixBench
//! reports (text and HTML) from ARM boards, Macs and PCs, DiskSpd results
//! (text from 2.0.21 to 2.2, XML, and the Linux port's text, made here by
//! it) and CrystalDiskMark 8 results. Each file's
//! expected figures come from a small reader written here, not from
//! candor's parser: fio's units from the keys present (`clat` in µs,
//! `io_bytes` in KiB without `io_kbytes`), UnixBench's from the index
//! table's columns. Each file ends in one of four counts (BENCHMARKS.md,
//! "Imports of other people's files"): imported and right, refused for a
//! true reason, refused wrongly (goal 0), imported wrong (goal 0).

use assert_cmd::Command;
use serde_json::Value;
use std::path::{Path, PathBuf};

fn corpus(kind: &str) -> Vec<PathBuf> {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/fixtures/corpus")
        .join(kind);
    let mut files: Vec<PathBuf> = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .collect();
    files.sort();
    files
}

/// What became of one file.
#[derive(Debug, PartialEq)]
enum Outcome {
    Right,
    RefusedTruly,
    RefusedWrongly(String),
    Wrong(String),
}

/// The refusals that are right, by file name: (file, words of the reason).
/// VirtualClient's fixtures were edited by hand for its unit tests: their
/// figures contradict each other as no fio prints them.
const TRUE_REFUSALS: &[(&str, &str)] = &[
    // read io_bytes/4096 is 261,509 I/Os, total_ios says 258,144; iops agrees with neither.
    (
        "vc-3.26.json",
        "read.iops is 2160.561601, but total_ios 258144 over runtime 110948 ms",
    ),
    // A percentile is a bucket's middle: at most half a bucket (1/128) above the largest sample, not 5.5 %.
    (
        "vc-3.26-readwrite.json",
        "read.clat_ns.percentile.99.900000 is 151864912, above max 143918030",
    ),
    (
        "vc-3.26-write.json",
        "write.clat_ns.percentile.99.900000 is 151864912, above max 143247068",
    ),
    // VirtualClient cut thread rows out of these DiskSpd outputs for its unit
    // tests: the rows no longer add up to the totals DiskSpd printed.
    (
        "vc-2.2.0-multisocket.txt",
        "its Total IO rows sum to 34697216 bytes in 8471 I/Os, its total line says 69226496 in 16901",
    ),
    (
        "vc-2.2.0-writeonly.txt",
        "its Total IO rows sum to 18925006848 bytes in 4620363 I/Os, its total line says 8265251819520",
    ),
    // -t4 with two rows left, and the test time edited: 3065 I/Os at 611.41
    // per second is 5.013 s, which DiskSpd prints as 5.01s, not 5.00s.
    (
        "vc-2.2.0-multinuma.txt",
        "its total line says 6092 I/Os at 1215.24 per second, 5.013 s, not its test time of 5 s",
    ),
    // The Linux port timed these I/Os wrong on the bench VM: latencies of
    // seconds to hours in a run of one second.
    (
        "linux-t1-o1-randread-Sh.txt",
        "percentile latency is 14500467.1 ms, longer than the whole run",
    ),
    (
        "linux-t2-o4-randread-2targets.txt",
        "a mean latency of 2088.922 ms, longer than the whole run",
    ),
    (
        "linux-F3-o2-randrw80.txt",
        "a mean latency of 2917.597 ms, longer than the whole run",
    ),
];

/// Runs `candor import` on `file` (to standard output), or with `--output`
/// into `dir` for fio's client/server output: the Runs, or the refusal.
fn import(file: &Path, dir: &Path) -> Result<Vec<Value>, String> {
    let out = Command::cargo_bin("candor")
        .unwrap()
        .args(["import", "--no-history"])
        .arg(file)
        .output()
        .unwrap();
    if out.status.success() {
        return Ok(vec![serde_json::from_slice(&out.stdout).unwrap()]);
    }
    let err = String::from_utf8_lossy(&out.stderr).trim().to_string();
    assert_eq!(out.status.code(), Some(2), "{}: {err}", file.display());
    assert_eq!(err.lines().count(), 1, "one line: {err}");
    if !err.contains("client/server") {
        return Err(err);
    }
    let target = dir.join("hosts.json");
    let out = Command::cargo_bin("candor")
        .unwrap()
        .args(["import", "--no-history", "-o"])
        .arg(&target)
        .arg(file)
        .output()
        .unwrap();
    if !out.status.success() {
        return Err(String::from_utf8_lossy(&out.stderr).trim().to_string());
    }
    let mut runs: Vec<(PathBuf, Value)> = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| {
            p.file_name()
                .unwrap()
                .to_string_lossy()
                .starts_with("hosts.")
        })
        .map(|p| {
            let v = serde_json::from_str(&std::fs::read_to_string(&p).unwrap()).unwrap();
            (p, v)
        })
        .collect();
    runs.sort_by(|a, b| a.0.cmp(&b.0));
    Ok(runs.into_iter().map(|(_, v)| v).collect())
}

fn classify(
    name: &str,
    result: Result<Vec<Value>, String>,
    check: impl Fn(&[Value]) -> Result<(), String>,
) -> Outcome {
    let refusal = TRUE_REFUSALS.iter().find(|(f, _)| *f == name);
    match (result, refusal) {
        (Ok(runs), None) => match check(&runs) {
            Ok(()) => Outcome::Right,
            Err(e) => Outcome::Wrong(e),
        },
        (Ok(_), Some(_)) => Outcome::Wrong("imported, but it should have been refused".into()),
        (Err(e), Some((_, why))) if e.contains(why) => Outcome::RefusedTruly,
        (Err(e), _) => Outcome::RefusedWrongly(e),
    }
}

/// The counts, printed for BENCHMARKS.md; none wrong.
fn tally(kind: &str, outcomes: &[(String, Outcome)]) {
    let count = |f: fn(&Outcome) -> bool| outcomes.iter().filter(|(_, o)| f(o)).count();
    println!(
        "{kind}: {} files: imported and right {}, refused for a true reason {}, refused wrongly {}, imported wrong {}",
        outcomes.len(),
        count(|o| *o == Outcome::Right),
        count(|o| *o == Outcome::RefusedTruly),
        count(|o| matches!(o, Outcome::RefusedWrongly(_))),
        count(|o| matches!(o, Outcome::Wrong(_))),
    );
    let bad: Vec<&(String, Outcome)> = outcomes
        .iter()
        .filter(|(_, o)| !matches!(o, Outcome::Right | Outcome::RefusedTruly))
        .collect();
    assert!(bad.is_empty(), "{bad:#?}");
}

// ---- fio: an independent reader ----

/// fio's JSON in a file (text before it allowed, as fio and shells print).
fn fio_json(path: &Path) -> Value {
    let text = std::fs::read_to_string(path).unwrap();
    let start = text
        .lines()
        .scan(0, |at, l| {
            let here = *at;
            *at += l.len() + 1;
            Some((here, l))
        })
        .find(|(_, l)| l.starts_with('{'))
        .map(|(at, _)| at)
        .unwrap();
    serde_json::Deserializer::from_str(&text[start..])
        .into_iter::<Value>()
        .next()
        .unwrap()
        .unwrap()
}

/// One direction as fio printed it, in ns and bytes, read from the keys.
#[derive(Debug)]
struct FioDir {
    iops: f64,
    bytes: u64,
    /// The latency fio printed percentiles for (lat where it has them).
    lat_mean_ns: f64,
    p50_ns: Option<u64>,
    p99_ns: Option<u64>,
}

fn fio_dir(d: &Value) -> Option<FioDir> {
    let iops = d["iops"].as_f64().unwrap_or(0.0);
    if iops <= 0.0 && d["total_ios"].as_u64().unwrap_or(0) == 0 {
        return None;
    }
    // Microseconds where fio printed `clat`; nanoseconds with `clat_ns`.
    let (scale, clat, lat) = if d.get("clat_ns").is_some() {
        (1.0, &d["clat_ns"], &d["lat_ns"])
    } else {
        (1000.0, &d["clat"], &d["lat"])
    };
    let chosen = if lat.get("percentile").is_some() {
        lat
    } else {
        clat
    };
    let pct = |p: &str| {
        chosen["percentile"][p]
            .as_u64()
            .filter(|_| chosen["percentile"].get(p).is_some())
            .map(|v| (v as f64 * scale) as u64)
    };
    let kib = d.get("io_kbytes").is_none();
    let io = d["io_bytes"].as_u64().unwrap_or(0);
    Some(FioDir {
        iops,
        bytes: if kib { io * 1024 } else { io },
        lat_mean_ns: chosen["mean"].as_f64().unwrap_or(0.0) * scale,
        p50_ns: pct("50.000000"),
        p99_ns: pct("99.000000"),
    })
}

fn close(a: f64, b: f64) -> bool {
    (a - b).abs() <= b.abs() * 1e-9 + 1e-6
}

/// Every Disk measurement of `runs` against the file's job entries: when
/// each entry is one measurement, figure by figure; else the sums.
fn check_fio(fio: &Value, runs: &[Value]) -> Result<(), String> {
    let jobs: Vec<&Value> = fio
        .get("jobs")
        .or(fio.get("client_stats"))
        .and_then(Value::as_array)
        .unwrap()
        .iter()
        .filter(|j| j["jobname"] != "All clients")
        .collect();
    let ms: Vec<&Value> = runs
        .iter()
        .flat_map(|r| r["measurements"].as_array().unwrap())
        .collect();
    for key in ["read", "write"] {
        let theirs: Vec<Option<FioDir>> = jobs.iter().map(|j| fio_dir(&j[key])).collect();
        let ours: Vec<&Value> = ms.iter().map(|m| &m[key]).collect();
        let sum_iops: f64 = theirs.iter().flatten().map(|d| d.iops).sum();
        let our_iops: f64 = ours.iter().map(|d| d["iops"].as_f64().unwrap_or(0.0)).sum();
        if !close(our_iops, sum_iops) {
            return Err(format!("{key}: IOPS {our_iops}, fio's {sum_iops}"));
        }
        let sum_bytes: u64 = theirs.iter().flatten().map(|d| d.bytes).sum();
        let our_bytes: u64 = ours.iter().map(|d| d["bytes"].as_u64().unwrap_or(0)).sum();
        if our_bytes != sum_bytes {
            return Err(format!("{key}: bytes {our_bytes}, fio's {sum_bytes}"));
        }
        if jobs.len() != ms.len() {
            continue;
        }
        for ((t, o), (j, m)) in theirs.iter().zip(&ours).zip(jobs.iter().zip(&ms)) {
            let Some(t) = t else { continue };
            let name = j["jobname"].as_str().unwrap_or("");
            let l = &o["lat_ns"];
            if !close(l["mean"].as_f64().unwrap(), t.lat_mean_ns) {
                return Err(format!(
                    "{name} {key}: mean latency {} ns, fio's {} ns",
                    l["mean"], t.lat_mean_ns
                ));
            }
            for (p, want) in [("p50", t.p50_ns), ("p99", t.p99_ns)] {
                let got = l[p].as_u64().unwrap();
                if got != want.unwrap_or(0) {
                    return Err(format!("{name} {key}: {p} {got} ns, fio's {want:?}"));
                }
            }
            // A job that only wrote is never labelled a read pass.
            let rw = m["spec"]["rw"].as_str().unwrap();
            let wrote_only = key == "write" && fio_dir(&j["read"]).is_none();
            if wrote_only && matches!(rw, "read" | "randread") {
                return Err(format!("{name}: a write job recorded as rw={rw}"));
            }
        }
    }
    Ok(())
}

#[test]
fn fio_files_of_every_era_import_right_or_are_refused_for_a_true_reason() {
    let files = corpus("fio");
    assert!(files.len() >= 20, "{}", files.len());
    let mut outcomes = Vec::new();
    for file in &files {
        let name = file.file_name().unwrap().to_string_lossy().to_string();
        let dir = tempfile::tempdir().unwrap();
        let fio = fio_json(file);
        let outcome = classify(&name, import(file, dir.path()), |runs| {
            check_fio(&fio, runs)
        });
        println!("{name}: {outcome:?}");
        outcomes.push((name, outcome));
    }
    tally("fio JSON", &outcomes);
}

// ---- UnixBench: an independent reader ----

/// One Benchmark Run of a report: copies, (title, result, index), score.
#[derive(Debug, Default)]
struct UbSection {
    copies: u32,
    tests: Vec<(String, f64, f64)>,
    score: Option<f64>,
}

/// The index tables of a text report: every row's title, RESULT and INDEX.
fn unixbench_text(text: &str) -> Vec<UbSection> {
    let mut out: Vec<UbSection> = Vec::new();
    let mut table = false;
    for line in text.lines() {
        if line.starts_with("Benchmark Run:") {
            out.push(UbSection::default());
            table = false;
        } else if let Some(s) = out.last_mut() {
            if let Some(i) = line.find("running ") {
                s.copies = line[i + 8..].split(' ').next().unwrap().parse().unwrap();
            } else if line.contains("BASELINE") {
                table = true;
            } else if line.starts_with("System Benchmarks Index Score") {
                s.score = line.split_whitespace().last().unwrap().parse().ok();
                table = false;
            } else if table && !line.trim().is_empty() && !line.contains("====") {
                let w: Vec<&str> = line.split_whitespace().collect();
                let n = w.len();
                s.tests.push((
                    w[..n - 3].join(" "),
                    w[n - 2].parse().unwrap(),
                    w[n - 1].parse().unwrap(),
                ));
            }
        }
    }
    out
}

/// The same from the HTML report: each run's copies from its heading,
/// each row's cells (test, score, ..., index), the score row.
fn unixbench_html(html: &str) -> Vec<UbSection> {
    let cells = |row: &str| -> Vec<String> {
        row.split("<td")
            .skip(1)
            .map(|c| {
                let mut t = String::new();
                let mut tag = false;
                for ch in c[c.find('>').unwrap() + 1..]
                    .split("</td>")
                    .next()
                    .unwrap()
                    .chars()
                {
                    match ch {
                        '<' => tag = true,
                        '>' => tag = false,
                        c if !tag => t.push(c),
                        _ => {}
                    }
                }
                t.trim().to_string()
            })
            .collect()
    };
    html.split("<h3>Benchmark Run:")
        .skip(1)
        .map(|run| {
            let head = &run[..run.find("</h3>").unwrap()];
            let copies = head
                .split("; ")
                .nth(1)
                .unwrap()
                .split(' ')
                .next()
                .unwrap()
                .parse()
                .unwrap();
            let mut s = UbSection {
                copies,
                ..Default::default()
            };
            for row in run.split("<tr>").skip(1) {
                let c = cells(row);
                if c.len() == 7 {
                    s.tests
                        .push((c[0].clone(), c[1].parse().unwrap(), c[6].parse().unwrap()));
                } else if c.len() == 2 && c[0].starts_with("System Benchmarks Index Score") {
                    s.score = c[1].parse().ok();
                }
            }
            s
        })
        .collect()
}

fn check_unixbench(sections: &[UbSection], run: &Value) -> Result<(), String> {
    let ms = run["measurements"].as_array().unwrap();
    let complete: Vec<&UbSection> = sections.iter().filter(|s| s.copies > 0).collect();
    let expected: usize = complete.iter().map(|s| s.tests.len()).sum();
    if ms.len() != expected {
        return Err(format!(
            "{} measurements, the report has {expected} index rows",
            ms.len()
        ));
    }
    for s in &complete {
        for (title, result, index) in &s.tests {
            let m = ms
                .iter()
                .find(|m| {
                    m["spec"]["params"]["title"] == *title.as_str()
                        && m["spec"]["threads"] == s.copies
                })
                .ok_or(format!("{title} ({} copies) not imported", s.copies))?;
            let p = &m["spec"]["params"];
            if p["score"].as_f64() != Some(*result) || p["index"].as_f64() != Some(*index) {
                return Err(format!(
                    "{title}: score {} index {}, the report's {result} {index}",
                    p["score"], p["index"]
                ));
            }
        }
        if let Some(score) = s.score {
            let ours = run["plan"]["index"][s.copies.to_string()].as_f64();
            if ours != Some(score) {
                return Err(format!(
                    "{} copies: index {ours:?}, the report's {score}",
                    s.copies
                ));
            }
            // UnixBench's score is the geometric mean of its indexes: no note may say otherwise.
            let logs: f64 = s.tests.iter().map(|t| t.2.ln()).sum();
            let mean = (logs / s.tests.len() as f64).exp();
            let noted = run["notes"]
                .as_array()
                .unwrap()
                .iter()
                .any(|n| n.as_str().unwrap().contains("not the geometric mean"));
            if (mean - score).abs() < 0.15 && noted {
                return Err(format!(
                    "{} copies: noted as not the geometric mean ({mean:.2} vs {score})",
                    s.copies
                ));
            }
        }
    }
    if complete.iter().any(|s| s.tests.len() == 12) {
        let not_run = run["plan"]["not_run"].as_array().unwrap();
        if !not_run.is_empty() {
            return Err(format!("a full report, yet not run: {not_run:?}"));
        }
    }
    Ok(())
}

#[test]
fn unixbench_reports_import_all_twelve_tests_and_their_index() {
    let files = corpus("unixbench");
    assert!(files.len() >= 10, "{}", files.len());
    let mut outcomes = Vec::new();
    for file in &files {
        let name = file.file_name().unwrap().to_string_lossy().to_string();
        let text = std::fs::read_to_string(file).unwrap();
        let sections = if name.ends_with(".html") {
            unixbench_html(&text)
        } else {
            unixbench_text(&text)
        };
        let dir = tempfile::tempdir().unwrap();
        let outcome = classify(&name, import(file, dir.path()), |runs| {
            check_unixbench(&sections, &runs[0])
        });
        println!("{name}: {outcome:?}");
        outcomes.push((name, outcome));
    }
    tally("UnixBench reports", &outcomes);
}

// ---- DiskSpd: an independent reader ----

/// What a DiskSpd result says in total: per direction the bytes, the I/Os
/// and the I/Os per second, and with one target the mean latency (ms) and
/// the 50th and 99th percentiles (ms) it printed.
#[derive(Debug, Default)]
struct DsDir {
    bytes: u64,
    ios: u64,
    per_s: Option<f64>,
    mean_ms: Option<f64>,
    p50_ms: Option<f64>,
    p99_ms: Option<f64>,
}

/// The number after `<name>` in `xml`, from `from` on.
fn xml_numbers<'a>(xml: &'a str, name: &'a str) -> impl Iterator<Item = f64> + 'a {
    let open = format!("<{name}>");
    xml.match_indices(open.clone().leak() as &str)
        .filter_map(move |(i, _)| {
            let rest = &xml[i + open.len()..];
            rest[..rest.find('<')?].trim().parse().ok()
        })
}

fn diskspd_xml(xml: &str) -> [DsDir; 2] {
    // The results follow <TestTimeSeconds>; the profile before it has none of these.
    let res = &xml[xml.find("<TestTimeSeconds>").unwrap()..];
    let bucket = |pct: &str, key: &str| -> Option<f64> {
        let at = res.find(&format!("<Percentile>{pct}</Percentile>"))?;
        xml_numbers(&res[at..], key).next()
    };
    let threads = &res[res.find("<Thread>").unwrap()..];
    let dir = |b: &str, c: &str, avg: &str, ms: &str| DsDir {
        bytes: xml_numbers(threads, b).sum::<f64>() as u64,
        ios: xml_numbers(threads, c).sum::<f64>() as u64,
        per_s: None,
        mean_ms: xml_numbers(res, avg).next(),
        p50_ms: bucket("50", ms),
        p99_ms: bucket("99", ms),
    };
    [
        dir(
            "ReadBytes",
            "ReadCount",
            "AverageReadMilliseconds",
            "ReadMilliseconds",
        ),
        dir(
            "WriteBytes",
            "WriteCount",
            "AverageWriteMilliseconds",
            "WriteMilliseconds",
        ),
    ]
}

fn diskspd_text(text: &str) -> [DsDir; 2] {
    let total_line = |title: &str| -> Vec<String> {
        let at = text.find(&format!("\n{title}\n")).unwrap();
        let line = text[at..]
            .lines()
            .find(|l| l.starts_with("total:"))
            .unwrap();
        line["total:".len()..]
            .split('|')
            .map(|c| c.trim().to_string())
            .collect()
    };
    // The distribution over all targets is the last one printed.
    let pct = |row: &str, col: usize| -> Option<f64> {
        let line = text
            .lines()
            .rev()
            .find(|l| l.trim_start().starts_with(&format!("{row} |")))?;
        line.split('|').nth(col)?.trim().parse().ok()
    };
    let lat = text.contains("AvgLat");
    let dir = |title: &str, col: usize| {
        let c = total_line(title);
        DsDir {
            bytes: c[0].parse().unwrap(),
            ios: c[1].parse().unwrap(),
            per_s: c[3].parse().ok(),
            mean_ms: if lat { c[4].parse().ok() } else { None },
            p50_ms: pct("50th", col),
            p99_ms: pct("99th", col),
        }
    };
    [dir("Read IO", 1), dir("Write IO", 2)]
}

fn check_diskspd(theirs: &[DsDir; 2], run: &Value) -> Result<(), String> {
    let ms = run["measurements"].as_array().unwrap();
    let one_target = ms.len() == 1;
    for (key, t) in ["read", "write"].iter().zip(theirs) {
        let ours: Vec<&Value> = ms
            .iter()
            .map(|m| &m[*key])
            .filter(|d| !d.is_null())
            .collect();
        let bytes: u64 = ours.iter().map(|d| d["bytes"].as_u64().unwrap()).sum();
        let ios: u64 = ours.iter().map(|d| d["ops"].as_u64().unwrap()).sum();
        if bytes != t.bytes || ios != t.ios {
            return Err(format!(
                "{key}: {bytes} bytes in {ios} I/Os, DiskSpd's {} in {}",
                t.bytes, t.ios
            ));
        }
        let iops: f64 = ours.iter().map(|d| d["iops"].as_f64().unwrap()).sum();
        // DiskSpd prints I/O per s to 2 decimals.
        if let Some(p) = t.per_s.filter(|_| t.ios > 0) {
            if (iops - p).abs() > 0.006 + p * 1e-6 {
                return Err(format!("{key}: {iops} I/O per s, DiskSpd's {p}"));
            }
        }
        let Some(d) = ours.first().filter(|_| one_target) else {
            continue;
        };
        let l = &d["lat_ns"];
        if let Some(mean) = t.mean_ms {
            // The total line's mean, to its 3 decimals of ms.
            if (l["mean"].as_f64().unwrap() - mean * 1e6).abs() > 500.0 + 1e-6 {
                return Err(format!("{key}: mean {} ns, DiskSpd's {mean} ms", l["mean"]));
            }
        }
        for (p, want) in [("p50", t.p50_ms), ("p99", t.p99_ms)] {
            let want = want.map_or(0, |ms| (ms * 1e6).round() as u64);
            if l[p].as_u64() != Some(want) {
                return Err(format!("{key}: {p} {} ns, DiskSpd's {want} ns", l[p]));
            }
        }
    }
    // The cache state is said where DiskSpd ran through the OS cache.
    for m in ms {
        if m["spec"]["direct"] == false
            && !m["notes"]
                .as_array()
                .unwrap()
                .iter()
                .any(|n| n.as_str().unwrap().contains("OS cache on"))
        {
            return Err("ran through the OS cache, and no note says so".into());
        }
    }
    Ok(())
}

#[test]
fn diskspd_results_import_right_or_are_refused_for_a_true_reason() {
    let files = corpus("diskspd");
    assert!(files.len() >= 10, "{}", files.len());
    let mut outcomes = Vec::new();
    for file in &files {
        let name = file.file_name().unwrap().to_string_lossy().to_string();
        let text = std::fs::read_to_string(file).unwrap();
        let theirs = if name.ends_with(".xml") {
            diskspd_xml(&text)
        } else {
            diskspd_text(&text)
        };
        let dir = tempfile::tempdir().unwrap();
        let outcome = classify(&name, import(file, dir.path()), |runs| {
            check_diskspd(&theirs, &runs[0])
        });
        println!("{name}: {outcome:?}");
        outcomes.push((name, outcome));
    }
    tally("DiskSpd results", &outcomes);
}

// ---- CrystalDiskMark: an independent reader ----

/// Every [Read] and [Write] row: (the battery's name of the test, read?,
/// MB/s, IOPS, µs), as printed.
fn cdm_rows(text: &str) -> Vec<(String, bool, f64, f64, f64)> {
    let mut read = None;
    let mut rows = Vec::new();
    for line in text.lines() {
        let t = line.trim();
        match t {
            "[Read]" => read = Some(true),
            "[Write]" => read = Some(false),
            _ if t.starts_with("[Mix]") => read = None,
            _ if t.contains(" MB/s [") => {
                let Some(read) = read else { continue };
                let w: Vec<&str> = t.split_whitespace().collect();
                // SEQ 1MiB (Q= 8, T= 1): 531.458 MB/s [ 506.8 IOPS] < 15726.77 us>
                let block = w[1].replace("MiB", "M").replace("KiB", "K");
                let digits = |s: &str| s.chars().filter(char::is_ascii_digit).collect::<String>();
                let inside = &t[t.find('(').unwrap() + 1..t.find(')').unwrap()];
                let (q, th) = inside.split_once(',').unwrap();
                let name = format!("{}{block} Q{}T{}", w[0], digits(q), digits(th));
                let after = &t[t.find("):").unwrap() + 2..];
                let mbs: f64 = after.split_whitespace().next().unwrap().parse().unwrap();
                let iops: f64 = after[after.find('[').unwrap() + 1..after.find("IOPS").unwrap()]
                    .trim()
                    .parse()
                    .unwrap();
                let us: f64 = after[after.find('<').unwrap() + 1..after.find("us>").unwrap()]
                    .trim()
                    .parse()
                    .unwrap();
                rows.push((name, read, mbs, iops, us));
            }
            _ => {}
        }
    }
    rows
}

fn check_cdm(rows: &[(String, bool, f64, f64, f64)], run: &Value) -> Result<(), String> {
    let ms = run["measurements"].as_array().unwrap();
    if ms.len() != rows.len() {
        return Err(format!("{} measurements, {} rows", ms.len(), rows.len()));
    }
    for (m, (name, read, mbs, iops, us)) in ms.iter().zip(rows) {
        let d = &m[if *read { "read" } else { "write" }];
        if m["profile"] != name.as_str() {
            return Err(format!("{name}: named {}", m["profile"]));
        }
        if !close(d["bytes_per_sec"].as_f64().unwrap(), mbs * 1e6)
            || d["iops"].as_f64() != Some(*iops)
            || !close(d["lat_ns"]["mean"].as_f64().unwrap(), us * 1000.0)
        {
            return Err(format!("{name}: {d}, CDM's {mbs} MB/s {iops} IOPS {us} us"));
        }
    }
    Ok(())
}

#[test]
fn crystaldiskmark_results_import_with_the_battery_names() {
    let files = corpus("crystaldiskmark");
    assert!(files.len() >= 5, "{}", files.len());
    let mut outcomes = Vec::new();
    for file in &files {
        let name = file.file_name().unwrap().to_string_lossy().to_string();
        let rows = cdm_rows(&std::fs::read_to_string(file).unwrap());
        let dir = tempfile::tempdir().unwrap();
        let outcome = classify(&name, import(file, dir.path()), |runs| {
            check_cdm(&rows, &runs[0])
        });
        println!("{name}: {outcome:?}");
        outcomes.push((name, outcome));
    }
    tally("CrystalDiskMark results", &outcomes);
}
