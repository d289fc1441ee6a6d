//! `candor import` on real fio output produced on this machine
//! (tests/fixtures/fio/make-fixtures.sh): the imported IOPS, bytes/s and
//! percentiles equal fio's own figures, clones merge as documented, and bad
//! input exits 2 with one line naming the file.

use assert_cmd::Command;
use candor::fio::{import_files, percentile_from_bins};
use candor::result::{DirectionStats, Run};
use serde_json::Value;
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

fn fixture(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/fixtures/fio")
        .join(name)
}

/// fio's own JSON, read independently of the importer.
fn fio_json(name: &str) -> Value {
    let text = std::fs::read_to_string(fixture(name)).unwrap();
    let start = text.find("\n{").map(|i| i + 1).unwrap_or(0);
    let mut s = serde_json::Deserializer::from_str(&text[start..]).into_iter::<Value>();
    s.next().unwrap().unwrap()
}

fn import(name: &str) -> Run {
    import_files(&[fixture(name)], Some(name.to_string())).unwrap()
}

fn pct(dir: &Value, p: &str) -> u64 {
    dir["clat_ns"]["percentile"][p].as_u64().unwrap()
}

/// Every figure of one direction equals fio's (latency from `clat_ns`, fio's default).
fn assert_same(ours: &DirectionStats, fio: &Value) {
    assert_same_lat(ours, fio, "clat_ns")
}

/// Every figure of one direction equals fio's, latency from fio's `lat` key.
fn assert_same_lat(ours: &DirectionStats, fio: &Value, lat: &str) {
    let pct = |dir: &Value, p: &str| dir[lat]["percentile"][p].as_u64().unwrap();
    assert_eq!(ours.iops, fio["iops"].as_f64().unwrap(), "iops");
    assert_eq!(
        ours.bytes_per_sec,
        fio["bw_bytes"].as_f64().unwrap(),
        "bytes/s"
    );
    // fio's bw is KiB/s: bytes/s / 1024, rounded down.
    assert_eq!(
        (ours.bytes_per_sec / 1024.0).floor() as u64,
        fio["bw"].as_u64().unwrap(),
        "bw KiB/s"
    );
    assert_eq!(ours.ops, fio["total_ios"].as_u64().unwrap());
    assert_eq!(ours.bytes, fio["io_bytes"].as_u64().unwrap());
    let l = &ours.lat_ns;
    assert_eq!(l.p50, pct(fio, "50.000000"));
    assert_eq!(l.p90, pct(fio, "90.000000"));
    assert_eq!(l.p99, pct(fio, "99.000000"));
    assert_eq!(l.p99_9, pct(fio, "99.900000"));
    assert_eq!(l.p99_99, pct(fio, "99.990000"));
    assert_eq!(l.min, fio[lat]["min"].as_u64().unwrap());
    assert_eq!(l.max, fio[lat]["max"].as_u64().unwrap());
    assert_eq!(l.mean, fio[lat]["mean"].as_f64().unwrap());
}

fn disk(run: &Run, i: usize) -> &candor::result::DiskMeasurement {
    run.disk().nth(i).unwrap()
}

#[test]
fn submit_batch_is_recorded() {
    // fio writes --iodepth_batch_submit=4 as "iodepth_batch" in its JSON.
    let run = import("randread-iouring-batch4.json");
    let d = disk(&run, 0);
    assert_same(
        d.read.as_ref().unwrap(),
        &fio_json("randread-iouring-batch4.json")["jobs"][0]["read"],
    );
    assert_eq!((d.spec.iodepth, d.spec.iodepth_batch), (16, Some(4)));
    let plain = import("randread-iouring-q16.json");
    assert_eq!(disk(&plain, 0).spec.iodepth_batch, Some(1), "fio's default");
    // At depth, fio's default reaping books ring waits as latency: said so.
    let reaped = |run: &Run| {
        disk(run, 0)
            .notes
            .iter()
            .any(|n| n.contains("reaped at most 1 completion(s) per call"))
    };
    assert!(reaped(&plain));
    assert!(
        !reaped(&import("randwrite-psync-fsync.json")),
        "depth 1: nothing to say"
    );
}

