//! Which hosts a fleet run measures: the `HOST` arguments, read against
//! the inventory as Ansible's `--limit` reads them. Each argument is one or
//! more comma-separated patterns: a host or group name (`*` matches any
//! characters), `all`, or `!pattern` to leave hosts out. Without an
//! inventory, or for an argument that names no inventory host or group
//! but is written as a target (`user@host`, `host:port`), the argument is
//! a host of its own. A bare name that matches nothing is refused: it is
//! more likely a typo than a new host.

use super::inventory::Inventory;
use super::target::Target;
use crate::error::usage;

/// The targets, in inventory order, then the plain ones in argument order.
pub fn select(inventory: Option<&Inventory>, args: &[String]) -> anyhow::Result<Vec<Target>> {
    let patterns: Vec<&str> = args
        .iter()
        .flat_map(|a| a.split(','))
        .map(str::trim)
        .filter(|p| !p.is_empty())
        .collect();
    let Some(inv) = inventory else {
        if patterns.is_empty() {
            return Err(usage(
                "no hosts: give -i INVENTORY, or hosts as user@host[:port]",
            ));
        }
        let mut out: Vec<Target> = Vec::new();
        for p in patterns {
            let t = Target::parse(p).map_err(|e| usage(format!("HOST {e}")))?;
            if !out.iter().any(|o| o.name == t.name) {
                out.push(t);
            }
        }
        return Ok(out);
    };
    let mut chosen: Vec<String> = Vec::new();
    let mut excluded: Vec<String> = Vec::new();
    let mut plain: Vec<Target> = Vec::new();
    let includes: Vec<&str> = patterns
        .iter()
        .copied()
        .filter(|p| !p.starts_with('!'))
        .collect();
    if includes.is_empty() {
        chosen = inv.host_names().to_vec();
    }
    for p in patterns {
        let (negate, pat) = match p.strip_prefix('!') {
            Some(rest) => (true, rest),
            None => (false, p),
        };
        let hosts = matching(inv, pat);
        if hosts.is_empty() {
            let looks_like_target = !negate
                && (pat.contains('@') || Target::parse(pat).is_ok_and(|t| t.port.is_some()));
            if looks_like_target {
                let t = Target::parse(pat).map_err(|e| usage(format!("HOST {e}")))?;
                if !plain.iter().any(|o| o.name == t.name) {
                    plain.push(t);
                }
                continue;
            }
            return Err(usage(format!(
                "HOST '{pat}' is neither a host nor a group in {} (a host outside it is written user@host or host:port)",
                inv.path().display()
            )));
        }
        if negate {
            excluded.extend(hosts);
        } else {
            chosen.extend(hosts);
        }
    }
    let mut out = Vec::new();
    for name in inv.host_names() {
        if chosen.contains(name) && !excluded.contains(name) {
            out.push(inv.target(name)?);
        }
    }
    out.extend(plain);
    if out.is_empty() {
        return Err(usage(format!(
            "no hosts selected from {}",
            inv.path().display()
        )));
    }
    Ok(out)
}

/// Host names a pattern selects: hosts and groups by name or wildcard.
fn matching(inv: &Inventory, pattern: &str) -> Vec<String> {
    let mut out: Vec<String> = Vec::new();
    for g in inv.group_names() {
        if glob(pattern, g) || (pattern == "*" && g == "all") {
            out.extend(inv.hosts_of(g).unwrap_or_default());
        }
    }
    for h in inv.host_names() {
        if glob(pattern, h) {
            out.push(h.clone());
        }
    }
    out.sort();
    out.dedup();
    out
}

/// `*` matches any run of characters; everything else matches itself.
fn glob(pattern: &str, text: &str) -> bool {
    let Some((head, rest)) = pattern.split_once('*') else {
        return pattern == text;
    };
    let Some(tail) = text.strip_prefix(head) else {
        return false;
    };
    (0..=tail.len())
        .filter(|&i| tail.is_char_boundary(i))
        .any(|i| glob(rest, &tail[i..]))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn inv() -> (tempfile::TempDir, Inventory) {
        let dir = tempfile::tempdir().unwrap();
        let p = dir.path().join("hosts.ini");
        std::fs::write(&p, "[web]\nweb1\nweb2\n[db]\ndb1 ansible_port=2200\n").unwrap();
        let inv = Inventory::load(&p).unwrap();
        (dir, inv)
    }

    fn names(t: &[Target]) -> Vec<&str> {
        t.iter().map(|t| t.name.as_str()).collect()
    }

    #[test]
    fn patterns_like_ansible_limit() {
        let (_d, inv) = inv();
        let s = |args: &[&str]| {
            let args: Vec<String> = args.iter().map(|a| a.to_string()).collect();
            select(Some(&inv), &args)
        };
        assert_eq!(names(&s(&[]).unwrap()), ["web1", "web2", "db1"]);
        assert_eq!(names(&s(&["web"]).unwrap()), ["web1", "web2"]);
        assert_eq!(names(&s(&["all,!web2"]).unwrap()), ["web1", "db1"]);
        assert_eq!(names(&s(&["!db"]).unwrap()), ["web1", "web2"]);
        assert_eq!(names(&s(&["db1", "w*1"]).unwrap()), ["web1", "db1"]);
        assert_eq!(
            names(&s(&["db", "root@10.0.0.9:2222"]).unwrap()),
            ["db1", "root@10.0.0.9:2222"]
        );
        let e = s(&["wbe1"]).unwrap_err();
        assert!(crate::error::is_usage(&e));
        assert!(e.to_string().contains("neither a host nor a group"), "{e}");
        assert!(s(&["web", "!web"])
            .unwrap_err()
            .to_string()
            .contains("no hosts selected"));
    }

    #[test]
    fn plain_hosts_without_inventory() {
        let t = select(None, &["root@127.0.0.2:2222,127.0.0.3".into()]).unwrap();
        assert_eq!(names(&t), ["root@127.0.0.2:2222", "127.0.0.3"]);
        assert!(select(None, &[])
            .unwrap_err()
            .to_string()
            .contains("no hosts"));
        assert!(select(None, &["host:99999".into()])
            .unwrap_err()
            .to_string()
            .starts_with("HOST 'host:99999'"));
    }

    #[test]
    fn globs() {
        assert!(glob("web*", "web12"));
        assert!(glob("*1", "db1"));
        assert!(glob("w*b*2", "web2"));
        assert!(!glob("web", "web1"));
        assert!(glob("*", "x"));
    }
}
