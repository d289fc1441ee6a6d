//! The history, end to end with the real binary: adding by default (a temp
//! XDG_DATA_HOME stands in for the user's data directory), idempotence, two
//! processes adding at once, drift on planted regressions built from the real
//! fixture Runs (and silence within the noise), every reading format, bad
//! databases (damaged, foreign, newer, locked) refused in one line with
//! nothing stored changed, and the HTML report in a real headless Chromium.

use assert_cmd::Command;
use serde_json::Value;
use std::path::{Path, PathBuf};

fn fixture(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/fixtures/runs")
        .join(name)
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

fn default_db(home: &Path) -> PathBuf {
    home.join("data/candor/history.db")
}

fn stderr(o: &std::process::Output) -> String {
    String::from_utf8_lossy(&o.stderr).to_string()
}

fn stdout(o: &std::process::Output) -> String {
    String::from_utf8_lossy(&o.stdout).to_string()
}

/// A fixture Run as another Run of `host` at `day` (2026-MM-DD), with every
/// disk rate multiplied by `disk` and every compute rate by `compute`.
fn variant(base: &Value, host: &str, day: &str, disk: f64, compute: f64) -> Value {
    let mut r = base.clone();
    r["label"] = host.into();
    r["started_at"] = format!("{day}T10:00:00Z").into();
    r["finished_at"] = format!("{day}T10:20:00Z").into();
    for m in r["measurements"].as_array_mut().unwrap() {
        if m["kind"] == "disk" {
            for d in ["read", "write"] {
                if m[d].is_object() {
                    for k in ["iops", "bytes_per_sec"] {
                        let v = m[d][k].as_f64().unwrap();
                        m[d][k] = (v * disk).into();
                    }
                }
            }
        } else {
            for k in ["events_per_sec", "bytes_per_sec", "ops_per_sec"] {
                if let Some(v) = m[k].as_f64() {
                    m[k] = (v * compute).into();
                }
            }
        }
    }
    r
}

fn write(dir: &Path, name: &str, run: &Value) -> PathBuf {
    let p = dir.join(name);
    std::fs::write(&p, serde_json::to_string_pretty(run).unwrap()).unwrap();
    p
}

fn read(p: &Path) -> Value {
    serde_json::from_str(&std::fs::read_to_string(p).unwrap()).unwrap()
}

/// Runs in the history (through `history list --format json`).
fn run_count(home: &Path, db: &Path) -> usize {
    let o = candor(home)
        .args(["history", "list", "--format", "json", "--db"])
        .arg(db)
        .output()
        .unwrap();
    assert!(o.status.success(), "{}", stderr(&o));
    let v: Value = serde_json::from_slice(&o.stdout).unwrap();
    v["runs"].as_array().unwrap().len()
}

#[test]
fn commands_add_to_the_default_history_once() {
    let home = tempfile::tempdir().unwrap();
    let h = home.path();
    let run_file = h.join("imported.json");
    let o = candor(h)
        .args(["import", "--label", "fio-box", "-o"])
        .arg(&run_file)
        .arg(
            Path::new(env!("CARGO_MANIFEST_DIR"))
                .join("tests/fixtures/fio/randread-iouring-q16.json"),
        )
        .output()
        .unwrap();
    assert!(o.status.success(), "{}", stderr(&o));
    let db = default_db(h);
    assert!(
        db.exists(),
        "the default database was created: {}",
        stderr(&o)
    );
    let err = stderr(&o);
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
    candor(h)
        .arg("analyze")
        .arg("--write")
        .arg(&analysed)
        .assert()
        .success();
    assert_ne!(
        std::fs::read(&analysed).unwrap(),
        std::fs::read(&run_file).unwrap()
    );
    let o = candor(h)
        .args(["history", "add"])
        .args([&run_file, &compact, &analysed])
        .output()
        .unwrap();
    assert!(o.status.success(), "{}", stderr(&o));
    assert!(stdout(&o).starts_with("added 0 Runs to "), "{}", stdout(&o));
    assert!(stdout(&o).contains("3 already stored"), "{}", stdout(&o));
    assert_eq!(run_count(h, &db), 1);

    // The stored JSON is the Run file, byte for byte.
    let list: Value = serde_json::from_slice(
        &candor(h)
            .args(["history", "list", "--format", "json"])
            .output()
            .unwrap()
            .stdout,
    )
    .unwrap();
    let hash = list["runs"][0]["run"].as_str().unwrap().to_string();
    let got = candor(h)
        .args(["history", "get", &hash[..8]])
        .output()
        .unwrap();
    assert!(got.status.success(), "{}", stderr(&got));
    assert_eq!(got.stdout, std::fs::read(&run_file).unwrap());

    // A measuring command adds its Run too (run, with only the CPU group:
    // quick); --no-history and CANDOR_NO_HISTORY=1 keep it out.
    let out = h.join("cpu.json");
    let o = candor(h)
        .args([
            "run",
            "--only",
            "cpu",
            "--compute-runtime",
            "100ms",
            "--passes",
            "1",
            "--quiet",
            "--label",
            "box-2",
            "--output",
        ])
        .arg(&out)
        .output()
        .unwrap();
    assert!(o.status.success(), "{}", stderr(&o));
    assert_eq!(run_count(h, &db), 2);
    for (flag, env) in [(Some("--no-history"), None), (None, Some("1"))] {
        let mut cmd = candor(h);
        cmd.args([
            "run",
            "--only",
            "cpu",
            "--compute-runtime",
            "100ms",
            "--passes",
            "1",
            "--quiet",
            "--force",
            "--output",
        ])
        .arg(&out);
        cmd.args(flag);
        if let Some(v) = env {
            cmd.env("CANDOR_NO_HISTORY", v);
        }
        let o = cmd.output().unwrap();
        assert!(o.status.success(), "{}", stderr(&o));
        assert!(!stderr(&o).contains("history"), "{}", stderr(&o));
    }
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
    let o = candor(h)
        .args([
            "disk",
            "--size",
            "16M",
            "--runtime",
            "300ms",
            "--ramp",
            "0s",
            "--rw",
            "randread",
            "--iodepth",
            "4",
        ])
        .arg("--dir")
        .arg(dir.path())
        .arg("--db")
        .arg(&db)
        .output()
        .unwrap();
    assert!(o.status.success(), "{}", stderr(&o));
    assert!(stderr(&o).contains("added to"), "{}", stderr(&o));
    assert!(!default_db(h).exists(), "--db chose another file");
    let show = candor(h)
        .args(["history", "show", "--db"])
        .arg(&db)
        .arg(hostname())
        .output()
        .unwrap();
    assert!(show.status.success(), "{}", stderr(&show));
    assert!(
        stdout(&show).contains("RND4K Q4T1 read"),
        "{}",
        stdout(&show)
    );
}

fn hostname() -> String {
    std::fs::read_to_string("/proc/sys/kernel/hostname")
        .unwrap()
        .trim()
        .to_string()
}

#[test]
fn history_add_checks_every_file_first_and_adds_nothing_on_a_bad_one() {
    let home = tempfile::tempdir().unwrap();
    let h = home.path();
    let db = h.join("h.db");
    let base = read(&fixture("cpu.json"));
    let good = write(h, "good.json", &variant(&base, "a", "2026-01-01", 1.0, 1.0));
    candor(h)
        .args(["history", "add", "--db"])
        .arg(&db)
        .arg(&good)
        .assert()
        .success();
    let new = write(h, "new.json", &variant(&base, "a", "2026-01-02", 1.0, 1.0));
    let mut running = variant(&base, "a", "2026-01-03", 1.0, 1.0);
    running["status"] = "running".into();
    let mut timeless = variant(&base, "a", "2026-01-04", 1.0, 1.0);
    timeless["started_at"] = Value::Null;
    timeless["finished_at"] = "soon".into();
    let mut newer = variant(&base, "a", "2026-01-05", 1.0, 1.0);
    newer["schema"] = "candor.run/9".into();
    let mut nameless = variant(&base, "a", "2026-01-06", 1.0, 1.0);
    nameless["label"] = Value::Null;
    nameless["host"]["hostname"] = Value::Null;
    let cases = [
        (write(h, "running.json", &running), "still running"),
        (write(h, "timeless.json", &timeless), "no valid started_at"),
        (write(h, "newer.json", &newer), "newer candor"),
        (write(h, "nameless.json", &nameless), "--host"),
        (
            {
                let p = h.join("text.json");
                std::fs::write(&p, "not json").unwrap();
                p
            },
            "not JSON",
        ),
        (h.join("missing.json"), "cannot read"),
    ];
    for (bad, why) in &cases {
        let o = candor(h)
            .args(["history", "add", "--db"])
            .arg(&db)
            .arg(&new)
            .arg(bad)
            .output()
            .unwrap();
        assert_eq!(
            o.status.code(),
            Some(2),
            "{}: {}",
            bad.display(),
            stderr(&o)
        );
        let err = stderr(&o);
        assert_eq!(err.lines().count(), 1, "{err}");
        assert!(
            err.contains(bad.to_str().unwrap()) && err.contains(why),
            "{err}"
        );
        assert_eq!(run_count(h, &db), 1, "nothing added beside a bad file");
    }
    // --host files a Run without a name.
    candor(h)
        .args(["history", "add", "--host", "named", "--db"])
        .arg(&db)
        .arg(&cases[3].0)
        .assert()
        .success();
    assert_eq!(run_count(h, &db), 2);
}

#[test]
fn two_processes_adding_at_once_both_succeed() {
    let home = tempfile::tempdir().unwrap();
    let h = home.path().to_path_buf();
    let db = h.join("race.db");
    let base = read(&fixture("cpu.json"));
    let files: Vec<Vec<PathBuf>> = (0..2)
        .map(|p| {
            (0..15)
                .map(|i| {
                    let day = format!("2026-{:02}-{:02}", p + 1, i + 1);
                    write(
                        &h,
                        &format!("r{p}-{i}.json"),
                        &variant(
                            &base,
                            &format!("host-{p}"),
                            &day,
                            1.0,
                            1.0 + i as f64 / 100.0,
                        ),
                    )
                })
                .collect()
        })
        .collect();
    // Both start on a database that does not exist yet, one Run per process
    // call, so that creation, migration and every add race.
    let threads: Vec<_> = files
        .into_iter()
        .map(|list| {
            let (h, db) = (h.clone(), db.clone());
            std::thread::spawn(move || {
                for f in list {
                    let o = candor(&h)
                        .args(["history", "add", "--quiet", "--db"])
                        .arg(&db)
                        .arg(&f)
                        .output()
                        .unwrap();
                    assert!(o.status.success(), "{}: {}", f.display(), stderr(&o));
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
            let safe: String = host
                .chars()
                .map(|c| if c.is_ascii_alphanumeric() { c } else { '_' })
                .collect();
            write(
                h,
                &format!("{safe}-{i}.json"),
                &variant(&base, host, &format!("2026-0{}-01", i + 1), *s, *s),
            )
        })
        .collect();
    candor(h)
        .args(["history", "add", "--db"])
        .arg(db)
        .args(&files)
        .assert()
        .success();
    base
}

/// The drift findings `analyze --history` gives a Run file.
fn drift(h: &Path, db: &Path, run: &Path) -> Vec<Value> {
    let o = candor(h)
        .args(["analyze", "--format", "json", "--history", "--db"])
        .arg(db)
        .arg(run)
        .output()
        .unwrap();
    assert!(o.status.success(), "{}", stderr(&o));
    let v: Value = serde_json::from_slice(&o.stdout).unwrap();
    v["runs"][0]["history"]["findings"]
        .as_array()
        .unwrap()
        .clone()
}

fn fired(findings: &[Value]) -> Vec<(String, String)> {
    findings
        .iter()
        .filter(|f| f["status"] == "checked")
        .map(|f| {
            (
                f["id"].as_str().unwrap().to_string(),
                f["subject"].as_str().unwrap().to_string(),
            )
        })
        .collect()
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
        "calm.json",
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
            m["write"]["lat_ns"]["p99"] =
                (m["write"]["lat_ns"]["p99"].as_u64().unwrap() * 2).into();
        }
        if m["kind"] == "cpu" {
            m["events_per_sec"] = (m["events_per_sec"].as_f64().unwrap() * 1.3).into();
        }
    }
    let planted_file = write(h, "planted.json", &planted);
    let findings = drift(h, &db, &planted_file);
    let mut got = fired(&findings);
    got.sort();
    let mut want: Vec<(String, String)> = vec![
        ("regressed".into(), "RND4K Q32T1 read IOPS".into()),
        ("regressed".into(), "FSYNC4K write p99".into()),
        ("improved".into(), "cpu primes 1T events/s".into()),
        ("improved".into(), "cpu primes 2T events/s".into()),
    ];
    want.sort();
    assert_eq!(got, want, "{findings:#?}");
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
    let o = candor(h)
        .args(["history", "add", "--db"])
        .arg(&db)
        .arg(&planted_file)
        .output()
        .unwrap();
    assert!(o.status.success());
    let out = stdout(&o);
    assert!(
        out.contains("regressed: RND4K Q32T1 read IOPS:")
            && out.contains("improved: cpu primes 1T events/s"),
        "{out}"
    );
    let show = stdout(
        &candor(h)
            .args(["history", "show", "web-1", "--db"])
            .arg(&db)
            .output()
            .unwrap(),
    );
    let row = show
        .lines()
        .find(|l| l.trim_start().starts_with("RND4K Q32T1 read "))
        .unwrap();
    assert!(
        row.contains("REGRESSED") && row.ends_with("REGRESSED"),
        "{show}"
    );

    // A host's migration is named in the evidence.
    let mut moved = variant(&base, "web-1", "2026-07-01", 0.5, 1.0);
    moved["host"]["cpu_model"] = "AMD EPYC 9654".into();
    let moved = write(h, "moved.json", &moved);
    let findings = drift(h, &db, &moved);
    let r = findings.iter().find(|f| f["id"] == "regressed").unwrap();
    assert_eq!(
        r["evidence"]["host_changed"]["cpu_model"]["now"], "AMD EPYC 9654",
        "{r:#}"
    );
    assert!(r["verdict"]
        .as_str()
        .unwrap()
        .contains("the host changed since its previous Run (cpu_model)"));
}

#[test]
fn drift_is_not_checked_with_fewer_than_three_earlier_runs() {
    let home = tempfile::tempdir().unwrap();
    let h = home.path();
    let db = h.join("h.db");
    let base = read(&fixture("battery.json"));
    let two: Vec<PathBuf> = (1..=2)
        .map(|i| {
            write(
                h,
                &format!("e{i}.json"),
                &variant(&base, "db-1", &format!("2026-0{i}-01"), 1.0, 1.0),
            )
        })
        .collect();
    candor(h)
        .args(["history", "add", "--db"])
        .arg(&db)
        .args(&two)
        .assert()
        .success();
    let crash = write(
        h,
        "crash.json",
        &variant(&base, "db-1", "2026-03-01", 0.2, 0.2),
    );
    let findings = drift(h, &db, &crash);
    assert!(fired(&findings).is_empty(), "{findings:#?}");
    let nc: Vec<&Value> = findings
        .iter()
        .filter(|f| f["status"] == "not-checked")
        .collect();
    assert_eq!(nc.len(), 2, "regressed and improved: {findings:#?}");
    assert!(
        nc[0]["verdict"]
            .as_str()
            .unwrap()
            .contains("fewer than 3 earlier Runs"),
        "{:#}",
        nc[0]
    );
    assert_eq!(nc[0]["evidence"]["checked_count"], 0);
    // A Run of a host the history has never seen: not checked either, no error.
    let stranger = write(
        h,
        "stranger.json",
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
    let hist = |args: &[&str]| -> std::process::Output {
        candor(h)
            .arg("history")
            .args(args)
            .arg("--db")
            .arg(&db)
            .output()
            .unwrap()
    };
    // list: text and JSON, filters.
    let o = hist(&["list"]);
    assert!(o.status.success(), "{}", stderr(&o));
    let text = stdout(&o);
    assert!(
        text.contains("hosts (2)") && text.contains("runs (10, oldest first)"),
        "{text}"
    );
    let json: Value = serde_json::from_slice(
        &hist(&[
            "list",
            "--format",
            "json",
            "--host",
            "web-2",
            "--since",
            "2026-02-01",
            "--until",
            "2026-04-01",
        ])
        .stdout,
    )
    .unwrap();
    let runs = json["runs"].as_array().unwrap();
    assert_eq!(runs.len(), 3, "{json:#}");
    assert!(runs.iter().all(|r| r["host"] == "web-2"));
    assert_eq!(json["hosts"][0]["runs"], 3);
    let limited: Value =
        serde_json::from_slice(&hist(&["list", "--format", "json", "--limit", "2"]).stdout)
            .unwrap();
    assert_eq!(limited["runs"].as_array().unwrap().len(), 2);
    let o = hist(&["list", "--since", "last tuesday"]);
    assert_eq!(o.status.code(), Some(2));
    assert_eq!(stderr(&o).lines().count(), 1);

    // show: the latest figures beside the earlier median and range.
    let o = hist(&["show", "web-1"]);
    assert!(o.status.success(), "{}", stderr(&o));
    let text = stdout(&o);
    let row = text
        .lines()
        .find(|l| l.trim_start().starts_with("RND4K Q32T1 read "))
        .unwrap();
    assert!(
        row.contains("within range") && row.contains(" 4 "),
        "four earlier Runs: {row}"
    );
    let json: Value =
        serde_json::from_slice(&hist(&["show", "web-1", "--format", "json"]).stdout).unwrap();
    let fig = json["figures"]
        .as_array()
        .unwrap()
        .iter()
        .find(|f| f["test"] == "RND4K Q32T1 read")
        .unwrap();
    assert_eq!(fig["earlier_count"], 4);
    assert_eq!(fig["drift"], "within");
    assert_eq!(fig["points"], 5);
    let o = hist(&["show", "nobody"]);
    assert_eq!(o.status.code(), Some(2));
    assert!(
        stderr(&o).contains("'web-1', 'web-2'") && stderr(&o).lines().count() == 1,
        "{}",
        stderr(&o)
    );

    // trend: sparkline and rows; JSON, CSV, SVG, HTML; another metric; bad names.
    let o = hist(&["trend", "web-1", "--test", "RND4K Q32T1 read"]);
    assert!(o.status.success(), "{}", stderr(&o));
    let text = stdout(&o);
    assert!(
        text.contains("web-1 · RND4K Q32T1 read · IOPS") && text.contains("5 Runs"),
        "{text}"
    );
    let spark: String = text.chars().filter(|c| ('▁'..='█').contains(c)).collect();
    assert_eq!(spark.chars().count(), 5, "{text}");
    let json: Value = serde_json::from_slice(
        &hist(&[
            "trend",
            "web-1",
            "--test",
            "rnd4k q32t1 read",
            "--format",
            "json",
        ])
        .stdout,
    )
    .unwrap();
    assert_eq!(json["points"].as_array().unwrap().len(), 5);
    assert_eq!(json["metric"], "iops");
    let csv = stdout(&hist(&[
        "trend",
        "web-1",
        "--test",
        "FSYNC4K write",
        "--metric",
        "p99",
        "--format",
        "csv",
    ]));
    assert_eq!(csv.lines().count(), 6, "{csv}");
    assert!(
        csv.lines().nth(1).unwrap().contains(",lat_p99_ns,ns,"),
        "{csv}"
    );
    // The same workload by its spec's name, and by its key.
    let by_spec = stdout(&hist(&[
        "trend",
        "web-1",
        "--test",
        "RND4K Q1T1 fsync=1 write",
        "--metric",
        "p99",
        "--format",
        "csv",
    ]));
    assert_eq!(by_spec, csv);
    let svg = stdout(&hist(&[
        "trend",
        "web-1",
        "--test",
        "disk/randread/bs=4096/qd=32/jobs=1/fsync=0/direct/main/read",
        "--format",
        "svg",
    ]));
    assert!(
        svg.starts_with("<?xml") && svg.contains("<svg") && svg.contains("data-points=\"15\""),
        "{svg}"
    );
    let page = h.join("trend.html");
    let o = hist(&[
        "trend",
        "web-1",
        "--test",
        "SEQ1M Q8T1 read",
        "--format",
        "html",
        "-o",
        page.to_str().unwrap(),
    ]);
    assert!(o.status.success(), "{}", stderr(&o));
    assert!(std::fs::read_to_string(&page).unwrap().contains("MB/s"));
    let o = hist(&[
        "trend",
        "web-1",
        "--test",
        "SEQ1M Q8T1 read",
        "--format",
        "html",
        "-o",
        page.to_str().unwrap(),
    ]);
    assert_eq!(o.status.code(), Some(2), "never overwrites without --force");
    for (args, problem) in [
        (
            vec!["trend", "web-1", "--test", "RND9K"],
            "has no such test",
        ),
        (vec!["trend", "web-1", "--test", "RND4K"], "matches"),
        (
            vec![
                "trend",
                "web-1",
                "--test",
                "cpu primes 1T",
                "--metric",
                "p99",
            ],
            "has no lat_p99_ns figures",
        ),
        (
            vec![
                "trend",
                "web-1",
                "--test",
                "cpu primes 1T",
                "--metric",
                "speed",
            ],
            "--metric 'speed'",
        ),
    ] {
        let o = hist(&args);
        assert_eq!(o.status.code(), Some(2), "{args:?}");
        assert!(
            stderr(&o).contains(problem) && stderr(&o).lines().count() == 1,
            "{args:?}: {}",
            stderr(&o)
        );
    }

    // export: CSV and NDJSON, one row per figure.
    let csv = stdout(&hist(&["export", "--format", "csv", "--host", "web-2"]));
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
    assert!(rows.iter().any(|r| r.contains(",disk/randread/bs=4096/qd=32/jobs=1/fsync=0/direct/main/read,disk,RND4K Q32T1 read,iops,IOPS,")));
    let nd = stdout(&hist(&["export", "--format", "ndjson"]));
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
    assert!(hist(&["export", "-o", file.to_str().unwrap()])
        .status
        .success());
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
    let run = write(
        h,
        "run.json",
        &variant(&read(&fixture("cpu.json")), "a", "2026-01-01", 1.0, 1.0),
    );
    let fio =
        Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/fio/randread-iouring-q16.json");

    // A damaged file, another program's SQLite database, a newer candor's.
    let damaged = h.join("damaged.db");
    std::fs::write(&damaged, vec![0x5au8; 8192]).unwrap();
    let foreign = h.join("foreign.db");
    rusqlite::Connection::open(&foreign)
        .unwrap()
        .execute_batch("CREATE TABLE notes(x); INSERT INTO notes VALUES ('mine');")
        .unwrap();
    let newer = h.join("newer.db");
    candor(h)
        .args(["history", "add", "--db"])
        .arg(&newer)
        .arg(&run)
        .assert()
        .success();
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
        for args in [vec!["history", "add"], vec!["history", "list"]] {
            let mut cmd = candor(h);
            cmd.args(&args).arg("--db").arg(db);
            if args[1] == "add" {
                cmd.arg(&run);
            }
            let o = cmd.output().unwrap();
            assert_eq!(
                o.status.code(),
                Some(2),
                "{args:?} {}: {}",
                db.display(),
                stderr(&o)
            );
            let err = stderr(&o);
            assert_eq!(err.lines().count(), 1, "{err}");
            assert!(
                err.contains(db.to_str().unwrap()) && err.contains(problem),
                "{err}"
            );
        }
        // A measurement never fails for the history: a warning, exit 0.
        let o = candor(h)
            .args(["import", "--db"])
            .arg(db)
            .arg(&fio)
            .output()
            .unwrap();
        assert!(o.status.success(), "{}", stderr(&o));
        let err = stderr(&o);
        let warn: Vec<&str> = err.lines().filter(|l| l.contains("history")).collect();
        assert_eq!(warn.len(), 1, "{}", stderr(&o));
        assert!(
            warn[0].starts_with("candor: warning: history: the Run was not added: ")
                && warn[0].contains(problem),
            "{}",
            warn[0]
        );
        assert_eq!(db_state(db), before, "{} unchanged", db.display());
    }

    // Locked: another process holds the write lock past the wait.
    let db = h.join("locked.db");
    candor(h)
        .args(["history", "add", "--db"])
        .arg(&db)
        .arg(&run)
        .assert()
        .success();
    let other = write(
        h,
        "other.json",
        &variant(&read(&fixture("cpu.json")), "a", "2026-01-02", 1.0, 1.0),
    );
    let holder = rusqlite::Connection::open(&db).unwrap();
    holder.execute_batch("BEGIN EXCLUSIVE").unwrap();
    let o = candor(h)
        .env("CANDOR_HISTORY_TIMEOUT", "300ms")
        .args(["history", "add", "--db"])
        .arg(&db)
        .arg(&other)
        .output()
        .unwrap();
    assert_eq!(o.status.code(), Some(1), "{}", stderr(&o));
    let err = stderr(&o);
    assert_eq!(err.lines().count(), 1, "{err}");
    assert!(
        err.contains("locked by another process (waited 300ms"),
        "{err}"
    );
    let o = candor(h)
        .env("CANDOR_HISTORY_TIMEOUT", "300ms")
        .args(["import", "--db"])
        .arg(&db)
        .arg(&fio)
        .output()
        .unwrap();
    assert!(o.status.success(), "{}", stderr(&o));
    assert!(
        stderr(&o).contains("candor: warning: history: the Run was not added: ")
            && stderr(&o).contains("locked")
    );
    holder.execute_batch("ROLLBACK").unwrap();
    drop(holder);
    assert_eq!(run_count(h, &db), 1, "the locked adds stored nothing");
    candor(h)
        .args(["history", "add", "--db"])
        .arg(&db)
        .arg(&other)
        .assert()
        .success();
    assert_eq!(run_count(h, &db), 2);

    // Reading a history that does not exist creates nothing.
    let none = h.join("none.db");
    let o = candor(h)
        .args(["history", "show", "x", "--db"])
        .arg(&none)
        .output()
        .unwrap();
    assert_eq!(o.status.code(), Some(2));
    assert!(stderr(&o).contains("no history yet"), "{}", stderr(&o));
    assert!(!none.exists());
}

#[test]
fn history_report_in_headless_chromium() {
    let chromium = Path::new("/usr/bin/chromium");
    if !chromium.exists() {
        assert!(
            std::env::var("CI").is_err(),
            "CI: /usr/bin/chromium is required (apt-get install chromium)"
        );
        eprintln!("SKIPPED: /usr/bin/chromium is absent (install Debian's chromium package to run this test)");
        return;
    }
    let home = tempfile::tempdir().unwrap();
    let h = home.path();
    let db = h.join("h.db");
    let hostile = "<script>alert(1)</script>";
    let base = steady_history(h, &db, hostile);
    let slow = write(
        h,
        "slow.json",
        &variant(&base, hostile, "2026-07-01", 0.5, 1.0),
    );
    candor(h)
        .args(["history", "add", "--db"])
        .arg(&db)
        .arg(&slow)
        .assert()
        .success();
    steady_history(h, &db, "web-2");
    let page = h.join("history.html");
    let o = candor(h)
        .args(["history", "report", "--format", "html", "--db"])
        .arg(&db)
        .arg("-o")
        .arg(&page)
        .output()
        .unwrap();
    assert!(o.status.success(), "{}", stderr(&o));
    let html = std::fs::read_to_string(&page).unwrap();
    assert!(
        !html.contains(hostile) && !html.contains("<script"),
        "every stored string is escaped"
    );
    let profile = tempfile::tempdir().unwrap();
    let o = std::process::Command::new("timeout")
        .arg("90")
        .arg(chromium)
        .args([
            "--headless",
            "--no-sandbox",
            "--disable-gpu",
            "--no-first-run",
            "--disable-background-networking",
            "--disable-component-update",
            "--disable-sync",
            "--enable-logging=stderr",
            "--v=0",
            "--dump-dom",
        ])
        .arg(format!("--user-data-dir={}", profile.path().display()))
        .arg(format!("file://{}", page.display()))
        .output()
        .unwrap();
    assert!(o.status.success(), "chromium: {}", stderr(&o));
    let dom = stdout(&o);
    for bad in ["Uncaught", ":CONSOLE(", "ERR_FILE_NOT_FOUND"] {
        assert!(
            !stderr(&o).contains(bad),
            "chromium reported {bad}: {}",
            stderr(&o)
        );
    }
    assert!(
        dom.contains("&lt;script&gt;alert(1)&lt;/script&gt;"),
        "the label is text"
    );
    assert!(!dom.contains("<script"), "no script element in the DOM");
    let points: Vec<u64> = dom
        .match_indices("data-points=\"")
        .map(|(i, m)| {
            let rest = &dom[i + m.len()..];
            rest[..rest.find('"').unwrap()].parse().unwrap()
        })
        .collect();
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
