//! Every command of candor writing into a pipe whose reader has gone
//! (`candor X | head -c0`, a log shipper that died, an ssh channel that
//! closed under a fleet agent): no panic, no exit code 101, no "panicked"
//! text, whether it is stdout or stderr that went away. The list of
//! commands is read from candor's own help, so a command added later
//! without a row here fails this test.
//!
//! The measuring commands run with the shortest settings they take, one at
//! a time (they share two CPUs with the rest of the suite).

use std::collections::BTreeMap;
use std::os::fd::{FromRawFd, OwnedFd};
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

fn candor() -> Command {
    let mut c = Command::new(env!("CARGO_BIN_EXE_candor"));
    c.env("CANDOR_NO_HISTORY", "1").env_remove("NO_COLOR");
    c
}

/// A pipe whose read end is already closed: every write to the other end
/// fails with EPIPE (candor, like every Rust program, ignores SIGPIPE).
fn closed_pipe() -> Stdio {
    let mut fds = [0; 2];
    assert_eq!(unsafe { libc::pipe2(fds.as_mut_ptr(), libc::O_CLOEXEC) }, 0);
    // SAFETY: both descriptors were just made and are owned here.
    let (read, write) = unsafe { (OwnedFd::from_raw_fd(fds[0]), OwnedFd::from_raw_fd(fds[1])) };
    drop(read);
    Stdio::from(write)
}

/// The subcommands a help text lists (`Commands:` section), without `help`.
fn subcommands(args: &[&str]) -> Vec<String> {
    let o = candor().args(args).arg("--help").output().unwrap();
    let text = String::from_utf8_lossy(&o.stdout).into_owned();
    let mut names = Vec::new();
    let mut inside = false;
    for line in text.lines() {
        if line.starts_with("Commands:") {
            inside = true;
            continue;
        }
        if inside {
            if !line.starts_with("  ") {
                break;
            }
            // A name starts at column 2; a wrapped description is indented further.
            if line.as_bytes().get(2).is_some_and(|b| *b != b' ') {
                let name = line.split_whitespace().next().unwrap().to_string();
                if name != "help" {
                    names.push(name);
                }
            }
        }
    }
    assert!(!names.is_empty(), "no commands in {args:?} --help:\n{text}");
    names
}

fn fixture(name: &str) -> String {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/fixtures")
        .join(name)
        .display()
        .to_string()
}

/// The test's files: a history with two Runs, a fleet directory (one dead
/// host, made by a real `candor fleet run`), a disk directory.
struct Scene {
    dir: tempfile::TempDir,
}

impl Scene {
    fn new() -> Scene {
        let dir = tempfile::Builder::new()
            .prefix("candor-closed-pipe-")
            .tempdir_in("/var/tmp")
            .unwrap();
        let scene = Scene { dir };
        std::fs::create_dir(scene.path("disk")).unwrap();
        let db = scene.path("history.db");
        let o = candor()
            .args(["history", "add", "--quiet", "--db"])
            .arg(&db)
            .arg(fixture("runs/battery.json"))
            .arg(fixture("runs/cpu.json"))
            .output()
            .unwrap();
        assert!(o.status.success(), "{o:?}");
        // A fleet of one host nobody listens for: exit 1, a full directory.
        let o = candor()
            .args(["fleet", "run", "--quiet", "-o"])
            .arg(scene.path("fleet"))
            .arg(scene.dead_host())
            .args(["--binary", env!("CARGO_BIN_EXE_candor")])
            .output()
            .unwrap();
        assert_eq!(o.status.code(), Some(1), "{o:?}");
        // The contrib playbook's results: one host it could not reach.
        std::fs::create_dir_all(scene.path("ansible/runs")).unwrap();
        std::fs::write(
            scene.path("results.json"),
            r#"{"schema": "candor.ansible-results/1", "hosts": [{"name": "web1",
                "steps": {"connect": {"unreachable": true,
                "msg": "Failed to connect to the host via ssh: ssh: connect to host 10.0.0.7 port 22: Connection refused"}}}]}"#,
        )
        .unwrap();
        scene
    }

    /// `root@127.0.0.1:PORT` where nothing listens (a port just free).
    fn dead_host(&self) -> String {
        let port = std::net::TcpListener::bind("127.0.0.1:0")
            .unwrap()
            .local_addr()
            .unwrap()
            .port();
        format!("root@127.0.0.1:{port}")
    }

    /// The hash of a Run in the history (`history list --format json`).
    fn stored_run(&self) -> String {
        let o = candor()
            .args(["history", "list", "--format", "json", "--db"])
            .arg(self.path("history.db"))
            .output()
            .unwrap();
        let list: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
        list["runs"][0]["run"].as_str().unwrap().to_string()
    }

    fn path(&self, name: &str) -> PathBuf {
        self.dir.path().join(name)
    }

    fn s(&self, name: &str) -> String {
        self.path(name).display().to_string()
    }
}

