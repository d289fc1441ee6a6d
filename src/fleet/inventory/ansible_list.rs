//! The inventory as the user's own Ansible reads it: `ansible-inventory
//! -i INV --list` prints every host with its merged variables (INI, YAML,
//! directories, `group_vars/`, inventory scripts and plugins such as
//! `aws_ec2`, with the user's ansible.cfg), and candor builds its
//! `Inventory` from that JSON, so host patterns and connection settings
//! are resolved by the same code as for its own reader.
//!
//! ansible-inventory does not evaluate Jinja templates; a connection
//! variable that holds one is evaluated by Ansible itself, in one
//! `ansible all -m ansible.builtin.debug` call (a controller-side action:
//! nothing is connected to) with the json callback. A template Ansible
//! cannot evaluate either is refused, naming the host and the variable.

use super::{Inventory, Limits, Var};
use crate::error::usage;
use serde_json::Value;
use std::path::Path;
use std::process::{Command, Stdio};

/// Reads `path` through `ansible-inventory` (found on PATH).
pub fn load(path: &Path, limits: Limits) -> anyhow::Result<Inventory> {
    let mut cmd = Command::new("ansible-inventory");
    cmd.arg("-i").arg(path).arg("--list").stdin(Stdio::null());
    // A source Ansible cannot parse is only a warning to Ansible, which then
    // goes on with the rest (or with no host at all); candor would measure
    // a fleet with hosts silently missing, so it is an error here, unless
    // the user's environment decides otherwise.
    if std::env::var_os("ANSIBLE_INVENTORY_ANY_UNPARSED_IS_FAILED").is_none() {
        cmd.env("ANSIBLE_INVENTORY_ANY_UNPARSED_IS_FAILED", "True");
    }
    let out = run(cmd, path, "cannot run ansible-inventory")?;
    let stderr = out.stderr;
    let said = messages(&stderr);
    if !out.status.success() {
        let error = said
            .iter()
            .rfind(|(kind, _)| kind == "ERROR!")
            .map(|(_, m)| m.clone())
            .unwrap_or_else(|| last_words(&stderr));
        // The first plugin's reason, when Ansible gave one.
        let why = said
            .iter()
            .find_map(|(_, m)| {
                m.strip_prefix("* ")
                    .filter(|m| m.starts_with("Failed to parse"))
            })
            .map(|m| format!(" ({})", shorten(m, 300)))
            .unwrap_or_default();
        return Err(usage(format!(
            "-i {}: ansible-inventory --list: {error}{why}",
            path.display()
        )));
    }
    let list: Value = serde_json::from_slice(&out.stdout).map_err(|e| {
        usage(format!(
            "-i {}: ansible-inventory --list printed no JSON ({e})",
            path.display()
        ))
    })?;
    let mut inv = from_list(path, &list, limits)?;
    // `all` in Ansible's order, which --list does not keep (its keys are
    // sorted, and a host `all` holds itself is listed under its other
    // groups only): `ansible all --list-hosts` tells it (nothing is
    // connected to).
    if let Some(order) = listed_hosts(path) {
        inv.put_first_in_all(&order);
    }
    // Ansible's own warnings (a source it could not parse, a duplicate
    // host) are passed on: ansible-inventory exits 0 after them.
    for (kind, m) in said {
        if kind == "[WARNING]:" {
            inv.warnings.push(format!("ansible-inventory: {m}"));
        }
    }
    evaluate_templates(path, &mut inv)?;
    Ok(inv)
}

/// What an Ansible command gave when it ended.
struct AnsibleOutput {
    status: std::process::ExitStatus,
    stdout: Vec<u8>,
    stderr: String,
}

/// Runs an Ansible command to its end, or until the first signal, which
/// stops it: ansible-inventory reads an inventory of 100,000 hosts for over
/// a minute, and candor waited that out after a SIGTERM. `cannot` says
/// what failed when it could not start.
fn run(mut cmd: Command, path: &Path, cannot: &str) -> anyhow::Result<AnsibleOutput> {
    cmd.stdout(Stdio::piped()).stderr(Stdio::piped());
    // No time limit but the user's: a year stands for none.
    let got = crate::fleet::ssh::capture(cmd, std::time::Duration::from_secs(365 * 86_400), true);
    if got.interrupted {
        crate::cancel::check()?;
    }
    match got.status {
        Some(status) => Ok(AnsibleOutput {
            status,
            stdout: got.stdout,
            stderr: got.stderr.join("\n"),
        }),
        None => Err(usage(format!(
            "-i {}: {cannot}: {}",
            path.display(),
            got.stderr.join(" ").trim_start_matches("candor-fleet: ")
        ))),
    }
}