#[test]
fn single_job_json_equals_fio() {
    let run = import("randread-iouring-q16.json");
    let fio = fio_json("randread-iouring-q16.json");
    assert_eq!(run.source, "fio-import");
    assert_eq!(run.tool.name, "fio");
    assert_eq!(run.tool.version, "3.33");
    assert_eq!(run.disk().count(), 1);
    let d = disk(&run, 0);
    assert_same(d.read.as_ref().unwrap(), &fio["jobs"][0]["read"]);
    assert!(d.write.is_none(), "a read job has no write direction");
    assert_eq!(d.profile.as_deref(), Some("randread-q16"));
    assert_eq!(
        (
            d.spec.rw.as_str(),
            d.spec.bs,
            d.spec.iodepth,
            d.spec.numjobs
        ),
        ("randread", 4096, 16, 1)
    );
    assert_eq!(
        (d.spec.engine.as_str(), d.spec.direct, d.spec.size),
        ("io_uring", true, 64 << 20)
    );
    assert_eq!(d.spec.runtime_ns, 2_000_000_000);
    assert!(
        d.fio_command.starts_with("fio --name=randread-q16 "),
        "{}",
        d.fio_command
    );
    assert!(d.fio_command.contains("--rw=randread") && d.fio_command.contains("--iodepth=16"));
    assert_eq!(
        d.measured_ns,
        fio["jobs"][0]["job_runtime"].as_u64().unwrap() * 1_000_000
    );
}

#[test]
fn lat_percentiles_are_preferred_as_candor_measures_from_submission() {
    let name = "randread-libaio-latpct.json";
    let run = import(name);
    let fio = fio_json(name);
    let r = &fio["jobs"][0]["read"];
    assert!(r["clat_ns"]["percentile"].is_object() && r["lat_ns"]["percentile"].is_object());
    assert_same_lat(disk(&run, 0).read.as_ref().unwrap(), r, "lat_ns");
    // Without --lat_percentiles the note says the figures are clat.
    let d = disk(&import("randread-iouring-q16.json"), 0).clone();
    assert!(d
        .notes
        .iter()
        .any(|n| n.contains("clat_ns") && n.contains("--lat_percentiles=1")));
    assert!(!disk(&run, 0).notes.iter().any(|n| n.contains("clat_ns")));
}

#[test]
fn json_plus_equals_fio_and_bins_reproduce_its_percentiles() {
    let name = "read-iouring-1m.jsonplus.json";
    let run = import(name);
    let fio = fio_json(name);
    let r = &fio["jobs"][0]["read"];
    assert_same(disk(&run, 0).read.as_ref().unwrap(), r);
    assert_eq!(disk(&run, 0).spec.bs, 1 << 20);
    // Our percentile-from-bins is fio's: every percentile fio printed.
    let bins: BTreeMap<u64, u64> = r["clat_ns"]["bins"]
        .as_object()
        .unwrap()
        .iter()
        .map(|(k, v)| (k.parse().unwrap(), v.as_u64().unwrap()))
        .collect();
    let printed = r["clat_ns"]["percentile"].as_object().unwrap();
    assert!(printed.len() >= 17);
    for (p, v) in printed {
        assert_eq!(
            percentile_from_bins(&bins, p.parse().unwrap()),
            v.as_u64().unwrap(),
            "p{p}"
        );
    }
}

fn base64_decode(text: &str) -> Vec<u8> {
    let val = |c: u8| match c {
        b'A'..=b'Z' => c - b'A',
        b'a'..=b'z' => c - b'a' + 26,
        b'0'..=b'9' => c - b'0' + 52,
        b'+' => 62,
        _ => 63,
    } as u32;
    let mut out = Vec::new();
    for chunk in text.as_bytes().chunks(4) {
        let pad = chunk.iter().filter(|&&c| c == b'=').count();
        let n = chunk
            .iter()
            .fold(0u32, |n, &c| n << 6 | if c == b'=' { 0 } else { val(c) });
        let bytes = [(n >> 16) as u8, (n >> 8) as u8, n as u8];
        out.extend_from_slice(&bytes[..3 - pad]);
    }
    out
}

