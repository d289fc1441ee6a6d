//! `candor fleet` against real OpenSSH servers: each test host is a
//! Debian `sshd` on its own loopback address (127.0.0.2, .3, ...) with its
//! own generated host key, an authorized client key, and its own `$HOME`
//! and `$TMPDIR` (sshd's `SetEnv`), so that what candor leaves on a "host"
//! can be checked file by file. The client side uses a generated ssh
//! config (its own known_hosts, no agent, only the keys the inventory
//! names). Runs as root, as CI does; a missing tool fails the test (never
//! a skip): `.ci/run` installs openssh-server, openssh-client and
//! ansible-core. A host can say it is another architecture (a `uname`
//! shim first on its sessions' PATH); for aarch64 and armv7l its kernel
//! then runs the ARM build through qemu-user's binfmt_misc handlers
//! (qemu-user-static), which the mixed-architecture test registers and
//! removes.
//!
//! The fleet tests run one at a time (a lock): they share two CPUs, and
//! the killed-mid-run case needs the battery to take the time it says.

use std::io::Read;
use std::net::{TcpListener, TcpStream};
use std::os::unix::process::CommandExt;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Output, Stdio};
use std::sync::Mutex;
use std::time::{Duration, Instant};

static ONE_AT_A_TIME: Mutex<()> = Mutex::new(());

/// Short settings for the remote battery: a few seconds per host (a
/// runtime of 300ms per disk test follows them).
const QUICK: &[&str] = &[
    "--preset",
    "peak",
    "--only",
    "disk,cpu",
    "--passes",
    "1",
    "--ramp",
    "0",
    "--pause",
    "0",
    "--size",
    "16M",
    "--compute-runtime",
    "100ms",
    "--control-size",
    "off",
];

fn require(tool: &str, package: &str) {
    assert!(
        Path::new(tool).exists(),
        "{tool} is missing: install Debian's {package} (.ci/run does); these tests never skip"
    );
}

fn tools() {
    require("/usr/sbin/sshd", "openssh-server");
    require("/usr/bin/ssh", "openssh-client");
    require("/usr/bin/ssh-keygen", "openssh-client");
    assert_eq!(
        unsafe { libc::geteuid() },
        0,
        "the fleet tests log in as root to their own sshd instances: run them as root (CI does)"
    );
}

fn keygen(path: &Path) {
    let st = Command::new("ssh-keygen")
        .args(["-q", "-t", "ed25519", "-N", "", "-C", "candor-test", "-f"])
        .arg(path)
        .status()
        .unwrap();
    assert!(st.success());
}

/// One sshd: an address, a port, its own home and temporary directory.
struct Host {
    addr: String,
    port: u16,
    root: PathBuf,
    sshd: Child,
}

impl Host {
    fn home(&self) -> PathBuf {
        self.root.join("home")
    }

    fn tmp(&self) -> PathBuf {
        self.root.join("tmp")
    }

    /// Everything in the host's home and temporary directory (relative paths).
    fn files(&self) -> Vec<String> {
        let mut out = Vec::new();
        for base in [self.home(), self.tmp()] {
            walk(&base, &base, &mut out);
        }
        out.sort();
        out
    }
}

fn walk(base: &Path, dir: &Path, out: &mut Vec<String>) {
    if let Ok(rd) = std::fs::read_dir(dir) {
        for e in rd.flatten() {
            let p = e.path();
            out.push(format!(
                "{}/{}",
                base.file_name().unwrap().to_string_lossy(),
                p.strip_prefix(base).unwrap().display()
            ));
            if p.is_dir() && !p.is_symlink() {
                walk(base, &p, out);
            }
        }
    }
}

/// The test's hosts, keys, ssh config and a disk directory for the battery.
struct Lab {
    dir: PathBuf,
    hosts: Vec<Host>,
}

impl Lab {
    fn new(name: &str, addrs: &[&str]) -> Lab {
        let hosts: Vec<(&str, Option<&str>)> = addrs.iter().map(|a| (*a, None)).collect();
        Lab::with_machines(name, &hosts)
    }

    /// Hosts whose `uname` says the given machine (`aarch64`), or this one's (None).
    fn with_machines(name: &str, addrs: &[(&str, Option<&str>)]) -> Lab {
        tools();
        let dir = PathBuf::from(format!(
            "/var/tmp/candor-fleet-test-{name}-{}",
            std::process::id()
        ));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(dir.join("disk")).unwrap();
        std::fs::create_dir_all("/run/sshd").unwrap();
        keygen(&dir.join("client"));
        keygen(&dir.join("wrong"));
        std::fs::copy(dir.join("client.pub"), dir.join("authorized_keys")).unwrap();
        std::fs::write(
            dir.join("ssh_config"),
            format!(
                "Host *\n  UserKnownHostsFile {d}/known_hosts\n  GlobalKnownHostsFile /dev/null\n  IdentitiesOnly yes\n  IdentityAgent none\n  StrictHostKeyChecking accept-new\n  LogLevel INFO\n",
                d = dir.display()
            ),
        )
        .unwrap();
        let hosts = addrs
            .iter()
            .map(|(a, machine)| start_sshd(&dir, a, *machine))
            .collect();
        Lab { dir, hosts }
    }

    fn host(&self, addr: &str) -> &Host {
        self.hosts.iter().find(|h| h.addr == addr).unwrap()
    }

    /// An INI inventory line for a host.
    fn line(&self, name: &str, h: &Host, key: &str) -> String {
        format!(
            "{name} ansible_host={} ansible_port={} ansible_user=root ansible_ssh_private_key_file={}/{key} ansible_python_interpreter=/usr/bin/python3",
            h.addr,
            h.port,
            self.dir.display()
        )
    }

    fn write(&self, name: &str, text: &str) -> PathBuf {
        let p = self.dir.join(name);
        std::fs::write(&p, text).unwrap();
        p
    }

    /// `candor fleet run ...` with a clean environment (no agent). With
    /// the static build (`CANDOR_STATIC_BINARY`, set by .ci/run) the
    /// controller is that build and pushes itself; without it the debug
    /// build is pushed with `--binary` (the test hosts share this machine's
    /// libraries).
    fn fleet(&self, args: &[&str]) -> Command {
        let mut c = match static_binary() {
            Some(s) => Command::new(s),
            None => {
                let mut c = Command::new(env!("CARGO_BIN_EXE_candor"));
                c.args(["fleet", "run", "--binary", env!("CARGO_BIN_EXE_candor")]);
                c.args(args);
                c.env_remove("SSH_AUTH_SOCK").env("CANDOR_NO_HISTORY", "1");
                return c;
            }
        };
        c.arg("fleet").arg("run").args(args);
        // Out of the user's history (an explicit --db still adds).
        c.env_remove("SSH_AUTH_SOCK").env("CANDOR_NO_HISTORY", "1");
        c
    }

    /// The binary the hosts run.
    fn binary(&self) -> String {
        static_binary().unwrap_or_else(|| env!("CARGO_BIN_EXE_candor").to_string())
    }
}

/// Every process below `pid` (from /proc's parent ids), deepest last.
fn descendants(pid: u32) -> Vec<u32> {
    let parents: Vec<(u32, u32)> = std::fs::read_dir("/proc")
        .into_iter()
        .flatten()
        .flatten()
        .filter_map(|e| {
            let child: u32 = e.file_name().to_str()?.parse().ok()?;
            let stat = std::fs::read_to_string(e.path().join("stat")).ok()?;
            // pid (comm) state ppid ...: comm may hold spaces, so read after the last ')'.
            let ppid = stat
                .rsplit(')')
                .next()?
                .split_whitespace()
                .nth(1)?
                .parse()
                .ok()?;
            Some((child, ppid))
        })
        .collect();
    let mut found = vec![pid];
    let mut i = 0;
    while i < found.len() {
        let p = found[i];
        found.extend(parents.iter().filter(|(_, pp)| *pp == p).map(|(c, _)| *c));
        i += 1;
    }
    found.remove(0);
    found
}

impl Drop for Lab {
    fn drop(&mut self) {
        for h in &mut self.hosts {
            // Each connection's sshd is a child of the listener and outlives
            // it (re-parented to init) unless it is stopped first.
            for pid in descendants(h.sshd.id()) {
                unsafe { libc::kill(pid as i32, libc::SIGKILL) };
            }
            let _ = h.sshd.kill();
            let _ = h.sshd.wait();
            // A home that a test made a small tmpfs (not a mount point: EINVAL, ignored).
            let home = std::ffi::CString::new(h.home().display().to_string()).unwrap();
            unsafe { libc::umount2(home.as_ptr(), libc::MNT_DETACH) };
        }
        let _ = std::fs::remove_dir_all(&self.dir);
    }
}

/// The static build to test with; CI must have one (.ci/run builds it).
fn static_binary() -> Option<String> {
    match std::env::var("CANDOR_STATIC_BINARY") {
        Ok(p) => {
            assert!(
                Path::new(&p).is_file(),
                "CANDOR_STATIC_BINARY={p}: no such file"
            );
            Some(p)
        }
        Err(_) => {
            assert!(
                std::env::var("CI").map(|v| v != "true").unwrap_or(true),
                "CI=true but CANDOR_STATIC_BINARY is not set: .ci/run builds it with contrib/build-static.sh"
            );
            None
        }
    }
}

fn free_port(addr: &str) -> u16 {
    TcpListener::bind((addr, 0))
        .unwrap()
        .local_addr()
        .unwrap()
        .port()
}

