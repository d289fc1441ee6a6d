//! Ansible's YAML inventory format:
//!
//! ```yaml
//! all:
//!   vars:
//!     ansible_user: deploy
//!   hosts:
//!     bastion:
//!       ansible_host: 203.0.113.9
//!   children:
//!     web:
//!       hosts:
//!         web[01:03].example.com:
//!         db.example.com:
//!           ansible_port: 2222
//! ```
//!
//! Top-level keys are groups; a group has `hosts`, `vars` and `children`
//! and nothing else; a host maps to its variables (or nothing). The YAML is
//! read through yaml-rust2's event parser so that every refused entry can
//! name its line (anchors and aliases work; `<<` merge keys do not).

use super::{ranges, Inventory, Var};
use yaml_rust2::parser::{Event, MarkedEventReceiver, Parser};
use yaml_rust2::scanner::Marker;

/// A YAML node with the line it starts on.
#[derive(Debug, Clone)]
enum Node {
    Scalar(String, usize),
    Map(Vec<(Node, Node)>, usize),
    /// A sequence: no inventory entry is one, so its items are not kept.
    Seq(usize),
}

impl Node {
    fn line(&self) -> usize {
        match self {
            Node::Scalar(_, l) | Node::Map(_, l) | Node::Seq(l) => *l,
        }
    }

    /// YAML's null: an empty plain scalar, `~` or `null`.
    fn is_null(&self) -> bool {
        matches!(self, Node::Scalar(s, _) if s.is_empty() || s == "~" || s == "null")
    }
}

/// A collection being read: its items so far, its line and anchor.
enum Frame {
    Seq(usize, usize),
    /// Pairs so far, and a key waiting for its value.
    Map(Vec<(Node, Node)>, Option<Node>, usize, usize),
}

/// Builds nodes from the parser's events.
#[derive(Default)]
struct Builder {
    stack: Vec<Frame>,
    anchors: std::collections::HashMap<usize, Node>,
    docs: Vec<Node>,
}

impl Builder {
    fn push_value(&mut self, node: Node, anchor: usize) {
        if anchor > 0 {
            self.anchors.insert(anchor, node.clone());
        }
        match self.stack.last_mut() {
            None => self.docs.push(node),
            Some(Frame::Seq(..)) => {}
            Some(Frame::Map(pairs, pending, ..)) => match pending.take() {
                Some(key) => pairs.push((key, node)),
                None => *pending = Some(node),
            },
        }
    }
}

impl MarkedEventReceiver for Builder {
    fn on_event(&mut self, ev: Event, mark: Marker) {
        let line = mark.line();
        match ev {
            Event::Scalar(value, _, anchor, _) => {
                self.push_value(Node::Scalar(value, line), anchor)
            }
            Event::SequenceStart(anchor, _) => self.stack.push(Frame::Seq(line, anchor)),
            Event::MappingStart(anchor, _) => {
                self.stack.push(Frame::Map(Vec::new(), None, line, anchor))
            }
            Event::SequenceEnd | Event::MappingEnd => match self.stack.pop() {
                Some(Frame::Seq(line, anchor)) => self.push_value(Node::Seq(line), anchor),
                Some(Frame::Map(pairs, _, line, anchor)) => {
                    self.push_value(Node::Map(pairs, line), anchor)
                }
                None => {}
            },
            Event::Alias(id) => {
                let node = self
                    .anchors
                    .get(&id)
                    .cloned()
                    .unwrap_or(Node::Scalar(String::new(), line));
                self.push_value(node, 0);
            }
            _ => {}
        }
    }
}

pub(super) fn parse(text: &str, inv: &mut Inventory) -> anyhow::Result<()> {
    let mut builder = Builder::default();
    let mut parser = Parser::new_from_str(text);
    parser
        .load(&mut builder, false)
        .map_err(|e| inv.error(e.marker().line(), format!("not valid YAML: {}", e.info())))?;
    let Some(root) = builder.docs.into_iter().next() else {
        return Ok(()); // An empty file: no hosts.
    };
    if root.is_null() {
        return Ok(());
    }
    let Node::Map(groups, _) = root else {
        return Err(inv.error(
            root.line(),
            "an inventory is a mapping of group names (all: ...)",
        ));
    };
    for (key, value) in groups {
        // A top-level group joins `all` at the end, when no other group
        // holds it (`reconcile`): Ansible's YAML plugin does not add it.
        let name = group_name(inv, &key)?;
        group(inv, &name, &value)?;
    }
    Ok(())
}

/// A `group_vars/` or `host_vars/` file: one mapping of variables (an
/// empty file sets nothing).
pub(super) fn vars_file(text: &str, inv: &Inventory) -> anyhow::Result<Vec<Var>> {
    let mut builder = Builder::default();
    let mut parser = Parser::new_from_str(text);
    parser
        .load(&mut builder, false)
        .map_err(|e| inv.error(e.marker().line(), format!("not valid YAML: {}", e.info())))?;
    match builder.docs.into_iter().next() {
        None => Ok(Vec::new()),
        Some(root) if root.is_null() => Ok(Vec::new()),
        Some(root @ Node::Map(..)) => variables(inv, &root, "variables"),
        Some(other) => Err(inv.error(other.line(), "a variables file is a mapping (name: value)")),
    }
}

fn group_name(inv: &Inventory, key: &Node) -> anyhow::Result<String> {
    match key {
        Node::Scalar(s, _)
            if !s.is_empty() && !s.chars().any(|c| c.is_whitespace() || "[]:=,".contains(c)) =>
        {
            Ok(s.clone())
        }
        other => Err(inv.error(other.line(), "a group name must be a plain word")),
    }
}

