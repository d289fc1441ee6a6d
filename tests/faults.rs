//! The fault matrix: each fault and hostile input of issue 12, planted for
//! real and run through the real binary as root (devices, FIFOs, other
//! users' files, kill -9, loop filesystems that fill or turn read-only).
//! Each case checks the exit code, the one-line message, the Run's status,
//! that no test file or temporary is left behind, and that no file outside
//! candor's own was replaced or followed. RELIABILITY.md lists the cases
//! with the test that holds each.

use crate::common;

use candor::result::{Run, RunStatus};
use common::plant::{sh, LoopDevice, Mount};
use std::collections::BTreeMap;
use std::ffi::{OsStr, OsString};
use std::os::unix::ffi::OsStrExt;
use std::os::unix::fs::{MetadataExt, PermissionsExt};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

/// What one candor did.
struct Outcome {
    code: i32,
    stdout: String,
    stderr: String,
}

impl From<std::process::Output> for Outcome {
    fn from(out: std::process::Output) -> Outcome {
        Outcome {
            code: out.status.code().unwrap_or(-1),
            stdout: String::from_utf8_lossy(&out.stdout).to_string(),
            stderr: String::from_utf8_lossy(&out.stderr).to_string(),
        }
    }
}

/// A command that runs candor's binary (directly, or `sh` that execs it),
/// kept from adding to the user's history (tests/history.rs tests that).
fn command(program: &str) -> Command {
    let mut c = Command::new(program);
    c.env("CANDOR_NO_HISTORY", "1").stdin(Stdio::null());
    c
}

/// The binary under test: this build's, or another one named by
/// `CANDOR_TEST_BIN` (to show that a test fails on an older candor).
fn bin() -> String {
    std::env::var("CANDOR_TEST_BIN").unwrap_or_else(|_| env!("CARGO_BIN_EXE_candor").to_string())
}

fn candor<I, S>(args: I) -> Outcome
where
    I: IntoIterator<Item = S>,
    S: AsRef<OsStr>,
{
    command(&bin()).args(args).output().unwrap().into()
}

fn spawn<I, S>(args: I) -> Child
where
    I: IntoIterator<Item = S>,
    S: AsRef<OsStr>,
{
    command(&bin())
        .args(args)
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap()
}

/// Runs candor to its end (its stdout thrown away): the outcome, and the
/// peak resident memory of that process, in bytes. A small python3 starts
/// candor and reads its peak (`RUSAGE_CHILDREN`): a peak taken by wait4 in
/// this process would include this test process's own resident memory,
/// which a vfork-started child's peak inherits until its exec, and this
/// process holds every test of tests/integration.rs (1.3 GB seen).
fn candor_peak(args: &[&str]) -> (Outcome, u64) {
    const MEASURE: &str = "import resource, subprocess, sys\n\
r = subprocess.run(sys.argv[1:], stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL)\n\
print(resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss)\n\
sys.exit(r.returncode if r.returncode >= 0 else 128 - r.returncode)\n";
    let out = command("python3")
        .arg("-c")
        .arg(MEASURE)
        .arg(bin())
        .args(args)
        .output()
        .expect("python3 measures candor's peak memory (is it installed?)");
    let kib: u64 = String::from_utf8_lossy(&out.stdout)
        .trim()
        .parse()
        .expect("python3 printed the peak in KiB");
    let o = Outcome {
        code: out.status.code().unwrap_or(-1),
        stdout: String::new(),
        stderr: String::from_utf8_lossy(&out.stderr).into_owned(),
    };
    (o, kib * 1024)
}

fn finish(child: Child) -> Outcome {
    child.wait_with_output().unwrap().into()
}

/// Exit `code`, and stderr is one line, an error that contains `needle`.
fn refused(o: &Outcome, code: i32, needle: &str) {
    assert_eq!(o.code, code, "exit code; stderr: {}", o.stderr);
    assert_eq!(o.stderr.lines().count(), 1, "one line: {}", o.stderr);
    assert!(
        o.stderr.starts_with("candor: error: ") && o.stderr.contains(needle),
        "expected {needle:?}: {}",
        o.stderr
    );
}

fn ok(o: &Outcome) {
    assert_eq!(o.code, 0, "{}", o.stderr);
}

/// The error line (the last one; warnings may come before it).
fn error_line(o: &Outcome) -> &str {
    let line = o.stderr.lines().last().unwrap_or("");
    assert!(line.starts_with("candor: error: "), "{}", o.stderr);
    line
}

/// A scratch directory on the real disk.
fn scratch(tag: &str) -> tempfile::TempDir {
    common::plant::test_dir(&format!("faults-{tag}"))
}

/// Two directories in `dir`: `d` for test files, `o` for the Run.
fn test_and_output_dirs(dir: &Path) -> (PathBuf, PathBuf) {
    let (d, o) = (dir.join("d"), dir.join("o"));
    std::fs::create_dir(&d).unwrap();
    std::fs::create_dir(&o).unwrap();
    (d, o)
}

fn p(path: &Path) -> &str {
    path.to_str().unwrap()
}

fn read_run(path: &Path) -> Run {
    candor::result::read_run(path).unwrap_or_else(|e| panic!("{e}"))
}

/// candor's test files and temporaries in `dir` (any owner).
fn leftovers(dir: &Path) -> Vec<PathBuf> {
    candor::leftovers::candor_files(dir)
}

/// Waits up to `limit` for `done`.
fn wait_until(limit: Duration, mut done: impl FnMut() -> bool) -> bool {
    let start = Instant::now();
    while start.elapsed() < limit {
        if done() {
            return true;
        }
        std::thread::sleep(Duration::from_millis(20));
    }
    false
}

/// What each file in a directory is: identity, owner, mode, and content.
fn snapshot(dir: &Path) -> BTreeMap<OsString, (u64, u32, u32, Vec<u8>)> {
    std::fs::read_dir(dir)
        .unwrap()
        .map(|e| {
            let e = e.unwrap();
            let meta = std::fs::symlink_metadata(e.path()).unwrap();
            let content = if meta.file_type().is_file() {
                std::fs::read(e.path()).unwrap()
            } else if meta.file_type().is_symlink() {
                std::fs::read_link(e.path())
                    .unwrap()
                    .as_os_str()
                    .as_bytes()
                    .to_vec()
            } else {
                Vec::new()
            };
            (
                e.file_name(),
                (meta.ino(), meta.uid(), meta.mode(), content),
            )
        })
        .collect()
}

/// A file `name` in `dir` holding `content`.
fn put(dir: &Path, name: &str, content: impl AsRef<[u8]>) -> PathBuf {
    let path = dir.join(name);
    std::fs::write(&path, content).unwrap();
    path
}

/// A small Run file to feed the readers.
fn a_run(dir: &Path, name: &str) -> PathBuf {
    let path = dir.join(name);
    std::fs::copy(
        Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/runs/cpu.json"),
        &path,
    )
    .unwrap();
    path
}

/// fio's JSON output (one randread job) to feed the importer.
fn fio_output() -> serde_json::Value {
    let text = std::fs::read_to_string(
        Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/fio/randread-iouring-q16.json"),
    )
    .unwrap();
    serde_json::from_str(&text[text.find('{').unwrap()..]).unwrap()
}

fn mkfifo(path: &Path) {
    let c = std::ffi::CString::new(path.as_os_str().as_bytes()).unwrap();
    // SAFETY: a valid NUL-terminated path.
    assert_eq!(unsafe { libc::mkfifo(c.as_ptr(), 0o644) }, 0);
}

const TINY_DISK: [&str; 6] = ["--size", "16M", "--runtime", "200ms", "--ramp", "0s"];

// ---------------------------------------------------------------- outputs

/// import/report/compare -o onto one of their inputs: refused, with or
/// without --force; the input is untouched.
#[test]
fn an_input_is_never_an_output() {
    let dir = scratch("inputs");
    let d = dir.path();
    let run = a_run(d, "r.json");
    let other = a_run(d, "b.json");
    let fio = put(d, "fio.json", fio_output().to_string());
    let before = snapshot(d);
    for force in [false, true] {
        let f: &[&str] = if force { &["--force"] } else { &[] };
        for args in [
            vec!["import", p(&fio), "-o", p(&fio)],
            vec!["report", p(&run), "-o", p(&run)],
            vec!["compare", p(&run), p(&other), "-o", p(&run)],
            vec!["compare", p(&run), p(&other), "-o", p(&other)],
        ] {
            let o = candor(args.iter().chain(f));
            refused(&o, 2, "is also an input");
        }
    }
    assert_eq!(snapshot(d), before);
}

/// Every command that writes a file refuses an existing one without
/// --force, before measuring anything.
#[test]
fn an_existing_file_is_never_replaced_without_force() {
    let dir = scratch("existing");
    let d = dir.path();
    let run = a_run(d, "r.json");
    let fio = put(d, "fio.json", fio_output().to_string());
    let taken = put(d, "taken", "precious");
    let before = snapshot(d);
    let t = p(&taken);
    for args in [
        vec!["report", p(&run), "-o", t],
        vec!["compare", p(&run), p(&run), "-o", t],
        vec!["import", p(&fio), "-o", t],
        vec!["disk", "--dir", p(d), "-o", t],
        vec!["sweep", "--dir", p(d), "-o", t],
        vec!["cpu", "-o", t],
        vec!["memory", "-o", t],
        vec!["run", "--dir", p(d), "-o", t],
    ] {
        let started = Instant::now();
        let o = candor(&args);
        refused(&o, 2, "the file exists; candor never overwrites a file");
        assert!(
            started.elapsed() < Duration::from_secs(10),
            "{args:?} measured first"
        );
    }
    assert_eq!(snapshot(d), before);
    assert!(leftovers(d).is_empty());
}

/// --force replaces a file of another user (mode 600) and keeps its owner
/// and mode; analyze --write keeps a read-only Run read-only.
#[test]
fn force_keeps_the_owner_and_mode() {
    let dir = scratch("owner");
    let d = dir.path();
    let run = a_run(d, "r.json");
    let theirs = put(d, "theirs.txt", "old");
    sh("chown", &["nobody:nogroup", p(&theirs)]);
    std::fs::set_permissions(&theirs, std::fs::Permissions::from_mode(0o600)).unwrap();
    let nobody = std::fs::metadata(&theirs).unwrap().uid();
    assert_ne!(nobody, 0);
    ok(&candor(["report", p(&run), "-o", p(&theirs), "--force"]));
    let meta = std::fs::symlink_metadata(&theirs).unwrap();
    assert!(meta.file_type().is_file());
    assert_eq!((meta.uid(), meta.mode() & 0o7777), (nobody, 0o600));
    assert!(std::fs::read_to_string(&theirs).unwrap().contains("candor"));

    std::fs::set_permissions(&run, std::fs::Permissions::from_mode(0o444)).unwrap();
    ok(&candor(["analyze", p(&run), "--write"]));
    assert_eq!(std::fs::metadata(&run).unwrap().mode() & 0o7777, 0o444);
    assert!(read_run(&run).findings.iter().any(|f| f.id == "claims"));
    assert!(leftovers(d).is_empty());
}

/// -o onto a device node, a FIFO, a symlink or /dev/stdout: refused, and
/// none of them is replaced or followed, even with --force.
#[test]
fn devices_fifos_and_links_are_not_outputs() {
    let dir = scratch("devices");
    let d = dir.path();
    let run = a_run(d, "r.json");
    let victim = put(d, "victim", "precious");
    let link = d.join("link.txt");
    std::os::unix::fs::symlink(&victim, &link).unwrap();
    let fifo = d.join("fifo");
    mkfifo(&fifo);
    let before = snapshot(d);
    let null = std::fs::metadata("/dev/null").unwrap();
    for (target, why) in [
        ("/dev/null", "not a regular file"),
        (p(&fifo), "not a regular file"),
        (p(&link), "symbolic link"),
        ("/dev/stdout", "symbolic link"),
    ] {
        for force in [false, true] {
            let mut args = vec!["report", p(&run), "-o", target];
            if force {
                args.push("--force");
            }
            refused(&candor(&args), 2, why);
        }
        refused(
            &candor(["cpu", "--runtime", "20ms", "-o", target, "--force"]),
            2,
            why,
        );
    }
    let after = std::fs::metadata("/dev/null").unwrap();
    assert!(std::os::unix::fs::FileTypeExt::is_char_device(
        &after.file_type()
    ));
    assert_eq!(after.rdev(), null.rdev());
    assert_eq!(snapshot(d), before);
}