/// json+ bins become an HDR histogram (as candor's own Runs keep) whose
/// percentiles agree with fio's to HDR's 3 significant digits.
#[test]
fn json_plus_bins_become_a_mergeable_histogram() {
    use hdrhistogram::serialization::Deserializer;
    for name in [
        "read-iouring-1m.jsonplus.json",
        "randread-libaio-j2.jsonplus.json",
    ] {
        let run = import(name);
        let read = disk(&run, 0).read.clone().unwrap();
        let b64 = read.lat_ns.histogram.expect("json+ gives a histogram");
        let raw = base64_decode(&b64);
        let h: hdrhistogram::Histogram<u64> =
            Deserializer::new().deserialize(&mut &raw[..]).unwrap();
        assert_eq!(h.len(), read.ops, "{name}: every I/O recorded");
        for (q, ours) in [(0.5, read.lat_ns.p50), (0.99, read.lat_ns.p99)] {
            let v = h.value_at_quantile(q);
            assert!(h.equivalent(v, ours), "{name}: q{q}: hdr {v} vs {ours}");
        }
    }
    // Plain json has no bins, so no histogram.
    let run = import("randread-iouring-q16.json");
    assert!(disk(&run, 0)
        .read
        .as_ref()
        .unwrap()
        .lat_ns
        .histogram
        .is_none());
}

#[test]
fn clones_without_group_reporting_merge_and_stay_as_threads() {
    // json+: percentiles exact from the summed bins.
    let name = "randread-libaio-j2.jsonplus.json";
    let run = import(name);
    let fio = fio_json(name);
    let jobs = fio["jobs"].as_array().unwrap();
    assert_eq!(jobs.len(), 2);
    assert_eq!(run.disk().count(), 1, "two clones, one measurement");
    let d = disk(&run, 0);
    assert_eq!(d.spec.numjobs, 2);
    let read = d.read.as_ref().unwrap();
    let sum = |k: &str| {
        jobs.iter()
            .map(|j| j["read"][k].as_f64().unwrap())
            .sum::<f64>()
    };
    assert_eq!(read.iops, sum("iops"));
    assert_eq!(read.bytes_per_sec, sum("bw_bytes"));
    assert_eq!(read.ops as f64, sum("total_ios"));
    let mut bins: BTreeMap<u64, u64> = BTreeMap::new();
    for j in jobs {
        for (k, v) in j["read"]["clat_ns"]["bins"].as_object().unwrap() {
            *bins.entry(k.parse().unwrap()).or_insert(0) += v.as_u64().unwrap();
        }
    }
    assert_eq!(read.lat_ns.p99, percentile_from_bins(&bins, 99.0));
    assert_eq!(read.lat_ns.p50, percentile_from_bins(&bins, 50.0));
    assert_eq!(d.threads.len(), 2);
    for (t, j) in d.threads.iter().zip(jobs) {
        assert_same(t.read.as_ref().unwrap(), &j["read"]);
    }
    assert!(
        d.notes
            .iter()
            .any(|n| n.contains("2 clones merged") && n.contains("exact")),
        "{:?}",
        d.notes
    );
    // The report shows how evenly the clones worked.
    let text = candor::report::render(&run, candor::report::Format::Text);
    let t0 = candor::units::fmt_count(jobs[0]["read"]["iops"].as_f64().unwrap());
    let t1 = candor::units::fmt_count(jobs[1]["read"]["iops"].as_f64().unwrap());
    assert!(
        text.contains(&format!("t0 {t0} · t1 {t1} (max/min")),
        "{text}"
    );

    // json: percentiles approximate, and the note says so.
    let name = "randwrite-libaio-j2.json";
    let run = import(name);
    let fio = fio_json(name);
    let d = disk(&run, 0);
    let w = d.write.as_ref().unwrap();
    let jobs = fio["jobs"].as_array().unwrap();
    assert_eq!(
        w.iops,
        jobs.iter()
            .map(|j| j["write"]["iops"].as_f64().unwrap())
            .sum::<f64>()
    );
    assert_eq!(
        w.bytes_per_sec,
        jobs.iter()
            .map(|j| j["write"]["bw_bytes"].as_f64().unwrap())
            .sum::<f64>()
    );
    let lo = jobs
        .iter()
        .map(|j| pct(&j["write"], "99.000000"))
        .min()
        .unwrap();
    let hi = jobs
        .iter()
        .map(|j| pct(&j["write"], "99.000000"))
        .max()
        .unwrap();
    assert!(
        w.lat_ns.p99 >= lo && w.lat_ns.p99 <= hi,
        "merged p99 between the clones'"
    );
    assert!(
        d.notes.iter().any(|n| n.contains("approximate")),
        "{:?}",
        d.notes
    );
}

