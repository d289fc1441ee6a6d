//! The history, end to end with the real binary: adding by default (a temp
//! XDG_DATA_HOME stands in for the user's data directory), idempotence, two
//! processes adding at once, drift on planted changes built from the real
//! fixture Runs (and silence within the noise), every reading format, bad
//! databases (damaged, foreign, newer, locked; block and character devices,
//! FIFOs, links, empty files, planted WALs) refused in one line with
//! nothing stored changed, and the HTML report in a real headless Chromium.

use crate::common;

use assert_cmd::Command;
use serde_json::Value;
use std::path::{Path, PathBuf};
use std::process::Output;

fn fixture(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/fixtures/runs")
        .join(name)
}

fn fio_fixture() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/fio/randread-iouring-q16.json")
}

/// The binary with its data directory in `home` (never the user's).
fn candor(home: &Path) -> Command {
    let mut cmd = Command::cargo_bin("candor").unwrap();
    cmd.env_remove("CANDOR_NO_HISTORY")
        .env_remove("CANDOR_HISTORY_TIMEOUT")
        .env("XDG_DATA_HOME", home.join("data"))
        .env("HOME", home.join("home"));
    cmd
}

/// `candor history --db DB` (the subcommand and its arguments follow).
fn hist(home: &Path, db: &Path) -> Command {
    let mut cmd = candor(home);
    cmd.arg("history").arg("--db").arg(db);
    cmd
}

fn stderr(o: &Output) -> String {
    String::from_utf8_lossy(&o.stderr).to_string()
}

fn stdout(o: &Output) -> String {
    String::from_utf8_lossy(&o.stdout).to_string()
}

/// Runs `cmd`, which must succeed.
fn ok(cmd: &mut Command) -> Output {
    let o = cmd.output().unwrap();
    assert!(o.status.success(), "{:?}: {}", o.status, stderr(&o));
    o
}

/// Runs `cmd`, which must exit with `code` and one line on stderr holding
/// every one of `needles`; returns that line.
fn refused(cmd: &mut Command, code: i32, needles: &[&str]) -> String {
    let o = cmd.output().unwrap();
    let err = stderr(&o);
    assert_eq!(o.status.code(), Some(code), "{err}");
    assert_eq!(err.lines().count(), 1, "one line: {err}");
    for n in needles {
        assert!(err.contains(n), "'{n}' in: {err}");
    }
    err
}

/// A fixture Run as another Run of `host` at `day` (2026-MM-DD), with every
/// disk rate multiplied by `disk` and every compute rate by `compute`.
fn variant(base: &Value, host: &str, day: &str, disk: f64, compute: f64) -> Value {
    let mut r = base.clone();
    r["label"] = host.into();
    r["started_at"] = format!("{day}T10:00:00Z").into();
    r["finished_at"] = format!("{day}T10:20:00Z").into();
    for m in r["measurements"].as_array_mut().unwrap() {
        let disk_job = m["kind"] == "disk";
        let (factor, keys): (f64, &[&str]) = if disk_job {
            (disk, &["iops", "bytes_per_sec"])
        } else {
            (compute, &["events_per_sec", "bytes_per_sec", "ops_per_sec"])
        };
        let scale = |o: &mut Value| {
            // Only objects: indexing null mutably would turn it into one.
            let Some(o) = o.as_object_mut() else { return };
            for k in keys {
                if let Some(v) = o.get(*k).and_then(Value::as_f64) {
                    o.insert(k.to_string(), (v * factor).into());
                }
            }
        };
        if disk_job {
            for d in ["read", "write"] {
                m.get_mut(d).map(scale);
            }
        } else {
            scale(m);
        }
    }
    r
}

/// A file name for anything (a hostile host name included).
fn file_name(text: &str) -> String {
    text.chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || c == '-' {
                c
            } else {
                '_'
            }
        })
        .collect()
}

fn write(dir: &Path, name: &str, run: &Value) -> PathBuf {
    let p = dir.join(file_name(name) + ".json");
    std::fs::write(&p, serde_json::to_string_pretty(run).unwrap()).unwrap();
    p
}

fn read(p: &Path) -> Value {
    serde_json::from_str(&std::fs::read_to_string(p).unwrap()).unwrap()
}

/// `history list --format json`.
fn list(home: &Path, db: &Path, filters: &[&str]) -> Value {
    let o = ok(hist(home, db)
        .args(["list", "--format", "json"])
        .args(filters));
    serde_json::from_slice(&o.stdout).unwrap()
}