/// A symlink planted at the temporary's old name (`.out.txt.<pid>.tmp`) and
/// at every name a candor of that pid could take: the report goes to
/// out.txt, the victim is untouched, the links stay links.
#[test]
fn planted_temporaries_are_never_followed() {
    let dir = scratch("planted");
    let d = dir.path();
    let run = a_run(d, "r.json");
    let victim = put(d, "victim", "precious");
    let out = d.join("out.txt");
    // `exec` keeps the shell's pid and start time: the links name candor.
    let script = format!(
        "ln -s {v} {d}/.out.txt.$$.tmp && ln -s {v} {d}/.out.txt.candor-$$-$(cut -d' ' -f22 /proc/$$/stat)-00000000.tmp && exec {bin} report {run} -o {out}",
        v = p(&victim),
        d = p(d),
        bin = bin(),
        run = p(&run),
        out = p(&out)
    );
    let o = command("sh").args(["-c", &script]).output().unwrap();
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    assert_eq!(std::fs::read(&victim).unwrap(), b"precious");
    assert!(std::fs::symlink_metadata(&out)
        .unwrap()
        .file_type()
        .is_file());
    assert!(std::fs::read_to_string(&out).unwrap().contains("candor"));
    let links = std::fs::read_dir(d)
        .unwrap()
        .filter(|e| e.as_ref().unwrap().file_type().unwrap().is_symlink())
        .count();
    assert_eq!(links, 2, "both planted links are still there, as links");
}

/// A second candor on a Run being written is refused in one line, whatever
/// the command; the first finishes its Run.
#[test]
fn two_candors_on_one_run() {
    let dir = scratch("two-runs");
    let out = dir.path().join("x.json");
    let first = spawn(["cpu", "--runtime", "2s", "--threads", "1", "-o", p(&out)]);
    assert!(wait_until(Duration::from_secs(20), || out.exists()));
    for second in [
        vec![
            "disk",
            "--engine",
            "null",
            "--runtime",
            "100ms",
            "-o",
            p(&out),
            "--force",
        ],
        vec!["cpu", "--runtime", "20ms", "-o", p(&out), "--force"],
        vec!["run", "--resume", p(&out)],
    ] {
        refused(&candor(&second), 2, "another candor is writing this Run");
    }
    let o = finish(first);
    assert_eq!(o.code, 0, "{}", o.stderr);
    let run = read_run(&out);
    assert_eq!(run.status, RunStatus::Complete);
    assert_eq!(run.measurements.len(), 1);
    assert!(leftovers(dir.path()).is_empty());
}

/// An output that is one of the command's inputs not named on its command
/// line: the history database (`-o` equal to `--db`, and its `-wal`), a job
/// file and its include (`disk --job F.fio -o F.fio`), a fleet directory's
/// file (`fleet report DIR -o DIR/fleet.json`): each was replaced with
/// `--force`; now refused, untouched.
#[test]
fn inputs_not_on_the_command_line_are_never_outputs() {
    let dir = scratch("hidden-inputs");
    let d = dir.path();
    let db = put(d, "h.db", "a history");
    let wal = put(d, "h.db-wal", "its wal");
    let inc = put(d, "inc.fio", "size=4m\n");
    let job = put(
        d,
        "j.fio",
        "[a]\nrw=read\nruntime=200ms\ntime_based\ninclude inc.fio\n",
    );
    let fleet = d.join("fleet");
    std::fs::create_dir(&fleet).unwrap();
    put(&fleet, "fleet.json", "{}");
    std::fs::create_dir(fleet.join("web1")).unwrap();
    let host_run = a_run(&fleet.join("web1"), "run.json");
    let before = (snapshot(d), snapshot(&fleet));
    let disk = |out: &Path| {
        candor([
            "disk",
            "--engine",
            "null",
            "--runtime",
            "100ms",
            "--db",
            p(&db),
            "-o",
            p(out),
            "--force",
        ])
    };
    refused(&disk(&db), 2, "is also an input");
    refused(&disk(&wal), 2, "is also an input");
    for out in [&job, &inc] {
        let o = candor([
            "disk",
            "--job",
            p(&job),
            "--dir",
            p(d),
            "-o",
            p(out),
            "--force",
        ]);
        refused(&o, 2, "is also an input");
    }
    let fleet_json = fleet.join("fleet.json");
    for out in [&fleet_json, &host_run] {
        let o = candor(["fleet", "report", p(&fleet), "-o", p(out), "--force"]);
        refused(&o, 2, "is also an input");
    }
    let o = candor([
        "import",
        p(&host_run),
        "--db",
        p(&db),
        "-o",
        p(&db),
        "--force",
    ]);
    refused(&o, 2, "is also an input");
    assert_eq!((snapshot(d), snapshot(&fleet)), before);
}

/// `analyze --write` beside a candor still writing the Run: it wrote the
/// Run back as it was while running, and the measurement was lost; now it
/// takes the Run's lock and is refused while another candor holds it.
#[test]
fn analyze_write_takes_the_run_lock() {
    let dir = scratch("analyze-lock");
    let out = dir.path().join("r.json");
    let first = spawn(["cpu", "--runtime", "2s", "--threads", "1", "-o", p(&out)]);
    assert!(wait_until(Duration::from_secs(20), || out.exists()));
    refused(
        &candor(["analyze", "--write", p(&out)]),
        2,
        "another candor is writing this Run",
    );
    let o = finish(first);
    assert_eq!(o.code, 0, "{}", o.stderr);
    assert_eq!(read_run(&out).measurements.len(), 1);
    ok(&candor(["analyze", "--write", p(&out)]));
    assert!(leftovers(dir.path()).is_empty());
}

/// A Run edited to hold impossible values (negative events per second, a
/// free-text date) was reported as measured; now every reader refuses it
/// in one line naming the field.
#[test]
fn impossible_values_in_a_run_are_refused() {
    let dir = scratch("impossible");
    let good = a_run(dir.path(), "good.json");
    let text = std::fs::read_to_string(&good).unwrap();
    let mut run: serde_json::Value = serde_json::from_str(&text).unwrap();
    run["measurements"][0]["events_per_sec"] = serde_json::json!(-1.0);
    let negative = put(dir.path(), "negative.json", run.to_string());
    let mut run: serde_json::Value = serde_json::from_str(&text).unwrap();
    run["started_at"] = serde_json::json!("last tuesday");
    let dated = put(dir.path(), "dated.json", run.to_string());
    for cmd in ["report", "analyze"] {
        let o = candor([cmd, p(&negative)]);
        refused(&o, 2, "measurements[0].events_per_sec: -1.0 is negative");
        let o = candor([cmd, p(&dated)]);
        refused(&o, 2, "started_at: \"last tuesday\" is not a time");
    }
    ok(&candor(["report", p(&good)]));
}

/// A file put at a Run's name by another user while candor measures (moved
/// in over the Run, or the Run rewritten in place): it was replaced by the
/// next save and took root's ownership; now it stays as it is, the Run is
/// saved beside it (`x.candor-1.json`), with one warning and a note.
#[test]
fn a_file_swapped_in_during_the_work_is_kept() {
    for in_place in [false, true] {
        let dir = scratch("swapped");
        let out = dir.path().join("x.json");
        let first = spawn(["cpu", "--runtime", "2s", "--threads", "1", "-o", p(&out)]);
        assert!(wait_until(Duration::from_secs(20), || out.exists()));
        if in_place {
            std::fs::write(&out, "theirs").unwrap();
        } else {
            let theirs = put(dir.path(), "theirs", "theirs");
            std::os::unix::fs::chown(&theirs, Some(65534), Some(65534)).unwrap();
            std::fs::rename(&theirs, &out).unwrap();
        }
        let o = finish(first);
        assert_eq!(o.code, 0, "{}", o.stderr);
        assert_eq!(std::fs::read_to_string(&out).unwrap(), "theirs");
        if !in_place {
            assert_eq!(std::fs::metadata(&out).unwrap().uid(), 65534);
        }
        let kept = dir.path().join("x.candor-1.json");
        let run = read_run(&kept);
        assert_eq!(run.status, RunStatus::Complete);
        assert_eq!(run.measurements.len(), 1);
        assert!(run.notes.iter().any(|n| n.contains("x.candor-1.json")));
        let warned = o
            .stderr
            .lines()
            .filter(|l| l.contains("candor kept that file"))
            .count();
        assert_eq!(warned, 1, "{}", o.stderr);
        assert!(leftovers(dir.path()).is_empty());
    }
}

/// A candor that starts while another measures in the same directory says
/// so (one line, and in its Run), and leaves the other's test file alone.
#[test]
fn two_candors_in_one_directory_hear_of_each_other() {
    let dir = scratch("two-dirs");
    let d = dir.path().join("d");
    std::fs::create_dir(&d).unwrap();
    let first = spawn([
        "disk",
        "--dir",
        p(&d),
        "--size",
        "16M",
        "--runtime",
        "4s",
        "--ramp",
        "0s",
    ]);
    assert!(wait_until(Duration::from_secs(20), || !leftovers(&d).is_empty()));
    let theirs = leftovers(&d);
    let out = dir.path().join("second.json");
    let mut args = vec!["disk", "--dir", p(&d), "-o", p(&out)];
    args.extend(TINY_DISK);
    let second = candor(&args);
    ok(&second);
    let pid = first.id();
    let warning = format!("another candor (pid {pid}) is measuring in");
    assert!(second.stderr.contains(&warning), "{}", second.stderr);
    assert!(read_run(&out).notes.iter().any(|n| n.contains(&warning)));
    for f in &theirs {
        assert!(
            f.exists(),
            "the running candor's file {} was removed",
            f.display()
        );
    }
    ok(&finish(first));
    assert!(leftovers(&d).is_empty());
}

// ------------------------------------------------------ crashes and leftovers

/// kill -9 leaves the test file, the Run's temporaries (and its lock); the
/// next candor in those directories removes the files, one line each, and
/// its Run says so.
#[test]
fn a_killed_candors_files_are_removed_by_the_next() {
    let dir = scratch("kill9");
    let (d, o) = test_and_output_dirs(dir.path());
    let out = o.join("r.json");
    let mut victim = spawn([
        "disk",
        "--dir",
        p(&d),
        "--size",
        "32M",
        "--runtime",
        "30s",
        "--ramp",
        "0s",
        "-o",
        p(&out),
    ]);
    assert!(wait_until(Duration::from_secs(30), || {
        !leftovers(&d).is_empty() && !leftovers(&o).is_empty()
    }));
    victim.kill().unwrap();
    victim.wait().unwrap();
    let left: Vec<PathBuf> = [leftovers(&d), leftovers(&o)].concat();
    assert_eq!(
        left.len(),
        2,
        "the test file and the room kept for the Run: {left:?}"
    );
    let pid = victim.id().to_string();
    for f in &left {
        assert!(p(f).contains(&format!("-{pid}-")), "{}", f.display());
    }
    assert_eq!(read_run(&out).status, RunStatus::Running);

    let next = o.join("next.json");
    let mut args = vec!["disk", "--dir", p(&d), "-o", p(&next)];
    args.extend(TINY_DISK);
    let o2 = candor(&args);
    ok(&o2);
    let notes = read_run(&next).notes;
    for f in &left {
        let line = format!("removed {}", f.display());
        assert!(o2.stderr.contains(&line), "{line}: {}", o2.stderr);
        assert!(notes.iter().any(|n| n.starts_with(&line)), "{notes:?}");
        assert!(!f.exists());
    }
    assert_eq!(
        o2.stderr.matches("removed ").count(),
        2,
        "one line per file: {}",
        o2.stderr
    );
    assert!(leftovers(&d).is_empty() && leftovers(&o).is_empty());
    // The killed Run's lock stays (empty) until a candor writes that Run again.
    let lock = o.join(".r.json.lock");
    assert_eq!(std::fs::metadata(&lock).unwrap().len(), 0);
    assert!(
        candor([
            "cpu",
            "--runtime",
            "20ms",
            "--threads",
            "1",
            "-o",
            p(&out),
            "--force"
        ])
        .code
            == 0
    );
    assert!(!lock.exists());
}