/// Starts a host's sshd. With `machine`, the host's sessions get a PATH
/// whose first `uname` says that machine for `-m` and `-sm` (sshd's
/// `SetEnv` comes after its own PATH, so it wins), and the rest of uname's
/// answers from the real one.
fn start_sshd(lab: &Path, addr: &str, machine: Option<&str>) -> Host {
    let root = lab.join(format!("host-{addr}"));
    std::fs::create_dir_all(root.join("home")).unwrap();
    std::fs::create_dir_all(root.join("tmp")).unwrap();
    keygen(&root.join("host_key"));
    let path = match machine {
        Some(m) => {
            let bin = root.join("bin");
            std::fs::create_dir_all(&bin).unwrap();
            let shim = bin.join("uname");
            std::fs::write(
                &shim,
                format!(
                    "#!/bin/sh\ncase \"$*\" in\n  -m) echo {m} ;;\n  -sm|-ms|\"-s -m\") echo Linux {m} ;;\n  *) exec /usr/bin/uname \"$@\" ;;\nesac\n"
                ),
            )
            .unwrap();
            use std::os::unix::fs::PermissionsExt;
            std::fs::set_permissions(&shim, std::fs::Permissions::from_mode(0o755)).unwrap();
            format!(
                " PATH={}:/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin",
                bin.display()
            )
        }
        None => String::new(),
    };
    let port = free_port(addr);
    let config = root.join("sshd_config");
    std::fs::write(
        &config,
        format!(
            "ListenAddress {addr}:{port}\nHostKey {r}/host_key\nPidFile none\nAuthorizedKeysFile {l}/authorized_keys\n\
             StrictModes no\nUsePAM no\nPermitRootLogin prohibit-password\nPasswordAuthentication no\n\
             KbdInteractiveAuthentication no\nSubsystem sftp /usr/lib/openssh/sftp-server\n\
             SetEnv HOME={r}/home TMPDIR={r}/tmp{path}\nLogLevel ERROR\nMaxStartups 100\nMaxSessions 100\n",
            r = root.display(),
            l = lab.display()
        ),
    )
    .unwrap();
    let sshd = Command::new("/usr/sbin/sshd")
        .args(["-D", "-e", "-f"])
        .arg(&config)
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let t0 = Instant::now();
    while TcpStream::connect((addr, port)).is_err() {
        assert!(
            t0.elapsed() < Duration::from_secs(10),
            "sshd on {addr}:{port} did not start"
        );
        std::thread::sleep(Duration::from_millis(20));
    }
    Host {
        addr: addr.to_string(),
        port,
        root,
        sshd,
    }
}

fn json(path: &Path) -> serde_json::Value {
    serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap()
}

fn host<'a>(fleet: &'a serde_json::Value, name: &str) -> &'a serde_json::Value {
    fleet["hosts"]
        .as_array()
        .unwrap()
        .iter()
        .find(|h| h["name"] == name)
        .unwrap_or_else(|| panic!("no host {name} in fleet.json"))
}

fn text(o: &Output) -> String {
    format!(
        "exit {:?}\nstdout:\n{}\nstderr:\n{}",
        o.status.code(),
        String::from_utf8_lossy(&o.stdout),
        String::from_utf8_lossy(&o.stderr)
    )
}

/// Test files of candor in a directory.
fn test_files(dir: &Path) -> Vec<String> {
    std::fs::read_dir(dir)
        .unwrap()
        .flatten()
        .map(|e| e.file_name().to_string_lossy().into_owned())
        .filter(|n| n.starts_with(".candor-"))
        .collect()
}

/// Three hosts one at a time (INI, the binary kept in their caches), then
/// the same three at once (YAML, the binary found in the cache): every Run,
/// fleet.json, the comparison in every format, the overlap notes, and
/// nothing left on the hosts but the cache that was asked for.
#[test]
fn fleet_all_hosts_succeed_then_cached_and_parallel() {
    let _one = ONE_AT_A_TIME.lock().unwrap_or_else(|e| e.into_inner());
    let lab = Lab::new("ok", &["127.0.0.2", "127.0.0.3", "127.0.0.4"]);
    let [a, b, c] = [&lab.hosts[0], &lab.hosts[1], &lab.hosts[2]];
    let ini = lab.write(
        "hosts.ini",
        &format!(
            "# the test fleet\n[web]\n{}\n{}\n[db]\n{}\n[prod:children]\nweb\ndb\n",
            lab.line("alpha", a, "client"),
            lab.line("bravo", b, "client"),
            lab.line("charlie", c, "client")
        ),
    );
    let disk = lab.dir.join("disk").display().to_string();
    let out1 = lab.dir.join("fleet1");
    let ssh_config = lab.dir.join("ssh_config").display().to_string();
    let mut args = vec![
        "-i",
        ini.to_str().unwrap(),
        "prod",
        "-o",
        out1.to_str().unwrap(),
        "-F",
        &ssh_config,
        "--keep-binary",
        "--",
    ];
    args.extend(QUICK);
    args.extend(["--dir", &disk, "--runtime", "300ms"]);
    let o = lab.fleet(&args).output().unwrap();
    assert!(o.status.success(), "{}", text(&o));
    let stdout = String::from_utf8_lossy(&o.stdout);
    assert!(stdout.contains("3 hosts, 3 ok; one at a time"), "{stdout}");
    let stderr = String::from_utf8_lossy(&o.stderr);
    for n in ["alpha", "bravo", "charlie"] {
        assert!(stderr.contains(&format!("candor fleet: {n}")), "{stderr}");
    }
    assert!(
        stderr.contains("run      [1/5]"),
        "progress lines: {stderr}"
    );

    let f = json(&out1.join("fleet.json"));
    assert_eq!(f["schema"], "candor.fleet/1");
    assert_eq!(f["parallel"], 1);
    assert!(f["controller"]["max_rss_bytes"].as_u64().unwrap() > 0);
    for (name, h) in [("alpha", a), ("bravo", b), ("charlie", c)] {
        let r = host(&f, name);
        assert_eq!(r["status"], "ok", "{r}");
        assert_eq!(r["upload"]["how"], "uploaded");
        assert_eq!(r["upload"]["verified_by"], "sha256");
        assert_eq!(r["run_status"], "complete");
        assert_eq!(r["system"], "Linux x86_64");
        assert!(r["overlapped_with"].as_array().unwrap().is_empty());
        // Same machine: the clock offset is within its uncertainty plus a little.
        let off = r["clock"]["offset_ns"].as_i64().unwrap().unsigned_abs();
        assert!(
            off < r["clock"]["uncertainty_ns"].as_u64().unwrap() + 50_000_000,
            "{r}"
        );
        let phases: Vec<&str> = r["phases"]
            .as_array()
            .unwrap()
            .iter()
            .map(|p| p["phase"].as_str().unwrap())
            .collect();
        assert_eq!(
            phases,
            ["connect", "clock", "upload", "run", "fetch", "cleanup"]
        );
        assert!(r["notes"]
            .to_string()
            .contains("recorded on this first connection"));
        let run = json(&out1.join(r["run_file"].as_str().unwrap()));
        assert_eq!(run["label"], name);
        assert_eq!(run["status"], "complete");
        // Only the binary, kept on purpose, is left on the host.
        let sha = f["binary"]["sha256"].as_str().unwrap();
        let cached = format!("home/.cache/candor/bin/candor-{sha}");
        assert_eq!(
            h.files(),
            [
                "home/.cache",
                "home/.cache/candor",
                "home/.cache/candor/bin",
                cached.as_str()
            ],
            "{name}"
        );
        assert_eq!(r["left_on_host"].as_array().unwrap().len(), 1);
    }
    for file in [
        "compare.txt",
        "compare.md",
        "compare.csv",
        "compare.json",
        "compare.html",
    ] {
        let t = std::fs::read_to_string(out1.join(file)).unwrap();
        for n in ["alpha", "bravo", "charlie"] {
            assert!(t.contains(n), "{file} lacks {n}");
        }
    }
    assert!(test_files(&lab.dir.join("disk")).is_empty());

    // The same hosts from a YAML inventory, all at once: the cached binary is used.
    let yaml = lab.write(
        "hosts.yml",
        &format!(
            "all:\n  vars:\n    ansible_user: root\n    ansible_ssh_private_key_file: {d}/client\n    \
             ansible_ssh_common_args: -F {d}/ssh_config\n  children:\n    web:\n      hosts:\n        \
             alpha: {{ansible_host: {}, ansible_port: {}}}\n        bravo: {{ansible_host: {}, ansible_port: {}}}\n        \
             charlie: {{ansible_host: {}, ansible_port: {}}}\n",
            a.addr,
            a.port,
            b.addr,
            b.port,
            c.addr,
            c.port,
            d = lab.dir.display()
        ),
    );
    let out2 = lab.dir.join("fleet2");
    let db = lab.dir.join("history.db");
    let mut args = vec![
        "-i",
        yaml.to_str().unwrap(),
        "-o",
        out2.to_str().unwrap(),
        "--parallel",
        "3",
        "--db",
        db.to_str().unwrap(),
        "--",
    ];
    args.extend(QUICK);
    args.extend(["--dir", &disk, "--runtime", "300ms"]);
    let o = lab.fleet(&args).output().unwrap();
    assert!(o.status.success(), "{}", text(&o));
    let f = json(&out2.join("fleet.json"));
    assert_eq!(f["parallel"], 3);
    for name in ["alpha", "bravo", "charlie"] {
        let r = host(&f, name);
        assert_eq!(r["status"], "ok", "{r}");
        assert_eq!(r["upload"]["how"], "cached");
        assert_eq!(r["upload"]["bytes_sent"], 0);
        assert_eq!(r["overlapped_with"].as_array().unwrap().len(), 2, "{r}");
        // A binary this run did not upload is not this run's to remove.
        assert!(r["left_on_host"].as_array().unwrap().is_empty(), "{r}");
    }
    let md = std::fs::read_to_string(out2.join("compare.md")).unwrap();
    assert!(
        md.contains("alpha ran at the same time as bravo, charlie"),
        "{md}"
    );
    // Each Run says whom it ran beside (for drift and compare wherever it goes),
    // and the HTML marks its figures.
    let run = json(&out2.join("runs/alpha.json"));
    assert_eq!(run["fleet"]["parallel"], 3);
    assert_eq!(
        run["fleet"]["overlapped_with"],
        serde_json::json!(["bravo", "charlie"])
    );
    let html = std::fs::read_to_string(out2.join("compare.html")).unwrap();
    assert!(html.contains("alpha<span class=\"ovl\">‡</span>"), "{html}");
    let o = Command::new(env!("CARGO_BIN_EXE_candor"))
        .arg("compare")
        .arg(out2.join("runs/alpha.json"))
        .arg(out1.join("runs/alpha.json"))
        .output()
        .unwrap();
    assert!(
        String::from_utf8_lossy(&o.stdout).contains(
            "alpha was measured while other hosts of its fleet ran (bravo, charlie, up to 3 at once)"
        ),
        "{}",
        text(&o)
    );
    for h in &lab.hosts {
        assert_eq!(h.files().len(), 4, "{:?}", h.files());
    }
    // The controller added each host's Run to its history (the hosts keep none:
    // their file counts above did not grow).
    let o = Command::new(env!("CARGO_BIN_EXE_candor"))
        .args(["history", "list", "--format", "json", "--db"])
        .arg(&db)
        .output()
        .unwrap();
    assert!(o.status.success(), "{}", text(&o));
    let listed: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    let mut hosts: Vec<&str> = listed["runs"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| r["host"].as_str().unwrap())
        .collect();
    hosts.sort_unstable();
    assert_eq!(hosts, ["alpha", "bravo", "charlie"], "{listed}");

    // fleet report renders the directory again; bad input is exit 2.
    let o = Command::new(env!("CARGO_BIN_EXE_candor"))
        .args(["fleet", "report", out2.to_str().unwrap(), "--format", "csv"])
        .output()
        .unwrap();
    assert!(o.status.success(), "{}", text(&o));
    assert!(String::from_utf8_lossy(&o.stdout).lines().count() >= 4);
    let o = Command::new(env!("CARGO_BIN_EXE_candor"))
        .args(["fleet", "report", lab.dir.join("disk").to_str().unwrap()])
        .output()
        .unwrap();
    assert_eq!(o.status.code(), Some(2), "{}", text(&o));
}