fn group(inv: &mut Inventory, name: &str, node: &Node) -> anyhow::Result<()> {
    inv.group(name, node.line());
    if node.is_null() {
        return Ok(());
    }
    let Node::Map(entries, _) = node else {
        return Err(inv.error(
            node.line(),
            format!("group '{name}': expected hosts:, vars: or children:"),
        ));
    };
    for (key, value) in entries {
        let Node::Scalar(k, line) = key else {
            return Err(inv.error(key.line(), format!("group '{name}': a key must be a word")));
        };
        match k.as_str() {
            "hosts" => {
                for (host, vars) in mapping(inv, value, &format!("{name}.hosts"))? {
                    let Node::Scalar(h, hline) = host else {
                        return Err(inv.error(host.line(), "a host name must be a word"));
                    };
                    let vars = variables(inv, vars, &format!("host '{h}'"))?;
                    for expanded in ranges::expand(h).map_err(|e| inv.error(*hline, e))? {
                        inv.add_host(name, &expanded, *hline, vars.clone())
                            .map_err(|e| inv.error(*hline, e))?;
                    }
                }
            }
            "vars" => {
                for v in variables(inv, value, &format!("{name}.vars"))? {
                    inv.add_group_var(name, v)?;
                }
            }
            "children" => {
                for (child, body) in mapping(inv, value, &format!("{name}.children"))? {
                    let child_name = group_name(inv, child)?;
                    inv.add_child(name, &child_name, child.line());
                    group(inv, &child_name, body)?;
                }
            }
            other => {
                return Err(inv.error(
                    *line,
                    format!("group '{name}': unknown key '{other}' (hosts, vars or children)"),
                ))
            }
        }
    }
    Ok(())
}

/// The pairs of a mapping (nothing for null).
fn mapping<'a>(
    inv: &Inventory,
    node: &'a Node,
    what: &str,
) -> anyhow::Result<Vec<(&'a Node, &'a Node)>> {
    match node {
        n if n.is_null() => Ok(Vec::new()),
        Node::Map(pairs, _) => Ok(pairs.iter().map(|(k, v)| (k, v)).collect()),
        other => Err(inv.error(other.line(), format!("{what}: expected a mapping"))),
    }
}

/// Variables: scalar values as text; lists and mappings are kept as
/// nothing (candor uses only scalar connection variables).
fn variables(inv: &Inventory, node: &Node, what: &str) -> anyhow::Result<Vec<Var>> {
    let mut out = Vec::new();
    for (k, v) in mapping(inv, node, what)? {
        let Node::Scalar(key, line) = k else {
            return Err(inv.error(k.line(), format!("{what}: a variable name must be a word")));
        };
        if let Node::Scalar(value, _) = v {
            out.push(Var {
                key: key.clone(),
                value: value.clone(),
                line: *line,
                file: inv.current,
            });
        }
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::super::tests::load;

    #[test]
    fn groups_children_vars_ranges() {
        let inv = load(
            "inv.yml",
            "all:\n  vars:\n    ansible_user: everyone\n  hosts:\n    bastion:\n      ansible_host: 203.0.113.9\n  \
             children:\n    web:\n      hosts:\n        web[1:2]:\n        db:\n          ansible_port: 2222\n          \
             ansible_become: true\n      vars: &v\n        ansible_user: deploy\n    other:\n      vars: *v\n      hosts: {x: }\n",
        )
        .unwrap();
        assert_eq!(inv.host_names(), &["bastion", "web1", "web2", "db", "x"]);
        assert_eq!(
            inv.target("bastion").unwrap().user.as_deref(),
            Some("everyone")
        );
        let db = inv.target("db").unwrap();
        assert_eq!((db.port, db.user.as_deref()), (Some(2222), Some("deploy")));
        assert!(db.become_.is_some());
        assert_eq!(inv.target("x").unwrap().user.as_deref(), Some("deploy"));
        assert_eq!(inv.hosts_of("web").unwrap(), vec!["web1", "web2", "db"]);
    }

    #[test]
    fn bad_entries_name_their_line() {
        for (text, line, what) in [
            (
                "all:\n  hosts:\n    a:\n  hostz:\n",
                4,
                "unknown key 'hostz'",
            ),
            ("all:\n  hosts: [a, b]\n", 2, "expected a mapping"),
            ("all:\n  hosts:\n    a: {\n", 4, "not valid YAML"),
            ("- a\n- b\n", 1, "mapping of group names"),
            ("web:\n  hosts:\n    h[1:\n", 3, "without ']'"),
            (
                "web:\n  hosts:\n    h:\n      ansible_port: ssh\n",
                4,
                "not a port",
            ),
        ] {
            let e = load("bad.yaml", text)
                .and_then(|inv| {
                    for h in inv.host_names() {
                        inv.target(h)?;
                    }
                    Ok(inv)
                })
                .unwrap_err()
                .to_string();
            assert!(e.contains(&format!("bad.yaml:{line}: ")), "{text:?}: {e}");
            assert!(e.contains(what), "{text:?}: {e}");
        }
    }

    #[test]
    fn json_is_yaml() {
        let inv = load(
            "inv.json",
            r#"{"all": {"hosts": {"a": {"ansible_port": 22}}}}"#,
        )
        .unwrap();
        assert_eq!(inv.target("a").unwrap().port, Some(22));
    }
}