/// `run --resume` after kill -9 removes its predecessor's test file and
/// temporaries and finishes the Run.
#[test]
fn resume_removes_its_predecessors_files() {
    let dir = scratch("resume");
    let (d, o) = test_and_output_dirs(dir.path());
    let out = o.join("b.json");
    let mut first = spawn([
        "run",
        "--preset",
        "quick",
        "--only",
        "disk",
        "--dir",
        p(&d),
        "--size",
        "16M",
        "--runtime",
        "300ms",
        "--ramp",
        "0",
        "--pause",
        "0",
        "-o",
        p(&out),
        "--quiet",
    ]);
    assert!(wait_until(Duration::from_secs(60), || {
        candor::result::read_run(&out).is_ok_and(|r| r.measurements.len() >= 2)
    }));
    first.kill().unwrap();
    first.wait().unwrap();
    let left: Vec<PathBuf> = [leftovers(&d), leftovers(&o)].concat();
    assert!(left.len() >= 2, "test file and room for the Run: {left:?}");
    let o2 = candor(["run", "--resume", p(&out), "--quiet"]);
    ok(&o2);
    let run = read_run(&out);
    assert_eq!(run.status, RunStatus::Complete);
    for f in &left {
        let line = format!("removed {}", f.display());
        assert!(o2.stderr.contains(&line), "{line}: {}", o2.stderr);
        assert!(
            run.notes.iter().any(|n| n.starts_with(&line)),
            "{:?}",
            run.notes
        );
    }
    assert!(leftovers(&d).is_empty() && leftovers(&o).is_empty());
    assert!(!o.join(".b.json.lock").exists());
}

/// The test directory's filesystem turns read-only during a read test
/// (ext4 on a loop device, `trigger_fs_error` with errors=remount-ro): the
/// test file cannot be removed. candor names it (a warning, the Run's
/// notes), ends the Run `failed` and exits 1.
#[test]
fn a_filesystem_that_turns_read_only_is_reported() {
    let dir = scratch("readonly");
    // 2 GiB (sparse): candor leaves 1 GiB free beside its test file.
    let lo = LoopDevice::new(&dir.path().join("fs.img"), 2 << 30, true);
    sh("mkfs.ext4", &["-F", "-q", &lo.device]);
    let m = Mount::new(
        "ext4",
        &lo.device,
        &dir.path().join("m"),
        Some("errors=remount-ro"),
    );
    let out = dir.path().join("ro.json");
    let child = spawn([
        "disk",
        "--dir",
        p(&m.dir),
        "--rw",
        "randread",
        "--size",
        "16M",
        "--runtime",
        "3s",
        "--ramp",
        "0s",
        "-o",
        p(&out),
    ]);
    // The fill is done once the file has its size (and was fsynced).
    assert!(wait_until(Duration::from_secs(30), || {
        leftovers(&m.dir)
            .first()
            .and_then(|f| std::fs::metadata(f).ok())
            .is_some_and(|meta| meta.len() == 16 << 20)
    }));
    std::thread::sleep(Duration::from_millis(500));
    let name = Path::new(&lo.device).file_name().unwrap().to_str().unwrap();
    std::fs::write(format!("/sys/fs/ext4/{name}/trigger_fs_error"), "1").unwrap();
    let o = finish(child);
    let file = leftovers(&m.dir);
    assert_eq!(file.len(), 1, "the file the read-only filesystem kept");
    let path = file[0].display().to_string();
    assert_eq!(o.code, 1, "{}", o.stderr);
    assert!(
        o.stderr.contains(&format!(
            "candor: warning: cannot remove test file (16 MiB) {path}: Read-only file system"
        )),
        "{}",
        o.stderr
    );
    assert!(error_line(&o).contains(&path), "{}", o.stderr);
    let run = read_run(&out);
    assert_eq!(run.status, RunStatus::Failed);
    assert_eq!(run.measurements.len(), 1, "the measurement is kept");
    assert!(run
        .notes
        .iter()
        .any(|n| n.starts_with("cleanup failed: cannot remove test file") && n.contains(&path)));
    drop(m);
}

/// The filesystem holding -o fills during a run (another process's file):
/// the Run is saved a last time, `failed`, with its measurements, from the
/// room candor kept; the error says so in one line. Without room kept, the
/// error says what the file holds.
#[test]
fn a_full_disk_under_the_output_still_leaves_a_run() {
    let dir = scratch("full");
    let d = dir.path().join("d");
    std::fs::create_dir(&d).unwrap();
    let lo = LoopDevice::new(&dir.path().join("fs.img"), 32 << 20, true);
    sh("mkfs.ext4", &["-F", "-q", &lo.device]);
    let m = Mount::new("ext4", &lo.device, &dir.path().join("m"), None);
    // Blocks ext4 holds back from every file (its reserved clusters).
    let loop_name = Path::new(&lo.device)
        .file_name()
        .unwrap()
        .to_str()
        .unwrap()
        .to_string();
    let held: u64 = std::fs::read_to_string(format!("/sys/fs/ext4/{loop_name}/reserved_clusters"))
        .unwrap()
        .trim()
        .parse()
        .unwrap();
    // (free blocks, block size), as root sees them.
    let free = || -> (u64, u64) {
        let f: Vec<u64> = sh("stat", &["-f", "-c", "%f %S", p(&m.dir)])
            .split(' ')
            .map(|x| x.parse().unwrap())
            .collect();
        (f[0], f[1])
    };
    // Another process takes every block left but about `leave` bytes: half
    // of what is left at each step (a fallocate that fails keeps what it
    // got, so none may ask for too much), then the crumbs with dd.
    let fill = |name: &str, leave: u64| {
        for part in 0..40 {
            sh("sync", &[]);
            let (blocks, size) = free();
            let room = blocks.saturating_sub(held) * size;
            if room <= leave + (64 << 10) {
                break;
            }
            let file = m.dir.join(format!("{name}{part}"));
            sh(
                "fallocate",
                &[
                    "-l",
                    &((room - leave) / 2 / size * size).to_string(),
                    p(&file),
                ],
            );
        }
        if leave == 0 {
            let _ = Command::new("dd")
                .args([
                    "if=/dev/zero",
                    &format!("of={}/{name}-crumbs", p(&m.dir)),
                    "bs=4k",
                ])
                .stderr(Stdio::null())
                .status();
            sh("sync", &[]);
        }
    };

    // Filled while the sweep saves point after point: the last save uses the room kept.
    let out = m.dir.join("full.json");
    let child = spawn([
        "sweep",
        "--dir",
        p(&d),
        "--size",
        "4M",
        "--runtime",
        "100ms",
        "--ramp",
        "0s",
        "-o",
        p(&out),
    ]);
    assert!(wait_until(Duration::from_secs(30), || {
        candor::result::read_run(&out).is_ok_and(|r| !r.measurements.is_empty())
            && !leftovers(&m.dir).is_empty()
    }));
    fill("filler", 0);
    let o = finish(child);
    assert_eq!(o.code, 1, "{}", o.stderr);
    let run = read_run(&out);
    let line = error_line(&o);
    let saved = format!(
        "holds it as saved a last time: status failed, {} measurements",
        run.measurements.len()
    );
    assert!(
        line.contains("No space left on device") && line.contains(&saved),
        "{}",
        o.stderr
    );
    assert_eq!(o.stderr.lines().count(), 1, "{}", o.stderr);
    assert_eq!(run.status, RunStatus::Failed);
    assert!(!run.measurements.is_empty() && run.measurements.len() < 50);
    assert!(
        run.notes.iter().any(|n| n.contains("is full")),
        "{:?}",
        run.notes
    );
    assert!(leftovers(&m.dir).is_empty() && leftovers(&d).is_empty());
    for f in std::fs::read_dir(&m.dir).unwrap() {
        let f = f.unwrap().path();
        if f.file_name()
            .unwrap()
            .to_str()
            .unwrap()
            .starts_with("filler")
        {
            std::fs::remove_file(f).unwrap();
        }
    }

    // Saved once without room to spare: the error says what the file holds.
    // 256 KiB left: enough for a first save, not for the 1 MiB candor would keep.
    fill("big", 256 << 10);
    let out = m.dir.join("tight.json");
    let child = spawn(["cpu", "--runtime", "2s", "--threads", "1", "-o", p(&out)]);
    assert!(wait_until(Duration::from_secs(20), || out.exists()));
    fill("rest", 0);
    let o = finish(child);
    assert_eq!(o.code, 1, "{}", o.stderr);
    assert!(
        error_line(&o).contains("holds the Run as saved at")
            && error_line(&o).contains("status running, 0 measurements"),
        "{}",
        o.stderr
    );
    assert_eq!(read_run(&out).status, RunStatus::Running);
    assert!(leftovers(&m.dir).is_empty());

    drop(m);
}

/// A disk job that fails mid-run (an I/O error, injected) still leaves its
/// Run, `failed`, saying why; the test file is removed.
#[test]
fn a_failing_disk_job_still_leaves_a_run() {
    let dir = scratch("eio");
    let out = dir.path().join("r.json");
    let mut args = vec!["disk", "--dir", p(dir.path()), "-o", p(&out)];
    args.extend(TINY_DISK);
    let o: Outcome = command(&bin())
        .args(&args)
        .env(candor::disk::engine::FAIL_ENV, "50")
        .output()
        .unwrap()
        .into();
    refused(&o, 1, "Input/output error");
    let run = read_run(&out);
    assert_eq!(run.status, RunStatus::Failed);
    assert!(run
        .notes
        .iter()
        .any(|n| n.starts_with("stopped: ") && n.contains("Input/output error")));
    assert!(leftovers(dir.path()).is_empty());
}

/// A second signal (SIGTERM right after SIGINT, as a user who presses
/// Ctrl-C and then kills) exited at once and left the Run saying
/// `running` for ever. Now the Run is saved as last saved, `interrupted`,
/// with a note; the test file is gone.
#[test]
fn a_second_signal_never_leaves_a_run_running() {
    let dir = scratch("second-signal");
    let out = dir.path().join("r.json");
    let d = p(dir.path());
    let child = spawn([
        "disk",
        "--dir",
        d,
        "--size",
        "16M",
        "--runtime",
        "60s",
        "--ramp",
        "0s",
        "-o",
        p(&out),
    ]);
    let measuring = wait_until(Duration::from_secs(30), || {
        std::fs::read_to_string(&out).is_ok_and(|t| t.contains("\"running\""))
            && leftovers(dir.path())
                .iter()
                .any(|f| f.to_string_lossy().contains("disk"))
    });
    assert!(measuring, "the job did not start");
    std::thread::sleep(Duration::from_millis(300));
    // SAFETY: kill(2) on the child's pid, two different signals so that
    // the kernel does not merge them.
    unsafe {
        libc::kill(child.id() as i32, libc::SIGINT);
        libc::kill(child.id() as i32, libc::SIGTERM);
    }
    let o = finish(child);
    assert!(o.code == 130 || o.code == 143, "{}: {}", o.code, o.stderr);
    let run = read_run(&out);
    assert_eq!(run.status, RunStatus::Interrupted, "{}", o.stderr);
    assert!(
        leftovers(dir.path()).is_empty(),
        "{:?}",
        leftovers(dir.path())
    );
}

/// A pids cgroup of our own with this limit, removed on drop.
struct PidsGroup(PathBuf);

impl PidsGroup {
    fn new(tag: &str, max: u32) -> PidsGroup {
        let path = Path::new("/sys/fs/cgroup/pids")
            .join(format!("candor-faults-{tag}-{}", std::process::id()));
        std::fs::create_dir(&path).unwrap_or_else(|e| {
            panic!(
                "cannot create {} (these tests need root and cgroup v1 pids): {e}",
                path.display()
            )
        });
        std::fs::write(path.join("pids.max"), max.to_string()).unwrap();
        PidsGroup(path)
    }

    /// candor in the group, under `timeout`: a candor that waits for ever
    /// for a thread that never started fails the test.
    fn run(&self, args: &[&str]) -> Outcome {
        let join = format!(
            "echo $$ > '{}' && exec timeout -s KILL 60",
            self.0.join("cgroup.procs").display()
        );
        through_sh(&join, args)
    }
}

