//! Golden renders: every fixture Run (tests/fixtures/runs, real Runs made on
//! this project's VM by candor run, sweep, disk, the compute commands and
//! import) rendered in every format, analyzed, and compared, byte for byte
//! against tests/golden/. A change of wording or layout shows here as a
//! diff; when it is deliberate, `CANDOR_BLESS=1 cargo test --test integration golden::`
//! rewrites the files and the diff is reviewed in the commit.

use assert_cmd::Command;
use candor::report::Format;
use clap::ValueEnum;
use std::path::{Path, PathBuf};

fn fixtures() -> Vec<PathBuf> {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/runs");
    let mut files: Vec<PathBuf> = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|e| e == "json"))
        .collect();
    files.sort();
    assert!(files.len() >= 10, "fixture Runs missing");
    files
}

/// Every format a Run can be written as, by its `--format` name: a new
/// format is covered here without an edit.
fn formats() -> Vec<String> {
    Format::value_variants().iter().map(|f| f.name()).collect()
}

fn golden_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/golden")
}

fn candor(args: &[&str]) -> String {
    let out = Command::cargo_bin("candor")
        .unwrap()
        .env("NO_COLOR", "1")
        .args(args)
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "candor {args:?}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8(out.stdout).unwrap()
}

/// Compares `actual` with the golden file `name`, or rewrites it when blessing.
/// Returns a description of the difference, if any.
fn check(name: &str, actual: &str) -> Option<String> {
    let path = golden_dir().join(name);
    if std::env::var_os("CANDOR_BLESS").is_some() {
        std::fs::create_dir_all(golden_dir()).unwrap();
        std::fs::write(&path, actual).unwrap();
        return None;
    }
    let expected = std::fs::read_to_string(&path)
        .unwrap_or_else(|e| panic!("{}: {e} (CANDOR_BLESS=1 records it)", path.display()));
    if expected == actual {
        return None;
    }
    let line = expected
        .lines()
        .zip(actual.lines())
        .position(|(a, b)| a != b)
        .unwrap_or_else(|| expected.lines().count().min(actual.lines().count()));
    Some(format!(
        "{name}: differs from line {}:\n  golden: {:?}\n  now:    {:?}",
        line + 1,
        expected.lines().nth(line).unwrap_or("<end>"),
        actual.lines().nth(line).unwrap_or("<end>")
    ))
}

fn stem(p: &Path) -> String {
    p.file_stem().unwrap().to_string_lossy().to_string()
}

#[test]
fn every_fixture_in_every_format() {
    let mut diffs = Vec::new();
    for f in fixtures() {
        let file = f.to_str().unwrap();
        let name = stem(&f);
        for format in formats() {
            let out = candor(&["report", file, "--format", &format]);
            diffs.extend(check(&format!("report-{name}.{format}"), &out));
        }
        let out = candor(&["report", file, "--format", "text", "--unit", "MiB"]);
        diffs.extend(check(&format!("report-{name}.mib.text"), &out));
        let out = candor(&["report", file, "--format", "text", "--verbose"]);
        diffs.extend(check(&format!("report-{name}.verbose.text"), &out));
        for format in ["text", "json"] {
            let out = candor(&["analyze", file, "--format", format]);
            // The file path in the output is the fixture's absolute path: make it relative.
            let out = out.replace(env!("CARGO_MANIFEST_DIR"), ".");
            diffs.extend(check(&format!("analyze-{name}.{format}"), &out));
        }
    }
    assert!(diffs.is_empty(), "{}", diffs.join("\n"));
}

#[test]
fn comparisons_in_every_format() {
    let files: Vec<String> = fixtures()
        .iter()
        .filter(|p| {
            let n = stem(p);
            n == "battery" || n.starts_with("disk-") || n == "sweep" || n.starts_with("import-")
        })
        .map(|p| p.to_str().unwrap().to_string())
        .collect();
    let mut diffs = Vec::new();
    for format in formats() {
        let mut args = vec!["compare", "--format", &format];
        args.extend(files.iter().map(String::as_str));
        diffs.extend(check(&format!("compare.{format}"), &candor(&args)));
    }
    let mut args = vec!["analyze", "--format", "text"];
    args.extend(files.iter().map(String::as_str));
    let out = candor(&args).replace(env!("CARGO_MANIFEST_DIR"), ".");
    diffs.extend(check("analyze-many.text", &out));
    assert!(diffs.is_empty(), "{}", diffs.join("\n"));
}

/// UnixBench's index side by side: candor's `unixbench` Run (all 12 tests,
/// 1 and 2 copies) and an imported UnixBench report (two tests: a partial
/// index), in every format.
#[test]
fn unixbench_comparison_in_every_format() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/runs");
    let files = [
        dir.join("unixbench.json").to_str().unwrap().to_string(),
        dir.join("unixbench-import.json")
            .to_str()
            .unwrap()
            .to_string(),
    ];
    let mut diffs = Vec::new();
    for format in formats() {
        let mut args = vec!["compare", "--format", &format];
        args.extend(files.iter().map(String::as_str));
        diffs.extend(check(
            &format!("compare-unixbench.{format}"),
            &candor(&args),
        ));
    }
    assert!(diffs.is_empty(), "{}", diffs.join("\n"));
}

/// What `candor sweep` and the compute commands print at the end of a
/// measurement, rendered from the fixture Runs they wrote.
#[test]
fn command_summaries() {
    let mut diffs = Vec::new();
    for f in fixtures() {
        let name = stem(&f);
        let run = candor::result::read_run(&f).unwrap();
        let text = match name.as_str() {
            "sweep" => Some(candor::report::sweep_text(&run)),
            "cpu" | "memory" | "crypto" | "compress" | "os" => {
                Some(candor::report::compute_text(&run))
            }
            "unixbench" | "unixbench-import" => Some(candor::report::unixbench_text(&run)),
            _ => None,
        };
        if let Some(text) = text {
            diffs.extend(check(&format!("summary-{name}.text"), &text));
        }
    }
    assert!(diffs.is_empty(), "{}", diffs.join("\n"));
}
