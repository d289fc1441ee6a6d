//! What UnixBench's index does not prove, said on each Run of `candor
//! unixbench`: `unixbench-page-cache` (File Copy copies a file that the
//! warm-up put in the page cache: names the filesystem), `unixbench-shell`
//! (Shell Scripts measure the host's /bin/sh and tools: names them),
//! `unixbench-compiler` (Dhrystone and Whetstone measure the compiler: names
//! candor's, and says how far it was from a gcc-built UnixBench on candor's
//! bench machine) and `unixbench-not-run` (not-checked, one per index test
//! that did not run).

use super::{checked, not_checked};
use crate::compute::unixbench::BENCH_GAP;
use crate::result::{Finding, Run};
use serde_json::json;

fn unixbench(run: &Run) -> impl Iterator<Item = &crate::result::ComputeMeasurement> {
    run.measurements
        .iter()
        .filter(|m| m.kind() == "unixbench")
        .filter_map(|m| m.as_compute())
}

pub fn page_cache(run: &Run) -> Vec<Finding> {
    // Each test once, whatever the copy counts it ran with.
    let mut tests: Vec<String> = Vec::new();
    for m in unixbench(run).filter(|m| m.spec.test.starts_with("fs")) {
        if !tests.contains(&m.spec.test) {
            tests.push(m.spec.test.clone());
        }
    }
    if tests.is_empty() {
        return Vec::new();
    }
    let storage = run.host.storage.as_ref();
    let Some(fs) = storage.and_then(|s| s.fs_type.clone()) else {
        return vec![not_checked(
            "unixbench-page-cache",
            "File Copy ran, but the work directory's filesystem is not recorded".into(),
            "host.storage.fs_type",
        )];
    };
    let dir = storage.map(|s| s.dir.clone()).unwrap_or_default();
    vec![checked(
        "unixbench-page-cache",
        None,
        format!("File Copy ({}) copied files on {fs} at {dir} that its warm-up had just written and read: the figures are mostly the page cache and {fs}'s write path, not the disk", tests.join(", ")),
        json!({ "tests": tests, "fs_type": fs, "dir": dir }),
    )]
}

pub fn shell(run: &Run) -> Vec<Finding> {
    let Some(m) = unixbench(run).find(|m| m.spec.test.starts_with("shell")) else {
        return Vec::new();
    };
    let p = &m.spec.params;
    let sh = p.get("sh").and_then(|v| v.as_str());
    let tools = p.get("tools").and_then(|v| v.as_str());
    let (Some(sh), Some(tools)) = (sh, tools) else {
        return vec![not_checked(
            "unixbench-shell",
            "Shell Scripts ran, but which /bin/sh and tools ran them is not recorded".into(),
            "spec.params.sh and spec.params.tools",
        )];
    };
    vec![checked(
        "unixbench-shell",
        None,
        format!("Shell Scripts ran through /bin/sh = {sh} with {tools}: another shell or coreutils gives another figure on the same hardware"),
        json!({ "sh": sh, "tools": tools }),
    )]
}

pub fn compiler(run: &Run) -> Vec<Finding> {
    let tests: Vec<&crate::result::ComputeMeasurement> = unixbench(run)
        .filter(|m| crate::compute::unixbench::is_compiler_bound(&m.spec.test))
        .collect();
    let Some(first) = tests.first() else {
        return Vec::new();
    };
    let mut names: Vec<String> = Vec::new();
    for m in &tests {
        if !names.contains(&m.spec.test) {
            names.push(m.spec.test.clone());
        }
    }
    if run.source == "unixbench-import" {
        return vec![checked(
            "unixbench-compiler",
            None,
            format!("{} come from UnixBench's own programs, built by whichever C compiler and flags the host that ran it had (its report does not say): they measure that compiler as much as the CPU", names.join(", ")),
            json!({ "tests": names, "compiler": null }),
        )];
    }
    let Some(compiler) = first.spec.params.get("compiler").and_then(|c| c.as_str()) else {
        return vec![not_checked(
            "unixbench-compiler",
            format!(
                "{} ran, but which compiler built them is not recorded",
                names.join(", ")
            ),
            "spec.params.compiler",
        )];
    };
    vec![checked(
        "unixbench-compiler",
        None,
        format!("{} were compiled by {compiler}, not by this host's gcc: they measure that compiler's code as much as the CPU and are not the figures of a UnixBench built here ({})", names.join(", "), BENCH_GAP),
        json!({ "tests": names, "compiler": compiler, "bench": BENCH_GAP }),
    )]
}

