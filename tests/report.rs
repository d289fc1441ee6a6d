//! `candor report` and `candor compare`: every format on a synthetic
//! battery, the HTML opened in a real headless Chromium, comparisons of
//! several Runs, and bad input (exit 2, one line naming the file).

use crate::common;

use assert_cmd::Command;
use candor::report::{render, render_compare, render_with, Format, Options, RateUnit};
use candor::result::{Run, RunStatus};
use std::path::{Path, PathBuf};

const HOSTILE: &str = "<script>alert(1)</script>";

/// The comparison of `runs` with their cross-host findings, as
/// `candor compare` computes them before rendering.
fn compare_runs(runs: &[Run], format: Format, sort: Option<&str>) -> anyhow::Result<String> {
    render_compare(runs, &candor::findings::analyze_many(runs), format, sort)
}

fn write_run(dir: &Path, name: &str, run: &Run) -> PathBuf {
    let path = dir.join(name);
    std::fs::write(&path, serde_json::to_string_pretty(run).unwrap()).unwrap();
    path
}

/// The binary, kept from adding to the user's history (tests/history.rs tests that).
fn candor() -> Command {
    let mut cmd = Command::cargo_bin("candor").unwrap();
    cmd.env("CANDOR_NO_HISTORY", "1");
    cmd
}

/// A sentence shared by several compute tests is one note naming them all;
/// the scaling notes stay out (the compute table has that column).
/// The text report with `--verbose`: every note and every finding's evidence.
fn verbose_text(run: &Run) -> String {
    render_with(
        run,
        Format::Text,
        &Options {
            verbose: true,
            ..Default::default()
        },
    )
}

/// The summary a person reads first, of every fixture Run (a quick battery
/// made with its block stack on this VM among them): about two screens
/// (at most 100 lines), every checked finding's verdict on its own line,
/// most severe first, no evidence dump; `--verbose` has the evidence.
#[test]
fn the_summary_fits_two_screens_with_every_verdict() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/runs");
    let mut seen = 0;
    for entry in std::fs::read_dir(&dir).unwrap() {
        let path = entry.unwrap().path();
        let run = candor::result::read_run(&path).unwrap();
        let text = render(&run, Format::Text);
        let name = path.display();
        assert!(
            text.lines().count() <= 100,
            "{name}: {} lines",
            text.lines().count()
        );
        let dump = |t: &str| t.lines().any(|l| l.trim_start().starts_with("evidence: "));
        assert!(!dump(&text), "{name}:\n{text}");
        let checked: Vec<&candor::result::Finding> = run
            .findings
            .iter()
            .filter(|f| {
                f.status == candor::result::FindingStatus::Checked
                    && f.id != candor::findings::CLAIMS_ID
            })
            .collect();
        let mut at = Vec::new();
        for f in &checked {
            let line = text
                .lines()
                .position(|l| l.starts_with("  ") && l.ends_with(&f.verdict))
                .unwrap_or_else(|| panic!("{name}: {}'s verdict missing:\n{text}", f.id));
            at.push((line, std::cmp::Reverse(f.severity)));
        }
        at.sort();
        assert!(
            at.windows(2).all(|w| w[0].1 <= w[1].1),
            "{name}: most severe first"
        );
        let verbose = verbose_text(&run);
        if checked
            .iter()
            .any(|f| f.evidence.as_object().is_some_and(|o| !o.is_empty()))
        {
            assert!(dump(&verbose), "{name}");
            assert!(text.contains("--verbose shows them"), "{name}");
        }
        seen += 1;
    }
    assert!(seen >= 20, "fixture Runs");
    let quick = render(
        &candor::result::read_run(&dir.join("battery-quick.json")).unwrap(),
        Format::Text,
    );
    assert!(
        quick.contains("Block stack\n"),
        "where a layer did something"
    );
    assert!(quick.contains("(3 of 11 measurements: the first pass of each test where"));
}

