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
//! An inventory is a file or a directory of them, with `group_vars/` and
//! `host_vars/` beside it (`load`). Variables are applied as Ansible
//! 2.14's default `VARIABLE_PRECEDENCE` applies them (`vars_of`): the
//! inventory's group variables (`all` first, then parents before their
//! children, groups at the same depth by `ansible_group_priority` and
//! name), then `group_vars/` in the same order, then the host's own, then
//! `host_vars/`. A value candor would have to evaluate as a Jinja template
//! is refused rather than used as text. Every error names the file and
//! line.

pub mod aliases;
pub mod ansible_list;
mod ini;
mod ranges;
pub mod reader;
pub mod words;
mod yaml;

use super::target::{parse_port, Become, Target};
use std::collections::{BTreeMap, BTreeSet, HashMap, HashSet};
use std::path::{Path, PathBuf};

/// A variable with the line that set it (for errors).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Var {
    pub key: String,
    pub value: String,
    pub line: usize,
    /// The file that set it: an index into the inventory's files.
    pub file: usize,
}

#[derive(Debug, Clone, Default)]
struct HostDef {
    /// Where the host first appears.
    line: usize,
    file: usize,
    /// Variables set in the inventory source.
    vars: Vec<Var>,
    /// Variables from `host_vars/` (they override `vars`).
    file_vars: Vec<Var>,
}

#[derive(Debug, Clone, Default)]
struct GroupDef {
    line: usize,
    file: usize,
    hosts: Vec<String>,
    /// `hosts` as a set: membership in constant time (100,000 hosts in one
    /// group took 148 s to read with a list).
    members: HashSet<String>,
    children: Vec<String>,
    /// Variables set in the inventory source.
    vars: Vec<Var>,
    /// Variables from `group_vars/`.
    file_vars: Vec<Var>,
    /// `ansible_group_priority`: orders groups of equal depth (lower first,
    /// so a higher priority wins).
    priority: i64,
}

/// A parsed inventory: hosts in the order they first appear, and groups.
#[derive(Debug, Clone)]
pub struct Inventory {
    /// What `-i` named: a file or a directory.
    path: PathBuf,
    /// Every file read, in order (sources, then variable files).
    files: Vec<PathBuf>,
    /// The file being read now (for errors while parsing).
    current: usize,
    order: Vec<String>,
    hosts: BTreeMap<String, HostDef>,
    groups: BTreeMap<String, GroupDef>,
    /// Group names in the order they were first met (Ansible's dict order).
    group_order: Vec<String>,
    /// Built once the inventory is read: the groups that hold each host
    /// directly, and each group's parents, so that a host's groups take
    /// time in its own groups, not in the whole inventory.
    direct: HashMap<String, Vec<String>>,
    parents: HashMap<String, Vec<String>>,
    /// Host entries read so far (each host of each line, after ranges).
    entries: usize,
    limits: Limits,
    /// What the reader did that Ansible versions disagree on, or could not
    /// resolve: said once, before anything runs.
    warnings: Vec<String>,
    /// Which reader read it (`reader::read` says so).
    reader: String,
}

/// The most hosts an inventory may hold: ten ranges of the largest one
/// name may stand for. A fleet is measured host by host, so more is a typo
/// (ranges on many lines), and the bound keeps memory in proportion to a
/// fleet anyone could measure (200,000 hosts take about 220 MB to list).
pub const MAX_INVENTORY_HOSTS: usize = 10 * ranges::MAX_HOSTS;

/// The most host entries (a host on a line of a group, after its ranges)
/// an inventory may hold: its hosts in a few groups each, not one range
/// repeated on every line of a 4 MiB file.
pub const MAX_HOST_ENTRIES: usize = 4 * MAX_INVENTORY_HOSTS;

/// The bounds an inventory is read within (the constants above; tests
/// read with smaller ones).
#[derive(Debug, Clone, Copy)]
pub struct Limits {
    pub hosts: usize,
    pub entries: usize,
}