/// Runs in the history.
fn run_count(home: &Path, db: &Path) -> usize {
    list(home, db, &[])["runs"].as_array().unwrap().len()
}

#[test]
fn commands_add_to_the_default_history_once() {
    let home = tempfile::tempdir().unwrap();
    let h = home.path();
    let run_file = h.join("imported.json");
    let o = ok(candor(h)
        .args(["import", "--label", "fio-box", "-o"])
        .arg(&run_file)
        .arg(fio_fixture()));
    let db = h.join("data/candor/history.db");
    let err = stderr(&o);
    assert!(db.exists(), "the default database was created: {err}");
    assert!(
        err.contains("candor: history: added to") && err.contains("host 'fio-box'"),
        "{err}"
    );
    assert!(err.contains("drift not checked"), "{err}");

    // The same Run again, as a compact copy and after analyze --write
    // rewrote its findings: stored once.
    let compact = h.join("compact.json");
    std::fs::write(&compact, serde_json::to_string(&read(&run_file)).unwrap()).unwrap();
    let analysed = h.join("analysed.json");
    std::fs::copy(&run_file, &analysed).unwrap();
    ok(candor(h).arg("analyze").arg("--write").arg(&analysed));
    assert_ne!(
        std::fs::read(&analysed).unwrap(),
        std::fs::read(&run_file).unwrap()
    );
    let o = ok(candor(h)
        .args(["history", "add"])
        .args([&run_file, &compact, &analysed]));
    let out = stdout(&o);
    assert!(
        out.starts_with("added 0 Runs to ") && out.contains("3 already stored"),
        "{out}"
    );
    assert_eq!(run_count(h, &db), 1);

    // The stored JSON is the Run file, byte for byte.
    let hash = list(h, &db, &[])["runs"][0]["run"]
        .as_str()
        .unwrap()
        .to_string();
    let got = ok(candor(h).args(["history", "get", &hash[..8]]));
    assert_eq!(got.stdout, std::fs::read(&run_file).unwrap());

    // A measuring command adds its Run too (run, with only the CPU group:
    // quick); --no-history and CANDOR_NO_HISTORY=1 keep it out.
    let out = h.join("cpu.json");
    let cpu_run = |h: &Path| {
        let mut cmd = candor(h);
        cmd.args([
            "run",
            "--only",
            "cpu",
            "--compute-runtime",
            "100ms",
            "--passes",
            "1",
        ])
        .args(["--quiet", "--label", "box-2", "--force", "--output"])
        .arg(&out);
        cmd
    };
    ok(&mut cpu_run(h));
    assert_eq!(run_count(h, &db), 2);
    let o = ok(cpu_run(h).arg("--no-history"));
    assert!(!stderr(&o).contains("history"), "{}", stderr(&o));
    let o = ok(cpu_run(h).env("CANDOR_NO_HISTORY", "1"));
    assert!(!stderr(&o).contains("history"), "{}", stderr(&o));
    assert_eq!(run_count(h, &db), 2);
}

#[test]
fn a_real_disk_job_is_added() {
    let home = tempfile::tempdir().unwrap();
    let h = home.path();
    let dir = tempfile::Builder::new()
        .prefix("candor-history-")
        .tempdir_in("/var/tmp")
        .unwrap();
    let db = h.join("other/place.db");
    let o = ok(candor(h)
        .args([
            "disk",
            "--size",
            "16M",
            "--runtime",
            "300ms",
            "--ramp",
            "0s",
        ])
        .args(["--rw", "randread", "--iodepth", "4", "--dir"])
        .arg(dir.path())
        .arg("--db")
        .arg(&db));
    assert!(stderr(&o).contains("added to"), "{}", stderr(&o));
    assert!(!h.join("data").exists(), "--db chose another file");
    let host = std::fs::read_to_string("/proc/sys/kernel/hostname").unwrap();
    let show = ok(hist(h, &db).arg("show").arg(host.trim()));
    assert!(
        stdout(&show).contains("RND4K Q4T1 read"),
        "{}",
        stdout(&show)
    );
}

