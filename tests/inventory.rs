//! candor reads inventories as Ansible reads them: for a set of
//! inventories (INI, YAML, directories of sources, `group_vars/` and
//! `host_vars/` files and directories, group priorities, ranges, legacy
//! `ansible_ssh_*` names, templates, scripts) and host patterns, `candor
//! fleet run --list-hosts` must select the hosts that `ansible PATTERN
//! --list-hosts` selects, and reach each with the connection settings
//! Ansible gives it, with both of candor's readers (its own, and
//! `ansible-inventory --list`). Nothing is connected to. Needs Debian's
//! ansible-core (a missing tool fails, never skips).
//!
//! Ansible here is told ansible-core 2.19's `INVENTORY_IGNORE_EXTS` (no
//! `.ini`), the rule candor's own reader follows, so that the installed
//! 2.14 and candor read one directory alike.

use std::collections::BTreeMap;
use std::path::Path;
use std::process::Command;

fn require_ansible() {
    for tool in ["/usr/bin/ansible", "/usr/bin/ansible-inventory"] {
        assert!(
            Path::new(tool).exists(),
            "{tool} is missing: install Debian's ansible-core (.ci/run does); this test never skips"
        );
    }
}

/// ansible-core 2.19's default `INVENTORY_IGNORE_EXTS` (ansible/ansible
/// commit 3d40db1ac07ae65cdae0a72e746308f8d2b34bc1 took `.ini` out).
const IGNORE_EXTS_2_19: &str = ".pyc,.pyo,.swp,.bak,~,.rpm,.md,.txt,.rst,.orig,.cfg,.retry";

fn ansible_env<'a>(cmd: &'a mut Command, home: &Path) -> &'a mut Command {
    cmd.env("HOME", home)
        .env("ANSIBLE_INVENTORY_IGNORE", IGNORE_EXTS_2_19)
        .env("ANSIBLE_LOCAL_TEMP", home.join("tmp"))
        .env("ANSIBLE_NOCOLOR", "1")
        .env("ANSIBLE_INVENTORY_UNPARSED_WARNING", "0")
        .env_remove("ANSIBLE_CONFIG")
        .env_remove("ANSIBLE_INVENTORY")
        .env_remove("ANSIBLE_HOST_PATTERN_MISMATCH")
}

/// The hosts `ansible -i INV PATTERN --list-hosts` prints, in its order
/// (the order a play takes them in).
fn ansible_hosts(inv: &Path, pattern: &str, home: &Path) -> Vec<String> {
    let out = ansible_env(&mut Command::new("ansible"), home)
        .args(["-i"])
        .arg(inv)
        .args([pattern, "--list-hosts"])
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(
        out.status.success(),
        "ansible {pattern}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    stdout
        .lines()
        .skip_while(|l| !l.trim_start().starts_with("hosts ("))
        .skip(1)
        .map(|l| l.trim().to_string())
        .filter(|l| !l.is_empty())
        .collect()
}

/// candor's two inventory readers.
const READERS: [&str; 2] = ["candor", "ansible"];

/// What candor's `--list-hosts` prints for each host, in its order:
/// `destination ...`, with one reader (`--inventory-reader`), in
/// Ansible's environment.
fn candor_hosts(
    inv: &Path,
    pattern: &str,
    reader: &str,
    home: &Path,
) -> (Vec<(String, String)>, String) {
    let out = ansible_env(&mut Command::new(env!("CARGO_BIN_EXE_candor")), home)
        .args(["fleet", "run", "--inventory-reader", reader, "-i"])
        .arg(inv)
        .args(["--list-hosts", pattern])
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr).into_owned();
    let stdout = String::from_utf8_lossy(&out.stdout);
    if !out.status.success() {
        assert_eq!(out.status.code(), Some(2), "{pattern}: {stderr}");
        assert!(stderr.contains("no hosts selected"), "{pattern}: {stderr}");
        return (Vec::new(), stderr);
    }
    let hosts = stdout
        .lines()
        .skip(1)
        .map(|l| {
            let (name, how) = l.trim().split_once("  ").expect(l);
            (name.to_string(), how.to_string())
        })
        .collect();
    (hosts, stderr)
}

