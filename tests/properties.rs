//! Property tests for the parsers of what users hand candor: Run files,
//! fio output, sizes and durations. Each case goes through the same calls
//! as the fuzz targets (`fuzz/fuzz_targets/pipeline.rs`, run for longer by
//! `bench/fuzz.sh`): a value, or a one-line error naming the file, never a
//! panic, and never an imported figure that is negative or not finite.
//! The cases are bounded (a few hundred each) so that the suite stays fast.

#[path = "../fuzz/fuzz_targets/pipeline.rs"]
mod pipeline;

use proptest::prelude::*;
use serde_json::Value;
use std::path::Path;

fn fixture(dir: &str, name: &str) -> Value {
    let path = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/fixtures")
        .join(dir)
        .join(name);
    let text = std::fs::read_to_string(&path).unwrap();
    // fio prints notes before its JSON: the JSON starts at the first '{' line.
    let start = text.find("\n{").map_or(0, |i| i + 1);
    let start = if text.starts_with('{') { 0 } else { start };
    serde_json::from_str(&text[start..]).unwrap()
}

/// JSON pointers to every leaf (and every member, to be removed) of a value.
fn paths(v: &Value, at: String, out: &mut Vec<String>) {
    match v {
        Value::Object(m) => {
            for (k, x) in m {
                let p = format!("{at}/{}", k.replace('~', "~0").replace('/', "~1"));
                out.push(p.clone());
                paths(x, p, out);
            }
        }
        Value::Array(a) => {
            for (i, x) in a.iter().enumerate() {
                paths(x, format!("{at}/{i}"), out);
            }
        }
        _ => out.push(at),
    }
}

/// Values a hostile or broken file puts where a figure belongs.
fn hostile() -> Vec<Value> {
    serde_json::from_str(
        r#"[null, true, "NaN", "-1", "", -1, -1.5, 0, 1.5, 1e308, -1e308,
            18446744073709551615, 9007199254740993, 4294967296, [], {}, [1, "a", null],
            {"total_ios": -5}, "\u0000\n\u00ff"]"#,
    )
    .unwrap()
}

/// `doc` with the member at `pointer` replaced by `value`, or removed.
fn mutate(doc: &Value, pointer: &str, value: Option<&Value>) -> String {
    let mut doc = doc.clone();
    let (parent, key) = pointer.rsplit_once('/').unwrap();
    let key = key.replace("~1", "/").replace("~0", "~");
    match doc.pointer_mut(parent) {
        Some(Value::Object(m)) => match value {
            Some(v) => {
                m.insert(key, v.clone());
            }
            None => {
                m.remove(&key);
            }
        },
        Some(Value::Array(a)) => {
            let i: usize = key.parse().unwrap();
            match value {
                Some(v) => a[i] = v.clone(),
                None => {
                    a.remove(i);
                }
            }
        }
        _ => {}
    }
    serde_json::to_string_pretty(&doc).unwrap()
}

/// Fixture documents (under tests/fixtures/`dir`) and their mutation points.
fn corpus(dir: &str, names: &[&str]) -> Vec<(Value, Vec<String>)> {
    names
        .iter()
        .map(|n| {
            let d = fixture(dir, n);
            let mut p = Vec::new();
            paths(&d, String::new(), &mut p);
            (d, p)
        })
        .collect()
}

type Corpus = std::sync::OnceLock<Vec<(Value, Vec<String>)>>;

fn runs() -> &'static [(Value, Vec<String>)] {
    static RUNS: Corpus = Corpus::new();
    RUNS.get_or_init(|| {
        corpus(
            "runs",
            &[
                "cpu.json",
                "disk-randrw.json",
                "import-randread-libaio-j2.jsonplus.json",
            ],
        )
    })
}

fn fio_outputs() -> &'static [(Value, Vec<String>)] {
    static FIO: Corpus = Corpus::new();
    FIO.get_or_init(|| {
        corpus(
            "fio",
            &[
                "randread-iouring-q16.json",
                "read-iouring-1m.jsonplus.json",
                "randwrite-psync-fsync.json",
                "randwrite-libaio-j2.json",
            ],
        )
    })
}

/// (document, point, replacement or removal) over a corpus.
fn mutation(corpus: &'static [(Value, Vec<String>)]) -> impl Strategy<Value = String> {
    let values = hostile();
    (
        0..corpus.len(),
        any::<prop::sample::Index>(),
        0..=values.len(),
    )
        .prop_map(move |(doc, point, value)| {
            let (d, points) = &corpus[doc];
            mutate(d, &points[point.index(points.len())], values.get(value))
        })
}

