//! Which hosts a fleet run measures: the `HOST` arguments, read as
//! Ansible 2.14 reads `--limit` (`InventoryManager.get_hosts`). Each
//! argument is split into patterns at `,` (or, without a comma, at `:`
//! outside brackets unless the whole argument is an address such as
//! `host:2222`); a pattern is a host or group name, a glob (`web*`,
//! `db?`, `[ab]*`), `~regex` (matched from the start), `all` or `*`,
//! optionally with a subscript (`web[0]`, `web[1:3]`, `web[-1]`). Plain
//! patterns add hosts, `&pattern` keeps only hosts it also matches,
//! `!pattern` leaves hosts out; they apply in that order, and with only
//! `&` and `!` patterns they start from `all`. A pattern that matches
//! nothing is warned about and ignored, as Ansible does, except a pattern
//! written as a target (`user@host`, `host:port`), which is a host of its
//! own.

use super::inventory::Inventory;
use super::target::Target;
use crate::error::usage;
use std::collections::HashSet;

/// The targets in the order the patterns select them.
pub fn select(inventory: Option<&Inventory>, args: &[String]) -> anyhow::Result<Vec<Target>> {
    let Some(inv) = inventory else {
        let patterns: Vec<&str> = args
            .iter()
            .flat_map(|a| a.split(','))
            .map(str::trim)
            .filter(|p| !p.is_empty())
            .collect();
        if patterns.is_empty() {
            return Err(usage(
                "no hosts: give -i INVENTORY, or hosts as user@host[:port]",
            ));
        }
        let mut out: Vec<Target> = Vec::new();
        let mut names = HashSet::new();
        for p in patterns {
            let t = Target::parse(p).map_err(|e| usage(format!("HOST {e}")))?;
            if names.insert(t.name.clone()) {
                out.push(t);
            }
        }
        return Ok(out);
    };
    let selection = host_names(inv, args)?;
    let mut out = Vec::new();
    for (i, name) in selection.hosts.iter().enumerate() {
        // 100,000 hosts take a while: the first signal stops here.
        if i % 1024 == 0 {
            crate::cancel::check()?;
        }
        out.push(inv.target(name)?);
    }
    let mut names: HashSet<String> = out.iter().map(|t| t.name.clone()).collect();
    for p in &selection.plain {
        let t = Target::parse(p).map_err(|e| usage(format!("HOST {e}")))?;
        if names.insert(t.name.clone()) {
            out.push(t);
        }
    }
    if out.is_empty() {
        let unmatched = if selection.unmatched.is_empty() {
            String::new()
        } else {
            format!(
                " ('{}' is neither a host nor a group there; a host outside it is written user@host or host:port)",
                selection.unmatched.join("', '")
            )
        };
        return Err(usage(format!(
            "no hosts selected from {}{unmatched}",
            inv.path().display()
        )));
    }
    // Warned only when something is selected: otherwise the error says it.
    for w in &selection.warnings {
        eprintln!("candor fleet: warning: {w}");
    }
    for w in not_honoured(inv, &selection.hosts) {
        eprintln!("candor fleet: warning: {w}");
    }
    Ok(out)
}

/// One line per setting Ansible would use for the selected hosts that
/// candor cannot (`aliases::NOT_HONOURED`), naming the first hosts.
fn not_honoured(inv: &Inventory, hosts: &[String]) -> Vec<String> {
    let mut by_var: Vec<(&str, &str, Vec<&str>)> = Vec::new();
    for h in hosts {
        for (var, why) in inv.not_honoured(h) {
            match by_var.iter_mut().find(|(v, _, _)| *v == var) {
                Some((_, _, names)) => names.push(h),
                None => by_var.push((var, why, vec![h])),
            }
        }
    }
    by_var
        .into_iter()
        .map(|(var, why, names)| {
            let shown: Vec<&str> = names.iter().take(5).copied().collect();
            let more = names.len() - shown.len();
            let more = if more > 0 {
                format!(" and {more} more")
            } else {
                String::new()
            };
            format!(
                "{var} is set for {}{more}; not used: {why}",
                shown.join(", ")
            )
        })
        .collect()
}