#[test]
fn shared_compute_notes_are_grouped() {
    use candor::result::Measurement;
    let mut run = common::battery("web-1", 1.0);
    let shared = "uses the CPU's AES and SHA instructions where present";
    let mut sha = run
        .measurements
        .iter()
        .find_map(|m| match m {
            Measurement::Crypto(c) => Some(c.clone()),
            _ => None,
        })
        .expect("the synthetic battery has a crypto test");
    sha.spec.test = "sha-256".into();
    run.measurements.push(Measurement::Crypto(sha));
    for m in &mut run.measurements {
        if let Measurement::Crypto(c) = m {
            c.notes.push(shared.to_string());
            c.notes
                .push("scaling: 1.99x the 1-thread figure with 2 threads".to_string());
        }
    }
    let text = verbose_text(&run);
    let lines: Vec<&str> = text.lines().filter(|l| l.contains(shared)).collect();
    assert_eq!(lines.len(), 1, "{text}");
    assert!(
        lines[0].trim_start().starts_with("- crypto ") && lines[0].contains(", sha-256: "),
        "{}",
        lines[0]
    );
    assert!(!text.contains("scaling: 1.99x"), "{text}");
}

/// A submit batch other than fio's default of one is named on the Engine line.
#[test]
fn submit_batch_is_named_in_the_header() {
    let mut run = common::battery("web-1", 1.0);
    assert!(!render(&run, Format::Text).contains("operations per submit call"));
    for m in &mut run.measurements {
        if let candor::result::Measurement::Disk(d) = m {
            d.spec.iodepth_batch = Some(4);
        }
    }
    let text = render(&run, Format::Text);
    assert!(
        text.lines()
            .any(|l| l.contains("Engine") && l.contains("io_uring (4 operations per submit call)")),
        "{text}"
    );
}

#[test]
fn text_summary_has_the_battery() {
    let run = common::battery("web-1", 1.0);
    let text = render(&run, Format::Text);
    println!("{text}");
    // Facts: test dir, file sizes, engine, duration.
    assert!(text.contains("/var/tmp (ext4 on vda)"), "test dir");
    assert!(text.contains("main 1 GiB · control 16 GiB"), "file sizes");
    assert!(text.contains("io_uring"), "engine");
    assert!(text.contains("took 41m12s"), "duration");
    assert!(text.contains("3 passes"));
    // Medians over passes: pass 2 of SEQ1M Q8T1 read is 1474.8e6 * 1.02 bytes/s.
    let seq = text
        .lines()
        .find(|l| l.contains("SEQ1M Q8T1") && l.contains("read"))
        .unwrap();
    assert!(seq.contains(&format!("{:.1}", 1474.8 * 1.02)), "{seq}");
    assert!(seq.contains("x1.02"), "spread max/min: {seq}");
    assert!(seq.contains("29.9x"), "main/control ratio: {seq}");
    assert!(text.contains("MB/s"));
    // Both directions of the mix.
    assert_eq!(
        text.lines()
            .filter(|l| l.trim_start().starts_with("MIX70"))
            .count(),
        2
    );
    // Compute, a row per test, its thread counts side by side, with scaling.
    let primes = text.lines().find(|l| l.contains("cpu primes")).unwrap();
    assert!(primes.contains("events/s"), "{primes}");
    assert!(primes.ends_with("3.70x"), "scaling 4570.2/1234.5: {primes}");
    assert_eq!(text.matches("cpu primes").count(), 1, "{text}");
    assert!(text.contains("os syscall") && text.contains("ops/s"));
    // Each finding's verdict on one line, most severe first, its evidence
    // left for --verbose; the claims.
    let head = text
        .lines()
        .position(|l| l.starts_with("  WARNING  host-cache (SEQ1M Q8T1 read): "))
        .expect("the finding's verdict");
    assert!(
        text.lines().nth(head + 1).unwrap().starts_with("  "),
        "{text}"
    );
    assert!(!text.contains("evidence: control_mb_s"), "{text}");
    assert!(text.contains("not checked (evidence missing): limiter-flat"));
    assert!(text.contains("What cannot be claimed"));
    assert!(text.contains("host-cache: how fast the medium itself is"));
    // What a compute figure is: counted, and said with --verbose.
    let note = "memory stream-triad: RAM bandwidth: arrays at least 4x the last-level cache";
    assert!(!text.contains(note), "{text}");
    assert!(
        text.contains("Left out here: the evidence of ") && text.contains("--verbose shows them"),
        "{text}"
    );
    let verbose = render_with(
        &run,
        Format::Text,
        &Options {
            verbose: true,
            ..Default::default()
        },
    );
    // What a compute figure is, once, however many passes said it.
    assert_eq!(verbose.matches(note).count(), 1, "{verbose}");
    assert!(verbose.contains("evidence: control_mb_s=49.3, main_mb_s=1474.8, ratio=29.9"));
    assert!(verbose.contains("3.70x of 1 thread"), "{verbose}");
    assert!(!verbose.contains("Left out here"), "{verbose}");
}

