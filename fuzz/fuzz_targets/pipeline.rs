//! What candor does with an input a user hands it, one call per kind of
//! input, shared by the fuzz targets (cargo-fuzz, `bench/fuzz.sh`) and the
//! property tests (`tests/properties.rs`). Whatever the bytes, each call
//! must end in a value or in a one-line error that names the file: never a
//! panic, never an imported figure that is negative or not finite.

#![allow(dead_code)]

use candor::report::Format;
use candor::result::{DirectionStats, Run};
use std::path::Path;
use std::time::Duration;

/// The name the inputs are read under (errors must name it).
pub const FILE: &str = "input.json";

const FORMATS: [Format; 5] = [
    Format::Text,
    Format::Md,
    Format::Csv,
    Format::Json,
    Format::Html,
];

/// Any bytes as a Run file: read, and if it is a Run, everything that
/// reads Runs (`report`, `analyze`, `compare`).
pub fn run_file(data: &[u8]) {
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    match candor::result::parse_run(text, Path::new(FILE)) {
        Err(e) => one_line(&e.to_string()),
        Ok(run) => read_every_way(&run),
    }
}

/// Any bytes as fio output: imported, and if it imports, every figure is
/// sound and the Run reads every way.
pub fn fio_file(data: &[u8]) {
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    let parsed = candor::fio::parse_fio(text, Path::new(FILE));
    match parsed.and_then(|out| candor::fio::import(&[out], None)) {
        Err(e) => one_line(&e.to_string()),
        Ok(run) => {
            sound(&run);
            read_every_way(&run);
        }
    }
}

/// Any bytes as a size or duration flag: a value or an error, and a value
/// survives being written back the way candor writes it.
pub fn units(data: &[u8]) {
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    match candor::units::parse_size(text) {
        Ok(n) => {
            assert_eq!(candor::units::parse_size(&n.to_string()), Ok(n), "{text:?}");
            assert_eq!(
                candor::units::parse_size(&candor::units::fio_size(n)),
                Ok(n),
                "{text:?}"
            );
        }
        Err(e) => one_line_plain(&e.to_string()),
    }
    match candor::units::parse_duration(text) {
        Ok(d) => {
            assert!(d <= Duration::from_secs(1_000_000_000), "{text:?}: {d:?}");
            let ns = d.as_nanos() as u64;
            let again = candor::units::parse_duration(&candor::units::fio_duration(ns))
                .unwrap_or_else(|e| panic!("{text:?}: {e}"));
            // fio's syntax keeps whole microseconds.
            let diff = again.abs_diff(d);
            assert!(
                diff <= Duration::from_micros(1) + d / 1_000_000_000,
                "{text:?}: {d:?} became {again:?}"
            );
        }
        Err(e) => one_line_plain(&e.to_string()),
    }
}

/// Any bytes as an Ansible inventory (INI, or YAML when `yaml`): read,
/// then every host selected, by `all` and by a pattern with a range and a
/// regex, and reached (its ssh target): a value or a one-line error, never
/// a panic, and never more hosts than the inventory's bound.
pub fn inventory(data: &[u8], yaml: bool) {
    use std::sync::atomic::{AtomicUsize, Ordering};
    static N: AtomicUsize = AtomicUsize::new(0);
    let dir = std::env::temp_dir().join(format!(
        "candor-fuzz-inventory-{}-{}",
        std::process::id(),
        N.fetch_add(1, Ordering::Relaxed)
    ));
    std::fs::create_dir(&dir).unwrap();
    let path = dir.join(if yaml { "hosts.yml" } else { "hosts" });
    std::fs::write(&path, data).unwrap();
    let read = candor::fleet::inventory::Inventory::load(&path);
    let outcome = std::panic::catch_unwind(|| match read {
        Err(e) => one_line_plain(&e.to_string()),
        Ok(inv) => {
            assert!(inv.host_names().len() <= candor::fleet::inventory::MAX_INVENTORY_HOSTS);
            for pattern in ["all", "web[0:2]:&all", "~^[a-c]", "all:!web*"] {
                match candor::fleet::select::select(Some(&inv), &[pattern.to_string()]) {
                    Err(e) => one_line_plain(&e.to_string()),
                    Ok(targets) => assert!(targets.len() <= inv.host_names().len()),
                }
            }
        }
    });
    let _ = std::fs::remove_dir_all(&dir);
    if let Err(panic) = outcome {
        std::panic::resume_unwind(panic);
    }
}

/// What `report`, `analyze` and `compare` do with a Run.
pub fn read_every_way(run: &Run) {
    let _ = candor::findings::analyze(run);
    for format in FORMATS {
        let _ = candor::report::render(run, format);
    }
    let _ = candor::report::sweep_text(run);
    let _ = candor::report::compute_text(run);
    let runs = [run.clone(), run.clone()];
    let cross = candor::findings::analyze_many(&runs);
    for format in FORMATS {
        let _ = candor::report::render_compare(&runs, &cross, format, None);
    }
}

/// Every figure of an imported Run is finite and not negative.
fn sound(run: &Run) {
    let check = |what: &str, x: f64| assert!(x.is_finite() && x >= 0.0, "{what} = {x}");
    for d in run.disk() {
        let threads = d.threads.iter().flat_map(|t| [&t.read, &t.write]);
        let dirs: Vec<&DirectionStats> = [&d.read, &d.write, &d.sync]
            .into_iter()
            .chain(threads)
            .flatten()
            .collect();
        for s in dirs {
            check("iops", s.iops);
            check("bytes_per_sec", s.bytes_per_sec);
            check("latency mean", s.lat_ns.mean);
            check("latency stdev", s.lat_ns.stdev);
        }
        check("usr_cpu", d.cpu.usr_pct);
        check("sys_cpu", d.cpu.sys_pct);
    }
}

/// An error message: one line, naming the file first.
fn one_line(message: &str) {
    assert!(!message.contains('\n'), "{message}");
    assert!(message.starts_with(FILE), "{message}");
}

/// An error message that has no file to name: one line.
fn one_line_plain(message: &str) {
    assert!(!message.contains('\n'), "{message}");
}