#[test]
fn group_reporting_and_notes_before_the_json() {
    let name = "randrw-psync-j2-group-notes.json";
    let raw = std::fs::read_to_string(fixture(name)).unwrap();
    assert!(
        raw.starts_with("note: both iodepth"),
        "the fixture has fio's notes before its JSON"
    );
    let run = import(name);
    let fio = fio_json(name);
    let d = disk(&run, 0);
    assert_eq!(run.disk().count(), 1);
    assert_same(d.read.as_ref().unwrap(), &fio["jobs"][0]["read"]);
    assert_same(d.write.as_ref().unwrap(), &fio["jobs"][0]["write"]);
    assert_eq!(
        (d.spec.rw.as_str(), d.spec.rwmixread, d.spec.numjobs),
        ("randrw", Some(70), 2)
    );
    assert!(d.threads.is_empty());
    // psync runs at depth 1 whatever --iodepth=4 asked; fio says so, and so do we.
    assert_eq!(d.spec.iodepth, 1);
    assert!(d.notes.iter().any(|n| n.contains("iodepth=4 asked")));
    assert!(d.notes.iter().any(|n| n.contains("group_reporting")));
    assert!(run
        .notes
        .iter()
        .any(|n| n.contains("fio printed before its JSON: note: both iodepth")));
}

#[test]
fn global_options_and_several_jobs() {
    let name = "two-jobs-global.json";
    let run = import(name);
    let fio = fio_json(name);
    assert_eq!(run.disk().count(), 2);
    let (a, b) = (disk(&run, 0), disk(&run, 1));
    assert_same(a.read.as_ref().unwrap(), &fio["jobs"][0]["read"]);
    assert_same(b.write.as_ref().unwrap(), &fio["jobs"][1]["write"]);
    // ioengine and direct come from fio's "global options".
    assert_eq!(
        (a.spec.engine.as_str(), a.spec.direct, a.spec.bs),
        ("libaio", true, 1 << 20)
    );
    assert_eq!(
        (b.spec.engine.as_str(), b.spec.rw.as_str(), b.spec.iodepth),
        ("libaio", "randwrite", 16)
    );
    assert!(
        run.notes.iter().any(|n| n.contains("seq-read: (g=0)")),
        "fio's text line kept"
    );
}

#[test]
fn fsync_job_keeps_the_sync_latency_and_commits_count_it() {
    let run = import("randwrite-psync-fsync.json");
    let fio = fio_json("randwrite-psync-fsync.json");
    let d = disk(&run, 0);
    assert_same(d.write.as_ref().unwrap(), &fio["jobs"][0]["write"]);
    assert_eq!(
        (d.spec.fsync, d.spec.direct, d.spec.engine.as_str()),
        (1, false, "psync")
    );
    // fio's sync latency is kept as the measurement's `sync`, as fio printed it.
    let sync = d.sync.as_ref().expect("the sync figures are kept");
    let fio_sync = &fio["jobs"][0]["sync"];
    assert_eq!(sync.ops, fio_sync["total_ios"].as_u64().unwrap());
    let fio_p50 = fio_sync["lat_ns"]["percentile"]["50.000000"]
        .as_u64()
        .unwrap();
    assert_eq!(sync.lat_ns.p50, fio_p50);
    // A commit is the write plus its sync: the app-commit rate uses both.
    let f = candor::findings::analyze(&run);
    let commit = f.iter().find(|f| f.id == "app-commit").unwrap();
    let write_p50 = d.write.as_ref().unwrap().lat_ns.p50 as f64;
    let p50 = commit.evidence["fsync_p50_ns"].as_f64().unwrap();
    assert_eq!(p50, write_p50 + fio_p50 as f64, "{commit:?}");
    assert_eq!(commit.evidence["write_plus_separate_sync"], true);
    let rate = commit.evidence["commits_per_sec_at_p50"].as_f64().unwrap();
    assert!(
        rate < 1e9 / fio_p50 as f64,
        "{rate}: faster than fio's syncs alone"
    );
}

#[test]
fn the_same_job_in_several_files_becomes_passes() {
    let f = fixture("randread-iouring-q16.json");
    let run = import_files(&[f.clone(), f], None).unwrap();
    let passes: Vec<Option<u32>> = run.disk().map(|d| d.pass).collect();
    assert_eq!(passes, [Some(1), Some(2)]);
    let text = candor::report::render(&run, candor::report::Format::Text);
    assert!(text.contains("2 passes"));
    assert!(text.contains("x1.00"), "identical passes: spread x1.00");
}