#[test]
fn mib_unit_is_available_and_written() {
    let run = common::battery("web-1", 1.0);
    let text = render_with(
        &run,
        Format::Text,
        &Options {
            unit: RateUnit::Mib,
            ..Default::default()
        },
    );
    assert!(text.contains("MiB/s = 2^20 bytes/s"));
    let seq = text
        .lines()
        .find(|l| l.contains("SEQ1M Q8T1") && l.contains("read"))
        .unwrap();
    assert!(
        seq.contains(&format!("{:.1}", 1474.8e6 * 1.02 / 1048576.0)),
        "{seq}"
    );
}

#[test]
fn markdown_tables_and_escaping() {
    let run = common::battery(HOSTILE, 1.0);
    let md = render(&run, Format::Md);
    assert!(md.contains("| test | op | MB/s | IOPS |"));
    assert!(md.contains("|:---|:---|---:|"));
    assert!(
        !md.contains("<script>"),
        "label must be escaped in Markdown"
    );
    assert!(md.contains("\\<script\\>"));
}

#[test]
fn csv_has_stable_columns_and_a_row_per_direction() {
    let run = common::battery("web-1", 1.0);
    let csv = render(&run, Format::Csv);
    let mut lines = csv.lines();
    let header = lines.next().unwrap();
    assert!(header.starts_with("measurement,kind,label,pass,role,rw,direction,bs,iodepth"));
    let rows: Vec<&str> = lines.collect();
    // Per pass: 12 disk measurements (MIX70 has two directions) + 5 compute.
    assert_eq!(rows.len(), 3 * (12 + 1 + 5));
    let cols = header.split(',').count();
    assert!(rows.iter().all(|r| r.split(',').count() == cols));
    let mix: Vec<&&str> = rows.iter().filter(|r| r.contains(",MIX70,")).collect();
    assert_eq!(mix.len(), 6);
    // bytes_per_sec is raw bytes/s; mb_per_sec is the same in 10^6.
    let first = rows[0].split(',').collect::<Vec<_>>();
    let h: Vec<&str> = header.split(',').collect();
    let at = |name: &str| h.iter().position(|c| *c == name).unwrap();
    let bps: f64 = first[at("bytes_per_sec")].parse().unwrap();
    let mbs: f64 = first[at("mb_per_sec")].parse().unwrap();
    assert!((bps / 1e6 - mbs).abs() < 1e-6);
}

#[test]
fn json_is_the_run_normalised() {
    let run = common::battery("web-1", 1.0);
    let json = render(&run, Format::Json);
    let dir = tempfile::tempdir().unwrap();
    let p = dir.path().join("r.json");
    std::fs::write(&p, &json).unwrap();
    let back = candor::result::read_run(&p).unwrap();
    assert_eq!(back.measurements.len(), run.measurements.len());
    assert_eq!(back.label.as_deref(), Some("web-1"));
}

#[test]
fn html_is_self_contained_and_escaped() {
    let run = common::battery(HOSTILE, 1.0);
    let html = render(&run, Format::Html);
    assert!(!html.contains("<script"), "no script element at all");
    assert!(html.contains("&lt;script&gt;alert(1)&lt;/script&gt;"));
    assert!(
        !html
            .replace("http://www.w3.org/2000/svg", "")
            .contains("http"),
        "no URLs but the SVG namespace"
    );
    assert!(!html.contains("src="), "no external assets");
    assert!(!html.contains("<link"), "no external stylesheets");
    let charts = html.matches("<svg").count();
    // 2 percentile charts, 1 main/control, 13 per-second series (11 main + 2
    // control rows), 3 compute (events/s, bytes/s, ops/s).
    assert_eq!(charts, 2 + 1 + 13 + 3, "charts");
    assert!(!html.contains("data-points=\"0\""));
}

/// Opens the HTML report in headless Chromium: no console errors, the
/// hostile label is text, the charts are SVG with data, and a screenshot.
#[test]
fn html_in_headless_chromium() {
    let Some(chromium) = common::chromium::find() else {
        return;
    };
    let out = Path::new(env!("CARGO_TARGET_TMPDIR")).join("report-chromium");
    let _ = std::fs::remove_dir_all(&out);
    std::fs::create_dir_all(&out).unwrap();
    for (name, run) in chromium_runs(&out) {
        check_in_chromium(chromium, &out, &name, &render(&run, Format::Html));
    }
    let mut runs = vec![common::battery(HOSTILE, 1.0), common::battery("bravo", 2.0)];
    runs.push(real_disk_run(&out, "randread", "charlie"));
    let html = compare_runs(&runs, Format::Html, Some("SEQ1M Q8T1 read")).unwrap();
    check_in_chromium(chromium, &out, "compare", &html);
}