/// What the patterns select from an inventory.
#[derive(Debug, Default, PartialEq, Eq)]
pub struct Selection {
    /// Inventory hosts, in the order selected.
    pub hosts: Vec<String>,
    /// Patterns that matched nothing but are written as targets.
    pub plain: Vec<String>,
    /// Ansible's "Could not match supplied host pattern" warnings.
    pub warnings: Vec<String>,
    /// The patterns behind those warnings.
    pub unmatched: Vec<String>,
}

/// The inventory hosts the arguments select, as Ansible's
/// `_evaluate_patterns` selects them (no arguments: every host).
pub fn host_names(inv: &Inventory, args: &[String]) -> anyhow::Result<Selection> {
    let mut patterns: Vec<String> = args.iter().flat_map(|a| split_patterns(a)).collect();
    if patterns.is_empty() {
        patterns.push("all".to_string());
    }
    let (mut regular, mut and, mut not) = (Vec::new(), Vec::new(), Vec::new());
    for p in patterns {
        match p.chars().next() {
            Some('!') => not.push(p),
            Some('&') => and.push(p),
            _ => regular.push(p),
        }
    }
    if regular.is_empty() {
        regular.push("all".to_string());
    }
    let mut sel = Selection::default();
    let mut chosen: HashSet<String> = HashSet::new();
    for p in regular.iter().chain(&and).chain(&not) {
        crate::cancel::check()?;
        let that = if inv.has_host(p) {
            vec![p.clone()]
        } else {
            let body = p.strip_prefix(['&', '!']).unwrap_or(p);
            let found = match_one(inv, body)?;
            if found.is_empty() && p == body && looks_like_target(body) {
                sel.plain.push(body.to_string());
                continue;
            }
            if found.is_empty() && body != "all" {
                sel.warnings.push(format!(
                    "could not match supplied host pattern, ignoring: {body}"
                ));
                sel.unmatched.push(body.to_string());
            }
            found
        };
        // Sets, not lists: 100,000 hosts took minutes to select.
        match p.chars().next() {
            Some(c @ ('!' | '&')) => {
                let that: HashSet<String> = that.into_iter().collect();
                sel.hosts.retain(|h| that.contains(h) == (c == '&'));
                chosen.retain(|h| that.contains(h) == (c == '&'));
            }
            _ => {
                for h in that {
                    if chosen.insert(h.clone()) {
                        sel.hosts.push(h);
                    }
                }
            }
        }
    }
    Ok(sel)
}

/// `user@host`, `host:port` or `[v6]:port`: a host outside the inventory.
fn looks_like_target(p: &str) -> bool {
    p.contains('@') || Target::parse(p).is_ok_and(|t| t.port.is_some())
}

/// Ansible's `split_host_pattern` for one argument.
pub fn split_patterns(arg: &str) -> Vec<String> {
    let parts: Vec<String> = if arg.contains(',') {
        arg.split(',').map(str::to_string).collect()
    } else if is_address(arg) {
        vec![arg.to_string()]
    } else {
        // `[^\s:\[\]]` or a whole `[...]`, once or more.
        let mut out = Vec::new();
        let mut cur = String::new();
        let mut chars = arg.chars().peekable();
        while let Some(c) = chars.next() {
            match c {
                '[' => {
                    let mut bracket = String::from('[');
                    let mut closed = false;
                    for d in chars.by_ref() {
                        bracket.push(d);
                        if d == ']' {
                            closed = true;
                            break;
                        }
                    }
                    if closed {
                        cur.push_str(&bracket);
                    } else if !cur.is_empty() {
                        // An unclosed '[' ends the word, as the regex does;
                        // what follows it is read again.
                        out.push(std::mem::take(&mut cur));
                        let rest: String = bracket[1..].to_string();
                        out.extend(split_patterns(&rest));
                        return finish(out, cur);
                    } else {
                        out.extend(split_patterns(&bracket[1..]));
                        return finish(out, cur);
                    }
                }
                ':' | ']' => {
                    if !cur.is_empty() {
                        out.push(std::mem::take(&mut cur));
                    }
                }
                c if c.is_whitespace() => {
                    if !cur.is_empty() {
                        out.push(std::mem::take(&mut cur));
                    }
                }
                c => cur.push(c),
            }
        }
        if !cur.is_empty() {
            out.push(cur);
        }
        out
    };
    parts
        .into_iter()
        .map(|p| p.trim().to_string())
        .filter(|p| !p.is_empty())
        .collect()
}