/// A good host, a refused key, a port where nothing listens, a changed
/// host key, a host whose candor is killed mid-run, and one without space
/// for the binary: one line each,
/// the good host finishes, exit 1, and nothing is left on any host.
#[test]
fn fleet_partial_failures_have_one_line_causes() {
    let _one = ONE_AT_A_TIME.lock().unwrap_or_else(|e| e.into_inner());
    let lab = Lab::new(
        "fail",
        &[
            "127.0.0.2",
            "127.0.0.3",
            "127.0.0.4",
            "127.0.0.6",
            "127.0.0.10",
            "127.0.0.11",
        ],
    );
    // nokey has a machine of its own: two names for one machine are
    // refused before anything runs (issue 40).
    let (good, wrong, changed, killed, full, nokey) = (
        lab.host("127.0.0.2"),
        lab.host("127.0.0.3"),
        lab.host("127.0.0.4"),
        lab.host("127.0.0.6"),
        lab.host("127.0.0.10"),
        lab.host("127.0.0.11"),
    );
    // A host whose home (where the binary's cache goes) has 1 MiB free.
    let st = Command::new("mount")
        .args(["-t", "tmpfs", "-o", "size=1m", "tmpfs"])
        .arg(full.home())
        .status()
        .unwrap();
    assert!(st.success(), "mounting a tmpfs needs root");
    // The changed host's key in known_hosts is another one.
    keygen(&lab.dir.join("old_host_key"));
    let old = std::fs::read_to_string(lab.dir.join("old_host_key.pub")).unwrap();
    let old: Vec<&str> = old.split_whitespace().take(2).collect();
    std::fs::write(
        lab.dir.join("known_hosts"),
        format!(
            "[{}]:{} {} {}\n",
            changed.addr, changed.port, old[0], old[1]
        ),
    )
    .unwrap();
    let closed = free_port("127.0.0.5");
    let ini = lab.write(
        "hosts.ini",
        &format!(
            "{}\n{}\n{}\n{}\nnobody ansible_host=127.0.0.5 ansible_port={closed} ansible_user=root\n{}\n{}\n\
             [all:vars]\nansible_ssh_common_args='-F {}/ssh_config'\n",
            lab.line("killed", killed, "client"),
            lab.line("good", good, "client"),
            lab.line("wrongkey", wrong, "wrong"),
            lab.line("changed", changed, "client"),
            lab.line("full", full, "client"),
            lab.line("nokey", nokey, "no-such-key"),
            lab.dir.display()
        ),
    );
    let disk = lab.dir.join("disk");
    let out = lab.dir.join("fleet");
    let disk_s = disk.display().to_string();
    let mut args = vec![
        "-i",
        ini.to_str().unwrap(),
        "-o",
        out.to_str().unwrap(),
        "--",
    ];
    args.extend(QUICK);
    args.extend(["--dir", &disk_s, "--runtime", "300ms"]);
    let child = lab
        .fleet(&args)
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    // Kill the remote candor of host "killed" once it is measuring (its test file exists).
    let home = killed.home();
    let t0 = Instant::now();
    let victim = loop {
        assert!(
            t0.elapsed() < Duration::from_secs(60),
            "the remote candor never started"
        );
        if let Some(pid) = candor_under(&home) {
            if !test_files(&disk).is_empty() {
                break pid;
            }
        }
        std::thread::sleep(Duration::from_millis(20));
    };
    std::thread::sleep(Duration::from_millis(300));
    unsafe { libc::kill(victim, libc::SIGKILL) };
    let o = child.wait_with_output().unwrap();
    assert_eq!(o.status.code(), Some(1), "{}", text(&o));
    let f = json(&out.join("fleet.json"));
    let cause = |n: &str| host(&f, n)["cause"].as_str().unwrap_or("").to_string();
    assert_eq!(host(&f, "good")["status"], "ok");
    assert_eq!(host(&f, "wrongkey")["status"], "failed");
    assert_eq!(host(&f, "wrongkey")["failed_phase"], "connect");
    assert!(
        cause("wrongkey")
            .starts_with("login refused (publickey): the key was not accepted for this user"),
        "{}",
        cause("wrongkey")
    );
    // A key file that does not exist is the cause, said first.
    assert_eq!(
        cause("nokey"),
        format!(
            "identity file {}/no-such-key not accessible (No such file or directory): ssh had no key to offer; the login was refused (publickey)",
            lab.dir.display()
        )
    );
    assert_eq!(
        cause("nobody"),
        format!("connection refused: nothing listens for ssh at root@127.0.0.5:{closed}")
    );
    // A changed key: the exact command that removes the old one, with the
    // host as known_hosts names it off port 22 ([host]:port).
    assert!(
        cause("changed").starts_with("host key changed: ")
            && cause("changed").ends_with(&format!(
                "ssh-keygen -f \"{}/known_hosts\" -R \"[{}]:{}\"",
                lab.dir.display(),
                changed.addr,
                changed.port
            )),
        "{}",
        cause("changed")
    );
    assert_eq!(host(&f, "killed")["failed_phase"], "run");
    assert!(
        cause("killed").contains("killed (SIGKILL)"),
        "{}",
        cause("killed")
    );
    assert_eq!(host(&f, "killed")["exit_status"], 137);
    assert_eq!(host(&f, "full")["failed_phase"], "upload");
    assert_eq!(
        cause("full"),
        format!(
            "upload: no space left on the host for the binary in {}/.cache/candor/bin",
            full.home().display()
        )
    );
    // The killed host's partial Run was fetched, and is not compared.
    assert_eq!(host(&f, "killed")["run_status"], "running");
    for n in ["wrongkey", "nobody", "changed", "killed", "full", "nokey"] {
        assert!(!cause(n).contains('\n'));
        assert!(
            String::from_utf8_lossy(&o.stdout).contains(&cause(n)),
            "the summary names {n}'s cause"
        );
    }
    let txt = std::fs::read_to_string(out.join("compare.txt")).unwrap();
    assert!(txt.contains("candor compare: 1 run"), "{txt}");
    // No internal value (Rust's Some(255), None, Ok(..)) in anything a person reads.
    for (what, text) in [
        ("stdout", String::from_utf8_lossy(&o.stdout).into_owned()),
        ("stderr", String::from_utf8_lossy(&o.stderr).into_owned()),
        (
            "fleet.json",
            std::fs::read_to_string(out.join("fleet.json")).unwrap(),
        ),
        (
            "compare.html",
            std::fs::read_to_string(out.join("compare.html")).unwrap(),
        ),
        (
            "compare.md",
            std::fs::read_to_string(out.join("compare.md")).unwrap(),
        ),
    ] {
        for internal in ["Some(", "None", "Ok(", "Err("] {
            assert!(!text.contains(internal), "{what} shows {internal}: {text}");
        }
    }
    // Nothing candor wrote is left: work directories, binaries, the killed run's test file.
    for h in [good, killed, changed, wrong, full, nokey] {
        assert!(h.files().is_empty(), "{}: {:?}", h.addr, h.files());
    }
    assert!(test_files(&disk).is_empty(), "{:?}", test_files(&disk));
    assert!(host(&f, "killed")["left_on_host"]
        .as_array()
        .unwrap()
        .is_empty());
}

/// The pid of a process whose executable lies under `dir`.
fn candor_under(dir: &Path) -> Option<i32> {
    for e in std::fs::read_dir("/proc").ok()?.flatten() {
        let Ok(pid) = e.file_name().to_string_lossy().parse::<i32>() else {
            continue;
        };
        if let Ok(exe) = std::fs::read_link(e.path().join("exe")) {
            if exe.starts_with(dir) {
                return Some(pid);
            }
        }
    }
    None
}