/// The last line that says something (Ansible's error).
fn last_words(stderr: &str) -> String {
    stderr
        .lines()
        .map(str::trim)
        .rfind(|l| !l.is_empty())
        .unwrap_or("(nothing on stderr)")
        .to_string()
}

/// Ansible's `[WARNING]: ...` and `ERROR! ...` messages, each unwrapped
/// (Ansible wraps them at 79 columns when stderr is not a terminal, at a
/// space or after a hyphen).
fn messages(stderr: &str) -> Vec<(String, String)> {
    let mut out: Vec<(String, String)> = Vec::new();
    for line in stderr.lines() {
        let started = ["[WARNING]:", "[DEPRECATION WARNING]:", "ERROR!"]
            .into_iter()
            .find(|k| line.starts_with(k));
        match (started, out.last_mut()) {
            (Some(k), _) => out.push((k.to_string(), line[k.len()..].trim().to_string())),
            (None, Some((_, m))) if !line.trim().is_empty() => {
                if !m.ends_with('-') {
                    m.push(' ');
                }
                m.push_str(line.trim());
            }
            _ => {}
        }
    }
    out
}

/// At most `max` characters, with `...` when cut.
fn shorten(text: &str, max: usize) -> String {
    if text.chars().count() <= max {
        return text.to_string();
    }
    let cut: String = text.chars().take(max).collect();
    format!("{cut}...")
}

/// `ansible-inventory --version`'s `[core 2.14.18]`, for saying which reader was used.
pub fn version() -> Option<String> {
    let out = Command::new("ansible-inventory")
        .arg("--version")
        .stdin(Stdio::null())
        .stderr(Stdio::null())
        .output()
        .ok()?;
    let text = String::from_utf8_lossy(&out.stdout);
    let first = text.lines().next()?;
    let core = first.split("[core ").nth(1)?.split(']').next()?;
    Some(core.trim().to_string())
}

/// A JSON value as the text candor's own reader would have read (a string
/// as itself, a number or boolean as written); None for null, which
/// Ansible treats as unset.
fn text(v: &Value) -> Option<String> {
    match v {
        Value::Null => None,
        Value::String(s) => Some(s.clone()),
        other => Some(other.to_string()),
    }
}

/// The `Inventory` the JSON describes: groups from `all` down (each
/// group's hosts, then its children), and each host's merged variables
/// as its own (they are already merged, so no layer can override them).
pub fn from_list(path: &Path, list: &Value, limits: Limits) -> anyhow::Result<Inventory> {
    let mut inv = Inventory::empty(path, limits);
    // The source is an input of the command, as the files candor's own reader reads.
    inv.begin_file(path);
    inv.begin_file(&path.with_file_name(format!(
        "{} (ansible-inventory --list)",
        path.file_name().unwrap_or_default().to_string_lossy()
    )));
    let mut stack = vec!["all".to_string()];
    let mut seen = std::collections::HashSet::new();
    while let Some(group) = stack.pop() {
        if !seen.insert(group.clone()) {
            continue;
        }
        inv.group(&group, 0);
        let entry = &list[&group];
        for h in entry["hosts"].as_array().into_iter().flatten() {
            let Some(h) = h.as_str() else { continue };
            inv.add_host(&group, h, 0, Vec::new())
                .map_err(|e| inv.error(0, e))?;
        }
        let children: Vec<String> = entry["children"]
            .as_array()
            .into_iter()
            .flatten()
            .filter_map(|c| c.as_str().map(str::to_string))
            .collect();
        for c in &children {
            inv.add_child(&group, c, 0);
        }
        // Depth first, in the listed order.
        stack.extend(children.into_iter().rev());
    }
    let names: Vec<String> = inv.order.clone();
    for name in names {
        let vars = &list["_meta"]["hostvars"][&name];
        let Some(map) = vars.as_object() else {
            continue;
        };
        inv.begin_file(&path.with_file_name(format!(
            "{} (ansible-inventory --list, host {name})",
            path.file_name().unwrap_or_default().to_string_lossy()
        )));
        let file = inv.current;
        let host_vars: Vec<Var> = map
            .iter()
            .filter_map(|(k, v)| {
                Some(Var {
                    key: k.clone(),
                    value: text(v)?,
                    line: 0,
                    file,
                })
            })
            .collect();
        if let Some(h) = inv.hosts.get_mut(&name) {
            h.file = file;
            h.vars = host_vars;
        }
    }
    inv.reconcile();
    inv.check_cycles()?;
    inv.index();
    Ok(inv)
}