fn check_in_chromium(chromium: &Path, out: &Path, name: &str, html: &str) {
    let html_path = out.join(format!("{name}.html"));
    std::fs::write(&html_path, html).unwrap();
    let chrome = |extra: &[String]| common::chromium::open(chromium, &html_path, extra);
    let (status, dom, log) = chrome(&["--dump-dom".to_string()]);
    assert!(
        status.success(),
        "{name}: chromium --dump-dom failed: {status}\n{log}"
    );
    // Console errors (uncaught exceptions, failed loads) would show in the log.
    let errors = common::chromium::log_errors(&log);
    assert!(
        errors.is_empty(),
        "{name}: chromium reported {errors:?}:\n{log}"
    );
    // The label is text, not an element.
    assert!(
        dom.contains("&lt;script&gt;alert(1)&lt;/script&gt;"),
        "{name}: label shown as text"
    );
    assert!(
        !dom.contains("<script"),
        "{name}: no script element in the DOM"
    );
    // Charts: SVG elements with data.
    let points = common::chromium::data_points(&dom);
    assert!(
        points.len() >= 3,
        "{name}: charts in the DOM: {}",
        points.len()
    );
    assert!(
        points.iter().all(|&p| p > 0),
        "{name}: every chart has data: {points:?}"
    );
    let marks = dom.matches("class=\"line\" d=\"M").count() + dom.matches("class=\"bar\"").count();
    assert!(marks >= 3, "{name}: drawn lines and bars: {marks}");
    let shot = out.join(format!("{name}.png"));
    let (status, _, log) = chrome(&[
        format!("--screenshot={}", shot.display()),
        "--window-size=1400,2400".to_string(),
        "--hide-scrollbars".to_string(),
    ]);
    assert!(
        status.success(),
        "{name}: chromium --screenshot failed: {status}\n{log}"
    );
    let size = std::fs::metadata(&shot).map(|m| m.len()).unwrap_or(0);
    assert!(
        size > 20_000,
        "screenshot {} is {size} bytes",
        shot.display()
    );
    println!("report HTML: {}", html_path.display());
    println!("screenshot: {}", shot.display());
}

/// The Runs for the Chromium test: the synthetic battery (every chart kind),
/// a real `candor disk` job run now on this machine, and the Run file that
/// CANDOR_REPORT_RUN names, if set (e.g. from `candor run --preset quick`).
fn chromium_runs(dir: &Path) -> Vec<(String, Run)> {
    let mut runs = vec![("battery".to_string(), common::battery("synthetic", 1.0))];
    runs.push((
        "disk".to_string(),
        real_disk_run_for(dir, "randrw", "real", "3s"),
    ));
    match real_quick_battery(dir) {
        Some(run) => runs.push(("quick".to_string(), run)),
        None => {
            eprintln!("NOTE: `candor run` is not built in this tree: no real quick battery opened")
        }
    }
    if let Some(p) = std::env::var_os("CANDOR_REPORT_RUN") {
        let run = candor::result::read_run(Path::new(&p)).expect("CANDOR_REPORT_RUN is a Run");
        runs.push(("given".to_string(), run));
    }
    for (_, run) in &mut runs {
        run.label = Some(HOSTILE.to_string());
    }
    runs
}

/// A real `candor run --preset quick`, shortened to seconds (1 s per test,
/// 32 MiB file), in a fresh directory under /var/tmp; None while `candor run`
/// is not built in this tree.
fn real_quick_battery(dir: &Path) -> Option<Run> {
    let help = candor().args(["run", "--help"]).output().unwrap();
    if !String::from_utf8_lossy(&help.stdout).contains("--preset") {
        return None;
    }
    let testdir = tempfile::Builder::new()
        .prefix("candor-report-test")
        .tempdir_in("/var/tmp")
        .unwrap();
    let out = dir.join("quick.json");
    candor()
        .args([
            "run",
            "--preset",
            "quick",
            "--runtime",
            "1s",
            "--ramp",
            "0s",
            "--pause",
            "0s",
        ])
        .args([
            "--size",
            "32M",
            "--compute-runtime",
            "200ms",
            "--quiet",
            "--label",
            "quick",
        ])
        .arg("--dir")
        .arg(testdir.path())
        .arg("--output")
        .arg(&out)
        .assert()
        .success();
    Some(candor::result::read_run(&out).unwrap())
}