fn finish(mut out: Vec<String>, cur: String) -> Vec<String> {
    if !cur.is_empty() {
        out.push(cur);
    }
    out
}

/// Whether Ansible's `parse_address(allow_ranges=True)` accepts the whole
/// argument: a name or IPv4 address with an optional numeric `:port`, a
/// bare IPv6 address, or `[v6]:port` (ranges allowed in each).
fn is_address(arg: &str) -> bool {
    // candor's own `user@host[:port]` (Ansible has no user in a pattern).
    let arg = match arg.split_once('@') {
        Some((user, host)) if !user.is_empty() && !user.contains(':') => host,
        _ => arg,
    };
    let name_part = |s: &str| {
        !s.is_empty()
            && s.chars()
                .all(|c| c.is_ascii_alphanumeric() || "-_.[]".contains(c))
    };
    if let Some(rest) = arg.strip_prefix('[') {
        if let Some((v6, port)) = rest.split_once("]:") {
            return v6.contains(':')
                && v6
                    .chars()
                    .all(|c| c.is_ascii_hexdigit() || ":.[]".contains(c))
                && !port.is_empty()
                && port.chars().all(|c| c.is_ascii_digit());
        }
    }
    let colons = arg.matches(':').count();
    if colons >= 2 && !arg.contains("[") {
        // A bare IPv6 address.
        return arg
            .chars()
            .all(|c| c.is_ascii_hexdigit() || c == ':' || c == '.');
    }
    match arg.rsplit_once(':') {
        Some((host, port)) if colons == 1 => {
            name_part(host) && !port.is_empty() && port.chars().all(|c| c.is_ascii_digit())
        }
        None => name_part(arg),
        _ => false,
    }
}

/// One pattern without its `&`/`!`: `_match_one_pattern`.
fn match_one(inv: &Inventory, pattern: &str) -> anyhow::Result<Vec<String>> {
    let (expr, subscript) = split_subscript(pattern);
    let hosts = enumerate(inv, expr)?;
    match subscript {
        None => Ok(hosts),
        Some(s) => apply_subscript(&hosts, s).ok_or_else(|| {
            usage(format!(
                "HOST '{pattern}': no hosts matched the subscripted pattern ({} matched '{expr}')",
                hosts.len()
            ))
        }),
    }
}

/// `[i]` (negative from the end) or `[a:b]` / `[a:]` (inclusive).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Subscript {
    Index(i64),
    Range(usize, Option<usize>),
}

/// Ansible's `PATTERN_WITH_SUBSCRIPT`: `(.+)\[(-?[0-9]+|[0-9]+[:-][0-9]*)\]$`
/// (never for a `~regex`).
fn split_subscript(pattern: &str) -> (&str, Option<Subscript>) {
    if pattern.starts_with('~') || !pattern.ends_with(']') {
        return (pattern, None);
    }
    let Some(open) = pattern.rfind('[') else {
        return (pattern, None);
    };
    let (expr, inner) = (&pattern[..open], &pattern[open + 1..pattern.len() - 1]);
    if expr.is_empty() {
        return (pattern, None);
    }
    let digits = |s: &str| !s.is_empty() && s.bytes().all(|b| b.is_ascii_digit());
    if digits(inner.strip_prefix('-').unwrap_or(inner)) {
        return match inner.parse::<i64>() {
            Ok(i) => (expr, Some(Subscript::Index(i))),
            Err(_) => (pattern, None),
        };
    }
    let sep = inner.find([':', '-']);
    if let Some(at) = sep {
        let (a, b) = (&inner[..at], &inner[at + 1..]);
        if digits(a) && (b.is_empty() || digits(b)) {
            if let Ok(start) = a.parse::<usize>() {
                let end = if b.is_empty() {
                    None
                } else {
                    b.parse::<usize>().ok()
                };
                return (expr, Some(Subscript::Range(start, end)));
            }
        }
    }
    (pattern, None)
}

