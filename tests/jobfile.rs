//! fio job files, checked against fio itself and run for real.
//!
//! The oracle: for every job file under tests/fixtures/jobfiles (candor's
//! own, written to exercise the grammar), Debian's fio must print the same
//! jobs and options with `fio --showcmd` as candor parsed, and read the
//! same values with `fio --debug=parse --parse-only`. Where fio is missing
//! the oracle tests say so and skip, except in CI (`CI=true`), where they
//! fail.

use candor::fio::jobfile::{self, options, value, Env, FileSystem, Job, Setting, Value};
use std::path::{Path, PathBuf};
use std::process::Command;

fn fixtures() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/jobfiles")
}

/// The environment the fixtures read (`${CANDOR_JF_SIZE}`, `${CANDOR_JF_DIR}`).
const VARS: [(&str, &str); 2] = [("CANDOR_JF_SIZE", "24m"), ("CANDOR_JF_DIR", "/var/tmp")];

fn env() -> Env {
    VARS.iter()
        .fold(Env::of_this_host(), |e, (k, v)| e.with_var(k, v))
}

/// True when fio can be run; in CI its absence is a failure.
fn have_fio() -> bool {
    let ok = Command::new("fio")
        .arg("--version")
        .output()
        .is_ok_and(|o| o.status.success());
    if !ok {
        assert!(
            std::env::var("CI").as_deref() != Ok("true"),
            "fio is not installed, and CI=true: the job-file oracle must run in CI (apt-get install fio)"
        );
        eprintln!("SKIPPED: fio is absent (install Debian's fio package to run this test)");
    }
    ok
}

/// fio run from the fixtures' directory (includes resolve from there too).
fn fio(args: &[&str]) -> (bool, String) {
    let out = Command::new("fio")
        .args(args)
        .current_dir(fixtures())
        .envs(VARS)
        .output()
        .expect("run fio");
    let mut text = String::from_utf8_lossy(&out.stdout).into_owned();
    text.push_str(&String::from_utf8_lossy(&out.stderr));
    (out.status.success(), text)
}

fn parse(name: &str) -> jobfile::JobFile {
    jobfile::read(&FileSystem, &fixtures().join(name), &[], &env())
        .unwrap_or_else(|e| panic!("{name}: {e}"))
}

/// What `fio --showcmd` prints for a job file as candor read it: each
/// global section prints every global option set so far, each job section
/// `--name=SECTION` and its own options, in the order fio reads them.
fn expected_showcmd(file: &jobfile::JobFile) -> String {
    let mut out = String::from("fio ");
    let mut globals: Vec<&Setting> = Vec::new();
    let mut done_globals = 0;
    let dump = |s: &Setting| match &s.raw {
        Some(v) => format!("--{}={v} ", s.def.name),
        None => format!("--{} ", s.def.name),
    };
    for job in &file.jobs {
        // The global sections before this job: fio prints each one's
        // accumulated options when it reads it.
        if job.inherited.len() > done_globals {
            for s in &job.inherited[done_globals..] {
                globals.push(s);
            }
            out.push_str(&globals.iter().map(|s| dump(s)).collect::<String>());
            done_globals = job.inherited.len();
        }
        out.push_str(&format!("--name={} ", job.section));
        out.extend(job.own.iter().map(dump));
    }
    out.trim_end().to_string()
}

/// The values fio's parser prints for a setting (`ret=0, out=N` lines):
/// numbers in bytes, times in microseconds, booleans as 0/1, one per piece
/// of a per-direction value; none for words, ranges and splits.
fn fio_debug_values(s: &Setting, kb: value::KbBase) -> Vec<String> {
    let raw = s.raw.as_deref().unwrap_or("");
    match &s.value {
        Value::Set => vec!["1".into()],
        Value::Bool(b) => vec![u8::from(*b).to_string()],
        Value::Number(n) => vec![n.to_string()],
        Value::Time(us) => vec![us.to_string()],
        Value::TimeRange(lo, hi) if lo == hi => vec![lo.to_string()],
        Value::TimeRange(lo, hi) => vec![lo.to_string(), hi.to_string()],
        Value::Numbers(_) => {
            // Each non-empty piece as written, read with the job's kb_base.
            value::pieces(raw, true)
                .into_iter()
                .filter(|p| !p.is_empty())
                .map(|p| value::number(p, kb).unwrap().to_string())
                .collect()
        }
        Value::Floats(f) => f.iter().map(|x| format!("{x:.6}")).collect(),
        Value::Text(_) | Value::Range(_) | Value::Split(_) => Vec::new(),
    }
}

/// (option, values) in the order fio's parser handles them, from
/// `fio --debug=parse --parse-only`.
fn fio_debug(text: &str) -> Vec<(String, Vec<String>)> {
    let mut out: Vec<(String, Vec<String>)> = Vec::new();
    for line in text.lines() {
        if let Some(i) = line.find(" handle_option=") {
            let name = line[i + 15..].split(',').next().unwrap().to_string();
            out.push((name, Vec::new()));
        } else if let Some(i) = line.find("ret=0, out=") {
            out.last_mut()
                .unwrap()
                .1
                .push(line[i + 11..].trim().to_string());
        }
    }
    out
}

