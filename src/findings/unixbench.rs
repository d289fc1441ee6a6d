//! What UnixBench's index does not prove, said on each Run of `candor
//! unixbench`: `unixbench-page-cache` (File Copy copies a file that the
//! warm-up put in the page cache: names the filesystem), `unixbench-shell`
//! (Shell Scripts measure the host's /bin/sh and tools: names them),
//! `unixbench-compiler` (Dhrystone and Whetstone measure the compiler: names
//! candor's, and says how far it was from a gcc-built UnixBench on candor's
//! bench machine), `unixbench-execl` (Execl Throughput measures the binary it
//! execs: names candor's, its size, linking and page faults per exec) and
//! `unixbench-not-run` (not-checked, one per index test that did not run).

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
    // Recorded since candor sets UnixBench's LANG; older Runs lack it.
    let locale = p.get("locale").and_then(|v| v.as_str());
    let in_locale = locale.map(|l| format!(" in {l}")).unwrap_or_default();
    let mut evidence = json!({ "sh": sh, "tools": tools });
    if let Some(l) = locale {
        evidence["locale"] = l.into();
    }
    vec![checked(
        "unixbench-shell",
        None,
        format!("Shell Scripts ran through /bin/sh = {sh} with {tools}{in_locale}: another shell, coreutils or locale gives another figure on the same hardware"),
        evidence,
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

pub fn execl(run: &Run) -> Vec<Finding> {
    // An imported report's execl is UnixBench's own small program: nothing to add.
    if run.source == "unixbench-import" {
        return Vec::new();
    }
    let Some(m) = unixbench(run).find(|m| m.spec.test == "execl") else {
        return Vec::new();
    };
    let p = &m.spec.params;
    let binary = p.get("binary").and_then(|v| v.as_str());
    let mapped = p.get("mapped_bytes").and_then(|v| v.as_u64());
    let faults = p.get("faults_per_exec").and_then(|v| v.as_f64());
    let libraries: Option<Vec<String>> = p
        .get("shared_libraries")
        .and_then(|v| serde_json::from_value(v.clone()).ok());
    let (Some(binary), Some(mapped), Some(faults), Some(libraries)) =
        (binary, mapped, faults, libraries)
    else {
        return vec![not_checked(
            "unixbench-execl",
            "Execl Throughput ran, but which binary it exec'd and what an exec cost are not recorded".into(),
            "spec.params.binary, mapped_bytes, shared_libraries, faults_per_exec",
        )];
    };
    let linking = if libraries.is_empty() {
        "static".to_string()
    } else {
        format!("dynamically linked with {}", libraries.join(", "))
    };
    vec![checked(
        "unixbench-execl",
        None,
        format!(
            "Execl Throughput exec'd candor's own binary {binary} ({} mapped, {linking}) at {faults:.0} page faults per exec, not UnixBench's 24 KiB C program: the figure measures how that binary is built and loaded as much as the kernel's exec ({})",
            crate::units::fmt_bytes(mapped),
            crate::compute::unixbench::execl::EXEC_COST
        ),
        json!({ "binary": binary, "mapped_bytes": mapped, "shared_libraries": libraries, "faults_per_exec": faults, "bench": crate::compute::unixbench::execl::EXEC_COST }),
    )]
}

pub fn not_run(run: &Run) -> Vec<Finding> {
    let list = crate::compute::unixbench::not_run_of(run);
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
        run.measurements[0] = ub(
            "shell1",
            json!({"sh": "/usr/bin/dash", "tools": "sort (GNU coreutils) 9.1", "locale": "LANG=en_US.utf8"}),
        );
        assert!(
            shell(&run)[0].verdict.contains("9.1 in LANG=en_US.utf8:"),
            "{}",
            shell(&run)[0].verdict
        );
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
    fn execl_names_the_binary_and_its_cost() {
        let mut run = Run::of_this_process();
        run.measurements.push(ub("syscall", json!({})));
        assert!(execl(&run).is_empty(), "silent without Execl");
        run.measurements.push(ub("execl", json!({})));
        assert_eq!(
            execl(&run)[0].status,
            crate::result::FindingStatus::NotChecked
        );
        run.measurements[1] = ub(
            "execl",
            json!({"binary": "/usr/local/bin/candor", "mapped_bytes": 11_000_000u64,
                   "shared_libraries": ["libc.so.6", "ld-linux-x86-64.so.2"], "faults_per_exec": 144.7}),
        );
        let f = &execl(&run)[0];
        assert_eq!(f.status, crate::result::FindingStatus::Checked);
        assert!(
            f.verdict.contains("/usr/local/bin/candor")
                && f.verdict.contains("dynamically linked with libc.so.6")
                && f.verdict.contains("145 page faults per exec"),
            "{}",
            f.verdict
        );
        run.measurements[1] = ub(
            "execl",
            json!({"binary": "/candor", "mapped_bytes": 11_000_000u64,
                   "shared_libraries": [], "faults_per_exec": 52.0}),
        );
        assert!(
            execl(&run)[0].verdict.contains("(10.5 MiB mapped, static)"),
            "{}",
            execl(&run)[0].verdict
        );
        run.source = "unixbench-import".into();
        assert!(
            execl(&run).is_empty(),
            "an imported execl is UnixBench's own"
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
        // A battery's plan keeps them beside its own fields.
        run.plan = Some(
            json!({"preset": "full", "unixbench_not_run": [{"test": "shell8", "cause": "y"}]}),
        );
        assert_eq!(not_run(&run)[0].subject.as_deref(), Some("shell8"));
        assert_eq!(f[0].status, crate::result::FindingStatus::NotChecked);
    }
}