/// Ctrl-C on the controller stops the remote run: the remote candor ends,
/// its Run comes back as interrupted, its files and the binary are
/// removed, and the controller exits 130.
#[test]
fn fleet_ctrl_c_stops_remote_runs_and_cleans_up() {
    let _one = ONE_AT_A_TIME.lock().unwrap_or_else(|e| e.into_inner());
    let lab = Lab::new("int", &["127.0.0.7"]);
    let h = &lab.hosts[0];
    let out = lab.dir.join("fleet");
    let disk = lab.dir.join("disk").display().to_string();
    let target = format!("root@{}:{}", h.addr, h.port);
    let key = format!("IdentityFile={}/client", lab.dir.display());
    let cfg = lab.dir.join("ssh_config").display().to_string();
    let mut args = vec![
        target.as_str(),
        "-o",
        out.to_str().unwrap(),
        "-F",
        &cfg,
        "--ssh-option",
        &key,
        "--",
    ];
    args.extend(QUICK);
    args.extend(["--dir", &disk, "--runtime", "5s"]);
    // (A long runtime: the controller is interrupted in the middle of a measurement.)
    let mut child = lab
        .fleet(&args)
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let t0 = Instant::now();
    let remote = loop {
        assert!(
            t0.elapsed() < Duration::from_secs(60),
            "the remote candor never started"
        );
        if let Some(pid) = candor_under(&h.home()) {
            if !test_files(&lab.dir.join("disk")).is_empty() {
                break pid;
            }
        }
        std::thread::sleep(Duration::from_millis(20));
    };
    unsafe { libc::kill(child.id() as i32, libc::SIGINT) };
    let status = child.wait().unwrap();
    let mut err = String::new();
    child
        .stderr
        .take()
        .unwrap()
        .read_to_string(&mut err)
        .unwrap();
    assert_eq!(status.code(), Some(130), "{err}");
    assert!(
        !Path::new(&format!("/proc/{remote}")).exists(),
        "the remote candor still runs"
    );
    let f = json(&out.join("fleet.json"));
    assert_eq!(f["interrupted"], true);
    let r = &f["hosts"][0];
    assert_eq!(r["status"], "interrupted", "{r}");
    assert_eq!(r["run_status"], "interrupted", "{r}");
    assert!(h.files().is_empty(), "{:?}", h.files());
    assert!(test_files(&lab.dir.join("disk")).is_empty());
    // The comparison of what finished (here nothing) is written and says
    // it is partial (issue 40).
    let compare = std::fs::read_to_string(out.join("compare.txt")).unwrap();
    assert!(
        compare.contains(
            "fleet: partial: the run was interrupted; this compares the 0 of 1 hosts that finished"
        ),
        "{compare}"
    );
    assert!(err.contains("the comparison is partial"), "{err}");
    assert!(err.contains("candor fleet report"), "{err}");
}

/// A second Ctrl-C exits at once, without cleaning up: fleet.json still
/// names what stays on the host (its work directory, the binary and the
/// cache directories the upload made), and `candor fleet clean DIR`
/// reaches the host as the run did (its -F and --ssh-option are in
/// fleet.json), removes them and rewrites fleet.json with nothing left.
#[test]
fn a_second_ctrl_c_names_what_stays_and_fleet_clean_removes_it() {
    let _one = ONE_AT_A_TIME.lock().unwrap_or_else(|e| e.into_inner());
    let lab = Lab::new("int2", &["127.0.0.7"]);
    let h = &lab.hosts[0];
    let out = lab.dir.join("fleet");
    let disk = lab.dir.join("disk").display().to_string();
    let target = format!("root@{}:{}", h.addr, h.port);
    let key = format!("IdentityFile={}/client", lab.dir.display());
    let cfg = lab.dir.join("ssh_config").display().to_string();
    let mut args = vec![
        target.as_str(),
        "-o",
        out.to_str().unwrap(),
        "-F",
        &cfg,
        "--ssh-option",
        &key,
        "--",
    ];
    args.extend(QUICK);
    args.extend(["--dir", &disk, "--runtime", "5s"]);
    let child = lab
        .fleet(&args)
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let t0 = Instant::now();
    let remote = loop {
        assert!(
            t0.elapsed() < Duration::from_secs(60),
            "the remote candor never started"
        );
        if let Some(pid) = candor_under(&h.home()) {
            if !test_files(&lab.dir.join("disk")).is_empty() {
                break pid;
            }
        }
        std::thread::sleep(Duration::from_millis(20));
    };
    let controller = child.id();
    unsafe { libc::kill(controller as i32, libc::SIGINT) };
    std::thread::sleep(Duration::from_millis(50));
    unsafe { libc::kill(controller as i32, libc::SIGINT) };
    let o = child.wait_with_output().unwrap();
    let err = String::from_utf8_lossy(&o.stderr).into_owned();
    assert_eq!(o.status.code(), Some(130), "{err}");
    // The exit skips Drop: the last words remove the ssh sockets' directory.
    let sockets: Vec<_> = std::fs::read_dir(std::env::temp_dir())
        .unwrap()
        .filter_map(|e| e.ok())
        .map(|e| e.file_name().to_string_lossy().into_owned())
        .filter(|n| n.starts_with(&format!("candor-fleet-{controller}-")))
        .collect();
    assert!(sockets.is_empty(), "{sockets:?}");
    assert!(
        err.contains(&format!("candor fleet clean {}", out.display())),
        "{err}"
    );
    // The remote candor stops by itself (its channel closed) and removes its test files.
    let t0 = Instant::now();
    while Path::new(&format!("/proc/{remote}")).exists() {
        assert!(
            t0.elapsed() < Duration::from_secs(60),
            "the remote candor still runs"
        );
        std::thread::sleep(Duration::from_millis(50));
    }
    assert!(test_files(&lab.dir.join("disk")).is_empty());
    let f = json(&out.join("fleet.json"));
    assert_eq!(f["interrupted"], true);
    let r = &f["hosts"][0];
    assert_eq!(r["status"], "interrupted", "{r}");
    let left: Vec<String> = r["left_on_host"]
        .as_array()
        .unwrap()
        .iter()
        .map(|v| v.as_str().unwrap().to_string())
        .collect();
    let home = h.home().display().to_string();
    let tmp = h.tmp().display().to_string();
    assert!(
        left.iter()
            .any(|p| p.starts_with(&format!("{tmp}/candor-fleet."))),
        "{left:?}"
    );
    assert!(
        left.iter()
            .any(|p| p.starts_with(&format!("{home}/.cache/candor/bin/candor-"))),
        "{left:?}"
    );
    assert!(left.contains(&format!("{home}/.cache")), "{left:?}");
    // Everything fleet.json names is there, unless the second signal came
    // while the host's cleanup was already under way (the first signal
    // lets cleanup run; on a fast loopback it can start within 50 ms).
    if r["failed_phase"] != "cleanup" {
        for p in &left {
            assert!(Path::new(p).exists(), "{p}: {r}");
        }
    }
    // candor fleet clean removes it all, reaching the host as the run did.
    let o = Command::new(env!("CARGO_BIN_EXE_candor"))
        .args(["fleet", "clean"])
        .arg(&out)
        .env_remove("SSH_AUTH_SOCK")
        .output()
        .unwrap();
    assert!(o.status.success(), "{}", text(&o));
    assert!(
        String::from_utf8_lossy(&o.stdout).starts_with(&format!("{target}: removed ")),
        "{}",
        text(&o)
    );
    assert!(h.files().is_empty(), "{:?}", h.files());
    let f = json(&out.join("fleet.json"));
    let r = &f["hosts"][0];
    assert!(r["left_on_host"].as_array().unwrap().is_empty(), "{r}");
    assert!(
        r["notes"]
            .as_array()
            .unwrap()
            .iter()
            .any(|n| n.as_str().unwrap().starts_with("candor fleet clean (")),
        "{r}"
    );
    // Again: nothing is named any more.
    let o = Command::new(env!("CARGO_BIN_EXE_candor"))
        .args(["fleet", "clean"])
        .arg(&out)
        .output()
        .unwrap();
    assert!(o.status.success(), "{}", text(&o));
    assert!(String::from_utf8_lossy(&o.stdout).contains("names nothing left"));
}