/// A real, short `candor disk` job on this machine (/var/tmp, 16 MiB, 1 s).
fn real_disk_run(dir: &Path, rw: &str, label: &str) -> Run {
    real_disk_run_for(dir, rw, label, "1s")
}

/// `real_disk_run` with a runtime (3 s gives a per-second series of 3 points).
fn real_disk_run_for(dir: &Path, rw: &str, label: &str, runtime: &str) -> Run {
    let out = dir.join(format!("{label}-{rw}.json"));
    candor()
        .args([
            "disk",
            "--rw",
            rw,
            "--size",
            "16M",
            "--runtime",
            runtime,
            "--ramp",
            "200ms",
        ])
        .args(["--iodepth", "4", "--label", label, "--output"])
        .arg(&out)
        .assert()
        .success();
    candor::result::read_run(&out).unwrap()
}

#[test]
fn compare_three_hosts_in_text_md_csv() {
    let a = common::battery("alpha", 1.0);
    let mut b = common::battery("bravo", 2.0);
    // bravo has 8 vCPUs: its all-thread primes share the column with alpha's 4.
    for m in &mut b.measurements {
        if let candor::result::Measurement::Cpu(c) = m {
            if c.spec.threads == 4 {
                c.spec.threads = 8;
            }
        }
    }
    let mut c = common::battery("charlie", 0.5);
    // charlie lacks FSYNC4K and ran a newer candor.
    c.measurements.retain(|m| !matches!(m, candor::result::Measurement::Disk(d) if d.profile.as_deref() == Some("FSYNC4K")));
    c.tool.version = "0.2.0".to_string();
    c.status = RunStatus::Interrupted;
    b.findings.push(candor::result::Finding {
        id: "app-commit".into(),
        severity: candor::result::Severity::Info,
        status: candor::result::FindingStatus::Checked,
        subject: Some("FSYNC4K write".into()),
        verdict: "one writer commits near 1,594/s".into(),
        evidence: serde_json::json!({"fsync_p50_ns": 610000}),
        meaning: String::new(),
        not_proven: String::new(),
    });
    let runs = vec![a, b, c];
    let text = compare_runs(&runs, Format::Text, None).unwrap();
    println!("{text}");
    assert!(text.contains("SEQ1M Q8T1"));
    let row = |name: &str| {
        text.lines()
            .find(|l| l.trim_start().starts_with(name))
            .unwrap()
            .to_string()
    };
    // FSYNC4K is an IOPS column (4 KiB): charlie shows "–".
    assert!(text.contains("FSYNC4K\nwrite IOPS") || text.contains("write IOPS"));
    let fsync_col_missing = text
        .lines()
        .filter(|l| l.trim_start().starts_with("charlie"))
        .any(|l| l.contains('–'));
    assert!(fsync_col_missing, "missing test shows as –");
    assert!(row("alpha").contains(&format!("{:.1}", 1474.8 * 1.02)));
    assert!(row("bravo").contains(&format!("{:.1}", 2.0 * 1474.8 * 1.02)));
    assert!(text.contains("Different tool versions"), "version note");
    assert_eq!(
        text.matches("cpu primes").count(),
        2,
        "1T and all threads: {text}"
    );
    assert!(text.contains("all threads events/s"));
    assert!(text.contains("charlie is interrupted"));
    assert!(
        text.contains("alpha: [warning] host-cache"),
        "findings under the table"
    );
    assert!(text.contains("evidence: control_mb_s=49.3"));
    // Informational findings are counted, not listed, under a comparison.
    assert!(!text.contains("one writer commits"));
    assert!(text.contains("bravo: 1 informational finding (see its report); 1 check not made"));

    let md = compare_runs(&runs, Format::Md, None).unwrap();
    assert!(md.contains("| host | SEQ1M Q8T1 read MB/s |"));
    assert_eq!(
        md.lines()
            .filter(|l| l.starts_with("| alpha")
                || l.starts_with("| bravo")
                || l.starts_with("| charlie"))
            .count(),
        3
    );

    let csv = compare_runs(&runs, Format::Csv, None).unwrap();
    let lines: Vec<&str> = csv.lines().collect();
    assert_eq!(lines.len(), 4);
    assert!(lines[0]
        .starts_with("host,SEQ1M Q8T1 read MB/s,SEQ1M Q8T1 read spread,SEQ1M Q8T1 read passes"));
    assert!(lines[1].starts_with(&format!("alpha,{}", 1474.8 * 1.02)));

    // Sorted best first by a column; latency sorts lowest first.
    let sorted = compare_runs(&runs, Format::Csv, Some("seq1m q8t1 read")).unwrap();
    let order: Vec<&str> = sorted
        .lines()
        .skip(1)
        .map(|l| l.split(',').next().unwrap())
        .collect();
    assert_eq!(order, ["bravo", "alpha", "charlie"]);
    let err = compare_runs(&runs, Format::Text, Some("no such column")).unwrap_err();
    assert!(candor::error::is_usage(&err));
    assert!(err.to_string().contains("no such column"));
    let err = compare_runs(&runs, Format::Text, Some("RND4K")).unwrap_err();
    assert!(err.to_string().contains("matches"), "{err}");
}