impl Drop for PidsGroup {
    /// Removed once its last task has gone: a killed candor's threads may
    /// still be exiting when the test ends (EBUSY until then).
    fn drop(&mut self) {
        for _ in 0..250 {
            if std::fs::remove_dir(&self.0).is_ok() || !self.0.exists() {
                return;
            }
            std::thread::sleep(Duration::from_millis(20));
        }
    }
}

/// Under a process limit (a pids cgroup of 12), `--numjobs 64` panicked in
/// the spawning thread while the threads already started waited for ever
/// at the start barrier; a job file of 40 jobs did the same. Now the
/// threads that started are stopped, the test files removed and the Run
/// saved `failed` with the cause, exit 1.
#[test]
fn a_thread_that_cannot_start_is_an_error_not_a_hang() {
    let dir = scratch("pids");
    let d = p(dir.path());
    let group = PidsGroup::new("threads", 12);
    let out = dir.path().join("numjobs.json");
    let mut args = vec!["disk", "--dir", d, "--numjobs", "64", "-o", p(&out)];
    args.extend(TINY_DISK);
    let o = group.run(&args);
    assert_eq!(o.code, 1, "{}", o.stderr);
    assert!(o.stderr.contains("cannot start I/O thread"), "{}", o.stderr);
    let run = read_run(&out);
    assert_eq!(run.status, RunStatus::Failed);
    assert!(
        run.notes.iter().any(|n| n.contains("cannot start")),
        "{:?}",
        run.notes
    );
    assert!(leftovers(dir.path()).is_empty());

    let sections: String = (0..40).map(|i| format!("[j{i}]\n")).collect();
    let jobs = put(
        dir.path(),
        "forty.fio",
        format!("[global]\nrw=randread\nsize=1m\nruntime=200ms\ntime_based\n{sections}"),
    );
    let out = dir.path().join("jobs.json");
    let o = group.run(&["disk", "--job", p(&jobs), "--dir", d, "-o", p(&out)]);
    assert_eq!(o.code, 1, "{}", o.stderr);
    assert!(o.stderr.contains("cannot start"), "{}", o.stderr);
    assert_eq!(read_run(&out).status, RunStatus::Failed);
    assert!(leftovers(dir.path()).is_empty());
}

/// Paths that are not UTF-8 (the directory, the output) work in every
/// measuring command.
#[test]
fn paths_that_are_not_utf8_work() {
    let dir = scratch("utf8");
    let odd = dir.path().join(OsStr::from_bytes(b"d\xff\xfe"));
    std::fs::create_dir(&odd).unwrap();
    let out = |name: &[u8]| odd.join(OsStr::from_bytes(name));
    let mut disk: Vec<&OsStr> = ["disk", "--dir"].iter().map(OsStr::new).collect();
    let o1 = out(b"disk\xff.json");
    disk.extend([odd.as_os_str(), OsStr::new("-o"), o1.as_os_str()]);
    disk.extend(TINY_DISK.iter().map(OsStr::new));
    ok(&candor(&disk));
    for group in ["cpu", "memory", "crypto"] {
        let o = out(&[group.as_bytes(), b"\xff.json"].concat());
        ok(&candor([
            OsStr::new(group),
            OsStr::new("--runtime"),
            OsStr::new("20ms"),
            OsStr::new("--threads"),
            OsStr::new("1"),
            OsStr::new("-o"),
            o.as_os_str(),
        ]));
    }
    let o = out(b"run\xff.json");
    ok(&candor([
        OsStr::new("run"),
        OsStr::new("--only"),
        OsStr::new("cpu"),
        OsStr::new("--compute-runtime"),
        OsStr::new("100ms"),
        OsStr::new("--dir"),
        odd.as_os_str(),
        OsStr::new("-o"),
        o.as_os_str(),
        OsStr::new("--quiet"),
    ]));
    let o = out(b"sweep\xff.json");
    ok(&candor([
        OsStr::new("sweep"),
        OsStr::new("--dir"),
        odd.as_os_str(),
        OsStr::new("--size"),
        OsStr::new("4M"),
        OsStr::new("--runtime"),
        OsStr::new("100ms"),
        OsStr::new("--ramp"),
        OsStr::new("0s"),
        OsStr::new("-o"),
        o.as_os_str(),
    ]));
    for f in std::fs::read_dir(&odd).unwrap() {
        let f = f.unwrap().path();
        assert_eq!(read_run(&f).status, RunStatus::Complete, "{}", f.display());
    }
    assert!(leftovers(&odd).is_empty());
}

/// A job file's test files carry the job's name (`[web-db.1]` makes
/// `.candor-job-web-db.1.0.0-PID-START-N.tmp`): after `kill -9` the next
/// candor did not take them for its own, because the name grammar wanted a
/// single lower-case word, and they stayed forever. Now removed like any.
#[test]
fn a_killed_job_file_runs_test_files_are_removed_by_the_next() {
    let dir = scratch("kill9-job");
    let d = dir.path().join("t");
    std::fs::create_dir(&d).unwrap();
    let job = put(
        dir.path(),
        "j.fio",
        format!(
            "[web-db.1]\ndirectory={}\nrw=randread\nbs=4k\nsize=16M\nruntime=30s\ntime_based=1\n",
            p(&d)
        ),
    );
    let mut victim = spawn(["disk", "--job", p(&job)]);
    let test_files = || -> Vec<PathBuf> {
        std::fs::read_dir(&d)
            .unwrap()
            .map(|e| e.unwrap().path())
            .filter(|f| p(f).contains(".candor-job-web-db.1"))
            .collect()
    };
    assert!(wait_until(Duration::from_secs(30), || !test_files().is_empty()));
    victim.kill().unwrap();
    victim.wait().unwrap();
    let left = test_files();
    assert_eq!(left.len(), 1, "{left:?}");
    let mut args = vec!["disk", "--dir", p(&d)];
    args.extend(TINY_DISK);
    let next = candor(&args);
    ok(&next);
    let line = format!("removed {}", left[0].display());
    assert!(next.stderr.contains(&line), "{line}: {}", next.stderr);
    assert!(test_files().is_empty());
}

/// A small VPS: the quick battery inside a 256 MiB memory cgroup (v1, no
/// swap) ends complete. STREAM sized its three arrays from MemAvailable
/// alone (4x the guest's L3: 3 x 128 MiB here) and was killed by the OOM
/// killer; now every size that follows memory asks the cgroup too, and the
/// cut arrays carry the note that says the figure may include cache.
#[test]
fn the_quick_battery_completes_in_256_mib() {
    let dir = scratch("small-vps");
    let d = p(dir.path());
    let group =
        Path::new("/sys/fs/cgroup/memory").join(format!("candor-small-{}", std::process::id()));
    std::fs::create_dir(&group).unwrap();
    std::fs::write(
        group.join("memory.limit_in_bytes"),
        (256u64 << 20).to_string(),
    )
    .unwrap();
    let run = dir.path().join("r.json");
    let script = format!(
        "echo $$ > {}/cgroup.procs && exec {} run --preset quick --dir {d} --runtime 500ms --ramp 200ms --pause 0s --quiet -o {}",
        group.display(),
        bin(),
        p(&run)
    );
    let o: Outcome = command("sh").args(["-c", &script]).output().unwrap().into();
    let peak = std::fs::read_to_string(group.join("memory.max_usage_in_bytes")).unwrap_or_default();
    let _ = std::fs::remove_dir(&group);
    assert_eq!(o.code, 0, "peak {peak}: {}", o.stderr);
    let run: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&run).unwrap()).unwrap();
    assert_eq!(run["status"], "complete");
    let stream: Vec<&serde_json::Value> = run["measurements"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|m| {
            m["spec"]["test"]
                .as_str()
                .is_some_and(|t| t.starts_with("stream"))
        })
        .collect();
    assert!(!stream.is_empty());
    assert!(
        stream
            .iter()
            .all(|m| m.to_string().contains("arrays cut to")),
        "{stream:?}"
    );
}

/// Buffers that cannot fit (in the machine, or in a memory cgroup's limit)
/// are refused before any file is written; so are runtimes too short to
/// measure and output names too long to write.
#[test]
fn pre_flight_refuses_before_anything_is_written() {
    let dir = scratch("preflight");
    let d = p(dir.path());
    let o = candor([
        "disk",
        "--dir",
        d,
        "--bs",
        "256M",
        "--iodepth",
        "4096",
        "--numjobs",
        "1024",
        "--size",
        "1T",
    ]);
    refused(&o, 2, "of I/O buffers");
    // Under a 256 MiB memory cgroup, 8 x 64 MiB does not fit either.
    let group =
        Path::new("/sys/fs/cgroup/memory").join(format!("candor-faults-{}", std::process::id()));
    std::fs::create_dir(&group).unwrap();
    std::fs::write(
        group.join("memory.limit_in_bytes"),
        (256u64 << 20).to_string(),
    )
    .unwrap();
    let script = format!(
        "echo $$ > {}/cgroup.procs && exec {} disk --dir {d} --bs 64M --iodepth 8 --size 1G",
        group.display(),
        bin()
    );
    let o: Outcome = command("sh").args(["-c", &script]).output().unwrap().into();
    let _ = std::fs::remove_dir(&group);
    refused(&o, 2, "of memory is available");

    for args in [
        vec!["disk", "--dir", d, "--runtime", "1ns"],
        vec!["sweep", "--dir", d, "--runtime", "1ns"],
        vec!["run", "--dir", d, "--runtime", "1ns"],
    ] {
        let o = candor(&args);
        assert_eq!(o.code, 2, "{args:?}: {}", o.stderr);
        assert_eq!(o.stderr.lines().count(), 1, "{}", o.stderr);
        assert!(o.stderr.contains("--runtime"), "{}", o.stderr);
    }
    let long = dir.path().join("x".repeat(300));
    let started = Instant::now();
    refused(
        &candor(["disk", "--dir", d, "-o", p(&long)]),
        2,
        "bytes long",
    );
    assert!(
        started.elapsed() < Duration::from_secs(5),
        "refused before measuring"
    );
    assert!(
        std::fs::read_dir(dir.path()).unwrap().next().is_none(),
        "nothing written"
    );
}

// ------------------------------------------------------------ hostile files

/// A FIFO, /dev/zero, a directory or a huge file as input: one line, exit 2,
/// at once (nothing waits for a writer or reads until memory runs out).
#[test]
fn hostile_inputs_are_refused_at_once() {
    let dir = scratch("hostile");
    let d = dir.path();
    let fifo = d.join("fifo.json");
    mkfifo(&fifo);
    let huge = d.join("huge.json");
    std::fs::File::create(&huge)
        .unwrap()
        .set_len(129 << 20)
        .unwrap();
    let good = a_run(d, "good.json");
    for (input, why) in [
        (p(&fifo), "a FIFO (named pipe), not a regular file"),
        ("/dev/zero", "a character device, not a regular file"),
        (p(d), "a directory, not a regular file"),
        (p(&huge), "129 MiB is more than the 128 MiB candor reads"),
    ] {
        for args in [
            vec!["report", input],
            vec!["compare", p(&good), input],
            vec!["analyze", input],
            vec!["import", input],
        ] {
            let started = Instant::now();
            let o = candor(&args);
            refused(&o, 2, why);
            assert!(o.stderr.contains(input), "names the file: {}", o.stderr);
            assert!(
                started.elapsed() < Duration::from_secs(5),
                "{args:?} waited"
            );
        }
    }
}

/// candor under a time and address-space bound (`timeout`, `ulimit -v`),
/// so that an older candor that hangs or eats memory fails the test
/// instead of the machine.
fn bounded(args: &[&str], secs: u32) -> Outcome {
    through_sh(
        &format!("ulimit -v 4194304 && exec timeout -s KILL {secs}"),
        args,
    )
}

/// `sh -c "PREFIX candor ARGS"`: candor started by a shell that first sets
/// something up (a limit, a cgroup) and then execs it.
fn through_sh(prefix: &str, args: &[&str]) -> Outcome {
    let quoted: Vec<String> = args.iter().map(|a| format!("'{a}'")).collect();
    let script = format!("{prefix} '{}' {}", bin(), quoted.join(" "));
    command("sh").args(["-c", &script]).output().unwrap().into()
}