/// A host name with Ansible ranges, well formed or not (`web[01:20]`,
/// `db-[a:f]`, `x[0:99:7]`, `[`, `a]`).
const HOST_NAME: &str = "[a-c]{1,3}(\\[[0-9]{1,2}:[0-9]{1,3}(:[0-9])?\\]|\\[[a-f]:[a-f]\\]|\\[|\\])?[a-z0-9.-]{0,3}(\\[[0-9]:[0-9]{1,2}\\])?";

/// A line of an INI inventory: a section, a host with ranges and vars, a
/// variable, a comment, or noise.
const INVENTORY_LINE: &str = "\\[[a-c]{1,3}(:(vars|children|x))?\\]|[a-c]{1,3}(\\[[0-9]{1,2}:[0-9]{1,3}(:[0-9])?\\]|\\[[a-f]:[a-f]\\])?[a-z0-9.-]{0,3}(:[0-9]{1,5})?( ansible_(host|port|user)=[a-z0-9]{0,4})?|[a-z_]{1,8}=[0-9a-z]{0,3}|# .{0,6}|.{0,10}";

proptest! {
    // 256 cases each in the suite; PROPTEST_CASES=N for a longer hunt.
    #![proptest_config(ProptestConfig {
        cases: std::env::var("PROPTEST_CASES").ok().and_then(|n| n.parse().ok()).unwrap_or(256),
        ..ProptestConfig::default()
    })]

    #[test]
    fn any_text_as_a_run_file(text in "(?s).{0,200}|\\{\"schema\": *\"candor\\.run/[0-9]{1,3}[^\"]{0,8}\"[^}]{0,100}\\}?") {
        pipeline::run_file(text.as_bytes());
    }

    #[test]
    fn a_run_with_any_field_broken_reads_or_fails_in_one_line(text in mutation(runs())) {
        pipeline::run_file(text.as_bytes());
    }

    #[test]
    fn fio_output_with_any_field_broken_imports_soundly_or_fails_in_one_line(text in mutation(fio_outputs())) {
        pipeline::fio_file(text.as_bytes());
    }

    #[test]
    fn any_text_as_fio_output(text in "(?s).{0,200}|\\{\"fio version\": \"fio-3\", \"jobs\": \\[[^\\]]{0,120}\\]\\}") {
        pipeline::fio_file(text.as_bytes());
    }

    #[test]
    fn any_text_as_a_size_or_duration(text in "[ 0-9.+eE-]{0,14}[a-zA-Zµ ]{0,5}|(?s).{0,20}") {
        pipeline::units(text.as_bytes());
    }

    #[test]
    fn any_ini_inventory_with_ranges_reads_or_fails_in_one_line(
        lines in proptest::collection::vec(INVENTORY_LINE, 0..14)
    ) {
        pipeline::inventory(lines.join("\n").as_bytes(), false);
    }

    #[test]
    fn any_yaml_inventory_with_ranges_reads_or_fails_in_one_line(
        groups in proptest::collection::vec(("[a-c:]{1,3}", proptest::collection::vec(HOST_NAME, 0..4)), 0..5),
        noise in "(?s).{0,12}",
    ) {
        let mut text = String::from("all:\n  children:\n");
        for (group, hosts) in &groups {
            text.push_str(&format!("    {group}:\n      hosts:\n"));
            for h in hosts {
                text.push_str(&format!("        {h}:\n"));
            }
        }
        text.push_str(&noise);
        pipeline::inventory(text.as_bytes(), true);
    }

    #[test]
    fn sizes_scale_by_their_suffix(n in 0u64..(1 << 40), suffix in 0usize..5) {
        let (unit, shift) = [("", 0), ("k", 10), ("M", 20), ("g", 30), ("TiB", 40)][suffix];
        let expected = n.checked_mul(1 << shift);
        let parsed = candor::units::parse_size(&format!("{n}{unit}"));
        match expected {
            Some(bytes) => prop_assert_eq!(parsed, Ok(bytes)),
            None => prop_assert!(matches!(parsed, Err(candor::units::ParseError::Overflow(_)))),
        }
    }

    #[test]
    fn durations_keep_their_milliseconds(ms in 0u64..1_000_000_000_000) {
        let parsed = candor::units::parse_duration(&format!("{ms}ms"));
        prop_assert_eq!(parsed.map(|d| d.as_millis() as u64), Ok(ms));
    }
}

/// A Run with a byte-order mark is the same Run (every reader strips it).
#[test]
fn a_byte_order_mark_changes_nothing() {
    for (doc, _) in runs() {
        let text = serde_json::to_string(doc).unwrap();
        let plain = candor::result::parse_run(&text, Path::new("a.json")).unwrap();
        let marked =
            candor::result::parse_run(&format!("\u{feff}{text}"), Path::new("a.json")).unwrap();
        assert_eq!(
            serde_json::to_value(&plain).unwrap(),
            serde_json::to_value(&marked).unwrap()
        );
    }
}