impl Default for Limits {
    fn default() -> Limits {
        Limits {
            hosts: MAX_INVENTORY_HOSTS,
            entries: MAX_HOST_ENTRIES,
        }
    }
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
    /// Reads an inventory as Ansible 2.14 does: a file, or a directory of
    /// sources read in name order (subdirectories too; hidden files,
    /// `group_vars`, `host_vars` and Ansible's ignored extensions such as
    /// `.ini`, `.md`, `.txt`, `~` skipped), then `group_vars/` and
    /// `host_vars/` beside the file (or inside the directory).
    pub fn load(path: &Path) -> anyhow::Result<Inventory> {
        Inventory::load_limited(path, Limits::default())
    }

    /// An inventory with only `all` and `ungrouped`, for a reader to fill.
    fn empty(path: &Path, limits: Limits) -> Inventory {
        let mut inv = Inventory {
            path: path.to_path_buf(),
            files: Vec::new(),
            current: 0,
            order: Vec::new(),
            hosts: BTreeMap::new(),
            groups: BTreeMap::new(),
            group_order: Vec::new(),
            direct: HashMap::new(),
            parents: HashMap::new(),
            entries: 0,
            limits,
            warnings: Vec::new(),
            reader: "candor's own reader".into(),
        };
        inv.group("all", 0);
        inv.add_child("all", "ungrouped", 0);
        inv
    }

    /// `load` within other bounds than `Limits::default()`.
    pub fn load_limited(path: &Path, limits: Limits) -> anyhow::Result<Inventory> {
        let mut inv = Inventory::empty(path, limits);
        let basedir = if path.is_dir() {
            inv.load_dir(path, 0)?;
            path.to_path_buf()
        } else {
            inv.load_source(path)?;
            path.parent().map(Path::to_path_buf).unwrap_or_default()
        };
        inv.reconcile();
        inv.load_vars_dirs(&basedir)?;
        inv.check_cycles()?;
        inv.index();
        Ok(inv)
    }

    /// Builds `direct` and `parents` (the groups no longer change).
    fn index(&mut self) {
        self.direct.clear();
        self.parents.clear();
        for (name, g) in &self.groups {
            for h in &g.hosts {
                self.direct.entry(h.clone()).or_default().push(name.clone());
            }
            for c in &g.children {
                self.parents
                    .entry(c.clone())
                    .or_default()
                    .push(name.clone());
            }
        }
    }

    /// One inventory source file. `.yml`, `.yaml` and `.json` are YAML
    /// (JSON is YAML); `.ini` is INI; any other name is YAML when its first
    /// line that says something is a YAML mapping key or `---`, else INI
    /// (as Ansible tries its YAML plugin before its INI plugin).
    fn load_source(&mut self, path: &Path) -> anyhow::Result<()> {
        // Ansible runs an executable source as an inventory script (its
        // `script` plugin); reading its text as hosts would be a guess.
        if is_executable(path) {
            return Err(error_at(
                path,
                0,
                "executable: Ansible runs it as an inventory script, which candor's own reader does not (install ansible-core: candor then reads through ansible-inventory)",
            ));
        }
        let text =
            crate::input::read_text(path).map_err(|e| crate::error::usage(format!("-i {e}")))?;
        let ext = path
            .extension()
            .map(|e| e.to_string_lossy().to_ascii_lowercase());
        let is_yaml = match ext.as_deref() {
            Some("yml" | "yaml" | "json") => true,
            Some("ini") => false,
            _ => looks_like_yaml(&text),
        };
        self.begin_file(path);
        if is_yaml {
            yaml::parse(&text, self)
        } else {
            ini::parse(&text, self)
        }
    }