/// (option, values) for candor's reading, in fio's order.
fn candor_debug(file: &jobfile::JobFile) -> Vec<(String, Vec<String>)> {
    let mut out = Vec::new();
    let mut seen_globals = 0;
    let mut push = |s: &Setting, kb: value::KbBase| {
        out.push((s.def.name.to_string(), fio_debug_values(s, kb)));
    };
    for job in &file.jobs {
        let kb_of = |settings: &[Setting]| {
            settings
                .iter()
                .rev()
                .find(|s| s.def.name == "kb_base")
                .and_then(|s| s.raw.as_deref().map(value::KbBase::parse))
                .unwrap_or(Ok(value::KbBase::Binary))
                .unwrap()
        };
        for (i, s) in job.inherited.iter().enumerate().skip(seen_globals) {
            push(s, kb_of(&job.inherited[..=i]));
        }
        seen_globals = job.inherited.len();
        let kb = kb_of(&[job.inherited.clone(), job.own.clone()].concat());
        for s in &job.own {
            push(s, kb);
        }
    }
    out
}

/// The whole oracle for one fixture.
fn agrees_with_fio(name: &str) {
    let file = parse(name);
    let (ok, shown) = fio(&["--showcmd", name]);
    assert!(ok, "fio --showcmd {name} failed: {shown}");
    let fio_line = shown.lines().next().unwrap_or("").trim_end();
    assert_eq!(fio_line, expected_showcmd(&file), "fio --showcmd {name}");
    let (ok, debug) = fio(&["--debug=parse", "--parse-only", name]);
    assert!(ok, "fio --parse-only {name} failed: {debug}");
    assert_eq!(
        candor_debug(&file),
        fio_debug(&debug),
        "fio --debug=parse {name}"
    );
}

#[test]
fn grammar_reads_as_fio_reads_it() {
    if !have_fio() {
        return;
    }
    agrees_with_fio("grammar.fio");
    let file = parse("grammar.fio");
    let names: Vec<&str> = file.jobs.iter().map(|j| j.section.as_str()).collect();
    assert_eq!(names, ["seq-read", "rand-mixed", "decimal-units", "splits"]);
    let get = |j: &Job, n: &str| j.get(n).unwrap().value.clone();
    assert_eq!(get(&file.jobs[0], "size"), Value::Number(24 << 20));
    assert_eq!(get(&file.jobs[0], "bs"), Value::Numbers([Some(65536); 3]));
    assert_eq!(get(&file.jobs[0], "runtime"), Value::Time(2_000_000));
    assert_eq!(
        get(&file.jobs[1], "bs"),
        Value::Numbers([Some(4096), Some(16384), Some(16384)])
    );
    assert_eq!(get(&file.jobs[2], "bs"), Value::Numbers([Some(8192); 3]));
    assert_eq!(get(&file.jobs[2], "io_size"), Value::Number(512_000));
}

#[test]
fn includes_read_as_fio_reads_them() {
    if !have_fio() {
        return;
    }
    agrees_with_fio("include.fio");
    let file = parse("include.fio");
    assert_eq!(file.files.len(), 4, "the job file and its three includes");
    let fsync = file.jobs[0].get("fsync").unwrap();
    assert!(
        fsync.pos.to_string().ends_with("inc/deeper.fio:1"),
        "{}",
        fsync.pos
    );
}

#[test]
fn forum_file_reads_as_fio_reads_it() {
    if !have_fio() {
        return;
    }
    agrees_with_fio("forum.fio");
}

#[test]
fn option_table_matches_fio() {
    if !have_fio() {
        return;
    }
    // fio's names: its options, then the options of the engines candor runs.
    let names = |args: &[&str]| -> Vec<String> {
        let (_, text) = fio(args);
        text.lines()
            .filter_map(|l| l.split_once(':').map(|(n, _)| n.trim().to_string()))
            .filter(|n| !n.is_empty())
            .collect()
    };
    let mut fio_names = names(&["--cmdhelp=all"]);
    for engine in ["io_uring", "libaio", "pvsync2"] {
        fio_names.extend(names(&[&format!("--enghelp={engine}")]));
    }
    // Every option fio lists, candor knows.
    for n in &fio_names {
        assert!(
            options::find(n).is_some(),
            "candor does not know fio's option {n}"
        );
    }
    // Every option candor knows, fio knows (by name, when --cmdhelp=all
    // leaves it out), except the removed ones, which fio refuses.
    for def in options::all() {
        if fio_names.iter().any(|n| n == def.name) {
            continue;
        }
        let removed = def.kind == options::Kind::Deprecated;
        if removed || def.kind == options::Kind::SoftDeprecated {
            // fio refuses a removed option, and only mentions an old one.
            let dir = tempfile::tempdir().unwrap();
            let file = dir.path().join("d.fio");
            std::fs::write(&file, format!("[x]\n{}=1\n", def.name)).unwrap();
            let (ok, text) = fio(&["--parse-only", file.to_str().unwrap()]);
            assert!(
                ok != removed && text.contains("deprecated"),
                "{}: {text}",
                def.name
            );
            continue;
        }
        let (_, text) = fio(&[&format!("--cmdhelp={}", def.name)]);
        assert!(
            !text.contains("No such command"),
            "fio does not know {}",
            def.name
        );
    }
}