/// Bad input is refused in one line with exit 2, before any host is contacted.
#[test]
fn fleet_bad_input_is_refused_with_exit_2() {
    let dir = tempfile::tempdir().unwrap();
    let bad_ini = dir.path().join("bad.ini");
    std::fs::write(&bad_ini, "[web]\nweb1 ansible_port\n").unwrap();
    let good_ini = dir.path().join("good.ini");
    std::fs::write(&good_ini, "[web]\nweb1 ansible_host=127.0.0.9\n").unwrap();
    let nonempty = dir.path().join("full");
    std::fs::create_dir(&nonempty).unwrap();
    std::fs::write(nonempty.join("x"), "").unwrap();
    let bin = env!("CARGO_BIN_EXE_candor");
    let s = |p: &Path| p.display().to_string();
    let cases: Vec<(Vec<String>, String)> = vec![
        (
            vec![
                "-i".into(),
                s(&bad_ini),
                "--inventory-reader".into(),
                "candor".into(),
            ],
            format!("{}:2: 'ansible_port': expected key=value", s(&bad_ini)),
        ),
        // Ansible's own words, where a source it cannot parse would only
        // be a warning to it.
        (
            vec![
                "-i".into(),
                s(&bad_ini),
                "--inventory-reader".into(),
                "ansible".into(),
            ],
            format!(
                "{}:2: Expected key=value host variable assignment, got: ansible_port",
                s(&bad_ini)
            ),
        ),
        (
            vec!["-i".into(), s(&good_ini), "--inventory-reader".into(), "yaml".into()],
            "--inventory-reader: 'yaml' is not auto, ansible or candor".into(),
        ),
        (
            vec!["-i".into(), s(&good_ini), "wbe1".into()],
            "'wbe1' is neither a host nor a group there".into(),
        ),
        (
            vec![
                "-i".into(),
                s(&good_ini),
                "--".into(),
                "--preset".into(),
                "fast".into(),
            ],
            "after --: --preset: unknown preset 'fast'".into(),
        ),
        (
            vec![
                "-i".into(),
                s(&good_ini),
                "--".into(),
                "-o".into(),
                "x".into(),
            ],
            "after --: --output is not for candor fleet".into(),
        ),
        (
            vec![
                "-i".into(),
                s(&good_ini),
                "-o".into(),
                s(&nonempty),
                "--binary".into(),
                bin.into(),
            ],
            "exists and is not empty".into(),
        ),
        (
            vec!["-i".into(), s(&good_ini), "--parallel".into(), "0".into()],
            "--parallel: '0'".into(),
        ),
        (vec!["host:99999".into()], "HOST 'host:99999'".into()),
        (vec![], "no hosts".into()),
        // candor run's flags given before the -- that starts them: a hint.
        (
            vec![
                "-i".into(),
                s(&good_ini),
                "--preset".into(),
                "quick".into(),
            ],
            "unexpected argument '--preset' found: --preset is a flag of candor run: the flags for the hosts go after --".into(),
        ),
        (
            vec!["-i".into(), s(&good_ini), "--binary".into(), s(&bad_ini)],
            "not an ELF executable".into(),
        ),
        (
            vec![
                "-i".into(),
                s(&good_ini),
                "--binary".into(),
                format!("aarch64={bin}"),
            ],
            format!("--binary aarch64={bin}: an executable for x86_64, not aarch64"),
        ),
        (
            vec![
                "-i".into(),
                s(&good_ini),
                "--binary".into(),
                "mips=/x".into(),
            ],
            "--binary mips=/x: unknown architecture 'mips'".into(),
        ),
        (
            vec![
                "-i".into(),
                s(&good_ini),
                "--binary".into(),
                bin.into(),
                "--binary".into(),
                format!("x86_64={bin}"),
            ],
            "--binary: two binaries for x86_64".into(),
        ),
    ];
    for (args, says) in cases {
        let o = Command::new(bin)
            .arg("fleet")
            .arg("run")
            .args(&args)
            .output()
            .unwrap();
        let err = String::from_utf8_lossy(&o.stderr);
        assert_eq!(o.status.code(), Some(2), "{args:?}: {err}");
        assert!(err.contains(&says), "{args:?}: {err}");
        assert_eq!(err.trim().lines().count(), 1, "{args:?}: {err}");
    }
}

/// `ssh-keygen -lf`'s fingerprint of a host's key, as ssh's `%t %f` name it.
fn host_key_of(h: &Host) -> String {
    let o = Command::new("ssh-keygen")
        .arg("-lf")
        .arg(h.root.join("host_key.pub"))
        .output()
        .unwrap();
    let line = String::from_utf8_lossy(&o.stdout).into_owned();
    let fp = line.split_whitespace().nth(1).unwrap().to_string();
    format!("ssh-ed25519 {fp}")
}

/// Issue 40: a host named in the legacy `ansible_ssh_*` variables, with
/// `group_vars/all` naming another machine, was measured on that other
/// machine and labelled with its own name. Ansible itself (its raw module,
/// reading the sshd's per-host HOME), both inventory readers and the Runs
/// must agree on where each name leads; two names for one machine are
/// refused before anything runs, or measured once with --same-destination once.
#[test]
fn every_name_reaches_its_own_machine_and_one_machine_has_one_name() {
    let _one = ONE_AT_A_TIME.lock().unwrap_or_else(|e| e.into_inner());
    let lab = Lab::new("names", &["127.0.0.2", "127.0.0.3"]);
    let [a, b] = [&lab.hosts[0], &lab.hosts[1]];
    let inv = lab.dir.join("inventory");
    std::fs::create_dir_all(inv.join("group_vars")).unwrap();
    std::fs::write(
        inv.join("group_vars/all.yml"),
        format!(
            "ansible_host: {}\nansible_port: {}\nansible_user: root\nansible_ssh_private_key_file: {}/client\n",
            a.addr,
            a.port,
            lab.dir.display()
        ),
    )
    .unwrap();
    std::fs::write(
        inv.join("hosts"),
        format!(
            "new1\nold1 ansible_ssh_host={} ansible_ssh_port={} ansible_ssh_user=root\ndup ansible_host={}\n",
            b.addr, b.port, a.addr
        ),
    )
    .unwrap();
    let ssh_config = lab.dir.join("ssh_config").display().to_string();
    let inv_s = inv.display().to_string();
    // Ansible's answer: the HOME of the sshd it reached.
    let o = Command::new("ansible")
        .args([
            "-i",
            &inv_s,
            "old1",
            "-m",
            "ansible.builtin.raw",
            "-a",
            "echo $HOME",
        ])
        .env("ANSIBLE_SSH_ARGS", format!("-F {ssh_config}"))
        .env("ANSIBLE_LOCAL_TEMP", lab.dir.join("ansible-local"))
        .env("ANSIBLE_SSH_CONTROL_PATH_DIR", lab.dir.join("cp-names"))
        .env("ANSIBLE_NOCOLOR", "1")
        .env_remove("SSH_AUTH_SOCK")
        .output()
        .unwrap();
    assert!(o.status.success(), "{}", text(&o));
    assert!(
        String::from_utf8_lossy(&o.stdout).contains(&b.home().display().to_string()),
        "Ansible reached another machine than 127.0.0.3: {}",
        text(&o)
    );
    // Both readers say what Ansible did.
    for reader in ["candor", "ansible"] {
        let o = Command::new(env!("CARGO_BIN_EXE_candor"))
            .args([
                "fleet",
                "run",
                "-i",
                &inv_s,
                "--list-hosts",
                "--inventory-reader",
                reader,
            ])
            .output()
            .unwrap();
        assert!(o.status.success(), "{reader}: {}", text(&o));
        let listed = String::from_utf8_lossy(&o.stdout);
        for (name, h) in [("new1", a), ("old1", b), ("dup", a)] {
            assert!(
                listed.contains(&format!("    {name}  root@{}:{} ", h.addr, h.port)),
                "{reader}: {name}: {listed}"
            );
        }
        let said = String::from_utf8_lossy(&o.stderr);
        let by = if reader == "candor" {
            "candor's own reader"
        } else {
            "ansible-inventory 2."
        };
        assert!(said.contains(&format!("read by {by}")), "{reader}: {said}");
    }
    // new1 and dup are one machine: refused before anything runs.
    let disk = lab.dir.join("disk").display().to_string();
    let out0 = lab.dir.join("fleet0");
    let mut args = vec![
        "-i",
        &inv_s,
        "-o",
        out0.to_str().unwrap(),
        "-F",
        &ssh_config,
        "--",
    ];
    args.extend(QUICK);
    args.extend(["--dir", &disk, "--runtime", "300ms"]);
    let o = lab.fleet(&args).output().unwrap();
    let err = String::from_utf8_lossy(&o.stderr);
    assert_eq!(o.status.code(), Some(2), "{}", text(&o));
    assert!(
        err.contains(&format!(
            "hosts 'new1' and 'dup' both reach root@{}:{} (as ssh -G resolves them)",
            a.addr, a.port
        )),
        "{err}"
    );
    assert_eq!(err.trim().lines().count(), 1, "{err}");
    assert!(!out0.exists(), "nothing is written when refused");
    assert!(a.files().is_empty() && b.files().is_empty());
    // Measured once, as the first name; each Run says where it was measured.
    let out1 = lab.dir.join("fleet1");
    let mut args = vec![
        "-i",
        &inv_s,
        "-o",
        out1.to_str().unwrap(),
        "-F",
        &ssh_config,
        "--same-destination",
        "once",
        "--",
    ];
    args.extend(QUICK);
    args.extend(["--dir", &disk, "--runtime", "300ms"]);
    let o = lab.fleet(&args).output().unwrap();
    assert!(o.status.success(), "{}", text(&o));
    let f = json(&out1.join("fleet.json"));
    let names: Vec<&str> = f["hosts"]
        .as_array()
        .unwrap()
        .iter()
        .map(|h| h["name"].as_str().unwrap())
        .collect();
    assert_eq!(names, ["new1", "old1"]);
    let notes = f["notes"].to_string();
    assert!(
        notes.contains(&format!(
            "'dup' reaches root@{}:{}, as 'new1' does: measured once, as 'new1'",
            a.addr, a.port
        )),
        "{notes}"
    );
    for (name, h) in [("new1", a), ("old1", b)] {
        let expected = serde_json::json!({
            "user": "root",
            "address": h.addr,
            "port": h.port,
            "host_key": host_key_of(h),
        });
        assert_eq!(host(&f, name)["reached"], expected, "{name}");
        let run = json(&out1.join(format!("runs/{name}.json")));
        assert_eq!(run["label"], name);
        assert_eq!(run["fleet"]["destination"], expected, "{name}");
    }
}

/// `ansible-playbook` of contrib/ansible/candor.yml from the directory it
/// is run in (a relative `candor_binary`, the output in a new directory
/// there, never beside the playbook), with Ansible's environment kept to
/// the lab (its own ssh control sockets for each play).
fn playbook(lab: &Lab, inventory: &Path, play: &str, extra: &[String]) -> Output {
    let playbook = Path::new(env!("CARGO_MANIFEST_DIR")).join("contrib/ansible/candor.yml");
    let mut c = Command::new("ansible-playbook");
    c.current_dir(&lab.dir)
        .arg("-i")
        .arg(inventory)
        .arg(&playbook)
        .args(["-e", "candor_binary=./candor"])
        .args(extra)
        .env_remove("SSH_AUTH_SOCK")
        .env("ANSIBLE_LOCAL_TEMP", lab.dir.join("ansible-local"))
        .env(
            "ANSIBLE_SSH_CONTROL_PATH_DIR",
            lab.dir.join(format!("cp-{play}")),
        )
        .env("ANSIBLE_NOCOLOR", "1")
        .env("ANSIBLE_RETRY_FILES_ENABLED", "0");
    c.output().unwrap()
}