    /// An inventory directory: its entries in byte order, as Ansible's
    /// `sorted(os.listdir())`. Depth is bounded so a symlink loop ends.
    fn load_dir(&mut self, dir: &Path, depth: usize) -> anyhow::Result<()> {
        if depth > 16 {
            return Err(error_at(
                dir,
                0,
                "inventory directories nested deeper than 16",
            ));
        }
        let mut names: Vec<std::ffi::OsString> = std::fs::read_dir(dir)
            .map_err(|e| error_at(dir, 0, format!("cannot list the directory: {e}")))?
            .map(|e| e.map(|e| e.file_name()))
            .collect::<Result<_, _>>()
            .map_err(|e| error_at(dir, 0, format!("cannot list the directory: {e}")))?;
        names.sort_by(|a, b| a.as_encoded_bytes().cmp(b.as_encoded_bytes()));
        for name in names {
            if ignored_in_directory(&name.to_string_lossy()) {
                continue;
            }
            let full = dir.join(&name);
            if full.is_dir() {
                self.load_dir(&full, depth + 1)?;
            } else {
                if name.to_string_lossy().ends_with(".ini") {
                    self.warnings.push(format!(
                        "{}: read as an inventory source, as ansible-core 2.19 and later read it (2.18 and older skip .ini files in an inventory directory)",
                        full.display()
                    ));
                }
                self.load_source(&full)?;
            }
        }
        Ok(())
    }

    /// Records a file and makes it the one errors name.
    fn begin_file(&mut self, path: &Path) {
        self.files.push(path.to_path_buf());
        self.current = self.files.len() - 1;
    }

    /// As Ansible's `reconcile_inventory`: a group no other group holds
    /// becomes a child of `all` (after `ungrouped` and the children the
    /// inventory gave `all` itself, in the order groups were met); a host
    /// in no group but `all` is in `ungrouped`; a host in another group is
    /// not. `all`'s own hosts stay: they come first in `all`'s order.
    fn reconcile(&mut self) {
        let held: BTreeSet<String> = self
            .groups
            .values()
            .flat_map(|g| g.children.iter().cloned())
            .collect();
        let parentless: Vec<String> = self
            .group_order
            .iter()
            .filter(|g| *g != "all" && !held.contains(*g))
            .cloned()
            .collect();
        for g in parentless {
            self.add_child("all", &g, 0);
        }
        let grouped: BTreeSet<String> = self
            .groups
            .iter()
            .filter(|(n, _)| *n != "all" && *n != "ungrouped")
            .flat_map(|(_, g)| g.hosts.iter().cloned())
            .collect();
        let lone: Vec<String> = self
            .order
            .iter()
            .filter(|h| !grouped.contains(*h))
            .cloned()
            .collect();
        let ungrouped = self.group("ungrouped", 0);
        ungrouped.hosts.retain(|h| !grouped.contains(h));
        ungrouped.members.retain(|h| !grouped.contains(h));
        for h in lone {
            if ungrouped.members.insert(h.clone()) {
                ungrouped.hosts.push(h);
            }
        }
    }

    /// `group_vars/NAME` and `host_vars/NAME` under `basedir`, for every
    /// group and host of the inventory, as Ansible's host_group_vars
    /// plugin finds them: the first of `NAME`, `NAME.yml`, `NAME.yaml`,
    /// `NAME.json` that exists; a directory is every file in it (sorted,
    /// recursively; hidden files, `~` backups and other extensions
    /// skipped), merged in order.
    fn load_vars_dirs(&mut self, basedir: &Path) -> anyhow::Result<()> {
        for (subdir, is_group) in [("group_vars", true), ("host_vars", false)] {
            let dir = basedir.join(subdir);
            if !dir.is_dir() {
                continue;
            }
            let names: Vec<String> = if is_group {
                self.groups.keys().cloned().collect()
            } else {
                self.order.clone()
            };
            for name in names {
                if name.starts_with('/') {
                    continue;
                }
                for file in vars_files(&dir, &name)? {
                    let text = crate::input::read_text(&file)
                        .map_err(|e| crate::error::usage(format!("-i {e}")))?;
                    self.begin_file(&file);
                    let vars = yaml::vars_file(&text, self)?;
                    if is_group {
                        if let Some(g) = self.groups.get_mut(&name) {
                            g.file_vars.extend(vars);
                        }
                    } else if let Some(h) = self.hosts.get_mut(&name) {
                        h.file_vars.extend(vars);
                    }
                }
            }
        }
        Ok(())
    }

    /// The file it was read from.
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// Every file read (sources, then variable files): inputs of the
    /// command, never one of its outputs.
    pub fn files(&self) -> &[PathBuf] {
        &self.files
    }

