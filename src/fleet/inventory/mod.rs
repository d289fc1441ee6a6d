//! Ansible inventories, read so that a fleet that Ansible already drives
//! needs nothing new: the same file, in Ansible's INI (`ini.rs`) or YAML
//! (`yaml.rs`) format, with groups, children, host ranges (`ranges.rs`)
//! and the connection variables candor can honour over the system ssh:
//! `ansible_host`, `ansible_port`, `ansible_user` (and their old
//! `ansible_ssh_*` spellings), `ansible_ssh_private_key_file`,
//! `ansible_ssh_common_args`, `ansible_ssh_extra_args`, `ansible_become`,
//! `ansible_become_user`, `ansible_become_method` (sudo only) and
//! `ansible_connection` (ssh only). Every other variable is ignored, as
//! Ansible's modules would ignore variables they do not use.
//!
//! Variables are applied as Ansible applies them: the `all` group first,
//! then parent groups before their children (groups at the same depth in
//! name order), then the host's own. A value candor would have to evaluate
//! as a Jinja template is refused rather than used as text. Every error
//! names the file and line.

mod ini;
mod ranges;
pub mod words;
mod yaml;

use super::target::{parse_port, Become, Target};
use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

/// A variable with the line that set it (for errors).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Var {
    pub key: String,
    pub value: String,
    pub line: usize,
}

#[derive(Debug, Clone, Default)]
struct HostDef {
    /// Where the host first appears.
    line: usize,
    vars: Vec<Var>,
}

#[derive(Debug, Clone, Default)]
struct GroupDef {
    line: usize,
    hosts: Vec<String>,
    children: Vec<String>,
    vars: Vec<Var>,
}

/// A parsed inventory: hosts in the order they first appear, and groups.
#[derive(Debug, Clone)]
pub struct Inventory {
    path: PathBuf,
    order: Vec<String>,
    hosts: BTreeMap<String, HostDef>,
    groups: BTreeMap<String, GroupDef>,
}

/// An inventory error: `file:line: message` (line 0: the whole file).
pub fn error_at(path: &Path, line: usize, message: impl std::fmt::Display) -> anyhow::Error {
    if line == 0 {
        crate::error::usage(format!("{}: {message}", path.display()))
    } else {
        crate::error::usage(format!("{}:{line}: {message}", path.display()))
    }
}

impl Inventory {
    /// Reads an inventory file. `.yml`, `.yaml` and `.json` are YAML (JSON
    /// is YAML); `.ini` is INI; any other name is YAML when its first line
    /// that says something is a YAML mapping key or `---`, else INI (as
    /// Ansible tries its YAML plugin before its INI plugin).
    pub fn load(path: &Path) -> anyhow::Result<Inventory> {
        let text = std::fs::read_to_string(path)
            .map_err(|e| crate::error::usage(format!("-i {}: cannot read: {e}", path.display())))?;
        let ext = path
            .extension()
            .map(|e| e.to_string_lossy().to_ascii_lowercase());
        let is_yaml = match ext.as_deref() {
            Some("yml" | "yaml" | "json") => true,
            Some("ini") => false,
            _ => looks_like_yaml(&text),
        };
        let mut inv = Inventory {
            path: path.to_path_buf(),
            order: Vec::new(),
            hosts: BTreeMap::new(),
            groups: BTreeMap::new(),
        };
        inv.group("all", 0);
        if is_yaml {
            yaml::parse(&text, &mut inv)?;
        } else {
            ini::parse(&text, &mut inv)?;
        }
        inv.check_cycles()?;
        Ok(inv)
    }

    /// The file it was read from.
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// An error at a line of this file.
    fn error(&self, line: usize, message: impl std::fmt::Display) -> anyhow::Error {
        error_at(&self.path, line, message)
    }

    /// The group, created on first mention.
    fn group(&mut self, name: &str, line: usize) -> &mut GroupDef {
        self.groups
            .entry(name.to_string())
            .or_insert_with(|| GroupDef {
                line,
                ..GroupDef::default()
            })
    }