/// The directories `candor-fleet-*` in `dir`.
fn fleet_dirs(dir: &Path) -> Vec<PathBuf> {
    let mut found: Vec<PathBuf> = std::fs::read_dir(dir)
        .unwrap()
        .flatten()
        .map(|e| e.path())
        .filter(|p| {
            p.file_name()
                .unwrap()
                .to_string_lossy()
                .starts_with("candor-fleet-")
        })
        .collect();
    found.sort();
    found
}

/// The Ansible playbook in contrib/ansible against real sshd hosts, the
/// first of three dead: the play goes on, `candor fleet collect` compares
/// the two live hosts and names the dead one (fleet.json, the summary, the
/// play's failure); a new host key is recorded with
/// candor_accept_new_host_keys and refused in words without it; `--limit`
/// compares only the hosts of that play, never a Run of an earlier one.
#[test]
fn ansible_playbook_runs_the_battery_and_compares() {
    require("/usr/bin/ansible-playbook", "ansible-core");
    let _one = ONE_AT_A_TIME.lock().unwrap_or_else(|e| e.into_inner());
    let lab = Lab::new("ansible", &["127.0.0.8", "127.0.0.9"]);
    // Ansible's own host key checking: no accept-new in this ssh config.
    let config = std::fs::read_to_string(lab.dir.join("ssh_config")).unwrap();
    std::fs::write(
        lab.dir.join("ssh_config_ansible"),
        config.replace("  StrictHostKeyChecking accept-new\n", ""),
    )
    .unwrap();
    std::fs::copy(lab.binary(), lab.dir.join("candor")).unwrap();
    let closed = free_port("127.0.0.5");
    let ini = lab.write(
        "hosts.ini",
        &format!(
            "[bench]\ndead ansible_host=127.0.0.5 ansible_port={closed} ansible_user=root\n{}\n{}\n\
             [bench:vars]\nansible_ssh_common_args='-F {}/ssh_config_ansible'\n",
            lab.line("delta", &lab.hosts[0], "client"),
            lab.line("echo", &lab.hosts[1], "client"),
            lab.dir.display()
        ),
    );
    let flags = format!(
        "candor_flags='{} --runtime 300ms --dir {}/disk'",
        QUICK.join(" "),
        lab.dir.display()
    );
    let before: Vec<String> =
        std::fs::read_dir(Path::new(env!("CARGO_MANIFEST_DIR")).join("contrib/ansible"))
            .unwrap()
            .flatten()
            .map(|e| e.file_name().to_string_lossy().into_owned())
            .collect();

    // 1. Three hosts, the first dead; new host keys accepted.
    let o = playbook(
        &lab,
        &ini,
        "1",
        &[
            "-e".into(),
            flags.clone(),
            "-e".into(),
            "candor_accept_new_host_keys=true".into(),
            "-e".into(),
            "candor_history_db=history.db".into(),
        ],
    );
    let out_text = String::from_utf8_lossy(&o.stdout).into_owned();
    // The play ends failed, naming the dead host and its cause.
    assert_eq!(o.status.code(), Some(2), "{}", text(&o));
    let dead_cause =
        format!("connection refused: nothing listens for ssh at root@127.0.0.5:{closed}");
    assert!(
        out_text.contains(&format!(
            "1 of 3 hosts gave no complete Run: dead ({dead_cause})"
        )),
        "{out_text}"
    );
    let dirs = fleet_dirs(&lab.dir);
    assert_eq!(
        dirs.len(),
        1,
        "one new output directory where the play ran: {dirs:?}"
    );
    let out = &dirs[0];
    let f = json(&out.join("fleet.json"));
    assert_eq!(f["schema"], "candor.fleet/1");
    let names: Vec<&str> = f["hosts"]
        .as_array()
        .unwrap()
        .iter()
        .map(|h| h["name"].as_str().unwrap())
        .collect();
    assert_eq!(names, ["dead", "delta", "echo"]);
    assert_eq!(host(&f, "dead")["status"], "failed");
    assert_eq!(host(&f, "dead")["failed_phase"], "connect");
    assert_eq!(host(&f, "dead")["cause"], dead_cause.as_str());
    for n in ["delta", "echo"] {
        let h = host(&f, n);
        assert_eq!(h["status"], "ok", "{h}");
        assert_eq!(h["run_file"], format!("runs/{n}.json"));
        assert!(h["left_on_host"].as_array().unwrap().is_empty());
        let run = json(&out.join(format!("runs/{n}.json")));
        assert_eq!(run["status"], "complete");
        assert_eq!(run["label"], n);
    }
    let cmp = std::fs::read_to_string(out.join("compare.txt")).unwrap();
    assert!(cmp.contains("candor compare: 2 runs"), "{cmp}");
    assert!(
        cmp.contains(&format!("dead: failed: {dead_cause}")),
        "{cmp}"
    );
    for file in ["compare.md", "compare.csv", "compare.json", "compare.html"] {
        assert!(out.join(file).is_file(), "{file}");
    }
    // Both keys were recorded on first use (accept-new).
    let known = std::fs::read_to_string(lab.dir.join("known_hosts")).unwrap();
    for h in &lab.hosts {
        assert!(
            known.contains(&format!("[{}]:{}", h.addr, h.port)),
            "{known}"
        );
    }
    // The controller's history (a relative candor_history_db) has both Runs.
    let o = Command::new(env!("CARGO_BIN_EXE_candor"))
        .args(["history", "list", "--format", "json", "--db"])
        .arg(lab.dir.join("history.db"))
        .output()
        .unwrap();
    assert!(o.status.success(), "{}", text(&o));
    let listed: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    assert_eq!(listed["runs"].as_array().unwrap().len(), 2, "{listed}");
    // Nothing beside the playbook; nothing of candor's left on the hosts
    // (Ansible keeps its own ~/.ansible there).
    let after: Vec<String> =
        std::fs::read_dir(Path::new(env!("CARGO_MANIFEST_DIR")).join("contrib/ansible"))
            .unwrap()
            .flatten()
            .map(|e| e.file_name().to_string_lossy().into_owned())
            .collect();
    assert_eq!(before, after);
    for h in &lab.hosts {
        let left: Vec<String> = h
            .files()
            .into_iter()
            .filter(|f| !f.starts_with("home/.ansible"))
            .collect();
        assert!(left.is_empty(), "{}: {left:?}", h.addr);
    }
    assert!(test_files(&lab.dir.join("disk")).is_empty());

    // 2. The same directory again: refused unless candor_force, before any host.
    let again = [
        "-e".to_string(),
        flags.clone(),
        "-e".into(),
        format!("candor_out={}", out.display()),
        "-e".into(),
        "candor_history=false".into(),
        "--limit".into(),
        "delta".into(),
    ];
    let o = playbook(&lab, &ini, "2", &again);
    assert_ne!(o.status.code(), Some(0), "{}", text(&o));
    assert!(
        String::from_utf8_lossy(&o.stdout).contains("candor_force=true"),
        "{}",
        text(&o)
    );
    assert_eq!(json(&out.join("fleet.json")), f, "fleet.json untouched");
    // With candor_force and --limit: only delta, measured now, is compared;
    // echo's Run of the first play stays a file and is not compared.
    let mut forced = again.to_vec();
    forced.extend(["-e".to_string(), "candor_force=true".into()]);
    let o = playbook(&lab, &ini, "3", &forced);
    assert!(o.status.success(), "{}", text(&o));
    let f2 = json(&out.join("fleet.json"));
    assert_eq!(f2["hosts"].as_array().unwrap().len(), 1, "{f2}");
    assert_eq!(host(&f2, "delta")["status"], "ok");
    assert_ne!(
        host(&f2, "delta")["started_at"],
        host(&f, "delta")["started_at"]
    );
    let cmp = std::fs::read_to_string(out.join("compare.txt")).unwrap();
    assert!(
        cmp.contains("candor compare: 1 run") && !cmp.contains("echo"),
        "{cmp}"
    );
    assert!(out.join("runs/echo.json").is_file());

    // 3. Ansible's own host key checking and a key not in known_hosts: the
    // host fails at connect, in words that say how the playbook accepts it.
    std::fs::remove_file(lab.dir.join("known_hosts")).unwrap();
    let strict = lab.dir.join("strict");
    let o = playbook(
        &lab,
        &ini,
        "4",
        &[
            "-e".into(),
            flags,
            "-e".into(),
            format!("candor_out={}", strict.display()),
            "-e".into(),
            "candor_history=false".into(),
            "--limit".into(),
            "echo".into(),
        ],
    );
    assert_eq!(o.status.code(), Some(2), "{}", text(&o));
    let f3 = json(&strict.join("fleet.json"));
    let c = host(&f3, "echo")["cause"].as_str().unwrap().to_string();
    assert!(
        c.starts_with("host key not trusted") && c.contains("-e candor_accept_new_host_keys=true"),
        "{c}"
    );
    assert!(std::fs::read_to_string(strict.join("compare.txt"))
        .unwrap()
        .contains("No host gave a complete Run"));
}