/// `ansible-inventory --list`'s hostvars, as candor's `--list-hosts`
/// describes a host: `user@address:port key=K args='A'`.
fn ansible_connections(inv: &Path, home: &Path) -> BTreeMap<String, String> {
    let out = ansible_env(&mut Command::new("ansible-inventory"), home)
        .arg("-i")
        .arg(inv)
        .arg("--list")
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "ansible-inventory: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    let list: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    let text = |v: &serde_json::Value| match v {
        serde_json::Value::String(s) => s.clone(),
        other => other.to_string(),
    };
    let mut described = BTreeMap::new();
    for (name, vars) in list["_meta"]["hostvars"].as_object().unwrap() {
        let get = |k: &str| vars.get(k).map(text);
        let mut s = String::new();
        if let Some(u) = get("ansible_user") {
            s.push_str(&format!("{u}@"));
        }
        s.push_str(&get("ansible_host").unwrap_or_else(|| name.clone()));
        if let Some(p) = get("ansible_port") {
            s.push_str(&format!(":{p}"));
        }
        if let Some(k) = get("ansible_ssh_private_key_file") {
            s.push_str(&format!(" key={k}"));
        }
        if let Some(a) = get("ansible_ssh_common_args") {
            s.push_str(&format!(
                " args='{}'",
                a.split_whitespace().collect::<Vec<_>>().join(" ")
            ));
        }
        described.insert(name.clone(), s);
    }
    // Hosts without variables are listed under their groups only.
    fn walk(list: &serde_json::Value, group: &str, out: &mut BTreeMap<String, String>) {
        if let Some(hosts) = list[group]["hosts"].as_array() {
            for h in hosts {
                let h = h.as_str().unwrap().to_string();
                out.entry(h.clone()).or_insert(h);
            }
        }
        if let Some(children) = list[group]["children"].as_array() {
            for c in children {
                walk(list, c.as_str().unwrap(), out);
            }
        }
    }
    walk(&list, "all", &mut described);
    described
}

fn write(root: &Path, rel: &str, text: &str) {
    let p = root.join(rel);
    std::fs::create_dir_all(p.parent().unwrap()).unwrap();
    std::fs::write(p, text).unwrap();
}

/// Checks every pattern against Ansible on one inventory.
fn check(inv: &Path, patterns: &[&str]) {
    let home = tempfile::tempdir().unwrap();
    std::fs::create_dir_all(home.path().join("tmp")).unwrap();
    let connections = ansible_connections(inv, home.path());
    for pattern in patterns {
        let expected = ansible_hosts(inv, pattern, home.path());
        for reader in READERS {
            // Both readers feed one pattern matcher: the ansible reader
            // (a second or so per call) is checked on a few patterns.
            if reader == "ansible" && !ANSIBLE_READER_PATTERNS.contains(pattern) {
                continue;
            }
            let (got, stderr) = candor_hosts(inv, pattern, reader, home.path());
            // In Ansible's order: the order a play measures them in.
            let got_names: Vec<String> = got.iter().map(|(n, _)| n.clone()).collect();
            assert_eq!(
                got_names,
                expected,
                "{}: pattern '{pattern}', {reader} reader (candor's stderr: {stderr})",
                inv.display()
            );
            for (name, how) in &got {
                assert_eq!(
                    how,
                    &connections[name],
                    "{}: connection of {name}, {reader} reader",
                    inv.display()
                );
            }
        }
    }
}

/// The patterns the ansible reader is checked on (every host, a group, an
/// intersection, an exclusion, `ungrouped`, a subscript, one host).
const ANSIBLE_READER_PATTERNS: &[&str] = &[
    "all",
    "web",
    "web:&prod",
    "prod:!web02",
    "ungrouped",
    "web[1:2]",
    "db01",
];