    /// Adds a host (a name after range expansion) to a group, with its vars.
    fn add_host(&mut self, group: &str, name: &str, line: usize, vars: Vec<Var>) {
        if !self.hosts.contains_key(name) {
            self.order.push(name.to_string());
        }
        let def = self.hosts.entry(name.to_string()).or_insert(HostDef {
            line,
            vars: Vec::new(),
        });
        def.vars.extend(vars);
        let g = self.group(group, line);
        if !g.hosts.iter().any(|h| h == name) {
            g.hosts.push(name.to_string());
        }
    }

    fn add_child(&mut self, parent: &str, child: &str, line: usize) {
        self.group(child, line);
        let g = self.group(parent, line);
        if !g.children.iter().any(|c| c == child) {
            g.children.push(child.to_string());
        }
    }

    fn add_group_var(&mut self, group: &str, var: Var) {
        let line = var.line;
        self.group(group, line).vars.push(var);
    }

    /// A group that contains itself through its children is refused, as Ansible does.
    fn check_cycles(&self) -> anyhow::Result<()> {
        fn visit(
            inv: &Inventory,
            name: &str,
            path: &mut Vec<String>,
            done: &mut BTreeSet<String>,
        ) -> anyhow::Result<()> {
            if done.contains(name) {
                return Ok(());
            }
            if let Some(pos) = path.iter().position(|p| p == name) {
                let cycle = path[pos..].join(" → ");
                let line = inv.groups.get(name).map(|g| g.line).unwrap_or(0);
                return Err(inv.error(
                    line,
                    format!("group '{name}' contains itself ({cycle} → {name})"),
                ));
            }
            path.push(name.to_string());
            if let Some(g) = inv.groups.get(name) {
                for c in &g.children {
                    visit(inv, c, path, done)?;
                }
            }
            path.pop();
            done.insert(name.to_string());
            Ok(())
        }
        let mut done = BTreeSet::new();
        for name in self.groups.keys() {
            visit(self, name, &mut Vec::new(), &mut done)?;
        }
        Ok(())
    }

    /// Host names in inventory order.
    pub fn host_names(&self) -> &[String] {
        &self.order
    }

    /// Group names (`all` included).
    pub fn group_names(&self) -> impl Iterator<Item = &String> {
        self.groups.keys()
    }

    /// The hosts of a group and of its children, in inventory order; `all`
    /// has every host. None for an unknown group.
    pub fn hosts_of(&self, group: &str) -> Option<Vec<String>> {
        if group == "all" {
            return Some(self.order.clone());
        }
        self.groups.get(group)?;
        let mut members = BTreeSet::new();
        let mut stack = vec![group.to_string()];
        let mut seen = BTreeSet::new();
        while let Some(g) = stack.pop() {
            if !seen.insert(g.clone()) {
                continue;
            }
            if let Some(def) = self.groups.get(&g) {
                members.extend(def.hosts.iter().cloned());
                stack.extend(def.children.iter().cloned());
            }
        }
        Some(
            self.order
                .iter()
                .filter(|h| members.contains(*h))
                .cloned()
                .collect(),
        )
    }