/// Issue 40: Ctrl-C on the playbook (SIGINT to ansible-playbook's process
/// group, as a terminal sends it) in the middle of a battery. Ansible then
/// skips its `always` section; the shell that runs the battery on the host
/// (its tty hung up through ssh -tt) stops candor and removes the
/// `candor-ansible.*` work directory. fleet.json was written before the
/// battery started and names that directory, so `candor fleet clean DIR`
/// can finish the job after any interruption (here nothing is left to do).
#[test]
fn ansible_playbook_ctrl_c_cleans_the_host_and_fleet_json_names_its_work_directory() {
    require("/usr/bin/ansible-playbook", "ansible-core");
    let _one = ONE_AT_A_TIME.lock().unwrap_or_else(|e| e.into_inner());
    let lab = Lab::new("ansint", &["127.0.0.11"]);
    let h = &lab.hosts[0];
    std::fs::copy(lab.binary(), lab.dir.join("candor")).unwrap();
    let ini = lab.write(
        "hosts.ini",
        &format!(
            "{}\n[all:vars]\nansible_ssh_common_args='-F {}/ssh_config'\n",
            lab.line("golf", h, "client"),
            lab.dir.display()
        ),
    );
    let out = lab.dir.join("out");
    let playbook = Path::new(env!("CARGO_MANIFEST_DIR")).join("contrib/ansible/candor.yml");
    let mut child = Command::new("ansible-playbook")
        .current_dir(&lab.dir)
        .arg("-i")
        .arg(&ini)
        .arg(&playbook)
        .args(["-e", "candor_binary=./candor", "-e", "candor_history=false"])
        .arg("-e")
        .arg(format!("candor_out={}", out.display()))
        .arg("-e")
        .arg(format!(
            "candor_flags='{} --runtime 5s --dir {}/disk'",
            QUICK.join(" "),
            lab.dir.display()
        ))
        .env_remove("SSH_AUTH_SOCK")
        .env("ANSIBLE_LOCAL_TEMP", lab.dir.join("ansible-local"))
        .env("ANSIBLE_SSH_CONTROL_PATH_DIR", lab.dir.join("cp"))
        .env("ANSIBLE_NOCOLOR", "1")
        .env("ANSIBLE_RETRY_FILES_ENABLED", "0")
        .process_group(0)
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let work_dirs = || -> Vec<String> {
        h.files()
            .into_iter()
            .filter(|f| f.starts_with("tmp/candor-ansible.") && f.matches('/').count() == 1)
            .collect()
    };
    let t0 = Instant::now();
    while candor_under(&h.tmp()).is_none() || test_files(&lab.dir.join("disk")).is_empty() {
        assert!(
            t0.elapsed() < Duration::from_secs(120),
            "the battery never started"
        );
        std::thread::sleep(Duration::from_millis(50));
    }
    // fleet.json already names the work directory.
    let work = work_dirs();
    assert_eq!(work.len(), 1, "{:?}", h.files());
    let work = h.root.join(&work[0]).display().to_string();
    let f = json(&out.join("fleet.json"));
    assert_eq!(f["interrupted"], true, "{f}");
    let r = host(&f, "golf");
    assert_eq!(r["status"], "interrupted", "{r}");
    assert_eq!(r["left_on_host"], serde_json::json!([work]), "{r}");
    // Ctrl-C.
    unsafe { libc::kill(-(child.id() as i32), libc::SIGINT) };
    let status = child.wait().unwrap();
    assert!(!status.success());
    let t0 = Instant::now();
    while candor_under(&h.tmp()).is_some() || !work_dirs().is_empty() {
        assert!(
            t0.elapsed() < Duration::from_secs(30),
            "the host kept its battery or work directory: {:?}",
            h.files()
        );
        std::thread::sleep(Duration::from_millis(50));
    }
    assert!(test_files(&lab.dir.join("disk")).is_empty());
    // candor fleet clean finds the directory gone and says so.
    let o = Command::new(env!("CARGO_BIN_EXE_candor"))
        .args(["fleet", "clean"])
        .arg(&out)
        .env_remove("SSH_AUTH_SOCK")
        .output()
        .unwrap();
    assert!(o.status.success(), "{}", text(&o));
    let f = json(&out.join("fleet.json"));
    assert!(
        host(&f, "golf")["left_on_host"]
            .as_array()
            .unwrap()
            .is_empty(),
        "{f}"
    );
}

/// Issue 40: two inventory names for one sshd in the playbook. By default
/// the play stops before any battery, naming both (never two Runs of one
/// machine under two names); with candor_same_destination=once the machine
/// is measured once, under the first name, and fleet.json says why the
/// second is not there.
#[test]
fn ansible_playbook_measures_one_machine_under_one_name() {
    require("/usr/bin/ansible-playbook", "ansible-core");
    let _one = ONE_AT_A_TIME.lock().unwrap_or_else(|e| e.into_inner());
    let lab = Lab::new("ansdup", &["127.0.0.12"]);
    let h = &lab.hosts[0];
    std::fs::copy(lab.binary(), lab.dir.join("candor")).unwrap();
    let ini = lab.write(
        "hosts.ini",
        &format!(
            "{}\n{}\n[all:vars]\nansible_ssh_common_args='-F {}/ssh_config'\n",
            lab.line("hotel", h, "client"),
            lab.line("india", h, "client"),
            lab.dir.display()
        ),
    );
    let flags = format!(
        "candor_flags='{} --runtime 300ms --dir {}/disk'",
        QUICK.join(" "),
        lab.dir.display()
    );
    let refused = lab.dir.join("refused");
    let o = playbook(
        &lab,
        &ini,
        "1",
        &[
            "-e".into(),
            flags.clone(),
            "-e".into(),
            format!("candor_out={}", refused.display()),
            "-e".into(),
            "candor_history=false".into(),
        ],
    );
    assert_eq!(o.status.code(), Some(2), "{}", text(&o));
    let said = String::from_utf8_lossy(&o.stdout);
    assert!(
        said.contains(&format!(
            "hosts 'hotel' and 'india' both reach root@{}:{}",
            h.addr, h.port
        )) && said.contains("-e candor_same_destination=once"),
        "{said}"
    );
    assert!(!refused.join("fleet.json").exists());
    let touched: Vec<String> = h
        .files()
        .into_iter()
        .filter(|f| !f.starts_with("home/.ansible"))
        .collect();
    assert!(touched.is_empty(), "{touched:?}");
    // Once, as the first name.
    let once = lab.dir.join("once");
    let o = playbook(
        &lab,
        &ini,
        "2",
        &[
            "-e".into(),
            flags,
            "-e".into(),
            format!("candor_out={}", once.display()),
            "-e".into(),
            "candor_history=false".into(),
            "-e".into(),
            "candor_same_destination=once".into(),
        ],
    );
    assert!(o.status.success(), "{}", text(&o));
    let f = json(&once.join("fleet.json"));
    let names: Vec<&str> = f["hosts"]
        .as_array()
        .unwrap()
        .iter()
        .map(|h| h["name"].as_str().unwrap())
        .collect();
    assert_eq!(names, ["hotel"], "{f}");
    assert_eq!(host(&f, "hotel")["status"], "ok");
    assert!(
        f["notes"].as_array().unwrap().iter().any(|n| n.as_str().unwrap()
            == format!(
                "'india' reaches root@{}:{}, as 'hotel' does: measured once, as 'hotel' (-e candor_same_destination=once)",
                h.addr, h.port
            )),
        "{f}"
    );
    assert!(!once.join("runs/india.json").exists());
    // A host whose Python Ansible cannot start: logged in, so not a
    // connection failure (issue 40), and its cause says what to set.
    let ini = lab.write(
        "python.ini",
        &format!(
            "{} ansible_python_interpreter=/usr/bin/python9\n[all:vars]\nansible_ssh_common_args='-F {}/ssh_config'\n",
            lab.line("juliet", h, "client").replace(" ansible_python_interpreter=/usr/bin/python3", ""),
            lab.dir.display()
        ),
    );
    let py = lab.dir.join("python");
    let o = playbook(
        &lab,
        &ini,
        "3",
        &[
            "-e".into(),
            format!("candor_out={}", py.display()),
            "-e".into(),
            "candor_history=false".into(),
        ],
    );
    assert_eq!(o.status.code(), Some(2), "{}", text(&o));
    let r = host(&json(&py.join("fleet.json")), "juliet").clone();
    assert_eq!(r["failed_phase"], "upload", "{r}");
    assert_eq!(
        r["cause"],
        "work directory: the host could not start Ansible's Python module (/bin/sh: 1: /usr/bin/python9: not found): set ansible_python_interpreter to a Python the host has",
        "{r}"
    );
}

/// A static ARM build to test with, from `var` (set by .ci/run:
/// `CANDOR_STATIC_BINARY_AARCH64`, `CANDOR_STATIC_BINARY_ARMV7`). CI must
/// have it; elsewhere the test may do without, saying so.
fn arm_binary(var: &str, triple: &str) -> Option<PathBuf> {
    match std::env::var(var) {
        Ok(p) => {
            assert!(Path::new(&p).is_file(), "{var}={p}: no such file");
            Some(PathBuf::from(p))
        }
        Err(_) => {
            assert!(
                std::env::var("CI").map(|v| v != "true").unwrap_or(true),
                "CI=true but {var} is not set: .ci/run builds it with contrib/build-static.sh --target {triple}"
            );
            eprintln!("{var} is not set (build it with contrib/build-static.sh --target {triple})");
            None
        }
    }
}

fn aarch64_binary() -> Option<PathBuf> {
    arm_binary("CANDOR_STATIC_BINARY_AARCH64", "aarch64-unknown-linux-gnu")
}

fn armv7_binary() -> Option<PathBuf> {
    arm_binary(
        "CANDOR_STATIC_BINARY_ARMV7",
        "armv7-unknown-linux-gnueabihf",
    )
}

/// qemu-user's binfmt_misc handler for one ARM architecture's ELF files
/// (`aarch64`, `arm`), so that the kernel runs such a binary wherever it is
/// executed, as an ARM host would. Registered from Debian's qemu-user-static
/// line when it is not there already; only an entry this test registered is
/// removed, at drop.
struct Binfmt {
    entry: PathBuf,
    registered: bool,
}

impl Binfmt {
    const DIR: &'static str = "/proc/sys/fs/binfmt_misc";

    fn register(qemu: &str) -> Binfmt {
        let conf = format!("/usr/lib/binfmt.d/qemu-{qemu}.conf");
        require(&conf, "qemu-user-static");
        require(&format!("/usr/bin/qemu-{qemu}-static"), "qemu-user-static");
        let dir = Path::new(Self::DIR);
        if !dir.join("register").exists() {
            // (Left mounted afterwards: unmounting would drop every entry, not only ours.)
            let st = Command::new("mount")
                .args(["-t", "binfmt_misc", "binfmt_misc", Self::DIR])
                .status()
                .unwrap();
            assert!(st.success(), "cannot mount binfmt_misc on {}", Self::DIR);
        }
        let entry = dir.join(format!("qemu-{qemu}"));
        if entry.exists() {
            return Binfmt {
                entry,
                registered: false,
            };
        }
        let text = std::fs::read_to_string(&conf).unwrap();
        let line = text
            .lines()
            .find(|l| l.starts_with(':'))
            .unwrap_or_else(|| panic!("{conf}: no registration line"));
        std::fs::write(dir.join("register"), line)
            .unwrap_or_else(|e| panic!("registering qemu-{qemu} with binfmt_misc: {e}"));
        assert!(entry.exists());
        Binfmt {
            entry,
            registered: true,
        }
    }
}