#[test]
fn history_add_checks_every_file_first_and_adds_nothing_on_a_bad_one() {
    let home = tempfile::tempdir().unwrap();
    let h = home.path();
    let db = h.join("h.db");
    let base = read(&fixture("cpu.json"));
    let run = |day: &str| variant(&base, "a", day, 1.0, 1.0);
    ok(hist(h, &db)
        .arg("add")
        .arg(write(h, "good", &run("2026-01-01"))));
    let new = write(h, "new", &run("2026-01-02"));
    let mut running = run("2026-01-03");
    running["status"] = "running".into();
    let mut timeless = run("2026-01-04");
    timeless["started_at"] = Value::Null;
    timeless["finished_at"] = "soon".into();
    let mut newer = run("2026-01-05");
    newer["schema"] = "candor.run/9".into();
    let mut nameless = run("2026-01-06");
    nameless["label"] = Value::Null;
    nameless["host"]["hostname"] = Value::Null;
    let text = h.join("text.json");
    std::fs::write(&text, "not json").unwrap();
    let cases = [
        (write(h, "running", &running), "still running"),
        (
            write(h, "timeless", &timeless),
            "finished_at: \"soon\" is not a time",
        ),
        (write(h, "newer", &newer), "newer candor"),
        (write(h, "nameless", &nameless), "--host"),
        (text, "not JSON"),
        (h.join("missing.json"), "cannot read"),
    ];
    for (bad, why) in &cases {
        refused(
            hist(h, &db).arg("add").arg(&new).arg(bad),
            2,
            &[bad.to_str().unwrap(), why],
        );
        assert_eq!(run_count(h, &db), 1, "nothing added beside a bad file");
    }
    // --host files a Run without a name.
    ok(hist(h, &db)
        .args(["add", "--host", "named"])
        .arg(&cases[3].0));
    assert_eq!(run_count(h, &db), 2);
}

#[test]
fn two_processes_adding_at_once_both_succeed() {
    let home = tempfile::tempdir().unwrap();
    let h = home.path().to_path_buf();
    let db = h.join("race.db");
    let base = read(&fixture("cpu.json"));
    // Both start on a database that does not exist yet, one Run per process
    // call, so that creation, migration and every add race.
    let threads: Vec<_> = (0..2)
        .map(|p| {
            let files: Vec<PathBuf> = (0..15)
                .map(|i| {
                    let day = format!("2026-{:02}-{:02}", p + 1, i + 1);
                    let run = variant(
                        &base,
                        &format!("host-{p}"),
                        &day,
                        1.0,
                        1.0 + i as f64 / 100.0,
                    );
                    write(&h, &format!("r{p}-{i}"), &run)
                })
                .collect();
            let (h, db) = (h.clone(), db.clone());
            std::thread::spawn(move || {
                for f in files {
                    let o = ok(hist(&h, &db).args(["add", "--quiet"]).arg(&f));
                    assert!(stdout(&o).starts_with("added 1 Run to"), "{}", stdout(&o));
                }
            })
        })
        .collect();
    for t in threads {
        t.join().unwrap();
    }
    assert_eq!(run_count(&h, &db), 30);
}

/// A history of `host`: five battery Runs within ±2 % of each other.
fn steady_history(h: &Path, db: &Path, host: &str) -> Value {
    let base = read(&fixture("battery.json"));
    let files: Vec<PathBuf> = [1.0, 1.02, 0.98, 1.01, 0.99]
        .iter()
        .enumerate()
        .map(|(i, s)| {
            let day = format!("2026-0{}-01", i + 1);
            write(
                h,
                &format!("{host}-{i}"),
                &variant(&base, host, &day, *s, *s),
            )
        })
        .collect();
    ok(hist(h, db).arg("add").args(&files));
    base
}

/// The drift findings `analyze --history` gives a Run file.
fn drift(h: &Path, db: &Path, run: &Path) -> Vec<Value> {
    let o = ok(candor(h)
        .args(["analyze", "--format", "json", "--history", "--db"])
        .arg(db)
        .arg(run));
    let v: Value = serde_json::from_slice(&o.stdout).unwrap();
    v["runs"][0]["history"]["findings"]
        .as_array()
        .unwrap()
        .clone()
}

/// (id, subject) of the drift findings that fired, sorted.
fn fired(findings: &[Value]) -> Vec<(String, String)> {
    let mut out: Vec<(String, String)> = findings
        .iter()
        .filter(|f| f["status"] == "checked")
        .map(|f| {
            (
                f["id"].as_str().unwrap().into(),
                f["subject"].as_str().unwrap().into(),
            )
        })
        .collect();
    out.sort();
    out
}