    /// Every group a host is in, directly or through children, with its
    /// depth below `all` (Ansible applies shallower groups first).
    fn groups_of(&self, host: &str) -> Vec<(usize, String)> {
        let mut parents: BTreeMap<&str, Vec<&str>> = BTreeMap::new();
        for (name, g) in &self.groups {
            for c in &g.children {
                parents.entry(c.as_str()).or_default().push(name.as_str());
            }
        }
        // Depth: the longest chain of parents up to a top-level group (1); `all` is 0.
        fn depth<'a>(
            g: &'a str,
            parents: &BTreeMap<&'a str, Vec<&'a str>>,
            memo: &mut BTreeMap<&'a str, usize>,
        ) -> usize {
            if g == "all" {
                return 0;
            }
            if let Some(d) = memo.get(g) {
                return *d;
            }
            let d = parents
                .get(g)
                .map(|ps| {
                    ps.iter()
                        .map(|p| depth(p, parents, memo) + 1)
                        .max()
                        .unwrap_or(1)
                })
                .unwrap_or(1);
            memo.insert(g, d);
            d
        }
        let mut memo = BTreeMap::new();
        let mut found: BTreeSet<&str> = BTreeSet::new();
        let mut stack: Vec<&str> = self
            .groups
            .iter()
            .filter(|(_, g)| g.hosts.iter().any(|h| h == host))
            .map(|(n, _)| n.as_str())
            .collect();
        while let Some(g) = stack.pop() {
            if found.insert(g) {
                if let Some(ps) = parents.get(g) {
                    stack.extend(ps.iter().copied());
                }
            }
        }
        found.insert("all");
        let mut out: Vec<(usize, String)> = found
            .into_iter()
            .map(|g| (depth(g, &parents, &mut memo), g.to_string()))
            .collect();
        out.sort();
        out
    }

    /// The variables in force for a host, each with the line that set it.
    fn vars_of(&self, host: &str) -> BTreeMap<String, Var> {
        let mut vars = BTreeMap::new();
        for (_, g) in self.groups_of(host) {
            if let Some(def) = self.groups.get(&g) {
                for v in &def.vars {
                    vars.insert(v.key.clone(), v.clone());
                }
            }
        }
        if let Some(def) = self.hosts.get(host) {
            for v in &def.vars {
                vars.insert(v.key.clone(), v.clone());
            }
        }
        vars
    }

    /// The host as a target: its variables applied. Errors name the line
    /// of the variable at fault.
    pub fn target(&self, host: &str) -> anyhow::Result<Target> {
        let vars = self.vars_of(host);
        let get = |keys: &[&str]| -> anyhow::Result<Option<&Var>> {
            for k in keys {
                if let Some(v) = vars.get(*k) {
                    if v.value.contains("{{") || v.value.contains("{%") {
                        return Err(self.error(
                            v.line,
                            format!(
                                "{k}: '{}' is a Jinja template; candor does not evaluate templates (write the value)",
                                v.value
                            ),
                        ));
                    }
                    return Ok(Some(v));
                }
            }
            Ok(None)
        };
        let mut t = Target::named(host);
        if let Some(v) = get(&["ansible_host", "ansible_ssh_host"])? {
            t.address = v.value.clone();
        }
        if let Some(v) = get(&["ansible_port", "ansible_ssh_port"])? {
            t.port = Some(
                parse_port(&v.key, &v.value)
                    .map_err(|e| self.error(v.line, format!("ansible_port: {e}")))?,
            );
        }
        if let Some(v) = get(&["ansible_user", "ansible_ssh_user"])? {
            t.user = Some(v.value.clone());
        }
        if let Some(v) = get(&["ansible_ssh_private_key_file"])? {
            t.key_file = Some(v.value.clone());
        }
        for key in ["ansible_ssh_common_args", "ansible_ssh_extra_args"] {
            if let Some(v) = get(&[key])? {
                t.ssh_args.extend(
                    words::split(&v.value)
                        .map_err(|e| self.error(v.line, format!("{key}: {e}")))?,
                );
            }
        }
        if let Some(v) = get(&["ansible_connection"])? {
            if !matches!(v.value.as_str(), "ssh" | "smart" | "paramiko") {
                return Err(self.error(
                    v.line,
                    format!(
                        "ansible_connection={}: candor fleet reaches hosts over ssh only",
                        v.value
                    ),
                ));
            }
        }
        let become_ = match get(&["ansible_become"])? {
            Some(v) => parse_bool(&v.value).ok_or_else(|| {
                self.error(
                    v.line,
                    format!("ansible_become: '{}' is not a boolean", v.value),
                )
            })?,
            None => false,
        };
        if become_ {
            if let Some(v) = get(&["ansible_become_method"])? {
                if v.value != "sudo" {
                    return Err(self.error(
                        v.line,
                        format!("ansible_become_method={}: candor becomes root with sudo only (non-interactive, sudo -n)", v.value),
                    ));
                }
            }
            let user = get(&["ansible_become_user"])?
                .map(|v| v.value.clone())
                .unwrap_or_else(|| "root".to_string());
            t.become_ = Some(Become { user });
        }
        t.groups = self
            .groups_of(host)
            .into_iter()
            .map(|(_, g)| g)
            .filter(|g| g != "all")
            .collect();
        if t.address.is_empty() || t.address.starts_with('-') {
            let line = self.hosts.get(host).map(|h| h.line).unwrap_or(0);
            return Err(self.error(
                line,
                format!("host '{host}': '{}' is not an address", t.address),
            ));
        }
        Ok(t)
    }
}