const PATTERNS: &[&str] = &[
    "all",
    "*",
    "web",
    "web:db",
    "web,db",
    "web:&prod",
    "prod:!web02",
    "all:!prod",
    "!db",
    "&web",
    "web*",
    "web0?",
    "[dw]*",
    "~(web|db)0[13]",
    "~eb",
    "web[0]",
    "web[1:2]",
    "prod[-1]",
    "ungrouped",
    "web:nope",
    "db01",
    "db01:web01",
    "db0[12]",
];

#[test]
fn ini_with_group_and_host_vars_matches_ansible() {
    require_ansible();
    let d = tempfile::tempdir().unwrap();
    let root = d.path();
    write(
        root,
        "hosts",
        "lone ansible_host=127.0.0.9\n\
         [web]\nweb[01:03] ansible_user=deploy\n\
         [db]\ndb01 ansible_port=2201\ndb02:2202\n\
         [prod:children]\nweb\ndb\n\
         [prod:vars]\nansible_user=produser\nansible_ssh_private_key_file=/keys/prod\n\
         [all:vars]\nansible_port=2000\nansible_ssh_common_args='-o ConnectTimeout=5'\n",
    );
    // group_vars beat every group's inventory vars; host_vars beat the host's.
    write(root, "group_vars/all.yml", "ansible_user: everyone\n");
    write(root, "group_vars/web/10-port.yml", "ansible_port: 2100\n");
    write(
        root,
        "group_vars/web/20-key.yaml",
        "---\nansible_ssh_private_key_file: /keys/web\n",
    );
    write(root, "group_vars/web/notes.txt", "ansible_port: 9999\n");
    write(root, "group_vars/web/.hidden.yml", "ansible_port: 9998\n");
    write(root, "group_vars/db", "ansible_host: 127.0.0.7\n");
    write(root, "group_vars/db.yml", "ansible_host: 127.0.0.8\n");
    write(
        root,
        "host_vars/web02.json",
        "{\"ansible_port\": 2222, \"ansible_host\": \"127.0.0.2\"}\n",
    );
    write(root, "host_vars/db02", "ansible_user: root\n");
    check(&root.join("hosts"), PATTERNS);
}

#[test]
fn yaml_with_priorities_matches_ansible() {
    require_ansible();
    let d = tempfile::tempdir().unwrap();
    let root = d.path();
    write(
        root,
        "inv.yml",
        "all:\n  hosts:\n    lone:\n  children:\n    web:\n      hosts:\n        web[01:03]:\n      vars:\n        ansible_user: webuser\n        ansible_group_priority: 5\n    \
         fast:\n      hosts:\n        web01:\n        db01:\n      vars:\n        ansible_user: fastuser\n        ansible_port: 2400\n    \
         prod:\n      children:\n        db:\n          hosts:\n            db01:\n              ansible_host: 127.0.0.3\n            db02:\n",
    );
    write(root, "host_vars/web03.yml", "ansible_port: 2303\n");
    check(&root.join("inv.yml"), PATTERNS);
}

#[test]
fn inventory_directory_matches_ansible() {
    require_ansible();
    let d = tempfile::tempdir().unwrap();
    let root = d.path().join("inventory");
    // Sources in name order; a later one adds to the groups of an earlier.
    write(&root, "10-web", "[web]\nweb[01:02]\n[prod:children]\nweb\n");
    write(
        &root,
        "20-db.yml",
        "prod:\n  children:\n    db:\n      hosts:\n        db01:\n          ansible_port: 2201\n",
    );
    write(&root, "sub/30-more", "[web]\nweb03 ansible_user=sub\n");
    // Read since ansible-core 2.19 (issue 40: skipped by candor and 2.14).
    write(&root, "hosts.ini", "[web]\nweb04 ansible_port=2204\n");
    // Ansible ignores these in an inventory directory.
    write(&root, "old.cfg", "[web]\nignored1\n");
    write(&root, "README.md", "[web]\nignored2\n");
    write(&root, "hosts~", "[web]\nignored3\n");
    write(&root, ".hidden", "[web]\nignored4\n");
    write(&root, "group_vars/prod.yml", "ansible_user: prod\n");
    write(&root, "host_vars/web01.yml", "ansible_host: 127.0.0.4\n");
    check(&root, PATTERNS);
}

