//! Ansible's INI inventory format:
//!
//! ```ini
//! bastion ansible_host=203.0.113.9          # before any section: ungrouped
//! [web]
//! web[01:03].example.com ansible_user=deploy
//! db.example.com:2222                       # host:port
//! [web:vars]
//! ansible_become=yes
//! [prod:children]
//! web
//! ```
//!
//! `#` and `;` start comment lines; `#` at the start of a word ends a host
//! line. A line that is none of these (a host line with a word that is not
//! `key=value`, a `[section` without `]`, a `[group:kind]` other than vars
//! and children, a vars line without `=`) is refused with its line number.

use super::{ranges, words, Inventory, Var};

enum Section {
    Hosts(String),
    Vars(String),
    Children(String),
}

pub(super) fn parse(text: &str, inv: &mut Inventory) -> anyhow::Result<()> {
    let mut section = Section::Hosts("ungrouped".to_string());
    inv.add_child("all", "ungrouped", 0);
    for (i, raw) in text.lines().enumerate() {
        let n = i + 1;
        let line = raw.trim();
        if line.is_empty() || line.starts_with('#') || line.starts_with(';') {
            continue;
        }
        if let Some(inner) = line.strip_prefix('[') {
            let inner = inner
                .split_once(']')
                .filter(|(_, after)| {
                    let a = after.trim();
                    a.is_empty() || a.starts_with('#') || a.starts_with(';')
                })
                .map(|(name, _)| name.trim())
                .ok_or_else(|| {
                    inv.error(
                        n,
                        format!("'{line}': a section is [name], [name:vars] or [name:children]"),
                    )
                })?;
            let (name, kind) = match inner.split_once(':') {
                Some((g, k)) => (g.trim(), Some(k.trim())),
                None => (inner, None),
            };
            check_group_name(inv, n, name)?;
            section = match kind {
                None | Some("hosts") => Section::Hosts(name.to_string()),
                Some("vars") => Section::Vars(name.to_string()),
                Some("children") => Section::Children(name.to_string()),
                Some(k) => {
                    return Err(inv.error(
                        n,
                        format!("[{inner}]: unknown section kind '{k}' (vars or children)"),
                    ))
                }
            };
            // A group joins `all` at the end, when no other group holds
            // it (`reconcile`), as in Ansible.
            inv.group(name, n);
            continue;
        }
        match &section {
            Section::Hosts(group) => {
                let group = group.clone();
                host_line(inv, &group, n, line)?;
            }
            Section::Vars(group) => {
                let (key, value) = line.split_once('=').ok_or_else(|| {
                    inv.error(n, format!("'{line}': expected key=value in [{group}:vars]"))
                })?;
                let key = key.trim();
                if key.is_empty() || key.contains(char::is_whitespace) {
                    return Err(inv.error(n, format!("'{line}': '{key}' is not a variable name")));
                }
                let value = unquote(value.trim());
                let group = group.clone();
                let file = inv.current;
                inv.add_group_var(
                    &group,
                    Var {
                        key: key.to_string(),
                        value,
                        line: n,
                        file,
                    },
                )?;
            }
            Section::Children(group) => {
                let w = words::split_commented(line).map_err(|e| inv.error(n, e))?;
                if w.len() != 1 {
                    return Err(inv.error(
                        n,
                        format!("'{line}': one group name per line in [{group}:children]"),
                    ));
                }
                check_group_name(inv, n, &w[0])?;
                let group = group.clone();
                inv.add_child(&group, &w[0], n);
            }
        }
    }
    Ok(())
}

fn check_group_name(inv: &Inventory, n: usize, name: &str) -> anyhow::Result<()> {
    if name.is_empty()
        || name
            .chars()
            .any(|c| c.is_whitespace() || "[]:=,\"'".contains(c))
    {
        return Err(inv.error(n, format!("'{name}' is not a group name")));
    }
    Ok(())
}