/// Ansible's booleans: yes/no, true/false, on/off, 1/0, y/n, t/f (any case).
pub fn parse_bool(text: &str) -> Option<bool> {
    match text.trim().to_ascii_lowercase().as_str() {
        "yes" | "true" | "on" | "1" | "y" | "t" => Some(true),
        "no" | "false" | "off" | "0" | "n" | "f" => Some(false),
        _ => None,
    }
}

/// True when the first line that says something looks like YAML: `---`,
/// or a mapping key (`name:` at the end of the line, not `[section]`).
fn looks_like_yaml(text: &str) -> bool {
    for line in text.lines() {
        let l = line.trim();
        if l.is_empty() || l.starts_with('#') || l.starts_with(';') {
            continue;
        }
        return l == "---" || l.starts_with('{') || (!l.starts_with('[') && l.ends_with(':'));
    }
    false
}

#[cfg(test)]
mod tests {
    use super::*;

    pub(super) fn load(name: &str, text: &str) -> anyhow::Result<Inventory> {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join(name);
        std::fs::write(&path, text).unwrap();
        Inventory::load(&path)
    }

    #[test]
    fn precedence_all_then_parents_then_children_then_host() {
        let inv = load(
            "hosts",
            "[all:vars]\nansible_user=everyone\nansible_port=2000\n\
             [web]\nw1 ansible_port=2222\nw2\n\
             [web:vars]\nansible_user=webuser\n\
             [prod:children]\nweb\n\
             [prod:vars]\nansible_user=produser\nansible_ssh_private_key_file=~/.ssh/prod\n",
        )
        .unwrap();
        let w1 = inv.target("w1").unwrap();
        // web (depth 2, child of prod) beats prod (depth 1) beats all.
        assert_eq!(w1.user.as_deref(), Some("webuser"));
        assert_eq!(w1.port, Some(2222));
        assert_eq!(w1.key_file.as_deref(), Some("~/.ssh/prod"));
        assert_eq!(w1.groups, vec!["prod".to_string(), "web".to_string()]);
        assert_eq!(inv.target("w2").unwrap().port, Some(2000));
        assert_eq!(inv.hosts_of("prod").unwrap(), vec!["w1", "w2"]);
    }

    #[test]
    fn become_connection_and_templates() {
        let inv = load(
            "inv.ini",
            "a ansible_become=yes\nb ansible_become=true ansible_become_user=bench\n\
             c ansible_become=maybe\nd ansible_connection=docker\n\
             e ansible_host=\"{{ lookup('env','X') }}\"\nf ansible_become=1 ansible_become_method=su\n\
             g ansible_ssh_common_args='-o ProxyJump=bastion -o \"IdentityAgent none\"'\n",
        )
        .unwrap();
        assert_eq!(inv.target("a").unwrap().become_.unwrap().user, "root");
        assert_eq!(inv.target("b").unwrap().become_.unwrap().user, "bench");
        let err = |h: &str| inv.target(h).unwrap_err().to_string();
        assert!(
            err("c").ends_with("inv.ini:3: ansible_become: 'maybe' is not a boolean"),
            "{}",
            err("c")
        );
        assert!(err("d").contains("inv.ini:4: ansible_connection=docker"));
        assert!(err("e").contains("inv.ini:5: ansible_host: "));
        assert!(err("e").contains("Jinja"));
        assert!(err("f").contains("inv.ini:6: ansible_become_method=su"));
        assert_eq!(
            inv.target("g").unwrap().ssh_args,
            vec!["-o", "ProxyJump=bastion", "-o", "IdentityAgent none"]
        );
    }

    #[test]
    fn cycles_are_refused() {
        let e = load("c.ini", "[a:children]\nb\n[b:children]\na\n").unwrap_err();
        assert!(e.to_string().contains("contains itself"), "{e}");
    }

    #[test]
    fn yaml_is_recognised_without_extension() {
        assert!(looks_like_yaml("# c\n---\nall:\n"));
        assert!(looks_like_yaml("all:\n  hosts:\n"));
        assert!(!looks_like_yaml("[web]\nhost1\n"));
        assert!(!looks_like_yaml("host1 ansible_port=22\n"));
        assert!(!looks_like_yaml(""));
    }
}
