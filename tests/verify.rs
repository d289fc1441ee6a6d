//! fio's `verify` under candor (issue 20): a job file whose jobs write
//! with verify=crc32c, md5, sha256 and meta runs on test files, reads back
//! every block it wrote and finds each as written, and fio, running the
//! same job file, verifies it clean too. What candor cannot check as fio
//! does is refused by name, exit 2, before any file exists. Planted
//! corruption (a device whose backing file changes) is the truth-table row
//! in tests/truth.rs.
//!
//! Needs root (O_DIRECT on /var/tmp is enough) and fio (in CI its absence fails).

use crate::common;

use common::plant::have_fio;

use candor::result::{read_run, FindingStatus};
use common::plant::*;
use std::path::Path;
use std::process::Command;

const JOBS: [(&str, &str, u64); 4] = [
    ("seq-crc32c", "crc32c", 64 << 10),
    ("rand-md5", "md5", 4 << 10),
    ("rand-sha256", "sha256", 16 << 10),
    ("seq-meta", "meta", 8 << 10),
];

fn job_file(dir: &Path) -> std::path::PathBuf {
    let text = format!(
        "[global]\ndirectory={}\nsize=16m\ndirect=1\nverify=crc32c\n\n\
         [seq-crc32c]\nrw=write\nbs=64k\nioengine=psync\n\n\
         [rand-md5]\nstonewall\nrw=randwrite\nbs=4k\nioengine=libaio\niodepth=8\nverify=md5\n\n\
         [rand-sha256]\nstonewall\nrw=randwrite\nbs=16k\nioengine=io_uring\niodepth=4\nverify=sha256\nverify_fatal=1\n\n\
         [seq-meta]\nstonewall\nrw=write\nbs=8k\nverify=meta\n",
        dir.display()
    );
    let p = dir.join("verify.fio");
    std::fs::write(&p, text).unwrap();
    p
}

fn candor(args: &[&str]) -> std::process::Output {
    candor_cmd(&args.iter().map(|s| s.to_string()).collect::<Vec<_>>())
        .output()
        .unwrap()
}

#[test]
fn verifying_jobs_on_files_read_back_clean_as_under_fio() {
    let _disk = one_at_a_time();
    let dir = test_dir("verify-files");
    let jf = job_file(dir.path());
    let jf = jf.to_str().unwrap();

    let plan = candor(&["disk", "--job", jf, "--parse-only"]);
    let plan = String::from_utf8_lossy(&plan.stdout).into_owned();
    assert!(
        plan.contains("verify crc32c: every block written carries a checked header; read back after the job's writes"),
        "{plan}"
    );
    assert!(
        plan.contains("verify sha256")
            && plan.contains("stops at the first bad block (verify_fatal)"),
        "{plan}"
    );
    assert!(
        plan.contains("--verify=md5"),
        "the fio command carries it: {plan}"
    );

    let out = dir.path().join("run.json");
    let o = candor(&["disk", "--job", jf, "--output", out.to_str().unwrap()]);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let run = read_run(&out).unwrap();
    for (section, alg, bs) in JOBS {
        let d = run
            .disk()
            .find(|d| d.job.as_ref().is_some_and(|j| j.section == section))
            .unwrap();
        let v = d
            .verify
            .as_ref()
            .unwrap_or_else(|| panic!("{section}: no verify record"));
        assert_eq!(v.algorithm, alg);
        assert_eq!(
            (v.blocks_checked, v.blocks_bad),
            ((16 << 20) / bs, 0),
            "{section}: {v:?}"
        );
        assert_eq!(v.bytes_checked, 16 << 20);
        assert!(
            d.fio_command.contains(&format!("--verify={alg}")),
            "{}",
            d.fio_command
        );
    }
    let verified: Vec<&str> = run
        .findings
        .iter()
        .filter(|f| f.id == "data-verified" && f.status == FindingStatus::Checked)
        .filter_map(|f| f.subject.as_deref())
        .collect();
    assert_eq!(verified, JOBS.map(|j| j.0), "{:?}", run.findings);
    assert!(!run.findings.iter().any(|f| f.id == "data-corrupted"));
    for id in ["data-corrupted", "data-verified"] {
        let e = candor(&["explain", id]);
        let text = String::from_utf8_lossy(&e.stdout);
        assert!(
            e.status.success() && text.contains("header"),
            "{id}: {text}"
        );
    }
    assert!(
        candor_files(dir.path()).is_empty(),
        "candor's files are removed"
    );

    if !have_fio() {
        eprintln!("SKIPPED: fio is absent: the fio half of this test did not run");
        return;
    }
    let fio = Command::new("fio")
        .args(["--output-format=json", jf])
        .current_dir(dir.path())
        .output()
        .unwrap();
    let text = String::from_utf8_lossy(&fio.stdout);
    assert!(
        fio.status.success(),
        "fio: {text}{}",
        String::from_utf8_lossy(&fio.stderr)
    );
    let json: serde_json::Value = serde_json::from_str(&text[text.find('{').unwrap()..]).unwrap();
    for (job, (section, _, _)) in json["jobs"].as_array().unwrap().iter().zip(JOBS) {
        assert_eq!(job["jobname"], section);
        assert_eq!(
            job["error"], 0,
            "fio verified {section} with an error: {job}"
        );
        // fio's verify phase reads back what the job wrote.
        assert_eq!(
            job["read"]["io_bytes"],
            16 << 20,
            "{section}: {}",
            job["read"]
        );
    }
}

#[test]
fn what_candor_cannot_verify_as_fio_does_is_refused_by_name() {
    let dir = test_dir("verify-refused");
    let refused = |body: &str, why: &str| {
        let p = dir.path().join("refused.fio");
        std::fs::write(
            &p,
            format!("[j]\ndirectory={}\nsize=4m\n{body}", dir.path().display()),
        )
        .unwrap();
        let o = candor(&["disk", "--job", p.to_str().unwrap()]);
        let err = String::from_utf8_lossy(&o.stderr).into_owned();
        assert_eq!(o.status.code(), Some(2), "{body}: {err}");
        assert_eq!(err.trim().lines().count(), 1, "{err}");
        assert!(err.contains(why), "{body}: expected {why:?} in {err}");
        assert!(candor_files(dir.path()).is_empty());
    };
    refused(
        "rw=read\nverify=crc32c\n",
        "verify=crc32c: not supported: a job that only reads",
    );
    refused(
        "rw=randrw\nverify=crc32c\n",
        "candor verifies jobs that only write",
    );
    refused(
        "rw=write\nverify=crc64\n",
        "verify=crc64: not supported: candor's verify checksums are crc32c, md5, sha256 and meta",
    );
    refused(
        "rw=write\nverify=adler\n",
        "verify=adler: not a verify method fio knows",
    );
    refused(
        "rw=write\nverify=md5\nverify_backlog=16\n",
        "verify_backlog=16: not supported",
    );
    refused(
        "rw=write\nverify=md5\nverify_pattern=0xff\n",
        "verify_pattern=0xff: not supported",
    );
    refused(
        "rw=write\nverify=md5\nverify_only=1\n",
        "verify_only=1: on a file",
    );
    refused(
        "rw=write\nbs=32\nverify=md5\n",
        "smaller than candor's 64-byte verify header",
    );
    refused(
        "rw=write\nverify=sha256\nioengine=null\n",
        "ioengine=null stores nothing to read back",
    );
    refused(
        "rw=randwrite\nverify=crc32c\nnumjobs=2\nfilename=shared\n",
        "verify=crc32c: not supported: its 2 clones write the same bytes of one file",
    );
}