    /// What the reader could not settle the way every Ansible would
    /// (one line each), for the caller to print before anything runs.
    pub fn warnings(&self) -> &[String] {
        &self.warnings
    }

    /// Which reader read it.
    pub fn reader(&self) -> &str {
        &self.reader
    }

    /// The settings Ansible would use for this host that candor cannot
    /// (`aliases::NOT_HONOURED`): the variable and why.
    pub fn not_honoured(&self, host: &str) -> Vec<(&'static str, &'static str)> {
        let vars = self.vars_of(host);
        aliases::NOT_HONOURED
            .iter()
            .filter(|(k, _)| vars.contains_key(*k))
            .copied()
            .collect()
    }

    /// An error at a line of this file.
    fn error(&self, line: usize, message: impl std::fmt::Display) -> anyhow::Error {
        self.error_in(self.current, line, message)
    }

    /// An error at a line of one of the files read.
    fn error_in(&self, file: usize, line: usize, message: impl std::fmt::Display) -> anyhow::Error {
        error_at(self.files.get(file).unwrap_or(&self.path), line, message)
    }

    /// The group, created on first mention.
    fn group(&mut self, name: &str, line: usize) -> &mut GroupDef {
        let file = self.current;
        if !self.groups.contains_key(name) {
            self.group_order.push(name.to_string());
        }
        self.groups
            .entry(name.to_string())
            .or_insert_with(|| GroupDef {
                line,
                file,
                ..GroupDef::default()
            })
    }

    /// Adds a host (a name after range expansion) to a group, with its
    /// vars; refused past the inventory's `Limits`.
    fn add_host(
        &mut self,
        group: &str,
        name: &str,
        line: usize,
        vars: Vec<Var>,
    ) -> Result<(), String> {
        self.entries += 1;
        if self.entries > self.limits.entries {
            return Err(format!(
                "more than {} host entries (a host counts once per line it is on, after its ranges): candor measures hosts one by one; split the inventory",
                self.limits.entries
            ));
        }
        if !self.hosts.contains_key(name) {
            if self.hosts.len() >= self.limits.hosts {
                return Err(format!(
                    "'{name}': more than {} hosts in the inventory: candor measures hosts one by one; split the inventory",
                    self.limits.hosts
                ));
            }
            self.order.push(name.to_string());
        }
        let def = self.hosts.entry(name.to_string()).or_insert(HostDef {
            line,
            file: self.current,
            ..HostDef::default()
        });
        def.vars.extend(vars);
        let g = self.group(group, line);
        if g.members.insert(name.to_string()) {
            g.hosts.push(name.to_string());
        }
        Ok(())
    }

    fn add_child(&mut self, parent: &str, child: &str, line: usize) {
        self.group(child, line);
        let g = self.group(parent, line);
        if !g.children.iter().any(|c| c == child) {
            g.children.push(child.to_string());
        }
    }