/// `host[:port] key=value ...`, the host possibly a range.
fn host_line(inv: &mut Inventory, group: &str, n: usize, line: &str) -> anyhow::Result<()> {
    let w = words::split_commented(line).map_err(|e| inv.error(n, e))?;
    let Some((host, rest)) = w.split_first() else {
        return Ok(());
    };
    let mut vars = Vec::new();
    for word in rest {
        match word.split_once('=') {
            Some((k, v)) if !k.is_empty() => vars.push(Var {
                key: k.to_string(),
                value: v.to_string(),
                line: n,
                file: inv.current,
            }),
            _ => {
                return Err(inv.error(
                    n,
                    format!("'{word}': expected key=value after the host name '{host}'"),
                ))
            }
        }
    }
    // `name:port`: the last ':' outside a range, followed by digits only.
    let (name, port) = split_port(host);
    if let Some(p) = port {
        vars.insert(
            0,
            Var {
                key: "ansible_port".into(),
                value: p.to_string(),
                line: n,
                file: inv.current,
            },
        );
    }
    let names = ranges::expand(name).map_err(|e| inv.error(n, e))?;
    for h in names {
        if h.is_empty() {
            return Err(inv.error(n, format!("'{host}': no host name")));
        }
        inv.add_host(group, &h, n, vars.clone())
            .map_err(|e| inv.error(n, e))?;
    }
    Ok(())
}

fn split_port(host: &str) -> (&str, Option<&str>) {
    if host.starts_with('[') && !host.contains("]:") && host.matches(':').count() > 2 {
        return (host, None);
    }
    let mut depth = 0i32;
    let mut last = None;
    for (i, c) in host.char_indices() {
        match c {
            '[' => depth += 1,
            ']' => depth -= 1,
            ':' if depth == 0 => last = Some(i),
            _ => {}
        }
    }
    match last {
        Some(i)
            if i + 1 < host.len()
                && host[i + 1..].chars().all(|c| c.is_ascii_digit())
                && host[..i].matches(':').count() == host[..i].matches('[').count() =>
        {
            (&host[..i], Some(&host[i + 1..]))
        }
        _ => (host, None),
    }
}

/// A vars value with its quotes removed (`'x y'`, `"x y"`).
fn unquote(value: &str) -> String {
    let b = value.as_bytes();
    if b.len() >= 2 && (b[0] == b'"' || b[0] == b'\'') && b[b.len() - 1] == b[0] {
        value[1..value.len() - 1].to_string()
    } else {
        value.to_string()
    }
}

#[cfg(test)]
mod tests {
    use super::super::tests::load;

    #[test]
    fn groups_hosts_ranges_ports() {
        let inv = load(
            "hosts.ini",
            "; comment\nbastion ansible_host=203.0.113.9\n\n[web]\nweb[1:2] ansible_user=deploy # c\n\
             db.example.com:2222\n[web:vars]\nansible_become = yes\nx='a b'\n[prod:children]\nweb\n",
        )
        .unwrap();
        assert_eq!(
            inv.host_names(),
            &["bastion", "web1", "web2", "db.example.com"]
        );
        assert_eq!(
            inv.hosts_of("prod").unwrap(),
            vec!["web1", "web2", "db.example.com"]
        );
        assert_eq!(inv.hosts_of("ungrouped").unwrap(), vec!["bastion"]);
        let db = inv.target("db.example.com").unwrap();
        assert_eq!(db.port, Some(2222));
        assert!(db.become_.is_some());
        assert_eq!(inv.target("bastion").unwrap().address, "203.0.113.9");
        assert_eq!(inv.target("web2").unwrap().user.as_deref(), Some("deploy"));
    }

    #[test]
    fn bad_lines_name_file_and_line() {
        for (text, line, what) in [
            ("[web\nh1\n", 1, "a section is"),
            ("[web:hostvars]\n", 1, "unknown section kind"),
            ("[web]\nh1 port\n", 2, "expected key=value"),
            ("[web]\nh1 a='b\n", 2, "not closed"),
            ("[web:vars]\nansible_user\n", 2, "expected key=value"),
            ("[web:children]\na b\n", 2, "one group name"),
            ("[web]\nh[1:\n", 2, "without ']'"),
            ("[we b]\n", 1, "not a group name"),
        ] {
            let e = load("bad.ini", text).unwrap_err().to_string();
            assert!(e.contains(&format!("bad.ini:{line}: ")), "{text:?}: {e}");
            assert!(e.contains(what), "{text:?}: {e}");
        }
    }

    #[test]
    fn ports_are_split_only_where_unambiguous() {
        use super::split_port;
        assert_eq!(split_port("h:22"), ("h", Some("22")));
        assert_eq!(split_port("w[01:03]:22"), ("w[01:03]", Some("22")));
        assert_eq!(split_port("w[01:03]"), ("w[01:03]", None));
        assert_eq!(split_port("h"), ("h", None));
        assert_eq!(split_port("fe80::1"), ("fe80::1", None));
    }
}