/// Each command (as `candor --help` names it, `history X` and `fleet X`
/// for theirs) and the arguments that make it write to stdout and stderr.
fn commands(scene: &Scene) -> BTreeMap<String, Vec<String>> {
    let disk = scene.s("disk");
    let db = scene.s("history.db");
    let run = fixture("runs/battery.json");
    let v = |a: &[&str]| a.iter().map(|s| s.to_string()).collect::<Vec<String>>();
    let mut m = BTreeMap::new();
    m.insert(
        "run".into(),
        v(&[
            "run",
            "--preset",
            "quick",
            "--only",
            "cpu",
            "--passes",
            "1",
            "--compute-runtime",
            "100ms",
            "--dir",
            &disk,
            "--no-history",
        ]),
    );
    m.insert(
        "disk".into(),
        v(&[
            "disk",
            "--dir",
            &disk,
            "--size",
            "4M",
            "--runtime",
            "200ms",
            "--ramp",
            "0",
            "--no-history",
        ]),
    );
    m.insert(
        "sweep".into(),
        v(&[
            "sweep",
            "--dir",
            &disk,
            "--size",
            "4M",
            "--runtime",
            "100ms",
            "--ramp",
            "0",
            "--no-history",
        ]),
    );
    for c in ["cpu", "memory", "crypto", "compress", "os"] {
        m.insert(c.into(), v(&[c, "--runtime", "100ms", "--threads", "1"]));
    }
    m.insert(
        "unixbench".into(),
        v(&[
            "unixbench",
            "--only",
            "syscall",
            "--copies",
            "1",
            "--runtime",
            "100ms",
            "--iterations",
            "1",
            "--dir",
            &disk,
        ]),
    );
    m.insert("analyze".into(), v(&["analyze", &run]));
    m.insert("explain".into(), v(&["explain", "--list"]));
    m.insert("report".into(), v(&["report", &run, "--format", "html"]));
    m.insert(
        "compare".into(),
        v(&["compare", &run, &fixture("runs/cpu.json")]),
    );
    m.insert(
        "import".into(),
        v(&[
            "import",
            &fixture("fio/randread-iouring-q16.json"),
            "--no-history",
        ]),
    );
    m.insert(
        "history add".into(),
        v(&["history", "add", "--db", &db, &run]),
    );
    m.insert("history list".into(), v(&["history", "list", "--db", &db]));
    m.insert(
        "history show".into(),
        v(&["history", "show", "--db", &db, "golden-battery"]),
    );
    m.insert(
        "history trend".into(),
        v(&[
            "history",
            "trend",
            "--db",
            &db,
            "golden-battery",
            "--test",
            "SEQ1M Q8T1 read",
        ]),
    );
    m.insert(
        "history export".into(),
        v(&["history", "export", "--db", &db, "--format", "ndjson"]),
    );
    m.insert(
        "history report".into(),
        v(&["history", "report", "--db", &db]),
    );
    m.insert(
        "history get".into(),
        v(&["history", "get", "--db", &db, &scene.stored_run()]),
    );
    m.insert(
        "fleet run".into(),
        v(&["fleet", "run", "127.0.0.1", "web", "--list-hosts"]),
    );
    // The whole fleet run, its host down: the summary on stdout, exit 1.
    m.insert(
        "fleet run (a dead host)".into(),
        v(&[
            "fleet",
            "run",
            "--force",
            "-o",
            &scene.s("fleet2"),
            &scene.dead_host(),
            "--binary",
            env!("CARGO_BIN_EXE_candor"),
        ]),
    );
    m.insert(
        "fleet collect".into(),
        v(&[
            "fleet",
            "collect",
            &scene.s("ansible"),
            "--results",
            &scene.s("results.json"),
            "--force",
            "--no-history",
        ]),
    );
    m.insert(
        "fleet clean".into(),
        v(&["fleet", "clean", &scene.s("fleet")]),
    );
    m.insert(
        "fleet report".into(),
        v(&["fleet", "report", &scene.s("fleet"), "--format", "md"]),
    );
    m
}