/// Issue 40: hosts in Ansible's order (the order a play measures them
/// in): `all`'s own hosts first, then `ungrouped`'s, then the groups the
/// inventory put under `all` (also one another group holds), then the
/// groups no group holds, then their children (ansible-inventory --list
/// sorts its hosts: the ansible reader asks `ansible all --list-hosts`).
/// Below the first level Ansible walks a set, in an order that changes
/// from run to run: one group with children there keeps it fixed.
#[test]
fn hosts_come_in_ansible_s_order() {
    require_ansible();
    let d = tempfile::tempdir().unwrap();
    write(
        d.path(),
        "order.yml",
        "all:\n  hosts:\n    a0:\n  children:\n    zeta:\n      hosts:\n        z1:\n      children:\n        \
         alpha:\n          hosts:\n            al1:\n        beta:\n          hosts:\n            b1:\n    \
         gamma:\n      hosts:\n        g1:\n        a0:\nother:\n  hosts:\n    o1:\n  children:\n    zeta:\n",
    );
    write(
        d.path(),
        "order.ini",
        "lone1\n[web]\nweb2\nweb1\n[db]\ndb1\nweb1\n[prod:children]\ndb\nweb\n[prod]\np1\n\
         [edge]\ne1\nlone2\n[all:vars]\nansible_user=u\n",
    );
    let patterns = &["all", "zeta", "other:gamma", "all:!alpha", "prod", "web:db"];
    check(&d.path().join("order.yml"), patterns);
    check(&d.path().join("order.ini"), patterns);
}

#[test]
fn unknown_patterns_are_warned_as_ansible_warns() {
    let d = tempfile::tempdir().unwrap();
    write(d.path(), "h.ini", "[web]\nweb1\n");
    let (hosts, stderr) = candor_hosts(&d.path().join("h.ini"), "web:nope", "candor", d.path());
    assert_eq!(hosts.iter().map(|(n, _)| n).collect::<Vec<_>>(), ["web1"]);
    assert!(
        stderr.contains("warning: could not match supplied host pattern, ignoring: nope"),
        "{stderr}"
    );
}

/// Ranges of 100,000 hosts: `--list-hosts` took 148 s for one group and
/// 370 s for two (every host was looked for in lists of all the others).
/// Now near-linear: under `timeout 60` here, about a second each.
#[test]
fn a_hundred_thousand_hosts_are_read_and_selected_in_near_linear_time() {
    let d = tempfile::tempdir().unwrap();
    write(
        d.path(),
        "big.ini",
        "[web]\nweb[1:100000]\n[db]\ndb[1:100000]\n[all:children]\nweb\ndb\n",
    );
    let inv = d.path().join("big.ini");
    for (pattern, hosts) in [
        ("all", 200_000),
        ("web:&all:!web[1:5]", 99_995),
        ("db*", 100_000),
    ] {
        let out = Command::new("timeout")
            .args([
                "-s",
                "KILL",
                "60",
                env!("CARGO_BIN_EXE_candor"),
                "fleet",
                "run",
                // candor's own reader is what is timed here.
                "--inventory-reader",
                "candor",
                "-i",
            ])
            .arg(&inv)
            .args([pattern, "--list-hosts"])
            .output()
            .unwrap();
        assert!(
            out.status.success(),
            "{pattern}: {:?} {}",
            out.status,
            String::from_utf8_lossy(&out.stderr)
        );
        let listed = String::from_utf8_lossy(&out.stdout)
            .lines()
            .filter(|l| l.starts_with("    "))
            .count();
        assert_eq!(listed, hosts, "{pattern}");
    }
}