    /// A group variable from the inventory source; `ansible_group_priority`
    /// is the group's priority, as Ansible's `Group.set_variable` takes it.
    fn add_group_var(&mut self, group: &str, var: Var) -> anyhow::Result<()> {
        let line = var.line;
        if var.key == "ansible_group_priority" {
            let p: i64 = var.value.trim().parse().map_err(|_| {
                self.error(
                    line,
                    format!("ansible_group_priority: '{}' is not an integer", var.value),
                )
            })?;
            self.group(group, line).priority = p;
            return Ok(());
        }
        self.group(group, line).vars.push(var);
        Ok(())
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
                let (file, line) = inv
                    .groups
                    .get(name)
                    .map(|g| (g.file, g.line))
                    .unwrap_or((0, 0));
                return Err(inv.error_in(
                    file,
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

    /// `all`'s own hosts, in this order (ansible-inventory's order of
    /// `all`): they come first in `all`, before its children's.
    pub(super) fn put_first_in_all(&mut self, names: &[String]) {
        let known: Vec<String> = names
            .iter()
            .filter(|n| self.hosts.contains_key(*n))
            .cloned()
            .collect();
        if let Some(all) = self.groups.get_mut("all") {
            all.members = known.iter().cloned().collect();
            all.hosts = known;
        }
        self.index();
    }

    /// Host names in inventory order.
    pub fn host_names(&self) -> &[String] {
        &self.order
    }

    /// Whether the inventory has a host of this exact name.
    pub fn has_host(&self, name: &str) -> bool {
        self.hosts.contains_key(name)
    }

    /// Group names (`all` and `ungrouped` included).
    pub fn group_names(&self) -> impl Iterator<Item = &String> {
        self.groups.keys()
    }

    /// Group names in the order Ansible's inventory dict holds them.
    pub fn groups_in_order(&self) -> &[String] {
        &self.group_order
    }

    /// The hosts of a group and of its descendants in Ansible's order
    /// (`Group.get_hosts`): the group's own hosts, then its children's
    /// level by level, each group's hosts in the order they were added.
    /// `all`'s children are `ungrouped`, the groups the inventory put under
    /// `all`, then the groups no other group holds (`reconcile`). Below the
    /// first level Ansible walks a set, whose order varies from run to run;
    /// candor takes the parents in their order. None for an unknown group.
    pub fn hosts_of(&self, group: &str) -> Option<Vec<String>> {
        self.groups.get(group)?;
        let children_of = |g: &str| -> Vec<String> {
            self.groups
                .get(g)
                .map(|d| d.children.clone())
                .unwrap_or_default()
        };
        let mut ordered = vec![group.to_string()];
        let mut seen: BTreeSet<String> = ordered.iter().cloned().collect();
        let mut level = vec![group.to_string()];
        while !level.is_empty() {
            let mut next = Vec::new();
            for g in &level {
                for c in children_of(g) {
                    if seen.insert(c.clone()) {
                        ordered.push(c.clone());
                        next.push(c);
                    }
                }
            }
            level = next;
        }
        let mut out: Vec<String> = Vec::new();
        let mut have = BTreeSet::new();
        for g in &ordered {
            for h in self
                .groups
                .get(g)
                .map(|d| d.hosts.as_slice())
                .unwrap_or(&[])
            {
                if have.insert(h.clone()) {
                    out.push(h.clone());
                }
            }
        }
        Some(out)
    }

    /// Every group a host is in, directly or through children, with its
    /// depth below `all` (Ansible applies shallower groups first).
    fn groups_of(&self, host: &str) -> Vec<(usize, String)> {
        let parents = &self.parents;
        // Depth: the longest chain of parents up to a top-level group (1); `all` is 0.
        fn depth<'a>(
            g: &'a str,
            parents: &'a HashMap<String, Vec<String>>,
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
            .direct
            .get(host)
            .map(|gs| gs.iter().map(String::as_str).collect())
            .unwrap_or_default();
        while let Some(g) = stack.pop() {
            if found.insert(g) {
                if let Some(ps) = parents.get(g) {
                    stack.extend(ps.iter().map(String::as_str));
                }
            }
        }
        found.insert("all");
        let mut out: Vec<(usize, i64, String)> = found
            .into_iter()
            .map(|g| {
                let priority = self.groups.get(g).map(|d| d.priority).unwrap_or(0);
                (depth(g, parents, &mut memo), priority, g.to_string())
            })
            .collect();
        out.sort();
        out.into_iter().map(|(d, _, g)| (d, g)).collect()
    }

    /// The variables in force for a host, each with the line that set it.
    /// Ansible's default precedence (`VARIABLE_PRECEDENCE`): `all`'s
    /// inventory variables, the other groups' (by depth, priority, name),
    /// `group_vars/all`, the other groups' `group_vars/`, then the host's
    /// inventory variables and its `host_vars/`; each later layer wins.
    fn vars_of(&self, host: &str) -> BTreeMap<String, Var> {
        let groups: Vec<&GroupDef> = self
            .groups_of(host)
            .into_iter()
            .filter_map(|(_, g)| self.groups.get(&g))
            .collect();
        // groups_of puts `all` (depth 0) first.
        let layers = groups
            .iter()
            .map(|g| &g.vars)
            .chain(groups.iter().map(|g| &g.file_vars))
            .chain(self.hosts.get(host).map(|h| &h.vars))
            .chain(self.hosts.get(host).map(|h| &h.file_vars));
        let mut vars = BTreeMap::new();
        for layer in layers {
            for v in layer {
                vars.insert(v.key.clone(), v.clone());
            }
        }
        vars
    }

    /// The host as a target: its variables applied. Errors name the line
    /// of the variable at fault.
    pub fn target(&self, host: &str) -> anyhow::Result<Target> {
        let vars = self.vars_of(host);
        // Of the names a setting has, the last one set wins, as Ansible's
        // ConfigManager reads a connection plugin's `vars:` list (the ssh
        // plugin lists `ansible_host` before `ansible_ssh_host`, so the
        // legacy name wins wherever each is set).
        let get = |keys: &[&str]| -> anyhow::Result<Option<&Var>> {
            for k in keys.iter().rev() {
                if let Some(v) = vars.get(*k) {
                    if ansible_list::is_template(&v.value) {
                        return Err(self.error_in(
                            v.file,
                            v.line,
                            format!(
                                "{k}: '{}' is a Jinja template; candor's own reader does not evaluate templates (write the value, or install ansible-core: candor then reads through ansible-inventory and Ansible evaluates it)",
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
        if let Some(v) = get(aliases::HOST)? {
            t.address = v.value.clone();
        }
        if let Some(v) = get(aliases::PORT)? {
            t.port = Some(
                parse_port(&v.key, &v.value)
                    .map_err(|e| self.error_in(v.file, v.line, format!("ansible_port: {e}")))?,
            );
        }
        if let Some(v) = get(aliases::USER)? {
            t.user = Some(v.value.clone());
        }
        if let Some(v) = get(aliases::PRIVATE_KEY_FILE)? {
            t.key_file = Some(v.value.clone());
        }
        for key in ["ansible_ssh_common_args", "ansible_ssh_extra_args"] {
            if let Some(v) = get(&[key])? {
                t.ssh_args.extend(
                    words::split(&v.value)
                        .map_err(|e| self.error_in(v.file, v.line, format!("{key}: {e}")))?,
                );
            }
        }
        if let Some(v) = get(&["ansible_connection"])? {
            if !matches!(v.value.as_str(), "ssh" | "smart" | "paramiko") {
                return Err(self.error_in(
                    v.file,
                    v.line,
                    format!(
                        "ansible_connection={} (host '{host}'): candor fleet reaches hosts over ssh only{}",
                        v.value,
                        if v.value == "local" {
                            " (to measure the controller, run candor run here, or name it user@localhost)"
                        } else {
                            ""
                        }
                    ),
                ));
            }
        }
        let become_ = match get(&["ansible_become"])? {
            Some(v) => parse_bool(&v.value).ok_or_else(|| {
                self.error_in(
                    v.file,
                    v.line,
                    format!("ansible_become: '{}' is not a boolean", v.value),
                )
            })?,
            None => false,
        };
        if become_ {
            if let Some(v) = get(&["ansible_become_method"])? {
                if v.value != "sudo" {
                    return Err(self.error_in(v.file, v.line,
                        format!("ansible_become_method={}: candor becomes root with sudo only (non-interactive, sudo -n)", v.value),
                    ));
                }
            }
            let user = get(aliases::BECOME_USER)?
                .map(|v| v.value.clone())
                .unwrap_or_else(|| "root".to_string());
            t.become_ = Some(Become { user });
        }
        t.groups = self
            .groups_of(host)
            .into_iter()
            .map(|(_, g)| g)
            .filter(|g| g != "all" && g != "ungrouped")
            .collect();
        if t.address.is_empty() || t.address.starts_with('-') {
            let (file, line) = self
                .hosts
                .get(host)
                .map(|h| (h.file, h.line))
                .unwrap_or((0, 0));
            return Err(self.error_in(
                file,
                line,
                format!("host '{host}': '{}' is not an address", t.address),
            ));
        }
        Ok(t)
    }
}

/// Names Ansible skips in an inventory directory: hidden files, the
/// variable directories, and `INVENTORY_IGNORE_EXTS`, ansible-core 2.19's
/// default: `.ini` is no longer among them (ansible/ansible commit
/// 3d40db1ac07ae65cdae0a72e746308f8d2b34bc1, "INVENTORY_IGNORE_EXTS stop
/// ignoring ini", first released in 2.19.0); 2.14 to 2.18 skip `.ini`
/// too, so reading one is said (`load_dir`).
fn ignored_in_directory(name: &str) -> bool {
    const IGNORED_ENDINGS: [&str; 12] = [
        ".pyc", ".pyo", ".swp", ".bak", "~", ".rpm", ".md", ".txt", ".rst", ".orig", ".cfg",
        ".retry",
    ];
    name.starts_with('.')
        || matches!(name, "host_vars" | "group_vars" | "vars_plugins")
        || IGNORED_ENDINGS.iter().any(|e| name.ends_with(e))
}

/// The variable files for NAME in a `group_vars/` or `host_vars/`
/// directory, as Ansible's `DataLoader.find_vars_files` finds them.
fn vars_files(dir: &Path, name: &str) -> anyhow::Result<Vec<PathBuf>> {
    const EXTENSIONS: [&str; 4] = ["", ".yml", ".yaml", ".json"];
    for ext in EXTENSIONS {
        let full = dir.join(format!("{name}{ext}"));
        if full.is_dir() {
            let mut found = Vec::new();
            dir_vars_files(&full, &mut found, 0)?;
            return Ok(found);
        }
        if full.exists() {
            return Ok(vec![full]);
        }
        unresolvable(&full)?;
    }
    Ok(Vec::new())
}

/// A name there whose link cannot be followed (a loop, a link to nothing)
/// is said, not skipped: the variables it was to give would be missing
/// without a word.
fn unresolvable(path: &Path) -> anyhow::Result<()> {
    match (std::fs::symlink_metadata(path), std::fs::metadata(path)) {
        (Ok(link), Err(e)) if link.file_type().is_symlink() => Err(error_at(
            path,
            0,
            format!("a symbolic link that cannot be followed: {e}"),
        )),
        _ => Ok(()),
    }
}

/// Every variables file under a NAME/ directory, sorted, recursively.
fn dir_vars_files(dir: &Path, found: &mut Vec<PathBuf>, depth: usize) -> anyhow::Result<()> {
    if depth > 16 {
        return Err(error_at(
            dir,
            0,
            "variables directories nested deeper than 16 (a symbolic link loop?)",
        ));
    }
    let entries = std::fs::read_dir(dir)
        .map_err(|e| error_at(dir, 0, format!("cannot list the directory: {e}")))?;
    let mut names: Vec<String> = entries
        .filter_map(|e| e.ok())
        .map(|e| e.file_name().to_string_lossy().into_owned())
        .collect();
    names.sort();
    for name in names {
        if name.starts_with('.') || name.ends_with('~') {
            continue;
        }
        let full = dir.join(&name);
        let ext = Path::new(&name)
            .extension()
            .map(|e| format!(".{}", e.to_string_lossy()))
            .unwrap_or_default();
        if full.is_dir() && ext.is_empty() {
            dir_vars_files(&full, found, depth + 1)?;
        } else if full.is_file()
            && (ext.is_empty() || [".yml", ".yaml", ".json"].contains(&ext.as_str()))
        {
            found.push(full);
        } else {
            unresolvable(&full)?;
        }
    }
    Ok(())
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

/// Whether a file is executable (any execute bit): an inventory script.
#[cfg(unix)]
fn is_executable(path: &Path) -> bool {
    use std::os::unix::fs::PermissionsExt;
    std::fs::metadata(path).is_ok_and(|m| m.is_file() && m.permissions().mode() & 0o111 != 0)
}

/// Windows has no execute bit: a script is told by its name there, which
/// candor's reader does not guess at.
#[cfg(windows)]
fn is_executable(_path: &Path) -> bool {
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
    fn legacy_names_win_wherever_they_are_set() {
        // Issue 40: ansible_ssh_host on the host line against ansible_host
        // in group_vars/all; Ansible 2.14.18 connected to awu2@127.0.0.3:2203.
        let dir = tempfile::tempdir().unwrap();
        std::fs::create_dir(dir.path().join("group_vars")).unwrap();
        std::fs::write(
            dir.path().join("group_vars/all.yml"),
            "ansible_host: 127.0.0.1\nansible_port: 2201\nansible_user: root\n\
             ansible_ssh_private_key_file: /k/legacy\nansible_become_user: bench\n",
        )
        .unwrap();
        let hosts = dir.path().join("hosts");
        std::fs::write(
            &hosts,
            "old1 ansible_ssh_host=127.0.0.3 ansible_ssh_port=2203 ansible_ssh_user=awu2 \
             ansible_private_key_file=/k/new ansible_become=yes ansible_sudo_user=old\nnew1\n",
        )
        .unwrap();
        let inv = Inventory::load(&hosts).unwrap();
        let old1 = inv.target("old1").unwrap();
        assert_eq!(old1.destination(), "awu2@127.0.0.3:2203");
        assert_eq!(old1.key_file.as_deref(), Some("/k/legacy"));
        assert_eq!(old1.become_.unwrap().user, "old");
        assert_eq!(
            inv.target("new1").unwrap().destination(),
            "root@127.0.0.1:2201"
        );
    }

    #[test]
    fn ini_files_in_a_directory_are_read_and_said() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(dir.path().join("hosts.ini"), "[web]\nweb1\n").unwrap();
        std::fs::write(dir.path().join("more.yml"), "all:\n  hosts:\n    db1:\n").unwrap();
        std::fs::write(dir.path().join("notes.cfg"), "[web]\nnot_a_host\n").unwrap();
        let inv = Inventory::load(dir.path()).unwrap();
        assert_eq!(inv.host_names(), ["web1", "db1"]);
        assert_eq!(inv.warnings().len(), 1);
        assert!(
            inv.warnings()[0]
                .contains("hosts.ini: read as an inventory source, as ansible-core 2.19"),
            "{:?}",
            inv.warnings()
        );
    }

    #[test]
    fn cycles_are_refused() {
        let e = load("c.ini", "[a:children]\nb\n[b:children]\na\n").unwrap_err();
        assert!(e.to_string().contains("contains itself"), "{e}");
    }

    #[test]
    fn the_whole_inventory_is_bounded_not_only_each_range() {
        // Bounds of a tenth of the real ones, the same mechanism.
        let limits = Limits {
            hosts: MAX_INVENTORY_HOSTS / 10,
            entries: MAX_HOST_ENTRIES / 10,
        };
        let load = |name: &str, text: &str| {
            let dir = tempfile::tempdir().unwrap();
            let path = dir.path().join(name);
            std::fs::write(&path, text).unwrap();
            Inventory::load_limited(&path, limits)
        };
        // Each line's range is within its bound; together they are not.
        let lines: String = (0..3).map(|i| format!("h{i}-[0:49999]\n")).collect();
        let e = load("hosts", &format!("[web]\n{lines}"))
            .unwrap_err()
            .to_string();
        assert!(
            e.contains(":4:") && e.contains("more than 100000 hosts"),
            "{e}"
        );
        // One range repeated in group after group: counted as entries.
        let groups: String = (0..5).map(|i| format!("[g{i}]\nweb[0:99999]\n")).collect();
        let e = load("hosts", &groups).unwrap_err().to_string();
        assert!(e.contains("more than 400000 host entries"), "{e}");
        let yaml = "all:\n  hosts:\n    a[0:59999]:\n    b[0:59999]:\n";
        let e = load("hosts.yml", yaml).unwrap_err().to_string();
        assert!(e.contains("more than 100000 hosts"), "{e}");
        // At the bound: read.
        let inv = load("hosts", "[web]\nh-[0:49999]\nh-[50000:99999]\n").unwrap();
        assert_eq!(inv.host_names().len(), 100_000);
        // The real bounds are ten times these.
        assert_eq!(
            (MAX_INVENTORY_HOSTS, MAX_HOST_ENTRIES),
            (1_000_000, 4_000_000)
        );
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