#[test]
fn cli_report_and_compare_write_files() {
    let dir = tempfile::tempdir().unwrap();
    let a = write_run(dir.path(), "a.json", &common::battery("alpha", 1.0));
    let b = write_run(dir.path(), "b.json", &common::battery("bravo", 1.5));
    let html = dir.path().join("a.html");
    candor()
        .args([
            "report",
            a.to_str().unwrap(),
            "--format",
            "html",
            "-o",
            html.to_str().unwrap(),
        ])
        .assert()
        .success();
    assert!(std::fs::read_to_string(&html)
        .unwrap()
        .starts_with("<!DOCTYPE html>"));
    let out = candor()
        .args(["report", a.to_str().unwrap(), "--unit", "MiB"])
        .assert()
        .success();
    assert!(String::from_utf8_lossy(&out.get_output().stdout).contains("MiB/s"));
    let out = candor()
        .args([
            "compare",
            a.to_str().unwrap(),
            b.to_str().unwrap(),
            "--format",
            "md",
            "--sort",
            "host",
        ])
        .assert()
        .success();
    assert!(String::from_utf8_lossy(&out.get_output().stdout).contains("| alpha |"));
}

/// Bad input exits 2 with one line that names the file and the problem.
#[test]
fn bad_input_exits_2_with_one_line() {
    let dir = tempfile::tempdir().unwrap();
    let p = |name: &str, text: &str| {
        let path = dir.path().join(name);
        std::fs::write(&path, text).unwrap();
        path.to_str().unwrap().to_string()
    };
    let good = serde_json::to_string(&common::battery("x", 1.0)).unwrap();
    let cases = [
        (p("notjson.json", "hello, world"), "not JSON"),
        (p("notrun.json", "{\"jobs\": []}"), "not a candor Run"),
        (p("truncated.json", &good[..good.len() / 2]), "truncated"),
        (
            p("newer.json", "{\"schema\": \"candor.run/9\"}"),
            "newer candor",
        ),
        (
            dir.path()
                .join("missing.json")
                .to_str()
                .unwrap()
                .to_string(),
            "cannot read",
        ),
    ];
    let good_path = p("good.json", &good);
    for (file, problem) in &cases {
        for args in [
            vec!["report", file.as_str()],
            vec!["compare", good_path.as_str(), file.as_str()],
        ] {
            let out = candor().args(&args).assert().code(2);
            let err = String::from_utf8_lossy(&out.get_output().stderr).to_string();
            assert_eq!(err.lines().count(), 1, "one line: {err}");
            assert!(
                err.contains(file.as_str()) && err.contains(problem),
                "{args:?}: {err}"
            );
        }
    }
    for cmd in ["report", "compare"] {
        let out = candor().arg(cmd).assert().code(2);
        let err = String::from_utf8_lossy(&out.get_output().stderr).to_string();
        assert_eq!(err.lines().count(), 1, "one line: {err}");
        assert!(err.contains("no Run file"), "{err}");
    }
    let out = candor()
        .args(["report", &good_path, "-o", "/nonexistent-dir/r.html"])
        .assert()
        .code(2);
    let err = String::from_utf8_lossy(&out.get_output().stderr).to_string();
    assert!(
        err.contains("/nonexistent-dir") && err.lines().count() == 1,
        "{err}"
    );
    let out = candor()
        .args(["compare", &good_path, "--sort", "nope"])
        .assert()
        .code(2);
    let err = String::from_utf8_lossy(&out.get_output().stderr).to_string();
    assert_eq!(err.lines().count(), 1, "{err}");
}