/// Where Ansible's ssh connection would go for each host: `user@host:port`
/// from the ssh command line Ansible builds (an `ansible_ssh_executable`
/// that records its arguments and fails; nothing is connected to).
fn ansible_connects_to(inv: &Path, hosts: &[&str], home: &Path) -> BTreeMap<String, String> {
    let fake = home.join("fake-ssh");
    write(
        home,
        "fake-ssh",
        "#!/bin/sh\nfor a in \"$@\"; do printf '%s\\n' \"$a\"; done > \"$FAKE_SSH_ARGS\"\nexit 255\n",
    );
    use std::os::unix::fs::PermissionsExt;
    std::fs::set_permissions(&fake, std::fs::Permissions::from_mode(0o755)).unwrap();
    let mut out = BTreeMap::new();
    for h in hosts {
        let args_file = home.join(format!("args-{h}"));
        let o = ansible_env(&mut Command::new("ansible"), home)
            .arg("-i")
            .arg(inv)
            .args([h, "-m", "ansible.builtin.raw", "-a", "true", "-e"])
            .arg(format!("ansible_ssh_executable={}", fake.display()))
            .env("FAKE_SSH_ARGS", &args_file)
            .output()
            .unwrap();
        let args = std::fs::read_to_string(&args_file)
            .unwrap_or_else(|_| panic!("{h}: Ansible ran no ssh: {o:?}"));
        let args: Vec<&str> = args.lines().collect();
        let opt = |key: &str| {
            args.iter()
                .find_map(|a| a.strip_prefix(key))
                .map(|v| v.trim_matches('"').to_string())
        };
        let mut s = String::new();
        if let Some(u) = opt("User=") {
            s.push_str(&format!("{u}@"));
        }
        // The destination comes before the remote command.
        s.push_str(args[args.len() - 2]);
        if let Some(p) = opt("Port=") {
            s.push_str(&format!(":{p}"));
        }
        out.insert(h.to_string(), s);
    }
    out
}

/// candor's `--list-hosts` with one reader: exit code, stdout, stderr.
fn list_hosts(inv: &Path, reader: &str, home: &Path) -> (Option<i32>, String, String) {
    let o = ansible_env(&mut Command::new(env!("CARGO_BIN_EXE_candor")), home)
        .args(["fleet", "run", "--inventory-reader", reader, "-i"])
        .arg(inv)
        .arg("--list-hosts")
        .output()
        .unwrap();
    (
        o.status.code(),
        String::from_utf8_lossy(&o.stdout).into_owned(),
        String::from_utf8_lossy(&o.stderr).into_owned(),
    )
}

/// `name → user@host:port` from `--list-hosts`.
fn destinations(stdout: &str) -> BTreeMap<String, String> {
    stdout
        .lines()
        .skip(1)
        .map(|l| {
            let (name, how) = l.trim().split_once("  ").expect(l);
            (name.to_string(), how.split(' ').next().unwrap().to_string())
        })
        .collect()
}