#[test]
fn reports_work_on_imports() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("run.json");
    Command::cargo_bin("candor")
        .unwrap()
        .env("CANDOR_NO_HISTORY", "1")
        .args(["import", "--label", "fio host", "-o", out.to_str().unwrap()])
        .arg(fixture("randread-iouring-q16.json"))
        .arg(fixture("randrw-psync-j2-group-notes.json"))
        .assert()
        .success();
    let run = candor::result::read_run(&out).unwrap();
    assert_eq!(run.label.as_deref(), Some("fio host"));
    assert_eq!(run.disk().count(), 2);
    for format in ["text", "md", "csv", "json", "html"] {
        Command::cargo_bin("candor")
            .unwrap()
            .env("CANDOR_NO_HISTORY", "1")
            .args(["report", out.to_str().unwrap(), "--format", format])
            .assert()
            .success();
    }
    // Without --output the Run's JSON goes to standard output.
    let o = Command::cargo_bin("candor")
        .unwrap()
        .env("CANDOR_NO_HISTORY", "1")
        .arg("import")
        .arg(fixture("randread-iouring-q16.json"))
        .assert()
        .success();
    let v: Value = serde_json::from_slice(&o.get_output().stdout).unwrap();
    assert_eq!(v["schema"], "candor.run/1");
    assert_eq!(v["source"], "fio-import");
}