/// What every command is also run as: its help and the version.
const ALWAYS: [&[&str]; 3] = [&["--help"], &["--version"], &["run", "--help"]];

#[test]
fn no_command_panics_writing_into_a_closed_pipe() {
    let scene = Scene::new();
    let table = commands(&scene);
    let mut listed: Vec<String> = Vec::new();
    for c in subcommands(&[]) {
        if c == "history" || c == "fleet" {
            listed.extend(subcommands(&[&c]).into_iter().map(|s| format!("{c} {s}")));
        } else {
            listed.push(c);
        }
    }
    let missing: Vec<&String> = listed.iter().filter(|c| !table.contains_key(*c)).collect();
    assert!(
        missing.is_empty(),
        "commands with no row in this test (add one): {missing:?}"
    );
    let mut runs: Vec<(String, Vec<String>)> = table.into_iter().collect();
    for a in ALWAYS {
        runs.push((a.join(" "), a.iter().map(|s| s.to_string()).collect()));
    }
    let mut failures = Vec::new();
    for (_, args) in &runs {
        // First with both open: the command works and writes (else the
        // closed pipe below would test nothing).
        let o = candor()
            .args(args)
            .current_dir(scene.dir.path())
            .stdin(Stdio::null())
            .output()
            .unwrap();
        // A fleet with a dead host ends 1 (after its summary).
        let expected = if args
            .iter()
            .any(|a| a.starts_with("root@127.0.0.1:") || a == "collect")
        {
            1
        } else {
            0
        };
        if o.status.code() != Some(expected) || o.stdout.is_empty() {
            failures.push(format!(
                "candor {} (pipes open): exit {:?}, {} bytes on stdout\n{}",
                args.join(" "),
                o.status.code(),
                o.stdout.len(),
                String::from_utf8_lossy(&o.stderr)
            ));
        }
        for closed in ["stdout", "stderr"] {
            let mut cmd = candor();
            cmd.args(args)
                .current_dir(scene.dir.path())
                .stdin(Stdio::null());
            if closed == "stdout" {
                cmd.stdout(closed_pipe()).stderr(Stdio::piped());
            } else {
                cmd.stdout(Stdio::null()).stderr(closed_pipe());
            }
            let o = cmd.output().unwrap();
            let err = String::from_utf8_lossy(&o.stderr);
            if o.status.code() == Some(101) || err.contains("panicked") || o.status.code().is_none()
            {
                failures.push(format!(
                    "candor {} (closed {closed}): exit {:?}, signal {:?}\n{err}",
                    args.join(" "),
                    o.status.code(),
                    std::os::unix::process::ExitStatusExt::signal(&o.status)
                ));
            }
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
    // Nothing of candor's is left in the test directory.
    let left: Vec<String> = std::fs::read_dir(scene.path("disk"))
        .unwrap()
        .flatten()
        .map(|e| e.file_name().to_string_lossy().into_owned())
        .collect();
    assert!(left.is_empty(), "{left:?}");
}