/// The hosts `ansible -i INV all --list-hosts` prints, in its order; None
/// when it cannot say.
fn listed_hosts(path: &Path) -> Option<Vec<String>> {
    let mut cmd = Command::new("ansible");
    cmd.arg("-i")
        .arg(path)
        .args(["all", "--list-hosts"])
        .stdin(Stdio::null());
    let out = run(cmd, path, "cannot run ansible").ok()?;
    if !out.status.success() {
        return None;
    }
    let text = String::from_utf8_lossy(&out.stdout).into_owned();
    let mut lines = text.lines().map(str::trim);
    lines.find(|l| l.starts_with("hosts ("))?;
    Some(
        lines
            .filter(|l| !l.is_empty())
            .map(str::to_string)
            .collect(),
    )
}

/// Whether a value would be a Jinja template to Ansible.
pub fn is_template(value: &str) -> bool {
    value.contains("{{") || value.contains("{%")
}

/// Replaces each connection variable that holds a template by the value
/// Ansible evaluates it to.
fn evaluate_templates(path: &Path, inv: &mut Inventory) -> anyhow::Result<()> {
    let keys: Vec<&str> = super::aliases::CONNECTION
        .iter()
        .copied()
        .filter(|k| {
            inv.hosts
                .values()
                .any(|h| h.vars.iter().any(|v| v.key == *k && is_template(&v.value)))
        })
        .collect();
    if keys.is_empty() {
        return Ok(());
    }
    // {"ansible_host": ansible_host | default(None), ...}: the keys are
    // fixed names (aliases::CONNECTION), never text from the inventory.
    let fields: Vec<String> = keys
        .iter()
        .map(|k| format!("\"{k}\": {k} | default(None)"))
        .collect();
    let msg = format!("msg={{{{ {{{}}} }}}}", fields.join(", "));
    let mut cmd = Command::new("ansible");
    cmd.arg("-i")
        .arg(path)
        .args(["all", "-m", "ansible.builtin.debug", "-a", &msg])
        .env("ANSIBLE_STDOUT_CALLBACK", "json")
        .env("ANSIBLE_LOAD_CALLBACK_PLUGINS", "1")
        .stdin(Stdio::null());
    let out = run(
        cmd,
        path,
        "a connection variable is a Jinja template and ansible, which would evaluate it, cannot run",
    )?;
    let report: Value = serde_json::from_slice(&out.stdout).map_err(|_| {
        usage(format!(
            "-i {}: ansible could not evaluate the templates in its connection variables: {}",
            path.display(),
            last_words(&out.stderr)
        ))
    })?;
    let results = &report["plays"][0]["tasks"][0]["hosts"];
    let names = inv.order.clone();
    for name in names {
        let Some(h) = inv.hosts.get_mut(&name) else {
            continue;
        };
        for v in h.vars.iter_mut() {
            if !keys.contains(&v.key.as_str()) || !is_template(&v.value) {
                continue;
            }
            let r = &results[&name];
            let evaluated = r["msg"].get(&v.key).and_then(text);
            match evaluated {
                Some(value) if !r["failed"].as_bool().unwrap_or(false) && !is_template(&value) => {
                    v.value = value;
                }
                _ => {
                    let why = r["msg"]
                        .as_str()
                        .map(|m| m.lines().next().unwrap_or("").to_string())
                        .unwrap_or_else(|| "Ansible gave no value".to_string());
                    return Err(usage(format!(
                        "-i {}: host '{name}': {}: '{}' could not be evaluated by Ansible: {why}",
                        path.display(),
                        v.key,
                        v.value
                    )));
                }
            }
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ansible_messages_are_unwrapped() {
        // ansible-inventory 2.14.18's stderr for a bad INI line, verbatim.
        let stderr = "[WARNING]:  * Failed to parse /tmp/fl-inv/bad.ini with ini plugin: /tmp/fl-\n\
                      inv/bad.ini:2: Expected key=value host variable assignment, got: ansible_port\n\
                      ERROR! Completely failed to parse inventory source /tmp/fl-inv/bad.ini\n";
        let m = messages(stderr);
        assert_eq!(m.len(), 2);
        assert_eq!(
            m[0].1,
            "* Failed to parse /tmp/fl-inv/bad.ini with ini plugin: /tmp/fl-inv/bad.ini:2: Expected key=value host variable assignment, got: ansible_port"
        );
        assert_eq!(m[1].0, "ERROR!");
    }
}