/// Job files and their includes are read like every other input: a FIFO as
/// the job file or an `include` hung and ignored the first signal;
/// `include /dev/zero` took all memory; a 5 MB job file was read; includes
/// that fan out (each file includes the next eight times, fourteen deep)
/// ran for minutes; 16,000 sections in two phases took 37 s and 4 GB to
/// `--parse-only`. Now each is one line, exit 2, at once; more jobs than
/// fio's 4,096 (clones counted) are refused as fio refuses them.
#[test]
fn job_files_and_includes_go_through_the_one_reader() {
    let dir = scratch("jobfile-input");
    let d = dir.path();
    let fifo = d.join("fifo.fio");
    mkfifo(&fifo);
    let job = |name: &str, text: &str| p(&put(d, name, text)).to_string();
    let fifo_include = job(
        "fifo-inc.fio",
        &format!("[a]\nrw=read\nsize=1m\ninclude {}\n", p(&fifo)),
    );
    let zero_include = job("zero-inc.fio", "[a]\nrw=read\nsize=1m\ninclude /dev/zero\n");
    let big = job("big.fio", &"#".repeat(5 << 20));
    for i in 0..14 {
        job(
            &format!("f{i}.fio"),
            &format!("include f{}.fio\n", i + 1).repeat(8),
        );
    }
    job("f14.fio", "bs=4k\n");
    let fan = job("fan.fio", "[a]\nrw=read\nsize=1m\ninclude f0.fio\n");
    let sections =
        |n: usize, prefix: &str| -> String { (0..n).map(|i| format!("[{prefix}{i}]\n")).collect() };
    let too_many = job(
        "many.fio",
        &format!("[global]\nrw=randread\nsize=1m\n{}", sections(4097, "j")),
    );
    let clones = job(
        "clones.fio",
        &format!(
            "[global]\nrw=randread\nsize=1m\nnumjobs=1024\n{}",
            sections(5, "c")
        ),
    );
    for (file, why) in [
        (
            p(&fifo),
            "fifo.fio: cannot read the job file: a FIFO (named pipe), not a regular file",
        ),
        (&fifo_include, "fifo-inc.fio:4: include "),
        (
            &zero_include,
            "zero-inc.fio:4: include /dev/zero: a character device, not a regular file",
        ),
        (&big, "5 MiB is more than the 4 MiB candor reads"),
        (&fan, "more than 65536 includes in all"),
        (&too_many, "more than 4096 job sections"),
        (
            &clones,
            "[c4]: with it the job file's jobs come to 5120, clones counted",
        ),
    ] {
        let started = Instant::now();
        let o = bounded(&["disk", "--job", file, "--parse-only", "--dir", p(d)], 20);
        refused(&o, 2, why);
        assert!(
            started.elapsed() < Duration::from_secs(10),
            "{file} took long"
        );
    }
    // fio's most jobs, in two phases of 2,048: linear in time and output
    // (a job names at most eight others).
    let phases = job(
        "phases.fio",
        &format!(
            "[global]\nrw=randread\nsize=1m\n{}[s]\nstonewall\n{}",
            sections(2048, "a"),
            sections(2047, "b")
        ),
    );
    let o = bounded(
        &["disk", "--job", &phases, "--parse-only", "--dir", p(d)],
        60,
    );
    ok(&o);
    assert!(o.stdout.len() < 4096 * 1024, "{} bytes", o.stdout.len());
    assert!(o
        .stdout
        .contains("starts when a0, a1, a2, a3, a4, a5, a6, a7, ... (and 2040 more) ended"));
}

/// fio output whose figures are wrong: one line naming the file, the job
/// and the field, exit 2, and no Run written.
#[test]
fn imported_figures_are_checked() {
    let dir = scratch("import");
    let d = dir.path();
    let base = fio_output();
    let with = |edit: &dyn Fn(&mut serde_json::Value)| {
        let mut v = base.clone();
        edit(&mut v);
        v
    };
    let bins = |v: &mut serde_json::Value| {
        let clat = &mut v["jobs"][0]["read"]["clat_ns"];
        clat["bins"] = serde_json::json!({"18446744073709551615": clat["N"].clone()});
    };
    let cases: Vec<(&str, serde_json::Value, &str)> = vec![
        (
            "jobs",
            with(&|v| v["jobs"] = serde_json::json!([1, "a", null])),
            "jobs[0] is 1, not a job (an object)",
        ),
        (
            "idle",
            with(&|v| {
                v["jobs"][0]["read"]["total_ios"] = 0.into();
                v["jobs"][0]["write"]["total_ios"] = 0.into();
            }),
            "read and write hold no I/O",
        ),
        (
            "nan",
            with(&|v| v["jobs"][0]["read"]["iops"] = "NaN".into()),
            "read.iops is \"NaN\", not a number",
        ),
        (
            "negative",
            with(&|v| {
                let bw = v["jobs"][0]["read"]["bw_bytes"].as_i64().unwrap();
                v["jobs"][0]["read"]["bw_bytes"] = (-bw).into();
            }),
            "read.bw_bytes is -",
        ),
        (
            "bin",
            with(&bins),
            "read.clat_ns.bins.18446744073709551615 is a latency above the largest sample",
        ),
    ];
    for (name, json, why) in cases {
        let file = d.join(format!("{name}.json"));
        std::fs::write(&file, json.to_string()).unwrap();
        let out = d.join(format!("{name}.run.json"));
        let o = candor(["import", p(&file), "-o", p(&out)]);
        refused(&o, 2, why);
        assert!(o.stderr.contains(p(&file)), "names the file: {}", o.stderr);
        if name != "jobs" {
            assert!(
                o.stderr.contains("job 'randread-q16' (jobs[0])"),
                "names the job: {}",
                o.stderr
            );
        }
        assert!(!out.exists());
    }
}

/// A Run with a byte-order mark reads the same in report, analyze and
/// compare, and import calls it a Run, as it does without the mark.
#[test]
fn a_byte_order_mark_reads_the_same_everywhere() {
    let dir = scratch("bom");
    let d = dir.path();
    let plain = a_run(d, "plain.json");
    let marked = d.join("marked.json");
    let mut bytes = "\u{feff}".as_bytes().to_vec();
    bytes.extend(std::fs::read(&plain).unwrap());
    std::fs::write(&marked, bytes).unwrap();
    for args in [
        vec!["report"],
        vec!["analyze"],
        vec!["report", "--format", "csv"],
    ] {
        let a = candor(args.iter().copied().chain([p(&plain)]));
        let b = candor(args.iter().copied().chain([p(&marked)]));
        ok(&a);
        ok(&b);
        assert_eq!(
            a.stdout.replace("plain.json", "marked.json"),
            b.stdout,
            "{args:?}"
        );
    }
    ok(&candor(["compare", p(&plain), p(&marked)]));
    for f in [&plain, &marked] {
        refused(
            &candor(["import", p(f)]),
            2,
            "this is a candor Run, not fio output",
        );
    }
}

/// --dir through a symlink: measured where it resolves, recorded so, one
/// warning line.
#[test]
fn a_symlinked_dir_is_resolved_and_named() {
    let dir = scratch("link");
    let real = dir.path().join("real");
    std::fs::create_dir(&real).unwrap();
    let link = dir.path().join("link");
    std::os::unix::fs::symlink(&real, &link).unwrap();
    let out = dir.path().join("r.json");
    let mut args = vec!["disk", "--dir", p(&link), "-o", p(&out)];
    args.extend(TINY_DISK);
    let o = candor(&args);
    ok(&o);
    let real = std::fs::canonicalize(&real).unwrap();
    let warnings: Vec<&str> = o
        .stderr
        .lines()
        .filter(|l| l.contains("resolves to"))
        .collect();
    assert_eq!(warnings.len(), 1, "{}", o.stderr);
    assert!(warnings[0].contains(p(&real)));
    let run = read_run(&out);
    assert_eq!(run.host.storage.as_ref().unwrap().dir, p(&real));
    let file = run.disk().next().unwrap().file.as_ref().unwrap();
    assert!(file.path.starts_with(p(&real)), "{}", file.path);
    assert!(run.notes.iter().any(|n| n.contains("resolves to")));
    assert!(leftovers(&real).is_empty());
}

/// A Run whose label, notes and test names carry terminal escape sequences
/// (retitle the window, clear the screen, a C1 CSI, BEL): report, analyze,
/// compare, history add/list/show/export printed them raw; now every
/// control character but a line break or tab reaches stdout and stderr escaped.
#[test]
fn terminal_escapes_from_a_run_are_never_printed_raw() {
    let dir = scratch("escapes");
    let evil = "\u{1b}]0;owned\u{7}\u{1b}[2J\u{9b}31mred\u{7f}";
    let text = std::fs::read_to_string(a_run(dir.path(), "good.json")).unwrap();
    let mut run: serde_json::Value = serde_json::from_str(&text).unwrap();
    run["label"] = serde_json::json!(format!("web{evil}"));
    run["notes"] = serde_json::json!([format!("note{evil}")]);
    run["measurements"][0]["test"] = serde_json::json!(format!("primes{evil}"));
    let bad = put(dir.path(), "evil.json", run.to_string());
    run["label"] = serde_json::json!(format!("db{evil}"));
    let other = put(dir.path(), "evil2.json", run.to_string());
    let db = dir.path().join("h.db");
    let db_flag = ["--db", p(&db)];
    let mut cases: Vec<Vec<&str>> = vec![
        vec!["report", p(&bad)],
        vec!["report", p(&bad), "--format", "md"],
        vec!["report", p(&bad), "--format", "csv"],
        vec!["analyze", p(&bad)],
        vec!["compare", p(&bad), p(&other)],
    ];
    let add: Vec<&str> = ["history", "add", p(&bad), p(&other)]
        .into_iter()
        .chain(db_flag)
        .collect();
    cases.push(add);
    for sub in [
        vec!["history", "list"],
        vec!["history", "show", "web"],
        vec!["history", "export"],
    ] {
        cases.push(sub.into_iter().chain(db_flag).collect());
    }
    for args in &cases {
        let o = candor(args);
        assert_eq!(o.code, 0, "{args:?}: {}", o.stderr);
        for (stream, out) in [("stdout", &o.stdout), ("stderr", &o.stderr)] {
            let raw: Vec<char> = out
                .chars()
                .filter(|&c| c.is_control() && c != '\n' && c != '\t')
                .collect();
            assert!(raw.is_empty(), "{args:?}: {stream} holds {raw:?}:\n{out}");
        }
        // `history add` prints only counts; every other command shows the label.
        assert!(
            args[1] == "add" || o.stdout.contains("\\u{1b}") || o.stderr.contains("\\u{1b}"),
            "{args:?}: the escaped label is shown: {}",
            o.stdout
        );
    }
}