/// A single real job: the text summary ends with the fio command that reproduces it.
#[test]
fn single_job_text_has_its_fio_command() {
    let dir = tempfile::tempdir().unwrap();
    let run = real_disk_run(dir.path(), "randwrite", "single");
    let text = render(&run, Format::Text);
    let d = run.disk().next().unwrap();
    assert!(
        text.contains(&format!("Reproduce with fio:\n  {}", d.fio_command)),
        "{text}"
    );
    assert!(text.contains("RND4K Q4T1  write"), "{text}");
    let html = render(&run, Format::Html);
    assert!(html.contains("<h2>Reproduce with fio</h2>"));
}

/// compare on three real Runs made now on this machine with different labels.
#[test]
fn compare_three_real_runs() {
    let dir = tempfile::tempdir().unwrap();
    let mut files = Vec::new();
    for (label, rw) in [
        ("host-a", "randread"),
        ("host-b", "randread"),
        ("host-c", "randwrite"),
    ] {
        real_disk_run(dir.path(), rw, label);
        files.push(dir.path().join(format!("{label}-{rw}.json")));
    }
    for format in ["text", "md", "csv"] {
        let o = candor()
            .arg("compare")
            .args(&files)
            .args(["--format", format])
            .assert()
            .success();
        let out = String::from_utf8_lossy(&o.get_output().stdout).to_string();
        println!("{out}");
        for label in ["host-a", "host-b", "host-c"] {
            assert!(out.contains(label), "{format}: {label}");
        }
        // host-c ran only random writes: its random-read cell is missing, and vice versa.
        assert!(
            out.contains("RND4K Q4T1") && out.contains("read") && out.contains("write"),
            "{format}"
        );
        if format != "csv" {
            assert!(out.contains('–'), "{format}: missing tests show as –");
        }
    }
}

/// A sweep (block sizes x queue depths, one job each) draws IOPS and rate
/// against queue depth, one line per block size.
#[test]
fn sweep_charts_iops_and_rate_vs_queue_depth() {
    let mut run = common::battery("sweep", 1.0);
    run.measurements
        .retain(|m| !matches!(m, candor::result::Measurement::Disk(_)));
    let template = common::battery("x", 1.0)
        .disk()
        .find(|d| d.profile.as_deref() == Some("RND4K Q32T1"))
        .unwrap()
        .clone();
    for bs in [4096u64, 8192, 65536] {
        for qd in [1u32, 4, 16, 32] {
            let mut d = template.clone();
            d.profile = None;
            d.pass = None;
            d.spec.bs = bs;
            d.spec.iodepth = qd;
            // An IOPS cap of 10,000: the rate doubles with the block size.
            let iops = (qd as f64 * 3000.0).min(10_000.0);
            d.read = Some(common::stats(
                iops * bs as f64,
                bs,
                100_000 * qd as u64,
                3,
                false,
            ));
            run.measurements.push(candor::result::Measurement::Disk(d));
        }
    }
    let html = render(&run, Format::Html);
    let path = Path::new(env!("CARGO_TARGET_TMPDIR")).join("sweep.html");
    std::fs::write(&path, &html).unwrap();
    println!("sweep HTML: {}", path.display());
    assert_eq!(
        html.matches("data-chart=\"line\" data-points=\"12\"")
            .count(),
        2,
        "IOPS and rate charts, 3 bs x 4 QD"
    );
    assert!(html.contains("sweep: randread read IOPS vs queue depth"));
    assert!(html.contains("sweep: randread read MB/s vs queue depth"));
    let text = render(&run, Format::Text);
    assert!(
        text.contains("RND64K Q32T1"),
        "single jobs are labelled from their spec"
    );
}

#[test]
fn an_interrupted_run_says_so_first() {
    let mut run = common::battery("web-1", 1.0);
    run.status = RunStatus::Interrupted;
    let text = render(&run, Format::Text);
    let head: Vec<&str> = text.lines().take(4).collect();
    assert!(
        head.iter()
            .any(|l| l.contains("INTERRUPTED (only the measurements that finished are shown)")),
        "{head:?}"
    );
}