/// Issue 40: the legacy `ansible_ssh_*` names win over `ansible_host`,
/// `ansible_port`, `ansible_user` wherever each is set (here against
/// group_vars/all), as Ansible connects; a template is evaluated by the
/// ansible reader and refused in one line by candor's own.
#[test]
fn legacy_names_and_templates_reach_where_ansible_connects() {
    require_ansible();
    let d = tempfile::tempdir().unwrap();
    let home = d.path().join("home");
    std::fs::create_dir_all(home.join("tmp")).unwrap();
    let inv = d.path().join("inv");
    write(
        &inv,
        "hosts",
        "old1 ansible_ssh_host=127.0.0.3 ansible_ssh_port=2203 ansible_ssh_user=awu2\nnew1\n\
         mixed ansible_host=127.0.0.5 ansible_ssh_port=2205\n",
    );
    write(
        &inv,
        "group_vars/all.yml",
        "ansible_host: 127.0.0.1\nansible_port: 2201\nansible_user: root\n",
    );
    let truth = ansible_connects_to(&inv, &["old1", "new1", "mixed"], &home);
    assert_eq!(truth["old1"], "awu2@127.0.0.3:2203", "Ansible itself");
    for reader in READERS {
        let (code, stdout, stderr) = list_hosts(&inv, reader, &home);
        assert_eq!(code, Some(0), "{reader}: {stderr}");
        assert_eq!(destinations(&stdout), truth, "{reader}: {stderr}");
    }
    // A template.
    let tpl = d.path().join("tpl");
    write(
        &tpl,
        "hosts.yml",
        "all:\n  hosts:\n    t1:\n      ansible_host: \"127.0.0.{{ 1 + 2 }}\"\n      ansible_port: \"{{ 2000 + 300 }}\"\n      ansible_user: root\n",
    );
    let truth = ansible_connects_to(&tpl, &["t1"], &home);
    assert_eq!(truth["t1"], "root@127.0.0.3:2300", "Ansible itself");
    let (code, stdout, stderr) = list_hosts(&tpl, "ansible", &home);
    assert_eq!(code, Some(0), "{stderr}");
    assert_eq!(destinations(&stdout), truth);
    let (code, _, stderr) = list_hosts(&tpl, "candor", &home);
    assert_eq!(code, Some(2), "{stderr}");
    assert!(stderr.contains("is a Jinja template"), "{stderr}");
    assert_eq!(stderr.trim().lines().count(), 1, "{stderr}");
}

/// A script inventory (Ansible's `script` plugin runs it with --list):
/// the ansible reader lists its hosts where Ansible connects; candor's own
/// reader refuses it in one line rather than reading a script as hosts.
#[test]
fn script_inventory_through_ansible_inventory() {
    require_ansible();
    let d = tempfile::tempdir().unwrap();
    let home = d.path().join("home");
    std::fs::create_dir_all(home.join("tmp")).unwrap();
    write(
        d.path(),
        "inventory.sh",
        "#!/bin/sh\nif [ \"$1\" = --list ]; then cat <<'J'\n\
         {\"web\": {\"hosts\": [\"s1\", \"s2\"], \"vars\": {\"ansible_user\": \"deploy\"}},\n \
         \"db\": {\"hosts\": [\"s3\"]},\n \
         \"_meta\": {\"hostvars\": {\"s1\": {\"ansible_ssh_host\": \"127.0.0.6\", \"ansible_port\": 2206},\n \
         \"s3\": {\"ansible_host\": \"127.0.0.7\"}}}}\nJ\nelse echo '{}'; fi\n",
    );
    let script = d.path().join("inventory.sh");
    use std::os::unix::fs::PermissionsExt;
    std::fs::set_permissions(&script, std::fs::Permissions::from_mode(0o755)).unwrap();
    assert_eq!(
        ansible_hosts(&script, "all", &home),
        ["s1", "s2", "s3"].map(String::from).to_vec()
    );
    let truth = ansible_connects_to(&script, &["s1", "s2", "s3"], &home);
    assert_eq!(truth["s1"], "deploy@127.0.0.6:2206", "Ansible itself");
    let (code, stdout, stderr) = list_hosts(&script, "ansible", &home);
    assert_eq!(code, Some(0), "{stderr}");
    assert_eq!(destinations(&stdout), truth);
    assert!(stderr.contains("read by ansible-inventory 2."), "{stderr}");
    let (code, _, stderr) = list_hosts(&script, "candor", &home);
    assert_eq!(code, Some(2), "{stderr}");
    assert!(
        stderr.contains("executable: Ansible runs it as an inventory script"),
        "{stderr}"
    );
}