/// `history add` of many Runs and `history export` of a large history ran
/// to the end after the first SIGINT and exited 0; now the first signal
/// stops them: the add well before its end, exit 130, its one error line
/// naming SIGINT; export's `-o` file and temporary are never made (checked
/// when the export takes long enough here, over 400 ms, to be stopped
/// midway).
#[test]
fn the_first_signal_stops_commands_that_do_not_measure() {
    let dir = scratch("signal");
    let text = std::fs::read_to_string(a_run(dir.path(), "seed.json")).unwrap();
    let template: serde_json::Value = serde_json::from_str(&text).unwrap();
    let runs = dir.path().join("runs");
    std::fs::create_dir(&runs).unwrap();
    let mut files = Vec::new();
    for i in 0..6000u32 {
        let mut run = template.clone();
        let (day, sec) = (i / 86_400, i % 86_400);
        run["started_at"] = serde_json::json!(format!(
            "2025-{:02}-{:02}T{:02}:{:02}:{:02}Z",
            1 + day / 28,
            1 + day % 28,
            sec / 3600,
            sec / 60 % 60,
            sec % 60
        ));
        run["label"] = serde_json::json!(format!("host{}", i % 20));
        files.push(put(&runs, &format!("r{i}.json"), run.to_string()));
    }
    let db = dir.path().join("h.db");
    let stop_after = |args: Vec<String>, after: Duration| -> (Outcome, Duration) {
        let started = Instant::now();
        let child = command(&bin())
            .args(&args)
            .stdout(Stdio::null())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap();
        std::thread::sleep(after);
        // SAFETY: kill(2) on the child's pid.
        unsafe { libc::kill(child.id() as i32, libc::SIGINT) };
        let o = finish(child);
        (o, started.elapsed())
    };
    let mut add: Vec<String> = vec!["history".into(), "add".into(), "--quiet".into()];
    add.extend(files.iter().map(|f| p(f).to_string()));
    add.extend(["--db".into(), p(&db).to_string()]);
    // How long the whole add takes, into a database of its own.
    let whole = Instant::now();
    let all_db = dir.path().join("all.db");
    let mut all = add.clone();
    *all.last_mut().unwrap() = p(&all_db).to_string();
    assert_eq!(
        command(&bin()).args(&all).output().unwrap().status.code(),
        Some(0)
    );
    let whole = whole.elapsed();
    assert!(
        whole > Duration::from_millis(800),
        "the add must take a while to be stopped: {whole:?}"
    );
    let (o, took) = stop_after(add, whole / 4);
    assert_eq!(o.code, 130, "{}", o.stderr);
    assert!(took < whole * 3 / 4, "stopped after {took:?} of {whole:?}");
    assert!(error_line(&o).contains("SIGINT"), "{}", o.stderr);
    // Export of the whole history to a file: stopped, no file, no temporary.
    let out = dir.path().join("export.csv");
    let export: Vec<String> = ["history", "export", "-o", p(&out), "--db", p(&all_db)]
        .iter()
        .map(|s| s.to_string())
        .collect();
    let whole = Instant::now();
    let o = candor(&export);
    ok(&o);
    let whole = whole.elapsed();
    std::fs::remove_file(&out).unwrap();
    if whole > Duration::from_millis(400) {
        let (o, _) = stop_after(export, whole / 4);
        assert_eq!(o.code, 130, "{}", o.stderr);
        assert!(!out.exists());
        assert!(
            leftovers(dir.path()).is_empty(),
            "{:?}",
            leftovers(dir.path())
        );
    }
}

/// A history on a read-only mount: read by list, show, export, report and
/// get (it used to fail: SQLite could not make its `-shm`), also with the
/// `-wal` and `-shm` of an unfinished write beside it; an add to it is
/// refused in words, exit 2, before anything is looked at, every file as
/// it was.
#[test]
fn a_history_on_a_read_only_mount_is_read() {
    let dir = scratch("ro-history");
    let run = a_run(dir.path(), "r.json");
    let m = Mount::new("tmpfs", "tmpfs", &dir.path().join("m"), Some("size=16m"));
    let db = m.dir.join("h.db");
    ok(&candor([
        "history",
        "add",
        "--quiet",
        p(&run),
        "--db",
        p(&db),
    ]));
    // A copy taken while a writer had it open: its -wal holds a write that
    // was never checkpointed into the file.
    let open = m.dir.join("open.db");
    std::fs::copy(&db, &open).unwrap();
    sh(
        "python3",
        &[
            "-c",
            "import sqlite3,shutil,sys; c=sqlite3.connect(sys.argv[1]); \
             c.execute('PRAGMA wal_autocheckpoint=0'); \
             c.execute(\"UPDATE hosts SET cpu_model='cpu-in-wal'\"); c.commit(); \
             [shutil.copy(sys.argv[1]+s, sys.argv[2]+s) for s in ('','-wal','-shm')]",
            p(&open),
            p(&m.dir.join("wal.db")),
        ],
    );
    std::fs::remove_file(&open).unwrap();
    sh("mount", &["-o", "remount,ro", p(&m.dir)]);
    let before = snapshot(&m.dir);
    for db in [&db, &m.dir.join("wal.db")] {
        for args in [
            vec!["history", "list"],
            vec!["history", "export"],
            vec!["history", "report"],
        ] {
            let mut args = args.clone();
            args.extend(["--db", p(db)]);
            let o = candor(&args);
            ok(&o);
            // The stored Run's host (the fixture's hostname) is read back.
            assert!(o.stdout.contains("vm"), "{args:?}: {}", o.stdout);
        }
    }
    let o = candor(["history", "list", "--db", p(&m.dir.join("wal.db"))]);
    assert!(
        o.stdout.contains("cpu-in-wal"),
        "the -wal was read: {}",
        o.stdout
    );
    let o = candor(["history", "add", p(&run), "--db", p(&db)]);
    refused(&o, 2, "may not write this history");
    let o = candor([
        "history",
        "add",
        p(&run),
        "--db",
        p(&m.dir.join("new/h.db")),
    ]);
    refused(&o, 2, "may not write this history");
    assert_eq!(before, snapshot(&m.dir), "nothing changed on the mount");
}

/// An output in a directory candor may not write (a read-only mount) is the
/// same usage error, exit 2, before any work, in every command that writes
/// one (reports gave exit 1 after rendering, measurements 2); `-o` ending
/// in a slash names a directory, said at once, no lock file made (it used
/// to fail after the measurement); `run --resume` of a Run there is refused
/// before anything runs.
#[test]
fn outputs_that_cannot_be_written_are_refused_before_the_work() {
    let dir = scratch("ro-out");
    let run = a_run(dir.path(), "r.json");
    let (d, o_dir) = test_and_output_dirs(dir.path());
    let m = Mount::new("tmpfs", "tmpfs", &dir.path().join("m"), Some("size=4m"));
    // A Run to resume, and the lock file its killed writer left beside it.
    let stopped = a_run(&m.dir, "stopped.json");
    put(&m.dir, ".stopped.json.lock", "");
    sh("mount", &["-o", "remount,ro", p(&m.dir)]);
    // It failed at its first save (exit 1); now before anything runs.
    let o = candor(["run", "--resume", p(&stopped)]);
    refused(&o, 2, "cannot write in directory");
    let db = dir.path().join("h.db");
    ok(&candor([
        "history",
        "add",
        "--quiet",
        p(&run),
        "--db",
        p(&db),
    ]));
    let ro = m.dir.join("x.out");
    for out in [p(&ro), &format!("{}/", p(&o_dir.join("new")))] {
        let cases: Vec<Vec<&str>> = vec![
            vec!["report", p(&run), "-o", out],
            vec!["compare", p(&run), p(&run), "-o", out],
            vec!["import", p(&run), "-o", out],
            vec!["history", "export", "--db", p(&db), "-o", out],
            vec!["cpu", "--runtime", "200ms", "-o", out],
            vec!["disk", "--dir", p(&d), "-o", out],
            vec!["run", "--preset", "quick", "--only", "cpu", "-o", out],
        ];
        for mut args in cases {
            if args[0] == "disk" {
                args.extend(TINY_DISK);
            }
            let started = Instant::now();
            let o = candor(&args);
            let why = if out.ends_with('/') {
                "names a directory"
            } else {
                "cannot write in directory"
            };
            refused(&o, 2, why);
            assert!(started.elapsed() < Duration::from_secs(5), "{args:?}");
        }
    }
    assert!(
        std::fs::read_dir(&o_dir).unwrap().next().is_none(),
        "no lock file or temporary beside a refused output"
    );
    assert!(leftovers(&d).is_empty());
}

/// A fleet directory of `n` hosts whose Runs are hard links to one `run`
/// file, every host with the Run's own label (one name for all).
fn a_fleet_dir(d: &Path, n: usize, run: &Path) -> PathBuf {
    let fleet = d.join("fleet");
    std::fs::create_dir_all(fleet.join("runs")).unwrap();
    let hosts: Vec<serde_json::Value> = (0..n)
        .map(|i| {
            let file = format!("runs/h{i}.json");
            std::fs::hard_link(run, fleet.join(&file)).unwrap();
            serde_json::json!({
                "name": format!("h{i}"), "destination": format!("root@10.1.{}.{}", i / 250, i % 250),
                "status": "ok", "phases": [], "run_file": file, "run_status": "complete",
                "exit_status": 0,
            })
        })
        .collect();
    let summary = serde_json::json!({
        "schema": "candor.fleet/1", "controller": {"version": "0.1.0"},
        "command": ["candor", "fleet", "run"], "run_flags": [], "parallel": 1,
        "binaries": [], "started_at": "2026-12-04T00:00:00Z",
        "finished_at": "2026-12-04T01:00:00Z", "interrupted": false,
        "hosts": hosts, "notes": [],
    });
    put(&fleet, "fleet.json", summary.to_string());
    fleet
}

/// `fleet report` of thousands of hosts: hosts that share a name were
/// numbered by a search through every name before (cubic: 4,000 hosts of
/// one name took 13 s, 8,000 ran past a minute), and every pair of hosts was compared for
/// metric disagreement; now linear (a fleet of more than 64 is compared
/// with its median host). It stops at the first signal while it reads the
/// Runs (it used to read and render to the end).
#[test]
fn a_fleet_report_of_thousands_of_hosts_is_linear_and_obeys_the_first_signal() {
    let dir = scratch("fleet-report");
    let small = a_fleet_dir(
        &dir.path().join("small"),
        8000,
        &a_run(dir.path(), "cpu.json"),
    );
    let started = Instant::now();
    let o = bounded(&["fleet", "report", p(&small)], 60);
    ok(&o);
    assert!(o.stdout.contains("h7999"), "every host is listed");
    eprintln!("8,000 hosts: {:?}", started.elapsed());
    // Big Runs, to be stopped while they are read.
    let battery = dir.path().join("battery.json");
    std::fs::copy(
        Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/runs/battery.json"),
        &battery,
    )
    .unwrap();
    let big = a_fleet_dir(&dir.path().join("big"), 4000, &battery);
    let started = Instant::now();
    let (o, peak) = candor_peak(&["fleet", "report", p(&big), "--format", "csv"]);
    ok(&o);
    let whole = started.elapsed();
    // Each Run is reduced to what the comparison needs as it is read
    // (holding 4,000 battery Runs took 1.9 GB); the HTML, the largest
    // layout (tens of MB for 4,000 hosts), is made once, not copied.
    eprintln!("4,000 battery Runs: {whole:?}, {} MB", peak >> 20);
    assert!(peak < 300 << 20, "csv: peak {} MB", peak >> 20);
    let (o, peak) = candor_peak(&["fleet", "report", p(&big), "--format", "html"]);
    ok(&o);
    assert!(peak < 300 << 20, "html: peak {} MB", peak >> 20);
    if whole > Duration::from_millis(800) {
        let out = dir.path().join("report.html");
        let child = spawn([
            "fleet",
            "report",
            p(&big),
            "--format",
            "html",
            "-o",
            p(&out),
        ]);
        std::thread::sleep(whole / 4);
        let signalled = Instant::now();
        // SAFETY: kill(2) on the child's pid.
        unsafe { libc::kill(child.id() as i32, libc::SIGINT) };
        let o = finish(child);
        assert_eq!(o.code, 130, "{}", o.stderr);
        assert!(
            signalled.elapsed() < whole / 2,
            "stopped {:?} after the signal",
            signalled.elapsed()
        );
        assert!(!out.exists());
        assert!(leftovers(dir.path()).is_empty());
    }
}

// ------------------------------------------------ third pass (issue 36)

/// `-o` onto a history's `-wal`, `-shm` or `-journal` that did not exist
/// yet: exit 0 and no file (the next writer of the history made that name
/// its own and deleted the Run); now refused before any work, as onto the
/// history itself, in import and history export, every file as it was.
#[test]
fn outputs_never_land_on_a_historys_sidecars_even_before_they_exist() {
    let dir = scratch("sidecars");
    let d = dir.path();
    let run = a_run(d, "r.json");
    let fio = put(d, "fio.json", fio_output().to_string());
    let db = d.join("h.db");
    ok(&candor([
        "history",
        "add",
        "--quiet",
        p(&run),
        "--db",
        p(&db),
    ]));
    for side in ["-wal", "-shm", "-journal"] {
        let out = PathBuf::from(format!("{}{side}", p(&db)));
        assert!(!out.exists(), "{side} is not there before");
        let before = snapshot(d);
        for args in [
            vec!["import", p(&fio), "--db", p(&db), "-o", p(&out)],
            vec!["import", p(&fio), "--db", p(&db), "-o", p(&out), "--force"],
            vec!["history", "export", "--db", p(&db), "-o", p(&out)],
        ] {
            refused(&candor(&args), 2, "is also an input");
            assert!(!out.exists(), "{args:?}");
        }
        assert_eq!(before, snapshot(d), "{side}: nothing changed");
    }
}