/// A `claims` finding (written by the findings engine) is shown as the
/// claims section with its sentences as written, not as a finding.
#[test]
fn a_claims_finding_becomes_the_claims_section() {
    let mut run = common::battery("web-1", 1.0);
    run.findings.push(candor::result::Finding {
        id: "claims".into(),
        severity: candor::result::Severity::Info,
        status: candor::result::FindingStatus::Checked,
        subject: None,
        verdict: "can claim: 1, cannot claim: 1".into(),
        evidence: serde_json::json!({"can": ["The disk figures are what this host delivered."], "cannot": ["SEQ1M Q8T1 read: the figure is not the disk's."]}),
        meaning: String::new(),
        not_proven: String::new(),
    });
    for format in [Format::Text, Format::Md, Format::Html] {
        let out = render(&run, format);
        assert!(out.contains("What can be claimed"), "{format:?}");
        assert!(
            out.contains("The disk figures are what this host delivered."),
            "{format:?}"
        );
        assert!(out.contains("the figure is not the disk"), "{format:?}");
        assert!(
            !out.contains("can claim: 1, cannot claim: 1"),
            "{format:?}: not listed as a finding"
        );
    }
    let text = compare_runs(&[run], Format::Text, None).unwrap();
    assert!(
        !text.contains("can claim: 1"),
        "compare lists real findings only"
    );
}

#[test]
fn an_empty_run_says_so() {
    let run = Run::new(vec!["candor".into()]);
    assert!(render(&run, Format::Text).contains("(no measurements in this Run)"));
    assert!(render(&run, Format::Html).contains("No measurements in this Run."));
    assert_eq!(
        render(&run, Format::Csv).lines().count(),
        1,
        "the header only"
    );
}

/// Two integer CPU metrics that disagree about the gap between two hosts
/// (sysbench-style primes +118 %, LZMA +3 %) are listed under the table as a
/// finding across hosts.
#[test]
fn compare_lists_findings_across_hosts() {
    use candor::result::Measurement;
    let a = common::battery("alpha", 1.0);
    let mut b = common::battery("bravo", 1.0);
    for m in &mut b.measurements {
        if let Measurement::Cpu(c) = m {
            if c.spec.threads == 1 {
                c.events_per_sec = c.events_per_sec.map(|v| v * 2.18);
            }
        }
    }
    let mut runs = vec![a, b];
    for (run, factor) in runs.iter_mut().zip([1.0, 1.03]) {
        let lzma = candor::result::ComputeMeasurement {
            pass: Some(1),
            started_at: None,
            spec: candor::result::ComputeSpec {
                test: "lzma-compress".into(),
                threads: 1,
                runtime_ns: 1_000_000_000,
                params: Default::default(),
            },
            events_per_sec: None,
            bytes_per_sec: Some(4.0e6 * factor),
            ops_per_sec: None,
            per_thread: Vec::new(),
            measured_ns: 1_000_000_000,
            cpu: Default::default(),
            notes: Vec::new(),
        };
        run.measurements.push(Measurement::Compress(lzma));
    }
    let text = compare_runs(&runs, Format::Text, None).unwrap();
    let line = text
        .lines()
        .find(|l| l.contains("across hosts:"))
        .unwrap_or_else(|| panic!("{text}"));
    assert!(
        line.contains("metric-disagreement (alpha vs bravo)"),
        "{line}"
    );
    // With one host there is nothing to compare: the check says so.
    let one = compare_runs(&runs[..1], Format::Text, None).unwrap();
    assert!(
        one.contains("across hosts: metric-disagreement not checked"),
        "{one}"
    );
}

/// `candor explain X | head -1`: the reader closes the pipe after one line;
/// candor must end quietly (exit 0, no panic), not die on the closed pipe.
#[test]
fn explain_into_a_closed_pipe_ends_quietly() {
    use std::process::{Command as Std, Stdio};
    for args in [&["explain", "host-cache"][..], &["explain", "--list"][..]] {
        let mut child = Std::new(env!("CARGO_BIN_EXE_candor"))
            .args(args)
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap();
        // Close the read end before candor writes a byte.
        drop(child.stdout.take());
        let out = child.wait_with_output().unwrap();
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert!(
            out.status.success() && !stderr.contains("panicked"),
            "{args:?}: {:?} {stderr}",
            out.status
        );
    }
}