/// `_apply_subscript` (None where Python raises IndexError).
fn apply_subscript(hosts: &[String], s: Subscript) -> Option<Vec<String>> {
    if hosts.is_empty() {
        return Some(Vec::new());
    }
    let one = |i: i64| {
        let len = hosts.len() as i64;
        let at = if i < 0 { len + i } else { i };
        (0..len)
            .contains(&at)
            .then(|| vec![hosts[at as usize].clone()])
    };
    match s {
        Subscript::Index(i) => one(i),
        // Python's `if end:` reads an end of 0 as no end: one host.
        Subscript::Range(start, Some(0)) => one(start as i64),
        Subscript::Range(start, end) => {
            let end = end.unwrap_or(hosts.len() - 1);
            let stop = (end + 1).min(hosts.len());
            Some(
                hosts
                    .get(start..stop)
                    .map(<[String]>::to_vec)
                    .unwrap_or_default(),
            )
        }
    }
}

/// `_enumerate_matches`: the hosts of matching groups; hosts by name when
/// no group matched or the pattern is a regex or glob.
fn enumerate(inv: &Inventory, pattern: &str) -> anyhow::Result<Vec<String>> {
    let matcher = Matcher::new(pattern)?;
    let mut out: Vec<String> = Vec::new();
    let mut seen: HashSet<String> = HashSet::new();
    let mut push = |h: String, out: &mut Vec<String>| {
        if seen.insert(h.clone()) {
            out.push(h);
        }
    };
    let groups: Vec<&String> = inv
        .groups_in_order()
        .iter()
        .filter(|g| matcher.is_match(g))
        .collect();
    for g in &groups {
        crate::cancel::check()?;
        for h in inv.hosts_of(g).unwrap_or_default() {
            push(h, &mut out);
        }
    }
    let special = pattern.starts_with('~') || pattern.contains(['.', '?', '*', '[']);
    if groups.is_empty() || special {
        for (i, h) in inv.host_names().iter().enumerate() {
            if i % 1024 == 0 {
                crate::cancel::check()?;
            }
            if matcher.is_match(h) {
                push(h.clone(), &mut out);
            }
        }
    }
    Ok(out)
}

/// A compiled pattern: fnmatch's glob (whole name) or `~regex` (from the
/// start, as Python's `re.match`).
struct Matcher(regex::Regex);

impl Matcher {
    fn new(pattern: &str) -> anyhow::Result<Matcher> {
        let source = match pattern.strip_prefix('~') {
            Some(re) => format!("^(?:{re})"),
            None => format!("^(?s:{})$", glob_to_regex(pattern)),
        };
        regex::RegexBuilder::new(&source)
            .size_limit(1 << 20)
            .build()
            .map(Matcher)
            .map_err(|e| {
                let why = e.to_string();
                let last = why.lines().last().unwrap_or("").trim().to_string();
                usage(format!("HOST '{pattern}': not a host pattern ({last})"))
            })
    }

    fn is_match(&self, name: &str) -> bool {
        self.0.is_match(name)
    }
}