#[test]
fn drift_fires_on_planted_changes_and_stays_silent_within_the_noise() {
    let home = tempfile::tempdir().unwrap();
    let h = home.path();
    let db = h.join("h.db");
    let base = steady_history(h, &db, "web-1");

    // Within the noise: 3 % slower everywhere.
    let calm = write(
        h,
        "calm",
        &variant(&base, "web-1", "2026-06-01", 0.97, 0.97),
    );
    let findings = drift(h, &db, &calm);
    assert!(fired(&findings).is_empty(), "{findings:#?}");
    assert!(
        findings.iter().all(|f| f["status"] == "checked"),
        "every key figure had five earlier Runs: {findings:#?}"
    );

    // Planted: RND4K Q32T1 read at 60 %, FSYNC4K p99 doubled, CPU primes 30 % faster.
    let mut planted = variant(&base, "web-1", "2026-06-01", 1.0, 1.0);
    for m in planted["measurements"].as_array_mut().unwrap() {
        if m["profile"] == "RND4K Q32T1" && m["role"] == "main" && m["read"].is_object() {
            for k in ["iops", "bytes_per_sec"] {
                m["read"][k] = (m["read"][k].as_f64().unwrap() * 0.6).into();
            }
        }
        if m["profile"] == "FSYNC4K" {
            let p99 = &mut m["write"]["lat_ns"]["p99"];
            *p99 = (p99.as_u64().unwrap() * 2).into();
        }
        if m["kind"] == "cpu" {
            m["events_per_sec"] = (m["events_per_sec"].as_f64().unwrap() * 1.3).into();
        }
    }
    let planted_file = write(h, "planted", &planted);
    let findings = drift(h, &db, &planted_file);
    let want = [
        ("improved", "cpu primes 1T events/s"),
        ("improved", "cpu primes 2T events/s"),
        ("regressed", "FSYNC4K write p99"),
        ("regressed", "RND4K Q32T1 read IOPS"),
    ]
    .map(|(a, b)| (a.to_string(), b.to_string()));
    assert_eq!(fired(&findings), want, "{findings:#?}");
    let r = findings
        .iter()
        .find(|f| f["subject"] == "RND4K Q32T1 read IOPS")
        .unwrap();
    let e = &r["evidence"];
    assert_eq!(e["earlier_count"], 5);
    assert_eq!(
        e["workload"],
        "disk/randread/bs=4096/qd=32/jobs=1/fsync=0/direct/main/read"
    );
    let median = e["earlier_median"].as_f64().unwrap();
    assert!(
        (e["value"].as_f64().unwrap() / median - 0.6).abs() < 0.01,
        "{e}"
    );
    assert!(e["change_pct"].as_f64().unwrap() < -35.0, "{e}");
    assert_eq!(r["severity"], "warning");

    // Added, it says so on its way in, and show marks it.
    let out = stdout(&ok(hist(h, &db).arg("add").arg(&planted_file)));
    assert!(out.contains("regressed: RND4K Q32T1 read IOPS:"), "{out}");
    assert!(out.contains("improved: cpu primes 1T events/s"), "{out}");
    let show = stdout(&ok(hist(h, &db).args(["show", "web-1"])));
    let row = show
        .lines()
        .find(|l| l.trim_start().starts_with("RND4K Q32T1 read "))
        .unwrap();
    assert!(row.ends_with("REGRESSED"), "{show}");

    // The second Run at the new level still fires: one odd earlier Run does
    // not widen the usual range.
    let mut again = planted.clone();
    again["started_at"] = "2026-06-15T10:00:00Z".into();
    let findings = drift(h, &db, &write(h, "again", &again));
    assert!(fired(&findings).contains(&("regressed".into(), "RND4K Q32T1 read IOPS".into())));

    // A host's migration is named in the evidence.
    let mut moved = variant(&base, "web-1", "2026-07-01", 0.5, 1.0);
    moved["host"]["cpu_model"] = "AMD EPYC 9654".into();
    let findings = drift(h, &db, &write(h, "moved", &moved));
    let r = findings.iter().find(|f| f["id"] == "regressed").unwrap();
    assert_eq!(
        r["evidence"]["host_changed"]["cpu_model"]["now"], "AMD EPYC 9654",
        "{r:#}"
    );
    let verdict = r["verdict"].as_str().unwrap();
    assert!(
        verdict.contains("the host changed since its previous Run (cpu_model)"),
        "{verdict}"
    );
}

