//! A job file's sizes that the files decide (issue 43): `filesize=`, and a
//! job without `size=` on a file that exists. Each job is run by fio and
//! by candor in scratch directories under /var/tmp, and what both did is
//! compared: the files each made and their sizes, the bytes each job
//! moved. Where fio is missing the test says so and skips, except in CI
//! (`CI=true`), where it fails.

use crate::common;

use common::plant::have_fio;

use candor::result::{DiskMeasurement, Run};
use common::plant::{candor_files, one_at_a_time, test_dir};
use std::path::Path;
use std::process::Command;

/// fio's JSON for `jobs` run in `dir`: (job name, bytes read, bytes written) per job.
fn fio_run(jobs: &Path, dir: &Path) -> Vec<(String, u64, u64)> {
    let out = Command::new("fio")
        .args(["--output-format=json", jobs.to_str().unwrap()])
        .current_dir(dir)
        .output()
        .expect("run fio");
    assert!(
        out.status.success(),
        "fio: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    let json: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    json["jobs"]
        .as_array()
        .unwrap()
        .iter()
        .map(|j| {
            (
                j["jobname"].as_str().unwrap().to_string(),
                j["read"]["io_bytes"].as_u64().unwrap(),
                j["write"]["io_bytes"].as_u64().unwrap(),
            )
        })
        .collect()
}

/// `candor disk --job JOBS --dir DIR --format json`: its Run.
fn candor_run(jobs: &Path, dir: &Path) -> Run {
    let out = assert_cmd::Command::cargo_bin("candor")
        .unwrap()
        .current_dir(dir)
        .env("CANDOR_NO_HISTORY", "1")
        .args(["disk", "--job", jobs.to_str().unwrap()])
        .args(["--dir", dir.to_str().unwrap(), "--format", "json"])
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "candor: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(candor_files(dir).is_empty(), "a test file was left behind");
    serde_json::from_slice(&out.stdout).unwrap()
}

/// Each clone's measurement of section `name`, in clone order.
fn clones<'a>(run: &'a Run, name: &str) -> Vec<&'a DiskMeasurement> {
    run.disk()
        .filter(|d| d.profile.as_deref() == Some(name))
        .collect()
}

/// The sizes of the files in `dir` whose names start with `prefix`, sorted.
fn sizes(dir: &Path, prefix: &str) -> Vec<u64> {
    let mut out: Vec<u64> = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap())
        .filter(|e| e.file_name().to_string_lossy().starts_with(prefix))
        .map(|e| e.metadata().unwrap().len())
        .collect();
    out.sort();
    out
}

#[test]
fn filesize_makes_the_files_and_moves_the_bytes_fio_does() {
    if !have_fio() {
        return;
    }
    let _turn = one_at_a_time();
    let tmp = test_dir("filesize");
    let (fio_dir, candor_dir) = (tmp.path().join("fio"), tmp.path().join("candor"));
    std::fs::create_dir(&fio_dir).unwrap();
    std::fs::create_dir(&candor_dir).unwrap();
    let jobs = tmp.path().join("filesize.fio");
    // Two clones of 1 MiB files; then a 2 MiB file from offset 64 KiB with
    // size= smaller (it bounds the I/O); then size= larger (cut to the file).
    std::fs::write(
        &jobs,
        "[global]\nstonewall\n[w]\nrw=write\nbs=64k\nfilesize=1m\nnumjobs=2\n[r]\nrw=randwrite\nbs=4k\nfilesize=2m\nsize=512k\noffset=64k\n[big]\nrw=write\nbs=64k\nfilesize=1m\nsize=8m\n",
    )
    .unwrap();
    let fio = fio_run(&jobs, &fio_dir);
    let bytes = |name: &str| -> Vec<u64> {
        fio.iter()
            .filter(|(n, _, _)| n == name)
            .map(|(_, _, w)| *w)
            .collect()
    };
    assert_eq!(bytes("w"), [1 << 20, 1 << 20]);
    assert_eq!(bytes("r"), [512 << 10]);
    assert_eq!(bytes("big"), [1 << 20]);
    assert_eq!(sizes(&fio_dir, "w."), [1 << 20, 1 << 20]);
    assert_eq!(sizes(&fio_dir, "r."), [2 << 20]);
    assert_eq!(sizes(&fio_dir, "big."), [1 << 20]);

    let run = candor_run(&jobs, &candor_dir);
    for name in ["w", "r", "big"] {
        let ours: Vec<u64> = clones(&run, name)
            .iter()
            .flat_map(|d| d.threads.iter())
            .map(|t| t.write.as_ref().unwrap().bytes)
            .collect();
        assert_eq!(ours, bytes(name), "[{name}] bytes written");
        let mut files: Vec<u64> = clones(&run, name)
            .iter()
            .flat_map(|d| d.job.as_ref().unwrap().files.iter())
            .map(|f| f.size)
            .collect();
        files.sort();
        assert_eq!(
            files,
            sizes(&fio_dir, &format!("{name}.")),
            "[{name}] files"
        );
    }
    // The command candor prints for the job is fio's, filesize= in it.
    let r = clones(&run, "r")[0];
    assert!(r.fio_command.contains("--filesize=2m"), "{}", r.fio_command);
}

#[test]
fn a_job_without_size_covers_the_existing_file_as_fio_does() {
    if !have_fio() {
        return;
    }
    let _turn = one_at_a_time();
    let tmp = test_dir("existing");
    let theirs = tmp.path().join("theirs.dat");
    std::fs::write(&theirs, vec![0x5au8; 3 << 20]).unwrap();
    let jobs = tmp.path().join("existing.fio");
    std::fs::write(
        &jobs,
        format!(
            "[r]\nrw=read\nbs=64k\noffset=1m\nfilename={}\n",
            theirs.display()
        ),
    )
    .unwrap();
    let fio = fio_run(&jobs, tmp.path());
    assert_eq!(fio, [("r".to_string(), 2 << 20, 0)]);
    let run = candor_run(&jobs, tmp.path());
    let r = clones(&run, "r")[0];
    assert_eq!(r.read.as_ref().unwrap().bytes, 2 << 20);
    let file = &r.job.as_ref().unwrap().files[0];
    assert_eq!(file.size, 3 << 20, "offset + the region, as the file is");
    assert_ne!(Path::new(&file.path), theirs, "candor's own file beside it");
    assert!(
        r.notes
            .iter()
            .any(|n| n.starts_with("no size=: fio sizes the job")),
        "{:?}",
        r.notes
    );
    assert_eq!(std::fs::read(&theirs).unwrap(), vec![0x5au8; 3 << 20]);
}