/// Python's `fnmatch.translate`: `*`, `?`, `[seq]`, `[!seq]`; a `[`
/// without its `]` is itself.
fn glob_to_regex(glob: &str) -> String {
    let chars: Vec<char> = glob.chars().collect();
    let mut out = String::new();
    let mut i = 0;
    while i < chars.len() {
        let c = chars[i];
        i += 1;
        match c {
            '*' => out.push_str(".*"),
            '?' => out.push('.'),
            '[' => {
                let mut j = i;
                if j < chars.len() && chars[j] == '!' {
                    j += 1;
                }
                if j < chars.len() && chars[j] == ']' {
                    j += 1;
                }
                while j < chars.len() && chars[j] != ']' {
                    j += 1;
                }
                if j >= chars.len() {
                    out.push_str("\\[");
                } else {
                    let set: Vec<char> = chars[i..j].to_vec();
                    i = j + 1;
                    let (negated, set) = match set.split_first() {
                        Some(('!', rest)) => (true, rest),
                        _ => (false, &set[..]),
                    };
                    out.push('[');
                    if negated {
                        out.push('^');
                    }
                    for &ch in set {
                        if ch == '-' {
                            out.push('-');
                        } else if ch.is_ascii_alphanumeric() || !ch.is_ascii() {
                            out.push(ch);
                        } else {
                            out.push('\\');
                            out.push(ch);
                        }
                    }
                    out.push(']');
                    continue;
                }
            }
            c => out.push_str(&regex::escape(&c.to_string())),
        }
    }
    out
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
        assert_eq!(names(&s(&["db1", "w*1"]).unwrap()), ["db1", "web1"]);
        assert_eq!(
            names(&s(&["db", "root@10.0.0.9:2222"]).unwrap()),
            ["db1", "root@10.0.0.9:2222"]
        );
        let e = s(&["wbe1"]).unwrap_err();
        assert!(crate::error::is_usage(&e));
        assert!(e.to_string().contains("no hosts selected"), "{e}");
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
    fn ansible_pattern_grammar() {
        let (_d, inv) = inv();
        let s = |arg: &str| host_names(&inv, &[arg.to_string()]).unwrap();
        assert_eq!(s("web:db").hosts, ["web1", "web2", "db1"]);
        assert_eq!(s("all:&web").hosts, ["web1", "web2"]);
        assert_eq!(s("web:!web2").hosts, ["web1"]);
        assert_eq!(s("!web2:&web").hosts, ["web1"]);
        assert_eq!(s("~w.b[12]").hosts, ["web1", "web2"]);
        assert_eq!(
            s("~eb").hosts,
            Vec::<String>::new(),
            "regex matches from the start"
        );
        assert_eq!(s("web[1]").hosts, ["web2"]);
        assert_eq!(s("all[-1]").hosts, ["db1"]);
        assert_eq!(s("all[0:1]").hosts, ["web1", "web2"]);
        assert_eq!(s("web?").hosts, ["web1", "web2"]);
        assert_eq!(s("[dw]*1").hosts, ["web1", "db1"]);
        // `all` is a group that `[!d]*` matches.
        assert_eq!(s("[!d]*").hosts, ["web1", "web2", "db1"]);
        assert_eq!(s("[!a]*").hosts, ["web1", "web2", "db1"]);
        assert_eq!(s("[!aw]*").hosts, ["db1"]);
        assert_eq!(s("*").hosts, ["web1", "web2", "db1"]);
        assert_eq!(s("ungrouped").hosts, Vec::<String>::new());
        let missing = s("web,nope");
        assert_eq!(missing.hosts, ["web1", "web2"]);
        assert_eq!(
            missing.warnings,
            ["could not match supplied host pattern, ignoring: nope"]
        );
        assert_eq!(
            s("db1:2200").plain,
            ["db1:2200"],
            "host:port is one pattern"
        );
        assert!(host_names(&inv, &["all[7]".into()]).is_err());
        assert!(host_names(&inv, &["~(".into()]).is_err());
    }

    #[test]
    fn splitting_like_split_host_pattern() {
        assert_eq!(split_patterns("a:b:!c"), ["a", "b", "!c"]);
        assert_eq!(split_patterns("a, b ,&c"), ["a", "b", "&c"]);
        assert_eq!(split_patterns("host:2222"), ["host:2222"]);
        assert_eq!(split_patterns("web[1:3]:db"), ["web[1:3]", "db"]);
        assert_eq!(split_patterns("::1"), ["::1"]);
        assert_eq!(split_patterns("root@h"), ["root@h"]);
    }

    #[test]
    fn globs_are_fnmatch() {
        let m = |p: &str, t: &str| Matcher::new(p).unwrap().is_match(t);
        assert!(m("web*", "web12"));
        assert!(m("*1", "db1"));
        assert!(m("w*b*2", "web2"));
        assert!(!m("web", "web1"));
        assert!(m("a.b", "a.b") && !m("a.b", "axb"));
        assert!(m("h[0-9]", "h5") && !m("h[!0-9]", "h5"));
        assert!(m("x[", "x["));
        assert!(m("[]]", "]"));
    }
}