#[test]
fn drift_is_not_checked_with_fewer_than_three_earlier_runs() {
    let home = tempfile::tempdir().unwrap();
    let h = home.path();
    let db = h.join("h.db");
    let base = read(&fixture("battery.json"));
    let two: Vec<PathBuf> = (1..=2)
        .map(|i| {
            let day = format!("2026-0{i}-01");
            write(h, &format!("e{i}"), &variant(&base, "db-1", &day, 1.0, 1.0))
        })
        .collect();
    ok(hist(h, &db).arg("add").args(&two));
    let crash = write(h, "crash", &variant(&base, "db-1", "2026-03-01", 0.2, 0.2));
    let findings = drift(h, &db, &crash);
    assert!(fired(&findings).is_empty(), "{findings:#?}");
    let nc: Vec<&Value> = findings
        .iter()
        .filter(|f| f["status"] == "not-checked")
        .collect();
    assert_eq!(nc.len(), 2, "regressed and improved: {findings:#?}");
    let verdict = nc[0]["verdict"].as_str().unwrap();
    assert!(verdict.contains("fewer than 3 earlier Runs"), "{verdict}");
    assert_eq!(nc[0]["evidence"]["checked_count"], 0);
    // A Run of a host the history has never seen: not checked either, no error.
    let stranger = write(
        h,
        "stranger",
        &variant(&base, "new-host", "2026-03-01", 1.0, 1.0),
    );
    let findings = drift(h, &db, &stranger);
    assert!(fired(&findings).is_empty() && !findings.is_empty());
}