#[test]
fn bad_input_exits_2_with_one_line() {
    let dir = tempfile::tempdir().unwrap();
    let p = |name: &str, text: &str| {
        let path = dir.path().join(name);
        std::fs::write(&path, text).unwrap();
        path.to_str().unwrap().to_string()
    };
    let real = std::fs::read_to_string(fixture("randread-iouring-q16.json")).unwrap();
    let run = serde_json::to_string(&candor::result::Run::new(vec![])).unwrap();
    let cases = [
        (
            p("text.json", "fio: unrecognized option\n"),
            "no JSON found",
        ),
        (p("other.json", "{\"hello\": 1}"), "not fio output"),
        (p("truncated.json", &real[..real.len() / 2]), "truncated"),
        (p("run.json", &run), "candor Run"),
        (p("empty.json", ""), "empty file"),
        (
            p(
                "nojobs.json",
                "{\"fio version\": \"fio-3.33\", \"jobs\": []}",
            ),
            "no jobs",
        ),
        (
            p(
                "badbs.json",
                &real.replace("\"bs\" : \"4k\"", "\"bs\" : \"lots\""),
            ),
            "option bs=lots",
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
    for (file, problem) in &cases {
        let o = Command::cargo_bin("candor")
            .unwrap()
            .env("CANDOR_NO_HISTORY", "1")
            .args(["import", file])
            .assert()
            .code(2);
        let err = String::from_utf8_lossy(&o.get_output().stderr).to_string();
        assert_eq!(err.lines().count(), 1, "one line: {err}");
        assert!(
            err.contains(file.as_str()) && err.contains(problem),
            "{file}: {err}"
        );
    }
    let o = Command::cargo_bin("candor")
        .unwrap()
        .env("CANDOR_NO_HISTORY", "1")
        .args(["import", "-o", "/nonexistent-dir/run.json"])
        .arg(fixture("randread-iouring-q16.json"))
        .assert()
        .code(2);
    let err = String::from_utf8_lossy(&o.get_output().stderr).to_string();
    assert!(
        err.contains("/nonexistent-dir") && err.lines().count() == 1,
        "{err}"
    );
    let o = Command::cargo_bin("candor")
        .unwrap()
        .env("CANDOR_NO_HISTORY", "1")
        .arg("import")
        .assert()
        .code(2);
    let err = String::from_utf8_lossy(&o.get_output().stderr).to_string();
    assert_eq!(err.lines().count(), 1, "{err}");
    assert!(err.contains("no fio output files given"));
}

/// Every prefix of every fixture either imports or fails with a message
/// naming the file: never a panic.
#[test]
fn truncated_fixtures_never_panic() {
    let dir = std::fs::read_dir(Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/fio"))
        .unwrap();
    let mut checked = 0;
    for entry in dir {
        let path = entry.unwrap().path();
        if path.extension().and_then(|e| e.to_str()) != Some("json") {
            continue;
        }
        let text = std::fs::read_to_string(&path).unwrap();
        for k in 1..60 {
            let mut cut = text.len() * k / 60;
            while !text.is_char_boundary(cut) {
                cut -= 1;
            }
            let name = Path::new("cut.json");
            match candor::fio::parse_fio(&text[..cut], name) {
                Ok(out) => {
                    let _ = candor::fio::import(&[out], None);
                }
                Err(e) => assert!(e.to_string().starts_with("cut.json: "), "{e}"),
            }
            checked += 1;
        }
    }
    assert!(checked >= 8 * 59, "{checked}");
}

/// fio's `disk_util` is kept as fio printed it, with the jobs of its file
/// (issue 23: nothing fio saw of the device is dropped).
#[test]
fn fio_disk_util_is_kept() {
    let run = import("randread-iouring-q16.json");
    let fio = fio_json("randread-iouring-q16.json");
    let d = &fio["disk_util"][0];
    assert_eq!(run.fio_disk_util.len(), 1);
    let u = &run.fio_disk_util[0];
    assert_eq!(u.name, d["name"].as_str().unwrap());
    assert_eq!(u.measurements, [0]);
    assert_eq!(u.read_ios, d["read_ios"].as_u64().unwrap());
    assert_eq!(u.read_merges, d["read_merges"].as_u64().unwrap());
    assert_eq!(u.read_ticks_ms, d["read_ticks"].as_u64().unwrap());
    assert_eq!(u.in_queue_ms, d["in_queue"].as_u64().unwrap());
    assert_eq!(u.util_pct, d["util"].as_f64().unwrap());
    // Two jobs in one output share one entry, naming both.
    assert_eq!(
        import("two-jobs-global.json").fio_disk_util[0].measurements,
        [0, 1]
    );
    // A clean import raises no latency-above-device: fio's clat against
    // the device's own time per request, 210 us against 152 us here.
    assert!(!candor::findings::analyze(&run)
        .iter()
        .any(|f| f.id == "latency-above-device"));
}

/// The same fio output with the device's time per request cut to a
/// twentieth (what a throttle above the device looks like to fio's
/// counters): latency-above-device from fio's own `disk_util`.
#[test]
fn fio_disk_util_tells_where_the_latency_was_spent() {
    let text = std::fs::read_to_string(fixture("randread-iouring-q16.json")).unwrap();
    let planted = text.replace("\"read_ticks\" : 20168", "\"read_ticks\" : 1008");
    assert_ne!(planted, text, "the fixture's read_ticks moved");
    let dir = tempfile::tempdir().unwrap();
    let f = dir.path().join("throttled.json");
    std::fs::write(&f, planted).unwrap();
    let run = import_files(&[f], None).unwrap();
    let found = candor::findings::analyze(&run)
        .into_iter()
        .find(|f| f.id == "latency-above-device")
        .expect("latency-above-device");
    assert!(
        found.verdict.contains("vda served them in"),
        "{}",
        found.verdict
    );
}

/// A `disk_util` that is not fio's: one line naming the field, exit 2.
#[test]
fn a_bad_disk_util_is_refused_by_name() {
    let text = std::fs::read_to_string(fixture("randread-iouring-q16.json")).unwrap();
    let dir = tempfile::tempdir().unwrap();
    for (from, to, says) in [
        (
            "\"read_ios\" : 132322",
            "\"read_ios\" : -1",
            "disk_util[0]: read_ios is -1",
        ),
        (
            "\"util\" : 84.803401",
            "\"util\" : 184.8",
            "disk_util[0]: util is 184.8, more than 100 %",
        ),
        ("\"name\" : \"vda\"", "\"name\" : 7", "disk_util[0] is {"),
    ] {
        let bad = text.replace(from, to);
        assert_ne!(bad, text, "{from}");
        let f = dir.path().join("bad.json");
        std::fs::write(&f, bad).unwrap();
        let out = Command::cargo_bin("candor")
            .unwrap()
            .args(["import", f.to_str().unwrap(), "--no-history"])
            .output()
            .unwrap();
        let err = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(2), "{err}");
        assert!(err.contains(says), "{says}: {err}");
        assert_eq!(err.lines().count(), 1, "{err}");
    }
}

/// candor's import on `text` written to a file: the Run, or the one-line refusal.
fn import_text(text: &str) -> Result<Value, String> {
    let dir = tempfile::tempdir().unwrap();
    let f = dir.path().join("in.json");
    std::fs::write(&f, text).unwrap();
    let out = Command::cargo_bin("candor")
        .unwrap()
        .args(["import", f.to_str().unwrap(), "--no-history"])
        .output()
        .unwrap();
    let err = String::from_utf8_lossy(&out.stderr).to_string();
    if out.status.success() {
        return Ok(serde_json::from_slice(&out.stdout).unwrap());
    }
    assert_eq!(out.status.code(), Some(2), "{err}");
    assert_eq!(err.lines().count(), 1, "{err}");
    Err(err)
}

fn corpus(name: &str) -> String {
    std::fs::read_to_string(
        Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("tests/fixtures/corpus/fio")
            .join(name),
    )
    .unwrap()
}

/// fio 2.1's latency (µs) and io_bytes (KiB) read in fio's units: the
/// yardstick file's read clat p99 of 342 µs is 342,000 ns, its 839,056 KiB
/// are 859,193,344 bytes; a file whose keys are not its version's is refused.
#[test]
fn fio_2_units_are_read_as_fio_2_printed_them() {
    let run = import_text(&corpus("yardstick-2.1.3-rw.json")).unwrap();
    let read = &run["measurements"][0]["read"];
    assert_eq!(read["lat_ns"]["p99"], 342_000);
    assert_eq!(read["lat_ns"]["p50"], 175_000);
    assert_eq!(read["bytes"], 839_056u64 * 1024);
    assert_eq!(read["iops"], 20972.0);
    // yardstick's copy of its read output lost fio's version line: the
    // keys tell the units, and a note says so.
    let read_only = corpus("yardstick-2.1.3-read.json");
    let run = import_text(&read_only).unwrap();
    let notes = run["notes"].to_string();
    assert!(notes.contains("units taken from the keys"), "{notes}");
    // The same keys under a 3.x version are not what fio 3 prints.
    let text = read_only.replacen("{", "{\"fio version\": \"fio-3.33\", ", 1);
    let e = import_text(&text).unwrap_err();
    assert!(e.contains("fio-3.33 prints latency as clat_ns (nanoseconds), but this file has clat (microseconds)"), "{e}");
    let text = read_only.replacen("{", "{\"fio version\": \"fio-2.21\", ", 1);
    let e = import_text(&text).unwrap_err();
    assert!(
        e.contains(
            "fio-2.21 prints io_bytes in bytes (beside io_kbytes), but this file has no io_kbytes"
        ),
        "{e}"
    );
}

/// fio before 2.3 prints no job options: the pattern is unknown, never
/// fio's default `read` for a job that wrote; 2.1.4 prints no total_ios.
#[test]
fn options_fio_did_not_print_are_unknown() {
    let run = import_text(&corpus("pkb-2.1.4.json")).unwrap();
    let write = run["measurements"]
        .as_array()
        .unwrap()
        .iter()
        .find(|m| m["profile"] == "sequential_write")
        .unwrap();
    assert_eq!(write["spec"]["rw"], "unknown");
    assert_eq!(write["spec"]["bs"], 0);
    assert!(write["read"].is_null());
    // 133 IOPS over 5,303 ms: 705 I/Os (fio 2.1.4 prints no total_ios).
    assert!(write["write"]["ops"].as_u64().unwrap() > 0);
    assert!(write["notes"].to_string().contains("prints no job options"));
    let dir = tempfile::tempdir().unwrap();
    let f = dir.path().join("r.json");
    std::fs::write(&f, serde_json::to_string(&run).unwrap()).unwrap();
    let out = Command::cargo_bin("candor")
        .unwrap()
        .args(["analyze", f.to_str().unwrap()])
        .output()
        .unwrap();
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(
        !text
            .lines()
            .any(|l| l.contains("sequential_write") && l.contains(" read")),
        "{text}"
    );
    // The report does not say "buffered" of a job whose O_DIRECT is unknown.
    let out = Command::cargo_bin("candor")
        .unwrap()
        .args(["report", f.to_str().unwrap()])
        .output()
        .unwrap();
    let text = String::from_utf8_lossy(&out.stdout);
    let engine = text
        .lines()
        .find(|l| l.trim_start().starts_with("Engine"))
        .unwrap();
    assert!(engine.contains("fio printed no job options"), "{engine}");
    assert!(!text.contains("buffered"), "{text}");
}

/// Why a figure is missing is named: gtod_reduce turns latency off, a
/// percentile_list leaves p99.9 out, fio's Mi suffix is a size.
#[test]
fn the_cause_of_missing_latency_is_named() {
    let base = corpus("benson-3.33.json");
    let run: Value = serde_json::from_str(&base[base.find("\n{").unwrap() + 1..]).unwrap();
    let job = &run["jobs"][0];
    // gtod_reduce=1: fio times nothing (what a 3.x file then holds: N 0, no percentiles).
    let mut reduced = run.clone();
    let j = &mut reduced["jobs"][0];
    j["job options"]["gtod_reduce"] = "1".into();
    for dir in ["read", "write"] {
        for lat in ["clat_ns", "lat_ns", "slat_ns"] {
            j[dir][lat] =
                serde_json::json!({"min": 0, "max": 0, "mean": 0.0, "stddev": 0.0, "N": 0});
        }
    }
    let out = import_text(&reduced.to_string()).unwrap();
    let notes = out["measurements"][0]["notes"].to_string();
    assert!(
        notes.contains("gtod_reduce=1 turns off fio's latency timing"),
        "{notes}"
    );
    assert!(!notes.contains("percentile_list"), "{notes}");
    // The same with disable_lat=1 instead: that option is named.
    let j = &mut reduced["jobs"][0]["job options"];
    j.as_object_mut().unwrap().remove("gtod_reduce");
    j["disable_lat"] = "1".into();
    let out = import_text(&reduced.to_string()).unwrap();
    let notes = out["measurements"][0]["notes"].to_string();
    assert!(
        notes.contains("disable_lat=1 turns off fio's latency timing"),
        "{notes}"
    );
    // percentile_list=50:99: fio prints only those.
    let mut listed = run.clone();
    let j = &mut listed["jobs"][0];
    j["job options"]["percentile_list"] = "50:99".into();
    for dir in ["read", "write"] {
        if let Some(p) = j[dir]["clat_ns"]["percentile"].as_object_mut() {
            p.retain(|k, _| k == "50.000000" || k == "99.000000");
        }
    }
    let out = import_text(&listed.to_string()).unwrap();
    let notes = out["measurements"][0]["notes"].to_string();
    assert!(
        notes.contains("p99.9 percentile (percentile_list=50:99: fio printed only those)"),
        "{notes}"
    );
    // size=16Mi: fio reads Mi as MiB (k, m, g with i and b, under kb_base).
    let mut sized = run.clone();
    sized["jobs"][0]["job options"]["size"] = "16Mi".into();
    let out = import_text(&sized.to_string()).unwrap();
    assert_eq!(out["measurements"][0]["spec"]["size"], 16u64 << 20);
    // fio's compatibility rule: under the default kb_base, 4KiB is 4000 bytes.
    sized["jobs"][0]["job options"]["size"] = "4KiB".into();
    let out = import_text(&sized.to_string()).unwrap();
    assert_eq!(out["measurements"][0]["spec"]["size"], 4000);
    assert!(job["job options"].is_object());
}

/// fio's client/server output: one Run per host, each labelled with it,
/// written beside --output; without --output, one line saying so.
#[test]
fn client_server_output_gives_one_run_per_host() {
    let text = corpus("pbench-3.7-clients.json");
    let e = import_text(&text).unwrap_err();
    assert!(
        e.contains("client/server output from 2 host(s) (perf36, perf84)"),
        "{e}"
    );
    let dir = tempfile::tempdir().unwrap();
    let f = dir.path().join("clients.json");
    std::fs::write(&f, &text).unwrap();
    let out = Command::cargo_bin("candor")
        .unwrap()
        .args(["import", "--no-history", "-o"])
        .arg(dir.path().join("fleet.json"))
        .arg(&f)
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let fio: Value = serde_json::from_str(&text[text.find("\n{").unwrap() + 1..]).unwrap();
    for host in ["perf84", "perf36"] {
        let run: Value = serde_json::from_str(
            &std::fs::read_to_string(dir.path().join(format!("fleet.{host}.json"))).unwrap(),
        )
        .unwrap();
        assert_eq!(run["label"], host);
        assert_eq!(run["host"]["hostname"], host);
        let theirs: f64 = fio["client_stats"]
            .as_array()
            .unwrap()
            .iter()
            .filter(|j| j["hostname"] == host && j["jobname"] != "All clients")
            .map(|j| j["read"]["iops"].as_f64().unwrap())
            .sum();
        let ours: f64 = run["measurements"]
            .as_array()
            .unwrap()
            .iter()
            .map(|m| m["read"]["iops"].as_f64().unwrap_or(0.0))
            .sum();
        assert!(
            (ours - theirs).abs() < 1e-6 * theirs,
            "{host}: {ours} vs {theirs}"
        );
    }
    // Written again without --force: refused, nothing replaced.
    let again = Command::cargo_bin("candor")
        .unwrap()
        .args(["import", "--no-history", "-o"])
        .arg(dir.path().join("fleet.json"))
        .arg(&f)
        .output()
        .unwrap();
    assert_eq!(again.status.code(), Some(2));
}