/// `fleet run --force` into a directory holding its own inputs: the
/// history (`--db out/compare.csv`, `--db out/runs/h1.json`), the inventory
/// (`-i out/compare.txt`) and the ssh config (`-F out/compare.md`) were
/// replaced, exit 0. `fleet collect DIR --results DIR/compare.txt --force`
/// replaced its results, and without `--force` named `-o`, a flag it was
/// not given. Now each is refused before any host is contacted (exit 2, one
/// line naming the input), every file as it was.
#[test]
fn a_fleets_outputs_never_replace_its_inputs() {
    let dir = scratch("fleet-inputs");
    let out = dir.path().join("out");
    std::fs::create_dir_all(out.join("runs")).unwrap();
    let inventory = "h1 ansible_host=127.0.0.2\n";
    let inside_inv = put(&out, "compare.txt", inventory);
    let outside_inv = put(dir.path(), "hosts.ini", inventory);
    let config = put(&out, "compare.md", "Host *\n  User root\n");
    let run = a_run(dir.path(), "r.json");
    let csv_db = out.join("compare.csv");
    let host_db = out.join("runs/h1.json");
    for db in [&csv_db, &host_db] {
        ok(&candor([
            "history",
            "add",
            "--quiet",
            p(&run),
            "--db",
            p(db),
        ]));
    }
    let fleet = |extra: &[&str]| {
        let mut args = vec![
            "fleet",
            "run",
            "-o",
            p(&out),
            "--force",
            "--binary",
            env!("CARGO_BIN_EXE_candor"),
        ];
        args.extend(extra);
        candor(&args)
    };
    let before = (snapshot(&out), snapshot(&out.join("runs")));
    let cases: Vec<(Vec<&str>, &Path)> = vec![
        (vec!["-i", p(&inside_inv)], &inside_inv),
        (vec!["-i", p(&outside_inv), "-F", p(&config)], &config),
        (vec!["-i", p(&outside_inv), "--db", p(&csv_db)], &csv_db),
        (vec!["-i", p(&outside_inv), "--db", p(&host_db)], &host_db),
    ];
    for (extra, input) in cases {
        let o = fleet(&extra);
        refused(&o, 2, "is also an input");
        assert!(o.stderr.contains(p(input)), "{extra:?}: {}", o.stderr);
    }
    assert_eq!(before, (snapshot(&out), snapshot(&out.join("runs"))));

    // collect: its results file in the directory it writes.
    let collected = dir.path().join("collected");
    std::fs::create_dir_all(collected.join("runs")).unwrap();
    let results = put(&collected, "compare.json", "{}");
    for force in [true, false] {
        let mut args = vec!["fleet", "collect", p(&collected), "--results", p(&results)];
        if force {
            args.push("--force");
        }
        let o = candor(&args);
        refused(&o, 2, "is also an input");
        assert!(
            !o.stderr.contains(" -o "),
            "names no flag it was not given: {}",
            o.stderr
        );
    }
    assert_eq!(std::fs::read_to_string(&results).unwrap(), "{}");
}

/// `fleet run --parallel 40` under a pids cgroup of 16: the worker that
/// could not start panicked ("failed to spawn thread") while others had
/// taken hosts. Now every worker starts before any takes a host: one
/// line, exit 1, no host touched, and the output directory it made is
/// gone again.
#[test]
fn a_fleet_whose_workers_cannot_start_touches_no_host() {
    let dir = scratch("fleet-pids");
    let d = dir.path();
    // Forty distinct destinations (one a host is refused twice); port 9
    // is closed on them, so a host that was touched fails in its connect.
    let hosts: String = (2..42)
        .map(|i| format!("h{i} ansible_host=127.0.0.{i} ansible_port=9\n"))
        .collect();
    let inv = put(d, "hosts.ini", hosts);
    let out = d.join("out");
    let group = PidsGroup::new("fleet", 16);
    let o = group.run(&[
        "fleet",
        "run",
        "-i",
        p(&inv),
        "--inventory-reader",
        "candor",
        "--parallel",
        "40",
        "-o",
        p(&out),
        "--binary",
        env!("CARGO_BIN_EXE_candor"),
    ]);
    assert_eq!(o.code, 1, "{}", o.stderr);
    assert!(!o.stderr.contains("panicked"), "{}", o.stderr);
    let e = error_line(&o);
    assert!(
        e.contains("cannot start worker thread") && e.contains("no host was touched"),
        "{}",
        o.stderr
    );
    assert!(
        !o.stderr.contains("127.0.0.2:9"),
        "no host was contacted: {}",
        o.stderr
    );
    assert!(!out.exists(), "the directory it made is removed");
    assert!(leftovers(d).is_empty());
}

/// `cpu`, `memory`, `crypto`, `compress` and `os` with 40 threads under a
/// pids cgroup of 12: "failed to spawn thread" (a panic), then a hang that
/// ignored SIGTERM, the Run left `running` with its lock file. Now one
/// line, exit 1, the Run `failed` with the cause, no lock file left.
#[test]
fn a_compute_thread_that_cannot_start_is_an_error_not_a_hang() {
    let dir = scratch("compute-pids");
    let group = PidsGroup::new("compute", 12);
    for cmd in ["cpu", "memory", "crypto", "compress", "os"] {
        let out = dir.path().join(format!("{cmd}.json"));
        let started = Instant::now();
        let o = group.run(&[cmd, "--threads", "40", "--runtime", "300ms", "-o", p(&out)]);
        assert_eq!(o.code, 1, "{cmd}: {}", o.stderr);
        assert!(
            error_line(&o).contains("cannot start"),
            "{cmd}: {}",
            o.stderr
        );
        assert!(!o.stderr.contains("panicked"), "{cmd}: {}", o.stderr);
        assert!(started.elapsed() < Duration::from_secs(30), "{cmd}");
        let run = read_run(&out);
        assert_eq!(run.status, RunStatus::Failed, "{cmd}");
        assert!(
            !dir.path().join(format!(".{cmd}.json.lock")).exists(),
            "{cmd}: the lock is released"
        );
    }
    assert!(leftovers(dir.path()).is_empty());
    // UnixBench's eight concurrent shell scripts: "(1 copies): no count".
    let o = group.run(&[
        "unixbench",
        "--only",
        "shell8",
        "--copies",
        "1",
        "--runtime",
        "1s",
        "--iterations",
        "1",
        "--dir",
        p(dir.path()),
    ]);
    assert_eq!(o.code, 1, "{}", o.stderr);
    let line = error_line(&o);
    assert!(!line.contains("no count"), "{line}");
    // The shell's own words ("Cannot fork"), or candor's naming the limit.
    assert!(
        line.contains("fork") || line.contains("process limit"),
        "{line}"
    );
}

/// `unixbench` killed with kill -9 left `DIR/candor-unixbench-PID` (4 MB)
/// for ever. Its name now carries the start time, it is held locked while
/// in use, and the next candor in DIR removes it, one line.
#[test]
fn a_killed_unixbenchs_work_directory_is_removed_by_the_next() {
    let dir = scratch("ub-kill9");
    let d = dir.path();
    let mut victim = spawn([
        "unixbench",
        "--only",
        "fstime",
        "--copies",
        "1",
        "--runtime",
        "30s",
        "--dir",
        p(d),
    ]);
    let work = || -> Vec<PathBuf> {
        std::fs::read_dir(d)
            .unwrap()
            .flatten()
            .map(|e| e.path())
            .filter(|p| {
                p.file_name()
                    .unwrap()
                    .to_string_lossy()
                    .starts_with("candor-unixbench-")
            })
            .collect()
    };
    assert!(wait_until(Duration::from_secs(30), || !work().is_empty()));
    std::thread::sleep(Duration::from_millis(500));
    victim.kill().unwrap();
    victim.wait().unwrap();
    let left = work();
    assert_eq!(left.len(), 1, "{left:?}");
    assert!(
        p(&left[0]).contains(&format!("-{}-", victim.id())),
        "{}",
        left[0].display()
    );
    let o = candor([
        "unixbench",
        "--only",
        "fstime",
        "--copies",
        "1",
        "--runtime",
        "200ms",
        "--iterations",
        "1",
        "--dir",
        p(d),
    ]);
    ok(&o);
    let line = format!("removed {}", left[0].display());
    assert!(o.stderr.contains(&line), "{line}: {}", o.stderr);
    assert!(work().is_empty(), "{:?}", work());
}

/// 8 KiB of random bytes in the middle of a history: `history list` and
/// `export` exited 0 without a word, and `add` wrote into it. Now a command
/// that writes refuses it in one line (exit 2, the file byte for byte as
/// it was), and one that reads says, in one warning, which Runs cannot be
/// read back.
#[test]
fn a_damaged_history_is_refused_for_writes_and_named_for_reads() {
    let dir = scratch("damaged");
    let d = dir.path();
    let text = std::fs::read_to_string(a_run(d, "seed.json")).unwrap();
    let template: serde_json::Value = serde_json::from_str(&text).unwrap();
    let mut files = Vec::new();
    for i in 0..60u32 {
        let mut run = template.clone();
        run["started_at"] =
            serde_json::json!(format!("2025-01-01T00:{:02}:{:02}Z", i / 60, i % 60));
        run["label"] = serde_json::json!(format!("host{}", i % 3));
        files.push(put(d, &format!("r{i}.json"), run.to_string()));
    }
    let db = d.join("h.db");
    let mut add = vec!["history", "add", "--quiet", "--db", p(&db)];
    add.extend(files.iter().map(|f| p(f)));
    ok(&candor(&add));
    let mut bytes = std::fs::read(&db).unwrap();
    let middle = bytes.len() / 2;
    let noise: Vec<u8> = (0..8192u32)
        .map(|i| (i.wrapping_mul(2_654_435_761) >> 13) as u8)
        .collect();
    bytes[middle..middle + 8192].copy_from_slice(&noise);
    std::fs::write(&db, &bytes).unwrap();
    let damaged = std::fs::read(&db).unwrap();

    let extra = put(d, "extra.json", {
        let mut run = template.clone();
        run["started_at"] = serde_json::json!("2025-02-01T00:00:00Z");
        run.to_string()
    });
    let o = candor(["history", "add", p(&extra), "--db", p(&db)]);
    refused(&o, 2, "damaged");
    assert_eq!(std::fs::read(&db).unwrap(), damaged, "nothing written");
    // A measurement's add says so in a warning and keeps its Run.
    let fio = put(d, "fio.json", fio_output().to_string());
    let out = d.join("imported.json");
    let o = candor(["import", p(&fio), "--db", p(&db), "-o", p(&out)]);
    ok(&o);
    assert!(o.stderr.contains("damaged"), "{}", o.stderr);
    assert!(out.exists());
    assert_eq!(std::fs::read(&db).unwrap(), damaged, "nothing written");

    for args in [vec!["history", "list"], vec!["history", "export"]] {
        let mut args = args.clone();
        args.extend(["--db", p(&db)]);
        let o = candor(&args);
        assert!(
            o.stderr.contains("the history is damaged") && o.stderr.contains("unreadable"),
            "{args:?}: {}",
            o.stderr
        );
    }
}