pub fn not_run(run: &Run) -> Vec<Finding> {
    let list = run
        .plan
        .as_ref()
        .filter(|p| p.get("group").and_then(|g| g.as_str()) == Some("unixbench"))
        .and_then(|p| p.get("not_run"))
        .and_then(|n| n.as_array());
    let Some(list) = list else { return Vec::new() };
    list.iter()
        .map(|n| {
            let test = n.get("test").and_then(|t| t.as_str()).unwrap_or("?");
            let cause = n.get("cause").and_then(|t| t.as_str()).unwrap_or("?");
            let mut f = not_checked(
                "unixbench-not-run",
                format!("{test} did not run ({cause}): the index leaves it out and is not a full UnixBench index"),
                test,
            );
            f.subject = Some(test.to_string());
            f
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::result::{ComputeMeasurement, ComputeSpec, Measurement, StorageFacts};

    fn ub(test: &str, params: serde_json::Value) -> Measurement {
        Measurement::Unixbench(ComputeMeasurement {
            pass: None,
            started_at: None,
            spec: ComputeSpec {
                test: test.into(),
                threads: 1,
                runtime_ns: 0,
                params: serde_json::from_value(params).unwrap(),
            },
            events_per_sec: None,
            bytes_per_sec: None,
            ops_per_sec: Some(1.0),
            per_thread: vec![],
            measured_ns: 0,
            cpu: Default::default(),
            notes: vec![],
        })
    }

    #[test]
    fn page_cache_names_the_filesystem() {
        let mut run = Run::of_this_process();
        assert!(page_cache(&run).is_empty(), "silent without File Copy");
        run.measurements.push(ub("fstime", json!({})));
        run.measurements.push(ub("fsdisk", json!({})));
        run.measurements.push(ub("fstime", json!({})));
        assert_eq!(
            page_cache(&run)[0].status,
            crate::result::FindingStatus::NotChecked
        );
        run.host.storage = Some(StorageFacts {
            dir: "/var/tmp".into(),
            fs_type: Some("ext4".into()),
            ..Default::default()
        });
        let f = &page_cache(&run)[0];
        assert_eq!(f.status, crate::result::FindingStatus::Checked);
        assert!(f.verdict.contains("ext4"), "{}", f.verdict);
        assert!(
            f.verdict.starts_with("File Copy (fstime, fsdisk) "),
            "each test once: {}",
            f.verdict
        );
    }

    #[test]
    fn shell_names_sh_and_the_tools() {
        let mut run = Run::of_this_process();
        assert!(shell(&run).is_empty());
        run.measurements.push(ub("shell1", json!({})));
        assert_eq!(
            shell(&run)[0].status,
            crate::result::FindingStatus::NotChecked
        );
        run.measurements[0] = ub(
            "shell1",
            json!({"sh": "/usr/bin/dash", "tools": "sort (GNU coreutils) 9.1"}),
        );
        assert!(shell(&run)[0].verdict.contains("/usr/bin/dash"));
    }

    #[test]
    fn compiler_names_rustc_and_the_gap() {
        let mut run = Run::of_this_process();
        run.measurements.push(ub("syscall", json!({})));
        assert!(
            compiler(&run).is_empty(),
            "silent without Dhrystone or Whetstone"
        );
        run.measurements.push(ub("dhry2reg", json!({})));
        run.measurements.push(ub("dhry2reg", json!({})));
        assert_eq!(
            compiler(&run)[0].status,
            crate::result::FindingStatus::NotChecked
        );
        run.measurements[1] = ub("dhry2reg", json!({"compiler": "rustc 1.95.0, LLVM 22.1.2"}));
        let f = &compiler(&run)[0];
        assert_eq!(f.status, crate::result::FindingStatus::Checked);
        assert!(
            f.verdict
                .starts_with("dhry2reg were compiled by rustc 1.95.0")
                && f.verdict.contains(BENCH_GAP),
            "{}",
            f.verdict
        );
        run.source = "unixbench-import".into();
        let f = &compiler(&run)[0];
        assert!(
            f.verdict.contains("UnixBench's own programs"),
            "{}",
            f.verdict
        );
    }

    #[test]
    fn each_test_not_run_is_not_checked() {
        let mut run = Run::of_this_process();
        assert!(not_run(&run).is_empty());
        run.plan =
            Some(json!({"group": "unixbench", "not_run": [{"test": "dhry2reg", "cause": "x"}]}));
        let f = not_run(&run);
        assert_eq!(f.len(), 1);
        assert_eq!(f[0].subject.as_deref(), Some("dhry2reg"));
        assert_eq!(f[0].status, crate::result::FindingStatus::NotChecked);
    }
}