#[test]
fn reading_formats_list_show_trend_export() {
    let home = tempfile::tempdir().unwrap();
    let h = home.path();
    let db = h.join("h.db");
    steady_history(h, &db, "web-1");
    steady_history(h, &db, "web-2");
    let out = |args: &[&str]| stdout(&ok(hist(h, &db).args(args)));

    // list: text and JSON, filters.
    let text = out(&["list"]);
    assert!(
        text.contains("hosts (2)") && text.contains("runs (10, oldest first)"),
        "{text}"
    );
    let json = list(
        h,
        &db,
        &[
            "--host",
            "web-2",
            "--since",
            "2026-02-01",
            "--until",
            "2026-04-01",
        ],
    );
    let runs = json["runs"].as_array().unwrap();
    assert_eq!(runs.len(), 3, "{json:#}");
    assert!(runs.iter().all(|r| r["host"] == "web-2"));
    assert_eq!(json["hosts"][0]["runs"], 3);
    assert_eq!(
        list(h, &db, &["--limit", "2"])["runs"]
            .as_array()
            .unwrap()
            .len(),
        2
    );
    refused(
        hist(h, &db).args(["list", "--since", "last tuesday"]),
        2,
        &["--since 'last tuesday'"],
    );

    // show: the latest figures beside the earlier median and range.
    let text = out(&["show", "web-1"]);
    let row = text
        .lines()
        .find(|l| l.trim_start().starts_with("RND4K Q32T1 read "))
        .unwrap();
    assert!(
        row.contains("within range") && row.contains(" 4 "),
        "four earlier Runs: {row}"
    );
    let json: Value = serde_json::from_str(&out(&["show", "web-1", "--format", "json"])).unwrap();
    let fig = json["figures"]
        .as_array()
        .unwrap()
        .iter()
        .find(|f| f["test"] == "RND4K Q32T1 read")
        .unwrap();
    assert_eq!(
        (&fig["earlier_count"], &fig["drift"], &fig["points"]),
        (&4.into(), &"within".into(), &5.into())
    );
    refused(
        hist(h, &db).args(["show", "nobody"]),
        2,
        &["'web-1', 'web-2'"],
    );

    // trend: sparkline and rows; JSON, CSV, SVG, HTML; another metric; bad names.
    let text = out(&["trend", "web-1", "--test", "RND4K Q32T1 read"]);
    assert!(
        text.contains("web-1 · RND4K Q32T1 read · IOPS") && text.contains("5 Runs"),
        "{text}"
    );
    let spark: String = text.chars().filter(|c| ('▁'..='█').contains(c)).collect();
    assert_eq!(spark.chars().count(), 5, "{text}");
    let json: Value = serde_json::from_str(&out(&[
        "trend",
        "web-1",
        "--test",
        "rnd4k q32t1 read",
        "--format",
        "json",
    ]))
    .unwrap();
    assert_eq!(json["points"].as_array().unwrap().len(), 5);
    assert_eq!(json["metric"], "iops");
    let fsync = [
        "trend", "web-1", "--metric", "p99", "--format", "csv", "--test",
    ];
    let csv = out(&[&fsync[..], &["FSYNC4K write"]].concat());
    assert_eq!(csv.lines().count(), 6, "{csv}");
    assert!(
        csv.lines().nth(1).unwrap().contains(",lat_p99_ns,ns,"),
        "{csv}"
    );
    // The same workload by its spec's name, and by its key.
    assert_eq!(
        out(&[&fsync[..], &["RND4K Q1T1 fsync=1 write"]].concat()),
        csv
    );
    let key = "disk/randread/bs=4096/qd=32/jobs=1/fsync=0/direct/main/read";
    let svg = out(&["trend", "web-1", "--test", key, "--format", "svg"]);
    assert!(
        svg.starts_with("<?xml") && svg.contains("data-points=\"15\""),
        "{svg}"
    );
    let page = h.join("trend.html");
    let page_args = [
        "trend",
        "web-1",
        "--test",
        "SEQ1M Q8T1 read",
        "--format",
        "html",
        "-o",
    ];
    ok(hist(h, &db).args(page_args).arg(&page));
    assert!(std::fs::read_to_string(&page).unwrap().contains("MB/s"));
    refused(
        hist(h, &db).args(page_args).arg(&page),
        2,
        &["the file exists"],
    );
    for (args, problem) in [
        (vec!["--test", "RND9K"], "has no such test"),
        (vec!["--test", "RND4K"], "matches"),
        (
            vec!["--test", "cpu primes 1T", "--metric", "p99"],
            "has no lat_p99_ns figures",
        ),
        (
            vec!["--test", "cpu primes 1T", "--metric", "speed"],
            "--metric 'speed'",
        ),
    ] {
        refused(
            hist(h, &db).args(["trend", "web-1"]).args(args),
            2,
            &[problem],
        );
    }

    // export: CSV and NDJSON, one row per figure.
    let csv = out(&["export", "--format", "csv", "--host", "web-2"]);
    let mut lines = csv.lines();
    assert_eq!(
        lines.next().unwrap(),
        "host,hostname,label,run,started_at,status,source,tool,tool_version,workload,kind,test,metric,unit,value,min,max,passes,higher_is_better,key_figure"
    );
    let rows: Vec<&str> = lines.collect();
    let per_run = rows.len() / 5;
    assert!(
        per_run > 50 && rows.len() == per_run * 5,
        "{} rows",
        rows.len()
    );
    assert!(rows.iter().all(|r| r.starts_with("web-2,")));
    let iops = format!(",{key},disk,RND4K Q32T1 read,iops,IOPS,");
    assert!(rows.iter().any(|r| r.contains(&iops)), "{iops}");
    let nd = out(&["export", "--format", "ndjson"]);
    assert_eq!(nd.lines().count(), per_run * 10);
    let first: Value = serde_json::from_str(nd.lines().next().unwrap()).unwrap();
    for k in [
        "host",
        "run",
        "started_at",
        "workload",
        "metric",
        "unit",
        "value",
    ] {
        assert!(!first[k].is_null(), "{k}: {first}");
    }
    let file = h.join("all.csv");
    ok(hist(h, &db).args(["export", "-o"]).arg(&file));
    assert_eq!(
        std::fs::read_to_string(&file).unwrap().lines().count(),
        per_run * 10 + 1
    );
}

/// The bytes of the database and its WAL (the whole stored state).
fn db_state(db: &Path) -> Vec<Option<Vec<u8>>> {
    ["", "-wal"]
        .iter()
        .map(|s| std::fs::read(format!("{}{s}", db.display())).ok())
        .collect()
}