impl Drop for Binfmt {
    fn drop(&mut self) {
        if self.registered {
            let _ = std::fs::write(&self.entry, "-1");
        }
    }
}

/// A fleet of four hosts: one x86_64, one whose uname says aarch64 and one
/// that says armv7l (their kernel runs ARM binaries through qemu-user,
/// registered with binfmt_misc), and one that says riscv64, for which
/// candor has no build. Each of the first three gets its architecture's
/// binary, byte for byte, and gives a complete Run that names its
/// architecture and says it ran emulated where it did; the riscv64 host
/// has a one-line cause; exit 1 as for any partial failure. Without an
/// armv7 build (`CANDOR_STATIC_BINARY_ARMV7`; CI must have one) the armv7l
/// host has the cause that says how to build one instead. The controller
/// is a copy outside target/, so no build beside it is found: every binary
/// is one the test chose.
#[test]
fn fleet_of_mixed_architectures_pushes_each_host_its_binary() {
    let Some(arm64) = aarch64_binary() else {
        eprintln!("skipped: no aarch64 build");
        return;
    };
    let arm32 = armv7_binary();
    let _one = ONE_AT_A_TIME.lock().unwrap_or_else(|e| e.into_inner());
    let _binfmt = Binfmt::register("aarch64");
    let _binfmt32 = arm32.as_ref().map(|_| Binfmt::register("arm"));
    let lab = Lab::with_machines(
        "arch",
        &[
            ("127.0.0.11", None),
            ("127.0.0.12", Some("aarch64")),
            ("127.0.0.13", Some("armv7l")),
            ("127.0.0.14", Some("riscv64")),
        ],
    );
    let (x86, arm, armv7, riscv) = (&lab.hosts[0], &lab.hosts[1], &lab.hosts[2], &lab.hosts[3]);
    let x86_binary = lab.binary();
    let controller = lab.dir.join("controller/candor");
    std::fs::create_dir_all(controller.parent().unwrap()).unwrap();
    if std::fs::hard_link(&x86_binary, &controller).is_err() {
        std::fs::copy(&x86_binary, &controller).unwrap();
    }
    let ini = lab.write(
        "hosts.ini",
        &format!(
            "{}\n{}\n{}\n{}\n[all:vars]\nansible_ssh_common_args='-F {}/ssh_config'\n",
            lab.line("intel", x86, "client"),
            lab.line("graviton", arm, "client"),
            lab.line("allwinner", armv7, "client"),
            lab.line("sifive", riscv, "client"),
            lab.dir.display()
        ),
    );
    let out = lab.dir.join("fleet");
    let disk = lab.dir.join("disk").display().to_string();
    let mut cmd = Command::new(&controller);
    cmd.args(["fleet", "run", "-i", ini.to_str().unwrap()]);
    if static_binary().is_none() {
        // The debug build is dynamic: it runs on these hosts, which share this machine's libraries.
        cmd.args(["--binary", &x86_binary]);
    }
    cmd.arg("--binary")
        .arg(format!("aarch64={}", arm64.display()));
    if let Some(p) = &arm32 {
        cmd.arg("--binary").arg(format!("armv7={}", p.display()));
    }
    cmd.args(["--keep-binary", "-o"])
        .arg(&out)
        .arg("--")
        .args(QUICK)
        .args(["--dir", &disk, "--runtime", "300ms"])
        .env_remove("SSH_AUTH_SOCK")
        .env("CANDOR_NO_HISTORY", "1");
    let t0 = Instant::now();
    let o = cmd.output().unwrap();
    let took = t0.elapsed();
    assert_eq!(o.status.code(), Some(1), "{}", text(&o));
    assert!(took < Duration::from_secs(240), "took {took:?}");
    let stdout = String::from_utf8_lossy(&o.stdout);
    let ok = if arm32.is_some() { 3 } else { 2 };
    assert!(
        stdout.contains(&format!("4 hosts, {ok} ok, {} failed", 4 - ok)),
        "{stdout}"
    );

    let f = json(&out.join("fleet.json"));
    // A mixed fleet has no one binary; binaries[] has those the hosts used.
    assert!(f["binary"].is_null(), "{}", f["binary"]);
    let binaries = f["binaries"].as_array().unwrap();
    assert_eq!(binaries.len(), ok, "{binaries:?}");
    // (fleet name, host, fleet.json's arch, uname -sm, the file pushed,
    // the Run's tool.target, the Run's uname -m)
    let mut ran = vec![
        (
            "intel",
            x86,
            "x86_64",
            "Linux x86_64",
            PathBuf::from(&x86_binary),
            "x86_64-linux",
            "x86_64",
        ),
        (
            "graviton",
            arm,
            "aarch64",
            "Linux aarch64",
            arm64.clone(),
            "aarch64-linux",
            "aarch64",
        ),
    ];
    if let Some(p) = &arm32 {
        ran.push((
            "allwinner",
            armv7,
            "armv7",
            "Linux armv7l",
            p.clone(),
            "arm-linux",
            "armv7l",
        ));
    }
    for (name, h, arch, system, file, target, machine) in &ran {
        let r = host(&f, name);
        assert_eq!(r["status"], "ok", "{r}");
        assert_eq!(r["system"], *system);
        assert_eq!(r["arch"], *arch);
        let sha = r["binary_sha256"].as_str().unwrap();
        let b = binaries.iter().find(|b| b["arch"] == *arch).unwrap();
        assert_eq!(b["sha256"], sha);
        assert_eq!(
            b["is_static"],
            *arch != "x86_64" || static_binary().is_some()
        );
        // The host's cache holds exactly that architecture's file.
        let cached = h.home().join(format!(".cache/candor/bin/candor-{sha}"));
        assert!(
            std::fs::read(&cached).unwrap() == std::fs::read(file).unwrap(),
            "{name} was not given {}",
            file.display()
        );
        // Its Run was made by that binary, on that architecture.
        let run = json(&out.join(r["run_file"].as_str().unwrap()));
        assert_eq!(run["status"], "complete", "{name}");
        assert_eq!(run["label"], *name);
        assert_eq!(run["tool"]["target"], *target);
        assert_eq!(run["host"]["extra"]["arch"], *machine);
        // The ARM binaries ran under qemu-user on this x86_64 machine, and say so.
        assert_eq!(
            run["host"]["extra"]["emulated"].is_string(),
            *arch != "x86_64",
            "{name}: {}",
            run["host"]["extra"]
        );
    }
    let sha = |n: &str| host(&f, n)["binary_sha256"].as_str().unwrap().to_string();
    assert_ne!(sha("intel"), sha("graviton"));

    // An architecture candor has no build for: one line, and nothing left there.
    let r = host(&f, "sifive");
    let cause =
        "the host is 'Linux riscv64'; candor has static builds for Linux on x86_64, aarch64 and armv7 only";
    assert_eq!(r["status"], "failed", "{r}");
    assert!(r["arch"].is_null(), "{r}");
    assert_eq!(r["failed_phase"], "connect");
    assert_eq!(r["cause"], cause);
    assert!(r["binary_sha256"].is_null());
    assert!(stdout.contains(cause), "{stdout}");
    assert!(riscv.files().is_empty(), "{:?}", riscv.files());

    if arm32.is_none() {
        // A supported architecture with no build given: how to build one.
        let r = host(&f, "allwinner");
        let cause = "no static candor for armv7: build one with contrib/build-static.sh --target armv7-unknown-linux-gnueabihf or pass --binary armv7=PATH";
        assert_eq!(r["status"], "failed");
        assert_eq!(r["arch"], "armv7");
        assert_eq!(r["failed_phase"], "upload");
        assert_eq!(r["cause"], cause);
        assert!(r["binary_sha256"].is_null());
        assert!(stdout.contains(cause), "{stdout}");
        assert!(armv7.files().is_empty(), "{:?}", armv7.files());
    }

    // The fleet table and the comparison name each host's architecture.
    let row = |n: &str| {
        stdout
            .lines()
            .find(|l| l.trim_start().starts_with(n))
            .unwrap_or_else(|| panic!("no row for {n}: {stdout}"))
            .split_whitespace()
            .take(3)
            .collect::<Vec<_>>()
            .join(" ")
    };
    assert_eq!(row("intel"), "intel ok x86_64");
    assert_eq!(row("graviton"), "graviton ok aarch64");
    assert_eq!(
        row("allwinner"),
        if arm32.is_some() {
            "allwinner ok armv7"
        } else {
            "allwinner failed armv7"
        }
    );
    assert_eq!(row("sifive"), "sifive failed –");
    let md = std::fs::read_to_string(out.join("compare.md")).unwrap();
    assert!(md.contains("hosts of 3 architectures"), "{md}");
    assert!(
        md.contains(&format!(
            "fleet: aarch64: graviton (binary sha256 {}",
            &sha("graviton")[..16]
        )),
        "{md}"
    );
    assert!(md.contains("fleet: x86_64: intel (binary sha256"), "{md}");
    if arm32.is_some() {
        assert!(
            md.contains(&format!(
                "fleet: armv7: allwinner (binary sha256 {}",
                &sha("allwinner")[..16]
            )),
            "{md}"
        );
    } else {
        assert!(
            md.contains("fleet: armv7: allwinner (no binary for it)"),
            "{md}"
        );
    }
    assert!(test_files(&lab.dir.join("disk")).is_empty());
}