/// Item 8 of issue 36, each a one-line refusal in words, exit 2.
#[test]
fn small_hostile_cases_are_said_in_words() {
    let dir = scratch("small");
    let d = dir.path();
    // analyze --write of one Run given twice: "another candor is writing this Run".
    let run = a_run(d, "a.json");
    let o = candor(["analyze", "--write", p(&run), p(&run)]);
    refused(&o, 2, "given twice");
    // analyze --write through a link: "Too many levels of symbolic links".
    let link = d.join("link.json");
    std::os::unix::fs::symlink(&run, &link).unwrap();
    let o = candor(["analyze", "--write", p(&link)]);
    refused(&o, 2, "is a symbolic link");
    assert!(!d.join(".link.json.lock").exists());
    // A group_vars symbolic link loop was skipped without a word (candor's
    // own reader: ansible-inventory, the default where Ansible is
    // installed, reads group_vars itself).
    let inv_dir = d.join("inv");
    std::fs::create_dir_all(inv_dir.join("group_vars")).unwrap();
    let inv = put(&inv_dir, "hosts.ini", "[web]\nw1 ansible_host=127.0.0.2\n");
    std::os::unix::fs::symlink("web.yml", inv_dir.join("group_vars/web.yml")).unwrap();
    let own = ["--inventory-reader", "candor"];
    let o = candor([
        "fleet",
        "run",
        "-i",
        p(&inv),
        own[0],
        own[1],
        "--list-hosts",
    ]);
    refused(&o, 2, "symbolic link");
    std::fs::remove_file(inv_dir.join("group_vars/web.yml")).unwrap();
    std::os::unix::fs::symlink("..", inv_dir.join("group_vars/web")).unwrap();
    let o = candor([
        "fleet",
        "run",
        "-i",
        p(&inv),
        own[0],
        own[1],
        "--list-hosts",
    ]);
    refused(&o, 2, "symbolic link loop");
    // Zero limits were accepted.
    for (flag, v) in [("--timeout-connect", "0s"), ("--timeout-run", "0")] {
        let o = candor(["fleet", "run", "root@127.0.0.2", flag, v, "--list-hosts"]);
        refused(&o, 2, "a limit of zero");
    }
    // root@h:22:33 was listed as root@[h:22:33].
    let o = candor(["fleet", "run", "root@h:22:33", "--list-hosts"]);
    refused(&o, 2, "neither host:port nor an IPv6 address");
    // An absurd usr_cpu was printed as a 300-digit number.
    let mut fio = fio_output();
    fio["jobs"][0]["usr_cpu"] = serde_json::json!(1e300);
    let file = put(d, "cpu.json", fio.to_string());
    let o = candor(["import", p(&file)]);
    refused(&o, 2, "usr_cpu is 1e300");
}

/// What a command did after SIGTERM: its outcome, the wall time until it
/// ended, and the CPU time it used meanwhile (the machine may be shared:
/// the CPU time says what candor did, whatever else ran).
struct AfterSignal {
    outcome: Outcome,
    wall: Duration,
    cpu: Duration,
}

/// CPU time (user + system) of a live process, from /proc.
fn cpu_of(pid: u32) -> Duration {
    let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).unwrap();
    let fields: Vec<&str> = stat
        .rsplit_once(')')
        .unwrap()
        .1
        .split_whitespace()
        .collect();
    let ticks: u64 = fields[11].parse::<u64>().unwrap() + fields[12].parse::<u64>().unwrap();
    // SAFETY: sysconf has no preconditions.
    let hz = unsafe { libc::sysconf(libc::_SC_CLK_TCK) } as u64;
    Duration::from_millis(ticks * 1000 / hz)
}

/// Starts candor with `args`, sends SIGTERM after `after`, and says what
/// it did then. It must still be running when the signal is sent (else the
/// input was too small to test anything).
fn stopped_by_sigterm(args: &[&str], after: Duration) -> AfterSignal {
    let mut child = command(&bin())
        .args(args)
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    std::thread::sleep(after);
    assert!(
        child.try_wait().unwrap().is_none(),
        "{args:?} ended before the signal: make its input larger"
    );
    let before = cpu_of(child.id());
    let signalled = Instant::now();
    // SAFETY: kill(2) on the child's pid.
    unsafe { libc::kill(child.id() as i32, libc::SIGTERM) };
    let mut stderr = child.stderr.take().unwrap();
    let reader = std::thread::spawn(move || {
        let mut text = String::new();
        std::io::Read::read_to_string(&mut stderr, &mut text).unwrap();
        text
    });
    let mut status = 0;
    // SAFETY: rusage is plain data that wait4 fills for our own child.
    let mut usage: libc::rusage = unsafe { std::mem::zeroed() };
    assert_eq!(
        unsafe { libc::wait4(child.id() as i32, &mut status, 0, &mut usage) },
        child.id() as i32
    );
    let wall = signalled.elapsed();
    let time = |t: libc::timeval| Duration::new(t.tv_sec as u64, t.tv_usec as u32 * 1000);
    let cpu = (time(usage.ru_utime) + time(usage.ru_stime)).saturating_sub(before);
    let code = if libc::WIFEXITED(status) {
        libc::WEXITSTATUS(status)
    } else {
        -1
    };
    AfterSignal {
        outcome: Outcome {
            code,
            stdout: String::new(),
            stderr: reader.join().unwrap(),
        },
        wall,
        cpu,
    }
}

/// The first SIGTERM was ignored by commands that only read: `import` of a
/// 122 MiB fio JSON ran 14.5 s more and wrote the Run; UnixBench import,
/// `fleet run --list-hosts` on 100,000 hosts with many patterns,
/// `--parse-only` of 4,096 jobs, `analyze` and `report` of a big Run, and
/// a wait for a locked history (`history add` waited out its 10 s,
/// `import` then exited 0). Now each stops within a second, exit 143, one
/// line, nothing written.
#[test]
fn the_first_signal_stops_long_reads_within_a_second() {
    let dir = scratch("long-reads");
    let d = dir.path();
    // fio JSON of 100 MiB: 30,000 jobs.
    let fio = fio_output();
    let job = fio["jobs"][0].clone();
    let one = job.to_string().len();
    let mut big = fio.clone();
    big["jobs"] = serde_json::Value::Array(
        (0..(100 << 20) / one + 1)
            .map(|i| {
                let mut j = job.clone();
                j["jobname"] = serde_json::json!(format!("j{i}"));
                j
            })
            .collect(),
    );
    let big_fio = put(d, "big-fio.json", big.to_string());
    drop(big);
    // A UnixBench report of 100 MiB: one section repeated.
    let report = std::fs::read_to_string(
        Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/unixbench/vm-2026-12-04-01"),
    )
    .unwrap();
    let mark =
        "------------------------------------------------------------------------\nBenchmark Run";
    let first = report.find(mark).unwrap();
    let section = &report[first..report[first + 1..].find(mark).unwrap() + first + 1];
    let big_ub = put(
        d,
        "ub-big",
        format!(
            "{}{}",
            &report[..first],
            section.repeat((100 << 20) / section.len())
        ),
    );
    // A big Run: the fio JSON imported (about 55 MB).
    let big_run = d.join("big-run.json");
    ok(&candor(["import", p(&big_fio), "-o", p(&big_run)]));
    // 100,000 hosts in 50 groups.
    let mut inventory = String::from("[every]\nh[000000:099999] ansible_host=127.0.0.2\n");
    for g in 0..50 {
        inventory.push_str(&format!(
            "[g{g}]\nh[{:06}:{:06}]\n",
            g * 2000,
            g * 2000 + 1999
        ));
    }
    let inv = put(d, "hosts.ini", inventory);
    let patterns: Vec<String> = (0..50).map(|g| format!("~h0{g}.*")).collect();
    // candor's own inventory reader, and ansible-inventory (the default
    // where Ansible is installed: it reads these 100,000 hosts for over a
    // minute, and candor waited that out after the first SIGTERM).
    let mut list_hosts = vec![
        "fleet",
        "run",
        "-i",
        p(&inv),
        "--inventory-reader",
        "candor",
        "--list-hosts",
    ];
    list_hosts.extend(patterns.iter().map(String::as_str));
    let through_ansible = vec![
        "fleet",
        "run",
        "-i",
        p(&inv),
        "--inventory-reader",
        "ansible",
        "--list-hosts",
    ];
    let out = d.join("out.json");
    let cases: Vec<Vec<&str>> = vec![
        vec!["import", p(&big_fio), "-o", p(&out)],
        vec!["analyze", p(&big_run)],
        vec!["report", p(&big_run)],
        // (`--parse-only` of 4,096 jobs is left out: on a quiet machine it
        // ends before the signal is sent, 0.7 s in, so there is nothing to stop.)
        list_hosts,
        through_ansible,
    ];
    // A 100 MiB UnixBench report is no long read any more: its bounds (more
    // sections than UnixBench writes, issue 39) refuse it first, in one line.
    let o = candor(["import", p(&big_ub), "-o", p(&out)]);
    assert_eq!(o.code, 2, "{}", o.stderr);
    assert_eq!(o.stderr.trim().lines().count(), 1, "{}", o.stderr);
    assert!(!out.exists());
    // Within a second of CPU time after the signal (and of wall time on a
    // machine of its own: 3 s allowed here for a shared one).
    for args in cases {
        let after = stopped_by_sigterm(&args, Duration::from_millis(700));
        let o = &after.outcome;
        refused(o, 143, "SIGTERM");
        assert!(
            after.cpu < Duration::from_secs(1) && after.wall < Duration::from_secs(3),
            "{:?}: {:?} CPU, {:?} wall",
            &args[..2],
            after.cpu,
            after.wall
        );
        assert!(!out.exists(), "{args:?}: nothing written");
        assert!(leftovers(d).is_empty(), "{args:?}");
    }
    // ansible-inventory was stopped with candor, not left reading.
    let reading: Vec<String> = std::fs::read_dir("/proc")
        .unwrap()
        .flatten()
        .filter_map(|e| std::fs::read(e.path().join("cmdline")).ok())
        .map(|c| String::from_utf8_lossy(&c).replace('\0', " "))
        .filter(|c| c.contains("ansible-inventory") && c.contains(p(&inv)))
        .collect();
    assert!(reading.is_empty(), "{reading:?}");

    // A history another process holds locked: the wait ends at the signal.
    let db = d.join("h.db");
    let run = a_run(d, "r.json");
    ok(&candor([
        "history",
        "add",
        "--quiet",
        p(&run),
        "--db",
        p(&db),
    ]));
    let mut holder = Command::new("python3")
        .args([
            "-c",
            "import sqlite3,sys,time; c=sqlite3.connect(sys.argv[1], isolation_level=None); \
             c.execute('BEGIN EXCLUSIVE'); print('held', flush=True); time.sleep(30)",
            p(&db),
        ])
        .stdout(Stdio::piped())
        .spawn()
        .unwrap();
    let mut line = String::new();
    std::io::BufRead::read_line(
        &mut std::io::BufReader::new(holder.stdout.as_mut().unwrap()),
        &mut line,
    )
    .unwrap();
    assert_eq!(line.trim(), "held");
    let fio_small = put(d, "fio.json", fio_output().to_string());
    let second = a_run(d, "second.json");
    for args in [
        vec!["history", "add", p(&second), "--db", p(&db)],
        vec!["import", p(&fio_small), "--db", p(&db), "-o", p(&out)],
    ] {
        let after = stopped_by_sigterm(&args, Duration::from_millis(1500));
        let o = &after.outcome;
        assert_eq!(o.code, 143, "{args:?}: {}", o.stderr);
        assert!(error_line(o).contains("SIGTERM"), "{}", o.stderr);
        assert!(
            after.wall < Duration::from_secs(1),
            "{:?}: {:?}",
            &args[..2],
            after.wall
        );
        let _ = std::fs::remove_file(&out);
    }
    holder.kill().unwrap();
    holder.wait().unwrap();
}

/// `disk --device /dev/X --size 16m` (no --job) measured a test file, exit
/// 0, as if the device had been: clap skips `requires = "job"` once a flag
/// that conflicts with --job is given. Each job-file-only flag is now
/// refused without --job, in one line, before anything is created.
#[test]
fn device_flags_without_a_job_file_are_refused() {
    let dir = scratch("device-no-job");
    let d = p(dir.path());
    for flags in [
        vec!["--device", "/dev/null"],
        vec!["--overwrite-device", "/dev/null"],
        vec!["--section", "a"],
        vec!["--ignore-unsupported"],
    ] {
        let mut args = vec!["disk", "--size", "16m", "--runtime", "1s", "--dir", d];
        args.extend(&flags);
        let o = candor(&args);
        refused(&o, 2, &format!("{} is for --job", flags[0]));
    }
    assert!(leftovers(dir.path()).is_empty());
    assert_eq!(std::fs::read_dir(dir.path()).unwrap().count(), 0);
}