#[test]
fn bad_databases_are_refused_in_one_line_and_left_as_they_were() {
    let home = tempfile::tempdir().unwrap();
    let h = home.path();
    let base = read(&fixture("cpu.json"));
    let run = write(h, "run", &variant(&base, "a", "2026-01-01", 1.0, 1.0));

    // A damaged file, another program's SQLite database, a newer candor's.
    let damaged = h.join("damaged.db");
    std::fs::write(&damaged, vec![0x5au8; 8192]).unwrap();
    let foreign = h.join("foreign.db");
    rusqlite::Connection::open(&foreign)
        .unwrap()
        .execute_batch("CREATE TABLE notes(x); INSERT INTO notes VALUES ('mine');")
        .unwrap();
    let newer = h.join("newer.db");
    ok(hist(h, &newer).arg("add").arg(&run));
    rusqlite::Connection::open(&newer)
        .unwrap()
        .pragma_update(None, "user_version", 99)
        .unwrap();
    for (db, problem) in [
        (&damaged, "not an SQLite database"),
        (&foreign, "not a candor history"),
        (&newer, "newer candor (history schema 99"),
    ] {
        let before = db_state(db);
        let name = db.to_str().unwrap();
        refused(hist(h, db).arg("add").arg(&run), 2, &[name, problem]);
        refused(hist(h, db).arg("list"), 2, &[name, problem]);
        // A measurement never fails for the history: a warning, exit 0.
        let o = ok(candor(h)
            .args(["import", "--db"])
            .arg(db)
            .arg(fio_fixture()));
        let err = stderr(&o);
        let warn: Vec<&str> = err.lines().filter(|l| l.contains("history")).collect();
        assert_eq!(warn.len(), 1, "{err}");
        assert!(
            warn[0].starts_with("candor: warning: history: the Run was not added: "),
            "{err}"
        );
        assert!(warn[0].contains(problem), "{err}");
        assert_eq!(db_state(db), before, "{name} unchanged");
    }

    // Locked: another process holds the write lock past the wait.
    let db = h.join("locked.db");
    ok(hist(h, &db).arg("add").arg(&run));
    let other = write(h, "other", &variant(&base, "a", "2026-01-02", 1.0, 1.0));
    let holder = rusqlite::Connection::open(&db).unwrap();
    holder.execute_batch("BEGIN EXCLUSIVE").unwrap();
    let wait = ("CANDOR_HISTORY_TIMEOUT", "300ms");
    let locked = "locked by another process (waited 300ms";
    refused(
        hist(h, &db).env(wait.0, wait.1).arg("add").arg(&other),
        1,
        &[locked],
    );
    let o = ok(candor(h)
        .env(wait.0, wait.1)
        .args(["import", "--db"])
        .arg(&db)
        .arg(fio_fixture()));
    let err = stderr(&o);
    assert!(
        err.contains("candor: warning: history: the Run was not added: ") && err.contains(locked),
        "{err}"
    );
    holder.execute_batch("ROLLBACK").unwrap();
    drop(holder);
    assert_eq!(run_count(h, &db), 1, "the locked adds stored nothing");
    ok(hist(h, &db).arg("add").arg(&other));
    assert_eq!(run_count(h, &db), 2);

    // Reading a history that does not exist creates nothing.
    let none = h.join("none.db");
    refused(hist(h, &none).args(["show", "x"]), 2, &["no history yet"]);
    assert!(!none.exists());
}

/// The bytes of a file, or None when it does not exist.
fn bytes(p: &Path) -> Option<Vec<u8>> {
    std::fs::read(p).ok()
}

/// SQLite's files beside `db` that exist.
fn sidecars(db: &Path) -> Vec<String> {
    ["-wal", "-shm", "-journal"]
        .iter()
        .map(|s| format!("{}{s}", db.display()))
        .filter(|p| std::fs::symlink_metadata(p).is_ok())
        .collect()
}

#[test]
fn a_db_that_is_not_a_regular_file_of_candor_is_never_written() {
    let home = tempfile::tempdir().unwrap();
    let h = home.path();
    let base = read(&fixture("cpu.json"));
    let run = write(h, "run", &variant(&base, "a", "2026-01-01", 1.0, 1.0));
    // The way each refusal is checked: `history add` is bad input (exit 2),
    // a measurement's add is a warning (exit 0); nothing written either way.
    let both_refuse = |db: &Path, problem: &str| {
        let name = db.to_str().unwrap();
        refused(hist(h, db).arg("add").arg(&run), 2, &[name, problem]);
        let o = ok(candor(h)
            .args(["import", "--db"])
            .arg(db)
            .arg(fio_fixture()));
        let err = stderr(&o);
        assert!(
            err.contains("candor: warning: history: the Run was not added: ")
                && err.contains(problem),
            "{err}"
        );
    };

    // A block device: a loop device over a file of known bytes. SQLite
    // alone takes its size 0 for an empty database and writes its header.
    let backing = h.join("backing.img");
    let lo = common::plant::LoopDevice::new(&backing, 1 << 20, false);
    let pattern: Vec<u8> = (0..1u32 << 20).map(|i| (i % 251) as u8).collect();
    std::fs::write(&lo.device, &pattern).unwrap();
    common::plant::sh("blockdev", &["--flushbufs", &lo.device]);
    let device = Path::new(&lo.device);
    both_refuse(device, "is a block device");
    common::plant::sh("blockdev", &["--flushbufs", &lo.device]);
    assert!(
        bytes(&backing) == Some(pattern.clone()),
        "the device's backing file changed"
    );
    assert!(sidecars(device).is_empty(), "{:?}", sidecars(device));

    // A character device (the null device, made here) and a FIFO: nothing
    // written, no -journal or -wal beside them, no wait on the FIFO.
    let null = h.join("null.db");
    common::plant::sh("mknod", &[null.to_str().unwrap(), "c", "1", "3"]);
    both_refuse(&null, "is a character device");
    assert!(sidecars(&null).is_empty(), "{:?}", sidecars(&null));
    let fifo = h.join("fifo.db");
    common::plant::sh("mkfifo", &[fifo.to_str().unwrap()]);
    both_refuse(&fifo, "is a FIFO");

    // A symbolic link to a real history, and an empty file of another user.
    let real = h.join("real.db");
    ok(hist(h, &real).arg("add").arg(&run));
    let before = db_state(&real);
    let link = h.join("link.db");
    std::os::unix::fs::symlink(&real, &link).unwrap();
    both_refuse(&link, "is a symbolic link");
    assert_eq!(db_state(&real), before);
    let empty = h.join("empty.db");
    std::fs::write(&empty, b"").unwrap();
    std::os::unix::fs::chown(&empty, Some(65534), Some(65534)).unwrap();
    both_refuse(&empty, "is an empty file");
    assert_eq!(bytes(&empty), Some(vec![]));

    // A WAL planted beside a real history (it would be replayed into it).
    let wal = format!("{}-wal", real.display());
    let _ = std::fs::remove_file(&wal);
    std::os::unix::fs::symlink("/dev/null", &wal).unwrap();
    both_refuse(&real, "-wal, is a symbolic link");
    std::fs::remove_file(&wal).unwrap();
    std::fs::write(&wal, b"").unwrap();
    std::os::unix::fs::chown(&wal, Some(65534), Some(65534)).unwrap();
    both_refuse(&real, "owned by user 65534");
    std::fs::remove_file(&wal).unwrap();
    assert_eq!(run_count(h, &real), 1, "the real history still reads");
}

#[test]
fn history_report_in_headless_chromium() {
    let Some(chromium) = common::chromium::find() else {
        return;
    };
    let home = tempfile::tempdir().unwrap();
    let h = home.path();
    let db = h.join("h.db");
    let hostile = "<script>alert(1)</script>";
    let base = steady_history(h, &db, hostile);
    let slow = write(h, "slow", &variant(&base, hostile, "2026-07-01", 0.5, 1.0));
    ok(hist(h, &db).arg("add").arg(&slow));
    steady_history(h, &db, "web-2");
    let page = h.join("history.html");
    ok(hist(h, &db)
        .args(["report", "--format", "html", "-o"])
        .arg(&page));
    let html = std::fs::read_to_string(&page).unwrap();
    assert!(
        !html.contains(hostile) && !html.contains("<script"),
        "every stored string is escaped"
    );
    let (status, dom, log) = common::chromium::open(chromium, &page, &["--dump-dom".to_string()]);
    assert!(status.success(), "chromium: {status}\n{log}");
    let errors = common::chromium::log_errors(&log);
    assert!(errors.is_empty(), "chromium reported {errors:?}:\n{log}");
    assert!(
        dom.contains("&lt;script&gt;alert(1)&lt;/script&gt;"),
        "the label is text"
    );
    assert!(!dom.contains("<script"), "no script element in the DOM");
    let points = common::chromium::data_points(&dom);
    assert!(
        points.len() >= 2 * 16,
        "trend charts for both hosts: {}",
        points.len()
    );
    assert!(points.iter().all(|&p| p >= 5), "{points:?}");
    assert!(dom.matches("class=\"line\" d=\"M").count() >= points.len());
    assert!(
        dom.contains("REGRESSED") && dom.contains("<span class=\"sev\">regressed</span>"),
        "the drift shows"
    );
    assert!(dom.contains("href=\"#host-0\"") && dom.contains("id=\"host-1\""));
}
